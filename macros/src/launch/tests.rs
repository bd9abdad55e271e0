//! Codegen tests: expand, parse the output back with syn, assert on its structure.

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::{Expr, Stmt};

use super::{try_config, try_launch};

fn expr(tokens: TokenStream) -> Expr {
    syn::parse2::<Expr>(tokens).expect("the expansion is an expression")
}

fn block(tokens: TokenStream) -> Vec<Stmt> {
    match expr(tokens) {
        Expr::Block(b) => b.block.stmts,
        other => panic!("expected a block, got `{}`", other.to_token_stream()),
    }
}

fn launch(tokens: TokenStream) -> Vec<Stmt> {
    block(try_launch(tokens).unwrap_or_else(|e| panic!("unexpected error: {e}")))
}

fn errors(result: syn::Result<TokenStream>) -> Vec<String> {
    match result {
        Ok(t) => panic!("expected errors, got `{t}`"),
        Err(e) => e.into_iter().map(|e| e.to_string()).collect(),
    }
}

/// The in-place calls on the local `name` (`name.m(…);` statements), in order: their method
/// names and their text.
fn steps(stmts: &[Stmt], name: &str) -> (Vec<String>, Vec<String>) {
    stmts
        .iter()
        .filter_map(|s| match s {
            Stmt::Expr(Expr::MethodCall(m), Some(_)) if path_text(&m.receiver) == name => Some((
                m.method.to_string(),
                path_text(&Expr::MethodCall(m.clone())),
            )),
            _ => None,
        })
        .unzip()
}

fn path_text(e: &Expr) -> String {
    e.to_token_stream().to_string().replace(' ', "")
}

/// The initializer of `let NAME = …;` in `stmts`.
fn let_init<'a>(stmts: &'a [Stmt], name: &str) -> &'a Expr {
    stmts
        .iter()
        .find_map(|s| match s {
            Stmt::Local(l) if l.pat.to_token_stream().to_string().contains(name) => {
                l.init.as_ref().map(|i| &*i.expr)
            }
            _ => None,
        })
        .unwrap_or_else(|| panic!("no `let {name}`"))
}

fn tail(stmts: &[Stmt]) -> &Expr {
    match stmts.last() {
        Some(Stmt::Expr(e, None)) => e,
        _ => panic!("the block has no tail expression"),
    }
}

/// The names bound by the block's `let`s, in order, and their initializers.
fn lets(stmts: &[Stmt]) -> Vec<(String, String)> {
    stmts
        .iter()
        .filter_map(|s| match s {
            // The rules' check (`let _: &<K as Refusal<…>>::Dyn = &K {};`) binds nothing.
            Stmt::Local(l) if matches!(l.pat, syn::Pat::Type(ref t) if matches!(*t.pat, syn::Pat::Wild(_))) => None,
            Stmt::Local(l) => Some((
                l.pat.to_token_stream().to_string().replace(' ', ""),
                l.init
                    .as_ref()
                    .map_or(String::new(), |i| path_text(&i.expr)),
            )),
            _ => None,
        })
        .collect()
}

/// How the builder chain of an expansion with a literal block starts.
const FROM_GRID_BLOCK: &str = "::chevron::__private::LaunchConfig::__from_grid_block(\
    <_as::chevron::__private::IntoDim>::into_dim(";

/// The typed launch's stream argument: the bound stream through its probe.
const STREAM_PROBE: &str = "::chevron::__private::stream_ref(__chevron_stream)";

