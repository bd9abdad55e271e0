//! A declaration's parameter types as `TypedKernel` states them: the whole list as one tuple
//! (`Args`, what `launch` and `update` take), the values alone (`Scalars`, for
//! `update_scalars` and `update_ordered`), the buffers as ordered buffers of a graph
//! (`Ordered`), and which parameters are buffers.

use proc_macro2::{Group, Ident, Punct, Spacing, Span, TokenStream, TokenTree};
use quote::{quote, ToTokens};

use crate::code::Code;
use crate::kernel::ast::KernelParam;
use crate::tokens::arg_list;

/// The associated items of a declaration's `TypedKernel` impl that its parameters make,
/// written into `code` (`pt`: the path of `chevron::__private`, as text); the types are the
/// user's tokens.
pub fn param_types(code: &mut Code, pt: &str, params: &[KernelParam]) {
    let (r, v) = (lifetime("r"), lifetime("v"));
    let chain = || Code::lexed(&format!("{pt}::runtime::ArgChain"));
    let args = params
        .iter()
        .map(|q| with_lifetimes(&q.ty, &q.ty_text, &r, &v));
    let args = arg_list(args.collect(), chain, false);
    let scalars = params
        .iter()
        .filter(|q| !q.by_ref)
        .map(|q| with_lifetimes(&q.ty, &q.ty_text, &v, &v));
    let scalars = arg_list(scalars.collect(), chain, false);
    // Each head lexed once per declaration, then copied: `&'r …::Ordered<'r,` for a buffer
    // the kernel writes, `&'r dyn …::OrderedBuffer<` for one it reads.
    let mut heads: [Option<TokenStream>; 2] = [None, None];
    // `None` where a buffer's type names no element type (an alias): no `update_ordered`.
    let mut ordered: Option<Vec<TokenStream>> = Some(Vec::new());
    for q in params.iter().filter(|q| q.by_ref) {
        let Some(items) = ordered.as_mut() else {
            break;
        };
        // The element's text is within the reference's, after its `&`.
        let inside = q.ty_text.trim_start().trim_start_matches('&');
        let Some(elem) = buffer_elem(&q.ty) else {
            ordered = None;
            continue;
        };
        let elem = with_lifetimes(elem, inside, &r, &r);
        let writes = matches!(&q.ty, syn::Type::Reference(t) if t.mutability.is_some());
        let head = heads[usize::from(writes)].get_or_insert_with(|| {
            Code::lexed(&if writes {
                format!("&'r {pt}::runtime::Ordered<'r,")
            } else {
                format!("&'r dyn {pt}::runtime::OrderedBuffer<")
            })
        });
        let mut item = head.clone();
        item.extend([elem]);
        item.extend([TokenTree::Punct(Punct::new('>', Spacing::Alone))]);
        items.push(item);
    }
    code.s("type Args<'r, 'v> =")
        .tokens(args)
        .s("where 'v: 'r;");
    code.s("type Scalars<'v> =").tokens(scalars).s(";");
    match ordered {
        Some(o) => code
            .s("type Ordered<'r> =")
            .tokens(arg_list(o, chain, false)),
        None => code.s(&format!("type Ordered<'r> = {pt}::NoElementType")),
    };
    let buffers = params
        .iter()
        .map(|q| if q.by_ref { "true" } else { "false" })
        .collect::<Vec<_>>()
        .join(", ");
    let n = params.len();
    code.s(&format!(
        "; type Buffers = [bool; {n}usize]; const BUFFERS: [bool; {n}usize] = [{buffers}];"
    ));
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
/// parameter types, which an associated type must name. `text`: the whole parameter type as
/// written (`ty` or a type inside it), which tells when there is nothing to rewrite.
fn with_lifetimes(
    ty: &syn::Type,
    text: &str,
    refs: &TokenStream,
    inner: &TokenStream,
) -> TokenStream {
    // The common types (`u32`, `&CudaSlice<f32>`) without the token walk, which costs, in the
    // unoptimised build cargo makes of proc macros: a type whose text has no lifetime and no
    // name that hides one has nothing to rewrite but its own `&`, if it is a reference and
    // has no other.
    let hidden = text.contains('\'')
        || HIDDEN_LIFETIME
            .iter()
            .chain(&VIEWS)
            .any(|name| text.contains(name));
    let refs_in_text = text.matches('&').count();
    if !hidden {
        match ty {
            syn::Type::Path(_) if refs_in_text == 0 => return ty.to_token_stream(),
            syn::Type::Reference(r) if refs_in_text == 1 => {
                let mut out = r.and_token.to_token_stream();
                out.extend(refs.clone());
                r.mutability.to_tokens(&mut out);
                r.elem.to_tokens(&mut out);
                return out;
            }
            _ => {}
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
        with_lifetimes(
            &ty,
            &quote!(#ty).to_string(),
            &lifetime("r"),
            &lifetime("v"),
        )
        .to_string()
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
