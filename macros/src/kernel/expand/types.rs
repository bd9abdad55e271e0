//! A declaration's parameter types as `TypedKernel` states them: the whole list as one tuple
//! (`Args`, what `launch` and `update` take), the values alone (`Scalars`, for
//! `update_scalars` and `update_ordered`), the buffers as ordered buffers of a graph
//! (`Ordered`), and which parameters are buffers.

use proc_macro2::{Group, Ident, Punct, Spacing, Span, TokenStream, TokenTree};
use quote::{quote, ToTokens};

use crate::kernel::ast::KernelParam;
use crate::tokens::arg_list;

/// The associated items of a declaration's `TypedKernel` impl that its parameters make.
pub fn param_types(p: &TokenStream, params: &[KernelParam]) -> TokenStream {
    let (r, v) = (lifetime("r"), lifetime("v"));
    let chain = quote!(#p::runtime::ArgChain);
    let args = params.iter().map(|q| with_lifetimes(&q.ty, &r, &v));
    let args = arg_list(args.collect(), &chain, false);
    let scalars = params
        .iter()
        .filter(|q| !q.by_ref)
        .map(|q| with_lifetimes(&q.ty, &v, &v));
    let scalars = arg_list(scalars.collect(), &chain, false);
    let ordered: Option<Vec<TokenStream>> = params
        .iter()
        .filter(|q| q.by_ref)
        .map(|q| {
            let elem = with_lifetimes(buffer_elem(&q.ty)?, &r, &r);
            Some(match &q.ty {
                syn::Type::Reference(t) if t.mutability.is_some() => {
                    quote!(&'r #p::runtime::Ordered<'r, #elem>)
                }
                _ => quote!(&'r dyn #p::runtime::OrderedBuffer<#elem>),
            })
        })
        .collect();
    // A buffer type that names no element type (an alias): no `update_ordered`.
    let ordered = match ordered {
        Some(o) => arg_list(o, &chain, false),
        None => quote!(#p::NoElementType),
    };
    let buffers = params.iter().map(|q| q.by_ref);
    let n = params.len();
    quote! {
        type Args<'r, 'v> = #args where 'v: 'r;
        type Scalars<'v> = #scalars;
        type Ordered<'r> = #ordered;
        type Buffers = [bool; #n];
        const BUFFERS: [bool; #n] = [#(#buffers),*];
    }
}

/// `'name`, spanned at the call site.
fn lifetime(name: &str) -> TokenStream {
    let mut out = TokenStream::new();
    let mut tick = Punct::new('\'', Spacing::Joint);
    tick.set_span(Span::call_site());
    out.extend([
        TokenTree::Punct(tick),
        TokenTree::Ident(Ident::new(name, Span::call_site())),
    ]);
    out
}

/// `ty` with a lifetime on every reference (`refs`: `&T` becomes `&'r T`) and `inner` for every
/// `'_` (`CudaView<'_, T>` becomes `CudaView<'v, T>`): the elided lifetimes of a function's
/// parameter types, which an associated type must name.
fn with_lifetimes(ty: &syn::Type, refs: &TokenStream, inner: &TokenStream) -> TokenStream {
    // A plain path (`u32`, `half::f16`) has nothing to rewrite: its tokens as they are, without
    // the walk (which costs, in the unoptimised build cargo makes of proc macros).
    if let syn::Type::Path(p) = ty {
        let plain = p.qself.is_none()
            && p.path.segments.iter().all(|s| {
                s.arguments.is_none()
                    && !HIDDEN_LIFETIME.iter().any(|h| s.ident == h)
                    && !VIEWS.iter().any(|v| s.ident == v)
            });
        if plain {
            return ty.to_token_stream();
        }
    }
    rewrite(ty.to_token_stream(), refs, inner)
}

/// The kernel parameter types with a lifetime that a function signature may leave out
/// (`ConditionalHandle` for `ConditionalHandle<'_>`): it is written in then. (A type of the
/// user's own with a hidden lifetime must write it, `MyHandle<'_>`: rustc says so.)
const HIDDEN_LIFETIME: [&str; 2] = ["ConditionalHandle", "DeviceGraphHandle"];

/// The views, whose lifetime a function signature may leave out (`CudaView<f32>`).
const VIEWS: [&str; 2] = ["CudaView", "CudaViewMut"];

fn rewrite(tokens: TokenStream, refs: &TokenStream, inner: &TokenStream) -> TokenStream {
    let mut out = TokenStream::new();
    let mut iter = tokens.into_iter().peekable();
    let is =
        |t: Option<&TokenTree>, c: char| matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == c);
    while let Some(t) = iter.next() {
        match t {
            TokenTree::Group(g) => {
                let mut group = Group::new(g.delimiter(), rewrite(g.stream(), refs, inner));
                group.set_span(g.span());
                out.extend([TokenTree::Group(group)]);
            }
            TokenTree::Punct(ref punct) if punct.as_char() == '&' => {
                out.extend([t.clone()]);
                if !is(iter.peek(), '\'') {
                    out.extend(refs.clone());
                }
            }
            TokenTree::Punct(ref punct) if punct.as_char() == '\'' => match iter.peek() {
                Some(TokenTree::Ident(i)) if i == "_" => {
                    iter.next();
                    out.extend(inner.clone());
                }
                _ => out.extend([t.clone()]),
            },
            TokenTree::Ident(ref i) if HIDDEN_LIFETIME.iter().any(|h| i == h) => {
                out.extend([t.clone()]);
                if !is(iter.peek(), '<') {
                    out.extend(quote!(<#inner>));
                }
            }
            TokenTree::Ident(ref i) if VIEWS.iter().any(|v| i == v) => {
                out.extend([t.clone()]);
                if is(iter.peek(), '<') {
                    out.extend(iter.next());
                    if !is(iter.peek(), '\'') {
                        out.extend(quote!(#inner,));
                    }
                }
            }
            t => out.extend([t]),
        }
    }
    out
}

/// `T` of a buffer parameter's type (`&CudaSlice<T>`, `&mut CudaViewMut<'_, T>`): the first
/// type argument of the referenced path; `None` for a type without one (an alias).
fn buffer_elem(ty: &syn::Type) -> Option<&syn::Type> {
    let syn::Type::Reference(r) = ty else {
        return None;
    };
    let mut elem = &*r.elem;
    loop {
        elem = match elem {
            syn::Type::Group(g) => &g.elem,
            syn::Type::Paren(p) => &p.elem,
            _ => break,
        };
    }
    let syn::Type::Path(p) = elem else {
        return None;
    };
    let syn::PathArguments::AngleBracketed(args) = &p.path.segments.last()?.arguments else {
        return None;
    };
    args.args.iter().find_map(|a| match a {
        syn::GenericArgument::Type(t) => Some(t),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewritten(ty: &str) -> String {
        let ty: syn::Type = syn::parse_str(ty).unwrap();
        with_lifetimes(&ty, &lifetime("r"), &lifetime("v")).to_string()
    }

    #[test]
    fn elided_lifetimes_are_named() {
        assert_eq!(rewritten("&CudaSlice<f32>"), "& 'r CudaSlice < f32 >");
        assert_eq!(
            rewritten("&mut CudaViewMut<'_, f32>"),
            "& 'r mut CudaViewMut < 'v , f32 >"
        );
        assert_eq!(
            rewritten("&'static CudaSlice<u8>"),
            "& 'static CudaSlice < u8 >"
        );
        assert_eq!(rewritten("[u32; 4]"), "[u32 ; 4]");
        assert_eq!(rewritten("u32"), "u32");
        assert_eq!(rewritten("ConditionalHandle"), "ConditionalHandle < 'v >");
        assert_eq!(
            rewritten("chevron::ConditionalHandle<'_>"),
            "chevron :: ConditionalHandle < 'v >"
        );
        assert_eq!(rewritten("&CudaView<f32>"), "& 'r CudaView < 'v , f32 >");
    }
}
