//! The fourth position: a kind given to `cuLaunchKernelEx` on a stream that captures
//! (`Graph::capture`, a `launch!` inside it). The launch is recorded as a kernel node instead of
//! running, and the driver may keep the kind on that node, turn it into an edge of the graph,
//! drop it, or refuse the launch.
//!
//! [`CAPTURE`] is the column, one row per kind in [`KINDS`](super::KINDS)' order (a test
//! checks it). Each row says how it is known: [`Evidence::Documented`] where it is derived from
//! `cuda.h` (CUDA 13.0) and the driver API reference, not measured; [`Evidence::Measured`] once
//! the runtime's GPU test `capture_column_matches_the_driver` has measured it (it prints each
//! kind's row as measured, to paste here). `ATTRIBUTES.md`'s `capture` column is generated from
//! it ([`super::attributes_table`]).
//!
//! Measured on the H200 (CUDA 13.0 driver): `sync` is refused (as on every launch: it is a
//! stream kind), `programmatic_serialization`, `programmatic_event` and `completion_event`
//! become edges, and `preferred_cluster` and `nvlink_centric` are dropped: accepted by the
//! launch, and found neither on the node nor on its edges. A launch cannot know at compile
//! time whether its stream captures, so the runtime follows the column: a launch with a
//! dropped kind on a capturing stream is refused, with the fix (set it on the node with
//! `Graph::set_node_attribute`, where the graph node column takes it).

/// What the driver does with a kind on a launch that a stream capture records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Captured {
    /// Accepted, and set on the kernel node the capture creates (as
    /// `cuGraphKernelNodeGetAttribute` reads it back).
    OnNode,
    /// Accepted, and recorded as an edge out of the kernel node (its programmatic or
    /// launch-order port, `CU_GRAPH_KERNEL_NODE_PORT_*`) instead of a node attribute.
    Edge,
    /// Accepted, and found neither on the node nor on its edges.
    Dropped,
    /// `cuLaunchKernelEx` refuses it on a capturing stream.
    Refused,
    /// The documentation does not say, and it is not measured yet.
    Unknown,
}

impl Captured {
    /// The cell's words: `on the node`, `an edge`, ….
    pub const fn words(self) -> &'static str {
        match self {
            Self::OnNode => "on the node",
            Self::Edge => "an edge",
            Self::Dropped => "dropped",
            Self::Refused => "refused",
            Self::Unknown => "not known",
        }
    }
}

/// How a row of [`CAPTURE`] is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Evidence {
    /// Derived from the CUDA documentation (`cuda.h` 13.0, the driver API reference); not
    /// measured.
    Documented,
    /// Measured by `capture_column_matches_the_driver` on a driver of this CUDA version
    /// (`13000` is CUDA 13.0).
    Measured(u32),
}

/// One kind's row of the capture column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CaptureRow {
    /// The kind's key.
    pub key: &'static str,
    /// What the driver does with it under capture.
    pub captured: Captured,
    /// How that is known.
    pub evidence: Evidence,
    /// Where it comes from: the documentation's words, or the measurement.
    pub source: &'static str,
}

impl CaptureRow {
    /// The row's cell in `ATTRIBUTES.md`: `on the node (documented, not measured)`,
    /// `an edge (measured, CUDA 13.0 driver)`, or `not measured` where nothing is known.
    pub fn cell(&self) -> String {
        match (self.captured, self.evidence) {
            (Captured::Unknown, _) => "not measured".to_string(),
            (c, Evidence::Documented) => format!("{} (documented, not measured)", c.words()),
            (c, Evidence::Measured(v)) => format!(
                "{} (measured, CUDA {} driver)",
                c.words(),
                super::version_name(v)
            ),
        }
    }
}

/// Where the measured rows come from.
const MEASURED: &str = "capture_column_matches_the_driver (runtime/tests/gpu.rs) on the H200, \
                        CUDA 13.0 driver, 2026-12-05: the launch's result, the attribute read \
                        back from the captured node, and the node's edges";

/// The capture column: one row per kind, in [`KINDS`](super::KINDS)' order.
pub const CAPTURE: &[CaptureRow] = &[
    CaptureRow {
        key: "access_policy_window",
        captured: Captured::OnNode,
        evidence: Evidence::Measured(13000),
        source: MEASURED,
    },
    CaptureRow {
        key: "cooperative",
        captured: Captured::OnNode,
        evidence: Evidence::Measured(13000),
        source: MEASURED,
    },
    CaptureRow {
        key: "sync",
        captured: Captured::Refused,
        evidence: Evidence::Measured(13000),
        source: MEASURED,
    },
    CaptureRow {
        key: "cluster",
        captured: Captured::OnNode,
        evidence: Evidence::Measured(13000),
        source: MEASURED,
    },
    CaptureRow {
        key: "cluster_scheduling",
        captured: Captured::OnNode,
        evidence: Evidence::Measured(13000),
        source: MEASURED,
    },
    CaptureRow {
        key: "programmatic_serialization",
        captured: Captured::Edge,
        evidence: Evidence::Measured(13000),
        source: MEASURED,
    },
    CaptureRow {
        key: "programmatic_event",
        captured: Captured::Edge,
        evidence: Evidence::Measured(13000),
        source: MEASURED,
    },
    CaptureRow {
        key: "priority",
        captured: Captured::OnNode,
        evidence: Evidence::Measured(13000),
        source: MEASURED,
    },
    CaptureRow {
        key: "mem_sync_domain_map",
        captured: Captured::OnNode,
        evidence: Evidence::Measured(13000),
        source: MEASURED,
    },
    CaptureRow {
        key: "mem_sync_domain",
        captured: Captured::OnNode,
        evidence: Evidence::Measured(13000),
        source: MEASURED,
    },
    CaptureRow {
        key: "preferred_cluster",
        captured: Captured::Dropped,
        evidence: Evidence::Measured(13000),
        source: MEASURED,
    },
    CaptureRow {
        key: "completion_event",
        captured: Captured::Edge,
        evidence: Evidence::Measured(13000),
        source: MEASURED,
    },
    CaptureRow {
        key: "device_updatable",
        captured: Captured::OnNode,
        evidence: Evidence::Measured(13000),
        source: MEASURED,
    },
    CaptureRow {
        key: "shared_carveout",
        captured: Captured::OnNode,
        evidence: Evidence::Measured(13000),
        source: MEASURED,
    },
    CaptureRow {
        key: "nvlink_centric",
        captured: Captured::Dropped,
        evidence: Evidence::Measured(13000),
        source: MEASURED,
    },
    CaptureRow {
        key: "portable_cluster_size_mode",
        captured: Captured::Unknown,
        evidence: Evidence::Documented,
        source: "new in CUDA 13.2; no driver that knows it was at hand",
    },
    CaptureRow {
        key: "shared_memory_mode",
        captured: Captured::Unknown,
        evidence: Evidence::Documented,
        source: "new in CUDA 13.2; no driver that knows it was at hand",
    },
];

/// The capture row of kind `key`.
pub fn capture_row(key: &str) -> Option<&'static CaptureRow> {
    CAPTURE.iter().find(|r| r.key == key)
}
