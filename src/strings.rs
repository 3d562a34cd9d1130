//! The shortest strings in an intersection of regular languages.
//!
//! A [`Lang`] is a set of whole strings: those a regex matches somewhere
//! in ([`Lang::matching`]), those with a prefix, suffix or substring, and
//! the complement of any of these. [`shortest`] builds one anchored dense
//! DFA per language and searches their product breadth first from the
//! start states, a byte at a time, so the strings it finds are the
//! shortest in every wanted language and in none of the unwanted ones.
//! Every string found is valid UTF-8: the product includes the language
//! of all valid UTF-8 strings.
//!
//! When the search ends without a string and it saw every state (no DFA
//! gave up on a byte, no limit was reached), the intersection is empty:
//! [`Search::Empty`] is a proof, not a guess.

/* Design notes.

A regex `r` of a rule matches a field when it matches anywhere in it; as
a language of whole strings that is `\A(?su:.)*(?:r)(?su:.)*\z`, where an
`^` or `$` inside `r` still means the start or end of the whole string. The
DFAs are built with `MatchKind::All` and an anchored start, so a DFA state
after the string and the end-of-input transition is a match state exactly
when the whole string is in the language.

A regex with a Unicode word boundary cannot be a DFA; it is built with
the heuristic that makes such a DFA give up (a quit state) on non-ASCII
bytes, and the search does not follow a byte into a quit state: the
strings it finds are then ASCII, and an empty answer is no proof.

A regex whose language makes too large a DFA (counted repetitions behind
the unanchored prefix, large Unicode classes) is built again as a subset
of it: with ASCII classes, then (when the language is wanted) as the
strings that start with a match, `\A(?:r)(?su:.)*\z`. Strings found are
then still in the language (for an unwanted one built with ASCII classes,
maybe not outside it: the caller checks), and an empty answer is no proof.

Bytes are tried in an order that makes readable strings (lowercase
letters, digits, uppercase letters, common punctuation, then the rest), and
a state tuple is followed along at most a couple more paths than strings
are wanted, so that the strings found differ where they can.
*/

use regex_automata::dfa::{dense, Automaton, StartKind};
use regex_automata::util::primitives::StateID;
use regex_automata::util::start;
use regex_automata::{Anchored, MatchKind};
use std::collections::{HashMap, VecDeque};
use std::rc::Rc;

/// The most paths a search follows before it gives up, unless its
/// [`Automata`] says otherwise.
const STATE_LIMIT: usize = 50_000;

/// How many more paths than strings wanted a state tuple is followed along
/// (strings `keep` rejects take some).
const PATHS_SPARE: usize = 2;

/// The most bytes of heap one language's DFA may take.
const DFA_SIZE_LIMIT: usize = 1 << 20;

/// A set of whole strings, as a regex that must match all of a string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lang {
    /// The regex, matched against the whole string.
    whole: String,
    /// For [`Lang::matching`], the strings that start with a match: a
    /// subset, whose DFA may be far smaller (no unanchored prefix).
    anchored: Option<String>,
    /// True for the complement: the strings the regex does not match.
    negated: bool,
}

impl Lang {
    /// Every string (of valid UTF-8).
    pub fn any() -> Lang {
        Lang::whole(r"(?su:.)*")
    }

    /// The strings `regex` (regex crate syntax, flags inline) matches
    /// somewhere in.
    pub fn matching(regex: &str) -> Lang {
        Lang {
            anchored: Some(format!(r"\A(?:{regex})(?su:.)*\z")),
            ..Lang::whole(&format!(r"(?su:.)*(?:{regex})(?su:.)*"))
        }
    }

    /// The strings that contain `needle`.
    pub fn containing(needle: &str) -> Lang {
        Lang::containing_any(&[needle])
    }

    /// The strings that contain one of `needles` (none when there are none).
    pub fn containing_any(needles: &[&str]) -> Lang {
        if needles.is_empty() {
            return Lang::whole(r"[^\s\S]");
        }
        let alternatives: Vec<String> = needles.iter().map(|n| regex_syntax::escape(n)).collect();
        Lang::whole(&format!(r"(?su:.)*(?:{})(?su:.)*", alternatives.join("|")))
    }

