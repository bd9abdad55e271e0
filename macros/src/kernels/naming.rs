//! The Rust name of each entry `#[kernels]` declares.
//!
//! Names are given over every entry of the file, whatever `only`, `skip` and the module's own
//! declarations leave out, so that none of those renames another kernel. The rule, in the
//! order tried, each step only for the entries whose name the step before left shared with
//! another entry of the file:
//! 1. the C++ function's name without scopes or template arguments: `gemm` for `gemm<128>`,
//!    `scale` for `ns::scale`; an `extern "C"` kernel's symbol as it is;
//! 2. that name, two underscores and its template arguments: `scale__float`, `scale__double`
//!    (`reduce4<int, 512>` is `reduce4__int_512`), spelled as the source writes them, without
//!    nvcc's `_INTERNAL_<hash>` namespaces (`unary_op_kernel<&op_abs, float>` is
//!    `unary_op_kernel__op_abs_float`), so that a name does not change with the file's hash;
//! 3. that, two underscores and the parameter types: `axpy__float_p_float_const_p_float_int`
//!    for the overload `axpy(float*, float const*, float, int)`;
//! 4. its scopes in front: `ns__scale__float`;
//! 5. the entry's index in the file after two underscores (the last resort: identical names).
//!
//! In each part every run of characters that cannot be in an identifier is one `_`, and `*` is
//! `p` (`float*` is `float_p`). The docs of every item give its C++ signature and carry it as a
//! search alias, so rustdoc's search finds `scale<float>` and `scale__float` alike.

use std::collections::HashMap;

use chevron_cuda_rules::ptx::Entry;
use proc_macro2::{Ident, Span};

use super::cpp;

/// One step of the rule: an entry's name from the entry and its index in the file.
type Step<'a> = &'a dyn Fn(&Entry, usize) -> String;

/// The Rust name of each of `entries` (in order: every entry of the file, so that leaving some
/// out renames none of the others), unique among them.
pub fn rust_names(entries: &[&Entry]) -> Vec<String> {
    let steps: [Step<'_>; 5] = [
        &|e, _| base(e),
        &|e, _| join(&[base(e), args(e)]),
        &|e, _| join(&[base(e), args(e), params(e)]),
        &|e, _| join(&[scopes(e), base(e), args(e), params(e)]),
        &|e, k| join(&[scopes(e), base(e), args(e), params(e), k.to_string()]),
    ];
    let mut names: Vec<String> = entries
        .iter()
        .enumerate()
        .map(|(k, e)| steps[0](e, k))
        .collect();
    for step in &steps[1..] {
        let mut count: HashMap<&str, usize> = HashMap::new();
        for n in &names {
            *count.entry(n.as_str()).or_default() += 1;
        }
        let shared: Vec<bool> = names.iter().map(|n| count[n.as_str()] > 1).collect();
        if !shared.contains(&true) {
            break;
        }
        for (k, (name, e)) in names.iter_mut().zip(entries).enumerate() {
            if shared[k] {
                *name = step(e, k);
            }
        }
    }
    names
}

/// An identifier for `name` (already made of identifier characters): raw where it is a
/// keyword (`r#match`); with a trailing `_` where it cannot be raw (`self_`) or starts with a
/// digit.
pub fn ident(name: &str) -> Ident {
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        return Ident::new(&format!("k_{name}"), Span::call_site());
    }
    if matches!(name, "self" | "Self" | "super" | "crate" | "_") {
        return Ident::new(&format!("{name}_"), Span::call_site());
    }
    match syn::parse_str::<Ident>(name) {
        Ok(id) => id,
        Err(_) => Ident::new_raw(name, Span::call_site()),
    }
}

fn base(e: &Entry) -> String {
    match &e.signature {
        Some(sig) => sanitize(&cpp::base_name(sig)),
        None => sanitize(&e.name),
    }
}

