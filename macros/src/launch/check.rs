//! Positions of `launch!`/`config!`: the grid, block and stream (or a prebuilt config), the
//! CUDA habits in their place, and the literal limits of the grid, block and clusters; each
//! attribute is checked by [`super::setting`]. Every problem is recorded; nothing stops at the
//! first one.

use chevron_cuda_rules::kinds::{feature_name, version_name, KERNEL_BLOCK_SINCE};
use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::Expr;

use super::ast::{Attr, Chevrons, Entry, Item, Plan};
use super::keys;
use super::limits::{check_block, check_clusters, check_grid, lit_dim};
use super::setting::check_items;
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
    let kernel_block = check_underscores(&positions, crate::version::selected_cuda(), cx);
    let mut plan = Plan {
        grid: position(0),
        block: position(1),
        kernel_block,
        stream: (mode == Mode::Launch).then(|| position(2)),
        shared: None,
        settings: Vec::new(),
        non_portable_cluster: false,
        order: Vec::new(),
        prebuilt: None,
    };
    let grid = lit_dim(&plan.grid, "grid", cx);
    if plan.kernel_block.is_none() {
        let block = lit_dim(&plan.block, "block", cx);
        check_block(&block, plan.block.span(), cx);
    }
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
        kernel_block: None,
        stream,
        shared: None,
        settings: Vec::new(),
        non_portable_cluster: false,
        order: Vec::new(),
        prebuilt: Some(value.clone()),
    })
}

/// `_`, the kernel's own block shape, in the block position: its span, where the selected CUDA
/// `version` has it. `_` anywhere else among the positions (the grid, the stream, an extent of a
/// dim) is reported: it stands for the whole block only.
pub(super) fn check_underscores(
    positions: &[&Expr],
    version: u32,
    cx: &mut Errors,
) -> Option<Span> {
    let mut kernel_block = None;
    for (i, expr) in positions.iter().enumerate() {
        match (i, unparen(expr)) {
            (1, Expr::Infer(u)) => {
                if version < KERNEL_BLOCK_SINCE {
                    cx.error(
                        u.span(),
                        format!(
                            "`_` launches in the kernel's own block shape \
                             (CU_LAUNCH_KERNEL_REQUIRED_BLOCK_DIM), which needs CUDA {}: use \
                             feature {} or later, or write the block",
                            version_name(KERNEL_BLOCK_SINCE),
                            feature_name(KERNEL_BLOCK_SINCE)
                        ),
                    );
                }
                kernel_block = Some(u.span());
            }
            (0 | 2, Expr::Infer(u)) => cx.error(
                u.span(),
                format!(
                    "`_` stands for the kernel's own block shape, in the block position only; \
                     write the {}: `<<<GRID, _, &stream>>>`",
                    if i == 0 { "grid" } else { "stream" }
                ),
            ),
            (0 | 1, Expr::Tuple(t)) => {
                for e in &t.elems {
                    if let Expr::Infer(u) = unparen(e) {
                        cx.error(
                            u.span(),
                            format!(
                                "an extent of the {} cannot be `_`: `_` stands for the kernel's \
                                 whole block shape, written alone in the block position \
                                 (`<<<GRID, _, …>>>`)",
                                if i == 0 { "grid" } else { "block" }
                            ),
                        );
                    }
                }
            }
            _ => {}
        }
    }
    kernel_block
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

/// A literal or a tuple of literals: cannot be a `LaunchConfig`.
fn is_literal(expr: &Expr) -> bool {
    match unparen(expr) {
        Expr::Lit(_) => true,
        Expr::Tuple(t) => t.elems.iter().all(is_literal),
        _ => false,
    }
}
