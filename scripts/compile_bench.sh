#!/usr/bin/env bash
# Compile-time cost of chevron's macros: `cargo check` of a crate with 100 `#[kernel]`
# declarations and 200 `launch!` sites, against the same 200 launches written with cudarc's
# `launch_builder` (functions loaded by hand, arguments pushed one by one) in a crate that
# depends on cudarc only.
#
# Usage: scripts/compile_bench.sh [RUNS]   (default 5)
#   CHEVRON_DIR   the chevron workspace to measure (default: this repository)
#   BENCH_DIR     where the two crates and their target directory go (default: target/compile-bench)
#
# Both crates are generated fresh, checked once to build their dependencies, then checked RUNS
# more times after touching their source, in interleaved rounds (chevron, then cudarc); the
# medians and spreads are printed, with the median CPU time (user + system, which a loaded
# machine moves less than wall time), and the median of the rounds' ratios. Only
# the crate itself is re-checked each time, so the numbers are the macros' cost (chevron) against
# plain rustc on the same calls (cudarc). CHEVRON_NVCC=0: no nvcc during the check (the
# declarations are PTX; nothing would run it anyway).
#
# OPT_MACROS=1: the chevron crate's manifest also sets `[profile.dev.build-override]
# opt-level = 3` (guide/src/costs.md), so that Cargo builds the proc macros optimised; its
# target directory is then its own (`$BENCH_DIR/target-opt`), the first build compiles them.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
chevron="$(cd "${CHEVRON_DIR:-$here}" && pwd)"
runs="${1:-5}"
bench="${BENCH_DIR:-$here/target/compile-bench}"
mkdir -p "$bench"
bench="$(cd "$bench" && pwd)"
export CARGO_TARGET_DIR="$bench/target" CARGO_INCREMENTAL=0 CHEVRON_NVCC=0
if [ "${OPT_MACROS:-0}" = 1 ]; then
    export CARGO_TARGET_DIR="$bench/target-opt"
fi
unset CARGO_MAKEFLAGS

KERNELS=100
LAUNCHES=200

manifest() { # name, extra dependencies
    cat <<EOF
[package]
name = "$1"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
$2

[workspace]
EOF
}

gen_chevron() {
    local dir="$bench/chevron-macros"
    rm -rf "$dir" && mkdir -p "$dir/src" "$dir/kernels"
    manifest bench-chevron-macros "chevron-cuda = { path = \"$chevron\" }" >"$dir/Cargo.toml"
    if [ "${OPT_MACROS:-0}" = 1 ]; then
        printf '\n[profile.dev.build-override]\nopt-level = 3\n' >>"$dir/Cargo.toml"
    fi
    cp "$chevron/kernels/saxpy.ptx" "$dir/kernels/saxpy.ptx"
    {
        echo "//! $KERNELS #[kernel] declarations, $LAUNCHES launch! sites."
        echo "#![allow(clippy::all)]"
        echo "use chevron::cudarc::driver::{CudaSlice, CudaStream};"
        echo "use chevron::{kernel, launch};"
        for ((k = 0; k < KERNELS; k++)); do
            echo "#[kernel(ptx = \"kernels/saxpy.ptx\", name = \"saxpy\")]"
            echo "pub fn k$k(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);"
        done
        echo "pub fn run(s: &CudaStream, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>, n: u32) -> Result<(), chevron::Error> {"
        for ((l = 0; l < LAUNCHES; l++)); do
            k=$((l % KERNELS))
            echo "    unsafe { launch!(k$k<<<n.div_ceil(256), 256, s>>>(n, $l.0, x, y)) }?;"
        done
        echo "    Ok(())"
        echo "}"
    } >"$dir/src/lib.rs"
}

gen_cudarc() {
    local dir="$bench/cudarc-builder"
    rm -rf "$dir" && mkdir -p "$dir/src"
    # cudarc alone, as a crate that never heard of chevron would use it: the version and
    # features chevron's workspace builds it with (so that the lockfile resolves the same
    # cudarc), and no chevron in the dependency graph. A chevron dependency (what this baseline
    # once had) slows the baseline's check, which then reads 1.86× where a plain crate reads
    # about 3×.
    manifest bench-cudarc-builder "$cudarc_dep" >"$dir/Cargo.toml"
    {
        echo "//! $LAUNCHES launches with cudarc's launch_builder, $KERNELS functions."
        echo "#![allow(clippy::all)]"
        echo "use cudarc::driver::{CudaFunction, CudaModule, CudaSlice, CudaStream, LaunchConfig, PushKernelArg, DriverError};"
        echo "use std::sync::Arc;"
        echo "pub struct Kernels {"
        for ((k = 0; k < KERNELS; k++)); do
            echo "    pub k$k: CudaFunction,"
        done
        echo "}"
        echo "impl Kernels {"
        echo "    pub fn load(m: &Arc<CudaModule>) -> Result<Self, DriverError> {"
        echo "        Ok(Self {"
        for ((k = 0; k < KERNELS; k++)); do
            echo "            k$k: m.load_function(\"saxpy\")?,"
        done
        echo "        })"
        echo "    }"
        echo "}"
        echo "pub fn run(k: &Kernels, s: &Arc<CudaStream>, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>, n: u32) -> Result<(), DriverError> {"
        echo "    let cfg = LaunchConfig { grid_dim: (n.div_ceil(256), 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };"
        for ((l = 0; l < LAUNCHES; l++)); do
            kk=$((l % KERNELS))
            echo "    { let a = $l.0f32; let mut b = s.launch_builder(&k.k$kk); b.arg(&n).arg(&a).arg(x).arg(&mut *y); unsafe { b.launch(cfg) }?; }"
        done
        echo "    Ok(())"
        echo "}"
    } >"$dir/src/lib.rs"
}

