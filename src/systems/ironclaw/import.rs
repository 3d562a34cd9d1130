//! IronClaw hook bundles: declarative rule hooks and outbound webhooks that
//! become rules.
//!
//! IronClaw reads bundles from `hooks/hooks.json` and `hooks/*.hook.json`
//! in a workspace and from the `hooks` section of an extension's
//! `capabilities.json` (`hooks` or `capabilities.hooks`). A bundle is
//! `{"rules": [...], "outbound_webhooks": [...]}`, or an array of rules:
//!
//! ```json
//! {
//!   "rules": [
//!     {"name": "block-forbidden", "points": ["beforeInbound"],
//!      "when_regex": "forbidden", "reject_reason": "forbidden content"},
//!     {"name": "redact-keys", "points": ["beforeOutbound"], "priority": 50,
//!      "replacements": [{"pattern": "sk-[a-zA-Z0-9]+", "replacement": "[REDACTED]"}]}
//!   ],
//!   "outbound_webhooks": [
//!     {"name": "notify", "points": ["beforeInbound"], "url": "https://example.com/hook",
//!      "headers": {"X-Source": "ironclaw"}, "timeout_ms": 1000}
//!   ]
//! }
//! ```
//!
//! # Points and the `ironclaw` schema
//!
//! IronClaw's six hook points are not ORCS points, and every IronClaw rule
//! works on the event's *primary content*, a string that differs by event.
//! The rules therefore use the built-in `ironclaw` schema
//! ([`crate::systems::ironclaw::schema`], `schema ironclaw`). Its points are
//! IronClaw's, spelt as in bundles; each has the event's fields under
//! `payload` and the primary content as `payload.content`:
//!
//! | point | kind | `payload.content` | other fields |
//! |---|---|---|---|
//! | `beforeInbound` | pre | the message | `user_id`, `channel`, `thread_id` |
//! | `beforeToolCall` | pre | the parameters as JSON text | `tool_name`, `parameters`, `user_id`, `context` |
//! | `beforeOutbound` | pre | the message | `user_id`, `channel`, `thread_id` |
//! | `onSessionStart` | event | the session id | `user_id`, `session_id` |
//! | `onSessionEnd` | event | the session id | `user_id`, `session_id`, `thread_ids` |
//! | `transformResponse` | post | the response | `user_id`, `thread_id`, `response` |
//!
//! Every point can block, as in IronClaw (a `Reject` ends the run at any
//! point). Between rules, dispatch applies an edit of `payload.content` the
//! way IronClaw's host applies a hook's modification (`apply_modification`,
//! recorded per point by the schema): it replaces the message or the
//! response (`payload.response` too), a tool call's is parsed as JSON into
//! `payload.parameters` (text that does not parse is dropped, with a
//! warning), and a session event's is not applied. So the next rule sees
//! what the next IronClaw hook would, and the host reads the outcome's
//! `payload.content` as IronClaw reads the chain's modification.
//!
//! # Mapping
//!
//! Each rule and webhook becomes one rule. They are registered as
//! IronClaw's registry registers them, in bundle order (rules, then
//! webhooks; bundles in the order given), and written in the order it runs
//! them: by priority, ties in registration order.
//!
//! A hook with the name of an earlier hook of the same bundle (rule or
//! webhook) replaces it, as in IronClaw: the earlier one is dropped, with a
//! warning, and the later one takes its place in the registry before it is
//! sorted by its own priority. A later hook IronClaw refuses replaces
//! nothing; a later no-op removes the earlier one. Names of different
//! bundles do not meet (IronClaw scopes them by bundle).
//!
//! The rule id is the `name` (characters other than letters, digits, `_`
//! and `-` become `-`; a name used in two bundles gets `-2`, `-3`, … with a
//! warning).
//!
//! | IronClaw | `.hooks` |
//! |---|---|
//! | `points` | the rule's points |
//! | `priority` (rules 100, webhooks 300) | `priority N` |
//! | `failure_mode` `fail_open` / `fail_closed` | `fail open` / `fail closed` |
//! | `timeout_ms` (1..=30000) | `timeout Nms`; webhooks without one get IronClaw's `2s` |
//! | `when_regex` | `when payload.content matches /re/` |
//! | `reject_reason` | `abort "reason"` |
//! | `replacements[]` `{pattern, replacement}` | `rewrite payload.content /pattern/ -> "replacement"`, in order (`$1`, `${name}` expand as in IronClaw: both use the `regex` crate) |
//! | `prepend` / `append` | `prepend payload.content "…"` / `append payload.content "…"`, after the replacements |
//! | webhook `url` | `webhook "url"` |
//! | webhook `headers` | `header "Name" "value"` clauses, sorted by name; a `Content-Type: application/json` is dropped (hookc always sends it) with a warning |
//!
//! Text that becomes a template (`reject_reason`, `prepend`, `append`) has
//! its braces doubled, so it stays literal.
//!
//! # What does not map
//!
//! Reported as warnings, never dropped silently:
//!
//! - `replacements`, `prepend` and `append` next to a `reject_reason`: IronClaw
//!   rejects first and never runs them, so they are left out.
//! - A rule with no `reject_reason`, `replacements`, `prepend` or `append`: a
//!   no-op in IronClaw (which warns about it too); no rule is written.
//! - A webhook's `max_in_flight`: hookc's webhook pool has one limit for the
//!   host (`WebhookConfig::max_in_flight`, 32 by default, IronClaw's default
//!   too).
//! - A hook replaced by a later one of its name (above).
//! - A file with no hooks (`{}`, `[]`, a `capabilities.json` without a
//!   `hooks` section): IronClaw registers nothing from it, and the other
//!   files are imported.
//! - Unknown keys, of a hook or of a bundle.
//!
//! IronClaw posts a fixed summary of the event (lengths and names, never
//! the content); hookc's `webhook` posts its own summary (rule and point),
//! also without the content.
//!
//! Errors, where IronClaw refuses the hook too: no points or an unknown
//! point, an invalid regex, a timeout of 0 or above 30 s, a failure mode
//! other than `fail_open` / `fail_closed`, a webhook URL that is not
//! `https://` or names an internal or cloud metadata host (checked by
//! [`crate::net_guard::check_url`], as `hookc compile` checks it),
//! `max_in_flight` 0. Webhook headers are checked by the rules `hookc
//! compile` applies ([`crate::net_guard::check_header`]), so an import that
//! succeeds compiles: a refused header (`Host`, `Authorization`, `Cookie`,
//! `X-Forwarded-*`, `Content-Length`, a `Content-Type` other than JSON,
//! …), a name that is not an HTTP token, a value with a line break or
//! another control character. A priority above 2147483647 is an error too
//! (hookc's priorities are 32-bit signed).

