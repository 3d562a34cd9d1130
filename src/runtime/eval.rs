//! Evaluating atoms, expressions and templates against a context.
//!
//! Everything here reads; nothing edits. Matching (atoms over borrowed
//! fields) allocates nothing; only expressions that build new values do.

use crate::event::{HookContext, Val};
use crate::ir::{
    Atom, BinaryOp, Expr, Func, Quantifier, Segment, Template, TemplatePart, UnaryOp, WordList,
    WordsForm, WordsTest,
};
use crate::shell::short_flag_bit;
use crate::table::regexes::{Matching, RegexOverrun};
use serde_json::Value;
use std::borrow::Cow;
use std::fmt::Write as _;

/// Why an expression has no value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EvalError {
    /// `"a" + 1`
    #[error("`{op}` cannot apply to {lhs} and {rhs}")]
    Types {
        /// The operator.
        op: &'static str,
        /// The left operand's type.
        lhs: &'static str,
        /// The right operand's type.
        rhs: &'static str,
    },
    /// `-"a"`, `not 1`
    #[error("`{op}` cannot apply to {operand}")]
    Operand {
        /// The operator.
        op: &'static str,
        /// The operand's type.
        operand: &'static str,
    },
    /// `1 / 0`
    #[error("division by zero")]
    DivisionByZero,
    /// `i64::MAX + 1`
    #[error("integer overflow in `{0}`")]
    Overflow(&'static str),
    /// A regex id the table does not have (cannot happen for validated tables).
    #[error("unknown regex")]
    UnknownRegex,
    /// A `rate(…)` test outside a condition (the checker refuses those).
    #[error("`rate(…)` has a value only in `when` and `unless`")]
    RateOutsideCondition,
    /// A regex the dispatch's regex budget could not pay for (see
    /// [`RegexBudget`](super::RegexBudget)).
    #[error("{0}")]
    RegexBudget(RegexOverrun),
}

/// Evaluates a field atom or an expression atom; `Err` when a regex it
/// needs is more than the dispatch's regex budget can pay for.
pub(crate) fn atom(atom: &Atom, ctx: &HookContext, m: Matching<'_>) -> Result<bool, RegexOverrun> {
    if let Some(path) = atom.field().filter(|p| p.normalized) {
        if let Some(Val::Str(text)) = ctx.get(path) {
            if crate::paths::is_windows_shaped(&text) {
                return windows_path_atom(atom, &text, m);
            }
        }
    }
    Ok(match atom {
        Atom::Eq(path, value) => match ctx.get(path) {
            Some(v) => v.eq_json(value),
            None => value.is_null(),
        },
        Atom::In(path, values) => ctx
            .get(path)
            .is_some_and(|v| values.iter().any(|w| v.eq_json(w))),
        Atom::Cmp(path, op, n) => ctx
            .get(path)
            .and_then(|v| v.as_f64())
            .is_some_and(|v| op.test(v, *n)),
        Atom::Contains(path, needle) => ctx.get(path).is_some_and(|v| contains(&v, needle)),
        Atom::ContainsAny(path, needles) => ctx
            .get(path)
            .is_some_and(|v| needles.iter().any(|n| contains(&v, n))),
        Atom::StartsWith(path, prefix) => ctx
            .get(path)
            .is_some_and(|v| v.as_str().is_some_and(|s| s.starts_with(prefix.as_str()))),
        Atom::EndsWith(path, suffix) => ctx
            .get(path)
            .is_some_and(|v| v.as_str().is_some_and(|s| s.ends_with(suffix.as_str()))),
        Atom::Matches(path, re) => {
            // The field first: a regex is compiled on first use, and one
            // whose field the event lacks need never be.
            let Some(Val::Str(text)) = ctx.get(path) else {
                return Ok(false);
            };
            m.is_match(re.0, &text)?
        }
        Atom::Exists(path) => ctx.get(path).is_some(),
        // Counted by the dispatch, which never evaluates it here.
        Atom::Rate(_) => false,
        // A value that is not a boolean does not hold.
        Atom::Expr(expr) => match holds(expr, ctx, m, Vars::NONE, "when") {
            Ok(b) => b,
            Err(EvalError::RegexBudget(overrun)) => return Err(overrun),
            Err(_) => false,
        },
    })
}

