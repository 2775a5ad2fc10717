/* The C library's per-process state is each rank's own, as in a process: run with many ranks on
 * few cores, each rank yields to the others of its core (MPI_Iprobe) between every two calls,
 * so that a state shared by the ranks would be seen mixed.
 *   - getopt_long parses the job's arguments "-v --file=data.txt -n 5 extra --level 3" on every
 *     rank: every rank sees every option, and "extra" left at optind;
 *   - rand() without srand() gives every rank the sequence of a fresh process (the C library's
 *     random_r seeded 1, as glibc's rand starts), after srand(rank + 1) the rank's own; random,
 *     drand48 likewise;
 *   - strtok, localtime, ctime, asctime, strerror and inet_ntoa keep each rank's result. */
#include <arpa/inet.h>
#include <getopt.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int rank, errors;

static void yield(void)
{
    int flag;
    MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
}

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "rank %d: ", rank);                                                    \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

static void check_getopt(int argc, char **argv)
{
    static const struct option longs[] = {{"file", required_argument, NULL, 'f'},
                                          {"level", required_argument, NULL, 'l'},
                                          {"verbose", no_argument, NULL, 'v'},
                                          {NULL, 0, NULL, 0}};
    int c, verbose = 0, n = 0, level = 0;
    const char *file = "";
    while ((c = getopt_long(argc, argv, "vn:f:", longs, NULL)) != -1) {
        yield();
        switch (c) {
        case 'v':
            verbose++;
            break;
        case 'n':
            n = atoi(optarg);
            break;
        case 'f':
            file = optarg;
            break;
        case 'l':
            level = atoi(optarg);
            break;
        default:
            CHECK(0, "getopt_long returned %d", c);
        }
    }
    CHECK(verbose == 1 && n == 5 && level == 3 && strcmp(file, "data.txt") == 0,
          "parsed verbose=%d n=%d level=%d file=%s", verbose, n, level, file);
    CHECK(optind == argc - 1 && strcmp(argv[optind], "extra") == 0,
          "optind %d of %d: the operand is not last", optind, argc);
}

/* The first numbers of the C library's generator seeded `seed`, computed with its reentrant
 * form (which no rank hook replaces). */
static void expected_random(unsigned seed, int32_t *out, int n)
{
    static char state[128];
    struct random_data data = {0};
    initstate_r(seed, state, sizeof state, &data);
    for (int i = 0; i < n; i++)
        random_r(&data, &out[i]);
}

static void check_random(void)
{
    int32_t want[4];
    expected_random(1, want, 4);
    CHECK(want[0] == 1804289383, "the C library's first number is %d", want[0]);
    for (int i = 0; i < 4; i++) {
        int got = rand();
        CHECK(got == want[i], "rand() #%d without srand: %d, not %d", i, got, want[i]);
        yield();
    }
    srand((unsigned)rank + 1);
    expected_random((unsigned)rank + 1, want, 4);
    for (int i = 0; i < 4; i++) {
        int got = rand();
        CHECK(got == want[i], "rand() #%d after srand(%d): %d, not %d", i, rank + 1, got, want[i]);
        yield();
    }
    srandom(7);
    expected_random(7, want, 2);
    long r0 = random();
    yield();
    long r1 = random();
    CHECK(r0 == want[0] && r1 == want[1], "random() after srandom(7): %ld %ld", r0, r1);

    struct drand48_data d48 = {0};
    double want_d[2], got_d[2];
    drand48_r(&d48, &want_d[0]);
    drand48_r(&d48, &want_d[1]);
    got_d[0] = drand48();
    yield();
    got_d[1] = drand48();
    CHECK(got_d[0] == want_d[0] && got_d[1] == want_d[1], "drand48(): %g %g, not %g %g", got_d[0],
          got_d[1], want_d[0], want_d[1]);
}

static void check_buffers(void)
{
    char text[64];
    snprintf(text, sizeof text, "a%d,b%d;c%d", rank, rank, rank);
    const char *want[] = {"a", "b", "c"};
    int i = 0;
    for (char *tok = strtok(text, ",;"); tok; tok = strtok(NULL, ",;"), i++) {
        char expect[16];
        snprintf(expect, sizeof expect, "%s%d", want[i < 3 ? i : 2], rank);
        CHECK(i < 3 && strcmp(tok, expect) == 0, "strtok token %d: %s", i, tok);
        yield();
    }
    CHECK(i == 3, "strtok gave %d tokens", i);

    time_t t = (time_t)1700000000 + (time_t)rank * 86400 * 33;
    struct tm mine;
    localtime_r(&t, &mine);
    struct tm *tm = localtime(&t);
    yield();
    CHECK(tm->tm_mday == mine.tm_mday && tm->tm_mon == mine.tm_mon && tm->tm_year == mine.tm_year,
          "localtime: day %d month %d, not %d %d", tm->tm_mday, tm->tm_mon, mine.tm_mday,
          mine.tm_mon);
    char want_text[32];
    ctime_r(&t, want_text);
    char *c = ctime(&t);
    yield();
    CHECK(strcmp(c, want_text) == 0, "ctime: %s, not %s", c, want_text);
    char *a = asctime(&mine);
    yield();
    CHECK(strcmp(a, want_text) == 0, "asctime: %s, not %s", a, want_text);

    char *e = strerror(1000 + rank);
    char want_err[64];
    snprintf(want_err, sizeof want_err, "Unknown error %d", 1000 + rank);
    yield();
    CHECK(strcmp(e, want_err) == 0, "strerror: %s", e);

    struct in_addr in = {.s_addr = htonl(0x0a000000u | (unsigned)rank)};
    char *ip = inet_ntoa(in);
    char want_ip[32];
    snprintf(want_ip, sizeof want_ip, "10.0.%d.%d", (rank >> 8) & 255, rank & 255);
    yield();
    CHECK(strcmp(ip, want_ip) == 0, "inet_ntoa: %s, not %s", ip, want_ip);

    /* lgamma's sign (the program links the math library, -lm, before the rank's copies) */
    (void)lgamma(rank % 2 ? -0.5 : 0.5);
    yield();
    CHECK(signgam == (rank % 2 ? -1 : 1), "signgam after lgamma(%s): %d",
          rank % 2 ? "-0.5" : "0.5", signgam);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    check_getopt(argc, argv);
    check_random();
    check_buffers();
    int all = 0;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all)
        fprintf(stderr, "%d errors\n", all);
    MPI_Finalize();
    return all ? 1 : 0;
}