use crate::diag::suggest::suggest_ignoring_case as suggest;
use crate::diag::{Diagnostic, Diagnostics};
use crate::import::write::{canonical, regex_literal, rule_block, rule_id, template, UniqueIds};
use crate::net_guard::HeaderError;
use crate::syntax::pretty::quote;
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// IronClaw's hook points, as bundles spell them.
pub const POINTS: [&str; 6] = [
    "beforeInbound",
    "beforeToolCall",
    "beforeOutbound",
    "onSessionStart",
    "onSessionEnd",
    "transformResponse",
];

/// IronClaw's default priority of a rule hook.
const DEFAULT_RULE_PRIORITY: u32 = 100;
/// IronClaw's default priority of an outbound webhook.
const DEFAULT_WEBHOOK_PRIORITY: u32 = 300;
/// IronClaw's default webhook timeout; hookc's is 5 s.
const DEFAULT_WEBHOOK_TIMEOUT_MS: u64 = 2000;
/// IronClaw's longest hook timeout.
const MAX_TIMEOUT_MS: u64 = 30_000;
/// IronClaw's default in-flight limit, which is hookc's too.
const DEFAULT_MAX_IN_FLIGHT: usize = 32;

/// One or more IronClaw hook bundles, in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Bundles {
    /// Rules and webhooks in registration order, each with the name of the
    /// bundle it came from.
    entries: Vec<(Entry, String)>,
    /// What reading the files found that is not an error (a file with no
    /// hooks, unknown keys of a bundle), reported by
    /// [`to_source`](Self::to_source).
    warnings: Diagnostics,
}

/// A rule hook or an outbound webhook of a bundle.
#[derive(Clone, Debug, PartialEq)]
pub enum Entry {
    /// A declarative rule hook.
    Rule(RuleConfig),
    /// A fire-and-forget webhook.
    Webhook(WebhookConfig),
}

/// A declarative rule hook (IronClaw's `HookRuleConfig`).
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct RuleConfig {
    /// The hook's name.
    pub name: String,
    /// Where it runs.
    pub points: Vec<String>,
    /// Lower runs first; 100 when absent.
    #[serde(default)]
    pub priority: Option<u32>,
    /// `fail_open` (the default) or `fail_closed`.
    #[serde(default)]
    pub failure_mode: Option<String>,
    /// 1 to 30000 ms; 5 s when absent.
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    /// Guard: the rule is a no-op unless the content matches.
    #[serde(default)]
    pub when_regex: Option<String>,
    /// Reject with this reason when the guard matches.
    #[serde(default)]
    pub reject_reason: Option<String>,
    /// Regex replacements on the content, in order.
    #[serde(default)]
    pub replacements: Vec<Replacement>,
    /// Text put before the content.
    #[serde(default)]
    pub prepend: Option<String>,
    /// Text put after the content.
    #[serde(default)]
    pub append: Option<String>,
    /// Keys hookc does not know.
    #[serde(flatten)]
    pub unknown: BTreeMap<String, Value>,
}

/// One replacement step of a rule hook.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Replacement {
    /// A regex (the `regex` crate's syntax).
    pub pattern: String,
    /// The replacement, with `$1` / `${name}` group references.
    pub replacement: String,
}

/// An outbound webhook (IronClaw's `OutboundWebhookConfig`).
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct WebhookConfig {
    /// The hook's name.
    pub name: String,
    /// Where it fires.
    pub points: Vec<String>,
    /// An `https://` URL.
    pub url: String,
    /// Static request headers.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// 1 to 30000 ms; 2 s when absent.
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    /// Lower runs first; 300 when absent.
    #[serde(default)]
    pub priority: Option<u32>,
    /// Deliveries in flight at once.
    #[serde(default)]
    pub max_in_flight: Option<usize>,
    /// Keys hookc does not know.
    #[serde(flatten)]
    pub unknown: BTreeMap<String, Value>,
}

impl Bundles {
    /// Reads one bundle file named `name`: a bundle object, an array of
    /// rules, or a file with the bundle under `hooks` (a workspace file or
    /// a tool's `capabilities.json`) or `capabilities.hooks` (a channel's).
    ///
    /// A file with no hooks (`{}`, `[]`, a `capabilities.json` without a
    /// `hooks` section) is read as an empty bundle, as IronClaw reads it;
    /// [`to_source`](Self::to_source) reports it with a warning.
    ///
    /// # Errors
    ///
    /// An `import` diagnostic when the text is not JSON or not a bundle, or
    /// an entry lacks a required key or has one of the wrong type.
    pub fn from_json(name: &str, text: &str) -> Result<Bundles, Diagnostics> {
        Self::read(name, text).map_err(|d| Diagnostics(vec![*d]))
    }

