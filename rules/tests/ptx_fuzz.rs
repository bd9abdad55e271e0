//! The PTX reader on hostile input: truncated, corrupted and mutated copies of every committed
//! `kernels/*.ptx`, absurd numbers, huge files. Every call must return (`Ok` or `Err`, never a
//! panic) in bounded time, asserted per class of input. Seeded, so a failure reproduces; a
//! failure names the input. The slowest times are printed under `--nocapture` only (cargo test
//! captures them otherwise).

use std::time::{Duration, Instant};

use chevron_cuda_rules::fit::{read_info, CooperativeUse, LaunchFacts};
use chevron_cuda_rules::ptx::{self, Callee, Entry, Expected, Fact};

/// xorshift64*: small, seeded, good enough to pick offsets and tokens.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn piece(&mut self) -> &'static str {
        PIECES[self.below(PIECES.len())]
    }
}

/// Pieces that stress the reader where they land: structure, numbers, comments, line endings.
const PIECES: &[&str] = &[
    "(",
    ")",
    "{",
    "}",
    ";",
    ",",
    "\"",
    "/*",
    "*/",
    "//",
    "\n",
    "\r",
    "\r\n",
    " ",
    ".entry",
    ".extern",
    ".visible",
    ".func",
    ".param",
    ".param .u32 p",
    ".param .b8 s[4294967295]",
    ".param .align 4294967295 .b8 s[16]",
    ".align 0",
    ".align 99999999999999999999",
    "[0]",
    "[",
    "]",
    ".b8",
    ".u64",
    ".pred",
    ".q32",
    "%r1",
    "42",
    "$L__BB0_2",
    "é",
    "\u{FEFF}",
    "\u{FFFD}",
    "\0",
    ".entry k()",
    ".entry dup() {}",
    ".extern .entry e(.param .u32 a)",
    "/* .entry hidden() {} */",
    "// .entry hidden() {}\n",
    ".file 1 \"a.cu\"",
    // Calls and what the launch rules look for, wherever they land.
    "call",
    "call.uni ",
    "call.uni f, ();",
    "call (r), %rd1, (p), proto;",
    "call.uni (retval0), _Z11sync_helperv, (param0);",
    "{ // callseq 0, 0\n call.uni \n _Z4waitv, \n (\n );\n }",
    ".func f() { griddepcontrol.wait; ret; }",
    ".func (.param .b32 r) g(.param .b32 x)",
    ".extern .func ext();",
    ".alias f, g;",
    ".alias f, f;",
    "griddepcontrol.wait;",
    "%envreg1",
    "atom.add.release.gpu.u32 %r1, [%rd1], 1;",
    ".blocksareclusters",
    ".explicitcluster",
    ".maxntid 0x100, 1, 1",
    "0x",
    "0b2",
];

/// All committed PTX files, with their names.
fn corpus() -> Vec<(String, String)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../kernels");
    let mut files: Vec<(String, String)> = std::fs::read_dir(dir)
        .expect("kernels/ is readable")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("PTX is UTF-8");
            (p.display().to_string(), text)
        })
        .collect();
    files.sort();
    assert!(files.len() >= 5, "kernels/*.ptx: {}", files.len());
    files
}

