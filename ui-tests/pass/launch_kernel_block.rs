//! `_` in the block position: CUDA 13 `__block_size__` kernels launched in their own block shape
//! (`CU_LAUNCH_KERNEL_REQUIRED_BLOCK_DIM`), the grid counting clusters where the kernel has
//! them; in `launch!`, `config!` and `LaunchConfig::kernel_block`, with literal and run-time
//! grids and with attributes.
use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::{config, kernel, launch, LaunchConfig};

// `__block_size__((32, 4, 1), (2, 1, 1))`.
#[kernel(ptx = "kernels/kernel_block.ptx")]
fn own_shape_clusters(out: &mut CudaSlice<u32>, meta: &mut CudaSlice<u32>);

// `__block_size__((32, 4, 1))`.
#[kernel(ptx = "kernels/kernel_block.ptx")]
fn own_shape(out: &mut CudaSlice<u32>, meta: &mut CudaSlice<u32>);

fn run(
    s: &CudaStream,
    out: &mut CudaSlice<u32>,
    meta: &mut CudaSlice<u32>,
    clusters: u32,
) -> Result<(), chevron::Error> {
    unsafe { launch!(own_shape_clusters<<<3, _, s>>>(out, meta)) }?;
    unsafe { launch!(own_shape_clusters<<<(3, 2), _, s, priority = 1>>>(out, meta)) }?;
    unsafe { launch!(own_shape<<<clusters, _, s, shared = 0>>>(out, meta)) }?;
    let cfg = config!(<<<clusters, _>>>);
    unsafe { own_shape_clusters::kernel().launch(s, &cfg, (&mut *out, &mut *meta)) }?;
    let cfg = LaunchConfig::kernel_block(clusters);
    unsafe { own_shape::kernel().launch(s, &cfg, (out, meta)) }
}

fn main() {
    let _ = run;
    assert!(config!(<<<3, _>>>).uses_kernel_block());
}
