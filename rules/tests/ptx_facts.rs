//! What the reader finds in real nvcc 13.0 output, release and `-G`, with helpers, relocatable
//! code and function pointers: the facts the launch rules rest on, over each entry's whole call
//! graph, three-valued. The `.cu` sources are next to the `.ptx` (kernels/ and
//! rules/tests/fixtures/); kernels/build.sh regenerates both.

use chevron_cuda_rules::fit::{read_info, CooperativeUse, KernelInfo, LaunchFacts, Rule};
use chevron_cuda_rules::ptx::{self, Callee, Entry, Fact, Seen};

fn read(path: &str) -> (String, Vec<Entry>) {
    let full = format!("{}/../{path}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{full}: {e}"));
    let entries = ptx::parse_entries(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    (text, entries)
}

fn entry<'a>(entries: &'a [Entry], name: &str) -> &'a Entry {
    entries
        .iter()
        .find(|e| e.name == name)
        .unwrap_or_else(|| panic!("no entry {name}"))
}

fn info(path: &str, name: &str) -> KernelInfo {
    let (_, entries) = read(path);
    read_info(
        entry(&entries, name),
        name,
        path,
        false,
        CooperativeUse::ByPtx,
    )
    .leak()
}

/// (grid sync, waits, triggers) of an entry.
fn facts(e: &Entry) -> (Fact, Fact, Fact) {
    (
        e.uses.grid_sync.fact(),
        e.uses.griddep_wait.fact(),
        e.uses.griddep_launch_dependents.fact(),
    )
}

/// The line of `path` a site points at, trimmed.
fn line_at(text: &str, line: usize) -> &str {
    text.lines().nth(line - 1).unwrap_or("").trim()
}

use Fact::{No, Unknown, Yes};

#[test]
fn a_grid_barrier_in_a_noinline_helper_is_found_release_and_debug() {
    for path in ["kernels/grid_helpers.ptx", "kernels/grid_helpers_debug.ptx"] {
        let (text, es) = read(path);
        let e = entry(&es, "helper_rotate");
        assert_eq!(facts(e), (Yes, No, No), "{path}");
        let Seen::Yes(site) = &e.uses.grid_sync else {
            unreachable!()
        };
        // The site is the barrier's arrival, in the helper.
        assert_eq!(site.func.as_deref(), Some("_Z12grid_barrierv"), "{path}");
        assert!(
            line_at(&text, site.line).starts_with("atom.add.release.gpu.u32"),
            "{path}:{}: {}",
            site.line,
            line_at(&text, site.line)
        );
        let i = info(path, "helper_rotate");
        assert_eq!(i.check_cooperative(false), Err(Rule::NotCooperative));
        assert_eq!(i.check_cooperative(true), Ok(()));
        let m = i.message(Rule::NotCooperative);
        assert!(
            m.contains(&format!(
                "({path}:{}, in `_Z12grid_barrierv`, which it calls: the grid barrier",
                site.line
            )),
            "{m}"
        );
    }
}

#[test]
fn this_grid_for_indexing_only_is_not_a_grid_sync_even_under_debug() {
    let (text, es) = read("kernels/grid_helpers_debug.ptx");
    let e = entry(&es, "grid_index");
    // `-G` reads the grid workspace for the group (the former criterion's false yes) ...
    let body = &text[text.find(".entry grid_index").expect("entry")..];
    assert!(body.contains("%envreg1") && body.contains("%envreg2"));
    // ... but no barrier arrives: a definite no, in release and debug.
    assert_eq!(facts(e), (No, No, No));
    assert_eq!(
        facts(entry(&read("kernels/grid_helpers.ptx").1, "grid_index")),
        (No, No, No)
    );
    let i = info("kernels/grid_helpers_debug.ptx", "grid_index");
    assert_eq!(i.check_cooperative(false), Ok(()));
    assert_eq!(i.check_cooperative(true), Err(Rule::NeedlessCooperative));
}

