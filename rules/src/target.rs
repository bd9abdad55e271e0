//! Which GPUs and drivers a PTX file can run on: its `.version` (the PTX ISA, which the driver's
//! JIT compiler must know) and its `.target` (the oldest architecture it runs on), read from the
//! file's header, and the rules that pick one of several compiled variants for a device (the
//! example's lines run in this module's unit tests: a doc example here could only name this inner
//! crate, which users do not see).
//!
//! ```text
//! let h = header(".version 8.0\n.target sm_90\n.address_size 64\n").unwrap();
//! assert_eq!(h.isa, Version::new(8, 0));
//! assert_eq!(h.target, Arch::new(9, 0));
//! assert!(h.target.runs_on(Version::new(10, 0)) && !h.target.runs_on(Version::new(8, 9)));
//! assert_eq!(h.isa.needs_cuda(), Some(Version::new(12, 0)));
//! ```

use core::fmt;

/// A `major.minor` pair: a PTX ISA version, a CUDA version or a compute capability.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version {
    /// The major number.
    pub major: u32,
    /// The minor number.
    pub minor: u32,
}

impl Version {
    /// `major.minor`.
    pub const fn new(major: u32, minor: u32) -> Self {
        Self { major, minor }
    }

    /// A CUDA version as `cuDriverGetVersion` and the `cuda-XXXXX` features write it:
    /// `12040` is 12.4.
    pub const fn from_cuda(v: u32) -> Self {
        Self {
            major: v / 1000,
            minor: (v % 1000) / 10,
        }
    }

    /// As `cuDriverGetVersion` writes it: `12040` for 12.4.
    pub const fn to_cuda(self) -> u32 {
        self.major * 1000 + self.minor * 10
    }

    /// The `cuda-XXXXX` feature for a driver of this version: the newest feature not newer
    /// than it (`cuda-12040` for 12.4, `cuda-12060` for 12.7, which has none of its own).
    pub fn feature(self) -> String {
        let v = self.to_cuda();
        let f = crate::kinds::CUDA_VERSIONS
            .iter()
            .copied()
            .filter(|&f| f <= v)
            .max()
            .unwrap_or(crate::kinds::CUDA_VERSIONS[0]);
        format!("cuda-{f}")
    }

    /// The oldest `cuda-XXXXX` feature for drivers of at least this version (`cuda-12080` for
    /// 12.7); `None` past the newest feature.
    pub fn feature_at_least(self) -> Option<String> {
        let v = self.to_cuda();
        crate::kinds::CUDA_VERSIONS
            .iter()
            .copied()
            .find(|&f| f >= v)
            .map(|f| format!("cuda-{f}"))
    }

    /// The CUDA version whose driver first JIT-compiles PTX of this ISA version (PTX ISA 8.0
    /// needs a CUDA 12.0 driver, 9.0 a 13.0 one), from the PTX ISA release notes; `None` for an
    /// ISA newer than this table, which nothing here refuses.
    pub const fn needs_cuda(self) -> Option<Version> {
        let (major, minor) = match (self.major, self.minor) {
            (1..=5, _) => (9, 0),
            (6, 0) => (9, 0),
            (6, 1) => (9, 1),
            (6, 2) => (9, 2),
            (6, 3) => (10, 0),
            (6, 4) => (10, 1),
            (6, 5) => (10, 2),
            (7, m @ 0..=8) => (11, m),
            (8, m @ 0..=5) => (12, m),
            (8, 6) => (12, 7),
            (8, 7) => (12, 8),
            (8, 8) => (12, 9),
            (9, 0) => (13, 0),
            (9, 1) => (13, 1),
            _ => return None,
        };
        Some(Version::new(major, minor))
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// What a `.target sm_XY` suffix restricts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Suffix {
    /// `sm_90`: this architecture and every later one (the driver JIT-compiles the PTX).
    None,
    /// `sm_90a`: architecture-specific features; runs on exactly this compute capability.
    Specific,
    /// `sm_100f`: family-specific features; runs on this major version from this minor on.
    Family,
}

/// A PTX `.target`: `sm_90`, `sm_90a`, `sm_100f`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Arch {
    /// The compute capability it is compiled for.
    pub cc: Version,
    /// Its suffix.
    pub suffix: Suffix,
}

