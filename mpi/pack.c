/*
 * MPI_Pack, MPI_Unpack, MPI_Pack_size and their external32 forms. The native packed form is the
 * data stream of the typemap (no header): what the copy engine reads and writes.
 *
 * The standard names no error class for a pack buffer too small; ThreadMPI reports
 * MPI_ERR_TRUNCATE, as for a receive buffer too small, both when packing would overflow outsize
 * and when unpacking would read past insize.
 */
#include "config.h"

#include <limits.h>
#include <string.h>

#include "obj/datatype.h"

/* Checks shared by MPI_Pack and MPI_Unpack: buffer size, position, count and type. */
static int tm_mpi_pack_check(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, int count,
                             MPI_Datatype datatype, const void *packbuf, MPI_Aint packsize,
                             const void *position, MPI_Aint pos, tm_mpi_type_t **t_p)
{
    int err;

    if (count < 0)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_COUNT, "count %d is negative", count);
    if ((err = tm_mpi_type_get(r, c, datatype, 1, call, t_p)) != MPI_SUCCESS)
        return err;
    if (position == NULL)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "position is NULL");
    if (packsize < 0)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "buffer size %ld is negative",
                                  (long)packsize);
    if (pos < 0 || pos > packsize)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG,
                                  "position %ld is outside the buffer of %ld bytes", (long)pos,
                                  (long)packsize);
    if (packbuf == NULL && packsize > 0)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_BUFFER, "the packed buffer is NULL");
    return MPI_SUCCESS;
}

int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
              int *position, MPI_Comm comm)
{
    static const char call[] = "MPI_Pack";
    tm_mpi_rank_t *r = tm_mpi_rank_get(call);
    tm_mpi_comm_t *c;
    tm_mpi_type_t *t;
    size_t need;
    int err;

    if ((err = tm_mpi_comm_get(r, comm, call, &c)) != MPI_SUCCESS ||
        (err = tm_mpi_pack_check(r, c, call, incount, datatype, outbuf, outsize, position,
                                 position ? *position : 0, &t)) != MPI_SUCCESS)
        return err;
    need = (size_t)incount * t->size;
    if (need > (size_t)(outsize - *position))
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_TRUNCATE,
                                  "%zu bytes to pack at position %d do not fit in %d bytes", need,
                                  *position, outsize);
    tm_mpi_type_pack(inbuf, (size_t)incount, t, 0, need, (char *)outbuf + *position);
    *position += (int)need;
    return MPI_SUCCESS;
}
#pragma weak MPI_Pack = PMPI_Pack

int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                MPI_Datatype datatype, MPI_Comm comm)
{
    static const char call[] = "MPI_Unpack";
    tm_mpi_rank_t *r = tm_mpi_rank_get(call);
    tm_mpi_comm_t *c;
    tm_mpi_type_t *t;
    size_t need;
    int err;

    if ((err = tm_mpi_comm_get(r, comm, call, &c)) != MPI_SUCCESS ||
        (err = tm_mpi_pack_check(r, c, call, outcount, datatype, inbuf, insize, position,
                                 position ? *position : 0, &t)) != MPI_SUCCESS)
        return err;
    need = (size_t)outcount * t->size;
    if (need > (size_t)(insize - *position))
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_TRUNCATE,
                                  "%zu bytes to unpack at position %d, but only %d in the buffer",
                                  need, *position, insize);
    tm_mpi_type_unpack((const char *)inbuf + *position, need, outbuf, (size_t)outcount, t, 0);
    *position += (int)need;
    return MPI_SUCCESS;
}
#pragma weak MPI_Unpack = PMPI_Unpack

