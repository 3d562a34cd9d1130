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

/// The most bytes a class may match (in ASCII text) to be read as a set
/// of one-byte strings (`gh[pousr]_`: five strings of four bytes).
const FEW: usize = 8;

/// The literals every match of `pattern` (with its flags inline) contains
/// one of, lower-case ASCII; empty when there are none worth a scan, or
/// the pattern does not parse.
pub(crate) fn needs(pattern: &str) -> Vec<String> {
    match regex_syntax::parse(pattern) {
        Ok(hir) => of(&hir),
        Err(_) => Vec::new(),
    }
}

/// The literals every match of the regex `hir` contains one of, as
/// [`needs`] finds them: the checker reads them from the tree it parses
/// anyway, so that the compile does not parse each regex again.
pub(crate) fn of(hir: &Hir) -> Vec<String> {
    match read(hir).into_any() {
        Some(any) if any.iter().all(|l| l.len() >= SHORTEST) => {
            // A string that holds another of the set adds nothing to it
            // (`/.claude` beside `.claude`).
            let holds = |long: &[u8], short: &[u8]| {
                long.len() > short.len() && long.windows(short.len()).any(|w| w == short)
            };
            any.iter()
                .filter(|l| !any.iter().any(|other| holds(l, other)))
                .filter_map(|l| String::from_utf8(l.to_vec()).ok())
                .collect()
        }
        _ => Vec::new(),
    }
}

/// A few strings (at most [`MOST`]), laid end to end in one buffer: a
/// set is one allocation (none when its strings are empty), where a
/// vector of vectors would be one a string and one more; the checker
/// reads the needs of every regex of a policy, and most of what it reads
/// is sets of one short literal.
#[derive(Clone, Debug, Default)]
struct Set {
    /// The strings, one after another.
    bytes: Vec<u8>,
    /// Where each string ends in `bytes`: the first `len`.
    ends: [u32; MOST],
    len: u8,
}

impl Set {
    /// The set of one string.
    fn one(string: &[u8]) -> Set {
        let mut set = Set::default();
        set.push(string);
        set
    }

    fn len(&self) -> usize {
        usize::from(self.len)
    }

    fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The strings, in the order they were added.
    fn iter(&self) -> impl Iterator<Item = &[u8]> + '_ {
        let ends = self.ends.get(..self.len()).unwrap_or(&[]);
        let starts = std::iter::once(0).chain(ends.iter().copied());
        starts
            .zip(ends.iter().copied())
            .map(|(from, to)| self.bytes.get(from as usize..to as usize).unwrap_or(&[]))
    }

    fn contains(&self, string: &[u8]) -> bool {
        self.iter().any(|s| s == string)
    }

    /// Adds `string` (again, if it is there); false when the set is full.
    fn push(&mut self, string: &[u8]) -> bool {
        self.push_parts(string, &[])
    }

    /// Adds `first` followed by `second`, as one string; false when the
    /// set is full.
    fn push_parts(&mut self, first: &[u8], second: &[u8]) -> bool {
        let len = self.len();
        if len >= MOST {
            return false;
        }
        self.bytes.extend_from_slice(first);
        self.bytes.extend_from_slice(second);
        if let Some(end) = self.ends.get_mut(len) {
            // A regex is far shorter than 4 GiB: the checker bounds it.
            *end = u32::try_from(self.bytes.len()).unwrap_or(u32::MAX);
            self.len += 1;
        }
        true
    }
}

/// What a part of a regex says about the text it matches (in ASCII text,
/// without regard to ASCII case).
#[derive(Debug, Default)]
struct Needs {
    /// It matches exactly one of these strings.
    exact: Option<Set>,
    /// What every match contains one of.
    any: Any,
}

/// The strings every match of a part contains one of. A part that
/// matches one of a few known strings needs those same strings: they are
/// not copied ([`Any::Exact`]), since most parts of a regex are such
/// literals.
#[derive(Debug, Default)]
enum Any {
    /// Nothing known.
    #[default]
    Nothing,
    /// The strings of [`Needs::exact`] (none of them empty).
    Exact,
    /// These strings.
    Own(Set),
}

