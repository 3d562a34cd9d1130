//! The NFA a DFA section is built from, smaller because the text it
//! searches is always UTF-8.
//!
//! A Unicode class that leaves out only ASCII characters (`[^/]`, `.`,
//! `[^}]`) compiles to a small automaton that decodes UTF-8: each multi-byte
//! character is a chain of states, and under an unanchored search, an
//! `(?i)` fold or a second pattern of the same DFA those chains multiply.
//! The glob `**/src/**` with three others made a 99 KB DFA, which a hook
//! process validates before its first search.
//!
//! Repeated without bound, such a class can match bytes instead: on text
//! that is UTF-8, a run of bytes that holds none of the left-out (ASCII)
//! bytes and starts and ends between characters is a run of characters
//! the class holds, because every byte of a multi-byte character is `0x80`
//! or above. The run's ends are between characters whenever the pattern
//! decides where they are: what comes before and after it (a literal, a
//! class, the text's ends, a line anchor) matches whole characters or does
//! not match in the middle of one. A run that starts or stops inside a
//! character only where nothing needs it to can be widened or narrowed to
//! the character's edge, and the match stays a match; two runs side by
//! side that split a character between them can move the split to its
//! edge. A run that must hold a character, though, starts with the first
//! byte of one (`C+` is `FB*`, `F` the class's ASCII bytes and the bytes
//! that start a multi-byte character): two runs of `B+` would share the
//! bytes of one character. Word boundaries look at the bytes either side
//! and would see the middle of a character as a boundary of their own, so
//! a pattern with one is built as written.
//!
//! Whether each pattern matches somewhere in a text (what the DFAs are
//! asked: [`MatchKind::All`], earliest) is therefore unchanged; where a
//! match ends is not used. `tests` checks it against the regex engine on
//! text with one-, two-, three- and four-byte characters.
//!
//! [`MatchKind::All`]: regex_automata::MatchKind::All

use regex_automata::nfa::thompson::{self, NFA};
use regex_automata::util::syntax;
use regex_syntax::hir::{Class, ClassBytes, ClassBytesRange, Hir, HirKind, Look, Repetition};

/// The NFA of `patterns` (one pattern each, in order), parsed as the DFAs'
/// syntax is (Unicode, UTF-8), with unbounded repetitions of classes that
/// leave out only ASCII matched as bytes.
pub(super) fn nfa(patterns: &[String]) -> Result<NFA, String> {
    let config = syntax::Config::new().utf8(true).unicode(true);
    let hirs = patterns
        .iter()
        .map(|pattern| {
            let hir = syntax::parse_with(pattern, &config).map_err(|e| e.to_string())?;
            let bytes = (!looks_at_words(&hir)).then(|| as_bytes(&hir)).flatten();
            Ok(bytes.unwrap_or(hir))
        })
        .collect::<Result<Vec<Hir>, String>>()?;
    thompson::Compiler::new()
        .configure(thompson::Config::new().which_captures(thompson::WhichCaptures::None))
        .build_many_from_hir(&hirs)
        .map_err(|e| e.to_string())
}

/// True when `hir` has a look-around other than the text's and lines'
/// ends: a word boundary, which a byte run ending inside a character would
/// satisfy where a character run could not.
fn looks_at_words(hir: &Hir) -> bool {
    match hir.kind() {
        HirKind::Look(look) => !matches!(
            look,
            Look::Start | Look::End | Look::StartLF | Look::EndLF | Look::StartCRLF | Look::EndCRLF
        ),
        HirKind::Repetition(rep) => looks_at_words(&rep.sub),
        HirKind::Capture(capture) => looks_at_words(&capture.sub),
        HirKind::Concat(hirs) | HirKind::Alternation(hirs) => hirs.iter().any(looks_at_words),
        HirKind::Empty | HirKind::Literal(_) | HirKind::Class(_) => false,
    }
}