/// A field atom on a Windows path, decided without regard to case (see
/// [`crate::paths`]): the text and each constant compared as Windows
/// compares file names ([`crate::paths::windows_case`]), a regex or glob
/// matched case-insensitively.
fn windows_path_atom(atom: &Atom, text: &str, m: Matching<'_>) -> Result<bool, RegexOverrun> {
    use crate::paths::windows_case;
    let folded = windows_case(text);
    let fold = |v: &Value| v.as_str().map(windows_case);
    Ok(match atom {
        Atom::Eq(_, value) => fold(value).is_some_and(|v| v == folded),
        Atom::In(_, values) => values.iter().any(|v| fold(v).is_some_and(|v| v == folded)),
        Atom::Contains(_, needle) => fold(needle).is_some_and(|n| folded.contains(&n)),
        Atom::ContainsAny(_, needles) => needles
            .iter()
            .any(|n| fold(n).is_some_and(|n| folded.contains(&n))),
        Atom::StartsWith(_, prefix) => folded.starts_with(&windows_case(prefix)),
        Atom::EndsWith(_, suffix) => folded.ends_with(&windows_case(suffix)),
        Atom::Matches(_, re) => m.is_match_any_case(re.0, text)?,
        Atom::Cmp(..) => false,
        Atom::Exists(_) => true,
        Atom::Rate(_) | Atom::Expr(_) => false,
    })
}

/// `contains` on a value: substring of a string, element of an array, key of
/// an object.
fn contains(haystack: &Val<'_>, needle: &Value) -> bool {
    match (haystack, needle) {
        (Val::Str(s), Value::String(n)) => s.contains(n.as_str()),
        (Val::Json(Value::Object(map)), Value::String(n)) => map.contains_key(n),
        (Val::Map(map), Value::String(n)) => map.contains_key(n),
        (Val::Words(words), Value::String(n)) => words.iter().any(|w| w == n),
        (Val::Command(_) | Val::Redirect(_), Value::String(n)) => haystack.field(n).is_some(),
        _ => match haystack.as_array() {
            Some(items) => items.iter().any(|item| crate::event::json_eq(item, needle)),
            None => haystack.any_element(|item| item.eq_json(needle)),
        },
    }
}

fn contains_val(haystack: &Val<'_>, needle: &Val<'_>) -> bool {
    match (haystack, needle) {
        (Val::Str(s), Val::Str(n)) => s.contains(n.as_ref()),
        _ => match haystack.as_array() {
            Some(items) => items.iter().any(|item| needle.eq_json(item)),
            None if haystack.list_len().is_some() => {
                haystack.any_element(|item| item.eq_val(needle))
            }
            None => match needle.as_str() {
                Some(key) => match haystack {
                    Val::Json(Value::Object(map)) => map.contains_key(key),
                    Val::Map(map) => map.contains_key(key),
                    Val::Command(_) | Val::Redirect(_) => haystack.field(key).is_some(),
                    _ => false,
                },
                None => false,
            },
        },
    }
}

/// Evaluates an expression to the JSON value an edit, a skip or an output
/// writes. A constant (`meta audited = true`, the usual edit) is copied as
/// it is, without a trip through [`Val`] and without gathering what
/// matching needs (`m` is called only for an expression). Inlined, so
/// that a constant is copied where it is written, with no call.
#[inline]
pub(crate) fn json<'m>(
    expr: &Expr,
    ctx: &HookContext,
    m: impl FnOnce() -> Matching<'m>,
) -> Result<Value, EvalError> {
    match expr {
        Expr::Const(value) => Ok(value.clone()),
        _ => eval(expr, ctx, m()).map(|v| v.to_json()),
    }
}

/// Evaluates an expression to a value.
pub(crate) fn eval<'a>(
    expr: &'a Expr,
    ctx: &'a HookContext,
    m: Matching<'a>,
) -> Result<Val<'a>, EvalError> {
    eval_in(expr, ctx, m, Vars::NONE)
}

/// The elements the quantifiers around an expression bind, innermost
/// first: a list on the stack, so binding allocates nothing.
#[derive(Clone, Copy)]
struct Vars<'a> {
    top: Option<(&'a Val<'a>, &'a Vars<'a>)>,
}

impl<'a> Vars<'a> {
    const NONE: Vars<'static> = Vars { top: None };

    /// The element `depth` quantifiers out (0: the innermost).
    fn get(self, depth: u32) -> Option<&'a Val<'a>> {
        let mut cur = self;
        for _ in 0..depth {
            cur = *cur.top?.1;
        }
        Some(cur.top?.0)
    }
}

/// A variable's element, or a path below it (missing: `null`).
fn var<'a>(vars: Vars<'a>, depth: u32, segments: &[Segment]) -> Val<'a> {
    let Some(value) = vars.get(depth) else {
        return Val::Null;
    };
    let json = match value {
        Val::Json(v) => *v,
        Val::Owned(v) => &**v,
        // A string is borrowed from the binding (a value a `let` binds
        // may own its text).
        Val::Str(s) if segments.is_empty() => return Val::Str(Cow::Borrowed(s)),
        scalar if segments.is_empty() => return scalar.clone(),
        // A shell view's command, words or redirection: read in place.
        typed => {
            let mut cur = typed.clone();
            for segment in segments {
                let next = match segment {
                    Segment::Field(name) => cur.field(name),
                    Segment::Index(i) => cur.index(*i as usize),
                };
                match next {
                    Some(v) => cur = v,
                    None => return Val::Null,
                }
            }
            return cur;
        }
    };
    crate::event::walk(json, segments).map_or(Val::Null, Val::from_json)
}

