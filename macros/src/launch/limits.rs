//! Limits the driver puts on grids, blocks and clusters, checked where literals decide them.
//! Values known only at run time get the same checks from `LaunchConfig::validate`.

use chevron_cuda_runtime::{
    MAX_BLOCK_DIM, MAX_BLOCK_THREADS, MAX_GRID_DIM, PORTABLE_CLUSTER_BLOCKS,
};
use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Expr, Lit, UnOp};

use super::ast::{Plan, Setting, Value};
use super::check::{snippet, unparen};
use crate::report::Errors;

/// An unsuffixed or `u32`-suffixed integer literal's value.
pub fn lit_u64(expr: &Expr) -> Option<(u64, Span)> {
    match unparen(expr) {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Int(i), ..
        }) => Some((i.base10_parse::<u64>().ok()?, i.span())),
        _ => None,
    }
}

/// The extents of a dim known from literals; `None` where an expression decides at run time.
pub struct LitDim {
    comps: [Option<(u64, Span)>; 3],
}

const AXES: [&str; 3] = ["x", "y", "z"];

impl LitDim {
    fn all(&self) -> Option<[u64; 3]> {
        Some([self.comps[0]?.0, self.comps[1]?.0, self.comps[2]?.0])
    }
}

/// Reads the literal extents of a dim expression, reporting negative literals, suffixes other
/// than `u32` and tuples of the wrong length.
pub fn lit_dim(expr: &Expr, what: &str, cx: &mut Errors) -> LitDim {
    let span = expr.span();
    let one = Some((1, span));
    let comp = |e: &Expr, cx: &mut Errors| -> Option<(u64, Span)> {
        match unparen(e) {
            Expr::Lit(syn::ExprLit {
                lit: Lit::Int(i), ..
            }) => {
                if !matches!(i.suffix(), "" | "u32") {
                    cx.error(
                        i.span(),
                        format!(
                            "`{what}` extents are `u32`; `{}` is `{}`: write `{}`",
                            i,
                            i.suffix(),
                            i.base10_digits()
                        ),
                    );
                    return None;
                }
                match i.base10_parse::<u32>() {
                    Ok(v) => Some((u64::from(v), i.span())),
                    Err(_) => {
                        cx.error(
                            i.span(),
                            format!("`{what}` extent `{i}` does not fit in `u32`"),
                        );
                        None
                    }
                }
            }
            Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => {
                if matches!(unparen(&u.expr), Expr::Lit(_)) {
                    cx.error(
                        u.span(),
                        format!(
                            "`{what}` extent `-{}` is negative; extents are `u32`, at least 1",
                            snippet(&u.expr)
                        ),
                    );
                }
                None
            }
            _ => None,
        }
    };
    let comps = match unparen(expr) {
        Expr::Tuple(t) if (2..=3).contains(&t.elems.len()) => {
            let mut c = [None, None, one];
            for (i, e) in t.elems.iter().enumerate() {
                c[i] = comp(e, cx);
            }
            c
        }
        Expr::Tuple(t) => {
            cx.error(
                t.span(),
                format!(
                    "a `{what}` has one to three extents: `x`, `(x, y)` or `(x, y, z)`; found {}",
                    t.elems.len()
                ),
            );
            [None, None, None]
        }
        e => match comp(e, cx) {
            Some(x) => [Some(x), one, one],
            None => [None, None, None],
        },
    };
    LitDim { comps }
}

/// Zero and per-axis limits of one dim, reported at each literal extent.
fn check_extents(dim: &LitDim, what: &str, limits: [u32; 3], cx: &mut Errors) {
    for ((axis, c), limit) in AXES.iter().zip(&dim.comps).zip(limits) {
        let Some((v, s)) = *c else { continue };
        if v == 0 {
            cx.error(s, format!("{what} {axis} is 0; every extent is at least 1"));
        } else if v > u64::from(limit) {
            cx.error(s, format!("{what} {axis} is {v}; the limit is {limit}"));
        }
    }
}

