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
//! 1. each position where an anchor starts is found, by one of two
//!    searches (see below);
//! 2. at each such position, each literal length the anchor's literals
//!    have is looked up in a hash table of the literals, unless no
//!    literal that long ends with the text's byte there.
//!
//! A literal's anchor is its first bytes, up to eight, as many as the
//! plan can afford for it (see [`plan`]); a literal no longer than its
//! anchor would be is the anchor of every literal that begins with it.
//! No anchor begins another, so at most one starts at a position, and
//! trying each position after the last hit finds every occurrence of
//! every literal, overlapping or not, like an overlapping automaton
//! search. When the anchors are too many or too short, the automaton is
//! used as before.
//!
//! Stage 1 has two forms. A packed SIMD search (Teddy, from the
//! `aho-corasick` crate) skips most of a text in a few vector steps, but
//! building it costs about 1,800 instructions an anchor, more than a hook
//! process that reads one short command ever saves. So the anchors are
//! first found in place: a walk over the text tests each three bytes
//! against a 512-byte filter of the anchors' first three bytes (made in
//! one pass over them) and, where one may start, looks the anchor up
//! among the stored, sorted anchors. The walk costs about 16 instructions
//! a byte more than the packed search. Each text it reads spends a
//! credit worth building the packed search, and the text that would
//! overdraw it builds the packed search, which serves from then on (a
//! ski rental: never more than about twice what the better choice in
//! hindsight would have cost). A CPU
//! without the packed search keeps the walk. That is how a table for one
//! event begins ([`LiteralStart::Walk`]); a table for a long-running host
//! builds the packed search when a dispatch first reads the field, so
//! that no later dispatch allocates and none pays for the choice
//! ([`LiteralStart::Build`]).
//!
//! A literal shorter than an anchor can be (`"$"`, `"rm"`, `"|"`) is
//! left out of the plan and searched for on its own, after the anchors
//! (a single-substring search for one, a small automaton over the few
//! there are): one such literal beside a pack's other literals would
//! otherwise make the whole field an automaton built when the table
//! loads, which on a Claude Code Bash event cost more than half the
//! process's instructions.
//!
//! When every literal begins with one *stem* (a single literal, or a list
//! generated from one template: `cmd{i} --flag`, `curl http://evil{i}`)
//! and the literals have few lengths (or anchors could not tell them
//! apart either), the stem is the only anchor, as long as it is, and stage 1 is a single-substring search (`memchr`'s
//! `memmem`), which costs a fraction of the packed search on text
//! without the stem. A plan with one anchor, however made, is searched
//! that way.

use super::layout::strtable::TableView;
use super::layout::{CsrView, Strings};
use aho_corasick::packed;
use aho_corasick::{AhoCorasick, MatchKind, Span};
use memchr::memmem;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

/// The widest anchor. Wider anchors are more selective but more numerous.
/// The packed search fingerprints at most an anchor's first four bytes
/// and confirms the whole anchor itself; each hit it reports costs a new
/// search from the next byte and a lookup per literal length, so anchors
/// wider than the fingerprint pay for themselves on text that shares
/// the literals' first bytes (`/srv/app` against `/srv/data`, `backups`
/// against `backup7@`, `--exclude` against `--exfil-to`).
const MAX_ANCHOR: usize = 8;

/// The narrowest anchor worth a packed search: shorter ones hit too often.
const MIN_ANCHOR: usize = 3;

/// The most distinct anchors a packed search takes (Teddy's own limit).
const MAX_ANCHORS: usize = 64;

/// The most anchors the packed search takes in its faster form (on AVX2,
/// Teddy spreads more than 32 patterns over twice the buckets, at about
/// twice the cost a byte): anchors are lengthened past the fingerprint
/// only while they stay this few, or as few as they were.
const FAST_ANCHORS: usize = 32;

/// The most lengths a stem's literals may have: each place the stem
/// occurs costs a lookup per length, where anchors one byte or more
/// longer than the stem would tell most places apart without one.
const STEM_LENGTHS: usize = 4;