#[test]
fn typed_launch_calls_the_kernels_launcher_with_the_config() {
    let stmts = launch(quote! {
        saxpy<<<g, 256, &s, stream(sync = Spin), cooperative>>>(n, 2.0, &x, &mut y)
    });
    // Built in place: an initial value, then one statement per item.
    let config = let_init(&stmts, "__chevron_config");
    assert_eq!(
        path_text(config),
        format!("{FROM_GRID_BLOCK}__chevron_grid),256,1,1)")
    );
    let (methods, calls) = steps(&stmts, "__chevron_config");
    assert_eq!(methods, ["__set_stream", "__set"]);
    assert_eq!(
        calls,
        [
            "__chevron_config.__set_stream(::chevron::__private::runtime::SyncPolicy::Spin)",
            "__chevron_config.__set(::chevron::__private::runtime::Cooperative)"
        ]
    );
    // `<saxpy>::kernel().launch(stream, &config, (args…,))`: the kernel's `Typed::launch`.
    let (stream, config, args) = typed_call(tail(&stmts), "saxpy");
    // A stream written `&…` is a reference: passed as it is.
    assert_eq!(stream, "__chevron_stream");
    assert_eq!(config, "&__chevron_config");
    // The arguments are written last, as one tuple: evaluated after the receiver, in place;
    // those written `&…` through their probe (host memory and views get chevron's messages).
    assert_eq!(
        args,
        [
            "n",
            "2.0",
            "::chevron::__private::ArgProbe(::chevron::__private::Some(&x)).__chevron_typed_arg()",
            "::chevron::__private::ArgProbe(::chevron::__private::Some(&muty)).__chevron_typed_arg()"
        ]
    );
    // With the probes' traits imported anonymously, in the block, before any user expression.
    let first = &stmts[0];
    assert_eq!(
        quote!(#first).to_string().replace(' ', ""),
        "use::chevron::__private::{ArgAsWrittenas_,HostArgas_,ViewArgas_};"
    );
    // One argument: a one-element tuple; none: the empty tuple.
    let (_, _, args) = typed_call(tail(&launch(quote!(k<<<1, 32, &s>>>(n)))), "k");
    assert_eq!(args, ["n"]);
    // A path names the kernel whole inside the `<…>`.
    let (_, _, args) = typed_call(tail(&launch(quote!(gpu::k<<<1, 32, &s>>>(n, m)))), "gpu::k");
    assert_eq!(args, ["n", "m"]);
    let call = path_text(tail(&launch(quote!(k<<<1, 32, &s>>>(n)))));
    assert!(call.ends_with(",(n,))"), "{call}");
    let (_, _, args) = typed_call(tail(&launch(quote!(k<<<1, 32, &s>>>()))), "k");
    assert!(args.is_empty());
    let call = path_text(tail(&launch(quote!(k<<<1, 32, &s>>>()))));
    assert!(call.ends_with(",())"), "{call}");
    // Without a probed argument, no imports.
    let all = path_text(&expr(try_launch(quote!(k<<<1, 32, &s>>>(n, m))).unwrap()));
    assert!(!all.contains("ArgAsWritten"), "{all}");
}

/// The parts of a typed launch `<KERNEL>::kernel().launch(stream, config, (args…,))`: the
/// stream's and the config's text and each argument's, after checking the call's shape.
fn typed_call(e: &Expr, kernel: &str) -> (String, String, Vec<String>) {
    let Expr::MethodCall(call) = e else {
        panic!("the tail is not a method call: `{}`", path_text(e))
    };
    assert_eq!(call.method, "launch");
    // `<KERNEL>::kernel()`: anything that is no `#[kernel]` type has no `kernel()` with a
    // `launch` (the runtime's `TypedKernel` bounds what it has). A qualified path, whose
    // `<…>` takes a type only: a value or a function in the kernel's place is rustc's
    // "expected type".
    let Expr::Call(on) = &*call.receiver else {
        panic!("the receiver is not a call")
    };
    assert!(on.args.is_empty());
    let Expr::Path(func) = &*on.func else {
        panic!("the receiver calls no path: `{}`", path_text(&on.func))
    };
    let qself = func
        .qself
        .as_ref()
        .expect("a qualified path `<KERNEL>::kernel`");
    assert_eq!(
        qself.ty.to_token_stream().to_string().replace(' ', ""),
        kernel
    );
    // `<KERNEL>::kernel`, not `<KERNEL as Trait>::kernel`.
    assert_eq!(qself.position, 0);
    let names: Vec<String> = func
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    assert_eq!(names, ["kernel"]);
    assert_eq!(path_text(&on.func), format!("<{kernel}>::kernel"));
    let parts: Vec<&Expr> = call.args.iter().collect();
    assert_eq!(parts.len(), 3, "{}", path_text(e));
    let Expr::Tuple(args) = parts[2] else {
        panic!("the arguments are not one tuple: `{}`", path_text(parts[2]))
    };
    (
        path_text(parts[0]),
        path_text(parts[1]),
        args.elems.iter().map(path_text).collect(),
    )
}

#[test]
fn every_expression_is_bound_once_in_written_order() {
    let stmts = launch(quote! {
        dyn (f())<<<g(), b(), s(), mem_sync_domain = d(), stream(priority = p()), shared = sh(),
            cluster = c(), cooperative = on()>>>(&a(), x())
    });
    let bound = lets(&stmts);
    let names: Vec<&str> = bound.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "__chevron_func",
            "__chevron_grid",
            "__chevron_block",
            // As written, then as a `&CudaStream` through its probe.
            "__chevron_stream",
            "__chevron_stream:&::chevron::__private::cudarc::driver::CudaStream",
            "__chevron_mem_sync_domain:::chevron::__private::runtime::MemSyncDomain",
            "__chevron_stream_priority",
            "__chevron_shared",
            "__chevron_cluster",
            "__chevron_cooperative",
            "mut__chevron_config",
            "mut__chevron_storage:::chevron::__private::ArgStorage<'_,2usize>",
            "mut__chevron_slots:::chevron::__private::ArgSlots<'_,'_,2usize>",
            "__chevron_arg",
            "__chevron_arg",
            "__chevron_result",
        ]
    );
    let inits: Vec<&str> = bound.iter().map(|(_, i)| i.as_str()).collect();
    assert_eq!(
        inits[..10],
        [
            "&(f())",
            "g()",
            "b()",
            "s()",
            STREAM_PROBE,
            "d()",
            "p()",
            "sh()",
            "c()",
            "on()"
        ]
    );
    assert_eq!(
        inits[12],
        "::chevron::__private::ArgSlots::new(&mut__chevron_storage)"
    );
    assert_eq!(inits[13..15], ["&a()", "x()"]);
    // The config is built from the locals only: no user expression is evaluated again.
    let (_, calls) = steps(&stmts, "__chevron_config");
    assert_eq!(calls.len(), 5, "{calls:#?}");
    for config in calls.iter().map(String::as_str).chain([inits[10]]) {
        for user in ["g()", "b()", "s()", "d()", "p()", "sh()", "c()", "on()"] {
            assert!(!config.contains(user), "`{user}` in `{config}`");
        }
    }

    // config!: the same order, and the typed launch binds the stream after grid and block.
    let stmts = block(try_config(quote!(<<<g(), 8, priority = p(), shared = sh()>>>)).unwrap());
    let names: Vec<String> = lets(&stmts).into_iter().map(|(n, _)| n).collect();
    assert_eq!(
        names,
        [
            "__chevron_grid",
            "__chevron_priority",
            "__chevron_shared",
            "mut__chevron_config"
        ]
    );
    let stmts = launch(quote!(k<<<g(), b(), s(), cooperative = on()>>>(a())));
    let names: Vec<String> = lets(&stmts).into_iter().map(|(n, _)| n).collect();
    assert_eq!(
        names,
        [
            "__chevron_grid",
            "__chevron_block",
            "__chevron_stream",
            "__chevron_cooperative",
            "mut__chevron_config"
        ]
    );
}

