//! A kernel's facts and messages as read from its PTX entry ([`read_info`]): one message per
//! [`Rule`] (an exhaustive `match`, so a new rule does not compile without its message), the
//! note on what the kernel calls that the file does not hold, and the `programmatic_event`
//! warning.

use super::rules::MESSAGES;
use super::{CooperativeUse, KernelInfo, Messages, Rule};
use crate::ptx::{Entry, Seen};

/// A [`KernelInfo`] as read from an entry, with owned messages: `#[kernel]` writes it out as a
/// const, the runtime leaks one per `cuda = "…"` kernel (once per process).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InfoText {
    /// The info, with empty messages.
    pub info: KernelInfo,
    /// The messages: one per rule at `rule as usize` (the order of [`Messages`]' fields), then
    /// [`Messages::unseen`].
    pub messages: [String; MESSAGES],
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
    let mut messages: [String; MESSAGES] = Default::default();
    for &rule in Rule::ALL {
        messages[rule as usize] = message(rule, entry, name, file, cooperative);
    }
    messages[Rule::COUNT] = unseen_text(entry, name, file);
    InfoText {
        no_trigger,
        info,
        messages,
    }
}

/// The message of `rule` for `entry`; empty where the PTX gives the rule nothing to refuse.
fn message(
    rule: Rule,
    entry: &Entry,
    name: &str,
    file: &str,
    cooperative: CooperativeUse,
) -> String {
    let d = &entry.directives;
    match rule {
        Rule::Block => match (d.reqntid, d.maxntid) {
            (Some(r), _) => {
                let [x, y, z] = r.dims;
                format!(
                    "kernel `{name}` is compiled with `.reqntid {x}, {y}, {z}` ({file}:{}): it \
                     launches only with a block of exactly {}; use that block",
                    r.line,
                    dims_text(r.dims)
                )
            }
            (None, Some(m)) => {
                let [x, y, z] = m.dims;
                format!(
                    "kernel `{name}` is compiled with `.maxntid {x}, {y}, {z}` ({file}:{}, from \
                     `__launch_bounds__`): a block of more than {} threads cannot launch it; \
                     use a smaller block, or raise the kernel's bound",
                    m.line,
                    u64::from(x) * u64::from(y) * u64::from(z)
                )
            }
            (None, None) => String::new(),
        },
        Rule::NoKernelBlock => match d.reqntid {
            Some(_) => String::new(),
            None => format!(
                "kernel `{name}` has no compiled-in block dimensions (no `.reqntid` in {file}, \
                 entry at line {}): `_` launches a kernel in its own block shape, which only a \
                 kernel compiled with `__block_size__` (or `.reqntid`) has; write the block",
                entry.line
            ),
        },
        Rule::Cluster => d.reqnctapercluster.map_or(String::new(), |c| {
            let [x, y, z] = c.dims;
            let text = dims_text(c.dims);
            format!(
                "kernel `{name}` is compiled with `.reqnctapercluster {x}, {y}, {z}` \
                 ({file}:{}, from `__cluster_dims__`): a `cluster` other than {text} conflicts \
                 with it; leave `cluster` out (the compiled-in clusters apply) or \
                 make it {text}",
                c.line
            )
        }),
        Rule::ClusterRank => d.maxclusterrank.map_or(String::new(), |m| {
            format!(
                "kernel `{name}` is compiled with `.maxclusterrank {}` ({file}:{}): a cluster of \
                 more than {} blocks cannot launch it; use a smaller `cluster`",
                m.value, m.line, m.value
            )
        }),
        Rule::Unclustered => match (d.explicitcluster, d.reqnctapercluster) {
            (Some(line), None) => format!(
                "kernel `{name}` is compiled with `.explicitcluster` ({file}:{line}, from \
                 `__cluster_dims__` without dimensions): it launches only in clusters, and none \
                 is compiled in; give the launch a `cluster = …`"
            ),
            _ => String::new(),
        },
        Rule::Grid => match d.reqnctapercluster {
            // With `.blocksareclusters` the grid counts clusters: any grid is a whole number
            // of them.
            Some(c) if d.blocksareclusters.is_none() => format!(
                "kernel `{name}` runs in clusters of {} blocks (`.reqnctapercluster` at \
                 {file}:{}): its grid must be a whole number of clusters; make each grid \
                 extent a multiple of the cluster's",
                dims_text(c.dims),
                c.line
            ),
            _ => String::new(),
        },
        Rule::PdlWait => format!(
            "kernel `{name}` never executes `griddepcontrol.wait`, nor does any function it \
             calls ({file}, entry at line {}): with `programmatic_serialization` it can start \
             before the previous kernel has finished and read that kernel's output before it \
             is written; call `cudaGridDependencySynchronize()` before reading it, or, if the \
             kernel reads nothing the previous kernel writes, declare it with \
             `#[kernel(…, pdl = \"no_upstream_reads\")]`",
            entry.line
        ),
        Rule::NotCooperative => match (&entry.uses.grid_sync, cooperative) {
            (Seen::Yes(site), _) => format!(
                "kernel `{name}` syncs the whole grid ({file}:{}{}: the grid barrier of \
                 `this_grid().sync()`, on the cooperative grid workspace): launch it with \
                 `cooperative`; a plain launch has no grid barrier, and after one cooperative \
                 launch of the function the driver may let plain ones pass unnoticed; if the \
                 kernel syncs only when `this_grid().is_valid()`, declare it with \
                 `#[kernel(…, cooperative = \"optional\")]`",
                site.line,
                in_callee(site.func.as_deref())
            ),
            (_, CooperativeUse::CoResident) => format!(
                "kernel `{name}` is declared `cooperative = \"co_resident\"`: it relies on all \
                 its blocks being resident together, which only a `cooperative` launch \
                 guarantees; launch it with `cooperative`, or remove \
                 `cooperative = \"co_resident\"` if it does not rely on that"
            ),
            _ => String::new(),
        },
        Rule::NeedlessCooperative => format!(
            "kernel `{name}` never syncs the whole grid, nor does any function it calls ({file}, \
             entry at line {}): `cooperative` only limits its grid to what fits on the GPU at \
             once; remove `cooperative`, or, if the kernel relies on all its blocks being \
             resident together, declare it with `#[kernel(…, cooperative = \"co_resident\")]`",
            entry.line
        ),
    }
}

