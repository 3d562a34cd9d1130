//! MCP Router hooks (ADR-001): JavaScript pre / post hooks on MCP requests
//! that become rules running the script with `exec`.
//!
//! MCP Router keeps its hooks in SQLite as `MCPHook` records; the importer
//! reads them as JSON, an array of records or `{"hooks": [...]}`:
//!
//! ```json
//! [
//!   {"id": "7d0c", "name": "Block deletes", "enabled": true, "executionOrder": 1,
//!    "hookType": "pre",
//!    "script": "if (context.request.params?.name === 'delete_file') {\n  return {continue: false, error: {code: 'FORBIDDEN', message: 'no deletes'}};\n}\nreturn {continue: true};"}
//! ]
//! ```
//!
//! # Points
//!
//! A pre hook runs before MCP Router sends a request to a server, a post
//! hook after the response comes back, for every kind of request (tool
//! calls, tool lists, resources, prompts: the script filters on
//! `context.request.method`). The ORCS points for that are
//! `request.pre_dispatch` and `request.post_dispatch`, not
//! `tool.pre_execute` / `tool.post_execute`, which see tool calls only. The
//! host puts MCP Router's hook context (`request`, `response`, `metadata`,
//! …) in the event's `payload`; the rules target every component (`*::*`).
//!
//! # Mapping
//!
//! | MCP Router | `.hooks` |
//! |---|---|
//! | `name` (or `id`) | the rule id, lowercase, other characters as `-` (a taken id gets `-2`, …) |
//! | `hookType` `pre` / `post` / `both` | `on request.pre_dispatch` / `request.post_dispatch` / both |
//! | `executionOrder` (ascending) | `priority N` (ties keep the order of the file, as MCP Router's stable sort keeps its list order) |
//! | `enabled: false` | `disabled` |
//! | `script` | `exec "node" "<dir>/<id>.mjs"`: a generated runner with the script in it |
//! | the 5 s script limit | `timeout 5s` |
//! | errors are logged and the flow goes on (ADR §Implementation Notes 1) | `fail open` |
//!
//! `id`, `createdAt` and `updatedAt` are bookkeeping: the id is kept in a
//! comment above the rule, the dates are not imported.
//!
//! # The runner
//!
//! Each script is written to `<dir>/<id>.mjs` ([`Conversion::scripts`];
//! `hookc import mcp-router -o FILE` writes them to `mcp-router/` beside
//! FILE, and names them by that path in the rules). The runner
//! needs Node.js 18 or later. It does what MCP Router's `HookService` does
//! for one hook: it runs the script as the body of an `async function` in a
//! `vm` context with `context` (the event's payload), `console` (to
//! stderr), `sleep(ms)` and a `fetch` limited to `https://` without `Cookie`
//! and `Authorization` headers, and a 5 s limit on the synchronous part.
//! Then it answers with hookc's command protocol:
//!
//! - `{continue: false, error: {code, message}}`: exit 2 with
//!   `code: message` on stderr, so the rule aborts with that reason (the
//!   request is blocked, as MCP Router halts the chain);
//! - a returned `context`: printed as `{"context": {"payload": …}}` (hookc's
//!   reply form), the new payload for the rules after it (MCP Router passes
//!   it to the next hook);
//! - anything else: exit 0 with no output, continue;
//! - an exception: exit 1, which hookc logs while the flow goes on (the
//!   ADR's rule; MCP Router's `HookService` code instead blocks with
//!   `SCRIPT_ERROR`).
//!
//! # What does not map
//!
//! Reported as warnings: unknown keys, and an empty script (a no-op; not
//! imported). A `hookType` other than `pre`, `post`, `both`, a missing
//! `script`, an `executionOrder` that is not an integer of 32 bits are
//! errors.
//!
//! `vm` is not a security boundary in MCP Router either: the script runs
//! with Node.js's powers in both, under the rule's timeout here.

use crate::diag::{Diagnostic, Diagnostics};
use crate::import::write::{canonical, rule_block, rule_id, UniqueIds};
use crate::syntax::pretty::quote;
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The point of a pre hook.
pub const PRE_POINT: &str = "request.pre_dispatch";
/// The point of a post hook.
pub const POST_POINT: &str = "request.post_dispatch";

