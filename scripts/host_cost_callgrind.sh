#!/usr/bin/env bash
# Instructions per launch, counted by callgrind: unlike times, the same on every run of one
# build, so a change to the launch path shows as a number. Two parts:
#  1. each step of benches/host_cost.rs (the host work without a driver);
#  2. whole launches (benches/launch_path.rs) against the stand-in driver library
#     (benches/stand_in_libcuda): instructions and distinct 64-byte code lines per launch of each
#     path, and what chevron adds to the path doing the same driver work without it. Code lines
#     matter as much as instructions on a GPU machine, where the driver's own work between two
#     launches evicts the launch path's code from the first-level cache.
#   scripts/host_cost_callgrind.sh        (needs valgrind and python3; builds in release)
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

exe=$(cargo bench --bench host_cost --no-run --message-format=json 2>/dev/null | artifact host_cost)
# Without --bench the bench runs each step 2 × 1,000 times, plus once before and once after.
valgrind --tool=callgrind --callgrind-out-file="$out/cg" "$exe" > /dev/null 2> "$out/log"
calls=2002
echo "host work without a driver, instructions per launch (callgrind, inclusive, $calls calls per step):"
callgrind_annotate --inclusive=yes "$out/cg" 2>/dev/null \
  | grep -E 'host_work::[a-z_]+ ' \
  | sed -E 's/^ *([0-9,]+) .*host_work::([a-z_]+) .*/\1 \2/' \
  | while read -r n name; do
      n=${n//,/}
      printf '  %-32s %6d\n' "$name" $((n / calls))
    done

lib=$(cargo build --release --example stand_in_libcuda --message-format=json 2>/dev/null \
  | artifact stand_in_libcuda)
path_exe=$(cargo bench --bench launch_path --no-run --message-format=json 2>/dev/null \
  | artifact launch_path)
mkdir "$out/driver"
cp "$lib" "$out/driver/libcuda.so"
launches=5000
paths=(raw guards guards_attributes guards_stream_attribute launch_function kernel_launch typed
  typed_attributes typed_stream_attribute dyn)
for p in "${paths[@]}"; do
  CHEVRON_LAUNCH_PATH=$p CHEVRON_LAUNCHES=$launches LD_LIBRARY_PATH="$out/driver" \
    valgrind --tool=callgrind --dump-instr=yes --compress-pos=no --compress-strings=no \
    --callgrind-out-file="$out/$p.cg" "$path_exe" > /dev/null 2> "$out/$p.log" \
    || { cat "$out/$p.log" >&2; exit 1; }
done
echo
echo "whole launches against the stand-in driver (benches/launch_path.rs, $launches launches per path):"
python3 - "$out" "$launches" "${paths[@]}" <<'EOF'
import sys
out, n, paths = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
floors = {"guards": "raw", "guards_attributes": "guards", "guards_stream_attribute": "guards",
          "launch_function": "guards", "kernel_launch": "guards", "typed": "guards",
          "typed_attributes": "guards_attributes",
          "typed_stream_attribute": "guards_stream_attribute", "dyn": "guards"}

def per_launch(path):
    # Instructions executed at least once per launch: the loop's; the setup's run fewer times.
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

got = {p: per_launch(p) for p in paths}
print(f"  {'path':<26} {'instructions':>12} {'code lines':>11}   over its floor")
for p in paths:
    ins, lines = got[p]
    over = ""
    if p in floors:
        fi, fl = got[floors[p]]
        over = f"{ins - fi:+6.0f} instr, {lines - fl:+3d} lines over {floors[p]}"
    print(f"  {p:<26} {ins:12.0f} {lines:11d}   {over}")
EOF
