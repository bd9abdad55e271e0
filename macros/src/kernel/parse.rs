//! Parsing `#[kernel(...)]` arguments and the declaration it is on.

mod path_expr;
mod signature;

use proc_macro2::{Span, TokenStream, TokenTree};
use syn::parse::{ParseStream, Parser};
use syn::spanned::Spanned;
use syn::{Attribute, Block, LitStr, Signature, Token, Visibility};

use chevron_cuda_rules::fit::CooperativeUse;

use super::ast::{KernelArgs, KernelItem, SourceArg, SourceKind};
use crate::report::Errors;

const KEYS: &str = "`ptx = \"….ptx\"`, `cuda = \"….cu\"`, `name = \"…\"`, \
                    `options = [\"-std=c++17\", …]`, `pdl = \"no_upstream_reads\"`, \
                    `cooperative = \"optional\"`/`\"co_resident\"` or \
                    `crate = \"path::to::chevron\"`";

/// Parses the attribute's arguments, recording every problem in `cx`.
///
/// Each comma-separated argument is parsed on its own, so one that is not understood does not
/// hide the others (`ptx = 1, ptx = "k.ptx"` reports only the `1`).
pub fn parse_args(args: TokenStream, cx: &mut Errors) -> KernelArgs {
    let mut out = KernelArgs {
        span: Some(Span::call_site()),
        ..KernelArgs::default()
    };
    for arg in split_commas(args) {
        // A broken `name = …` says nothing about the source; anything else may be the source
        // misspelled.
        let is_name =
            matches!(arg.clone().into_iter().next(), Some(TokenTree::Ident(i)) if i == "name");
        let parser = syn::meta::parser(|meta| parse_arg(meta, &mut out, cx));
        if let Err(e) = parser.parse2(arg) {
            out.invalid |= !is_name;
            cx.push(e);
        }
    }
    out
}

/// The arguments between top-level commas (a comma inside a group belongs to its argument).
fn split_commas(args: TokenStream) -> Vec<TokenStream> {
    let mut out = vec![TokenStream::new()];
    for tt in args {
        match &tt {
            TokenTree::Punct(p) if p.as_char() == ',' => out.push(TokenStream::new()),
            _ => out.last_mut().map_or((), |last| last.extend([tt])),
        }
    }
    out.retain(|a| !a.is_empty());
    out
}

/// `= "…"` after `key`, with the fix for `key("…")` and `key: "…"`.
pub(crate) fn string_value(
    meta: &syn::meta::ParseNestedMeta<'_>,
    key: &str,
    example: &str,
) -> syn::Result<LitStr> {
    if !meta.input.peek(Token![=]) {
        // Show the fix with the user's own string where there is one.
        let written = if meta.input.peek(syn::token::Paren) {
            let content;
            syn::parenthesized!(content in meta.input);
            content.parse::<LitStr>().ok()
        } else if meta.input.peek(Token![:]) {
            meta.input.parse::<Token![:]>()?;
            meta.input.parse::<LitStr>().ok()
        } else {
            None
        };
        let value = written.map_or(example.to_string(), |l| l.value());
        return Err(meta.error(format!("write `{key} = {value:?}`")));
    }
    let value = meta.value()?;
    value.parse::<LitStr>().map_err(|e| {
        syn::Error::new(
            e.span(),
            format!("`{key}` takes a string: `{key} = \"{example}\"`"),
        )
    })
}

