//! Which pointer parameters an entry writes through: a parameter whose value flows into the
//! address of a `st`, `atom`, `red` (or a bulk copy to global memory), over the entry's whole
//! call graph. Read for kernels whose symbol carries no C++ type (`extern "C"`), so that a
//! buffer they write cannot be declared read-only.
//!
//! The flow is followed as nvcc emits it: `ld.param` of the parameter, then `mov`, `cvta`,
//! 64-bit `add`, `sub`, `mad`, `mul.wide`, `selp`, `and`/`or`, and `shfl` (of a pointer's
//! halves) between registers,
//! through the local stack slots `[%SP+8]` that `-G` builds spill pointers to, and into calls:
//! each `.func` is summarised (which of its parameters it writes through, which flow into its
//! return value) and the summaries are applied at every call until nothing changes, so helpers
//! and recursion are followed. Registers are followed without regard to order (nvcc's virtual
//! registers each hold one value, or the copies of one `phi`), so a parameter is written when
//! some path may store through it.
//!
//! Three-valued: yes with the store's place; unknown where the value leaves what is followed
//! (stored to memory other than a stack slot, passed to a call whose code the file does not
//! hold, or a function with more than 64 parameter slots); no otherwise.

mod read;

use std::collections::HashMap;

use super::facts::{Seen, Site};
use super::{is_identifier, Entry, Tok};
use read::{read_aliases, read_units};

/// Calls that neither write through nor keep a pointer they are given (`printf`'s arguments
/// are read; `free` releases heap memory).
const SYSTEM_CALLS: [&str; 4] = ["vprintf", "malloc", "free", "__assertfail"];

/// How many parameter slots (parameter, byte offset) a function's summary follows.
const SLOTS: usize = 64;

/// Passes over a body before its registers are taken as settled; past it, what is not yet a
/// yes is unknown.
const MAX_PASSES: usize = 64;

/// One function or entry with a body.
struct Unit<'s> {
    name: &'s str,
    /// The entry's index, for an `.entry`.
    entry: Option<usize>,
    /// Its parameters' names, in order, and its return parameters' names.
    params: Vec<&'s str>,
    returns: Vec<&'s str>,
    /// Its instructions.
    body: Vec<Instr<'s>>,
}

/// An instruction: its opcode and modifiers, and its operands (each a run of tokens).
struct Instr<'s> {
    op: &'s str,
    mods: Vec<&'s str>,
    operands: Vec<Vec<&'s str>>,
    line: usize,
    /// Which callseq block it is in, so that a call sees the `st.param` of its own block.
    block: usize,
}

/// What a function does with its parameter slots, as its callers apply it.
#[derive(Clone, Default, PartialEq)]
struct Summary {
    /// The slots (parameter, byte offset), numbered by first use.
    slots: Vec<(usize, i64)>,
    /// Per slot written through: where (the line, and the function it is in).
    written: Vec<Option<(usize, usize)>>,
    /// Slots whose value leaves what is followed.
    escapes: u64,
    /// Slots that flow into the return value.
    returns: u64,
    /// More slots than followed, or a body that did not settle: what is not written is unknown.
    incomplete: bool,
}

