// Jacobi relaxation until converged, decided on the GPU (examples/conditional_jacobi.rs).
//
// Solves the screened Poisson equation -u'' + s·u = b on n points with u = 0 outside, as the
// linear system (2 + s·h²)·u[i] - u[i-1] - u[i+1] = h²·b[i]: `rhs` holds h²·b and `inv_diag`
// 1 / (2 + s·h²). One sweep per launch, from u0 to u1 on even iterations and back on odd ones.
// state[0] = iterations done, state[1] = the sweep's largest |change| (float bits: non-negative
// floats order as their bits), state[2] = blocks done with this sweep, state[3] = go on (0/1).
// The last block to finish a sweep decides: go on while the change is over `tol` and fewer than
// `max_iter` sweeps ran; inside a graph (`in_graph` = 1) it also sets the WHILE node's condition.
// The arithmetic is (left + right + rhs) * inv_diag in that order, no fused multiply-add
// possible, so the host reference computes the same bits.
//
// cudaGraphSetConditional is in the CUDA device runtime: compiled with -rdc=true (build.sh),
// linked with libcudadevrt when the module loads.

extern "C" __global__ void jacobi_init(unsigned int n, float* u0, float* u1, unsigned int* state)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        u0[i] = 0.0f;
        u1[i] = 0.0f;
    }
    if (i < 4) {
        state[i] = i == 3 ? 1u : 0u;
    }
}

extern "C" __global__ void jacobi_step(cudaGraphConditionalHandle handle, unsigned int in_graph,
                                       unsigned int n, const float* rhs, float inv_diag, float tol,
                                       unsigned int max_iter, float* u0, float* u1,
                                       unsigned int* state)
{
    __shared__ unsigned int block_max;
    __shared__ unsigned int last;
    // Every block reads it before taking its ticket below; the last block moves it on after.
    unsigned int iter = state[0];
    const float* src = (iter & 1u) ? u1 : u0;
    float* dst = (iter & 1u) ? u0 : u1;
    if (threadIdx.x == 0) {
        block_max = 0u;
    }
    __syncthreads();
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float left = i > 0 ? src[i - 1] : 0.0f;
        float right = i + 1 < n ? src[i + 1] : 0.0f;
        float v = (left + right + rhs[i]) * inv_diag;
        dst[i] = v;
        atomicMax(&block_max, __float_as_uint(fabsf(v - src[i])));
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        atomicMax(&state[1], block_max);
        __threadfence();
        last = atomicAdd(&state[2], 1u) == gridDim.x - 1 ? 1u : 0u;
    }
    __syncthreads();
    if (last && threadIdx.x == 0) {
        __threadfence();
        float change = __uint_as_float(atomicAdd(&state[1], 0u));
        unsigned int done = iter + 1u;
        unsigned int go = (change > tol && done < max_iter) ? 1u : 0u;
        state[1] = 0u;
        state[2] = 0u;
        state[3] = go;
        state[0] = done;
        if (in_graph) {
            cudaGraphSetConditional(handle, go);
        }
    }
}
