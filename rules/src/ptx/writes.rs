//! Which pointer parameters an entry writes through: a parameter whose value flows into the
//! address of a store (`st`, `wmma.store`, `stmatrix`, `st.async`, `st.bulk`, `sust`), an
//! atomic or reduction (`atom`, `red`, `multimem`, `sured`), a bulk copy to global memory, a
//! `discard` or a `tensormap.replace`, over the entry's whole call graph. Read for every kernel:
//! for `extern "C"` kernels it is the only word on write access, and for C++ kernels a store
//! through a `const T*` (a `const_cast`) wins over the `const`, and a `T*` it proves unwritten
//! may be declared read-only.
//!
//! The flow is followed as nvcc emits it: `ld.param` of the parameter, then `mov`, `cvta`,
//! 64-bit `add`, `sub`, `mad`, `mul.wide`, `selp`, `and`/`or`/`xor`, and `shfl` (of a
//! pointer's halves) between registers; through the local stack slots `[%SP+8]` that `-G`
//! builds spill pointers to, and through local arrays indexed at run time (a load at an offset
//! not known takes every slot's pointers); through memory (a pointer stored to shared or global
//! memory by one thread and loaded back by another: a 64-bit load from memory takes every
//! pointer the same function stores to memory); and into calls: each `.func` is summarised
//! (which of its parameters it writes through, which flow into its return value, which leave
//! what is followed) once its callees are, in the order of the call graph's strongly connected
//! components, callees first, so the whole is linear in the file (a cycle of recursion is
//! iterated until its summaries settle). Registers are followed without regard to order
//! (nvcc's virtual registers each hold one value, or the copies of one `phi`), so a parameter
//! is written when some path may store through it.
//!
//! Three-valued: yes with the store's place; unknown, with a [`WriteDoubt`] saying why, where
//! the value leaves what is followed (stored to memory, passed to a call whose code the file
//! does not hold or through a function pointer, its address taken, or a function with more than
//! 64 parameter slots); no otherwise.

mod doubt;
mod order;
mod read;

use std::collections::{HashMap, HashSet};

use super::facts::{Callee, Seen, Site, UnseenCall};
use super::{is_identifier, Entry, Tok};
pub use doubt::WriteDoubt;
use order::components;
use read::{read_aliases, read_externs, read_units};

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

/// Why a slot escapes, with the unit it was seen in (turned into a [`WriteDoubt`] at the end).
#[derive(Clone, PartialEq)]
enum Why {
    Call(Callee, usize, usize),
    Stored(usize, usize),
    AddressTaken(usize, usize),
    Limit,
}

/// What a function does with its parameter slots, as its callers apply it.
#[derive(Clone, Default)]
struct Summary {
    /// The slots (parameter, byte offset), numbered by first use.
    slots: Vec<(usize, i64)>,
    /// Per slot written through: where (the line, and the function it is in).
    written: Vec<Option<(usize, usize)>>,
    /// Slots whose value leaves what is followed.
    escapes: u64,
    /// Per slot that escapes: why (the first reason found).
    why: Vec<Option<Why>>,
    /// Slots that flow into the return value.
    returns: u64,
    /// More slots than followed, or a body that did not settle: what is not written is unknown.
    incomplete: bool,
}

impl Summary {
    /// Whether `other` says the same to callers (the reasons aside).
    fn same(&self, other: &Summary) -> bool {
        self.slots == other.slots
            && self.written == other.written
            && self.escapes == other.escapes
            && self.returns == other.returns
            && self.incomplete == other.incomplete
    }

    fn escape(&mut self, bits: u64, why: impl Fn() -> Why) {
        for i in bits_of(bits & !self.escapes) {
            self.why[i] = Some(why());
        }
        self.escapes |= bits;
    }
}

/// The module-wide tables a body's calls are resolved with.
struct Module<'a, 's> {
    defined: HashMap<&'s str, usize>,
    aliases: HashMap<&'s str, &'s str>,
    externs: HashSet<&'s str>,
    units: &'a [Unit<'s>],
}

impl<'s> Module<'_, 's> {
    /// The function a call names, through `.alias` chains (bounded, so a cycle ends).
    fn resolve(&self, target: &'s str) -> &'s str {
        let mut name = target;
        for _ in 0..=self.aliases.len() {
            match self.aliases.get(name) {
                Some(next) => name = next,
                None => break,
            }
        }
        name
    }

    /// The unit a call's target names, when the file holds its code.
    fn callee(&self, target: &'s str) -> Option<usize> {
        let name = self.resolve(target);
        if is_identifier(name) && !name.starts_with('%') {
            self.defined.get(name).copied()
        } else {
            None
        }
    }
}

