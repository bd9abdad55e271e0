//! The DSL side of the attribute table: how each key's value is written in `launch!`/`config!`.
//!
//! Everything else about a key (its Rust type, its `CU_LAUNCH_ATTRIBUTE_*` name, whether the
//! driver accepts it in `cuLaunchKernelEx` and/or `cuStreamSetAttribute`) comes from the runtime's
//! [`chevron_cuda_runtime::KINDS`], so there is one table; a test below proves both lists name the
//! same keys.

use chevron_cuda_runtime::{KindInfo, KINDS};

/// How a key's value is written, and what it expands to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueForm {
    /// A flag: bare `key` (on) or `key = <bool>`; expands to `.with(Kind)` / `.with_flag(Kind, b)`.
    Flag,
    /// A dim (`u32`, `(u32, u32)`, `(u32, u32, u32)` or `impl Into<Dim3>`): `Kind::from_dim(e)`.
    Dim,
    /// A variant name of the kind's enum (`sync = Spin`), or an expression of the kind's type.
    Enum(&'static [&'static str]),
    /// An `i32` expression: `Kind(e)`.
    I32,
    /// A percentage 0 to 100: `Kind::percent(e)`.
    Percent,
    /// An event: anything the kind converts from (`&CudaEvent`), as `Kind::from(e)`.
    Event,
    /// An expression of the kind's type.
    Expr,
}

impl ValueForm {
    /// How to write the value, for messages: `` `cluster = <dim>` ``.
    pub fn describe(self, key: &str) -> String {
        match self {
            Self::Flag => format!("`{key}` or `{key} = <bool>`"),
            Self::Dim => format!(
                "`{key} = <dim>` (a `u32`, a tuple of two or three `u32`, or a `Dim3` expression)"
            ),
            Self::Enum(variants) => format!("`{key} = {}` or an expression", variants.join("|")),
            Self::I32 => format!("`{key} = <i32>`"),
            Self::Percent => format!("`{key} = <percent 0 to 100>`"),
            Self::Event => format!("`{key} = &event` (a `&CudaEvent`)"),
            Self::Expr => format!("`{key} = <expression>`"),
        }
    }
}

/// The value form of every key the runtime knows. Keep in the runtime's order.
const FORMS: &[(&str, ValueForm)] = &[
    ("access_policy_window", ValueForm::Expr),
    ("cooperative", ValueForm::Flag),
    (
        "sync",
        ValueForm::Enum(&["Auto", "Spin", "Yield", "BlockingSync"]),
    ),
    ("cluster", ValueForm::Dim),
    (
        "cluster_scheduling",
        ValueForm::Enum(&["Default", "Spread", "LoadBalancing"]),
    ),
    ("programmatic_serialization", ValueForm::Flag),
    ("programmatic_event", ValueForm::Event),
    ("priority", ValueForm::I32),
    ("mem_sync_domain_map", ValueForm::Expr),
    ("mem_sync_domain", ValueForm::Enum(&["Default", "Remote"])),
    ("preferred_cluster", ValueForm::Dim),
    ("completion_event", ValueForm::Event),
    ("device_updatable", ValueForm::Flag),
    ("shared_carveout", ValueForm::Percent),
    ("nvlink_centric", ValueForm::Flag),
];

/// The DSL keyword for dynamic shared memory (not an attribute kind: a field of the launch).
pub const SHARED: &str = "shared";
/// The DSL keyword of a stream-attribute group.
pub const STREAM: &str = "stream";

/// One key: the runtime's row and the DSL's value form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key {
    /// The runtime's row: type, CUDA name, placement.
    pub info: &'static KindInfo,
    /// How the value is written.
    pub form: ValueForm,
}

impl Key {
    /// The key as written in the DSL.
    pub fn name(&self) -> &'static str {
        self.info.key
    }
}

/// The key named `name`, if the runtime knows it.
pub fn lookup(name: &str) -> Option<Key> {
    let info = KINDS.iter().find(|k| k.key == name)?;
    let form = FORMS.iter().find(|(k, _)| *k == name)?.1;
    Some(Key { info, form })
}

/// Whether `name` is a key or a DSL keyword (`shared`, `stream`).
pub fn is_known(name: &str) -> bool {
    name == SHARED || name == STREAM || lookup(name).is_some()
}

/// Whether `name` is a flag key, the only kind of key written bare.
pub fn is_flag(name: &str) -> bool {
    lookup(name).is_some_and(|k| k.form == ValueForm::Flag)
}

/// What may be written in the launch list (or, with `stream == true`, inside `stream(...)`),
/// in the runtime's order, for "expected one of" messages.
pub fn valid_here(stream: bool) -> Vec<&'static str> {
    let mut keys: Vec<&'static str> = Vec::new();
    if !stream {
        keys.push(SHARED);
        keys.push("stream(...)");
    }
    keys.extend(
        KINDS
            .iter()
            .filter(|k| if stream { k.stream } else { k.launch })
            .map(|k| k.key),
    );
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
    fn every_runtime_kind_has_a_value_form_and_back() {
        for kind in KINDS {
            assert!(
                FORMS.iter().any(|(k, _)| *k == kind.key),
                "runtime key `{}` has no value form in macros/src/launch/keys.rs",
                kind.key
            );
            assert!(lookup(kind.key).is_some());
        }
        for (key, _) in FORMS {
            assert!(
                KINDS.iter().any(|k| k.key == *key),
                "value form for `{key}`, which the runtime does not know"
            );
        }
        assert_eq!(FORMS.len(), KINDS.len());
    }

    #[test]
    fn dsl_keywords_are_not_kinds() {
        assert!(lookup(SHARED).is_none());
        assert!(lookup(STREAM).is_none());
        assert!(is_known(SHARED) && is_known("sync") && !is_known("fast"));
        assert!(is_flag("cooperative") && !is_flag("sync") && !is_flag(STREAM));
    }

    #[test]
    fn placement_lists_follow_the_runtime() {
        let launch = valid_here(false);
        let stream = valid_here(true);
        assert!(launch.contains(&"cooperative") && !launch.contains(&"sync"));
        assert!(stream.contains(&"sync") && !stream.contains(&"cooperative"));
        assert!(stream.contains(&"priority") && launch.contains(&"priority"));
        assert!(!stream.contains(&SHARED));
    }

    #[test]
    fn suggestions() {
        let launch = valid_here(false);
        assert_eq!(nearest("coperative", &launch), Some("cooperative"));
        assert_eq!(nearest("clustr", &launch), Some("cluster"));
        assert_eq!(nearest("prio", &launch), None);
        assert_eq!(nearest("priorty", &launch), Some("priority"));
        assert_eq!(nearest("streem", &launch), Some("stream(...)"));
        assert_eq!(nearest("zzzzzzzz", &launch), None);
        assert_eq!(distance("kitten", "sitting"), 3);
    }
}
