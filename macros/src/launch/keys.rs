//! The DSL side of the attribute table: keys, their value forms and the CUDA version that has
//! them, all from the rules crate's table ([`chevron_cuda_rules::kinds::KINDS`]), which the
//! runtime's types follow too. The macros depend on no CUDA crate: the user's CUDA version
//! reaches them as the same `cuda-*` feature the facade forwards.

pub use chevron_cuda_rules::kinds::ValueForm;
use chevron_cuda_rules::kinds::{self, Kind, Position};

/// The DSL keyword for dynamic shared memory (not an attribute kind: a field of the launch).
pub const SHARED: &str = "shared";
/// The DSL keyword of a stream-attribute group.
pub const STREAM: &str = "stream";
/// The DSL keyword that allows clusters of 9 to 16 blocks (not an attribute kind: it sets a
/// function attribute before the launch).
pub const NON_PORTABLE_CLUSTER: &str = "non_portable_cluster";

/// A place of `launch!`/`config!` where attributes are written: the launch list, and one group
/// `KEYWORD(…)` for each other [`Position`] the grammar has. Checking, duplicates, messages and
/// the generated builder call all follow the place; a position the DSL can write is one entry
/// here.
#[derive(Debug, PartialEq, Eq)]
pub struct Place {
    /// Where the driver takes what is written here.
    pub position: Position,
    /// The group's keyword (`stream`), or `None` for the launch list.
    pub keyword: Option<&'static str>,
    /// How the group is named in messages and key lists: `stream(...)`.
    pub syntax: &'static str,
    /// The in-place `LaunchConfig` setter that adds a kind here, as generated code calls it
    /// (`__set_stream`; the public builder is `with_stream`).
    pub method: &'static str,
    /// What an attribute written here is called: "stream" in "unknown stream attribute".
    pub noun: &'static str,
    /// An example of the group's contents, for messages: `sync = Spin, priority = 0`.
    pub example: &'static str,
    /// What follows "… go in parentheses, `stream(sync = Spin, …)`" for a bare keyword.
    pub bare_note: &'static str,
}

/// The launch list: the entries of `cuLaunchKernelEx`'s attribute array.
pub const LIST: Place = Place {
    position: Position::Launch,
    keyword: None,
    syntax: "",
    method: "__set",
    noun: "launch",
    example: "",
    bare_note: "",
};

/// The groups, one per position written as `KEYWORD(…)` in the launch list.
pub const GROUPS: &[Place] = &[Place {
    position: Position::Stream,
    keyword: Some(STREAM),
    syntax: "stream(...)",
    method: "__set_stream",
    noun: "stream",
    example: "sync = Spin, priority = 0",
    bare_note: "; the stream itself is the third position",
}];

impl Place {
    /// The group named `keyword`.
    pub fn group(keyword: &str) -> Option<&'static Place> {
        GROUPS.iter().find(|g| g.keyword == Some(keyword))
    }

    /// The place where the DSL writes kinds of `position`, if it has one.
    pub fn of(position: Position) -> Option<&'static Place> {
        std::iter::once(&LIST)
            .chain(GROUPS)
            .find(|p| p.position == position)
    }

    /// The first example setting: `sync = Spin`.
    pub fn first_example(&self) -> &'static str {
        self.example.split(", ").next().unwrap_or("")
    }
}

/// One key: the rules crate's row and the DSL's value form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key {
    /// The rules crate's row: type, CUDA name, placement, version.
    pub info: &'static Kind,
    /// How the value is written.
    pub form: ValueForm,
}

impl Key {
    /// The key as written in the DSL.
    pub fn name(&self) -> &'static str {
        self.info.key
    }
}

/// The key named `name`, if the selected CUDA version has it.
pub fn lookup(name: &str) -> Option<Key> {
    let info = kinds::by_key(name)?;
    info.in_version(crate::version::selected_cuda())
        .then_some(Key {
            info,
            form: info.form,
        })
}

/// For a key of a newer CUDA version than the selected one, the message that names the feature
/// that has it: "`nvlink_centric` needs CUDA 13.0: use feature cuda-13000 or later".
pub fn missing_in_version(name: &str) -> Option<String> {
    let info = kinds::by_key(name)?;
    (!info.in_version(crate::version::selected_cuda())).then(|| info.missing_message())
}

/// For a value of an enum key that the selected CUDA version lacks (a later value of the kind),
/// the message that names the feature: "`AllowOversized` (`shared_memory_mode`) needs CUDA 13.4:
/// use feature cuda-13040 or later".
pub fn variant_missing_in_version(key: &str, variant: &str) -> Option<String> {
    let since = kinds::variant_since(key, variant)?;
    (since > crate::version::selected_cuda())
        .then(|| kinds::variant_missing_message(key, variant, since))
}

