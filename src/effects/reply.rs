//! A command's reply: what its stdout asks the chain to do.
//!
//! A command that exits with code 0 answers on stdout. [`parse`] reads it:
//!
//! - Empty (or whitespace only): no reply, the rule continues.
//! - Anything whose first non-whitespace byte is not `{`: plain text, ignored
//!   (Claude Code only shows such text in its transcript or debug log, or
//!   feeds it to the model on a few events; a rule cannot act on it).
//! - A JSON object: a reply, in either of two forms, which may be mixed.
//!   Unknown fields are ignored; a known field with a value of the wrong type
//!   or an unknown value makes the reply invalid, and so does text that starts
//!   with `{` but is not one JSON object. An invalid reply is a failure of
//!   the rule (unlike Claude Code, which treats it as plain text): a garbled
//!   decision goes through the rule's `fail open|closed` instead of being
//!   silently dropped.
//!
//! **hookc's outcome** (what `hookc eval` prints, [`Report`]), so that a
//! command can run another rule set and pass its verdict on:
//!
//! ```json
//! {"outcome": "continue|skip|abort|ask", "reason": "…", "value": …,
//!  "decision": "allow|ask|deny", "additional_context": ["…"] or "…",
//!  "context": {"payload": …, "metadata": {…}}}
//! ```
//!
//! `outcome` `abort` and `ask` take `reason`, `skip` takes `value` (the
//! operation's result). `decision` alone (with `outcome` `continue` or
//! absent) is a permission decision. `context.payload` replaces the payload
//! and `context.metadata` sets metadata keys; the other keys of `context` are
//! ignored.
//!
//! **Claude Code's output fields** (its command-hook protocol):
//!
//! | field | reply |
//! |---|---|
//! | `continue: false` (+ `stopReason`) | abort with `stopReason` |
//! | `decision: "block"` (+ `reason`) | abort with `reason` |
//! | `decision: "approve"` (legacy) | allow |
//! | `hookSpecificOutput.permissionDecision` `allow` / `deny` / `ask` (+ `permissionDecisionReason`) | allow / abort / ask with the reason |
//! | `hookSpecificOutput.permissionDecision: "defer"` | no decision |
//! | `hookSpecificOutput.decision.behavior` `allow` / `deny` (+ `message`) | allow / abort (PermissionRequest) |
//! | `hookSpecificOutput.updatedInput`, `hookSpecificOutput.decision.updatedInput` | new `payload.tool_input` |
//! | `hookSpecificOutput.additionalContext` | additional context |
//!
//! The other fields of Claude Code's answer are kept as the reply's
//! [`outputs`](Reply::outputs), which reach the host's answer as an `output`
//! action's would: the top-level `continue`, `stopReason`, `systemMessage`,
//! `suppressOutput` and `terminalSequence` (a `continue: false` is also an
//! abort, above), every other `hookSpecificOutput` field by its name
//! (`sessionTitle`, `watchPaths`, `retry`, a `permissionDecision` of
//! `defer`, …), and the other fields of `hookSpecificOutput.decision` as
//! `decision.NAME` (`decision.updatedPermissions`, `decision.interrupt`).
//! hookc's outcome form carries them as `outputs: {name: value}`.
//!
//! When a reply holds several decisions the strictest wins: abort (deny)
//! over skip over ask over allow. Among several abort reasons, `continue:
//! false` comes first (it overrides any decision in Claude Code).
//!
//! [`Report`]: crate::Report

use super::HookAction;
use serde_json::{Map, Value};

/// A command's reply, read from its stdout.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct Reply {
    /// What the chain does; `None` is continue.
    pub action: Option<HookAction>,
    /// Text for the outcome's `additional_context`.
    pub additional_context: Vec<String>,
    /// Claude Code's `updatedInput`: the new `payload.tool_input`.
    pub updated_input: Option<Value>,
    /// A new payload (hookc's reply form).
    pub payload: Option<Value>,
    /// Metadata keys to set (hookc's reply form).
    pub metadata: Map<String, Value>,
    /// The fields of the host's answer the reply sets besides its decision
    /// (Claude Code's `systemMessage`, `sessionTitle`, `decision.interrupt`,
    /// …), named as `output` names them, in the order written.
    pub outputs: Vec<(String, Value)>,
}

