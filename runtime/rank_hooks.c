/*
 * Linked into the program's shared object, so into each rank's private copy. The program is
 * linked with -Bsymbolic, so its calls to these names bind to these definitions rather than to
 * the C library's, in this copy only:
 * - exit(), _exit() and _Exit() end the rank, not the process; called by a thread the rank made,
 *   they end the job, and in a process the rank forked, that process (the runtime decides; see
 *   job.h);
 * - `stdin` is the copy's own: the runtime points rank 0's at the real standard input and the
 *   others' at an empty file, and the functions that read stdin implicitly read this one.
 *   Reading file descriptor 0 directly (read(0, ...)) is not covered: it is shared.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "runtime/job.h"

FILE *stdin;

/* The rank whose copy this is: set by the runtime when it loads the copy. */
int tm_rt_copy_rank = -1;

void exit(int status)
{
    tm_rt_program_exit(tm_rt_copy_rank, status, 0);
}

void _exit(int status)
{
    tm_rt_program_exit(tm_rt_copy_rank, status, 1);
}

void _Exit(int status)
{
    tm_rt_program_exit(tm_rt_copy_rank, status, 1);
}

int getchar(void)
{
    return getc(stdin);
}

int getchar_unlocked(void)
{
    return getc_unlocked(stdin);
}

/* glibc has two scanf behaviours under two symbols: "scanf" (GNU, where %as allocates) and
 * "__isoc99_scanf" (C99), to which stdio.h maps scanf in C99 and later. Define both, each reading
 * this copy's stdin through the matching vfscanf; asm labels name the symbols exactly. */
int hook_scanf_gnu(const char *format, ...) __asm__("scanf");
int hook_vscanf_gnu(const char *format, va_list ap) __asm__("vscanf");
int hook_scanf_c99(const char *format, ...) __asm__("__isoc99_scanf");
int hook_vscanf_c99(const char *format, va_list ap) __asm__("__isoc99_vscanf");
int libc_vfscanf_gnu(FILE *stream, const char *format, va_list ap) __asm__("vfscanf");
int libc_vfscanf_c99(FILE *stream, const char *format, va_list ap) __asm__("__isoc99_vfscanf");

int hook_vscanf_gnu(const char *format, va_list ap)
{
    return libc_vfscanf_gnu(stdin, format, ap);
}

int hook_scanf_gnu(const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    int n = libc_vfscanf_gnu(stdin, format, ap);
    va_end(ap);
    return n;
}

int hook_vscanf_c99(const char *format, va_list ap)
{
    return libc_vfscanf_c99(stdin, format, ap);
}

int hook_scanf_c99(const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    int n = libc_vfscanf_c99(stdin, format, ap);
    va_end(ap);
    return n;
}
