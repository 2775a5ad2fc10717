/*
 * Finding the program that mpicc embeds in an executable.
 *
 * mpicc links the user's objects into a shared object and stores it, unloaded, in a section of
 * the final executable (TM_RT_PROGRAM_SECTION). mpcrun uses this to refuse executables that
 * were not built by our mpicc, and to count the mappings of each rank's copy (maps.h); the
 * launcher uses it to make each rank's private copy.
 */
#ifndef TM_RT_ELF_SECTION_H
#define TM_RT_ELF_SECTION_H

#include <stdint.h>

#define TM_RT_PROGRAM_SECTION ".threadmpi.program"

/* Looks up section `name` in the ELF file open on fd. On success stores its file offset and
 * size and returns 0; returns -ENOENT when the file is ELF but has no such section, -ENOEXEC
 * when it is not a 64-bit ELF file of this machine's byte order, or another negative errno. */
int tm_rt_elf_section_find(int fd, const char *name, uint64_t *offset_p, uint64_t *size_p);

/* The memory mappings that loading the ELF object stored at [base, base + size) of the file
 * open on fd makes: one per loadable segment, one more for a segment's zeroed memory past its
 * last page in the file, one more for the part made read-only after relocation. Negative
 * errno on failure (-ENOEXEC: not an ELF64 object). */
int tm_rt_elf_mappings(int fd, uint64_t base, uint64_t size);

#endif /* TM_RT_ELF_SECTION_H */