/// Claude Code's top-level answer fields that are not a decision: kept as
/// outputs.
const UNIVERSAL: [&str; 5] = [
    "continue",
    "stopReason",
    "systemMessage",
    "suppressOutput",
    "terminalSequence",
];

/// The `hookSpecificOutput` fields a reply reads as its decision, edits and
/// context; every other one is an output.
const READ_SPECIFIC: [&str; 6] = [
    "hookEventName",
    "permissionDecision",
    "permissionDecisionReason",
    "updatedInput",
    "additionalContext",
    "decision",
];

/// The reason of an abort whose reply gives none.
const BLOCKED: &str = "blocked by the hook command";
/// The reason of a `continue: false` without `stopReason`.
const STOPPED: &str = "stopped by the hook command";
/// The reason of an ask whose reply gives none.
const ASKED: &str = "the hook command asks for confirmation";

/// Reads a reply from stdout.
///
/// # Errors
///
/// What is wrong with a stdout that starts with `{` but is not a valid reply
/// (not JSON, more than one value, a known field of the wrong type or with
/// an unknown value).
pub fn parse(stdout: &[u8]) -> Result<Reply, String> {
    let text = stdout.trim_ascii();
    if !text.starts_with(b"{") {
        // Empty is "continue"; plain text is for humans, not a decision.
        return Ok(Reply::default());
    }
    // Read like an event: a Node.js hook that echoes the input it was
    // given writes its lone surrogates back.
    let text = std::str::from_utf8(text).map_err(|e| format!("not UTF-8: {e}"))?;
    let value = crate::event::parse(text).map_err(|e| format!("not a JSON object: {e}"))?;
    match value {
        Value::Object(object) => from_object(object),
        // Unreachable: text starting with `{` that parses is an object.
        other => Err(format!("expected a JSON object, found {other}")),
    }
}

/// The decisions a reply makes, before the strictest is chosen.
#[derive(Default)]
struct Verdicts {
    abort: Option<String>,
    skip: Option<Value>,
    ask: Option<String>,
    allow: bool,
}

impl Verdicts {
    /// Records an abort; the first reason stays.
    fn abort(&mut self, reason: Option<&str>, default: &str) {
        if self.abort.is_none() {
            self.abort = Some(reason.unwrap_or(default).to_string());
        }
    }

    /// Records an ask; the first reason stays.
    fn ask(&mut self, reason: Option<&str>) {
        if self.ask.is_none() {
            self.ask = Some(reason.unwrap_or(ASKED).to_string());
        }
    }

    /// The strictest decision: abort, skip, ask, allow, in that order.
    fn action(self) -> Option<HookAction> {
        if let Some(reason) = self.abort {
            Some(HookAction::Abort { reason })
        } else if let Some(value) = self.skip {
            Some(HookAction::Skip(value))
        } else if let Some(reason) = self.ask {
            Some(HookAction::Ask { reason })
        } else if self.allow {
            Some(HookAction::Allow)
        } else {
            None
        }
    }
}

