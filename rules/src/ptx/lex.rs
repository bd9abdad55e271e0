//! The PTX lexer: comments, tokens, numbers and identifiers.

/// A token of the comment-free source with its 1-based line.
pub(super) struct Tok<'s> {
    pub(super) text: &'s str,
    pub(super) line: usize,
}

/// Replaces `//` and `/* */` comments by spaces, keeping newlines (and so
/// line numbers) intact.
pub(super) fn strip_comments(src: &str) -> Result<String, String> {
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
pub(super) fn tokenize(src: &str) -> Vec<Tok<'_>> {
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
