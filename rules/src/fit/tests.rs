//! The rules over PTX read by the reader, their messages, and the table itself.

use super::*;
use crate::ptx::parse_entries;

fn info(src: &str, k: usize) -> KernelInfo {
    let es = parse_entries(src).expect("PTX parses");
    read_info(&es[k], &es[k].name, "k.ptx", false, CooperativeUse::ByPtx).leak()
}

#[test]
fn block_against_reqntid_and_maxntid() {
    let i = info(".entry k() .reqntid 128, 2 { ret; }", 0);
    assert_eq!(i.reqntid, Some([128, 2, 1]));
    assert_eq!(i.check_block([128, 2, 1]), Ok(()));
    assert_eq!(i.check_block([256, 1, 1]), Err(Rule::Block));
    assert!(i
        .message(Rule::Block)
        .starts_with("kernel `k` is compiled with `.reqntid 128, 2, 1` (k.ptx:1)"));
    let i = info(".entry k()\n.maxntid 256, 1, 1\n{ ret; }", 0);
    assert_eq!(i.check_block([16, 16, 1]), Ok(()));
    assert_eq!(i.check_block([16, 16, 2]), Err(Rule::Block));
    assert!(i
        .message(Rule::Block)
        .contains("(k.ptx:2, from `__launch_bounds__`)"));
}

#[test]
fn cluster_and_grid() {
    let i = info(
        ".entry k() .explicitcluster .reqnctapercluster 2, 1, 1 { ret; }",
        0,
    );
    assert_eq!(i.check_cluster(None), Ok(()));
    assert_eq!(i.check_cluster(Some([2, 1, 1])), Ok(()));
    assert_eq!(i.check_cluster(Some([4, 1, 1])), Err(Rule::Cluster));
    assert_eq!(i.check_grid([6, 1, 1]), Ok(()));
    assert_eq!(i.check_grid([7, 1, 1]), Err(Rule::Grid));
    let i = info(".entry k() .maxclusterrank 4 { ret; }", 0);
    assert_eq!(i.check_cluster(Some([2, 2, 1])), Ok(()));
    assert_eq!(i.check_cluster(Some([8, 1, 1])), Err(Rule::ClusterRank));
    assert_eq!(i.check_grid([7, 1, 1]), Ok(()));
}

#[test]
fn programmatic_event_warning_only_where_the_call_graph_proves_no_trigger() {
    let src = ".entry t() { griddepcontrol.launch_dependents; ret; }\n\
               .entry n() { ret; }\n\
               .entry c() { call.uni f, (); ret; }\n\
               .func g() { griddepcontrol.launch_dependents; ret; }\n\
               .func h() { ret; }\n\
               .entry via_g() { call.uni g, (); ret; }\n\
               .entry via_h() { call.uni h, (); ret; }";
    let es = parse_entries(src).expect("PTX parses");
    let warn = |name: &str| {
        let e = es.iter().find(|e| e.name == name).expect(name);
        read_info(e, &e.name, "k.ptx", false, CooperativeUse::ByPtx).no_trigger
    };
    assert_eq!(warn("t"), None);
    let n = warn("n").expect("no trigger in `n`");
    assert!(
        n.starts_with(
            "kernel `n` never executes `griddepcontrol.launch_dependents`, nor does any \
             function it calls (k.ptx, entry at line 2)"
        ),
        "{n}"
    );
    // A call the file does not hold may trigger: unknown, so no warning.
    assert_eq!(warn("c"), None);
    // A `.func` it calls triggers: no warning; one that does not: the warning.
    assert_eq!(warn("via_g"), None);
    assert!(warn("via_h").is_some());
}

#[test]
fn pdl_and_cooperative() {
    let src = ".entry w() { griddepcontrol.wait; ret; }\n\
               .entry n() { ret; }\n\
               .entry g() { mov.u32 %r1, %envreg1;\n\
                 atom.add.release.gpu.u32 %r2, [%rd1], 1; ret; }";
    let (w, n, g) = (info(src, 0), info(src, 1), info(src, 2));
    assert_eq!(w.check_serialization(true), Ok(()));
    assert_eq!(n.check_serialization(true), Err(Rule::PdlWait));
    assert_eq!(n.check_serialization(false), Ok(()));
    assert_eq!(g.check_cooperative(false), Err(Rule::NotCooperative));
    assert_eq!(g.check_cooperative(true), Ok(()));
    assert_eq!(n.check_cooperative(true), Err(Rule::NeedlessCooperative));
    assert!(g.message(Rule::NotCooperative).contains("k.ptx:4"));
    let opt_out = KernelInfo {
        no_upstream_reads: true,
        cooperative: CooperativeUse::CoResident,
        ..n
    };
    assert_eq!(opt_out.check_serialization(true), Ok(()));
    assert_eq!(opt_out.check_cooperative(true), Ok(()));
    let optional = KernelInfo {
        cooperative: CooperativeUse::Optional,
        ..g
    };
    assert_eq!(optional.check_cooperative(false), Ok(()));
    // `co_resident` needs `cooperative`, syncing or not.
    let co_resident = KernelInfo {
        cooperative: CooperativeUse::CoResident,
        ..n
    };
    assert_eq!(
        co_resident.check_cooperative(false),
        Err(Rule::NotCooperative)
    );
    // Unknown PTX: nothing fails.
    assert_eq!(KernelInfo::UNKNOWN.check_serialization(true), Ok(()));
    assert_eq!(KernelInfo::UNKNOWN.check_cooperative(true), Ok(()));
}

