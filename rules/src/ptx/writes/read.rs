//! Reading the bodies the flow is followed over: every entry and `.func` with a body, its
//! parameters and its instructions (opcode, modifiers, operands), the `.alias` pairs and the
//! `.extern .func` names.

use std::collections::{HashMap, HashSet};

use super::{Instr, Unit};
use crate::ptx::{is_identifier, Entry, Tok};

/// `.alias a, b;` pairs.
pub(super) fn read_aliases<'s>(toks: &[Tok<'s>]) -> HashMap<&'s str, &'s str> {
    let mut aliases = HashMap::new();
    for (i, t) in toks.iter().enumerate() {
        if t.text == ".alias" {
            if let (Some(a), Some(","), Some(b)) = (
                toks.get(i + 1).map(|t| t.text),
                toks.get(i + 2).map(|t| t.text),
                toks.get(i + 3).map(|t| t.text),
            ) {
                aliases.insert(a, b);
            }
        }
    }
    aliases
}

/// The functions declared `.extern .func` (relocatable code: defined in another module).
pub(super) fn read_externs<'s>(toks: &[Tok<'s>]) -> HashSet<&'s str> {
    let mut externs = HashSet::new();
    for (i, t) in toks.iter().enumerate() {
        if t.text != ".extern" || toks.get(i + 1).map(|t| t.text) != Some(".func") {
            continue;
        }
        let mut j = i + 2;
        if toks.get(j).map(|t| t.text) == Some("(") {
            j = param_names(toks, j).1;
        }
        if let Some(name) = toks.get(j).map(|t| t.text).filter(|n| is_identifier(n)) {
            externs.insert(name);
        }
    }
    externs
}

/// The names in a parameter list `( .param .b64 a, .param .align 8 .b8 b[16] )` starting at
/// `open` (a `(`); the index after its `)`.
fn param_names<'s>(toks: &[Tok<'s>], open: usize) -> (Vec<&'s str>, usize) {
    let mut names = Vec::new();
    let mut j = open + 1;
    let mut last: Option<&str> = None;
    while let Some(t) = toks.get(j) {
        match t.text {
            ")" => {
                names.extend(last.take());
                return (names, j + 1);
            }
            "," => names.extend(last.take()),
            "{" | "}" | ";" => return (names, j),
            s if is_identifier(s) && !s.starts_with('.') && last.is_none() => last = Some(s),
            _ => {}
        }
        j += 1;
    }
    (names, j)
}

/// Every entry and function with a body, with its instructions.
pub(super) fn read_units<'s>(toks: &[Tok<'s>], entries: &[Entry]) -> Vec<Unit<'s>> {
    let by_name: HashMap<&str, usize> = entries
        .iter()
        .enumerate()
        .map(|(k, e)| (e.name.as_str(), k))
        .collect();
    let mut units = Vec::new();
    let text = |j: usize| toks.get(j).map_or("", |t| t.text);
    let mut i = 0;
    // The header being read at depth 0.
    let mut pending: Option<(&str, bool, Vec<&str>, Vec<&str>)> = None;
    while let Some(t) = toks.get(i) {
        match t.text {
            "{" => {
                let close = block_end(toks, i);
                if let Some((name, is_entry, params, returns)) = pending.take() {
                    let entry = if is_entry {
                        by_name.get(name).copied()
                    } else {
                        None
                    };
                    units.push(Unit {
                        name,
                        entry,
                        params,
                        returns,
                        body: instructions(&toks[i + 1..close.saturating_sub(1).max(i + 1)]),
                    });
                }
                i = close;
                continue;
            }
            ";" | "}" => pending = None,
            ".entry" | ".func" => {
                let is_entry = t.text == ".entry";
                let mut j = i + 1;
                let mut returns = Vec::new();
                if text(j) == "(" {
                    let (names, after) = param_names(toks, j);
                    returns = names;
                    j = after;
                }
                let name = text(j);
                if is_identifier(name) && !name.starts_with('%') {
                    j += 1;
                    let params = if text(j) == "(" {
                        let (names, after) = param_names(toks, j);
                        j = after;
                        names
                    } else {
                        Vec::new()
                    };
                    pending = Some((name, is_entry, params, returns));
                    i = j;
                    continue;
                }
            }
            _ => {}
        }
        i += 1;
    }
    units
}

