//! The signature against the PTX entry: the count, each parameter's place, and the words of
//! the assertions the expansion makes.

use chevron_cuda_rules::param::ParamWords;
use chevron_cuda_rules::ptx::{self, Entry, Unresolved};

use crate::kernel::ast::{kernel_name, KernelArgs, KernelItem, KernelParam, PtxParam};
use crate::kernel::source;
use crate::report::Errors;
use std::path::Path;

use super::types::spelled_fits;

/// The PTX side: finds the entry and checks every parameter against it. Returns the entry's
/// symbol.
pub(crate) fn check_ptx(
    args: &KernelArgs,
    item: &KernelItem,
    abs: &Path,
    text: &str,
    params: &mut [KernelParam],
    cx: &mut Errors,
) -> Option<String> {
    let source = args.source.as_ref()?;
    let (lit, rel) = (&source.path, source.path.value());
    if !source::plainly_ptx(abs, text, || not_ptx(&rel, text).is_none()) {
        if let Some(why) = not_ptx(&rel, text) {
            cx.error(lit.span(), why);
            return None;
        }
    }
    let parsed = source::parse_ptx(abs, text);
    let entries = match &*parsed {
        Ok(entries) => entries,
        Err(e) => {
            cx.error(lit.span(), format!("cannot read the PTX in `{rel}`: {e}"));
            return None;
        }
    };
    let entry = find_entry(args, item, entries, &format!("`{rel}`"), params, cx)?;
    check_entry(
        item,
        entry,
        (&rel, lit.span()),
        (Some(abs), text),
        params,
        cx,
    )
}

/// The entry the declaration names among `entries` (of the PTX `file`, as messages name it);
/// `None` when it is missing or ambiguous (reported).
pub(crate) fn find_entry<'e>(
    args: &KernelArgs,
    item: &KernelItem,
    entries: &'e [Entry],
    file: &str,
    params: &[KernelParam],
    cx: &mut Errors,
) -> Option<&'e Entry> {
    let (wanted, name_span) = match &args.name {
        Some(n) => (n.value(), n.span()),
        None => (kernel_name(&item.sig.ident), item.sig.ident.span()),
    };
    // Overloads and template instances are told apart by the declared parameters: their
    // count, and the C++ types their spelling shows.
    let fits = |e: &Entry| {
        let Some(sig) = &e.signature else {
            return false;
        };
        let types = sig.types();
        types.len() == params.len()
            && e.params.len() == params.len()
            && params
                .iter()
                .zip(&types)
                .all(|(q, cpp)| q.spelled.is_none_or(|s| spelled_fits(s, *cpp)))
    };
    match ptx::resolve_entry_by(entries, &wanted, file, fits) {
        Ok(e) => Some(e),
        Err(Unresolved::Ambiguous(message)) => {
            cx.error(name_span, message);
            None
        }
        Err(Unresolved::Missing(message)) => {
            let fix = if args.name.is_some() {
                "use one of these names (a C++ kernel by its name, with or without template \
                 arguments and parameter types)"
            } else {
                "rename the function, or give the symbol with `name = \"…\"`"
            };
            cx.error(name_span, format!("{message}; {fix}"));
            None
        }
    }
}

