use super::*;
#[test]
fn device_runtime_calls_are_the_cuda_externs() {
    let ptx = ".version 9.0\n.target sm_90\n.address_size 64\n\
        .extern .func  (.param .b32 func_retval0) cudaGraphKernelNodeSetParam\n(\n\
        .param .b64 p0\n);\n\
        .extern .func (.param .b32 r) vprintf(.param .b64 f, .param .b64 a);\n\
        .extern .func __cudaCDP2Launch(.param .b64 x);\n\
        .extern .func  (.param .b32 func_retval0) cudaGraphKernelNodeSetParam(.param .b64 p);\n\
        .extern .shared .align 4 .b8 smem[];\n\
        .visible .entry k() { ret; }\n";
    assert_eq!(
        device_runtime_calls(ptx),
        ["cudaGraphKernelNodeSetParam", "__cudaCDP2Launch"]
    );
    assert!(device_runtime_calls(".visible .entry k() { ret; }").is_empty());
    // Truncated declarations end the scan without panicking.
    assert!(device_runtime_calls(".extern .func (.param .b32 r").is_empty());
    assert!(device_runtime_calls(".extern").is_empty());
}
use PtxType::*;

fn parse(src: &str) -> Vec<Entry> {
    parse_entries(src).expect("PTX parses")
}

fn types(e: &Entry) -> Vec<PtxType> {
    e.params.iter().map(|p| p.ty).collect()
}

#[test]
fn saxpy() {
    let es = parse(include_str!("../../../kernels/saxpy.ptx"));
    assert_eq!(es.len(), 1);
    assert_eq!(es[0].name, "saxpy");
    assert_eq!(types(&es[0]), [U32, F32, U64, U64]);
    assert_eq!(es[0].params[2].name, "saxpy_param_2");
    assert_eq!(es[0].params[0].line, es[0].line + 1);
    assert_eq!(es[0].params[0].text, ".param .u32 saxpy_param_0,");
    assert!(matches!(find_entry(&es, "saxpy"), Lookup::Exact(e) if e.name == "saxpy"));
    assert!(matches!(find_entry(&es, "sax"), Lookup::Missing));
}

#[test]
fn struct_param() {
    let es = parse(include_str!("../../../kernels/structs.ptx"));
    let p = &es[0].params[0];
    assert_eq!((p.ty, p.align, p.array_len), (B8, Some(8), Some(16)));
    assert_eq!(p.size_bytes(), 16);
    assert_eq!(types(&es[0]), [B8, U64, U64, U32]);
}

#[test]
fn all_types() {
    let es = parse(include_str!("../../../kernels/params.ptx"));
    let bits: Vec<u32> = es[0].params.iter().map(|p| p.ty.bits()).collect();
    assert_eq!(bits, [8, 8, 16, 16, 32, 32, 64, 64, 32, 64, 8, 64]);
    assert!(es[0].params[8].ty.is_float() && es[0].params[9].ty.is_float());
    assert!(!es[0].params[4].ty.is_float());
}