#[test]
fn dyn_launch_sets_one_slot_per_argument_and_calls_launch_args() {
    let stmts = launch(quote! { dyn f<<<8, 128, &s>>>(&n, &x, &mut y) });
    assert_eq!(path_text(let_init(&stmts, "__chevron_stream")), "&s");
    let sets: Vec<String> = stmts
        .iter()
        .filter_map(|s| match s {
            Stmt::Expr(Expr::MethodCall(m), Some(_)) if m.method == "set" => {
                Some(path_text(&Expr::MethodCall(m.clone())))
            }
            _ => None,
        })
        .collect();
    assert_eq!(sets.len(), 3, "{sets:#?}");
    for (i, set) in sets.iter().enumerate() {
        assert!(
            set.starts_with(&format!("__chevron_slots.set({i}usize,{{")),
            "{set}"
        );
        assert!(
            set.contains("(&mut::chevron::__private::Probe(::chevron::__private::Some(__chevron_arg))).__chevron_arg(__chevron_stream)"),
            "{set}"
        );
        assert!(
            set.contains("use::chevron::__private::{DeviceArgas_"),
            "{set}"
        );
    }
    let args: Vec<String> = lets(&stmts)
        .into_iter()
        .filter(|(n, _)| n == "__chevron_arg")
        .map(|(_, i)| i)
        .collect();
    assert_eq!(args, ["&n", "&x", "&muty"]);
    let Expr::Call(call) = let_init(&stmts, "__chevron_result") else {
        panic!("the result is not a call")
    };
    assert_eq!(path_text(&call.func), "::chevron::__private::launch_args");
    // The launch takes the slots (and their event guards) and drops them when it returns,
    // before the arguments' temporaries; the block's value is the launch's result.
    let n = stmts.len();
    assert!(
        matches!(&stmts[n - 2], Stmt::Local(l) if l.pat.to_token_stream().to_string() == "__chevron_result"),
        "the launch is not the last statement"
    );
    // Through `launched`: `#[must_use]` with chevron's message.
    assert_eq!(
        path_text(tail(&stmts)),
        "::chevron::__private::launched(__chevron_result)"
    );
    let call_args: Vec<String> = call.args.iter().map(path_text).collect();
    assert_eq!(
        call_args,
        [
            "__chevron_stream",
            "__chevron_func",
            "&__chevron_config",
            "__chevron_slots"
        ]
    );
}

#[test]
fn dyn_launch_without_arguments_has_no_slots() {
    let stmts = launch(quote! { dyn (module.f)<<<1, 1, &s>>>() });
    let bound = lets(&stmts);
    assert!(bound
        .iter()
        .any(|(n, _)| n == "mut__chevron_slots:::chevron::__private::ArgSlots<'_,'_,0usize>"));
    assert_eq!(path_text(let_init(&stmts, "__chevron_func")), "&(module.f)");
}

