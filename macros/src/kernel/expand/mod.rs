//! Code generation for `#[kernel]`: a type named after the kernel, its `TypedKernel` impl (the
//! launch rules its PTX fixes and its parameter types, as one tuple), the kernel's static
//! (`KERNEL::kernel()`, a [`Typed`] whose functions, written once in the runtime, launch it and
//! update its graph nodes), and the compile-time assertions rustc checks for us.
//!
//! Why a type and not a module: a module's `use super::*` sees the enclosing module, not a
//! function body, so a declaration inside a body could not use the body's `use`s. A type and
//! its `impl` are items of the declaration's own scope: parameter types resolve exactly where
//! they are written. The type is a braced struct, so its name takes no place in the value
//! namespace (a local variable or parameter named like the kernel stays a plain binding).
//!
//! Why so little per declaration: every function a declaration generates is type-checked and
//! borrow-checked once per declaration, and a crate has many; the generic functions of
//! `Typed` are checked once (`scripts/compile_bench.sh` measures the difference). The kernel's
//! static lives inside a function with no user names in scope.
//!
//! [`Typed`]: https://docs.rs/chevron-cuda/latest/chevron/struct.Typed.html

mod info;
mod params;
mod stub;
mod types;

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::{Attribute, Ident, LitStr, Visibility};

use super::ast::{KernelDecl, ResolvedSource};
use info::{event_lint, info_value, refusal_items};
#[cfg(test)]
pub use params::rustc_checks_all;
use params::{param_check, signature_entry, spelling_guard, spelling_guard_statement};
pub use stub::{expand_stub, stub_checks};

use types::param_types;

std::thread_local! {
    /// The absolute path of a file whose text an enclosing expansion embedded once, and the
    /// expression naming it (`#[kernels]`: one `include_bytes!` per module, not per kernel).
    static SHARED_TEXT: std::cell::RefCell<Option<(String, TokenStream)>> =
        const { std::cell::RefCell::new(None) };
}

/// Runs `f` with `text` (an expression of type `&'static str`) standing for the embedded text
/// of the file at `abs_path` in the kernels expanded meanwhile.
pub fn with_shared_text<R>(abs_path: String, text: TokenStream, f: impl FnOnce() -> R) -> R {
    let previous = SHARED_TEXT.with(|s| s.replace(Some((abs_path, text))));
    let out = f();
    SHARED_TEXT.with(|s| *s.borrow_mut() = previous);
    out
}