int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    static const char call[] = "MPI_Pack_size";
    tm_mpi_rank_t *r = tm_mpi_rank_get(call);
    tm_mpi_comm_t *c;
    tm_mpi_type_t *t;
    size_t need;
    int err;

    if ((err = tm_mpi_comm_get(r, comm, call, &c)) != MPI_SUCCESS)
        return err;
    if (incount < 0)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_COUNT, "count %d is negative", incount);
    if ((err = tm_mpi_type_get(r, c, datatype, 1, call, &t)) != MPI_SUCCESS)
        return err;
    if (size == NULL)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "size is NULL");
    need = (size_t)incount * t->size;
    if (need > INT_MAX)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_COUNT, "%zu bytes do not fit in an int",
                                  need);
    *size = (int)need;
    return MPI_SUCCESS;
}
#pragma weak MPI_Pack_size = PMPI_Pack_size

static int tm_mpi_pack_datarep(tm_mpi_rank_t *r, const char *call, const char *datarep)
{
    if (datarep == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "datarep is NULL");
    if (strcmp(datarep, "external32") != 0)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG,
                                  "data representation \"%s\" is not \"external32\"", datarep);
    return MPI_SUCCESS;
}

int PMPI_Pack_external(const char datarep[], const void *inbuf, int incount, MPI_Datatype datatype,
                       void *outbuf, MPI_Aint outsize, MPI_Aint *position)
{
    static const char call[] = "MPI_Pack_external";
    tm_mpi_rank_t *r = tm_mpi_rank_get(call);
    tm_mpi_type_t *t;
    size_t need;
    int err;

    if ((err = tm_mpi_pack_datarep(r, call, datarep)) != MPI_SUCCESS ||
        (err = tm_mpi_pack_check(r, NULL, call, incount, datatype, outbuf, outsize, position,
                                 position ? *position : 0, &t)) != MPI_SUCCESS)
        return err;
    need = (size_t)incount * tm_mpi_type_external32_size(t);
    if (need > (size_t)(outsize - *position))
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_TRUNCATE,
                                  "%zu bytes to pack at position %ld do not fit in %ld bytes", need,
                                  (long)*position, (long)outsize);
    tm_mpi_type_external32_pack(inbuf, (size_t)incount, t, (char *)outbuf + *position);
    *position += (MPI_Aint)need;
    return MPI_SUCCESS;
}
#pragma weak MPI_Pack_external = PMPI_Pack_external

int PMPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                         MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype datatype)
{
    static const char call[] = "MPI_Unpack_external";
    tm_mpi_rank_t *r = tm_mpi_rank_get(call);
    tm_mpi_type_t *t;
    size_t need;
    int err;

    if ((err = tm_mpi_pack_datarep(r, call, datarep)) != MPI_SUCCESS ||
        (err = tm_mpi_pack_check(r, NULL, call, outcount, datatype, inbuf, insize, position,
                                 position ? *position : 0, &t)) != MPI_SUCCESS)
        return err;
    need = (size_t)outcount * tm_mpi_type_external32_size(t);
    if (need > (size_t)(insize - *position))
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_TRUNCATE,
                                  "%zu bytes to unpack at position %ld, but only %ld in the "
                                  "buffer",
                                  need, (long)*position, (long)insize);
    tm_mpi_type_external32_unpack((const char *)inbuf + *position, outbuf, (size_t)outcount, t);
    *position += (MPI_Aint)need;
    return MPI_SUCCESS;
}
#pragma weak MPI_Unpack_external = PMPI_Unpack_external

int PMPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype,
                            MPI_Aint *size)
{
    static const char call[] = "MPI_Pack_external_size";
    tm_mpi_rank_t *r = tm_mpi_rank_get(call);
    tm_mpi_type_t *t;
    int err;

    if ((err = tm_mpi_pack_datarep(r, call, datarep)) != MPI_SUCCESS)
        return err;
    if (incount < 0)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_COUNT, "count %d is negative",
                                  incount);
    if ((err = tm_mpi_type_get(r, NULL, datatype, 1, call, &t)) != MPI_SUCCESS)
        return err;
    if (size == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "size is NULL");
    *size = (MPI_Aint)((size_t)incount * tm_mpi_type_external32_size(t));
    return MPI_SUCCESS;
}
#pragma weak MPI_Pack_external_size = PMPI_Pack_external_size
