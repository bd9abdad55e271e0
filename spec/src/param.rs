//! What a Rust kernel parameter type is in PTX terms ([`ParamForm`]) and whether it fits a PTX
//! `.param` ([`fits`]), as `const fn`s.
//!
//! `#[kernel]` cannot resolve `type Scale = f32`, `std::primitive::f32` or a renamed import; rustc
//! can. So each parameter type says what it is through a trait (in the runtime) whose associated
//! const is a [`ParamForm`], and the declaration expands to a const block that compares it with
//! the PTX parameter the macro read, calling [`mismatch`] for the message. [`ptx::check_param`]
//! applies the same rule at run time, for CUDA C compiled by NVRTC.
//!
//! Where the kernel's symbol carries its C++ signature (any kernel not declared `extern "C"`),
//! each parameter's C++ type ([`CppParam`], from [`crate::cpp`]) is compared too, in the same
//! const block: [`check`] applies every rule, the PTX one first.
//!
//! [`ptx::check_param`]: crate::ptx::check_param

use crate::cpp;
use crate::ptx::{Entry, Expected, PtxType, Seen, Site};

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

/// What the kernel says about the parameter in a Rust parameter's place beyond its PTX type,
/// and the declaration's opt-out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Facts {
    /// The `.align` of a by-value `.b8 name[N]` parameter: the C++ type's alignment.
    pub ptx_align: Option<u32>,
    /// The parameter's C++ type, from the demangled symbol.
    pub cpp: CppParam,
    /// The kernel's PTX stores through the pointer (read where no C++ type says `const`).
    pub written: bool,
    /// `#[read_only]` on the parameter: the declaration vouches that the kernel does not
    /// write through it, `const` or not.
    pub read_only: bool,
}

impl Facts {
    /// Nothing beyond the PTX type.
    pub const NONE: Facts = Facts {
        ptx_align: None,
        cpp: CppParam::Unknown,
        written: false,
        read_only: false,
    };
}

/// The words of each kind of mismatch after what the Rust type is, written by `#[kernel]`,
/// which knows the file, the line and the C++ spelling.
#[derive(Clone, Copy, Debug)]
pub struct Texts<'a> {
    /// "`` `a: Scale` is ``".
    pub prefix: &'a str,
    /// After a PTX mismatch: ", but the kernel takes a 32-bit integer here (…); declare it
    /// as `u32` or `i32`".
    pub ptx: &'a str,
    /// After an alignment mismatch: ", but the kernel takes a 16-byte struct aligned to 16
    /// bytes here (…); declare it as …".
    pub layout: &'a str,
    /// After a C++ type mismatch: ", but the kernel takes `float*` here (parameter 1 of
    /// `scale(float*, int)`, …); declare it as `&mut CudaSlice<f32>`".
    pub cpp: &'a str,
    /// After "read-only (`&`)" for a pointer that is not `const`: ", but the kernel takes
    /// `float*` here (…), not `float const*`: it may write through it; …".
    pub not_const: &'a str,
    /// After "read-only (`&`)" for a pointer the PTX stores through: ", but the kernel writes
    /// through it (…); …".
    pub written: &'a str,
}

/// What a Rust parameter type is, as the PTX sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParamForm {
    /// Class and width: `Int(32)`, `Float(64)`, `Bool`, `Pointer` for a device buffer, or
    /// `Value(Some(size))` for any other type passed by value (a `#[repr(C)]` struct,
    /// `half::f16`).
    pub expected: Expected,
    /// A device buffer the kernel may write through (`&mut CudaSlice<T>`,
    /// `&mut CudaViewMut<'_, T>`).
    pub writes: bool,
    /// For a device buffer, the size of its element in bytes; 0 for a value.
    pub element_bytes: u64,
    /// The C++ class of the value, or of a buffer's element: [`Class::Unknown`] for a type
    /// chevron does not name.
    pub class: Class,
    /// Size in bytes of the value, or of a buffer's element.
    pub bytes: u64,
    /// Alignment in bytes of the value, or of a buffer's element.
    pub align: u64,
}

impl ParamForm {
    /// An integer of `bits` bits, passed by value.
    pub const fn int(bits: u32) -> Self {
        Self::of(Expected::Int(bits))
    }

    /// A float of `bits` bits, passed by value.
    pub const fn float(bits: u32) -> Self {
        Self::of(Expected::Float(bits))
    }

    /// `bool`, one byte.
    pub const fn bool() -> Self {
        Self::of(Expected::Bool)
    }

