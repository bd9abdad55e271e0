//! Collects every error a phase finds, so the user sees all of them at once.

use proc_macro2::{Span, TokenStream};

/// An error collector: phases push spanned errors, then [`Errors::finish`] turns them into one
/// `syn::Error` (which renders as one `compile_error!` per message).
#[derive(Default)]
pub struct Errors {
    errors: Vec<syn::Error>,
}

impl Errors {
    /// Records an error at `span`.
    pub fn error(&mut self, span: Span, message: impl std::fmt::Display) {
        self.errors.push(syn::Error::new(span, message));
    }

    /// Records an existing error.
    pub fn push(&mut self, error: syn::Error) {
        self.errors.push(error);
    }

    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }

    /// `Err` with all errors combined, if any was recorded.
    pub fn finish(self) -> syn::Result<()> {
        let mut iter = self.errors.into_iter();
        match iter.next() {
            None => Ok(()),
            Some(mut first) => {
                for e in iter {
                    first.combine(e);
                }
                Err(first)
            }
        }
    }

    /// Between phases: stop if anything was recorded, keeping the collector usable.
    pub fn propagate(&mut self) -> syn::Result<()> {
        std::mem::take(self).finish()
    }
}

/// Renders a `syn::Result<TokenStream>` as tokens: the expansion, or the errors.
pub fn into_tokens(result: syn::Result<TokenStream>) -> TokenStream {
    result.unwrap_or_else(syn::Error::into_compile_error)
}
