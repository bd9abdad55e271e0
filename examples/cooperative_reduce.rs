//! A cooperative launch (`cooperative`, `CU_LAUNCH_ATTRIBUTE_COOPERATIVE`): the sum of 2^28 floats
//! in one kernel whose blocks meet at `grid.sync()`, against the same arithmetic as two kernels.
//!
//! The grid is as large as can be co-resident (blocks per SM from the occupancy calculator × SMs),
//! which a cooperative launch requires. Prints the time of both versions (CUDA events, median of
//! interleaved repeats), checks that both give the same bits and match the host's sum (f64), then
//! launches one block more than fits and prints chevron's error, `Error::CooperativeTooLarge`,
//! with the numbers.
//!
//! `cargo run --release --example cooperative_reduce`. Exit code 0 when the checks pass, 2 on a
//! machine without a CUDA driver (one `error: …` line), 1 for any other failure.

mod common;

use std::error::Error;
use std::process::ExitCode;

use chevron::cudarc::driver::{sys, CudaSlice};
use chevron::{kernel, launch};

/// One kernel: block partials, `grid.sync()`, block 0 adds them.
#[kernel(ptx = "kernels/reduce.ptx")]
fn reduce_coop(x: &CudaSlice<f32>, n: u64, partial: &mut CudaSlice<f32>, sum: &mut CudaSlice<f64>);

/// First of two kernels: block partials.
#[kernel(ptx = "kernels/reduce.ptx")]
fn reduce_partials(x: &CudaSlice<f32>, n: u64, partial: &mut CudaSlice<f32>);

/// Second of two kernels: one block adds the partials.
#[kernel(ptx = "kernels/reduce.ptx")]
fn reduce_final(partial: &CudaSlice<f32>, blocks: u32, sum: &mut CudaSlice<f64>);

/// The kernels' shared-memory trees are written for 256 threads.
const BLOCK: u32 = 256;

fn main() -> ExitCode {
    common::exit_code(run())
}

fn run() -> Result<(), Box<dyn Error>> {
    // 2^28 floats (1 GiB), or 2^20 under CHEVRON_QUICK: the kernels stride over any n, so the
    // co-resident grid (from the occupancy helper, unchanged) just has fewer floats per thread.
    let (n, size_label) = if common::quick() {
        (1u64 << 20, "2^20 f32 (4 MiB)")
    } else {
        (1u64 << 28, "2^28 f32 (1 GiB)")
    };
    let repeats: usize = common::size(21, 2);
    let ctx = chevron::context(0)?;
    // After the context, so that without a driver the one `error: …` line is all there is.
    common::announce_quick();
    let stream = ctx.new_stream()?;
    println!("device 0: {}", ctx.name()?);

    // Not constant, mostly positive (so the sum does not cancel to nothing), exact in f32.
    let host: Vec<f32> = (0..n)
        .map(|i| ((i.wrapping_mul(2_654_435_761) >> 16) & 0xFFFF) as f32 / 65_536.0 - 0.25)
        .collect();
    let want: f64 = host.iter().map(|&v| f64::from(v)).sum();
    let scale: f64 = host.iter().map(|&v| f64::from(v).abs()).sum();
    let x = stream.clone_htod(&host)?;
    drop(host);

    // The occupancy helper of the declaration: SMs × blocks per SM at this block size and shared
    // memory, the most a cooperative launch may use.
    let grid = reduce_coop::kernel().max_cooperative_grid(&ctx, BLOCK, 0)?;
    println!("co-resident grid: {grid} blocks of {BLOCK} threads");
    let mut partial = stream.alloc_zeros::<f32>(grid as usize + 1)?;
    let mut sum_one = stream.clone_htod(&[f64::NAN])?;
    let mut sum_two = stream.clone_htod(&[f64::NAN])?;

    let timing = Some(sys::CUevent_flags::CU_EVENT_DEFAULT);
    let (start, end) = (ctx.new_event(timing)?, ctx.new_event(timing)?);
    let (mut one, mut two) = (Vec::new(), Vec::new());
    for repeat in 0..=repeats {
        // SAFETY: the kernels take n and stride over it; `partial` holds one float per block.
        start.record(&stream)?;
        unsafe {
            launch!(reduce_coop<<<grid, BLOCK, &stream, cooperative>>>(&x, n, &mut partial, &mut sum_one))
        }?;
        end.record(&stream)?;
        let t_one = start.elapsed_ms(&end)?;
        start.record(&stream)?;
        unsafe { launch!(reduce_partials<<<grid, BLOCK, &stream>>>(&x, n, &mut partial)) }?;
        unsafe { launch!(reduce_final<<<1, BLOCK, &stream>>>(&partial, grid, &mut sum_two)) }?;
        end.record(&stream)?;
        let t_two = start.elapsed_ms(&end)?;
        if repeat > 0 {
            one.push(f64::from(t_one));
            two.push(f64::from(t_two));
        }
    }
    let got_one = stream.clone_dtoh(&sum_one)?[0];
    let got_two = stream.clone_dtoh(&sum_two)?[0];
    for v in [&mut one, &mut two] {
        v.sort_by(f64::total_cmp);
    }
    let (m_one, m_two) = (one[repeats / 2], two[repeats / 2]);
    let gbps = |ms: f64| n as f64 * 4.0 / (ms * 1e-3) / 1e9;

    println!();
    println!("sum of {size_label}, median of {repeats}:");
    println!("| version | time | read bandwidth | sum |");
    println!("|---|---|---|---|");
    println!(
        "| one cooperative kernel, `grid.sync()` | {m_one:.3} ms | {:.0} GB/s | {got_one} |",
        gbps(m_one)
    );
    println!(
        "| two kernels | {m_two:.3} ms | {:.0} GB/s | {got_two} |",
        gbps(m_two)
    );
    println!("| ratio one / two | {:.3}× | | |", m_one / m_two);
    println!("| host (f64) | | | {want} |");

    let tolerance = scale * 1e-6;
    if got_one.to_bits() != got_two.to_bits() {
        return Err(format!("one kernel gave {got_one}, two kernels {got_two}").into());
    }
    if (got_one - want).abs() > tolerance {
        return Err(format!("the GPU's sum {got_one} differs from the host's {want}").into());
    }
    println!();
    println!(
        "checked: both versions give the same bits; |gpu - host| = {:.3e} (tolerance {tolerance:.3e})",
        (got_one - want).abs()
    );

    // One block more than can be co-resident: the driver refuses the cooperative launch, and
    // chevron says why with the occupancy numbers.
    let too_many = grid + 1;
    let refused = unsafe {
        launch!(reduce_coop<<<too_many, BLOCK, &stream, cooperative>>>(&x, n, &mut partial, &mut sum_one))
    };
    match refused {
        Err(
            e @ chevron::Error::CooperativeTooLarge {
                requested,
                co_resident,
                ..
            },
        ) if requested == u64::from(too_many) && co_resident == u64::from(grid) => {
            println!("checked: {too_many} blocks is refused: error: {e}");
        }
        Err(e) => return Err(format!("{too_many} blocks: unexpected error: {e}").into()),
        Ok(()) => {
            return Err(format!(
                "a cooperative launch of {too_many} blocks (over the co-resident {grid}) succeeded"
            )
            .into())
        }
    }
    Ok(())
}
