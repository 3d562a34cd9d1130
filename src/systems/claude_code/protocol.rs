//! Claude Code command hooks: an event JSON in, an answer Claude Code reads out.
//!
//! Claude Code runs a `type: "command"` hook for an event with the event's
//! JSON on stdin, and reads the hook's exit code, stdout and stderr
//! (`../shared/claude-code/PROTOCOL.md`). This module is both halves of that
//! exchange for hookc, without any I/O: [`Event`] turns the input into a
//! [`HookContext`] for the rules of the `claude-code` schema, and
//! [`Event::answer`] turns the dispatch's [`Report`] into the [`Response`] the
//! protocol expects for that event. `hookc claude` (the CLI) reads stdin,
//! loads the table, and prints the response.
//!
//! # The event as a hook context
//!
//! The point is the event's `hook_event_name` (the `claude-code` schema spells
//! its points like Claude Code), the whole event is the payload (rules read
//! `payload.tool_input.command`, `payload.prompt`, …), and the component is
//! `claude-code::<tool_name>` for tool events, `claude-code::session` for the
//! others, so rules can target a tool with FQL (`at claude-code::Bash`).
//! Unknown events and fields pass through: an event the table has no point
//! for fires nothing.
//!
//! # The answer
//!
//! The rules' outcome is read as one *verdict*: `abort`/`deny` (and `skip`) →
//! **block**, `ask` → **ask**, `allow` → **allow**, nothing → **no decision**;
//! plus the text of `context` actions and the edits rules made to the fields
//! Claude Code lets a hook change. Each event takes them in its own shape
//! (PROTOCOL.md §7.2); everything goes out as exit 0 + one JSON object unless
//! the event can only be blocked by exit code 2:
//!
//! | event | block | ask | allow | edits | context |
//! |---|---|---|---|---|---|
//! | `PreToolUse` | `permissionDecision: "deny"` + `permissionDecisionReason` | `"ask"` + reason | `"allow"` | `tool_input` → `updatedInput` (with `allow`/`ask`; alone → `ask`) | `additionalContext` |
//! | `PreModelSwitch` | `"deny"` + reason | `"ask"` + reason | `"allow"` | — | — |
//! | `PermissionRequest` | `decision: {behavior: "deny", message}` | no answer (the dialog is the ask) | `{behavior: "allow"}` | `tool_input` → `decision.updatedInput` (with `allow`) | — |
//! | `UserPromptSubmit`, `UserPromptExpansion`, `PostToolUseFailure`, `PostToolBatch`, `Stop`, `SubagentStop` | `decision: "block"` + `reason` | as block | no answer | — | `additionalContext` |
//! | `PostToolUse` | `decision: "block"` + `reason` | as block | no answer | `tool_response` → `updatedToolOutput` | `additionalContext` |
//! | `ConfigChange`, `PreCompact`, `TaskCreated` | `decision: "block"` + `reason` | as block | no answer | — | — |
//! | `TeammateIdle`, `TaskCompleted`, `WorktreeCreate` | exit 2, reason on stderr | as block | no answer | — | — |
//! | `Elicitation`, `ElicitationResult` | `action: "decline"` | as block | no answer | — | — |
//! | `SessionStart`, `Setup`, `SubagentStart`, `PostModelSwitch` | — | — | — | — | `additionalContext` |
//! | `MessageDisplay` | — | — | — | `delta` → `displayContent` | — |
//! | the others (`Notification`, `SessionEnd`, …) | — | — | — | — | — |
//!
//! Every other field Claude Code reads is an *output*: a rule's `output
//! NAME = value` (or a command hook's reply) sets it, and [`super::outputs`]
//! says, per event, which names exist and where each goes (top level,
//! `hookSpecificOutput`, its `decision`, or stdout alone for
//! `WorktreeCreate`'s path). A field the outcome already set keeps the
//! outcome's value.
//!
//! `hookSpecificOutput` always carries `hookEventName` equal to the event.
//! What an event cannot take (an ask where nobody can be asked is read as a
//! block, the safe side; context or edits an event has no field for are
//! dropped) is said on stderr, which Claude Code keeps in its debug log when
//! the exit code is 0. With no decision, no context and no edit, stdout is
//! empty: "silence is not approval".
//!
//! Two readings are hookc's own:
//!
//! - **`skip`** means "do not run the operation; this value is its result".
//!   At `PostToolUse` the value becomes `updatedToolOutput` (what Claude sees
//!   of the result); everywhere else it is a block whose reason is the value
//!   (a string as is, anything else as JSON), which at `PreToolUse` is what
//!   Claude reads in place of the tool's output.
//! - **A rewrite with no decision** at `PreToolUse` answers `ask`: Claude Code
//!   applies `updatedInput` only together with `allow` or `ask`, and hookc
//!   never approves a call on its own. Add `allow` to the rule to approve the
//!   rewritten call without a prompt.
//!
//! **Stop loops**: a block (or context, which also keeps the turn going) at
//! `Stop` or `SubagentStop` while the event's `stop_hook_active` is true is
//! not sent: Claude is already continuing because of a stop hook, and
//! blocking again would loop until Claude Code's own cap (PROTOCOL.md §4.17,
//! §13.8). Rules that want the check explicit write
//! `unless payload.stop_hook_active`.
//!
//! # Failures
//!
//! When the rules cannot be used (no table found, a corrupt table, rules that
//! do not compile, a table of another schema or with no rules, an event that
//! is not JSON or nests too deep), [`failure`] answers per the
//! [`FailMode`]: **open** (the default) exits 0 with nothing on stdout, so a
//! broken policy file never stops the agent, and says why on stderr; **closed**
//! blocks: exit 2 with the message on stderr, except at `PermissionRequest`
//! (where Claude Code ignores exit 2) which gets a JSON deny.

