//! The PTX parser: entries, their parameters and performance directives.

use super::lex::{is_identifier, parse_u32, strip_comments, tokenize, Tok};
use super::message::quote_line;
use super::{
    facts, writes, BodyUses, DimDirective, Directives, Entry, NumDirective, Param, PtxType,
};

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
pub(super) fn parse_directives(toks: &[Tok<'_>], i: &mut usize) -> Result<Directives, String> {
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
                // A prototype (`.entry k (…) ;`, as nvcc writes before a variable holding the
                // kernel's address): the definition follows, and is the entry.
                let prototype = toks.get(i).is_some_and(|t| t.text == ";");
                if !is_extern && !prototype {
                    if !seen.insert(name) {
                        return Err(format!("line {}: duplicate `.entry {name}`", t.line));
                    }
                    entries.push(Entry {
                        name: name.to_string(),
                        signature: crate::cpp::demangle(name),
                        params,
                        line: t.line,
                        directives,
                        uses: BodyUses::default(),
                        writes: Vec::new(),
                        write_doubts: Vec::new(),
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
    writes::analyze(&toks, &mut entries);
    Ok(entries)
}
