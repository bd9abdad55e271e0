//! Whether a launch fits what the kernel's PTX fixed about it: its block against `.reqntid` /
//! `.maxntid`, its cluster and grid against `.reqnctapercluster` / `.maxclusterrank`, a
//! programmatic dependent launch against `griddepcontrol.wait`, and `cooperative` against a
//! grid-wide barrier. What the kernel executes is read over its whole call graph and is
//! three-valued ([`Fact`]): a rule that rests on absence ("never waits", "never syncs the grid")
//! fires only on a definite no, never where the kernel calls code the file does not hold.
//!
//! One rule set for both times, as data: the rules are the rows of [`Rule`] (in
//! `fit/rules.rs`), each with what in the launch it looks at ([`Subject`]) and when it is
//! broken, checked by one `const fn`, [`KernelInfo::check`], over one fact set per launch
//! ([`LaunchFacts`]). `#[kernel]` reads the PTX and emits a [`KernelInfo`] const whose messages
//! ([`read_info`], one per rule) are written out in full (a const panic can print a `&str`, not
//! format numbers); `launch!` builds the facts of its literal values and calls the check once,
//! in one `const` block per launch; the runtime calls the same check on the config before each
//! launch.

mod combine;
mod rules;
#[cfg(test)]
mod tests;
mod text;

pub use crate::ptx::Fact;
pub use combine::{combine, Variant};
pub use rules::{BlockBound, LiteralBlockRules, Rule, Subject, MESSAGES};
pub use text::{read_info, InfoText};

/// How a kernel that `#[kernel]` declares relates to `cooperative` launches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum CooperativeUse {
    /// Decided by the PTX: a kernel that syncs the grid needs `cooperative`, one that does not
    /// is not launched with it.
    #[default]
    ByPtx,
    /// `cooperative = "optional"`: the kernel syncs the grid only when
    /// `this_grid().is_valid()`, so plain launches are fine too.
    Optional,
    /// `cooperative = "co_resident"`: the kernel relies on all its blocks being resident
    /// together, with or without `this_grid().sync()`, so it is launched only with
    /// `cooperative` (the one launch that guarantees co-residency).
    CoResident,
}

/// The messages of a [`KernelInfo`], one per [`Rule`] (`Messages::get`); empty where the rule
/// cannot fail. Named fields, because `#[kernel]` writes them out by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Messages {
    /// The block breaks `.reqntid` or `.maxntid`.
    pub block: &'static str,
    /// A launch in the kernel's own block shape (`_`) of a kernel without `.reqntid`.
    pub no_kernel_block: &'static str,
    /// A `cluster` attribute that differs from `.reqnctapercluster`.
    pub cluster: &'static str,
    /// A cluster over `.maxclusterrank` blocks.
    pub cluster_rank: &'static str,
    /// No cluster for a kernel compiled with `.explicitcluster` and no cluster of its own.
    pub unclustered: &'static str,
    /// A grid that is not a whole number of compiled-in clusters.
    pub grid: &'static str,
    /// `programmatic_serialization` on a kernel that never waits.
    pub pdl_wait: &'static str,
    /// A grid-syncing (or `co_resident`) kernel launched without `cooperative`.
    pub not_cooperative: &'static str,
    /// `cooperative` on a kernel that never syncs the grid.
    pub needless_cooperative: &'static str,
    /// Not a rule: what the kernel calls that the file does not hold, and which checks that
    /// leaves out; empty when every fact a rule rests on is known.
    pub unseen: &'static str,
}

impl Messages {
    /// No messages: for a kernel whose PTX is not known yet.
    pub const NONE: Messages = Messages {
        block: "",
        no_kernel_block: "",
        cluster: "",
        cluster_rank: "",
        unclustered: "",
        grid: "",
        pdl_wait: "",
        not_cooperative: "",
        needless_cooperative: "",
        unseen: "",
    };
}

