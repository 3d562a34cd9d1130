//! Walking the syntax tree: every expression node, every name used, every
//! regex a `matches` tests.

use super::Cx;
use crate::check::names::{Def, DefKind, Scope};
use crate::ir::RegexSource;
use crate::load::LoadedSources;
use crate::span::Span;
use crate::syntax::ast;

/// Calls `f` on `e` and every expression below it, parents first.
pub(crate) fn exprs<'e>(e: &'e ast::Expr, f: &mut dyn FnMut(&'e ast::Expr)) {
    use ast::ExprKind as K;
    f(e);
    match &e.kind {
        K::Array(items) => items.iter().for_each(|i| exprs(i, f)),
        K::Object(fields) => fields.iter().for_each(|(_, v)| exprs(v, f)),
        K::Unary(_, x) | K::Matches(x, _) | K::Glob(x, _) | K::Exists(x) => exprs(x, f),
        K::Binary(_, a, b) | K::ContainsAny(a, b) | K::In(a, b) => {
            exprs(a, f);
            exprs(b, f);
        }
        K::Quantifier(q) => {
            exprs(&q.over, f);
            exprs(&q.body, f);
        }
        K::Call(_, args) => args.iter().for_each(|a| exprs(a, f)),
        _ => {}
    }
}

/// The expressions of a rule: its conditions, then the values of its
/// actions.
pub(crate) fn hook_exprs(hook: &ast::Hook) -> Vec<&ast::Expr> {
    let mut out: Vec<&ast::Expr> = hook.conditions.iter().map(|c| &c.expr).collect();
    for action in &hook.actions {
        match &action.kind {
            ast::ActionKind::Skip(Some(e))
            | ast::ActionKind::Replace(e)
            | ast::ActionKind::Set(_, e)
            | ast::ActionKind::Meta(_, e)
            | ast::ActionKind::Output(_, e) => out.push(e),
            _ => {}
        }
    }
    out
}

/// A name used by an item: a value name (list or macro) or a pattern name.
/// A quantifier's variable is not a name of the file: inside its condition,
/// a bare use of it is left out.
pub(crate) fn names<'e>(e: &'e ast::Expr, out: &mut Vec<&'e ast::Ident>) {
    let mut bound: Vec<(&str, crate::span::Span)> = Vec::new();
    exprs(e, &mut |x| match &x.kind {
        ast::ExprKind::Quantifier(q) => bound.push((&q.var.name, q.body.span)),
        ast::ExprKind::Name(name) => {
            let is_bound = bound.iter().any(|(var, body)| {
                *var == name.name && body.start <= name.span.start && name.span.end <= body.end
            });
            if !is_bound {
                out.push(name);
            }
        }
        ast::ExprKind::Matches(_, ast::RegexRef::Name(name)) => out.push(name),
        _ => {}
    });
}

/// Every name an item uses (a rule's conditions and actions, a macro's
/// body, a test's event and expectations).
pub(crate) fn item_names(item: &ast::Item) -> Vec<&ast::Ident> {
    let mut out = Vec::new();
    match item {
        ast::Item::Hook(h) => {
            for e in hook_exprs(h) {
                names(e, &mut out);
            }
            for action in &h.actions {
                if let ast::ActionKind::Rewrite(_, ast::RegexRef::Name(name), _) = &action.kind {
                    out.push(name);
                }
            }
        }
        ast::Item::Macro(m) => names(&m.body, &mut out),
        // Extending a list uses it.
        ast::Item::List(l) if l.extends => out.push(&l.name),
        // A test's expectations may use the file's names too.
        ast::Item::Test(t) => {
            names(&t.event, &mut out);
            for expect in &t.expects {
                match &expect.kind {
                    ast::ExpectKind::Skip(Some(e))
                    | ast::ExpectKind::Fired(e)
                    | ast::ExpectKind::Condition(e) => names(e, &mut out),
                    _ => {}
                }
            }
        }
        _ => {}
    }
    out
}

/// The definition a name resolves to in a file's scope.
pub(crate) fn resolve(scopes: &[Scope], file: usize, name: &str) -> Option<Def> {
    scopes.get(file)?.get(name).copied()
}

