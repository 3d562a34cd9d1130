//! Untrusted text made safe to print: the one place that decides which
//! characters never reach a terminal raw, and how long text is cut.
//!
//! Rule files, events, command output and file names all end up in human
//! output (diagnostics, `fmt` diffs, test failures, `explain` and `eval`).
//! Any of them may hold characters a terminal acts on instead of showing:
//! ESC starts a control sequence (colors, cursor moves, window titles), BEL
//! rings, CR returns to the start of the line and overwrites it, and the
//! bidirectional controls (U+202A–U+202E, U+2066–U+2069) reorder what
//! follows them on the line, so that text reads differently from what it is
//! ("Trojan Source"). Every human renderer passes such text through this
//! module, which writes those characters as visible escapes, `\u{1b}`,
//! `\u{202e}`, one character becoming a fixed run of ASCII, so columns
//! computed on the escaped text stay right.
//!
//! | function | escapes | for |
//! |---|---|---|
//! | [`escape`] | every control and bidi character, newline and tab included | one-line values: names, messages, field values |
//! | [`escape_lines`] | the same, but keeps `\n` (and tab) | multi-line text whose lines are the output's lines |
//! | [`shorten`] | as [`escape`], then cuts the middle of long text | values that may be megabytes long |
//! | [`shorten_lines`] | as [`escape_lines`], then cuts the middle | messages of several lines |
//!
//! JSON output does not go through here: its consumers are programs, and
//! JSON strings escape control characters themselves.

use std::borrow::Cow;
use std::fmt::Write as _;

/// True for the bidirectional formatting characters that reorder text:
/// the embeddings and overrides U+202A–U+202E (LRE, RLE, PDF, LRO, RLO) and
/// the isolates U+2066–U+2069 (LRI, RLI, FSI, PDI).
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// The Unicode name of a bidirectional control character.
pub fn bidi_name(c: char) -> Option<&'static str> {
    Some(match c {
        '\u{202a}' => "LEFT-TO-RIGHT EMBEDDING",
        '\u{202b}' => "RIGHT-TO-LEFT EMBEDDING",
        '\u{202c}' => "POP DIRECTIONAL FORMATTING",
        '\u{202d}' => "LEFT-TO-RIGHT OVERRIDE",
        '\u{202e}' => "RIGHT-TO-LEFT OVERRIDE",
        '\u{2066}' => "LEFT-TO-RIGHT ISOLATE",
        '\u{2067}' => "RIGHT-TO-LEFT ISOLATE",
        '\u{2068}' => "FIRST STRONG ISOLATE",
        '\u{2069}' => "POP DIRECTIONAL ISOLATE",
        _ => return None,
    })
}

/// True for a character that is never printed raw: a control character
/// (C0, DEL, C1) or a bidirectional control.
pub fn is_unsafe(c: char) -> bool {
    c.is_control() || is_bidi_control(c)
}

/// True for a character a reader cannot tell from a space, or cannot see:
/// Unicode white space other than the ASCII space, and the zero-width and
/// invisible format characters. Quoted raw, `":\u00a0()"` would read as
/// `": ()"`.
pub fn looks_blank(c: char) -> bool {
    (c.is_whitespace() && !c.is_ascii())
        || matches!(
            c,
            '\u{ad}' | '\u{200b}'..='\u{200f}' | '\u{2060}'..='\u{2064}' | '\u{feff}'
        )
}

/// Appends `c` as its escape, `\u{1b}` (lowercase hex, no padding).
pub fn push_escape(out: &mut String, c: char) {
    let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
}

/// The number of characters [`push_escape`] writes for `c`.
pub fn escape_len(c: char) -> usize {
    // `\u{` + hex digits + `}`
    let digits = (32 - u32::from(c).leading_zeros()).div_ceil(4).max(1) as usize;
    digits + 4
}

/// `s` with every control and bidi character (newline and tab included)
/// written as an escape; borrowed when there is none.
pub fn escape(s: &str) -> Cow<'_, str> {
    escape_where(s, is_unsafe)
}

/// Like [`escape`], but newlines and tabs are kept: for text whose lines
/// become the output's lines. A CR is escaped (it would overwrite the line).
pub fn escape_lines(s: &str) -> Cow<'_, str> {
    escape_where(s, |c| c != '\n' && c != '\t' && is_unsafe(c))
}

