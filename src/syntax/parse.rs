//! Reading a file item by item, and recovering after a syntax error.
//!
//! [`parse_file`] reads a file one top-level item at a time. Each item is
//! parsed by pest (rule `next_item`) from where the previous one ended; when
//! pest fails, the error becomes a `syntax` diagnostic
//! ([`errors`](super::errors)) and parsing resumes at the next line that
//! starts with a top-level keyword. Items that parse are built into
//! [`ast`](super::ast) nodes with absolute byte spans
//! ([`build`](super::build)). Before pest sees an item, a prescan refuses
//! nesting past [`NEST_LIMIT`](super::vocab::NEST_LIMIT) and finds unterminated strings, so pest's
//! recursion stays bounded (pest is built without a stack probe of its
//! own: this bound is the one there is).

use crate::syntax::build::*;
use crate::syntax::errors::*;
use crate::syntax::vocab::*;
use std::num::NonZeroUsize;

use pest::Parser as _;

use crate::diag::{Diagnostic, Diagnostics};
use crate::span::{SourceFile, Span};
use crate::syntax::ast::{File, Item};
use crate::syntax::grammar::{HooksParser, Rule};

/// Files at least this long are parsed on more than one thread: below it,
/// starting a thread costs more than it saves.
const PARALLEL_FROM: usize = 256 * 1024;

/// The most threads one file is parsed on.
const MAX_PARSE_THREADS: usize = 8;

/// Parses a whole file, item by item, recovering after syntax errors.
///
/// A large file is cut into parts at lines that start an item, and the
/// parts are parsed on threads: every item is parsed from where it starts
/// up to the next such line at most, so a part parses exactly as it would
/// inside the whole file, and the parts' items and diagnostics, put back
/// in order, are the whole file's.
pub(crate) fn parse_file(file: &SourceFile) -> (File, Diagnostics) {
    let parts = crate::parallel::threads(file.text.len(), PARALLEL_FROM, MAX_PARSE_THREADS);
    parse_in_parts(file, parts)
}

/// [`parse_file`] on `parts` threads (at most; fewer when the file has
/// fewer items).
pub(super) fn parse_in_parts(file: &SourceFile, parts: usize) -> (File, Diagnostics) {
    pest::set_call_limit(NonZeroUsize::new(CALL_LIMIT));
    let cuts = cuts(&file.text, parts);
    let ranges: Vec<(usize, usize)> = cuts
        .iter()
        .copied()
        .zip(cuts.iter().copied().skip(1))
        .collect();
    let parsed = crate::parallel::map_in_order(&ranges, |&(from, to)| parse_part(file, from, to));
    let mut items = Vec::new();
    let mut diags = Diagnostics::new();
    for part in parsed {
        items.extend(part.items);
        diags.extend(part.diags);
        if part.stopped {
            break;
        }
    }
    (File { items }, diags)
}

/// Where the parts of `text` start, and its end: `0`, then for each later
/// part the first line after its share of the text that starts an item
/// (see [`parse_file`]; the parse of an item never reads past such a
/// line), distinct and ascending.
pub(super) fn cuts(text: &str, parts: usize) -> Vec<usize> {
    let mut cuts = vec![0];
    let first = skip_trivia(text, 0);
    let share = text.len() / parts.max(1);
    for k in 1..parts {
        let at = next_item_line(text, (k * share).max(first));
        if at < text.len() && cuts.last().is_some_and(|&last| at > last) {
            cuts.push(at);
        }
    }
    cuts.push(text.len());
    cuts
}

/// What one part of a file parsed to; `stopped` when parsing ended inside
/// it (the parts after it are not the file's).
struct Part {
    items: Vec<Item>,
    diags: Diagnostics,
    stopped: bool,
}