/// `any c in LIST: e` / `all c in LIST: e`: the condition on each element
/// in order, stopping at the first that decides. A value that is not a
/// list has no elements.
fn quantify(
    q: Quantifier,
    list: &Val<'_>,
    body: &Expr,
    ctx: &HookContext,
    m: Matching<'_>,
    vars: Vars<'_>,
) -> Result<bool, EvalError> {
    // The first error or deciding element ends the walk.
    let mut outcome: Result<Option<bool>, EvalError> = Ok(None);
    list.any_element(|item| {
        let inner = Vars {
            top: Some((item, &vars)),
        };
        let decided = holds(body, ctx, m, inner, q.keyword()).map(|holds| match (q, holds) {
            (Quantifier::Any, true) => Some(true),
            (Quantifier::All, false) => Some(false),
            _ => None,
        });
        match decided {
            Ok(None) => false,
            other => {
                outcome = other;
                true
            }
        }
    });
    Ok(outcome?.unwrap_or(q == Quantifier::All))
}

/// A built-in function on its argument; a value of a type it does not take
/// gives `null`.
fn call<'a>(func: Func, arg: Val<'a>, m: Matching<'a>) -> Val<'a> {
    let text = |f: fn(&str) -> Val<'static>| match arg.as_str() {
        Some(s) => f(s),
        None => Val::Null,
    };
    match func {
        Func::Shell => match arg.as_str().map(|s| m.views.get(s)) {
            Some(Ok(view)) => Val::Commands(&view.commands),
            // Every slot of the cache holds another command: the rare
            // fourth distinct command of one dispatch is read as JSON.
            Some(Err(fresh)) => Val::Owned(Box::new(fresh.to_json())),
            None => Val::Null,
        },
        // Words are mostly in lower case already (`npm`, `git`): such a
        // text is its own lower case, and is not copied.
        Func::Lower if arg.as_str().is_some_and(crate::ir::is_lower_ascii) => arg,
        Func::Lower => text(|s| Val::Str(Cow::Owned(s.to_lowercase()))),
        Func::Upper => text(|s| Val::Str(Cow::Owned(s.to_uppercase()))),
        Func::Trim => text(|s| Val::Str(Cow::Owned(s.trim().to_owned()))),
        // A word of the event or of a shell view is borrowed for the whole
        // dispatch: so is its last segment.
        Func::Basename => match arg {
            Val::Str(Cow::Borrowed(s)) => Val::Str(crate::paths::basename_in(s)),
            _ => text(|s| Val::Str(Cow::Owned(crate::paths::basename(s)))),
        },
        Func::Dirname => text(|s| Val::Str(Cow::Owned(crate::paths::dirname(s).to_owned()))),
        Func::Normalize => text(|s| Val::Str(Cow::Owned(crate::paths::normalize(s).into_owned()))),
        Func::Env => match arg.as_str().and_then(|name| m.host.env(name)) {
            Some(value) => Val::Str(Cow::Owned(value.to_owned())),
            None => Val::Null,
        },
        Func::Relpath => match arg.as_str().and_then(|p| m.host.relpath(p)) {
            Some(rel) => Val::Str(Cow::Owned(rel)),
            None => Val::Null,
        },
        Func::Stem => text(|s| Val::Str(Cow::Owned(crate::paths::stem(s)))),
        Func::Extension => text(|s| Val::Str(Cow::Owned(crate::paths::extension(s)))),
        // `None` from `if_unset`: the shell stops, the word has no value.
        Func::IfUnset => match arg.as_str().and_then(crate::paths::if_unset) {
            Some(word) => Val::Str(Cow::Owned(word.into_owned())),
            None => Val::Null,
        },
        // More than one argument: evaluated by the caller.
        Func::Replace | Func::Join => Val::Null,
        Func::Len => match &arg {
            Val::Str(s) => Val::Int(s.chars().count() as i64),
            Val::Map(map) => Val::Int(map.len() as i64),
            Val::Json(serde_json::Value::Object(map)) => Val::Int(map.len() as i64),
            Val::Owned(v) if v.is_object() => Val::Int(v.as_object().map_or(0, |m| m.len()) as i64),
            // The keys `View::to_json` gives a command and a redirection.
            Val::Command(_) => Val::Int(10),
            Val::Redirect(_) => Val::Int(2),
            other => match other.list_len() {
                Some(n) => Val::Int(n as i64),
                None => Val::Null,
            },
        },
    }
}

/// An operand's value: a constant read where it is used, anything else
/// evaluated by [`eval_in`] (a constant, the usual right side of a
/// comparison, is not worth a recursive call's frame).
#[inline(always)]
fn operand<'a>(
    expr: &'a Expr,
    ctx: &'a HookContext,
    m: Matching<'a>,
    vars: Vars<'a>,
) -> Result<Val<'a>, EvalError> {
    match expr {
        Expr::Const(v) => Ok(Val::from_json(v)),
        _ => eval_in(expr, ctx, m, vars),
    }
}

