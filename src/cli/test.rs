//! `hookc test`: run the `test` blocks written next to the rules.
//!
//! Prints like `cargo test`: one `test FILE::NAME ... ok|FAILED` line per
//! test, the failures, with `--coverage` what the tests exercised, then
//! `test result: ok. N passed; M failed` and a last line `N passed, M
//! failed`. `--format json` prints one document, `--format junit` JUnit XML
//! (one `testsuite` per file).

use super::{
    check_sources, emit_diagnostics, pretty_json, print_stderr, print_stdout, Failure, Format,
    Status,
};
use crate::analysis::witness::{self, Verdict, Witness};
use crate::diag::escape;
use crate::scenarios::{Coverage, TestReport, TestResult, TestRun};
use crate::Table;
use serde::Serialize;
use serde_json::Value;
use std::fmt::Write as _;
use std::path::PathBuf;

/// Arguments of `hookc test`.
#[derive(Debug, clap::Args)]
pub(crate) struct TestArgs {
    /// `.hooks` files, or directories searched recursively for `*.hooks`
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,

    /// Output: `human` (like `cargo test`), `json` (every result, and the
    /// coverage) or `junit` (JUnit XML, one test suite per file)
    #[arg(long, value_enum, default_value_t = TestFormat::Human)]
    format: TestFormat,

    /// Run only the tests whose `FILE::NAME` contains FILTER
    #[arg(long, value_name = "FILTER")]
    run: Option<String>,

    /// Report which rules no test made fire and which parts of their
    /// conditions no test made true, or false, per file
    #[arg(long)]
    coverage: bool,

    /// Lint levels from this file instead of the `hookc.toml` found in the
    /// first path's directory or above
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,

    /// Record effects instead of running them: no command, webhook,
    /// handler, Lua or trace runs; each leaves an `info` log line
    #[arg(long)]
    no_effects: bool,
}

/// The output formats of `hookc test`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum TestFormat {
    /// Text for people, like `cargo test`
    Human,
    /// One JSON document
    Json,
    /// JUnit XML, for CI test reports
    Junit,
}

