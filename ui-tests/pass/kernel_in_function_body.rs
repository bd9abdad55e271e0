//! Inside a function body, a declaration works when its types are named by path: the generated
//! module sees the names of the enclosing module (`use super::*`), not the body's local `use`.
fn main() {
    #[chevron::kernel(ptx = "kernels/saxpy.ptx")]
    fn saxpy(
        n: u32,
        a: f32,
        x: &chevron::cudarc::driver::CudaSlice<f32>,
        y: &mut chevron::cudarc::driver::CudaSlice<f32>,
    );

    let _ = (saxpy::launch, saxpy::function);
}
