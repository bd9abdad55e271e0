//! C++ kernel symbols: their demangled names and the parameter types they carry.
//!
//! nvcc gives every kernel not declared `extern "C"` an Itanium-mangled symbol
//! (`_Z14softmax_kernelILi128EEvPfPKfi`), which spells its whole signature:
//! `softmax_kernel<128>(float*, float const*, int)`. [`demangle`] reads it (through the
//! `cpp_demangle` crate) into a [`Signature`]: its name, for `name = "softmax_kernel<128>"`
//! ([`Signature::matches`]), and each parameter's C++ type, for the type checks
//! ([`crate::param::check`]).
//!
//! The types are read as the Itanium ABI of a 64-bit target lays them out (LP64: `long` and
//! `size_t` are 64 bits), the only one nvcc mangles this way; typedefs are gone from a symbol
//! (`size_t` is `unsigned long`, `half` is `__half`), struct and enum names stay.

/// A C++ arithmetic type, or one of CUDA's 2-byte floats, as the Itanium ABI on a 64-bit
/// target (LP64) lays it out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Num {
    /// `bool`.
    Bool,
    /// `char`: 8 bits, whose signedness C++ leaves to the platform, so either Rust integer fits.
    Char,
    /// An integer: `int` is `Int { bits: 32, signed: true }`, `size_t` (`unsigned long`)
    /// `Int { bits: 64, signed: false }`.
    Int {
        /// Width in bits.
        bits: u32,
        /// Signed (`int`, `long`) or unsigned (`unsigned`, `size_t`).
        signed: bool,
    },
    /// `float` (32), `double` (64).
    Float(u32),
    /// `__half` (`half::f16`).
    F16,
    /// `__nv_bfloat16` (`half::bf16`).
    BF16,
}

impl Num {
    /// Size in bytes.
    pub const fn bytes(self) -> u64 {
        match self {
            Num::Bool | Num::Char => 1,
            Num::Int { bits, .. } | Num::Float(bits) => bits as u64 / 8,
            Num::F16 | Num::BF16 => 2,
        }
    }

    /// Whether a Rust number of class `rust` is this C++ type: equal, or either 8-bit integer
    /// for `char`.
    pub const fn accepts(self, rust: Num) -> bool {
        match (self, rust) {
            (Num::Char, Num::Int { bits: 8, .. }) | (Num::Char, Num::Char) => true,
            (Num::Int { bits: a, signed: x }, Num::Int { bits: b, signed: y }) => a == b && x == y,
            (Num::Float(a), Num::Float(b)) => a == b,
            (Num::Bool, Num::Bool) | (Num::F16, Num::F16) | (Num::BF16, Num::BF16) => true,
            _ => false,
        }
    }

    /// The Rust type of this class, for messages: `` `i32` ``, `` `f16` ``.
    pub const fn rust_name(self) -> &'static str {
        match self {
            Num::Bool => "`bool`",
            Num::Char => "`i8` or `u8`",
            Num::Int { bits, signed } => match (bits, signed) {
                (8, true) => "`i8`",
                (8, false) => "`u8`",
                (16, true) => "`i16`",
                (16, false) => "`u16`",
                (32, true) => "`i32`",
                (32, false) => "`u32`",
                (64, true) => "`i64`",
                (64, false) => "`u64`",
                (_, true) => "a signed integer",
                (_, false) => "an unsigned integer",
            },
            Num::Float(32) => "`f32`",
            Num::Float(64) => "`f64`",
            Num::Float(_) => "a float",
            Num::F16 => "`f16`",
            Num::BF16 => "`bf16`",
        }
    }

    /// What a value of this class is, in words: "a signed 32-bit integer".
    pub const fn words(self) -> &'static str {
        match self {
            Num::Bool => "a `bool`",
            Num::Char => "an 8-bit integer",
            Num::Int { bits, signed } => match (bits, signed) {
                (8, true) => "a signed 8-bit integer",
                (8, false) => "an unsigned 8-bit integer",
                (16, true) => "a signed 16-bit integer",
                (16, false) => "an unsigned 16-bit integer",
                (32, true) => "a signed 32-bit integer",
                (32, false) => "an unsigned 32-bit integer",
                (64, true) => "a signed 64-bit integer",
                (64, false) => "an unsigned 64-bit integer",
                (_, true) => "a signed integer",
                (_, false) => "an unsigned integer",
            },
            Num::Float(32) => "a 32-bit float",
            Num::Float(64) => "a 64-bit float",
            Num::Float(_) => "a float",
            Num::F16 => "an `f16` (`__half`)",
            Num::BF16 => "a `bf16` (`__nv_bfloat16`)",
        }
    }
}

