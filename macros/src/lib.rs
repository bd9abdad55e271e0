//! Procedural macros of chevron: `#[kernel]`, `launch!` and `config!`.
//!
//! Use them through the `chevron` crate, which documents them; generated code names only
//! `::chevron::__private::…`.
#![deny(missing_docs)]

use proc_macro::TokenStream;

mod kernel;
mod launch;
mod report;

/// Declares a CUDA kernel with a typed Rust signature, checked against its PTX entry.
///
/// See the `chevron` crate documentation for the full syntax.
#[proc_macro_attribute]
pub fn kernel(args: TokenStream, item: TokenStream) -> TokenStream {
    kernel::expand(args.into(), item.into()).into()
}

/// Launches a kernel: `launch!(KERNEL<<<GRID, BLOCK, STREAM, ITEMS…>>>(ARGS…))`.
///
/// See the `chevron` crate documentation for the grammar and the attribute keys.
#[proc_macro]
pub fn launch(input: TokenStream) -> TokenStream {
    launch::expand_launch(input.into()).into()
}

/// Builds a `chevron::LaunchConfig`: `config!(<<<GRID, BLOCK, ITEMS…>>>)`.
///
/// See the `chevron` crate documentation for the grammar and the attribute keys.
#[proc_macro]
pub fn config(input: TokenStream) -> TokenStream {
    launch::expand_config(input.into()).into()
}
