//! What a dispatch says: the kind of outcome, the decision, log lines, the
//! borrowed [`Outcome`] of a dispatch and the owned [`Report`] of one.

use super::*;

/// How the chain ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OutcomeKind {
    /// Go on with the (possibly edited) context.
    Continue,
    /// Do not run the operation; use the outcome's value as its result.
    Skip,
    /// Do not run the operation: blocked, with a reason.
    Abort,
    /// Ask a human before going on.
    Ask,
}

/// The combined permission decision of the rules that fired.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    /// An `allow` fired, and nothing stricter.
    Allow,
    /// An `ask` fired, and no abort.
    Ask,
    /// An abort fired.
    Deny,
}

/// One line emitted by a `log` action.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogLine {
    /// The level.
    pub level: LogLevel,
    /// The rule that logged it.
    pub rule: String,
    /// The rendered message.
    pub message: String,
}

/// What the host should do after a dispatch.
///
/// It borrows the table (constant reasons) and the scratch (fired list,
/// warnings); turn it into an owned [`Report`] with [`Outcome::report`].
#[derive(Debug)]
pub struct Outcome<'a> {
    pub(super) kind: OutcomeKind,
    pub(super) reason: Option<Cow<'a, str>>,
    pub(super) value: Option<Value>,
    pub(super) decision: Option<Decision>,
    pub(super) point: Option<Point<'a>>,
    pub(super) natives: &'a [RegisteredHook],
    pub(super) scratch: &'a Scratch,
}

impl<'a> Outcome<'a> {
    /// How the chain ended.
    pub fn kind(&self) -> OutcomeKind {
        self.kind
    }

    /// True when the operation is blocked.
    pub fn is_abort(&self) -> bool {
        self.kind == OutcomeKind::Abort
    }

    /// True when the operation is skipped.
    pub fn is_skip(&self) -> bool {
        self.kind == OutcomeKind::Skip
    }

    /// True when a human must be asked.
    pub fn is_ask(&self) -> bool {
        self.kind == OutcomeKind::Ask
    }

    /// True when the operation goes on.
    pub fn is_continue(&self) -> bool {
        self.kind == OutcomeKind::Continue
    }

    /// The reason of an abort or ask.
    pub fn reason(&self) -> Option<&str> {
        self.reason.as_deref()
    }

    /// The result value of a skip.
    pub fn value(&self) -> Option<&Value> {
        self.value.as_ref()
    }

    /// The combined decision, if any rule made one.
    pub fn decision(&self) -> Option<Decision> {
        self.decision
    }

    /// Ids of the rules (and a registry's native hooks) that fired, in
    /// execution order.
    pub fn fired(&self) -> impl Iterator<Item = &'a str> + '_ {
        let point = self.point;
        let natives = self.natives;
        self.scratch.fired.iter().filter_map(move |&i| {
            if i & NATIVE_FIRED != 0 {
                natives
                    .get((i & !NATIVE_FIRED) as usize)
                    .map(|n| n.hook.id())
            } else {
                point.filter(|p| i < p.rule_count()).map(|p| p.rule_id(i))
            }
        })
    }

    /// Warnings: effects that failed open, the depth guard, ignored actions.
    pub fn warnings(&self) -> &'a [String] {
        &self.scratch.warnings
    }

    /// Lines emitted by `log` actions.
    pub fn logs(&self) -> &'a [LogLine] {
        &self.scratch.logs
    }

    /// Text added by `context` actions.
    pub fn additional_context(&self) -> &'a [String] {
        &self.scratch.additional_context
    }

    /// Fields of the host's answer set by `output` actions and command
    /// replies, in the order set (a later one of a name wins).
    pub fn outputs(&self) -> &'a [(String, Value)] {
        &self.scratch.outputs
    }

    /// An owned report: the outcome JSON of `hookc eval`, with the final
    /// context.
    pub fn report(&self, ctx: &HookContext) -> Report {
        self.report_of(ctx.clone())
    }

    /// [`report`](Self::report) that takes the final context as it is.
    pub(crate) fn report_of(&self, context: HookContext) -> Report {
        Report {
            outcome: self.kind,
            reason: self.reason.as_ref().map(|r| r.to_string()),
            value: self.value.clone(),
            decision: self.decision,
            context,
            fired: self.fired().map(str::to_string).collect(),
            warnings: self.scratch.warnings.clone(),
            logs: self.scratch.logs.clone(),
            additional_context: self.scratch.additional_context.clone(),
            outputs: self
                .scratch
                .outputs
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            generation: None,
        }
    }
}

/// The outcome of a dispatch as an owned, serializable value.
///
/// ```json
/// {"outcome": "continue|skip|abort|ask", "reason": "…", "value": null,
///  "decision": "allow|ask|deny|null", "context": { … }, "fired": ["rule-id"],
///  "warnings": [], "logs": [], "additional_context": []}
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// How the chain ended.
    pub outcome: OutcomeKind,
    /// The reason of an abort or ask.
    pub reason: Option<String>,
    /// The result value of a skip.
    pub value: Option<Value>,
    /// The combined decision.
    pub decision: Option<Decision>,
    /// The final context (edits applied, unless the chain aborted or skipped).
    pub context: HookContext,
    /// Rule ids that fired, in execution order.
    pub fired: Vec<String>,
    /// Warnings.
    pub warnings: Vec<String>,
    /// Lines emitted by `log` actions.
    #[serde(default)]
    pub logs: Vec<LogLine>,
    /// Text added by `context` actions.
    #[serde(default)]
    pub additional_context: Vec<String>,
    /// Fields of the host's answer (`output` actions, command replies): the
    /// last value set for each name, in the order first set.
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub outputs: serde_json::Map<String, Value>,
    /// The generation of the table a [`Registry`](crate::Registry) ran it
    /// on (see [`Registry::generation`](crate::Registry::generation));
    /// `None` for a plain table's dispatch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generation: Option<u64>,
}

impl Report {
    /// True when the operation is blocked.
    pub fn is_abort(&self) -> bool {
        self.outcome == OutcomeKind::Abort
    }
}