#[test]
fn mangled_templates() {
    let es = parse(include_str!("../../../kernels/templates.ptx"));
    assert_eq!(es.len(), 4);
    match find_entry(&es, "gemm") {
        Lookup::Mangled(e) => {
            assert_eq!(e.name, "_Z4gemmILi128EEvPKfS1_Pfiii");
            assert_eq!(types(e), [U64, U64, U64, U32, U32, U32]);
        }
        other => panic!("gemm: {other:?}"),
    }
    assert!(matches!(find_entry(&es, "scale"), Lookup::Ambiguous(v) if v.len() == 2));
    assert!(
        matches!(find_entry(&es, "offset_add"), Lookup::Mangled(e) if e.name == "_Z10offset_addPffj")
    );
    assert!(matches!(
        find_entry(&es, "_Z10offset_addPffj"),
        Lookup::Exact(_)
    ));
    assert!(matches!(find_entry(&es, "gem"), Lookup::Missing));
    // Demangled names: with or without template arguments and parameter types.
    for name in [
        "gemm<128>",
        "gemm <128>",
        "gemm<128>(const float*, const float*, float*, int, int, int)",
    ] {
        assert!(
            matches!(find_entry(&es, name), Lookup::Mangled(e) if e.name == "_Z4gemmILi128EEvPKfS1_Pfiii"),
            "{name}"
        );
    }
    assert!(matches!(find_entry(&es, "gemm<64>"), Lookup::Missing));
    assert!(
        matches!(find_entry(&es, "scale<double>"), Lookup::Mangled(e) if e.name == "_Z5scaleIdEvPT_S0_j")
    );
    assert!(matches!(
        find_entry(&es, "scale(float*, float, unsigned)"),
        Lookup::Mangled(e) if e.name == "_Z5scaleIfEvPT_S0_j"
    ));
    // Overloads told apart by the declaration, or not.
    let double = |e: &Entry| {
        e.signature
            .as_ref()
            .is_some_and(|s| s.params[0] == "double*")
    };
    assert!(matches!(
        find_entry_by(&es, "scale", double),
        Lookup::Mangled(e) if e.name == "_Z5scaleIdEvPT_S0_j"
    ));
    assert!(matches!(find_entry_by(&es, "scale", |_| false), Lookup::NoneFits(v) if v.len() == 2));
    let Err(Unresolved::Ambiguous(m)) = resolve_entry(&es, "scale", "`t.ptx`") else {
        panic!("scale is ambiguous")
    };
    assert_eq!(
        m,
        "`scale` matches 2 C++ kernels in `t.ptx`: `scale<float>(float*, float, unsigned int)`, \
         `scale<double>(double*, double, unsigned int)`; name one with `name = \"scale<float>\"`"
    );
    let Err(Unresolved::Ambiguous(m)) = resolve_entry_by(&es, "scale", "`t.ptx`", |_| false) else {
        panic!("no scale fits")
    };
    assert!(
        m.contains("none of them with the declared parameters"),
        "{m}"
    );
    let Err(Unresolved::Missing(m)) = resolve_entry(&es, "gemm<64>", "`t.ptx`") else {
        panic!("gemm<64> is missing")
    };
    // The other instances of the template named, not every kernel of the file.
    assert_eq!(
        m,
        "no kernel `gemm<64>` in `t.ptx`; the kernels named `gemm` are: \
         `gemm<128>(float const*, float const*, float*, int, int, int)`"
    );
    let Err(Unresolved::Missing(m)) = resolve_entry(&es, "gemmm", "`t.ptx`") else {
        panic!("gemmm is missing")
    };
    assert!(
        m.contains("`offset_add(float*, float, unsigned int)`"),
        "{m}"
    );
}

#[test]
fn other_kernels() {
    let es = parse(include_str!("../../../kernels/pipeline.ptx"));
    let names: Vec<&str> = es.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["produce", "consume"]);
    assert_eq!(types(&es[0]), [U64, F32, U32, U32]);
    assert_eq!(types(&es[1]), [U64, U64, U32]);
    let es = parse(include_str!("../../../kernels/cluster.ptx"));
    assert_eq!(
        (es[0].name.as_str(), types(&es[0])),
        ("cluster_info", vec![U64])
    );
    let es = parse(include_str!("../../../kernels/cooperative.ptx"));
    assert_eq!(types(&es[0]), [U64, U64, U64, U32]);
}

#[test]
fn directives_and_body_uses_of_the_fixtures() {
    let src = include_str!("../../../kernels/bounds.ptx");
    let es = parse(src);
    let line_of = |needle: &str| {
        src.lines()
            .position(|l| l.starts_with(needle))
            .map(|p| p + 1)
    };
    let b = &es[0].directives;
    assert_eq!(es[0].name, "bounded_scale");
    assert_eq!(
        b.maxntid,
        Some(DimDirective {
            dims: [256, 1, 1],
            line: line_of(".maxntid").expect("maxntid line")
        })
    );
    assert_eq!((b.reqntid, b.reqnctapercluster), (None, None));
    let c = &es[1].directives;
    assert_eq!(es[1].name, "clustered_rank");
    assert_eq!(c.reqnctapercluster.map(|d| d.dims), Some([2, 1, 1]));
    assert_eq!(c.explicitcluster, line_of(".explicitcluster"));
    assert_eq!(es[1].params.len(), 1);
    let es = parse(include_str!("../../../kernels/pdl_checks.ptx"));
    let uses: Vec<(Fact, Fact)> = es
        .iter()
        .map(|e| {
            (
                e.uses.griddep_wait.fact(),
                e.uses.griddep_launch_dependents.fact(),
            )
        })
        .collect();
    use Fact::{No, Yes};
    assert_eq!(uses, [(No, Yes), (Yes, No), (No, No)]);
    let es = parse(include_str!("../../../kernels/cooperative.ptx"));
    assert_eq!(es[0].uses.grid_sync.fact(), Yes);
    let saxpy = parse(include_str!("../../../kernels/saxpy.ptx"));
    assert_eq!(saxpy[0].uses, BodyUses::default());
}