/// Runs the tests; exit 1 when one fails, 2 when the rules do not compile.
pub(crate) fn run(args: TestArgs) -> Result<Status, Failure> {
    check_sources(&args.paths)?;
    let (options, mut found) = super::load_config(&args.paths, args.config.as_deref())?;
    if found.has_errors() {
        emit_diagnostics(&found, Format::Human)?;
        return Ok(Status::Reported);
    }
    let how = TestRun {
        record_effects: args.no_effects,
        filter: args.run.clone(),
        coverage: args.coverage,
        project_dir: None,
    };
    let report = match crate::scenarios::run_tests_as(&args.paths, &options, &how) {
        Ok(report) => report,
        Err(diags) => {
            found.extend(diags);
            emit_diagnostics(&found, Format::Human)?;
            return Ok(Status::Reported);
        }
    };
    found.extend(report.warnings.clone());
    emit_diagnostics(&found, Format::Human)?;
    let suggested = suggestions(&report);
    match args.format {
        TestFormat::Human => print_stdout(&escape::guard(human(&report, &suggested))),
        TestFormat::Json => {
            let mut coverage = serde_json::to_value(&report.coverage)
                .map_err(|e| Failure::new(format!("cannot serialize output: {e}")))?;
            if let Some(fields) = coverage.as_object_mut() {
                fields.insert("suggested".to_owned(), json_value(&suggested.tests)?);
                fields.insert("no_witness".to_owned(), json_value(&suggested.none)?);
            }
            let value = serde_json::json!({
                "tests": report.tests,
                "passed": report.passed(),
                "failed": report.failed(),
                "filtered_out": report.filtered_out,
                "coverage": coverage,
            });
            print_stdout(&pretty_json(&value)?);
        }
        TestFormat::Junit => {
            print_stdout(&junit(&report));
            // Stdout is the XML document: the coverage goes to stderr.
            if let Some(coverage) = &report.coverage {
                let mut text = coverage_text(coverage);
                text.push_str(&suggestions_text(&suggested));
                print_stderr(&escape::guard(text));
            }
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
fn human(report: &TestReport, suggested: &Suggestions) -> String {
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
    if let Some(coverage) = &report.coverage {
        out.push('\n');
        out.push_str(&coverage_text(coverage));
        out.push_str(&suggestions_text(suggested));
    }
    let (passed, failed) = (report.passed(), report.failed());
    let result = if failed == 0 { "ok" } else { "FAILED" };
    let (filtered, filtered_last) = if report.filtered_out > 0 {
        let n = report.filtered_out;
        (format!("; {n} filtered out"), format!(", {n} filtered out"))
    } else {
        (String::new(), String::new())
    };
    out.push_str(&format!(
        "\ntest result: {result}. {passed} passed; {failed} failed{filtered}\n{passed} passed, {failed} failed{filtered_last}\n"
    ));
    out
}

/// `covered/total (p%)`; no percentage of nothing.
fn ratio(count: crate::scenarios::Count) -> String {
    if count.total == 0 {
        return "0/0".to_owned();
    }
    #[expect(
        clippy::cast_precision_loss,
        reason = "a percentage shown to one decimal"
    )]
    let percent = count.covered as f64 * 100.0 / count.total as f64;
    format!("{}/{} ({percent:.1}%)", count.covered, count.total)
}

/// The coverage for people: per file its counts, then what was missed at
/// `file:line:col`; a total last.
fn coverage_text(coverage: &Coverage) -> String {
    let mut out = String::from("coverage:\n");
    for file in &coverage.files {
        let name = escape::shorten(&file.file, WIDTH);
        let _ = writeln!(
            out,
            "  {name}: rules {}, conditions {}",
            ratio(file.rules),
            ratio(file.conditions)
        );
        for rule in &file.uncovered_rules {
            let why = if rule.enabled {
                "never fired"
            } else {
                "never fired (disabled)"
            };
            let _ = writeln!(
                out,
                "    {name}:{}:{}: rule `{}` {why}",
                rule.line,
                rule.col,
                escape::shorten(&rule.id, WIDTH)
            );
        }
        for cond in &file.uncovered_conditions {
            let _ = writeln!(
                out,
                "    {}:{}:{}: `{}` {} (rule `{}`)",
                escape::shorten(&cond.file, WIDTH),
                cond.line,
                cond.col,
                escape::shorten(&cond.condition, CONDITION_WIDTH),
                cond.missed.describe(),
                escape::shorten(&cond.rule, WIDTH)
            );
        }
    }
    let _ = writeln!(
        out,
        "  total: rules {}, conditions {}",
        ratio(coverage.rules),
        ratio(coverage.conditions)
    );
    out
}

/// A test written for a rule no test made fire, from its witness event.
///
/// As JSON (in `hookc test --coverage --format json`, under
/// `coverage.suggested`): `{"rule": "audit", "point": "tool.post_execute",
/// "file": "guard.hooks", "line": 20, "event": {…}, "fired": ["audit"],
/// "test": "test \"audit fires\" {…}"}`.
#[derive(Clone, Debug, Serialize)]
struct Suggested {
    /// The rule's id.
    rule: String,
    /// The hook point of the witness.
    point: String,
    /// The file the rule is written in.
    file: String,
    /// The line of its `hook` keyword.
    line: u32,
    /// The witness event, as a test's `event` block reads it.
    event: Value,
    /// The rules the event makes fire, in order (`expect fired`).
    fired: Vec<String>,
    /// The `test` block, ready to paste into a `.hooks` file.
    test: String,
}

/// What `--coverage` suggests for the rules no test made fire: a test for
/// each one with a witness event, and the witness verdict (unreachable or
/// undecided, with its reason) of each one without.
#[derive(Clone, Debug, Default)]
struct Suggestions {
    tests: Vec<Suggested>,
    none: Vec<Witness>,
}

/// Searches a witness event ([`witness::witnesses`], with the effects
/// `hookc witness` uses) for each rule the coverage says no test made
/// fire, and writes a test from it.
fn suggestions(report: &TestReport) -> Suggestions {
    let mut out = Suggestions::default();
    let (Some(coverage), Some(table)) = (&report.coverage, &report.table) else {
        return out;
    };
    for file in &coverage.files {
        for rule in &file.uncovered_rules {
            let found = witness::witnesses(table, &super::witness::effects, Some(&rule.id));
            let mut unfired = None;
            let suggested = found.iter().find_map(|w| {
                let event = w.event.as_ref().filter(|_| w.verdict == Verdict::Witness)?;
                let fired = fired_by(table, event)?;
                if !fired.contains(&rule.id) {
                    unfired = Some(w);
                    return None;
                }
                let test = test_block(&rule.id, event, &fired)?;
                Some(Suggested {
                    rule: rule.id.clone(),
                    point: w.point.clone(),
                    file: w.file.clone(),
                    line: w.line,
                    event: event.clone(),
                    fired,
                    test,
                })
            });
            match suggested {
                Some(s) => out.tests.push(s),
                None => {
                    if let Some(w) = unfired {
                        let mut w = w.clone();
                        w.verdict = Verdict::Undecided;
                        w.event = None;
                        w.reason = Some("the witness event did not make the rule fire".to_owned());
                        out.none.push(w);
                    } else if let Some(w) = found.into_iter().next() {
                        out.none.push(w);
                    }
                }
            }
        }
    }
    out
}

/// The rules `event` makes fire, dispatched with the effects `hookc
/// witness` checks its events with; `None` when it is not a context.
fn fired_by(table: &Table, event: &Value) -> Option<Vec<String>> {
    let mut ctx = crate::event::context(event.clone()).ok()?;
    let effects = super::witness::effects();
    Some(table.dispatch_context_with(&mut ctx, &effects).fired)
}

/// `test "ID fires" { event {…} expect fired [...] }`, laid out as the
/// formatter writes tests; `None` when the event does not serialize.
fn test_block(id: &str, event: &Value, fired: &[String]) -> Option<String> {
    let mut bytes = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(b"    ");
    let mut ser = serde_json::Serializer::with_formatter(&mut bytes, formatter);
    event.serialize(&mut ser).ok()?;
    let json = String::from_utf8(bytes).ok()?;
    let name = crate::syntax::pretty::quote(&format!("{id} fires"));
    let mut out = format!("test {name} {{\n    event ");
    for (n, line) in json.lines().enumerate() {
        if n > 0 {
            out.push_str("    ");
        }
        out.push_str(line);
        out.push('\n');
    }
    let fired: Vec<String> = fired
        .iter()
        .map(|f| crate::syntax::pretty::quote(f))
        .collect();
    let _ = writeln!(out, "    expect fired [{}]", fired.join(", "));
    out.push_str("}\n");
    Some(out)
}

/// The suggested tests for people, after the coverage: each test block
/// ready to paste, then the rules without one and why.
fn suggestions_text(suggested: &Suggestions) -> String {
    let mut out = String::new();
    if !suggested.tests.is_empty() {
        out.push_str(
            "\nsuggested tests for the rules no test made fire (witness events, as `hookc witness` finds them):\n",
        );
        for s in &suggested.tests {
            out.push('\n');
            out.push_str(&s.test);
        }
    }
    if !suggested.none.is_empty() {
        out.push_str("\nno test suggested for:\n");
        for w in &suggested.none {
            let status = match w.verdict {
                Verdict::Witness => "witness",
                Verdict::Unreachable => "unreachable",
                Verdict::Undecided => "undecided",
            };
            let _ = write!(
                out,
                "  {}:{}: rule `{}` at {}: {status}",
                escape::shorten(&w.file, WIDTH),
                w.line,
                escape::shorten(&w.rule, WIDTH),
                w.point
            );
            if let Some(reason) = &w.reason {
                let _ = write!(out, ": {}", escape::shorten(reason, WIDTH));
            }
            out.push('\n');
        }
    }
    out
}

/// `value` as JSON, or a failure.
fn json_value(value: &impl Serialize) -> Result<Value, Failure> {
    serde_json::to_value(value).map_err(|e| Failure::new(format!("cannot serialize output: {e}")))
}

/// The longest condition shown in the human coverage, in characters.
const CONDITION_WIDTH: usize = 120;

/// The report as JUnit XML: `testsuites` with one `testsuite` per file,
/// one `testcase` per test, a `failure` for each test that failed (its
/// message the first failure, its text all of them).
fn junit(report: &TestReport) -> String {
    let mut files: Vec<&str> = Vec::new();
    for t in &report.tests {
        if !files.contains(&t.file.as_str()) {
            files.push(&t.file);
        }
    }
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"hookc test\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\">",
        report.tests.len(),
        report.failed(),
        report.filtered_out
    );
    for file in files {
        let tests: Vec<&TestResult> = report.tests.iter().filter(|t| t.file == file).collect();
        let failed = tests.iter().filter(|t| !t.passed).count();
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failed}\" errors=\"0\" skipped=\"0\">",
            xml_escape(file),
            tests.len()
        );
        for t in tests {
            let _ = write!(
                out,
                "    <testcase name=\"{}\" classname=\"{}\" file=\"{}\" line=\"{}\"",
                xml_escape(&t.name),
                xml_escape(file),
                xml_escape(file),
                t.line
            );
            if t.passed {
                out.push_str("/>\n");
                continue;
            }
            let message = t
                .failures
                .first()
                .and_then(|f| f.lines().next())
                .unwrap_or("failed");
            let _ = writeln!(
                out,
                ">\n      <failure message=\"{}\" type=\"expectation\">{}</failure>\n    </testcase>",
                xml_escape(message),
                xml_text(&t.failures.join("\n"))
            );
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

/// Text as an XML attribute value: [`xml_text`], with tabs and line
/// breaks as character references (raw, a parser would read them back as
/// spaces).
fn xml_escape(text: &str) -> String {
    xml_escaped(text, true)
}

/// Text as XML character data: the five markup characters as entities,
/// and the characters XML 1.0 does not allow (controls other than tab,
/// newline and carriage return, U+FFFE, U+FFFF) as visible `\u{…}`
/// escapes.
fn xml_text(text: &str) -> String {
    xml_escaped(text, false)
}

fn xml_escaped(text: &str, attribute: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' if attribute => out.push_str("&#10;"),
            '\t' if attribute => out.push_str("&#9;"),
            '\r' => out.push_str("&#13;"),
            '\n' | '\t' => out.push(c),
            c if c.is_control() || c == '\u{fffe}' || c == '\u{ffff}' => {
                escape::push_escape(&mut out, c);
            }
            c => out.push(c),
        }
    }
    out
}
