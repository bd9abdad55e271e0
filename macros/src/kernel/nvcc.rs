//! `nvcc -ptx` of a `cuda = "…"` kernel at compile time, bounded in time and cached by content.
//!
//! - **Bounded.** nvcc runs in its own process group and is killed, with its children (`cicc`,
//!   `ptxas`), after [`timeout`] (`CHEVRON_NVCC_TIMEOUT` seconds, default 60): a compiler that
//!   never returns is an error that says what to do, not a hung `cargo build`.
//! - **Cached.** Each run costs about half a second, on every `cargo check` and `cargo build`.
//!   The PTX is kept on disk ([`cache_dir`]), one entry per file,
//!   nvcc and options, holding the hash of the source and of every file nvcc read for it (its
//!   `-MD` dependency list: headers included, system headers too; the toolkit's own headers
//!   go with nvcc's identity, its path, size and modification time). An entry whose source
//!   and dependencies are unchanged is used without running nvcc.

use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// The flags: PTX for the oldest GPU chevron's launch rules concern (clusters need sm_90).
const OPTIONS: [&str; 2] = ["-ptx", "-arch=sm_90"];

/// The device variable of a name expression's wrapper (see [`Extra`]'s `wrapper`).
pub const INSTANCE: &str = "__chevron_instance";

/// The default bound on one nvcc run.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The cache's format; entries of another version are misses.
const FORMAT: &str = "chevron-nvcc-cache 3";

/// What became of `nvcc -ptx` for a `cuda = "…"` file, for the warning when its rules are known
/// only at run time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NvccOutcome {
    /// nvcc made PTX (`#[kernel]` reads the entry's rules from it), or the cache held it.
    Ran,
    /// `CHEVRON_NVCC=0`: not run, on purpose.
    Disabled,
    /// No nvcc on `PATH`, in `$CUDA_PATH/bin` or `/usr/local/cuda/bin`.
    NotFound,
    /// nvcc ran (or could not be started) and made no PTX.
    Failed,
    /// nvcc's PTX could not be read or lacks the entry (set by the caller, which looks for it).
    NoEntry,
    /// nvcc cannot compile what NVRTC will, for this reason (see `CudaSpec::unmirrored`); not
    /// run.
    Unmirrored(String),
}

/// What the declaration adds to the plain `nvcc -ptx -arch=sm_90` of its file.
#[derive(Default, Clone, PartialEq, Eq, Hash)]
pub struct Extra {
    /// The declaration's preprocessor and language options as nvcc takes them (`-DN=128`,
    /// `-UX`, `-std=c++17`) and its include directories (`-I/abs/dir`).
    pub flags: Vec<String>,
    /// A C++ name expression (`softmax<128>`): the file is compiled through a wrapper that
    /// takes the instance's address, so that nvcc instantiates it.
    pub name_expression: Option<String>,
    /// Define `__CUDACC_RTC__` as NVRTC does, for code that tests it: by a file pre-included
    /// before the declaration's own, that is after nvcc's implicit `cuda_runtime.h` (which
    /// fails under it). Toolkit headers the code includes under it may still fail; nvcc's
    /// failure then leaves the check to the run time, and the warning says why.
    pub rtc: bool,
}

impl Extra {
    fn key(&self) -> String {
        let mut key = self.flags.join("\n");
        if let Some(e) = &self.name_expression {
            key.push_str("\nname ");
            key.push_str(e);
        }
        if self.rtc {
            key.push_str("\nrtc");
        }
        key
    }

    /// The `-I` directories among the flags, in order.
    fn include_dirs(&self) -> Vec<PathBuf> {
        self.flags
            .iter()
            .filter_map(|f| f.strip_prefix("-I"))
            .map(PathBuf::from)
            .collect()
    }

