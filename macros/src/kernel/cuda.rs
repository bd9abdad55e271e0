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
    parse_string_list(
        meta,
        "`options` takes a list of NVRTC options: `options = [\"-std=c++17\", \"-DN=128\"]`",
    )
}

/// `KEY = ["…", …]`: the string literals of the list; `form` (how to write it) is the error for
/// anything else.
pub fn parse_string_list(
    meta: &syn::meta::ParseNestedMeta<'_>,
    form: &str,
) -> syn::Result<Vec<LitStr>> {
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
    let mut pre_includes = Vec::new();
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
                Opt::PreInclude(name) => {
                    spec.options.push(lit.value().trim().to_string());
                    pre_includes.push((name, lit.span()));
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
        stop: false,
        rtc: text.contains(RTC_MACRO),
    };
    // Pre-included headers are found as a quoted `#include` of the `.cu` file would be, and
    // embedded under the name the option gives, where NVRTC looks for them.
    for (name, lit_span) in &pre_includes {
        match scan.include(abs, name, true) {
            Some(found) => spec.pre_includes.push(found),
            None => scan.cx.error(
                *lit_span,
                format!(
                    "pre-included header `{name}` not found: it is looked for next to `{}`, \
                     then in the `-I` directories",
                    abs.display()
                ),
            ),
        }
    }
    scan.file(abs, text);
    spec.tests_rtc = scan.rtc;
    if let Some(o) = spec.options.iter().find(|o| nvrtc_only(o)) {
        spec.unmirrored = Some(format!("NVRTC's option `{o}` has no nvcc equivalent"));
    }
    spec.include_dirs = include_dirs;
    spec
}

/// The macro NVRTC defines and nvcc does not.
pub const RTC_MACRO: &str = "__CUDACC_RTC__";

/// NVRTC options nvcc has no equivalent of, which change what the source means.
fn nvrtc_only(o: &str) -> bool {
    ["-default-device", "--device-as-default-execution-space"].contains(&o)
}

/// What the compile-time nvcc of the kernel takes from its program, so that it compiles what
/// NVRTC will:
/// - the macros NVRTC predefines and nvcc does not (measured with NVRTC and nvcc 13.0):
///   `__USE_FAST_MATH__`, `__CUDA_FTZ`, `__CUDA_PREC_DIV` and `__CUDA_PREC_SQRT`, each `0` or
///   `1` as the options set them (`--use_fast_math` implies `-ftz=true -prec-div=false
///   -prec-sqrt=false`; an explicit one wins, the last of its kind), unless a `-D` of the
///   declaration defines it;
/// - the options that change what the source says or how it compiles, in NVRTC's spellings,
///   which nvcc shares: `-D`, `-U`, `-std`, `--use_fast_math`, `-ftz`, `-prec-div`,
///   `-prec-sqrt`, `-fmad`, `-G`, `-ewp`, `-restrict`;
/// - the `--pre-include` files and the include directories, by absolute path;
/// - `__CUDACC_RTC__`, where the kernel's own code tests it: defined after nvcc's own headers
///   (under it they fail), by a pre-included file (see `nvcc::Extra::rtc`);
/// - the name expression.
///
/// NVRTC's other options (diagnostics, line info) change no launch rule nvcc reads; NVRTC-only
/// options cannot be mirrored: see [`CudaSpec::unmirrored`].
pub fn nvcc_extra(spec: &CudaSpec) -> super::nvcc::Extra {
    const SOURCE_OPTIONS: [&str; 20] = [
        "-D",
        "--define-macro=",
        "-U",
        "--undefine-macro=",
        "-std=",
        "--std=",
        "-use_fast_math",
        "--use_fast_math",
        "-ftz=",
        "--ftz=",
        "-prec-div=",
        "--prec-div=",
        "-prec-sqrt=",
        "--prec-sqrt=",
        "-fmad=",
        "--fmad=",
        "-ewp",
        "--extensible-whole-program",
        "-restrict",
        "--restrict",
    ];
    let passed = |o: &&String| {
        SOURCE_OPTIONS.iter().any(|p| o.starts_with(p))
            || ["-G", "--device-debug"].contains(&o.as_str())
    };
    let mut flags: Vec<String> = predefined_macros(&spec.options)
        .into_iter()
        .map(|(name, value)| format!("-D{name}={}", u8::from(value)))
        .collect();
    flags.extend(spec.options.iter().filter(passed).cloned());
    flags.extend(
        spec.pre_includes
            .iter()
            .map(|h| format!("--pre-include={}", h.display())),
    );
    flags.extend(
        spec.include_dirs
            .iter()
            .map(|d| format!("-I{}", d.display())),
    );
    super::nvcc::Extra {
        flags,
        name_expression: spec.name_expression.clone(),
        rtc: spec.tests_rtc,
    }
}