/// What a type is in C++ terms, as far as chevron can tell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Not known: on the Rust side a type chevron does not name (the user's own struct), on
    /// the C++ side a struct, enum or class by name, which the PTX checks by size and
    /// alignment only.
    Unknown,
    /// `void`, the pointee of a `void*`: any element fits.
    Void,
    /// A number.
    Num(Num),
    /// A CUDA vector type of `lanes` numbers: `float4` is `Vector(Num::Float(32), 4)`
    /// (`chevron::vec::Float4`).
    Vector(Num, u32),
}

impl Class {
    /// Size in bytes of a number or vector; 0 for the others.
    pub const fn bytes(self) -> u64 {
        match self {
            Class::Num(n) => n.bytes(),
            Class::Vector(n, lanes) => n.bytes() * lanes as u64,
            Class::Unknown | Class::Void => 0,
        }
    }

    /// Alignment in bytes as CUDA lays it out (`float4`: 16, `float3`: 4); 0 where not known.
    pub const fn align(self) -> u64 {
        match self {
            Class::Num(n) => n.bytes(),
            Class::Vector(n, lanes) => {
                let whole = n.bytes() * lanes as u64;
                if lanes == 3 {
                    n.bytes()
                } else if whole > 16 {
                    16
                } else {
                    whole
                }
            }
            Class::Unknown | Class::Void => 0,
        }
    }
}

/// What a C++ kernel's symbol says about one of its parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CppParam {
    /// Nothing: the kernel is `extern "C"`, or the type is one chevron does not check (a
    /// reference, a function pointer).
    Unknown,
    /// `T*` or `T const*` (`pointee` is [`Class::Unknown`] for `T**`).
    Pointer {
        /// What it points to.
        pointee: Class,
        /// `T const*`: the kernel only reads through it.
        is_const: bool,
    },
    /// `T` by value.
    Value(Class),
}

/// A demangled kernel symbol.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature {
    /// The qualified name with its template arguments: `softmax_kernel<128>`, `ns::scale`.
    pub name: String,
    /// The parameter types as the demangler spells them: `float*`, `float const*`, `int`.
    pub params: Vec<String>,
}

impl Signature {
    /// `softmax_kernel<128>(float*, float const*, int)`.
    pub fn text(&self) -> String {
        format!("{}({})", self.name, self.params.join(", "))
    }

    /// The name without its template arguments: `softmax_kernel`.
    pub fn base(&self) -> &str {
        match top_level(&self.name, '<') {
            Some(at) => &self.name[..at],
            None => &self.name,
        }
    }

    /// Each parameter's type, for the checks.
    pub fn types(&self) -> Vec<CppParam> {
        self.params.iter().map(|p| parse_type(p)).collect()
    }

    /// Whether `wanted` names this kernel: its name with or without template arguments
    /// (`softmax_kernel<128>`, `softmax_kernel`), qualified or, when `wanted` has no `::`, by
    /// its last component (`scale` for `ns::scale`), optionally with a parameter list that
    /// must be the same types (`scale(float*, int)`, `scale(const float *, int)`). Whitespace
    /// does not matter, nor does a leading return type `void`.
    pub fn matches(&self, wanted: &str) -> bool {
        let wanted = wanted.trim();
        let wanted = wanted.strip_prefix("void ").unwrap_or(wanted).trim();
        let (name, params) = match top_level(wanted, '(') {
            Some(open) if wanted.ends_with(')') => {
                (&wanted[..open], Some(&wanted[open + 1..wanted.len() - 1]))
            }
            _ => (wanted, None),
        };
        let name = compact(name);
        let unqualified = !name.contains("::");
        let full = compact(&self.name);
        let base = compact(self.base());
        let names_it = [&full, &base].iter().any(|candidate| {
            **candidate == name || (unqualified && last_component(candidate) == name)
        });
        if !names_it {
            return false;
        }
        match params {
            None => true,
            Some(list) => {
                let wanted: Vec<String> = split_top_level(list)
                    .into_iter()
                    .filter(|p| !(p.is_empty() || p == "void"))
                    .collect();
                wanted.len() == self.params.len()
                    && wanted
                        .iter()
                        .zip(&self.params)
                        .all(|(w, p)| same_type(w, p))
            }
        }
    }
}