#[test]
fn check_takes_the_first_broken_rule_in_written_order() {
    let i = info(".entry k() .maxntid 64 .reqnctapercluster 2 { ret; }", 0);
    let l = LaunchFacts {
        grid: Some([3, 1, 1]),
        block: Some([128, 1, 1]),
        kernel_block: false,
        cluster: Some(None),
        cooperative: Some(true),
        programmatic_serialization: Some(true),
    };
    assert_eq!(i.check(&l), Err(Rule::Block));
    let l = LaunchFacts { block: None, ..l };
    assert_eq!(i.check(&l), Err(Rule::Grid));
    assert_eq!(i.check(&LaunchFacts::default()), Ok(()));
    // Usable in a const.
    const I: KernelInfo = KernelInfo::UNKNOWN;
    const V: Result<(), Rule> = I.check_block([2048, 1, 1]);
    assert_eq!(V, Ok(()));
}

/// `_` (the kernel's own block shape) needs a kernel with compiled-in block dimensions: a
/// `__block_size__` kernel passes whatever its grid (which counts clusters), a kernel without
/// `.reqntid` (even with `.maxntid`) is refused, with a message naming the entry.
#[test]
fn kernel_block_needs_reqntid() {
    let own = LaunchFacts {
        grid: Some([3, 1, 1]),
        kernel_block: true,
        cluster: Some(None),
        ..LaunchFacts::UNKNOWN
    };
    let sized = info(
        ".entry k() .blocksareclusters .reqntid 64, 1, 1 .reqnctapercluster 2, 1, 1 { ret; }",
        0,
    );
    assert_eq!(sized.check(&own), Ok(()));
    assert_eq!(sized.check_kernel_block(), Ok(()));
    assert_eq!(sized.message(Rule::NoKernelBlock), "");
    let bounded = info(".entry k()\n.maxntid 64, 1, 1\n{ ret; }", 0);
    assert_eq!(bounded.check(&own), Err(Rule::NoKernelBlock));
    assert_eq!(bounded.check_kernel_block(), Err(Rule::NoKernelBlock));
    assert_eq!(
        bounded.message(Rule::NoKernelBlock),
        "kernel `k` has no compiled-in block dimensions (no `.reqntid` in k.ptx, entry at line \
         1): `_` launches a kernel in its own block shape, which only a kernel compiled with \
         `__block_size__` (or `.reqntid`) has; write the block"
    );
    assert_eq!(
        Rule::NoKernelBlock.subject().describe(&own).as_deref(),
        Some("the kernel's own block shape (`_`)")
    );
    // A given block is no own block; unknown PTX refuses nothing.
    assert_eq!(
        bounded.check(&LaunchFacts {
            kernel_block: false,
            ..own
        }),
        Ok(())
    );
    assert_eq!(KernelInfo::UNKNOWN.check(&own), Ok(()));
}

/// A kernel whose PTX fixes nothing about clusters passes the cluster and grid rules
/// whatever the launch; one fixing anything refuses some launch.
#[test]
fn fixes_clusters_says_whether_a_cluster_or_grid_rule_can_fail() {
    let extents = [0, 1, 2, 3, 7, 8, 16, 64, 1024, 65535, u32::MAX];
    let dims = || {
        extents
            .into_iter()
            .flat_map(move |x| extents.into_iter().map(move |y| [x, y, 1 + (x & 3)]))
    };
    let refuses_some = |i: &KernelInfo| {
        dims().any(|d| {
            i.check_cluster(Some(d)).is_err()
                || i.check_cluster(None).is_err()
                || i.check_grid(d).is_err()
        })
    };
    let src = ".entry plain() { griddepcontrol.wait; ret; }\n\
               .entry req() .reqntid 64 { ret; }\n\
               .entry max() .maxntid 256 { ret; }\n\
               .entry cl() .reqnctapercluster 2 { ret; }\n\
               .entry rank() .maxclusterrank 4 { ret; }\n\
               .entry expl() .explicitcluster { ret; }\n\
               .entry bac() .reqnctapercluster 2 .blocksareclusters { ret; }";
    for k in 0..7 {
        let i = info(src, k);
        assert_eq!(i.fixes_clusters(), k >= 3, "entry {k}");
        assert_eq!(refuses_some(&i), i.fixes_clusters(), "entry {k}");
    }
    assert!(!KernelInfo::UNKNOWN.fixes_clusters());
    assert!(!refuses_some(&KernelInfo::UNKNOWN));
}

fn info_as(src: &str, k: usize, cooperative: CooperativeUse) -> KernelInfo {
    let es = parse_entries(src).expect("PTX parses");
    read_info(&es[k], &es[k].name, "k.ptx", false, cooperative).leak()
}

