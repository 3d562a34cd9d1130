//! Lowering: the syntax tree of a checked rule to IR conditions and
//! actions.
//!
//! The type pass (`check::typeck`) has checked every rule this sees, so
//! lowering reports nothing: it resolves names, paths, regexes and
//! templates the way the type pass did, and builds the IR. Where a part
//! does not lower (which only a part the type pass dropped without a
//! diagnostic can), that line or action is left out, as the type pass
//! left it. One [`Lowerer`] per rule; its methods are grouped like the
//! type pass's: conditions (`expr`), field paths (`fields`), regexes,
//! globs and templates (`literals`), quantifier variables, captures and
//! built-in functions (`bindings`), and actions (`actions`).

mod actions;
mod bindings;
mod expr;
mod fields;
mod literals;

use crate::check::names::{Def, DefKind, Scope};
use crate::check::overrides::ListExtensions;
use crate::check::{Analysis, CheckedRule, CondSpans, RegexCatalog, TypedRule};
use crate::ir::{BinaryOp, Expr, RegexId, RegexSource, UnaryOp};
use crate::load::{LoadedFile, LoadedSources};
use crate::schema::{PointKind, Schema};
use crate::span::Spanned;
use crate::syntax::ast;
use serde_json::Value;
use std::collections::HashMap;

/// What lowering reads besides the rules: the names each file sees, the
/// `+=` extensions of lists, the schema, and what the type pass learned of
/// regexes and globs.
struct Context<'a> {
    loaded: &'a LoadedSources,
    scopes: &'a [Scope],
    extensions: &'a ListExtensions<'a>,
    schema: &'a Schema,
    catalog: &'a RegexCatalog,
}

/// The regexes of a compilation, each once, numbered in the order the
/// rules first use them.
#[derive(Default)]
struct Regexes {
    sources: Vec<RegexSource>,
    ids: HashMap<RegexSource, u32, crate::strings::Fast>,
}

impl Regexes {
    fn intern(&mut self, source: RegexSource) -> RegexId {
        if let Some(&id) = self.ids.get(&source) {
            return RegexId(id);
        }
        let id = u32::try_from(self.sources.len()).unwrap_or(u32::MAX);
        self.ids.insert(source.clone(), id);
        self.sources.push(source);
        RegexId(id)
    }
}

/// Rules at which lowering starts a second thread: below, starting one
/// costs more than it saves.
const PARALLEL_RULES: usize = 512;

/// The most threads lowering uses.
const MAX_LOWER_THREADS: usize = 8;

/// Lowers every rule that passed the check, in order: the rules, and the
/// regexes they use, each once, numbered in the order of first use.
pub(crate) fn lower_rules(
    loaded: &LoadedSources,
    analysis: &Analysis<'_>,
) -> (Vec<CheckedRule>, Vec<RegexSource>) {
    lower_rules_on(loaded, analysis, None)
}

