//! The literals a regex needs: a few strings, one of which every match
//! contains, so that a text holding none of them is known not to match
//! without its automaton ([`Program::regex_needs`]).
//!
//! A hook process answers one event, and the first search of a regex's DFA
//! section validates the whole section (tens of kilobytes for a path
//! pattern with `(?i)`): for `npm test`, the pack's `protected` pattern
//! costs more to validate than the rest of the event's work. Most texts a
//! rule tests cannot match (`/home/me/app/npm` holds neither `.hookc` nor
//! `.claude`), and a scan for the needed literals says so first.
//!
//! The literals are lower-case ASCII and are looked for without regard to
//! ASCII case, and only in ASCII text: so a `(?i)` pattern needs its
//! letters in either case, and a class such as `[kK\u{212A}]` (`(?i)k`)
//! reads as `k`, since its other member cannot be in ASCII text. Non-ASCII
//! text is always searched.
//!
//! [`Program::regex_needs`]: crate::ir::Program::regex_needs

use regex_syntax::hir::{Class, Hir, HirKind};

/// The most literals a regex may need; more, and it needs none (the scan
/// would cost what the automaton does).
const MOST: usize = 16;

/// The shortest literal worth a scan: shorter ones are in most texts.
const SHORTEST: usize = 3;

/// Each regex's needed literals, as [`Program::regex_needs`] holds them:
/// empty altogether when no regex has any.
///
/// [`Program::regex_needs`]: crate::ir::Program::regex_needs
pub(super) fn for_regexes(regexes: &[crate::ir::RegexSource]) -> Vec<Vec<String>> {
    let all: Vec<Vec<String>> = regexes.iter().map(|r| needs(&r.to_inline())).collect();
    if all.iter().all(Vec::is_empty) {
        return Vec::new();
    }
    all
}

/// The literals every match of `pattern` (with its flags inline) contains
/// one of, lower-case ASCII; empty when there are none worth a scan, or
/// the pattern does not parse.
pub(super) fn needs(pattern: &str) -> Vec<String> {
    let Ok(hir) = regex_syntax::parse(pattern) else {
        return Vec::new();
    };
    match read(&hir).any {
        Some(any) if any.iter().all(|l| l.len() >= SHORTEST) => any
            .into_iter()
            .filter_map(|l| String::from_utf8(l).ok())
            .collect(),
        _ => Vec::new(),
    }
}

/// What a part of a regex says about the text it matches (in ASCII text,
/// without regard to ASCII case).
#[derive(Debug, Default)]
struct Needs {
    /// It matches exactly this string.
    exact: Option<Vec<u8>>,
    /// Every match contains one of these.
    any: Option<Vec<Vec<u8>>>,
}

impl Needs {
    /// Matches exactly `literal`, which it also needs.
    fn exact(literal: Vec<u8>) -> Needs {
        let any = (!literal.is_empty()).then(|| vec![literal.clone()]);
        Needs {
            exact: Some(literal),
            any,
        }
    }
}

fn read(hir: &Hir) -> Needs {
    match hir.kind() {
        // Zero-width: part of any run of literals around it.
        HirKind::Empty | HirKind::Look(_) => Needs::exact(Vec::new()),
        HirKind::Literal(literal) => match ascii(&literal.0) {
            Some(lower) => Needs::exact(lower),
            None => Needs::default(),
        },
        HirKind::Class(class) => match one_letter(class) {
            Some(byte) => Needs::exact(vec![byte]),
            None => Needs::default(),
        },
        HirKind::Capture(capture) => read(&capture.sub),
        HirKind::Repetition(rep) => {
            if rep.min == 0 {
                return Needs::default();
            }
            let sub = read(&rep.sub);
            let exact = match (sub.exact, rep.max) {
                (Some(e), Some(max)) if max == rep.min && e.len() * max as usize <= 64 => {
                    Some(e.repeat(max as usize))
                }
                _ => None,
            };
            Needs {
                exact,
                any: sub.any,
            }
        }
        HirKind::Concat(parts) => concat(parts),
        HirKind::Alternation(branches) => {
            let mut any: Vec<Vec<u8>> = Vec::new();
            for branch in branches {
                let Some(needed) = read(branch).any else {
                    return Needs::default();
                };
                for literal in needed {
                    if !any.contains(&literal) {
                        any.push(literal);
                    }
                }
            }
            Needs {
                exact: None,
                any: (any.len() <= MOST).then_some(any),
            }
        }
    }
}

