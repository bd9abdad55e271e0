//! A small reader for the kernel (`.entry`) signatures of a PTX module.
//!
//! Only what is needed to check a Rust kernel signature and its launches against PTX is read:
//! entry names, each parameter's type, alignment and array length, the performance directives,
//! and the few instructions that decide how a kernel may be launched, found over the entry's
//! whole call graph (see [`BodyUses`]). Everything else is skipped.

mod facts;
mod header;
mod lex;
mod lines;
mod lookup;
mod message;
mod module;
mod parse;
pub(crate) mod rule;
mod signature;
#[cfg(test)]
mod tests;
pub(crate) mod words;
mod writes;

pub use facts::{BodyUses, Callee, Fact, Seen, Site, UnseenCall};
pub use header::entry_reqntid;
use lex::Tok;
pub use lex::{is_identifier, parse_u32};
pub use lines::{line, with_index, LineIndex};
pub use lookup::{
    find_entry, find_entry_by, match_entries, resolve_entry, resolve_entry_by, Lookup, Unresolved,
};
pub use message::{capped_list, name_list, LIST_CAP};
pub use module::{ModuleIndex, WholeFile};
pub use parse::{device_runtime_calls, parse_entries};
pub use signature::{check_cpp, check_param, check_signature, ParamSig};
pub use writes::WriteDoubt;

/// One `.entry` (kernel) in a PTX module.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Entry {
    /// The entry's symbol name, as written (C++ names stay mangled).
    pub name: String,
    /// The demangled C++ signature of a mangled symbol; `None` for `extern "C"` kernels.
    pub signature: Option<crate::cpp::Signature>,
    /// The kernel's parameters, in order.
    pub params: Vec<Param>,
    /// 1-based line of the `.entry` directive.
    pub line: usize,
    /// Its performance directives (`.maxntid` …), between the parameters and the body.
    pub directives: Directives,
    /// What it executes that matters to how it may be launched: its body and every function
    /// it calls, transitively.
    pub uses: BodyUses,
    /// Per parameter, whether the entry writes through it (its value flows into the address of
    /// a store, atomic or reduction, over the whole call graph): where it first does, no, or
    /// unknown where the value leaves what the reader follows. What `#[kernel]` checks a
    /// read-only buffer against.
    pub writes: Vec<Seen>,
    /// Per parameter whose [`writes`](Self::writes) is unknown, why: where its value leaves
    /// what the reader follows; `None` for the others.
    pub write_doubts: Vec<Option<WriteDoubt>>,
}

/// Three extents of a directive such as `.maxntid 256, 1, 1` (missing ones are 1), with the
/// 1-based line the directive is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DimDirective {
    /// The extents.
    pub dims: [u32; 3],
    /// 1-based line of the directive.
    pub line: usize,
}

/// One number of a directive such as `.maxclusterrank 8`, with its line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NumDirective {
    /// The value.
    pub value: u32,
    /// 1-based line of the directive.
    pub line: usize,
}

/// The performance directives of an entry: what the compiler fixed about its launches.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Directives {
    /// `.reqntid`: the block must be exactly this.
    pub reqntid: Option<DimDirective>,
    /// `.maxntid` (`__launch_bounds__`): the block may hold at most this many threads in all.
    pub maxntid: Option<DimDirective>,
    /// `.reqnctapercluster` (`__cluster_dims__`): the cluster is compiled in.
    pub reqnctapercluster: Option<DimDirective>,
    /// `.explicitcluster` (`__cluster_dims__`, with or without dimensions): the kernel must be
    /// launched with clusters; the line.
    pub explicitcluster: Option<usize>,
    /// `.blocksareclusters` (CUDA 13's `__block_size__`): the launch's grid counts clusters of
    /// `.reqnctapercluster` blocks, not blocks; the line.
    pub blocksareclusters: Option<usize>,
    /// `.maxclusterrank`: at most this many blocks per cluster.
    pub maxclusterrank: Option<NumDirective>,
    /// `.minnctapersm` (`__launch_bounds__`' second argument).
    pub minnctapersm: Option<NumDirective>,
}

/// One `.param` of an entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// The parameter's name, e.g. `saxpy_param_0`.
    pub name: String,
    /// The element type (`.b8` for by-value structs).
    pub ty: PtxType,
    /// The `.align N` value, if given.
    pub align: Option<u32>,
    /// `N` for an array parameter `name[N]` (by-value structs).
    pub array_len: Option<u32>,
    /// 1-based line of the `.param`.
    pub line: usize,
    /// The trimmed source line of the parameter, for error messages.
    pub text: String,
}

