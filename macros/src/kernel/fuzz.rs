//! `#[kernel]` on mutated input: declarations and arguments with tokens deleted, repeated,
//! swapped and replaced, against real and hostile files (non-UTF-8 among them). Expansion must
//! never panic (a panic in a proc macro hides every other error): it returns tokens that parse
//! as items, and its errors are in rustc's voice. Seeded, so a failure reproduces.

use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use proc_macro2::{TokenStream, TokenTree};

/// xorshift64*.
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
}

fn kernels() -> String {
    format!("{}/../kernels", env!("CARGO_MANIFEST_DIR"))
}

/// Valid starting points: `(arguments, declaration)`.
fn seeds() -> Vec<(String, String)> {
    let k = kernels();
    vec![
        (
            format!("ptx = \"{k}/saxpy.ptx\""),
            "pub fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);".into(),
        ),
        (
            format!("ptx = \"{k}/structs.ptx\""),
            "fn affine(p: Affine, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>, n: u32);".into(),
        ),
        (
            format!("ptx = \"{k}/templates.ptx\", name = \"_Z4gemmILi128EEvPKfS1_Pfiii\""),
            "fn gemm(a: &CudaSlice<f32>, b: &CudaSlice<f32>, c: &mut CudaSlice<f32>, m: i32, \
             n: i32, k: i32);"
                .into(),
        ),
        (
            format!("cuda = \"{k}/histogram.cu\""),
            "/// docs\n#[allow(dead_code)] pub(crate) fn histogram(bins: &mut CudaSlice<u32>, \
             data: &CudaView<'_, u8>, len: u32);"
                .into(),
        ),
        (
            format!(
                "ptx = [\"{k}/variants/saxpy_sm75.ptx\", concat!(\"{k}\", \"/variants/saxpy_sm90.ptx\")], \
                 name = \"saxpy\""
            ),
            "pub fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);".into(),
        ),
        (
            format!(
                "cuda = \"{k}/nvrtc/softmax.cu\", name = \"softmax<128>\", \
                 options = [\"-std=c++17\", \"-DN=1\", \"-I{k}/nvrtc\"]"
            ),
            "fn softmax(out: &mut CudaSlice<f32>, input: &CudaSlice<f32>, rows: i32, cols: i32);"
                .into(),
        ),
        (
            // Aliases, paths and renamed imports: what the types are is for rustc to say.
            format!("ptx = \"{k}/saxpy.ptx\""),
            "fn saxpy(n: Count, a: std::primitive::f32, x: &DevBuf, y: &mut DeviceBuffer<f32>);"
                .into(),
        ),
        (
            format!("ptx = \"{k}/params.ptx\""),
            "fn all_types(a: ::core::primitive::u8, b: i8, c: u16, d: i16, e: types::U32, \
             f: i32, g: u64, h: <W as Tr>::Out, i: Scale, j: m!(f64), k: bool, out: Out<'_>);"
                .into(),
        ),
        (
            format!("ptx = \"{k}/params.ptx\""),
            "fn all_types(a: u8, b: i8, c: u16, d: i16, e: u32, f: i32, g: u64, h: i64, \
             i: f32, j: f64, k: bool, out: &mut CudaViewMut<'_, f64>);"
                .into(),
        ),
    ]
}

