//! `hookc compile`: compile rules into a binary dispatch table.

use super::{
    check_sources, emit_diagnostics, has_io_errors, plural, print_stderr, Failure, Format, Status,
};
use std::collections::BTreeSet;
use std::path::PathBuf;

/// Arguments of `hookc compile`.
#[derive(Debug, clap::Args)]
pub(crate) struct CompileArgs {
    /// `.hooks` files, or directories searched recursively for `*.hooks`
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,

    /// Where to write the compiled table
    #[arg(short, long, value_name = "FILE")]
    output: PathBuf,

    /// Format of diagnostics: `human` (on stderr) or `json` (on stdout)
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,

    /// Lint levels from this file instead of the `hookc.toml` found in the
    /// first path's directory or above
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
}

/// Compiles the paths and writes the table; nothing is written on errors.
pub(crate) fn run(args: CompileArgs) -> Result<Status, Failure> {
    check_sources(&args.paths)?;
    let (options, mut found) = super::load_config(&args.paths, args.config.as_deref())?;
    if found.has_errors() {
        emit_diagnostics(&found, args.format)?;
        return Ok(if has_io_errors(&found) {
            Status::Reported
        } else {
            Status::Findings
        });
    }
    let compiled = match crate::compile_paths(&args.paths, &options) {
        Ok(mut compiled) => {
            found.extend(std::mem::take(&mut compiled.warnings));
            compiled.warnings = found;
            compiled
        }
        Err(diags) => {
            found.extend(diags);
            let diags = found;
            emit_diagnostics(&diags, args.format)?;
            return Ok(if has_io_errors(&diags) {
                Status::Reported
            } else {
                Status::Findings
            });
        }
    };
    emit_diagnostics(&compiled.warnings, args.format)?;
    let bytes = compiled.table.to_bytes();
    // `-o build/hooks.tbl` in a fresh checkout: the directory is made.
    if let Some(dir) = args.output.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| Failure::cannot_write(dir, &e))?;
    }
    std::fs::write(&args.output, &bytes).map_err(|e| Failure::cannot_write(&args.output, &e))?;
    let program = compiled.table.program();
    let rules: BTreeSet<&str> = program
        .points
        .iter()
        .flat_map(|p| p.rules.iter().map(|r| r.id.as_str()))
        .collect();
    print_stderr(&format!(
        "compiled {} on {} into {} ({})\n",
        plural(rules.len(), "rule", "rules"),
        plural(program.points.len(), "point", "points"),
        args.output.display(),
        plural(bytes.len(), "byte", "bytes"),
    ));
    Ok(Status::Ok)
}