#[test]
fn absence_rules_fire_only_on_a_definite_no() {
    // Each entry calls code the file does not hold: an `.extern .func`, a function declared
    // without a body, a function pointer.
    let src = ".extern .func ext();\n\
               .func proto();\n\
               .entry e() { call.uni ext, (); ret; }\n\
               .entry p() { call proto; ret; }\n\
               .entry i() { call (%r1), %rd1, (%r2), proto_1; ret; }";
    for k in 0..3 {
        let i = info(src, k);
        assert_eq!((i.waits, i.grid_sync), (Fact::Unknown, Fact::Unknown));
        assert_eq!(i.check_serialization(true), Ok(()), "entry {k}");
        assert_eq!(i.check_cooperative(true), Ok(()), "entry {k}");
        assert_eq!(i.check_cooperative(false), Ok(()), "entry {k}");
        assert!(
            i.messages.unseen.contains(
                "chevron cannot see whether it syncs the whole grid \
                 or whether it executes `griddepcontrol.wait`"
            ),
            "{}",
            i.messages.unseen
        );
    }
    assert!(info(src, 0).messages.unseen.starts_with(
        "kernel `e` calls `ext`, an `.extern .func` defined in another module \
             (k.ptx:3)"
    ));
    assert!(info(src, 2)
        .messages
        .unseen
        .starts_with("kernel `i` calls a function through a pointer (k.ptx:5)"));
    // What is seen still counts: a wait in the entry, an extern call besides.
    let i = info(
        ".extern .func ext();\n.entry k() { griddepcontrol.wait; call ext; ret; }",
        0,
    );
    assert_eq!((i.waits, i.grid_sync), (Fact::Yes, Fact::Unknown));
    assert_eq!(
        i.messages.unseen,
        "kernel `k` calls `ext`, an `.extern .func` defined in another module (k.ptx:2): \
         chevron cannot see whether it syncs the whole grid, so it does not check \
         `cooperative` against it"
    );
    // The system calls hide nothing.
    let i = info(
        ".extern .func (.param .b32 r) vprintf(.param .b64 f, .param .b64 a);\n\
         .entry k() { call.uni (r), vprintf, (f, a); ret; }",
        0,
    );
    assert_eq!((i.waits, i.grid_sync), (Fact::No, Fact::No));
    assert_eq!(i.messages.unseen, "");
    assert_eq!(i.check_serialization(true), Err(Rule::PdlWait));
}

#[test]
fn helpers_are_read_transitively() {
    let src = ".func (.param .b32 r) leaf() { griddepcontrol.wait; ret; }\n\
               .func mid() { call.uni (r), leaf, (); mov.u32 %r1, %envreg2; ret; }\n\
               .func arrive() { atom.add.release.gpu.u32 %r1, [%rd1], %r2; call arrive; }\n\
               .entry k() { call mid; call arrive; ret; }\n\
               .entry w() { call mid; ret; }";
    let k = info(src, 0);
    assert_eq!((k.waits, k.grid_sync), (Fact::Yes, Fact::Yes));
    assert_eq!(k.check_cooperative(false), Err(Rule::NotCooperative));
    assert!(
        k.message(Rule::NotCooperative)
            .contains("(k.ptx:3, in `arrive`, which it calls: the grid barrier"),
        "{}",
        k.message(Rule::NotCooperative)
    );
    // Before sm_70 the arrival is a plain `atom.add` after a fence.
    let legacy = ".version 6.0\n.target sm_60\n.entry k() { mov.u32 %r1, %envreg1;\n\
                  membar.gl; atom.global.add.u32 %r2, [%rd1], %r3; ret; }";
    assert_eq!(info(legacy, 0).grid_sync, Fact::Yes);
    let modern = legacy.replace("sm_60", "sm_90");
    assert_eq!(info(&modern, 0).grid_sync, Fact::No);
    // The workspace read without the barrier's arrival: no grid sync.
    let w = info(src, 1);
    assert_eq!((w.waits, w.grid_sync), (Fact::Yes, Fact::No));
    assert_eq!(w.check_cooperative(true), Err(Rule::NeedlessCooperative));
    assert_eq!(w.check_cooperative(false), Ok(()));
}

#[test]
fn explicit_clusters_and_blocks_are_clusters() {
    // `__cluster_dims__()`: clusters required, none compiled in.
    let i = info(".entry k() .explicitcluster { ret; }", 0);
    assert_eq!(i.check_cluster(None), Err(Rule::Unclustered));
    assert_eq!(i.check_cluster(Some([2, 1, 1])), Ok(()));
    assert!(i
        .message(Rule::Unclustered)
        .ends_with("give the launch a `cluster = …`"));
    // With a compiled-in cluster, no `cluster` is needed.
    let i = info(
        ".entry k() .explicitcluster .reqnctapercluster 2 { ret; }",
        0,
    );
    assert_eq!(i.check_cluster(None), Ok(()));
    // `__block_size__`: the grid counts clusters, so 3 clusters of 2 is a valid grid.
    let i = info(
        ".entry k() .blocksareclusters .reqntid 64, 1, 1 .reqnctapercluster 2, 1, 1 { ret; }",
        0,
    );
    assert!(i.blocks_are_clusters);
    assert_eq!(i.check_grid([3, 1, 1]), Ok(()));
    assert_eq!(i.check_cluster(None), Ok(()));
    assert_eq!(i.message(Rule::Grid), "");
}

