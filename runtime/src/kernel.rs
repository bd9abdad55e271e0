//! Kernel loading: one [`Kernel`] per declaration, caching its `CUfunction` per CUDA context.
//!
//! The hot path ([`Kernel::get`] after the first call in a context) scans a few `OnceLock`
//! slots for the context pointer: no lock, no string lookup, no allocation. Everything else
//! (loading the module, NVRTC, resolving the function, more contexts than slots) happens on a
//! cold path behind one process-wide mutex.

use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use cudarc::driver::{CudaContext, CudaFunction, CudaModule, CudaStream};

use crate::config::{bit, LaunchConfig};
use crate::device::ensure_driver;
use crate::dim::Dim3;
use crate::error::{Error, KernelName};
use crate::launch::Checked;
use crate::nvrtc::{self, CudaProgram};
use crate::occupancy::{self, Occupancy};
use crate::ptx::{self, ParamSig, Unresolved};
use chevron_cuda_spec::fit::{self, KernelInfo, LaunchFacts, Rule};
use chevron_cuda_spec::target::{self, Version};

/// Contexts served without a lock. One GPU process rarely has more than one context per device;
/// further contexts go to a locked overflow list.
const SLOTS: usize = 4;

/// Where a kernel's code comes from.
#[derive(Clone, Copy, Debug)]
pub enum KernelSource {
    /// PTX text, e.g. `include_str!` of a file produced by `nvcc -ptx`.
    Ptx {
        /// The file, as an absolute path: the key under which the module is shared.
        path: &'static str,
        /// The PTX text.
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
}

impl KernelSource {
    fn path(&self) -> &'static str {
        match self {
            KernelSource::Ptx { path, .. } | KernelSource::Cuda { path, .. } => path,
            KernelSource::PtxVariants { variants } => variants.first().map_or("", |v| v.path),
        }
    }
}

