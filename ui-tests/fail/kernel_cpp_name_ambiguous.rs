//! One spelling that still names two instances (`one::twin<1>` and `two::twin<1>`, with the
//! same parameters): both are listed, with a name that picks one.
use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

#[kernel(ptx = "rules/tests/fixtures/names.ptx", name = "twin<1>")]
fn twin(x: &mut CudaSlice<f32>);

fn main() {}