/// What a kernel's PTX fixes about its launches, with the message for each broken rule.
///
/// `#[kernel]` emits one per declaration as `<KERNEL as chevron::TypedKernel>::INFO`. For a
/// `cuda = "…"` kernel the PTX is only known after NVRTC ran: its const has `known == false`
/// and the runtime builds the full one from NVRTC's output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelInfo {
    /// Whether the fields below come from the kernel's PTX.
    pub known: bool,
    /// `.reqntid`: the exact block.
    pub reqntid: Option<[u32; 3]>,
    /// `.maxntid`: the most threads in a block (its product).
    pub maxntid: Option<[u32; 3]>,
    /// `.reqnctapercluster`: the compiled-in cluster.
    pub cluster: Option<[u32; 3]>,
    /// `.maxclusterrank`: the most blocks in a cluster.
    pub max_cluster_rank: Option<u32>,
    /// `.explicitcluster`: the kernel launches only in clusters.
    pub explicit_cluster: bool,
    /// `.blocksareclusters`: the grid counts clusters of [`Self::cluster`] blocks.
    pub blocks_are_clusters: bool,
    /// The kernel (or a function it calls) executes `griddepcontrol.wait`.
    pub waits: Fact,
    /// The kernel (or a function it calls) executes `griddepcontrol.launch_dependents`.
    pub triggers: Fact,
    /// The kernel (or a function it calls) syncs the whole grid (`this_grid().sync()`).
    pub grid_sync: Fact,
    /// `pdl = "no_upstream_reads"`: the kernel reads nothing the previous kernel writes.
    pub no_upstream_reads: bool,
    /// `cooperative = "…"` on the declaration.
    pub cooperative: CooperativeUse,
    /// The messages, naming the directive and the PTX file and line.
    pub messages: Messages,
}

/// One launch's facts, as far as they are known: `None` where a value is decided at run time
/// (at compile time, a non-literal expression).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct LaunchFacts {
    /// The grid.
    pub grid: Option<[u32; 3]>,
    /// The block. `None` also for a launch in the kernel's own block shape
    /// ([`Self::kernel_block`]).
    pub block: Option<[u32; 3]>,
    /// The launch takes the kernel's own block shape, its compiled-in `.reqntid`, instead of a
    /// block (`_` in `launch!`, `LaunchConfig::kernel_block`: `CU_LAUNCH_KERNEL_REQUIRED_BLOCK_DIM`
    /// in the driver's block); `false` where a block is given (or not known).
    pub kernel_block: bool,
    /// The `cluster` attribute: `Some(None)` when there is none.
    pub cluster: Option<Option<[u32; 3]>>,
    /// `cooperative`.
    pub cooperative: Option<bool>,
    /// `programmatic_serialization`.
    pub programmatic_serialization: Option<bool>,
}

/// The arguments of [`LaunchFacts::literal`]: grid, block, cluster and the known flags.
pub type LiteralArgs = ([u32; 3], [u32; 3], [u32; 3], u8);

impl LaunchFacts {
    /// The facts of a launch's literals in a few integers, so that `launch!`'s `const` block
    /// names no `Option`: a dim whose `x` is `0` is not known (no extent is 0); `known` has
    /// bit 0 when the `cluster` attribute is known (then `cluster` with `x` 0 is none), bit 1
    /// when `cooperative` is (bit 2: its value), bit 3 when `programmatic_serialization` is
    /// (bit 4: its value), bit 5 for [`Self::kernel_block`].
    pub const fn literal(grid: [u32; 3], block: [u32; 3], cluster: [u32; 3], known: u8) -> Self {
        const fn dim(d: [u32; 3]) -> Option<[u32; 3]> {
            if d[0] == 0 {
                None
            } else {
                Some(d)
            }
        }
        const fn flag(known: u8, at: u8) -> Option<bool> {
            if known & (1 << at) == 0 {
                None
            } else {
                Some(known & (1 << (at + 1)) != 0)
            }
        }
        LaunchFacts {
            grid: dim(grid),
            block: dim(block),
            cluster: if known & 1 == 0 {
                None
            } else {
                Some(dim(cluster))
            },
            kernel_block: known & (1 << 5) != 0,
            cooperative: flag(known, 1),
            programmatic_serialization: flag(known, 3),
        }
    }