/// Runs the reader, and on success everything a caller does with its result; returns the time.
fn exercise(src: &str, what: &dyn Fn() -> String) -> Duration {
    let start = Instant::now();
    let result = std::panic::catch_unwind(|| {
        if let Ok(entries) = ptx::parse_entries(src) {
            for e in entries.iter().take(64) {
                let _ = ptx::resolve_entry(&entries, &e.name, "`f.ptx`");
                let info = read_info(e, &e.name, "f.ptx", false, CooperativeUse::ByPtx).leak();
                let facts = LaunchFacts {
                    grid: Some([3, 1, 1]),
                    block: Some([256, 1, 1]),
                    kernel_block: false,
                    cluster: Some(None),
                    cooperative: Some(false),
                    programmatic_serialization: Some(true),
                };
                let _ = info.check(&facts).map_err(|b| info.message(b));
                if let Some(call) = &e.uses.unseen {
                    let _ = call.describe();
                }
                for p in e.params.iter().take(64) {
                    for x in [
                        Expected::Int(32),
                        Expected::Float(64),
                        Expected::Bool,
                        Expected::Pointer,
                        Expected::Value(None),
                        Expected::Value(Some(u64::MAX)),
                    ] {
                        let _ = ptx::check_param(x, p);
                    }
                    let _ = (p.describe(), p.suggest(), p.size_bytes());
                }
            }
            let _ = ptx::resolve_entry(&entries, "missing", "`f.ptx`");
        }
    });
    let took = start.elapsed();
    if result.is_err() {
        panic!("the reader panicked on {}", what());
    }
    took
}

