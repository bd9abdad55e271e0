//! Names as users write them, against real nvcc output (`rules/tests/fixtures/names.cu`).

use super::*;
use crate::ptx::{self, match_entries, Entry};

const PTX: &str = include_str!("../../../tests/fixtures/names.ptx");
const CXXFILT: &str = include_str!("../../../tests/fixtures/names.cxxfilt");

fn entries() -> Vec<Entry> {
    ptx::parse_entries(PTX).expect("the fixture parses")
}

/// The entries `spelling` names, each as `c++filt` prints it.
fn found(entries: &[Entry], spelling: &str) -> Vec<String> {
    match_entries(entries, spelling)
        .unwrap_or_else(|e| panic!("{spelling}: {e}"))
        .iter()
        .map(|e| e.cxxfilt_name())
        .collect()
}

#[track_caller]
fn finds(entries: &[Entry], spellings: &[&str], want: &str) {
    for s in spellings {
        assert_eq!(found(entries, s), [want], "`{s}`");
    }
}

#[test]
fn renders_every_entry_as_cxxfilt_does() {
    let es = entries();
    let mut seen = 0;
    for line in CXXFILT.lines().filter(|l| !l.starts_with('#')) {
        let (symbol, filt) = line.split_once('\t').expect("symbol, tab, demangling");
        let filt = filt.strip_prefix("void ").unwrap_or(filt);
        assert_eq!(crate::cpp::cxxfilt_name(symbol).as_deref(), Some(filt));
        let e = es.iter().find(|e| e.name == symbol).expect("in the PTX");
        assert_eq!(e.cxxfilt_name(), filt);
        seen += 1;
    }
    assert_eq!(seen, es.len());
}

#[test]
fn every_entry_is_found_by_each_tools_spelling_and_the_sources() {
    let es = entries();
    for e in &es {
        let sig = e.signature.as_ref().expect("C++ entries");
        // A name alone may name several (overloads); with its parameters, only this entry.
        let mut names = vec![sig.name.clone()];
        let mut whole = vec![sig.text(), e.name.clone()];
        for style in [Style::Source, Style::CxxFilt, Style::Demangler] {
            names.push(sig.render_name(style));
            whole.push(sig.render(style));
        }
        for s in names.iter().chain(&whole) {
            let got = match_entries(&es, s).unwrap_or_else(|m| panic!("{s}: {m}"));
            assert!(got.iter().any(|g| g.name == e.name), "`{s}`");
        }
        for s in whole {
            let got = match_entries(&es, &s).unwrap_or_else(|m| panic!("{s}: {m}"));
            assert_eq!(got.len(), 1, "`{s}` finds {}", got.len());
        }
    }
}

#[test]
fn integers_by_value_whatever_their_suffix_or_cast() {
    let es = entries();
    finds(
        &es,
        &["ti<128>", "ti<(int)128>", "ti<0x80>"],
        "ti<128>(int*)",
    );
    finds(
        &es,
        &["ti<-3>", "ti<(int)-3>", "ti < - 3 >"],
        "ti<-3>(int*)",
    );
    finds(
        &es,
        &[
            "tu<128>",
            "tu<128u>",
            "tu<128U>",
            "tu<(unsigned int)128>",
            "tu<(unsigned)128>",
        ],
        "tu<128u>(unsigned int*)",
    );
    finds(
        &es,
        &[
            "tl<128>",
            "tl<128l>",
            "tl<128L>",
            "tl<(long)128>",
            "tl<(long int)128>",
        ],
        "tl<128l>(long*)",
    );
    finds(
        &es,
        &[
            "tul<4096>",
            "tul<4096ul>",
            "tul<4096UL>",
            "tul<(unsigned long)4096>",
        ],
        "tul<4096ul>(unsigned long*)",
    );
    let r4 = "reduce4<int, 512u>(int const*, int*, int)";
    finds(
        &es,
        &[
            "reduce4<int, 512>",
            "reduce4<int,512u>",
            "reduce4<int, (unsigned int)512>",
            "reduce4 < int , 512 >",
            "reduce4<int, 512>(const int*, int*, int)",
            "void reduce4<int, 512u>(int const*, int*, int)",
            "reduce4<int32_t, 512>",
        ],
        r4,
    );
    assert!(found(&es, "reduce4<int, 256>").is_empty());
    assert!(found(&es, "reduce4<unsigned, 512>").is_empty());
    assert_eq!(found(&es, "reduce4").len(), 2);
    assert!(found(&es, "tu<129>").is_empty());
}

