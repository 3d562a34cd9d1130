//! Diagnostics as SARIF 2.1.0, the format GitHub code scanning accepts.
//!
//! [`sarif`] turns a run's diagnostics into one SARIF log with one run:
//!
//! ```text
//! {
//!   "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
//!   "version": "2.1.0",
//!   "runs": [{
//!     "tool": {"driver": {
//!       "name": "hookc", "version": "…", "informationUri": "…",
//!       "rules": [{"id": "unreachable-rule", "name": "UnreachableRule",
//!                  "shortDescription": {"text": "…"}, "fullDescription": {"text": "…"},
//!                  "help": {"text": "…", "markdown": "…"},
//!                  "defaultConfiguration": {"level": "warning"}}, …]
//!     }},
//!     "columnKind": "unicodeCodePoints",
//!     "results": [{
//!       "ruleId": "unreachable-rule", "ruleIndex": 0, "level": "warning",
//!       "message": {"text": "rule `b` can never run\nhelp: …"},
//!       "locations": [{"physicalLocation": {
//!         "artifactLocation": {"uri": "rules/guard.hooks"},
//!         "region": {"startLine": 12, "startColumn": 1, "endLine": 12, "endColumn": 40}}}],
//!       "relatedLocations": [{"id": 1, "message": {"text": "…"}, "physicalLocation": {…}}]
//!     }]
//!   }]
//! }
//! ```
//!
//! The driver lists every rule the caller describes (the lints, with their
//! documentation as help) and, after them, one entry for each other code
//! that a result uses (checker errors such as `unknown-point`), so every
//! result's `ruleId` is in `tool.driver.rules`. Levels are `error`,
//! `warning` and `note`. Lines and columns are 1-based and count characters;
//! `endColumn` is the column just past the span. Paths are written as URIs
//! relative to `base` (the directory the scan runs in) when they are under
//! it, with `/` separators and percent-escapes; other absolute paths become
//! `file://` URIs.

use super::{Diagnostic, Diagnostics, Label, Severity};
use crate::span::SourceFile;
use serde_json::{json, Map, Value};
use std::path::Path;

/// The SARIF schema the output follows.
pub const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// Where people can read about the tool.
pub const INFORMATION_URI: &str = "https://crates.io/crates/hookc";

/// What SARIF says about one rule (a lint or a checker code).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleInfo {
    /// The stable code, e.g. `unreachable-rule`.
    pub id: String,
    /// One sentence.
    pub short: String,
    /// The full documentation, as Markdown.
    pub help: String,
    /// The level the rule reports at unless configured.
    pub default: Severity,
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}

/// `unreachable-rule` → `UnreachableRule`.
fn pascal(code: &str) -> String {
    code.split(['-', '_'])
        .map(|w| {
            let mut chars = w.chars();
            match chars.next() {
                Some(c) => c.to_uppercase().chain(chars).collect::<String>(),
                None => String::new(),
            }
        })
        .collect()
}

/// Markdown to plain text, roughly: headings lose their `#`, code fences
/// disappear, code stays as it is.
fn plain(markdown: &str) -> String {
    let mut code = false;
    let mut out = Vec::new();
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            code = !code;
            continue;
        }
        out.push(if code {
            line
        } else {
            line.trim_start_matches('#').trim_start()
        });
    }
    out.join("\n")
}

fn rule_json(rule: &RuleInfo) -> Value {
    json!({
        "id": rule.id,
        "name": pascal(&rule.id),
        "shortDescription": {"text": rule.short},
        "fullDescription": {"text": plain(&rule.help)},
        "help": {"text": plain(&rule.help), "markdown": rule.help},
        "defaultConfiguration": {"level": level(rule.default)},
        "properties": {"tags": ["hookc"]},
    })
}

