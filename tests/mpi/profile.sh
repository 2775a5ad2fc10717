#!/bin/sh
# mpcrun --profile ([profile] mode): the table on stderr at the end of the job and the CSV file
# of --profile=csv:FILE hold the kinds of calls the program made (tests/mpi/profile.c) with their
# exact counts, and components that add up to each total; off by default; bad values and a file
# that cannot be written stop the job before it runs.
. "$TM_SRCDIR/tests/mpi/lib.sh"
prog=$(tm_build profile.c)
n=4

# kind count-per-rank, as profile.c makes them
expected='MPI_Send 11
MPI_Recv 12
MPI_Probe 1
MPI_Isend 6
MPI_Irecv 5
MPI_Waitall 1
MPI_Test 1
MPI_Barrier 3
MPI_Allreduce 2
MPI_Ibcast 1
MPI_Wait 1
MPI_Finalize 1'

# Off by default: no table.
tm_run $n "$prog"
expect_status 0 "without --profile"
! grep -q "threadmpi profile" "$err" || fail "a profile without --profile: $(cat "$err")"

# The table.
tm_run $n --profile "$prog"
expect_status 0 "--profile"
expect_err "^threadmpi profile: $n ranks, [0-9.]+ [mun]?s in profiled calls" "--profile header"
expect_err "^timer: .* GHz, [0-9.]+ ns a read, subtracted from each interval" "--profile timer"
expect_err "^call +count +total +mean +share \| +post +progress +copy +engine +sched$" \
    "--profile column heads"
echo "$expected" | while read -r kind per_rank; do
    want=$((per_rank * n))
    line=$(grep "^$kind " "$err") || fail "--profile: no line for $kind: $(cat "$err")"
    got=$(echo "$line" | awk '{print $2}')
    [ "$got" = "$want" ] || fail "--profile: $kind counted $got times, expected $want: $line"
done || exit 1
# Only the kinds the program used (and the passes of the progress threads, if they ran).
kinds=$(sed -n '/^call /,/^component /p' "$err" | sed '1d;$d' | awk '{print $1}' |
    grep -v '^(progress$' | sort)
want_kinds=$(echo "$expected" | awk '{print $1}' | sort)
[ "$kinds" = "$want_kinds" ] || fail "--profile lists other kinds: $kinds"
for comp in post progress copy engine sched; do
    expect_err "^$comp +[0-9.]+ [mun]?s +[0-9.]+%$" "--profile whole-job line of $comp"
done

# The same through the environment.
tm_run_env THREADMPI_PROFILE_MODE=table $n "$prog"
expect_status 0 "THREADMPI_PROFILE_MODE=table"
expect_err "^MPI_Allreduce +8 " "THREADMPI_PROFILE_MODE=table"

# CSV: per rank, then the job; the table is not printed.
csv="$work/profile.csv"
tm_run $n --profile=csv:"$csv" "$prog"
expect_status 0 "--profile=csv:FILE"
! grep -q "threadmpi profile" "$err" || fail "--profile=csv: a table on stderr: $(cat "$err")"
[ -s "$csv" ] || fail "--profile=csv: no file"
head -n 1 "$csv" | grep -qx \
    'rank,call,count,total_ns,mean_ns,share,post_ns,progress_ns,copy_ns,engine_ns,sched_ns' ||
    fail "--profile=csv: header: $(head -n 1 "$csv")"
echo "$expected" | while read -r kind per_rank; do
    for r in 0 1 2 3; do
        grep -q "^$r,$kind,$per_rank," "$csv" || fail "--profile=csv: rank $r, $kind: $(cat "$csv")"
    done
    grep -q "^all,$kind,$((per_rank * n))," "$csv" || fail "--profile=csv: all, $kind"
done || exit 1
# Every line: 11 fields, the components add up to the total (to rounding), the shares of each
# scope's kinds add up to 1, and the job's time is not zero.
awk -F, 'NR > 1 {
    if (NF != 11) { print "fields: " $0; bad = 1 }
    sum = $7 + $8 + $9 + $10 + $11
    if (sum - $4 > 5 || $4 - sum > 5) { print "components: " $0; bad = 1 }
    if ($2 != "all") share[$1] += $6
    if ($1 == "all" && $2 == "all" && $4 <= 0) { print "no time: " $0; bad = 1 }
}
END {
    for (s in share) if (share[s] < 0.99 || share[s] > 1.01) { print "shares of " s; bad = 1 }
    exit bad
}' "$csv" || fail "--profile=csv: inconsistent rows: $(cat "$csv")"
[ "$(grep -c ',all,' "$csv")" -eq $((n + 1)) ] || fail "--profile=csv: one all line per scope"

# Errors before any rank starts.
tm_run $n --profile=sometimes "$prog"
expect_status 2 "--profile=sometimes"
expect_err 'profile.mode: "sometimes" is not one of off, table, csv:FILE' "--profile=sometimes"
[ ! -s "$out" ] || fail "no rank may start after a settings error"
tm_run $n --profile=csv:"$work/no/such/dir/p.csv" "$prog"
expect_status 2 "--profile=csv: in a missing directory"
expect_err "profile.mode csv:$work/no/such/dir/p.csv: cannot write the file" "unwritable csv"
expect_no_temp_files "profile"
echo "profile: ok"
