/* MPI_Init_thread gives the level required, and MPI_Query_thread says the same; MPI_Is_thread_main
 * is true in the rank's thread and false in a thread it creates (which may ask whatever the
 * level: it is how it learns whether it may call MPI).
 * Usage: mpi_init_thread single|funneled|serialized|multiple */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static int errors;

static void expect(int ok, const char *what, int value)
{
    if (!ok) {
        fprintf(stderr, "mpi_init_thread: %s (%d)\n", what, value);
        errors++;
    }
}

static void *other_thread(void *arg)
{
    int *flag = arg;

    if (MPI_Is_thread_main(flag) != MPI_SUCCESS)
        *flag = -2;
    return NULL;
}

int main(int argc, char **argv)
{
    static const char *const names[] = {"single", "funneled", "serialized", "multiple"};
    int required = -1, provided = -1, queried = -1, flag = -1, expected;
    pthread_t thread;

    for (int level = 0; level < 4 && argc == 2; level++)
        if (strcmp(argv[1], names[level]) == 0)
            required = MPI_THREAD_SINGLE + level;
    if (required < 0) {
        fprintf(stderr, "usage: mpi_init_thread single|funneled|serialized|multiple\n");
        return 2;
    }
    expected = required;

    expect(MPI_Init_thread(&argc, &argv, required, &provided) == MPI_SUCCESS,
           "MPI_Init_thread failed", required);
    expect(provided == expected, "provided is not the level required", provided);
    expect(MPI_Query_thread(&queried) == MPI_SUCCESS && queried == expected,
           "MPI_Query_thread does not say what MPI_Init_thread gave", queried);
    expect(MPI_Is_thread_main(&flag) == MPI_SUCCESS && flag == 1,
           "MPI_Is_thread_main is false in the rank's thread", flag);
    flag = -1;
    if (pthread_create(&thread, NULL, other_thread, &flag) != 0 || pthread_join(thread, NULL) != 0)
        expect(0, "cannot run a thread", 0);
    expect(flag == 0, "MPI_Is_thread_main is not false in another thread", flag);
    expect(MPI_Finalize() == MPI_SUCCESS, "MPI_Finalize failed", 0);
    return errors ? 1 : 0;
}