fn escape_where(s: &str, unsafe_char: impl Fn(char) -> bool) -> Cow<'_, str> {
    let Some(first) = s.find(&unsafe_char) else {
        return Cow::Borrowed(s);
    };
    let mut out = String::with_capacity(s.len() + 8);
    out.push_str(s.get(..first).unwrap_or(""));
    for c in s.get(first..).unwrap_or("").chars() {
        if unsafe_char(c) {
            push_escape(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// The marker that stands for text left out.
pub const ELLIPSIS: &str = "…";

/// `s` escaped (as [`escape`]) and, when that is longer than `max`
/// characters, cut in the middle: its first two thirds and its last third of
/// `max`, with [`ELLIPSIS`] between them. The work is bounded by `max`, not
/// by the length of `s`: a megabyte string costs no more than a short one.
pub fn shorten(s: &str, max: usize) -> Cow<'_, str> {
    shorten_where(s, max, is_unsafe)
}

/// Like [`shorten`], but newlines and tabs are kept (as [`escape_lines`]):
/// for messages of several lines.
pub fn shorten_lines(s: &str, max: usize) -> Cow<'_, str> {
    shorten_where(s, max, |c| c != '\n' && c != '\t' && is_unsafe(c))
}

fn shorten_where(s: &str, max: usize, is_unsafe: impl Fn(char) -> bool + Copy) -> Cow<'_, str> {
    let max = max.max(2);
    // Count at most `max + 1` characters: enough to know whether to cut.
    let mut width = 0usize;
    let mut fits = true;
    for c in s.chars() {
        width += if is_unsafe(c) { escape_len(c) } else { 1 };
        if width > max {
            fits = false;
            break;
        }
    }
    if fits {
        return escape_where(s, is_unsafe);
    }
    let head_budget = max * 2 / 3;
    let tail_budget = max.saturating_sub(head_budget).saturating_sub(1);
    let mut head = String::new();
    let mut used = 0usize;
    let mut head_end = 0usize;
    for (i, c) in s.char_indices() {
        let w = if is_unsafe(c) { escape_len(c) } else { 1 };
        if used + w > head_budget {
            break;
        }
        used += w;
        head_end = i + c.len_utf8();
        if is_unsafe(c) {
            push_escape(&mut head, c);
        } else {
            head.push(c);
        }
    }
    let mut tail: Vec<String> = Vec::new();
    let mut used = 0usize;
    for (i, c) in s.char_indices().rev() {
        if i < head_end {
            break;
        }
        let w = if is_unsafe(c) { escape_len(c) } else { 1 };
        if used + w > tail_budget {
            break;
        }
        used += w;
        let mut piece = String::new();
        if is_unsafe(c) {
            push_escape(&mut piece, c);
        } else {
            piece.push(c);
        }
        tail.push(piece);
    }
    head.push_str(ELLIPSIS);
    for piece in tail.iter().rev() {
        head.push_str(piece);
    }
    Cow::Owned(head)
}

/// A whole output text with every unsafe character but `\n` and tab escaped
/// (as [`escape_lines`]): the last guard of a human report, after each value
/// in it was already escaped and shortened.
pub fn guard(text: String) -> String {
    match escape_lines(&text) {
        Cow::Borrowed(_) => text,
        Cow::Owned(escaped) => escaped,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_and_bidi_become_escapes() {
        assert_eq!(escape("plain"), Cow::Borrowed("plain"));
        assert_eq!(escape("a\u{1b}[31mb\u{7}"), "a\\u{1b}[31mb\\u{7}");
        assert_eq!(escape("x\u{202e}y\u{2066}z"), "x\\u{202e}y\\u{2066}z");
        assert_eq!(escape("l1\nl2\tt\r"), "l1\\u{a}l2\\u{9}t\\u{d}");
        assert_eq!(escape("\u{9b}"), "\\u{9b}", "C1 controls too");
        assert_eq!(escape_lines("l1\nl2\tt\r\u{1b}"), "l1\nl2\tt\\u{d}\\u{1b}");
        assert_eq!(escape("é ü 漢"), "é ü 漢", "other text is kept");
    }

    #[test]
    fn escape_len_matches_the_escape() {
        for c in [
            '\0', '\u{7}', '\u{1b}', '\u{7f}', '\u{9b}', '\u{202e}', '\u{2069}',
        ] {
            let mut s = String::new();
            push_escape(&mut s, c);
            assert_eq!(s.chars().count(), escape_len(c), "{s}");
        }
    }

    #[test]
    fn every_bidi_control_has_a_name() {
        for c in ('\u{2000}'..='\u{20ff}').filter(|&c| is_bidi_control(c)) {
            assert!(bidi_name(c).is_some(), "{c:?}");
        }
        assert_eq!(
            ('\u{0}'..='\u{ffff}')
                .filter(|&c| is_bidi_control(c))
                .count(),
            9
        );
    }

    #[test]
    fn shorten_cuts_the_middle_and_is_bounded() {
        assert_eq!(shorten("short", 10), "short");
        let long = format!("{}{}", "a".repeat(1 << 20), "Z");
        let cut = shorten(&long, 30);
        assert!(cut.chars().count() <= 30, "{cut}");
        assert!(cut.starts_with("aaaa") && cut.ends_with('Z') && cut.contains(ELLIPSIS));
        let evil = "\u{1b}".repeat(1000);
        let cut = shorten(&evil, 40);
        assert!(!cut.contains('\u{1b}'));
        assert!(cut.chars().count() <= 40, "{cut}");
    }

    #[test]
    fn shorten_lines_keeps_newlines() {
        assert_eq!(shorten_lines("a\nb\u{1b}", 20), "a\nb\\u{1b}");
        assert_eq!(shorten("a\nb", 20), "a\\u{a}b");
    }

    #[test]
    fn guard_keeps_lines() {
        assert_eq!(guard("a\nb\u{1b}\n".into()), "a\nb\\u{1b}\n");
    }
}