/// How many first bytes of an anchor the packed search fingerprints (it
/// confirms the rest itself): anchors are lengthened up to this width
/// while they are at most [`MAX_ANCHORS`].
const FINGERPRINT: usize = 4;

/// What the compiler stores for the two-stage search: the widest
/// anchor's length, the anchors (sorted, none the beginning of another),
/// and per anchor the lengths of its literals (ascending, distinct). The
/// literals themselves are found by the point block's hash table of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct AnchorPlan {
    pub(crate) width: usize,
    pub(crate) anchors: Vec<Vec<u8>>,
    pub(crate) lengths: Vec<Vec<u32>>,
}

/// The two-stage search's plan for `literals`, made of those at least
/// [`MIN_ANCHOR`] bytes long (the shorter ones are searched for on their
/// own, see [`is_short`]): `None` when there are none, their first
/// [`MIN_ANCHOR`] bytes take more than [`MAX_ANCHORS`] values, or a
/// literal repeats (the compiler stores each literal once; a table that
/// repeats one gets the automaton, which reports every copy, where a hash
/// table would find one).
pub(crate) fn plan(literals: &[&[u8]]) -> Option<AnchorPlan> {
    let mut all: Vec<&[u8]> = literals.to_vec();
    all.sort_unstable();
    all.dedup();
    if all.len() != literals.len() {
        return None;
    }
    let long: Vec<&[u8]> = literals.iter().copied().filter(|l| !is_short(l)).collect();
    let mut sorted = long.clone();
    sorted.sort_unstable();
    if sorted.is_empty() {
        return None;
    }
    let stem = stem(&sorted);
    if stem
        .as_ref()
        .is_some_and(|p| p.lengths.iter().all(|l| l.len() <= STEM_LENGTHS))
    {
        return stem;
    }
    let anchors = anchors(&sorted)?;
    // Anchors are at most `MAX_ANCHOR` bytes: where they could not tell
    // the literals apart, the stem is the same anchor, only longer.
    if anchors.len() == 1 {
        return stem;
    }
    let mut lengths = vec![Vec::new(); anchors.len()];
    for literal in &long {
        let anchor = anchor_of(&anchors, literal)?;
        lengths
            .get_mut(anchor)?
            .push(u32::try_from(literal.len()).ok()?);
    }
    for l in &mut lengths {
        l.sort_unstable();
        l.dedup();
    }
    Some(AnchorPlan {
        width: anchors.iter().map(|a| a.len()).max()?,
        anchors: anchors.into_iter().map(<[u8]>::to_vec).collect(),
        lengths,
    })
}

/// True when `literal` is shorter than an anchor can be: no plan holds
/// it, and the search looks for it on its own.
pub(crate) fn is_short(literal: &[u8]) -> bool {
    literal.len() < MIN_ANCHOR
}

/// The plan with one anchor, the `sorted` literals' stem (their longest
/// common beginning), when it is at least [`MIN_ANCHOR`] bytes. [`plan`]
/// takes it when the literals have at most [`STEM_LENGTHS`] lengths, or
/// when anchors would not tell them apart either.
fn stem(sorted: &[&[u8]]) -> Option<AnchorPlan> {
    // In sorted order, what the first and the last share, all share.
    let (first, last) = (sorted.first()?, sorted.last()?);
    let width = first
        .iter()
        .zip(last.iter())
        .take_while(|(a, b)| a == b)
        .count();
    if width < MIN_ANCHOR {
        return None;
    }
    let mut lengths = sorted
        .iter()
        .map(|l| u32::try_from(l.len()).ok())
        .collect::<Option<Vec<u32>>>()?;
    lengths.sort_unstable();
    lengths.dedup();
    Some(AnchorPlan {
        width,
        anchors: vec![first.get(..width)?.to_vec()],
        lengths: vec![lengths],
    })
}

