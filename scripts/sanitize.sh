#!/usr/bin/env bash
# Runs compute-sanitizer's memcheck and racecheck over every bundled GPU test binary (its
# ignored tests, one at a time) and every bundled example (with CHEVRON_QUICK=1: the same
# kernels and checks on small data), prints each run's summary line ("ERROR SUMMARY: N errors")
# and a final count; exits non-zero if any run reported errors, failed or timed out.
#
# Usage: scripts/sanitize.sh [BUNDLE_DIR]   (default: .gpu-bundle, with tests/ and examples/)
# Each run is limited to SANITIZE_TIMEOUT seconds (default 120), so that one slow run cannot
# use up the whole session; a run that takes longer counts as failed.
# The sticky-error test binary (sticky_gpu-*) is skipped: its kernel traps on purpose.
set -uo pipefail

bundle="${1:-.gpu-bundle}"
sanitizer="${COMPUTE_SANITIZER:-compute-sanitizer}"
if ! command -v "$sanitizer" >/dev/null 2>&1; then
    for c in /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda/compute-sanitizer/compute-sanitizer; do
        [ -x "$c" ] && sanitizer="$c" && break
    done
fi
command -v "$sanitizer" >/dev/null 2>&1 || { echo "compute-sanitizer not found" >&2; exit 2; }
limit="${SANITIZE_TIMEOUT:-120}"

total_errors=0
runs=0
failed_runs=0
log="$(mktemp)"
trap 'rm -f "$log"' EXIT

run_one() { # tool, label, command...
    local tool="$1" label="$2"
    shift 2
    # Tests run one at a time: several tests' launches at once would slow racecheck a lot and
    # the allocation-counting test counts its whole process.
    # Failed API calls are not counted (--report-api-errors no): the misuse tests make the
    # driver refuse launches on purpose, and each refusal is checked by the test itself.
    # timeout signals its whole process group (the sanitizer and the program under it) and
    # kills it 10 s later if it is still there: exit code 124, or 137 after the kill.
    RUST_TEST_THREADS=1 timeout --kill-after=10 "$limit" \
        "$sanitizer" --tool "$tool" --report-api-errors no --error-exitcode 99 \
        "$@" >"$log" 2>&1
    local rc=$?
    local summary
    summary="$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -n 1)"
    local n
    n="$(printf '%s\n' "$summary" | grep -oE '[0-9]+ (errors?|hazards?)' | grep -oE '^[0-9]+' | head -n 1)"
    n="${n:-0}"
    runs=$((runs + 1))
    total_errors=$((total_errors + n))
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        failed_runs=$((failed_runs + 1))
        printf '%-9s %-40s %s (timed out after %s s)\n' "$tool" "$label" "${summary:-no summary}" "$limit"
        tail -n 5 "$log" | sed 's/^/    /'
    elif [ "$rc" -ne 0 ] && [ "$rc" -ne 99 ]; then
        failed_runs=$((failed_runs + 1))
        printf '%-9s %-40s %s (exit code %d: the program itself failed)\n' "$tool" "$label" "${summary:-no summary}" "$rc"
        tail -n 20 "$log" | sed 's/^/    /'
    else
        printf '%-9s %-40s %s\n' "$tool" "$label" "${summary:-no summary}"
        if [ "$n" -ne 0 ]; then
            grep -E "^========= (Invalid|Error|Race|.*hazard)" "$log" | head -n 10 | sed 's/^/    /'
        fi
    fi
}

shopt -s nullglob
for bin in "$bundle"/tests/*; do
    [ -f "$bin" ] && [ -x "$bin" ] || continue
    name="$(basename "$bin")"
    case "$name" in
        sticky_gpu*) echo "skipped   $name (traps on purpose)"; continue ;;
        chevron_cuda_macros*) echo "skipped   $name (proc-macro tests, no GPU code)"; continue ;;
    esac
    for tool in memcheck racecheck; do
        run_one "$tool" "$name" "$bin" --ignored --test-threads=1
    done
done
# The examples in quick mode (small data, few repeats: soak makes 20,000 launches and 2,000
# graph replays instead of 1,000,000 and 100,000), since every access is instrumented; the tests
# above run as they are.
export CHEVRON_QUICK=1
for bin in "$bundle"/examples/*; do
    [ -f "$bin" ] && [ -x "$bin" ] || continue
    name="$(basename "$bin")"
    for tool in memcheck racecheck; do
        run_one "$tool" "examples/$name" "$bin"
    done
done

echo "sanitize: $runs runs, $total_errors errors/hazards in total, $failed_runs runs failed"
[ "$total_errors" -eq 0 ] && [ "$failed_runs" -eq 0 ]