    /// The arguments of [`Self::literal`] that make these facts: what `launch!` writes. `None`
    /// when an extent is `0` (which `literal` would read as not known).
    pub const fn literal_args(&self) -> Option<LiteralArgs> {
        const fn dim(d: Option<[u32; 3]>) -> Option<[u32; 3]> {
            match d {
                None => Some([0; 3]),
                Some(d) if d[0] == 0 => None,
                Some(d) => Some(d),
            }
        }
        const fn flag(f: Option<bool>, at: u8) -> u8 {
            match f {
                None => 0,
                Some(false) => 1 << at,
                Some(true) => (1 << at) | (1 << (at + 1)),
            }
        }
        let (Some(grid), Some(block)) = (dim(self.grid), dim(self.block)) else {
            return None;
        };
        let (cluster, known) = match self.cluster {
            None => ([0; 3], 0),
            Some(c) => match dim(c) {
                Some(c) => (c, 1),
                None => return None,
            },
        };
        let known = known
            | flag(self.cooperative, 1)
            | flag(self.programmatic_serialization, 3)
            | if self.kernel_block { 1 << 5 } else { 0 };
        Some((grid, block, cluster, known))
    }

    /// Nothing known: no rule can fail.
    pub const UNKNOWN: LaunchFacts = LaunchFacts {
        grid: None,
        block: None,
        kernel_block: false,
        cluster: None,
        cooperative: None,
        programmatic_serialization: None,
    };
}

impl KernelInfo {
    /// The info of a kernel whose PTX is not known (yet): no rule can fail.
    pub const UNKNOWN: KernelInfo = KernelInfo {
        known: false,
        reqntid: None,
        maxntid: None,
        cluster: None,
        max_cluster_rank: None,
        explicit_cluster: false,
        blocks_are_clusters: false,
        waits: Fact::Unknown,
        triggers: Fact::Unknown,
        grid_sync: Fact::Unknown,
        no_upstream_reads: false,
        cooperative: CooperativeUse::ByPtx,
        messages: Messages::NONE,
    };

    /// The flags and facts of [`Self::from_facts`] in one integer: bit 0 `known`, 1
    /// `no_upstream_reads`, 2 `explicit_cluster`, 3 `blocks_are_clusters`; two bits each for
    /// `cooperative` (at 4: 0 `ByPtx`, 1 `Optional`, 2 `CoResident`), `waits` (at 6),
    /// `triggers` (at 8) and `grid_sync` (at 10), a fact as 0 `Unknown`, 1 `No`, 2 `Yes`.
    pub const fn fact_bits(&self) -> u32 {
        const fn fact(f: Fact) -> u32 {
            match f {
                Fact::Unknown => 0,
                Fact::No => 1,
                Fact::Yes => 2,
            }
        }
        let cooperative = match self.cooperative {
            CooperativeUse::ByPtx => 0,
            CooperativeUse::Optional => 1,
            CooperativeUse::CoResident => 2,
        };
        self.known as u32
            | (self.no_upstream_reads as u32) << 1
            | (self.explicit_cluster as u32) << 2
            | (self.blocks_are_clusters as u32) << 3
            | cooperative << 4
            | fact(self.waits) << 6
            | fact(self.triggers) << 8
            | fact(self.grid_sync) << 10
    }

    /// `#[kernel]`'s `INFO` (the base of it, for a kernel with block or cluster directives):
    /// [`Self::UNKNOWN`] with the flags and facts `bits` ([`Self::fact_bits`]) and the
    /// messages `texts` ([`Messages::from_texts`]'s order). One call of plain arguments:
    /// rustc checks it in every declaration at less cost than a struct expression, and
    /// evaluates it only where a launch's constant check (or the program) reads it.
    pub const fn from_facts(bits: u32, texts: [&'static str; MESSAGES]) -> KernelInfo {
        const fn fact(bits: u32) -> Fact {
            match bits & 3 {
                1 => Fact::No,
                2 => Fact::Yes,
                _ => Fact::Unknown,
            }
        }
        KernelInfo {
            known: bits & 1 != 0,
            no_upstream_reads: bits & 2 != 0,
            explicit_cluster: bits & 4 != 0,
            blocks_are_clusters: bits & 8 != 0,
            cooperative: match (bits >> 4) & 3 {
                1 => CooperativeUse::Optional,
                2 => CooperativeUse::CoResident,
                _ => CooperativeUse::ByPtx,
            },
            waits: fact(bits >> 6),
            triggers: fact(bits >> 8),
            grid_sync: fact(bits >> 10),
            messages: Messages::from_texts(texts),
            ..KernelInfo::UNKNOWN
        }
    }
}
