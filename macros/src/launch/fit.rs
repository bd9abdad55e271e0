//! The kernel's launch rules on a typed launch's literals: one fact set per launch
//! ([`LaunchFacts`], from the literal grid, block (or `_`, the kernel's own), `cluster` and
//! flags) and one statement whose const argument calls the rules crate's check on it
//! ([`KernelInfo::check`], through `refusal_block`, `refusal_literal` or `refusal`), against
//! the `KernelInfo` `#[kernel]` emitted. The rules themselves are the rules crate's table: a new rule over
//! these facts needs nothing here; a new fact (a field of `LaunchFacts`, a `Subject`) is named
//! by the compiler in [`facts`], [`facts_tokens`] and [`written_at`].
//!
//! [`KernelInfo::check`]: chevron_cuda_rules::fit::KernelInfo::check

use chevron_cuda_rules::fit::{KernelInfo, LaunchFacts, Subject};
use chevron_cuda_rules::kinds::Position;
use proc_macro2::{Delimiter, Group, Ident, Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Expr, Lit};

use super::ast::{Plan, Setting, Value};
use crate::tokens::unparen;

/// `[x, y, z]` of a dim written with integer literals only (`256`, `(16, 16)`); `None` when
/// any extent is decided at run time.
fn literal_dims(expr: &Expr) -> Option<[u32; 3]> {
    literal_dims_where(expr, |_| true)
}

/// [`literal_dims`] of a dim whose literals' suffixes all pass `suffix_ok` (`""` when none).
pub(super) fn literal_dims_where(
    expr: &Expr,
    suffix_ok: impl Fn(&str) -> bool,
) -> Option<[u32; 3]> {
    let comp = |e: &Expr| match unparen(e) {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Int(i), ..
        }) if suffix_ok(i.suffix()) => i.base10_parse::<u32>().ok(),
        _ => None,
    };
    let mut out = [1u32; 3];
    match unparen(expr) {
        Expr::Tuple(t) if (1..=3).contains(&t.elems.len()) => {
            for (slot, e) in out.iter_mut().zip(&t.elems) {
                *slot = comp(e)?;
            }
        }
        Expr::Tuple(_) => return None,
        e => out[0] = comp(e)?,
    }
    Some(out)
}

/// The block as `[x, y, z]` where it is integer literals that are unsuffixed or `u32` (what
/// `LaunchConfig::__from_grid_block` and the literal-block check take as they are); `None`
/// for an expression or another suffix, which keeps its conversion and its error.
pub(super) fn plain_block(plan: &Plan) -> Option<[u32; 3]> {
    literal_dims_where(&plan.block, |s| s.is_empty() || s == "u32")
}

/// A flag attribute's literal value: `Some(false)` when absent, `None` when an expression
/// decides it at run time.
fn literal_flag(setting: Option<&Setting>) -> Option<bool> {
    match setting.map(|s| &s.value) {
        None => Some(false),
        Some(Value::On) => Some(true),
        Some(Value::Flag(e)) => match unparen(e) {
            Expr::Lit(syn::ExprLit {
                lit: Lit::Bool(b), ..
            }) => Some(b.value),
            _ => None,
        },
        Some(_) => None,
    }
}

/// The launch-list setting of `key`, if written.
fn setting<'a>(plan: &'a Plan, key: &str) -> Option<&'a Setting> {
    plan.at(Position::Launch).find(|s| s.key.name() == key)
}

/// What the launch's literals fix: `None` where an expression decides at run time.
fn facts(plan: &Plan) -> LaunchFacts {
    LaunchFacts {
        grid: literal_dims(&plan.grid),
        block: match plan.kernel_block {
            Some(_) => None,
            None => literal_dims(&plan.block),
        },
        kernel_block: plan.kernel_block.is_some(),
        cluster: match setting(plan, "cluster") {
            // No `cluster`: a kernel compiled with `.explicitcluster` alone cannot launch.
            None => Some(None),
            Some(Setting {
                value: Value::Expr(e),
                ..
            }) => literal_dims(e).map(Some),
            Some(_) => None,
        },
        cooperative: literal_flag(setting(plan, "cooperative")),
        programmatic_serialization: literal_flag(setting(plan, "programmatic_serialization")),
    }
}

/// Where a broken rule on `subject` is reported: the value written for it, `None` when the
/// launch leaves it out (then at the kernel's name).
fn written_at(plan: &Plan, subject: Subject) -> Option<Span> {
    let attr = |key: &str| {
        setting(plan, key).map(|s| match &s.value {
            Value::Expr(e) => e.span(),
            _ => s.span,
        })
    };
    match subject {
        Subject::Block => Some(plan.block.span()),
        Subject::Grid => Some(plan.grid.span()),
        Subject::Cluster => attr("cluster"),
        Subject::SerializationFlag => attr("programmatic_serialization"),
        Subject::CooperativeFlag => attr("cooperative"),
    }
}