    fn read(name: &str, text: &str) -> Result<Bundles, Box<Diagnostic>> {
        let root: Value = serde_json::from_str(text).map_err(|e| {
            Diagnostic::error("import", format!("`{name}` is not valid JSON"))
                .with_help(format!("{e}"))
        })?;
        let section = root
            .get("hooks")
            .or_else(|| root.get("capabilities").and_then(|c| c.get("hooks")))
            .unwrap_or(&root);
        let not_a_bundle = || {
            Diagnostic::error("import", format!("`{name}` is not an IronClaw hook bundle"))
                .with_help(
                    "a bundle is `{\"rules\": [...], \"outbound_webhooks\": [...]}` or an array of rules",
                )
        };
        let mut warnings = Diagnostics::new();
        let (rules, webhooks) = match section {
            Value::Array(rules) => (rules.as_slice(), &[][..]),
            Value::Object(map) => {
                let is_bundle = map.contains_key("rules") || map.contains_key("outbound_webhooks");
                // The root of a capabilities file holds much more than hooks;
                // a bundle holds nothing else.
                if is_bundle {
                    for key in map.keys() {
                        if key != "rules" && key != "outbound_webhooks" {
                            warnings.push(
                                Diagnostic::warning(
                                    "import",
                                    format!("{name}: unknown key `{key}` is not imported"),
                                )
                                .with_help("a bundle has `rules` and `outbound_webhooks`"),
                            );
                        }
                    }
                }
                let list = |key: &str| match map.get(key) {
                    None | Some(Value::Null) => Ok(&[][..]),
                    Some(Value::Array(items)) => Ok(items.as_slice()),
                    Some(_) => Err(Box::new(Diagnostic::error(
                        "import",
                        format!("`{name}`: `{key}` is not an array"),
                    ))),
                };
                (list("rules")?, list("outbound_webhooks")?)
            }
            _ => return Err(not_a_bundle().into()),
        };
        let mut entries = Vec::new();
        for (n, rule) in rules.iter().enumerate() {
            let config: RuleConfig = serde_json::from_value(rule.clone())
                .map_err(|e| entry_error(name, "rule", n, rule, &e))?;
            entries.push((Entry::Rule(config), name.to_string()));
        }
        for (n, webhook) in webhooks.iter().enumerate() {
            let config: WebhookConfig = serde_json::from_value(webhook.clone())
                .map_err(|e| entry_error(name, "outbound webhook", n, webhook, &e))?;
            entries.push((Entry::Webhook(config), name.to_string()));
        }
        if entries.is_empty() {
            // IronClaw registers nothing from it and goes on with the other
            // files: so does the import.
            warnings.push(
                Diagnostic::warning("import", format!("`{name}` has no hooks: nothing imported"))
                    .with_help(
                        "IronClaw reads `rules` and `outbound_webhooks` from a bundle, at the top level or under `hooks` (or `capabilities.hooks`)",
                    ),
            );
        }
        Ok(Bundles { entries, warnings })
    }

    /// Adds a later bundle: its entries register after these.
    pub fn merge(&mut self, later: Bundles) {
        self.entries.extend(later.entries);
        self.warnings.extend(later.warnings);
    }

    /// The entries, in registration order.
    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.entries.iter().map(|(entry, _)| entry)
    }

    /// The bundles as `.hooks` text in the canonical layout (with `schema
    /// ironclaw`), and the problems found on the way (an entry with an
    /// error is left out of the text).
    ///
    /// Rules are written in the order IronClaw's registry runs them: by
    /// priority, ties in registration order. A hook with the name of an
    /// earlier one of the same bundle replaces it, as IronClaw's registry
    /// does, with a warning: the earlier one is dropped, and the later one
    /// runs where the registry puts it (the earlier one's place, re-sorted
    /// by the later one's priority).
    pub fn to_source(&self) -> (String, Diagnostics) {
        // Each entry's diagnostics, kept apart so that they come out in
        // entry order whatever is found later.
        let mut found: Vec<Diagnostics> = Vec::with_capacity(self.entries.len());
        let mut converted = Vec::with_capacity(self.entries.len());
        for (entry, origin) in &self.entries {
            let (kind, name) = entry.kind_and_name();
            let mut diagnostics = Diagnostics::new();
            let mut report = Report {
                origin,
                kind,
                name,
                diagnostics: &mut diagnostics,
            };
            converted.push(match entry {
                Entry::Rule(rule) => rule_text(rule, &mut report),
                Entry::Webhook(webhook) => webhook_text(webhook, &mut report),
            });
            found.push(diagnostics);
        }
        let registry = self.register(&converted, &mut found);

        // Ids in registration order, so that of two hooks of one name in
        // different bundles the later one gets the suffix.
        let mut survivors: Vec<usize> = registry.iter().map(|&(n, _)| n).collect();
        survivors.sort_unstable();
        let mut ids = UniqueIds::default();
        let mut id_of: BTreeMap<usize, String> = BTreeMap::new();
        for n in survivors {
            let (Some((entry, origin)), Some(Converted::Rule { .. })) =
                (self.entries.get(n), converted.get(n))
            else {
                continue;
            };
            let (kind, name) = entry.kind_and_name();
            let id = ids.claim(&rule_id(name, "rule"));
            if id != *name {
                if let Some(diagnostics) = found.get_mut(n) {
                    diagnostics.0.insert(
                        0,
                        Diagnostic::warning(
                            "import",
                            format!("{origin}: {kind} `{name}` is imported as rule `{id}`"),
                        )
                        .with_help("rule ids are letters, digits, `_` and `-`, and unique"),
                    );
                }
            }
            id_of.insert(n, id);
        }

        let mut out = String::from(
            "# Rules from IronClaw hook bundles; regenerate, do not edit.\nschema ironclaw\n",
        );
        for (n, _) in &registry {
            if let (Some(Converted::Rule { header, body, .. }), Some(id)) =
                (converted.get(*n), id_of.get(n))
            {
                out.push('\n');
                out.push_str(&rule_block(&format!("hook {id} {header}"), body));
            }
        }
        let mut diagnostics = self.warnings.clone();
        for entry in found {
            diagnostics.extend(entry);
        }
        (
            canonical("ironclaw.hooks", out, &mut diagnostics),
            diagnostics,
        )
    }

    /// Registers the converted entries as IronClaw's
    /// `HookRegistry::register_with_priority` does, and returns the
    /// registry: `(entry, priority)` in the order the hooks run. A hook
    /// whose name is taken replaces the registered one in place, then the
    /// hooks are sorted by priority (stably); names are scoped by the bundle
    /// they come from. A hook IronClaw refuses is not registered and
    /// replaces nothing. A replaced hook gets a warning in `found`.
    fn register(&self, converted: &[Converted], found: &mut [Diagnostics]) -> Vec<(usize, u32)> {
        let mut registry: Vec<(usize, u32)> = Vec::new();
        for (n, ((entry, origin), conversion)) in self.entries.iter().zip(converted).enumerate() {
            let Some(priority) = conversion.registered_priority() else {
                continue;
            };
            let (kind, name) = entry.kind_and_name();
            let taken = registry.iter_mut().find(|(i, _)| {
                self.entries
                    .get(*i)
                    .is_some_and(|(e, o)| o == origin && e.kind_and_name().1 == name)
            });
            let Some(slot) = taken else {
                registry.push((n, priority));
                registry.sort_by_key(|&(_, priority)| priority);
                continue;
            };
            let earlier = slot.0;
            *slot = (n, priority);
            registry.sort_by_key(|&(_, priority)| priority);
            let dropped_kind = self
                .entries
                .get(earlier)
                .map_or(kind, |(e, _)| e.kind_and_name().0);
            if let Some(diagnostics) = found.get_mut(earlier) {
                diagnostics.push(
                    Diagnostic::warning(
                        "import",
                        format!(
                            "{origin}: {dropped_kind} `{name}` is dropped: the later {kind} `{name}` of the same bundle replaces it"
                        ),
                    )
                    .with_help(
                        "IronClaw keeps only the last hook of a name in a bundle; rename one to keep both",
                    ),
                );
            }
        }
        registry
    }
}