    /// The strings that start with `prefix`.
    pub fn starting_with(prefix: &str) -> Lang {
        Lang::whole(&format!(r"{}(?su:.)*", regex_syntax::escape(prefix)))
    }

    /// The strings that end with `suffix`.
    pub fn ending_with(suffix: &str) -> Lang {
        Lang::whole(&format!(r"(?su:.)*{}", regex_syntax::escape(suffix)))
    }

    /// The strings not in this language.
    pub fn complement(self) -> Lang {
        Lang {
            negated: !self.negated,
            ..self
        }
    }

    fn whole(regex: &str) -> Lang {
        Lang {
            whole: format!(r"\A(?:{regex})\z"),
            anchored: None,
            negated: false,
        }
    }
}

/// A string `regex` probably matches, spelled from its syntax tree
/// without an automaton: each literal as written, each class's first
/// character, each repetition its fewest times, each alternation its
/// first branch; assertions (`^`, `$`, `\b`) are passed over, so the
/// caller checks the string with the regex itself. `None` when the regex
/// does not parse, or asks for more than [`GUESS_LIMIT`] bytes, or a
/// class holds only bytes that are not UTF-8.
///
/// For the string lints: a string two tests both hold on, found this
/// way, answers "they can hold together" at about a twentieth of the
/// cost of the product of their DFAs (measured on the compile bench's
/// regexes; most of it is compiling the regexes that check the string).
pub fn guess_match(regex: &str) -> Option<String> {
    let hir = regex_syntax::parse(regex).ok()?;
    let mut out = String::new();
    spell_shortest(&hir, &mut out)?;
    Some(out)
}

/// The most bytes [`guess_match`] spells.
pub const GUESS_LIMIT: usize = 4096;

fn spell_shortest(hir: &regex_syntax::hir::Hir, out: &mut String) -> Option<()> {
    use regex_syntax::hir::{Class, HirKind};
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => {}
        HirKind::Literal(literal) => out.push_str(std::str::from_utf8(&literal.0).ok()?),
        HirKind::Class(Class::Unicode(class)) => out.push(class.ranges().first()?.start()),
        HirKind::Class(Class::Bytes(class)) => {
            let byte = class.ranges().first()?.start();
            out.push(char::from(byte.is_ascii().then_some(byte)?));
        }
        HirKind::Repetition(repetition) if repetition.min > 0 => {
            // Spelled once, then repeated: a count in the billions of
            // an empty part (`(?:\b){4000000000}`) costs no loop.
            let mut once = String::new();
            spell_shortest(&repetition.sub, &mut once)?;
            let times = usize::try_from(repetition.min).ok()?;
            if once.len().checked_mul(times)? > GUESS_LIMIT {
                return None;
            }
            out.push_str(&once.repeat(times));
        }
        HirKind::Repetition(_) => {}
        HirKind::Capture(capture) => spell_shortest(&capture.sub, out)?,
        HirKind::Concat(parts) => {
            for part in parts {
                spell_shortest(part, out)?;
            }
        }
        HirKind::Alternation(branches) => spell_shortest(branches.first()?, out)?,
    }
    (out.len() <= GUESS_LIMIT).then_some(())
}

/// What a search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Search {
    /// Strings in every language, shortest first (at least one).
    Found(Vec<String>),
    /// No string is in every language: the whole product was searched.
    Empty,
    /// No string was found, and the search cannot say that none exists;
    /// the reason.
    GaveUp(String),
}

/// Up to `want` of the shortest strings in all of `langs` (and in the
/// language of valid UTF-8 strings) for which `keep` holds, shortest
/// first. `Empty` only when `keep` held for every string it was asked
/// about and none is in all of `langs`.
pub fn shortest(
    automata: &mut Automata,
    langs: &[Lang],
    want: usize,
    keep: impl Fn(&str) -> bool,
) -> Search {
    match product(automata, langs, want, &keep, false) {
        // The product of whole languages can have too many states to walk
        // (`.*a.{n}` tracks every start of `a` in the last n bytes); the
        // strings that start with a match of each wanted regex make a
        // smaller one, whose strings are still in the languages.
        (Search::GaveUp(why), true) if langs.iter().any(|l| l.anchored.is_some() && !l.negated) => {
            match product(automata, langs, want, &keep, true) {
                (Search::Found(found), _) => Search::Found(found),
                _ => Search::GaveUp(why),
            }
        }
        (search, _) => search,
    }
}