/// Replacement tokens: names of generated code, keywords, odd types and paths.
fn pieces() -> Vec<String> {
    let k = kernels();
    [
        "stream",
        "config",
        "launch",
        "function",
        "__chevron_ptr_0",
        "__CHEVRON_KERNEL",
        "self",
        "Self",
        "crate",
        "super",
        "r#type",
        "_",
        "u128",
        "f16",
        "Scale",
        "std::primitive::f32",
        "::core::primitive::u64",
        "types::Wide",
        "DevBuf",
        "&DevBuf",
        "&mut DeviceBuffer<f32>",
        "Input<'_>",
        "<T as Tr>::Out",
        "m!(u32)",
        "&Vec<_>",
        "&[f32]",
        "&mut Vec<u8>",
        "Box<[i8]>",
        "&String",
        "&mut CudaView<'_, f32>",
        "CudaSlice<f32>",
        "[f32]",
        "str",
        "[u8; 4294967295]",
        "&&CudaSlice<f32>",
        "*const f32",
        "impl Copy",
        "dyn Fn()",
        "fn()",
        "(u32, u32)",
        "!",
        "'a",
        "<T>",
        "where T: Copy",
        "async",
        "const",
        "unsafe",
        "extern \"C\"",
        "...",
        "-> u32",
        "{ }",
        "#[inline]",
        "#[test]",
        "#[cfg(any())]",
        ",",
        ";",
        ":",
        "=",
        "&",
        "mut",
        "ptx",
        "cuda",
        "name",
        "PTX",
        "1",
        "\"\"",
        "\"/dev/zero\"",
        "\"/\"",
        "\"\\0\"",
        "\"k\"",
        "\"_Z5scaleIfEvPT_S0_j\"",
        "0xFFFFFFFFFFFFFFFFFFFF",
        "1e999",
        "'c'",
        "b\"x\"",
        "(\"x\")",
        "ptx = 1",
        "name = \"\"",
        "options",
        "[]",
        "[\"-arch=sm_90\"]",
        "[\"-I\"]",
        "[\"-I/\"]",
        "concat!()",
        "concat!(env!(\"OUT_DIR\"))",
        "env!()",
        "env!(1, 2, 3)",
        "std::concat!(\"\")",
        "\"softmax<\"",
        "\"a::b<c>\"",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([
        format!("\"{k}/templates.ptx\""),
        format!("\"{k}/saxpy.cu\""),
        format!("\"{k}\""),
        format!("\"{k}/../ui-tests/fixtures/kernel_bad.ptx\""),
        format!("\"{k}/../ui-tests/fixtures/kernel_many_params.ptx\""),
        format!("\"{}\"", not_utf8_file()),
    ])
    .collect()
}

fn flat(ts: TokenStream) -> Vec<TokenTree> {
    ts.into_iter().collect()
}

/// One mutation of a token list: at the top level, or inside a group chosen at random.
fn mutate(rng: &mut Rng, tokens: &mut Vec<TokenTree>, pieces: &[TokenStream]) {
    if tokens.is_empty() {
        tokens.extend(pieces[rng.below(pieces.len())].clone());
        return;
    }
    let at = rng.below(tokens.len());
    if let TokenTree::Group(g) = &tokens[at] {
        if rng.below(2) == 0 {
            let mut inner = flat(g.stream());
            mutate(rng, &mut inner, pieces);
            let mut new = proc_macro2::Group::new(g.delimiter(), inner.into_iter().collect());
            new.set_span(g.span());
            tokens[at] = TokenTree::Group(new);
            return;
        }
    }
    match rng.below(5) {
        0 => {
            tokens.remove(at);
        }
        1 => {
            let t = tokens[at].clone();
            tokens.insert(at, t);
        }
        2 => {
            let other = rng.below(tokens.len());
            tokens.swap(at, other);
        }
        3 => {
            tokens.splice(at..at + 1, pieces[rng.below(pieces.len())].clone());
        }
        _ => {
            let at = rng.below(tokens.len() + 1);
            tokens.splice(at..at, pieces[rng.below(pieces.len())].clone());
        }
    }
}

/// A `.ptx` file that is not UTF-8 (a byte-flipped copy of saxpy.ptx with an overlong
/// encoding, a lone continuation byte and 0xFF in its `.entry` line), written once per process.
fn not_utf8_file() -> &'static str {
    static PATH: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    PATH.get_or_init(|| {
        let text = std::fs::read(format!("{}/saxpy.ptx", kernels())).expect("saxpy.ptx");
        let at = text
            .windows(6)
            .position(|w| w == b".entry")
            .expect("an .entry");
        let mut bytes = text[..at].to_vec();
        bytes.extend_from_slice(b"\xC0\xAF\x80\xFF");
        bytes.extend_from_slice(&text[at..]);
        let path = std::env::temp_dir().join(format!(
            "chevron-kernel-fuzz-not-utf8-{}.ptx",
            std::process::id()
        ));
        std::fs::write(&path, bytes).expect("temp file");
        path.display().to_string()
    })
}

/// How many declarations the fuzz test expands. Measured in a debug build: 16.7 s of CPU time
/// for 100,000 (about 6,000 a second per core), so 8 to 9 s on two idle cores; 42 s of wall
/// time on two cores shared with other builds (load average 8).
const ROUNDS: usize = 100_000;

thread_local! {
    /// Set on the fuzzer's threads: their panics are caught and reported with the input.
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

/// The messages of the `compile_error!`s in `tokens`, at any depth.
fn errors_in(tokens: TokenStream, out: &mut Vec<String>) {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, t) in tokens.iter().enumerate() {
        match t {
            TokenTree::Ident(id) if id == "compile_error" => {
                if let Some(TokenTree::Group(g)) = tokens.get(i + 2) {
                    match syn::parse2::<syn::LitStr>(g.stream()) {
                        Ok(lit) => out.push(lit.value()),
                        Err(_) => out.push(format!("<not a string literal: {}>", g.stream())),
                    }
                }
            }
            TokenTree::Group(g) => errors_in(g.stream(), out),
            _ => {}
        }
    }
}

