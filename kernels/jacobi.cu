// Jacobi relaxation until converged, decided on the GPU (examples/conditional_jacobi.rs).
//
// Solves the screened Poisson equation -u'' + s·u = b on n points with u = 0 outside, as the
// linear system (2 + s·h²)·u[i] - u[i-1] - u[i+1] = h²·b[i]: `rhs` holds h²·b and `inv_diag`
// 1 / (2 + s·h²). The arithmetic is (left + right + rhs) * inv_diag in that order, no fused
// multiply-add possible, so the host reference computes the same bits. A sweep goes on while
// the largest |change| of the sweep before is over `tol` and fewer than `max_iter` sweeps ran.
//
// Two ways to decide, both with no __threadfence and no atomic on shared memory:
// - jacobi_step: one sweep per launch, decided by the last block to finish it (one 64-bit
//   atomicAdd per block, whose high half counts the blocks and low half the blocks that changed
//   something by more than `tol`); for a WHILE body of one launch.
// - jacobi_sweep: one sweep per launch, which first tests the sweep before it (its largest
//   change, left by a fire-and-forget 64-bit atomicMax per block) and does nothing once the
//   solve is over; for a WHILE body of several launches, alternating the two parities.
//
// cudaGraphSetConditional is in the CUDA device runtime: compiled with -rdc=true (build.sh),
// linked with libcudadevrt when the module loads.

// u0 = u1 = 0; state = [0 sweeps done, go on = 1, ticket = 0 (two words)].
extern "C" __global__ void jacobi_init(unsigned int n, float* u0, float* u1, unsigned int* state)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        u0[i] = 0.0f;
        u1[i] = 0.0f;
    }
    if (i < 4) {
        state[i] = i == 1 ? 1u : 0u;
    }
}

// One sweep, from u0 to u1 after an even number of sweeps and back after an odd one.
// state[0] = sweeps done, state[1] = go on (0/1), state[2..4] = the sweep's ticket (a 64-bit
// word, 8-byte aligned). Each block reads state[0] before it takes its ticket; the last block
// to take one (every other block has read state[0] by then) moves state[0] on, resets the
// ticket, and inside a graph (`in_graph` = 1) sets the WHILE node's condition.
extern "C" __global__ void jacobi_step(cudaGraphConditionalHandle handle, unsigned int in_graph,
                                       unsigned int n, const float* rhs, float inv_diag, float tol,
                                       unsigned int max_iter, float* u0, float* u1,
                                       unsigned int* state)
{
    unsigned int iter = state[0];
    const float* src = (iter & 1u) ? u1 : u0;
    float* dst = (iter & 1u) ? u0 : u1;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    int over = 0;
    if (i < n) {
        float c = src[i];
        float left = i > 0 ? src[i - 1] : 0.0f;
        float right = i + 1 < n ? src[i + 1] : 0.0f;
        float v = (left + right + rhs[i]) * inv_diag;
        dst[i] = v;
        over = fabsf(v - c) > tol;
    }
    // Any element over the tolerance <=> the sweep's largest change over it.
    int block_over = __syncthreads_or(over);
    if (threadIdx.x == 0) {
        unsigned long long* ticket = reinterpret_cast<unsigned long long*>(state + 2);
        unsigned long long old =
            atomicAdd(ticket, (1ull << 32) | (block_over ? 1ull : 0ull));
        if (static_cast<unsigned int>(old >> 32) == gridDim.x - 1u) {
            bool any_over = block_over || static_cast<unsigned int>(old) != 0u;
            unsigned int done = iter + 1u;
            unsigned int go = (any_over && done < max_iter) ? 1u : 0u;
            *ticket = 0ull;
            state[1] = go;
            state[0] = done;
            if (in_graph) {
                cudaGraphSetConditional(handle, go);
            }
        }
    }
}

// u0 = u1 = 0; state = [sweep 0 "changed by +inf" (parity 0), nothing yet (parity 1), running].
extern "C" __global__ void jacobi_sweep_init(unsigned int n, float* u0, float* u1,
                                             unsigned long long* state)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        u0[i] = 0.0f;
        u1[i] = 0.0f;
    }
    if (i < 3) {
        state[i] = i == 0 ? 0x7f800000ull : 0ull;
    }
}

// Sweep t = (sweeps done) + 1, of parity `parity` = t & 1: from `src` to `dst` (u0 to u1 for an
// odd sweep), once the sweep before it (t - 1) is known to need a successor.
// state[p], p = 0 or 1: (sweep << 32) | the float bits of its largest |change|, for the last
// sweep of parity p; non-negative floats order as their bits, and a later sweep's tag is larger,
// so the slot needs no reset: each block atomicMax-es its own largest change in, tagged t.
// state[2]: 0 while the solve runs; (1 << 32) | sweeps done once a sweep found its predecessor
// was the last. Sweep t reads state[2] and state[p ^ 1] (written by sweeps before it, complete
// when it starts) and writes state[p]: no block waits for another. Once the solve is over every
// later launch returns at once; the first of them sets the WHILE node's condition to 0 inside a
// graph (`in_graph` = 1). blockDim.x is a multiple of 32, at most 1024.
extern "C" __global__ void jacobi_sweep(cudaGraphConditionalHandle handle, unsigned int in_graph,
                                        unsigned int parity, unsigned int n, const float* rhs,
                                        float inv_diag, float tol, unsigned int max_iter,
                                        const float* src, float* dst, unsigned long long* state)
{
    __shared__ unsigned int warp_max[32];
    // The sweep's loads first: they do not depend on the test below, so their latency and the
    // state's overlap (a launch that returns has read them for nothing).
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    float c = 0.0f, left = 0.0f, right = 0.0f, b = 0.0f;
    if (i < n) {
        c = src[i];
        left = i > 0 ? src[i - 1] : 0.0f;
        right = i + 1 < n ? src[i + 1] : 0.0f;
        b = rhs[i];
    }
    // Every thread reads the same words: no block or thread of this launch writes state[p ^ 1],
    // and state[2] only once state[p ^ 1] says the solve is over (so all threads return alike).
    unsigned long long stopped = *reinterpret_cast<volatile unsigned long long*>(&state[2]);
    unsigned long long prev = *reinterpret_cast<volatile unsigned long long*>(&state[parity ^ 1u]);
    if (stopped != 0ull) {
        return;
    }
    unsigned int done = static_cast<unsigned int>(prev >> 32);
    float change = __uint_as_float(static_cast<unsigned int>(prev));
    if (!(change > tol && done < max_iter)) {
        // Every block sees the same predecessor: all return; block 0 records the end. (A block
        // of this launch reading state[2] after block 0 wrote it returns just the same.)
        if (blockIdx.x == 0 && threadIdx.x == 0) {
            state[2] = (1ull << 32) | done;
            if (in_graph) {
                cudaGraphSetConditional(handle, 0u);
            }
        }
        return;
    }
    unsigned int bits = 0u;
    if (i < n) {
        float v = (left + right + b) * inv_diag;
        dst[i] = v;
        bits = __float_as_uint(fabsf(v - c));
    }
    bits = __reduce_max_sync(0xffffffffu, bits);
    unsigned int lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    if (lane == 0u) {
        warp_max[warp] = bits;
    }
    __syncthreads();
    if (warp == 0u) {
        unsigned int w = lane < (blockDim.x >> 5) ? warp_max[lane] : 0u;
        w = __reduce_max_sync(0xffffffffu, w);
        if (lane == 0u) {
            atomicMax(&state[parity], (static_cast<unsigned long long>(done + 1u) << 32) | w);
        }
    }
}