impl Entry {
    /// `rule` or `outbound webhook`, and the hook's name.
    fn kind_and_name(&self) -> (&'static str, &str) {
        match self {
            Entry::Rule(r) => ("rule", &r.name),
            Entry::Webhook(w) => ("outbound webhook", &w.name),
        }
    }
}

/// What one entry becomes.
enum Converted {
    /// A rule: its header after the id, and its body.
    Rule {
        /// `on POINTS priority N …`.
        header: String,
        /// One condition or action a line.
        body: Vec<String>,
        /// IronClaw's priority of the hook.
        priority: u32,
    },
    /// A hook IronClaw registers but that never does anything: nothing is
    /// written (it still replaces an earlier hook of its name).
    NoOp {
        /// IronClaw's priority of the hook.
        priority: u32,
    },
    /// A hook IronClaw (or hookc) refuses: reported as an error.
    Refused,
}

impl Converted {
    /// The priority IronClaw registers the hook with, unless it refuses it.
    fn registered_priority(&self) -> Option<u32> {
        match self {
            Converted::Rule { priority, .. } | Converted::NoOp { priority } => Some(*priority),
            Converted::Refused => None,
        }
    }
}

/// Where diagnostics about one entry go, and how they name it.
struct Report<'a> {
    origin: &'a str,
    kind: &'a str,
    name: &'a str,
    diagnostics: &'a mut Diagnostics,
}

impl Report<'_> {
    fn error(&mut self, message: impl std::fmt::Display, help: &str) {
        let d = Diagnostic::error(
            "import",
            format!("{}: {} `{}`: {message}", self.origin, self.kind, self.name),
        );
        self.diagnostics.push(d.with_help(help));
    }

    fn warning(&mut self, message: impl std::fmt::Display, help: &str) {
        let d = Diagnostic::warning(
            "import",
            format!("{}: {} `{}`: {message}", self.origin, self.kind, self.name),
        );
        self.diagnostics.push(d.with_help(help));
    }

    fn unknown_keys(&mut self, unknown: &BTreeMap<String, Value>, known: &str) {
        for key in unknown.keys() {
            self.warning(
                format_args!("unknown key `{key}` is not imported"),
                &format!("known keys: {known}"),
            );
        }
    }
}

/// The header of a rule after its id: `on POINTS priority N [timeout …]`,
/// or `None` (with an error) when a point, the priority or the timeout is
/// invalid.
fn header(
    points: &[String],
    priority: u32,
    timeout_ms: Option<u64>,
    report: &mut Report<'_>,
) -> Option<String> {
    if points.is_empty() {
        report.error(
            "no `points`",
            "give at least one of beforeInbound, beforeToolCall, beforeOutbound, onSessionStart, onSessionEnd, transformResponse",
        );
        return None;
    }
    let mut seen: Vec<&str> = Vec::new();
    for point in points {
        if !POINTS.contains(&point.as_str()) {
            let help = match suggest(point, POINTS) {
                Some(s) => format!("did you mean `{s}`?"),
                None => format!("IronClaw's points are {}", POINTS.join(", ")),
            };
            report.error(format_args!("unknown point `{point}`"), &help);
            return None;
        }
        if !seen.contains(&point.as_str()) {
            seen.push(point);
        }
    }
    let Ok(priority) = i32::try_from(priority) else {
        report.error(
            format_args!("priority {priority} is too large"),
            "hookc's priorities are at most 2147483647",
        );
        return None;
    };
    let mut header = format!("on {} priority {priority}", seen.join(", "));
    if let Some(ms) = timeout_ms {
        if ms == 0 || ms > MAX_TIMEOUT_MS {
            report.error(
                format_args!("`timeout_ms` {ms} is out of range"),
                "IronClaw takes 1 to 30000 ms",
            );
            return None;
        }
        let _ = write!(header, " timeout {ms}ms");
    }
    Some(header)
}