    /// The wrapper compiled instead of the file, for a name expression: a device variable
    /// holding the instance's address makes nvcc instantiate it, and write its lowered name
    /// as the variable's value (`.global .align 8 .u64 __chevron_instance = _Z2tuILj128EEvPf;`),
    /// which finds the entry whatever the expression's spelling.
    fn wrapper(&self, path: &Path) -> Option<String> {
        let expression = self.name_expression.as_ref()?;
        let path = path.to_str().filter(|p| !p.contains(['"', '\\', '\n']))?;
        Some(format!(
            "#include \"{path}\"\n__device__ void* {INSTANCE} = (void*)&{expression};\n"
        ))
    }
}

type Memo = Mutex<Option<HashMap<(PathBuf, Extra), (String, Result<String, NvccOutcome>)>>>;

/// nvcc's result per path, options and content in this process.
static MEMO: Memo = Mutex::new(None);

/// `CHEVRON_NVCC=0`: no compile-time nvcc, on purpose.
pub fn disabled() -> bool {
    #[cfg(test)]
    if OFF.with(std::cell::Cell::get) {
        return true;
    }
    std::env::var_os("CHEVRON_NVCC").is_some_and(|v| v == "0")
}

#[cfg(test)]
thread_local! {
    /// [`without_nvcc`] is running on this thread.
    static OFF: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` as with `CHEVRON_NVCC=0`, on this thread only: the macro's unit tests of
/// `cuda = "…"` expansions hold whether or not the machine has nvcc (the nvcc path is
/// tested by `tests/ui_nvcc.rs` and `tests/cuda_toolchain.rs`).
#[cfg(test)]
pub fn without_nvcc<T>(f: impl FnOnce() -> T) -> T {
    OFF.with(|off| off.set(true));
    let out = f();
    OFF.with(|off| off.set(false));
    out
}

/// `nvcc -ptx -arch=sm_90` of the CUDA C file `path` (whose text is `text`) with the
/// declaration's `extra`, once per path, options and content in this process and cached on disk
/// across builds. `Ok(None)` without nvcc, when it refuses the file, or with `CHEVRON_NVCC=0`
/// ([`outcome`] says which); `Err` with the message for a run that timed out or a bad
/// `CHEVRON_NVCC_TIMEOUT`.
pub fn ptx(path: &Path, text: &str, extra: &Extra) -> Result<Option<String>, String> {
    if disabled() {
        return Ok(None);
    }
    let mut guard = MEMO.lock().unwrap_or_else(PoisonError::into_inner);
    let memo = guard.get_or_insert_with(HashMap::new);
    let memo_key = (path.to_path_buf(), extra.clone());
    if let Some((cached, ptx)) = memo.get(&memo_key) {
        if cached == text {
            return Ok(ptx.clone().ok());
        }
    }
    let ptx = match find_nvcc() {
        None => Err(NvccOutcome::NotFound),
        Some(nvcc) => compile(&nvcc, path, text, extra)?,
    };
    memo.insert(memo_key, (text.to_string(), ptx.clone()));
    Ok(ptx.ok())
}

/// What [`ptx`] found for `path` (with any options): [`NvccOutcome::Ran`] when it gave PTX.
pub fn outcome(path: &Path) -> NvccOutcome {
    if disabled() {
        return NvccOutcome::Disabled;
    }
    let guard = MEMO.lock().unwrap_or_else(PoisonError::into_inner);
    let mut found = NvccOutcome::Disabled;
    for ((p, _), (_, result)) in guard.iter().flatten() {
        if p == path {
            match result {
                Ok(_) => return NvccOutcome::Ran,
                Err(outcome) => found = outcome.clone(),
            }
        }
    }
    found
}

/// The PTX of `path` from the disk cache, or from a run of `nvcc` (then stored);
/// `Err(Failed)` when nvcc refuses the file, `Err(Disabled)` when a name expression's wrapper
/// cannot name the path (no compile-time check then).
fn compile(
    nvcc: &Nvcc,
    path: &Path,
    text: &str,
    extra: &Extra,
) -> Result<Result<String, NvccOutcome>, String> {
    let wrapper = match &extra.name_expression {
        Some(_) => match extra.wrapper(path) {
            Some(w) => Some(w),
            // A path no `#include` can name: no compile-time check.
            None => return Ok(Err(NvccOutcome::Disabled)),
        },
        None => None,
    };
    let timeout = timeout()?;
    let entry = cache_dir().map(|dir| dir.join(entry_name(nvcc, path, extra)));
    let source_hash = hash_bytes(text.as_bytes());
    if let Some(hit) = entry.as_deref().and_then(|e| lookup(e, &source_hash)) {
        return Ok(Ok(hit));
    }
    let run = run(&nvcc.path, path, extra, wrapper.as_deref(), timeout)?;
    if let (Some(entry), Some(deps), Some(ptx)) = (&entry, &run.deps, &run.ptx) {
        // The toolkit's own headers change with nvcc, which the entry's name covers.
        let toolkit = nvcc.path.parent().and_then(Path::parent);
        let deps: Vec<PathBuf> = deps
            .iter()
            .filter(|d| toolkit.is_none_or(|t| !d.starts_with(t)))
            .cloned()
            .collect();
        let absent = shadowing_candidates(path, text, &deps, &extra.include_dirs());
        store(entry, &source_hash, &deps, &absent, ptx);
    }
    Ok(run.ptx.ok_or(NvccOutcome::Failed))
}

