//! Which argument expressions of an untyped (`dyn`) launch get their type from unsuffixed
//! literals alone. Such a launch passes each argument as a pointer to its bytes, so that type
//! (`i32` or `f64`, rustc's fallback) decides what the kernel reads: `&-2` for a 4-byte float
//! parameter passes the integer's bits, and no run-time size check can see it. `launch!`
//! refuses them ([`check_dyn_args`]).

use syn::spanned::Spanned;
use syn::{BinOp, Expr, Lit, Stmt, UnOp};

use crate::report::Errors;
use crate::tokens::{snippet, unparen};

/// The fallback type of an expression typed by unsuffixed literals alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Number {
    /// `i32`.
    Int,
    /// `f64`.
    Float,
}

impl Number {
    /// The type rustc gives it.
    pub fn fallback(self) -> &'static str {
        match self {
            Number::Int => "i32",
            Number::Float => "f64",
        }
    }

    /// The suffix a fix proposes: the kernel's usual 32-bit types.
    pub fn suggested(self) -> &'static str {
        match self {
            Number::Int => "u32",
            Number::Float => "f32",
        }
    }
}

/// An untyped expression: its fallback type, the literal whose suffix would type it all, how
/// many number literals it has, and whether it is an array of such numbers.
#[derive(Clone, Copy)]
pub struct Untyped<'a> {
    pub number: Number,
    pub literal: &'a Lit,
    pub literals: usize,
    pub array: bool,
}

/// What `expr` is when its type comes from unsuffixed number literals alone: built of such
/// literals with parentheses, blocks (their tail, which may name the block's own untyped
/// `let`s), unary `-` and `!`, arithmetic and bit operators (both operands untyped; for a
/// shift, its left one), and `if`/`match` whose every branch is untyped; or an array of them
/// (`[1.0, 2.0]`, `[0; 4]`). `None` as soon as anything gives it a type (a suffix, a cast, a
/// name from outside the expression, a call, a macro) or when it is no number.
pub fn untyped(expr: &Expr) -> Option<Untyped<'_>> {
    untyped_in(expr, &[])
}

/// The `let`s of the enclosing blocks in the argument, innermost last: a name and what its
/// initializer is (`None`: typed, or not known to be untyped).
type Lets<'a> = [(&'a syn::Ident, Option<Untyped<'a>>)];

/// [`untyped`] where the names in `lets` are bound.
fn untyped_in<'a>(expr: &'a Expr, lets: &Lets<'a>) -> Option<Untyped<'a>> {
    let untyped = |e: &'a Expr| untyped_in(e, lets);
    let tail = |b: &'a syn::Block| tail(b, lets);
    match expr {
        Expr::Path(p) if p.qself.is_none() => {
            let name = p.path.get_ident()?;
            lets.iter().rev().find(|(n, _)| *n == name)?.1
        }
        Expr::Lit(l) => {
            let number = match &l.lit {
                Lit::Int(i) if i.suffix().is_empty() => Number::Int,
                Lit::Float(f) if f.suffix().is_empty() => Number::Float,
                _ => return None,
            };
            Some(Untyped {
                number,
                literal: &l.lit,
                literals: 1,
                array: false,
            })
        }
        Expr::Paren(p) => untyped(&p.expr),
        Expr::Group(g) => untyped(&g.expr),
        Expr::Block(b) => tail(&b.block),
        Expr::Unsafe(u) => tail(&u.block),
        Expr::Const(c) => tail(&c.block),
        Expr::Unary(u) => match u.op {
            UnOp::Neg(_) | UnOp::Not(_) => untyped(&u.expr),
            _ => None,
        },
        Expr::Binary(b) => match b.op {
            // `Shl`/`Shr` are implemented for every right-hand integer type, with the
            // left-hand type as output.
            BinOp::Shl(_) | BinOp::Shr(_) => {
                let left = untyped(&b.left)?;
                let literals = left.literals + untyped(&b.right).map_or(0, |r| r.literals);
                Some(Untyped { literals, ..left })
            }
            BinOp::Add(_)
            | BinOp::Sub(_)
            | BinOp::Mul(_)
            | BinOp::Div(_)
            | BinOp::Rem(_)
            | BinOp::BitAnd(_)
            | BinOp::BitOr(_)
            | BinOp::BitXor(_) => same([untyped(&b.left)?, untyped(&b.right)?]),
            _ => None,
        },
        Expr::If(i) => {
            let (_, otherwise) = i.else_branch.as_ref()?;
            same([tail(&i.then_branch)?, untyped(otherwise)?])
        }
        Expr::Array(a) => {
            let elems: Option<Vec<Untyped<'_>>> = a.elems.iter().map(untyped).collect();
            let elem = same(elems?)?;
            (!elem.array).then_some(Untyped {
                array: true,
                ..elem
            })
        }
        Expr::Repeat(r) => {
            let elem = untyped(&r.expr)?;
            (!elem.array).then_some(Untyped {
                array: true,
                ..elem
            })
        }
        Expr::Match(m) => {
            let arms: Option<Vec<Untyped<'_>>> = m.arms.iter().map(|a| untyped(&a.body)).collect();
            same(arms?)
        }
        _ => None,
    }
}

