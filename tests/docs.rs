//! What a reader copies from the documentation works in their own crate.
//!
//! - Doc examples (rustdoc comments of every crate, and the Markdown pages) import `chevron::…`:
//!   the inner crates (`chevron_cuda_runtime`, `chevron_cuda_macros`, `chevron_cuda_rules`) are
//!   not a user's dependencies, so a pasted `use chevron_cuda_runtime::…` fails with E0432.
//! - The README's Rust blocks are what rustdoc compiles (the README is the `chevron` crate's doc,
//!   so each block is a doctest): no hidden `# ` lines, a `fn main` in each (or a `compile_fail`
//!   block, or one whose first line says `// Excerpt`), and every kernel file they name exists
//!   in `kernels/`, where a reader copies it from.

use std::path::{Path, PathBuf};

/// The workspace root.
fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A fenced code block: its info string (`rust,no_run`), its lines, and the line (1-based) of
/// its opening fence.
#[derive(Debug)]
struct Block {
    info: String,
    lines: Vec<String>,
    line: usize,
}

/// The fenced code blocks of Markdown text (lines already stripped of any `///` prefix).
/// Indented fences (in list items) count; the indentation is removed from the block's lines.
fn blocks<'a>(lines: impl IntoIterator<Item = (usize, &'a str)>) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<(usize, Block)> = None;
    for (n, line) in lines {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        if let Some(rest) = trimmed.strip_prefix("```") {
            match open.take() {
                Some((_, block)) => out.push(block),
                None => {
                    open = Some((
                        indent,
                        Block {
                            info: rest.trim().to_string(),
                            lines: Vec::new(),
                            line: n,
                        },
                    ))
                }
            }
        } else if let Some((indent, block)) = open.as_mut() {
            let cut = line.len().min(*indent);
            let cut = if line[..cut].trim().is_empty() {
                cut
            } else {
                0
            };
            block.lines.push(line[cut..].to_string());
        }
    }
    out
}

/// rustdoc's reading of an info string: Rust unless another language is named.
fn is_rust(info: &str) -> bool {
    let first = info.split(',').next().unwrap_or("").trim();
    matches!(
        first,
        "" | "rust" | "no_run" | "ignore" | "should_panic" | "compile_fail"
    ) || first.starts_with("edition")
}

/// A line rustdoc hides (`# use …`, a lone `#`); `#[attr]` and `#![attr]` are code.
fn is_hidden(line: &str) -> bool {
    let t = line.trim_start();
    t == "#" || t.starts_with("# ")
}

/// The `.rs` files under `dir`, recursively.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The doc comments (`///`, `//!`) of a Rust file as Markdown lines, with their line numbers.
fn doc_lines(text: &str) -> Vec<(usize, String)> {
    text.lines()
        .enumerate()
        .filter_map(|(i, line)| {
            let t = line.trim_start();
            let doc = t.strip_prefix("///").or_else(|| t.strip_prefix("//!"))?;
            Some((i + 1, doc.strip_prefix(' ').unwrap_or(doc).to_string()))
        })
        .collect()
}

const INNER_CRATES: [&str; 3] = [
    "chevron_cuda_runtime",
    "chevron_cuda_macros",
    "chevron_cuda_rules",
];

/// `file:line: text` for each line of a Rust block of `blocks` naming an inner crate.
fn inner_crate_uses(file: &str, blocks: &[Block]) -> Vec<String> {
    let mut found = Vec::new();
    for block in blocks.iter().filter(|b| is_rust(&b.info)) {
        for (k, line) in block.lines.iter().enumerate() {
            if INNER_CRATES.iter().any(|c| line.contains(c)) {
                found.push(format!("{file}:{}: {}", block.line + 1 + k, line.trim()));
            }
        }
    }
    found
}

const MARKDOWN: [&str; 3] = ["README.md", "RESULTS.md", "ATTRIBUTES.md"];

