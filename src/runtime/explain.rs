//! Why each rule of a point fired or did not: [`Table::explain`].
//!
//! An explanation comes from the compiled table, never from a second
//! evaluator. [`Table::explain`] runs a real dispatch with an observer that
//! the chain shows every rule of the point to, in order, on the context as it
//! is when the chain gets there (edits made by earlier rules included). The
//! observer evaluates each atom of the rule's condition with the dispatch's
//! own matchers (the field DFAs, literal automata and hash lookups, or the
//! atom evaluator), renders the atom, and records what the rule's actions
//! did. The final outcome is that of a plain dispatch on a copy of the
//! context.
//!
//! Effects (`exec`, `webhook`, `call`) do not run in this version of the
//! runtime, so explaining an event has no side effects.

use super::eval;
use super::{AsPoint, HookContext, Observer, Probe, Reach, Report, Run, Target};
use crate::diag::escape;
use crate::event::json_eq;
use crate::fql::{split_component, FqlPattern};
use crate::ir::{
    Action, Atom, Cond, Expr, LuaCode, Origin, Program, RegexId, Template, TemplatePart, UnaryOp,
};
use crate::schema::PointKind;
use crate::table::Table;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::borrow::Cow;
use std::fmt::{self, Write as _};

/// Why every rule of a point fired or did not, for one event.
///
/// As JSON (`hookc explain --format json`):
///
/// ```json
/// {"point": "tool.pre_execute", "kind": "pre", "schema": "orcs",
///  "target": "builtin::llm",
///  "rules": [{"id": "block-rm", "origin": {"file": "guard.hooks", "line": 3, "col": 1},
///             "priority": 10, "enabled": true,
///             "target": {"pattern": "*::*", "matched": true},
///             "condition": {"op": "atom", "value": true,
///                           "atom": "payload.args contains \"rm -rf\"",
///                           "fields": [{"path": "payload.args", "value": "rm -rf /"}],
///                           "at": {"file": "guard.hooks", "line": 4, "col": 10}},
///             "matched": true, "status": "fired",
///             "actions": [{"action": "abort \"blocked\"", "result": "blocked"}],
///             "changes": []}],
///  "outcome": { … the report of `hookc eval` … },
///  "notes": []}
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Explanation {
    /// The hook point.
    pub point: String,
    /// Its kind; `None` when the table has no rules there.
    pub kind: Option<PointKind>,
    /// The schema the rules were checked against.
    pub schema: String,
    /// The target, `scope::name[/child][#instance]`.
    pub target: String,
    /// Every rule of the point, in execution order.
    pub rules: Vec<RuleExplanation>,
    /// What a dispatch of the event decides.
    pub outcome: Report,
    /// Anything odd found on the way (the observed chain disagreeing with
    /// the plain dispatch would be a bug).
    pub notes: Vec<String>,
}

/// A place in a rule file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Location {
    /// The file, as named when compiling.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.col)
    }
}

/// One rule, as the chain saw it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RuleExplanation {
    /// The rule's id.
    pub id: String,
    /// Where it is written (the `hook` keyword).
    pub origin: Location,
    /// Its priority.
    pub priority: i32,
    /// False for `disabled` rules.
    pub enabled: bool,
    /// Whether its FQL target matches the event's target.
    pub target: TargetExplanation,
    /// Its condition with the value of every part, on the context as it
    /// was when the chain reached the rule.
    pub condition: CondExplanation,
    /// Enabled, target matched and condition true: the rule would fire.
    pub matched: bool,
    /// What happened to it.
    pub status: RuleStatus,
    /// Its actions as they ran (empty unless it fired).
    pub actions: Vec<ActionExplanation>,
    /// The edits it made, as `path: old -> new`.
    pub changes: Vec<String>,
}

/// What happened to a rule during the dispatch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuleStatus {
    /// It matched and its actions ran.
    Fired,
    /// It is disabled, its target does not match, or its condition is false.
    NoMatch,
    /// The chain ended (abort, skip, depth guard) before it.
    NotReached,
    /// It matched, but the depth guard stopped the chain before it ran.
    DepthLimit,
}

