/*
 * Inquiries about datatypes: size, extents, envelope and contents, names; addresses and their
 * arithmetic; MPI_Type_match_size; the MPI-1 forms MPI_Type_extent, _lb, _ub and MPI_Address.
 */
#include "config.h"

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "obj/datatype.h"

#define TM_MPI_TYPE_QUERY_BEGIN(name)                                                              \
    static const char call[] = name;                                                               \
    TM_MPI_RANK(r, call);                                                                          \
    tm_mpi_type_t *t;                                                                              \
    int err = tm_mpi_type_get(r, NULL, datatype, 0, call, &t);                                     \
    if (err != MPI_SUCCESS)                                                                        \
    return err

#define TM_MPI_TYPE_CHECK_OUT(p)                                                                   \
    do {                                                                                           \
        if ((p) == NULL)                                                                           \
            return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, #p " is NULL");              \
    } while (0)

int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
    TM_MPI_TYPE_QUERY_BEGIN("MPI_Type_size");
    TM_MPI_TYPE_CHECK_OUT(size);
    *size = t->size > INT_MAX ? MPI_UNDEFINED : (int)t->size;
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_size = PMPI_Type_size

/* MPI_Type_size_x and _c. */
static int size_count(const char *call, MPI_Datatype datatype, MPI_Count *size)
{
    TM_MPI_RANK(r, call);
    tm_mpi_type_t *t;
    int err = tm_mpi_type_get(r, NULL, datatype, 0, call, &t);
    if (err != MPI_SUCCESS)
        return err;
    TM_MPI_TYPE_CHECK_OUT(size);
    *size = (MPI_Count)t->size;
    return MPI_SUCCESS;
}

int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
    return size_count("MPI_Type_size_x", datatype, size);
}
#pragma weak MPI_Type_size_x = PMPI_Type_size_x

int PMPI_Type_size_c(MPI_Datatype datatype, MPI_Count *size)
{
    return size_count("MPI_Type_size_c", datatype, size);
}
#pragma weak MPI_Type_size_c = PMPI_Type_size_c

int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
    TM_MPI_TYPE_QUERY_BEGIN("MPI_Type_get_extent");
    TM_MPI_TYPE_CHECK_OUT(lb);
    TM_MPI_TYPE_CHECK_OUT(extent);
    *lb = t->lb;
    *extent = t->extent;
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_get_extent = PMPI_Type_get_extent

/* MPI_Type_get_extent_x and _c, and their true_extent forms (`true_bounds`). */
static int extent_count(const char *call, MPI_Datatype datatype, bool true_bounds, MPI_Count *lb,
                        MPI_Count *extent)
{
    TM_MPI_RANK(r, call);
    tm_mpi_type_t *t;
    int err = tm_mpi_type_get(r, NULL, datatype, 0, call, &t);
    if (err != MPI_SUCCESS)
        return err;
    if (lb == NULL || extent == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "%s is NULL",
                                  lb ? (true_bounds ? "true_extent" : "extent")
                                     : (true_bounds ? "true_lb" : "lb"));
    *lb = true_bounds ? t->true_lb : t->lb;
    *extent = true_bounds ? t->true_extent : t->extent;
    return MPI_SUCCESS;
}

int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    return extent_count("MPI_Type_get_extent_x", datatype, false, lb, extent);
}
#pragma weak MPI_Type_get_extent_x = PMPI_Type_get_extent_x

int PMPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    return extent_count("MPI_Type_get_extent_c", datatype, false, lb, extent);
}
#pragma weak MPI_Type_get_extent_c = PMPI_Type_get_extent_c

int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent)
{
    TM_MPI_TYPE_QUERY_BEGIN("MPI_Type_get_true_extent");
    TM_MPI_TYPE_CHECK_OUT(true_lb);
    TM_MPI_TYPE_CHECK_OUT(true_extent);
    *true_lb = t->true_lb;
    *true_extent = t->true_extent;
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_get_true_extent = PMPI_Type_get_true_extent

int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent)
{
    return extent_count("MPI_Type_get_true_extent_x", datatype, true, true_lb, true_extent);
}
#pragma weak MPI_Type_get_true_extent_x = PMPI_Type_get_true_extent_x

int PMPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent)
{
    return extent_count("MPI_Type_get_true_extent_c", datatype, true, true_lb, true_extent);
}
#pragma weak MPI_Type_get_true_extent_c = PMPI_Type_get_true_extent_c

/* The MPI-1 inquiries, which MPI-3.0 removed and MPICH still provides: MPI_Type_get_extent in
 * three calls. */
int PMPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent)
{
    TM_MPI_TYPE_QUERY_BEGIN("MPI_Type_extent");
    TM_MPI_TYPE_CHECK_OUT(extent);
    *extent = t->extent;
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_extent = PMPI_Type_extent

int PMPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement)
{
    TM_MPI_TYPE_QUERY_BEGIN("MPI_Type_lb");
    TM_MPI_TYPE_CHECK_OUT(displacement);
    *displacement = t->lb;
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_lb = PMPI_Type_lb

int PMPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement)
{
    TM_MPI_TYPE_QUERY_BEGIN("MPI_Type_ub");
    TM_MPI_TYPE_CHECK_OUT(displacement);
    *displacement = t->lb + t->extent;
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_ub = PMPI_Type_ub

/* The plain envelope and contents cannot show a large count: a type made by a _c constructor
 * (MPI-4.0 section 5.1.13) is described only by their _c forms. */
static int tm_mpi_type_check_plain(tm_mpi_rank_t *r, const char *call, const tm_mpi_type_t *t)
{
    if (t->nc == 0)
        return MPI_SUCCESS;
    return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_TYPE,
                              "the datatype was made by a large-count (_c) constructor: its "
                              "arguments are shown by %s_c",
                              call);
}

static int tm_mpi_type_envelope(const char *call, MPI_Datatype datatype, bool large,
                                MPI_Count *num_integers, MPI_Count *num_addresses,
                                MPI_Count *num_large_counts, MPI_Count *num_datatypes,
                                int *combiner)
{
    TM_MPI_RANK(r, call);
    tm_mpi_type_t *t;
    int err = tm_mpi_type_get(r, NULL, datatype, 0, call, &t);

    if (err != MPI_SUCCESS || (!large && (err = tm_mpi_type_check_plain(r, call, t))))
        return err;
    TM_MPI_TYPE_CHECK_OUT(num_integers);
    TM_MPI_TYPE_CHECK_OUT(num_addresses);
    TM_MPI_TYPE_CHECK_OUT(num_large_counts);
    TM_MPI_TYPE_CHECK_OUT(num_datatypes);
    TM_MPI_TYPE_CHECK_OUT(combiner);
    *num_integers = t->ni;
    *num_addresses = t->na;
    *num_large_counts = (MPI_Count)t->nc;
    *num_datatypes = t->nd;
    *combiner = t->combiner;
    return MPI_SUCCESS;
}

int PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses,
                           int *num_datatypes, int *combiner)
{
    MPI_Count ni, na, nc, nd;
    int err =
        tm_mpi_type_envelope("MPI_Type_get_envelope", datatype, false, num_integers ? &ni : NULL,
                             num_addresses ? &na : NULL, &nc, num_datatypes ? &nd : NULL, combiner);

    if (err == MPI_SUCCESS) {
        *num_integers = (int)ni;
        *num_addresses = (int)na;
        *num_datatypes = (int)nd;
    }
    return err;
}
#pragma weak MPI_Type_get_envelope = PMPI_Type_get_envelope

int PMPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count *num_integers,
                             MPI_Count *num_addresses, MPI_Count *num_large_counts,
                             MPI_Count *num_datatypes, int *combiner)
{
    return tm_mpi_type_envelope("MPI_Type_get_envelope_c", datatype, true, num_integers,
                                num_addresses, num_large_counts, num_datatypes, combiner);
}
#pragma weak MPI_Type_get_envelope_c = PMPI_Type_get_envelope_c

