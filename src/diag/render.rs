//! Rendering diagnostics for people (rustc-like text) and machines (JSON).
//!
//! [`human`] draws each diagnostic with miette's graphical handler: the
//! severity, the code and the message, the `file:line:col` of the primary
//! label, the source line with the span underlined and labelled, and the help
//! line; a rustc-like summary line closes the report. Without color the
//! output is plain ASCII (`^` carets), stable enough for snapshot tests:
//!
//! ```text
//! error[syntax]: expected `{`, found `abort`
//!    ,-[rules/guard.hooks:2:5]
//!  2 |     abort "no"
//!    :     ^^|^^
//!    :       `-- expected `{`
//!    `----
//!   help: add `{` to open the rule's body
//!
//! error: could not compile: 1 error emitted
//! ```
//!
//! [`json()`] gives the same content as data. Its shape is stable:
//!
//! ```text
//! {
//!   "diagnostics": [
//!     {
//!       "code": "syntax",            // stable kebab-case code
//!       "severity": "error",         // "error" | "warning" | "note"
//!       "message": "…",
//!       "file": "rules/guard.hooks", // null for file-less diagnostics
//!       "line": 2, "column": 5,      // 1-based, of the primary label; null without one
//!       "end_line": 2, "end_column": 10,
//!       "labels": [
//!         {"message": "…", "line": 2, "column": 5, "end_line": 2, "end_column": 10,
//!          "primary": true}
//!       ],
//!       "help": "…"                  // null when there is none
//!     }
//!   ],
//!   "errors": 1,
//!   "warnings": 0
//! }
//! ```
//!
//! Lines and columns are 1-based; columns count characters; `end_*` is the
//! position just past the span. [`short`] is the one-line form
//! `file:line:col: severity[code]: message`.

use std::fmt;
use std::sync::Arc;

use miette::{
    GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError, MietteSpanContents,
    NamedSource, SourceCode, SourceSpan, SpanContents,
};
use serde_json::{json, Value};

use super::{Diagnostic, Diagnostics, Severity};
use crate::span::{SourceFile, Span};

/// All diagnostics as rustc-like text, followed by a summary line (nothing at
/// all when there are no diagnostics). `color` selects ANSI colors and
/// Unicode box drawing; without it the output is plain ASCII.
pub fn human(diags: &Diagnostics, color: bool) -> String {
    let mut out = String::new();
    for d in diags.iter() {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&render_one(d, color));
    }
    if let Some(summary) = summary(diags) {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&summary);
        out.push('\n');
    }
    out
}

/// All diagnostics as a JSON document (shape in the module docs).
pub fn json(diags: &Diagnostics) -> Value {
    let list: Vec<Value> = diags.iter().map(json_one).collect();
    json!({
        "diagnostics": list,
        "errors": diags.count(Severity::Error),
        "warnings": diags.count(Severity::Warning),
    })
}

/// One line: `file:line:col: severity[code]: message` (without the location
/// when the diagnostic has no file).
pub fn short(d: &Diagnostic) -> String {
    d.to_string()
}

/// The closing line: `error: could not compile: 2 errors, 1 warning emitted`
/// or `warning: 1 warning emitted`; `None` when there is nothing to sum up.
fn summary(diags: &Diagnostics) -> Option<String> {
    let plural = |n: usize, what: &str| {
        if n == 1 {
            format!("1 {what}")
        } else {
            format!("{n} {what}s")
        }
    };
    let errors = diags.count(Severity::Error);
    let warnings = diags.count(Severity::Warning);
    if errors > 0 {
        let mut s = format!("error: could not compile: {}", plural(errors, "error"));
        if warnings > 0 {
            s.push_str(", ");
            s.push_str(&plural(warnings, "warning"));
        }
        s.push_str(" emitted");
        Some(s)
    } else if warnings > 0 {
        Some(format!("warning: {} emitted", plural(warnings, "warning")))
    } else {
        None
    }
}

/// `error[code]`, `warning[code]` or `note[code]`.
fn heading(d: &Diagnostic) -> String {
    format!("{}[{}]", d.severity, d.code)
}

