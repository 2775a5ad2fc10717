#!/bin/sh
# mpcrun --hosts, --hostfile and --rsh, with a stand-in for ssh that gives the remote side what
# sshd would (rsh_local.sh): the job runs through the host's agent with mpcrun's arguments,
# directory and environment intact, its output and standard input go through mpcrun, its exit
# status and a signal's end are mpcrun's, a signal to mpcrun ends it; ranks are numbered host by
# host (--dry-run across hosts); the job's process wires up through the agent's PMIx server; and
# what cannot run is refused before anything starts.
# hosts_netns.sh runs the job in another network namespace.
. "$TM_SRCDIR/tests/mpi/lib.sh"
prog=$(tm_build hosts_probe.c)
stdin_prog=$(tm_build stdin_read.c)
rsh="sh $TM_SRCDIR/tests/mpi/rsh_local.sh"
# The hosts share this machine's network namespace: UCX talks over the loopback interface only,
# since tests that run beside this one add and remove interfaces (hosts_netns.sh, bench_hosts.sh),
# and a job whose connections ran over one of them lost its messages when it went away.
UCX_NET_DEVICES=lo
export UCX_NET_DEVICES
odd='a b'"'"'c"d$e'
cd "$work" || fail "cd"

TM_PROBE="x  y*" "$MPCRUN" --hosts nodeA --rsh "$rsh" -n 3 --timeout 120 "$prog" "$odd" 7 \
    > "$out" 2> "$err" < /dev/null
status=$?
expect_status 7 "one host, status 7"
[ "$(grep -c '^rank [0-2] of 3 ' "$out")" -eq 3 ] || fail "three ranks of 3: $(cat "$out")"
[ "$(sed 's/.* pid \([0-9]*\) .*/\1/' "$out" | sort -u | wc -l)" -eq 1 ] ||
    fail "the ranks are not threads of one process: $(cat "$out")"
grep -qF "cwd $work arg [$odd] env [x  y*]" "$out" ||
    fail "directory, argument or environment not intact: $(cat "$out")"

printf 'first line\nsecond\n' | "$MPCRUN" --hosts nodeA --rsh "$rsh" -n 3 --timeout 120 \
    "$stdin_prog" > "$out" 2> "$err"
status=$?
expect_status 0 "standard input through the host's agent"

# The job's process wires up through the host agent's PMIx server, its fence through mpcrun.
pmix_prog=$(tm_build hosts_pmix.c $(pkg-config --cflags --libs pmix)) || fail "hosts_pmix.c"
"$MPCRUN" --hosts nodeA --rsh "$rsh" -n 2 --timeout 120 "$pmix_prog" > "$out" 2> "$err" \
    < /dev/null
status=$?
expect_status 0 "PMIx through the host's agent"
[ "$(cat "$out")" = "pmix: process 0 of 1, key of 0: from process 0" ] ||
    fail "PMIx through the host's agent: $(cat "$out")"

# Where the ranks would run: 0-2 on a, 3-4 on b; with slots, in order up to them.
"$MPCRUN" --hosts a,b --rsh "$rsh" -n 5 --dry-run "$prog" > "$out" 2> "$err" < /dev/null
status=$?
expect_status 0 "--dry-run on two hosts"
[ "$(grep '^rank ' "$out" | sed 's/: host \([a-z]*\),.*/ \1/' | tr '\n' ' ')" = \
    "rank 0 a rank 1 a rank 2 a rank 3 b rank 4 b " ] || fail "ranks by host: $(cat "$out")"
# Thousands of ranks: the second host's first rank has four digits.
"$MPCRUN" --hosts a,b --rsh "$rsh" -n 2400 --dry-run "$prog" > "$out" 2> "$err" < /dev/null
status=$?
expect_status 0 "--dry-run of 2400 ranks on two hosts"
expect_out "^dry run on host b: ranks 1200 to 2399 of 2400" "the second host's ranks"
expect_out "^rank 1200: host b, core" "rank 1200 on b"
printf '# two hosts\nb slots=1\n\n a:3 # the second\n' > hostfile
"$MPCRUN" --hostfile hostfile --rsh "$rsh" --dry-run "$prog" > "$out" 2> "$err" < /dev/null
status=$?
expect_status 0 "--dry-run with a hostfile"
[ "$(grep '^rank ' "$out" | sed 's/: host \([a-z]*\),.*/ \1/' | tr '\n' ' ')" = \
    "rank 0 b rank 1 a rank 2 a rank 3 a " ] || fail "ranks by slots: $(cat "$out")"

# Refused before anything starts (status 2), or failing to start (status 1), with the reason.
refused() {
    expect="$1"
    shift
    "$MPCRUN" "$@" > "$out" 2> "$err" < /dev/null
    status=$?
    expect_status 2 "$*"
    expect_err "$expect" "$*"
}
refused "do not fit in the hosts' 4 slots" --hostfile hostfile -n 5 "$prog"
refused "give them for every host" --hosts a:2,b -n 3 "$prog"
refused "listed twice" --hosts a,b,a -n 3 "$prog"
refused "is not a host name" --hosts "a b" -n 3 "$prog"
refused "-n is needed" --hosts a,b "$prog"
refused "needs --hosts" --rsh "$rsh" -n 2 "$prog"
# The job's process itself, given a part of a larger job as the agent would give it.
part() {
    expect="$1"
    shift
    env "$@" THREADMPI_MPCRUN_NP=2 "$prog" > "$out" 2> "$err" < /dev/null
    status=$?
    expect_status 2 "$*"
    expect_err "$expect" "$*"
}
part "go past the job's last rank" THREADMPI_MPCRUN_FIRST_RANK=4 THREADMPI_MPCRUN_WORLD=5
part "is not a range of ranks" THREADMPI_MPCRUN_FIRST_RANK=x THREADMPI_MPCRUN_WORLD=5
# Without a process manager, a part of a larger job cannot find the others: MPI_Init says so.
THREADMPI_MPCRUN_FIRST_RANK=2 THREADMPI_MPCRUN_WORLD=5 THREADMPI_MPCRUN_NP=2 "$prog" \
    > "$out" 2> "$err" < /dev/null
