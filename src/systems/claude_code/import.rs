//! Claude Code `settings.json` hooks: matcher groups and command handlers
//! that become rules of the `claude-code` schema.
//!
//! ```json
//! {
//!   "hooks": {
//!     "PreToolUse": [
//!       {"matcher": "Bash", "hooks": [{"type": "command", "command": "./hooks/check-bash.sh", "timeout": 30}]},
//!       {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "prettier", "args": ["--check"]}]}
//!     ],
//!     "Stop": [{"hooks": [{"type": "command", "command": "./hooks/before-stop"}]}]
//!   }
//! }
//! ```
//!
//! The same shape is read from `~/.claude/settings.json`,
//! `.claude/settings.json`, `.claude/settings.local.json`, managed settings
//! and a plugin's `hooks/hooks.json`; other keys of the file (`permissions`,
//! `env`, …) are not about hooks and are ignored. Several files merge as in
//! Claude Code: their hooks add up (in the order given), and a handler that
//! is the same in two files (same event, matcher, type, command, arguments
//! and shell) is imported once, with a note.
//!
//! # Mapping
//!
//! Each command handler becomes one rule on the point of its event (the
//! `claude-code` schema spells points as Claude Code spells events), with
//! id `<event-in-kebab-case>-<n>` (`pre-tool-use-1`: the n-th handler of
//! that event) and a comment that says where it came from.
//!
//! | Claude Code | `.hooks` |
//! |---|---|
//! | event name | the point (`PreToolUse`, `Stop`, …) |
//! | `matcher` omitted, `""`, `"*"` | no condition |
//! | `matcher` of letters, digits, `_`, `-`, spaces, `,`, `\|` | `when payload.F == "X"`, or `in ["X", "Y"]` for a list split on `\|` / `,` |
//! | any other `matcher` (a JavaScript regex, unanchored) | `when payload.F matches /re/` |
//! | `command` + `args` (exec form) | `exec "command" "arg" …` |
//! | `command` alone (shell form) | `sh "command"` |
//! | `command` + `shell: "bash"` | `exec "bash" "-c" "command"` |
//! | `command` + `shell: "powershell"` | `exec "pwsh" "-NoProfile" "-Command" "command"` (with a warning) |
//! | `timeout` (seconds) | `timeout N`; without one, Claude Code's default for the event: 10 min, UserPromptSubmit 30 s, MessageDisplay 10 s, SessionEnd 1.5 s (SessionEnd's own timeouts are capped at 60 s, as Claude Code caps the shared budget) |
//! | `if: "Tool(…)"` on a tool event | `when payload.tool_name == "Tool"` |
//! | `disableAllHooks: true` | every rule `disabled` |
//!
//! `F`, the field a matcher tests, is per event (protocol §3.2):
//! `tool_name` for the tool events (PreToolUse, PostToolUse,
//! PostToolUseFailure, PermissionRequest, PermissionDenied); `source` for
//! SessionStart, ConfigChange, DirectoryAdded; `trigger` for Setup,
//! PreCompact, PostCompact; `reason` for SessionEnd; `notification_type`
//! for Notification; `agent_type` for SubagentStart, SubagentStop; `error`
//! for StopFailure; `load_reason` for InstructionsLoaded; `command_name`
//! for UserPromptExpansion; `mcp_server_name` for Elicitation and
//! ElicitationResult. FileChanged matches the file's base name: a list of
//! names becomes `payload.file_path matches /(^|[\/\\])(?:a|b)$/`, and for
//! FileChanged and StopFailure only letters, digits, `_` and `|` make an
//! exact list (anything else is a regex), as in Claude Code.
//!
//! Claude Code runs the command hooks of one event in parallel and merges
//! their decisions (deny > ask > allow); hookc runs them in file order and
//! combines decisions the same way, but an abort ends the chain, so the
//! handlers after a blocking one do not run.
//!
//! # What does not map
//!
//! Reported as warnings (the rule is still written unless said otherwise):
//!
//! - `http`, `mcp_tool`, `prompt` and `agent` handlers: hookc has no such
//!   effect (a `webhook` cannot decide). Not imported.
//! - A regex matcher that the `regex` crate cannot compile (lookaround,
//!   backreferences: ECMAScript features). Not imported. Other regexes keep
//!   their meaning up to small differences (`\d`, `\w` are Unicode-aware in
//!   hookc, ASCII in JavaScript).
//! - A FileChanged regex matcher is tested on the whole path, not the base
//!   name.
//! - A matcher on an event that does not support one: ignored, as Claude
//!   Code ignores it (the rule runs for every event).
//! - The argument pattern of `if` (`Bash(git *)`): only the tool name is
//!   kept, so the rule runs for every call of that tool. An `if` on an
//!   event other than the tool events never runs in Claude Code: the rule
//!   is written `disabled`.
//! - `async` / `asyncRewake`: hookc runs the command before the chain goes
//!   on, so it can block.
//! - `statusMessage` (spinner text) and unknown keys.
//! - Claude Code's variables other than the project directory
//!   (`CLAUDE_PLUGIN_ROOT`, `CLAUDE_PLUGIN_DATA`, `CLAUDE_ENV_FILE`, …):
//!   hookc neither sets them for a shell nor substitutes `${…}` in the exec
//!   form. (`$CLAUDE_PROJECT_DIR` works in a shell command: hookc's `exec`
//!   sets it when the host has none; in the exec form `${CLAUDE_PROJECT_DIR}`
//!   is written `.`, the directory commands run in, with a note.)
//! - An unknown event: not imported.
//!
//! `once` is ignored, as Claude Code ignores it outside skill frontmatter
//! (a note). A command handler without `command`, a handler without `type`
//! and a timeout that is not a positive number are errors.
//!
//! The commands are Claude Code hooks, and they run unchanged: hookc's
//! `exec` speaks Claude Code's protocol (exit 0 / 2 / other, the JSON answer
//! on stdout), and under the `claude-code` schema a command's stdin is the
//! Claude Code event itself (`.tool_input.command`, …), edits of earlier
//! rules included.

