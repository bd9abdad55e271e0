//! Reading a kernel's source file, and parsing each PTX file once per compilation.
//!
//! Only regular files are read, and only up to [`MAX_SOURCE_BYTES`]: a path to `/dev/zero`
//! would otherwise read until memory runs out, and a FIFO would block the compiler forever.

use std::collections::HashMap;
use std::fmt;
use std::fs::{File, Metadata};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use chevron_cuda_rules::ptx::{self, Entry};

/// The largest kernel source read: 64 MiB.
///
/// PTX from `nvcc -ptx` for a large library is a few MB (tens for fat template libraries); the
/// file is also embedded in the binary with `include_bytes!`. 64 MiB leaves room for those while
/// bounding what a wrong path can make the compiler read.
pub const MAX_SOURCE_BYTES: u64 = 64 << 20;

/// Why a source file was not read.
#[derive(Debug)]
pub enum ReadError {
    /// The operating system's error (no such file, permission denied, …).
    Io(std::io::Error),
    /// It exists but is not a regular file: "a directory", "a FIFO (named pipe)", ….
    NotAFile(&'static str),
    /// Its size in bytes, over [`MAX_SOURCE_BYTES`].
    TooLarge(u64),
    /// The offset of the first byte that is not UTF-8.
    NotUtf8(usize),
}

impl ReadError {
    /// The message for a file the declaration names at `rel` (resolved to `abs`) that could not
    /// be read.
    pub fn message(&self, rel: &str, abs: &Path) -> String {
        format!(
            "cannot read `{rel}` (looked for {}): {self}; paths are relative to the crate root, \
             the directory of its Cargo.toml",
            abs.display()
        )
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Io(e) => write!(f, "{e}"),
            ReadError::NotAFile(kind) => write!(f, "it is {kind}, not a regular file"),
            ReadError::TooLarge(len) => write!(
                f,
                "it is {len} bytes, over the limit of {} MiB for a kernel source (the file \
                 is embedded in the binary; is it the right file?)",
                MAX_SOURCE_BYTES >> 20
            ),
            ReadError::NotUtf8(at) => {
                write!(f, "it is not text (byte {at} is not UTF-8)")
            }
        }
    }
}

fn kind_of(meta: &Metadata) -> &'static str {
    let ty = meta.file_type();
    if ty.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ty.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if ty.is_char_device() {
            return "a character device";
        }
        if ty.is_block_device() {
            return "a block device";
        }
        if ty.is_socket() {
            return "a socket";
        }
    }
    "not a regular file"
}

fn check_meta(meta: &Metadata) -> Result<(), ReadError> {
    if !meta.is_file() {
        return Err(ReadError::NotAFile(kind_of(meta)));
    }
    if meta.len() > MAX_SOURCE_BYTES {
        return Err(ReadError::TooLarge(meta.len()));
    }
    Ok(())
}

