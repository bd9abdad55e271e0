#!/usr/bin/env bash
# Instructions per launch of each step of benches/host_cost.rs, counted by callgrind: unlike
# times, the same on every run of one build, so a change to the launch path shows as a number.
#   scripts/host_cost_callgrind.sh        (needs valgrind; builds the bench in release)
set -euo pipefail
cd "$(dirname "$0")/.."
exe=$(cargo bench --bench host_cost --no-run --message-format=json 2>/dev/null \
  | python3 -c 'import json,sys
for l in sys.stdin:
    try: m = json.loads(l)
    except ValueError: continue
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "host_cost":
        print(m["executable"])')
out=$(mktemp -d)
# Without --bench the bench runs each step 2 × 1,000 times, plus once before and once after.
valgrind --tool=callgrind --callgrind-out-file="$out/cg" "$exe" > /dev/null 2> "$out/log"
calls=2002
echo "instructions per launch (callgrind, inclusive, $calls calls per step):"
callgrind_annotate --inclusive=yes "$out/cg" 2>/dev/null \
  | grep -E 'host_work::[a-z_]+ ' \
  | sed -E 's/^ *([0-9,]+) .*host_work::([a-z_]+) .*/\1 \2/' \
  | while read -r n name; do
      n=${n//,/}
      printf '  %-32s %6d\n' "$name" $((n / calls))
    done
rm -rf "$out"
