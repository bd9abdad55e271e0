//! SM partitions (green contexts, `chevron::Partition`) on a real GPU: a split's SM counts, that
//! a partition's stream runs the device's kernels on the partition's SMs only (read back with
//! `%smid`), that a `cooperative` launch sized for the device is refused on a partition with
//! both SM counts in the error while one sized for the partition runs (and its grid barrier
//! holds), the occupancy queries answered for the partition, and a partition held by a stream
//! left alive when dropped.
//!
//! Run on a machine with a CUDA GPU: `cargo test --release --test partition_gpu --
//! --include-ignored --nocapture --test-threads=1` (the tests print the numbers they measure).

#[path = "common/gpu.rs"]
mod gpu;

use std::collections::BTreeSet;

use chevron::cudarc::driver::CudaSlice;
use chevron::{kernel, launch, ClusterDim, Error, LaunchConfig, Partition};

type TestResult = Result<(), Box<dyn std::error::Error>>;

#[kernel(ptx = "kernels/partition.ptx")]
fn smid(out: &mut CudaSlice<u32>, ns: u64);

#[kernel(ptx = "kernels/cooperative.ptx")]
fn grid_rotate(input: &CudaSlice<i32>, tmp: &mut CudaSlice<i32>, out: &mut CudaSlice<i32>, n: u32);

#[kernel(ptx = "kernels/cluster.ptx")]
fn cluster_info(out: &mut CudaSlice<u32>);

/// `y = a·x + y`
#[kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

const POISON: u32 = 0xDEAD_BEEF;
/// The SMs asked for the first partition (the driver's minimum on compute capability 9.0).
const ASK: u32 = 8;

