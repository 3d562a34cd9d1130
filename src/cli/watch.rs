//! `hookc watch`: recompile rules on every change, keep the last good table.

use super::compile::{check_output, write_table};
use super::{emit_diagnostics, plural, print_stderr, Failure, Format, Status};
use crate::watch::{Change, Wake, Watcher};
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
}

/// Watches until killed; compile errors are printed and the last good table
/// stays in place.
pub(crate) fn run(args: WatchArgs) -> Result<Status, Failure> {
    let (options, found) = super::load_config(&args.paths, args.config.as_deref())?;
    if found.has_errors() {
        emit_diagnostics(&found, Format::Human)?;
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
    let interval = Duration::from_millis(args.interval.max(10));
    match watcher.wake() {
        Wake::Events => print_stderr(&format!(
            "watch: waiting for file-system events (and looking every {} ms)\n",
            interval.as_millis()
        )),
        Wake::Polling(reason) => print_stderr(&format!(
            "watch: looking for changes every {} ms ({reason})\n",
            interval.as_millis()
        )),
    }
    loop {
        match watcher.poll() {
            None => {}
            Some(Change::Failed(diagnostics)) => {
                emit_diagnostics(&diagnostics, Format::Human)?;
                print_stderr(&format!(
                    "watch: the rules have errors; `{}` keeps the last good table\n",
                    args.output.display()
                ));
            }
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
                    "watch: {what}; `{}` keeps the last good table ({}); pass --allow-empty to publish an empty rule set\n",
                    args.output.display(),
                    plural(published, "rule", "rules"),
                ));
            }
            Some(Change::Compiled(compiled)) => {
                emit_diagnostics(&compiled.warnings, Format::Human)?;
                let sources: Vec<PathBuf> = compiled
                    .sources
                    .iter()
                    .map(|s| PathBuf::from(s.name.as_ref()))
                    .collect();
                if let Err(failure) = check_output(&args.output, &sources) {
                    failure.print();
                } else {
                    let bytes = match &key {
                        Some(key) => compiled.table.to_signed_bytes(key),
                        None => compiled.table.to_bytes(),
                    };
                    write_table(&args.output, &bytes)?;
                    print_stderr(&format!(
                        "watch: compiled {} into {}\n",
                        plural(compiled.table.rule_count(), "rule", "rules"),
                        args.output.display(),
                    ));
                    if let Some((program, rest)) = args.exec.split_first() {
                        run_command(program, rest);
                    }
                }
            }
        }
        watcher.wait(interval);
    }
}

/// Runs the `--exec` command; its failure is reported, not fatal.
fn run_command(program: &str, args: &[String]) {
    match std::process::Command::new(program).args(args).status() {
        Ok(status) if status.success() => {}
        Ok(status) => print_stderr(&format!("watch: `{program}` exited with {status}\n")),
        Err(e) => print_stderr(&format!("watch: cannot run `{program}`: {e}\n")),
    }
}
