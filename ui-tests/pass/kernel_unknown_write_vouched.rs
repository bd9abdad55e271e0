//! A pointer passed to code the PTX does not hold (another module, a function pointer) may be
//! declared read-only when the declaration vouches for it with `#[read_only]`.
use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

#[kernel(ptx = "rules/tests/fixtures/stores.ptx")]
fn extern_only(#[read_only] q: &CudaSlice<f32>);

#[kernel(ptx = "rules/tests/fixtures/stores_debug.ptx")]
fn indirect(#[read_only] p: &CudaSlice<f32>, k: i32);

fn main() {
    let _ = (extern_only::kernel(), indirect::kernel());
}
