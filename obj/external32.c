/*
 * The external32 representation (MPI 3.1 section 13.5.2): big-endian, IEEE 754 floating point
 * (long double as binary128), with the sizes of table 13.2 — notably 4 bytes for long and
 * unsigned long, which ThreadMPI's LP64 ABIs hold in 8 (converted by truncation and sign or zero
 * extension).
 */
#include "config.h"

#include <float.h>
#include <string.h>

#include "obj/datatype.h"

/* external32 bytes of one basic element of index `basic` (0: not convertible, as MPI_LB). */
static size_t tm_mpi_ext32_basic_size(unsigned basic)
{
    switch (TM_MPI_HANDLE(TM_MPI_KIND_DATATYPE, tm_mpi_type_basic_size(basic) << 8 | basic)) {
    case MPI_LONG:
    case MPI_UNSIGNED_LONG:
        return 4;
    case MPI_LONG_DOUBLE:
        return 16;
    case MPI_C_LONG_DOUBLE_COMPLEX:
    case MPI_CXX_LONG_DOUBLE_COMPLEX:
        return 32;
    default:
        return tm_mpi_type_basic_size(basic);
    }
}

size_t tm_mpi_type_external32_size(const tm_mpi_type_t *type)
{
    size_t size = 0;

    for (size_t s = 0; s < type->nsegs; s++)
        size += type->segs[s].n * tm_mpi_ext32_basic_size(type->segs[s].basic);
    return size * type->periods;
}

/* Copies n bytes reversing them on a little-endian host. */
static void tm_mpi_ext32_swap(char *dst, const char *src, size_t n)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    for (size_t i = 0; i < n; i++)
        dst[i] = src[n - 1 - i];
#else
    memcpy(dst, src, n);
#endif
}

static void tm_mpi_ext32_put64(char *dst, unsigned long long v)
{
    for (int i = 7; i >= 0; i--, v >>= 8)
        dst[i] = (char)(v & 0xff);
}

static unsigned long long tm_mpi_ext32_get64(const char *src)
{
    unsigned long long v = 0;

    for (int i = 0; i < 8; i++)
        v = v << 8 | (unsigned char)src[i];
    return v;
}

/* long double <-> big-endian binary128 */
static void tm_mpi_ext32_ldouble_out(char *dst, const char *src)
{
#if LDBL_MANT_DIG == 64 /* x87 80-bit extended: explicit integer bit, same exponent bias */
    unsigned long long mant, hi, lo;
    unsigned short se;

    memcpy(&mant, src, 8);
    memcpy(&se, src + 8, 2);
    mant &= ~(1ULL << 63);
    hi = (unsigned long long)se << 48 | mant >> 15;
    lo = (mant & 0x7fff) << 49;
    tm_mpi_ext32_put64(dst, hi);
    tm_mpi_ext32_put64(dst + 8, lo);
#elif LDBL_MANT_DIG == 113
    tm_mpi_ext32_swap(dst, src, 16);
#elif LDBL_MANT_DIG == 53
    tm_mpi_ext32_swap(dst, src, 8);
    memset(dst + 8, 0, 8); /* not exact: a port must convert double to binary128 here */
#else
#error "unknown long double format"
#endif
}

static void tm_mpi_ext32_ldouble_in(char *dst, const char *src)
{
#if LDBL_MANT_DIG == 64
    unsigned long long hi = tm_mpi_ext32_get64(src), lo = tm_mpi_ext32_get64(src + 8);
    unsigned short se = (unsigned short)(hi >> 48);
    unsigned long long mant = (hi & 0xffffffffffffULL) << 15 | lo >> 49;

    if ((se & 0x7fff) != 0)
        mant |= 1ULL << 63;
    memset(dst, 0, sizeof(long double));
    memcpy(dst, &mant, 8);
    memcpy(dst + 8, &se, 2);
#elif LDBL_MANT_DIG == 113
    tm_mpi_ext32_swap(dst, src, 16);
#else
    tm_mpi_ext32_swap(dst, src, 8);
#endif
}

/* One basic element, native -> external32 (out != 0) or back; returns the external bytes. */
static size_t tm_mpi_ext32_convert(unsigned basic, char *native, char *ext, int out)
{
    MPI_Datatype h =
        TM_MPI_HANDLE(TM_MPI_KIND_DATATYPE, tm_mpi_type_basic_size(basic) << 8 | basic);
    size_t size = tm_mpi_type_basic_size(basic);

    switch (h) {
    case MPI_LONG:
    case MPI_UNSIGNED_LONG:
        if (out) {
            unsigned long v;
            unsigned int w;

            memcpy(&v, native, sizeof(v));
            w = (unsigned int)v;
            tm_mpi_ext32_swap(ext, (const char *)&w, 4);
        } else {
            unsigned int w;
            unsigned long v;

            tm_mpi_ext32_swap((char *)&w, ext, 4);
            v = h == MPI_LONG ? (unsigned long)(long)(int)w : (unsigned long)w;
            memcpy(native, &v, sizeof(v));
        }
        return 4;
    case MPI_LONG_DOUBLE:
        if (out)
            tm_mpi_ext32_ldouble_out(ext, native);
        else
            tm_mpi_ext32_ldouble_in(native, ext);
        return 16;
    case MPI_C_LONG_DOUBLE_COMPLEX:
    case MPI_CXX_LONG_DOUBLE_COMPLEX:
        for (int i = 0; i < 2; i++)
            if (out)
                tm_mpi_ext32_ldouble_out(ext + 16 * i, native + sizeof(long double) * i);
            else
                tm_mpi_ext32_ldouble_in(native + sizeof(long double) * i, ext + 16 * i);
        return 32;
    case MPI_C_FLOAT_COMPLEX:
    case MPI_C_DOUBLE_COMPLEX:
    case MPI_CXX_FLOAT_COMPLEX:
    case MPI_CXX_DOUBLE_COMPLEX:
        for (size_t i = 0; i < 2; i++)
            if (out)
                tm_mpi_ext32_swap(ext + i * size / 2, native + i * size / 2, size / 2);
            else
                tm_mpi_ext32_swap(native + i * size / 2, ext + i * size / 2, size / 2);
        return size;
    default:
        if (out)
            tm_mpi_ext32_swap(ext, native, size);
        else
            tm_mpi_ext32_swap(native, ext, size);
        return size;
    }
}

static void tm_mpi_ext32_walk(char *buf, size_t count, const tm_mpi_type_t *type, char *ext,
                              int out)
{
    for (tm_mpi_type_walk_t w = tm_mpi_type_walk_at(type, count, 0); w.left > 0;
         tm_mpi_type_walk_next(&w, type)) {
        char *elem = buf + w.disp; /* one period of an element */

        for (size_t s = 0; s < type->nsegs; s++) {
            const tm_mpi_type_seg_t *seg = &type->segs[s];
            size_t bs = tm_mpi_type_basic_size(seg->basic);

            for (size_t j = 0; j < seg->n; j++)
                ext += tm_mpi_ext32_convert(seg->basic, elem + seg->disp + j * bs, ext, out);
        }
    }
}

void tm_mpi_type_external32_pack(const void *buf, size_t count, const tm_mpi_type_t *type,
                                 void *out)
{
    tm_mpi_ext32_walk((char *)buf, count, type, out, 1);
}

void tm_mpi_type_external32_unpack(const void *in, void *buf, size_t count,
                                   const tm_mpi_type_t *type)
{
    tm_mpi_ext32_walk(buf, count, type, (char *)in, 0);
}
