//! `trace "file.jsonl" payload.x, …`: an append-only event trace.
//!
//! Each time the action runs it appends one JSON line to the file:
//!
//! ```json
//! {"ts_ms": 1763800000000, "rule": "trace-writes", "point": "PostToolUse",
//!  "component": "claude-code::Write", "child": null, "instance": null,
//!  "principal": "user:alice",
//!  "hashes": {"payload.tool_input.content": "sha256:9f86d08…"}}
//! ```
//!
//! - `ts_ms`: wall-clock milliseconds since the Unix epoch;
//! - `hashes`: for each named field, the SHA-256 of its value: a string's
//!   UTF-8 bytes as they are (so `sha256sum` of the same text agrees),
//!   any other value's compact JSON; `null` when the field is absent. The
//!   values themselves are never written: a trace proves what was there
//!   without keeping it.
//!
//! A relative path is resolved against the project directory (the one
//! `exec` commands run in). Missing parent directories are created. The
//! line goes out in one `write` on a file opened for appending, so lines
//! from concurrent dispatches (and processes) do not interleave. A trace
//! that cannot be written is a failure of the rule, handled by its failure
//! mode.

use super::{EffectError, ExecConfig};
use crate::event::{HookContext, Val};
use crate::ir::FieldPath;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

/// One trace line to append.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Trace<'a> {
    /// The file, as the rule wrote it.
    pub file: &'a str,
    /// Fields whose hashes go in the line.
    pub fields: &'a [FieldPath],
    /// The rule's id.
    pub rule: &'a str,
    /// The hook point.
    pub point: &'a str,
}

/// Appends the line of `trace` for `ctx`.
pub(crate) fn append(
    config: &ExecConfig,
    trace: &Trace<'_>,
    ctx: &HookContext,
) -> Result<(), EffectError> {
    let path = match &config.project_dir {
        Some(dir) => dir.join(trace.file),
        None => PathBuf::from(trace.file),
    };
    let mut line = serde_json::to_vec(&record(trace, ctx)).map_err(|e| EffectError::Trace {
        file: trace.file.to_string(),
        source: e.into(),
    })?;
    line.push(b'\n');
    let fail = |source: std::io::Error| EffectError::Trace {
        file: trace.file.to_string(),
        source,
    };
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(fail)?;
    }
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(fail)?;
    file.write_all(&line).map_err(fail)
}

/// The JSON record of one event.
fn record(trace: &Trace<'_>, ctx: &HookContext) -> Value {
    let ts_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    let mut hashes = Map::new();
    for field in trace.fields {
        let hash = ctx.get(field).map(|v| Value::String(hash(&v)));
        hashes.insert(field.to_string(), hash.unwrap_or(Value::Null));
    }
    serde_json::json!({
        "ts_ms": ts_ms,
        "rule": trace.rule,
        "point": trace.point,
        "component": ctx.component_id,
        "child": ctx.child_id,
        "instance": ctx.instance,
        "principal": ctx.principal,
        "hashes": hashes,
    })
}

/// `sha256:<hex>` of a value: a string's bytes, or other values' JSON.
fn hash(value: &Val<'_>) -> String {
    let digest = match value {
        Val::Str(s) => Sha256::digest(s.as_bytes()),
        other => Sha256::digest(other.to_json().to_string().as_bytes()),
    };
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for byte in digest {
        let _ = write!(out, "{byte:02x}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Root, Segment};
    use serde_json::json;

    fn path(root: Root, fields: &[&str]) -> FieldPath {
        FieldPath {
            root,
            segments: fields
                .iter()
                .map(|f| Segment::Field((*f).to_string()))
                .collect(),
            normalized: false,
        }
    }

    #[test]
    fn lines_hash_the_named_fields_and_never_hold_their_values() {
        let dir = std::env::temp_dir().join(format!("hookc-trace-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let config = ExecConfig {
            project_dir: Some(dir.clone()),
            ..ExecConfig::default()
        };
        let fields = [
            path(Root::Payload, &["text"]),
            path(Root::Payload, &["n"]),
            path(Root::Payload, &["missing"]),
        ];
        let trace = Trace {
            file: ".orchestration/agent_trace.jsonl",
            fields: &fields,
            rule: "t",
            point: "tool.post_execute",
        };
        let ctx = HookContext::new(
            "tool.post_execute",
            "builtin::fs",
            json!({"text": "test", "n": [1, 2]}),
        );
        for _ in 0..2 {
            if let Err(e) = append(&config, &trace, &ctx) {
                panic!("{e}");
            }
        }
        let text = std::fs::read_to_string(dir.join(".orchestration/agent_trace.jsonl"))
            .unwrap_or_default();
        let lines: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or(Value::Null))
            .collect();
        assert_eq!(lines.len(), 2, "{text}");
        let line = &lines[0];
        assert_eq!(line["rule"], "t");
        assert_eq!(line["component"], "builtin::fs");
        // `printf test | sha256sum`
        assert_eq!(
            line["hashes"]["payload.text"],
            "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
        );
        // `printf '[1,2]' | sha256sum`
        assert_eq!(
            line["hashes"]["payload.n"],
            "sha256:49a64717d5d4cb19952e6eac2946415cf6879adacf9908e7d872332d32c6e684"
        );
        assert_eq!(line["hashes"]["payload.missing"], Value::Null);
        assert!(
            !text.contains("\"test\""),
            "the value itself is not written"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_unwritable_trace_is_an_error() {
        let trace = Trace {
            file: "/proc/hookc-cannot-write-here/trace.jsonl",
            fields: &[],
            rule: "t",
            point: "p",
        };
        let ctx = HookContext::new("p", "a::b", json!({}));
        let err = append(&ExecConfig::default(), &trace, &ctx);
        assert!(matches!(err, Err(EffectError::Trace { .. })), "{err:?}");
    }
}
