//! The disk cache of compiled `cuda = "…"` kernels: one file per key under
//! [`dir`]`/nvrtc/`, written atomically, checked whole when read (a damaged or foreign file is
//! a miss, and the next store replaces it).
//!
//! File layout (little-endian): the magic `CHVNVRTC`, the format version (`u32`), the 16-byte
//! key, then three fields each as a `u64` length and its bytes (the PTX, the machine code, the
//! lowered name; a lowered name of length `u64::MAX` is none), then a 16-byte checksum of
//! everything before it.

use std::hash::{DefaultHasher, Hasher};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

const MAGIC: &[u8; 8] = b"CHVNVRTC";
const FORMAT: u32 = 1;
const NONE: u64 = u64::MAX;

/// The environment variable naming the cache's directory.
pub const CACHE_DIR_VAR: &str = "CHEVRON_CACHE_DIR";
/// The environment variable that turns the cache off with `0` or `off`.
pub const CACHE_SWITCH_VAR: &str = "CHEVRON_NVRTC_CACHE";

/// 128 bits identifying what was compiled and for what.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CacheKey([u8; 16]);

/// Two SipHash-1-3 lanes with different prefixes: 128 bits, so two different keys never meet
/// in practice. Lengths go in before each part, so parts cannot run into each other.
fn hash128(parts: &[&[u8]]) -> [u8; 16] {
    let lane = |salt: &[u8]| {
        let mut h = DefaultHasher::new();
        h.write(salt);
        for p in parts {
            h.write_u64(p.len() as u64);
            h.write(p);
        }
        h.finish()
    };
    let mut out = [0u8; 16];
    out[..8].copy_from_slice(&lane(b"chevron lane a").to_le_bytes());
    out[8..].copy_from_slice(&lane(b"chevron lane b").to_le_bytes());
    out
}

impl CacheKey {
    /// The key of these parts, in order.
    pub(crate) fn of(parts: &[&[u8]]) -> Self {
        Self(hash128(parts))
    }

    fn file_name(&self) -> String {
        let hex: String = self.0.iter().map(|b| format!("{b:02x}")).collect();
        format!("{hex}.bin")
    }
}

/// What one entry holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    /// NVRTC's PTX.
    pub(crate) ptx: String,
    /// The machine code loaded (`cuModuleLoadData`).
    pub(crate) image: Vec<u8>,
    /// The name expression's lowered name.
    pub(crate) lowered: Option<String>,
}

/// The cache directory (see [`crate::nvrtc_cache_dir`]).
pub(crate) fn dir() -> Option<PathBuf> {
    dir_from(&|name| std::env::var_os(name))
}

fn dir_from(var: &dyn Fn(&str) -> Option<std::ffi::OsString>) -> Option<PathBuf> {
    if let Some(v) = var(CACHE_SWITCH_VAR) {
        let v = v.to_string_lossy().to_ascii_lowercase();
        if v == "0" || v == "off" || v == "false" || v == "no" {
            return None;
        }
    }
    let nonempty = |name: &str| var(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    let base = nonempty(CACHE_DIR_VAR)
        .or_else(|| nonempty("XDG_CACHE_HOME").map(|d| d.join("chevron")))
        .or_else(|| {
            if cfg!(windows) {
                nonempty("LOCALAPPDATA").map(|d| d.join("chevron"))
            } else {
                nonempty("HOME").map(|d| d.join(".cache").join("chevron"))
            }
        })?;
    Some(base.join("nvrtc"))
}

fn encode(key: &CacheKey, entry: &Entry) -> Vec<u8> {
    let lowered = entry.lowered.as_deref().map(str::as_bytes);
    let mut out = Vec::with_capacity(
        64 + entry.ptx.len() + entry.image.len() + lowered.map_or(0, <[u8]>::len),
    );
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT.to_le_bytes());
    out.extend_from_slice(&key.0);
    for field in [Some(entry.ptx.as_bytes()), Some(&entry.image[..]), lowered] {
        match field {
            Some(bytes) => {
                out.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
                out.extend_from_slice(bytes);
            }
            None => out.extend_from_slice(&NONE.to_le_bytes()),
        }
    }
    let sum = hash128(&[&out]);
    out.extend_from_slice(&sum);
    out
}

