//! What [`super::from_manifest`] reads of a `Cargo.toml`: its tables, keys, strings and booleans,
//! with every other value (numbers, dates, arrays, arrays of tables) read past and kept as
//! [`Value::Other`].
//!
//! Why not the `toml` crate, as before: it brought seven more packages into every user's build
//! (`toml`, `serde_core` and its build script, `serde_spanned`, `toml_datetime`, `toml_parser`,
//! `winnow`), and Cargo looks at each of them again at every `cargo check`: 7 ms of each check
//! of a crate that uses chevron, against 40 for the whole no-op (`scripts/compile_bench.sh`). The
//! manifest is one Cargo has already read and accepted when the macro runs, so this reader can
//! be lenient: what it cannot read gives `None`, and the macros then name `::chevron` (the
//! attribute's `crate = "…"` names any other path).

use std::collections::BTreeMap;

/// A TOML table: keys in order, as `toml::Table` keeps them.
pub type Table = BTreeMap<String, Value>;

/// A TOML value, as far as the macros look into it.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A string, any of TOML's four forms, escapes resolved.
    String(String),
    /// `true` or `false`.
    Bool(bool),
    /// A table: `[header]`, dotted keys or `{ inline }`.
    Table(Table),
    /// A number, date, time or array.
    Other,
}

impl Value {
    /// The value of `key`, for a table.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.as_table()?.get(key)
    }

    /// The string, for a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The boolean, for a boolean.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The table, for a table.
    pub fn as_table(&self) -> Option<&Table> {
        match self {
            Value::Table(t) => Some(t),
            _ => None,
        }
    }
}

/// `text` read as a TOML document; `None` where it is not one this reader follows.
pub fn parse(text: &str) -> Option<Table> {
    let mut reader = Reader { text, at: 0 };
    let mut root = Table::new();
    // The table the next key/value lines go to: a path from the root; `None` inside an array
    // of tables (`[[bin]]`), whose entries no lookup needs.
    let mut current: Option<Vec<String>> = Some(Vec::new());
    loop {
        reader.skip_blank_lines();
        match reader.peek() {
            None => return Some(root),
            Some(b'[') => {
                let array = reader.text[reader.at..].starts_with("[[");
                reader.at += if array { 2 } else { 1 };
                let path = reader.key()?;
                reader.skip_space();
                reader.expect(if array { "]]" } else { "]" })?;
                current = if array {
                    None
                } else {
                    table_at(&mut root, &path)?;
                    Some(path)
                };
            }
            Some(_) => {
                let (path, value) = reader.key_value()?;
                if let Some(at) = &current {
                    let table = table_at(&mut root, at)?;
                    insert(table, &path, value)?;
                }
            }
        }
        reader.end_of_line()?;
    }
}

/// The table at `path` under `root`, made where missing; `None` where a key on the way holds
/// something else.
fn table_at<'t>(root: &'t mut Table, path: &[String]) -> Option<&'t mut Table> {
    let mut table = root;
    for key in path {
        let entry = table
            .entry(key.clone())
            .or_insert_with(|| Value::Table(Table::new()));
        table = match entry {
            Value::Table(t) => t,
            _ => return None,
        };
    }
    Some(table)
}

/// `value` at the dotted key `path` of `table`.
fn insert(table: &mut Table, path: &[String], value: Value) -> Option<()> {
    let (last, parents) = path.split_last()?;
    table_at(table, parents)?.insert(last.clone(), value);
    Some(())
}

