//! NVRTC for `cuda = "…"` kernels: the program with its embedded headers, the declaration's
//! options and a C++ name expression for a template instance; the CUDA toolkit's headers found
//! at run time; the code compiled for the device's own architecture, and kept in the disk cache
//! ([`crate::nvrtc_cache`]) so that a second start of the program skips NVRTC.

use std::ffi::{c_char, c_int, CStr, CString};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use chevron_cuda_spec::target::{self, Version};
use cudarc::driver::CudaContext;
use cudarc::nvrtc::sys::{self as nv, nvrtcResult};

use crate::error::{Error, KernelName};
use crate::nvrtc_cache::{self, CacheKey, Entry};

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
    nvrtc_cache::dir()
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

/// The CUDA toolkit's include directories for NVRTC (`<cuda_fp16.h>`, `<cooperative_groups.h>`,
/// and CCCL's `<cuda/std/…>`), found once per process, with every place looked at.
pub(crate) struct Toolkit {
    /// The directories passed as `--include-path`: the toolkit's `include/` and its `cccl/`.
    pub(crate) dirs: Vec<PathBuf>,
    /// Every directory looked at, in order, for the error when a header is missing.
    pub(crate) looked: Vec<PathBuf>,
}

/// The variable naming the CUDA include directory, checked first.
pub const CUDA_INCLUDE_VAR: &str = "CHEVRON_CUDA_INCLUDE";

pub(crate) fn toolkit() -> &'static Toolkit {
    static FOUND: OnceLock<Toolkit> = OnceLock::new();
    FOUND.get_or_init(find_toolkit)
}

fn find_toolkit() -> Toolkit {
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(dir) = std::env::var_os(CUDA_INCLUDE_VAR) {
        candidates.push(PathBuf::from(dir));
    }
    // The toolkit of the libnvrtc this process loaded (a pip install's `nvidia/cu13/lib`, a
    // toolkit's `lib64`): its headers match that NVRTC.
    for lib in loaded_nvrtc_dirs() {
        candidates.push(lib.join("../include"));
    }
    for var in [
        "CUDA_PATH",
        "CUDA_HOME",
        "CUDA_ROOT",
        "CUDA_TOOLKIT_ROOT_DIR",
    ] {
        if let Some(root) = std::env::var_os(var) {
            candidates.push(PathBuf::from(root).join("include"));
        }
    }
    candidates.push(PathBuf::from("/usr/local/cuda/include"));
    candidates.push(PathBuf::from("/opt/cuda/include"));
    if let Some(path) = std::env::var_os("PATH") {
        for bin in std::env::split_paths(&path) {
            if bin.join("nvcc").is_file() || bin.join("nvcc.exe").is_file() {
                candidates.push(bin.join("../include"));
            }
        }
    }
    // A Python environment with the CUDA pip packages.
    for var in ["VIRTUAL_ENV", "CONDA_PREFIX"] {
        if let Some(env) = std::env::var_os(var) {
            candidates.extend(pip_include_dirs(Path::new(&env)));
        }
    }
    let mut looked = Vec::new();
    for dir in candidates {
        let dir = dir.canonicalize().unwrap_or(dir);
        if looked.contains(&dir) {
            continue;
        }
        looked.push(dir.clone());
        if dir.join("cuda_fp16.h").is_file() || dir.join("cuda_runtime.h").is_file() {
            let mut dirs = vec![dir.clone()];
            // CUDA 13 keeps CCCL (`cuda/std/…`, used by cooperative groups) in `include/cccl`;
            // CUDA 12's pip packages keep it in a sibling package.
            for cccl in [dir.join("cccl"), dir.join("../../cuda_cccl/include")] {
                if cccl.join("cuda").is_dir() {
                    dirs.push(cccl.canonicalize().unwrap_or(cccl));
                }
            }
            return Toolkit { dirs, looked };
        }
    }
    Toolkit {
        dirs: Vec::new(),
        looked,
    }
}