/// The search of [`shortest`], with the wanted languages that have an
/// anchored subset built as that subset first when `anchored_first`; and
/// whether it stopped at the path limit.
fn product(
    automata: &mut Automata,
    langs: &[Lang],
    want: usize,
    keep: &impl Fn(&str) -> bool,
    anchored_first: bool,
) -> (Search, bool) {
    let mut all = vec![Lang::any()];
    all.extend(langs.iter().cloned());
    let mut dfas = Vec::with_capacity(all.len());
    // True when a language was built as an ASCII subset of itself.
    let mut narrowed = false;
    for lang in &all {
        // The language, then subsets of it (of a wanted one only: a subset
        // of an unwanted one is a superset of what is wanted).
        let mut attempts = vec![(lang.whole.as_str(), true), (lang.whole.as_str(), false)];
        if let (Some(anchored), false) = (&lang.anchored, lang.negated) {
            let subset = [(anchored.as_str(), true), (anchored.as_str(), false)];
            if anchored_first {
                attempts.splice(0..0, subset);
            } else {
                attempts.extend(subset);
            }
        }
        let mut built = Err(String::new());
        for (i, (regex, unicode)) in attempts.into_iter().enumerate() {
            match automata.build(regex, unicode) {
                Ok(dfa) => {
                    narrowed |= i > 0 || anchored_first && lang.anchored.is_some() && !lang.negated;
                    built = Ok(dfa);
                    break;
                }
                Err(e) if i == 0 => built = Err(e),
                Err(_) => {}
            }
        }
        match built {
            Ok(dfa) => dfas.push((dfa, lang.negated)),
            Err(reason) => return (Search::GaveUp(reason), false),
        }
    }
    let mut starts = Vec::with_capacity(dfas.len());
    for (dfa, _) in &dfas {
        match dfa.start_state(&start::Config::new().anchored(Anchored::Yes)) {
            Ok(id) => starts.push(id),
            Err(e) => {
                return (
                    Search::GaveUp(format!("a DFA has no start state: {e}")),
                    false,
                )
            }
        }
    }

    // Every tuple of states reached, numbered once, with how many paths
    // to it are followed: those whose string is accepted and `keep`
    // rejects, and the others, counted apart so that rejected strings
    // (and their extensions) do not crowd out a wanted one reaching the
    // same tuple (two branches of an alternation end in one state after
    // their match). The queue and each step hold tuple numbers, so a tuple
    // is copied once, when first reached. Each path: its parent's index
    // and the byte that led to it.
    let mut tuples = Tuples::new(dfas.len());
    let mut trail: Vec<(usize, u8)> = Vec::new();
    let mut queue: VecDeque<(usize, usize)> = VecDeque::new();
    let accepting = |states: &[StateID]| {
        dfas.iter()
            .zip(states)
            .all(|((dfa, negated), &id)| dfa.is_match_state(dfa.next_eoi_state(id)) != *negated)
    };
    let start = tuples.number(&starts);
    if let Some(counts) = tuples.counts.get_mut(start) {
        *counts = [1, 0];
    }
    trail.push((usize::MAX, 0));
    queue.push_back((start, 0));

    // Bytes that every DFA puts in one class lead to one tuple: the
    // search computes each step once per class, and tries at most `2 *
    // cap` bytes of a class (two counts of `cap` paths each).
    let cap = want + PATHS_SPARE;
    let mut classes: Vec<Vec<u8>> = Vec::new();
    let mut class_of: HashMap<Vec<u8>, usize, Fast> = HashMap::default();
    let mut ranked: Vec<(u8, usize)> = Vec::new();
    for byte in byte_order() {
        let key: Vec<u8> = dfas
            .iter()
            .map(|(dfa, _)| dfa.byte_classes().get(byte))
            .collect();
        let class = *class_of.entry(key).or_insert_with(|| {
            classes.push(Vec::new());
            classes.len() - 1
        });
        if let Some(bytes) = classes.get_mut(class) {
            if bytes.len() < 2 * cap {
                bytes.push(byte);
                ranked.push((byte, class));
            }
        }
    }
    // Reused at every step: the states of the tuple being left, the
    // tuple each class leads to, and the tuple a class leads to, built in
    // place.
    let mut states: Vec<StateID> = Vec::with_capacity(dfas.len());
    let mut slots: Vec<Option<usize>> = Vec::with_capacity(classes.len());
    let mut step: Vec<StateID> = Vec::with_capacity(dfas.len());
    let mut found = Vec::new();
    let mut rejected = false;
    let mut partial = false;
    while let Some((from, at)) = queue.pop_front() {
        states.clear();
        states.extend_from_slice(tuples.states(from));
        if accepting(&states) {
            if let Some(text) = spell(&trail, at) {
                if keep(&text) {
                    found.push(text);
                    if found.len() >= want {
                        return (Search::Found(found), false);
                    }
                } else {
                    rejected = true;
                }
            }
        }
        // Per class, the tuple its bytes lead to (`None`: a dead end);
        // classes that lead to one tuple share its counts.
        slots.clear();
        for class in &classes {
            let Some(&byte) = class.first() else {
                slots.push(None);
                continue;
            };
            step.clear();
            let mut alive = true;
            for ((dfa, negated), &id) in dfas.iter().zip(&states) {
                let to = dfa.next_state(id, byte);
                if dfa.is_quit_state(to) {
                    partial = true;
                    alive = false;
                    break;
                }
                if dfa.is_dead_state(to) && !negated {
                    alive = false;
                    break;
                }
                step.push(to);
            }
            slots.push(alive.then(|| tuples.number(&step)));
        }
        // Then the bytes, in the readable order.
        for &(byte, class) in &ranked {
            let Some(&Some(next)) = slots.get(class) else {
                continue;
            };
            let Some(counts) = tuples.counts.get(next) else {
                continue;
            };
            if counts.iter().all(|&n| n >= cap) {
                continue;
            }
            if trail.len() >= automata.path_limit() {
                return if found.is_empty() {
                    let why = format!(
                        "the search of the regexes' product passed {} steps",
                        automata.path_limit()
                    );
                    (Search::GaveUp(why), true)
                } else {
                    (Search::Found(found), false)
                };
            }
            trail.push((at, byte));
            let path = trail.len() - 1;
            let kind = usize::from(
                accepting(tuples.states(next)) && spell(&trail, path).is_some_and(|t| !keep(&t)),
            );
            match tuples.counts.get_mut(next).and_then(|c| c.get_mut(kind)) {
                Some(n) if *n < cap => {
                    *n += 1;
                    queue.push_back((next, path));
                }
                _ => {
                    trail.pop();
                }
            }
        }
    }
    let search = if !found.is_empty() {
        Search::Found(found)
    } else if partial {
        Search::GaveUp("a regex uses a Unicode word boundary, searched over ASCII only".to_string())
    } else if narrowed {
        Search::GaveUp(
            "a regex is too large a DFA, searched in a smaller subset of its language".to_string(),
        )
    } else if rejected {
        Search::GaveUp("no string found passes the other conditions".to_string())
    } else {
        Search::Empty
    };
    (search, false)
}

