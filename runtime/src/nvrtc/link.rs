//! Loading PTX that calls the CUDA device runtime: such a module (`nvcc -ptx -rdc=true`, for
//! kernels that update graph nodes from the device with `cudaGraphKernelNodeSetParam`, or launch
//! kernels themselves) declares functions only `libcudadevrt.a` defines, which
//! `cuModuleLoadData` cannot resolve. [`load_ptx`] links it with that library through the
//! driver's linker (`cuLink*`) first; `#[kernel]` declarations do the same on their own.

use std::ffi::CString;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use cudarc::driver::{CudaContext, CudaModule};
use cudarc::nvrtc::Ptx;

use crate::driver;
use crate::driver::device::ensure_driver;
use crate::error::{Error, KernelName};

/// The environment variable naming `libcudadevrt.a` itself, checked first.
pub const CUDADEVRT_VAR: &str = "CHEVRON_CUDADEVRT";

/// Environment variables naming a CUDA toolkit, checked in this order.
const TOOLKIT_VARS: [&str; 4] = [
    "CUDA_HOME",
    "CUDA_PATH",
    "CUDA_ROOT",
    "CUDA_TOOLKIT_ROOT_DIR",
];

/// Toolkit directories tried after the variables.
const TOOLKIT_DIRS: [&str; 2] = ["/usr/local/cuda", "/opt/cuda"];

/// Where a toolkit keeps the library, relative to its root.
const IN_TOOLKIT: [&str; 5] = [
    "lib64/libcudadevrt.a",
    "lib/libcudadevrt.a",
    "targets/x86_64-linux/lib/libcudadevrt.a",
    "targets/sbsa-linux/lib/libcudadevrt.a",
    "lib/x64/cudadevrt.lib",
];

/// Where `libcudadevrt.a` is on this machine, the CUDA device runtime library that PTX calling
/// device-runtime functions is linked with. Looked for, once per process, at `$CHEVRON_CUDADEVRT`,
/// then in the toolkit named by `CUDA_HOME`, `CUDA_PATH`, `CUDA_ROOT` or
/// `CUDA_TOOLKIT_ROOT_DIR`, then in `/usr/local/cuda`, `/opt/cuda`, and the toolkit of the
/// `nvcc` on `PATH` (`lib64/`, `lib/`, `targets/*/lib/`), then in
/// `/usr/lib/x86_64-linux-gnu`.
///
/// `Error::NoDeviceRuntime`, listing the places tried, when it is in none of them.
pub fn cudadevrt() -> Result<PathBuf, Error> {
    cudadevrt_for(KernelName(None))
}

/// [`cudadevrt`], with the kernel that needs it in the error.
fn cudadevrt_for(kernel: KernelName) -> Result<PathBuf, Error> {
    static FOUND: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    FOUND
        .get_or_init(find_cudadevrt)
        .clone()
        .map_err(|searched| Error::NoDeviceRuntime { kernel, searched })
}

