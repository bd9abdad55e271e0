//! Thread-block clusters (sm_90): a 65,536-bin histogram of 2^28 bytes (2^27 16-bit keys) whose
//! bins live in distributed shared memory, split over the blocks of a cluster.
//!
//! 256 KiB of u32 bins do not fit one block's shared memory, so without clusters every key is a
//! global atomic (`hist_global`). With `cluster = (c, 1, 1)` each block keeps 65,536 / c bins and
//! adds to the owner's through `cluster.map_shared_rank` (`hist_cluster`). Variants: no cluster,
//! clusters of 2, 4 and 8 (the portable maximum), 16 (with the `non_portable_cluster` opt-in), 8
//! with `cluster_scheduling = Spread`, and 8 with `preferred_cluster = 16` (the driver uses 16
//! where it fits; the kernel counts the cluster sizes it saw, printed in the table).
//!
//! Prints each variant's time (CUDA events, median of interleaved repeats) and the ratio to the
//! global-atomic version; checks every variant's 65,536 bins against the host's histogram.
//!
//! `cargo run --release --example cluster_histogram`. Exit code 0 when the checks pass, 2 on a
//! machine without a CUDA driver (one `error: …` line), 1 for any other failure.

mod common;

use std::error::Error;
use std::process::ExitCode;

use chevron::cudarc::driver::{sys, CudaSlice};
use chevron::{kernel, launch};

/// Bins split over the cluster's shared memory; counts cluster sizes in `sizes[size]`.
#[kernel(ptx = "kernels/cluster_histogram.ptx")]
fn hist_cluster(
    bins: &mut CudaSlice<u32>,
    keys: &CudaSlice<u16>,
    n: u64,
    sizes: &mut CudaSlice<u32>,
);

/// Every key a global atomic.
#[kernel(ptx = "kernels/cluster_histogram.ptx")]
fn hist_global(bins: &mut CudaSlice<u32>, keys: &CudaSlice<u16>, n: u64);

/// The kernel's bin count (`NBINS`), which sizes each block's shared memory: not shrunk in quick
/// mode.
const BINS: usize = 65_536;
const BLOCK: u32 = 512;
/// The most blocks a variant's grid has under CHEVRON_QUICK: 16, the smallest grid here, which
/// each cluster size (2 to 16) divides; every block zeroes and flushes 65,536 / c bins whatever the
/// data, so this is what keeps a run under compute-sanitizer short.
const QUICK_GRID: u32 = 16;

#[derive(Clone, Copy)]
enum Variant {
    Global,
    Cluster(u32),
    Cluster16,
    Spread8,
    Preferred16,
}

impl Variant {
    const ALL: [Self; 7] = [
        Self::Global,
        Self::Cluster(2),
        Self::Cluster(4),
        Self::Cluster(8),
        Self::Cluster16,
        Self::Spread8,
        Self::Preferred16,
    ];

    fn name(self) -> String {
        match self {
            Self::Global => "no cluster (global atomics)".into(),
            Self::Cluster(c) => format!("`cluster = ({c}, 1, 1)`"),
            Self::Cluster16 => "`cluster = (16, 1, 1), non_portable_cluster`".into(),
            Self::Spread8 => "`cluster = (8, 1, 1), cluster_scheduling = Spread`".into(),
            Self::Preferred16 => {
                "`cluster = (8, 1, 1), preferred_cluster = (16, 1, 1), non_portable_cluster`".into()
            }
        }
    }

    /// The smallest cluster the variant can get, which sizes each block's shared memory.
    fn min_cluster(self) -> u32 {
        match self {
            Self::Global => 1,
            Self::Cluster(c) => c,
            Self::Cluster16 => 16,
            Self::Spread8 | Self::Preferred16 => 8,
        }
    }
}

fn main() -> ExitCode {
    common::exit_code(run())
}