fn markdown(name: &str) -> String {
    std::fs::read_to_string(root().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn markdown_blocks(text: &str) -> Vec<Block> {
    blocks(text.lines().enumerate().map(|(i, l)| (i + 1, l)))
}

#[test]
fn doc_examples_import_chevron_not_the_inner_crates() {
    let mut files = Vec::new();
    for dir in ["src", "runtime/src", "macros/src", "rules/src"] {
        rust_files(&root().join(dir), &mut files);
    }
    assert!(files.len() > 20, "found only {files:?}");
    let mut found = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).expect("a source file");
        let docs = doc_lines(&text);
        let blocks = blocks(docs.iter().map(|(n, l)| (*n, l.as_str())));
        let name = path
            .strip_prefix(root())
            .unwrap_or(path)
            .display()
            .to_string();
        found.extend(inner_crate_uses(&name, &blocks));
    }
    for name in MARKDOWN {
        found.extend(inner_crate_uses(name, &markdown_blocks(&markdown(name))));
    }
    assert!(
        found.is_empty(),
        "doc examples must say `chevron::…` (what a user's crate can name), not the inner \
         crates:\n{}",
        found.join("\n")
    );
}

#[test]
fn readme_rust_blocks_are_what_a_user_pastes() {
    let readme = markdown("README.md");
    let rust: Vec<Block> = markdown_blocks(&readme)
        .into_iter()
        .filter(|b| is_rust(&b.info))
        .collect();
    assert!(rust.len() >= 8, "only {} Rust blocks", rust.len());
    let mut problems = Vec::new();
    for b in &rust {
        if let Some(hidden) = b.lines.iter().find(|l| is_hidden(l)) {
            problems.push(format!(
                "README.md:{}: a hidden rustdoc line, which a reader does not see: `{hidden}`",
                b.line
            ));
        }
        let compile_fail = b.info.split(',').any(|w| w.trim() == "compile_fail");
        let excerpt = b.lines.first().is_some_and(|l| l.starts_with("// Excerpt"));
        let main = b.lines.iter().any(|l| l.contains("fn main("));
        if !(main || compile_fail || excerpt) {
            problems.push(format!(
                "README.md:{}: no `fn main`: give it one, or start it with `// Excerpt: …` \
                 saying where it goes",
                b.line
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn kernel_files_the_readme_names_exist() {
    let readme = markdown("README.md");
    let mut named: Vec<&str> = Vec::new();
    for part in readme.split("kernels/").skip(1) {
        let end = part
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
            .unwrap_or(part.len());
        let file = part[..end].trim_end_matches('.');
        if file.ends_with(".ptx") || file.ends_with(".cu") {
            named.push(file);
        }
    }
    named.sort_unstable();
    named.dedup();
    assert!(named.contains(&"saxpy.ptx"), "{named:?}");
    let missing: Vec<&&str> = named
        .iter()
        .filter(|f| !root().join("kernels").join(f).is_file())
        .collect();
    assert!(
        missing.is_empty(),
        "README names kernels/{missing:?}, not in the repository"
    );
}

/// The readers above, on text with the mistakes they must find.
#[test]
fn the_checks_find_what_they_look_for() {
    let text = "intro\n```rust,no_run\n# fn main() {}\nuse chevron_cuda_runtime::Error;\n```\n\
                - item:\n\n  ```toml\n  a = 1\n  ```\n```rust\n#[kernel]\n#![allow(x)]\n```\n";
    let b = markdown_blocks(text);
    assert_eq!(b.len(), 3, "{b:?}");
    assert_eq!((b[0].info.as_str(), b[0].line), ("rust,no_run", 2));
    assert!(is_hidden(&b[0].lines[0]));
    assert_eq!(b[1].lines, ["a = 1"]);
    assert!(!is_rust(&b[1].info));
    assert!(!b[2].lines.iter().any(|l| is_hidden(l)));
    assert_eq!(
        inner_crate_uses("x.md", &b),
        ["x.md:4: use chevron_cuda_runtime::Error;"]
    );
    let docs = doc_lines("/// ```\n/// use chevron_cuda_macros::kernel;\n/// ```\nfn f() {}\n");
    let b = blocks(docs.iter().map(|(n, l)| (*n, l.as_str())));
    assert_eq!(inner_crate_uses("f.rs", &b).len(), 1);
}