/// A kernel and its function handle per CUDA context; meant to live in a `static`.
///
/// `#[kernel]` emits one per declaration. It can also be used by hand:
///
/// ```no_run
/// # fn main() -> Result<(), chevron::Error> {
/// use chevron::{context, Kernel};
///
/// static SAXPY: Kernel = Kernel::ptx(
///     "saxpy",
///     "saxpy",
///     concat!(env!("CARGO_MANIFEST_DIR"), "/../kernels/saxpy.ptx"),
///     include_str!("../../kernels/saxpy.ptx"),
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
    slots: [OnceLock<(usize, CudaFunction)>; SLOTS],
    overflow: Mutex<Vec<(usize, &'static CudaFunction)>>,
    /// For CUDA C: the entry as NVRTC compiled it (its directives and body uses), then the
    /// launch rules read from it.
    nvrtc_entry: OnceLock<ptx::Entry>,
    nvrtc_info: OnceLock<LaunchRules>,
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
    /// `name` is what messages call it; `path` keys the module shared with other kernels of the
    /// same file.
    pub const fn ptx(
        name: &'static str,
        entry: &'static str,
        path: &'static str,
        text: &'static str,
    ) -> Self {
        Self::new(name, Some(entry), KernelSource::Ptx { path, text }, &[])
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
            slots: [const { OnceLock::new() }; SLOTS],
            overflow: Mutex::new(Vec::new()),
            nvrtc_entry: OnceLock::new(),
            nvrtc_info: OnceLock::new(),
        }
    }

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
    /// the context pointer against a few slots.
    #[inline]
    pub fn get(&self, ctx: &Arc<CudaContext>) -> Result<&CudaFunction, Error> {
        let key = ctx.cu_ctx() as usize;
        for slot in &self.slots {
            match slot.get() {
                Some((k, f)) if *k == key => return Ok(f),
                Some(_) => {}
                // Slots fill in order, so the first empty one ends the search.
                None => break,
            }
        }
        self.get_cold(ctx, key)
    }

    /// What a typed launch checks before it takes its arguments: the function in the stream's
    /// context (loaded the first time), then the config as [`Self::check_launch`] checks it
    /// (its limits, then the kernel's rules). `rules` are the declaration's, folded at compile
    /// time; a config they settle without looking at its extents, and whose extents are plainly
    /// within the limits, is checked in a few compares, any other goes through every rule. Not
    /// a public API: the `launch` functions `#[kernel]` generates call it.
    #[doc(hidden)]
    #[inline(always)]
    pub fn __check<'a>(
        &'a self,
        rules: LaunchRules,
        stream: &'a CudaStream,
        config: &'a LaunchConfig<'a>,
    ) -> Result<Checked<'a>, Error> {
        let func = self.get(stream.context())?;
        self.__check_config(rules, config)?;
        Ok(Checked::new(
            stream,
            func,
            config,
            KernelName(Some(self.name)),
        ))
    }

    /// The config part of [`Self::__check`], which needs no driver (shared with the host-cost
    /// benchmark). Not a public API.
    #[doc(hidden)]
    #[inline(always)]
    pub fn __check_config(
        &self,
        rules: LaunchRules,
        config: &LaunchConfig<'_>,
    ) -> Result<(), Error> {
        if !rules.known {
            return self.check_nvrtc(rules.info, config);
        }
        if config.plainly_valid() & rules.pass(config) {
            Ok(())
        } else {
            self.check_each_rule(rules.info, config)
        }
    }

    /// [`Self::__check_config`] for a CUDA C kernel: with the rules read from NVRTC's output.
    #[inline(never)]
    fn check_nvrtc(&self, declared: &KernelInfo, config: &LaunchConfig<'_>) -> Result<(), Error> {
        let rules = self.nvrtc_rules(declared);
        if config.plainly_valid() & rules.pass(config) {
            Ok(())
        } else {
            self.check_each_rule(rules.info, config)
        }
    }

    /// [`Self::check_launch`] out of the launch's way: the launches the quick compares of
    /// [`Self::__check_config`] do not settle (a cluster, a kernel whose PTX fixes its block, a
    /// broken rule).
    #[cold]
    #[inline(never)]
    fn check_each_rule(&self, info: &KernelInfo, config: &LaunchConfig<'_>) -> Result<(), Error> {
        self.check_launch(info, config)
    }

    /// The rules of a CUDA C kernel, from NVRTC's output (read when the kernel was loaded);
    /// none before that.
    #[inline]
    fn nvrtc_rules(&self, declared: &KernelInfo) -> LaunchRules {
        match self.nvrtc_info.get() {
            Some(rules) => *rules,
            None => self.nvrtc_rules_cold(declared),
        }
    }

    #[cold]
    fn nvrtc_rules_cold(&self, declared: &KernelInfo) -> LaunchRules {
        match self.nvrtc_info_for(declared) {
            Some(_) => self.nvrtc_info.get().copied().unwrap_or(LaunchRules::NONE),
            None => LaunchRules::NONE,
        }
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

    #[cold]
    fn get_cold(&self, ctx: &Arc<CudaContext>, key: usize) -> Result<&CudaFunction, Error> {
        ensure_driver()?;
        let _loader = lock(&LOADER);
        // Another thread may have loaded it while this one waited.
        for slot in &self.slots {
            match slot.get() {
                Some((k, f)) if *k == key => return Ok(f),
                Some(_) => {}
                None => {
                    let func = self.load(ctx)?;
                    // Writers hold LOADER, so the slot is still empty.
                    let (_, f) = slot.get_or_init(|| (key, func));
                    return Ok(f);
                }
            }
        }
        let mut overflow = lock(&self.overflow);
        if let Some((_, f)) = overflow.iter().find(|(k, _)| *k == key) {
            return Ok(f);
        }
        // Leaked once per context beyond SLOTS, so the reference can outlive the lock.
        let f: &'static CudaFunction = Box::leak(Box::new(self.load(ctx)?));
        overflow.push((key, f));
        Ok(f)
    }

    /// Loads (or reuses) the module and resolves the function. Called with LOADER held.
    fn load(&self, ctx: &Arc<CudaContext>) -> Result<CudaFunction, Error> {
        let kernel = KernelName(Some(self.name));
        let one;
        let variants: &[PtxVariant] = match self.source {
            KernelSource::Ptx { path, text } => {
                one = [PtxVariant { path, text }];
                &one
            }
            KernelSource::PtxVariants { variants } => variants,
            KernelSource::Cuda {
                path,
                text,
                program,
            } => {
                let compiled = nvrtc::compiled(ctx, path, text, program, kernel)?;
                let entry = self.check_nvrtc_output(&compiled.ptx, compiled.lowered.as_deref())?;
                // One module per compiled program: declarations of one file with other
                // options or template instances have their own.
                let key = (path, Arc::as_ptr(&compiled) as usize);
                let module = module_for(ctx, key, kernel, || Ok(Image::Cubin(&compiled.image)))?;
                return module
                    .load_function(&entry)
                    .map_err(|e| self.missing(&entry, None, e));
            }
        };
        let variant = choose_variant(ctx, variants, kernel)?;
        let entry = self.entry.unwrap_or(self.name);
        let module = module_for(ctx, (variant.path, 0), kernel, || {
            Ok(Image::Ptx(variant.path, variant.text))
        })?;
        module
            .load_function(entry)
            .map_err(|e| self.missing(entry, Some(variant), e))
    }

    /// The error of a `cuModuleGetFunction` that failed: for an entry the module does not have,
    /// [`Error::MissingKernel`] with the kernels it has (read from the PTX, on this error path
    /// only). `variant` is the PTX loaded; `None` for NVRTC's output, which was checked to have
    /// the entry (a miss is the driver's to explain).
    #[cold]
    fn missing(
        &self,
        entry: &str,
        variant: Option<&PtxVariant>,
        e: cudarc::driver::DriverError,
    ) -> Error {
        let kernel = KernelName(Some(self.name));
        let path = variant.map_or(self.source.path(), |v| v.path);
        let listed = variant.and_then(|v| ptx::parse_entries(v.text).ok());
        match listed {
            Some(entries)
                if e.0 == crate::sys::cudaError_enum::CUDA_ERROR_NOT_FOUND
                    && !entries.iter().any(|x| x.name == entry) =>
            {
                let message = match ptx::resolve_entry(&entries, entry, &format!("`{path}`")) {
                    Err(Unresolved::Missing(m) | Unresolved::Ambiguous(m)) => m,
                    Ok(_) => format!("no kernel `{entry}` in `{path}`"),
                };
                Error::MissingKernel {
                    kernel,
                    message: format!(
                        "{message} (cuModuleGetFunction: CUDA_ERROR_NOT_FOUND); declare the \
                         kernel with the name of one of its `.entry` lines"
                    ),
                }
            }
            _ => Error::driver("cuModuleGetFunction", kernel, e),
        }
    }

    /// Finds the entry in NVRTC's PTX (`lowered`, the name expression's lowered name, when
    /// there is one) and checks it against the declared signature.
    fn check_nvrtc_output(&self, ptx_text: &str, lowered: Option<&str>) -> Result<String, Error> {
        let kernel = KernelName(Some(self.name));
        let path = self.source.path();
        let signature = |message: String| Error::Signature { kernel, message };
        let entries = ptx::parse_entries(ptx_text)
            .map_err(|e| signature(format!("cannot read NVRTC's PTX for {path}: {e}")))?;
        let wanted = lowered.or(self.entry).unwrap_or(self.name);
        // Overloads and template instances are told apart by the declared parameter count.
        let fits = |e: &ptx::Entry| e.params.len() == self.signature.len();
        let entry = ptx::resolve_entry_by(&entries, wanted, path, fits).map_err(|u| {
            signature(match u {
                Unresolved::Ambiguous(m) => m,
                Unresolved::Missing(m) => format!(
                    "{m} (a kernel is found by its name, `extern \"C\"` or C++; a C++ \
                     template instance by `name = \"kernel<128>\"` where the source \
                     instantiates it)"
                ),
            })
        })?;
        ptx::check_signature(self.signature, entry)
            .map_err(|m| signature(format!("{path} (compiled by NVRTC): {m}")))?;
        // A C++ kernel's types from its symbol, and what the PTX writes through: the checks
        // `#[kernel]` makes at compile time for a PTX file.
        let file = format!("NVRTC's PTX of {path}");
        ptx::check_cpp(self.signature, entry, &file, ptx_text).map_err(signature)?;
        // The directives do not depend on the compute capability: the first compile's serve.
        let _ = self.nvrtc_entry.set(entry.clone());
        Ok(entry.name.clone())
    }

    /// Checks `config` against the rules the kernel's PTX fixes ([`KernelInfo`]): the block
    /// against `.reqntid`/`.maxntid`, the cluster and grid against `.reqnctapercluster` and
    /// `.maxclusterrank`, `programmatic_serialization` against `griddepcontrol.wait`,
    /// `cooperative` against a grid-wide barrier. `info` is the declaration's
    /// (`__CHEVRON_INFO`); for CUDA C the rules come from NVRTC's output, read when the kernel
    /// was loaded (call this after [`Self::get`]). A few comparisons.
    ///
    /// The config's own limits come first ([`LaunchConfig::validate`], as
    /// [`Error::InvalidConfig`]): an extent that is no extent (a grid of `u64::MAX`, a block of
    /// `-128`) is reported as itself, not as whatever placeholder a kernel rule would see.
    ///
    /// ```
    /// use chevron::{Kernel, KernelInfo, LaunchConfig};
    /// static K: Kernel = Kernel::ptx("k", "k", "/k.ptx", ".entry k() .maxntid 64 { ret; }");
    /// let info = KernelInfo { known: true, maxntid: Some([64, 1, 1]), ..KernelInfo::UNKNOWN };
    /// assert!(K.check_launch(&info, &LaunchConfig::new(1u32, 64u32)).is_ok());
    /// assert!(K.check_launch(&info, &LaunchConfig::new(1u32, 128u32)).is_err());
    /// ```
    #[inline]
    pub fn check_launch(&self, info: &KernelInfo, config: &LaunchConfig<'_>) -> Result<(), Error> {
        if let Err(violation) = config.validate() {
            return Err(Error::InvalidConfig {
                kernel: KernelName(Some(self.name)),
                violation,
            });
        }
        let info = if info.known {
            info
        } else {
            match self.nvrtc_info_for(info) {
                Some(i) => i,
                None => return Ok(()),
            }
        };
        let arr = |d: crate::Dim3| [d.x, d.y, d.z];
        let facts = LaunchFacts {
            grid: Some(arr(config.grid())),
            block: Some(arr(config.block())),
            cluster: Some(config.cluster().map(arr)),
            cooperative: Some(config.has::<crate::Cooperative>()),
            programmatic_serialization: Some(config.has::<crate::ProgrammaticSerialization>()),
        };
        match info.check(&facts) {
            Ok(()) => Ok(()),
            Err(rule) => Err(self.constraint_error(info, rule, &facts)),
        }
    }

    /// The rules of a CUDA C kernel, from NVRTC's output and the declaration's options.
    fn nvrtc_info_for(&self, declared: &KernelInfo) -> Option<&KernelInfo> {
        if let Some(rules) = self.nvrtc_info.get() {
            return Some(rules.info);
        }
        let entry = self.nvrtc_entry.get()?;
        let file = format!("NVRTC's PTX of {}", self.source.path());
        let text = fit::read_info(
            entry,
            self.name,
            &file,
            declared.no_upstream_reads,
            declared.cooperative,
        );
        // Leaked once per kernel and process (a lost race leaks one more).
        let info: &'static KernelInfo = Box::leak(Box::new(text.leak()));
        Some(self.nvrtc_info.get_or_init(|| LaunchRules::of(info)).info)
    }

    /// The rule's message and what this launch held of the rule's subject.
    #[cold]
    fn constraint_error(&self, info: &KernelInfo, rule: Rule, facts: &LaunchFacts) -> Error {
        let this = rule.subject().describe(facts).unwrap_or_default();
        Error::KernelConstraint {
            kernel: KernelName(Some(self.name)),
            message: format!("{} (this launch: {this})", info.message(rule)),
        }
    }
}

