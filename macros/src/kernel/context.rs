//! Where a `#[kernel]` attribute is written: directly in an `impl` block, a trait or an
//! `extern` block, which cannot hold the type it declares.
//!
//! An attribute macro is not told what encloses its item, and its output there (a `struct`, an
//! `impl`) only gets rustc's "struct is not supported in `trait`s or `impl`s", once per item. So
//! the source file is read at the attribute's position, and the block around it found with a
//! small lexer (comments, strings, raw strings, chars and lifetimes skipped; parentheses and
//! brackets kept apart from braces), once per file and content for all its declarations.
//! Anything it cannot place (a span from a macro, a file it cannot read, text at the position
//! that is not the attribute) is [`Enclosing::Unknown`], and the declaration is expanded as
//! usual: this check only adds chevron's message where it is sure.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

/// The block directly around an item.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Enclosing {
    /// An `impl` block.
    Impl,
    /// A trait.
    Trait,
    /// An `extern` block (foreign items).
    Extern,
    /// A module, a function body, another block, or the file itself.
    Other,
    /// Not known (see the module's documentation).
    Unknown,
}

impl Enclosing {
    /// Chevron's error for a declaration in this block, if it cannot be there.
    pub fn error(self, kernel: &str) -> Option<String> {
        let (block, fix) = match self {
            Enclosing::Impl => (
                "an `impl` block",
                "move the declaration out of the `impl`, into the module around it (its methods \
                 can then call",
            ),
            Enclosing::Trait => (
                "a trait",
                "move the declaration out of the trait, into the module around it (its methods \
                 can then call",
            ),
            Enclosing::Extern => (
                "an `extern` block",
                "move the declaration out of the `extern` block, into the module around it \
                 (then call",
            ),
            Enclosing::Other | Enclosing::Unknown => return None,
        };
        Some(format!(
            "`#[kernel]` cannot be used inside {block}: it declares a type (`{kernel}`, with \
             `{kernel}::kernel()`), which {block} cannot hold; {fix} \
             `{kernel}::kernel().launch(…)` or `launch!({kernel}<<<…>>>(…))`)"
        ))
    }
}

/// What encloses the attribute that starts at `line` (1-based) and `column` (1-based, in
/// characters) of `file`.
pub fn enclosing(file: &Path, line: usize, column: usize) -> Enclosing {
    match scanned(file) {
        Some(scan) => scan.at(line, column),
        None => Enclosing::Unknown,
    }
}

/// A source file scanned once: every attribute position in it, with its block.
struct Scanned {
    text: String,
    /// The byte offset of each line's start.
    lines: Vec<usize>,
    /// Each `#` that starts a token, by byte offset (ascending), and its block.
    marks: Vec<(usize, Enclosing)>,
}

impl Scanned {
    fn new(text: String) -> Scanned {
        let lines = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(at, _)| at + 1))
            .collect();
        let marks = Scanner::new(&text).marks();
        Scanned { text, lines, marks }
    }

    /// The block around the attribute at `line` and `column` (see [`enclosing`]).
    fn at(&self, line: usize, column: usize) -> Enclosing {
        let Some(offset) = self.offset_of(line, column) else {
            return Enclosing::Unknown;
        };
        // Not a token start (inside a comment, a string, a token), not `#`, or after text the
        // scanner could not read: not known.
        match self.marks.binary_search_by_key(&offset, |&(at, _)| at) {
            Ok(i) => self.marks[i].1,
            Err(_) => Enclosing::Unknown,
        }
    }

    /// The byte offset of a 1-based line and character column.
    fn offset_of(&self, line: usize, column: usize) -> Option<usize> {
        let start = *self.lines.get(line.checked_sub(1)?)?;
        let rest = &self.text[start..];
        let end = rest.find('\n').unwrap_or(rest.len());
        let (at, _) = rest[..end].char_indices().nth(column.checked_sub(1)?)?;
        Some(start + at)
    }
}

