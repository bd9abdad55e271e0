//! `ptx = ["k_sm75.ptx", "k_sm90.ptx"]`: every variant after the first is checked like the first
//! (the same entry, the same signature), and the whole set against the CUDA version the
//! selected `cuda-XXXXX` feature builds for: PTX whose ISA that driver cannot compile is an
//! error when no variant can run there. The launch rules are every variant's: `launch!` checks
//! what all of them accept ([`chevron_cuda_rules::fit::combine`]), the runtime the variant it
//! loaded.

use chevron_cuda_rules::fit::{self, InfoText};
use chevron_cuda_rules::target::{self, Version};
use syn::LitStr;

use crate::kernel::ast::{KernelArgs, KernelItem, KernelParam, SourceArg, SourceKind};
use crate::kernel::source;
use crate::report::Errors;

/// Checks the variants after the first (`first_entry` is the entry the first resolved to);
/// their absolute paths and texts, or `None` when one is wrong (reported).
pub fn check_variants(
    args: &KernelArgs,
    item: &KernelItem,
    first_entry: &str,
    params: &mut [KernelParam],
    resolve: impl Fn(&str) -> std::path::PathBuf,
    cx: &mut Errors,
) -> Option<Vec<(String, String)>> {
    let source = args.source.as_ref()?;
    let mut out = Vec::new();
    let mut ok = true;
    for lit in &source.variants {
        let Some((abs, text)) = read(lit, &resolve, cx) else {
            ok = false;
            continue;
        };
        // The first variant's checks, on this one, with errors at its path.
        let mut one = args.clone();
        one.source = Some(SourceArg {
            kind: SourceKind::Ptx,
            path: lit.clone(),
            variants: Vec::new(),
        });
        match super::check_ptx(&one, item, &abs, &text, params, cx) {
            Some(entry) if entry == first_entry => {}
            Some(entry) => {
                ok = false;
                cx.error(
                    lit.span(),
                    format!(
                        "the variants of one kernel must have the same entry: `{}` is `{entry}` \
                         in `{}` but `{first_entry}` in `{}`; give `name = \"…\"`",
                        item.sig.ident,
                        lit.value(),
                        source.path.value()
                    ),
                );
            }
            None => ok = false,
        }
        out.push((abs.to_string_lossy().into_owned(), text));
    }
    ok.then_some(out)
}

fn read(
    lit: &LitStr,
    resolve: &impl Fn(&str) -> std::path::PathBuf,
    cx: &mut Errors,
) -> Option<(std::path::PathBuf, String)> {
    let rel = lit.value();
    if rel.is_empty() {
        return None;
    }
    let abs = resolve(&rel);
    match source::read_source(&abs) {
        Ok(text) => Some((abs, text)),
        Err(e) => {
            cx.error(lit.span(), e.message(&rel, &abs));
            None
        }
    }
}

/// An error when no variant's PTX ISA can be compiled by a driver of the CUDA version the
/// feature selects (`cuda`, as `12040`): the program is built for such drivers, and would fail
/// on every one of them when the kernel loads. Variants whose `.version` is not readable, or
/// newer than chevron's table, are not held against the build.
pub fn check_isa(variants: &[(&LitStr, &str)], cuda: u32, cx: &mut Errors) {
    let driver = Version::from_cuda(cuda);
    let mut needs = Vec::new();
    for (lit, text) in variants {
        let Some(header) = target::header(text) else {
            return;
        };
        match header.isa.needs_cuda() {
            Some(v) if v > driver => needs.push((*lit, header.isa, v)),
            _ => return,
        }
    }
    let Some((lit, isa, v)) = needs.into_iter().min_by_key(|(_, _, v)| *v) else {
        return;
    };
    cx.error(
        lit.span(),
        format!(
            "PTX ISA {isa} needs a CUDA {v} driver; this build is for {driver} drivers (feature \
             {}): compile with an older nvcc, lower the PTX's `.version` where its code allows \
             (see kernels/build.sh), or use `cuda = …`{}",
            driver.feature(),
            v.feature_at_least().map_or(String::new(), |f| format!(
                "; or build for newer drivers with feature `{f}`"
            ))
        ),
    );
}

/// The launch rules of every variant (`all`: each variant's path literal and text, the first
/// included; `more`: the absolute paths of those after the first, as read), combined into what
/// every variant accepts (for `launch!`), and each variant's own within that (for the runtime,
/// in `all`'s order). `first` is the first variant's info; `None` (reported at the first path)
/// when no launch fits every variant, or an info could not be read.
#[allow(clippy::type_complexity)]
pub fn combine_infos(
    args: &KernelArgs,
    item: &KernelItem,
    all: &[(&LitStr, &str)],
    more: &[(String, String)],
    first: Option<InfoText>,
    entry: &str,
    cx: &mut Errors,
) -> Option<(Option<InfoText>, Vec<InfoText>)> {
    let mut infos = vec![first?];
    for ((lit, text), (abs, _)) in all[1..].iter().zip(more) {
        let abs = std::path::Path::new(abs);
        infos.push(super::launch_info(
            args,
            item,
            &lit.value(),
            abs,
            text,
            entry,
        )?);
    }
    let files: Vec<String> = all.iter().map(|(lit, _)| lit.value()).collect();
    let variants: Vec<fit::Variant<'_>> =
        files.iter().map(String::as_str).zip(infos.iter()).collect();
    match fit::combine(&variants) {
        Ok(combined) => {
            let own = infos.into_iter().map(|i| i.within(&combined)).collect();
            Some((Some(combined), own))
        }
        Err(why) => {
            cx.error(
                all[0].0.span(),
                format!(
                    "the variants of `{}` cannot be launched alike: {why}; a launch is checked \
                     against every variant, since which one loads depends on the GPU",
                    item.sig.ident
                ),
            );
            None
        }
    }
}
