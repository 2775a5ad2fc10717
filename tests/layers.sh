#!/bin/sh
# The layers' dependencies point one way (the order below; docs/architecture.md):
#  - a file of a layer includes headers of its own layer and of the layers below it only (mpi.h,
#    in include/, is the public interface, which every layer may include);
#  - in a build tree (TM_BUILDDIR), a layer's library calls no function of a layer above it: every
#    internal symbol (tm_*) it needs is defined in its own library or one below.
# Prints each dependency that runs upward, and fails when there is one.
set -u
top=${TM_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
order="sched shm runtime obj p2p nbc coll rma io mpi launcher"
rank() {
    i=0
    for l in $order; do
        [ "$l" = "$1" ] && { echo "$i"; return; }
        i=$((i + 1))
    done
    echo -1
}
bad=0 checked=0
for layer in $order; do
    me=$(rank "$layer")
    for f in "$top/$layer"/*.c "$top/$layer"/*.h "$top/$layer"/*.S; do
        [ -e "$f" ] || continue
        checked=$((checked + 1))
        # Includes that name a folder: "layer/file.h".
        for dep in $(sed -n 's|^#include "\([a-z_]*\)/[^"]*"|\1|p' "$f"); do
            them=$(rank "$dep")
            if [ "$them" -lt 0 ]; then
                echo "${f#"$top"/}: includes from $dep/, which is no layer"
                bad=$((bad + 1))
            elif [ "$them" -gt "$me" ]; then
                echo "${f#"$top"/}: includes from $dep/, a layer above $layer/"
                bad=$((bad + 1))
            fi
        done
        # A bare "file.h" must be the file's own layer's.
        for h in $(sed -n 's|^#include "\([a-z_0-9]*\.h\)"|\1|p' "$f"); do
            case $h in config.h | mpi.h) continue ;; esac
            if [ ! -e "$top/$layer/$h" ]; then
                echo "${f#"$top"/}: includes $h, which is not in $layer/"
                bad=$((bad + 1))
            fi
        done
    done
done
[ "$checked" -gt 50 ] || { echo "only $checked files found under $top: wrong tree?"; exit 1; }
echo "$checked files of $(echo "$order" | wc -w) layers checked, $bad upward includes"

# The libraries' symbols: layer i may use what layers 0..i define.
build=${TM_BUILDDIR:-}
if [ -n "$build" ]; then
    defined=$(mktemp)
    trap 'rm -f "$defined"' EXIT
    calls=0
    for layer in $order; do
        lib=$(ls "$build/$layer"/.libs/libtm*.a 2> /dev/null | head -n 1)
        [ -n "$lib" ] || continue
        nm "$lib" | awk '$2 ~ /^[TDBRC]$/ && $3 ~ /^tm_/ { print $3 }' >> "$defined"
        for sym in $(nm -u "$lib" | awk '$2 ~ /^tm_/ { print $2 }' | sort -u); do
            calls=$((calls + 1))
            if ! grep -qx "$sym" "$defined"; then
                echo "$layer/: uses $sym, which no layer at or below it defines"
                bad=$((bad + 1))
            fi
        done
    done
    echo "$calls internal symbols used across the layers' libraries checked"
    [ "$calls" -gt 50 ] || { echo "too few symbols found in $build: not built?"; exit 1; }
fi
[ "$bad" -eq 0 ]
