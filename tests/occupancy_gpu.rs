//! Occupancy queries on a real GPU, held to what the driver does with a launch: the largest
//! cooperative grid is exactly the one the driver accepts, and the clusters said to fit run.
//!
//! Run on a machine with a CUDA GPU: `cargo test --test occupancy_gpu -- --include-ignored
//! --nocapture` (the tests print the numbers they measure).

#[path = "common/gpu.rs"]
mod gpu;

use chevron::cudarc::driver::{CudaSlice, DriverError};
use chevron::{kernel, launch, ClusterDim, Error, LaunchConfig};

type TestResult = Result<(), Box<dyn std::error::Error>>;

#[kernel(ptx = "kernels/cooperative.ptx")]
fn grid_rotate(input: &CudaSlice<i32>, tmp: &mut CudaSlice<i32>, out: &mut CudaSlice<i32>, n: u32);

#[kernel(ptx = "kernels/cluster.ptx")]
fn cluster_info(out: &mut CudaSlice<u32>);

const POISON_U32: u32 = 0xDEAD_BEEF;

#[test]
#[ignore = "needs a CUDA GPU"]
fn max_cooperative_grid_is_the_drivers_cooperative_limit() -> TestResult {
    let ctx = gpu::context(0)?;
    let s = ctx.new_stream()?;
    let threads = 1024u32;
    let max = grid_rotate::kernel().max_cooperative_grid(&ctx, threads, 0)?;
    let occ = grid_rotate::kernel().occupancy(&ctx, &LaunchConfig::new(max, threads))?;
    println!(
        "grid_rotate at block {threads}: max_cooperative_grid = {max} blocks \
         ({} SMs × {} blocks/SM, {}/{} warps per SM, limited by {:?})",
        occ.sms, occ.blocks_per_sm, occ.active_warps_per_sm, occ.max_warps_per_sm, occ.limited_by
    );
    assert!(max > 0);
    assert_eq!(occ.co_resident_blocks(), u64::from(max));

    // A cooperative launch of exactly that many blocks runs, and its grid-wide barrier holds.
    let n = max * threads;
    let input: Vec<i32> = (0..n as i32)
        .map(|i| i.wrapping_mul(7919) % 100_003)
        .collect();
    let input_dev = s.clone_htod(&input)?;
    let mut tmp = s.clone_htod(&vec![i32::MIN; n as usize])?;
    let mut out = s.clone_htod(&vec![i32::MIN; n as usize])?;
    unsafe {
        launch!(grid_rotate<<<max, threads, &s, cooperative>>>(&input_dev, &mut tmp, &mut out, n))
    }?;
    let got = s.clone_dtoh(&out)?;
    s.synchronize()?;
    for t in 0..n as usize {
        let want = input[(t + threads as usize) % n as usize] * 3;
        assert_eq!(got[t], want, "out[{t}]");
    }
    println!("cooperative launch of {max} blocks × {threads} threads: ok, {n} values checked");

    // One block more is the driver's CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, with our numbers.
    let n1 = (max + 1) * threads;
    let input_dev = s.clone_htod(&vec![1i32; n1 as usize])?;
    let mut tmp = s.clone_htod(&vec![0i32; n1 as usize])?;
    let mut out = s.clone_htod(&vec![0i32; n1 as usize])?;
    let r = unsafe {
        launch!(grid_rotate<<<max + 1, threads, &s, cooperative>>>(&input_dev, &mut tmp, &mut out, n1))
    };
    match r {
        Err(e @ Error::CooperativeTooLarge { .. }) => {
            println!("cooperative launch of {} blocks: {e}", max + 1);
            let Error::CooperativeTooLarge {
                requested,
                co_resident,
                ..
            } = e
            else {
                unreachable!()
            };
            assert_eq!(requested, u64::from(max) + 1);
            assert_eq!(co_resident, u64::from(max));
        }
        other => panic!(
            "expected CooperativeTooLarge for {} blocks, got {other:?}",
            max + 1
        ),
    }
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn max_active_clusters_honours_a_run_time_cluster_and_agrees_with_a_launch() -> TestResult {
    let ctx = gpu::context(0)?;
    let s = ctx.new_stream()?;
    let cfg = LaunchConfig::new(8, 32).with(ClusterDim::new(2, 1, 1));
    let clusters = cluster_info::kernel().max_active_clusters(&ctx, &cfg)?;
    println!("cluster_info, clusters of 2 × 32 threads: max_active_clusters = {clusters}");
    assert!(clusters > 0);

    // cudarc's helper passes no launch attributes, so the run-time cluster is lost on the way.
    let f = cluster_info::kernel().function(&ctx)?;
    let plain = chevron::cudarc::driver::LaunchConfig {
        grid_dim: (8, 1, 1),
        block_dim: (32, 1, 1),
        shared_mem_bytes: 0,
    };
    let cudarc: Result<u32, DriverError> = f.occupancy_max_active_clusters(plain, &s);
    println!("the same query through cudarc (no attributes): {cudarc:?}");

    // Every cluster said to fit, launched at once: each block sees a cluster of 2 and its rank.
    let grid = clusters * 2;
    let cfg = LaunchConfig::new(grid, 32).with(ClusterDim::new(2, 1, 1));
    let mut out = s.clone_htod(&vec![POISON_U32; 2 * grid as usize])?;
    unsafe { cluster_info::kernel().launch(&s, &cfg, (&mut out,)) }?;
    let out = s.clone_dtoh(&out)?;
    s.synchronize()?;
    for b in 0..grid as usize {
        assert_eq!(out[2 * b], 2, "block {b}: cluster num_blocks");
        assert_eq!(out[2 * b + 1], b as u32 % 2, "block {b}: rank in cluster");
    }
    println!("cluster launch of {clusters} clusters ({grid} blocks): ok, every block checked");

    // The same query for a plain `&CudaFunction`.
    let by_function = chevron::max_active_clusters(&ctx, &f, &cfg)?;
    assert_eq!(by_function, clusters);
    Ok(())
}
