#!/bin/sh
# Placement and the configuration, through mpcrun: --dry-run and --report-bindings on synthetic
# topologies (hwloc's HWLOC_SYNTHETIC and HWLOC_XMLFILE), checked line by line for each policy;
# configuration errors (file:line, exit status 2, nothing run); the layers' precedence as
# --show-config reports it; --help-config is a configuration file that changes nothing.
. "$TM_SRCDIR/tests/mpi/lib.sh"

# bindings TOPOLOGY EXPECTED [MPCRUN ARGS...]: mpcrun --dry-run on TOPOLOGY prints exactly the
# lines EXPECTED ("|" between lines) after its first line, and exits 0.
bindings() {
    topology=$1
    expected=$2
    shift 2
    HWLOC_SYNTHETIC="$topology" "$MPCRUN" --dry-run "$@" > "$out" 2> "$err" < /dev/null
    status=$?
    expect_status 0 "--dry-run $* on $topology"
    got=$(tail -n +2 "$out" | tr '\n' '|')
    [ "$got" = "$expected|" ] ||
        fail "--dry-run $* on $topology:
  got      $got
  expected $expected|"
}

T1x2="core:2 pu:1"
T1x4="core:4 pu:1"
T2x32="package:2 core:32 pu:1"
T4x16="package:1 numa:4 core:16 pu:1"
TKNL="package:1 numa:4 core:16 pu:4"

# 1x2: one rank leaves a core idle for its progress thread; two fill the machine, and the
# progress threads share their ranks' cores (said on stderr, once).
bindings "$T1x2" "rank 0: core 0 (numa 0)|progress 0: core 1 (numa 0)" -n 1
bindings "$T1x2" "rank 0: core 0 (numa 0)|rank 1: core 1 (numa 0)|progress 0: core 0 (numa 0)|\
progress 1: core 1 (numa 0)" -n 2
[ "$(grep -c "no idle core for the progress threads" "$err")" -eq 1 ] ||
    fail "the idle fallback is said once: $(cat "$err")"
# More ranks than cores share them evenly, consecutive ranks together.
bindings "$T1x2" "rank 0: core 0 (numa 0)|rank 1: core 0 (numa 0)|rank 2: core 1 (numa 0)|\
progress 0: core 0 (numa 0)|progress 1: core 0 (numa 0)|progress 2: core 1 (numa 0)" -n 3

# 2x32, compact (the default): the first cores; each progress thread on the closest idle core.
bindings "$T2x32" "rank 0: core 0 (numa 0)|rank 1: core 1 (numa 0)|rank 2: core 2 (numa 0)|\
rank 3: core 3 (numa 0)|progress 0: core 4 (numa 0)|progress 1: core 5 (numa 0)|\
progress 2: core 6 (numa 0)|progress 3: core 7 (numa 0)" -n 4
# scatter: across the packages first.
bindings "$T2x32" "rank 0: core 0 (numa 0)|rank 1: core 32 (numa 0)|rank 2: core 1 (numa 0)|\
rank 3: core 33 (numa 0)|progress 0: core 2 (numa 0)|progress 1: core 34 (numa 0)|\
progress 2: core 3 (numa 0)|progress 3: core 35 (numa 0)" -n 4 --set placement.ranks=scatter
# comm: the last comm_cores cores host the progress threads, in turn, and no rank.
bindings "$T2x32" "rank 0: core 0 (numa 0)|rank 1: core 1 (numa 0)|rank 2: core 2 (numa 0)|\
progress 0: core 62 (numa 0)|progress 1: core 63 (numa 0)|progress 2: core 62 (numa 0)" \
    -n 3 --set placement.progress=comm --set placement.comm_cores=2
# same, next, none.
bindings "$T2x32" "rank 0: core 0 (numa 0)|rank 1: core 1 (numa 0)|progress 0: core 0 (numa 0)|\
progress 1: core 1 (numa 0)" -n 2 --set placement.progress=same
bindings "$T2x32" "rank 0: core 0 (numa 0)|rank 1: core 1 (numa 0)|progress 0: core 1 (numa 0)|\
progress 1: core 2 (numa 0)" -n 2 --set placement.progress=next
bindings "$T2x32" "rank 0: core 0 (numa 0)|rank 1: core 1 (numa 0)" -n 2 \
    --set placement.progress=none

