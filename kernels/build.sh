#!/usr/bin/env bash
# Compile every kernels/*.cu to PTX for sm_90 (H200).
# Usage: kernels/build.sh [OUT_DIR]   (default: the kernels dir itself)
# histogram.cu is compiled too, only as a check: at run time it is built by
# NVRTC from source. Kernels that call the CUDA device runtime (listed in RDC) are relocatable
# code (-rdc=true): chevron links them with libcudadevrt.a when their module loads.
set -euo pipefail

dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:-$dir}"
mkdir -p "$out"
NVCC="${NVCC:-nvcc}"
RDC=" device_update conditional jacobi "

for src in "$dir"/*.cu; do
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
    echo "nvcc ${flags[*]} -o $out/$name.ptx $name.cu"
    "$NVCC" "${flags[@]}" -o "$out/$name.ptx" "$src"
done

"$NVCC" --version | tail -n 1
