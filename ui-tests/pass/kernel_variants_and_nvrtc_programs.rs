//! One declaration over several compiled variants (chosen per device at load); CUDA C with
//! embedded headers, NVRTC options and template instances by name; a path joined by `concat!`.
use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::{kernel, launch};

#[kernel(ptx = ["kernels/variants/saxpy_sm75.ptx", "kernels/variants/saxpy_sm90.ptx"])]
pub fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

#[kernel(cuda = "kernels/nvrtc/softmax.cu", name = "softmax<128>")]
pub fn softmax128(out: &mut CudaSlice<f32>, input: &CudaSlice<f32>, rows: i32, cols: i32);

#[kernel(cuda = "kernels/nvrtc/options.cu", name = "fill_scaled", options = ["-std=c++17", "-DSCALE=3", "-Ikernels/nvrtc"])]
pub fn fill3(out: &mut CudaSlice<f32>, n: i32);

#[kernel(ptx = concat!("kernels/", "saxpy.ptx"), name = "saxpy")]
pub fn joined(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

#[allow(dead_code)]
fn run(s: &CudaStream, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>) -> Result<(), chevron::Error> {
    unsafe { launch!(saxpy<<<4, 256, s>>>(1024, 2.0, x, y)) }?;
    unsafe { launch!(softmax128<<<4, 128, s>>>(y, x, 4, 256)) }?;
    unsafe { launch!(fill3<<<4, 256, s>>>(y, 1024)) }?;
    unsafe { launch!(joined<<<4, 256, s>>>(1024, 2.0, x, y)) }
}

fn main() {
    let names = [saxpy::kernel().name(), softmax128::kernel().name(), fill3::kernel().name(), joined::kernel().name()];
    assert_eq!(names, ["saxpy", "softmax128", "fill3", "joined"]);
}
