/*
 * Local queries on communicators: MPI_Comm_compare, MPI_Comm_test_inter and the names
 * (MPI_Comm_set_name, MPI_Comm_get_name), which belong to the calling rank's view.
 */
#include "config.h"

#include <string.h>

#include "obj/group.h"

int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    static const char call[] = "MPI_Comm_compare";
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c1, *c2;
    int err = tm_mpi_comm_get(r, comm1, call, &c1);

    if (err != MPI_SUCCESS)
        return err;
    err = tm_mpi_comm_get(r, comm2, call, &c2);
    if (err != MPI_SUCCESS)
        return err;
    if (result == NULL)
        return tm_mpi_error_raise(r->rt, c1, call, MPI_ERR_ARG, "result is NULL");
    if (c1 == c2) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    /* Different contexts: at best congruent; intercommunicators compare both groups. */
    int local = tm_mpi_group_compare(c1->group, c2->group);
    if (tm_mpi_comm_is_inter(c1) || tm_mpi_comm_is_inter(c2)) {
        int remote = tm_mpi_comm_is_inter(c1) && tm_mpi_comm_is_inter(c2)
                         ? tm_mpi_group_compare(c1->remote, c2->remote)
                         : MPI_UNEQUAL;
        local = local == MPI_UNEQUAL || remote == MPI_UNEQUAL ? MPI_UNEQUAL
                : local == MPI_IDENT && remote == MPI_IDENT   ? MPI_IDENT
                                                              : MPI_SIMILAR;
    }
    switch (local) {
    case MPI_IDENT:
        *result = MPI_CONGRUENT;
        break;
    case MPI_SIMILAR:
        *result = MPI_SIMILAR;
        break;
    default:
        *result = MPI_UNEQUAL;
    }
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_compare = PMPI_Comm_compare

int PMPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
    static const char call[] = "MPI_Comm_test_inter";
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    int err = tm_mpi_comm_get(r, comm, call, &c);

    if (err != MPI_SUCCESS)
        return err;
    if (flag == NULL)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "flag is NULL");
    *flag = tm_mpi_comm_is_inter(c);
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_test_inter = PMPI_Comm_test_inter

/* A name longer than MPI_MAX_OBJECT_NAME - 1 characters is truncated (MPI 3.1, 6.8). */
int PMPI_Comm_set_name(MPI_Comm comm, const char *comm_name)
{
    static const char call[] = "MPI_Comm_set_name";
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    int err = tm_mpi_comm_get(r, comm, call, &c);
    size_t len;

    if (err != MPI_SUCCESS)
        return err;
    if (comm_name == NULL)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "comm_name is NULL");
    len = strnlen(comm_name, MPI_MAX_OBJECT_NAME - 1);
    memcpy(c->objname, comm_name, len);
    c->objname[len] = '\0';
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_set_name = PMPI_Comm_set_name

int PMPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen)
{
    static const char call[] = "MPI_Comm_get_name";
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    int err = tm_mpi_comm_get(r, comm, call, &c);
    size_t len;

    if (err != MPI_SUCCESS)
        return err;
    if (comm_name == NULL)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "comm_name is NULL");
    if (resultlen == NULL)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "resultlen is NULL");
    len = strlen(c->objname);
    memcpy(comm_name, c->objname, len + 1);
    *resultlen = (int)len;
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_get_name = PMPI_Comm_get_name
