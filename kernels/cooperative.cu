// grid_rotate: needs a cooperative launch (grid-wide sync).
// Phase 1: tmp[t] = in[t] * 3. grid.sync(). Phase 2: out[t] = tmp[(t +
// blockDim.x) % n], i.e. each thread reads a value written by *another
// block*, which is only correct if the grid-wide barrier really happened.
// n must equal the total number of threads in the grid.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

extern "C" __global__ void grid_rotate(const int* in, int* tmp, int* out, unsigned int n)
{
    cg::grid_group grid = cg::this_grid();
    unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n) {
        tmp[t] = in[t] * 3;
    }
    grid.sync();
    if (t < n) {
        out[t] = tmp[(t + blockDim.x) % n];
    }
}
