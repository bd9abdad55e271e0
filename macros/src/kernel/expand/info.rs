//! The kernel's launch rules as a const, for `launch!`'s compile-time checks and the runtime's.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::Ident;

use chevron_cuda_rules::fit::{CooperativeUse, Fact, InfoText};

/// The kernel's launch rules for `launch!`'s compile-time checks and the runtime's: the value
/// of `TypedKernel::INFO`.
pub fn info_value(
    info: Option<&InfoText>,
    no_upstream_reads: bool,
    cooperative: CooperativeUse,
) -> TokenStream {
    let p = crate::krate::private();
    let cooperative = match cooperative {
        CooperativeUse::ByPtx => quote!(#p::CooperativeUse::ByPtx),
        CooperativeUse::Optional => quote!(#p::CooperativeUse::Optional),
        CooperativeUse::CoResident => quote!(#p::CooperativeUse::CoResident),
    };
    let value = match info {
        None => quote!(#p::KernelInfo {
            no_upstream_reads: #no_upstream_reads,
            cooperative: #cooperative,
            ..#p::KernelInfo::UNKNOWN
        }),
        Some(text) => {
            let i = &text.info;
            let dims = |d: Option<[u32; 3]>| match d {
                Some([x, y, z]) => quote!(#p::Some([#x, #y, #z])),
                None => quote!(#p::None),
            };
            let (reqntid, maxntid, cluster) = (dims(i.reqntid), dims(i.maxntid), dims(i.cluster));
            let rank = match i.max_cluster_rank {
                Some(r) => quote!(#p::Some(#r)),
                None => quote!(#p::None),
            };
            let fact = |f: Fact| match f {
                Fact::Yes => quote!(#p::Fact::Yes),
                Fact::No => quote!(#p::Fact::No),
                Fact::Unknown => quote!(#p::Fact::Unknown),
            };
            let (waits, triggers, grid_sync) = (fact(i.waits), fact(i.triggers), fact(i.grid_sync));
            let (explicit, by_clusters) = (i.explicit_cluster, i.blocks_are_clusters);
            // Stored by rule, in the table's order: no field here names a rule.
            let texts = &text.messages;
            quote!(#p::KernelInfo {
                known: true,
                reqntid: #reqntid,
                maxntid: #maxntid,
                cluster: #cluster,
                max_cluster_rank: #rank,
                explicit_cluster: #explicit,
                blocks_are_clusters: #by_clusters,
                waits: #waits,
                triggers: #triggers,
                grid_sync: #grid_sync,
                no_upstream_reads: #no_upstream_reads,
                cooperative: #cooperative,
                messages: #p::Messages::from_texts([#(#texts),*]),
            })
        }
    };
    value
}

/// What `launch!` uses for `programmatic_event`: a constant of the kernel's type, deprecated (a
/// warning) when the PTX shows the kernel never triggers its dependents.
pub fn event_lint(info: Option<&InfoText>) -> TokenStream {
    let no_trigger = info.and_then(|t| t.no_trigger.as_deref());
    crate::warn::constant(
        &Ident::new(crate::warn::NO_TRIGGER, Span::call_site()),
        no_trigger.is_some(),
        no_trigger.unwrap_or_default(),
    )
}
