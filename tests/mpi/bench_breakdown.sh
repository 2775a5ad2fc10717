#!/bin/sh
# bench/breakdown.c builds, runs on 2 ranks and prints, for the injection overhead and the
# latency, each part, the model (their sum) against what it observed with the error, and the
# what-if lines. Not the size of the error: a busy machine may make any figure noisy.
. "$TM_SRCDIR/tests/mpi/lib.sh"
[ "$(nproc)" -ge 2 ] || { echo "breakdown: needs 2 cores, skipped"; exit 77; }
exe="$work/breakdown"
"$MPICC" -O2 -I"$TM_SRCDIR" -o "$exe" "$TM_SRCDIR/bench/breakdown.c" >&2 || fail "mpicc breakdown.c"
tm_run 2 "$exe"
expect_status 0 "breakdown"
for re in '^breakdown of an 8-byte message between 2 ranks; timer .* GHz' \
    '^injection overhead' '^  post +MPI_Isend +[0-9.]+ ns +[0-9.]+%$' \
    '^  progress +MPI_Waitall' '^  misc ' '^  rate +observed +[0-9.]+ Mmsg/s$' \
    '^latency' '^  post +MPI_Send, the receiver not polling +[0-9.]+ ns' '^  transfer ' '^  rx progress ' \
    '^  \(a line\) ' '^what if' '^  injection: +post +[0-9.]+x +progress +[0-9.]+x +misc' \
    '^  latency: +post +[0-9.]+x +transfer +[0-9.]+x +rx progress +[0-9.]+x$' \
    '^  the next optimisation: '; do
    expect_out "$re" "breakdown output"
done
[ "$(grep -Ec '^  error +\(model - observed\) / observed +[-+][0-9.]+ %' "$out")" -eq 2 ] ||
    fail "breakdown: two error lines: $(cat "$out")"
# Each model is the sum of the parts printed above it (to the printed rounding).
awk '
/^(injection|latency)/ { sum = 0; parts = 1; next }
parts && /^  (post|progress|misc|transfer|rx progress) / { sum += $(NF - 2); next }
/^  model / { parts = 0; d = $(NF - 1) - sum; if (d > 0.3 || d < -0.3) { print; bad = 1 } }
END { exit bad }' "$out" || fail "breakdown: a model is not the sum of its parts: $(cat "$out")"
expect_no_temp_files "breakdown"
echo "breakdown: ok"
