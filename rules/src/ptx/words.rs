//! The words of a kernel parameter's mismatches ([`ParamWords`]), built from what the PTX and
//! the kernel's C++ symbol say about it: `#[kernel]` writes them into a parameter's const block,
//! and [`check_param`](super::check_param) checks NVRTC's output with them at run time.

use super::rule::{Facts, Texts};
use super::{Entry, Seen, Site, WriteDoubt};
use crate::cpp::{self, CppParam};

/// What a kernel says about its parameter `k` beyond the PTX type, and the words of each kind
/// of mismatch ([`Texts`]): what `#[kernel]` writes into a parameter's const block, and what the
/// runtime checks NVRTC's output with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamWords {
    /// The facts, without the declaration's `#[read_only]`.
    pub facts: Facts,
    /// See [`Texts::ptx`].
    pub ptx: String,
    /// See [`Texts::layout`].
    pub layout: String,
    /// See [`Texts::cpp`].
    pub cpp: String,
    /// See [`Texts::not_const`].
    pub not_const: String,
    /// See [`Texts::written`].
    pub written: String,
}

impl ParamWords {
    /// The facts and words of `entry`'s parameter `k` (which must exist), declared with the
    /// Rust type `rust_ty`; `file` is how messages name the PTX (`kernels/saxpy.ptx`) and
    /// `ptx_text` the PTX itself, for quoting stores.
    pub fn of(entry: &Entry, k: usize, file: &str, ptx_text: &str, rust_ty: &str) -> ParamWords {
        let ptx_param = &entry.params[k];
        let at = format!("{file}:{}: `{}`", ptx_param.line, ptx_param.text);
        let sig = entry.signature.as_ref();
        let cpp = sig
            .map(|s| s.types())
            .filter(|t| t.len() == entry.params.len())
            .map_or(CppParam::Unknown, |t| t[k]);
        let spelled = match (sig, cpp) {
            (Some(s), CppParam::Pointer { .. } | CppParam::Value(_)) => s.params.get(k),
            _ => None,
        };
        let layout_words = match ptx_param.align {
            Some(a) => format!("{} bytes aligned to {a}", ptx_param.size_bytes()),
            None => format!("{} bytes", ptx_param.size_bytes()),
        };
        let writes = entry.writes.get(k);
        let doubt = entry.write_doubts.get(k).and_then(Option::as_ref);
        let (ptx, cpp_words, layout, not_const) = match (sig, spelled) {
            (Some(s), Some(spelled)) => {
                let place = format!(
                    "parameter {} of `{}`, {file}:{}",
                    k + 1,
                    s.text(),
                    ptx_param.line
                );
                let fix = cpp::rust_for(spelled);
                let cpp_words = format!(
                    ", but the kernel takes `{spelled}` here ({place}); declare it as {fix}"
                );
                let layout = format!(
                    ", but the kernel takes `{spelled}` here, {layout_words} ({place}); declare \
                     it as {fix}"
                );
                let constant = with_const(spelled);
                // What the PTX shows of it sharpens the fix (a `T*` it never stores through is
                // accepted as read-only: no words needed).
                let not_const = match writes {
                    Some(Seen::Yes(site)) => format!(
                        ", but the kernel takes `{spelled}` here ({place}), not `{constant}`, \
                         and writes through it ({}); declare it as {fix}",
                        store_place(site, file, ptx_text)
                    ),
                    Some(Seen::No) => String::new(),
                    _ => format!(
                        ", but the kernel takes `{spelled}` here ({place}), not `{constant}`, \
                         and its PTX cannot show that it only reads it: the kernel {}; declare \
                         it as {fix}, or mark the parameter `#[read_only]` if the kernel only \
                         reads it",
                        doubt_words(doubt, file)
                    ),
                };
                (cpp_words.clone(), cpp_words, layout, not_const)
            }
            _ => {
                let ptx = format!(
                    ", but the kernel takes {} here ({at}); declare it as {}",
                    ptx_param.describe(),
                    ptx_param.suggest()
                );
                let layout = format!(
                    ", but the kernel takes a struct of {layout_words} here ({at}); declare it \
                     as a `#[repr(C)]` type of the same layout"
                );
                (ptx, String::new(), layout, String::new())
            }
        };
        // A store wins over the C++ type (a `const_cast`); where the PTX cannot tell, a C++
        // `const` decides, and without one the buffer cannot be taken as read-only.
        let is_const = matches!(cpp, CppParam::Pointer { is_const: true, .. });
        let refused = match writes {
            Some(Seen::Yes(_)) => true,
            Some(Seen::No) => false,
            Some(Seen::Unknown) | None => !is_const,
        };
        let declared = match (sig, spelled) {
            (Some(s), Some(spelled)) => format!(
                " though it takes `{spelled}` (parameter {} of `{}`)",
                k + 1,
                s.text()
            ),
            _ => String::new(),
        };
        let written = match writes {
            Some(Seen::Yes(site)) => format!(
                ", but the kernel writes through it ({}){declared}; declare it as {}, or mark \
                 the parameter `#[read_only]` if that store never runs on this buffer",
                store_place(site, file, ptx_text),
                writable(rust_ty)
            ),
            _ if refused => format!(
                ", but its PTX cannot show that the kernel only reads it: the kernel {}; \
                 declare it as {}, or mark the parameter `#[read_only]` if the kernel only \
                 reads it",
                doubt_words(doubt, file),
                writable(rust_ty)
            ),
            _ => String::new(),
        };
        ParamWords {
            facts: Facts {
                ptx_align: ptx_param.align,
                cpp,
                written: refused,
                read_only: false,
            },
            ptx,
            layout,
            cpp: cpp_words,
            not_const,
            written,
        }
    }

