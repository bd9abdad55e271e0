//! The driver's launch limits and the rules over them, as functions returning a typed
//! [`Violation`].
//!
//! The macros apply them to literal extents and report a violation at its tokens; the runtime's
//! `LaunchConfig::validate` applies them to run-time values and returns the same violation in
//! `Error::InvalidConfig`. One policy, one wording. All arithmetic is done in `u64`, so no
//! product of three `u32` extents can overflow.

use core::fmt;

/// The driver's per-axis block limits (x, y, z), in threads.
pub const MAX_BLOCK_DIM: [u32; 3] = [1024, 1024, 64];
/// The driver's limit on threads per block.
pub const MAX_BLOCK_THREADS: u64 = 1024;
/// The driver's per-axis grid limits (x, y, z), in blocks.
pub const MAX_GRID_DIM: [u32; 3] = [i32::MAX as u32, 65535, 65535];
/// Blocks per cluster every cluster-capable GPU accepts without the kernel opting into more.
pub const PORTABLE_CLUSTER_BLOCKS: u64 = 8;
/// Blocks per cluster with the non-portable opt-in (compute capability 9.0).
pub const MAX_CLUSTER_BLOCKS: u64 = 16;
/// The largest shared-memory carveout, in percent.
pub const MAX_SHARED_CARVEOUT: u32 = 100;

/// The most arguments the runtime's typed launch takes as one tuple (its traits are
/// implemented up to this arity; kernels of real codebases have up to 40 parameters). A kernel
/// of more takes them as an `ArgChain` of such tuples, which `#[kernel]` and `launch!` write:
/// the number of parameters is bounded only by the driver's [`MAX_PARAM_BYTES`].
pub const MAX_TUPLE_PARAMS: usize = 64;
/// The driver's limit on the bytes of a kernel's parameters, since CUDA 12.1 on Volta and
/// newer GPUs.
pub const MAX_PARAM_BYTES: u64 = 32_764;
/// The driver's limit on the bytes of a kernel's parameters before CUDA 12.1, or on a GPU older
/// than Volta.
pub const MAX_PARAM_BYTES_BEFORE_12_1: u64 = 4_096;

/// The bytes a kernel's parameters take in the driver's parameter buffer: each at its
/// alignment, given as `(size, align)` pairs in order.
pub fn param_bytes(params: impl IntoIterator<Item = (u64, u64)>) -> u64 {
    params.into_iter().fold(0, |end, (size, align)| {
        end.next_multiple_of(align.max(1)) + size
    })
}

/// The driver's limit on a kernel's parameter bytes for a driver of `driver_version` (as
/// `cuDriverGetVersion` gives it: `12010` for 12.1) and a GPU of compute capability
/// `cc_major`.x: [`MAX_PARAM_BYTES`] from CUDA 12.1 on Volta (7.0) and newer,
/// [`MAX_PARAM_BYTES_BEFORE_12_1`] otherwise.
pub const fn max_param_bytes(driver_version: i32, cc_major: u32) -> u64 {
    if driver_version >= 12010 && cc_major >= 7 {
        MAX_PARAM_BYTES
    } else {
        MAX_PARAM_BYTES_BEFORE_12_1
    }
}

/// The message for a kernel whose parameters take `bytes` bytes, more than
/// [`MAX_PARAM_BYTES`]; `None` within it.
pub fn param_bytes_violation(kernel: &str, bytes: u64) -> Option<String> {
    (bytes > MAX_PARAM_BYTES).then(|| {
        format!(
            "the parameters of `{kernel}` take {bytes} bytes, more than the driver's limit of \
             {MAX_PARAM_BYTES} bytes (CUDA 12.1 and newer on Volta and newer GPUs; \
             {MAX_PARAM_BYTES_BEFORE_12_1} before): pass the larger ones through a device \
             buffer"
        )
    })
}

/// The axis names, in order.
pub const AXES: [&str; 3] = ["x", "y", "z"];

/// What a dim is: names the extent in messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DimKind {
    /// The grid, in blocks.
    Grid,
    /// The block, in threads.
    Block,
    /// The cluster, in blocks.
    Cluster,
    /// The preferred cluster, in blocks.
    PreferredCluster,
}

impl fmt::Display for DimKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Grid => "grid",
            Self::Block => "block",
            Self::Cluster => "cluster",
            Self::PreferredCluster => "preferred_cluster",
        })
    }
}

