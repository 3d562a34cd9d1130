//! Regexes matched one at a time, and the budget that bounds them.
//!
//! Most `matches` atoms are decided by the per-field DFAs in one pass over
//! the field. The rest are matched on their own: regexes whose DFA would be
//! too large (long counted repetitions such as `\w{100}`), those that a
//! field's literal prefilter hands over, and all of a field's regexes when
//! its DFA cannot handle the text (a Unicode word boundary on non-ASCII
//! text). This module is the home of that matching, [`LazyRegexes`], and of
//! its bound, [`RegexBudget`].
//!
//! # How a regex is matched
//!
//! Each regex is compiled on first use into a Thompson NFA and a lazy DFA
//! over it (regex-automata's `hybrid`). A match runs
//! the lazy DFA first: it is linear in the text, building its states as it
//! goes, and it gives up instead of thrashing: once its cache has been
//! cleared three times, it stops when it built a state for fewer than
//! `max(10, states / 16)` bytes of text since the last clear, so building
//! states costs at most about 16 NFA steps per byte. It also stops at the
//! first non-ASCII byte when the regex has a Unicode word boundary (`\b`).
//! Then a Pike VM (an NFA simulation) decides, and it is the costly
//! engine: at each byte of the text it visits each NFA state that is
//! active, up to all of them, so its cost is up to **states × bytes**
//! steps. The number of states is the regex's worst-case *cost per byte*
//! (the `regex-cost` lint reports it). The Pike VM here counts its steps
//! (one per state visited at each position) as it goes.
//!
//! # The budget
//!
//! A dispatch may spend at most its [`RegexBudget`] (by default
//! [`RegexBudget::DEFAULT`], 2^25 steps) in the Pike VM, over all its
//! regexes: a match that would go past what is left stops there, and its
//! atom *fails* (so do the Pike VM matches after it). A
//! failed atom makes the rule's condition unknown (unless the condition is
//! decided without it, as `false and x` is), and the rule's failure mode
//! decides, as for a failed effect: under `fail open` (the default) the
//! rule does not fire and the dispatch gets a warning that names the regex,
//! the field and the budget; under `fail closed` the chain ends with an
//! abort whose reason says the same. The budget counts steps, not time, so
//! a slow or busy machine does not change an outcome. It is set per
//! [`Scratch`](crate::Scratch), which a host keeps
//! per thread: [`Scratch::set_regex_budget`](crate::Scratch::set_regex_budget).
//!
//! The lazy DFA's own work is not counted: it is linear in the text (about
//! one transition per byte, plus the bounded state building above).

use super::layout::program::ProgramLayout;
use super::layout::ByteList;
use regex::Regex;
use regex_automata::hybrid;
use regex_automata::nfa::thompson::{self, State, WhichCaptures, NFA};
use regex_automata::util::pool::Pool;
use regex_automata::util::prefilter::Prefilter;
use regex_automata::util::primitives::StateID;
use regex_automata::util::syntax;
use regex_automata::{Input, MatchErrorKind, MatchKind};
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// The most Pike VM steps one dispatch may spend on regexes the lazy DFA
/// could not decide.
///
/// Regexes matched one at a time (those too large for their field's DFA,
/// and all of a field's regexes when its DFA meets a Unicode `\b` on
/// non-ASCII text) run first on a lazy DFA, linear in the text, which
/// gives up rather than thrash, and stops at non-ASCII text when the regex
/// has a Unicode `\b`. A Pike VM then decides, at one step per active NFA
/// state per byte (at most the regex's NFA states per byte). A match that
/// would take the dispatch past its budget stops, and its atom is unknown:
/// a condition that depends on it fails through the rule's failure mode
/// (`fail open`: the rule does not apply, with a warning; `fail closed`:
/// the chain aborts). Set it with
/// [`Scratch::set_regex_budget`](crate::Scratch::set_regex_budget).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RegexBudget(pub u64);

impl RegexBudget {
    /// 2^25 = 33,554,432 steps. A step took about 10 ns on the machine of
    /// `BENCHMARKS.md`, so this is about a third of a second of Pike VM
    /// work per dispatch; a regex such as `\bpassword\b` takes about 3
    /// steps per byte of non-ASCII text, so ten of them fit on a 1 MiB
    /// field.
    pub const DEFAULT: RegexBudget = RegexBudget(1 << 25);

    /// No limit: regexes are always matched, however long it takes.
    pub const UNLIMITED: RegexBudget = RegexBudget(u64::MAX);
}

impl Default for RegexBudget {
    fn default() -> Self {
        RegexBudget::DEFAULT
    }
}

/// A regex the budget could not pay for: the Pike VM had to decide it,
/// and took all the `left` steps of the dispatch's `budget` without
/// finishing (it may take up to `states × bytes`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegexOverrun {
    /// The regex, by its index in the table's regexes.
    pub regex: u32,
    /// The states of its NFA: its worst-case cost per byte.
    pub states: u64,
    /// The length of the text, in bytes.
    pub bytes: u64,
    /// What was left of the budget.
    pub left: u64,
    /// The dispatch's budget.
    pub budget: u64,
}