use crate::diag::suggest::suggest_ignoring_case as suggest;
use crate::diag::{Diagnostic, Diagnostics};
use crate::import::write::{canonical, regex_literal, rule_block};
use crate::syntax::pretty::quote;
use serde::Deserialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The hooks of one or more Claude Code settings files, merged.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Settings {
    /// Every handler, in order.
    handlers: Vec<Handler>,
    /// `disableAllHooks` of the last file that sets it.
    disable_all: Option<bool>,
    /// Warnings found while reading (unknown matcher-group keys).
    found: Vec<Diagnostic>,
}

/// One handler of a matcher group, with where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Handler {
    /// The event, e.g. `PreToolUse`.
    pub event: String,
    /// The group's matcher.
    pub matcher: Option<String>,
    /// The handler.
    pub config: HandlerConfig,
    /// The file it came from.
    pub origin: String,
}

/// A hook handler of a matcher group.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct HandlerConfig {
    /// `command`, `http`, `mcp_tool`, `prompt` or `agent`.
    #[serde(rename = "type", default)]
    pub kind: Option<String>,
    /// A shell command, or the executable with `args`.
    #[serde(default)]
    pub command: Option<String>,
    /// Arguments: the exec form.
    #[serde(default)]
    pub args: Option<Vec<String>>,
    /// Seconds.
    #[serde(default)]
    pub timeout: Option<f64>,
    /// `bash` or `powershell`.
    #[serde(default)]
    pub shell: Option<String>,
    /// Run in the background.
    #[serde(rename = "async", default)]
    pub run_async: Option<bool>,
    /// Run in the background; exit 2 wakes Claude.
    #[serde(rename = "asyncRewake", default)]
    pub async_rewake: Option<bool>,
    /// Spinner text.
    #[serde(rename = "statusMessage", default)]
    pub status_message: Option<String>,
    /// Run once per session (skill frontmatter only).
    #[serde(default)]
    pub once: Option<bool>,
    /// A permission-rule pre-filter, e.g. `Bash(git *)`.
    #[serde(rename = "if", default)]
    pub condition: Option<String>,
    /// Keys of other handler types, and unknown keys.
    #[serde(flatten)]
    pub other: BTreeMap<String, Value>,
}

/// Claude Code's tool events.
const TOOL_EVENTS: [&str; 5] = [
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PermissionRequest",
    "PermissionDenied",
];

/// The payload field an event's matcher tests, for events that take one.
fn matched_field(event: &str) -> Option<&'static str> {
    Some(match event {
        e if TOOL_EVENTS.contains(&e) => "tool_name",
        "SessionStart" | "ConfigChange" | "DirectoryAdded" => "source",
        "Setup" | "PreCompact" | "PostCompact" => "trigger",
        "SessionEnd" => "reason",
        "Notification" => "notification_type",
        "SubagentStart" | "SubagentStop" => "agent_type",
        "FileChanged" => "file_path",
        "StopFailure" => "error",
        "InstructionsLoaded" => "load_reason",
        "UserPromptExpansion" => "command_name",
        "Elicitation" | "ElicitationResult" => "mcp_server_name",
        _ => return None,
    })
}

/// Claude Code's timeout of a command handler without one, in ms.
fn default_timeout_ms(event: &str) -> u64 {
    match event {
        "UserPromptSubmit" => 30_000,
        "MessageDisplay" => 10_000,
        "SessionEnd" => 1_500,
        _ => 600_000,
    }
}

/// The longest SessionEnd budget Claude Code allows.
const SESSION_END_MAX_MS: u64 = 60_000;

