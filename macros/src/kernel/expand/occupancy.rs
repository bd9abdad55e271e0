//! The occupancy queries of a `#[kernel]`.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Attribute, Ident};

/// The occupancy queries, in their own `impl`: `occupancy`, `max_cooperative_grid` and
/// `max_active_clusters`, each honouring the launch configuration (shared memory opt-in, launch
/// attributes). `stub`: bodies that never run, for a rejected declaration.
pub(super) fn expand_occupancy(
    p: &TokenStream,
    ident: &Ident,
    impl_attrs: &[&Attribute],
    stub: bool,
) -> TokenStream {
    let body = |call: TokenStream| {
        if stub {
            quote!({ loop {} })
        } else {
            quote!({ Self::__chevron_kernel().#call })
        }
    };
    let occupancy = body(quote!(occupancy(ctx, config)));
    let cooperative =
        body(quote!(max_cooperative_grid(ctx, <#p::Dim3 as #p::From<B>>::from(block), shared)));
    let clusters = body(quote!(max_active_clusters(ctx, config)));
    let doc = |text: String| -> Vec<String> { text.lines().map(|l| format!(" {l}")).collect() };
    let occupancy_doc = doc(format!(
        "How many blocks of `{ident}` fit on one multiprocessor with `config`'s block and \
         shared memory, the device's multiprocessors, active warps, and the limiting resource \
         (`cuOccupancyMaxActiveBlocksPerMultiprocessor`).\n\n\
         Dynamic shared memory over 48 KiB is opted into first, as a launch would."
    ));
    let cooperative_doc = doc(format!(
        "The largest grid, in blocks, of a cooperative launch of `{ident}` with blocks of \
         `block` and `shared` bytes of dynamic shared memory: multiprocessors × blocks per \
         multiprocessor, the limit behind `CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE`."
    ));
    let clusters_doc = doc(format!(
        "How many clusters of `{ident}` launched with `config` can be resident at once \
         (`cuOccupancyMaxActiveClusters` with the config's grid, block, shared memory and \
         launch attributes, its `cluster` included)."
    ));
    quote! {
        #(#impl_attrs)*
        #[allow(deprecated)]
        impl #ident<'_> {
            #(#[doc = #occupancy_doc])*
            #[allow(dead_code, unused_variables)]
            pub fn occupancy(
                ctx: &#p::Arc<#p::CudaContext>,
                config: &#p::LaunchConfig<'_>,
            ) -> #p::Result<#p::Occupancy, #p::Error> #occupancy

            #(#[doc = #cooperative_doc])*
            #[allow(dead_code, unused_variables)]
            pub fn max_cooperative_grid<B>(
                ctx: &#p::Arc<#p::CudaContext>,
                block: B,
                shared: u32,
            ) -> #p::Result<u32, #p::Error>
            where
                #p::Dim3: #p::From<B>,
            #cooperative

            #(#[doc = #clusters_doc])*
            #[allow(dead_code, unused_variables)]
            pub fn max_active_clusters(
                ctx: &#p::Arc<#p::CudaContext>,
                config: &#p::LaunchConfig<'_>,
            ) -> #p::Result<u32, #p::Error> #clusters
        }
    }
}
