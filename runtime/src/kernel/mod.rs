//! A `#[kernel]` declaration at run time: loading its module per context (`load`), its launch
//! rules (`rules`), the trait it implements and its typed launch and graph updates (`typed`,
//! `tuple`), its parameter types (`param`) and CUDA's vector types (`vec`).
//!
//! Kernel loading: one [`Kernel`] per declaration, caching its `CUfunction` per CUDA context.
//!
//! The hot path ([`Kernel::get`] after the first call in a context) scans a few `OnceLock`
//! slots for the context pointer: no lock, no string lookup, no allocation. Everything else
//! (loading the module, NVRTC, resolving the function, more contexts than slots) happens on a
//! cold path behind one process-wide mutex.

use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::{CudaContext, CudaFunction, CudaStream};

use crate::config::dim::Dim3;
use crate::config::LaunchConfig;
use crate::error::{Error, KernelName};
use crate::launch::occupancy::{self, Occupancy};
use crate::launch::Checked;
use crate::nvrtc::{self, CudaProgram};
use crate::ptx::{self, ParamSig};
use chevron_cuda_rules::fit::KernelInfo;

pub(crate) mod literal;
mod load;
pub(crate) mod param;
pub mod refusals;
mod registry;
mod rules;
#[cfg(test)]
mod tests;
pub(crate) mod tuple;
pub(crate) mod typed;
pub mod vec;

pub use load::modules_loaded;
pub use rules::LaunchRules;

/// Contexts served without a lock. One GPU process rarely has more than one context per device;
/// further contexts go to a locked overflow list.
const SLOTS: usize = 4;

/// Where a kernel's code comes from.
#[derive(Clone, Copy, Debug)]
pub enum KernelSource {
    /// PTX text, e.g. `include_str!` of a file produced by `nvcc -ptx`.
    Ptx {
        /// The file, as an absolute path: with the text, the key under which the module is
        /// shared.
        path: &'static str,
        /// The PTX text: the whole file, or (what `#[kernel]` embeds where nothing but its
        /// kernel can tell) the module of the entry alone, cut out of the file. Kernels whose
        /// texts are equal share one module per context.
        text: &'static str,
    },
    /// The same kernel compiled several times (for several GPU generations, or PTX ISA
    /// versions): the variant loaded is chosen per device, by its `.target` against the
    /// device's compute capability and its `.version` against the driver.
    PtxVariants {
        /// The variants, in the declaration's order.
        variants: &'static [PtxVariant],
    },
    /// CUDA C, compiled by NVRTC at the first use in a process for each compute capability
    /// (or loaded from the disk cache, see [`crate::nvrtc_cache_dir`]).
    Cuda {
        /// The file, as an absolute path: the key under which the module is shared.
        path: &'static str,
        /// The CUDA C source.
        text: &'static str,
        /// Its headers, options and name expression.
        program: &'static CudaProgram,
    },
}

/// One compiled variant of a kernel's PTX (see [`KernelSource::PtxVariants`]).
#[derive(Clone, Copy, Debug)]
pub struct PtxVariant {
    /// The file, as an absolute path: the key under which the module is shared.
    pub path: &'static str,
    /// The PTX text.
    pub text: &'static str,
    /// This variant's launch rules (what `#[kernel]` read from its PTX): a launch in a context
    /// where this variant was loaded is checked against them instead of the declaration's
    /// (which `#[kernel]` makes what every variant accepts). [`KernelInfo::UNKNOWN`]: the
    /// declaration's.
    pub info: &'static KernelInfo,
}

impl PtxVariant {
    /// A variant checked against the declaration's rules.
    pub const fn new(path: &'static str, text: &'static str) -> Self {
        PtxVariant {
            path,
            text,
            info: &KernelInfo::UNKNOWN,
        }
    }
}

impl KernelSource {
    fn path(&self) -> &'static str {
        match self {
            KernelSource::Ptx { path, .. } | KernelSource::Cuda { path, .. } => path,
            KernelSource::PtxVariants { variants } => variants.first().map_or("", |v| v.path),
        }
    }
}