    /// The [`Texts`] of these words after `prefix`.
    pub fn texts<'a>(&'a self, prefix: &'a str) -> Texts<'a> {
        Texts {
            prefix,
            ptx: &self.ptx,
            layout: &self.layout,
            cpp: &self.cpp,
            not_const: &self.not_const,
            written: &self.written,
        }
    }
}

/// Where a store is, for messages: "kernels/saxpy.ptx:47: `st.global.f32 [%rd7], %f4;`", and
/// ", in `put(float*, int, float)`" when it is in a function the kernel calls.
fn store_place(site: &Site, file: &str, ptx_text: &str) -> String {
    let line = super::line(ptx_text, site.line.saturating_sub(1)).trim();
    let line = line.split("//").next().unwrap_or(line);
    let line = line.split_whitespace().collect::<Vec<_>>().join(" ");
    let within = site.func.as_deref().map_or_else(String::new, |f| {
        // Relocatable code calls module-local copies: `_Z3putPfif$6`.
        let f = f.split('$').next().unwrap_or(f);
        format!(", in `{}`", cpp::display_name(f))
    });
    format!("{file}:{}: `{line}`{within}", site.line)
}

/// Why the PTX cannot decide whether the kernel writes through a parameter, with where:
/// "passes it to `f`, an `.extern .func` defined in another module (k.ptx:40)".
fn doubt_words(doubt: Option<&WriteDoubt>, file: &str) -> String {
    let Some(doubt) = doubt else {
        return "reaches code the write analysis does not follow".into();
    };
    match doubt.site() {
        Some(site) => {
            let within = site.func.as_deref().map_or_else(String::new, |f| {
                let f = f.split('$').next().unwrap_or(f);
                format!(", in `{}`", cpp::display_name(f))
            });
            format!("{} ({file}:{}{within})", doubt.describe(), site.line)
        }
        None => doubt.describe(),
    }
}

/// `float const*` for `float*`: the pointer made `const` at its first level.
fn with_const(text: &str) -> String {
    match text.rfind('*') {
        Some(star) => format!("{} const*{}", text[..star].trim_end(), &text[star + 1..]),
        None => format!("{text} const"),
    }
}

/// The writable form of a buffer spelled `&T`: `` `&mut T` ``.
fn writable(ty_text: &str) -> String {
    match ty_text.strip_prefix('&') {
        Some(rest) if !rest.starts_with("mut ") => format!("`&mut {rest}`"),
        _ => "a `&mut` device buffer".into(),
    }
}