/// A kernel's launch rules ([`KernelInfo`]) folded into what one launch can check in a few
/// compares: whether any rule looks at the clusters or the grid (when one does, the launch goes
/// through every rule), and which launch-attribute kinds (`cooperative`,
/// `programmatic_serialization`) break a rule by their presence or their absence; the block
/// rules (`.reqntid`, `.maxntid`) are compared with the block directly. `#[kernel]` makes it at
/// compile time from the declaration's `__CHEVRON_INFO`, so that in a launch the info is a
/// constant and the comparisons with a rule the PTX does not have vanish. Not a public API.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct LaunchRules {
    info: &'static KernelInfo,
    /// The rules come from the kernel's PTX (else from NVRTC's output, at run time).
    known: bool,
    /// The rules come from the PTX and none looks at the clusters or the grid: the block and
    /// the kinds below decide.
    quick: bool,
    /// Kinds (their bits in a config's `present`) whose presence breaks a rule.
    refused: u64,
    /// Kinds whose absence breaks a rule.
    required: u64,
}

impl LaunchRules {
    /// No rule (a CUDA C kernel before NVRTC's output was read).
    const NONE: LaunchRules = LaunchRules {
        info: &KernelInfo::UNKNOWN,
        known: true,
        quick: true,
        refused: 0,
        required: 0,
    };