/// Calls `f` on every condition expression node a rule evaluates, following
/// macros into their bodies; `f` gets the index of the file the node is
/// written in.
pub(crate) fn conditions_through_macros<'a>(
    loaded: &'a LoadedSources,
    scopes: &[Scope],
    file: usize,
    hook: &'a ast::Hook,
    f: &mut dyn FnMut(usize, &'a ast::Expr),
) {
    let mut stack: Vec<(usize, usize)> = Vec::new();
    for c in &hook.conditions {
        follow(loaded, scopes, file, &c.expr, &mut stack, f);
    }
}

fn follow<'a>(
    loaded: &'a LoadedSources,
    scopes: &[Scope],
    file: usize,
    e: &'a ast::Expr,
    stack: &mut Vec<(usize, usize)>,
    f: &mut dyn FnMut(usize, &'a ast::Expr),
) {
    let mut macros = Vec::new();
    exprs(e, &mut |x| {
        f(file, x);
        if let ast::ExprKind::Name(name) = &x.kind {
            if let Some(def) = resolve(scopes, file, &name.name) {
                if def.kind == DefKind::Macro {
                    macros.push(def);
                }
            }
        }
    });
    for def in macros {
        if stack.contains(&(def.file, def.item)) || stack.len() > 64 {
            continue;
        }
        let Some(ast::Item::Macro(m)) = loaded
            .files
            .get(def.file)
            .and_then(|f| f.ast.items.get(def.item))
        else {
            continue;
        };
        stack.push((def.file, def.item));
        follow(loaded, scopes, def.file, &m.body, stack, f);
        stack.pop();
    }
}

/// A regex a `matches` tests, where it is used.
pub(super) struct MatchedRegex<'a> {
    /// The file it is used in.
    pub(super) file: usize,
    /// The header of the rule or macro using it, where a lint comment
    /// applies.
    pub(super) anchor: Span,
    /// The regex.
    pub(super) source: RegexSource,
    /// Where to point: the regex, or the name of its `pattern`.
    pub(super) span: Span,
    /// The `pattern`'s name, when it is named.
    pub(super) named: Option<&'a str>,
}

/// Every regex a `matches` tests in the rules' conditions and the macros'
/// bodies, in the order they are written (a regex used twice, twice).
/// Walked once per lint run: read them with [`Cx::matched_regexes`].
pub(super) fn matched_regexes<'a>(cx: &Cx<'a>) -> Vec<MatchedRegex<'a>> {
    let mut out = Vec::new();
    for (fi, file) in cx.roots() {
        for item in &file.ast.items {
            let (roots, anchor): (Vec<&ast::Expr>, Span) = match item {
                ast::Item::Hook(h) => (
                    h.conditions.iter().map(|c| &c.expr).collect(),
                    h.header_span,
                ),
                ast::Item::Macro(m) => (vec![&m.body], m.span),
                _ => continue,
            };
            for root in roots {
                exprs(root, &mut |e| {
                    let ast::ExprKind::Matches(_, re) = &e.kind else {
                        return;
                    };
                    if let Some((source, span, named)) = resolve_regex(cx, fi, re) {
                        out.push(MatchedRegex {
                            file: fi,
                            anchor,
                            source,
                            span,
                            named,
                        });
                    }
                });
            }
        }
    }
    out
}

/// [`Cx::matched_regexes`], each regex once, where it is first used.
pub(super) fn first_uses<'c, 'a>(cx: &'c Cx<'a>) -> Vec<&'c MatchedRegex<'a>> {
    let mut seen = std::collections::HashSet::new();
    cx.matched_regexes()
        .iter()
        .filter(|used| seen.insert(&used.source))
        .collect()
}

/// The regex a `matches` operand stands for, where to point, and the
/// pattern's name when it is named.
fn resolve_regex<'a>(
    cx: &Cx<'a>,
    file: usize,
    re: &'a ast::RegexRef,
) -> Option<(RegexSource, Span, Option<&'a str>)> {
    match re {
        ast::RegexRef::Literal(lit) => Some((
            RegexSource {
                pattern: lit.pattern.clone(),
                flags: lit.flags.clone(),
            },
            lit.span,
            None,
        )),
        ast::RegexRef::Name(name) => {
            let def = resolve(cx.scopes, file, &name.name)?;
            if def.kind != DefKind::Pattern {
                return None;
            }
            let Some(ast::Item::Pattern(p)) =
                cx.loaded.files.get(def.file)?.ast.items.get(def.item)
            else {
                return None;
            };
            Some((
                RegexSource {
                    pattern: p.regex.pattern.clone(),
                    flags: p.regex.flags.clone(),
                },
                name.span,
                Some(name.name.as_str()),
            ))
        }
    }
}
