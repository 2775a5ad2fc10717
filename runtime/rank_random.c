/*
 * The C library's pseudo-random generators for each rank on its own: rand, srand, random,
 * srandom, initstate, setstate, and the drand48 family. Linked into each rank's private copy of
 * the program (see rank_getopt.c): a rank draws the sequence a process would, rand() without
 * srand() giving the same numbers on every rank, where the C library's single state would hand
 * the ranks interleaved parts of one sequence.
 *
 * Each is the C library's own generator run on this copy's state through its reentrant form
 * (random_r, drand48_r), started as the C library starts its own: random's state as
 * initstate(1, state, 128) leaves it, drand48's zeroed.
 */
#include <stdint.h>
#include <stdlib.h>

static struct random_data random_data;
static int32_t random_state[32]; /* 128 bytes, the default state's size */
static char *random_current;     /* the state buffer in use, which initstate and setstate return */

static struct random_data *random_ready(void)
{
    if (!random_current) {
        initstate_r(1, (char *)random_state, sizeof random_state, &random_data);
        random_current = (char *)random_state;
    }
    return &random_data;
}

int rand(void)
{
    int32_t r;
    random_r(random_ready(), &r);
    return r;
}

void srand(unsigned int seed)
{
    srandom_r(seed, random_ready());
}

long random(void)
{
    int32_t r;
    random_r(random_ready(), &r);
    return r;
}

void srandom(unsigned int seed)
{
    srandom_r(seed, random_ready());
}

char *initstate(unsigned int seed, char *state, size_t n)
{
    struct random_data *d = random_ready();
    char *old = random_current;
    if (initstate_r(seed, state, n, d) < 0)
        return NULL;
    random_current = state;
    return old;
}

char *setstate(char *state)
{
    struct random_data *d = random_ready();
    char *old = random_current;
    if (setstate_r(state, d) < 0)
        return NULL;
    random_current = state;
    return old;
}

/* ---- the drand48 family: one 48-bit linear congruential state ---- */

static struct drand48_data drand48_state;

double drand48(void)
{
    double r;
    drand48_r(&drand48_state, &r);
    return r;
}

double erand48(unsigned short xsubi[3])
{
    double r;
    erand48_r(xsubi, &drand48_state, &r);
    return r;
}

long lrand48(void)
{
    long r;
    lrand48_r(&drand48_state, &r);
    return r;
}

long nrand48(unsigned short xsubi[3])
{
    long r;
    nrand48_r(xsubi, &drand48_state, &r);
    return r;
}

long mrand48(void)
{
    long r;
    mrand48_r(&drand48_state, &r);
    return r;
}

long jrand48(unsigned short xsubi[3])
{
    long r;
    jrand48_r(xsubi, &drand48_state, &r);
    return r;
}

void srand48(long seed)
{
    srand48_r(seed, &drand48_state);
}

unsigned short *seed48(unsigned short seed16v[3])
{
    seed48_r(seed16v, &drand48_state);
    return drand48_state.__old_x; /* where seed48_r keeps the state it replaced */
}

void lcong48(unsigned short param[7])
{
    lcong48_r(param, &drand48_state);
}

/* Weak: a program that defines one of these itself keeps its own (and links). */
#pragma weak rand
#pragma weak srand
#pragma weak random
#pragma weak srandom
#pragma weak initstate
#pragma weak setstate
#pragma weak drand48
#pragma weak erand48
#pragma weak lrand48
#pragma weak nrand48
#pragma weak mrand48
#pragma weak jrand48
#pragma weak srand48
#pragma weak seed48
#pragma weak lcong48