pub fn check_block(block: &LitDim, span: Span, cx: &mut Errors) {
    check_extents(block, "block", MAX_BLOCK_DIM, cx);
    if let Some(extents) = block.all() {
        let [x, y, z] = extents;
        // Three `u32` extents multiply to at most 96 bits: exact in `u128`.
        let volume = u128::from(x) * u128::from(y) * u128::from(z);
        let in_limits = extents
            .iter()
            .zip(MAX_BLOCK_DIM)
            .all(|(v, limit)| *v <= u64::from(limit));
        if volume > u128::from(MAX_BLOCK_THREADS) && in_limits {
            cx.error(
                span,
                format!(
                    "block ({x}, {y}, {z}) has {volume} threads; the limit is \
                     {MAX_BLOCK_THREADS} per block"
                ),
            );
        }
    }
}

pub fn check_grid(grid: &LitDim, cx: &mut Errors) {
    check_extents(grid, "grid", MAX_GRID_DIM, cx);
}

pub fn check_clusters(plan: &Plan, grid: &LitDim, cx: &mut Errors) {
    let find = |key: &str| plan.launch.iter().find(|s| s.key.name() == key);
    let mut quiet = Errors::default();
    let dim_of = |s: &Setting, cx: &mut Errors| match &s.value {
        Value::Expr(e) => lit_dim(e, s.key.name(), cx),
        _ => LitDim {
            comps: [None, None, None],
        },
    };
    let cluster = find("cluster").map(|s| (s, dim_of(s, &mut quiet)));
    if let Some((setting, c)) = &cluster {
        for (axis, comp) in c.comps.iter().enumerate() {
            if let Some((0, s)) = comp {
                cx.error(
                    *s,
                    format!("cluster {} is 0; every extent is at least 1", AXES[axis]),
                );
            }
        }
        if let Some([x, y, z]) = c.all() {
            let volume = u128::from(x) * u128::from(y) * u128::from(z);
            if volume > u128::from(PORTABLE_CLUSTER_BLOCKS) {
                cx.error(
                    cluster_value_span(setting),
                    format!(
                        "cluster ({x}, {y}, {z}) has {} blocks; the portable limit is \
                         {PORTABLE_CLUSTER_BLOCKS}",
                        volume
                    ),
                );
            }
        }
        for ((a, cc), gc) in AXES.iter().zip(c.comps).zip(grid.comps) {
            if let (Some((cv, cs)), Some((gv, _))) = (cc, gc) {
                if cv != 0 && gv % cv != 0 {
                    cx.error(
                        cs,
                        format!(
                            "cluster {a} = {cv} does not divide grid {a} = {gv}: the grid must \
                             be a whole number of clusters"
                        ),
                    );
                }
            }
        }
    }
    if let Some(pref) = find("preferred_cluster") {
        let Some((_, c)) = &cluster else {
            cx.error(
                pref.span,
                "`preferred_cluster` needs `cluster`: the driver falls back to the cluster \
                 dimension where the preferred one does not fit; add `cluster = …`",
            );
            return;
        };
        let p = dim_of(pref, &mut quiet);
        for ((a, pc), cc) in AXES.iter().zip(p.comps).zip(c.comps) {
            if let (Some((pv, ps)), Some((cv, _))) = (pc, cc) {
                if *a == "z" && pv != cv {
                    cx.error(
                        ps,
                        format!(
                            "preferred_cluster z = {pv} differs from cluster z = {cv}; the \
                             driver requires the same z"
                        ),
                    );
                } else if cv != 0 && pv % cv != 0 {
                    cx.error(
                        ps,
                        format!(
                            "preferred_cluster {a} = {pv} is not a multiple of cluster {a} = {cv}"
                        ),
                    );
                }
            }
        }
    }
}

fn cluster_value_span(s: &Setting) -> Span {
    match &s.value {
        Value::Expr(e) => e.span(),
        _ => s.span,
    }
}
