#!/usr/bin/env bash
# Compile every kernels/*.cu to PTX for the widest range of GPUs and drivers it allows, and the
# PTX reader's fixtures (rules/tests/fixtures/*.cu) next to their sources.
# Usage: kernels/build.sh [OUT_DIR]   (default: the kernels dir itself, and the fixtures next to
# their sources; with OUT_DIR, the fixtures go to OUT_DIR/fixtures)
#
# Architecture: each kernel is compiled for compute_75 (Turing, the oldest nvcc 13 targets; the
# PTX runs on every later GPU through the driver's JIT) when nvcc compiles it and ptxas accepts
# the result for sm_75; a kernel that uses Hopper features (clusters, programmatic dependent
# launch: nvcc refuses it for compute_75, or its inline PTX is refused by ptxas) is compiled for
# sm_90.
#
# PTX ISA: nvcc 13.0 writes `.version 9.0` whatever the target, which only CUDA 13 drivers
# compile. The `.version` line is lowered to the oldest ISA from 8.0 (CUDA 12.0, the oldest
# driver chevron supports) on that ptxas still accepts for the file's target: ptxas checks every
# instruction against the declared ISA ("Feature 'X' requires PTX ISA .version 8.x or later"), so
# an accepted version is one the code is valid under. The kernels then load on CUDA 12.0+
# drivers.
#
# histogram.cu is compiled too, only as a check: at run time it is built by NVRTC from source, as
# are the kernels in nvrtc/. Kernels that call the CUDA device runtime (listed in RDC) are
# relocatable code (-rdc=true): chevron links them with libcudadevrt.a when their module loads.
# Kernels listed in DEBUG are built a second time with -G, as NAME_debug.ptx: debug builds call a
# `.func` for nearly every intrinsic, which chevron's checks must follow. Kernels listed in
# LINEINFO are also built with -lineinfo, as NAME_lineinfo.ptx (`.loc` lines and a `.debug_str`
# section, which the module cut for one entry keeps). Sources are compiled
# from their own directory, so that -G's `.file` lines name them relatively.
#
# variants/ holds saxpy compiled for several targets, for `ptx = [...]` variant selection tests,
# and grid_rotate, whose variants differ in their launch rules.
set -euo pipefail

dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
fixtures="$(cd "$dir/../rules/tests/fixtures" && pwd)"
if [ $# -ge 1 ]; then
    mkdir -p "$1"
    out="$(cd "$1" && pwd)"
    fixtures_out="$out/fixtures"
else
    out="$dir"
    fixtures_out="$fixtures"
fi
mkdir -p "$out/variants" "$fixtures_out"
NVCC="${NVCC:-nvcc}"
PTXAS="${PTXAS:-$(dirname "$(command -v "$NVCC")")/ptxas}"
RDC=" device_update calls conditional jacobi writes stores device_graph "
DEBUG=" grid_helpers pdl_helpers calls grid_forms writes stores module_state "
LINEINFO=" module_state "
ISAS="8.0 8.1 8.2 8.3 8.4 8.5 8.6 8.7 8.8 9.0"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# ptxas accepts $1 for target $2.
assembles() {
    "$PTXAS" -arch="$2" -c -o "$tmp/check.o" "$1" >/dev/null 2>&1
}

# Rewrites $1's `.version` to the oldest of ISAS ptxas accepts for its `.target`.
lower_isa() {
    local file="$1" target
    target="$(sed -n 's/^\.target[[:space:]]\{1,\}\([a-z0-9_]*\).*/\1/p' "$file" | head -n 1)"
    for isa in $ISAS; do
        sed "s/^\.version [0-9.]*$/.version $isa/" "$file" >"$tmp/lowered.ptx"
        if assembles "$tmp/lowered.ptx" "$target"; then
            cp "$tmp/lowered.ptx" "$file"
            echo "    .version $isa for $target"
            return
        fi
    done
    echo "    .version kept: ptxas accepts none of $ISAS for $target"
}

# Compiles $1 (a .cu in the current directory) into $2 (a .ptx) with the flags after them, then
# lowers its ISA.
compile() {
    local src="$1" dst="$2"
    shift 2
    echo "nvcc -ptx $* -o $(basename "$dst") $src"
    "$NVCC" -ptx "$@" -o "$dst" "$src"
    lower_isa "$dst"
}

# build SRC_DIR OUT_DIR: every SRC_DIR/*.cu to OUT_DIR/NAME.ptx (and NAME_debug.ptx).
build() {
    local src_dir="$1" to="$2"
    cd "$src_dir"
    for src in *.cu; do
        name="$(basename "$src" .cu)"
        flags=()
        if [[ "$RDC" == *" $name "* ]]; then
            flags+=(-rdc=true)
        fi
        arch=sm_90
        if "$NVCC" -ptx -arch=compute_75 "${flags[@]}" -o "$tmp/$name.ptx" "$src" >/dev/null 2>&1 &&
            assembles "$tmp/$name.ptx" sm_75; then
            arch=compute_75
        fi
        if [ "$name" = histogram ]; then
            # Check only: no PTX written (NVRTC builds it at run time).
            echo "nvcc -ptx -arch=$arch $name.cu (check only)"
            "$NVCC" -ptx -arch="$arch" -o "$tmp/$name.ptx" "$src"
            continue
        fi
        compile "$src" "$to/$name.ptx" -arch="$arch" "${flags[@]}"
        if [[ "$DEBUG" == *" $name "* ]]; then
            compile "$src" "$to/${name}_debug.ptx" -arch="$arch" "${flags[@]}" -G
        fi
        if [[ "$LINEINFO" == *" $name "* ]]; then
            compile "$src" "$to/${name}_lineinfo.ptx" -arch="$arch" "${flags[@]}" -lineinfo
        fi
    done
}

build "$dir" "$out"
build "$fixtures" "$fixtures_out"

# One kernel, several targets: the variants a `ptx = [...]` declaration chooses from.
cd "$dir"
compile saxpy.cu "$out/variants/saxpy_sm75.ptx" -arch=compute_75
compile saxpy.cu "$out/variants/saxpy_sm90.ptx" -arch=sm_90
compile saxpy.cu "$out/variants/saxpy_sm100.ptx" -arch=sm_100
# A kernel whose sm_90 variant syncs the grid (and bounds its block) and whose sm_75 one does
# not: the launch rules of `ptx = [...]` come from every variant.
cd "$dir/variants"
compile grid_rotate.cu "$out/variants/grid_rotate_sm75.ptx" -arch=compute_75
compile grid_rotate.cu "$out/variants/grid_rotate_sm90.ptx" -arch=sm_90
cd "$dir"
# The sm_90 variant claiming PTX ISA 9.1 (CUDA 13.1): a driver before 13.1 cannot load it, and
# chevron says so before asking the driver. Not assembled (ptxas 13.0 does not know 9.1).
sed 's/^\.version [0-9.]*$/.version 9.1/' "$out/variants/saxpy_sm90.ptx" >"$out/variants/saxpy_isa91.ptx"
echo "saxpy_sm90.ptx with .version 9.1 -> variants/saxpy_isa91.ptx"

"$NVCC" --version | tail -n 1
