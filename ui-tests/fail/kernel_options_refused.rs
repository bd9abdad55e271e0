//! NVRTC options a declaration cannot give: an architecture (chevron compiles for the device's
//! own), relocatable code (chevron adds it when needed), a missing include directory, a word
//! that is no option; `options` on a PTX kernel; `options` not as a list.
use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

#[kernel(cuda = "kernels/nvrtc/options.cu", options = ["-arch=sm_80", "-rdc=true", "-Inot/a/dir", "O3", "-DSCALE=3"])]
fn fill_scaled(out: &mut CudaSlice<f32>, n: i32);

#[kernel(ptx = "kernels/saxpy.ptx", options = ["-DN=1"])]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

#[kernel(cuda = "kernels/histogram.cu", options = "-std=c++17")]
fn histogram(bins: &mut CudaSlice<u32>, data: &CudaSlice<u8>, len: u32);

fn main() {}
