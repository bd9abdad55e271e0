// A block's tail that names the block's own `let` of an unsuffixed literal is as untyped as the
// literal: `&{ let v = 2.5; v }` passes an `f64` as `&{ 2.5 }` does, and gets the same fix.
use chevron::cudarc::driver::{CudaFunction, CudaStream};
use chevron::launch;

fn run(s: &CudaStream, f: &CudaFunction) -> Result<(), chevron::Error> {
    unsafe { launch!(dyn f<<<1, 256, s>>>(&{ 2.5 })) }?;
    unsafe { launch!(dyn f<<<1, 256, s>>>(&{ let v = 2.5; v })) }?;
    unsafe { launch!(dyn f<<<1, 256, s>>>(&{ let v = 2.5; let w = -v; w })) }?;
    // Typed: a suffix or a type on the `let` decides it.
    unsafe { launch!(dyn f<<<1, 256, s>>>(&{ let v = 2.5f32; v }, &{ let v: f32 = 2.5; v })) }
}

fn main() {}
