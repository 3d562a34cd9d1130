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
//!
//! # Untrusted text
//!
//! Source lines, messages, labels, help and file names hold text from rule
//! files, and [`human`] escapes it ([`super::escape`]): a control or bidi
//! character is shown as `\u{1b}`, never written raw, and the carets are
//! drawn under the escaped text. A source line wider than 120 characters is
//! cut to windows of 40 characters around each label's start and end, with
//! `...` for what is left out, so a warning on a line holding a 1 MB string
//! prints a few hundred bytes; a label over more than 12 lines is shown on
//! its first line, and labels more than 8 lines apart are drawn in separate
//! snippets. Messages, labels and help are cut at 400 characters.

use std::fmt;

use miette::{
    GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError, MietteSpanContents,
    SourceCode, SourceSpan, SpanContents,
};
use serde_json::{json, Value};

use super::{escape, Diagnostic, Diagnostics, Severity};
use crate::span::{SourceFile, Span};

/// All diagnostics as rustc-like text, followed by a summary line (nothing at
/// all when there are no diagnostics). `color` selects ANSI colors and
/// Unicode box drawing; without it the output is plain ASCII.
pub fn human(diags: &Diagnostics, color: bool) -> String {
    // Laying a diagnostic out is most of the cost (12,000 warnings take
    // about 120 ms on one core), and each is laid out on its own: a long
    // list is split over threads, its parts joined in order.
    let threads = crate::parallel::threads(diags.0.len(), PARALLEL_FROM, 8);
    let parts: Vec<&[Diagnostic]> = diags
        .0
        .chunks(diags.0.len().div_ceil(threads).max(1))
        .collect();
    let mut out = crate::parallel::map_in_order(&parts, |part| {
        let shown: Vec<String> = part.iter().map(|d| render_one(d, color)).collect();
        shown.join("\n")
    })
    .join("\n");
    if let Some(summary) = summary(diags) {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&summary);
        out.push('\n');
    }
    out
}

/// Below this many diagnostics, [`human`] renders on the calling thread.
const PARALLEL_FROM: usize = 256;

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

/// Source lines wider than this (in characters, escapes counted) are cut
/// to windows around the labels.
const MAX_LINE_WIDTH: usize = 120;

/// Characters kept on each side of a label's start and end in a cut line.
const WINDOW: usize = 40;

/// A label over more lines than this is shown on its first line only.
const MAX_LABEL_LINES: u32 = 12;

/// Labels whose lines are at most this many lines apart share a snippet (the
/// lines between them shown); farther apart, each gets its own.
const MAX_GAP: u32 = 8;

/// The longest message, label or help shown, in characters.
const MAX_TEXT: usize = 400;

/// What stands for text left out of a source line (ASCII, so plain output
/// stays ASCII).
const CUT: &str = "...";

/// Untrusted text for a label or a name: escaped (newlines too) and
/// bounded.
fn text(s: &str) -> String {
    escape::shorten(s, MAX_TEXT).into_owned()
}

/// A message or help: escaped and bounded, its lines kept (the regex
/// parser's messages draw a caret on a line of their own).
fn message(s: &str) -> String {
    escape::shorten_lines(s, MAX_TEXT).into_owned()
}

