//! The module one entry needs, cut out of its PTX file: the header (`.version`, `.target`,
//! `.address_size`), the entry, every function it calls (transitively, with their prototypes
//! and `.extern` declarations) and the `.shared` variables and string constants they name, in
//! the file's order. `#[kernel]` embeds that instead of the whole file, so a declaration's cost
//! at compile time (and its module's at load time) follows the size of its kernel, not of the
//! file: rustc reads and hashes every `include_bytes!` in full, about 13 ms per declaration of
//! an 8 MB file (`scripts/ptx_scale_bench.sh`).
//!
//! A kernel of its own module behaves as in the whole file's only where no other kernel and no
//! host code can see the difference. So an entry keeps the whole file ([`WholeFile`]) where it
//! reaches a module-scope variable that kernels share and the host can name (`.global`,
//! `.const`, textures; only the string constants nvcc names `$str…` and `__unnamed_…`, which no
//! source can name, are copied), where it calls through a pointer (any function whose address
//! the module holds may be the target), in a debug build (`-G`: its DWARF names every function
//! of the file), and where the file has a top-level statement this reader does not know.
//!
//! [`ModuleIndex::new`] reads the top level of the file once, as bytes (one pass, no tokens);
//! [`ModuleIndex::cut`] then reads only the statements the entry reaches.

use std::collections::HashMap;
use std::ops::Range;

/// Why an entry is embedded with its whole file instead of a module of its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WholeFile {
    /// A debug build (`.target …, debug`, or DWARF sections other than `.debug_str`): the
    /// debug information describes every function of the file.
    Debug,
    /// The entry (or a function it calls) names the module-scope variable `name` in `space`
    /// (`.global`, `.const` …): the kernels of one module share it, and the host reaches it by
    /// name, so it must stay in the module every other kernel of the file loads.
    State {
        /// The variable's symbol.
        name: String,
        /// Its state space, `.global` or `.const` ….
        space: String,
    },
    /// The entry calls through a function pointer (`.callprototype`, `.calltargets`).
    Indirect,
    /// A top-level statement the reader does not know, at this 1-based line.
    Unknown(usize),
    /// The file has no `.entry` of that name.
    NoEntry,
}

impl std::fmt::Display for WholeFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WholeFile::Debug => write!(f, "a debug build, whose DWARF names every function"),
            WholeFile::State { name, space } => write!(
                f,
                "it names the {space} variable `{name}`, which the file's kernels share"
            ),
            WholeFile::Indirect => write!(f, "it calls through a function pointer"),
            WholeFile::Unknown(line) => {
                write!(f, "line {line} is a statement chevron does not read")
            }
            WholeFile::NoEntry => write!(f, "no such entry"),
        }
    }
}

/// What a top-level statement is.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Kind {
    /// Kept in every cut: `.version`, `.target`, `.address_size`, `.file` (which `.loc` lines
    /// refer to), `.pragma`, and the `.debug_str` section (`.loc … function_name` labels).
    Always,
    /// `.entry`, `.func` (a definition, a prototype or an `.extern` declaration), `.alias`.
    Code {
        /// `.entry`.
        entry: bool,
    },
    /// A module-scope variable in a state space (`.global`, `.const`, `.shared` …).
    Variable {
        /// Its state space, with the dot.
        space: &'static str,
    },
}

#[derive(Debug)]
struct Statement {
    /// Bytes of the text, from the statement's first token to its end (`;`, `}` or the end of
    /// a header line).
    range: Range<usize>,
    kind: Kind,
}

/// The top-level statements of one PTX text, by the name each declares.
#[derive(Debug)]
pub struct ModuleIndex {
    statements: Vec<Statement>,
    names: HashMap<String, Vec<usize>>,
    /// A reason that holds for every entry of the file.
    whole: Option<WholeFile>,
}

/// The state spaces a module-scope variable may be declared in.
const SPACES: [&str; 6] = [".global", ".const", ".shared", ".local", ".tex", ".param"];