/// MCP Router's limit on a script's run.
const SCRIPT_TIMEOUT: &str = "5s";

/// The hooks of one or more MCP Router exports, in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Hooks {
    /// Each hook, with the file it came from.
    hooks: Vec<(McpHook, String)>,
}

/// One MCP Router hook (`MCPHook`).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct McpHook {
    /// MCP Router's id.
    #[serde(default)]
    pub id: Option<String>,
    /// The display name.
    #[serde(default)]
    pub name: Option<String>,
    /// Off when false.
    #[serde(default = "enabled_by_default")]
    pub enabled: bool,
    /// Lower runs first.
    #[serde(default)]
    pub execution_order: Option<Value>,
    /// `pre`, `post` or `both`.
    pub hook_type: String,
    /// JavaScript, the body of an async function.
    #[serde(default)]
    pub script: Option<String>,
    /// When it was made (not imported).
    #[serde(default)]
    pub created_at: Option<Value>,
    /// When it last changed (not imported).
    #[serde(default)]
    pub updated_at: Option<Value>,
    /// Keys hookc does not know.
    #[serde(flatten)]
    pub unknown: BTreeMap<String, Value>,
}

fn enabled_by_default() -> bool {
    true
}

/// The result of [`Hooks::to_source`]: the rules and the runners they run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Conversion {
    /// The `.hooks` text, in the canonical layout.
    pub text: String,
    /// One runner per imported hook.
    pub scripts: Vec<Script>,
    /// Problems found on the way (a hook with an error is left out).
    pub diagnostics: Diagnostics,
}

/// A generated runner script.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Script {
    /// Where the rule expects it: the `dir` given to
    /// [`Hooks::to_source`], then `<id>.mjs`.
    pub path: String,
    /// Its text.
    pub text: String,
}

impl Hooks {
    /// Reads one export named `name`: an array of hooks, or an object with
    /// them under `hooks`.
    ///
    /// # Errors
    ///
    /// An `import` diagnostic when the text is not JSON, not a list of
    /// hooks, or a hook lacks `hookType` or has a key of the wrong type.
    pub fn from_json(name: &str, text: &str) -> Result<Hooks, Diagnostics> {
        Self::read(name, text).map_err(|d| Diagnostics(vec![*d]))
    }

    fn read(name: &str, text: &str) -> Result<Hooks, Box<Diagnostic>> {
        let root: Value = serde_json::from_str(text).map_err(|e| {
            Diagnostic::error("import", format!("`{name}` is not valid JSON"))
                .with_help(e.to_string())
        })?;
        let list = match &root {
            Value::Array(list) => list,
            Value::Object(map) => match map.get("hooks") {
                Some(Value::Array(list)) => list,
                _ => return Err(not_hooks(name).into()),
            },
            _ => return Err(not_hooks(name).into()),
        };
        let mut hooks = Vec::with_capacity(list.len());
        for (n, value) in list.iter().enumerate() {
            let hook: McpHook = serde_json::from_value(value.clone()).map_err(|e| {
                let which = match value.get("name").and_then(Value::as_str) {
                    Some(hook) => format!("hook `{hook}`"),
                    None => format!("hook {}", n + 1),
                };
                Diagnostic::error("import", format!("{name}: {which} is not valid"))
                    .with_help(e.to_string())
            })?;
            hooks.push((hook, name.to_string()));
        }
        Ok(Hooks { hooks })
    }

    /// Adds a later export: its hooks come after these.
    pub fn merge(&mut self, later: Hooks) {
        self.hooks.extend(later.hooks);
    }

    /// The hooks, in order.
    pub fn hooks(&self) -> impl Iterator<Item = &McpHook> {
        self.hooks.iter().map(|(hook, _)| hook)
    }

