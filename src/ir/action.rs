//! Actions: what a rule does when its condition holds.

use super::{Expr, FieldPath, RegexId, Root, Template};
use serde::{Deserialize, Serialize};

/// The timeout of a command, native handler or Lua handler whose rule sets
/// none, in milliseconds: the effects' default (`ExecConfig::default_timeout`),
/// which a host may change.
pub const DEFAULT_EFFECT_TIMEOUT_MS: u64 = 60_000;

/// Log levels of the `log` action.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    /// `trace`
    Trace,
    /// `debug`
    Debug,
    /// `info`
    Info,
    /// `warn`
    Warn,
    /// `error`
    Error,
}

impl LogLevel {
    /// The level written as `name`.
    pub fn from_name(name: &str) -> Option<LogLevel> {
        Some(match name {
            "trace" => LogLevel::Trace,
            "debug" => LogLevel::Debug,
            "info" => LogLevel::Info,
            "warn" | "warning" => LogLevel::Warn,
            "error" => LogLevel::Error,
            _ => return None,
        })
    }

    /// The level's name.
    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Trace => "trace",
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Warn => "warn",
            LogLevel::Error => "error",
        }
    }
}

/// One compiled action.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Do nothing.
    Continue,
    /// End the chain with an abort.
    Abort(Template),
    /// End the chain; the value is the operation's result.
    Skip(Expr),
    /// Swap the payload (post points only) and go on.
    Replace(Expr),
    /// Set a field.
    Set(FieldPath, Expr),
    /// Remove a field.
    Unset(FieldPath),
    /// Replace every match of a regex in a string field (`$1` refers to groups).
    Rewrite(FieldPath, RegexId, String),
    /// Put text before a string field.
    Prepend(FieldPath, Template),
    /// Put text after a string field.
    Append(FieldPath, Template),
    /// Set a metadata key.
    Meta(String, Expr),
    /// Emit a log line.
    Log(LogLevel, Template),
    /// Ask a human.
    Ask(Template),
    /// Allow.
    Allow,
    /// Add context text to the outcome.
    Context(Template),
    /// Run a program (no shell unless `shell`).
    Exec {
        /// Program, or the script for `sh`.
        program: String,
        /// Arguments, passed as argv.
        args: Vec<String>,
        /// True for `sh "…"`.
        shell: bool,
    },
    /// Post an event summary (fire and forget).
    Webhook {
        /// The destination, `https://…`.
        url: String,
        /// Fields whose values go into the summary (none by default: the
        /// summary carries no payload text unless the rule names it).
        include: Vec<FieldPath>,
        /// Extra request headers, `(name, value)`.
        headers: Vec<(String, String)>,
    },
    /// Call a native handler registered by the host.
    Call(String),
    /// Run a Lua handler.
    Lua(LuaCode),
    /// Append a line with the hashes of fields to a trace file.
    Trace {
        /// The file (relative to the project directory).
        file: String,
        /// The fields whose SHA-256 goes in the line.
        fields: Vec<FieldPath>,
    },
    /// Set a field of the host's answer (`output systemMessage = …`): the
    /// dotted name the point's schema declares, and its value.
    Output(String, Expr),
}

/// Where a Lua handler's code is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LuaCode {
    /// `call lua "hooks/audit.lua"`: a script file.
    File(String),
    /// `lua """function(ctx) … end"""`: inline source.
    Inline(String),
}

impl Action {
    /// True for actions that reach outside the event: commands, webhooks,
    /// handlers, Lua and traces.
    pub fn is_effect(&self) -> bool {
        matches!(
            self,
            Action::Exec { .. }
                | Action::Webhook { .. }
                | Action::Call(_)
                | Action::Lua(_)
                | Action::Trace { .. }
        )
    }

    /// What kind of work the action does outside the rule, as the cost
    /// report names it: `command`, `handler`, `lua`, `webhook`, `trace`,
    /// `ask` or `log`; `None` for actions that only compute or edit.
    pub fn effect_kind(&self) -> Option<&'static str> {
        Some(match self {
            Action::Exec { .. } => "command",
            Action::Call(_) => "handler",
            Action::Lua(_) => "lua",
            Action::Webhook { .. } => "webhook",
            Action::Trace { .. } => "trace",
            Action::Ask(_) => "ask",
            Action::Log(..) => "log",
            _ => return None,
        })
    }

    /// How long a dispatch can wait on this action, in milliseconds, for a
    /// rule with timeout `rule_timeout_ms`: a command, a native handler or
    /// a Lua handler runs under the rule's timeout, or
    /// [`DEFAULT_EFFECT_TIMEOUT_MS`] without one; `None` for every other
    /// action (a webhook only queues, a trace appends a line, `ask` and
    /// `log` are part of the outcome).
    pub fn blocking_timeout_ms(&self, rule_timeout_ms: Option<u64>) -> Option<u64> {
        match self {
            Action::Exec { .. } | Action::Call(_) | Action::Lua(_) => {
                Some(rule_timeout_ms.unwrap_or(DEFAULT_EFFECT_TIMEOUT_MS))
            }
            _ => None,
        }
    }

    /// The part of the context an edit action writes (`payload` or
    /// `metadata`); `None` for actions that change no part of it.
    pub fn edited_root(&self) -> Option<Root> {
        match self {
            Action::Replace(_) => Some(Root::Payload),
            Action::Meta(..) => Some(Root::Metadata),
            Action::Set(path, _)
            | Action::Unset(path)
            | Action::Rewrite(path, ..)
            | Action::Prepend(path, _)
            | Action::Append(path, _) => Some(path.root),
            Action::Continue
            | Action::Abort(_)
            | Action::Skip(_)
            | Action::Log(..)
            | Action::Ask(_)
            | Action::Allow
            | Action::Context(_)
            | Action::Exec { .. }
            | Action::Webhook { .. }
            | Action::Call(_)
            | Action::Lua(_)
            | Action::Trace { .. }
            | Action::Output(..) => None,
        }
    }
}