/// The anchors of the `sorted`, distinct literals: sorted, none the
/// beginning of another, at most [`MAX_ANCHORS`] (`None` when their
/// first [`MIN_ANCHOR`] bytes already take more values).
///
/// The literals that share an anchor form a run of `sorted`. Starting
/// from the runs of the first [`MIN_ANCHOR`] bytes, each run is made one
/// byte longer (split by its next byte), widths in turn, while the count
/// stays within the budget: [`MAX_ANCHORS`] up to the [`FINGERPRINT`]
/// width, then [`FAST_ANCHORS`] (or the count reached, if more) up to
/// [`MAX_ANCHOR`]. A run holding a literal as long as its anchor stops
/// there (the literal is the anchor). A shared stem costs nothing to
/// lengthen (`/srv/data7`, `/srv/data42`: one anchor `/srv/dat`), so
/// common beginnings do not make every anchor short.
fn anchors<'l>(sorted: &[&'l [u8]]) -> Option<Vec<&'l [u8]>> {
    // Each run with its anchor's width; a run shares its first `width`
    // bytes, and every literal has at least `MIN_ANCHOR`.
    let mut cut: Vec<(usize, &[&[u8]])> = runs(sorted, MIN_ANCHOR)
        .map(|run| (MIN_ANCHOR, run))
        .collect();
    if cut.len() > MAX_ANCHORS {
        return None;
    }
    for width in MIN_ANCHOR..MAX_ANCHOR {
        let mut count = cut.len();
        let budget = if width < FINGERPRINT {
            MAX_ANCHORS
        } else {
            count.max(FAST_ANCHORS)
        };
        let mut longer = Vec::with_capacity(cut.len());
        for (w, run) in cut {
            if w == width && run.iter().all(|l| l.len() > width) {
                let split: Vec<&[&[u8]]> = runs(run, width + 1).collect();
                if count + split.len() - 1 <= budget {
                    count += split.len() - 1;
                    longer.extend(split.into_iter().map(|run| (width + 1, run)));
                    continue;
                }
            }
            longer.push((w, run));
        }
        cut = longer;
    }
    cut.into_iter()
        .map(|(w, run)| run.first().and_then(|l| l.get(..w)))
        .collect()
}

/// The runs of `sorted` literals that share their first `width` bytes.
fn runs<'s, 'l>(sorted: &'s [&'l [u8]], width: usize) -> impl Iterator<Item = &'s [&'l [u8]]> {
    sorted.chunk_by(move |a, b| a.get(..width) == b.get(..width))
}

/// The index of the anchor `literal` begins with: the greatest anchor not
/// after it (an anchor between that one and the literal would begin with
/// it, which [`anchors`] rules out).
fn anchor_of(anchors: &[&[u8]], literal: &[u8]) -> Option<usize> {
    let i = anchors.partition_point(|a| *a <= literal).checked_sub(1)?;
    literal.starts_with(anchors.get(i)?).then_some(i)
}

/// True when `anchors` can drive the two-stage search: there are some,
/// none is empty or longer than `width`, and they are sorted with none
/// the beginning of another (so one at most starts at a position; in
/// sorted order it is enough to compare neighbours).
pub(crate) fn searchable(anchors: &[&[u8]], width: usize) -> bool {
    !anchors.is_empty()
        && anchors.iter().all(|a| !a.is_empty() && a.len() <= width)
        && anchors
            .windows(2)
            .all(|pair| matches!(pair, [a, b] if a < b && !b.starts_with(a)))
}

/// A field's literals as its block stores them, read in place: the
/// literals, and what [`plan`] made of them (a width of 0: no plan).
#[derive(Clone, Copy, Debug)]
pub(crate) struct StoredLiterals<'a> {
    pub(crate) literals: Strings<'a>,
    pub(crate) width: u32,
    pub(crate) anchors: Strings<'a>,
    /// Per anchor, the lengths of its literals, ascending.
    pub(crate) lengths: CsrView<'a>,
    /// A hash table of the literals (empty without a plan).
    pub(crate) table: TableView<'a>,
}