/// Fills `writes` and `write_doubts` of every entry from the tokens they were read from.
pub(super) fn analyze(toks: &[Tok<'_>], entries: &mut [Entry]) {
    let units = read_units(toks, entries);
    let mut defined: HashMap<&str, usize> = HashMap::new();
    for (u, unit) in units.iter().enumerate() {
        if unit.entry.is_none() {
            defined.entry(unit.name).or_insert(u);
        }
    }
    let module = Module {
        defined,
        aliases: read_aliases(toks),
        externs: read_externs(toks),
        units: &units,
    };
    // The call graph, caller to callee.
    let edges: Vec<Vec<usize>> = units
        .iter()
        .map(|unit| {
            let mut out: Vec<usize> = unit
                .body
                .iter()
                .filter(|ins| ins.op == "call")
                .filter_map(|ins| module.callee(call_target(ins).0))
                .collect();
            out.sort_unstable();
            out.dedup();
            out
        })
        .collect();
    let mut summaries: Vec<Summary> = vec![Summary::default(); units.len()];
    // Callees before callers: each function is summarised once, a cycle until it settles.
    for component in components(&edges) {
        let cyclic = component.len() > 1 || edges[component[0]].contains(&component[0]);
        if !cyclic {
            let u = component[0];
            summaries[u] = summarise(u, &module, &summaries);
            continue;
        }
        // Summaries only grow (each pass adds a slot, a write, an escape or a return); the
        // bound is for malformed input.
        let bound = component.len() * (SLOTS * 3 + 4) + 8;
        let mut settled = false;
        for _ in 0..bound {
            let mut changed = false;
            for &u in &component {
                let summary = summarise(u, &module, &summaries);
                if !summary.same(&summaries[u]) {
                    changed = true;
                }
                summaries[u] = summary;
            }
            if !changed {
                settled = true;
                break;
            }
        }
        if !settled {
            for &u in &component {
                summaries[u].incomplete = true;
            }
        }
    }
    let site = |line: usize, origin: usize, u: usize| Site {
        line,
        func: (origin != u).then(|| units[origin].name.to_string()),
    };
    for (u, unit) in units.iter().enumerate() {
        let Some(k) = unit.entry else { continue };
        let s = &summaries[u];
        let mut writes = Vec::new();
        let mut doubts = Vec::new();
        for j in 0..entries[k].params.len() {
            let slot = s.slots.iter().position(|&sl| sl == (j, 0));
            let escaped = slot.filter(|&i| s.escapes & (1 << i) != 0);
            let (seen, doubt) = match slot.and_then(|i| s.written[i]) {
                Some((line, origin)) => (Seen::Yes(site(line, origin, u)), None),
                None if s.incomplete => (Seen::Unknown, Some(WriteDoubt::Limit)),
                None => match escaped {
                    Some(i) => {
                        let doubt = match s.why[i].clone().unwrap_or(Why::Limit) {
                            Why::Call(callee, line, origin) => WriteDoubt::Call(UnseenCall {
                                site: site(line, origin, u),
                                callee,
                            }),
                            Why::Stored(line, origin) => WriteDoubt::Stored(site(line, origin, u)),
                            Why::AddressTaken(line, origin) => {
                                WriteDoubt::AddressTaken(site(line, origin, u))
                            }
                            Why::Limit => WriteDoubt::Limit,
                        };
                        (Seen::Unknown, Some(doubt))
                    }
                    None => (Seen::No, None),
                },
            };
            writes.push(seen);
            doubts.push(doubt);
        }
        entries[k].writes = writes;
        entries[k].write_doubts = doubts;
    }
}

/// The taint of registers and stack slots in one body: which parameter slots a value may
/// derive from (bit `i`: slot `i` of the summary).
#[derive(Default)]
struct State<'s> {
    regs: HashMap<&'s str, u64>,
    /// Registers known to hold the stack pointer plus a constant.
    stack: HashMap<&'s str, i64>,
    /// Registers that point into the stack frame at an offset not known (a local array
    /// indexed at run time, or a register given several offsets).
    frame: HashSet<&'s str>,
    /// Stack slots by offset.
    slots: HashMap<i64, u64>,
    /// Every slot's taint, and what was stored at offsets not known.
    all_slots: u64,
    anywhere: u64,
    /// What the body stores to memory other than its stack frame.
    memory: u64,
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
            self.all_slots |= bits;
            self.changed = true;
        }
    }

    /// Adds `bits` to a cell (`anywhere` or `memory`).
    fn add(cell: &mut u64, changed: &mut bool, bits: u64) {
        if *cell | bits != *cell {
            *cell |= bits;
            *changed = true;
        }
    }

    /// Whether the address operand `op` points into the stack frame at an offset not known.
    fn in_frame(&self, op: &[&str]) -> bool {
        address(op).is_some_and(|(base, _)| self.frame.contains(base))
    }
}

