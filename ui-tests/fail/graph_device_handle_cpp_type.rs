// `cudaGraphExec_t` in a C++ kernel's signature is `CUgraphExec_st*`: a parameter declared as a
// 32-bit integer is refused, and the fix names `chevron::DeviceGraphHandle`.
use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

#[kernel(ptx = "kernels/device_graph.ptx")]
fn launch_tail(exec: u32, status: &mut CudaSlice<i32>);

fn main() {}
