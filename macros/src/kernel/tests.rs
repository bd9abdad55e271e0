//! Codegen tests: `quote!` input → expand → parse the output → assert on its structure.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{File, ImplItem, ImplItemFn, Item, ItemConst, ItemImpl, ItemStruct};

/// An absolute path to a checked-in kernel: the macro resolves relative paths against
/// `CHEVRON_MANIFEST_DIR`, which the workspace sets for test runs.
fn kpath(file: &str) -> syn::LitStr {
    let path = format!("{}/../kernels/{file}", env!("CARGO_MANIFEST_DIR"));
    syn::LitStr::new(&path, proc_macro2::Span::call_site())
}

fn src(key: &str, file: &str) -> TokenStream {
    let key = syn::Ident::new(key, proc_macro2::Span::call_site());
    let path = kpath(file);
    quote!(#key = #path)
}

fn expand(args: TokenStream, item: TokenStream) -> File {
    let out = super::nvcc::without_nvcc(|| super::expand(args, item, None));
    syn::parse2(out.clone()).unwrap_or_else(|e| panic!("expansion does not parse: {e}\n{out}"))
}

/// [`expand`] with every parameter's check left to rustc, as for types whose spelling does
/// not decide their form: the const assertions can be read.
fn expand_rustc(args: TokenStream, item: TokenStream) -> File {
    super::expand::rustc_checks_all(|| expand(args, item))
}

/// What one declaration expands to: its type, its `impl`s (of `TypedKernel`, then its own)
/// and its assertions.
struct Expansion<'a> {
    ty: &'a ItemStruct,
    impls: Vec<&'a ItemImpl>,
    consts: Vec<&'a ItemConst>,
}

fn kernel(file: &File) -> Expansion<'_> {
    let ty = file
        .items
        .iter()
        .find_map(|i| match i {
            Item::Struct(s) => Some(s),
            _ => None,
        })
        .expect("a struct");
    let impls = file
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Impl(m) if ty.ident == text(&m.self_ty) => Some(m),
            _ => None,
        })
        .collect();
    let consts = file
        .items
        .iter()
        .filter_map(|i| match i {
            // Not the warning of a `cuda = "…"` kernel checked only at run time (`crate::warn`),
            // which depends on the machine having nvcc, nor the file's `include_bytes!` that the
            // first declaration of a file in the process makes (`a_file_is_included_once…`).
            Item::Const(c)
                if !text(&c.expr).contains("cuda_kernel_checked_at_run_time")
                    && !text(&c.expr).contains("include_bytes") =>
            {
                Some(c)
            }
            _ => None,
        })
        .collect();
    Expansion { ty, impls, consts }
}

/// The declaration's `impl <chevron>::TypedKernel for KERNEL`.
fn typed_impl<'a>(k: &Expansion<'a>) -> &'a ItemImpl {
    let impls: Vec<&ItemImpl> = k
        .impls
        .iter()
        .copied()
        .filter(|m| {
            m.trait_
                .as_ref()
                .is_some_and(|(path, _)| text(path) == ":: chevron :: __private :: TypedKernel")
        })
        .collect();
    assert_eq!(impls.len(), 1, "one `impl TypedKernel`");
    impls[0]
}

/// The declaration's inherent `impl KERNEL`.
fn own_impl<'a>(k: &Expansion<'a>) -> &'a ItemImpl {
    let impls: Vec<&ItemImpl> = k
        .impls
        .iter()
        .copied()
        .filter(|m| m.trait_.is_none())
        .collect();
    assert_eq!(impls.len(), 1, "one inherent `impl`");
    impls[0]
}

/// The names of an `impl`'s items, in order.
fn item_names(m: &ItemImpl) -> Vec<String> {
    m.items
        .iter()
        .map(|i| match i {
            ImplItem::Fn(f) => f.sig.ident.to_string(),
            ImplItem::Const(c) => c.ident.to_string(),
            ImplItem::Type(t) => t.ident.to_string(),
            other => panic!("unexpected item `{}`", text(other)),
        })
        .collect()
}

/// The value of `const NAME` in the `TypedKernel` impl.
fn typed_const(k: &Expansion<'_>, name: &str) -> String {
    typed_impl(k)
        .items
        .iter()
        .find_map(|i| match i {
            ImplItem::Const(c) if c.ident == name => Some(text(&c.expr)),
            _ => None,
        })
        .unwrap_or_else(|| panic!("const {name}"))
}

/// `type NAME<…> = TY where …;` in the `TypedKernel` impl: its generics, its type and its
/// where clause, as text.
fn typed_type(k: &Expansion<'_>, name: &str) -> (String, String, String) {
    typed_impl(k)
        .items
        .iter()
        .find_map(|i| match i {
            ImplItem::Type(t) if t.ident == name => Some((
                text(&t.generics),
                text(&t.ty),
                t.generics
                    .where_clause
                    .as_ref()
                    .map(text)
                    .unwrap_or_default(),
            )),
            _ => None,
        })
        .unwrap_or_else(|| panic!("type {name}"))
}

/// `INFO`'s fields that differ from `KernelInfo::UNKNOWN`, `(name, value)` in the struct's
/// order, as `#[kernel]` writes them: the flags, facts and messages through
/// `KernelInfo::from_facts(bits, [texts])` (decoded here, the messages as one text listing the
/// non-empty ones), the block and cluster directives as fields over it; no info at all is
/// `KernelInfo::UNKNOWN`.
fn info_fields(k: &Expansion<'_>) -> Vec<(String, String)> {
    let info = typed_impl(k)
        .items
        .iter()
        .find_map(|i| match i {
            ImplItem::Const(c) if c.ident == "INFO" => Some(&c.expr),
            _ => None,
        })
        .expect("const INFO");
    let p = ":: chevron :: __private ::";
    if text(info) == format!("{p} KernelInfo :: UNKNOWN") {
        return Vec::new();
    }
    let (directives, call) = match info {
        syn::Expr::Struct(s) => {
            assert_eq!(text(&s.path), format!("{p} KernelInfo"));
            let fields: Vec<(String, String)> = s
                .fields
                .iter()
                .map(|f| (text(&f.member), text(&f.expr)))
                .collect();
            (fields, s.rest.as_deref().expect("a base"))
        }
        call => (Vec::new(), call),
    };
    let syn::Expr::Call(call) = call else {
        panic!("INFO is no call: `{}`", text(info))
    };
    assert_eq!(text(&call.func), format!("{p} KernelInfo :: from_facts"));
    let [bits, texts] = [&call.args[0], &call.args[1]];
    let bits: u32 = text(bits).trim_end_matches("u32").parse().expect("bits");
    let texts = match texts {
        syn::Expr::Array(a) => a.elems.iter().map(text).collect::<Vec<_>>(),
        t => panic!("texts: `{}`", text(t)),
    };
    assert_eq!(texts.len(), chevron_cuda_rules::fit::MESSAGES);
    let fact = |at: u32| match (bits >> at) & 3 {
        1 => Some(format!("{p} Fact :: No")),
        2 => Some(format!("{p} Fact :: Yes")),
        _ => None,
    };
    let flag = |at: u32| (bits >> at & 1 == 1).then(|| "true".to_string());
    let cooperative = match (bits >> 4) & 3 {
        1 => Some(format!("{p} CooperativeUse :: Optional")),
        2 => Some(format!("{p} CooperativeUse :: CoResident")),
        _ => None,
    };
    let directive = |name: &str| {
        directives
            .iter()
            .find_map(|(n, v)| (n == name).then(|| v.clone()))
    };
    let written: Vec<&String> = texts.iter().filter(|t| t.as_str() != "\"\"").collect();
    let messages = (!written.is_empty()).then(|| {
        written
            .iter()
            .map(|t| t.as_str())
            .collect::<Vec<_>>()
            .join(" , ")
    });
    [
        ("no_upstream_reads", flag(1)),
        ("cooperative", cooperative),
        ("known", flag(0)),
        ("reqntid", directive("reqntid")),
        ("maxntid", directive("maxntid")),
        ("cluster", directive("cluster")),
        ("max_cluster_rank", directive("max_cluster_rank")),
        ("explicit_cluster", flag(2)),
        ("blocks_are_clusters", flag(3)),
        ("waits", fact(6)),
        ("triggers", fact(8)),
        ("grid_sync", fact(10)),
        ("messages", messages),
    ]
    .into_iter()
    .filter_map(|(n, v)| v.map(|v| (n.to_string(), v)))
    .collect()
}

