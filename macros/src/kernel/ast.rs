//! The IR of `#[kernel]`: what was written ([`KernelArgs`], [`KernelItem`]) and what the checks
//! made of it ([`KernelDecl`]). Every node keeps the tokens or spans errors point at.

use std::path::PathBuf;

use chevron_cuda_rules::fit::{CooperativeUse, InfoText};
use chevron_cuda_rules::param::{Class, ParamWords};
use chevron_cuda_rules::ptx::{Expected, PtxType};
use proc_macro2::Span;
use syn::{Attribute, Ident, LitStr, Signature, Type, Visibility};

/// `ptx = "…"` or `cuda = "…"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceKind {
    /// A PTX file, checked at compile time.
    Ptx,
    /// A CUDA C file, compiled by NVRTC at run time.
    Cuda,
}

/// The file a kernel's code is in, as written.
#[derive(Clone)]
pub struct SourceArg {
    pub kind: SourceKind,
    pub path: LitStr,
    /// `ptx = ["a.ptx", "b.ptx"]`: the variants after the first (`path`).
    pub variants: Vec<LitStr>,
}

/// The attribute's arguments: `#[kernel(ptx = "…", name = "…")]`.
#[derive(Default, Clone)]
pub struct KernelArgs {
    pub source: Option<SourceArg>,
    /// An explicit entry symbol, e.g. a mangled C++ name.
    pub name: Option<LitStr>,
    /// The attribute itself, for errors about what is missing.
    pub span: Option<Span>,
    /// Some argument was not understood (and is reported): a missing source is not reported
    /// again, since the source may be what was misspelled.
    pub invalid: bool,
    /// `pdl = "no_upstream_reads"`: the kernel reads nothing the previous kernel writes, so
    /// `programmatic_serialization` needs no `griddepcontrol.wait` in it.
    pub no_upstream_reads: bool,
    /// `cooperative = "optional"` or `"co_resident"`.
    pub cooperative: CooperativeUse,
    /// `options = ["-std=c++17", …]`: NVRTC options of a `cuda = "…"` kernel.
    pub options: Option<(Span, Vec<LitStr>)>,
    /// `crate = "path"`: the path generated code names chevron by (default: the name the
    /// crate's `Cargo.toml` gives the `chevron-cuda` dependency).
    pub krate: Option<syn::Path>,
}

/// The declaration as written: `#[attrs] vis fn name(params);`.
pub struct KernelItem {
    pub attrs: Vec<Attribute>,
    pub vis: Visibility,
    pub sig: Signature,
    /// The span of a body, which a declaration must not have.
    pub body: Option<Span>,
}

/// The kernel's name as its PTX entry and messages spell it: `match` for `fn r#match`.
pub fn kernel_name(ident: &Ident) -> String {
    syn::ext::IdentExt::unraw(ident).to_string()
}

/// Whether `attr` is `#[read_only]`, the parameter attribute of `#[kernel]`.
pub fn is_read_only(attr: &Attribute) -> bool {
    attr.path().is_ident("read_only")
}

/// Which trait states a parameter's bound, for the words of the error when its type is no
/// kernel parameter. Chosen from the spelling; the bound holds exactly when the type is a
/// kernel parameter whatever the choice (every one of these traits is implemented for exactly
/// the `KernelParam` types), so a wrong guess can only word an error less well.
#[derive(Clone)]
pub enum Wording {
    /// `param`: nothing more to say.
    Any,
    /// `value`: a path, array or tuple by value, which must be `DeviceRepr`.
    Value,
    /// `host_data`/`host_data_mut`: `&[E]`, `&Vec<E>`, `Vec<E>`, `Box<[E]>`, `&str` …
    HostData { elem: Type, write: bool },
    /// `host_ref`/`host_mut`: `&R`/`&mut R` for any other `R`.
    HostRef { referent: Type, write: bool },
    /// `read_only_view`: `&mut CudaView<'_, E>`.
    ReadOnlyView { elem: Type },
    /// `buffer_by_value`: `CudaSlice<T>`, `CudaView<'_, T>`, `CudaViewMut<'_, T>` by value.
    BufferByValue,
    /// `raw_pointer`: `*const T`, `*mut T`.
    RawPointer,
}

