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
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "obj/datatype.h"

/* Checks shared by MPI_Pack and MPI_Unpack: buffer size, position, count and type; the packed
 * form's bytes in *need_p (`external`: external32's). */
static int tm_mpi_pack_check(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, MPI_Count count,
                             MPI_Datatype datatype, const void *packbuf, MPI_Count packsize,
                             const void *position, MPI_Count pos, bool external,
                             tm_mpi_type_t **t_p, size_t *need_p)
{
    int err;

    if (count < 0)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_COUNT, "count %lld is negative",
                                  (long long)count);
    if ((err = tm_mpi_type_get(r, c, datatype, 1, call, t_p)) != MPI_SUCCESS)
        return err;
    if (position == NULL)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "position is NULL");
    if (packsize < 0)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "buffer size %lld is negative",
                                  (long long)packsize);
    if (pos < 0 || pos > packsize)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG,
                                  "position %lld is outside the buffer of %lld bytes",
                                  (long long)pos, (long long)packsize);
    if (packbuf == NULL && packsize > 0)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_BUFFER, "the packed buffer is NULL");
    size_t unit = external ? tm_mpi_type_external32_size(*t_p) : (*t_p)->size;
    if (__builtin_mul_overflow((size_t)count, unit, need_p))
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_COUNT,
                                  "%lld elements of %zu bytes are more than memory can hold",
                                  (long long)count, unit);
    return MPI_SUCCESS;
}

/* MPI_Pack and MPI_Pack_external, and their _c forms: incount elements at *pos of outbuf.
 * `position` is the program's argument, checked. comm is NULL for external32. */
static int pack(const char *call, bool external, const void *inbuf, MPI_Count incount,
                MPI_Datatype datatype, void *outbuf, MPI_Count outsize, const void *position,
                MPI_Count *pos, MPI_Comm comm)
{
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c = NULL;
    tm_mpi_type_t *t;
    size_t need;
    int err;

    if ((!external && (err = tm_mpi_comm_get(r, comm, call, &c)) != MPI_SUCCESS) ||
        (err = tm_mpi_pack_check(r, c, call, incount, datatype, outbuf, outsize, position, *pos,
                                 external, &t, &need)) != MPI_SUCCESS)
        return err;
    if (need > (size_t)(outsize - *pos))
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_TRUNCATE,
                                  "%zu bytes to pack at position %lld do not fit in %lld bytes",
                                  need, (long long)*pos, (long long)outsize);
    if (external)
        tm_mpi_type_external32_pack(inbuf, (size_t)incount, t, (char *)outbuf + *pos);
    else
        tm_mpi_type_pack(inbuf, (size_t)incount, t, 0, need, (char *)outbuf + *pos);
    *pos += (MPI_Count)need;
    return MPI_SUCCESS;
}

/* MPI_Unpack and MPI_Unpack_external, and their _c forms. */
static int unpack(const char *call, bool external, const void *inbuf, MPI_Count insize,
                  const void *position, MPI_Count *pos, void *outbuf, MPI_Count outcount,
                  MPI_Datatype datatype, MPI_Comm comm)
{
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c = NULL;
    tm_mpi_type_t *t;
    size_t need;
    int err;

    if ((!external && (err = tm_mpi_comm_get(r, comm, call, &c)) != MPI_SUCCESS) ||
        (err = tm_mpi_pack_check(r, c, call, outcount, datatype, inbuf, insize, position, *pos,
                                 external, &t, &need)) != MPI_SUCCESS)
        return err;
    if (need > (size_t)(insize - *pos))
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_TRUNCATE,
                                  "%zu bytes to unpack at position %lld, but only %lld in the "
                                  "buffer",
                                  need, (long long)*pos, (long long)insize);
    if (external)
        tm_mpi_type_external32_unpack((const char *)inbuf + *pos, outbuf, (size_t)outcount, t);
    else
        tm_mpi_type_unpack((const char *)inbuf + *pos, need, outbuf, (size_t)outcount, t, 0);
    *pos += (MPI_Count)need;
    return MPI_SUCCESS;
}

int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
              int *position, MPI_Comm comm)
{
    MPI_Count pos = position ? *position : 0;
    int err =
        pack("MPI_Pack", false, inbuf, incount, datatype, outbuf, outsize, position, &pos, comm);
    if (err == MPI_SUCCESS)
        *position = (int)pos; /* at most outsize */
    return err;
}
#pragma weak MPI_Pack = PMPI_Pack

int PMPI_Pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf,
                MPI_Count outsize, MPI_Count *position, MPI_Comm comm)
{
    MPI_Count pos = position ? *position : 0;
    int err =
        pack("MPI_Pack_c", false, inbuf, incount, datatype, outbuf, outsize, position, &pos, comm);
    if (err == MPI_SUCCESS)
        *position = pos;
    return err;
}
#pragma weak MPI_Pack_c = PMPI_Pack_c

int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                MPI_Datatype datatype, MPI_Comm comm)
{
    MPI_Count pos = position ? *position : 0;
    int err = unpack("MPI_Unpack", false, inbuf, insize, position, &pos, outbuf, outcount, datatype,
                     comm);
    if (err == MPI_SUCCESS)
        *position = (int)pos; /* at most insize */
    return err;
}
#pragma weak MPI_Unpack = PMPI_Unpack

int PMPI_Unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
                  MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm)
{
    MPI_Count pos = position ? *position : 0;
    int err = unpack("MPI_Unpack_c", false, inbuf, insize, position, &pos, outbuf, outcount,
                     datatype, comm);
    if (err == MPI_SUCCESS)
        *position = pos;
    return err;
}
#pragma weak MPI_Unpack_c = PMPI_Unpack_c

