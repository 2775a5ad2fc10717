#!/bin/sh
# Settings: mpcrun --config FILE, environment variables, and their errors (exit 2, before any
# rank starts, naming the file and line or the variable).
. "$TM_SRCDIR/tests/mpi/lib.sh"
hello=$(tm_build ../../examples/hello.c)

printf '# ThreadMPI settings\n[sched]\nstack_size = 1M   # small\nidle_spin_us = 10\n' > "$work/good.conf"
tm_run 2 --config "$work/good.conf" "$hello"
expect_status 0 "a valid --config file"

printf '[sched]\n\nstack_sise = 1M\n' > "$work/typo.conf"
tm_run 2 --config "$work/typo.conf" "$hello"
expect_status 2 "unknown key"
expect_err "typo.conf:3: sched.stack_sise: unknown key \(did you mean sched.stack_size\?\)" "unknown key"
[ ! -s "$out" ] || fail "no rank may start after a settings error"

printf '[shed]\nstack_size = 1M\n' > "$work/section.conf"
tm_run 2 --config "$work/section.conf" "$hello"
expect_status 2 "unknown section"
expect_err "section.conf:2: shed.stack_size: unknown section" "unknown section"

printf '[sched]\nstack_size = huge\n' > "$work/value.conf"
tm_run 2 --config "$work/value.conf" "$hello"
expect_status 2 "bad value"
expect_err "value.conf:2: sched.stack_size: \"huge\" is not a size" "bad value"

tm_run 2 --config "$work/nonexistent.conf" "$hello"
expect_status 2 "missing --config file"

# Only a regular file: a directory read as empty, /dev/zero never ended.
mkdir "$work/confdir"
tm_run 2 --config "$work/confdir" "$hello"
expect_status 2 "a directory as --config"
expect_err "confdir: cannot read the configuration file: it is a directory$" "a directory"
tm_run 2 --config /dev/zero "$hello"
expect_status 2 "/dev/zero as --config"
expect_err "^mpcrun: /dev/zero: cannot read the configuration file: not a regular file$" "a device"

tm_run_env THREADMPI_SCHED_IDLE_SPIN_US=-5 2 "$hello"
expect_status 2 "bad environment value"
expect_err "THREADMPI_SCHED_IDLE_SPIN_US: sched.idle_spin_us: \"-5\" is not an integer" "env"

tm_run_env THREADMPI_NOPE_X=1 2 "$hello"
expect_status 2 "unknown environment setting"

# Later layers win: the environment over --config (1M would overflow with 24 MiB of recursion).
recurse=$(tm_build recurse.c)
tm_run_env THREADMPI_SCHED_STACK_SIZE=64M 1 --config "$work/good.conf" "$recurse" 24
expect_status 0 "environment over --config"

# The user's file ($XDG_CONFIG_HOME/threadmpi.conf) is read, and --config wins over it.
mkdir -p "$work/xdg"
printf '[sched]\nstack_size = 1\n' > "$work/xdg/threadmpi.conf"
tm_run_env XDG_CONFIG_HOME="$work/xdg" 1 "$hello"
expect_status 2 "a bad user file"
expect_err "xdg/threadmpi.conf:2" "user file named"
expect_no_temp_files "settings"
echo "settings: ok"
