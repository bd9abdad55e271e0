//! Finding the CUDA toolkit's include directories for NVRTC, once per process, with every place
//! looked at.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

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