#[test]
fn directives_hand_written() {
    let es = parse(
        ".entry a() .reqntid 32 .maxclusterrank 8 .minnctapersm 2 .maxnreg 64 { \n\
           griddepcontrol.wait; }\n\
         .func f() { griddepcontrol.launch_dependents; mov.u32 %r1, %envreg2; }\n\
         .entry b(.param .u32 x)\n.maxntid 16, 16\n.reqnctapercluster 4, 2\n{ mov.u32 %r1, %envreg2;\n\
           atom.add.release.gpu.u32 %r2, [%rd1], 1; }\n\
         .extern .entry c() .maxntid 1;\n\
         .entry d() { ret; }",
    );
    let a = &es[0];
    assert_eq!(a.directives.reqntid.map(|d| d.dims), Some([32, 1, 1]));
    assert_eq!(a.directives.maxclusterrank.map(|d| d.value), Some(8));
    assert_eq!(
        a.directives.minnctapersm.map(|d| (d.value, d.line)),
        Some((2, 1))
    );
    assert_eq!(
        a.uses.griddep_wait,
        Seen::Yes(Site {
            line: 2,
            func: None
        })
    );
    // The `.func`'s instructions belong to no entry that does not call it.
    assert_eq!(
        (&a.uses.griddep_launch_dependents, &a.uses.grid_sync),
        (&Seen::No, &Seen::No)
    );
    let b = &es[1];
    assert_eq!(
        b.directives.maxntid.map(|d| (d.dims, d.line)),
        Some(([16, 16, 1], 5))
    );
    assert_eq!(
        b.directives.reqnctapercluster.map(|d| d.dims),
        Some([4, 2, 1])
    );
    // The barrier's arrival is the site of a grid sync.
    assert_eq!(b.uses.grid_sync.site().map(|s| s.line), Some(8));
    assert_eq!(es[2].name, "d");
    assert_eq!(es[2].uses, BodyUses::default());
    let err = |src: &str| parse_entries(src).expect_err("bad directive");
    assert_eq!(
        err(".entry k() .maxntid { }"),
        "line 1: `.maxntid` takes 1 to 3 numbers, found 0"
    );
    assert!(err(".entry k() .maxntid 99999999999 { }").contains("expected a number"));
    assert_eq!(
        err(".entry k() .maxclusterrank 1, 2 { }"),
        "line 1: `.maxclusterrank` takes one number, found 2"
    );
}

#[test]
fn hand_written_edge_cases() {
    let src = "// .entry commented_out(\n\
        .extern .func (.param .b32 r) helper(.param .b32 x);\n\
        .extern .entry declared_only(.param .u32 a);\n\
        .func f(.param .u64 p) { ret; }\n\
        /* .entry also_commented() {\n} */\n\
        .weak .entry none() { ret; }\n\
        .visible .entry k(.param .u64 .ptr .global .align 4 k_param_0, /* x */\n\
          .param .s8 k_param_1 // trailing\n\
        ) .maxntid 256, 1, 1 { ret; }\n";
    let es = parse(src);
    let names: Vec<&str> = es.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["none", "k"]);
    assert!(es[0].params.is_empty());
    assert_eq!(es[0].line, 7);
    let p = &es[1].params[0];
    assert_eq!(
        (p.ty, p.align, p.line, p.name.as_str()),
        (U64, Some(4), 8, "k_param_0")
    );
    assert_eq!((es[1].params[1].ty, es[1].params[1].line), (S8, 9));
    assert_eq!(S8.name(), ".s8");
    assert_eq!(PtxType::from_name(".pred"), Some(Pred));
}

#[test]
fn errors_name_the_line() {
    let err = |src: &str| parse_entries(src).expect_err("should fail");
    assert!(err(".entry k(\n.param .q32 a)\n{}").starts_with("line 2: unknown type `.q32`"));
    assert!(err("\n.entry k(.param .u32 a\n").starts_with("line 2: unterminated"));
    assert!(err("/* open\n").starts_with("line 1: unterminated `/*`"));
    assert!(err(".entry (").starts_with("line 1: expected a name"));
    assert!(err(".entry k(.param a)").contains("missing type"));
    assert!(err(".entry k(.reg .u32 a)").contains("expected `.param`"));
    assert!(err(".entry k() {}\n.entry k() {}").starts_with("line 2: duplicate"));
    assert!(err("}").contains("unbalanced"));
}

fn sig(name: &'static str, ty: &'static str, expected: Expected) -> ParamSig {
    ParamSig::new(name, ty, rule::ParamForm::of(expected), false)
}