fn rule_text(rule: &RuleConfig, report: &mut Report<'_>) -> Converted {
    report.unknown_keys(
        &rule.unknown,
        "name, points, priority, failure_mode, timeout_ms, when_regex, reject_reason, replacements, prepend, append",
    );
    let priority = rule.priority.unwrap_or(DEFAULT_RULE_PRIORITY);
    let Some(mut header) = header(&rule.points, priority, rule.timeout_ms, report) else {
        return Converted::Refused;
    };
    match rule.failure_mode.as_deref() {
        None => {}
        Some("fail_open") => header.push_str(" fail open"),
        Some("fail_closed") => header.push_str(" fail closed"),
        Some(other) => {
            report.error(
                format_args!("`failure_mode` `{other}` is not a failure mode"),
                "use `fail_open` or `fail_closed`",
            );
            return Converted::Refused;
        }
    }
    let mut body = Vec::new();
    if let Some(guard) = &rule.when_regex {
        if let Err(e) = regex::Regex::new(guard) {
            report.error(
                format_args!("invalid `when_regex`: {e}"),
                "IronClaw refuses it too",
            );
            return Converted::Refused;
        }
        body.push(format!(
            "when payload.content matches {}",
            regex_literal(guard)
        ));
    }
    let edits = !rule.replacements.is_empty() || rule.prepend.is_some() || rule.append.is_some();
    if let Some(reason) = &rule.reject_reason {
        body.push(format!("abort {}", template(reason)));
        if edits {
            report.warning(
                "`replacements`, `prepend` and `append` are not imported",
                "IronClaw rejects before it edits, so they never run next to a `reject_reason`",
            );
        }
    } else if edits {
        for step in &rule.replacements {
            if let Err(e) = regex::Regex::new(&step.pattern) {
                report.error(
                    format_args!("invalid replacement pattern: {e}"),
                    "IronClaw refuses it too",
                );
                return Converted::Refused;
            }
            body.push(format!(
                "rewrite payload.content {} -> {}",
                regex_literal(&step.pattern),
                quote(&step.replacement)
            ));
        }
        if let Some(text) = &rule.prepend {
            body.push(format!("prepend payload.content {}", template(text)));
        }
        if let Some(text) = &rule.append {
            body.push(format!("append payload.content {}", template(text)));
        }
    } else {
        report.warning(
            "no `reject_reason`, `replacements`, `prepend` or `append`: a no-op, not imported",
            "IronClaw runs it but it never changes anything",
        );
        return Converted::NoOp { priority };
    }
    Converted::Rule {
        header,
        body,
        priority,
    }
}

fn webhook_text(webhook: &WebhookConfig, report: &mut Report<'_>) -> Converted {
    report.unknown_keys(
        &webhook.unknown,
        "name, points, url, headers, timeout_ms, priority, max_in_flight",
    );
    let priority = webhook.priority.unwrap_or(DEFAULT_WEBHOOK_PRIORITY);
    let Some(header) = header(
        &webhook.points,
        priority,
        Some(webhook.timeout_ms.unwrap_or(DEFAULT_WEBHOOK_TIMEOUT_MS)),
        report,
    ) else {
        return Converted::Refused;
    };
    if let Err(e) = crate::net_guard::check_url(&webhook.url) {
        report.error(
            format_args!("`url` `{}` is refused: {e}", webhook.url),
            "IronClaw and hookc post only to public `https://` hosts",
        );
        return Converted::Refused;
    }
    let mut action = format!("webhook {}", quote(&webhook.url));
    for (name, value) in &webhook.headers {
        if name.eq_ignore_ascii_case("content-type") && is_json_content_type(value) {
            report.warning(
                format_args!("header `{name}: {value}` is dropped"),
                "hookc's webhooks always send `Content-Type: application/json`",
            );
            continue;
        }
        // The rules `hookc compile` applies (the `insecure-webhook` lint),
        // so that an import that succeeds compiles.
        if let Err(e) = crate::net_guard::check_header(name, value) {
            let help = match e {
                HeaderError::Refused { .. } => {
                    "webhooks may not send credentials, client addresses, `Host` or headers that frame the message (hookc's `insecure-webhook` lint refuses it too)"
                }
                HeaderError::InvalidValue { .. } => {
                    "a header value is one line of text without control characters"
                }
                _ => "header names are letters, digits and !#$%&'*+-.^_`|~",
            };
            report.error(e, help);
            return Converted::Refused;
        }
        let _ = write!(action, " header {} {}", quote(name), quote(value));
    }
    match webhook.max_in_flight {
        Some(0) => {
            report.error("`max_in_flight` is 0", "IronClaw needs at least 1");
            return Converted::Refused;
        }
        Some(n) if n != DEFAULT_MAX_IN_FLIGHT => report.warning(
            format_args!("`max_in_flight` {n} is not imported"),
            "hookc's webhook pool has one in-flight limit for the host (WebhookConfig::max_in_flight, 32 by default)",
        ),
        _ => {}
    }
    Converted::Rule {
        header,
        body: vec![action],
        priority,
    }
}

/// True for a `Content-Type` that says what hookc's webhooks send anyway:
/// `application/json`, in any case, with at most a `charset=utf-8`.
fn is_json_content_type(value: &str) -> bool {
    let mut parts = value.split(';');
    let media = parts.next().unwrap_or_default().trim();
    media.eq_ignore_ascii_case("application/json")
        && parts.all(|parameter| {
            parameter.split_once('=').is_some_and(|(key, value)| {
                key.trim().eq_ignore_ascii_case("charset")
                    && value.trim().trim_matches('"').eq_ignore_ascii_case("utf-8")
            })
        })
}

