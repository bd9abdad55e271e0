//! Launches from many threads at once: 8 threads × 10,000 launches, each on its own stream with
//! its own stream attributes, results checked exactly; 32 threads making the first launch of one
//! kernel at the same moment load its module once, and get one kernel (the runtime's table of
//! declarations makes it once). Run on a machine with a CUDA GPU:
//! `cargo test --test concurrency_gpu -- --ignored --nocapture`.

#[path = "common/gpu.rs"]
mod gpu;

use std::sync::{Arc, Barrier};
use std::time::Instant;

use chevron::cudarc::driver::{CudaContext, CudaSlice};
use chevron::{kernel, launch, stream_attribute, MemSyncDomain, Priority, SyncPolicy};

type TestResult = Result<(), Box<dyn std::error::Error>>;

#[kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

// Launched only by the race test (with trigger 0: it never traps), so that the modules of its
// file it counts are those the race loaded.
#[kernel(ptx = "kernels/trap.ptx")]
fn trap(trigger: u32, out: &mut CudaSlice<u32>);

const THREADS: usize = 8;
const LAUNCHES: usize = 10_000;
const N: u32 = 1024;

#[test]
#[ignore = "needs a CUDA GPU"]
fn eight_threads_ten_thousand_launches_each_on_their_own_streams() -> TestResult {
    let ctx = gpu::context(0)?;
    let start = Instant::now();
    let results: Vec<Result<(), String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..THREADS)
            .map(|t| {
                let ctx = Arc::clone(&ctx);
                scope.spawn(move || one_thread(&ctx, t).map_err(|e| format!("thread {t}: {e}")))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err("a thread panicked".into())))
            .collect()
    });
    let took = start.elapsed();
    for r in &results {
        if let Err(e) = r {
            panic!("{e}");
        }
    }
    println!(
        "{THREADS} threads × {LAUNCHES} launches, each stream with its own attributes: all \
         results exact, {took:?} ({:.2} µs per launch overall)",
        took.as_secs_f64() * 1e6 / (THREADS * LAUNCHES) as f64
    );
    Ok(())
}

/// Thread `t`: y = i, then LAUNCHES times y += (t + 1)·1 on its own stream with a sync policy,
/// memory-sync domain and priority of its own; y must end at i + LAUNCHES·(t + 1) (exact in
/// f32: below 2^24).
fn one_thread(ctx: &Arc<CudaContext>, t: usize) -> Result<(), Box<dyn std::error::Error>> {
    let stream = ctx.new_stream()?;
    let sync = [
        SyncPolicy::Auto,
        SyncPolicy::Spin,
        SyncPolicy::Yield,
        SyncPolicy::BlockingSync,
    ][t % 4];
    let domain = [MemSyncDomain::Default, MemSyncDomain::Remote][t % 2];
    let priority = -((t % 2) as i32); // 0 or -1: inside every device's range
    let x = stream.clone_htod(&vec![1.0f32; N as usize])?;
    let y0: Vec<f32> = (0..N).map(|i| i as f32).collect();
    let mut y = stream.clone_htod(&y0)?;
    let a = (t + 1) as f32;
    for _ in 0..LAUNCHES {
        unsafe {
            launch!(saxpy<<<N / 256, 256, &stream,
                stream(sync = sync, mem_sync_domain = domain, priority = priority)
            >>>(N, a, &x, &mut y))
        }?;
    }
    let out = stream.clone_dtoh(&y)?;
    for (i, v) in out.iter().enumerate() {
        let want = i as f32 + (LAUNCHES as f32) * a;
        if *v != want {
            return Err(format!("y[{i}] = {v}, want {want}").into());
        }
    }
    // Each stream kept its own attributes while the others set theirs.
    if stream_attribute::<SyncPolicy>(&stream)? != Some(sync)
        || stream_attribute::<MemSyncDomain>(&stream)? != Some(domain)
        || stream_attribute::<Priority>(&stream)? != Some(Priority(priority))
    {
        return Err(format!(
            "stream attributes: {:?} {:?} {:?}, want {sync:?} {domain:?} {priority}",
            stream_attribute::<SyncPolicy>(&stream)?,
            stream_attribute::<MemSyncDomain>(&stream)?,
            stream_attribute::<Priority>(&stream)?
        )
        .into());
    }
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn thirty_two_first_launches_at_once_load_one_module() -> TestResult {
    const RACERS: usize = 32;
    let ctx = gpu::context(0)?;
    assert_eq!(
        chevron::__private::modules_loaded(&ctx, "/kernels/trap.ptx"),
        0,
        "trap.ptx was loaded before the race"
    );
    let barrier = Barrier::new(RACERS);
    let functions: Vec<Result<(usize, usize), String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..RACERS)
            .map(|t| {
                let (ctx, barrier) = (Arc::clone(&ctx), &barrier);
                scope.spawn(move || -> Result<(usize, usize), String> {
                    let stream = ctx.new_stream().map_err(|e| e.to_string())?;
                    let mut out = stream
                        .clone_htod(&[0xDEAD_BEEFu32])
                        .map_err(|e| e.to_string())?;
                    barrier.wait();
                    unsafe { launch!(trap<<<1, 32, &stream>>>(0, &mut out)) }
                        .map_err(|e| format!("racer {t}: {e}"))?;
                    let v = stream.clone_dtoh(&out).map_err(|e| e.to_string())?;
                    if v != [1] {
                        return Err(format!("racer {t}: out = {v:?}, want [1]"));
                    }
                    let kernel = trap::kernel();
                    let f = kernel.function(&ctx).map_err(|e| e.to_string())?;
                    Ok((f.cu_function() as usize, kernel as *const _ as usize))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err("a racer panicked".into())))
            .collect()
    });
    let (functions, kernels): (Vec<usize>, Vec<usize>) = functions
        .into_iter()
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .unzip();
    let modules = chevron::__private::modules_loaded(&ctx, "/kernels/trap.ptx");
    println!(
        "{RACERS} threads' first launches at one barrier: {modules} module loaded, {} distinct \
         function handle(s)",
        {
            let mut f = functions.clone();
            f.sort();
            f.dedup();
            f.len()
        }
    );
    assert_eq!(modules, 1);
    assert!(
        kernels.iter().all(|k| *k == kernels[0]),
        "trap::kernel() differs between threads: {kernels:x?}"
    );
    assert!(
        functions.iter().all(|f| *f == functions[0] && *f != 0),
        "{functions:x?}"
    );
    Ok(())
}

