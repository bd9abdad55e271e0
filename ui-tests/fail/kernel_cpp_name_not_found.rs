//! Instances the PTX does not hold: the candidates are listed in the spelling the user wrote
//! (the source's, `c++filt`'s, the demangler's), and in `c++filt`'s; enumerators by name get a
//! hint.
use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

#[kernel(ptx = "rules/tests/fixtures/names.ptx", name = "reduce4<int, 1024>")]
fn reduce4_source(input: &CudaSlice<i32>, out: &mut CudaSlice<i32>, n: i32);

#[kernel(ptx = "rules/tests/fixtures/names.ptx", name = "reduce4<int, 1024u>")]
fn reduce4_cxxfilt(input: &CudaSlice<i32>, out: &mut CudaSlice<i32>, n: i32);

#[kernel(ptx = "rules/tests/fixtures/names.ptx", name = "unary_op_kernel<&op_sqrt, float>")]
fn op_sqrt(x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

// Enumerators by name: a symbol keeps their values only.
#[kernel(ptx = "rules/tests/fixtures/names.ptx", name = "te<Mode::Mul, PlainB>")]
fn te(x: &mut CudaSlice<f32>);

fn main() {}