#[test]
fn signature_matches_saxpy() {
    let es = parse(include_str!("../../../kernels/saxpy.ptx"));
    let ok = [
        sig("n", "u32", Expected::Int(32)),
        sig("a", "f32", Expected::Float(32)),
        sig("x", "&CudaSlice<f32>", Expected::Pointer),
        sig("y", "&mut CudaSlice<f32>", Expected::Pointer),
    ];
    assert_eq!(check_signature(&ok, &es[0]), Ok(()));
    // Signedness is not checked: `i32` fits `.u32`.
    let signed = [sig("n", "i32", Expected::Int(32)), ok[1], ok[2], ok[3]];
    assert_eq!(check_signature(&signed, &es[0]), Ok(()));
}

#[test]
fn cpp_types_and_writes_are_checked_as_at_compile_time() {
    use crate::cpp::{Class, Num};
    use rule::ParamForm;
    let text = include_str!("../../../kernels/templates.ptx");
    let es = parse(text);
    let e = es
        .iter()
        .find(|e| e.name == "_Z10offset_addPffj")
        .expect("offset_add");
    let f32_class = Class::Num(Num::Float(32));
    let form = |f: ParamForm, class| f.with_class(class);
    let ok = [
        ParamSig::new(
            "y",
            "&mut CudaSlice<f32>",
            form(ParamForm::buffer(4, true), f32_class),
            false,
        ),
        ParamSig::new("v", "f32", form(ParamForm::float(32), f32_class), false),
        ParamSig::new(
            "n",
            "u32",
            form(
                ParamForm::int(32),
                Class::Num(Num::Int {
                    bits: 32,
                    signed: false,
                }),
            ),
            false,
        ),
    ];
    assert_eq!(check_cpp(&ok, e, "t.ptx", text), Ok(()));
    let bad = [
        ParamSig::new(
            "y",
            "&CudaSlice<f32>",
            form(ParamForm::buffer(4, false), f32_class),
            false,
        ),
        ok[1],
        ParamSig::new(
            "n",
            "i32",
            form(
                ParamForm::int(32),
                Class::Num(Num::Int {
                    bits: 32,
                    signed: true,
                }),
            ),
            false,
        ),
    ];
    let err = check_cpp(&bad, e, "t.ptx", text).expect_err("two mismatches");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert!(lines[0].starts_with("`y: &CudaSlice<f32>` is read-only (`&`), but the kernel takes `float*` here (parameter 1 of `offset_add(float*, float, unsigned int)`"), "{err}");
    assert!(
        lines[1].starts_with(
            "`n: i32` is a signed 32-bit integer, but the kernel takes `unsigned int` here"
        ),
        "{err}"
    );
    // `#[read_only]` is the opt-out.
    let opted = [
        ParamSig {
            read_only: true,
            ..bad[0]
        },
        ok[1],
        ok[2],
    ];
    assert_eq!(check_cpp(&opted, e, "t.ptx", text), Ok(()));
    // An `extern "C"` kernel: the PTX's stores.
    let text = include_str!("../../../kernels/saxpy.ptx");
    let es = parse(text);
    let saxpy = [
        sig("n", "u32", Expected::Int(32)),
        sig("a", "f32", Expected::Float(32)),
        ParamSig::new("x", "&CudaSlice<f32>", ParamForm::buffer(4, false), false),
        ParamSig::new("y", "&CudaSlice<f32>", ParamForm::buffer(4, false), false),
    ];
    let err = check_cpp(&saxpy, &es[0], "s.ptx", text).expect_err("y is written");
    assert!(
        err.starts_with(
            "`y: &CudaSlice<f32>` is read-only (`&`), but the kernel writes through it (s.ptx:"
        ),
        "{err}"
    );
    assert!(err.contains("`st.global.f32 [%rd"), "{err}");
    assert!(err.contains("declare it as `&mut CudaSlice<f32>`"), "{err}");
}

