#!/bin/sh
# Each rank's own copies of C library functions (runtime/rank_*.c) do what the C library's do:
# the programs below, built with the C compiler and with mpicc, print the same. getopt_cases.c:
# the getopt family on a table of argument vectors (results, optind, optarg, optopt, messages,
# the permuted argv); static_cases.c: the functions with a static result.
. "$TM_SRCDIR/tests/mpi/lib.sh"
for name in getopt_cases static_cases; do
    "$TM_CC" -g -O1 -o "$work/${name}_libc" "$TM_SRCDIR/tests/mpi/$name.c" ||
        fail "the C compiler on $name.c"
    prog=$(tm_build $name.c)
    "$work/${name}_libc" > "$work/libc.out" 2>&1 || fail "$name with the C library"
    # (a sanitized build's leak checker would add its summary to the output)
    LSAN_OPTIONS="${LSAN_OPTIONS:-}:print_suppressions=0" "$prog" > "$work/rank.out" 2>&1 < /dev/null ||
        fail "$name with the rank's copies"
    [ "$(wc -l < "$work/libc.out")" -ge 20 ] || fail "$name: too little output: $(cat "$work/libc.out")"
    cmp -s "$work/libc.out" "$work/rank.out" ||
        fail "$name: the rank's copies differ from the C library: $(diff "$work/libc.out" "$work/rank.out" | head -20)"
done
expect_no_temp_files "libc_same"
echo "libc_same: ok"
