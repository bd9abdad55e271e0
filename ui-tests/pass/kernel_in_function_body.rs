//! A declaration inside a function body resolves its types where it is written: the body's own
//! `use` and items serve it, with short type names, and `launch!` finds it there.
fn main() {
    use chevron::cudarc::driver::{CudaSlice, CudaStream};
    use chevron::{kernel, launch};

    /// Mirrors `struct Affine` in kernels/structs.cu.
    #[repr(C)]
    #[derive(Clone, Copy)]
    struct Affine {
        scale: f32,
        offset: i32,
        bias: f64,
    }
    // SAFETY: `#[repr(C)]` plain data, laid out like the kernel's struct.
    unsafe impl chevron::cudarc::driver::DeviceRepr for Affine {}

    /// y = a·x + y
    #[kernel(ptx = "kernels/saxpy.ptx")]
    fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

    #[kernel(ptx = "kernels/structs.ptx")]
    fn affine(p: Affine, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>, n: u32);

    /// Never called: the typed `launch!` path compiles in the body too.
    #[allow(dead_code)]
    fn run(s: &CudaStream, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>) -> chevron::Result<()> {
        let p = Affine {
            scale: 2.0,
            offset: 1,
            bias: 0.5,
        };
        unsafe {
            launch!(saxpy<<<1, 32, s>>>(32, 2.0, x, y))?;
            launch!(affine<<<1, 32, s>>>(p, x, y, 32))?;
        }
        Ok(())
    }

    // The body's types in the kernel's parameter types.
    let _: std::marker::PhantomData<<affine as chevron::TypedKernel>::Scalars<'static>> =
        std::marker::PhantomData::<(Affine, u32)>;
    assert_eq!((saxpy::kernel().name(), affine::kernel().name()), ("saxpy", "affine"));
    let _ = run;
}