/// Summarises unit `u` given its callees' current summaries.
fn summarise(u: usize, module: &Module<'_, '_>, summaries: &[Summary]) -> Summary {
    let unit = &module.units[u];
    let mut out = Summary::default();
    if unit.body.is_empty() {
        return out;
    }
    let mut st = State::default();
    let mut settled = false;
    for _ in 0..MAX_PASSES {
        st.changed = false;
        for ins in &unit.body {
            note_address_taken(ins, u, unit, &mut out);
            step(ins, u, unit, module, summaries, &mut st, &mut out);
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
    out.why.push(None);
    Some(out.slots.len() - 1)
}

fn bits_of(bits: u64) -> impl Iterator<Item = usize> {
    (0..SLOTS).filter(move |i| bits & (1 << i) != 0)
}

/// Whether `t` is the stack pointer or the frame itself.
fn is_frame_base(t: &str) -> bool {
    t == "%SP" || t == "%SPL" || t.starts_with("__local_depot")
}

/// Applies one instruction to the state.
fn step<'s>(
    ins: &Instr<'s>,
    u: usize,
    unit: &Unit<'s>,
    module: &Module<'_, 's>,
    summaries: &[Summary],
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
    // A store of `value` through the address operand `addr` into memory that is not the
    // stack frame: a write through whatever the address derives from, and the value escapes.
    let store = |addr: &[&'s str], value: u64, st: &mut State<'s>, out: &mut Summary| {
        let target = addr.iter().fold(0, |acc, t| acc | st.of(t));
        write(target, out);
        State::add(&mut st.memory, &mut st.changed, value);
        out.escape(value, || Why::Stored(ins.line, u));
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
                    let at = offset + k as i64 * elem;
                    let bits = st.slots.get(&at).copied().unwrap_or(0) | st.anywhere;
                    st.taint(dst, bits);
                }
            } else if elem == 8 {
                // A 64-bit load that may be a pointer: from a local array indexed at run time,
                // any slot's; from memory, any pointer this body stored there.
                let bits = if st.in_frame(addr) || has(".local") {
                    st.all_slots | st.anywhere
                } else {
                    st.memory
                };
                for dst in dsts(0) {
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
        // `st`, `st.async`, `st.bulk`; a surface store (`sust`) and the matrix stores
        // (`wmma.store.d…`, `stmatrix…`) take the address first too.
        "st" | "sust" | "stmatrix" | "wmma" => {
            if ins.op == "wmma" && !has(".store") {
                return;
            }
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
            } else if st.in_frame(addr) || has(".local") {
                State::add(&mut st.anywhere, &mut st.changed, value);
            } else {
                store(addr, value, st, out);
            }
        }
        "atom" | "red" | "multimem" | "sured" => {
            if let Some(k) = ops.iter().position(|o| o.first() == Some(&"[")) {
                let value = sources(st, k + 1);
                store(&ops[k], value, st, out);
            }
        }
        // `discard.global.L2 [a], 128` leaves the line's contents undefined; `tensormap.replace
        // [tmap], value` rewrites a tensor map in memory.
        "discard" | "tensormap" => {
            if let Some(addr) = ops.first() {
                let value = sources(st, 1);
                store(addr, value, st, out);
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
        "call" => call(ins, u, module, summaries, st, out),
        "mov" | "cvta" | "add" | "sub" | "mad" | "selp" | "slct" | "and" | "or" | "xor" => {
            let dst = dsts(0);
            if let ([d], Some(a)) = (dst.as_slice(), ops.get(1)) {
                // The stack pointer and addresses in the stack frame: `mov.u64 %SPL,
                // __local_depot0`, `cvta.local.u64 %SP, %SPL`, `add.u64 %rd4, %SP, 80`.
                let base = |t: &str| {
                    if is_frame_base(t) {
                        Some(0)
                    } else if st.frame.contains(t) {
                        None
                    } else {
                        st.stack.get(t).copied()
                    }
                };
                let frame = match (ins.op, a.as_slice(), ops.get(2).map(Vec::as_slice)) {
                    ("mov" | "cvta", [t], None) => base(t),
                    ("add", [t], Some(c)) => base(t).zip(constant(c)).map(|(b, c)| b + c),
                    _ => None,
                };
                let from_frame = || {
                    ops.iter().skip(1).flat_map(|o| o.iter()).any(|t| {
                        is_frame_base(t) || st.stack.contains_key(t) || st.frame.contains(t)
                    })
                };
                let moved = match frame {
                    // A register given a second offset (a pointer walking a local array).
                    Some(offset) if st.stack.get(d).is_some_and(|&o| o != offset) => {
                        st.frame.insert(d)
                    }
                    Some(offset) => st.stack.insert(d, offset) != Some(offset),
                    None => !st.frame.contains(d) && from_frame() && st.frame.insert(d),
                };
                st.changed |= moved;
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
fn note_address_taken<'s>(ins: &Instr<'s>, u: usize, unit: &Unit<'s>, out: &mut Summary) {
    if ins.op == "ld" && ins.mods.contains(&".param") {
        return;
    }
    for t in ins.operands.iter().flat_map(|o| o.iter()) {
        let Some(j) = unit.params.iter().position(|p| p == t) else {
            continue;
        };
        let mut bits = 0;
        if let Some(i) = slot_id(out, (j, 0)) {
            bits |= 1 << i;
        }
        for (i, s) in out.slots.iter().enumerate() {
            if s.0 == j {
                bits |= 1 << i;
            }
        }
        out.escape(bits, || Why::AddressTaken(ins.line, u));
    }
}

/// The target of a call and the operand index after it: `call (ret), target, (args)` or
/// `call target, (args)` (and a prototype after them for an indirect call).
fn call_target<'s>(ins: &Instr<'s>) -> (&'s str, usize) {
    let ops = &ins.operands;
    let k = usize::from(ops.first().and_then(|o| o.first()) == Some(&"("));
    let target = ops.get(k).and_then(|o| o.first().copied()).unwrap_or("");
    (target, k + 1)
}

/// A call: the callee's summary applied to the arguments stored for it in this block.
fn call<'s>(
    ins: &Instr<'s>,
    u: usize,
    module: &Module<'_, 's>,
    summaries: &[Summary],
    st: &mut State<'s>,
    out: &mut Summary,
) {
    let ops = &ins.operands;
    let group = |o: &Vec<&'s str>| -> Option<Vec<&'s str>> {
        (o.first() == Some(&"(")).then(|| o.iter().copied().filter(|t| is_identifier(t)).collect())
    };
    let (target, after) = call_target(ins);
    let rets = if after == 2 {
        ops.first().and_then(group).unwrap_or_default()
    } else {
        Vec::new()
    };
    let args: Vec<&str> = ops.get(after).and_then(group).unwrap_or_default();
    let arg_bits = |st: &State<'s>, j: usize, offset: Option<i64>| -> u64 {
        let Some(name) = args.get(j) else { return 0 };
        st.args.get(&(ins.block, *name)).map_or(0, |list| {
            list.iter()
                .filter(|(o, _)| offset.is_none_or(|w| *o == w))
                .fold(0, |acc, (_, b)| acc | b)
        })
    };
    let Some(c) = module.callee(target) else {
        let name = module.resolve(target);
        if !SYSTEM_CALLS.contains(&name) {
            // Code the file does not hold: whatever is passed may be written or kept.
            let callee = if is_identifier(name) && !name.starts_with('%') {
                Callee::Named {
                    name: name.to_string(),
                    external: module.externs.contains(name),
                }
            } else {
                Callee::Indirect
            };
            for j in 0..args.len() {
                let bits = arg_bits(st, j, None);
                out.escape(bits, || Why::Call(callee.clone(), ins.line, u));
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
        if s.escapes & (1 << i) != 0 {
            let why = s.why[i].clone().unwrap_or(Why::Limit);
            out.escape(bits, || why.clone());
        } else if s.incomplete && s.written[i].is_none() {
            out.escape(bits, || Why::Limit);
        }
        if s.returns & (1 << i) != 0 {
            returned |= bits;
        }
    }
    if s.incomplete {
        for j in 0..args.len() {
            let bits = arg_bits(st, j, None);
            let unwritten = bits_of(bits)
                .filter(|&b| out.written[b].is_none())
                .fold(0, |acc, b| acc | 1 << b);
            out.escape(unwritten, || Why::Limit);
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
    let at = if is_frame_base(base) {
        0
    } else if st.frame.contains(base) {
        return None;
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