    /// `info`'s rules. The kinds come from the rules themselves
    /// ([`KernelInfo::check_cooperative`] and [`KernelInfo::check_serialization`], each asked
    /// with and without its kind), so that they cannot drift apart.
    pub const fn of(info: &'static KernelInfo) -> Self {
        let cooperative = bit(<crate::Cooperative as crate::Attribute>::KIND.id);
        let serialization = bit(<crate::ProgrammaticSerialization as crate::Attribute>::KIND.id);
        let (mut refused, mut required) = (0, 0);
        if info.check_cooperative(true).is_err() {
            refused |= cooperative;
        }
        if info.check_cooperative(false).is_err() {
            required |= cooperative;
        }
        if info.check_serialization(true).is_err() {
            refused |= serialization;
        }
        if info.check_serialization(false).is_err() {
            required |= serialization;
        }
        LaunchRules {
            info,
            known: info.known,
            quick: info.known && !info.fixes_clusters(),
            refused,
            required,
        }
    }

    /// Whether `config` keeps every rule, decided on its block and the kinds present; `false`
    /// also where the clusters or the grid would have to be looked at.
    #[inline(always)]
    fn pass(&self, config: &LaunchConfig<'_>) -> bool {
        let present = config.present();
        let b = config.block();
        self.quick
            & self.info.check_block([b.x, b.y, b.z]).is_ok()
            & (present & self.refused == 0)
            & (present & self.required == self.required)
    }
}