impl ModuleIndex {
    /// Reads the top level of `ptx`: where each statement starts and ends, and what it declares.
    /// Linear in the size of the text; function bodies are only skipped over.
    pub fn new(ptx: &str) -> ModuleIndex {
        let mut index = ModuleIndex {
            statements: Vec::new(),
            names: HashMap::new(),
            whole: None,
        };
        let bytes = ptx.as_bytes();
        let mut at = 0;
        let mut line = 1;
        loop {
            at = skip_trivia(bytes, at, &mut line);
            if at >= bytes.len() {
                break;
            }
            let start = (at, line);
            let end = statement_end(bytes, at, &mut line);
            let range = start.0..end;
            at = end;
            if index.whole.is_some() {
                continue;
            }
            match classify(&ptx[range.clone()]) {
                Ok((kind, name)) => {
                    if let Some(name) = name {
                        index
                            .names
                            .entry(name.to_string())
                            .or_default()
                            .push(index.statements.len());
                    }
                    index.statements.push(Statement { range, kind });
                }
                Err(reason) => {
                    index.whole = Some(match reason {
                        Unread::Debug => WholeFile::Debug,
                        Unread::Unknown => WholeFile::Unknown(start.1),
                    });
                }
            }
        }
        if index.whole.is_some() {
            // Nothing of it is cut: no need to keep it.
            index.statements.clear();
            index.names.clear();
        }
        index
    }

    /// The module `entry` needs, cut out of `ptx` (the text this index was made of): its
    /// statements in the file's order, one per line. [`WholeFile`] where the entry must be
    /// loaded with the whole file.
    pub fn cut(&self, ptx: &str, entry: &str) -> Result<String, WholeFile> {
        if let Some(reason) = &self.whole {
            return Err(reason.clone());
        }
        let roots = self.names.get(entry).map_or(&[][..], Vec::as_slice);
        if !roots
            .iter()
            .any(|&s| self.statements[s].kind == Kind::Code { entry: true })
        {
            return Err(WholeFile::NoEntry);
        }
        let mut keep = vec![false; self.statements.len()];
        let mut queue: Vec<usize> = Vec::new();
        for &s in roots {
            keep[s] = true;
            queue.push(s);
        }
        while let Some(s) = queue.pop() {
            let statement = &self.statements[s];
            if let Kind::Variable { space } = statement.kind {
                let name = declared_name(&ptx[statement.range.clone()]).unwrap_or_default();
                if !copyable(space, name) {
                    return Err(WholeFile::State {
                        name: name.to_string(),
                        space: space.to_string(),
                    });
                }
            }
            for word in Words::new(&ptx[statement.range.clone()]) {
                if word == ".callprototype" || word == ".calltargets" {
                    return Err(WholeFile::Indirect);
                }
                if word.starts_with(['.', '%']) || !super::is_identifier(word) {
                    continue;
                }
                for &t in self.names.get(word).map_or(&[][..], Vec::as_slice) {
                    if !keep[t] {
                        keep[t] = true;
                        queue.push(t);
                    }
                }
            }
        }
        let mut out = String::new();
        for (s, statement) in self.statements.iter().enumerate() {
            if keep[s] || statement.kind == Kind::Always {
                out.push_str(&ptx[statement.range.clone()]);
                out.push('\n');
            }
        }
        Ok(out)
    }
}

/// Whether a module-scope variable can be copied into each module that names it: per-block
/// `.shared` memory (no kernel sees another's), and the string constants nvcc emits for
/// `printf` and `assert` (`$str`, `$str$1`, `__unnamed_1`: names no C++ source can declare,
/// whose contents no code may change).
fn copyable(space: &str, name: &str) -> bool {
    space == ".shared" || name.starts_with("$str") || name.starts_with("__unnamed_")
}

/// Why a statement was not read.
enum Unread {
    Debug,
    Unknown,
}

/// What a statement is, and the name it declares.
fn classify(text: &str) -> Result<(Kind, Option<&str>), Unread> {
    let mut words = Words::new(text);
    let mut first = words.next().unwrap_or_default();
    match first {
        ".version" | ".address_size" | ".file" | ".pragma" => return Ok((Kind::Always, None)),
        ".target" => {
            return if words.any(|w| w == "debug") {
                Err(Unread::Debug)
            } else {
                Ok((Kind::Always, None))
            }
        }
        ".section" => {
            return match words.next() {
                Some(".debug_str") => Ok((Kind::Always, None)),
                _ => Err(Unread::Debug),
            }
        }
        _ => {}
    }
    while matches!(first, ".visible" | ".extern" | ".weak" | ".common") {
        first = words.next().unwrap_or_default();
    }
    match first {
        ".entry" | ".func" | ".alias" => {
            let entry = first == ".entry";
            // The name follows `.func`, or the return parameters `(…)` after it.
            let mut depth = 0usize;
            for w in words {
                match w {
                    "(" => depth += 1,
                    ")" => depth = depth.saturating_sub(1),
                    w if depth == 0 && super::is_identifier(w) && !w.starts_with('%') => {
                        return Ok((Kind::Code { entry }, Some(w)));
                    }
                    // `.attribute(.unified)` and the like before the name.
                    w if depth == 0 && !w.starts_with('.') => return Err(Unread::Unknown),
                    _ => {}
                }
            }
            Err(Unread::Unknown)
        }
        space if SPACES.contains(&space) => {
            let space = SPACES.iter().find(|s| **s == space).expect("matched above");
            match declared_name(text) {
                Some(name) => Ok((Kind::Variable { space }, Some(name))),
                None => Err(Unread::Unknown),
            }
        }
        _ => Err(Unread::Unknown),
    }
}

