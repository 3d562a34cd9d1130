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

use aho_corasick::packed;
use aho_corasick::{AhoCorasick, MatchKind, Span};
use foldhash::fast::FixedState;
use hashbrown::HashTable;
use std::hash::BuildHasher;

/// The widest anchor; wider anchors are more selective but more numerous.
const MAX_ANCHOR: usize = 4;

/// The narrowest anchor worth a packed search: shorter ones hit too often.
const MIN_ANCHOR: usize = 3;

/// The most distinct anchors a packed search takes (Teddy's own limit).
const MAX_ANCHORS: usize = 64;

/// The seed of the literal hash: fixed, so a table behaves the same in
/// every process (the hashed keys come from the table, not the event).
const SEED: u64 = 0x68_6f_6f_6b_63;

/// How a field's literals are searched.
#[derive(Debug)]
pub(crate) enum LiteralSearch {
    /// Anchors first, then each literal confirmed in place.
    Anchored(Anchored),
    /// One overlapping Aho-Corasick search.
    Automaton(AhoCorasick),
}

/// The two-stage search (see the module docs).
#[derive(Debug)]
pub(crate) struct Anchored {
    /// The anchors, pattern id = anchor index.
    anchors: packed::Searcher,
    /// The anchors' width in bytes.
    width: usize,
    /// Per anchor, the distinct lengths of its literals, ascending.
    lengths: Vec<Vec<usize>>,
    /// The literals by their bytes: indexes into the field's literals.
    by_text: HashTable<u32>,
}

impl LiteralSearch {
    /// The search for `literals` (distinct, as the compiler stores them).
    ///
    /// # Errors
    ///
    /// The automaton's message when it cannot be built.
    pub(crate) fn new(literals: &[String]) -> Result<LiteralSearch, String> {
        if let Some(anchored) = Anchored::new(literals) {
            return Ok(LiteralSearch::Anchored(anchored));
        }
        AhoCorasick::builder()
            .match_kind(MatchKind::Standard)
            .build(literals)
            .map(LiteralSearch::Automaton)
            .map_err(|e| e.to_string())
    }

    /// Calls `found` with the index of each literal at each place it
    /// occurs in `text` (a literal that occurs twice is reported twice).
    /// `literals` must be the ones the search was built from.
    #[inline]
    pub(crate) fn for_each(&self, literals: &[String], text: &str, mut found: impl FnMut(usize)) {
        match self {
            LiteralSearch::Anchored(a) => a.for_each(literals, text.as_bytes(), found),
            LiteralSearch::Automaton(ac) => {
                for m in ac.find_overlapping_iter(text) {
                    found(m.pattern().as_usize());
                }
            }
        }
    }

    /// Heap used, for `hookc inspect`.
    pub(crate) fn memory_usage(&self) -> usize {
        match self {
            LiteralSearch::Anchored(a) => {
                a.anchors.memory_usage()
                    + a.lengths
                        .iter()
                        .map(|l| l.capacity() * 8 + 24)
                        .sum::<usize>()
                    + a.by_text.capacity() * 4
            }
            LiteralSearch::Automaton(ac) => ac.memory_usage(),
        }
    }

    /// Whether the two-stage search is used (for tests and `inspect`).
    pub(crate) fn is_anchored(&self) -> bool {
        matches!(self, LiteralSearch::Anchored(_))
    }
}

fn hash(bytes: &[u8]) -> u64 {
    FixedState::with_seed(SEED).hash_one(bytes)
}

impl Anchored {
    /// The two-stage search, when the literals suit it: `None` when an
    /// anchor would be shorter than [`MIN_ANCHOR`], the anchors are more
    /// than [`MAX_ANCHORS`] at every width, or no packed search is
    /// available on this CPU.
    fn new(literals: &[String]) -> Option<Anchored> {
        let shortest = literals.iter().map(String::len).min()?;
        let widest = shortest.min(MAX_ANCHOR);
        let (width, anchors) = (MIN_ANCHOR..=widest).rev().find_map(|width| {
            let mut anchors: Vec<&[u8]> = literals
                .iter()
                .filter_map(|l| l.as_bytes().get(..width))
                .collect();
            anchors.sort_unstable();
            anchors.dedup();
            (anchors.len() <= MAX_ANCHORS).then_some((width, anchors))
        })?;
        let mut builder = packed::Config::new()
            .match_kind(packed::MatchKind::LeftmostFirst)
            .builder();
        builder.extend(anchors.iter().copied());
        let searcher = builder.build()?;
        let mut lengths = vec![Vec::new(); anchors.len()];
        let mut by_text = HashTable::with_capacity(literals.len());
        for (i, literal) in literals.iter().enumerate() {
            let bytes = literal.as_bytes();
            let anchor = anchors.binary_search(&bytes.get(..width)?).ok()?;
            lengths.get_mut(anchor)?.push(bytes.len());
            let index = u32::try_from(i).ok()?;
            let text_of = |j: &u32| literals.get(*j as usize).map_or(&[][..], |l| l.as_bytes());
            // The compiler stores each literal once; a table that repeats
            // one gets the automaton, which reports every copy.
            if by_text.find(hash(bytes), |j| text_of(j) == bytes).is_some() {
                return None;
            }
            by_text.insert_unique(hash(bytes), index, |j| hash(text_of(j)));
        }
        for l in &mut lengths {
            l.sort_unstable();
            l.dedup();
        }
        Some(Anchored {
            anchors: searcher,
            width,
            lengths,
            by_text,
        })
    }

