//! `#[kernels(ptx = "…")] mod m {}`: every kernel of a PTX file (or of a `.cu` file, through
//! the compile-time nvcc) declared at once, each exactly as a hand-written `#[kernel]`
//! declaration of it would be, so that `launch!(m::k<<<…>>>(…))` is typed and checked the same.
//!
//! The module's body may hold hand declarations (`fn k(a: &CudaSlice<f32>, n: u32);`, with an
//! optional `#[kernel(name = "…")]`): each declares its entry instead of the generated one, for
//! an `extern "C"` kernel (whose PTX has only widths), or to choose a parameter's access or
//! type. Names follow [`naming`]; parameter types [`types`]; what cannot be typed without the
//! user is an error with its fix, never an untyped item.

mod cpp;
mod naming;
#[cfg(test)]
mod tests;
mod types;

use std::path::Path;

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::{Item, LitStr, Token};

use chevron_cuda_rules::ptx::{self, Entry};

use crate::kernel;
use crate::kernel::ast::{KernelArgs, KernelItem, SourceArg, SourceKind};
use crate::report::{self, Errors};
use types::{map_param, Mapped, UserType};

const KEYS: &str = "`ptx = \"….ptx\"`, `cuda = \"….cu\"`, `only = [\"…\", …]`, \
                    `skip = [\"…\", …]`, `types(\"C++ type\" = RustType, …)`, \
                    `options = [\"-std=c++17\", …]` or `crate = \"path::to::chevron\"`";

/// The attribute's arguments.
#[derive(Default)]
struct Args {
    source: Option<SourceArg>,
    only: Option<Vec<LitStr>>,
    skip: Vec<LitStr>,
    types: Vec<UserType>,
    options: Option<(Span, Vec<LitStr>)>,
    krate: Option<syn::Path>,
    /// The generated items' visibility: the module's, seen from inside it.
    vis: TokenStream,
}

/// Expands `#[kernels(...)]` on `item`.
pub fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let module: syn::ItemMod = match syn::parse2(item.clone()) {
        Ok(m) => m,
        Err(_) => {
            let mut out = syn::Error::new(
                Span::call_site(),
                "`#[kernels]` goes on a module, which it fills with the file's kernels: \
                 `#[kernels(ptx = \"kernels/llmc.ptx\")] mod llmc {}`",
            )
            .to_compile_error();
            out.extend(item);
            return out;
        }
    };
    let mut cx = Errors::default();
    let mut args = parse_args(args, &mut cx);
    args.vis = inner_visibility(&module.vis);
    let krate = match &args.krate {
        Some(path) => quote::ToTokens::to_token_stream(path),
        None => crate::krate::from_manifest(),
    };
    crate::krate::scope(krate, || expand_module(&args, module, cx))
}

