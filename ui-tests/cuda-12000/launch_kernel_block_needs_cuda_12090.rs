// Built with `--no-default-features --features cuda-12000`: `_` (the kernel's own block shape,
// CU_LAUNCH_KERNEL_REQUIRED_BLOCK_DIM) names the feature that has it (CUDA 12.9).
use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::{config, kernel, launch};

// `.reqntid 128, 1, 1`, PTX ISA 8.0 (a CUDA 12.0 driver loads it).
#[kernel(ptx = "ui-tests/fixtures/fit_reqntid.ptx")]
fn exact_block(out: &mut CudaSlice<u32>);

fn run(s: &CudaStream, out: &mut CudaSlice<u32>) -> Result<(), chevron::Error> {
    let _cfg = config!(<<<3, _>>>);
    unsafe { launch!(exact_block<<<3, _, s>>>(out)) }
}

fn main() {
    let _ = run;
}