impl Settings {
    /// Reads the `hooks` of one settings file named `name` (and its
    /// `disableAllHooks`).
    ///
    /// # Errors
    ///
    /// An `import` diagnostic when the text is not JSON, or `hooks`, a
    /// matcher group or a handler does not have the documented shape.
    pub fn from_json(name: &str, text: &str) -> Result<Settings, Diagnostics> {
        Self::read(name, text).map_err(|d| Diagnostics(vec![*d]))
    }

    fn read(name: &str, text: &str) -> Result<Settings, Box<Diagnostic>> {
        let error = |message: String, help: &str| {
            Box::new(Diagnostic::error("import", format!("{name}: {message}")).with_help(help))
        };
        let root: Value = serde_json::from_str(text).map_err(|e| {
            Diagnostic::error("import", format!("`{name}` is not valid JSON"))
                .with_help(e.to_string())
        })?;
        let Value::Object(root) = root else {
            return Err(error(
                "not a settings object".to_string(),
                "settings.json is an object with a `hooks` key",
            ));
        };
        let disable_all = match root.get("disableAllHooks") {
            None => None,
            Some(Value::Bool(b)) => Some(*b),
            Some(_) => {
                return Err(error(
                    "`disableAllHooks` is not true or false".to_string(),
                    "write `\"disableAllHooks\": true`",
                ))
            }
        };
        let empty = Map::new();
        let events = match root.get("hooks") {
            None | Some(Value::Null) => &empty,
            Some(Value::Object(events)) => events,
            Some(_) => {
                return Err(error(
                    "`hooks` is not an object".to_string(),
                    "`hooks` maps event names to arrays of matcher groups",
                ))
            }
        };
        let mut handlers = Vec::new();
        let mut found = Vec::new();
        for (event, groups) in events {
            let Value::Array(groups) = groups else {
                return Err(error(
                    format!("`hooks.{event}` is not an array"),
                    "each event has an array of `{\"matcher\": …, \"hooks\": [...]}` groups",
                ));
            };
            for (g, group) in groups.iter().enumerate() {
                let Value::Object(group) = group else {
                    return Err(error(
                        format!("`hooks.{event}[{g}]` is not a matcher group"),
                        "a group is `{\"matcher\": \"Bash\", \"hooks\": [...]}`",
                    ));
                };
                let matcher =
                    match group.get("matcher") {
                        None | Some(Value::Null) => None,
                        Some(Value::String(m)) => Some(m.clone()),
                        Some(_) => return Err(error(
                            format!("the matcher of `hooks.{event}[{g}]` is not a string"),
                            "a matcher is a string: `\"Bash\"`, `\"Edit|Write\"`, `\"mcp__.*\"`",
                        )),
                    };
                let Some(Value::Array(list)) = group.get("hooks") else {
                    return Err(error(
                        format!("`hooks.{event}[{g}]` has no `hooks` array"),
                        "a group is `{\"matcher\": \"Bash\", \"hooks\": [...]}`",
                    ));
                };
                for (h, handler) in list.iter().enumerate() {
                    let config: HandlerConfig =
                        serde_json::from_value(handler.clone()).map_err(|e| {
                            error(
                                format!("`hooks.{event}[{g}].hooks[{h}]` is not a valid handler"),
                                &e.to_string(),
                            )
                        })?;
                    handlers.push(Handler {
                        event: event.clone(),
                        matcher: matcher.clone(),
                        config,
                        origin: name.to_string(),
                    });
                }
                for key in group.keys().filter(|k| *k != "matcher" && *k != "hooks") {
                    found.push(
                        Diagnostic::warning(
                            "import",
                            format!(
                                "{name}: `hooks.{event}[{g}]`: unknown key `{key}` is not imported"
                            ),
                        )
                        .with_help("a matcher group has `matcher` and `hooks`"),
                    );
                }
            }
        }
        Ok(Settings {
            handlers,
            disable_all,
            found,
        })
    }

    /// Adds a later file: its hooks add up; its `disableAllHooks`, when
    /// set, wins.
    pub fn merge(&mut self, later: Settings) {
        self.handlers.extend(later.handlers);
        self.found.extend(later.found);
        if later.disable_all.is_some() {
            self.disable_all = later.disable_all;
        }
    }

    /// The handlers, in order.
    pub fn handlers(&self) -> impl Iterator<Item = &Handler> {
        self.handlers.iter()
    }

