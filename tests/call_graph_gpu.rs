//! Kernels as nvcc really emits them, launched as their code needs: facts found through
//! `__noinline__` helpers and `-G` debug builds, CUDA 13's cluster directives, and run-time
//! launch values that must be refused as themselves before the driver sees them. Every result
//! is checked against the host; refused launches must leave their (poisoned) output untouched.
//!
//! Each test prints what it checked, so a run shows the numbers.

#[path = "common/gpu.rs"]
mod gpu;

use chevron::cudarc::driver::CudaSlice;
use chevron::{kernel, launch, Error, LaunchConfig, Violation};

#[kernel(ptx = "kernels/grid_helpers.ptx")]
fn helper_rotate(
    input: &CudaSlice<i32>,
    tmp: &mut CudaSlice<i32>,
    out: &mut CudaSlice<i32>,
    n: u32,
);

#[kernel(ptx = "kernels/grid_helpers_debug.ptx", name = "helper_rotate")]
fn helper_rotate_debug(
    input: &CudaSlice<i32>,
    tmp: &mut CudaSlice<i32>,
    out: &mut CudaSlice<i32>,
    n: u32,
);

#[kernel(ptx = "kernels/grid_helpers_debug.ptx", name = "grid_index")]
fn grid_index_debug(out: &mut CudaSlice<u32>, n: u32);

#[kernel(ptx = "kernels/pdl_helpers.ptx")]
fn pdl_trigger_helper(data: &mut CudaSlice<u32>, n: u32);

#[kernel(ptx = "kernels/pdl_helpers.ptx")]
fn pdl_wait_helper(data: &CudaSlice<u32>, out: &mut CudaSlice<u32>, n: u32);

#[kernel(ptx = "kernels/pdl_helpers_debug.ptx", name = "pdl_trigger_direct")]
fn pdl_trigger_direct_debug(data: &mut CudaSlice<u32>, n: u32);

#[kernel(ptx = "kernels/pdl_helpers_debug.ptx", name = "pdl_wait_direct")]
fn pdl_wait_direct_debug(data: &CudaSlice<u32>, out: &mut CudaSlice<u32>, n: u32);

#[kernel(ptx = "kernels/pdl_helpers_debug.ptx", name = "pdl_wait_helper")]
fn pdl_wait_helper_debug(data: &CudaSlice<u32>, out: &mut CudaSlice<u32>, n: u32);

#[kernel(ptx = "kernels/block_size.ptx")]
fn block_size_rank(out: &mut CudaSlice<u32>);

#[kernel(ptx = "kernels/block_size.ptx")]
fn explicit_rank(out: &mut CudaSlice<u32>);

#[kernel(ptx = "kernels/cluster.ptx")]
fn cluster_info(out: &mut CudaSlice<u32>);

#[kernel(ptx = "kernels/bounds.ptx")]
fn clustered_rank(out: &mut CudaSlice<u32>);

type TestResult = Result<(), Box<dyn std::error::Error>>;

const POISON_U32: u32 = 0xDEAD_BEEF;

/// The message of a `KernelConstraint` refusal; fails the test on anything else.
fn refused(result: Result<(), Error>, what: &str) -> String {
    match result {
        Err(Error::KernelConstraint { message, .. }) => {
            println!("refused ({what}): {message}");
            message
        }
        Err(other) => panic!("{what}: expected a KernelConstraint refusal, got {other}"),
        Ok(()) => panic!("{what}: the launch was not refused"),
    }
}

/// The violation of an `InvalidConfig` refusal; fails the test on anything else.
fn invalid(result: Result<(), Error>, what: &str) -> Violation {
    match result {
        Err(e @ Error::InvalidConfig { .. }) => {
            println!("refused ({what}): {e}");
            let Error::InvalidConfig { violation, .. } = e else {
                unreachable!()
            };
            violation
        }
        Err(other) => panic!("{what}: expected InvalidConfig, got {other}"),
        Ok(()) => panic!("{what}: the launch was not refused"),
    }
}

