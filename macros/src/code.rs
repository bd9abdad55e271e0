//! Generated code written as source text and lexed by rustc, with the user's tokens spliced in
//! where their spans matter.
//!
//! Why: Cargo builds proc macros unoptimised for `cargo check`, and there every token made
//! with `quote!` is several thousand instructions of proc-macro bridge traffic (a
//! declaration's expansion is about 600 tokens). Text is lexed by rustc's own, optimised lexer
//! in one bridge call: `scripts/compile_bench.sh` measures the difference. Text tokens are
//! spanned at the call site, as `quote!`'s are; tokens that come from the user's source (types,
//! the declared name, attributes) keep their spans through [`Code::tokens`], so that rustc
//! reports at them, and reports an error once however many times the type is named.

use std::fmt::Write as _;

use proc_macro2::{Delimiter, Group, Span, TokenStream, TokenTree};
use quote::ToTokens;

/// Generated code under construction: text not yet lexed, after the tokens made so far.
#[derive(Default)]
pub struct Code {
    done: TokenStream,
    text: String,
}

impl Code {
    /// Empty code.
    pub fn new() -> Code {
        Code::default()
    }

    /// Appends source text (lexed later, spanned at the call site). Delimiters must balance
    /// within each stretch of text between spliced tokens and groups.
    pub fn s(&mut self, text: &str) -> &mut Code {
        self.text.push_str(text);
        self.text.push(' ');
        self
    }

    /// Appends `text` as a string literal.
    pub fn string(&mut self, text: &str) -> &mut Code {
        // `str`'s `Debug` writes a valid Rust string literal (escapes included).
        let _ = write!(self.text, "{text:?} ");
        self
    }

    /// Appends the tokens as they are, spans included.
    pub fn tokens(&mut self, tokens: impl ToTokens) -> &mut Code {
        self.flush();
        tokens.to_tokens(&mut self.done);
        self
    }

    /// Appends attributes as written (nothing, and no lexing, for none).
    pub fn attrs(&mut self, attrs: &[&syn::Attribute]) -> &mut Code {
        if !attrs.is_empty() {
            self.tokens(quote::quote!(#(#attrs)*));
        }
        self
    }

    /// Appends a group (`delimiter`) whose contents `f` writes: for text around spliced tokens
    /// inside braces, brackets or parentheses.
    pub fn group(&mut self, delimiter: Delimiter, f: impl FnOnce(&mut Code)) -> &mut Code {
        let mut inner = Code::new();
        f(&mut inner);
        let mut group = Group::new(delimiter, inner.finish());
        group.set_span(Span::call_site());
        self.flush();
        self.done.extend([TokenTree::Group(group)]);
        self
    }

    /// `text` alone, as tokens.
    pub fn lexed(text: &str) -> TokenStream {
        let mut code = Code::new();
        code.s(text);
        code.finish()
    }

    /// The code written, as tokens.
    pub fn finish(mut self) -> TokenStream {
        self.flush();
        self.done
    }

    fn flush(&mut self) {
        if !self.text.trim().is_empty() {
            // One stream appended (`Extend<TokenStream>`), not its tokens one by one.
            self.done.extend(std::iter::once(lex(&self.text)));
        }
        self.text.clear();
    }
}

impl std::fmt::Write for Code {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.text.push_str(s);
        Ok(())
    }
}

/// `text` as tokens: rustc's lexer inside a macro expansion, proc-macro2's elsewhere (unit
/// tests). Generated text always lexes; should it not, the expansion says so as an error
/// instead of a panic.
fn lex(text: &str) -> TokenStream {
    let lexed = if proc_macro::is_available() {
        text.parse::<proc_macro::TokenStream>()
            .map(TokenStream::from)
            .map_err(|e| e.to_string())
    } else {
        text.parse::<TokenStream>().map_err(|e| e.to_string())
    };
    lexed.unwrap_or_else(|e| {
        let message = format!("chevron: generated code did not lex ({e}); please report this");
        quote::quote!(::core::compile_error!(#message);)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_spliced_tokens_keep_their_order() {
        let mut code = Code::new();
        let ty: syn::Type = syn::parse_quote!(CudaSlice<f32>);
        code.s("type A =").tokens(&ty).s(";");
        code.group(Delimiter::Brace, |c| {
            c.s("const B: u8 =");
            c.tokens(quote::quote!(1));
            c.s("; const C: &str =").string("say \"hi\"\n").s(";");
        });
        assert_eq!(
            code.finish().to_string(),
            "type A = CudaSlice < f32 > ; { const B : u8 = 1 ; const C : & str = \"say \\\"hi\\\"\\n\" ; }"
        );
    }

    #[test]
    fn unlexable_text_is_an_error_not_a_panic() {
        let mut code = Code::new();
        code.s("fn f() {");
        assert!(code.finish().to_string().contains("compile_error"));
    }
}