#[test]
fn signature_reports_every_mismatch_with_its_line() {
    let es = parse(include_str!("../../../kernels/saxpy.ptx"));
    let bad = [
        sig("n", "u64", Expected::Int(64)),
        sig("a", "u32", Expected::Int(32)),
        sig("x", "&CudaSlice<f32>", Expected::Pointer),
        sig("y", "f64", Expected::Float(64)),
    ];
    let err = check_signature(&bad, &es[0]).expect_err("three mismatches");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 3, "{err}");
    let l0 = es[0].params[0].line;
    assert_eq!(
        lines[0],
        format!(
            "`n: u64` is a 64-bit integer, but the kernel takes a 32-bit integer here \
             (line {l0}: `.param .u32 saxpy_param_0,`); declare it as `u32` or `i32`"
        )
    );
    assert!(
        lines[1].starts_with("`a: u32` is a 32-bit integer, but the kernel takes a 32-bit float")
    );
    assert!(lines[1].ends_with("declare it as `f32`"));
    assert!(
        lines[2].starts_with("`y: f64` is a 64-bit float, but the kernel takes a 64-bit integer")
    );
    let short = &bad[..3];
    let err = check_signature(short, &es[0]).expect_err("count");
    assert_eq!(
        err,
        format!(
            "the PTX entry `saxpy` (line {}) has 4 parameters, the declaration 3",
            es[0].line
        )
    );
}

#[test]
fn check_param_classes() {
    let es = parse(include_str!("../../../kernels/params.ptx"));
    let p = &es[0].params;
    // u8 i8 u16 i16 u32 i32 u64 i64 f32 f64 bool *f64
    let want = [
        Expected::Int(8),
        Expected::Int(8),
        Expected::Int(16),
        Expected::Int(16),
        Expected::Int(32),
        Expected::Int(32),
        Expected::Int(64),
        Expected::Int(64),
        Expected::Float(32),
        Expected::Float(64),
        Expected::Bool,
        Expected::Pointer,
    ];
    for (e, p) in want.iter().zip(p) {
        assert_eq!(check_param(*e, p), Ok(None), "{e:?} vs {}", p.text);
    }
    assert!(check_param(Expected::Float(32), &p[4]).is_err()); // f32 vs .u32
    assert!(check_param(Expected::Int(32), &p[8]).is_err()); // u32 vs .f32
    assert!(check_param(Expected::Int(16), &p[0]).is_err()); // width
    assert!(check_param(Expected::Bool, &p[2]).is_err()); // bool vs .u16
    assert!(check_param(Expected::Pointer, &p[4]).is_err()); // pointer vs .u32
    assert!(check_param(Expected::Pointer, &p[9]).is_err()); // pointer vs .f64
                                                             // A by-value type of unknown size takes the parameter's size; of known size, must match.
    assert_eq!(check_param(Expected::Value(None), &p[4]), Ok(Some(4)));
    assert_eq!(check_param(Expected::Value(Some(4)), &p[4]), Ok(None));
    assert!(check_param(Expected::Value(Some(8)), &p[4]).is_err());
}

#[test]
fn check_struct_param() {
    let es = parse(include_str!("../../../kernels/structs.ptx"));
    let p = &es[0].params[0];
    assert_eq!(check_param(Expected::Value(None), p), Ok(Some(16)));
    assert_eq!(check_param(Expected::Value(Some(16)), p), Ok(None));
    assert_eq!(
        check_param(Expected::Value(Some(12)), p),
        Err("a 12-byte value, but the kernel takes a 16-byte struct here".into())
    );
    assert!(check_param(Expected::Int(64), p).is_err());
    assert!(check_param(Expected::Pointer, p).is_err());
    assert!(p.suggest().contains("16 bytes"));
}

#[test]
fn cr_only_line_endings_number_lines() {
    let src = ".version 8.0\r.target sm_90\r.entry k(\r.param .u32 a,\r.param .q32 b)\r{}\r";
    let err = parse_entries(src).expect_err("bad type");
    assert_eq!(err, "line 5: unknown type `.q32` in `.param .q32 b)`");
    let es = parse(".entry k(\r\n.param .u32 a\r\n)\r\n{}\r\n.entry j() {}");
    assert_eq!((es[0].params[0].line, es[1].line), (2, 5));
    assert_eq!(es[0].params[0].text, ".param .u32 a");
}

#[test]
fn unterminated_string_is_an_error_not_a_lost_file() {
    let src = ".file 1 \"a.cu\n.entry k() {}\n.entry j() {}\n";
    assert_eq!(
        parse_entries(src).expect_err("string"),
        "line 1: unterminated string"
    );
    assert!(parse_entries(".pragma \"nounroll").is_err());
    let ok = parse(".file 1 \"a // b.cu\"\n.entry k() {}");
    assert_eq!(ok[0].name, "k");
}

#[test]
fn extern_without_semicolon_does_not_hide_later_entries() {
    let es = parse(
        ".extern .entry declared(.param .u32 a)\n.visible .entry k(.param .u32 a) {}\n\
         .extern .func (.param .b32 r) f(.param .b32 x)\n.entry j() {}",
    );
    let names: Vec<&str> = es.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["k", "j"]);
}

