//! Every expression of `config!` is evaluated exactly once, left to right as written.
use std::cell::RefCell;

use chevron::{config, ClusterDim, Cooperative, Dim3, MemSyncDomain, Priority};

fn seen<T>(log: &RefCell<Vec<&'static str>>, what: &'static str, value: T) -> T {
    log.borrow_mut().push(what);
    value
}

fn main() {
    let log = RefCell::new(Vec::new());
    let cfg = config!(<<<seen(&log, "grid", (8u32, 2u32)), seen(&log, "block", 64u32),
        mem_sync_domain = seen(&log, "domain", MemSyncDomain::Remote),
        stream(priority = seen(&log, "stream priority", 1)),
        shared = seen(&log, "shared", 256u32),
        cluster = seen(&log, "cluster", 2u32),
        priority = seen(&log, "priority", 2),
        cooperative = seen(&log, "cooperative", true)>>>);
    assert_eq!(
        *log.borrow(),
        ["grid", "block", "domain", "stream priority", "shared", "cluster", "priority", "cooperative"]
    );
    assert_eq!(cfg.grid(), Dim3::new(8, 2, 1));
    assert_eq!(cfg.shared_bytes(), 256);
    assert!(cfg.has::<Cooperative>() && cfg.has::<ClusterDim>() && cfg.has::<Priority>());
    assert_eq!(cfg.stream_attributes().len(), 1);
    assert_eq!(cfg.validate(), Ok(()));

    // A value read after an earlier expression changed it: read where it is written.
    let mut blocks = 4u32;
    let cfg = config!(<<<blocks, { blocks += 1; 32u32 }, priority = blocks as i32>>>);
    assert_eq!(cfg.grid(), Dim3::new(4, 1, 1));
    assert!(format!("{cfg:?}").contains("priority"));
    assert_eq!(blocks, 5);
}
