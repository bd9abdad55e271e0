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
. scripts/lib/callgrind.sh
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

stand_in_driver "$out"
exe=$(cargo bench --bench update_path --no-run --message-format=json 2>/dev/null \
  | artifact update_path)
# CHEVRON_NODES=<n>: rounds over n captured nodes (a batch then spans n updates); the counts stay
# per update, what runs once per round left out.
nodes=${CHEVRON_NODES:-1}
updates=$(( (5000 / nodes) * nodes ))
# Each path, and the raw driver call it is compared with.
paths=(raw_update raw_update_ctx=raw_update update_scalars=raw_update
  update_scalars_batch=raw_update update_ordered=raw_update update_ordered_batch=raw_update
  update=raw_update raw_replay replay=raw_replay)
CHEVRON_UPDATES=$updates CHEVRON_NODES=$nodes \
  callgrind_paths "$out" "$exe" CHEVRON_UPDATE_PATH "${paths[@]}"
echo "typed graph updates against the stand-in driver (benches/update_path.rs, $updates updates per path, rounds of $nodes node(s)):"
python3 scripts/lib/per_call.py "$out" "$updates" "${paths[@]}"
