"""Module import graph of one crate, and its circles.

Each module's imports of other modules of its crate (`crate::…` and `super::…` paths outside
comments and inline test modules; a module and its own parent or children left out, as a parent
declares its children), and the same graph between the crate's top-level folders: folder A
imports folder B when a module in A imports one in B, directly or through top-level files (which
are no folder: `error.rs`). Exits 1 when there is a circle between files or between folders.

    python3 scripts/import_graph.py runtime/src [-v] [--files]
        -v: print every module's imports, then every folder's
        --files: fail on a circle between files only (one between folders is printed)
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
def circles(graph):
    color = {}; stack = []; found = []
    def dfs(u):
        color[u] = 1; stack.append(u)
        for v in sorted(graph.get(u, ())):
            if color.get(v, 0) == 0: dfs(v)
            elif color.get(v) == 1: found.append(stack[stack.index(v):] + [v])
        color[u] = 2; stack.pop()
    for u in sorted(graph):
        if color.get(u, 0) == 0: dfs(u)
    return found
cycles = circles(edges)
print(f"{root}: {len(mods)} modules, {sum(len(v) for v in edges.values())} import edges, {len(cycles)} circles")
for c in cycles[:10]: print("  circle:", " -> ".join(c))
if "-v" in sys.argv:
    for u in sorted(edges): print(f"  {u or '(root)'} -> {', '.join(sorted(edges[u])) or '(none)'}")

# Folders: the top-level modules written as a directory (`devices/mod.rs`) or with modules of their
# own in one (`graph/capture.rs`); `error.rs` with only `error/tests.rs` is a file. A module's
# top-level folder, or None for the root and the top-level files, which an import passes through
# (folder -> file -> folder is an import between the two folders).
folders = {m.split("::")[0] for m, f in mods.items()
           if "::" in m or os.path.basename(f) == "mod.rs" and m}
def folder(m): return m.split("::")[0] if m and m.split("::")[0] in folders else None
def reach(m, seen):
    # The folders m imports, each with the path of imports that leads there, following imports of
    # top-level files.
    out = {}
    for d in sorted(edges.get(m, ())):
        if folder(d) is not None: out.setdefault(folder(d), [m, d])
        elif d not in seen:
            seen.add(d)
            for f, path in reach(d, seen).items(): out.setdefault(f, [m] + path)
    return out
fedges = {f: set() for f in folders}
via = {}
for m in sorted(mods):
    if folder(m) is None: continue
    for f, path in reach(m, {m}).items():
        if f == folder(m): continue
        fedges[folder(m)].add(f); via.setdefault((folder(m), f), path)
fcycles = circles(fedges)
print(f"{root}: {len(folders)} folders, {sum(len(v) for v in fedges.values())} import edges, {len(fcycles)} circles")
for c in fcycles[:10]:
    print("  circle:", " -> ".join(f + "/" for f in c))
    for a, b in zip(c, c[1:]): print(f"    {a}/ -> {b}/: " + " -> ".join(via[(a, b)]))
if "-v" in sys.argv:
    for u in sorted(fedges): print(f"  {u}/ -> {', '.join(v + '/' for v in sorted(fedges[u])) or '(none)'}")
# --files: circles between files fail, circles between folders are printed only.
sys.exit(1 if cycles or (fcycles and "--files" not in sys.argv) else 0)