/// The tuples of DFA states a product search reaches, each numbered once
/// and stored once, in one run of states, with the paths to it counted.
struct Tuples {
    /// States per tuple: one per DFA.
    width: usize,
    /// Tuple `i`'s states are `states[i * width..][..width]`.
    states: Vec<StateID>,
    /// Each tuple's number.
    numbers: HashMap<Vec<StateID>, usize, Fast>,
    /// Per tuple, the paths to it followed: those whose string is
    /// accepted and rejected, and the others.
    counts: Vec<[usize; 2]>,
}

impl Tuples {
    fn new(width: usize) -> Tuples {
        Tuples {
            width,
            states: Vec::new(),
            numbers: HashMap::default(),
            counts: Vec::new(),
        }
    }

    /// The number of the tuple `states`, given when first seen.
    fn number(&mut self, states: &[StateID]) -> usize {
        if let Some(&n) = self.numbers.get(states) {
            return n;
        }
        let n = self.counts.len();
        self.states.extend_from_slice(states);
        self.numbers.insert(states.to_vec(), n);
        self.counts.push([0, 0]);
        n
    }

    /// Tuple `n`'s states.
    fn states(&self, n: usize) -> &[StateID] {
        self.states
            .get(n * self.width..(n + 1) * self.width)
            .unwrap_or(&[])
    }
}

