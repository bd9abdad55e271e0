//! The launch rules as data: one row per rule in [`rules!`] (its name, what in the launch it
//! looks at, when it is broken), checked in the order of the rows by one `const fn`,
//! [`KernelInfo::check`], which `launch!` calls once per launch in a `const` block (on the
//! literals) and the runtime calls before each launch (on the config). A rule therefore has one
//! definition for both times; its message is [`super::read_info`]'s arm for it (an exhaustive
//! `match`, so a rule without one does not compile).

use super::{CooperativeUse, Fact, KernelInfo, LaunchFacts, Messages};

/// What in a launch a rule looks at: where `launch!` reports a broken rule (the literal that
/// breaks it, or the kernel's name when the launch leaves it out) and what the runtime's error
/// quotes of the launch ([`Subject::describe`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Subject {
    /// The block ([`LaunchFacts::block`]).
    Block,
    /// The `cluster` attribute ([`LaunchFacts::cluster`]).
    Cluster,
    /// The grid ([`LaunchFacts::grid`]).
    Grid,
    /// `programmatic_serialization` ([`LaunchFacts::programmatic_serialization`]).
    SerializationFlag,
    /// `cooperative` ([`LaunchFacts::cooperative`]).
    CooperativeFlag,
}

/// `(x, y, z)` as the messages write a dim.
impl Subject {
    /// Every subject.
    pub const ALL: [Subject; 5] = [
        Subject::Block,
        Subject::Cluster,
        Subject::Grid,
        Subject::SerializationFlag,
        Subject::CooperativeFlag,
    ];
}

fn dims(d: [u32; 3]) -> String {
    format!("({}, {}, {})", d[0], d[1], d[2])
}

impl Subject {
    /// What `facts` hold of this subject, as the runtime's error quotes it ("block (64, 2, 1)",
    /// "no cluster", "`cooperative`"); `None` where the facts do not know it.
    pub fn describe(self, facts: &LaunchFacts) -> Option<String> {
        let flag = |on: Option<bool>, name: &str| {
            on.map(|on| match on {
                true => format!("`{name}`"),
                false => format!("no `{name}`"),
            })
        };
        match self {
            Subject::Block if facts.kernel_block => {
                Some("the kernel's own block shape (`_`)".into())
            }
            Subject::Block => facts.block.map(|b| format!("block {}", dims(b))),
            Subject::Grid => facts.grid.map(|g| format!("grid {}", dims(g))),
            Subject::Cluster => facts.cluster.map(|c| match c {
                Some(c) => format!("cluster {}", dims(c)),
                None => "no cluster".into(),
            }),
            Subject::SerializationFlag => flag(
                facts.programmatic_serialization,
                "programmatic_serialization",
            ),
            Subject::CooperativeFlag => flag(facts.cooperative, "cooperative"),
        }
    }
}

impl LaunchFacts {
    /// Whether the facts know what `subject` looks at (else no rule on it can break).
    #[inline(always)]
    pub const fn knows(&self, subject: Subject) -> bool {
        match subject {
            Subject::Block => self.block.is_some() | self.kernel_block,
            Subject::Cluster => self.cluster.is_some(),
            Subject::Grid => self.grid.is_some(),
            Subject::SerializationFlag => self.programmatic_serialization.is_some(),
            Subject::CooperativeFlag => self.cooperative.is_some(),
        }
    }
}

const fn product(d: [u32; 3]) -> u64 {
    d[0] as u64 * d[1] as u64 * d[2] as u64
}

const fn same(a: [u32; 3], b: [u32; 3]) -> bool {
    a[0] == b[0] && a[1] == b[1] && a[2] == b[2]
}

