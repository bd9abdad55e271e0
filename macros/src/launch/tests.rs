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

/// `a.b(x).c(y)` → `(base, ["b", "c"])`.
fn chain(e: &Expr) -> (&Expr, Vec<String>) {
    let mut methods = Vec::new();
    let mut cur = e;
    while let Expr::MethodCall(m) = cur {
        methods.push(m.method.to_string());
        cur = &m.receiver;
    }
    methods.reverse();
    (cur, methods)
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

#[test]
fn typed_launch_calls_the_kernels_launcher_with_the_config() {
    let stmts = launch(quote! {
        saxpy<<<g, 256, &s, stream(sync = Spin), cooperative>>>(n, 2.0, &x, &mut y)
    });
    let config = let_init(&stmts, "__chevron_config");
    let (base, methods) = chain(config);
    assert_eq!(methods, ["with_stream", "with"]);
    assert_eq!(
        path_text(base),
        "::chevron::__private::LaunchConfig::new(g,256u32)"
    );
    assert!(
        path_text(config).contains(".with_stream(::chevron::__private::runtime::SyncPolicy::Spin)")
    );
    assert!(path_text(config).contains(".with(::chevron::__private::runtime::Cooperative)"));
    let Expr::MethodCall(call) = tail(&stmts) else {
        panic!("the tail is not a method call")
    };
    assert_eq!(call.method, "launch");
    let Expr::Call(on) = &*call.receiver else {
        panic!("the receiver is not a call")
    };
    assert_eq!(path_text(&on.func), "saxpy::__on");
    let on_args: Vec<String> = on.args.iter().map(path_text).collect();
    assert_eq!(on_args, ["&s", "&__chevron_config"]);
    let args: Vec<String> = call.args.iter().map(path_text).collect();
    assert_eq!(args, ["n", "2.0", "&x", "&muty"]);
}

#[test]
fn dyn_launch_probes_each_argument_and_calls_launch_named() {
    let stmts = launch(quote! { dyn f<<<8, 128, &s>>>(&n, &x, &mut y) });
    assert!(matches!(&stmts[0], Stmt::Item(syn::Item::Use(_))));
    let stream = let_init(&stmts, "__chevron_stream");
    assert_eq!(path_text(stream), "&s");
    for i in 0..3 {
        let probe = path_text(let_init(&stmts, &format!("__chevron_a{i}")));
        assert!(
            probe.contains("::chevron::__private::Probe(::chevron::__private::Some("),
            "{probe}"
        );
        assert!(
            probe.ends_with(".__chevron_arg(__chevron_stream)"),
            "{probe}"
        );
    }
    assert_eq!(path_text(let_init(&stmts, "__chevron_v2")), "&muty");
    let params = stmts
        .iter()
        .find_map(|s| match s {
            Stmt::Local(l)
                if l.pat
                    .to_token_stream()
                    .to_string()
                    .contains("__chevron_params") =>
            {
                Some(l)
            }
            _ => None,
        })
        .expect("a params array");
    let ty = params.pat.to_token_stream().to_string().replace(' ', "");
    assert!(
        ty.contains("[*mut::chevron::__private::c_void;3usize]"),
        "{ty}"
    );
    let Expr::Call(call) = tail(&stmts) else {
        panic!("the tail is not a call")
    };
    assert_eq!(
        path_text(&call.func),
        "::chevron::__private::runtime::launch_named"
    );
    assert_eq!(call.args.len(), 5);
}

#[test]
fn dyn_launch_without_arguments_has_an_empty_params_array() {
    let stmts = launch(quote! { dyn (module.f)<<<1, 1, &s>>>() });
    let params = path_text(let_init(&stmts, "__chevron_params"));
    assert_eq!(params, "[]");
    assert_eq!(path_text(let_init(&stmts, "__chevron_func")), "&(module.f)");
}

#[test]
fn values_take_the_form_of_their_key() {
    let stmts = launch(quote! {
        k<<<(8, 2), (16, 16), &s, shared = bytes, cluster = 2, preferred_cluster = (4, 1, 1),
            priority = -1, shared_carveout = 50, cooperative = on, nvlink_centric = true,
            completion_event = &ev, mem_sync_domain = dom,
            stream(sync = policy, mem_sync_domain = Remote)>>>()
    });
    let config = path_text(let_init(&stmts, "__chevron_config"));
    let rt = "::chevron::__private::runtime::";
    for piece in [
        "LaunchConfig::new((8u32,2u32),(16u32,16u32)).shared(bytes)".to_string(),
        format!(".with({rt}ClusterDim::from_dim(2u32))"),
        format!(".with({rt}PreferredClusterDim::from_dim((4u32,1u32,1u32)))"),
        format!(".with({rt}Priority(-1))"),
        format!(".with({rt}SharedCarveout::percent(50))"),
        format!(".with_flag({rt}Cooperative,on)"),
        format!(".with({rt}NvlinkCentric)"),
        ".with(__chevron_completion_event)".to_string(),
        ".with(__chevron_mem_sync_domain)".to_string(),
        ".with_stream(__chevron_stream_sync)".to_string(),
        format!(".with_stream({rt}MemSyncDomain::Remote)"),
    ] {
        assert!(config.contains(&piece), "`{piece}` not in `{config}`");
    }
    let (_, methods) = chain(let_init(&stmts, "__chevron_config"));
    // Stream attributes first, then launch attributes, each in source order.
    assert_eq!(methods[..3], ["shared", "with_stream", "with_stream"]);
    let typed = |name: &str| {
        stmts
            .iter()
            .find_map(|s| match s {
                Stmt::Local(l) if l.pat.to_token_stream().to_string().contains(name) => {
                    Some(l.to_token_stream().to_string().replace(' ', ""))
                }
                _ => None,
            })
            .unwrap()
    };
    assert_eq!(
        typed("__chevron_stream_sync"),
        format!("let__chevron_stream_sync:{rt}SyncPolicy=policy;")
    );
    assert_eq!(
        typed("__chevron_completion_event"),
        format!("let__chevron_completion_event:{rt}CompletionEvent<'_>=::chevron::__private::From::from(&ev);")
    );
}

#[test]
fn config_is_a_builder_expression() {
    let e = expr(try_config(quote!(<<<64, 256, cooperative>>>)).unwrap());
    let (base, methods) = chain(&e);
    assert_eq!(methods, ["with"]);
    assert_eq!(
        path_text(base),
        "::chevron::__private::LaunchConfig::new(64u32,256u32)"
    );
    // With a typed value, a block holding its `let`.
    let stmts = block(try_config(quote!(<<<g, b, stream(sync = p)>>>)).unwrap());
    assert_eq!(stmts.len(), 2);
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
    // Non-literal values are left to the run-time check.
    assert!(try_config(quote!(<<<g, b, cluster = c, preferred_cluster = p>>>)).is_ok());
}

#[test]
fn positions_may_be_variables_named_like_keywords() {
    // A stream called `stream`, a block called `shared`: positions, not items.
    let stmts = launch(quote! { dyn f<<<grid, shared, stream, stream(sync = Spin)>>>() });
    assert_eq!(path_text(let_init(&stmts, "__chevron_stream")), "stream");
    let config = path_text(let_init(&stmts, "__chevron_config"));
    assert!(
        config.starts_with("::chevron::__private::LaunchConfig::new(grid,shared)"),
        "{config}"
    );
    // A flag key where the stream belongs is taken as a missing stream.
    let e = errors(try_launch(quote!(dyn f<<<1, 1, cooperative>>>())));
    assert!(e[0].starts_with("missing the stream"), "{e:?}");
}