/// A kernel and its function handle per CUDA context; meant to live as long as the process (a
/// `static`, or leaked).
///
/// `#[kernel]` makes one per declaration, kept for the life of the process, inside the
/// [`Typed`](crate::Typed) that `KERNEL::kernel()` returns, which derefs to it:
/// `saxpy::kernel().function(&ctx)` and the occupancy queries below are this type's. It can also be used by hand:
///
/// ```no_run
/// # fn main() -> Result<(), chevron::Error> {
/// use chevron::{context, Kernel};
///
/// static SAXPY: Kernel = Kernel::ptx(
///     "saxpy",
///     "saxpy",
///     concat!(env!("CARGO_MANIFEST_DIR"), "/../kernels/saxpy.ptx"),
///     include_str!("../../../kernels/saxpy.ptx"),
/// );
/// let ctx = context(0)?;
/// let f = SAXPY.get(&ctx)?; // loads the module the first time, then only reads
/// # let _ = f; Ok(()) }
/// ```
pub struct Kernel {
    name: &'static str,
    entry: Option<&'static str>,
    source: KernelSource,
    signature: &'static [ParamSig],
    cache: OnceLock<Box<Cache>>,
}

/// What a kernel's impl of `refusals::CompiledBlock` also implements: that trait's seal, in
/// reach of `#[kernel]` (which writes the impl in the user's crate) but of no public path.
#[diagnostic::on_unimplemented(
    message = "`refusals::CompiledBlock` is `#[kernel]`'s to implement, for the kernel's own \
               `.reqntid` block; ({X}, {Y}, {Z}) is not `{Self}`'s",
    label = "implemented by hand"
)]
pub trait SealedBlock<const X: u32, const Y: u32, const Z: u32> {}

/// What a [`Kernel`] loads and keeps: its function per context, and for CUDA C the entry NVRTC
/// compiled and its launch rules.
struct Cache {
    /// `(context, function, index of the PTX variant loaded there)`.
    slots: [OnceLock<(usize, CudaFunction, usize)>; SLOTS],
    overflow: Mutex<Vec<(usize, &'static CudaFunction, usize)>>,
    /// For CUDA C: the entry as NVRTC compiled it (its directives and body uses), then the
    /// launch rules read from it.
    nvrtc_entry: OnceLock<ptx::Entry>,
    nvrtc_info: OnceLock<LaunchRules>,
}

impl Cache {
    /// An empty cache, copied into each kernel: rustc's const evaluation of a `#[kernel]`
    /// static then copies this constant's value (evaluated once per crate) instead of running
    /// the constructors of its locks once per kernel, which cost a `cargo check` about 2
    /// million instructions per declaration (`scripts/compile_bench.sh`).
    #[allow(clippy::declare_interior_mutable_const)]
    const EMPTY: Cache = Cache {
        slots: [const { OnceLock::new() }; SLOTS],
        overflow: Mutex::new(Vec::new()),
        nvrtc_entry: OnceLock::new(),
        nvrtc_info: OnceLock::new(),
    };
}

/// The text of a kernel file that `#[kernel]` embedded with `include_bytes!`, as the `&str` the
/// sources take.
///
/// Why not `include_str!`: rustc escapes and unescapes the whole text of an `include_str!` for
/// every use (its string literal goes through `escape_string_symbol` and
/// `LitKind::from_token_lit`), so 200 declarations naming one 8 MB PTX spent most of their
/// `cargo check` there; `include_bytes!` hands rustc the bytes as they are
/// (`scripts/ptx_scale_bench.sh` measures it).
///
/// The macro read the file as UTF-8 when it expanded (it refuses other files); a file changed
/// since then is checked again at load, before any text is read ([`Kernel`]'s loader), so the
/// unchecked conversion is never relied on.
#[doc(hidden)]
pub const fn embedded_text(bytes: &'static [u8]) -> &'static str {
    // SAFETY: UTF-8 was checked by the macro, and is checked again before use (see above).
    unsafe { core::str::from_utf8_unchecked(bytes) }
}

impl core::fmt::Debug for Kernel {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Kernel")
            .field("name", &self.name)
            .field("entry", &self.entry)
            .field("source", &self.source)
            .finish_non_exhaustive()
    }
}

impl Kernel {
    /// A kernel in PTX text whose `.entry` is `entry` (already resolved, e.g. a mangled name).
    /// `name` is what messages call it; `path` and `text` key the module shared with the other
    /// kernels of the same file and text.
    pub const fn ptx(
        name: &'static str,
        entry: &'static str,
        path: &'static str,
        text: &'static str,
    ) -> Self {
        // Built here, not through `new`: rustc evaluates this call once per declaration
        // (`scripts/compile_bench.sh`), and each call it interprets costs.
        Self {
            name,
            entry: Some(entry),
            source: KernelSource::Ptx { path, text },
            signature: &[],
            cache: Self::NO_CACHE,
        }
    }

