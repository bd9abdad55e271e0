"""Instructions and distinct 64-byte code lines per call of each callgrind run, and what each path
adds over its floor.

    python3 scripts/lib/per_call.py OUT CALLS path[=floor] ...

OUT holds one `<path>.cg` per path (callgrind, --dump-instr=yes, uncompressed); CALLS is the
number of calls each run made. An instruction counts when it ran at least CALLS times (the loop's;
set-up runs fewer times).
"""
import sys

out, n, specs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
paths = [s.split("=")[0] for s in specs]
floors = dict(s.split("=") for s in specs if "=" in s)


def per_call(path):
    counts, skip = {}, False
    for line in open(f"{out}/{path}.cg"):
        if line.startswith("calls="):
            skip = True  # the next line is a call's inclusive cost, not an instruction's
            continue
        if not line.startswith("0x"):
            continue
        fields = line.split()
        if skip:
            skip = False
            continue
        addr = int(fields[0], 16)
        counts[addr] = counts.get(addr, 0) + int(fields[-1])
    hot = {a: c for a, c in counts.items() if c >= n}
    return sum(hot.values()) / n, len({a // 64 for a in hot})


got = {p: per_call(p) for p in paths}
width = max(len(p) for p in paths) + 2
print(f"  {'path':<{width}} {'instructions':>12} {'code lines':>11}   over its floor")
for p in paths:
    ins, lines = got[p]
    over = ""
    if p in floors:
        fi, fl = got[floors[p]]
        over = f"{ins - fi:+6.0f} instr, {lines - fl:+3d} lines over {floors[p]}"
    print(f"  {p:<{width}} {ins:12.0f} {lines:11d}   {over}")