/// `CHEVRON_NVCC_TIMEOUT` (seconds, may be fractional) or [`DEFAULT_TIMEOUT`].
pub fn timeout() -> Result<Duration, String> {
    parse_timeout(
        std::env::var_os("CHEVRON_NVCC_TIMEOUT").map(|v| v.to_string_lossy().into_owned()),
    )
}

fn parse_timeout(value: Option<String>) -> Result<Duration, String> {
    let Some(text) = value else {
        return Ok(DEFAULT_TIMEOUT);
    };
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s > 0.0 && *s < 1e9)
        .map(Duration::from_secs_f64)
        .ok_or_else(|| {
            format!(
                "`CHEVRON_NVCC_TIMEOUT={text}` is not a number of seconds: set it to how long \
                 the compile-time `nvcc` of a `cuda = \"…\"` kernel may take (default {})",
                DEFAULT_TIMEOUT.as_secs()
            )
        })
}

/// The nvcc found, and what identifies its version without running it.
struct Nvcc {
    path: PathBuf,
    /// Size and modification time of the binary: an upgraded toolkit is another nvcc.
    identity: String,
}

/// The first of `nvcc` on `PATH`, `$CUDA_PATH/bin/nvcc`, `/usr/local/cuda/bin/nvcc` that is a
/// file.
fn find_nvcc() -> Option<Nvcc> {
    let name = if cfg!(windows) { "nvcc.exe" } else { "nvcc" };
    let mut candidates: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).map(|d| d.join(name)).collect())
        .unwrap_or_default();
    if let Some(cuda) = std::env::var_os("CUDA_PATH") {
        candidates.push(PathBuf::from(cuda).join("bin").join(name));
    }
    candidates.push(PathBuf::from("/usr/local/cuda/bin").join(name));
    candidates.into_iter().find_map(|path| {
        let meta = std::fs::metadata(&path).ok().filter(|m| m.is_file())?;
        let modified = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        let identity = format!("{} {} {modified}", path.display(), meta.len());
        Some(Nvcc { path, identity })
    })
}

/// Where entries are kept: `CHEVRON_NVCC_CACHE` if set (empty or `0`: no cache), else
/// `chevron-nvcc/` in the target directory: `CARGO_TARGET_DIR` if set, else the nearest
/// `target/` holding Cargo's `CACHEDIR.TAG` above the crate (`cargo clean` removes it).
pub fn cache_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("CHEVRON_NVCC_CACHE") {
        return (!dir.is_empty() && dir != "0").then(|| PathBuf::from(dir));
    }
    if let Some(target) = std::env::var_os("CARGO_TARGET_DIR").filter(|d| !d.is_empty()) {
        let target = PathBuf::from(target);
        let target = if target.is_absolute() {
            target
        } else {
            PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR")?).join(target)
        };
        return Some(target.join("chevron-nvcc"));
    }
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR")?);
    manifest
        .ancestors()
        .map(|d| d.join("target"))
        .find(|t| t.join("CACHEDIR.TAG").is_file())
        .map(|t| t.join("chevron-nvcc"))
}

