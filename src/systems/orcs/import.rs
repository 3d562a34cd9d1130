//! ORCS `[[hooks]]` configuration (ADR-002 §6): TOML entries that become
//! rules.
//!
//! ```toml
//! [[hooks]]
//! id = "audit-requests"
//! fql = "builtin::*"
//! point = "request.pre_dispatch"
//! script = "hooks/audit.sh"
//! priority = 50
//! ```
//!
//! Each entry becomes one rule with the entry's id, FQL target, point,
//! priority (default 100) and `enabled` flag (default true; `false` is a
//! `disabled` rule). Its handler is, by field:
//!
//! - `script = "hooks/x.lua"`: `call lua "hooks/x.lua"`, a Lua handler
//!   with ORCS's conventions (it runs in builds with the `lua` feature;
//!   elsewhere it is a failed effect);
//! - `script = "path"` (any other file): `exec "path"` (run from the project
//!   directory, the event on stdin, as every `exec`);
//! - `handler = "name"` (hookc's addition): `call "name"`, a native handler
//!   the host registers;
//! - `handler_inline = "function(ctx) … end"`: `lua """…"""`, an inline Lua
//!   handler.
//!
//! hookc also reads `fail = "open" | "closed"` and `timeout = "5s"` (or a
//! number of milliseconds) on an entry. Other keys of an entry are warned
//! about; other tables of the file (`[model]`, …) are ignored.
//!
//! Layers merge as §6.3 says: entries accumulate, and a later layer's entry
//! replaces an earlier one with the same id (and moves to the end). An entry
//! without an id gets `hook-<n>`, its position in the merged list.

use crate::diag::{Diagnostic, Diagnostics};
use crate::fql::FqlPattern;
use crate::span::SourceFile;
use crate::syntax::pretty::quote;
use crate::{Compiled, Options};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// The `[[hooks]]` entries of one or more merged ORCS configuration layers.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HooksConfig {
    /// The entries, in order.
    pub hooks: Vec<HookDef>,
    /// Where each entry came from (the layer's name), for diagnostics.
    origins: Vec<String>,
}

/// One `[[hooks]]` entry.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct HookDef {
    /// Unique id; generated when absent.
    #[serde(default)]
    pub id: Option<String>,
    /// Which components the hook targets.
    pub fql: String,
    /// When it fires.
    pub point: String,
    /// A script to run (`exec`).
    #[serde(default)]
    pub script: Option<String>,
    /// An inline Lua handler.
    #[serde(default)]
    pub handler_inline: Option<String>,
    /// A native handler's name (`call`).
    #[serde(default)]
    pub handler: Option<String>,
    /// Lower runs earlier.
    #[serde(default = "default_priority")]
    pub priority: i32,
    /// Off when false.
    #[serde(default = "default_enabled")]
    pub enabled: bool,
    /// `open` or `closed`.
    #[serde(default)]
    pub fail: Option<String>,
    /// `5s`, `500ms`, or milliseconds.
    #[serde(default)]
    pub timeout: Option<toml::Value>,
    /// Keys hookc does not know.
    #[serde(flatten)]
    pub unknown: BTreeMap<String, toml::Value>,
}

fn default_priority() -> i32 {
    100
}

fn default_enabled() -> bool {
    true
}

#[derive(Deserialize)]
struct Layer {
    #[serde(default)]
    hooks: Vec<HookDef>,
}

impl HooksConfig {
    /// Reads the `[[hooks]]` entries of one TOML layer named `name`.
    ///
    /// # Errors
    ///
    /// A `config` diagnostic when the text is not TOML or an entry lacks a
    /// required key or has one of the wrong type.
    pub fn from_toml(name: &str, text: &str) -> Result<HooksConfig, Box<Diagnostic>> {
        let layer: Layer = toml::from_str(text).map_err(|e| {
            Box::new(
                Diagnostic::error(
                    "config",
                    format!("`{name}` is not a valid ORCS configuration"),
                )
                .with_help(e.message().to_string() + &location(text, e.span())),
            )
        })?;
        let origins = vec![name.to_string(); layer.hooks.len()];
        Ok(HooksConfig {
            hooks: layer.hooks,
            origins,
        })
    }

