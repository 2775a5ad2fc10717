#!/bin/sh
# Many ranks against the kernel's limit on a process's memory mappings (vm.max_map_count,
# runtime/maps.h): a rank costs 6 of them, so that 10,000 ranks of a small program run on the
# default limit of 65,530; a job that cannot fit is refused at once, with the command that raises
# the limit. Sanitized builds run 1,000 ranks: their runtime maps more per thread.
. "$TM_SRCDIR/tests/mpi/lib.sh"
prog=$(tm_build many_ranks.c)
limit=$(cat /proc/sys/vm/max_map_count) || fail "cannot read vm.max_map_count"

# Mappings per rank: the difference between two job sizes, while all their ranks are alive.
mappings() {
    tm_run "$1" "$prog"
    expect_status 0 "$1 ranks"
    expect_out "^ranks $1 sum $(($1 * ($1 - 1) / 2)) mappings" "$1 ranks"
    sed -n 's/.* mappings //p' "$out"
}
small=$(mappings 100) && large=$(mappings 300) || exit 1
per_rank=$(((large - small + 100) / 200)) # rounded: malloc maps a little on its own
case $("$MPICC" -show x.c) in
    *-fsanitize=*) many=1000 ;;
    *)
        many=10000
        [ "$per_rank" -le 6 ] || fail "a rank costs $per_rank memory mappings ($small at 100 ranks, $large at 300), not 6"
        ;;
esac
if [ "$limit" -ge 65530 ]; then
    mappings $many > /dev/null || exit 1
else
    echo "many_ranks: vm.max_map_count is $limit, below the default: $many ranks not run"
fi

# Past the limit: refused before any rank starts.
beyond=$((limit / 6 + 100))
if [ "$beyond" -le 1048576 ]; then
    tm_run "$beyond" "$prog"
    expect_status 2 "$beyond ranks, past vm.max_map_count"
    expect_err "^mpcrun: $beyond ranks need about [0-9]+ memory mappings \([0-9]+ per rank: [0-9]+ for its copy of the program, the others for its stacks\), more than the $limit the kernel allows a process \(vm.max_map_count\)\. Raise the limit, as root: sysctl -w vm.max_map_count=[0-9]+ \(or run at most [0-9]+ ranks\)$" \
        "past vm.max_map_count"
    [ -s "$out" ] && fail "a job past vm.max_map_count ran: $(cat "$out")"
fi
expect_no_temp_files "many ranks"
echo "many_ranks: ok ($per_rank mappings per rank)"
