//! A kernel named like a Rust keyword: `fn r#match` finds the PTX entry `match`, and launches.
use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::{kernel, launch};

#[kernel(ptx = "kernels/raw_names.ptx")]
fn r#match(n: u32, y: &mut CudaSlice<f32>);

#[allow(dead_code)]
fn run(s: &CudaStream, y: &mut CudaSlice<f32>) -> Result<(), chevron::Error> {
    unsafe { launch!(r#match<<<1, 32, s>>>(32, y)) }
}

fn main() {
    assert_eq!(<r#match as chevron::TypedKernel>::INFO.reqntid, None);
    assert_eq!(r#match::kernel().name(), "match");
}