impl RegexOverrun {
    /// The steps the match could have taken.
    pub fn needed(&self) -> u64 {
        self.states.saturating_mul(self.bytes)
    }
}

impl fmt::Display for RegexOverrun {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the regex budget is spent: matching took more than the {} steps left of the dispatch's {}-step regex budget (it may take up to {} NFA states × {} bytes)",
            self.left, self.budget, self.states, self.bytes
        )
    }
}

/// What one dispatch has spent of its budget. (An atomic counter, though
/// one thread uses it, so that a [`Scratch`](crate::Scratch) stays `Sync`.)
#[derive(Debug)]
pub(crate) struct Budget {
    limit: u64,
    spent: AtomicU64,
}

impl Default for Budget {
    fn default() -> Budget {
        Budget::new(RegexBudget::DEFAULT)
    }
}

impl Clone for Budget {
    fn clone(&self) -> Budget {
        Budget {
            limit: self.limit,
            spent: AtomicU64::new(self.spent.load(Ordering::Relaxed)),
        }
    }
}

impl Budget {
    /// A budget of `limit` steps, nothing spent.
    pub(crate) fn new(limit: RegexBudget) -> Budget {
        Budget {
            limit: limit.0,
            spent: AtomicU64::new(0),
        }
    }

    /// The limit.
    pub(crate) fn limit(&self) -> RegexBudget {
        RegexBudget(self.limit)
    }

    /// Sets the limit.
    pub(crate) fn set_limit(&mut self, limit: RegexBudget) {
        self.limit = limit.0;
    }

    /// Forgets what was spent: a new dispatch starts.
    pub(crate) fn restart(&mut self) {
        *self.spent.get_mut() = 0;
    }

    /// What is left.
    fn left(&self) -> u64 {
        self.limit
            .saturating_sub(self.spent.load(Ordering::Relaxed))
    }

    /// Spends `steps`.
    fn spend(&self, steps: u64) {
        let spent = self.spent.load(Ordering::Relaxed);
        self.spent
            .store(spent.saturating_add(steps), Ordering::Relaxed);
    }
}

/// The table's regexes and the budget of the current dispatch: what
/// evaluation needs to match a regex; and the shell views the dispatch has
/// computed, so that rules reading one command parse it once.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Matching<'a> {
    pub(crate) regexes: &'a LazyRegexes<'a>,
    /// The table's DFA sections, and per regex the one that decides it
    /// ([`Program::regex_dfas`](crate::ir::Program::regex_dfas)).
    pub(crate) dfas: &'a [super::LazyDfa<'a>],
    pub(crate) regex_dfas: &'a [u32],
    /// Per regex, the literals one of which every match contains
    /// ([`Program::regex_needs`](crate::ir::Program::regex_needs)).
    pub(crate) regex_needs: super::layout::Strings<'a>,
    pub(crate) budget: &'a Budget,
    pub(crate) views: &'a crate::shell::Views,
    /// What the host tells rules (`env(…)`, `relpath(…)`).
    pub(crate) host: &'a crate::event::HostFacts,
}

impl Matching<'_> {
    /// Whether regex `id` matches `text`, within the budget. A regex that
    /// does not compile matches nothing.
    pub(crate) fn is_match(&self, id: u32, text: &str) -> Result<bool, RegexOverrun> {
        // A text without what every match needs does not match: neither
        // the DFA section (validated on its first search) nor the regex
        // (compiled on first use) is read.
        if !self.may_match(id, text) {
            return Ok(false);
        }
        self.search(id, text)
    }

    /// [`is_match`](Self::is_match) of a text a field's literal search has
    /// just found the regex's required literal in: the needed literals are
    /// not looked for again before the search (on the dispatch that fires
    /// a rule, that second look cost about as much as the regex itself),
    /// only after a search the budget could not pay for, so the answer is
    /// the same as `is_match`'s. What it spends of the budget may be more:
    /// a text with the required literal and none of the needed ones (rare:
    /// the required literal is usually one of them) is searched, where
    /// `is_match` would not search it.
    pub(crate) fn is_match_found(&self, id: u32, text: &str) -> Result<bool, RegexOverrun> {
        match self.search(id, text) {
            Err(_) if !self.may_match(id, text) => Ok(false),
            found => found,
        }
    }

    /// Whether `text` has one of the literals every match of regex `id`
    /// needs (see [`may_match`]).
    fn may_match(&self, id: u32, text: &str) -> bool {
        may_match(self.regex_needs.get(id as usize), text.as_bytes())
    }

    /// Regex `id` run over `text`: its DFA section if it has one, else the
    /// regex's bounded engines.
    fn search(&self, id: u32, text: &str) -> Result<bool, RegexOverrun> {
        // A prebuilt DFA first: linear, and nothing to compile.
        let dfa = self
            .regex_dfas
            .get(id as usize)
            .and_then(|&d| self.dfas.get(d as usize))
            .and_then(|d| d.get(1).ok());
        if let Some(Ok(found)) = dfa.map(|d| d.is_match(text)) {
            return Ok(found);
        }
        match self.regexes.matcher(id as usize) {
            Some(m) => m.is_match(id, text, self.budget),
            None => Ok(false),
        }
    }

    /// [`is_match`](Self::is_match) without regard to case (a Windows
    /// path: see [`crate::paths`]).
    pub(crate) fn is_match_any_case(&self, id: u32, text: &str) -> Result<bool, RegexOverrun> {
        match self.regexes.matcher_any_case(id as usize) {
            Some(m) => m.is_match(id, text, self.budget),
            None => Ok(false),
        }
    }
}

