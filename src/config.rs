//! `hookc.toml`: project settings: the level of each lint, and the key
//! `hookc claude` verifies tables with.
//!
//! `hookc lint` and `hookc compile` look for a file named `hookc.toml` in
//! the directory of the first path they are given (or that path itself, when
//! it is a directory) and then in each parent directory, and use the first
//! one found; `--config FILE` names one explicitly. Without one, every lint
//! runs at its default level.
//!
//! ```toml
//! # hookc.toml
//! [lints]
//! unreachable-rule = "deny"     # an error: the rules do not compile
//! priority-tie = "allow"        # not reported
//! empty-list = "warn"           # a warning (the default for most lints)
//! ```
//!
//! The `[lints]` table maps lint codes (see [`crate::check::lints`]) to a
//! level: `"allow"`, `"warn"`, `"deny"` or `"note"`. A comment
//! `# hookc: allow(code)` on a rule (on its `hook` line or in the comment
//! block right above it) overrides the file for that rule.
//!
//! The `[rate]` table says where the counts of `rate(…)` conditions live
//! for a host that reads it (`hookc claude`), and so what the
//! `rate-without-store` lint assumes:
//!
//! ```toml
//! [rate]
//! store = "file"     # or "memory", or "redis://host:6379/0"
//! ```
//!
//! The `[cost]` table sets the budget of the `point-cost` lint: the most
//! milliseconds one event at a point may wait on commands and handlers
//! (the sum of their timeouts; default 120000):
//!
//! ```toml
//! [cost]
//! timeout-budget-ms = 30000
//! ```
//!
//! `[claude]` holds the settings of `hookc claude`, which reads the
//! `hookc.toml` found from the table (or rules) it loads:
//!
//! ```toml
//! [claude]
//! verify-key = "hookc.key.pub"   # refuse tables not signed by this key
//! log-file = "state/decisions.jsonl"   # the decision log
//! ```
//!
//! `verify-key` and `log-file` are relative to the file's directory. A `--verify-key` flag
//! in the hook command takes its place.
//!
//! Problems in the file are diagnostics pointing into it: invalid TOML, a
//! `[lints]` that is not a table and an unknown level are errors; an unknown
//! lint code (with a did-you-mean) and an unknown top-level key are
//! warnings.

use crate::check::lints::{self, Level, LintLevels};
use crate::diag::suggest::suggest;
use crate::diag::{Diagnostic, Diagnostics};
use crate::span::{SourceFile, Span};
use std::path::{Path, PathBuf};

/// The name of the configuration file (where loading finds rule sets).
pub const FILE_NAME: &str = crate::load::CONFIG_FILE;

/// Settings read from a `hookc.toml`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Config {
    /// The file they were read from; `None` for the defaults.
    pub path: Option<PathBuf>,
    /// Lint levels set by `[lints]`.
    pub lints: LintLevels,
    /// The store `[rate] store` names, as written: a
    /// [`StoreSpec`](crate::store::StoreSpec), unless an error diagnostic
    /// says it is not one (it is kept, so that a host reading the file can
    /// refuse it rather than use another store).
    pub rate_store: Option<String>,
    /// `verify-key` under `[claude]`: the public key every table
    /// `hookc claude` loads must be signed by. Relative to the file's
    /// directory once loaded with [`Config::load`].
    pub verify_key: Option<PathBuf>,
    /// `log-file` under `[claude]`: the decision log `hookc claude` appends
    /// to. Relative to the file's directory once loaded.
    pub log_file: Option<PathBuf>,
    /// `timeout-budget-ms` under `[cost]`: the budget of the `point-cost`
    /// lint ([`crate::Options::point_timeout_budget_ms`]).
    pub point_timeout_budget_ms: Option<u64>,
}

