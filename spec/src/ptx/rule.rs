//! The rule a Rust kernel parameter must meet against the PTX parameter in its place, as
//! `const fn`s over the reader's types: [`fits`], and the wording of what the Rust side is
//! ([`describe`], into a [`Message`] built in const code). `#[kernel]` applies it in a const block
//! (through `crate::param`), [`check_param`](super::check_param) at run time.

use super::{Expected, PtxType};

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

/// `message` followed by what the Rust side is: "a 32-bit integer", "a 16-byte value".
pub const fn describe(message: Message, expected: Expected) -> Message {
    match expected {
        Expected::Int(bits) => message
            .push("a ")
            .push_u64(bits as u64)
            .push("-bit integer"),
        Expected::Float(bits) => message.push("a ").push_u64(bits as u64).push("-bit float"),
        Expected::Bool => message.push("a `bool` (8-bit)"),
        Expected::Pointer => message.push("a device pointer (64-bit)"),
        Expected::Value(Some(n)) => message.push("a ").push_u64(n).push("-byte value"),
        Expected::Value(None) => message.push("a value"),
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
