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

use proc_macro2::{Delimiter, Group, Span, TokenStream, TokenTree};
use quote::{quote, ToTokens};
use syn::{Attribute, Ident, LitStr, Visibility};

use crate::code::Code;

use super::ast::{KernelDecl, ResolvedSource};
use info::{event_lint, info_value, literal_block_rules, refusal_items};
#[cfg(test)]
pub use params::rustc_checks_all;
use params::{param_check, signature_entry, spelling_guard, spelling_guard_statement};
pub use stub::{expand_stub, stub_checks};

use types::param_types;

std::thread_local! {
    /// The absolute path of a file whose text an enclosing expansion embedded once, and the
    /// expression naming it, as source text (`#[kernels]`: one `include_bytes!` per module,
    /// not per kernel).
    static SHARED_TEXT: std::cell::RefCell<Option<(String, String)>> =
        const { std::cell::RefCell::new(None) };
}

/// Runs `f` with `text` (an expression of type `&'static str`, as source text) standing for
/// the embedded text of the file at `abs_path` in the kernels expanded meanwhile.
pub fn with_shared_text<R>(abs_path: String, text: String, f: impl FnOnce() -> R) -> R {
    let previous = SHARED_TEXT.with(|s| s.replace(Some((abs_path, text))));
    let out = f();
    SHARED_TEXT.with(|s| *s.borrow_mut() = previous);
    out
}

/// The expression of the embedded text of the file at `path`, as source text.
fn embedded(pt: &str, path: &str) -> String {
    shared_text(path).unwrap_or_else(|| {
        super::source::first_embedding(std::path::Path::new(path));
        format!("{pt}::embedded_text({pt}::include_bytes!({path:?}))")
    })
}

/// The expression an enclosing `#[kernels]` gave for the text of the file at `path`.
fn shared_text(path: &str) -> Option<String> {
    SHARED_TEXT.with(|s| {
        s.borrow()
            .as_ref()
            .filter(|(abs, _)| abs == path)
            .map(|(_, text)| text.clone())
    })
}

/// The PTX text a declaration of `entry` in the file at `path` (whose text is `text`) embeds,
/// and the items that go with it, as source text: the module cut out of the file for the
/// entry, as a string literal (rustc's cost follows the kernel's size, not the file's; see
/// `chevron_cuda_rules::ptx::ModuleIndex`), with an `include_bytes!` of the file in the first
/// declaration of the compilation that names it, so that cargo still sees the file as an input
/// of the crate; the whole file where the entry must be loaded with it (module state, calls
/// through pointers, debug builds), or where an enclosing `#[kernels]` embedded it already.
fn ptx_text(pt: &str, path: &str, text: &str, entry: &str) -> (String, String) {
    if let Some(shared) = shared_text(path) {
        return (shared, String::new());
    }
    let Some(module) = super::source::cut_module(std::path::Path::new(path), text, entry) else {
        return (embedded(pt, path), String::new());
    };
    // A static in a block, not a `const` of the bytes: rustc writes a constant's value into
    // the crate's metadata (60 ms for an 8 MB file), and a static's it does not.
    let track = if super::source::first_embedding(std::path::Path::new(path)) {
        format!(
            "const _: () = {{ #[allow(dead_code)] static FILE: &[u8] = \
             {pt}::include_bytes!({path:?}); }};"
        )
    } else {
        String::new()
    };
    (format!("{:?}", &*module), track)
}

