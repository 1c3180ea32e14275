#!/usr/bin/env bash
# The house rules a compiler does not check: #include only from the same or a lower layer, no
# include cycle, no source file over 800 lines, no function over 100 lines. Exit 1 on a breach.
# Layers, lowest first (docs/ARCHITECTURE.md); a folder may include its own headers and those of
# any layer listed before it. `--list` prints every folder's layer and stops.
set -euo pipefail
# SP_CHECK_ROOT: another tree to check (the test plants breaches in a copy)
top=${SP_CHECK_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$top"

layers=(src/base topo src/runtime collectives node links proxies analysis accept src)
max_file_lines=${SP_MAX_FILE_LINES:-800}
max_function_lines=${SP_MAX_FUNCTION_LINES:-100}

if [ "${1:-}" = "--list" ]; then
    for i in "${!layers[@]}"; do echo "$i ${layers[$i]}"; done
    exit 0
fi

python3 - "$max_file_lines" "$max_function_lines" "${layers[@]}" <<'EOF'
import os, re, sys

max_file, max_fn = int(sys.argv[1]), int(sys.argv[2])
layers = sys.argv[3:]
rank = {d: i for i, d in enumerate(layers)}
# Workloads below another in the list that it still may not use (CMakeLists.txt links node to
# the runtime only, not to collectives/; proxies to collectives and node, not to links/).
siblings = {'node': ('collectives',), 'proxies': ('links',)}
sources = [os.path.join(d, f) for d in layers for f in sorted(os.listdir(d))
           if f.endswith(('.c', '.h', '.cu'))]
bad = 0
where = {}  # header name -> folder
for s in sources:
    if s.endswith('.h'):
        name = os.path.basename(s)
        if name in where:
            print(f"{s}: header name also in {where[name]}/ (includes are by name)")
            bad += 1
        where[name] = os.path.dirname(s)
graph = {}
var_re = re.compile(r'^(static\s+)?(volatile\s+)?(unsigned\s+|signed\s+|struct\s+|union\s+|enum\s+)?'
                    r'[a-z_][a-z0-9_]*\s+\**\s*'
                    r'[a-z_][a-z0-9_]*\s*(\[[^]]*\])*\s*(=[^(]*)?;?\s*$')
inc_re = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
for s in sources:
    d = os.path.dirname(s)
    lines = open(s, encoding='utf-8').read().split('\n')
    if lines and lines[-1] == '':
        lines.pop()
    if len(lines) > max_file:
        print(f"{s}: {len(lines)} lines (at most {max_file})")
        bad += 1
    graph[s] = []
    for no, line in enumerate(lines, 1):
        m = inc_re.match(line)
        if not m:
            continue
        name = os.path.basename(m.group(1))
        target = where.get(name)
        if target is None:
            print(f"{s}:{no}: includes {name}, which is in no layer")
            bad += 1
            continue
        graph[s].append(os.path.join(target, name))
        if rank[target] > rank[d]:
            print(f"{s}:{no}: includes {name} from {target}/, a higher layer than {d}/")
            bad += 1
        elif target in siblings.get(d, ()):
            print(f"{s}:{no}: includes {name} from {target}/, a workload {d}/ does not build on")
            bad += 1
    # File-scope mutable state: a variable defined outside any function that is not const
    # (log.c and signals.c may keep theirs: the logger's identity, the async-signal flag).
    if s not in ('src/base/log.c', 'src/runtime/signals.c') and s.endswith(('.c', '.cu')):
        depth = 0
        for no, line in enumerate(lines, 1):
            if depth == 0 and var_re.match(line) and 'const ' not in line.split('=')[0]:
                print(f"{s}:{no}: file-scope mutable variable: {line.strip()}")
                bad += 1
            depth += line.count('{') - line.count('}')
    # A function body opens with '{' alone in column 0 (BreakBeforeBraces: Linux) and closes
    # with '}' in column 0; count the lines from its signature to the closing brace.
    start = None
    for no, line in enumerate(lines, 1):
        if line == '{' and start is None:
            sig = no - 1
            while sig > 1 and lines[sig - 2].strip() and not lines[sig - 2].startswith(('}', '#', '/*', ' *')) \
                    and not lines[sig - 2].rstrip().endswith((';', '*/')):
                sig -= 1
            start = sig
        elif line.startswith('}') and start is not None:
            if no - start + 1 > max_fn:
                print(f"{s}:{start}: function of {no - start + 1} lines (at most {max_fn})")
                bad += 1
            start = None

# include cycles among headers and their own .c (a .h -> .h path back to itself)
state = {}
def visit(n, stack):
    state[n] = 1
    stack.append(n)
    for m in graph.get(n, []):
        if not m.endswith('.h'):
            continue
        if state.get(m) == 1:
            cyc = stack[stack.index(m):] + [m]
            print("include cycle: " + " -> ".join(cyc))
            global bad
            bad += 1
        elif state.get(m) is None:
            visit(m, stack)
    stack.pop()
    state[n] = 2
for n in sorted(graph):
    if n.endswith('.h') and state.get(n) is None:
        visit(n, [])
# a .c including the header of a module that includes this .c's own header back
for s in sources:
    if not s.endswith(('.c', '.cu')):
        continue
    own = s.rsplit('.', 1)[0] + '.h'
    for h in graph[s]:
        other_c = h[:-2] + '.c'
        if h != own and other_c in graph and own in graph[other_c] and s < other_c:
            print(f"modules include each other: {s} <-> {other_c}")
            bad += 1

print(f"check-layers: {len(sources)} files in {len(layers)} layers, {bad} problem(s)")
sys.exit(1 if bad else 0)
EOF
