/* MPI_Wtime and MPI_Wtick: usable before MPI_Init and after MPI_Finalize, MPI_Wtime never goes
 * back and measures a sleep, MPI_Wtick is a positive fraction of a second. Usage: mpi_time */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

int main(int argc, char **argv)
{
    struct timespec pause = {0, 20 * 1000 * 1000};
    double before = MPI_Wtime(), t0, t1, prev, now, tick;
    int errors = 0;

    MPI_Init(&argc, &argv);
    t0 = MPI_Wtime();
    if (t0 < before) {
        fprintf(stderr, "mpi_time: MPI_Wtime went back across MPI_Init: %g < %g\n", t0, before);
        errors++;
    }
    prev = t0;
    for (int i = 0; i < 100000; i++) {
        now = MPI_Wtime();
        if (now < prev) {
            fprintf(stderr, "mpi_time: MPI_Wtime went back: %.9f < %.9f\n", now, prev);
            errors++;
            break;
        }
        prev = now;
    }
    nanosleep(&pause, NULL);
    t1 = MPI_Wtime();
    if (t1 - t0 < 0.019 || t1 - t0 > 60.0) {
        fprintf(stderr, "mpi_time: a 20 ms sleep lasted %g s\n", t1 - t0);
        errors++;
    }
    tick = MPI_Wtick();
    if (!(tick > 0.0 && tick <= 0.01)) {
        fprintf(stderr, "mpi_time: MPI_Wtick is %g\n", tick);
        errors++;
    }
    MPI_Finalize();
    if (MPI_Wtime() < t1 || MPI_Wtick() != tick) {
        fprintf(stderr, "mpi_time: MPI_Wtime or MPI_Wtick wrong after MPI_Finalize\n");
        errors++;
    }
    return errors ? 1 : 0;
}