impl Config {
    /// The compiler options the file sets: its lint levels and its rate
    /// store (a store that is not a valid spec is left to the default; its
    /// error diagnostic says so).
    pub fn options(self) -> crate::Options {
        crate::Options {
            lints: self.lints,
            rate_store: self
                .rate_store
                .as_deref()
                .and_then(|s| crate::store::StoreSpec::parse(s).ok()),
            point_timeout_budget_ms: self
                .point_timeout_budget_ms
                .unwrap_or(crate::check::DEFAULT_POINT_TIMEOUT_BUDGET_MS),
            ..crate::Options::default()
        }
    }

    /// The nearest `hookc.toml` at or above `start` (a file's directory, or
    /// a directory).
    pub fn find(start: &Path) -> Option<PathBuf> {
        let dir = if start.is_dir() {
            start.to_path_buf()
        } else {
            start.parent().map(Path::to_path_buf).unwrap_or_default()
        };
        let absolute = std::path::absolute(&dir).unwrap_or(dir);
        let cwd = std::env::current_dir().ok();
        absolute
            .ancestors()
            .map(|d| d.join(FILE_NAME))
            .find(|p| p.is_file())
            .map(|p| match &cwd {
                Some(cwd) => p
                    .strip_prefix(cwd)
                    .map(Path::to_path_buf)
                    .unwrap_or(p.clone()),
                None => p,
            })
    }

    /// The configuration for a run on `paths`: the file given explicitly,
    /// or the one [`Config::find`] finds from the first path, or the
    /// defaults; with the problems found in it.
    pub fn discover<P: AsRef<Path>>(paths: &[P], explicit: Option<&Path>) -> (Config, Diagnostics) {
        let path = match explicit {
            Some(p) => Some(p.to_path_buf()),
            None => paths.first().and_then(|p| Config::find(p.as_ref())),
        };
        match path {
            Some(p) => Config::load(&p),
            None => (Config::default(), Diagnostics::new()),
        }
    }

    /// Reads and parses a configuration file.
    pub fn load(path: &Path) -> (Config, Diagnostics) {
        match std::fs::read_to_string(path) {
            Ok(text) => {
                let (mut config, diags) = Config::parse(&path.display().to_string(), &text);
                config.path = Some(path.to_path_buf());
                if let (Some(key), Some(dir)) = (&config.verify_key, path.parent()) {
                    config.verify_key = Some(dir.join(key));
                }
                if let (Some(log), Some(dir)) = (&config.log_file, path.parent()) {
                    config.log_file = Some(dir.join(log));
                }
                (config, diags)
            }
            Err(e) => {
                let mut diags = Diagnostics::new();
                diags.push(Diagnostic::error(
                    "io",
                    format!("cannot read `{}`: {}", path.display(), io_reason(&e)),
                ));
                (Config::default(), diags)
            }
        }
    }