    /// Any other type of `bytes` bytes, passed by value.
    pub const fn value(bytes: u64) -> Self {
        Self::of(Expected::Value(Some(bytes)))
    }

    /// A device buffer of elements of `element_bytes` bytes, which the kernel may write
    /// through when `writes`.
    pub const fn buffer(element_bytes: u64, writes: bool) -> Self {
        Self {
            expected: Expected::Pointer,
            writes,
            element_bytes,
            class: Class::Unknown,
            bytes: element_bytes,
            align: element_bytes,
        }
    }

    /// The same form, of a value (or element) of `bytes` bytes aligned to `align`.
    pub const fn with_layout(mut self, bytes: u64, align: u64) -> Self {
        self.bytes = bytes;
        self.align = align;
        self
    }

    /// The same form, of a value (or element) of C++ class `class`.
    pub const fn with_class(mut self, class: Class) -> Self {
        self.class = class;
        self
    }

    /// The form of a type that needs `expected`, of its natural size.
    pub const fn of(expected: Expected) -> Self {
        let bytes = match expected {
            Expected::Int(bits) | Expected::Float(bits) => bits as u64 / 8,
            Expected::Bool => 1,
            Expected::Pointer => 8,
            Expected::Value(Some(n)) => n,
            Expected::Value(None) => 0,
        };
        Self {
            expected,
            writes: false,
            element_bytes: 0,
            class: Class::Unknown,
            bytes,
            align: bytes,
        }
    }

    /// Whether this is a device buffer the kernel only reads (`&CudaSlice<T>`).
    pub const fn is_read_only_buffer(&self) -> bool {
        matches!(self.expected, Expected::Pointer) && !self.writes
    }
}

/// Whether a Rust parameter that needs `expected` fits a PTX parameter of type `ty` (an array
/// `ty name[N]` when `array_len` is `Some(N)`).
///
/// Widths must agree; integers accept either signedness and the untyped `.bN`; floats accept
/// `.fN` and `.bN`; pointers need 64 bits; by-value types match a `.b8 name[N]` array or any
/// scalar of their size (`Value(None)`, a size not known yet, matches anything but `.pred`).
pub const fn fits(expected: Expected, ty: PtxType, array_len: Option<u32>) -> bool {
    use PtxType::*;
    let bits = ty.bits();
    let array = array_len.is_some();
    let int_like = matches!(
        ty,
        U8 | U16 | U32 | U64 | S8 | S16 | S32 | S64 | B8 | B16 | B32 | B64
    );
    let pred = matches!(ty, Pred);
    match expected {
        Expected::Int(w) => !array && int_like && bits == w,
        Expected::Bool => !array && int_like && bits == 8,
        Expected::Float(w) => {
            !array && matches!(ty, F16 | F32 | F64 | B16 | B32 | B64) && bits == w
        }
        Expected::Pointer => !array && matches!(ty, U64 | S64 | B64),
        Expected::Value(None) => !pred,
        Expected::Value(Some(n)) => !pred && size_bytes(ty, array_len) == n,
    }
}

/// Size in bytes of a PTX parameter: the element's size times the array length.
pub const fn size_bytes(ty: PtxType, array_len: Option<u32>) -> u64 {
    let n = match array_len {
        Some(n) => n as u64,
        None => 1,
    };
    ty.bits().div_ceil(8) as u64 * n
}

/// The message for a Rust parameter of form `form` in the place of a PTX parameter of type `ty`
/// (`array_len` as for [`fits`]): empty when it fits, else `prefix`, what the Rust type is ("a
/// 32-bit float"), then `suffix`. `#[kernel]` passes "`` `a: Scale` is ``" and ", but the kernel
/// takes a 32-bit integer here (…); declare it as …".
pub const fn mismatch(
    form: ParamForm,
    ty: PtxType,
    array_len: Option<u32>,
    prefix: &str,
    suffix: &str,
) -> Message {
    if fits(form.expected, ty, array_len) {
        return Message::new();
    }
    describe(Message::new().push(prefix), form.expected).push(suffix)
}

