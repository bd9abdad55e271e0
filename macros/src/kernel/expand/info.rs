//! The kernel's launch rules as a const, for `launch!`'s compile-time checks and the runtime's.

use std::fmt::Write as _;

use crate::code::Code;

use chevron_cuda_rules::fit::{
    BlockBound, CooperativeUse, Fact, InfoText, KernelInfo, Messages, Rule,
};

/// The kernel's launch rules for `launch!`'s compile-time checks and the runtime's: the value
/// of `TypedKernel::INFO`, as source text (`pt`: the path of `chevron::__private`).
pub fn info_value(
    pt: &str,
    info: Option<&InfoText>,
    no_upstream_reads: bool,
    cooperative: CooperativeUse,
) -> String {
    // Only the fields that differ from `KernelInfo::UNKNOWN`, the rest from it: fewer tokens
    // for rustc to check in every declaration.
    let mut out = format!("{pt}::KernelInfo {{ ");
    if no_upstream_reads {
        out.push_str("no_upstream_reads: true, ");
    }
    match cooperative {
        CooperativeUse::ByPtx => {}
        CooperativeUse::Optional => {
            let _ = write!(out, "cooperative: {pt}::CooperativeUse::Optional, ");
        }
        CooperativeUse::CoResident => {
            let _ = write!(out, "cooperative: {pt}::CooperativeUse::CoResident, ");
        }
    }
    if let Some(text) = info {
        let i = &text.info;
        out.push_str("known: true, ");
        for (name, d) in [
            ("reqntid", i.reqntid),
            ("maxntid", i.maxntid),
            ("cluster", i.cluster),
        ] {
            if let Some([x, y, z]) = d {
                let _ = write!(out, "{name}: {pt}::Some([{x}u32, {y}u32, {z}u32]), ");
            }
        }
        if let Some(r) = i.max_cluster_rank {
            let _ = write!(out, "max_cluster_rank: {pt}::Some({r}u32), ");
        }
        if i.explicit_cluster {
            out.push_str("explicit_cluster: true, ");
        }
        if i.blocks_are_clusters {
            out.push_str("blocks_are_clusters: true, ");
        }
        for (name, f) in [
            ("waits", i.waits),
            ("triggers", i.triggers),
            ("grid_sync", i.grid_sync),
        ] {
            let f = match f {
                Fact::Yes => "Yes",
                Fact::No => "No",
                Fact::Unknown => continue,
            };
            let _ = write!(out, "{name}: {pt}::Fact::{f}, ");
        }
        // The messages written, by field (`Messages::field_name`), the others empty.
        let mut texts = text
            .messages
            .iter()
            .enumerate()
            .filter(|(_, t)| !t.is_empty())
            .peekable();
        if texts.peek().is_some() {
            let _ = write!(out, "messages: {pt}::Messages {{ ");
            for (i, t) in texts {
                let _ = write!(out, "{}: {t:?}, ", Messages::field_name(i));
            }
            let _ = write!(out, "..{pt}::Messages::NONE }}, ");
        }
    }
    let _ = write!(out, "..{pt}::KernelInfo::UNKNOWN }}");
    out
}

/// What `launch!` uses for `programmatic_event`: a constant of the kernel's type, deprecated (a
/// warning) when the PTX shows the kernel never triggers its dependents; source text.
pub fn event_lint(info: Option<&InfoText>) -> String {
    let no_trigger = info.and_then(|t| t.no_trigger.as_deref());
    crate::warn::constant(
        crate::warn::NO_TRIGGER,
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
/// (`Rule::for_every_kernel`): most declarations emit nothing. `ty`: the kernel's type, as
/// text.
pub fn refusal_items(
    code: &mut Code,
    pt: &str,
    info: Option<&InfoText>,
    no_upstream_reads: bool,
    cooperative: CooperativeUse,
    ty: &str,
    attrs: &[&syn::Attribute],
) {
    let Some(text) = info else {
        return;
    };
    let kernel = KernelInfo {
        no_upstream_reads,
        cooperative,
        ..text.info
    };
    for &rule in Rule::ALL {
        if text.messages[rule as usize].is_empty() {
            continue;
        }
        let Some((name, params)) = kernel.refusal_trait(rule) else {
            continue;
        };
        code.attrs(attrs);
        let params = params.iter().map(u64::to_string).collect::<Vec<_>>();
        let index = rule as usize;
        code.s(&format!(
            "impl {pt}::Refusal<{index}usize> for {ty} {{ type Dyn = dyn {pt}::refusals::{name}<{}>; }}",
            params.join(", ")
        ));
    }
}

/// The kernel's rules on a launch whose only literal is its block, as source text: the
/// type its `TypedKernel::Literal` names (the runtime's `kernel::literal`), with the items that
/// go with it (for `.reqntid`, the kernel's `CompiledBlock` of that block). `AnyBlock` for a
/// declaration whose PTX is not known. `ty`: the kernel's type, as text.
pub fn literal_block_rules(
    pt: &str,
    info: Option<&InfoText>,
    no_upstream_reads: bool,
    cooperative: CooperativeUse,
    ty: &str,
) -> (String, Vec<String>) {
    let any = format!("{pt}::AnyBlock");
    let Some(text) = info else {
        return (any, Vec::new());
    };
    let kernel = KernelInfo {
        no_upstream_reads,
        cooperative,
        ..text.info
    };
    let rules = kernel.literal_block_rules(|r| !text.messages[r as usize].is_empty());
    // A rule's trait object, with the kernel's numbers.
    let refused = |rule: Rule| {
        kernel.refusal_trait(rule).map(|(name, params)| {
            let params = params.iter().map(u64::to_string).collect::<Vec<_>>();
            format!("dyn {pt}::refusals::{name}<{}>", params.join(", "))
        })
    };
    let constant = rules.constant.and_then(refused);
    let refused_always = |r: String| format!("{pt}::Refused<{r}>");
    match rules.block {
        BlockBound::Exact([a, b, c]) if constant.is_none() => (
            format!("{pt}::Exact"),
            vec![
                format!("impl {pt}::SealedBlock<{a}, {b}, {c}> for {ty} {{}}"),
                format!("impl {pt}::refusals::CompiledBlock<{a}, {b}, {c}> for {ty} {{}}"),
            ],
        ),
        BlockBound::AtMost {
            max: [x, y, z],
            threads,
        } => {
            let accepted = constant.unwrap_or_else(|| ty.to_string());
            let (warps, lanes) = (threads / 32, threads % 32);
            (
                format!("{pt}::AtMost<{accepted}, {x}, {y}, {z}, {threads}, {warps}, {lanes}>"),
                Vec::new(),
            )
        }
        BlockBound::Never => match refused(Rule::Block).or(constant) {
            Some(r) => (refused_always(r), Vec::new()),
            None => (any, Vec::new()),
        },
        BlockBound::Any | BlockBound::Exact(_) => match constant {
            Some(r) => (refused_always(r), Vec::new()),
            None => (any, Vec::new()),
        },
    }
}