impl<'a> StoredLiterals<'a> {
    /// How many literals.
    pub(crate) fn len(&self) -> usize {
        self.literals.len()
    }

    /// Literal `i`.
    #[inline]
    fn literal(&self, i: usize) -> &'a [u8] {
        self.literals.get(i)
    }

    /// The anchors as stored, when they can drive the search (see
    /// [`searchable`]; a crafted table whose anchors cannot gets the
    /// automaton, which needs none).
    fn anchors(&self) -> Option<Vec<&'a [u8]>> {
        let anchors: Vec<&[u8]> = (0..self.anchors.len())
            .map(|i| self.anchors.get(i))
            .collect();
        searchable(&anchors, self.width as usize).then_some(anchors)
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

/// The two-stage search (see the module docs): the search for the
/// anchors, made at first use from the stored anchors; the lengths and
/// the hash table of the literals are read in place.
#[derive(Debug)]
pub(crate) struct Anchored {
    anchors: AnchorFinder,
    /// The shortest anchor's length: no anchor starts closer to the end.
    shortest: usize,
    /// Which literal lengths end with which byte, to skip most lookups.
    endings: Box<Endings>,
    /// The literals too short for an anchor, searched for after them.
    short: Option<Box<ShortLiterals>>,
}

/// The literals of a planned field too short for an anchor (see
/// [`is_short`]): their indexes among the field's literals, and the
/// search for them.
#[derive(Debug)]
struct ShortLiterals {
    ids: Vec<usize>,
    search: ShortSearch,
}

/// How the short literals are found: one by a single-substring search,
/// several by an automaton over them alone (a few states). The whole is
/// boxed already ([`Anchored::short`]), so the variants are not.
#[derive(Debug)]
#[expect(
    clippy::large_enum_variant,
    reason = "held in a Box of its own; a second box would cost a load per search"
)]
enum ShortSearch {
    One(memmem::Finder<'static>),
    Many(AhoCorasick),
}

impl ShortLiterals {
    /// The short literals of `stored`, if any; `Err` when their
    /// automaton cannot be built.
    fn of(stored: &StoredLiterals<'_>) -> Result<Option<Box<ShortLiterals>>, String> {
        let ids: Vec<usize> = (0..stored.len())
            .filter(|&i| is_short(stored.literal(i)))
            .collect();
        let search = match ids.as_slice() {
            [] => return Ok(None),
            [one] => ShortSearch::One(memmem::Finder::new(stored.literal(*one)).into_owned()),
            many => ShortSearch::Many(
                AhoCorasick::builder()
                    .match_kind(MatchKind::Standard)
                    .build(many.iter().map(|&i| stored.literal(i)))
                    .map_err(|e| e.to_string())?,
            ),
        };
        Ok(Some(Box::new(ShortLiterals { ids, search })))
    }

    /// Calls `found` with the index of each short literal at each place
    /// it occurs in `text`, overlapping or not.
    #[inline]
    fn for_each(&self, text: &[u8], mut found: impl FnMut(usize)) {
        match &self.search {
            ShortSearch::One(finder) => {
                let Some(&id) = self.ids.first() else {
                    return;
                };
                let mut at = 0;
                while let Some(offset) = text.get(at..).and_then(|rest| finder.find(rest)) {
                    found(id);
                    at += offset + 1;
                }
            }
            ShortSearch::Many(ac) => {
                for m in ac.find_overlapping_iter(text) {
                    if let Some(&id) = self.ids.get(m.pattern().as_usize()) {
                        found(id);
                    }
                }
            }
        }
    }
}

/// The last bytes of the literals by length: bit `len % 32` of word `b` is
/// set when a literal of that length ends with byte `b`.
///
/// Stage 2 tries every length an anchor's literals have at each place
/// the anchor occurs; all but one are usually wrong, and a text's byte at
/// the wrong length is rarely any literal's last (with `cmd{i} --flag`
/// at `cmd500 --flag`, lengths 11 and 12 end on `l` and `a`, where every
/// literal ends with `g`). Testing that byte costs a load and a shift; a
/// hash lookup, hashing the candidate first, costs about seventy
/// instructions. Lengths 32 apart share a bit: the filter can only let
/// a length through that it need not, never turn one away.
#[derive(Debug)]
struct Endings([u32; 256]);

impl Endings {
    fn of<'l>(literals: impl IntoIterator<Item = &'l [u8]>) -> Box<Endings> {
        let mut endings = Box::new(Endings([0; 256]));
        for literal in literals {
            if let Some(word) = literal
                .last()
                .and_then(|&b| endings.0.get_mut(usize::from(b)))
            {
                *word |= 1 << (literal.len() % 32);
            }
        }
        endings
    }