impl Arch {
    /// `sm_<major><minor>` without a suffix.
    pub const fn new(major: u32, minor: u32) -> Self {
        Self {
            cc: Version::new(major, minor),
            suffix: Suffix::None,
        }
    }

    /// Reads `sm_90`, `sm_90a`, `sm_100f` (also `compute_90`).
    pub fn parse(s: &str) -> Option<Self> {
        let digits = s
            .strip_prefix("sm_")
            .or_else(|| s.strip_prefix("compute_"))?;
        let (digits, suffix) = match digits.as_bytes().last()? {
            b'a' => (&digits[..digits.len() - 1], Suffix::Specific),
            b'f' => (&digits[..digits.len() - 1], Suffix::Family),
            _ => (digits, Suffix::None),
        };
        if digits.len() < 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let n: u32 = digits.parse().ok()?;
        Some(Self {
            cc: Version::new(n / 10, n % 10),
            suffix,
        })
    }

    /// Whether PTX for this target runs on a device of compute capability `cc`.
    pub fn runs_on(self, cc: Version) -> bool {
        match self.suffix {
            Suffix::None => cc >= self.cc,
            Suffix::Specific => cc == self.cc,
            Suffix::Family => cc.major == self.cc.major && cc.minor >= self.cc.minor,
        }
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let suffix = match self.suffix {
            Suffix::None => "",
            Suffix::Specific => "a",
            Suffix::Family => "f",
        };
        write!(f, "sm_{}{}{suffix}", self.cc.major, self.cc.minor)
    }
}

/// A PTX file's `.version` and `.target`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Header {
    /// The PTX ISA version (`.version 8.0`).
    pub isa: Version,
    /// The target (`.target sm_90`; a `, debug` or `, texmode_…` after it is ignored).
    pub target: Arch,
}

/// Reads the `.version` and `.target` directives at the top of a PTX file (before its first
/// other directive), skipping comments. `None` when either is missing or unreadable.
pub fn header(ptx: &str) -> Option<Header> {
    let mut isa = None;
    let mut target = None;
    let mut in_block_comment = false;
    for raw in ptx.lines() {
        let mut line = raw.trim();
        if in_block_comment {
            match line.find("*/") {
                Some(end) => {
                    in_block_comment = false;
                    line = line[end + 2..].trim();
                }
                None => continue,
            }
        }
        if let Some(start) = line.find("/*") {
            if !line[start..].contains("*/") {
                in_block_comment = true;
            }
            line = line[..start].trim();
        }
        if let Some(start) = line.find("//") {
            line = line[..start].trim();
        }
        let line = line.trim_start_matches('\u{feff}');
        if line.is_empty() {
            continue;
        }
        if let Some(rest) = line.strip_prefix(".version") {
            let (major, minor) = rest.trim().split_once('.')?;
            isa = Some(Version::new(
                major.parse().ok()?,
                minor.trim().parse().ok()?,
            ));
        } else if let Some(rest) = line.strip_prefix(".target") {
            let first = rest.split([',', ' ', '\t']).find(|s| !s.is_empty())?;
            target = Some(Arch::parse(first)?);
        } else if line.starts_with(".address_size") {
            continue;
        } else {
            break;
        }
        if let (Some(isa), Some(target)) = (isa, target) {
            return Some(Header { isa, target });
        }
    }
    None
}

/// Whether PTX with `header` runs on a device of compute capability `cc` under a driver of CUDA
/// version `driver` (`None`: unknown, only the target is checked).
pub fn fits(header: Header, cc: Version, driver: Option<Version>) -> bool {
    header.target.runs_on(cc)
        && match (header.isa.needs_cuda(), driver) {
            (Some(needs), Some(driver)) => driver >= needs,
            _ => true,
        }
}

/// Picks the variant for a device: among those that fit (see [`fits`]), the one whose target
/// is the newest (closest to the device; an architecture-specific one before a plain one of the
/// same compute capability), the first written on a tie. `None` when none fits (or no header
/// could be read): [`unfit_message`] says why.
pub fn choose(headers: &[Option<Header>], cc: Version, driver: Option<Version>) -> Option<usize> {
    let mut best: Option<(usize, Arch)> = None;
    for (i, h) in headers.iter().enumerate() {
        let Some(h) = h.filter(|h| fits(*h, cc, driver)) else {
            continue;
        };
        let better = best.is_none_or(|(_, b)| {
            h.target.cc > b.cc
                || (h.target.cc == b.cc
                    && b.suffix == Suffix::None
                    && h.target.suffix != Suffix::None)
        });
        if better {
            best = Some((i, h.target));
        }
    }
    best.map(|(i, _)| i)
}