fn decode(key: &CacheKey, bytes: &[u8]) -> Option<Entry> {
    let body_len = bytes.len().checked_sub(16)?;
    let (body, sum) = bytes.split_at(body_len);
    if hash128(&[body]) != sum {
        return None;
    }
    let rest = body.strip_prefix(MAGIC)?;
    let (format, rest) = rest.split_at_checked(4)?;
    if u32::from_le_bytes(format.try_into().ok()?) != FORMAT {
        return None;
    }
    let (stored, mut rest) = rest.split_at_checked(16)?;
    if stored != key.0 {
        return None;
    }
    let mut field = || -> Option<Option<&[u8]>> {
        let (len, after) = rest.split_at_checked(8)?;
        let len = u64::from_le_bytes(len.try_into().ok()?);
        if len == NONE {
            rest = after;
            return Some(None);
        }
        let (value, after) = after.split_at_checked(usize::try_from(len).ok()?)?;
        rest = after;
        Some(Some(value))
    };
    let ptx = String::from_utf8(field()??.to_vec()).ok()?;
    let image = field()??.to_vec();
    let lowered = match field()? {
        Some(b) => Some(String::from_utf8(b.to_vec()).ok()?),
        None => None,
    };
    if !rest.is_empty() || image.is_empty() {
        return None;
    }
    Some(Entry {
        ptx,
        image,
        lowered,
    })
}

/// The entry of `key` in `dir`, if there is a whole one.
pub(crate) fn load(dir: &Path, key: &CacheKey) -> Option<Entry> {
    let bytes = std::fs::read(dir.join(key.file_name())).ok()?;
    decode(key, &bytes)
}