    /// A kernel compiled into several PTX files, each with the `.entry` `entry`: the one
    /// loaded on a device is the variant whose `.target` is the newest the device runs and
    /// whose `.version` the driver knows. `Error::Incompatible` when none fits.
    pub const fn ptx_variants(
        name: &'static str,
        entry: &'static str,
        variants: &'static [PtxVariant],
    ) -> Self {
        Self::new(
            name,
            Some(entry),
            KernelSource::PtxVariants { variants },
            &[],
        )
    }

    /// A kernel in CUDA C, compiled by NVRTC at first use. Its entry is `entry`, or `name`
    /// (a C++-mangled `_Z<len>name…` entry is found too); the NVRTC output is checked against
    /// `signature` before the first launch.
    pub const fn cuda(
        name: &'static str,
        entry: Option<&'static str>,
        path: &'static str,
        text: &'static str,
        signature: &'static [ParamSig],
    ) -> Self {
        Self::cuda_program(name, entry, path, text, &CudaProgram::PLAIN, signature)
    }

    /// [`Kernel::cuda`] with headers, NVRTC options and a name expression: what
    /// `#[kernel(cuda = "…", options = […])]` declares. With a name expression, the entry is
    /// its lowered name.
    pub const fn cuda_program(
        name: &'static str,
        entry: Option<&'static str>,
        path: &'static str,
        text: &'static str,
        program: &'static CudaProgram,
        signature: &'static [ParamSig],
    ) -> Self {
        Self::new(
            name,
            entry,
            KernelSource::Cuda {
                path,
                text,
                program,
            },
            signature,
        )
    }

    const fn new(
        name: &'static str,
        entry: Option<&'static str>,
        source: KernelSource,
        signature: &'static [ParamSig],
    ) -> Self {
        Self {
            name,
            entry,
            source,
            signature,
            cache: Self::NO_CACHE,
        }
    }

    /// A kernel's empty cache: copied into each kernel, so that rustc's evaluation of a
    /// `#[kernel]` static copies this constant's value (evaluated once per crate) instead of
    /// running `OnceLock::new` once per kernel.
    #[allow(clippy::declare_interior_mutable_const)]
    const NO_CACHE: OnceLock<Box<Cache>> = OnceLock::new();

    /// The kernel's name, as messages show it.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// For a `cuda = "…"` kernel: compiles it with NVRTC for compute capability `cc`, without a
    /// GPU or driver, finds its entry (the lowered name of a name expression) and checks the
    /// declared signature against it; returns the entry. A PTX kernel's entry is returned as
    /// declared (its checks ran at compile time; a set of variants is not compiled here).
    ///
    /// `Error::NoNvrtc` without NVRTC, `Error::Compile` with NVRTC's log, `Error::Signature`
    /// when the declaration does not match the compiled entry.
    pub fn compile_check(&self, cc: (i32, i32)) -> Result<String, Error> {
        match self.source {
            KernelSource::Cuda {
                path,
                text,
                program,
            } => {
                let kernel = KernelName(Some(self.name));
                let (ptx, lowered) = nvrtc::compile_program(path, text, program, cc, kernel)?;
                self.check_nvrtc_output(&ptx, lowered.as_deref())
            }
            _ => Ok(self.entry.unwrap_or(self.name).to_string()),
        }
    }

    /// The function in `ctx`, loading its module the first time. Afterwards this only compares
    /// the context pointer against a few slots: the first in line (where a program with one
    /// context finds it), the others out of line.
    #[inline]
    pub fn get(&self, ctx: &Arc<CudaContext>) -> Result<&CudaFunction, Error> {
        self.get_loaded(ctx).map(|(f, _)| f)
    }