/// One entry per source path, nvcc and options: a changed file replaces its entry.
fn entry_name(nvcc: &Nvcc, path: &Path, extra: &Extra) -> String {
    let key = format!(
        "{FORMAT}\n{}\n{}\n{}\n{}",
        nvcc.identity,
        OPTIONS.join(" "),
        extra.key(),
        path.display()
    );
    let stem = path
        .file_stem()
        .map(|s| {
            s.to_string_lossy()
                .replace(|c: char| !c.is_ascii_alphanumeric(), "_")
        })
        .unwrap_or_default();
    format!("{stem}-{}.entry", hash_bytes(key.as_bytes()))
}

/// 128 bits of SipHash (two keyed runs) as hex: a content hash for the cache, stable within a
/// Rust toolchain (another toolchain's entries are misses).
fn hash_bytes(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(32);
    for seed in [0x63_68_65_76_u64, 0x72_6f_6e_21] {
        let mut h = DefaultHasher::new();
        seed.hash(&mut h);
        bytes.hash(&mut h);
        let _ = write!(out, "{:016x}", h.finish());
    }
    out
}

/// The cached PTX in `entry`, if its source hash is `source_hash` and every dependency it
/// lists still has the content it had; `None` for a miss.
fn lookup(entry: &Path, source_hash: &str) -> Option<String> {
    let text = std::fs::read_to_string(entry).ok()?;
    let (header, ptx) = text.split_once("\n\n")?;
    let mut lines = header.lines();
    if lines.next()? != FORMAT || lines.next()? != format!("source {source_hash}") {
        return None;
    }
    let outcome = lines.next()?;
    for line in lines {
        if let Some(path) = line.strip_prefix("absent ") {
            // A header placed where nvcc would look before the one it read.
            if Path::new(path).exists() {
                return None;
            }
            continue;
        }
        let (hash, path) = line.strip_prefix("dep ")?.split_once(' ')?;
        if hash_file(Path::new(path))? != hash {
            return None;
        }
    }
    (outcome == "ptx").then(|| ptx.to_string())
}

/// The content hash of a file, once per file, size and modification time in this process:
/// the entries of one crate's kernels share most of their headers.
fn hash_file(path: &Path) -> Option<String> {
    type Memo = Mutex<Option<HashMap<PathBuf, (u64, Option<std::time::SystemTime>, String)>>>;
    static MEMO: Memo = Mutex::new(None);
    let meta = std::fs::metadata(path).ok()?;
    let (len, modified) = (meta.len(), meta.modified().ok());
    let mut guard = MEMO.lock().unwrap_or_else(PoisonError::into_inner);
    let memo = guard.get_or_insert_with(HashMap::new);
    if let Some((l, m, hash)) = memo.get(path) {
        if *l == len && *m == modified && modified.is_some() {
            return Some(hash.clone());
        }
    }
    let hash = hash_bytes(&std::fs::read(path).ok()?);
    memo.insert(path.to_path_buf(), (len, modified, hash.clone()));
    Some(hash)
}

/// Writes an entry (atomically: a temporary file renamed over it). Failures only cost the
/// next build a run of nvcc.
fn store(entry: &Path, source_hash: &str, deps: &[PathBuf], absent: &[PathBuf], ptx: &str) {
    let mut text = format!("{FORMAT}\nsource {source_hash}\nptx\n");
    for dep in deps {
        let Some(hash) = hash_file(dep) else {
            return;
        };
        let Some(path) = dep.to_str().filter(|p| !p.contains('\n')) else {
            return;
        };
        let _ = writeln!(text, "dep {hash} {path}");
    }
    for path in absent {
        let Some(path) = path.to_str().filter(|p| !p.contains('\n')) else {
            return;
        };
        let _ = writeln!(text, "absent {path}");
    }
    text.push('\n');
    text.push_str(ptx);
    let Some(dir) = entry.parent() else { return };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let tmp = entry.with_extension(format!("tmp{}", std::process::id()));
    if std::fs::write(&tmp, text).is_ok() && std::fs::rename(&tmp, entry).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}