impl Needs {
    /// Matches exactly one of `strings`, and so needs one of them (unless
    /// one is empty).
    fn exact(strings: Set) -> Needs {
        let any = if useful(&strings) {
            Any::Exact
        } else {
            Any::Nothing
        };
        Needs {
            exact: Some(strings),
            any,
        }
    }

    /// What every match contains one of, borrowed.
    fn any(&self) -> Option<&Set> {
        match &self.any {
            Any::Nothing => None,
            Any::Exact => self.exact.as_ref(),
            Any::Own(set) => Some(set),
        }
    }

    /// What every match contains one of.
    fn into_any(self) -> Option<Set> {
        match self.any {
            Any::Nothing => None,
            Any::Exact => self.exact,
            Any::Own(set) => Some(set),
        }
    }
}

/// Whether a set of strings is worth needing: none of them empty.
fn useful(strings: &Set) -> bool {
    !strings.is_empty() && strings.iter().all(|s| !s.is_empty())
}

fn read(hir: &Hir) -> Needs {
    match hir.kind() {
        // Zero-width: part of any run of literals around it.
        HirKind::Empty | HirKind::Look(_) => Needs::exact(Set::one(b"")),
        HirKind::Literal(literal) => match ascii(&literal.0) {
            Some(lower) => Needs::exact(lower),
            None => Needs::default(),
        },
        HirKind::Class(class) => match few_letters(class) {
            Some(bytes) => Needs::exact(bytes),
            None => Needs::default(),
        },
        HirKind::Capture(capture) => read(&capture.sub),
        HirKind::Repetition(rep) => {
            if rep.min == 0 {
                return Needs::default();
            }
            let sub = read(&rep.sub);
            let exact = match (&sub.exact, rep.max) {
                (Some(one), Some(max)) if max == rep.min && one.len() == 1 => {
                    let e = one.iter().next().unwrap_or(&[]);
                    (e.len() * max as usize <= 64).then(|| Set::one(&e.repeat(max as usize)))
                }
                _ => None,
            };
            Needs {
                exact,
                any: sub.into_any().map_or(Any::Nothing, Any::Own),
            }
        }
        HirKind::Concat(parts) => concat(parts),
        HirKind::Alternation(branches) => {
            let (mut any, mut exact) = (Some(Set::default()), Some(Set::default()));
            for branch in branches {
                let needs = read(branch);
                any = union(any, needs.any());
                exact = union(exact, needs.exact.as_ref());
            }
            Needs {
                exact,
                any: any.map_or(Any::Nothing, Any::Own),
            }
        }
    }
}

/// The union of two sets, when both are known and it has at most
/// [`MOST`] strings.
fn union(a: Option<Set>, b: Option<&Set>) -> Option<Set> {
    let (mut a, b) = (a?, b?);
    for s in b.iter() {
        if !a.contains(s) && !a.push(s) {
            return None;
        }
    }
    Some(a)
}

/// A concatenation matches the strings its parts' strings make, one
/// after the other; it needs one of those of a run of parts that match
/// known strings, or what one of its parts needs: whichever set's
/// shortest string is the longest.
fn concat(parts: &[Hir]) -> Needs {
    let mut choices: Vec<Set> = Vec::new();
    let mut run = Set::one(b"");
    let mut whole = true;
    let end_run = |choices: &mut Vec<Set>, run: &mut Set, next| {
        let done = std::mem::replace(run, next);
        if useful(&done) {
            choices.push(done);
        }
    };
    for part in parts {
        let needs = read(part);
        match needs.exact.as_ref() {
            Some(set) if run.len() * set.len() <= MOST => {
                run = joined(&run, set);
            }
            Some(set) => {
                whole = false;
                end_run(&mut choices, &mut run, set.clone());
            }
            None => {
                whole = false;
                end_run(&mut choices, &mut run, Set::one(b""));
            }
        }
        if let Some(any) = needs.into_any() {
            choices.push(any);
        }
    }
    // The run at the end is the last choice; when the concatenation is
    // one run, it is also what the whole matches, and is not copied.
    let run_is_choice = useful(&run);
    let best = choices
        .iter()
        .chain(run_is_choice.then_some(&run))
        .enumerate()
        .max_by_key(|(_, any)| (shortest(any), std::cmp::Reverse(any.len())))
        .map(|(i, _)| i);
    let any = match best {
        Some(i) if i < choices.len() => Any::Own(choices.swap_remove(i)),
        Some(_) if whole => Any::Exact,
        Some(_) => Any::Own(std::mem::take(&mut run)),
        None => Any::Nothing,
    };
    Needs {
        exact: whole.then_some(run),
        any,
    }
}