#[test]
fn prebuilt_config_is_used_as_is() {
    let stmts = launch(quote! { k<<<config = cfg, &s>>>(n) });
    let names: Vec<String> = lets(&stmts).into_iter().map(|(n, _)| n).collect();
    assert_eq!(
        names,
        [
            "__chevron_config:&::chevron::__private::LaunchConfig<'_>",
            "__chevron_stream"
        ]
    );
    assert_eq!(path_text(let_init(&stmts, "__chevron_config")), "&(cfg)");
    let (stream, config, args) = typed_call(tail(&stmts), "k");
    assert_eq!(
        (stream.as_str(), config.as_str()),
        ("__chevron_stream", "__chevron_config")
    );
    assert_eq!(args, ["n"]);
    // Any other stream expression goes through the probe, which words a stream by value.
    let stmts = launch(quote! { k<<<config = cfg, s>>>(n) });
    let all = quote!(#(#stmts)*).to_string().replace(' ', "");
    assert!(all.contains(STREAM_PROBE), "{all}");
    let e = errors(try_launch(quote!(k<<<config = cfg, &s, cooperative>>>(n))));
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].starts_with("a launch with a prebuilt config takes only the stream"),
        "{e:?}"
    );
    let e = errors(try_launch(quote!(k<<<config = cfg>>>(n))));
    assert!(
        e[0].starts_with("missing the stream: a launch with a prebuilt config"),
        "{e:?}"
    );
    let e = errors(try_launch(quote!(k<<<cfg, &s>>>(n))));
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].ends_with("to launch with a prebuilt `LaunchConfig`, write `<<<config = cfg, &s>>>`"),
        "{e:?}"
    );
    // A name that says config, or a second position that reads as a stream.
    let e = errors(try_launch(quote!(k<<<my_config, s>>>(n))));
    assert!(
        e[0].ends_with("write `<<<config = my_config, s>>>`"),
        "{e:?}"
    );
    let e = errors(try_launch(quote!(k<<<launch_cfg, stream>>>(n))));
    assert!(
        e[0].ends_with("write `<<<config = launch_cfg, stream>>>`"),
        "{e:?}"
    );
    let e = errors(try_launch(quote!(k<<<cfg, capture.stream()>>>(n))));
    assert!(
        e[0].ends_with("write `<<<config = cfg, capture.stream()>>>`"),
        "{e:?}"
    );
}

#[test]
fn a_missing_stream_after_a_grid_and_a_block_is_added_after_them() {
    // Not `config = n.div_ceil(256), 256`: two expressions that are no stream are a grid and
    // a block.
    for (input, hint) in [
        (
            quote!(k<<<n.div_ceil(256), 256>>>(n)),
            "the stream comes after the block: `<<<n.div_ceil(256), 256, &stream>>>`",
        ),
        (
            quote!(k<<<grid, block>>>(n)),
            "the stream comes after the block: `<<<grid, block, &stream>>>`",
        ),
        (
            quote!(k<<<1, 256>>>(n)),
            "the stream comes after the block: `<<<1, 256, &stream>>>`",
        ),
        (
            quote!(k<<<grid, 256, cooperative>>>(n)),
            "the stream comes after the block: `<<<grid, 256, &stream, …>>>`",
        ),
    ] {
        let e = errors(try_launch(input));
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(e[0].starts_with("missing the stream: "), "{e:?}");
        assert!(e[0].ends_with(hint), "{e:?}");
        assert!(!e[0].contains("config ="), "{e:?}");
    }
}

#[test]
fn values_take_the_form_of_their_key() {
    let stmts = launch(quote! {
        k<<<(8, 2), (16, 16), &s, shared = bytes, cluster = 2, preferred_cluster = (4, 1, 1),
            priority = -1, shared_carveout = 50, cooperative = on, nvlink_centric = true,
            completion_event = &ev, mem_sync_domain = dom,
            stream(sync = policy, mem_sync_domain = Remote)>>>()
    });
    assert_eq!(
        path_text(let_init(&stmts, "__chevron_config")),
        format!(
            "::chevron::__private::LaunchConfig::__from_grid_block(<_as::chevron::__private::IntoDim>::into_dim((8u32,2u32)),16,16,1)"
        )
    );
    let rt = "::chevron::__private::runtime::";
    let c = "__chevron_config";
    let (_, calls) = steps(&stmts, c);
    // `shared`, then the stream attributes, then the launch attributes, each in source order.
    assert_eq!(
        calls,
        [
            format!(
                "{c}.__set_shared_extent(<_as::chevron::__private::Extent>::extent(__chevron_shared))"
            ),
            format!("{c}.__set_stream(__chevron_stream_sync)"),
            format!("{c}.__set_stream({rt}MemSyncDomain::Remote)"),
            format!("{c}.__set({rt}ClusterDim::from_dim(2u32))"),
            format!("{c}.__set({rt}PreferredClusterDim::from_dim((4u32,1u32,1u32)))"),
            format!("{c}.__set({rt}Priority(-1))"),
            format!("{c}.__set({rt}SharedCarveout::percent(50))"),
            format!("{c}.__set_flag({rt}Cooperative,__chevron_cooperative)"),
            format!("{c}.__set({rt}NvlinkCentric)"),
            format!("{c}.__set(__chevron_completion_event)"),
            format!("{c}.__set(__chevron_mem_sync_domain)"),
        ]
    );
    let bound = lets(&stmts);
    let typed = |name: &str| {
        bound
            .iter()
            .find(|(n, _)| n.starts_with(name))
            .map(|(n, i)| format!("{n}={i}"))
            .unwrap()
    };
    assert_eq!(
        typed("__chevron_stream_sync"),
        format!("__chevron_stream_sync:{rt}SyncPolicy=policy")
    );
    assert_eq!(
        typed("__chevron_completion_event"),
        format!("__chevron_completion_event:{rt}CompletionEvent<'_>=::chevron::__private::From::from(&ev)")
    );
}