# 4 NUMA nodes of 16 cores: numa gives each node its share of consecutive ranks.
bindings "$T4x16" "rank 0: core 0 (numa 0)|rank 1: core 1 (numa 0)|rank 2: core 16 (numa 1)|\
rank 3: core 17 (numa 1)|rank 4: core 32 (numa 2)|rank 5: core 33 (numa 2)|\
rank 6: core 48 (numa 3)|rank 7: core 49 (numa 3)|progress 0: core 2 (numa 0)|\
progress 1: core 3 (numa 0)|progress 2: core 18 (numa 1)|progress 3: core 19 (numa 1)|\
progress 4: core 34 (numa 2)|progress 5: core 35 (numa 2)|progress 6: core 50 (numa 3)|\
progress 7: core 51 (numa 3)" -n 8 --set placement.ranks=numa
# scatter on the same machine goes round the NUMA nodes.
bindings "$T4x16" "rank 0: core 0 (numa 0)|rank 1: core 16 (numa 1)|rank 2: core 32 (numa 2)|\
rank 3: core 48 (numa 3)" -n 4 --set placement.ranks=scatter --set placement.progress=none

# KNL-like, 64 cores with 4 hardware threads each: one rank per core unless smt = true.
bindings "$TKNL" "rank 0: core 0 (numa 0)|rank 1: core 1 (numa 0)|rank 2: core 2 (numa 0)" \
    -n 3 --set placement.progress=none
bindings "$TKNL" "rank 0: core 0 (numa 0)|rank 1: core 0 (numa 0)|rank 2: core 0 (numa 0)|\
rank 3: core 0 (numa 0)|rank 4: core 1 (numa 0)" -n 5 --set placement.smt=true \
    --set placement.progress=none
# Without -n: one rank per core (per hardware thread with smt).
HWLOC_SYNTHETIC="$TKNL" "$MPCRUN" --dry-run > "$out" 2> "$err" < /dev/null
[ "$(grep -c '^rank ' "$out")" -eq 64 ] || fail "KNL without -n: $(head -1 "$out")"
HWLOC_SYNTHETIC="$TKNL" "$MPCRUN" --dry-run --set placement.smt=true > "$out" 2> "$err"
[ "$(grep -c '^rank ' "$out")" -eq 256 ] || fail "KNL smt without -n: $(head -1 "$out")"

# list: the cores listed, in that order.
bindings "$T1x4" "rank 0: core 3 (numa 0)|rank 1: core 1 (numa 0)|progress 0: core 2 (numa 0)|\
progress 1: core 0 (numa 0)" --set placement.ranks=list:3,1

# The job's allowed cores (its cgroup/cpuset; here an XML topology whose allowed set is PUs 1
# and 3 of 4): only they are used, and without -n there is one rank per allowed core.
topology_xml() { # ALLOWED-CPUSET: a 4-core machine whose job may use ALLOWED-CPUSET
    printf '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE topology SYSTEM "hwloc2.dtd">\n'
    printf '<topology version="2.0">\n'
    printf ' <object type="Machine" os_index="0" cpuset="0xf" complete_cpuset="0xf"'
    printf ' allowed_cpuset="%s" nodeset="0x1" complete_nodeset="0x1" allowed_nodeset="0x1">\n' "$1"
    printf '  <object type="Package" os_index="0" cpuset="0xf" complete_cpuset="0xf"'
    printf ' nodeset="0x1" complete_nodeset="0x1">\n'
    printf '   <object type="NUMANode" os_index="0" cpuset="0xf" complete_cpuset="0xf"'
    printf ' nodeset="0x1" complete_nodeset="0x1" local_memory="1073741824"/>\n'
    for i in 0 1 2 3; do
        mask=$((1 << i))
        printf '   <object type="Core" os_index="%d" cpuset="0x%x" complete_cpuset="0x%x">\n' \
            "$i" "$mask" "$mask"
        printf '    <object type="PU" os_index="%d" cpuset="0x%x" complete_cpuset="0x%x"/>\n' \
            "$i" "$mask" "$mask"
        printf '   </object>\n'
    done
    printf '  </object>\n </object>\n</topology>\n'
}
topology_xml 0xf > "$work/full.xml"
topology_xml 0xa > "$work/allowed.xml"
HWLOC_XMLFILE="$work/full.xml" "$MPCRUN" --dry-run > "$out" 2> "$err" < /dev/null
[ "$(grep -c '^rank ' "$out")" -eq 4 ] || fail "XML topology: $(cat "$out" "$err")"
HWLOC_XMLFILE="$work/allowed.xml" "$MPCRUN" --dry-run > "$out" 2> "$err" < /dev/null
[ "$(grep -c '^rank ' "$out")" -eq 2 ] || fail "allowed set: $(cat "$out")"

