//! Semantic rules of `launch!`/`config!`: positions, placement of each key (from the runtime's
//! table), duplicates, value forms, and limits on literal values. Every problem is recorded;
//! nothing stops at the first one.

use std::collections::HashMap;

use chevron_cuda_spec::kinds::Position;
use chevron_cuda_spec::limits::check_carveout;
use chevron_cuda_spec::ptx::{capped_list, name_list};
use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Expr, Lit};

use super::ast::{Attr, Chevrons, Entry, Item, Plan, Setting, Slot, Value};
use super::keys::{self, Key, Place, ValueForm, GROUPS, LIST, NON_PORTABLE_CLUSTER, SHARED};
use super::limits::{check_block, check_clusters, check_grid, lit_dim, lit_number, Numeric};
use crate::report::Errors;
use crate::tokens::{snippet, unparen};

/// Which macro is being checked; decides the positions.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `launch!`: grid, block, stream.
    Launch,
    /// `config!`: grid, block.
    Config,
}

impl Mode {
    fn positions(self) -> usize {
        match self {
            Self::Launch => 3,
            Self::Config => 2,
        }
    }

    fn shape(self) -> &'static str {
        match self {
            Self::Launch => "`<<<GRID, BLOCK, STREAM, ATTRIBUTES…>>>`",
            Self::Config => "`config!(<<<GRID, BLOCK, ATTRIBUTES…>>>)`",
        }
    }
}

/// The first entry of `<<<config = CFG, STREAM>>>`.
const CONFIG: &str = "config";
const PREBUILT_SHAPE: &str = "`<<<config = CFG, STREAM>>>`";

/// Checks the chevrons; `None` when a position is missing (errors are in `cx`).
pub fn check_chevrons(ch: &Chevrons, mode: Mode, cx: &mut Errors) -> Option<Plan> {
    if mode == Mode::Launch {
        if let Some(Entry::Item(Item::Attr(a))) = ch.entries.first() {
            if a.key == CONFIG {
                return check_prebuilt(ch, a, cx);
            }
        }
    }
    let (positions, items, misplaced) = split_entries(ch, mode, cx);
    let habit = check_positions(ch, &positions, &items, mode, misplaced, cx);

    let mut items = items.as_slice();
    if habit && positions.len() == 3 {
        // `<<<g, b, 0, s>>>`: `s` is the stream; the habit message already covers it.
        if let Some(Item::Attr(a)) = items.first() {
            if a.value.is_none() && !keys::is_known(&a.key.to_string()) {
                items = &items[1..];
            }
        }
    }

    // With a position missing, the items are still checked (against a placeholder) so every
    // mistake is reported; the plan is dropped at the end.
    let missing = positions.len() < mode.positions();
    let placeholder: Expr = syn::parse_quote!(1);
    let position = |i: usize| {
        positions
            .get(i)
            .map_or_else(|| placeholder.clone(), |e| (*e).clone())
    };
    let mut plan = Plan {
        grid: position(0),
        block: position(1),
        stream: (mode == Mode::Launch).then(|| position(2)),
        shared: None,
        settings: Vec::new(),
        non_portable_cluster: false,
        order: Vec::new(),
        prebuilt: None,
    };
    let grid = lit_dim(&plan.grid, "grid", cx);
    let block = lit_dim(&plan.block, "block", cx);
    check_block(&block, plan.block.span(), cx);
    check_grid(&grid, cx);

    check_items(items, &mut plan, cx);
    check_clusters(&plan, &grid, cx);
    (!missing).then_some(plan)
}