struct Reader<'t> {
    text: &'t str,
    at: usize,
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    fn expect(&mut self, what: &str) -> Option<()> {
        self.text[self.at..].starts_with(what).then(|| {
            self.at += what.len();
        })
    }

    /// Spaces and tabs.
    fn skip_space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.at += 1;
        }
    }

    /// Spaces, tabs, a comment, up to the line's end (not past it).
    fn skip_space_and_comment(&mut self) {
        self.skip_space();
        if self.peek() == Some(b'#') {
            let rest = &self.text[self.at..];
            self.at += rest.find('\n').unwrap_or(rest.len());
        }
    }

    /// Blank lines and comment lines, then the next line's indentation.
    fn skip_blank_lines(&mut self) {
        loop {
            self.skip_space_and_comment();
            match self.peek() {
                Some(b'\n') => self.at += 1,
                Some(b'\r') if self.text[self.at..].starts_with("\r\n") => self.at += 2,
                _ => return,
            }
        }
    }

    /// What a line may end with after its header or key/value: space, a comment, the end.
    fn end_of_line(&mut self) -> Option<()> {
        self.skip_space_and_comment();
        match self.peek() {
            None | Some(b'\n') => Some(()),
            Some(b'\r') if self.text[self.at..].starts_with("\r\n") => Some(()),
            _ => None,
        }
    }

    /// Whitespace, newlines and comments, inside an array or an inline table.
    fn skip_all(&mut self) {
        loop {
            self.skip_space_and_comment();
            match self.peek() {
                Some(b'\n' | b'\r') => self.at += 1,
                _ => return,
            }
        }
    }

    /// A dotted key (`a`, `"a b".c`, `'x'.y`), with the spaces TOML allows around its dots.
    fn key(&mut self) -> Option<Vec<String>> {
        let mut path = Vec::new();
        loop {
            self.skip_space();
            path.push(match self.peek()? {
                b'"' => self.basic_string()?,
                b'\'' => self.literal_string()?,
                _ => {
                    let rest = &self.text[self.at..];
                    let len = rest
                        .bytes()
                        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-'))
                        .count();
                    if len == 0 {
                        return None;
                    }
                    self.at += len;
                    rest[..len].to_string()
                }
            });
            self.skip_space();
            if self.peek() != Some(b'.') {
                return Some(path);
            }
            self.at += 1;
        }
    }

    /// `key = value`.
    fn key_value(&mut self) -> Option<(Vec<String>, Value)> {
        let path = self.key()?;
        self.expect("=")?;
        self.skip_space();
        Some((path, self.value()?))
    }

    fn value(&mut self) -> Option<Value> {
        let rest = &self.text[self.at..];
        Some(match self.peek()? {
            b'"' if rest.starts_with("\"\"\"") => Value::String(self.multiline(b'"')?),
            b'\'' if rest.starts_with("'''") => Value::String(self.multiline(b'\'')?),
            b'"' => Value::String(self.basic_string()?),
            b'\'' => Value::String(self.literal_string()?),
            b'{' => Value::Table(self.inline_table()?),
            b'[' => {
                self.array()?;
                Value::Other
            }
            _ if rest.starts_with("true") && !continues_word(&rest[4..]) => {
                self.at += 4;
                Value::Bool(true)
            }
            _ if rest.starts_with("false") && !continues_word(&rest[5..]) => {
                self.at += 5;
                Value::Bool(false)
            }
            _ => {
                self.scalar()?;
                Value::Other
            }
        })
    }

    /// A number, date or time: its characters, and a space between a date and its time.
    fn scalar(&mut self) -> Option<()> {
        let start = self.at;
        loop {
            let rest = &self.text[self.at..];
            let len = rest
                .bytes()
                .take_while(|b| {
                    b.is_ascii_alphanumeric() || matches!(b, b'_' | b':' | b'.' | b'+' | b'-')
                })
                .count();
            self.at += len;
            let bytes = self.text.as_bytes();
            // `1979-05-27 07:32:00`: a date, a space, a time.
            let date_then_time = len > 0
                && bytes.get(self.at) == Some(&b' ')
                && bytes.get(self.at + 1).is_some_and(u8::is_ascii_digit)
                && self.text[start..self.at].matches('-').count() >= 2;
            if !date_then_time {
                return (self.at > start).then_some(());
            }
            self.at += 1;
        }
    }

    /// `"…"`, escapes resolved.
    fn basic_string(&mut self) -> Option<String> {
        self.at += 1;
        let mut out = String::new();
        loop {
            let c = self.text[self.at..].chars().next()?;
            self.at += c.len_utf8();
            match c {
                '"' => return Some(out),
                '\\' => out.push(self.escape()?),
                '\n' => return None,
                c => out.push(c),
            }
        }
    }

    /// The character an escape after its `\` stands for.
    fn escape(&mut self) -> Option<char> {
        let c = self.text[self.at..].chars().next()?;
        self.at += c.len_utf8();
        Some(match c {
            'b' => '\u{8}',
            't' => '\t',
            'n' => '\n',
            'f' => '\u{c}',
            'r' => '\r',
            'e' => '\u{1b}',
            '"' => '"',
            '\\' => '\\',
            'x' => self.hex(2)?,
            'u' => self.hex(4)?,
            'U' => self.hex(8)?,
            _ => return None,
        })
    }

    fn hex(&mut self, digits: usize) -> Option<char> {
        let text = self.text.get(self.at..self.at + digits)?;
        self.at += digits;
        char::from_u32(u32::from_str_radix(text, 16).ok()?)
    }

    /// `'…'`, as written.
    fn literal_string(&mut self) -> Option<String> {
        self.at += 1;
        let rest = &self.text[self.at..];
        let end = rest.find(['\'', '\n'])?;
        if rest.as_bytes()[end] != b'\'' {
            return None;
        }
        self.at += end + 1;
        Some(rest[..end].to_string())
    }

    /// `"""…"""` or `'''…'''` (`quote`): a newline right after the opening quotes is dropped;
    /// in the basic form, escapes are resolved and a `\` at a line's end drops the line break
    /// and the whitespace after it. Up to two quotes may end the content.
    fn multiline(&mut self, quote: u8) -> Option<String> {
        self.at += 3;
        if self.text[self.at..].starts_with("\r\n") {
            self.at += 2;
        } else if self.text[self.at..].starts_with('\n') {
            self.at += 1;
        }
        let mut out = String::new();
        loop {
            let rest = &self.text[self.at..];
            if rest.as_bytes().first() == Some(&quote)
                && rest.len() >= 3
                && rest.as_bytes()[..3].iter().all(|&b| b == quote)
            {
                // `""""` and `"""""` end with one or two quotes of content.
                let run = rest.bytes().take_while(|&b| b == quote).count().min(5);
                out.extend(std::iter::repeat_n(quote as char, run - 3));
                self.at += run;
                return Some(out);
            }
            let c = rest.chars().next()?;
            self.at += c.len_utf8();
            match c {
                '\\' if quote == b'"' => {
                    let after = &self.text[self.at..];
                    let line_end = after.trim_start_matches([' ', '\t']);
                    if line_end.starts_with('\n') || line_end.starts_with("\r\n") {
                        // A line-ending backslash: skip to the next non-whitespace.
                        let trimmed = after.trim_start_matches([' ', '\t', '\n', '\r']);
                        self.at += after.len() - trimmed.len();
                    } else {
                        out.push(self.escape()?);
                    }
                }
                c => out.push(c),
            }
        }
    }

    /// `[ value, … ]`, newlines and comments allowed, a trailing comma too.
    fn array(&mut self) -> Option<()> {
        self.at += 1;
        loop {
            self.skip_all();
            if self.peek()? == b']' {
                self.at += 1;
                return Some(());
            }
            self.value()?;
            self.skip_all();
            match self.peek()? {
                b',' => self.at += 1,
                b']' => {}
                _ => return None,
            }
        }
    }

    /// `{ key = value, … }` (TOML 1.1: newlines, comments and a trailing comma allowed).
    fn inline_table(&mut self) -> Option<Table> {
        self.at += 1;
        let mut table = Table::new();
        loop {
            self.skip_all();
            if self.peek()? == b'}' {
                self.at += 1;
                return Some(table);
            }
            let (path, value) = self.key_value()?;
            insert(&mut table, &path, value)?;
            self.skip_all();
            match self.peek()? {
                b',' => self.at += 1,
                b'}' => {}
                _ => return None,
            }
        }
    }
}

