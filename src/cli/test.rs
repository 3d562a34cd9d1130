//! `hookc test`: run the `test` blocks written next to the rules.
//!
//! Prints like `cargo test`: one `test FILE::NAME ... ok|FAILED` line per
//! test, the failures, then `test result: ok. N passed; M failed` and a last
//! line `N passed, M failed`.

use super::{check_sources, emit_diagnostics, pretty_json, print_stdout, Failure, Format, Status};
use crate::diag::escape;
use crate::scenarios::{TestReport, TestResult};
use std::path::PathBuf;

/// Arguments of `hookc test`.
#[derive(Debug, clap::Args)]
pub(crate) struct TestArgs {
    /// `.hooks` files, or directories searched recursively for `*.hooks`
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,

    /// Output: `human` (like `cargo test`) or `json` (every result)
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,

    /// Lint levels from this file instead of the `hookc.toml` found in the
    /// first path's directory or above
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,

    /// Record effects instead of running them: no command, webhook,
    /// handler, Lua or trace runs; each leaves an `info` log line
    #[arg(long)]
    no_effects: bool,
}

/// Runs the tests; exit 1 when one fails, 2 when the rules do not compile.
pub(crate) fn run(args: TestArgs) -> Result<Status, Failure> {
    check_sources(&args.paths)?;
    let (options, mut found) = super::load_config(&args.paths, args.config.as_deref())?;
    if found.has_errors() {
        emit_diagnostics(&found, Format::Human)?;
        return Ok(Status::Reported);
    }
    let run = if args.no_effects {
        crate::scenarios::run_tests_without_effects
    } else {
        crate::scenarios::run_tests_with
    };
    let report = match run(&args.paths, &options) {
        Ok(report) => report,
        Err(diags) => {
            found.extend(diags);
            emit_diagnostics(&found, Format::Human)?;
            return Ok(Status::Reported);
        }
    };
    found.extend(report.warnings.clone());
    emit_diagnostics(&found, Format::Human)?;
    match args.format {
        Format::Human => print_stdout(&crate::diag::escape::guard(human(&report))),
        Format::Json => {
            let value = serde_json::json!({
                "tests": report.tests,
                "passed": report.passed(),
                "failed": report.failed(),
            });
            print_stdout(&pretty_json(&value)?);
        }
    }
    super::flush::flush_global();
    Ok(if report.ok() {
        Status::Ok
    } else {
        Status::Findings
    })
}

/// The longest name or failure line shown, in characters.
const WIDTH: usize = 400;

/// `file::name`, escaped and bounded (a test's name is a string literal).
fn name(t: &TestResult) -> String {
    escape::shorten(&t.full_name(), WIDTH).into_owned()
}

/// The `cargo test`-like report: every name and failure line escaped and
/// cut ([`escape`]).
fn human(report: &TestReport) -> String {
    let mut out = format!(
        "\nrunning {}\n",
        super::plural(report.tests.len(), "test", "tests")
    );
    for t in &report.tests {
        let status = if t.passed { "ok" } else { "FAILED" };
        out.push_str(&format!("test {} ... {status}\n", name(t)));
    }
    let failed: Vec<_> = report.tests.iter().filter(|t| !t.passed).collect();
    if !failed.is_empty() {
        out.push_str("\nfailures:\n");
        for t in &failed {
            out.push_str(&format!(
                "\n---- {} ({}:{}:{}) ----\n",
                name(t),
                escape::shorten(&t.file, WIDTH),
                t.line,
                t.col
            ));
            // A failure quotes the final payload, which may be megabytes:
            // each of its lines is cut.
            for f in &t.failures {
                for line in f.lines() {
                    out.push_str(&escape::shorten_lines(line, WIDTH));
                    out.push('\n');
                }
            }
        }
        out.push_str("\nfailures:\n");
        for t in &failed {
            out.push_str(&format!("    {}\n", name(t)));
        }
    }
    let (passed, failed) = (report.passed(), report.failed());
    let result = if failed == 0 { "ok" } else { "FAILED" };
    out.push_str(&format!(
        "\ntest result: {result}. {passed} passed; {failed} failed\n{passed} passed, {failed} failed\n"
    ));
    out
}
