//! The launch-attribute kinds: one row per `CU_LAUNCH_ATTRIBUTE_*` value, for every CUDA version
//! chevron supports.
//!
//! This table is the one declaration of a kind. The runtime builds its types' ids, placement
//! traits and its `KINDS` list from it (checked by const asserts), the macros take keys, value
//! forms, enum variants and version requirements from it, and the key tables in the README and
//! the `launch!` docs are generated from it ([`markdown_table`]) and checked by a test.
//!
//! Placement (the `launch` and `stream` columns) was measured on an H200 by calling
//! `cuLaunchKernelEx` and `cuStreamSetAttribute` with a valid value of each kind; the runtime's
//! GPU test `placement_table_matches_the_driver` re-checks it against the driver it runs on.
//! The `graph` column (accepted by `cuGraphKernelNodeSetAttribute` on a kernel node captured
//! from a launch) was measured the same way on the same H200 (CUDA 13.0 driver) and is re-checked
//! by `graph_node_placement_matches_the_driver`; the CUDA 13.2 kinds' `graph` entries are
//! declared, not yet measured.

/// Every CUDA version chevron (through cudarc) supports, as cudarc's feature numbers:
/// `12040` is CUDA 12.4, feature `cuda-12040`.
pub const CUDA_VERSIONS: &[u32] = &[
    12000, 12010, 12020, 12030, 12040, 12050, 12060, 12080, 12090, 13000, 13010, 13020, 13030,
    13040,
];

/// The CUDA version chevron selects when no feature says otherwise (feature `cuda-13000`).
pub const DEFAULT_CUDA_VERSION: u32 = 13000;

/// `13000` as `"13.0"`.
pub fn version_name(version: u32) -> String {
    format!("{}.{}", version / 1000, version % 1000 / 10)
}

/// `13000` as `"cuda-13000"`, the Cargo feature that selects it.
pub fn feature_name(version: u32) -> String {
    format!("cuda-{version}")
}

/// How a key's value is written in `launch!`/`config!`, and so how the macros build the kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueForm {
    /// A flag: bare `key` (on) or `key = <bool>`; the kind is a unit struct.
    Flag,
    /// A dim (`u32`, `(u32, u32)`, `(u32, u32, u32)` or `impl Into<Dim3>`): `Kind::from_dim(e)`.
    Dim,
    /// A variant name of the kind's enum (`sync = Spin`), or an expression of the kind's type.
    Enum(&'static [&'static str]),
    /// An `i32` expression: `Kind(e)`.
    I32,
    /// A percentage 0 to 100: `Kind::percent(e)`.
    Percent,
    /// An event: anything the kind converts from (`&CudaEvent`), as `Kind::from(e)`.
    Event,
    /// An expression of the kind's type.
    Expr,
}

impl ValueForm {
    /// How to write the value, for messages: `` `cluster = <dim>` ``.
    pub fn describe(self, key: &str) -> String {
        match self {
            Self::Flag => format!("`{key}` or `{key} = <bool>`"),
            Self::Dim => format!(
                "`{key} = <dim>` (a `u32`, a tuple of two or three `u32`, or a `Dim3` expression)"
            ),
            Self::Enum(variants) => format!("`{key} = {}` or an expression", variants.join("|")),
            Self::I32 => format!("`{key} = <i32>`"),
            Self::Percent => format!("`{key} = <percent 0 to 100>`"),
            Self::Event => format!("`{key} = &event` (a `&CudaEvent`)"),
            Self::Expr => format!("`{key} = <expression>`"),
        }
    }
}