#[test]
fn bools_enums_and_types() {
    let es = entries();
    finds(&es, &["tb<true>", "tb<(bool)1>", "tb<1>"], "tb<true>(int*)");
    finds(&es, &["tb<false>", "tb<(bool)0>"], "tb<false>(int*)");
    finds(
        &es,
        &["te<(Mode)1, (Plain)7>", "te<(Mode)1, 7>"],
        "te<(Mode)1, (Plain)7>(float*)",
    );
    assert!(found(&es, "te<(Mode)0, (Plain)7>").is_empty());
    let ct = "tread<float const>(float const*, float*)";
    finds(
        &es,
        &[
            "tread<const float>",
            "tread<float const>",
            "tread< const   float >",
            "tread<const float>(const float*, float*)",
        ],
        ct,
    );
    finds(&es, &["tread<float>"], "tread<float>(float*, float*)");
    finds(
        &es,
        &[
            "pair<unsigned, long long>",
            "pair<unsigned int, long long int>",
            "pair<uint32_t, long long>",
        ],
        "pair<unsigned int, long long>(unsigned int const*, long long*)",
    );
    finds(
        &es,
        &[
            "pair<const __half*, unsigned char>",
            "pair<__half const*, unsigned char>",
            "pair<const half *, uint8_t>",
        ],
        "pair<__half const*, unsigned char>(__half const* const*, unsigned char*)",
    );
    assert!(found(&es, "pair<__half*, unsigned char>").is_empty());
    assert!(found(&es, "pair<const __half, unsigned char>").is_empty());
}

#[test]
fn function_pointer_arguments_by_the_functions_name() {
    let es = entries();
    let filt = |s: &str, also: &str| {
        CXXFILT
            .lines()
            .filter_map(|l| l.split_once('\t'))
            .map(|(_, f)| f.strip_prefix("void ").unwrap_or(f))
            .find(|f| f.starts_with(s) && f.contains(also))
            .expect("in names.cxxfilt")
            .to_string()
    };
    let abs = filt("unary_op_kernel<&_INTERNAL", "op_abs");
    let abs_name = &abs[..abs.find('(').expect("a parameter list")];
    finds(
        &es,
        &[
            "unary_op_kernel<&op_abs, float>",
            "unary_op_kernel<op_abs, float>",
            abs_name,
            &abs,
        ],
        &abs,
    );
    finds(
        &es,
        &[
            "unary_op_kernel<&op_neg, float>",
            "unary_op_kernel<&(op_neg(float)), float>",
            "unary_op_kernel<&op_neg(float), float>",
        ],
        "unary_op_kernel<&(op_neg(float)), float>(float const*, float*)",
    );
    let cpy = filt("cpy_scalar<&(void _INTERNAL", "cpy_1_scalar<float, __half>");
    finds(
        &es,
        &[
            "cpy_scalar<&cpy_1_scalar<float, __half>>",
            "cpy_scalar<cpy_1_scalar<float, half> >",
            "cpy_scalar<&(void cpy_1_scalar<float, __half>(char const*, char*))>",
            "cpy_scalar<&(void cpy_1_scalar<float, __half>(const char*, char*))>(const char*, char*)",
            &cpy,
        ],
        &cpy,
    );
    assert!(found(&es, "cpy_scalar<&cpy_1_scalar<float, double>>").is_empty());
    assert!(found(&es, "unary_op_kernel<&op_sqrt, float>").is_empty());
    assert_eq!(found(&es, "cpy_scalar").len(), 2);
}

#[test]
fn internal_namespaces_scopes_and_ambiguity() {
    let es = entries();
    finds(
        &es,
        &["anon", "(anonymous namespace)::anon", "anon(float*)"],
        "(anonymous namespace)::anon(float*)",
    );
    finds(&es, &["hidden", "::hidden"], "hidden(float*)");
    finds(
        &es,
        &["one::twin<1>", "::one::twin<1>"],
        "one::twin<1>(float*)",
    );
    assert_eq!(
        found(&es, "twin<1>"),
        ["one::twin<1>(float*)", "two::twin<1>(float*)"]
    );
    assert!(found(&es, "::twin<1>").is_empty());
    assert!(found(&es, "three::twin<1>").is_empty());
}

#[test]
fn overloads_by_parameters_through_aliases() {
    let es = entries();
    assert_eq!(found(&es, "over").len(), 2);
    finds(
        &es,
        &["over(float*, unsigned)", "over(float* x, unsigned int n)"],
        "over(float*, unsigned int)",
    );
    finds(&es, &["over(float*, long int)"], "over(float*, long)");
    // `index_t` is a typedef the symbol does not spell: either overload, for the declared
    // Rust types to decide.
    assert_eq!(found(&es, "over(float*, index_t)").len(), 2);
    assert!(found(&es, "over(float*, index_t*)").is_empty());
    assert!(found(&es, "over(double*, index_t)").is_empty());
    finds(
        &es,
        &[
            "gather(const float* const*, float*)",
            "gather(float const* const* __restrict__, float* const)",
        ],
        "gather(float const* const*, float*)",
    );
    assert!(found(&es, "gather(const float**, float*)").is_empty());
}