#[test]
fn co_resident_is_launched_cooperatively() {
    let src = ".entry k() { ret; }";
    let i = info_as(src, 0, CooperativeUse::CoResident);
    assert_eq!(i.check_cooperative(false), Err(Rule::NotCooperative));
    assert_eq!(i.check_cooperative(true), Ok(()));
    assert!(i
        .message(Rule::NotCooperative)
        .starts_with("kernel `k` is declared `cooperative = \"co_resident\"`"));
    let i = info_as(src, 0, CooperativeUse::Optional);
    assert_eq!(i.check_cooperative(false), Ok(()));
    assert_eq!(i.message(Rule::NotCooperative), "");
}

/// For every rule, a kernel and a launch that break it: the check names the rule, its message
/// says something, the subject says what the launch held; together they cover the table.
#[test]
fn every_rule_in_the_table_has_a_message_and_a_case() {
    let full = LaunchFacts {
        grid: Some([4, 1, 1]),
        block: Some([64, 1, 1]),
        kernel_block: false,
        cluster: Some(None),
        cooperative: Some(false),
        programmatic_serialization: Some(false),
    };
    let cases: [(&str, LaunchFacts); 9] = [
        (".entry k() .reqntid 32 { griddepcontrol.wait; ret; }", full),
        (
            ".entry k() .maxntid 64 { griddepcontrol.wait; ret; }",
            LaunchFacts {
                block: None,
                kernel_block: true,
                ..full
            },
        ),
        (
            ".entry k() .reqnctapercluster 2 { griddepcontrol.wait; ret; }",
            LaunchFacts {
                cluster: Some(Some([4, 1, 1])),
                ..full
            },
        ),
        (
            ".entry k() .maxclusterrank 2 { griddepcontrol.wait; ret; }",
            LaunchFacts {
                cluster: Some(Some([4, 1, 1])),
                ..full
            },
        ),
        (
            ".entry k() .explicitcluster { griddepcontrol.wait; ret; }",
            full,
        ),
        (
            ".entry k() .reqnctapercluster 3 { griddepcontrol.wait; ret; }",
            full,
        ),
        (
            ".entry k() { ret; }",
            LaunchFacts {
                programmatic_serialization: Some(true),
                ..full
            },
        ),
        (
            ".entry k() { mov.u32 %r1, %envreg1;\n\
             atom.add.release.gpu.u32 %r2, [%rd1], 1; ret; }",
            full,
        ),
        (
            ".entry k() { ret; }",
            LaunchFacts {
                cooperative: Some(true),
                ..full
            },
        ),
    ];
    let mut seen = Vec::new();
    for (src, launch) in cases {
        let i = info(src, 0);
        let Err(rule) = i.check(&launch) else {
            panic!("no rule broken by {launch:?} on `{src}`");
        };
        assert!(
            !i.message(rule).is_empty(),
            "{} has no message",
            rule.name()
        );
        assert!(
            rule.subject().describe(&launch).is_some(),
            "{}: the launch knows its subject",
            rule.name()
        );
        let (subject, message) = i.refusal(&launch).expect("a refusal");
        assert_eq!((subject, message), (rule.subject(), i.message(rule)));
        assert!(rule.broken(&i, &launch));
        seen.push(rule);
    }
    assert_eq!(seen, Rule::ALL, "one case per rule, in the table's order");
    // The messages of a read entry are stored by rule, the unseen note last.
    let text = read_info(
        &crate::ptx::parse_entries(cases[0].0).expect("PTX parses")[0],
        "k",
        "k.ptx",
        false,
        CooperativeUse::ByPtx,
    );
    let leaked = text.clone().leak();
    for &rule in Rule::ALL {
        assert_eq!(leaked.message(rule), text.messages[rule as usize]);
    }
    assert_eq!(leaked.messages.unseen, text.messages[Rule::COUNT]);
    let names: std::collections::HashSet<_> = Rule::ALL.iter().map(|r| r.name()).collect();
    assert_eq!(names.len(), Rule::COUNT);
}

/// Kernel facts written out (what `#[kernel]` emits as a const) for the table of cases below.
const REQ: KernelInfo = KernelInfo {
    known: true,
    reqntid: Some([128, 1, 1]),
    max_cluster_rank: Some(4),
    waits: Fact::Yes,
    grid_sync: Fact::No,
    ..KernelInfo::UNKNOWN
};
const CLUSTERED: KernelInfo = KernelInfo {
    known: true,
    maxntid: Some([256, 1, 1]),
    cluster: Some([2, 1, 1]),
    waits: Fact::No,
    grid_sync: Fact::Yes,
    ..KernelInfo::UNKNOWN
};
const EXPLICIT: KernelInfo = KernelInfo {
    known: true,
    explicit_cluster: true,
    waits: Fact::Unknown,
    grid_sync: Fact::Unknown,
    cooperative: CooperativeUse::CoResident,
    ..KernelInfo::UNKNOWN
};