/// What `bigshared` writes for block `block` and thread `t` of `threads`, reading the first
/// `words` words of `input`.
fn bigshared_host(input: &[u32], words: u32, block: u32, threads: u32, t: u32) -> u32 {
    (t..words)
        .step_by(threads as usize)
        .map(|i| {
            input[(words - 1 - i) as usize]
                .wrapping_mul(2)
                .wrapping_add(block)
        })
        .fold(0u32, u32::wrapping_add)
}

/// Issue 17 §5: the lazy opt-in to more than 48 KiB of dynamic shared memory, raced. Each of
/// 1,000 rounds loads `bigshared` afresh (a function no launch has opted in yet; every module
/// stays loaded, so no handle comes back for another function) and 8 threads, released at one
/// barrier, make its first launches with 8 different sizes between 49 KiB and the device's
/// limit; then, after a second barrier, each launches it with the largest size of the round,
/// which fails if a smaller opt-in overwrote the larger one while chevron's cache kept the
/// larger. Every launch's output is checked against the host, on poisoned buffers.
#[test]
#[ignore = "needs a CUDA GPU"]
fn concurrent_shared_memory_opt_ins_leave_the_largest() -> TestResult {
    use chevron::cudarc::driver::sys::CUdevice_attribute;
    use chevron::cudarc::nvrtc::Ptx;
    const ROUNDS: usize = 1000;
    const RACERS: usize = 8;
    const GRID: u32 = 2;
    const THREADS: u32 = 256;
    const BIGSHARED: &str = include_str!("../kernels/bigshared.ptx");
    const POISON: u32 = 0xDEAD_BEEF;
    let ctx = gpu::context(0)?;
    let limit = ctx
        .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)?
        as u32;
    // 8 sizes from 49 KiB to the limit (227 KiB on an H200), in words; the largest in the middle
    // of the thread order, so that it is not always first or last to arrive.
    let top = limit / 4;
    let low = 49 * 1024 / 4;
    let mut words: Vec<u32> = (0..RACERS as u32)
        .map(|k| low + (top - low) * k / (RACERS as u32 - 1))
        .collect();
    words.swap(RACERS - 1, RACERS / 2);
    let largest = *words.iter().max().unwrap();
    println!(
        "{ROUNDS} rounds × {RACERS} threads, dynamic shared memory of {:?} KiB (limit {} KiB)",
        words.iter().map(|w| w * 4 / 1024).collect::<Vec<_>>(),
        limit / 1024
    );
    let mut modules = Vec::with_capacity(ROUNDS);
    let mut functions = Vec::with_capacity(ROUNDS);
    for _ in 0..ROUNDS {
        let module = ctx.load_module(Ptx::from_src(BIGSHARED))?;
        functions.push(module.load_function("bigshared")?);
        modules.push(module);
    }
    let start = Barrier::new(RACERS);
    let second = Barrier::new(RACERS);
    let results: Vec<Result<usize, String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..RACERS)
            .map(|t| {
                let (ctx, functions) = (Arc::clone(&ctx), &functions);
                let (start, second, own) = (&start, &second, words[t]);
                scope.spawn(move || -> Result<usize, String> {
                    // A thread that fails keeps meeting the barriers (launching nothing more), so
                    // that the others do not wait for it forever; its first error is returned.
                    let e = |e: &dyn std::fmt::Display| format!("thread {t}: {e}");
                    let mut lcg = 0x9E37_79B9u32.wrapping_mul(t as u32 + 1);
                    let input: Vec<u32> = (0..largest)
                        .map(|_| {
                            lcg = lcg.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                            lcg
                        })
                        .collect();
                    let want = |w: u32| -> Vec<u32> {
                        (0..GRID)
                            .flat_map(|b| {
                                let input = &input;
                                (0..THREADS).map(move |i| bigshared_host(input, w, b, THREADS, i))
                            })
                            .collect()
                    };
                    let (want_own, want_largest) = (want(own), want(largest));
                    let poison = vec![POISON; (GRID * THREADS) as usize];
                    let setup = || -> Result<_, String> {
                        let stream = ctx.new_stream().map_err(|x| e(&x))?;
                        let input_dev = stream.clone_htod(&input).map_err(|x| e(&x))?;
                        let out = stream.clone_htod(&poison).map_err(|x| e(&x))?;
                        Ok((stream, input_dev, out))
                    };
                    let (mut state, mut failure) = match setup() {
                        Ok(s) => (Some(s), None),
                        Err(x) => (None, Some(x)),
                    };
                    let mut launches = 0;
                    for (round, f) in functions.iter().enumerate() {
                        for (phase, w, want) in [(1, own, &want_own), (2, largest, &want_largest)] {
                            let ready = match (&mut state, &failure) {
                                (Some((stream, _, out)), None) => stream
                                    .memcpy_htod(&poison, out)
                                    .and_then(|()| stream.synchronize())
                                    .map_err(|x| e(&x)),
                                _ => Err(String::new()),
                            };
                            if phase == 1 {
                                start.wait();
                            } else {
                                second.wait();
                            }
                            let (Ok(()), Some((stream, input_dev, out))) = (ready, &mut state)
                            else {
                                continue;
                            };
                            let at = format!("round {round}, phase {phase}, {} KiB", w * 4 / 1024);
                            let r = unsafe {
                                launch!(dyn f<<<GRID, THREADS, &*stream, shared = w * 4>>>(
                                    &*input_dev, &mut *out, &w))
                            };
                            let checked = r.map_err(|x| e(&format!("{at}: {x}"))).and_then(|()| {
                                let got = stream.clone_dtoh(out).map_err(|x| e(&x))?;
                                match got.iter().zip(want).position(|(g, w)| g != w) {
                                    None => Ok(()),
                                    Some(i) => Err(e(&format!(
                                        "{at}: out[{i}] = {:#x}, want {:#x}",
                                        got[i], want[i]
                                    ))),
                                }
                            });
                            match checked {
                                Ok(()) => launches += 1,
                                Err(x) => failure = Some(x),
                            }
                        }
                    }
                    match failure {
                        Some(x) => Err(x),
                        None => Ok(launches),
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err("a thread panicked".into())))
            .collect()
    });
    let mut launches = 0;
    for r in results {
        launches += r?;
    }
    assert_eq!(launches, ROUNDS * RACERS * 2);
    println!("{launches} launches of {ROUNDS} fresh functions, all exact");
    Ok(())
}
