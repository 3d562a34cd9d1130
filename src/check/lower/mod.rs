//! Checking and lowering one rule: AST conditions and actions to IR
//! expressions and actions, with a diagnostic for every problem.
//!
//! One [`Lowerer`] per file walks a rule; its methods are grouped by what
//! they check: conditions and their types (`expr`), field paths against the
//! schema (`fields`), regex, glob and template literals (`literals`),
//! actions and edits (`actions`), and the static types themselves (`types`).

mod actions;
pub(super) mod bindings;
mod expr;
mod fields;
mod literals;
mod types;

use types::Ty;

use super::names::{Def, DefKind, Scope};
use super::{CheckedRule, CondSpans};
use crate::diag::suggest::suggest;
use crate::diag::{Diagnostic, Diagnostics};
use crate::fql::FqlPattern;
use crate::ir::{
    self, Action, BinaryOp, CmpOp, Expr, FieldPath, LogLevel, LuaCode, RateTest, RegexId,
    RegexSource, Root, Template, TemplatePart, UnaryOp, MAX_RATE_LIMIT,
};
use crate::load::{LoadedFile, LoadedSources};
use crate::schema::{FieldLookup, FieldType, PointKind, Schema};
use crate::span::{Span, Spanned};
use crate::syntax::ast;
use serde_json::Value;
use std::collections::HashMap;

/// The regexes of a compilation, each once, with what their syntax trees
/// told of those written in the rules.
#[derive(Default)]
pub(super) struct Regexes {
    sources: Vec<RegexSource>,
    facts: Vec<Option<super::RegexFacts>>,
    ids: HashMap<RegexSource, u32>,
}

impl Regexes {
    fn intern(&mut self, source: RegexSource, facts: Option<super::RegexFacts>) -> RegexId {
        if let Some(id) = self.known(&source) {
            return id;
        }
        let id = u32::try_from(self.sources.len()).unwrap_or(u32::MAX);
        self.ids.insert(source.clone(), id);
        self.sources.push(source);
        self.facts.push(facts);
        RegexId(id)
    }

    /// The id of `source`, when it was interned before.
    fn known(&self, source: &RegexSource) -> Option<RegexId> {
        self.ids.get(source).map(|&id| RegexId(id))
    }

    /// The names of the named groups of regex `id`.
    fn group_names(&self, id: RegexId) -> &[String] {
        match self.facts.get(id.0 as usize) {
            Some(Some(facts)) => &facts.groups,
            _ => &[],
        }
    }

    /// The regexes in id order, and the facts of those written in rules.
    pub(super) fn into_parts(self) -> (Vec<RegexSource>, HashMap<RegexSource, super::RegexFacts>) {
        let facts = self
            .sources
            .iter()
            .zip(self.facts)
            .filter_map(|(source, facts)| Some((source.clone(), facts?)))
            .collect();
        (self.sources, facts)
    }
}

/// The longest accepted regex flags string.
const REGEX_FLAGS: &str = "imsxU";

/// Checks and lowers the rules of one file.
pub(super) struct Lowerer<'a> {
    pub(super) loaded: &'a LoadedSources,
    pub(super) file: usize,
    pub(super) scopes: &'a [Scope],
    pub(super) scope: &'a Scope,
    /// The `+=` extensions of every list, indexed once.
    pub(super) extensions: &'a super::overrides::ListExtensions<'a>,
    pub(super) schema: &'a Schema,
    pub(super) points: Vec<(String, PointKind)>,
    pub(super) regexes: &'a mut Regexes,
    pub(super) diagnostics: &'a mut Diagnostics,
    pub(super) macro_stack: Vec<String>,
    /// The variables of the quantifiers around the expression being
    /// lowered, innermost last.
    pub(super) vars: Vec<bindings::Var>,
    /// The names the named groups of the rule's earlier `when` lines bind.
    pub(super) captures: Vec<bindings::Capture>,
}

/// Whether string literals are plain values or `{path}` templates.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Strings {
    Plain,
    Templates,
}

