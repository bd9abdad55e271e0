//! Host time of one launch without a GPU: what `launch!` and the runtime do before
//! `cuLaunchKernelEx` (building the config, the kernel's rules, the config's limits, the
//! arguments), on fake device pointers, so that a change that makes launches slower shows here
//! on any machine. `cargo bench --bench host_cost`; `benches/host_work/mod.rs` says what is
//! measured and what is left to `examples/launch_overhead.rs` (the driver's part).
//!
//! Prints, per step, the median over 15 repetitions of 200,000 launches, in ns per launch.
//! Without `--bench` (as `cargo test --benches` runs it) it does 2 repetitions of 1,000, only to
//! show that it runs.

#[path = "host_work/mod.rs"]
mod host_work;

use std::hint::black_box;
use std::time::Instant;

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let (reps, iters) = if full { (15, 200_000) } else { (2, 1_000) };
    println!(
        "host work per launch, no driver (median of {reps} × {iters} launches; ns per launch):"
    );
    for step in host_work::steps() {
        let want = (step.run)().unwrap_or_else(|e| panic!("{}: {e}", step.name));
        let mut times = Vec::with_capacity(reps);
        for _ in 0..reps {
            let t = Instant::now();
            for _ in 0..iters {
                black_box((step.run)().ok());
            }
            times.push(t.elapsed().as_secs_f64() * 1e9 / iters as f64);
        }
        assert_eq!((step.run)().ok(), Some(want), "{}", step.name);
        times.sort_by(f64::total_cmp);
        println!(
            "  {:<40} {:7.1} ns   (fastest {:.1})",
            step.name,
            times[reps / 2],
            times[0]
        );
    }
}
