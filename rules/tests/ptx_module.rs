//! The module of one entry cut out of its file ([`ModuleIndex::cut`], what `#[kernel]` embeds
//! instead of the whole file), on every PTX of the repository: nvcc 13.0 output, release and
//! `-G`, the llm.c corpus and the PTX reader's fixtures. A cut module reads as the same entry
//! (parameters, directives, the facts over its call graph), and `ptxas` assembles it (where
//! `ptxas` is found: on `PATH`, in `$CUDA_PATH/bin` or `/usr/local/cuda/bin`;
//! `CHEVRON_REQUIRE_CUDA_TOOLS=1` makes a missing one a failure).

use std::path::{Path, PathBuf};
use std::process::Command;

use chevron_cuda_rules::ptx::{self, Entry, ModuleIndex, WholeFile};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every `.ptx` of kernels/, kernels/corpus/*/ and rules/tests/fixtures/, relative to the root.
fn ptx_files() -> Vec<String> {
    let mut out = Vec::new();
    for dir in ["kernels", "kernels/corpus/llmc", "rules/tests/fixtures"] {
        for e in std::fs::read_dir(root().join(dir)).expect(dir).flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.ends_with(".ptx") {
                out.push(format!("{dir}/{name}"));
            }
        }
    }
    out.sort();
    out
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// What a cut must keep of an entry: everything the reader finds but the line numbers.
fn reading(e: &Entry) -> String {
    let params: Vec<_> = e
        .params
        .iter()
        .map(|p| (&p.name, p.ty, p.align, p.array_len))
        .collect();
    let d = &e.directives;
    let dims = |x: Option<ptx::DimDirective>| x.map(|d| d.dims);
    let num = |x: Option<ptx::NumDirective>| x.map(|d| d.value);
    format!(
        "{} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?}",
        e.name,
        params,
        dims(d.reqntid),
        dims(d.maxntid),
        dims(d.reqnctapercluster),
        num(d.maxclusterrank),
        num(d.minnctapersm),
        d.explicitcluster.is_some(),
        d.blocksareclusters.is_some(),
        (
            e.uses.grid_sync.fact(),
            e.uses.griddep_wait.fact(),
            e.uses.griddep_launch_dependents.fact()
        ),
        e.uses.unseen.as_ref().map(|u| &u.callee),
        e.writes.iter().map(ptx::Seen::fact).collect::<Vec<_>>(),
        e.signature.is_some(),
    )
}

/// Each entry of each file: its cut module, or why it keeps the whole file.
fn cuts() -> Vec<(String, String, Result<String, WholeFile>)> {
    let mut out = Vec::new();
    for path in ptx_files() {
        let text = read(&path);
        let entries = ptx::parse_entries(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
        let index = ModuleIndex::new(&text);
        for e in entries {
            let cut = index.cut(&text, &e.name);
            out.push((path.clone(), e.name, cut));
        }
    }
    out
}

#[test]
fn a_cut_module_reads_as_the_same_entry() {
    let mut cut_count = 0;
    for path in ptx_files() {
        let text = read(&path);
        let entries = ptx::parse_entries(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
        let index = ModuleIndex::new(&text);
        for e in &entries {
            let Ok(module) = index.cut(&text, &e.name) else {
                continue;
            };
            cut_count += 1;
            let again = ptx::parse_entries(&module)
                .unwrap_or_else(|err| panic!("{path}: {}: {err}\n{module}", e.name));
            let same = again
                .iter()
                .find(|x| x.name == e.name)
                .unwrap_or_else(|| panic!("{path}: {} lost its entry", e.name));
            assert_eq!(reading(same), reading(e), "{path}: {}", e.name);
            assert!(module.len() <= text.len(), "{path}: {}", e.name);
        }
    }
    assert!(cut_count > 200, "only {cut_count} entries were cut");
}

#[test]
fn debug_builds_and_shared_variables_keep_the_whole_file() {
    let all = cuts();
    let reason = |path: &str, entry: &str| {
        all.iter()
            .find(|(p, e, _)| p == path && e == entry)
            .unwrap_or_else(|| panic!("no {entry} in {path}"))
            .2
            .clone()
            .err()
    };
    // `-G`: the DWARF sections name every function.
    for (path, entry) in [
        ("kernels/grid_helpers_debug.ptx", "helper_rotate"),
        ("kernels/pdl_helpers_debug.ptx", "pdl_wait_helper"),
        ("rules/tests/fixtures/module_state_debug.ptx", "scale"),
    ] {
        assert_eq!(reason(path, entry), Some(WholeFile::Debug), "{path}");
    }
    // A `__device__` variable two kernels share, a `__constant__` table the host writes.
    let state = |name: &str, space: &str| {
        Some(WholeFile::State {
            name: name.into(),
            space: space.into(),
        })
    };
    for path in [
        "rules/tests/fixtures/module_state.ptx",
        "rules/tests/fixtures/module_state_lineinfo.ptx",
    ] {
        assert_eq!(reason(path, "count_launch"), state("launches", ".global"));
        assert_eq!(reason(path, "read_count"), state("launches", ".global"));
        assert_eq!(reason(path, "weigh"), state("weights", ".const"));
        // `printf` and `assert` strings, a function-static `__shared__` array, a helper.
        for entry in ["say", "checked", "block_sum", "scale"] {
            assert_eq!(reason(path, entry), None, "{path}: {entry}");
        }
    }
    // A call through a function pointer.
    assert_eq!(
        reason("rules/tests/fixtures/calls.ptx", "calls_indirect"),
        Some(WholeFile::Indirect)
    );
    // Every entry of a release build of the repository's kernels is cut, but those that name
    // a `__device__` variable or call through a pointer.
    for (path, entry, cut) in &all {
        if let Err(why) = cut {
            assert!(
                matches!(
                    why,
                    WholeFile::Debug | WholeFile::State { .. } | WholeFile::Indirect
                ),
                "{path}: {entry}: {why:?}"
            );
        }
    }
}

#[test]
fn the_module_holds_the_callees_and_no_other_entry() {
    let text = read("kernels/grid_helpers.ptx");
    let index = ModuleIndex::new(&text);
    let module = index.cut(&text, "helper_rotate").expect("cut");
    let entries = ptx::parse_entries(&module).expect("reads");
    assert_eq!(
        entries.iter().map(|e| e.name.as_str()).collect::<Vec<_>>(),
        ["helper_rotate"]
    );
    assert!(module.starts_with(".version "), "{module}");
    assert!(module.contains(".func _Z12grid_barrierv"), "{module}");
}

/// `ptxas`, where it is found.
fn ptxas() -> Option<PathBuf> {
    let mut candidates = Vec::new();
    if let Some(path) = std::env::var_os("PATH") {
        candidates.extend(std::env::split_paths(&path).map(|d| d.join("ptxas")));
    }
    if let Some(cuda) = std::env::var_os("CUDA_PATH") {
        candidates.push(PathBuf::from(cuda).join("bin/ptxas"));
    }
    candidates.push(PathBuf::from("/usr/local/cuda/bin/ptxas"));
    candidates.into_iter().find(|c| c.is_file())
}

/// `Ok(())` when ptxas assembles `text` for sm_90, or its message.
fn assemble(ptxas: &Path, text: &str, dir: &Path, name: &str) -> Result<(), String> {
    let file = dir.join(format!("{name}.ptx"));
    std::fs::write(&file, text).expect("write the module");
    let out = Command::new(ptxas)
        .arg("-arch=sm_90")
        .arg(&file)
        .arg("-o")
        .arg(dir.join(format!("{name}.cubin")))
        .output()
        .expect("run ptxas");
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

#[test]
fn ptxas_assembles_every_cut_module() {
    let Some(ptxas) = ptxas() else {
        assert!(
            std::env::var_os("CHEVRON_REQUIRE_CUDA_TOOLS").is_none_or(|v| v != "1"),
            "CHEVRON_REQUIRE_CUDA_TOOLS=1 but no ptxas"
        );
        println!("skipped: no ptxas on PATH, in $CUDA_PATH/bin or /usr/local/cuda/bin");
        return;
    };
    let dir = std::env::temp_dir().join(format!("chevron-ptx-module-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let mut failures = Vec::new();
    let mut whole_ok = std::collections::HashMap::new();
    let mut assembled = 0;
    for (k, (path, entry, cut)) in cuts().into_iter().enumerate() {
        let Ok(module) = cut else { continue };
        // A file ptxas refuses whole (a newer `.target`) says nothing of its cuts.
        let whole = *whole_ok
            .entry(path.clone())
            .or_insert_with(|| assemble(&ptxas, &read(&path), &dir, "whole").is_ok());
        if !whole {
            continue;
        }
        match assemble(&ptxas, &module, &dir, &format!("m{k}")) {
            Ok(()) => assembled += 1,
            Err(e) => failures.push(format!("{path}: {entry}: {e}")),
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(assembled > 200, "only {assembled} modules assembled");
}