/// `hir` with every unbounded repetition of a class that leaves out only
/// ASCII characters matched as bytes: `C*` becomes `B*`, `C{n,}` becomes
/// `C{n-1}FB*`, where `B` is `C`'s ASCII bytes and every byte from `0x80`,
/// and `F` those of `B` that start a character.
/// `None` when there is none (the pattern is built as parsed).
fn as_bytes(hir: &Hir) -> Option<Hir> {
    match hir.kind() {
        HirKind::Repetition(rep) => {
            if let (None, Some(bytes)) = (rep.max, byte_class(&rep.sub)) {
                let run = Hir::repetition(Repetition {
                    min: 0,
                    max: None,
                    greedy: rep.greedy,
                    sub: Box::new(Hir::class(Class::Bytes(bytes.clone()))),
                });
                if rep.min == 0 {
                    return Some(run);
                }
                // A run that must hold a character starts with the first
                // byte of one: two runs of `B+` side by side could share
                // the bytes of one character (`[^/]+[^/]+` would match the
                // three bytes of `K`).
                let mut parts = Vec::with_capacity(3);
                if rep.min > 1 {
                    parts.push(Hir::repetition(Repetition {
                        min: rep.min - 1,
                        max: Some(rep.min - 1),
                        ..rep.clone()
                    }));
                }
                parts.push(Hir::class(Class::Bytes(first_bytes(&bytes))));
                parts.push(run);
                return Some(Hir::concat(parts));
            }
            let sub = as_bytes(&rep.sub)?;
            Some(Hir::repetition(Repetition {
                sub: Box::new(sub),
                ..rep.clone()
            }))
        }
        HirKind::Capture(capture) => {
            let sub = as_bytes(&capture.sub)?;
            let mut capture = capture.clone();
            capture.sub = Box::new(sub);
            Some(Hir::capture(capture))
        }
        HirKind::Concat(hirs) => each_as_bytes(hirs).map(Hir::concat),
        HirKind::Alternation(hirs) => each_as_bytes(hirs).map(Hir::alternation),
        HirKind::Empty | HirKind::Literal(_) | HirKind::Class(_) | HirKind::Look(_) => None,
    }
}

/// `hirs` through [`as_bytes`], the ones it leaves alone as they are;
/// `None` when it leaves all alone.
fn each_as_bytes(hirs: &[Hir]) -> Option<Vec<Hir>> {
    let rewritten: Vec<Option<Hir>> = hirs.iter().map(as_bytes).collect();
    if rewritten.iter().all(Option::is_none) {
        return None;
    }
    Some(
        rewritten
            .into_iter()
            .zip(hirs)
            .map(|(new, old)| new.unwrap_or_else(|| old.clone()))
            .collect(),
    )
}

/// The byte class that matches what the Unicode class `hir` matches on
/// UTF-8 text when repeated, if `hir` is a Unicode class holding every
/// character from U+0080: its ASCII ranges, and `0x80..=0xFF`.
fn byte_class(hir: &Hir) -> Option<ClassBytes> {
    let HirKind::Class(Class::Unicode(class)) = hir.kind() else {
        return None;
    };
    let mut left_out = class.clone();
    left_out.negate();
    if left_out.ranges().iter().any(|r| !r.end().is_ascii()) {
        return None;
    }
    let mut ranges: Vec<ClassBytesRange> = class
        .ranges()
        .iter()
        .filter(|r| r.start().is_ascii())
        .map(|r| ClassBytesRange::new(ascii_byte(r.start()), ascii_byte(r.end().min('\x7f'))))
        .collect();
    ranges.push(ClassBytesRange::new(0x80, 0xFF));
    Some(ClassBytes::new(ranges))
}

/// The bytes of `run` (a class from [`byte_class`]) that start a
/// character: its ASCII bytes, and the first bytes of multi-byte ones.
fn first_bytes(run: &ClassBytes) -> ClassBytes {
    let mut first = run.clone();
    first.intersect(&ClassBytes::new([
        ClassBytesRange::new(0x00, 0x7F),
        ClassBytesRange::new(0xC0, 0xFF),
    ]));
    first
}

