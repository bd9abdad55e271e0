//! Finding a kernel by name among the entries of a PTX module, and the messages when none or
//! several match.

use super::message::{capped_list, LIST_CAP};
use super::Entry;
use crate::cpp::{CppName, Style};

/// Result of looking a kernel up by name with [`find_entry`].
#[derive(Debug)]
pub enum Lookup<'a> {
    /// An entry with exactly this name (e.g. an `extern "C"` kernel, or a mangled symbol).
    Exact(&'a Entry),
    /// The single C++ entry whose demangled name matches (see [`crate::cpp::Signature::matches`]),
    /// or the single one of several whose parameters fit the declaration.
    Mangled(&'a Entry),
    /// Several C++ entries match (overloads or template instances), and the declaration does
    /// not tell them apart.
    Ambiguous(Vec<&'a Entry>),
    /// Several C++ entries match by name, none of them with the declared parameters.
    NoneFits(Vec<&'a Entry>),
    /// No entry matches.
    Missing,
}

/// Why [`resolve_entry`] found no single entry; the message names the candidates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unresolved {
    /// Several C++ entries match: "`scale` matches 2 C++ kernels in `f.ptx`: …; name one with
    /// `name = "…"`".
    Ambiguous(String),
    /// Nothing matches: "no kernel `x` in `f.ptx`; its kernels are: …" (callers add the fix).
    Missing(String),
}

/// [`find_entry`], with the message for a name that does not resolve to one entry. `file` is
/// how messages name the PTX (e.g. `` `kernels/saxpy.ptx` ``).
pub fn resolve_entry<'a>(
    entries: &'a [Entry],
    name: &str,
    file: &str,
) -> Result<&'a Entry, Unresolved> {
    resolve_entry_by(entries, name, file, |_| true)
}

/// [`find_entry_by`], with the messages of [`resolve_entry`]: C++ kernels are listed in the
/// spelling `name` is written in (the source's, `c++filt`'s or the demangler's, see
/// [`Style::of`]), and in `c++filt`'s where that differs.
pub fn resolve_entry_by<'a>(
    entries: &'a [Entry],
    name: &str,
    file: &str,
    fits: impl Fn(&Entry) -> bool,
) -> Result<&'a Entry, Unresolved> {
    let style = Style::of(name);
    let list = |found: &[&Entry]| capped_list(found.iter().map(|e| candidate(e, style)), LIST_CAP);
    match find_entry_by(entries, name, fits) {
        Lookup::Exact(e) | Lookup::Mangled(e) => Ok(e),
        Lookup::Ambiguous(found) => Err(Unresolved::Ambiguous(format!(
            "`{name}` matches {} C++ kernels in {file}: {}; name one with `name = \"{}\"`",
            found.len(),
            list(&found),
            distinguishing_name(&found, style)
        ))),
        Lookup::NoneFits(found) => Err(Unresolved::Ambiguous(format!(
            "`{name}` matches {} C++ kernels in {file}, none of them with the declared \
             parameters: {}; declare the parameters of one of them, or name it with \
             `name = \"{}\"`",
            found.len(),
            list(&found),
            distinguishing_name(&found, style)
        ))),
        Lookup::Missing => {
            // The other instances (or overloads) of the template named, where there are some.
            let family = CppName::parse(name).ok().map(|n| n.family());
            let kin: Vec<&Entry> = match &family {
                Some(f) if f.render(Style::Source) != name.trim() => entries
                    .iter()
                    .filter(|e| e.signature.as_ref().is_some_and(|s| s.matches_name(f)))
                    .collect(),
                _ => Vec::new(),
            };
            Err(Unresolved::Missing(match (kin.is_empty(), &family) {
                (false, Some(f)) => {
                    let hint = CppName::parse(name).ok().and_then(|wanted| {
                        kin.iter().find_map(|e| {
                            let have = e.signature.as_ref()?.cpp_name()?;
                            wanted.enumerator_hint(have)
                        })
                    });
                    format!(
                        "no kernel `{name}` in {file}; the kernels named `{}` are: {}{}",
                        f.render(Style::Source),
                        list(&kin),
                        hint.map(|h| format!(" ({h})")).unwrap_or_default()
                    )
                }
                _ => format!(
                    "no kernel `{name}` in {file}; its kernels are: {}",
                    list(&closest_first(entries, name, style))
                ),
            }))
        }
    }
}

/// An entry for a list of candidates: `` `tu<128>(unsigned int*)` `` in `style`, and
/// `` (c++filt: `tu<128u>(unsigned int*)`) `` where `c++filt` spells it otherwise.
fn candidate(e: &Entry, style: Style) -> String {
    let Some(sig) = &e.signature else {
        return format!("`{}`", e.name);
    };
    let shown = sig.render(style);
    let filt = sig.render(Style::CxxFilt);
    if shown == filt {
        format!("`{shown}`")
    } else {
        format!("`{shown}` (c++filt: `{filt}`)")
    }
}