/// An FQL target against the event's target.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TargetExplanation {
    /// The pattern, e.g. `builtin::*`.
    pub pattern: String,
    /// True when it matches.
    pub matched: bool,
    /// Which part does not match, when it does not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mismatch: Option<String>,
}

/// A rule's condition with the value of each part.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "lowercase")]
pub enum CondExplanation {
    /// No condition: always true.
    True,
    /// A leaf condition (an atom of the compiled table).
    Atom {
        /// Its value.
        value: bool,
        /// The atom, rendered like source: `payload.tool == "exec"`.
        atom: String,
        /// The fields it reads, with their values.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        fields: Vec<FieldValue>,
        /// Where it is written, when the table knows.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        at: Option<Location>,
    },
    /// `not`.
    Not {
        /// Its value.
        value: bool,
        /// The negated part.
        operand: Box<CondExplanation>,
    },
    /// `and`: all must hold.
    All {
        /// Its value.
        value: bool,
        /// The parts.
        operands: Vec<CondExplanation>,
    },
    /// `or`: one must hold.
    Any {
        /// Its value.
        value: bool,
        /// The parts.
        operands: Vec<CondExplanation>,
    },
}

impl CondExplanation {
    /// The value of this part.
    pub fn value(&self) -> bool {
        match self {
            CondExplanation::True => true,
            CondExplanation::Atom { value, .. }
            | CondExplanation::Not { value, .. }
            | CondExplanation::All { value, .. }
            | CondExplanation::Any { value, .. } => *value,
        }
    }
}

/// A field an atom reads, and its value then.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FieldValue {
    /// The field, e.g. `payload.tool`.
    pub path: String,
    /// Its value; absent when the event does not have the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
}

/// One action of a rule that fired.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ActionExplanation {
    /// The action, rendered like source.
    pub action: String,
    /// What it computed: the rendered text of a template, the value of an
    /// expression.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
}

impl Table {
    /// Explains a dispatch of `ctx` at `point` for `target`: for every rule
    /// of the point in order, its FQL result, the value of each part of its
    /// condition (evaluated on the context as it is when the chain reaches
    /// the rule), whether it fired and what its actions did; and the final
    /// outcome. `ctx` is not changed.
    pub fn explain(
        &self,
        point: impl AsPoint,
        target: &Target<'_>,
        ctx: &HookContext,
    ) -> Explanation {
        let resolved = self.resolve(&point);
        let name = resolved.name.unwrap_or_default().to_string();
        let program = self.program();
        let point_program = resolved.index.and_then(|i| program.points.get(i));
        let (scope, component) = split_component(target.component);
        let mut recorder = Recorder {
            program,
            scope,
            name: component,
            child: target.child,
            instance: target.instance,
            rules: point_program.map_or_else(Vec::new, |p| vec![None; p.rules.len()]),
            before: None,
            notes: Vec::new(),
        };
        let mut observed = ctx.clone();
        let mut scratch = self.scratch();
        let seen = self
            .dispatch_observed(
                &mut scratch,
                resolved.index,
                target,
                &mut observed,
                super::Live::effects(crate::Effects::global()),
                &mut recorder,
            )
            .report(&observed);
        let mut plain = ctx.clone();
        let mut scratch = self.scratch();
        let outcome = self
            .dispatch(&mut scratch, point, target, &mut plain)
            .report(&plain);
        let mut notes = recorder.notes;
        if seen != outcome {
            notes.push("the observed chain and the dispatch disagree; this is a bug".to_string());
        }
        let rules = recorder
            .rules
            .into_iter()
            .zip(point_program.map_or(&[][..], |p| p.rules.as_slice()))
            .map(|(seen, rule)| {
                seen.unwrap_or_else(|| {
                    notes.push(format!("rule `{}` was not shown to the observer", rule.id));
                    RuleExplanation {
                        id: rule.id.clone(),
                        origin: location(program, rule.origin),
                        priority: rule.priority,
                        enabled: rule.enabled,
                        target: TargetExplanation {
                            pattern: rule.target.to_string(),
                            matched: false,
                            mismatch: None,
                        },
                        condition: CondExplanation::True,
                        matched: false,
                        status: RuleStatus::NotReached,
                        actions: Vec::new(),
                        changes: Vec::new(),
                    }
                })
            })
            .collect();
        let mut shown = target.component.to_string();
        if let Some(child) = target.child {
            let _ = write!(shown, "/{child}");
        }
        if let Some(instance) = target.instance {
            let _ = write!(shown, "#{instance}");
        }
        Explanation {
            point: name,
            kind: point_program.map(|p| p.kind),
            schema: program.schema.clone(),
            target: shown,
            rules,
            outcome,
            notes,
        }
    }
}