impl KernelInfo {
    /// The trait of chevron's `refusals` module that says `rule`'s refusal for this kernel, and
    /// its const parameters (the kernel's numbers): `#[kernel]` names it for each rule a launch
    /// may break ([`KernelInfo::may_break`]); `None` for a rule it cannot break, or whose words
    /// are said for every kernel at once ([`Rule::for_every_kernel`]).
    pub fn refusal_trait(&self, rule: Rule) -> Option<(&'static str, Vec<u64>)> {
        if !self.may_break(rule) || rule.for_every_kernel() {
            return None;
        }
        let dims = |[x, y, z]: [u32; 3]| vec![u64::from(x), u64::from(y), u64::from(z)];
        Some(match rule {
            Rule::Block => match (self.reqntid, self.maxntid) {
                (Some(r), _) => ("BlockOf", dims(r)),
                (None, Some(m)) => {
                    let mut params = dims(m);
                    params.push(params.iter().product());
                    ("BlockWithin", params)
                }
                (None, None) => return None,
            },
            Rule::Cluster => ("ClusterOf", dims(self.cluster?)),
            Rule::ClusterRank => ("ClusterOfAtMost", vec![u64::from(self.max_cluster_rank?)]),
            Rule::Unclustered => ("InClusters", Vec::new()),
            Rule::Grid => ("GridOfClusters", dims(self.cluster?)),
            Rule::NotCooperative => match self.cooperative {
                CooperativeUse::CoResident => ("DeclaredCoResident", Vec::new()),
                _ => ("SyncsTheGrid", Vec::new()),
            },
            Rule::PdlWait | Rule::NeedlessCooperative | Rule::NoKernelBlock => return None,
        })
    }
}

impl Rule {
    /// Whether the rule's refusal is said for every kernel at once (the runtime's `Refusal`
    /// impls for any type) rather than by an impl `#[kernel]` emits for the kernel: the rules
    /// that most kernels may break (most never wait, most never sync the grid, most have no
    /// compiled-in block for `_`), where an impl per declaration would cost every declaration.
    pub const fn for_every_kernel(self) -> bool {
        matches!(
            self,
            Rule::PdlWait | Rule::NeedlessCooperative | Rule::NoKernelBlock
        )
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
        KernelInfo {
            messages: Messages::from_texts(self.messages.map(|m| &*String::leak(m))),
            ..self.info
        }
    }
}
