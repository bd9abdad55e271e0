//! The tokens of a C++ name.

use std::fmt;

/// A token: an identifier or keyword, a number with its suffix, `::`, or one punctuation mark.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Tok {
    /// `scale`, `unsigned`, `_INTERNAL_7436e5d4_8_names_cu_d85cfd80`, and the demangler's
    /// `(anonymous namespace)` as one token.
    Ident(String),
    /// `128`, `512u`, `0x10`.
    Num(String),
    /// `::`.
    Scope,
    /// `<`, `>`, `(`, `)`, `,`, `*`, `&`, `-`, `[`, `]`.
    Punct(char),
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Ident(s) | Tok::Num(s) => f.write_str(s),
            Tok::Scope => f.write_str("::"),
            Tok::Punct(c) => write!(f, "{c}"),
        }
    }
}

/// The tokens of `text`; `Err` names a character no C++ name has.
pub(super) fn lex(text: &str) -> Result<Vec<Tok>, String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if c.is_whitespace() {
            rest = &rest[c.len_utf8()..];
            continue;
        }
        for anonymous in ["(anonymous namespace)", "{anonymous}"] {
            if rest.starts_with(anonymous) {
                out.push(Tok::Ident("(anonymous namespace)".into()));
                rest = &rest[anonymous.len()..];
            }
        }
        let Some(c) = rest.chars().next() else {
            break;
        };
        if c.is_whitespace() {
            continue;
        }
        if c.is_ascii_alphabetic() || c == '_' || c == '$' {
            let end = rest
                .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_' || ch == '$'))
                .unwrap_or(rest.len());
            out.push(Tok::Ident(rest[..end].to_string()));
            rest = &rest[end..];
        } else if c.is_ascii_digit() {
            let end = rest
                .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '\''))
                .unwrap_or(rest.len());
            out.push(Tok::Num(rest[..end].replace('\'', "")));
            rest = &rest[end..];
        } else if rest.starts_with("::") {
            out.push(Tok::Scope);
            rest = &rest[2..];
        } else if "<>(),*&-[]".contains(c) {
            out.push(Tok::Punct(c));
            rest = &rest[1..];
        } else if c == '+' || c == '.' || c == '~' || c == '=' || c == '!' || c == '|' {
            // Expression characters, kept as text by the parser's fallback.
            out.push(Tok::Punct(c));
            rest = &rest[c.len_utf8()..];
        } else {
            return Err(format!(
                "cannot read `{}` as a C++ name: unexpected `{c}`",
                text.trim()
            ));
        }
    }
    Ok(out)
}

/// Tokens as compact text: a space only between two words (`unsigned int`, `f<1>`).
pub(super) fn join(toks: &[String]) -> String {
    let mut out = String::new();
    for t in toks {
        let word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
        if word(out.chars().last()) && word(t.chars().next()) {
            out.push(' ');
        }
        out.push_str(t);
    }
    out
}