/// Serializes loading (the cold path). Launches never take it once their kernel is loaded.
static LOADER: Mutex<()> = Mutex::new(());

/// What a module is made of: PTX text (named for the linker's messages) or machine code.
enum Image<'a> {
    Ptx(&'a str, &'a str),
    Cubin(&'a [u8]),
}

/// A module's key besides its context: its file, and for CUDA C the compiled program.
type ModuleKey = (&'static str, usize);

/// Modules per (context, file): declarations naming the same file share one module.
static MODULES: Mutex<Vec<(usize, ModuleKey, Arc<CudaModule>)>> = Mutex::new(Vec::new());

/// A panic elsewhere while a cache was locked leaves it consistent (entries are only pushed),
/// so poisoning is ignored.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn module_for<'a>(
    ctx: &Arc<CudaContext>,
    key: ModuleKey,
    kernel: KernelName,
    image: impl FnOnce() -> Result<Image<'a>, Error>,
) -> Result<Arc<CudaModule>, Error> {
    let context = ctx.cu_ctx() as usize;
    if let Some((_, _, m)) = lock(&MODULES)
        .iter()
        .find(|(c, k, _)| *c == context && *k == key)
    {
        return Ok(m.clone());
    }
    let module = match image()? {
        Image::Ptx(path, text) => crate::link::load(ctx, path, text.to_owned(), kernel)?,
        Image::Cubin(cubin) => crate::link::load_image(ctx, cubin.to_vec(), kernel)?,
    };
    lock(&MODULES).push((context, key, module.clone()));
    Ok(module)
}

/// The variant of a kernel's PTX for `ctx`'s device (see [`target::choose`]); a variant whose
/// header cannot be read is left to the driver when no readable one fits.
/// `Error::Incompatible` when none can run on the device under this driver.
fn choose_variant<'v>(
    ctx: &Arc<CudaContext>,
    variants: &'v [PtxVariant],
    kernel: KernelName,
) -> Result<&'v PtxVariant, Error> {
    let headers: Vec<_> = variants.iter().map(|v| target::header(v.text)).collect();
    if headers.iter().all(Option::is_none) {
        return variants.first().ok_or(Error::Incompatible {
            kernel,
            message: "the kernel has no PTX variant".into(),
        });
    }
    let (major, minor) = ctx
        .compute_capability()
        .map_err(|e| Error::driver("cuDeviceGetAttribute", kernel, e))?;
    let cc = Version::new(major.max(0) as u32, minor.max(0) as u32);
    let driver = nvrtc::driver_version();
    if let Some(i) = target::choose(&headers, cc, driver) {
        return Ok(&variants[i]);
    }
    if let Some(i) = headers.iter().position(Option::is_none) {
        return Ok(&variants[i]);
    }
    Err(Error::Incompatible {
        kernel,
        message: target::unfit_message(&headers, &format!("device {}", ctx.ordinal()), cc, driver),
    })
}