use super::outputs::{self, Place};
use crate::ir::FailMode;
use crate::runtime::{Decision, HookContext, OutcomeKind, Report, Target};
use crate::table::Table;
use serde_json::{json, Map, Value};
use std::fmt;

/// The scope of the components hookc gives Claude Code events.
pub const SCOPE: &str = "claude-code";

/// The component of events that are not about a tool.
pub const SESSION_COMPONENT: &str = "claude-code::session";

/// Why stdin is not a Claude Code event.
#[derive(Debug)]
pub enum EventError {
    /// The text is not JSON.
    Json(serde_json::Error),
    /// The event nests deeper than [`crate::event::MAX_DEPTH`] levels.
    TooDeep {
        /// The limit.
        limit: usize,
    },
    /// The JSON is not an object.
    NotObject,
    /// The object has no string `hook_event_name`.
    NoEventName,
}

impl fmt::Display for EventError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EventError::Json(e) => write!(f, "the event is not valid JSON: {e}"),
            EventError::TooDeep { limit } => write!(
                f,
                "the event nests arrays and objects more than {limit} levels deep"
            ),
            EventError::NotObject => f.write_str("the event is not a JSON object"),
            EventError::NoEventName => {
                f.write_str("the event has no `hook_event_name` string field")
            }
        }
    }
}

impl From<crate::event::DecodeError> for EventError {
    fn from(error: crate::event::DecodeError) -> EventError {
        match error {
            crate::event::DecodeError::TooDeep { limit } => EventError::TooDeep { limit },
            crate::event::DecodeError::Json(e) | crate::event::DecodeError::Context(e) => {
                EventError::Json(e)
            }
        }
    }
}

impl std::error::Error for EventError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            EventError::Json(e) => Some(e),
            EventError::TooDeep { .. } | EventError::NotObject | EventError::NoEventName => None,
        }
    }
}

/// A Claude Code event as a hook context: the point is its
/// `hook_event_name`, the whole event is the payload, and the component is
/// `claude-code::<tool_name>` for tool events (a non-empty `tool_name`),
/// [`SESSION_COMPONENT`] for the others.
///
/// This is the one mapping: `hookc claude` dispatches on it and
/// `hookc explain` explains it.
pub fn hook_context(event: Map<String, Value>) -> HookContext {
    let point = event
        .get("hook_event_name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let component = match event.get("tool_name").and_then(Value::as_str) {
        Some(tool) if !tool.is_empty() => format!("{SCOPE}::{tool}"),
        _ => SESSION_COMPONENT.to_string(),
    };
    HookContext::new(point, component, Value::Object(event))
}

/// One Claude Code event, ready to dispatch and to answer.
///
/// It keeps, as they arrived, the fields whose edits Claude Code accepts back
/// (`tool_input`, `tool_response`, `delta`), so that [`answer`](Self::answer)
/// can tell what the rules changed.
#[derive(Clone, Debug)]
pub struct Event {
    context: HookContext,
    tool_input: Option<Value>,
    tool_response: Option<Value>,
    delta: Option<Value>,
    stop_hook_active: bool,
}

impl Event {
    /// Parses the JSON Claude Code writes on a hook's stdin, as
    /// [`crate::event::parse`] reads events (lone surrogate escapes as
    /// U+FFFD, nesting up to [`crate::event::MAX_DEPTH`]). Unknown fields
    /// and events are fine; only `hook_event_name` is required.
    ///
    /// # Errors
    ///
    /// An [`EventError`] when the text is not a JSON object with a string
    /// `hook_event_name`, or nests too deep.
    pub fn parse(text: &str) -> Result<Event, EventError> {
        let value = crate::event::parse(text).map_err(EventError::from)?;
        match value {
            Value::Object(fields) => Event::checked(fields),
            _ => Err(EventError::NotObject),
        }
    }