    /// The hooks as `.hooks` text and runner scripts. `dir` is where the
    /// scripts go, as the rules name it: relative to the directory the host
    /// runs commands in (the project directory), e.g. `rules/mcp-router`.
    pub fn to_source(&self, dir: &str) -> Conversion {
        let mut text =
            String::from("# Rules from MCP Router hooks; regenerate, do not edit.\nschema orcs\n");
        let mut diagnostics = Diagnostics::new();
        let mut scripts = Vec::new();
        let mut ids = UniqueIds::default();
        let dir = dir.trim_end_matches('/');
        for (n, (hook, origin)) in self.hooks.iter().enumerate() {
            let label = hook
                .name
                .clone()
                .or_else(|| hook.id.clone())
                .unwrap_or_else(|| format!("{}", n + 1));
            let mut report = Report {
                origin,
                label: &label,
                diagnostics: &mut diagnostics,
            };
            let Some(parts) = parts(hook, &mut report) else {
                continue;
            };
            let id = ids.claim(&rule_id(&label.to_lowercase(), "mcp-hook"));
            let path = if dir.is_empty() {
                format!("{id}.mjs")
            } else {
                format!("{dir}/{id}.mjs")
            };
            let mut header = format!(
                "hook {id} on {} priority {} fail open timeout {SCRIPT_TIMEOUT}",
                parts.points, parts.priority
            );
            if !hook.enabled {
                header.push_str(" disabled");
            }
            let mut comment = format!("# MCP Router hook {}", quote(&label));
            if let Some(source_id) = &hook.id {
                let _ = write!(comment, " (id {})", quote(source_id));
            }
            let _ = writeln!(comment, ", {}", hook.hook_type);
            text.push('\n');
            text.push_str(&comment);
            text.push_str(&rule_block(
                &header,
                &[format!("exec \"node\" {}", quote(&path))],
            ));
            scripts.push(Script {
                text: runner(&label, hook.id.as_deref(), parts.script),
                path,
            });
        }
        let text = canonical("mcp-router.hooks", text, &mut diagnostics);
        Conversion {
            text,
            scripts,
            diagnostics,
        }
    }
}

fn not_hooks(name: &str) -> Diagnostic {
    Diagnostic::error(
        "import",
        format!("`{name}` is not a list of MCP Router hooks"),
    )
    .with_help("give an array of hooks, or an object with them under `hooks`")
}

/// Where diagnostics about one hook go, and how they name it.
struct Report<'a> {
    origin: &'a str,
    label: &'a str,
    diagnostics: &'a mut Diagnostics,
}

impl Report<'_> {
    fn push(&mut self, d: Diagnostic, help: &str) {
        self.diagnostics.push(d.with_help(help));
    }

    fn error(&mut self, message: impl std::fmt::Display, help: &str) {
        let message = format!("{}: hook `{}`: {message}", self.origin, self.label);
        self.push(Diagnostic::error("import", message), help);
    }

    fn warning(&mut self, message: impl std::fmt::Display, help: &str) {
        let message = format!("{}: hook `{}`: {message}", self.origin, self.label);
        self.push(Diagnostic::warning("import", message), help);
    }
}

/// What a valid hook becomes: its points, priority and script.
struct Parts<'a> {
    points: &'static str,
    priority: i32,
    script: &'a str,
}

fn parts<'a>(hook: &'a McpHook, report: &mut Report<'_>) -> Option<Parts<'a>> {
    for key in hook.unknown.keys() {
        report.warning(
            format_args!("unknown key `{key}` is not imported"),
            "known keys: id, name, enabled, executionOrder, hookType, script, createdAt, updatedAt",
        );
    }
    let points = match hook.hook_type.as_str() {
        "pre" => PRE_POINT,
        "post" => POST_POINT,
        "both" => "request.pre_dispatch, request.post_dispatch",
        other => {
            report.error(
                format_args!("`hookType` `{other}` is not pre, post or both"),
                "MCP Router hooks run before a request (`pre`), after it (`post`) or both",
            );
            return None;
        }
    };
    let priority = match &hook.execution_order {
        None | Some(Value::Null) => 0,
        Some(Value::Number(n)) => match n.as_i64().and_then(|n| i32::try_from(n).ok()) {
            Some(order) => order,
            None => {
                report.error(
                    format_args!("`executionOrder` {n} is not an integer of 32 bits"),
                    "hookc's priorities are integers from -2147483648 to 2147483647",
                );
                return None;
            }
        },
        Some(other) => {
            report.error(
                format_args!("`executionOrder` {other} is not a number"),
                "write `\"executionOrder\": 1`",
            );
            return None;
        }
    };
    let Some(script) = hook.script.as_deref() else {
        report.error("no `script`", "an MCP Router hook is a script");
        return None;
    };
    if script.trim().is_empty() {
        report.warning(
            "the script is empty: a no-op, not imported",
            "MCP Router runs it and goes on",
        );
        return None;
    }
    Some(Parts {
        points,
        priority,
        script,
    })
}

