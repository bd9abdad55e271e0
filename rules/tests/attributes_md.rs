//! `ATTRIBUTES.md` (the attribute reference at the repository root) against the kinds table: its
//! reference table is exactly [`attributes_table`], every kind has a section of its own, and
//! every example it names exists. With `CHEVRON_BLESS=1` the table is rewritten instead of
//! compared: `CHEVRON_BLESS=1 cargo test -p chevron-cuda-rules --test attributes_md`.

use chevron_cuda_rules::kinds::{attributes_table, KINDS};
use std::path::{Path, PathBuf};

const BEGIN: &str = "<!-- attributes:begin -->";
const END: &str = "<!-- attributes:end -->";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read() -> (PathBuf, String) {
    let file = root().join("ATTRIBUTES.md");
    let text = std::fs::read_to_string(&file)
        .unwrap_or_else(|e| panic!("reading {}: {e}", file.display()));
    (file, text)
}

#[test]
fn the_reference_table_is_the_kinds_table() {
    let (file, text) = read();
    let lines: Vec<&str> = text.lines().collect();
    let begin = lines.iter().position(|l| l.trim() == BEGIN);
    let end = lines.iter().position(|l| l.trim() == END);
    let (Some(begin), Some(end)) = (begin, end) else {
        panic!("{}: no `{BEGIN}` … `{END}`", file.display());
    };
    assert!(begin < end, "{}: `{END}` before `{BEGIN}`", file.display());
    let found: Vec<String> = lines[begin + 1..end]
        .iter()
        .map(|l| l.to_string())
        .collect();
    let want = attributes_table();
    if found == want {
        return;
    }
    if std::env::var_os("CHEVRON_BLESS").is_some() {
        let mut out: Vec<String> = lines[..=begin].iter().map(|l| l.to_string()).collect();
        out.extend(want);
        out.extend(lines[end..].iter().map(|l| l.to_string()));
        std::fs::write(&file, out.join("\n") + "\n").expect("ATTRIBUTES.md is writable");
        return;
    }
    panic!(
        "{}: the reference table differs from the kinds table (chevron_cuda_rules::kinds::KINDS); \
         regenerate with `CHEVRON_BLESS=1 cargo test -p chevron-cuda-rules --test attributes_md`.\n\
         want:\n{}\nfound:\n{}",
        file.display(),
        want.join("\n"),
        found.join("\n")
    );
}

#[test]
fn every_kind_has_a_section() {
    let (file, text) = read();
    for kind in KINDS {
        let heading = format!("### `{}`", kind.key);
        assert!(
            text.lines().any(|l| l.trim_end() == heading),
            "{}: no section `{heading}` for {}",
            file.display(),
            kind.cuda_name
        );
        assert!(
            text.contains(kind.cuda_name),
            "{}: {} is never named in full",
            file.display(),
            kind.cuda_name
        );
    }
}

#[test]
fn every_example_named_exists() {
    let (file, text) = read();
    let mut named = 0;
    for (at, _) in text.match_indices("examples/") {
        let rest = &text[at + "examples/".len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !rest[name.len()..].starts_with(".rs") {
            continue;
        }
        named += 1;
        let path = root().join("examples").join(format!("{name}.rs"));
        assert!(
            path.is_file(),
            "{}: names examples/{name}.rs, which does not exist",
            file.display()
        );
    }
    assert!(
        named >= 7,
        "{}: only {named} examples named",
        file.display()
    );
}