    /// The event of an already parsed JSON object.
    ///
    /// # Errors
    ///
    /// [`EventError::NoEventName`] without a string `hook_event_name`,
    /// [`EventError::TooDeep`] when it nests deeper than
    /// [`crate::event::MAX_DEPTH`].
    pub fn from_fields(fields: Map<String, Value>) -> Result<Event, EventError> {
        let fields = Value::Object(fields);
        crate::event::check_depth(&fields).map_err(EventError::from)?;
        match fields {
            Value::Object(fields) => Event::checked(fields),
            _ => Err(EventError::NotObject),
        }
    }

    /// The event of a JSON object whose depth is known to be within the
    /// limit.
    fn checked(fields: Map<String, Value>) -> Result<Event, EventError> {
        if !fields.get("hook_event_name").is_some_and(Value::is_string) {
            return Err(EventError::NoEventName);
        }
        Ok(Event {
            tool_input: fields.get("tool_input").cloned(),
            tool_response: fields.get("tool_response").cloned(),
            delta: fields.get("delta").cloned(),
            stop_hook_active: fields
                .get("stop_hook_active")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            context: hook_context(fields),
        })
    }

    /// The event's name (`hook_event_name`), which is its hook point.
    pub fn name(&self) -> &str {
        &self.context.hook_point
    }

    /// The event's `cwd`, if it has one.
    pub fn cwd(&self) -> Option<&str> {
        self.context.payload.get("cwd").and_then(Value::as_str)
    }

    /// The hook context the rules run on.
    pub fn context(&self) -> &HookContext {
        &self.context
    }

    /// The target the rules are matched against: `claude-code::<tool>` or
    /// `claude-code::session`.
    pub fn target(&self) -> Target<'_> {
        Target::new(&self.context.component_id)
    }

    /// Runs the table's rules for this event. The rules' edits are applied to
    /// the report's context; the event keeps what it received, so it can be
    /// answered (and dispatched again) afterwards.
    pub fn dispatch(&self, table: &Table) -> Report {
        self.dispatch_with(table, crate::Effects::global())
    }

    /// [`dispatch`](Self::dispatch) with the host's [`Effects`](crate::Effects)
    /// (the project directory, the deadline, the webhook pool, where
    /// `rate(…)` counts live).
    pub fn dispatch_with(&self, table: &Table, effects: &crate::Effects) -> Report {
        let received = &self.context;
        let target = Target {
            component: &received.component_id,
            child: received.child_id.as_deref(),
            instance: received.instance.as_deref(),
        };
        table.dispatch_owned(received.clone(), &received.hook_point, &target, effects)
    }

    /// The answer to Claude Code for the rules' report, per the table in the
    /// module documentation.
    pub fn answer(&self, report: &Report) -> Response {
        let mut answer = Answer::new(self, report);
        match Shape::of(self.name()) {
            Some(Shape::Permission { input, context }) => answer.permission(input, context),
            Some(Shape::PermissionRequest) => answer.permission_request(),
            Some(Shape::Block { context }) => answer.block(context),
            Some(Shape::ExitCode) => answer.exit_code(),
            Some(Shape::Elicitation) => answer.elicitation(),
            Some(Shape::Context) => answer.context_only(),
            Some(Shape::Display) => answer.display(),
            Some(Shape::Silent) => answer.silent(),
            None => answer.unknown(),
        }
        answer.outputs();
        answer.finish()
    }
}

/// What a hook process prints and how it exits.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Response {
    /// One JSON object and a newline, or nothing.
    pub stdout: Option<String>,
    /// For Claude Code's debug log (exit 0), or the block reason (exit 2).
    pub stderr: Option<String>,
    /// 0, or 2 for a block that only the exit code can express.
    pub exit_code: i32,
}

/// The answer when the rules or the event cannot be used: `message` on
/// stderr, and per `mode` either no decision (open) or a block (closed).
/// `event` is the event's name when it could be read.
pub fn failure(event: Option<&str>, message: &str, mode: FailMode) -> Response {
    match mode {
        FailMode::Open => Response {
            stdout: None,
            stderr: Some(format!(
                "hookc: {message}\nhookc: failing open: no decision (`--fail-closed` blocks instead)\n"
            )),
            exit_code: 0,
        },
        // Exit code 2 is not honoured at PermissionRequest; only its JSON
        // decision can deny.
        FailMode::Closed if event == Some("PermissionRequest") => Response {
            stdout: Some(line(&json!({
                "hookSpecificOutput": {
                    "hookEventName": "PermissionRequest",
                    "decision": {"behavior": "deny", "message": format!("hookc: {message}")},
                }
            }))),
            stderr: Some(format!("hookc: {message}\nhookc: failing closed: denied\n")),
            exit_code: 0,
        },
        FailMode::Closed => Response {
            stdout: None,
            stderr: Some(format!("hookc: {message} (failing closed)\n")),
            exit_code: 2,
        },
    }
}

