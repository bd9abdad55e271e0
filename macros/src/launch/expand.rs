//! Plan → tokens. Codegen only: every decision was made by `check`.
//!
//! Two rules shape the output:
//! - **Written order, once each.** Every user expression (the `dyn` function, grid, block,
//!   stream, `shared`, each attribute value, then the arguments) is evaluated exactly once, left
//!   to right as written: each is bound to a local in that order, and the config and the launch
//!   are built from the locals only. Literals have no effects and are used in place.
//! - **No shared names.** Generated locals are `Span::mixed_site()`, so user expressions can
//!   neither see nor shadow them (a user local named `__chevron_config` is another variable);
//!   they are located at the expression they hold, so rustc's messages point at the user's
//!   tokens. Paths are absolute (`::chevron::__private::…`). The argument traits of `dyn`
//!   launches are imported in a block that holds no user expression.

use chevron_cuda_rules::kinds::Position;
use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{Expr, Lit, LitInt};

use super::ast::{Kernel, LaunchInput, Plan, Setting, Slot, Value};
use super::keys::{Place, ValueForm, GROUPS, LIST};
use crate::tokens::unparen;

/// A generated local: invisible to user code, reported at `at`.
fn local(name: &str, at: Span) -> Ident {
    Ident::new(name, Span::mixed_site().located_at(at))
}