status=$?
expect_status 1 "a part of a larger job alone"
expect_err "MPI_Init \(rank [23]\): cannot reach the job's other hosts" "a part alone"

# Two hosts: ranks 0-1 in one process, 2-4 in another, each a part of the same world.
"$MPCRUN" --hosts a:2,b:3 --rsh "$rsh" -n 5 --timeout 120 "$prog" probe 6 > "$out" 2> "$err" \
    < /dev/null
status=$?
expect_status 6 "two hosts, status 6"
[ "$(grep -c '^rank [0-4] of 5 ' "$out")" -eq 5 ] || fail "five ranks of 5: $(cat "$out")"
pid_of() { sed -n "s/^rank $1 of 5 pid \([0-9]*\) .*/\1/p" "$out"; }
[ "$(pid_of 0)" = "$(pid_of 1)" ] && [ "$(pid_of 2)" = "$(pid_of 4)" ] &&
    [ "$(pid_of 1)" != "$(pid_of 2)" ] || fail "a process per host: $(cat "$out")"

# A host whose ranks ended with a status does not cut short the others, whose ranks print
# after it (their output would be lost).
"$MPCRUN" --hosts a:2,b:3 --rsh "$rsh" -n 5 --timeout 120 "$prog" late 6 > "$out" 2> "$err" \
    < /dev/null
status=$?
expect_status 6 "two hosts ending apart, status 6"
[ "$(grep -c '^rank [0-4] of 5 ' "$out")" -eq 5 ] || fail "five ranks of 5, late: $(cat "$out")"

# A rank that dies on one host ends the job on every host, named.
crash=$(tm_build crash.c)
"$MPCRUN" --hosts a,b --rsh "$rsh" -n 4 --timeout 120 "$crash" segv 3 > "$out" 2> "$err" \
    < /dev/null
status=$?
expect_status 139 "SIGSEGV in rank 3 on host b"
expect_err "^rank 3: Segmentation fault" "SIGSEGV report across hosts"

# A job that hangs across hosts: each host says where its ranks wait and what its network moved
# (what one host sent and the other never delivered would show there).
hang=$(tm_build hang.c)
"$MPCRUN" --hosts a,b --rsh "$rsh" -n 2 --timeout 10 "$hang" > "$out" 2> "$err" < /dev/null
status=$?
expect_status 124 "a hang across hosts"
expect_err "^rank [01]: MPI_(Recv|Wait)\(" "where a rank waits, across hosts"
expect_err "^threadmpi: host process [01]: messages sent to process [01]: [0-9]+, delivered from \
it: [0-9]+$" "the network's report of a hang"

printf 'a slots=two\n' > bad
refused "bad:1: \"slots=two\" is not slots=N" --hostfile bad "$prog"
"$MPCRUN" --hosts a --rsh false -n 2 "$prog" > "$out" 2> "$err" < /dev/null
status=$?
expect_status 1 "--rsh false"
expect_err "host a: the --rsh command \(false\) ended with status 1 before" "--rsh false"

# A signal to mpcrun ends the job on the host, and mpcrun by the same signal.
"$MPCRUN" --hosts a --rsh "$rsh" -n 2 --timeout 120 "$prog" sleep "$work/pid" \
    > "$out" 2> "$err" < /dev/null &
mpcrun=$!
tm_until 600 test -s "$work/pid" || fail "the job did not start: $(cat "$err")"
pid=$(cat "$work/pid")
kill -TERM "$mpcrun"
wait "$mpcrun"
status=$?
expect_status 143 "SIGTERM to mpcrun"
tm_until 100 tm_gone "$pid" || fail "the job outlived mpcrun"
# The host's agent killed outright: the job ends with it, mpcrun says so.
rm -f "$work/pid"
"$MPCRUN" --hosts a --rsh "$rsh" -n 2 --timeout 120 "$prog" sleep "$work/pid" \
    > "$out" 2> "$err" < /dev/null &
mpcrun=$!
tm_until 600 test -s "$work/pid" || fail "the job did not start: $(cat "$err")"
pid=$(cat "$work/pid")
agent=$(sed 's/.*) [A-Za-z] \([0-9]*\) .*/\1/' "/proc/$pid/stat") # its parent
grep -q tm-agent "/proc/$agent/cmdline" || fail "the job's parent ($agent) is not the agent"
kill -KILL "$agent"
wait "$mpcrun"
status=$?
expect_status 1 "the agent killed"
expect_err "host a: the connection to its agent was lost" "the agent killed"
tm_until 100 tm_gone "$pid" || fail "the job outlived its agent"
cd / || fail "cd"
expect_no_temp_files "hosts"
echo "hosts: ok"