/// [`lower_rules`] on `threads` threads (`None`: as many as the rules are
/// worth).
///
/// Each run of rules is lowered on its own thread with its own numbering
/// of regexes; the runs are then put back in order and their regexes
/// numbered again, in the order of first use, which is the numbering one
/// thread gives.
fn lower_rules_on(
    loaded: &LoadedSources,
    analysis: &Analysis<'_>,
    threads: Option<usize>,
) -> (Vec<CheckedRule>, Vec<RegexSource>) {
    let cx = Context {
        loaded,
        scopes: &analysis.scopes,
        extensions: &analysis.extensions,
        schema: &analysis.schema,
        catalog: &analysis.catalog,
    };
    let all = analysis.rules.as_slice();
    let threads = threads
        .unwrap_or_else(|| crate::parallel::threads(all.len(), PARALLEL_RULES, MAX_LOWER_THREADS));
    let runs: Vec<&[TypedRule<'_>]> = all.chunks(all.len().div_ceil(threads).max(1)).collect();
    let lowered = crate::parallel::map_in_order(&runs, |run| lower_run(&cx, run));
    let mut regexes = Regexes::default();
    let mut rules = Vec::with_capacity(all.len());
    for (mut run, sources) in lowered {
        let ids: Vec<RegexId> = sources.into_iter().map(|s| regexes.intern(s)).collect();
        // The first run's numbering is already the final one.
        if ids.iter().enumerate().any(|(i, id)| id.0 as usize != i) {
            for rule in &mut run {
                rule.each_regex_mut(&mut |id| {
                    if let Some(&to) = ids.get(id.0 as usize) {
                        *id = to;
                    }
                });
            }
        }
        rules.append(&mut run);
    }
    (rules, regexes.sources)
}

/// The rules of one run, lowered in order, with the regexes they use
/// numbered from zero in the order of first use.
fn lower_run(cx: &Context<'_>, run: &[TypedRule<'_>]) -> (Vec<CheckedRule>, Vec<RegexSource>) {
    let mut regexes = Regexes::default();
    let rules = run
        .iter()
        .filter_map(|rule| {
            let scope = cx.scopes.get(rule.file)?;
            let mut lowerer = Lowerer {
                cx,
                file: rule.file,
                scope,
                points: &rule.points,
                regexes: &mut regexes,
                macro_stack: Vec::new(),
                vars: Vec::new(),
                captures: Vec::new(),
            };
            Some(lowerer.rule(rule))
        })
        .collect();
    (rules, regexes.sources)
}

/// Lowers the conditions and actions of one rule.
struct Lowerer<'a, 'r> {
    cx: &'r Context<'a>,
    /// The file of the expression being lowered (a macro's, inside one).
    file: usize,
    /// The names that file sees.
    scope: &'a Scope,
    /// The rule's points, which type its fields.
    points: &'r [(String, PointKind)],
    regexes: &'r mut Regexes,
    /// The macros being expanded, outermost first.
    macro_stack: Vec<String>,
    /// The quantifier variables in scope, innermost last.
    vars: Vec<String>,
    /// The names the rule's earlier lines bind, with their values.
    captures: Vec<bindings::Capture>,
}

/// Whether string literals are plain values or `{path}` templates.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Strings {
    Plain,
    Templates,
}

