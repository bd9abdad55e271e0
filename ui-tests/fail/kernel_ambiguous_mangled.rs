//! Two instances of a template whose declared parameters do not tell them apart: the spelling
//! of `x` and `f` is an alias, which the macro cannot read (rustc checks it afterwards).
use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

type Buf = CudaSlice<f32>;
type Factor = f32;

#[kernel(ptx = "kernels/templates.ptx")]
fn scale(x: &mut Buf, f: Factor, n: u32);

fn main() {}
