//! The IR of `#[kernel]`: what was written ([`KernelArgs`], [`KernelItem`]) and what the checks
//! made of it ([`KernelDecl`]). Every node keeps the tokens or spans errors point at.

use chevron_cuda_spec::fit::{CooperativeUse, InfoText};
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
}

/// The declaration as written: `#[attrs] vis fn name(params);`.
pub struct KernelItem {
    pub attrs: Vec<Attribute>,
    pub vis: Visibility,
    pub sig: Signature,
    /// The span of a body, which a declaration must not have.
    pub body: Option<Span>,
}

/// The typed parameters of a signature (a `self` receiver is rejected by `check`).
pub fn typed_inputs(sig: &Signature) -> Vec<&syn::PatType> {
    sig.inputs
        .iter()
        .filter_map(|a| match a {
            syn::FnArg::Typed(t) => Some(t),
            syn::FnArg::Receiver(_) => None,
        })
        .collect()
}

/// How a parameter is passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// `u8` … `i64`, `usize`, `isize`: an integer of this many bits.
    Int(u32),
    /// `f32`, `f64`.
    Float(u32),
    /// `bool`.
    Bool,
    /// `&CudaSlice<T>`, `&CudaView<'_, T>`, `&CudaViewMut<'_, T>`: read through `DevicePtr`.
    BufferRead,
    /// `&mut CudaSlice<T>`, `&mut CudaViewMut<'_, T>`: written through `DevicePtrMut`.
    BufferWrite,
    /// Any other type by value, which must be `DeviceRepr`.
    Value,
}

/// One checked parameter.
pub struct KernelParam {
    pub ident: Ident,
    pub ty: Type,
    pub kind: ParamKind,
    /// The Rust type as written, for messages and the run-time signature.
    pub ty_text: String,
    /// For a by-value type checked against a PTX file: the size it must have, with the PTX
    /// parameter for the message.
    pub size: Option<SizeAssert>,
}

/// `size_of::<T>() == bytes`, asserted at compile time.
pub struct SizeAssert {
    pub bytes: u64,
    /// `kernels/structs.ptx:16: `.param .align 8 .b8 affine_param_0[16],``.
    pub ptx_param: String,
}

/// Where the kernel's code comes from, after checking.
pub enum ResolvedSource {
    /// A PTX file whose entry was found and checked; `variants`: the other compiled variants
    /// of `ptx = [...]` (checked the same way), after the first.
    Ptx {
        abs_path: String,
        entry: String,
        variants: Vec<String>,
    },
    /// CUDA C; the entry is looked up in NVRTC's output at run time.
    Cuda {
        abs_path: String,
        entry: Option<String>,
        program: super::cuda::CudaSpec,
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