/// `<<<config = CFG, STREAM>>>`: a prebuilt `LaunchConfig` and the stream, nothing else.
fn check_prebuilt(ch: &Chevrons, config: &Attr, cx: &mut Errors) -> Option<Plan> {
    let mut ok = true;
    let Some(value) = &config.value else {
        cx.error(
            config.key.span(),
            format!("`config` takes a prebuilt `LaunchConfig`: {PREBUILT_SHAPE}"),
        );
        return None;
    };
    let stream = match ch.entries.get(1) {
        Some(Entry::Position(s)) => Some(s.clone()),
        Some(Entry::Item(item)) => {
            cx.error(
                item_span(item),
                format!(
                    "missing the stream: a launch with a prebuilt config takes {PREBUILT_SHAPE}"
                ),
            );
            None
        }
        None => {
            cx.error(
                ch.close,
                format!(
                    "missing the stream: a launch with a prebuilt config takes {PREBUILT_SHAPE}"
                ),
            );
            None
        }
    };
    for extra in ch.entries.iter().skip(2) {
        ok = false;
        let span = match extra {
            Entry::Position(e) => e.span(),
            Entry::Item(item) => item_span(item),
        };
        cx.error(
            span,
            format!(
                "a launch with a prebuilt config takes only the stream, {PREBUILT_SHAPE}: build \
                 the grid, block and attributes into the config with `config!(<<<…>>>)`"
            ),
        );
    }
    let one: Expr = syn::parse_quote!(1);
    (ok && stream.is_some()).then(|| Plan {
        grid: one.clone(),
        block: one,
        stream,
        shared: None,
        settings: Vec::new(),
        non_portable_cluster: false,
        order: Vec::new(),
        prebuilt: Some(value.clone()),
    })
}

/// Leading positional entries, then the items; a positional entry after an item is an error.
/// An item written where a position belongs (`<<<1, cooperative, s>>>`) is reported once, and
/// the positional entries after it still count as positions; the `bool` says so.
fn split_entries<'a>(
    ch: &'a Chevrons,
    mode: Mode,
    cx: &mut Errors,
) -> (Vec<&'a Expr>, Vec<&'a Item>, bool) {
    let mut positions = Vec::new();
    let mut items: Vec<&Item> = Vec::new();
    let mut misplaced = false;
    let mut first_item = None;
    for (index, entry) in ch.entries.iter().enumerate() {
        match entry {
            Entry::Position(e) if items.is_empty() => positions.push(e),
            Entry::Position(e) if misplaced => positions.push(e),
            Entry::Position(e) if first_item.is_some_and(|i| i < mode.positions()) => {
                let item = items[0];
                let name = ["grid", "block", "stream"][first_item.unwrap_or(0).min(2)];
                let key = match item {
                    Item::Attr(a) => a.key.to_string(),
                    Item::Group(g) => g.ident.to_string(),
                };
                cx.error(
                    item_span(item),
                    format!(
                        "the {name} position holds the attribute `{key}`: {} takes {}, the \
                         positions first; move `{key}` after the {}",
                        macro_name(mode),
                        mode.shape(),
                        match mode {
                            Mode::Launch => "stream",
                            Mode::Config => "block",
                        }
                    ),
                );
                misplaced = true;
                positions.push(e);
            }
            Entry::Position(e) => cx.error(
                e.span(),
                format!(
                    "expected an attribute, `KEY` or `KEY = VALUE`, found `{}`: the positions \
                     (grid, block, stream) come first",
                    snippet(e)
                ),
            ),
            Entry::Item(item) => {
                if first_item.is_none() {
                    first_item = Some(index);
                }
                items.push(item);
            }
        }
    }
    (positions, items, misplaced)
}

