//! The rules of `ptx = ["k_sm75.ptx", "k_sm90.ptx"]` at compile time: which variant a device
//! loads is known only at run time, so a literal launch is checked against what every variant
//! accepts ([`combine`]), and the runtime checks each launch against the variant it loaded
//! ([`InfoText::within`]).

use super::{Fact, InfoText, Rule};

/// `(file as messages name it, its info)` for each variant, in the declaration's order.
pub type Variant<'a> = (&'a str, &'a InfoText);

/// What every variant accepts, field by field (each message is the one of the variant that
/// decides the field):
/// - `.reqntid`: the one exact block, when the variants that fix one agree; else no launch fits
///   them all (an error); with it, a `.maxntid` of another variant that it exceeds is an error
///   too, and a smaller one is implied by it.
/// - `.maxntid`: the smallest, by its product (the most threads in a block).
/// - `.reqnctapercluster` and `.blocksareclusters`: the variants that fix a cluster must agree
///   (else an error), since they change what the grid counts; `.maxclusterrank`: the smallest;
///   `.explicitcluster`: any.
/// - grid sync: yes when any variant syncs the grid (`cooperative` is needed where that one
///   loads), no when none can, else unknown; `griddepcontrol.wait` and
///   `griddepcontrol.launch_dependents`: no when any variant definitely lacks it (a rule that
///   rests on absence then refuses what that variant would), unknown when any is unknown, else
///   yes.
/// - the note on unseen callees: each variant's, in order.
///
/// `Err` with what no launch can satisfy, naming both files.
pub fn combine(variants: &[Variant<'_>]) -> Result<InfoText, String> {
    let Some(&(_, first)) = variants.first() else {
        return Err("no variant".into());
    };
    let mut out = first.clone();
    let message = |v: &InfoText, rule: Rule| v.messages[rule as usize].clone();
    let product = |d: [u32; 3]| d.iter().map(|&x| u64::from(x)).product::<u64>();
    let dims = |d: [u32; 3]| format!("{}, {}, {}", d[0], d[1], d[2]);

    // The block.
    let reqs: Vec<(&str, [u32; 3], &InfoText)> = variants
        .iter()
        .filter_map(|&(f, v)| v.info.reqntid.map(|r| (f, r, v)))
        .collect();
    let max = variants
        .iter()
        .filter_map(|&(f, v)| v.info.maxntid.map(|m| (f, m, v)))
        .min_by_key(|&(_, m, _)| product(m));
    match reqs.first() {
        Some(&(file, req, v)) => {
            if let Some(&(other, r2, _)) = reqs.iter().find(|&&(_, r, _)| r != req) {
                return Err(format!(
                    "`{file}` fixes the block as `.reqntid {}` and `{other}` as `.reqntid {}`: \
                     no block launches every variant",
                    dims(req),
                    dims(r2)
                ));
            }
            if let Some((other, m, _)) = max.filter(|&(_, m, _)| product(req) > product(m)) {
                return Err(format!(
                    "`{file}` fixes the block as `.reqntid {}` and `{other}` allows at most \
                     {} threads (`.maxntid {}`): no block launches every variant",
                    dims(req),
                    product(m),
                    dims(m)
                ));
            }
            out.info.reqntid = Some(req);
            out.info.maxntid = v.info.maxntid;
            out.messages[Rule::Block as usize] = message(v, Rule::Block);
        }
        None => {
            out.info.maxntid = max.map(|(_, m, _)| m);
            if let Some((_, _, v)) = max {
                out.messages[Rule::Block as usize] = message(v, Rule::Block);
            }
        }
    }

    // Clusters.
    let clusters: Vec<(&str, [u32; 3], bool, &InfoText)> = variants
        .iter()
        .filter_map(|&(f, v)| {
            v.info
                .cluster
                .map(|c| (f, c, v.info.blocks_are_clusters, v))
        })
        .collect();
    out.info.cluster = None;
    out.info.blocks_are_clusters = false;
    if let Some(&(file, c, counts, v)) = clusters.first() {
        if let Some(&(other, c2, counts2, _)) = clusters
            .iter()
            .find(|&&(_, c2, counts2, _)| c2 != c || counts2 != counts)
        {
            let says = |c: [u32; 3], counts: bool| {
                format!(
                    "`.reqnctapercluster {}`{}",
                    dims(c),
                    if counts {
                        " with `.blocksareclusters`"
                    } else {
                        ""
                    }
                )
            };
            return Err(format!(
                "`{file}` is compiled with {} and `{other}` with {}: a launch's cluster and grid \
                 cannot mean the same for every variant; compile them with the same \
                 `__cluster_dims__`",
                says(c, counts),
                says(c2, counts2)
            ));
        }
        out.info.cluster = Some(c);
        out.info.blocks_are_clusters = counts;
        out.messages[Rule::Cluster as usize] = message(v, Rule::Cluster);
        out.messages[Rule::Grid as usize] = message(v, Rule::Grid);
    }
    let rank = variants
        .iter()
        .filter_map(|&(_, v)| v.info.max_cluster_rank.map(|r| (r, v)))
        .min_by_key(|&(r, _)| r);
    out.info.max_cluster_rank = rank.map(|(r, _)| r);
    if let Some((_, v)) = rank {
        out.messages[Rule::ClusterRank as usize] = message(v, Rule::ClusterRank);
    }
    let explicit = variants.iter().find(|(_, v)| v.info.explicit_cluster);
    out.info.explicit_cluster = explicit.is_some();
    if let Some((_, v)) = explicit {
        out.messages[Rule::Unclustered as usize] = message(v, Rule::Unclustered);
    }

    // What the kernels execute.
    let needed = |f: fn(&InfoText) -> Fact| {
        let facts = variants.iter().map(|(_, v)| (f(v), *v));
        let mut out = (Fact::Yes, None);
        for (fact, v) in facts {
            match (fact, out.0) {
                (Fact::No, Fact::No) => {}
                (Fact::No, _) => out = (Fact::No, Some(v)),
                (Fact::Unknown, Fact::Yes) => out = (Fact::Unknown, None),
                _ => {}
            }
        }
        out
    };
    let (waits, by) = needed(|v| v.info.waits);
    out.info.waits = waits;
    if let Some(v) = by {
        out.messages[Rule::PdlWait as usize] = message(v, Rule::PdlWait);
    }
    let (triggers, by) = needed(|v| v.info.triggers);
    out.info.triggers = triggers;
    out.no_trigger = by.and_then(|v| v.no_trigger.clone());
    let syncs = variants.iter().find(|(_, v)| v.info.grid_sync == Fact::Yes);
    out.info.grid_sync = match syncs {
        Some((_, v)) => {
            out.messages[Rule::NotCooperative as usize] = message(v, Rule::NotCooperative);
            Fact::Yes
        }
        None if variants.iter().all(|(_, v)| v.info.grid_sync == Fact::No) => Fact::No,
        None => Fact::Unknown,
    };
    let mut unseen: Vec<String> = Vec::new();
    for (_, v) in variants {
        let note = &v.messages[Rule::COUNT];
        if !note.is_empty() && !unseen.contains(note) {
            unseen.push(note.clone());
        }
    }
    out.messages[Rule::COUNT] = unseen.join("; ");
    Ok(out)
}

impl InfoText {
    /// This variant's rules for the runtime, within what the declaration promises
    /// (`combined`, from [`combine`]): a variant that never syncs the grid where another does
    /// is launched with `cooperative` as the declaration's launches are (its grid sync becomes
    /// unknown, so that `cooperative` is neither needed nor refused); every other rule is the
    /// variant's own.
    pub fn within(mut self, combined: &InfoText) -> InfoText {
        if self.info.grid_sync == Fact::No && combined.info.grid_sync != Fact::No {
            self.info.grid_sync = Fact::Unknown;
            self.messages[Rule::NeedlessCooperative as usize].clear();
        }
        self
    }
}
