use super::*;

fn sig(symbol: &str) -> Signature {
    demangle(symbol).expect("demangles")
}

#[test]
fn demangles_nvcc_symbols() {
    let s = sig("_Z14softmax_kernelILi128EEvPfPKfi");
    assert_eq!(s.name, "softmax_kernel<128>");
    assert_eq!(s.base(), "softmax_kernel");
    assert_eq!(s.params, ["float*", "float const*", "int"]);
    assert_eq!(s.text(), "softmax_kernel<128>(float*, float const*, int)");
    let s = sig("_Z2vkI6float4Li2EEvPT_PKS1_m");
    assert_eq!(
        s.text(),
        "vk<float4, 2>(float4*, float4 const*, unsigned long)"
    );
    let s = sig("_ZN2ns4innsEPKNS_6ParamsEPj");
    assert_eq!(s.text(), "ns::inns(ns::Params const*, unsigned int*)");
    assert_eq!(sig("_Z5emptyv").params, Vec::<String>::new());
    assert_eq!(demangle("saxpy"), None);
    assert_eq!(demangle("_Znot a symbol"), None);
    assert_eq!(display_name("saxpy"), "saxpy");
    assert_eq!(display_name("_Z4overPfi"), "over(float*, int)");
}

#[test]
fn names_match_with_or_without_templates_and_parameters() {
    let s = sig("_Z14softmax_kernelILi128EEvPfPKfi");
    for ok in [
        "softmax_kernel<128>",
        "softmax_kernel < 128 >",
        "softmax_kernel",
        "softmax_kernel<128>(float*, float const*, int)",
        "softmax_kernel<128>(float *, const float *, int)",
        "void softmax_kernel<128>(float*,float const*,int)",
        "softmax_kernel(float*, const float*, int)",
    ] {
        assert!(s.matches(ok), "{ok}");
    }
    for no in [
        "softmax_kernel<256>",
        "softmax",
        "softmax_kernel<128>(float*, float*, int)",
        "softmax_kernel<128>(float*, float const*)",
        "softmax_kernel<128>(float*, float const*, unsigned)",
        "ns::softmax_kernel",
    ] {
        assert!(!s.matches(no), "{no}");
    }
    let s = sig("_ZN2ns4innsEPKNS_6ParamsEPj");
    assert!(s.matches("inns"));
    assert!(s.matches("ns::inns"));
    assert!(s.matches("ns::inns(const ns::Params*, unsigned*)"));
    assert!(!s.matches("other::inns"));
    let s = sig("_Z5emptyv");
    assert!(s.matches("empty()") && s.matches("empty(void)") && !s.matches("empty(int)"));
}

#[test]
fn parameter_types() {
    let int = |bits, signed| Class::Num(Num::Int { bits, signed });
    let ptr = |pointee, is_const| CppParam::Pointer { pointee, is_const };
    let s = sig(
        "_Z5typescahstijlmxybfd6__half13__nv_bfloat166float4N2ns6ParamsENS2_4ModeEljPvPKvPPf4int2",
    );
    let types = s.types();
    let want = [
        CppParam::Value(Class::Num(Num::Char)),
        CppParam::Value(int(8, true)),
        CppParam::Value(int(8, false)),
        CppParam::Value(int(16, true)),
        CppParam::Value(int(16, false)),
        CppParam::Value(int(32, true)),
        CppParam::Value(int(32, false)),
        CppParam::Value(int(64, true)),
        CppParam::Value(int(64, false)),
        CppParam::Value(int(64, true)),
        CppParam::Value(int(64, false)),
        CppParam::Value(Class::Num(Num::Bool)),
        CppParam::Value(Class::Num(Num::Float(32))),
        CppParam::Value(Class::Num(Num::Float(64))),
        CppParam::Value(Class::Num(Num::F16)),
        CppParam::Value(Class::Num(Num::BF16)),
        CppParam::Value(Class::Vector(Num::Float(32), 4)),
        CppParam::Value(Class::Unknown),
        CppParam::Value(Class::Unknown),
        CppParam::Value(int(64, true)),
        CppParam::Value(int(32, false)),
        ptr(Class::Void, false),
        ptr(Class::Void, true),
        ptr(int(64, false), false),
        CppParam::Value(Class::Vector(
            Num::Int {
                bits: 32,
                signed: true,
            },
            2,
        )),
    ];
    assert_eq!(types, want);
    assert_eq!(
        parse_type("float const*"),
        ptr(Class::Num(Num::Float(32)), true)
    );
    assert_eq!(
        parse_type("const float* __restrict__"),
        ptr(Class::Num(Num::Float(32)), true)
    );
    assert_eq!(
        parse_type("float* const"),
        ptr(Class::Num(Num::Float(32)), false)
    );
    assert_eq!(parse_type("float const* const*"), ptr(int(64, false), true));
    assert_eq!(parse_type("float**"), ptr(int(64, false), false));
    assert_eq!(
        parse_type("long unsigned int"),
        CppParam::Value(int(64, false))
    );
    assert_eq!(parse_type("Wrap<float> const*"), ptr(Class::Unknown, true));
    assert_eq!(parse_type("float&"), CppParam::Unknown);
    assert_eq!(parse_type("void (*)(int)"), CppParam::Unknown);
}