#[test]
fn every_form_of_grid_barrier_and_every_workspace_read_without_one() {
    for path in [
        "rules/tests/fixtures/grid_forms.ptx",
        "rules/tests/fixtures/grid_forms_debug.ptx",
    ] {
        let (_, es) = read(path);
        for name in ["sync_by_reference", "sync_free_function", "split_barrier"] {
            assert_eq!(facts(entry(&es, name)).0, Yes, "{path}: {name}");
        }
        for name in ["valid_only", "grid_shape_only"] {
            assert_eq!(facts(entry(&es, name)), (No, No, No), "{path}: {name}");
        }
        // The group is made in the kernel, synced in the helper it is passed to.
        let site = entry(&es, "sync_by_reference")
            .uses
            .grid_sync
            .site()
            .cloned();
        assert!(
            site.as_ref()
                .and_then(|s| s.func.as_deref())
                .is_some_and(|f| f.contains("sync_group")),
            "{path}: {site:?}"
        );
    }
}

#[test]
fn pdl_intrinsics_are_found_directly_in_helpers_and_under_debug() {
    for path in ["kernels/pdl_helpers.ptx", "kernels/pdl_helpers_debug.ptx"] {
        let (text, es) = read(path);
        for name in ["pdl_wait_direct", "pdl_wait_helper"] {
            let e = entry(&es, name);
            assert_eq!(facts(e), (No, Yes, No), "{path}: {name}");
            let site = e.uses.griddep_wait.site().expect("site");
            assert_eq!(
                line_at(&text, site.line),
                "griddepcontrol.wait;",
                "{path}: {name}"
            );
            let i = info(path, name);
            assert_eq!(i.check_serialization(true), Ok(()), "{path}: {name}");
        }
        for name in ["pdl_trigger_direct", "pdl_trigger_helper"] {
            let e = entry(&es, name);
            assert_eq!(facts(e), (No, No, Yes), "{path}: {name}");
            let i = info(path, name);
            assert_eq!(
                i.check_serialization(true),
                Err(Rule::PdlWait),
                "{path}: {name}"
            );
        }
    }
    // Under -G even the direct call is a `call` into a `.func` nvcc made of the intrinsic.
    let (_, es) = read("kernels/pdl_helpers_debug.ptx");
    let site = entry(&es, "pdl_wait_direct")
        .uses
        .griddep_wait
        .site()
        .cloned();
    assert!(
        site.as_ref()
            .and_then(|s| s.func.as_deref())
            .is_some_and(|f| f.contains("cudaGridDependencySynchronize")),
        "{site:?}"
    );
}

#[test]
fn code_outside_the_module_makes_absence_unknown() {
    for path in [
        "rules/tests/fixtures/calls.ptx",
        "rules/tests/fixtures/calls_debug.ptx",
    ] {
        let (_, es) = read(path);
        let e = entry(&es, "calls_extern");
        assert_eq!(facts(e), (Unknown, Unknown, Unknown), "{path}");
        let call = e.uses.unseen.as_ref().expect("unseen call");
        assert_eq!(
            call.callee,
            Callee::Named {
                name: "_Z8ext_stepPjj".into(),
                external: true
            },
            "{path}"
        );
        let e = entry(&es, "calls_indirect");
        assert_eq!(facts(e), (Unknown, Unknown, Unknown), "{path}");
        assert_eq!(
            e.uses.unseen.as_ref().map(|c| &c.callee),
            Some(&Callee::Indirect),
            "{path}"
        );
        // What the kernel does itself is still a definite yes.
        assert_eq!(facts(entry(&es, "syncs_and_calls_extern")).0, Yes, "{path}");
        assert_eq!(facts(entry(&es, "waits_and_calls_extern")).1, Yes, "{path}");
        // The driver's system calls hide nothing.
        let e = entry(&es, "prints_and_asserts");
        assert_eq!((facts(e), &e.uses.unseen), ((No, No, No), &None), "{path}");

        // No rule resting on absence fires on an unknown; the reason is in `unseen`.
        for name in ["calls_extern", "calls_indirect"] {
            let i = info(path, name);
            assert_eq!(i.check_serialization(true), Ok(()), "{path}: {name}");
            assert_eq!(i.check_cooperative(true), Ok(()), "{path}: {name}");
            assert_eq!(i.check_cooperative(false), Ok(()), "{path}: {name}");
            assert!(
                i.messages.unseen.contains(
                    "chevron cannot see whether it syncs the whole grid or whether it executes \
                     `griddepcontrol.wait`, so it does not check `cooperative` or \
                     `programmatic_serialization` against it"
                ),
                "{}",
                i.messages.unseen
            );
        }
        let i = info(path, "calls_extern");
        assert!(
            i.messages.unseen.starts_with(
                "kernel `calls_extern` calls `_Z8ext_stepPjj`, an `.extern .func` defined in \
                 another module ("
            ),
            "{}",
            i.messages.unseen
        );
        // Where every fact a rule rests on is known, nothing is said.
        let i = info(path, "prints_and_asserts");
        assert_eq!(i.messages.unseen, "");
        assert_eq!(i.check_serialization(true), Err(Rule::PdlWait));
    }
}