/// A source file's scan, made once per file and content in this process: every declaration
/// of a file asks, and the file is scanned once, not once per declaration. The hit needs the
/// same text, compared in full (not the modification time, which an edit within its
/// resolution keeps): the macro stays loaded across edits in rust-analyzer.
fn scanned(file: &Path) -> Option<Arc<Scanned>> {
    type Cache = Mutex<Option<HashMap<PathBuf, Arc<Scanned>>>>;
    static CACHE: Cache = Mutex::new(None);
    let text = super::source::read_source(file).ok()?;
    let mut guard = CACHE.lock().unwrap_or_else(PoisonError::into_inner);
    let cache = guard.get_or_insert_with(HashMap::new);
    if let Some(hit) = cache.get(file).filter(|s| s.text == text) {
        return Some(Arc::clone(hit));
    }
    let scan = Arc::new(Scanned::new(text));
    cache.insert(file.to_path_buf(), Arc::clone(&scan));
    Some(scan)
}

/// An open delimiter: a brace records what its header made it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Open {
    Paren,
    Bracket,
    Brace(Enclosing),
}

/// The words of the current item header at the current brace level, for the next `{`.
struct Scanner<'t> {
    text: &'t str,
    at: usize,
    stack: Vec<Open>,
    /// Words (identifiers and keywords) since the last `;`, `{` or `}` at this brace level,
    /// outside parentheses and brackets opened since.
    header: Vec<&'t str>,
}

impl<'t> Scanner<'t> {
    fn new(text: &'t str) -> Self {
        Self {
            text,
            at: 0,
            stack: Vec::new(),
            header: Vec::new(),
        }
    }

    /// Whether the innermost delimiter is a brace (or none): where headers are collected.
    fn at_item_level(&self) -> bool {
        !matches!(self.stack.last(), Some(Open::Paren | Open::Bracket))
    }

    /// Each `#` that starts a token, with the block around it, up to
    /// the end of the text or the first text it cannot read.
    fn marks(mut self) -> Vec<(usize, Enclosing)> {
        let mut marks = Vec::new();
        while self.at < self.text.len() {
            if self.text.as_bytes()[self.at] == b'#' {
                marks.push((self.at, self.block()));
            }
            if !self.step() {
                break;
            }
        }
        marks
    }

    /// The block around the token that starts at the current position.
    fn block(&self) -> Enclosing {
        match self
            .stack
            .iter()
            .rev()
            .find(|o| matches!(o, Open::Brace(_)))
        {
            Some(Open::Brace(kind)) => {
                // An attribute inside parentheses or brackets is not an item's.
                if self.at_item_level() {
                    *kind
                } else {
                    Enclosing::Other
                }
            }
            _ => Enclosing::Other,
        }
    }

