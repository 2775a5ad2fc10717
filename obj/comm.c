/*
 * Communicators: MPI_COMM_WORLD, MPI_COMM_SELF and those the program created (mpi/comm_create.c),
 * resolved for the calling rank.
 */
#include "config.h"

#include "obj/obj.h"

int tm_mpi_comm_get_intra(tm_mpi_rank_t *r, MPI_Comm handle, const char *call,
                          tm_mpi_comm_t **comm_p)
{
    int err = tm_mpi_comm_get(r, handle, call, comm_p);
    if (err != MPI_SUCCESS || !tm_mpi_comm_is_inter(*comm_p))
        return err;
    return tm_mpi_error_raise(
        r->rt, *comm_p, call, MPI_ERR_COMM,
        "%s is an intercommunicator, which %s does not take yet "
        "(intercommunicators carry point-to-point messages, the collectives "
        "but the scans, MPI_Comm_dup, MPI_Comm_idup, MPI_Comm_create, MPI_Comm_split, "
        "MPI_Intercomm_merge, MPI_Comm_free)",
        (*comm_p)->name, call);
}

int tm_mpi_comm_get_slow(tm_mpi_rank_t *r, MPI_Comm handle, const char *call,
                         tm_mpi_comm_t **comm_p)
{
    tm_mpi_kind_t kind = tm_mpi_handle_kind(handle);

    *comm_p = NULL;
    if (handle == MPI_COMM_WORLD) {
        *comm_p = &r->world;
        return MPI_SUCCESS;
    }
    if (handle == MPI_COMM_SELF) {
        *comm_p = &r->self;
        return MPI_SUCCESS;
    }
    if (handle == MPI_COMM_NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_COMM,
                                  "invalid communicator MPI_COMM_NULL");
    if (kind == TM_MPI_KIND_COMM) {
        *comm_p = tm_mpi_table_get(&r->comms,
                                   (long)tm_mpi_handle_payload(handle) - TM_MPI_COMM_FIRST_PAYLOAD);
        if (*comm_p != NULL)
            return MPI_SUCCESS;
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_COMM,
                                  "invalid communicator 0x%08x: no such communicator",
                                  (unsigned)handle);
    }
    if (kind == TM_MPI_KIND_NONE)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_COMM,
                                  "invalid communicator 0x%08x: not an MPI handle",
                                  (unsigned)handle);
    return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_COMM,
                              "invalid communicator 0x%08x: the handle of %s", (unsigned)handle,
                              tm_mpi_handle_kind_name(kind));
}
