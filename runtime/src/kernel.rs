//! Kernel loading: one [`Kernel`] per declaration, caching its `CUfunction` per CUDA context.
//!
//! The hot path ([`Kernel::get`] after the first call in a context) scans a few `OnceLock`
//! slots for the context pointer: no lock, no string lookup, no allocation. Everything else
//! (loading the module, NVRTC, resolving the function, more contexts than slots) happens on a
//! cold path behind one process-wide mutex.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use cudarc::driver::{CudaContext, CudaFunction, CudaModule, CudaStream};

use crate::config::{bit, LaunchConfig};
use crate::dim::Dim3;
use crate::error::{Error, KernelName};
use crate::launch::{ensure_driver, Checked};
use crate::occupancy::{self, Occupancy};
use crate::ptx::{self, ParamSig, Unresolved};
use chevron_cuda_spec::fit::{self, Broken, KernelInfo, LaunchFacts};

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
    /// CUDA C, compiled by NVRTC at the first use in a process for each compute capability.
    Cuda {
        /// The file, as an absolute path: the key under which the module is shared.
        path: &'static str,
        /// The CUDA C source.
        text: &'static str,
    },
}

impl KernelSource {
    fn path(&self) -> &'static str {
        match self {
            KernelSource::Ptx { path, .. } | KernelSource::Cuda { path, .. } => path,
        }
    }
}

