#!/usr/bin/env bash
# Compile every kernels/*.cu to PTX for sm_90 (H200), and the PTX reader's fixtures
# (spec/tests/fixtures/*.cu) next to their sources.
# Usage: kernels/build.sh [OUT_DIR]   (default: the kernels dir itself; fixtures always go to
# spec/tests/fixtures)
# histogram.cu is compiled too, only as a check: at run time it is built by
# NVRTC from source. Kernels that call the CUDA device runtime (listed in RDC) are relocatable
# code (-rdc=true): chevron links them with libcudadevrt.a when their module loads. Kernels
# listed in DEBUG are built a second time with -G, as NAME_debug.ptx: debug builds call a
# `.func` for nearly every intrinsic, which chevron's checks must follow.
# Sources are compiled from their own directory, so that -G's `.file` lines name them relatively.
set -euo pipefail

dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:-$dir}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
NVCC="${NVCC:-nvcc}"
RDC=" device_update calls conditional jacobi "
DEBUG=" grid_helpers pdl_helpers calls grid_forms "

# build SRC_DIR OUT_DIR: every SRC_DIR/*.cu to OUT_DIR/NAME.ptx (and NAME_debug.ptx).
build() {
    local src_dir="$1" to="$2"
    cd "$src_dir"
    for src in *.cu; do
        name="$(basename "$src" .cu)"
        if [ "$name" = histogram ]; then
            # Check only: no PTX written (NVRTC builds it at run time).
            echo "nvcc -ptx -arch=sm_90 $name.cu (check only)"
            tmp="$(mktemp -d)"
            "$NVCC" -ptx -arch=sm_90 -o "$tmp/$name.ptx" "$src"
            rm -rf "$tmp"
            continue
        fi
        flags=(-ptx -arch=sm_90)
        if [[ "$RDC" == *" $name "* ]]; then
            flags+=(-rdc=true)
        fi
        echo "nvcc ${flags[*]} -o $to/$name.ptx $name.cu"
        "$NVCC" "${flags[@]}" -o "$to/$name.ptx" "$src"
        if [[ "$DEBUG" == *" $name "* ]]; then
            echo "nvcc ${flags[*]} -G -o $to/${name}_debug.ptx $name.cu"
            "$NVCC" "${flags[@]}" -G -o "$to/${name}_debug.ptx" "$src"
        fi
    done
}

build "$dir" "$out"
build "$dir/../spec/tests/fixtures" "$(cd "$dir/../spec/tests/fixtures" && pwd)"

"$NVCC" --version | tail -n 1
