//! Finding a line of a PTX text by its number, for quoting it in a message.
//!
//! `text.lines().nth(n)` walks every line before it: quoting one store of a kernel near the end
//! of an 8 MB PTX walks 200,000 lines, and `#[kernels]` quotes one per written parameter of
//! every kernel of the file (60% of its time on such a file, before this index). A caller that
//! quotes many lines of one text builds its [`LineIndex`] once and runs the quoting inside
//! [`with_index`]; elsewhere [`line`] walks the lines as before.

use std::cell::RefCell;
use std::sync::Arc;

/// The byte offset of each line's start in one text.
#[derive(Debug)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    /// The index of `text`.
    pub fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(
            text.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i + 1),
        );
        LineIndex { starts }
    }
}

std::thread_local! {
    /// The text (address and length) whose index [`with_index`] set, and the index.
    static CURRENT: RefCell<Option<(usize, usize, Arc<LineIndex>)>> = const { RefCell::new(None) };
}

/// Runs `f` with `index` (which must be `text`'s) used by [`line()`] for `text`: `text` is
/// borrowed for the whole call, so it cannot change or go away meanwhile.
pub fn with_index<R>(text: &str, index: &Arc<LineIndex>, f: impl FnOnce() -> R) -> R {
    let key = (text.as_ptr() as usize, text.len(), Arc::clone(index));
    let previous = CURRENT.with(|c| c.replace(Some(key)));
    let out = f();
    CURRENT.with(|c| *c.borrow_mut() = previous);
    out
}

/// Line `n` (0-based) of `text` without its line ending; empty past the end.
pub fn line(text: &str, n: usize) -> &str {
    let indexed = CURRENT.with(|c| {
        let current = c.borrow();
        let (at, len, index) = current.as_ref()?;
        if (*at, *len) != (text.as_ptr() as usize, text.len()) {
            return None;
        }
        let start = *index.starts.get(n)?;
        let end = index.starts.get(n + 1).map_or(text.len(), |s| s - 1);
        Some((start, end))
    });
    match indexed {
        Some((start, end)) => text.get(start..end).unwrap_or("").trim_end_matches('\r'),
        None => text.lines().nth(n).unwrap_or(""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indexed_lines_are_the_lines() {
        let text = "a\r\nbb\n\nccc\nlast";
        let index = Arc::new(LineIndex::new(text));
        let walked: Vec<&str> = (0..6).map(|n| line(text, n)).collect();
        let indexed: Vec<&str> =
            with_index(text, &index, || (0..6).map(|n| line(text, n)).collect());
        assert_eq!(walked, ["a", "bb", "", "ccc", "last", ""]);
        assert_eq!(indexed, walked);
        // Another text is walked, not read through the index.
        let other = "x\ny";
        assert_eq!(with_index(text, &index, || line(other, 1)), "y");
    }
}
