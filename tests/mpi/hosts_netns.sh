#!/bin/sh
# mpcrun --hosts where each host is a network namespace of this machine, reached through
# `ip netns exec` (rsh_local.sh with TM_RSH_NETNS=1), the namespaces and mpcrun's joined by a
# bridge: the job runs there, one process per host, and mpcrun relays its output and exit
# status over the network; the ranks of 2 and 3 hosts exchange messages, run collectives and
# split communicators through the network (UCX over TCP on each namespace's own interface,
# checked in UCX's log); a signal to mpcrun leaves no process in the namespace; --dry-run shows
# two namespaces' ranks. A SKIP, saying why, where the machine cannot: not root, or no
# namespaces.
. "$TM_SRCDIR/tests/mpi/lib.sh"
skip() {
    echo "SKIP: hosts_netns: $*"
    exit 77
}
[ "$(id -u)" -eq 0 ] || skip "network namespaces need root"
A=tmhostA B=tmhostB C=tmhostC BR=tmhbr
# What a run killed before its teardown left, which would read as namespaces not permitted.
for ns in $A $B $C; do ip netns del "$ns" 2> /dev/null; done
ip link del "$BR" 2> /dev/null
ip netns add "$A" 2> /dev/null || skip "this machine does not permit network namespaces"
teardown() {
    ip netns del "$A" 2> /dev/null
    ip netns del "$B" 2> /dev/null
    ip netns del "$C" 2> /dev/null
    ip link del "$BR" 2> /dev/null
    rm -rf "$work"
}
trap teardown EXIT
# A bridge in mpcrun's namespace; each namespace joins it by a veth pair, with its own address.
ip link add "$BR" type bridge && ip addr add 10.231.0.1/24 dev "$BR" && ip link set "$BR" up ||
    skip "this machine does not permit bridges"
i=1
for ns in $A $B $C; do
    [ "$ns" = "$A" ] || ip netns add "$ns" || fail "ip netns add $ns"
    ip link add "tmh${i}r" type veth peer name "tmh${i}n" &&
        ip link set "tmh${i}n" netns "$ns" && ip link set "tmh${i}r" master "$BR" &&
        ip link set "tmh${i}r" up &&
        ip -n "$ns" addr add "10.231.0.$((i + 1))/24" dev "tmh${i}n" &&
        ip -n "$ns" link set "tmh${i}n" up && ip -n "$ns" link set lo up ||
        fail "cannot join $ns to the bridge"
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

# Across 2 and 3 namespaces: each host's ranks are one process in its namespace.
netns_of() { ip netns exec "$1" stat -L -c %i /proc/self/ns/net; }
for hosts in "$A,$B" "$A,$B,$C"; do
    "$MPCRUN" --hosts "$hosts" --rsh "$rsh" -n 6 --timeout 120 "$prog" probe 0 > "$out" \
        2> "$err" < /dev/null
    status=$?
    expect_status 0 "probe on $hosts"
    [ "$(grep -c '^rank [0-5] of 6 ' "$out")" -eq 6 ] || fail "six ranks on $hosts: $(cat "$out")"
    for h in $(echo "$hosts" | tr , ' '); do
        n=$(grep -c " netns $(netns_of "$h") " "$out")
        [ "$n" -eq $((6 / $(echo "$hosts" | tr , '\n' | wc -l))) ] ||
            fail "$n ranks in $h's namespace: $(cat "$out")"
        [ "$(grep " netns $(netns_of "$h") " "$out" | sed 's/.* pid \([0-9]*\) .*/\1/' |
            sort -u | wc -l)" -eq 1 ] || fail "$h's ranks are not one process: $(cat "$out")"
    done
done
cross=$(tm_build hosts_cross.c)
for hosts in "$A,$B" "$A,$B,$C"; do
    UCX_LOG_LEVEL=info "$MPCRUN" --hosts "$hosts" --rsh "$rsh" -n 7 --timeout 120 "$cross" \
        > "$out" 2> "$err" < /dev/null
    status=$?
    expect_status 0 "messages and collectives across $hosts"
    [ "$(grep -c '^hosts_cross: rank [0-6] ok$' "$out")" -eq 7 ] ||
        fail "across $hosts: $(cat "$out")"
    # UCX's log (on stdout): each host's endpoints on its veth, never shared memory or lo.
    [ "$(grep -c 'ep_cfg\[[0-9]*\]: am(tcp/tmh[123]n)$' "$out")" -eq "$(echo "$hosts" |
        tr , '\n' | wc -l)" ] || fail "across $hosts, not over the veths: $(grep ep_cfg "$out")"
    if grep 'ep_cfg' "$out" | grep -q 'posix\|sysv\|cma\|/lo'; then
        fail "across $hosts, shared memory or lo: $(grep ep_cfg "$out")"
    fi
done

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