    /// Parses the text of a configuration file named `name` (for
    /// diagnostics). Whatever is valid is kept; every problem is a
    /// diagnostic.
    ///
    /// # Example
    ///
    /// ```
    /// use hookc::check::lints::Level;
    /// let (config, diags) = hookc::config::Config::parse(
    ///     "hookc.toml",
    ///     "[lints]\nunreachable-rule = \"deny\"\n",
    /// );
    /// assert!(diags.is_empty());
    /// assert_eq!(config.lints.get("unreachable-rule"), Some(Level::Deny));
    /// ```
    pub fn parse(name: &str, text: &str) -> (Config, Diagnostics) {
        let source = SourceFile::new(name, text);
        let mut diags = Diagnostics::new();
        let mut config = Config::default();
        let span = |r: std::ops::Range<usize>| Span::new(r.start, r.end);
        let doc = match toml::de::DeTable::parse(text) {
            Ok(doc) => doc,
            Err(e) => {
                let mut d = Diagnostic::error(
                    "invalid-config",
                    format!("invalid `{FILE_NAME}`: {}", first_line(e.message())),
                )
                .in_file(&source);
                if let Some(r) = e.span() {
                    d = d.with_primary(span(r), "here");
                }
                diags.push(d.with_help(
                    "the file is TOML: `[lints]` then lines such as `unreachable-rule = \"deny\"`",
                ));
                return (config, diags);
            }
        };
        // Maps iterate in key order; report in source order.
        let mut entries: Vec<_> = doc.get_ref().iter().collect();
        entries.sort_by_key(|(k, _)| k.span().start);
        for (key, value) in entries {
            let key_text: &str = key.get_ref();
            if key_text == "rate" {
                config.rate_store = rate_table(&source, value, &mut diags);
                continue;
            }
            if key_text == "cost" {
                config.point_timeout_budget_ms = cost_table(&source, value, &mut diags);
                continue;
            }
            if key_text == "claude" {
                parse_claude(value, &source, &mut config, &mut diags);
                continue;
            }
            if key_text != "lints" {
                let d = Diagnostic::warning(
                    "unknown-config-key",
                    format!("unknown key `{key_text}` in `{FILE_NAME}`"),
                )
                .in_file(&source)
                .with_primary(span(key.span()), "not a setting")
                .with_help(
                    "the settings are in the `[lints]`, `[rate]`, `[cost]` and `[claude]` tables",
                );
                diags.push(d);
                continue;
            }
            let toml::de::DeValue::Table(table) = value.get_ref() else {
                diags.push(
                    Diagnostic::error("invalid-config", "`lints` must be a table")
                        .in_file(&source)
                        .with_primary(span(value.span()), "not a table")
                        .with_help(
                            "write `[lints]` on a line of its own, then `code = \"level\"` lines",
                        ),
                );
                continue;
            };
            let mut entries: Vec<_> = table.iter().collect();
            entries.sort_by_key(|(k, _)| k.span().start);
            for (code, level) in entries {
                let code_text: &str = code.get_ref();
                let code_span = span(code.span());
                let toml::de::DeValue::String(level_text) = level.get_ref() else {
                    diags.push(
                        Diagnostic::error(
                            "invalid-config",
                            format!("the level of `{code_text}` must be a string"),
                        )
                        .in_file(&source)
                        .with_primary(span(level.span()), "not a string")
                        .with_help("levels are \"allow\", \"warn\", \"deny\" and \"note\""),
                    );
                    continue;
                };
                let Some(parsed) = Level::from_name(level_text) else {
                    let mut d = Diagnostic::error(
                        "invalid-config",
                        format!("unknown lint level `{level_text}`"),
                    )
                    .in_file(&source)
                    .with_primary(span(level.span()), "not a level");
                    d = match suggest(level_text, Level::NAMES) {
                        Some(s) => d.with_help(format!("did you mean `{s}`?")),
                        None => {
                            d.with_help("levels are \"allow\", \"warn\", \"deny\" and \"note\"")
                        }
                    };
                    diags.push(d);
                    continue;
                };
                if !config.lints.set(code_text, parsed) {
                    diags.push(lints::unknown_lint(code_text, Some((&source, code_span))));
                }
            }
        }
        (config, diags)
    }
}