impl<'a> Lowerer<'a> {
    fn src(&self) -> &'a LoadedFile {
        // INVARIANT: `file` indexes `loaded.files`; the fallback is never used.
        self.loaded
            .files
            .get(self.file)
            .or_else(|| self.loaded.files.first())
            .unwrap_or_else(|| unreachable_file())
    }

    fn error(
        &mut self,
        code: &'static str,
        message: impl Into<String>,
        span: Span,
        label: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic::error(code, message)
            .in_file(&self.src().source)
            .with_primary(span, label)
    }

    fn emit(&mut self, d: Diagnostic) {
        self.diagnostics.push(d);
    }

    /// The help for a target that does not parse: a bare name (`at Bash`)
    /// is told the scope it needs.
    fn fql_help(&self, target: &str) -> String {
        let bare = !target.is_empty()
            && !target.contains("::")
            && target
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '*'));
        match (&self.schema.component_scope, bare) {
            (Some(scope), true) => format!(
                "a target names a scope and a component: write `at {scope}::{target}` (the `{}` schema's components are `{scope}::…`)",
                self.schema.name
            ),
            (None, true) => format!(
                "a target names a scope and a component: write `at *::{target}` for `{target}` in any scope, or name the scope (`builtin::{target}`)"
            ),
            _ => "write `scope::target[/child_path][#instance]`, each part a name or `*`".to_owned(),
        }
    }

    pub(super) fn hook(&mut self, hook: &ast::Hook) -> Option<CheckedRule> {
        // Only this rule's diagnostics are counted: counting all of them at
        // every rule would be quadratic in the number of findings.
        let first_new = self.diagnostics.0.len();
        // Points.
        for point in &hook.points {
            match self.schema.point(&point.name) {
                Some(def) => {
                    if self.points.iter().any(|(n, _)| *n == point.name) {
                        let d = Diagnostic::warning(
                            "duplicate-point",
                            format!("point `{}` is listed twice", point.name),
                        )
                        .in_file(&self.src().source)
                        .with_primary(point.span, "listed again here");
                        self.emit(d);
                    } else {
                        self.points.push((def.name.clone(), def.kind));
                    }
                }
                // The schema did not load (already reported): every point
                // would be unknown.
                None if self.schema.points.is_empty() => {}
                None => {
                    let mut d = self.error(
                        "unknown-point",
                        format!("unknown hook point `{}`", point.name),
                        point.span,
                        format!("not a point of the `{}` schema", self.schema.name),
                    );
                    d = super::unknown_point_help(d, &point.name, Some(point.span), self.schema);
                    self.emit(d);
                }
            }
        }
        // Target.
        let target = match &hook.target {
            None => FqlPattern::any(),
            Some(lit) => {
                let raw = self.src().source.slice(lit.span);
                let quoted = raw.starts_with('"');
                match FqlPattern::parse(&lit.value) {
                    Ok(p) => p,
                    Err(e) => {
                        let at = lit.span.start as usize + usize::from(quoted) + e.offset();
                        let span = Span::new(at, (at + 1).min(lit.span.end as usize).max(at));
                        let d = self
                            .error(
                                "invalid-fql",
                                format!("invalid FQL target `{}`", lit.value),
                                span,
                                e.kind().to_string(),
                            )
                            .with_secondary(lit.span, "")
                            .with_help(self.fql_help(&lit.value));
                        self.emit(d);
                        FqlPattern::any()
                    }
                }
            }
        };
        // Options.
        let mut priority = 100i32;
        let mut enabled = true;
        let mut fail = ir::FailMode::Open;
        let mut timeout_ms = None;
        let mut seen: Vec<(std::mem::Discriminant<ast::HookOptionKind>, Span)> = Vec::new();
        for opt in &hook.options {
            let disc = std::mem::discriminant(&opt.kind);
            if let Some((_, first)) = seen.iter().find(|(d, _)| *d == disc) {
                let first = *first;
                let d = self
                    .error(
                        "duplicate-option",
                        "option given twice",
                        opt.span,
                        "given again here",
                    )
                    .with_secondary(first, "first given here");
                self.emit(d);
                continue;
            }
            seen.push((disc, opt.span));
            match &opt.kind {
                ast::HookOptionKind::Priority(p) => match i32::try_from(*p) {
                    Ok(p) => priority = p,
                    Err(_) => {
                        let d = self.error(
                            "invalid-option",
                            format!("priority {p} is out of range"),
                            opt.span,
                            "too large",
                        );
                        self.emit(d.with_help("priorities are 32-bit integers; lower runs first"));
                    }
                },
                ast::HookOptionKind::Disabled => enabled = false,
                ast::HookOptionKind::Fail(mode) => fail = *mode,
                ast::HookOptionKind::Timeout(0) => {
                    let d = self.error(
                        "invalid-option",
                        "timeout must be greater than zero",
                        opt.span,
                        "zero timeout",
                    );
                    self.emit(d);
                }
                ast::HookOptionKind::Timeout(ms) => timeout_ms = Some(*ms),
            }
        }
        // Conditions, ANDed; `unless` negates. A `when` line's named regex
        // groups bind names for the lines and actions after it.
        self.captures.clear();
        let mut cond: Option<Expr> = None;
        let mut cond_spans: Option<CondSpans> = None;
        let mut conditions = Vec::new();
        for c in &hook.conditions {
            if let Some(name) = &c.binding {
                self.bind_let(name, &c.expr);
                continue;
            }
            let Some(e) = self.condition(&c.expr) else {
                continue;
            };
            let mut spans = self.cond_spans(&c.expr, self.file, 0);
            if !c.negated {
                self.bind_captures(&e, c.span);
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
            conditions.push(Spanned::new(e.clone(), c.span));
            cond = Some(match cond {
                None => e,
                Some(prev) => Expr::Binary(BinaryOp::And, Box::new(prev), Box::new(e)),
            });
            cond_spans = Some(match cond_spans {
                None => spans,
                Some(prev) => CondSpans {
                    file: self.file,
                    span: prev.span.to(c.span),
                    children: vec![prev, spans],
                },
            });
        }
        // Actions.
        let mut actions = Vec::new();
        for action in &hook.actions {
            if let Some(a) = self.action(action) {
                actions.push(Spanned::new(a, action.span));
            }
        }
        let new_errors = self.diagnostics.0.get(first_new..).is_some_and(|new| {
            new.iter()
                .any(|d| d.severity == crate::diag::Severity::Error)
        });
        if new_errors || self.points.is_empty() {
            return None;
        }
        let (line, col) = self.src().source.line_col(hook.span.start);
        Some(CheckedRule {
            id: hook.id.name.clone(),
            points: std::mem::take(&mut self.points),
            target,
            priority,
            enabled,
            fail,
            timeout_ms,
            cond,
            cond_spans,
            conditions,
            actions,
            origin: ir::Origin {
                file: u32::try_from(self.file).unwrap_or(u32::MAX),
                line,
                col,
            },
            file: self.file,
            span: hook.header_span,
        })
    }

    /// A condition: an expression that must be boolean.
    pub(super) fn condition(&mut self, e: &ast::Expr) -> Option<Expr> {
        let (expr, ty) = self.expr(e, Strings::Plain)?;
        match ty {
            Ty::Bool | Ty::Any => Some(expr),
            other => {
                let d = self
                    .error(
                        "type-mismatch",
                        format!("a condition must be a boolean, this is {}", other.name()),
                        e.span,
                        "not a boolean",
                    )
                    .with_help("compare it, e.g. `== \"value\"`, or test it with `exists`");
                self.emit(d);
                None
            }
        }
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
        // Macro cycles are reported by `expr`; stop following them here.
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
                    .scopes
                    .get(file)
                    .and_then(|scope| scope.get(&name.name))
                    .copied();
                let body = def.filter(|d| d.kind == DefKind::Macro).and_then(|d| {
                    match self.loaded.files.get(d.file)?.ast.items.get(d.item) {
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

fn unreachable_file() -> &'static LoadedFile {
    static EMPTY: std::sync::OnceLock<LoadedFile> = std::sync::OnceLock::new();
    EMPTY.get_or_init(|| LoadedFile {
        source: crate::span::SourceFile::new("", ""),
        ast: ast::File { items: Vec::new() },
        root: false,
        imports: Vec::new(),
        path: None,
    })
}

/// `name[1][2]` → (`name`, [1, 2]).
fn split_index(part: &str) -> (&str, Vec<Option<u32>>) {
    match part.find('[') {
        None => (part, Vec::new()),
        Some(i) => {
            let name = part.get(..i).unwrap_or("");
            let rest = part.get(i..).unwrap_or("");
            let indices = rest
                .split('[')
                .skip(1)
                .map(|s| s.strip_suffix(']').and_then(|n| n.parse().ok()))
                .collect();
            (name, indices)
        }
    }
}

fn display_segments(segments: &[ir::Segment]) -> String {
    let path = FieldPath {
        root: Root::Payload,
        segments: segments.to_vec(),
        normalized: false,
    };
    path.to_string()
        .trim_start_matches("payload")
        .trim_start_matches('.')
        .to_string()
}

/// Arrays of constants fold into one constant.
fn fold_array(items: Vec<Expr>) -> Expr {
    if items.iter().all(|e| matches!(e, Expr::Const(_))) {
        Expr::Const(Value::Array(
            items
                .into_iter()
                .filter_map(|e| match e {
                    Expr::Const(v) => Some(v),
                    _ => None,
                })
                .collect(),
        ))
    } else {
        Expr::Array(items)
    }
}

fn fold_object(fields: Vec<(String, Expr)>) -> Expr {
    if fields.iter().all(|(_, e)| matches!(e, Expr::Const(_))) {
        let mut map = serde_json::Map::new();
        for (k, e) in fields {
            if let Expr::Const(v) = e {
                map.insert(k, v);
            }
        }
        Expr::Const(Value::Object(map))
    } else {
        Expr::Object(fields)
    }
}

/// `-5` is a constant, not an operation.
fn fold_unary(op: UnaryOp, x: Expr) -> Expr {
    match (op, &x) {
        (UnaryOp::Neg, Expr::Const(Value::Number(n))) => {
            if let Some(i) = n.as_i64().and_then(i64::checked_neg) {
                return Expr::Const(Value::from(i));
            }
            if let Some(f) = n.as_f64() {
                if let Some(n) = serde_json::Number::from_f64(-f) {
                    return Expr::Const(Value::Number(n));
                }
            }
            Expr::Unary(op, Box::new(x))
        }
        _ => Expr::Unary(op, Box::new(x)),
    }
}