fn eval_in<'a>(
    expr: &'a Expr,
    ctx: &'a HookContext,
    m: Matching<'a>,
    vars: Vars<'a>,
) -> Result<Val<'a>, EvalError> {
    let eval = |e: &'a Expr, ctx: &'a HookContext, m: Matching<'a>| operand(e, ctx, m, vars);
    Ok(match expr {
        Expr::Const(v) => Val::from_json(v),
        Expr::Path(p) => ctx.get(p).unwrap_or(Val::Null),
        Expr::Unary(op, e) => unary(*op, eval(e, ctx, m)?)?,
        // The forms whose value is always a boolean: decided by `holds`
        // (`op` names no operator there).
        Expr::Binary(BinaryOp::And | BinaryOp::Or, ..)
        | Expr::In(..)
        | Expr::InSet(..)
        | Expr::Matches(..)
        | Expr::Exists(_)
        | Expr::Quantifier(..)
        | Expr::WordsAny(..) => Val::Bool(holds(expr, ctx, m, vars, "")?),
        Expr::Binary(op, a, b) => binary(*op, eval(a, ctx, m)?, eval(b, ctx, m)?)?,
        Expr::Var(depth, segments) => var(vars, *depth, segments),
        Expr::Call(func, args) => match args.as_slice() {
            [arg] => call(*func, eval(arg, ctx, m)?, m),
            _ => return eval_rare(expr, ctx, m, vars),
        },
        Expr::Let(value, body) => {
            let value = eval(value, ctx, m)?;
            let inner = Vars {
                top: Some((&value, &vars)),
            };
            // The compiler puts a `let` around a quantifier, whose value
            // is a boolean; any other value may borrow from the binding,
            // and is copied out.
            match eval_in(body, ctx, m, inner)? {
                Val::Bool(b) => Val::Bool(b),
                other => detach(other),
            }
        }
        _ => return eval_rare(expr, ctx, m, vars),
    })
}

/// Evaluates a condition: whether `expr` holds, or when its value is not
/// a boolean, the error [`truth`] gives for the operator `op` that reads
/// it. The forms whose value is always a boolean (`and`, `or`, `not`,
/// `in`, `matches`, `exists`, quantifiers, word tests) are decided here
/// without making a [`Val`] of each node's answer; any other form is
/// evaluated by [`eval_in`].
fn holds<'a>(
    expr: &'a Expr,
    ctx: &'a HookContext,
    m: Matching<'a>,
    vars: Vars<'a>,
    op: &'static str,
) -> Result<bool, EvalError> {
    let eval = |e: &'a Expr| operand(e, ctx, m, vars);
    let test = |e: &'a Expr, op| holds(e, ctx, m, vars, op);
    Ok(match expr {
        Expr::Binary(BinaryOp::And, a, b) => test(a, "and")? && test(b, "and")?,
        Expr::Binary(BinaryOp::Or, a, b) => test(a, "or")? || test(b, "or")?,
        Expr::Unary(UnaryOp::Not, a) => !test(a, "not")?,
        Expr::In(lhs, list) => {
            let lhs = eval(lhs)?;
            let list = eval(list)?;
            match list.as_array() {
                Some(items) => items.iter().any(|i| lhs.eq_json(i)),
                None => list.any_element(|i| lhs.eq_val(i)),
            }
        }
        // Equal to a string constant only if a string (see `Val::eq_json`).
        Expr::InSet(value, set) => match eval(value)? {
            Val::Str(s) => set.has(&s),
            Val::Json(Value::String(s)) => set.has(s),
            Val::Owned(v) => v.as_str().is_some_and(|s| set.has(s)),
            _ => false,
        },
        Expr::Matches(lhs, re) => match eval(lhs)?.as_str() {
            Some(s) => m.is_match(re.0, s).map_err(EvalError::RegexBudget)?,
            None => false,
        },
        Expr::Exists(p) => ctx.get(p).is_some(),
        Expr::Quantifier(q, list, body) => quantify(*q, &eval(list)?, body, ctx, m, vars)?,
        Expr::WordsAny(command, test) => words_any(&eval(command)?, test),
        _ => return truth(eval(expr)?, op),
    })
}

