#!/usr/bin/env bash
# Instructions per typed graph update, counted by callgrind against the stand-in driver library
# (benches/stand_in_libcuda): each path of benches/update_path.rs on its own, its instructions
# and distinct 64-byte code lines per update, and what it adds to the raw
# cuGraphExecKernelNodeSetParams floor (a replay: to the raw cuGraphLaunch). The same on every
# run of one build, so a change to the update path shows as a number; the H200's ratios are
# examples/graph_replay.rs's.
#   scripts/update_cost_callgrind.sh        (needs valgrind and python3; builds in release)
#   CHEVRON_NODES=64 scripts/update_cost_callgrind.sh   (batches of 64 updates; replays: at 1 node only)
set -euo pipefail
cd "$(dirname "$0")/.."
artifact() { # the executable (or cdylib) cargo built for target $2, from the JSON on stdin
  python3 -c 'import json,sys
for l in sys.stdin:
    try: m = json.loads(l)
    except ValueError: continue
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == sys.argv[1]:
        print(m.get("executable") or [f for f in m["filenames"] if f.endswith(".so")][0])' "$1"
}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

lib=$(cargo build --release --example stand_in_libcuda --message-format=json 2>/dev/null \
  | artifact stand_in_libcuda)
exe=$(cargo bench --bench update_path --no-run --message-format=json 2>/dev/null \
  | artifact update_path)
mkdir "$out/driver"
cp "$lib" "$out/driver/libcuda.so"
# CHEVRON_NODES=<n>: rounds over n captured nodes (a batch then spans n updates); the counts stay
# per update, what runs once per round left out.
nodes=${CHEVRON_NODES:-1}
updates=$(( (5000 / nodes) * nodes ))
paths=(raw_update raw_update_ctx update_scalars update_scalars_batch update_ordered update_ordered_batch update raw_replay replay)
for p in "${paths[@]}"; do
  CHEVRON_UPDATE_PATH=$p CHEVRON_UPDATES=$updates CHEVRON_NODES=$nodes LD_LIBRARY_PATH="$out/driver" \
    valgrind --tool=callgrind --dump-instr=yes --compress-pos=no --compress-strings=no \
    --callgrind-out-file="$out/$p.cg" "$exe" > /dev/null 2> "$out/$p.log" \
    || { cat "$out/$p.log" >&2; exit 1; }
done
echo "typed graph updates against the stand-in driver (benches/update_path.rs, $updates updates per path, rounds of $nodes node(s)):"
python3 - "$out" "$updates" "${paths[@]}" <<'PY'
import sys
out, n, paths = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
floors = {"raw_update_ctx": "raw_update", "update_scalars": "raw_update",
          "update_scalars_batch": "raw_update", "update_ordered": "raw_update",
          "update_ordered_batch": "raw_update", "update": "raw_update", "replay": "raw_replay"}

def per_call(path):
    # Instructions executed at least once per call: the loop's; the setup's run fewer times.
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
print(f"  {'path':<20} {'instructions':>12} {'code lines':>11}   over its floor")
for p in paths:
    ins, lines = got[p]
    over = ""
    if p in floors:
        fi, fl = got[floors[p]]
        over = f"{ins - fi:+6.0f} instr, {lines - fl:+3d} lines over {floors[p]}"
    print(f"  {p:<20} {ins:12.0f} {lines:11d}   {over}")
PY