    /// False when no literal as long as `candidate` ends with its last byte.
    #[inline]
    fn may_end(&self, candidate: &[u8]) -> bool {
        candidate
            .last()
            .and_then(|&b| self.0.get(usize::from(b)))
            .is_some_and(|word| word & (1 << (candidate.len() % 32)) != 0)
    }
}

/// Stage 1: where the next anchor starts, and which.
#[derive(Debug)]
enum AnchorFinder {
    /// Several anchors by their packed search, pattern id = anchor index.
    Packed(packed::Searcher),
    /// Several anchors found in place until the packed search pays for
    /// itself (a table for one event, or a CPU without the packed search).
    Walk(Box<Walk>),
    /// One anchor (anchor index 0); boxed, as the searcher is large.
    One(Box<memmem::Finder<'static>>),
}

/// How stage 1 of several anchors begins (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum LiteralStart {
    /// The packed search is built when the search is made, at a field's
    /// first dispatch, so that no later search allocates: for a host that
    /// dispatches many events.
    #[default]
    Build,
    /// The anchors are found in place until the text read would pay for
    /// the packed search: for a process that answers one event, or a few.
    Walk,
}

/// Stage 1 for several anchors: found in place until the packed search
/// pays for itself (see the module docs).
#[derive(Debug)]
struct Walk {
    filter: PrefixFilter,
    /// The packed search once built; `None` inside when this CPU has none.
    packed: OnceLock<Option<packed::Searcher>>,
    /// The bytes of text the walk may still read before the packed
    /// search is built. Threads that race on it may let a few more
    /// through, which costs time only.
    credit: AtomicUsize,
}

/// What building the packed search costs, in bytes of text the walk
/// reads for the same instructions (measured on a hook process): about
/// 1,800 instructions an anchor (Teddy's masks and buckets) and 6,000
/// besides, against about 16 instructions a byte more than the packed
/// search's.
const CREDIT_PER_ANCHOR: usize = 110;
const CREDIT_BASE: usize = 400;

impl Walk {
    /// Stage 1 for `anchors`, all at least [`MIN_ANCHOR`] bytes long.
    fn new(anchors: &[&[u8]]) -> Walk {
        Walk {
            filter: PrefixFilter::of(anchors),
            packed: OnceLock::new(),
            credit: AtomicUsize::new(CREDIT_BASE + CREDIT_PER_ANCHOR * anchors.len()),
        }
    }

    /// The packed search to read a text of `len` bytes with, built now if
    /// reading it in place would overdraw the credit; `None`: walk it.
    #[inline]
    fn packed_for(&self, stored: &StoredLiterals<'_>, len: usize) -> Option<&packed::Searcher> {
        if let Some(built) = self.packed.get() {
            return built.as_ref();
        }
        let credit = self.credit.load(Ordering::Relaxed);
        if len <= credit {
            self.credit.store(credit - len, Ordering::Relaxed);
            return None;
        }
        self.packed
            .get_or_init(|| stored.anchors().and_then(|a| packed_search(&a)))
            .as_ref()
    }