/// An ASCII character's byte (`0x7F` for any other: not reached, the
/// callers pass ASCII).
fn ascii_byte(c: char) -> u8 {
    u8::try_from(c).unwrap_or(0x7F)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use regex_automata::dfa::{dense, Automaton};
    use regex_automata::{Input, MatchKind};

    fn dfa(patterns: &[&str], as_written: bool) -> dense::DFA<Vec<u32>> {
        let patterns: Vec<String> = patterns.iter().map(|p| p.to_string()).collect();
        let config = dense::DFA::config()
            .match_kind(MatchKind::All)
            .unicode_word_boundary(true)
            .minimize(true);
        if as_written {
            dense::Builder::new()
                .configure(config)
                .build_many(&patterns)
                .unwrap()
        } else {
            let nfa = nfa(&patterns).unwrap();
            dense::Builder::new()
                .configure(config)
                .build_from_nfa(&nfa)
                .unwrap()
        }
    }

    fn size(dfa: &dense::DFA<Vec<u32>>) -> usize {
        dfa.to_bytes_native_endian().0.len()
    }

    /// Which patterns match somewhere in `text`, as the runtime asks a
    /// field's DFA.
    fn matching(dfa: &dense::DFA<Vec<u32>>, text: &str) -> Vec<usize> {
        let mut set = regex_automata::PatternSet::new(dfa.pattern_len());
        dfa.try_which_overlapping_matches(&Input::new(text), &mut set)
            .unwrap();
        set.iter().map(|p| p.as_usize()).collect()
    }

    #[test]
    fn globs_over_any_characters_build_a_smaller_dfa() {
        let patterns = [
            r"(?i)(^|/)\.env[^/]*$",
            r"^(?:/?|.*/)src/.*$",
            r"^(?:/?|.*/)tests/.*$",
            r"^(?:/?|.*/)docs/.*$",
        ];
        let (written, bytes) = (dfa(&patterns, true), dfa(&patterns, false));
        assert!(
            size(&bytes) * 3 < size(&written),
            "{} bytes as bytes, {} as written",
            size(&bytes),
            size(&written)
        );
        for text in [
            "/home/dév/src/ü.rs",
            "src/",
            "/a/.ENV.lokal",
            "/a/.env/x",
            "é/docs/",
            "/x/sr€/y",
            "tests",
        ] {
            assert_eq!(matching(&bytes, text), matching(&written, text), "{text}");
        }
    }

    #[test]
    fn a_class_that_leaves_out_more_than_ascii_is_kept() {
        assert_eq!(as_bytes(&syntax::parse(r"[^/é]*").unwrap()), None);
        let bounded = syntax::parse(r"[^/]{0,4}").unwrap();
        assert_eq!(
            as_bytes(&bounded),
            None,
            "a bounded repetition counts characters"
        );
        assert!(as_bytes(&syntax::parse(r"a(b[^/]*)").unwrap()).is_some());
    }

    /// Found by the property test: `B+B+` split the three bytes of the
    /// Kelvin sign into two runs.
    #[test]
    fn runs_side_by_side_do_not_share_a_character() {
        for pattern in ["^(?:[^/]+[^/]+)$", "[^/]+[^/]+", "^[^/]{2,}$"] {
            let (written, bytes) = (dfa(&[pattern], true), dfa(&[pattern], false));
            for text in ["\u{212A}", "é", "😀", "ab", "a", "/é"] {
                assert_eq!(
                    matching(&bytes, text),
                    matching(&written, text),
                    "{pattern} {text}"
                );
            }
        }
    }

    #[test]
    fn a_pattern_with_a_word_boundary_is_built_as_written() {
        assert!(looks_at_words(&syntax::parse(r"\bx[^/]*").unwrap()));
        assert!(looks_at_words(&syntax::parse(r"(?-u:\b)x").unwrap()));
        assert!(!looks_at_words(&syntax::parse(r"(?m)^x[^/]*$").unwrap()));
    }

    /// Pieces of patterns: classes that leave out only ASCII (rewritten
    /// under `*`, `+`, `{n,}`), one that leaves out more, literals of one to
    /// four bytes, anchors; and text made of the same characters.
    fn piece() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec![
            "[^/]*",
            "[^/]+",
            "[^/]{2,}",
            ".*",
            "(?s:.)*",
            "[^}a]*?",
            "(?i:[^k])*",
            "[^/é]*",
            "[^/€]+",
            "[^/]{1,2}",
            "[^/]{3,}",
            "[^/]",
            ".",
            "/",
            "a",
            "é",
            "€",
            "😀",
            "k",
            "(?i:k)",
            "^",
            "$",
            "(?m:^)",
            "(?m:$)",
            "(?:a|é)?",
            "(?:/|[^a])*",
        ])
    }

    fn text() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop::sample::select(vec![
                '/', 'a', 'k', 'K', '\u{212A}', 'é', '€', '😀', '}', '\n',
            ]),
            0..8,
        )
        .prop_map(|chars| chars.into_iter().collect())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        /// Each pattern matches the same texts, alone and in a DFA with
        /// others, as the regex engine says it does.
        #[test]
        fn byte_runs_match_where_the_characters_do(
            patterns in prop::collection::vec((prop::collection::vec(piece(), 1..4), any::<bool>()), 1..4),
            texts in prop::collection::vec(text(), 1..8),
        ) {
            // Half of them must match the whole text, so that what a run
            // takes in decides the match.
            let patterns: Vec<String> = patterns
                .iter()
                .map(|(pieces, whole)| {
                    if *whole { format!("^(?:{})$", pieces.concat()) } else { pieces.concat() }
                })
                .collect();
            let refs: Vec<&str> = patterns.iter().map(String::as_str).collect();
            let bytes = dfa(&refs, false);
            let engines: Vec<regex::Regex> =
                patterns.iter().map(|p| regex::Regex::new(p).unwrap()).collect();
            for text in &texts {
                let expected: Vec<usize> = engines
                    .iter()
                    .enumerate()
                    .filter(|(_, re)| re.is_match(text))
                    .map(|(i, _)| i)
                    .collect();
                prop_assert_eq!(matching(&bytes, text), expected, "{:?} on {:?}", patterns, text);
            }
        }
    }
}
