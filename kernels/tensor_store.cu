// A tensor-core store, then a read of what it stored: tests/tensor_store_gpu.rs launches
// `wmma_tiles` on one stream and `sum_tiles` on another. `wmma_tiles` writes `c` only through
// `wmma.store` (no `st`), so its declaration must take `c` as `&mut` for cudarc to order the
// second stream's read after the store.
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;

// One warp per 16x16 tile: c[tile] = reps · (a[tile] · b), a row-major, b column-major, each
// product summed `reps` times (slow on purpose, so that an unordered read would see old values).
extern "C" __global__ void wmma_tiles(const half* a, const half* b, float* c, unsigned tiles,
                                      unsigned reps) {
    unsigned tile = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    if (tile >= tiles) return;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::fill_fragment(fc, 0.0f);
    wmma::load_matrix_sync(fa, a + tile * 256, 16);
    wmma::load_matrix_sync(fb, b, 16);
    for (unsigned r = 0; r < reps; ++r) wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(c + tile * 256, fc, 16, wmma::mem_row_major);
}

// out[t] = the sum of tile t of c (one thread per tile).
extern "C" __global__ void sum_tiles(const float* c, float* out, unsigned tiles) {
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= tiles) return;
    float s = 0.0f;
    for (unsigned i = 0; i < 256; ++i) s += c[t * 256 + i];
    out[t] = s;
}
