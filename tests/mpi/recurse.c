/* recurse MIB: every rank uses about MIB MiB of its stack, through recursion; "recurse inf"
 * recurses without end (a stack overflow), "recurse inf-big" too, with 64 KiB frames that would
 * jump over a guard page if they did not probe the stack. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

static long deep(long frames)
{
    volatile char frame[1024];
    memset((char *)frame, (int)frames, sizeof frame);
    if (frames <= 1)
        return frame[0];
    return deep(frames - 1) + frame[1];
}

static long deep_big(long frames)
{
    volatile char frame[64 * 1024];
    frame[0] = (char)frames;
    frame[sizeof frame - 1] = (char)frames;
    return deep_big(frames + 1) + frame[0];
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (strcmp(argv[1], "inf-big") == 0)
        return (int)deep_big(0);
    long frames = strcmp(argv[1], "inf") == 0 ? -1 : atol(argv[1]) * 1024 * 1024 / 1100;
    long sum = frames < 0 ? deep(1L << 40) : deep(frames);
    MPI_Finalize();
    return sum == -1 ? 1 : 0;
}
