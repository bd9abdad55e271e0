//! Limits the driver puts on grids, blocks and clusters, checked where literals decide them.
//! The rules and their wording are the rules crate's ([`chevron_cuda_rules::limits`]); values
//! known only at run time get the same rules from `LaunchConfig::validate`. Here each violation
//! is reported at the literal that decides it.

use chevron_cuda_rules::kinds::Position;
use chevron_cuda_rules::limits::{
    check_block_threads, check_cluster_blocks, check_cluster_divides, check_extent,
    check_preferred_axis, check_preferred_divides, DimKind, Violation,
};
use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Expr, Lit, UnOp};

use super::ast::{Plan, Setting, Value};
use crate::report::Errors;
use crate::tokens::unparen;

/// What a numeric position of `launch!`/`config!` holds: every such position gets the same
/// literal check ([`lit_number`]), worded for what it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Numeric<'a> {
    /// One extent of a dim (`grid`, `block`, `cluster`, `preferred_cluster`): a `u32`.
    Extent(&'a str),
    /// `shared`: dynamic shared memory in bytes, a `u32`.
    Bytes,
    /// `shared_carveout`: a percentage, a `u32` (its range is the rules crate's rule).
    Percent,
    /// `priority`: an `i32`.
    Priority,
}

impl Numeric<'_> {
    /// The suffix that is the position's type.
    fn ty(self) -> &'static str {
        match self {
            Numeric::Priority => "i32",
            _ => "u32",
        }
    }

    /// "`grid` extents are `u32`", "`shared` is a byte count, a `u32`", ….
    fn rule(self) -> String {
        match self {
            Numeric::Extent(what) => format!("`{what}` extents are `u32`"),
            Numeric::Bytes => "`shared` is a byte count, a `u32`".to_string(),
            Numeric::Percent => {
                "`shared_carveout` is a percentage, a `u32` from 0 to 100".to_string()
            }
            Numeric::Priority => "`priority` is an `i32`".to_string(),
        }
    }

    /// "`grid` extent `-4`", "`shared` of `-5` bytes", ….
    fn value(self, text: &str) -> String {
        match self {
            Numeric::Extent(what) => format!("`{what}` extent `{text}`"),
            Numeric::Bytes => format!("`shared` of `{text}` bytes"),
            Numeric::Percent => format!("`shared_carveout` of `{text}`"),
            Numeric::Priority => format!("`priority` `{text}`"),
        }
    }
}

/// The value of a number literal (`256`, `-4`, `(1024)`) written where `what` belongs; `None`
/// for anything else (an expression, decided at run time) and for a literal that is reported:
/// a suffix other than the position's type, a value out of its range, a negative unsigned
/// value, a float.
pub fn lit_number(expr: &Expr, what: Numeric<'_>, cx: &mut Errors) -> Option<(i64, Span)> {
    let (negative, lit, span) = match unparen(expr) {
        Expr::Lit(l) => (false, &l.lit, l.span()),
        Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => match unparen(&u.expr) {
            Expr::Lit(l) => (true, &l.lit, u.span()),
            _ => return None,
        },
        _ => return None,
    };
    let sign = if negative { "-" } else { "" };
    match lit {
        Lit::Int(i) => {
            let ty = what.ty();
            if !i.suffix().is_empty() && i.suffix() != ty {
                cx.error(
                    span,
                    format!(
                        "{}; `{sign}{i}` is `{}`: write `{sign}{}`",
                        what.rule(),
                        i.suffix(),
                        i.base10_digits()
                    ),
                );
                return None;
            }
            let value = i
                .base10_parse::<u64>()
                .ok()
                .and_then(|v| i64::try_from(v).ok())
                .map(|v| if negative { -v } else { v });
            let text = format!("{sign}{}", i.base10_digits());
            let fits = value.filter(|v| match what {
                Numeric::Priority => i32::try_from(*v).is_ok(),
                _ => u32::try_from(*v).is_ok(),
            });
            match (fits, negative, what) {
                (Some(v), _, _) => Some((v, span)),
                (None, true, Numeric::Extent(_)) => {
                    cx.error(
                        span,
                        format!(
                            "{} is negative; extents are `u32`, at least 1",
                            what.value(&text)
                        ),
                    );
                    None
                }
                (None, true, Numeric::Bytes | Numeric::Percent) => {
                    cx.error(
                        span,
                        format!("{} is negative; {}", what.value(&text), what.rule()),
                    );
                    None
                }
                (None, _, _) => {
                    cx.error(
                        span,
                        format!("{} does not fit in `{}`", what.value(&text), what.ty()),
                    );
                    None
                }
            }
        }
        Lit::Float(f) => {
            cx.error(
                span,
                format!(
                    "{} is not an integer; {}",
                    what.value(&format!("{sign}{f}")),
                    what.rule()
                ),
            );
            None
        }
        _ => None,
    }
}

