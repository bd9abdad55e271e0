//! C++ names parsed into a structure, so that every spelling of one template instance finds it.
//!
//! A kernel's name is spelled many ways: the source's `reduce4<int, 512>`, `c++filt`'s
//! `reduce4<int, 512u>`, the demangler's `reduce4<int, (unsigned int)512>`; `tread<const float>`
//! and `tread<float const>`; `unary_op_kernel<&op_abs, float>` and the demangler's
//! `unary_op_kernel<&_INTERNAL_7436e5d4_8_names_cu_d85cfd80::op_abs(float), float>`. [`CppName`]
//! reads any of them into scopes, identifiers and template arguments (types with their `const`
//! placement and integer spellings normalised, values as numbers, functions by name), and
//! [`CppName::matches`] compares the user's spelling with a symbol's, structure against
//! structure.

mod lex;
mod render;
#[cfg(test)]
mod tests;

use lex::{lex, Tok};
pub use render::Style;

/// A qualified C++ name, with an optional parameter list: `ns::scale<float>(float*, int)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CppName {
    /// Written with a leading `::`: only a whole name matches.
    global: bool,
    /// The scopes and the name itself: `ns`, `scale<float>`.
    parts: Vec<Part>,
    /// The parameter types, where the spelling gives them.
    params: Option<Vec<Type>>,
}

/// One component of a qualified name: `scale<float>`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Part {
    ident: String,
    /// `None` when no `<…>` is written (any instance); `Some(vec![])` for `<>`.
    args: Option<Vec<Arg>>,
}

/// A template argument.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Arg {
    Type(Type),
    /// An integer, `bool` or enum value: `128`, `128u`, `(unsigned int)128`, `true`, `(Mode)1`.
    Value {
        value: i128,
        /// The integer type its suffix or cast gives (`unsigned int`, `Mode`, `bool`), in the
        /// canonical spelling of [`Type`]; `None` for a bare literal (`int`).
        ty: Option<Type>,
    },
    /// A function's address: `&op_abs`, `&(void f<float>(char const*, char*))`.
    Func(Box<Func>),
    /// An argument this parser does not take apart (an expression): compared as text.
    Other(String),
}

/// A function named by a template argument.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Func {
    /// The return type, which a symbol spells for a function template's instance.
    ret: Option<Type>,
    name: CppName,
}

/// A C++ type: its base, then one `const`/`volatile` set per level (the base's, then each
/// `*`'s), references, and the text of what this parser does not take apart (function types,
/// arrays).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Type {
    base: Base,
    /// `cv[0]`: the base's qualifiers; `cv[i]`: those of the `i`-th `*`.
    cv: Vec<u8>,
    refs: u8,
    other: Option<String>,
}

const CONST: u8 = 1;
const VOLATILE: u8 = 2;

#[derive(Clone, Debug, PartialEq, Eq)]
enum Base {
    /// A builtin type in canonical words: `int unsigned`, `long`, `char signed`.
    Builtin(String),
    /// A class, enum or typedef by name.
    Named(CppName),
}

/// The words a builtin type is spelled with.
const BUILTIN: [&str; 13] = [
    "void", "bool", "char", "wchar_t", "char8_t", "char16_t", "char32_t", "short", "int", "long",
    "signed", "unsigned", "float",
];

fn is_builtin_word(w: &str) -> bool {
    BUILTIN.contains(&w) || matches!(w, "double" | "__int128")
}

/// Words that qualify or introduce a type and say nothing about it here.
fn is_ignored_word(w: &str) -> bool {
    matches!(
        w,
        "__restrict__"
            | "__restrict"
            | "restrict"
            | "struct"
            | "class"
            | "enum"
            | "union"
            | "typename"
    )
}

/// Typedefs a symbol never spells (it has the type they stand for), which users write.
fn typedef(name: &str) -> Option<Base> {
    let name = name.strip_prefix("std::").unwrap_or(name);
    let builtin = |s: &str| Some(Base::Builtin(s.to_string()));
    let named = |s: &str| {
        Some(Base::Named(CppName {
            global: false,
            parts: vec![Part {
                ident: s.to_string(),
                args: None,
            }],
            params: None,
        }))
    };
    match name {
        "size_t" | "uint64_t" => builtin("long unsigned"),
        "ptrdiff_t" | "int64_t" => builtin("long"),
        "uint32_t" => builtin("int unsigned"),
        "int32_t" => builtin("int"),
        "uint16_t" => builtin("short unsigned"),
        "int16_t" => builtin("short"),
        "uint8_t" => builtin("char unsigned"),
        "int8_t" => builtin("char signed"),
        "half" => named("__half"),
        "nv_bfloat16" => named("__nv_bfloat16"),
        "half2" => named("__half2"),
        "nv_bfloat162" => named("__nv_bfloat162"),
        _ => None,
    }
}