fn from_object(mut object: Map<String, Value>) -> Result<Reply, String> {
    let mut reply = Reply::default();
    let mut verdicts = Verdicts::default();
    let reason = string(&object, "reason", "reason")?;

    // `continue: false` first: in Claude Code it overrides every decision,
    // so its reason is the one the user sees.
    match object.get("continue") {
        None | Some(Value::Null | Value::Bool(true)) => {}
        Some(Value::Bool(false)) => {
            let stop = string(&object, "stopReason", "stopReason")?;
            verdicts.abort(stop.as_deref(), STOPPED);
        }
        Some(other) => return Err(type_error("continue", "a boolean", other)),
    }

    // hookc's outcome.
    match string(&object, "outcome", "outcome")?.as_deref() {
        None | Some("continue") => {}
        Some("abort") => verdicts.abort(reason.as_deref(), BLOCKED),
        Some("ask") => verdicts.ask(reason.as_deref()),
        Some("skip") => verdicts.skip = Some(object.remove("value").unwrap_or(Value::Null)),
        Some(other) => {
            return Err(format!(
                "unknown `outcome` \"{other}\" (expected continue, skip, abort or ask)"
            ))
        }
    }

    // `decision` is hookc's permission decision (allow/ask/deny) or Claude
    // Code's top-level one (block, legacy approve).
    match string(&object, "decision", "decision")?.as_deref() {
        None => {}
        Some("allow" | "approve") => verdicts.allow = true,
        Some("ask") => verdicts.ask(reason.as_deref()),
        Some("deny" | "block") => verdicts.abort(reason.as_deref(), BLOCKED),
        Some(other) => {
            return Err(format!(
                "unknown `decision` \"{other}\" (expected block, approve, allow, ask or deny)"
            ))
        }
    }

    if let Some(text) = object.get("additional_context") {
        push_context(&mut reply, "additional_context", text)?;
    }

    match object.remove("context") {
        None | Some(Value::Null) => {}
        Some(Value::Object(mut context)) => {
            reply.payload = context.remove("payload");
            match context.remove("metadata") {
                None | Some(Value::Null) => {}
                Some(Value::Object(metadata)) => reply.metadata = metadata,
                Some(other) => return Err(type_error("context.metadata", "an object", &other)),
            }
        }
        Some(other) => return Err(type_error("context", "an object", &other)),
    }

    match object.remove("hookSpecificOutput") {
        None | Some(Value::Null) => {}
        Some(Value::Object(specific)) => {
            hook_specific(specific, reason.as_deref(), &mut verdicts, &mut reply)?;
        }
        Some(other) => return Err(type_error("hookSpecificOutput", "an object", &other)),
    }

    // The rest of the answer, for the host's.
    for key in UNIVERSAL {
        if let Some(value) = object.remove(key) {
            if !value.is_null() {
                reply.outputs.push((key.to_string(), value));
            }
        }
    }
    match object.remove("outputs") {
        None | Some(Value::Null) => {}
        Some(Value::Object(outputs)) => reply.outputs.extend(outputs),
        Some(other) => return Err(type_error("outputs", "an object", &other)),
    }

    reply.action = verdicts.action();
    Ok(reply)
}

/// Reads Claude Code's `hookSpecificOutput`; `reason` is the top-level one.
fn hook_specific(
    mut specific: Map<String, Value>,
    reason: Option<&str>,
    verdicts: &mut Verdicts,
    reply: &mut Reply,
) -> Result<(), String> {
    const WHERE: &str = "hookSpecificOutput.permissionDecisionReason";
    let decision = string(
        &specific,
        "permissionDecision",
        "hookSpecificOutput.permissionDecision",
    )?;
    let why = string(&specific, "permissionDecisionReason", WHERE)?;
    let why = why.as_deref().or(reason);
    match decision.as_deref() {
        None => {}
        // `defer` (headless Claude Code) hands the call back to the normal
        // permission flow: no decision here, but the host's answer says it.
        Some("defer") => reply
            .outputs
            .push(("permissionDecision".into(), Value::from("defer"))),
        Some("allow") => verdicts.allow = true,
        Some("ask") => verdicts.ask(why),
        Some("deny") => verdicts.abort(why, BLOCKED),
        Some(other) => {
            return Err(format!(
                "unknown `hookSpecificOutput.permissionDecision` \"{other}\" \
                 (expected allow, deny, ask or defer)"
            ))
        }
    }

    match specific.remove("updatedInput") {
        None | Some(Value::Null) => {}
        Some(input @ Value::Object(_)) => reply.updated_input = Some(input),
        Some(other) => {
            return Err(type_error(
                "hookSpecificOutput.updatedInput",
                "an object",
                &other,
            ))
        }
    }

    if let Some(text) = specific.get("additionalContext") {
        push_context(reply, "hookSpecificOutput.additionalContext", text)?;
    }

    // PermissionRequest: `decision: {behavior, message, updatedInput}`.
    match specific.remove("decision") {
        None | Some(Value::Null) => {}
        Some(Value::Object(mut decision)) => {
            let message = string(&decision, "message", "hookSpecificOutput.decision.message")?;
            let message = message.as_deref().or(reason);
            match string(
                &decision,
                "behavior",
                "hookSpecificOutput.decision.behavior",
            )?
            .as_deref()
            {
                None => {}
                Some("allow") => verdicts.allow = true,
                Some("deny") => verdicts.abort(message, BLOCKED),
                Some(other) => {
                    return Err(format!(
                        "unknown `hookSpecificOutput.decision.behavior` \"{other}\" \
                         (expected allow or deny)"
                    ))
                }
            }
            match decision.remove("updatedInput") {
                None | Some(Value::Null) => {}
                // `hookSpecificOutput.updatedInput` wins when both are given.
                Some(input @ Value::Object(_)) => {
                    reply.updated_input.get_or_insert(input);
                }
                Some(other) => {
                    return Err(type_error(
                        "hookSpecificOutput.decision.updatedInput",
                        "an object",
                        &other,
                    ))
                }
            }
            for (key, value) in decision {
                if !matches!(key.as_str(), "behavior" | "message") && !value.is_null() {
                    reply.outputs.push((format!("decision.{key}"), value));
                }
            }
        }
        Some(other) => {
            return Err(type_error(
                "hookSpecificOutput.decision",
                "an object",
                &other,
            ))
        }
    }
    for (key, value) in specific {
        if !READ_SPECIFIC.contains(&key.as_str()) && !value.is_null() {
            reply.outputs.push((key, value));
        }
    }
    Ok(())
}

