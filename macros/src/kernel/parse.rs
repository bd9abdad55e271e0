//! Parsing `#[kernel(...)]` arguments and the declaration it is on.

use proc_macro2::{Span, TokenStream};
use syn::parse::{ParseStream, Parser};
use syn::{Attribute, Block, LitStr, Signature, Token, Visibility};

use super::ast::{KernelArgs, KernelItem, SourceArg, SourceKind};
use crate::report::Errors;

const KEYS: &str = "`ptx = \"….ptx\"`, `cuda = \"….cu\"` or `name = \"…\"`";

/// Parses the attribute's arguments, recording every problem in `cx`.
pub fn parse_args(args: TokenStream, cx: &mut Errors) -> KernelArgs {
    let mut out = KernelArgs {
        span: Some(Span::call_site()),
        ..KernelArgs::default()
    };
    let parser = syn::meta::parser(|meta| {
        let key = meta
            .path
            .get_ident()
            .map(|i| i.to_string())
            .unwrap_or_default();
        match key.as_str() {
            "ptx" | "cuda" => {
                let kind = if key == "ptx" {
                    SourceKind::Ptx
                } else {
                    SourceKind::Cuda
                };
                let path: LitStr = meta.value()?.parse()?;
                if path.value().is_empty() {
                    cx.error(
                        path.span(),
                        format!("`{key}` needs a file path, relative to the crate root"),
                    );
                }
                match &out.source {
                    Some(prev) if prev.kind == kind => cx.push(
                        meta.error(format!("duplicate `{key}`: a kernel has one source file")),
                    ),
                    Some(_) => cx.push(meta.error(
                        "`ptx` and `cuda` exclude each other: a kernel is either PTX (checked at \
                         compile time) or CUDA C (compiled by NVRTC at run time)",
                    )),
                    None => out.source = Some(SourceArg { kind, path }),
                }
            }
            "name" => {
                let name: LitStr = meta.value()?.parse()?;
                if name.value().is_empty() {
                    cx.error(name.span(), "`name` needs the kernel's symbol, e.g. `name = \"_Z4gemmILi128EEvPKfS1_Pfiii\"`");
                }
                if out.name.is_some() {
                    cx.push(meta.error("duplicate `name`"));
                } else {
                    out.name = Some(name);
                }
            }
            _ => {
                cx.push(meta.error(format!("unknown `#[kernel]` option; expected {KEYS}")));
                if meta.input.peek(Token![=]) {
                    let _: syn::Expr = meta.value()?.parse()?;
                }
            }
        }
        Ok(())
    });
    if let Err(e) = parser.parse2(args) {
        cx.push(e);
    }
    out
}

/// Parses `#[attrs] vis fn name(params) -> ret;` (or with a body, which the checks reject).
pub fn parse_item(item: TokenStream) -> syn::Result<KernelItem> {
    let parser = |input: ParseStream| {
        let attrs = input.call(Attribute::parse_outer)?;
        let vis: Visibility = input.parse()?;
        let sig: Signature = input.parse().map_err(|e| {
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
