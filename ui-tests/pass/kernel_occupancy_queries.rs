//! The occupancy queries of a declaration, and the same for a plain `&CudaFunction`: their
//! signatures as the README shows them (block as a `u32`, a tuple or a `Dim3`).
use std::sync::Arc;

use chevron::cudarc::driver::{CudaContext, CudaSlice};
use chevron::{kernel, ClusterDim, Dim3, LaunchConfig, Occupancy, OccupancyLimit};

#[kernel(ptx = "kernels/cooperative.ptx")]
fn grid_rotate(input: &CudaSlice<i32>, tmp: &mut CudaSlice<i32>, out: &mut CudaSlice<i32>, n: u32);

/// Never called: only the types are checked.
#[allow(dead_code)]
fn queries(ctx: &Arc<CudaContext>) -> Result<(), chevron::Error> {
    let a: u32 = grid_rotate::kernel().max_cooperative_grid(ctx, 1024, 0)?;
    let b: u32 = grid_rotate::kernel().max_cooperative_grid(ctx, (32, 32), 4096)?;
    let c: u32 = grid_rotate::kernel().max_cooperative_grid(ctx, Dim3::new(8, 8, 8), 0)?;
    let cfg = LaunchConfig::new(8, 32).with(ClusterDim::new(2, 1, 1));
    let clusters: u32 = grid_rotate::kernel().max_active_clusters(ctx, &cfg)?;
    let occ: Occupancy = grid_rotate::kernel().occupancy(ctx, &cfg)?;
    let _: Option<OccupancyLimit> = occ.limited_by;
    let _: u64 = occ.co_resident_blocks();

    let f = grid_rotate::kernel().function(ctx)?;
    let d: u32 = chevron::max_cooperative_grid(ctx, &f, 1024, 0)?;
    let e: u32 = chevron::max_active_clusters(ctx, &f, &cfg)?;
    let _: Occupancy = chevron::occupancy(ctx, &f, &cfg)?;
    let _ = (a, b, c, clusters, d, e);
    Ok(())
}

fn main() {}