impl<'a> Lowerer<'a, '_> {
    /// The rule with its conditions and actions lowered.
    fn rule(&mut self, rule: &TypedRule<'_>) -> CheckedRule {
        let hook = rule.hook;
        // Conditions, ANDed; `unless` negates. A `when` line's named regex
        // groups bind names for the lines and actions after it.
        let mut conditions = Vec::new();
        let mut condition_spans = Vec::new();
        for c in &hook.conditions {
            if let Some(name) = &c.binding {
                self.bind_let(name, &c.expr);
                continue;
            }
            let Some(e) = self.expr(&c.expr, Strings::Plain) else {
                continue;
            };
            let mut spans = self.cond_spans(&c.expr, self.file, 0);
            if !c.negated {
                self.bind_captures(&e);
            }
            let e = if c.negated {
                spans = CondSpans {
                    file: self.file,
                    span: c.span,
                    children: vec![spans],
                };
                Expr::Unary(UnaryOp::Not, Box::new(e))
            } else {
                e
            };
            conditions.push(Spanned::new(e, c.span));
            condition_spans.push(spans);
        }
        let actions = hook
            .actions
            .iter()
            .filter_map(|action| Some(Spanned::new(self.action(action)?, action.span)))
            .collect();
        CheckedRule {
            id: rule.id.clone(),
            points: rule.points.clone(),
            target: rule.target.clone(),
            priority: rule.priority,
            enabled: rule.enabled,
            fail: rule.fail,
            timeout_ms: rule.timeout_ms,
            conditions,
            condition_spans,
            actions,
            origin: rule.origin,
            file: rule.file,
            span: rule.span,
        }
    }

    /// The file an expression being lowered is written in.
    fn def_file(&self, def: Def) -> Option<&'a LoadedFile> {
        self.cx.loaded.files.get(def.file)
    }

    /// Where the parts of a condition are written, in the shape of the `and`,
    /// `or` and `not` nodes [`expr`](Self::expr) builds for it; macros are
    /// followed into their bodies (`file` is the file `e` is written in).
    fn cond_spans(&self, e: &ast::Expr, file: usize, depth: usize) -> CondSpans {
        use ast::ExprKind as K;
        let node = |children| CondSpans {
            file,
            span: e.span,
            children,
        };
        // Macro cycles are reported by the type pass; stop following them.
        if depth > 64 {
            return node(Vec::new());
        }
        match &e.kind {
            K::Binary(BinaryOp::And | BinaryOp::Or, a, b) => node(vec![
                self.cond_spans(a, file, depth + 1),
                self.cond_spans(b, file, depth + 1),
            ]),
            K::Unary(UnaryOp::Not, inner) => node(vec![self.cond_spans(inner, file, depth + 1)]),
            K::Name(name) => {
                let def = self
                    .cx
                    .scopes
                    .get(file)
                    .and_then(|scope| scope.get(&name.name))
                    .copied();
                let body = def.filter(|d| d.kind == DefKind::Macro).and_then(|d| {
                    match self.cx.loaded.files.get(d.file)?.ast.items.get(d.item) {
                        Some(ast::Item::Macro(m)) => Some((d.file, &m.body)),
                        _ => None,
                    }
                });
                match body {
                    Some((macro_file, body)) => self.cond_spans(body, macro_file, depth + 1),
                    None => node(Vec::new()),
                }
            }
            _ => node(Vec::new()),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::span::SourceFile;

    /// Runs of rules lowered on threads give the rules and the regexes one
    /// thread gives: each regex numbered in the order the rules first use
    /// it, in conditions, in a capture read by a reason, in a rewrite, in
    /// a case-insensitive comparison the lowering makes a regex of.
    #[test]
    fn rules_lowered_on_threads_are_the_rules_one_thread_lowers() {
        let mut text = String::from("macro shared = payload.args matches /shared-\\d+/\n");
        for i in 0..600 {
            let rule = match i % 5 {
                0 => format!(
                    "hook r{i} on tool.pre_execute {{\n    when payload.args matches /(?P<verb>rm|mv{i})\\s+(?P<what>\\S+)/\n    abort \"{{verb}} of {{what}}\"\n}}\n"
                ),
                1 => format!(
                    "hook r{i} on tool.post_execute {{\n    when payload.result matches /k{}/\n    rewrite payload.result /secret{}/ -> \"[x]\"\n}}\n",
                    i % 7,
                    i % 11
                ),
                2 => format!(
                    "hook r{i} on tool.pre_execute {{\n    when shared and payload.args matches /n{}/i\n    abort \"no\"\n}}\n",
                    i % 13
                ),
                3 => format!(
                    "hook r{i} on tool.pre_execute {{\n    when lower(payload.tool) == \"exec-{i}\"\n    abort \"no\"\n}}\n"
                ),
                _ => format!(
                    "hook r{i} on tool.pre_execute {{\n    when payload.args matches /only-{i}/\n    continue\n}}\n"
                ),
            };
            text.push('\n');
            text.push_str(&rule);
        }
        let loaded = crate::load::load_sources(vec![SourceFile::new("big.hooks", text)]);
        let analysis = crate::check::check(&loaded);
        assert!(
            !analysis.diagnostics.has_errors(),
            "{}",
            analysis.diagnostics
        );
        let (one, one_regexes) = super::lower_rules_on(&loaded, &analysis, Some(1));
        assert_eq!(one.len(), 600);
        assert!(one_regexes.len() > 300, "{}", one_regexes.len());
        for threads in [2, 3, 8] {
            let (many, many_regexes) = super::lower_rules_on(&loaded, &analysis, Some(threads));
            assert_eq!(many_regexes, one_regexes, "{threads} threads");
            assert_eq!(format!("{many:?}"), format!("{one:?}"), "{threads} threads");
        }
    }
}
