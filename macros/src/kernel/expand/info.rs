//! The kernel's launch rules as a const, for `launch!`'s compile-time checks and the runtime's.

use std::fmt::Write as _;

use crate::code::Code;

use chevron_cuda_rules::fit::{BlockBound, CooperativeUse, InfoText, KernelInfo, Rule, MESSAGES};

/// The kernel's launch rules for `launch!`'s compile-time checks and the runtime's: the value
/// of `TypedKernel::INFO`, as source text (`pt`: the path of `chevron::__private`).
pub fn info_value(
    pt: &str,
    info: Option<&InfoText>,
    no_upstream_reads: bool,
    cooperative: CooperativeUse,
) -> String {
    let kernel = declared(info, no_upstream_reads, cooperative);
    let bits = kernel.fact_bits();
    let empty = [String::new()];
    let texts = info.map_or(&empty[..], |t| &t.messages[..]);
    if bits == 0 && texts.iter().all(String::is_empty) {
        return format!("{pt}::KernelInfo::UNKNOWN");
    }
    // The flags, facts and messages in one call of plain arguments (`KernelInfo::from_facts`),
    // which rustc checks in every declaration at less cost than a struct expression.
    let mut out = format!("{pt}::KernelInfo::from_facts({bits}u32, [");
    for k in 0..MESSAGES {
        let text = texts.get(k).map_or("", String::as_str);
        let _ = write!(out, "{text:?}, ");
    }
    out.push_str("])");
    // The block and cluster directives, where there are any, over it.
    let mut fields = String::new();
    for (name, d) in [
        ("reqntid", kernel.reqntid),
        ("maxntid", kernel.maxntid),
        ("cluster", kernel.cluster),
    ] {
        if let Some([x, y, z]) = d {
            let _ = write!(fields, "{name}: {pt}::Some([{x}u32, {y}u32, {z}u32]), ");
        }
    }
    if let Some(r) = kernel.max_cluster_rank {
        let _ = write!(fields, "max_cluster_rank: {pt}::Some({r}u32), ");
    }
    if fields.is_empty() {
        out
    } else {
        format!("{pt}::KernelInfo {{ {fields}..{out} }}")
    }
}

/// The kernel's info as declared: the PTX's (`UNKNOWN` where it is not known) with the
/// declaration's `pdl` and `cooperative` options.
fn declared(
    info: Option<&InfoText>,
    no_upstream_reads: bool,
    cooperative: CooperativeUse,
) -> KernelInfo {
    KernelInfo {
        no_upstream_reads,
        cooperative,
        ..info.map_or(KernelInfo::UNKNOWN, |t| t.info)
    }
}

/// The trait object that words `kernel`'s refusal of `rule`, with its numbers, as source text
/// (`dyn …::refusals::BlockWithin<256, 1, 1, 256>`); `None` where no launch can break it or the
/// runtime words it for every kernel.
fn refusal_dyn(pt: &str, kernel: &KernelInfo, rule: Rule) -> Option<String> {
    kernel.refusal_trait(rule).map(|(name, params)| {
        let params = params.iter().map(u64::to_string).collect::<Vec<_>>();
        format!("dyn {pt}::refusals::{name}<{}>", params.join(", "))
    })
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
    let kernel = declared(info, no_upstream_reads, cooperative);
    for &rule in Rule::ALL {
        if text.messages[rule as usize].is_empty() {
            continue;
        }
        let Some(refused) = refusal_dyn(pt, &kernel, rule) else {
            continue;
        };
        code.attrs(attrs);
        let index = rule as usize;
        code.s(&format!(
            "impl {pt}::Refusal<{index}usize> for {ty} {{ type Dyn = {refused}; }}"
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
    let kernel = declared(info, no_upstream_reads, cooperative);
    let rules = kernel.literal_block_rules(|r| !text.messages[r as usize].is_empty());
    let refused = |rule: Rule| refusal_dyn(pt, &kernel, rule);
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
                format!(
                    "{pt}::AtMost<{accepted}, {x}, {y}, {z}, {threads}, {pt}::N{warps}, \
                     {pt}::N{lanes}>"
                ),
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
