//! One NVRTC program: chevron's options and the declaration's, the compile call (again with
//! `-rdc=true` for the device runtime), its log, and what a failed compile's log means.

use std::ffi::{c_char, c_int, CStr, CString};

use cudarc::nvrtc::sys::{self as nv, nvrtcResult};

use super::toolkit::{toolkit, CUDA_INCLUDE_VAR};
use super::{nvrtc_present, nvrtc_version, CudaProgram};
use crate::error::{Error, KernelName};

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