/// Counts the positions; returns whether the CUDA habit `<<<g, b, 0, s>>>` was seen.
fn check_positions(
    ch: &Chevrons,
    positions: &[&Expr],
    items: &[&Item],
    mode: Mode,
    misplaced: bool,
    cx: &mut Errors,
) -> bool {
    let mut habit = false;
    if mode == Mode::Launch {
        if let Some(stream) = positions.get(2) {
            if let Expr::Lit(lit) = unparen(stream) {
                habit = true;
                cx.error(
                    lit.span(),
                    format!(
                        "the third position is the stream; dynamic shared memory is written \
                         `shared = {}`: `<<<GRID, BLOCK, &stream, shared = {0}>>>`",
                        snippet(&lit.lit)
                    ),
                );
            }
        }
    }
    let want = mode.positions();
    if positions.len() < want && !misplaced {
        let names = ["the grid", "the block", "the stream"];
        let missing = &names[positions.len()..want];
        let missing = match missing {
            [one] => one.to_string(),
            [a, b] => format!("{a} and {b}"),
            [a, b, c] => format!("{a}, {b} and {c}"),
            _ => unreachable!("at most three positions"),
        };
        let span = match (positions.is_empty(), items.first()) {
            (_, Some(item)) => item_span(item),
            (true, None) => ch.open,
            (false, None) => ch.close,
        };
        // Two positions and no stream: either a prebuilt config where the grid belongs
        // (`<<<cfg, &stream>>>`: the second looks like a stream), or a grid and a block.
        let hint = match positions {
            [cfg, stream]
                if mode == Mode::Launch
                    && items.is_empty()
                    && !is_literal(cfg)
                    && (looks_like_stream(stream) || says(cfg, &["cfg", "config"])) =>
            {
                format!(
                    "; to launch with a prebuilt `LaunchConfig`, write `<<<config = {}, {}>>>`",
                    snippet(*cfg),
                    snippet(*stream)
                )
            }
            [grid, block] if mode == Mode::Launch => format!(
                "; the stream comes after the block: `<<<{}, {}, &stream{}>>>`",
                snippet(*grid),
                snippet(*block),
                if items.is_empty() { "" } else { ", …" }
            ),
            _ => String::new(),
        };
        cx.error(
            span,
            format!(
                "missing {missing}: {} takes {}{hint}",
                macro_name(mode),
                mode.shape()
            ),
        );
    }
    for (i, extra) in positions.iter().enumerate().skip(want) {
        if habit && i == 3 {
            continue;
        }
        let message = match mode {
            Mode::Config if i == 2 => "`config!` has no stream position: a `LaunchConfig` is \
                                       used with any stream, named at the launch"
                .to_string(),
            _ => format!(
                "unexpected expression `{}`: after {} come attributes, `KEY` or `KEY = VALUE`",
                snippet(extra),
                match mode {
                    Mode::Launch => "GRID, BLOCK and STREAM",
                    Mode::Config => "GRID and BLOCK",
                }
            ),
        };
        cx.error(extra.span(), message);
    }
    habit
}

fn macro_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Launch => "`launch!`",
        Mode::Config => "`config!`",
    }
}

fn item_span(item: &Item) -> Span {
    match item {
        Item::Attr(a) => a.key.span(),
        Item::Group(g) => g.ident.span(),
    }
}

/// Where each key was first set, for duplicates: by position and key, the group it was set in
/// (0 for the launch list, then each group counted from 1 in written order).
type Seen = HashMap<(Position, String), usize>;

fn check_items(items: &[&Item], plan: &mut Plan, cx: &mut Errors) {
    let mut seen = Seen::new();
    let mut group = 0;
    for item in items {
        match item {
            Item::Attr(attr) => {
                if !check_list_keyword(attr, plan, &mut seen, cx) {
                    check_setting(&LIST, attr, 0, plan, &mut seen, cx);
                }
            }
            Item::Group(g) => {
                group += 1;
                for attr in &g.attrs {
                    if attr.key == SHARED {
                        cx.error(
                            attr.key.span(),
                            format!(
                                "`shared` is the launch's dynamic shared memory, not a {} \
                                 attribute; move it out of `{}`",
                                g.place.noun, g.place.syntax
                            ),
                        );
                        continue;
                    }
                    check_setting(g.place, attr, group, plan, &mut seen, cx);
                }
            }
        }
    }
}