const fn facts(
    grid: Option<[u32; 3]>,
    block: Option<[u32; 3]>,
    cluster: Option<Option<[u32; 3]>>,
    cooperative: Option<bool>,
    programmatic_serialization: Option<bool>,
) -> LaunchFacts {
    LaunchFacts {
        grid,
        block,
        kernel_block: false,
        cluster,
        cooperative,
        programmatic_serialization,
    }
}

/// (kernel, launch, the first broken rule): literal launches as `launch!` sees them (`None`
/// where a value is an expression) and full ones as the runtime sees them.
const CASES: [(KernelInfo, LaunchFacts, Option<Rule>); 16] = [
    (
        REQ,
        LaunchFacts {
            kernel_block: true,
            ..facts(Some([4, 1, 1]), None, Some(None), Some(false), Some(false))
        },
        None,
    ),
    (
        CLUSTERED,
        LaunchFacts {
            kernel_block: true,
            ..facts(Some([7, 1, 1]), None, Some(None), Some(true), Some(false))
        },
        Some(Rule::NoKernelBlock),
    ),
    (
        REQ,
        facts(
            Some([4, 1, 1]),
            Some([128, 1, 1]),
            Some(None),
            Some(false),
            Some(false),
        ),
        None,
    ),
    (
        REQ,
        facts(
            Some([4, 1, 1]),
            Some([64, 2, 1]),
            Some(None),
            Some(false),
            Some(false),
        ),
        Some(Rule::Block),
    ),
    (
        REQ,
        facts(None, None, Some(Some([8, 1, 1])), None, None),
        Some(Rule::ClusterRank),
    ),
    (
        REQ,
        facts(None, None, Some(Some([4, 1, 1])), Some(true), None),
        Some(Rule::NeedlessCooperative),
    ),
    (
        REQ,
        facts(None, Some([64, 1, 1]), Some(Some([8, 1, 1])), None, None),
        Some(Rule::Block),
    ),
    (
        CLUSTERED,
        facts(
            Some([6, 1, 1]),
            Some([256, 1, 1]),
            Some(None),
            Some(true),
            Some(false),
        ),
        None,
    ),
    (
        CLUSTERED,
        facts(
            Some([6, 1, 1]),
            Some([256, 1, 1]),
            Some(None),
            Some(false),
            Some(false),
        ),
        Some(Rule::NotCooperative),
    ),
    (
        CLUSTERED,
        facts(Some([7, 1, 1]), Some([512, 1, 1]), None, None, None),
        Some(Rule::Block),
    ),
    (
        CLUSTERED,
        facts(Some([7, 1, 1]), None, Some(Some([4, 1, 1])), None, None),
        Some(Rule::Cluster),
    ),
    (
        CLUSTERED,
        facts(Some([7, 1, 1]), None, None, None, Some(true)),
        Some(Rule::Grid),
    ),
    (
        CLUSTERED,
        facts(None, None, None, Some(true), Some(true)),
        Some(Rule::PdlWait),
    ),
    (
        EXPLICIT,
        facts(None, None, Some(None), Some(true), Some(true)),
        Some(Rule::Unclustered),
    ),
    (
        EXPLICIT,
        facts(None, None, Some(Some([2, 1, 1])), Some(false), Some(true)),
        Some(Rule::NotCooperative),
    ),
    (
        KernelInfo::UNKNOWN,
        facts(
            Some([7, 1, 1]),
            Some([4096, 1, 1]),
            Some(None),
            Some(true),
            Some(true),
        ),
        None,
    ),
];

/// The checks of every case, evaluated by the compiler (as in `launch!`'s `const` block).
const AT_COMPILE_TIME: [Result<(), Rule>; CASES.len()] = {
    let mut out = [Ok(()); CASES.len()];
    let mut i = 0;
    while i < CASES.len() {
        out[i] = CASES[i].0.check(&CASES[i].1);
        i += 1;
    }
    out
};

/// The same check at compile time and at run time, the one expected; and the single-subject
/// checks the runtime's quick path uses agree with the full check on their subject.
#[test]
fn the_const_check_and_the_runtime_check_agree() {
    for (k, ((info, launch, expected), at_compile)) in CASES.iter().zip(AT_COMPILE_TIME).enumerate()
    {
        let at_run = std::hint::black_box(info).check(std::hint::black_box(launch));
        assert_eq!(at_run, at_compile, "case {k}");
        assert_eq!(at_run, expected.map_or(Ok(()), Err), "case {k}");
        // The first row of the table that is broken.
        let first_row = Rule::ALL.iter().copied().find(|r| r.broken(info, launch));
        assert_eq!(at_run, first_row.map_or(Ok(()), Err), "case {k}");
        // Each subject alone: the rules on it, in the table's order.
        let alone = [
            launch.block.map(|b| info.check_block(b)),
            launch.kernel_block.then(|| info.check_kernel_block()),
            launch.cluster.map(|c| info.check_cluster(c)),
            launch.grid.map(|g| info.check_grid(g)),
            launch
                .programmatic_serialization
                .map(|on| info.check_serialization(on)),
            launch.cooperative.map(|on| info.check_cooperative(on)),
        ];
        let first = alone.into_iter().flatten().find(|r| r.is_err());
        assert_eq!(first.unwrap_or(Ok(())), at_run, "case {k}");
    }
}