    /// Adds a later layer: its entries accumulate, and one with the id of an
    /// earlier entry replaces it.
    pub fn merge(&mut self, later: HooksConfig) {
        for (hook, origin) in later.hooks.into_iter().zip(later.origins) {
            if let Some(id) = &hook.id {
                let mut i = 0;
                while i < self.hooks.len() {
                    if self.hooks.get(i).and_then(|h| h.id.as_deref()) == Some(id) {
                        self.hooks.remove(i);
                        self.origins.remove(i);
                    } else {
                        i += 1;
                    }
                }
            }
            self.hooks.push(hook);
            self.origins.push(origin);
        }
    }

    /// The entries as `.hooks` text, and the problems found on the way
    /// (an entry with an error is left out of the text).
    pub fn to_source(&self) -> (String, Diagnostics) {
        let mut out = String::from(
            "# Rules from ORCS `[[hooks]]` configuration entries; regenerate, do not edit.\n",
        );
        let mut diagnostics = Diagnostics::new();
        for (n, hook) in self.hooks.iter().enumerate() {
            let origin = self.origins.get(n).map_or("configuration", String::as_str);
            let id = hook.id.clone().unwrap_or_else(|| format!("hook-{}", n + 1));
            match rule(&id, hook, origin, &mut diagnostics) {
                Some(text) => {
                    out.push('\n');
                    out.push_str(&text);
                }
                None => continue,
            }
        }
        (out, diagnostics)
    }
}

/// The rule text of one entry, or `None` (with an error) when it has none.
fn rule(id: &str, hook: &HookDef, origin: &str, diagnostics: &mut Diagnostics) -> Option<String> {
    let error = |message: String, help: &str| {
        Diagnostic::error("config", format!("{origin}: hook `{id}`: {message}")).with_help(help)
    };
    for key in hook.unknown.keys() {
        diagnostics.push(
            Diagnostic::warning("config", format!("{origin}: hook `{id}`: unknown key `{key}`"))
                .with_help("known keys: id, fql, point, script, handler, handler_inline, priority, enabled, fail, timeout"),
        );
    }
    if !valid_id(id) {
        diagnostics.push(error(
            format!("`{id}` cannot be a rule id"),
            "ids are letters, digits, `_` and `-`, starting with a letter or `_`",
        ));
        return None;
    }
    if let Err(e) = FqlPattern::parse(&hook.fql) {
        diagnostics.push(error(
            format!("bad `fql`: {e}"),
            "e.g. `builtin::*`, `*::*`",
        ));
        return None;
    }
    let handlers = [
        hook.script.as_ref().map(|s| {
            if s.ends_with(".lua") {
                format!("call lua {}", quote(s))
            } else {
                format!("exec {}", quote(s))
            }
        }),
        hook.handler.as_ref().map(|h| format!("call {}", quote(h))),
        hook.handler_inline.as_ref().map(|code| {
            if code.contains("\"\"\"") {
                // Cannot be written raw: an escaped string instead.
                format!("lua {}", quote(code.trim()))
            } else {
                format!("lua \"\"\"{}\"\"\"", code.trim())
            }
        }),
    ];
    let action = match handlers.iter().flatten().count() {
        0 => {
            diagnostics.push(error(
                "no handler".to_string(),
                "give it `script = \"path\"` or `handler = \"name\"`",
            ));
            return None;
        }
        1 => handlers.into_iter().flatten().next().unwrap_or_default(),
        _ => {
            diagnostics.push(error(
                "more than one handler".to_string(),
                "keep one of `script`, `handler` and `handler_inline`",
            ));
            return None;
        }
    };
    let mut header = format!(
        "hook {id} on {} at {} priority {}",
        hook.point,
        quote(&hook.fql),
        hook.priority
    );
    if !hook.enabled {
        header.push_str(" disabled");
    }
    match hook.fail.as_deref() {
        None => {}
        Some(mode @ ("open" | "closed")) => {
            let _ = write!(header, " fail {mode}");
        }
        Some(other) => {
            diagnostics.push(error(
                format!("`fail = \"{other}\"` is not a failure mode"),
                "use `fail = \"open\"` or `fail = \"closed\"`",
            ));
            return None;
        }
    }
    match &hook.timeout {
        None => {}
        Some(toml::Value::Integer(ms)) if *ms > 0 => {
            let _ = write!(header, " timeout {ms}ms");
        }
        Some(toml::Value::String(d)) if valid_duration(d) => {
            let _ = write!(header, " timeout {d}");
        }
        Some(other) => {
            diagnostics.push(error(
                format!("`timeout = {other}` is not a duration"),
                "use milliseconds (`timeout = 500`) or a string like `\"5s\"`",
            ));
            return None;
        }
    }
    Some(format!("{header} {{\n    {action}\n}}\n"))
}

