"""Module import graph of one crate, and its circles.

Each module's imports of other modules of its crate (`crate::…` and `super::…` paths outside
comments and inline test modules; a module and its own parent or children left out, as a parent
declares its children). Exits 1 when there is a circle.

    python3 scripts/import_graph.py runtime/src [-v]   (-v: print every module's imports)
"""
import os, re, sys
root = sys.argv[1]
mods = {}
for dp, dn, fn in os.walk(root):
    for f in fn:
        if not f.endswith(".rs") or f == "tests.rs": continue
        p = os.path.relpath(os.path.join(dp, f), root)[:-3]
        parts = p.split(os.sep)
        if parts[-1] in ("mod", "lib"): parts = parts[:-1]
        mods["::".join(parts)] = os.path.join(dp, f)
names = set(mods)
def resolve(cur, path):
    # path: list of segments after crate:: or relative
    best = None
    for i in range(len(path), 0, -1):
        cand = "::".join(path[:i])
        if cand in names: return cand
    return None
edges = {}
for m, f in mods.items():
    src = open(f).read()
    src = re.sub(r"#\[cfg\(test\)\]\s*mod tests\s*\{.*", "", src, flags=re.S)
    src = re.sub(r"//[^\n]*", "", src)
    deps = set()
    for mm in re.finditer(r"\bcrate::((?:\w+::)*\w+)", src):
        r = resolve(m, mm.group(1).split("::"))
        if r is not None: deps.add(r)
    cur = m.split("::") if m else []
    for mm in re.finditer(r"\b((?:super::)+)((?:\w+::)*\w+)", src):
        up = mm.group(1).count("super::")
        # module of this file: a file foo.rs with children is module foo; super goes to its parent
        base = cur[:len(cur)-up]
        r = resolve(m, base + mm.group(2).split("::"))
        if r is not None: deps.add(r)
    deps.discard(m); deps.discard("")
    # drop parent<->child relations
    deps = {d for d in deps if not (d.startswith(m + "::") or m.startswith(d + "::"))}
    edges[m] = deps
# cycle detection
sys.setrecursionlimit(10000)
color = {}; stack = []; cycles = []
def dfs(u):
    color[u] = 1; stack.append(u)
    for v in sorted(edges.get(u, ())):
        if color.get(v, 0) == 0: dfs(v)
        elif color.get(v) == 1: cycles.append(stack[stack.index(v):] + [v])
    color[u] = 2; stack.pop()
for u in sorted(edges):
    if color.get(u, 0) == 0: dfs(u)
print(f"{root}: {len(mods)} modules, {sum(len(v) for v in edges.values())} import edges, {len(cycles)} circles")
for c in cycles[:10]: print("  circle:", " -> ".join(c))
if "-v" in sys.argv:
    for u in sorted(edges): print(f"  {u or '(root)'} -> {', '.join(sorted(edges[u])) or '(none)'}")
sys.exit(1 if cycles else 0)
