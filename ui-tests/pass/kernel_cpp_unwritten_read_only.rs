//! `float* x` (not `const`, as real code often leaves it) declared read-only without
//! `#[read_only]`: the kernel's PTX never stores through it, so `&` is accepted.
use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

#[kernel(ptx = "rules/tests/fixtures/writes.ptx")]
fn cpp_reads(x: &CudaSlice<f32>, sum: &mut CudaSlice<f32>, n: i32);

// The same in the release and `-G` builds of another file: `y` is `float*`, only read.
#[kernel(ptx = "rules/tests/fixtures/stores.ptx", name = "cpp_const_cast")]
fn const_cast_release(x: &mut CudaSlice<f32>, y: &CudaSlice<f32>, sum: &mut CudaSlice<f32>);

#[kernel(ptx = "rules/tests/fixtures/stores_debug.ptx", name = "cpp_const_cast")]
fn const_cast_debug(x: &mut CudaSlice<f32>, y: &CudaSlice<f32>, sum: &mut CudaSlice<f32>);

fn main() {
    let _ = (cpp_reads::kernel(), const_cast_release::kernel(), const_cast_debug::kernel());
}
