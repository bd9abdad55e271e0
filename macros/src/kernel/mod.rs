//! `#[kernel]`: parse → check against the PTX → expand.

pub(crate) mod ast;
mod check;
mod context;
pub(crate) mod cuda;
mod expand;
pub(crate) mod nvcc;
pub(crate) mod parse;
mod run_time;
pub(crate) mod source;

#[cfg(test)]
mod tests;

use proc_macro2::TokenStream;

use crate::report::{self, Errors};
use ast::ResolvedSource;
pub use expand::with_shared_text;
pub use nvcc::NvccOutcome;

/// Where the attribute is written: the source file, its 1-based line and column.
pub type Site = Option<(std::path::PathBuf, usize, usize)>;

/// Expands `#[kernel(...)]` on `item`, written at `site`.
pub fn expand(args: TokenStream, item: TokenStream, site: Site) -> TokenStream {
    let parsed = match parse::parse_item(item.clone()) {
        Ok(parsed) => parsed,
        Err(e) => {
            // Not a declaration at all: keep the item so its other uses resolve.
            let mut out = e.to_compile_error();
            out.extend(item);
            return out;
        }
    };
    // In an `impl`, a trait or an `extern` block the expansion (a type) cannot stand: chevron's
    // one error instead of rustc's one per generated item.
    let block = site
        .as_ref()
        .map_or(context::Enclosing::Unknown, |(file, line, column)| {
            context::enclosing(file, *line, *column)
        });
    if let Some(message) = block.error(&ast::kernel_name(&parsed.sig.ident)) {
        return syn::Error::new(proc_macro2::Span::call_site(), message).to_compile_error();
    }
    let mut cx = Errors::default();
    let args = parse::parse_args(args, &mut cx);
    let krate = match &args.krate {
        Some(path) => quote::ToTokens::to_token_stream(path),
        None => crate::krate::from_manifest(),
    };
    crate::krate::scope(krate, || expand_checked(&args, &parsed, cx))
}

/// The expansion of a parsed declaration: the kernel, or a stub, its checks and the errors.
fn expand_checked(args: &ast::KernelArgs, parsed: &ast::KernelItem, cx: Errors) -> TokenStream {
    expand_resolved(args, parsed, cx).0
}

/// A declaration `#[kernels]` made or found in its module (`args` name the module's file):
/// its expansion, as `#[kernel]` on it would give, and the PTX entry it declares where checked.
/// The crate path must be set ([`crate::krate::scope`]).
pub(crate) fn expand_declaration(
    args: &ast::KernelArgs,
    parsed: &ast::KernelItem,
) -> (TokenStream, Option<String>) {
    expand_resolved(args, parsed, Errors::default())
}

fn expand_resolved(
    args: &ast::KernelArgs,
    parsed: &ast::KernelItem,
    mut cx: Errors,
) -> (TokenStream, Option<String>) {
    match check::check(args, parsed, &mut cx) {
        Ok(decl) => {
            let mut out = expand::expand_kernel(&decl);
            out.extend(run_time_only_warning(args, &decl));
            let entry = match &decl.source {
                ResolvedSource::Ptx { entry, .. } => Some(entry.clone()),
                ResolvedSource::Cuda { .. } => None,
            };
            (out, entry)
        }
        Err(params) => {
            // The declaration's own errors first, then the parameters' (source order: `async`
            // and the like come before the parameters).
            let mut out = report::into_tokens(cx.propagate().map(|()| TokenStream::new()));
            out.extend(expand::expand_stub(parsed, &params));
            out.extend(expand::stub_checks(parsed, &params));
            (out, None)
        }
    }
}

/// The absolute path of a file named relative to the crate root.
pub(crate) fn resolve(rel: &str) -> std::path::PathBuf {
    check::resolve(rel)
}

/// What the compile-time nvcc is given for a `.cu` file with NVRTC `options` (its `-D`, `-U`,
/// `-std` and `-I`, as for one `#[kernel(cuda = …)]` declaration).
pub(crate) fn nvcc_extra_of(
    options: &Option<(proc_macro2::Span, Vec<syn::LitStr>)>,
    abs: &std::path::Path,
    text: &str,
    cx: &mut Errors,
) -> nvcc::Extra {
    let args = ast::KernelArgs {
        options: options.clone(),
        ..ast::KernelArgs::default()
    };
    let program = cuda::cuda_program(&args, abs, text, &check::base_dir(), cx);
    cuda::nvcc_extra(&program)
}

/// The warning of a `cuda = "…"` declaration checked only at run time (see
/// [`run_time::run_time_only`]).
fn run_time_only_warning(args: &ast::KernelArgs, decl: &ast::KernelDecl) -> TokenStream {
    let (
        ResolvedSource::Cuda {
            abs_path, program, ..
        },
        None,
        Some(lit),
    ) = (
        &decl.source,
        &decl.info,
        args.source.as_ref().map(|s| &s.path),
    )
    else {
        return TokenStream::new();
    };
    let outcome = match &program.unmirrored {
        Some(why) if !nvcc::disabled() => NvccOutcome::Unmirrored(why.clone()),
        _ => match nvcc::outcome(std::path::Path::new(abs_path)) {
            NvccOutcome::Ran => NvccOutcome::NoEntry,
            NvccOutcome::Failed if program.tests_rtc => NvccOutcome::Unmirrored(format!(
                "the kernel's code tests `{}`, which NVRTC defines, and nvcc fails with it \
                 defined",
                cuda::RTC_MACRO
            )),
            other => other,
        },
    };
    run_time::run_time_only(&decl.ident, &lit.value(), lit.span(), outcome, &decl.attrs)
}

#[cfg(test)]
mod fuzz;