fn parse_arg(
    meta: syn::meta::ParseNestedMeta<'_>,
    out: &mut KernelArgs,
    cx: &mut Errors,
) -> syn::Result<()> {
    let key = meta
        .path
        .get_ident()
        .map(|i| i.to_string())
        .unwrap_or_default();
    match key.as_str() {
        "ptx" | "cuda" => {
            let (kind, example) = if key == "ptx" {
                (SourceKind::Ptx, "kernels/saxpy.ptx")
            } else {
                (SourceKind::Cuda, "kernels/saxpy.cu")
            };
            let mut paths =
                path_expr::source_paths(&meta, &key, example, kind == SourceKind::Ptx)?.into_iter();
            let Some(path) = paths.next() else {
                return Ok(());
            };
            let variants: Vec<LitStr> = paths.collect();
            for p in std::iter::once(&path).chain(&variants) {
                if p.value().is_empty() {
                    cx.error(
                        p.span(),
                        format!("`{key}` needs a file path, relative to the crate root"),
                    );
                }
            }
            match &out.source {
                Some(prev) if prev.kind == kind => {
                    cx.push(meta.error(format!("duplicate `{key}`: a kernel has one source file")))
                }
                Some(_) => cx.push(meta.error(
                    "`ptx` and `cuda` exclude each other: a kernel is either PTX (checked at \
                     compile time) or CUDA C (compiled by NVRTC at run time)",
                )),
                None => {
                    out.source = Some(SourceArg {
                        kind,
                        path,
                        variants,
                    })
                }
            }
        }
        "name" => {
            let name = string_value(&meta, "name", "gemm<128>")?;
            if name.value().is_empty() {
                cx.error(
                    name.span(),
                    "`name` needs the kernel's name: its symbol, or a C++ kernel's name with or \
                     without template arguments and parameter types, e.g. `name = \"gemm<128>\"`",
                );
            }
            if out.name.is_some() {
                cx.push(meta.error("duplicate `name`"));
            } else {
                out.name = Some(name);
            }
        }
        "options" => {
            let options = super::cuda::parse_options(&meta)?;
            if out.options.is_some() {
                cx.push(
                    meta.error("duplicate `options`: list every option in one `options = [...]`"),
                );
            } else {
                out.options = Some((meta.path.span(), options));
            }
        }
        "pdl" => {
            let v = string_value(&meta, "pdl", "no_upstream_reads")?;
            if v.value() != "no_upstream_reads" {
                cx.error(
                    v.span(),
                    "`pdl` takes `\"no_upstream_reads\"`: the kernel reads nothing the previous \
                     kernel writes, so a programmatic dependent launch of it needs no \
                     `griddepcontrol.wait`",
                );
            } else if out.no_upstream_reads {
                cx.push(meta.error("duplicate `pdl`"));
            } else {
                out.no_upstream_reads = true;
            }
        }
        "cooperative" => {
            let v = string_value(&meta, "cooperative", "optional")?;
            let use_ = match v.value().as_str() {
                "optional" => CooperativeUse::Optional,
                "co_resident" => CooperativeUse::CoResident,
                _ => {
                    cx.error(
                        v.span(),
                        "`cooperative` takes `\"optional\"` (the kernel syncs the grid only when \
                         `this_grid().is_valid()`) or `\"co_resident\"` (it needs its blocks \
                         resident together without syncing the grid)",
                    );
                    return Ok(());
                }
            };
            if out.cooperative != CooperativeUse::ByPtx {
                cx.push(meta.error("duplicate `cooperative`"));
            }
            out.cooperative = use_;
        }
        "crate" => {
            let v = string_value(&meta, "crate", "path::to::chevron")?;
            match v.parse::<syn::Path>() {
                Ok(path) if out.krate.is_none() => out.krate = Some(path),
                Ok(_) => cx.push(meta.error("duplicate `crate`")),
                Err(_) => cx.error(
                    v.span(),
                    "`crate` takes the path chevron is reached by, e.g. `crate = \"gpu\"` or \
                     `crate = \"my_lib::chevron\"`",
                ),
            }
        }
        _ => {
            out.invalid = true;
            let hint = [
                "ptx",
                "cuda",
                "name",
                "options",
                "pdl",
                "cooperative",
                "crate",
            ]
            .into_iter()
            .find(|k| k.eq_ignore_ascii_case(&key))
            .map_or(String::new(), |k| {
                format!(" (options are lowercase: `{k}`)")
            });
            cx.push(meta.error(format!("unknown `#[kernel]` option; expected {KEYS}{hint}")));
            if meta.input.peek(Token![=]) {
                let _: syn::Expr = meta.value()?.parse()?;
            } else if !meta.input.is_empty() {
                // `key(…)` or `key: …`: skip the rest of this argument, reported above.
                let _: TokenStream = meta.input.parse()?;
            }
        }
    }
    Ok(())
}

/// Parses `#[attrs] vis fn name(params) -> ret;` (or with a body, which the checks reject).
pub fn parse_item(item: TokenStream) -> syn::Result<KernelItem> {
    let parser = |input: ParseStream| {
        let attrs = input.call(Attribute::parse_outer)?;
        let vis: Visibility = input.parse()?;
        // The usual signature without syn's item parser (`signature::simple`), else syn's.
        let simple = input.step(|cursor| {
            Ok(match signature::simple(*cursor) {
                Some((sig, rest)) => (Some(sig), rest),
                None => (None, *cursor),
            })
        })?;
        let parsed = match simple {
            Some(sig) => Ok(sig),
            None => input.parse::<Signature>(),
        };
        let sig: Signature = parsed.map_err(|e| {
            syn::Error::new(
                e.span(),
                "`#[kernel]` goes on a function declaration without a body, like \
                 `fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);`",
            )
        })?;
        let body = if input.peek(syn::token::Brace) {
            let block: Block = input.parse()?;
            Some(block.brace_token.span.join())
        } else {
            input.parse::<Token![;]>()?;
            None
        };
        Ok(KernelItem {
            attrs,
            vis,
            sig,
            body,
        })
    };
    parser.parse2(item)
}
