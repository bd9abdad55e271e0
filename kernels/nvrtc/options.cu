// Built with options from the declaration: SCALE must be defined (`-DSCALE=…`), and the code
// needs C++17 (`-std=c++17`: `if constexpr`, inline variables).
#ifndef SCALE
#error "compile with -DSCALE=<integer>"
#endif

inline constexpr int kScale = SCALE;

// out[i] = kScale * i (+ 0.5 when HALF_STEP is defined).
extern "C" __global__ void fill_scaled(float* out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = (float)(kScale * i);
        if constexpr (kScale > 0) {
#ifdef HALF_STEP
            v += 0.5f;
#endif
        }
        out[i] = v;
    }
}