    #[inline]
    fn for_each(&self, literals: &[String], text: &[u8], mut found: impl FnMut(usize)) {
        let mut at = 0;
        while at + self.width <= text.len() {
            let Some(m) = self.anchors.find_in(text, Span::from(at..text.len())) else {
                return;
            };
            let start = m.start();
            let rest = text.get(start..).unwrap_or(&[]);
            for &len in self
                .lengths
                .get(m.pattern().as_usize())
                .map_or(&[][..], Vec::as_slice)
            {
                let Some(candidate) = rest.get(..len) else {
                    break;
                };
                let hit = self.by_text.find(hash(candidate), |&j| {
                    literals.get(j as usize).map(String::as_bytes) == Some(candidate)
                });
                if let Some(&j) = hit {
                    found(j as usize);
                }
            }
            at = start + 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every (literal, position) the search reports, sorted.
    fn occurrences(search: &LiteralSearch, literals: &[String], text: &str) -> Vec<usize> {
        let mut out = Vec::new();
        search.for_each(literals, text, |i| out.push(i));
        out.sort_unstable();
        out
    }

    /// The same, by brute force: each position each literal starts at.
    fn expected(literals: &[String], text: &str) -> Vec<usize> {
        let mut out = Vec::new();
        for (i, l) in literals.iter().enumerate() {
            for p in 0..text.len() {
                if text
                    .as_bytes()
                    .get(p..)
                    .is_some_and(|r| r.starts_with(l.as_bytes()))
                {
                    out.push(i);
                }
            }
        }
        out.sort_unstable();
        out
    }

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn shared_beginnings_take_the_two_stage_search() {
        let literals: Vec<String> = (0..200).map(|i| format!("curl http://evil{i}")).collect();
        let search = LiteralSearch::new(&literals).unwrap();
        // The packed search needs SSSE3 on x86-64 (elsewhere the
        // automaton answers, as checked below).
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("ssse3") {
            assert!(search.is_anchored());
        }
        let text = "x; curl http://evil17 && curl http://evil170; curl http://evil";
        assert_eq!(
            occurrences(&search, &literals, text),
            expected(&literals, text)
        );
        // `evil1`, `evil17` and `evil170` all start at the second hit.
        let found = occurrences(&search, &literals, text);
        assert!(found.contains(&1) && found.contains(&17) && found.contains(&170));
    }

    #[test]
    fn overlapping_and_repeated_occurrences_are_all_reported() {
        let literals = strings(&["abab", "abababx", "babab", "baba"]);
        let search = LiteralSearch::new(&literals).unwrap();
        for text in ["ababababx", "abab", "bababab", "", "aba", "xxababxxbabab"] {
            assert_eq!(
                occurrences(&search, &literals, text),
                expected(&literals, text),
                "{text:?}"
            );
        }
    }

    #[test]
    fn short_or_many_anchors_fall_back_to_the_automaton() {
        let short = strings(&["rm", "curl http://x"]);
        assert!(!LiteralSearch::new(&short).unwrap().is_anchored());
        let varied: Vec<String> = (0..100).map(|i| format!("{i:03}-literal")).collect();
        let search = LiteralSearch::new(&varied).unwrap();
        assert!(!search.is_anchored(), "100 distinct anchors at every width");
        let text = "007-literal and 099-literal";
        assert_eq!(occurrences(&search, &varied, text), expected(&varied, text));
    }

    #[test]
    fn a_repeated_literal_is_reported_for_each_copy() {
        let literals = strings(&["curl http://a", "curl http://b", "curl http://a"]);
        let search = LiteralSearch::new(&literals).unwrap();
        assert!(!search.is_anchored());
        let text = "curl http://a";
        assert_eq!(occurrences(&search, &literals, text), vec![0, 2]);
    }

    #[test]
    fn non_ascii_text_and_literals() {
        let literals = strings(&["héllo wörld", "héllo", "日本語のテキスト", "日本人"]);
        let search = LiteralSearch::new(&literals).unwrap();
        let text = "say héllo wörld in 日本語のテキスト, not 日本人 or héll";
        assert_eq!(
            occurrences(&search, &literals, text),
            expected(&literals, text)
        );
    }
}