/// `import` error for an entry that does not deserialize.
fn entry_error(
    file: &str,
    kind: &str,
    n: usize,
    value: &Value,
    e: &serde_json::Error,
) -> Diagnostic {
    let which = match value.get("name").and_then(Value::as_str) {
        Some(name) => format!("{kind} `{name}`"),
        None => format!("{kind} {}", n + 1),
    };
    Diagnostic::error("import", format!("{file}: {which} is not valid")).with_help(e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bundles(text: &str) -> Bundles {
        match Bundles::from_json("hooks.json", text) {
            Ok(b) => b,
            Err(e) => panic!("{e:?}"),
        }
    }

    #[test]
    fn rules_and_webhooks_become_rules() {
        let (text, diagnostics) = bundles(
            r#"{
                "rules": [
                    {"name": "block-forbidden", "points": ["beforeInbound"],
                     "when_regex": "forbidden", "reject_reason": "forbidden {content}"},
                    {"name": "redact", "points": ["beforeOutbound", "transformResponse"],
                     "priority": 50, "failure_mode": "fail_closed", "timeout_ms": 1500,
                     "replacements": [{"pattern": "a/b", "replacement": "$1"}],
                     "prepend": "> ", "append": "!"}
                ],
                "outbound_webhooks": [
                    {"name": "notify", "points": ["beforeInbound"],
                     "url": "https://example.com/hook", "headers": {"X-Source": "ironclaw"}}
                ]
            }"#,
        )
        .to_source();
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        assert!(
            text.starts_with(
                "# Rules from IronClaw hook bundles; regenerate, do not edit.\nschema ironclaw\n"
            ),
            "{text}"
        );
        assert!(text.contains(
            "hook block-forbidden on beforeInbound priority 100 {\n    when payload.content matches /forbidden/\n    abort \"forbidden {{content}}\"\n}\n"
        ), "{text}");
        assert!(text.contains(
            "hook redact on beforeOutbound, transformResponse priority 50 fail closed timeout 1500ms {\n    rewrite payload.content /a\\/b/ -> \"$1\"\n    prepend payload.content \"> \"\n    append payload.content \"!\"\n}\n"
        ), "{text}");
        assert!(text.contains(
            "hook notify on beforeInbound priority 300 timeout 2s {\n    webhook \"https://example.com/hook\" header \"X-Source\" \"ironclaw\"\n}\n"
        ), "{text}");
    }

    #[test]
    fn every_bundle_shape_is_read() {
        let rule = r#"{"name": "bang", "points": ["beforeInbound"], "append": "!"}"#;
        for text in [
            format!("[{rule}]"),
            format!("{{\"rules\": [{rule}]}}"),
            format!("{{\"hooks\": [{rule}]}}"),
            format!("{{\"http\": {{}}, \"hooks\": {{\"rules\": [{rule}]}}}}"),
            format!("{{\"type\": \"channel\", \"capabilities\": {{\"hooks\": {{\"rules\": [{rule}]}}}}}}"),
        ] {
            assert_eq!(bundles(&text).entries().count(), 1, "{text}");
        }
        let e = Bundles::from_json("caps.json", r#""hooks""#).unwrap_err();
        let e = &e.0[0];
        assert_eq!(e.message, "`caps.json` is not an IronClaw hook bundle");
        let e = Bundles::from_json("hooks.json", r#"[{"points": []}]"#).unwrap_err();
        let e = &e.0[0];
        assert_eq!(e.message, "hooks.json: rule 1 is not valid");
        assert!(e
            .help
            .clone()
            .unwrap_or_default()
            .contains("missing field `name`"));
    }

    #[test]
    fn what_ironclaw_refuses_is_an_error_and_what_does_not_map_a_warning() {
        let (text, diagnostics) = bundles(
            r#"{
                "rules": [
                    {"name": "nopoints", "points": [], "append": "!"},
                    {"name": "typo", "points": ["beforeInbond"], "append": "!"},
                    {"name": "badre", "points": ["beforeInbound"], "when_regex": "(", "append": "!"},
                    {"name": "slow", "points": ["beforeInbound"], "timeout_ms": 30001, "append": "!"},
                    {"name": "mode", "points": ["beforeInbound"], "failure_mode": "sideways", "append": "!"},
                    {"name": "noop", "points": ["beforeInbound"], "when_regex": "x"},
                    {"name": "both", "points": ["beforeInbound"], "reject_reason": "no", "append": "!", "colour": 1},
                    {"name": "log", "points": ["beforeInbound"], "append": "!"}
                ],
                "outbound_webhooks": [
                    {"name": "plain", "points": ["beforeInbound"], "url": "http://example.com/"},
                    {"name": "local", "points": ["beforeInbound"], "url": "https://127.0.0.1/"},
                    {"name": "auth", "points": ["beforeInbound"], "url": "https://example.com/", "headers": {"Authorization": "x"}},
                    {"name": "busy", "points": ["beforeInbound"], "url": "https://example.com/", "max_in_flight": 4}
                ]
            }"#,
        )
        .to_source();
        let messages: Vec<(String, String)> = diagnostics
            .iter()
            .map(|d| (d.severity.to_string(), d.message.clone()))
            .collect();
        let expected = [
            ("error", "hooks.json: rule `nopoints`: no `points`"),
            ("error", "hooks.json: rule `typo`: unknown point `beforeInbond`"),
            ("error", "hooks.json: rule `badre`: invalid `when_regex`: regex parse error:\n    (\n    ^\nerror: unclosed group"),
            ("error", "hooks.json: rule `slow`: `timeout_ms` 30001 is out of range"),
            ("error", "hooks.json: rule `mode`: `failure_mode` `sideways` is not a failure mode"),
            ("warning", "hooks.json: rule `noop`: no `reject_reason`, `replacements`, `prepend` or `append`: a no-op, not imported"),
            ("warning", "hooks.json: rule `both`: unknown key `colour` is not imported"),
            ("warning", "hooks.json: rule `both`: `replacements`, `prepend` and `append` are not imported"),
            ("warning", "hooks.json: rule `log` is imported as rule `log-rule`"),
            ("error", "hooks.json: outbound webhook `plain`: `url` `http://example.com/` is refused: scheme `http` is not `https`"),
            ("error", "hooks.json: outbound webhook `local`: `url` `https://127.0.0.1/` is refused: `127.0.0.1` is a loopback address"),
            ("error", "hooks.json: outbound webhook `auth`: header `Authorization` may not be set: it carries credentials"),
            ("warning", "hooks.json: outbound webhook `busy`: `max_in_flight` 4 is not imported"),
        ];
        let expected: Vec<(String, String)> = expected
            .iter()
            .map(|(s, m)| (s.to_string(), m.to_string()))
            .collect();
        assert_eq!(messages, expected);
        assert!(
            text.contains("hook both on beforeInbound priority 100 {\n    abort \"no\"\n}"),
            "{text}"
        );
        assert!(text.contains("hook busy on"), "{text}");
        for left_out in [
            "nopoints", "typo", "badre", "slow", "mode", "noop", "plain", "local", "auth",
        ] {
            assert!(
                !text.contains(&format!("hook {left_out} ")),
                "{left_out}: {text}"
            );
        }
    }

    /// The messages of `diagnostics`, with their severity.
    fn messages(diagnostics: &Diagnostics) -> Vec<String> {
        diagnostics
            .iter()
            .map(|d| format!("{}: {}", d.severity, d.message))
            .collect()
    }

    /// The ids of the rules in `text`, in order.
    fn rule_ids(text: &str) -> Vec<&str> {
        text.lines()
            .filter_map(|l| l.strip_prefix("hook "))
            .filter_map(|l| l.split(' ').next())
            .collect()
    }

    #[test]
    fn a_later_hook_of_the_same_name_in_a_bundle_replaces_the_earlier_one() {
        // IronClaw's `test_register_duplicate_name_replaces_existing`: only
        // the later `dup` is left, with its own priority.
        let (text, diagnostics) = bundles(
            r#"[
                {"name": "dup", "points": ["beforeInbound"], "priority": 100, "append": "-A"},
                {"name": "dup", "points": ["beforeInbound"], "priority": 10, "append": "-B"}
            ]"#,
        )
        .to_source();
        assert_eq!(
            messages(&diagnostics),
            ["warning: hooks.json: rule `dup` is dropped: the later rule `dup` of the same bundle replaces it"]
        );
        assert!(
            text.ends_with(
                "\nhook dup on beforeInbound priority 10 {\n    append payload.content \"-B\"\n}\n"
            ),
            "{text}"
        );
        assert_eq!(rule_ids(&text), ["dup"]);

        // Rules and webhooks share the names of a bundle; the registry puts
        // the later hook at the earlier one's place, then sorts by
        // priority: `x` (replacing a priority-100 hook registered after
        // `b`) runs before `b`, both at 200.
        let (text, diagnostics) = bundles(
            r#"{
                "rules": [
                    {"name": "b", "points": ["beforeInbound"], "priority": 200, "append": "b"},
                    {"name": "x", "points": ["beforeInbound"], "priority": 100, "append": "x1"},
                    {"name": "c", "points": ["beforeInbound"], "priority": 200, "append": "c"}
                ],
                "outbound_webhooks": [
                    {"name": "x", "points": ["beforeInbound"], "priority": 200, "url": "https://example.com/x"}
                ]
            }"#,
        )
        .to_source();
        assert_eq!(
            messages(&diagnostics),
            ["warning: hooks.json: rule `x` is dropped: the later outbound webhook `x` of the same bundle replaces it"]
        );
        assert_eq!(rule_ids(&text), ["x", "b", "c"]);
        assert!(text.contains("webhook \"https://example.com/x\""), "{text}");
        assert!(!text.contains("x1"), "{text}");

        // A later hook IronClaw refuses replaces nothing; a later no-op
        // replaces (and so removes) the earlier one.
        let (text, diagnostics) = bundles(
            r#"[
                {"name": "kept", "points": ["beforeInbound"], "append": "1"},
                {"name": "kept", "points": ["beforeInbound"], "when_regex": "(", "append": "2"},
                {"name": "gone", "points": ["beforeInbound"], "append": "3"},
                {"name": "gone", "points": ["beforeInbound"], "when_regex": "x"}
            ]"#,
        )
        .to_source();
        assert_eq!(rule_ids(&text), ["kept"]);
        assert!(text.contains("append payload.content \"1\""), "{text}");
        let found = messages(&diagnostics);
        assert!(found.contains(&"warning: hooks.json: rule `gone` is dropped: the later rule `gone` of the same bundle replaces it".to_string()), "{found:#?}");
        assert!(
            found
                .iter()
                .any(|m| m.starts_with("error: hooks.json: rule `kept`: invalid `when_regex`")),
            "{found:#?}"
        );
        assert!(
            !found.iter().any(|m| m.contains("`kept` is dropped")),
            "{found:#?}"
        );

        // Names are scoped by bundle: the same name in two bundles is two
        // hooks.
        let mut two = bundles(r#"[{"name": "same", "points": ["beforeInbound"], "append": "1"}]"#);
        two.merge(
            Bundles::from_json(
                "other.hook.json",
                r#"[{"name": "same", "points": ["beforeInbound"], "append": "2"}]"#,
            )
            .unwrap(),
        );
        let (text, diagnostics) = two.to_source();
        assert_eq!(rule_ids(&text), ["same", "same-2"]);
        assert_eq!(
            messages(&diagnostics),
            ["warning: other.hook.json: rule `same` is imported as rule `same-2`"]
        );
    }

    #[test]
    fn a_file_without_hooks_imports_nothing_with_a_warning() {
        for text in [
            "{}",
            "[]",
            r#"{"rules": []}"#,
            r#"{"outbound_webhooks": []}"#,
            r#"{"hooks": {}}"#,
            r#"{"name": "slack", "http": {"allowlist": []}}"#,
            r#"{"type": "channel", "capabilities": {"http": {}}}"#,
        ] {
            let read =
                Bundles::from_json("caps.json", text).unwrap_or_else(|e| panic!("{text}: {e:?}"));
            assert_eq!(read.entries().count(), 0, "{text}");
            let (source, diagnostics) = read.to_source();
            assert_eq!(
                messages(&diagnostics),
                ["warning: `caps.json` has no hooks: nothing imported"],
                "{text}"
            );
            assert_eq!(rule_ids(&source), Vec::<&str>::new());
        }
        // Merged with a bundle that has hooks, those are imported.
        let mut merged = Bundles::from_json("empty.json", "{}").unwrap();
        merged.merge(bundles(
            r#"[{"name": "bang", "points": ["beforeInbound"], "append": "!"}]"#,
        ));
        let (source, diagnostics) = merged.to_source();
        assert_eq!(rule_ids(&source), ["bang"]);
        assert!(!diagnostics.has_errors());
        // A bundle's keys other than `rules` and `outbound_webhooks` are
        // reported.
        let (_, diagnostics) = bundles(
            r#"{"rules": [{"name": "bang", "points": ["beforeInbound"], "append": "!"}], "webhooks": []}"#,
        )
        .to_source();
        assert_eq!(
            messages(&diagnostics),
            ["warning: hooks.json: unknown key `webhooks` is not imported"]
        );
    }

    /// A bundle with one webhook sending `headers`.
    fn webhook_with_headers(headers: &Value) -> (String, Diagnostics) {
        let bundle = serde_json::json!({"outbound_webhooks": [
            {"name": "notify", "points": ["beforeInbound"], "url": "https://example.com/hook", "headers": headers}
        ]});
        bundles(&bundle.to_string()).to_source()
    }

    #[test]
    fn webhook_headers_are_checked_as_compile_checks_them() {
        for (name, value, why) in [
            (
                "X-Team",
                "ops\r\nHost: evil",
                "the value of header `X-Team` has a line break or a control character",
            ),
            (
                "X-Team",
                "ops\n",
                "the value of header `X-Team` has a line break or a control character",
            ),
            (
                "Content-Type",
                "text/plain",
                "header `Content-Type` may not be set: it is always `application/json`",
            ),
            (
                "content-type",
                "application/json; charset=latin1",
                "header `content-type` may not be set: it is always `application/json`",
            ),
            (
                "Content-Length",
                "10",
                "header `Content-Length` may not be set: it changes how the message is framed",
            ),
            (
                "Proxy-Connection",
                "close",
                "header `Proxy-Connection` may not be set: it is meant for proxies",
            ),
            (
                "Cookie",
                "a=b",
                "header `Cookie` may not be set: it carries credentials",
            ),
            ("X Team", "ops", "`X Team` is not a valid header name"),
        ] {
            let (text, diagnostics) = webhook_with_headers(&serde_json::json!({name: value}));
            assert_eq!(
                messages(&diagnostics),
                [format!(
                    "error: hooks.json: outbound webhook `notify`: {why}"
                )],
                "{name}: {value:?}"
            );
            assert!(rule_ids(&text).is_empty(), "{text}");
        }
        for value in [
            "application/json",
            "Application/JSON",
            "application/json; charset=utf-8",
            "application/json;charset=\"UTF-8\"",
        ] {
            let (text, diagnostics) =
                webhook_with_headers(&serde_json::json!({"Content-Type": value, "X-Team": "ops"}));
            assert_eq!(
                messages(&diagnostics),
                [format!("warning: hooks.json: outbound webhook `notify`: header `Content-Type: {value}` is dropped")]
            );
            assert!(
                text.contains("webhook \"https://example.com/hook\" header \"X-Team\" \"ops\"\n"),
                "{text}"
            );
            assert!(!text.contains("Content-Type"), "{text}");
        }
    }

    /// An import without errors compiles: the header rules are the
    /// compiler's.
    #[test]
    fn an_import_that_succeeds_compiles() {
        let names = [
            "X-Team",
            "Content-Type",
            "content-type",
            "Keep-Alive",
            "Upgrade",
            "TE",
            "Trailer",
            "Proxy-Foo",
            "X-Forwarded-Host",
            "Accept",
            "Host",
        ];
        let values = [
            "ops",
            "application/json",
            "text/plain",
            "a\tb",
            "a\u{7f}b",
            "caf\u{e9}",
            "x\r\ny",
            "",
        ];
        let mut compiled = 0;
        for name in names {
            for value in values {
                let (text, diagnostics) = webhook_with_headers(&serde_json::json!({name: value}));
                if diagnostics.has_errors() {
                    continue;
                }
                if let Err(e) = crate::compile_str("ironclaw.hooks", &text) {
                    panic!("{name}: {value:?} imports but does not compile: {e:?}\n{text}");
                }
                compiled += 1;
            }
        }
        assert!(compiled > 10, "only {compiled} imports succeeded");
    }

    #[test]
    fn cloud_metadata_hosts_are_refused_webhook_urls() {
        for url in [
            "https://metadata.aws.internal/latest/meta-data/",
            "https://METADATA.AWS.INTERNAL./",
            "https://metadata.google.internal/computeMetadata/v1/",
            "https://instance-data/",
            "https://169.254.169.254/",
            "https://100.100.100.200/",
        ] {
            let bundle = serde_json::json!({"outbound_webhooks": [
                {"name": "leak", "points": ["beforeInbound"], "url": url}
            ]});
            let (text, diagnostics) = bundles(&bundle.to_string()).to_source();
            let found = messages(&diagnostics);
            assert_eq!(found.len(), 1, "{url}: {found:#?}");
            assert!(
                found[0].starts_with(&format!(
                    "error: hooks.json: outbound webhook `leak`: `url` `{url}` is refused: "
                )),
                "{found:#?}"
            );
            assert!(rule_ids(&text).is_empty(), "{text}");
        }
    }

    #[test]
    fn regex_literals_keep_their_meaning() {
        assert_eq!(regex_literal("a/b"), r"/a\/b/");
        assert_eq!(regex_literal(r"a\/b"), r"/a\/b/");
        assert_eq!(regex_literal(r"a\\/b"), r"/a\\\/b/");
        assert_eq!(regex_literal("a\nb"), r"/a\nb/");
        assert_eq!(regex_literal("a\\\nb"), r"/a\nb/");
    }

    #[test]
    fn ids_are_valid_and_unique() {
        assert_eq!(rule_id("redact-keys", "rule"), "redact-keys");
        assert_eq!(rule_id("Rate limit (v2)", "rule"), "Rate-limit-v2");
        assert_eq!(rule_id("9lives", "rule"), "rule-9lives");
        assert_eq!(rule_id("-x", "rule"), "rule-x");
        assert_eq!(rule_id("…", "rule"), "rule");
        assert_eq!(rule_id("allow", "rule"), "allow-rule");
        let mut ids = UniqueIds::default();
        assert_eq!(ids.claim("a"), "a");
        assert_eq!(ids.claim("a"), "a-2");
        assert_eq!(ids.claim("a"), "a-3");
    }
}