#[test]
fn cuda_13_cluster_directives() {
    let i = info("kernels/block_size.ptx", "block_size_rank");
    assert!(i.blocks_are_clusters);
    assert_eq!((i.reqntid, i.cluster), (Some([64, 1, 1]), Some([2, 1, 1])));
    // The grid counts clusters: 3 clusters of 2 is a valid launch.
    assert_eq!(i.check_grid([3, 1, 1]), Ok(()));
    assert_eq!(i.check_cluster(None), Ok(()));
    let i = info("kernels/block_size.ptx", "explicit_rank");
    assert!(i.explicit_cluster && i.cluster.is_none());
    assert_eq!(i.check_cluster(None), Err(Rule::Unclustered));
    assert_eq!(i.check_cluster(Some([2, 1, 1])), Ok(()));
    assert!(i.message(Rule::Unclustered).starts_with(
        "kernel `explicit_rank` is compiled with `.explicitcluster` (kernels/block_size.ptx:"
    ));
}

/// nvcc 13.0's `__block_size__` kernels (kernels/kernel_block.cu): the two-tuple form and the
/// one-tuple form both give `.blocksareclusters` and `.reqntid`, so both launch in their own
/// block shape (`_`); a kernel without `.reqntid` does not.
#[test]
fn block_size_kernels_launch_in_their_own_shape() {
    let own = LaunchFacts {
        grid: Some([3, 1, 1]),
        kernel_block: true,
        cluster: Some(None),
        ..LaunchFacts::UNKNOWN
    };
    let i = info("kernels/kernel_block.ptx", "own_shape_clusters");
    assert!(i.blocks_are_clusters);
    assert_eq!((i.reqntid, i.cluster), (Some([32, 4, 1]), Some([2, 1, 1])));
    assert_eq!(i.check(&own), Ok(()));
    let i = info("kernels/kernel_block.ptx", "own_shape");
    assert!(i.blocks_are_clusters);
    assert_eq!((i.reqntid, i.cluster), (Some([32, 4, 1]), Some([1, 1, 1])));
    assert_eq!(i.check(&own), Ok(()));
    let i = info("kernels/block_size.ptx", "explicit_rank");
    assert_eq!(i.check_kernel_block(), Err(Rule::NoKernelBlock));
    assert!(i.message(Rule::NoKernelBlock).starts_with(
        "kernel `explicit_rank` has no compiled-in block dimensions (no `.reqntid` in \
         kernels/block_size.ptx, entry at line"
    ));
}

#[test]
fn every_committed_kernel_with_calls_has_its_callees() {
    // The committed kernels are whole programs except the relocatable ones: every call resolves
    // (or is a system call), so no fact is unknown.
    let dir = format!("{}/../kernels", env!("CARGO_MANIFEST_DIR"));
    let mut seen = 0;
    for file in std::fs::read_dir(&dir).expect("kernels/") {
        let path = file.expect("entry").path();
        if path.extension().is_none_or(|e| e != "ptx") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("UTF-8");
        let rdc = !ptx::device_runtime_calls(&text).is_empty();
        for e in ptx::parse_entries(&text).expect("parses") {
            seen += 1;
            if !rdc {
                assert_eq!(e.uses.unseen, None, "{}: {}", path.display(), e.name);
            }
        }
    }
    assert!(seen > 30, "{seen} entries");
}
