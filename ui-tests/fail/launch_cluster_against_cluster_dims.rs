//! A literal cluster that differs from the kernel's `__cluster_dims__(2, 1, 1)`, and a grid
//! that is not a whole number of its clusters.
use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::{kernel, launch};

#[kernel(ptx = "ui-tests/fixtures/fit_bounds.ptx")]
fn clustered_rank(out: &mut CudaSlice<u32>);

fn run(s: &CudaStream, out: &mut CudaSlice<u32>) -> Result<(), chevron::Error> {
    unsafe { launch!(clustered_rank<<<8, 32, s, cluster = 4>>>(out)) }?;
    unsafe { launch!(clustered_rank<<<(7, 1), 32, s>>>(out)) }?;
    // The compiled-in cluster, given or not, with a whole number of clusters: no error.
    unsafe { launch!(clustered_rank<<<8, 32, s, cluster = (2, 1, 1)>>>(out)) }?;
    unsafe { launch!(clustered_rank<<<8, 32, s>>>(out)) }
}

fn main() {
    let _ = run;
}