#[test]
fn literal_facts_round_trip_and_refused_rule_agrees_with_refusal() {
    let dims = [None, Some([6, 1, 1]), Some([512, 2, 1])];
    let flags = [None, Some(false), Some(true)];
    let clusters = [None, Some(None), Some(Some([2, 1, 1]))];
    let mut all = Vec::new();
    for grid in dims {
        for block in dims {
            for cluster in clusters {
                for cooperative in flags {
                    for programmatic_serialization in flags {
                        for kernel_block in [false, true] {
                            all.push(LaunchFacts {
                                grid,
                                block,
                                kernel_block,
                                cluster,
                                cooperative,
                                programmatic_serialization,
                            });
                        }
                    }
                }
            }
        }
    }
    for facts in &all {
        let (g, b, c, known) = facts.literal_args().expect("no zero extent");
        assert_eq!(LaunchFacts::literal(g, b, c, known), *facts);
    }
    // A zero extent cannot be written in integers (0 is "not known").
    let zero = LaunchFacts {
        block: Some([0, 1, 1]),
        ..LaunchFacts::UNKNOWN
    };
    assert_eq!(zero.literal_args(), None);
    // The refused rule is the one `refusal` names, with its message.
    let kernels = [
        info(".entry k() .reqntid 128, 1, 1 { ret; }", 0),
        info(".entry k() .reqnctapercluster 4, 1, 1 { ret; }", 0),
        info(".entry k() .explicitcluster { ret; }", 0),
        info(".entry k() { ret; }", 0),
    ];
    let mut refused = 0;
    for i in &kernels {
        for facts in &all {
            let rule = i.refused_rule(facts);
            match i.refusal(facts) {
                None => assert_eq!(rule, usize::MAX),
                Some((subject, m)) => {
                    assert_eq!(m, i.message(Rule::ALL[rule]));
                    assert_eq!(subject, Rule::ALL[rule].subject());
                    refused += 1;
                }
            }
        }
    }
    assert!(refused > 30, "{refused}");
}

