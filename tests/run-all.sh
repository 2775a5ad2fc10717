#!/bin/sh
# The README's test command: installs what is needed, then builds ThreadMPI and runs its whole
# test suite three times, out of tree (_build-plain, _build-asan, _build-tsan): plain, under
# AddressSanitizer and under ThreadSanitizer; then `make distcheck` (tarball, read-only source
# tree, install, uninstall) and `make fuzz` (the configuration parser, 60 s). Prints the logs of
# failing tests and ends with the line "N passed, N failed". It works before or after the
# README's first command, which configures the tree in place.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
sh "$top/tests/deps.sh" || { echo "installing the dependencies failed"; exit 1; }
# The builds are out of tree, which automake allows only from a source tree that is not configured
# in place. When it is (the README's first command configures and builds here), they build from a
# copy of the tree without that configuration, _build-src; the tree itself is left as it is.
src=$top
if [ -f "$top/config.status" ]; then
    src=$top/_build-src
    rm -rf "$src" && mkdir -p "$src" || exit 1
    (cd "$top" && tar --exclude=./.git --exclude='./_build-*' -cf - .) | (cd "$src" && tar -xf -) &&
        (cd "$src" && make distclean > /dev/null 2>&1) ||
        { echo "copying the configured tree to $src failed"; exit 1; }
    echo "== building from $src (the tree is configured in place)"
fi
cd "$src" && autoreconf -fi > /dev/null 2>&1 || { echo "autoreconf failed"; exit 1; }

passed=0 failed=0
for variant in plain asan tsan; do
    build="$top/_build-$variant"
    rm -rf "$build"
    mkdir -p "$build" && cd "$build" || exit 1
    case $variant in
        plain) flags= ;;
        asan) flags=--enable-asan ;;
        tsan) flags=--enable-tsan ;;
    esac
    echo "== $variant build ($flags)"
    # shellcheck disable=SC2086 # empty or one flag
    if ! "$src/configure" -q $flags > configure.out 2>&1 || ! make -j2 > make.out 2>&1; then
        cat configure.out make.out | tail -40
        echo "$variant: the build failed"
        failed=$((failed + 1))
        continue
    fi
    make -j2 check > check.out 2>&1
    grep -E '^(PASS|FAIL|ERROR|SKIP|XPASS):' check.out
    p=$(sed -n 's/^# PASS: *//p' check.out)
    f=$(($(sed -n 's/^# FAIL: *//p' check.out) + $(sed -n 's/^# ERROR: *//p' check.out) + $(sed -n 's/^# XPASS: *//p' check.out)))
    [ -n "$p" ] || { tail -40 check.out; f=$((f + 1)); p=0; }
    find . -name '*.log' ! -name test-suite.log ! -name config.log -exec grep -lE '^(FAIL|ERROR)' {} + 2> /dev/null |
        while read -r log; do
            echo "---- $variant: $log"
            tail -60 "$log"
        done
    passed=$((passed + p))
    failed=$((failed + f))
done

echo "== make distcheck"
cd "$top/_build-plain" || exit 1
if make -j2 distcheck > distcheck.out 2>&1; then
    passed=$((passed + 1))
    echo "PASS: distcheck"
else
    grep -E '^(FAIL|ERROR|XPASS):' distcheck.out
    find threadmpi-*/_build -name '*.log' ! -name test-suite.log ! -name config.log \
        -exec grep -lE '^(FAIL|ERROR)' {} + 2> /dev/null |
        while read -r log; do
            echo "---- distcheck: $log"
            tail -60 "$log"
        done
    tail -20 distcheck.out
    failed=$((failed + 1))
    echo "FAIL: distcheck"
fi

# The configuration parser's fuzz target, for its full time: any report (a crash, a leak, a
# time-out, or a false positive of its own checks) fails.
echo "== make fuzz"
cd "$top/_build-plain" || exit 1
reports() { find tests/fuzz/found -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*'; }
if make fuzz > fuzz.out 2>&1 && [ -z "$(reports)" ]; then
    passed=$((passed + 1))
    echo "PASS: fuzz ($(grep -Eo 'Done [0-9]+ runs in [0-9]+ second' fuzz.out | tail -1))"
else
    tail -40 fuzz.out
    reports
    failed=$((failed + 1))
    echo "FAIL: fuzz"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