    /// The hooks as `.hooks` text in the canonical layout, and the problems
    /// found on the way (a handler with an error is left out of the text).
    pub fn to_source(&self) -> (String, Diagnostics) {
        let mut out = String::from(
            "# Rules from Claude Code settings `hooks`; regenerate, do not edit.\nschema claude-code\n",
        );
        let mut diagnostics = Diagnostics(self.found.clone());
        let disabled = self.disable_all == Some(true);
        if disabled {
            diagnostics.push(
                Diagnostic::warning(
                    "import",
                    "`disableAllHooks` is true: every rule is imported disabled",
                )
                .with_help("remove `disabled` from the rules to turn them on"),
            );
        }
        let schema = crate::systems::builtin_schema("claude-code");
        let mut counters: BTreeMap<&str, usize> = BTreeMap::new();
        let mut seen: Vec<(&Handler, String)> = Vec::new();
        for handler in &self.handlers {
            let n = counters.entry(handler.event.as_str()).or_insert(0);
            *n += 1;
            let id = format!("{}-{n}", kebab(&handler.event));
            let known = schema
                .as_ref()
                .is_some_and(|s| s.point(&handler.event).is_some());
            if !known {
                let names = schema
                    .iter()
                    .flat_map(|s| s.points.iter().map(|p| p.name.as_str()));
                let help = match suggest(&handler.event, names) {
                    Some(s) => format!("did you mean `{s}`?"),
                    None => {
                        "the `claude-code` schema has Claude Code's documented events".to_string()
                    }
                };
                diagnostics.push(
                    Diagnostic::warning(
                        "import",
                        format!(
                            "{}: unknown event `{}`: its hooks are not imported",
                            handler.origin, handler.event
                        ),
                    )
                    .with_help(help),
                );
                continue;
            }
            if let Some((_, first)) = seen.iter().find(|(h, _)| h.same_handler(handler)) {
                diagnostics.push(Diagnostic::note(
                    "import",
                    format!(
                        "{}: a `{}` handler is the same as rule `{first}`: imported once, as Claude Code runs it once",
                        handler.origin, handler.event
                    ),
                ));
                continue;
            }
            seen.push((handler, id.clone()));
            let mut report = Report {
                handler,
                diagnostics: &mut diagnostics,
            };
            if let Some(text) = rule_text(&id, handler, disabled, &mut report) {
                out.push('\n');
                out.push_str(&text);
            }
        }
        (
            canonical("claude-settings.hooks", out, &mut diagnostics),
            diagnostics,
        )
    }
}

impl Handler {
    /// True when Claude Code would run the two as one (de-duplication).
    fn same_handler(&self, other: &Handler) -> bool {
        self.event == other.event
            && self.matcher == other.matcher
            && self.config.kind == other.config.kind
            && self.config.command.is_some()
            && self.config.command == other.config.command
            && self.config.args == other.config.args
            && self.config.shell == other.config.shell
    }
}

/// Where diagnostics about one handler go, and how they name it.
struct Report<'a> {
    handler: &'a Handler,
    diagnostics: &'a mut Diagnostics,
}

impl Report<'_> {
    fn push(&mut self, d: fn(&'static str, String) -> Diagnostic, message: String, help: &str) {
        let h = self.handler;
        let place = match &h.matcher {
            Some(m) => format!("{}: `{}` hook (matcher {})", h.origin, h.event, quote(m)),
            None => format!("{}: `{}` hook", h.origin, h.event),
        };
        let mut d = d("import", format!("{place}: {message}"));
        if !help.is_empty() {
            d = d.with_help(help);
        }
        self.diagnostics.push(d);
    }

    fn error(&mut self, message: impl Into<String>, help: &str) {
        self.push(Diagnostic::error, message.into(), help);
    }

    fn warning(&mut self, message: impl Into<String>, help: &str) {
        self.push(Diagnostic::warning, message.into(), help);
    }

    fn note(&mut self, message: impl Into<String>, help: &str) {
        self.push(Diagnostic::note, message.into(), help);
    }
}

