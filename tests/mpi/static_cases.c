/* The C library's functions with a static result that each rank has its own copy of
 * (runtime/rank_strings.c, rank_names.c), on a table of arguments: printed the same when built
 * with the C compiler and with mpicc (libc_same.sh). No MPI call. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <netdb.h>
int main(void)
{
    int sigs[] = {0, 1, 9, 11, 31, 32, 34, 40, 64, 65, 100, -1};
    for (unsigned i = 0; i < sizeof sigs / sizeof *sigs; i++)
        printf("%d [%s]\n", sigs[i], strsignal(sigs[i]));
    long ls[] = {0, 1, 63, 64, 12345678, -1, 0x7fffffffL, 0x123456789L};
    for (unsigned i = 0; i < sizeof ls / sizeof *ls; i++)
        printf("%ld [%s]\n", ls[i], l64a(ls[i]));
    double ds[] = {0, 1.5, -123.456, 1e300, 1e-300, 3.14159265358979};
    for (unsigned i = 0; i < 6; i++)
        for (int nd = 0; nd < 20; nd += 7) {
            int d, s;
            char *e = ecvt(ds[i], nd, &d, &s);
            printf("e %g %d [%s] %d %d\n", ds[i], nd, e, d, s);
            char *f = fcvt(ds[i], nd, &d, &s);
            printf("f %g %d [%.40s] %zu %d %d\n", ds[i], nd, f, strlen(f), d, s);
        }
    struct servent *se = getservbyname("ssh", "tcp");
    printf("serv %s\n", se ? se->s_name : "none");
    struct protoent *pe = getprotobynumber(6);
    printf("proto %s\n", pe ? pe->p_name : "none");
    return 0;
}