/// One launch-attribute kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kind {
    /// The key that names it in `launch!` and `config!`.
    pub key: &'static str,
    /// The runtime's type for it.
    pub type_name: &'static str,
    /// The `CU_LAUNCH_ATTRIBUTE_*` name.
    pub cuda_name: &'static str,
    /// The driver's id (`CUlaunchAttributeID`).
    pub id: u32,
    /// Accepted by `cuLaunchKernelEx`.
    pub launch: bool,
    /// Accepted by `cuStreamSetAttribute`.
    pub stream: bool,
    /// Accepted by `cuGraphKernelNodeSetAttribute` on a captured kernel node.
    pub graph: bool,
    /// How its value is written.
    pub form: ValueForm,
    /// The CUDA version that introduced it (cudarc's feature number: `12080` is CUDA 12.8).
    pub since: u32,
    /// The compute capability the driver needs for it, where it needs more than any GPU CUDA
    /// 12 supports.
    pub min_cc: Option<(u32, u32)>,
    /// The value, for the key tables in the docs.
    pub value: &'static str,
    /// A note for the placement column of the docs, where the placement has a condition.
    pub note: &'static str,
}

impl Kind {
    /// Whether CUDA `version` has this kind.
    pub const fn in_version(&self, version: u32) -> bool {
        version >= self.since
    }

    /// The message for a key used with a CUDA feature that lacks it:
    /// ``"`nvlink_centric` needs CUDA 13.0: use feature cuda-13000 or later"``.
    pub fn missing_message(&self) -> String {
        format!(
            "`{}` needs CUDA {}: use feature {} or later",
            self.key,
            version_name(self.since),
            feature_name(self.since)
        )
    }
}

const SM90: Option<(u32, u32)> = Some((9, 0));

macro_rules! row {
    ($key:literal, $ty:literal, $cuda:literal, $id:literal, launch: $l:literal, stream: $s:literal,
     graph: $g:literal, $form:expr, since: $since:literal, cc: $cc:expr, $value:literal
     $(, note: $note:literal)?) => {
        Kind {
            key: $key,
            type_name: $ty,
            cuda_name: $cuda,
            id: $id,
            launch: $l,
            stream: $s,
            graph: $g,
            form: $form,
            since: $since,
            min_cc: $cc,
            value: $value,
            note: row!(@note $($note)?),
        }
    };
    (@note) => { "" };
    (@note $note:literal) => { $note };
}