/// One declared parameter. What its type is in PTX terms is for rustc to say (the expansion
/// asserts it); the macro only reads its spelling, for messages and the shape of the
/// generated signatures.
pub struct KernelParam {
    pub ident: Ident,
    pub ty: Type,
    /// The Rust type as written, for messages and the run-time signature.
    pub ty_text: String,
    /// Written as a reference (`&…`, `&mut …`): a device buffer, which `update_scalars` keeps
    /// instead of taking.
    pub by_ref: bool,
    /// What the spelling says when it names a primitive or a device buffer (`u32`,
    /// `std::primitive::f32`, `&CudaSlice<T>`): only to guess which PTX parameters a shorter
    /// declaration left out; `None` matches any.
    pub hint: Option<Expected>,
    pub wording: Wording,
    /// What the spelling says in C++ terms, for telling overloads apart: a buffer or a value,
    /// and its (element's) class where the spelling names a number, `f16`/`bf16` or a vector
    /// type; `None` when it tells nothing (an alias).
    pub spelled: Option<Spelled>,
    /// `#[read_only]`: the kernel does not write through this buffer, though its pointer is
    /// not `const` (or its PTX has a store through it).
    pub read_only: bool,
    /// The PTX parameter in its place, once the entry is found and the counts agree: one per
    /// distinct parameter among the variants of `ptx = [...]`, each asserted.
    pub ptx: Vec<PtxParam>,
}

/// What a parameter's spelling says in C++ terms (see [`KernelParam::spelled`]).
#[derive(Clone, Copy)]
pub struct Spelled {
    /// `&…`/`&mut …` of a device buffer type.
    pub buffer: bool,
    /// The class of the value or of the buffer's elements; [`Class::Unknown`] when not named.
    pub class: Class,
}

/// What a PTX parameter is, for the const assertion against the Rust type's form.
pub struct PtxParam {
    pub ty: PtxType,
    pub array_len: Option<u32>,
    /// What the kernel says of it beyond the PTX type (its C++ type, alignment, whether the PTX
    /// stores through it), and the words after "`a: Scale` is a 32-bit float" for each kind of
    /// mismatch: ", but the kernel takes a 32-bit integer here (kernels/saxpy.ptx:16:
    /// `.param .u32 saxpy_param_0,`); declare it as `u32` or `i32`".
    pub words: ParamWords,
}

/// Where the kernel's code comes from, after checking.
pub enum ResolvedSource {
    /// A PTX file whose entry was found and checked; `variants`: the other compiled variants
    /// of `ptx = [...]` (checked the same way), after the first.
    Ptx {
        abs_path: String,
        /// The file's text, as read for the check (the expansion cuts the entry's module out
        /// of it).
        text: std::sync::Arc<str>,
        entry: String,
        variants: Vec<String>,
        /// With `variants`: each variant's own launch rules (the first's included), for the
        /// runtime, which checks a launch against the variant it loaded.
        infos: Vec<InfoText>,
    },
    /// CUDA C; the entry is looked up in NVRTC's output at run time.
    Cuda {
        abs_path: String,
        entry: Option<String>,
        program: CudaSpec,
    },
}

/// A checked declaration, ready to expand.
pub struct KernelDecl {
    pub attrs: Vec<Attribute>,
    pub vis: Visibility,
    pub ident: Ident,
    pub params: Vec<KernelParam>,
    pub source: ResolvedSource,
    /// What the PTX fixes about launches (`ptx = …`), with its messages; `None` for CUDA C,
    /// whose PTX the runtime reads. The options below are in it.
    pub info: Option<InfoText>,
    /// The declaration's `pdl`/`cooperative` options, for a kernel whose PTX is read at run time.
    pub no_upstream_reads: bool,
    pub cooperative: CooperativeUse,
}

/// The program of a `cuda = "…"` kernel, as the expansion writes it.
#[derive(Default)]
pub struct CudaSpec {
    /// `(name as written in #include, absolute path)`, in the order first met.
    pub headers: Vec<(String, String)>,
    /// Options for NVRTC (the `-I` ones are resolved here and left out).
    pub options: Vec<String>,
    /// The C++ name expression, when `name = "…"` is not a plain symbol.
    pub name_expression: Option<String>,
    /// The `-I` directories, resolved (absolute), for the compile-time nvcc.
    pub include_dirs: Vec<PathBuf>,
    /// The `--pre-include` files, resolved (absolute), for the compile-time nvcc (NVRTC finds
    /// them among the embedded `headers`, by the name the option gives).
    pub pre_includes: Vec<PathBuf>,
    /// Why the compile-time nvcc cannot compile what NVRTC will (an NVRTC-only option): the
    /// declaration is then checked at run time, and says so.
    pub unmirrored: Option<String>,
    /// The source or a header it includes tests `__CUDACC_RTC__`, which NVRTC defines: the
    /// compile-time nvcc defines it too, after its own headers (see `nvcc::Extra::rtc`).
    pub tests_rtc: bool,
}

impl CudaSpec {
    /// Nothing beyond the source: the expansion uses `Kernel::cuda`.
    pub fn is_plain(&self) -> bool {
        self.headers.is_empty() && self.options.is_empty() && self.name_expression.is_none()
    }
}
