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

/// The arguments (or parameter types) of a typed launch as the runtime's `ArgTuple` takes them:
/// one tuple `(a, b, …,)` for up to `MAX_TUPLE_PARAMS`, otherwise an `ArgChain(first, rest)`
/// of such tuples in chunks of 64, chained two by two (so that the nesting is logarithmic),
/// with each chain's count written out. `chain` gives the path of `ArgChain` (made only where
/// needed); `value`: the items are expressions (`ArgChain::<_, _, N>(…)`), otherwise types
/// (`ArgChain<…, N>`). The items stay in order, so expressions are evaluated as written.
pub fn arg_list(
    items: Vec<TokenStream>,
    chain: impl Fn() -> TokenStream + Copy,
    value: bool,
) -> TokenStream {
    use chevron_cuda_rules::limits::MAX_TUPLE_PARAMS as CHUNK;
    let n = items.len();
    if n <= CHUNK {
        return quote::quote!((#(#items,)*));
    }
    // The first half of the chunks (at least one), then the rest.
    let chunks = n.div_ceil(CHUNK);
    let mut first = items;
    let rest = first.split_off(chunks / 2 * CHUNK);
    let (a, b) = (arg_list(first, chain, value), arg_list(rest, chain, value));
    let n = proc_macro2::Literal::usize_unsuffixed(n);
    let chain = chain();
    if value {
        quote::quote!(#chain::<_, _, #n>(#a, #b))
    } else {
        quote::quote!(#chain<#a, #b, #n>)
    }
}

/// Whether `cursor` is at a `,` or the end of its stream: where an argument or a parameter
/// that the macros read without syn's parsers must end.
pub fn at_comma_or_end(cursor: syn::buffer::Cursor<'_>) -> bool {
    cursor.eof() || matches!(cursor.punct(), Some((p, _)) if p.as_char() == ',')
}

/// Rust's keywords, strict and reserved (`true`, `self`, `match`…): a lone one goes through
/// syn's parser, which knows what each is.
pub fn is_keyword(word: &str) -> bool {
    matches!(
        word,
        "as" | "break"
            | "const"
            | "continue"
            | "crate"
            | "else"
            | "enum"
            | "extern"
            | "false"
            | "fn"
            | "for"
            | "if"
            | "impl"
            | "in"
            | "let"
            | "loop"
            | "match"
            | "mod"
            | "move"
            | "mut"
            | "pub"
            | "ref"
            | "return"
            | "self"
            | "Self"
            | "static"
            | "struct"
            | "super"
            | "trait"
            | "true"
            | "type"
            | "unsafe"
            | "use"
            | "where"
            | "while"
            | "async"
            | "await"
            | "dyn"
            | "abstract"
            | "become"
            | "box"
            | "do"
            | "final"
            | "macro"
            | "override"
            | "priv"
            | "typeof"
            | "unsized"
            | "virtual"
            | "yield"
            | "try"
            | "gen"
            | "_"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(n: usize, value: bool) -> String {
        let items = (0..n).map(|i| i.to_string().parse().unwrap()).collect();
        arg_list(items, || quote::quote!(C), value).to_string()
    }

    #[test]
    fn up_to_64_arguments_are_one_tuple() {
        assert_eq!(list(0, true), "()");
        assert_eq!(list(1, true), "(0 ,)");
        assert!(list(64, false).starts_with("(0 , 1 ,"));
    }

    #[test]
    fn more_are_chained_in_chunks_of_64_in_order() {
        let s = list(66, true);
        assert!(s.starts_with("C :: < _ , _ , 66 > ((0 , 1 ,"), "{s}");
        assert!(s.ends_with("63 ,) , (64 , 65 ,))"), "{s}");
        let s = list(200, false);
        // 4 chunks: two chains of two (128 = 64 + 64, and 72 = 64 + 8).
        assert!(s.starts_with("C < C < (0 ,"), "{s}");
        assert!(s.contains(", 128 > , C < (128 ,"), "{s}");
        assert!(s.ends_with("199 ,) , 72 > , 200 >"), "{s}");
    }
}
