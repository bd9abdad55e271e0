// Included by common.cuh as "detail/math.cuh"; NVRTC gets it under that name.
#pragma once

__device__ inline float squared(float x) { return x * x; }
