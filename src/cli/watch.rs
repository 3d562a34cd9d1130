//! `hookc watch`: recompile rules on every change, keep the last good table.
//!
//! What happens is reported as it happens: lines on stderr, or with
//! `--format json` one JSON object per line on stdout, each with its
//! `event`: `started`, `compiled` (a table was written), `failed` (the
//! rules have errors, with the diagnostics), `kept` (a change that empties
//! the rules was not published), `reloaded` (the `--exec` command ran),
//! `refused` (the table would overwrite a rule file).

use super::compile::{check_output, write_table};
use super::{emit_diagnostics, plural, print_stderr, print_stdout, Failure, Format, Status};
use crate::watch::{Change, Wake, Watcher};
use serde_json::json;
use std::path::PathBuf;
use std::time::Duration;

/// Arguments of `hookc watch`.
#[derive(Debug, clap::Args)]
pub(crate) struct WatchArgs {
    /// `.hooks` files, or directories searched recursively for `*.hooks`
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,

    /// Where to write each table that compiles (replaced atomically)
    #[arg(short, long, value_name = "FILE")]
    output: PathBuf,

    /// A command to run after each table is written, e.g. one that tells
    /// the host to reload (`--exec kill -HUP 1234`); run directly, no shell
    #[arg(long, value_name = "CMD", num_args = 1.., allow_hyphen_values = true)]
    exec: Vec<String>,

    /// How often to look at the files' contents, in milliseconds (between
    /// file-system events, or alone with `--poll`)
    #[arg(long, value_name = "MS", default_value_t = 250)]
    interval: u64,

    /// Look for changes by content every `--interval` only, without
    /// file-system events
    #[arg(long)]
    poll: bool,

    /// Publish a change that leaves no rules, or empties a file whose rules
    /// are in the table (by default such a change, often an editor's
    /// truncate-then-write save, keeps the last table)
    #[arg(long)]
    allow_empty: bool,

    /// Lint levels from this file instead of the `hookc.toml` found in the
    /// first path's directory or above
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,

    /// Sign each table with this secret key (see `hookc compile --sign`)
    #[arg(long, value_name = "KEYFILE")]
    sign: Option<PathBuf>,

    /// Output: `human` (lines on stderr) or `json` (one JSON object per
    /// event and line on stdout: `started`, `compiled`, `failed`, `kept`,
    /// `reloaded`, `refused`)
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
}

