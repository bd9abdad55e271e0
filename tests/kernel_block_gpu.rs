//! Launches in the kernel's own block shape (`_` in the block position,
//! `LaunchConfig::kernel_block`: `CU_LAUNCH_KERNEL_REQUIRED_BLOCK_DIM` in place of the block, CUDA
//! 12.9 drivers) of CUDA 13 `__block_size__` kernels (`kernels/kernel_block.cu`). Every thread
//! writes its block and thread index and thread (0, 0) its block's shape and cluster rank: the
//! host checks each value, and that the blocks past the expected grid left their poisoned
//! output untouched. A launch the kernel's rules refuse must leave its output untouched too.
//!
//! Each test prints what it checked, so a run shows the numbers.

#[path = "common/gpu.rs"]
mod gpu;

use std::sync::Arc;

use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::{config, kernel, launch, Error, Graph, LaunchConfig};

// `__block_size__((32, 4, 1), (2, 1, 1))`: blocks of 32 x 4 threads in clusters of 2; the grid
// counts clusters.
#[kernel(ptx = "kernels/kernel_block.ptx")]
fn own_shape_clusters(out: &mut CudaSlice<u32>, meta: &mut CudaSlice<u32>);

// `__block_size__((32, 4, 1))`: clusters of one block; the grid counts blocks.
#[kernel(ptx = "kernels/kernel_block.ptx")]
fn own_shape(out: &mut CudaSlice<u32>, meta: &mut CudaSlice<u32>);

// `__cluster_dims__()` alone: no compiled-in block dimensions.
#[kernel(ptx = "kernels/block_size.ptx")]
fn explicit_rank(out: &mut CudaSlice<u32>);

type TestResult = Result<(), Box<dyn std::error::Error>>;

const POISON_U32: u32 = 0xDEAD_BEEF;
/// Threads per block: `.reqntid 32, 4, 1`.
const THREADS: usize = 128;
/// Per block, in `meta`: blockDim.x, .y, .z, gridDim.x, the rank in the cluster, its size.
const META: usize = 6;
/// Room for this many blocks: those past a launch's grid must stay poisoned.
const ROOM: usize = 16;

/// The poisoned output and meta buffers.
fn buffers(stream: &Arc<CudaStream>) -> Result<(CudaSlice<u32>, CudaSlice<u32>), Error> {
    Ok((
        stream.clone_htod(&vec![POISON_U32; ROOM * THREADS])?,
        stream.clone_htod(&vec![POISON_U32; ROOM * META])?,
    ))
}

/// Checks a launch of `blocks` blocks in clusters of `cluster` against the host: every
/// thread's value, every block's shape `(32, 4, 1)` and cluster rank, and the poison past the
/// grid. Returns the `gridDim.x` the kernel saw (the same in every block), for the report.
fn check(
    label: &str,
    out: &[u32],
    meta: &[u32],
    blocks: usize,
    cluster: u32,
) -> Result<u32, String> {
    for b in 0..ROOM {
        for t in 0..THREADS {
            let want = if b < blocks {
                (b * 1000 + t) as u32
            } else {
                POISON_U32
            };
            let got = out[b * THREADS + t];
            if got != want {
                return Err(format!(
                    "{label}: out[{b} * 128 + {t}] = {got}, want {want}"
                ));
            }
        }
    }
    let grid_seen = meta[3];
    for b in 0..ROOM {
        let got = &meta[b * META..(b + 1) * META];
        let want = if b < blocks {
            [32, 4, 1, grid_seen, b as u32 % cluster, cluster]
        } else {
            [POISON_U32; META]
        };
        if got != want {
            return Err(format!("{label}: block {b}: {got:?}, want {want:?}"));
        }
    }
    Ok(grid_seen)
}