/// How an event takes hookc's verdict (PROTOCOL.md §7.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    /// `hookSpecificOutput.permissionDecision` (+ `updatedInput` when `input`,
    /// `additionalContext` when `context`).
    Permission { input: bool, context: bool },
    /// `hookSpecificOutput.decision.behavior`.
    PermissionRequest,
    /// Top-level `decision: "block"` + `reason` (+ `additionalContext` in
    /// `hookSpecificOutput` when `context`).
    Block { context: bool },
    /// Only exit code 2 blocks.
    ExitCode,
    /// `hookSpecificOutput.action`.
    Elicitation,
    /// `hookSpecificOutput.additionalContext`, no decision.
    Context,
    /// `hookSpecificOutput.displayContent`.
    Display,
    /// The event reads no output.
    Silent,
}

impl Shape {
    /// The shape of a known event; `None` for one hookc does not know.
    fn of(event: &str) -> Option<Shape> {
        Some(match event {
            "PreToolUse" => Shape::Permission {
                input: true,
                context: true,
            },
            "PreModelSwitch" => Shape::Permission {
                input: false,
                context: false,
            },
            "PermissionRequest" => Shape::PermissionRequest,
            "UserPromptSubmit"
            | "UserPromptExpansion"
            | "PostToolUse"
            | "PostToolUseFailure"
            | "PostToolBatch"
            | "Stop"
            | "SubagentStop" => Shape::Block { context: true },
            "ConfigChange" | "PreCompact" | "TaskCreated" => Shape::Block { context: false },
            "TeammateIdle" | "TaskCompleted" | "WorktreeCreate" => Shape::ExitCode,
            "Elicitation" | "ElicitationResult" => Shape::Elicitation,
            "SessionStart" | "Setup" | "SubagentStart" | "PostModelSwitch" => Shape::Context,
            "MessageDisplay" => Shape::Display,
            "Notification" | "SessionEnd" | "PostCompact" | "InstructionsLoaded"
            | "StopFailure" | "DirectoryAdded" | "WorktreeRemove" | "PermissionDenied"
            | "CwdChanged" | "FileChanged" => Shape::Silent,
            _ => return None,
        })
    }
}

/// The rules' decision, read once from the report.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Verdict {
    /// No rule decided.
    Pass,
    /// `allow`.
    Allow,
    /// `ask`, with its reason.
    Ask(String),
    /// `abort`/`deny` or `skip`, with the reason.
    Block(String),
}

/// An answer being built: the fields of the JSON object, the stderr notes,
/// the exit code.
struct Answer<'a> {
    event: &'a Event,
    report: &'a Report,
    verdict: Verdict,
    /// Top-level fields (`decision`, `reason`).
    top: Map<String, Value>,
    /// `hookSpecificOutput` fields other than `hookEventName`.
    specific: Map<String, Value>,
    /// Lines for stderr (the debug log).
    notes: Vec<String>,
    /// Set for an exit-2 block: the reason, which is all stderr carries.
    exit_2: Option<String>,
    /// Text that is the whole of stdout (`WorktreeCreate`'s path).
    stdout_text: Option<String>,
}

