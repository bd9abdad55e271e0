//! A small reader for the kernel (`.entry`) signatures of a PTX module.
//!
//! Only what is needed to check a Rust kernel signature and its launches against PTX is read:
//! entry names, each parameter's type, alignment and array length, the performance directives,
//! and the few instructions that decide how a kernel may be launched, found over the entry's
//! whole call graph (see [`BodyUses`]). Everything else is skipped.

mod facts;
pub(crate) mod rule;

pub use facts::{BodyUses, Callee, Fact, Seen, Site, UnseenCall};

/// One `.entry` (kernel) in a PTX module.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Entry {
    /// The entry's symbol name, as written (C++ names stay mangled).
    pub name: String,
    /// The kernel's parameters, in order.
    pub params: Vec<Param>,
    /// 1-based line of the `.entry` directive.
    pub line: usize,
    /// Its performance directives (`.maxntid` …), between the parameters and the body.
    pub directives: Directives,
    /// What it executes that matters to how it may be launched: its body and every function
    /// it calls, transitively.
    pub uses: BodyUses,
}

/// Three extents of a directive such as `.maxntid 256, 1, 1` (missing ones are 1), with the
/// 1-based line the directive is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DimDirective {
    /// The extents.
    pub dims: [u32; 3],
    /// 1-based line of the directive.
    pub line: usize,
}

/// One number of a directive such as `.maxclusterrank 8`, with its line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NumDirective {
    /// The value.
    pub value: u32,
    /// 1-based line of the directive.
    pub line: usize,
}

/// The performance directives of an entry: what the compiler fixed about its launches.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Directives {
    /// `.reqntid`: the block must be exactly this.
    pub reqntid: Option<DimDirective>,
    /// `.maxntid` (`__launch_bounds__`): the block may hold at most this many threads in all.
    pub maxntid: Option<DimDirective>,
    /// `.reqnctapercluster` (`__cluster_dims__`): the cluster is compiled in.
    pub reqnctapercluster: Option<DimDirective>,
    /// `.explicitcluster` (`__cluster_dims__`, with or without dimensions): the kernel must be
    /// launched with clusters; the line.
    pub explicitcluster: Option<usize>,
    /// `.blocksareclusters` (CUDA 13's `__block_size__`): the launch's grid counts clusters of
    /// `.reqnctapercluster` blocks, not blocks; the line.
    pub blocksareclusters: Option<usize>,
    /// `.maxclusterrank`: at most this many blocks per cluster.
    pub maxclusterrank: Option<NumDirective>,
    /// `.minnctapersm` (`__launch_bounds__`' second argument).
    pub minnctapersm: Option<NumDirective>,
}

/// One `.param` of an entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// The parameter's name, e.g. `saxpy_param_0`.
    pub name: String,
    /// The element type (`.b8` for by-value structs).
    pub ty: PtxType,
    /// The `.align N` value, if given.
    pub align: Option<u32>,
    /// `N` for an array parameter `name[N]` (by-value structs).
    pub array_len: Option<u32>,
    /// 1-based line of the `.param`.
    pub line: usize,
    /// The trimmed source line of the parameter, for error messages.
    pub text: String,
}

impl Param {
    /// Total size of the parameter in bytes (element size times array length).
    pub fn size_bytes(&self) -> u64 {
        u64::from(self.ty.bits().div_ceil(8)) * u64::from(self.array_len.unwrap_or(1))
    }
}

/// A PTX fundamental type, as used in `.param` declarations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)] // the variants are the PTX type names
pub enum PtxType {
    B8,
    B16,
    B32,
    B64,
    U8,
    U16,
    U32,
    U64,
    S8,
    S16,
    S32,
    S64,
    F16,
    F32,
    F64,
    Pred,
}

/// Every type with its PTX spelling, for parsing and [`PtxType::name`].
const TYPES: [(PtxType, &str, u32); 16] = [
    (PtxType::B8, ".b8", 8),
    (PtxType::B16, ".b16", 16),
    (PtxType::B32, ".b32", 32),
    (PtxType::B64, ".b64", 64),
    (PtxType::U8, ".u8", 8),
    (PtxType::U16, ".u16", 16),
    (PtxType::U32, ".u32", 32),
    (PtxType::U64, ".u64", 64),
    (PtxType::S8, ".s8", 8),
    (PtxType::S16, ".s16", 16),
    (PtxType::S32, ".s32", 32),
    (PtxType::S64, ".s64", 64),
    (PtxType::F16, ".f16", 16),
    (PtxType::F32, ".f32", 32),
    (PtxType::F64, ".f64", 64),
    (PtxType::Pred, ".pred", 1),
];

impl PtxType {
    fn entry(self) -> (PtxType, &'static str, u32) {
        TYPES
            .into_iter()
            .find(|t| t.0 == self)
            .unwrap_or((self, "?", 0))
    }

    /// Parses a type directive such as `.u32`.
    pub fn from_name(s: &str) -> Option<PtxType> {
        TYPES.into_iter().find(|t| t.1 == s).map(|t| t.0)
    }

    /// Width in bits (1 for `.pred`).
    pub const fn bits(self) -> u32 {
        // A loop, not `entry()`: const code (`param::fits`) calls this.
        let mut i = 0;
        while i < TYPES.len() {
            if TYPES[i].0 as u8 == self as u8 {
                return TYPES[i].2;
            }
            i += 1;
        }
        0
    }

    /// Whether this is a floating-point type (`.f16`, `.f32`, `.f64`).
    pub fn is_float(self) -> bool {
        use PtxType::*;
        matches!(self, F16 | F32 | F64)
    }

    /// The PTX spelling, e.g. `".u32"`.
    pub fn name(self) -> &'static str {
        self.entry().1
    }
}

