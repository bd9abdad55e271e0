//! Scratch rule: `cooperative` on an `.explicitcluster` kernel.
use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::{kernel, launch};

#[kernel(ptx = "kernels/block_size.ptx")]
fn explicit_rank(out: &mut CudaSlice<u32>);

fn run(s: &CudaStream, out: &mut CudaSlice<u32>) -> Result<(), chevron::Error> {
    unsafe { launch!(explicit_rank<<<8, 64, s, cluster = 2, cooperative>>>(out)) }
}

fn main() {
    let _ = run;
}
