//! What needs the CUDA toolkit at run time: NVRTC (here, `program`, `toolkit`), its disk cache
//! (`cache`), and linking PTX that calls the device runtime against `libcudadevrt.a` (`link`).
//!
//! NVRTC for `cuda = "…"` kernels: the program with its embedded headers, the declaration's
//! options and a C++ name expression for a template instance; the CUDA toolkit's headers found
//! at run time; the code compiled for the device's own architecture, and kept in the disk cache
//! ([`crate::nvrtc::cache`]) so that a second start of the program skips NVRTC.

use std::ffi::c_int;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use chevron_cuda_rules::target::{self, Version};
use cudarc::driver::CudaContext;
use cudarc::nvrtc::sys::{self as nv, nvrtcResult};

use crate::error::{Error, KernelName};
use cache::{CacheKey, Entry};

pub(crate) mod cache;
pub(crate) mod link;
mod program;
mod toolkit;

use program::compile;
use toolkit::toolkit;
pub use toolkit::CUDA_INCLUDE_VAR;

/// What compiling a `cuda = "…"` kernel needs besides its source: the headers it includes
/// (embedded at compile time by `#[kernel]`), NVRTC options, and the C++ name of a template
/// instance.
///
/// ```
/// use chevron::CudaProgram;
/// static PROGRAM: CudaProgram = CudaProgram {
///     headers: &[("common.cuh", "#define BLOCK 256\n")],
///     options: &["-std=c++17", "-DN=128"],
///     name_expression: Some("softmax<128>"),
/// };
/// assert_eq!(PROGRAM.headers[0].0, "common.cuh");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CudaProgram {
    /// Each header as `(name, text)`: the name exactly as the source's `#include "…"` writes it
    /// (NVRTC matches the spelling), the text embedded with `include_str!`.
    pub headers: &'static [(&'static str, &'static str)],
    /// NVRTC options (`-std=c++17`, `--use_fast_math`, `-DN=128`), after chevron's own: the
    /// architecture (the device's) and the CUDA toolkit's include directories.
    pub options: &'static [&'static str],
    /// A C++ expression naming the kernel, such as `softmax<128>` or `ns::scale<float>`: NVRTC
    /// instantiates it and gives its lowered (mangled) name, the entry that is launched.
    pub name_expression: Option<&'static str>,
}

impl CudaProgram {
    /// No headers, no options, no name expression.
    pub const PLAIN: CudaProgram = CudaProgram {
        headers: &[],
        options: &[],
        name_expression: None,
    };
}

/// How many `cuda = "…"` programs this process has compiled with NVRTC, and how many it loaded
/// from the disk cache instead (see [`nvrtc_cache_dir`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NvrtcStats {
    /// Programs compiled by NVRTC.
    pub compiled: u64,
    /// Programs loaded from the disk cache.
    pub from_disk: u64,
}

static COMPILED: AtomicU64 = AtomicU64::new(0);
static FROM_DISK: AtomicU64 = AtomicU64::new(0);

/// [`NvrtcStats`] of this process so far.
pub fn nvrtc_stats() -> NvrtcStats {
    NvrtcStats {
        compiled: COMPILED.load(Ordering::Relaxed),
        from_disk: FROM_DISK.load(Ordering::Relaxed),
    }
}

/// Where compiled `cuda = "…"` kernels are kept between runs: `$CHEVRON_CACHE_DIR`, else
/// `$XDG_CACHE_HOME/chevron`, else `~/.cache/chevron` (`%LOCALAPPDATA%\chevron` on Windows),
/// each with `nvrtc/` below it. `None` when `CHEVRON_NVRTC_CACHE=0` (or `off`) turns the cache
/// off, or no directory is known.
///
/// An entry is keyed by the source, its headers, the options, the name expression, the
/// device's compute capability, the driver's and NVRTC's versions, the CUDA include directory
/// and chevron's version; it holds NVRTC's PTX and the machine code loaded from it. Entries are
/// written atomically (a temporary file renamed); one that does not read back whole is ignored
/// and written again. Deleting the directory is always safe.
pub fn nvrtc_cache_dir() -> Option<PathBuf> {
    cache::dir()
}