/// The table: `NAME on SUBJECT => |kernel, launch| broken`, one row per rule, in the order they
/// are checked (the order a launch is written: block, cluster, grid, then the flags) and their
/// messages are stored. `broken` is a `const` expression over the kernel's [`KernelInfo`] and
/// the launch's [`LaunchFacts`]; it is `false` where the launch fact it needs is unknown. A
/// rule reads the launch fact of its own subject only: the runtime's quick path folds the flag
/// rules per flag and takes the full check whenever [`KernelInfo::fixes_clusters`]
/// (`folded_rules_agree_with_every_rule` in the runtime checks both).
macro_rules! rules {
    ($(
        $(#[$doc:meta])*
        $name:ident on $subject:ident => |$k:ident, $l:ident| $broken:expr;
    )*) => {
        /// A launch rule over a kernel's PTX facts ([`KernelInfo`]) and a launch's
        /// ([`LaunchFacts`]); [`KernelInfo::check`] returns the first one a launch breaks and
        /// [`KernelInfo::message`] says it in words.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Rule {
            $($(#[$doc])* $name,)*
        }

        impl KernelInfo {
            /// Every rule over what is known of a launch, in the table's order; the first
            /// broken one. The one check of both times: `launch!` calls it once per launch in a
            /// `const` block on the launch's literals, the runtime on the config before each
            /// launch. Written out rule by rule (not a loop over [`Rule::ALL`]), each behind
            /// [`LaunchFacts::knows`] of its subject, so that where the launch facts are
            /// constants the rules on unknown facts fold away (hence always inlined: the
            /// single-subject checks below are one rule or two after folding).
            #[inline(always)]
            pub const fn check(&self, launch: &LaunchFacts) -> Result<(), Rule> {
                $(if launch.knows(Subject::$subject) && Rule::$name.broken(self, launch) {
                    return Err(Rule::$name);
                })*
                Ok(())
            }
        }

        impl Rule {
            /// Every rule, in the order they are checked; `Rule::ALL[r as usize] == r`.
            pub const ALL: &'static [Rule] = &[$(Rule::$name),*];

            /// What in the launch the rule looks at.
            pub const fn subject(self) -> Subject {
                match self {
                    $(Rule::$name => Subject::$subject,)*
                }
            }

            /// The rule's name in the table (`"Block"`, `"PdlWait"`, …).
            pub const fn name(self) -> &'static str {
                match self {
                    $(Rule::$name => stringify!($name),)*
                }
            }

            /// Whether `kernel` and `launch` break the rule; `false` where the launch fact it
            /// looks at is unknown. Always inlined: with `self` a constant (as in
            /// [`KernelInfo::check`]) the `match` is one arm.
            #[inline(always)]
            pub const fn broken(self, kernel: &KernelInfo, launch: &LaunchFacts) -> bool {
                match self {
                    $(Rule::$name => {
                        let ($k, $l) = (kernel, launch);
                        $broken
                    })*
                }
            }
        }
    };
}

rules! {
    /// The block breaks `.reqntid` (the exact block) or `.maxntid` (the most threads).
    Block on Block => |k, l| match l.block {
        Some(b) => match (k.reqntid, k.maxntid) {
            (Some(req), _) if !same(req, b) => true,
            (_, Some(max)) => product(b) > product(max),
            _ => false,
        },
        None => false,
    };
    /// A launch in the kernel's own block shape (`_`, `CU_LAUNCH_KERNEL_REQUIRED_BLOCK_DIM`) of
    /// a kernel without one (no `.reqntid`).
    NoKernelBlock on Block => |k, l| l.kernel_block && k.known && k.reqntid.is_none();
    /// A `cluster` attribute that differs from `.reqnctapercluster`.
    Cluster on Cluster => |k, l| match (k.cluster, l.cluster) {
        (Some(fixed), Some(Some(given))) => !same(fixed, given),
        _ => false,
    };
    /// A cluster over `.maxclusterrank` blocks.
    ClusterRank on Cluster => |k, l| match (k.max_cluster_rank, l.cluster) {
        (Some(max), Some(Some(given))) => product(given) > max as u64,
        _ => false,
    };
    /// No cluster for a kernel compiled with `.explicitcluster` and no cluster of its own.
    Unclustered on Cluster => |k, l| {
        matches!(l.cluster, Some(None)) && k.explicit_cluster && k.cluster.is_none()
    };
    /// A grid that is not a whole number of compiled-in clusters in each dimension (unless the
    /// grid counts clusters, `.blocksareclusters`).
    Grid on Grid => |k, l| match (k.cluster, l.grid) {
        (Some(c), Some(g)) if !k.blocks_are_clusters => {
            let mut axis = 0;
            let mut broken = false;
            while axis < 3 {
                if c[axis] == 0 || !g[axis].is_multiple_of(c[axis]) {
                    broken = true;
                }
                axis += 1;
            }
            broken
        }
        _ => false,
    };
    /// `programmatic_serialization` on a kernel that definitely never executes
    /// `griddepcontrol.wait` (unless declared `pdl = "no_upstream_reads"`).
    PdlWait on SerializationFlag => |k, l| {
        matches!(l.programmatic_serialization, Some(true))
            && k.known
            && k.waits.is_no()
            && !k.no_upstream_reads
    };
    /// A grid-syncing kernel (or one declared `cooperative = "co_resident"`) launched without
    /// `cooperative`.
    NotCooperative on CooperativeFlag => |k, l| {
        matches!(l.cooperative, Some(false))
            && k.known
            && matches!(
                (k.grid_sync, k.cooperative),
                (Fact::Yes, CooperativeUse::ByPtx) | (_, CooperativeUse::CoResident)
            )
    };
    /// `cooperative` on a kernel that definitely never syncs the grid (and is declared neither
    /// `optional` nor `co_resident`).
    NeedlessCooperative on CooperativeFlag => |k, l| {
        matches!(l.cooperative, Some(true))
            && k.known
            && matches!(
                (k.grid_sync, k.cooperative),
                (Fact::No, CooperativeUse::ByPtx | CooperativeUse::Optional)
            )
    };
}

impl Rule {
    /// How many rules there are.
    pub const COUNT: usize = Rule::ALL.len();
}

/// How many messages a kernel's info holds: one per [`Rule`] (at `rule as usize`), then the
/// note on what the kernel calls that the file does not hold ([`Messages::unseen`]).
pub const MESSAGES: usize = Rule::COUNT + 1;

impl Messages {
    /// The message of `rule`.
    pub const fn get(&self, rule: Rule) -> &'static str {
        match rule {
            Rule::Block => self.block,
            Rule::NoKernelBlock => self.no_kernel_block,
            Rule::Cluster => self.cluster,
            Rule::ClusterRank => self.cluster_rank,
            Rule::Unclustered => self.unclustered,
            Rule::Grid => self.grid,
            Rule::PdlWait => self.pdl_wait,
            Rule::NotCooperative => self.not_cooperative,
            Rule::NeedlessCooperative => self.needless_cooperative,
        }
    }

    /// The messages stored by rule (`texts[rule as usize]`), then [`Self::unseen`] last: the
    /// order of [`super::InfoText::messages`].
    pub const fn from_texts(texts: [&'static str; MESSAGES]) -> Messages {
        let mut m = Messages {
            unseen: texts[Rule::COUNT],
            ..Messages::NONE
        };
        let mut i = 0;
        while i < Rule::COUNT {
            let text = texts[i];
            match Rule::ALL[i] {
                Rule::Block => m.block = text,
                Rule::NoKernelBlock => m.no_kernel_block = text,
                Rule::Cluster => m.cluster = text,
                Rule::ClusterRank => m.cluster_rank = text,
                Rule::Unclustered => m.unclustered = text,
                Rule::Grid => m.grid = text,
                Rule::PdlWait => m.pdl_wait = text,
                Rule::NotCooperative => m.not_cooperative = text,
                Rule::NeedlessCooperative => m.needless_cooperative = text,
            }
            i += 1;
        }
        m
    }
}

// The table's order is the variants' order: messages are stored at `rule as usize`.
const _: () = {
    let mut i = 0;
    while i < Rule::COUNT {
        assert!(Rule::ALL[i] as usize == i);
        i += 1;
    }
};

impl KernelInfo {
    /// For `launch!`'s `const` block: the first rule `launch` breaks, with its message, where
    /// the message says something (a kernel whose PTX is not known has none).
    pub const fn refusal(&self, launch: &LaunchFacts) -> Option<(Subject, &'static str)> {
        match self.check(launch) {
            Ok(()) => None,
            Err(rule) => {
                let message = self.message(rule);
                if message.is_empty() {
                    None
                } else {
                    Some((rule.subject(), message))
                }
            }
        }
    }

    /// The flags of [`LaunchFacts::literal`] under which any kernel may refuse a launch: bits 2
    /// and 4, a flag on; bit 5, the kernel's own block, refused without `.reqntid`.
    pub const LITERAL_FLAGS: u8 = 1 << 2 | 1 << 4 | 1 << 5;

    /// Whether a launch whose facts are literals (`known`: [`LaunchFacts::literal`]'s flags)
    /// may break a rule of this kernel: `false` only when the launch turns no flag on and gives
    /// a block (not the kernel's own), and the kernel fixes nothing about its block, cluster and
    /// grid (no `.reqntid`, `.maxntid` or cluster directive) and needs no `cooperative` (it does
    /// not sync the grid, and is not declared `co_resident`), where [`Self::refusal`] is `None` whatever the extents. A few
    /// field reads: `launch!`'s `const` item asks it first, since evaluating every rule at
    /// compile time costs rustc some two million instructions per launch.
    pub const fn may_refuse_literal(&self, known: u8) -> bool {
        // Patterns, not `Option::is_some`: rustc interprets every call of a `const fn`, and a
        // call costs it more than the comparison it makes.
        let flag_on = known & Self::LITERAL_FLAGS != 0;
        flag_on
            || !matches!(
                (
                    self.reqntid,
                    self.maxntid,
                    self.cluster,
                    self.max_cluster_rank
                ),
                (None, None, None, None)
            )
            || self.explicit_cluster
            || matches!(self.grid_sync, Fact::Yes)
            || matches!(self.cooperative, CooperativeUse::CoResident)
    }

    /// For `launch!`'s `const` item: the first rule `launch` breaks that has a message, as
    /// `rule as usize`; `usize::MAX` when none is broken. `launch!` picks the refusal's words
    /// by it (the runtime's `Refusal<RULE>`).
    pub const fn refused_rule(&self, launch: &LaunchFacts) -> usize {
        match self.check(launch) {
            Err(rule) if !self.message(rule).is_empty() => rule as usize,
            _ => usize::MAX,
        }
    }

    /// Whether some launch may break `rule` on this kernel: what `#[kernel]` asks to emit the
    /// words of the rule's refusal (`launch!` names them through the kernel's type). Never
    /// `false` where [`Self::check`] can return the rule (tested against every rule).
    pub const fn may_break(&self, rule: Rule) -> bool {
        match rule {
            Rule::Block => self.reqntid.is_some() || self.maxntid.is_some(),
            Rule::NoKernelBlock => self.known && self.reqntid.is_none(),
            Rule::Cluster => self.cluster.is_some(),
            Rule::ClusterRank => self.max_cluster_rank.is_some(),
            Rule::Unclustered => self.explicit_cluster && self.cluster.is_none(),
            Rule::Grid => self.cluster.is_some() && !self.blocks_are_clusters,
            Rule::PdlWait => self.known && self.waits.is_no() && !self.no_upstream_reads,
            Rule::NotCooperative => {
                self.known
                    && matches!(
                        (self.grid_sync, self.cooperative),
                        (Fact::Yes, CooperativeUse::ByPtx) | (_, CooperativeUse::CoResident)
                    )
            }
            Rule::NeedlessCooperative => {
                self.known
                    && matches!(
                        (self.grid_sync, self.cooperative),
                        (Fact::No, CooperativeUse::ByPtx | CooperativeUse::Optional)
                    )
            }
        }
    }

    /// The rules on the block alone ([`Rule::Block`]: `.reqntid`, `.maxntid`).
    #[inline]
    pub const fn check_block(&self, block: [u32; 3]) -> Result<(), Rule> {
        self.check(&LaunchFacts {
            block: Some(block),
            ..LaunchFacts::UNKNOWN
        })
    }

    /// The rules on a launch in the kernel's own block shape (`_`): refused without `.reqntid`.
    #[inline]
    pub const fn check_kernel_block(&self) -> Result<(), Rule> {
        self.check(&LaunchFacts {
            kernel_block: true,
            ..LaunchFacts::UNKNOWN
        })
    }

    /// The rules on the `cluster` attribute alone (`None`: none): `.reqnctapercluster`,
    /// `.explicitcluster` and `.maxclusterrank`.
    #[inline]
    pub const fn check_cluster(&self, cluster: Option<[u32; 3]>) -> Result<(), Rule> {
        self.check(&LaunchFacts {
            cluster: Some(cluster),
            ..LaunchFacts::UNKNOWN
        })
    }

    /// The rules on the grid alone: a whole number of compiled-in clusters.
    #[inline]
    pub const fn check_grid(&self, grid: [u32; 3]) -> Result<(), Rule> {
        self.check(&LaunchFacts {
            grid: Some(grid),
            ..LaunchFacts::UNKNOWN
        })
    }

    /// The rules on `programmatic_serialization` alone: refused only for a kernel that
    /// definitely never waits.
    #[inline]
    pub const fn check_serialization(&self, on: bool) -> Result<(), Rule> {
        self.check(&LaunchFacts {
            programmatic_serialization: Some(on),
            ..LaunchFacts::UNKNOWN
        })
    }

    /// The rules on `cooperative` alone: a kernel that syncs the grid, or is declared
    /// `co_resident`, needs it; one that definitely never syncs the grid (and is declared
    /// neither `optional` nor `co_resident`) is not launched with it.
    #[inline]
    pub const fn check_cooperative(&self, on: bool) -> Result<(), Rule> {
        self.check(&LaunchFacts {
            cooperative: Some(on),
            ..LaunchFacts::UNKNOWN
        })
    }

    /// Whether a rule on the cluster or the grid can refuse some launch: whether the PTX fixes
    /// anything about the clusters (`.reqnctapercluster`, `.maxclusterrank`,
    /// `.explicitcluster`). When it does not, the rules left look at the block
    /// ([`Self::check_block`]) and at one `bool` each ([`Self::check_serialization`],
    /// [`Self::check_cooperative`]): the runtime then checks a launch in a few compares.
    pub const fn fixes_clusters(&self) -> bool {
        self.cluster.is_some() || self.max_cluster_rank.is_some() || self.explicit_cluster
    }

    /// The message of a broken rule.
    pub const fn message(&self, rule: Rule) -> &'static str {
        self.messages.get(rule)
    }
}