/// The message when no variant of a kernel runs on a device: `targets` are the variants'
/// headers (`None`: unreadable), `device` names the device (`device 0`), `driver` is the
/// driver's CUDA version if known. The kernel's name is the caller's to add.
pub fn unfit_message(
    headers: &[Option<Header>],
    device: &str,
    cc: Version,
    driver: Option<Version>,
) -> String {
    let known: Vec<Header> = headers.iter().flatten().copied().collect();
    if known.is_empty() {
        return "no `.version`/`.target` could be read from the kernel's PTX".to_string();
    }
    let runnable: Vec<&Header> = known.iter().filter(|h| h.target.runs_on(cc)).collect();
    match runnable.iter().min_by_key(|h| h.isa) {
        None => {
            let mut targets: Vec<String> = Vec::new();
            for h in &known {
                let t = h.target.to_string();
                if !targets.contains(&t) {
                    targets.push(t);
                }
            }
            let listed = match targets.len() {
                1 => targets[0].clone(),
                _ => {
                    let (last, rest) = targets.split_last().expect("two or more");
                    format!("{} and {last}", rest.join(", "))
                }
            };
            format!(
                "kernel built for {listed} only; {device} is sm_{}{}: compile a variant for \
                 it (`nvcc -ptx -arch=compute_{}{}`, which also runs on newer GPUs) and list it \
                 in `ptx = [\"…\", …]`, or use `cuda = \"…\"`",
                cc.major, cc.minor, cc.major, cc.minor
            )
        }
        Some(h) => {
            let needs = h
                .isa
                .needs_cuda()
                .map_or(String::from("a newer"), |v| format!("a CUDA {v}"));
            let driver = driver.map_or(String::from("older"), |d| {
                format!("{d} (feature {})", d.feature())
            });
            format!(
                "PTX ISA {} needs {needs} driver; this driver is {driver}: compile with an \
                 older nvcc or use `cuda = …`",
                h.isa
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The module doc's example.
    #[test]
    fn the_module_example() {
        let h = header(".version 8.0\n.target sm_90\n.address_size 64\n").unwrap();
        assert_eq!(h.isa, Version::new(8, 0));
        assert_eq!(h.target, Arch::new(9, 0));
        assert!(h.target.runs_on(Version::new(10, 0)) && !h.target.runs_on(Version::new(8, 9)));
        assert_eq!(h.isa.needs_cuda(), Some(Version::new(12, 0)));
    }

    #[test]
    fn headers_are_read_past_comments() {
        let ptx = "//\n// Generated by NVIDIA NVVM Compiler\n//\n\n.version 9.0\n\
                   .target sm_90a, debug\n.address_size 64\n.visible .entry k() { ret; }\n";
        let h = header(ptx).unwrap();
        assert_eq!(h.isa, Version::new(9, 0));
        assert_eq!(h.target.to_string(), "sm_90a");
        assert_eq!(h.target.suffix, Suffix::Specific);
        let h = header("/* a\n b */ .version 7.8 // x\n.target sm_100f\n").unwrap();
        assert_eq!(
            (h.isa, h.target.to_string()),
            (Version::new(7, 8), "sm_100f".into())
        );
        assert_eq!(header(".target sm_90\n.entry k() {}\n.version 8.0\n"), None);
        assert_eq!(header(".version 8.0\n.target sm_9x\n"), None);
        assert_eq!(header(""), None);
    }

    #[test]
    fn targets_run_forward_suffixes_do_not() {
        let v = Version::new;
        assert!(Arch::new(7, 5).runs_on(v(9, 0)));
        assert!(!Arch::new(9, 0).runs_on(v(8, 9)));
        let a = Arch::parse("sm_90a").unwrap();
        assert!(a.runs_on(v(9, 0)) && !a.runs_on(v(10, 0)));
        let f = Arch::parse("sm_100f").unwrap();
        assert!(f.runs_on(v(10, 3)) && f.runs_on(v(10, 0)) && !f.runs_on(v(12, 0)));
        assert!(!Arch::parse("sm_103f").unwrap().runs_on(v(10, 0)));
        assert_eq!(Arch::parse("compute_120").unwrap().cc, v(12, 0));
        assert_eq!(Arch::parse("sm_"), None);
    }

    #[test]
    fn isa_versions_map_to_drivers() {
        let v = Version::new;
        assert_eq!(v(7, 8).needs_cuda(), Some(v(11, 8)));
        assert_eq!(v(8, 0).needs_cuda(), Some(v(12, 0)));
        assert_eq!(v(8, 5).needs_cuda(), Some(v(12, 5)));
        assert_eq!(v(8, 7).needs_cuda(), Some(v(12, 8)));
        assert_eq!(v(9, 0).needs_cuda(), Some(v(13, 0)));
        assert_eq!(v(9, 1).needs_cuda(), Some(v(13, 1)));
        assert_eq!(v(9, 9).needs_cuda(), None);
        assert_eq!(Version::from_cuda(12040), v(12, 4));
        assert_eq!(v(12, 4).feature(), "cuda-12040");
        assert_eq!(v(13, 0).feature(), "cuda-13000");
        assert_eq!(v(12, 7).feature(), "cuda-12060");
        assert_eq!(v(12, 7).feature_at_least().as_deref(), Some("cuda-12080"));
        assert_eq!(v(13, 1).feature_at_least().as_deref(), Some("cuda-13010"));
        assert_eq!(v(99, 0).feature_at_least(), None);
    }

    #[test]
    fn the_closest_fitting_variant_wins() {
        let v = Version::new;
        let h = |isa: (u32, u32), t: &str| {
            Some(Header {
                isa: v(isa.0, isa.1),
                target: Arch::parse(t).unwrap(),
            })
        };
        let vs = [h((8, 0), "sm_75"), h((8, 0), "sm_90"), h((9, 0), "sm_100")];
        assert_eq!(choose(&vs, v(9, 0), Some(v(13, 0))), Some(1));
        assert_eq!(choose(&vs, v(8, 0), Some(v(13, 0))), Some(0));
        assert_eq!(choose(&vs, v(10, 0), Some(v(13, 0))), Some(2));
        // The sm_100 variant's ISA is too new for a 12.4 driver: the sm_90 one serves.
        assert_eq!(choose(&vs, v(10, 0), Some(v(12, 4))), Some(1));
        // Unknown driver: only targets count.
        assert_eq!(choose(&vs, v(10, 0), None), Some(2));
        let specific = [h((8, 0), "sm_90"), h((8, 0), "sm_90a")];
        assert_eq!(choose(&specific, v(9, 0), None), Some(1));
        assert_eq!(choose(&specific, v(10, 0), None), Some(0));
        assert_eq!(choose(&[h((8, 0), "sm_90"), None], v(8, 0), None), None);
        assert_eq!(choose(&[h((9, 0), "sm_75")], v(8, 0), Some(v(12, 9))), None);
    }

    #[test]
    fn messages_say_what_to_do() {
        let v = Version::new;
        let h = |isa: (u32, u32), t: &str| {
            Some(Header {
                isa: v(isa.0, isa.1),
                target: Arch::parse(t).unwrap(),
            })
        };
        assert_eq!(
            unfit_message(&[h((9, 0), "sm_90")], "device 0", v(8, 0), Some(v(13, 0))),
            "kernel built for sm_90 only; device 0 is sm_80: compile a variant for it \
             (`nvcc -ptx -arch=compute_80`, which also runs on newer GPUs) and list it in \
             `ptx = [\"…\", …]`, or use `cuda = \"…\"`"
        );
        let two = [h((9, 0), "sm_90"), h((9, 0), "sm_100a")];
        assert!(unfit_message(&two, "device 1", v(8, 6), None)
            .starts_with("kernel built for sm_90 and sm_100a only; device 1 is sm_86"));
        assert_eq!(
            unfit_message(&[h((9, 0), "sm_90")], "device 0", v(9, 0), Some(v(12, 4))),
            "PTX ISA 9.0 needs a CUDA 13.0 driver; this driver is 12.4 (feature cuda-12040): \
             compile with an older nvcc or use `cuda = …`"
        );
    }
}
