/*
 * The MPI state of a rank: its views of MPI_COMM_WORLD and MPI_COMM_SELF. MPI_Init creates it,
 * MPI_Finalize destroys it; in between rt->mpi points to it, so rt->mpi != NULL means "MPI is
 * usable by this rank".
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "attr.h"
#include "bcast_dynamic.h"
#include "coll.h"
#include "file.h"
#include "obj/group.h"
#include "coll/coll.h"
#include "nbc/nbc.h"
#include "mpi_impl.h"
#include "p2p/p2p.h"
#include "pt2pt.h"
#include "win.h"

static void tm_mpi_rank_comm_init(tm_mpi_comm_t *comm, tm_mpi_rank_t *owner, MPI_Comm handle,
                                  const char *name, int rank, int size)
{
    comm->owner = owner;
    comm->handle = handle;
    comm->name = name;
    comm->rank = rank;
    comm->size = size;
    comm->errhandler = MPI_ERRORS_ARE_FATAL;
    snprintf(comm->objname, sizeof(comm->objname), "%s", name);
}

int tm_mpi_rank_create(tm_rt_rank_t *rt)
{
    tm_mpi_rank_t *r = calloc(1, sizeof(*r));

    if (r == NULL)
        return -ENOMEM;
    r->rt = rt;
    r->file_errhandler = MPI_ERRORS_RETURN;
    tm_mpi_rank_comm_init(&r->world, r, MPI_COMM_WORLD, "MPI_COMM_WORLD", rt->world_rank,
                          tm_rt_world_size());
    tm_mpi_rank_comm_init(&r->self, r, MPI_COMM_SELF, "MPI_COMM_SELF", 0, 1);
    r->world.group = tm_mpi_group_world();
    r->self.group = tm_mpi_group_create(1);
    if (r->world.group == NULL || r->self.group == NULL) {
        tm_mpi_group_release(r->world.group);
        tm_mpi_group_release(r->self.group);
        free(r);
        return -ENOMEM;
    }
    r->self.group->world_ranks[0] = rt->world_rank;
    r->world.context_id = TM_MPI_CONTEXT_WORLD;
    r->self.context_id = TM_MPI_CONTEXT_SELF;
    r->world.local = tm_rt_local_size() == tm_rt_world_size();
    r->self.local = true;
    tm_coll_init();
    int err = tm_p2p_init(r);
    if (err == 0 && (err = tm_nbc_engine_create(r)) < 0)
        tm_p2p_finalize(r);
    if (err < 0) {
        tm_mpi_group_release(r->world.group);
        tm_mpi_group_release(r->self.group);
        free(r);
        return err;
    }
    rt->mpi = r;
    return 0;
}

void tm_mpi_rank_destroy(tm_rt_rank_t *rt)
{
    tm_mpi_rank_t *r = rt->mpi;

    /* Attributes first: their delete callbacks may still use MPI. MPI_COMM_SELF's go first
     * (MPI 3.1, 8.7.1), while the program's communicators still exist: a library frees its own
     * there. */
    tm_mpi_attr_comm_fini(&r->self);
    tm_mpi_win_rank_fini(r);
    tm_mpi_file_rank_fini(r);
    tm_mpi_comm_rank_fini(r);
    tm_mpi_attr_rank_fini(r);
    tm_mpi_errhandler_rank_fini(r);
    tm_mpi_deferred_rank_fini(r);
    tm_mpi_group_rank_fini(r);
    tm_coll_flat_release(r, &r->world, "MPI_Finalize");
    tm_coll_check_release(r, &r->world);
    tm_coll_check_release(r, &r->self);
    tm_mpi_group_release(r->world.group);
    tm_mpi_group_release(r->self.group);
    tm_nbc_engine_destroy(r);
    /* The buffered sends complete before the point-to-point state goes: by rendezvous, their
     * receivers still read them. */
    tm_mpi_bsend_drain(r);
    tm_p2p_finalize(r);
    for (int i = 0; r->type_names && i < TM_MPI_TYPE_NBUILTIN; i++)
        free(r->type_names[i]);
    free(r->type_names);
    for (int i = 0; i < r->nuser_errors; i++)
        free(r->user_errors[i].string);
    free(r->user_errors);
    free(r->dyn_listed);
    free(rt->mpi);
    rt->mpi = NULL;
}