/// `may_refuse_literal`'s and `may_break`'s `false` is never wrong: for kernels with and
/// without each directive and fact, and every literal launch, a launch it clears is refused by no rule.
#[test]
fn may_refuse_literal_clears_only_launches_no_rule_refuses() {
    let sources = [
        ".entry k() { ret; }",
        ".entry k() .reqntid 128, 1, 1 { ret; }",
        ".entry k() .maxntid 64, 1, 1 { ret; }",
        ".entry k() .reqnctapercluster 4, 1, 1 { ret; }",
        ".entry k() .maxclusterrank 2 { ret; }",
        ".entry k() .explicitcluster { ret; }",
    ];
    let mut kernels: Vec<KernelInfo> = sources.iter().map(|s| info(s, 0)).collect();
    for grid_sync in [Fact::Yes, Fact::No, Fact::Unknown] {
        for waits in [Fact::Yes, Fact::No, Fact::Unknown] {
            for cooperative in [
                CooperativeUse::ByPtx,
                CooperativeUse::Optional,
                CooperativeUse::CoResident,
            ] {
                kernels.push(KernelInfo {
                    grid_sync,
                    waits,
                    cooperative,
                    ..info(sources[0], 0)
                });
            }
        }
    }
    kernels.push(KernelInfo::UNKNOWN);
    let dims = [
        [0, 0, 0],
        [1, 1, 1],
        [128, 1, 1],
        [256, 1, 1],
        [4, 2, 1],
        [3, 1, 1],
    ];
    let (mut cleared, mut refused) = (0, 0);
    let mut broken = [false; Rule::COUNT];
    for k in &kernels {
        for grid in dims {
            for block in dims {
                for cluster in dims {
                    for known in 0u8..64 {
                        let facts = LaunchFacts::literal(grid, block, cluster, known);
                        if let Err(rule) = k.check(&facts) {
                            // `#[kernel]` emits the words of every rule a launch may break.
                            assert!(k.may_break(rule), "{rule:?} {k:?} {facts:?}");
                            broken[rule as usize] = true;
                        }
                        if k.refusal(&facts).is_some() {
                            refused += 1;
                            assert!(k.may_refuse_literal(known), "{k:?} {facts:?}");
                        } else if !k.may_refuse_literal(known) {
                            cleared += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(cleared > 1000 && refused > 1000, "{cleared} {refused}");
    assert!(
        broken.iter().all(|b| *b),
        "a rule no case breaks: {broken:?}"
    );
    // And `may_break` is `false` where nothing can break the rule: a plain kernel that never
    // syncs the grid and waits may only refuse `cooperative`, and `_` (it has no `.reqntid`).
    let plain = KernelInfo {
        waits: Fact::Yes,
        ..info(sources[0], 0)
    };
    let may: Vec<Rule> = Rule::ALL
        .iter()
        .copied()
        .filter(|r| plain.may_break(*r))
        .collect();
    assert_eq!(may, [Rule::NoKernelBlock, Rule::NeedlessCooperative]);
}

/// `ptx = [...]` at compile time: what every variant accepts, each message from the variant
/// that decides it.
#[test]
fn variants_combine_into_what_all_of_them_accept() {
    let text = |src: &str, file: &str| {
        let entries = parse_entries(src).expect("parses");
        read_info(&entries[0], "k", file, false, CooperativeUse::ByPtx)
    };
    let plain = text(".entry k() { ret; }", "a.ptx");
    let syncs_bounded = text(
        ".entry k() .maxntid 256, 1, 1 { mov.u32 %r1, %envreg1; \
         atom.add.release.gpu.u32 %r2, [%rd1], 1; griddepcontrol.wait; ret; }",
        "b.ptx",
    );
    assert_eq!(plain.info.grid_sync, Fact::No);
    assert_eq!(syncs_bounded.info.grid_sync, Fact::Yes);
    let both = combine(&[("a.ptx", &plain), ("b.ptx", &syncs_bounded)]).expect("combines");
    let i = both.info;
    // The union of what they need: `cooperative` (b), no `programmatic_serialization` (a
    // never waits); the intersection of bounds: b's.
    assert_eq!(i.grid_sync, Fact::Yes);
    assert_eq!(i.waits, Fact::No);
    assert_eq!(i.maxntid, Some([256, 1, 1]));
    let messages = |t: &InfoText| Messages::from_texts(t.messages.clone().map(|m| &*m.leak()));
    let k = KernelInfo {
        messages: messages(&both),
        ..i
    };
    let launch = |block: u32, cooperative: bool| LaunchFacts {
        block: Some([block, 1, 1]),
        cooperative: Some(cooperative),
        ..LaunchFacts::UNKNOWN
    };
    assert_eq!(k.check(&launch(256, false)), Err(Rule::NotCooperative));
    assert!(k.message(Rule::NotCooperative).contains("b.ptx"));
    assert_eq!(k.check(&launch(256, true)), Ok(()));
    assert_eq!(k.check(&launch(512, true)), Err(Rule::Block));
    assert!(k.message(Rule::Block).contains("b.ptx"));
    // The order of the files does not change the verdicts.
    let reversed = combine(&[("b.ptx", &syncs_bounded), ("a.ptx", &plain)]).expect("combines");
    assert_eq!(reversed.info, both.info);
    // At run time, the variant that never syncs is not refused `cooperative`.
    let own = plain.clone().within(&both);
    assert_eq!(own.info.grid_sync, Fact::Unknown);
    assert_eq!(own.info.maxntid, None);
    assert_eq!(syncs_bounded.clone().within(&both), syncs_bounded);
    // None syncs: `cooperative` is needless for all.
    let none = combine(&[("a.ptx", &plain), ("c.ptx", &plain)]).expect("combines");
    assert_eq!(none.info.grid_sync, Fact::No);
    // Exact blocks that differ: nothing fits both.
    let req = |n: u32, file: &str| text(&format!(".entry k() .reqntid {n}, 1, 1 {{ ret; }}"), file);
    let err = combine(&[("a.ptx", &req(128, "a.ptx")), ("b.ptx", &req(256, "b.ptx"))])
        .expect_err("no common block");
    assert!(err.contains("`a.ptx`") && err.contains("`b.ptx`"), "{err}");
    // An exact block within another's bound is the one block; over it, none.
    let ok = combine(&[("a.ptx", &req(128, "a.ptx")), ("b.ptx", &syncs_bounded)]).expect("fits");
    assert_eq!(ok.info.reqntid, Some([128, 1, 1]));
    assert!(combine(&[("a.ptx", &req(512, "a.ptx")), ("b.ptx", &syncs_bounded)]).is_err());
    // Compiled-in clusters that differ: an error.
    let cl = |n: u32| {
        text(
            &format!(".entry k() .reqnctapercluster {n}, 1, 1 {{ ret; }}"),
            "c.ptx",
        )
    };
    assert!(combine(&[("a.ptx", &cl(2)), ("b.ptx", &cl(4))]).is_err());
    assert_eq!(
        combine(&[("a.ptx", &cl(2)), ("b.ptx", &plain)])
            .expect("one cluster")
            .info
            .cluster,
        Some([2, 1, 1])
    );
}

/// A text stored through `from_texts` at a rule's index is the one `get` gives for that rule,
/// and the last one is `unseen`.
#[test]
fn message_fields_are_the_rules() {
    for (k, rule) in Rule::ALL.iter().enumerate() {
        let mut texts = [""; MESSAGES];
        texts[k] = rule.name();
        assert_eq!(
            Messages::from_texts(texts).get(*rule),
            rule.name(),
            "{rule:?}"
        );
    }
    let mut texts = [""; MESSAGES];
    texts[Rule::COUNT] = "unseen";
    assert_eq!(Messages::from_texts(texts).unseen, "unseen");
}

/// The rules `#[kernel]` states in types for a launch whose only literal is its block
/// (`literal_block_rules`) refuse exactly the launches `refused_rule` refuses, with its rule
/// (or, for a `.reqntid` kernel, a constant rule the launch breaks too).
#[test]
fn literal_block_rules_refuse_what_the_const_check_refuses() {
    let sources = [
        ".entry k() { ret; }",
        ".entry k() .reqntid 128, 1, 1 { ret; }",
        ".entry k() .reqntid 16, 8, 1 { ret; }",
        ".entry k() .maxntid 64, 1, 1 { ret; }",
        ".entry k() .maxntid 100, 1, 1 { ret; }",
        ".entry k() .maxntid 16, 16, 1 { ret; }",
        ".entry k() .maxntid 1024, 1, 1 { ret; }",
        ".entry k() .maxntid 2048, 1, 1 { ret; }",
        ".entry k() .reqntid 128, 1, 1 .maxntid 256, 1, 1 { ret; }",
        ".entry k() .reqntid 512, 1, 1 .maxntid 256, 1, 1 { ret; }",
        ".entry k() .explicitcluster { ret; }",
        ".entry k() .maxntid 64, 1, 1 .explicitcluster { ret; }",
        ".entry k() .reqntid 128, 1, 1 .explicitcluster { ret; }",
        ".entry k() .reqnctapercluster 4, 1, 1 { ret; }",
        ".entry k() .maxclusterrank 2 { ret; }",
    ];
    let mut kernels: Vec<KernelInfo> = sources.iter().map(|s| info(s, 0)).collect();
    for grid_sync in [Fact::Yes, Fact::No, Fact::Unknown] {
        for cooperative in [
            CooperativeUse::ByPtx,
            CooperativeUse::Optional,
            CooperativeUse::CoResident,
        ] {
            for base in [sources[0], sources[1], sources[3]] {
                kernels.push(KernelInfo {
                    grid_sync,
                    cooperative,
                    ..info(base, 0)
                });
            }
        }
    }
    kernels.push(KernelInfo::UNKNOWN);
    let mut blocks = vec![[16, 8, 1], [8, 16, 1], [16, 16, 1], [32, 32, 1], [4, 2, 1]];
    blocks.extend(
        [
            1, 31, 32, 33, 63, 64, 65, 99, 100, 101, 127, 128, 129, 255, 256, 257,
        ]
        .map(|x| [x, 1, 1]),
    );
    blocks.extend([511, 512, 513, 1000, 1023, 1024].map(|x| [x, 1, 1]));
    let (mut accepted, mut refused) = (0, 0);
    for k in &kernels {
        let rules = k.literal_block_rules(|r| !k.message(r).is_empty());
        for &block in &blocks {
            let facts =
                LaunchFacts::literal([0; 3], block, [0; 3], KernelInfo::LITERAL_BLOCK_KNOWN);
            let expected = k.refused_rule(&facts);
            let refusal = rules.refusal(block);
            if expected == usize::MAX {
                accepted += 1;
                assert_eq!(refusal, None, "{k:?} {block:?}");
            } else {
                refused += 1;
                let rule = refusal.unwrap_or_else(|| panic!("accepted: {k:?} {block:?}"));
                // The same rule, or for a `.reqntid` kernel that breaks a constant rule, that
                // one, which the launch breaks too.
                if rule as usize != expected {
                    assert!(
                        matches!(rules.block, BlockBound::Exact(_)),
                        "{k:?} {block:?}"
                    );
                    assert_eq!(Some(rule), rules.constant, "{k:?} {block:?}");
                }
            }
        }
    }
    assert!(accepted > 200 && refused > 100, "{accepted} {refused}");
}

/// `from_facts(fact_bits(), texts)` is the info again, for every flag, fact and cooperative
/// use; the directives are not among them.
#[test]
fn fact_bits_round_trip_through_from_facts() {
    let facts = [Fact::Yes, Fact::No, Fact::Unknown];
    let mut triples = Vec::new();
    for w in facts {
        for t in facts {
            for g in facts {
                triples.push((w, t, g));
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    for known in [false, true] {
        for flags in 0..8u8 {
            for cooperative in [
                CooperativeUse::ByPtx,
                CooperativeUse::Optional,
                CooperativeUse::CoResident,
            ] {
                for &(waits, triggers, grid_sync) in &triples {
                    let texts: [&'static str; MESSAGES] =
                        std::array::from_fn(|i| if i % 3 == 0 { "m" } else { "" });
                    let info = KernelInfo {
                        known,
                        no_upstream_reads: flags & 1 != 0,
                        explicit_cluster: flags & 2 != 0,
                        blocks_are_clusters: flags & 4 != 0,
                        cooperative,
                        waits,
                        triggers,
                        grid_sync,
                        messages: Messages::from_texts(texts),
                        ..KernelInfo::UNKNOWN
                    };
                    let bits = info.fact_bits();
                    assert!(seen.insert(bits), "{bits:#x} twice");
                    assert_eq!(KernelInfo::from_facts(bits, texts), info);
                }
            }
        }
    }
    assert_eq!(seen.len(), 2 * 8 * 3 * 27);
}