/// Whether the NVRTC library can be loaded; checked once per process.
pub fn nvrtc_present() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: only tries to open the library by its usual names.
    *PRESENT.get_or_init(|| unsafe { nv::is_culib_present() })
}

/// NVRTC's version (`nvrtcVersion`); call only when [`nvrtc_present`].
fn nvrtc_version() -> Version {
    static VERSION: OnceLock<Version> = OnceLock::new();
    *VERSION.get_or_init(|| {
        let (mut major, mut minor): (c_int, c_int) = (0, 0);
        // SAFETY: two out-parameters.
        let _ = unsafe { nv::nvrtcVersion(&mut major, &mut minor) };
        Version::new(major.max(0) as u32, minor.max(0) as u32)
    })
}

/// The architectures NVRTC compiles for, as `10 * major + minor` (`nvrtcGetSupportedArchs`).
fn supported_archs() -> &'static [u32] {
    static ARCHS: OnceLock<Vec<u32>> = OnceLock::new();
    ARCHS.get_or_init(|| {
        let mut n: c_int = 0;
        // SAFETY: out-parameter; the array has room for `n` entries.
        unsafe {
            if nv::nvrtcGetNumSupportedArchs(&mut n) != nvrtcResult::NVRTC_SUCCESS || n <= 0 {
                return Vec::new();
            }
            let mut archs = vec![0 as c_int; n as usize];
            if nv::nvrtcGetSupportedArchs(archs.as_mut_ptr()) != nvrtcResult::NVRTC_SUCCESS {
                return Vec::new();
            }
            archs.into_iter().map(|a| a.max(0) as u32).collect()
        }
    })
}

/// The driver's CUDA version (`cuDriverGetVersion`), once per process; `None` if the call fails.
pub(crate) fn driver_version() -> Option<Version> {
    static VERSION: OnceLock<Option<Version>> = OnceLock::new();
    *VERSION.get_or_init(|| {
        let mut v: c_int = 0;
        // SAFETY: one out-parameter; the caller made sure the driver is loaded.
        let rc = unsafe { crate::sys::cuDriverGetVersion(&mut v) };
        (rc == crate::sys::cudaError_enum::CUDA_SUCCESS && v > 0)
            .then(|| Version::from_cuda(v as u32))
    })
}

/// What NVRTC is asked to compile for on a device of compute capability `cc`: its own
/// architecture (`sm_XY`: machine code and PTX) when NVRTC knows it, else PTX for the newest
/// architecture before it that NVRTC knows (`compute_XY`, which the driver compiles further).
fn arch_option(cc: Version, kernel: KernelName, device: &str) -> Result<String, Error> {
    let own = 10 * cc.major + cc.minor;
    let archs = supported_archs();
    if archs.is_empty() || archs.contains(&own) {
        return Ok(format!("--gpu-architecture=sm_{own}"));
    }
    match archs.iter().copied().filter(|&a| a <= own).max() {
        Some(a) => Ok(format!("--gpu-architecture=compute_{a}")),
        None => Err(Error::Incompatible {
            kernel,
            message: format!(
                "NVRTC {} compiles for sm_{} and newer; {device} is sm_{own}: use the \
                 NVRTC of an older CUDA, or `ptx = …` built for it",
                nvrtc_version(),
                archs.iter().min().copied().unwrap_or_default()
            ),
        }),
    }
}

/// A `cuda = "…"` kernel's compiled code for one device: NVRTC's PTX (read for the signature
/// check and the launch rules), the machine code loaded, and the lowered name of its name
/// expression.
pub(crate) struct Compiled {
    pub(crate) ptx: String,
    pub(crate) image: Vec<u8>,
    pub(crate) lowered: Option<String>,
}