/// A concatenation needs the run of literals between two parts that are
/// not one, or what one of its parts needs: whichever is the longest.
fn concat(parts: &[Hir]) -> Needs {
    let mut choices: Vec<Vec<Vec<u8>>> = Vec::new();
    let mut run: Option<Vec<u8>> = Some(Vec::new());
    let mut current = Vec::new();
    for part in parts {
        let needs = read(part);
        match needs.exact {
            Some(exact) => current.extend_from_slice(&exact),
            None => {
                run = None;
                if !current.is_empty() {
                    choices.push(vec![std::mem::take(&mut current)]);
                }
            }
        }
        if let Some(any) = needs.any {
            choices.push(any);
        }
    }
    if !current.is_empty() {
        choices.push(vec![current.clone()]);
    }
    let exact = run.map(|_| current);
    let any = choices
        .into_iter()
        .max_by_key(|any| (shortest(any), std::cmp::Reverse(any.len())));
    Needs { exact, any }
}

fn shortest(any: &[Vec<u8>]) -> usize {
    any.iter().map(Vec::len).min().unwrap_or(0)
}

/// `bytes` lower-cased, when they are ASCII and hold no NUL (the table
/// separates the literals with it).
fn ascii(bytes: &[u8]) -> Option<Vec<u8>> {
    bytes
        .iter()
        .all(|&b| b.is_ascii() && b != 0)
        .then(|| bytes.to_ascii_lowercase())
}

/// The one byte, lower-cased, that the class matches in ASCII text
/// (`[hH]`, `[kK\u{212A}]`, `\.`), when there is one.
fn one_letter(class: &Class) -> Option<u8> {
    let mut found: Option<u8> = None;
    let mut add = |from: u32, to: u32| -> Option<()> {
        for c in from..=to.min(0x7f) {
            let lower = u8::try_from(c).ok()?.to_ascii_lowercase();
            match found {
                Some(b) if b != lower => return None,
                _ => found = Some(lower),
            }
        }
        Some(())
    };
    match class {
        Class::Unicode(class) => {
            for range in class.iter() {
                add(u32::from(range.start()), u32::from(range.end()))?;
            }
        }
        Class::Bytes(class) => {
            for range in class.iter() {
                add(u32::from(range.start()), u32::from(range.end()))?;
            }
        }
    }
    found.filter(|&b| b != 0)
}

#[cfg(test)]
mod tests {
    use super::needs;

    fn strings(pattern: &str) -> Vec<String> {
        let mut found = needs(pattern);
        found.sort();
        found
    }

    #[test]
    fn a_literal_is_needed_lower_cased() {
        assert_eq!(strings("rm -rf"), ["rm -rf"]);
        assert_eq!(strings("(?i)Hookc"), ["hookc"]);
        // `(?i)k` is `[kK\u{212A}]`: in ASCII text, `k` or `K`.
        assert_eq!(strings("(?i)\\.hookc/"), [".hookc/"]);
    }

    #[test]
    fn the_longest_run_between_other_parts_is_needed() {
        assert_eq!(
            strings("^[a-z]+\\.hookc[0-9]*/rules\\.tbl$"),
            ["/rules.tbl"]
        );
        assert_eq!(strings("(abc){2}x"), ["abcabcx"]);
        assert_eq!(strings("a(bcd)+e"), ["bcd"]);
    }

    #[test]
    fn an_alternation_needs_one_of_its_branches() {
        assert_eq!(
            strings("(?xi) (^|[/=]) (\\.hookc|hookc~[0-9]+) (/|$) | (^|/) \\.claude (/settings[^/]*\\.json)?$"),
            [".claude", ".hookc", "hookc~"]
        );
    }

    #[test]
    fn nothing_is_needed_where_a_match_may_do_without() {
        // A branch needs nothing, or the part is optional.
        assert!(strings("abc|[a-z]+").is_empty());
        assert!(strings("(abcd)?x").is_empty());
        assert!(strings("(abcd)*").is_empty());
        // Too short to be worth a scan, or too many.
        assert!(strings("ab|cde").is_empty());
        let many = (0..20)
            .map(|i| format!("word{i}"))
            .collect::<Vec<_>>()
            .join("|");
        assert!(strings(&many).is_empty());
        // Classes of more than one letter, non-ASCII literals, bad syntax.
        assert!(strings("[a-c]+").is_empty());
        assert!(strings("é").is_empty());
        assert!(strings("(").is_empty());
    }
}
