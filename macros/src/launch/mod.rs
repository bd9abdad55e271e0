//! `launch!` and `config!`: parse → check → expand.
//!
//! - [`parse`] reads the tokens into the IR of [`ast`], recording every malformed entry;
//! - [`check`] applies every rule (positions, the placement table of [`keys`] and the runtime,
//!   duplicates, value forms, literal limits) and produces a [`ast::Plan`];
//! - [`expand`] turns the plan into one block of code.
//!
//! With errors, the output is the errors plus a stand-in of the right type, so the call site
//! does not add type errors of its own.

use proc_macro2::TokenStream;
use quote::quote;

use crate::report::{self, Errors};

mod ast;
mod check;
mod expand;
mod fit;
#[cfg(test)]
mod fuzz;
pub(crate) mod keys;
mod limits;
mod parse;
mod setting;
#[cfg(test)]
mod tests;
mod untyped;

/// Expands `launch!`: the input, after the `$crate ;` the facade's wrapper puts first.
pub fn expand_launch(input: TokenStream) -> TokenStream {
    let (krate, input) = crate::krate::set_from_input(input);
    crate::krate::scope(krate, || match try_launch(input) {
        Ok(tokens) => tokens,
        Err(e) => {
            let errors = report::into_tokens(Err(e));
            let p = crate::krate::private();
            quote!({ #errors #p::launch_with_errors() })
        }
    })
}

/// Expands `config!`: the input, after the `$crate ;` the facade's wrapper puts first.
pub fn expand_config(input: TokenStream) -> TokenStream {
    let (krate, input) = crate::krate::set_from_input(input);
    crate::krate::scope(krate, || match try_config(input) {
        Ok(tokens) => tokens,
        Err(e) => {
            let errors = report::into_tokens(Err(e));
            let p = crate::krate::private();
            quote!({ #errors #p::LaunchConfig::new(1u32, 1u32) })
        }
    })
}

fn try_launch(input: TokenStream) -> syn::Result<TokenStream> {
    let mut cx = Errors::default();
    let parsed = parsed(parse::parse_launch(input, &mut cx), &mut cx)?;
    let plan = check::check_chevrons(&parsed.chevrons, check::Mode::Launch, &mut cx);
    if let ast::Kernel::Dyn { .. } = parsed.kernel {
        untyped::check_dyn_args(&parsed.args, &mut cx);
    }
    match plan {
        Some(plan) if cx.is_empty() => Ok(expand::expand_launch(&parsed, &plan)),
        _ => Err(finish(cx)),
    }
}

fn try_config(input: TokenStream) -> syn::Result<TokenStream> {
    let mut cx = Errors::default();
    let parsed = parsed(parse::parse_config(input, &mut cx), &mut cx)?;
    match check::check_chevrons(&parsed.chevrons, check::Mode::Config, &mut cx) {
        Some(plan) if cx.is_empty() => Ok(expand::expand_config(&plan)),
        _ => Err(finish(cx)),
    }
}

/// The parse phase's result, or every error it recorded (the parser recovers after a bad item,
/// so one call can report several).
fn parsed<T>(result: syn::Result<T>, cx: &mut Errors) -> syn::Result<T> {
    match result {
        Ok(parsed) => {
            cx.propagate()?;
            Ok(parsed)
        }
        Err(e) => {
            cx.push(e);
            Err(finish(std::mem::take(cx)))
        }
    }
}

/// The recorded errors; check records one whenever it returns no plan.
fn finish(cx: Errors) -> syn::Error {
    match cx.finish() {
        Err(e) => e,
        Ok(()) => syn::Error::new(proc_macro2::Span::call_site(), "invalid launch"),
    }
}
