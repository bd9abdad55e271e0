//! Whether a launch fits what the kernel's PTX fixed about it: its block against `.reqntid` /
//! `.maxntid`, its cluster and grid against `.reqnctapercluster` / `.maxclusterrank`, a
//! programmatic dependent launch against `griddepcontrol.wait`, and `cooperative` against a
//! grid-wide barrier. What the kernel executes is read over its whole call graph and is
//! three-valued ([`Fact`]): a rule that rests on absence ("never waits", "never syncs the grid")
//! fires only on a definite no, never where the kernel calls code the file does not hold.
//!
//! One rule set for both times: `#[kernel]` reads the PTX and emits a [`KernelInfo`] const whose
//! messages are written out in full (a const panic can print a `&str`, not format numbers);
//! `launch!` calls the `const fn` checks below on its literal values in a `const` block, and the
//! runtime calls [`KernelInfo::check`] on the config before each launch.

use crate::ptx::{Entry, Seen};

pub use crate::ptx::Fact;

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

/// The messages of a [`KernelInfo`], one per rule; empty where the rule cannot fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Messages {
    /// The block breaks `.reqntid` or `.maxntid`.
    pub block: &'static str,
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
/// `#[kernel]` emits one per declaration as the associated const `__CHEVRON_INFO`. For a
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

/// A launch's values as far as they are known: `None` where a value is decided at run time
/// (at compile time, a non-literal expression).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct LaunchFacts {
    /// The grid.
    pub grid: Option<[u32; 3]>,
    /// The block.
    pub block: Option<[u32; 3]>,
    /// The `cluster` attribute: `Some(None)` when there is none.
    pub cluster: Option<Option<[u32; 3]>>,
    /// `cooperative`.
    pub cooperative: Option<bool>,
    /// `programmatic_serialization`.
    pub programmatic_serialization: Option<bool>,
}

/// The first rule a launch breaks; [`KernelInfo::message`] says it in words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Broken {
    /// [`Messages::block`].
    Block,
    /// [`Messages::cluster`].
    Cluster,
    /// [`Messages::cluster_rank`].
    ClusterRank,
    /// [`Messages::unclustered`].
    Unclustered,
    /// [`Messages::grid`].
    Grid,
    /// [`Messages::pdl_wait`].
    PdlWait,
    /// [`Messages::not_cooperative`].
    NotCooperative,
    /// [`Messages::needless_cooperative`].
    NeedlessCooperative,
}

const fn product(d: [u32; 3]) -> u64 {
    d[0] as u64 * d[1] as u64 * d[2] as u64
}

