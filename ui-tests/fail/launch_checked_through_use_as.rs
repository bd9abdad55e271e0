//! A kernel renamed by `use … as k` (and by `type`) next to an unrelated kernel called `k` that
//! fixes nothing: the launch is checked against the kernel it resolves to.
use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::launch;

mod unrelated {
    use chevron::cudarc::driver::CudaSlice;
    use chevron::kernel;

    #[kernel(ptx = "kernels/saxpy.ptx", name = "saxpy")]
    pub fn k(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);
}

mod bounded {
    use chevron::cudarc::driver::CudaSlice;
    use chevron::kernel;

    #[kernel(ptx = "ui-tests/fixtures/fit_reqntid.ptx")]
    pub fn exact_block(out: &mut CudaSlice<u32>);
}

use bounded::exact_block as k;
type Alias = bounded::exact_block;

fn run(s: &CudaStream, out: &mut CudaSlice<u32>) -> Result<(), chevron::Error> {
    let _ = unrelated::k::kernel;
    unsafe { launch!(k<<<4, 64, s>>>(&mut *out)) }?;
    unsafe { launch!(Alias<<<4, 32, s>>>(out)) }?;
    Ok(())
}

fn main() {
    let _ = run;
}