/// Parses the items that start in `from..to` (`from` is the text's start or
/// a line that starts an item; `to` is the end or another such line).
fn parse_part(file: &SourceFile, from: usize, to: usize) -> Part {
    let text: &str = &file.text;
    let mut items = Vec::new();
    let mut diags = Diagnostics::new();
    let mut stopped = false;
    let mut pos = from;
    loop {
        let start = skip_trivia(text, pos);
        if start >= to {
            break;
        }
        let resume = next_item_line(text, start);
        if let Some(at) = prescan_nesting(text, start, resume) {
            diags.push(nesting_error(file, Span::new(at, at + 1)));
            pos = resume;
            continue;
        }
        // The item cannot reach past the next line that starts an item;
        // bounding the input also keeps pest's error construction (which
        // scans its input) linear overall.
        let rest = text.get(start..resume).unwrap_or("");
        match HooksParser::parse(Rule::next_item, rest) {
            Ok(pairs) => {
                let item = pairs
                    .flat_map(|p| p.into_inner())
                    .find(|p| p.as_rule() == Rule::item);
                let Some(item) = item else {
                    stopped = true;
                    break;
                };
                let end = start + item.as_span().end();
                let mut lower = AstBuilder {
                    file,
                    base: start,
                    diags: &mut diags,
                };
                if let Ok(item) = lower.item(item) {
                    items.push(item);
                }
                pos = end.max(start + 1);
                if !at_item_or_end(text, pos) {
                    // Junk after a complete item: the item may have ended
                    // early because a part of it failed (`a contains any 5`).
                    // Parsing it again, requiring an item or the end after
                    // it, finds the furthest error.
                    let err = match HooksParser::parse(Rule::next_item_strict, rest) {
                        Err(err) => syntax_error(file, start, &err),
                        Ok(_) => junk_error(file, skip_trivia(text, pos)),
                    };
                    diags.push(err);
                    pos = next_item_line(text, pos);
                }
            }
            Err(err) => {
                let diag = syntax_error(file, start, &err);
                // A string left open swallows the rest of its line, so the
                // error pest reports later is only a consequence of it.
                let at = diag.primary_span().map_or(start, |s| s.start as usize);
                match unterminated_string(text, start, at) {
                    Some(span) => {
                        diags.push(unterminated_string_error(file, span));
                    }
                    None => {
                        diags.push(diag);
                        if rest.starts_with("hook") {
                            body_errors_after(file, at, resume, &mut diags);
                        }
                    }
                }
                pos = resume;
            }
        }
    }
    Part {
        items,
        diags,
        stopped,
    }
}

/// The syntax errors of a rule's body after its first one (at `error`, the
/// rule ending before `end`): each later line that starts a condition, a
/// `let` or an action is parsed on its own, up to the next such line (or
/// the rule's closing `}`), so that one slip does not hide the next.
fn body_errors_after(file: &SourceFile, error: usize, end: usize, diags: &mut Diagnostics) {
    let text: &str = &file.text;
    let body_end = text
        .get(..end)
        .and_then(|item| item.rfind('}'))
        .filter(|&close| close > error)
        .unwrap_or(end);
    let starts = body_line_starts(text, error, body_end);
    for (i, &from) in starts.iter().enumerate() {
        let to = starts.get(i + 1).copied().unwrap_or(body_end);
        let statement = text.get(from..to).unwrap_or("");
        if let Err(err) = HooksParser::parse(Rule::body_statement, statement) {
            // The statement ends where the next line of the body starts.
            let mut diag = syntax_error(file, from, &err);
            diag.message = diag.message.replace("end of file", "the end of the line");
            for label in &mut diag.labels {
                label.message = label.message.replace("end of file", "the end of the line");
            }
            diags.push(diag);
        }
    }
}

/// Where the lines after the one holding `pos` and before `end` that start
/// (after blanks) with a body keyword begin their keyword.
fn body_line_starts(text: &str, pos: usize, end: usize) -> Vec<usize> {
    let mut starts = Vec::new();
    let mut at = pos;
    while let Some(nl) = text.get(at..end).and_then(|s| s.find('\n')) {
        at += nl + 1;
        let line = text.get(at..end).unwrap_or("");
        let indent = line.len() - line.trim_start_matches([' ', '\t']).len();
        let trimmed = line.get(indent..).unwrap_or("");
        let starts_body = BODY_KEYWORDS.iter().any(|kw| {
            trimmed.strip_prefix(kw).is_some_and(|after| {
                after.is_empty() || after.starts_with([' ', '\t', '\n', '\r', '"'])
            })
        });
        if starts_body {
            starts.push(at + indent);
        }
    }
    starts
}

/// True when, after blanks and comments, `pos` is at the end of the text or
/// at a top-level keyword.
pub(super) fn at_item_or_end(text: &str, pos: usize) -> bool {
    let rest = text.get(skip_trivia(text, pos)..).unwrap_or("");
    rest.is_empty()
        || ITEM_KEYWORDS.iter().any(|kw| {
            rest.strip_prefix(kw).is_some_and(|after| {
                !after.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
                    && (*kw != "test" || test_name_follows(after))
            })
        })
}

/// True when a string follows (after blanks and comments): `test` starts
/// an item only when its name follows (`test` is not reserved; it may name a
/// macro).
pub(super) fn test_name_follows(after: &str) -> bool {
    after
        .get(skip_trivia(after, 0)..)
        .is_some_and(|rest| rest.starts_with('"'))
}

/// The diagnostic for text after an item that starts no item.
pub(super) fn junk_error(file: &SourceFile, pos: usize) -> Diagnostic {
    let (found, _, span) = found_at(&file.text, pos);
    Diagnostic::error("syntax", format!("expected {}, found {found}", ITEM_PHRASE))
        .in_file(file)
        .with_primary(span, format!("unexpected {found}"))
}