fn rule_text(
    id: &str,
    handler: &Handler,
    disabled: bool,
    report: &mut Report<'_>,
) -> Option<String> {
    let config = &handler.config;
    let event = handler.event.as_str();
    match config.kind.as_deref() {
        Some("command") => {}
        Some(kind @ ("http" | "mcp_tool" | "prompt" | "agent")) => {
            report.warning(
                format!(
                    "{} `{kind}` handler is not imported",
                    if kind == "http" { "an" } else { "a" }
                ),
                "hookc runs commands (`exec`, `sh`); a `webhook` cannot decide like an http hook",
            );
            return None;
        }
        Some(kind) => {
            report.error(
                format!("unknown handler type `{kind}`"),
                "types are command, http, mcp_tool, prompt and agent",
            );
            return None;
        }
        None => {
            report.error("the handler has no `type`", "write `\"type\": \"command\"`");
            return None;
        }
    }
    let Some(command) = config.command.as_deref().filter(|c| !c.trim().is_empty()) else {
        report.error(
            "the command handler has no `command`",
            "give the command to run: `\"command\": \"./hooks/check.sh\"`",
        );
        return None;
    };
    for key in config.other.keys() {
        report.warning(
            format!("unknown key `{key}` is not imported"),
            "command handlers have type, command, args, timeout, shell, async, asyncRewake, statusMessage, once and if",
        );
    }

    let mut conditions = Vec::new();
    let mut disabled = disabled;
    if let Some(matcher) = &handler.matcher {
        conditions.extend(matcher_condition(event, matcher, report)?);
    }
    if let Some(filter) = &config.condition {
        if TOOL_EVENTS.contains(&event) {
            // `"matcher": "Bash"` with `"if": "Bash(…)"` tests the name once.
            if let Some(c) = if_condition(filter, report).filter(|c| !conditions.contains(c)) {
                conditions.push(c);
            }
        } else {
            report.warning(
                format!("`if` on `{event}`: the handler never runs in Claude Code, so the rule is disabled"),
                "`if` works on the tool events only",
            );
            disabled = true;
        }
    }

    let timeout_ms = match config.timeout {
        None => default_timeout_ms(event),
        Some(seconds) if seconds.is_finite() && seconds > 0.0 => {
            // At least 1 ms: a positive timeout never rounds to none.
            let ms = ((seconds * 1000.0).round() as u64).max(1);
            if event == "SessionEnd" {
                ms.min(SESSION_END_MAX_MS)
            } else {
                ms
            }
        }
        Some(other) => {
            report.error(
                format!("`timeout` {other} is not a positive number of seconds"),
                "Claude Code timeouts are seconds: `\"timeout\": 30`",
            );
            return None;
        }
    };

    let action = match (&config.args, config.shell.as_deref()) {
        (Some(args), _) => {
            // The exec form: Claude Code substitutes `${CLAUDE_PROJECT_DIR}`
            // in the text; hookc runs commands in the project directory, so
            // `.` is the same place.
            let texts = std::iter::once(command).chain(args.iter().map(String::as_str));
            if texts.clone().any(|t| t.contains(PROJECT_DIR_PLACEHOLDER)) {
                report.note(
                    format!("`{PROJECT_DIR_PLACEHOLDER}` is written `.`"),
                    "hookc runs commands in the project directory",
                );
            }
            if let Some(var) = texts
                .flat_map(placeholders)
                .find(|v| v != "CLAUDE_PROJECT_DIR")
            {
                report.warning(
                    format!("the command uses `${{{var}}}`, which Claude Code substitutes and hookc does not"),
                    "replace it with the path it stands for",
                );
            }
            let mut action = format!("exec {}", quote(&project_relative(command)));
            for arg in args {
                let _ = write!(action, " {}", quote(&project_relative(arg)));
            }
            action
        }
        (None, shell) => {
            // The shell form: the shell expands the variables. hookc sets
            // `CLAUDE_PROJECT_DIR` (when the host has none), not the others.
            if let Some(var) = claude_variables(command).find(|v| v != "CLAUDE_PROJECT_DIR") {
                report.warning(
                    format!("the command uses `{var}`, which Claude Code sets and hookc does not"),
                    "set it in the host's environment, or replace it with the path it stands for",
                );
            }
            match shell {
                None | Some("sh") => format!("sh {}", quote(command)),
                Some("bash") => format!("exec \"bash\" \"-c\" {}", quote(command)),
                Some("powershell") => {
                    report.warning(
                        "`shell: \"powershell\"` runs as `pwsh -NoProfile -Command`",
                        "Claude Code picks the PowerShell of the machine; check `pwsh` is on PATH",
                    );
                    format!(
                        "exec \"pwsh\" \"-NoProfile\" \"-Command\" {}",
                        quote(command)
                    )
                }
                Some(other) => {
                    report.error(
                        format!("unknown `shell` `{other}`"),
                        "Claude Code takes `bash` or `powershell`",
                    );
                    return None;
                }
            }
        }
    };

    if config.run_async == Some(true) || config.async_rewake == Some(true) {
        let key = if config.async_rewake == Some(true) {
            "asyncRewake"
        } else {
            "async"
        };
        report.warning(
            format!("`{key}` is not imported"),
            "hookc runs the command before the chain goes on, so it can block",
        );
    }
    if config.status_message.is_some() {
        report.warning("`statusMessage` is not imported", "hookc shows no spinner");
    }
    if config.once.is_some() {
        report.note(
            "`once` is ignored",
            "Claude Code honours `once` only in skill frontmatter",
        );
    }

    let mut header = format!("hook {id} on {event} timeout {timeout_ms}ms");
    if disabled {
        header.push_str(" disabled");
    }
    let mut body: Vec<String> = conditions
        .into_iter()
        .map(|c| format!("when {c}"))
        .collect();
    body.push(action);
    let source = match &handler.matcher {
        Some(m) => format!("# {}: {event}, matcher {}\n", handler.origin, quote(m)),
        None => format!("# {}: {event}\n", handler.origin),
    };
    Some(source + &rule_block(&header, &body))
}