/// A kernel and its function handle per CUDA context; meant to live in a `static`.
///
/// `#[kernel]` emits one per declaration. It can also be used by hand:
///
/// ```no_run
/// # fn main() -> Result<(), chevron_cuda_runtime::Error> {
/// use chevron_cuda_runtime::{context, Kernel};
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
        Self::new(name, entry, KernelSource::Cuda { path, text }, signature)
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
        let (module, entry) = match self.source {
            KernelSource::Ptx { path, text } => {
                let entry = self.entry.unwrap_or(self.name);
                (
                    module_for(ctx, path, kernel, || Ok(text.to_owned()))?,
                    entry.to_owned(),
                )
            }
            KernelSource::Cuda { path, text } => {
                let (major, minor) = ctx
                    .compute_capability()
                    .map_err(|e| Error::driver("cuDeviceGetAttribute", kernel, e))?;
                let ptx = nvrtc_ptx(path, text, (major, minor), kernel)?;
                let entry = self.check_nvrtc_output(&ptx)?;
                (
                    module_for(ctx, path, kernel, || Ok(ptx.to_string()))?,
                    entry,
                )
            }
        };
        module
            .load_function(&entry)
            .map_err(|e| self.missing(&entry, e))
    }

    /// The error of a `cuModuleGetFunction` that failed: for an entry the module does not have,
    /// [`Error::MissingKernel`] with the kernels it has (read from the PTX, on this error path
    /// only).
    #[cold]
    fn missing(&self, entry: &str, e: cudarc::driver::DriverError) -> Error {
        let kernel = KernelName(Some(self.name));
        let path = self.source.path();
        let listed = match self.source {
            KernelSource::Ptx { text, .. } => ptx::parse_entries(text).ok(),
            // NVRTC's output was checked to have the entry; a miss is the driver's to explain.
            KernelSource::Cuda { .. } => None,
        };
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

    /// Finds the entry in NVRTC's PTX and checks it against the declared signature.
    fn check_nvrtc_output(&self, ptx_text: &str) -> Result<String, Error> {
        let kernel = KernelName(Some(self.name));
        let path = self.source.path();
        let signature = |message: String| Error::Signature { kernel, message };
        let entries = ptx::parse_entries(ptx_text)
            .map_err(|e| signature(format!("cannot read NVRTC's PTX for {path}: {e}")))?;
        let wanted = self.entry.unwrap_or(self.name);
        let entry = ptx::resolve_entry(&entries, wanted, path).map_err(|u| {
            signature(match u {
                Unresolved::Ambiguous(m) => m,
                Unresolved::Missing(m) => format!(
                    "{m} (a kernel needs `extern \"C\" __global__`, or `name = \"…\"` with its \
                     mangled name)"
                ),
            })
        })?;
        ptx::check_signature(self.signature, entry)
            .map_err(|m| signature(format!("{path} (compiled by NVRTC): {m}")))?;
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
    /// use chevron_cuda_runtime::{Kernel, KernelInfo, LaunchConfig};
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
            Err(broken) => Err(self.constraint_error(info, broken, config)),
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

    #[cold]
    fn constraint_error(
        &self,
        info: &KernelInfo,
        broken: Broken,
        config: &LaunchConfig<'_>,
    ) -> Error {
        let d = |d: crate::Dim3| format!("({}, {}, {})", d.x, d.y, d.z);
        let this = match broken {
            Broken::Block => format!("block {}", d(config.block())),
            Broken::Cluster | Broken::ClusterRank | Broken::Unclustered => match config.cluster() {
                Some(c) => format!("cluster {}", d(c)),
                None => "no cluster".into(),
            },
            Broken::Grid => format!("grid {}", d(config.grid())),
            Broken::PdlWait => "`programmatic_serialization`".into(),
            Broken::NotCooperative => "no `cooperative`".into(),
            Broken::NeedlessCooperative => "`cooperative`".into(),
        };
        Error::KernelConstraint {
            kernel: KernelName(Some(self.name)),
            message: format!("{} (this launch: {this})", info.message(broken)),
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

/// Modules per (context, file): declarations naming the same file share one module.
static MODULES: Mutex<Vec<(usize, &'static str, Arc<CudaModule>)>> = Mutex::new(Vec::new());

/// NVRTC output for one file and compute capability.
type CompiledPtx = (&'static str, (i32, i32), Arc<str>);

/// NVRTC output per (file, compute capability), for the whole process.
static NVRTC: Mutex<Vec<CompiledPtx>> = Mutex::new(Vec::new());

/// A panic elsewhere while a cache was locked leaves it consistent (entries are only pushed),
/// so poisoning is ignored.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn module_for(
    ctx: &Arc<CudaContext>,
    path: &'static str,
    kernel: KernelName,
    text: impl FnOnce() -> Result<String, Error>,
) -> Result<Arc<CudaModule>, Error> {
    let key = ctx.cu_ctx() as usize;
    if let Some((_, _, m)) = lock(&MODULES)
        .iter()
        .find(|(c, p, _)| *c == key && *p == path)
    {
        return Ok(m.clone());
    }
    let module = crate::link::load(ctx, path, text()?, kernel)?;
    lock(&MODULES).push((key, path, module.clone()));
    Ok(module)
}

/// How many modules of files whose path ends with `path` are loaded in the context `ctx`: 1 after any number of
/// first launches racing in threads. For tests; not a public API.
#[doc(hidden)]
pub fn modules_loaded(ctx: &Arc<CudaContext>, path: &str) -> usize {
    let key = ctx.cu_ctx() as usize;
    lock(&MODULES)
        .iter()
        .filter(|(c, p, _)| *c == key && p.ends_with(path))
        .count()
}

/// Whether the NVRTC library can be loaded; checked once per process.
pub fn nvrtc_present() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: only tries to open the library by its usual names.
    *PRESENT.get_or_init(|| unsafe { cudarc::nvrtc::sys::is_culib_present() })
}

fn nvrtc_ptx(
    path: &'static str,
    source: &str,
    arch: (i32, i32),
    kernel: KernelName,
) -> Result<Arc<str>, Error> {
    if let Some((_, _, ptx)) = lock(&NVRTC)
        .iter()
        .find(|(p, a, _)| *p == path && *a == arch)
    {
        return Ok(ptx.clone());
    }
    let ptx: Arc<str> = compile_cuda(path, source, arch, kernel)?.into();
    lock(&NVRTC).push((path, arch, ptx.clone()));
    Ok(ptx)
}

/// Compiles CUDA C with NVRTC for compute capability `arch` (`--gpu-architecture=compute_XY`).
/// A source that calls the CUDA device runtime, which NVRTC declares only for relocatable code,
/// is compiled again with `-rdc=true` (its PTX is then linked with `libcudadevrt.a` when it
/// loads, see [`crate::load_ptx`]).
///
/// `Error::NoNvrtc` when the library is missing (where cudarc would panic), `Error::Compile`
/// with NVRTC's log when the source does not compile.
pub fn compile_cuda(
    path: &str,
    source: &str,
    arch: (i32, i32),
    kernel: KernelName,
) -> Result<String, Error> {
    use cudarc::nvrtc::{compile_ptx_with_opts, CompileError, CompileOptions};
    if source.contains('\0') {
        // cudarc would panic turning it into a C string.
        return Err(Error::Compile {
            kernel,
            log: format!("{path} contains a NUL byte"),
        });
    }
    if !nvrtc_present() {
        return Err(Error::NoNvrtc { kernel });
    }
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let compile = |rdc: bool| {
        let mut options = vec![format!("--gpu-architecture=compute_{}{}", arch.0, arch.1)];
        if rdc {
            options.push("-rdc=true".to_string());
        }
        let opts = CompileOptions {
            name: Some(name.replace('\0', "")),
            options,
            ..Default::default()
        };
        compile_ptx_with_opts(source, opts)
    };
    let mut result = compile(false);
    if let Err(CompileError::CompileError { log, .. }) = &result {
        // NVRTC declares the CUDA device runtime (`cudaGraphKernelNodeSetParam`, …) only for
        // relocatable code: such a source compiles again with -rdc=true, and its PTX is linked
        // with libcudadevrt when it loads.
        let log = log.to_string_lossy();
        if log.contains("identifier \"cuda") && log.contains("is undefined") {
            result = compile(true);
        }
    }
    match result {
        Ok(ptx) => Ok(ptx.to_src()),
        Err(CompileError::CompileError { log, options, .. }) => Err(Error::Compile {
            kernel,
            log: format!(
                "{}\n(NVRTC options: {})",
                log.to_string_lossy().trim_end(),
                options.join(" ")
            ),
        }),
        Err(other) => Err(Error::Compile {
            kernel,
            log: format!("{other}"),
        }),
    }
}

/// What the runtime learns or sets once per `CUfunction` (shared memory opt-in, non-portable
/// clusters, parameter sizes), for typed and `dyn` launches alike.
///
/// Keyed by the function handle in a fixed table read without a lock: a lookup is a few atomic
/// loads. Entries are never removed. `#[kernel]` modules are never unloaded, so their handles
/// are never reused; a handle of a module the user loaded, dropped and replaced could come back
/// for another function and find the old entry: a shared-memory opt-in then looks done (the
/// driver refuses the launch: an error, not a wrong launch) and the `dyn` parameter check
/// compares with the old function's sizes.
pub(crate) struct FunctionInfo {
    key: AtomicUsize,
    /// The dynamic shared memory the function is opted into.
    pub(crate) shared: SharedOptIn,
    /// Whether `CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED` is set.
    pub(crate) non_portable: AtomicBool,
    /// Each parameter's size from `cuFuncGetParamInfo`; `None` where that call is missing.
    pub(crate) params: OnceLock<Option<Box<[u32]>>>,
}

impl FunctionInfo {
    const fn new(key: usize) -> Self {
        Self {
            key: AtomicUsize::new(key),
            shared: SharedOptIn::new(),
            non_portable: AtomicBool::new(false),
            params: OnceLock::new(),
        }
    }

    /// `func`'s parameter sizes (`cuFuncGetParamInfo`, asked once; `ctx`, the function's
    /// context, is made current for that call); `None` where the driver lacks the call. A
    /// failure leaves them unknown, as if the call were missing.
    pub(crate) fn param_sizes(
        &'static self,
        ctx: &CudaContext,
        func: &CudaFunction,
    ) -> Option<&'static [u32]> {
        self.params
            .get_or_init(|| {
                let _ = ctx.bind_to_thread();
                crate::driver::param_sizes(func)
                    .ok()
                    .flatten()
                    .map(Vec::into_boxed_slice)
            })
            .as_deref()
    }
}

/// How much dynamic shared memory one function allows (its
/// `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`, as far as chevron has checked or set it),
/// raised only, under concurrent launches too.
///
/// A launch asking for at most [`Self::covers`] needs nothing more: one atomic load. A launch
/// asking for more calls [`Self::raise`], which serialises the raises of one function: with two
/// threads asking 64 KiB and 100 KiB at once, each reading the driver's value and then setting
/// its own, the 64 KiB one could set last, leaving the function at 64 KiB while the cache said
/// 100 KiB, and later 100 KiB launches would skip the opt-in and fail. Under the lock the driver's
/// value is read after every earlier raise of the function has finished, so it only grows, and
/// the cache is published (with `Release`) only after the driver has the value.
pub(crate) struct SharedOptIn {
    covered: AtomicU32,
    raising: Mutex<()>,
}

impl SharedOptIn {
    pub(crate) const fn new() -> Self {
        Self {
            covered: AtomicU32::new(0),
            raising: Mutex::new(()),
        }
    }

    /// Whether launches of `bytes` need nothing more: the function allows at least that much.
    #[inline]
    pub(crate) fn covers(&self, bytes: u32) -> bool {
        bytes <= self.covered.load(Ordering::Acquire)
    }

    /// Makes the function allow `bytes`: `allowed` reads what it allows now (and may refuse
    /// `bytes`, e.g. over the device's limit), `set` raises that to `bytes`. Both run with this
    /// function's raises serialised, and not at all when another raise already covered `bytes`.
    pub(crate) fn raise<E>(
        &self,
        bytes: u32,
        allowed: impl FnOnce() -> Result<u32, E>,
        set: impl FnOnce(u32) -> Result<(), E>,
    ) -> Result<(), E> {
        let _raising = lock(&self.raising);
        if self.covers(bytes) {
            return Ok(());
        }
        if bytes > allowed()? {
            set(bytes)?;
        }
        // Under the lock, after the driver has it; `bytes` is over what was covered.
        self.covered.store(bytes, Ordering::Release);
        Ok(())
    }
}

/// Functions served without a lock; more go to a locked list.
const INFO_SLOTS: usize = 64;

static INFO: [FunctionInfo; INFO_SLOTS] = [const { FunctionInfo::new(0) }; INFO_SLOTS];
static INFO_OVERFLOW: Mutex<Vec<&'static FunctionInfo>> = Mutex::new(Vec::new());

/// The entry of `func`, created on first use.
#[inline]
pub(crate) fn function_info(func: &CudaFunction) -> &'static FunctionInfo {
    let key = func.cu_function() as usize;
    for entry in &INFO {
        match entry.key.load(Ordering::Acquire) {
            k if k == key => return entry,
            // Entries fill in order, so the first empty one ends the search.
            0 => break,
            _ => {}
        }
    }
    function_info_cold(key)
}

#[cold]
fn function_info_cold(key: usize) -> &'static FunctionInfo {
    let mut overflow = lock(&INFO_OVERFLOW);
    for entry in &INFO {
        match entry.key.load(Ordering::Acquire) {
            k if k == key => return entry,
            0 => {
                // Writers hold INFO_OVERFLOW; the other fields are already initialized, so
                // publishing the key publishes a complete entry.
                entry.key.store(key, Ordering::Release);
                return entry;
            }
            _ => {}
        }
    }
    if let Some(entry) = overflow
        .iter()
        .find(|e| e.key.load(Ordering::Relaxed) == key)
    {
        return entry;
    }
    let entry: &'static FunctionInfo = Box::leak(Box::new(FunctionInfo::new(key)));
    overflow.push(entry);
    entry
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptx::{Expected, ParamSig};

    /// Threads raising one function's shared memory to different sizes at once, against a fake
    /// driver attribute that reads, yields and then writes (the window where the unserialised
    /// protocol lost the larger value): after every round the attribute is the largest size asked,
    /// and every raise returned only once the attribute covered its own size.
    #[test]
    fn concurrent_shared_memory_raises_only_grow() {
        use std::sync::Barrier;
        const THREADS: usize = 8;
        const ROUNDS: usize = 200;
        // 48 KiB, the default, then sizes whose largest is asked by a thread in the middle.
        let sizes: [u32; THREADS] = [64, 100, 72, 227, 80, 96, 200, 49].map(|k| k * 1024);
        let largest = *sizes.iter().max().unwrap();
        for round in 0..ROUNDS {
            let opt_in = SharedOptIn::new();
            let attribute = AtomicU32::new(48 * 1024);
            let sets = AtomicUsize::new(0);
            let start = Barrier::new(THREADS);
            std::thread::scope(|scope| {
                for (t, &bytes) in sizes.iter().enumerate() {
                    let (opt_in, attribute, sets, start) = (&opt_in, &attribute, &sets, &start);
                    scope.spawn(move || {
                        start.wait();
                        // Rotate who goes first from round to round.
                        for _ in 0..(t + round) % THREADS {
                            std::thread::yield_now();
                        }
                        if opt_in.covers(bytes) {
                            return;
                        }
                        let r: Result<(), ()> = opt_in.raise(
                            bytes,
                            || {
                                let now = attribute.load(Ordering::SeqCst);
                                std::thread::yield_now();
                                Ok(now)
                            },
                            |b| {
                                std::thread::yield_now();
                                attribute.store(b, Ordering::SeqCst);
                                sets.fetch_add(1, Ordering::SeqCst);
                                Ok(())
                            },
                        );
                        r.unwrap();
                        let now = attribute.load(Ordering::SeqCst);
                        assert!(
                            now >= bytes,
                            "round {round}: raised to {bytes}, attribute {now}"
                        );
                    });
                }
            });
            let now = attribute.load(Ordering::SeqCst);
            assert_eq!(now, largest, "round {round}: the attribute shrank");
            assert!(opt_in.covers(largest) && !opt_in.covers(largest + 1));
            // Each set raised the attribute: at most one per distinct size, at least one.
            let sets = sets.load(Ordering::SeqCst);
            assert!((1..=THREADS).contains(&sets), "round {round}: {sets} sets");
        }
    }

    /// A refused raise (over the device's limit) changes nothing; a later smaller one works.
    #[test]
    fn a_refused_raise_leaves_the_opt_in_as_it_was() {
        let opt_in = SharedOptIn::new();
        let r: Result<(), &str> = opt_in.raise(300 * 1024, || Err("over the limit"), |_| Ok(()));
        assert_eq!(r, Err("over the limit"));
        assert!(!opt_in.covers(1));
        let mut set = None;
        let r: Result<(), &str> = opt_in.raise(
            64 * 1024,
            || Ok(48 * 1024),
            |b| {
                set = Some(b);
                Ok(())
            },
        );
        assert_eq!((r, set), (Ok(()), Some(64 * 1024)));
        assert!(opt_in.covers(64 * 1024) && !opt_in.covers(64 * 1024 + 1));
        // Already allowed by the driver: recorded without a set.
        let r: Result<(), &str> =
            opt_in.raise(90 * 1024, || Ok(96 * 1024), |_| Err("no set expected"));
        assert_eq!(r, Ok(()));
        assert!(opt_in.covers(90 * 1024));
    }

    const HISTOGRAM: &[ParamSig] = &[
        ParamSig {
            name: "bins",
            ty: "&mut CudaSlice<u32>",
            expected: Expected::Pointer,
        },
        ParamSig {
            name: "data",
            ty: "&CudaView<'_, u8>",
            expected: Expected::Pointer,
        },
        ParamSig {
            name: "len",
            ty: "u32",
            expected: Expected::Int(32),
        },
    ];

    // What NVRTC makes of kernels/histogram.cu (entry and parameters as nvcc writes them).
    const HISTOGRAM_PTX: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\
        .visible .entry histogram(\n\t.param .u64 histogram_param_0,\n\
        \t.param .u64 histogram_param_1,\n\t.param .u32 histogram_param_2\n)\n{\n\tret;\n}\n";

    #[test]
    fn nvrtc_output_is_checked_against_the_declaration() {
        static OK: Kernel = Kernel::cuda("histogram", None, "/k/histogram.cu", "", HISTOGRAM);
        assert_eq!(OK.check_nvrtc_output(HISTOGRAM_PTX).unwrap(), "histogram");

        const WRONG: &[ParamSig] = &[HISTOGRAM[0], HISTOGRAM[1]];
        static SHORT: Kernel = Kernel::cuda("histogram", None, "/k/histogram.cu", "", WRONG);
        match SHORT.check_nvrtc_output(HISTOGRAM_PTX) {
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
            ParamSig {
                name: "len",
                ty: "f32",
                expected: Expected::Float(32),
            },
        ];
        static FLOATY: Kernel = Kernel::cuda("histogram", None, "/k/histogram.cu", "", FLOAT);
        let err = FLOATY.check_nvrtc_output(HISTOGRAM_PTX).unwrap_err();
        assert!(
            err.to_string().contains("`len: f32` is a 32-bit float"),
            "{err}"
        );

        static MISSING: Kernel = Kernel::cuda("hist", None, "/k/histogram.cu", "", HISTOGRAM);
        let err = MISSING.check_nvrtc_output(HISTOGRAM_PTX).unwrap_err();
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
        let e = K.missing("histogrm", DriverError(E::CUDA_ERROR_NOT_FOUND));
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
        let e = K.missing("histogrm", DriverError(E::CUDA_ERROR_INVALID_CONTEXT));
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
        K.check_nvrtc_output(BOUNDED)
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