const fn same(a: [u32; 3], b: [u32; 3]) -> bool {
    a[0] == b[0] && a[1] == b[1] && a[2] == b[2]
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

    /// The block against `.reqntid` and `.maxntid`.
    #[inline]
    pub const fn check_block(&self, block: [u32; 3]) -> Result<(), Broken> {
        if let Some(req) = self.reqntid {
            if !same(req, block) {
                return Err(Broken::Block);
            }
        }
        if let Some(max) = self.maxntid {
            if product(block) > product(max) {
                return Err(Broken::Block);
            }
        }
        Ok(())
    }

    /// The `cluster` attribute (`None`: none) against `.reqnctapercluster`,
    /// `.explicitcluster` and `.maxclusterrank`.
    #[inline]
    pub const fn check_cluster(&self, cluster: Option<[u32; 3]>) -> Result<(), Broken> {
        if let (Some(fixed), Some(given)) = (self.cluster, cluster) {
            if !same(fixed, given) {
                return Err(Broken::Cluster);
            }
        }
        if self.explicit_cluster && self.cluster.is_none() && cluster.is_none() {
            return Err(Broken::Unclustered);
        }
        if let (Some(max), Some(given)) = (self.max_cluster_rank, cluster) {
            if product(given) > max as u64 {
                return Err(Broken::ClusterRank);
            }
        }
        Ok(())
    }

    /// The grid against the compiled-in cluster: a whole number of clusters in each dimension,
    /// unless the grid counts clusters (`.blocksareclusters`).
    #[inline]
    pub const fn check_grid(&self, grid: [u32; 3]) -> Result<(), Broken> {
        if self.blocks_are_clusters {
            return Ok(());
        }
        if let Some(c) = self.cluster {
            let mut k = 0;
            while k < 3 {
                if c[k] == 0 || !grid[k].is_multiple_of(c[k]) {
                    return Err(Broken::Grid);
                }
                k += 1;
            }
        }
        Ok(())
    }

    /// `programmatic_serialization` against `griddepcontrol.wait`: refused only for a kernel
    /// that definitely never waits.
    #[inline]
    pub const fn check_serialization(&self, on: bool) -> Result<(), Broken> {
        if on && self.known && self.waits.is_no() && !self.no_upstream_reads {
            return Err(Broken::PdlWait);
        }
        Ok(())
    }

    /// `cooperative` against the grid-wide barrier and the declaration: a kernel that syncs
    /// the grid, or is declared `co_resident`, needs it; one that definitely never syncs the
    /// grid (and is declared neither `optional` nor `co_resident`) is not launched with it.
    #[inline]
    pub const fn check_cooperative(&self, on: bool) -> Result<(), Broken> {
        if !self.known {
            return Ok(());
        }
        match (on, self.grid_sync, self.cooperative) {
            (false, Fact::Yes, CooperativeUse::ByPtx) | (false, _, CooperativeUse::CoResident) => {
                Err(Broken::NotCooperative)
            }
            (true, Fact::No, CooperativeUse::ByPtx | CooperativeUse::Optional) => {
                Err(Broken::NeedlessCooperative)
            }
            _ => Ok(()),
        }
    }

    /// Whether [`Self::check_cluster`] or [`Self::check_grid`] can refuse some launch: whether
    /// the PTX fixes anything about the clusters (`.reqnctapercluster`, `.maxclusterrank`,
    /// `.explicitcluster`). When it does not, the rules left look at the block
    /// ([`Self::check_block`]) and at one `bool` each ([`Self::check_serialization`],
    /// [`Self::check_cooperative`]): the runtime then checks a launch in a few compares.
    pub const fn fixes_clusters(&self) -> bool {
        self.cluster.is_some() || self.max_cluster_rank.is_some() || self.explicit_cluster
    }

    /// Every rule over what is known of a launch, in the order the launch is written (block,
    /// cluster, grid, then the flags); the first broken one.
    pub const fn check(&self, l: &LaunchFacts) -> Result<(), Broken> {
        macro_rules! rule {
            ($e:expr) => {
                if let Err(b) = $e {
                    return Err(b);
                }
            };
        }
        if let Some(b) = l.block {
            rule!(self.check_block(b));
        }
        if let Some(c) = l.cluster {
            rule!(self.check_cluster(c));
        }
        if let Some(g) = l.grid {
            rule!(self.check_grid(g));
        }
        if let Some(on) = l.programmatic_serialization {
            rule!(self.check_serialization(on));
        }
        if let Some(on) = l.cooperative {
            rule!(self.check_cooperative(on));
        }
        Ok(())
    }

    /// The message of a broken rule.
    pub const fn message(&self, broken: Broken) -> &'static str {
        let m = &self.messages;
        match broken {
            Broken::Block => m.block,
            Broken::Cluster => m.cluster,
            Broken::ClusterRank => m.cluster_rank,
            Broken::Unclustered => m.unclustered,
            Broken::Grid => m.grid,
            Broken::PdlWait => m.pdl_wait,
            Broken::NotCooperative => m.not_cooperative,
            Broken::NeedlessCooperative => m.needless_cooperative,
        }
    }

    /// For `launch!`'s const checks: `""` when `r` is `Ok`, the message otherwise.
    pub const fn verdict(&self, r: Result<(), Broken>) -> &'static str {
        match r {
            Ok(()) => "",
            Err(b) => self.message(b),
        }
    }
}

