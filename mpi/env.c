/*
 * Inquiries about the environment: the MPI version, the library's version, the host name.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mpi_impl.h"

/* Allowed at any time, from any thread: errors go to the world handler only if MPI is usable. */
int PMPI_Get_version(int *version, int *subversion)
{
    static const char call[] = "MPI_Get_version";

    if (version == NULL)
        return tm_mpi_error_raise(tm_rt_rank_self(), NULL, call, MPI_ERR_ARG, "version is NULL");
    if (subversion == NULL)
        return tm_mpi_error_raise(tm_rt_rank_self(), NULL, call, MPI_ERR_ARG, "subversion is NULL");
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}
#pragma weak MPI_Get_version = PMPI_Get_version

int PMPI_Get_library_version(char *version, int *resultlen)
{
    static const char call[] = "MPI_Get_library_version";
    int n;

    if (version == NULL)
        return tm_mpi_error_raise(tm_rt_rank_self(), NULL, call, MPI_ERR_ARG, "version is NULL");
    if (resultlen == NULL)
        return tm_mpi_error_raise(tm_rt_rank_self(), NULL, call, MPI_ERR_ARG, "resultlen is NULL");
    n = snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
                 "ThreadMPI %s (MPI %d.%d; ranks are user-level threads of one process)",
                 PACKAGE_VERSION, MPI_VERSION, MPI_SUBVERSION);
    *resultlen = n < MPI_MAX_LIBRARY_VERSION_STRING ? n : MPI_MAX_LIBRARY_VERSION_STRING - 1;
    return MPI_SUCCESS;
}
#pragma weak MPI_Get_library_version = PMPI_Get_library_version

/* The profiling control of MPI 3.1, 14.2.4: the MPI library makes no use of it and returns at
 * once; a profiling tool that intercepts MPI_Pcontrol sees the level. Allowed at any time. */
int PMPI_Pcontrol(const int level, ...)
{
    (void)level;
    return MPI_SUCCESS;
}
#pragma weak MPI_Pcontrol = PMPI_Pcontrol

int PMPI_Get_processor_name(char *name, int *resultlen)
{
    static const char call[] = "MPI_Get_processor_name";
    TM_MPI_RANK(r, call);
    char host[HOST_NAME_MAX + 1];
    size_t len;

    if (name == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "name is NULL");
    if (resultlen == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "resultlen is NULL");
    if (gethostname(host, sizeof(host)) != 0)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_OTHER, "gethostname: %s",
                                  strerror(errno));
    /* POSIX leaves a truncated name unterminated. */
    host[sizeof(host) - 1] = '\0';
    len = strlen(host);
    if (len > MPI_MAX_PROCESSOR_NAME - 1)
        len = MPI_MAX_PROCESSOR_NAME - 1;
    memcpy(name, host, len);
    name[len] = '\0';
    *resultlen = (int)len;
    return MPI_SUCCESS;
}
#pragma weak MPI_Get_processor_name = PMPI_Get_processor_name