/// The runner of one hook: MCP Router's `HookService.executeScript` for
/// one script, speaking hookc's command protocol (see the module docs).
fn runner(name: &str, id: Option<&str>, script: &str) -> String {
    // JSON string literals are JavaScript string literals.
    let js = |s: &str| serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_string());
    let source = match id {
        Some(id) => format!("the MCP Router hook {} (id {})", js(name), js(id)),
        None => format!("the MCP Router hook {}", js(name)),
    };
    let mut text = format!(
        "// Generated by `hookc import mcp-router` from {source}; regenerate, do not edit.\n"
    );
    text.push_str(RUNNER_DOC);
    let _ = writeln!(text, "const NAME = {};", js(name));
    let _ = writeln!(text, "const SCRIPT = {};", js(script));
    text.push_str(RUNNER_BODY);
    text
}

const RUNNER_DOC: &str = "\
//
// Runs the hook's script as MCP Router's HookService does: as the body of an
// async function in a `vm` context with `context`, `console`, `sleep` and
// `fetch`. The event comes on stdin (a hookc HookContext whose payload is MCP
// Router's hook context); the answer follows hookc's command protocol:
// `{continue: false, error}` exits 2 with the error as the reason, a returned
// `context` becomes the new payload (`{\"context\": {\"payload\": ...}}` on
// stdout), and a script error exits 1 (logged; the flow goes on). Needs
// Node.js 18 or later.
import vm from \"node:vm\";

";

const RUNNER_BODY: &str = r#"
let input = "";
for await (const chunk of process.stdin) input += chunk;
const event = JSON.parse(input || "{}");

const log = (...args) => console.error("[hook script]", ...args);
const sandbox = {
  context: structuredClone(event.payload ?? {}),
  console: { log, info: log, warn: log, error: log },
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  // MCP Router's fetch: https only, no cookies or credentials, 10 s.
  fetch: async (url, options = {}) => {
    if (new URL(url).protocol !== "https:") throw new Error("Only HTTPS URLs are allowed");
    const headers = { ...(options.headers ?? {}) };
    delete headers.cookie;
    delete headers.authorization;
    const response = await fetch(url, {
      method: options.method ?? "GET",
      headers,
      ...(options.body !== undefined && { body: options.body }),
      signal: AbortSignal.timeout(10000),
    });
    return {
      ok: response.ok,
      status: response.status,
      statusText: response.statusText,
      headers: Object.fromEntries(response.headers.entries()),
      text: () => response.text(),
      json: () => response.json(),
    };
  },
};

let result;
try {
  const script = new vm.Script("(async function () {\n" + SCRIPT + "\n})()");
  result = await script.runInContext(vm.createContext(sandbox), { timeout: 5000 });
} catch (error) {
  console.error(`hook ${JSON.stringify(NAME)} failed: ${error?.message ?? error}`);
  process.exit(1);
}
if (result && result.continue === false) {
  const error = result.error ?? {};
  const reason = error.message
    ? error.code ? `${error.code}: ${error.message}` : String(error.message)
    : `blocked by MCP Router hook ${JSON.stringify(NAME)}`;
  process.stderr.write(reason);
  process.exit(2);
}
if (result && result.context !== undefined) {
  process.stdout.write(JSON.stringify({ context: { payload: result.context } }));
}
"#;

#[cfg(test)]
mod tests {
    use super::*;

    fn hooks(text: &str) -> Hooks {
        match Hooks::from_json("hooks.json", text) {
            Ok(h) => h,
            Err(e) => panic!("{e:?}"),
        }
    }