#[test]
fn entry_names_must_be_identifiers() {
    for bad in [";", ")", "42", "%r1", "$", "-k"] {
        let err = parse_entries(&format!(".entry {bad}() {{}}")).expect_err(bad);
        assert!(err.contains("cannot name an `.entry`"), "{bad}: {err}");
    }
    for good in ["k", "_Z1kv", "$L1", "a$b_9"] {
        assert_eq!(parse(&format!(".entry {good}() {{}}"))[0].name, good);
    }
}

#[test]
fn parameter_list_needs_its_parenthesis() {
    let err = parse_entries(".entry k .param .u32 a) {}").expect_err("no (");
    assert_eq!(
        err,
        "line 1: expected `(` after `.entry k`, before its parameters"
    );
    assert!(parse_entries(".entry k").is_err());
    // Without parameters the list may be left out (PTX allows it).
    assert!(parse(".entry k { ret; }")[0].params.is_empty());
    assert!(parse(".entry k .maxntid 32, 1, 1 { ret; }")[0]
        .params
        .is_empty());
}

#[test]
fn lists_and_quotes_are_capped() {
    let names: Vec<String> = (0..10_000).map(|i| format!("k{i}")).collect();
    let list = name_list(names.iter().map(String::as_str));
    assert!(list.starts_with("`k0`, `k1`, "), "{list}");
    assert!(list.ends_with("`k15` and 9984 more"), "{list}");
    assert_eq!(name_list(["a", "b"].into_iter()), "`a`, `b`");
    assert_eq!(name_list(std::iter::empty()), "none");
    // In a long list, the names most like the one asked for come first.
    let es: Vec<Entry> = (0..500)
        .map(|i| Entry {
            name: format!("k{i}"),
            line: i + 1,
            ..Entry::default()
        })
        .collect();
    let Err(Unresolved::Missing(msg)) = resolve_entry(&es, "k49x", "`f.ptx`") else {
        panic!("k49x is missing")
    };
    assert!(
        msg.contains("its kernels are: `k49`, `k4`, `k490`, "),
        "{msg}"
    );
    let Err(Unresolved::Missing(msg)) = resolve_entry(&es, "k4900", "`f.ptx`") else {
        panic!("k4900 is missing")
    };
    assert!(
        msg.contains("its kernels are: `k490`, `k49`, `k4`, "),
        "{msg}"
    );
    let long = format!(".entry k(.param .u32 a {})", "x".repeat(100_000));
    let err = parse_entries(&long).expect_err("long");
    assert!(err.len() < 600, "{} bytes", err.len());
}

#[test]
fn duplicate_entries_are_found_in_linear_time() {
    // 100,000 entries: the former pairwise check took minutes.
    let mut src = String::from(".version 8.0\n.target sm_90\n");
    for i in 0..100_000 {
        src.push_str(&format!(".visible .entry k{i}(.param .u32 a) {{ ret; }}\n"));
    }
    let start = std::time::Instant::now();
    let es = parse(&src);
    assert_eq!(es.len(), 100_000);
    src.push_str(".entry k99999() {}\n");
    let err = parse_entries(&src).expect_err("duplicate");
    let took = start.elapsed();
    assert_eq!(err, "line 100003: duplicate `.entry k99999`");
    assert!(took.as_secs_f64() < 5.0, "{took:?}");
    println!("two reads of 100,000 entries: {took:?}");
}

#[test]
fn numbers_as_ptxas_reads_them() {
    // Each form ptxas 13.0 accepts in `.maxntid` (and `08`, `0x`, `-1`, `1_0`, `256u`, which
    // it rejects).
    for (text, value) in [
        ("256", 256),
        ("0x100", 256),
        ("0X100", 256),
        ("0400", 256),
        ("0b100000000", 256),
        ("0B11", 3),
        ("256U", 256),
        ("0x100U", 256),
        ("0100U", 64),
        ("0", 0),
        ("4294967295", u32::MAX),
    ] {
        assert_eq!(parse_u32(text), Some(value), "{text}");
    }
    for bad in [
        "08",
        "0x",
        "0b",
        "0b2",
        "-1",
        "+64",
        "1_0",
        "256u",
        "U",
        "4294967296",
        "0x100000000",
    ] {
        assert_eq!(parse_u32(bad), None, "{bad}");
    }
    let es = parse(
        ".entry a() .maxntid 0x100, 1, 1 { ret; }\n\
         .entry b() .reqntid 0400, 01, 1U .reqnctapercluster 0b10 { ret; }\n\
         .entry c(.param .align 0x8 .b8 s[0x10]) { ret; }",
    );
    assert_eq!(es[0].directives.maxntid.map(|d| d.dims), Some([256, 1, 1]));
    assert_eq!(es[1].directives.reqntid.map(|d| d.dims), Some([256, 1, 1]));
    assert_eq!(
        es[1].directives.reqnctapercluster.map(|d| d.dims),
        Some([2, 1, 1])
    );
    assert_eq!(
        (es[2].params[0].align, es[2].params[0].array_len),
        (Some(8), Some(16))
    );
    let err = parse_entries(".entry k() .maxntid 08 { ret; }").expect_err("octal 8");
    assert_eq!(
        err,
        "line 1: `.maxntid 08`: expected a number up to 4294967295"
    );
}