/// Where nvcc looked, and found nothing, before the header it read for each `#include` of the
/// source (`source`, its text `text`) and of the headers it read (`deps`, outside the
/// toolkit): for `#include "h"` the including file's directory, then each of `include_dirs`;
/// for `#include <h>` those directories. A file created at one of these paths later would be
/// read instead, so the cache entry lists them, and is a miss once one exists. An include
/// found in none of them (a toolkit header) lists every one.
fn shadowing_candidates(
    source: &Path,
    text: &str,
    deps: &[PathBuf],
    include_dirs: &[PathBuf],
) -> Vec<PathBuf> {
    let mut absent = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut files: Vec<(PathBuf, String)> = vec![(source.to_path_buf(), text.to_string())];
    for dep in deps.iter().filter(|d| d.as_path() != source) {
        if let Ok(t) = super::source::read_source(dep) {
            files.push((dep.clone(), t));
        }
    }
    for (file, text) in &files {
        let dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
        for (name, quoted) in super::source::includes(text) {
            let mut candidates = Vec::new();
            if quoted {
                candidates.push(dir.join(&name));
            }
            candidates.extend(include_dirs.iter().map(|d| d.join(&name)));
            for candidate in candidates {
                if candidate.is_file() {
                    break;
                }
                if seen.insert(candidate.clone()) {
                    absent.push(candidate);
                }
            }
        }
    }
    absent
}

/// What one nvcc run gave.
struct Run {
    /// The PTX, or `None` when nvcc refused the file.
    ptx: Option<String>,
    /// Every file nvcc read, from its `-MD` output (`None` if unreadable: not cached).
    deps: Option<Vec<PathBuf>>,
}

/// Runs `nvcc -ptx -arch=sm_90 -MD` with `flags` on `source` (or on `wrapper`, a file
/// including it), killed after `timeout`.
fn run(
    nvcc: &Path,
    source: &Path,
    extra: &Extra,
    wrapper: Option<&str>,
    timeout: Duration,
) -> Result<Run, String> {
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let base = std::env::temp_dir().join(format!("chevron-nvcc-{}-{n}", std::process::id()));
    let (out, deps_file) = (base.with_extension("ptx"), base.with_extension("d"));
    let wrapper_file = base.with_extension("cu");
    let rtc_file = base.with_extension("rtc.h");
    let mut flags = Vec::new();
    if extra.rtc {
        if std::fs::write(&rtc_file, "#define __CUDACC_RTC__ 1\n").is_err() {
            return Ok(Run {
                ptx: None,
                deps: None,
            });
        }
        flags.push(format!("--pre-include={}", rtc_file.display()));
    }
    flags.extend(extra.flags.iter().cloned());
    let compiled = match wrapper {
        Some(text) => {
            if std::fs::write(&wrapper_file, text).is_err() {
                return Ok(Run {
                    ptx: None,
                    deps: None,
                });
            }
            wrapper_file.as_path()
        }
        None => source,
    };
    let mut cmd = Command::new(nvcc);
    cmd.args(OPTIONS)
        .args(&flags)
        .arg("-MD")
        .arg("-MF")
        .arg(&deps_file)
        .arg("-o")
        .arg(&out)
        .arg(compiled)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let waited = wait_bounded(cmd, timeout);
    if wrapper.is_some() {
        let _ = std::fs::remove_file(&wrapper_file);
    }
    if extra.rtc {
        let _ = std::fs::remove_file(&rtc_file);
    }
    let status = match waited {
        Ok(status) => status,
        Err(Waited::NotStarted) => {
            return Ok(Run {
                ptx: None,
                deps: None,
            })
        }
        Err(Waited::TimedOut) => {
            let _ = std::fs::remove_file(&out);
            let _ = std::fs::remove_file(&deps_file);
            return Err(timeout_message(nvcc, source, timeout));
        }
    };
    let ptx = status
        .success()
        .then(|| std::fs::read_to_string(&out).ok())
        .flatten();
    // The wrapper is gone: the file it includes stands for it.
    let deps = std::fs::read_to_string(&deps_file).ok().map(|d| {
        let mut deps = parse_deps(&d);
        deps.retain(|d| *d != wrapper_file && *d != rtc_file);
        deps
    });
    let _ = std::fs::remove_file(&out);
    let _ = std::fs::remove_file(&deps_file);
    // Only PTX is cached: nvcc lists no dependencies when it fails (a header created later
    // could make the same source compile), so a refused file is tried again at each build.
    let deps = match (&ptx, deps) {
        (Some(_), Some(d)) if !d.is_empty() => Some(d),
        _ => None,
    };
    Ok(Run { ptx, deps })
}

