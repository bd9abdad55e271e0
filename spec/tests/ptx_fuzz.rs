//! The PTX reader on hostile input: truncated, corrupted and mutated copies of every committed
//! `kernels/*.ptx`, absurd numbers, huge files. Every call must return (`Ok` or `Err`, never a
//! panic) in bounded time, asserted per class of input. Seeded, so a failure reproduces; a
//! failure names the input. The slowest times are printed under `--nocapture` only (cargo test
//! captures them otherwise).

use std::time::{Duration, Instant};

use chevron_cuda_spec::ptx::{self, Expected};

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