/// One diagnostic as text, ending with a newline.
fn render_one(d: &Diagnostic, color: bool) -> String {
    let file = match &d.file {
        Some(file) if !d.labels.is_empty() => file,
        // Nothing to show from a file: the heading, where, and the help.
        _ => {
            let mut s = format!("{}: {}\n", heading(d), message(&d.message));
            if let Some(file) = &d.file {
                s.push_str(&format!("  --> {}\n", text(&file.name)));
            }
            if let Some(help) = &d.help {
                s.push_str(&format!("  help: {}\n", message(help)));
            }
            return s;
        }
    };
    let report = Report {
        diag: d,
        message: message(&d.message),
        help: d.help.as_deref().map(message),
        view: View::new(file, d),
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

/// A [`Diagnostic`] seen through miette's eyes: its text escaped, and its
/// source replaced by a [`View`] of the lines it points at.
struct Report<'a> {
    /// The diagnostic.
    diag: &'a Diagnostic,
    /// Its message, escaped and bounded.
    message: String,
    /// Its help, escaped and bounded.
    help: Option<String>,
    /// The lines its labels are on, as shown.
    view: View,
}

/// The lines of a file a diagnostic's labels are on (with a line of context
/// either side), as they are shown: escaped ([`escape`]), and cut to
/// windows around the labels when long, so that a diagnostic on a 1 MB line
/// prints a few hundred bytes. The labels are moved to where their text is
/// in the shown lines, so carets sit under the escaped characters.
///
/// Nearby lines form one segment; each segment has its own range of offsets
/// (not the file's), and miette reads it through [`SourceCode`]. Line
/// numbers and the `file:line:col` of the primary label are the file's.
struct View {
    /// The file's name, escaped.
    name: String,
    segments: Vec<Segment>,
    labels: Vec<ShownLabel>,
}

/// Consecutive shown lines.
struct Segment {
    /// 0-based line number of the first line in the file.
    first_line: usize,
    /// Offset of `text` in the view's offsets.
    base: usize,
    /// The shown lines, each ending in `\n`.
    text: String,
    /// Where each line starts in `text`.
    starts: Vec<usize>,
}

/// A label at its place in the view.
struct ShownLabel {
    start: usize,
    end: usize,
    /// 0-based line and character column of its start in the file.
    line: usize,
    column: usize,
    message: Option<String>,
    primary: bool,
}

impl View {
    fn new(file: &SourceFile, d: &Diagnostic) -> View {
        let primary = d.primary_span();
        // Each label as a byte range of the file, long ones cut to their
        // first line, with its lines.
        let mut ranges: Vec<(usize, usize, u32, u32)> = Vec::new();
        for label in &d.labels {
            let (start, mut end) = visible(&file.text, label.span);
            let (first, _) = file.line_col(to_u32(start));
            let (mut last, _) = file.line_col(to_u32(end.saturating_sub(1).max(start)));
            if last.saturating_sub(first) >= MAX_LABEL_LINES {
                // To the end of the first line, and at least one character.
                let line_end = file.line_range(first).map_or(end, |r| r.end);
                let one = file.text.get(start..).and_then(|s| s.chars().next());
                let at_least = start + one.map_or(0, char::len_utf8);
                end = line_end.max(at_least).min(end);
                last = first;
            }
            ranges.push((start, end, first, last));
        }
        // The lines to show: each label's, one more either side, close
        // groups joined.
        let line_count = file.line_count();
        let mut groups: Vec<(u32, u32)> = ranges
            .iter()
            .map(|&(_, _, first, last)| {
                (first.saturating_sub(1).max(1), (last + 1).min(line_count))
            })
            .collect();
        groups.sort_unstable();
        let mut merged: Vec<(u32, u32)> = Vec::new();
        for (from, to) in groups {
            match merged.last_mut() {
                Some(last) if from <= last.1.saturating_add(MAX_GAP + 1) => last.1 = last.1.max(to),
                _ => merged.push((from, to)),
            }
        }
        // Where each label boundary is shown: (file offset, view offset).
        let mut points: Vec<usize> = ranges.iter().flat_map(|&(s, e, _, _)| [s, e]).collect();
        points.sort_unstable();
        points.dedup();
        let mut shown_at: Vec<(usize, usize)> = Vec::new();
        let mut segments = Vec::new();
        let mut base = 0usize;
        for (from, to) in merged {
            let mut text = String::new();
            let mut starts = Vec::new();
            for line in from..=to {
                let Some(range) = file.line_range(line) else {
                    break;
                };
                starts.push(text.len());
                // A boundary in the line ending shows at the end of the line.
                let next = file
                    .line_range(line + 1)
                    .map_or(file.text.len() + 1, |r| r.start);
                let here: Vec<usize> = points
                    .iter()
                    .copied()
                    .filter(|&p| p >= range.start && p < next.max(range.end + 1))
                    .collect();
                let line_text = file.text.get(range.clone()).unwrap_or("");
                let local: Vec<usize> = here
                    .iter()
                    .map(|&p| p.min(range.end) - range.start)
                    .collect();
                let at = text.len();
                let mapped = show_line(line_text, &local, &mut text);
                for (&p, shown) in here.iter().zip(mapped) {
                    shown_at.push((p, base + at + shown));
                }
                // Every line ends in a newline, as in the file: miette shows
                // an empty last line only after one.
                text.push('\n');
            }
            let len = text.len();
            segments.push(Segment {
                first_line: from.saturating_sub(1) as usize,
                base,
                text,
                starts,
            });
            // A gap between segments, so that no span reaches across.
            base += len + 1;
        }
        let find = |p: usize| shown_at.iter().find(|&&(q, _)| q == p).map(|&(_, v)| v);
        let labels = d
            .labels
            .iter()
            .zip(&ranges)
            .map(|(label, &(s, e, _, _))| {
                let start = find(s).unwrap_or(0);
                let end = find(e).unwrap_or(start).max(start);
                let (line, column) = file.line_col(to_u32(s));
                ShownLabel {
                    start,
                    end,
                    line: line.saturating_sub(1) as usize,
                    column: column.saturating_sub(1) as usize,
                    message: (!label.message.is_empty()).then(|| text(&label.message)),
                    primary: label.primary && Some(label.span) == primary,
                }
            })
            .collect();
        View {
            name: text(&file.name),
            segments,
            labels,
        }
    }
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Appends `line` to `out` as shown: escaped, and when wider than
/// [`MAX_LINE_WIDTH`], only windows of [`WINDOW`] characters around the
/// `points` (byte offsets in `line`), with [`CUT`] for what is left out.
/// Returns where each point is in what was appended.
fn show_line(line: &str, points: &[usize], out: &mut String) -> Vec<usize> {
    let start = out.len();
    let mut shown = vec![0usize; points.len()];
    let width = line
        .chars()
        .take(MAX_LINE_WIDTH + 1)
        .map(|c| {
            if escape::is_unsafe(c) {
                escape::escape_len(c)
            } else {
                1
            }
        })
        .sum::<usize>();
    let keep: Vec<(usize, usize)> = if width <= MAX_LINE_WIDTH {
        vec![(0, line.len())]
    } else if points.is_empty() {
        vec![(0, forward(line, 0, 2 * WINDOW))]
    } else {
        let mut windows: Vec<(usize, usize)> = points
            .iter()
            .map(|&p| (back(line, p, WINDOW), forward(line, p, WINDOW)))
            .collect();
        windows.sort_unstable();
        let mut merged: Vec<(usize, usize)> = Vec::new();
        for (a, b) in windows {
            match merged.last_mut() {
                // Joined when the gap is no wider than the marker would be.
                Some(last) if a <= last.1 + 2 * CUT.len() => last.1 = last.1.max(b),
                _ => merged.push((a, b)),
            }
        }
        merged
    };
    let mut end_of_last = 0usize;
    for (a, b) in keep {
        if a > end_of_last || (a > 0 && end_of_last == 0) {
            out.push_str(CUT);
        }
        let mut at = a;
        for (i, c) in line.get(a..b).unwrap_or("").char_indices() {
            let offset = a + i;
            for (slot, &p) in shown.iter_mut().zip(points) {
                if p == offset {
                    *slot = out.len() - start;
                }
            }
            if escape::is_unsafe(c) && c != '\t' {
                escape::push_escape(out, c);
            } else {
                out.push(c);
            }
            at = offset + c.len_utf8();
        }
        for (slot, &p) in shown.iter_mut().zip(points) {
            if p == at {
                *slot = out.len() - start;
            }
        }
        end_of_last = b;
    }
    if end_of_last < line.len() {
        out.push_str(CUT);
    }
    shown
}

/// The offset `width` characters (escapes counted) before `at` in `line`.
fn back(line: &str, at: usize, width: usize) -> usize {
    let mut used = 0usize;
    let mut start = at.min(line.len());
    for (i, c) in line.get(..start).unwrap_or("").char_indices().rev() {
        used += if escape::is_unsafe(c) {
            escape::escape_len(c)
        } else {
            1
        };
        if used > width {
            break;
        }
        start = i;
    }
    start
}

/// The offset `width` characters (escapes counted) after `at` in `line`.
fn forward(line: &str, at: usize, width: usize) -> usize {
    let mut used = 0usize;
    let mut end = at.min(line.len());
    for (i, c) in line.get(end..).unwrap_or("").char_indices() {
        used += if escape::is_unsafe(c) {
            escape::escape_len(c)
        } else {
            1
        };
        if used > width {
            break;
        }
        end = at + i + c.len_utf8();
    }
    end
}

impl SourceCode for View {
    fn read_span<'b>(
        &'b self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'b> + 'b>, MietteError> {
        let offset = span.offset();
        let segment = self
            .segments
            .iter()
            .find(|s| s.base <= offset && offset <= s.base + s.text.len())
            .ok_or(MietteError::OutOfBounds)?;
        let local = offset - segment.base;
        let local_end = (local + span.len()).min(segment.text.len());
        let line_of = |at: usize| {
            segment
                .starts
                .partition_point(|&s| s <= at)
                .saturating_sub(1)
        };
        let first = line_of(local);
        let last = line_of(local_end.saturating_sub(1).max(local));
        let lines = segment.starts.len().max(1);
        let from = first.saturating_sub(context_lines_before);
        let to = (last + context_lines_after).min(lines - 1);
        // The end of line `n`, its newline included.
        let line_end = |n: usize| {
            segment
                .starts
                .get(n + 1)
                .copied()
                .unwrap_or(segment.text.len())
        };
        let (data_start, line, column) = if context_lines_before == 0 {
            // miette asks this for the `file:line:col` of the primary label:
            // the file's own position, in characters.
            let label = self.labels.iter().find(|l| l.start == offset);
            let fallback = || {
                let line_start = segment.starts.get(first).copied().unwrap_or(0);
                (
                    segment.first_line + first,
                    segment
                        .text
                        .get(line_start..local)
                        .map_or(0, |s| s.chars().count()),
                )
            };
            let (line, column) = label.map_or_else(fallback, |l| (l.line, l.column));
            (local, line, column)
        } else {
            (
                segment.starts.get(from).copied().unwrap_or(0),
                segment.first_line + from,
                0,
            )
        };
        let data_end = line_end(to).max(data_start);
        let data = segment
            .text
            .as_bytes()
            .get(data_start..data_end)
            .ok_or(MietteError::OutOfBounds)?;
        // Counted to the end of the segment: miette draws two labels in one
        // snippet when the first one's lines reach the second's, which is
        // exactly when they are in the same segment.
        let line_count = (segment.first_line + lines).saturating_sub(line);
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            data,
            SourceSpan::new(segment.base.saturating_add(data_start).into(), data.len()),
            line,
            column,
            line_count,
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
        f.write_str(&self.message)
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
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display + 'a>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        Some(&self.view)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        if self.view.labels.is_empty() {
            return None;
        }
        let labels = self.view.labels.iter().map(|l| {
            let span = (l.start, l.end - l.start);
            if l.primary {
                LabeledSpan::new_primary_with_span(l.message.clone(), span)
            } else {
                LabeledSpan::new_with_span(l.message.clone(), span)
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

    /// More diagnostics than [`PARALLEL_FROM`], each told apart by its
    /// number: enough to be split over threads.
    fn long_list() -> Diagnostics {
        let f = file();
        Diagnostics(
            (0..PARALLEL_FROM * 3 + 7)
                .map(|i| {
                    Diagnostic::warning("unused-list", format!("list `l{i}` is never used"))
                        .in_file(&f)
                        .with_primary(Span::new(0, 6), format!("number {i}"))
                })
                .collect(),
        )
    }

    #[test]
    fn a_long_list_renders_as_one_thread_would_in_order() {
        // Above `PARALLEL_FROM`, the list is split over threads: the parts
        // must come back in order, each diagnostic once, a blank line
        // between two.
        let diags = long_list();
        let one_by_one: Vec<String> = diags.iter().map(|d| render_one(d, false)).collect();
        let expected = format!(
            "{}\n{}\n",
            one_by_one.join("\n"),
            summary(&diags).unwrap_or_default()
        );
        assert_eq!(human(&diags, false), expected);
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
    fn long_lines_show_windows_around_each_label() {
        let line = format!("when {} == {}", "a".repeat(5_000), "b".repeat(5_000));
        let f = SourceFile::new("t.hooks", format!("{line}\nnext\n"));
        let a = line.find('a').unwrap();
        let b = line.find('b').unwrap();
        let mut diags = Diagnostics::new();
        diags.push(
            Diagnostic::error("x", "two labels far apart")
                .in_file(&f)
                .with_primary(Span::new(a, a + 3), "first")
                .with_secondary(Span::new(b + 4_000, b + 4_002), "second"),
        );
        let out = human(&diags, false);
        assert!(out.len() < 1_500, "{out}");
        let lines: Vec<&str> = out.lines().collect();
        let source = lines.iter().find(|l| l.starts_with(" 1 |")).unwrap();
        let carets = lines.iter().find(|l| l.contains('^')).unwrap();
        assert!(source.starts_with(" 1 | when aaa"), "{source}");
        assert_eq!(source.matches("...").count(), 2, "{source}");
        // The first label is under `when `'s first three `a`s, the second
        // under two `b`s between two cuts.
        assert_eq!(carets.find('^'), source.find('a'), "{source}\n{carets}");
        let second = carets.rfind("^^").unwrap();
        assert_eq!(
            source.get(second..second + 2),
            Some("bb"),
            "{source}\n{carets}"
        );
        assert!(source[..second].contains("...") && source[second..].contains("..."));
    }

    #[test]
    fn labels_over_many_lines_and_far_apart_stay_short() {
        let text: String = (1..=2_000).map(|i| format!("line {i}\n")).collect();
        let f = SourceFile::new("t.hooks", text.as_str());
        let at = |n: usize| text.find(&format!("line {n}\n")).unwrap();
        let mut diags = Diagnostics::new();
        diags.push(
            Diagnostic::error("x", "a whole block")
                .in_file(&f)
                .with_primary(Span::new(at(10), at(1_500)), "this block")
                .with_secondary(Span::new(at(1_900), at(1_900) + 4), "and this"),
        );
        let out = human(&diags, false);
        assert!(out.lines().count() < 20, "{out}");
        assert!(out.contains(" 10 | line 10"), "{out}");
        assert!(out.contains(" 11 | line 11\n"), "{out}");
        assert!(!out.contains("| line 12\n"), "{out}");
        assert!(out.contains("1900 | line 1900"), "{out}");
        assert!(!out.contains("| line 1000"), "{out}");
        assert_eq!(out.matches(",-[t.hooks:").count(), 2, "{out}");
    }

    #[test]
    fn controls_are_escaped_everywhere() {
        let f = SourceFile::new("t\u{1b}.hooks", "x = \"\u{1b}[2J\u{7}\u{202e}\"\n");
        let mut diags = Diagnostics::new();
        diags.push(
            Diagnostic::error("x", "bad \u{1b}[31m")
                .in_file(&f)
                .with_primary(Span::new(5, 14), "label \u{202e}")
                .with_help("help \u{7}"),
        );
        diags.push(Diagnostic::warning("y", "no file \u{9b}").with_help("\u{2066}"));
        let out = human(&diags, false);
        assert!(
            !out.contains(['\u{1b}', '\u{7}', '\u{202e}', '\u{9b}', '\u{2066}']),
            "{out}"
        );
        for shown in [
            "t\\u{1b}.hooks:1:6",
            "bad \\u{1b}[31m",
            "x = \"\\u{1b}[2J\\u{7}\\u{202e}\"",
            "label \\u{202e}",
            "help \\u{7}",
            "no file \\u{9b}",
            "help: \\u{2066}",
        ] {
            assert!(out.contains(shown), "{shown} in\n{out}");
        }
        let source = out.lines().find(|l| l.starts_with(" 1 |")).unwrap();
        let carets = out.lines().find(|l| l.contains('^')).unwrap();
        assert_eq!(
            carets.find('^'),
            source.find("\\u{1b}"),
            "{source}\n{carets}"
        );
        assert_eq!(carets.rfind('^'), source.rfind('"'), "{source}\n{carets}");
        assert_eq!(
            short(&diags.0[0]),
            "t\\u{1b}.hooks:1:6: error[x]: bad \\u{1b}[31m"
        );
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
