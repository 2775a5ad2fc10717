#!/bin/sh
# The MPI test programs across hosts: every line of tests/mpi/testlist of 2 to 8 ranks runs with
# mpcrun --hosts on two hosts, and the first of each program of 3 ranks or more on three (under
# a sanitizer, the first line of each program, on two hosts only), each host's ranks a process
# of their own that reaches the others through the network (UCX over TCP: hosts of a job never
# share memory), with the stand-in for ssh (rsh_local.sh). The same answers as on one host:
# each program checks its own, and exits 0.
#
# Left out, each for a reason:
#   what does not work across hosts in this release, and says so (MPI_ERR_UNSUPPORTED_OPERATION,
#   tested below): windows and files on communicators across hosts, dynamic broadcasts and
#   deferred sends across hosts, MPI_Comm_idup and the duplication of intercommunicators;
#   programs that rely on one process: mpi_mem frees memory another rank allocated, p2p_grequest
#   completes another rank's generalized request, comm_create finds MPI_COMM_TYPE_SHARED congruent
#   with MPI_COMM_WORLD;
#   erroneous programs whose diagnosis compares the members' calls in the process's memory
#   (coll_mismatch, coll_truncate): across hosts a mismatch is not seen yet;
#   p2p_flood, whose memory check reads the process's size right after a barrier: the network
#   thread gives back the memory of what arrived when it next finds itself idle, not by then;
#   p2p_cancel, which counts on cancelling any send not received yet: across hosts, a send that
#   has left its host cannot be cancelled (MPI_Cancel fails, as MPI allows, and as Open MPI's
#   sends always do), and then completes only when received.
. "$TM_SRCDIR/tests/mpi/lib.sh"
rsh="sh $TM_SRCDIR/tests/mpi/rsh_local.sh"
# The hosts share this machine's network namespace: UCX talks over the loopback interface only,
# since tests that run beside this one add and remove interfaces (hosts_netns.sh, bench_hosts.sh),
# and a job whose connections ran over one of them lost its messages when it went away.
UCX_NET_DEVICES=lo
export UCX_NET_DEVICES
left_out=" task_dag bcast_dynamic bcast_dynamic_errors comm_idup intercomm mpi_mem "
left_out="$left_out p2p_grequest comm_create coll_mismatch coll_truncate p2p_flood "
left_out="$left_out p2p_cancel "
tsan=false sanitized=false
case ${TM_SANITIZE_FLAGS-} in *sanitize=thread*) tsan=true ;; esac
case ${TM_SANITIZE_FLAGS-} in *sanitize=*) sanitized=true ;; esac
max=8
# Under a sanitizer the hosts are not pinned (see the three hosts' runs below): it then sees the
# ranks poll the network as well as the network thread and the ranks that ship.
if $sanitized; then
    HWLOC_SYNTHETIC="core:2 pu:1"
    export HWLOC_SYNTHETIC
fi
done_names=" " three_names=" "

# run HOSTS NRANKS PROGRAM ARGS...
run() {
    hosts=$1 n=$2 prog=$3
    shift 3
    # shellcheck disable=SC2086 # the words of the hosts' list
    "$MPCRUN" --hosts "$hosts" --rsh "$rsh" -n "$n" --timeout 120 "$prog" "$@" > "$out" \
        2> "$err" < /dev/null
    status=$?
    [ "$status" -eq 0 ] ||
        fail "$(basename "$prog") $n ranks on $hosts: status $status: $(tail -30 "$err")"
    ran=$((ran + 1))
}

ran=0
while read -r name nranks args; do
    if [ "$name" = notsan ]; then
        $tsan && continue
        name=$nranks
        nranks=${args%% *}
        case $args in *' '*) args=${args#* } ;; *) args= ;; esac
    fi
    case $name in '' | '#'*) continue ;; esac
    case $left_out in *" $name "*) continue ;; esac
    case $name in rma_* | file_*) continue ;; esac
    [ "$nranks" -ge 2 ] && [ "$nranks" -le "$max" ] || continue
    if $sanitized; then
        case $done_names in *" $name "*) continue ;; esac
        done_names="$done_names$name "
    fi
    prog=$TM_BUILDDIR/tests/mpi/$name.x
    [ -x "$prog" ] || prog=$TM_BUILDDIR/examples/$name.x
    [ -x "$prog" ] || fail "no program $name"
    # shellcheck disable=SC2086 # args is a list of words
    run a,b "$nranks" "$prog" $args
    [ "$nranks" -lt 3 ] || $sanitized && continue
    case $three_names in *" $name "*) continue ;; esac
    three_names="$three_names$name "
    # Three hosts, not pinned (a synthetic topology of two cores each): their ranks poll the
    # network while they wait, which ranks pinned to the cores of another host do not.
    HWLOC_SYNTHETIC="core:2 pu:1"
    export HWLOC_SYNTHETIC
    # shellcheck disable=SC2086
    run a,b,c "$nranks" "$prog" $args
    unset HWLOC_SYNTHETIC
done < "$TM_SRCDIR/tests/mpi/testlist"
[ "$ran" -gt 40 ] || fail "only $ran jobs ran"

# What does not work across hosts yet says so, on every host's ranks.
unsupported() {
    prog=$TM_BUILDDIR/tests/mpi/$1.x what=$2
    "$MPCRUN" --hosts a,b --rsh "$rsh" -n 2 --timeout 120 "$prog" > "$out" 2> "$err" < /dev/null
    status=$?
    [ "$status" -ne 0 ] || fail "$1 across hosts succeeded"
    expect_err "$what \(rank [01]\): MPI_COMM_WORLD has members on other hosts, and this call does \
not work across hosts in this release \(MPI_ERR_UNSUPPORTED_OPERATION\)" "$1 across hosts"
}
unsupported rma_put_get MPI_Win_create
unsupported rma_shared MPI_Win_allocate_shared
unsupported bcast_dynamic MPIX_Ibcast_dynamic
"$MPCRUN" --hosts a,b --rsh "$rsh" -n 4 --timeout 120 "$TM_BUILDDIR/tests/mpi/file_basic.x" \
    > "$out" 2> "$err" < /dev/null
status=$?
expect_status 46 "MPI_File_open across hosts"
expect_err "MPI_File_open \(rank [0-3]\): MPI_COMM_WORLD has members on other hosts" \
    "MPI_File_open across hosts"
echo "hosts_programs: $ran jobs across 2 and 3 hosts"
