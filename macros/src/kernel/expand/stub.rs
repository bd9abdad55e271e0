//! What a rejected declaration expands to: the same names with the parameters as written, so
//! that call sites type-check and only the real errors show.

use proc_macro2::TokenStream;

use super::{
    event_lint, info_value, kernel_items, kernel_type, param_check, param_types, spelling_guard,
    ItemAttrs,
};
use crate::code::Code;
use crate::kernel::ast::{KernelItem, KernelParam};
use chevron_cuda_rules::fit::CooperativeUse;

/// The checks of a rejected declaration's parameters (those that could be read), so that its
/// type errors show with the macro's: a type that is no kernel parameter, and, where the PTX
/// entry was read, a type that does not fit it. None for a generic declaration, whose
/// parameters name what only its generics declare.
pub fn stub_checks(item: &KernelItem, params: &[KernelParam]) -> TokenStream {
    if is_generic(&item.sig) {
        return TokenStream::new();
    }
    let scope = ItemAttrs::split(
        item.attrs
            .iter()
            .filter(|a| !crate::kernel::check::is_function_only(a)),
    );
    let mut out: TokenStream = params
        .iter()
        .map(|q| param_check(q, &scope.shared))
        .collect();
    out.extend(spelling_guard(params, &scope.shared));
    out
}

/// What a rejected declaration expands to: the type and its `TypedKernel` impl without rules,
/// and a `kernel()` whose functions take what call sites give, so that they type-check and only
/// the real errors show: the runtime's `StubOf`, which takes the declared types (checked and
/// reborrowed as usual) where all of them could be read (`params`), else `Stub`, which takes
/// anything (a generic declaration, whose types name what only its generics declare).
pub fn expand_stub(item: &KernelItem, params: &[KernelParam]) -> TokenStream {
    let pt = crate::krate::private_text();
    let pt = pt.as_str();
    let KernelItem {
        attrs, vis, sig, ..
    } = item;
    // Reported at the declaration; on the type rustc would add its own complaint.
    let scope = ItemAttrs::split(
        attrs
            .iter()
            .filter(|a| !crate::kernel::check::is_function_only(a)),
    );
    let info = info_value(pt, None, false, CooperativeUse::ByPtx);
    let typed = !is_generic(sig) && params.len() == sig.inputs.len();
    let mut code = Code::new();
    kernel_type(&mut code, &scope, vis, &sig.ident, "…", "…");
    let ty = sig.ident.to_string();
    let (kernel, value) = if typed {
        (format!("{pt}::StubOf<{ty}>"), format!("&{pt}::StubOf::NEW"))
    } else {
        (format!("{pt}::Stub"), format!("&{pt}::Stub"))
    };
    kernel_items(
        &mut code,
        pt,
        &scope.shared,
        &ty,
        &info,
        &super::literal_block_rules(pt, None, false, CooperativeUse::ByPtx, &ty),
        |c| {
            if typed {
                param_types(c, pt, params);
            } else {
                c.s(&format!(
                    "type Args<'r, 'v> = () where 'v: 'r; type Scalars<'v> = (); \
                     type Ordered<'r> = {pt}::NoElementType; type Buffers = [bool; 0]; \
                     const BUFFERS: [bool; 0] = [];"
                ));
            }
        },
        |c| {
            c.s("#[doc = \" Not generated: `#[kernel]` reported an error for this declaration.\"]");
            c.s(&format!(
                "pub fn kernel() -> &'static {kernel} {{ {value} }}"
            ));
        },
        &event_lint(None),
    );
    code.finish()
}

/// Whether the declaration has generics (which `#[kernel]` rejects): its parameter types may
/// name them, so its stub names none.
fn is_generic(sig: &syn::Signature) -> bool {
    !sig.generics.params.is_empty() || sig.generics.where_clause.is_some()
}