/// The name a variable declaration declares: its first identifier (`$str` in
/// `.global .align 1 .b8 $str[11] = {…};`).
fn declared_name(text: &str) -> Option<&str> {
    Words::new(text).find(|w| super::is_identifier(w) && !w.starts_with('%'))
}

/// Skips whitespace and comments from `at`; counts lines.
fn skip_trivia(bytes: &[u8], mut at: usize, line: &mut usize) -> usize {
    while at < bytes.len() {
        match bytes[at] {
            b'\n' => {
                *line += 1;
                at += 1;
            }
            b' ' | b'\t' | b'\r' | b'\x0c' | b'\x0b' => at += 1,
            b'/' if bytes.get(at + 1) == Some(&b'/') => {
                while at < bytes.len() && bytes[at] != b'\n' {
                    at += 1;
                }
            }
            b'/' if bytes.get(at + 1) == Some(&b'*') => {
                at += 2;
                while at < bytes.len() && !(bytes[at] == b'*' && bytes.get(at + 1) == Some(&b'/')) {
                    *line += usize::from(bytes[at] == b'\n');
                    at += 1;
                }
                at = (at + 2).min(bytes.len());
            }
            _ => break,
        }
    }
    at
}

/// The end of the statement that starts at `at`: after its `;` (outside braces), after the
/// `}` that closes its body (a function, a section), or, for the header directives that take
/// no `;` (`.version`, `.target`, `.address_size`, `.file`), at the end of its line.
fn statement_end(bytes: &[u8], at: usize, line: &mut usize) -> usize {
    let header = [&b".version"[..], b".target", b".address_size", b".file"]
        .iter()
        .any(|d| {
            bytes[at..].starts_with(d)
                && bytes
                    .get(at + d.len())
                    .is_none_or(|c| c.is_ascii_whitespace())
        });
    let (mut depth, mut initializer) = (0usize, false);
    let mut i = at;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' if header && depth == 0 => return i,
            b'\n' => *line += 1,
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i + 1 < bytes.len() && bytes[i + 1] != b'\n' {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < bytes.len() && !(bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/')) {
                    *line += usize::from(bytes[i] == b'\n');
                    i += 1;
                }
                i += 1;
            }
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' && bytes[i] != b'\n' {
                    i += 1;
                }
                if bytes.get(i) == Some(&b'\n') {
                    continue;
                }
            }
            b'=' if depth == 0 => initializer = true,
            b'{' => depth += 1,
            b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 && !initializer {
                    return i + 1;
                }
            }
            b';' if depth == 0 => return i + 1,
            _ => {}
        }
        i += 1;
    }
    bytes.len()
}

/// The words of a statement, skipping comments and strings: directives (`.global`),
/// identifiers, registers, numbers, and each other character alone (`(`, `[`, `,`).
struct Words<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Words<'a> {
    fn new(text: &'a str) -> Self {
        Words { text, at: 0 }
    }
}

impl<'a> Iterator for Words<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let bytes = self.text.as_bytes();
        let mut line = 0;
        loop {
            self.at = skip_trivia(bytes, self.at, &mut line);
            let start = self.at;
            let &c = bytes.get(start)?;
            let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$';
            self.at += 1;
            if c == b'"' {
                while self.at < bytes.len() && bytes[self.at] != b'"' {
                    self.at += 1;
                }
                self.at = (self.at + 1).min(bytes.len());
                continue;
            }
            if c == b'.' {
                // A directive: `.u64.ptr` is two.
                while self.at < bytes.len() && word(bytes[self.at]) {
                    self.at += 1;
                }
            } else if word(c) || c == b'%' {
                // An identifier, a register (`%tid.x`), a number or an instruction
                // (`ld.global.f32`, one word: no part of it names a symbol).
                while self.at < bytes.len() && (word(bytes[self.at]) || bytes[self.at] == b'.') {
                    self.at += 1;
                }
            } else if !c.is_ascii() {
                // The rest of a character outside comments (not PTX): one word.
                while self.at < bytes.len() && !self.text.is_char_boundary(self.at) {
                    self.at += 1;
                }
            }
            return Some(&self.text[start..self.at]);
        }
    }
}