/// Compiled code of this process by cache key.
type InProcess = Mutex<Vec<(CacheKey, Arc<Compiled>)>>;
static IN_PROCESS: InProcess = Mutex::new(Vec::new());

/// The compiled code of `source` with `program` for `ctx`'s device: from this process's
/// earlier compiles, else from the disk cache, else compiled by NVRTC (and linked by the driver
/// where NVRTC gave no loadable machine code) and written to the disk cache.
pub(crate) fn compiled(
    ctx: &Arc<CudaContext>,
    path: &'static str,
    source: &str,
    program: &CudaProgram,
    kernel: KernelName,
) -> Result<Arc<Compiled>, Error> {
    if source.contains('\0') {
        return Err(Error::Compile {
            kernel,
            log: format!("{path} contains a NUL byte"),
        });
    }
    if !nvrtc_present() {
        return Err(Error::NoNvrtc { kernel });
    }
    let (major, minor) = ctx
        .compute_capability()
        .map_err(|e| Error::driver("cuDeviceGetAttribute", kernel, e))?;
    let cc = Version::new(major.max(0) as u32, minor.max(0) as u32);
    let arch = arch_option(cc, kernel, &format!("device {}", ctx.ordinal()))?;
    let driver = driver_version();
    let key = cache_key(path, source, program, &arch, cc, driver);
    if let Some((_, hit)) = lock(&IN_PROCESS).iter().find(|(k, _)| *k == key) {
        return Ok(hit.clone());
    }
    let dir = cache::dir();
    if let Some(entry) = dir.as_deref().and_then(|d| cache::load(d, &key)) {
        FROM_DISK.fetch_add(1, Ordering::Relaxed);
        let compiled = Arc::new(Compiled {
            ptx: entry.ptx,
            image: entry.image,
            lowered: entry.lowered,
        });
        lock(&IN_PROCESS).push((key, compiled.clone()));
        return Ok(compiled);
    }
    let out = compile(path, source, program, &arch, kernel)?;
    COMPILED.fetch_add(1, Ordering::Relaxed);
    let image = match out.cubin {
        // Machine code: no JIT, so the PTX's ISA does not matter to the driver (a cubin of a
        // newer minor CUDA version loads on an older driver of the same major version).
        Some(cubin) => cubin,
        None => {
            check_isa(&out.ptx, driver, kernel)?;
            crate::nvrtc::link::cubin(ctx, path, &out.ptx, kernel)?
        }
    };
    let compiled = Arc::new(Compiled {
        ptx: out.ptx,
        image,
        lowered: out.lowered,
    });
    if let Some(dir) = dir.as_deref() {
        cache::store(
            dir,
            &key,
            &Entry {
                ptx: compiled.ptx.clone(),
                image: compiled.image.clone(),
                lowered: compiled.lowered.clone(),
            },
        );
    }
    lock(&IN_PROCESS).push((key, compiled.clone()));
    Ok(compiled)
}

/// `Error::Incompatible` when NVRTC made PTX of an ISA the driver cannot compile further (an
/// NVRTC newer than the driver).
fn check_isa(ptx: &str, driver: Option<Version>, kernel: KernelName) -> Result<(), Error> {
    let (Some(h), Some(driver)) = (target::header(ptx), driver) else {
        return Ok(());
    };
    match h.isa.needs_cuda() {
        Some(needs) if driver < needs => Err(Error::Incompatible {
            kernel,
            message: format!(
                "NVRTC {} makes PTX ISA {}, which needs a CUDA {needs} driver; this driver is \
                 {driver} (feature {}): use an NVRTC no newer than the driver (CUDA {driver}'s)",
                nvrtc_version(),
                h.isa,
                driver.feature()
            ),
        }),
        _ => Ok(()),
    }
}

