//! Brace expansion, as bash does it before any other expansion:
//! `/{etc,usr}` is the two words `/etc` and `/usr`, `f{1..3}` is `f1 f2
//! f3`. The words a command gets are the expanded ones, so that a rule that
//! reads operands sees `/etc`, not `/{etc,usr}`.
//!
//! Only words with no quotes and no `$` expansion are expanded here (their
//! text is then exactly what bash expands); the parser leaves the others,
//! and words past [`MAX_WORDS`], as written, and the command is dynamic.

use super::Parser;
use crate::shell::buffers::Word;

/// The most words one word may expand to; past it, the word is left as
/// written (`{a,b}{a,b}…` doubles with each brace).
pub(crate) const MAX_WORDS: usize = 64;

/// The most bytes the words of one expansion may hold.
const MAX_BYTES: usize = 64 * 1024;

impl Parser<'_> {
    /// Pushes a word of the simple command whose words start at `words` on
    /// the word stack, as the words bash's brace expansion makes of it. A
    /// word with quotes or a `$` expansion, a leading assignment (bash does
    /// not expand them) and a word past the limits is pushed as written.
    pub(in crate::shell) fn push_expanded(&mut self, word: Word, words: usize) {
        // Most words hold no brace expression: they are pushed at once.
        let assignment = || {
            word.assign
                && self
                    .b
                    .words
                    .get(words..)
                    .unwrap_or_default()
                    .iter()
                    .all(|w| w.assign)
        };
        let expanded = if !word.brace || word.quoted || word.expansion || assignment() {
            None
        } else {
            expand(self.text(word.text))
        };
        let Some(expanded) = expanded else {
            self.b.words.push(word);
            return;
        };
        for text in expanded {
            let mark = self.mark();
            self.b.text.push_str(&text);
            self.b.words.push(Word {
                text: self.span_from(mark),
                brace: false,
                ..word
            });
        }
    }
}

/// The words brace expansion makes of `text` (unquoted, without `$`), in
/// bash's order; `None` when it makes more than [`MAX_WORDS`] words (or
/// [`MAX_BYTES`] bytes). A text without a valid brace expression is one
/// word, itself; words that come out empty are dropped.
pub(crate) fn expand(text: &str) -> Option<Vec<String>> {
    if text.len() > MAX_BYTES {
        return None;
    }
    let mut out = Vec::new();
    let mut bytes = 0;
    expand_into(text, &mut out, &mut bytes).then_some(out)
}

/// Appends the expansion of `text` to `out`; false past the limits.
fn expand_into(text: &str, out: &mut Vec<String>, bytes: &mut usize) -> bool {
    let Some((open, close, items)) = first_expression(text) else {
        // An empty word is dropped, as bash drops it (`{/,}` is `/`).
        if !text.is_empty() {
            *bytes += text.len();
            out.push(text.to_string());
        }
        return out.len() <= MAX_WORDS && *bytes <= MAX_BYTES;
    };
    let Ok(items) = items else {
        return false;
    };
    let (before, after) = (
        text.get(..open).unwrap_or(""),
        text.get(close + 1..).unwrap_or(""),
    );
    items.iter().all(|item| {
        let word = format!("{before}{item}{after}");
        expand_into(&word, out, bytes)
    })
}

/// The first brace expression of `text`: where its `{` and `}` are, and
/// its items (the alternatives of `{a,b}`, or the terms of a sequence).
/// A `{` that starts no expression (`{}`, `{a}`, `${`) is plain text.
///
/// One pass pairs every `{` with its `}` (an unclosed `{` pairs with
/// none, as bash's scan for it finds none): a word of many `{` costs no
/// more than its length.
fn first_expression(text: &str) -> Option<(usize, usize, Result<Vec<String>, TooMany>)> {
    let bytes = text.as_bytes();
    // Per open brace on the stack: where it is, and its level's commas.
    let mut open: Vec<(usize, Vec<usize>)> = Vec::new();
    // Closed pairs: (open, close, commas), in the order they close.
    let mut pairs: Vec<(usize, usize, Vec<usize>)> = Vec::new();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'{' => open.push((i, Vec::new())),
            b'}' => {
                if let Some((at, commas)) = open.pop() {
                    pairs.push((at, i, commas));
                }
            }
            b',' => {
                if let Some((_, commas)) = open.last_mut() {
                    commas.push(i);
                }
            }
            _ => {}
        }
    }
    pairs.sort_unstable_by_key(|&(at, _, _)| at);
    pairs.into_iter().find_map(|(at, close, commas)| {
        if at > 0 && bytes.get(at - 1) == Some(&b'$') {
            return None;
        }
        let items = if commas.is_empty() {
            sequence(text.get(at + 1..close).unwrap_or(""))?
        } else {
            let mut items = Vec::with_capacity(commas.len() + 1);
            let mut start = at + 1;
            for &comma in commas.iter().chain(std::iter::once(&close)) {
                items.push(text.get(start..comma).unwrap_or("").to_string());
                start = comma + 1;
            }
            Ok(items)
        };
        Some((at, close, items))
    })
}

