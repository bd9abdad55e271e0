//! The rules a Rust kernel parameter must meet against the PTX parameter in its place, as
//! `const fn`s over the reader's types: what a Rust parameter type is ([`ParamForm`]), whether it
//! fits the PTX type ([`fits`]), and the rules of what the kernel says beyond it (alignment, its
//! C++ type, write access: [`check`]), with the wording of what the Rust side is ([`describe`],
//! into a [`Message`] built in const code). `#[kernel]` applies them in a const block (through
//! `crate::param`), [`check_param`](super::check_param) at run time.

use super::{Expected, PtxType};
use crate::cpp::{Class, CppParam, Num};

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

/// What the kernel says about the parameter in a Rust parameter's place beyond its PTX type,
/// and the declaration's opt-out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Facts {
    /// The `.align` of a by-value `.b8 name[N]` parameter: the C++ type's alignment.
    pub ptx_align: Option<u32>,
    /// The parameter's C++ type, from the demangled symbol.
    pub cpp: CppParam,
    /// A read-only buffer cannot be taken here on the PTX's word: the kernel stores through
    /// the pointer (a store wins over a C++ `const`: a `const_cast`), or the reader cannot tell
    /// whether it does ([`WriteDoubt`](crate::ptx::WriteDoubt)) and no C++ `const` says so. A
    /// `T*` the PTX never stores through is `false`: real code leaves out `const`.
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
    /// After "read-only (`&`)" for a pointer that is not `const` and that the PTX stores
    /// through or cannot be read for: ", but the kernel takes `float*` here (…), not
    /// `float const*`, and writes through it (…); …".
    pub not_const: &'a str,
    /// After "read-only (`&`)" for a pointer the PTX stores through (C++ `const` or not), or
    /// whose writes it cannot decide: ", but the kernel writes through it (…); …".
    pub written: &'a str,
}

/// [`check`] with the facts and texts as plain arguments (`texts`: prefix, ptx, layout, cpp,
/// not_const and written, as [`Texts`]): what `#[kernel]` emits for each parameter, one call
/// with literals, which rustc type-checks faster than the two struct literals.
#[allow(clippy::too_many_arguments)]
pub const fn check_param(
    form: ParamForm,
    ty: PtxType,
    array_len: Option<u32>,
    ptx_align: Option<u32>,
    cpp: CppParam,
    written: bool,
    read_only: bool,
    texts: [&str; 6],
) -> Message {
    let [prefix, ptx, layout, cpp_text, not_const, written_text] = texts;
    let facts = Facts {
        ptx_align,
        cpp,
        written,
        read_only,
    };
    let texts = Texts {
        prefix,
        ptx,
        layout,
        cpp: cpp_text,
        not_const,
        written: written_text,
    };
    check(form, ty, array_len, facts, &texts)
}

/// The message for a Rust parameter of form `form` in the place of a PTX parameter of type `ty`
/// (`array_len` as for [`fits`]) of which `facts` says more: empty when every rule holds, else
/// the first broken one's, in this order:
///
/// 1. the PTX type ([`mismatch`](crate::param::mismatch), with `texts.ptx`);
/// 2. a by-value struct's alignment, where the PTX gives it (`.align 16 .b8 p[16]`);
/// 3. the C++ type, where the symbol carries it: a pointer's element type (`float*` takes a
///    buffer of `f32`, or a `u64` device address), a number's class, signedness and width
///    (`int` takes `i32`, not `u32`), a vector type (`float4` takes `chevron::vec::Float4` or a
///    16-byte, 16-aligned struct); a C++ struct by value is checked by size and alignment;
/// 4. write access: a read-only buffer (`&CudaSlice<T>`) for a pointer the PTX stores through
///    (even a `const T*`: a `const_cast`), or one whose writes the PTX cannot decide (passed to
///    code the file does not hold, stored to memory) unless C++ declares it `const`, unless the
///    parameter is `#[read_only]` ([`Facts::written`]). A `T*` the PTX never stores through may
///    be read-only without `#[read_only]`. The reverse, a
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
    if form.is_read_only_buffer() && !facts.read_only && facts.written {
        let not_const = matches!(
            facts.cpp,
            CppParam::Pointer {
                is_const: false,
                ..
            }
        );
        return Message::new()
            .push(texts.prefix)
            .push("read-only (`&`)")
            .push(if not_const {
                texts.not_const
            } else {
                texts.written
            });
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