    #[test]
    fn hooks_become_rules_that_run_their_script() {
        let conversion = hooks(
            r#"[
                {"id": "a1", "name": "Block deletes", "enabled": true, "executionOrder": 2,
                 "hookType": "pre", "script": "return {continue: true};", "createdAt": 1, "updatedAt": 2},
                {"id": "b2", "name": "Audit log", "enabled": false, "executionOrder": 1,
                 "hookType": "both", "script": "console.log(context);"},
                {"id": "c3", "name": "Filter tools", "hookType": "post", "script": "return {continue: true};"}
            ]"#,
        )
        .to_source("rules/mcp-router/");
        assert!(
            conversion.diagnostics.is_empty(),
            "{:?}",
            conversion.diagnostics
        );
        let text = &conversion.text;
        assert!(
            text.starts_with(
                "# Rules from MCP Router hooks; regenerate, do not edit.\nschema orcs\n"
            ),
            "{text}"
        );
        for expected in [
            "# MCP Router hook \"Block deletes\" (id \"a1\"), pre\nhook block-deletes on request.pre_dispatch priority 2 fail open timeout 5s {\n    exec \"node\" \"rules/mcp-router/block-deletes.mjs\"\n}\n",
            "hook audit-log on request.pre_dispatch, request.post_dispatch priority 1 fail open timeout 5s disabled {\n    exec \"node\" \"rules/mcp-router/audit-log.mjs\"\n}\n",
            "hook filter-tools on request.post_dispatch priority 0 fail open timeout 5s {",
        ] {
            assert!(text.contains(expected), "missing:\n{expected}\nin:\n{text}");
        }
        let paths: Vec<&str> = conversion.scripts.iter().map(|s| s.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "rules/mcp-router/block-deletes.mjs",
                "rules/mcp-router/audit-log.mjs",
                "rules/mcp-router/filter-tools.mjs"
            ]
        );
        let runner = &conversion.scripts[1].text;
        assert!(runner.starts_with("// Generated by `hookc import mcp-router` from the MCP Router hook \"Audit log\" (id \"b2\")"), "{runner}");
        assert!(
            runner.contains("const SCRIPT = \"console.log(context);\";\n"),
            "{runner}"
        );
    }

    #[test]
    fn bad_hooks_are_errors_and_odd_ones_warnings() {
        let conversion = hooks(
            r#"{"hooks": [
                {"name": "sideways", "hookType": "around", "script": "x"},
                {"name": "huge", "hookType": "pre", "executionOrder": 1e12, "script": "x"},
                {"name": "none", "hookType": "pre"},
                {"name": "empty", "hookType": "pre", "script": "  "},
                {"name": "Extra", "hookType": "pre", "script": "x", "targets": []},
                {"name": "extra", "hookType": "pre", "script": "y"}
            ]}"#,
        )
        .to_source("");
        let messages: Vec<String> = conversion
            .diagnostics
            .iter()
            .map(|d| format!("{}: {}", d.severity, d.message))
            .collect();
        assert_eq!(
            messages,
            [
                "error: hooks.json: hook `sideways`: `hookType` `around` is not pre, post or both",
                "error: hooks.json: hook `huge`: `executionOrder` 1000000000000.0 is not an integer of 32 bits",
                "error: hooks.json: hook `none`: no `script`",
                "warning: hooks.json: hook `empty`: the script is empty: a no-op, not imported",
                "warning: hooks.json: hook `Extra`: unknown key `targets` is not imported",
            ]
        );
        assert!(
            conversion
                .text
                .contains("hook extra on request.pre_dispatch"),
            "{}",
            conversion.text
        );
        assert!(
            conversion
                .text
                .contains("hook extra-2 on request.pre_dispatch"),
            "{}",
            conversion.text
        );
        assert_eq!(conversion.scripts.len(), 2);
        assert_eq!(conversion.scripts[0].path, "extra.mjs");
        let e = Hooks::from_json("x.json", r#"{"rules": []}"#).unwrap_err();
        let e = &e.0[0];
        assert_eq!(e.message, "`x.json` is not a list of MCP Router hooks");
        let e = Hooks::from_json("x.json", r#"[{"name": "n"}]"#).unwrap_err();
        let e = &e.0[0];
        assert_eq!(e.message, "x.json: hook `n` is not valid");
    }
}