/// A sequence with more terms than a word may expand to.
#[derive(Debug)]
struct TooMany;

/// The terms of a sequence expression `x..y` or `x..y..step`: integers
/// (zero-padded to the wider end when either is written with a leading
/// zero) or single ASCII letters; `None` for anything else.
fn sequence(inner: &str) -> Option<Result<Vec<String>, TooMany>> {
    let mut parts = inner.split("..");
    let (first, last) = (parts.next()?, parts.next()?);
    let step = match parts.next() {
        Some(step) => step.parse::<i64>().ok()?.unsigned_abs().max(1),
        None => 1,
    };
    if parts.next().is_some() {
        return None;
    }
    let terms = if let (Ok(a), Ok(b)) = (first.parse::<i64>(), last.parse::<i64>()) {
        let padded = |s: &str| {
            s.trim_start_matches('-').len() > 1 && s.trim_start_matches('-').starts_with('0')
        };
        let width = if padded(first) || padded(last) {
            first.len().max(last.len())
        } else {
            0
        };
        let count = a.abs_diff(b) / step + 1;
        if count > MAX_WORDS as u64 {
            return Some(Err(TooMany));
        }
        (0..count)
            .filter_map(|k| {
                let offset = i64::try_from(k * step).ok()?;
                let n = if a <= b { a + offset } else { a - offset };
                Some(if n < 0 {
                    format!("-{:0>w$}", n.unsigned_abs(), w = width.saturating_sub(1))
                } else {
                    format!("{n:0>width$}")
                })
            })
            .collect()
    } else {
        let (&[a], &[b]) = (first.as_bytes(), last.as_bytes()) else {
            return None;
        };
        if !a.is_ascii_alphabetic() || !b.is_ascii_alphabetic() {
            return None;
        }
        let step = usize::try_from(step).ok()?;
        let range: Vec<u8> = if a <= b {
            (a..=b).step_by(step).collect()
        } else {
            (b..=a).rev().step_by(step).collect()
        };
        range
            .into_iter()
            .map(|c| char::from(c).to_string())
            .collect()
    };
    Some(Ok(terms))
}

#[cfg(test)]
mod tests {
    use super::expand;

    fn words(text: &str) -> Vec<String> {
        expand(text).expect("within the limits")
    }

    #[test]
    fn lists_and_sequences_expand_as_bash_does() {
        // Each checked in bash 5: `printf '%s\n' WORD`.
        let cases: &[(&str, &[&str])] = &[
            ("/{etc,usr}", &["/etc", "/usr"]),
            ("/etc{,.bak}", &["/etc", "/etc.bak"]),
            ("{/,}", &["/"]),
            ("/e{t,}c", &["/etc", "/ec"]),
            ("a{1,2}b{3,4}", &["a1b3", "a1b4", "a2b3", "a2b4"]),
            ("x{a,{b,c}}y", &["xay", "xby", "xcy"]),
            ("f{1..3}", &["f1", "f2", "f3"]),
            ("{3..1}", &["3", "2", "1"]),
            ("{01..03}", &["01", "02", "03"]),
            ("{1..7..3}", &["1", "4", "7"]),
            ("{a..c}", &["a", "b", "c"]),
            ("{-1..1}", &["-1", "0", "1"]),
            ("of={/dev/sda,x}", &["of=/dev/sda", "of=x"]),
        ];
        for (text, expected) in cases {
            assert_eq!(words(text), *expected, "{text}");
        }
    }

    #[test]
    fn a_brace_that_starts_no_expression_is_text() {
        for text in [
            "{}",
            "{a}",
            "a{b",
            "a}b",
            "{1..}",
            "{a..bc}",
            "x{}y{a,b",
            "{1..2..3..4}",
        ] {
            assert_eq!(words(text), [text], "{text}");
        }
        // A later brace still expands after a plain one.
        assert_eq!(words("{x}{a,b}"), ["{x}a", "{x}b"]);
    }

    #[test]
    fn past_the_limit_nothing_is_expanded() {
        assert!(expand(&"{a,b}".repeat(7)).is_none(), "128 words");
        assert_eq!(words(&"{a,b}".repeat(6)).len(), 64);
        assert!(expand("{1..100000000}").is_none());
        assert!(expand(&format!("{{{},b}}", "x".repeat(70_000))).is_none());
        // Many unclosed braces before one expression: found in one pass.
        let many = format!("{}{{a,b}}", "{".repeat(30_000));
        assert_eq!(words(&many).len(), 2);
    }
}