# On this machine, the process's CPU binding narrows the allowed set as a cgroup does: under
# `taskset -c CPU` every rank goes to that CPU's core, and without -n one rank runs.
if command -v taskset > /dev/null && [ "$(nproc)" -ge 2 ]; then
    cpu=$(taskset -pc $$ | sed 's/.*: *//; s/[-,].*//')
    taskset -c "$cpu" "$MPCRUN" --dry-run -n 3 > "$out" 2> "$err" < /dev/null
    status=$?
    expect_status 0 "taskset -c $cpu mpcrun --dry-run -n 3"
    [ "$(grep -c '^rank ' "$out")" -eq 3 ] && [ "$(grep '^rank ' "$out" | sort -u -k3 | wc -l)" -eq 1 ] ||
        fail "taskset -c $cpu: every rank on one core: $(cat "$out" "$err")"
    taskset -c "$cpu" "$MPCRUN" --dry-run > "$out" 2> "$err" < /dev/null
    [ "$(grep -c '^rank ' "$out")" -eq 1 ] || fail "taskset -c $cpu without -n: $(cat "$out")"
fi

# --report-bindings prints the same lines, then runs the program.
hello=$(tm_build ../../examples/hello.c)
HWLOC_SYNTHETIC="$T1x4" "$MPCRUN" -n 2 --report-bindings "$hello" > "$out" 2> "$err" < /dev/null
status=$?
expect_status 0 "--report-bindings"
[ "$(head -4 "$out" | tr '\n' '|')" = "rank 0: core 0 (numa 0)|rank 1: core 1 (numa 0)|\
progress 0: core 2 (numa 0)|progress 1: core 3 (numa 0)|" ] || fail "--report-bindings: $(cat "$out")"
expect_out "Hello from rank 1 of 2" "--report-bindings runs the program"
# Asked for explicitly, idle with no idle core is said once in a run with --report-bindings too.
HWLOC_SYNTHETIC="$T1x2" "$MPCRUN" -n 2 --report-bindings --set placement.progress=idle "$hello" \
    > "$out" 2> "$err" < /dev/null
status=$?
expect_status 0 "--report-bindings, explicit idle"
[ "$(grep -c "no idle core for the progress threads" "$err")" -eq 1 ] ||
    fail "the idle fallback of a run is said once: $(cat "$err")"
# --dry-run with a program names it and runs nothing.
"$MPCRUN" -n 2 --dry-run "$hello" > "$out" 2> "$err" < /dev/null
status=$?
expect_status 0 "--dry-run PROGRAM"
expect_out "^dry run: 2 ranks of .*/hello on " "--dry-run names the program"
! grep -q Hello "$out" || fail "--dry-run ran the program"

# Every policy runs a real job with collectives (progress threads included) on this machine.
coll=$(tm_build coll_nbc_many.c)
for policy in idle same next none; do
    tm_run 3 --set placement.progress=$policy "$coll"
    expect_status 0 "collectives with placement.progress = $policy"
done
for policy in compact scatter numa list:1,0; do
    tm_run 3 --set placement.ranks=$policy --set memory.policy=interleave "$coll"
    expect_status 0 "collectives with placement.ranks = $policy"
done

# ---- configuration errors: before any rank starts, status 2, FILE:LINE --------------------------
conf_error() { # FILE-TEXT EXPECTED-STDERR WHAT [MPCRUN ARGS...]
    printf "$1" > "$work/threadmpi.conf"
    expected=$2
    what=$3
    shift 3
    tm_run 2 --config "$work/threadmpi.conf" "$@" "$hello"
    expect_status 2 "$what"
    expect_err "$expected" "$what"
    [ ! -s "$out" ] || fail "$what: a rank ran: $(cat "$out")"
}
conf_error '# placement\n[placement]\nranks = sideways\n' \
    'threadmpi.conf:3: placement.ranks: "sideways" is not one of compact, scatter, numa, list' \
    "a bad rank policy"
