//! Each attribute of `launch!`/`config!`, the same path for every position: its key (from the
//! runtime's table), whether the driver accepts it there, duplicates, its value form and the
//! limits on literal values; and the launch list's own keywords (`shared`,
//! `non_portable_cluster`). Every problem is recorded; nothing stops at the first one.

use std::collections::HashMap;

use chevron_cuda_rules::kinds::Position;
use chevron_cuda_rules::limits::check_carveout;
use chevron_cuda_rules::ptx::{capped_list, name_list};
use syn::spanned::Spanned;
use syn::{Expr, Lit};

use super::ast::{Attr, Item, Plan, Setting, Slot, Value};
use super::keys::{self, Key, Place, ValueForm, GROUPS, LIST, NON_PORTABLE_CLUSTER, SHARED};
use super::limits::{lit_dim, lit_number, Numeric};
use crate::report::Errors;
use crate::tokens::{snippet, unparen};

/// Where each key was first set, for duplicates: by position and key, the group it was set in
/// (0 for the launch list, then each group counted from 1 in written order).
type Seen = HashMap<(Position, String), usize>;

/// Checks every item (the launch list's attributes and keywords, each group's attributes)
/// into `plan`.
pub fn check_items(items: &[&Item], plan: &mut Plan, cx: &mut Errors) {
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
