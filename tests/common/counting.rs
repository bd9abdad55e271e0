//! A global allocator that counts allocations, for the GPU tests that prove a path allocates
//! nothing (`mod counting;` in a test binary installs it for the whole binary).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

/// Allocations made so far by the whole test binary.
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

/// Allocations made so far (read with `SeqCst`).
pub fn allocations() -> usize {
    ALLOCATIONS.load(Ordering::SeqCst)
}

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
