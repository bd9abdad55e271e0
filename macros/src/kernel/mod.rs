//! `#[kernel]`: parse → check against the PTX → expand.

mod ast;
mod check;
mod expand;
mod parse;
mod source;

#[cfg(test)]
mod tests;

use proc_macro2::TokenStream;

use crate::report::{self, Errors};
use ast::ResolvedSource;
pub use source::NvccOutcome;

/// Expands `#[kernel(...)]` on `item`.
pub fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let parsed = match parse::parse_item(item.clone()) {
        Ok(parsed) => parsed,
        Err(e) => {
            // Not a declaration at all: keep the item so its other uses resolve.
            let mut out = e.to_compile_error();
            out.extend(item);
            return out;
        }
    };
    let mut cx = Errors::default();
    let args = parse::parse_args(args, &mut cx);
    match check::check(&args, &parsed, &mut cx) {
        Some(decl) if cx.is_empty() => {
            let mut out = expand::expand_kernel(&decl);
            out.extend(run_time_only_warning(&args, &decl));
            out
        }
        _ => {
            let mut out = expand::expand_stub(&parsed);
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
    let (ResolvedSource::Cuda { abs_path, .. }, None, Some(lit)) = (
        &decl.source,
        &decl.info,
        args.source.as_ref().map(|s| &s.path),
    ) else {
        return TokenStream::new();
    };
    let outcome = match source::nvcc_outcome(std::path::Path::new(abs_path)) {
        NvccOutcome::Ran => NvccOutcome::NoEntry,
        other => other,
    };
    crate::warn::run_time_only(&decl.ident, &lit.value(), lit.span(), outcome, &decl.attrs)
}

#[cfg(test)]
mod fuzz;
