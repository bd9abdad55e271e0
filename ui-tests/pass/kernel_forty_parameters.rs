//! A kernel of 40 parameters (kernels of real codebases have 37 or 40; chevron took at most
//! 32): declared from nvcc's PTX, and launched typed. Compiled, never launched.
use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::{kernel, launch};

#[kernel(ptx = "rules/tests/fixtures/names.ptx")]
fn wide40(
    out: &mut CudaSlice<f32>, p1: i32, p2: i32, p3: i32, p4: i32, p5: i32, p6: i32, p7: i32,
    p8: i32, p9: i32, p10: i32, p11: i32, p12: i32, p13: i32, p14: i32, p15: i32, p16: i32,
    p17: i32, p18: i32, p19: i32, p20: i32, p21: i32, p22: i32, p23: i32, p24: i32, p25: i32,
    p26: i32, p27: i32, p28: i32, p29: i32, p30: i32, p31: i32, p32: i32, p33: i32, p34: i32,
    p35: i32, p36: i32, p37: i32, p38: i32, input: &CudaSlice<f32>,
);

#[allow(dead_code)]
fn run(
    s: &CudaStream,
    out: &mut CudaSlice<f32>,
    input: &CudaSlice<f32>,
) -> Result<(), chevron::Error> {
    unsafe {
        launch!(wide40<<<1, 1, s>>>(
            out, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23,
            24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, input
        ))
    }?;
    Ok(())
}

fn main() {
    let _ = wide40::kernel();
}
