//! Every rule of `#[kernel]`: the declaration's shape, its parameters as written, and its
//! signature against the PTX file (the count here; whether each type fits is asserted in the
//! expansion, where rustc has resolved it). All problems are reported, not only the first.

use std::path::{Path, PathBuf};

use chevron_cuda_spec::fit::{read_info, InfoText};
use chevron_cuda_spec::ptx::{self, Entry, Expected, Unresolved};
use proc_macro2::Span;
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{FnArg, GenericArgument, Pat, PathArguments, ReturnType, Type};

use super::ast::{
    kernel_name, KernelArgs, KernelDecl, KernelItem, KernelParam, PtxParam, ResolvedSource,
    SourceKind, Wording,
};
use super::source;
use crate::report::Errors;

/// Device buffer types, by the last segment of their path.
const BUFFERS: [&str; 3] = ["CudaSlice", "CudaView", "CudaViewMut"];

/// Checks everything: the declaration, or, when anything is wrong (the errors are in `cx`), the
/// parameters that could be read, for the bounds and PTX assertions of the stub.
pub fn check(
    args: &KernelArgs,
    item: &KernelItem,
    cx: &mut Errors,
) -> Result<KernelDecl, Vec<KernelParam>> {
    check_shape(item, cx);
    let (mut params, params_ok) = check_params(item, cx);
    match check_source(args, item, params_ok, &mut params, cx) {
        Some((resolved, info)) if cx.is_empty() => Ok(KernelDecl {
            attrs: item.attrs.clone(),
            vis: item.vis.clone(),
            ident: item.sig.ident.clone(),
            params,
            source: resolved,
            info,
            no_upstream_reads: args.no_upstream_reads,
            cooperative: args.cooperative,
        }),
        _ => Err(params),
    }
}

/// Reads the kernel's file; for PTX, finds the entry and records each PTX parameter on the
/// declared one in its place (only when every parameter was read: `params_ok`).
fn check_source(
    args: &KernelArgs,
    item: &KernelItem,
    params_ok: bool,
    params: &mut [KernelParam],
    cx: &mut Errors,
) -> Option<(ResolvedSource, Option<InfoText>)> {
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
    if !params_ok {
        return None;
    }
    Some(match source.kind {
        SourceKind::Cuda => {
            let program = super::cuda::cuda_program(args, &abs, &text, &base_dir(), cx);
            let info = nvcc_info(args, item, &rel, &abs, &text, &program, cx);
            let resolved = ResolvedSource::Cuda {
                abs_path,
                // A name expression's entry is its lowered name, known once NVRTC compiled it.
                entry: args
                    .name
                    .as_ref()
                    .map(|n| n.value())
                    .filter(|_| program.name_expression.is_none()),
                program,
            };
            (resolved, info)
        }
        SourceKind::Ptx => {
            if let Some((span, _)) = &args.options {
                cx.error(
                    *span,
                    "`options` are NVRTC's, for a `cuda = \"….cu\"` kernel; PTX is compiled \
                     already: give nvcc the options when making it",
                );
            }
            let entry = check_ptx(args, item, &abs, &text, params, cx)?;
            let info = launch_info(args, item, &rel, &abs, &text, &entry);
            let more = super::variants::check_variants(args, item, &entry, params, resolve, cx)?;
            let mut all = vec![(lit, text.as_str())];
            all.extend(
                source
                    .variants
                    .iter()
                    .zip(more.iter().map(|(_, t)| t.as_str())),
            );
            super::variants::check_isa(&all, crate::launch::keys::selected_cuda(), cx);
            let resolved = ResolvedSource::Ptx {
                abs_path,
                entry,
                variants: more.into_iter().map(|(abs, _)| abs).collect(),
            };
            (resolved, info)
        }
    })
}

