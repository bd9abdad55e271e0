//! A kernel symbol demangled: its name, parameter spellings, and matching `name = "…"` against it.

use super::name::{CppName, Style};
use super::spelling::{compact, parse_type, same_type};
use super::CppParam;

/// A demangled kernel symbol.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature {
    /// The qualified name with its template arguments: `softmax_kernel<128>`, `ns::scale`.
    pub name: String,
    /// The parameter types as the demangler spells them: `float*`, `float const*`, `int`.
    pub params: Vec<String>,
    /// The name and parameters parsed, read once: `None` where the parser cannot take the
    /// demangler's text apart (then [`Signature::matches`] compares text).
    parsed: Option<CppName>,
}

impl Signature {
    /// `softmax_kernel<128>(float*, float const*, int)`.
    pub fn text(&self) -> String {
        format!("{}({})", self.name, self.params.join(", "))
    }

    /// The name without its template arguments: `softmax_kernel`.
    pub fn base(&self) -> &str {
        match top_level(&self.name, '<') {
            Some(at) => &self.name[..at],
            None => &self.name,
        }
    }

    /// [`Self::base`] without its scopes: `reduce4` of `ns::reduce4<int, 512>`.
    pub fn unqualified_base(&self) -> &str {
        last_component(self.base())
    }

    /// The scopes before the name: `ns::detail` of `ns::detail::f<int>`; empty at the top level.
    pub fn scopes(&self) -> &str {
        let base = self.base();
        base[..base.len() - last_component(base).len()].trim_end_matches(':')
    }

    /// Each parameter's type, for the checks.
    pub fn types(&self) -> Vec<CppParam> {
        self.params.iter().map(|p| parse_type(p)).collect()
    }

    /// The name and parameters parsed.
    pub fn cpp_name(&self) -> Option<&CppName> {
        self.parsed.as_ref()
    }

    /// The name (without parameters) in `style`: `reduce4<int, 512u>` for [`Style::CxxFilt`],
    /// `reduce4<int, 512>` for [`Style::Source`].
    pub fn render_name(&self, style: Style) -> String {
        match &self.parsed {
            Some(n) => n.without_params().render(style),
            None => self.name.clone(),
        }
    }

    /// The whole signature in `style`: `reduce4<int, 512u>(int const*, int*, int)` for
    /// [`Style::CxxFilt`].
    pub fn render(&self, style: Style) -> String {
        match &self.parsed {
            Some(n) => n.render(style),
            None => self.text(),
        }
    }

    /// Whether `wanted` names this kernel: its name with or without template arguments
    /// (`softmax_kernel<128>`, `softmax_kernel`), qualified or by its last components (`scale`
    /// for `ns::scale`), optionally with a parameter list that must be the same types
    /// (`scale(float*, int)`, `scale(const float *, int)`; a name the symbol does not spell,
    /// such as a typedef, stands for any type). The arguments are compared parsed, as
    /// [`CppName::matches`] says: `tu<128>`, `tu<128u>` and `tu<(unsigned int)128>` are one
    /// name, `tread<const float>` and `tread<float const>` another, the compiler's internal
    /// namespaces are skipped. Whitespace does not matter, nor does a leading return type
    /// `void`.
    pub fn matches(&self, wanted: &str) -> bool {
        match (CppName::parse(wanted), &self.parsed) {
            (Ok(w), Some(have)) => w.matches(have),
            _ => self.matches_text(wanted),
        }
    }

    /// [`Signature::matches`] with `wanted` already parsed.
    pub fn matches_name(&self, wanted: &CppName) -> bool {
        match &self.parsed {
            Some(have) => wanted.matches(have),
            None => self.matches_text(&wanted.render(Style::Demangler)),
        }
    }