/// Watches until killed; compile errors are printed and the last good table
/// stays in place.
pub(crate) fn run(args: WatchArgs) -> Result<Status, Failure> {
    let (options, found) = super::load_config(&args.paths, args.config.as_deref())?;
    if found.has_errors() {
        if args.format == Format::Json {
            event(&json!({
                "event": "failed",
                "output": args.output.display().to_string(),
                "diagnostics": crate::diag::render::json(&found),
            }));
        } else {
            emit_diagnostics(&found, Format::Human)?;
        }
        return Ok(Status::Reported);
    }
    let mut ignored = crate::diag::Diagnostics::new();
    let roots = crate::load::discover(&args.paths, &mut ignored);
    check_output(&args.output, &roots)?;
    let key = args
        .sign
        .as_deref()
        .map(super::keygen::read_secret_key)
        .transpose()?;
    let mut watcher = Watcher::new(&args.paths, options).allow_empty(args.allow_empty);
    if args.poll {
        watcher = watcher.polling();
    }
    let json = args.format == Format::Json;
    let output = args.output.display().to_string();
    let interval = Duration::from_millis(args.interval.max(10));
    let wake = watcher.wake();
    if json {
        let (mode, reason) = match &wake {
            Wake::Events => ("events", None),
            Wake::Polling(reason) => ("polling", Some(reason.as_str())),
        };
        event(&json!({
            "event": "started",
            "paths": args.paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
            "output": output,
            "wake": mode,
            "reason": reason,
            "interval_ms": interval.as_millis(),
        }));
    } else {
        match &wake {
            Wake::Events => print_stderr(&format!(
                "watch: waiting for file-system events (and looking every {} ms)\n",
                interval.as_millis()
            )),
            Wake::Polling(reason) => print_stderr(&format!(
                "watch: looking for changes every {} ms ({reason})\n",
                interval.as_millis()
            )),
        }
    }
    loop {
        match watcher.poll() {
            None => {}
            Some(Change::Failed(diagnostics)) if json => event(&json!({
                "event": "failed",
                "output": output,
                "diagnostics": crate::diag::render::json(&diagnostics),
            })),
            Some(Change::Failed(diagnostics)) => {
                emit_diagnostics(&diagnostics, Format::Human)?;
                print_stderr(&format!(
                    "watch: the rules have errors; `{output}` keeps the last good table\n"
                ));
            }
            Some(Change::Emptied {
                files, published, ..
            }) if json => event(&json!({
                "event": "kept",
                "output": output,
                "files": files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>(),
                "published": published,
            })),
            Some(Change::Emptied {
                files, published, ..
            }) => {
                let what = if files.is_empty() {
                    "the change leaves no rules".to_string()
                } else {
                    let names: Vec<String> =
                        files.iter().map(|f| format!("`{}`", f.display())).collect();
                    format!("{} is empty now", names.join(", "))
                };
                print_stderr(&format!(
                    "watch: {what}; `{output}` keeps the last good table ({}); pass --allow-empty to publish an empty rule set\n",
                    plural(published, "rule", "rules"),
                ));
            }
            Some(Change::Compiled(compiled)) => {
                if !json {
                    emit_diagnostics(&compiled.warnings, Format::Human)?;
                }
                let sources: Vec<PathBuf> = compiled
                    .sources
                    .iter()
                    .map(|s| PathBuf::from(s.name.as_ref()))
                    .collect();
                if let Err(failure) = check_output(&args.output, &sources) {
                    if json {
                        event(&json!({
                            "event": "refused",
                            "output": output,
                            "message": failure.message,
                        }));
                    } else {
                        failure.print();
                    }
                } else {
                    let bytes = match &key {
                        Some(key) => compiled.table.to_signed_bytes(key),
                        None => compiled.table.to_bytes(),
                    };
                    write_table(&args.output, &bytes)?;
                    if json {
                        event(&json!({
                            "event": "compiled",
                            "output": output,
                            "rules": compiled.table.rule_count(),
                            "points": compiled.table.point_count(),
                            "bytes": bytes.len(),
                            "signed": key.is_some(),
                            "warnings": crate::diag::render::json(&compiled.warnings),
                        }));
                    } else {
                        print_stderr(&format!(
                            "watch: compiled {} into {output}\n",
                            plural(compiled.table.rule_count(), "rule", "rules"),
                        ));
                    }
                    if let Some((program, rest)) = args.exec.split_first() {
                        run_command(program, rest, json);
                    }
                }
            }
        }
        watcher.wait(interval);
    }
}

/// One event of `--format json`: a line of JSON on stdout, flushed.
fn event(value: &serde_json::Value) {
    print_stdout(&format!("{value}\n"));
}

/// Runs the `--exec` command; its failure is reported, not fatal.
fn run_command(program: &str, args: &[String], json: bool) {
    let result = std::process::Command::new(program).args(args).status();
    if json {
        let command: Vec<&str> = std::iter::once(program)
            .chain(args.iter().map(String::as_str))
            .collect();
        let (ok, status, error) = match &result {
            Ok(status) => (status.success(), status.code(), None),
            Err(e) => (false, None, Some(super::io_reason(e))),
        };
        event(&json!({
            "event": "reloaded",
            "command": command,
            "ok": ok,
            "status": status,
            "error": error,
        }));
        return;
    }
    match result {
        Ok(status) if status.success() => {}
        Ok(status) => print_stderr(&format!("watch: `{program}` exited with {status}\n")),
        Err(e) => print_stderr(&format!("watch: cannot run `{program}`: {e}\n")),
    }
}
