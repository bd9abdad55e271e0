//! Only the sm_90 variant of `grid_rotate` syncs the grid: every launch of the declaration must
//! be cooperative (the GPU decides which variant loads), so a plain literal launch is refused,
//! citing the sm_90 file; a cooperative one is accepted, and so is a block within the sm_90
//! variant's `__launch_bounds__(256)` only.
use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::{kernel, launch};

#[kernel(ptx = [
    "kernels/variants/grid_rotate_sm75.ptx",
    "kernels/variants/grid_rotate_sm90.ptx",
])]
fn grid_rotate(in_: &CudaSlice<i32>, tmp: &mut CudaSlice<i32>, out: &mut CudaSlice<i32>, n: u32);

fn run(
    s: &CudaStream,
    x: &CudaSlice<i32>,
    t: &mut CudaSlice<i32>,
    o: &mut CudaSlice<i32>,
) -> Result<(), chevron::Error> {
    unsafe { launch!(grid_rotate<<<4, 256, s, cooperative>>>(x, &mut *t, &mut *o, 1024)) }?;
    unsafe { launch!(grid_rotate<<<4, 256, s>>>(x, &mut *t, &mut *o, 1024)) }?;
    unsafe { launch!(grid_rotate<<<2, 512, s, cooperative>>>(x, t, o, 1024)) }
}

fn main() {}