/// The items a checked declaration expands to: the type, its `impl`s and the assertions.
/// Written as text ([`Code`]) but for the user's tokens: the name of the type, its attributes
/// and visibility, and the parameter types.
pub fn expand_kernel(decl: &KernelDecl) -> TokenStream {
    let pt = crate::krate::private_text();
    let pt = pt.as_str();
    let KernelDecl {
        attrs,
        vis,
        ident,
        params,
        source,
        ..
    } = decl;
    let info = info_value(
        pt,
        decl.info.as_ref(),
        decl.no_upstream_reads,
        decl.cooperative,
    );
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
    let name = super::ast::kernel_name(ident);

    let mut track = String::new();
    let kernel = match source {
        ResolvedSource::Ptx {
            abs_path,
            text,
            entry,
            variants,
            infos,
        } => {
            if variants.is_empty() {
                let (text, items) = ptx_text(pt, abs_path, text, entry);
                track = items;
                Kernel::Registered(format!("{name:?}, {entry:?}, {abs_path:?}, {text}"))
            } else {
                // Each variant with its own rules: the runtime checks a launch against the
                // variant it loaded.
                let all: String = std::iter::once(abs_path)
                    .chain(variants)
                    .enumerate()
                    .map(|(k, v)| {
                        let info =
                            info_value(pt, infos.get(k), decl.no_upstream_reads, decl.cooperative);
                        format!(
                            "{pt}::PtxVariant {{ path: {v:?}, text: \
                             {pt}::embedded_text({pt}::include_bytes!({v:?})), info: &const {{ {info} }} }},"
                        )
                    })
                    .collect();
                Kernel::Text(format!(
                    "{pt}::Kernel::ptx_variants({name:?}, {entry:?}, &[{all}])"
                ))
            }
        }
        ResolvedSource::Cuda {
            abs_path,
            entry,
            program,
        } => {
            let p = crate::krate::private();
            let entry = match entry {
                Some(e) => quote!(#p::Some(#e)),
                None => quote!(#p::None),
            };
            let sig = params.iter().map(|q| signature_entry(q, &p));
            let text = Code::lexed(&embedded(pt, abs_path));
            let (name, path) = (
                LitStr::new(&name, Span::call_site()),
                LitStr::new(abs_path, Span::call_site()),
            );
            Kernel::Tokens(if program.is_plain() {
                quote!(#p::Kernel::cuda(#name, #entry, #path, #text, &[#(#sig),*]))
            } else {
                let program = super::cuda::program_tokens(program, &p);
                quote!(#p::Kernel::cuda_program(
                    #name, #entry, #path, #text, &#program, &[#(#sig),*]
                ))
            })
        }
    };

    let scope = ItemAttrs::split(attrs);
    let impl_attrs = &scope.shared;
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
    let kernel_doc = format!(
        " The kernel `{ident}({signature})`, typed: its `launch(&stream, &config, {tuple})` \
         launches it (as `launch!` does); `update`, `update_scalars` and `update_ordered` set \
         the arguments of its graph nodes; the queries of `Kernel` (`function`, `occupancy`, \
         `max_cooperative_grid`, `max_active_clusters`) come through `Deref`. The first use in \
         a CUDA context loads the kernel's module.{unseen}"
    );

    let mut code = Code::new();
    kernel_type(&mut code, &scope, vis, ident, &signature, &args);
    // The `impl`s name the type by its text: the type itself carries the user's span.
    let ty = ident.to_string();
    let literal = literal_block_rules(
        pt,
        decl.info.as_ref(),
        decl.no_upstream_reads,
        decl.cooperative,
        &ty,
    );
    kernel_items(
        &mut code,
        pt,
        impl_attrs,
        &ty,
        &info,
        &literal,
        |c| param_types(c, pt, params),
        |c| {
            c.s("#[doc =").string(&kernel_doc).s(&format!(
                "] #[inline] pub fn kernel() -> &'static {pt}::Typed<{ty}>"
            ));
            c.group(Delimiter::Brace, |body| {
                // A PTX kernel is kept in the runtime's table by its type (no `static` item for
                // rustc to check per declaration); the others, whose constructors take slices
                // built at compile time, in a static.
                let typed = match kernel {
                    Kernel::Registered(args) => format!("{pt}::Typed::<{ty}>::__ptx({args})"),
                    Kernel::Text(text) => {
                        body.s(&format!("static KERNEL: {pt}::Kernel = {text};"));
                        format!("{pt}::Typed::__of(&KERNEL)")
                    }
                    Kernel::Tokens(tokens) => {
                        body.s(&format!("static KERNEL: {pt}::Kernel ="))
                            .tokens(tokens)
                            .s(";");
                        format!("{pt}::Typed::__of(&KERNEL)")
                    }
                };
                spelling_guard_statement(body, pt, params);
                body.s(&typed);
            });
        },
        &lint,
    );
    for q in params {
        let check = param_check(q, impl_attrs);
        if !check.is_empty() {
            code.tokens(check);
        }
    }
    refusal_items(
        &mut code,
        pt,
        decl.info.as_ref(),
        decl.no_upstream_reads,
        decl.cooperative,
        &ty,
        impl_attrs,
    );
    code.s(&track);
    code.finish()
}

/// How `kernel()` reaches the kernel: a static's value as source text, or as tokens where the
/// user's spans matter (the run-time signature of `cuda = "…"` kernels names the parameter
/// types); for a kernel of one PTX file, the arguments of `Typed::__ptx` (name, entry, path,
/// text), which keeps it in the runtime's table instead of a static.
enum Kernel {
    Text(String),
    Tokens(TokenStream),
    Registered(String),
}

/// The `impl`s of every declaration, checked or rejected, into `code` after its type `ty`: its
/// `TypedKernel` impl (`info`, its rules on a launch whose only literal is its block
/// `literal.0` with the items that go with them `literal.1`, and the associated items `types`
/// writes) and its own `impl` (the `kernel()` that `kernel_fn`
/// writes, and the constant `lint` that `launch!` names for `programmatic_event`), each with
/// the declaration's conditional and lint attributes.
#[allow(clippy::too_many_arguments)]
fn kernel_items(
    code: &mut Code,
    pt: &str,
    impl_attrs: &[&Attribute],
    ty: &str,
    info: &str,
    literal: &(String, Vec<String>),
    types: impl FnOnce(&mut Code),
    kernel_fn: impl FnOnce(&mut Code),
    lint: &str,
) {
    code.attrs(impl_attrs).s(&format!(
        "#[allow(deprecated)] impl {pt}::TypedKernel for {ty}"
    ));
    code.group(Delimiter::Brace, |c| {
        c.s(&format!(
            "const INFO: {pt}::KernelInfo = {info}; type Literal = {};",
            literal.0
        ));
        types(c);
    });
    for item in &literal.1 {
        code.attrs(impl_attrs).s("#[allow(deprecated)]").s(item);
    }
    code.attrs(impl_attrs)
        .s(&format!("#[allow(deprecated)] impl {ty}"));
    code.group(Delimiter::Brace, |c| {
        kernel_fn(c);
        c.s(lint);
    });
}

/// The kernel's type: `struct saxpy {}`, with the declaration's docs, attributes and
/// visibility.
fn kernel_type(
    code: &mut Code,
    attrs: &ItemAttrs<'_>,
    vis: &Visibility,
    ident: &Ident,
    signature: &str,
    args: &str,
) {
    code.attrs(&attrs.all);
    if !attrs.has_docs {
        let text = format!(
            " The CUDA kernel `{ident}({signature})` (`#[kernel]`): launch it with \
             `launch!({ident}<<<grid, block, &stream>>>({args}))`; [`{ident}::kernel`] gives \
             its launch, graph updates, `CUfunction` and occupancy queries."
        );
        code.s("#[doc =").string(&text).s("]");
    }
    code.s("#[allow(non_camel_case_types, dead_code)]");
    // `vis struct NAME {}`, made directly: four tokens cost less than lexing two.
    let mut item = vis.to_token_stream();
    item.extend([
        TokenTree::Ident(Ident::new("struct", Span::call_site())),
        TokenTree::Ident(ident.clone()),
        TokenTree::Group(Group::new(Delimiter::Brace, TokenStream::new())),
    ]);
    code.tokens(item);
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
