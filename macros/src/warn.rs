//! Warnings on stable Rust. A proc macro cannot emit one directly (`proc_macro::Diagnostic` is
//! unstable), so a warning is a `#[deprecated(note = "…")]` constant used at the user's span:
//! rustc prints `warning: use of deprecated constant `…`: <note>` there, and the user's
//! `#[allow(deprecated)]` silences it. (The `proc-macro-warning` crate does the same; it would
//! bring syn 2 next to syn 3.)

use proc_macro2::{Delimiter, Span, TokenStream};
use quote::quote_spanned;
use syn::{Attribute, Ident};

use crate::code::Code;

/// The associated constant of a `#[kernel]` type that `launch!` uses for `programmatic_event`:
/// deprecated when the kernel never triggers its dependents.
pub const NO_TRIGGER: &str = "programmatic_event_without_launch_dependents";

/// The constant, for an item position, as source text:
/// `#[deprecated(note = …)] const NAME: u8 = 0;`, with `note` unless `warn` is false (the
/// constant is then plain, so that using it is silent).
pub fn constant(name: &str, warn: bool, note: &str) -> String {
    let deprecated = if warn {
        format!("#[deprecated(note = {note:?})]")
    } else {
        String::new()
    };
    format!("{deprecated} #[doc(hidden)] #[allow(dead_code, non_upper_case_globals)] pub const {name}: u8 = 0;")
}

/// A statement that uses `path` (a constant from [`constant`]) at `span`: the warning, if the
/// constant has one, points there. The user's span is what makes rustc report it (lints in
/// code a macro made up are not reported). (The constant is a `u8`: `let _ =` of a `()` draws
/// clippy's `let_unit_value`, also as `_ = path;`.)
pub fn use_at(path: TokenStream, span: Span) -> TokenStream {
    quote_spanned!(span=> let _ = #path;)
}

/// An item that warns at `span`, for item positions: the constant and its use in one
/// `const _`. `allows` are the declaration's `#[allow(…)]` attributes, so that
/// `#[allow(deprecated)]` there silences it.
pub fn at_item(name: &str, span: Span, note: &str, allows: &[&Attribute]) -> TokenStream {
    let ident = Ident::new(name, span);
    let mut code = Code::new();
    code.attrs(allows)
        .s("const _: () =")
        .group(Delimiter::Brace, |c| {
            c.s(&constant(name, true, note));
            c.tokens(use_at(quote_spanned!(span=> #ident), span));
        });
    code.s(";");
    code.finish()
}
