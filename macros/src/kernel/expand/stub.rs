//! What a rejected declaration expands to: the same names with the parameters as written, so
//! that call sites type-check and only the real errors show.

use proc_macro2::TokenStream;
use quote::quote;

use super::{info_value, kernel_type, param_check, spelling_guard, ItemAttrs};
use crate::kernel::ast::{KernelItem, KernelParam};
use chevron_cuda_rules::fit::CooperativeUse;

/// The checks of a rejected declaration's parameters (those that could be read), so that its
/// type errors show with the macro's: a type that is no kernel parameter, and, where the PTX
/// entry was read, a type that does not fit it. None for a generic declaration, whose
/// parameters name what only its generics declare.
pub fn stub_checks(item: &KernelItem, params: &[KernelParam]) -> TokenStream {
    let generics = &item.sig.generics;
    if !generics.params.is_empty() || generics.where_clause.is_some() {
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

/// What a rejected declaration expands to: the type, its `TypedKernel` impl without rules,
/// and a `kernel()` that returns the runtime's `Stub`, whose functions take any arguments, so
/// that call sites type-check and only the real errors show.
pub fn expand_stub(item: &KernelItem) -> TokenStream {
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
    let lint = crate::warn::constant(
        &syn::Ident::new(crate::warn::NO_TRIGGER, proc_macro2::Span::call_site()),
        false,
        "",
    );
    quote! {
        #ty

        #(#impl_attrs)*
        impl #p::TypedKernel for #ident {
            const INFO: #p::KernelInfo = #info;
            type Args<'r, 'v> = () where 'v: 'r;
            type Scalars<'v> = ();
            type Ordered<'r> = #p::NoElementType;
            type Buffers = [bool; 0];
            const BUFFERS: [bool; 0] = [];
        }

        #(#impl_attrs)*
        impl #ident {
            /// Not generated: `#[kernel]` reported an error for this declaration.
            pub fn kernel() -> &'static #p::Stub {
                &#p::Stub
            }

            #lint
        }
    }
}