/// Whether `text` may match a regex that `needs` the literals given
/// (lower-case ASCII, NUL-separated, looked for without regard to ASCII
/// case): always when it needs none, and for non-ASCII text, which the
/// literals do not speak for (`(?i)k` also matches `\u{212A}`).
pub(crate) fn may_match(needs: &[u8], text: &[u8]) -> bool {
    needs.is_empty()
        || !text.is_ascii()
        || needs
            .split(|&b| b == 0)
            .any(|literal| contains_any_case(text, literal))
}

/// Whether `text` contains `literal` (lower-case) in any ASCII case.
fn contains_any_case(text: &[u8], literal: &[u8]) -> bool {
    let Some((&first, rest)) = literal.split_first() else {
        return true;
    };
    memchr::memchr2_iter(first, first.to_ascii_uppercase(), text).any(|at| {
        text.get(at + 1..at + 1 + rest.len())
            .is_some_and(|after| after.eq_ignore_ascii_case(rest))
    })
}

/// The table's regexes, each compiled on first use: loading a table with
/// thousands of regexes must not compile them all, and most are decided by
/// the DFAs and literal prefilters without ever running. Their patterns
/// and flags are read in place from the program block.
#[derive(Debug)]
pub(crate) struct LazyRegexes<'a> {
    section: &'a [u32],
    patterns: ByteList,
    flags: ByteList,
    /// Each regex's compiled forms, made when a dispatch first needs one
    /// (and the cells themselves when a dispatch first needs a regex: a
    /// load allocates nothing per regex).
    cells: OnceLock<Box<[Compiled]>>,
}

/// The compiled forms of one regex, each made on first use.
#[derive(Debug, Default)]
struct Compiled {
    /// For `matches`: the bounded engines.
    matcher: OnceLock<Option<Box<Matcher>>>,
    /// The same, case-insensitive, for Windows paths; compiled only for a
    /// regex that meets one.
    any_case: OnceLock<Option<Box<Matcher>>>,
    /// For `rewrite`: the `regex` crate, which finds and replaces.
    rewriter: OnceLock<Option<Regex>>,
}

impl<'a> LazyRegexes<'a> {
    /// The regexes of a program block, none compiled yet.
    pub(crate) fn new(section: &'a [u32], program: &ProgramLayout<'_>) -> LazyRegexes<'a> {
        LazyRegexes {
            section,
            patterns: program.patterns.clone(),
            flags: program.flags.clone(),
            cells: OnceLock::new(),
        }
    }

    /// The compiled forms of regex `id`.
    fn compiled(&self, id: usize) -> Option<&Compiled> {
        self.cells
            .get_or_init(|| {
                std::iter::repeat_with(Compiled::default)
                    .take(self.patterns.len())
                    .collect()
            })
            .get(id)
    }

    /// Regex `id` as written: its pattern and flags (`None` when the
    /// table holds no text there: a regex that does not compile, which
    /// matches nothing).
    pub(crate) fn source(&self, id: usize) -> Option<(&'a str, &'a str)> {
        Some((
            self.patterns.text(self.section, id)?,
            self.flags.text(self.section, id)?,
        ))
    }

    /// Regex `id` with its flags folded in as an inline group, e.g. `(?i)abc`.
    fn inline(&self, id: usize) -> Option<String> {
        let (pattern, flags) = self.source(id)?;
        Some(if flags.is_empty() {
            pattern.to_string()
        } else {
            format!("(?{flags}){pattern}")
        })
    }

    /// Regex `id` for `rewrite`; `None` when there is none, or when it does
    /// not compile (the compiler checked it, so only a hand-made table gets
    /// here).
    pub(crate) fn get(&self, id: usize) -> Option<&Regex> {
        let cell = &self.compiled(id)?.rewriter;
        cell.get_or_init(|| {
            let source = self.inline(id)?;
            regex::RegexBuilder::new(&source)
                .size_limit(crate::table::REGEX_SIZE_LIMIT)
                .build()
                .ok()
        })
        .as_ref()
    }

    /// Regex `id` for `matches`.
    fn matcher(&self, id: usize) -> Option<&Matcher> {
        let cell = &self.compiled(id)?.matcher;
        cell.get_or_init(|| Matcher::new(&self.inline(id)?).map(Box::new))
            .as_deref()
    }

    /// Regex `id` for `matches`, case-insensitive.
    fn matcher_any_case(&self, id: usize) -> Option<&Matcher> {
        let cell = &self.compiled(id)?.any_case;
        // A prefix, not a group: a verbose regex may end in a comment.
        cell.get_or_init(|| Matcher::new(&format!("(?i){}", self.inline(id)?)).map(Box::new))
            .as_deref()
    }
}

