#!/usr/bin/env bash
# Runs compute-sanitizer's memcheck and racecheck over every bundled GPU test binary (its
# ignored tests, one at a time) and every bundled example, prints each run's summary line
# ("ERROR SUMMARY: N errors") and a final count; exits non-zero if any run reported errors or
# failed.
#
# Usage: scripts/sanitize.sh [BUNDLE_DIR]   (default: .gpu-bundle, with tests/ and examples/)
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
    RUST_TEST_THREADS=1 "$sanitizer" --tool "$tool" --report-api-errors no --error-exitcode 99 \
        "$@" >"$log" 2>&1
    local rc=$?
    local summary
    summary="$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -n 1)"
    local n
    n="$(printf '%s\n' "$summary" | grep -oE '[0-9]+ (errors?|hazards?)' | grep -oE '^[0-9]+' | head -n 1)"
    n="${n:-0}"
    runs=$((runs + 1))
    total_errors=$((total_errors + n))
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 99 ]; then
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
for bin in "$bundle"/examples/*; do
    [ -f "$bin" ] && [ -x "$bin" ] || continue
    name="$(basename "$bin")"
    for tool in memcheck racecheck; do
        # The soak example makes 1,000,000 launches, far too many under a sanitizer (every
        # launch is instrumented); its launch is the one the tests make many times over.
        if [ "$name" = soak ] && [ -z "${SANITIZE_SOAK:-}" ]; then
            echo "skipped   $tool $name (1,000,000 launches; SANITIZE_SOAK=1 to include)"
            continue
        fi
        run_one "$tool" "examples/$name" "$bin"
    done
done

echo "sanitize: $runs runs, $total_errors errors/hazards in total, $failed_runs runs failed"
[ "$total_errors" -eq 0 ] && [ "$failed_runs" -eq 0 ]