/// `<<<3, _>>>` of a `__block_size__((32, 4, 1), (2, 1, 1))` kernel: 3 clusters of 2 blocks of
/// 32 x 4 threads, the same as the launch that writes the block out; also through `config!` and
/// `LaunchConfig::kernel_block` with a grid known only at run time, and untyped (`dyn`).
#[test]
#[ignore = "needs a CUDA GPU"]
fn kernel_block_runs_three_clusters_of_two_blocks_of_the_compiled_shape() -> TestResult {
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream()?;

    let (mut out, mut meta) = buffers(&stream)?;
    unsafe { launch!(own_shape_clusters<<<3, _, &stream>>>(&mut out, &mut meta)) }?;
    let (own_out, own_meta) = (stream.clone_dtoh(&out)?, stream.clone_dtoh(&meta)?);
    let grid_seen = check("<<<3, _>>>", &own_out, &own_meta, 6, 2)?;

    // The block written out: the same result.
    let (mut out, mut meta) = buffers(&stream)?;
    unsafe { launch!(own_shape_clusters<<<3, (32, 4), &stream>>>(&mut out, &mut meta)) }?;
    let (given_out, given_meta) = (stream.clone_dtoh(&out)?, stream.clone_dtoh(&meta)?);
    check("<<<3, (32, 4)>>>", &given_out, &given_meta, 6, 2)?;
    assert_eq!(own_out, given_out, "`_` and the written block differ");
    assert_eq!(own_meta, given_meta, "`_` and the written block differ");

    // A run-time grid, through `config!` and the builder.
    let clusters: u32 = std::hint::black_box(3);
    for (label, cfg) in [
        ("config!(<<<clusters, _>>>)", config!(<<<clusters, _>>>)),
        (
            "LaunchConfig::kernel_block",
            LaunchConfig::kernel_block(clusters),
        ),
    ] {
        assert!(cfg.uses_kernel_block());
        let (mut out, mut meta) = buffers(&stream)?;
        unsafe { own_shape_clusters::kernel().launch(&stream, &cfg, (&mut out, &mut meta)) }?;
        check(
            label,
            &stream.clone_dtoh(&out)?,
            &stream.clone_dtoh(&meta)?,
            6,
            2,
        )?;
    }
    // Untyped: `dyn` takes `_` too (no PTX facts: the driver takes the block from the kernel).
    let f = own_shape_clusters::kernel().function(&ctx)?;
    let (mut out, mut meta) = buffers(&stream)?;
    unsafe { launch!(dyn f<<<3, _, &stream>>>(&mut out, &mut meta)) }?;
    check(
        "dyn <<<3, _>>>",
        &stream.clone_dtoh(&out)?,
        &stream.clone_dtoh(&meta)?,
        6,
        2,
    )?;
    println!(
        "own_shape_clusters<<<3, _>>>: 6 blocks of (32, 4, 1) in clusters of 2, {} values \
         match the host and the written-block launch; gridDim.x seen by the kernel: {grid_seen}",
        6 * THREADS
    );
    Ok(())
}

/// `<<<5, _>>>` of a `__block_size__((32, 4, 1))` kernel (clusters of one block): 5 blocks.
#[test]
#[ignore = "needs a CUDA GPU"]
fn kernel_block_without_a_cluster_runs_the_grid_in_blocks() -> TestResult {
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream()?;
    let (mut out, mut meta) = buffers(&stream)?;
    unsafe { launch!(own_shape<<<5, _, &stream>>>(&mut out, &mut meta)) }?;
    let grid_seen = check(
        "own_shape<<<5, _>>>",
        &stream.clone_dtoh(&out)?,
        &stream.clone_dtoh(&meta)?,
        5,
        1,
    )?;
    println!("own_shape<<<5, _>>>: 5 blocks of (32, 4, 1); gridDim.x seen: {grid_seen}");
    Ok(())
}

/// A launch in the kernel's own shape captured into a graph: the kernel node keeps the
/// required-block form, and each replay gives the direct launch's result.
#[test]
#[ignore = "needs a CUDA GPU"]
fn kernel_block_in_a_captured_graph() -> TestResult {
    let _serial = gpu::serial();
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream()?;
    let (mut out, mut meta) = buffers(&stream)?;
    let (mut graph, ()) = unsafe {
        Graph::capture(&stream, |capture| {
            let s = capture.stream();
            launch!(own_shape_clusters<<<3, _, s>>>(&mut out, &mut meta))?;
            Ok(())
        })
    }?;
    for _ in 0..2 {
        graph.replay(&stream)?;
    }
    drop(graph);
    check(
        "captured <<<3, _>>>",
        &stream.clone_dtoh(&out)?,
        &stream.clone_dtoh(&meta)?,
        6,
        2,
    )?;
    println!("own_shape_clusters<<<3, _>>> captured and replayed twice: matches the host");
    Ok(())
}

