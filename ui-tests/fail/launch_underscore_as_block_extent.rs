//! `_` is the whole block, the kernel's own: not one extent of a block written out.
use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::{kernel, launch};

#[kernel(ptx = "kernels/kernel_block.ptx")]
fn own_shape(out: &mut CudaSlice<u32>, meta: &mut CudaSlice<u32>);

fn run(s: &CudaStream, out: &mut CudaSlice<u32>, meta: &mut CudaSlice<u32>) -> Result<(), chevron::Error> {
    unsafe { launch!(own_shape<<<5, (32, _), s>>>(out, meta)) }
}

fn main() {
    let _ = run;
}