fn find_cudadevrt() -> Result<PathBuf, String> {
    let mut tried: Vec<PathBuf> = Vec::new();
    if let Some(file) = std::env::var_os(CUDADEVRT_VAR) {
        tried.push(PathBuf::from(file));
    }
    let mut roots: Vec<PathBuf> = TOOLKIT_VARS
        .iter()
        .filter_map(std::env::var_os)
        .map(PathBuf::from)
        .collect();
    roots.extend(TOOLKIT_DIRS.iter().map(PathBuf::from));
    if let Some(path) = std::env::var_os("PATH") {
        // `…/bin/nvcc` → `…`
        roots.extend(
            std::env::split_paths(&path)
                .filter(|dir| dir.join("nvcc").is_file() || dir.join("nvcc.exe").is_file())
                .filter_map(|bin| bin.parent().map(PathBuf::from)),
        );
    }
    for root in &roots {
        tried.extend(IN_TOOLKIT.iter().map(|rel| root.join(rel)));
    }
    tried.push(PathBuf::from("/usr/lib/x86_64-linux-gnu/libcudadevrt.a"));
    match tried.iter().find(|p| p.is_file()) {
        Some(found) => Ok(found.clone()),
        None => Err(tried
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")),
    }
}

/// Loads PTX text into a module of `ctx`: `cuModuleLoadData` for ordinary PTX; PTX that calls
/// the CUDA device runtime (relocatable code from `nvcc -ptx -rdc=true`, see
/// [`ptx::device_runtime_calls`](crate::ptx::device_runtime_calls)) is first linked with
/// [`cudadevrt`] by the driver's linker and the resulting cubin loaded. `name` names the PTX in
/// the linker's messages.
///
/// ```no_run
/// # fn main() -> Result<(), chevron::Error> {
/// let ctx = chevron::context(0)?;
/// let ptx = std::fs::read_to_string("kernels/device_update.ptx").expect("the PTX");
/// let module = chevron::load_ptx(&ctx, "device_update.ptx", &ptx)?;
/// let retarget = module.load_function("retarget")?;
/// # let _ = retarget; Ok(()) }
/// ```
///
/// `Error::NoDriver` without a CUDA driver; `Error::Signature` for text with a NUL byte;
/// `Error::NoDeviceRuntime` when the module needs `libcudadevrt.a` and it is not found;
/// `Error::Link` with the linker's log when linking fails; `Error::Driver` naming
/// `cuModuleLoadData` when loading does.
pub fn load_ptx(ctx: &Arc<CudaContext>, name: &str, ptx: &str) -> Result<Arc<CudaModule>, Error> {
    ensure_driver()?;
    load(ctx, name, ptx.to_string(), KernelName(None))
}

/// [`load_ptx`] for a kernel's module, taking the text.
pub(crate) fn load(
    ctx: &Arc<CudaContext>,
    name: &str,
    text: String,
    kernel: KernelName,
) -> Result<Arc<CudaModule>, Error> {
    let not_ptx = || Error::Signature {
        kernel,
        message: format!("{name} contains a NUL byte and is not valid PTX"),
    };
    if text.contains('\0') {
        // cudarc would panic turning it into a C string.
        return Err(not_ptx());
    }
    if crate::ptx::device_runtime_calls(&text).is_empty() {
        return ctx.load_module(Ptx::from_src(text.clone())).map_err(|e| {
            param_space_error(ctx, name, &text, kernel)
                .unwrap_or_else(|| Error::driver("cuModuleLoadData", kernel, e))
        });
    }
    let image = cubin(ctx, name, &text, kernel)?;
    load_image(ctx, image, kernel)
}

/// Why a module did not load, where its cause is a kernel whose parameters take more bytes
/// than this driver and GPU allow (4,096 before CUDA 12.1 or before Volta; 32,764 since):
/// `Error::Signature` naming the kernel, its bytes and the limit. Read on the error path only.
#[cold]
fn param_space_error(
    ctx: &Arc<CudaContext>,
    name: &str,
    text: &str,
    kernel: KernelName,
) -> Option<Error> {
    let version = crate::driver::driver_version().ok()?;
    let (major, _) = ctx.compute_capability().ok()?;
    let limit = chevron_cuda_rules::limits::max_param_bytes(version, u32::try_from(major).ok()?);
    let entries = crate::ptx::parse_entries(text).ok()?;
    let over = entries.iter().find(|e| e.param_bytes() > limit)?;
    Some(Error::Signature {
        kernel,
        message: format!(
            "the parameters of `{}` in {name} take {} bytes, more than the {limit} this \
             driver (CUDA {}.{}) allows on a GPU of compute capability {major}.x; {} bytes \
             need CUDA 12.1 or newer and a Volta or newer GPU",
            over.display_name(),
            over.param_bytes(),
            version / 1000,
            version % 1000 / 10,
            chevron_cuda_rules::limits::MAX_PARAM_BYTES
        ),
    })
}

/// Machine code for `ctx`'s device from PTX text, by the driver's linker (its JIT compiler), with
/// [`cudadevrt`] when the PTX calls the CUDA device runtime.
pub(crate) fn cubin(
    ctx: &Arc<CudaContext>,
    name: &str,
    text: &str,
    kernel: KernelName,
) -> Result<Vec<u8>, Error> {
    let not_ptx = || Error::Signature {
        kernel,
        message: format!("{name} contains a NUL byte and is not valid PTX"),
    };
    let calls = crate::ptx::device_runtime_calls(text).join(", ");
    let library = if calls.is_empty() {
        None
    } else {
        Some(cudadevrt_for(kernel)?)
    };
    let c_text = CString::new(text).map_err(|_| not_ptx())?;
    let c_name = CString::new(name.replace('\0', "")).unwrap_or_default();
    // A found file's path holds no NUL.
    let c_libraries: Vec<CString> = library
        .iter()
        .map(|l| CString::new(l.to_string_lossy().into_owned()).unwrap_or_default())
        .collect();
    ctx.bind_to_thread()
        .map_err(|e| Error::driver("cuCtxSetCurrent", kernel, e))?;
    driver::link(&c_text, &c_name, &c_libraries).map_err(|f| Error::Link {
        kernel,
        call: f.call,
        log: match &library {
            Some(library) => format!(
                "{name} calls the CUDA device runtime ({}), linked with {}{}{}",
                calls,
                library.display(),
                if f.log.is_empty() { "" } else { ":\n" },
                f.log
            ),
            None => format!(
                "{name}{}{}",
                if f.log.is_empty() { "" } else { ":\n" },
                f.log
            ),
        },
        source: f.source,
    })
}

/// Loads machine code (a cubin) into a module of `ctx`.
pub(crate) fn load_image(
    ctx: &Arc<CudaContext>,
    image: Vec<u8>,
    kernel: KernelName,
) -> Result<Arc<CudaModule>, Error> {
    ctx.load_module(Ptx::from_binary(image))
        .map_err(|e| Error::driver("cuModuleLoadData", kernel, e))
}