/// A launch configuration the driver would refuse, with the numbers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Violation {
    /// An extent is 0.
    ZeroExtent {
        /// Which dim.
        dim: DimKind,
        /// Which axis: 0, 1, 2 for x, y, z.
        axis: usize,
    },
    /// An extent is over its per-axis limit.
    ExtentOverLimit {
        /// Which dim.
        dim: DimKind,
        /// Which axis.
        axis: usize,
        /// The extent.
        value: u32,
        /// The limit.
        limit: u32,
    },
    /// A block of more than [`MAX_BLOCK_THREADS`] threads.
    BlockTooLarge {
        /// The block.
        block: [u32; 3],
        /// Its volume.
        threads: u128,
    },
    /// A cluster of 9 to 16 blocks without the non-portable opt-in.
    ClusterNotPortable {
        /// The cluster.
        cluster: [u32; 3],
        /// Its volume.
        blocks: u128,
    },
    /// A cluster of more than [`MAX_CLUSTER_BLOCKS`] blocks.
    ClusterTooLarge {
        /// The cluster.
        cluster: [u32; 3],
        /// Its volume.
        blocks: u128,
    },
    /// A cluster extent that does not divide the grid's.
    ClusterDoesNotDivide {
        /// Which axis.
        axis: usize,
        /// The cluster extent.
        cluster: u32,
        /// The grid extent.
        grid: u32,
    },
    /// A preferred cluster without a cluster.
    PreferredWithoutCluster,
    /// A preferred cluster z other than the cluster's.
    PreferredZDiffers {
        /// The preferred cluster's z.
        preferred: u32,
        /// The cluster's z.
        cluster: u32,
    },
    /// A preferred cluster extent that is not a multiple of the cluster's.
    PreferredNotMultiple {
        /// Which axis.
        axis: usize,
        /// The preferred cluster extent.
        preferred: u32,
        /// The cluster extent.
        cluster: u32,
    },
    /// A preferred cluster extent that does not divide the grid's.
    PreferredDoesNotDivide {
        /// Which axis.
        axis: usize,
        /// The preferred cluster extent.
        preferred: u32,
        /// The grid extent.
        grid: u32,
    },
    /// An extent or byte count written as a wider or signed integer (`usize`, `u64`, `i32`)
    /// whose value does not fit `u32`.
    NotU32 {
        /// What it is: `grid`, `block` or `shared`.
        what: &'static str,
        /// The axis (0, 1, 2) of a dim; `None` for a scalar such as `shared`.
        axis: Option<u8>,
        /// The value as written.
        value: i128,
    },
    /// A shared-memory carveout over 100 %.
    CarveoutOverLimit {
        /// The carveout, in percent.
        percent: u64,
    },
}

/// How a user opts into clusters of 9 to 16 blocks, for messages.
pub const NON_PORTABLE_HINT: &str = "opt in with `non_portable_cluster` in `launch!`/`config!` \
     or `.non_portable_cluster()` on a `LaunchConfig` (16 blocks at most, compute capability 9.0)";