#[test]
fn config_is_built_in_place() {
    // Grid and block only: the constructor.
    let e = expr(try_config(quote!(<<<64, 256>>>)).unwrap());
    assert_eq!(
        path_text(&e),
        format!("::chevron::__private::LaunchConfig::__from_grid_block(<_as::chevron::__private::IntoDim>::into_dim(64u32),256,1,1)")
    );
    // With an attribute, a block building a local in place and yielding it.
    let stmts = block(try_config(quote!(<<<64, 256, cooperative>>>)).unwrap());
    assert_eq!(
        path_text(let_init(&stmts, "__chevron_config")),
        format!("::chevron::__private::LaunchConfig::__from_grid_block(<_as::chevron::__private::IntoDim>::into_dim(64u32),256,1,1)")
    );
    let (methods, _) = steps(&stmts, "__chevron_config");
    assert_eq!(methods, ["__set"]);
    assert_eq!(path_text(tail(&stmts)), "__chevron_config");
    // With expressions, bound first: grid, block, the value, the config, its one call, the tail.
    let stmts = block(try_config(quote!(<<<g, b, stream(sync = p)>>>)).unwrap());
    assert_eq!(stmts.len(), 6);
    // Expressions and no attribute: a block binding them, then the constructor.
    let stmts = block(try_config(quote!(<<<g, b>>>)).unwrap());
    assert_eq!(stmts.len(), 3);
}

#[test]
fn closing_chevrons_after_nested_generics() {
    let stmts = launch(quote! {
        dyn f<<<1, 1, &s, shared = size_of::<Option<Vec<u32>>>()>>>(&n)
    });
    assert_eq!(
        path_text(let_init(&stmts, "__chevron_shared")),
        "size_of::<Option<Vec<u32>>>()"
    );
    let e = expr(try_config(quote!(<<<1, 1, shared = size_of::<Option<Vec<u32>>>()>>>)).unwrap());
    assert!(path_text(&e).contains("size_of::<Option<Vec<u32>>>()"));
    let e = errors(try_launch(quote!(k<<<1, 1, s>>>(x) y)));
    assert!(
        e[0].starts_with("unexpected tokens after the kernel's arguments"),
        "{e:?}"
    );
}

#[test]
fn errors_inside_a_stream_group_are_reported_once() {
    let e = errors(try_launch(quote!(k<<<1, 1, s, stream(sync = )>>>())));
    assert_eq!(e, ["expected a value after `sync =`"]);
    let e = errors(try_launch(quote!(k<<<1, 1, s, stream(1)>>>())));
    assert_eq!(e.len(), 1, "{e:?}");
}

#[test]
fn an_attribute_in_a_position_is_named() {
    let e = errors(try_launch(quote!(dyn f<<<1, cooperative, s>>>())));
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].starts_with("the block position holds the attribute `cooperative`"),
        "{e:?}"
    );
}

#[test]
fn a_stream_attribute_in_the_launch_list_gets_valid_code() {
    let e = errors(try_launch(quote!(k<<<1, 1, s, sync = 1>>>())));
    assert_eq!(
        e,
        ["`sync` is a stream attribute: the driver rejects CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY in cuLaunchKernelEx; `1` is not a `SyncPolicy`; write it as `stream(sync = Auto)`, with one of `Auto`, `Spin`, `Yield`, `BlockingSync` or an expression of type `SyncPolicy`"]
    );
    let e = errors(try_launch(quote!(k<<<1, 1, s, sync = policy>>>())));
    assert!(
        e[0].ends_with("write it as `stream(sync = policy)`"),
        "{e:?}"
    );
}

#[test]
fn every_error_is_reported() {
    let errs = errors(try_launch(quote! {
        k<<<1, 2048, &s, sync = Spin, coperative, priority = 1, priority = 2,
            stream(cooperative), shared_carveout = 101>>>()
    }));
    let expected = [
        "block x is 2048; the limit is 1024",
        "`sync` is a stream attribute: the driver rejects CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY in cuLaunchKernelEx; write it as `stream(sync = Spin)`",
        "unknown launch attribute `coperative`; did you mean `cooperative`?",
        "`priority` is set twice in the launch list",
        "`cooperative` is a launch attribute",
        "`shared_carveout` is a percentage of the L1/shared split; 101 is over 100",
    ];
    for want in expected {
        assert!(
            errs.iter().any(|e| e.starts_with(want)),
            "no error starting with `{want}` in {errs:#?}"
        );
    }
    assert_eq!(errs.len(), expected.len(), "{errs:#?}");
}

#[test]
fn parse_errors_are_reported_together() {
    let errs = errors(try_launch(
        quote!(k<<<1, 1, &s, priority = , cluster = 2 2>>>()),
    ));
    assert_eq!(errs.len(), 2, "{errs:#?}");
    assert!(errs[0].contains("expected a value after `priority =`"));
    assert!(errs[1].contains("expected `,` or `>>>`"));
}

#[test]
fn structural_errors() {
    let e = errors(try_launch(quote!(k<<<1, 1, &s(x))));
    assert!(
        e[0].starts_with("this `<<<` has no matching `>>>`"),
        "{e:?}"
    );
    let e = errors(try_launch(quote!(k(x))));
    assert!(e[0].starts_with("expected `<<<`"), "{e:?}");
    let e = errors(try_launch(quote!(k<<<1, 1, &s>>>)));
    assert!(e[0].starts_with("expected the kernel's arguments"), "{e:?}");
    let e = errors(try_config(quote!(<<<1>>>)));
    assert!(e[0].starts_with("missing the block"), "{e:?}");
    let e = errors(try_launch(quote!(k<<<g, b, 0, s>>>())));
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].starts_with("the third position is the stream"),
        "{e:?}"
    );
}