/// A namespace the compiler makes and no user can type from the source: nvcc's
/// `_INTERNAL_<hash>` for `static` functions, an anonymous namespace.
fn is_internal(ident: &str) -> bool {
    ident.starts_with("_INTERNAL_")
        || ident.starts_with("_GLOBAL__N_")
        || ident == "(anonymous namespace)"
        || ident == "{anonymous}"
}

impl CppName {
    /// Parses a name as a user, the source, `c++filt` or the demangler spells it: `tu<128>`,
    /// `tu<128u>`, `tu<(unsigned int)128>`, `void ns::scale<float>(float*, int)`. A leading
    /// return type `void` is skipped. `Err` says what is wrong, for a message.
    pub fn parse(text: &str) -> Result<CppName, String> {
        let toks = lex(text)?;
        let mut p = Parser { toks, at: 0 };
        if p.peek_ident() == Some("void") && p.toks.len() > 1 {
            p.at += 1;
        }
        let mut name = p
            .name()
            .ok_or_else(|| format!("`{}` is not a C++ name", text.trim()))?;
        if p.eat(&Tok::Punct('(')) {
            name.params =
                Some(p.params().ok_or_else(|| {
                    format!("cannot read the parameter list of `{}`", text.trim())
                })?);
        }
        while matches!(p.peek_ident(), Some("const" | "volatile")) {
            p.at += 1;
        }
        if p.at < p.toks.len() {
            return Err(format!(
                "cannot read `{}` as a C++ name: unexpected `{}`",
                text.trim(),
                p.toks[p.at]
            ));
        }
        Ok(name)
    }

    /// Whether this name (the user's spelling, a pattern) names `entry` (a symbol's name): the
    /// same components, or the last ones where this name is not written with a leading `::`;
    /// the compiler's internal namespaces skipped unless this name spells them; the template
    /// arguments compared where written (types with normalised `const` placement and integer
    /// spellings, values by value whatever their suffix or cast, functions by name); the
    /// parameter types where written.
    pub fn matches(&self, entry: &CppName) -> bool {
        if !names_match(self, entry) {
            return false;
        }
        match (&self.params, &entry.params) {
            (None, _) => true,
            (Some(want), Some(have)) => {
                want.len() == have.len() && want.iter().zip(have).all(|(w, h)| param_match(w, h))
            }
            (Some(_), None) => false,
        }
    }

    /// Whether this name has template arguments on its last component.
    pub fn has_template_args(&self) -> bool {
        self.parts.last().is_some_and(|p| p.args.is_some())
    }

    /// Whether a parameter list is written.
    pub fn has_params(&self) -> bool {
        self.params.is_some()
    }

    /// The last component's identifier: `scale` of `ns::scale<float>`.
    pub fn ident(&self) -> &str {
        self.parts.last().map_or("", |p| p.ident.as_str())
    }

    /// The name without its template arguments and parameter list: what every instance and
    /// overload of it matches (`ns::reduce4` of `ns::reduce4<int, 512>(int const*)`).
    pub fn family(&self) -> CppName {
        let mut f = self.without_params();
        if let Some(last) = f.parts.last_mut() {
            last.args = None;
        }
        f
    }

    /// Where this name (the user's) writes an enumerator (`Mode::Mul`, `PlainB`) in a template
    /// argument that `entry` has as an enum's value (`(Mode)1`): a hint saying that a symbol
    /// keeps only the value, and the argument to write. `None` elsewhere.
    pub fn enumerator_hint(&self, entry: &CppName) -> Option<String> {
        let (mine, theirs) = (
            self.parts.last()?.args.as_ref()?,
            entry.parts.last()?.args.as_ref()?,
        );
        mine.iter().zip(theirs).find_map(|(m, t)| match (m, t) {
            (
                Arg::Type(Type {
                    base: Base::Named(name),
                    ..
                }),
                Arg::Value {
                    ty:
                        Some(
                            cast @ Type {
                                base: Base::Named(_),
                                ..
                            },
                        ),
                    ..
                },
            ) => Some(format!(
                "a symbol keeps an enumerator's value, not its name: instead of `{}`, write its \
                 value, as in `{}`",
                name.render(Style::Source),
                render::arg(t, Style::Source)
            ))
            .filter(|_| cast.cv == [0]),
            _ => None,
        })
    }

