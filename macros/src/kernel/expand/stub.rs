//! What a rejected declaration expands to: the same names with the parameters as written, so
//! that call sites type-check and only the real errors show.

use proc_macro2::TokenStream;
use quote::quote;

use super::{
    event_lint, info_value, kernel_items, kernel_type, param_check, param_types, spelling_guard,
    ItemAttrs,
};
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
    let p = crate::krate::private();
    let KernelItem {
        attrs, vis, sig, ..
    } = item;
    // Reported at the declaration; on the type rustc would add its own complaint.
    let scope = ItemAttrs::split(
        attrs
            .iter()
            .filter(|a| !crate::kernel::check::is_function_only(a)),
    );
    let impl_attrs = &scope.shared;
    let ident = &sig.ident;
    let info = info_value(None, false, CooperativeUse::ByPtx);
    let ty = kernel_type(&scope, vis, ident, "…", "…");
    let (types, kernel, value) = if !is_generic(sig) && params.len() == sig.inputs.len() {
        let kernel = quote!(#p::StubOf<#ident>);
        (param_types(&p, params), kernel, quote!(&#p::StubOf::NEW))
    } else {
        let types = quote! {
            type Args<'r, 'v> = () where 'v: 'r;
            type Scalars<'v> = ();
            type Ordered<'r> = #p::NoElementType;
            type Buffers = [bool; 0];
            const BUFFERS: [bool; 0] = [];
        };
        (types, quote!(#p::Stub), quote!(&#p::Stub))
    };
    let kernel_fn = quote! {
        /// Not generated: `#[kernel]` reported an error for this declaration.
        pub fn kernel() -> &'static #kernel {
            #value
        }
    };
    kernel_items(
        &p,
        ty,
        impl_attrs,
        ident,
        info,
        types,
        kernel_fn,
        event_lint(None),
    )
}

/// Whether the declaration has generics (which `#[kernel]` rejects): its parameter types may
/// name them, so its stub names none.
fn is_generic(sig: &syn::Signature) -> bool {
    !sig.generics.params.is_empty() || sig.generics.where_clause.is_some()
}