/// `v`, holding nothing it borrows: scalars as they are, strings copied,
/// anything else as the JSON it reads as.
fn detach(v: Val<'_>) -> Val<'static> {
    match v {
        Val::Null => Val::Null,
        Val::Bool(b) => Val::Bool(b),
        Val::Int(i) => Val::Int(i),
        Val::Float(f) => Val::Float(f),
        Val::Str(s) => Val::Str(Cow::Owned(s.into_owned())),
        Val::Owned(v) => Val::Owned(v),
        other => Val::Owned(Box::new(other.to_json())),
    }
}

/// The expressions conditions rarely hold (values built anew, captures,
/// functions of several arguments, `rate`), kept out of [`eval_in`]: a
/// recursive function pays its frame on every node, and these arms would
/// make that frame larger for all.
#[inline(never)]
fn eval_rare<'a>(
    expr: &'a Expr,
    ctx: &'a HookContext,
    m: Matching<'a>,
    vars: Vars<'a>,
) -> Result<Val<'a>, EvalError> {
    let eval = |e: &'a Expr, ctx: &'a HookContext, m: Matching<'a>| eval_in(e, ctx, m, vars);
    Ok(match expr {
        Expr::Template(t) => Val::Str(render(t, ctx, || m)),
        Expr::Array(items) => {
            let items = items
                .iter()
                .map(|e| eval(e, ctx, m).map(|v| v.to_json()))
                .collect::<Result<Vec<_>, _>>()?;
            Val::Owned(Box::new(Value::Array(items)))
        }
        Expr::Object(fields) => {
            let mut map = serde_json::Map::new();
            for (k, e) in fields {
                map.insert(k.clone(), eval(e, ctx, m)?.to_json());
            }
            Val::Owned(Box::new(Value::Object(map)))
        }
        Expr::ContainsAny(lhs, list) => {
            let lhs = eval(lhs, ctx, m)?;
            let list = eval(list, ctx, m)?;
            Val::Bool(match list.as_array() {
                Some(items) => items.iter().any(|n| contains(&lhs, n)),
                None => list.any_element(|n| contains_val(&lhs, n)),
            })
        }
        // Counted by the dispatch (`Run::rate`); the checker keeps rate
        // tests out of values.
        Expr::Rate(_) => return Err(EvalError::RateOutsideCondition),
        Expr::Call(func, args) => match args.as_slice() {
            // A function of one argument is `eval_in`'s own.
            [_] => return eval_in(expr, ctx, m, vars),
            [text, from, to] if *func == Func::Replace => {
                let (text, from, to) =
                    (eval(text, ctx, m)?, eval(from, ctx, m)?, eval(to, ctx, m)?);
                match (text.as_str(), from.as_str(), to.as_str()) {
                    // An empty `from` would put `to` between every character.
                    (Some(t), Some(""), Some(_)) => Val::Str(Cow::Owned(t.to_owned())),
                    (Some(t), Some(f), Some(r)) => Val::Str(Cow::Owned(t.replace(f, r))),
                    _ => Val::Null,
                }
            }
            [base, path] if *func == Func::Join => {
                let (base, path) = (eval(base, ctx, m)?, eval(path, ctx, m)?);
                match path.as_str() {
                    Some(p) => Val::Str(Cow::Owned(crate::paths::join(base.as_str(), p))),
                    None => Val::Null,
                }
            }
            _ => Val::Null,
        },
        Expr::Capture(subject, re, group) => {
            let subject = eval(subject, ctx, m)?;
            capture(subject.as_str(), re.0, group, m)
        }
        // The common forms are `eval_in`'s own (listed, not `_`, so that a
        // new form must be placed in one of the two).
        Expr::Const(_)
        | Expr::Path(_)
        | Expr::Unary(..)
        | Expr::Binary(..)
        | Expr::In(..)
        | Expr::Matches(..)
        | Expr::Exists(_)
        | Expr::Quantifier(..)
        | Expr::Var(..)
        | Expr::WordsAny(..)
        | Expr::Let(..)
        | Expr::InSet(..) => return eval_in(expr, ctx, m, vars),
    })
}

/// [`Expr::WordsAny`]: on a shell view's command, its one-letter flags are
/// one `and` with the test's bits, and its words are looked up in the
/// test's set; any other value (a command read as JSON when the view cache
/// was full) is tested as the form it was written in would be.
fn words_any(command: &Val<'_>, test: &WordsTest) -> bool {
    if let Val::Command(c) = command {
        return match test.list {
            WordList::Flags => {
                // The flags the bits cannot hold (`--force`, `-é`) are
                // looked up; a flag the bits hold is in the set only if
                // its bit is.
                c.short_flags & test.short_flags != 0
                    || c.flags
                        .iter()
                        .any(|f| short_flag_bit(f).is_none() && test.has(f))
            }
            WordList::Args => c.args.iter().any(|w| test.has(w)),
            WordList::Operands => c.operands.iter().any(|w| test.has(w)),
            WordList::Assignments => c.assignments.iter().any(|w| test.has(w)),
            WordList::Wrappers => c.wrappers.iter().any(|w| test.has(w)),
        };
    }
    let list = command.field(test.list.name()).unwrap_or(Val::Null);
    test.set.iter().any(|s| {
        let needle = Val::Str(Cow::Borrowed(s));
        match test.form {
            WordsForm::Contains | WordsForm::ContainsAny => contains_val(&list, &needle),
            WordsForm::In => match list.as_array() {
                Some(items) => items.iter().any(|i| needle.eq_json(i)),
                None => list.any_element(|i| needle.eq_val(i)),
            },
        }
    })
}

