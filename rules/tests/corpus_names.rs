//! Every kernel of real codebases' nvcc 13.0 output is found by the names its users write:
//! `c++filt`'s spelling (what `cu++filt` and Nsight show) and the source's (no `_INTERNAL_<hash>`
//! namespace, no integer suffixes), each with and without its parameter list, and with the
//! parameter list it names exactly one entry of its file.
//!
//! `fixtures/corpus_names.tsv` holds, per kernel entry, its PTX file, its symbol and binutils'
//! `c++filt` output for it: 602 entries of 16 files of ggml's CUDA backend (ggml-org/ggml at
//! d99724f2, MIT: function-pointer template arguments, empty parameter packs, CUB's templates),
//! the 121 of llm.c (`kernels/corpus/llmc/`) and chevron's own C++ kernels. Made with
//! `grep -o '.entry _Z…' FILE.ptx | c++filt`.

use chevron_cuda_rules::cpp::{demangle, CppName, Signature};

/// `name(params)` without its top-level parameter list (the last balanced `(…)`).
fn without_params(s: &str) -> &str {
    let mut depth = 0;
    for (i, c) in s.char_indices().rev() {
        match c {
            ')' => depth += 1,
            '(' => {
                depth -= 1;
                if depth == 0 {
                    return s[..i].trim_end();
                }
            }
            _ => {}
        }
    }
    s
}

/// The source's spelling of `c++filt`'s: without `_INTERNAL_…::` scopes and without the
/// integer suffixes (`512u`, `128l`, `4ul`) of template values.
fn source_spelling(filt: &str) -> String {
    let mut text = String::new();
    let mut rest = filt;
    while let Some(at) = rest.find("_INTERNAL_") {
        text.push_str(&rest[..at]);
        let scope = &rest[at..];
        rest = scope.find("::").map_or("", |end| &scope[end + 2..]);
    }
    text.push_str(rest);
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    let mut k = 0;
    while k < chars.len() {
        let starts_number = chars[k].is_ascii_digit()
            && (k == 0 || !(chars[k - 1].is_ascii_alphanumeric() || chars[k - 1] == '_'));
        out.push(chars[k]);
        k += 1;
        if starts_number {
            while k < chars.len() && chars[k].is_ascii_digit() {
                out.push(chars[k]);
                k += 1;
            }
            while k < chars.len() && matches!(chars[k], 'u' | 'l') {
                k += 1;
            }
        }
    }
    out
}

#[test]
fn every_entry_is_found_by_cxxfilt_and_source_spellings() {
    let table = include_str!("fixtures/corpus_names.tsv");
    let mut files: Vec<(&str, Vec<(&str, &str)>)> = Vec::new();
    for line in table.lines() {
        let mut cols = line.splitn(3, '\t');
        let (Some(file), Some(symbol), Some(filt)) = (cols.next(), cols.next(), cols.next()) else {
            panic!("a line of three columns: {line}");
        };
        match files.last_mut() {
            Some((f, entries)) if *f == file => entries.push((symbol, filt)),
            _ => files.push((file, vec![(symbol, filt)])),
        }
    }
    let (mut tried, mut missed) = (0, Vec::new());
    for (file, entries) in &files {
        let sigs: Vec<Signature> = entries
            .iter()
            .map(|(symbol, _)| demangle(symbol).unwrap_or_else(|| panic!("{file}: {symbol}")))
            .collect();
        for (k, (_, filt)) in entries.iter().enumerate() {
            let full = filt.strip_prefix("void ").unwrap_or(filt);
            let name = without_params(full);
            for spelling in [
                name.to_string(),
                full.to_string(),
                source_spelling(name),
                source_spelling(full),
            ] {
                tried += 1;
                // Every spelling parses (what `name = "…"` does with it first).
                let wanted = CppName::parse(&spelling)
                    .unwrap_or_else(|e| panic!("{file}: `{spelling}` does not parse: {e}"));
                let hits: Vec<usize> = (0..sigs.len())
                    .filter(|&j| sigs[j].matches_name(&wanted))
                    .collect();
                let with_params = spelling.ends_with(')');
                if !hits.contains(&k) || (with_params && hits.len() != 1) {
                    missed.push(format!("{file}: `{spelling}` found {hits:?}, not [{k}]"));
                }
            }
        }
    }
    assert!(tried > 3000, "{tried}");
    assert!(
        missed.is_empty(),
        "{} of {tried} spellings:\n{}",
        missed.len(),
        missed.join("\n")
    );
}
