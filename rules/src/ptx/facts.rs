//! What an entry executes that decides how it may be launched, over its whole call graph: its
//! own body and, transitively, every `.func` it calls (nvcc emits a `call` for each
//! `__noinline__` helper, and under `-G` for nearly every intrinsic). Each fact is three-valued:
//! where the entry calls code the file does not hold (an `.extern .func` of relocatable code, a
//! function declared without a body, a call through a register), what is not seen is unknown.
//!
//! One pass over the tokens records each function's own instructions and calls; the facts then
//! flow from callees to callers until nothing changes. Each function gains each fact at most
//! once, so the whole is linear in the size of the file, cycles included.

use std::collections::HashMap;

use super::{is_identifier, Entry, Tok};

/// A fact about a kernel: yes, no, or unknown where it calls code the file does not hold.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Fact {
    /// Seen, in the entry or a function it calls.
    Yes,
    /// Not in the entry nor in any function it calls, all of which the file holds.
    #[default]
    No,
    /// Not seen, but the entry calls code the file does not hold: it may be there.
    Unknown,
}

impl Fact {
    /// Whether this is a definite no: what rules resting on absence need before they fire.
    pub const fn is_no(self) -> bool {
        matches!(self, Fact::No)
    }

    /// Whether this is a definite yes.
    pub const fn is_yes(self) -> bool {
        matches!(self, Fact::Yes)
    }
}

/// Where an instruction was seen: its 1-based line, and the `.func` it is in (`None`: the
/// entry's own body).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Site {
    /// 1-based line.
    pub line: usize,
    /// The function it is in, when not the entry itself.
    pub func: Option<String>,
}

/// A [`Fact`] with where it was seen.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Seen {
    /// Executed: the first place found (the entry's own body first).
    Yes(Site),
    /// Not executed anywhere the entry reaches.
    #[default]
    No,
    /// Not seen, but the entry reaches code the file does not hold ([`BodyUses::unseen`]).
    Unknown,
}

impl Seen {
    /// The fact, without the place.
    pub fn fact(&self) -> Fact {
        match self {
            Seen::Yes(_) => Fact::Yes,
            Seen::No => Fact::No,
            Seen::Unknown => Fact::Unknown,
        }
    }

    /// Where it was seen, for a yes.
    pub fn site(&self) -> Option<&Site> {
        match self {
            Seen::Yes(site) => Some(site),
            _ => None,
        }
    }
}

/// The callee of a call whose code the file does not hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Callee {
    /// A named function without a body in the file; `external` when it is declared
    /// `.extern .func` (relocatable code, `nvcc -rdc=true`: defined in another module).
    Named {
        /// The function's symbol.
        name: String,
        /// Declared `.extern`.
        external: bool,
    },
    /// A call through a register (a function pointer): any function could be the target.
    Indirect,
}

/// The first call, in the order found, whose target the file does not hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnseenCall {
    /// Where the `call` is.
    pub site: Site,
    /// What it calls.
    pub callee: Callee,
}

impl UnseenCall {
    /// The call in words, for messages: "calls `f` (a `.extern .func`)", "makes an indirect call".
    pub fn describe(&self) -> String {
        match &self.callee {
            Callee::Named {
                name,
                external: true,
            } => format!("calls `{name}`, an `.extern .func` defined in another module"),
            Callee::Named { name, .. } => {
                format!("calls `{name}`, which the file declares but does not define")
            }
            Callee::Indirect => "calls a function through a pointer".into(),
        }
    }
}

/// What an entry executes that decides how it may be launched, over its whole call graph.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BodyUses {
    /// `griddepcontrol.wait` (`cudaGridDependencySynchronize()`): waits for the previous
    /// kernel of a programmatic dependent launch.
    pub griddep_wait: Seen,
    /// `griddepcontrol.launch_dependents` (`cudaTriggerProgrammaticLaunchCompletion()`).
    pub griddep_launch_dependents: Seen,
    /// A grid-wide barrier (`this_grid().sync()`), which only a cooperative launch provides: a
    /// read of the cooperative grid workspace (`%envreg1`/`%envreg2`) together with the
    /// barrier's arrival on it (`atom.add.release.gpu`, what `cooperative_groups` emits for
    /// `grid.sync()` and `barrier_arrive()` on sm_70 and later; any `atom.add` for an older
    /// `.target`), both anywhere the entry reaches. A read alone is not one: `this_grid()` reads the workspace (under `-G` even
    /// when the group only serves for indexing), and so does `is_valid()`. The site is the
    /// arrival's.
    pub grid_sync: Seen,
    /// The first call the entry reaches whose target the file does not hold: what made a fact
    /// [`Seen::Unknown`].
    pub unseen: Option<UnseenCall>,
}

