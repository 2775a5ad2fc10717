/*
 * The main() of every executable mpicc makes. The user's own main() lives in the program's
 * shared object, embedded in this executable; the runtime loads one private copy of it per rank.
 */
#include "runtime/job.h"

int main(int argc, char **argv)
{
    return tm_rt_launcher_main(argc, argv);
}