/// The condition a matcher stands for: `Some(None)` for one that matches
/// everything, `None` (with a warning) for one that cannot be imported.
fn matcher_condition(
    event: &str,
    matcher: &str,
    report: &mut Report<'_>,
) -> Option<Option<String>> {
    let matcher_text = matcher.trim();
    if matcher_text.is_empty() || matcher_text == "*" {
        return Some(None);
    }
    let Some(field) = matched_field(event) else {
        report.warning(
            format!("`{event}` takes no matcher: it is ignored, as Claude Code ignores it"),
            "the rule runs for every event",
        );
        return Some(None);
    };
    // FileChanged and StopFailure split only on `|`, and take neither `-`,
    // spaces nor `,` in an exact name.
    let strict = matches!(event, "FileChanged" | "StopFailure");
    let exact = matcher.chars().all(|c| {
        c.is_ascii_alphanumeric()
            || c == '_'
            || c == '|'
            || (!strict && matches!(c, '-' | ' ' | ','))
    });
    if exact {
        let names: Vec<&str> = matcher
            .split(|c| c == '|' || (!strict && c == ','))
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .collect();
        if event == "FileChanged" {
            let alternatives: Vec<String> = names.iter().map(|n| regex::escape(n)).collect();
            let re = format!(r"(^|[/\\])(?:{})$", alternatives.join("|"));
            return Some(Some(format!(
                "payload.{field} matches {}",
                regex_literal(&re)
            )));
        }
        return Some(Some(match names.as_slice() {
            [] => return Some(None),
            [one] => format!("payload.{field} == {}", quote(one)),
            many => {
                let items: Vec<String> = many.iter().map(|n| quote(n)).collect();
                format!("payload.{field} in [{}]", items.join(", "))
            }
        }));
    }
    if let Err(e) = regex::Regex::new(matcher) {
        report.warning(
            format!("the matcher is a regex hookc cannot use, so the hook is not imported: {e}"),
            "Claude Code matchers are ECMAScript regexes; hookc has no lookaround or backreferences",
        );
        return None;
    }
    if event == "FileChanged" {
        report.warning(
            "the regex is tested on the whole path, not the file's base name",
            "anchor it at the end (`…$`) rather than at the start",
        );
    }
    Some(Some(format!(
        "payload.{field} matches {}",
        regex_literal(matcher)
    )))
}

/// The tool-name condition of an `if` filter (`Tool` or `Tool(args)`).
fn if_condition(filter: &str, report: &mut Report<'_>) -> Option<String> {
    let (tool, args) = match filter.split_once('(') {
        Some((tool, rest)) => (
            tool.trim(),
            Some(rest.trim_end().trim_end_matches(')').trim()),
        ),
        None => (filter.trim(), None),
    };
    let plain_name = !tool.is_empty()
        && tool
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if !plain_name {
        report.warning(
            format!("`if` {} is not imported", quote(filter)),
            "only `Tool` and `Tool(…)` filters are imported: the rule runs without it",
        );
        return None;
    }
    if let Some(args) = args.filter(|a| !a.is_empty() && *a != "*") {
        report.warning(
            format!("the argument pattern `{args}` of `if` is not imported"),
            &format!(
                "the rule runs for every `{tool}` call; the command can check the arguments itself"
            ),
        );
    }
    Some(format!("payload.tool_name == {}", quote(tool)))
}

/// Claude Code's exec-form placeholder for the project directory.
const PROJECT_DIR_PLACEHOLDER: &str = "${CLAUDE_PROJECT_DIR}";

/// An exec-form string with the project directory placeholder written `.`.
fn project_relative(text: &str) -> String {
    text.replace(PROJECT_DIR_PLACEHOLDER, ".")
}

/// The Claude Code variables a shell command refers to
/// (`$CLAUDE_PLUGIN_ROOT`, `${CLAUDE_ENV_FILE}`, …).
fn claude_variables(text: &str) -> impl Iterator<Item = String> + '_ {
    text.match_indices("CLAUDE_").filter_map(move |(at, _)| {
        let before = text.get(..at)?;
        if !(before.ends_with('$') || before.ends_with("${")) {
            return None;
        }
        variable_at(text, at)
    })
}

/// The `${CLAUDE_…}` placeholders of an exec-form string.
fn placeholders(text: &str) -> impl Iterator<Item = String> + '_ {
    text.match_indices("${CLAUDE_")
        .filter_map(move |(at, _)| variable_at(text, at + 2))
}

/// The variable name that starts at byte `at`.
fn variable_at(text: &str, at: usize) -> Option<String> {
    let rest = text.get(at..)?;
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    rest.get(..end).map(str::to_string)
}

