//! Two kernels of one name: a launch is checked against the kernel it names, whatever other
//! declarations of the name exist (here one declared first that fixes nothing).
use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::launch;

mod free {
    use chevron::cudarc::driver::CudaSlice;
    use chevron::kernel;

    #[kernel(ptx = "kernels/saxpy.ptx", name = "saxpy")]
    pub fn exact_block(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);
}

mod fixed {
    use chevron::cudarc::driver::CudaSlice;
    use chevron::kernel;

    #[kernel(ptx = "ui-tests/fixtures/fit_reqntid.ptx")]
    pub fn exact_block(out: &mut CudaSlice<u32>);
}

use fixed::exact_block;

fn run(s: &CudaStream, out: &mut CudaSlice<u32>) -> Result<(), chevron::Error> {
    let _ = free::exact_block::kernel;
    unsafe { launch!(exact_block<<<4, 64, s>>>(out)) }
}

fn main() {
    let _ = run;
}
