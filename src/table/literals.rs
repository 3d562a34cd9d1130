//! Finding every occurrence of a field's literals (`contains`, and the
//! literals that prefilter regexes kept out of a DFA).
//!
//! A field can carry a thousand literals. An Aho-Corasick automaton over all
//! of them walks the text byte by byte through a large state graph (three
//! quarters of a no-match dispatch on the generated workload). Yet literals
//! written by people share their beginnings: `curl http://evil3`,
//! `curl http://evil17`, `--exfil-to=bucket3`. So when the literals'
//! first few bytes (their *anchors*) take few distinct values, the search
//! runs in two stages, as multi-literal engines do:
//!
//! 1. a packed SIMD search (Teddy, from the `aho-corasick` crate) finds
//!    each position where an anchor starts, usually skipping most of the
//!    text in a few vector steps;
//! 2. at each such position, each literal length the anchor's literals
//!    have is looked up in a hash table of the literals.
//!
//! Every anchor has the same width, so at most one anchor starts at a
//! position, and trying each position after the last hit finds every
//! occurrence of every literal, overlapping or not, like an overlapping
//! automaton search. When the anchors are too many, too short or the CPU
//! has no packed search, the automaton is used as before.

use super::layout::strtable::StrTable;
use super::layout::{ByteList, Csr};
use aho_corasick::packed;
use aho_corasick::{AhoCorasick, MatchKind, Span};

/// The widest anchor; wider anchors are more selective but more numerous.
const MAX_ANCHOR: usize = 4;

/// The narrowest anchor worth a packed search: shorter ones hit too often.
const MIN_ANCHOR: usize = 3;

/// The most distinct anchors a packed search takes (Teddy's own limit).
const MAX_ANCHORS: usize = 64;

/// What the compiler stores for the two-stage search: the anchors' width,
/// the anchors (sorted, distinct), and per anchor the lengths of its
/// literals (ascending, distinct). The literals themselves are found by
/// the point block's hash table of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct AnchorPlan {
    pub(crate) width: usize,
    pub(crate) anchors: Vec<Vec<u8>>,
    pub(crate) lengths: Vec<Vec<u32>>,
}

/// The two-stage search's plan for `literals`: `None` when an anchor
/// would be shorter than [`MIN_ANCHOR`], the anchors are more than
/// [`MAX_ANCHORS`] at every width, or a literal repeats (the compiler
/// stores each literal once; a table that repeats one gets the automaton,
/// which reports every copy, where a hash table would find one).
pub(crate) fn plan(literals: &[&[u8]]) -> Option<AnchorPlan> {
    let shortest = literals.iter().map(|l| l.len()).min()?;
    let widest = shortest.min(MAX_ANCHOR);
    let (width, anchors) = (MIN_ANCHOR..=widest).rev().find_map(|width| {
        let mut anchors: Vec<&[u8]> = literals.iter().filter_map(|l| l.get(..width)).collect();
        anchors.sort_unstable();
        anchors.dedup();
        (anchors.len() <= MAX_ANCHORS).then_some((width, anchors))
    })?;
    let mut distinct: Vec<&[u8]> = literals.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    if distinct.len() != literals.len() {
        return None;
    }
    let mut lengths = vec![Vec::new(); anchors.len()];
    for literal in literals {
        let anchor = anchors.binary_search(&literal.get(..width)?).ok()?;
        lengths
            .get_mut(anchor)?
            .push(u32::try_from(literal.len()).ok()?);
    }
    for l in &mut lengths {
        l.sort_unstable();
        l.dedup();
    }
    Some(AnchorPlan {
        width,
        anchors: anchors.into_iter().map(<[u8]>::to_vec).collect(),
        lengths,
    })
}

/// A field's literals as its block stores them, read in place: the
/// literals, and what [`plan`] made of them (a width of 0: no plan).
#[derive(Clone, Copy, Debug)]
pub(crate) struct StoredLiterals<'a> {
    pub(crate) section: &'a [u32],
    pub(crate) literals: &'a ByteList,
    pub(crate) width: u32,
    pub(crate) anchors: &'a ByteList,
    pub(crate) lengths: &'a Csr,
    /// A hash table of the literals (empty without a plan).
    pub(crate) table: &'a StrTable,
}

impl<'a> StoredLiterals<'a> {
    /// How many literals.
    pub(crate) fn len(&self) -> usize {
        self.literals.len()
    }

