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
