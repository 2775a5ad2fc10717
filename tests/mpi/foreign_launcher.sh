#!/bin/sh
# A ThreadMPI program that another MPI's launcher starts as several processes (Open MPI's mpirun
# sets OMPI_COMM_WORLD_SIZE, MPICH's mpiexec PMI_SIZE) refuses to run, with status 2 and a
# message saying how to start it, rather than run as that many jobs of one rank; one process
# (a size of 1) runs as ever. With the launchers installed, through them too.
. "$TM_SRCDIR/tests/mpi/lib.sh"
prog=$(tm_build hosts_probe.c)
why="this process is one of 3 that another MPI's launcher started \(OMPI_COMM_WORLD_SIZE=3\).*mpcrun -n N"

env OMPI_COMM_WORLD_SIZE=3 "$prog" x > "$out" 2> "$err" < /dev/null
status=$?
expect_status 2 "alone, OMPI_COMM_WORLD_SIZE=3"
expect_err "^threadmpi: $why" "alone, OMPI_COMM_WORLD_SIZE=3"
[ -s "$out" ] && fail "a rank ran: $(cat "$out")"
tm_run_env PMI_SIZE=2 2 "$prog" x
expect_status 2 "mpcrun, PMI_SIZE=2"
expect_err "one of 2 that another MPI's launcher started \(PMI_SIZE=2\)" "mpcrun, PMI_SIZE=2"
tm_run_env OMPI_COMM_WORLD_SIZE=1 2 "$prog" x
expect_status 0 "OMPI_COMM_WORLD_SIZE=1"
[ "$(grep -c '^rank [01] of 2 ' "$out")" -eq 2 ] || fail "a job of 2 ranks: $(cat "$out")"

ran=
if command -v mpirun.openmpi > /dev/null; then
    timeout 120 mpirun.openmpi --allow-run-as-root --oversubscribe -n 2 "$prog" x \
        > "$out" 2> "$err" < /dev/null
    status=$?
    [ "$status" -ne 0 ] || fail "under Open MPI's mpirun: status 0: $(cat "$out")"
    expect_err "one of 2 that another MPI's launcher started \(OMPI_COMM_WORLD_SIZE=2\)" \
        "under Open MPI's mpirun"
    ran="$ran mpirun.openmpi"
fi
if command -v mpiexec.mpich > /dev/null; then
    timeout 120 mpiexec.mpich -n 2 "$prog" x > "$out" 2> "$err" < /dev/null
    status=$?
    [ "$status" -ne 0 ] || fail "under MPICH's mpiexec: status 0: $(cat "$out")"
    expect_err "one of 2 that another MPI's launcher started \(PMI_SIZE=2\)" "under MPICH's mpiexec"
    ran="$ran mpiexec.mpich"
fi
echo "foreign_launcher: ok (launchers run:${ran:- none installed})"