/// The per-thread search state of one regex.
#[derive(Debug)]
struct Caches {
    dfa: Option<hybrid::dfa::Cache>,
    vm: VmCache,
}

type MakeCaches = Box<dyn Fn() -> Caches + Send + Sync>;

/// One regex as the bounded engines see it.
struct Matcher {
    /// The lazy DFA; `None` when it cannot be built (its NFA is too large
    /// for its cache).
    dfa: Option<hybrid::dfa::DFA>,
    /// The NFA, which the Pike VM runs.
    nfa: NFA,
    /// The NFA's states: the Pike VM's worst-case steps per byte.
    states: u64,
    caches: Pool<Caches, MakeCaches>,
}

impl fmt::Debug for Matcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Matcher")
            .field("lazy_dfa", &self.dfa.is_some())
            .field("states", &self.states)
            .finish_non_exhaustive()
    }
}

/// The lazy DFA gives up when building states costs more than about this
/// many NFA steps per byte of text (amortized, after three cache clears).
const STEPS_PER_BYTE: usize = 16;

/// Cache clears the lazy DFA may make before it judges its efficiency.
const FREE_CLEARS: usize = 3;

/// The lazy DFA's cache, in bytes (regex-automata's default).
const LAZY_DFA_CACHE: usize = 2 << 20;

impl Matcher {
    fn new(pattern: &str) -> Option<Matcher> {
        let hir = syntax::parse(pattern).ok()?;
        let nfa = NFA::compiler()
            .configure(
                thompson::Config::new()
                    .which_captures(WhichCaptures::None)
                    .nfa_size_limit(Some(crate::table::REGEX_SIZE_LIMIT)),
            )
            .build_from_hir(&hir)
            .ok()?;
        let states = nfa.states().len();
        let dfa = hybrid::dfa::Builder::new()
            .configure(
                hybrid::dfa::Config::new()
                    .cache_capacity(LAZY_DFA_CACHE)
                    .prefilter(Prefilter::from_hir_prefix(MatchKind::LeftmostFirst, &hir))
                    .unicode_word_boundary(true)
                    .minimum_cache_clear_count(Some(FREE_CLEARS))
                    .minimum_bytes_per_state(Some((states / STEPS_PER_BYTE).max(10))),
            )
            .build_from_nfa(nfa.clone())
            .ok();
        let make = {
            let dfa = dfa.clone();
            Box::new(move || Caches {
                dfa: dfa.as_ref().map(hybrid::dfa::DFA::create_cache),
                vm: VmCache::new(states),
            }) as MakeCaches
        };
        Some(Matcher {
            dfa,
            nfa,
            states: u64::try_from(states).unwrap_or(u64::MAX),
            caches: Pool::new(make),
        })
    }

    /// Whether the regex matches `text`: the lazy DFA, and the PikeVM when
    /// the DFA gives up, if the budget pays for it.
    fn is_match(&self, id: u32, text: &str, budget: &Budget) -> Result<bool, RegexOverrun> {
        let mut caches = self.caches.get();
        let input = Input::new(text).earliest(true);
        if let (Some(dfa), Some(cache)) = (&self.dfa, caches.dfa.as_mut()) {
            // A search starts with its free clears again: an earlier event
            // that made the cache thrash does not make this one give up
            // at once.
            if cache.clear_count() >= FREE_CLEARS {
                cache.reset(dfa);
            }
            match dfa.try_search_fwd(cache, &input) {
                Ok(found) => return Ok(found.is_some()),
                Err(e) => match e.kind() {
                    MatchErrorKind::GaveUp { .. } | MatchErrorKind::Quit { .. } => {}
                    _ => return Ok(false),
                },
            }
        }
        let left = budget.left();
        match pike_vm(&self.nfa, &mut caches.vm, text.as_bytes(), left) {
            Ok((found, used)) => {
                budget.spend(used);
                Ok(found)
            }
            Err(used) => {
                budget.spend(used);
                Err(RegexOverrun {
                    regex: id,
                    states: self.states,
                    bytes: u64::try_from(text.len()).unwrap_or(u64::MAX),
                    left,
                    budget: budget.limit().0,
                })
            }
        }
    }
}

/// A set of NFA states with constant-time insert, membership and clear.
#[derive(Debug)]
struct StateSet {
    dense: Vec<StateID>,
    sparse: Vec<u32>,
    len: usize,
}

impl StateSet {
    fn new(states: usize) -> StateSet {
        StateSet {
            dense: vec![StateID::ZERO; states],
            sparse: vec![0; states],
            len: 0,
        }
    }