#[test]
fn fixes_name_rust_types() {
    assert_eq!(rust_for("float*"), "`&mut CudaSlice<f32>`");
    assert_eq!(rust_for("float const*"), "`&CudaSlice<f32>`");
    assert_eq!(rust_for("int"), "`i32`");
    assert_eq!(rust_for("unsigned long"), "`u64`");
    assert_eq!(
        rust_for("__half const*"),
        "`&CudaSlice<chevron::half::f16>`"
    );
    assert_eq!(
        rust_for("float4*"),
        "`&mut CudaSlice<chevron::vec::Float4>`"
    );
    assert_eq!(rust_for("float4"), "`chevron::vec::Float4`");
    assert_eq!(rust_for("void*"), "`&mut CudaSlice<T>` of any `T`");
    assert_eq!(
        rust_for("ns::Params const*"),
        "`&CudaSlice<T>` of a `#[repr(C)]` type `T` laid out like `ns::Params`"
    );
    assert_eq!(
        rust_for("ns::Params"),
        "a `#[repr(C)]` type laid out like `ns::Params`"
    );
    assert_eq!(rust_for("CUgraphExec_st*"), "`chevron::DeviceGraphHandle`");
    assert_eq!(rust_for("char4"), "`chevron::vec::Char4`");
    assert_eq!(
        rust_for("uchar4*"),
        "`&mut CudaSlice<chevron::vec::UChar4>`"
    );
    assert_eq!(rust_for("longlong2"), "`chevron::vec::Long2`");
    assert_eq!(
        rust_for("double4 const*"),
        "`&CudaSlice<chevron::vec::Double4>`"
    );
    assert_eq!(
        rust_for("__half2 const*"),
        "`&CudaSlice<chevron::vec::Half2>`"
    );
    assert_eq!(rust_for("__nv_bfloat162"), "`chevron::vec::BFloat162`");
}

/// An empty parameter pack, in the template arguments and expanded in the parameter list (ggml's
/// `k_bin_bcast_unravel<op, T0, T1, T2, Args...>` with no `Args`, nvcc 13.0): the demangler
/// writes `, >` and `, )`; the name still parses, so the source's and `c++filt`'s spellings
/// find it.
#[test]
fn an_empty_parameter_pack_is_no_parameter() {
    let s = sig("_Z19k_bin_bcast_unravelIXadL_ZN48_INTERNAL_c77ac404_11_binbcast_cu_e57b0fc3_107979op_repeatEffEEfffJEEvPKT0_PKT1_PT2_5uint3S9_S9_jS9_S9_S9_S9_S9_S9_jjjjjjjjjjjDpT3_");
    assert!(s.cpp_name().is_some(), "{}", s.text());
    assert_eq!(s.params.len(), 24);
    assert!(s.matches("k_bin_bcast_unravel<&op_repeat, float, float, float>"));
    assert!(s.matches(
        "k_bin_bcast_unravel<&_INTERNAL_c77ac404_11_binbcast_cu_e57b0fc3_10797::op_repeat, float, float, float>"
    ));
    assert!(!s.matches("k_bin_bcast_unravel<&op_add, float, float, float>"));
}
