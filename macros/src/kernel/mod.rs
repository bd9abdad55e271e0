//! `#[kernel]`: parse → check against the PTX → expand.

mod ast;
mod check;
mod cuda;
mod expand;
mod parse;
mod path_expr;
mod source;
mod variants;

#[cfg(test)]
mod tests;

use proc_macro2::TokenStream;

use crate::report::{self, Errors};

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
        Some(decl) if cx.is_empty() => expand::expand_kernel(&decl),
        _ => {
            let mut out = expand::expand_stub(&parsed);
            out.extend(report::into_tokens(
                cx.propagate().map(|()| TokenStream::new()),
            ));
            out
        }
    }
}

#[cfg(test)]
mod fuzz;
