//! Plan → tokens. Codegen only: every decision was made by `check`.
//!
//! Generated locals are `Span::mixed_site()` so user expressions cannot see them; paths are
//! absolute (`::chevron::__private::…`); user expressions keep their spans, and the types they
//! must have are spanned on them, so a type mismatch is rustc's error at the user's tokens.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{Expr, Lit, LitInt};

use super::ast::{Kernel, LaunchInput, Plan, Setting, Value};
use super::check::unparen;
use super::keys::ValueForm;

fn local(name: &str) -> Ident {
    Ident::new(name, Span::mixed_site())
}

/// The runtime's type for a key, spanned at `span`.
fn kind_type(setting: &Setting, span: Span) -> TokenStream {
    let ty = Ident::new(setting.key.info.type_name, span);
    let lifetime = match setting.key.form {
        ValueForm::Event => quote_spanned!(span=> <'_>),
        _ => TokenStream::new(),
    };
    quote_spanned!(span=> ::chevron::__private::runtime::#ty #lifetime)
}

/// A dim expression with unsuffixed integer literals made `u32` (`LaunchConfig::new` takes
/// `impl Into<Dim3>`, which an unsuffixed literal would not infer).
fn dim_tokens(expr: &Expr) -> TokenStream {
    fn component(e: &Expr) -> TokenStream {
        match unparen(e) {
            Expr::Lit(syn::ExprLit {
                lit: Lit::Int(i), ..
            }) if i.suffix().is_empty() => {
                LitInt::new(&format!("{}u32", i.base10_digits()), i.span()).to_token_stream()
            }
            _ => e.to_token_stream(),
        }
    }
    match unparen(expr) {
        Expr::Tuple(t) => {
            let elems = t.elems.iter().map(component);
            quote_spanned!(t.span()=> (#(#elems),*))
        }
        _ => component(expr),
    }
}

/// The `let`s that hold typed attribute values, and the `LaunchConfig` builder chain.
fn config_parts(plan: &Plan) -> (Vec<TokenStream>, TokenStream) {
    let mut lets = Vec::new();
    let grid = dim_tokens(&plan.grid);
    let block = dim_tokens(&plan.block);
    let mut chain = quote!(::chevron::__private::LaunchConfig::new(#grid, #block));
    if let Some(shared) = &plan.shared {
        chain.extend(quote_spanned!(shared.span()=> .shared(#shared)));
    }
    if plan.non_portable_cluster {
        chain.extend(quote!(.non_portable_cluster()));
    }
    for (settings, stream) in [(&plan.stream_attrs, true), (&plan.launch, false)] {
        for setting in settings {
            let (method, value) = setting_tokens(setting, stream, &mut lets);
            chain.extend(quote!(.#method(#value)));
        }
    }
    (lets, chain)
}

/// The builder method and its argument for one attribute, pushing a typed `let` if needed.
fn setting_tokens(
    setting: &Setting,
    stream: bool,
    lets: &mut Vec<TokenStream>,
) -> (Ident, TokenStream) {
    let method = format_ident!("{}", if stream { "with_stream" } else { "with" });
    let span = setting.span;
    let value = match &setting.value {
        Value::On => kind_type(setting, span),
        Value::Flag(e) => {
            let ty = kind_type(setting, span);
            return (format_ident!("with_flag"), quote!(#ty, #e));
        }
        Value::Variant(v) => {
            let ty = kind_type(setting, v.span());
            quote!(#ty::#v)
        }
        Value::Expr(e) => {
            let es = e.span();
            let ty = kind_type(setting, es);
            match setting.key.form {
                ValueForm::Dim => {
                    let dim = dim_tokens(e);
                    quote_spanned!(es=> #ty::from_dim(#dim))
                }
                ValueForm::I32 => quote_spanned!(es=> #ty(#e)),
                ValueForm::Percent => quote_spanned!(es=> #ty::percent(#e)),
                ValueForm::Event | ValueForm::Enum(_) | ValueForm::Expr | ValueForm::Flag => {
                    let prefix = if stream {
                        "__chevron_stream_"
                    } else {
                        "__chevron_"
                    };
                    let name = local(&format!("{prefix}{}", setting.key.name()));
                    let init = if setting.key.form == ValueForm::Event {
                        quote_spanned!(es=> ::chevron::__private::From::from(#e))
                    } else {
                        e.to_token_stream()
                    };
                    lets.push(quote!(let #name: #ty = #init;));
                    name.to_token_stream()
                }
            }
        }
    };
    (method, value)
}

/// `config!`: the `LaunchConfig` expression.
pub fn expand_config(plan: &Plan) -> TokenStream {
    let (lets, chain) = config_parts(plan);
    if lets.is_empty() {
        chain
    } else {
        quote!({ #(#lets)* #chain })
    }
}

/// `launch!`: one block whose value is the launch's `Result<(), chevron::Error>`.
pub fn expand_launch(input: &LaunchInput, plan: &Plan) -> TokenStream {
    let (lets, chain) = config_parts(plan);
    let config = local("__chevron_config");
    let stream = plan.stream.as_ref().expect("check gives launch! a stream");
    match &input.kernel {
        Kernel::Typed(path) => {
            // `KERNEL::__on(stream, &config).launch(args…)`: the method takes exactly the
            // kernel's parameters, so a wrong argument count is reported against them (not
            // against `launch(stream, config, …)`). Call-site spans on the two names: rustc then
            // reports the count on the whole invocation instead of proposing a rewrite of the
            // macro's tokens; the path and the arguments keep the user's spans.
            let on = Ident::new("__on", Span::call_site());
            let launch = Ident::new("launch", Span::call_site());
            let args = &input.args;
            quote!({
                #(#lets)*
                let #config = #chain;
                #path::#on(#stream, &#config).#launch(#(#args),*)
            })
        }
        Kernel::Dyn { dyn_span, func } => {
            let s = local("__chevron_stream");
            let f = local("__chevron_func");
            let params = local("__chevron_params");
            let stream_ty = quote_spanned!(stream.span()=>
                &::chevron::__private::cudarc::driver::CudaStream);
            let func_ty = quote_spanned!(func.span()=>
                &::chevron::__private::cudarc::driver::CudaFunction);
            let mut bind = Vec::new();
            let mut slots = Vec::new();
            for (i, arg) in input.args.iter().enumerate() {
                let v = local(&format!("__chevron_v{i}"));
                let a = local(&format!("__chevron_a{i}"));
                let span = arg.span();
                // A reference to a temporary (`&(n + 1)`) lives to the end of the block.
                bind.push(quote!(let #v = #arg;));
                bind.push(quote_spanned!(span=>
                    let #a = (&mut ::chevron::__private::Probe(::chevron::__private::Some(#v)))
                        .__chevron_arg(#s);
                ));
                slots.push(quote!(#a.param()));
            }
            let n = input.args.len();
            let launch_named =
                quote_spanned!(*dyn_span=> ::chevron::__private::runtime::launch_named);
            quote!({
                use ::chevron::__private::{DeviceArg as _, ValueArg as _};
                let #s: #stream_ty = #stream;
                let #f: #func_ty = &(#func);
                #(#lets)*
                let #config = #chain;
                #(#bind)*
                let mut #params: [*mut ::chevron::__private::c_void; #n] = [#(#slots),*];
                #launch_named(#s, #f, ::chevron::__private::None, &#config, &mut #params)
            })
        }
    }
}
