// The function attribute `CU_FUNC_ATTRIBUTE_SHARED_MEMORY_MODE` came with CUDA 13.4: with the
// default feature (cuda-13000) setting it names the feature that has it.
use chevron::cudarc::driver::{CudaContext, CudaFunction};
use chevron::{set_function_attribute, FunctionSharedMemoryMode, SharedMemoryMode};
use std::sync::Arc;

fn configure(ctx: &Arc<CudaContext>, func: &CudaFunction) -> Result<(), chevron::Error> {
    set_function_attribute(ctx, func, FunctionSharedMemoryMode(SharedMemoryMode::Default))
}

fn main() {
    let _ = configure;
}
