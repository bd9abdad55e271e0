//! A C++ type as a symbol spells it, taken apart and classified for the checks.

use super::{Class, CppParam, Num};

/// `s` without whitespace.
pub(super) fn compact(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

/// Whether two spellings name the same parameter type: `const float *` and `float const*`,
/// `unsigned` and `unsigned int`.
pub(super) fn same_type(a: &str, b: &str) -> bool {
    let (x, y) = (Spelled::read(a), Spelled::read(b));
    x.pointers == y.pointers && x.base == y.base && x.consts == y.consts
}

/// A type's spelling taken apart: its base words (qualifiers removed, builtin words in a
/// canonical order), how many `*` follow, and which levels are `const` (bit 0: the base).
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Spelled {
    pub(super) base: String,
    pub(super) pointers: usize,
    pub(super) consts: u64,
    /// A reference, an array, a function pointer: not checked.
    pub(super) other: bool,
}

impl Spelled {
    pub(super) fn read(text: &str) -> Spelled {
        let text = text.trim();
        // Qualifiers of the pointer itself and `restrict` say nothing about the pointee.
        let mut level = 0usize;
        let mut consts = 0u64;
        let mut words: Vec<String> = Vec::new();
        let mut other = false;
        let mut depth = 0i32;
        let mut word = String::new();
        let flush = |word: &mut String, words: &mut Vec<String>, level: usize, consts: &mut u64| {
            if word.is_empty() {
                return;
            }
            let w = std::mem::take(word);
            match w.as_str() {
                "const" => *consts |= 1 << level.min(63),
                "volatile" | "__restrict__" | "__restrict" | "restrict" | "struct" | "class"
                | "enum" | "union" | "typename" => {}
                _ if level == 0 => words.push(w),
                // A name after a `*` (a parameter name in a hand-written list): ignored.
                _ => {}
            }
        };
        for ch in text.chars() {
            if depth > 0 {
                word.push(ch);
                match ch {
                    '<' | '(' | '[' => depth += 1,
                    '>' | ')' | ']' => depth -= 1,
                    _ => {}
                }
                continue;
            }
            match ch {
                '<' => {
                    depth += 1;
                    word.push(ch);
                }
                '*' => {
                    flush(&mut word, &mut words, level, &mut consts);
                    level += 1;
                }
                '&' | '(' | '[' => {
                    other = true;
                    word.push(ch);
                }
                c if c.is_whitespace() => flush(&mut word, &mut words, level, &mut consts),
                c => word.push(c),
            }
        }
        flush(&mut word, &mut words, level, &mut consts);
        // Builtin words in any order (`long unsigned int`): sorted; a name stays as written,
        // without whitespace inside its template arguments.
        let builtin = ["signed", "unsigned", "short", "long", "int", "char"];
        let base = if !words.is_empty() && words.iter().all(|w| builtin.contains(&w.as_str())) {
            canonical_builtin(&words)
        } else {
            compact(&words.join(" "))
        };
        Spelled {
            base,
            pointers: level,
            consts,
            other,
        }
    }
}

/// What a parameter's C++ type (as a symbol spells it) is to the checks.
pub fn parse_type(text: &str) -> CppParam {
    let spelled = Spelled::read(text);
    if spelled.other {
        return CppParam::Unknown;
    }
    let class = base_class(&spelled.base);
    match spelled.pointers {
        0 => CppParam::Value(class),
        1 => CppParam::Pointer {
            pointee: class,
            is_const: spelled.consts & 1 != 0,
        },
        // `T**`, `T* const*`: a pointer to pointers, whose elements are 8-byte device
        // addresses: `u64` (or a Rust type of 8 bytes chevron does not name).
        n => CppParam::Pointer {
            pointee: Class::Num(Num::Int {
                bits: 64,
                signed: false,
            }),
            is_const: spelled.consts & (1 << (n - 1).min(63)) != 0,
        },
    }
}

/// The class of a base type spelled as [`Spelled::base`] gives it.
fn base_class(base: &str) -> Class {
    let int = |bits, signed| Class::Num(Num::Int { bits, signed });
    match base {
        "void" => return Class::Void,
        "bool" => return Class::Num(Num::Bool),
        "char" => return Class::Num(Num::Char),
        "char signed" => return int(8, true),
        "char unsigned" => return int(8, false),
        "short" => return int(16, true),
        "short unsigned" => return int(16, false),
        "int" => return int(32, true),
        "int unsigned" => return int(32, false),
        "long" | "long long" => return int(64, true),
        "long unsigned" | "long long unsigned" => return int(64, false),
        "float" => return Class::Num(Num::Float(32)),
        "double" => return Class::Num(Num::Float(64)),
        "__half" | "half" => return Class::Num(Num::F16),
        "__nv_bfloat16" | "nv_bfloat16" => return Class::Num(Num::BF16),
        "__half2" | "half2" => return Class::Vector(Num::F16, 2),
        "__nv_bfloat162" | "nv_bfloat162" => return Class::Vector(Num::BF16, 2),
        // Typedefs, which a symbol never spells but a hand-written `name = "…"` may.
        "size_t" | "std::size_t" | "uint64_t" | "std::uint64_t" => return int(64, false),
        "ptrdiff_t" | "std::ptrdiff_t" | "int64_t" | "std::int64_t" => return int(64, true),
        "uint32_t" | "std::uint32_t" => return int(32, false),
        "int32_t" | "std::int32_t" => return int(32, true),
        "uint16_t" | "std::uint16_t" => return int(16, false),
        "int16_t" | "std::int16_t" => return int(16, true),
        "uint8_t" | "std::uint8_t" => return int(8, false),
        "int8_t" | "std::int8_t" => return int(8, true),
        _ => {}
    }
    vector_class(base).unwrap_or(Class::Unknown)
}

/// The CUDA vector types of `vector_types.h`: `float4`, `uint2`, `longlong2` …
fn vector_class(name: &str) -> Option<Class> {
    let lanes = name.chars().last()?.to_digit(10)?;
    if !(1..=4).contains(&lanes) {
        return None;
    }
    let int = |bits, signed| Num::Int { bits, signed };
    let num = match &name[..name.len() - 1] {
        "char" => int(8, true),
        "uchar" => int(8, false),
        "short" => int(16, true),
        "ushort" => int(16, false),
        "int" => int(32, true),
        "uint" => int(32, false),
        "long" | "longlong" => int(64, true),
        "ulong" | "ulonglong" => int(64, false),
        "float" => Num::Float(32),
        "double" => Num::Float(64),
        _ => return None,
    };
    Some(Class::Vector(num, lanes))
}

/// Builtin words in canonical form: sorted, `int` implied or dropped as C++ does (`unsigned` is
/// `unsigned int`, `long int` is `long`), `signed` dropped but for `signed char`.
pub(super) fn canonical_builtin(words: &[String]) -> String {
    let mut w: Vec<&str> = words.iter().map(String::as_str).collect();
    let integer = w.iter().all(|x| {
        matches!(
            *x,
            "signed" | "unsigned" | "short" | "long" | "int" | "char"
        )
    });
    if integer {
        if w.iter().any(|x| matches!(*x, "short" | "long" | "char")) {
            w.retain(|x| *x != "int");
        } else if !w.contains(&"int") {
            w.push("int");
        }
        if w.contains(&"signed") && !w.contains(&"char") {
            w.retain(|x| *x != "signed");
        }
    }
    w.sort_unstable();
    w.join(" ")
}
