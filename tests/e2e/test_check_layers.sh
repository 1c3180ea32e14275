#!/usr/bin/env bash
# scripts/check-layers.sh fails on each kind of breach planted in a copy of the sources: an
# include that runs up a layer, an include cycle, a file over 800 lines, a function over 100
# lines, file-scope mutable state; and it passes on the copy before any breach is planted.
set -euo pipefail
src=${SCALEPROBE_SOURCE_DIR:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

fresh() {
    rm -rf "$tmp/tree"
    mkdir -p "$tmp/tree/src"
    for d in src/base src/runtime topo collectives node links proxies analysis accept; do
        mkdir -p "$tmp/tree/$d"
        cp "$src/$d"/*.[ch] "$tmp/tree/$d/" 2>/dev/null || true
        cp "$src/$d"/*.cu "$tmp/tree/$d/" 2>/dev/null || true
    done
    cp "$src/src/main.c" "$tmp/tree/src/"
}
check() { # expect (0|1) grep-pattern
    local want=$1 pattern=$2 rc=0
    SP_CHECK_ROOT="$tmp/tree" bash "$src/scripts/check-layers.sh" >"$tmp/out" 2>&1 || rc=$?
    [ "$rc" -eq "$want" ] || { cat "$tmp/out" >&2; fail "exit $rc, expected $want ($pattern)"; }
    grep -q -- "$pattern" "$tmp/out" || { cat "$tmp/out" >&2; fail "no line matching '$pattern'"; }
}

fresh
baseline_rc=0
SP_CHECK_ROOT="$tmp/tree" bash "$src/scripts/check-layers.sh" >"$tmp/base" 2>&1 || baseline_rc=$?
[ "$baseline_rc" -eq 0 ] || { cat "$tmp/base" >&2; fail "the unmodified tree has breaches"; }

# an include that runs up: the base layer reaching for the runtime
fresh
sed -i 's/^#include "stats.h"$/#include "stats.h"\n#include "context.h"/' "$tmp/tree/src/base/stats.c"
check 1 'stats.c:[0-9]*: includes context.h from src/runtime/, a higher layer'

# a cycle inside one layer: two headers including each other
fresh
printf '#include "cyc_b.h"\n' >"$tmp/tree/src/base/cyc_a.h"
printf '#include "cyc_a.h"\n' >"$tmp/tree/src/base/cyc_b.h"
check 1 'include cycle: src/base/cyc_a.h -> src/base/cyc_b.h -> src/base/cyc_a.h'

# a file over 800 lines
fresh
{ echo '/* long */'; for i in $(seq 1 801); do echo "/* $i */"; done; } >"$tmp/tree/src/base/long.c"
check 1 'long.c: 802 lines (at most 800)'

# a function over 100 lines
fresh
{ echo 'int sp_long_fn(void);'; echo 'int sp_long_fn(void)'; echo '{'; echo '    int x = 0;';
  for i in $(seq 1 100); do echo "    x += $i;"; done; echo '    return x;'; echo '}'; } \
    >"$tmp/tree/src/base/longfn.c"
check 1 'longfn.c:2: function of 105 lines (at most 100)'

# file-scope mutable state
fresh
printf 'static int counter;\nconst int fine = 1;\n' >"$tmp/tree/src/base/glob.c"
check 1 'glob.c:1: file-scope mutable variable: static int counter;'
grep -q 'glob.c:2' "$tmp/out" && fail "a const flagged as mutable"
echo "PASS: check-layers passes the tree and catches 5 kinds of breach"
