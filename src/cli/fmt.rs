//! `hookc fmt`: rewrite rule files in the canonical layout.
//!
//! The layout is [`crate::syntax::pretty`]'s. Files are rewritten only when
//! they change; `--check` writes nothing and shows what would change.

use super::{print_stderr, print_stdout, stderr_color, Failure, Status};
use crate::diag::{escape, Diagnostics};
use crate::span::SourceFile;
use crate::syntax::pretty;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Arguments of `hookc fmt`.
#[derive(Debug, clap::Args)]
pub(crate) struct FmtArgs {
    /// `.hooks` files, directories searched recursively, or `-` for stdin
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,

    /// Write nothing; list the files that would change, with a diff, and
    /// exit 1 if there are any
    #[arg(long)]
    check: bool,
}

/// The most diff lines shown per file with `--check`.
const DIFF_LINES: usize = 40;

/// The widest diff line shown, in characters: a longer line is cut in the
/// middle (a 1 MB string literal is one line).
const DIFF_WIDTH: usize = 200;

/// Formats the paths; exit 1 with `--check` when a file would change, 2 when
/// a file does not parse or cannot be read or written.
pub(crate) fn run(args: FmtArgs) -> Result<Status, Failure> {
    let mut errors = false;
    let mut changed = 0usize;
    let mut seen = 0usize;
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
    if !diags.is_empty() {
        print_stderr(&render(&diags));
        errors |= diags.has_errors();
    }
    for file in files {
        let (name, text) = match &file {
            None => {
                let mut text = String::new();
                if let Err(e) = std::io::stdin().read_to_string(&mut text) {
                    print_stderr(&format!(
                        "error: cannot read `<stdin>`: {}\n",
                        super::io_reason(&e)
                    ));
                    errors = true;
                    continue;
                }
                ("<stdin>".to_owned(), text)
            }
            Some(path) => match std::fs::read_to_string(path) {
                Ok(text) => (path.display().to_string(), text),
                Err(e) => {
                    print_stderr(&format!(
                        "error: cannot read `{}`: {}\n",
                        escape::shorten(&path.display().to_string(), DIFF_WIDTH),
                        super::io_reason(&e)
                    ));
                    errors = true;
                    continue;
                }
            },
        };
        seen += 1;
        let formatted = match pretty::format_source(&SourceFile::new(name.as_str(), text.as_str()))
        {
            Ok(formatted) => formatted,
            Err(diags) => {
                print_stderr(&render(&diags));
                print_stderr(&format!(
                    "error: `{}` was not formatted: it does not parse\n",
                    escape::shorten(&name, DIFF_WIDTH)
                ));
                errors = true;
                continue;
            }
        };
        let differs = formatted != text;
        if args.check {
            if differs {
                changed += 1;
                print_stdout(&format!(
                    "would reformat `{}`\n{}",
                    escape::shorten(&name, DIFF_WIDTH),
                    diff(&name, &text, &formatted)
                ));
            }
            continue;
        }
        match &file {
            None => print_stdout(&formatted),
            Some(path) if differs => {
                // Replacing a link with the formatted text would detach it
                // from the file it shares; writing through it would change
                // a file not named. Neither: say which file to format.
                if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
                    let target = std::fs::canonicalize(path).unwrap_or_else(|_| path.clone());
                    Failure::new(format!(
                        "`{}` is a symbolic link: not rewritten",
                        path.display()
                    ))
                    .help(format!(
                        "format the file it points to: `{}`",
                        target.display()
                    ))
                    .print();
                    errors = true;
                    continue;
                }
                if let Err(e) = crate::output::write(path, formatted.as_bytes()) {
                    Failure::cannot_write(path, &e).print();
                    errors = true;
                    continue;
                }
                changed += 1;
            }
            Some(_) => {}
        }
    }
    if args.check && changed > 0 {
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

/// Diagnostics as rustc-like text, ending in a newline.
fn render(diags: &Diagnostics) -> String {
    let mut text = crate::diag::render::human(diags, stderr_color());
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text
}

/// A unified diff of `old` and `new`, two lines of context, at most
/// [`DIFF_LINES`] lines of hunks, each line escaped and cut to
/// [`DIFF_WIDTH`] characters ([`escape::shorten_lines`]: a control or bidi
/// character in the file is shown as `\u{1b}`, never written raw).
fn diff(name: &str, old: &str, new: &str) -> String {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let ops = line_ops(&a, &b);
    let name = escape::shorten(name, DIFF_WIDTH);
    let mut out = format!("--- {name}\n+++ {name} (formatted)\n");
    let mut shown = 0usize;
    // Group the edits into hunks with 2 lines of context.
    let context = 2usize;
    let mut i = 0usize;
    while i < ops.len() {
        let Some(first) = ops
            .iter()
            .skip(i)
            .position(|op| !matches!(op, Op::Same(..)))
        else {
            break;
        };
        let start = (i + first).saturating_sub(context).max(i);
        // Extend the hunk while edits are closer than 2 * context.
        let mut end = i + first;
        let mut gap = 0usize;
        let mut j = end;
        while j < ops.len() {
            match ops.get(j) {
                Some(Op::Same(..)) => {
                    gap += 1;
                    if gap > 2 * context {
                        break;
                    }
                }
                _ => {
                    gap = 0;
                    end = j;
                }
            }
            j += 1;
        }
        let stop = (end + 1 + context).min(ops.len());
        let hunk = ops.get(start..stop).unwrap_or(&[]);
        let (mut a_start, mut b_start) = (0usize, 0usize);
        if let Some(op) = hunk.first() {
            (a_start, b_start) = op.lines();
        }
        let a_len = hunk
            .iter()
            .filter(|op| !matches!(op, Op::Insert(..)))
            .count();
        let b_len = hunk
            .iter()
            .filter(|op| !matches!(op, Op::Delete(..)))
            .count();
        out.push_str(&format!(
            "@@ -{},{a_len} +{},{b_len} @@\n",
            a_start + 1,
            b_start + 1
        ));
        for op in hunk {
            if shown >= DIFF_LINES {
                out.push_str("…\n");
                return out;
            }
            let (mark, text) = match op {
                Op::Same(ai, _) => (' ', a.get(*ai).copied().unwrap_or("")),
                Op::Delete(ai, _) => ('-', a.get(*ai).copied().unwrap_or("")),
                Op::Insert(_, bi) => ('+', b.get(*bi).copied().unwrap_or("")),
            };
            out.push(mark);
            out.push_str(&escape::shorten_lines(text, DIFF_WIDTH));
            out.push('\n');
            shown += 1;
        }
        i = stop;
    }
    if shown == 0 {
        out.push_str("\\ only the line endings or the final newline differ\n");
    }
    out
}

/// One step of a line diff, with the line numbers (0-based) in the old and
/// new text where it happens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Same(usize, usize),
    Delete(usize, usize),
    Insert(usize, usize),
}