/// Fills `writes` of every entry from the tokens they were read from.
pub(super) fn analyze(toks: &[Tok<'_>], entries: &mut [Entry]) {
    let units = read_units(toks, entries);
    let mut defined: HashMap<&str, usize> = HashMap::new();
    for (u, unit) in units.iter().enumerate() {
        if unit.entry.is_none() {
            defined.entry(unit.name).or_insert(u);
        }
    }
    let aliases = read_aliases(toks);
    let mut summaries: Vec<Summary> = vec![Summary::default(); units.len()];
    // Summaries only grow, so this ends; the bound is for malformed input.
    for _ in 0..units.len() + 8 {
        let mut changed = false;
        for u in 0..units.len() {
            let summary = summarise(u, &units, &summaries, &defined, &aliases);
            if summary != summaries[u] {
                summaries[u] = summary;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    for (u, unit) in units.iter().enumerate() {
        let Some(k) = unit.entry else { continue };
        let s = &summaries[u];
        let writes = (0..entries[k].params.len())
            .map(|j| {
                let slot = s.slots.iter().position(|&sl| sl == (j, 0));
                match slot.and_then(|i| s.written[i]) {
                    Some((line, origin)) => Seen::Yes(Site {
                        line,
                        func: (origin != u).then(|| units[origin].name.to_string()),
                    }),
                    None if s.incomplete => Seen::Unknown,
                    None => match slot {
                        Some(i) if s.escapes & (1 << i) != 0 => Seen::Unknown,
                        _ => Seen::No,
                    },
                }
            })
            .collect();
        entries[k].writes = writes;
    }
}

/// The taint of registers and stack slots in one body: which parameter slots a value may
/// derive from (bit `i`: slot `i` of the summary).
#[derive(Default)]
struct State<'s> {
    regs: HashMap<&'s str, u64>,
    /// Registers known to hold the stack pointer plus a constant.
    stack: HashMap<&'s str, i64>,
    /// Stack slots by offset.
    slots: HashMap<i64, u64>,
    /// The return values of calls, by the name of the return parameter, per block.
    returned: HashMap<(usize, &'s str), u64>,
    /// Arguments stored for the next call, by parameter name and offset, per block.
    args: HashMap<(usize, &'s str), Vec<(i64, u64)>>,
    changed: bool,
}

impl<'s> State<'s> {
    fn taint(&mut self, reg: &'s str, bits: u64) {
        if bits == 0 {
            return;
        }
        let old = self.regs.entry(reg).or_insert(0);
        if *old | bits != *old {
            *old |= bits;
            self.changed = true;
        }
    }

    fn of(&self, reg: &str) -> u64 {
        self.regs.get(reg).copied().unwrap_or(0)
    }

    fn slot(&mut self, offset: i64, bits: u64) {
        if bits == 0 {
            return;
        }
        let old = self.slots.entry(offset).or_insert(0);
        if *old | bits != *old {
            *old |= bits;
            self.changed = true;
        }
    }
}

/// Summarises unit `u` given its callees' current summaries.
fn summarise(
    u: usize,
    units: &[Unit<'_>],
    summaries: &[Summary],
    defined: &HashMap<&str, usize>,
    aliases: &HashMap<&str, &str>,
) -> Summary {
    let unit = &units[u];
    let mut out = Summary::default();
    let mut st = State::default();
    let mut settled = false;
    for _ in 0..MAX_PASSES {
        st.changed = false;
        for ins in &unit.body {
            note_address_taken(ins, unit, &mut out);
            step(ins, u, unit, summaries, defined, aliases, &mut st, &mut out);
        }
        if !st.changed {
            settled = true;
            break;
        }
    }
    out.incomplete |= !settled;
    out
}

/// The slot id of (parameter, offset), numbering it on first use; `None` past [`SLOTS`].
fn slot_id(out: &mut Summary, key: (usize, i64)) -> Option<usize> {
    if let Some(i) = out.slots.iter().position(|&s| s == key) {
        return Some(i);
    }
    if out.slots.len() == SLOTS {
        out.incomplete = true;
        return None;
    }
    out.slots.push(key);
    out.written.push(None);
    Some(out.slots.len() - 1)
}

fn bits_of(bits: u64) -> impl Iterator<Item = usize> {
    (0..SLOTS).filter(move |i| bits & (1 << i) != 0)
}

/// Applies one instruction to the state.
#[allow(clippy::too_many_arguments)]
fn step<'s>(
    ins: &Instr<'s>,
    u: usize,
    unit: &Unit<'s>,
    summaries: &[Summary],
    defined: &HashMap<&str, usize>,
    aliases: &HashMap<&str, &str>,
    st: &mut State<'s>,
    out: &mut Summary,
) {
    let has = |m: &str| ins.mods.contains(&m);
    let ops = &ins.operands;
    // The registers of operands `from..`.
    let sources = |st: &State<'s>, from: usize| -> u64 {
        ops.iter()
            .skip(from)
            .flat_map(|o| o.iter())
            .fold(0, |acc, t| acc | st.of(t))
    };
    let dsts = |k: usize| -> Vec<&'s str> {
        ops.get(k)
            .map(|o| o.iter().copied().filter(|t| is_reg(t)).collect())
            .unwrap_or_default()
    };
    let elem = elem_bytes(&ins.mods);
    let write = |bits: u64, out: &mut Summary| {
        for i in bits_of(bits) {
            if out.written[i].is_none() {
                out.written[i] = Some((ins.line, u));
            }
        }
    };
    match ins.op {
        "ld" if has(".param") => {
            let Some((base, offset)) = ops.get(1).and_then(|o| address(o)) else {
                return;
            };
            for (k, dst) in dsts(0).into_iter().enumerate() {
                let at = offset + k as i64 * elem;
                let bits = if let Some(j) = unit.params.iter().position(|p| *p == base) {
                    slot_id(out, (j, at)).map_or(0, |i| 1 << i)
                } else {
                    st.returned.get(&(ins.block, base)).copied().unwrap_or(0)
                };
                st.taint(dst, bits);
            }
        }
        "ld" | "ldu" => {
            let Some(addr) = ops.get(1) else { return };
            if let Some(offset) = stack_offset(addr, st) {
                for (k, dst) in dsts(0).into_iter().enumerate() {
                    let bits = st
                        .slots
                        .get(&(offset + k as i64 * elem))
                        .copied()
                        .unwrap_or(0);
                    st.taint(dst, bits);
                }
            }
        }
        "st" if has(".param") => {
            let Some((base, offset)) = ops.first().and_then(|o| address(o)) else {
                return;
            };
            let values: Vec<u64> = ops
                .get(1)
                .map(|o| o.iter().filter(|t| is_reg(t)).map(|t| st.of(t)).collect())
                .unwrap_or_default();
            if unit.returns.contains(&base) {
                let bits = values.iter().fold(0, |a, b| a | b);
                out.returns |= bits;
            } else {
                let list = st.args.entry((ins.block, base)).or_default();
                for (k, bits) in values.into_iter().enumerate() {
                    let at = offset + k as i64 * elem;
                    match list.iter_mut().find(|(o, _)| *o == at) {
                        Some((_, b)) => *b |= bits,
                        None => list.push((at, bits)),
                    }
                }
            }
        }
        "st" => {
            let Some(addr) = ops.first() else { return };
            let value = sources(st, 1);
            if let Some(offset) = stack_offset(addr, st) {
                for (k, t) in ops
                    .get(1)
                    .into_iter()
                    .flat_map(|o| o.iter().filter(|t| is_reg(t)))
                    .enumerate()
                {
                    let bits = st.of(t);
                    st.slot(offset + k as i64 * elem, bits);
                }
            } else {
                let target = addr.iter().fold(0, |acc, t| acc | st.of(t));
                write(target, out);
                out.escapes |= value;
            }
        }
        "atom" | "red" | "multimem" => {
            if let Some(k) = ops.iter().position(|o| o.first() == Some(&"[")) {
                let target = ops[k].iter().fold(0, |acc, t| acc | st.of(t));
                write(target, out);
                out.escapes |= sources(st, k + 1);
            }
        }
        "cp" => {
            // Bulk copies to global memory: `cp.async.bulk.global.shared::cta [dst], [src], …`,
            // `cp.reduce.async.bulk.global…`: the first state space is the destination's.
            let first_space = ins
                .mods
                .iter()
                .find(|m| matches!(**m, ".global" | ".shared" | ".local" | ".const"));
            if first_space == Some(&".global") {
                if let Some(addr) = ops.first() {
                    let target = addr.iter().fold(0, |acc, t| acc | st.of(t));
                    write(target, out);
                }
            }
        }
        "call" => call(ins, summaries, defined, aliases, st, out),
        "mov" | "cvta" | "add" | "sub" | "mad" | "selp" | "slct" | "and" | "or" => {
            let dst = dsts(0);
            if let ([d], Some(a)) = (dst.as_slice(), ops.get(1)) {
                // The stack pointer and addresses in the stack frame: `mov.u64 %SPL,
                // __local_depot0`, `cvta.local.u64 %SP, %SPL`, `add.u64 %rd4, %SP, 80`.
                let base = |t: &str| {
                    if t == "%SP" || t == "%SPL" || t.starts_with("__local_depot") {
                        Some(0)
                    } else {
                        st.stack.get(t).copied()
                    }
                };
                let frame = match (ins.op, a.as_slice(), ops.get(2).map(Vec::as_slice)) {
                    ("mov" | "cvta", [t], None) => base(t),
                    ("add", [t], Some(c)) => base(t).zip(constant(c)).map(|(b, c)| b + c),
                    _ => None,
                };
                if let Some(offset) = frame {
                    if st.stack.insert(d, offset) != Some(offset) {
                        st.changed = true;
                    }
                }
            }
            let bits = sources(st, 1);
            for d in dst {
                st.taint(d, bits);
            }
        }
        // A pointer's halves through a shuffle: the value is the second operand.
        "shfl" => {
            let bits = ops
                .get(1)
                .map_or(0, |o| o.iter().fold(0, |acc, t| acc | st.of(t)));
            for d in dsts(0) {
                st.taint(d, bits);
            }
        }
        "mul" if has(".wide") => {
            let bits = sources(st, 1);
            for d in dsts(0) {
                st.taint(d, bits);
            }
        }
        _ => {}
    }
}

/// A parameter of the unit used other than by `ld.param` (its address taken, `mov.b64 %rd1,
/// k_param_0`): what flows from it is not followed.
fn note_address_taken<'s>(ins: &Instr<'s>, unit: &Unit<'s>, out: &mut Summary) {
    if ins.op == "ld" && ins.mods.contains(&".param") {
        return;
    }
    for t in ins.operands.iter().flat_map(|o| o.iter()) {
        let Some(j) = unit.params.iter().position(|p| p == t) else {
            continue;
        };
        if let Some(i) = slot_id(out, (j, 0)) {
            out.escapes |= 1 << i;
        }
        for (i, s) in out.slots.iter().enumerate() {
            if s.0 == j {
                out.escapes |= 1 << i;
            }
        }
    }
}

/// A call: the callee's summary applied to the arguments stored for it in this block.
#[allow(clippy::too_many_arguments)]
fn call<'s>(
    ins: &Instr<'s>,
    summaries: &[Summary],
    defined: &HashMap<&str, usize>,
    aliases: &HashMap<&str, &str>,
    st: &mut State<'s>,
    out: &mut Summary,
) {
    // `call (ret), target, (args)` or `call target, (args)` (and a prototype after them for
    // an indirect call).
    let ops = &ins.operands;
    let group = |o: &Vec<&'s str>| -> Option<Vec<&'s str>> {
        (o.first() == Some(&"(")).then(|| o.iter().copied().filter(|t| is_identifier(t)).collect())
    };
    let mut k = 0;
    let rets = match ops.first().and_then(group) {
        Some(r) => {
            k = 1;
            r
        }
        None => Vec::new(),
    };
    let target = ops.get(k).and_then(|o| o.first().copied()).unwrap_or("");
    let args: Vec<&str> = ops.get(k + 1).and_then(group).unwrap_or_default();
    let arg_bits = |st: &State<'s>, j: usize, offset: Option<i64>| -> u64 {
        let Some(name) = args.get(j) else { return 0 };
        st.args.get(&(ins.block, *name)).map_or(0, |list| {
            list.iter()
                .filter(|(o, _)| offset.is_none_or(|w| *o == w))
                .fold(0, |acc, (_, b)| acc | b)
        })
    };
    let mut name = target;
    for _ in 0..=aliases.len() {
        match aliases.get(name) {
            Some(next) => name = next,
            None => break,
        }
    }
    let callee = if is_identifier(name) && !name.starts_with('%') {
        defined.get(name).copied()
    } else {
        None
    };
    let Some(c) = callee else {
        if !SYSTEM_CALLS.contains(&name) {
            // Code the file does not hold: whatever is passed may be written or kept.
            for j in 0..args.len() {
                out.escapes |= arg_bits(st, j, None);
            }
        }
        return;
    };
    let s = &summaries[c];
    let mut returned = 0;
    for (i, &(j, offset)) in s.slots.iter().enumerate() {
        let bits = arg_bits(st, j, Some(offset));
        if let Some((line, origin)) = s.written[i] {
            for b in bits_of(bits) {
                if out.written[b].is_none() {
                    out.written[b] = Some((line, origin));
                }
            }
        }
        if s.escapes & (1 << i) != 0 || (s.incomplete && s.written[i].is_none()) {
            out.escapes |= bits;
        }
        if s.returns & (1 << i) != 0 {
            returned |= bits;
        }
    }
    if s.incomplete {
        for j in 0..args.len() {
            let bits = arg_bits(st, j, None);
            let unwritten = bits_of(bits).filter(|&b| out.written[b].is_none());
            for b in unwritten.collect::<Vec<_>>() {
                out.escapes |= 1 << b;
            }
        }
    }
    for r in rets {
        let old = st.returned.entry((ins.block, r)).or_insert(0);
        if *old | returned != *old {
            *old |= returned;
            st.changed = true;
        }
    }
}