fn args(e: &Entry) -> String {
    e.signature
        .as_ref()
        .map_or_else(String::new, |sig| sanitize(&cpp::template_args(sig)))
}

fn params(e: &Entry) -> String {
    e.signature
        .as_ref()
        .map_or_else(String::new, |sig| sanitize(&sig.params.join(",")))
}

fn scopes(e: &Entry) -> String {
    e.signature
        .as_ref()
        .map_or_else(String::new, |sig| sanitize(&cpp::scopes(sig)))
}

/// The non-empty parts joined by `__`.
fn join(parts: &[String]) -> String {
    parts
        .iter()
        .filter(|p| !p.is_empty())
        .cloned()
        .collect::<Vec<_>>()
        .join("__")
}

/// `text` as identifier characters: `*` is `p`, `-` is `neg`, every other run of characters
/// an identifier cannot hold is one `_`; no `_` at either end, none doubled (`__` separates the
/// parts of a name).
pub fn sanitize(text: &str) -> String {
    let mut out = String::new();
    let mut gap = false;
    let push = |out: &mut String, s: &str, gap: &mut bool| {
        if *gap && !out.is_empty() {
            out.push('_');
        }
        *gap = false;
        out.push_str(s);
    };
    for c in text.chars() {
        match c {
            c if c.is_ascii_alphanumeric() => push(&mut out, c.encode_utf8(&mut [0; 4]), &mut gap),
            '*' => {
                gap = true;
                push(&mut out, "p", &mut gap);
                gap = true;
            }
            '-' => {
                gap = true;
                push(&mut out, "neg", &mut gap);
            }
            _ => gap = true,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use chevron_cuda_rules::ptx::parse_entries;

    fn entries(symbols: &[&str]) -> Vec<Entry> {
        let text: String = symbols
            .iter()
            .map(|s| format!(".visible .entry {s}(.param .u64 {s}_param_0) {{ ret; }}\n"))
            .collect();
        parse_entries(&format!(
            ".version 8.0\n.target sm_90\n.address_size 64\n{text}"
        ))
        .expect("parses")
    }

    #[test]
    fn sanitized_parts() {
        assert_eq!(sanitize("int, 512"), "int_512");
        assert_eq!(sanitize("float const*"), "float_const_p");
        assert_eq!(sanitize("float*,int"), "float_p_int");
        assert_eq!(sanitize("(long)-3"), "long_neg3");
        assert_eq!(sanitize("ns::detail"), "ns_detail");
    }

    #[test]
    fn names_grow_only_where_they_collide() {
        // gemm<128>, scale<float>, scale<double>, offset_add, an extern "C" kernel.
        let all = entries(&[
            "_Z4gemmILi128EEvPKfS1_Pfiii",
            "_Z5scaleIfEvPT_S0_j",
            "_Z5scaleIdEvPT_S0_j",
            "_Z10offset_addPffj",
            "saxpy",
        ]);
        let refs: Vec<&Entry> = all.iter().collect();
        assert_eq!(
            rust_names(&refs),
            [
                "gemm",
                "scale__float",
                "scale__double",
                "offset_add",
                "saxpy"
            ]
        );
    }

    #[test]
    fn overloads_take_their_parameter_types() {
        // axpy(float*, float const*, float, int) and axpy(double*, double const*, double, int).
        let all = entries(&["_Z4axpyPfPKffi", "_Z4axpyPdPKddi"]);
        let refs: Vec<&Entry> = all.iter().collect();
        assert_eq!(
            rust_names(&refs),
            [
                "axpy__float_p_float_const_p_float_int",
                "axpy__double_p_double_const_p_double_int"
            ]
        );
    }

    #[test]
    fn keywords_and_digits_are_identifiers() {
        assert_eq!(ident("match").to_string(), "r#match");
        assert_eq!(ident("self").to_string(), "self_");
        assert_eq!(ident("1x").to_string(), "k_1x");
    }
}