fn dims(d: [u32; 3]) -> String {
    format!("({}, {}, {})", d[0], d[1], d[2])
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::ZeroExtent { dim, axis } => {
                write!(f, "{dim} {} is 0; every extent is at least 1", AXES[*axis])
            }
            Self::ExtentOverLimit {
                dim,
                axis,
                value,
                limit,
            } => write!(f, "{dim} {} is {value}; the limit is {limit}", AXES[*axis]),
            Self::BlockTooLarge { block, threads } => write!(
                f,
                "block {} has {threads} threads; the limit is {MAX_BLOCK_THREADS} per block",
                dims(*block)
            ),
            Self::ClusterNotPortable { cluster, blocks } => write!(
                f,
                "cluster {} has {blocks} blocks; the portable limit is \
                 {PORTABLE_CLUSTER_BLOCKS}: {NON_PORTABLE_HINT}",
                dims(*cluster)
            ),
            Self::ClusterTooLarge { cluster, blocks } => write!(
                f,
                "cluster {} has {blocks} blocks; the limit is {MAX_CLUSTER_BLOCKS}, with the \
                 non-portable opt-in",
                dims(*cluster)
            ),
            Self::ClusterDoesNotDivide {
                axis,
                cluster,
                grid,
            } => {
                let a = AXES[*axis];
                write!(
                    f,
                    "cluster {a} = {cluster} does not divide grid {a} = {grid}: the grid must be \
                     a whole number of clusters"
                )
            }
            Self::PreferredWithoutCluster => f.write_str(
                "`preferred_cluster` needs `cluster`: the driver falls back to the cluster \
                 dimension where the preferred one does not fit; add `cluster = …`",
            ),
            Self::PreferredZDiffers { preferred, cluster } => write!(
                f,
                "preferred_cluster z = {preferred} differs from cluster z = {cluster}; the \
                 driver requires the same z"
            ),
            Self::PreferredNotMultiple {
                axis,
                preferred,
                cluster,
            } => {
                let a = AXES[*axis];
                write!(
                    f,
                    "preferred_cluster {a} = {preferred} is not a multiple of cluster {a} = \
                     {cluster}"
                )
            }
            Self::PreferredDoesNotDivide {
                axis,
                preferred,
                grid,
            } => {
                let a = AXES[*axis];
                write!(
                    f,
                    "preferred_cluster {a} = {preferred} does not divide grid {a} = {grid}: the \
                     driver requires the grid to be a whole number of preferred clusters too"
                )
            }
            Self::NotU32 { what, axis, value } => {
                match axis {
                    Some(a) => write!(f, "{what} {}", AXES[usize::from(*a).min(2)])?,
                    None => f.write_str(what)?,
                }
                if *value < 0 {
                    write!(f, " is {value}: it is negative")
                } else {
                    write!(f, " is {value}, which does not fit in `u32`")
                }
            }
            Self::CarveoutOverLimit { percent } => write!(
                f,
                "`shared_carveout` is a percentage of the L1/shared split; {percent} is over \
                 {MAX_SHARED_CARVEOUT}"
            ),
        }
    }
}

impl std::error::Error for Violation {}

/// The per-axis limits of a dim.
pub const fn axis_limits(dim: DimKind) -> [u32; 3] {
    match dim {
        DimKind::Grid => MAX_GRID_DIM,
        DimKind::Block => MAX_BLOCK_DIM,
        // The volume rule bounds clusters; per axis only zero is wrong.
        DimKind::Cluster | DimKind::PreferredCluster => [u32::MAX; 3],
    }
}

/// One extent: at least 1 and within the axis's limit.
pub fn check_extent(dim: DimKind, axis: usize, value: u64) -> Result<(), Violation> {
    let limit = axis_limits(dim)[axis];
    if value == 0 {
        Err(Violation::ZeroExtent { dim, axis })
    } else if value > u64::from(limit) {
        Err(Violation::ExtentOverLimit {
            dim,
            axis,
            value: u32::try_from(value).unwrap_or(u32::MAX),
            limit,
        })
    } else {
        Ok(())
    }
}

/// Every extent of a dim, x first.
pub fn check_extents(dim: DimKind, d: [u32; 3]) -> Result<(), Violation> {
    for (axis, v) in d.into_iter().enumerate() {
        check_extent(dim, axis, u64::from(v))?;
    }
    Ok(())
}

/// The number of elements of `x × y × z`, exact: three `u32` factors always fit in `u128`.
pub fn volume(d: [u32; 3]) -> u128 {
    u128::from(d[0]) * u128::from(d[1]) * u128::from(d[2])
}

/// The block's thread count.
pub fn check_block_threads(block: [u32; 3]) -> Result<(), Violation> {
    let threads = volume(block);
    if threads > u128::from(MAX_BLOCK_THREADS) {
        Err(Violation::BlockTooLarge { block, threads })
    } else {
        Ok(())
    }
}

/// The cluster's block count: up to [`PORTABLE_CLUSTER_BLOCKS`], or [`MAX_CLUSTER_BLOCKS`] with
/// `non_portable`.
pub fn check_cluster_blocks(cluster: [u32; 3], non_portable: bool) -> Result<(), Violation> {
    let blocks = volume(cluster);
    if blocks > u128::from(MAX_CLUSTER_BLOCKS) {
        Err(Violation::ClusterTooLarge { cluster, blocks })
    } else if blocks > u128::from(PORTABLE_CLUSTER_BLOCKS) && !non_portable {
        Err(Violation::ClusterNotPortable { cluster, blocks })
    } else {
        Ok(())
    }
}

