//! What a reader copies from the documentation works in their own crate.
//!
//! - Doc examples (rustdoc comments of every crate, and the Markdown pages) import `chevron::…`:
//!   the inner crates (`chevron_cuda_runtime`, `chevron_cuda_macros`, `chevron_cuda_rules`) are
//!   not a user's dependencies, so a pasted `use chevron_cuda_runtime::…` fails with E0432.
//! - The README's Rust blocks are what rustdoc compiles (the README is the `chevron` crate's doc,
//!   so each block is a doctest): no hidden `# ` lines, a `fn main` in each (or a `compile_fail`
//!   block, or one whose first line says `// Excerpt`), and every kernel file they name exists
//!   in `kernels/`, where a reader copies it from. The guide's chapters (`guide/src/*.md`, each a
//!   doctest module of `chevron`) follow the same rules, and each says which kernel files its
//!   blocks read.
//! - The README stays a path (at most 300 lines); its Rust version is `Cargo.toml`'s.
//! - The requirements table of the guide matches the examples' declarations and the committed
//!   PTX's `.target` and `.version`.
//! - The Markdown pages name only commands and files that exist in the repository.
//! - Every GPU test reaches the driver through the skip guard (`tests/common/gpu.rs`) before
//!   anything else that needs it, so that without a driver the GPU test command skips cleanly.

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

/// The guide's chapters (`guide/src/*.md` but `SUMMARY.md`), as paths from the root, sorted.
fn chapters() -> Vec<String> {
    let dir = root().join("guide/src");
    let mut out: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| {
            e.expect("a directory entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|n| n.ends_with(".md") && n != "SUMMARY.md")
        .map(|n| format!("guide/src/{n}"))
        .collect();
    out.sort();
    out
}

/// The README and the guide's chapters: the pages whose Rust blocks are doctests.
fn doctest_pages() -> Vec<String> {
    let mut pages = vec!["README.md".to_string()];
    pages.extend(chapters());
    pages
}

/// Every Markdown page a reader is pointed to.
fn all_pages() -> Vec<String> {
    let mut pages: Vec<String> = MARKDOWN.iter().map(|s| s.to_string()).collect();
    pages.extend(chapters());
    pages
}

/// The kernel files (`kernels/NAME.ptx`, `kernels/nvrtc/NAME.cu`) named in `text`, relative to
/// `kernels/`.
fn kernel_files(text: &str) -> Vec<String> {
    let mut named = Vec::new();
    for part in text.split("kernels/").skip(1) {
        let end = part
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '/'))
            .unwrap_or(part.len());
        let file = part[..end].trim_end_matches('.');
        if file.ends_with(".ptx") || file.ends_with(".cu") || file.ends_with(".cuh") {
            named.push(file.to_string());
        }
    }
    named.sort_unstable();
    named.dedup();
    named
}

/// The Rust blocks of a page.
fn rust_blocks(text: &str) -> Vec<Block> {
    markdown_blocks(text)
        .into_iter()
        .filter(|b| is_rust(&b.info))
        .collect()
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
    for name in all_pages() {
        found.extend(inner_crate_uses(&name, &markdown_blocks(&markdown(&name))));
    }
    assert!(
        found.is_empty(),
        "doc examples must say `chevron::…` (what a user's crate can name), not the inner \
         crates:\n{}",
        found.join("\n")
    );
}

/// The problems of a page's Rust blocks as a reader pastes them: hidden lines, no `fn main`.
fn paste_problems(page: &str, text: &str) -> Vec<String> {
    let mut problems = Vec::new();
    for b in &rust_blocks(text) {
        if let Some(hidden) = b.lines.iter().find(|l| is_hidden(l)) {
            problems.push(format!(
                "{page}:{}: a hidden rustdoc line, which a reader does not see: `{hidden}`",
                b.line
            ));
        }
        let compile_fail = b.info.split(',').any(|w| w.trim() == "compile_fail");
        let excerpt = b.lines.first().is_some_and(|l| l.starts_with("// Excerpt"));
        let main = b.lines.iter().any(|l| l.contains("fn main("));
        if !(main || compile_fail || excerpt) {
            problems.push(format!(
                "{page}:{}: no `fn main`: give it one, or start it with `// Excerpt: …` \
                 saying where it goes",
                b.line
            ));
        }
    }
    problems
}