/// The values of enum key `key` that the selected CUDA version has, for "expected one of".
pub fn variants_in_version(key: &str, variants: &[&'static str]) -> Vec<&'static str> {
    variants
        .iter()
        .copied()
        .filter(|v| variant_missing_in_version(key, v).is_none())
        .collect()
}

/// Whether `name` is a key of any CUDA version or a DSL keyword (`shared`, a group keyword,
/// `non_portable_cluster`).
pub fn is_known(name: &str) -> bool {
    name == SHARED
        || name == NON_PORTABLE_CLUSTER
        || Place::group(name).is_some()
        || kinds::by_key(name).is_some()
}

/// Whether `name` is written bare: a flag key (of any CUDA version, so that a key of a newer
/// one reads as an attribute and gets the version message) or `non_portable_cluster`.
pub fn is_flag(name: &str) -> bool {
    name == NON_PORTABLE_CLUSTER || kinds::by_key(name).is_some_and(|k| k.form == ValueForm::Flag)
}

/// What may be written at `place`, in the table's order, for "expected one of" messages: in the
/// launch list also `shared`, the groups and `non_portable_cluster`.
pub fn valid_here(place: &Place) -> Vec<&'static str> {
    let list = place.keyword.is_none();
    let mut keys: Vec<&'static str> = Vec::new();
    if list {
        keys.push(SHARED);
        keys.extend(GROUPS.iter().map(|g| g.syntax));
    }
    keys.extend(
        kinds::KINDS
            .iter()
            .filter(|k| k.in_version(crate::version::selected_cuda()))
            .filter(|k| k.accepts(place.position))
            .map(|k| k.key),
    );
    if list {
        keys.push(NON_PORTABLE_CLUSTER);
    }
    keys
}

/// Levenshtein distance, for "did you mean" suggestions.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// The candidate nearest to `word`, if it is close enough to be a plausible typo.
pub fn nearest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let limit = (word.chars().count() / 3).max(2);
    candidates
        .iter()
        .map(|c| (distance(word, c.trim_end_matches("(...)")), *c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_follow_the_selected_version() {
        // The tests build with the facade's default, cuda-13000.
        assert_eq!(crate::version::selected_cuda(), 13000);
        assert!(lookup("nvlink_centric").is_some());
        assert!(lookup("shared_memory_mode").is_none());
        assert_eq!(
            missing_in_version("portable_cluster_size_mode").as_deref(),
            Some("`portable_cluster_size_mode` needs CUDA 13.2: use feature cuda-13020 or later")
        );
        assert!(missing_in_version("cooperative").is_none());
        assert!(missing_in_version("fast").is_none());
        assert!(
            is_known("shared_memory_mode") && !valid_here(&LIST).contains(&"shared_memory_mode")
        );
    }

    #[test]
    fn later_values_follow_the_selected_version() {
        // cuda-13000: `shared_memory_mode` itself is later; its 13.4 values name 13.4.
        assert_eq!(
            variant_missing_in_version("shared_memory_mode", "AllowOversized").as_deref(),
            Some("`AllowOversized` (`shared_memory_mode`) needs CUDA 13.4: use feature cuda-13040 or later")
        );
        assert!(variant_missing_in_version("sync", "Spin").is_none());
        let sync = ["Auto", "Spin", "Yield", "BlockingSync"];
        assert_eq!(variants_in_version("sync", &sync), sync);
        let modes = ["Default", "AllowOversized"];
        assert_eq!(
            variants_in_version("shared_memory_mode", &modes),
            Vec::<&str>::new()
        );
    }

    #[test]
    fn dsl_keywords_are_not_kinds() {
        assert!(lookup(SHARED).is_none());
        assert!(lookup(STREAM).is_none());
        assert!(is_known(SHARED) && is_known("sync") && !is_known("fast"));
        assert!(is_flag("cooperative") && !is_flag("sync") && !is_flag(STREAM));
        assert!(is_flag(NON_PORTABLE_CLUSTER) && lookup(NON_PORTABLE_CLUSTER).is_none());
    }

    #[test]
    fn placement_lists_follow_the_runtime() {
        let launch = valid_here(&LIST);
        let stream = valid_here(&GROUPS[0]);
        assert!(launch.contains(&"cooperative") && !launch.contains(&"sync"));
        assert!(stream.contains(&"sync") && !stream.contains(&"cooperative"));
        assert!(stream.contains(&"priority") && launch.contains(&"priority"));
        assert!(!stream.contains(&SHARED));
    }

    #[test]
    fn places_are_one_per_position() {
        let places: Vec<&Place> = std::iter::once(&LIST).chain(GROUPS).collect();
        for (i, a) in places.iter().enumerate() {
            assert_eq!(Place::of(a.position), Some(*a));
            for b in &places[i + 1..] {
                assert_ne!(a.position, b.position);
            }
        }
        assert_eq!(
            Place::of(Position::GraphNode),
            None,
            "not written in `launch!`"
        );
        for g in GROUPS {
            let keyword = g.keyword.expect("a group has a keyword");
            assert_eq!(Place::group(keyword), Some(g));
            assert_eq!(g.syntax, format!("{keyword}(...)"));
            assert!(kinds::by_key(keyword).is_none() && is_known(keyword));
            // The example in its messages is valid there.
            for setting in g.example.split(", ") {
                let key = setting.split(" = ").next().unwrap_or_default();
                assert!(
                    lookup(key).is_some_and(|k| k.info.accepts(g.position)),
                    "{setting}"
                );
            }
        }
        assert!(Place::group("shared").is_none());
        assert_eq!(GROUPS[0].first_example(), "sync = Spin");
    }

    #[test]
    fn suggestions() {
        let launch = valid_here(&LIST);
        assert_eq!(nearest("coperative", &launch), Some("cooperative"));
        assert_eq!(nearest("clustr", &launch), Some("cluster"));
        assert_eq!(nearest("prio", &launch), None);
        assert_eq!(nearest("priorty", &launch), Some("priority"));
        assert_eq!(nearest("streem", &launch), Some("stream(...)"));
        assert_eq!(nearest("zzzzzzzz", &launch), None);
        assert_eq!(distance("kitten", "sitting"), 3);
    }
}

/// The key tables in the guide (`guide/src/launch.md`) and in the `launch!` docs against the
/// rules crate table.
#[cfg(test)]
mod doc_tables {
    use chevron_cuda_rules::kinds::{markdown_table, TABLE_BEGIN, TABLE_END};
    use std::path::Path;

    /// The lines between the markers, with `prefix` (`/// ` in rustdoc) taken off.
    fn between<'a>(text: &'a str, prefix: &str) -> Option<(usize, usize, Vec<String>)> {
        fn strip<'a>(l: &'a str, prefix: &str) -> Option<&'a str> {
            l.trim_start()
                .strip_prefix(prefix.trim_end())
                .map(str::trim)
        }
        let lines: Vec<&str> = text.lines().collect();
        let strip = |l: &'a str| strip(l, prefix);
        let begin = lines.iter().position(|l| strip(l) == Some(TABLE_BEGIN))?;
        let end = lines.iter().position(|l| strip(l) == Some(TABLE_END))?;
        let body = lines[begin + 1..end]
            .iter()
            .map(|l| strip(l).unwrap_or("").to_string())
            .collect();
        Some((begin, end, body))
    }

    /// Checks (or, with `CHEVRON_BLESS=1`, rewrites) the table in `file`.
    fn check(file: &Path, prefix: &str) {
        let text = std::fs::read_to_string(file).expect("readable");
        let (begin, end, body) = between(&text, prefix)
            .unwrap_or_else(|| panic!("{}: no `{TABLE_BEGIN}` … `{TABLE_END}`", file.display()));
        let want = markdown_table();
        if body == want {
            return;
        }
        if std::env::var_os("CHEVRON_BLESS").is_some() {
            let lines: Vec<&str> = text.lines().collect();
            let mut out: Vec<String> = lines[..=begin].iter().map(|l| l.to_string()).collect();
            out.extend(want.iter().map(|l| format!("{prefix}{l}")));
            out.extend(lines[end..].iter().map(|l| l.to_string()));
            std::fs::write(file, out.join("\n") + "\n").expect("writable");
            return;
        }
        panic!(
            "{}: the key table differs from the rules crate table (chevron_cuda_rules::kinds::KINDS); \
             regenerate with `CHEVRON_BLESS=1 cargo test -p chevron-cuda-macros doc_tables`.\n\
             want:\n{}\nfound:\n{}",
            file.display(),
            want.join("\n"),
            body.join("\n")
        );
    }

    #[test]
    fn guide_key_table_is_the_spec_table() {
        check(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("../guide/src/launch.md"),
            "",
        );
    }

    #[test]
    fn launch_docs_key_table_is_the_spec_table() {
        check(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("../src/lib.rs"),
            "/// ",
        );
    }
}