# One timed `cargo check` of crate $1 after touching its source: "wall cpu" in seconds (CPU:
# user + system, which a loaded machine moves less than wall time).
check_once() {
    local dir="$1" TIMEFORMAT='%R %U %S' t real user sys
    touch "$dir/src/lib.rs"
    t=$({ time (cd "$dir" && CHEVRON_MANIFEST_DIR="$dir" cargo check --offline --quiet); } 2>&1)
    read -r real user sys <<<"$t"
    echo "$real $(echo "$user + $sys" | bc -l)"
}

# The median, the lowest and the highest of the numbers on stdin.
median() {
    sort -n | awk '
        { t[NR] = $1 }
        END {
            m = (NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2
            printf "%.3f %.3f %.3f\n", m, t[1], t[NR]
        }'
}

# chevron's own cudarc requirement, with the CUDA version of chevron's default feature.
cudarc_dep="$(sed -n 's/^cudarc = { \(.*\) }$/\1/p' "$chevron/Cargo.toml")"
[ -n "$cudarc_dep" ] || { echo "no cudarc line in $chevron/Cargo.toml" >&2; exit 1; }
cuda_feature="$(sed -n 's/^default = \["\(cuda-[0-9]*\)"\]$/\1/p' "$chevron/Cargo.toml")"
cudarc_dep="cudarc = { ${cudarc_dep%]}, \"$cuda_feature\"] }"

gen_chevron
gen_cudarc
cp "$chevron/Cargo.lock" "$bench/chevron-macros/Cargo.lock"
cp "$chevron/Cargo.lock" "$bench/cudarc-builder/Cargo.lock"
echo "chevron: $chevron ($(cd "$chevron" && git rev-parse --short HEAD 2>/dev/null || echo '?'))$([ "${OPT_MACROS:-0}" = 1 ] && echo ', proc macros optimised (OPT_MACROS=1)')"
echo "$KERNELS #[kernel] declarations + $LAUNCHES launch! sites vs $LAUNCHES cudarc launch_builder calls; cargo check, $runs runs each after a warm-up"
for dir in "$bench/chevron-macros" "$bench/cudarc-builder"; do
    (cd "$dir" && CHEVRON_MANIFEST_DIR="$dir" cargo check --offline --quiet 2>&1) || {
        echo "cargo check of $dir failed" >&2
        exit 1
    }
done
# Interleaved: each round checks both crates, one after the other, so that a change of the
# machine's load moves both; the ratio is taken within each round.
cw=() cc=() bw=() bc=() ratios=() cratios=()
for ((r = 0; r < runs; r++)); do
    read -r w c < <(check_once "$bench/chevron-macros")
    read -r w2 c2 < <(check_once "$bench/cudarc-builder")
    cw+=("$w") cc+=("$c") bw+=("$w2") bc+=("$c2")
    ratios+=("$(echo "$w / $w2" | bc -l)") cratios+=("$(echo "$c / $c2" | bc -l)")
done
read -r cm clo chi < <(printf '%s\n' "${cw[@]}" | median)
read -r ccpu _ _ < <(printf '%s\n' "${cc[@]}" | median)
read -r bm blo bhi < <(printf '%s\n' "${bw[@]}" | median)
read -r bcpu _ _ < <(printf '%s\n' "${bc[@]}" | median)
read -r rm rlo rhi < <(printf '%s\n' "${ratios[@]}" | median)
read -r rcpu _ _ < <(printf '%s\n' "${cratios[@]}" | median)
printf 'chevron macros:         median %.2f s (%.2f–%.2f), CPU %.2f s\n' "$cm" "$clo" "$chi" "$ccpu"
printf 'cudarc launch_builder:  median %.2f s (%.2f–%.2f), CPU %.2f s\n' "$bm" "$blo" "$bhi" "$bcpu"
printf 'ratio (median of %d interleaved rounds): %.2f× (%.2f–%.2f; CPU %.2f×)\n' "$runs" "$rm" "$rlo" "$rhi" "$rcpu"