impl<'a> Answer<'a> {
    fn new(event: &'a Event, report: &'a Report) -> Answer<'a> {
        let mut notes = Vec::new();
        for warning in &report.warnings {
            notes.push(format!("warning: {warning}"));
        }
        for log in &report.logs {
            notes.push(format!(
                "{} [{}]: {}",
                log.level.as_str(),
                log.rule,
                log.message
            ));
        }
        Answer {
            event,
            report,
            verdict: verdict(report),
            top: Map::new(),
            specific: Map::new(),
            notes,
            exit_2: None,
            stdout_text: None,
        }
    }

    /// The rules' `output` fields (and those of command replies), each
    /// where the event reads it ([`super::outputs`]). What the outcome
    /// already says is kept; what the event does not read is dropped with a
    /// note.
    fn outputs(&mut self) {
        let report = self.report;
        let event = self.event.name().to_string();
        for (name, value) in &report.outputs {
            if self.exit_2.is_some() {
                self.notes.push(format!(
                    "an exit-2 block carries only its reason; output `{name}` dropped"
                ));
                continue;
            }
            let kept = match outputs::place(&event, name) {
                None => Err(format!("{event} takes no output `{name}`; dropped")),
                Some(Place::Top) => insert_new(&mut self.top, name, value),
                Some(Place::Specific) => insert_new(&mut self.specific, name, value),
                Some(Place::Decision) => match self.specific.get_mut("decision") {
                    Some(Value::Object(decision)) => {
                        let key = name.strip_prefix("decision.").unwrap_or(name);
                        insert_new(decision, key, value)
                    }
                    _ => Err(format!(
                        "{event} sends `{name}` only with an allow or a deny; dropped"
                    )),
                },
                Some(Place::Stdout) => match value {
                    Value::String(text) => {
                        self.stdout_text = Some(text.clone());
                        Ok(())
                    }
                    other => Err(format!(
                        "output `{name}` must be a string, not {}; dropped",
                        line(other).trim_end()
                    )),
                },
            };
            if let Err(note) = kept {
                self.notes.push(note);
            }
        }
    }

    /// The text of the `context` actions, joined; `None` when there is none.
    fn context_text(&self) -> Option<String> {
        let parts = &self.report.additional_context;
        (!parts.is_empty()).then(|| parts.join("\n"))
    }

    /// `additionalContext` when the event takes it, else a note.
    fn add_context(&mut self, accepted: bool) {
        if let Some(text) = self.context_text() {
            if accepted {
                self.specific
                    .insert("additionalContext".into(), Value::String(text));
            } else {
                self.drop_note("context", &text);
            }
        }
    }

    fn drop_note(&mut self, what: &str, text: &str) {
        let event = self.event.name();
        self.notes.push(format!(
            "{event} takes no {what}; dropped: {}",
            one_line(text)
        ));
    }

    /// The received `tool_input` changed by the rules, if it did.
    fn edited_input(&mut self) -> Option<Value> {
        let now = self.report.context.payload.get("tool_input");
        if now == self.event.tool_input.as_ref() {
            return None;
        }
        match now {
            Some(input @ Value::Object(_)) => Some(input.clone()),
            _ => {
                self.notes.push(
                    "the rules removed `tool_input` or made it a non-object; Claude Code needs an object, so it is not sent".into(),
                );
                None
            }
        }
    }

    /// PreToolUse, PreModelSwitch.
    fn permission(&mut self, takes_input: bool, takes_context: bool) {
        let edited = if takes_input {
            self.edited_input()
        } else {
            None
        };
        let (decision, reason) = match &self.verdict {
            Verdict::Block(reason) => ("deny", Some(reason.clone())),
            Verdict::Ask(reason) => ("ask", Some(reason.clone())),
            Verdict::Allow => ("allow", None),
            // Claude Code applies `updatedInput` only with `allow` or `ask`;
            // hookc does not approve on its own, so the user confirms.
            Verdict::Pass if edited.is_some() => ("ask", Some(self.rewrite_reason())),
            Verdict::Pass => ("", None),
        };
        if !decision.is_empty() {
            self.specific
                .insert("permissionDecision".into(), Value::from(decision));
        }
        if let Some(reason) = reason {
            self.specific
                .insert("permissionDecisionReason".into(), Value::String(reason));
        }
        if let Some(input) = edited {
            self.specific.insert("updatedInput".into(), input);
        }
        self.add_context(takes_context);
    }

    fn rewrite_reason(&self) -> String {
        let rules = self.report.fired.join("`, `");
        format!("hookc rewrote this call's input (rules `{rules}`)")
    }

    fn permission_request(&mut self) {
        let edited = self.edited_input();
        match self.verdict.clone() {
            Verdict::Block(message) => {
                self.specific.insert(
                    "decision".into(),
                    json!({"behavior": "deny", "message": message}),
                );
            }
            Verdict::Allow => {
                let mut decision = Map::new();
                decision.insert("behavior".into(), Value::from("allow"));
                if let Some(input) = edited {
                    decision.insert("updatedInput".into(), input);
                }
                self.specific
                    .insert("decision".into(), Value::Object(decision));
            }
            // Claude Code shows its permission dialog when a hook does not
            // decide: that is the ask.
            Verdict::Ask(reason) => self
                .notes
                .push(format!("ask: left to Claude Code's dialog: {reason}")),
            Verdict::Pass => {
                if edited.is_some() {
                    self.notes.push(
                        "PermissionRequest applies `updatedInput` only with `allow`; the rewrite is not sent".into(),
                    );
                }
            }
        }
        self.add_context(false);
    }

    /// Events with a top-level `decision: "block"`.
    fn block(&mut self, takes_context: bool) {
        let stop = matches!(self.event.name(), "Stop" | "SubagentStop");
        if stop && self.event.stop_hook_active {
            self.stop_guard();
            return;
        }
        if self.event.name() == "PostToolUse" {
            self.tool_output();
        }
        match self.verdict.clone() {
            Verdict::Block(reason) | Verdict::Ask(reason) => {
                if let Verdict::Ask(_) = self.verdict {
                    self.notes.push(format!(
                        "{} has no ask; blocking instead",
                        self.event.name()
                    ));
                }
                self.top.insert("decision".into(), Value::from("block"));
                self.top.insert("reason".into(), Value::String(reason));
            }
            Verdict::Allow | Verdict::Pass => {}
        }
        self.add_context(takes_context);
    }

    /// Stop or SubagentStop already continuing because of a stop hook: send
    /// nothing that would keep the turn going again.
    fn stop_guard(&mut self) {
        let event = self.event.name().to_string();
        if let Verdict::Block(reason) | Verdict::Ask(reason) = &self.verdict {
            self.notes.push(format!(
                "not blocking {event} again (stop_hook_active is true): {}",
                one_line(reason)
            ));
        }
        if let Some(text) = self.context_text() {
            self.notes.push(format!(
                "not adding context at {event} again (stop_hook_active is true): {}",
                one_line(&text)
            ));
        }
    }

    /// PostToolUse: a `skip` value, or an edited `tool_response`, is what
    /// Claude sees of the result.
    fn tool_output(&mut self) {
        let output = if self.report.outcome == OutcomeKind::Skip {
            // The skip is the result, not a block.
            self.verdict = Verdict::Pass;
            match &self.report.value {
                Some(value) if !value.is_null() => Some(value.clone()),
                _ => {
                    self.notes
                        .push("`skip` without a value: the tool's output is left as is".into());
                    None
                }
            }
        } else {
            let now = self.report.context.payload.get("tool_response");
            if now == self.event.tool_response.as_ref() {
                None
            } else if let Some(now) = now {
                Some(now.clone())
            } else {
                self.notes.push(
                    "the rules removed `tool_response`; there is no output to send instead".into(),
                );
                None
            }
        };
        if let Some(output) = output {
            self.specific.insert("updatedToolOutput".into(), output);
        }
    }

    /// Events that only exit code 2 blocks.
    fn exit_code(&mut self) {
        if let Verdict::Block(reason) | Verdict::Ask(reason) = &self.verdict {
            self.exit_2 = Some(reason.clone());
        }
        self.add_context(false);
    }

    fn elicitation(&mut self) {
        if let Verdict::Block(_) | Verdict::Ask(_) = &self.verdict {
            self.specific
                .insert("action".into(), Value::from("decline"));
        }
        self.add_context(false);
    }

    fn context_only(&mut self) {
        self.ignore_verdict();
        self.add_context(true);
    }

    fn display(&mut self) {
        self.ignore_verdict();
        let now = self.report.context.payload.get("delta");
        if now != self.event.delta.as_ref() {
            match now {
                Some(Value::String(text)) => {
                    self.specific
                        .insert("displayContent".into(), Value::String(text.clone()));
                }
                _ => self
                    .notes
                    .push("`delta` is no longer a string; the display is left as is".into()),
            }
        }
        self.add_context(false);
    }

    fn silent(&mut self) {
        self.ignore_verdict();
        self.add_context(false);
    }

    fn unknown(&mut self) {
        if !self.report.fired.is_empty() {
            self.notes.push(format!(
                "hookc does not know how to answer `{}`; rules fired, nothing sent",
                self.event.name()
            ));
        }
    }

    /// A decision at an event that cannot take one (only a custom schema lets
    /// rules write one there): noted, not sent.
    fn ignore_verdict(&mut self) {
        if let Verdict::Block(reason) | Verdict::Ask(reason) = &self.verdict {
            let event = self.event.name().to_string();
            self.notes.push(format!(
                "{event} cannot be blocked; ignored: {}",
                one_line(reason)
            ));
        }
    }

    fn finish(self) -> Response {
        if let Some(reason) = self.exit_2 {
            // With exit 2, stderr is the reason Claude Code shows: nothing else.
            return Response {
                stdout: None,
                stderr: Some(format!("{reason}\n")),
                exit_code: 2,
            };
        }
        if let Some(text) = self.stdout_text {
            // The protocol reads this text alone: no JSON beside it.
            let mut notes = self.notes;
            if !self.top.is_empty() || !self.specific.is_empty() {
                notes.push(format!(
                    "{} reads only the path on stdout; the rest of the answer is dropped",
                    self.event.name()
                ));
            }
            return Response {
                stdout: Some(format!("{text}\n")),
                stderr: (!notes.is_empty())
                    .then(|| notes.iter().map(|n| format!("hookc: {n}\n")).collect()),
                exit_code: 0,
            };
        }
        let mut object = self.top;
        if !self.specific.is_empty() {
            let mut specific = Map::new();
            specific.insert(
                "hookEventName".into(),
                Value::from(self.event.name().to_string()),
            );
            specific.extend(self.specific);
            object.insert("hookSpecificOutput".into(), Value::Object(specific));
        }
        let stdout = (!object.is_empty()).then(|| line(&Value::Object(object)));
        let stderr = (!self.notes.is_empty()).then(|| {
            self.notes
                .iter()
                .map(|note| format!("hookc: {note}\n"))
                .collect()
        });
        Response {
            stdout,
            stderr,
            exit_code: 0,
        }
    }
}