/// One diagnostic as text, ending with a newline.
fn render_one(d: &Diagnostic, color: bool) -> String {
    let file = match &d.file {
        Some(file) if !d.labels.is_empty() => file,
        // Nothing to show from a file: the heading, where, and the help.
        _ => {
            let mut s = format!("{}: {}\n", heading(d), d.message);
            if let Some(file) = &d.file {
                s.push_str(&format!("  --> {}\n", file.name));
            }
            if let Some(help) = &d.help {
                s.push_str(&format!("  help: {help}\n"));
            }
            return s;
        }
    };
    let report = Report {
        diag: d,
        source: Source {
            named: NamedSource::new(&*file.name, Arc::clone(&file.text)),
            file,
        },
        file,
    };
    // The severity "icon" is the rustc-style heading, so the first line reads
    // `error[code]: message`; miette indents it by two spaces, removed below.
    let mut theme = if color {
        GraphicalTheme::unicode()
    } else {
        let mut plain = GraphicalTheme::none();
        // The label connector sits on the underline: keep it a caret so a
        // one-character span still shows `^`.
        plain.characters.underbar = '^';
        plain
    };
    let icon = format!("{}:", heading(d));
    theme.characters.error.clone_from(&icon);
    theme.characters.warning.clone_from(&icon);
    theme.characters.advice = icon;
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_wrap_lines(false)
        .with_links(false);
    let mut out = String::new();
    if handler.render_report(&mut out, &report).is_err() {
        // Rendering into a String cannot fail; fall back to the short form.
        return format!("{}\n", short(d));
    }
    match out.strip_prefix("  ") {
        Some(rest) => rest.to_owned(),
        None => out,
    }
}

/// A [`Diagnostic`] seen through miette's eyes.
struct Report<'a> {
    /// The diagnostic.
    diag: &'a Diagnostic,
    /// Its file, for clamping spans.
    file: &'a SourceFile,
    /// The file's text under its name.
    source: Source<'a>,
}

/// The file as miette reads it: miette counts columns in bytes, this counts
/// them in characters, as [`SourceFile::line_col`] (and so `short` and
/// `json`) does.
struct Source<'a> {
    /// The text under the file's name.
    named: NamedSource<Arc<str>>,
    /// The file, for columns.
    file: &'a SourceFile,
}

impl SourceCode for Source<'_> {
    fn read_span<'b>(
        &'b self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'b> + 'b>, MietteError> {
        let contents = self
            .named
            .read_span(span, context_lines_before, context_lines_after)?;
        let at = u32::try_from(contents.span().offset()).unwrap_or(u32::MAX);
        let (_, column) = self.file.line_col(at);
        Ok(Box::new(MietteSpanContents::new_named(
            self.file.name.to_string(),
            contents.data(),
            *contents.span(),
            contents.line(),
            column.saturating_sub(1) as usize,
            contents.line_count(),
        )))
    }
}

impl fmt::Debug for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.diag, f)
    }
}

impl fmt::Display for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.diag.message)
    }
}

impl std::error::Error for Report<'_> {}

impl miette::Diagnostic for Report<'_> {
    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.diag.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
            Severity::Note => miette::Severity::Advice,
        })
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.diag
            .help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display + 'a>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        Some(&self.source)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        if self.diag.labels.is_empty() {
            return None;
        }
        let primary = self.diag.primary_span();
        let labels = self.diag.labels.iter().map(move |l| {
            let (start, end) = visible(&self.file.text, l.span);
            let text = (!l.message.is_empty()).then(|| l.message.clone());
            if Some(l.span) == primary && l.primary {
                LabeledSpan::new_primary_with_span(text, (start, end - start))
            } else {
                LabeledSpan::new_with_span(text, (start, end - start))
            }
        });
        Some(Box::new(labels))
    }
}

/// A span clamped to the text and widened to one character when empty, so
/// that a caret shows: the character at the span if there is one on the
/// line, else the last non-blank character before it (an error at the end
/// of a line or file points just after the last token).
fn visible(text: &str, span: Span) -> (usize, usize) {
    let len = text.len();
    let start = (span.start as usize).min(len);
    let end = (span.end as usize).clamp(start, len);
    if end > start {
        return (start, end);
    }
    let here = text.get(start..).and_then(|s| s.chars().next());
    if let Some(c) = here.filter(|c| *c != '\n' && *c != '\r') {
        return (start, start + c.len_utf8());
    }
    let before = text.get(..start).unwrap_or("").trim_end();
    match before.chars().next_back() {
        Some(c) => (before.len() - c.len_utf8(), before.len()),
        None => (start, end),
    }
}