/// Result of looking a kernel up by name with [`find_entry`].
#[derive(Debug)]
pub enum Lookup<'a> {
    /// An entry with exactly this name (e.g. an `extern "C"` kernel).
    Exact(&'a Entry),
    /// The single C++-mangled entry `_Z<len><name>...`.
    Mangled(&'a Entry),
    /// Several mangled entries match (overloads or template instances).
    Ambiguous(Vec<&'a Entry>),
    /// No entry matches.
    Missing,
}

/// Why [`resolve_entry`] found no single entry; the message names the candidates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unresolved {
    /// Several C++ entries match: "`scale` matches 2 C++ kernels in `f.ptx`: …; pick one with
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
    match find_entry(entries, name) {
        Lookup::Exact(e) | Lookup::Mangled(e) => Ok(e),
        Lookup::Ambiguous(found) => Err(Unresolved::Ambiguous(format!(
            "`{name}` matches {} C++ kernels in {file}: {}; pick one with `name = \"…\"`",
            found.len(),
            name_list(found.iter().map(|e| e.name.as_str()))
        ))),
        Lookup::Missing => Err(Unresolved::Missing(format!(
            "no kernel `{name}` in {file}; its kernels are: {}",
            name_list(closest_first(entries, name).into_iter())
        ))),
    }
}

/// How many names a list in a message shows; the rest are counted ("and 9984 more"), so a
/// file of 10,000 kernels does not make a message of 100 KB.
pub const LIST_CAP: usize = 16;

/// The entry names in file order; when there are more than a message shows, those most like
/// `name` first (containing it or contained in it, then by common prefix), so that the one
/// meant is among those shown.
fn closest_first<'a>(entries: &'a [Entry], name: &str) -> Vec<&'a str> {
    let mut names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
    if names.len() > LIST_CAP {
        let prefix = |n: &str| {
            n.bytes()
                .zip(name.bytes())
                .take_while(|(a, b)| a == b)
                .count()
        };
        names.sort_by_key(|n| {
            let contains = n.contains(name) || name.contains(*n);
            std::cmp::Reverse((contains, prefix(n)))
        });
    }
    names
}

/// `` `a`, `b` `` for messages, or `none`; at most [`LIST_CAP`] names, then "and N more".
pub fn name_list<'a>(names: impl Iterator<Item = &'a str>) -> String {
    capped_list(names.map(|n| format!("`{n}`")), LIST_CAP)
}

/// `a, b, c` of at most `cap` items, then "and N more"; `none` when empty.
pub fn capped_list(items: impl Iterator<Item = String>, cap: usize) -> String {
    let mut shown = Vec::new();
    let mut more = 0usize;
    for item in items {
        if shown.len() < cap {
            shown.push(item);
        } else {
            more += 1;
        }
    }
    match (shown.is_empty(), more) {
        (true, _) => "none".into(),
        (false, 0) => shown.join(", "),
        (false, more) => format!("{} and {more} more", shown.join(", ")),
    }
}

/// Finds the entry named `name` exactly, or, failing that, the C++-mangled
/// entries whose name starts with `_Z<len(name)><name>`.
pub fn find_entry<'a>(entries: &'a [Entry], name: &str) -> Lookup<'a> {
    if let Some(e) = entries.iter().find(|e| e.name == name) {
        return Lookup::Exact(e);
    }
    let prefix = format!("_Z{}{}", name.len(), name);
    let mut found: Vec<&Entry> = entries
        .iter()
        .filter(|e| e.name.starts_with(&prefix))
        .collect();
    match found.len() {
        0 => Lookup::Missing,
        1 => Lookup::Mangled(found.remove(0)),
        _ => Lookup::Ambiguous(found),
    }
}

/// What a Rust kernel parameter needs from the PTX parameter in its place.
///
/// `#[kernel]` builds one per declared parameter: at compile time to check `ptx = "…"` files,
/// and as static data for `cuda = "…"` sources, whose PTX only exists at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expected {
    /// An integer of this many bits (`u8` … `i64`, `usize`, `isize`); either signedness.
    Int(u32),
    /// A float of this many bits (`f32`, `f64`).
    Float(u32),
    /// `bool`, one byte.
    Bool,
    /// A device pointer (`&CudaSlice<T>`, `&CudaView<T>`, …): 64 bits.
    Pointer,
    /// Any other type by value (a `#[repr(C)]` struct, `half::f16`): its size in bytes where
    /// known. At compile time the size is unknown (`None`): the macro asserts it instead.
    Value(Option<u64>),
}

impl Expected {
    /// What the Rust side is, for messages: "a 32-bit integer".
    pub fn describe(self) -> String {
        rule::describe(rule::Message::new(), self)
            .as_str()
            .to_string()
    }
}

/// One declared parameter of a kernel: its name, its Rust type as written and what it needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParamSig {
    /// The Rust parameter name.
    pub name: &'static str,
    /// The Rust type as written, for messages.
    pub ty: &'static str,
    /// What it needs from the PTX.
    pub expected: Expected,
}

impl Param {
    /// What the PTX side is, for messages: "a 32-bit integer", "a 16-byte struct".
    pub fn describe(&self) -> String {
        use PtxType::*;
        let bits = self.ty.bits();
        match (self.array_len, self.ty) {
            (Some(_), _) => format!("a {}-byte struct", self.size_bytes()),
            (None, F16 | F32 | F64) => format!("a {bits}-bit float"),
            (None, U64 | S64) => "a 64-bit integer or device pointer".into(),
            (None, U8 | U16 | U32 | S8 | S16 | S32) => format!("a {bits}-bit integer"),
            (None, B8 | B16 | B32 | B64) => format!("{bits} untyped bits (`{}`)", self.ty.name()),
            (None, Pred) => "a predicate".into(),
        }
    }

    /// The Rust types that fit this parameter, for the fix in a message.
    pub fn suggest(&self) -> String {
        use PtxType::*;
        match (self.array_len, self.ty) {
            (Some(_), _) if self.size_bytes() == 2 => "a 2-byte type by value: `chevron::half::f16` \
                or `bf16` (feature `f16`) for `__half` or `__nv_bfloat16`, or a `#[repr(C)]` struct \
                of 2 bytes"
                .into(),
            (Some(_), _) => format!(
                "a `#[repr(C)]` struct of {} bytes, passed by value",
                self.size_bytes()
            ),
            (None, F32) => "`f32`".into(),
            (None, F64) => "`f64`".into(),
            (None, F16) => "a 2-byte type by value such as `half::f16`".into(),
            (None, U8 | S8 | B8) => "`u8`, `i8` or `bool`".into(),
            (None, U16 | S16 | B16) => "`u16` or `i16`".into(),
            (None, U32 | S32) => "`u32` or `i32`".into(),
            (None, B32) => "`u32`, `i32` or `f32`".into(),
            (None, U64 | S64) => "`u64`, `i64` or a device buffer (`&CudaSlice<T>`)".into(),
            (None, B64) => "`u64`, `i64`, `f64` or a device buffer (`&CudaSlice<T>`)".into(),
            (None, Pred) => "nothing: `.pred` parameters cannot be passed from the host".into(),
        }
    }
}

