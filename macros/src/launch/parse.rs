//! Tokens → IR. Structural mistakes (no `<<<`, no `>>>`, no argument list) stop parsing; a
//! malformed entry between the chevrons is recorded and parsing goes on with the next one, so
//! the user sees every syntax error at once.

use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};
use syn::ext::IdentExt;
use syn::parse::{ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{Expr, Ident, Path, Token};

use super::ast::{Attr, Chevrons, ConfigInput, Entry, Group, Item, Kernel, LaunchInput};
use super::keys::{self, Place};
use crate::report::Errors;

const LAUNCH_SHAPE: &str = "`launch!(KERNEL<<<GRID, BLOCK, STREAM, ATTRIBUTES…>>>(ARGS…))`";
const CONFIG_SHAPE: &str = "`config!(<<<GRID, BLOCK, ATTRIBUTES…>>>)`";

/// Parses the input of `launch!`.
pub fn parse_launch(input: TokenStream, cx: &mut Errors) -> syn::Result<LaunchInput> {
    let tts: Vec<TokenTree> = input.into_iter().collect();
    let Some(open) = find_triple(&tts, 0, '<') else {
        let span = tts
            .iter()
            .find(|t| matches!(t, TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis))
            .map_or_else(Span::call_site, TokenTree::span);
        return Err(syn::Error::new(
            span,
            format!("expected `<<<` between the kernel and its arguments: {LAUNCH_SHAPE}"),
        ));
    };
    let kernel = parse_kernel(&tts[..open], tts[open].span())?;
    let open_span = triple_span(&tts, open);
    // The closing `>>>` is the one just before the argument list that ends the input; a `>>>`
    // earlier is the end of nested generics (`size_of::<Option<Vec<u32>>>()`).
    let last_is_args = matches!(tts.last(),
        Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis);
    let closing = tts
        .len()
        .checked_sub(4)
        .filter(|&c| last_is_args && c >= open + 3 && find_triple(&tts, c, '>') == Some(c));
    let Some(close) = closing.or_else(|| find_triple(&tts, open + 3, '>')) else {
        return Err(syn::Error::new(
            open_span,
            format!("this `<<<` has no matching `>>>`: {LAUNCH_SHAPE}"),
        ));
    };
    let close_span = triple_span(&tts, close);
    let args =
        match tts.get(close + 3) {
            Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis => {
                let parser = |input: ParseStream| {
                    Punctuated::<Expr, Token![,]>::parse_terminated_with(input, parse_expr)
                };
                parser.parse2(g.stream())?.into_iter().collect()
            }
            other => return Err(syn::Error::new(
                other.map_or(close_span, TokenTree::span),
                "expected the kernel's arguments in parentheses after `>>>`: `(ARGS…)`, or `()` \
                 for a kernel without parameters",
            )),
        };
    if let Some(extra) = tts.get(close + 4) {
        return Err(syn::Error::new(
            extra.span(),
            format!("unexpected tokens after the kernel's arguments: {LAUNCH_SHAPE}"),
        ));
    }
    let inner: TokenStream = tts[open + 3..close].iter().cloned().collect();
    let entries = parse_entries(inner, 3, cx)?;
    Ok(LaunchInput {
        kernel,
        chevrons: Chevrons {
            open: open_span,
            close: close_span,
            entries,
        },
        args,
    })
}

/// Parses the input of `config!`.
pub fn parse_config(input: TokenStream, cx: &mut Errors) -> syn::Result<ConfigInput> {
    let tts: Vec<TokenTree> = input.into_iter().collect();
    let open = match find_triple(&tts, 0, '<') {
        Some(0) => 0,
        Some(_) => {
            return Err(syn::Error::new(
                tts[0].span(),
                format!(
                    "`config!` takes no kernel: {CONFIG_SHAPE}; the kernel is named at the launch"
                ),
            ))
        }
        None => {
            return Err(syn::Error::new(
                tts.first().map_or_else(Span::call_site, TokenTree::span),
                format!("expected `<<<`: {CONFIG_SHAPE}"),
            ))
        }
    };
    let open_span = triple_span(&tts, open);
    // The closing `>>>` ends the input; an earlier one ends nested generics.
    let closing = tts
        .len()
        .checked_sub(3)
        .filter(|&c| c >= open + 3 && find_triple(&tts, c, '>') == Some(c));
    let Some(close) = closing.or_else(|| find_triple(&tts, open + 3, '>')) else {
        return Err(syn::Error::new(
            open_span,
            format!("this `<<<` has no matching `>>>`: {CONFIG_SHAPE}"),
        ));
    };
    if let Some(extra) = tts.get(close + 3) {
        return Err(syn::Error::new(
            extra.span(),
            format!(
                "unexpected tokens after `>>>`: {CONFIG_SHAPE} builds a `LaunchConfig`; pass it \
                 to a kernel's `launch` function"
            ),
        ));
    }
    let inner: TokenStream = tts[open + 3..close].iter().cloned().collect();
    let entries = parse_entries(inner, 2, cx)?;
    Ok(ConfigInput {
        chevrons: Chevrons {
            open: open_span,
            close: triple_span(&tts, close),
            entries,
        },
    })
}

/// The index of the first of three consecutive `ch` puncts at the top level, from `start`.
fn find_triple(tts: &[TokenTree], start: usize, ch: char) -> Option<usize> {
    let is = |t: Option<&TokenTree>| matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == ch);
    (start..tts.len()).find(|&i| is(tts.get(i)) && is(tts.get(i + 1)) && is(tts.get(i + 2)))
}