/// The launch list's own keywords, which are no kinds: `shared`, `non_portable_cluster`, and a
/// group's keyword written bare. Returns whether `attr` was one.
fn check_list_keyword(attr: &Attr, plan: &mut Plan, seen: &mut Seen, cx: &mut Errors) -> bool {
    let name = attr.key.to_string();
    if name == SHARED {
        if dup(seen, attr, &LIST, 0, cx) {
            return true;
        }
        match &attr.value {
            Some(v) => {
                lit_number(v, Numeric::Bytes, cx);
                plan.shared = Some(v.clone());
                plan.order.push(Slot::Shared);
            }
            None => cx.error(
                attr.key.span(),
                "`shared` needs the dynamic shared memory in bytes: `shared = BYTES`",
            ),
        }
        return true;
    }
    if name == NON_PORTABLE_CLUSTER {
        if dup(seen, attr, &LIST, 0, cx) {
            return true;
        }
        match &attr.value {
            None => plan.non_portable_cluster = true,
            Some(v) => cx.error(
                v.span(),
                "`non_portable_cluster` takes no value: write it bare to allow clusters of 9 to \
                 16 blocks",
            ),
        }
        return true;
    }
    if let Some(group) = Place::group(&name) {
        cx.error(
            attr.key.span(),
            format!(
                "{} attributes go in parentheses, `{name}({}, …)`{}",
                group.noun,
                group.first_example(),
                group.bare_note
            ),
        );
        return true;
    }
    false
}

/// One attribute written at `place` (in group number `group`): its key, whether the driver
/// accepts it there, duplicates, its value. The same path for every position.
fn check_setting(
    place: &'static Place,
    attr: &Attr,
    group: usize,
    plan: &mut Plan,
    seen: &mut Seen,
    cx: &mut Errors,
) {
    let name = attr.key.to_string();
    let Some(key) = keys::lookup(&name) else {
        unknown_key(attr, place, cx);
        return;
    };
    if !key.info.accepts(place.position) {
        cx.error(attr.key.span(), misplaced(key, attr, place));
        return;
    }
    if dup(seen, attr, place, group, cx) {
        return;
    }
    if let Some(value) = check_value(key, attr, cx) {
        plan.order.push(Slot::Setting(plan.settings.len()));
        plan.settings.push(Setting {
            key,
            position: place.position,
            span: attr.key.span(),
            value,
        });
    }
}

/// Why `key` cannot be written at `place`, and where it goes instead.
fn misplaced(key: Key, attr: &Attr, place: &Place) -> String {
    let (name, cuda) = (key.name(), key.info.cuda_name);
    let driver = place.position.driver_call();
    let target = std::iter::once(&LIST)
        .chain(GROUPS)
        .find(|p| key.info.accepts(p.position));
    match target {
        Some(target) if target.keyword.is_none() => format!(
            "`{name}` is a {} attribute: the driver rejects {cuda} in {driver}; move it out of \
             `{}` into the launch list",
            target.noun, place.syntax
        ),
        Some(target) => format!(
            "`{name}` is a {} attribute: the driver rejects {cuda} in {driver}; {}",
            target.noun,
            group_fix(key, attr, target)
        ),
        None => format!(
            "`{name}` cannot be written in `launch!`: the driver rejects {cuda} in {driver}"
        ),
    }
}

/// How to write an attribute that belongs in group `target` and was put in the launch list: the
/// user's value when it can be valid there, otherwise a valid value and the choices.
fn group_fix(key: Key, attr: &Attr, target: &Place) -> String {
    let name = key.name();
    let ty = key.info.type_name;
    let keyword = target.keyword.unwrap_or_default();
    if let Some(value) = &attr.value {
        let literal = matches!(unparen(value), Expr::Lit(_));
        let literal_ok = matches!(
            key.form,
            ValueForm::Flag | ValueForm::I32 | ValueForm::Percent
        );
        let valid = check_value(key, attr, &mut Errors::default()).is_some();
        if valid && (!literal || literal_ok) {
            return format!("write it as `{keyword}({name} = {})`", snippet(value));
        }
    }
    let why = attr.value.as_ref().map_or(String::new(), |v| {
        format!("`{}` is not a `{ty}`; ", snippet(v))
    });
    match key.form {
        ValueForm::Enum(variants) => format!(
            "{why}write it as `{keyword}({name} = {})`, with one of {} or an expression of type \
             `{ty}`",
            variants[0],
            name_list(variants.iter().copied())
        ),
        ValueForm::Flag => format!("write it as `{keyword}({name})`"),
        form => format!(
            "{why}move it into `{}`: {}",
            target.syntax,
            form.describe(name)
        ),
    }
}