/// The observer behind [`Table::explain`].
struct Recorder<'t> {
    program: &'t Program,
    scope: &'t str,
    name: &'t str,
    child: Option<&'t str>,
    instance: Option<&'t str>,
    rules: Vec<Option<RuleExplanation>>,
    /// The context before the firing rule's actions.
    before: Option<HookContext>,
    notes: Vec<String>,
}

impl Recorder<'_> {
    fn entry(&mut self, rule: u32) -> Option<&mut RuleExplanation> {
        self.rules.get_mut(rule as usize)?.as_mut()
    }

    fn target(&self, pattern: &FqlPattern) -> TargetExplanation {
        let matched = pattern.matches_parts(self.scope, self.name, self.child, self.instance);
        let mismatch = if matched {
            None
        } else if !pattern.scope.matches(self.scope) {
            Some(format!("scope `{}` is not `{}`", self.scope, pattern.scope))
        } else if !pattern.target.matches(self.name) {
            Some(format!("name `{}` is not `{}`", self.name, pattern.target))
        } else {
            match (&pattern.child, self.child) {
                (Some(want), None) => Some(format!(
                    "the pattern needs a child (`{want}`), the call has none"
                )),
                (Some(want), Some(have)) if !want.matches(have) => {
                    Some(format!("child `{have}` is not `{want}`"))
                }
                _ => match (&pattern.instance, self.instance) {
                    (Some(want), Some(have)) => Some(format!("instance `{have}` is not `{want}`")),
                    _ => None,
                },
            }
        };
        TargetExplanation {
            pattern: pattern.to_string(),
            matched,
            mismatch,
        }
    }

    fn cond<'o>(
        &self,
        cond: &Cond,
        probe: &mut Probe<'_, '_>,
        origins: &mut impl Iterator<Item = &'o Origin>,
    ) -> CondExplanation {
        match cond {
            Cond::True => CondExplanation::True,
            Cond::Atom(a) => {
                let at = origins.next().map(|o| location(self.program, *o));
                let value = probe.atom(*a);
                let atom = probe.point().atoms.get(*a as usize);
                let mut paths = Vec::new();
                match atom {
                    Some(Atom::Expr(e)) => expr_paths(e, &mut paths),
                    Some(atom) => paths.extend(atom.field()),
                    None => {}
                }
                let fields = paths
                    .into_iter()
                    .map(|p| FieldValue {
                        path: p.to_string(),
                        value: probe.ctx().get(p).map(|v| v.to_json()),
                    })
                    .collect();
                CondExplanation::Atom {
                    value,
                    atom: atom.map_or_else(|| "?".to_string(), |a| render_atom(a, self.program)),
                    fields,
                    at,
                }
            }
            Cond::Not(c) => {
                let operand = self.cond(c, probe, origins);
                CondExplanation::Not {
                    value: !operand.value(),
                    operand: Box::new(operand),
                }
            }
            Cond::All(cs) => {
                let operands: Vec<_> = cs.iter().map(|c| self.cond(c, probe, origins)).collect();
                CondExplanation::All {
                    value: operands.iter().all(CondExplanation::value),
                    operands,
                }
            }
            Cond::Any(cs) => {
                let operands: Vec<_> = cs.iter().map(|c| self.cond(c, probe, origins)).collect();
                CondExplanation::Any {
                    value: operands.iter().any(CondExplanation::value),
                    operands,
                }
            }
        }
    }
}