/* The derived types returned are new handles of the same objects: the caller frees them. */
static int tm_mpi_type_contents(const char *call, MPI_Datatype datatype, bool large,
                                MPI_Count max_integers, MPI_Count max_addresses,
                                MPI_Count max_large_counts, MPI_Count max_datatypes,
                                int array_of_integers[], MPI_Aint array_of_addresses[],
                                MPI_Count array_of_large_counts[],
                                MPI_Datatype array_of_datatypes[])
{
    TM_MPI_RANK(r, call);
    tm_mpi_type_t *t;
    int err = tm_mpi_type_get(r, NULL, datatype, 0, call, &t);

    if (err != MPI_SUCCESS || (!large && (err = tm_mpi_type_check_plain(r, call, t))))
        return err;
    if (t->combiner == MPI_COMBINER_NAMED)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG,
                                  "%s is predefined (MPI_COMBINER_NAMED): it has no contents",
                                  t->name);
    if (max_integers < t->ni || max_addresses < t->na || max_large_counts < (MPI_Count)t->nc ||
        max_datatypes < t->nd)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG,
                                  "room for %lld integers, %lld addresses, %lld large counts, %lld "
                                  "datatypes; the datatype has %d, %d, %zu, %d",
                                  max_integers, max_addresses, max_large_counts, max_datatypes,
                                  t->ni, t->na, t->nc, t->nd);
    if ((t->ni && array_of_integers == NULL) || (t->na && array_of_addresses == NULL) ||
        (t->nc && array_of_large_counts == NULL) || (t->nd && array_of_datatypes == NULL))
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "an output array is NULL");
    if (t->ni)
        memcpy(array_of_integers, t->ints, t->ni * sizeof(int));
    if (t->na)
        memcpy(array_of_addresses, t->aints, t->na * sizeof(MPI_Aint));
    if (t->nc)
        memcpy(array_of_large_counts, t->counts, t->nc * sizeof(MPI_Count));
    for (int i = 0; i < t->nd; i++) {
        tm_mpi_type_t *c = t->types[i];

        if (c->predefined) {
            array_of_datatypes[i] = c->handle;
            continue;
        }
        tm_mpi_type_retain(c);
        if (tm_mpi_type_publish(c, &array_of_datatypes[i]) != 0) {
            tm_mpi_type_release(c);
            while (i-- > 0)
                if (!t->types[i]->predefined)
                    tm_mpi_type_unpublish(array_of_datatypes[i]);
            return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_OTHER, "out of memory");
        }
    }
    return MPI_SUCCESS;
}

int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                           int max_datatypes, int array_of_integers[],
                           MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[])
{
    return tm_mpi_type_contents("MPI_Type_get_contents", datatype, false, max_integers,
                                max_addresses, 0, max_datatypes, array_of_integers,
                                array_of_addresses, NULL, array_of_datatypes);
}
#pragma weak MPI_Type_get_contents = PMPI_Type_get_contents

int PMPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
                             MPI_Count max_large_counts, MPI_Count max_datatypes,
                             int array_of_integers[], MPI_Aint array_of_addresses[],
                             MPI_Count array_of_large_counts[], MPI_Datatype array_of_datatypes[])
{
    return tm_mpi_type_contents("MPI_Type_get_contents_c", datatype, true, max_integers,
                                max_addresses, max_large_counts, max_datatypes, array_of_integers,
                                array_of_addresses, array_of_large_counts, array_of_datatypes);
}
#pragma weak MPI_Type_get_contents_c = PMPI_Type_get_contents_c

int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
    TM_MPI_TYPE_QUERY_BEGIN("MPI_Type_get_name");
    TM_MPI_TYPE_CHECK_OUT(type_name);
    TM_MPI_TYPE_CHECK_OUT(resultlen);
    const char *name = t->name;
    if (t->predefined && r->type_names && r->type_names[(unsigned)datatype & 0xff])
        name = r->type_names[(unsigned)datatype & 0xff];
    *resultlen = (int)strlen(name);
    memcpy(type_name, name, (size_t)*resultlen + 1);
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_get_name = PMPI_Type_get_name