    /// Adds `id`; false when it was there already.
    fn insert(&mut self, id: StateID) -> bool {
        let i = id.as_usize();
        let Some(&slot) = self.sparse.get(i) else {
            return false;
        };
        if (slot as usize) < self.len && self.dense.get(slot as usize) == Some(&id) {
            return false;
        }
        match (self.dense.get_mut(self.len), self.sparse.get_mut(i)) {
            (Some(d), Some(s)) => {
                *d = id;
                *s = u32::try_from(self.len).unwrap_or(u32::MAX);
                self.len += 1;
                true
            }
            _ => false,
        }
    }

    fn clear(&mut self) {
        self.len = 0;
    }

    fn states(&self) -> &[StateID] {
        self.dense.get(..self.len).unwrap_or(&[])
    }
}

/// The Pike VM's working sets for one regex.
#[derive(Debug)]
struct VmCache {
    current: StateSet,
    next: StateSet,
    stack: Vec<StateID>,
}

impl VmCache {
    fn new(states: usize) -> VmCache {
        VmCache {
            current: StateSet::new(states),
            next: StateSet::new(states),
            stack: Vec::new(),
        }
    }
}

/// Whether the NFA matches anywhere in `haystack`, visiting at most about
/// `budget` states: `Ok((found, steps))`, or `Err(steps)` when it stopped at
/// the budget. A step is one NFA state entered at one position (each state
/// at most once per position, so a search takes at most states × (bytes +
/// 1) steps); the work of a search is proportional to its steps.
fn pike_vm(
    nfa: &NFA,
    cache: &mut VmCache,
    haystack: &[u8],
    budget: u64,
) -> Result<(bool, u64), u64> {
    let VmCache {
        current,
        next,
        stack,
    } = cache;
    current.clear();
    next.clear();
    let mut steps = 0u64;
    if closure(
        nfa,
        nfa.start_unanchored(),
        haystack,
        0,
        current,
        stack,
        &mut steps,
    ) {
        return Ok((true, steps));
    }
    for (at, &byte) in haystack.iter().enumerate() {
        if current.len == 0 {
            break;
        }
        for &id in current.states() {
            let to = match nfa.state(id) {
                State::ByteRange { trans } => trans.matches_byte(byte).then_some(trans.next),
                State::Sparse(t) => t.matches_byte(byte),
                State::Dense(t) => t.matches_byte(byte),
                _ => None,
            };
            if let Some(to) = to {
                if closure(nfa, to, haystack, at + 1, next, stack, &mut steps) {
                    return Ok((true, steps));
                }
            }
        }
        if steps > budget {
            return Err(steps);
        }
        std::mem::swap(current, next);
        next.clear();
    }
    Ok((false, steps))
}

/// Adds the states reachable from `start` without reading a byte, at
/// position `at`, to `set`; true when one of them is a match.
fn closure(
    nfa: &NFA,
    start: StateID,
    haystack: &[u8],
    at: usize,
    set: &mut StateSet,
    stack: &mut Vec<StateID>,
    steps: &mut u64,
) -> bool {
    stack.clear();
    stack.push(start);
    while let Some(id) = stack.pop() {
        if !set.insert(id) {
            continue;
        }
        *steps += 1;
        match nfa.state(id) {
            State::Match { .. } => return true,
            State::Union { alternates } => stack.extend(alternates.iter().rev()),
            State::BinaryUnion { alt1, alt2 } => {
                stack.push(*alt2);
                stack.push(*alt1);
            }
            State::Capture { next, .. } => stack.push(*next),
            State::Look { look, next } => {
                if nfa.look_matcher().matches(*look, haystack, at) {
                    stack.push(*next);
                }
            }
            State::ByteRange { .. } | State::Sparse(_) | State::Dense(_) | State::Fail => {}
        }
    }
    false
}

/// What parsing a regex tells the `regex-cost` lint: whether it has a
/// Unicode word boundary (`\b`, `\B`, `\b{start}`, …), which the DFAs
/// cannot decide on non-ASCII text, and whether its NFA surely has at most
/// `states` states (an upper bound from its syntax tree, so that small
/// regexes need no NFA built). `None` when it does not parse.
#[cfg(feature = "compiler")]
pub(crate) fn parse_facts(pattern: &str, states: u64) -> Option<(bool, bool)> {
    let hir = syntax::parse(pattern).ok()?;
    let boundary = hir.properties().look_set().contains_word_unicode();
    // The unanchored start adds a few states.
    let small = states_bound(&hir, states).is_some_and(|n| n + 8 <= states);
    Some((boundary, small))
}