/// What a kernel's rules say of a launch whose only literal is its block: the grid computed,
/// no `cluster` and no flag on ([`LaunchFacts::literal`] with the flags
/// [`KernelInfo::LITERAL_BLOCK_KNOWN`]). `launch!` checks such a launch in types, against
/// the type `#[kernel]` states from these as the kernel's `TypedKernel::Literal` (the
/// runtime's `kernel::literal`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LiteralBlockRules {
    /// What [`Rule::Block`] asks of the block.
    pub block: BlockBound,
    /// The rule every such launch breaks, whatever its block (checked after the block):
    /// `.explicitcluster` without a cluster, a grid-syncing or `co_resident` kernel without
    /// `cooperative`.
    pub constant: Option<Rule>,
}

/// [`Rule::Block`] on a literal block: what [`LiteralBlockRules::block`] holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockBound {
    /// Any block (nothing fixed, a bound no block of at most 1024 threads reaches, or a
    /// kernel whose refusals have no words).
    Any,
    /// Exactly this block (`.reqntid`).
    Exact([u32; 3]),
    /// At most `threads` threads (`.maxntid max`, `threads` its product, below 1024).
    AtMost {
        /// The `.maxntid` directive.
        max: [u32; 3],
        /// Its product.
        threads: u64,
    },
    /// No block (`.reqntid` of more threads than `.maxntid`).
    Never,
}

