//! Every rule of `#[kernel]`: the declaration's shape, its parameter types, and its signature
//! against the PTX file. All problems are reported, not only the first.

use std::path::{Path, PathBuf};

use chevron_cuda_spec::fit::{read_info, InfoText};
use chevron_cuda_spec::ptx::{self, Entry, Expected, Unresolved};
use proc_macro2::Span;
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{FnArg, GenericArgument, Pat, PathArguments, ReturnType, Type};

use super::ast::{
    KernelArgs, KernelDecl, KernelItem, KernelParam, ParamKind, ResolvedSource, SizeAssert,
    SourceKind,
};
use super::source;
use crate::report::Errors;

/// Device buffer types, by the last segment of their path.
const BUFFERS: [&str; 3] = ["CudaSlice", "CudaView", "CudaViewMut"];

/// Checks everything; `None` when anything is wrong (the errors are in `cx`).
pub fn check(args: &KernelArgs, item: &KernelItem, cx: &mut Errors) -> Option<KernelDecl> {
    check_shape(item, cx);
    let params = check_params(item, cx);
    let source = args.source.as_ref().or_else(|| {
        if args.invalid {
            // The source was written but not understood: that error is already reported.
            return None;
        }
        cx.error(
            args.span.unwrap_or_else(Span::call_site),
            "`#[kernel]` needs the kernel's code: `#[kernel(ptx = \"kernels/saxpy.ptx\")]` for \
             PTX from `nvcc -ptx`, or `#[kernel(cuda = \"kernels/saxpy.cu\")]` for CUDA C \
             compiled by NVRTC at run time (paths are relative to the crate root)",
        );
        None
    })?;
    let lit = &source.path;
    let rel = lit.value();
    if rel.is_empty() {
        // Reported by the parser; the crate root itself is no file to read.
        return None;
    }
    let abs = resolve(&rel);
    let text = match source::read_source(&abs) {
        Ok(text) => text,
        Err(e @ source::ReadError::Io(_)) => {
            cx.error(
                lit.span(),
                format!(
                    "cannot read `{rel}` (looked for {}): {e}; paths are relative to the crate \
                     root, the directory of its Cargo.toml",
                    abs.display()
                ),
            );
            return None;
        }
        Err(e) => {
            let what = match source.kind {
                SourceKind::Ptx => "a `.ptx` file",
                SourceKind::Cuda => "a `.cu` file",
            };
            let looked = if Path::new(&rel).is_absolute() {
                String::new()
            } else {
                format!(" (looked for {})", abs.display())
            };
            cx.error(
                lit.span(),
                format!("cannot use `{rel}`{looked}: {e}; give the path of {what}"),
            );
            return None;
        }
    };
    let abs_path = abs.to_string_lossy().into_owned();
    let mut params = params?;
    let info;
    let resolved = match source.kind {
        SourceKind::Cuda => {
            info = nvcc_info(args, item, &rel, &abs, &text);
            let program = super::cuda::cuda_program(args, &abs, &text, &base_dir(), cx);
            ResolvedSource::Cuda {
                abs_path,
                // A name expression's entry is its lowered name, known once NVRTC compiled it.
                entry: args
                    .name
                    .as_ref()
                    .map(|n| n.value())
                    .filter(|_| program.name_expression.is_none()),
                program,
            }
        }
        SourceKind::Ptx => {
            if let Some((span, _)) = &args.options {
                cx.error(
                    *span,
                    "`options` are NVRTC's, for a `cuda = \"….cu\"` kernel; PTX is compiled \
                     already: give nvcc the options when making it",
                );
            }
            let entry = check_ptx(args, item, &abs, &text, &mut params, cx)?;
            info = launch_info(args, item, &rel, &abs, &text, &entry);
            let more =
                super::variants::check_variants(args, item, &entry, &mut params, resolve, cx)?;
            let mut all = vec![(lit, text.as_str())];
            all.extend(
                source
                    .variants
                    .iter()
                    .zip(more.iter().map(|(_, t)| t.as_str())),
            );
            super::variants::check_isa(&all, crate::launch::keys::selected_cuda(), cx);
            ResolvedSource::Ptx {
                abs_path,
                entry,
                variants: more.into_iter().map(|(abs, _)| abs).collect(),
            }
        }
    };
    if !cx.is_empty() {
        return None;
    }
    Some(KernelDecl {
        attrs: item.attrs.clone(),
        vis: item.vis.clone(),
        ident: item.sig.ident.clone(),
        params,
        source: resolved,
        info,
        no_upstream_reads: args.no_upstream_reads,
        cooperative: args.cooperative,
    })
}