/// `lib/python3.*/site-packages/nvidia/{cu13,cu12,cuda_runtime}/include` under a Python prefix.
fn pip_include_dirs(prefix: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let lib = prefix.join("lib");
    let Ok(entries) = std::fs::read_dir(&lib) else {
        return out;
    };
    for e in entries.flatten() {
        if e.file_name().to_string_lossy().starts_with("python3") {
            let nvidia = e.path().join("site-packages/nvidia");
            for pkg in ["cu13", "cu12", "cuda_runtime"] {
                out.push(nvidia.join(pkg).join("include"));
            }
        }
    }
    out
}

/// The directories of the libnvrtc this process mapped (Linux), else those on `LD_LIBRARY_PATH`
/// holding one.
fn loaded_nvrtc_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    if let Ok(maps) = std::fs::read_to_string("/proc/self/maps") {
        for line in maps.lines() {
            let Some(path) = line.split_whitespace().nth(5) else {
                continue;
            };
            let file = Path::new(path);
            let is_nvrtc = file
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("libnvrtc."));
            if let (true, Some(dir)) = (is_nvrtc, file.parent()) {
                if !dirs.iter().any(|d| d == dir) {
                    dirs.push(dir.to_path_buf());
                }
            }
        }
    }
    if let Some(paths) = std::env::var_os("LD_LIBRARY_PATH") {
        for dir in std::env::split_paths(&paths) {
            let has = std::fs::read_dir(&dir).is_ok_and(|mut r| {
                r.any(|e| {
                    e.is_ok_and(|e| e.file_name().to_string_lossy().starts_with("libnvrtc.so"))
                })
            });
            if has && !dirs.contains(&dir) {
                dirs.push(dir);
            }
        }
    }
    dirs
}

/// What one NVRTC compile gave.
pub(crate) struct Output {
    pub(crate) ptx: String,
    /// Loadable machine code (not for relocatable code, which is linked with libcudadevrt).
    pub(crate) cubin: Option<Vec<u8>>,
    /// The lowered name of the name expression.
    pub(crate) lowered: Option<String>,
}

/// Destroys the program on every path.
struct Program(nv::nvrtcProgram);

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: created by nvrtcCreateProgram, destroyed once.
        let _ = unsafe { nv::nvrtcDestroyProgram(&mut self.0) };
    }
}