/// 1-based `(line, column)` of both ends of a span.
fn positions(file: &SourceFile, span: Span) -> (u32, u32, u32, u32) {
    let (line, column) = file.line_col(span.start);
    let (end_line, end_column) = file.line_col(span.end);
    (line, column, end_line, end_column)
}

/// One diagnostic as JSON.
fn json_one(d: &Diagnostic) -> Value {
    let labels: Vec<Value> = match &d.file {
        Some(file) => d
            .labels
            .iter()
            .map(|l| {
                let (line, column, end_line, end_column) = positions(file, l.span);
                json!({
                    "message": l.message,
                    "line": line,
                    "column": column,
                    "end_line": end_line,
                    "end_column": end_column,
                    "primary": l.primary,
                })
            })
            .collect(),
        None => Vec::new(),
    };
    let at = d
        .file
        .as_ref()
        .zip(d.primary_span())
        .map(|(file, span)| positions(file, span));
    json!({
        "code": d.code,
        "severity": d.severity,
        "message": d.message,
        "file": d.file.as_ref().map(|f| f.name.to_string()),
        "line": at.map(|p| p.0),
        "column": at.map(|p| p.1),
        "end_line": at.map(|p| p.2),
        "end_column": at.map(|p| p.3),
        "labels": labels,
        "help": d.help,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file() -> SourceFile {
        SourceFile::new("rules/guard.hooks", "hook a on p {\n    abrot \"x\"\n}\n")
    }

    fn sample() -> Diagnostics {
        let f = file();
        let mut diags = Diagnostics::new();
        diags.push(
            Diagnostic::error("syntax", "expected an action, found `abrot`")
                .in_file(&f)
                .with_primary(Span::new(18, 23), "unexpected `abrot`")
                .with_secondary(Span::new(0, 4), "in this rule")
                .with_help("did you mean `abort`?"),
        );
        diags.push(
            Diagnostic::warning("unused-list", "list `l` is never used")
                .in_file(&f)
                .with_primary(Span::new(0, 6), ""),
        );
        diags.push(Diagnostic::error("io", "cannot read `x.hooks`").with_help("check the path"));
        diags
    }

    #[test]
    fn human_plain_has_location_source_carets_and_help() {
        let out = human(&sample(), false);
        println!("{out}");
        assert!(out.is_ascii(), "plain output is ASCII");
        assert!(out.starts_with("error[syntax]: expected an action, found `abrot`\n"));
        assert!(out.contains("rules/guard.hooks:2:5"));
        assert!(out.contains("    abrot \"x\""));
        assert!(out.contains("^^^^^"));
        assert!(out.contains("unexpected `abrot`"));
        assert!(out.contains("in this rule"));
        assert!(out.contains("help: did you mean `abort`?"));
        assert!(out.contains("warning[unused-list]: list `l` is never used"));
        assert!(out.contains("error[io]: cannot read `x.hooks`\n  help: check the path\n"));
        assert!(out.ends_with("error: could not compile: 2 errors, 1 warning emitted\n"));
        assert!(!out.contains('\u{1b}'), "no ANSI escapes without color");
    }

    #[test]
    fn human_color_uses_ansi() {
        let out = human(&sample(), true);
        assert!(out.contains('\u{1b}'));
        assert!(out.contains("rules/guard.hooks:2:5"));
    }

    #[test]
    fn file_without_labels() {
        let mut diags = Diagnostics::new();
        diags.push(Diagnostic::warning("empty-file", "file has no rules").in_file(&file()));
        assert_eq!(
            human(&diags, false),
            "warning[empty-file]: file has no rules\n  --> rules/guard.hooks\n\nwarning: 1 warning emitted\n"
        );
    }

    #[test]
    fn summary_lines() {
        assert_eq!(human(&Diagnostics::new(), false), "");
        let mut warnings = Diagnostics::new();
        warnings.push(Diagnostic::warning("w", "one"));
        assert!(human(&warnings, false).ends_with("\nwarning: 1 warning emitted\n"));
        warnings.push(Diagnostic::warning("w", "two"));
        assert!(human(&warnings, false).ends_with("\nwarning: 2 warnings emitted\n"));
        let mut one = Diagnostics::new();
        one.push(Diagnostic::error("e", "bad"));
        assert!(human(&one, false).ends_with("\nerror: could not compile: 1 error emitted\n"));
        let mut notes = Diagnostics::new();
        notes.push(Diagnostic::note("n", "fyi"));
        assert_eq!(human(&notes, false), "note[n]: fyi\n");
    }

    #[test]
    fn empty_span_at_end_of_file_still_shows_a_caret() {
        let f = SourceFile::new("t.hooks", "hook a on p {\n  skip\n");
        let mut diags = Diagnostics::new();
        diags.push(
            Diagnostic::error("syntax", "expected `}`, found end of file")
                .in_file(&f)
                .with_primary(Span::new(21, 21), "unexpected end of file"),
        );
        let out = human(&diags, false);
        assert!(out.contains("  skip"), "{out}");
        assert!(out.contains('^'), "{out}");
    }

    #[test]
    fn non_ascii_columns_count_characters() {
        let f = SourceFile::new("t.hooks", "list é = [\"é\", ü]\n");
        let at = f.text.find('ü').unwrap();
        let mut diags = Diagnostics::new();
        diags.push(
            Diagnostic::error("syntax", "bad")
                .in_file(&f)
                .with_primary(Span::new(at, at + 'ü'.len_utf8()), "here"),
        );
        let out = human(&diags, false);
        assert!(out.contains("t.hooks:1:16"), "{out}");
        let j = json(&diags);
        assert_eq!(j["diagnostics"][0]["column"], 16);
        assert_eq!(j["diagnostics"][0]["end_column"], 17);
    }

    #[test]
    fn json_shape() {
        let j = json(&sample());
        assert_eq!(j["errors"], 2);
        assert_eq!(j["warnings"], 1);
        let d = &j["diagnostics"][0];
        assert_eq!(d["code"], "syntax");
        assert_eq!(d["severity"], "error");
        assert_eq!(d["message"], "expected an action, found `abrot`");
        assert_eq!(d["file"], "rules/guard.hooks");
        assert_eq!(
            (d["line"].clone(), d["column"].clone()),
            (2.into(), 5.into())
        );
        assert_eq!(
            (d["end_line"].clone(), d["end_column"].clone()),
            (2.into(), 10.into())
        );
        assert_eq!(d["help"], "did you mean `abort`?");
        assert_eq!(
            d["labels"],
            serde_json::json!([
                {"message": "unexpected `abrot`", "line": 2, "column": 5, "end_line": 2, "end_column": 10, "primary": true},
                {"message": "in this rule", "line": 1, "column": 1, "end_line": 1, "end_column": 5, "primary": false},
            ])
        );
        let io = &j["diagnostics"][2];
        assert_eq!(io["file"], serde_json::Value::Null);
        assert_eq!(io["line"], serde_json::Value::Null);
        assert_eq!(io["labels"], serde_json::json!([]));
        assert_eq!(j["diagnostics"][1]["help"], serde_json::Value::Null);
    }

    #[test]
    fn short_form() {
        let diags = sample();
        assert_eq!(
            short(&diags.0[0]),
            "rules/guard.hooks:2:5: error[syntax]: expected an action, found `abrot`"
        );
        assert_eq!(short(&diags.0[2]), "error[io]: cannot read `x.hooks`");
    }

    #[test]
    fn renders_parser_output() {
        let f = SourceFile::new("t.hooks", "hook a on p prio 1 {}\n");
        let (_, diags) = crate::syntax::parse(&f);
        let out = human(&diags, false);
        assert!(out.contains("t.hooks:1:13"), "{out}");
        assert!(out.contains("hook a on p prio 1 {}"), "{out}");
        assert!(out.contains("^^^^"), "{out}");
        assert!(out.contains("help: did you mean `priority`?"), "{out}");
    }
}