/// A kernel without compiled-in block dimensions is refused in its own shape before the
/// driver sees the launch (`launch!` refuses the literal form at compile time: a ui case), and
/// its output stays poisoned.
#[test]
#[ignore = "needs a CUDA GPU"]
fn kernel_block_of_a_kernel_without_reqntid_is_refused() -> TestResult {
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream()?;
    let mut out = stream.clone_htod(&vec![POISON_U32; 64])?;
    let cfg = LaunchConfig::kernel_block(std::hint::black_box(2u32));
    let err = unsafe { explicit_rank::kernel().launch(&stream, &cfg, (&mut out,)) }
        .expect_err("no `.reqntid`: refused");
    let text = err.to_string();
    assert!(matches!(err, Error::KernelConstraint { .. }), "{err:?}");
    assert!(
        text.contains("has no compiled-in block dimensions")
            && text.contains("this launch: the kernel's own block shape (`_`)"),
        "{text}"
    );
    assert!(stream.clone_dtoh(&out)?.iter().all(|v| *v == POISON_U32));
    println!("refused: {text}");
    Ok(())
}

/// The occupancy of a launch in the kernel's own block shape is that of its compiled-in block
/// (32 × 4 threads, the `.reqntid` chevron read when it loaded the kernel), not of the
/// placeholder block (1, 1, 1) the driver is given, nor of the driver's
/// `CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK` (1024). For a function chevron did not load, the
/// block is not known: an error saying so, not numbers for the placeholder.
#[test]
#[ignore = "needs a CUDA GPU"]
fn kernel_block_occupancy_is_the_compiled_blocks() -> TestResult {
    let ctx = gpu::context(0)?;
    let own = own_shape::kernel().occupancy(&ctx, &LaunchConfig::kernel_block(5u32))?;
    let written = own_shape::kernel().occupancy(&ctx, &LaunchConfig::new(5u32, (32u32, 4u32)))?;
    let placeholder = own_shape::kernel().occupancy(&ctx, &LaunchConfig::new(5u32, 1u32))?;
    println!(
        "occupancy of own_shape: with `_` {} blocks/SM, {} warps/SM; with (32, 4) {} blocks/SM, \
         {} warps/SM; with (1, 1, 1) {} blocks/SM",
        own.blocks_per_sm,
        own.active_warps_per_sm,
        written.blocks_per_sm,
        written.active_warps_per_sm,
        placeholder.blocks_per_sm
    );
    assert_eq!(
        (own.blocks_per_sm, own.active_warps_per_sm),
        (written.blocks_per_sm, written.active_warps_per_sm)
    );
    assert_eq!(
        own.active_warps_per_sm,
        own.blocks_per_sm * 4,
        "4 warps a block"
    );
    assert_ne!(
        (own.blocks_per_sm, own.active_warps_per_sm),
        (placeholder.blocks_per_sm, placeholder.active_warps_per_sm),
        "the placeholder block gives other numbers, so the check can fail"
    );
    // The same function loaded by hand: chevron never read its PTX.
    let module = ctx.load_module(chevron::cudarc::nvrtc::Ptx::from_src(include_str!(
        "../kernels/kernel_block.ptx"
    )))?;
    let by_hand = module.load_function("own_shape")?;
    match chevron::occupancy(&ctx, &by_hand, &LaunchConfig::kernel_block(5u32)) {
        Err(e @ Error::Unavailable { .. }) => println!("by hand, with `_`: {e}"),
        other => return Err(format!("expected Error::Unavailable, got {other:?}").into()),
    }
    Ok(())
}
