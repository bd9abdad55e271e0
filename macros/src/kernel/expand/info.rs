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
    // Only the fields that differ from `KernelInfo::UNKNOWN`, the rest from it: fewer tokens
    // for the macro to make and for rustc to check in every declaration.
    let mut fields: Vec<TokenStream> = Vec::new();
    if no_upstream_reads {
        fields.push(quote!(no_upstream_reads: true));
    }
    match cooperative {
        CooperativeUse::ByPtx => {}
        CooperativeUse::Optional => fields.push(quote!(cooperative: #p::CooperativeUse::Optional)),
        CooperativeUse::CoResident => {
            fields.push(quote!(cooperative: #p::CooperativeUse::CoResident))
        }
    }
    if let Some(text) = info {
        let i = &text.info;
        let dims = |d: Option<[u32; 3]>| d.map(|[x, y, z]| quote!(#p::Some([#x, #y, #z])));
        fields.push(quote!(known: true));
        if let Some(d) = dims(i.reqntid) {
            fields.push(quote!(reqntid: #d));
        }
        if let Some(d) = dims(i.maxntid) {
            fields.push(quote!(maxntid: #d));
        }
        if let Some(d) = dims(i.cluster) {
            fields.push(quote!(cluster: #d));
        }
        if let Some(r) = i.max_cluster_rank {
            fields.push(quote!(max_cluster_rank: #p::Some(#r)));
        }
        if i.explicit_cluster {
            fields.push(quote!(explicit_cluster: true));
        }
        if i.blocks_are_clusters {
            fields.push(quote!(blocks_are_clusters: true));
        }
        let fact = |f: Fact| match f {
            Fact::Yes => Some(quote!(#p::Fact::Yes)),
            Fact::No => Some(quote!(#p::Fact::No)),
            Fact::Unknown => None,
        };
        if let Some(f) = fact(i.waits) {
            fields.push(quote!(waits: #f));
        }
        if let Some(f) = fact(i.triggers) {
            fields.push(quote!(triggers: #f));
        }
        if let Some(f) = fact(i.grid_sync) {
            fields.push(quote!(grid_sync: #f));
        }
        // Stored by rule, in the table's order: no field here names a rule.
        let texts = &text.messages;
        if texts.iter().any(|t| !t.is_empty()) {
            fields.push(quote!(messages: #p::Messages::from_texts([#(#texts),*])));
        }
    }
    quote!(#p::KernelInfo { #(#fields,)* ..#p::KernelInfo::UNKNOWN })
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