/// The tail expression of a block, untyped. The block may bind names first
/// (`{ let v = 2.5; v }`, whose `v` is as untyped as `2.5`), but only with plain `let`s (a
/// name, no type, an initializer, no `else`): any other statement might give a binding its
/// type by inference (`takes_f32(v);`), so the block is then left to rustc.
fn tail<'a>(block: &'a syn::Block, outer: &Lets<'a>) -> Option<Untyped<'a>> {
    let (last, lets) = block.stmts.split_last()?;
    let mut bound = outer.to_vec();
    for stmt in lets {
        let Stmt::Local(local) = stmt else {
            return None;
        };
        let syn::Pat::Ident(pat) = &local.pat else {
            return None;
        };
        let init = local.init.as_ref()?;
        if pat.by_ref.is_some() || pat.subpat.is_some() || init.diverge.is_some() {
            return None;
        }
        bound.push((&pat.ident, untyped_in(&init.expr, &bound)));
    }
    match last {
        Stmt::Expr(e, None) => untyped_in(e, &bound),
        _ => None,
    }
}

/// One untyped value from several that must have one type: the first, when all agree (mixed
/// integers and floats do not compile anyway).
fn same<'a>(parts: impl IntoIterator<Item = Untyped<'a>>) -> Option<Untyped<'a>> {
    let mut parts = parts.into_iter();
    let first = parts.next()?;
    let mut literals = first.literals;
    for p in parts {
        if p.number != first.number || p.array != first.array {
            return None;
        }
        literals += p.literals;
    }
    Some(Untyped { literals, ..first })
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
                if let Some(u) = untyped(&r.expr) {
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
fn untyped_message(expr: &Expr, u: &Untyped<'_>) -> String {
    let (ty, mut suffix) = (u.number.fallback(), u.number.suggested());
    let as_ty = if u.array {
        format!("as an array of `{ty}`")
    } else {
        format!("as `{ty}`")
    };
    let lit = snippet(u.literal);
    let fix = match unparen(expr) {
        Expr::Unary(n) if matches!(n.op, syn::UnOp::Neg(_)) && u.literals == 1 => {
            if u.number == Number::Int {
                suffix = "i32"; // `-2u32` does not compile
            }
            format!("give the literal its type, e.g. `-{lit}{suffix}`")
        }
        _ if u.literals == 1 => format!("give the literal its type, e.g. `{lit}{suffix}`"),
        _ => format!("give one of its literals a type, e.g. `{lit}{suffix}`"),
    };
    // `snippet` spaces a unary minus as any operator: `- 2.5`. A minus right after an opening
    // delimiter, a `=` or a `;` is unary.
    let text = snippet(expr);
    let text = match text.strip_prefix("- ") {
        Some(rest) => format!("-{rest}"),
        None => text,
    };
    let text = ["(", "[", "{", "=", ";", ","]
        .iter()
        .fold(text, |text, before| {
            text.replace(&format!("{before} - "), &format!("{before} -"))
                .replace(&format!("{before}- "), &format!("{before}-"))
        });
    format!("an untyped (`dyn`) launch passes `{text}` {as_ty}, whatever the kernel expects: {fix}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(text: &str) -> Option<(Number, String, usize)> {
        let expr: Expr = syn::parse_str(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        untyped(&expr).map(|u| {
            assert!(!u.array || text.starts_with('['), "{text}");
            let lit = match u.literal {
                Lit::Int(i) => i.to_string(),
                Lit::Float(f) => f.to_string(),
                _ => unreachable!("only number literals are untyped"),
            };
            (u.number, lit, u.literals)
        })
    }

    #[test]
    fn expressions_of_unsuffixed_literals_are_untyped() {
        use Number::*;
        for (text, number, lit, count) in [
            ("2.5", Float, "2.5", 1),
            ("-2.5", Float, "2.5", 1),
            ("-2", Int, "2", 1),
            ("(0.5 * 3.0)", Float, "0.5", 2),
            ("(1 << 20)", Int, "1", 2),
            ("1 << 20u64", Int, "1", 1),
            ("{ 2.0 }", Float, "2.0", 1),
            ("unsafe { -(7) }", Int, "7", 1),
            ("!0", Int, "0", 1),
            ("(1 + 2) * 3 % 4 & 5 | 6 ^ 7", Int, "1", 7),
            ("if c { 1.0 } else { 2.0 }", Float, "1.0", 2),
            ("match c { 0 => 1.0, _ => -1.0 }", Float, "1.0", 2),
            ("{ let x = 1u32; 2 }", Int, "2", 1),
            ("{ let v = 2.5; v }", Float, "2.5", 1),
            ("{ let mut v = -2; v }", Int, "2", 1),
            ("{ let v = 2.5; let w = v * 2.0; w }", Float, "2.5", 2),
            ("{ let v = 1u8; let v = 3; v }", Int, "3", 1),
            ("unsafe { let v = 0.5; -v }", Float, "0.5", 1),
            ("[1.0, -2.0]", Float, "1.0", 2),
            ("[0; 4]", Int, "0", 1),
        ] {
            assert_eq!(of(text), Some((number, lit.to_string(), count)), "{text}");
        }
    }

    #[test]
    fn messages_write_a_unary_minus_as_written() {
        for (text, shown) in [
            ("-2.5", "`-2.5`"),
            ("(-2.5 * 2.0)", "`(-2.5 * 2.0)`"),
            ("{ let v = 2.5; let w = -v; w }", "let w = -v"),
            ("[1.0, -2.0]", ", -2.0]"),
            ("(1.0 - 2.0)", "`(1.0 - 2.0)`"),
        ] {
            let expr: Expr = syn::parse_str(text).unwrap();
            let u = untyped(&expr).unwrap_or_else(|| panic!("{text}"));
            let message = untyped_message(&expr, &u);
            assert!(message.contains(shown), "{text}: {message}");
        }
    }

    #[test]
    fn anything_typed_is_left_to_rustc() {
        for text in [
            "2.5f32",
            "-2u32",
            "0.5 * 3.0f32",
            "1u64 << 20",
            "2 as u32",
            "n",
            "n + 1",
            "1 + n",
            "f(2)",
            "x.len()",
            "{ 2.0; }",
            "{ let v = 2.5f32; v }",
            "{ let v: f32 = 2.5; v }",
            "{ let v = 2.5; let v = n; v }",
            "{ let v = 2.5; takes_f32(v); v }",
            "{ let (v, w) = (2.5, 1.0); v }",
            "{ let v = 2.5; w }",
            "{ let v; v }",
            "{ let v = 2.5; }",
            "{}",
            "if c { 1.0 }",
            "if c { 1.0 } else { x }",
            "match c { 0 => 1.0, _ => y }",
            "1 == 2",
            "true",
            "'c'",
            "*p",
            "1 + 2.0",
            "[1u8, 2]",
            "[[1, 2]]",
            "[]",
            "m!()",
        ] {
            assert_eq!(of(text), None, "{text}");
        }
    }
}
