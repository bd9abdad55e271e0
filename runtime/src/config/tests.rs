use super::*;
use crate::config::attr::{ClusterDim, PreferredClusterDim};

/// Extents around every limit: 0, 1, the limits and one past them, and a few in between.
const EXTENTS: [u32; 12] = [
    0,
    1,
    2,
    63,
    64,
    65,
    1024,
    1025,
    65535,
    65536,
    i32::MAX as u32,
    u32::MAX,
];

/// The quick compares of `validate` agree with every rule, one by one, on grids and blocks
/// around each limit, with and without the attributes that have rules of their own: same
/// verdict, same violation.
#[test]
fn the_quick_check_agrees_with_every_rule() {
    let dims = || {
        EXTENTS.into_iter().flat_map(|x| {
            EXTENTS
                .into_iter()
                .step_by(3)
                .flat_map(move |y| [1, 64, 65].map(|z| Dim3::new(x, y, z)))
        })
    };
    let mut plain = 0;
    for grid in dims() {
        for block in [
            Dim3::new(256, 1, 1),
            Dim3::new(32, 32, 1),
            Dim3::new(1024, 2, 1),
            Dim3::new(16, 16, 64),
            Dim3::new(0, 1, 1),
            Dim3::new(1, 1, 65),
            grid,
        ] {
            let base = LaunchConfig::new(grid, block);
            for config in [
                base,
                base.with(ClusterDim::new(2, 1, 1)),
                base.with(ClusterDim::new(2, 1, 1))
                    .with(PreferredClusterDim::new(4, 1, 1)),
                base.with(SharedCarveout::percent(50)),
                base.with(SharedCarveout(101)),
            ] {
                assert_eq!(
                    config.validate(),
                    config.validate_all(),
                    "grid {grid:?}, block {block:?}, {config:?}"
                );
                if config.plainly_valid() {
                    plain += 1;
                    assert!(config.validate_all().is_ok(), "{config:?}");
                    assert_eq!(config.present & RULED_KINDS, 0, "{config:?}");
                }
            }
        }
    }
    // The quick path is taken, and not only for one shape.
    assert!(plain > 100, "{plain}");
    // An extent that did not fit `u32` is never quick.
    let negative = ExtentError {
        value: -1,
        axis: Some(0),
    };
    let bad = LaunchConfig::__from_extents(Err(negative), Ok(Dim3::new(1, 1, 1)));
    assert!(!bad.plainly_valid());
    assert_eq!(bad.validate(), bad.validate_all());
    assert!(bad.validate().is_err());
    // Nor is one whose shared memory did not fit, though its grid and block are plain.
    let shared = LaunchConfig::new(1, 256).__shared_extent(Err(negative));
    assert!(!shared.plainly_valid());
    assert_eq!(shared.validate(), shared.validate_all());
    assert!(shared.validate().is_err());
    // The flag decided when the config was made holds through attributes added and removed.
    let plain = LaunchConfig::new(4, 256);
    assert!(plain.plainly_valid());
    let clustered = plain.with(ClusterDim::new(2, 1, 1));
    assert!(!clustered.plainly_valid());
    assert!(clustered.without::<ClusterDim>().plainly_valid());
    // A block whose thread count overflows `u64` is refused, not a panic.
    let huge = LaunchConfig::new(1, (u32::MAX, u32::MAX, u32::MAX));
    assert!(!huge.plainly_valid());
    assert_eq!(huge.validate(), huge.validate_all());
    assert!(huge.validate().is_err());
}

/// A launch in the kernel's own block shape lowers to the driver's form: the block is
/// `(CU_LAUNCH_KERNEL_REQUIRED_BLOCK_DIM, 1, 1)` and the grid is handed over as given (it counts
/// clusters for a `.blocksareclusters` kernel); the attributes and shared memory are kept; the
/// launch leaves the quick path (its driver version is checked first).
#[test]
fn kernel_block_lowers_to_the_required_block_dim() {
    let cfg = LaunchConfig::kernel_block((4, 2, 1))
        .shared(512)
        .with(ClusterDim::new(2, 1, 1));
    assert!(cfg.uses_kernel_block());
    let raw = cfg.raw(core::ptr::null_mut());
    assert_eq!((raw.gridDimX, raw.gridDimY, raw.gridDimZ), (4, 2, 1));
    assert_eq!(
        (raw.blockDimX, raw.blockDimY, raw.blockDimZ),
        (REQUIRED_BLOCK_DIM, 1, 1)
    );
    assert_eq!(raw.sharedMemBytes, 512);
    assert_eq!(raw.numAttrs, 1);
    #[cfg(cuda_12090)]
    assert_eq!(REQUIRED_BLOCK_DIM, sys::CU_LAUNCH_KERNEL_REQUIRED_BLOCK_DIM);
    assert!(!cfg.is_plain());
    assert!(cfg.validate().is_ok());
    assert!(format!("{cfg:?}").contains("kernel_block: true"), "{cfg:?}");
    // The grid's limits still apply; the block has none of its own to break.
    let bad = LaunchConfig::kernel_block((1, 65536, 1));
    assert!(bad.validate().is_err());
    // What `launch!`/`config!` build on: an extent that did not fit is kept for `validate`.
    let negative = ExtentError {
        value: -1,
        axis: Some(0),
    };
    let from_macro = LaunchConfig::__from_grid_kernel_block(Err(negative));
    assert!(from_macro.uses_kernel_block());
    assert!(from_macro.validate().is_err());
    let ok = LaunchConfig::__from_grid_kernel_block(Ok(Dim3::new(3, 1, 1)));
    assert_eq!(ok.grid(), Dim3::new(3, 1, 1));
    assert!(ok.validate().is_ok());
    // A plain config gives its block.
    let plain = LaunchConfig::new(3, 64);
    assert!(!plain.uses_kernel_block());
    assert_eq!(plain.raw(core::ptr::null_mut()).blockDimX, 64);
}

/// The kinds a stream capture drops, as measured (`kinds::CAPTURE`): `preferred_cluster` and
/// `nvlink_centric` (id 16); a config names them only when it has one.
#[test]
fn a_config_knows_which_of_its_kinds_a_capture_drops() {
    assert_eq!(
        CAPTURE_DROPPED,
        bit(PreferredClusterDim::KIND.id) | bit(16),
        "preferred_cluster and nvlink_centric"
    );
    let plain = LaunchConfig::new(8u32, 32u32).with(ClusterDim::new(2, 1, 1));
    assert!(!plain.has_capture_dropped());
    assert!(plain.capture_dropped().is_empty());
    let preferred = LaunchConfig::new(8u32, 32u32)
        .with(ClusterDim::new(2, 1, 1))
        .with(PreferredClusterDim::new(4, 1, 1));
    assert!(preferred.has_capture_dropped());
    assert_eq!(preferred.capture_dropped(), ["preferred_cluster"]);
    // The quick launch path (`cuLaunchKernelEx` alone) is not taken: the stream is asked.
    assert!(plain.is_plain());
    assert!(!preferred.is_plain());
}
