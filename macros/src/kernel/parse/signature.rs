//! The usual declaration's signature read without syn's item parser: `fn name(a: T, b: &U<V>,
//! c: &mut U<V>);`, each parameter a plain name and its type a name (`u32`, `Scale`) or a
//! reference to a name with one type argument (`&CudaSlice<f32>`). The same `Signature` as
//! syn's, for about a fifth of the work: a macro runs unoptimised in a debug build (what
//! `cargo check` uses), where syn's signature parser tries every qualifier, pattern and type
//! form at each step (a third of `#[kernel]`'s parsing, `scripts/compile_bench.sh`). Anything
//! else (generics, a return type, a path, a pattern, an attribute) gives `None`, and syn reads
//! the signature.

use proc_macro2::{Delimiter, Ident, Spacing};
use syn::buffer::Cursor;

use crate::tokens::at_comma_or_end;
use syn::punctuated::Punctuated;
use syn::{FnArg, Pat, PatIdent, PatType, Path, Signature, Token, Type};

/// The signature from `cursor` up to its `;` (not taken), and the cursor at the `;`.
pub fn simple(cursor: Cursor<'_>) -> Option<(Signature, Cursor<'_>)> {
    let (fn_word, rest) = cursor.ident()?;
    let (ident, rest) = rest.ident()?;
    if fn_word != "fn" || is_reserved(&ident) {
        return None;
    }
    let (params, paren, after) = rest.group(Delimiter::Parenthesis)?;
    if !matches!(after.punct(), Some((p, _)) if p.as_char() == ';') {
        return None;
    }
    let mut inputs = Punctuated::new();
    let mut at = params;
    while !at.eof() {
        let (name, rest) = at.ident()?;
        let (colon, rest) = rest.punct()?;
        // `:` alone: not the start of `::`.
        if is_reserved(&name) || colon.as_char() != ':' || colon.spacing() != Spacing::Alone {
            return None;
        }
        let (ty, rest) = simple_type(rest)?;
        inputs.push_value(FnArg::Typed(PatType {
            attrs: Vec::new(),
            pat: Box::new(Pat::Ident(PatIdent {
                attrs: Vec::new(),
                by_ref: None,
                mutability: None,
                ident: name,
                subpat: None,
            })),
            colon_token: Token![:](colon.span()),
            ty: Box::new(ty),
        }));
        at = rest;
        if at.eof() {
            break;
        }
        let (comma, rest) = at.punct()?;
        if comma.as_char() != ',' {
            return None;
        }
        inputs.push_punct(Token![,](comma.span()));
        at = rest;
    }
    let signature = Signature {
        constness: None,
        asyncness: None,
        safety: syn::Safety::Default,
        abi: None,
        fn_token: Token![fn](fn_word.span()),
        ident,
        generics: syn::Generics::default(),
        paren_token: syn::token::Paren(paren),
        inputs,
        variadic: None,
        output: syn::ReturnType::Default,
    };
    Some((signature, after))
}

/// A name (`u32`), or `&Name<Arg>` / `&mut Name<Arg>` with one name as its argument, followed by
/// `,` or the end of the parameters.
fn simple_type(cursor: Cursor<'_>) -> Option<(Type, Cursor<'_>)> {
    if let Some((name, rest)) = cursor.ident() {
        if is_reserved(&name) || !at_comma_or_end(rest) {
            return None;
        }
        return Some((name_type(name), rest));
    }
    let (and, rest) = cursor.punct()?;
    if and.as_char() != '&' {
        return None;
    }
    let (mutability, rest) = match rest.ident() {
        Some((word, after)) if word == "mut" => (Some(Token![mut](word.span())), after),
        _ => (None, rest),
    };
    let (outer, rest) = rest.ident()?;
    let (lt, rest) = rest.punct()?;
    let (inner, rest) = rest.ident()?;
    let (gt, rest) = rest.punct()?;
    if !(lt.as_char() == '<' && gt.as_char() == '>' && at_comma_or_end(rest)) {
        return None;
    }
    if is_reserved(&outer) || is_reserved(&inner) {
        return None;
    }
    let mut args = Punctuated::new();
    args.push_value(syn::GenericArgument::Type(name_type(inner)));
    let mut path = Path::from(outer);
    path.segments[0].arguments =
        syn::PathArguments::AngleBracketed(syn::AngleBracketedGenericArguments {
            colon2_token: None,
            lt_token: Token![<](lt.span()),
            args,
            gt_token: Token![>](gt.span()),
        });
    let elem = path_type(path);
    let reference = Type::Reference(syn::TypeReference {
        attrs: Vec::new(),
        and_token: Token![&](and.span()),
        lifetime: None,
        mutability,
        elem: Box::new(elem),
    });
    Some((reference, rest))
}

/// A type that is one name.
fn name_type(name: Ident) -> Type {
    path_type(Path::from(name))
}

/// A type that is a path.
fn path_type(path: Path) -> Type {
    Type::Path(syn::TypePath {
        attrs: Vec::new(),
        qself: None,
        path,
    })
}

/// A keyword or `_` (`mut`, `self`, `dyn`…): syn knows what each means in a signature.
fn is_reserved(ident: &Ident) -> bool {
    crate::tokens::is_keyword(&ident.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;
    use syn::parse::{ParseStream, Parser};

    fn ours(tokens: proc_macro2::TokenStream) -> Option<Signature> {
        let parser = |input: ParseStream| {
            let sig = input.step(|cursor| {
                Ok(match simple(*cursor) {
                    Some((sig, rest)) => (Some(sig), rest),
                    None => (None, *cursor),
                })
            })?;
            if sig.is_some() {
                input.parse::<Token![;]>()?;
            } else {
                // Left as it was: the rest is syn's.
                input.parse::<proc_macro2::TokenStream>()?;
            }
            Ok(sig)
        };
        parser.parse2(quote!(#tokens ;)).ok().flatten()
    }

    fn syns(tokens: proc_macro2::TokenStream) -> Signature {
        syn::parse2(tokens).expect("a signature")
    }

    /// The shapes it reads give syn's `Signature`, spans aside.
    #[test]
    fn simple_signatures_are_syns() {
        for tokens in [
            quote!(fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>)),
            quote!(fn none()),
            quote!(fn one(x: &mut CudaViewMut<u8>,)),
            quote!(fn alias(s: Scale, t: r#Type)),
        ] {
            let fast = ours(tokens.clone()).unwrap_or_else(|| panic!("not read: {tokens}"));
            assert_eq!(fast, syns(tokens.clone()), "{tokens}");
        }
    }

    /// Every other shape is left to syn.
    #[test]
    fn other_signatures_go_to_syn() {
        for tokens in [
            quote!(fn generic<T>(x: T)),
            quote!(fn ret(x: u32) -> u32),
            quote!(unsafe fn q(x: u32)),
            quote!(fn path(x: std::primitive::u32)),
            quote!(fn nested(x: &CudaSlice<Vec<f32>>)),
            quote!(fn two(x: &Pair<f32, u32>)),
            quote!(fn life(x: &'a CudaSlice<f32>)),
            quote!(fn pat(mut x: u32)),
            quote!(fn wild(_: u32)),
            quote!(fn attr(#[a] x: u32)),
            quote!(fn tuple(x: (u32, u32))),
            quote!(fn array(x: [u32; 4])),
            quote!(fn refref(x: &&CudaSlice<f32>)),
            quote!(fn dyn_(x: &dyn Tr<u32>)),
            quote!(fn kw(x: &mut self)),
        ] {
            assert!(ours(tokens.clone()).is_none(), "{tokens}");
        }
    }
}