/// The names of [`info_fields`].
fn info_names(k: &Expansion<'_>) -> Vec<String> {
    info_fields(k).into_iter().map(|(n, _)| n).collect()
}

/// The value of `INFO`'s field `name`, if written.
fn info_field(k: &Expansion<'_>, name: &str) -> Option<String> {
    info_fields(k)
        .into_iter()
        .find_map(|(n, v)| (n == name).then_some(v))
}

/// The statements of `kernel()`'s body, as text: the kernel's static, the spelling guard (when
/// the macro read any parameter's form from its spelling), the `Typed` of the static.
fn kernel_body(k: &Expansion<'_>) -> Vec<String> {
    func(k, "kernel").block.stmts.iter().map(text).collect()
}

fn func<'a>(k: &Expansion<'a>, name: &str) -> &'a ImplItemFn {
    k.impls
        .iter()
        .flat_map(|m| &m.items)
        .find_map(|i| match i {
            ImplItem::Fn(f) if f.sig.ident == name => Some(f),
            _ => None,
        })
        .unwrap_or_else(|| panic!("fn {name}"))
}

fn text(t: impl quote::ToTokens) -> String {
    t.to_token_stream().to_string()
}

fn errors(file: &File) -> Vec<String> {
    file.items
        .iter()
        .filter_map(|i| match i {
            Item::Macro(m)
                if m.mac.path.is_ident("compile_error")
                    || text(&m.mac.path).ends_with("compile_error") =>
            {
                Some(text(&m.mac.tokens))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn saxpy_expands_to_a_type_its_parameter_types_and_its_kernel() {
    let file = expand_rustc(
        src("ptx", "saxpy.ptx"),
        quote! {
            /// y = a·x + y
            pub fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);
        },
    );
    assert!(errors(&file).is_empty(), "{:?}", errors(&file));
    let m = kernel(&file);
    assert_eq!(m.ty.ident, "saxpy");
    assert!(matches!(m.ty.vis, syn::Visibility::Public(_)));
    // Braced, so that the kernel's name takes no place in the value namespace.
    assert!(matches!(m.ty.fields, syn::Fields::Named(_)));
    let docs: Vec<String> =
        m.ty.attrs
            .iter()
            .filter(|a| a.path().is_ident("doc"))
            .map(text)
            .collect();
    assert_eq!(
        docs.len(),
        1,
        "the user's docs, and no generated line: {docs:?}"
    );
    assert!(docs[0].contains("y = a·x + y"), "{docs:?}");
    // One const block per parameter: its form (from its type, as rustc resolves it) against
    // the PTX parameter in its place.
    let consts: Vec<String> = m.consts.iter().map(|c| text(&c.expr)).collect();
    assert_eq!(consts.len(), 4, "{consts:?}");
    for (c, (prefix, ptx)) in consts.iter().zip([
        ("`n: u32` is ", "PtxType :: U32"),
        ("`a: f32` is ", "PtxType :: F32"),
        ("`x: &CudaSlice<f32>` is ", "PtxType :: U64"),
        ("`y: &mut CudaSlice<f32>` is ", "PtxType :: U64"),
    ]) {
        assert!(c.contains("check_param ("), "{c}");
        // An `extern "C"` kernel: no C++ type; saxpy's PTX stores through `y` alone.
        assert!(
            c.contains(":: chevron :: __private :: CppParam :: Unknown ,"),
            "{c}"
        );
        assert!(c.contains(&format!("\"{prefix}\"")), "{prefix}: {c}");
        assert!(c.contains(ptx), "{ptx}: {c}");
        assert!(c.contains("saxpy.ptx:"), "{c}");
        // Numbers get their exact form, references their `Param`'s; against no C++ type, no
        // class is asked for. The panic is the const's only way to fail.
        let number = !prefix.contains('&');
        assert_eq!(c.contains("> :: SCALAR"), number, "{c}");
        assert!(!c.contains(":: CLASS") && !c.contains(":: ELEM"), "{c}");
        assert!(c.contains("panic !"), "{c}");
    }

    // `impl TypedKernel for saxpy`: the rules (and those on a literal block alone, as a type:
    // saxpy fixes nothing, any block), the parameter types (the whole list, the values, the
    // buffers as ordered buffers) and which parameters are buffers; nothing else.
    let typed = typed_impl(&m);
    assert_eq!(
        item_names(typed),
        ["INFO", "Literal", "Args", "Scalars", "Ordered", "Buffers", "BUFFERS"]
    );
    let literal = typed
        .items
        .iter()
        .find_map(|i| match i {
            syn::ImplItem::Type(t) if t.ident == "Literal" => Some(text(&t.ty)),
            _ => None,
        })
        .expect("type Literal");
    assert_eq!(literal, ":: chevron :: __private :: AnyBlock");
    // A `#[deprecated]` kernel warns at its uses only.
    let on_impl: Vec<String> = typed.attrs.iter().map(text).collect();
    assert_eq!(on_impl, ["# [allow (deprecated)]"]);
    // Only the fields that differ from `KernelInfo::UNKNOWN`: saxpy's PTX has no directive,
    // never waits, triggers or syncs the grid (each a definite `No`), and the rules that rest
    // on those facts have their messages.
    assert_eq!(
        info_names(&m),
        ["known", "waits", "triggers", "grid_sync", "messages"]
    );
    assert_eq!(info_field(&m, "known").as_deref(), Some("true"));
    for fact in ["waits", "triggers", "grid_sync"] {
        assert_eq!(
            info_field(&m, fact).as_deref(),
            Some(":: chevron :: __private :: Fact :: No"),
            "{fact}"
        );
    }
    let messages = info_field(&m, "messages").expect("messages");
    assert!(
        messages.contains("kernel `saxpy` never executes `griddepcontrol.wait`"),
        "{messages}"
    );
    // Every reference gets `'r`: `launch` and `update` take the arguments as this one tuple.
    assert_eq!(
        typed_type(&m, "Args"),
        (
            "< 'r , 'v >".to_string(),
            "(u32 , f32 , & 'r CudaSlice < f32 > , & 'r mut CudaSlice < f32 > ,)".to_string(),
            "where 'v : 'r".to_string()
        )
    );
    assert_eq!(
        typed_type(&m, "Scalars"),
        (
            "< 'v >".to_string(),
            "(u32 , f32 ,)".to_string(),
            String::new()
        )
    );
    // A read buffer may be any ordered buffer, a written one must be an `Ordered`.
    assert_eq!(
        typed_type(&m, "Ordered").1,
        "(& 'r dyn :: chevron :: __private :: runtime :: OrderedBuffer < f32 > , & 'r :: \
         chevron :: __private :: runtime :: Ordered < 'r , f32 > ,)"
    );
    // An array of one flag per parameter, its length in its type (the updates' arrays).
    assert_eq!(typed_type(&m, "Buffers").1, "[bool ; 4usize]");
    assert_eq!(typed_const(&m, "BUFFERS"), "[false , false , true , true]");

    // `impl saxpy`: the kernel's static and the constant behind `programmatic_event`'s lint;
    // no function per declaration (launch, updates and queries are `Typed`'s).
    let own = own_impl(&m);
    assert_eq!(
        item_names(own),
        ["kernel", "programmatic_event_without_launch_dependents"]
    );
    let on_impl: Vec<String> = own.attrs.iter().map(text).collect();
    assert_eq!(on_impl, ["# [allow (deprecated)]"]);
    let kernel_fn = func(&m, "kernel");
    assert!(matches!(kernel_fn.vis, syn::Visibility::Public(_)));
    assert!(!matches!(kernel_fn.sig.safety, syn::Safety::Unsafe(_)));
    assert!(kernel_fn.sig.inputs.is_empty());
    assert_eq!(
        text(&kernel_fn.sig.output),
        "-> & 'static :: chevron :: __private :: Typed < saxpy >"
    );
    // The kernel, kept in the runtime's table by its type (its module loads at the first use
    // in a context), as its `Typed` view; no static, and no spelling guard, since every check
    // went to rustc here. The PTX is the module of the entry alone, cut out of the file, as a
    // string literal.
    let path = std::fs::canonicalize(kpath("saxpy.ptx").value()).expect("saxpy.ptx");
    let path = path.to_str().expect("a UTF-8 path");
    let file = std::fs::read_to_string(path).expect("saxpy.ptx");
    let module = chevron_cuda_rules::ptx::ModuleIndex::new(&file)
        .cut(&file, "saxpy")
        .expect("saxpy's module");
    let module = proc_macro2::Literal::string(&module);
    assert_eq!(
        kernel_body(&m),
        [format!(
            ":: chevron :: __private :: Typed :: < saxpy > :: __ptx (\"saxpy\" , \"saxpy\" , \
             {path:?} , {module})"
        )]
    );
    // Its docs give the launch with the arguments as one tuple.
    let docs: String = kernel_fn
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .map(text)
        .collect();
    assert!(
        docs.contains("launch(&stream, &config, (n, a, x, y))"),
        "{docs}"
    );
    // The generated code names only `<chevron>::__private`.
    let all = text(&file);
    assert!(!all.contains("core ::") && !all.contains("std ::"), "{all}");
}

/// The `include_bytes!` items of an expansion.
fn includes(file: &File) -> Vec<String> {
    file.items
        .iter()
        .filter_map(|i| match i {
            Item::Const(c) if text(&c.expr).contains("include_bytes") => Some(text(c)),
            _ => None,
        })
        .collect()
}

/// The text a declaration's `Typed::__ptx` embeds, as written in the expansion.
fn embedded_ptx(file: &File) -> String {
    let body = kernel_body(&kernel(file)).pop().expect("a body");
    let at = body.find(":: __ptx (").expect("Typed::__ptx");
    body[at..].to_string()
}

#[test]
fn a_file_is_included_once_per_compilation_and_each_kernel_embeds_its_module() {
    // A copy of a file no other test names: this test's declarations are the first to see it.
    let dir = std::env::temp_dir().join(format!("chevron-include-once-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("grid_helpers.ptx");
    let original = format!("{}/../kernels/grid_helpers.ptx", env!("CARGO_MANIFEST_DIR"));
    std::fs::copy(&original, &path).expect("copy");
    let path = path.to_str().expect("UTF-8").to_string();
    let rotate = quote!(
        fn helper_rotate(
            i: &CudaSlice<i32>,
            t: &mut CudaSlice<i32>,
            o: &mut CudaSlice<i32>,
            n: u32,
        );
    );
    let first = expand(quote!(ptx = #path), rotate.clone());
    let second = expand(
        quote!(ptx = #path),
        quote!(
            fn grid_index(out: &mut CudaSlice<u32>, n: u32);
        ),
    );
    let again = expand(quote!(ptx = #path), rotate);
    for f in [&first, &second, &again] {
        assert!(errors(f).is_empty(), "{:?}", errors(f));
    }
    // rustc lists an `include_bytes!`'d file among the crate's inputs, so that cargo checks the
    // crate again when the file changes: once per compilation is enough.
    assert_eq!(
        includes(&first),
        [format!(
            "const _ : () = {{ # [allow (dead_code)] static FILE : & [u8] = :: chevron :: \
             __private :: include_bytes ! ({path:?}) ; }} ;"
        )]
    );
    assert!(includes(&second).is_empty(), "{:?}", includes(&second));
    assert!(includes(&again).is_empty());
    // Each kernel embeds its own module: a string literal holding its entry and callees, not
    // the other entry.
    let (a, b) = (embedded_ptx(&first), embedded_ptx(&second));
    assert!(
        !a.contains("include_bytes") && !b.contains("include_bytes"),
        "{a}"
    );
    assert!(a.contains(".entry helper_rotate") && !a.contains(".entry grid_index"));
    assert!(b.contains(".entry grid_index") && !b.contains(".entry helper_rotate"));
    assert!(a.contains("_Z12grid_barrierv"), "the helper it calls: {a}");
    assert_eq!(embedded_ptx(&again), a);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn kernels_that_share_module_state_embed_the_whole_file() {
    let path = format!(
        "{}/../rules/tests/fixtures/module_state.ptx",
        env!("CARGO_MANIFEST_DIR")
    );
    let path = std::fs::canonicalize(path).expect("module_state.ptx");
    let path = path.to_str().expect("UTF-8");
    let declare = |item: TokenStream| embedded_ptx(&expand(quote!(ptx = #path), item));
    // A `__device__` counter two kernels share, and a `__constant__` table the host writes:
    // the kernel loads the whole file's module, which every such kernel shares.
    let whole = format!(
        ":: __ptx (\"count_launch\" , \"count_launch\" , {path:?} , :: chevron :: __private \
         :: embedded_text (:: chevron :: __private :: include_bytes ! ({path:?})))"
    );
    assert_eq!(
        declare(quote!(
            fn count_launch(out: &mut CudaSlice<u32>);
        )),
        whole
    );
    assert!(declare(quote!(
        fn weigh(x: &CudaSlice<f32>, y: &mut CudaSlice<f32>, n: i32);
    ))
    .contains("include_bytes"));
    // `printf`'s strings are copied into the kernel's own module.
    let say = declare(quote!(
        fn say(n: i32);
    ));
    assert!(
        !say.contains("include_bytes") && say.contains("vprintf"),
        "{say}"
    );
}

#[test]
fn mangled_name_is_resolved_at_compile_time() {
    let file = expand(
        src("ptx", "templates.ptx"),
        quote!(
            fn offset_add(y: &mut CudaSlice<f32>, v: f32, n: u32);
        ),
    );
    assert!(errors(&file).is_empty(), "{:?}", errors(&file));
    let m = kernel(&file);
    assert!(matches!(m.ty.vis, syn::Visibility::Inherited));
    // Without docs of its own the type gets a generated line.
    assert!(m.ty.attrs.iter().any(|a| a.path().is_ident("doc")));
    let all = text(&file);
    assert!(all.contains("\"_Z10offset_addPffj\""), "{all}");
}

#[test]
fn struct_by_value_gets_a_device_repr_bound_and_its_size_asserted() {
    let file = expand_rustc(
        src("ptx", "structs.ptx"),
        quote!(
            fn affine(p: Affine, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>, n: u32);
        ),
    );
    assert!(errors(&file).is_empty(), "{:?}", errors(&file));
    let consts: Vec<String> = kernel(&file).consts.iter().map(|c| text(&c.expr)).collect();
    assert_eq!(consts.len(), 4, "{consts:?}");
    // `value`'s bound words the error for a type that is not `DeviceRepr`; its size is in its
    // form, compared with the 16-byte `.b8` array.
    assert!(
        consts[0].contains(":: value :: < Affine , _ > () . form"),
        "{}",
        consts[0]
    );
    assert!(consts[0].contains("PtxType :: B8"), "{}", consts[0]);
    assert!(consts[0].contains("Some (16u32)"), "{}", consts[0]);
    assert!(consts[0].contains("affine_param_0[16]"), "{}", consts[0]);
}

#[test]
fn each_spelling_gets_the_words_of_its_error() {
    // Which constructor (and so which error) each spelling gets; all assert the same bound.
    for (decl, ctor) in [
        (
            quote!(
                fn k(x: &[f32]);
            ),
            "host_data :: < & [f32] , f32 , _ >",
        ),
        (
            quote!(
                fn k(x: &mut Vec<u16>);
            ),
            "host_data_mut :: < & mut Vec < u16 > , u16 , _ >",
        ),
        (
            quote!(
                fn k(x: Box<[i8]>);
            ),
            "host_data :: < Box < [i8] > , i8 , _ >",
        ),
        (
            quote!(
                fn k(x: &String);
            ),
            ":: core :: primitive :: u8 , _ >",
        ),
        (
            quote!(
                fn k(x: &u32);
            ),
            "host_ref :: < & u32 , u32 , _ >",
        ),
        (
            quote!(
                fn k(x: &mut f32);
            ),
            "host_mut :: < & mut f32 , f32 , _ >",
        ),
        (
            quote!(
                fn k(x: &mut CudaView<'_, f32>);
            ),
            "read_only_view :: < & mut CudaView < '_ , f32 > , f32 , _ >",
        ),
        (
            quote!(
                fn k(x: CudaSlice<f32>);
            ),
            "buffer_by_value :: < CudaSlice < f32 > , _ >",
        ),
        (
            quote!(
                fn k(x: *const f32);
            ),
            "raw_pointer :: < * const f32 , _ >",
        ),
        (
            quote!(
                fn k(x: Scale);
            ),
            "value :: < Scale , _ >",
        ),
        (
            quote!(
                fn k(x: [u32; 3]);
            ),
            "value :: < [u32 ; 3] , _ >",
        ),
        (
            quote!(
                fn k(x: &Vec<_>);
            ),
            ":: param :: < & Vec < _ > , _ >",
        ),
        (
            quote!(
                fn k(x: m!());
            ),
            ":: param :: < m ! () , _ >",
        ),
    ] {
        let file = expand(src("cuda", "histogram.cu"), decl.clone());
        assert!(errors(&file).is_empty(), "{decl}: {:?}", errors(&file));
        let all = text(&file);
        assert!(all.contains(ctor), "{decl}: {all}");
    }
}

#[test]
fn types_no_alias_can_make_valid_are_refused_by_the_macro() {
    for (decl, words) in [
        (
            quote!(
                fn k(x: [f32]);
            ),
            "`[f32]` is host memory",
        ),
        (
            quote!(
                fn k(x: str);
            ),
            "`str` is host memory",
        ),
        (
            quote!(
                fn k(x: impl Copy);
            ),
            "cannot be a kernel parameter",
        ),
        (
            quote!(
                fn k(x: dyn Fn());
            ),
            "cannot be a kernel parameter",
        ),
        (
            quote!(
                fn k(x: _);
            ),
            "cannot be a kernel parameter",
        ),
        (
            quote!(
                fn k(x: !);
            ),
            "cannot be a kernel parameter",
        ),
    ] {
        let errs = errors(&expand(src("cuda", "histogram.cu"), decl.clone()));
        assert_eq!(errs.len(), 1, "{decl}: {errs:?}");
        assert!(errs[0].contains(words), "{decl}: {errs:?}");
    }
}

#[test]
fn cuda_source_carries_its_signature_for_the_run_time_check() {
    let file = expand(
        src("cuda", "histogram.cu"),
        quote!(
            fn histogram(bins: &mut CudaSlice<u32>, data: &CudaView<'_, u8>, len: u32);
        ),
    );
    assert!(errors(&file).is_empty(), "{:?}", errors(&file));
    let all = text(&file);
    assert!(
        all.contains("Kernel :: cuda (\"histogram\" , :: chevron :: __private :: None"),
        "{all}"
    );
    // What each parameter needs is its type's form, computed by rustc.
    assert!(
        all.contains("ParamSig :: new (\"len\" , \"u32\" , { # [allow (unused_imports)]"),
        "{all}"
    );
    assert!(all.contains("Of :: < u32 > :: SCALAR"), "{all}");
    assert!(all.contains("Of :: < u32 > :: CLASS"), "{all}");
    assert!(all.contains(". form ,) } , false)"), "{all}");
    assert!(
        all.contains("ParamSig :: new (\"data\" , \"&CudaView<'_, u8>\""),
        "{all}"
    );
    // Without PTX at compile time, each type is still bound to be a kernel parameter.
    assert_eq!(kernel(&file).consts.len(), 3);
}

/// Every identifier in `tokens`, groups included (not the text of literals: docs, messages).
fn idents(tokens: proc_macro2::TokenStream, out: &mut Vec<String>) {
    for t in tokens {
        match t {
            proc_macro2::TokenTree::Ident(i) => out.push(i.to_string()),
            proc_macro2::TokenTree::Group(g) => idents(g.stream(), out),
            _ => {}
        }
    }
}

#[test]
fn parameters_named_stream_or_config_do_not_clash() {
    let file = expand(
        src("ptx", "pipeline.ptx"),
        quote!(
            fn consume(stream: &CudaSlice<f32>, config: &mut CudaSlice<f32>, n: u32);
        ),
    );
    assert!(errors(&file).is_empty(), "{:?}", errors(&file));
    let m = kernel(&file);
    // The parameters are types only: their names bind nothing in the generated code (the
    // declaration's `impl`s and assertions), so they can clash with nothing.
    let mut names = Vec::new();
    for item in m.impls.iter().map(|i| quote!(#i)) {
        idents(item, &mut names);
    }
    for item in m.consts.iter().map(|c| quote!(#c)) {
        idents(item, &mut names);
    }
    for user in ["stream", "config", "n"] {
        assert!(!names.iter().any(|n| n == user), "`{user}` in {names:?}");
    }
    assert_eq!(
        typed_type(&m, "Args").1,
        "(& 'r CudaSlice < f32 > , & 'r mut CudaSlice < f32 > , u32 ,)"
    );
    assert!(func(&m, "kernel").sig.inputs.is_empty());
}

#[test]
fn errors_keep_a_stub_with_the_same_names() {
    let file = expand_rustc(
        src("ptx", "saxpy.ptx"),
        quote!(
            pub fn saxpy(n: u32, a: u32, x: &[f32], y: &mut CudaSlice<f32>) -> u32 {
                0
            }
        ),
    );
    let errs = errors(&file);
    // body, return type: reported by the macro; the types go to rustc with them.
    assert_eq!(errs.len(), 2, "{errs:?}");
    assert!(errs.iter().any(|e| e.contains("has no body")));
    assert!(errs.iter().any(|e| e.contains("returns nothing")));
    let m = kernel(&file);
    let consts: Vec<String> = m.consts.iter().map(|c| text(&c.expr)).collect();
    assert_eq!(consts.len(), 4, "{consts:?}");
    assert!(
        consts[2].contains("host_data :: < & [f32] , f32 , _ >"),
        "{}",
        consts[2]
    );
    assert!(consts[1].contains("`a: u32` is "), "{}", consts[1]);
    assert_eq!(m.ty.ident, "saxpy");
    // Call sites keep compiling against the declaration: the same type, `TypedKernel` without
    // rules but with the declared parameter types (all of them could be read), and a
    // `kernel()` giving the runtime's `StubOf<saxpy>`, whose functions take those types:
    // arguments are checked, coerced and reborrowed as at a real kernel's launch.
    assert!(matches!(m.ty.vis, syn::Visibility::Public(_)));
    assert!(matches!(m.ty.fields, syn::Fields::Named(_)));
    assert_eq!(
        item_names(typed_impl(&m)),
        ["INFO", "Literal", "Args", "Scalars", "Ordered", "Buffers", "BUFFERS"]
    );
    // No rules: `KernelInfo::UNKNOWN` as it is.
    assert_eq!(info_fields(&m), []);
    assert_eq!(
        typed_type(&m, "Args"),
        (
            "< 'r , 'v >".to_string(),
            "(u32 , u32 , & 'r [f32] , & 'r mut CudaSlice < f32 > ,)".to_string(),
            "where 'v : 'r".to_string()
        )
    );
    assert_eq!(typed_type(&m, "Scalars").1, "(u32 , u32 ,)");
    // `&[f32]` names no element type as a path does: no ordered buffers.
    assert_eq!(
        typed_type(&m, "Ordered").1,
        ":: chevron :: __private :: NoElementType"
    );
    assert_eq!(typed_type(&m, "Buffers").1, "[bool ; 4usize]");
    assert_eq!(typed_const(&m, "BUFFERS"), "[false , false , true , true]");
    assert_eq!(
        item_names(own_impl(&m)),
        ["kernel", "programmatic_event_without_launch_dependents"]
    );
    // A `#[deprecated]` declaration warns at its uses, not at its own stub.
    for on in [typed_impl(&m), own_impl(&m)] {
        let on_impl: Vec<String> = on.attrs.iter().map(text).collect();
        assert_eq!(on_impl, ["# [allow (deprecated)]"]);
    }
    let stub = func(&m, "kernel");
    assert!(stub.sig.inputs.is_empty());
    assert_eq!(
        text(&stub.sig.output),
        "-> & 'static :: chevron :: __private :: StubOf < saxpy >"
    );
    assert_eq!(
        text(&stub.block),
        "{ & :: chevron :: __private :: StubOf :: NEW }"
    );

    // A generic declaration, or one with a parameter that could not be read: no types to
    // state, so the runtime's `Stub`, whose functions take any arguments.
    for decl in [
        quote!(
            pub fn saxpy<T>(n: u32, x: &CudaSlice<T>);
        ),
        quote!(
            pub fn saxpy(n: u32, x: impl Copy);
        ),
    ] {
        let file = expand(src("ptx", "saxpy.ptx"), decl.clone());
        assert!(!errors(&file).is_empty(), "{decl}");
        let m = kernel(&file);
        assert_eq!(info_fields(&m), [], "{decl}");
        assert_eq!(typed_type(&m, "Args").1, "()", "{decl}");
        assert_eq!(typed_type(&m, "Scalars").1, "()", "{decl}");
        assert_eq!(
            typed_type(&m, "Ordered").1,
            ":: chevron :: __private :: NoElementType"
        );
        assert_eq!(typed_type(&m, "Buffers").1, "[bool ; 0]", "{decl}");
        assert_eq!(typed_const(&m, "BUFFERS"), "[]", "{decl}");
        let stub = func(&m, "kernel");
        assert_eq!(
            text(&stub.sig.output),
            "-> & 'static :: chevron :: __private :: Stub",
            "{decl}"
        );
        assert_eq!(text(&stub.block), "{ & :: chevron :: __private :: Stub }");
    }
    // Not generic, with the spellings read: the stub keeps the guard that makes a shadowed
    // number a type error, as an item of its own (the stub's `kernel()` has no body to hold it).
    let file = expand(
        src("ptx", "saxpy.ptx"),
        quote!(
            fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>) {}
        ),
    );
    assert_eq!(errors(&file).len(), 1, "{:?}", errors(&file));
    let m = kernel(&file);
    let consts: Vec<String> = m.consts.iter().map(|c| text(&c.ty)).collect();
    assert_eq!(
        consts,
        [":: chevron :: __private :: PhantomData < (u32 , f32 , f32 , f32 ,) >"]
    );
    assert_eq!(
        text(&func(&m, "kernel").sig.output),
        "-> & 'static :: chevron :: __private :: StubOf < saxpy >"
    );
}

#[test]
fn ptx_mismatches_are_left_to_rustc_with_their_messages() {
    let file = expand_rustc(
        src("ptx", "saxpy.ptx"),
        quote!(
            fn saxpy(n: u64, a: Scale, x: &CudaSlice<f32>, y: f32);
        ),
    );
    // The macro cannot know what `Scale` is: no error from it, a const assertion per parameter.
    assert!(errors(&file).is_empty(), "{:?}", errors(&file));
    let consts: Vec<String> = kernel(&file).consts.iter().map(|c| text(&c.expr)).collect();
    assert_eq!(consts.len(), 4);
    assert!(consts[0].contains("\"`n: u64` is \""), "{}", consts[0]);
    assert!(
        consts[0].contains(", but the kernel takes a 32-bit integer here (")
            && consts[0].contains(
                "saxpy.ptx:16: `.param .u32 saxpy_param_0,`); declare it as `u32` or `i32`"
            ),
        "{}",
        consts[0]
    );
    assert!(
        consts[1].contains("Of :: < Scale > :: SCALAR"),
        "{}",
        consts[1]
    );
    assert!(consts[1].contains("declare it as `f32`"), "{}", consts[1]);
    assert!(
        consts[3].contains("a 64-bit integer or device pointer here"),
        "{}",
        consts[3]
    );
}

#[test]
fn a_shorter_declaration_names_the_missing_parameters_by_spelling() {
    // `u32` and `f32` line up with saxpy's first two: the missing ones are the pointers.
    let errs = errors(&expand(
        src("ptx", "saxpy.ptx"),
        quote!(
            fn saxpy(n: u32, a: f32);
        ),
    ));
    assert!(
        errs[0].contains("missing: `.param .u64 saxpy_param_2`"),
        "{errs:?}"
    );
    // An alias may be anything: each takes the first PTX parameter left, and the missing one
    // is the last.
    let errs = errors(&expand(
        src("ptx", "saxpy.ptx"),
        quote!(
            fn saxpy(n: Count, x: &DevBuf, y: &mut DevBuf);
        ),
    ));
    assert!(
        errs[0].contains(
            "missing: `.param .u64 saxpy_param_3` (a 64-bit integer or device pointer, after `y`)"
        ),
        "{errs:?}"
    );
}

#[test]
fn entry_lookup_errors() {
    let missing = errors(&expand_rustc(
        src("ptx", "pipeline.ptx"),
        quote!(
            fn produc(n: u32);
        ),
    ));
    assert_eq!(missing.len(), 1);
    assert!(
        missing[0].contains("its kernels are: `produce`, `consume`"),
        "{missing:?}"
    );

    // Two instances whose declared parameters do not tell them apart (aliases): both
    // listed by their demangled signatures.
    let ambiguous = errors(&expand_rustc(
        src("ptx", "templates.ptx"),
        quote!(
            fn scale(x: &mut Buf, f: Factor, n: u32);
        ),
    ));
    assert!(
        ambiguous[0].contains(
            "`scale<float>(float*, float, unsigned int)`, \
             `scale<double>(double*, double, unsigned int)`; name one with"
        ),
        "{ambiguous:?}"
    );
    // The spelled types pick one.
    for (decl, entry) in [
        (
            quote!(
                fn scale(x: &mut CudaSlice<f32>, f: f32, n: u32);
            ),
            "_Z5scaleIfEvPT_S0_j",
        ),
        (
            quote!(
                fn scale(x: &mut CudaSlice<f64>, f: Factor, n: u32);
            ),
            "_Z5scaleIdEvPT_S0_j",
        ),
        (
            quote!(
                fn scale(x: &mut Buf, f: f64, n: u32);
            ),
            "_Z5scaleIdEvPT_S0_j",
        ),
    ] {
        let out = expand_rustc(src("ptx", "templates.ptx"), decl);
        let all = text(&out);
        assert!(errors(&out).is_empty(), "{all}");
        assert!(all.contains(&format!("\"{entry}\"")), "{entry}: {all}");
    }
    // A C++ signature: each parameter's type from the symbol, in its const block.
    let out = expand_rustc(
        src("ptx", "templates.ptx"),
        quote!(
            fn gemm(
                a: &CudaSlice<f32>,
                b: &CudaSlice<f32>,
                c: &mut CudaSlice<f32>,
                m: i32,
                n: i32,
                k: i32,
            );
        ),
    );
    let consts: Vec<String> = kernel(&out).consts.iter().map(|c| text(&c.expr)).collect();
    assert!(
        consts[0].contains("CppParam :: Pointer { pointee : :: chevron :: __private :: Class :: Num (:: chevron :: __private :: Num :: Float (32u32)) , is_const : true }"),
        "{}",
        consts[0]
    );
    assert!(consts[2].contains("is_const : false"), "{}", consts[2]);
    // Against a C++ type, the classes of values and of buffers' elements too.
    assert!(
        consts[0].contains("Of :: < & CudaSlice < f32 > > :: ELEM"),
        "{}",
        consts[0]
    );
    assert!(
        consts[3].contains("Of :: < i32 > :: CLASS"),
        "{}",
        consts[3]
    );
    assert!(
        consts[3].contains("Num :: Int { bits : 32u32 , signed : true }"),
        "{}",
        consts[3]
    );
    assert!(
        consts[2].contains("not `float const*`, and writes through it (")
            && consts[2].contains("templates.ptx:125: `st.global.f32 [%rd29], %f29;`)"),
        "{}",
        consts[2]
    );

    let count = errors(&expand_rustc(
        src("ptx", "saxpy.ptx"),
        quote!(
            fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>);
        ),
    ));
    assert!(
        count[0].contains("declares 3 parameters, but the PTX entry `saxpy`"),
        "{count:?}"
    );
    assert!(count[0].contains("has 4 parameters"), "{count:?}");

    let file = errors(&expand_rustc(
        src("ptx", "nope.ptx"),
        quote!(
            fn k();
        ),
    ));
    assert!(
        file[0].contains("nope.ptx`") && file[0].contains("No such file"),
        "{file:?}"
    );
}

#[test]
fn argument_errors() {
    let none = errors(&expand(
        quote!(),
        quote!(
            fn k();
        ),
    ));
    assert!(none[0].contains("needs the kernel's code"), "{none:?}");
    let both = errors(&expand(
        {
            let (a, b) = (kpath("saxpy.ptx"), kpath("histogram.cu"));
            quote!(ptx = #a, cuda = #b, bogus = 1)
        },
        quote!(
            fn k();
        ),
    ));
    assert!(
        both.iter().any(|e| e.contains("exclude each other")),
        "{both:?}"
    );
    assert!(
        both.iter()
            .any(|e| e.contains("unknown `#[kernel]` option")),
        "{both:?}"
    );
}

#[test]
fn a_misunderstood_source_is_the_only_error() {
    let saxpy = kpath("saxpy.ptx");
    let decl = quote!(
        fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);
    );
    // The bad `ptx = 1` does not hide the good argument after it: the declaration is checked
    // (and here expands) against it.
    let errs = errors(&expand(quote!(ptx = 1, ptx = #saxpy), decl.clone()));
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(errs[0].contains("`ptx` takes a path"), "{errs:?}");
    for args in [
        quote!(ptx(#saxpy)),
        quote!(ptx: #saxpy),
        quote!(PTX = #saxpy),
        quote!(ptx = ""),
    ] {
        let errs = errors(&expand(args.clone(), decl.clone()));
        assert_eq!(errs.len(), 1, "{args}: {errs:?}");
        assert!(!errs[0].contains("needs the kernel's code"), "{errs:?}");
        assert!(!errs[0].contains("directory"), "{errs:?}");
    }
    // A broken `name` is no misspelled source: the missing source is still reported.
    let name_only = errors(&expand(quote!(name = 1), decl.clone()));
    assert_eq!(name_only.len(), 2, "{name_only:?}");
    assert!(
        name_only[1].contains("needs the kernel's code"),
        "{name_only:?}"
    );
    let call = errors(&expand(quote!(ptx(#saxpy)), decl));
    // The fix repeats the user's own path.
    assert!(
        call[0].contains("write `ptx = ") && call[0].contains("/kernels/saxpy.ptx"),
        "{call:?}"
    );
}

#[test]
fn function_attributes_are_reported_and_dropped() {
    let file = expand(
        src("ptx", "saxpy.ptx"),
        quote!(
            #[inline]
            #[allow(dead_code)]
            fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);
        ),
    );
    let errs = errors(&file);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(errs[0].contains("`#[inline]` cannot be used"), "{errs:?}");
    let m = kernel(&file);
    let attrs: Vec<String> = m.ty.attrs.iter().map(|a| text(a.path())).collect();
    // The user's `allow`, the generated doc line, the type's own `allow`.
    assert_eq!(attrs, ["allow", "doc", "allow"]);
    // Rejected (an error): the stub, whose `impl`s get the lint attributes too.
    assert!(typed_const(&m, "INFO").contains("KernelInfo :: UNKNOWN"));
    for on in [typed_impl(&m), own_impl(&m)] {
        let on_impl: Vec<String> = on.attrs.iter().map(text).collect();
        assert_eq!(on_impl[0], "# [allow (dead_code)]", "{on_impl:?}");
        assert!(!on_impl.iter().any(|a| a.contains("inline")), "{on_impl:?}");
    }
}

#[test]
fn messages_about_huge_files_stay_short() {
    let dir = std::env::temp_dir().join(format!("chevron-huge-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let head = ".version 8.0\n.target sm_90\n";
    // One entry of 8,000 parameters (32,000 bytes: within the driver's limit), and 10,000
    // entries.
    let params: Vec<String> = (0..8_000)
        .map(|i| format!(".param .u32 wide_param_{i}"))
        .collect();
    let wide = dir.join("wide.ptx");
    let text = format!("{head}.entry wide(\n{}\n) {{}}\n", params.join(",\n"));
    std::fs::write(&wide, text).expect("write");
    let many = dir.join("many.ptx");
    let text: String = (0..10_000)
        .map(|i| format!(".entry k{i}() {{}}\n"))
        .collect();
    std::fs::write(&many, format!("{head}{text}")).expect("write");

    let lit = |p: &std::path::Path| {
        syn::LitStr::new(p.to_str().expect("utf-8"), proc_macro2::Span::call_site())
    };
    let (wide, many) = (lit(&wide), lit(&many));
    let missing = errors(&expand(
        quote!(ptx = #wide),
        quote!(
            fn wide();
        ),
    ));
    let extra = errors(&expand(
        quote!(ptx = #many),
        quote!(
            fn k0(n: u32);
        ),
    ));
    let unknown = errors(&expand(
        quote!(ptx = #many),
        quote!(
            fn nope();
        ),
    ));
    let _ = std::fs::remove_dir_all(&dir);
    for (what, errs) in [
        ("missing", &missing),
        ("extra", &extra),
        ("unknown", &unknown),
    ] {
        assert_eq!(errs.len(), 1, "{what}: {errs:?}");
        assert!(errs[0].len() < 1_500, "{what}: {} bytes", errs[0].len());
    }
    assert!(missing[0].contains("and 7992 more"), "{missing:?}");
    assert!(extra[0].contains("declares 1 parameter,"), "{extra:?}");
    assert!(unknown[0].contains("and 9984 more"), "{unknown:?}");
}

#[test]
fn parameters_over_the_drivers_byte_limit_are_refused() {
    let dir = std::env::temp_dir().join(format!("chevron-bytes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let head = ".version 8.0\n.target sm_90\n";
    // 8,191 `.u32` parameters: 32,764 bytes, the limit; one more is over it.
    let entry = |name: &str, n: usize| {
        let params: Vec<String> = (0..n).map(|i| format!(".param .u32 p{i}")).collect();
        format!(".entry {name}(\n{}\n) {{}}\n", params.join(",\n"))
    };
    let file = dir.join("bytes.ptx");
    let text = format!("{head}{}{}", entry("at_limit", 8_191), entry("over", 8_192));
    std::fs::write(&file, text).expect("write");
    let lit = syn::LitStr::new(
        file.to_str().expect("utf-8"),
        proc_macro2::Span::call_site(),
    );
    let over = errors(&expand(
        quote!(ptx = #lit),
        quote!(
            fn over();
        ),
    ));
    let at_limit = errors(&expand(
        quote!(ptx = #lit),
        quote!(
            fn at_limit();
        ),
    ));
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(over.len(), 1, "{over:?}");
    assert!(
        over[0].contains(
            "the parameters of `over` take 32768 bytes, more than the driver's limit of 32764 \
             bytes (CUDA 12.1 and newer on Volta and newer GPUs; 4096 before)"
        ),
        "{over:?}"
    );
    assert!(
        !at_limit.iter().any(|e| e.contains("driver's limit")),
        "{at_limit:?}"
    );
}

#[test]
fn launch_rules_const_holds_the_directives_and_messages() {
    let file = expand(
        src("ptx", "bounds.ptx"),
        quote!(
            fn bounded_scale(x: &CudaSlice<f32>, y: &mut CudaSlice<f32>, n: u32);
        ),
    );
    assert!(errors(&file).is_empty(), "{:?}", errors(&file));
    let m = kernel(&file);
    // `.maxntid` and the facts; no `reqntid`, `cluster` or cluster flags (those are
    // `KernelInfo::UNKNOWN`'s: none).
    assert_eq!(
        info_names(&m),
        [
            "known",
            "maxntid",
            "waits",
            "triggers",
            "grid_sync",
            "messages"
        ]
    );
    assert_eq!(
        info_field(&m, "maxntid").as_deref(),
        Some(":: chevron :: __private :: Some ([256u32 , 1u32 , 1u32])")
    );
    let messages = info_field(&m, "messages").expect("messages");
    assert!(messages.contains("`.maxntid 256, 1, 1`"), "{messages}");
    // The launch checks the rules at run time, before launching: the kernel is a
    // `Typed<bounded_scale>`, whose `launch` (the runtime's, written once) folds
    // `<bounded_scale as TypedKernel>::INFO` (this const) into them.
    let kernel_fn = func(&m, "kernel");
    assert_eq!(
        text(&kernel_fn.sig.output),
        "-> & 'static :: chevron :: __private :: Typed < bounded_scale >"
    );
    // The guard of the spellings the macro read (`f32`, `f32`, `u32`: a shadowed name is a
    // type error), then the kernel's `Typed`, from the runtime's table.
    let body = kernel_body(&m);
    assert_eq!(body.len(), 2, "{body:?}");
    assert!(
        body[1].starts_with(
            ":: chevron :: __private :: Typed :: < bounded_scale > :: __ptx (\"bounded_scale\" \
             , \"bounded_scale\" ,"
        ),
        "{}",
        body[1]
    );
    assert_eq!(
        body[0],
        "let _ : :: chevron :: __private :: PhantomData < (f32 , f32 , u32 ,) > = :: chevron :: \
         __private :: PhantomData :: < (:: chevron :: __private :: primitive :: f32 , :: \
         chevron :: __private :: primitive :: f32 , :: chevron :: __private :: primitive :: \
         u32 ,) > ;"
    );
}

#[test]
fn facts_over_the_call_graph_reach_the_info_and_the_docs() {
    let doc_of = |f: &ImplItemFn| {
        f.attrs
            .iter()
            .filter(|a| a.path().is_ident("doc"))
            .map(text)
            .collect::<Vec<_>>()
            .join("\n")
    };
    // Relocatable code calling an `.extern .func`: unknown facts, said in `kernel()`'s docs.
    let file = expand(
        src("ptx", "../rules/tests/fixtures/calls.ptx"),
        quote!(
            fn calls_extern(data: &mut CudaSlice<u32>, n: u32);
        ),
    );
    assert!(errors(&file).is_empty(), "{:?}", errors(&file));
    // Unknown facts are `KernelInfo::UNKNOWN`'s: not written.
    let m = kernel(&file);
    let names = info_names(&m);
    assert_eq!(names[0], "known", "{names:?}");
    for fact in ["waits", "triggers", "grid_sync"] {
        assert!(!names.iter().any(|n| n == fact), "{fact}: {names:?}");
    }
    let docs = doc_of(func(&kernel(&file), "kernel"));
    assert!(
        docs.contains(
            "Not checked: kernel `calls_extern` calls `_Z8ext_stepPjj`, an `.extern .func`"
        ),
        "{docs}"
    );
    // A grid barrier in a helper: a definite yes, and nothing left unseen.
    let file = expand(
        src("ptx", "grid_helpers_debug.ptx"),
        quote!(
            fn helper_rotate(
                a: &CudaSlice<i32>,
                b: &mut CudaSlice<i32>,
                c: &mut CudaSlice<i32>,
                n: u32,
            );
        ),
    );
    assert!(errors(&file).is_empty(), "{:?}", errors(&file));
    assert_eq!(
        info_field(&kernel(&file), "grid_sync").as_deref(),
        Some(":: chevron :: __private :: Fact :: Yes")
    );
    assert!(!doc_of(func(&kernel(&file), "kernel")).contains("Not checked"));
}

#[test]
fn spelled_numbers_and_buffers_are_checked_by_the_macro_which_reports_a_mismatch_itself() {
    let consts = |file: &File| -> Vec<String> {
        kernel(file).consts.iter().map(|c| text(&c.expr)).collect()
    };
    // The guard in `kernel()`'s body, which makes a shadowed name (`struct f32;`) a type
    // error: a statement before the kernel's `Typed`.
    let guard = |file: &File| -> String {
        let body = kernel_body(&kernel(file));
        assert_eq!(body.len(), 2, "{body:?}");
        body[0].clone()
    };
    // Every parameter fits: no assertion left but the guard.
    let file = expand(
        src("ptx", "saxpy.ptx"),
        quote!(
            fn saxpy(n: u32, a: std::primitive::f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);
        ),
    );
    assert!(errors(&file).is_empty(), "{:?}", errors(&file));
    assert_eq!(consts(&file), Vec::<String>::new());
    assert_eq!(
        guard(&file),
        "let _ : :: chevron :: __private :: PhantomData < (u32 , std :: primitive :: f32 , f32 , \
         f32 ,) > = :: chevron :: __private :: PhantomData :: < (:: chevron :: __private :: \
         primitive :: u32 , :: chevron :: __private :: primitive :: f32 , :: chevron :: \
         __private :: primitive :: f32 , :: chevron :: __private :: primitive :: f32 ,) > ;"
    );
    // A mismatch and a buffer read-only where the PTX stores are the macro's own errors, in
    // words (no const panic); an alias's assertion is emitted for rustc, with its message.
    let file = expand(
        src("ptx", "saxpy.ptx"),
        quote!(
            fn saxpy(n: u32, a: u32, x: &CudaSlice<Scale>, y: &CudaSlice<f32>);
        ),
    );
    let all = consts(&file);
    assert_eq!(all.len(), 3, "{all:?}");
    let own_error = |c: &str, text: &str| {
        c.contains("compile_error") && c.contains(text) && !c.contains("check_param")
    };
    assert!(
        own_error(
            &all[0],
            "`a: u32` is a 32-bit integer, but the kernel takes a 32-bit float"
        ),
        "{}",
        all[0]
    );
    assert!(
        all[1].contains("\"`x: &CudaSlice<Scale>` is \"") && all[1].contains("check_param"),
        "{}",
        all[1]
    );
    assert!(
        own_error(
            &all[2],
            "`y: &CudaSlice<f32>` is read-only (`&`), but the kernel writes through it"
        ),
        "{}",
        all[2]
    );
    // The guard holds every spelling the macro read, the mismatched ones too.
    assert!(
        guard(&file).starts_with(
            "let _ : :: chevron :: __private :: PhantomData < (u32 , u32 , f32 ,) > ="
        ),
        "{}",
        guard(&file)
    );
    // Against a C++ signature the classes count: `u32` for `int` goes to rustc, `i32` does not.
    let gemm = |m: TokenStream| {
        consts(&expand(
            src("ptx", "templates.ptx"),
            quote!(
                fn gemm(a: &CudaSlice<f32>, b: &CudaSlice<f32>, c: &mut CudaSlice<f32>, m: #m, n: i32, k: i32);
            ),
        ))
    };
    assert_eq!(gemm(quote!(i32)), Vec::<String>::new());
    let all = gemm(quote!(u32));
    assert_eq!(all.len(), 1, "{all:?}");
    assert!(all[0].contains("compile_error"), "{}", all[0]);
    assert!(all[0].contains("`m: u32` is an unsigned"), "{}", all[0]);
    // `usize`'s width is the target's, `half::f16` a library type: rustc decides those.
    let all = consts(&expand(
        src("ptx", "saxpy.ptx"),
        quote!(
            fn saxpy(n: usize, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);
        ),
    ));
    assert_eq!(all.len(), 1, "{all:?}");
    assert!(all[0].contains("\"`n: usize` is \""), "{}", all[0]);
}

/// No count limit below the driver's: 65 or 131 parameters are no error of their own (the PTX
/// entry's 4 parameters are another matter, and that is the only error), and the kernel's
/// `Args` become an `ArgChain`.
#[test]
fn any_number_of_parameters_is_declared_and_chained_past_64() {
    let params: Vec<TokenStream> = (0..131)
        .map(|i| {
            let name = quote::format_ident!("p{i}");
            quote!(#name: u32)
        })
        .collect();
    for n in [33, 40, 64, 65, 131] {
        let params = &params[..n];
        let out = expand(src("ptx", "saxpy.ptx"), quote!(fn saxpy(#(#params),*);));
        let errs = errors(&out);
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert!(errs[0].contains("4 parameters"), "{errs:?}");
        assert!(!errs[0].contains("at most"), "{errs:?}");
    }
}

/// What the compile-time nvcc cannot mirror (an NVRTC-only option) leaves the declaration to
/// the run-time check, and its warning says why, with or without nvcc on the machine.
#[test]
fn code_nvcc_cannot_mirror_is_checked_at_run_time_and_says_why() {
    let rtc = format!(
        "{}/../ui-tests/fixtures/nvcc_rtc.cu",
        env!("CARGO_MANIFEST_DIR")
    );
    let out = super::expand(
        quote!(cuda = #rtc, options = ["-default-device"]),
        quote!(
            fn rtc_bounded(out: &mut CudaSlice<f32>, n: u64);
        ),
        None,
    );
    let all = out.to_string();
    assert!(all.contains("cuda_kernel_checked_at_run_time"), "{all}");
    assert!(
        all.contains("NVRTC's option `-default-device` has no nvcc equivalent"),
        "{all}"
    );
    assert!(all.contains("would not compile what NVRTC will"), "{all}");
}