/// Reads, merges (in order) and compiles ORCS configuration layers: what a
/// host loads into a [`Registry`](crate::Registry) at start-up.
///
/// ```no_run
/// let compiled = hookc::systems::orcs::import::compile(
///     &["/etc/orcs/orcs.toml", "project/.orcs/orcs.toml"],
///     &hookc::Options::default(),
/// ).map_err(|d| d.to_string())?;
/// let registry = hookc::Registry::new(compiled.table);
/// # Ok::<(), String>(())
/// ```
///
/// # Errors
///
/// Every diagnostic found, when one is an error: unreadable or invalid
/// layers, bad entries, and errors in the rules they make (an unknown point,
/// …, pointing into the generated text).
pub fn compile<P: AsRef<Path>>(layers: &[P], options: &Options) -> Result<Compiled, Diagnostics> {
    let mut merged = HooksConfig::default();
    let mut diagnostics = Diagnostics::new();
    for layer in layers {
        let path = layer.as_ref();
        let name = path.display().to_string();
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) => {
                diagnostics.push(Diagnostic::error(
                    "io",
                    format!("cannot read `{name}`: {e}"),
                ));
                continue;
            }
        };
        match HooksConfig::from_toml(&name, &text) {
            Ok(config) => merged.merge(config),
            Err(d) => diagnostics.push(*d),
        }
    }
    let (text, found) = merged.to_source();
    diagnostics.extend(found);
    let name = match layers.last() {
        Some(last) => format!("{} (as .hooks)", last.as_ref().display()),
        None => "orcs (as .hooks)".to_string(),
    };
    let result = crate::compile_sources(vec![SourceFile::new(name, text)], options);
    match result {
        Ok(mut compiled) if !diagnostics.has_errors() => {
            diagnostics.extend(std::mem::take(&mut compiled.warnings));
            compiled.warnings = diagnostics;
            Ok(compiled)
        }
        Ok(_) => Err(diagnostics),
        Err(more) => {
            diagnostics.extend(more);
            Err(diagnostics)
        }
    }
}