/// `LaunchFacts { … }` as tokens.
fn facts_tokens(p: &TokenStream, facts: &LaunchFacts) -> TokenStream {
    let dims = |d: Option<[u32; 3]>| match d {
        Some([x, y, z]) => quote!(#p::Some([#x, #y, #z])),
        None => quote!(#p::None),
    };
    let flag = |f: Option<bool>| match f {
        Some(b) => quote!(#p::Some(#b)),
        None => quote!(#p::None),
    };
    let LaunchFacts {
        grid,
        block,
        kernel_block,
        cluster,
        cooperative,
        programmatic_serialization,
    } = *facts;
    let (grid, block) = (dims(grid), dims(block));
    let cluster = match cluster {
        Some(c) => {
            let c = dims(c);
            quote!(#p::Some(#c))
        }
        None => quote!(#p::None),
    };
    let (cooperative, serialization) = (flag(cooperative), flag(programmatic_serialization));
    quote!(#p::LaunchFacts {
        grid: #grid,
        block: #block,
        kernel_block: #kernel_block,
        cluster: #cluster,
        cooperative: #cooperative,
        programmatic_serialization: #serialization,
    })
}

/// The one statement checking the launch's literal values against the kernel's rules
/// (`KERNEL::INFO`, from `#[kernel]`): it fails compilation with the words of the first broken
/// rule, over the launch from the kernel's name to the last value a rule looks at: a coercion
/// of `&K` to the trait object the runtime's `Refusal` picks for the rule (an E0277 whose
/// message is a trait of `chevron::refusals`, not a const panic). `None` when no literal fixes
/// anything.
pub fn fit_check(path: &syn::Path, plan: &Plan) -> Option<Fit> {
    let facts = facts(plan);
    if facts == LaunchFacts::UNKNOWN {
        return None;
    }
    // Always emitted: whether a launch is checked depends only on the kernel it names, which
    // the macro cannot resolve (a `use … as`, a `type` alias, two declarations of one name from
    // a `macro_rules!`), so the item asks the kernel's own `INFO` (`may_refuse_literal` first,
    // a few field reads, for a kernel that fixes nothing). In a few integers where they say it
    // all (`LaunchFacts::literal`): rustc checks less.
    let literal = facts.literal_args();
    // The most common launch: a block of literals (unsuffixed or `u32`, as
    // `LaunchConfig::__from_grid_block` takes them) is its only literal, the grid is computed,
    // no `cluster` and no flag is on. Its config is built by
    // `<K as LiteralBlock<Block1<X, W, L>>>::__config(grid, <K as Pointer>::NULL)` (`32·W + L`
    // threads; `Block3<X, Y, Z, W, L>` for a block of more dimensions), which coerces
    // `*const K` to `LiteralBlock::Dyn` (from the kernel's
    // `TypedKernel::Literal`): `K` itself where its rules accept the block, else the refusal's
    // trait object, as below, but with no constant for rustc to evaluate, which cost about
    // 0.3 ms of `cargo check` per launch (`scripts/compile_bench.sh`), and no alias item.
    if let Some(([0, 0, 0], [x, y, z], [0, 0, 0], KernelInfo::LITERAL_BLOCK_KNOWN)) = literal {
        let threads = u64::from(x) * u64::from(y) * u64::from(z);
        if threads <= 1024 && plain_block(plan).is_some() {
            let bs = plan.block.span();
            let lit = |v: u32| {
                let mut lit = proc_macro2::Literal::u32_unsuffixed(v);
                lit.set_span(bs);
                lit
            };
            // The kernel as a qualified path's type (a function or a value in its place is
            // rustc's "expected type", once: both uses are one error) and a null
            // `*const KERNEL` as a constant, all at the kernel's name.
            // (A syn node's span joins its tokens' spans, which costs in the unoptimised build
            // cargo makes of proc macros: taken once.)
            let ps = path.span();
            let p_at = crate::krate::private_at(ps);
            // The threads' warps and remaining lanes as count types (`N8`), the extents as
            // literals: one const argument for a one-dimensional block, each of which rustc
            // checks as a constant of its own.
            let count = |v: u64| Ident::new(&format!("N{v}"), ps);
            let (w, l) = (count(threads / 32), count(threads % 32));
            let block = if (y, z) == (1, 1) {
                let x = lit(x);
                quote_spanned!(ps=> #p_at::Block1<#x, #p_at::#w, #p_at::#l>)
            } else {
                let [x, y, z] = [x, y, z].map(lit);
                quote_spanned!(ps=> #p_at::Block3<#x, #y, #z, #p_at::#w, #p_at::#l>)
            };
            let call = quote_spanned!(ps=> <#path as #p_at::LiteralBlock<#block>>::__config);
            let value = quote_spanned!(ps=> <#path as #p_at::Pointer>::NULL);
            return Some(Fit::LiteralBlock(LiteralCall {
                call,
                kernel: value,
                span: ps,
            }));
        }
    }
    // The last value written of a subject the literals know: the error's span ends there.
    let last = Subject::ALL
        .into_iter()
        .rev()
        .filter(|&s| facts.knows(s))
        .find_map(|s| written_at(plan, s))
        .unwrap_or_else(|| path.span());
    let p = crate::krate::private();
    // The kernel as a type alias: a function or a value in its place is rustc's "expected type"
    // (a generic argument would read it as a constant), a type that is no kernel gets
    // `TypedKernel`'s message.
    let info = Ident::new(
        "__ChevronKernel",
        Span::mixed_site().located_at(path.span()),
    );
    let alias = quote_spanned!(path.span()=> type #info = #path;);
    let refusal = match literal {
        // A block alone (the grid computed, no cluster: the common launch) in four
        // arguments: rustc checks each argument of the call, and three arrays cost it more.
        Some(([0, 0, 0], [x, y, z], [0, 0, 0], known)) => {
            let [x, y, z] = [x, y, z].map(proc_macro2::Literal::u32_unsuffixed);
            let known = proc_macro2::Literal::u8_unsuffixed(known);
            quote!(#p::refusal_block::<#info>(#x, #y, #z, #known))
        }
        Some((grid, block, cluster, known)) => {
            let dims = |[x, y, z]: [u32; 3]| quote!([#x, #y, #z]);
            let (grid, block, cluster) = (dims(grid), dims(block), dims(cluster));
            quote!(#p::refusal_literal::<#info>(#grid, #block, #cluster, #known))
        }
        None => {
            let facts = facts_tokens(&p, &facts);
            quote!(#p::refusal::<#info>(&#facts))
        }
    };
    // `&K` coerced to the trait object of the rule refused: none, `K` itself; a broken
    // rule, the trait of `chevron::refusals` `#[kernel]` named with the kernel's numbers,
    // which the kernel does not implement (rustc's E0277 in chevron's words). One coercion
    // per launch, over the kernel's name to the last value a rule looks at (`&` and the name
    // at the name, the braces at that value: rustc joins them): one per value would point at
    // the value alone, but each costs rustc a const argument to evaluate and a coercion to
    // check (about 0.15 ms per launch, `scripts/compile_bench.sh`).
    let kernel = Ident::new("__ChevronKernel", path.span());
    let mut braces = Group::new(Delimiter::Brace, TokenStream::new());
    braces.set_span(last);
    let p_at = crate::krate::private_at(path.span());
    let check = quote_spanned! {path.span()=>
        let _: &<#info as #p_at::Refusal<{ #refusal }>>::Dyn = &#kernel #braces;
    };
    // A statement of the launch's block, not a `const { … }` block: rustc evaluates a const
    // argument of a type when it checks the function (`cargo check`, rust-analyzer), an inline
    // const only when it builds it (`tests/launch_rules_in_check.rs`). No `const _` item
    // around it either: its own body cost rustc about 0.2 million instructions per launch
    // (`scripts/compile_bench.sh`).
    Some(Fit::Statements(quote! {
        #alias
        #check
    }))
}

/// What [`fit_check`] adds to a typed launch.
pub enum Fit {
    /// The statements before the launch's own: the kernel's alias and the check.
    Statements(TokenStream),
    /// For a launch whose only literal is its block: the call that builds its config and
    /// checks it, instead of any statement.
    LiteralBlock(LiteralCall),
}

/// `<K as LiteralBlock<Block1<X, W, L>>>::__config(GRID, <K as Pointer>::NULL)`, all at the
/// kernel's name (`span`) but the grid: where rustc reports a broken rule, and a type that is
/// no kernel once.
pub struct LiteralCall {
    call: TokenStream,
    kernel: TokenStream,
    span: Span,
}

impl LiteralCall {
    /// The call with the grid `grid`.
    pub fn with_grid(&self, grid: TokenStream) -> TokenStream {
        let Self { call, kernel, span } = self;
        let mut args = Group::new(Delimiter::Parenthesis, quote!(#grid, #kernel));
        args.set_span(*span);
        quote!(#call #args)
    }
}
