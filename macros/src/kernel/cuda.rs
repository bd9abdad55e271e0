//! What a `cuda = "…"` kernel carries to NVRTC besides its source: the headers it includes
//! (found here, relative to the `.cu` and the declaration's `-I` directories, and embedded with
//! `include_str!` so that the binary needs no files and editing a header rebuilds), the NVRTC
//! options of `options = […]`, and the C++ name expression of `name = "softmax<128>"`.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::{LitStr, Token};

use super::ast::{CudaSpec, KernelArgs};
use super::source;
use crate::report::Errors;

/// Headers embedded for one kernel at most: more is a runaway include graph.
const MAX_HEADERS: usize = 4096;

/// `CudaProgram { headers: &[(name, include_str!(path)), …], options, name_expression }`: each
/// header embedded with `include_str!`, so that rustc lists it in the crate's dep-info and
/// cargo rebuilds when it changes.
pub fn program_tokens(spec: &CudaSpec, p: &TokenStream) -> TokenStream {
    let headers = spec.headers.iter().map(|(name, path)| {
        let path = LitStr::new(path, Span::call_site());
        quote!((#name, #p::include_str!(#path)))
    });
    let options = &spec.options;
    let expression = match &spec.name_expression {
        Some(e) => quote!(#p::Some(#e)),
        None => quote!(#p::None),
    };
    quote!(#p::CudaProgram {
        headers: &[#(#headers),*],
        options: &[#(#options),*],
        name_expression: #expression,
    })
}

/// `options = ["-std=c++17", "-DN=128"]`.
pub fn parse_options(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<Vec<LitStr>> {
    let form = "`options` takes a list of NVRTC options: `options = [\"-std=c++17\", \"-DN=128\"]`";
    if !meta.input.peek(Token![=]) {
        return Err(meta.error(form));
    }
    let expr: syn::Expr = meta.value()?.parse()?;
    let syn::Expr::Array(list) = &expr else {
        return Err(syn::Error::new_spanned(&expr, form));
    };
    list.elems
        .iter()
        .map(|e| match e {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Ok(s.clone()),
            other => Err(syn::Error::new_spanned(other, form)),
        })
        .collect()
}

/// The program of the kernel in `abs` (its text `text`): options checked, `-I` directories
/// resolved against `base` (the crate root), headers found; errors into `cx`.
pub fn cuda_program(
    args: &KernelArgs,
    abs: &Path,
    text: &str,
    base: &Path,
    cx: &mut Errors,
) -> CudaSpec {
    let mut spec = CudaSpec::default();
    let mut include_dirs = Vec::new();
    if let Some((_, options)) = &args.options {
        for lit in options {
            match classify_option(&lit.value()) {
                Opt::Pass(o) => spec.options.push(o),
                Opt::Include(dir) => {
                    let path = base.join(&dir);
                    if path.is_dir() {
                        include_dirs.push(path.canonicalize().unwrap_or(path));
                    } else {
                        cx.error(
                            lit.span(),
                            format!(
                                "include directory `{dir}` not found (looked for {}); `-I` \
                                 paths are relative to the crate root",
                                path.display()
                            ),
                        );
                    }
                }
                Opt::Refused(why) => cx.error(lit.span(), why),
            }
        }
    }
    if let Some(name) = &args.name {
        let n = name.value();
        if !n.is_empty() && !chevron_cuda_rules::ptx::is_identifier(&n) {
            spec.name_expression = Some(n);
        }
    }
    let span = args
        .source
        .as_ref()
        .map_or(Span::call_site(), |s| s.path.span());
    let mut scan = Scan {
        include_dirs: &include_dirs,
        headers: &mut spec.headers,
        seen: HashSet::new(),
        span,
        cx,
        bytes: text.len() as u64,
    };
    scan.file(abs, text);
    spec.include_dirs = include_dirs;
    spec
}

/// What the compile-time nvcc of the kernel takes from its program: the options that change
/// what the source says (`-D`, `-U`, `-std`, in NVRTC's spellings, which nvcc shares), the
/// include directories, and the name expression. NVRTC's other options (code generation,
/// diagnostics) are left out: they change no launch rule nvcc reads.
pub fn nvcc_extra(spec: &CudaSpec) -> super::nvcc::Extra {
    const SOURCE_OPTIONS: [&str; 6] = [
        "-D",
        "--define-macro=",
        "-U",
        "--undefine-macro=",
        "-std=",
        "--std=",
    ];
    let mut flags: Vec<String> = spec
        .options
        .iter()
        .filter(|o| SOURCE_OPTIONS.iter().any(|p| o.starts_with(p)))
        .cloned()
        .collect();
    flags.extend(
        spec.include_dirs
            .iter()
            .map(|d| format!("-I{}", d.display())),
    );
    super::nvcc::Extra {
        flags,
        name_expression: spec.name_expression.clone(),
    }
}

/// The entry nvcc made for the name expression `expression` (`softmax<128>`): the one entry
/// whose demangled name is the expression (`ns::scale<float>` too), else the one entry whose
/// mangled name is of a function template named as the expression's base name
/// (`_Z7softmaxI…`). `None` when neither finds exactly one; the rules are then read from
/// NVRTC's output at run time.
pub fn instance_entry<'a>(
    expression: &str,
    entries: &'a [chevron_cuda_rules::ptx::Entry],
) -> Option<&'a chevron_cuda_rules::ptx::Entry> {
    if let Ok(entry) = chevron_cuda_rules::ptx::resolve_entry(entries, expression, "") {
        return Some(entry);
    }
    let base = expression.split('<').next()?.trim();
    if !chevron_cuda_rules::ptx::is_identifier(base) {
        return None;
    }
    let prefix = format!("_Z{}{base}I", base.len());
    let mut found = entries.iter().filter(|e| e.name.starts_with(&prefix));
    let one = found.next()?;
    found.next().is_none().then_some(one)
}

enum Opt {
    Pass(String),
    Include(String),
    Refused(String),
}

fn classify_option(o: &str) -> Opt {
    let o = o.trim();
    if o.is_empty() {
        return Opt::Refused("an empty option: remove it".into());
    }
    if !o.starts_with('-') {
        return Opt::Refused(format!(
            "`{o}` is not an NVRTC option (options start with `-`, as `-DN=128`)"
        ));
    }
    for arch in [
        "-arch",
        "--gpu-architecture",
        "-gencode",
        "--generate-code",
        "-code",
    ] {
        if o == arch
            || o.starts_with(&format!("{arch}="))
            || (arch == "-arch" && o.starts_with("-arch"))
        {
            return Opt::Refused(format!(
                "`{o}`: chevron compiles a `cuda = \"…\"` kernel for the GPU it runs on (its \
                 own `sm_XY`), once per architecture; remove the option, or compile PTX for a \
                 fixed architecture with nvcc and declare it with `ptx = …`"
            ));
        }
    }
    for rdc in ["-rdc", "--relocatable-device-code", "-dc"] {
        if o == rdc || o.starts_with(&format!("{rdc}=")) {
            return Opt::Refused(format!(
                "`{o}`: chevron compiles relocatable code (and links it with libcudadevrt) by \
                 itself when the kernel calls the CUDA device runtime; remove the option"
            ));
        }
    }
    let dir = o
        .strip_prefix("--include-path=")
        .or_else(|| o.strip_prefix("-I"));
    if let Some(dir) = dir {
        let dir = dir.trim();
        if dir.is_empty() {
            return Opt::Refused(format!(
                "`{o}` names no directory: write `-Idir` (relative to the crate root)"
            ));
        }
        return Opt::Include(dir.to_string());
    }
    Opt::Pass(o.to_string())
}

/// The include graph walk.
struct Scan<'a> {
    include_dirs: &'a [PathBuf],
    headers: &'a mut Vec<(String, String)>,
    seen: HashSet<PathBuf>,
    span: Span,
    cx: &'a mut Errors,
    bytes: u64,
}

impl Scan<'_> {
    fn file(&mut self, path: &Path, text: &str) {
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        for (name, quoted) in includes(text) {
            let mut candidates = Vec::new();
            if quoted {
                candidates.push(dir.join(&name));
            }
            candidates.extend(self.include_dirs.iter().map(|d| d.join(&name)));
            // Not found here: a CUDA toolkit header (or one NVRTC has built in), found at run
            // time; a missing one is NVRTC's error then.
            let Some(found) = candidates.into_iter().find(|c| c.is_file()) else {
                continue;
            };
            let found = found.canonicalize().unwrap_or(found);
            let found_text = found.to_string_lossy().into_owned();
            match self.headers.iter().find(|(n, _)| *n == name) {
                Some((_, p)) if *p == found_text => continue,
                Some((_, p)) => {
                    let p = p.clone();
                    self.cx.error(
                        self.span,
                        format!(
                            "two headers are included as `{name}`: {p} and {found_text}; NVRTC \
                             knows an embedded header by the name its `#include` writes, so \
                             rename one of them"
                        ),
                    );
                    continue;
                }
                None => {}
            }
            if self.headers.len() >= MAX_HEADERS {
                self.cx.error(
                    self.span,
                    format!("the kernel includes more than {MAX_HEADERS} headers"),
                );
                return;
            }
            self.headers.push((name.clone(), found_text));
            if !self.seen.insert(found.clone()) {
                continue;
            }
            match source::read_source(&found) {
                Ok(t) => {
                    self.bytes += t.len() as u64;
                    if self.bytes > source::MAX_SOURCE_BYTES {
                        self.cx.error(
                            self.span,
                            format!(
                                "the kernel's source and headers are over {} MiB together \
                                 (they are embedded in the binary)",
                                source::MAX_SOURCE_BYTES >> 20
                            ),
                        );
                        return;
                    }
                    self.file(&found, &t);
                }
                Err(e) => self.cx.error(
                    self.span,
                    format!(
                        "cannot embed `{name}` ({}), included by {}: {e}",
                        found.display(),
                        path.display()
                    ),
                ),
            }
        }
    }
}

/// The `#include "…"` (quoted: `true`) and `#include <…>` directives of C/C++ text, outside
/// comments and string literals; a directive spelled with a macro is skipped.
pub fn includes(text: &str) -> Vec<(String, bool)> {
    let code = strip_comments(text);
    let mut out = Vec::new();
    // Joined continuation lines count as one.
    let joined = code.replace("\\\r\n", "").replace("\\\n", "");
    for line in joined.lines() {
        let Some(rest) = line.trim_start().strip_prefix('#') else {
            continue;
        };
        let Some(rest) = rest.trim_start().strip_prefix("include") else {
            continue;
        };
        let rest = rest.trim_start();
        let (close, quoted) = match rest.chars().next() {
            Some('"') => ('"', true),
            Some('<') => ('>', false),
            _ => continue,
        };
        if let Some(end) = rest[1..].find(close) {
            let name = &rest[1..1 + end];
            if !name.is_empty() {
                out.push((name.to_string(), quoted));
            }
        }
    }
    out
}

/// The text with comments blanked (newlines kept), string and character literals left as they
/// are.
fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut prev = '\0';
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                    }
                    if prev == '*' && c == '/' {
                        break;
                    }
                    prev = c;
                }
                out.push(' ');
            }
            '"' | '\'' => {
                out.push(c);
                let mut escaped = false;
                for d in chars.by_ref() {
                    out.push(d);
                    if d == '\n' || (!escaped && d == c) {
                        break;
                    }
                    escaped = !escaped && d == '\\';
                }
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_expressions_instance_is_the_one_template_entry_of_its_name() {
        let ptx = |names: &[&str]| {
            let mut text = String::from(".version 8.0\n.target sm_75\n.address_size 64\n");
            for n in names {
                text.push_str(&format!(".visible .entry {n}() {{ ret; }}\n"));
            }
            chevron_cuda_rules::ptx::parse_entries(&text).expect("parses")
        };
        let one = ptx(&["plain", "_Z7softmaxILi128EEvPfPKfii", "_Z8softmax2ILi1EEvv"]);
        let found = instance_entry("softmax<128>", &one).map(|e| e.name.as_str());
        assert_eq!(found, Some("_Z7softmaxILi128EEvPfPKfii"));
        // Two instances of one template: told apart by their demangled names.
        let two = ptx(&["_Z7softmaxILi128EEvPfPKfii", "_Z7softmaxILi64EEvPfPKfii"]);
        let found = instance_entry("softmax<64>", &two).map(|e| e.name.as_str());
        assert_eq!(found, Some("_Z7softmaxILi64EEvPfPKfii"));
        // An instance neither name finds: not guessed.
        assert!(instance_entry("softmax<32>", &two).is_none());
        // A qualified name: found by its demangled name only.
        let qualified = ptx(&["_ZN2ns7softmaxILi128EEEvPf", "_Z7softmaxILi128EEvPfPKfii"]);
        let found = instance_entry("ns::softmax<128>", &qualified).map(|e| e.name.as_str());
        assert_eq!(found, Some("_ZN2ns7softmaxILi128EEEvPf"));
        assert!(instance_entry("ns::softmax<128>", &one).is_none());
        assert!(instance_entry("scale<2>", &one).is_none());
    }

    #[test]
    fn the_compile_time_nvcc_gets_the_source_options_and_include_dirs() {
        let spec = CudaSpec {
            options: [
                "-DN=128",
                "-std=c++17",
                "--use_fast_math",
                "-UX",
                "-lineinfo",
            ]
            .map(String::from)
            .to_vec(),
            include_dirs: vec![PathBuf::from("/abs/inc")],
            name_expression: Some("f<2>".into()),
            ..CudaSpec::default()
        };
        let extra = nvcc_extra(&spec);
        assert_eq!(extra.flags, ["-DN=128", "-std=c++17", "-UX", "-I/abs/inc"]);
        assert_eq!(extra.name_expression.as_deref(), Some("f<2>"));
    }

    #[test]
    fn include_directives_are_found_outside_comments() {
        let src = "#include \"common.cuh\"\n\
                   #  include <cooperative_groups.h>\n\
                   // #include \"commented.cuh\"\n\
                   /* #include \"block.cuh\"\n #include \"block2.cuh\" */\n\
                   const char* s = \"#include \\\"in_string.cuh\\\"\";\n\
                   #include HEADER_MACRO\n\
                   #include \"sub/dir.cuh\" // trailing\n";
        assert_eq!(
            includes(src),
            vec![
                ("common.cuh".to_string(), true),
                ("cooperative_groups.h".to_string(), false),
                ("sub/dir.cuh".to_string(), true),
            ]
        );
    }

    #[test]
    fn options_are_sorted_into_passed_include_and_refused() {
        assert!(matches!(classify_option("-std=c++17"), Opt::Pass(o) if o == "-std=c++17"));
        assert!(matches!(classify_option("--use_fast_math"), Opt::Pass(_)));
        assert!(matches!(classify_option("-DN=128"), Opt::Pass(_)));
        assert!(matches!(classify_option("-Iinclude"), Opt::Include(d) if d == "include"));
        assert!(matches!(classify_option("-I include"), Opt::Include(d) if d == "include"));
        assert!(matches!(classify_option("--include-path=inc"), Opt::Include(d) if d == "inc"));
        for refused in [
            "-arch=sm_80",
            "--gpu-architecture=compute_90",
            "-rdc=true",
            "",
            "-I",
            "O3",
        ] {
            assert!(
                matches!(classify_option(refused), Opt::Refused(_)),
                "{refused}"
            );
        }
    }
}
