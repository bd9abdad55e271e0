//! Directives written in hex and octal (`.maxntid 0x100, 1, 1`, `.reqntid 0100U, 01, 0b1`), as
//! ptxas accepts them, are read: the file's kernels are usable and their rules apply.
use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::{kernel, launch};

#[kernel(ptx = "ui-tests/fixtures/kernel_hex_directives.ptx")]
fn hex_bounded(out: &mut CudaSlice<u32>);

#[kernel(ptx = "ui-tests/fixtures/kernel_hex_directives.ptx")]
fn octal_exact(out: &mut CudaSlice<u32>);

fn run(s: &CudaStream, out: &mut CudaSlice<u32>) -> Result<(), chevron::Error> {
    unsafe { launch!(hex_bounded<<<4, 512, s>>>(out)) }?;
    unsafe { launch!(octal_exact<<<4, 128, s>>>(out)) }?;
    // Within the rules: no error.
    unsafe { launch!(hex_bounded<<<4, 256, s>>>(out)) }?;
    unsafe { launch!(octal_exact<<<4, 64, s>>>(out)) }
}

fn main() {
    let _ = run;
}
