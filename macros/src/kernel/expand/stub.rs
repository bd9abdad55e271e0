//! What a rejected declaration expands to: the same names with the parameters as written, so
//! that call sites type-check and only the real errors show.

use proc_macro2::TokenStream;
use quote::quote;

use super::{
    expand_occupancy, hygienic, info_items, internal_names, kernel_type, launcher, param_check,
    spelling_guard, typed_impl, ItemAttrs,
};
use crate::kernel::ast::{KernelItem, KernelParam};
use chevron_cuda_rules::fit::CooperativeUse;

/// `update` and `update_scalars` of a rejected declaration, so that graph code calling them shows
/// only the declaration's errors. Reference parameters count as buffers.
fn stub_updates(p: &TokenStream, typed: &[syn::PatType]) -> TokenStream {
    let (graph, node) = (hygienic("__chevron_graph"), hygienic("__chevron_node"));
    let scalars = typed
        .iter()
        .filter(|t| !matches!(&*t.ty, syn::Type::Reference(_)));
    // Buffers as anything: the ordered types cannot be named from a rejected declaration.
    let ordered = typed.iter().map(|t| match &*t.ty {
        syn::Type::Reference(_) => quote!(_: impl ::core::marker::Sized),
        ty => quote!(_: #ty),
    });
    let doc = " Not generated: `#[kernel]` reported an error for this declaration.";
    quote! {
        #[doc = #doc]
        #[allow(unused_variables, clippy::too_many_arguments, dead_code)]
        pub unsafe fn update(
            #graph: &mut #p::runtime::Graph<'_>,
            #node: &#p::runtime::GraphNode,
            #(#typed,)*
        ) -> #p::Result<(), #p::Error> {
            loop {}
        }

        #[doc = #doc]
        #[allow(unused_variables, clippy::too_many_arguments, dead_code)]
        pub unsafe fn update_scalars(
            #graph: &mut #p::runtime::Graph<'_>,
            #node: &#p::runtime::GraphNode,
            #(#scalars,)*
        ) -> #p::Result<(), #p::Error> {
            loop {}
        }

        #[doc = #doc]
        #[allow(unused_variables, clippy::too_many_arguments, dead_code)]
        pub unsafe fn update_ordered(
            #graph: &mut #p::runtime::Graph<'_>,
            #node: &#p::runtime::GraphNode,
            #(#ordered,)*
        ) -> #p::Result<(), #p::Error> {
            loop {}
        }
    }
}

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

/// What a rejected declaration expands to: the same names with the parameters as written, so
/// call sites type-check and only the real errors show.
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
    let typed = crate::kernel::ast::typed_inputs(sig);
    let names = typed.iter().filter_map(|t| match &*t.pat {
        syn::Pat::Ident(i) => Some(&i.ident),
        _ => None,
    });
    let (stream, config) = internal_names(names.collect::<Vec<_>>().into_iter());
    let (impl_generics, _, where_clause) = sig.generics.split_for_impl();
    let stub_info = info_items(None, false, CooperativeUse::ByPtx);
    let stub_launcher = if sig.generics.params.is_empty() {
        launcher(&p, quote!(#(#typed,)*), quote!(loop {}))
    } else {
        TokenStream::new()
    };
    let stub_updates = if sig.generics.params.is_empty() {
        stub_updates(&p, &typed)
    } else {
        TokenStream::new()
    };
    let ty = kernel_type(&p, &scope, vis, ident);
    let occupancy = expand_occupancy(&p, ident, impl_attrs, true);
    let typed_kernel = typed_impl(&p, ident, impl_attrs);
    quote! {
        #ty
        #occupancy
        #typed_kernel

        #(#impl_attrs)*
        #[allow(deprecated)]
        impl #ident<'_> {
            #stub_info

            #stub_updates

            /// Not generated: `#[kernel]` reported an error for this declaration.
            #[allow(unused_variables, clippy::too_many_arguments, dead_code)]
            pub unsafe fn launch #impl_generics (
                #stream: &#p::CudaStream,
                #config: &#p::LaunchConfig<'_>,
                #(#typed,)*
            ) -> #p::Result<(), #p::Error> #where_clause {
                loop {}
            }

            #stub_launcher

            /// Not generated: `#[kernel]` reported an error for this declaration.
            #[allow(unused_variables, dead_code)]
            pub fn function(
                ctx: &#p::Arc<#p::CudaContext>,
            ) -> #p::Result<#p::CudaFunction, #p::Error> {
                loop {}
            }
        }
    }
}