impl Op {
    fn lines(self) -> (usize, usize) {
        match self {
            Op::Same(a, b) | Op::Delete(a, b) | Op::Insert(a, b) => (a, b),
        }
    }
}

/// A shortest line diff: common prefix and suffix, then an LCS table over
/// the middle (or, when that would be too large, delete-all/insert-all).
fn line_ops(a: &[&str], b: &[&str]) -> Vec<Op> {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(a.len().min(b.len()) - prefix)
        .take_while(|(x, y)| x == y)
        .count();
    let mid_a = a.get(prefix..a.len() - suffix).unwrap_or(&[]);
    let mid_b = b.get(prefix..b.len() - suffix).unwrap_or(&[]);
    let mut ops: Vec<Op> = (0..prefix).map(|i| Op::Same(i, i)).collect();
    let (n, m) = (mid_a.len(), mid_b.len());
    if n.saturating_mul(m) > 4_000_000 {
        ops.extend((0..n).map(|i| Op::Delete(prefix + i, prefix)));
        ops.extend((0..m).map(|j| Op::Insert(prefix + n, prefix + j)));
    } else {
        // lcs[i][j]: LCS length of mid_a[i..] and mid_b[j..].
        let width = m + 1;
        let mut lcs = vec![0u32; (n + 1) * width];
        for i in (0..n).rev() {
            for j in (0..m).rev() {
                let v = if mid_a.get(i) == mid_b.get(j) {
                    lcs.get((i + 1) * width + j + 1).copied().unwrap_or(0) + 1
                } else {
                    let down = lcs.get((i + 1) * width + j).copied().unwrap_or(0);
                    let right = lcs.get(i * width + j + 1).copied().unwrap_or(0);
                    down.max(right)
                };
                if let Some(slot) = lcs.get_mut(i * width + j) {
                    *slot = v;
                }
            }
        }
        let (mut i, mut j) = (0usize, 0usize);
        while i < n || j < m {
            let (ai, bj) = (prefix + i, prefix + j);
            if i < n && j < m && mid_a.get(i) == mid_b.get(j) {
                ops.push(Op::Same(ai, bj));
                i += 1;
                j += 1;
            } else if i < n
                && (j == m
                    || lcs.get((i + 1) * width + j).copied().unwrap_or(0)
                        >= lcs.get(i * width + j + 1).copied().unwrap_or(0))
            {
                ops.push(Op::Delete(ai, bj));
                i += 1;
            } else {
                ops.push(Op::Insert(ai, bj));
                j += 1;
            }
        }
    }
    let (a_end, b_end) = (a.len() - suffix, b.len() - suffix);
    ops.extend((0..suffix).map(|k| Op::Same(a_end + k, b_end + k)));
    ops
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_shows_changed_lines_with_context() {
        let old = "a\nb\nc\nd\ne\nf\ng\n";
        let new = "a\nb\nC\nd\ne\nf\ng\nh\n";
        let out = diff("x.hooks", old, new);
        assert_eq!(
            out,
            "--- x.hooks\n+++ x.hooks (formatted)\n@@ -1,7 +1,8 @@\n a\n b\n-c\n+C\n d\n e\n f\n g\n+h\n"
        );
    }

    #[test]
    fn diff_lines_are_escaped_and_bounded() {
        let long = format!(
            "list l = [\"{}\u{1b}]0;x\u{7}\u{202e}\"]",
            "a".repeat(1 << 20)
        );
        let old = format!("{long}\nhook  x on p {{}}\n");
        let new = format!("{long}\nhook x on p {{}}\n");
        let out = diff("x\u{1b}.hooks", &old, &new);
        assert!(out.len() < 2_000, "{} bytes", out.len());
        assert!(!out.contains(['\u{1b}', '\u{7}', '\u{202e}']), "{out}");
        assert!(out.contains("\\u{1b}]0;x\\u{7}\\u{202e}"), "{out}");
        assert!(out.contains("--- x\\u{1b}.hooks"), "{out}");
        assert!(out.contains("-hook  x on p {}\n+hook x on p {}\n"), "{out}");
    }

    #[test]
    fn diff_of_line_endings_only() {
        let out = diff("x.hooks", "a\r\nb\r\n", "a\nb\n");
        assert!(
            out.ends_with("\\ only the line endings or the final newline differ\n"),
            "{out}"
        );
    }
}