impl Param {
    /// Total size of the parameter in bytes (element size times array length).
    pub fn size_bytes(&self) -> u64 {
        u64::from(self.ty.bits().div_ceil(8)) * u64::from(self.array_len.unwrap_or(1))
    }
}

/// A PTX fundamental type, as used in `.param` declarations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)] // the variants are the PTX type names
pub enum PtxType {
    B8,
    B16,
    B32,
    B64,
    U8,
    U16,
    U32,
    U64,
    S8,
    S16,
    S32,
    S64,
    F16,
    F32,
    F64,
    Pred,
}

/// Every type with its PTX spelling, for parsing and [`PtxType::name`].
const TYPES: [(PtxType, &str, u32); 16] = [
    (PtxType::B8, ".b8", 8),
    (PtxType::B16, ".b16", 16),
    (PtxType::B32, ".b32", 32),
    (PtxType::B64, ".b64", 64),
    (PtxType::U8, ".u8", 8),
    (PtxType::U16, ".u16", 16),
    (PtxType::U32, ".u32", 32),
    (PtxType::U64, ".u64", 64),
    (PtxType::S8, ".s8", 8),
    (PtxType::S16, ".s16", 16),
    (PtxType::S32, ".s32", 32),
    (PtxType::S64, ".s64", 64),
    (PtxType::F16, ".f16", 16),
    (PtxType::F32, ".f32", 32),
    (PtxType::F64, ".f64", 64),
    (PtxType::Pred, ".pred", 1),
];

impl PtxType {
    fn entry(self) -> (PtxType, &'static str, u32) {
        TYPES
            .into_iter()
            .find(|t| t.0 == self)
            .unwrap_or((self, "?", 0))
    }

    /// Parses a type directive such as `.u32`.
    pub fn from_name(s: &str) -> Option<PtxType> {
        TYPES.into_iter().find(|t| t.1 == s).map(|t| t.0)
    }

    /// Width in bits (1 for `.pred`).
    pub const fn bits(self) -> u32 {
        // A loop, not `entry()`: const code (`param::fits`) calls this.
        let mut i = 0;
        while i < TYPES.len() {
            if TYPES[i].0 as u8 == self as u8 {
                return TYPES[i].2;
            }
            i += 1;
        }
        0
    }

    /// Whether this is a floating-point type (`.f16`, `.f32`, `.f64`).
    pub fn is_float(self) -> bool {
        use PtxType::*;
        matches!(self, F16 | F32 | F64)
    }

    /// The PTX spelling, e.g. `".u32"`.
    pub fn name(self) -> &'static str {
        self.entry().1
    }
}

impl Entry {
    /// How messages name the kernel: its demangled signature
    /// (`softmax_kernel<128>(float*, float const*, int)`), or its symbol.
    pub fn display_name(&self) -> String {
        match &self.signature {
            Some(sig) => sig.text(),
            None => self.name.clone(),
        }
    }

    /// The bytes its parameters take in the driver's parameter buffer, each at its alignment
    /// (`.align`, else its element size): what the driver's limit
    /// ([`crate::limits::max_param_bytes`]) applies to.
    pub fn param_bytes(&self) -> u64 {
        crate::limits::param_bytes(self.params.iter().map(|p| {
            let size = p.size_bytes();
            (size, p.align.map_or(size.min(8), u64::from))
        }))
    }

    /// The kernel's C++ signature as `c++filt` prints it
    /// (`reduce4<int, 512u>(int const*, int*, int)`), or its symbol (`extern "C"`).
    pub fn cxxfilt_name(&self) -> String {
        match &self.signature {
            Some(sig) => sig.render(crate::cpp::Style::CxxFilt),
            None => self.name.clone(),
        }
    }
}

/// What a Rust kernel parameter needs from the PTX parameter in its place.
///
/// `#[kernel]` builds one per declared parameter: at compile time to check `ptx = "…"` files,
/// and as static data for `cuda = "…"` sources, whose PTX only exists at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expected {
    /// An integer of this many bits (`u8` … `i64`, `usize`, `isize`); either signedness.
    Int(u32),
    /// A float of this many bits (`f32`, `f64`).
    Float(u32),
    /// `bool`, one byte.
    Bool,
    /// A device pointer (`&CudaSlice<T>`, `&CudaView<T>`, …): 64 bits.
    Pointer,
    /// Any other type by value (a `#[repr(C)]` struct, `half::f16`): its size in bytes where
    /// known. At compile time the size is unknown (`None`): the macro asserts it instead.
    Value(Option<u64>),
}

impl Expected {
    /// What the Rust side is, for messages: "a 32-bit integer".
    pub fn describe(self) -> String {
        rule::describe(rule::Message::new(), self)
            .as_str()
            .to_string()
    }
}