fn timeout_message(nvcc: &Path, source: &Path, timeout: Duration) -> String {
    format!(
        "`{}` did not finish compiling `{}` within {} s, and was stopped; if it needs longer, \
         set `CHEVRON_NVCC_TIMEOUT` to the seconds it may take; to leave the kernel to NVRTC at \
         run time without the compile-time launch checks, set `CHEVRON_NVCC=0`",
        nvcc.display(),
        source.display(),
        format_secs(timeout)
    )
}

fn format_secs(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0}")
    } else {
        format!("{s}")
    }
}

/// Why no exit status came.
#[derive(Debug, PartialEq, Eq)]
enum Waited {
    /// The program could not be started.
    NotStarted,
    /// It ran past the bound and was killed with its process group.
    TimedOut,
}

/// Runs `cmd` in its own process group, waiting at most `timeout`; on timeout the whole group
/// (nvcc and the compilers it started) is killed and reaped.
fn wait_bounded(mut cmd: Command, timeout: Duration) -> Result<std::process::ExitStatus, Waited> {
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let mut child = cmd.spawn().map_err(|_| Waited::NotStarted)?;
    let start = Instant::now();
    let mut pause = Duration::from_millis(1);
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ok(status),
            Ok(None) => {}
            Err(_) => break,
        }
        let elapsed = start.elapsed();
        if elapsed >= timeout {
            break;
        }
        std::thread::sleep(pause.min(timeout - elapsed));
        pause = (pause * 2).min(Duration::from_millis(50));
    }
    kill_group(&mut child);
    let _ = child.wait();
    Err(Waited::TimedOut)
}

/// Kills `child`'s process group (it leads its own, see [`wait_bounded`]).
fn kill_group(child: &mut std::process::Child) {
    #[cfg(unix)]
    {
        extern "C" {
            fn kill(pid: i32, sig: i32) -> i32;
        }
        const SIGKILL: i32 = 9;
        if let Ok(pid) = i32::try_from(child.id()) {
            // SAFETY: `kill(2)` with a negative pid signals that process group: the child's
            // own (`process_group(0)`), which holds nvcc and what it started, nothing else.
            unsafe {
                kill(-pid, SIGKILL);
            }
        }
    }
    let _ = child.kill();
}

/// The prerequisites of a Makefile rule (`out.ptx : a.cu \` newline `b.h`), `\ ` escapes a
/// space.
fn parse_deps(text: &str) -> Vec<PathBuf> {
    let joined = text.replace("\\\r\n", " ").replace("\\\n", " ");
    let Some((_, prereqs)) = joined.split_once(": ") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut current = String::new();
    let mut chars = prereqs.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&' ') => {
                current.push(' ');
                chars.next();
            }
            c if c.is_whitespace() => {
                if !current.is_empty() {
                    out.push(PathBuf::from(std::mem::take(&mut current)));
                }
            }
            c => current.push(c),
        }
    }
    if !current.is_empty() {
        out.push(PathBuf::from(current));
    }
    out
}

#[cfg(test)]
mod tests;