/// One NVRTC compile of `source` with `program`'s headers, name expression and `options`.
pub(crate) fn compile_once(
    path: &str,
    source: &str,
    program: &CudaProgram,
    options: &[String],
) -> Result<Output, (String, Option<nvrtcResult>)> {
    let fail = |log: String| (log, None);
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let c_source = CString::new(source).map_err(|_| fail(format!("{path} contains a NUL byte")))?;
    let c_name = CString::new(name).unwrap_or_default();
    let mut header_texts = Vec::with_capacity(program.headers.len());
    let mut header_names = Vec::with_capacity(program.headers.len());
    for (include, text) in program.headers {
        header_names.push(
            CString::new(*include)
                .map_err(|_| fail(format!("header name `{include}` contains a NUL byte")))?,
        );
        header_texts.push(
            CString::new(*text)
                .map_err(|_| fail(format!("header `{include}` contains a NUL byte")))?,
        );
    }
    let texts: Vec<*const c_char> = header_texts.iter().map(|c| c.as_ptr()).collect();
    let names: Vec<*const c_char> = header_names.iter().map(|c| c.as_ptr()).collect();
    let mut raw: nv::nvrtcProgram = std::ptr::null_mut();
    // SAFETY: every pointer is to a NUL-terminated string alive across the call; NVRTC copies.
    let rc = unsafe {
        nv::nvrtcCreateProgram(
            &mut raw,
            c_source.as_ptr(),
            c_name.as_ptr(),
            texts.len() as c_int,
            if texts.is_empty() {
                std::ptr::null()
            } else {
                texts.as_ptr()
            },
            if names.is_empty() {
                std::ptr::null()
            } else {
                names.as_ptr()
            },
        )
    };
    if rc != nvrtcResult::NVRTC_SUCCESS {
        return Err((format!("nvrtcCreateProgram: {rc:?}"), Some(rc)));
    }
    let prog = Program(raw);
    let expression = match program.name_expression {
        Some(e) => {
            let c = CString::new(e).map_err(|_| fail(format!("`{e}` contains a NUL byte")))?;
            // SAFETY: live program, NUL-terminated expression.
            let rc = unsafe { nv::nvrtcAddNameExpression(prog.0, c.as_ptr()) };
            if rc != nvrtcResult::NVRTC_SUCCESS {
                return Err((format!("nvrtcAddNameExpression(`{e}`): {rc:?}"), Some(rc)));
            }
            Some(c)
        }
        None => None,
    };
    let c_options: Vec<CString> = options
        .iter()
        .map(|o| CString::new(o.as_str()).map_err(|_| fail(format!("option `{o}`: NUL byte"))))
        .collect::<Result<_, _>>()?;
    let option_ptrs: Vec<*const c_char> = c_options.iter().map(|c| c.as_ptr()).collect();
    // SAFETY: live program; the options outlive the call.
    let rc = unsafe {
        nv::nvrtcCompileProgram(prog.0, option_ptrs.len() as c_int, option_ptrs.as_ptr())
    };
    if rc != nvrtcResult::NVRTC_SUCCESS {
        return Err((program_log(&prog), Some(rc)));
    }
    let ptx = {
        let mut size = 0usize;
        // SAFETY: live, compiled program; the buffer has `size` bytes.
        let bytes = unsafe {
            if nv::nvrtcGetPTXSize(prog.0, &mut size) != nvrtcResult::NVRTC_SUCCESS {
                return Err(fail("nvrtcGetPTXSize failed".into()));
            }
            let mut buf = vec![0u8; size];
            if nv::nvrtcGetPTX(prog.0, buf.as_mut_ptr() as *mut c_char)
                != nvrtcResult::NVRTC_SUCCESS
            {
                return Err(fail("nvrtcGetPTX failed".into()));
            }
            buf
        };
        let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
        String::from_utf8_lossy(&bytes[..end]).into_owned()
    };
    let cubin = {
        let mut size = 0usize;
        // SAFETY: as above; a program compiled for a virtual architecture has no cubin (size 0
        // or an error).
        unsafe {
            if nv::nvrtcGetCUBINSize(prog.0, &mut size) == nvrtcResult::NVRTC_SUCCESS && size > 0 {
                let mut buf = vec![0u8; size];
                (nv::nvrtcGetCUBIN(prog.0, buf.as_mut_ptr() as *mut c_char)
                    == nvrtcResult::NVRTC_SUCCESS)
                    .then_some(buf)
            } else {
                None
            }
        }
    };
    let lowered = match &expression {
        Some(e) => {
            let mut out: *const c_char = std::ptr::null();
            // SAFETY: the expression was added before compiling; the result lives until the
            // program is destroyed and is copied now.
            let rc = unsafe { nv::nvrtcGetLoweredName(prog.0, e.as_ptr(), &mut out) };
            if rc != nvrtcResult::NVRTC_SUCCESS || out.is_null() {
                return Err(fail(format!(
                    "NVRTC gave no lowered name for `{}` ({rc:?})",
                    e.to_string_lossy()
                )));
            }
            // SAFETY: NUL-terminated, alive until the program is destroyed.
            Some(
                unsafe { CStr::from_ptr(out) }
                    .to_string_lossy()
                    .into_owned(),
            )
        }
        None => None,
    };
    Ok(Output {
        ptx,
        cubin,
        lowered,
    })
}

fn program_log(prog: &Program) -> String {
    let mut size = 0usize;
    // SAFETY: live program; the buffer has `size` bytes.
    unsafe {
        if nv::nvrtcGetProgramLogSize(prog.0, &mut size) != nvrtcResult::NVRTC_SUCCESS {
            return String::new();
        }
        let mut buf = vec![0u8; size];
        if nv::nvrtcGetProgramLog(prog.0, buf.as_mut_ptr() as *mut c_char)
            != nvrtcResult::NVRTC_SUCCESS
        {
            return String::new();
        }
        let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
        String::from_utf8_lossy(&buf[..end]).trim_end().to_string()
    }
}