/// Puts `value` at `key` unless the outcome already set it.
fn insert_new(map: &mut Map<String, Value>, key: &str, value: &Value) -> Result<(), String> {
    if map.contains_key(key) {
        return Err(format!(
            "`{key}` is kept as the outcome set it; the output of the same name is dropped"
        ));
    }
    map.insert(key.to_string(), value.clone());
    Ok(())
}

/// The verdict of a report (a `skip` is a block whose reason is its value;
/// PostToolUse reads it differently, see [`Answer::tool_output`]).
fn verdict(report: &Report) -> Verdict {
    match report.outcome {
        OutcomeKind::Abort => Verdict::Block(reason(report, "blocked")),
        OutcomeKind::Skip => Verdict::Block(match &report.value {
            Some(Value::String(text)) if !text.is_empty() => text.clone(),
            Some(value) if !value.is_null() => value.to_string(),
            _ => reason(report, "skipped"),
        }),
        OutcomeKind::Ask => Verdict::Ask(reason(report, "confirm")),
        OutcomeKind::Continue => match report.decision {
            Some(Decision::Deny) => Verdict::Block(reason(report, "blocked")),
            Some(Decision::Ask) => Verdict::Ask(reason(report, "confirm")),
            Some(Decision::Allow) => Verdict::Allow,
            None => Verdict::Pass,
        },
    }
}

