use super::*;

#[test]
fn keys_ids_and_types_are_unique() {
    for (i, a) in KINDS.iter().enumerate() {
        for b in &KINDS[i + 1..] {
            assert!(a.key != b.key && a.id != b.id && a.type_name != b.type_name);
            assert!(a.id < b.id, "rows are in id order");
        }
        assert!(CUDA_VERSIONS.contains(&a.since), "{}", a.key);
        assert!(
            a.accepts(Position::Launch) || a.accepts(Position::Stream),
            "{}",
            a.key
        );
        // A graph's kernel node takes attributes of the launch it was captured from.
        assert!(
            !a.accepts(Position::GraphNode) || a.accepts(Position::Launch),
            "{}",
            a.key
        );
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
fn every_version_is_named_after_its_number() {
    assert_eq!(VERSION_NAMES.len(), CUDA_VERSIONS.len());
    for (name, number) in VERSION_NAMES.iter().zip(CUDA_VERSIONS) {
        assert_eq!(*name, feature_name(*number).replace('-', "_"));
    }
    assert_eq!(selected_version(|v| v >= 12080), Some(12080));
    assert_eq!(selected_version(|_| false), None);
    assert_eq!(feature_env(12040), "CARGO_FEATURE_CUDA_12040");
}

#[test]
fn const_messages_are_the_formatted_ones() {
    for k in KINDS {
        let want = format!(
            "`{}` needs CUDA {}: use feature {} or later",
            k.key,
            version_name(k.since),
            feature_name(k.since)
        );
        assert_eq!(k.missing_message_const().as_str(), want);
        assert_eq!(k.missing_message(), want);
    }
    let s = ConstStr::<8>::new()
        .push("ab")
        .push_u32(0)
        .push_u32(4_294_967_295);
    assert_eq!(s.as_str(), "ab042949");
    // Cut inside a character: the whole characters before it.
    assert_eq!(ConstStr::<4>::new().push("ab€").as_str(), "ab");
    assert_eq!(ConstStr::<4>::default().as_str(), "");
}

#[test]
fn positions_are_sets() {
    let both = Positions::of(&[Position::Launch, Position::GraphNode]);
    assert!(both.contains(Position::Launch) && both.contains(Position::GraphNode));
    assert!(!both.contains(Position::Stream));
    assert!(!Positions::of(&[]).contains(Position::Launch));
    let sync = by_key("sync").unwrap();
    assert!(sync.accepts(Position::Stream) && !sync.accepts(Position::Launch));
    assert_eq!(
        Position::GraphNode.driver_call(),
        "cuGraphKernelNodeSetAttribute"
    );
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
fn the_graph_column_is_the_tables() {
    let table = markdown_table();
    assert!(table[0].contains("| graph node |"));
    assert!(table
        .iter()
        .any(|l| l.starts_with("| `priority` |") && l.contains("| yes | yes | yes | 12.0+ |")));
    for (k, line) in KINDS.iter().zip(&table[2..]) {
        let graph = if k.accepts(Position::GraphNode) {
            "yes"
        } else {
            "no"
        };
        let cells: Vec<&str> = line.split(" | ").collect();
        assert_eq!(cells[5], graph, "{line}");
    }
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

/// The capture column has one row per kind, in the table's order, each with its source; a kind
/// the driver refuses in the launch list is refused under capture too (the same call), and the
/// kinds that become edges are the launch-only ones with a graph port of their own.
#[test]
fn the_capture_column_has_a_row_per_kind() {
    let keys: Vec<&str> = CAPTURE.iter().map(|r| r.key).collect();
    let kinds: Vec<&str> = KINDS.iter().map(|k| k.key).collect();
    assert_eq!(keys, kinds, "one capture row per kind, in KINDS' order");
    for row in CAPTURE {
        let kind = by_key(row.key).expect("a kind");
        assert!(!row.source.is_empty(), "{}", row.key);
        if !kind.accepts(Position::Launch) {
            assert_eq!(row.captured, Captured::Refused, "{}", row.key);
        }
        if row.captured == Captured::Edge {
            assert!(!kind.accepts(Position::GraphNode), "{}", row.key);
        }
        assert_eq!(capture_row(row.key), Some(row));
    }
    assert_eq!(capture_row("shared"), None);
    // The cells say how each row is known.
    let cell = |key| capture_row(key).expect("a row").cell();
    assert_eq!(cell("priority"), "on the node (measured, CUDA 13.0 driver)");
    assert_eq!(
        cell("completion_event"),
        "an edge (measured, CUDA 13.0 driver)"
    );
    assert_eq!(cell("sync"), "refused (measured, CUDA 13.0 driver)");
    assert_eq!(
        cell("nvlink_centric"),
        "dropped (measured, CUDA 13.0 driver)"
    );
    assert_eq!(cell("shared_memory_mode"), "not measured");
    let documented = CaptureRow {
        evidence: Evidence::Documented,
        ..*capture_row("priority").expect("a row")
    };
    assert_eq!(documented.cell(), "on the node (documented, not measured)");
}
