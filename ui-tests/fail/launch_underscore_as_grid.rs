//! `_` stands for the kernel's own block shape, in the block position only: not the grid.
use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::{kernel, launch};

#[kernel(ptx = "kernels/kernel_block.ptx")]
fn own_shape(out: &mut CudaSlice<u32>, meta: &mut CudaSlice<u32>);

fn run(s: &CudaStream, out: &mut CudaSlice<u32>, meta: &mut CudaSlice<u32>) -> Result<(), chevron::Error> {
    unsafe { launch!(own_shape<<<_, (32, 4), s>>>(out, meta)) }
}

fn main() {
    let _ = run;
}