/* MPI_Pack_size, MPI_Pack_external_size and their _c forms: the bytes in *need_p, at most `most`.
 * `size` is the program's argument, checked. */
static int pack_size(const char *call, bool external, MPI_Count incount, MPI_Datatype datatype,
                     MPI_Comm comm, const void *size, MPI_Count most, MPI_Count *need_p)
{
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c = NULL;
    tm_mpi_type_t *t;
    int err;

    if (!external && (err = tm_mpi_comm_get(r, comm, call, &c)) != MPI_SUCCESS)
        return err;
    if (incount < 0)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_COUNT, "count %lld is negative",
                                  (long long)incount);
    if ((err = tm_mpi_type_get(r, c, datatype, 1, call, &t)) != MPI_SUCCESS)
        return err;
    if (size == NULL)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "size is NULL");
    size_t unit = external ? tm_mpi_type_external32_size(t) : t->size, need;
    if (__builtin_mul_overflow((size_t)incount, unit, &need) || need > (size_t)most)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_COUNT,
                                  "%lld elements of %zu bytes do not fit in %s", (long long)incount,
                                  unit, most == INT_MAX ? "an int" : "an MPI_Count");
    *need_p = (MPI_Count)need;
    return MPI_SUCCESS;
}

int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    MPI_Count need;
    int err = pack_size("MPI_Pack_size", false, incount, datatype, comm, size, INT_MAX, &need);
    if (err == MPI_SUCCESS)
        *size = (int)need;
    return err;
}
#pragma weak MPI_Pack_size = PMPI_Pack_size

int PMPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size)
{
    return pack_size("MPI_Pack_size_c", false, incount, datatype, comm, size, INT64_MAX, size);
}
#pragma weak MPI_Pack_size_c = PMPI_Pack_size_c

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
    int err = tm_mpi_pack_datarep(tm_mpi_rank_get(call), call, datarep);
    MPI_Count pos = position ? *position : 0;
    if (err == MPI_SUCCESS)
        err = pack(call, true, inbuf, incount, datatype, outbuf, outsize, position, &pos,
                   MPI_COMM_NULL);
    if (err == MPI_SUCCESS)
        *position = (MPI_Aint)pos;
    return err;
}
#pragma weak MPI_Pack_external = PMPI_Pack_external

int PMPI_Pack_external_c(const char datarep[], const void *inbuf, MPI_Count incount,
                         MPI_Datatype datatype, void *outbuf, MPI_Count outsize,
                         MPI_Count *position)
{
    static const char call[] = "MPI_Pack_external_c";
    int err = tm_mpi_pack_datarep(tm_mpi_rank_get(call), call, datarep);
    MPI_Count pos = position ? *position : 0;
    if (err == MPI_SUCCESS)
        err = pack(call, true, inbuf, incount, datatype, outbuf, outsize, position, &pos,
                   MPI_COMM_NULL);
    if (err == MPI_SUCCESS)
        *position = pos;
    return err;
}
#pragma weak MPI_Pack_external_c = PMPI_Pack_external_c

int PMPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                         MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype datatype)
{
    static const char call[] = "MPI_Unpack_external";
    int err = tm_mpi_pack_datarep(tm_mpi_rank_get(call), call, datarep);
    MPI_Count pos = position ? *position : 0;
    if (err == MPI_SUCCESS)
        err = unpack(call, true, inbuf, insize, position, &pos, outbuf, outcount, datatype,
                     MPI_COMM_NULL);
    if (err == MPI_SUCCESS)
        *position = (MPI_Aint)pos;
    return err;
}
#pragma weak MPI_Unpack_external = PMPI_Unpack_external

int PMPI_Unpack_external_c(const char datarep[], const void *inbuf, MPI_Count insize,
                           MPI_Count *position, void *outbuf, MPI_Count outcount,
                           MPI_Datatype datatype)
{
    static const char call[] = "MPI_Unpack_external_c";
    int err = tm_mpi_pack_datarep(tm_mpi_rank_get(call), call, datarep);
    MPI_Count pos = position ? *position : 0;
    if (err == MPI_SUCCESS)
        err = unpack(call, true, inbuf, insize, position, &pos, outbuf, outcount, datatype,
                     MPI_COMM_NULL);
    if (err == MPI_SUCCESS)
        *position = pos;
    return err;
}
#pragma weak MPI_Unpack_external_c = PMPI_Unpack_external_c

int PMPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype,
                            MPI_Aint *size)
{
    static const char call[] = "MPI_Pack_external_size";
    MPI_Count need;
    int err = tm_mpi_pack_datarep(tm_mpi_rank_get(call), call, datarep);
    if (err == MPI_SUCCESS)
        err = pack_size(call, true, incount, datatype, MPI_COMM_NULL, size, INT64_MAX, &need);
    if (err == MPI_SUCCESS)
        *size = (MPI_Aint)need;
    return err;
}
#pragma weak MPI_Pack_external_size = PMPI_Pack_external_size

int PMPI_Pack_external_size_c(const char datarep[], MPI_Count incount, MPI_Datatype datatype,
                              MPI_Count *size)
{
    static const char call[] = "MPI_Pack_external_size_c";
    int err = tm_mpi_pack_datarep(tm_mpi_rank_get(call), call, datarep);
    if (err == MPI_SUCCESS)
        err = pack_size(call, true, incount, datatype, MPI_COMM_NULL, size, INT64_MAX, size);
    return err;
}
#pragma weak MPI_Pack_external_size_c = PMPI_Pack_external_size_c
