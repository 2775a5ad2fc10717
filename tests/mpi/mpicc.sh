#!/bin/sh
# mpicc: -show prints the commands, separate compilation and linking with libraries works,
# compile errors and missing symbols fail at build time.
. "$TM_SRCDIR/tests/mpi/lib.sh"
cd "$work" || exit 1

"$MPICC" -show > show.txt || fail "mpicc -show"
grep -q -- "-Bsymbolic" show.txt && grep -q objcopy show.txt || fail "mpicc -show: $(cat show.txt)"
"$MPICC" -show -c x.c > show.txt || fail "mpicc -show -c"
[ "$(wc -l < show.txt)" -eq 1 ] && grep -q -- "-c x.c" show.txt && grep -q -- "-fPIC" show.txt ||
    fail "mpicc -show -c x.c: $(cat show.txt)"
[ ! -e a.out ] || fail "mpicc -show must not build anything"

# mpicc -c a.c; mpicc -c b.c; mpicc a.o b.o -o app -lm
"$MPICC" -c "$TM_SRCDIR/tests/mpi/part_a.c" -o a.o || fail "mpicc -c part_a.c"
"$MPICC" -O2 -c "$TM_SRCDIR/tests/mpi/part_b.c" || fail "mpicc -c part_b.c"
[ -f part_b.o ] || fail "mpicc -c without -o writes part_b.o"
"$MPICC" a.o part_b.o -o app -lm || fail "mpicc a.o part_b.o -o app -lm"
tm_run 4 ./app
expect_status 0 "separately compiled program"
[ "$(grep -c ': ok$' "$out")" -eq 4 ] || fail "separately compiled: $(cat "$out")"

# Compile and link in one step, default output name a.out, run alone (singleton).
"$MPICC" "$TM_SRCDIR/examples/hello.c" || fail "mpicc hello.c"
./a.out > "$out" || fail "./a.out"
grep -q "Hello from rank 0 of 1" "$out" || fail "singleton: $(cat "$out")"

# Errors stay build errors.
printf 'int main(void) { return undefined_function(); }\n' > undef.c
"$MPICC" -o undef undef.c > /dev/null 2>&1 && fail "an undefined function must fail the link"
printf 'int f(void) { return 0; }\n' > nomain.c
"$MPICC" -o nomain nomain.c > /dev/null 2> nomain.err && fail "a program without main() must fail"
grep -q "no main() function" nomain.err || fail "no main(): $(cat nomain.err)"
printf 'int main(void) { return }\n' > bad.c
"$MPICC" -o bad bad.c > /dev/null 2>&1 && fail "a syntax error must fail"
[ ! -e bad ] || fail "no output after a failed build"
ls "$TMPDIR" | grep -q mpicc && fail "mpicc left temporary files"

expect_no_temp_files "mpicc"
echo "mpicc: ok"