/// Checks one declared parameter against the PTX parameter in its place.
///
/// Widths must agree; integers accept either signedness and the untyped `.bN`; floats accept
/// `.fN` and `.bN`; pointers need 64 bits; by-value types match a `.b8 name[N]` array or any
/// scalar of their size. `Ok` carries the size in bytes the Rust type must have, for
/// [`Expected::Value`] with an unknown size (the macro asserts it at compile time).
///
/// The error says what differs, without naming the Rust parameter or the line (see
/// [`check_signature`] for the full message).
pub fn check_param(expected: Expected, param: &Param) -> Result<Option<u64>, String> {
    // One rule for both: `#[kernel]` applies it in const code (`param::fits`).
    if rule::fits(expected, param.ty, param.array_len) {
        return Ok(match expected {
            Expected::Value(None) => Some(param.size_bytes()),
            _ => None,
        });
    }
    Err(format!(
        "{}, but the kernel takes {} here",
        expected.describe(),
        param.describe()
    ))
}

/// Checks a whole declared signature against an entry; every difference is reported, one per
/// line, each with the PTX line it is about.
pub fn check_signature(params: &[ParamSig], entry: &Entry) -> Result<(), String> {
    if params.len() != entry.params.len() {
        return Err(format!(
            "the PTX entry `{}` (line {}) has {} parameter{}, the declaration {}",
            entry.name,
            entry.line,
            entry.params.len(),
            if entry.params.len() == 1 { "" } else { "s" },
            params.len()
        ));
    }
    let problems: Vec<String> = params
        .iter()
        .zip(&entry.params)
        .filter_map(|(sig, param)| {
            check_param(sig.expected, param).err().map(|why| {
                format!(
                    "`{}: {}` is {why} (line {}: `{}`); declare it as {}",
                    sig.name,
                    sig.ty,
                    param.line,
                    param.text,
                    param.suggest()
                )
            })
        })
        .collect();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

/// A token of the comment-free source with its 1-based line.
struct Tok<'s> {
    text: &'s str,
    line: usize,
}

/// Replaces `//` and `/* */` comments by spaces, keeping newlines (and so
/// line numbers) intact.
fn strip_comments(src: &str) -> Result<String, String> {
    let mut out = String::with_capacity(src.len());
    let mut chars = src.chars().peekable();
    let (mut line, mut open_line) = (1, 0);
    let (mut in_line, mut in_block, mut in_str) = (false, false, false);
    while let Some(c) = chars.next() {
        if c == '\n' {
            if in_str {
                // PTX strings (`.file 1 "a.cu"`) end on their line.
                return Err(format!("line {line}: unterminated string"));
            }
            line += 1;
            in_line = false;
            out.push('\n');
        } else if in_line {
            out.push(' ');
        } else if in_block {
            if c == '*' && chars.peek() == Some(&'/') {
                chars.next();
                in_block = false;
                out.push(' ');
            }
            out.push(' ');
        } else if in_str {
            in_str = c != '"';
            out.push(c);
        } else if c == '/' && chars.peek() == Some(&'/') {
            in_line = true;
            out.push(' ');
        } else if c == '/' && chars.peek() == Some(&'*') {
            chars.next();
            (in_block, open_line) = (true, line);
            out.push_str("  ");
        } else {
            in_str = c == '"';
            out.push(c);
        }
    }
    if in_block {
        return Err(format!("line {open_line}: unterminated `/*` comment"));
    }
    if in_str {
        return Err(format!("line {line}: unterminated string"));
    }
    Ok(out)
}

/// Splits comment-free PTX into identifiers, directives, numbers, strings
/// and single punctuation characters.
fn tokenize(src: &str) -> Vec<Tok<'_>> {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == '.';
    let mut toks = Vec::new();
    let mut line = 1;
    let mut it = src.char_indices().peekable();
    while let Some((start, c)) = it.next() {
        if c == '\n' {
            line += 1;
            continue;
        }
        if c.is_whitespace() {
            continue;
        }
        let mut end = start + c.len_utf8();
        if c == '"' {
            for (i, d) in it.by_ref() {
                end = i + d.len_utf8();
                line += usize::from(d == '\n');
                if d == '"' {
                    break;
                }
            }
        } else if word(c) || c == '%' {
            // `.b8`, `saxpy_param_0`, `%r1`, `16`, `0f3F800000`, `$L__BB0_2`.
            // A `.` only starts a token, so `.u64.ptr` is two directives.
            while let Some(&(i, d)) = it.peek() {
                if !word(d) || (d == '.' && i > start) {
                    break;
                }
                end = i + d.len_utf8();
                it.next();
            }
        }
        toks.push(Tok {
            text: &src[start..end],
            line,
        });
    }
    toks
}