/// An unkeyed fast hasher for the compiler's own tables: the search's
/// tables of state tuples are hashed at every step (with the default,
/// keyed hasher, a third of a large policy's `unreachable-rule` lint).
/// Their keys come from the policy being compiled, which its author has no
/// reason to make collide.
pub(crate) type Fast = std::hash::BuildHasherDefault<FastHasher>;

/// The hasher of [`Fast`], for digests the compiler buckets values by and
/// then compares them (atoms, Unicode classes). Not for a digest that
/// stands for its value unchecked: it trades mixing for speed, and short
/// keys collide (`f3` and `f23` as field paths, 9 of the names `l0` to
/// `l9999`), so `unreachable-rule`'s keys keep the default hasher.
pub(crate) type FastHasher = rapidhash::fast::RapidHasher<'static>;

/// The DFAs built so far, by regex and class mode (and the reasons of
/// those that could not be): the searches of one analysis ask about the
/// same languages again and again (a diff negates each condition next to
/// several others), and a DFA near the size limit takes long to build.
#[derive(Debug, Default)]
pub struct Automata {
    built: HashMap<(String, bool), Result<Rc<Dfa>, String>, Fast>,
    /// The most paths one search follows; `None`: [`STATE_LIMIT`].
    limit: Option<usize>,
    /// The most bytes of heap one DFA may take; `None`: [`DFA_SIZE_LIMIT`].
    size: Option<usize>,
}

/// A DFA a search walks.
type Dfa = dense::DFA<Vec<u32>>;

impl Automata {
    /// Automata whose searches follow at most `paths` paths each, over
    /// DFAs of at most `dfa_bytes` each: a lint that asks many questions
    /// at compile time gives up sooner than a command that asks a few.
    pub fn with_limits(paths: usize, dfa_bytes: usize) -> Automata {
        Automata {
            built: HashMap::default(),
            limit: Some(paths),
            size: Some(dfa_bytes),
        }
    }

    fn path_limit(&self) -> usize {
        self.limit.unwrap_or(STATE_LIMIT)
    }

    /// The DFA of `regex` ([`build`]), built once.
    fn build(&mut self, regex: &str, unicode: bool) -> Result<Rc<Dfa>, String> {
        self.built
            .entry((regex.to_string(), unicode))
            .or_insert_with(|| {
                build(regex, unicode, self.size.unwrap_or(DFA_SIZE_LIMIT)).map(Rc::new)
            })
            .clone()
    }
}

/// The anchored DFA of a whole-string regex; with `unicode` off, its
/// classes (`\w`, `\d`, case folding) are ASCII (the wrappers' `.` stays
/// Unicode, so the strings are still valid UTF-8).
fn build(regex: &str, unicode: bool, size: usize) -> Result<dense::DFA<Vec<u32>>, String> {
    dense::Builder::new()
        .syntax(regex_automata::util::syntax::Config::new().unicode(unicode))
        .configure(
            dense::Config::new()
                .match_kind(MatchKind::All)
                .start_kind(StartKind::Anchored)
                .unicode_word_boundary(true)
                .dfa_size_limit(Some(size))
                .determinize_size_limit(Some(size)),
        )
        .build(regex)
        .map_err(|e| format!("cannot build a DFA for a regex: {e}"))
}

/// The bytes of the path to `at`, as text.
fn spell(trail: &[(usize, u8)], mut at: usize) -> Option<String> {
    let mut bytes = Vec::new();
    while let Some(&(parent, byte)) = trail.get(at) {
        if parent == usize::MAX {
            break;
        }
        bytes.push(byte);
        at = parent;
    }
    bytes.reverse();
    String::from_utf8(bytes).ok()
}