/// Checks every declared parameter against `entry` (of the PTX text `text`, read from `abs` where
/// it is a file, which messages name `rel`; `at` is where a refusal of the whole entry goes): the
/// count here, and the words of the assertions the expansion makes. Returns the entry's symbol,
/// or `None` when the counts differ (reported).
pub(crate) fn check_entry(
    item: &KernelItem,
    entry: &Entry,
    (rel, at): (&str, proc_macro2::Span),
    (abs, text): (Option<&Path>, &str),
    params: &mut [KernelParam],
    cx: &mut Errors,
) -> Option<String> {
    let decl = &item.sig.ident;
    // The driver's own limit: bytes, not a count (nvcc makes no larger entry; a hand-written
    // PTX may).
    if let Some(why) = chevron_cuda_rules::limits::param_bytes_violation(
        &entry.display_name(),
        entry.param_bytes(),
    ) {
        cx.error(at, format!("{why} ({rel}:{})", entry.line));
        return None;
    }
    let n = (params.len(), entry.params.len());
    if n.0 != n.1 {
        let summary = format!(
            "the PTX entry `{}` ({rel}:{}) has {}",
            entry.name,
            entry.line,
            count(n.1, "parameter")
        );
        let ptx_text = |p: &ptx::Param| format!("`{}`", p.text.trim_end_matches(','));
        if n.0 < n.1 {
            let missing = match align(params, &entry.params) {
                Some(gaps) => ptx::capped_list(
                    gaps.into_iter().map(|(j, after)| {
                        let p = &entry.params[j];
                        let place =
                            match (after.checked_sub(1).map(|k| &params[k]), params.get(after)) {
                                (None, Some(next)) => format!(", before `{}`", next.ident),
                                (Some(prev), None) => format!(", after `{}`", prev.ident),
                                (Some(prev), Some(next)) => {
                                    format!(", between `{}` and `{}`", prev.ident, next.ident)
                                }
                                (None, None) => String::new(),
                            };
                        format!("{} ({}{place})", ptx_text(p), p.describe())
                    }),
                    MISSING_CAP,
                ),
                None => ptx::capped_list(
                    entry.params[n.0..]
                        .iter()
                        .map(|p| format!("{} ({})", ptx_text(p), p.describe())),
                    MISSING_CAP,
                ),
            };
            cx.error(
                decl.span(),
                format!(
                    "`{decl}` declares {}, but {summary}; missing: {missing}",
                    count(n.0, "parameter")
                ),
            );
        } else {
            let extra = item.sig.inputs.iter().nth(n.1);
            let ptx_list = ptx::capped_list(entry.params.iter().map(ptx_text), MISSING_CAP);
            cx.push(syn::Error::new_spanned(
                quote::quote!(#extra),
                format!(
                    "`{decl}` declares {}, but {summary}{}; remove the extra one{}",
                    count(n.0, "parameter"),
                    if n.1 == 0 {
                        String::new()
                    } else {
                        format!(": {ptx_list}")
                    },
                    if n.0 - n.1 == 1 { "" } else { "s" }
                ),
            ));
        }
        return None;
    }
    // Whether each type fits is asserted in the expansion, where rustc has resolved it. The
    // words quote stores by line: through the file's line index, built once per file.
    match abs.and_then(|abs| source::line_index(abs, text)) {
        Some(index) => ptx::with_index(text, &index, || {
            record_params(entry, rel, text, params);
        }),
        None => record_params(entry, rel, text, params),
    }
    Some(entry.name.clone())
}

/// Records on each declared parameter the PTX parameter in its place and the words of its
/// assertion.
fn record_params(entry: &Entry, rel: &str, text: &str, params: &mut [KernelParam]) {
    for (k, (param, ptx_param)) in params.iter_mut().zip(&entry.params).enumerate() {
        let words = ParamWords::of(entry, k, rel, text, &param.ty_text);
        let same = |q: &PtxParam| {
            q.ty == ptx_param.ty
                && q.array_len == ptx_param.array_len
                && q.words.facts == words.facts
        };
        if param.ptx.iter().any(same) {
            // A variant of `ptx = [...]` with the same parameter and C++ facts: asserted once.
            continue;
        }
        param.ptx.push(PtxParam {
            ty: ptx_param.ty,
            array_len: ptx_param.array_len,
            words,
        });
    }
}

/// How many PTX parameters a message lists before "and N more".
const MISSING_CAP: usize = 8;

/// "1 parameter", "3 parameters".
fn count(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

/// Which PTX parameters a declaration with fewer parameters left out: each declared parameter
/// takes the first PTX parameter, in order, that it fits, as long as the rest still have room.
/// `(index of the PTX parameter, how many declared parameters come before it)` per gap, or
/// `None` when the declared types do not line up with any such choice.
fn align(params: &[KernelParam], ptx: &[ptx::Param]) -> Option<Vec<(usize, usize)>> {
    let mut gaps = Vec::new();
    let mut i = 0;
    for (j, p) in ptx.iter().enumerate() {
        let must_take = ptx.len() - j == params.len() - i;
        // By the spelling: a type the macro cannot read (an alias) may be anything.
        let fits = params.get(i).is_some_and(|q| {
            q.hint
                .is_none_or(|e| chevron_cuda_rules::param::fits(e, p.ty, p.array_len))
        });
        if fits {
            i += 1;
        } else if must_take {
            return None;
        } else {
            gaps.push((j, i));
        }
    }
    (i == params.len()).then_some(gaps)
}

/// Why a file given as `ptx = "…"` is not PTX, if it plainly is not: CUDA C, or text without
/// the `.version` directive every PTX module begins with.
fn not_ptx(rel: &str, text: &str) -> Option<String> {
    if text.starts_with('\u{FEFF}') {
        // PTX behind a byte order mark: the reader's error names the mark.
        return None;
    }
    if text.contains('\0') {
        return Some(format!("`{rel}` contains a NUL byte: it is not PTX text"));
    }
    let has_version = text
        .split(['\n', '\r'])
        .any(|l| l.trim_start().starts_with(".version"));
    if has_version {
        return None;
    }
    let ext = Path::new(rel)
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("");
    let cuda_ext = ["cu", "cuh", "cpp", "cc", "cxx", "c", "h", "hpp"].contains(&ext);
    if cuda_ext || text.contains("__global__") {
        let stem = Path::new(rel).with_extension("ptx");
        return Some(format!(
            "`{rel}` is CUDA C, not PTX: write `cuda = \"{rel}\"` to compile it with NVRTC at \
             run time, or compile it with `nvcc -ptx -arch=sm_90 {rel} -o {}` and give the \
             `.ptx` file",
            stem.display()
        ));
    }
    Some(format!(
        "`{rel}` is not PTX: it has no `.version` directive (PTX from `nvcc -ptx` begins \
         with `.version` and `.target`)"
    ))
}