/// Parses the tokens of one parameter (from `.param` up to the `,` or `)`).
fn parse_param(toks: &[Tok<'_>], lines: &[&str]) -> Result<Param, String> {
    let (first, line) = match toks.first() {
        Some(t) => (t.text, t.line),
        None => return Err("empty parameter in `.entry` parameter list".into()),
    };
    let text = lines
        .get(line.saturating_sub(1))
        .map_or(String::new(), |l| quote_line(l));
    let fail = |msg: &str| format!("line {line}: {msg} in `{text}`");
    if first != ".param" {
        return Err(fail("expected `.param`"));
    }
    let number = |j: usize| toks.get(j).and_then(|t| parse_u32(t.text));
    let (mut ty, mut name, mut align, mut array_len) = (None, None, None, None);
    let mut i = 1;
    while let Some(t) = toks.get(i) {
        match t.text {
            ".align" => {
                i += 1;
                align = Some(number(i).ok_or_else(|| fail("bad `.align`"))?);
            }
            ".ptr" | ".global" | ".const" | ".local" | ".shared" => {}
            "[" if name.is_some() && array_len.is_none() => {
                array_len = Some(number(i + 1).ok_or_else(|| fail("bad array length"))?);
                if toks.get(i + 2).map(|t| t.text) != Some("]") {
                    return Err(fail("expected `]`"));
                }
                i += 2;
            }
            s if s.starts_with('.') && ty.is_none() => {
                let bad = || fail(&format!("unknown type `{}`", quote_line(s)));
                ty = Some(PtxType::from_name(s).ok_or_else(bad)?);
            }
            s if name.is_none()
                && s.starts_with(|c: char| c.is_alphabetic() || "_$%".contains(c)) =>
            {
                name = Some(s.to_string());
            }
            s => return Err(fail(&format!("unexpected `{}`", quote_line(s)))),
        }
        i += 1;
    }
    match (ty, name) {
        (Some(ty), Some(name)) => Ok(Param {
            name,
            ty,
            align,
            array_len,
            line,
            text,
        }),
        (None, _) => Err(fail("missing type")),
        (_, None) => Err(fail("missing name")),
    }
}

/// Reads the performance directives after an entry's parameter list, up to its body or `;`.
/// Unknown directives are skipped; `i` is left at the first token that is not part of one.
fn parse_directives(toks: &[Tok<'_>], i: &mut usize) -> Result<Directives, String> {
    let mut d = Directives::default();
    while let Some(t) = toks.get(*i) {
        // Only performance directives: a following `.visible .entry` must stay for the caller.
        const PERFORMANCE: [&str; 10] = [
            ".reqntid",
            ".maxntid",
            ".reqnctapercluster",
            ".explicitcluster",
            ".maxclusterrank",
            ".minnctapersm",
            ".maxnreg",
            ".maxnctapersm",
            ".noreturn",
            ".blocksareclusters",
        ];
        if !PERFORMANCE.contains(&t.text) {
            break;
        }
        *i += 1;
        // Up to three comma-separated numbers: `.maxntid 256, 1, 1`.
        let mut nums: Vec<u32> = Vec::new();
        while nums.len() < 3 {
            let Some(n) = toks.get(*i) else { break };
            if !n.text.starts_with(|c: char| c.is_ascii_digit()) {
                break;
            }
            let value = parse_u32(n.text).ok_or_else(|| {
                format!(
                    "line {}: `{} {}`: expected a number up to {}",
                    n.line,
                    t.text,
                    quote_line(n.text),
                    u32::MAX
                )
            })?;
            nums.push(value);
            *i += 1;
            match toks.get(*i) {
                Some(c) if c.text == "," => *i += 1,
                _ => break,
            }
        }
        let line = t.line;
        let want = |max: usize| {
            if (1..=max).contains(&nums.len()) {
                Ok(())
            } else {
                let count = if max == 1 {
                    "one number".to_string()
                } else {
                    format!("1 to {max} numbers")
                };
                Err(format!(
                    "line {line}: `{}` takes {count}, found {}",
                    t.text,
                    nums.len()
                ))
            }
        };
        let dims = |nums: &[u32]| DimDirective {
            dims: [0, 1, 2].map(|k| nums.get(k).copied().unwrap_or(1)),
            line,
        };
        match t.text {
            ".reqntid" | ".maxntid" | ".reqnctapercluster" => {
                want(3)?;
                let slot = match t.text {
                    ".reqntid" => &mut d.reqntid,
                    ".maxntid" => &mut d.maxntid,
                    _ => &mut d.reqnctapercluster,
                };
                *slot = Some(dims(&nums));
            }
            ".maxclusterrank" | ".minnctapersm" => {
                want(1)?;
                let value = NumDirective {
                    value: nums[0],
                    line,
                };
                if t.text == ".maxclusterrank" {
                    d.maxclusterrank = Some(value);
                } else {
                    d.minnctapersm = Some(value);
                }
            }
            ".explicitcluster" => d.explicitcluster = Some(line),
            ".blocksareclusters" => d.blocksareclusters = Some(line),
            // `.maxnreg`, `.noreturn` …: not about the launch.
            _ => {}
        }
    }
    Ok(d)
}

/// An integer constant as ptxas reads one: decimal, hexadecimal (`0x100`), octal (`0400`) or
/// binary (`0b100`), optionally with the unsigned suffix `U`; `None` when it is none of those or
/// does not fit in `u32`.
pub fn parse_u32(text: &str) -> Option<u32> {
    let digits = text.strip_suffix('U').unwrap_or(text);
    let (radix, digits) = if let Some(hex) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        (16, hex)
    } else if let Some(bin) = digits
        .strip_prefix("0b")
        .or_else(|| digits.strip_prefix("0B"))
    {
        (2, bin)
    } else if digits.len() > 1 && digits.starts_with('0') {
        (8, &digits[1..])
    } else {
        (10, digits)
    };
    // `from_str_radix` takes a sign; PTX constants here have none.
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    u32::from_str_radix(digits, radix).ok()
}

/// The longest source line quoted in a message; longer ones are cut with `…`.
const QUOTE_CAP: usize = 160;

/// A line of the source for a message: trimmed, and cut at [`QUOTE_CAP`] characters.
fn quote_line(line: &str) -> String {
    let line = line.trim();
    match line.char_indices().nth(QUOTE_CAP) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line.to_string(),
    }
}

/// Whether `s` is a PTX identifier: `[a-zA-Z][a-zA-Z0-9_$]*` or `[_$%][a-zA-Z0-9_$]+`.
pub fn is_identifier(s: &str) -> bool {
    let follow = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$';
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() => chars.all(follow),
        Some('_' | '$' | '%') => {
            let rest = chars.as_str();
            !rest.is_empty() && rest.chars().all(follow)
        }
        _ => false,
    }
}

