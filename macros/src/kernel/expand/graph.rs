//! The graph updates of a `#[kernel]`: `update`, `update_scalars` and `update_ordered`, each a
//! call of the runtime's generic form (`typed_update*`) with the arguments as one tuple,
//! so that what they share is compiled once in the runtime, not once per declaration.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Ident, LitStr};

use super::{arg_tuple, hygienic};
use crate::kernel::ast::KernelParam;

/// `update`: sets the arguments of a node of this kernel captured in a graph, for the following
/// replays. It takes the kernel's parameters as declared and goes through `Graph::set_params`,
/// which checks that the node is of this graph and this kernel. The generated functions take the
/// graph `&mut` and call its shared-borrow forms (`__set_params`, `__set_params_keeping`, through
/// the runtime's `typed_update*`), so that the order stream stays borrowed from the graph
/// instead of cloned per update.
pub fn graph_update(
    p: &TokenStream,
    kernel: &Ident,
    name: &LitStr,
    params: &[KernelParam],
) -> TokenStream {
    let taken = |want: &str| params.iter().any(|q| q.ident == want);
    let pick = |want: &str| {
        let mut name = want.to_string();
        while taken(&name) {
            name = format!("__chevron_{name}");
        }
        hygienic(&name)
    };
    let (graph, node) = (pick("graph"), pick("node"));
    let decls = params.iter().map(|q| {
        let (i, ty) = (&q.ident, &q.ty);
        quote!(#i: #ty)
    });
    let tuple = arg_tuple(params.iter());
    let doc = format!(
        " Sets the arguments of `{kernel}`'s node `{node}` in `{graph}` for the following \
         replays, without instantiating the graph again (`cuGraphExecKernelNodeSetParams`); the \
         node's grid, block and attributes stay as captured. Allocates nothing. Each buffer is \
         ordered after its earlier uses on other streams at every call (two `cuStreamWaitEvent` \
         for a written one); `update_ordered` takes buffers ordered once for many \
         updates.\n\n # Safety\n \
         As for `launch`: the captured grid and these values must keep every access of the \
         kernel inside its buffers, and a buffer given here must stay alive, and untouched by \
         the host and other streams, while the graph may replay with it: until the node is \
         updated again or the graph is dropped (which waits for the last replay). Unlike the \
         buffers of the capture, these are not borrowed for the graph's lifetime, so that one \
         buffer can be given to many updates.\n\n # Errors\n `Error::Graph` when `{node}` is \
         of another graph or another kernel; `Error::Driver` when the driver rejects the update."
    );
    let partial = partial_updates(p, kernel, name, params, (&graph, &node));
    quote! {
        #partial

        #[doc = #doc]
        #[allow(clippy::too_many_arguments, dead_code)]
        #[inline]
        pub unsafe fn update(
            #graph: &mut #p::runtime::Graph<'_>,
            #node: &#p::runtime::GraphNode,
            #(#decls,)*
        ) -> #p::Result<(), #p::Error> {
            // Each buffer's slot orders it after its earlier uses on other streams (cudarc's
            // events), on the stream the next replay follows; it records no event (the graph
            // runs later, and dropping it is what orders later uses).
            // SAFETY: the parameters match the PTX entry, as for `launch`; the rest is the
            // caller's promise.
            unsafe {
                #p::typed_update(
                    #graph,
                    #node,
                    Self::__chevron_kernel(),
                    #name,
                    #tuple,
                )
            }
        }
    }
}

/// `update_scalars` and `update_ordered`, for kernels with buffer parameters (written as
/// references: device buffers; a buffer behind an alias of a reference type is taken, as a
/// value would be).
fn partial_updates(
    p: &TokenStream,
    kernel: &Ident,
    name: &LitStr,
    params: &[KernelParam],
    names: (&Ident, &Ident),
) -> TokenStream {
    if !params.iter().any(|q| q.by_ref) {
        return TokenStream::new();
    }
    let keep: Vec<bool> = params.iter().map(|q| q.by_ref).collect();
    let update_scalars = update_scalars(p, kernel, name, params, &keep, names);
    let update_ordered = update_ordered(p, kernel, name, params, &keep, names);
    quote! {
        #update_scalars
        #update_ordered
    }
}

