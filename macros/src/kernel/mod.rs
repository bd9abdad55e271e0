//! `#[kernel]`: parse → check against the PTX → expand.

use proc_macro2::TokenStream;

/// Expands `#[kernel(...)]` on `item`.
pub fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let _ = args;
    let mut out = syn::Error::new(
        proc_macro2::Span::call_site(),
        "#[kernel] is not implemented yet",
    )
    .to_compile_error();
    out.extend(item);
    out
}