    /// The name without its parameter list.
    pub fn without_params(&self) -> CppName {
        CppName {
            params: None,
            ..self.clone()
        }
    }

    /// The components without the compiler's internal namespaces.
    fn visible_parts(&self) -> impl Iterator<Item = &Part> {
        self.parts.iter().filter(|p| !is_internal(&p.ident))
    }
}

/// The qualified names alone (no parameter lists) match, as [`CppName::matches`] says.
fn names_match(want: &CppName, have: &CppName) -> bool {
    let spells_internal = want.parts.iter().any(|p| is_internal(&p.ident));
    let have: Vec<&Part> = if spells_internal {
        have.parts.iter().collect()
    } else {
        have.visible_parts().collect()
    };
    let n = want.parts.len();
    if n == 0 || n > have.len() || (want.global && n != have.len()) {
        return false;
    }
    want.parts
        .iter()
        .zip(&have[have.len() - n..])
        .all(|(w, h)| part_match(w, h))
}

fn part_match(want: &Part, have: &Part) -> bool {
    if want.ident != have.ident {
        return false;
    }
    match (&want.args, &have.args) {
        (None, _) => true,
        (Some(w), Some(h)) => w.len() == h.len() && w.iter().zip(h).all(|(a, b)| arg_match(a, b)),
        (Some(w), None) => w.is_empty(),
    }
}

fn arg_match(want: &Arg, have: &Arg) -> bool {
    match (want, have) {
        (Arg::Value { value: a, .. }, Arg::Value { value: b, .. }) => a == b,
        (Arg::Type(a), Arg::Type(b)) => type_match(a, b, false),
        (Arg::Func(a), Arg::Func(b)) => a.name.matches(&b.name),
        // The source's `unary_op_kernel<op_abs, float>`: a function named without `&`.
        (Arg::Type(t), Arg::Func(f)) => match &t.base {
            Base::Named(n) if t.cv.len() == 1 && t.cv[0] == 0 && t.refs == 0 => n.matches(&f.name),
            _ => false,
        },
        (Arg::Other(a), b) => *a == render::arg(b, Style::Demangler),
        _ => false,
    }
}

/// Whether two types are the same. `alias`: `want` is a parameter type, where a name this
/// parser does not know (a typedef, which a symbol never spells) stands for any base.
fn type_match(want: &Type, have: &Type, alias: bool) -> bool {
    if want.cv != have.cv || want.refs != have.refs || want.other != have.other {
        return false;
    }
    match (&want.base, &have.base) {
        (Base::Builtin(a), Base::Builtin(b)) => a == b,
        (Base::Named(a), Base::Named(b)) => a.matches(b) || (alias && is_alias(a)),
        (Base::Named(a), Base::Builtin(_)) => alias && is_alias(a),
        (Base::Builtin(_), Base::Named(_)) => false,
    }
}

/// A single identifier, which may be a typedef of any type.
fn is_alias(name: &CppName) -> bool {
    name.parts.len() == 1 && name.parts[0].args.is_none()
}

/// A parameter type: qualifiers of the parameter itself (`float* const`, `int const`) do not
/// change a function's type.
fn param_match(want: &Type, have: &Type) -> bool {
    type_match(&want.without_top_cv(), &have.without_top_cv(), true)
}

impl Type {
    fn without_top_cv(&self) -> Type {
        let mut t = self.clone();
        if t.refs == 0 && t.other.is_none() {
            if let Some(last) = t.cv.last_mut() {
                *last = 0;
            }
        }
        t
    }
}