/// Goes through the `[name]` table `value` in source order: `setting`
/// reads the value of its one setting `key`, each other key is a warning,
/// and a `value` that is not a table an error (its help shows `example`).
fn one_setting_table(
    source: &SourceFile,
    value: &toml::Spanned<toml::de::DeValue<'_>>,
    (name, key, example): (&str, &str, &str),
    diags: &mut Diagnostics,
    mut setting: impl FnMut(&toml::Spanned<toml::de::DeValue<'_>>, &mut Diagnostics),
) {
    let span = |r: std::ops::Range<usize>| Span::new(r.start, r.end);
    let toml::de::DeValue::Table(table) = value.get_ref() else {
        diags.push(
            Diagnostic::error("invalid-config", format!("`{name}` must be a table"))
                .in_file(source)
                .with_primary(span(value.span()), "not a table")
                .with_help(format!(
                    "write `[{name}]` on a line of its own, then `{example}`"
                )),
        );
        return;
    };
    let mut entries: Vec<_> = table.iter().collect();
    entries.sort_by_key(|(k, _)| k.span().start);
    for (k, v) in entries {
        let key_text: &str = k.get_ref();
        if key_text == key {
            setting(v, diags);
            continue;
        }
        diags.push(
            Diagnostic::warning(
                "unknown-config-key",
                format!("unknown key `{name}.{key_text}` in `{FILE_NAME}`"),
            )
            .in_file(source)
            .with_primary(span(k.span()), "not a setting")
            .with_help(format!("`[{name}]` has one setting: `{key}`")),
        );
    }
}

/// The `[cost]` table: `timeout-budget-ms`, a number of milliseconds;
/// problems are diagnostics.
fn cost_table(
    source: &SourceFile,
    value: &toml::Spanned<toml::de::DeValue<'_>>,
    diags: &mut Diagnostics,
) -> Option<u64> {
    let span = |r: std::ops::Range<usize>| Span::new(r.start, r.end);
    let mut budget = None;
    let names = ("cost", "timeout-budget-ms", "timeout-budget-ms = 30000");
    one_setting_table(source, value, names, diags, |value, diags| {
        let parsed = match value.get_ref() {
            toml::de::DeValue::Integer(n) => {
                u64::from_str_radix(&n.as_str().replace('_', ""), n.radix()).ok()
            }
            _ => None,
        };
        match parsed {
            Some(ms) => budget = Some(ms),
            None => diags.push(
                Diagnostic::error(
                    "invalid-config",
                    "`timeout-budget-ms` must be a whole number of milliseconds",
                )
                .in_file(source)
                .with_primary(span(value.span()), "not a number of milliseconds")
                .with_help("for example `timeout-budget-ms = 30000`"),
            ),
        }
    });
    budget
}

/// The `store` of a `[rate]` table; problems are diagnostics.
fn rate_table(
    source: &SourceFile,
    value: &toml::Spanned<toml::de::DeValue<'_>>,
    diags: &mut Diagnostics,
) -> Option<String> {
    let span = |r: std::ops::Range<usize>| Span::new(r.start, r.end);
    let mut store = None;
    let names = ("rate", "store", "store = \"file\"");
    one_setting_table(source, value, names, diags, |value, diags| {
        let parsed = match value.get_ref() {
            toml::de::DeValue::String(text) => {
                store = Some(text.to_string());
                crate::store::StoreSpec::parse(text).map(|_| ())
            }
            _ => Err("the store must be a string".to_string()),
        };
        match parsed {
            Ok(()) => {}
            Err(message) => diags.push(
                Diagnostic::error("invalid-config", message)
                    .in_file(source)
                    .with_primary(span(value.span()), "not a rate store")
                    .with_help(format!(
                        "a rate store is {}",
                        crate::store::StoreSpec::EXPECTED
                    )),
            ),
        }
    });
    store
}

/// `[claude]`: `verify-key = "PATH"`, `log-file = "PATH"`.
fn parse_claude(
    value: &toml::Spanned<toml::de::DeValue<'_>>,
    source: &SourceFile,
    config: &mut Config,
    diags: &mut Diagnostics,
) {
    let span = |r: std::ops::Range<usize>| Span::new(r.start, r.end);
    let toml::de::DeValue::Table(table) = value.get_ref() else {
        diags.push(
            Diagnostic::error("invalid-config", "`claude` must be a table")
                .in_file(source)
                .with_primary(span(value.span()), "not a table")
                .with_help("write `[claude]` on a line of its own, then `verify-key = \"FILE\"`"),
        );
        return;
    };
    let mut entries: Vec<_> = table.iter().collect();
    entries.sort_by_key(|(k, _)| k.span().start);
    for (key, value) in entries {
        let key_text: &str = key.get_ref();
        if key_text == "log-file" {
            match value.get_ref() {
                toml::de::DeValue::String(path) if !path.is_empty() => {
                    config.log_file = Some(PathBuf::from(path.as_ref()));
                }
                _ => diags.push(
                    Diagnostic::error("invalid-config", "`log-file` must be a file name")
                        .in_file(source)
                        .with_primary(span(value.span()), "not a file name")
                        .with_help("the decision log, relative to this file: `log-file = \"state/decisions.jsonl\"`"),
                ),
            }
            continue;
        }
        if key_text != "verify-key" {
            diags.push(
                Diagnostic::warning(
                    "unknown-config-key",
                    format!("unknown key `{key_text}` in `[claude]`"),
                )
                .in_file(source)
                .with_primary(span(key.span()), "not a setting")
                .with_help("`[claude]` has `verify-key` and `log-file`"),
            );
            continue;
        }
        match value.get_ref() {
            toml::de::DeValue::String(path) if !path.is_empty() => {
                config.verify_key = Some(PathBuf::from(path.as_ref()));
            }
            _ => diags.push(
                Diagnostic::error("invalid-config", "`verify-key` must be a file name")
                    .in_file(source)
                    .with_primary(span(value.span()), "not a file name")
                    .with_help("the public key from `hookc keygen`, relative to this file: `verify-key = \"hookc.key.pub\"`"),
            ),
        }
    }
}

fn first_line(text: &str) -> String {
    let line = text.trim().lines().next().unwrap_or("");
    let mut chars = line.chars();
    match chars.next() {
        Some(c) => c
            .to_lowercase()
            .chain(chars)
            .collect::<String>()
            .trim_end_matches('.')
            .to_string(),
        None => String::from("syntax error"),
    }
}

fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => {
            let text = e.to_string();
            text.split(" (os error")
                .next()
                .unwrap_or(&text)
                .to_lowercase()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn messages(diags: &Diagnostics) -> Vec<String> {
        diags
            .iter()
            .map(|d| format!("{}: {}", d.severity, d.message))
            .collect()
    }

    #[test]
    fn levels_are_read() {
        let (config, diags) = Config::parse(
            "hookc.toml",
            "[lints]\nunreachable-rule = \"deny\"\npriority-tie = \"allow\"\n\"empty-list\" = \"warn\"\n",
        );
        assert!(diags.is_empty(), "{diags}");
        assert_eq!(config.lints.get("unreachable-rule"), Some(Level::Deny));
        assert_eq!(config.lints.get("priority-tie"), Some(Level::Allow));
        assert_eq!(config.lints.get("empty-list"), Some(Level::Warn));
        assert_eq!(config.lints.get("edit-conflict"), None);
    }

    #[test]
    fn problems_point_into_the_file() {
        let text = "lint = 1\n[lints]\nunreachable-rules = \"deny\"\nempty-list = \"dney\"\nedit-conflict = 3\n";
        let (config, diags) = Config::parse("hookc.toml", text);
        assert_eq!(
            messages(&diags),
            [
                "warning: unknown key `lint` in `hookc.toml`",
                "warning: unknown lint `unreachable-rules`",
                "error: unknown lint level `dney`",
                "error: the level of `edit-conflict` must be a string",
            ]
        );
        let unknown = &diags.0[1];
        assert_eq!(
            unknown.help.as_deref(),
            Some("did you mean `unreachable-rule`?")
        );
        assert_eq!(unknown.location().map(|l| (l.1, l.2)), Some((3, 1)));
        assert_eq!(diags.0[2].help.as_deref(), Some("did you mean `deny`?"));
        assert!(config.lints.is_empty());
    }

    #[test]
    fn the_cost_budget_is_read_and_checked() {
        let (config, diags) = Config::parse("hookc.toml", "[cost]\ntimeout-budget-ms = 30_000\n");
        assert!(diags.is_empty(), "{diags}");
        assert_eq!(config.point_timeout_budget_ms, Some(30_000));
        assert_eq!(config.options().point_timeout_budget_ms, 30_000);
        let (config, diags) =
            Config::parse("hookc.toml", "[cost]\ntimeout-budget-ms = -1\nbudget = 2\n");
        assert_eq!(config.point_timeout_budget_ms, None);
        assert_eq!(
            messages(&diags),
            [
                "error: `timeout-budget-ms` must be a whole number of milliseconds",
                "warning: unknown key `cost.budget` in `hookc.toml`",
            ]
        );
        assert_eq!(
            Config::default().options().point_timeout_budget_ms,
            crate::check::DEFAULT_POINT_TIMEOUT_BUDGET_MS
        );
    }

    #[test]
    fn the_rate_store_is_read_and_checked() {
        let (config, diags) =
            Config::parse("hookc.toml", "[rate]\nstore = \"redis://:pw@10.1.1.1/0\"\n");
        assert!(diags.is_empty(), "{diags}");
        assert_eq!(config.rate_store.as_deref(), Some("redis://:pw@10.1.1.1/0"));
        let (config, diags) = Config::parse("hookc.toml", "[rate]\nstore = \"disk\"\nstores = 1\n");
        assert_eq!(
            config.rate_store.as_deref(),
            Some("disk"),
            "kept, to be refused"
        );
        assert_eq!(
            messages(&diags),
            [
                "error: unknown rate store `disk`: expected `file`, `memory` or a `redis://host:port` URL",
                "warning: unknown key `rate.stores` in `hookc.toml`",
            ]
        );
        assert_eq!(diags.0[0].location().map(|l| (l.1, l.2)), Some((2, 9)));
        let (_, diags) = Config::parse("hookc.toml", "rate = \"file\"\n");
        assert_eq!(messages(&diags), ["error: `rate` must be a table"]);
    }

    #[test]
    fn the_log_file_of_claude_is_read() {
        let (config, diags) =
            Config::parse("hookc.toml", "[claude]\nlog-file = \"state/d.jsonl\"\n");
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(config.log_file, Some(PathBuf::from("state/d.jsonl")));
        let (_, diags) = Config::parse("hookc.toml", "[claude]\nlog-file = 3\n");
        assert!(diags.has_errors());
    }

    #[test]
    fn the_verify_key_of_claude_is_read_relative_to_the_file() {
        let (config, diags) =
            Config::parse("hookc.toml", "[claude]\nverify-key = \"keys/k.pub\"\n");
        assert!(diags.is_empty(), "{diags}");
        assert_eq!(config.verify_key, Some(PathBuf::from("keys/k.pub")));

        let dir = std::env::temp_dir().join(format!("hookc-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join(FILE_NAME);
        std::fs::write(&file, "[claude]\nverify-key = \"keys/k.pub\"\n").unwrap();
        let (config, _) = Config::load(&file);
        assert_eq!(config.verify_key, Some(dir.join("keys/k.pub")));
        std::fs::remove_dir_all(&dir).unwrap();

        let (_, diags) = Config::parse(
            "hookc.toml",
            "[claude]\nverify-kye = \"k.pub\"\nverify-key = 3\n",
        );
        assert_eq!(
            messages(&diags),
            [
                "warning: unknown key `verify-kye` in `[claude]`",
                "error: `verify-key` must be a file name",
            ]
        );
    }

    #[test]
    fn invalid_toml_is_an_error() {
        let (_, diags) = Config::parse("hookc.toml", "[lints\n");
        assert_eq!(diags.0.len(), 1);
        assert!(diags.has_errors());
        assert!(
            diags.0[0].message.starts_with("invalid `hookc.toml`: "),
            "{}",
            diags.0[0].message
        );
        let (_, diags) = Config::parse("hookc.toml", "lints = 3\n");
        assert_eq!(messages(&diags), ["error: `lints` must be a table"]);
    }
}