/// Skips blanks and comments from `pos`.
pub(super) fn skip_trivia(text: &str, mut pos: usize) -> usize {
    let bytes = text.as_bytes();
    while let Some(&b) = bytes.get(pos) {
        match b {
            b' ' | b'\t' | b'\n' | b'\r' => pos += 1,
            b'#' => {
                while let Some(&c) = bytes.get(pos) {
                    if c == b'\n' || c == b'\r' {
                        break;
                    }
                    pos += 1;
                }
            }
            _ => break,
        }
    }
    pos
}

/// The start of the first line after the one holding `pos` that begins
/// (after blanks) with a top-level keyword, or the end of the text.
pub(super) fn next_item_line(text: &str, pos: usize) -> usize {
    let mut at = pos;
    while let Some(nl) = text.get(at..).and_then(|s| s.find('\n')) {
        at += nl + 1;
        let line = text.get(at..).unwrap_or("");
        let trimmed = line.trim_start_matches([' ', '\t']);
        let starts_item = ITEM_KEYWORDS.iter().any(|kw| {
            trimmed.strip_prefix(kw).is_some_and(|after| {
                (after.is_empty() || after.starts_with([' ', '\t', '\n', '\r', '"']))
                    && (*kw != "test" || test_name_follows(after))
            })
        });
        if starts_item {
            return at;
        }
    }
    text.len()
}

/// A cheap lexical scan of `start..end` for bracket nesting deep enough to
/// exhaust the parser; returns where the nesting limit was first passed.
///
/// Strings and comments are skipped; a backslash escapes the next byte.
/// Only input nested past [`PRESCAN_LIMIT`] is refused, which the lowering
/// would refuse anyway (barring regexes full of unbalanced brackets).
pub(super) fn prescan_nesting(text: &str, start: usize, end: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut first_over = None;
    let mut i = start;
    let mut prev = b'\n';
    while i < end {
        let Some(&b) = bytes.get(i) else { break };
        match b {
            b'"' => {
                i += 1;
                while let Some(&c) = bytes.get(i) {
                    if c == b'"' || c == b'\n' {
                        break;
                    }
                    i += if c == b'\\' { 2 } else { 1 };
                }
            }
            b'#' if prev.is_ascii_whitespace() => {
                while bytes.get(i).is_some_and(|&c| c != b'\n') {
                    i += 1;
                }
            }
            b'\\' => i += 1,
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > NEST_LIMIT && first_over.is_none() {
                    first_over = Some(i);
                }
                if depth > PRESCAN_LIMIT {
                    return first_over;
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        prev = bytes.get(i).copied().unwrap_or(b'\n');
        i += 1;
    }
    None
}

/// The first string in `start..=end` left open at the end of its line,
/// found by a lexical scan (comments skipped).
pub(super) fn unterminated_string(text: &str, start: usize, end: usize) -> Option<Span> {
    let bytes = text.as_bytes();
    let mut i = start;
    let mut prev = b'\n';
    while i <= end {
        let Some(&b) = bytes.get(i) else { break };
        match b {
            b'"' => {
                let open = i;
                i += 1;
                loop {
                    match bytes.get(i) {
                        Some(b'"') => break,
                        None | Some(b'\n' | b'\r') => return Some(Span::new(open, i)),
                        Some(b'\\') if !matches!(bytes.get(i + 1), None | Some(b'\n' | b'\r')) => {
                            i += 2;
                        }
                        Some(_) => i += 1,
                    }
                }
            }
            b'#' if prev.is_ascii_whitespace() => {
                while bytes.get(i).is_some_and(|&c| c != b'\n') {
                    i += 1;
                }
            }
            _ => {}
        }
        prev = bytes.get(i).copied().unwrap_or(b'\n');
        i += 1;
    }
    None
}

/// The condition written at byte `at` of `file` (a comparison, a test, a
/// quantifier: one leaf of a `when` line, as diagnostics and `explain`
/// locate it), as written, when it fits on its line and holds exactly when
/// the compiled leaf does; `None` otherwise. A negated test (`!=`, `not
/// in`) is compiled to the positive one under a `not`, and a bare
/// parenthesized condition may hold more than one leaf: neither is given.
pub(crate) fn condition_at(file: &SourceFile, at: usize) -> Option<&str> {
    use pest::Parser as _;
    let rest = file.text.get(at..)?;
    let pair = HooksParser::parse(Rule::predicate, rest).ok()?.next()?;
    let negated = pair.clone().into_inner().any(|part| match part.as_rule() {
        Rule::t_not_in => true,
        Rule::t_cmp => part.as_str().trim_start().starts_with("!="),
        _ => false,
    });
    let bare_paren = pair.as_str().starts_with('(') && pair.clone().into_inner().count() == 1;
    let written = pair.as_str().trim_end();
    (!written.is_empty() && !written.contains('\n') && !negated && !bare_paren).then_some(written)
}
