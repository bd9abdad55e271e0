//! The kernel's launch rules as a const, for `launch!`'s compile-time checks and the runtime's.

use proc_macro2::{Literal, Span, TokenStream};
use quote::quote;
use syn::Ident;

use chevron_cuda_rules::fit::{CooperativeUse, Fact, InfoText, KernelInfo, Messages, Rule};

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
        fields.push(quote!(known: true));
        for (name, d) in [
            ("reqntid", i.reqntid),
            ("maxntid", i.maxntid),
            ("cluster", i.cluster),
        ] {
            if let Some([x, y, z]) = d {
                let name = Ident::new(name, Span::call_site());
                fields.push(quote!(#name: #p::Some([#x, #y, #z])));
            }
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
        for (name, f) in [
            ("waits", i.waits),
            ("triggers", i.triggers),
            ("grid_sync", i.grid_sync),
        ] {
            let f = match f {
                Fact::Yes => quote!(#p::Fact::Yes),
                Fact::No => quote!(#p::Fact::No),
                Fact::Unknown => continue,
            };
            let name = Ident::new(name, Span::call_site());
            fields.push(quote!(#name: #f));
        }
        // The messages written, by field (`Messages::field_name`), the others empty.
        let texts: Vec<TokenStream> = (text.messages.iter().enumerate())
            .filter(|(_, t)| !t.is_empty())
            .map(|(i, t)| {
                let name = Ident::new(Messages::field_name(i), Span::call_site());
                quote!(#name: #t)
            })
            .collect();
        if !texts.is_empty() {
            fields.push(quote!(messages: #p::Messages { #(#texts,)* ..#p::Messages::NONE }));
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

/// The words of each rule a launch may break on this kernel, for `launch!`'s check: per rule,
/// the runtime's `Refusal<RULE>` for the kernel naming the trait of chevron's `refusals` that
/// says the rule, with the kernel's numbers (`dyn BlockWithin<256, 1, 1, 256>`), which the
/// kernel does not implement. A launch that breaks the rule coerces `&KERNEL` to it: rustc's
/// error is the trait's message, at the launch's value. Under the declaration's attributes;
/// nothing for the rules no launch can break, nor for those the runtime says for every kernel
/// (`Rule::for_every_kernel`): most declarations emit nothing.
pub fn refusal_items(
    info: Option<&InfoText>,
    no_upstream_reads: bool,
    cooperative: CooperativeUse,
    ident: &Ident,
    attrs: &[&syn::Attribute],
) -> TokenStream {
    let Some(text) = info else {
        return TokenStream::new();
    };
    let kernel = KernelInfo {
        no_upstream_reads,
        cooperative,
        ..text.info
    };
    let p = crate::krate::private();
    Rule::ALL
        .iter()
        .filter(|&&rule| !text.messages[rule as usize].is_empty())
        .filter_map(|&rule| {
            let (name, params) = kernel.refusal_trait(rule)?;
            let name = Ident::new(name, Span::call_site());
            let params = params.into_iter().map(Literal::u64_unsuffixed);
            let index = rule as usize;
            Some(quote! {
                #(#attrs)*
                impl #p::Refusal<#index> for #ident {
                    type Dyn = dyn #p::refusals::#name<#(#params),*>;
                }
            })
        })
        .collect()
}