/// An optional string field; `null` counts as absent (hookc's outcome writes
/// `"reason": null`).
fn string(object: &Map<String, Value>, key: &str, path: &str) -> Result<Option<String>, String> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(type_error(path, "a string", other)),
    }
}

/// Adds additional context: a string, or an array of strings.
fn push_context(reply: &mut Reply, path: &str, value: &Value) -> Result<(), String> {
    match value {
        Value::Null => {}
        Value::String(s) => reply.additional_context.push(s.clone()),
        Value::Array(items) => {
            for item in items {
                match item {
                    Value::String(s) => reply.additional_context.push(s.clone()),
                    other => return Err(type_error(path, "a string or strings", other)),
                }
            }
        }
        other => return Err(type_error(path, "a string or strings", other)),
    }
    Ok(())
}

fn type_error(path: &str, expected: &str, found: &Value) -> String {
    let found = match found {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    };
    format!("`{path}` must be {expected}, not {found}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn reply(text: &str) -> Reply {
        parse(text.as_bytes()).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    fn action(text: &str) -> Option<HookAction> {
        reply(text).action
    }

    fn abort(reason: &str) -> Option<HookAction> {
        Some(HookAction::Abort {
            reason: reason.to_string(),
        })
    }

    fn ask(reason: &str) -> Option<HookAction> {
        Some(HookAction::Ask {
            reason: reason.to_string(),
        })
    }

    #[test]
    fn empty_and_plain_text_continue() {
        for text in [
            "",
            "   \n\t",
            "hello",
            "[1, 2]",
            "\"x\"",
            "42",
            "ok {\"decision\":\"block\"}",
        ] {
            assert_eq!(reply(text), Reply::default(), "{text:?}");
        }
        assert_eq!(parse(b"\xff\xfe not utf-8"), Ok(Reply::default()));
        assert_eq!(action("{}"), None);
        assert_eq!(action("  \n {\"unknown\": [1, {\"x\": 2}]} \n"), None);
    }

    #[test]
    fn invalid_json_is_an_error() {
        for text in [
            "{not json",
            "{\"a\": 1} {\"b\": 2}",
            "{\"a\": 1",
            "{\"a\": 1} trailing",
        ] {
            let e = parse(text.as_bytes()).expect_err(text);
            assert!(e.starts_with("not a JSON object"), "{text}: {e}");
        }
    }

    #[test]
    fn hookc_outcomes() {
        assert_eq!(action(r#"{"outcome": "continue"}"#), None);
        assert_eq!(
            action(r#"{"outcome": "abort", "reason": "no"}"#),
            abort("no")
        );
        assert_eq!(
            action(r#"{"outcome": "abort", "reason": null}"#),
            abort(BLOCKED)
        );
        assert_eq!(
            action(r#"{"outcome": "ask", "reason": "sure?"}"#),
            ask("sure?")
        );
        assert_eq!(
            action(r#"{"outcome": "skip", "value": {"cached": true}}"#),
            Some(HookAction::Skip(json!({"cached": true})))
        );
        assert_eq!(
            action(r#"{"outcome": "skip"}"#),
            Some(HookAction::Skip(Value::Null))
        );
        assert_eq!(
            action(r#"{"outcome": "continue", "decision": "allow"}"#),
            Some(HookAction::Allow)
        );
        assert_eq!(
            action(r#"{"outcome": "continue", "decision": "deny", "reason": "r"}"#),
            abort("r")
        );
    }

    /// What the reply does not read as a decision, context or edit is kept
    /// for the host's answer, named as `output` names it.
    #[test]
    fn the_rest_of_claude_codes_answer_is_kept_as_outputs() {
        let r = reply(
            &json!({
                "continue": false,
                "stopReason": "build broken",
                "systemMessage": "heads up",
                "suppressOutput": null,
                "hookSpecificOutput": {
                    "hookEventName": "PermissionRequest",
                    "additionalContext": "ctx",
                    "decision": {
                        "behavior": "allow",
                        "updatedPermissions": [{"type": "setMode", "mode": "acceptEdits"}],
                        "interrupt": false
                    },
                    "sessionTitle": "auth"
                }
            })
            .to_string(),
        );
        assert_eq!(r.action, abort("build broken"));
        assert_eq!(r.additional_context, ["ctx"]);
        let names: Vec<&str> = r.outputs.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            names,
            [
                "decision.updatedPermissions",
                "decision.interrupt",
                "sessionTitle",
                "continue",
                "stopReason",
                "systemMessage",
            ]
        );
        let deferred = reply(
            r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "defer"}}"#,
        );
        assert_eq!(deferred.action, None);
        assert_eq!(
            deferred.outputs,
            [("permissionDecision".to_owned(), json!("defer"))]
        );
        let passed_on = reply(r#"{"outcome": "continue", "outputs": {"retry": true}}"#);
        assert_eq!(passed_on.outputs, [("retry".to_owned(), json!(true))]);
        assert!(parse(br#"{"outputs": [1]}"#).is_err());
    }

    #[test]
    fn a_whole_report_round_trips() {
        // What `hookc eval` prints for an abort.
        let text = json!({
            "outcome": "abort",
            "reason": "blocked dangerous command",
            "value": null,
            "decision": "deny",
            "context": {
                "hook_point": "tool.pre_execute",
                "component_id": "builtin::llm",
                "payload": {"tool": "exec", "args": "ls"},
                "metadata": {"seen": 1},
                "depth": 0,
                "max_depth": 4
            },
            "fired": ["block-dangerous"],
            "warnings": [],
            "logs": [],
            "additional_context": ["one", "two"]
        })
        .to_string();
        let r = reply(&text);
        assert_eq!(r.action, abort("blocked dangerous command"));
        assert_eq!(r.payload, Some(json!({"tool": "exec", "args": "ls"})));
        assert_eq!(r.metadata.get("seen"), Some(&json!(1)));
        assert_eq!(r.additional_context, ["one", "two"]);
        assert_eq!(r.updated_input, None);
    }

    #[test]
    fn claude_code_fields() {
        assert_eq!(
            action(r#"{"decision": "block", "reason": "lint errors"}"#),
            abort("lint errors")
        );
        assert_eq!(action(r#"{"decision": "block"}"#), abort(BLOCKED));
        assert_eq!(
            action(r#"{"decision": "approve"}"#),
            Some(HookAction::Allow)
        );
        assert_eq!(
            action(r#"{"continue": false, "stopReason": "build is broken"}"#),
            abort("build is broken")
        );
        assert_eq!(action(r#"{"continue": false}"#), abort(STOPPED));
        assert_eq!(
            action(r#"{"continue": true, "suppressOutput": true}"#),
            None
        );
        assert_eq!(
            action(
                r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse",
                    "permissionDecision": "deny", "permissionDecisionReason": "destructive"}}"#
            ),
            abort("destructive")
        );
        assert_eq!(
            action(r#"{"hookSpecificOutput": {"permissionDecision": "ask"}}"#),
            ask(ASKED)
        );
        assert_eq!(
            action(r#"{"hookSpecificOutput": {"permissionDecision": "allow"}}"#),
            Some(HookAction::Allow)
        );
        assert_eq!(
            action(r#"{"hookSpecificOutput": {"permissionDecision": "defer"}}"#),
            None
        );
        assert_eq!(
            action(
                r#"{"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                    "decision": {"behavior": "deny", "message": "not today", "interrupt": true}}}"#
            ),
            abort("not today")
        );
        assert_eq!(
            action(r#"{"hookSpecificOutput": {"decision": {"behavior": "allow"}}}"#),
            Some(HookAction::Allow)
        );
    }

    #[test]
    fn claude_code_edits_and_context() {
        let r = reply(
            r#"{"systemMessage": "hi", "hookSpecificOutput": {"hookEventName": "PreToolUse",
                "permissionDecision": "allow",
                "updatedInput": {"command": "npm test -- --runInBand"},
                "additionalContext": "Branch: main"}}"#,
        );
        assert_eq!(r.action, Some(HookAction::Allow));
        assert_eq!(
            r.updated_input,
            Some(json!({"command": "npm test -- --runInBand"}))
        );
        assert_eq!(r.additional_context, ["Branch: main"]);

        let r = reply(
            r#"{"hookSpecificOutput": {"decision": {"behavior": "allow",
                "updatedInput": {"command": "ls"}}}}"#,
        );
        assert_eq!(r.updated_input, Some(json!({"command": "ls"})));
    }

    #[test]
    fn strictest_decision_wins() {
        // deny > ask > allow, whatever the order of the fields.
        assert_eq!(
            action(
                r#"{"decision": "approve", "hookSpecificOutput": {"permissionDecision": "deny",
                    "permissionDecisionReason": "no"}}"#
            ),
            abort("no")
        );
        assert_eq!(
            action(
                r#"{"decision": "approve", "hookSpecificOutput": {"permissionDecision": "ask"}}"#
            ),
            ask(ASKED)
        );
        assert_eq!(
            action(
                r#"{"outcome": "ask", "reason": "q",
                    "hookSpecificOutput": {"decision": {"behavior": "deny"}}}"#
            ),
            abort("q")
        );
        // `continue: false` gives the reason.
        assert_eq!(
            action(r#"{"decision": "block", "reason": "r", "continue": false, "stopReason": "s"}"#),
            abort("s")
        );
        // An abort beats a skip.
        assert_eq!(
            action(r#"{"outcome": "skip", "value": 1, "decision": "block"}"#),
            abort(BLOCKED)
        );
    }

    #[test]
    fn ill_typed_fields_are_errors() {
        for (text, needle) in [
            (r#"{"decision": "maybe"}"#, "unknown `decision`"),
            (r#"{"outcome": "explode"}"#, "unknown `outcome`"),
            (
                r#"{"reason": 1}"#,
                "`reason` must be a string, not a number",
            ),
            (r#"{"continue": "no"}"#, "`continue` must be a boolean"),
            (
                r#"{"continue": false, "stopReason": []}"#,
                "`stopReason` must be a string",
            ),
            (
                r#"{"additional_context": [1]}"#,
                "`additional_context` must be a string or strings",
            ),
            (r#"{"context": 3}"#, "`context` must be an object"),
            (
                r#"{"context": {"metadata": []}}"#,
                "`context.metadata` must be an object",
            ),
            (
                r#"{"hookSpecificOutput": "deny"}"#,
                "`hookSpecificOutput` must be an object",
            ),
            (
                r#"{"hookSpecificOutput": {"permissionDecision": "yes"}}"#,
                "unknown `hookSpecificOutput.permissionDecision`",
            ),
            (
                r#"{"hookSpecificOutput": {"updatedInput": "rm -rf /"}}"#,
                "`hookSpecificOutput.updatedInput` must be an object, not a string",
            ),
            (
                r#"{"hookSpecificOutput": {"additionalContext": {}}}"#,
                "`hookSpecificOutput.additionalContext` must be a string or strings",
            ),
            (
                r#"{"hookSpecificOutput": {"decision": {"behavior": "ask"}}}"#,
                "unknown `hookSpecificOutput.decision.behavior`",
            ),
            (
                r#"{"hookSpecificOutput": {"decision": "allow"}}"#,
                "`hookSpecificOutput.decision` must be an object",
            ),
        ] {
            let e = parse(text.as_bytes()).expect_err(text);
            assert!(e.contains(needle), "{text}: {e}");
        }
    }
}