/// Group `group` of regex `re` on `text`: `null` when there is no text, no
/// match or no such group.
fn capture<'a>(text: Option<&str>, re: u32, group: &str, m: Matching<'_>) -> Val<'a> {
    let found = text.and_then(|text| {
        let regex = m.regexes.get(re as usize)?;
        let caps = regex.captures(text)?;
        Some(caps.name(group)?.as_str().to_owned())
    });
    found.map_or(Val::Null, |s| Val::Str(Cow::Owned(s)))
}

fn truth(v: Val<'_>, op: &'static str) -> Result<bool, EvalError> {
    match v {
        Val::Bool(b) => Ok(b),
        other => Err(EvalError::Operand {
            op,
            operand: other.type_name(),
        }),
    }
}

fn unary(op: UnaryOp, v: Val<'_>) -> Result<Val<'_>, EvalError> {
    match op {
        UnaryOp::Not => Ok(Val::Bool(!truth(v, "not")?)),
        UnaryOp::Neg => match v {
            Val::Int(i) => i
                .checked_neg()
                .map(Val::Int)
                .ok_or(EvalError::Overflow("-")),
            Val::Float(f) => Ok(Val::Float(-f)),
            other => Err(EvalError::Operand {
                op: "-",
                operand: other.type_name(),
            }),
        },
        UnaryOp::BitNot => match v.as_i64() {
            Some(i) => Ok(Val::Int(!i)),
            None => Err(EvalError::Operand {
                op: "~",
                operand: v.type_name(),
            }),
        },
    }
}

fn binary<'a>(op: BinaryOp, a: Val<'a>, b: Val<'a>) -> Result<Val<'a>, EvalError> {
    let mismatch = |a: &Val<'_>, b: &Val<'_>| EvalError::Types {
        op: op.as_str(),
        lhs: a.type_name(),
        rhs: b.type_name(),
    };
    Ok(match op {
        BinaryOp::Eq => Val::Bool(a.eq_val(&b)),
        BinaryOp::Ne => Val::Bool(!a.eq_val(&b)),
        BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge => {
            let ord = match (a.as_f64(), b.as_f64()) {
                (Some(x), Some(y)) => x.partial_cmp(&y),
                _ => match (a.as_str(), b.as_str()) {
                    (Some(x), Some(y)) => Some(x.cmp(y)),
                    _ => return Err(mismatch(&a, &b)),
                },
            };
            let Some(ord) = ord else {
                return Ok(Val::Bool(false));
            };
            Val::Bool(match op {
                BinaryOp::Lt => ord.is_lt(),
                BinaryOp::Le => ord.is_le(),
                BinaryOp::Gt => ord.is_gt(),
                _ => ord.is_ge(),
            })
        }
        BinaryOp::Contains => Val::Bool(contains_val(&a, &b)),
        BinaryOp::StartsWith => match (a.as_str(), b.as_str()) {
            (Some(x), Some(y)) => Val::Bool(x.starts_with(y)),
            _ => Val::Bool(false),
        },
        BinaryOp::EndsWith => match (a.as_str(), b.as_str()) {
            (Some(x), Some(y)) => Val::Bool(x.ends_with(y)),
            _ => Val::Bool(false),
        },
        BinaryOp::BitOr | BinaryOp::BitXor | BinaryOp::BitAnd | BinaryOp::Shl | BinaryOp::Shr => {
            let (Some(x), Some(y)) = (a.as_i64(), b.as_i64()) else {
                return Err(mismatch(&a, &b));
            };
            Val::Int(match op {
                BinaryOp::BitOr => x | y,
                BinaryOp::BitXor => x ^ y,
                BinaryOp::BitAnd => x & y,
                BinaryOp::Shl => u32::try_from(y)
                    .ok()
                    .and_then(|s| x.checked_shl(s))
                    .ok_or(EvalError::Overflow("<<"))?,
                _ => u32::try_from(y)
                    .ok()
                    .and_then(|s| x.checked_shr(s))
                    .ok_or(EvalError::Overflow(">>"))?,
            })
        }
        BinaryOp::Add if a.as_str().is_some() && b.as_str().is_some() => {
            let mut s = a.as_str().unwrap_or("").to_string();
            s.push_str(b.as_str().unwrap_or(""));
            Val::Str(Cow::Owned(s))
        }
        BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem => {
            arith(op, &a, &b).ok_or_else(|| mismatch(&a, &b))??
        }
        BinaryOp::And | BinaryOp::Or => {
            let x = truth(a, op.as_str())?;
            let y = truth(b, op.as_str())?;
            Val::Bool(if op == BinaryOp::And { x && y } else { x || y })
        }
    })
}

fn arith<'a>(op: BinaryOp, a: &Val<'_>, b: &Val<'_>) -> Option<Result<Val<'a>, EvalError>> {
    if let (Val::Int(x), Val::Int(y)) = (a, b) {
        let (x, y) = (*x, *y);
        let r = match op {
            BinaryOp::Add => x.checked_add(y),
            BinaryOp::Sub => x.checked_sub(y),
            BinaryOp::Mul => x.checked_mul(y),
            BinaryOp::Div | BinaryOp::Rem if y == 0 => return Some(Err(EvalError::DivisionByZero)),
            BinaryOp::Div => x.checked_div(y),
            _ => x.checked_rem(y),
        };
        return Some(r.map(Val::Int).ok_or(EvalError::Overflow(op.as_str())));
    }
    let (x, y) = (a.as_f64()?, b.as_f64()?);
    Some(Ok(Val::Float(match op {
        BinaryOp::Add => x + y,
        BinaryOp::Sub => x - y,
        BinaryOp::Mul => x * y,
        BinaryOp::Div if y == 0.0 => return Some(Err(EvalError::DivisionByZero)),
        BinaryOp::Div => x / y,
        _ => x % y,
    })))
}

/// Fills a template's holes from the context: strings as they are, other
/// values as JSON, missing fields and captures of nothing as the empty
/// string. A template without holes is borrowed, not copied, and `m` (what
/// matching needs) is called only for a template with holes.
///
/// Inlined as far as a constant template, the usual reason: the rest is
/// [`render_parts`].
#[inline]
pub(crate) fn render<'t, 'm>(
    template: &'t Template,
    ctx: &HookContext,
    m: impl FnOnce() -> Matching<'m>,
) -> Cow<'t, str> {
    match template.as_literal() {
        Some(text) => Cow::Borrowed(text),
        None => Cow::Owned(render_parts(template, ctx, m)),
    }
}

