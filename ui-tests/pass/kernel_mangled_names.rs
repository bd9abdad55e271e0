//! C++ kernels: a single mangled entry is found by its plain name; a template instance is
//! named explicitly.
use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

// Resolves to `_Z10offset_addPffj`.
#[kernel(ptx = "kernels/templates.ptx")]
pub fn offset_add(y: &mut CudaSlice<f32>, v: f32, n: u32);

#[kernel(ptx = "kernels/templates.ptx", name = "_Z4gemmILi128EEvPKfS1_Pfiii")]
pub fn gemm128(
    a: &CudaSlice<f32>,
    b: &CudaSlice<f32>,
    c: &mut CudaSlice<f32>,
    m: i32,
    n: i32,
    k: i32,
);

// Each instance of an overloaded template, by its symbol.
#[kernel(ptx = "kernels/templates.ptx", name = "_Z5scaleIfEvPT_S0_j")]
fn scale_f32(x: &mut CudaSlice<f32>, f: f32, n: u32);

#[kernel(ptx = "kernels/templates.ptx", name = "_Z5scaleIdEvPT_S0_j")]
fn scale_f64(x: &mut CudaSlice<f64>, f: f64, n: u32);

fn main() {
    let _ = (offset_add::kernel(), gemm128::kernel(), scale_f32::kernel(), scale_f64::kernel());
    let _: std::marker::PhantomData<<gemm128 as chevron::TypedKernel>::Scalars<'static>> =
        std::marker::PhantomData::<(i32, i32, i32)>;
    let _: std::marker::PhantomData<<scale_f64 as chevron::TypedKernel>::Scalars<'static>> =
        std::marker::PhantomData::<(f64, u32)>;
}