    /// The first anchor starting at or after `at`, found in place: its
    /// start and index.
    #[inline]
    fn find_in_place(
        &self,
        anchors: &Strings<'_>,
        text: &[u8],
        at: usize,
    ) -> Option<(usize, usize)> {
        let rest = text.get(at..)?;
        let [first, second, ..] = *rest else {
            return None;
        };
        let mut key = u32::from(first) << 8 | u32::from(second);
        for (i, &byte) in rest.iter().enumerate().skip(MIN_ANCHOR - 1) {
            key = (key << 8 | u32::from(byte)) & 0x00FF_FFFF;
            if !self.filter.may_start(key) {
                continue;
            }
            let start = i + 1 - MIN_ANCHOR;
            if let Some(anchor) = anchor_at(anchors, rest.get(start..)?) {
                return Some((at + start, anchor));
            }
        }
        None
    }
}

/// The anchor `text` begins with, among the sorted `anchors` (at least
/// [`MIN_ANCHOR`] bytes each, none the beginning of another): the first
/// of those that share its first bytes, then each in turn.
#[inline]
fn anchor_at(anchors: &Strings<'_>, text: &[u8]) -> Option<usize> {
    let head = text.get(..MIN_ANCHOR)?;
    let (mut lo, mut hi) = (0, anchors.len());
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if anchors.get(mid).get(..MIN_ANCHOR).unwrap_or(&[]) < head {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    (lo..anchors.len())
        .map(|i| (i, anchors.get(i)))
        .take_while(|(_, a)| a.starts_with(head))
        .find(|(_, a)| text.starts_with(a))
        .map(|(i, _)| i)
}

/// The anchors' first [`MIN_ANCHOR`] bytes, hashed to one of 4,096 bits:
/// a clear bit starts no anchor; a set one may.
#[derive(Debug)]
struct PrefixFilter(Box<[u64; 64]>);

impl PrefixFilter {
    fn of(anchors: &[&[u8]]) -> PrefixFilter {
        let mut bits = Box::new([0u64; 64]);
        for anchor in anchors {
            if let [a, b, c, ..] = **anchor {
                let bit = Self::bit(u32::from_be_bytes([0, a, b, c]));
                if let Some(word) = bits.get_mut(bit / 64) {
                    *word |= 1 << (bit % 64);
                }
            }
        }
        PrefixFilter(bits)
    }

    /// The bit of three bytes read as a big-endian number (a
    /// multiplicative hash: the top 12 bits of the product).
    #[inline]
    fn bit(key: u32) -> usize {
        (key.wrapping_mul(0x9E37_79B1) >> 20) as usize
    }

    #[inline]
    fn may_start(&self, key: u32) -> bool {
        let bit = Self::bit(key);
        // `bit` is below 4,096: the word is always there.
        self.0
            .get(bit / 64 % 64)
            .is_some_and(|word| word >> (bit % 64) & 1 != 0)
    }
}

/// The first anchor `searcher` finds at or after `at`: its start and
/// index.
#[inline]
fn packed_find(searcher: &packed::Searcher, text: &[u8], at: usize) -> Option<(usize, usize)> {
    searcher
        .find_in(text, Span::from(at..text.len()))
        .map(|m| (m.start(), m.pattern().as_usize()))
}

/// The packed search for `anchors`; `None` when this CPU has none.
fn packed_search(anchors: &[&[u8]]) -> Option<packed::Searcher> {
    let mut builder = packed::Config::new()
        .match_kind(packed::MatchKind::LeftmostFirst)
        .builder();
    builder.extend(anchors);
    builder.build()
}

impl LiteralSearch {
    /// The search for the stored literals: for a plan of one anchor, a
    /// single-substring search; for more, the anchors found in place or
    /// by their packed search, as `start` says; without a plan, the
    /// automaton.
    ///
    /// # Errors
    ///
    /// The automaton's message when it cannot be built.
    pub(crate) fn new(
        stored: &StoredLiterals<'_>,
        start: LiteralStart,
    ) -> Result<LiteralSearch, String> {
        if let Some(anchors) = stored.anchors() {
            // Anchors are not empty (see `searchable`).
            let shortest = anchors.iter().map(|a| a.len()).min().unwrap_or(1);
            let finder = match anchors.as_slice() {
                [anchor] => Some(AnchorFinder::One(Box::new(
                    memmem::Finder::new(anchor).into_owned(),
                ))),
                // Only a crafted table has shorter anchors: the packed
                // search takes them, the walk cannot.
                _ if shortest < MIN_ANCHOR => packed_search(&anchors).map(AnchorFinder::Packed),
                _ => match start {
                    LiteralStart::Build => packed_search(&anchors).map(AnchorFinder::Packed),
                    LiteralStart::Walk => None,
                }
                // Without the packed search, a table for many events
                // walks too.
                .or_else(|| Some(AnchorFinder::Walk(Box::new(Walk::new(&anchors))))),
            };
            if let Some(anchors) = finder {
                return Ok(LiteralSearch::Anchored(Anchored {
                    anchors,
                    shortest,
                    endings: Endings::of((0..stored.len()).map(|i| stored.literal(i))),
                    short: ShortLiterals::of(stored)?,
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

    /// How many literals too short for an anchor are searched for on
    /// their own, for `hookc inspect`.
    pub(crate) fn short_count(&self) -> usize {
        match self {
            LiteralSearch::Anchored(a) => a.short.as_ref().map_or(0, |s| s.ids.len()),
            LiteralSearch::Automaton(_) => 0,
        }
    }

    /// Heap used at load, for `hookc inspect`.
    pub(crate) fn memory_usage(&self) -> usize {
        match self {
            LiteralSearch::Anchored(a) => {
                let short = a.short.as_ref().map_or(0, |s| match &s.search {
                    ShortSearch::One(finder) => finder.needle().len(),
                    ShortSearch::Many(ac) => ac.memory_usage(),
                });
                short
                    + match &a.anchors {
                        AnchorFinder::Packed(searcher) => searcher.memory_usage(),
                        AnchorFinder::Walk(walk) => {
                            std::mem::size_of::<[u64; 64]>()
                                + walk
                                    .packed
                                    .get()
                                    .and_then(Option::as_ref)
                                    .map_or(0, packed::Searcher::memory_usage)
                        }
                        AnchorFinder::One(finder) => finder.needle().len(),
                    }
            }
            LiteralSearch::Automaton(ac) => ac.memory_usage(),
        }
    }

    /// Which search this is, for `hookc inspect`; `stored` must be the
    /// literals the search was built from.
    pub(crate) fn kind(&self, stored: &StoredLiterals<'_>) -> super::LiteralSearchKind {
        use super::LiteralSearchKind as Kind;
        match self {
            LiteralSearch::Anchored(Anchored {
                anchors: AnchorFinder::One(finder),
                ..
            }) => Kind::Substring(String::from_utf8_lossy(finder.needle()).into_owned()),
            LiteralSearch::Anchored(Anchored {
                anchors: AnchorFinder::Packed(_) | AnchorFinder::Walk(_),
                ..
            }) => Kind::Anchors(stored.anchors().map_or(0, |a| a.len())),
            LiteralSearch::Automaton(_) => Kind::Automaton,
        }
    }

    /// Whether the two-stage search is used (for tests).
    #[cfg(test)]
    pub(crate) fn is_anchored(&self) -> bool {
        matches!(self, LiteralSearch::Anchored(_))
    }

    /// Whether stage 1's packed search is built (for tests).
    #[cfg(test)]
    pub(crate) fn is_packed(&self) -> bool {
        match self {
            LiteralSearch::Anchored(Anchored { anchors, .. }) => match anchors {
                AnchorFinder::Packed(_) => true,
                AnchorFinder::Walk(walk) => walk.packed.get().is_some_and(Option::is_some),
                AnchorFinder::One(_) => false,
            },
            LiteralSearch::Automaton(_) => false,
        }
    }

    /// Spends stage 1's credit, so the next search builds the packed
    /// search (for tests).
    #[cfg(test)]
    pub(crate) fn spend_credit(&self) {
        if let LiteralSearch::Anchored(Anchored {
            anchors: AnchorFinder::Walk(walk),
            ..
        }) = self
        {
            walk.credit.store(0, Ordering::Relaxed);
        }
    }

    /// Whether stage 1 looks for one anchor alone (for tests).
    #[cfg(test)]
    pub(crate) fn is_one_anchor(&self) -> bool {
        matches!(
            self,
            LiteralSearch::Anchored(Anchored {
                anchors: AnchorFinder::One(_),
                ..
            })
        )
    }
}

impl Anchored {
    #[inline]
    fn for_each(&self, stored: &StoredLiterals<'_>, text: &[u8], mut found: impl FnMut(usize)) {
        match &self.anchors {
            AnchorFinder::One(finder) => self.confirm(
                stored,
                text,
                |at| finder.find(text.get(at..)?).map(|offset| (at + offset, 0)),
                &mut found,
            ),
            AnchorFinder::Packed(searcher) => {
                self.confirm(
                    stored,
                    text,
                    |at| packed_find(searcher, text, at),
                    &mut found,
                );
            }
            AnchorFinder::Walk(walk) => match walk.packed_for(stored, text.len()) {
                Some(searcher) => {
                    self.confirm(
                        stored,
                        text,
                        |at| packed_find(searcher, text, at),
                        &mut found,
                    );
                }
                None => self.confirm(
                    stored,
                    text,
                    |at| walk.find_in_place(&stored.anchors, text, at),
                    &mut found,
                ),
            },
        }
        if let Some(short) = &self.short {
            short.for_each(text, found);
        }
    }

    /// Stage 2: at each place `next_anchor` finds an anchor from a
    /// position on (its start and index), each length of the anchor's
    /// literals looked up.
    #[inline]
    fn confirm(
        &self,
        stored: &StoredLiterals<'_>,
        text: &[u8],
        mut next_anchor: impl FnMut(usize) -> Option<(usize, usize)>,
        found: &mut impl FnMut(usize),
    ) {
        let (lengths, literals) = (&stored.lengths, &stored.table);
        let mut at = 0;
        while at + self.shortest <= text.len() {
            let Some((start, anchor)) = next_anchor(at) else {
                break;
            };
            let rest = text.get(start..).unwrap_or(&[]);
            for &len in lengths.get(anchor) {
                let Some(candidate) = rest.get(..len as usize) else {
                    break;
                };
                if !self.endings.may_end(candidate) {
                    continue;
                }
                if let Some(j) = literals.find(candidate) {
                    found(j);
                }
            }
            at = start + 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Endings;

    /// The filter turns away the lengths a stem's literals have where the
    /// text's byte is no literal's last, and lets every literal through.
    #[test]
    fn endings_turn_away_the_wrong_lengths_only() {
        let literals: Vec<String> = (0..1000).map(|i| format!("cmd{i} --flag")).collect();
        let endings = Endings::of(literals.iter().map(|l| l.as_bytes()));
        for l in &literals {
            assert!(endings.may_end(l.as_bytes()), "{l}");
        }
        let text = b"cmd500 --flag";
        assert!(!endings.may_end(&text[..11]), "`cmd500 --fl`");
        assert!(!endings.may_end(&text[..12]), "`cmd500 --fla`");
        assert!(endings.may_end(&text[..13]));
        assert!(!endings.may_end(b""));
    }

    /// Lengths 32 apart share a bit: the longer one's ending lets the
    /// shorter length through (a lookup that finds nothing), never the
    /// other way round.
    #[test]
    fn endings_of_lengths_32_apart_share_a_bit() {
        let long = format!("abc{}g", "y".repeat(33));
        assert_eq!(long.len(), 37);
        let endings = Endings::of([long.as_bytes()]);
        assert!(endings.may_end(long.as_bytes()));
        assert!(endings.may_end(b"abc-g"), "5 = 37 % 32");
        assert!(!endings.may_end(b"abc-h"));
        assert!(!endings.may_end(b"abcg"));
    }
}
