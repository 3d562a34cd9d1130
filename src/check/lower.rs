//! Checking and lowering one rule: AST conditions and actions to IR
//! expressions and actions, with a diagnostic for every problem.

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
use crate::span::Span;
use crate::syntax::ast;
use serde_json::Value;
use std::collections::HashMap;

/// The regexes of a compilation, each once.
#[derive(Default)]
pub(super) struct Regexes {
    sources: Vec<RegexSource>,
    ids: HashMap<RegexSource, u32>,
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

    pub(super) fn into_sources(self) -> Vec<RegexSource> {
        self.sources
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
    pub(super) schema: &'a Schema,
    pub(super) points: Vec<(String, PointKind)>,
    pub(super) regexes: &'a mut Regexes,
    pub(super) diagnostics: &'a mut Diagnostics,
    pub(super) macro_stack: Vec<String>,
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
                    d = match suggest(
                        &point.name,
                        self.schema.points.iter().map(|p| p.name.as_str()),
                    ) {
                        Some(s) => d.with_help(format!("did you mean `{s}`?")),
                        None => d.with_help(format!(
                            "run `hookc lint --help` for the points of the `{}` schema",
                            self.schema.name
                        )),
                    };
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
                            .error("invalid-fql", format!("invalid FQL target `{}`", lit.value), span, e.kind().to_string())
                            .with_secondary(lit.span, "")
                            .with_help("write `scope::target[/child_path][#instance]`, each part a name or `*`");
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
        // Conditions, ANDed; `unless` negates.
        let mut cond: Option<Expr> = None;
        let mut cond_spans: Option<CondSpans> = None;
        let mut conditions = Vec::new();
        for c in &hook.conditions {
            let Some(e) = self.condition(&c.expr) else {
                continue;
            };
            let mut spans = self.cond_spans(&c.expr, self.file, 0);
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
            conditions.push((e.clone(), c.span));
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
        let mut action_spans = Vec::new();
        for action in &hook.actions {
            if let Some(a) = self.action(action) {
                actions.push(a);
                action_spans.push(action.span);
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
            action_spans,
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

    fn expr(&mut self, e: &ast::Expr, strings: Strings) -> Option<(Expr, Ty)> {
        use ast::ExprKind as K;
        Some(match &e.kind {
            K::Literal(v) => (Expr::Const(v.clone()), Ty::of_json(v)),
            K::Str(s) => match strings {
                Strings::Plain => (Expr::Const(Value::String(s.value.clone())), Ty::String),
                Strings::Templates => {
                    let t = self.template(s)?;
                    match t.as_literal() {
                        Some(text) => (Expr::Const(Value::String(text.to_string())), Ty::String),
                        None => (Expr::Template(t), Ty::String),
                    }
                }
            },
            K::Array(items) => {
                let mut out = Vec::new();
                for item in items {
                    out.push(self.expr(item, strings)?.0);
                }
                (fold_array(out), Ty::List)
            }
            K::Object(fields) => {
                let mut out = Vec::new();
                for (k, v) in fields {
                    out.push((k.value.clone(), self.expr(v, strings)?.0));
                }
                (fold_object(out), Ty::Object)
            }
            K::Path(p) => {
                let (path, ty) = self.path(p)?;
                (Expr::Path(path), ty)
            }
            K::Name(name) => return self.name(name, strings),
            K::Unary(op, inner) => {
                let (x, ty) = self.expr(inner, strings)?;
                let want_bool = *op == UnaryOp::Not;
                let ok = if want_bool {
                    matches!(ty, Ty::Bool | Ty::Any)
                } else {
                    ty.is_number() || ty == Ty::Any
                };
                if !ok {
                    let op_text = match op {
                        UnaryOp::Not => "not",
                        UnaryOp::Neg => "-",
                        UnaryOp::BitNot => "~",
                    };
                    let d = self.error(
                        "type-mismatch",
                        format!("`{op_text}` cannot apply to {}", ty.name()),
                        inner.span,
                        format!("this is {}", ty.name()),
                    );
                    self.emit(d);
                    return None;
                }
                let result_ty = if want_bool {
                    Ty::Bool
                } else if ty == Ty::Float {
                    Ty::Float
                } else {
                    Ty::Int
                };
                (fold_unary(*op, x), result_ty)
            }
            K::Binary(op, a, b) => {
                let (x, tx) = self.expr(a, strings)?;
                let (y, ty) = self.expr(b, strings)?;
                let result = self.binary_type(*op, tx, ty, a, b, e.span)?;
                (Expr::Binary(*op, Box::new(x), Box::new(y)), result)
            }
            K::ContainsAny(lhs, list) | K::In(lhs, list) => {
                let (x, tx) = self.expr(lhs, strings)?;
                let (y, ty) = self.expr(list, strings)?;
                if !matches!(ty, Ty::List | Ty::Any) {
                    let kw = if matches!(e.kind, K::In(..)) {
                        "in"
                    } else {
                        "contains any"
                    };
                    let d = self
                        .error(
                            "type-mismatch",
                            format!("`{kw}` needs a list, this is {}", ty.name()),
                            list.span,
                            "not a list",
                        )
                        .with_help("write a list literal `[\"a\", \"b\"]` or the name of a `list`");
                    self.emit(d);
                    return None;
                }
                if matches!(e.kind, K::ContainsAny(..))
                    && !matches!(tx, Ty::String | Ty::List | Ty::Object | Ty::Any)
                {
                    let d = self.error(
                        "type-mismatch",
                        format!("`contains any` cannot search {}", tx.name()),
                        lhs.span,
                        format!("this is {}", tx.name()),
                    );
                    self.emit(d);
                    return None;
                }
                let node = if matches!(e.kind, K::In(..)) {
                    Expr::In(Box::new(x), Box::new(y))
                } else {
                    Expr::ContainsAny(Box::new(x), Box::new(y))
                };
                (node, Ty::Bool)
            }
            K::Matches(lhs, re) => {
                let (x, tx) = self.expr(lhs, strings)?;
                self.expect_string_subject(tx, lhs, "matches")?;
                let id = self.regex_ref(re)?;
                (Expr::Matches(Box::new(x), id), Ty::Bool)
            }
            K::Glob(lhs, glob) => {
                let (x, tx) = self.expr(lhs, strings)?;
                self.expect_string_subject(tx, lhs, "glob")?;
                let id = self.glob(glob)?;
                (Expr::Matches(Box::new(x), id), Ty::Bool)
            }
            K::Exists(inner) => match &inner.kind {
                K::Path(p) => {
                    let (path, _) = self.path(p)?;
                    (Expr::Exists(path), Ty::Bool)
                }
                _ => {
                    let d = self
                        .error(
                            "type-mismatch",
                            "`exists` needs a field path",
                            inner.span,
                            "not a field",
                        )
                        .with_help("write e.g. `payload.args exists`");
                    self.emit(d);
                    return None;
                }
            },
            K::Rate(r) => (self.rate(r, e.span, strings)?, Ty::Bool),
        })
    }

    /// A `rate(…)` test: only in conditions, with an ordering comparison, a
    /// limit the counter can keep, and a window.
    fn rate(&mut self, r: &ast::Rate, span: Span, strings: Strings) -> Option<Expr> {
        if strings == Strings::Templates {
            let d = self
                .error(
                    "rate-outside-condition",
                    "`rate(…)` can only be used in `when` and `unless`",
                    span,
                    "counts events, so it is a condition",
                )
                .with_help("test it in a `when` line of the rule");
            self.emit(d);
            return None;
        }
        let op = match r.op {
            ast::BinaryOp::Gt => CmpOp::Gt,
            ast::BinaryOp::Ge => CmpOp::Ge,
            ast::BinaryOp::Lt => CmpOp::Lt,
            ast::BinaryOp::Le => CmpOp::Le,
            _ => {
                let d = self
                    .error(
                        "type-mismatch",
                        "a rate is compared with `>`, `>=`, `<` or `<=`",
                        span,
                        "not an ordering",
                    )
                    .with_help("e.g. `rate(\"{component}\") > 100 per 60s`");
                self.emit(d);
                return None;
            }
        };
        if !(r.limit.is_finite() && (0.0..=MAX_RATE_LIMIT).contains(&r.limit)) {
            let d = self
                .error(
                    "limit",
                    format!("a rate limit must be between 0 and {MAX_RATE_LIMIT}"),
                    r.limit_span,
                    "out of range",
                )
                .with_help(
                    "counters keep one arrival per counted event up to the limit, so it is bounded",
                );
            self.emit(d);
            return None;
        }
        if r.window_ms == 0 {
            let d = self
                .error(
                    "limit",
                    "a rate window must be longer than 0",
                    span,
                    "empty window",
                )
                .with_help("e.g. `per 60s`");
            self.emit(d);
            return None;
        }
        let key = self.template(&r.key)?;
        Some(Expr::Rate(RateTest {
            key,
            op,
            limit: r.limit,
            window_ms: r.window_ms,
            // Assigned by the compiler.
            counter: 0,
        }))
    }

    fn expect_string_subject(&mut self, ty: Ty, subject: &ast::Expr, op: &str) -> Option<()> {
        if matches!(ty, Ty::String | Ty::Any) {
            return Some(());
        }
        let d = self
            .error(
                "type-mismatch",
                format!("`{op}` needs a string, this is {}", ty.name()),
                subject.span,
                format!("this is {}", ty.name()),
            )
            .with_help(format!("`{op}` tests strings only"));
        self.emit(d);
        None
    }

    fn binary_type(
        &mut self,
        op: BinaryOp,
        a: Ty,
        b: Ty,
        ea: &ast::Expr,
        eb: &ast::Expr,
        span: Span,
    ) -> Option<Ty> {
        let mismatch = |this: &mut Self, why: String| {
            let d = this
                .error("type-mismatch", why, span, "")
                .with_secondary(ea.span, format!("this is {}", a.name()))
                .with_secondary(eb.span, format!("this is {}", b.name()));
            this.emit(d);
            None
        };
        match op {
            BinaryOp::And | BinaryOp::Or => {
                if matches!(a, Ty::Bool | Ty::Any) && matches!(b, Ty::Bool | Ty::Any) {
                    Some(Ty::Bool)
                } else {
                    mismatch(
                        self,
                        format!(
                            "`{}` needs booleans, found {} and {}",
                            op.as_str(),
                            a.name(),
                            b.name()
                        ),
                    )
                }
            }
            BinaryOp::Eq | BinaryOp::Ne => {
                if a.comparable(b) {
                    Some(Ty::Bool)
                } else {
                    mismatch(
                        self,
                        format!("{} and {} can never be equal", a.name(), b.name()),
                    )
                }
            }
            BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge => {
                let ok = a == Ty::Any
                    || b == Ty::Any
                    || (a.is_number() && b.is_number())
                    || (a == Ty::String && b == Ty::String);
                if ok {
                    Some(Ty::Bool)
                } else {
                    mismatch(
                        self,
                        format!(
                            "`{}` cannot order {} and {}",
                            op.as_str(),
                            a.name(),
                            b.name()
                        ),
                    )
                }
            }
            BinaryOp::Contains => {
                let ok = match a {
                    Ty::String => matches!(b, Ty::String | Ty::Any),
                    Ty::List | Ty::Object | Ty::Any => true,
                    _ => false,
                };
                if ok {
                    Some(Ty::Bool)
                } else {
                    mismatch(self, format!("{} cannot contain {}", a.name(), b.name()))
                }
            }
            BinaryOp::StartsWith | BinaryOp::EndsWith => {
                if matches!(a, Ty::String | Ty::Any) && matches!(b, Ty::String | Ty::Any) {
                    Some(Ty::Bool)
                } else {
                    mismatch(
                        self,
                        format!(
                            "`{}` needs strings, found {} and {}",
                            op.as_str(),
                            a.name(),
                            b.name()
                        ),
                    )
                }
            }
            BinaryOp::Add if a == Ty::String && b == Ty::String => Some(Ty::String),
            BinaryOp::BitOr
            | BinaryOp::BitXor
            | BinaryOp::BitAnd
            | BinaryOp::Shl
            | BinaryOp::Shr => {
                if matches!(a, Ty::Int | Ty::Any) && matches!(b, Ty::Int | Ty::Any) {
                    Some(Ty::Int)
                } else {
                    mismatch(
                        self,
                        format!(
                            "`{}` needs integers, found {} and {}",
                            op.as_str(),
                            a.name(),
                            b.name()
                        ),
                    )
                }
            }
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem => {
                if (a.is_number() || a == Ty::Any) && (b.is_number() || b == Ty::Any) {
                    Some(if a == Ty::Float || b == Ty::Float {
                        Ty::Float
                    } else {
                        Ty::Int
                    })
                } else {
                    mismatch(
                        self,
                        format!(
                            "`{}` needs numbers, found {} and {}",
                            op.as_str(),
                            a.name(),
                            b.name()
                        ),
                    )
                }
            }
        }
    }

    /// Resolves a path: a known root, fields only where the root has them.
    fn path(&mut self, p: &ast::Path) -> Option<(FieldPath, Ty)> {
        let Some(root) = Root::from_name(&p.root.name) else {
            let roots: Vec<&str> = Root::ALL.iter().map(|r| r.as_str()).collect();
            let mut d = self.error(
                "unknown-field",
                format!("unknown context field `{}`", p.root.name),
                p.root.span,
                "not a field of the hook context",
            );
            d = match suggest(&p.root.name, roots.iter().copied()) {
                Some(s) => d.with_help(format!("did you mean `{s}`?")),
                None => d.with_help(format!("paths start with one of: {}", roots.join(", "))),
            };
            self.emit(d);
            return None;
        };
        let segments: Vec<ir::Segment> = p.segments.clone();
        let scalar = !matches!(root, Root::Payload | Root::Metadata | Root::Principal);
        let principal_ok = root != Root::Principal
            || matches!(segments.as_slice(), [] | [ir::Segment::Field(_)])
                && segments
                    .iter()
                    .all(|s| matches!(s, ir::Segment::Field(f) if f == "type" || f == "id"));
        if (scalar && !segments.is_empty()) || !principal_ok {
            let d = self
                .error(
                    "unknown-field",
                    format!(
                        "`{}` has no field `{}`",
                        root.as_str(),
                        display_segments(&segments)
                    ),
                    p.span,
                    "no such field",
                )
                .with_help(if root == Root::Principal {
                    "`principal` has `type` and `id`".to_string()
                } else {
                    format!("`{}` is a single value", root.as_str())
                });
            self.emit(d);
            return None;
        }
        let fields: Vec<&str> = segments
            .iter()
            .map_while(|s| match s {
                ir::Segment::Field(f) => Some(f.as_str()),
                ir::Segment::Index(_) => None,
            })
            .collect();
        if root == Root::Payload && !fields.is_empty() {
            self.check_payload_field(&fields, p.span);
        }
        let ty = if fields.len() == segments.len() {
            let mut types = self
                .points
                .iter()
                .map(|(point, _)| self.schema.field_type(point, root.as_str(), &fields));
            match types.next() {
                Some(Some(first)) if types.all(|t| t == Some(first)) => Ty::from_field(first),
                _ => Ty::Any,
            }
        } else {
            Ty::Any
        };
        Some((FieldPath { root, segments }, ty))
    }

    /// Warns (`unknown-field`) when the schema declares the payload of a
    /// point of the rule and `payload.<fields>` is not part of it.
    fn check_payload_field(&mut self, fields: &[&str], span: Span) {
        let unknown: Vec<&str> = self
            .points
            .iter()
            .filter(|(point, _)| self.schema.payload_field(point, fields) == FieldLookup::Unknown)
            .map(|(point, _)| point.as_str())
            .collect();
        let Some(first) = unknown.first().copied() else {
            return;
        };
        let shown = format!("payload.{}", fields.join("."));
        let at = unknown
            .iter()
            .map(|p| format!("`{p}`"))
            .collect::<Vec<_>>()
            .join(", ");
        let mut d = Diagnostic::warning("unknown-field", format!("unknown field `{shown}`"))
            .in_file(&self.src().source)
            .with_primary(
                span,
                format!("not declared at {at} by the `{}` schema", self.schema.name),
            );
        d = match self.suggest_field(first, fields) {
            Some(s) => d.with_help(format!("did you mean `{s}`?")),
            None => d.with_help(format!(
                "the `{}` schema does not declare it at {at}, so it reads as null there",
                self.schema.name
            )),
        };
        // A macro used by several rules reports its field once: the
        // checker drops repeats when it is done (`dedup_unknown_fields`).
        self.emit(d);
    }

    /// A declared path close to `payload.<fields>` at `point`: the first
    /// field the schema does not know, swapped for its closest sibling.
    fn suggest_field(&self, point: &str, fields: &[&str]) -> Option<String> {
        let def = self.schema.point(point)?;
        let known = |n: usize| -> bool {
            let Some(prefix) = fields.get(..n) else {
                return false;
            };
            def.payload
                .iter()
                .any(|f| f.path.split('.').eq(prefix.iter().copied()))
        };
        // The longest declared prefix is the parent of the misspelt field.
        let parent_len = (1..fields.len()).take_while(|&n| known(n)).count();
        let parent = fields.get(..parent_len)?;
        let typo = fields.get(parent_len)?;
        let siblings: Vec<&str> = def
            .payload
            .iter()
            .filter_map(|f| {
                let mut parts = f.path.split('.');
                let head: Vec<&str> = parts.by_ref().take(parent_len).collect();
                let name = parts.next()?;
                (head.as_slice() == parent && parts.next().is_none()).then_some(name)
            })
            .collect();
        let best = suggest(typo, siblings.iter().copied())?;
        let mut out: Vec<&str> = vec!["payload"];
        out.extend_from_slice(parent);
        out.push(best);
        out.extend_from_slice(fields.get(parent_len + 1..).unwrap_or_default());
        Some(out.join("."))
    }

    /// The schema's word on an edited payload field: its type, whether it is
    /// optional, and a point that types it.
    fn declared(&self, path: &FieldPath) -> Option<(FieldType, bool, String)> {
        if path.root != Root::Payload {
            return None;
        }
        let fields: Vec<&str> = path
            .segments
            .iter()
            .map(|s| match s {
                ir::Segment::Field(f) => Some(f.as_str()),
                ir::Segment::Index(_) => None,
            })
            .collect::<Option<_>>()?;
        let mut found: Option<(FieldType, bool, String)> = None;
        for (point, _) in &self.points {
            match self.schema.payload_field(point, &fields) {
                FieldLookup::Known(def) => match &mut found {
                    None => found = Some((def.ty, def.optional, point.clone())),
                    Some((ty, optional, _)) => {
                        if *ty != def.ty {
                            return None;
                        }
                        *optional |= def.optional;
                    }
                },
                _ => return None,
            }
        }
        found.filter(|(ty, _, _)| *ty != FieldType::Any)
    }

    /// Refuses a `set` that gives a typed field a value of another type.
    fn check_set_type(
        &mut self,
        path: &FieldPath,
        target: &ast::Path,
        value: &ast::Expr,
        vty: Ty,
    ) -> Option<()> {
        let Some((ty, optional, point)) = self.declared(path) else {
            return Some(());
        };
        let fty = Ty::from_field(ty);
        let fits = match vty {
            Ty::Any => true,
            Ty::Null => optional,
            Ty::Int => fty.is_number(),
            other => other == fty,
        };
        if fits {
            return Some(());
        }
        let mut d = self
            .error(
                "type-mismatch",
                format!(
                    "cannot set `{path}` to {}: it is {}",
                    vty.name(),
                    fty.name()
                ),
                value.span,
                format!("this is {}", vty.name()),
            )
            .with_secondary(target.span, fty.name());
        d = if vty == Ty::Null {
            d.with_help(format!(
                "the `{}` schema requires `{path}` at `{point}`, so it cannot be null",
                self.schema.name
            ))
        } else {
            d.with_help(format!(
                "the `{}` schema types `{path}` as `{ty}` at `{point}`",
                self.schema.name
            ))
        };
        self.emit(d);
        None
    }

    /// Refuses a string edit (`rewrite`, `prepend`, `append`) of a field the
    /// schema types as something else.
    fn check_string_edit(
        &mut self,
        path: &FieldPath,
        target: &ast::Path,
        what: &str,
    ) -> Option<()> {
        let Some((ty, _, point)) = self.declared(path) else {
            return Some(());
        };
        if ty == FieldType::String {
            return Some(());
        }
        let name = Ty::from_field(ty).name();
        let d = self
            .error(
                "type-mismatch",
                format!("`{what}` edits strings, `{path}` is {name}"),
                target.span,
                name,
            )
            .with_help(format!(
                "the `{}` schema types `{path}` as `{ty}` at `{point}`; give it a new value with `set`",
                self.schema.name
            ));
        self.emit(d);
        None
    }

    /// Refuses an action that blocks (`abort`, `deny`, `ask`, `skip`) at
    /// points that cannot block.
    fn check_blocking(&mut self, action: &ast::Action) -> Option<()> {
        let passive: Vec<String> = self
            .points
            .iter()
            .filter(|(name, _)| self.schema.point(name).is_some_and(|p| !p.blocking))
            .map(|(name, _)| format!("`{name}`"))
            .collect();
        if passive.is_empty() {
            return Some(());
        }
        let text = self.src().source.slice(action.span);
        let keyword = if text.starts_with("deny") {
            "deny"
        } else {
            action.kind.keyword()
        };
        let list = passive.join(", ");
        let (subject, verb) = if passive.len() == 1 {
            ("point", "cannot block, it only observes")
        } else {
            ("points", "cannot block, they only observe")
        };
        let d = self
            .error(
                "cannot-block",
                format!("`{keyword}` is not allowed at {list}"),
                action.span,
                format!("the {subject} {verb}"),
            )
            .with_help(format!(
                "{list} cannot block in the `{}` schema; add context with `context \"…\"` or record it with `log`",
                self.schema.name
            ));
        self.emit(d);
        None
    }

    fn name(&mut self, name: &ast::Ident, strings: Strings) -> Option<(Expr, Ty)> {
        let Some(def) = self.scope.get(&name.name).copied() else {
            let mut d = self.error(
                "unknown-name",
                format!("unknown name `{}`", name.name),
                name.span,
                "not defined",
            );
            let known: Vec<&str> = self.scope.keys().map(String::as_str).collect();
            let roots = Root::ALL.iter().map(|r| r.as_str());
            d = match suggest(&name.name, known.iter().copied().chain(roots)) {
                Some(s) => d.with_help(format!("did you mean `{s}`?")),
                None => d.with_help(
                    "define it with `list`, `pattern` or `macro`, or import the file that does",
                ),
            };
            self.emit(d);
            return None;
        };
        match def.kind {
            DefKind::List => {
                let items = self.list_items(def)?;
                Some((Expr::Const(Value::Array(items)), Ty::List))
            }
            DefKind::Macro => {
                if self.macro_stack.contains(&name.name) {
                    let chain = self.macro_stack.join(" -> ");
                    let d = self
                        .error(
                            "macro-cycle",
                            format!("macro `{}` refers to itself", name.name),
                            name.span,
                            "used here",
                        )
                        .with_help(format!("the macros form a cycle: {chain} -> {}", name.name));
                    self.emit(d);
                    return None;
                }
                let body = self
                    .def_file(def)
                    .and_then(|f| match f.ast.items.get(def.item) {
                        Some(ast::Item::Macro(m)) => Some(m.body.clone()),
                        _ => None,
                    })?;
                // The body resolves in the macro's own file.
                let saved = (self.file, self.scope);
                self.file = def.file;
                self.scope = self.scopes.get(def.file).unwrap_or(self.scope);
                self.macro_stack.push(name.name.clone());
                let out = self.expr(&body, strings);
                self.macro_stack.pop();
                (self.file, self.scope) = saved;
                out
            }
            DefKind::Pattern => {
                let d = self
                    .error(
                        "wrong-kind",
                        format!("`{}` is a pattern, not a value", name.name),
                        name.span,
                        "a regex",
                    )
                    .with_help(format!(
                        "test a field against it: `payload.x matches {}`",
                        name.name
                    ));
                self.emit(d);
                None
            }
        }
    }

    fn def_file(&self, def: Def) -> Option<&'a LoadedFile> {
        self.loaded.files.get(def.file)
    }

    fn list_items(&mut self, def: Def) -> Option<Vec<Value>> {
        let file = self.def_file(def)?;
        let Some(ast::Item::List(list)) = file.ast.items.get(def.item) else {
            return None;
        };
        let mut out = Vec::new();
        for item in &list.items {
            match &item.kind {
                ast::ExprKind::Literal(v) => out.push(v.clone()),
                ast::ExprKind::Str(s) => out.push(Value::String(s.value.clone())),
                _ => {
                    let d = Diagnostic::error("invalid-list", "list elements must be literals")
                        .in_file(&file.source)
                        .with_primary(item.span, "not a literal")
                        .with_help("lists hold strings, numbers, booleans or null");
                    self.emit(d);
                    return None;
                }
            }
        }
        Some(out)
    }

    fn regex_ref(&mut self, re: &ast::RegexRef) -> Option<RegexId> {
        match re {
            ast::RegexRef::Literal(lit) => self.regex(lit, self.file),
            ast::RegexRef::Name(name) => {
                let def = self.scope.get(&name.name).copied();
                match def {
                    Some(def) if def.kind == DefKind::Pattern => {
                        let file = self.def_file(def)?;
                        let Some(ast::Item::Pattern(p)) = file.ast.items.get(def.item) else {
                            return None;
                        };
                        self.regex(&p.regex, def.file)
                    }
                    Some(def) => {
                        let d = self
                            .error(
                                "wrong-kind",
                                format!("`{}` is a {}, not a pattern", name.name, def.kind.as_str()),
                                name.span,
                                "not a regex",
                            )
                            .with_help("`matches` and `rewrite` take a regex literal `/…/` or a `pattern` name");
                        self.emit(d);
                        None
                    }
                    None => {
                        let patterns: Vec<&str> = self
                            .scope
                            .iter()
                            .filter(|(_, d)| d.kind == DefKind::Pattern)
                            .map(|(n, _)| n.as_str())
                            .collect();
                        let mut d = self.error(
                            "unknown-name",
                            format!("unknown pattern `{}`", name.name),
                            name.span,
                            "not defined",
                        );
                        d = match suggest(&name.name, patterns.iter().copied()) {
                            Some(s) => d.with_help(format!("did you mean `{s}`?")),
                            None => d.with_help("define it with `pattern NAME = /regex/`"),
                        };
                        self.emit(d);
                        None
                    }
                }
            }
        }
    }

    /// Validates a regex literal (errors point inside it) and interns it.
    /// The literal is in file `file` (a pattern may live in an import).
    fn regex(&mut self, lit: &ast::RegexLit, file: usize) -> Option<RegexId> {
        let source = self.loaded.files.get(file).map(|f| f.source.clone())?;
        if let Some(bad) = lit.flags.chars().find(|c| !REGEX_FLAGS.contains(*c)) {
            let d = Diagnostic::error("invalid-regex", format!("unknown regex flag `{bad}`"))
                .in_file(&source)
                .with_primary(lit.span, "in these flags")
                .with_help("flags are i (case-insensitive), m (multi-line), s (dot matches newline), x (verbose), U (swap greed)");
            self.emit(d);
            return None;
        }
        let mut parser = regex_syntax::ParserBuilder::new();
        parser
            .case_insensitive(lit.flags.contains('i'))
            .multi_line(lit.flags.contains('m'))
            .dot_matches_new_line(lit.flags.contains('s'))
            .ignore_whitespace(lit.flags.contains('x'))
            .swap_greed(lit.flags.contains('U'))
            .nest_limit(100);
        if let Err(e) = parser.build().parse(&lit.pattern) {
            let (span, kind) = match &e {
                regex_syntax::Error::Parse(p) => (Some(*p.span()), p.kind().to_string()),
                regex_syntax::Error::Translate(t) => (Some(*t.span()), t.kind().to_string()),
                _ => (None, e.to_string()),
            };
            // The pattern is the body with `\/` and raw control characters
            // rewritten: map its offsets back to the body's.
            let body = source.slice(lit.pattern_span);
            let inner = span.map_or(lit.pattern_span, |s| {
                let at = |offset: usize| {
                    lit.pattern_span.start as usize + crate::syntax::regex_body_offset(body, offset)
                };
                let start = at(s.start.offset);
                let end =
                    at(s.end.offset.max(s.start.offset + 1)).min(lit.pattern_span.end as usize);
                Span::new(start, end.max(start))
            });
            let d = Diagnostic::error("invalid-regex", format!("invalid regex: {kind}"))
                .in_file(&source)
                .with_primary(inner, kind)
                .with_help("the syntax is that of the Rust regex crate");
            self.emit(d);
            return None;
        }
        let source = RegexSource {
            pattern: lit.pattern.clone(),
            flags: lit.flags.clone(),
        };
        if let Err(e) = regex::RegexBuilder::new(&source.to_inline())
            .size_limit(crate::table::REGEX_SIZE_LIMIT)
            .build()
        {
            let d = self
                .error(
                    "invalid-regex",
                    "regex is too large",
                    lit.span,
                    e.to_string(),
                )
                .with_help("split it into several rules or simplify it");
            self.emit(d);
            return None;
        }
        Some(self.regexes.intern(source))
    }

    fn glob(&mut self, glob: &ast::StrLit) -> Option<RegexId> {
        match globset::GlobBuilder::new(&glob.value)
            .literal_separator(true)
            .build()
        {
            Ok(g) => {
                let re = g.regex();
                let pattern = re.strip_prefix("(?-u)").unwrap_or(re).to_string();
                let source = RegexSource {
                    pattern,
                    flags: String::new(),
                };
                if regex::Regex::new(&source.to_inline()).is_err() {
                    let d = self.error(
                        "invalid-glob",
                        format!("glob `{}` cannot be compiled", glob.value),
                        glob.span,
                        "here",
                    );
                    self.emit(d);
                    return None;
                }
                Some(self.regexes.intern(source))
            }
            Err(e) => {
                let d = self
                    .error("invalid-glob", format!("invalid glob: {}", e.kind()), glob.span, "in this glob")
                    .with_help("globs use `*` (within a path segment), `**` (across segments), `?` and `[abc]`");
                self.emit(d);
                None
            }
        }
    }

    /// Splits a string literal into a template: `{path}` holes, `{{`/`}}` for
    /// braces.
    fn template(&mut self, lit: &ast::StrLit) -> Option<Template> {
        let mut parts = Vec::new();
        let mut text = String::new();
        let mut rest = lit.value.as_str();
        let mut ok = true;
        while let Some(i) = rest.find(['{', '}']) {
            let (before, after) = rest.split_at(i);
            text.push_str(before);
            if let Some(tail) = after.strip_prefix("{{") {
                text.push('{');
                rest = tail;
            } else if let Some(tail) = after.strip_prefix("}}") {
                text.push('}');
                rest = tail;
            } else if let Some(tail) = after.strip_prefix('{') {
                let Some(close) = tail.find('}') else {
                    let d = self
                        .error(
                            "invalid-template",
                            "unclosed `{` in template",
                            lit.span,
                            "in this string",
                        )
                        .with_help("write `{{` for a literal brace");
                    self.emit(d);
                    return None;
                };
                let hole = tail.get(..close).unwrap_or("").trim();
                match self.template_path(hole, lit) {
                    Some(path) => {
                        if !text.is_empty() {
                            parts.push(TemplatePart::Lit(std::mem::take(&mut text)));
                        }
                        parts.push(TemplatePart::Path(path));
                    }
                    None => ok = false,
                }
                rest = tail.get(close + 1..).unwrap_or("");
            } else {
                let d = self
                    .error(
                        "invalid-template",
                        "unmatched `}` in template",
                        lit.span,
                        "in this string",
                    )
                    .with_help("write `}}` for a literal brace");
                self.emit(d);
                return None;
            }
        }
        text.push_str(rest);
        if !text.is_empty() || parts.is_empty() {
            parts.push(TemplatePart::Lit(text));
        }
        ok.then_some(Template { parts })
    }

    fn template_path(&mut self, hole: &str, lit: &ast::StrLit) -> Option<FieldPath> {
        let raw = self.src().source.slice(lit.span);
        let span = raw.find(&format!("{{{hole}}}")).map_or(lit.span, |i| {
            Span::new(
                lit.span.start as usize + i,
                lit.span.start as usize + i + hole.len() + 2,
            )
        });
        let mut segments = Vec::new();
        let mut chars = hole.split('.');
        let root_text = chars.next().unwrap_or("");
        let (root_name, first_index) = split_index(root_text);
        let bad = |this: &mut Self, why: &str| {
            let d = this
                .error(
                    "invalid-template",
                    format!("invalid template hole `{{{hole}}}`"),
                    span,
                    why.to_string(),
                )
                .with_help("holes are field paths such as `{payload.args}` or `{principal.id}`");
            this.emit(d);
            None
        };
        if root_name.is_empty() {
            return bad(self, "empty hole");
        }
        for i in first_index {
            segments.push(ir::Segment::Index(i?));
        }
        for part in chars {
            let (name, indices) = split_index(part);
            if name.is_empty()
                || !name
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
            {
                return bad(self, "not a field path");
            }
            segments.push(ir::Segment::Field(name.to_string()));
            for i in indices {
                segments.push(ir::Segment::Index(i?));
            }
        }
        let path = ast::Path {
            root: ast::Ident {
                name: root_name.to_string(),
                span,
            },
            segments,
            span,
        };
        self.path(&path).map(|(p, _)| p)
    }

    fn editable(&mut self, p: &ast::Path) -> Option<FieldPath> {
        let (path, _) = self.path(p)?;
        if path.root.is_editable() {
            Some(path)
        } else {
            let d = self
                .error(
                    "not-editable",
                    format!("`{}` cannot be edited", path.root.as_str()),
                    p.span,
                    "read-only",
                )
                .with_help("rules may edit `payload` and `metadata`");
            self.emit(d);
            None
        }
    }

    fn action(&mut self, action: &ast::Action) -> Option<Action> {
        use ast::ActionKind as A;
        Some(match &action.kind {
            A::Continue => Action::Continue,
            A::Abort(reason) => {
                let reason = match reason {
                    Some(r) => self.template(r),
                    None => Some(Template::literal("denied by rule")),
                };
                self.check_blocking(action)?;
                Action::Abort(reason?)
            }
            A::Skip(value) => {
                let value = match value {
                    Some(v) => self.expr(v, Strings::Templates).map(|(e, _)| e),
                    None => Some(Expr::Const(Value::Null)),
                };
                self.check_blocking(action)?;
                Action::Skip(value?)
            }
            A::Replace(value) => {
                let not_post: Vec<String> = self
                    .points
                    .iter()
                    .filter(|(_, k)| *k != PointKind::Post)
                    .map(|(n, k)| format!("`{n}` ({k})"))
                    .collect();
                if !not_post.is_empty() {
                    let d = self
                        .error(
                            "replace-not-post",
                            format!("`replace` is only allowed at post points, not at {}", not_post.join(", ")),
                            action.span,
                            "replaces the result",
                        )
                        .with_help("at pre points, edit the input with `set`, or end the chain with `skip <value>`");
                    self.emit(d);
                    return None;
                }
                Action::Replace(self.expr(value, Strings::Templates)?.0)
            }
            A::Set(path, value) => {
                let target = self.editable(path);
                let (v, vty) = self.expr(value, Strings::Templates)?;
                let target = target?;
                self.check_set_type(&target, path, value, vty)?;
                Action::Set(target, v)
            }
            A::Unset(path) => Action::Unset(self.editable(path)?),
            A::Rewrite(path, re, replacement) => {
                let target = self.editable(path);
                let id = self.regex_ref(re)?;
                let target = target?;
                self.check_string_edit(&target, path, "rewrite")?;
                Action::Rewrite(target, id, replacement.value.clone())
            }
            A::Prepend(path, text) | A::Append(path, text) => {
                let target = self.editable(path);
                let t = self.template(text)?;
                let target = target?;
                self.check_string_edit(&target, path, action.kind.keyword())?;
                if matches!(action.kind, A::Prepend(..)) {
                    Action::Prepend(target, t)
                } else {
                    Action::Append(target, t)
                }
            }
            A::Meta(key, value) => {
                Action::Meta(key.value.clone(), self.expr(value, Strings::Templates)?.0)
            }
            A::Log(level, message) => {
                let Some(lvl) = LogLevel::from_name(&level.name) else {
                    let d = self
                        .error(
                            "unknown-level",
                            format!("unknown log level `{}`", level.name),
                            level.span,
                            "not a level",
                        )
                        .with_help("levels are trace, debug, info, warn, error");
                    self.emit(d);
                    return None;
                };
                Action::Log(lvl, self.template(message)?)
            }
            A::Ask(reason) => {
                let reason = match reason {
                    Some(r) => self.template(r),
                    None => Some(Template::literal("confirmation required by rule")),
                };
                self.check_blocking(action)?;
                Action::Ask(reason?)
            }
            A::Allow => Action::Allow,
            A::Context(text) => Action::Context(self.template(text)?),
            A::Exec(program, args) => Action::Exec {
                program: program.value.clone(),
                args: args.iter().map(|a| a.value.clone()).collect(),
                shell: false,
            },
            A::Sh(script) => Action::Exec {
                program: script.value.clone(),
                args: Vec::new(),
                shell: true,
            },
            A::Webhook(w) => {
                // Every path is checked (and reported) before giving up.
                let include: Vec<Option<FieldPath>> = w
                    .include
                    .iter()
                    .map(|p| self.path(p).map(|(path, _)| path))
                    .collect();
                Action::Webhook {
                    url: w.url.value.clone(),
                    include: include.into_iter().collect::<Option<Vec<_>>>()?,
                    headers: w
                        .headers
                        .iter()
                        .map(|(name, value)| (name.value.clone(), value.value.clone()))
                        .collect(),
                }
            }
            A::Call(name) => Action::Call(name.value.clone()),
            A::CallLua(file) => Action::Lua(LuaCode::File(file.value.clone())),
            A::Lua(code) => Action::Lua(LuaCode::Inline(code.value.clone())),
            A::Trace(file, fields) => {
                // Every path is checked (and reported) before giving up.
                let fields: Vec<Option<FieldPath>> = fields
                    .iter()
                    .map(|p| self.path(p).map(|(path, _)| path))
                    .collect();
                Action::Trace {
                    file: file.value.clone(),
                    fields: fields.into_iter().collect::<Option<Vec<_>>>()?,
                }
            }
        })
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

/// A static type, as far as the checker knows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ty {
    String,
    Int,
    Float,
    Bool,
    List,
    Object,
    Null,
    Any,
}

impl Ty {
    fn of_json(v: &Value) -> Ty {
        match v {
            Value::Null => Ty::Null,
            Value::Bool(_) => Ty::Bool,
            Value::Number(n) if n.is_i64() || n.is_u64() => Ty::Int,
            Value::Number(_) => Ty::Float,
            Value::String(_) => Ty::String,
            Value::Array(_) => Ty::List,
            Value::Object(_) => Ty::Object,
        }
    }

    fn from_field(t: FieldType) -> Ty {
        match t {
            FieldType::String => Ty::String,
            FieldType::Int => Ty::Int,
            FieldType::Float => Ty::Float,
            FieldType::Bool => Ty::Bool,
            FieldType::List => Ty::List,
            FieldType::Object => Ty::Object,
            FieldType::Any => Ty::Any,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Ty::String => "a string",
            Ty::Int => "an int",
            Ty::Float => "a float",
            Ty::Bool => "a bool",
            Ty::List => "a list",
            Ty::Object => "an object",
            Ty::Null => "null",
            Ty::Any => "any value",
        }
    }

    fn is_number(self) -> bool {
        matches!(self, Ty::Int | Ty::Float)
    }

    /// True when values of the two types can be equal.
    fn comparable(self, other: Ty) -> bool {
        self == other
            || matches!(self, Ty::Any | Ty::Null)
            || matches!(other, Ty::Any | Ty::Null)
            || (self.is_number() && other.is_number())
    }
}