/// The signature of a C++ kernel symbol; `None` for an `extern "C"` name or a symbol the
/// demangler does not read.
pub fn demangle(symbol: &str) -> Option<Signature> {
    if !symbol.starts_with("_Z") {
        return None;
    }
    let text = cpp_demangle::Symbol::new(symbol.as_bytes())
        .ok()?
        .demangle()
        .ok()?;
    // Templates carry their return type: `void softmax_kernel<128>(…)`.
    let text = text.strip_prefix("void ").unwrap_or(&text);
    let open = top_level(text, '(')?;
    let close = text.rfind(')')?;
    if close < open {
        return None;
    }
    let params = split_top_level(&text[open + 1..close])
        .into_iter()
        .filter(|p| !(p.is_empty() || p == "void"))
        .collect();
    Some(Signature {
        name: text[..open].trim().to_string(),
        params,
    })
}

/// The kernel's name for messages: its demangled signature, or the symbol itself.
pub fn display_name(symbol: &str) -> String {
    demangle(symbol).map_or_else(|| symbol.to_string(), |s| s.text())
}

/// The index of the first `c` in `s` outside `<…>`, `(…)` and `[…]`.
fn top_level(s: &str, c: char) -> Option<usize> {
    let mut depth = 0i32;
    for (i, ch) in s.char_indices() {
        if ch == c && depth == 0 {
            return Some(i);
        }
        match ch {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// `a, b<c, d>, e` split at its top-level commas, each trimmed.
fn split_top_level(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, ch) in s.char_indices() {
        match ch {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(s[start..i].trim().to_string());
                start = i + 1;
            }
            _ => {}
        }
    }
    let last = s[start..].trim();
    if !last.is_empty() || !out.is_empty() {
        out.push(last.to_string());
    }
    out
}

/// `s` without whitespace.
fn compact(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

/// `scale` of `ns::scale`, `f<a::b>` of `ns::f<a::b>`.
fn last_component(s: &str) -> &str {
    let mut depth = 0i32;
    let mut cut = 0;
    let bytes = s.as_bytes();
    for (i, ch) in s.char_indices() {
        match ch {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => depth -= 1,
            ':' if depth == 0 && bytes.get(i + 1) == Some(&b':') => cut = i + 2,
            _ => {}
        }
    }
    &s[cut..]
}

/// Whether two spellings name the same parameter type: `const float *` and `float const*`,
/// `unsigned` and `unsigned int`.
fn same_type(a: &str, b: &str) -> bool {
    let (x, y) = (Spelled::read(a), Spelled::read(b));
    x.pointers == y.pointers && x.base == y.base && x.consts == y.consts
}

/// A type's spelling taken apart: its base words (qualifiers removed, builtin words in a
/// canonical order), how many `*` follow, and which levels are `const` (bit 0: the base).
#[derive(Debug, PartialEq, Eq)]
struct Spelled {
    base: String,
    pointers: usize,
    consts: u64,
    /// A reference, an array, a function pointer: not checked.
    other: bool,
}

impl Spelled {
    fn read(text: &str) -> Spelled {
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
            let mut w: Vec<&str> = words.iter().map(String::as_str).collect();
            // `unsigned` alone is `unsigned int`; `long int` is `long`.
            if w.iter().any(|x| matches!(*x, "short" | "long" | "char")) {
                w.retain(|x| *x != "int");
            } else if !w.contains(&"int") {
                w.push("int");
            }
            if w.contains(&"signed") && !w.contains(&"char") {
                w.retain(|x| *x != "signed");
            }
            w.sort_unstable();
            w.join(" ")
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
        // `T**`, `T* const*`: a pointer to pointers, whose elements are 8 bytes of any kind.
        n => CppParam::Pointer {
            pointee: Class::Unknown,
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

/// The Rust type to declare for a parameter of C++ type `text` (as the symbol spells it), for
/// the fix in a message: `&mut CudaSlice<f32>` for `float*`, `&CudaSlice<f32>` for
/// `float const*`, `i32` for `int`.
pub fn rust_for(text: &str) -> String {
    let spelled = Spelled::read(text);
    // `cudaGraphExec_t` (a device-launchable graph, passed to `cudaGraphLaunch`).
    if spelled.base == "CUgraphExec_st" && spelled.pointers == 1 && !spelled.other {
        return "`chevron::DeviceGraphHandle`".into();
    }
    let rust = |class: Class| -> String {
        match class {
            Class::Num(n) => match n {
                Num::Char => "`i8`".into(),
                Num::F16 => "`chevron::half::f16`".into(),
                Num::BF16 => "`chevron::half::bf16`".into(),
                Num::Int { bits: 64, signed } => {
                    if signed {
                        "`i64`".into()
                    } else {
                        "`u64`".into()
                    }
                }
                n => n.rust_name().to_string(),
            },
            Class::Vector(n, lanes) => match vector_rust(n, lanes) {
                Some(name) => format!("`chevron::vec::{name}`"),
                None => format!(
                    "a `#[repr(C, align({}))]` struct of {lanes} {}",
                    class.align(),
                    n.rust_name()
                ),
            },
            Class::Void | Class::Unknown => format!(
                "a `#[repr(C)]` type laid out like `{}`",
                spelled.base.replace(',', ", ")
            ),
        }
    };
    match parse_type(text) {
        CppParam::Value(class) => rust(class),
        CppParam::Pointer { pointee, is_const } => {
            let r = if is_const { "&" } else { "&mut " };
            match pointee {
                Class::Void => format!("`{r}CudaSlice<T>` of any `T`"),
                Class::Unknown if spelled.pointers > 1 => format!("`{r}CudaSlice<u64>`"),
                Class::Unknown => format!(
                    "`{r}CudaSlice<T>` of a `#[repr(C)]` type `T` laid out like `{}`",
                    spelled.base
                ),
                class => {
                    let inner = rust(class);
                    match inner.strip_prefix('`').and_then(|s| s.strip_suffix('`')) {
                        Some(name) if !name.contains('`') => format!("`{r}CudaSlice<{name}>`"),
                        _ => format!("`{r}CudaSlice<T>` of {inner}"),
                    }
                }
            }
        }
        CppParam::Unknown => format!("a type matching `{text}`"),
    }
}

/// The name of chevron's vector type for `lanes` numbers of class `n` (`chevron::vec::Float4`).
pub fn vector_rust(n: Num, lanes: u32) -> Option<String> {
    let elem = match n {
        Num::Float(32) => "Float",
        Num::Float(64) => "Double",
        Num::Int {
            bits: 32,
            signed: true,
        } => "Int",
        Num::Int {
            bits: 32,
            signed: false,
        } => "UInt",
        _ => return None,
    };
    let ok = match elem {
        "Double" => lanes == 2,
        _ => (2..=4).contains(&lanes),
    };
    ok.then(|| format!("{elem}{lanes}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sig(symbol: &str) -> Signature {
        demangle(symbol).expect("demangles")
    }

    #[test]
    fn demangles_nvcc_symbols() {
        let s = sig("_Z14softmax_kernelILi128EEvPfPKfi");
        assert_eq!(s.name, "softmax_kernel<128>");
        assert_eq!(s.base(), "softmax_kernel");
        assert_eq!(s.params, ["float*", "float const*", "int"]);
        assert_eq!(s.text(), "softmax_kernel<128>(float*, float const*, int)");
        let s = sig("_Z2vkI6float4Li2EEvPT_PKS1_m");
        assert_eq!(
            s.text(),
            "vk<float4, 2>(float4*, float4 const*, unsigned long)"
        );
        let s = sig("_ZN2ns4innsEPKNS_6ParamsEPj");
        assert_eq!(s.text(), "ns::inns(ns::Params const*, unsigned int*)");
        assert_eq!(sig("_Z5emptyv").params, Vec::<String>::new());
        assert_eq!(demangle("saxpy"), None);
        assert_eq!(demangle("_Znot a symbol"), None);
        assert_eq!(display_name("saxpy"), "saxpy");
        assert_eq!(display_name("_Z4overPfi"), "over(float*, int)");
    }

    #[test]
    fn names_match_with_or_without_templates_and_parameters() {
        let s = sig("_Z14softmax_kernelILi128EEvPfPKfi");
        for ok in [
            "softmax_kernel<128>",
            "softmax_kernel < 128 >",
            "softmax_kernel",
            "softmax_kernel<128>(float*, float const*, int)",
            "softmax_kernel<128>(float *, const float *, int)",
            "void softmax_kernel<128>(float*,float const*,int)",
            "softmax_kernel(float*, const float*, int)",
        ] {
            assert!(s.matches(ok), "{ok}");
        }
        for no in [
            "softmax_kernel<256>",
            "softmax",
            "softmax_kernel<128>(float*, float*, int)",
            "softmax_kernel<128>(float*, float const*)",
            "softmax_kernel<128>(float*, float const*, unsigned)",
            "ns::softmax_kernel",
        ] {
            assert!(!s.matches(no), "{no}");
        }
        let s = sig("_ZN2ns4innsEPKNS_6ParamsEPj");
        assert!(s.matches("inns"));
        assert!(s.matches("ns::inns"));
        assert!(s.matches("ns::inns(const ns::Params*, unsigned*)"));
        assert!(!s.matches("other::inns"));
        let s = sig("_Z5emptyv");
        assert!(s.matches("empty()") && s.matches("empty(void)") && !s.matches("empty(int)"));
    }

    #[test]
    fn parameter_types() {
        let int = |bits, signed| Class::Num(Num::Int { bits, signed });
        let ptr = |pointee, is_const| CppParam::Pointer { pointee, is_const };
        let s = sig("_Z5typescahstijlmxybfd6__half13__nv_bfloat166float4N2ns6ParamsENS2_4ModeEljPvPKvPPf4int2");
        let types = s.types();
        let want = [
            CppParam::Value(Class::Num(Num::Char)),
            CppParam::Value(int(8, true)),
            CppParam::Value(int(8, false)),
            CppParam::Value(int(16, true)),
            CppParam::Value(int(16, false)),
            CppParam::Value(int(32, true)),
            CppParam::Value(int(32, false)),
            CppParam::Value(int(64, true)),
            CppParam::Value(int(64, false)),
            CppParam::Value(int(64, true)),
            CppParam::Value(int(64, false)),
            CppParam::Value(Class::Num(Num::Bool)),
            CppParam::Value(Class::Num(Num::Float(32))),
            CppParam::Value(Class::Num(Num::Float(64))),
            CppParam::Value(Class::Num(Num::F16)),
            CppParam::Value(Class::Num(Num::BF16)),
            CppParam::Value(Class::Vector(Num::Float(32), 4)),
            CppParam::Value(Class::Unknown),
            CppParam::Value(Class::Unknown),
            CppParam::Value(int(64, true)),
            CppParam::Value(int(32, false)),
            ptr(Class::Void, false),
            ptr(Class::Void, true),
            ptr(Class::Unknown, false),
            CppParam::Value(Class::Vector(
                Num::Int {
                    bits: 32,
                    signed: true,
                },
                2,
            )),
        ];
        assert_eq!(types, want);
        assert_eq!(
            parse_type("float const*"),
            ptr(Class::Num(Num::Float(32)), true)
        );
        assert_eq!(
            parse_type("const float* __restrict__"),
            ptr(Class::Num(Num::Float(32)), true)
        );
        assert_eq!(
            parse_type("float* const"),
            ptr(Class::Num(Num::Float(32)), false)
        );
        assert_eq!(parse_type("float const* const*"), ptr(Class::Unknown, true));
        assert_eq!(
            parse_type("long unsigned int"),
            CppParam::Value(int(64, false))
        );
        assert_eq!(parse_type("Wrap<float> const*"), ptr(Class::Unknown, true));
        assert_eq!(parse_type("float&"), CppParam::Unknown);
        assert_eq!(parse_type("void (*)(int)"), CppParam::Unknown);
    }

    #[test]
    fn fixes_name_rust_types() {
        assert_eq!(rust_for("float*"), "`&mut CudaSlice<f32>`");
        assert_eq!(rust_for("float const*"), "`&CudaSlice<f32>`");
        assert_eq!(rust_for("int"), "`i32`");
        assert_eq!(rust_for("unsigned long"), "`u64`");
        assert_eq!(
            rust_for("__half const*"),
            "`&CudaSlice<chevron::half::f16>`"
        );
        assert_eq!(
            rust_for("float4*"),
            "`&mut CudaSlice<chevron::vec::Float4>`"
        );
        assert_eq!(rust_for("float4"), "`chevron::vec::Float4`");
        assert_eq!(rust_for("void*"), "`&mut CudaSlice<T>` of any `T`");
        assert_eq!(
            rust_for("ns::Params const*"),
            "`&CudaSlice<T>` of a `#[repr(C)]` type `T` laid out like `ns::Params`"
        );
        assert_eq!(
            rust_for("ns::Params"),
            "a `#[repr(C)]` type laid out like `ns::Params`"
        );
        assert_eq!(rust_for("CUgraphExec_st*"), "`chevron::DeviceGraphHandle`");
        assert_eq!(
            rust_for("char4"),
            "a `#[repr(C, align(4))]` struct of 4 `i8`"
        );
    }
}