/// The extents of a dim known from literals; `None` where an expression decides at run time.
pub struct LitDim {
    comps: [Option<(u64, Span)>; 3],
}

impl LitDim {
    fn all(&self) -> Option<[u64; 3]> {
        Some([self.comps[0]?.0, self.comps[1]?.0, self.comps[2]?.0])
    }
}

/// Reads the literal extents of a dim expression, reporting what [`lit_number`] reports and
/// tuples of the wrong length.
pub fn lit_dim(expr: &Expr, what: &str, cx: &mut Errors) -> LitDim {
    let span = expr.span();
    let one = Some((1, span));
    let comp = |e: &Expr, cx: &mut Errors| -> Option<(u64, Span)> {
        let (v, s) = lit_number(e, Numeric::Extent(what), cx)?;
        Some((u64::try_from(v).ok()?, s))
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
fn check_extents(dim: &LitDim, kind: DimKind, cx: &mut Errors) -> bool {
    let mut ok = true;
    for (axis, c) in dim.comps.iter().enumerate() {
        let Some((v, s)) = *c else { continue };
        if let Err(violation) = check_extent(kind, axis, v) {
            report(s, &violation, cx);
            ok = false;
        }
    }
    ok
}

fn report(span: Span, violation: &Violation, cx: &mut Errors) {
    cx.error(span, violation.to_string());
}

/// The literal extents as `u32`, where all three are known and fit.
fn all_u32(dim: &LitDim) -> Option<[u32; 3]> {
    let [x, y, z] = dim.all()?;
    Some([
        u32::try_from(x).ok()?,
        u32::try_from(y).ok()?,
        u32::try_from(z).ok()?,
    ])
}

pub fn check_block(block: &LitDim, span: Span, cx: &mut Errors) {
    // The volume only matters once every extent is within its own limit.
    if check_extents(block, DimKind::Block, cx) {
        if let Some(extents) = all_u32(block) {
            if let Err(v) = check_block_threads(extents) {
                report(span, &v, cx);
            }
        }
    }
}

pub fn check_grid(grid: &LitDim, cx: &mut Errors) {
    check_extents(grid, DimKind::Grid, cx);
}

pub fn check_clusters(plan: &Plan, grid: &LitDim, cx: &mut Errors) {
    let find = |key: &str| plan.at(Position::Launch).find(|s| s.key.name() == key);
    let mut quiet = Errors::default();
    let dim_of = |s: &Setting, cx: &mut Errors| match &s.value {
        Value::Expr(e) => lit_dim(e, s.key.name(), cx),
        _ => LitDim {
            comps: [None, None, None],
        },
    };
    let cluster = find("cluster").map(|s| (s, dim_of(s, &mut quiet)));
    if let Some((setting, c)) = &cluster {
        check_extents(c, DimKind::Cluster, cx);
        if let Some(extents) = all_u32(c) {
            if let Err(v) = check_cluster_blocks(extents, plan.non_portable_cluster) {
                report(cluster_value_span(setting), &v, cx);
            }
        }
        for (axis, (cc, gc)) in c.comps.iter().zip(grid.comps).enumerate() {
            if let (Some((cv, cs)), Some((gv, _))) = (cc, gc) {
                let (Ok(cv), Ok(gv)) = (u32::try_from(*cv), u32::try_from(gv)) else {
                    continue;
                };
                if let Err(v) = check_cluster_divides(axis, cv, gv) {
                    report(*cs, &v, cx);
                }
            }
        }
    }
    if let Some(pref) = find("preferred_cluster") {
        let Some((_, c)) = &cluster else {
            report(pref.span, &Violation::PreferredWithoutCluster, cx);
            return;
        };
        let p = dim_of(pref, &mut quiet);
        for (axis, ((pc, cc), gc)) in p.comps.iter().zip(c.comps).zip(grid.comps).enumerate() {
            let Some((pv, ps)) = pc else { continue };
            let Ok(pv) = u32::try_from(*pv) else { continue };
            let value = |c: Option<(u64, Span)>| c.and_then(|(v, _)| u32::try_from(v).ok());
            // One error per axis: against the cluster first, then the grid.
            let against_cluster = value(cc).map_or(Ok(()), |cv| check_preferred_axis(axis, pv, cv));
            let result = against_cluster.and_then(|()| {
                value(gc).map_or(Ok(()), |gv| check_preferred_divides(axis, pv, gv))
            });
            if let Err(v) = result {
                report(*ps, &v, cx);
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

#[cfg(test)]
mod tests {
    use proc_macro2::TokenStream;
    use quote::quote;

    use super::super::try_config;

    fn errors(tokens: TokenStream) -> Vec<String> {
        match try_config(tokens) {
            Ok(t) => panic!("expected errors, got `{t}`"),
            Err(e) => e.into_iter().map(|e| e.to_string()).collect(),
        }
    }

    #[test]
    fn huge_extents_are_errors_not_overflows() {
        // The product of these extents overflows `u64` arithmetic on the raw values.
        let errs = errors(quote!(<<<1, (4294967295, 4294967295, 2)>>>));
        assert_eq!(
            errs,
            [
                "block x is 4294967295; the limit is 1024",
                "block y is 4294967295; the limit is 1024"
            ]
        );
        // 2³¹ · 2³¹ · 4 is 2⁶⁴: wraps to 0 without checked arithmetic.
        let errs =
            errors(quote!(<<<(2147483648, 4, 4), 1, cluster = (2147483648, 2147483648, 4)>>>));
        assert!(
            errs.contains(&"cluster (2147483648, 2147483648, 4) has 18446744073709551616 blocks; the limit is 16, with the non-portable opt-in".to_string()),
            "{errs:#?}"
        );
    }

    #[test]
    fn non_portable_clusters_need_the_opt_in() {
        let errs = errors(quote!(<<<32, 128, cluster = 16>>>));
        assert_eq!(errs.len(), 1);
        assert!(
            errs[0].starts_with("cluster (16, 1, 1) has 16 blocks; the portable limit is 8: opt in with `non_portable_cluster`"),
            "{errs:?}"
        );
        let ok = try_config(quote!(<<<32, 128, cluster = 16, non_portable_cluster>>>)).unwrap();
        let text = ok.to_string().replace(' ', "");
        assert!(text.contains(".__set_non_portable_cluster()"), "{text}");
        let errs = errors(quote!(<<<(32, 4, 2), 128, cluster = (4, 4, 2), non_portable_cluster>>>));
        assert_eq!(
            errs,
            ["cluster (4, 4, 2) has 32 blocks; the limit is 16, with the non-portable opt-in"]
        );
        let errs = errors(quote!(<<<32, 128, non_portable_cluster = true>>>));
        assert!(
            errs[0].starts_with("`non_portable_cluster` takes no value"),
            "{errs:?}"
        );
    }
}