#[test]
fn a_byte_order_mark_is_named() {
    let src = format!("\u{FEFF}{}", include_str!("../../../kernels/saxpy.ptx"));
    let err = parse_entries(&src).expect_err("BOM");
    assert!(
        err.starts_with("line 1: the file begins with a UTF-8 byte order mark"),
        "{err}"
    );
    assert!(err.ends_with("save the file without it"), "{err}");
}

/// Write access as the PTX decides it (rules/tests/fixtures/stores.cu): a tensor-core store
/// and a `const_cast` refuse `&`, a `T*` never stored through takes `&` without
/// `#[read_only]`, and a pointer the reader cannot follow refuses `&` with the reason unless
/// the parameter is `#[read_only]`.
#[test]
fn write_access_follows_the_ptx() {
    use crate::cpp::{Class, Num};
    use rule::ParamForm;
    let text = include_str!("../../tests/fixtures/stores.ptx");
    let es = parse(text);
    let entry = |name: &str| es.iter().find(|e| e.name == name).expect(name);
    let f32_class = Class::Num(Num::Float(32));
    let f16_class = Class::Num(Num::F16);
    let buf = |name, ty, class, writes, read_only| {
        ParamSig::new(
            name,
            ty,
            ParamForm::buffer(if class == f16_class { 2 } else { 4 }, writes).with_class(class),
            read_only,
        )
    };
    let read = |name| buf(name, "&CudaSlice<f32>", f32_class, false, false);
    let write = |name| buf(name, "&mut CudaSlice<f32>", f32_class, true, false);
    let vouched = |name| buf(name, "&CudaSlice<f32>", f32_class, false, true);

    // wmma_store(const half* a, const half* b, float* c): `c` only by `wmma.store`.
    let a = buf("a", "&CudaSlice<f16>", f16_class, false, false);
    let b = buf("b", "&CudaSlice<f16>", f16_class, false, false);
    let e = entry("wmma_store");
    assert_eq!(check_cpp(&[a, b, write("c")], e, "s.ptx", text), Ok(()));
    let err = check_cpp(&[a, b, read("c")], e, "s.ptx", text).expect_err("c is stored to");
    assert!(
        err.starts_with(
            "`c: &CudaSlice<f32>` is read-only (`&`), but the kernel writes through it (s.ptx:"
        ),
        "{err}"
    );
    assert!(
        err.contains("`wmma.store.d.sync.aligned.row.m16n16k16"),
        "{err}"
    );

    // cpp_const_cast(const float* x, float* y, float* sum): `x` written after a `const_cast`,
    // `y` only read though not `const`.
    let e = entry("_Z14cpp_const_castPKfPfS1_");
    assert_eq!(
        check_cpp(&[write("x"), read("y"), write("sum")], e, "s.ptx", text),
        Ok(())
    );
    let err = check_cpp(&[read("x"), read("y"), write("sum")], e, "s.ptx", text)
        .expect_err("x is written");
    assert!(
        err.starts_with(
            "`x: &CudaSlice<f32>` is read-only (`&`), but the kernel writes through it (s.ptx:"
        ),
        "{err}"
    );
    assert!(
        err.contains("though it takes `float const*` (parameter 1 of `cpp_const_cast(float const*, float*, float*)`)"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");

    // Unknown: refused, with the reason, unless vouched for.
    let e = entry("extern_only");
    let err = check_cpp(&[read("q")], e, "s.ptx", text).expect_err("q is unknown");
    assert!(
        err.starts_with("`q: &CudaSlice<f32>` is read-only (`&`), but its PTX cannot show that the kernel only reads it: the kernel passes it to `elsewhere(float*)`, an `.extern .func` defined in another module (s.ptx:"),
        "{err}"
    );
    assert!(err.ends_with("declare it as `&mut CudaSlice<f32>`, or mark the parameter `#[read_only]` if the kernel only reads it"), "{err}");
    assert_eq!(check_cpp(&[vouched("q")], e, "s.ptx", text), Ok(()));
    let e = entry("indirect");
    let k = ParamSig::new("k", "i32", ParamForm::int(32), false);
    let err = check_cpp(&[read("p"), k], e, "s.ptx", text).expect_err("p is unknown");
    assert!(
        err.contains("the kernel passes it to a function called through a pointer (s.ptx:"),
        "{err}"
    );
    assert_eq!(check_cpp(&[vouched("p"), k], e, "s.ptx", text), Ok(()));

    // A C++ `const float*` passed to code the file does not hold: the `const` decides.
    let held = ".version 9.0\n.target sm_90\n.address_size 64\n\
        .extern .func _Z4seenPKf(.param .b64 p);\n\
        .visible .entry _Z1kPKf(.param .u64 _Z1kPKf_param_0)\n{\n\
        ld.param.u64 %rd1, [_Z1kPKf_param_0];\n\
        { .param .b64 param0; st.param.b64 [param0+0], %rd1; call.uni _Z4seenPKf, (param0); }\n\
        ret;\n}\n";
    let k_es = parse(held);
    assert_eq!(check_cpp(&[read("x")], &k_es[0], "c.ptx", held), Ok(()));
    let held = held.replace("PKf", "Pf");
    let k_es = parse(&held);
    let err = check_cpp(&[read("x")], &k_es[0], "c.ptx", &held).expect_err("not const");
    assert!(
        err.contains("not `float const*`, and its PTX cannot show that it only reads it: the kernel passes it to `seen(float*)`, an `.extern .func` defined in another module (c.ptx:"),
        "{err}"
    );

    // Through a local array and through shared memory: written.
    let e = entry("local_array");
    let n = buf("n", "&CudaSlice<i32>", Class::Unknown, false, false);
    let err = check_cpp(&[write("a"), read("b"), write("c"), n], e, "s.ptx", text)
        .expect_err("b is written");
    assert!(
        err.starts_with(
            "`b: &CudaSlice<f32>` is read-only (`&`), but the kernel writes through it"
        ),
        "{err}"
    );
    let e = entry("shared_handout");
    assert!(check_cpp(&[read("out"), read("in")], e, "s.ptx", text).is_err());
    assert_eq!(
        check_cpp(&[write("out"), read("in")], e, "s.ptx", text),
        Ok(())
    );
}

#[test]
fn an_entry_prototype_is_not_a_second_entry() {
    // nvcc 13.0 declares a kernel before a variable that holds its address, then defines it.
    let src = ".version 9.0\n.target sm_90\n.address_size 64\n\
               .visible .entry _Z2tuILj128EEvPf\n(\n\t.param .u64 _Z2tuILj128EEvPf_param_0\n)\n;\n\
               .global .align 8 .u64 holder = _Z2tuILj128EEvPf;\n\
               .visible .entry _Z2tuILj128EEvPf(\n\t.param .u64 _Z2tuILj128EEvPf_param_0\n)\n\
               {\n\tld.param.u64 %rd1, [_Z2tuILj128EEvPf_param_0];\n\tbar.sync 0;\n\tret;\n}\n";
    let es = parse(src);
    assert_eq!(es.len(), 1);
    assert_eq!(es[0].line, 10, "the definition's line");
    assert_eq!(es[0].params.len(), 1);
    // Two definitions are still a duplicate.
    let twice = format!("{src}.visible .entry _Z2tuILj128EEvPf(.param .u64 p) {{ ret; }}\n");
    assert!(parse_entries(&twice)
        .expect_err("duplicate")
        .contains("duplicate"));
}

#[test]
fn match_entries_takes_every_spelling_of_an_instance() {
    let ptx = ".version 8.0\n.target sm_90\n.address_size 64\n\
               .visible .entry _Z2tuILj128EEvPj(.param .u64 p) { ret; }\n";
    let entries = parse_entries(ptx).expect("PTX");
    for spelling in ["tu<128>", "tu<128u>", "tu<(unsigned int)128>", "tu"] {
        assert_eq!(
            crate::ptx::match_entries(&entries, spelling)
                .expect(spelling)
                .len(),
            1,
            "{spelling}"
        );
    }
    assert!(crate::ptx::match_entries(&entries, "tu<256>")
        .expect("a name")
        .is_empty());
}