/// One axis of the grid is a whole number of clusters.
pub fn check_cluster_divides(axis: usize, cluster: u32, grid: u32) -> Result<(), Violation> {
    if cluster != 0 && !grid.is_multiple_of(cluster) {
        Err(Violation::ClusterDoesNotDivide {
            axis,
            cluster,
            grid,
        })
    } else {
        Ok(())
    }
}

/// One axis of the preferred cluster against the cluster: a multiple, with the same z.
pub fn check_preferred_axis(axis: usize, preferred: u32, cluster: u32) -> Result<(), Violation> {
    if axis == 2 && preferred != cluster {
        Err(Violation::PreferredZDiffers { preferred, cluster })
    } else if cluster != 0 && !preferred.is_multiple_of(cluster) {
        Err(Violation::PreferredNotMultiple {
            axis,
            preferred,
            cluster,
        })
    } else {
        Ok(())
    }
}

/// One axis of the grid is a whole number of preferred clusters (the driver refuses the launch
/// otherwise, as `CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION`'s documentation says).
pub fn check_preferred_divides(axis: usize, preferred: u32, grid: u32) -> Result<(), Violation> {
    if preferred != 0 && !grid.is_multiple_of(preferred) {
        Err(Violation::PreferredDoesNotDivide {
            axis,
            preferred,
            grid,
        })
    } else {
        Ok(())
    }
}

/// The shared-memory carveout, in percent.
pub fn check_carveout(percent: u64) -> Result<(), Violation> {
    if percent > u64::from(MAX_SHARED_CARVEOUT) {
        Err(Violation::CarveoutOverLimit { percent })
    } else {
        Ok(())
    }
}

/// What a launch sets that the rules look at.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LaunchShape {
    /// The grid.
    pub grid: [u32; 3],
    /// The block.
    pub block: [u32; 3],
    /// The cluster, if set.
    pub cluster: Option<[u32; 3]>,
    /// The preferred cluster, if set.
    pub preferred_cluster: Option<[u32; 3]>,
    /// The shared-memory carveout, if set.
    pub carveout: Option<u32>,
    /// Whether clusters of 9 to 16 blocks are allowed.
    pub non_portable_cluster: bool,
}