fn run() -> Result<(), Box<dyn Error>> {
    // 2^27 keys (2^28 bytes), or 2^17 keys under CHEVRON_QUICK; the bins stay 65,536 (the
    // kernel's), and the grids at most QUICK_GRID blocks, since every block zeroes and flushes
    // its share of the bins whatever the data.
    let (n, size_label) = if common::quick() {
        (1u64 << 17, "2^18 bytes (2^17 u16 keys)")
    } else {
        (1u64 << 27, "2^28 bytes (2^27 u16 keys)")
    };
    let repeats: usize = common::size(11, 2);
    let ctx = chevron::context(0)?;
    // After the context, so that without a driver the one `error: …` line is all there is.
    common::announce_quick();
    let stream = ctx.new_stream()?;
    println!("device 0: {}", ctx.name()?);
    let sms =
        ctx.attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as u32;

    // Pseudo-random keys (xorshift), skewed: a quarter of them fall in 4,096 hot bins, so some
    // bins see heavy contention as in real data.
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let keys_host: Vec<u16> = (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let r = (state >> 16) as u32;
            if r & 3 == 0 {
                (r >> 2) as u16 & 0x0FFF
            } else {
                (r >> 8) as u16
            }
        })
        .collect();
    let mut want = vec![0u32; BINS];
    for &k in &keys_host {
        want[k as usize] += 1;
    }
    let keys = stream.clone_htod(&keys_host)?;
    drop(keys_host);
    let mut bins = stream.alloc_zeros::<u32>(BINS)?;
    let mut sizes = stream.alloc_zeros::<u32>(17)?;

    // A cluster of 2 needs 128 KiB of shared memory per block: over the default 48 KiB, so the
    // function opts in (a function attribute, not a launch attribute).
    let cluster_fn = hist_cluster::kernel().function(&ctx)?;
    let most_shared = BINS as u32 / 2 * 4;
    cluster_fn.set_attribute(
        sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
        most_shared as i32,
    )?;
    let global_fn = hist_global::kernel().function(&ctx)?;

    // Each variant's grid: as many blocks as fit at once at its shared-memory size, a multiple of
    // 16 (every cluster size here divides it).
    let mut plans = Vec::new();
    for variant in Variant::ALL {
        let c = variant.min_cluster();
        let shared = if c == 1 { 0 } else { BINS as u32 / c * 4 };
        let func = if c == 1 { &global_fn } else { &cluster_fn };
        let per_sm =
            func.occupancy_max_active_blocks_per_multiprocessor(BLOCK, shared as usize, None)?;
        let grid = ((sms * per_sm.max(1)) / 16 * 16).max(16);
        let grid = if common::quick() {
            grid.min(QUICK_GRID)
        } else {
            grid
        };
        plans.push((variant, shared, grid));
    }

    let timing = Some(sys::CUevent_flags::CU_EVENT_DEFAULT);
    let (start, end) = (ctx.new_event(timing)?, ctx.new_event(timing)?);
    let mut times = vec![Vec::new(); plans.len()];
    let mut seen_sizes = vec![[0u32; 17]; plans.len()];
    for repeat in 0..=repeats {
        for (v, &(variant, shared, grid)) in plans.iter().enumerate() {
            stream.memset_zeros(&mut bins)?;
            stream.memset_zeros(&mut sizes)?;
            start.record(&stream)?;
            // SAFETY: the kernels stride over n keys; bins holds 65,536 u32 and sizes 17; each
            // block's dynamic shared memory holds 65,536 / (its smallest cluster) u32.
            unsafe {
                match variant {
                    Variant::Global => {
                        launch!(hist_global<<<grid, BLOCK, &stream>>>(&mut bins, &keys, n))
                    }
                    Variant::Cluster(c) => {
                        launch!(hist_cluster<<<grid, BLOCK, &stream, shared = shared,
                        cluster = (c, 1, 1)>>>(&mut bins, &keys, n, &mut sizes))
                    }
                    Variant::Cluster16 => {
                        launch!(hist_cluster<<<grid, BLOCK, &stream, shared = shared,
                        cluster = (16, 1, 1), non_portable_cluster>>>(&mut bins, &keys, n, &mut sizes))
                    }
                    Variant::Spread8 => {
                        launch!(hist_cluster<<<grid, BLOCK, &stream, shared = shared,
                        cluster = (8, 1, 1), cluster_scheduling = Spread>>>(&mut bins, &keys, n, &mut sizes))
                    }
                    Variant::Preferred16 => {
                        // `non_portable_cluster` sets the function's opt-in only for a regular
                        // cluster over 8 blocks; for a preferred cluster of 16 the opt-in is
                        // already on the function from the 16-block variant, which runs first.
                        launch!(hist_cluster<<<grid, BLOCK, &stream, shared = shared,
                        cluster = (8, 1, 1), preferred_cluster = (16, 1, 1), non_portable_cluster>>>(
                            &mut bins, &keys, n, &mut sizes))
                    }
                }
            }?;
            end.record(&stream)?;
            let ms = f64::from(start.elapsed_ms(&end)?);
            let got = stream.clone_dtoh(&bins)?;
            if let Some(b) = (0..BINS).find(|&b| got[b] != want[b]) {
                return Err(format!(
                    "{}: bin {b} holds {}, the host counted {}",
                    variant.name(),
                    got[b],
                    want[b]
                )
                .into());
            }
            if repeat > 0 {
                times[v].push(ms);
            }
            let got_sizes = stream.clone_dtoh(&sizes)?;
            seen_sizes[v].copy_from_slice(&got_sizes);
        }
    }

    println!();
    println!("65,536-bin histogram of {size_label}, median of {repeats}:");
    println!("| variant | grid | shared/block | time | ratio to no cluster | clusters seen (size × count) |");
    println!("|---|---|---|---|---|---|");
    let medians: Vec<f64> = times
        .iter_mut()
        .map(|t| {
            t.sort_by(f64::total_cmp);
            t[t.len() / 2]
        })
        .collect();
    for (v, &(variant, shared, grid)) in plans.iter().enumerate() {
        let seen: Vec<String> = (1..17)
            .filter(|&s| seen_sizes[v][s] > 0)
            .map(|s| format!("{s} × {}", seen_sizes[v][s]))
            .collect();
        println!(
            "| {} | {grid} | {} KiB | {:.3} ms | {:.2}× | {} |",
            variant.name(),
            shared / 1024,
            medians[v],
            medians[v] / medians[0],
            if seen.is_empty() {
                "-".to_string()
            } else {
                seen.join(", ")
            }
        );
        // Every cluster reported its size: a cluster variant whose clusters were not the size it
        // asked for (or, for the preferred one, not 8 or 16) did not get what it launched with.
        let clusters: u32 = seen_sizes[v].iter().sum();
        let expected_ok = match variant {
            Variant::Global => clusters == 0,
            Variant::Preferred16 => {
                seen_sizes[v][8] * 8 + seen_sizes[v][16] * 16 == grid && clusters > 0
            }
            other => seen_sizes[v][other.min_cluster() as usize] * other.min_cluster() == grid,
        };
        if !expected_ok {
            return Err(
                format!("{}: cluster sizes seen {:?}", variant.name(), seen_sizes[v]).into(),
            );
        }
    }
    println!();
    println!(
        "checked: all {} variants × {} runs match the host's 65,536 bins; every cluster had the size launched",
        plans.len(),
        repeats + 1
    );
    Ok(())
}