    /// Reads one token (or whitespace run, or comment); `false` on text it cannot read.
    fn step(&mut self) -> bool {
        // ASCII by bytes: a macro runs unoptimised in a debug build, where taking a `char`
        // off a string slice costs as much as the rest of the step (the scan was about 500
        // instructions a byte, `scripts/compile_bench.sh`).
        let bytes = self.text.as_bytes();
        let Some(&b) = bytes.get(self.at) else {
            return false;
        };
        let next = bytes.get(self.at + 1).copied();
        match b {
            // `char::is_whitespace` of the ASCII characters.
            b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c => {
                self.at += 1;
                while matches!(
                    bytes.get(self.at),
                    Some(b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
                ) {
                    self.at += 1;
                }
                return true;
            }
            b'/' if matches!(next, Some(b'/' | b'*')) => {}
            b'"' | b'\'' | b'r' | b'b' | b'c' => {}
            _ if b.is_ascii_alphanumeric() || b == b'_' => {
                self.word();
                return true;
            }
            _ if b.is_ascii() => {
                self.punct(char::from(b));
                self.at += 1;
                return true;
            }
            _ => {}
        }
        let Some(c) = self.text[self.at..].chars().next() else {
            return false;
        };
        let rest = &self.text[self.at..];
        if c.is_whitespace() {
            self.at += c.len_utf8();
        } else if rest.starts_with("//") {
            self.at += rest.find('\n').unwrap_or(rest.len());
        } else if rest.starts_with("/*") {
            return self.block_comment();
        } else if c == '"' {
            return self.string(false, 0);
        } else if c == '\'' {
            return self.quote();
        } else if c == 'r' || c == 'b' || c == 'c' {
            return self.prefixed();
        } else if c.is_alphanumeric() || c == '_' {
            self.word();
        } else {
            self.punct(c);
            self.at += c.len_utf8();
        }
        true
    }

    fn block_comment(&mut self) -> bool {
        let mut depth = 0usize;
        loop {
            let rest = &self.text[self.at..];
            if rest.starts_with("/*") {
                depth += 1;
                self.at += 2;
            } else if rest.starts_with("*/") {
                depth -= 1;
                self.at += 2;
                if depth == 0 {
                    return true;
                }
            } else if let Some(c) = rest.chars().next() {
                self.at += c.len_utf8();
            } else {
                return false;
            }
        }
    }

    /// A string from its opening quote; `raw` strings have no escapes and end at a quote
    /// followed by `hashes` hashes.
    fn string(&mut self, raw: bool, hashes: usize) -> bool {
        self.at += 1;
        loop {
            let rest = &self.text[self.at..];
            let Some(c) = rest.chars().next() else {
                return false;
            };
            if c == '\\' && !raw {
                self.at += 1;
                if let Some(next) = self.text[self.at..].chars().next() {
                    self.at += next.len_utf8();
                }
            } else if c == '"' && rest[1..].bytes().take_while(|&b| b == b'#').count() >= hashes {
                self.at += 1 + hashes;
                return true;
            } else {
                self.at += c.len_utf8();
            }
        }
    }

    /// `'`: a char literal or a lifetime (or label).
    fn quote(&mut self) -> bool {
        let rest = &self.text[self.at + 1..];
        let mut chars = rest.chars();
        match (chars.next(), chars.next()) {
            (Some('\\'), Some(escaped)) => {
                // An escaped char: up to the closing quote after the escaped one.
                let from = 1 + escaped.len_utf8();
                match rest[from..].find('\'') {
                    Some(end) => {
                        self.at += 1 + from + end + 1;
                        true
                    }
                    None => false,
                }
            }
            (Some(c), Some('\'')) => {
                self.at += 1 + c.len_utf8() + 1;
                true
            }
            (Some(c), _) if c.is_alphanumeric() || c == '_' => {
                // A lifetime: its name is no word of the header.
                self.at += 1;
                let len = self.text[self.at..]
                    .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .unwrap_or(self.text.len() - self.at);
                self.at += len;
                true
            }
            _ => false,
        }
    }

    /// A word starting with `r`, `b` or `c`: a string or char prefix (`r"…"`, `r#"…"#`,
    /// `b"…"`, `br#"…"#`, `b'…'`, `c"…"`), a raw identifier, or a plain word.
    fn prefixed(&mut self) -> bool {
        let rest = &self.text[self.at..];
        let prefix_len = if rest.starts_with("br") || rest.starts_with("cr") {
            2
        } else {
            1
        };
        let after = &rest[prefix_len..];
        let raw = rest.as_bytes()[prefix_len - 1] == b'r';
        if raw {
            let hashes = after.bytes().take_while(|&b| b == b'#').count();
            if after[hashes..].starts_with('"') {
                self.at += prefix_len + hashes;
                return self.string(true, hashes);
            }
            if hashes == 1 && prefix_len == 1 {
                // `r#ident`: a raw identifier.
                self.at += 2;
                self.word();
                return true;
            }
        } else if after.starts_with('"') {
            self.at += prefix_len;
            return self.string(false, 0);
        } else if rest.starts_with("b'") {
            self.at += 1;
            return self.quote();
        }
        self.word();
        true
    }

    fn word(&mut self) {
        let bytes = self.text.as_bytes();
        let mut end = self.at;
        while end < bytes.len() && (bytes[end].is_ascii_alphanumeric() || bytes[end] == b'_') {
            end += 1;
        }
        if end < bytes.len() && !bytes[end].is_ascii() {
            // A letter beyond ASCII may go on with the word (`end` is a char boundary: every
            // byte before it is ASCII).
            let rest = &self.text[end..];
            end += rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
        }
        if self.at_item_level() {
            self.header.push(&self.text[self.at..end]);
        }
        self.at = end;
    }

    fn punct(&mut self, c: char) {
        match c {
            '(' => self.stack.push(Open::Paren),
            '[' => self.stack.push(Open::Bracket),
            ')' | ']' => {
                self.stack.pop();
            }
            '{' => {
                let kind = if self.at_item_level() {
                    classify(&self.header)
                } else {
                    Enclosing::Other
                };
                self.stack.push(Open::Brace(kind));
                self.header.clear();
            }
            '}' => {
                self.stack.pop();
                if self.at_item_level() {
                    self.header.clear();
                }
            }
            ';' if self.at_item_level() => self.header.clear(),
            _ => {}
        }
    }
}

/// What a `{` opens, from the words of its header.
fn classify(header: &[&str]) -> Enclosing {
    let mut words = header
        .iter()
        .copied()
        .skip_while(|w| matches!(*w, "pub" | "crate" | "unsafe" | "default" | "auto"));
    match words.next() {
        Some("impl") => Enclosing::Impl,
        Some("trait") => Enclosing::Trait,
        // `extern "C" {` or `extern {`, not `extern "C" fn f() {`.
        Some("extern") if words.next().is_none() => Enclosing::Extern,
        _ => Enclosing::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`enclosing`] on a file's text.
    fn enclosing_in(text: &str, line: usize, column: usize) -> Enclosing {
        Scanned::new(text.to_string()).at(line, column)
    }

    /// The enclosing block of the first `#[kernel` in `text`.
    fn at_kernel(text: &str) -> Enclosing {
        let offset = text.find("#[kernel").expect("a #[kernel");
        let line = text[..offset].matches('\n').count() + 1;
        let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
        let column = text[line_start..offset].chars().count() + 1;
        enclosing_in(text, line, column)
    }

    #[test]
    fn impl_trait_and_extern_blocks_are_found() {
        let decl = "#[kernel(ptx = \"k.ptx\")] fn k(n: u32);";
        for (text, want) in [
            (
                format!("struct S;\nimpl S {{\n    {decl}\n}}"),
                Enclosing::Impl,
            ),
            (
                format!("impl<T: Fn() -> u8> Tr for S<T> where [(); 4]: Sized {{ {decl} }}"),
                Enclosing::Impl,
            ),
            (
                format!("unsafe impl Send for S {{ {decl} }}"),
                Enclosing::Impl,
            ),
            (format!("pub trait K {{ {decl} }}"), Enclosing::Trait),
            // Words beyond ASCII, and every kind of ASCII whitespace, between the tokens.
            (
                format!("struct Größe;\r\nimpl\x0bGröße\x0c{{\t{decl}\n}}"),
                Enclosing::Impl,
            ),
            (
                format!("mod ünï {{ fn é() {{}} {decl} }} impl X {{}}"),
                Enclosing::Other,
            ),
            (
                format!("pub(crate) unsafe trait K {{ {decl} }}"),
                Enclosing::Trait,
            ),
            (format!("extern \"C\" {{ {decl} }}"), Enclosing::Extern),
            (format!("mod m {{ {decl} }}"), Enclosing::Other),
            (decl.to_string(), Enclosing::Other),
            (format!("fn main() {{ {decl} }}"), Enclosing::Other),
            (
                format!("impl S {{ fn f() {{ {decl} }} }}"),
                Enclosing::Other,
            ),
            (
                format!("extern \"C\" fn f() {{ {decl} }}"),
                Enclosing::Other,
            ),
            (format!("const X: () = {{ {decl} }};"), Enclosing::Other),
        ] {
            assert_eq!(at_kernel(&text), want, "{text}");
        }
    }

    #[test]
    fn comments_strings_chars_and_lifetimes_are_skipped() {
        let text = r####"
// impl A {
/* impl B { /* nested } */ */
const S: &str = "impl C { \" {";
const R: &str = r#"impl D { "# ;
const RB: &[u8] = br##"{ "# }"##;
const C: char = '{';
const E: char = '\'';
const U: char = '\u{7b}';
fn f<'a>(x: &'a u8) -> &'a u8 { 'outer: loop { break 'outer; } x }
struct r#impl;
mod m {
    #[kernel(ptx = "k.ptx")] fn k(n: u32);
}
"####;
        assert_eq!(at_kernel(text), Enclosing::Other);
        let text = format!("{text}\nimpl X {{\n #[kernel(ptx = \"k.ptx\")] fn j(); }}");
        let tail = &text[text.rfind("#[kernel").expect("second")..];
        assert!(tail.starts_with("#[kernel"));
        let line = text.lines().count();
        assert_eq!(enclosing_in(&text, line, 2), Enclosing::Impl);
    }

    #[test]
    fn an_edited_file_is_scanned_again() {
        let dir = std::env::temp_dir().join(format!("chevron-context-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let file = dir.join("lib.rs");
        let write = |text: &str| std::fs::write(&file, text).expect("write");
        write("impl S {\n#[kernel(ptx = \"k.ptx\")] fn k(); }\n");
        let first = scanned(&file).expect("scans");
        assert_eq!(enclosing(&file, 2, 1), Enclosing::Impl);
        assert!(
            Arc::ptr_eq(&first, &scanned(&file).expect("scans")),
            "scanned twice"
        );
        // The same length and, set back, the same modification time: only the text differs.
        let modified = std::fs::metadata(&file)
            .and_then(|m| m.modified())
            .expect("mtime");
        write("mod  S {\n#[kernel(ptx = \"k.ptx\")] fn k(); }\n");
        std::fs::File::options()
            .write(true)
            .open(&file)
            .and_then(|f| f.set_modified(modified))
            .expect("set mtime");
        assert_eq!(enclosing(&file, 2, 1), Enclosing::Other);
        // A declaration moved by the edit is looked up in the new text.
        write("trait T {\n\n  #[kernel(ptx = \"k.ptx\")] fn k(); }\n");
        assert_eq!(enclosing(&file, 3, 3), Enclosing::Trait);
        assert_eq!(enclosing(&file, 2, 1), Enclosing::Unknown);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn every_attribute_of_a_file_is_answered_from_one_scan() {
        let text = "#[a] fn f() {}\nimpl S {\n    #[b] fn g();\n    fn h() { #[c] let x = (#[d] 1); }\n}\ntrait T { #[e] fn i(); }\nconst S: &str = \"#[f]\";\n";
        let scan = Scanned::new(text.to_string());
        let found: Vec<(usize, Enclosing)> = scan
            .marks
            .iter()
            .map(|&(at, e)| (text[..at].matches('\n').count() + 1, e))
            .collect();
        assert_eq!(
            found,
            [
                (1, Enclosing::Other),
                (3, Enclosing::Impl),
                (4, Enclosing::Other),
                (4, Enclosing::Other),
                (6, Enclosing::Trait),
            ]
        );
        assert_eq!(scan.at(3, 5), Enclosing::Impl);
        assert_eq!(scan.at(6, 11), Enclosing::Trait);
        // The `#` in the string is no attribute.
        assert_eq!(scan.at(7, 18), Enclosing::Unknown);
    }

    #[test]
    fn positions_that_are_not_an_attribute_are_unknown() {
        let text = "impl S {\n    fn k(n: u32);\n}\n";
        assert_eq!(enclosing_in(text, 2, 5), Enclosing::Unknown);
        assert_eq!(enclosing_in(text, 9, 1), Enclosing::Unknown);
        assert_eq!(enclosing_in(text, 2, 500), Enclosing::Unknown);
        // Inside a string that reads like an attribute.
        let text = "impl S {\n const A: &str = \"#[kernel]\"; }";
        assert_eq!(enclosing_in(text, 2, 18), Enclosing::Unknown);
        // Unterminated text before the position.
        let text = "impl S { const A: &str = \"\n#[kernel] fn k(); }";
        assert_eq!(enclosing_in(text, 2, 1), Enclosing::Unknown);
    }
}