/// The index after the `}` closing the `{` at `open`.
fn block_end(toks: &[Tok<'_>], open: usize) -> usize {
    let mut depth = 0usize;
    let mut j = open;
    while let Some(t) = toks.get(j) {
        match t.text {
            "{" => depth += 1,
            "}" => {
                depth -= 1;
                if depth == 0 {
                    return j + 1;
                }
            }
            _ => {}
        }
        j += 1;
    }
    j
}

/// The instructions of a body: statements ending in `;`, without labels, predicates and
/// declarations; `{`/`}` between statements open and close blocks.
fn instructions<'s>(toks: &[Tok<'s>]) -> Vec<Instr<'s>> {
    let mut out = Vec::new();
    let mut stmt: Vec<&Tok<'s>> = Vec::new();
    let mut blocks = vec![0usize];
    let mut next_block = 1;
    let mut i = 0;
    // In a statement whose opcode cannot matter: its tokens are passed over up to its `;`.
    let mut skipping = false;
    while let Some(t) = toks.get(i) {
        i += 1;
        if skipping {
            if t.text == ";" {
                skipping = false;
                stmt.clear();
            }
            continue;
        }
        if stmt.is_empty() {
            match t.text {
                "{" => {
                    blocks.push(next_block);
                    next_block += 1;
                    continue;
                }
                "}" => {
                    if blocks.len() > 1 {
                        blocks.pop();
                    }
                    continue;
                }
                _ => {}
            }
            // A label: `$L__BB0_2:`.
            if toks.get(i).map(|n| n.text) == Some(":") && is_identifier(t.text) {
                i += 1;
                continue;
            }
            // `.loc` (in `-G` and `-lineinfo` builds) ends at its line, without a `;`.
            if t.text == ".loc" {
                while toks.get(i).is_some_and(|n| n.line == t.line) {
                    i += 1;
                }
                continue;
            }
        }
        if t.text == ";" {
            if let Some(ins) = instruction(&stmt, *blocks.last().unwrap_or(&0)) {
                out.push(ins);
            }
            stmt.clear();
            continue;
        }
        stmt.push(t);
        // The opcode, after a guard (`@%p1`, `@!%p1`): most statements are decided here,
        // before their operands are gathered.
        let opcode_at = match (stmt[0].text, stmt.get(1).map(|t| t.text)) {
            ("@", Some("!")) => 3,
            ("@", _) => 2,
            _ => 0,
        };
        if stmt.len() == opcode_at + 1
            && (t.text.starts_with('.') || !relevant(t.text, toks[i..].iter().map(|t| t.text)))
        {
            skipping = true;
        }
    }
    out
}

/// Whether an instruction can move a pointer, store through one or call: most of a body is
/// arithmetic on 32-bit registers and floats, which never holds a pointer, and is skipped
/// before its operands are read. `rest` are the tokens after the opcode.
fn relevant<'a>(op: &str, rest: impl Iterator<Item = &'a str> + Clone) -> bool {
    let mods = || rest.clone().take_while(|t| t.starts_with('.') || *t == ":");
    let wide = || mods().any(|m| matches!(m, ".u64" | ".s64" | ".b64" | ".wide"));
    match op {
        "ld" | "ldu" | "st" | "atom" | "red" | "multimem" | "cp" | "call" | "mov" | "cvta"
        | "shfl" | "wmma" | "stmatrix" | "sust" | "sured" | "discard" | "tensormap" => true,
        "add" | "sub" | "mad" | "mul" | "selp" | "slct" | "and" | "or" | "xor" => wide(),
        _ => false,
    }
}

fn instruction<'s>(stmt: &[&Tok<'s>], block: usize) -> Option<Instr<'s>> {
    let mut k = 0;
    // A guard: `@%p1`, `@!%p1`.
    if stmt.first()?.text == "@" {
        k = 2;
        if stmt.get(1)?.text == "!" {
            k = 3;
        }
    }
    let first = stmt.get(k)?;
    if first.text.starts_with('.') {
        return None;
    }
    let op = first.text;
    let line = first.line;
    k += 1;
    if !relevant(op, stmt[k.min(stmt.len())..].iter().map(|t| t.text)) {
        return None;
    }
    let mut mods = Vec::new();
    while let Some(t) = stmt.get(k) {
        // `.shared::cta`: the `::` and its word belong to the modifier.
        if t.text.starts_with('.') {
            mods.push(t.text);
        } else if t.text == ":" {
            k += 1;
            if stmt.get(k).map(|t| t.text) == Some(":") {
                k += 1;
            }
        } else {
            break;
        }
        k += 1;
    }
    let mut operands = Vec::new();
    let mut current = Vec::new();
    let mut depth = 0i32;
    for t in &stmt[k.min(stmt.len())..] {
        match t.text {
            "[" | "{" | "(" => depth += 1,
            "]" | "}" | ")" => depth -= 1,
            "," if depth == 0 => {
                operands.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(t.text);
    }
    if !current.is_empty() {
        operands.push(current);
    }
    Some(Instr {
        op,
        mods,
        operands,
        line,
        block,
    })
}