#[test]
fn parameter_packs_empty_and_not() {
    let es = entries();
    finds(
        &es,
        &["packed<float>", "packed<float, >"],
        "packed<float>(float*)",
    );
    finds(&es, &["packed<float, 1, 2>"], "packed<float, 1, 2>(float*)");
    finds(&es, &["only_pack<>"], "only_pack<>(float*)");
    finds(
        &es,
        &["only_pack<int, char>"],
        "only_pack<int, char>(float*)",
    );
    assert_eq!(found(&es, "only_pack").len(), 2);
    // The demangler's stray `, >` is gone from the name it gives.
    let packed = es
        .iter()
        .find(|e| e.name == "_Z6packedIfJEEvPT_")
        .expect("packed");
    assert_eq!(
        packed.signature.as_ref().map(|s| s.name.as_str()),
        Some("packed<float>")
    );
}

#[test]
fn spellings_the_parser_refuses_say_why() {
    let es = entries();
    for bad in ["", "tu<128", "tu<128>>", "f(int", "a;b", "tu<128>x"] {
        assert!(match_entries(&es, bad).is_err(), "`{bad}`");
    }
}

#[test]
fn the_style_of_a_spelling() {
    assert_eq!(Style::of("reduce4<int, 512>"), Style::Source);
    assert_eq!(Style::of("reduce4<int, 512u>"), Style::CxxFilt);
    assert_eq!(
        Style::of("cpy<&(void f<float>(char const*))>"),
        Style::CxxFilt
    );
    assert_eq!(
        Style::of("reduce4<int, (unsigned int)512>"),
        Style::Demangler
    );
    assert_eq!(Style::of("tb<true>"), Style::Source);
}

#[test]
fn messages_list_candidates_in_the_users_spelling_and_cxxfilts() {
    let es = entries();
    let err = |name: &str| match ptx::resolve_entry(&es, name, "`names.ptx`") {
        Err(ptx::Unresolved::Missing(m) | ptx::Unresolved::Ambiguous(m)) => m,
        Ok(e) => panic!("`{name}` found {}", e.name),
    };
    assert_eq!(
        err("reduce4<int, 1024>"),
        "no kernel `reduce4<int, 1024>` in `names.ptx`; the kernels named `reduce4` are: \
         `reduce4<int, 512>(int const*, int*, int)` (c++filt: `reduce4<int, 512u>(int const*, \
         int*, int)`), `reduce4<float, 256>(float const*, float*, int)` (c++filt: \
         `reduce4<float, 256u>(float const*, float*, int)`)"
    );
    assert_eq!(
        err("reduce4<int, 1024u>"),
        "no kernel `reduce4<int, 1024u>` in `names.ptx`; the kernels named `reduce4` are: \
         `reduce4<int, 512u>(int const*, int*, int)`, `reduce4<float, 256u>(float const*, \
         float*, int)`"
    );
    assert!(err("tu<(unsigned int)7>")
        .contains("`tu<(unsigned int)128>(unsigned int*)` (c++filt: `tu<128u>(unsigned int*)`)"));
    let m = err("unary_op_kernel<&op_sqrt, float>");
    assert!(
        m.contains("`unary_op_kernel<&op_abs, float>(float const*, float*)` (c++filt: `unary_op_kernel<&_INTERNAL_"),
        "{m}"
    );
    assert_eq!(
        err("twin<1>"),
        "`twin<1>` matches 2 C++ kernels in `names.ptx`: `one::twin<1>(float*)`, \
         `two::twin<1>(float*)`; name one with `name = \"one::twin<1>\"`"
    );
    assert_eq!(
        err("te<Mode::Mul, PlainB>"),
        "no kernel `te<Mode::Mul, PlainB>` in `names.ptx`; the kernels named `te` are: \
         `te<(Mode)1, (Plain)7>(float*)` (a symbol keeps an enumerator's value, not its name: \
         instead of `Mode::Mul`, write its value, as in `(Mode)1`)"
    );
    assert!(err("over").ends_with("name one with `name = \"over(float*, unsigned int)\"`"));
    assert!(err("nothing_like_it")
        .starts_with("no kernel `nothing_like_it` in `names.ptx`; its kernels are: "));
}
