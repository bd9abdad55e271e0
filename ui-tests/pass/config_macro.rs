//! `config!` builds a `LaunchConfig` holding exactly what was written; checked on the host.
use chevron::{config, ClusterDim, Cooperative, Dim3, LaunchConfig, Priority, SyncPolicy};

fn main() {
    let cfg: LaunchConfig<'_> = config!(<<<(64, 2), 256>>>);
    assert_eq!(cfg.grid(), Dim3::new(64, 2, 1));
    assert_eq!(cfg.block(), Dim3::new(256, 1, 1));
    assert_eq!(cfg.launch_attributes().len(), 0);
    assert_eq!(cfg.stream_attributes().len(), 0);

    let blocks = 96u32;
    let cfg = config!(<<<blocks, (16, 16), shared = 4096, cooperative, cluster = 2,
        priority = 3, stream(sync = Spin, priority = 1)>>>);
    assert_eq!(cfg.grid(), Dim3::new(96, 1, 1));
    assert_eq!(cfg.block(), Dim3::new(16, 16, 1));
    assert_eq!(cfg.shared_bytes(), 4096);
    assert!(cfg.has::<Cooperative>() && cfg.has::<ClusterDim>() && cfg.has::<Priority>());
    assert_eq!(cfg.launch_attributes().len(), 3);
    assert_eq!(cfg.stream_attributes().len(), 2);
    assert_eq!(cfg.cluster(), Some(Dim3::new(2, 1, 1)));

    // Equal to the builder written by hand.
    let by_hand = LaunchConfig::new(96, (16, 16))
        .shared(4096)
        .with_stream(SyncPolicy::Spin)
        .with_stream(Priority(1))
        .with(Cooperative)
        .with(ClusterDim::new(2, 1, 1))
        .with(Priority(3));
    assert_eq!(format!("{cfg:?}"), format!("{by_hand:?}"));

    // A flag from an expression: off removes it.
    let on = blocks > 1000;
    let cfg = config!(<<<1, 1, cooperative = on, shared_carveout = 25>>>);
    assert!(!cfg.has::<Cooperative>());
    assert_eq!(cfg.launch_attributes().len(), 1);
    assert_eq!(cfg.validate(), Ok(()));

    // Run-time values get the run-time checks the literals get at compile time.
    let c = 3u32;
    let cfg = config!(<<<8, 128, cluster = c>>>);
    assert!(cfg.validate().unwrap_err().to_string().contains("does not divide"));

    // Reused: Copy.
    let base = config!(<<<4, 32, stream(sync = Yield)>>>);
    let copies = [base; 3];
    assert!(copies.iter().all(|c| c.stream_attributes().len() == 1));
}
