#!/usr/bin/env bash
# Runs on the CUDA machine, from the repository root, after `../shared/gpu-bundle` built
# `.gpu-bundle/` here: regenerates every kernels/*.ptx with nvcc into $OUT/ptx.tgz (to compare
# and commit), runs every bundled test binary's GPU tests with output shown (the numbers they
# measure), then every example. Full log in $OUT/gpu.log; a summary at the end.
#   bash scripts/device-run.sh [tests|examples|ptx]...   (default: all three)
set -uo pipefail
# A GPU test binary without a CUDA driver skips its tests (tests/common/gpu.rs); here it must fail.
export CHEVRON_REQUIRE_GPU=1
out=${OUT:-/tmp/out}; mkdir -p "$out"
what=" ${*:-ptx tests examples} "
log="$out/gpu.log"; : > "$log"
pass=0; fail=0; failed=()
if [[ "$what" == *" ptx "* ]]; then
  tmp=$(mktemp -d)
  if bash kernels/build.sh "$tmp" >> "$log" 2>&1; then
    tar czf "$out/ptx.tgz" -C "$tmp" . && echo "ptx: $(ls "$tmp" | wc -l) files -> ptx.tgz"
  else
    echo "ptx: nvcc FAILED (see gpu.log)"; fail=$((fail+1)); failed+=(nvcc)
  fi
fi
if [[ "$what" == *" tests "* ]]; then
  for t in .gpu-bundle/tests/*; do
    name=$(basename "$t")
    echo "=== test binary $name" >> "$log"
    if RUST_TEST_THREADS=1 timeout 300 "$t" --ignored --nocapture >> "$log" 2>&1; then
      pass=$((pass+1))
    else
      fail=$((fail+1)); failed+=("$name")
    fi
  done
fi
if [[ "$what" == *" examples "* ]]; then
  while read -r e; do
    [ -n "$e" ] || continue
    echo "=== example $e" >> "$log"
    if timeout 120 ".gpu-bundle/examples/$e" >> "$log" 2>&1; then
      pass=$((pass+1))
    else
      fail=$((fail+1)); failed+=("example:$e")
    fi
  done < .gpu-bundle/examples.txt
fi
grep -E "^test .* (ok|FAILED)$|^test result" "$log" | grep -c " ok$" | sed 's/^/GPU tests ok: /'
grep -E "^test .*FAILED$" "$log" || true
echo "$pass passed, $fail failed ${failed[*]:-}"
[ "$fail" -eq 0 ]