/// What the CUDA driver itself provides to every module (the system calls of the PTX
/// interoperability guide): printing, heap and `assert`. None of them syncs the grid or touches
/// `griddepcontrol`, so a call to one hides nothing (under `-G`, `assert` and `printf` are in
/// every kernel that uses them).
const SYSTEM_CALLS: [&str; 4] = ["vprintf", "malloc", "free", "__assertfail"];

/// The facts a body can hold by itself, as bits.
const WAIT: usize = 0;
const TRIGGER: usize = 1;
const WORKSPACE: usize = 2;
const ARRIVE: usize = 3;
const UNSEEN: usize = 4;
const KINDS: usize = 5;

enum Target<'s> {
    Named(&'s str),
    Indirect,
}

/// One function or entry with a body.
struct Unit<'s> {
    name: &'s str,
    /// The entry's index, for an `.entry`.
    entry: Option<usize>,
    calls: Vec<(Target<'s>, usize)>,
    /// Per fact: the line, and the unit it was seen in.
    found: [Option<(usize, usize)>; KINDS],
    /// The call behind `found[UNSEEN]`.
    unseen: Option<(Callee, usize, usize)>,
}

/// Fills `uses` of every entry in `entries` from the tokens they were read from.
pub(super) fn analyze(toks: &[Tok<'_>], entries: &mut [Entry]) {
    let by_name: HashMap<&str, usize> = entries
        .iter()
        .enumerate()
        .map(|(k, e)| (e.name.as_str(), k))
        .collect();
    let mut units: Vec<Unit<'_>> = Vec::new();
    let mut defined: HashMap<&str, usize> = HashMap::new();
    let mut externs: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let mut aliases: HashMap<&str, &str> = HashMap::new();
    // The header being read at depth 0: (name, is an entry).
    let mut pending: Option<(&str, bool)> = None;
    let (mut depth, mut is_extern) = (0usize, false);
    let mut current: Option<usize> = None;
    let text = |j: usize| toks.get(j).map_or("", |t| t.text);
    // Before sm_70, `cooperative_groups` arrives at the grid barrier with a fence and a plain
    // `atomicAdd` (`atom.add`, no `.release.gpu`): for such a target any `atom.add` counts.
    let legacy = toks
        .iter()
        .position(|t| t.text == ".target")
        .and_then(|k| text(k + 1).strip_prefix("sm_"))
        .and_then(|arch| {
            let digits: String = arch.chars().take_while(char::is_ascii_digit).collect();
            digits.parse::<u32>().ok()
        })
        .is_some_and(|arch| arch < 70);
    let mut i = 0;
    while let Some(t) = toks.get(i) {
        i += 1;
        if depth > 0 {
            // Most tokens of a body are registers, operands and other opcodes: skip them on
            // their first byte (`{`, `}`, `griddepcontrol`, `%envreg…`, `atom`, `call`).
            let first = t.text.as_bytes().first();
            if !matches!(first, Some(b'{' | b'}' | b'g' | b'%' | b'a' | b'c')) {
                continue;
            }
            match t.text {
                "{" => depth += 1,
                "}" => {
                    depth -= 1;
                    if depth == 0 {
                        current = None;
                    }
                }
                _ => {}
            }
            let Some(u) = current else { continue };
            let unit = &mut units[u];
            let mut note = |kind: usize| {
                unit.found[kind].get_or_insert((t.line, u));
            };
            match t.text {
                "griddepcontrol" => match text(i) {
                    ".wait" => note(WAIT),
                    ".launch_dependents" => note(TRIGGER),
                    _ => {}
                },
                "%envreg1" | "%envreg2" => note(WORKSPACE),
                "atom" => {
                    let (mut add, mut release, mut gpu) = (false, false, false);
                    let mut j = i;
                    while text(j).starts_with('.') {
                        match text(j) {
                            ".add" => add = true,
                            ".release" | ".acq_rel" => release = true,
                            ".gpu" => gpu = true,
                            _ => {}
                        }
                        j += 1;
                    }
                    if add && (legacy || (release && gpu)) {
                        note(ARRIVE);
                    }
                }
                "call" => {
                    // `call{.uni} (ret), target, (args)…` or `call{.uni} target, (args)…`.
                    let mut j = i;
                    while text(j).starts_with('.') {
                        j += 1;
                    }
                    if text(j) == "(" {
                        j = after_paren(toks, j);
                        if text(j) == "," {
                            j += 1;
                        }
                    }
                    let target = match text(j) {
                        name if is_identifier(name) && !name.starts_with('%') => {
                            Target::Named(name)
                        }
                        // A register, or something this reader does not follow: either way
                        // the target is not known.
                        _ => Target::Indirect,
                    };
                    unit.calls.push((target, t.line));
                }
                _ => {}
            }
            continue;
        }
        match t.text {
            "{" => {
                depth = 1;
                current = pending.take().map(|(name, is_entry)| {
                    let entry = if is_entry {
                        by_name.get(name).copied()
                    } else {
                        defined.entry(name).or_insert(units.len());
                        None
                    };
                    units.push(Unit {
                        name,
                        entry,
                        calls: Vec::new(),
                        found: [None; KINDS],
                        unseen: None,
                    });
                    units.len() - 1
                });
                is_extern = false;
            }
            ";" | "}" => {
                pending = None;
                is_extern = false;
            }
            ".extern" => is_extern = true,
            ".entry" => {
                pending = Some((text(i), true));
                is_extern = false;
            }
            ".func" => {
                let mut j = i;
                if text(j) == "(" {
                    // The return parameters: `(.param .b32 func_retval0)`.
                    j = after_paren(toks, j);
                }
                let name = text(j);
                if is_identifier(name) {
                    if is_extern {
                        externs.insert(name);
                    }
                    pending = Some((name, false));
                    i = j + 1;
                } else {
                    pending = None;
                    i = j;
                }
                is_extern = false;
            }
            // `.alias alias, aliasee;`
            ".alias" if text(i + 1) == "," => {
                aliases.insert(text(i), text(i + 2));
            }
            _ => {}
        }
    }

    // Resolve the calls: an edge to a defined function, nothing for a system call, and an
    // unseen call for anything else.
    let mut callers: Vec<Vec<usize>> = vec![Vec::new(); units.len()];
    for (u, unit) in units.iter_mut().enumerate() {
        let mut unseen = None;
        for (target, line) in &unit.calls {
            let name = match target {
                Target::Named(name) => resolve(name, &aliases),
                Target::Indirect => {
                    unseen.get_or_insert((Callee::Indirect, *line));
                    continue;
                }
            };
            if let Some(&callee) = defined.get(name) {
                callers[callee].push(u);
            } else if !SYSTEM_CALLS.contains(&name) {
                let callee = Callee::Named {
                    name: name.to_string(),
                    external: externs.contains(name),
                };
                unseen.get_or_insert((callee, *line));
            }
        }
        if let Some((callee, line)) = unseen {
            unit.found[UNSEEN] = Some((line, u));
            unit.unseen = Some((callee, line, u));
        }
    }

    // Facts flow from callees to callers; a unit is queued again only when it gains a fact.
    let mut queue: Vec<usize> = (0..units.len())
        .filter(|&u| units[u].found.iter().any(Option::is_some))
        .collect();
    while let Some(v) = queue.pop() {
        for &c in &callers[v] {
            let mut gained = false;
            for kind in 0..KINDS {
                if units[c].found[kind].is_none() && units[v].found[kind].is_some() {
                    units[c].found[kind] = units[v].found[kind];
                    if kind == UNSEEN {
                        units[c].unseen = units[v].unseen.clone();
                    }
                    gained = true;
                }
            }
            if gained {
                queue.push(c);
            }
        }
    }

    for unit in &units {
        let Some(k) = unit.entry else { continue };
        let site = |(line, origin): (usize, usize)| Site {
            line,
            func: units[origin]
                .entry
                .is_none()
                .then(|| units[origin].name.to_string()),
        };
        let hidden = unit.found[UNSEEN].is_some();
        let seen = |found: Option<(usize, usize)>| match found {
            Some(f) => Seen::Yes(site(f)),
            None if hidden => Seen::Unknown,
            None => Seen::No,
        };
        let grid_sync = match (unit.found[WORKSPACE], unit.found[ARRIVE]) {
            (Some(_), Some(arrive)) => Seen::Yes(site(arrive)),
            _ if hidden => Seen::Unknown,
            _ => Seen::No,
        };
        entries[k].uses = BodyUses {
            griddep_wait: seen(unit.found[WAIT]),
            griddep_launch_dependents: seen(unit.found[TRIGGER]),
            grid_sync,
            unseen: unit
                .unseen
                .as_ref()
                .map(|(callee, line, origin)| UnseenCall {
                    site: site((*line, *origin)),
                    callee: callee.clone(),
                }),
        };
    }
}

/// The index after the `)` closing the `(` at `open`; a `;`, `{` or `}` ends the search early
/// (malformed text), so that each instruction is looked at a bounded number of times.
fn after_paren(toks: &[Tok<'_>], open: usize) -> usize {
    let mut j = open + 1;
    while let Some(t) = toks.get(j) {
        match t.text {
            ")" => return j + 1,
            ";" | "{" | "}" => return j,
            _ => j += 1,
        }
    }
    j
}

/// The function an alias names, following chains of `.alias` (at most as many steps as there
/// are aliases, so a cycle ends).
fn resolve<'s>(name: &'s str, aliases: &HashMap<&'s str, &'s str>) -> &'s str {
    let mut name = name;
    for _ in 0..=aliases.len() {
        match aliases.get(name) {
            Some(target) => name = target,
            None => break,
        }
    }
    name
}