/// The shortest name that picks `found[0]` among `found`, in `style` where one does: its name
/// with template arguments, else its whole signature (overloads), else `c++filt`'s spelling
/// (which keeps the compiler's internal namespaces), else its symbol.
fn distinguishing_name(found: &[&Entry], style: Style) -> String {
    let Some(first) = found.first() else {
        return String::new();
    };
    let Some(sig) = &first.signature else {
        return first.name.clone();
    };
    let tries = [
        sig.render_name(style),
        sig.render(style),
        sig.render_name(Style::CxxFilt),
        sig.render(Style::CxxFilt),
    ];
    let picks_first = |spelling: &String| {
        CppName::parse(spelling).is_ok_and(|wanted| {
            found.iter().enumerate().all(|(i, e)| {
                let hit = e
                    .signature
                    .as_ref()
                    .is_some_and(|s| s.matches_name(&wanted));
                hit == (i == 0)
            })
        })
    };
    tries
        .iter()
        .find(|t| picks_first(t))
        .cloned()
        .unwrap_or_else(|| first.name.clone())
}

/// The entries in file order; when there are more than a message shows, those most like
/// `name` first (containing it or contained in it, then by common prefix), so that the one
/// meant is among those shown.
fn closest_first<'a>(entries: &'a [Entry], name: &str, style: Style) -> Vec<&'a Entry> {
    let mut sorted: Vec<&Entry> = entries.iter().collect();
    if sorted.len() > LIST_CAP {
        let prefix = |n: &str| {
            n.bytes()
                .zip(name.bytes())
                .take_while(|(a, b)| a == b)
                .count()
        };
        sorted.sort_by_cached_key(|e| {
            let n = match &e.signature {
                Some(sig) => sig.render(style),
                None => e.name.clone(),
            };
            let contains = n.contains(name) || name.contains(n.as_str());
            std::cmp::Reverse((contains, prefix(&n)))
        });
    }
    sorted
}

/// Finds the entry named `name` exactly, or, failing that, the C++ entries whose demangled
/// name matches it ([`crate::cpp::Signature::matches`]: `softmax_kernel<128>`, `softmax_kernel`,
/// `scale(float*, int)`, `tu<128u>`, …).
pub fn find_entry<'a>(entries: &'a [Entry], name: &str) -> Lookup<'a> {
    find_entry_by(entries, name, |_| true)
}

/// [`find_entry`]; where several C++ entries match, those `fits` keeps (the declared
/// parameters: their count, and the types their spelling shows) decide between them.
pub fn find_entry_by<'a>(
    entries: &'a [Entry],
    name: &str,
    fits: impl Fn(&Entry) -> bool,
) -> Lookup<'a> {
    if let Some(e) = entries.iter().find(|e| e.name == name) {
        return Lookup::Exact(e);
    }
    let found = matching(entries, name);
    match found.len() {
        0 => Lookup::Missing,
        1 => Lookup::Mangled(found[0]),
        _ => {
            let fitting: Vec<&Entry> = found.iter().copied().filter(|e| fits(e)).collect();
            match fitting.len() {
                0 => Lookup::NoneFits(found),
                1 => Lookup::Mangled(fitting[0]),
                _ => Lookup::Ambiguous(fitting),
            }
        }
    }
}

/// Every entry that `spelling` names, in file order: the entry of that exact symbol, or the
/// C++ entries whose names match it as parsed C++ names ([`CppName::matches`]: the source's,
/// `c++filt`'s or the demangler's spelling of a template instance, with or without the
/// compiler's internal namespaces, optionally with parameter types). More than one where the
/// spelling does not tell them apart. `Err` says why `spelling` is not a C++ name: `tu<128>`,
/// `tu<128u>`, `tu<(unsigned int)128>` and `tu` all name `_Z2tuILj128EEvPj`.
pub fn match_entries<'a>(entries: &'a [Entry], spelling: &str) -> Result<Vec<&'a Entry>, String> {
    if let Some(e) = entries.iter().find(|e| e.name == spelling) {
        return Ok(vec![e]);
    }
    let wanted = CppName::parse(spelling)?;
    Ok(entries
        .iter()
        .filter(|e| match &e.signature {
            Some(sig) => sig.matches_name(&wanted),
            None => e.name.starts_with(&legacy_prefix(spelling)),
        })
        .collect())
}

/// The C++ entries `name` matches, the name parsed once; a name the parser does not read is
/// compared as text ([`crate::cpp::Signature::matches`]).
fn matching<'a>(entries: &'a [Entry], name: &str) -> Vec<&'a Entry> {
    let wanted = CppName::parse(name).ok();
    // Symbols the demangler does not read keep the rule of old: `_Z<len><name>…`.
    let prefix = legacy_prefix(name);
    entries
        .iter()
        .filter(|e| match (&e.signature, &wanted) {
            (Some(sig), Some(w)) => sig.matches_name(w),
            (Some(sig), None) => sig.matches(name),
            (None, _) => e.name.starts_with(&prefix),
        })
        .collect()
}

fn legacy_prefix(name: &str) -> String {
    format!("_Z{}{}", name.len(), name)
}