/// Reads a regular file of at most [`MAX_SOURCE_BYTES`] as UTF-8 text.
pub fn read_source(path: &Path) -> Result<String, ReadError> {
    // Looked at before opening: opening a FIFO blocks until a writer comes.
    check_meta(&std::fs::metadata(path).map_err(ReadError::Io)?)?;
    let file = File::open(path).map_err(ReadError::Io)?;
    // Again on what was opened, in case the path changed in between.
    check_meta(&file.metadata().map_err(ReadError::Io)?)?;
    let mut bytes = Vec::new();
    // One byte over the cap tells a file that grew since from one that fits.
    file.take(MAX_SOURCE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(ReadError::Io)?;
    let len = bytes.len() as u64;
    if len > MAX_SOURCE_BYTES {
        return Err(ReadError::TooLarge(len));
    }
    String::from_utf8(bytes).map_err(|e| ReadError::NotUtf8(e.utf8_error().valid_up_to()))
}

/// The entries of one PTX text, or the reader's error.
pub type Parsed = Result<Vec<Entry>, String>;

/// One file read in this compilation: its text, and its entries once parsed.
struct File_ {
    len: u64,
    modified: Option<std::time::SystemTime>,
    /// Whether the modification time was over [`SETTLED`] old when the file was read: a
    /// younger one may be followed by an edit within the file system's time resolution
    /// (a second on some), which the time would not show (git's "racy" entries).
    settled: bool,
    text: Arc<str>,
    parsed: Option<Arc<Parsed>>,
    /// Where each line starts, for quoting lines in messages.
    lines: Option<Arc<ptx::LineIndex>>,
    /// Its top-level statements, for cutting one entry's module out of it, and the modules
    /// cut so far, by entry (`None`: the entry keeps the whole file).
    module: Option<Arc<ptx::ModuleIndex>>,
    cuts: HashMap<String, Option<Arc<str>>>,
    /// Whether the text was found to be PTX (`ptx_check`'s `not_ptx`, which scans it all).
    plainly_ptx: bool,
}

/// The files read in this process, by path: read, and parsed, once per compilation however
/// many declarations name them (200 declarations on an 8 MB PTX read it once, not 200 times).
/// A hit needs the same size and modification time (`metadata` is one system call, where
/// reading and comparing 8 MB is milliseconds per declaration); a long-lived process
/// (rust-analyzer) sees an edit as a new modification time. A file modified less than
/// [`SETTLED`] before it was read is read again each time, until it has settled.
static FILES: Mutex<Option<HashMap<PathBuf, File_>>> = Mutex::new(None);

/// How old a modification time must be for the time and size to stand for the content.
const SETTLED: std::time::Duration = std::time::Duration::from_secs(3);

/// [`read_source`], once per path, size and modification time in this process.
pub fn read_cached(path: &Path) -> Result<Arc<str>, ReadError> {
    let meta = std::fs::metadata(path).map_err(ReadError::Io)?;
    check_meta(&meta)?;
    let modified = meta.modified().ok();
    {
        let guard = FILES.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(hit) = guard.as_ref().and_then(|files| files.get(path)) {
            if hit.settled && hit.len == meta.len() && hit.modified == modified {
                return Ok(Arc::clone(&hit.text));
            }
        }
    }
    let text: Arc<str> = read_source(path)?.into();
    let settled = modified
        .and_then(|m| std::time::SystemTime::now().duration_since(m).ok())
        .is_some_and(|age| age > SETTLED);
    let mut guard = FILES.lock().unwrap_or_else(PoisonError::into_inner);
    guard.get_or_insert_with(HashMap::new).insert(
        path.to_path_buf(),
        File_ {
            len: text.len() as u64,
            modified,
            settled,
            text: Arc::clone(&text),
            parsed: None,
            lines: None,
            module: None,
            cuts: HashMap::new(),
            plainly_ptx: false,
        },
    );
    Ok(text)
}

/// The line index of the text [`read_cached`] gave for `path` (built once), for
/// [`ptx::with_index`]; `None` for any other text.
pub fn line_index(path: &Path, text: &str) -> Option<Arc<ptx::LineIndex>> {
    let mut guard = FILES.lock().unwrap_or_else(PoisonError::into_inner);
    let file = guard.as_mut()?.get_mut(path)?;
    if !(std::ptr::eq(file.text.as_ptr(), text.as_ptr()) && file.text.len() == text.len()) {
        return None;
    }
    Some(Arc::clone(
        file.lines
            .get_or_insert_with(|| Arc::new(ptx::LineIndex::new(text))),
    ))
}

/// The module `entry` needs, cut out of the PTX `text` of the file at `path`
/// ([`ptx::ModuleIndex::cut`]), or `None` where the entry must be loaded with the whole file.
/// For the text [`read_cached`] gave, the file's statements are read once, and each entry's
/// module cut once (100 declarations of one kernel cut it once).
pub fn cut_module(path: &Path, text: &str, entry: &str) -> Option<Arc<str>> {
    let mut guard = FILES.lock().unwrap_or_else(PoisonError::into_inner);
    let Some(file) = guard
        .as_mut()
        .and_then(|files| files.get_mut(path))
        .filter(|f| std::ptr::eq(f.text.as_ptr(), text.as_ptr()) && f.text.len() == text.len())
    else {
        drop(guard);
        return ptx::ModuleIndex::new(text)
            .cut(text, entry)
            .ok()
            .map(Arc::from);
    };
    if let Some(cut) = file.cuts.get(entry) {
        return cut.clone();
    }
    let index = file
        .module
        .get_or_insert_with(|| Arc::new(ptx::ModuleIndex::new(text)));
    let cut = index.cut(text, entry).ok().map(Arc::from);
    file.cuts.insert(entry.to_string(), cut.clone());
    cut
}

/// Whether `check` (a scan of the whole text, true for PTX) holds for the text [`read_cached`]
/// gave for `path`: run once per file and content, not once per declaration (200 declarations
/// on an 8 MB file would scan 1.6 GB); for any other text, run each time.
pub fn plainly_ptx(path: &Path, text: &str, check: impl FnOnce() -> bool) -> bool {
    let mut guard = FILES.lock().unwrap_or_else(PoisonError::into_inner);
    let file = guard
        .as_mut()
        .and_then(|files| files.get_mut(path))
        .filter(|f| std::ptr::eq(f.text.as_ptr(), text.as_ptr()) && f.text.len() == text.len());
    match file {
        Some(f) if f.plainly_ptx => true,
        Some(f) => {
            f.plainly_ptx = check();
            f.plainly_ptx
        }
        None => {
            drop(guard);
            check()
        }
    }
}

/// The files whose whole text an expansion of this compilation embedded with `include_bytes!`.
static EMBEDDED: Mutex<Option<std::collections::HashSet<PathBuf>>> = Mutex::new(None);

/// Whether no expansion of this compilation has embedded the whole file at `path` yet; marks
/// it embedded. A declaration that embeds only its entry's module still names the file once
/// per compilation with `include_bytes!`: rustc lists the files it includes in the crate's
/// dependencies (`.d`), so that cargo checks the crate again when the file changes; once per
/// crate is enough for that, and every further `include_bytes!` of a large file costs a read
/// and a hash of it.
pub fn first_embedding(path: &Path) -> bool {
    let mut guard = EMBEDDED.lock().unwrap_or_else(PoisonError::into_inner);
    guard
        .get_or_insert_with(Default::default)
        .insert(path.to_path_buf())
}

struct Cached {
    text: String,
    parsed: Arc<Parsed>,
}

/// Parsed PTX texts that are no file of [`FILES`] (nvcc's output), by path, compared in full.
static CACHE: Mutex<Option<HashMap<PathBuf, Cached>>> = Mutex::new(None);

/// `ptx::parse_entries(text)`, parsed once per path and content: at once for the text
/// [`read_cached`] gave for `path`, else compared in full.
pub fn parse_ptx(path: &Path, text: &str) -> Arc<Parsed> {
    // A panic while a lock was held cannot leave an entry half-written: insert is the last
    // step. So a poisoned lock is still usable.
    {
        let mut guard = FILES.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(file) = guard.as_mut().and_then(|files| files.get_mut(path)) {
            // The very text read for this path (the same allocation, kept alive by the map).
            if std::ptr::eq(file.text.as_ptr(), text.as_ptr()) && file.text.len() == text.len() {
                let parsed = file
                    .parsed
                    .get_or_insert_with(|| Arc::new(ptx::parse_entries(text)));
                return Arc::clone(parsed);
            }
        }
    }
    let mut guard = CACHE.lock().unwrap_or_else(PoisonError::into_inner);
    let cache = guard.get_or_insert_with(HashMap::new);
    if let Some(hit) = cache.get(path).filter(|c| c.text == text) {
        return Arc::clone(&hit.parsed);
    }
    let parsed = Arc::new(ptx::parse_entries(text));
    cache.insert(
        path.to_path_buf(),
        Cached {
            text: text.to_string(),
            parsed: Arc::clone(&parsed),
        },
    );
    parsed
}

/// The `#include "…"` (quoted: `true`) and `#include <…>` directives of C/C++ text, outside
/// comments and string literals; a directive spelled with a macro is skipped.
pub fn includes(text: &str) -> Vec<(String, bool)> {
    let code = strip_comments(text);
    let mut out = Vec::new();
    // Joined continuation lines count as one.
    let joined = code.replace("\\\r\n", "").replace("\\\n", "");
    for line in joined.lines() {
        let Some(rest) = line.trim_start().strip_prefix('#') else {
            continue;
        };
        let Some(rest) = rest.trim_start().strip_prefix("include") else {
            continue;
        };
        let rest = rest.trim_start();
        let (close, quoted) = match rest.chars().next() {
            Some('"') => ('"', true),
            Some('<') => ('>', false),
            _ => continue,
        };
        if let Some(end) = rest[1..].find(close) {
            let name = &rest[1..1 + end];
            if !name.is_empty() {
                out.push((name.to_string(), quoted));
            }
        }
    }
    out
}

/// The text with comments blanked (newlines kept), string and character literals left as they
/// are.
fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut prev = '\0';
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                    }
                    if prev == '*' && c == '/' {
                        break;
                    }
                    prev = c;
                }
                out.push(' ');
            }
            '"' | '\'' => {
                out.push(c);
                let mut escaped = false;
                for d in chars.by_ref() {
                    out.push(d);
                    if d == '\n' || (!escaped && d == c) {
                        break;
                    }
                    escaped = !escaped && d == '\\';
                }
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh directory under the system's temporary directory, removed on drop.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new(tag: &str) -> TempDir {
            let dir = std::env::temp_dir().join(format!(
                "chevron-source-{tag}-{}-{:?}",
                std::process::id(),
                std::thread::current().id()
            ));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).expect("temp dir");
            TempDir(dir)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    #[cfg(unix)]
    fn dev_zero_is_refused_without_reading() {
        match read_source(Path::new("/dev/zero")) {
            Err(ReadError::NotAFile(kind)) => assert_eq!(kind, "a character device"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    #[cfg(unix)]
    fn fifo_is_refused_without_blocking() {
        let dir = TempDir::new("fifo");
        let fifo = dir.0.join("k.ptx");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo runs");
        assert!(made.success());
        // Opening it would block this test forever; the refusal must come first.
        match read_source(&fifo) {
            Err(ReadError::NotAFile(kind)) => assert_eq!(kind, "a FIFO (named pipe)"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn directories_and_empty_paths_are_refused() {
        let dir = TempDir::new("dir");
        match read_source(&dir.0) {
            Err(e @ ReadError::NotAFile("a directory")) => {
                assert_eq!(e.to_string(), "it is a directory, not a regular file")
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(read_source(Path::new("")), Err(ReadError::Io(_))));
    }

    #[test]
    fn regular_files_are_read_up_to_the_cap() {
        let dir = TempDir::new("files");
        let ok = dir.0.join("k.ptx");
        std::fs::write(&ok, ".version 8.0\n").expect("write");
        assert_eq!(read_source(&ok).expect("reads"), ".version 8.0\n");

        let big = dir.0.join("big.ptx");
        let file = File::create(&big).expect("create");
        // Sparse: no 64 MiB written to disk.
        file.set_len(MAX_SOURCE_BYTES + 1).expect("set_len");
        match read_source(&big) {
            Err(e @ ReadError::TooLarge(n)) => {
                assert_eq!(n, MAX_SOURCE_BYTES + 1);
                assert!(e.to_string().contains("64 MiB"), "{e}");
            }
            other => panic!("{other:?}"),
        }

        let binary = dir.0.join("bin.ptx");
        std::fs::write(&binary, b".version\xff\xfe").expect("write");
        assert!(matches!(read_source(&binary), Err(ReadError::NotUtf8(8))));
    }

    #[test]
    fn a_file_is_parsed_once_per_content() {
        let path = Path::new("/nonexistent/cache-test.ptx");
        let a = ".entry k(.param .u32 a) {}";
        let first = parse_ptx(path, a);
        let again = parse_ptx(path, a);
        assert!(Arc::ptr_eq(&first, &again), "parsed twice");
        // An edit (same length) is a miss: the new entry is seen.
        let b = ".entry j(.param .u32 a) {}";
        let edited = parse_ptx(path, b);
        assert!(!Arc::ptr_eq(&first, &edited));
        assert_eq!(edited.as_ref().as_ref().expect("parses")[0].name, "j");
    }

    #[test]
    fn a_file_is_read_and_parsed_once_until_it_changes() {
        let dir = TempDir::new("cached");
        let path = dir.0.join("k.ptx");
        std::fs::write(&path, ".entry k(.param .u32 a) {}").expect("write");
        // Settled: written a minute ago.
        let ago = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
        File::options()
            .write(true)
            .open(&path)
            .and_then(|f| f.set_modified(ago))
            .expect("set_modified");
        let first = read_cached(&path).expect("reads");
        let again = read_cached(&path).expect("reads");
        assert!(Arc::ptr_eq(&first, &again), "read twice");
        let parsed = parse_ptx(&path, &first);
        assert!(
            Arc::ptr_eq(&parsed, &parse_ptx(&path, &again)),
            "parsed twice"
        );
        // An edit (same length) is read and parsed again; a file just written is read each
        // time, since an edit within the time's resolution would keep its time.
        std::fs::write(&path, ".entry j(.param .u32 a) {}").expect("write");
        let edited = read_cached(&path).expect("reads");
        assert!(!Arc::ptr_eq(&first, &edited));
        assert!(!Arc::ptr_eq(&edited, &read_cached(&path).expect("reads")));
        let reparsed = parse_ptx(&path, &edited);
        assert_eq!(reparsed.as_ref().as_ref().expect("parses")[0].name, "j");
    }
}