    /// Names compared as text, for a spelling the parser does not read.
    fn matches_text(&self, wanted: &str) -> bool {
        let wanted = wanted.trim();
        let wanted = wanted.strip_prefix("void ").unwrap_or(wanted).trim();
        let (name, params) = match top_level(wanted, '(') {
            Some(open) if wanted.ends_with(')') => {
                (&wanted[..open], Some(&wanted[open + 1..wanted.len() - 1]))
            }
            _ => (wanted, None),
        };
        let name = compact(name);
        let unqualified = !name.contains("::");
        let full = compact(&self.name);
        let base = compact(self.base());
        let names_it = [&full, &base].iter().any(|candidate| {
            **candidate == name || (unqualified && last_component(candidate) == name)
        });
        if !names_it {
            return false;
        }
        match params {
            None => true,
            Some(list) => {
                let wanted: Vec<String> = split_top_level(list)
                    .into_iter()
                    .filter(|p| !(p.is_empty() || p == "void"))
                    .collect();
                wanted.len() == self.params.len()
                    && wanted
                        .iter()
                        .zip(&self.params)
                        .all(|(w, p)| same_type(w, p))
            }
        }
    }
}

/// The signature of a C++ kernel symbol; `None` for an `extern "C"` name or a symbol the
/// demangler does not read.
pub fn demangle(symbol: &str) -> Option<Signature> {
    if !symbol.starts_with("_Z") {
        return None;
    }
    let text = cpp_demangle::Symbol::new(symbol.as_bytes())
        .ok()?
        .demangle()
        .ok()?;
    // An empty parameter pack is written as a stray `, >` (`packed<float, >`), and its
    // expansion in the parameter list as a stray `, )` (`f<float, >(float*, )`).
    let text = text.replace(", >", ">").replace(", )", ")");
    // Templates carry their return type: `void softmax_kernel<128>(…)`.
    let text = text.strip_prefix("void ").unwrap_or(&text);
    let open = top_level(text, '(')?;
    let close = text.rfind(')')?;
    if close < open {
        return None;
    }
    let params = split_top_level(&text[open + 1..close])
        .into_iter()
        .filter(|p| !(p.is_empty() || p == "void"))
        .collect();
    Some(Signature {
        name: text[..open].trim().to_string(),
        params,
        parsed: CppName::parse(text).ok(),
    })
}

/// The kernel's signature as `c++filt` prints it (`reduce4<int, 512u>(int const*, int*, int)`);
/// `None` for an `extern "C"` name or a symbol the demangler does not read.
pub fn cxxfilt_name(symbol: &str) -> Option<String> {
    demangle(symbol).map(|s| s.render(Style::CxxFilt))
}

/// The kernel's name for messages: its demangled signature, or the symbol itself.
pub fn display_name(symbol: &str) -> String {
    demangle(symbol).map_or_else(|| symbol.to_string(), |s| s.text())
}

/// The index of the first `c` in `s` outside `<…>`, `(…)` and `[…]`; the demangler's
/// `(anonymous namespace)` is a scope, not a parameter list.
fn top_level(s: &str, c: char) -> Option<usize> {
    let mut depth = 0i32;
    for (i, ch) in s.char_indices() {
        if ch == c && depth == 0 && !s[i..].starts_with("(anonymous namespace)") {
            return Some(i);
        }
        match ch {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// `a, b<c, d>, e` split at its top-level commas, each trimmed.
fn split_top_level(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, ch) in s.char_indices() {
        match ch {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(s[start..i].trim().to_string());
                start = i + 1;
            }
            _ => {}
        }
    }
    let last = s[start..].trim();
    if !last.is_empty() || !out.is_empty() {
        out.push(last.to_string());
    }
    out
}

/// `scale` of `ns::scale`, `f<a::b>` of `ns::f<a::b>`.
fn last_component(s: &str) -> &str {
    let mut depth = 0i32;
    let mut cut = 0;
    let bytes = s.as_bytes();
    for (i, ch) in s.char_indices() {
        match ch {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => depth -= 1,
            ':' if depth == 0 && bytes.get(i + 1) == Some(&b':') => cut = i + 2,
            _ => {}
        }
    }
    &s[cut..]
}