/// A template with paths or expressions, rendered.
fn render_parts<'m>(
    template: &Template,
    ctx: &HookContext,
    m: impl FnOnce() -> Matching<'m>,
) -> String {
    let m = m();
    let mut out = String::new();
    for part in &template.parts {
        match part {
            TemplatePart::Lit(s) => out.push_str(s),
            TemplatePart::Path(p) => match ctx.get(p) {
                Some(Val::Str(s)) => out.push_str(&s),
                Some(Val::Int(i)) => {
                    let _ = write!(out, "{i}");
                }
                Some(Val::Null) | None => {}
                Some(v) => out.push_str(&v.to_json().to_string()),
            },
            TemplatePart::Expr(expr) => match eval(expr, ctx, m) {
                Ok(Val::Str(s)) => out.push_str(&s),
                Ok(Val::Int(i)) => {
                    let _ = write!(out, "{i}");
                }
                Ok(Val::Null) | Err(_) => {}
                Ok(v) => out.push_str(&v.to_json().to_string()),
            },
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::StrMap;
    use serde_json::json;

    fn test(list: WordList, form: WordsForm, strings: &[&str]) -> WordsTest {
        WordsTest {
            list,
            form,
            set: crate::ir::StringSet::new(strings, StrMap::default()),
            short_flags: strings
                .iter()
                .filter_map(|s| short_flag_bit(s))
                .fold(0, |a, b| a | b),
        }
    }

    /// What a `let` gives when its body's value is not a boolean (the
    /// compiler writes none such): the same value, owning its text.
    #[test]
    fn a_value_out_of_a_let_owns_what_it_borrowed() {
        let view = crate::shell::parse("rm -rf /tmp/x");
        let text = String::from("Run.sh");
        let detached = detach(Val::Str(Cow::Borrowed(&text)));
        assert!(matches!(&detached, Val::Str(Cow::Owned(s)) if s == "Run.sh"));
        let command = Val::Command(&view.commands[0]);
        let detached = detach(command.clone());
        assert!(matches!(&detached, Val::Owned(_)));
        assert!(detached.eq_val(&command), "{detached:?}");
        for scalar in [Val::Null, Val::Bool(true), Val::Int(-3), Val::Float(0.5)] {
            assert!(detach(scalar.clone()).eq_val(&scalar));
        }
    }

    #[test]
    fn a_command_read_as_json_is_tested_as_written() {
        // The view cache's overflow gives commands as JSON objects.
        let view = crate::shell::parse("sudo rm -rf --force /tmp/x");
        let json = view.commands[0].to_json();
        let command = Val::Json(&json);
        let typed = Val::Command(&view.commands[0]);
        for (list, form, strings, holds) in [
            (WordList::Flags, WordsForm::Contains, &["-r"][..], true),
            (WordList::Flags, WordsForm::In, &["--force"][..], true),
            (
                WordList::Flags,
                WordsForm::ContainsAny,
                &["-x", "-f"][..],
                true,
            ),
            (
                WordList::Flags,
                WordsForm::ContainsAny,
                &["-x", "--forc"][..],
                false,
            ),
            (
                WordList::Operands,
                WordsForm::Contains,
                &["/tmp/x"][..],
                true,
            ),
            (
                WordList::Operands,
                WordsForm::Contains,
                &["/tmp"][..],
                false,
            ),
            (WordList::Wrappers, WordsForm::In, &["sudo"][..], true),
            (WordList::Args, WordsForm::ContainsAny, &["rm"][..], false),
        ] {
            let t = test(list, form, strings);
            assert_eq!(
                words_any(&command, &t),
                holds,
                "{list:?} {strings:?} as JSON"
            );
            assert_eq!(words_any(&typed, &t), holds, "{list:?} {strings:?} typed");
        }
    }

    #[test]
    fn a_list_that_is_a_string_keeps_the_written_forms_meaning() {
        // `contains` on a string is a substring test; `in` a string is not.
        let object = json!({ "flags": "--recursive" });
        let value = Val::Json(&object);
        let contains = test(WordList::Flags, WordsForm::Contains, &["recursive"]);
        assert!(words_any(&value, &contains));
        let within = test(WordList::Flags, WordsForm::In, &["recursive"]);
        assert!(!words_any(&value, &within));
        assert!(!words_any(&Val::Null, &contains));
    }

    /// A field matcher decides the atoms of a field the event lacks from
    /// `Atom::holds_when_absent`, without evaluating them: for every kind
    /// of field atom, that is what evaluating it says.
    #[test]
    fn what_holds_of_a_missing_field_is_what_evaluation_says() {
        let table = crate::compile_str(
            "t.hooks",
            r#"hook a on tool.pre_execute {
    when payload.x == null or payload.x == "s" or payload.x == 1
        or payload.x in ["a", null] or payload.x > 1 or payload.x <= 1
        or payload.x contains "s" or payload.x contains any ["s", "t"]
        or payload.x starts_with "s" or payload.x ends_with "s"
        or payload.x matches /s/ or payload.x glob "src/**" or payload.x exists
        or payload.x != null
    abort "fired"
}
"#,
        )
        .unwrap()
        .table;
        let loaded = table.loaded();
        let budget = crate::table::regexes::Budget::default();
        let views = crate::shell::Views::default();
        let host = crate::event::HostFacts::default();
        let m = Matching {
            regexes: &loaded.regexes,
            dfas: &loaded.dfas,
            regex_dfas: loaded.regex_dfas(),
            regex_needs: loaded.regex_needs(),
            budget: &budget,
            views: &views,
            host: &host,
        };
        let ctx = HookContext::new("tool.pre_execute", "a::b", json!({"y": 1}));
        let atoms = &table.program().points[0].atoms;
        assert!(atoms.len() >= 13, "{atoms:?}");
        let mut holding = 0;
        for a in atoms {
            let evaluated = atom(a, &ctx, m).unwrap();
            assert_eq!(a.holds_when_absent(), evaluated, "{a:?}");
            holding += usize::from(evaluated);
        }
        assert!(holding >= 1, "`payload.x == null` holds of a missing field");
        // And a dispatch of an event without the field decides as they do.
        let mut scratch = table.scratch();
        let mut ctx = ctx;
        let outcome = table.dispatch(
            &mut scratch,
            "tool.pre_execute",
            &crate::Target::new("a::b"),
            &mut ctx,
        );
        assert!(outcome.is_abort());
    }

    /// A constant edit writes its number as the language reads it: an
    /// integer within `i64` exactly (both ends), a float as written, and an
    /// integer beyond `i64` as the float nearest to it (the language's
    /// integers are 64-bit signed), through a compiled table.
    #[test]
    fn constant_edits_write_numbers_as_read() {
        let table = crate::compile_str(
            "t.hooks",
            r#"hook a on tool.pre_execute {
    meta high = 9223372036854775807
    meta low = -9223372036854775808
    meta half = 0.5
    meta past = 18446744073709551615
    set payload.n = -9223372036854775807
}
"#,
        )
        .unwrap()
        .table;
        let mut ctx = HookContext::new("tool.pre_execute", "builtin::llm", json!({}));
        let report = table.dispatch_context(&mut ctx);
        assert_eq!(report.fired, ["a"]);
        let meta = &report.context.metadata;
        assert_eq!(meta["high"].as_i64(), Some(i64::MAX));
        assert_eq!(meta["low"].as_i64(), Some(i64::MIN));
        assert_eq!(meta["half"].as_f64(), Some(0.5));
        assert!(meta["past"].is_f64(), "{meta:?}");
        assert_eq!(meta["past"].as_f64(), Some(18_446_744_073_709_551_615.0));
        assert_eq!(report.context.payload["n"].as_i64(), Some(-i64::MAX));
    }
}