/// Percent-escapes what a URI path cannot hold as is.
fn escape(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/:@!$&'()*+,;=".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A file name as a SARIF URI: relative to `base` when under it.
pub fn uri(name: &str, base: Option<&Path>) -> String {
    let path = Path::new(name);
    let relative = if path.is_absolute() {
        base.and_then(|b| path.strip_prefix(b).ok())
            .map(|rel| rel.to_string_lossy().into_owned())
    } else {
        Some(name.to_string())
    };
    match relative {
        Some(rel) => {
            let rel = rel.replace('\\', "/");
            let rel = rel.strip_prefix("./").unwrap_or(&rel).to_string();
            escape(&rel)
        }
        None => format!("file://{}", escape(&name.replace('\\', "/"))),
    }
}

fn region(file: &SourceFile, label: &Label) -> Value {
    let (start_line, start_col) = file.line_col(label.span.start);
    let (end_line, end_col) = file.line_col(label.span.end);
    json!({
        "startLine": start_line,
        "startColumn": start_col,
        "endLine": end_line,
        "endColumn": end_col,
    })
}

fn physical(file: &SourceFile, label: Option<&Label>, base: Option<&Path>) -> Value {
    let mut loc = Map::new();
    loc.insert(
        "artifactLocation".into(),
        json!({"uri": uri(&file.name, base)}),
    );
    if let Some(label) = label {
        loc.insert("region".into(), region(file, label));
    }
    Value::Object(loc)
}

fn result(d: &Diagnostic, index: usize, base: Option<&Path>) -> Value {
    let mut text = d.message.clone();
    if let Some(help) = &d.help {
        text.push_str("\nhelp: ");
        text.push_str(help);
    }
    let mut out = Map::new();
    out.insert("ruleId".into(), json!(d.code));
    out.insert("ruleIndex".into(), json!(index));
    out.insert("level".into(), json!(level(d.severity)));
    out.insert("message".into(), json!({ "text": text }));
    if let Some(file) = &d.file {
        let primary = d
            .labels
            .iter()
            .find(|l| l.primary)
            .or_else(|| d.labels.first());
        out.insert(
            "locations".into(),
            json!([{ "physicalLocation": physical(file, primary, base) }]),
        );
        let related: Vec<Value> = d
            .labels
            .iter()
            .filter(|l| primary.is_none_or(|p| !std::ptr::eq(*l, p)))
            .enumerate()
            .map(|(i, l)| {
                let mut r = Map::new();
                r.insert("id".into(), json!(i + 1));
                r.insert("physicalLocation".into(), physical(file, Some(l), base));
                if !l.message.is_empty() {
                    r.insert("message".into(), json!({ "text": l.message }));
                }
                Value::Object(r)
            })
            .collect();
        if !related.is_empty() {
            out.insert("relatedLocations".into(), Value::Array(related));
        }
    }
    Value::Object(out)
}

/// The diagnostics as a SARIF 2.1.0 log (shape in the module docs). `rules`
/// describes the rules the tool has; codes used by results and not in it
/// get a short generic entry. Paths under `base` are written relative to it.
pub fn sarif(diags: &Diagnostics, rules: &[RuleInfo], base: Option<&Path>) -> Value {
    let mut all: Vec<RuleInfo> = rules.to_vec();
    for d in diags.iter() {
        if !all.iter().any(|r| r.id == d.code) {
            all.push(RuleInfo {
                id: d.code.to_string(),
                short: format!("hookc check `{}`", d.code),
                help: format!(
                    "A finding of the hookc checker (`{}`); the result's message says what is wrong and how to fix it.",
                    d.code
                ),
                default: d.severity,
            });
        }
    }
    let results: Vec<Value> = diags
        .iter()
        .map(|d| {
            let index = all.iter().position(|r| r.id == d.code).unwrap_or(0);
            result(d, index, base)
        })
        .collect();
    json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "hookc",
                    "version": env!("CARGO_PKG_VERSION"),
                    "semanticVersion": env!("CARGO_PKG_VERSION"),
                    "informationUri": INFORMATION_URI,
                    "rules": all.iter().map(rule_json).collect::<Vec<_>>(),
                }
            },
            "columnKind": "unicodeCodePoints",
            "results": results,
        }]
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::span::Span;

    #[test]
    fn uris_are_relative_and_escaped() {
        let base = Path::new("/repo");
        assert_eq!(uri("rules/guard.hooks", Some(base)), "rules/guard.hooks");
        assert_eq!(uri("./rules/a b.hooks", Some(base)), "rules/a%20b.hooks");
        assert_eq!(uri("/repo/rules/x.hooks", Some(base)), "rules/x.hooks");
        assert_eq!(
            uri("/elsewhere/x#1.hooks", Some(base)),
            "file:///elsewhere/x%231.hooks"
        );
        assert_eq!(pascal("unreachable-rule"), "UnreachableRule");
    }

    #[test]
    fn results_point_at_their_spans() {
        let file = SourceFile::new("a.hooks", "hook x on p {\n  abort\n}\n");
        let d = Diagnostic::warning("some-code", "message")
            .in_file(&file)
            .with_primary(Span::new(16, 21), "here")
            .with_secondary(Span::new(0, 4), "and here")
            .with_help("do this");
        let log = sarif(&Diagnostics(vec![d]), &[], None);
        let result = &log["runs"][0]["results"][0];
        assert_eq!(result["ruleId"], "some-code");
        assert_eq!(result["level"], "warning");
        assert_eq!(result["message"]["text"], "message\nhelp: do this");
        let region = &result["locations"][0]["physicalLocation"]["region"];
        assert_eq!(
            region,
            &json!({"startLine": 2, "startColumn": 3, "endLine": 2, "endColumn": 8})
        );
        assert_eq!(result["relatedLocations"][0]["message"]["text"], "and here");
        assert_eq!(
            log["runs"][0]["tool"]["driver"]["rules"][0]["id"],
            "some-code"
        );
    }
}
