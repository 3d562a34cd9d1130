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
use crate::diag::escape;
use crate::event::json_eq;
use crate::fql::{split_component, FqlPattern};
use crate::ir::{
    Action, Atom, Cond, Expr, LuaCode, Origin, Program, RegexId, Template, TemplatePart, UnaryOp,
};
use crate::runtime::{AsPoint, HookContext, Observer, Probe, Reach, Report, Run, Target};
use crate::schema::PointKind;
use crate::table::Table;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::borrow::Cow;
use std::fmt::{self, Write as _};

mod recorder;
mod render;

use recorder::*;
pub use render::diff;
use render::*;

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
    /// outcome. `ctx` is not changed. Effects run as in a dispatch with the
    /// process-wide [`Effects`](crate::Effects), each at most once.
    pub fn explain(
        &self,
        point: impl AsPoint,
        target: &Target<'_>,
        ctx: &HookContext,
    ) -> Explanation {
        self.explain_with(point, target, ctx, crate::Effects::global())
    }

    /// [`explain`](Self::explain) with the host's effects (for instance
    /// [`Effects::recording_only`](crate::Effects::recording_only), to run
    /// nothing outside the event).
    pub fn explain_with(
        &self,
        point: impl AsPoint,
        target: &Target<'_>,
        ctx: &HookContext,
        effects: &crate::Effects,
    ) -> Explanation {
        let mut observed = ctx.clone();
        let mut explanation = self.observe(&point, target, &mut observed, effects);
        // A plain dispatch checks the observed chain, unless the point has
        // effects: those must not run twice for one explanation.
        let resolved = self.resolve(&point);
        let has_effects = resolved
            .index
            .and_then(|i| self.program().points.get(i))
            .is_some_and(|p| {
                p.rules
                    .iter()
                    .any(|r| r.actions.iter().any(crate::ir::Action::is_effect))
            });
        if !has_effects {
            let mut plain = ctx.clone();
            let mut scratch = self.scratch();
            let outcome = self
                .dispatch_with(&mut scratch, point, target, &mut plain, effects)
                .report(&plain);
            if explanation.outcome != outcome {
                explanation.notes.push(
                    "the observed chain and the dispatch disagree; this is a bug".to_string(),
                );
            }
            explanation.outcome = outcome;
        }
        explanation
    }

    /// Dispatches `ctx` at its own point for its own target, as
    /// [`dispatch_context_with`](Self::dispatch_context_with) does (the
    /// edits are applied to `ctx`), and explains that very dispatch: its
    /// `outcome` is the dispatch's report. One dispatch, so effects and
    /// `rate(…)` counts happen once, as in a plain dispatch; `hookc test
    /// --coverage` runs tests this way.
    #[cfg(feature = "compiler")]
    pub(crate) fn dispatch_explained(
        &self,
        ctx: &mut HookContext,
        effects: &crate::Effects,
    ) -> Explanation {
        let named = crate::event::ContextTarget::of(ctx);
        self.observe(&named.point(), &named.target(), ctx, effects)
    }

    /// One dispatch of `ctx` with the [`Recorder`] watching every rule of
    /// the point; the outcome is that dispatch's.
    fn observe(
        &self,
        point: &impl AsPoint,
        target: &Target<'_>,
        ctx: &mut HookContext,
        effects: &crate::Effects,
    ) -> Explanation {
        let resolved = self.resolve(point);
        let name = resolved.name.unwrap_or_default().to_string();
        let program = self.program();
        let point_program = resolved.index.and_then(|i| program.points.get(i));
        let (scope, component) = split_component(target.component);
        let mut recorder = Recorder {
            program,
            point: point_program,
            scope,
            name: component,
            child: target.child,
            instance: target.instance,
            rules: point_program.map_or_else(Vec::new, |p| vec![None; p.rules.len()]),
            before: None,
            notes: Vec::new(),
        };
        let mut scratch = self.scratch();
        let outcome = self
            .dispatch_observed(
                &mut scratch,
                resolved.index,
                target,
                ctx,
                super::Live::effects(effects),
                &mut recorder,
            )
            .report(ctx);
        let mut notes = recorder.notes;
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

/// Atom `atom` of `point` rendered like source, as an explanation shows it
/// (`"?"` for an atom the point does not have).
#[cfg(feature = "compiler")]
pub(crate) fn atom_text(program: &Program, point: &crate::ir::PointProgram, atom: u32) -> String {
    point
        .atoms
        .get(atom as usize)
        .map_or_else(|| "?".to_string(), |a| render_atom(a, program))
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
                    normalized: false,
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