/// For a `cuda = "…"` kernel: its launch rules from `nvcc -ptx`, where the build machine has
/// `nvcc` (on `PATH`, or in `$CUDA_PATH/bin`, `/usr/local/cuda/bin`), so that `launch!` checks
/// it at compile time too. `None` (the runtime then reads NVRTC's output before the first
/// launch) when there is no nvcc, it fails, or `CHEVRON_NVCC=0`. The CUDA C's errors are left
/// to NVRTC at run time, as without nvcc: the flags differ, and so could the verdict.
fn nvcc_info(
    args: &KernelArgs,
    item: &KernelItem,
    rel: &str,
    abs: &Path,
    text: &str,
) -> Option<InfoText> {
    let ptx_text = source::nvcc_ptx(abs, text)?;
    let entries = ptx::parse_entries(&ptx_text).ok()?;
    let wanted = match &args.name {
        Some(n) => n.value(),
        None => item.sig.ident.to_string(),
    };
    let entry = ptx::resolve_entry(&entries, &wanted, rel).ok()?;
    Some(read_info(
        entry,
        &item.sig.ident.to_string(),
        &format!("nvcc's PTX of {rel}"),
        args.no_upstream_reads,
        args.cooperative,
    ))
}

/// What the checked entry's PTX fixes about its launches, for `launch!`'s checks and the
/// runtime's (`rel` is how messages name the file).
fn launch_info(
    args: &KernelArgs,
    item: &KernelItem,
    rel: &str,
    abs: &Path,
    text: &str,
    entry: &str,
) -> Option<InfoText> {
    // Parsed once per file: this reads the cache `check_ptx` filled.
    let parsed = source::parse_ptx(abs, text);
    let found = parsed
        .as_ref()
        .as_ref()
        .ok()?
        .iter()
        .find(|e| e.name == entry)?;
    Some(read_info(
        found,
        &item.sig.ident.to_string(),
        rel,
        args.no_upstream_reads,
        args.cooperative,
    ))
}

/// The directory paths are relative to: the crate root (`CARGO_MANIFEST_DIR`).
///
/// `CHEVRON_MANIFEST_DIR` overrides it. The workspace sets it (`.cargo/config.toml`) for its ui
/// tests: trybuild compiles them as a generated crate under `target/tests/trybuild/`, whose
/// `CARGO_MANIFEST_DIR` does not hold the fixtures.
fn base_dir() -> PathBuf {
    std::env::var_os("CHEVRON_MANIFEST_DIR")
        .filter(|d| !d.is_empty())
        .or_else(|| std::env::var_os("CARGO_MANIFEST_DIR"))
        .map(PathBuf::from)
        .unwrap_or_default()
}

fn resolve(rel: &str) -> PathBuf {
    let path = Path::new(rel);
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        base_dir().join(path)
    };
    // A canonical path keys the module shared by declarations naming the same file.
    joined.canonicalize().unwrap_or(joined)
}