/// The SMs blocks of `smid` ran on, `blocks` of them at 5 µs each, on `stream`.
fn sms_used(
    stream: &std::sync::Arc<chevron::cudarc::driver::CudaStream>,
    blocks: u32,
) -> Result<BTreeSet<u32>, Box<dyn std::error::Error>> {
    let mut out = stream.clone_htod(&vec![POISON; blocks as usize])?;
    unsafe { launch!(smid<<<blocks, 64, stream>>>(&mut out, 5_000)) }?;
    let out = stream.clone_dtoh(&out)?;
    assert!(
        !out.contains(&POISON),
        "every block of `smid` writes its SM: {out:?}"
    );
    Ok(out.into_iter().collect())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_split_gives_two_partitions_whose_sms_add_up_to_at_most_the_device() -> TestResult {
    let ctx = gpu::context(0)?;
    let (mut part, mut rest) = Partition::split(&ctx, ASK)?;
    let device = part.device_sms();
    println!(
        "split of {ASK} SMs: {} + {} of {device} SMs",
        part.sms(),
        rest.sms()
    );
    assert!(part.sms() >= ASK, "at least the SMs asked for");
    assert!(rest.sms() > 0);
    assert!(part.sms() + rest.sms() <= device);
    assert_eq!(rest.device_sms(), device);
    let (a, b) = (part.new_stream()?, rest.new_stream()?);
    assert_eq!(chevron::stream_sms(&a)?, part.sms());
    assert_eq!(chevron::stream_sms(&b)?, rest.sms());
    let device_stream = ctx.new_stream()?;
    assert_eq!(chevron::stream_sms(&device_stream)?, device);

    // Misuse: nothing left for the rest, and 0 SMs.
    for (sms, want) in [(device, "leaves none"), (0, "0 SMs")] {
        match Partition::split(&ctx, sms) {
            Err(e @ Error::Partition { .. }) => {
                let message = e.to_string();
                println!("split of {sms}: {message}");
                assert!(message.contains(want), "{message}");
            }
            other => panic!("split of {sms} SMs: want Error::Partition, got {other:?}"),
        }
    }
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_partition_stream_runs_the_devices_kernels_on_its_sms_only() -> TestResult {
    let ctx = gpu::context(0)?;
    let device_stream = ctx.new_stream()?;
    let (mut part, _rest) = Partition::split(&ctx, ASK)?;
    let stream = part.new_stream()?;

    // A kernel of the device's context, a buffer made on a device stream, used on the
    // partition's stream and read back on the device stream: cudarc's events order them.
    let n = 100_000u32;
    let x: Vec<f32> = (0..n).map(|i| (i % 251) as f32 * 0.5).collect();
    let y0: Vec<f32> = (0..n).map(|i| (i % 17) as f32 - 3.0).collect();
    let xs = device_stream.clone_htod(&x)?;
    let mut ys = device_stream.clone_htod(&y0)?;
    unsafe { launch!(saxpy<<<n.div_ceil(256), 256, &stream>>>(n, 2.0, &xs, &mut ys)) }?;
    let got = device_stream.clone_dtoh(&ys)?;
    let want: Vec<f32> = x
        .iter()
        .zip(&y0)
        .map(|(x, y)| 2.0f32.mul_add(*x, *y))
        .collect();
    assert_eq!(got, want, "saxpy on the partition's stream");

    // Many more blocks than the partition has SMs: they run on at most its SMs; on the device
    // stream the same launch spreads over more.
    let blocks = part.device_sms() * 4;
    let on_part = sms_used(&stream, blocks)?;
    let on_device = sms_used(&device_stream, blocks)?;
    println!(
        "{blocks} blocks: {} distinct SMs on the partition's stream ({} SMs), {} on a device \
         stream ({} SMs)",
        on_part.len(),
        part.sms(),
        on_device.len(),
        part.device_sms()
    );
    assert!(on_part.len() as u32 <= part.sms(), "{on_part:?}");
    assert!(on_device.len() as u32 > part.sms(), "{on_device:?}");
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_cooperative_launch_sized_for_the_device_is_refused_on_a_partition() -> TestResult {
    let ctx = gpu::context(0)?;
    let (mut part, _rest) = Partition::split(&ctx, ASK)?;
    let stream = part.new_stream()?;
    let threads = 256u32;
    let device_grid = grid_rotate::kernel().max_cooperative_grid(&ctx, threads, 0)?;
    let f = grid_rotate::kernel().function(&ctx)?;
    let part_grid = part.max_cooperative_grid(&f, threads, 0)?;
    let per_sm = device_grid / part.device_sms();
    println!(
        "grid_rotate at block {threads}: device {device_grid} blocks ({} SMs), partition \
         {part_grid} blocks ({} SMs)",
        part.device_sms(),
        part.sms()
    );
    assert_eq!(part_grid, part.sms() * per_sm);
    assert!(part_grid < device_grid);

    let run = |grid: u32| -> Result<Vec<i32>, Error> {
        let n = grid * threads;
        let input: Vec<i32> = (0..n as i32)
            .map(|i| i.wrapping_mul(7919) % 100_003)
            .collect();
        let input = stream.clone_htod(&input)?;
        let mut tmp = stream.clone_htod(&vec![-1i32; n as usize])?;
        let mut out = stream.clone_htod(&vec![-1i32; n as usize])?;
        unsafe {
            launch!(grid_rotate<<<grid, threads, &stream, cooperative>>>(&input, &mut tmp, &mut out, n))
        }?;
        Ok(stream.clone_dtoh(&out)?)
    };
    // Sized for the device: refused before launching, with both SM counts.
    match run(device_grid) {
        Err(e @ Error::CooperativeTooLargeForPartition { .. }) => {
            let message = e.to_string();
            println!("{message}");
            for want in [
                format!("{device_grid} blocks"),
                format!("{} of the device's {} SMs", part.sms(), part.device_sms()),
                format!("use at most {part_grid} blocks"),
            ] {
                assert!(message.contains(&want), "`{want}` in: {message}");
            }
        }
        other => panic!("want Error::CooperativeTooLargeForPartition, got {other:?}"),
    }
    // Sized for the partition: runs, and its grid-wide barrier holds.
    let out = run(part_grid)?;
    let n = part_grid * threads;
    for t in 0..n {
        let src = (t + threads) % n;
        let want = ((src as i32).wrapping_mul(7919) % 100_003) * 3;
        assert_eq!(out[t as usize], want, "element {t}");
    }
    println!("a cooperative grid of {part_grid} blocks ran on the partition: {n} values match");
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn occupancy_and_clusters_are_answered_for_the_partition() -> TestResult {
    let ctx = gpu::context(0)?;
    let (part, rest) = Partition::split(&ctx, ASK)?;
    let f = cluster_info::kernel().function(&ctx)?;
    let cfg = LaunchConfig::new(8, 32).with(ClusterDim::new(2, 1, 1));
    let device_occ = cluster_info::kernel().occupancy(&ctx, &cfg)?;
    let part_occ = part.occupancy(&f, &cfg)?;
    assert_eq!(part_occ.sms, part.sms());
    assert_eq!(part_occ.blocks_per_sm, device_occ.blocks_per_sm);
    assert_eq!(
        part_occ.co_resident_blocks(),
        u64::from(part.sms()) * u64::from(device_occ.blocks_per_sm)
    );
    let device_clusters = cluster_info::kernel().max_active_clusters(&ctx, &cfg)?;
    let part_clusters = part.max_active_clusters(&f, &cfg)?;
    let rest_clusters = rest.max_active_clusters(&f, &cfg)?;
    println!(
        "cluster_info, clusters of 2: device {device_clusters}, partition of {} SMs \
         {part_clusters}, rest of {} SMs {rest_clusters}",
        part.sms(),
        rest.sms()
    );
    assert!(part_clusters > 0 && rest_clusters > 0);
    assert!(part_clusters < device_clusters);
    assert!(u64::from(part_clusters) * 2 <= part_occ.co_resident_blocks());
    assert!(rest_clusters <= device_clusters);
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_partition_whose_stream_is_held_stays_alive_when_dropped() -> TestResult {
    let ctx = gpu::context(0)?;
    let (mut part, rest) = Partition::split(&ctx, ASK)?;
    let held = part.new_stream()?;
    let sms = part.sms();
    drop(part);
    drop(rest);
    // The stream still runs kernels, on the partition's SMs.
    let used = sms_used(&held, sms * 4)?;
    assert!(used.len() as u32 <= sms, "{used:?}");
    assert_eq!(chevron::stream_sms(&held)?, sms);
    println!(
        "a held stream of a dropped partition still ran on {} SMs",
        used.len()
    );
    Ok(())
}