/// The macros NVRTC defines from its floating-point options, and their values (see
/// [`nvcc_extra`]); those a `-D` of `options` defines are left to it.
fn predefined_macros(options: &[String]) -> Vec<(&'static str, bool)> {
    let mut fast = false;
    let (mut ftz, mut prec_div, mut prec_sqrt) = (None, None, None);
    for o in options {
        let o = o.trim();
        if o == "--use_fast_math" || o == "-use_fast_math" {
            fast = true;
        }
        let value = |name: &str| {
            let v = o
                .strip_prefix("--")
                .or_else(|| o.strip_prefix('-'))?
                .strip_prefix(name)?
                .strip_prefix('=')?;
            match v {
                "true" => Some(true),
                "false" => Some(false),
                _ => None,
            }
        };
        ftz = value("ftz").or(ftz);
        prec_div = value("prec-div").or(prec_div);
        prec_sqrt = value("prec-sqrt").or(prec_sqrt);
    }
    let defined_by_user = |name: &str| {
        options.iter().any(|o| {
            o.strip_prefix("-D")
                .or_else(|| o.strip_prefix("--define-macro="))
                .map(str::trim)
                .is_some_and(|d| d.split('=').next() == Some(name))
        })
    };
    [
        ("__USE_FAST_MATH__", fast),
        ("__CUDA_FTZ", ftz.unwrap_or(fast)),
        ("__CUDA_PREC_DIV", prec_div.unwrap_or(!fast)),
        ("__CUDA_PREC_SQRT", prec_sqrt.unwrap_or(!fast)),
    ]
    .into_iter()
    .filter(|(name, _)| !defined_by_user(name))
    .collect()
}

/// The entry nvcc made for the name expression `expression` (`softmax<128>`): the one the
/// compile-time wrapper's `__chevron_instance` points at (its address, which nvcc writes as
/// the entry's lowered name: what NVRTC's `nvrtcGetLoweredName` gives at run time), else the
/// one entry whose demangled name is the expression (`ns::scale<float>` too), else the one
/// entry whose mangled name is of a function template named as the expression's base name
/// (`_Z7softmaxI…`). `None` when none finds exactly one; the rules are then read from NVRTC's
/// output at run time.
pub fn instance_entry<'a>(
    expression: &str,
    entries: &'a [chevron_cuda_rules::ptx::Entry],
    ptx_text: &str,
) -> Option<&'a chevron_cuda_rules::ptx::Entry> {
    if let Some(lowered) = lowered_name(ptx_text) {
        if let Some(entry) = entries.iter().find(|e| e.name == lowered) {
            return Some(entry);
        }
    }
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

/// The symbol the wrapper's `__device__ void* __chevron_instance = (void*)&expr;` holds, from
/// nvcc's `.global .align 8 .u64 __chevron_instance = _Z2tuILj128EEvPf;`.
fn lowered_name(ptx_text: &str) -> Option<&str> {
    ptx_text.lines().find_map(|line| {
        let rest = line.trim().strip_prefix(".global")?;
        let (name, value) = rest.split_once('=')?;
        if name.split_whitespace().last()? != super::nvcc::INSTANCE {
            return None;
        }
        let symbol = value.trim().strip_suffix(';')?.trim();
        chevron_cuda_rules::ptx::is_identifier(symbol).then_some(symbol)
    })
}

