//! `#[kernel]`: parse → check against the PTX → expand.

mod ast;
mod check;
mod context;
mod cuda;
mod expand;
pub(crate) mod nvcc;
mod parse;
mod source;

#[cfg(test)]
mod tests;

use proc_macro2::TokenStream;

use crate::report::{self, Errors};
use ast::ResolvedSource;
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
fn expand_checked(args: &ast::KernelArgs, parsed: &ast::KernelItem, mut cx: Errors) -> TokenStream {
    match check::check(args, parsed, &mut cx) {
        Ok(decl) => {
            let mut out = expand::expand_kernel(&decl);
            out.extend(run_time_only_warning(args, &decl));
            out
        }
        Err(params) => {
            let mut out = expand::expand_stub(parsed, &params);
            out.extend(expand::stub_checks(parsed, &params));
            out.extend(report::into_tokens(
                cx.propagate().map(|()| TokenStream::new()),
            ));
            out
        }
    }
}

/// The warning of a `cuda = "…"` declaration checked only at run time (see
/// [`crate::warn::run_time_only`]).
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
    crate::warn::run_time_only(&decl.ident, &lit.value(), lit.span(), outcome, &decl.attrs)
}

#[cfg(test)]
mod fuzz;