impl Observer for Recorder<'_> {
    fn reach(&mut self, rule: u32, reach: Reach, probe: &mut Probe<'_, '_>) {
        let Some(r) = probe.point().rules.get(rule as usize) else {
            return;
        };
        let target = self.target(&r.target);
        let mut origins = r.cond_origins.iter();
        let condition = self.cond(&r.cond, probe, &mut origins);
        let matched = r.enabled && target.matched && condition.value();
        if reach == Reach::NotCandidate && matched {
            self.notes.push(format!(
                "rule `{}` matches but the index did not propose it; this is a bug",
                r.id
            ));
        }
        let explanation = RuleExplanation {
            id: r.id.clone(),
            origin: location(self.program, r.origin),
            priority: r.priority,
            enabled: r.enabled,
            target,
            condition,
            matched,
            status: match reach {
                Reach::AfterStop => RuleStatus::NotReached,
                Reach::Candidate | Reach::NotCandidate => RuleStatus::NoMatch,
            },
            actions: Vec::new(),
            changes: Vec::new(),
        };
        if let Some(slot) = self.rules.get_mut(rule as usize) {
            *slot = Some(explanation);
        }
    }

    fn fire(&mut self, rule: u32, ctx: &HookContext) {
        self.before = Some(ctx.clone());
        if let Some(e) = self.entry(rule) {
            e.status = RuleStatus::Fired;
        }
    }

    fn action(&mut self, rule: u32, index: usize, ctx: &HookContext, run: &Run<'_>) {
        let Some(action) = run
            .point
            .rules
            .get(rule as usize)
            .and_then(|r| r.actions.get(index))
        else {
            return;
        };
        let explained = explain_action(action, ctx, run, self.program);
        if let Some(e) = self.entry(rule) {
            e.actions.push(explained);
        }
    }

    fn fired(&mut self, rule: u32, ctx: &HookContext) {
        let Some(before) = self.before.take() else {
            return;
        };
        let mut changes = Vec::new();
        diff(
            "payload",
            Some(&before.payload),
            Some(&ctx.payload),
            &mut changes,
        );
        let (old, new) = (
            Value::Object(before.metadata),
            Value::Object(ctx.metadata.clone()),
        );
        diff("metadata", Some(&old), Some(&new), &mut changes);
        if let Some(e) = self.entry(rule) {
            e.changes = changes;
        }
    }

    fn depth_limit(&mut self, rule: u32) {
        if let Some(e) = self.entry(rule) {
            e.status = RuleStatus::DepthLimit;
        }
    }
}

fn location(program: &Program, origin: Origin) -> Location {
    Location {
        file: program
            .files
            .get(origin.file as usize)
            .cloned()
            .unwrap_or_else(|| "?".to_string()),
        line: origin.line,
        col: origin.col,
    }
}