/// Whether a token names a register (or a variable inline assembly declared).
fn is_reg(t: &str) -> bool {
    is_identifier(t)
}

/// `[name]`, `[name+8]`, `[name+-8]`: the name and the offset.
fn address<'s>(op: &[&'s str]) -> Option<(&'s str, i64)> {
    match op {
        ["[", name, "]"] => Some((name, 0)),
        ["[", name, "+", rest @ .., "]"] => Some((name, constant(rest)?)),
        ["[", name, "-", n, "]"] => Some((name, -(parse_int(n)?))),
        _ => None,
    }
}

/// The stack offset an address operand names: `[%SP+8]`, `[%rd4]` where `%rd4` holds
/// `%SP + 80`.
fn stack_offset(op: &[&str], st: &State<'_>) -> Option<i64> {
    let (base, offset) = address(op)?;
    let at = if base == "%SP" || base == "%SPL" || base.starts_with("__local_depot") {
        0
    } else {
        *st.stack.get(base)?
    };
    Some(at + offset)
}

/// An integer operand: `8`, `-8`, `0x10`.
fn constant(op: &[&str]) -> Option<i64> {
    match op {
        [n] => parse_int(n),
        ["-", n] => parse_int(n).map(|v| -v),
        _ => None,
    }
}

fn parse_int(text: &str) -> Option<i64> {
    let t = text.strip_suffix('U').unwrap_or(text);
    if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        return i64::from_str_radix(hex, 16).ok();
    }
    t.parse().ok()
}

/// The size of one element of a vector access (`.v2.b64`: 8), from its type modifier.
fn elem_bytes(mods: &[&str]) -> i64 {
    mods.iter()
        .rev()
        .find_map(|m| {
            let digits = m
                .strip_prefix(".b")
                .or_else(|| m.strip_prefix(".u"))
                .or_else(|| m.strip_prefix(".s"))
                .or_else(|| m.strip_prefix(".f"))?;
            digits.parse::<i64>().ok().map(|bits| (bits / 8).max(1))
        })
        .unwrap_or(8)
}
