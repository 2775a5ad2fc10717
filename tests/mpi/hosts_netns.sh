#!/bin/sh
# mpcrun --hosts where the host is a network namespace of this machine, reached through
# `ip netns exec` (rsh_local.sh with TM_RSH_NETNS=1) and joined to mpcrun's namespace by a veth
# pair: the job runs there, in one process, and mpcrun relays its output and exit status over
# the network; a signal to mpcrun leaves no process in the namespace; --dry-run shows two
# namespaces' ranks. A SKIP, saying why, where the machine cannot: not root, or no namespaces.
. "$TM_SRCDIR/tests/mpi/lib.sh"
skip() {
    echo "SKIP: hosts_netns: $*"
    exit 77
}
[ "$(id -u)" -eq 0 ] || skip "network namespaces need root"
A=tmhostA B=tmhostB
ip netns add "$A" 2> /dev/null || skip "this machine does not permit network namespaces"
teardown() {
    ip netns del "$A" 2> /dev/null
    ip netns del "$B" 2> /dev/null
    rm -rf "$work"
}
trap teardown EXIT
# Each namespace: a veth pair to mpcrun's namespace, its own address, no default route.
i=1
for ns in $A $B; do
    [ "$ns" = "$A" ] || ip netns add "$ns" || fail "ip netns add $ns"
    ip link add "tmh${i}r" type veth peer name "tmh${i}n" &&
        ip link set "tmh${i}n" netns "$ns" &&
        ip addr add "10.231.$i.1/24" dev "tmh${i}r" && ip link set "tmh${i}r" up &&
        ip -n "$ns" addr add "10.231.$i.2/24" dev "tmh${i}n" &&
        ip -n "$ns" link set "tmh${i}n" up && ip -n "$ns" link set lo up ||
        fail "cannot join $ns to this namespace"
    i=$((i + 1))
done
prog=$(tm_build hosts_probe.c)
rsh="sh $TM_SRCDIR/tests/mpi/rsh_local.sh"
TM_RSH_NETNS=1
export TM_RSH_NETNS
here=$(stat -L -c %i /proc/self/ns/net)
there=$(ip netns exec "$A" stat -L -c %i /proc/self/ns/net)

"$MPCRUN" --hosts "$A" --rsh "$rsh" -n 3 --timeout 120 "$prog" probe 5 > "$out" 2> "$err" \
    < /dev/null
status=$?
expect_status 5 "a job in namespace $A"
[ "$(grep -c "^rank [0-2] of 3 pid [0-9]* netns $there " "$out")" -eq 3 ] ||
    fail "three ranks in $A's namespace ($there; mpcrun's: $here): $(cat "$out")"
[ "$(sed 's/.* pid \([0-9]*\) .*/\1/' "$out" | sort -u | wc -l)" -eq 1 ] ||
    fail "the ranks are not threads of one process: $(cat "$out")"

"$MPCRUN" --hosts "$A:2,$B:2" --rsh "$rsh" --dry-run "$prog" > "$out" 2> "$err" < /dev/null
status=$?
expect_status 0 "--dry-run on two namespaces"
expect_out "^dry run on host $A: ranks 0 to 1 of 4" "$A's part"
expect_out "^dry run on host $B: ranks 2 to 3 of 4" "$B's part"
expect_out "^rank 3: host $B, core [0-9]+ \(numa [0-9]+\)$" "rank 3 on $B"

"$MPCRUN" --hosts "$A" --rsh "$rsh" -n 2 --timeout 120 "$prog" sleep "$work/pid" \
    > "$out" 2> "$err" < /dev/null &
mpcrun=$!
tm_until 600 test -s "$work/pid" || fail "the job did not start: $(cat "$err")"
pid=$(cat "$work/pid")
[ "$(ip netns identify "$pid")" = "$A" ] || fail "the job is not in $A"
kill -TERM "$mpcrun"
wait "$mpcrun"
status=$?
expect_status 143 "SIGTERM to mpcrun"
no_process_in() { [ -z "$(ip netns pids "$1")" ]; }
tm_until 100 no_process_in "$A" || fail "processes left in $A: $(ip netns pids "$A")"
expect_no_temp_files "hosts_netns"
echo "hosts_netns: ok"