fn expand_module(args: &Args, module: syn::ItemMod, mut cx: Errors) -> TokenStream {
    let syn::ItemMod {
        attrs,
        vis,
        ident,
        content,
        ..
    } = module;
    let Some((_, items)) = content else {
        cx.error(
            ident.span(),
            format!(
                "`#[kernels]` needs the module's body, which it fills: write `mod {ident} {{}}`, \
                 not `mod {ident};`"
            ),
        );
        return report::into_tokens(cx.propagate().map(|()| TokenStream::new()));
    };
    let Some(source) = &args.source else {
        cx.error(
            Span::call_site(),
            "`#[kernels]` needs the kernels' file: `#[kernels(ptx = \"kernels/llmc.ptx\")]` \
             for PTX from `nvcc -ptx`, or `#[kernels(cuda = \"kernels/llmc.cu\")]` for CUDA C \
             (listed by the compile-time nvcc, compiled by NVRTC at run time)",
        );
        let out = report::into_tokens(cx.propagate().map(|()| TokenStream::new()));
        return quote!(#(#attrs)* #vis mod #ident { #out #(#items)* });
    };
    let parsed_file = read_entries(args, source, &mut cx);
    let entries: Option<&[Entry]> = parsed_file
        .as_deref()
        .and_then(|parsed| parsed.as_deref().ok());
    let mut body = TokenStream::new();
    // The file embedded once for the module, for the generated kernels and those declared in
    // its body: an `include_bytes!` per kernel costs rustc a read and a hash of the whole file
    // each (`scripts/ptx_scale_bench.sh`). A static, not a `const`: rustc writes a constant's
    // value into the crate's metadata (60 ms for an 8 MB file), and a static's it does not.
    let p = crate::krate::private();
    let rel = source.path.value();
    let abs = kernel::resolve(&rel).to_string_lossy().into_owned();
    if entries.is_some() {
        kernel::source::first_embedding(Path::new(&abs));
        let abs_lit = LitStr::new(&abs, Span::call_site());
        body.extend(quote! {
            #[doc(hidden)]
            #[allow(dead_code)]
            static __CHEVRON_KERNELS_TEXT: &str = #p::embedded_text(#p::include_bytes!(#abs_lit));
        });
    }
    let shared = "self::__CHEVRON_KERNELS_TEXT".to_string();
    let mut hand_entries: Vec<String> = Vec::new();
    let mut hand_names: Vec<(String, Span)> = Vec::new();
    // Hand declarations first: each takes its entry's place.
    for item in items {
        let Some((decl_args, parsed)) = hand_declaration(&item, source, &mut cx) else {
            quote::ToTokens::to_tokens(&item, &mut body);
            continue;
        };
        let wanted = decl_args.name.as_ref().map_or_else(
            || kernel::ast::kernel_name(&parsed.sig.ident),
            LitStr::value,
        );
        hand_names.push((parsed.sig.ident.to_string(), parsed.sig.ident.span()));
        let expand = || kernel::expand_declaration(&decl_args, &parsed);
        let (tokens, entry) = if entries.is_some() {
            kernel::with_shared_text(abs.clone(), shared.clone(), expand)
        } else {
            expand()
        };
        body.extend(tokens);
        let found = entry.or_else(|| {
            ptx::resolve_entry(entries?, &wanted, "")
                .ok()
                .map(|e| e.name.clone())
        });
        hand_entries.extend(found);
    }
    let Some(entries) = entries else {
        return finish(attrs, vis, ident, body, cx, "");
    };
    // Named over the whole file: which entries `only`, `skip` and the body's declarations
    // leave out never renames the others.
    let names = naming::rust_names(&entries.iter().collect::<Vec<_>>());
    let chosen: Vec<(&Entry, &String)> = select(args, entries, &hand_entries, &mut cx)
        .into_iter()
        .map(|k| (&entries[k], &names[k]))
        .collect();
    for (ident, span) in &hand_names {
        if let Some((entry, _)) = chosen.iter().find(|(_, name)| *name == ident) {
            cx.error(
                *span,
                format!(
                    "`{ident}` is also the name `#[kernels]` gives `{}`; rename this \
                     declaration, or leave that kernel out with `skip = [\"{}\"]`",
                    entry.display_name(),
                    entry.name
                ),
            );
        }
    }
    let mut listing = String::new();
    let generated = kernel::with_shared_text(abs, shared, || {
        generate(args, source, &chosen, &p, &mut cx, &mut listing)
    });
    body.extend(generated);

    for t in args.types.iter().filter(|t| !t.used.get()) {
        cx.error(
            t.cpp.span(),
            format!(
                "no parameter of a kernel in `{rel}` has the C++ type `{}`: give the type as \
                 the kernel's signature spells it (without `const` or `*`)",
                t.cpp.value()
            ),
        );
    }
    let listing = if listing.is_empty() {
        String::new()
    } else {
        format!(
            "\n\n Declared by `#[kernels]` from `{rel}`:\n\n | Rust | C++ | PTX |\n |---|---|---|{listing}"
        )
    };
    finish(attrs, vis, ident, body, cx, &listing)
}

/// The expansion of each chosen entry, as `#[kernel]` gives it, with its row of the module's
/// listing.
#[allow(clippy::too_many_arguments)]
fn generate(
    args: &Args,
    source: &SourceArg,
    chosen: &[(&Entry, &String)],
    p: &TokenStream,
    cx: &mut Errors,
    listing: &mut String,
) -> TokenStream {
    let rel = source.path.value();
    let mut body = TokenStream::new();
    for (entry, name) in chosen.iter() {
        let Some(parsed) = generated_item(entry, name, args, source, p, cx) else {
            continue;
        };
        listing.push_str(&format!(
            "\n | [`{name}`]({name}) | `{}` | {rel}:{} |",
            entry.display_name().replace('|', "\\|"),
            entry.line
        ));
        let decl_args = KernelArgs {
            source: Some(source.clone()),
            name: Some(LitStr::new(&entry.name, source.path.span())),
            span: Some(source.path.span()),
            options: args.options.clone(),
            ..KernelArgs::default()
        };
        let (tokens, _) = kernel::expand_declaration(&decl_args, &parsed);
        body.extend(tokens);
    }
    body
}

/// The module with its body and the errors; `listing` is appended to its docs.
fn finish(
    attrs: Vec<syn::Attribute>,
    vis: syn::Visibility,
    ident: syn::Ident,
    body: TokenStream,
    mut cx: Errors,
    listing: &str,
) -> TokenStream {
    let errors = report::into_tokens(
        std::mem::take(&mut cx)
            .propagate()
            .map(|()| TokenStream::new()),
    );
    // An inner doc: its links resolve inside the module, where the kernels are.
    let doc = (!listing.is_empty()).then(|| quote!(#![doc = #listing]));
    quote! {
        #(#attrs)*
        #vis mod #ident {
            #doc
            #errors
            #body
        }
    }
}

/// The entries of the file (always `Ok`): the PTX read and parsed once per compilation (shared
/// with every declaration of the file, not copied), or for `cuda = "…"` the compile-time nvcc's
/// PTX. `None` after an error (in `cx`).
fn read_entries(
    args: &Args,
    source: &SourceArg,
    cx: &mut Errors,
) -> Option<std::sync::Arc<kernel::source::Parsed>> {
    let lit = &source.path;
    let rel = lit.value();
    let abs = kernel::resolve(&rel);
    let text = match kernel::source::read_cached(&abs) {
        Ok(text) => text,
        Err(e) => {
            cx.error(lit.span(), e.message(&rel, &abs));
            return None;
        }
    };
    let ptx_text;
    let (path, text): (&Path, &str) = match source.kind {
        SourceKind::Ptx => (&abs, &text),
        SourceKind::Cuda => {
            let extra = kernel::nvcc_extra_of(&args.options, &abs, &text, cx);
            match kernel::nvcc::ptx(&abs, &text, &extra) {
                Ok(Some(ptx)) => ptx_text = ptx,
                Ok(None) => {
                    cx.error(
                        lit.span(),
                        format!(
                            "`#[kernels(cuda = \"{rel}\")]` lists the file's kernels with nvcc \
                             at compile time, and nvcc did not give PTX ({}); compile it with \
                             `nvcc -ptx -arch=sm_90 {rel}` and use `ptx = \"…\"`, or declare \
                             each kernel with `#[kernel(cuda = \"{rel}\")]`",
                            match kernel::nvcc::outcome(&abs) {
                                kernel::NvccOutcome::Disabled => "`CHEVRON_NVCC=0`",
                                kernel::NvccOutcome::NotFound =>
                                    "nvcc was not found on PATH, in $CUDA_PATH/bin or /usr/local/cuda/bin",
                                _ => "it failed",
                            }
                        ),
                    );
                    return None;
                }
                Err(message) => {
                    cx.error(lit.span(), message);
                    return None;
                }
            }
            (&abs, &ptx_text)
        }
    };
    let parsed = kernel::source::parse_ptx(path, text);
    if let Err(e) = &*parsed {
        cx.error(lit.span(), format!("cannot read the PTX in `{rel}`: {e}"));
        return None;
    }
    Some(parsed)
}

/// A function declaration in the module's body, as a `#[kernel]` declaration of the module's
/// file: its arguments and the item. `None` for any other item, and for a declaration whose
/// own `#[kernel(ptx = …)]` names its file (it expands by itself).
fn hand_declaration(
    item: &Item,
    source: &SourceArg,
    cx: &mut Errors,
) -> Option<(KernelArgs, KernelItem)> {
    let Item::Verbatim(tokens) = item else {
        return None;
    };
    let mut parsed = kernel::parse::parse_item(tokens.clone()).ok()?;
    let at = parsed
        .attrs
        .iter()
        .position(|a| a.path().is_ident("kernel"));
    let mut decl_args = match at {
        Some(k) => {
            let attr = parsed.attrs.remove(k);
            let inner = match &attr.meta {
                syn::Meta::List(list) => list.tokens.clone(),
                _ => TokenStream::new(),
            };
            let parsed_args = kernel::parse::parse_args(inner, cx);
            if parsed_args.source.is_some() {
                parsed.attrs.insert(k, attr);
                return None;
            }
            parsed_args
        }
        None => KernelArgs::default(),
    };
    decl_args.source = Some(source.clone());
    decl_args.span = Some(parsed.sig.ident.span());
    Some((decl_args, parsed))
}

/// The indices of the entries to generate: those `only` names (all when absent), less `skip`,
/// less those declared by hand. Each name of `only` and `skip` must name some entry.
fn select(args: &Args, entries: &[Entry], by_hand: &[String], cx: &mut Errors) -> Vec<usize> {
    let rel = args
        .source
        .as_ref()
        .map(|s| s.path.value())
        .unwrap_or_default();
    let check = |list: &[LitStr], key: &str, cx: &mut Errors| {
        for lit in list {
            if !entries.iter().any(|e| cpp::names_entry(e, &lit.value())) {
                cx.error(
                    lit.span(),
                    format!(
                        "`{key}` names `{}`, which is no kernel of `{rel}`; its kernels are: {}",
                        lit.value(),
                        ptx::name_list(
                            entries
                                .iter()
                                .map(Entry::display_name)
                                .collect::<Vec<_>>()
                                .iter()
                                .map(String::as_str)
                        )
                    ),
                );
            }
        }
    };
    if let Some(only) = &args.only {
        check(only, "only", cx);
    }
    check(&args.skip, "skip", cx);
    (0..entries.len())
        .filter(|&k| {
            let e = &entries[k];
            args.only
                .as_ref()
                .is_none_or(|only| only.iter().any(|l| cpp::names_entry(e, &l.value())))
                && !args.skip.iter().any(|l| cpp::names_entry(e, &l.value()))
                && !by_hand.contains(&e.name)
        })
        .collect()
}

/// The declaration of `entry` as `#[kernel]` would read it, or `None` with the error saying
/// what the user must give (in `cx`).
fn generated_item(
    entry: &Entry,
    name: &str,
    args: &Args,
    source: &SourceArg,
    p: &TokenStream,
    cx: &mut Errors,
) -> Option<KernelItem> {
    let lit = &source.path;
    let rel = lit.value();
    let skip_fix = |what: &str| {
        format!(
            "declare it in the module (`#[kernels(…)] mod m {{ fn {name}(…); }}`), or leave it \
             out with `skip = [\"{what}\"]`"
        )
    };
    let Some(sig) = &entry.signature else {
        let widths = entry
            .params
            .iter()
            .map(|q| q.ty.name())
            .collect::<Vec<_>>()
            .join(", ");
        cx.error(
            lit.span(),
            format!(
                "`{}` ({rel}:{}) is an `extern \"C\"` kernel: its PTX gives only the widths of \
                 its parameters ({widths}), not their types; declare it in the module with its \
                 Rust parameters (`fn {name}(…);`), or leave it out with `skip = [\"{}\"]`",
                entry.name, entry.line, entry.name
            ),
        );
        return None;
    };
    let sig_text = cpp::cpp_signature(sig);
    let cpp_name = cpp::cpp_name(sig);
    let mut params = Vec::new();
    let mut table = String::new();
    for (k, cpp_ty) in sig.params.iter().enumerate() {
        let at = format!("parameter {} of `{sig_text}` ({rel}:{})", k + 1, entry.line);
        match map_param(cpp_ty, entry.writes.get(k), &args.types, p) {
            Mapped::Rust {
                ty,
                text,
                read_only,
            } => {
                let id = proc_macro2::Ident::new(&format!("p{k}"), Span::call_site());
                let attr = read_only.then(|| quote!(#[read_only]));
                params.push(quote!(#attr #id: #ty));
                let note = if read_only {
                    " (`#[read_only]`: the PTX never writes through it)"
                } else {
                    ""
                };
                table.push_str(&format!(
                    "\n | `p{k}` | `{}` | `{text}`{note} |",
                    cpp_ty.replace('|', "\\|")
                ));
            }
            Mapped::ByValue(cpp_ty) => {
                cx.error(
                    lit.span(),
                    format!(
                        "{at} is `{cpp_ty}` by value, a struct, class or enum whose fields chevron \
                         cannot see; map it to your `#[repr(C)]` type with \
                         `types(\"{cpp_ty}\" = super::{ty})` (checked by size and alignment), \
                         or {fix}",
                        ty = naming::sanitize(&cpp_ty),
                        fix = skip_fix(&cpp_name)
                    ),
                );
                return None;
            }
            Mapped::NeedsF16(cpp_ty) => {
                cx.error(
                    lit.span(),
                    format!(
                        "{at} is `{cpp_ty}`, which maps to `chevron::half` with chevron's `f16` \
                         feature; enable it (`chevron-cuda = {{ version = \"…\", features = \
                         [\"f16\"] }}`), or {}",
                        skip_fix(&cpp_name)
                    ),
                );
                return None;
            }
            Mapped::Unknown { cpp: cpp_ty, base } => {
                // `vec4<float>::Type`: a member of a template instance, which the symbol
                // keeps as written (what it stands for, `float4`, is in no symbol or PTX).
                let what = if base.contains(">::") {
                    "a member typedef of a template, which the symbol spells as written \
                     (the type it stands for is not in the PTX)"
                } else {
                    "a type chevron has no Rust type for"
                };
                cx.error(
                    lit.span(),
                    format!(
                        "{at} is `{cpp_ty}`, {what}; map `{base}` to a Rust type laid out like \
                         it with `types(\"{base}\" = path::to::Type)`, or {}",
                        skip_fix(&cpp_name)
                    ),
                );
                return None;
            }
        }
    }
    if params.len() != entry.params.len() {
        cx.error(
            lit.span(),
            format!(
                "`{sig_text}` ({rel}:{}) has {} C++ parameters but {} PTX parameters; {}",
                entry.line,
                params.len(),
                entry.params.len(),
                skip_fix(&cpp_name)
            ),
        );
        return None;
    }
    let doc = format!(
        " `{sig_text}`: the C++ kernel `{}` of `{rel}` (line {}), declared by `#[kernels]`.\n\n \
         Launch it with `launch!({name}<<<grid, block, &stream>>>({}))`.\n\n \
         | parameter | C++ | Rust |\n |---|---|---|{table}",
        entry.name,
        entry.line,
        (0..params.len())
            .map(|k| format!("p{k}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let aliases = [cpp_name.as_str(), sig_text.as_str(), entry.name.as_str()]
        .into_iter()
        .filter(|a| doc_alias_ok(a) && *a != name)
        .collect::<Vec<_>>();
    let ident = naming::ident(name);
    let vis = &args.vis;
    let tokens = quote! {
        #[doc(alias(#(#aliases),*))]
        #vis fn #ident(#(#params),*);
    };
    match kernel::parse::parse_item(tokens) {
        Ok(mut item) => {
            // The docs joined after parsing: syn reads a string literal it parses in full
            // (about 150,000 instructions for these, in the unoptimised build cargo makes of
            // proc macros), once per generated kernel.
            item.attrs.insert(0, doc_attribute(&doc));
            Some(item)
        }
        Err(e) => {
            cx.error(lit.span(), format!("cannot declare `{sig_text}`: {e}"));
            None
        }
    }
}

/// `#[doc = "…"]` with `text`, made without parsing it.
fn doc_attribute(text: &str) -> syn::Attribute {
    let span = Span::call_site();
    syn::Attribute {
        pound_token: Token![#](span),
        style: syn::AttrStyle::Outer,
        bracket_token: syn::token::Bracket(span),
        meta: syn::Meta::NameValue(syn::MetaNameValue {
            path: syn::Ident::new("doc", span).into(),
            eq_token: Token![=](span),
            value: syn::Expr::Lit(syn::ExprLit {
                attrs: Vec::new(),
                lit: syn::Lit::Str(LitStr::new(text, span)),
            }),
        }),
    }
}

/// The visibility inside a module that reaches as far as the module's own `vis`: a private
/// module's items are `pub(super)` (so that a private `#[repr(C)]` type of the parent may be
/// in their signatures), a `pub(crate)` module's `pub(crate)`, a `pub` module's `pub`.
fn inner_visibility(vis: &syn::Visibility) -> TokenStream {
    match vis {
        syn::Visibility::Public(_) => quote!(pub),
        syn::Visibility::Inherited => quote!(pub(super)),
        syn::Visibility::Restricted(r) => {
            let path = &r.path;
            let first = path.segments.first().map(|s| s.ident.to_string());
            match first.as_deref() {
                Some("crate") => quote!(pub(in #path)),
                Some("self") if path.segments.len() == 1 => quote!(pub(super)),
                _ => quote!(pub(in super::#path)),
            }
        }
    }
}

/// Whether rustdoc takes `alias` as a search alias: no quotes, no whitespace but spaces,
/// none at either end.
fn doc_alias_ok(alias: &str) -> bool {
    !alias.is_empty()
        && alias.trim() == alias
        && !alias
            .chars()
            .any(|c| c == '"' || c == '\'' || (c.is_whitespace() && c != ' '))
}

fn parse_args(args: TokenStream, cx: &mut Errors) -> Args {
    let mut out = Args::default();
    let parser = syn::meta::parser(|meta| parse_arg(meta, &mut out, cx));
    if let Err(e) = syn::parse::Parser::parse2(parser, args) {
        cx.push(e);
    }
    out
}

fn string_list(meta: &syn::meta::ParseNestedMeta<'_>, key: &str) -> syn::Result<Vec<LitStr>> {
    kernel::cuda::parse_string_list(
        meta,
        &format!("`{key}` takes a list of kernel names: `{key} = [\"gemm<128>\", \"scale\"]`"),
    )
}

fn parse_arg(
    meta: syn::meta::ParseNestedMeta<'_>,
    out: &mut Args,
    cx: &mut Errors,
) -> syn::Result<()> {
    let key = meta
        .path
        .get_ident()
        .map(|i| i.to_string())
        .unwrap_or_default();
    match key.as_str() {
        "ptx" | "cuda" => {
            let (kind, example) = if key == "ptx" {
                (SourceKind::Ptx, "kernels/llmc.ptx")
            } else {
                (SourceKind::Cuda, "kernels/llmc.cu")
            };
            let path = kernel::parse::string_value(&meta, &key, example)?;
            if out.source.is_some() {
                cx.push(
                    meta.error(
                        "`#[kernels]` reads one file: write one `#[kernels]` module per file",
                    ),
                );
            } else {
                out.source = Some(SourceArg {
                    kind,
                    path,
                    variants: Vec::new(),
                });
            }
        }
        "only" | "skip" => {
            let list = string_list(&meta, &key)?;
            if key == "only" {
                if out.only.is_some() {
                    cx.push(meta.error("duplicate `only`"));
                }
                out.only = Some(list);
            } else {
                out.skip.extend(list);
            }
        }
        "types" => {
            let form = "`types` maps C++ types to Rust types: \
                        `types(\"Affine\" = super::Affine, \"__half2\" = super::Half2)`";
            if !meta.input.peek(syn::token::Paren) {
                return Err(meta.error(form));
            }
            let content;
            syn::parenthesized!(content in meta.input);
            while !content.is_empty() {
                let cpp: LitStr = content
                    .parse()
                    .map_err(|e| syn::Error::new(e.span(), form))?;
                content
                    .parse::<Token![=]>()
                    .map_err(|e| syn::Error::new(e.span(), form))?;
                let rust: syn::Type = content.parse()?;
                out.types.push(UserType {
                    cpp,
                    rust,
                    used: Default::default(),
                });
                if !content.is_empty() {
                    content.parse::<Token![,]>()?;
                }
            }
        }
        "options" => {
            let options = kernel::cuda::parse_options(&meta)?;
            out.options = Some((syn::spanned::Spanned::span(&meta.path), options));
        }
        "crate" => {
            let v = kernel::parse::string_value(&meta, "crate", "path::to::chevron")?;
            match v.parse::<syn::Path>() {
                Ok(path) => out.krate = Some(path),
                Err(_) => cx.error(
                    v.span(),
                    "`crate` takes the path chevron is reached by, e.g. `crate = \"gpu\"`",
                ),
            }
        }
        _ => {
            cx.push(meta.error(format!("unknown `#[kernels]` option; expected {KEYS}")));
            if meta.input.peek(Token![=]) {
                let _: syn::Expr = meta.value()?.parse()?;
            } else if !meta.input.is_empty() {
                let _: TokenStream = meta.input.parse()?;
            }
        }
    }
    Ok(())
}
