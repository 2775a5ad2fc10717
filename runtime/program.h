/*
 * Privatization: one private copy of the user's program per rank.
 *
 * mpicc stores the program, linked as a position-independent shared object, in a section of
 * the executable. At start-up each rank gets its own file (glibc returns the same handle for
 * the same path or the same file, so copies need both) in a private temporary directory, and
 * dlopen() gives each copy its own data and bss: the program's globals and statics are per rank.
 * The files stay while the job runs so that debuggers and profilers can open them by path, and
 * are removed when it ends, however it ends (a watchdog process removes them after SIGKILL).
 */
#ifndef TM_RT_PROGRAM_H
#define TM_RT_PROGRAM_H

#include <stdint.h>
#include <stdio.h>

typedef int (*tm_rt_program_main_fn_t)(int argc, char **argv, char **envp);

typedef struct tm_rt_program {
    int exe_fd;            /* the running executable */
    uint64_t offset, size; /* of the embedded shared object in it */
    char *dir;             /* private temporary directory */
    char **paths;          /* one file per copy, all named up front (see remove_files) */
    int ncopies;
} tm_rt_program_t;

typedef struct tm_rt_program_copy {
    void *handle;
    tm_rt_program_main_fn_t main;
    FILE **stdin_p; /* the copy's own `stdin` (the rank hooks define it), or NULL */
} tm_rt_program_copy_t;

/* Finds the embedded program of the running executable and prepares `ncopies` copies' paths
 * in a new private directory under $TMPDIR (default /tmp). On error writes a message to err. */
int tm_rt_program_open(tm_rt_program_t *prog, int ncopies, char *err, size_t errlen);

/* Writes copy `index` to its file and loads it. */
int tm_rt_program_load(tm_rt_program_t *prog, int index, tm_rt_program_copy_t *copy, char *err,
                       size_t errlen);

/* Removes the copies' files and the directory. Async-signal-safe: used by fatal signal
 * handlers too. Idempotent. */
void tm_rt_program_remove_files(const tm_rt_program_t *prog);

/* Releases the memory of prog (after remove_files). */
void tm_rt_program_close(tm_rt_program_t *prog);

#endif /* TM_RT_PROGRAM_H */