conf_error '[placement]\nprogres = idle\n' \
    'threadmpi.conf:2: placement.progres: unknown key \(did you mean placement.progress\?\)' \
    "a misspelt key"
conf_error '[placemnt]\nranks = compact\n' \
    'threadmpi.conf:2: placemnt.ranks: unknown section \(did you mean placement.ranks\?\)' \
    "a misspelt section"
conf_error '[placement]\nsmt = sometimes\n' \
    'threadmpi.conf:2: placement.smt: "sometimes" is not true or false' "a bad boolean"
conf_error '[memory]\npolicy = far\n' \
    'threadmpi.conf:2: memory.policy: "far" is not one of local, interleave' "a bad memory policy"
conf_error '[placement]\n\nranks = list:0,9\n' \
    'threadmpi.conf:3: placement.ranks: core 9 does not exist' "a core that does not exist"
conf_error '[placement]\nprogress = comm\ncomm_cores = 4\n' \
    'threadmpi.conf:3: placement.comm_cores: 4 leaves no core for the ranks' \
    "comm_cores takes every core"
conf_error '[placement]\nranks = list:1-0\n' \
    'threadmpi.conf:2: placement.ranks: "list:1-0": the range 1-0 goes down' "a bad list"
tm_run_env THREADMPI_PLACEMENT_RANKS=list:7 2 "$hello"
expect_status 2 "a core that does not exist, from the environment"
expect_err "environment THREADMPI_PLACEMENT_RANKS: placement.ranks: core 7 does not exist" \
    "the environment variable is named"
"$MPCRUN" --dry-run --set placement.ranks=nowhere > "$out" 2> "$err" < /dev/null
status=$?
expect_status 2 "a bad --set"
expect_err 'mpcrun option: placement.ranks: "nowhere" is not one of' "--set is named"

# ---- layers: later wins, and --show-config says which set each key ------------------------------
mkdir -p "$work/xdg"
printf '[placement]\nranks = scatter\nprogress = next\nsmt = true\n[memory]\npolicy = interleave\n' \
    > "$work/xdg/threadmpi.conf"
printf '[placement]\nprogress = same\nsmt = false\n' > "$work/cli.conf"
XDG_CONFIG_HOME="$work/xdg" THREADMPI_PLACEMENT_SMT=true "$MPCRUN" --config "$work/cli.conf" \
    --set placement.comm_cores=3 --show-config > "$out" 2> "$err" < /dev/null
status=$?
expect_status 0 "--show-config"
expect_out "^placement.ranks += scatter +# $work/xdg/threadmpi.conf:2$" "user file"
expect_out "^placement.progress += same +# $work/cli.conf:2$" "--config over the user file"
expect_out "^placement.smt += true +# environment THREADMPI_PLACEMENT_SMT$" "environment over files"
expect_out "^placement.comm_cores += 3 +# mpcrun option$" "--set over everything"
expect_out "^memory.policy += interleave +# $work/xdg/threadmpi.conf:6$" "user file, [memory]"
expect_out "^sched.stack_size += 8M +# default$" "defaults"
THREADMPI_PLACEMENT_PROGRESS=none "$MPCRUN" --set placement.progress=same --show-config \
    > "$out" 2> "$err" < /dev/null
expect_out "^placement.progress += same +# mpcrun option$" "--set over the environment"

# --help-config is a configuration file: every line a comment or a section, and read as one it
# sets nothing (all defaults).
"$MPCRUN" --help-config > "$work/help.conf" 2> "$err" < /dev/null
status=$?
expect_status 0 "--help-config"
grep -Ev '^(#.*|\[[a-z0-9]+\]|)$' "$work/help.conf" > "$work/bad" &&
    fail "--help-config has a line that is not a comment: $(cat "$work/bad")"
for key in sched.stack_size placement.ranks placement.progress placement.smt \
    placement.comm_cores memory.policy; do
    grep -q "^# ${key#*.} = " "$work/help.conf" || fail "--help-config lacks $key"
done
"$MPCRUN" --config "$work/help.conf" --show-config > "$out" 2> "$err" < /dev/null
[ "$(grep -vc '# default$' "$out")" -eq 0 ] || fail "help.conf sets something: $(cat "$out")"
echo "placement: ok"