/// The message for a Rust parameter of form `form` in the place of a PTX parameter of type `ty`
/// (`array_len` as for [`fits`]) of which `facts` says more: empty when every rule holds, else
/// the first broken one's, in this order:
///
/// 1. the PTX type ([`mismatch`], with `texts.ptx`);
/// 2. a by-value struct's alignment, where the PTX gives it (`.align 16 .b8 p[16]`);
/// 3. the C++ type, where the symbol carries it: a pointer's element type (`float*` takes a
///    buffer of `f32`, or a `u64` device address), a number's class, signedness and width
///    (`int` takes `i32`, not `u32`), a vector type (`float4` takes `chevron::vec::Float4` or a
///    16-byte, 16-aligned struct); a C++ struct by value is checked by size and alignment;
/// 4. write access: a read-only buffer (`&CudaSlice<T>`) for a pointer that is not `const`,
///    or that the PTX stores through, unless the parameter is `#[read_only]`. The reverse, a
///    `&mut` buffer for a `const T*`, is allowed: cudarc then orders the launch as a write,
///    which is never wrong, only stricter.
pub const fn check(
    form: ParamForm,
    ty: PtxType,
    array_len: Option<u32>,
    facts: Facts,
    texts: &Texts<'_>,
) -> Message {
    if !fits(form.expected, ty, array_len) {
        return describe(Message::new().push(texts.prefix), form.expected).push(texts.ptx);
    }
    let by_value_struct = array_len.is_some() && !matches!(form.expected, Expected::Pointer);
    if let (true, Some(align)) = (by_value_struct, facts.ptx_align) {
        if form.align != align as u64 {
            return Message::new()
                .push(texts.prefix)
                .push(article(form.bytes))
                .push_u64(form.bytes)
                .push("-byte value aligned to ")
                .push_u64(form.align)
                .push(if form.align == 1 { " byte" } else { " bytes" })
                .push(texts.layout);
        }
    }
    if !cpp_fits(form, facts.cpp) {
        return describe_rust(Message::new().push(texts.prefix), form).push(texts.cpp);
    }
    if form.is_read_only_buffer() && !facts.read_only {
        let not_const = matches!(
            facts.cpp,
            CppParam::Pointer {
                is_const: false,
                ..
            }
        );
        if not_const {
            return Message::new()
                .push(texts.prefix)
                .push("read-only (`&`)")
                .push(texts.not_const);
        }
        if facts.written && matches!(facts.cpp, CppParam::Unknown) {
            return Message::new()
                .push(texts.prefix)
                .push("read-only (`&`)")
                .push(texts.written);
        }
    }
    Message::new()
}

/// Whether a Rust parameter of form `form` (which fits the PTX parameter) is the C++ type
/// `cpp`; see [`check`], rule 3.
pub const fn cpp_fits(form: ParamForm, cpp: CppParam) -> bool {
    let buffer = matches!(form.expected, Expected::Pointer);
    match cpp {
        CppParam::Unknown => true,
        CppParam::Pointer { pointee, .. } => {
            if !buffer {
                // A device address as a 64-bit integer, or a type chevron does not name (a
                // `#[repr(transparent)]` wrapper of one).
                return matches!(form.class, Class::Unknown)
                    || matches!(form.class, Class::Num(Num::Int { bits: 64, .. }));
            }
            class_fits(form.class, form.bytes, form.align, pointee)
        }
        CppParam::Value(class) => !buffer && class_fits(form.class, form.bytes, form.align, class),
    }
}

/// Whether a Rust value (or element) of class `rust`, `bytes` bytes aligned to `align`, is the
/// C++ type of class `cpp`. A Rust type chevron does not name fits by size (and, for a vector,
/// alignment); a C++ struct or `void` takes anything.
pub const fn class_fits(rust: Class, bytes: u64, align: u64, cpp: Class) -> bool {
    match (cpp, rust) {
        (Class::Unknown | Class::Void, _) => true,
        (Class::Num(c), Class::Num(r)) => c.accepts(r),
        (Class::Vector(c, n), Class::Vector(r, m)) => n == m && c.accepts(r),
        (Class::Num(_), Class::Unknown) => bytes == cpp.bytes(),
        (Class::Vector(..), Class::Unknown) => bytes == cpp.bytes() && align == cpp.align(),
        _ => false,
    }
}

/// `message` followed by what the Rust side is in C++ terms: "a signed 32-bit integer", "a
/// device buffer of `u32`", "a 16-byte value".
pub const fn describe_rust(message: Message, form: ParamForm) -> Message {
    let buffer = matches!(form.expected, Expected::Pointer);
    let message = if buffer {
        message.push("a device buffer of ")
    } else {
        message
    };
    match (form.class, buffer) {
        (Class::Num(n), true) => message.push(n.rust_name()),
        (Class::Num(n), false) => message.push(n.words()),
        (Class::Vector(n, lanes), _) => message
            .push(if buffer {
                "vectors of "
            } else {
                "a vector of "
            })
            .push_u64(lanes as u64)
            .push(" ")
            .push(n.rust_name()),
        (_, true) => message.push_u64(form.bytes).push("-byte elements"),
        (_, false) => describe(message, form.expected),
    }
}