/// The span of the three tokens from `at`, where the compiler can join spans.
fn triple_span(tts: &[TokenTree], at: usize) -> Span {
    let first = tts[at].span();
    first.join(tts[at + 2].span()).unwrap_or(first)
}

fn parse_kernel(tts: &[TokenTree], open: Span) -> syn::Result<Kernel> {
    match tts {
        [] => Err(syn::Error::new(
            open,
            format!("expected the kernel before `<<<`: {LAUNCH_SHAPE}"),
        )),
        [TokenTree::Ident(d), rest @ ..] if d == "dyn" => {
            let func = match rest {
                [TokenTree::Ident(f)] => Expr::Path(syn::ExprPath {
                    attrs: Vec::new(),
                    qself: None,
                    path: Path::from(f.clone()),
                }),
                [TokenTree::Group(g)] if g.delimiter() == Delimiter::Parenthesis => {
                    syn::parse2::<Expr>(g.stream())?
                }
                _ => {
                    let span = rest.first().map_or(d.span(), TokenTree::span);
                    return Err(syn::Error::new(
                        span,
                        "after `dyn`, name the `CudaFunction` with an identifier or a \
                         parenthesized expression: `dyn f` or `dyn (module.load_function(\"k\")?)`",
                    ));
                }
            };
            Ok(Kernel::Dyn {
                dyn_span: d.span(),
                func,
            })
        }
        _ => {
            let stream: TokenStream = tts.iter().cloned().collect();
            let path = Path::parse_mod_style.parse2(stream).map_err(|e| {
                syn::Error::new(
                    e.span(),
                    "expected the path of a `#[kernel]` item, or `dyn f` for a `CudaFunction`, \
                     before `<<<`",
                )
            })?;
            Ok(Kernel::Typed(path))
        }
    }
}

/// Parses the comma-separated entries between the chevrons. `positions` is how many positional
/// entries the macro takes (3 for `launch!`, 2 for `config!`): from there on a bare identifier is
/// an attribute key, even an unknown one, so that a typo gets the unknown-key message.
fn parse_entries(inner: TokenStream, positions: usize, cx: &mut Errors) -> syn::Result<Vec<Entry>> {
    let parser = |input: ParseStream| -> syn::Result<Vec<Entry>> {
        let mut entries = Vec::new();
        while !input.is_empty() {
            match parse_entry(input, entries.len(), positions) {
                Ok(entry) => entries.push(entry),
                Err(e) => {
                    cx.push(e);
                    skip_to_comma(input)?;
                }
            }
            if input.is_empty() {
                break;
            }
            if input.peek(Token![,]) {
                input.parse::<Token![,]>()?;
            } else {
                cx.push(input.error("expected `,` or `>>>`"));
                skip_to_comma(input)?;
                if input.peek(Token![,]) {
                    input.parse::<Token![,]>()?;
                }
            }
        }
        Ok(entries)
    };
    parser.parse2(inner)
}

fn skip_to_comma(input: ParseStream) -> syn::Result<()> {
    input.step(|cursor| {
        let mut rest = *cursor;
        while let Some((tt, next)) = rest.token_tree() {
            if matches!(&tt, TokenTree::Punct(p) if p.as_char() == ',') {
                break;
            }
            rest = next;
        }
        Ok(((), rest))
    })
}