/// An action rendered like source, and what it computes on `ctx`.
fn explain_action(
    action: &Action,
    ctx: &HookContext,
    run: &Run<'_>,
    program: &Program,
) -> ActionExplanation {
    // The values are computed again for the explanation, with a budget of
    // their own.
    let budget = crate::table::regexes::Budget::default();
    let matching = crate::table::regexes::Matching {
        regexes: &run.loaded.regexes,
        budget: &budget,
    };
    let value = |e: &Expr| match eval::eval(e, ctx, matching) {
        Ok(v) => v.to_json(),
        Err(err) => Value::String(format!("error: {err}")),
    };
    let text = |t: &Template| Value::String(eval::render(t, ctx).into_owned());
    let (shown, result) = match action {
        Action::Continue => ("continue".to_string(), None),
        Action::Abort(t) => (format!("abort {}", template(t)), Some(text(t))),
        Action::Skip(e) => (format!("skip {}", expr(e, program)), Some(value(e))),
        Action::Replace(e) => {
            let shown = format!("replace {}", expr(e, program));
            if run.point.kind == PointKind::Post {
                (shown, Some(value(e)))
            } else {
                (format!("{shown} (ignored: not a post point)"), None)
            }
        }
        Action::Set(p, e) => (format!("set {p} = {}", expr(e, program)), Some(value(e))),
        Action::Unset(p) => (format!("unset {p}"), None),
        Action::Rewrite(p, re, replacement) => (
            format!(
                "rewrite {p} {} -> {}",
                regex(*re, program),
                quote(replacement)
            ),
            None,
        ),
        Action::Prepend(p, t) => (format!("prepend {p} {}", template(t)), Some(text(t))),
        Action::Append(p, t) => (format!("append {p} {}", template(t)), Some(text(t))),
        Action::Meta(key, e) => (
            format!("meta {} = {}", quote(key), expr(e, program)),
            Some(value(e)),
        ),
        Action::Log(level, t) => (
            format!("log {} {}", level.as_str(), template(t)),
            Some(text(t)),
        ),
        Action::Ask(t) => (format!("ask {}", template(t)), Some(text(t))),
        Action::Allow => ("allow".to_string(), None),
        Action::Context(t) => (format!("context {}", template(t)), Some(text(t))),
        Action::Exec {
            program: prog,
            args,
            shell,
        } => {
            let mut shown = format!("{} {}", if *shell { "sh" } else { "exec" }, quote(prog));
            for arg in args {
                let _ = write!(shown, " {}", quote(arg));
            }
            (shown, None)
        }
        Action::Webhook {
            url,
            include,
            headers,
        } => {
            let mut shown = format!("webhook {}", quote(url));
            for (i, path) in include.iter().enumerate() {
                let _ = write!(shown, "{}{path}", if i == 0 { " include " } else { ", " });
            }
            for (name, value) in headers {
                let _ = write!(shown, " header {} {}", quote(name), quote(value));
            }
            (shown, None)
        }
        Action::Call(handler) => (format!("call {}", quote(handler)), None),
        Action::Lua(LuaCode::File(file)) => (format!("call lua {}", quote(file)), None),
        Action::Lua(LuaCode::Inline(_)) => ("lua \"\"\"…\"\"\"".to_string(), None),
        Action::Trace { file, fields } => {
            let mut shown = format!("trace {}", quote(file));
            for (i, path) in fields.iter().enumerate() {
                let _ = write!(shown, "{}{path}", if i == 0 { " " } else { ", " });
            }
            (shown, None)
        }
    };
    ActionExplanation {
        action: shown,
        result,
    }
}

/// The distinct fields an expression reads, in order.
fn expr_paths<'e>(e: &'e Expr, out: &mut Vec<&'e crate::ir::FieldPath>) {
    let mut add = |p: &'e crate::ir::FieldPath| {
        if !out.contains(&p) {
            out.push(p);
        }
    };
    match e {
        Expr::Const(_) => {}
        Expr::Path(p) | Expr::Exists(p) => add(p),
        Expr::Template(t) => {
            for part in &t.parts {
                if let TemplatePart::Path(p) = part {
                    add(p);
                }
            }
        }
        Expr::Array(items) => items.iter().for_each(|i| expr_paths(i, out)),
        Expr::Object(fields) => fields.iter().for_each(|(_, v)| expr_paths(v, out)),
        Expr::Unary(_, x) | Expr::Matches(x, _) => expr_paths(x, out),
        Expr::Binary(_, a, b) | Expr::In(a, b) | Expr::ContainsAny(a, b) => {
            expr_paths(a, out);
            expr_paths(b, out);
        }
        Expr::Rate(r) => {
            for part in &r.key.parts {
                if let TemplatePart::Path(p) = part {
                    add(p);
                }
            }
        }
    }
}

/// An atom rendered like source.
fn render_atom(atom: &Atom, program: &Program) -> String {
    let list = |values: &[Value]| {
        let items: Vec<String> = values.iter().map(Value::to_string).collect();
        format!("[{}]", items.join(", "))
    };
    match atom {
        Atom::Eq(p, v) => format!("{p} == {v}"),
        Atom::In(p, vs) => format!("{p} in {}", list(vs)),
        Atom::Cmp(p, op, n) => {
            let op = match op {
                crate::ir::CmpOp::Lt => "<",
                crate::ir::CmpOp::Le => "<=",
                crate::ir::CmpOp::Gt => ">",
                crate::ir::CmpOp::Ge => ">=",
            };
            format!("{p} {op} {n}")
        }
        Atom::Contains(p, v) => format!("{p} contains {v}"),
        Atom::ContainsAny(p, vs) => format!("{p} contains any {}", list(vs)),
        Atom::StartsWith(p, s) => format!("{p} starts_with {}", quote(s)),
        Atom::EndsWith(p, s) => format!("{p} ends_with {}", quote(s)),
        Atom::Matches(p, re) => format!("{p} matches {}", regex(*re, program)),
        Atom::Exists(p) => format!("{p} exists"),
        Atom::Rate(r) => rate(r),
        Atom::Expr(e) => expr(e, program),
    }
}