/// Rejects what a declaration cannot have: a body, generics, `async`, `const`, an ABI, `self`,
/// variadics, a return type.
fn check_shape(item: &KernelItem, cx: &mut Errors) {
    let sig = &item.sig;
    for attr in item.attrs.iter().filter(|a| is_function_only(a)) {
        let name = attr.path().to_token_stream().to_string();
        let why = match name.as_str() {
            "test" | "bench" | "ignore" | "should_panic" => format!(
                "`#[{name}]` cannot be used on a `#[kernel]` declaration: it declares a kernel, \
                 not a test; write the test as its own function that launches `{}`",
                sig.ident
            ),
            _ => format!(
                "`#[{name}]` cannot be used on a `#[kernel]` declaration: it expands to a \
                 type (`{k}::launch`, `{k}::function`), not a function{also}; remove it",
                k = sig.ident,
                also = if name == "inline" {
                    ", and `launch` is inlined already"
                } else {
                    ""
                }
            ),
        };
        cx.push(syn::Error::new_spanned(attr, why));
    }
    if let Some(body) = item.body {
        cx.error(
            body,
            "a `#[kernel]` declaration has no body: the kernel's code is in its PTX or CUDA file; \
             replace `{ … }` with `;`",
        );
    }
    if sig.generics.lt_token.is_some() || sig.generics.where_clause.is_some() {
        let generics = &sig.generics;
        cx.push(syn::Error::new_spanned(
            quote::quote!(#generics),
            "a kernel cannot be generic: each PTX entry is one instance; declare each template \
             instance as its own kernel with `name = \"…\"` (its mangled name)",
        ));
    }
    if let Some(token) = &sig.asyncness {
        cx.error(
            token.span,
            "a kernel cannot be `async`: a launch is enqueued on a stream and returns at once; \
             remove `async`",
        );
    }
    if let Some(token) = &sig.constness {
        cx.error(token.span, "a kernel cannot be `const`; remove `const`");
    }
    if let Some(abi) = &sig.abi {
        cx.error(
            abi.span(),
            "a `#[kernel]` declaration takes no ABI: the launch goes through the CUDA driver; \
             remove it",
        );
    }
    if let Some(variadic) = &sig.variadic {
        cx.push(syn::Error::new_spanned(
            variadic,
            "a kernel cannot be variadic: the PTX entry has a fixed parameter list; declare \
             each parameter",
        ));
    }
    if let ReturnType::Type(..) = &sig.output {
        cx.push(syn::Error::new_spanned(
            &sig.output,
            "a kernel returns nothing (`void` in CUDA): write results into a `&mut CudaSlice<T>` \
             parameter and copy them back with `stream.clone_dtoh(&out)?`; remove the return type",
        ));
    }
}

/// Built-in attributes that apply to functions only: on the generated type rustc would reject
/// them (or give them another meaning, as `#[must_use]`), so `check_shape` reports them at the
/// declaration and the expansion drops them.
const FUNCTION_ONLY: [&str; 14] = [
    "inline",
    "cold",
    "track_caller",
    "must_use",
    "test",
    "bench",
    "ignore",
    "should_panic",
    "no_mangle",
    "export_name",
    "link_section",
    "target_feature",
    "naked",
    "instruction_set",
];

/// Whether `attr` is one of [`FUNCTION_ONLY`].
pub fn is_function_only(attr: &syn::Attribute) -> bool {
    attr.path()
        .get_ident()
        .is_some_and(|i| FUNCTION_ONLY.iter().any(|f| i == f))
}

/// Checks each parameter's pattern and type. `None` if any is wrong.
fn check_params(item: &KernelItem, cx: &mut Errors) -> Option<Vec<KernelParam>> {
    let mut out = Vec::new();
    let mut ok = true;
    for arg in &item.sig.inputs {
        let typed = match arg {
            FnArg::Receiver(r) => {
                cx.push(syn::Error::new_spanned(
                    r,
                    "a kernel has no `self`: `#[kernel]` declares a free function; remove `self`",
                ));
                ok = false;
                continue;
            }
            FnArg::Typed(t) => t,
        };
        let ident = match &*typed.pat {
            Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => Some(p.ident.clone()),
            other => {
                cx.push(syn::Error::new_spanned(
                    other,
                    "a kernel parameter needs a plain name, like `n: u32`; patterns cannot be \
                     used here",
                ));
                None
            }
        };
        let kind = classify(&typed.ty, cx);
        match (ident, kind) {
            (Some(ident), Some(kind)) => out.push(KernelParam {
                ident,
                ty: (*typed.ty).clone(),
                kind,
                ty_text: type_text(&typed.ty),
                size: None,
            }),
            _ => ok = false,
        }
    }
    ok.then_some(out)
}

/// What the type of a parameter is, or an error saying what to write instead.
fn classify(ty: &Type, cx: &mut Errors) -> Option<ParamKind> {
    let text = type_text(ty);
    let fail = |cx: &mut Errors, msg: String| {
        cx.push(syn::Error::new_spanned(ty, msg));
        None
    };
    match ty {
        Type::Group(g) => classify(&g.elem, cx),
        Type::Paren(p) => classify(&p.elem, cx),
        Type::Path(p) if p.qself.is_none() => {
            if let Some(kind) = p.path.get_ident().and_then(|i| primitive(&i.to_string())) {
                return Some(kind);
            }
            let last = p.path.segments.last().map(|s| s.ident.to_string());
            match last.as_deref() {
                Some(b) if BUFFERS.contains(&b) => fail(
                    cx,
                    format!(
                        "a `{b}` is passed by reference: write `&{text}` for a buffer the kernel \
                         reads{}",
                        if b == "CudaView" {
                            String::new()
                        } else {
                            format!(", `&mut {text}` for one it writes")
                        }
                    ),
                ),
                Some("Vec" | "String" | "Box") => fail(cx, host_data(&text, elem_of(ty), false)),
                _ => Some(ParamKind::Value),
            }
        }
        Type::Reference(r) => {
            let mutable = r.mutability.is_some();
            let buffer = buffer_name(&r.elem);
            match (buffer.as_deref(), mutable) {
                (Some("CudaSlice" | "CudaView" | "CudaViewMut"), false) => {
                    Some(ParamKind::BufferRead)
                }
                (Some("CudaSlice" | "CudaViewMut"), true) => Some(ParamKind::BufferWrite),
                (Some(_), true) => fail(
                    cx,
                    format!(
                        "a `CudaView` is read-only: write `&{}` for a buffer the kernel reads, or \
                         take a `&mut CudaViewMut<'_, T>` (from `slice_mut`) for one it writes",
                        type_text(&r.elem)
                    ),
                ),
                _ => {
                    let elem = match &*r.elem {
                        Type::Slice(s) => Some((*s.elem).clone()),
                        Type::Path(_) => elem_of(&r.elem),
                        _ => None,
                    };
                    let host_seq = matches!(&*r.elem, Type::Slice(_))
                        || matches!(
                            buffer_like_host(&r.elem).as_deref(),
                            Some("Vec" | "Box" | "String")
                        )
                        || matches!(&*r.elem, Type::Path(p) if p.path.is_ident("str"));
                    if host_seq {
                        fail(cx, host_data(&text, elem, mutable))
                    } else if mutable {
                        fail(
                            cx,
                            format!(
                                "`{text}` points to host memory, which a kernel cannot write: \
                                 declare a `&mut CudaSlice<T>` for the kernel's output and copy \
                                 it back with `stream.clone_dtoh(&out)?`"
                            ),
                        )
                    } else {
                        fail(
                            cx,
                            format!(
                                "`{text}` points to host memory, which a kernel cannot read: \
                                 pass the value itself (`{}`), or copy an array to the device \
                                 with `stream.clone_htod(&data)?` and declare a `&CudaSlice<T>`",
                                type_text(&r.elem)
                            ),
                        )
                    }
                }
            }
        }
        Type::Slice(s) => fail(cx, host_data(&text, Some((*s.elem).clone()), false)),
        // cudarc implements `DeviceRepr` for arrays: they pass by value like a struct.
        Type::Array(_) => Some(ParamKind::Value),
        Type::Ptr(_) => fail(
            cx,
            format!(
                "`{text}` is a raw pointer: a kernel takes device buffers as `&CudaSlice<T>` / \
                 `&mut CudaSlice<T>` (which keep cudarc's stream ordering), or a raw device \
                 address as `u64`"
            ),
        ),
        _ => fail(
            cx,
            format!(
                "`{text}` cannot be a kernel parameter: use a number, `bool`, a device buffer \
                 (`&CudaSlice<T>`, `&mut CudaSlice<T>`, `&CudaView<'_, T>`, \
                 `&mut CudaViewMut<'_, T>`) or a `#[repr(C)]` struct by value"
            ),
        ),
    }
}

fn primitive(name: &str) -> Option<ParamKind> {
    Some(match name {
        "u8" | "i8" => ParamKind::Int(8),
        "u16" | "i16" => ParamKind::Int(16),
        "u32" | "i32" => ParamKind::Int(32),
        // CUDA runs on 64-bit hosts only.
        "u64" | "i64" | "usize" | "isize" => ParamKind::Int(64),
        "f32" => ParamKind::Float(32),
        "f64" => ParamKind::Float(64),
        "bool" => ParamKind::Bool,
        _ => return None,
    })
}

/// `CudaSlice` for `CudaSlice<T>` or `cudarc::driver::CudaSlice<T>`.
fn buffer_name(ty: &Type) -> Option<String> {
    buffer_like_host(ty).filter(|n| BUFFERS.contains(&n.as_str()))
}

/// The last path segment of a path type.
fn buffer_like_host(ty: &Type) -> Option<String> {
    match ty {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last().map(|s| s.ident.to_string()),
        Type::Group(g) => buffer_like_host(&g.elem),
        Type::Paren(p) => buffer_like_host(&p.elem),
        _ => None,
    }
}

/// `T` in `Vec<T>` / `Box<[T]>`.
fn elem_of(ty: &Type) -> Option<Type> {
    let Type::Path(p) = ty else { return None };
    let seg = p.path.segments.last()?;
    let PathArguments::AngleBracketed(args) = &seg.arguments else {
        return None;
    };
    args.args.iter().find_map(|a| match a {
        GenericArgument::Type(Type::Slice(s)) => Some((*s.elem).clone()),
        GenericArgument::Type(t) => Some(t.clone()),
        _ => None,
    })
}

fn host_data(text: &str, elem: Option<Type>, mutable: bool) -> String {
    let t = elem.map_or("T".to_string(), |t| type_text(&t));
    let declare = if mutable {
        format!(
            "declare the parameter as `&mut CudaSlice<{t}>`, and copy results back with \
             `stream.clone_dtoh(&x)?`"
        )
    } else {
        format!("declare the parameter as `&CudaSlice<{t}>`")
    };
    format!(
        "`{text}` is host memory, which a kernel cannot access: copy it to the device first \
         (`let x = stream.clone_htod(&data)?;` gives a `CudaSlice<{t}>`) and {declare}"
    )
}

/// The type as a user would write it: `&mut CudaSlice<f32>`, not `& mut CudaSlice < f32 >`.
pub fn type_text(ty: &Type) -> String {
    let mut s = ty.to_token_stream().to_string();
    for (from, to) in [
        (" < ", "<"),
        ("< ", "<"),
        (" <", "<"),
        (" >", ">"),
        ("& ", "&"),
        (" :: ", "::"),
        (":: ", "::"),
        (" ,", ","),
        ("[ ", "["),
        (" ]", "]"),
        (" ;", ";"),
        ("( ", "("),
        (" )", ")"),
        ("* ", "*"),
    ] {
        while s.contains(from) {
            s = s.replace(from, to);
        }
    }
    s
}

/// The PTX side: finds the entry and checks every parameter against it. Returns the entry's
/// symbol.
pub(super) fn check_ptx(
    args: &KernelArgs,
    item: &KernelItem,
    abs: &Path,
    text: &str,
    params: &mut [KernelParam],
    cx: &mut Errors,
) -> Option<String> {
    let source = args.source.as_ref()?;
    let (lit, rel) = (&source.path, source.path.value());
    if let Some(why) = not_ptx(&rel, text) {
        cx.error(lit.span(), why);
        return None;
    }
    let parsed = source::parse_ptx(abs, text);
    let entries = match &*parsed {
        Ok(entries) => entries,
        Err(e) => {
            cx.error(lit.span(), format!("cannot read the PTX in `{rel}`: {e}"));
            return None;
        }
    };
    let (wanted, name_span) = match &args.name {
        Some(n) => (n.value(), n.span()),
        None => (item.sig.ident.to_string(), item.sig.ident.span()),
    };
    let entry: &Entry = match ptx::resolve_entry(entries, &wanted, &format!("`{rel}`")) {
        Ok(e) => e,
        Err(Unresolved::Ambiguous(message)) => {
            cx.error(name_span, message);
            return None;
        }
        Err(Unresolved::Missing(message)) => {
            let fix = if args.name.is_some() {
                "use one of these names"
            } else {
                "rename the function, or give the symbol with `name = \"…\"`"
            };
            cx.error(name_span, format!("{message}; {fix}"));
            return None;
        }
    };
    let decl = &item.sig.ident;
    let n = (params.len(), entry.params.len());
    if n.0 != n.1 {
        let summary = format!(
            "the PTX entry `{}` ({rel}:{}) has {}",
            entry.name,
            entry.line,
            count(n.1, "parameter")
        );
        let ptx_text = |p: &ptx::Param| format!("`{}`", p.text.trim_end_matches(','));
        if n.0 < n.1 {
            let missing = match align(params, &entry.params) {
                Some(gaps) => ptx::capped_list(
                    gaps.into_iter().map(|(j, after)| {
                        let p = &entry.params[j];
                        let place =
                            match (after.checked_sub(1).map(|k| &params[k]), params.get(after)) {
                                (None, Some(next)) => format!(", before `{}`", next.ident),
                                (Some(prev), None) => format!(", after `{}`", prev.ident),
                                (Some(prev), Some(next)) => {
                                    format!(", between `{}` and `{}`", prev.ident, next.ident)
                                }
                                (None, None) => String::new(),
                            };
                        format!("{} ({}{place})", ptx_text(p), p.describe())
                    }),
                    MISSING_CAP,
                ),
                None => ptx::capped_list(
                    entry.params[n.0..]
                        .iter()
                        .map(|p| format!("{} ({})", ptx_text(p), p.describe())),
                    MISSING_CAP,
                ),
            };
            cx.error(
                decl.span(),
                format!(
                    "`{decl}` declares {}, but {summary}; missing: {missing}",
                    count(n.0, "parameter")
                ),
            );
        } else {
            let extra = item.sig.inputs.iter().nth(n.1);
            let ptx_list = ptx::capped_list(entry.params.iter().map(ptx_text), MISSING_CAP);
            cx.push(syn::Error::new_spanned(
                quote::quote!(#extra),
                format!(
                    "`{decl}` declares {}, but {summary}{}; remove the extra one{}",
                    count(n.0, "parameter"),
                    if n.1 == 0 {
                        String::new()
                    } else {
                        format!(": {ptx_list}")
                    },
                    if n.0 - n.1 == 1 { "" } else { "s" }
                ),
            ));
        }
        return None;
    }
    let typed = super::ast::typed_inputs(&item.sig);
    for ((param, ptx_param), written) in params.iter_mut().zip(&entry.params).zip(typed) {
        let expected = expected(param.kind);
        let at = format!("{rel}:{}: `{}`", ptx_param.line, ptx_param.text);
        match ptx::check_param(expected, ptx_param) {
            Ok(Some(bytes)) => {
                param.size = Some(SizeAssert {
                    bytes,
                    ptx_param: at,
                })
            }
            Ok(None) => {}
            Err(why) => cx.push(syn::Error::new_spanned(
                written,
                format!(
                    "`{}: {}` is {why} ({at}); declare it as {}",
                    param.ident,
                    param.ty_text,
                    ptx_param.suggest()
                ),
            )),
        }
    }
    Some(entry.name.clone())
}

/// How many PTX parameters a message lists before "and N more".
const MISSING_CAP: usize = 8;

/// "1 parameter", "3 parameters".
fn count(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

/// Which PTX parameters a declaration with fewer parameters left out: each declared parameter
/// takes the first PTX parameter, in order, that it fits, as long as the rest still have room.
/// `(index of the PTX parameter, how many declared parameters come before it)` per gap, or
/// `None` when the declared types do not line up with any such choice.
fn align(params: &[KernelParam], ptx: &[ptx::Param]) -> Option<Vec<(usize, usize)>> {
    let mut gaps = Vec::new();
    let mut i = 0;
    for (j, p) in ptx.iter().enumerate() {
        let must_take = ptx.len() - j == params.len() - i;
        let fits = params
            .get(i)
            .is_some_and(|q| ptx::check_param(expected(q.kind), p).is_ok());
        if fits {
            i += 1;
        } else if must_take {
            return None;
        } else {
            gaps.push((j, i));
        }
    }
    (i == params.len()).then_some(gaps)
}

/// Why a file given as `ptx = "…"` is not PTX, if it plainly is not: CUDA C, or text without
/// the `.version` directive every PTX module begins with.
fn not_ptx(rel: &str, text: &str) -> Option<String> {
    if text.contains('\0') {
        return Some(format!("`{rel}` contains a NUL byte: it is not PTX text"));
    }
    let has_version = text
        .split(['\n', '\r'])
        .any(|l| l.trim_start().starts_with(".version"));
    if has_version {
        return None;
    }
    let ext = Path::new(rel)
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("");
    let cuda_ext = ["cu", "cuh", "cpp", "cc", "cxx", "c", "h", "hpp"].contains(&ext);
    if cuda_ext || text.contains("__global__") {
        let stem = Path::new(rel).with_extension("ptx");
        return Some(format!(
            "`{rel}` is CUDA C, not PTX: write `cuda = \"{rel}\"` to compile it with NVRTC at \
             run time, or compile it with `nvcc -ptx -arch=sm_90 {rel} -o {}` and give the \
             `.ptx` file",
            stem.display()
        ));
    }
    Some(format!(
        "`{rel}` is not PTX: it has no `.version` directive (PTX from `nvcc -ptx` begins \
         with `.version` and `.target`)"
    ))
}

/// What a parameter needs from the PTX (sizes of by-value types are unknown here).
pub fn expected(kind: ParamKind) -> Expected {
    match kind {
        ParamKind::Int(bits) => Expected::Int(bits),
        ParamKind::Float(bits) => Expected::Float(bits),
        ParamKind::Bool => Expected::Bool,
        ParamKind::BufferRead | ParamKind::BufferWrite => Expected::Pointer,
        ParamKind::Value => Expected::Value(None),
    }
}
