//! A literal block other than the kernel's `.reqntid`, and a cluster over its `.maxclusterrank`.
use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::{kernel, launch};

#[kernel(ptx = "ui-tests/fixtures/fit_reqntid.ptx")]
fn exact_block(out: &mut CudaSlice<u32>);

fn run(s: &CudaStream, out: &mut CudaSlice<u32>) -> Result<(), chevron::Error> {
    unsafe { launch!(exact_block<<<4, (64, 2), s>>>(out)) }?;
    unsafe { launch!(exact_block<<<8, 128, s, cluster = 8>>>(out)) }?;
    unsafe { launch!(exact_block<<<8, 128, s, cluster = 4>>>(out)) }
}

fn main() {
    let _ = run;
}