/// An expression rendered like source, operands of operators in
/// parentheses when they are operations themselves.
fn expr(e: &Expr, program: &Program) -> String {
    let operand = |e: &Expr| match e {
        Expr::Binary(..) | Expr::In(..) | Expr::ContainsAny(..) | Expr::Matches(..) => {
            format!("({})", expr(e, program))
        }
        _ => expr(e, program),
    };
    match e {
        Expr::Const(v) => v.to_string(),
        Expr::Path(p) => p.to_string(),
        Expr::Template(t) => template(t),
        Expr::Array(items) => format!(
            "[{}]",
            items
                .iter()
                .map(|i| expr(i, program))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Expr::Object(fields) => format!(
            "{{{}}}",
            fields
                .iter()
                .map(|(k, v)| format!("{}: {}", quote(k), expr(v, program)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Expr::Unary(op, inner) => match op {
            UnaryOp::Not => format!("not {}", operand(inner)),
            UnaryOp::Neg => format!("-{}", operand(inner)),
            UnaryOp::BitNot => format!("~{}", operand(inner)),
        },
        Expr::Binary(op, a, b) => format!("{} {} {}", operand(a), op.as_str(), operand(b)),
        Expr::In(a, b) => format!("{} in {}", operand(a), operand(b)),
        Expr::ContainsAny(a, b) => format!("{} contains any {}", operand(a), operand(b)),
        Expr::Matches(a, re) => format!("{} matches {}", operand(a), regex(*re, program)),
        Expr::Exists(p) => format!("{p} exists"),
        Expr::Rate(r) => rate(r),
    }
}

/// `rate("key") > 100 per 60000ms`.
fn rate(r: &crate::ir::RateTest) -> String {
    let op = match r.op {
        crate::ir::CmpOp::Lt => "<",
        crate::ir::CmpOp::Le => "<=",
        crate::ir::CmpOp::Gt => ">",
        crate::ir::CmpOp::Ge => ">=",
    };
    format!(
        "rate({}) {op} {} per {}ms",
        template(&r.key),
        r.limit,
        r.window_ms
    )
}

fn regex(re: RegexId, program: &Program) -> String {
    match program.regexes.get(re.0 as usize) {
        Some(source) => format!("/{}/{}", source.pattern.replace('/', "\\/"), source.flags),
        None => "/?/".to_string(),
    }
}

/// A template as a string literal with `{path}` holes.
fn template(t: &Template) -> String {
    let mut out = String::from("\"");
    for part in &t.parts {
        match part {
            TemplatePart::Lit(s) => {
                let escaped = Value::String(s.clone()).to_string();
                let inner = escaped
                    .get(1..escaped.len().saturating_sub(1))
                    .unwrap_or_default();
                out.push_str(&inner.replace('{', "{{").replace('}', "}}"));
            }
            TemplatePart::Path(p) => {
                let _ = write!(out, "{{{p}}}");
            }
        }
    }
    out.push('"');
    out
}

fn quote(s: &str) -> String {
    Value::String(s.to_string()).to_string()
}

/// Field-level differences between two JSON values, as `path: old -> new`
/// (numbers compare by value). Used by `explain` and by `hookc eval`'s human
/// output.
pub fn diff(path: &str, before: Option<&Value>, after: Option<&Value>, out: &mut Vec<String>) {
    match (before, after) {
        (Some(Value::Object(a)), Some(Value::Object(b))) => {
            for (key, old) in a {
                diff(&format!("{path}.{key}"), Some(old), b.get(key), out);
            }
            for (key, new) in b {
                if !a.contains_key(key) {
                    diff(&format!("{path}.{key}"), None, Some(new), out);
                }
            }
        }
        (Some(a), Some(b)) if json_eq(a, b) => {}
        (None, None) => {}
        (Some(a), Some(b)) => out.push(format!("{path}: {a} -> {b}")),
        (Some(a), None) => out.push(format!("{path}: {a} -> (removed)")),
        (None, Some(b)) => out.push(format!("{path}: (unset) -> {b}")),
    }
}

/// The longest value shown whole on a human line.
const SHOWN: usize = 60;

/// The longest text (a reason, a log line, a warning, a condition) shown
/// on a human line, in characters; longer ones are cut in the middle.
const LINE: usize = 200;

/// Text for a human line: control and bidi characters escaped, cut to
/// [`LINE`] characters ([`escape::shorten`]).
fn line(text: &str) -> Cow<'_, str> {
    escape::shorten(text, LINE)
}

/// A JSON value for a human line: its first [`SHOWN`] characters, escaped.
fn short(v: &Value) -> String {
    let text = v.to_string();
    let mut chars = text.chars();
    let head: String = chars.by_ref().take(SHOWN).collect();
    let head = escape::escape(&head).into_owned();
    if chars.next().is_some() {
        format!("{head}…")
    } else {
        head
    }
}

impl Explanation {
    fn stopped_at(&self) -> Option<&RuleExplanation> {
        self.rules.iter().rev().find(|r| {
            r.status == RuleStatus::DepthLimit
                || (r.status == RuleStatus::Fired
                    && matches!(
                        self.outcome.outcome,
                        super::OutcomeKind::Abort | super::OutcomeKind::Skip
                    ))
        })
    }
}

/// The human form of `hookc explain`: one block per rule with ✓ (fired) or
/// ✗, its target, its condition tree with each part's value and where it is
/// written, what it did; then the outcome.
impl fmt::Display for Explanation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = self.kind.map(|k| format!(" ({k})")).unwrap_or_default();
        let fired = self
            .rules
            .iter()
            .filter(|r| r.status == RuleStatus::Fired)
            .count();
        let rules = match self.rules.len() {
            0 => "no rules".to_string(),
            1 => "1 rule".to_string(),
            n => format!("{n} rules"),
        };
        writeln!(
            f,
            "point `{}`{kind} for `{}`: {rules}, {fired} fired",
            line(&self.point),
            line(&self.target)
        )?;
        let stop = self.stopped_at().map(|r| r.id.as_str());
        for rule in &self.rules {
            writeln!(f)?;
            let mark = if rule.status == RuleStatus::Fired {
                "✓"
            } else {
                "✗"
            };
            writeln!(
                f,
                "{mark} {}  priority {}  {}",
                line(&rule.id),
                rule.priority,
                line(&rule.origin.to_string())
            )?;
            let pattern = line(&rule.target.pattern);
            match &rule.target.mismatch {
                None if rule.target.matched => writeln!(f, "    target  {pattern}  matches")?,
                None => writeln!(f, "    target  {pattern}  does not match")?,
                Some(why) => writeln!(f, "    target  {pattern}  does not match: {}", line(why))?,
            }
            match &rule.condition {
                CondExplanation::True => writeln!(f, "    when    (always)")?,
                c => {
                    write!(f, "    when    ")?;
                    cond_lines(f, c, 4)?;
                }
            }
            let status = match rule.status {
                RuleStatus::Fired => "fired".to_string(),
                RuleStatus::DepthLimit => {
                    "matched, but the depth limit stopped the chain here".to_string()
                }
                RuleStatus::NotReached => {
                    let after = stop
                        .map(|s| format!(" at `{}`", line(s)))
                        .unwrap_or_default();
                    let would = if rule.matched {
                        "; it would have matched"
                    } else {
                        ""
                    };
                    format!("not reached: the chain ended{after}{would}")
                }
                RuleStatus::NoMatch if !rule.enabled => "did not fire: disabled".to_string(),
                RuleStatus::NoMatch if !rule.target.matched => {
                    "did not fire: the target does not match".to_string()
                }
                RuleStatus::NoMatch => "did not fire: the condition is false".to_string(),
            };
            writeln!(f, "    {status}")?;
            for action in &rule.actions {
                let shown = line(&action.action);
                match &action.result {
                    Some(result) => writeln!(f, "      {shown}  → {}", short(result))?,
                    None => writeln!(f, "      {shown}")?,
                }
            }
            for change in &rule.changes {
                writeln!(f, "      changed {}", line(change))?;
            }
        }
        writeln!(f)?;
        let o = &self.outcome;
        let kind = serde_json::to_value(o.outcome).unwrap_or(Value::Null);
        writeln!(f, "outcome   {}", kind.as_str().unwrap_or("?"))?;
        if let Some(reason) = &o.reason {
            writeln!(f, "reason    {}", line(reason))?;
        }
        if let Some(value) = &o.value {
            writeln!(f, "value     {}", line(&value.to_string()))?;
        }
        if let Some(decision) = o.decision {
            let d = serde_json::to_value(decision).unwrap_or(Value::Null);
            writeln!(f, "decision  {}", d.as_str().unwrap_or("?"))?;
        }
        let fired: Vec<&str> = o.fired.iter().map(String::as_str).collect();
        writeln!(
            f,
            "fired     {}",
            if fired.is_empty() {
                "(none)".to_string()
            } else {
                // Every id, however many: only escaped.
                escape::escape(&fired.join(", ")).into_owned()
            }
        )?;
        for log in &o.logs {
            writeln!(
                f,
                "log       {} [{}] {}",
                log.level.as_str(),
                line(&log.rule),
                line(&log.message)
            )?;
        }
        for text in &o.additional_context {
            writeln!(f, "context   {}", line(text))?;
        }
        for warning in &o.warnings {
            writeln!(f, "warning   {}", line(warning))?;
        }
        for note in &self.notes {
            writeln!(f, "note      {}", line(note))?;
        }
        Ok(())
    }
}

/// Writes a condition tree: the node on the current line, its operands
/// indented below.
fn cond_lines(f: &mut fmt::Formatter<'_>, c: &CondExplanation, indent: usize) -> fmt::Result {
    let mark = |v: bool| if v { "✓" } else { "✗" };
    let pad = " ".repeat(indent + 2);
    match c {
        CondExplanation::True => writeln!(f, "{} true", mark(true)),
        CondExplanation::Atom {
            value,
            atom,
            fields,
            at,
        } => {
            write!(f, "{} {} → {value}", mark(*value), line(atom))?;
            if let Some(at) = at {
                write!(f, "  at {}", line(&at.to_string()))?;
            }
            let shown: Vec<String> = fields
                .iter()
                .map(|field| match &field.value {
                    Some(v) => format!("{} = {}", line(&field.path), short(v)),
                    None => format!("{} is missing", line(&field.path)),
                })
                .collect();
            if !shown.is_empty() {
                write!(f, "  ({})", shown.join(", "))?;
            }
            writeln!(f)
        }
        CondExplanation::Not { value, operand } => {
            writeln!(f, "{} not → {value}", mark(*value))?;
            write!(f, "{pad}")?;
            cond_lines(f, operand, indent + 2)
        }
        CondExplanation::All { value, operands } | CondExplanation::Any { value, operands } => {
            let op = if matches!(c, CondExplanation::All { .. }) {
                "all of"
            } else {
                "any of"
            };
            writeln!(f, "{} {op} → {value}", mark(*value))?;
            for operand in operands {
                write!(f, "{pad}")?;
                cond_lines(f, operand, indent + 2)?;
            }
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn templates_and_exprs_render_like_source() {
        let t = Template {
            parts: vec![
                TemplatePart::Lit("a {b} \"c\" ".into()),
                TemplatePart::Path(crate::ir::FieldPath {
                    root: crate::ir::Root::Payload,
                    segments: vec![crate::ir::Segment::Field("x".into())],
                }),
            ],
        };
        assert_eq!(template(&t), r#""a {{b}} \"c\" {payload.x}""#);
        let mut out = Vec::new();
        diff(
            "payload",
            Some(&json!({"a": 1, "b": 2})),
            Some(&json!({"a": 1.0, "c": 3})),
            &mut out,
        );
        assert_eq!(
            out,
            ["payload.b: 2 -> (removed)", "payload.c: (unset) -> 3"]
        );
        assert_eq!(short(&json!("x".repeat(100))).chars().count(), SHOWN + 1);
    }
}
