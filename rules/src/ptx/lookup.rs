//! Finding a kernel by name among the entries of a PTX module, and the messages when none or
//! several match.

use super::message::{name_list, LIST_CAP};
use super::Entry;

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

/// [`find_entry_by`], with the messages of [`resolve_entry`]: C++ kernels are listed by their
/// demangled signatures.
pub fn resolve_entry_by<'a>(
    entries: &'a [Entry],
    name: &str,
    file: &str,
    fits: impl Fn(&Entry) -> bool,
) -> Result<&'a Entry, Unresolved> {
    let signatures = |found: &[&Entry]| {
        name_list(
            found
                .iter()
                .map(|e| e.display_name())
                .collect::<Vec<_>>()
                .iter()
                .map(String::as_str),
        )
    };
    match find_entry_by(entries, name, fits) {
        Lookup::Exact(e) | Lookup::Mangled(e) => Ok(e),
        Lookup::Ambiguous(found) => Err(Unresolved::Ambiguous(format!(
            "`{name}` matches {} C++ kernels in {file}: {}; name one with `name = \"{}\"`",
            found.len(),
            signatures(&found),
            distinguishing_name(&found)
        ))),
        Lookup::NoneFits(found) => Err(Unresolved::Ambiguous(format!(
            "`{name}` matches {} C++ kernels in {file}, none of them with the declared \
             parameters: {}; declare the parameters of one of them, or name it with \
             `name = \"{}\"`",
            found.len(),
            signatures(&found),
            distinguishing_name(&found)
        ))),
        Lookup::Missing => Err(Unresolved::Missing(format!(
            "no kernel `{name}` in {file}; its kernels are: {}",
            name_list(closest_first(entries, name).iter().map(String::as_str))
        ))),
    }
}

/// The shortest name that picks `found[0]` among `found`: its name with template arguments
/// where that differs from the others', else its whole signature (overloads).
fn distinguishing_name(found: &[&Entry]) -> String {
    let Some(first) = found.first() else {
        return String::new();
    };
    let Some(sig) = &first.signature else {
        return first.name.clone();
    };
    let unique = found[1..]
        .iter()
        .all(|e| e.signature.as_ref().is_none_or(|s| s.name != sig.name));
    if unique {
        sig.name.clone()
    } else {
        sig.text()
    }
}

/// The entries' names (demangled signatures for C++) in file order; when there are more than a
/// message shows, those most like `name` first (containing it or contained in it, then by
/// common prefix), so that the one meant is among those shown.
fn closest_first(entries: &[Entry], name: &str) -> Vec<String> {
    let mut names: Vec<String> = entries.iter().map(Entry::display_name).collect();
    if names.len() > LIST_CAP {
        let prefix = |n: &str| {
            n.bytes()
                .zip(name.bytes())
                .take_while(|(a, b)| a == b)
                .count()
        };
        names.sort_by_key(|n| {
            let contains = n.contains(name) || name.contains(n.as_str());
            std::cmp::Reverse((contains, prefix(n)))
        });
    }
    names
}

/// Finds the entry named `name` exactly, or, failing that, the C++ entries whose demangled
/// name matches it ([`crate::cpp::Signature::matches`]: `softmax_kernel<128>`, `softmax_kernel`,
/// `scale(float*, int)`, …).
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
    // Symbols the demangler does not read keep the rule of old: `_Z<len><name>…`.
    let prefix = format!("_Z{}{}", name.len(), name);
    let found: Vec<&Entry> = entries
        .iter()
        .filter(|e| match &e.signature {
            Some(sig) => sig.matches(name),
            None => e.name.starts_with(&prefix),
        })
        .collect();
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