/// An upper bound of the NFA states the Thompson compiler makes for `hir`,
/// or `None` once it passes `limit`: literal bytes one each, a class at
/// most four per UTF-8 sequence of its ranges, a repetition a copy of its
/// body per repeat, an alternation or capture a few more.
#[cfg(feature = "compiler")]
pub(crate) fn states_bound(hir: &regex_syntax::hir::Hir, limit: u64) -> Option<u64> {
    use regex_syntax::hir::{Class, HirKind};
    let n = match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => 1,
        HirKind::Literal(lit) => u64::try_from(lit.0.len()).ok()?,
        HirKind::Class(Class::Bytes(c)) => u64::try_from(c.ranges().len()).ok()? + 1,
        HirKind::Class(Class::Unicode(c)) => {
            let mut n = 1u64;
            for r in c.ranges() {
                for seq in regex_syntax::utf8::Utf8Sequences::new(r.start(), r.end()) {
                    n += u64::try_from(seq.len()).ok()?;
                    if n > limit {
                        return None;
                    }
                }
            }
            n
        }
        HirKind::Repetition(r) => {
            let body = states_bound(&r.sub, limit)?;
            // `x{n,}` is n copies of `x`, the last one looping; `x{n,m}` is m.
            let copies = u64::from(r.max.unwrap_or(r.min).max(1));
            body.checked_mul(copies)?.checked_add(copies + 1)?
        }
        HirKind::Capture(c) => states_bound(&c.sub, limit)? + 2,
        HirKind::Concat(hs) | HirKind::Alternation(hs) => {
            let mut n = 1u64;
            for h in hs {
                n = n.checked_add(states_bound(h, limit)?)?;
                if n > limit {
                    return None;
                }
            }
            n
        }
    };
    (n <= limit).then_some(n)
}

/// The states of a regex's NFA, as the runtime compiles it: the Pike VM's
/// worst-case steps per byte. `None` when it does not compile.
#[cfg(feature = "compiler")]
pub(crate) fn nfa_states(pattern: &str) -> Option<u64> {
    let nfa = NFA::compiler()
        .configure(
            thompson::Config::new()
                .which_captures(WhichCaptures::None)
                .nfa_size_limit(Some(crate::table::REGEX_SIZE_LIMIT)),
        )
        .build(pattern)
        .ok()?;
    u64::try_from(nfa.states().len()).ok()
}

/// True when the whole DFA of a regex (for the lazy DFA's unanchored
/// search) takes at most half of the lazy DFA's cache: then the lazy DFA
/// never has to clear its cache, so it never gives up, whatever the text.
/// A larger one may: text crafted to visit many states makes it clear its
/// cache again and again, and give up to the Pike VM.
#[cfg(feature = "compiler")]
pub(crate) fn fits_lazy_dfa(pattern: &str) -> bool {
    use regex_automata::dfa::{dense, StartKind};
    let limit = LAZY_DFA_CACHE / 2;
    dense::Builder::new()
        .configure(
            dense::DFA::config()
                .start_kind(StartKind::Unanchored)
                .unicode_word_boundary(true)
                .dfa_size_limit(Some(limit))
                .determinize_size_limit(Some(limit)),
        )
        .build(pattern)
        .is_ok()
}

#[cfg(feature = "compiler")]
/// True when a pattern has a long counted repetition and its DFA alone is
/// larger than `budget` bytes. Only such patterns pay for a trial build.
pub(crate) fn too_costly(pattern: &str, budget: usize) -> bool {
    fn long_repetition(hir: &regex_syntax::hir::Hir) -> bool {
        use regex_syntax::hir::HirKind;
        match hir.kind() {
            HirKind::Repetition(r) => {
                r.max.unwrap_or(r.min).max(r.min) >= 6 || long_repetition(&r.sub)
            }
            HirKind::Capture(c) => long_repetition(&c.sub),
            HirKind::Concat(hs) | HirKind::Alternation(hs) => hs.iter().any(long_repetition),
            _ => false,
        }
    }
    let Ok(hir) = regex_syntax::parse(pattern) else {
        return false;
    };
    if !long_repetition(&hir) {
        return false;
    }
    field_dfa_builder(budget).build(pattern).is_err()
}

/// The bytes of the dense DFA of `pattern` alone, built as a field's DFA
/// is (every match, unanchored, UTF-8 text), without minimizing: what the
/// `unicode-class-cost` lint compares. `None` when it does not build
/// within `limit` bytes.
#[cfg(feature = "compiler")]
pub(crate) fn dfa_bytes(pattern: &str, limit: usize) -> Option<usize> {
    let dfa = field_dfa_builder(limit).build(pattern).ok()?;
    Some(dfa.memory_usage())
}