/// Every kind of every supported CUDA version, in the driver's id order.
pub const KINDS: &[Kind] = &[
    row!("access_policy_window", "AccessPolicyWindow", "CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW", 1,
        launch: true, stream: true, graph: true, ValueForm::Expr, since: 12000, cc: None,
        "an `AccessPolicyWindow`"),
    row!("cooperative", "Cooperative", "CU_LAUNCH_ATTRIBUTE_COOPERATIVE", 2,
        launch: true, stream: false, graph: true, ValueForm::Flag, since: 12000, cc: None, "flag"),
    row!("sync", "SyncPolicy", "CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY", 3,
        launch: false, stream: true, graph: false,
        ValueForm::Enum(&["Auto", "Spin", "Yield", "BlockingSync"]),
        since: 12000, cc: None, "`Auto`/`Spin`/`Yield`/`BlockingSync` or a `SyncPolicy`"),
    row!("cluster", "ClusterDim", "CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION", 4,
        launch: true, stream: false, graph: true, ValueForm::Dim, since: 12000, cc: SM90, "dim"),
    row!("cluster_scheduling", "ClusterScheduling",
        "CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE", 5,
        launch: true, stream: false, graph: true,
        ValueForm::Enum(&["Default", "Spread", "LoadBalancing"]),
        since: 12000, cc: SM90, "`Default`/`Spread`/`LoadBalancing` or a `ClusterScheduling`"),
    row!("programmatic_serialization", "ProgrammaticSerialization",
        "CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION", 6,
        launch: true, stream: false, graph: false, ValueForm::Flag, since: 12000, cc: SM90, "flag"),
    row!("programmatic_event", "ProgrammaticEvent", "CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT", 7,
        launch: true, stream: false, graph: false, ValueForm::Event, since: 12000, cc: SM90,
        "`&CudaEvent` or a `ProgrammaticEvent`"),
    row!("priority", "Priority", "CU_LAUNCH_ATTRIBUTE_PRIORITY", 8,
        launch: true, stream: true, graph: true, ValueForm::I32, since: 12000, cc: None, "`i32`"),
    row!("mem_sync_domain_map", "MemSyncDomainMap", "CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP", 9,
        launch: true, stream: true, graph: true, ValueForm::Expr, since: 12000, cc: None,
        "a `MemSyncDomainMap`"),
    row!("mem_sync_domain", "MemSyncDomain", "CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN", 10,
        launch: true, stream: true, graph: true, ValueForm::Enum(&["Default", "Remote"]),
        since: 12000,
        cc: None, "`Default`/`Remote` or a `MemSyncDomain`"),
    row!("preferred_cluster", "PreferredClusterDim",
        "CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION", 11,
        launch: true, stream: false, graph: false, ValueForm::Dim, since: 12080, cc: SM90, "dim"),
    row!("completion_event", "CompletionEvent", "CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT", 12,
        launch: true, stream: false, graph: false, ValueForm::Event, since: 12030, cc: None,
        "`&CudaEvent`"),
    row!("device_updatable", "DeviceUpdatable",
        "CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE", 13,
        launch: true, stream: false, graph: true, ValueForm::Flag, since: 12040, cc: None, "flag",
        note: "while the stream captures"),
    row!("shared_carveout", "SharedCarveout",
        "CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT", 14,
        launch: true, stream: false, graph: true, ValueForm::Percent, since: 12050, cc: None,
        "percent, 0 to 100"),
    row!("nvlink_centric", "NvlinkCentric",
        "CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING", 16,
        launch: true, stream: false, graph: true, ValueForm::Flag, since: 13000, cc: None, "flag"),
    row!("portable_cluster_size_mode", "PortableClusterSizeMode",
        "CU_LAUNCH_ATTRIBUTE_PORTABLE_CLUSTER_SIZE_MODE", 17,
        launch: true, stream: false, graph: true,
        ValueForm::Enum(&["Default", "RequirePortable", "AllowNonPortable"]), since: 13020,
        cc: SM90, "`Default`/`RequirePortable`/`AllowNonPortable` or a `PortableClusterSizeMode`"),
    row!("shared_memory_mode", "SharedMemoryMode", "CU_LAUNCH_ATTRIBUTE_SHARED_MEMORY_MODE", 18,
        launch: true, stream: false, graph: true,
        ValueForm::Enum(&["Default", "RequirePortable", "AllowNonPortable", "AllowOversized",
            "PreferOversized"]),
        since: 13020, cc: None,
        "`Default`/`RequirePortable`/`AllowNonPortable` (13.4: `AllowOversized`/`PreferOversized`) or a `SharedMemoryMode`"),
];

/// Enum values of a kind that came with a later CUDA version than the kind: `(key, variant,
/// version)`. A variant not listed is as old as its kind.
pub const LATER_VARIANTS: &[(&str, &str, u32)] = &[
    // CU_SHARED_MEMORY_MODE_ALLOW_OVERSIZED_SHARED_MEMORY (3) and
    // CU_SHARED_MEMORY_MODE_PREFER_OVERSIZED_SHARED_MEMORY (4).
    ("shared_memory_mode", "AllowOversized", 13040),
    ("shared_memory_mode", "PreferOversized", 13040),
];

/// The CUDA version that introduced value `variant` of kind `key`: the kind's own unless
/// [`LATER_VARIANTS`] lists it.
pub fn variant_since(key: &str, variant: &str) -> Option<u32> {
    let kind = by_key(key)?;
    Some(
        LATER_VARIANTS
            .iter()
            .find(|(k, v, _)| *k == key && *v == variant)
            .map_or(kind.since, |&(_, _, since)| since),
    )
}

/// The message for a value used with a CUDA feature that lacks it:
/// ``"`AllowOversized` (`shared_memory_mode`) needs CUDA 13.4: use feature cuda-13040 or later"``.
pub fn variant_missing_message(key: &str, variant: &str, since: u32) -> String {
    format!(
        "`{variant}` (`{key}`) needs CUDA {}: use feature {} or later",
        version_name(since),
        feature_name(since)
    )
}

/// The row of the kind with driver id `id`, in any supported version.
pub const fn by_id(id: u32) -> Option<&'static Kind> {
    let mut i = 0;
    while i < KINDS.len() {
        if KINDS[i].id == id {
            return Some(&KINDS[i]);
        }
        i += 1;
    }
    None
}