/// For a `cuda = "…"` kernel: its launch rules from `nvcc -ptx`, where the build machine has
/// `nvcc` (on `PATH`, or in `$CUDA_PATH/bin`, `/usr/local/cuda/bin`), so that `launch!` checks
/// it at compile time too. `None` (the runtime then reads NVRTC's output before the first
/// launch) when there is no nvcc, it fails, or `CHEVRON_NVCC=0`. The CUDA C's errors are left
/// to NVRTC at run time, as without nvcc: the flags differ, and so could the verdict. An nvcc
/// that runs past its time bound is an error (see `nvcc.rs`). nvcc gets the declaration's
/// `-D`/`-U`/`-std` options, its `-I` directories and its name expression (see
/// [`super::cuda::nvcc_extra`]).
fn nvcc_info(
    args: &KernelArgs,
    item: &KernelItem,
    rel: &str,
    abs: &Path,
    text: &str,
    program: &super::cuda::CudaSpec,
    cx: &mut Errors,
) -> Option<InfoText> {
    let extra = super::cuda::nvcc_extra(program);
    let ptx_text = match super::nvcc::ptx(abs, text, &extra) {
        Ok(ptx) => ptx?,
        Err(message) => {
            let span = args
                .source
                .as_ref()
                .map_or_else(Span::call_site, |s| s.path.span());
            cx.error(span, message);
            return None;
        }
    };
    let entries = ptx::parse_entries(&ptx_text).ok()?;
    let entry = match &program.name_expression {
        Some(expression) => super::cuda::instance_entry(expression, &entries)?,
        None => {
            let wanted = match &args.name {
                Some(n) => n.value(),
                None => kernel_name(&item.sig.ident),
            };
            ptx::resolve_entry(&entries, &wanted, rel).ok()?
        }
    };
    Some(read_info(
        entry,
        &kernel_name(&item.sig.ident),
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
        &kernel_name(&item.sig.ident),
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
        let only_lifetimes = sig
            .generics
            .params
            .iter()
            .all(|p| matches!(p, syn::GenericParam::Lifetime(_)));
        cx.push(syn::Error::new_spanned(
            quote::quote!(#generics),
            if only_lifetimes {
                "a kernel declaration takes no lifetime parameters: a launch borrows its buffers \
                 for the call only; remove them, and write `'_` where a type needs one \
                 (`&CudaView<'_, f32>`)"
            } else {
                "a kernel cannot be generic: each PTX entry is one instance; declare each \
                 template instance as its own kernel with `name = \"…\"` (its mangled name)"
            },
        ));
    }
    for attr in sig.inputs.iter().flat_map(|a| match a {
        FnArg::Typed(t) => &t.attrs,
        FnArg::Receiver(r) => &r.attrs,
    }) {
        if attr.path().is_ident("cfg") || attr.path().is_ident("cfg_attr") {
            cx.push(syn::Error::new_spanned(
                attr,
                "`#[cfg]` cannot be used on a kernel parameter: the declaration is checked \
                 against the PTX entry's parameters as written; declare the kernel once per \
                 configuration, each declaration under its own `#[cfg(…)]`",
            ));
        }
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

/// Reads each parameter's pattern and type: the parameters read, and whether all were. Which
/// types a kernel can take is for rustc to decide (the expansion asserts it); only types no
/// alias can make valid are refused here: slices and `str` by value, `impl Trait`, `dyn Trait`,
/// `_`, `!`.
fn check_params(item: &KernelItem, cx: &mut Errors) -> (Vec<KernelParam>, bool) {
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
        let ty = &*typed.ty;
        let valid = refuse_unsized(ty, cx);
        match ident {
            Some(ident) if valid => out.push(KernelParam {
                ident,
                ty: ty.clone(),
                ty_text: type_text(ty),
                by_ref: matches!(strip(ty), Type::Reference(_)),
                hint: hint(ty),
                wording: wording(ty),
                ptx: Vec::new(),
            }),
            _ => ok = false,
        }
    }
    (out, ok)
}

/// Refuses the types no alias or import can make a kernel parameter, which rustc would reject
/// in the generated signatures with less helpful words; `false` when refused.
fn refuse_unsized(ty: &Type, cx: &mut Errors) -> bool {
    let text = type_text(ty);
    let why = match strip(ty) {
        Type::Slice(s) => host_data(&text, &type_text(&s.elem)),
        Type::Path(p) if p.qself.is_none() && p.path.is_ident("str") => host_data(&text, "u8"),
        Type::ImplTrait(_) | Type::TraitObject(_) | Type::Infer(_) | Type::Never(_) => format!(
            "`{text}` cannot be a kernel parameter: use a number, `bool`, a device buffer \
             (`&CudaSlice<T>`, `&mut CudaSlice<T>`, `&CudaView<'_, T>`, \
             `&mut CudaViewMut<'_, T>`) or a `#[repr(C)]` struct by value"
        ),
        _ => return true,
    };
    cx.push(syn::Error::new_spanned(ty, why));
    false
}

fn host_data(text: &str, elem: &str) -> String {
    format!(
        "`{text}` is host memory, which a kernel cannot access: copy it to the device first \
         (`let x = stream.clone_htod(&data)?;` gives a `CudaSlice<{elem}>`) and declare the \
         parameter as `&CudaSlice<{elem}>`"
    )
}

/// Sees through parentheses and invisible groups (from `macro_rules!` fragments).
fn strip(ty: &Type) -> &Type {
    match ty {
        Type::Group(g) => strip(&g.elem),
        Type::Paren(p) => strip(&p.elem),
        other => other,
    }
}

/// The last segment of a path type, with its generic arguments.
fn last_segment(ty: &Type) -> Option<&syn::PathSegment> {
    match strip(ty) {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last(),
        _ => None,
    }
}

/// The first type argument of a path type's last segment: `T` in `Vec<T>`, `CudaView<'_, T>`.
fn type_arg(ty: &Type) -> Option<&Type> {
    let PathArguments::AngleBracketed(args) = &last_segment(ty)?.arguments else {
        return None;
    };
    args.args.iter().find_map(|a| match a {
        GenericArgument::Type(t) => Some(t),
        _ => None,
    })
}

/// `E` when `ty` is spelled as host data of elements `E`: `[E]`, `Vec<E>`, `Box<[E]>`, `str`,
/// `String` (elements `u8`).
fn host_elem(ty: &Type) -> Option<Type> {
    if let Type::Slice(s) = strip(ty) {
        return Some((*s.elem).clone());
    }
    let seg = last_segment(ty)?;
    match seg.ident.to_string().as_str() {
        "Vec" | "Box" => type_arg(ty).map(|t| match strip(t) {
            Type::Slice(s) => (*s.elem).clone(),
            other => other.clone(),
        }),
        "String" | "str" if seg.arguments.is_none() => {
            Some(syn::parse_quote!(::core::primitive::u8))
        }
        _ => None,
    }
}

/// Which trait words the error of a type that is no kernel parameter (see [`Wording`]).
fn wording(ty: &Type) -> Wording {
    let spelled = match strip(ty) {
        Type::Reference(r) => {
            let write = r.mutability.is_some();
            if let Some(elem) = host_elem(&r.elem) {
                Wording::HostData { elem, write }
            } else if let (true, Some("CudaView"), Some(elem)) = (
                write,
                last_segment(&r.elem)
                    .map(|s| s.ident.to_string())
                    .as_deref(),
                type_arg(&r.elem),
            ) {
                Wording::ReadOnlyView { elem: elem.clone() }
            } else {
                Wording::HostRef {
                    referent: (*r.elem).clone(),
                    write,
                }
            }
        }
        Type::Path(_) => match last_segment(ty).map(|s| s.ident.to_string()).as_deref() {
            Some(b) if BUFFERS.contains(&b) => Wording::BufferByValue,
            _ => match host_elem(ty) {
                Some(elem) => Wording::HostData { elem, write: false },
                None => Wording::Value,
            },
        },
        Type::Array(_) | Type::Tuple(_) | Type::FnPtr(_) => Wording::Value,
        Type::Ptr(_) => Wording::RawPointer,
        _ => Wording::Any,
    };
    // A hint type is written a second time in the expansion, where `_` would be inferred
    // (ambiguously) instead of reported once at the parameter.
    let infers = |t: &Type| t.to_token_stream().into_iter().any(|tt| is_underscore(&tt));
    match &spelled {
        Wording::HostData { elem: t, .. }
        | Wording::ReadOnlyView { elem: t }
        | Wording::HostRef { referent: t, .. }
            if infers(t) =>
        {
            Wording::Any
        }
        _ => spelled,
    }
}

fn is_underscore(tt: &proc_macro2::TokenTree) -> bool {
    match tt {
        proc_macro2::TokenTree::Ident(i) => i == "_",
        proc_macro2::TokenTree::Punct(p) => p.as_char() == '_',
        proc_macro2::TokenTree::Group(g) => g.stream().into_iter().any(|t| is_underscore(&t)),
        proc_macro2::TokenTree::Literal(_) => false,
    }
}

/// What the spelling says, where it names a primitive (`u32`, `std::primitive::f32`) or a device
/// buffer (`&CudaSlice<T>`): only to guess which PTX parameters a shorter declaration left out.
fn hint(ty: &Type) -> Option<Expected> {
    match strip(ty) {
        Type::Path(p) if p.qself.is_none() => {
            let segs: Vec<String> = p
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect();
            let name = match segs.as_slice() {
                [name] if p.path.leading_colon.is_none() => name,
                [root, primitive, name]
                    if (root == "std" || root == "core") && primitive == "primitive" =>
                {
                    name
                }
                _ => return None,
            };
            Some(match name.as_str() {
                "u8" | "i8" => Expected::Int(8),
                "u16" | "i16" => Expected::Int(16),
                "u32" | "i32" => Expected::Int(32),
                "u64" | "i64" | "usize" | "isize" => Expected::Int(64),
                "f32" => Expected::Float(32),
                "f64" => Expected::Float(64),
                "bool" => Expected::Bool,
                _ => return None,
            })
        }
        Type::Reference(r) => last_segment(&r.elem)
            .filter(|s| BUFFERS.contains(&s.ident.to_string().as_str()))
            .map(|_| Expected::Pointer),
        _ => None,
    }
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
        None => (kernel_name(&item.sig.ident), item.sig.ident.span()),
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
    // Whether each type fits is asserted in the expansion, where rustc has resolved it.
    for (param, ptx_param) in params.iter_mut().zip(&entry.params) {
        let same = |q: &PtxParam| q.ty == ptx_param.ty && q.array_len == ptx_param.array_len;
        if param.ptx.iter().any(same) {
            // A variant of `ptx = [...]` with the same parameter: asserted once.
            continue;
        }
        param.ptx.push(PtxParam {
            ty: ptx_param.ty,
            array_len: ptx_param.array_len,
            suffix: format!(
                ", but the kernel takes {} here ({rel}:{}: `{}`); declare it as {}",
                ptx_param.describe(),
                ptx_param.line,
                ptx_param.text,
                ptx_param.suggest()
            ),
        });
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
        // By the spelling: a type the macro cannot read (an alias) may be anything.
        let fits = params.get(i).is_some_and(|q| {
            q.hint
                .is_none_or(|e| chevron_cuda_spec::param::fits(e, p.ty, p.array_len))
        });
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
    if text.starts_with('\u{FEFF}') {
        // PTX behind a byte order mark: the reader's error names the mark.
        return None;
    }
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
