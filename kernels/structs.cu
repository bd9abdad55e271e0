// affine: passes a user struct by value (PTX sees it as `.align 8 .b8 [16]`).
// y[i] = x[i] * p.scale + p.offset + p.bias.

// Layout must match the Rust #[repr(C)] mirror: size 16, align 8.
struct Affine {
    float scale;  // offset 0
    int offset;   // offset 4
    double bias;  // offset 8
};

static_assert(sizeof(Affine) == 16, "Affine must be 16 bytes");
static_assert(alignof(Affine) == 8, "Affine must be 8-aligned");

extern "C" __global__ void affine(Affine p, const float* x, float* y, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = (float)((double)(x[i] * p.scale) + (double)p.offset + p.bias);
    }
}