/* Names a derived type's object: every handle of it (see MPI_Type_get_contents) shows the name.
 * A predefined type's name is the calling rank's own (as a process's in other MPIs), kept
 * beside the shared type; the library's messages keep the standard names. */
int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name)
{
    size_t len;

    TM_MPI_TYPE_QUERY_BEGIN("MPI_Type_set_name");
    TM_MPI_TYPE_CHECK_OUT(type_name);
    len = strnlen(type_name, MPI_MAX_OBJECT_NAME);
    if (len >= MPI_MAX_OBJECT_NAME)
        len = MPI_MAX_OBJECT_NAME - 1;
    if (t->predefined) {
        unsigned index = (unsigned)datatype & 0xff;
        char *name = malloc(len + 1);
        if (!r->type_names)
            r->type_names = calloc(TM_MPI_TYPE_NBUILTIN, sizeof *r->type_names);
        if (!name || !r->type_names) {
            free(name);
            return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_NO_MEM, "out of memory");
        }
        memcpy(name, type_name, len);
        name[len] = '\0';
        free(r->type_names[index]);
        r->type_names[index] = name;
        return MPI_SUCCESS;
    }
    memcpy(t->name, type_name, len);
    t->name[len] = '\0';
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_set_name = PMPI_Type_set_name

int PMPI_Get_address(const void *location, MPI_Aint *address)
{
    static const char call[] = "MPI_Get_address";
    TM_MPI_RANK(r, call);

    TM_MPI_TYPE_CHECK_OUT(address);
    *address = (MPI_Aint)(intptr_t)location;
    return MPI_SUCCESS;
}
#pragma weak MPI_Get_address = PMPI_Get_address

/* MPI-1's MPI_Get_address, which MPI-3.0 removed and MPICH still provides. */
int PMPI_Address(void *location, MPI_Aint *address)
{
    static const char call[] = "MPI_Address";
    TM_MPI_RANK(r, call);

    TM_MPI_TYPE_CHECK_OUT(address);
    *address = (MPI_Aint)(intptr_t)location;
    return MPI_SUCCESS;
}
#pragma weak MPI_Address = PMPI_Address

/* Addresses are plain integers on the flat address spaces ThreadMPI runs on. Unsigned
 * arithmetic: wrapping, as address arithmetic does, rather than signed overflow. */
MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp)
{
    return (MPI_Aint)((unsigned long)base + (unsigned long)disp);
}
#pragma weak MPI_Aint_add = PMPI_Aint_add

MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
    return (MPI_Aint)((unsigned long)addr1 - (unsigned long)addr2);
}
#pragma weak MPI_Aint_diff = PMPI_Aint_diff

int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
    static const char call[] = "MPI_Type_match_size";
    TM_MPI_RANK(r, call);
    static const MPI_Datatype reals[] = {MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE};
    static const MPI_Datatype integers[] = {MPI_SIGNED_CHAR, MPI_SHORT, MPI_INT, MPI_LONG,
                                            MPI_LONG_LONG};
    static const MPI_Datatype complexes[] = {MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX,
                                             MPI_C_LONG_DOUBLE_COMPLEX};
    const MPI_Datatype *list;
    size_t n;

    TM_MPI_TYPE_CHECK_OUT(datatype);
    switch (typeclass) {
    case MPI_TYPECLASS_REAL:
        list = reals;
        n = sizeof(reals) / sizeof(reals[0]);
        break;
    case MPI_TYPECLASS_INTEGER:
        list = integers;
        n = sizeof(integers) / sizeof(integers[0]);
        break;
    case MPI_TYPECLASS_COMPLEX:
        list = complexes;
        n = sizeof(complexes) / sizeof(complexes[0]);
        break;
    default:
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "invalid typeclass %d",
                                  typeclass);
    }
    for (size_t i = 0; i < n; i++)
        if ((int)TM_MPI_DATATYPE_BUILTIN_SIZE(list[i]) == size) {
            *datatype = list[i];
            return MPI_SUCCESS;
        }
    return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG,
                              "no predefined type of typeclass %d has %d bytes", typeclass, size);
}
#pragma weak MPI_Type_match_size = PMPI_Type_match_size