/// Expands one input; `Ok(true)` when it expanded without errors, `Err` with what went wrong.
fn try_input(args: TokenStream, item: TokenStream) -> Result<bool, String> {
    let out = panic::catch_unwind(AssertUnwindSafe(|| super::expand(args, item, None))).map_err(
        |payload| {
            let message = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            format!("panicked: {message}")
        },
    )?;
    if out.is_empty() {
        return Err("empty expansion".into());
    }
    let mut errors = Vec::new();
    errors_in(out.clone(), &mut errors);
    if errors.is_empty() {
        // A clean expansion must be items rustc can read.
        syn::parse2::<syn::File>(out).map_err(|e| format!("the expansion does not parse: {e}"))?;
        return Ok(true);
    }
    for m in &errors {
        // rustc's voice: lowercase (a name in backticks or an acronym may lead), no final period.
        let first = m.split_whitespace().next().unwrap_or("");
        let acronym = first.len() > 1 && first.chars().all(|c| !c.is_lowercase());
        if m.is_empty() || m.ends_with('.') || (m.starts_with(char::is_uppercase) && !acronym) {
            return Err(format!("an error not in rustc's voice: {m:?}"));
        }
    }
    Ok(false)
}

#[test]
fn mutated_declarations_never_panic() {
    let previous: Arc<dyn Fn(&panic::PanicHookInfo<'_>) + Send + Sync> = panic::take_hook().into();
    let hook = Arc::clone(&previous);
    panic::set_hook(Box::new(move |info| {
        if !QUIET.with(Cell::get) {
            hook(info);
        }
    }));
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
    let seeds = seeds();
    let pieces = pieces();
    let stop = AtomicBool::new(false);
    let expanded = AtomicUsize::new(0);
    let failures: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let start = std::time::Instant::now();
    std::thread::scope(|scope| {
        for t in 0..threads {
            let (seeds, pieces, stop, expanded, failures) =
                (&seeds, &pieces, &stop, &expanded, &failures);
            scope.spawn(move || {
                QUIET.with(|q| q.set(true));
                // Tokens are not `Send`: each thread lexes its own.
                let seeds: Vec<(TokenStream, TokenStream)> = seeds
                    .iter()
                    .map(|(a, i)| (a.parse().expect("args lex"), i.parse().expect("item lexes")))
                    .collect();
                let pieces: Vec<TokenStream> = pieces
                    .iter()
                    .map(|p| p.parse().unwrap_or_else(|e| panic!("{p}: {e}")))
                    .collect();
                let mut ok = 0;
                for round in (t..ROUNDS).step_by(threads) {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    // One generator per round, so a round reproduces alone.
                    let mut rng = Rng((0xc4e7_0b5e_ed00_0001
                        ^ (round as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15))
                        | 1);
                    let (args, item) = &seeds[rng.below(seeds.len())];
                    let (mut args, mut item) = (flat(args.clone()), flat(item.clone()));
                    for _ in 0..1 + rng.below(3) {
                        if rng.below(3) == 0 {
                            mutate(&mut rng, &mut args, &pieces);
                        } else {
                            mutate(&mut rng, &mut item, &pieces);
                        }
                    }
                    let args: TokenStream = args.into_iter().collect();
                    let item: TokenStream = item.into_iter().collect();
                    match try_input(args.clone(), item.clone()) {
                        Ok(clean) => ok += usize::from(clean),
                        Err(problem) => {
                            stop.store(true, Ordering::Relaxed);
                            failures
                                .lock()
                                .unwrap_or_else(|e| e.into_inner())
                                .push(format!(
                                    "round {round}: {problem}\n#[kernel({args})] {item}"
                                ));
                        }
                    }
                }
                expanded.fetch_add(ok, Ordering::Relaxed);
            });
        }
    });
    panic::set_hook(Box::new(move |info| previous(info)));
    let failures = failures.into_inner().unwrap_or_else(|e| e.into_inner());
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    let expanded = expanded.into_inner();
    println!(
        "{ROUNDS} mutated declarations ({expanded} still valid) on {threads} threads in {:?}",
        start.elapsed()
    );
    // Both paths are exercised: full checks and expansion, and error reporting.
    assert!(
        expanded > ROUNDS / 100 && expanded < ROUNDS * 19 / 20,
        "{expanded} of {ROUNDS} expanded"
    );
}

#[test]
fn a_file_that_is_not_utf8_is_a_spanned_error() {
    let args: TokenStream = format!("ptx = \"{}\"", not_utf8_file()).parse().unwrap();
    let item: TokenStream = "fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);"
        .parse()
        .unwrap();
    let mut errors = Vec::new();
    errors_in(super::expand(args, item, None), &mut errors);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].contains("is not UTF-8"), "{errors:?}");
}