/// A builder of one pattern's dense DFA as the compiler builds a field's
/// (`compile::matchers`, before minimizing), up to `limit` bytes.
#[cfg(feature = "compiler")]
fn field_dfa_builder(limit: usize) -> regex_automata::dfa::dense::Builder {
    use regex_automata::dfa::{dense, StartKind};
    let mut builder = dense::Builder::new();
    builder
        .configure(
            dense::DFA::config()
                .match_kind(MatchKind::All)
                .start_kind(StartKind::Unanchored)
                .unicode_word_boundary(true)
                .dfa_size_limit(Some(limit))
                .determinize_size_limit(Some(limit)),
        )
        .syntax(syntax::Config::new().utf8(true).unicode(true));
    builder
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matcher(pattern: &str) -> Matcher {
        Matcher::new(pattern).unwrap()
    }

    #[test]
    fn matches_like_the_regex_crate() {
        let budget = Budget::new(RegexBudget::DEFAULT);
        for (pattern, text, expected) in [
            ("a+b", "xxaab", true),
            ("a+b", "xxaa", false),
            ("(?i)SECRET", "my secret", true),
            (r"\bword\b", "a word here", true),
            (r"\bword\b", "swordfish", false),
            // A Unicode word boundary on non-ASCII text: the lazy DFA quits,
            // the PikeVM decides.
            (r"\bwörd\b", "ein wörd hier", true),
            (r"\bwörd\b", "einwörd", false),
            (r"\w{20}z", &format!("{}z", "é".repeat(20)), true),
        ] {
            let got = matcher(pattern).is_match(0, text, &budget).unwrap();
            assert_eq!(got, expected, "{pattern} on {text}");
            assert_eq!(got, Regex::new(pattern).unwrap().is_match(text));
        }
    }

    #[test]
    fn the_pike_vm_stops_at_the_budget() {
        // A Unicode `\b` next to non-ASCII text needs the Pike VM.
        let m = matcher(r"\bwörd\b");
        let text = "éwörd".repeat(200);
        let bytes = text.len() as u64;
        let mut budget = Budget::new(RegexBudget(100));
        let overrun = m.is_match(7, &text, &budget).unwrap_err();
        assert_eq!(
            overrun,
            RegexOverrun {
                regex: 7,
                states: m.states,
                bytes,
                left: 100,
                budget: 100,
            }
        );
        assert!(overrun.to_string().contains("regex budget"));
        // Spent: the next match that needs the Pike VM fails at once.
        assert_eq!(m.is_match(7, "éwörd", &budget).unwrap_err().left, 0);
        // ASCII text stays in the lazy DFA, which costs nothing.
        assert_eq!(m.is_match(7, &"a word ".repeat(1000), &budget), Ok(false));
        budget.restart();
        budget.set_limit(RegexBudget(m.states * (bytes + 1)));
        assert_eq!(m.is_match(7, &text, &budget), Ok(false));
        assert!(budget.left() > 0, "the worst case is an upper bound");
    }

    #[test]
    fn the_pike_vm_agrees_with_the_regex_crate() {
        let budget = Budget::new(RegexBudget::UNLIMITED);
        for (pattern, text) in [
            ("a+b", "xxaab"),
            ("^ab", "ab"),
            ("^ab", "xab"),
            ("ab$", "xab"),
            ("ab$", "abx"),
            ("", "x"),
            (r"(?i)é\b", "CAFÉ noir"),
            (r"\bé", "xé"),
            (r"[^a]{3}", "aaβaa"),
        ] {
            let nfa = NFA::compiler()
                .configure(thompson::Config::new().which_captures(WhichCaptures::None))
                .build(pattern)
                .unwrap();
            let mut cache = VmCache::new(nfa.states().len());
            let (found, _) = pike_vm(&nfa, &mut cache, text.as_bytes(), u64::MAX).unwrap();
            assert_eq!(
                found,
                Regex::new(pattern).unwrap().is_match(text),
                "{pattern} on {text}"
            );
            assert_eq!(matcher(pattern).is_match(0, text, &budget), Ok(found));
        }
    }

    #[cfg(feature = "compiler")]
    #[test]
    fn the_syntax_bound_is_an_upper_bound() {
        for pattern in [
            r"rm\s+-rf\s+/srv/data42\b",
            r"\bpassword\b",
            r"(?i)secret\s*=\s*\S{20,}",
            r"\b\w+ing\b",
            r"AKIA[0-9A-Z]{16}|ghp_[A-Za-z0-9]{36}",
            r"[^a]{3}(x|y)*",
            r"(?-u:\w){10}",
            "",
        ] {
            let states = nfa_states(pattern).unwrap();
            let hir = syntax::parse(pattern).unwrap();
            let bound = states_bound(&hir, u64::MAX).unwrap();
            assert!(
                states <= bound + 8,
                "{pattern}: {states} states, bound {bound}"
            );
            assert_eq!(parse_facts(pattern, bound + 8).map(|f| f.1), Some(true));
        }
        assert_eq!(parse_facts(r"\w{100}", 128), Some((false, false)));
        assert_eq!(parse_facts(r"\bx\b", 128), Some((true, true)));
    }

    /// 256 KiB of random `a`/`b` text: `[ab]*a[ab]{30}…` has
    /// exponentially many DFA states on it, and its lazy DFA thrashes.
    fn thrashing_text() -> String {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        (0..1 << 18)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                if x & 1 == 0 {
                    'a'
                } else {
                    'b'
                }
            })
            .collect()
    }

    #[test]
    fn a_thrashing_lazy_dfa_gives_up_to_the_budget() {
        let m = matcher("[ab]*a[ab]{30}c");
        let text = thrashing_text();
        let budget = Budget::new(RegexBudget(1000));
        let overrun = m.is_match(0, &text, &budget).unwrap_err();
        assert_eq!(overrun.bytes, 1 << 18);
        assert_eq!(
            m.is_match(0, &text, &Budget::new(RegexBudget::UNLIMITED)),
            Ok(false)
        );
    }

    /// A regex a literal search proposed says what `is_match` says, also
    /// when the budget cannot pay for it: a text without the needed
    /// literals then does not match, as `is_match` (which looks first)
    /// answers, and one with them is unknown to both.
    #[test]
    fn a_match_after_a_found_literal_answers_as_a_match_that_looks_first() {
        let table = crate::compile_str(
            "t.hooks",
            r#"hook a on tool.pre_execute {
    when payload.x matches /rm\s+-rf\s+\/srv\b/ or payload.x matches /[ab]*a[ab]{30}stop/
    abort "fired"
}
"#,
        )
        .unwrap()
        .table;
        let loaded = table.loaded();
        let views = crate::shell::Views::default();
        let host = crate::event::HostFacts::default();
        let matching = |budget| Matching {
            regexes: &loaded.regexes,
            dfas: &loaded.dfas,
            regex_dfas: loaded.regex_dfas(),
            regex_needs: loaded.regex_needs(),
            budget,
            views: &views,
            host: &host,
        };
        let unlimited = Budget::new(RegexBudget::UNLIMITED);
        let m = matching(&unlimited);
        for text in [
            "cd /srv && rm -rf /srv",
            "rm  -rf /srvx",
            "rm -rf /opt",
            "nothing here",
            "RM -RF /SRV",
        ] {
            assert_eq!(m.is_match_found(0, text), m.is_match(0, text), "{text}");
        }
        // The second regex has exponentially many DFA states on it.
        let thrashing = thrashing_text();
        let small = Budget::new(RegexBudget(1000));
        let m = matching(&small);
        assert_eq!(m.is_match(1, &thrashing), Ok(false), "no `stop`: not read");
        assert_eq!(m.is_match_found(1, &thrashing), Ok(false));
        let with_stop = format!("{thrashing}stop");
        assert!(m.is_match(1, &with_stop).is_err());
        assert!(m.is_match_found(1, &with_stop).is_err());
    }

    #[test]
    fn a_text_may_match_when_it_holds_a_needed_literal_in_any_case() {
        use super::may_match;
        let needs = b".hookc\0claude~";
        assert!(may_match(needs, b"rm -rf .hookc/rules.tbl"));
        assert!(may_match(needs, b"rm -rf .HOOKC"), "any ASCII case");
        assert!(may_match(needs, b"cat CLAUDE~1"), "the second literal");
        assert!(!may_match(needs, b"npm test"));
        assert!(
            !may_match(needs, b"rm .hook"),
            "a literal cut off by the end"
        );
        assert!(!may_match(needs, b"hookc claude"), "each literal whole");
        // Non-ASCII text is searched: `(?i)k` also matches U+212A.
        assert!(may_match(needs, ".hoo\u{212A}c".as_bytes()));
        // A regex that needs nothing may always match.
        assert!(may_match(b"", b"npm test"));
        // A literal is found whole, wherever it starts, and not in pieces.
        let needs = b"/srv/data42";
        assert!(may_match(needs, b"rm -rf /SRV/Data42 x"));
        assert!(may_match(needs, b"/srv/data42"), "the whole text");
        assert!(
            !may_match(needs, b"42/srv/data4"),
            "its pieces in another order"
        );
        assert!(!may_match(needs, b"rm /srv/data4"), "cut off by the end");
        assert!(!may_match(needs, b"/srv/data4x 42"));
    }

    proptest::proptest! {
        /// `may_match` says what a plain search of the lower-cased text
        /// says, for ASCII texts and literals of letters, digits and
        /// punctuation.
        #[test]
        fn a_literal_is_found_as_a_plain_search_finds_it(
            literals in proptest::collection::vec("[a-c0-2/.-]{1,5}", 1..4),
            before in "[a-cA-C0-2/. -]{0,20}",
            after in "[a-cA-C0-2/. -]{0,20}",
            // A literal written into the text, whole or cut short by
            // `cut` bytes, some letters upper-cased: texts that hold one,
            // or nearly.
            pick in 0..4usize,
            cut in 0..3usize,
            upper in proptest::num::u8::ANY,
        ) {
            let written: String = literals
                .get(pick % literals.len())
                .map(|l| l.chars().take(l.len().saturating_sub(cut)).collect())
                .unwrap_or_default();
            let written: String = written
                .chars()
                .enumerate()
                .map(|(i, c)| if upper >> (i % 8) & 1 == 1 { c.to_ascii_uppercase() } else { c })
                .collect();
            let text = format!("{before}{written}{after}");
            let needs = literals.join("\0");
            let lower = text.to_ascii_lowercase();
            let plain = literals.iter().any(|l| lower.contains(l.as_str()));
            proptest::prop_assert_eq!(super::may_match(needs.as_bytes(), text.as_bytes()), plain);
        }
    }
}
