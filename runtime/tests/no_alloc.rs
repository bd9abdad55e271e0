//! Building a config with attributes allocates nothing on the heap.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use chevron_cuda_runtime::*;

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator, counting calls.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::SeqCst);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[inline(never)]
fn build(n: u32) -> LaunchConfig<'static> {
    LaunchConfig::new((n, 2, 1), (256, 1, 1))
        .shared(1024)
        .with(Cooperative)
        .with(ClusterDim::new(2, 1, 1))
        .with(PreferredClusterDim::new(4, 1, 1))
        .with(ClusterScheduling::Spread)
        .with(Priority(1))
        .with(Priority(2))
        .with(MemSyncDomain::Remote)
        .with(MemSyncDomainMap::default())
        .with(AccessPolicyWindow::new(0x1000, 64))
        .with(SharedCarveout::percent(50))
        .with(ProgrammaticSerialization)
        .with(NvlinkCentric)
        .with_flag(DeviceUpdatable, false)
        .with_stream(SyncPolicy::Spin)
        .with_stream(Priority(0))
        .with_stream(MemSyncDomain::Default)
}

#[test]
fn building_and_reading_a_config_does_not_allocate() {
    // Warm up anything lazily allocated by the test harness before counting.
    let warm = build(4);
    assert_eq!(warm.launch_attributes().len(), 11);
    let before = ALLOCATIONS.load(Ordering::SeqCst);
    let mut total = 0usize;
    for n in 1..100u32 {
        // A whole number of preferred clusters of 4.
        let cfg = build(n * 4);
        total += cfg.launch_attributes().len() + cfg.stream_attributes().len();
        assert!(cfg.validate().is_ok());
        assert_eq!(cfg.grid().x, n * 4);
    }
    let after = ALLOCATIONS.load(Ordering::SeqCst);
    assert_eq!(total, 99 * 14);
    assert_eq!(
        after - before,
        0,
        "config building allocated {} times",
        after - before
    );
    // The counter works: a Vec allocation is seen.
    let v = std::hint::black_box(vec![1u8; 16]);
    assert!(ALLOCATIONS.load(Ordering::SeqCst) > after, "{v:?}");
}