/// A literal or a tuple of literals: cannot be a `LaunchConfig`.
/// Whether `expr` reads as a stream rather than a block: a reference (`&stream`, `&s`), `s`,
/// or a name or method that says `stream` (`stream`, `capture.stream()`, `self.stream`). A
/// block is a number, a tuple or a `Dim3`, never a reference.
fn looks_like_stream(expr: &Expr) -> bool {
    match unparen(expr) {
        Expr::Reference(_) => true,
        Expr::Path(p) if p.path.is_ident("s") => true,
        e => says(e, &["stream"]),
    }
}

/// Whether the name `expr` ends in (a path's last segment, a field, a method, through `&`)
/// contains one of `words`, in any case.
fn says(expr: &Expr, words: &[&str]) -> bool {
    let name = match unparen(expr) {
        Expr::Reference(r) => return says(&r.expr, words),
        Expr::MethodCall(m) => m.method.to_string(),
        Expr::Field(f) => quote::ToTokens::to_token_stream(&f.member).to_string(),
        Expr::Path(p) => match p.path.segments.last() {
            Some(s) => s.ident.to_string(),
            None => return false,
        },
        _ => return false,
    };
    let name = name.to_ascii_lowercase();
    words.iter().any(|w| name.contains(w))
}

fn is_literal(expr: &Expr) -> bool {
    match unparen(expr) {
        Expr::Lit(_) => true,
        Expr::Tuple(t) => t.elems.iter().all(is_literal),
        _ => false,
    }
}

/// Records `attr` at `place` (group number `group`); reports it and returns true if its key was
/// already set there.
fn dup(seen: &mut Seen, attr: &Attr, place: &Place, group: usize, cx: &mut Errors) -> bool {
    let name = attr.key.to_string();
    if let Some(first) = seen.get(&(place.position, name.clone())) {
        let message = match place.keyword {
            None => format!(
                "`{name}` is set twice in the launch list; remove one (the driver would \
                 silently take one of them)"
            ),
            Some(_) if *first == group => {
                format!(
                    "`{name}` is set twice in this `{}`; remove one",
                    place.syntax
                )
            }
            Some(_) => format!(
                "`{name}` is already set in an earlier `{}` group; remove one of them",
                place.syntax
            ),
        };
        cx.error(attr.key.span(), message);
        return true;
    }
    seen.insert((place.position, name), group);
    false
}

fn unknown_key(attr: &Attr, place: &Place, cx: &mut Errors) {
    let name = attr.key.to_string();
    if let Some(message) = keys::missing_in_version(&name) {
        cx.error(attr.key.span(), message);
        return;
    }
    let valid = keys::valid_here(place);
    let hint = match keys::nearest(&name, &valid) {
        Some(near) => format!("did you mean `{near}`? "),
        None => String::new(),
    };
    cx.error(
        attr.key.span(),
        format!(
            "unknown {} attribute `{name}`; {hint}expected one of {}",
            place.noun,
            // Every valid key: the table is short, unlike a PTX file's kernel list.
            capped_list(valid.iter().map(|k| format!("`{k}`")), valid.len())
        ),
    );
}