#[test]
fn readme_and_guide_rust_blocks_are_what_a_user_pastes() {
    let readme = rust_blocks(&markdown("README.md"));
    assert!(readme.len() >= 2, "only {} Rust blocks", readme.len());
    let mut problems = Vec::new();
    let mut total = 0;
    for page in doctest_pages() {
        let text = markdown(&page);
        total += rust_blocks(&text).len();
        problems.extend(paste_problems(&page, &text));
    }
    assert!(
        total >= 15,
        "only {total} Rust blocks in the README and the guide"
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn kernel_files_the_pages_name_exist() {
    let mut missing = Vec::new();
    let mut all = Vec::new();
    for page in doctest_pages() {
        for file in kernel_files(&markdown(&page)) {
            if !root().join("kernels").join(&file).is_file() {
                missing.push(format!("{page}: kernels/{file}"));
            }
            all.push(file);
        }
    }
    assert!(all.iter().any(|f| f == "saxpy.ptx"), "{all:?}");
    assert!(
        missing.is_empty(),
        "kernel files named but not in the repository:\n{}",
        missing.join("\n")
    );
}

/// The README is what a newcomer reads in ten minutes; the reference is the guide.
#[test]
fn the_readme_is_a_path() {
    let lines = markdown("README.md").lines().count();
    assert!(
        lines <= 300,
        "README.md has {lines} lines (at most 300): move reference material into the guide"
    );
}

/// Each chapter is in the book's table of contents and is a doctest module of the facade (so
/// its blocks compile), and each entry of the table of contents is a chapter.
#[test]
fn every_chapter_is_in_the_summary_and_compiled() {
    let summary = markdown("guide/src/SUMMARY.md");
    let lib = markdown("src/lib.rs");
    let mut problems = Vec::new();
    let chapters = chapters();
    assert!(chapters.len() >= 10, "{chapters:?}");
    for chapter in &chapters {
        let file = chapter.trim_start_matches("guide/src/");
        if !summary.contains(&format!("]({file})")) {
            problems.push(format!("{chapter}: not in guide/src/SUMMARY.md"));
        }
        if !lib.contains(&format!("include_str!(\"../{chapter}\")")) {
            problems.push(format!(
                "{chapter}: not a doctest module in src/lib.rs (`mod guide`), so its blocks \
                 are not compiled"
            ));
        }
    }
    for part in summary.split("](").skip(1) {
        let link = &part[..part.find(')').unwrap_or(part.len())];
        if !chapters.contains(&format!("guide/src/{link}")) {
            problems.push(format!("guide/src/SUMMARY.md: `{link}` is no chapter"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The names on a chapter's `**Kernel files:**` line; `None` without one.
fn listed_kernel_files(text: &str) -> Option<Vec<String>> {
    let line = text.lines().find(|l| l.starts_with("**Kernel files:**"))?;
    let list = line.split(". ").next().unwrap_or(line);
    let mut names: Vec<String> = list
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect();
    names.sort_unstable();
    Some(names)
}

#[test]
fn each_chapter_lists_the_kernel_files_its_blocks_read() {
    let mut problems = Vec::new();
    for chapter in chapters() {
        let text = markdown(&chapter);
        let mut read: Vec<String> = Vec::new();
        for block in rust_blocks(&text) {
            read.extend(kernel_files(&block.lines.join("\n")));
        }
        read.sort_unstable();
        read.dedup();
        match listed_kernel_files(&text) {
            None => problems.push(format!(
                "{chapter}: no `**Kernel files:**` line (write `none` when no block reads one)"
            )),
            Some(listed) if listed != read => problems.push(format!(
                "{chapter}: lists kernel files {listed:?}, its Rust blocks read {read:?}"
            )),
            Some(_) => {}
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The Rust version the README and the guide state is `Cargo.toml`'s `rust-version`.
#[test]
fn the_stated_rust_version_is_cargo_tomls() {
    let toml = markdown("Cargo.toml");
    let msrv = toml
        .lines()
        .find_map(|l| l.strip_prefix("rust-version = \""))
        .and_then(|l| l.strip_suffix('"'))
        .expect("rust-version in Cargo.toml");
    for page in ["README.md", "guide/src/requirements.md"] {
        let text = markdown(page);
        assert!(
            text.contains(&format!("{msrv} or later (`rust-version` in `Cargo.toml`)")),
            "{page} must say Rust {msrv} or later, as Cargo.toml's rust-version"
        );
    }
}

/// A PTX file's `.target` (`sm_75`) and `.version` (`8.0`).
fn ptx_target_and_version(file: &str) -> (String, String) {
    let text = std::fs::read_to_string(root().join("kernels").join(file))
        .unwrap_or_else(|e| panic!("kernels/{file}: {e}"));
    let field = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(key))
            .map(|v| v.trim().split(',').next().unwrap_or("").trim().to_string())
            .unwrap_or_else(|| panic!("kernels/{file}: no `{key}` line"))
    };
    (field(".target"), field(".version"))
}

/// Whether the PTX declares a device-runtime function (`cudaGraphLaunch`, …): its module needs
/// `libcudadevrt.a` at run time.
fn calls_the_device_runtime(file: &str) -> bool {
    let text = std::fs::read_to_string(root().join("kernels").join(file)).unwrap_or_default();
    text.lines()
        .filter(|l| l.starts_with(".extern .func"))
        .any(|l| {
            l.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .any(|w| w.starts_with("cuda"))
        })
}

/// The kernel files an example declares (`ptx = "kernels/…"`, `cuda = "kernels/…"`).
fn declared_kernel_files(example: &str) -> Vec<String> {
    let text = markdown(&format!("examples/{example}.rs"));
    let mut files = Vec::new();
    for key in ["ptx = \"kernels/", "cuda = \"kernels/"] {
        for part in text.split(key).skip(1) {
            files.push(part[..part.find('"').unwrap_or(0)].to_string());
        }
    }
    files.sort_unstable();
    files.dedup();
    files
}

/// The GPU generations the table names, with their compute capability.
const GENERATIONS: [(&str, u32); 3] = [("Turing", 75), ("Ampere", 80), ("Hopper", 90)];

/// One row of the requirements table against the examples it names and their PTX.
fn requirements_row_problems(row: &str, seen: &mut Vec<String>) -> Vec<String> {
    let cells: Vec<&str> = row.trim_matches('|').split(" | ").map(str::trim).collect();
    let mut problems = Vec::new();
    let [examples, kernels, gpu, needs, _memory] = cells[..] else {
        return vec![format!("not five cells: {row}")];
    };
    let names: Vec<&str> = examples.split('`').skip(1).step_by(2).collect();
    let mut declared: Vec<String> = Vec::new();
    for name in &names {
        seen.push(name.to_string());
        declared.extend(declared_kernel_files(name));
    }
    declared.sort_unstable();
    declared.dedup();
    let mut listed: Vec<String> = kernels
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|f| f.ends_with(".ptx") || f.ends_with(".cu"))
        .map(str::to_string)
        .collect();
    listed.sort_unstable();
    if listed != declared {
        problems.push(format!(
            "{names:?}: the table lists {listed:?}, the examples declare {declared:?}"
        ));
    }
    // Each group `a.ptx`, `b.ptx` (`sm_NN`, ISA V.V) against the files.
    let mut newest = 0;
    for group in kernels.split("; ") {
        let files: Vec<&str> = group
            .split('`')
            .skip(1)
            .step_by(2)
            .filter(|f| f.ends_with(".ptx"))
            .collect();
        for file in files {
            let (target, version) = ptx_target_and_version(file);
            let want = format!("(`{target}`, ISA {version})");
            if !group.contains(&want) {
                problems.push(format!("{names:?}: `{file}` is {want} in its PTX: {group}"));
            }
            let cc: u32 = target.trim_start_matches("sm_").parse().unwrap_or(0);
            newest = newest.max(cc);
            if calls_the_device_runtime(file) && !needs.contains("libcudadevrt.a") {
                problems.push(format!(
                    "{names:?}: `{file}` calls the device runtime: say it needs `libcudadevrt.a`"
                ));
            }
        }
    }
    if kernels.contains(".cu`") && !(needs.contains("NVRTC") && needs.contains("headers")) {
        problems.push(format!(
            "{names:?}: a `cuda = …` kernel needs NVRTC and the toolkit's headers at run time"
        ));
    }
    if newest > 0 {
        match GENERATIONS.iter().find(|(g, _)| gpu.starts_with(g)) {
            Some((g, cc)) if *cc < newest => {
                problems.push(format!("{names:?}: {g} is below the PTX's sm_{newest}"))
            }
            Some(_) => {}
            None => problems.push(format!(
                "{names:?}: the GPU column names no generation: {gpu}"
            )),
        }
    }
    problems
}

#[test]
fn requirements_table_matches_the_examples_and_their_ptx() {
    let text = markdown("guide/src/requirements.md");
    let begin = text
        .find("<!-- requirements:begin -->")
        .expect("the table's begin marker");
    let end = text
        .find("<!-- requirements:end -->")
        .expect("its end marker");
    let rows: Vec<&str> = text[begin..end]
        .lines()
        .filter(|l| l.starts_with("| `"))
        .collect();
    let mut seen = Vec::new();
    let mut problems = Vec::new();
    for row in &rows {
        problems.extend(requirements_row_problems(row, &mut seen));
    }
    let mut examples: Vec<String> = std::fs::read_dir(root().join("examples"))
        .expect("examples/")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    examples.sort();
    seen.sort();
    if seen != examples {
        problems.push(format!(
            "the table's examples {seen:?} are not examples/*.rs {examples:?}"
        ));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// What a page names that the repository must hold: `cargo … --example/--bench/--test NAME`
/// and paths under the repository's directories.
fn named_things(text: &str) -> Vec<String> {
    // Inline code outside fenced blocks (those show a reader's own crate and terminal).
    let mut prose = String::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            prose.push_str(line);
            prose.push('\n');
        }
    }
    let mut problems = Vec::new();
    for span in prose.split('`').skip(1).step_by(2) {
        let words: Vec<&str> = span.split_whitespace().collect();
        // `-p chevron-cuda-rules`: that crate's directory.
        let dir = words
            .windows(2)
            .find(|w| w[0] == "-p")
            .map_or("", |w| match w[1] {
                "chevron-cuda-rules" => "rules/",
                "chevron-cuda-macros" => "macros/",
                "chevron-cuda-runtime" => "runtime/",
                _ => "",
            });
        for pair in words.windows(2) {
            let file = match pair[0] {
                "--example" => format!("examples/{}.rs", pair[1]),
                "--bench" => format!("{dir}benches/{}.rs", pair[1]),
                "--test" => format!("{dir}tests/{}.rs", pair[1]),
                _ => continue,
            };
            if pair[1] != "NAME" && !root().join(&file).is_file() {
                problems.push(format!("`{span}`: no {file}"));
            }
        }
        for word in &words {
            let word = word.trim_end_matches([',', ';', ')', ':']);
            let dirs = [
                "scripts/",
                "tests/",
                "examples/",
                "benches/",
                "kernels/",
                "src/",
                "runtime/",
                "macros/",
                "rules/",
                "guide/",
                "ui-tests/",
                ".ci/",
                ".cargo/",
                "fuzz/",
            ];
            let path_like =
                dirs.iter().any(|d| word.starts_with(d)) || word.starts_with(".gpu-bundle");
            // A reader's own crate (`src/main.rs`) and what a build writes (`guide/book/`).
            let theirs = word.starts_with("src/main.rs") || word.starts_with("guide/book");
            if !path_like || theirs || word.contains(['*', '{', '<', '…']) || word.contains("NAME")
            {
                continue;
            }
            if !root().join(word).exists() {
                problems.push(format!("`{span}`: no {word}"));
            }
        }
    }
    problems
}

#[test]
fn the_pages_name_only_commands_and_files_that_exist() {
    let mut problems = Vec::new();
    for page in all_pages() {
        for p in named_things(&markdown(&page)) {
            problems.push(format!("{page}: {p}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The body of each `#[ignore = "needs a CUDA GPU"]` test in `text`: from its attribute to the
/// next `#[test]`.
fn gpu_test_bodies(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for part in text.split("#[ignore = \"needs a CUDA GPU\"]").skip(1) {
        let body = part.split("#[test]").next().unwrap_or(part);
        let name = body
            .split("fn ")
            .nth(1)
            .and_then(|r| r.split('(').next())
            .unwrap_or("?")
            .to_string();
        out.push((name, body.to_string()));
    }
    out
}

/// The calls that need a driver, which a GPU test must not reach before the skip guard.
const DRIVER_CALLS: [&str; 4] = [
    "chevron::context(",
    "DeviceSet::all(",
    "DeviceSet::new(",
    "CudaContext::new",
];

/// The functions of `text` that reach the guard (`gpu::…` in their body), with `gpu::` itself:
/// calling one of them first is guarding too.
fn guards(text: &str) -> Vec<String> {
    let mut out = vec!["gpu::".to_string()];
    for part in text.split("\nfn ").skip(1) {
        let name = part.split(['(', '<']).next().unwrap_or("").trim();
        let body = part.split("\n}").next().unwrap_or(part);
        if !name.is_empty() && body.contains("gpu::") {
            out.push(format!("{name}("));
        }
    }
    out
}

/// `name: call` for each GPU test of `text` that calls the driver before `gpu::` (or a helper
/// that calls it).
fn unguarded(text: &str) -> Vec<String> {
    let guards = guards(text);
    let mut found = Vec::new();
    for (name, body) in gpu_test_bodies(text) {
        let guard = guards
            .iter()
            .filter_map(|g| body.find(g.as_str()))
            .min()
            .unwrap_or(usize::MAX);
        for call in DRIVER_CALLS {
            if body.find(call).is_some_and(|at| at < guard) {
                found.push(format!(
                    "{name}: `{call}` before `gpu::context`/`gpu::driver`"
                ));
            }
        }
    }
    found
}

#[test]
fn gpu_tests_reach_the_driver_through_the_skip_guard() {
    let mut files = Vec::new();
    for dir in ["tests", "runtime/tests"] {
        let entries = std::fs::read_dir(root().join(dir)).expect("a tests directory");
        for e in entries {
            let path = e.expect("an entry").path();
            if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    let mut problems = Vec::new();
    let mut gpu_files = 0;
    for path in files {
        let text = std::fs::read_to_string(&path).expect("a test file");
        if !text.contains("#[ignore = \"needs a CUDA GPU\"]") {
            continue;
        }
        gpu_files += 1;
        let name = path
            .strip_prefix(root())
            .unwrap_or(&path)
            .display()
            .to_string();
        for p in unguarded(&text) {
            problems.push(format!("{name}: {p}"));
        }
    }
    assert!(gpu_files >= 20, "found {gpu_files} GPU test files");
    assert!(
        problems.is_empty(),
        "without a driver these fail instead of skipping (call `gpu::context(0)` or \
         `gpu::driver()` first, tests/common/gpu.rs):\n{}",
        problems.join("\n")
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

    // A GPU test reaching the driver first, one reaching it after the guard, one through a helper.
    let tests = "#[test]\n#[ignore = \"needs a CUDA GPU\"]\nfn bare() -> R {\n    let ctx = chevron::context(0)?;\n}\n\
                 #[test]\n#[ignore = \"needs a CUDA GPU\"]\nfn guarded() -> R {\n    let ctx = gpu::context(0)?;\n    CudaContext::new_non_primary(0, 0)?;\n}\n\
                 #[test]\n#[ignore = \"needs a CUDA GPU\"]\nfn helper() -> R {\n    let s = setup()?;\n    CudaContext::new_non_primary(0, 0)?;\n}\n\
                 fn setup() -> R {\n    gpu::context(0)\n}\n";
    assert_eq!(
        unguarded(tests),
        ["bare: `chevron::context(` before `gpu::context`/`gpu::driver`"]
    );

    // The rows the README's requirements table had wrong: jacobi.ptx is sm_90, not Turing; an
    // example missing from the table; a `cuda = …` kernel without NVRTC and headers.
    let mut seen = Vec::new();
    let wrong = "| `conditional_jacobi` | `jacobi.ptx` (`sm_75`, ISA 8.0) | Turing or newer | the toolkit's `libcudadevrt.a` | < 1 MiB |";
    let p = requirements_row_problems(wrong, &mut seen);
    assert!(
        p.iter()
            .any(|p| p.contains("(`sm_90`, ISA 8.0) in its PTX")),
        "{p:?}"
    );
    assert!(
        p.iter()
            .any(|p| p.contains("Turing is below the PTX's sm_90")),
        "{p:?}"
    );
    let cpp = "| `cpp_port` | `port_hist.ptx`, `port_rows.ptx` (`sm_75`, ISA 8.0); `port_hist.cu`, `port_rows.cu` (NVRTC) | Turing or newer | nothing | < 1 MiB |";
    let p = requirements_row_problems(cpp, &mut seen);
    assert!(
        p.iter()
            .any(|p| p.contains("NVRTC and the toolkit's headers")),
        "{p:?}"
    );
    let partition =
        "| `saxpy` | `saxpy.ptx` (`sm_75`, ISA 9.0) | Turing or newer | nothing | 8 MiB |";
    let p = requirements_row_problems(partition, &mut seen);
    assert!(
        p.iter()
            .any(|p| p.contains("(`sm_75`, ISA 8.0) in its PTX")),
        "{p:?}"
    );
    assert_eq!(seen, ["conditional_jacobi", "cpp_port", "saxpy"]);

    // Commands and files that do not exist.
    let p = named_things(
        "run `cargo run --release --example no_such` and `bash .gpu-bundle/run tests`, \
         `cargo run --release --example saxpy`, `scripts/device-run.sh examples`",
    );
    assert_eq!(p.len(), 2, "{p:?}");
    assert_eq!(
        listed_kernel_files("# T\n\n**Kernel files:** `a.ptx`, `b.cu`. Copy `them`.\n"),
        Some(vec!["a.ptx".to_string(), "b.cu".to_string()])
    );
}