/// `IDENT =` but not `IDENT ==` or `IDENT =>`.
fn peek_assign(input: ParseStream) -> bool {
    input.peek(Ident) && peek2_assign(input)
}

/// `KEY =` with any identifier as the key, `_` and keywords too: where only attributes can
/// follow, `_ = 0` and `type = 0` are keys (unknown ones), not expressions.
fn peek_assign_any(input: ParseStream) -> bool {
    input.peek(Ident::peek_any) && peek2_assign(input)
}

fn peek2_assign(input: ParseStream) -> bool {
    input.peek2(Token![=]) && !input.peek2(Token![==]) && !input.peek2(Token![=>])
}

/// A bare identifier followed by `,` or the end.
fn peek_bare_ident(input: ParseStream) -> Option<Ident> {
    let fork = input.fork();
    let ident = fork.parse::<Ident>().ok()?;
    (fork.is_empty() || fork.peek(Token![,])).then_some(ident)
}

/// `KEYWORD(…)` of a group (`stream(…)`) whose contents look like attributes (`KEY = …`, or a
/// known key), as opposed to a call of a function named `stream` in a positional expression.
fn peek_group(input: ParseStream, in_item_zone: bool) -> Option<&'static Place> {
    let fork = input.fork();
    let ident = fork.parse::<Ident>().ok()?;
    let place = Place::group(&ident.to_string())?;
    if !fork.peek(syn::token::Paren) {
        return None;
    }
    let group = fork.parse::<proc_macro2::Group>().ok()?;
    let after_ok = fork.is_empty() || fork.peek(Token![,]);
    if !after_ok {
        return None;
    }
    if in_item_zone {
        return Some(place);
    }
    let looks_like_attrs = |input: ParseStream| -> syn::Result<bool> {
        Ok(peek_assign(input)
            || peek_bare_ident(input).is_some_and(|i| keys::is_known(&i.to_string())))
    };
    let inner = |input: ParseStream| {
        let r = looks_like_attrs(input);
        input.parse::<TokenStream>()?;
        r
    };
    inner
        .parse2(group.stream())
        .unwrap_or(false)
        .then_some(place)
}

fn parse_entry(input: ParseStream, index: usize, positions: usize) -> syn::Result<Entry> {
    let in_item_zone = index >= positions;
    if let Some(place) = peek_group(input, in_item_zone) {
        let ident: Ident = input.parse()?;
        // Parsed on its own, so that an error inside is reported once (a nested `ParseBuffer`
        // left unfinished would add "expected `)`" at the same place).
        let group: proc_macro2::Group = input.parse()?;
        let attrs =
            (|input: ParseStream| parse_group_attrs(input, place)).parse2(group.stream())?;
        return Ok(Entry::Item(Item::Group(Group {
            place,
            ident,
            attrs,
        })));
    }
    if peek_assign(input) || (in_item_zone && peek_assign_any(input)) {
        return Ok(Entry::Item(Item::Attr(parse_attr(input)?)));
    }
    if let Some(ident) = peek_bare_ident(input) {
        // Before the positions are complete, only a flag key reads as an attribute: a stream
        // variable may well be called `stream` or `shared`.
        if in_item_zone || keys::is_flag(&ident.to_string()) {
            return Ok(Entry::Item(Item::Attr(parse_attr(input)?)));
        }
    }
    if input.peek(Ident) && input.peek2(syn::token::Paren) && in_item_zone {
        let ident: Ident = input.fork().parse()?;
        if Place::group(&ident.to_string()).is_some() {
            return Err(input.error(format!("expected `{ident}(KEY = VALUE, …)`")));
        }
    }
    Ok(Entry::Position(parse_expr(input)?))
}