/// `update_ordered`, for kernels with buffer parameters whose types name their element type:
/// `update` with each buffer given as an `Ordered` (written and read buffers) or `OrderedRead`
/// (read buffers) of the graph, made once by `graph.ordered(&mut buffer)` for any number of
/// updates: the pointer is copied, without the per-update waits of `update`.
fn update_ordered(
    p: &TokenStream,
    kernel: &Ident,
    name: &LitStr,
    params: &[KernelParam],
    is_buffer: &[bool],
    (graph, node): (&Ident, &Ident),
) -> TokenStream {
    let mut decls = Vec::new();
    let mut buffers = Vec::new();
    for q in params {
        let (i, ty) = (&q.ident, &q.ty);
        if q.by_ref {
            // A type alias names no element type: no `update_ordered` then.
            let Some(elem) = buffer_elem(ty) else {
                return TokenStream::new();
            };
            if matches!(ty, syn::Type::Reference(r) if r.mutability.is_some()) {
                decls.push(quote!(#i: &#p::runtime::Ordered<'_, #elem>));
            } else {
                decls.push(quote!(#i: &impl #p::runtime::OrderedBuffer<#elem>));
            }
            buffers.push(i);
        } else {
            decls.push(quote!(#i: #ty));
        }
    }
    let scalars = arg_tuple(params.iter().filter(|q| !q.by_ref));
    let doc = format!(
        " `update` with ordered buffers: sets the arguments of `{kernel}`'s node `{node}` in \
         `{graph}`, each buffer given as an `&Ordered` from `{graph}.ordered(&mut buffer)` (a \
         buffer the kernel only reads may also be an `&OrderedRead` from \
         `{graph}.ordered_read(&buffer)`), ordered after its earlier uses on other streams once, \
         when it was made, for any number of updates: each update copies its pointer instead of \
         waiting for its events again. The same ordering as `update`. Allocates nothing.\n\n \
         # Safety\n As for `update`.\n\n # Errors\n As for `update`, and `Error::Graph` for an \
         ordered buffer made by another graph."
    );
    quote! {
        #[doc = #doc]
        #[allow(clippy::too_many_arguments, dead_code)]
        #[inline]
        pub unsafe fn update_ordered(
            #graph: &mut #p::runtime::Graph<'_>,
            #node: &#p::runtime::GraphNode,
            #(#decls,)*
        ) -> #p::Result<(), #p::Error> {
            // SAFETY: the parameters match the PTX entry, as for `launch`; the rest is the
            // caller's promise.
            unsafe {
                #p::typed_update_ordered(
                    #graph,
                    #node,
                    Self::__chevron_kernel(),
                    #name,
                    (#(#buffers,)*),
                    #scalars,
                    &[#(#is_buffer),*],
                )
            }
        }
    }
}

/// `T` of a buffer parameter's type (`&CudaSlice<T>`, `&mut CudaViewMut<'_, T>`): the first
/// type argument of the referenced path; `None` for a type without one (an alias).
fn buffer_elem(ty: &syn::Type) -> Option<&syn::Type> {
    let syn::Type::Reference(r) = ty else {
        return None;
    };
    let mut elem = &*r.elem;
    loop {
        elem = match elem {
            syn::Type::Group(g) => &g.elem,
            syn::Type::Paren(p) => &p.elem,
            _ => break,
        };
    }
    let syn::Type::Path(p) = elem else {
        return None;
    };
    let syn::PathArguments::AngleBracketed(args) = &p.path.segments.last()?.arguments else {
        return None;
    };
    args.args.iter().find_map(|a| match a {
        syn::GenericArgument::Type(t) => Some(t),
        _ => None,
    })
}

/// `update_scalars`: sets the node's scalar and value arguments and keeps its buffers (the
/// captured ones, or the last update's), through `Graph::set_params_keeping`. Buffers stay
/// borrowed by the graph from the capture, so a scalar change needs no second buffer.
fn update_scalars(
    p: &TokenStream,
    kernel: &Ident,
    name: &LitStr,
    params: &[KernelParam],
    keep: &[bool],
    (graph, node): (&Ident, &Ident),
) -> TokenStream {
    let scalars: Vec<&KernelParam> = params.iter().filter(|q| !q.by_ref).collect();
    let decls = scalars.iter().map(|q| {
        let (i, ty) = (&q.ident, &q.ty);
        quote!(#i: #ty)
    });
    let tuple = arg_tuple(scalars.iter().copied());
    let buffers: Vec<String> = params
        .iter()
        .filter(|q| q.by_ref)
        .map(|q| format!("`{}`", q.ident))
        .collect();
    let doc = format!(
        " Sets the scalar and value arguments of `{kernel}`'s node `{node}` in `{graph}` for \
         the following replays and keeps its buffers ({}) as they are: the captured ones, or \
         the last `update`'s. Otherwise as `update`. Allocates nothing.\n\n # Safety\n As \
         for `update`: the captured grid and these values must keep every access of the \
         kernel inside its buffers.\n\n # Errors\n As for `update`.",
        buffers.join(", ")
    );
    quote! {
        #[doc = #doc]
        #[allow(clippy::too_many_arguments, dead_code)]
        #[inline]
        pub unsafe fn update_scalars(
            #graph: &mut #p::runtime::Graph<'_>,
            #node: &#p::runtime::GraphNode,
            #(#decls,)*
        ) -> #p::Result<(), #p::Error> {
            // SAFETY: the parameters match the PTX entry, as for `launch`, and the kept ones are
            // device pointers; the rest is the caller's promise.
            unsafe {
                #p::typed_update_scalars(
                    #graph,
                    #node,
                    Self::__chevron_kernel(),
                    #name,
                    #tuple,
                    &[#(#keep),*],
                )
            }
        }
    }
}