/// chevron's options, then the declaration's.
fn all_options(arch: &str, program: &CudaProgram) -> Vec<String> {
    let mut options = vec![arch.to_string()];
    for dir in &toolkit().dirs {
        options.push(format!("--include-path={}", dir.display()));
    }
    options.extend(program.options.iter().map(|o| o.to_string()));
    options
}

/// Compiles `source` for `arch` (an `--gpu-architecture=` option) with `program`, again with
/// `-rdc=true` when the source calls the CUDA device runtime (which NVRTC declares only for
/// relocatable code; its PTX is then linked with `libcudadevrt.a`, and its cubin is not used).
/// `Error::Compile` with NVRTC's log and the options, explained where a header was not found
/// or the name expression names no kernel.
pub(crate) fn compile(
    path: &str,
    source: &str,
    program: &CudaProgram,
    arch: &str,
    kernel: KernelName,
) -> Result<Output, Error> {
    if !nvrtc_present() {
        return Err(Error::NoNvrtc { kernel });
    }
    let mut options = all_options(arch, program);
    let mut result = compile_once(path, source, program, &options);
    if let Err((log, _)) = &result {
        if log.contains("identifier \"cuda") && log.contains("is undefined") {
            options.push("-rdc=true".to_string());
            result = compile_once(path, source, program, &options).map(|mut out| {
                out.cubin = None;
                out
            });
        }
    }
    result.map_err(|(log, _)| Error::Compile {
        kernel,
        log: format!(
            "{}{}\n(NVRTC {} options: {})",
            log.trim_end(),
            explain_log(&log, program),
            nvrtc_version(),
            options.join(" ")
        ),
    })
}

/// What a failed compile's log means, where chevron knows more than NVRTC says.
fn explain_log(log: &str, program: &CudaProgram) -> String {
    let mut notes = String::new();
    if let Some(e) = program.name_expression {
        if log.contains("__nv_name_map") {
            notes.push_str(&format!(
                "\nnote: `name = \"{e}\"` is not a kernel of the source: NVRTC reads it as a C++ \
                 expression naming a `__global__` function, such as `softmax<128>` for \
                 `template <int N> __global__ void softmax(…)`"
            ));
        }
    }
    for marker in [
        "could not open source file \"",
        "cannot open source file \"",
    ] {
        let Some(at) = log.find(marker) else { continue };
        let rest = &log[at + marker.len()..];
        let file = rest.split('"').next().unwrap_or_default();
        let tk = toolkit();
        let looked = tk
            .looked
            .iter()
            .map(|d| d.display().to_string())
            .collect::<Vec<_>>()
            .join(", ");
        if tk.dirs.is_empty() {
            notes.push_str(&format!(
                "\nnote: `{file}` is neither embedded (headers included with `#include \"…\"` \
                 next to the `.cu` or under an `-I` directory of the declaration are) nor a \
                 CUDA toolkit header found at run time: no CUDA include directory was found \
                 (looked in {looked}); set {CUDA_INCLUDE_VAR}, CUDA_PATH or CUDA_HOME, or \
                 install the headers (`pip install nvidia-cuda-runtime nvidia-cuda-cccl`)"
            ));
        } else {
            let dirs = tk
                .dirs
                .iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(", ");
            notes.push_str(&format!(
                "\nnote: `{file}` is neither embedded (headers included with `#include \"…\"` \
                 next to the `.cu` or under an `-I` directory of the declaration are) nor in \
                 the CUDA include directories {dirs}"
            ));
        }
        break;
    }
    notes
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
    let dir = nvrtc_cache::dir();
    if let Some(entry) = dir.as_deref().and_then(|d| nvrtc_cache::load(d, &key)) {
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
            crate::link::cubin(ctx, path, &out.ptx, kernel)?
        }
    };
    let compiled = Arc::new(Compiled {
        ptx: out.ptx,
        image,
        lowered: out.lowered,
    });
    if let Some(dir) = dir.as_deref() {
        nvrtc_cache::store(
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