/// How many modules of files whose path ends with `path` are loaded in the context `ctx`: 1 after any number of
/// first launches racing in threads. For tests; not a public API.
#[doc(hidden)]
pub fn modules_loaded(ctx: &Arc<CudaContext>, path: &str) -> usize {
    let key = ctx.cu_ctx() as usize;
    lock(&MODULES)
        .iter()
        .filter(|(c, (p, _), _)| *c == key && p.ends_with(path))
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptx::{Expected, ParamSig};
    use chevron_cuda_spec::param::{Class, Num, ParamForm};

    const fn sig(name: &'static str, ty: &'static str, form: ParamForm) -> ParamSig {
        ParamSig::new(name, ty, form, false)
    }

    const HISTOGRAM: &[ParamSig] = &[
        sig("bins", "&mut CudaSlice<u32>", ParamForm::buffer(4, true)),
        sig("data", "&CudaView<'_, u8>", ParamForm::buffer(1, false)),
        sig("len", "u32", ParamForm::of(Expected::Int(32))),
    ];

    // What NVRTC makes of kernels/histogram.cu (entry and parameters as nvcc writes them).
    const HISTOGRAM_PTX: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\
        .visible .entry histogram(\n\t.param .u64 histogram_param_0,\n\
        \t.param .u64 histogram_param_1,\n\t.param .u32 histogram_param_2\n)\n{\n\tret;\n}\n";

    #[test]
    fn nvrtc_output_is_checked_against_the_declaration() {
        static OK: Kernel = Kernel::cuda("histogram", None, "/k/histogram.cu", "", HISTOGRAM);
        assert_eq!(
            OK.check_nvrtc_output(HISTOGRAM_PTX, None).unwrap(),
            "histogram"
        );

        const WRONG: &[ParamSig] = &[HISTOGRAM[0], HISTOGRAM[1]];
        static SHORT: Kernel = Kernel::cuda("histogram", None, "/k/histogram.cu", "", WRONG);
        match SHORT.check_nvrtc_output(HISTOGRAM_PTX, None) {
            Err(Error::Signature { kernel, message }) => {
                assert_eq!(kernel, KernelName(Some("histogram")));
                assert!(
                    message.contains("has 3 parameters, the declaration 2"),
                    "{message}"
                );
            }
            other => panic!("{other:?}"),
        }

        const FLOAT: &[ParamSig] = &[
            HISTOGRAM[0],
            HISTOGRAM[1],
            sig("len", "f32", ParamForm::of(Expected::Float(32))),
        ];
        static FLOATY: Kernel = Kernel::cuda("histogram", None, "/k/histogram.cu", "", FLOAT);
        let err = FLOATY.check_nvrtc_output(HISTOGRAM_PTX, None).unwrap_err();
        assert!(
            err.to_string().contains("`len: f32` is a 32-bit float"),
            "{err}"
        );

        // A C++ kernel: its types from the symbol, with the compile-time rule's words.
        const CPP_PTX: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\
            .visible .entry _Z10offset_addPffj(\n\t.param .u64 p0,\n\t.param .f32 p1,\n\
            \t.param .u32 p2\n)\n{\n\tret;\n}\n";
        const F32: Class = Class::Num(Num::Float(32));
        const READ_ONLY: &[ParamSig] = &[
            sig(
                "y",
                "&CudaSlice<f32>",
                ParamForm::buffer(4, false).with_class(F32),
            ),
            sig(
                "v",
                "f32",
                ParamForm::of(Expected::Float(32)).with_class(F32),
            ),
            sig("n", "u32", ParamForm::of(Expected::Int(32))),
        ];
        static CPP: Kernel = Kernel::cuda("offset_add", None, "/k/t.cu", "", READ_ONLY);
        let err = CPP
            .check_nvrtc_output(CPP_PTX, None)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("`y: &CudaSlice<f32>` is read-only (`&`), but the kernel takes `float*`"),
            "{err}"
        );
        assert!(err.contains("NVRTC's PTX of /k/t.cu"), "{err}");
        const OPTED: &[ParamSig] = &[
            ParamSig::new("y", "&CudaSlice<f32>", READ_ONLY[0].form, true),
            READ_ONLY[1],
            READ_ONLY[2],
        ];
        static CPP_OPTED: Kernel = Kernel::cuda("offset_add", None, "/k/t.cu", "", OPTED);
        assert_eq!(
            CPP_OPTED.check_nvrtc_output(CPP_PTX, None).unwrap(),
            "_Z10offset_addPffj"
        );

        static MISSING: Kernel = Kernel::cuda("hist", None, "/k/histogram.cu", "", HISTOGRAM);
        let err = MISSING.check_nvrtc_output(HISTOGRAM_PTX, None).unwrap_err();
        assert!(
            err.to_string().contains("its kernels are: `histogram`"),
            "{err}"
        );
    }

    #[test]
    fn an_entry_missing_from_its_module_lists_the_kernels() {
        use cudarc::driver::sys::cudaError_enum as E;
        use cudarc::driver::DriverError;
        static K: Kernel = Kernel::ptx("histogrm", "histogrm", "/k/histogram.ptx", HISTOGRAM_PTX);
        let v = PtxVariant {
            path: "/k/histogram.ptx",
            text: HISTOGRAM_PTX,
        };
        let e = K.missing("histogrm", Some(&v), DriverError(E::CUDA_ERROR_NOT_FOUND));
        assert!(
            matches!(
                e,
                Error::MissingKernel {
                    kernel: KernelName(Some("histogrm")),
                    ..
                }
            ),
            "{e:?}"
        );
        assert_eq!(
            e.to_string(),
            "no kernel `histogrm` in `/k/histogram.ptx`; its kernels are: `histogram` \
             (cuModuleGetFunction: CUDA_ERROR_NOT_FOUND); declare the kernel with the name of \
             one of its `.entry` lines"
        );
        // Another failure of the same call stays the driver's error.
        let e = K.missing(
            "histogrm",
            Some(&v),
            DriverError(E::CUDA_ERROR_INVALID_CONTEXT),
        );
        assert!(
            matches!(
                e,
                Error::Driver {
                    call: "cuModuleGetFunction",
                    ..
                }
            ),
            "{e:?}"
        );
    }

    #[test]
    fn missing_nvrtc_is_a_typed_error() {
        use crate::nvrtc::{compile_cuda, nvrtc_present};
        let r = compile_cuda(
            "k.cu",
            "extern \"C\" __global__ void k() {}",
            (9, 0),
            KernelName(Some("k")),
        );
        match r {
            Err(Error::NoNvrtc { kernel }) => {
                assert!(!nvrtc_present());
                assert_eq!(kernel, KernelName(Some("k")));
            }
            Ok(ptx) => assert!(nvrtc_present() && ptx.contains(".entry k")),
            Err(other) => panic!("{other}"),
        }
        let nul = compile_cuda("k.cu", "a\0b", (9, 0), KernelName(None));
        assert!(matches!(nul, Err(Error::Compile { .. })));
    }

    /// The quick compares a typed launch makes (`__check_config`, with the rules folded by
    /// `LaunchRules::of`) give what every rule one by one gives (`check_launch`): the same
    /// verdict and the same error, for kernels with each kind of rule and launches that keep or
    /// break them.
    #[test]
    fn folded_rules_agree_with_every_rule() {
        use crate::{ClusterDim, Cooperative, Dim3, LaunchConfig, ProgrammaticSerialization};
        use chevron_cuda_spec::fit::{read_info, CooperativeUse};
        const PTX: &str = ".version 9.0\n.target sm_90\n.address_size 64\n\
            .visible .entry plain() { ret; }\n\
            .visible .entry waits() { griddepcontrol.wait; ret; }\n\
            .visible .entry syncs() { mov.u32 %r1, %envreg1;\n\
              atom.add.release.gpu.u32 %r2, [%rd1], 1; ret; }\n\
            .visible .entry req() .reqntid 64, 1, 1 { ret; }\n\
            .visible .entry max() .maxntid 128, 1, 1 { ret; }\n\
            .visible .entry cl() .reqnctapercluster 2, 1, 1 { ret; }\n\
            .visible .entry expl() .explicitcluster { ret; }\n\
            .visible .entry rank() .maxclusterrank 2 { ret; }\n";
        static K: Kernel = Kernel::ptx("k", "k", "/k/k.ptx", PTX);
        let entries = ptx::parse_entries(PTX).expect("parses");
        let mut infos: Vec<&'static KernelInfo> = vec![&KernelInfo::UNKNOWN];
        for entry in &entries {
            for (reads, cooperative) in [
                (false, CooperativeUse::ByPtx),
                (true, CooperativeUse::Optional),
                (false, CooperativeUse::CoResident),
            ] {
                let info = read_info(entry, &entry.name, "k.ptx", reads, cooperative).leak();
                infos.push(Box::leak(Box::new(info)));
            }
        }
        let mut configs = Vec::new();
        for block in [
            Dim3::new(64, 1, 1),
            Dim3::new(256, 1, 1),
            Dim3::new(8, 8, 1),
        ] {
            for grid in [1u32, 2, 3, 4, 6] {
                let base = LaunchConfig::new(grid, block);
                for cluster in [
                    None,
                    Some(ClusterDim::new(2, 1, 1)),
                    Some(ClusterDim::new(4, 1, 1)),
                ] {
                    for (cooperative, serialized) in
                        [(false, false), (true, false), (false, true), (true, true)]
                    {
                        let mut c = base;
                        if let Some(cl) = cluster {
                            c = c.with(cl);
                        }
                        c = c.with_flag(Cooperative, cooperative);
                        c = c.with_flag(ProgrammaticSerialization, serialized);
                        configs.push(c);
                    }
                }
            }
        }
        configs.push(LaunchConfig::new(1, 2048));
        let (mut passed, mut refused) = (0, 0);
        for info in infos {
            let rules = LaunchRules::of(info);
            for config in &configs {
                let quick = K.__check_config(rules, config).map_err(|e| e.to_string());
                let each = K.check_launch(info, config).map_err(|e| e.to_string());
                assert_eq!(quick, each, "{config:?} against {info:?}");
                match quick {
                    Ok(()) => passed += 1,
                    Err(_) => refused += 1,
                }
            }
        }
        // Both verdicts are exercised, many times.
        assert!(
            passed > 500 && refused > 500,
            "{passed} passed, {refused} refused"
        );
        // Each flag rule becomes a kind to refuse or to require, from the rules themselves.
        let never_waits = entries.iter().position(|e| e.name == "plain").unwrap();
        let info = read_info(
            &entries[never_waits],
            "plain",
            "k.ptx",
            false,
            CooperativeUse::ByPtx,
        );
        let rules = LaunchRules::of(Box::leak(Box::new(info.leak())));
        let bit_of = |id: u32| bit(id);
        assert!(rules.quick);
        assert_eq!(
            rules.refused,
            bit_of(<Cooperative as crate::Attribute>::KIND.id)
                | bit_of(<ProgrammaticSerialization as crate::Attribute>::KIND.id)
        );
        assert_eq!(rules.required, 0);
    }

    /// A CUDA C kernel's rules come from NVRTC's output at run time: the typed launch's check
    /// reads them there once read, as `check_launch` does.
    #[test]
    fn nvrtc_rules_are_checked_like_the_declared_ones() {
        use crate::{Cooperative, LaunchConfig};
        const BOUNDED: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\
            .visible .entry histogram(\n\t.param .u64 histogram_param_0,\n\
            \t.param .u64 histogram_param_1,\n\t.param .u32 histogram_param_2\n)\n\
            .maxntid 128, 1, 1\n{\n\tret;\n}\n";
        static K: Kernel = Kernel::cuda("histogram", None, "/k/histogram.cu", "", HISTOGRAM);
        let declared = KernelInfo::UNKNOWN;
        let rules = LaunchRules::of(&KernelInfo::UNKNOWN);
        let configs = [
            LaunchConfig::new(4, 128),
            LaunchConfig::new(4, 256),
            LaunchConfig::new(4, 128).with(Cooperative),
            LaunchConfig::new(0, 128),
        ];
        let verdicts = || -> Vec<(Result<(), String>, Result<(), String>)> {
            configs
                .iter()
                .map(|c| {
                    (
                        K.__check_config(rules, c).map_err(|e| e.to_string()),
                        K.check_launch(&declared, c).map_err(|e| e.to_string()),
                    )
                })
                .collect()
        };
        // Before NVRTC's output is read: the limits only.
        for (quick, each) in verdicts() {
            assert_eq!(quick, each);
        }
        assert_eq!(
            verdicts().iter().filter(|(q, _)| q.is_err()).count(),
            1,
            "only the zero grid"
        );
        K.check_nvrtc_output(BOUNDED, None)
            .expect("matches the declaration");
        let after = verdicts();
        for (quick, each) in &after {
            assert_eq!(quick, each);
        }
        assert!(after[0].0.is_ok());
        assert!(
            after[1]
                .0
                .as_ref()
                .unwrap_err()
                .contains(".maxntid 128, 1, 1"),
            "{:?}",
            after[1]
        );
        assert!(after[2].0.as_ref().unwrap_err().contains("`cooperative`"));
        assert!(after[3].0.is_err());
    }

    #[test]
    fn invalid_extents_are_reported_before_any_kernel_rule() {
        use crate::dim::Extent;
        use crate::{Dim3, LaunchConfig};
        use chevron_cuda_spec::fit::read_info;
        use chevron_cuda_spec::limits::Violation;
        // Compiled-in clusters of 2 and `.reqntid 64`: the kernel rules that a placeholder grid
        // or block of (1, 1, 1) would break.
        const PTX: &str = ".version 9.0\n.target sm_90\n.address_size 64\n\
            .visible .entry k() .reqntid 64, 1, 1 .reqnctapercluster 2, 1, 1 { ret; }\n";
        static K: Kernel = Kernel::ptx("k", "k", "/k/k.ptx", PTX);
        let entries = ptx::parse_entries(PTX).expect("parses");
        let info = read_info(&entries[0], "k", "k.ptx", false, fit::CooperativeUse::ByPtx).leak();
        let dim = |x: Result<u32, crate::dim::ExtentError>| x.map(|x| Dim3::new(x, 1, 1));
        let grid = LaunchConfig::__from_extents(dim(u64::MAX.extent()), dim(64u32.extent()));
        match K.check_launch(&info, &grid) {
            Err(Error::InvalidConfig { kernel, violation }) => {
                assert_eq!(kernel, KernelName(Some("k")));
                assert_eq!(
                    violation,
                    Violation::NotU32 {
                        what: "grid",
                        axis: None,
                        value: i128::from(u64::MAX)
                    }
                );
                assert_eq!(
                    violation.to_string(),
                    "grid is 18446744073709551615, which does not fit in `u32`"
                );
            }
            other => panic!("{other:?}"),
        }
        let block = LaunchConfig::__from_extents(dim(2u32.extent()), dim((-128i32).extent()));
        match K.check_launch(&info, &block) {
            Err(Error::InvalidConfig { violation, .. }) => {
                assert_eq!(violation.to_string(), "block is -128: it is negative")
            }
            other => panic!("{other:?}"),
        }
        // Valid extents meet the kernel's rules, which name the launch's real values.
        let odd = LaunchConfig::new(3u32, 64u32);
        match K.check_launch(&info, &odd) {
            Err(Error::KernelConstraint { message, .. }) => {
                assert!(
                    message.ends_with("(this launch: grid (3, 1, 1))"),
                    "{message}"
                )
            }
            other => panic!("{other:?}"),
        }
        assert!(K
            .check_launch(&info, &LaunchConfig::new(4u32, 64u32))
            .is_ok());
    }
}