/// Every rule, in the order the macros report them: block, grid, cluster, preferred cluster,
/// carveout. The first violation.
pub fn check_launch(shape: &LaunchShape) -> Result<(), Violation> {
    check_extents(DimKind::Block, shape.block)?;
    check_block_threads(shape.block)?;
    check_extents(DimKind::Grid, shape.grid)?;
    if let Some(c) = shape.cluster {
        check_extents(DimKind::Cluster, c)?;
        check_cluster_blocks(c, shape.non_portable_cluster)?;
        for (axis, (cv, gv)) in c.into_iter().zip(shape.grid).enumerate() {
            check_cluster_divides(axis, cv, gv)?;
        }
    }
    if let Some(p) = shape.preferred_cluster {
        let Some(c) = shape.cluster else {
            return Err(Violation::PreferredWithoutCluster);
        };
        check_extents(DimKind::PreferredCluster, p)?;
        for (axis, (pv, cv)) in p.into_iter().zip(c).enumerate() {
            check_preferred_axis(axis, pv, cv)?;
        }
        for (axis, (pv, gv)) in p.into_iter().zip(shape.grid).enumerate() {
            check_preferred_divides(axis, pv, gv)?;
        }
    }
    if let Some(pct) = shape.carveout {
        check_carveout(u64::from(pct))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameter_bytes_at_their_alignment_and_the_drivers_limit() {
        // `char, double, int`: 1, then 8 at 8, then 4: 20 bytes.
        assert_eq!(param_bytes([(1, 1), (8, 8), (4, 4)]), 20);
        assert_eq!(param_bytes([]), 0);
        assert_eq!(param_bytes([(4, 4); 8191]), MAX_PARAM_BYTES);
        assert_eq!(param_bytes_violation("k", MAX_PARAM_BYTES), None);
        assert_eq!(max_param_bytes(12010, 7), 32_764);
        assert_eq!(max_param_bytes(13000, 9), 32_764);
        assert_eq!(max_param_bytes(12000, 9), 4_096);
        assert_eq!(max_param_bytes(12080, 6), 4_096);
        let m = param_bytes_violation("k", MAX_PARAM_BYTES + 1).expect("over");
        assert!(
            m.starts_with("the parameters of `k` take 32765 bytes"),
            "{m}"
        );
    }

    fn shape(grid: [u32; 3], block: [u32; 3]) -> LaunchShape {
        LaunchShape {
            grid,
            block,
            ..LaunchShape::default()
        }
    }

    #[test]
    fn volumes_never_overflow() {
        let v = check_block_threads([u32::MAX, u32::MAX, 2]).unwrap_err();
        let threads = 2 * u128::from(u32::MAX).pow(2);
        assert_eq!(
            v,
            Violation::BlockTooLarge {
                block: [u32::MAX, u32::MAX, 2],
                threads
            }
        );
        // 2³¹ × 2³¹ × 4 = 2⁶⁴ wraps to 0 in u64 arithmetic.
        assert_eq!(volume([2147483648, 2147483648, 4]), 1 << 64);
        let big = [2147483648, 2147483648, 4];
        assert!(matches!(
            check_cluster_blocks(big, true),
            Err(Violation::ClusterTooLarge { .. })
        ));
    }

    #[test]
    fn cluster_policy() {
        assert!(check_cluster_blocks([8, 1, 1], false).is_ok());
        let v = check_cluster_blocks([16, 1, 1], false).unwrap_err();
        assert_eq!(
            v.to_string(),
            format!(
                "cluster (16, 1, 1) has 16 blocks; the portable limit is 8: {NON_PORTABLE_HINT}"
            )
        );
        assert!(check_cluster_blocks([16, 1, 1], true).is_ok());
        assert_eq!(
            check_cluster_blocks([4, 4, 2], true)
                .unwrap_err()
                .to_string(),
            "cluster (4, 4, 2) has 32 blocks; the limit is 16, with the non-portable opt-in"
        );
    }

    #[test]
    fn launch_rules_with_numbers() {
        let err = |s: LaunchShape| check_launch(&s).unwrap_err().to_string();
        assert_eq!(
            err(shape([1; 3], [32, 0, 1])),
            "block y is 0; every extent is at least 1"
        );
        assert_eq!(
            err(shape([1; 3], [1025, 1, 1])),
            "block x is 1025; the limit is 1024"
        );
        assert_eq!(
            err(shape([1; 3], [64, 32, 1])),
            "block (64, 32, 1) has 2048 threads; the limit is 1024 per block"
        );
        assert_eq!(
            err(shape([1, 65536, 1], [32, 1, 1])),
            "grid y is 65536; the limit is 65535"
        );
        let mut s = shape([6, 1, 1], [32, 1, 1]);
        s.cluster = Some([4, 1, 1]);
        assert_eq!(
            err(s),
            "cluster x = 4 does not divide grid x = 6: the grid must be a whole number of clusters"
        );
        let mut s = shape([8, 1, 1], [32, 1, 1]);
        s.preferred_cluster = Some([4, 1, 1]);
        assert_eq!(check_launch(&s), Err(Violation::PreferredWithoutCluster));
        s.cluster = Some([2, 1, 1]);
        s.preferred_cluster = Some([3, 1, 1]);
        assert!(err(s).contains("not a multiple"));
        s.preferred_cluster = Some([4, 1, 2]);
        assert!(err(s).contains("same z"));
        // A multiple of the cluster that does not divide the grid: 4 into 6.
        let mut p = shape([6, 1, 1], [32, 1, 1]);
        p.cluster = Some([2, 1, 1]);
        p.preferred_cluster = Some([4, 1, 1]);
        assert_eq!(
            err(p),
            "preferred_cluster x = 4 does not divide grid x = 6: the driver requires the grid \
             to be a whole number of preferred clusters too"
        );
        p.preferred_cluster = Some([6, 1, 1]);
        assert!(check_launch(&p).is_ok());
        s.preferred_cluster = None;
        s.carveout = Some(101);
        assert_eq!(
            err(s),
            "`shared_carveout` is a percentage of the L1/shared split; 101 is over 100"
        );
        // Limits hold exactly at the edge.
        assert!(check_launch(&shape([1, 65535, 65535], [1024, 1, 1])).is_ok());
        let mut s = shape([16, 1, 1], [8, 8, 16]);
        s.cluster = Some([8, 1, 1]);
        s.carveout = Some(100);
        assert!(check_launch(&s).is_ok());
    }
}