fn cache_key(
    path: &str,
    source: &str,
    program: &CudaProgram,
    arch: &str,
    cc: Version,
    driver: Option<Version>,
) -> CacheKey {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let nvrtc = nvrtc_version();
    let driver = driver.unwrap_or(Version::new(0, 0));
    let mut parts: Vec<&[u8]> = vec![
        env!("CARGO_PKG_VERSION").as_bytes(),
        name.as_bytes(),
        source.as_bytes(),
        arch.as_bytes(),
    ];
    let numbers = [
        cc.major,
        cc.minor,
        driver.major,
        driver.minor,
        nvrtc.major,
        nvrtc.minor,
    ]
    .map(u32::to_le_bytes);
    parts.extend(numbers.iter().map(|n| n.as_slice()));
    for (include, text) in program.headers {
        parts.push(include.as_bytes());
        parts.push(text.as_bytes());
    }
    parts.push(b"--options--");
    for o in program.options {
        parts.push(o.as_bytes());
    }
    let expression = program.name_expression.unwrap_or("");
    parts.push(b"--name--");
    parts.push(expression.as_bytes());
    let dirs: Vec<String> = toolkit()
        .dirs
        .iter()
        .map(|d| d.display().to_string())
        .collect();
    for d in &dirs {
        parts.push(d.as_bytes());
    }
    CacheKey::of(&parts)
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Compiles CUDA C with NVRTC for compute capability `arch` and returns its PTX: for the
/// device's own architecture (`sm_XY`) when NVRTC knows it. A source that calls the CUDA device
/// runtime, which NVRTC declares only for relocatable code, is compiled again with `-rdc=true`
/// (its PTX is then linked with `libcudadevrt.a` when it loads, see [`crate::load_ptx`]).
///
/// `Error::NoNvrtc` when the library is missing (where cudarc would panic), `Error::Compile`
/// with NVRTC's log when the source does not compile.
pub fn compile_cuda(
    path: &str,
    source: &str,
    arch: (i32, i32),
    kernel: KernelName,
) -> Result<String, Error> {
    if source.contains('\0') {
        // It could not become a C string.
        return Err(Error::Compile {
            kernel,
            log: format!("{path} contains a NUL byte"),
        });
    }
    if !nvrtc_present() {
        return Err(Error::NoNvrtc { kernel });
    }
    let cc = Version::new(arch.0.max(0) as u32, arch.1.max(0) as u32);
    let arch = arch_option(cc, kernel, &format!("compute capability {cc}"))?;
    compile(path, source, &CudaProgram::PLAIN, &arch, kernel).map(|out| out.ptx)
}

/// Compiles `source` with `program` for compute capability `arch` and returns NVRTC's PTX and
/// the lowered name of the program's name expression, without a GPU: for tests and tools that
/// check `cuda = "…"` code where only NVRTC is installed. `Error::NoNvrtc` without NVRTC.
///
/// ```no_run
/// use chevron::{compile_program, CudaProgram, KernelName};
/// static PROGRAM: CudaProgram = CudaProgram {
///     headers: &[("n.cuh", "#define N 4\n")],
///     options: &["-std=c++17"],
///     name_expression: Some("fill<N>"),
/// };
/// let src = "#include \"n.cuh\"\ntemplate <int K> __global__ void fill(int* x) { x[0] = K; }\n";
/// let (ptx, lowered) = compile_program("k.cu", src, &PROGRAM, (9, 0), KernelName(None))?;
/// assert_eq!(lowered.as_deref(), Some("_Z4fillILi4EEvPi"));
/// assert!(ptx.contains(".entry _Z4fillILi4EEvPi"));
/// # Ok::<(), chevron::Error>(())
/// ```
pub fn compile_program(
    path: &str,
    source: &str,
    program: &CudaProgram,
    arch: (i32, i32),
    kernel: KernelName,
) -> Result<(String, Option<String>), Error> {
    if !nvrtc_present() {
        return Err(Error::NoNvrtc { kernel });
    }
    let cc = Version::new(arch.0.max(0) as u32, arch.1.max(0) as u32);
    let arch = arch_option(cc, kernel, &format!("compute capability {cc}"))?;
    let out = compile(path, source, program, &arch, kernel)?;
    Ok((out.ptx, out.lowered))
}