/// `PreToolUse` → `pre-tool-use`.
fn kebab(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('-');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(text: &str) -> (String, Vec<String>) {
        let settings = match Settings::from_json("settings.json", text) {
            Ok(s) => s,
            Err(e) => panic!("{e:?}"),
        };
        let (text, diagnostics) = settings.to_source();
        let messages = diagnostics
            .iter()
            .map(|d| format!("{}: {}", d.severity, d.message))
            .collect();
        (text, messages)
    }

    #[test]
    fn matchers_become_conditions_and_commands_effects() {
        let (text, messages) = source(
            r#"{"hooks": {
                "PreToolUse": [
                    {"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh", "timeout": 30}]},
                    {"matcher": "Edit|Write, NotebookEdit", "hooks": [{"type": "command", "command": "${CLAUDE_PROJECT_DIR}/fmt", "args": ["--root=${CLAUDE_PROJECT_DIR}", "a b"]}]},
                    {"matcher": "mcp__.*__write.*", "hooks": [{"type": "command", "command": "echo hi", "shell": "bash"}]},
                    {"matcher": "*", "hooks": [{"type": "command", "command": "log"}]}
                ],
                "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "scan"}]}],
                "FileChanged": [{"matcher": "envrc|env_local", "hooks": [{"type": "command", "command": "reload"}]}]
            }}"#,
        );
        assert_eq!(
            messages,
            [
                "note: settings.json: `PreToolUse` hook (matcher \"Edit|Write, NotebookEdit\"): `${CLAUDE_PROJECT_DIR}` is written `.`",
            ]
        );
        assert!(text.starts_with("# Rules from Claude Code settings `hooks`; regenerate, do not edit.\nschema claude-code\n"), "{text}");
        for expected in [
            "# settings.json: PreToolUse, matcher \"Bash\"\nhook pre-tool-use-1 on PreToolUse timeout 30s {\n    when payload.tool_name == \"Bash\"\n    sh \"./check.sh\"\n}\n",
            "hook pre-tool-use-2 on PreToolUse timeout 10m {\n    when payload.tool_name in [\"Edit\", \"Write\", \"NotebookEdit\"]\n    exec \"./fmt\" \"--root=.\" \"a b\"\n}\n",
            "hook pre-tool-use-3 on PreToolUse timeout 10m {\n    when payload.tool_name matches /mcp__.*__write.*/\n    exec \"bash\" \"-c\" \"echo hi\"\n}\n",
            "hook pre-tool-use-4 on PreToolUse timeout 10m {\n    sh \"log\"\n}\n",
            "hook user-prompt-submit-1 on UserPromptSubmit timeout 30s {\n    sh \"scan\"\n}\n",
            "hook file-changed-1 on FileChanged timeout 10m {\n    when payload.file_path matches /(^|[\\/\\\\])(?:envrc|env_local)$/\n    sh \"reload\"\n}\n",
        ] {
            assert!(text.contains(expected), "missing:\n{expected}\nin:\n{text}");
        }
    }

    #[test]
    fn what_does_not_map_is_reported() {
        let (text, messages) = source(
            r#"{"disableAllHooks": true, "hooks": {
                "PreToolUse": [
                    {"matcher": "(?<=x)Bash", "hooks": [{"type": "command", "command": "a"}]},
                    {"matcher": "Bash", "hooks": [
                        {"type": "http", "url": "http://localhost:8080/hook"},
                        {"type": "command", "command": "\"$CLAUDE_PLUGIN_ROOT\"/hooks/x.sh", "async": true,
                         "statusMessage": "checking", "if": "Bash(git *)", "once": true, "colour": 1}
                    ]}
                ],
                "Stop": [{"matcher": "x", "hooks": [{"type": "command", "command": "b", "if": "Bash"}]}],
                "SessionEnd": [{"hooks": [{"type": "command", "command": "c", "timeout": 120}]}],
                "PreToolUze": [{"hooks": [{"type": "command", "command": "d"}]}]
            }}"#,
        );
        let expected = [
            "warning: `disableAllHooks` is true: every rule is imported disabled",
            "warning: settings.json: `PreToolUse` hook (matcher \"(?<=x)Bash\"): the matcher is a regex hookc cannot use, so the hook is not imported: regex parse error:\n    (?<=x)Bash\n    ^^^^\nerror: look-around, including look-ahead and look-behind, is not supported",
            "warning: settings.json: `PreToolUse` hook (matcher \"Bash\"): an `http` handler is not imported",
            "warning: settings.json: `PreToolUse` hook (matcher \"Bash\"): unknown key `colour` is not imported",
            "warning: settings.json: `PreToolUse` hook (matcher \"Bash\"): the argument pattern `git *` of `if` is not imported",
            "warning: settings.json: `PreToolUse` hook (matcher \"Bash\"): the command uses `CLAUDE_PLUGIN_ROOT`, which Claude Code sets and hookc does not",
            "warning: settings.json: `PreToolUse` hook (matcher \"Bash\"): `async` is not imported",
            "warning: settings.json: `PreToolUse` hook (matcher \"Bash\"): `statusMessage` is not imported",
            "note: settings.json: `PreToolUse` hook (matcher \"Bash\"): `once` is ignored",
            "warning: settings.json: `Stop` hook (matcher \"x\"): `Stop` takes no matcher: it is ignored, as Claude Code ignores it",
            "warning: settings.json: `Stop` hook (matcher \"x\"): `if` on `Stop`: the handler never runs in Claude Code, so the rule is disabled",
            "warning: settings.json: unknown event `PreToolUze`: its hooks are not imported",
        ];
        assert_eq!(messages, expected);
        assert!(text.contains("hook pre-tool-use-3 on PreToolUse timeout 10m disabled {\n    when payload.tool_name == \"Bash\"\n    sh \"\\\"$CLAUDE_PLUGIN_ROOT\\\"/hooks/x.sh\"\n}"), "{text}");
        assert!(
            text.contains("hook stop-1 on Stop timeout 10m disabled {\n    sh \"b\"\n}"),
            "{text}"
        );
        assert!(
            text.contains("hook session-end-1 on SessionEnd timeout 1m disabled {"),
            "{text}"
        );
        assert!(
            !text.contains("pre-tool-use-1 ") && !text.contains("pre-tool-use-2 "),
            "{text}"
        );
    }

    #[test]
    fn files_merge_and_duplicates_run_once() {
        let user =
            r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify"}]}]}}"#;
        let project = r#"{"disableAllHooks": false, "hooks": {"Stop": [{"hooks": [
            {"type": "command", "command": "notify"}, {"type": "command", "command": "test"}]}]}}"#;
        let mut settings = Settings::from_json("user.json", user).unwrap();
        settings.merge(Settings::from_json("project.json", project).unwrap());
        let (text, diagnostics) = settings.to_source();
        assert_eq!(
            diagnostics.count(crate::diag::Severity::Note),
            1,
            "{diagnostics:?}"
        );
        assert!(text.contains("hook stop-1 on Stop"), "{text}");
        assert!(!text.contains("hook stop-2 "), "{text}");
        assert!(
            text.contains("hook stop-3 on Stop timeout 10m {\n    sh \"test\"\n}"),
            "{text}"
        );
    }

    #[test]
    fn bad_shapes_are_errors() {
        for (text, message) in [
            ("[1]", "settings.json: not a settings object"),
            (
                r#"{"hooks": []}"#,
                "settings.json: `hooks` is not an object",
            ),
            (
                r#"{"hooks": {"Stop": {}}}"#,
                "settings.json: `hooks.Stop` is not an array",
            ),
            (
                r#"{"hooks": {"Stop": [{}]}}"#,
                "settings.json: `hooks.Stop[0]` has no `hooks` array",
            ),
            (
                r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "timeout": "5"}]}]}}"#,
                "settings.json: `hooks.Stop[0].hooks[0]` is not a valid handler",
            ),
        ] {
            let e = Settings::from_json("settings.json", text).unwrap_err();
            let e = &e.0[0];
            assert_eq!(e.message, message, "{text}");
        }
        let (_, messages) = source(
            r#"{"hooks": {"Stop": [{"hooks": [{"type": "command"}, {"command": "x"}, {"type": "command", "command": "y", "timeout": 0}]}]}}"#,
        );
        assert_eq!(
            messages,
            [
                "error: settings.json: `Stop` hook: the command handler has no `command`",
                "error: settings.json: `Stop` hook: the handler has no `type`",
                "error: settings.json: `Stop` hook: `timeout` 0 is not a positive number of seconds",
            ]
        );
    }

    #[test]
    fn helpers() {
        assert_eq!(kebab("PreToolUse"), "pre-tool-use");
        assert_eq!(kebab("Stop"), "stop");
        let vars: Vec<String> =
            claude_variables("${CLAUDE_PLUGIN_ROOT}/x $CLAUDE_PROJECT_DIR MY_CLAUDE_X").collect();
        assert_eq!(vars, ["CLAUDE_PLUGIN_ROOT", "CLAUDE_PROJECT_DIR"]);
        let found: Vec<String> =
            placeholders("${CLAUDE_PLUGIN_ROOT}/x $CLAUDE_ENV_FILE ${CLAUDE_PROJECT_DIR}")
                .collect();
        assert_eq!(found, ["CLAUDE_PLUGIN_ROOT", "CLAUDE_PROJECT_DIR"]);
        assert_eq!(project_relative("${CLAUDE_PROJECT_DIR}/bin/x"), "./bin/x");
    }
}
