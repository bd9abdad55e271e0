//! A kernel compiled with `__cluster_dims__()` (`.explicitcluster`, no dimensions) launched
//! without a `cluster`: the driver would refuse it.
use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::{kernel, launch};

#[kernel(ptx = "kernels/block_size.ptx")]
fn explicit_rank(out: &mut CudaSlice<u32>);

fn run(s: &CudaStream, out: &mut CudaSlice<u32>) -> Result<(), chevron::Error> {
    unsafe { launch!(explicit_rank<<<8, 64, s>>>(out)) }?;
    // With a cluster: no error.
    unsafe { launch!(explicit_rank<<<8, 64, s, cluster = 2>>>(out)) }
}

fn main() {
    let _ = run;
}