/// The report's reason, or `<verb> by hookc rule `<id>`` when the rule gave
/// none (Stop needs a reason: it is Claude's next instruction).
fn reason(report: &Report, verb: &str) -> String {
    match report.reason.as_deref() {
        Some(text) if !text.is_empty() => text.to_string(),
        _ => match report.fired.last() {
            Some(rule) => format!("{verb} by hookc rule `{rule}`"),
            None => format!("{verb} by hookc"),
        },
    }
}

/// Compact JSON and a newline: Claude Code parses stdout as one object.
fn line(value: &Value) -> String {
    let mut text = value.to_string();
    text.push('\n');
    text
}

/// Text on one line for a stderr note.
fn one_line(text: &str) -> String {
    text.replace('\n', " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(json: Value) -> Event {
        Event::parse(&json.to_string()).unwrap()
    }

    fn report(event: &Event, outcome: OutcomeKind, reason: Option<&str>) -> Report {
        Report {
            outcome,
            reason: reason.map(str::to_string),
            value: None,
            decision: match outcome {
                OutcomeKind::Abort => Some(Decision::Deny),
                OutcomeKind::Ask => Some(Decision::Ask),
                _ => None,
            },
            context: event.context().clone(),
            fired: vec!["r".into()],
            warnings: Vec::new(),
            logs: Vec::new(),
            additional_context: Vec::new(),
            outputs: Map::new(),
            generation: None,
        }
    }

    fn stdout_json(response: &Response) -> Value {
        serde_json::from_str(response.stdout.as_deref().unwrap()).unwrap()
    }

    #[test]
    fn tool_events_target_the_tool() {
        let e = event(json!({"hook_event_name": "PreToolUse", "tool_name": "Bash"}));
        assert_eq!(e.name(), "PreToolUse");
        assert_eq!(e.context().component_id, "claude-code::Bash");
        let e = event(json!({"hook_event_name": "Stop", "tool_name": ""}));
        assert_eq!(e.context().component_id, SESSION_COMPONENT);
    }

    #[test]
    fn bad_events_are_errors() {
        assert!(matches!(Event::parse("{"), Err(EventError::Json(_))));
        assert!(matches!(Event::parse("[]"), Err(EventError::NotObject)));
        assert!(matches!(
            Event::parse(r#"{"hook_event_name": 3}"#),
            Err(EventError::NoEventName)
        ));
    }

    #[test]
    fn pre_tool_use_deny() {
        let e = event(json!({"hook_event_name": "PreToolUse", "tool_name": "Bash"}));
        let r = e.answer(&report(&e, OutcomeKind::Abort, Some("no")));
        assert_eq!(r.exit_code, 0);
        assert_eq!(
            stdout_json(&r),
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                "permissionDecision": "deny", "permissionDecisionReason": "no"}})
        );
    }

    #[test]
    fn rewrite_alone_asks() {
        let e = event(json!({"hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": "a"}}));
        let mut rep = report(&e, OutcomeKind::Continue, None);
        rep.context.payload["tool_input"]["command"] = json!("b");
        let out = stdout_json(&e.answer(&rep));
        assert_eq!(out["hookSpecificOutput"]["permissionDecision"], "ask");
        assert_eq!(
            out["hookSpecificOutput"]["updatedInput"],
            json!({"command": "b"})
        );
    }

    #[test]
    fn nothing_is_silence() {
        let e = event(json!({"hook_event_name": "Notification"}));
        let r = e.answer(&report(&e, OutcomeKind::Continue, None));
        assert_eq!(r, Response::default());
    }

    #[test]
    fn stop_guard() {
        let e = event(json!({"hook_event_name": "Stop", "stop_hook_active": true}));
        let r = e.answer(&report(&e, OutcomeKind::Abort, Some("go on")));
        assert_eq!(r.stdout, None);
        assert_eq!(r.exit_code, 0);
        assert!(r
            .stderr
            .is_some_and(|s| s.contains("not blocking Stop again")));
    }

    #[test]
    fn exit_code_events() {
        let e = event(json!({"hook_event_name": "TaskCompleted"}));
        let r = e.answer(&report(&e, OutcomeKind::Abort, Some("tests fail")));
        assert_eq!(r.exit_code, 2);
        assert_eq!(r.stderr.as_deref(), Some("tests fail\n"));
        assert_eq!(r.stdout, None);
    }

    #[test]
    fn skip_is_the_result_after_a_tool_and_a_block_before() {
        let post = event(
            json!({"hook_event_name": "PostToolUse", "tool_name": "Bash",
            "tool_response": {"stdout": "secret"}}),
        );
        let mut rep = report(&post, OutcomeKind::Skip, None);
        rep.value = Some(json!({"stdout": "[hidden]"}));
        assert_eq!(
            stdout_json(&post.answer(&rep)),
            json!({"hookSpecificOutput": {"hookEventName": "PostToolUse",
                "updatedToolOutput": {"stdout": "[hidden]"}}})
        );
        let pre = event(json!({"hook_event_name": "PreToolUse", "tool_name": "Bash"}));
        let mut rep = report(&pre, OutcomeKind::Skip, None);
        rep.value = Some(json!("cached: 42 passed"));
        let out = stdout_json(&pre.answer(&rep));
        assert_eq!(out["hookSpecificOutput"]["permissionDecision"], "deny");
        assert_eq!(
            out["hookSpecificOutput"]["permissionDecisionReason"],
            "cached: 42 passed"
        );
    }

    #[test]
    fn permission_request_allow_carries_the_rewrite() {
        let e = event(
            json!({"hook_event_name": "PermissionRequest", "tool_name": "Bash",
            "tool_input": {"command": "npm test"}}),
        );
        let mut rep = report(&e, OutcomeKind::Continue, None);
        rep.decision = Some(Decision::Allow);
        rep.context.payload["tool_input"]["command"] = json!("npm test -- --ci");
        assert_eq!(
            stdout_json(&e.answer(&rep)),
            json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                "decision": {"behavior": "allow", "updatedInput": {"command": "npm test -- --ci"}}}})
        );
        // An ask is Claude Code's own dialog: no answer.
        let r = e.answer(&report(&e, OutcomeKind::Ask, Some("sure?")));
        assert_eq!(r.stdout, None);
    }

    #[test]
    fn context_an_event_cannot_take_is_noted() {
        let e = event(json!({"hook_event_name": "SessionEnd"}));
        let mut rep = report(&e, OutcomeKind::Continue, None);
        rep.additional_context = vec!["bye".into()];
        let r = e.answer(&rep);
        assert_eq!((r.stdout, r.exit_code), (None, 0));
        assert_eq!(
            r.stderr.as_deref(),
            Some("hookc: SessionEnd takes no context; dropped: bye\n")
        );
    }

    #[test]
    fn message_display_edits_are_the_display() {
        let e = event(json!({"hook_event_name": "MessageDisplay", "delta": "key AKIA…"}));
        let mut rep = report(&e, OutcomeKind::Continue, None);
        rep.context.payload["delta"] = json!("key [redacted]");
        assert_eq!(
            stdout_json(&e.answer(&rep)),
            json!({"hookSpecificOutput": {"hookEventName": "MessageDisplay",
                "displayContent": "key [redacted]"}})
        );
    }

    #[test]
    fn failures() {
        let open = failure(Some("PreToolUse"), "boom", FailMode::Open);
        assert_eq!((open.exit_code, open.stdout), (0, None));
        let closed = failure(Some("PreToolUse"), "boom", FailMode::Closed);
        assert_eq!(closed.exit_code, 2);
        let request = failure(Some("PermissionRequest"), "boom", FailMode::Closed);
        assert_eq!(
            stdout_json(&request)["hookSpecificOutput"]["decision"]["behavior"],
            "deny"
        );
    }
}