#[test]
fn literal_cluster_rules() {
    let e = errors(try_config(quote!(<<<(6, 4), 64, cluster = (4, 2)>>>)));
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].starts_with("cluster x = 4 does not divide grid x = 6"),
        "{e:?}"
    );
    let e = errors(try_config(
        quote!(<<<16, 64, cluster = 2, preferred_cluster = (3, 1, 2)>>>),
    ));
    assert_eq!(e.len(), 2, "{e:?}");
    let e = errors(try_config(quote!(<<<16, 64, preferred_cluster = 4>>>)));
    assert!(
        e[0].starts_with("`preferred_cluster` needs `cluster`"),
        "{e:?}"
    );
    // A multiple of the cluster must still divide the grid; one error per axis.
    let e = errors(try_config(
        quote!(<<<(6, 4), 64, cluster = 2, preferred_cluster = (4, 3)>>>),
    ));
    assert_eq!(
        e,
        [
            "preferred_cluster x = 4 does not divide grid x = 6: the driver requires the grid to \
             be a whole number of preferred clusters too",
            "preferred_cluster y = 3 does not divide grid y = 4: the driver requires the grid to \
             be a whole number of preferred clusters too"
        ]
    );
    assert!(try_config(quote!(<<<(12, 4), 64, cluster = 2, preferred_cluster = (4, 2)>>>)).is_ok());
    // Non-literal values are left to the run-time check.
    assert!(try_config(quote!(<<<g, b, cluster = c, preferred_cluster = p>>>)).is_ok());
}

#[test]
fn positions_may_be_variables_named_like_keywords() {
    // A stream called `stream`, a block called `shared`: positions, not items.
    let stmts = launch(quote! { dyn f<<<grid, shared, stream, stream(sync = Spin)>>>() });
    assert_eq!(path_text(let_init(&stmts, "__chevron_stream")), "stream");
    assert_eq!(path_text(let_init(&stmts, "__chevron_grid")), "grid");
    assert_eq!(path_text(let_init(&stmts, "__chevron_block")), "shared");
    // A flag key where the stream belongs is taken as a missing stream.
    let e = errors(try_launch(quote!(dyn f<<<1, 1, cooperative>>>())));
    assert!(e[0].starts_with("missing the stream"), "{e:?}");
}

