//! The adapter between `#[kernels]` and the C++ name reader of the rules crate: how an entry's
//! C++ name is spelled in docs and messages, and whether a user's spelling (`only`, `skip`)
//! names it. Everything `#[kernels]` asks of C++ names goes through here, so that a better
//! matcher (parsed names, `c++filt`'s spelling) replaces these few functions only.

use chevron_cuda_rules::cpp::{Signature, Style};
use chevron_cuda_rules::ptx::Entry;

/// The kernel's C++ name with its template arguments, as docs and messages show it: the
/// source's spelling (`reduce4<int, 512>`, `ns::scale`, `unary_op_kernel<&op_abs, float>`),
/// without the compiler's internal namespaces, which no user can type.
pub fn cpp_name(sig: &Signature) -> String {
    sig.render_name(Style::Source)
}

/// The whole C++ signature in the source's spelling:
/// `reduce4<int, 512>(int*, int const*, unsigned int)`.
pub fn cpp_signature(sig: &Signature) -> String {
    sig.render(Style::Source)
}

/// The name without template arguments or scopes: `reduce4` of `ns::reduce4<int, 512>`.
pub fn base_name(sig: &Signature) -> String {
    sig.unqualified_base().to_string()
}

/// The scopes before the name: `ns::detail` of `ns::detail::f<int>`; empty at the top level.
pub fn scopes(sig: &Signature) -> String {
    sig.scopes().to_string()
}

/// The template arguments as the source writes them between the outermost `<…>` of the name:
/// `int, 512` of `reduce4<int, 512>`, `&op_abs, float` of `unary_op_kernel<&op_abs, float>`
/// (no compiler-made namespace, whose hash would change with the file); empty for a function
/// that is no template instance.
pub fn template_args(sig: &Signature) -> String {
    let name = sig.render_name(Style::Source);
    let open = match name.find('<') {
        Some(at) => at,
        None => return String::new(),
    };
    name[open..]
        .trim()
        .strip_prefix('<')
        .and_then(|s| s.strip_suffix('>'))
        .unwrap_or("")
        .trim()
        .to_string()
}

/// Whether the user's spelling `wanted` names `entry`: its symbol, or its C++ name with or
/// without template arguments and parameter types (the rules crate's matcher).
pub fn names_entry(entry: &Entry, wanted: &str) -> bool {
    entry.name == wanted.trim()
        || entry
            .signature
            .as_ref()
            .is_some_and(|sig| sig.matches(wanted))
}

/// Whether `a` and `b` spell the same C++ type, whitespace aside (`vec4<float>::Type`).
pub fn same_spelling(a: &str, b: &str) -> bool {
    compact(a) == compact(b)
}

/// `s` without whitespace.
pub fn compact(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use chevron_cuda_rules::cpp::demangle;

    #[test]
    fn parts_of_a_template_instance() {
        let sig = demangle("_ZN2ns5scaleIfEEvPT_S1_j").expect("demangles");
        assert_eq!(cpp_name(&sig), "ns::scale<float>");
        assert_eq!(base_name(&sig), "scale");
        assert_eq!(scopes(&sig), "ns");
        assert_eq!(template_args(&sig), "float");
        let plain = demangle("_Z10offset_addPffj").expect("demangles");
        assert_eq!(template_args(&plain), "");
        assert_eq!(scopes(&plain), "");
    }
}