impl KernelInfo {
    /// The flags of [`LaunchFacts::literal`] for a launch with no `cluster` and no flag on:
    /// the cluster, `cooperative` and `programmatic_serialization` known, none of them on.
    pub const LITERAL_BLOCK_KNOWN: u8 = 1 | 1 << 1 | 1 << 3;

    /// This kernel's rules on a launch whose only literal is its block, with at most 1024
    /// threads; `has_message(rule)`: whether the kernel's refusal of `rule` has words (a rule
    /// without them refuses nothing, as in [`Self::refused_rule`]).
    pub fn literal_block_rules(&self, has_message: impl Fn(Rule) -> bool) -> LiteralBlockRules {
        let facts = LaunchFacts::literal([0; 3], [0; 3], [0; 3], Self::LITERAL_BLOCK_KNOWN);
        let constant = match self.check(&facts) {
            Err(rule) if has_message(rule) => Some(rule),
            _ => None,
        };
        let block = if !has_message(Rule::Block) {
            BlockBound::Any
        } else {
            match (self.reqntid, self.maxntid) {
                (Some(req), Some(max)) if product(req) > product(max) => BlockBound::Never,
                (Some(req), _) => BlockBound::Exact(req),
                (None, Some(max)) if product(max) < 1024 => BlockBound::AtMost {
                    max,
                    threads: product(max),
                },
                _ => BlockBound::Any,
            }
        };
        LiteralBlockRules { block, constant }
    }
}

impl LiteralBlockRules {
    /// The rule a launch with the block `block` is refused by, as `launch!` reports it: the
    /// block's first, then the constant one; for a kernel with `.reqntid` that also breaks a
    /// constant rule, that rule whatever the block (one trait object words one rule, and
    /// "the block is not `.reqntid`" is no type).
    pub fn refusal(&self, block: [u32; 3]) -> Option<Rule> {
        let block_broken = match self.block {
            BlockBound::Any => false,
            BlockBound::Exact(_) if self.constant.is_some() => false,
            BlockBound::Exact(req) => !same(req, block),
            BlockBound::AtMost { threads, .. } => product(block) > threads,
            BlockBound::Never => true,
        };
        if block_broken {
            Some(Rule::Block)
        } else {
            self.constant
        }
    }
}