/// The row of the kind named `key` in `launch!`, in any supported version.
pub fn by_key(key: &str) -> Option<&'static Kind> {
    KINDS.iter().find(|k| k.key == key)
}

/// Whether two strings are equal, in a const context (for the runtime's const asserts).
pub const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The marker that opens the generated key table in a Markdown file.
pub const TABLE_BEGIN: &str = "<!-- kinds:begin -->";
/// The marker that closes it.
pub const TABLE_END: &str = "<!-- kinds:end -->";

/// The launch-list cell of a table: `yes`, or `no` written as `no`, with the row's note.
fn launch_cell(k: &Kind, no: &str) -> String {
    let answer = if k.launch { "yes" } else { no };
    if k.note.is_empty() {
        answer.to_string()
    } else {
        format!("{answer}, {}", k.note)
    }
}

/// The compute-capability cell of a table: `9.0+` or `any`.
fn cc_cell(k: &Kind) -> String {
    match k.min_cc {
        Some((major, minor)) => format!("{major}.{minor}+"),
        None => "any".to_string(),
    }
}

/// The key table of the docs, as Markdown lines (without the markers): every kind, its value,
/// its type and CUDA name, where the driver accepts it, the CUDA version that introduced it and
/// the compute capability it needs. The README and the `launch!` docs hold exactly these lines;
/// a test checks them.
pub fn markdown_table() -> Vec<String> {
    let yes_no = |b: bool| if b { "yes" } else { "**no**" };
    let mut lines = vec![
        "| key | value | kind (`CU_LAUNCH_ATTRIBUTE_…`) | launch list | `stream(...)` | graph node | CUDA | compute capability |"
            .to_string(),
        "|---|---|---|---|---|---|---|---|".to_string(),
    ];
    for k in KINDS {
        let (launch, cc) = (launch_cell(k, yes_no(false)), cc_cell(k));
        lines.push(format!(
            "| `{}` | {} | `{}` (`{}`) | {} | {} | {} | {}+ | {} |",
            k.key,
            k.value,
            k.type_name,
            k.cuda_name.trim_start_matches("CU_LAUNCH_ATTRIBUTE_"),
            launch,
            if k.stream { "yes" } else { "no" },
            if k.graph { "yes" } else { "no" },
            version_name(k.since),
            cc
        ));
    }
    lines
}