/// The runtime's type for a key, spanned at `span`.
fn kind_type(setting: &Setting, span: Span) -> TokenStream {
    let ty = Ident::new(setting.key.info.type_name, span);
    let lifetime = match setting.key.form {
        ValueForm::Event => quote_spanned!(span=> <'_>),
        _ => TokenStream::new(),
    };
    let p = crate::krate::private_at(span);
    quote_spanned!(span=> #p::runtime::#ty #lifetime)
}

/// Whether evaluating `expr` can have no effect and read no place: a literal, a negated
/// literal, or a tuple of those. Such values are used in place instead of bound.
fn is_constant(expr: &Expr) -> bool {
    match unparen(expr) {
        Expr::Lit(_) => true,
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => is_constant(&u.expr),
        Expr::Tuple(t) => t.elems.iter().all(is_constant),
        _ => false,
    }
}

/// A dim expression with unsuffixed integer literals made `u32` (an unsuffixed literal would
/// otherwise fall back to `i32`).
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

/// The `let`s that evaluate the user's expressions, in written order.
#[derive(Default)]
struct Lets(Vec<TokenStream>);

impl Lets {
    /// Binds `value` (the tokens of `expr`, possibly rewritten) to a new local, unless `expr` is
    /// a constant; returns what stands for the value from now on.
    fn bind(&mut self, name: &str, expr: &Expr, value: TokenStream) -> TokenStream {
        if is_constant(expr) {
            return value;
        }
        let name = local(name, expr.span());
        self.0.push(quote!(let #name = #value;));
        name.into_token_stream()
    }

    /// Binds `value` to a new local of type `ty`, whatever the expression.
    fn bind_typed(&mut self, name: &str, span: Span, ty: TokenStream, value: TokenStream) -> Ident {
        let name = local(name, span);
        self.0.push(quote!(let #name: #ty = #value;));
        name
    }
}

/// Binds the grid and block (no block for `_`, the kernel's own).
fn bind_dims(plan: &Plan, lets: &mut Lets) -> (TokenStream, TokenStream) {
    let grid = lets.bind("__chevron_grid", &plan.grid, dim_tokens(&plan.grid));
    let block = match plan.kernel_block {
        Some(_) => TokenStream::new(),
        None => lets.bind("__chevron_block", &plan.block, dim_tokens(&plan.block)),
    };
    (grid, block)
}

/// How the config is built: its initial value, then one in-place call per item (`.__set(…)`,
/// `.__set_stream(…)`, …), applied one statement at a time to a local. In place, because a
/// config is a large value (room for every kind): a builder chain of `.with(…)` moved it once per
/// call, which cost more than the launch's own checks.
struct ConfigBuild {
    init: TokenStream,
    steps: Vec<TokenStream>,
}

impl ConfigBuild {
    /// `let [mut] NAME = init; NAME.step(…); …` into `lets`.
    fn bind(self, name: &Ident, lets: &mut Lets) {
        let init = self.init;
        if self.steps.is_empty() {
            lets.0.push(quote!(let #name = #init;));
        } else {
            lets.0.push(quote!(let mut #name = #init;));
            for step in self.steps {
                lets.0.push(quote!(#name #step;));
            }
        }
    }
}

/// Binds `shared` and every attribute value in written order; returns how the `LaunchConfig`
/// is built over the grid, block and those locals.
fn bind_items(
    plan: &Plan,
    grid: &TokenStream,
    block: &TokenStream,
    literal_block: Option<&super::fit::LiteralCall>,
    lets: &mut Lets,
) -> ConfigBuild {
    let p = crate::krate::private();
    let (gs, bs) = (plan.grid.span(), plan.block.span());
    // Each extent converts where it is written, so a wrong type is reported there.
    let converted = || extents(&p, grid, gs);
    let init = match (plan.kernel_block, literal_block) {
        // `_`: `CU_LAUNCH_KERNEL_REQUIRED_BLOCK_DIM` in the driver's block.
        (Some(span), _) => {
            let grid = converted();
            quote_spanned!(span=> #p::LaunchConfig::__from_grid_kernel_block(#grid))
        }
        // A typed launch whose only literal is its block: built and checked by one call (see
        // `fit::fit_check`), which converts the grid.
        (None, Some(literal)) => literal.with_grid(grid.clone()),
        (None, None) => {
            let grid = converted();
            // A block of integer literals (unsuffixed or `u32`; `check` found them within
            // `u32`) as three `u32` arguments of a plain function: rustc checks that at less
            // cost than a conversion (`scripts/compile_bench.sh`). Another suffix keeps its
            // conversion, and its error.
            match super::fit::plain_block(plan) {
                Some([x, y, z]) => {
                    let [x, y, z] = [x, y, z].map(proc_macro2::Literal::u32_unsuffixed);
                    quote!(#p::LaunchConfig::__from_grid_block(#grid, #x, #y, #z))
                }
                None => {
                    let block = extents(&p, block, bs);
                    quote!(#p::LaunchConfig::__from_extents(#grid, #block))
                }
            }
        }
    };
    let mut shared = None;
    let mut settings = vec![TokenStream::new(); plan.settings.len()];
    for slot in &plan.order {
        match *slot {
            Slot::Shared => {
                if let Some(e) = &plan.shared {
                    let v = lets.bind("__chevron_shared", e, e.to_token_stream());
                    shared = Some(quote_spanned!(e.span()=>
                        .__set_shared_extent(<_ as #p::Extent>::extent(#v))));
                }
            }
            Slot::Setting(i) => settings[i] = setting_tokens(&plan.settings[i], lets),
        }
    }
    let non_portable = plan
        .non_portable_cluster
        .then(|| quote!(.__set_non_portable_cluster()));
    // The groups' settings, then the launch list's, each in written order (their values are
    // bound above, in the order written).
    let places = GROUPS.iter().chain([&LIST]);
    let chain = places.flat_map(|place| {
        plan.settings
            .iter()
            .zip(&settings)
            .filter(move |(s, _)| s.position == place.position)
            .map(|(_, tokens)| tokens.clone())
    });
    ConfigBuild {
        init,
        steps: shared
            .into_iter()
            .chain(non_portable)
            .chain(chain)
            .collect(),
    }
}

/// The extents of a grid or block (bound as `value`, a literal as it is written) for
/// `LaunchConfig::__from_extents`: `IntoDim::into_dim(value)`, also for a grid of integer
/// literals (`256`, `(16, 16)`): rustc checks the conversion of a `u32` at less cost than
/// `Ok(Dim3::new(…))`, about 0.1 million instructions less per literal
/// (`scripts/compile_bench.sh`).
fn extents(p: &TokenStream, value: &TokenStream, span: Span) -> TokenStream {
    // Written as `<_ as …>`: the call then begins with a token of the user's (`$crate`, which
    // the path holds, is the facade's), and rustc reports at the user's tokens, not at the
    // invocation.
    quote_spanned!(span=> <_ as #p::IntoDim>::into_dim(#value))
}

/// `.__set(…)`, `.__set_stream(…)` (the setter of the setting's place) or `.__set_flag(…)` for
/// one attribute, binding its value.
fn setting_tokens(setting: &Setting, lets: &mut Lets) -> TokenStream {
    let place = Place::of(setting.position).expect("check keeps only settings of a place");
    let method = format_ident!("{}", place.method);
    let span = setting.span;
    let name = match place.keyword {
        Some(keyword) => format!("__chevron_{keyword}_{}", setting.key.name()),
        None => format!("__chevron_{}", setting.key.name()),
    };
    let value = match &setting.value {
        Value::On => kind_type(setting, span),
        Value::Flag(e) => {
            let ty = kind_type(setting, span);
            let v = lets.bind(&name, e, e.to_token_stream());
            return quote!(.__set_flag(#ty, #v));
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
                    let v = lets.bind(&name, e, dim_tokens(e));
                    quote_spanned!(es=> #ty::from_dim(#v))
                }
                ValueForm::I32 => {
                    let v = lets.bind(&name, e, e.to_token_stream());
                    quote_spanned!(es=> #ty(#v))
                }
                ValueForm::Percent => {
                    let v = lets.bind(&name, e, e.to_token_stream());
                    quote_spanned!(es=> #ty::percent(#v))
                }
                ValueForm::Event | ValueForm::Enum(_) | ValueForm::Expr | ValueForm::Flag => {
                    let init = if setting.key.form == ValueForm::Event {
                        let p = crate::krate::private_at(es);
                        quote_spanned!(es=> #p::From::from(#e))
                    } else {
                        e.to_token_stream()
                    };
                    lets.bind_typed(&name, es, ty, init).into_token_stream()
                }
            }
        }
    };
    quote!(.#method(#value))
}

/// `config!`: the `LaunchConfig` expression.
pub fn expand_config(plan: &Plan) -> TokenStream {
    let mut lets = Lets::default();
    let (grid, block) = bind_dims(plan, &mut lets);
    let build = bind_items(plan, &grid, &block, None, &mut lets);
    if build.steps.is_empty() {
        let (lets, init) = (lets.0, build.init);
        return if lets.is_empty() {
            init
        } else {
            quote!({ #(#lets)* #init })
        };
    }
    let config = local("__chevron_config", Span::call_site());
    build.bind(&config, &mut lets);
    let lets = lets.0;
    quote!({ #(#lets)* #config })
}

/// `launch!`: one block whose value is the launch's `Result<(), chevron::Error>`.
pub fn expand_launch(input: &LaunchInput, plan: &Plan) -> TokenStream {
    let p = crate::krate::private();
    let stream = plan.stream.as_ref().expect("check gives launch! a stream");
    let mut lets = Lets::default();

    // Written order: the `dyn` function, then the config (or grid and block), the stream, the
    // items; the arguments come last.
    // Untyped, so that no expected type steers the expression's own inference; the launch call
    // coerces `&&CudaFunction` (from `dyn f` with `f: &CudaFunction`) to `&CudaFunction`.
    let func = match &input.kernel {
        Kernel::Dyn { func, .. } => Some(lets.bind("__chevron_func", func, quote!(&(#func)))),
        Kernel::Typed(_) => None,
    };
    let config = local("__chevron_config", Span::call_site());
    // The launch's checks against the typed kernel's rules: the kernel's alias and a check
    // statement, or for a block of literals alone, the config's own call.
    let fit = match (&input.kernel, &plan.prebuilt) {
        (Kernel::Typed(path), None) => super::fit::fit_check(path, plan),
        _ => None,
    };
    let literal_block = match &fit {
        Some(super::fit::Fit::LiteralBlock(call)) => Some(call),
        _ => None,
    };
    let config_ref = match &plan.prebuilt {
        Some(cfg) => {
            let c = lets.bind_typed(
                "__chevron_config",
                cfg.span(),
                quote_spanned!(cfg.span()=> &#p::LaunchConfig<'_>),
                quote!(&(#cfg)),
            );
            let s = bind_stream(input, stream, &mut lets);
            (c.into_token_stream(), s)
        }
        None => match literal_block {
            // A typed launch whose only literal is its block and that sets nothing else: the
            // config from the grid as written, then the stream, as written, in the launch's
            // call (after the config, before the arguments): the order written, with no local
            // for either.
            Some(literal)
                if plan.settings.is_empty()
                    && plan.shared.is_none()
                    && !plan.non_portable_cluster =>
            {
                let init = literal.with_grid(dim_tokens(&plan.grid));
                lets.0.push(quote!(let #config = #init;));
                (quote!(&#config), stream.to_token_stream())
            }
            _ => {
                let (grid, block) = bind_dims(plan, &mut lets);
                let s = bind_stream(input, stream, &mut lets);
                bind_items(plan, &grid, &block, literal_block, &mut lets).bind(&config, &mut lets);
                (quote!(&#config), s)
            }
        },
    };
    let (config, s) = config_ref;
    let lets = lets.0;
    let fit_items = match fit {
        Some(super::fit::Fit::Statements(items)) => Some(items),
        _ => None,
    };

    match &input.kernel {
        Kernel::Typed(path) => {
            // `<KERNEL>::kernel().launch(stream, &config, (args…,))`: the kernel's static (a
            // qualified path, so that a value or a function in the kernel's place is "expected
            // type, found …"), then `Typed::launch`, written
            // once for all kernels, takes the arguments as one tuple of the kernel's parameter
            // types, so rustc checks (and coerces) each against its parameter, and counts them.
            // Call-site spans on the names; the path and the arguments keep the user's spans.
            // The arguments are written last, and a call evaluates its receiver before its
            // arguments. The stream and the arguments written `&…`/`&mut …` pass through
            // probes that turn the usual mistakes (a stream by value, host memory, a view for
            // a whole buffer) into chevron's messages; the probes' traits are imported
            // anonymously and implemented only for the probe types, so no user expression
            // resolves differently.
            let kernel = Ident::new("kernel", Span::call_site());
            let launch = Ident::new("launch", Span::call_site());
            let args = input.args.iter().map(|arg| match unparen(arg) {
                Expr::Reference(_) => {
                    let span = arg.span();
                    quote_spanned!(span=> #p::ArgProbe(#p::Some(#arg)).__chevron_typed_arg())
                }
                _ => arg.to_token_stream(),
            });
            // One tuple, or for more than 64 arguments a chain of tuples, as `#[kernel]`
            // states the kernel's `Args`.
            let args =
                crate::tokens::arg_list(args.collect(), || quote!(#p::runtime::ArgChain), true);
            let event = plan
                .at(Position::Launch)
                .find(|s| s.key.name() == "programmatic_event")
                .map(|event| {
                    // A warning when the kernel never triggers its dependents (see `crate::warn`).
                    let lint = Ident::new(crate::warn::NO_TRIGGER, event.span);
                    crate::warn::use_at(quote!(#path::#lint), event.span)
                });
            // A stream written `&…` is a reference: no probe (whose method lookup rustc would
            // check at every launch) is needed to word a stream given by value.
            let stream = match unparen(stream) {
                Expr::Reference(_) => s.clone(),
                _ => stream_probe(&s, stream.span()),
            };
            // The probes' traits, where an argument is probed.
            let probes = input
                .args
                .iter()
                .any(|arg| matches!(unparen(arg), Expr::Reference(_)))
                .then(|| quote!(use #p::{ArgAsWritten as _, HostArg as _, ViewArg as _};));
            quote!({
                #probes
                #fit_items
                #event
                #(#lets)*
                <#path>::#kernel().#launch(#stream, #config, #args)
            })
        }
        Kernel::Dyn { dyn_span, .. } => {
            let func = func.expect("bound above");
            let n = input.args.len();
            // Each argument is evaluated into a local that dies at the next statement, then
            // probed into its slot of one array; the locals shadow each other. With one local
            // per argument (and per slot) alive until the launch, borrow checking grew with the
            // square of the argument count: 4,000 arguments took 12.6 s of it, now 0.7 s (1,000:
            // 0.66 s, now 0.12 s; rustc -Z time-passes, debug).
            let storage_local = local("__chevron_storage", Span::call_site());
            let slots_local = local("__chevron_slots", Span::call_site());
            let sets = input.args.iter().enumerate().map(|(i, arg)| {
                let span = arg.span();
                let value = local("__chevron_arg", span);
                let probe = quote_spanned!(span=>
                    (&mut #p::Probe(#p::Some(#value))).__chevron_arg(#s));
                quote! {
                    let #value = #arg;
                    #slots_local.set(#i, {
                        // The argument traits are in scope here only, where no user code is.
                        use #p::{DeviceArg as _, ValueArg as _, RefFallback as _, ValueFallback as _};
                        #probe
                    });
                }
            });
            let launch_args = quote_spanned!(*dyn_span=> #p::launch_args);
            let result = local("__chevron_result", Span::call_site());
            quote!({
                #(#lets)*
                let mut #storage_local: #p::ArgStorage<'_, #n> = #p::ArgStorage::new();
                let mut #slots_local: #p::ArgSlots<'_, '_, #n> =
                    #p::ArgSlots::new(&mut #storage_local);
                #(#sets)*
                // The launch takes the slots (a reference to their storage, which has no
                // destructor) and drops them when it returns, which records the launch on each
                // buffer's event: so they do not outlive the temporaries of the arguments
                // (`&(n + 1)`), which live to the end of the block.
                let #result = #launch_args(#s, #func, #config, #slots_local);
                #p::launched(#result)
            })
        }
    }
}

/// Binds the stream as written; for `dyn` launches, then as a `&CudaStream` through the probe
/// (`&Arc<CudaStream>` coerces to it). Typed launches probe it at the kernel's `launch`, which
/// coerces it.
fn bind_stream(input: &LaunchInput, stream: &Expr, lets: &mut Lets) -> TokenStream {
    let span = stream.span();
    let bound = lets.bind("__chevron_stream", stream, stream.to_token_stream());
    match input.kernel {
        Kernel::Dyn { .. } => {
            let p = crate::krate::private_at(span);
            let probe = stream_probe(&bound, span);
            lets.bind_typed(
                "__chevron_stream",
                span,
                quote_spanned!(span=> &#p::cudarc::driver::CudaStream),
                probe,
            )
            .into_token_stream()
        }
        Kernel::Typed(_) => bound,
    }
}

/// The stream `bound` (a local holding what was written) through `stream_ref`: a reference
/// comes back as it is; a stream by value gets chevron's message (`StreamByReference`).
fn stream_probe(bound: &TokenStream, span: Span) -> TokenStream {
    // At the stream's span, so that rustc's messages about the stream point at it.
    let p = crate::krate::private_at(span);
    quote_spanned!(span=> #p::stream_ref(#bound))
}