#[test]
fn literal_values_are_checked_against_the_kernels_rules_in_one_statement() {
    let text = |stmts: &[Stmt]| quote!(#(#stmts)*).to_string();
    let s = launch(quote!(
        k<<<(6, 1), 512, s, cluster = 2, programmatic_serialization, cooperative = false>>>(x)
    ));
    let all = text(&s);
    let p = ":: chevron :: __private ::";
    // The facts in integers (`LaunchFacts::literal`'s arguments): cluster known (bit 0),
    // `cooperative` known and false (bit 1), `programmatic_serialization` known and true (bits
    // 3 and 4). The kernel as a type alias (a function in its place is "expected type", not a
    // const); the rules evaluated once, in the const argument that picks the trait object
    // `&k` is coerced to (an E0277 in chevron's words where a rule is broken).
    let check_with = |function: &str, refusal: &str| {
        format!(
            "type __ChevronKernel = k ; let _ : & < __ChevronKernel as {p} Refusal < {{ {p} \
             {function} :: < __ChevronKernel > ({refusal}) }} > > :: Dyn = & \
             __ChevronKernel {{ }} ;"
        )
    };
    let check = |refusal: &str| check_with("refusal_literal", refusal);
    let check_block = |refusal: &str| check_with("refusal_block", refusal);
    // A statement of the launch's block, not an item: no body of its own.
    assert!(!all.contains("const _"), "{all}");
    assert_eq!(all.matches("refusal_literal").count(), 1, "{all}");
    assert_eq!(
        all.matches("Refusal").count(),
        1,
        "one coercion per launch: {all}"
    );
    let expected =
        check("[6u32 , 1u32 , 1u32] , [512u32 , 1u32 , 1u32] , [2u32 , 1u32 , 1u32] , 27u8");
    assert!(all.starts_with(&expected), "{expected} in {all}");
    // Run-time values are checked at run time only: with every fact an expression, no block.
    let all = text(&launch(quote!(
        k<<<g, b, s, cluster = c, cooperative = on, programmatic_serialization = pdl>>>(x)
    )));
    assert!(!all.contains("refusal"), "{all}");
    // Without the flags and `cluster`: a grid-syncing kernel can fail (it needs
    // `cooperative`), and one compiled with `.explicitcluster` alone (it needs a cluster); those
    // are reported at the kernel's name, the one place, as nothing is written.
    let all = text(&launch(quote!(k<<<g, b, s>>>(x))));
    assert_eq!(all.matches("refusal_block").count(), 1, "{all}");
    // Grid and block unknown (0), no cluster (known, bit 0), `cooperative` and
    // `programmatic_serialization` known and false (bits 1 and 3); none written. Grid and
    // cluster unknown: the block alone, in four integers (`refusal_block`).
    let expected = check_block("0 , 0 , 0 , 11");
    assert!(all.contains(&expected), "{expected} in {all}");
    // A kernel path is checked through it.
    let all = text(&launch(quote!(m::k<<<1, 32, s>>>(x))));
    assert!(all.contains("type __ChevronKernel = m :: k ;"), "{all}");
    // A prebuilt config is checked at run time; `dyn` launches have no kernel info.
    let all = text(&launch(quote!(k<<<config = cfg, s>>>(x))));
    assert!(!all.contains("refusal"), "{all}");
    let all = text(&launch(quote!(dyn f<<<1, 1024, s>>>(&x))));
    assert!(!all.contains("refusal"), "{all}");
}

/// `_` in the block position: the kernel's own block shape. The config is built on the grid
/// alone (`__from_grid_kernel_block`, no block bound), and the kernel's rules see the own block
/// (bit 5) and no block: a kernel without `.reqntid` is refused at the `_`, the block's place.
#[test]
fn underscore_block_is_the_kernels_own() {
    let e = expr(try_config(quote!(<<<3, _>>>)).unwrap());
    assert_eq!(
        path_text(&e),
        "::chevron::__private::LaunchConfig::__from_grid_kernel_block(<_as::chevron::__private::IntoDim>::into_dim(3u32))"
    );
    // With expressions: the grid bound, no block; attributes as usual.
    let stmts = block(try_config(quote!(<<<g, _, cooperative>>>)).unwrap());
    let names: Vec<String> = lets(&stmts).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["__chevron_grid", "mut__chevron_config"]);
    assert!(
        path_text(let_init(&stmts, "__chevron_config"))
            .starts_with("::chevron::__private::LaunchConfig::__from_grid_kernel_block("),
        "{stmts:?}"
    );
    // A typed launch: grid 3 (literal), block unknown, no cluster (bit 0), the flags known and
    // false (bits 1 and 3), the kernel's own block (bit 5); block and grid written.
    let stmts = launch(quote!(k<<<3, _, s>>>(x)));
    let all = quote!(#(#stmts)*).to_string();
    assert!(
        all.contains(
            "refusal_literal :: < __ChevronKernel > ([3u32 , 1u32 , 1u32] , [0u32 , 0u32 , \
             0u32] , [0u32 , 0u32 , 0u32] , 43u8) }"
        ),
        "{all}"
    );
    assert!(all.contains("__from_grid_kernel_block"), "{all}");
    // `dyn` launches take it too (the driver checks the kernel).
    let stmts = launch(quote!(dyn f<<<3, _, s>>>(&x)));
    let all = quote!(#(#stmts)*).to_string();
    assert!(all.contains("__from_grid_kernel_block"), "{all}");
}

/// `_` stands for the whole block: in the grid or the stream position, or as one extent of a
/// dim, it is refused with where it belongs; below CUDA 12.9 the block `_` names the feature.
#[test]
fn underscore_elsewhere_is_refused() {
    assert_eq!(
        errors(try_config(quote!(<<<_, 64>>>))),
        [
            "`_` stands for the kernel's own block shape, in the block position only; write the \
          grid: `<<<GRID, _, &stream>>>`"
        ]
    );
    assert_eq!(
        errors(try_launch(quote!(k<<<3, _, _>>>(x)))),
        [
            "`_` stands for the kernel's own block shape, in the block position only; write the \
          stream: `<<<GRID, _, &stream>>>`"
        ]
    );
    assert_eq!(
        errors(try_config(quote!(<<<3, (_, 2)>>>))),
        [
            "an extent of the block cannot be `_`: `_` stands for the kernel's whole block shape, \
          written alone in the block position (`<<<GRID, _, …>>>`)"
        ]
    );
    assert_eq!(
        errors(try_config(quote!(<<<(4, _), _>>>))),
        [
            "an extent of the grid cannot be `_`: `_` stands for the kernel's whole block shape, \
          written alone in the block position (`<<<GRID, _, …>>>`)"
        ]
    );
    // The version gate, under the CUDA 12.8 feature.
    let mut cx = crate::report::Errors::default();
    let (grid, block): (Expr, Expr) = (syn::parse_quote!(3), syn::parse_quote!(_));
    let span = super::check::check_underscores(&[&grid, &block], 12080, &mut cx);
    assert!(span.is_some());
    let errs: Vec<String> = match cx.finish() {
        Err(e) => e.into_iter().map(|e| e.to_string()).collect(),
        Ok(()) => panic!("no error under CUDA 12.8"),
    };
    assert_eq!(
        errs,
        [
            "`_` launches in the kernel's own block shape (CU_LAUNCH_KERNEL_REQUIRED_BLOCK_DIM), \
          which needs CUDA 12.9: use feature cuda-12090 or later, or write the block"
        ]
    );
    let mut cx = crate::report::Errors::default();
    assert!(super::check::check_underscores(&[&grid, &block], 12090, &mut cx).is_some());
    assert!(cx.finish().is_ok());
}

/// The parser's shortcut for a lone identifier or literal gives the `Expr` syn's parser gives,
/// and leaves everything else (keywords, `true`, a unary minus, a path, a call) to syn.
#[test]
fn lone_tokens_parse_as_syn_parses_them() {
    use syn::parse::Parser;
    let ours = |tokens: TokenStream| {
        let parser = |input: syn::parse::ParseStream| {
            syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated_with(
                input,
                super::parse::parse_expr,
            )
        };
        parser
            .parse2(tokens)
            .map(|p| p.into_iter().collect::<Vec<_>>())
    };
    let syns = |tokens: TokenStream| {
        syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated
            .parse2(tokens)
            .map(|p| p.into_iter().collect::<Vec<_>>())
    };
    for tokens in [
        quote!(n),
        quote!(n, x, y),
        quote!(256, 2.0, 1u32, 0x10_u64, 'c', "s", b"b"),
        quote!(true, false, self),
        quote!(
            -1,
            n + 1,
            a.b,
            f(x),
            &mut y,
            [1, 2],
            (3, 4),
            crate::N,
            r#type
        ),
        quote!(n,),
        quote!(n.div_ceil(256), x.len(), a.b(c, d.e(1), f + 1), a.b(1,), s),
        // Through syn: a turbofish, a chain, an operator after the call, a keyword.
        quote!(a.b::<u32>(1), a.b(1).c(2), a.b(1) + 2, self.x(1), a.b(1)?),
    ] {
        let (a, b) = (ours(tokens.clone()), syns(tokens.clone()));
        let a = a.unwrap_or_else(|e| panic!("{tokens}: {e}"));
        let b = b.unwrap_or_else(|e| panic!("{tokens}: {e}"));
        assert_eq!(a, b, "{tokens}");
    }
    // What syn refuses, the shortcut refuses too.
    for tokens in [
        quote!(match),
        quote!(n m),
        quote!(,),
        quote!(a.match(1)),
        quote!(a.b(,)),
        quote!(a.b(1) c),
    ] {
        assert!(ours(tokens.clone()).is_err(), "{tokens}");
        assert!(syns(tokens.clone()).is_err(), "{tokens}");
    }
}

/// A launch whose only literal is its block (the grid computed, no `cluster`, no flag): no
/// check statement nor alias, the config built and checked by the kernel's `LiteralBlock`,
/// with the block as a type (its extents as const arguments, one for a one-dimensional block,
/// its thread count `32·W + L` as two count types), and, when nothing else
/// is set, no local for the grid or the stream: grid, stream, arguments, in the order written.
#[test]
fn a_literal_block_alone_is_checked_by_the_config_call() {
    let text = |stmts: &[Stmt]| quote!(#(#stmts)*).to_string();
    let p = ":: chevron :: __private ::";
    let all = text(&launch(quote!(k<<<n.div_ceil(256), 256, s>>>(a, b))));
    assert!(!all.contains("refusal"), "{all}");
    assert!(!all.contains("__chevron_grid"), "{all}");
    assert!(!all.contains("__chevron_stream"), "{all}");
    let config = format!(
        "let __chevron_config = < k as {p} LiteralBlock < {p} Block1 < 256 , {p} N8 , {p} N0 > > \
         > :: __config (n . div_ceil (256) , < k as {p} Pointer > :: NULL) ;"
    );
    assert!(all.starts_with(&config), "{config} in {all}");
    let (grid, stream, args) = (
        all.find("div_ceil").unwrap(),
        all.find("stream_ref (s)")
            .unwrap_or_else(|| panic!("{all}")),
        all.find("(a , b ,)").unwrap_or_else(|| panic!("{all}")),
    );
    assert!(grid < stream && stream < args, "{all}");
    // A block of several extents, and one that is not a whole number of warps.
    let all = text(&launch(quote!(k<<<g, (16, 16), &s>>>(a))));
    assert!(
        all.contains(&format!(
            "LiteralBlock < {p} Block3 < 16 , 16 , 1 , {p} N8 , {p} N0 > >"
        )),
        "{all}"
    );
    let all = text(&launch(quote!(k<<<g, 1000u32, &s>>>(a))));
    assert!(
        all.contains(&format!(
            "LiteralBlock < {p} Block1 < 1000 , {p} N31 , {p} N8 > >"
        )),
        "{all}"
    );
    // With another setting: the grid and stream bound in the order written, the config still
    // checked by its call.
    let all = text(&launch(quote!(k<<<g, 128, s, shared = 1024>>>(a))));
    assert!(all.contains("let __chevron_grid = g ;"), "{all}");
    assert!(
        all.contains(&format!(
            "Block1 < 128 , {p} N4 , {p} N0 > > > :: __config (__chevron_grid"
        )),
        "{all}"
    );
    assert!(!all.contains("refusal"), "{all}");
    // A flag, a literal grid, a cluster or the kernel's own block: the constant check.
    for tokens in [
        quote!(k<<<g, 128, s, cooperative>>>(a)),
        quote!(k<<<4, 128, s>>>(a)),
        quote!(k<<<g, 128, s, cluster = 2>>>(a)),
        quote!(k<<<g, _, s>>>(a)),
    ] {
        let all = text(&launch(tokens));
        assert!(all.contains("Refusal"), "{all}");
        assert!(!all.contains("LiteralBlock"), "{all}");
    }
}