fn valid_id(id: &str) -> bool {
    let mut chars = id.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

fn valid_duration(d: &str) -> bool {
    let digits = d.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let unit = &d[digits.len()..];
    !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && matches!(unit, "ms" | "s" | "m")
}

/// ` (line L, column C)` for a byte span of `text`.
fn location(text: &str, span: Option<std::ops::Range<usize>>) -> String {
    let Some(span) = span else {
        return String::new();
    };
    let before = text.get(..span.start).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    format!(" (line {line}, column {col})")
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = r#"
debug = true

[[hooks]]
id = "audit-requests"
fql = "builtin::*"
point = "request.pre_dispatch"
script = "hooks/audit.sh"
priority = 50

[[hooks]]
id = "narrow"
fql = "builtin::llm"
point = "child.pre_spawn"
handler = "narrow_caps"
fail = "closed"
timeout = "2s"

[[hooks]]
fql = "*::*"
point = "tool.post_execute"
script = "hooks/metrics.sh"
enabled = false
"#;

    fn config(text: &str) -> HooksConfig {
        match HooksConfig::from_toml("orcs.toml", text) {
            Ok(c) => c,
            Err(e) => panic!("{e:?}"),
        }
    }

    #[test]
    fn entries_become_rules_with_the_adr_defaults() {
        let (text, diagnostics) = config(BASE).to_source();
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        assert!(text.contains(
            "hook audit-requests on request.pre_dispatch at \"builtin::*\" priority 50 {\n    exec \"hooks/audit.sh\"\n}"
        ), "{text}");
        assert!(text.contains(
            "hook narrow on child.pre_spawn at \"builtin::llm\" priority 100 fail closed timeout 2s {\n    call \"narrow_caps\"\n}"
        ), "{text}");
        assert!(
            text.contains("hook hook-3 on tool.post_execute at \"*::*\" priority 100 disabled {"),
            "{text}"
        );
    }

    #[test]
    fn lua_scripts_and_inline_handlers_become_lua_actions() {
        let (text, diagnostics) = config(
            r#"
[[hooks]]
id = "audit"
fql = "*::*"
point = "request.pre_dispatch"
script = "hooks/audit.lua"

[[hooks]]
id = "metrics"
fql = "*::*"
point = "tool.post_execute"
handler_inline = """
function(ctx) return ctx end
"""
"#,
        )
        .to_source();
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        assert!(
            text.contains("    call lua \"hooks/audit.lua\"\n"),
            "{text}"
        );
        assert!(
            text.contains("    lua \"\"\"function(ctx) return ctx end\"\"\"\n"),
            "{text}"
        );
        if let Err(d) = crate::compile_str("orcs.hooks", &text) {
            panic!("{d}");
        }
    }

    #[test]
    fn a_later_layer_replaces_by_id_and_accumulates_the_rest() {
        let mut merged = config(BASE);
        merged.merge(config(
            r#"
[[hooks]]
id = "audit-requests"
fql = "plugin::*"
point = "request.pre_dispatch"
script = "hooks/audit2.sh"

[[hooks]]
id = "extra"
fql = "*::*"
point = "signal.pre_dispatch"
handler = "x"
"#,
        ));
        let ids: Vec<_> = merged.hooks.iter().map(|h| h.id.clone()).collect();
        assert_eq!(
            ids,
            [
                Some("narrow".into()),
                None,
                Some("audit-requests".into()),
                Some("extra".into())
            ]
        );
        assert_eq!(merged.hooks[2].script.as_deref(), Some("hooks/audit2.sh"));
        assert_eq!(merged.hooks[2].priority, 100, "defaults apply per layer");
    }

    #[test]
    fn bad_entries_are_errors_that_name_the_entry() {
        let (text, diagnostics) = config(
            r#"
[[hooks]]
id = "two"
fql = "*::*"
point = "tool.pre_execute"
script = "a.sh"
handler = "b"

[[hooks]]
id = "none"
fql = "*::*"
point = "tool.pre_execute"

[[hooks]]
id = "badfql"
fql = "nocolons"
point = "tool.pre_execute"
script = "a.sh"

[[hooks]]
id = "odd"
fql = "*::*"
point = "tool.pre_execute"
script = "a.sh"
fail = "sideways"
colour = "blue"
"#,
        )
        .to_source();
        let messages: Vec<String> = diagnostics.iter().map(|d| d.message.clone()).collect();
        assert_eq!(
            messages,
            [
                "orcs.toml: hook `two`: more than one handler",
                "orcs.toml: hook `none`: no handler",
                "orcs.toml: hook `badfql`: bad `fql`: invalid FQL `nocolons`: missing `::` between scope and target",
                "orcs.toml: hook `odd`: unknown key `colour`",
                "orcs.toml: hook `odd`: `fail = \"sideways\"` is not a failure mode",
            ]
        );
        assert!(!text.contains("hook "), "no rule for a bad entry: {text}");
    }

    #[test]
    fn toml_errors_say_where() {
        let e = HooksConfig::from_toml("orcs.toml", "[[hooks]]\nid = \"x\"\n").unwrap_err();
        assert_eq!(e.message, "`orcs.toml` is not a valid ORCS configuration");
        let help = e.help.unwrap_or_default();
        assert!(help.contains("missing field `fql`"), "{help}");
    }
}
