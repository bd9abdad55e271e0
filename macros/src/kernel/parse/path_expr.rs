//! The value of `ptx = …` / `cuda = …`: a string literal, `concat!(…)` and `env!("…")` of
//! literals (for files a build script writes into `OUT_DIR`), or, for `ptx`, a list of those
//! (the compiled variants of one kernel).
//!
//! `env!` is read here, in the compiler's environment: cargo sets `OUT_DIR` for a crate with a
//! build script, as it does for the crate's own `env!`.

use syn::spanned::Spanned;
use syn::{Expr, ExprLit, Lit, LitStr, Token};

/// `= value` after `key`: the paths it names, each a `LitStr` spanned at what was written.
/// `many`: a list `[…]` is allowed (PTX variants).
pub fn source_paths(
    meta: &syn::meta::ParseNestedMeta<'_>,
    key: &str,
    example: &str,
    many: bool,
) -> syn::Result<Vec<LitStr>> {
    if !meta.input.peek(Token![=]) {
        return super::string_value(meta, key, example).map(|l| vec![l]);
    }
    let expr: Expr = meta.value()?.parse()?;
    let form = format!(
        "`{key}` takes a path: `{key} = \"{example}\"`, or a build script's output as \
         `{key} = concat!(env!(\"OUT_DIR\"), \"/{}\")`{}",
        example.rsplit('/').next().unwrap_or(example),
        if many {
            ", or several compiled variants as `ptx = [\"k_sm80.ptx\", \"k_sm90.ptx\"]`"
        } else {
            ""
        }
    );
    match &expr {
        Expr::Array(list) if many => {
            if list.elems.is_empty() {
                return Err(syn::Error::new_spanned(
                    &expr,
                    "`ptx = []` names no file: list one or more PTX files",
                ));
            }
            list.elems.iter().map(|e| path_of(e, &form)).collect()
        }
        Expr::Array(_) => Err(syn::Error::new_spanned(
            &expr,
            format!(
                "`{key}` takes one file: NVRTC compiles it for each device at run time, so it \
                 needs no variants"
            ),
        )),
        _ => Ok(vec![path_of(&expr, &form)?]),
    }
}

/// One path: a literal or a `concat!`/`env!` of literals.
fn path_of(expr: &Expr, form: &str) -> syn::Result<LitStr> {
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => Ok(s.clone()),
        Expr::Macro(_) => Ok(LitStr::new(&eval(expr, form)?, expr.span())),
        Expr::Group(g) => path_of(&g.expr, form),
        _ => Err(syn::Error::new_spanned(expr, form)),
    }
}

/// The string a `concat!`/`env!` expression of literals stands for.
fn eval(expr: &Expr, form: &str) -> syn::Result<String> {
    match expr {
        Expr::Lit(ExprLit { lit, .. }) => match lit {
            Lit::Str(s) => Ok(s.value()),
            Lit::Char(c) => Ok(c.value().to_string()),
            Lit::Int(i) => Ok(i.base10_digits().to_string()),
            Lit::Bool(b) => Ok(b.value.to_string()),
            _ => Err(syn::Error::new_spanned(expr, form)),
        },
        Expr::Group(g) => eval(&g.expr, form),
        Expr::Macro(m) => {
            let name = m
                .mac
                .path
                .segments
                .last()
                .map(|s| s.ident.to_string())
                .unwrap_or_default();
            let qualified_ok = m.mac.path.segments.len() == 1
                || m.mac
                    .path
                    .segments
                    .first()
                    .is_some_and(|s| s.ident == "std" || s.ident == "core");
            if !qualified_ok {
                return Err(syn::Error::new_spanned(expr, form));
            }
            let args = m.mac.parse_body_with(
                syn::punctuated::Punctuated::<Expr, Token![,]>::parse_terminated,
            )?;
            match name.as_str() {
                "concat" => args.iter().map(|a| eval(a, form)).collect(),
                "env" => env(expr, &args),
                _ => Err(syn::Error::new_spanned(expr, form)),
            }
        }
        _ => Err(syn::Error::new_spanned(expr, form)),
    }
}

/// `env!("NAME")` or `env!("NAME", "message")`: the variable's value in the compiler's
/// environment.
fn env(expr: &Expr, args: &syn::punctuated::Punctuated<Expr, Token![,]>) -> syn::Result<String> {
    let mut iter = args.iter();
    let name = match (iter.next(), iter.next(), iter.next()) {
        (
            Some(Expr::Lit(ExprLit {
                lit: Lit::Str(name),
                ..
            })),
            None
            | Some(Expr::Lit(ExprLit {
                lit: Lit::Str(_), ..
            })),
            None,
        ) => name,
        _ => {
            return Err(syn::Error::new_spanned(
                expr,
                "`env!` takes the variable's name as a string: `env!(\"OUT_DIR\")`",
            ))
        }
    };
    match std::env::var(name.value()) {
        Ok(value) => Ok(value),
        Err(std::env::VarError::NotUnicode(_)) => Err(syn::Error::new_spanned(
            name,
            format!("environment variable `{}` is not valid UTF-8", name.value()),
        )),
        Err(std::env::VarError::NotPresent) => {
            let hint = if name.value() == "OUT_DIR" {
                ": cargo sets `OUT_DIR` only for a crate with a build script; add a `build.rs` \
                 that writes the kernel there"
            } else {
                ""
            };
            Err(syn::Error::new_spanned(
                name,
                format!(
                    "environment variable `{}` is not defined at compile time{hint}",
                    name.value()
                ),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval_str(src: &str) -> syn::Result<String> {
        let expr: Expr = syn::parse_str(src).unwrap();
        path_of(&expr, "FORM").map(|l| l.value())
    }

    #[test]
    fn literals_concat_and_env_are_read() {
        assert_eq!(eval_str(r#""k.ptx""#).unwrap(), "k.ptx");
        std::env::set_var("CHEVRON_PATH_EXPR_TEST", "/tmp/out");
        assert_eq!(
            eval_str(r#"concat!(env!("CHEVRON_PATH_EXPR_TEST"), "/k", 90, ".ptx")"#).unwrap(),
            "/tmp/out/k90.ptx"
        );
        assert_eq!(
            eval_str(r#"std::concat!(core::env!("CHEVRON_PATH_EXPR_TEST", "msg"), "/k.ptx")"#)
                .unwrap(),
            "/tmp/out/k.ptx"
        );
        assert_eq!(
            eval_str(r#"env!("CHEVRON_PATH_EXPR_TEST")"#).unwrap(),
            "/tmp/out"
        );
    }

    #[test]
    fn other_expressions_and_missing_variables_are_errors() {
        let e = eval_str(r#"env!("CHEVRON_PATH_EXPR_SURELY_UNSET")"#).unwrap_err();
        assert!(
            e.to_string().contains("is not defined at compile time"),
            "{e}"
        );
        if std::env::var_os("OUT_DIR").is_none() {
            let e = eval_str(r#"concat!(env!("OUT_DIR"), "/k.ptx")"#).unwrap_err();
            assert!(e.to_string().contains("add a `build.rs`"), "{e}");
        }
        for bad in [
            r#"format!("k.ptx")"#,
            r#"PATH"#,
            r#"concat!(PATH, "/k.ptx")"#,
            r#"env!(NAME)"#,
            r#"foo::concat!("a")"#,
            r#"concat!(1.5)"#,
        ] {
            assert!(eval_str(bad).is_err(), "{bad}");
        }
    }
}
