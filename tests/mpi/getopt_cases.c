/* getopt, getopt_long, getopt_long_only and __posix_getopt on a table of argument vectors,
 * printing every result, optind, optarg, optopt, long index and flag, the messages (stderr joins
 * stdout, unbuffered, so that they come in order) and the final order of argv. libc_same.sh
 * builds it with the C compiler (the C library's getopt) and with mpicc (each rank's own, in
 * runtime/rank_getopt.c) and compares the two outputs: they must be the same. No MPI call. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int __posix_getopt(int argc, char *const argv[], const char *optstring);

static int flag;

static const struct option longs[] = {
    {"verbose", no_argument, NULL, 'v'},    {"verb", no_argument, NULL, 'V'},
    {"file", required_argument, NULL, 'f'}, {"opt", optional_argument, NULL, 'o'},
    {"flag", no_argument, &flag, 7},        {"same", no_argument, NULL, 's'},
    {"samesame", no_argument, NULL, 's'},   {NULL, 0, NULL, 0},
};

enum mode { SHORT, LONG, LONG_ONLY, POSIX };

typedef struct test_case {
    enum mode mode;
    const char *optstring;
    const char *args[12]; /* after argv[0], NULL-terminated */
} test_case_t;

static const test_case_t cases[] = {
    {SHORT, "ab:c::", {"-a", "-b", "x", "-cfoo", "-c", "rest", NULL}},
    {SHORT, "a", {"x", "-a", "y", "-a", "z", NULL}},
    {SHORT, "a", {"-a", "--", "-a", "x", NULL}},
    {SHORT, "a", {"x", "--", "-a", NULL}},
    {SHORT, "+a", {"-a", "x", "-a", NULL}},
    {SHORT, "-a", {"x", "-a", "y", NULL}},
    {SHORT, ":a:b", {"-z", "-b", "-a", NULL}},
    {SHORT, "a:", {"-a", NULL}},
    {SHORT, "ab", {"-z", "-a", NULL}},
    {SHORT, "ab:", {"-abc", "-ab", "d", NULL}},
    {SHORT, "a", {"-", "-a", "-", NULL}},
    {SHORT, "a::b", {"-a", "x", "-ay", "-b", NULL}},
    {SHORT, "a:", {"-a", "--", "x", NULL}},
    {SHORT, "a;:", {"-;", "-:", NULL}},
    {LONG, "vf:", {"--verbose", "--file=x", "--file", "y", "x1", "--opt", "--opt=z", NULL}},
    {LONG, "v", {"--flag", "--fi=abbr", "--verb", "--verbo", NULL}},
    {LONG, "v", {"--ver", "--sam", "--samesa", NULL}},
    {LONG, "v", {"--verbose=1", "--file", NULL}},
    {LONG, ":v", {"--file", "--unknown", "--verbose=2", NULL}},
    {LONG, "v", {"--unknown=3", "-v", "--", "--verbose", NULL}},
    {LONG, "W;a", {"-W", "verbose", "-Wfile=x", "-W", "fi", "y", "-a", NULL}},
    {LONG, "W;", {"-W", NULL}},
    {LONG_ONLY, "f:v", {"-verbose", "-f", "x", "-fi=y", "-v", "-flag", "-q", NULL}},
    {LONG_ONLY, "v", {"-ver", "-verb", "--verbose", "-x", NULL}},
    {POSIX, "a", {"-a", "x", "-a", NULL}},
};

static void show(const char *what)
{
    printf("%s", what ? what : "(null)");
}

static void run(const test_case_t *t)
{
    char *argv[16];
    int argc = 0;
    argv[argc++] = "prog";
    for (int i = 0; t->args[i]; i++)
        argv[argc++] = (char *)t->args[i];
    argv[argc] = NULL;
    optind = 0;
    opterr = 1;
    flag = 0;
    for (int n = 0; n < 40; n++) {
        int longind = -1, c;
        switch (t->mode) {
        case SHORT:
            c = getopt(argc, argv, t->optstring);
            break;
        case LONG:
            c = getopt_long(argc, argv, t->optstring, longs, &longind);
            break;
        case LONG_ONLY:
            c = getopt_long_only(argc, argv, t->optstring, longs, &longind);
            break;
        default:
            c = __posix_getopt(argc, argv, t->optstring);
            break;
        }
        printf("  %d optind=%d optarg=", c, optind);
        show(optarg);
        printf(" optopt=%d longind=%d flag=%d\n", optopt, longind, flag);
        if (c == -1)
            break;
    }
    printf("  argv:");
    for (int i = 0; i < argc; i++)
        printf(" %s", argv[i]);
    printf("\n");
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    dup2(STDOUT_FILENO, STDERR_FILENO);
    int n = (int)(sizeof cases / sizeof cases[0]);
    for (int i = 0; i < n; i++) {
        printf("case %d: \"%s\"\n", i, cases[i].optstring);
        run(&cases[i]);
    }
    /* Parsing again from optind = 1, without starting a new parse (optind = 0). */
    char *argv[] = {"prog", "-a", "x", "-b", NULL};
    optind = 0;
    while (getopt(4, argv, "ab") != -1)
        ;
    printf("again: optind=%d\n", optind);
    optind = 1;
    int c;
    while ((c = getopt(4, argv, "ab")) != -1)
        printf("  %d optind=%d\n", c, optind);
    printf("  done optind=%d argv: %s %s %s\n", optind, argv[1], argv[2], argv[3]);
    return 0;
}