/// Writes the entry of `key` into `dir` (created if missing): into a temporary file of this
/// process first, then renamed over the entry, so a reader sees the old file or the new one,
/// never a part. Best effort: a failure leaves no temporary file and is otherwise ignored (the
/// kernel is only compiled again next time).
pub(crate) fn store(dir: &Path, key: &CacheKey, entry: &Entry) -> bool {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    if std::fs::create_dir_all(dir).is_err() {
        return false;
    }
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let tmp = dir.join(format!(
        ".{}.{}-{n}.tmp",
        key.file_name(),
        std::process::id()
    ));
    let written = std::fs::File::create(&tmp).and_then(|mut f| {
        f.write_all(&encode(key, entry))?;
        f.sync_all()
    });
    let renamed = written.and_then(|()| std::fs::rename(&tmp, dir.join(key.file_name())));
    if renamed.is_err() {
        let _ = std::fs::remove_file(&tmp);
        return false;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    struct TempDir(PathBuf);

    impl TempDir {
        fn new(tag: &str) -> Self {
            let dir = std::env::temp_dir()
                .join(format!("chevron-nvrtc-cache-{tag}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            Self(dir)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn entry() -> Entry {
        Entry {
            ptx: ".version 8.0\n.target sm_90\n.visible .entry k() { ret; }\n".into(),
            image: vec![0x7f, b'E', b'L', b'F', 1, 2, 3],
            lowered: Some("_Z4fillILi4EEvPi".into()),
        }
    }

    #[test]
    fn keys_differ_in_every_part_and_in_where_parts_split() {
        let k = CacheKey::of(&[b"src", b"-DN=1"]);
        assert_eq!(k, CacheKey::of(&[b"src", b"-DN=1"]));
        assert_ne!(k, CacheKey::of(&[b"src", b"-DN=2"]));
        assert_ne!(k, CacheKey::of(&[b"src-", b"DN=1"]));
        assert_ne!(k, CacheKey::of(&[b"src", b"-DN=1", b""]));
        assert_eq!(k.file_name().len(), 32 + 4);
    }

    #[test]
    fn an_entry_round_trips_and_a_second_store_replaces_it() {
        let dir = TempDir::new("round-trip");
        let key = CacheKey::of(&[b"round trip"]);
        assert_eq!(load(&dir.0, &key), None, "a miss before any store");
        assert!(store(&dir.0, &key, &entry()));
        assert_eq!(load(&dir.0, &key), Some(entry()));
        let mut other = entry();
        other.lowered = None;
        other.image = vec![9; 1000];
        assert!(store(&dir.0, &key, &other));
        assert_eq!(load(&dir.0, &key), Some(other));
        // Only the entry: no temporary file left behind.
        let files: Vec<_> = std::fs::read_dir(&dir.0).unwrap().flatten().collect();
        assert_eq!(files.len(), 1, "{files:?}");
    }

    #[test]
    fn damaged_entries_are_misses_and_are_rewritten() {
        let dir = TempDir::new("damaged");
        let key = CacheKey::of(&[b"damaged"]);
        assert!(store(&dir.0, &key, &entry()));
        let file = dir.0.join(key.file_name());
        let good = std::fs::read(&file).unwrap();
        // Every truncation, and a flipped bit anywhere, reads as a miss.
        for len in [0, 1, 8, 12, 28, good.len() / 2, good.len() - 1] {
            std::fs::write(&file, &good[..len]).unwrap();
            assert_eq!(load(&dir.0, &key), None, "truncated to {len}");
        }
        for at in [0, 9, 13, 30, good.len() / 2, good.len() - 1] {
            let mut bad = good.clone();
            bad[at] ^= 0x10;
            std::fs::write(&file, &bad).unwrap();
            assert_eq!(load(&dir.0, &key), None, "bit flipped at {at}");
        }
        // A whole entry of another key under this name (a renamed file) is a miss too.
        let other = CacheKey::of(&[b"other"]);
        std::fs::write(&file, encode(&other, &entry())).unwrap();
        assert_eq!(load(&dir.0, &key), None);
        // Stored again, it reads back.
        assert!(store(&dir.0, &key, &entry()));
        assert_eq!(load(&dir.0, &key), Some(entry()));
    }

    #[test]
    fn a_store_into_an_unwritable_place_fails_quietly() {
        let dir = TempDir::new("unwritable");
        std::fs::create_dir_all(&dir.0).unwrap();
        // A file where the directory should be.
        let blocked = dir.0.join("file");
        std::fs::write(&blocked, b"x").unwrap();
        let key = CacheKey::of(&[b"k"]);
        assert!(!store(&blocked, &key, &entry()));
        assert_eq!(load(&blocked, &key), None);
    }

    #[test]
    fn the_directory_follows_the_environment() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| std::ffi::OsString::from(v))
            }
        };
        let d = |pairs| dir_from(&env(pairs));
        assert_eq!(
            d(&[("CHEVRON_CACHE_DIR", "/c"), ("HOME", "/h")]),
            Some(PathBuf::from("/c/nvrtc"))
        );
        assert_eq!(
            d(&[("XDG_CACHE_HOME", "/x"), ("HOME", "/h")]),
            Some(PathBuf::from("/x/chevron/nvrtc"))
        );
        if !cfg!(windows) {
            assert_eq!(
                d(&[("HOME", "/h"), ("CHEVRON_CACHE_DIR", "")]),
                Some(PathBuf::from("/h/.cache/chevron/nvrtc"))
            );
        }
        assert_eq!(
            d(&[("CHEVRON_NVRTC_CACHE", "0"), ("CHEVRON_CACHE_DIR", "/c")]),
            None
        );
        assert_eq!(d(&[("CHEVRON_NVRTC_CACHE", "OFF"), ("HOME", "/h")]), None);
        assert_eq!(d(&[]), None);
    }
}