/// The reference table of `ATTRIBUTES.md`, as Markdown lines (without its markers): every kind's
/// key, runtime type, `CU_LAUNCH_ATTRIBUTE_*` name and id, where the driver accepts it (launch
/// list, `cuStreamSetAttribute`, `cuGraphKernelNodeSetAttribute`), its value,
/// the CUDA version that introduced it and the compute capability it needs. A test in this crate
/// checks the file against it.
pub fn attributes_table() -> Vec<String> {
    let yes_no = |b: bool| if b { "yes" } else { "no" };
    let mut lines = vec![
        "| key | Rust type | `CU_LAUNCH_ATTRIBUTE_…` (id) | launch | stream | graph node | value | CUDA | compute capability |"
            .to_string(),
        "|---|---|---|---|---|---|---|---|---|".to_string(),
    ];
    for k in KINDS {
        let (launch, cc) = (launch_cell(k, yes_no(false)), cc_cell(k));
        lines.push(format!(
            "| [`{}`](#{}) | `{}` | `{}` ({}) | {} | {} | {} | {} | {}+ | {} |",
            k.key,
            k.key,
            k.type_name,
            k.cuda_name.trim_start_matches("CU_LAUNCH_ATTRIBUTE_"),
            k.id,
            launch,
            yes_no(k.stream),
            yes_no(k.graph),
            k.value,
            version_name(k.since),
            cc
        ));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_ids_and_types_are_unique() {
        for (i, a) in KINDS.iter().enumerate() {
            for b in &KINDS[i + 1..] {
                assert!(a.key != b.key && a.id != b.id && a.type_name != b.type_name);
                assert!(a.id < b.id, "rows are in id order");
            }
            assert!(CUDA_VERSIONS.contains(&a.since), "{}", a.key);
            assert!(a.launch || a.stream, "{}", a.key);
            assert!(a.cuda_name.starts_with("CU_LAUNCH_ATTRIBUTE_"));
        }
    }

    #[test]
    fn versions_and_messages() {
        assert_eq!(version_name(13000), "13.0");
        assert_eq!(version_name(12080), "12.8");
        assert_eq!(feature_name(12040), "cuda-12040");
        let nv = by_key("nvlink_centric").unwrap();
        assert_eq!(
            nv.missing_message(),
            "`nvlink_centric` needs CUDA 13.0: use feature cuda-13000 or later"
        );
        assert!(!nv.in_version(12090) && nv.in_version(13000) && nv.in_version(13040));
        assert_eq!(by_id(17).unwrap().key, "portable_cluster_size_mode");
        assert!(by_id(15).is_none() && by_key("shared").is_none());
        assert!(CUDA_VERSIONS.contains(&DEFAULT_CUDA_VERSION));
        assert!(CUDA_VERSIONS.windows(2).all(|w| w[0] < w[1]));
        assert!(str_eq("abc", "abc") && !str_eq("abc", "abd") && !str_eq("ab", "abc"));
    }

    #[test]
    fn later_variants_are_variants_of_their_kind() {
        for &(key, variant, since) in LATER_VARIANTS {
            let kind = by_key(key).expect("a kind");
            let ValueForm::Enum(variants) = kind.form else {
                panic!("{key} is not an enum kind");
            };
            assert!(variants.contains(&variant), "{key}: {variant}");
            assert!(since > kind.since && CUDA_VERSIONS.contains(&since));
            assert!(
                kind.value.contains(variant),
                "{key}: the docs name {variant}"
            );
        }
        assert_eq!(
            variant_since("shared_memory_mode", "AllowOversized"),
            Some(13040)
        );
        assert_eq!(
            variant_since("shared_memory_mode", "AllowNonPortable"),
            Some(13020)
        );
        assert_eq!(variant_since("sync", "Spin"), Some(12000));
        assert_eq!(variant_since("fast", "Spin"), None);
        assert_eq!(
            variant_missing_message("shared_memory_mode", "PreferOversized", 13040),
            "`PreferOversized` (`shared_memory_mode`) needs CUDA 13.4: use feature cuda-13040 or \
             later"
        );
    }

    #[test]
    fn the_attributes_table_has_a_line_per_kind() {
        let table = attributes_table();
        assert_eq!(table.len(), KINDS.len() + 2);
        assert!(table.iter().any(|l| l.starts_with(
            "| [`sync`](#sync) | `SyncPolicy` | `SYNCHRONIZATION_POLICY` (3) | no | yes |"
        )));
        assert!(table
            .iter()
            .any(|l| l.contains("`NVLINK_UTIL_CENTRIC_SCHEDULING` (16) | yes | no |")));
    }

    #[test]
    fn graph_column_is_the_measured_one() {
        // Measured on an H200 (CUDA 13.0 driver): rejected on a captured kernel node.
        let rejected = [
            "sync",
            "programmatic_serialization",
            "programmatic_event",
            "preferred_cluster",
            "completion_event",
        ];
        for k in KINDS {
            assert_eq!(k.graph, !rejected.contains(&k.key), "{}", k.key);
        }
        let table = markdown_table();
        assert!(table[0].contains("| graph node |"));
        assert!(table
            .iter()
            .any(|l| l.starts_with("| `priority` |") && l.contains("| yes | yes | yes | 12.0+ |")));
    }

    #[test]
    fn the_table_has_a_line_per_kind() {
        let table = markdown_table();
        assert_eq!(table.len(), KINDS.len() + 2);
        assert!(table[2].starts_with("| `access_policy_window` |"));
        assert!(table
            .iter()
            .any(|l| l.contains("`sync`") && l.contains("| **no** | yes | no | 12.0+ | any |")));
    }
}
