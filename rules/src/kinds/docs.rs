//! The Markdown tables generated from the rows: the key table of the guide
//! (`guide/src/launch.md`) and the `launch!` docs, and the reference table of `ATTRIBUTES.md`.

use super::{capture_row, version_name, Kind, Position, KINDS};

/// The marker that opens the generated key table in a Markdown file.
pub const TABLE_BEGIN: &str = "<!-- kinds:begin -->";
/// The marker that closes it.
pub const TABLE_END: &str = "<!-- kinds:end -->";

/// The placement cells of a table, one per position: `yes`, or `no` (the launch column's `no`
/// written as `launch_no`), with the row's note in the launch column.
fn position_cells(k: &Kind, launch_no: &str) -> String {
    let cells: Vec<String> = Position::ALL
        .iter()
        .map(|&p| {
            let answer = match (k.accepts(p), p) {
                (true, _) => "yes",
                (false, Position::Launch) => launch_no,
                (false, _) => "no",
            };
            if p == Position::Launch && !k.note.is_empty() {
                format!("{answer}, {}", k.note)
            } else {
                answer.to_string()
            }
        })
        .collect();
    cells.join(" | ")
}

/// The header and rule of a table whose position columns are titled by `title`.
fn header(before: &[&str], title: fn(Position) -> &'static str, after: &[&str]) -> [String; 2] {
    let titles = Position::ALL.iter().map(|p| title(*p));
    let cells: Vec<&str> = before
        .iter()
        .copied()
        .chain(titles)
        .chain(after.iter().copied())
        .collect();
    [
        format!("| {} |", cells.join(" | ")),
        format!("|{}", "---|".repeat(cells.len())),
    ]
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
/// the compute capability it needs. The guide and the `launch!` docs hold exactly these lines;
/// a test checks them.
pub fn markdown_table() -> Vec<String> {
    let mut lines = header(
        &["key", "value", "kind (`CU_LAUNCH_ATTRIBUTE_…`)"],
        Position::dsl_title,
        &["CUDA", "compute capability"],
    )
    .to_vec();
    for k in KINDS {
        lines.push(format!(
            "| `{}` | {} | `{}` (`{}`) | {} | {}+ | {} |",
            k.key,
            k.value,
            k.type_name,
            k.cuda_name.trim_start_matches("CU_LAUNCH_ATTRIBUTE_"),
            position_cells(k, "**no**"),
            version_name(k.since),
            cc_cell(k)
        ));
    }
    lines
}

/// The reference table of `ATTRIBUTES.md`, as Markdown lines (without its markers): every kind's
/// key, runtime type, `CU_LAUNCH_ATTRIBUTE_*` name and id, where the driver accepts it (launch
/// list, `cuStreamSetAttribute`, `cuGraphKernelNodeSetAttribute`), what a launch on a
/// capturing stream does with it ([`super::CAPTURE`]), its value, the CUDA version that
/// introduced it and the compute capability it needs. A test in this crate checks the file
/// against it.
pub fn attributes_table() -> Vec<String> {
    let mut lines = header(
        &["key", "Rust type", "`CU_LAUNCH_ATTRIBUTE_…` (id)"],
        Position::title,
        &["capture", "value", "CUDA", "compute capability"],
    )
    .to_vec();
    for k in KINDS {
        let capture = capture_row(k.key).map_or_else(|| "not measured".to_string(), |r| r.cell());
        lines.push(format!(
            "| [`{}`](#{}) | `{}` | `{}` ({}) | {} | {} | {} | {}+ | {} |",
            k.key,
            k.key,
            k.type_name,
            k.cuda_name.trim_start_matches("CU_LAUNCH_ATTRIBUTE_"),
            k.id,
            position_cells(k, "no"),
            capture,
            k.value,
            version_name(k.since),
            cc_cell(k)
        ));
    }
    lines
}