/// grid_rotate's result: out[t] = in[(t + block) % n] * 3.
fn rotated(host: &[i32], block: usize) -> Vec<i32> {
    let n = host.len();
    (0..n).map(|t| host[(t + block) % n] * 3).collect()
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn grid_sync_in_a_helper_runs_cooperatively_release_and_debug() -> TestResult {
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream()?;
    let (blocks, block) = (8u32, 128u32);
    let n = blocks * block;
    let host: Vec<i32> = (0..n as i32).map(|i| i * 7 - 300).collect();
    let want = rotated(&host, block as usize);
    let input = stream.clone_htod(&host)?;
    for debug in [false, true] {
        let mut tmp = stream.clone_htod(&vec![i32::MIN; n as usize])?;
        let mut out = stream.clone_htod(&vec![i32::MIN; n as usize])?;
        // A plain launch, decided at run time: refused before it runs (it would trap in the
        // helper's barrier and kill the context).
        let on = std::hint::black_box(false);
        let result = if debug {
            unsafe {
                launch!(helper_rotate_debug<<<blocks, block, &stream, cooperative = on>>>(&input, &mut tmp, &mut out, n))
            }
        } else {
            unsafe {
                launch!(helper_rotate<<<blocks, block, &stream, cooperative = on>>>(&input, &mut tmp, &mut out, n))
            }
        };
        let message = refused(result, "helper grid sync without cooperative");
        assert!(
            message.contains("in `_Z12grid_barrierv`, which it calls"),
            "{message}"
        );
        assert!(
            stream.clone_dtoh(&out)?.iter().all(|v| *v == i32::MIN),
            "a refused launch wrote output"
        );
        if debug {
            unsafe {
                launch!(helper_rotate_debug<<<blocks, block, &stream, cooperative>>>(&input, &mut tmp, &mut out, n))
            }?;
        } else {
            unsafe {
                launch!(helper_rotate<<<blocks, block, &stream, cooperative>>>(&input, &mut tmp, &mut out, n))
            }?;
        }
        let got = stream.clone_dtoh(&out)?;
        for (t, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(g, w, "out[{t}] (debug = {debug})");
        }
        let build = if debug { "-G" } else { "release" };
        println!("helper_rotate ({build}) cooperative: {n} values match the host");
    }
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn debug_this_grid_for_indexing_launches_plainly() -> TestResult {
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream()?;
    let (blocks, block) = (16u32, 256u32);
    let n = blocks * block - 5;
    let mut out = stream.clone_htod(&vec![POISON_U32; (blocks * block) as usize])?;
    unsafe { launch!(grid_index_debug<<<blocks, block, &stream>>>(&mut out, n)) }?;
    let got = stream.clone_dtoh(&out)?;
    for (t, g) in got.iter().enumerate() {
        let want = if (t as u32) < n {
            t as u32 * 2 + 1
        } else {
            POISON_U32
        };
        assert_eq!(*g, want, "out[{t}]");
    }
    println!("grid_index (-G) plain launch: {n} values match the host, the rest untouched");
    // It never syncs the grid: a needless `cooperative` is refused as for any such kernel.
    let coop = std::hint::black_box(true);
    let message = refused(
        unsafe {
            launch!(grid_index_debug<<<blocks, block, &stream, cooperative = coop>>>(&mut out, n))
        },
        "cooperative on this_grid() for indexing",
    );
    assert!(
        message.contains("never syncs the whole grid, nor does any function it calls"),
        "{message}"
    );
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn pdl_intrinsics_in_helpers_and_debug_builds_run_with_programmatic_serialization() -> TestResult {
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream()?;
    let n: u32 = 1 << 16;
    let want: Vec<u32> = (0..n).map(|i| i * 3 + 1 + 5).collect();
    for (round, label) in ["release helpers", "-G direct", "-G helper"]
        .into_iter()
        .enumerate()
    {
        let mut data = stream.clone_htod(&vec![POISON_U32; n as usize])?;
        let mut out = stream.clone_htod(&vec![POISON_U32; n as usize])?;
        unsafe {
            match round {
                0 => {
                    launch!(pdl_trigger_helper<<<n / 256, 256, &stream>>>(&mut data, n))?;
                    launch!(pdl_wait_helper<<<n / 256, 256, &stream, programmatic_serialization>>>(&data, &mut out, n))
                }
                1 => {
                    launch!(pdl_trigger_direct_debug<<<n / 256, 256, &stream>>>(&mut data, n))?;
                    launch!(pdl_wait_direct_debug<<<n / 256, 256, &stream, programmatic_serialization>>>(&data, &mut out, n))
                }
                _ => {
                    launch!(pdl_trigger_direct_debug<<<n / 256, 256, &stream>>>(&mut data, n))?;
                    launch!(pdl_wait_helper_debug<<<n / 256, 256, &stream, programmatic_serialization>>>(&data, &mut out, n))
                }
            }
        }?;
        let got = stream.clone_dtoh(&out)?;
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(g, w, "out[{i}] ({label})");
        }
        println!("PDL pair ({label}) with programmatic_serialization: {n} values match the host");
    }
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn blocks_are_clusters_grid_of_three_clusters_runs_six_blocks() -> TestResult {
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream()?;
    let mut host = vec![POISON_U32; 64];
    host[63] = 1000;
    let mut out = stream.clone_htod(&host)?;
    // `__block_size__((64, 1, 1), (2, 1, 1))`: a grid of 3 counts clusters of 2 blocks.
    unsafe { launch!(block_size_rank<<<3, 64, &stream>>>(&mut out)) }?;
    let got = stream.clone_dtoh(&out)?;
    assert_eq!(got[63], 1006, "blocks that ran (1000 + count)");
    assert_eq!(
        &got[..6],
        &[20, 21, 20, 21, 20, 21],
        "rank + 10 * cluster size"
    );
    assert!(got[6..63].iter().all(|v| *v == POISON_U32), "{got:?}");
    println!(
        "block_size_rank<<<3, 64>>>: 6 blocks in clusters of 2: {:?}",
        &got[..6]
    );
    // The same grid, known only at run time, through a config: no refusal either.
    let three: u32 = std::hint::black_box(3);
    let mut out = stream.clone_htod(&host)?;
    let cfg = LaunchConfig::new(three, 64u32);
    unsafe { block_size_rank::kernel().launch(&stream, &cfg, (&mut out,)) }?;
    assert_eq!(stream.clone_dtoh(&out)?[63], 1006);
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn explicit_cluster_needs_a_cluster_from_the_launch() -> TestResult {
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream()?;
    let mut host = vec![POISON_U32; 64];
    host[63] = 1000;
    let mut out = stream.clone_htod(&host)?;
    // `__cluster_dims__()`: without a cluster the driver would refuse it; chevron first.
    let cfg = LaunchConfig::new(std::hint::black_box(8u32), 64u32);
    let message = refused(
        unsafe { explicit_rank::kernel().launch(&stream, &cfg, (&mut out,)) },
        "explicitcluster without a cluster",
    );
    assert!(message.contains("`.explicitcluster`"), "{message}");
    assert!(message.ends_with("(this launch: no cluster)"), "{message}");
    assert_eq!(
        stream.clone_dtoh(&out)?,
        host,
        "a refused launch wrote output"
    );
    unsafe { launch!(explicit_rank<<<8, 64, &stream, cluster = 2>>>(&mut out)) }?;
    let got = stream.clone_dtoh(&out)?;
    assert_eq!(got[63], 1008);
    assert_eq!(&got[..8], &[20, 21, 20, 21, 20, 21, 20, 21]);
    println!("explicit_rank with cluster = 2: {:?}", &got[..8]);
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn preferred_cluster_misuse_is_a_typed_error_before_the_driver() -> TestResult {
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream()?;
    let mut out = stream.clone_htod(&vec![POISON_U32; 16])?;
    // 4 is a multiple of the cluster (2) but does not divide the grid (6).
    let (grid, pref) = (std::hint::black_box(6u32), std::hint::black_box(4u32));
    let violation = invalid(
        unsafe {
            launch!(cluster_info<<<grid, 32, &stream, cluster = 2, preferred_cluster = pref>>>(&mut out))
        },
        "preferred cluster 4 over a grid of 6",
    );
    assert_eq!(
        violation,
        Violation::PreferredDoesNotDivide {
            axis: 0,
            preferred: 4,
            grid: 6
        }
    );
    // Not a multiple of the cluster.
    let three = std::hint::black_box(3u32);
    let violation = invalid(
        unsafe {
            launch!(cluster_info<<<grid, 32, &stream, cluster = 2, preferred_cluster = three>>>(&mut out))
        },
        "preferred cluster 3 with clusters of 2",
    );
    assert!(
        matches!(violation, Violation::PreferredNotMultiple { .. }),
        "{violation}"
    );
    assert!(stream.clone_dtoh(&out)?.iter().all(|v| *v == POISON_U32));
    // A grid of 8: 2 preferred clusters of 4 (or, at the driver's choice, clusters of 2).
    let eight = std::hint::black_box(8u32);
    unsafe {
        launch!(cluster_info<<<eight, 32, &stream, cluster = 2, preferred_cluster = pref>>>(&mut out))
    }?;
    let got = stream.clone_dtoh(&out)?;
    for b in 0..8 {
        let (size, rank) = (got[2 * b], got[2 * b + 1]);
        assert!(size == 2 || size == 4, "block {b}: cluster of {size}");
        assert!(rank < size, "block {b}: rank {rank} of {size}");
    }
    println!("cluster_info<<<8>>> with preferred_cluster 4: (size, rank) = {got:?}");
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn invalid_run_time_extents_are_reported_as_themselves() -> TestResult {
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream()?;
    let mut out = stream.clone_htod(&vec![POISON_U32; 16])?;
    // clustered_rank has compiled-in clusters of 2; a grid of u64::MAX is no grid at all.
    let huge = std::hint::black_box(u64::MAX);
    let violation = invalid(
        unsafe { launch!(clustered_rank<<<huge, 32, &stream>>>(&mut out)) },
        "grid of u64::MAX",
    );
    assert_eq!(
        violation.to_string(),
        "grid x is 18446744073709551615, which does not fit in `u32`"
    );
    let negative = std::hint::black_box(-128i32);
    let violation = invalid(
        unsafe { launch!(clustered_rank<<<8, negative, &stream>>>(&mut out)) },
        "block of -128",
    );
    assert_eq!(violation.to_string(), "block x is -128: it is negative");
    assert!(stream.clone_dtoh(&out)?.iter().all(|v| *v == POISON_U32));
    Ok(())
}
