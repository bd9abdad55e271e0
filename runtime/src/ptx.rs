//! A small reader for the kernel (`.entry`) signatures of a PTX module.
//!
//! Only what is needed to check a Rust kernel signature against PTX is parsed:
//! entry names, and each parameter's type, alignment and array length.
//! Instruction bodies, `.func`s and `.extern` declarations are skipped.

/// One `.entry` (kernel) in a PTX module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The entry's symbol name, as written (C++ names stay mangled).
    pub name: String,
    /// The kernel's parameters, in order.
    pub params: Vec<Param>,
    /// 1-based line of the `.entry` directive.
    pub line: usize,
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
    pub fn bits(self) -> u32 {
        self.entry().2
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
    let text = lines.get(line - 1).map_or("", |l| l.trim()).to_string();
    let fail = |msg: &str| format!("line {line}: {msg} in `{text}`");
    if first != ".param" {
        return Err(fail("expected `.param`"));
    }
    let number = |j: usize| toks.get(j).and_then(|t| t.text.parse::<u32>().ok());
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
                let bad = || fail(&format!("unknown type `{s}`"));
                ty = Some(PtxType::from_name(s).ok_or_else(bad)?);
            }
            s if name.is_none()
                && s.starts_with(|c: char| c.is_alphabetic() || "_$%".contains(c)) =>
            {
                name = Some(s.to_string());
            }
            s => return Err(fail(&format!("unexpected `{s}`"))),
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

/// Parses every `.entry` of a PTX module.
///
/// `.func`s and `.extern .entry` declarations are skipped. Errors name the
/// offending line.
pub fn parse_entries(ptx: &str) -> Result<Vec<Entry>, String> {
    let clean = strip_comments(ptx)?;
    let toks = tokenize(&clean);
    let lines: Vec<&str> = ptx.lines().collect();
    let mut entries: Vec<Entry> = Vec::new();
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
            ".entry" if depth == 0 => {
                let name = match toks.get(i) {
                    Some(n) if n.text != "(" && !n.text.starts_with('.') => n.text,
                    _ => return Err(format!("line {}: expected a name after `.entry`", t.line)),
                };
                i += 1;
                let mut params = Vec::new();
                if toks.get(i).map(|t| t.text) == Some("(") {
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
                if !is_extern {
                    if entries.iter().any(|e| e.name == name) {
                        return Err(format!("line {}: duplicate `.entry {name}`", t.line));
                    }
                    entries.push(Entry {
                        name: name.to_string(),
                        params,
                        line: t.line,
                    });
                }
            }
            _ => {}
        }
    }
    if depth != 0 {
        return Err("unterminated `{` block at end of PTX".into());
    }
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::*;
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
}