enum Opt {
    Pass(String),
    Include(String),
    /// `--pre-include=h.cuh` / `-include=h.cuh`: the header's name.
    PreInclude(String),
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
    let pre = o
        .strip_prefix("--pre-include=")
        .or_else(|| o.strip_prefix("-include="));
    if let Some(name) = pre {
        let name = name.trim();
        if name.is_empty() {
            return Opt::Refused(format!(
                "`{o}` names no header: write `--pre-include=common.cuh` (found as `#include \
                 \"common.cuh\"` would be: next to the `.cu` file, then in the `-I` directories)"
            ));
        }
        return Opt::PreInclude(name.to_string());
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
    /// A limit was reached (reported): no more headers.
    stop: bool,
    /// Some text read tests `__CUDACC_RTC__`.
    rtc: bool,
}

impl Scan<'_> {
    fn file(&mut self, path: &Path, text: &str) {
        for (name, quoted) in source::includes(text) {
            if self.include(path, &name, quoted).is_none() && self.stop {
                return;
            }
        }
    }

    /// The header `name`, included by `path` (`quoted`: as `#include "name"`), embedded and
    /// scanned in turn; its absolute path, or `None` when it is not found here (a CUDA toolkit
    /// header, or one NVRTC has built in: found at run time, where a missing one is NVRTC's
    /// error), already embedded under another path, or not readable (reported).
    fn include(&mut self, path: &Path, name: &str, quoted: bool) -> Option<PathBuf> {
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let mut candidates = Vec::new();
        if quoted {
            candidates.push(dir.join(name));
        }
        candidates.extend(self.include_dirs.iter().map(|d| d.join(name)));
        let found = candidates.into_iter().find(|c| c.is_file())?;
        let found = found.canonicalize().unwrap_or(found);
        let found_text = found.to_string_lossy().into_owned();
        match self.headers.iter().find(|(n, _)| n == name) {
            Some((_, p)) if *p == found_text => return Some(found),
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
                return None;
            }
            None => {}
        }
        if self.headers.len() >= MAX_HEADERS {
            self.cx.error(
                self.span,
                format!("the kernel includes more than {MAX_HEADERS} headers"),
            );
            self.stop = true;
            return None;
        }
        self.headers.push((name.to_string(), found_text));
        if !self.seen.insert(found.clone()) {
            return Some(found);
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
                    self.stop = true;
                    return None;
                }
                self.rtc |= t.contains(RTC_MACRO);
                self.file(&found, &t);
                Some(found)
            }
            Err(e) => {
                self.cx.error(
                    self.span,
                    format!(
                        "cannot embed `{name}` ({}), included by {}: {e}",
                        found.display(),
                        path.display()
                    ),
                );
                None
            }
        }
    }
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
        let found = instance_entry("softmax<128>", &one, "").map(|e| e.name.as_str());
        assert_eq!(found, Some("_Z7softmaxILi128EEvPfPKfii"));
        // Two instances of one template: told apart by their demangled names.
        let two = ptx(&["_Z7softmaxILi128EEvPfPKfii", "_Z7softmaxILi64EEvPfPKfii"]);
        let found = instance_entry("softmax<64>", &two, "").map(|e| e.name.as_str());
        assert_eq!(found, Some("_Z7softmaxILi64EEvPfPKfii"));
        // An instance neither name finds: not guessed.
        assert!(instance_entry("softmax<32>", &two, "").is_none());
        // A qualified name: found by its demangled name only.
        let qualified = ptx(&["_ZN2ns7softmaxILi128EEEvPf", "_Z7softmaxILi128EEvPfPKfii"]);
        let found = instance_entry("ns::softmax<128>", &qualified, "").map(|e| e.name.as_str());
        assert_eq!(found, Some("_ZN2ns7softmaxILi128EEEvPf"));
        assert!(instance_entry("ns::softmax<128>", &one, "").is_none());
        assert!(instance_entry("scale<2>", &one, "").is_none());
    }

    #[test]
    fn one_of_several_instances_of_a_template_is_found_by_its_lowered_name() {
        // nvcc 13.0's PTX of the wrapper of `name = "tu<128>"` for `template <unsigned N>` in a
        // file instantiating `tu<64>` and `tu<128>` (demangled `tu<(unsigned int)128>`): the
        // device variable holds the instance, whatever the expression's spelling.
        let text = ".version 9.0\n.target sm_90\n.address_size 64\n\
            \t// .globl\t_Z2tuILj128EEvPf\n\
            .visible .entry _Z2tuILj128EEvPf\n(\n\t.param .u64 _Z2tuILj128EEvPf_param_0\n)\n;\n\
            .global .align 8 .u64 __chevron_instance = _Z2tuILj128EEvPf;\n\n\
            .visible .entry _Z2tuILj128EEvPf(\n\t.param .u64 _Z2tuILj128EEvPf_param_0\n)\n{\n\tret;\n}\n\
            .visible .entry _Z2tuILj64EEvPf(\n\t.param .u64 _Z2tuILj64EEvPf_param_0\n)\n{\n\tret;\n}\n";
        let entries = chevron_cuda_rules::ptx::parse_entries(text).expect("parses");
        let found = instance_entry("tu<128>", &entries, text).map(|e| e.name.as_str());
        assert_eq!(found, Some("_Z2tuILj128EEvPf"));
        // Without the variable (a wrapper-less compile), the spelling `tu<128>` finds neither
        // `tu<(unsigned int)128>` nor the one instance of the template: there are two.
        let plain = text.replace("__chevron_instance", "other");
        let entries = chevron_cuda_rules::ptx::parse_entries(&plain).expect("parses");
        assert_eq!(lowered_name(&plain), None);
        assert_eq!(lowered_name(text), Some("_Z2tuILj128EEvPf"));
        let _ = instance_entry("tu<128>", &entries, &plain);
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
                "-prec-div=true",
                "--pre-include=pre.cuh",
            ]
            .map(String::from)
            .to_vec(),
            include_dirs: vec![PathBuf::from("/abs/inc")],
            pre_includes: vec![PathBuf::from("/abs/pre.cuh")],
            name_expression: Some("f<2>".into()),
            ..CudaSpec::default()
        };
        let extra = nvcc_extra(&spec);
        assert_eq!(
            extra.flags,
            [
                "-D__USE_FAST_MATH__=1",
                "-D__CUDA_FTZ=1",
                "-D__CUDA_PREC_DIV=1",
                "-D__CUDA_PREC_SQRT=0",
                "-DN=128",
                "-std=c++17",
                "--use_fast_math",
                "-UX",
                "-prec-div=true",
                "--pre-include=/abs/pre.cuh",
                "-I/abs/inc"
            ]
        );
        assert_eq!(extra.name_expression.as_deref(), Some("f<2>"));
    }

    #[test]
    fn the_predefined_macros_are_nvrtcs() {
        // NVRTC 13.0's values, read from its PTX of a kernel storing each macro.
        let of = |options: &[&str]| {
            let options: Vec<String> = options.iter().map(|o| o.to_string()).collect();
            predefined_macros(&options)
                .into_iter()
                .map(|(_, v)| u8::from(v))
                .collect::<Vec<_>>()
        };
        assert_eq!(of(&[]), [0, 0, 1, 1]);
        assert_eq!(of(&["--use_fast_math"]), [1, 1, 0, 0]);
        assert_eq!(of(&["--use_fast_math", "-ftz=false"]), [1, 0, 0, 0]);
        assert_eq!(of(&["-ftz=false", "--use_fast_math"]), [1, 0, 0, 0]);
        assert_eq!(of(&["-use_fast_math", "-prec-div=true"]), [1, 1, 1, 0]);
        assert_eq!(of(&["-ftz=true", "-ftz=false"]), [0, 0, 1, 1]);
        assert_eq!(of(&["--ftz=true"]), [0, 1, 1, 1]);
        assert_eq!(of(&["-prec-sqrt=false"]), [0, 0, 1, 0]);
        // A `-D` of the declaration defines it instead.
        let options = vec!["-D__CUDA_FTZ=7".to_string()];
        assert!(predefined_macros(&options)
            .iter()
            .all(|(name, _)| *name != "__CUDA_FTZ"));
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
            source::includes(src),
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
