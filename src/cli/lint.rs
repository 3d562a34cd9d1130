//! `hookc lint`: check rule files and report every finding.

use super::{check_sources, emit_diagnostics, has_io_errors, Failure, Format, Status};
use crate::diag::Severity;
use std::path::PathBuf;

/// Arguments of `hookc lint`.
#[derive(Debug, clap::Args)]
pub(crate) struct LintArgs {
    /// `.hooks` files, or directories searched recursively for `*.hooks`
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,

    /// Output format: `human` (rustc-like, on stderr) or `json` (on stdout)
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,

    /// Exit 1 on warnings too, not only on errors
    #[arg(long)]
    deny_warnings: bool,
}

/// Lints the paths; exit 1 on errors (or warnings with `--deny-warnings`).
pub(crate) fn run(args: LintArgs) -> Result<Status, Failure> {
    check_sources(&args.paths)?;
    let diags = crate::compile::lint_paths(&args.paths, &crate::Options::default());
    emit_diagnostics(&diags, args.format)?;
    if has_io_errors(&diags) {
        return Ok(Status::Reported);
    }
    let failed = diags.has_errors() || (args.deny_warnings && diags.count(Severity::Warning) > 0);
    Ok(if failed { Status::Findings } else { Status::Ok })
}
