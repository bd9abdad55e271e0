//! `launch!` and `config!`: parse → check → expand.

use proc_macro2::TokenStream;

/// Expands `launch!`.
pub fn expand_launch(input: TokenStream) -> TokenStream {
    syn::Error::new(
        proc_macro2::Span::call_site(),
        "launch! is not implemented yet",
    )
    .to_compile_error()
    .into_iter()
    .chain(input.into_iter().take(0))
    .collect()
}

/// Expands `config!`.
pub fn expand_config(input: TokenStream) -> TokenStream {
    expand_launch(input)
}