/// Each string of `run` followed by each of `set`, in that order (at most
/// [`MOST`] of them: the caller checks).
fn joined(run: &Set, set: &Set) -> Set {
    let mut out = Set {
        bytes: Vec::with_capacity(run.bytes.len() * set.len() + set.bytes.len() * run.len()),
        ..Set::default()
    };
    for before in run.iter() {
        for s in set.iter() {
            out.push_parts(before, s);
        }
    }
    out
}

fn shortest(any: &Set) -> usize {
    any.iter().map(<[u8]>::len).min().unwrap_or(0)
}

/// `bytes` lower-cased, when they are ASCII and hold no NUL (the table
/// separates the literals with it).
fn ascii(bytes: &[u8]) -> Option<Set> {
    if !bytes.iter().all(|&b| b.is_ascii() && b != 0) {
        return None;
    }
    let mut set = Set::one(bytes);
    set.bytes.make_ascii_lowercase();
    Some(set)
}

/// The bytes, lower-cased, that the class matches in ASCII text
/// (`[hH]`, `[kK\u{212A}]`, `\.`, `[pousr]`), when they are a few (at
/// most [`FEW`]): a set of one-byte strings.
fn few_letters(class: &Class) -> Option<Set> {
    let mut found = Set::default();
    // Past 0x7f, nothing matches in ASCII text.
    let mut add = |from: u32, to: u32| {
        for c in from..=to.min(0x7f) {
            let lower = u8::try_from(c).ok()?.to_ascii_lowercase();
            if !found.contains(&[lower]) {
                found.push(&[lower]);
            }
            if found.len() > FEW {
                return None;
            }
        }
        Some(())
    };
    match class {
        Class::Unicode(class) => class
            .iter()
            .try_for_each(|r| add(u32::from(r.start()), u32::from(r.end())))?,
        Class::Bytes(class) => class
            .iter()
            .try_for_each(|r| add(u32::from(r.start()), u32::from(r.end())))?,
    }
    (!found.is_empty() && !found.contains(&[0])).then_some(found)
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
    fn a_class_of_a_few_letters_makes_as_many_strings() {
        assert_eq!(
            strings("AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9]{22}_|-----BEGIN [A-Z ]*PRIVATE KEY-----"),
            ["akia", "gho_", "ghp_", "ghr_", "ghs_", "ghu_", "github_pat_", "private key-----"]
        );
        assert_eq!(strings("(?i)rm -[rf]{2}"), ["rm -"]);
        assert_eq!(
            strings("x(ab|cd)(ef|gh)y"),
            ["xabefy", "xabghy", "xcdefy", "xcdghy"]
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

    fn pattern() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let leaf = proptest::sample::select(vec![
            "a", "b", "abc", "bca", "[ab]", "[a-c]", ".", "\\.", "A", "(?i:abc)", "(?i)kab", "^",
            "$", "\\b", "[^a]", "\u{212A}", "",
        ])
        .prop_map(str::to_string);
        leaf.prop_recursive(4, 24, 3, |inner| {
            prop_oneof![
                (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a}{b}")),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a}|{b})")),
                (inner.clone(), 0..5usize).prop_map(|(a, op)| {
                    format!("({a}){}", ["*", "+", "?", "{2}", "{1,3}"][op])
                }),
            ]
        })
    }

    proptest::proptest! {
        /// A text that matches holds one of what the regex needs: the
        /// literals never turn a match away.
        #[test]
        fn a_match_always_holds_a_needed_literal(
            pattern in pattern(),
            text in "(abc|ABC|aBc|kab|KAB|[abckABCK. \\u{212A}]){0,8}",
        ) {
            let Ok(regex) = regex::Regex::new(&pattern) else {
                return Ok(());
            };
            if regex.is_match(&text) {
                let needs = needs(&pattern).join("\0");
                proptest::prop_assert!(
                    crate::table::regexes::may_match(needs.as_bytes(), text.as_bytes()),
                    "{pattern} matches {text:?} but needs {needs:?}"
                );
            }
        }
    }
}