    /// Literal `i`.
    #[inline]
    fn literal(&self, i: usize) -> &'a [u8] {
        self.literals.get(self.section, i)
    }

    /// The anchors as stored, when every one has the stored width (a
    /// crafted table whose anchors do not gets the automaton, which needs
    /// none).
    fn anchors(&self) -> Option<(usize, Vec<&'a [u8]>)> {
        let width = self.width as usize;
        let anchors: Vec<&[u8]> = (0..self.anchors.len())
            .map(|i| self.anchors.get(self.section, i))
            .collect();
        (width >= 1 && !anchors.is_empty() && anchors.iter().all(|a| a.len() == width))
            .then_some((width, anchors))
    }
}

/// How a field's literals are searched.
#[derive(Debug)]
pub(crate) enum LiteralSearch {
    /// Anchors first, then each literal confirmed in place.
    Anchored(Anchored),
    /// One overlapping Aho-Corasick search.
    Automaton(AhoCorasick),
}

/// The two-stage search (see the module docs): the packed searcher of the
/// anchors, built at first use from the stored anchors; the lengths and
/// the hash table of the literals are read in place.
#[derive(Debug)]
pub(crate) struct Anchored {
    /// The anchors, pattern id = anchor index.
    anchors: packed::Searcher,
    /// The anchors' width in bytes.
    width: usize,
}

impl LiteralSearch {
    /// The search for the stored literals: the anchors' packed search when
    /// the compiler planned one and this CPU has it, else the automaton.
    ///
    /// # Errors
    ///
    /// The automaton's message when it cannot be built.
    pub(crate) fn new(stored: &StoredLiterals<'_>) -> Result<LiteralSearch, String> {
        if let Some((width, anchors)) = stored.anchors() {
            let mut builder = packed::Config::new()
                .match_kind(packed::MatchKind::LeftmostFirst)
                .builder();
            builder.extend(anchors);
            if let Some(searcher) = builder.build() {
                return Ok(LiteralSearch::Anchored(Anchored {
                    anchors: searcher,
                    width,
                }));
            }
        }
        AhoCorasick::builder()
            .match_kind(MatchKind::Standard)
            .build((0..stored.len()).map(|i| stored.literal(i)))
            .map(LiteralSearch::Automaton)
            .map_err(|e| e.to_string())
    }

    /// Calls `found` with the index of each literal at each place it
    /// occurs in `text` (a literal that occurs twice is reported twice).
    /// `stored` must be the literals the search was built from.
    #[inline]
    pub(crate) fn for_each(
        &self,
        stored: &StoredLiterals<'_>,
        text: &str,
        mut found: impl FnMut(usize),
    ) {
        match self {
            LiteralSearch::Anchored(a) => a.for_each(stored, text.as_bytes(), found),
            LiteralSearch::Automaton(ac) => {
                for m in ac.find_overlapping_iter(text) {
                    found(m.pattern().as_usize());
                }
            }
        }
    }

    /// Heap used at load, for `hookc inspect`.
    pub(crate) fn memory_usage(&self) -> usize {
        match self {
            LiteralSearch::Anchored(a) => a.anchors.memory_usage(),
            LiteralSearch::Automaton(ac) => ac.memory_usage(),
        }
    }

    /// Whether the two-stage search is used (for tests and `inspect`).
    pub(crate) fn is_anchored(&self) -> bool {
        matches!(self, LiteralSearch::Anchored(_))
    }
}

impl Anchored {
    #[inline]
    fn for_each(&self, stored: &StoredLiterals<'_>, text: &[u8], mut found: impl FnMut(usize)) {
        // Sliced once: the loop below looks up a literal at every hit.
        let lengths = stored.lengths.view(stored.section);
        let literals = stored.table.view(stored.section, stored.literals);
        let mut at = 0;
        while at + self.width <= text.len() {
            let Some(m) = self.anchors.find_in(text, Span::from(at..text.len())) else {
                return;
            };
            let start = m.start();
            let rest = text.get(start..).unwrap_or(&[]);
            for &len in lengths.get(m.pattern().as_usize()) {
                let Some(candidate) = rest.get(..len as usize) else {
                    break;
                };
                if let Some(j) = literals.find(candidate) {
                    found(j);
                }
            }
            at = start + 1;
        }
    }
}