/// Whether `rest` goes on with a key character (`trueish` is no `true`).
fn continues_word(rest: &str) -> bool {
    rest.bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(text: &str) -> Value {
        Value::String(text.to_string())
    }

    #[test]
    fn tables_keys_and_strings() {
        let doc = parse(
            "# a manifest\n[package]\nname = \"app\" # trailing\nversion = '0.1.0'\n\
             edition = \"2021\"\n\n[dependencies]\nserde = { version = \"1\", features = [\"derive\"] }\n\
             gpu.package = \"chevron-cuda\"\n\"quoted key\" = true\n[dependencies.other]\n\
             package = \"x\"\n[target.'cfg(unix)'.dev-dependencies]\nlibc = \"0.2\"\n",
        )
        .expect("a manifest");
        let package = &doc["package"];
        assert_eq!(package.get("name"), Some(&s("app")));
        assert_eq!(package.get("version"), Some(&s("0.1.0")));
        let deps = &doc["dependencies"];
        assert_eq!(
            deps.get("serde").and_then(|d| d.get("version")),
            Some(&s("1"))
        );
        assert_eq!(
            deps.get("serde").and_then(|d| d.get("features")),
            Some(&Value::Other)
        );
        assert_eq!(
            deps.get("gpu").and_then(|d| d.get("package")),
            Some(&s("chevron-cuda"))
        );
        assert_eq!(deps.get("quoted key").and_then(Value::as_bool), Some(true));
        assert_eq!(
            deps.get("other").and_then(|d| d.get("package")),
            Some(&s("x"))
        );
        let target = doc["target"].get("cfg(unix)").expect("the target table");
        assert_eq!(
            target.get("dev-dependencies").and_then(|d| d.get("libc")),
            Some(&s("0.2"))
        );
    }

    #[test]
    fn values_it_reads_past() {
        let doc = parse(
            "a = 1\nb = -2.5e3\nc = 1979-05-27 07:32:00Z\nd = 0x1F\ne = [1, [2, 3], \"]\", { x = 1 },\n  # comment\n]\n\
             f = inf\ng = \"\"\"\nline \\\n   joined \"quoted\" \"\"\"\"\nh = '''\nraw \\n '''\n\
             [[bin]]\nname = \"tool\"\n[after]\nk = \"v\\u00e9\\t\"\nl = false\n",
        )
        .expect("a document");
        for key in ["a", "b", "c", "d", "e", "f"] {
            assert_eq!(doc.get(key), Some(&Value::Other), "{key}");
        }
        assert_eq!(doc.get("g"), Some(&s("line joined \"quoted\" \"")));
        assert_eq!(doc.get("h"), Some(&s("raw \\n ")));
        // An array of tables' entries go nowhere: `name` is not the root's.
        assert_eq!(doc.get("name"), None);
        assert_eq!(doc.get("bin"), None);
        assert_eq!(doc["after"].get("k"), Some(&s("vé\t")));
        assert_eq!(doc["after"].get("l").and_then(Value::as_bool), Some(false));
    }

    #[test]
    fn multi_line_inline_tables_and_crlf() {
        let doc = parse(
            "[dependencies]\r\ngpu = {\r\n  package = \"chevron-cuda\", # TOML 1.1\r\n  version = \"0.1\",\r\n}\r\n",
        )
        .expect("a document");
        assert_eq!(
            doc["dependencies"]
                .get("gpu")
                .and_then(|g| g.get("package")),
            Some(&s("chevron-cuda"))
        );
    }

    #[test]
    fn what_it_cannot_read_is_none() {
        for bad in [
            "[package\nname = \"x\"",
            "name = \"unterminated\nx = 1",
            "= 1",
            "a = { b = 1",
            "a = [1, 2",
            "a = \"\\q\"",
            "a = 1 b = 2",
            "a.b = 1\na.b.c = 2",
        ] {
            assert_eq!(parse(bad), None, "{bad:?}");
        }
    }
}
