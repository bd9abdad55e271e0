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

/// The kernel's `LiteralBlock` impl (the runtime's `kernel::literal`), as source text items:
/// what `&KERNEL` coerces to in a launch whose only literal is its block, for any block
/// `(X, Y, Z)` of `32·W + L` threads: the kernel where its rules accept the launch, else the
/// trait object of the refusal's trait (the kernel with no rules for a declaration whose PTX
/// is not known). For `.reqntid`, also the kernel's `CompiledBlock` of that block. `ty`: the
/// kernel's type, as text.
pub fn literal_block_items(
    pt: &str,
    info: Option<&InfoText>,
    no_upstream_reads: bool,
    cooperative: CooperativeUse,
    ty: &str,
) -> Vec<String> {
    let generics = "impl<const X: u32, const Y: u32, const Z: u32, const W: u32, const L: u32>";
    let head = format!("{generics} {pt}::LiteralBlock<X, Y, Z, W, L> for {ty}");
    let Some(text) = info else {
        return vec![format!("{head} {{ type Dyn = {ty}; }}")];
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
    let accepted = rules
        .constant
        .and_then(refused)
        .unwrap_or_else(|| ty.to_string());
    let mut items = Vec::new();
    let item = match rules.block {
        BlockBound::Exact([a, b, c]) if rules.constant.is_none() => {
            items.push(format!(
                "impl {pt}::SealedBlock<{a}, {b}, {c}> for {ty} {{}}"
            ));
            items.push(format!(
                "impl {pt}::refusals::CompiledBlock<{a}, {b}, {c}> for {ty} {{}}"
            ));
            format!("{head} {{ type Dyn = dyn {pt}::refusals::CompiledBlock<X, Y, Z>; }}")
        }
        BlockBound::AtMost { threads, .. } => match refused(Rule::Block) {
            Some(over) => {
                let (warps, lanes) = (threads / 32, threads % 32);
                let pair =
                    format!("(<{pt}::Warps<W> as {pt}::Compare<{warps}>>::Out, {pt}::Warps<L>)");
                let fit = format!("{pt}::ThreadsFit<{accepted}, {over}, {lanes}>");
                format!(
                    "{head} where {pt}::Warps<W>: {pt}::Compare<{warps}>, {pair}: {fit} \
                     {{ type Dyn = <{pair} as {fit}>::Dyn; }}"
                )
            }
            None => format!("{head} {{ type Dyn = {accepted}; }}"),
        },
        BlockBound::Never => {
            let never = refused(Rule::Block).unwrap_or(accepted);
            format!("{head} {{ type Dyn = {never}; }}")
        }
        BlockBound::Any | BlockBound::Exact(_) => format!("{head} {{ type Dyn = {accepted}; }}"),
    };
    items.push(item);
    items
}
