//! Helpers over the user's tokens that every phase of `launch!`/`config!` reads through: seeing
//! through parentheses, a literal's value, source-like text for messages. Below the phases, so
//! that none of them imports another for these.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::Expr;

/// Sees through parentheses and invisible groups (from `macro_rules!` fragments).
pub fn unparen(expr: &Expr) -> &Expr {
    match expr {
        Expr::Paren(p) => unparen(&p.expr),
        Expr::Group(g) => unparen(&g.expr),
        other => other,
    }
}

/// Source-like text of some tokens, for messages.
pub fn snippet(tokens: &impl ToTokens) -> String {
    let ts: TokenStream = tokens.to_token_stream();
    let text = ts.to_string();
    text.replace(" :: ", "::")
        .replace(":: ", "::")
        .replace(" . ", ".")
        .replace("& ", "&")
        .replace(" (", "(")
        .replace("( ", "(")
        .replace(" )", ")")
        .replace(" ,", ",")
}
