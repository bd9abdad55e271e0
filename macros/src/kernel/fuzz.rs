//! `#[kernel]` on mutated input: declarations and arguments with tokens deleted, repeated,
//! swapped and replaced, against real and hostile files. Expansion must never panic (a panic
//! in a proc macro hides every other error). Seeded, so a failure reproduces.

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
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([
        format!("\"{k}/templates.ptx\""),
        format!("\"{k}/saxpy.cu\""),
        format!("\"{k}\""),
        format!("\"{k}/../ui-tests/fixtures/kernel_bad.ptx\""),
        format!("\"{k}/../ui-tests/fixtures/kernel_many_params.ptx\""),
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

#[test]
fn mutated_declarations_never_panic() {
    let seeds: Vec<(TokenStream, TokenStream)> = seeds()
        .into_iter()
        .map(|(a, i)| (a.parse().expect("args lex"), i.parse().expect("item lexes")))
        .collect();
    let pieces: Vec<TokenStream> = pieces()
        .iter()
        .map(|p| p.parse().unwrap_or_else(|e| panic!("{p}: {e}")))
        .collect();
    let mut rng = Rng(0xc4e7_0b5e_ed00_0001);
    let start = std::time::Instant::now();
    let rounds = 20_000;
    let mut expanded = 0;
    for round in 0..rounds {
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
        let (a, i) = (args.to_string(), item.to_string());
        let out = std::panic::catch_unwind(|| super::expand(args, item));
        match out {
            Ok(tokens) => {
                assert!(!tokens.is_empty(), "round {round}: empty expansion");
                expanded += usize::from(!tokens.to_string().contains("compile_error"));
            }
            Err(_) => panic!("round {round}: `#[kernel({a})] {i}` panicked"),
        }
    }
    println!(
        "{rounds} mutated declarations ({expanded} still valid) in {:?}",
        start.elapsed()
    );
    // Both paths are exercised: full checks and expansion, and error reporting.
    assert!(
        expanded > rounds / 100 && expanded < rounds * 19 / 20,
        "{expanded} of {rounds} expanded"
    );
}
