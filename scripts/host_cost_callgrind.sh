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
. scripts/lib/callgrind.sh
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

stand_in_driver "$out"
path_exe=$(cargo bench --bench launch_path --no-run --message-format=json 2>/dev/null \
  | artifact launch_path)
launches=5000
# Each path, and the one doing the same driver work without chevron that it is compared with.
paths=(raw guards=raw guards_attributes=guards guards_stream_attribute=guards launch_function=guards
  kernel_launch=guards typed=guards typed_attributes=guards_attributes
  typed_stream_attribute=guards_stream_attribute dyn=guards)
CHEVRON_LAUNCHES=$launches callgrind_paths "$out" "$path_exe" CHEVRON_LAUNCH_PATH "${paths[@]}"
echo
echo "whole launches against the stand-in driver (benches/launch_path.rs, $launches launches per path):"
python3 scripts/lib/per_call.py "$out" "$launches" "${paths[@]}"