/// Every byte once, readable ones first.
fn byte_order() -> Vec<u8> {
    let mut order: Vec<u8> = Vec::with_capacity(256);
    order.extend(b'a'..=b'z');
    order.extend(b'0'..=b'9');
    order.extend(b'A'..=b'Z');
    order.extend(b"_-./ ");
    order.extend(0x21..=0x7e);
    order.extend(0..=255);
    let mut seen = [false; 256];
    order.retain(|&b| {
        seen.get_mut(usize::from(b))
            .is_some_and(|s| !std::mem::replace(s, true))
    });
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first(langs: &[Lang]) -> Search {
        up_to(langs, 1)
    }

    /// Up to `most` of the shortest strings in every language of `langs`.
    fn up_to(langs: &[Lang], most: usize) -> Search {
        shortest(&mut Automata::default(), langs, most, |_| true)
    }

    fn found(text: &str) -> Search {
        Search::Found(vec![text.to_string()])
    }

    /// A guessed string is spelled from the regex's parts; the regex
    /// matches it when no assertion stands in the way, and the search of
    /// its automaton finds a string of the same length.
    #[test]
    fn a_guessed_match_is_spelled_from_the_regex() {
        for (regex, guessed) in [
            ("abc", "abc"),
            (r"rm\s+-rf\s+/srv/data42\b", "rm\t-rf\t/srv/data42"),
            ("a+b{2,}", "abb"),
            ("x?", ""),
            (r"^\d{3}$", "000"),
            ("(?i)HELLO", "HELLO"),
            ("(?:curl|wget) -s", "curl -s"),
            (r"scp\s+\S+\s+backup7@[a-z0-9.]+:", "scp\t\0\tbackup7@.:"),
            ("(?-u:[a-f])x", "ax"),
        ] {
            let spelled = guess_match(regex);
            assert_eq!(spelled.as_deref(), Some(guessed), "{regex}");
            assert!(
                regex::Regex::new(regex).unwrap().is_match(guessed),
                "{regex}"
            );
            let Search::Found(found) = first(&[Lang::matching(regex)]) else {
                panic!("{regex}: no shortest string");
            };
            assert_eq!(found[0].len(), guessed.len(), "{regex}");
        }
        // An assertion the spelling passes over: the caller's check fails.
        let spelled = guess_match(r"a\bb").unwrap();
        assert_eq!(spelled, "ab");
        assert!(!regex::Regex::new(r"a\bb").unwrap().is_match(&spelled));
        // Too long, not a regex, a byte class of no ASCII byte.
        assert_eq!(guess_match("a{5000}"), None);
        assert_eq!(guess_match("(a{100}){100}"), None);
        // A count in the billions: no loop that long, and an answer.
        assert_eq!(guess_match(r"a(?:\b){4000000000}").as_deref(), Some("a"));
        assert_eq!(guess_match("(?:a{0}){4000000000}b").as_deref(), Some("b"));
        assert_eq!(guess_match("a{4000000000}"), None);
        assert_eq!(guess_match("(unclosed"), None);
        assert_eq!(guess_match(r"(?-u:\xff)"), None);
        assert_eq!(guess_match("[^\\s\\S]"), None, "an empty class");
    }

    #[test]
    fn the_shortest_match_of_one_regex() {
        assert_eq!(first(&[Lang::matching("abc")]), found("abc"));
        assert_eq!(first(&[Lang::matching(r"rm\s+-rf")]), found("rm -rf"));
        assert_eq!(first(&[Lang::matching("a+b{2,}")]), found("abb"));
        assert_eq!(first(&[Lang::matching("x?")]), found(""));
        assert_eq!(first(&[Lang::matching(r"^\d{3}$")]), found("000"));
        assert_eq!(first(&[Lang::matching("(?i)HELLO")]), found("hello"));
    }

    #[test]
    fn strings_are_valid_utf8() {
        assert_eq!(first(&[Lang::matching("é")]), found("é"));
        let Search::Found(greek) = first(&[Lang::matching(r"^\p{Greek}$")]) else {
            panic!("no string");
        };
        assert!(greek
            .iter()
            .all(|t| t.chars().count() == 1 && !t.is_ascii()));
        let Search::Found(texts) = up_to(&[Lang::matching("[^a-z]")], 5) else {
            panic!("no string");
        };
        assert!(texts.iter().all(|t| t.chars().count() == 1));
    }

    #[test]
    fn languages_intersect() {
        let langs = [
            Lang::starting_with("git "),
            Lang::matching("push"),
            Lang::ending_with("--force"),
        ];
        assert_eq!(first(&langs), found("git push--force"));
        let overlapping = [Lang::starting_with("ab"), Lang::ending_with("bc")];
        assert_eq!(first(&overlapping), found("abc"));
        let literal = [Lang::containing("a.b"), Lang::matching("^a")];
        assert_eq!(first(&literal), found("a.b"));
    }

    #[test]
    fn complements_are_respected() {
        let langs = [Lang::matching("^a"), Lang::containing("a").complement()];
        assert_eq!(first(&langs), Search::Empty);
        let langs = [Lang::matching("^[ab]$"), Lang::matching("a").complement()];
        assert_eq!(first(&langs), found("b"));
        assert_eq!(first(&[Lang::any().complement()]), Search::Empty);
    }

    #[test]
    fn empty_intersections_are_proven() {
        assert_eq!(
            first(&[Lang::matching(r"^\d+$"), Lang::matching("[a-z]")]),
            Search::Empty
        );
        assert_eq!(
            first(&[Lang::starting_with("a"), Lang::starting_with("b")]),
            Search::Empty
        );
        assert_eq!(first(&[Lang::containing_any(&[])]), Search::Empty);
    }

    #[test]
    fn keep_filters_and_an_empty_answer_is_then_no_proof() {
        let langs = [Lang::matching("^(a|b)$")];
        assert_eq!(
            shortest(&mut Automata::default(), &langs, 1, |t| t != "a"),
            found("b")
        );
        assert!(matches!(
            shortest(&mut Automata::default(), &langs, 1, |_| false),
            Search::GaveUp(_)
        ));
    }

    #[test]
    fn word_boundaries_search_ascii_only() {
        assert_eq!(first(&[Lang::matching(r"\bcat\b")]), found("cat"));
        assert!(matches!(
            first(&[
                Lang::matching(r"\bcat\b"),
                Lang::matching("[a-z]").complement()
            ]),
            Search::GaveUp(_)
        ));
    }

    #[test]
    fn a_regex_too_large_for_a_dfa_is_searched_in_a_subset() {
        let secret = r"AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9]{22}_";
        assert_eq!(
            first(&[Lang::matching(secret)]),
            found("AKIA0000000000000000")
        );
        assert!(matches!(
            first(&[Lang::matching(secret), Lang::matching("^x")]),
            Search::GaveUp(_)
        ));
    }

    #[test]
    fn more_than_one_string() {
        let Search::Found(texts) = up_to(&[Lang::matching("^[xy]z?$")], 4) else {
            panic!("no string");
        };
        assert_eq!(texts, ["x", "y", "xz", "yz"]);
    }

    #[test]
    fn escapes_are_literal() {
        for text in ["a.b", "(x)", "[^]", "$1", r"\d", "a-b", "#~&"] {
            assert_eq!(first(&[Lang::containing(text)]), found(text), "{text}");
        }
    }
}
#[cfg(test)]
mod rejected_paths {
    use super::*;

    /// Strings `keep` rejects share the state after a match with the
    /// other branch of the alternation: they must not crowd it out.
    #[test]
    fn strings_keep_rejects_leave_room_for_the_other_branch() {
        let lang = Lang::matching("AKIA[0-9A-Z]{16}|ghp_[A-Za-z0-9]{36}");
        let found = shortest(&mut Automata::default(), &[lang], 2, |t| {
            !t.contains("AKIA")
        });
        let Search::Found(texts) = found else {
            panic!("{found:?}");
        };
        assert!(
            texts.iter().all(|t| t.starts_with("ghp_") && t.len() == 40),
            "{texts:?}"
        );
    }
}
