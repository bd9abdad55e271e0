//! CUDA C compiled by NVRTC at run time: checked against the declaration before the first launch.
use chevron::cudarc::driver::{CudaSlice, CudaView};
use chevron::kernel;

/// 256-bin byte histogram.
#[allow(deprecated)] // without nvcc: checked at run time only (a warning otherwise)
#[kernel(cuda = "kernels/histogram.cu")]
pub fn histogram(bins: &mut CudaSlice<u32>, data: &CudaView<'_, u8>, len: u32);

fn main() {
    // Only names and types: the kernel is compiled at its first use in a CUDA context.
    assert_eq!(histogram::kernel().name(), "histogram");
    let _ = |ctx: &std::sync::Arc<chevron::cudarc::driver::CudaContext>| histogram::kernel().function(ctx);
}
