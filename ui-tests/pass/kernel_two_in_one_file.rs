//! Two kernels from one PTX file (they share one module per context at run time).
use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

#[kernel(ptx = "kernels/pipeline.ptx")]
pub fn produce(buf: &mut CudaSlice<f32>, v: f32, n: u32, spin: u32);

#[kernel(ptx = "kernels/pipeline.ptx")]
pub fn consume(input: &CudaSlice<f32>, out: &mut CudaSlice<f32>, n: u32);

fn main() {
    assert_eq!(produce::kernel().name(), "produce");
    assert_eq!(consume::kernel().name(), "consume");
}
