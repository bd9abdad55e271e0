//! The host work of a launch without a GPU (`benches/host_work`, which `cargo bench --bench
//! host_cost` times): each step hands the driver what the launch says, allocates nothing, and,
//! in a release build (`cargo test --release --test host_cost`), stays within a budget far above
//! its measured cost, so that a change adding work of another order to every launch (a lock, a
//! formatted string, a scan of a table) fails here on any machine.

#[path = "../benches/host_work/mod.rs"]
mod host_work;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::hint::black_box;
use std::io::Write;
use std::time::Instant;

use host_work::{Inputs, Launched};

thread_local! {
    /// Allocations made by this thread (the tests of this binary run in threads of their own).
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

struct Counting;

// SAFETY: forwards to the system allocator, counting calls in a thread-local without a
// destructor (usable at any point of a thread's life).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations() -> usize {
    ALLOCATIONS.with(Cell::get)
}

/// `CU_LAUNCH_ATTRIBUTE_PRIORITY` and `CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN`.
const TWO: [u32; 2] = [8, 10];

#[test]
fn each_step_hands_the_driver_what_the_launch_says() {
    let i = Inputs::DEFAULT;
    let want = |attrs: &[u32], params: bool| {
        let mut a = [0u32; 4];
        a[..attrs.len()].copy_from_slice(attrs);
        Launched {
            grid: [i.grid, 1, 1],
            block: [i.block, 1, 1],
            shared: 0,
            attrs: a,
            n_attrs: attrs.len() as u32,
            n: if params { i.n } else { 0 },
            a: if params { i.a } else { 0.0 },
            x: if params { i.x } else { 0 },
            y: if params { i.y } else { 0 },
        }
    };
    assert_eq!(host_work::typed().unwrap(), want(&[], true));
    assert_eq!(host_work::typed_two_attributes().unwrap(), want(&TWO, true));
    // A stream attribute is not in the launch's attribute array.
    assert_eq!(
        host_work::typed_stream_attribute().unwrap(),
        want(&[], true)
    );
    assert_eq!(
        host_work::typed_prebuilt(&host_work::PREBUILT).unwrap(),
        want(&TWO, true)
    );
    assert_eq!(host_work::dynamic().unwrap(), want(&[], true));
    assert_eq!(host_work::config_only().unwrap(), want(&[], false));
    assert_eq!(
        host_work::config_value_two_attributes().unwrap(),
        want(&TWO, false)
    );
    assert_eq!(host_work::validate_only().unwrap(), want(&TWO, false));
    assert_eq!(host_work::kernel_rules_only().unwrap(), want(&TWO, false));
    assert_eq!(host_work::kernel_rules_each().unwrap(), want(&TWO, false));
    for step in host_work::steps() {
        assert!((step.run)().is_ok(), "{}", step.name);
    }
}

#[test]
fn the_steps_check_what_a_launch_checks() {
    use chevron::__private::{check_arg_sizes, ArgSlot, ArgSlots, ArgStorage, LaunchRules};
    use chevron::{Cooperative, LaunchConfig};
    let rules = const { LaunchRules::of(&<host_work::saxpy as chevron::TypedKernel>::INFO) };
    let check = |config: &LaunchConfig<'_>| host_work::SAXPY.__check_config(rules, config);
    // A config over the limits is refused by the typed launch's own check, with the limit's
    // words; so is `cooperative` for `saxpy`, which never syncs its grid, with the kernel's.
    assert!(check(&LaunchConfig::new(1, 256)).is_ok());
    for (config, want) in [
        (
            LaunchConfig::new(1, (64, 32)),
            "block (64, 32, 1) has 2048 threads",
        ),
        (LaunchConfig::new(0, 256), "grid x is 0"),
        (LaunchConfig::new((1, 65536), 256), "grid y is 65536"),
        (
            LaunchConfig::new(1, 256).with(Cooperative),
            "kernel `saxpy` never syncs the whole grid",
        ),
    ] {
        let e = check(&config).expect_err(want).to_string();
        assert!(e.contains(want), "{e}");
    }
    // The dyn launch's check of its config.
    assert!(matches!(
        LaunchConfig::new(1, (64, 32)).validate(),
        Err(chevron::Violation::BlockTooLarge { .. })
    ));
    // Arguments of other sizes than the kernel's parameters are refused.
    let (n, wide) = (1u32, 2u64);
    let mut storage = ArgStorage::<2>::new();
    let mut slots = ArgSlots::new(&mut storage);
    slots.set(0, ArgSlot::value(&n));
    slots.set(1, ArgSlot::value(&wide));
    assert!(check_arg_sizes(&[4, 8], &slots).is_ok());
    assert!(matches!(
        check_arg_sizes(&[4, 4], &slots),
        Err(chevron::Error::Signature { .. })
    ));
    assert!(check_arg_sizes(&host_work::SAXPY_SIZES, &slots).is_err());
    // Slots are set in order; one set out of order is dropped and the launch refused.
    let mut storage = ArgStorage::<2>::new();
    let mut slots = ArgSlots::new(&mut storage);
    slots.set(1, ArgSlot::value(&wide));
    slots.set(0, ArgSlot::value(&n));
    assert!(matches!(
        check_arg_sizes(&[4, 8], &slots),
        Err(chevron::Error::Signature { .. })
    ));
}

#[test]
fn no_step_allocates() {
    for step in host_work::steps() {
        // The first run may initialize statics (the prebuilt config).
        (step.run)().unwrap();
        let before = allocations();
        for _ in 0..1000 {
            black_box((step.run)().ok());
        }
        assert_eq!(allocations() - before, 0, "{} allocated", step.name);
    }
    // The counter sees this thread's allocations.
    let before = allocations();
    black_box(vec![1u8; 16]);
    assert_eq!(allocations() - before, 1);
}

/// The fastest of 15 repetitions of 20,000 launches must stay under 250 ns per launch for
/// whole launches and 100 ns for single steps. Measured (fastest, on a shared 2-core machine):
/// 18–47 ns per whole launch, 11–47 ns per step; on the H200's host see the results page.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "timings need a release build: cargo test --release --test host_cost"
)]
fn the_host_work_of_a_launch_stays_within_its_budget() {
    // `--ignored` (the GPU test command) runs it in a debug build too, where timings mean nothing.
    if cfg!(debug_assertions) {
        // Past the harness's capture, after its `test … ` prefix, as the GPU tests' skip.
        let mut out = std::io::stdout().lock();
        let _ = writeln!(
            out,
            "skipped: a debug build's timings mean nothing (cargo test --release --test host_cost)"
        );
        return;
    }
    let mut report = Vec::new();
    for step in host_work::steps() {
        let mut fastest = f64::MAX;
        for _ in 0..15 {
            let t = Instant::now();
            for _ in 0..20_000 {
                black_box((step.run)().ok());
            }
            fastest = fastest.min(t.elapsed().as_secs_f64() * 1e9 / 20_000.0);
        }
        let budget = if step.name.starts_with("  ") {
            100.0
        } else {
            250.0
        };
        println!("{:<40} {fastest:6.1} ns (budget {budget} ns)", step.name);
        report.push((step.name, fastest, budget));
    }
    for (name, fastest, budget) in report {
        assert!(
            fastest < budget,
            "{name}: {fastest:.1} ns per launch, over {budget} ns"
        );
    }
}