struct Parser {
    toks: Vec<Tok>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at)
    }

    fn peek_ident(&self) -> Option<&str> {
        match self.peek() {
            Some(Tok::Ident(s)) => Some(s),
            _ => None,
        }
    }

    fn eat(&mut self, t: &Tok) -> bool {
        if self.peek() == Some(t) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    /// `[::] part (:: part)*`.
    fn name(&mut self) -> Option<CppName> {
        let global = self.eat(&Tok::Scope);
        let mut parts = vec![self.part()?];
        while self.peek() == Some(&Tok::Scope) {
            self.at += 1;
            parts.push(self.part()?);
        }
        Some(CppName {
            global,
            parts,
            params: None,
        })
    }

    fn part(&mut self) -> Option<Part> {
        let ident = match self.peek_ident() {
            Some(w)
                if !is_builtin_word(w)
                    && !is_ignored_word(w)
                    && !matches!(w, "const" | "volatile") =>
            {
                w.to_string()
            }
            _ => return None,
        };
        self.at += 1;
        let args = if self.eat(&Tok::Punct('<')) {
            Some(self.args()?)
        } else {
            None
        };
        Some(Part { ident, args })
    }

    /// Template arguments after `<`, through the closing `>`. An empty trailing argument (the
    /// demangler's `packed<float, >` for an empty pack) is dropped.
    fn args(&mut self) -> Option<Vec<Arg>> {
        let mut args = Vec::new();
        loop {
            if self.eat(&Tok::Punct('>')) {
                return Some(args);
            }
            args.push(self.arg()?);
            if !self.eat(&Tok::Punct(',')) {
                return self.eat(&Tok::Punct('>')).then_some(args);
            }
        }
    }

    fn arg(&mut self) -> Option<Arg> {
        let start = self.at;
        if let Some(a) = self.value_or_func() {
            if self.at_arg_end() {
                return Some(a);
            }
        }
        self.at = start;
        if let Some(t) = self.ty() {
            if self.at_arg_end() {
                return Some(Arg::Type(t));
            }
        }
        // An expression: its tokens up to the next `,` or `>` at this level.
        self.at = start;
        let mut depth = 0i32;
        let mut text = Vec::new();
        while let Some(t) = self.peek() {
            match t {
                Tok::Punct('(' | '[') => depth += 1,
                Tok::Punct(')' | ']') => depth -= 1,
                Tok::Punct(',' | '>') if depth == 0 => break,
                _ => {}
            }
            text.push(t.to_string());
            self.at += 1;
        }
        (!text.is_empty()).then(|| Arg::Other(lex::join(&text)))
    }

    fn at_arg_end(&self) -> bool {
        matches!(self.peek(), Some(Tok::Punct(',' | '>')))
    }

    /// `128`, `-3`, `128u`, `(unsigned int)128`, `true`, `(bool)1`, `(Mode)1`, `&f`,
    /// `&(void f<float>(char const*))`.
    fn value_or_func(&mut self) -> Option<Arg> {
        match self.peek()? {
            Tok::Ident(w) if w == "true" || w == "false" => {
                let value = i128::from(w == "true");
                self.at += 1;
                Some(Arg::Value {
                    value,
                    ty: Some(builtin_type("bool")),
                })
            }
            Tok::Num(_) | Tok::Punct('-') => {
                let (value, ty) = self.number()?;
                Some(Arg::Value { value, ty })
            }
            Tok::Punct('(') => {
                self.at += 1;
                let ty = self.ty()?;
                if !self.eat(&Tok::Punct(')')) {
                    return None;
                }
                let value = match self.peek()? {
                    Tok::Ident(w) if w == "true" || w == "false" => {
                        let v = i128::from(w == "true");
                        self.at += 1;
                        v
                    }
                    _ => self.number()?.0,
                };
                Some(Arg::Value {
                    value,
                    ty: Some(ty),
                })
            }
            Tok::Punct('&') => {
                self.at += 1;
                let paren = self.eat(&Tok::Punct('('));
                // `&f`, `&ns::f(float)`, or with the return type a template's instance has:
                // `&void ns::f<int>(float)`.
                let (ret, mut name) = match self.peek_ident() {
                    Some(w) if !is_builtin_word(w) && !is_ignored_word(w) && w != "const" => {
                        let first = self.name()?;
                        match self.peek() {
                            Some(Tok::Ident(_) | Tok::Scope) => {
                                (Some(named_type(first)), self.name()?)
                            }
                            _ => (None, first),
                        }
                    }
                    _ if self.peek() == Some(&Tok::Scope) => (None, self.name()?),
                    _ => {
                        let ret = self.ty()?;
                        (Some(ret), self.name()?)
                    }
                };
                if self.eat(&Tok::Punct('(')) {
                    name.params = Some(self.params()?);
                }
                if paren && !self.eat(&Tok::Punct(')')) {
                    return None;
                }
                Some(Arg::Func(Box::new(Func { ret, name })))
            }
            _ => None,
        }
    }

    /// `-`? a literal with its suffix: the value and the type the suffix gives.
    fn number(&mut self) -> Option<(i128, Option<Type>)> {
        let negative = self.eat(&Tok::Punct('-'));
        let Some(Tok::Num(text)) = self.peek() else {
            return None;
        };
        let text = text.to_ascii_lowercase();
        self.at += 1;
        let digits_end = text.find(['u', 'l']).unwrap_or(text.len());
        let (digits, suffix) = text.split_at(digits_end);
        let magnitude: i128 = match digits.strip_prefix("0x") {
            Some(hex) => i128::from_str_radix(hex, 16).ok()?,
            None => digits.parse().ok()?,
        };
        let ty = match suffix {
            "" => None,
            "u" => Some("int unsigned"),
            "l" => Some("long"),
            "ul" | "lu" => Some("long unsigned"),
            "ll" => Some("long long"),
            "ull" | "llu" => Some("long long unsigned"),
            _ => return None,
        };
        Some((
            if negative { -magnitude } else { magnitude },
            ty.map(builtin_type),
        ))
    }

    /// A type: qualifiers and builtin words or a name, then `*`s with their qualifiers and
    /// references; a function type or array is kept as text.
    fn ty(&mut self) -> Option<Type> {
        let mut cv = 0u8;
        let mut words: Vec<String> = Vec::new();
        let mut name: Option<CppName> = None;
        loop {
            match self.peek() {
                Some(Tok::Ident(w)) if w == "const" => cv |= CONST,
                Some(Tok::Ident(w)) if w == "volatile" => cv |= VOLATILE,
                Some(Tok::Ident(w)) if is_ignored_word(w) => {}
                Some(Tok::Ident(w)) if is_builtin_word(w) && name.is_none() => {
                    words.push(w.clone())
                }
                Some(Tok::Ident(_) | Tok::Scope) if words.is_empty() && name.is_none() => {
                    name = Some(self.name()?);
                    continue;
                }
                _ => break,
            }
            self.at += 1;
        }
        let base = match name {
            Some(n) => {
                let plain = n.parts.iter().all(|p| p.args.is_none()) && !n.global;
                let text = n
                    .parts
                    .iter()
                    .map(|p| p.ident.as_str())
                    .collect::<Vec<_>>()
                    .join("::");
                match typedef(&text).filter(|_| plain) {
                    Some(b) => b,
                    None => Base::Named(n),
                }
            }
            None if !words.is_empty() => Base::Builtin(super::spelling::canonical_builtin(&words)),
            None => return None,
        };
        let mut t = Type {
            base,
            cv: vec![cv],
            refs: 0,
            other: None,
        };
        loop {
            match self.peek() {
                Some(Tok::Punct('*')) if t.refs == 0 => t.cv.push(0),
                Some(Tok::Ident(w)) if w == "const" => *t.cv.last_mut()? |= CONST,
                Some(Tok::Ident(w)) if w == "volatile" => *t.cv.last_mut()? |= VOLATILE,
                Some(Tok::Ident(w)) if is_ignored_word(w) => {}
                Some(Tok::Punct('&')) => t.refs += 1,
                Some(Tok::Punct('(' | '[')) => {
                    t.other = Some(self.balanced()?);
                    return Some(t);
                }
                _ => return Some(t),
            }
            self.at += 1;
        }
    }

    /// The text of a declarator this parser does not take apart, `(*)(int)` or `[4]`: balanced
    /// brackets, to the end of the type.
    fn balanced(&mut self) -> Option<String> {
        let mut depth = 0i32;
        let mut text = Vec::new();
        while let Some(t) = self.peek() {
            match t {
                Tok::Punct('(' | '[') => depth += 1,
                Tok::Punct(')' | ']') if depth == 0 => break,
                Tok::Punct(')' | ']') => depth -= 1,
                Tok::Punct(',' | '>') if depth == 0 => break,
                _ => {}
            }
            text.push(t.to_string());
            self.at += 1;
        }
        (depth == 0).then(|| lex::join(&text))
    }

    /// A parameter list after `(`, through `)`: types, each perhaps with a parameter name;
    /// `(void)` is empty.
    fn params(&mut self) -> Option<Vec<Type>> {
        let mut out = Vec::new();
        if self.eat(&Tok::Punct(')')) {
            return Some(out);
        }
        loop {
            let t = self.ty()?;
            // A parameter's name, in a hand-written list: `float* x`.
            if matches!(self.peek(), Some(Tok::Ident(w)) if !is_builtin_word(w)) {
                self.at += 1;
            }
            out.push(t);
            if self.eat(&Tok::Punct(')')) {
                break;
            }
            if !self.eat(&Tok::Punct(',')) {
                return None;
            }
        }
        if let [only] = out.as_slice() {
            if only.base == Base::Builtin("void".into()) && only.cv == [0] {
                out.clear();
            }
        }
        Some(out)
    }
}

fn named_type(name: CppName) -> Type {
    Type {
        base: Base::Named(name),
        cv: vec![0],
        refs: 0,
        other: None,
    }
}

fn builtin_type(words: &str) -> Type {
    Type {
        base: Base::Builtin(words.to_string()),
        cv: vec![0],
        refs: 0,
        other: None,
    }
}
