//! `hookc lint`: check rule files and report every finding.

use super::{
    check_sources, emit_diagnostics, has_io_errors, load_config, pretty_json, print_stdout,
    Failure, Format, Status,
};
use crate::check::lints;
use crate::diag::Severity;
use std::path::PathBuf;

/// Output formats of `hookc lint`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum LintFormat {
    /// Text for people
    Human,
    /// JSON for machines
    Json,
    /// SARIF 2.1.0, for code scanning (GitHub and others)
    Sarif,
}

/// Arguments of `hookc lint`.
#[derive(Debug, clap::Args)]
pub(crate) struct LintArgs {
    /// `.hooks` files, or directories searched recursively for `*.hooks`
    #[arg(required_unless_present = "explain", value_name = "PATH")]
    paths: Vec<PathBuf>,

    /// Output format: `human` (rustc-like, on stderr), `json` or `sarif` (on stdout)
    #[arg(long, value_enum, default_value_t = LintFormat::Human)]
    format: LintFormat,

    /// Exit 1 on warnings too, not only on errors
    #[arg(long)]
    deny_warnings: bool,

    /// Lint levels from this file instead of the `hookc.toml` found in the
    /// first path's directory or above
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,

    /// Print the documentation of the lint CODE and exit
    #[arg(long, value_name = "CODE")]
    explain: Option<String>,
}

/// Lints the paths; exit 1 on errors (or warnings with `--deny-warnings`).
pub(crate) fn run(args: LintArgs) -> Result<Status, Failure> {
    if let Some(code) = &args.explain {
        return explain(code);
    }
    check_sources(&args.paths)?;
    let (options, mut diags) = load_config(&args.paths, args.config.as_deref())?;
    // The table is kept for the JSON's cost report; the findings are
    // those of `compile::lint_paths`.
    let table = match crate::compile::compile_paths_with(
        &args.paths,
        &options,
        crate::compile::Leftovers::Leak,
    ) {
        Ok(compiled) => {
            diags.extend(compiled.warnings);
            Some(compiled.table)
        }
        Err(found) => {
            diags.extend(found);
            None
        }
    };
    match args.format {
        LintFormat::Human => emit_diagnostics(&diags, Format::Human)?,
        LintFormat::Json => {
            let mut out = crate::diag::render::json(&diags);
            if let Some(object) = out.as_object_mut() {
                // Per point, the worst case of one dispatch; `null` when
                // the rules do not compile.
                let cost = table
                    .as_ref()
                    .map(|t| serde_json::to_value(crate::analysis::cost::point_costs(t)))
                    .transpose()
                    .map_err(|e| Failure::new(format!("cannot write JSON: {e}")))?;
                object.insert("cost".to_string(), cost.unwrap_or_default());
            }
            print_stdout(&pretty_json(&out)?);
        }
        LintFormat::Sarif => {
            let base = std::env::current_dir().ok();
            let log = crate::diag::sarif::sarif(&diags, &lints::sarif_rules(), base.as_deref());
            print_stdout(&pretty_json(&log)?);
        }
    }
    let status = if has_io_errors(&diags) {
        Status::Reported
    } else if diags.has_errors() || (args.deny_warnings && diags.count(Severity::Warning) > 0) {
        Status::Findings
    } else {
        Status::Ok
    };
    // The process exits next: its memory goes back whole, without freeing
    // the table and every finding one by one.
    std::mem::forget((table, diags));
    Ok(status)
}

/// `hookc lint --explain CODE`: the lint's documentation, as Markdown.
fn explain(code: &str) -> Result<Status, Failure> {
    let Some(lint) = lints::lint(code) else {
        let mut failure = Failure::new(format!("unknown lint `{code}`"));
        failure = match crate::diag::suggest::suggest(code, lints::codes()) {
            Some(s) => failure.help(format!("did you mean `{s}`?")),
            None => failure.help(format!(
                "the lints are: {}",
                lints::codes().collect::<Vec<_>>().join(", ")
            )),
        };
        return Err(failure);
    };
    print_stdout(&format!(
        "# {}\n\nDefault level: {}\n\n{}\n",
        lint.code,
        lint.default,
        lint.doc()
    ));
    Ok(Status::Ok)
}
