//! A parsed name written back in one of the spellings users meet.

use super::{is_internal, Arg, Base, CppName, Func, Part, Type, CONST, VOLATILE};

/// How a name is spelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// As the source writes it: `reduce4<int, 512>`, `unary_op_kernel<&op_abs, float>`;
    /// without the compiler's internal namespaces (types as the tools place `const`:
    /// `tread<float const>`).
    Source,
    /// As `c++filt` (and `cu++filt`, Nsight) prints it: `reduce4<int, 512u>`, `tl<128l>`,
    /// `tread<float const>`, `cpy_scalar<&(void f<float>(char const*, char*))>`.
    CxxFilt,
    /// As chevron's demangler prints it: `reduce4<int, (unsigned int)512>`.
    Demangler,
}

impl Style {
    /// The style a user's spelling is written in: `c++filt`'s where it has an integer suffix
    /// or `&(…)`, the demangler's where it casts an integer to a builtin type, else the
    /// source's.
    pub fn of(spelling: &str) -> Style {
        let Ok(name) = CppName::parse(spelling) else {
            return Style::Source;
        };
        let mut style = Style::Source;
        name.visit_args(&mut |a| match a {
            Arg::Value {
                ty:
                    Some(Type {
                        base: Base::Builtin(b),
                        ..
                    }),
                ..
            } if b != "bool" => {
                let spelled = spelling.replace(' ', "");
                style = if spelled.contains(&format!("({})", builtin_words(b).replace(' ', ""))) {
                    Style::Demangler
                } else {
                    Style::CxxFilt
                }
            }
            Arg::Func(_) if spelling.contains("&(") => style = Style::CxxFilt,
            _ => {}
        });
        style
    }
}

impl CppName {
    /// This name in `style`, with its parameter list where it has one.
    pub fn render(&self, style: Style) -> String {
        let mut out = self.render_name(style);
        if let Some(params) = &self.params {
            out.push('(');
            out.push_str(&list(params.iter().map(|t| ty(t, style))));
            out.push(')');
        }
        out
    }

    fn render_name(&self, style: Style) -> String {
        let parts: Vec<String> = self
            .parts
            .iter()
            .filter(|p| style != Style::Source || !is_internal(&p.ident))
            .map(|p| part(p, style))
            .collect();
        let lead = if self.global { "::" } else { "" };
        format!("{lead}{}", parts.join("::"))
    }

    fn visit_args(&self, f: &mut impl FnMut(&Arg)) {
        for p in &self.parts {
            for a in p.args.iter().flatten() {
                f(a);
                if let Arg::Func(func) = a {
                    func.name.visit_args(f);
                }
            }
        }
    }
}

fn part(p: &Part, style: Style) -> String {
    match &p.args {
        None => p.ident.clone(),
        Some(args) => {
            let inner = list(args.iter().map(|a| arg(a, style)));
            // `a<b<c>>`, as C++11 and the tools write it.
            format!("{}<{inner}>", p.ident)
        }
    }
}

fn list(items: impl Iterator<Item = String>) -> String {
    items.collect::<Vec<_>>().join(", ")
}

pub(super) fn arg(a: &Arg, style: Style) -> String {
    match a {
        Arg::Type(t) => ty(t, style),
        Arg::Value { value, ty: cast } => value_text(*value, cast.as_ref(), style),
        Arg::Func(f) => func(f, style),
        Arg::Other(text) => text.clone(),
    }
}

fn value_text(value: i128, cast: Option<&Type>, style: Style) -> String {
    let Some(cast) = cast else {
        return value.to_string();
    };
    if let Base::Builtin(b) = &cast.base {
        if b == "bool" {
            return if value == 0 { "false" } else { "true" }.into();
        }
        let suffix = match b.as_str() {
            "int" => Some(""),
            "int unsigned" => Some("u"),
            "long" => Some("l"),
            "long unsigned" => Some("ul"),
            "long long" => Some("ll"),
            "long long unsigned" => Some("ull"),
            _ => None,
        };
        match (style, suffix) {
            (Style::Source, _) => return value.to_string(),
            (Style::CxxFilt, Some(s)) => return format!("{value}{s}"),
            (Style::Demangler, Some("")) => return value.to_string(),
            _ => {}
        }
    }
    format!("({}){value}", ty(cast, style))
}

fn func(f: &Func, style: Style) -> String {
    let name = f.name.render_name(style);
    let params = || {
        f.name
            .params
            .as_ref()
            .map(|ps| format!("({})", list(ps.iter().map(|t| ty(t, style)))))
            .unwrap_or_default()
    };
    match style {
        Style::Source => format!("&{name}"),
        Style::Demangler => match &f.ret {
            Some(r) => format!("&{} {name}{}", ty(r, style), params()),
            None => format!("&{name}{}", params()),
        },
        // c++filt: `&(void ns::f<int>(float))` for a template's instance, `&ns::f` for another
        // function in a scope, `&(f(float))` at file scope.
        Style::CxxFilt => match &f.ret {
            Some(r) => format!("&({} {name}{})", ty(r, style), params()),
            None if f.name.parts.len() > 1 => format!("&{name}"),
            None => format!("&({name}{})", params()),
        },
    }
}

/// `int unsigned` (canonical) as C++ writes it: `unsigned int`.
fn builtin_words(canonical: &str) -> String {
    let words: Vec<&str> = canonical.split(' ').collect();
    let mut out: Vec<&str> = Vec::new();
    for lead in ["unsigned", "signed"] {
        if words.contains(&lead) {
            out.push(lead);
        }
    }
    out.extend(words.iter().filter(|w| **w == "long"));
    out.extend(
        words
            .iter()
            .filter(|w| !matches!(**w, "unsigned" | "signed" | "long")),
    );
    out.join(" ")
}

fn cv_words(cv: u8) -> &'static str {
    match (cv & CONST != 0, cv & VOLATILE != 0) {
        (true, true) => "const volatile",
        (true, false) => "const",
        (false, true) => "volatile",
        (false, false) => "",
    }
}

/// A type: `float const*`, the placement of the tools, in every style (C++ reads it as
/// `const float*`).
pub(super) fn ty(t: &Type, style: Style) -> String {
    let base = match &t.base {
        Base::Builtin(b) => builtin_words(b),
        Base::Named(n) => n.render_name(style),
    };
    let base_cv = cv_words(t.cv.first().copied().unwrap_or(0));
    let mut out = match base_cv.is_empty() {
        true => base,
        false => format!("{base} {base_cv}"),
    };
    for &cv in t.cv.iter().skip(1) {
        out.push('*');
        let words = cv_words(cv);
        if !words.is_empty() {
            out.push(' ');
            out.push_str(words);
        }
    }
    for _ in 0..t.refs {
        out.push('&');
    }
    if let Some(other) = &t.other {
        out.push_str(other);
    }
    out
}