/// The expression of the embedded text of the file at `path` (a string literal).
fn embedded(p: &TokenStream, path: &LitStr) -> TokenStream {
    shared_text(path).unwrap_or_else(|| {
        super::source::first_embedding(std::path::Path::new(&path.value()));
        quote!(#p::embedded_text(#p::include_bytes!(#path)))
    })
}

/// The expression an enclosing `#[kernels]` gave for the text of the file at `path`.
fn shared_text(path: &LitStr) -> Option<TokenStream> {
    SHARED_TEXT.with(|s| {
        s.borrow()
            .as_ref()
            .filter(|(abs, _)| *abs == path.value())
            .map(|(_, text)| text.clone())
    })
}

/// The PTX text a declaration of `entry` in the file at `path` (whose text is `text`) embeds,
/// and the items that go with it: the module cut out of the file for the entry, as a string
/// literal (rustc's cost follows the kernel's size, not the file's; see
/// `chevron_cuda_rules::ptx::ModuleIndex`), with an `include_bytes!` of the file in the first
/// declaration of the compilation that names it, so that cargo still sees the file as an input
/// of the crate; the whole file where the entry must be loaded with it (module state, calls
/// through pointers, debug builds), or where an enclosing `#[kernels]` embedded it already.
fn ptx_text(p: &TokenStream, path: &LitStr, text: &str, entry: &str) -> (TokenStream, TokenStream) {
    if let Some(shared) = shared_text(path) {
        return (shared, TokenStream::new());
    }
    let abs = path.value();
    let Some(module) = super::source::cut_module(std::path::Path::new(&abs), text, entry) else {
        return (embedded(p, path), TokenStream::new());
    };
    // A static in a block, not a `const` of the bytes: rustc writes a constant's value into
    // the crate's metadata (60 ms for an 8 MB file), and a static's it does not.
    let track = super::source::first_embedding(std::path::Path::new(&abs)).then(|| {
        quote! {
            const _: () = {
                #[allow(dead_code)]
                static FILE: &[u8] = #p::include_bytes!(#path);
            };
        }
    });
    let module = LitStr::new(&module, Span::call_site());
    (quote!(#module), track.unwrap_or_default())
}

/// The items a checked declaration expands to: the type, its `impl`s and the assertions.
pub fn expand_kernel(decl: &KernelDecl) -> TokenStream {
    let p = crate::krate::private();
    let KernelDecl {
        attrs,
        vis,
        ident,
        params,
        source,
        ..
    } = decl;
    let info = info_value(decl.info.as_ref(), decl.no_upstream_reads, decl.cooperative);
    let lint = event_lint(decl.info.as_ref());
    // Where the kernel calls code its PTX does not hold, the rules resting on absence stay
    // quiet: the docs say which, and why.
    let unseen = decl
        .info
        .as_ref()
        .map(|t| &t.messages[chevron_cuda_rules::fit::Rule::COUNT])
        .filter(|m| !m.is_empty())
        .map(|m| format!("\n\n Not checked: {m}."))
        .unwrap_or_default();
    let name = LitStr::new(&super::ast::kernel_name(ident), ident.span());

    let mut track = TokenStream::new();
    let kernel = match source {
        ResolvedSource::Ptx {
            abs_path,
            text,
            entry,
            variants,
            infos,
        } => {
            let path = LitStr::new(abs_path, Span::call_site());
            if variants.is_empty() {
                let (text, items) = ptx_text(&p, &path, text, entry);
                track = items;
                let entry = LitStr::new(entry, Span::call_site());
                quote!(#p::Kernel::ptx(#name, #entry, #path, #text))
            } else {
                let entry = LitStr::new(entry, Span::call_site());
                // Each variant with its own rules: the runtime checks a launch against the
                // variant it loaded.
                let all = std::iter::once(abs_path)
                    .chain(variants)
                    .enumerate()
                    .map(|(k, v)| {
                        let v = LitStr::new(v, Span::call_site());
                        let info =
                            info_value(infos.get(k), decl.no_upstream_reads, decl.cooperative);
                        quote!(#p::PtxVariant {
                            path: #v,
                            text: #p::embedded_text(#p::include_bytes!(#v)),
                            info: &#info,
                        })
                    });
                quote!(#p::Kernel::ptx_variants(#name, #entry, &[#(#all),*]))
            }
        }
        ResolvedSource::Cuda {
            abs_path,
            entry,
            program,
        } => {
            let path = LitStr::new(abs_path, Span::call_site());
            let entry = match entry {
                Some(e) => quote!(#p::Some(#e)),
                None => quote!(#p::None),
            };
            let sig = params.iter().map(|q| signature_entry(q, &p));
            let text = embedded(&p, &path);
            if program.is_plain() {
                quote!(#p::Kernel::cuda(#name, #entry, #path, #text, &[#(#sig),*]))
            } else {
                let program = super::cuda::program_tokens(program, &p);
                quote!(#p::Kernel::cuda_program(
                    #name, #entry, #path, #text, &#program, &[#(#sig),*]
                ))
            }
        }
    };

    let scope = ItemAttrs::split(attrs);
    let impl_attrs = &scope.shared;
    let asserts = params.iter().map(|q| param_check(q, impl_attrs));
    let guard = spelling_guard_statement(params);
    let types = param_types(&p, params);
    let signature = params
        .iter()
        .map(|q| format!("{}: {}", q.ident, q.ty_text))
        .collect::<Vec<_>>()
        .join(", ");
    let args = params
        .iter()
        .map(|q| q.ident.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let tuple = if params.len() == 1 {
        format!("({args},)")
    } else {
        format!("({args})")
    };
    let ty = kernel_type(&scope, vis, ident, &signature, &args);
    let kernel_doc = format!(
        " The kernel `{ident}({signature})`, typed: its `launch(&stream, &config, {tuple})` \
         launches it (as `launch!` does); `update`, `update_scalars` and `update_ordered` set \
         the arguments of its graph nodes; the queries of `Kernel` (`function`, `occupancy`, \
         `max_cooperative_grid`, `max_active_clusters`) come through `Deref`. The first use in \
         a CUDA context loads the kernel's module.{unseen}"
    );

    let kernel_fn = quote! {
        #[doc = #kernel_doc]
        #[inline]
        pub fn kernel() -> &'static #p::Typed<#ident> {
            static KERNEL: #p::Kernel = #kernel;
            #guard
            #p::Typed::__of(&KERNEL)
        }
    };
    let mut out = kernel_items(&p, ty, impl_attrs, ident, info, types, kernel_fn, lint);
    out.extend(asserts);
    out.extend(refusal_items(
        decl.info.as_ref(),
        decl.no_upstream_reads,
        decl.cooperative,
        ident,
        impl_attrs,
    ));
    out.extend(track);
    out
}

/// The items of every declaration, checked or rejected: its type `ty`, its `TypedKernel` impl
/// (`info` and the parameter `types`) and its own `impl` (`kernel_fn`, and the constant `lint`
/// that `launch!` names for `programmatic_event`), each `impl` with the declaration's
/// conditional and lint attributes.
#[allow(clippy::too_many_arguments)]
fn kernel_items(
    p: &TokenStream,
    ty: TokenStream,
    impl_attrs: &[&Attribute],
    ident: &Ident,
    info: TokenStream,
    types: TokenStream,
    kernel_fn: TokenStream,
    lint: TokenStream,
) -> TokenStream {
    quote! {
        #ty

        #(#impl_attrs)*
        #[allow(deprecated)]
        impl #p::TypedKernel for #ident {
            const INFO: #p::KernelInfo = #info;
            #types
        }

        #(#impl_attrs)*
        #[allow(deprecated)]
        impl #ident {
            #kernel_fn
            #lint
        }
    }
}

/// The kernel's type: `struct saxpy {}`, with the declaration's docs, attributes and
/// visibility.
fn kernel_type(
    attrs: &ItemAttrs<'_>,
    vis: &Visibility,
    ident: &Ident,
    signature: &str,
    args: &str,
) -> TokenStream {
    let all = &attrs.all;
    let doc = (!attrs.has_docs).then(|| {
        let text = format!(
            " The CUDA kernel `{ident}({signature})` (`#[kernel]`): launch it with \
             `launch!({ident}<<<grid, block, &stream>>>({args}))`; [`{ident}::kernel`] gives \
             its launch, graph updates, `CUfunction` and occupancy queries."
        );
        quote!(#[doc = #text])
    });
    quote! {
        #(#all)*
        #doc
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #ident {}
    }
}

/// The user's attributes, split by where they go: all on the type, and the conditional and
/// lint attributes also on the `impl`s and assertions (a `#[cfg]` must remove them all).
struct ItemAttrs<'a> {
    all: Vec<&'a Attribute>,
    shared: Vec<&'a Attribute>,
    has_docs: bool,
}

impl<'a> ItemAttrs<'a> {
    fn split(attrs: impl IntoIterator<Item = &'a Attribute>) -> Self {
        let all: Vec<&Attribute> = attrs.into_iter().collect();
        const SHARED: [&str; 5] = ["cfg", "allow", "warn", "deny", "forbid"];
        let shared = all
            .iter()
            .copied()
            .filter(|a| {
                a.path()
                    .get_ident()
                    .is_some_and(|i| SHARED.iter().any(|s| i == s))
            })
            .collect();
        let has_docs = all.iter().any(|a| a.path().is_ident("doc"));
        Self {
            all,
            shared,
            has_docs,
        }
    }
}