/// `message` followed by what the Rust side is: "a 32-bit integer", "a 16-byte value".
pub const fn describe(message: Message, expected: Expected) -> Message {
    match expected {
        Expected::Int(bits) => message
            .push(article(bits as u64))
            .push_u64(bits as u64)
            .push("-bit integer"),
        Expected::Float(bits) => message
            .push(article(bits as u64))
            .push_u64(bits as u64)
            .push("-bit float"),
        Expected::Bool => message.push("a `bool` (8-bit)"),
        Expected::Pointer => message.push("a device pointer (64-bit)"),
        Expected::Value(Some(n)) => message.push(article(n)).push_u64(n).push("-byte value"),
        Expected::Value(None) => message.push("a value"),
    }
}

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
                // What the PTX shows of it sharpens the fix.
                let not_const = match writes {
                    Some(Seen::Yes(site)) => format!(
                        ", but the kernel takes `{spelled}` here ({place}), not `{constant}`, \
                         and writes through it ({}); declare it as {fix}",
                        store_place(site, file, ptx_text)
                    ),
                    Some(Seen::No) => format!(
                        ", but the kernel takes `{spelled}` here ({place}), not `{constant}`: it \
                         may write through it; declare it as {fix}, or mark the parameter \
                         `#[read_only]` (this PTX has no store through it)"
                    ),
                    _ => format!(
                        ", but the kernel takes `{spelled}` here ({place}), not `{constant}`: it \
                         may write through it; declare it as {fix}, or mark the parameter \
                         `#[read_only]` if the kernel only reads it"
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
        // Where no C++ type says `const`, the PTX says whether the kernel stores through it.
        let store = match (cpp, writes) {
            (CppParam::Unknown, Some(Seen::Yes(site))) => Some(site),
            _ => None,
        };
        let written = store.map_or_else(String::new, |site| {
            format!(
                ", but the kernel writes through it ({}); declare it as {}, or mark the \
                 parameter `#[read_only]` if that store never runs on this buffer",
                store_place(site, file, ptx_text),
                writable(rust_ty)
            )
        });
        ParamWords {
            facts: Facts {
                ptx_align: ptx_param.align,
                cpp,
                written: store.is_some(),
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
    let line = ptx_text
        .lines()
        .nth(site.line.saturating_sub(1))
        .unwrap_or("")
        .trim();
    let line = line.split("//").next().unwrap_or(line);
    let line = line.split_whitespace().collect::<Vec<_>>().join(" ");
    let within = site.func.as_deref().map_or_else(String::new, |f| {
        // Relocatable code calls module-local copies: `_Z3putPfif$6`.
        let f = f.split('$').next().unwrap_or(f);
        format!(", in `{}`", cpp::display_name(f))
    });
    format!("{file}:{}: `{line}`{within}", site.line)
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

/// "an " before a number read with a vowel first (8, 11, 18, 80…), else "a ".
pub const fn article(n: u64) -> &'static str {
    // The leading group of three digits is read first: "eleven thousand", "eight hundred".
    let mut head = n;
    while head >= 1000 {
        head /= 1000;
    }
    let mut lead = head;
    while lead >= 10 {
        lead /= 10;
    }
    if lead == 8 || head == 11 || head == 18 {
        "an "
    } else {
        "a "
    }
}

/// How many bytes a [`Message`] holds; longer text is cut at a character boundary.
pub const MESSAGE_CAPACITY: usize = 2048;

/// Text built by `const fn`s, for a `panic!("{}", message.as_str())` in a const block (const
/// code can format no other way).
#[derive(Clone, Copy)]
pub struct Message {
    bytes: [u8; MESSAGE_CAPACITY],
    len: usize,
}

impl Message {
    /// No text.
    pub const fn new() -> Self {
        Self {
            bytes: [0; MESSAGE_CAPACITY],
            len: 0,
        }
    }

    /// Appends `s`, as much of it as fits, ending at a character boundary.
    pub const fn push(mut self, s: &str) -> Self {
        let s = s.as_bytes();
        let mut n = s.len();
        if n > MESSAGE_CAPACITY - self.len {
            n = MESSAGE_CAPACITY - self.len;
            // A UTF-8 continuation byte (0b10xx_xxxx) cannot start the cut-off part.
            while n > 0 && s[n] & 0xC0 == 0x80 {
                n -= 1;
            }
        }
        let mut i = 0;
        while i < n {
            self.bytes[self.len + i] = s[i];
            i += 1;
        }
        self.len += n;
        self
    }

    /// Appends `n` in decimal.
    pub const fn push_u64(self, mut n: u64) -> Self {
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        let (_, tail) = digits.split_at(i);
        match core::str::from_utf8(tail) {
            Ok(s) => self.push(s),
            Err(_) => self,
        }
    }

    /// Whether nothing was written.
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The text.
    pub const fn as_str(&self) -> &str {
        let (text, _) = self.bytes.split_at(self.len);
        match core::str::from_utf8(text) {
            Ok(s) => s,
            // `push` only cuts at character boundaries.
            Err(_) => "",
        }
    }
}

impl Default for Message {
    fn default() -> Self {
        Self::new()
    }
}

impl core::fmt::Debug for Message {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_tuple("Message").field(&self.as_str()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptx::PtxType::*;

    #[test]
    fn floats_integers_pointers_and_values() {
        // A float never fits an integer of its width, nor an integer a float.
        assert!(!fits(Expected::Float(32), U32, None));
        assert!(!fits(Expected::Float(64), U64, None));
        assert!(!fits(Expected::Int(32), F32, None));
        assert!(!fits(Expected::Int(64), F64, None));
        // Untyped bits take either; signedness is free; widths must agree.
        assert!(fits(Expected::Float(32), B32, None));
        assert!(fits(Expected::Int(32), B32, None));
        assert!(fits(Expected::Int(32), S32, None));
        assert!(!fits(Expected::Int(64), U32, None));
        assert!(fits(Expected::Bool, U8, None));
        assert!(!fits(Expected::Bool, U32, None));
        // Pointers: 64-bit integers, not arrays.
        assert!(fits(Expected::Pointer, U64, None));
        assert!(!fits(Expected::Pointer, U32, None));
        assert!(!fits(Expected::Pointer, B8, Some(8)));
        // Values: by size, arrays included; never `.pred`.
        assert!(fits(Expected::Value(Some(16)), B8, Some(16)));
        assert!(!fits(Expected::Value(Some(12)), B8, Some(16)));
        assert!(fits(Expected::Value(Some(4)), U32, None));
        assert!(!fits(Expected::Value(Some(1)), Pred, None));
        assert!(!fits(Expected::Int(32), B8, Some(4)));
    }

    #[test]
    fn mismatches_say_what_the_rust_type_is() {
        let m = |form, ty, len| mismatch(form, ty, len, "`a: Scale` is ", ", but …");
        assert_eq!(
            m(ParamForm::float(32), U32, None).as_str(),
            "`a: Scale` is a 32-bit float, but …"
        );
        assert_eq!(
            m(ParamForm::int(64), F64, None).as_str(),
            "`a: Scale` is a 64-bit integer, but …"
        );
        assert_eq!(
            m(ParamForm::value(12), B8, Some(16)).as_str(),
            "`a: Scale` is a 12-byte value, but …"
        );
        assert_eq!(
            m(ParamForm::buffer(4, true), U32, None).as_str(),
            "`a: Scale` is a device pointer (64-bit), but …"
        );
        assert_eq!(
            m(ParamForm::bool(), U32, None).as_str(),
            "`a: Scale` is a `bool` (8-bit), but …"
        );
        assert!(m(ParamForm::int(32), U32, None).is_empty());
    }

    #[test]
    fn articles() {
        for (n, a) in [
            (8, "an "),
            (16, "a "),
            (11, "an "),
            (18, "an "),
            (80, "an "),
            (64, "a "),
            (1, "a "),
            (100, "a "),
            (800, "an "),
            (11_000, "an "),
            (18_500, "an "),
            (110, "a "),
            (1_100, "a "),
        ] {
            assert_eq!(article(n), a, "{n}");
        }
    }

    #[test]
    fn messages_are_cut_at_a_character_boundary() {
        let long = "é".repeat(MESSAGE_CAPACITY);
        let m = Message::new().push("x").push(&long);
        assert!(m.as_str().len() <= MESSAGE_CAPACITY);
        assert!(m.as_str().len() > MESSAGE_CAPACITY - 2);
        assert!(m.as_str().starts_with("xé"));
        assert_eq!(Message::new().push_u64(0).as_str(), "0");
        assert_eq!(
            Message::new().push_u64(u64::MAX).as_str(),
            u64::MAX.to_string()
        );
    }

    /// The form a const block computes is usable in const context.
    const _: () = {
        let m = mismatch(ParamForm::float(32), U32, None, "`a: Scale` is ", ", but …");
        assert!(!m.is_empty());
        assert!(mismatch(ParamForm::int(32), U32, None, "", "").is_empty());
    };
}