/// The largest char boundary at or below `i`.
fn floor(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The slowest input of one class of mutations.
#[derive(Default)]
struct Worst {
    calls: usize,
    took: Duration,
    what: String,
}

impl Worst {
    fn note(&mut self, took: Duration, what: impl FnOnce() -> String) {
        self.calls += 1;
        if took > self.took {
            self.took = took;
            self.what = what();
        }
    }
}

/// Every class must stay under this, per call, in a debug build (the slowest measured is far
/// below: see the summary `--nocapture` prints).
const BOUND: Duration = Duration::from_secs(2);

#[test]
fn truncations_flips_and_mutations_of_every_kernel() {
    let mut rng = Rng(0x5eed_c0de_1234_5678);
    let classes = [
        "truncation",
        "byte flip",
        "non-UTF-8",
        "mutation",
        "duplicate entry",
    ];
    let mut worst: Vec<Worst> = classes.iter().map(|_| Worst::default()).collect();
    for (name, text) in corpus() {
        // Truncations: 150 evenly spread offsets plus 50 random ones.
        let len = text.len();
        for k in 0..200 {
            let at = if k < 150 {
                len * k / 150
            } else {
                rng.below(len)
            };
            let cut = &text[..floor(&text, at)];
            let what = || format!("{name} cut at byte {at}");
            worst[0].note(exercise(cut, &what), what);
        }
        // Byte flips, read back lossily (a flip may break UTF-8, as a corrupt file would).
        for round in 0..150 {
            let mut bytes = text.clone().into_bytes();
            for _ in 0..1 + rng.below(4) {
                let at = rng.below(bytes.len());
                bytes[at] = rng.next() as u8;
            }
            let flipped = String::from_utf8_lossy(&bytes).into_owned();
            let what = || format!("{name} with flipped bytes (round {round}): {flipped:?}");
            worst[1].note(exercise(&flipped, &what), || format!("{name} flip {round}"));
        }
        // Bytes that are never UTF-8 (a lone continuation byte, an overlong encoding, a
        // surrogate, 0xFF, a truncated sequence) in random places, read the way a lossy reader
        // would: each replaced by U+FFFD.
        const INVALID: &[&[u8]] = &[
            b"\x80",
            b"\xC0\xAF",
            b"\xED\xA0\x80",
            b"\xFF",
            b"\xF0\x9F",
            b"\xFE\xFE\xFF",
        ];
        for round in 0..100 {
            let mut bytes = text.clone().into_bytes();
            for _ in 0..1 + rng.below(4) {
                let at = rng.below(bytes.len() + 1);
                let bad = INVALID[rng.below(INVALID.len())];
                bytes.splice(at..at, bad.iter().copied());
            }
            assert!(std::str::from_utf8(&bytes).is_err());
            let lossy = String::from_utf8_lossy(&bytes).into_owned();
            let what = || format!("{name} with invalid UTF-8 (round {round}): {lossy:?}");
            worst[2].note(exercise(&lossy, &what), || {
                format!("{name} non-UTF-8 {round}")
            });
        }
        // Pieces inserted, replacing or deleting spans.
        for round in 0..250 {
            let mut s = text.clone();
            for _ in 0..1 + rng.below(3) {
                let at = floor(&s, rng.below(s.len() + 1));
                match rng.below(3) {
                    0 => s.insert_str(at, rng.piece()),
                    1 => {
                        let end = floor(&s, at + rng.below(40));
                        s.replace_range(at..end.max(at), rng.piece());
                    }
                    _ => {
                        let end = floor(&s, at + rng.below(200));
                        s.replace_range(at..end.max(at), "");
                    }
                }
            }
            let what = || format!("{name} mutated (round {round}): {s:?}");
            worst[3].note(exercise(&s, &what), || format!("{name} mutation {round}"));
        }
        // Every entry of the file twice (the file appended to itself): an error naming it.
        let twice = format!("{text}\n{text}");
        let what = || format!("{name} twice");
        worst[4].note(exercise(&twice, &what), what);
        let err = ptx::parse_entries(&twice).expect_err("every entry is there twice");
        assert!(err.contains("duplicate `.entry "), "{name}: {err}");
    }
    for (class, w) in classes.iter().zip(&worst) {
        println!(
            "{class}: {} inputs, slowest {:?} ({})",
            w.calls, w.took, w.what
        );
        assert!(w.calls > 0, "{class}: no inputs");
        assert!(w.took < BOUND, "{class}: {:?} for {}", w.took, w.what);
    }
}

#[test]
fn absurd_numbers_parens_and_comments() {
    let cases: Vec<String> = vec![
        ".entry k(.param .b8 s[4294967295]) {}".into(),
        ".entry k(.param .b8 s[4294967296]) {}".into(),
        ".entry k(.param .align 4294967295 .b8 s[1]) {}".into(),
        ".entry k(.param .align 0 .u32 a) {}".into(),
        ".entry k(.param .align -1 .u32 a) {}".into(),
        ".entry k(.param .u32 a[0]) {}".into(),
        ".entry k(.param .u32 a[]) {}".into(),
        ".entry k(.param .pred p[7]) {}".into(),
        ".entry k((((((.param .u32 a) {}".into(),
        ".entry k(.param .u32 a))))) {}".into(),
        ".entry k(.param .u32 a) {{{{{{".into(),
        ".entry k(.param .u32 a) }}}}}}".into(),
        "{".repeat(100_000),
        "}".repeat(100_000),
        "(".repeat(100_000),
        format!(".entry k({}", "(".repeat(100_000)),
        ".entry/**/k/**/(/**/.param/**/.u32/**/a/**/)/**/{}".into(),
        ".entry k(.param // a\n .u32 /* b */ a //)\n) {}".into(),
        ".entry k(.param .u32 a /* ) */) {}".into(),
        "/*/ .entry k() {} */".into(),
        "\".entry k() {}\"".into(),
        ".entry \"k\"() {}".into(),
        ".entry k(,,,) {}".into(),
        ".entry k(.param) {}".into(),
        ".entry k(.param .u32) {}".into(),
        ".entry k(.param .u32 a b c) {}".into(),
        ".extern .extern .extern .entry k() {}".into(),
        ".entry".into(),
        ".entry k".into(),
        ".entry k(".into(),
        "\r\r\r.entry k(\r.param .q32 a)".into(),
        "é.entry é() {}".into(),
        ".entry k\u{FEFF}() {}".into(),
        format!(".entry k({}) {{}}", ".param .u32 a,".repeat(10_000)),
    ];
    let mut worst = Worst::default();
    for (i, src) in cases.iter().enumerate() {
        let took = exercise(src, &|| {
            format!("case {i}: {:?}", &src[..src.len().min(200)])
        });
        assert!(took < BOUND, "case {i}: {took:?}");
        worst.note(took, || format!("case {i}"));
    }
    println!(
        "absurd numbers, parens, comments: {} inputs, slowest {:?} ({})",
        worst.calls, worst.took, worst.what
    );
}

#[test]
fn ten_thousand_parameters_and_duplicate_entries() {
    let params: Vec<String> = (0..10_000)
        .map(|i| format!(".param .u32 k_param_{i}"))
        .collect();
    let src = format!(
        ".version 8.0\n.target sm_90\n.visible .entry k(\n{}\n) {{ ret; }}\n",
        params.join(",\n")
    );
    let start = Instant::now();
    let es = ptx::parse_entries(&src).expect("parses");
    assert_eq!(es[0].params.len(), 10_000);
    assert_eq!(es[0].params[9_999].line, 10_003);
    let dup = format!("{src}.visible .entry k() {{ ret; }}\n");
    let err = ptx::parse_entries(&dup).expect_err("duplicate");
    assert!(err.contains("duplicate `.entry k`"), "{err}");
    let took = start.elapsed();
    println!("10,000 parameters, read twice: {took:?}");
    assert!(took < Duration::from_secs(3), "{took:?}");
}

#[test]
fn a_fifty_megabyte_file_is_read_in_bounded_time() {
    // 1,900 kernels of ~27 KB of instructions each: over 50 MB.
    let body: String = (0..1_000)
        .map(|i| {
            format!(
                "\tadd.s32 \t%r{}, %r{}, %r{};\n",
                i % 50,
                (i + 1) % 50,
                i % 7
            )
        })
        .collect();
    let mut src = String::from(".version 8.0\n.target sm_90\n.address_size 64\n");
    for k in 0..1_900 {
        src.push_str(&format!(
            ".visible .entry k{k}(\n\t.param .u32 a,\n\t.param .u64 b\n)\n{{\n{body}\tret;\n}}\n"
        ));
    }
    assert!(src.len() > 50_000_000, "{} bytes", src.len());
    let start = Instant::now();
    let es = ptx::parse_entries(&src).expect("parses");
    let took = start.elapsed();
    assert_eq!(es.len(), 1_900);
    assert_eq!(es[1_899].name, "k1899");
    println!(
        "{} MB, {} entries: {took:?}",
        src.len() / 1_000_000,
        es.len()
    );
    assert!(took < Duration::from_secs(20), "{took:?}");
}

/// What one generated function or entry does: its own instructions and its calls.
struct Unit {
    /// WAIT, TRIGGER, WORKSPACE, ARRIVE.
    own: [bool; 4],
    calls: Vec<Call>,
}

#[derive(Clone, Copy)]
enum Call {
    /// A defined `.func`, by index.
    Func(usize),
    /// An alias of a defined `.func`.
    Alias(usize),
    /// An `.extern .func`.
    Extern,
    /// A function declared without a body.
    Prototype,
    /// A driver system call (`vprintf`).
    System,
    /// Through a register.
    Indirect,
}

const OWN: [&str; 4] = [
    "griddepcontrol.wait;",
    "griddepcontrol.launch_dependents;",
    "mov.u32 %r1, %envreg2;",
    "atom.add.release.gpu.u32 %r2, [%rd1], %r3;",
];

/// A call written in one of the ways nvcc writes them (release, `-G`'s callseq blocks, with a
/// return value, across lines).
fn call_text(rng: &mut Rng, target: &str) -> String {
    match rng.below(4) {
        0 => format!("call.uni {target}, ();"),
        1 => format!("{{ // callseq 3, 0\n\t.reg .b32 temp_param_reg;\n\tcall.uni \n\t{target}, \n\t(\n\t);\n\t}} // callseq 3"),
        2 => format!("call.uni (retval0), {target}, (param0);"),
        _ => format!("call {target};"),
    }
}

fn body(rng: &mut Rng, unit: &Unit) -> String {
    let mut lines: Vec<String> = Vec::new();
    for (k, on) in unit.own.iter().enumerate() {
        if *on {
            lines.push(OWN[k].to_string());
        }
    }
    for call in &unit.calls {
        lines.push(match *call {
            Call::Func(f) => call_text(rng, &format!("f{f}")),
            Call::Alias(f) => call_text(rng, &format!("alias{f}")),
            Call::Extern => call_text(rng, "ext"),
            Call::Prototype => call_text(rng, "proto"),
            Call::System => call_text(rng, "vprintf"),
            Call::Indirect => "call (retval0), %rd7, (param0), prototype_1;".into(),
        });
    }
    // Instructions in any order, as the compiler schedules them.
    for i in (1..lines.len()).rev() {
        lines.swap(i, rng.below(i + 1));
    }
    lines.push("ret;".into());
    format!("{{\n\t{}\n}}\n", lines.join("\n\t"))
}

/// The facts of an entry by plain reachability: (wait, trigger, grid sync, any unseen call).
fn reachable_facts(entry: &Unit, funcs: &[Unit]) -> ([Fact; 3], bool) {
    let mut own = entry.own;
    let mut unseen = false;
    let mut seen = vec![false; funcs.len()];
    let mut stack: Vec<&Unit> = vec![entry];
    while let Some(u) = stack.pop() {
        for (all, one) in own.iter_mut().zip(u.own) {
            *all |= one;
        }
        for call in &u.calls {
            match *call {
                Call::Func(f) | Call::Alias(f) => {
                    if !seen[f] {
                        seen[f] = true;
                        stack.push(&funcs[f]);
                    }
                }
                Call::Extern | Call::Prototype | Call::Indirect => unseen = true,
                Call::System => {}
            }
        }
    }
    let fact = |yes: bool| match (yes, unseen) {
        (true, _) => Fact::Yes,
        (false, true) => Fact::Unknown,
        (false, false) => Fact::No,
    };
    ([fact(own[0]), fact(own[1]), fact(own[2] && own[3])], unseen)
}

#[test]
fn generated_call_graphs_match_reachability() {
    let mut rng = Rng(0xca11_9a9f_0000_0017);
    let mut checked = 0;
    for round in 0..400 {
        let n_funcs = rng.below(10);
        let n_entries = 1 + rng.below(4);
        let make = |rng: &mut Rng| {
            let own = [0; 4].map(|_| rng.below(5) == 0);
            let calls = (0..rng.below(4))
                .map(|_| match rng.below(12) {
                    0 => Call::Extern,
                    1 => Call::Prototype,
                    2 => Call::System,
                    3 => Call::Indirect,
                    _ if n_funcs == 0 => Call::System,
                    4 => Call::Alias(rng.below(n_funcs)),
                    _ => Call::Func(rng.below(n_funcs)),
                })
                .collect();
            Unit { own, calls }
        };
        let funcs: Vec<Unit> = (0..n_funcs).map(|_| make(&mut rng)).collect();
        let entries: Vec<Unit> = (0..n_entries).map(|_| make(&mut rng)).collect();
        let mut src = String::from(".version 9.0\n.target sm_90\n.address_size 64\n");
        src.push_str(".extern .func ext();\n.func proto();\n");
        src.push_str(".extern .func (.param .b32 r) vprintf(.param .b64 f, .param .b64 a);\n");
        // Some functions forward-declared and defined after the entries, as nvcc does.
        let late: Vec<bool> = (0..n_funcs).map(|_| rng.below(3) == 0).collect();
        for (f, l) in late.iter().enumerate() {
            if *l {
                src.push_str(&format!(".func f{f}();\n"));
            }
        }
        let func_text = |rng: &mut Rng, f: usize| {
            format!(
                ".visible .func f{f}()\n{}.alias alias{f}, f{f};\n",
                body(rng, &funcs[f])
            )
        };
        for f in (0..n_funcs).filter(|f| !late[*f]) {
            src.push_str(&func_text(&mut rng, f));
        }
        for (k, e) in entries.iter().enumerate() {
            src.push_str(&format!(
                ".visible .entry k{k}(\n\t.param .u64 k{k}_param_0\n)\n{}",
                body(&mut rng, e)
            ));
        }
        for f in (0..n_funcs).filter(|f| late[*f]) {
            src.push_str(&func_text(&mut rng, f));
        }
        let read: Vec<Entry> =
            ptx::parse_entries(&src).unwrap_or_else(|e| panic!("round {round}: {e}\n{src}"));
        assert_eq!(read.len(), n_entries, "round {round}");
        for (k, e) in entries.iter().enumerate() {
            let (want, unseen) = reachable_facts(e, &funcs);
            let u = &read[k].uses;
            let got = [
                u.griddep_wait.fact(),
                u.griddep_launch_dependents.fact(),
                u.grid_sync.fact(),
            ];
            assert_eq!(got, want, "round {round}, entry k{k}:\n{src}");
            assert_eq!(
                u.unseen.is_some(),
                unseen,
                "round {round}, entry k{k}:\n{src}"
            );
            if let Some(call) = &u.unseen {
                // The reported call is one whose target is not in the module.
                let ok = match &call.callee {
                    Callee::Named { name, external } => {
                        (name == "ext" && *external) || (name == "proto" && !*external)
                    }
                    Callee::Indirect => true,
                };
                assert!(ok, "round {round}: {call:?}");
            }
            checked += 1;
        }
    }
    println!("{checked} generated entries: facts match reachability");
}

#[test]
fn long_call_chains_cycles_and_shared_helpers_in_bounded_time() {
    // 100,000 functions in one chain (the last waits), closed into a cycle, and 2,000 entries
    // each calling into its middle: every entry waits, nothing is unknown.
    let n = 100_000;
    let mut src = String::from(".version 9.0\n.target sm_90\n.address_size 64\n");
    for f in 0..n {
        let next = (f + 1) % n;
        let wait = if f == n - 1 {
            "griddepcontrol.wait;"
        } else {
            ""
        };
        src.push_str(&format!(
            ".func f{f}() {{ {wait} call.uni f{next}, (); ret; }}\n"
        ));
    }
    for k in 0..2_000 {
        src.push_str(&format!(
            ".visible .entry k{k}() {{ call.uni f{}, (); ret; }}\n",
            (k * 37) % n
        ));
    }
    // One more entry calls an extern at the end of a chain of its own.
    src.push_str(".extern .func ext();\n.func g0() { call ext; }\n.func g1() { call g0; }\n");
    src.push_str(".visible .entry lone() { call g1; ret; }\n");
    let start = Instant::now();
    let es = ptx::parse_entries(&src).expect("parses");
    let took = start.elapsed();
    assert_eq!(es.len(), 2_001);
    for e in &es[..2_000] {
        assert_eq!(e.uses.griddep_wait.fact(), Fact::Yes, "{}", e.name);
        assert_eq!(e.uses.grid_sync.fact(), Fact::No, "{}", e.name);
        assert_eq!(e.uses.unseen, None, "{}", e.name);
    }
    let lone = &es[2_000].uses;
    assert_eq!(lone.griddep_wait.fact(), Fact::Unknown);
    assert_eq!(
        lone.unseen
            .as_ref()
            .map(|c| (c.site.func.as_deref(), &c.callee)),
        Some((
            Some("g0"),
            &Callee::Named {
                name: "ext".into(),
                external: true
            }
        ))
    );
    println!(
        "{} MB, {n} chained functions, 2,001 entries: {took:?}",
        src.len() / 1_000_000
    );
    assert!(took < Duration::from_secs(10), "{took:?}");
}

/// A chain of 1,500 `__noinline__` helpers, as nvcc 13.0 emits one defined callers first
/// (declarations, then the entry, then each helper before the one it calls): the write
/// analysis summarises each helper once, callees first, instead of applying summaries again
/// until nothing changes (one level per pass over the file: 40 s of CPU in a debug build).
#[test]
fn a_chain_of_1500_noinline_helpers_is_analysed_in_well_under_a_second() {
    let n = 1_500;
    let name = |k: usize| format!("_Z{}h{k}Pfi", format!("h{k}").len());
    let header = |k: usize| {
        let f = name(k);
        format!(".func {f}(\n\t.param .b64 {f}_param_0,\n\t.param .b32 {f}_param_1\n)")
    };
    let mut src = String::from(".version 9.0\n.target sm_90\n.address_size 64\n\n");
    for k in 0..n {
        src.push_str(&format!("{}\n;\n", header(k)));
    }
    src.push_str(
        ".visible .entry chain(\n\t.param .u64 chain_param_0,\n\t.param .u64 chain_param_1\n)\n{\n\
         \t.reg .b32 \t%r<2>;\n\t.reg .f32 \t%f<2>;\n\t.reg .b64 \t%rd<5>;\n\n\
         \tld.param.u64 \t%rd1, [chain_param_0];\n\tld.param.u64 \t%rd2, [chain_param_1];\n\
         \tcvta.to.global.u64 \t%rd3, %rd2;\n\tld.global.f32 \t%f1, [%rd3];\n\
         \tcvt.rzi.s32.f32 \t%r1, %f1;\n\t{ // callseq 0, 0\n\t.param .b64 param0;\n\
         \tst.param.b64 \t[param0+0], %rd1;\n\t.param .b32 param1;\n\
         \tst.param.b32 \t[param1+0], %r1;\n\tcall.uni \n\t_Z2h0Pfi, \n\t(\n\tparam0, \n\t\
         param1\n\t);\n\t} // callseq 0\n\tret;\n\n}\n",
    );
    for k in 0..n {
        let f = name(k);
        let body = if k + 1 < n {
            format!(
                "\tadd.s32 \t%r2, %r1, 1;\n\t{{ // callseq {k}, 0\n\t.reg .b32 temp_param_reg;\n\
                 \t.param .b64 param0;\n\tst.param.b64 \t[param0+0], %rd1;\n\
                 \t.param .b32 param1;\n\tst.param.b32 \t[param1+0], %r2;\n\tcall.uni \n\t{}, \
                 \n\t(\n\tparam0, \n\tparam1\n\t);\n\t}} // callseq {k}\n",
                name(k + 1)
            )
        } else {
            "\tcvta.to.global.u64 \t%rd2, %rd1;\n\tmul.wide.s32 \t%rd3, %r1, 4;\n\
             \tadd.s64 \t%rd4, %rd2, %rd3;\n\tmov.f32 \t%f1, 0f3F800000;\n\
             \tst.global.f32 \t[%rd4], %f1;\n"
                .to_string()
        };
        src.push_str(&format!(
            "{}\n{{\n\t.reg .b32 \t%r<3>;\n\t.reg .f32 \t%f<2>;\n\t.reg .b64 \t%rd<5>;\n\n\n\
             \tld.param.u64 \t%rd1, [{f}_param_0];\n\tld.param.u32 \t%r1, [{f}_param_1];\n\
             {body}\tret;\n\n}}\n",
            header(k)
        ));
    }
    let start = Instant::now();
    let es = ptx::parse_entries(&src).expect("parses");
    let took = start.elapsed();
    let site = es[0].writes[0].site().cloned();
    assert_eq!(
        site.and_then(|s| s.func),
        Some(name(n - 1)),
        "{:?}",
        es[0].writes
    );
    assert_eq!(es[0].writes[1].fact(), Fact::No);
    println!(
        "{} lines, {n} chained helpers: {took:?}",
        src.lines().count()
    );
    assert!(took < Duration::from_secs(1), "{took:?}");
}
