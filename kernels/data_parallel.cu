// The data-parallel step of examples/data_parallel.rs: a linear model with one weight per
// feature, y ≈ w ⊙ x, trained on a batch split over the GPUs.

// g[j] = sum over this GPU's samples i of x[i][j] * (w[j] * x[i][j] - y[i][j]): the gradient of
// half the squared error over the shard (one thread per feature, reads coalesced across j).
extern "C" __global__ void dp_grad(unsigned int samples, unsigned int features, const float* w,
                                   const float* x, const float* y, float* g)
{
    unsigned int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= features) {
        return;
    }
    float wj = w[j];
    float acc = 0.0f;
    for (unsigned int i = 0; i < samples; ++i) {
        float xi = x[(size_t)i * features + j];
        acc += xi * (wj * xi - y[(size_t)i * features + j]);
    }
    g[j] = acc;
}

// w[j] -= scale * g[j], with g summed over every GPU (the all-reduce) and scale = rate / batch.
extern "C" __global__ void dp_update(unsigned int features, float scale, const float* g, float* w)
{
    unsigned int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < features) {
        w[j] -= scale * g[j];
    }
}