/// A [`KernelInfo`] as read from an entry, with owned messages: `#[kernel]` writes it out as a
/// const, the runtime leaks one per `cuda = "…"` kernel (once per process).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InfoText {
    /// The info, with empty messages.
    pub info: KernelInfo,
    /// The messages, in the order of [`Messages`]' fields.
    pub messages: [String; 9],
    /// The warning for a `programmatic_event` launch, when the kernel never executes
    /// `griddepcontrol.launch_dependents`, nor does any function it calls: its event then fires
    /// only when the kernel ends. `None` when it does, or may (a call chevron cannot see).
    pub no_trigger: Option<String>,
}

fn dims_text(d: [u32; 3]) -> String {
    format!("({}, {}, {})", d[0], d[1], d[2])
}

/// ` in `f`, which it calls` for a site in a function the entry calls; empty for its own body.
fn in_callee(func: Option<&str>) -> String {
    func.map_or(String::new(), |f| format!(", in `{f}`, which it calls"))
}

/// Reads the rules of `entry`. `name` is the kernel's name in messages, `file` how they name
/// the PTX (`kernels/bounds.ptx`, or the `.cu` file and "compiled by NVRTC").
pub fn read_info(
    entry: &Entry,
    name: &str,
    file: &str,
    no_upstream_reads: bool,
    cooperative: CooperativeUse,
) -> InfoText {
    let d = &entry.directives;
    let u = &entry.uses;
    let info = KernelInfo {
        known: true,
        reqntid: d.reqntid.map(|x| x.dims),
        maxntid: d.maxntid.map(|x| x.dims),
        cluster: d.reqnctapercluster.map(|x| x.dims),
        max_cluster_rank: d.maxclusterrank.map(|x| x.value),
        explicit_cluster: d.explicitcluster.is_some(),
        blocks_are_clusters: d.blocksareclusters.is_some(),
        waits: u.griddep_wait.fact(),
        triggers: u.griddep_launch_dependents.fact(),
        grid_sync: u.grid_sync.fact(),
        no_upstream_reads,
        cooperative,
        messages: Messages::NONE,
    };
    let block = match (d.reqntid, d.maxntid) {
        (Some(r), _) => {
            let [x, y, z] = r.dims;
            format!(
                "kernel `{name}` is compiled with `.reqntid {x}, {y}, {z}` ({file}:{}): it launches \
                 only with a block of exactly {}; use that block",
                r.line,
                dims_text(r.dims)
            )
        }
        (None, Some(m)) => {
            let [x, y, z] = m.dims;
            format!(
                "kernel `{name}` is compiled with `.maxntid {x}, {y}, {z}` ({file}:{}, from \
                 `__launch_bounds__`): a block of more than {} threads cannot launch it; use a \
                 smaller block, or raise the kernel's bound",
                m.line,
                u64::from(x) * u64::from(y) * u64::from(z)
            )
        }
        (None, None) => String::new(),
    };
    let (cluster, grid) = match d.reqnctapercluster {
        Some(c) => {
            let [x, y, z] = c.dims;
            let text = dims_text(c.dims);
            let grid = if d.blocksareclusters.is_some() {
                // The grid counts clusters: any grid is a whole number of them.
                String::new()
            } else {
                format!(
                    "kernel `{name}` runs in clusters of {text} blocks (`.reqnctapercluster` at \
                     {file}:{}): its grid must be a whole number of clusters; make each grid \
                     extent a multiple of the cluster's",
                    c.line
                )
            };
            (
                format!(
                    "kernel `{name}` is compiled with `.reqnctapercluster {x}, {y}, {z}` \
                     ({file}:{}, from `__cluster_dims__`): a `cluster` other than {text} conflicts \
                     with it; leave `cluster` out (the compiled-in clusters apply) or \
                     make it {text}",
                    c.line
                ),
                grid,
            )
        }
        None => (String::new(), String::new()),
    };
    let cluster_rank = d.maxclusterrank.map_or(String::new(), |m| {
        format!(
            "kernel `{name}` is compiled with `.maxclusterrank {}` ({file}:{}): a cluster of more \
             than {} blocks cannot launch it; use a smaller `cluster`",
            m.value, m.line, m.value
        )
    });
    let unclustered = match (d.explicitcluster, d.reqnctapercluster) {
        (Some(line), None) => format!(
            "kernel `{name}` is compiled with `.explicitcluster` ({file}:{line}, from \
             `__cluster_dims__` without dimensions): it launches only in clusters, and none is \
             compiled in; give the launch a `cluster = …`"
        ),
        _ => String::new(),
    };
    let pdl_wait = format!(
        "kernel `{name}` never executes `griddepcontrol.wait`, nor does any function it calls \
         ({file}, entry at line {}): with `programmatic_serialization` it can start before the \
         previous kernel has finished and read that kernel's output before it is written; call \
         `cudaGridDependencySynchronize()` before reading it, or, if the kernel reads nothing \
         the previous kernel writes, declare it with \
         `#[kernel(…, pdl = \"no_upstream_reads\")]`",
        entry.line
    );
    let not_cooperative = match (&u.grid_sync, cooperative) {
        (Seen::Yes(site), _) => format!(
            "kernel `{name}` syncs the whole grid ({file}:{}{}: the grid barrier of \
             `this_grid().sync()`, on the cooperative grid workspace): launch it with \
             `cooperative`; a plain launch has no grid barrier, and after one cooperative launch \
             of the function the driver may let plain ones pass unnoticed; if the kernel syncs \
             only when `this_grid().is_valid()`, declare it with \
             `#[kernel(…, cooperative = \"optional\")]`",
            site.line,
            in_callee(site.func.as_deref())
        ),
        (_, CooperativeUse::CoResident) => format!(
            "kernel `{name}` is declared `cooperative = \"co_resident\"`: it relies on all its \
             blocks being resident together, which only a `cooperative` launch guarantees; \
             launch it with `cooperative`, or remove `cooperative = \"co_resident\"` if it does \
             not rely on that"
        ),
        _ => String::new(),
    };
    let needless_cooperative = format!(
        "kernel `{name}` never syncs the whole grid, nor does any function it calls ({file}, \
         entry at line {}): `cooperative` only limits its grid to what fits on the GPU at once; \
         remove `cooperative`, or, if the kernel relies on all its blocks being resident \
         together, declare it with `#[kernel(…, cooperative = \"co_resident\")]`",
        entry.line
    );
    let no_trigger = (u.griddep_launch_dependents == Seen::No).then(|| {
        format!(
            "kernel `{name}` never executes `griddepcontrol.launch_dependents`, nor does any \
             function it calls ({file}, entry at line {}): with `programmatic_event` its event \
             fires only when the kernel ends, so the dependent kernel gains no overlap; call \
             `cudaTriggerProgrammaticLaunchCompletion()` in the kernel once its dependents may \
             start, or add `#[allow(deprecated)]` to the function of this launch if ordering \
             at the end is what you want",
            entry.line
        )
    });
    let unseen = unseen_text(entry, name, file);
    InfoText {
        no_trigger,
        info,
        messages: [
            block,
            cluster,
            cluster_rank,
            unclustered,
            grid,
            pdl_wait,
            not_cooperative,
            needless_cooperative,
            unseen,
        ],
    }
}

