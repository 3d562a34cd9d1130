//! `hookc fmt`: rewrite rule files in the canonical layout.
//!
//! The layout is [`crate::syntax::pretty`]'s. Files are rewritten only when
//! they change; `--check` writes nothing and shows what would change, as a
//! whole unified diff per file (never cut). `--format json` prints one
//! document instead: per file whether it changes (or would) and the diff.

use super::{pretty_json, print_stderr, print_stdout, stderr_color, Failure, Format, Status};
use crate::diag::{escape, Diagnostics};
use crate::span::SourceFile;
use crate::syntax::pretty;
use serde::Serialize;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Arguments of `hookc fmt`.
#[derive(Debug, clap::Args)]
pub(crate) struct FmtArgs {
    /// `.hooks` files, directories searched recursively, or `-` for stdin
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,

    /// Write nothing; show the files that would change, each with a unified
    /// diff, and exit 1 if there are any
    #[arg(long)]
    check: bool,

    /// Output: `human` (diffs and messages) or `json` (one document: per
    /// file whether it changes and its diff, and the diagnostics)
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
}

/// The widest file name shown in a message, in characters.
const NAME_WIDTH: usize = 200;

/// Lines of context around each change in a diff (as `diff -u`).
const CONTEXT: usize = 3;

/// One file in `hookc fmt --format json`.
#[derive(Debug, Serialize)]
struct FileReport {
    /// The file as named (`<stdin>` for `-`).
    file: String,
    /// True when the file changes: rewritten, or with `--check` would be.
    changed: bool,
    /// The unified diff from the file to its formatted text, when it
    /// changes.
    diff: Option<String>,
    /// The formatted text of stdin (`-` without `--check`).
    #[serde(skip_serializing_if = "Option::is_none")]
    formatted: Option<String>,
    /// Why the file was left alone: it cannot be read, does not parse, or
    /// cannot be written.
    error: Option<String>,
}

impl FileReport {
    fn new(file: String) -> FileReport {
        FileReport {
            file,
            changed: false,
            diff: None,
            formatted: None,
            error: None,
        }
    }
}

/// Formats the paths; exit 1 with `--check` when a file would change, 2 when
/// a file does not parse or cannot be read or written.
pub(crate) fn run(args: FmtArgs) -> Result<Status, Failure> {
    let json = args.format == Format::Json;
    let mut errors = false;
    let mut changed = 0usize;
    let mut seen = 0usize;
    let mut reports: Vec<FileReport> = Vec::new();
    let stdin = Path::new("-");
    if args.paths.iter().filter(|p| p.as_path() == stdin).count() > 1 {
        return Err(Failure::new("`-` (stdin) can be given only once"));
    }
    let mut diags = Diagnostics::new();
    let mut files = Vec::new();
    for path in &args.paths {
        if path.as_path() == stdin {
            files.push(None);
        } else {
            files.extend(
                crate::load::discover(std::slice::from_ref(path), &mut diags)
                    .into_iter()
                    .map(Some),
            );
        }
    }
    errors |= diags.has_errors();
    if !json && !diags.is_empty() {
        print_stderr(&render(&diags));
    }
    for file in files {
        let (name, text) = match &file {
            None => {
                let mut text = String::new();
                if let Err(e) = std::io::stdin().read_to_string(&mut text) {
                    let mut report = FileReport::new("<stdin>".to_owned());
                    fail(
                        &mut report,
                        Failure::new(format!("cannot read `<stdin>`: {}", super::io_reason(&e))),
                    );
                    reports.push(report);
                    errors = true;
                    continue;
                }
                ("<stdin>".to_owned(), text)
            }
            Some(path) => match std::fs::read_to_string(path) {
                Ok(text) => (path.display().to_string(), text),
                Err(e) => {
                    let mut report = FileReport::new(path.display().to_string());
                    fail(&mut report, Failure::cannot_read(path, &e));
                    reports.push(report);
                    errors = true;
                    continue;
                }
            },
        };
        seen += 1;
        let mut report = FileReport::new(name.clone());
        let formatted = match pretty::format_source(&SourceFile::new(name.as_str(), text.as_str()))
        {
            Ok(formatted) => formatted,
            Err(found) => {
                if !json {
                    print_stderr(&render(&found));
                }
                diags.extend(found);
                fail(
                    &mut report,
                    Failure::new(format!(
                        "`{}` was not formatted: it does not parse",
                        escape::shorten(&name, NAME_WIDTH)
                    )),
                );
                reports.push(report);
                errors = true;
                continue;
            }
        };
        let differs = formatted != text;
        if differs {
            report.diff = Some(unified_diff(&name, &text, &formatted));
        }
        if args.check {
            if differs {
                changed += 1;
                report.changed = true;
                if !json {
                    print_stdout(&format!(
                        "would reformat `{}`\n{}",
                        escape::escape(&name),
                        escape::escape_lines(report.diff.as_deref().unwrap_or_default())
                    ));
                }
            }
            reports.push(report);
            continue;
        }
        match &file {
            None if json => {
                report.changed = differs;
                report.formatted = Some(formatted);
            }
            None => print_stdout(&formatted),
            Some(path) if differs => {
                // Replacing a link with the formatted text would detach it
                // from the file it shares; writing through it would change
                // a file not named. Neither: say which file to format.
                if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
                    let target = std::fs::canonicalize(path).unwrap_or_else(|_| path.clone());
                    fail(
                        &mut report,
                        Failure::new(format!(
                            "`{}` is a symbolic link: not rewritten",
                            path.display()
                        ))
                        .help(format!(
                            "format the file it points to: `{}`",
                            target.display()
                        )),
                    );
                    reports.push(report);
                    errors = true;
                    continue;
                }
                if let Err(e) = crate::output::write(path, formatted.as_bytes()) {
                    fail(&mut report, Failure::cannot_write(path, &e));
                    reports.push(report);
                    errors = true;
                    continue;
                }
                report.changed = true;
                changed += 1;
            }
            Some(_) => {}
        }
        reports.push(report);
    }
    if json {
        let value = serde_json::json!({
            "check": args.check,
            "files": reports,
            "changed": changed,
            "diagnostics": crate::diag::render::json(&diags),
        });
        print_stdout(&pretty_json(&value)?);
    } else if args.check && changed > 0 {
        print_stderr(&format!(
            "{} of {} would be reformatted; run `hookc fmt` to fix {}\n",
            super::plural(changed, "file", "files"),
            super::plural(seen, "file", "files"),
            if changed == 1 { "it" } else { "them" }
        ));
    }
    Ok(if errors {
        Status::Reported
    } else if args.check && changed > 0 {
        Status::Findings
    } else {
        Status::Ok
    })
}