/// The CUDA device runtime functions a PTX module declares `.extern .func` and calls: those
/// named `cuda…` or `__cuda…` (`cudaGraphKernelNodeSetParam`, `cudaLaunchDeviceV2`, …), which
/// only `libcudadevrt` defines. Such a module is relocatable code (`nvcc -ptx -rdc=true`) and
/// must be linked with that library before it loads; other externs (`vprintf`, `malloc`) the
/// driver resolves itself. Each name once, in order of declaration; linear in the text.
pub fn device_runtime_calls(ptx: &str) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    let mut rest = ptx;
    while let Some(at) = rest.find(".extern") {
        let after = &rest[at + ".extern".len()..];
        rest = after;
        let Some(decl) = after.trim_start().strip_prefix(".func") else {
            continue;
        };
        let mut decl = decl.trim_start();
        if let Some(ret) = decl.strip_prefix('(') {
            // The return parameter list: `(.param .b32 func_retval0)`.
            match ret.find(')') {
                Some(close) => decl = ret[close + 1..].trim_start(),
                None => break,
            }
        }
        let end = decl
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
            .unwrap_or(decl.len());
        let name = &decl[..end];
        let runtime = name.starts_with("cuda") || name.starts_with("__cuda");
        if runtime && !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

/// Parses every `.entry` of a PTX module.
///
/// `.extern .entry` declarations are skipped; `.func` bodies are read for what the entries
/// calling them execute ([`Entry::uses`]). Errors name the offending line. Lines may end in `\n`, `\r\n` or a lone `\r`. The time taken is linear in
/// the size of the text.
pub fn parse_entries(ptx: &str) -> Result<Vec<Entry>, String> {
    if ptx.starts_with('\u{FEFF}') {
        // ptxas: "Unexpected non-ASCII character encountered on line 1".
        return Err(
            "line 1: the file begins with a UTF-8 byte order mark (bytes EF BB BF), \
                    which ptxas and the driver reject as a non-ASCII character; save the file \
                    without it"
                .into(),
        );
    }
    // One line ending, so that line numbers and quoted lines agree with what an editor shows.
    let normalized;
    let ptx = if ptx.contains('\r') {
        normalized = ptx.replace("\r\n", "\n").replace('\r', "\n");
        normalized.as_str()
    } else {
        ptx
    };
    let clean = strip_comments(ptx)?;
    let toks = tokenize(&clean);
    let lines: Vec<&str> = ptx.split('\n').collect();
    let mut entries: Vec<Entry> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let (mut depth, mut is_extern) = (0usize, false);
    let mut i = 0;
    while let Some(t) = toks.get(i) {
        i += 1;
        match t.text {
            "{" => depth += 1,
            "}" => {
                depth = depth
                    .checked_sub(1)
                    .ok_or_else(|| format!("line {}: unbalanced `}}`", t.line))?;
                is_extern = false;
            }
            ";" => is_extern = false,
            ".extern" if depth == 0 => is_extern = true,
            // `.extern` applies to the one declaration after it, even if its `;` is missing.
            ".func" if depth == 0 => is_extern = false,
            ".entry" if depth == 0 => {
                let name = match toks.get(i) {
                    Some(n) if is_identifier(n.text) && !n.text.starts_with('%') => n.text,
                    Some(n) if n.text != "(" && n.text != "{" => {
                        return Err(format!(
                            "line {}: `{}` cannot name an `.entry`: expected an identifier such \
                             as `saxpy`",
                            n.line,
                            quote_line(n.text)
                        ))
                    }
                    _ => return Err(format!("line {}: expected a name after `.entry`", t.line)),
                };
                i += 1;
                let mut params = Vec::new();
                match toks.get(i).map(|t| t.text) {
                    Some("(") => {
                        let close = toks[i..]
                            .iter()
                            .position(|t| t.text == ")")
                            .map(|p| p + i)
                            .ok_or_else(|| {
                                format!("line {}: unterminated parameter list of `{name}`", t.line)
                            })?;
                        let list = &toks[i + 1..close];
                        if !list.is_empty() {
                            for p in list.split(|t| t.text == ",") {
                                params.push(parse_param(p, &lines)?);
                            }
                        }
                        i = close + 1;
                    }
                    // No parameter list: a body, the end of a declaration, or a performance
                    // directive (`.maxntid` …) comes next.
                    Some("{" | ";") => {}
                    Some(d) if d.starts_with('.') && d != ".param" => {}
                    _ => {
                        return Err(format!(
                            "line {}: expected `(` after `.entry {name}`, before its parameters",
                            t.line
                        ))
                    }
                }
                let directives = parse_directives(&toks, &mut i)?;
                if !is_extern {
                    if !seen.insert(name) {
                        return Err(format!("line {}: duplicate `.entry {name}`", t.line));
                    }
                    entries.push(Entry {
                        name: name.to_string(),
                        params,
                        line: t.line,
                        directives,
                        uses: BodyUses::default(),
                    });
                }
                is_extern = false;
            }
            _ => {}
        }
    }
    if depth != 0 {
        return Err("unterminated `{` block at end of PTX".into());
    }
    facts::analyze(&toks, &mut entries);
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_runtime_calls_are_the_cuda_externs() {
        let ptx = ".version 9.0\n.target sm_90\n.address_size 64\n\
            .extern .func  (.param .b32 func_retval0) cudaGraphKernelNodeSetParam\n(\n\
            .param .b64 p0\n);\n\
            .extern .func (.param .b32 r) vprintf(.param .b64 f, .param .b64 a);\n\
            .extern .func __cudaCDP2Launch(.param .b64 x);\n\
            .extern .func  (.param .b32 func_retval0) cudaGraphKernelNodeSetParam(.param .b64 p);\n\
            .extern .shared .align 4 .b8 smem[];\n\
            .visible .entry k() { ret; }\n";
        assert_eq!(
            device_runtime_calls(ptx),
            ["cudaGraphKernelNodeSetParam", "__cudaCDP2Launch"]
        );
        assert!(device_runtime_calls(".visible .entry k() { ret; }").is_empty());
        // Truncated declarations end the scan without panicking.
        assert!(device_runtime_calls(".extern .func (.param .b32 r").is_empty());
        assert!(device_runtime_calls(".extern").is_empty());
    }
    use PtxType::*;

    fn parse(src: &str) -> Vec<Entry> {
        parse_entries(src).expect("PTX parses")
    }

    fn types(e: &Entry) -> Vec<PtxType> {
        e.params.iter().map(|p| p.ty).collect()
    }

    #[test]
    fn saxpy() {
        let es = parse(include_str!("../../kernels/saxpy.ptx"));
        assert_eq!(es.len(), 1);
        assert_eq!(es[0].name, "saxpy");
        assert_eq!(types(&es[0]), [U32, F32, U64, U64]);
        assert_eq!(es[0].params[2].name, "saxpy_param_2");
        assert_eq!(es[0].params[0].line, es[0].line + 1);
        assert_eq!(es[0].params[0].text, ".param .u32 saxpy_param_0,");
        assert!(matches!(find_entry(&es, "saxpy"), Lookup::Exact(e) if e.name == "saxpy"));
        assert!(matches!(find_entry(&es, "sax"), Lookup::Missing));
    }

    #[test]
    fn struct_param() {
        let es = parse(include_str!("../../kernels/structs.ptx"));
        let p = &es[0].params[0];
        assert_eq!((p.ty, p.align, p.array_len), (B8, Some(8), Some(16)));
        assert_eq!(p.size_bytes(), 16);
        assert_eq!(types(&es[0]), [B8, U64, U64, U32]);
    }

    #[test]
    fn all_types() {
        let es = parse(include_str!("../../kernels/params.ptx"));
        let bits: Vec<u32> = es[0].params.iter().map(|p| p.ty.bits()).collect();
        assert_eq!(bits, [8, 8, 16, 16, 32, 32, 64, 64, 32, 64, 8, 64]);
        assert!(es[0].params[8].ty.is_float() && es[0].params[9].ty.is_float());
        assert!(!es[0].params[4].ty.is_float());
    }

    #[test]
    fn mangled_templates() {
        let es = parse(include_str!("../../kernels/templates.ptx"));
        assert_eq!(es.len(), 4);
        match find_entry(&es, "gemm") {
            Lookup::Mangled(e) => {
                assert_eq!(e.name, "_Z4gemmILi128EEvPKfS1_Pfiii");
                assert_eq!(types(e), [U64, U64, U64, U32, U32, U32]);
            }
            other => panic!("gemm: {other:?}"),
        }
        assert!(matches!(find_entry(&es, "scale"), Lookup::Ambiguous(v) if v.len() == 2));
        assert!(
            matches!(find_entry(&es, "offset_add"), Lookup::Mangled(e) if e.name == "_Z10offset_addPffj")
        );
        assert!(matches!(
            find_entry(&es, "_Z10offset_addPffj"),
            Lookup::Exact(_)
        ));
        assert!(matches!(find_entry(&es, "gem"), Lookup::Missing));
    }

    #[test]
    fn other_kernels() {
        let es = parse(include_str!("../../kernels/pipeline.ptx"));
        let names: Vec<&str> = es.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["produce", "consume"]);
        assert_eq!(types(&es[0]), [U64, F32, U32, U32]);
        assert_eq!(types(&es[1]), [U64, U64, U32]);
        let es = parse(include_str!("../../kernels/cluster.ptx"));
        assert_eq!(
            (es[0].name.as_str(), types(&es[0])),
            ("cluster_info", vec![U64])
        );
        let es = parse(include_str!("../../kernels/cooperative.ptx"));
        assert_eq!(types(&es[0]), [U64, U64, U64, U32]);
    }

    #[test]
    fn directives_and_body_uses_of_the_fixtures() {
        let src = include_str!("../../kernels/bounds.ptx");
        let es = parse(src);
        let line_of = |needle: &str| {
            src.lines()
                .position(|l| l.starts_with(needle))
                .map(|p| p + 1)
        };
        let b = &es[0].directives;
        assert_eq!(es[0].name, "bounded_scale");
        assert_eq!(
            b.maxntid,
            Some(DimDirective {
                dims: [256, 1, 1],
                line: line_of(".maxntid").expect("maxntid line")
            })
        );
        assert_eq!((b.reqntid, b.reqnctapercluster), (None, None));
        let c = &es[1].directives;
        assert_eq!(es[1].name, "clustered_rank");
        assert_eq!(c.reqnctapercluster.map(|d| d.dims), Some([2, 1, 1]));
        assert_eq!(c.explicitcluster, line_of(".explicitcluster"));
        assert_eq!(es[1].params.len(), 1);
        let es = parse(include_str!("../../kernels/pdl_checks.ptx"));
        let uses: Vec<(Fact, Fact)> = es
            .iter()
            .map(|e| {
                (
                    e.uses.griddep_wait.fact(),
                    e.uses.griddep_launch_dependents.fact(),
                )
            })
            .collect();
        use Fact::{No, Yes};
        assert_eq!(uses, [(No, Yes), (Yes, No), (No, No)]);
        let es = parse(include_str!("../../kernels/cooperative.ptx"));
        assert_eq!(es[0].uses.grid_sync.fact(), Yes);
        let saxpy = parse(include_str!("../../kernels/saxpy.ptx"));
        assert_eq!(saxpy[0].uses, BodyUses::default());
    }

    #[test]
    fn directives_hand_written() {
        let es = parse(
            ".entry a() .reqntid 32 .maxclusterrank 8 .minnctapersm 2 .maxnreg 64 { \n\
               griddepcontrol.wait; }\n\
             .func f() { griddepcontrol.launch_dependents; mov.u32 %r1, %envreg2; }\n\
             .entry b(.param .u32 x)\n.maxntid 16, 16\n.reqnctapercluster 4, 2\n{ mov.u32 %r1, %envreg2;\n\
               atom.add.release.gpu.u32 %r2, [%rd1], 1; }\n\
             .extern .entry c() .maxntid 1;\n\
             .entry d() { ret; }",
        );
        let a = &es[0];
        assert_eq!(a.directives.reqntid.map(|d| d.dims), Some([32, 1, 1]));
        assert_eq!(a.directives.maxclusterrank.map(|d| d.value), Some(8));
        assert_eq!(
            a.directives.minnctapersm.map(|d| (d.value, d.line)),
            Some((2, 1))
        );
        assert_eq!(
            a.uses.griddep_wait,
            Seen::Yes(Site {
                line: 2,
                func: None
            })
        );
        // The `.func`'s instructions belong to no entry that does not call it.
        assert_eq!(
            (&a.uses.griddep_launch_dependents, &a.uses.grid_sync),
            (&Seen::No, &Seen::No)
        );
        let b = &es[1];
        assert_eq!(
            b.directives.maxntid.map(|d| (d.dims, d.line)),
            Some(([16, 16, 1], 5))
        );
        assert_eq!(
            b.directives.reqnctapercluster.map(|d| d.dims),
            Some([4, 2, 1])
        );
        // The barrier's arrival is the site of a grid sync.
        assert_eq!(b.uses.grid_sync.site().map(|s| s.line), Some(8));
        assert_eq!(es[2].name, "d");
        assert_eq!(es[2].uses, BodyUses::default());
        let err = |src: &str| parse_entries(src).expect_err("bad directive");
        assert_eq!(
            err(".entry k() .maxntid { }"),
            "line 1: `.maxntid` takes 1 to 3 numbers, found 0"
        );
        assert!(err(".entry k() .maxntid 99999999999 { }").contains("expected a number"));
        assert_eq!(
            err(".entry k() .maxclusterrank 1, 2 { }"),
            "line 1: `.maxclusterrank` takes one number, found 2"
        );
    }

    #[test]
    fn hand_written_edge_cases() {
        let src = "// .entry commented_out(\n\
            .extern .func (.param .b32 r) helper(.param .b32 x);\n\
            .extern .entry declared_only(.param .u32 a);\n\
            .func f(.param .u64 p) { ret; }\n\
            /* .entry also_commented() {\n} */\n\
            .weak .entry none() { ret; }\n\
            .visible .entry k(.param .u64 .ptr .global .align 4 k_param_0, /* x */\n\
              .param .s8 k_param_1 // trailing\n\
            ) .maxntid 256, 1, 1 { ret; }\n";
        let es = parse(src);
        let names: Vec<&str> = es.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["none", "k"]);
        assert!(es[0].params.is_empty());
        assert_eq!(es[0].line, 7);
        let p = &es[1].params[0];
        assert_eq!(
            (p.ty, p.align, p.line, p.name.as_str()),
            (U64, Some(4), 8, "k_param_0")
        );
        assert_eq!((es[1].params[1].ty, es[1].params[1].line), (S8, 9));
        assert_eq!(S8.name(), ".s8");
        assert_eq!(PtxType::from_name(".pred"), Some(Pred));
    }

    #[test]
    fn errors_name_the_line() {
        let err = |src: &str| parse_entries(src).expect_err("should fail");
        assert!(err(".entry k(\n.param .q32 a)\n{}").starts_with("line 2: unknown type `.q32`"));
        assert!(err("\n.entry k(.param .u32 a\n").starts_with("line 2: unterminated"));
        assert!(err("/* open\n").starts_with("line 1: unterminated `/*`"));
        assert!(err(".entry (").starts_with("line 1: expected a name"));
        assert!(err(".entry k(.param a)").contains("missing type"));
        assert!(err(".entry k(.reg .u32 a)").contains("expected `.param`"));
        assert!(err(".entry k() {}\n.entry k() {}").starts_with("line 2: duplicate"));
        assert!(err("}").contains("unbalanced"));
    }

    fn sig(name: &'static str, ty: &'static str, expected: Expected) -> ParamSig {
        ParamSig { name, ty, expected }
    }

    #[test]
    fn signature_matches_saxpy() {
        let es = parse(include_str!("../../kernels/saxpy.ptx"));
        let ok = [
            sig("n", "u32", Expected::Int(32)),
            sig("a", "f32", Expected::Float(32)),
            sig("x", "&CudaSlice<f32>", Expected::Pointer),
            sig("y", "&mut CudaSlice<f32>", Expected::Pointer),
        ];
        assert_eq!(check_signature(&ok, &es[0]), Ok(()));
        // Signedness is not checked: `i32` fits `.u32`.
        let signed = [sig("n", "i32", Expected::Int(32)), ok[1], ok[2], ok[3]];
        assert_eq!(check_signature(&signed, &es[0]), Ok(()));
    }

    #[test]
    fn signature_reports_every_mismatch_with_its_line() {
        let es = parse(include_str!("../../kernels/saxpy.ptx"));
        let bad = [
            sig("n", "u64", Expected::Int(64)),
            sig("a", "u32", Expected::Int(32)),
            sig("x", "&CudaSlice<f32>", Expected::Pointer),
            sig("y", "f64", Expected::Float(64)),
        ];
        let err = check_signature(&bad, &es[0]).expect_err("three mismatches");
        let lines: Vec<&str> = err.lines().collect();
        assert_eq!(lines.len(), 3, "{err}");
        let l0 = es[0].params[0].line;
        assert_eq!(
            lines[0],
            format!(
                "`n: u64` is a 64-bit integer, but the kernel takes a 32-bit integer here \
                 (line {l0}: `.param .u32 saxpy_param_0,`); declare it as `u32` or `i32`"
            )
        );
        assert!(lines[1]
            .starts_with("`a: u32` is a 32-bit integer, but the kernel takes a 32-bit float"));
        assert!(lines[1].ends_with("declare it as `f32`"));
        assert!(lines[2]
            .starts_with("`y: f64` is a 64-bit float, but the kernel takes a 64-bit integer"));
        let short = &bad[..3];
        let err = check_signature(short, &es[0]).expect_err("count");
        assert_eq!(
            err,
            format!(
                "the PTX entry `saxpy` (line {}) has 4 parameters, the declaration 3",
                es[0].line
            )
        );
    }

    #[test]
    fn check_param_classes() {
        let es = parse(include_str!("../../kernels/params.ptx"));
        let p = &es[0].params;
        // u8 i8 u16 i16 u32 i32 u64 i64 f32 f64 bool *f64
        let want = [
            Expected::Int(8),
            Expected::Int(8),
            Expected::Int(16),
            Expected::Int(16),
            Expected::Int(32),
            Expected::Int(32),
            Expected::Int(64),
            Expected::Int(64),
            Expected::Float(32),
            Expected::Float(64),
            Expected::Bool,
            Expected::Pointer,
        ];
        for (e, p) in want.iter().zip(p) {
            assert_eq!(check_param(*e, p), Ok(None), "{e:?} vs {}", p.text);
        }
        assert!(check_param(Expected::Float(32), &p[4]).is_err()); // f32 vs .u32
        assert!(check_param(Expected::Int(32), &p[8]).is_err()); // u32 vs .f32
        assert!(check_param(Expected::Int(16), &p[0]).is_err()); // width
        assert!(check_param(Expected::Bool, &p[2]).is_err()); // bool vs .u16
        assert!(check_param(Expected::Pointer, &p[4]).is_err()); // pointer vs .u32
        assert!(check_param(Expected::Pointer, &p[9]).is_err()); // pointer vs .f64
                                                                 // A by-value type of unknown size takes the parameter's size; of known size, must match.
        assert_eq!(check_param(Expected::Value(None), &p[4]), Ok(Some(4)));
        assert_eq!(check_param(Expected::Value(Some(4)), &p[4]), Ok(None));
        assert!(check_param(Expected::Value(Some(8)), &p[4]).is_err());
    }

    #[test]
    fn check_struct_param() {
        let es = parse(include_str!("../../kernels/structs.ptx"));
        let p = &es[0].params[0];
        assert_eq!(check_param(Expected::Value(None), p), Ok(Some(16)));
        assert_eq!(check_param(Expected::Value(Some(16)), p), Ok(None));
        assert_eq!(
            check_param(Expected::Value(Some(12)), p),
            Err("a 12-byte value, but the kernel takes a 16-byte struct here".into())
        );
        assert!(check_param(Expected::Int(64), p).is_err());
        assert!(check_param(Expected::Pointer, p).is_err());
        assert!(p.suggest().contains("16 bytes"));
    }

    #[test]
    fn cr_only_line_endings_number_lines() {
        let src = ".version 8.0\r.target sm_90\r.entry k(\r.param .u32 a,\r.param .q32 b)\r{}\r";
        let err = parse_entries(src).expect_err("bad type");
        assert_eq!(err, "line 5: unknown type `.q32` in `.param .q32 b)`");
        let es = parse(".entry k(\r\n.param .u32 a\r\n)\r\n{}\r\n.entry j() {}");
        assert_eq!((es[0].params[0].line, es[1].line), (2, 5));
        assert_eq!(es[0].params[0].text, ".param .u32 a");
    }

    #[test]
    fn unterminated_string_is_an_error_not_a_lost_file() {
        let src = ".file 1 \"a.cu\n.entry k() {}\n.entry j() {}\n";
        assert_eq!(
            parse_entries(src).expect_err("string"),
            "line 1: unterminated string"
        );
        assert!(parse_entries(".pragma \"nounroll").is_err());
        let ok = parse(".file 1 \"a // b.cu\"\n.entry k() {}");
        assert_eq!(ok[0].name, "k");
    }

    #[test]
    fn extern_without_semicolon_does_not_hide_later_entries() {
        let es = parse(
            ".extern .entry declared(.param .u32 a)\n.visible .entry k(.param .u32 a) {}\n\
             .extern .func (.param .b32 r) f(.param .b32 x)\n.entry j() {}",
        );
        let names: Vec<&str> = es.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["k", "j"]);
    }

    #[test]
    fn entry_names_must_be_identifiers() {
        for bad in [";", ")", "42", "%r1", "$", "-k"] {
            let err = parse_entries(&format!(".entry {bad}() {{}}")).expect_err(bad);
            assert!(err.contains("cannot name an `.entry`"), "{bad}: {err}");
        }
        for good in ["k", "_Z1kv", "$L1", "a$b_9"] {
            assert_eq!(parse(&format!(".entry {good}() {{}}"))[0].name, good);
        }
    }

    #[test]
    fn parameter_list_needs_its_parenthesis() {
        let err = parse_entries(".entry k .param .u32 a) {}").expect_err("no (");
        assert_eq!(
            err,
            "line 1: expected `(` after `.entry k`, before its parameters"
        );
        assert!(parse_entries(".entry k").is_err());
        // Without parameters the list may be left out (PTX allows it).
        assert!(parse(".entry k { ret; }")[0].params.is_empty());
        assert!(parse(".entry k .maxntid 32, 1, 1 { ret; }")[0]
            .params
            .is_empty());
    }

    #[test]
    fn lists_and_quotes_are_capped() {
        let names: Vec<String> = (0..10_000).map(|i| format!("k{i}")).collect();
        let list = name_list(names.iter().map(String::as_str));
        assert!(list.starts_with("`k0`, `k1`, "), "{list}");
        assert!(list.ends_with("`k15` and 9984 more"), "{list}");
        assert_eq!(name_list(["a", "b"].into_iter()), "`a`, `b`");
        assert_eq!(name_list(std::iter::empty()), "none");
        // In a long list, the names most like the one asked for come first.
        let es: Vec<Entry> = (0..500)
            .map(|i| Entry {
                name: format!("k{i}"),
                line: i + 1,
                ..Entry::default()
            })
            .collect();
        let Err(Unresolved::Missing(msg)) = resolve_entry(&es, "k49x", "`f.ptx`") else {
            panic!("k49x is missing")
        };
        assert!(
            msg.contains("its kernels are: `k49`, `k4`, `k490`, "),
            "{msg}"
        );
        let Err(Unresolved::Missing(msg)) = resolve_entry(&es, "k4900", "`f.ptx`") else {
            panic!("k4900 is missing")
        };
        assert!(
            msg.contains("its kernels are: `k490`, `k49`, `k4`, "),
            "{msg}"
        );
        let long = format!(".entry k(.param .u32 a {})", "x".repeat(100_000));
        let err = parse_entries(&long).expect_err("long");
        assert!(err.len() < 600, "{} bytes", err.len());
    }

    #[test]
    fn duplicate_entries_are_found_in_linear_time() {
        // 100,000 entries: the former pairwise check took minutes.
        let mut src = String::from(".version 8.0\n.target sm_90\n");
        for i in 0..100_000 {
            src.push_str(&format!(".visible .entry k{i}(.param .u32 a) {{ ret; }}\n"));
        }
        let start = std::time::Instant::now();
        let es = parse(&src);
        assert_eq!(es.len(), 100_000);
        src.push_str(".entry k99999() {}\n");
        let err = parse_entries(&src).expect_err("duplicate");
        let took = start.elapsed();
        assert_eq!(err, "line 100003: duplicate `.entry k99999`");
        assert!(took.as_secs_f64() < 5.0, "{took:?}");
        println!("two reads of 100,000 entries: {took:?}");
    }

    #[test]
    fn numbers_as_ptxas_reads_them() {
        // Each form ptxas 13.0 accepts in `.maxntid` (and `08`, `0x`, `-1`, `1_0`, `256u`, which
        // it rejects).
        for (text, value) in [
            ("256", 256),
            ("0x100", 256),
            ("0X100", 256),
            ("0400", 256),
            ("0b100000000", 256),
            ("0B11", 3),
            ("256U", 256),
            ("0x100U", 256),
            ("0100U", 64),
            ("0", 0),
            ("4294967295", u32::MAX),
        ] {
            assert_eq!(parse_u32(text), Some(value), "{text}");
        }
        for bad in [
            "08",
            "0x",
            "0b",
            "0b2",
            "-1",
            "+64",
            "1_0",
            "256u",
            "U",
            "4294967296",
            "0x100000000",
        ] {
            assert_eq!(parse_u32(bad), None, "{bad}");
        }
        let es = parse(
            ".entry a() .maxntid 0x100, 1, 1 { ret; }\n\
             .entry b() .reqntid 0400, 01, 1U .reqnctapercluster 0b10 { ret; }\n\
             .entry c(.param .align 0x8 .b8 s[0x10]) { ret; }",
        );
        assert_eq!(es[0].directives.maxntid.map(|d| d.dims), Some([256, 1, 1]));
        assert_eq!(es[1].directives.reqntid.map(|d| d.dims), Some([256, 1, 1]));
        assert_eq!(
            es[1].directives.reqnctapercluster.map(|d| d.dims),
            Some([2, 1, 1])
        );
        assert_eq!(
            (es[2].params[0].align, es[2].params[0].array_len),
            (Some(8), Some(16))
        );
        let err = parse_entries(".entry k() .maxntid 08 { ret; }").expect_err("octal 8");
        assert_eq!(
            err,
            "line 1: `.maxntid 08`: expected a number up to 4294967295"
        );
    }

    #[test]
    fn a_byte_order_mark_is_named() {
        let src = format!("\u{FEFF}{}", include_str!("../../kernels/saxpy.ptx"));
        let err = parse_entries(&src).expect_err("BOM");
        assert!(
            err.starts_with("line 1: the file begins with a UTF-8 byte order mark"),
            "{err}"
        );
        assert!(err.ends_with("save the file without it"), "{err}");
    }
}