/// An expression: a lone identifier or literal (`n`, `x`, `256`, `2.0`) followed by `,` or the
/// end is taken as it is, and so is one method call on an identifier (`n.div_ceil(256)`, the
/// usual grid; its arguments read the same way); any other goes through syn's expression
/// parser. The same `Expr` as syn's, for a fraction of the work: a macro runs unoptimised in a
/// debug build, where syn's expression parser tries each keyword and operator before it
/// accepts `x` (about a fifth of `launch!`'s own time, `scripts/compile_bench.sh`).
pub(crate) fn parse_expr(input: ParseStream) -> syn::Result<Expr> {
    let lone = input.step(|cursor| {
        let (tt, rest) = match cursor.token_tree() {
            Some(next) => next,
            None => return Err(cursor.error("expected an expression")),
        };
        let ends = crate::tokens::at_comma_or_end(rest);
        if !ends {
            if let TokenTree::Ident(receiver) = &tt {
                if let Some((call, after)) = method_call(receiver, rest) {
                    return Ok((Some(call), after));
                }
            }
        }
        let expr = match (&tt, ends) {
            (TokenTree::Ident(i), true) if !crate::tokens::is_keyword(&i.to_string()) => {
                Some(Expr::Path(syn::ExprPath {
                    attrs: Vec::new(),
                    qself: None,
                    path: Path::from(i.clone()),
                }))
            }
            (TokenTree::Literal(l), true) => match syn::Lit::new(l.clone()) {
                // A literal syn reads as something else (`1u8x`) keeps syn's own error.
                syn::Lit::Verbatim(_) => None,
                lit => Some(Expr::Lit(syn::ExprLit {
                    attrs: Vec::new(),
                    lit,
                })),
            },
            _ => None,
        };
        match expr {
            Some(expr) => Ok((Some(expr), rest)),
            None => Ok((None, *cursor)),
        }
    })?;
    match lone {
        Some(expr) => Ok(expr),
        None => input.parse(),
    }
}

/// `receiver.method(args)` then `,` or the end, from the cursor after `receiver` (no turbofish,
/// no keyword, no chained call: those go through syn); `None` where the tokens are anything
/// else, or an argument does not parse (syn then reports it).
fn method_call<'c>(
    receiver: &Ident,
    rest: syn::buffer::Cursor<'c>,
) -> Option<(Expr, syn::buffer::Cursor<'c>)> {
    let (dot, rest) = rest.punct().filter(|(p, _)| p.as_char() == '.')?;
    let (method, rest) = rest.ident()?;
    let (args, paren, after) = rest.group(Delimiter::Parenthesis)?;
    if !crate::tokens::at_comma_or_end(after)
        || crate::tokens::is_keyword(&receiver.to_string())
        || crate::tokens::is_keyword(&method.to_string())
    {
        return None;
    }
    let parser = |input: ParseStream| {
        Punctuated::<Expr, Token![,]>::parse_terminated_with(input, parse_expr)
    };
    let args = parser.parse2(args.token_stream()).ok()?;
    let call = Expr::MethodCall(syn::ExprMethodCall {
        attrs: Vec::new(),
        receiver: Box::new(Expr::Path(syn::ExprPath {
            attrs: Vec::new(),
            qself: None,
            path: Path::from(receiver.clone()),
        })),
        dot_token: Token![.](dot.span()),
        method,
        turbofish: None,
        paren_token: syn::token::Paren(paren),
        args,
    });
    Some((call, after))
}

/// `KEY` or `KEY = EXPR`.
fn parse_attr(input: ParseStream) -> syn::Result<Attr> {
    let key = Ident::parse_any(input)?;
    if !input.peek(Token![=]) {
        return Ok(Attr { key, value: None });
    }
    let eq: Token![=] = input.parse()?;
    if input.is_empty() || input.peek(Token![,]) {
        return Err(syn::Error::new(
            eq.span,
            format!("expected a value after `{key} =`"),
        ));
    }
    Ok(Attr {
        key,
        value: Some(parse_expr(input)?),
    })
}

/// The inside of a group (`stream(…)`): attributes only; `shared` and nested groups are
/// rejected later (check) or here (a nested group), with a message saying where they belong.
fn parse_group_attrs(input: ParseStream, place: &Place) -> syn::Result<Vec<Attr>> {
    let mut attrs = Vec::new();
    let (keyword, noun) = (place.keyword.unwrap_or_default(), place.noun);
    while !input.is_empty() {
        if input.peek(Ident) && input.peek2(syn::token::Paren) {
            let ident: Ident = input.fork().parse()?;
            if let Some(inner) = Place::group(&ident.to_string()) {
                return Err(syn::Error::new(
                    ident.span(),
                    format!(
                        "`{}` groups do not nest: list the {noun} attributes in one group",
                        inner.syntax
                    ),
                ));
            }
        }
        if !input.peek(Ident::peek_any) {
            return Err(input.error(format!(
                "expected a {noun} attribute, `KEY` or `KEY = VALUE` (`{keyword}({})`)",
                place.example
            )));
        }
        attrs.push(parse_attr(input)?);
        if input.is_empty() {
            break;
        }
        input.parse::<Token![,]>()?;
    }
    Ok(attrs)
}
