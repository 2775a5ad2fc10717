/* MPI_Get_version (also before MPI_Init and after MPI_Finalize), MPI_Get_library_version and
 * MPI_Get_processor_name. Usage: mpi_version */
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int errors;

static void check_version(const char *when)
{
    int version = -1, subversion = -1;

    if (MPI_Get_version(&version, &subversion) != MPI_SUCCESS || version != 3 || subversion != 1 ||
        version != MPI_VERSION || subversion != MPI_SUBVERSION) {
        fprintf(stderr, "mpi_version: MPI_Get_version %s gives %d.%d\n", when, version, subversion);
        errors++;
    }
}

static void check_library_version(const char *when)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = -1;

    memset(lib, 'x', sizeof(lib));
    if (MPI_Get_library_version(lib, &len) != MPI_SUCCESS || len <= 0 ||
        len >= MPI_MAX_LIBRARY_VERSION_STRING || (size_t)len != strlen(lib) ||
        strncmp(lib, "ThreadMPI ", 10) != 0) {
        fprintf(stderr, "mpi_version: MPI_Get_library_version %s gives %d \"%.80s\"\n", when, len,
                lib);
        errors++;
    }
}

int main(int argc, char **argv)
{
    char name[MPI_MAX_PROCESSOR_NAME], host[HOST_NAME_MAX + 1] = "";
    int len = -1;

    check_version("before MPI_Init");
    check_library_version("before MPI_Init");
    MPI_Init(&argc, &argv);
    check_version("after MPI_Init");
    check_library_version("after MPI_Init");

    memset(name, 'x', sizeof(name));
    gethostname(host, sizeof(host));
    host[HOST_NAME_MAX] = '\0';
    if (MPI_Get_processor_name(name, &len) != MPI_SUCCESS || strcmp(name, host) != 0 ||
        (size_t)len != strlen(host)) {
        fprintf(stderr, "mpi_version: processor name \"%.40s\" (%d), host \"%s\"\n", name, len,
                host);
        errors++;
    }
    MPI_Finalize();
    check_version("after MPI_Finalize");
    check_library_version("after MPI_Finalize");
    return errors ? 1 : 0;
}