/// A problem with one file: printed on stderr, and kept for the file's
/// JSON entry.
fn fail(report: &mut FileReport, failure: Failure) {
    report.error = Some(failure.message.clone());
    failure.print();
}

/// Diagnostics as rustc-like text, ending in a newline.
fn render(diags: &Diagnostics) -> String {
    let mut text = crate::diag::render::human(diags, stderr_color());
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text
}

/// The whole unified diff from `old` to `new` (`--- NAME`, `+++ NAME
/// (formatted)`, hunks with [`CONTEXT`] lines of context), every line in
/// full: lines differ by their endings too (a CRLF line and its LF form), and
/// a last line without a newline is marked `\ No newline at end of file`.
/// Raw text: the human output escapes it ([`escape::escape_lines`]), JSON
/// escapes it itself. The name is escaped, so that it is one line.
fn unified_diff(name: &str, old: &str, new: &str) -> String {
    let name = escape::escape(name);
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(CONTEXT)
        .header(&name, &format!("{name} (formatted)"))
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_shows_changed_lines_with_context() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\ni\n";
        let new = "a\nb\nC\nd\ne\nf\ng\nh\ni\nj\n";
        let out = unified_diff("x.hooks", old, new);
        assert_eq!(
            out,
            "--- x.hooks\n+++ x.hooks (formatted)\n@@ -1,9 +1,10 @@\n a\n b\n-c\n+C\n d\n e\n f\n g\n h\n i\n+j\n"
        );
        // Changes further apart than twice the context are two hunks.
        let old = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";
        let new = "one\n2\n3\n4\n5\n6\n7\n8\n9\nten\n";
        let out = unified_diff("x.hooks", old, new);
        assert_eq!(out.matches("\n@@ ").count(), 2, "{out}");
    }

    #[test]
    fn diff_lines_are_whole_and_the_name_one_line() {
        let long = format!("list l = [\"{}\"]", "a".repeat(1 << 16));
        let old = format!("{long}\nhook  x on p {{}}\n");
        let new = format!("{long}x\nhook x on p {{}}\n");
        let out = unified_diff("x\u{1b}\n.hooks", &old, &new);
        assert!(
            out.contains(&format!("-{long}\n")),
            "the long line is whole"
        );
        assert!(out.contains(&format!("+{long}x\n")));
        assert!(out.contains("\n-hook  x on p {}\n"), "{out}");
        assert!(out.ends_with("\n+hook x on p {}\n"), "{out}");
        assert!(out.starts_with("--- x\\u{1b}\\u{a}.hooks\n"), "{out}");
    }

    #[test]
    fn diff_of_line_endings_and_final_newlines() {
        let out = unified_diff("x.hooks", "a\r\nb\r\n", "a\nb\n");
        assert!(out.contains("-a\r\n-b\r\n+a\n+b\n"), "{out:?}");
        let out = unified_diff("x.hooks", "a", "a\n");
        assert!(
            out.ends_with("-a\n\\ No newline at end of file\n+a\n"),
            "{out:?}"
        );
    }
}
