//! Helpers for messages: capped lists of names, quoted source lines.

/// How many names a list in a message shows; the rest are counted ("and 9984 more"), so a
/// file of 10,000 kernels does not make a message of 100 KB.
pub const LIST_CAP: usize = 16;

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

/// The longest source line quoted in a message; longer ones are cut with `…`.
const QUOTE_CAP: usize = 160;

/// A line of the source for a message: trimmed, and cut at [`QUOTE_CAP`] characters.
pub(super) fn quote_line(line: &str) -> String {
    let line = line.trim();
    match line.char_indices().nth(QUOTE_CAP) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line.to_string(),
    }
}