    /// [`Self::get`], with the index of the PTX variant loaded in `ctx` (`0` for a kernel of
    /// one file).
    #[inline]
    fn get_loaded(&self, ctx: &Arc<CudaContext>) -> Result<(&CudaFunction, usize), Error> {
        let key = ctx.cu_ctx() as usize;
        match self.cache().slots[0].get() {
            Some((k, f, v)) if *k == key => Ok((f, *v)),
            _ => self.get_other(ctx, key),
        }
    }

    /// [`Self::get_loaded`] past the first slot: the other slots, then the cold path.
    #[inline(never)]
    fn get_other(
        &self,
        ctx: &Arc<CudaContext>,
        key: usize,
    ) -> Result<(&CudaFunction, usize), Error> {
        for slot in &self.cache().slots {
            match slot.get() {
                Some((k, f, v)) if *k == key => return Ok((f, *v)),
                Some(_) => {}
                // Slots fill in order, so the first empty one ends the search.
                None => break,
            }
        }
        self.get_cold(ctx, key)
    }

    /// The rules a launch of the variant `variant` is checked against: that variant's own,
    /// where `#[kernel]` gave them, else the declaration's `declared`.
    #[inline]
    fn rules_of_variant(&self, variant: usize, declared: LaunchRules) -> LaunchRules {
        match self.source {
            KernelSource::PtxVariants { variants } => match variants.get(variant) {
                Some(v) if v.info.known => LaunchRules::of(v.info),
                _ => declared,
            },
            _ => declared,
        }
    }

    /// What a typed launch checks before it takes its arguments: the function in the stream's
    /// context (loaded the first time), then the config as [`Self::check_launch`] checks it
    /// (its limits, then the kernel's rules: for `ptx = [...]`, those of the variant loaded in
    /// that context). `rules` are the declaration's, folded at compile
    /// time; a config they settle without looking at its extents, and whose extents are plainly
    /// within the limits, is checked in a few compares, any other goes through every rule. Not
    /// a public API: [`Typed::launch`](crate::Typed::launch) calls it.
    #[doc(hidden)]
    #[inline(always)]
    pub fn __check<'a>(
        &'a self,
        rules: LaunchRules,
        stream: &'a CudaStream,
        config: &'a LaunchConfig<'a>,
    ) -> Result<Checked<'a>, Error> {
        let (func, variant) = self.get_loaded(stream.context())?;
        self.__check_config(self.rules_of_variant(variant, rules), config)?;
        Ok(Checked::new(
            stream,
            func,
            config,
            KernelName(Some(self.name)),
        ))
    }

    /// An owned handle to the function in `ctx`, for occupancy queries or cudarc's own launch
    /// builder.
    pub fn function(&self, ctx: &Arc<CudaContext>) -> Result<CudaFunction, Error> {
        self.get(ctx).cloned()
    }

    /// [`Occupancy`] of the kernel in `ctx` for `config`'s block and shared memory (see
    /// [`crate::occupancy()`]).
    pub fn occupancy(
        &self,
        ctx: &Arc<CudaContext>,
        config: &LaunchConfig<'_>,
    ) -> Result<Occupancy, Error> {
        let f = self.get(ctx)?;
        occupancy::occupancy_named(ctx, f, config, KernelName(Some(self.name)))
    }

    /// The largest grid of a cooperative launch of the kernel with blocks of `block` and
    /// `shared` bytes of dynamic shared memory (see [`crate::max_cooperative_grid`]).
    pub fn max_cooperative_grid(
        &self,
        ctx: &Arc<CudaContext>,
        block: impl Into<Dim3>,
        shared: u32,
    ) -> Result<u32, Error> {
        let f = self.get(ctx)?;
        occupancy::max_cooperative_grid_named(
            ctx,
            f,
            block.into(),
            shared,
            KernelName(Some(self.name)),
        )
    }

    /// How many clusters of `config` can be resident at once, its launch attributes honoured
    /// (see [`crate::max_active_clusters`]).
    pub fn max_active_clusters(
        &self,
        ctx: &Arc<CudaContext>,
        config: &LaunchConfig<'_>,
    ) -> Result<u32, Error> {
        let f = self.get(ctx)?;
        occupancy::max_active_clusters_named(ctx, f, config, KernelName(Some(self.name)))
    }
}

impl Kernel {
    /// The kernel's cache, allocated at its first use.
    #[inline(always)]
    fn cache(&self) -> &Cache {
        self.cache.get_or_init(|| Box::new(Cache::EMPTY))
    }
}