/// Checks the value of `key` as written in `attr`.
fn check_value(key: Key, attr: &Attr, cx: &mut Errors) -> Option<Value> {
    let name = key.name();
    let Some(value) = &attr.value else {
        if key.form == ValueForm::Flag {
            return Some(Value::On);
        }
        cx.error(
            attr.key.span(),
            format!("`{name}` needs a value: {}", key.form.describe(name)),
        );
        return None;
    };
    match key.form {
        ValueForm::Flag => match unparen(value) {
            Expr::Lit(l) => match &l.lit {
                Lit::Bool(b) if b.value() => Some(Value::On),
                Lit::Bool(_) => Some(Value::Flag(value.clone())),
                other => {
                    cx.error(
                        other.span(),
                        format!(
                            "`{name}` is a flag: write `{name}`, or `{name} = <bool>`; found `{}`",
                            snippet(other)
                        ),
                    );
                    None
                }
            },
            _ => Some(Value::Flag(value.clone())),
        },
        ValueForm::Enum(variants) => {
            if let Expr::Path(p) = unparen(value) {
                if let Some(ident) = p.path.get_ident() {
                    let text = ident.to_string();
                    if variants.contains(&text.as_str()) {
                        if let Some(message) = keys::variant_missing_in_version(name, &text) {
                            cx.error(ident.span(), message);
                            return None;
                        }
                        return Some(Value::Variant(ident.clone()));
                    }
                    if text.starts_with(|c: char| c.is_ascii_uppercase()) {
                        let variants = keys::variants_in_version(name, variants);
                        let hint = keys::nearest(&text, &variants)
                            .map_or(String::new(), |n| format!("did you mean `{n}`? "));
                        cx.error(
                            ident.span(),
                            format!(
                                "`{text}` is not a `{}`: {hint}expected one of {}, or an \
                                 expression of type `{0}`",
                                key.info.type_name,
                                name_list(variants.iter().copied())
                            ),
                        );
                        return None;
                    }
                }
            }
            Some(Value::Expr(value.clone()))
        }
        ValueForm::Dim => {
            lit_dim(value, name, cx);
            Some(Value::Expr(value.clone()))
        }
        ValueForm::Percent => {
            if let Some((pct, span)) = lit_number(value, Numeric::Percent, cx) {
                if let Err(violation) = check_carveout(pct.unsigned_abs()) {
                    cx.error(span, violation.to_string());
                }
            }
            Some(Value::Expr(value.clone()))
        }
        ValueForm::I32 => {
            lit_number(value, Numeric::Priority, cx);
            Some(Value::Expr(value.clone()))
        }
        ValueForm::Event | ValueForm::Expr => Some(Value::Expr(value.clone())),
    }
}

/// Untyped (`dyn`) launches pass each argument as a pointer to its bytes, so the Rust type of a
/// literal decides what the kernel reads: `&2.0` is an `f64`. Require references and typed
/// numeric literals; everything else is left to rustc.
pub fn check_dyn_args(args: &[Expr], cx: &mut Errors) {
    for arg in args {
        match unparen(arg) {
            Expr::Lit(l) => cx.error(
                l.span(),
                format!(
                    "an untyped (`dyn`) launch takes its arguments by reference, as cudarc's \
                     `arg`: write `&{}`",
                    snippet(&l.lit)
                ),
            ),
            Expr::Reference(r) => {
                if let Some(u) = super::untyped::untyped(&r.expr) {
                    cx.push(syn::Error::new_spanned(
                        &r.expr,
                        untyped_message(&r.expr, &u),
                    ));
                }
            }
            _ => {}
        }
    }
}

/// "an untyped (`dyn`) launch passes `-2.5` as `f64`, whatever the kernel expects: give the
/// literal its type, e.g. `-2.5f32`".
fn untyped_message(expr: &Expr, u: &super::untyped::Untyped<'_>) -> String {
    let (ty, mut suffix) = (u.number.fallback(), u.number.suggested());
    let as_ty = if u.array {
        format!("as an array of `{ty}`")
    } else {
        format!("as `{ty}`")
    };
    let lit = snippet(u.literal);
    let fix = match unparen(expr) {
        Expr::Unary(n) if matches!(n.op, syn::UnOp::Neg(_)) && u.literals == 1 => {
            if u.number == super::untyped::Number::Int {
                suffix = "i32"; // `-2u32` does not compile
            }
            format!("give the literal its type, e.g. `-{lit}{suffix}`")
        }
        _ if u.literals == 1 => format!("give the literal its type, e.g. `{lit}{suffix}`"),
        _ => format!("give one of its literals a type, e.g. `{lit}{suffix}`"),
    };
    // `snippet` spaces a unary minus as any operator: `- 2.5`.
    let text = snippet(expr);
    let text = match text.strip_prefix("- ") {
        Some(rest) => format!("-{rest}"),
        None => text.replace("(- ", "(-"),
    };
    format!("an untyped (`dyn`) launch passes `{text}` {as_ty}, whatever the kernel expects: {fix}")
}