/// What the entry calls that the file does not hold, and the checks it leaves out: only where
/// a fact a rule rests on (the grid barrier, `griddepcontrol.wait`) is unknown.
fn unseen_text(entry: &Entry, name: &str, file: &str) -> String {
    let u = &entry.uses;
    let Some(call) = &u.unseen else {
        return String::new();
    };
    let mut whether = Vec::new();
    let mut checks = Vec::new();
    if u.grid_sync == Seen::Unknown {
        whether.push("it syncs the whole grid");
        checks.push("`cooperative`");
    }
    if u.griddep_wait == Seen::Unknown {
        whether.push("it executes `griddepcontrol.wait`");
        checks.push("`programmatic_serialization`");
    }
    if whether.is_empty() {
        return String::new();
    }
    format!(
        "kernel `{name}` {} ({file}:{}{}): chevron cannot see whether {}, so it does not check \
         {} against it",
        call.describe(),
        call.site.line,
        in_callee(call.site.func.as_deref()),
        whether.join(" or whether "),
        checks.join(" or ")
    )
}

impl InfoText {
    /// The info with its messages leaked (`'static`): for kernels whose PTX is read at run time,
    /// once per kernel and process.
    pub fn leak(self) -> KernelInfo {
        let [block, cluster, cluster_rank, unclustered, grid, pdl_wait, not_cooperative, needless_cooperative, unseen] =
            self.messages.map(|m| &*String::leak(m));
        KernelInfo {
            messages: Messages {
                block,
                cluster,
                cluster_rank,
                unclustered,
                grid,
                pdl_wait,
                not_cooperative,
                needless_cooperative,
                unseen,
            },
            ..self.info
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptx::parse_entries;

    fn info(src: &str, k: usize) -> KernelInfo {
        let es = parse_entries(src).expect("PTX parses");
        read_info(&es[k], &es[k].name, "k.ptx", false, CooperativeUse::ByPtx).leak()
    }

    #[test]
    fn block_against_reqntid_and_maxntid() {
        let i = info(".entry k() .reqntid 128, 2 { ret; }", 0);
        assert_eq!(i.reqntid, Some([128, 2, 1]));
        assert_eq!(i.check_block([128, 2, 1]), Ok(()));
        assert_eq!(i.check_block([256, 1, 1]), Err(Broken::Block));
        assert!(i
            .message(Broken::Block)
            .starts_with("kernel `k` is compiled with `.reqntid 128, 2, 1` (k.ptx:1)"));
        let i = info(".entry k()\n.maxntid 256, 1, 1\n{ ret; }", 0);
        assert_eq!(i.check_block([16, 16, 1]), Ok(()));
        assert_eq!(i.check_block([16, 16, 2]), Err(Broken::Block));
        assert!(i
            .message(Broken::Block)
            .contains("(k.ptx:2, from `__launch_bounds__`)"));
    }

    #[test]
    fn cluster_and_grid() {
        let i = info(
            ".entry k() .explicitcluster .reqnctapercluster 2, 1, 1 { ret; }",
            0,
        );
        assert_eq!(i.check_cluster(None), Ok(()));
        assert_eq!(i.check_cluster(Some([2, 1, 1])), Ok(()));
        assert_eq!(i.check_cluster(Some([4, 1, 1])), Err(Broken::Cluster));
        assert_eq!(i.check_grid([6, 1, 1]), Ok(()));
        assert_eq!(i.check_grid([7, 1, 1]), Err(Broken::Grid));
        let i = info(".entry k() .maxclusterrank 4 { ret; }", 0);
        assert_eq!(i.check_cluster(Some([2, 2, 1])), Ok(()));
        assert_eq!(i.check_cluster(Some([8, 1, 1])), Err(Broken::ClusterRank));
        assert_eq!(i.check_grid([7, 1, 1]), Ok(()));
    }

    #[test]
    fn programmatic_event_warning_only_where_the_call_graph_proves_no_trigger() {
        let src = ".entry t() { griddepcontrol.launch_dependents; ret; }\n\
                   .entry n() { ret; }\n\
                   .entry c() { call.uni f, (); ret; }\n\
                   .func g() { griddepcontrol.launch_dependents; ret; }\n\
                   .func h() { ret; }\n\
                   .entry via_g() { call.uni g, (); ret; }\n\
                   .entry via_h() { call.uni h, (); ret; }";
        let es = parse_entries(src).expect("PTX parses");
        let warn = |name: &str| {
            let e = es.iter().find(|e| e.name == name).expect(name);
            read_info(e, &e.name, "k.ptx", false, CooperativeUse::ByPtx).no_trigger
        };
        assert_eq!(warn("t"), None);
        let n = warn("n").expect("no trigger in `n`");
        assert!(
            n.starts_with(
                "kernel `n` never executes `griddepcontrol.launch_dependents`, nor does any \
                 function it calls (k.ptx, entry at line 2)"
            ),
            "{n}"
        );
        // A call the file does not hold may trigger: unknown, so no warning.
        assert_eq!(warn("c"), None);
        // A `.func` it calls triggers: no warning; one that does not: the warning.
        assert_eq!(warn("via_g"), None);
        assert!(warn("via_h").is_some());
    }

    #[test]
    fn pdl_and_cooperative() {
        let src = ".entry w() { griddepcontrol.wait; ret; }\n\
                   .entry n() { ret; }\n\
                   .entry g() { mov.u32 %r1, %envreg1;\n\
                     atom.add.release.gpu.u32 %r2, [%rd1], 1; ret; }";
        let (w, n, g) = (info(src, 0), info(src, 1), info(src, 2));
        assert_eq!(w.check_serialization(true), Ok(()));
        assert_eq!(n.check_serialization(true), Err(Broken::PdlWait));
        assert_eq!(n.check_serialization(false), Ok(()));
        assert_eq!(g.check_cooperative(false), Err(Broken::NotCooperative));
        assert_eq!(g.check_cooperative(true), Ok(()));
        assert_eq!(n.check_cooperative(true), Err(Broken::NeedlessCooperative));
        assert!(g.message(Broken::NotCooperative).contains("k.ptx:4"));
        let opt_out = KernelInfo {
            no_upstream_reads: true,
            cooperative: CooperativeUse::CoResident,
            ..n
        };
        assert_eq!(opt_out.check_serialization(true), Ok(()));
        assert_eq!(opt_out.check_cooperative(true), Ok(()));
        let optional = KernelInfo {
            cooperative: CooperativeUse::Optional,
            ..g
        };
        assert_eq!(optional.check_cooperative(false), Ok(()));
        // `co_resident` needs `cooperative`, syncing or not.
        let co_resident = KernelInfo {
            cooperative: CooperativeUse::CoResident,
            ..n
        };
        assert_eq!(
            co_resident.check_cooperative(false),
            Err(Broken::NotCooperative)
        );
        // Unknown PTX: nothing fails.
        assert_eq!(KernelInfo::UNKNOWN.check_serialization(true), Ok(()));
        assert_eq!(KernelInfo::UNKNOWN.check_cooperative(true), Ok(()));
    }

    #[test]
    fn check_takes_the_first_broken_rule_in_written_order() {
        let i = info(".entry k() .maxntid 64 .reqnctapercluster 2 { ret; }", 0);
        let l = LaunchFacts {
            grid: Some([3, 1, 1]),
            block: Some([128, 1, 1]),
            cluster: Some(None),
            cooperative: Some(true),
            programmatic_serialization: Some(true),
        };
        assert_eq!(i.check(&l), Err(Broken::Block));
        let l = LaunchFacts { block: None, ..l };
        assert_eq!(i.check(&l), Err(Broken::Grid));
        assert_eq!(i.check(&LaunchFacts::default()), Ok(()));
        // Usable in a const.
        const I: KernelInfo = KernelInfo::UNKNOWN;
        const V: &str = I.verdict(I.check_block([2048, 1, 1]));
        assert_eq!(V, "");
    }

    /// A kernel whose PTX fixes nothing about clusters passes the cluster and grid rules
    /// whatever the launch; one fixing anything refuses some launch.
    #[test]
    fn fixes_clusters_says_whether_a_cluster_or_grid_rule_can_fail() {
        let extents = [0, 1, 2, 3, 7, 8, 16, 64, 1024, 65535, u32::MAX];
        let dims = || {
            extents
                .into_iter()
                .flat_map(move |x| extents.into_iter().map(move |y| [x, y, 1 + (x & 3)]))
        };
        let refuses_some = |i: &KernelInfo| {
            dims().any(|d| {
                i.check_cluster(Some(d)).is_err()
                    || i.check_cluster(None).is_err()
                    || i.check_grid(d).is_err()
            })
        };
        let src = ".entry plain() { griddepcontrol.wait; ret; }\n\
                   .entry req() .reqntid 64 { ret; }\n\
                   .entry max() .maxntid 256 { ret; }\n\
                   .entry cl() .reqnctapercluster 2 { ret; }\n\
                   .entry rank() .maxclusterrank 4 { ret; }\n\
                   .entry expl() .explicitcluster { ret; }\n\
                   .entry bac() .reqnctapercluster 2 .blocksareclusters { ret; }";
        for k in 0..7 {
            let i = info(src, k);
            assert_eq!(i.fixes_clusters(), k >= 3, "entry {k}");
            assert_eq!(refuses_some(&i), i.fixes_clusters(), "entry {k}");
        }
        assert!(!KernelInfo::UNKNOWN.fixes_clusters());
        assert!(!refuses_some(&KernelInfo::UNKNOWN));
    }

    fn info_as(src: &str, k: usize, cooperative: CooperativeUse) -> KernelInfo {
        let es = parse_entries(src).expect("PTX parses");
        read_info(&es[k], &es[k].name, "k.ptx", false, cooperative).leak()
    }

    #[test]
    fn absence_rules_fire_only_on_a_definite_no() {
        // Each entry calls code the file does not hold: an `.extern .func`, a function declared
        // without a body, a function pointer.
        let src = ".extern .func ext();\n\
                   .func proto();\n\
                   .entry e() { call.uni ext, (); ret; }\n\
                   .entry p() { call proto; ret; }\n\
                   .entry i() { call (%r1), %rd1, (%r2), proto_1; ret; }";
        for k in 0..3 {
            let i = info(src, k);
            assert_eq!((i.waits, i.grid_sync), (Fact::Unknown, Fact::Unknown));
            assert_eq!(i.check_serialization(true), Ok(()), "entry {k}");
            assert_eq!(i.check_cooperative(true), Ok(()), "entry {k}");
            assert_eq!(i.check_cooperative(false), Ok(()), "entry {k}");
            assert!(
                i.messages.unseen.contains(
                    "chevron cannot see whether it syncs the whole grid \
                     or whether it executes `griddepcontrol.wait`"
                ),
                "{}",
                i.messages.unseen
            );
        }
        assert!(info(src, 0).messages.unseen.starts_with(
            "kernel `e` calls `ext`, an `.extern .func` defined in another module \
                 (k.ptx:3)"
        ));
        assert!(info(src, 2)
            .messages
            .unseen
            .starts_with("kernel `i` calls a function through a pointer (k.ptx:5)"));
        // What is seen still counts: a wait in the entry, an extern call besides.
        let i = info(
            ".extern .func ext();\n.entry k() { griddepcontrol.wait; call ext; ret; }",
            0,
        );
        assert_eq!((i.waits, i.grid_sync), (Fact::Yes, Fact::Unknown));
        assert_eq!(
            i.messages.unseen,
            "kernel `k` calls `ext`, an `.extern .func` defined in another module (k.ptx:2): \
             chevron cannot see whether it syncs the whole grid, so it does not check \
             `cooperative` against it"
        );
        // The system calls hide nothing.
        let i = info(
            ".extern .func (.param .b32 r) vprintf(.param .b64 f, .param .b64 a);\n\
             .entry k() { call.uni (r), vprintf, (f, a); ret; }",
            0,
        );
        assert_eq!((i.waits, i.grid_sync), (Fact::No, Fact::No));
        assert_eq!(i.messages.unseen, "");
        assert_eq!(i.check_serialization(true), Err(Broken::PdlWait));
    }

    #[test]
    fn helpers_are_read_transitively() {
        let src = ".func (.param .b32 r) leaf() { griddepcontrol.wait; ret; }\n\
                   .func mid() { call.uni (r), leaf, (); mov.u32 %r1, %envreg2; ret; }\n\
                   .func arrive() { atom.add.release.gpu.u32 %r1, [%rd1], %r2; call arrive; }\n\
                   .entry k() { call mid; call arrive; ret; }\n\
                   .entry w() { call mid; ret; }";
        let k = info(src, 0);
        assert_eq!((k.waits, k.grid_sync), (Fact::Yes, Fact::Yes));
        assert_eq!(k.check_cooperative(false), Err(Broken::NotCooperative));
        assert!(
            k.message(Broken::NotCooperative)
                .contains("(k.ptx:3, in `arrive`, which it calls: the grid barrier"),
            "{}",
            k.message(Broken::NotCooperative)
        );
        // Before sm_70 the arrival is a plain `atom.add` after a fence.
        let legacy = ".version 6.0\n.target sm_60\n.entry k() { mov.u32 %r1, %envreg1;\n\
                      membar.gl; atom.global.add.u32 %r2, [%rd1], %r3; ret; }";
        assert_eq!(info(legacy, 0).grid_sync, Fact::Yes);
        let modern = legacy.replace("sm_60", "sm_90");
        assert_eq!(info(&modern, 0).grid_sync, Fact::No);
        // The workspace read without the barrier's arrival: no grid sync.
        let w = info(src, 1);
        assert_eq!((w.waits, w.grid_sync), (Fact::Yes, Fact::No));
        assert_eq!(w.check_cooperative(true), Err(Broken::NeedlessCooperative));
        assert_eq!(w.check_cooperative(false), Ok(()));
    }

    #[test]
    fn explicit_clusters_and_blocks_are_clusters() {
        // `__cluster_dims__()`: clusters required, none compiled in.
        let i = info(".entry k() .explicitcluster { ret; }", 0);
        assert_eq!(i.check_cluster(None), Err(Broken::Unclustered));
        assert_eq!(i.check_cluster(Some([2, 1, 1])), Ok(()));
        assert!(i
            .message(Broken::Unclustered)
            .ends_with("give the launch a `cluster = …`"));
        // With a compiled-in cluster, no `cluster` is needed.
        let i = info(
            ".entry k() .explicitcluster .reqnctapercluster 2 { ret; }",
            0,
        );
        assert_eq!(i.check_cluster(None), Ok(()));
        // `__block_size__`: the grid counts clusters, so 3 clusters of 2 is a valid grid.
        let i = info(
            ".entry k() .blocksareclusters .reqntid 64, 1, 1 .reqnctapercluster 2, 1, 1 { ret; }",
            0,
        );
        assert!(i.blocks_are_clusters);
        assert_eq!(i.check_grid([3, 1, 1]), Ok(()));
        assert_eq!(i.check_cluster(None), Ok(()));
        assert_eq!(i.message(Broken::Grid), "");
    }

    #[test]
    fn co_resident_is_launched_cooperatively() {
        let src = ".entry k() { ret; }";
        let i = info_as(src, 0, CooperativeUse::CoResident);
        assert_eq!(i.check_cooperative(false), Err(Broken::NotCooperative));
        assert_eq!(i.check_cooperative(true), Ok(()));
        assert!(i
            .message(Broken::NotCooperative)
            .starts_with("kernel `k` is declared `cooperative = \"co_resident\"`"));
        let i = info_as(src, 0, CooperativeUse::Optional);
        assert_eq!(i.check_cooperative(false), Ok(()));
        assert_eq!(i.message(Broken::NotCooperative), "");
    }
}
