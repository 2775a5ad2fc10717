#!/bin/sh
# mpcrun --split-model CORES: prints the split-tree model's table (one line per rank count N from 2
# to CORES-1, in a block for bcast/reduce/allreduce and one for scatter/gather) and runs nothing;
# the choices of S on 64 cores are those of the Euro-Par 2018 paper; a bad CORES is a usage error.
. "$TM_SRCDIR/tests/mpi/lib.sh"

"$MPCRUN" --split-model 64 > "$out" 2> "$err" < /dev/null
status=$?
expect_status 0 "--split-model 64"
[ ! -s "$err" ] || fail "--split-model 64 wrote to stderr: $(cat "$err")"

# Split the table at its two block headers; everything else starting with '#' is a comment.
awk -v dir="$work" '
    $0 == "# bcast, reduce, allreduce" { file = dir "/constant"; next }
    $0 == "# scatter, gather" { file = dir "/doubling"; next }
    /^#/ { next }
    { if (file == "") { print "line before any block: " $0 > "/dev/stderr"; exit 1 }
      print > file }' "$out" || fail "table layout: $(head -5 "$out")"

for block in constant doubling; do
    [ -f "$work/$block" ] || fail "no $block block: $(head -5 "$out")"
    lines=$(wc -l < "$work/$block")
    [ "$lines" -eq 62 ] || fail "$block block: $lines lines, expected 62 (N = 2..63)"
    # N runs from 2 to 63 in order, with P = 64 - N.
    awk '{ n = NR + 1; if ($1 != "N=" n || $2 != "P=" (64 - n)) { print; exit 1 } }' \
        "$work/$block" > "$work/bad" || fail "$block block: unexpected line $(cat "$work/bad")"
done

# Section 4 of the paper: S=1 for 57 ranks, S=2 for 60, S=3 for 62; S=0 for 51.
for expected in "N=51 P=13 S=0 " "N=57 P=7 S=1 " "N=60 P=4 S=2 " "N=62 P=2 S=3 "; do
    grep -q "^$expected" "$work/constant" ||
        fail "constant block lacks '$expected': $(grep "^${expected%% *} " "$work/constant")"
done
# The line for N=57 carries T(S=0) .. T(S=6), H(57) = 6.
grep "^N=57 " "$work/constant" | grep -q " T(S=0)=10.00 T(S=1)=7.74 .* T(S=6)=12.74$" ||
    fail "N=57: $(grep "^N=57 " "$work/constant")"

# A bad number of cores: usage error, status 2.
usage_error() { # DESCRIPTION ARGS...
    what=$1
    shift
    "$MPCRUN" "$@" > "$out" 2> "$err" < /dev/null
    status=$?
    expect_status 2 "$what"
    expect_err "Usage: mpcrun" "$what"
    [ ! -s "$out" ] || fail "$what: wrote to stdout: $(head -3 "$out")"
}
usage_error "--split-model 2" --split-model 2
usage_error "--split-model abc" --split-model abc
usage_error "--split-model 64x" --split-model 64x
usage_error "--split-model 65537" --split-model 65537
usage_error "--split-model without a value" --split-model

# The smallest machine: 3 cores, one line per block (N=2, P=1).
"$MPCRUN" --split-model 3 > "$out" 2> "$err" < /dev/null || fail "--split-model 3"
[ "$(grep -c '^N=' "$out")" -eq 2 ] || fail "--split-model 3: $(cat "$out")"

expect_no_temp_files "--split-model"
echo "mpcrun --split-model: ok"
