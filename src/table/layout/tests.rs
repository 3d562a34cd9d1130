//! Blocks written and read back; the hash tables; a field block's
//! literals, searched as a dispatch searches them (written by the
//! encoder, read back, the search built from what is stored).

use super::point::FieldLayout;
use super::strtable::StrTable;
use super::{at, Block, BlockWriter};
use crate::table::literals::{plan, searchable, LiteralSearch, LiteralStart, StoredLiterals};
use proptest::prelude::*;

/// A block with one slot of each kind, and where each is.
fn sample_block() -> Vec<u32> {
    let mut inner = BlockWriter::new(1);
    inner.scalar(0, 42);
    let mut block = BlockWriter::new(7);
    block.words(0, &[1, 2, 3]);
    block.scalar(1, 7);
    block.bytes(2, b"hello");
    block.csr(3, [&[1u32, 2][..], &[], &[3]]);
    block.byte_list(4, [&b"ab"[..], b"", "é".as_bytes()]);
    block.table(5, [&b"ab"[..], b"", "é".as_bytes()]);
    block.block(6, inner);
    block.finish()
}

#[test]
fn every_kind_of_slot_reads_back() {
    let words = sample_block();
    let block = Block::read(&words, 0..words.len() as u32, 7, "a test block").unwrap();
    assert_eq!(at(&words, &block.slot(0).unwrap()), [1, 2, 3]);
    assert_eq!(block.scalar(1).unwrap(), 7);
    assert_eq!(block.bytes(2).unwrap(), b"hello");
    let csr = block.csr(3, 3).unwrap();
    assert_eq!(csr.len(), 3);
    assert_eq!(
        (
            csr.get(&words, 0),
            csr.get(&words, 1),
            csr.get(&words, 2),
            csr.get(&words, 3)
        ),
        (&[1, 2][..], &[][..], &[3][..], &[][..])
    );
    let list = block.byte_list(4, 3).unwrap();
    assert_eq!(
        (
            list.text(&words, 0),
            list.text(&words, 1),
            list.text(&words, 2)
        ),
        (Some("ab"), Some(""), Some("é"))
    );
    let table = StrTable::read(&block, 5, 3).unwrap();
    for (i, key) in [&b"ab"[..], b"", "é".as_bytes()].iter().enumerate() {
        assert_eq!(table.find(&words, &list, key), Some(i));
    }
    assert_eq!(table.find(&words, &list, b"abc"), None);
    assert_eq!(table.find(&words, &list, b"a"), None);
    let inner = block.block(6, 1, "the inner block").unwrap();
    assert_eq!(inner.scalar(0).unwrap(), 42);
}

/// A block whose slots lie is an error when read, never a panic: a slot
/// past its block, counts that disagree, offsets that go back, text that
/// is not UTF-8, a table of the wrong size.
#[test]
fn lying_slots_are_errors() {
    let words = sample_block();
    fn read(words: &[u32]) -> Block<'_> {
        Block::read(words, 0..words.len() as u32, 7, "a test block").unwrap()
    }
    assert!(Block::read(&words, 0..words.len() as u32, 8, "a test block").is_err());
    assert!(Block::read(&[], 0..0, 0, "a test block").is_err());
    assert!(read(&words).slot(7).is_err(), "no slot 7");
    assert!(read(&words).csr(3, 2).is_err(), "3 lists, not 2");
    assert!(read(&words).words(0, 2).is_err(), "3 words, not 2");

    // Slot 0's start past the block's end.
    let mut past = words.clone();
    past[1] = words.len() as u32;
    assert!(read(&past).slot(0).is_err());
    // Slot 0's length wraps around.
    let mut wraps = words.clone();
    wraps[2] = u32::MAX;
    assert!(read(&wraps).slot(0).is_err());
    // The list structure of slot 3: [n, offsets…]; make its offsets go
    // back: the lists between them read as empty.
    let start = words[1 + 2 * 3] as usize;
    let mut back = words.clone();
    back[start + 2] = 5;
    back[start + 3] = 1;
    let csr = read(&back).csr(3, 3).unwrap();
    assert_eq!(csr.get(&back, 1), &[] as &[u32]);
    // Its lists' offsets past its items: reading gives empty lists.
    let mut beyond = words.clone();
    beyond[start + 4] = 1000;
    let csr = read(&beyond).csr(3, 3).unwrap();
    assert_eq!(csr.get(&beyond, 2), &[] as &[u32]);
    // Slot 4's bytes made not UTF-8: they read, and are not text.
    let start = words[1 + 2 * 4] as usize;
    let mut bad = words.clone();
    bad[start + 5] = u32::from_ne_bytes([0xff, 0xfe, 0, 0]);
    let list = read(&bad).byte_list(4, 3).unwrap();
    assert_eq!(list.get(&bad, 0), [0xff, 0xfe]);
    assert_eq!(list.text(&bad, 0), None);
    // Slot 5's table size made 3, not a power of two.
    let start = words[1 + 2 * 5] as usize;
    let mut size = words.clone();
    size[start] = 3;
    assert!(StrTable::read(&read(&size), 5, 3).is_err());
}

/// A table crafted with no empty slot and no key that matches ends its
/// search after one pass over the slots.
#[test]
fn a_full_table_stops_after_one_pass() {
    let mut block = BlockWriter::new(2);
    block.byte_list(0, [&b"a"[..], b"b"]);
    block.table(1, [&b"a"[..], b"b"]);
    let mut words = block.finish();
    let start = words[1 + 2] as usize;
    let size = words[start] as usize;
    for slot in 0..size {
        words[start + 1 + 2 * slot] = 0xdead_beef;
        words[start + 2 + 2 * slot] = 1;
    }
    let read = Block::read(&words, 0..words.len() as u32, 2, "t").unwrap();
    let list = read.byte_list(0, 2).unwrap();
    let table = StrTable::read(&read, 1, 2).unwrap();
    assert_eq!(table.find(&words, &list, b"zzz"), None);
}

#[test]
fn a_key_given_twice_is_found_at_its_first_place() {
    let mut block = BlockWriter::new(2);
    block.byte_list(0, [&b"x"[..], b"y", b"x"]);
    block.table(1, [&b"x"[..], b"y", b"x"]);
    let words = block.finish();
    let read = Block::read(&words, 0..words.len() as u32, 2, "t").unwrap();
    let list = read.byte_list(0, 3).unwrap();
    let table = StrTable::read(&read, 1, 3).unwrap();
    assert_eq!(table.find(&words, &list, b"x"), Some(0));
    assert_eq!(table.find(&words, &list, b"y"), Some(1));
}

/// The hash is the format's: the same for the same bytes on every build
/// (these values are rapidhash V3's with the table seed; a change here is
/// a format version).
#[test]
fn the_hash_is_fixed() {
    use super::strtable::hash;
    assert_eq!(hash(b""), hash(b""));
    assert_ne!(hash(b"a"), hash(b"b"));
    let known = [hash(b"builtin::llm"), hash(b"exec")];
    assert_eq!(
        known, KNOWN_HASHES,
        "the table hash changed: a format version"
    );
}

/// `hash(b"builtin::llm")`, `hash(b"exec")`.
const KNOWN_HASHES: [u64; 2] = [8_945_389_878_427_513_860, 3_940_932_752_583_340_756];

/// `literals` as a field block stores them, with their search.
struct Stored {
    words: Vec<u32>,
    layout: FieldLayout,
}

impl Stored {
    fn new(literals: &[String]) -> Stored {
        let (words, layout) = FieldLayout::of_literals(literals);
        Stored { words, layout }
    }

    fn literals(&self) -> StoredLiterals<'_> {
        self.layout.stored_literals(&self.words)
    }

    /// The search as a table for one event makes it: stage 1 walks the
    /// text until its credit is spent.
    fn search(&self) -> LiteralSearch {
        LiteralSearch::new(&self.literals(), LiteralStart::Walk).unwrap()
    }

    /// Every (literal, position) the search reports, sorted: the same
    /// whether stage 1 walks the text or, its credit spent, the packed
    /// search reads it.
    fn occurrences(&self, text: &str) -> Vec<usize> {
        let search = self.search();
        let read = |search: &LiteralSearch| {
            let mut out = Vec::new();
            search.for_each(&self.literals(), text, |i| out.push(i));
            out.sort_unstable();
            out
        };
        let walked = read(&search);
        search.spend_credit();
        assert_eq!(read(&search), walked, "packed against walked, in {text:?}");
        walked
    }
}

fn occurrences(literals: &[String], text: &str) -> Vec<usize> {
    Stored::new(literals).occurrences(text)
}

/// Anchors longer than the stored width (a crafted table) get the
/// automaton, which finds the same.
#[test]
fn anchors_of_the_wrong_width_take_the_automaton() {
    let literals: Vec<String> = (0..20).map(|i| format!("curl http://evil{i}")).collect();
    let stored = Stored::new(&literals);
    let mut crafted = stored.literals();
    let wrong = crafted.width - 1;
    crafted.width = wrong;
    let search = LiteralSearch::new(&crafted, LiteralStart::Walk).unwrap();
    assert!(!search.is_anchored());
    let text = "a curl http://evil12 b";
    let mut found = Vec::new();
    search.for_each(&crafted, text, |i| found.push(i));
    found.sort_unstable();
    assert_eq!(found, expected(&literals, text));
}

fn is_anchored(literals: &[String]) -> bool {
    Stored::new(literals).search().is_anchored()
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
    assert!(plan(&literals.iter().map(|l| l.as_bytes()).collect::<Vec<_>>()).is_some());
    assert!(is_anchored(&literals));
    let text = "x; curl http://evil17 && curl http://evil170; curl http://evil";
    assert_eq!(occurrences(&literals, text), expected(&literals, text));
    // `evil1`, `evil17` and `evil170` all start at the second hit.
    let found = occurrences(&literals, text);
    assert!(found.contains(&1) && found.contains(&17) && found.contains(&170));
}

#[test]
fn overlapping_and_repeated_occurrences_are_all_reported() {
    let literals = strings(&["abab", "abababx", "babab", "baba"]);
    let stored = Stored::new(&literals);
    for text in ["ababababx", "abab", "bababab", "", "aba", "xxababxxbabab"] {
        assert_eq!(
            stored.occurrences(text),
            expected(&literals, text),
            "{text:?}"
        );
    }
}

/// A literal too short for an anchor is searched for on its own beside
/// the plan of the others (one by a substring search, several by a small
/// automaton), and every occurrence of every literal is still found;
/// literals that are all short take the automaton.
#[test]
fn short_literals_are_searched_beside_the_anchors() {
    let texts = [
        "rm -rf $DIR/* | tee x; curl http://x2 $$",
        "$",
        "",
        "curl http://x",
        "no literal here",
    ];
    let mixed: Vec<String> = (0..20).map(|i| format!("curl http://x{i}")).collect();
    for short in [vec!["$"], vec!["$", "rm", "|"], vec!["$$", "$"]] {
        let literals: Vec<String> = short
            .iter()
            .map(|s| s.to_string())
            .chain(mixed.iter().cloned())
            .collect();
        let bytes = bytes(&literals);
        let planned = plan(&bytes).expect("the long literals are planned");
        assert!(
            planned.anchors.iter().all(|a| a.len() >= 3),
            "{:?}",
            planned.anchors
        );
        assert!(is_anchored(&literals), "{short:?}");
        for text in texts {
            assert_eq!(
                occurrences(&literals, text),
                expected(&literals, text),
                "{short:?} in {text:?}"
            );
        }
    }
    let all_short = strings(&["rm", "$", "|"]);
    assert!(plan(&bytes(&all_short)).is_none());
    assert!(!is_anchored(&all_short));
    assert_eq!(
        occurrences(&all_short, texts[0]),
        expected(&all_short, texts[0])
    );
}

/// Stage 1 walks the text in place until what it has read would pay for
/// the packed search, which then serves every later text; a long text
/// that would overdraw the credit at once builds it first.
#[test]
fn the_packed_search_is_built_once_the_walk_has_paid_for_it() {
    let literals: Vec<String> = (0..20).map(|i| format!("{i:02}-literal")).collect();
    let stored = Stored::new(&literals);
    let search = stored.search();
    let text = "run 07-literal, then 19-literal and 07-literal again";
    let mut reads = 0;
    while !search.is_packed() && reads < 1_000 {
        let mut found = Vec::new();
        search.for_each(&stored.literals(), text, |i| found.push(i));
        found.sort_unstable();
        assert_eq!(found, expected(&literals, text), "read {reads}");
        reads += 1;
    }
    // The packed search needs SSSE3 on x86-64; elsewhere the walk serves.
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("ssse3") {
        // 20 anchors: a credit of 400 + 20 × 110 bytes, 52 a read.
        assert_eq!(reads, 51, "the credit is spent after 50 reads");
        let long = format!("{}17-literal", "x".repeat(10_000));
        let fresh = stored.search();
        fresh.for_each(&stored.literals(), &long, |_| {});
        assert!(fresh.is_packed(), "a text longer than the credit builds it");
        let again = stored.search();
        again.for_each(&stored.literals(), text, |_| {});
        assert!(!again.is_packed(), "one short text is walked");
        // A table for many events builds it when the search is made (at a
        // field's first dispatch), so that no later dispatch allocates.
        let built = LiteralSearch::new(&stored.literals(), LiteralStart::Build).unwrap();
        assert!(built.is_packed(), "built when made");
        built.for_each(&stored.literals(), text, |_| {});
        assert!(built.is_packed(), "still built after the first search");
    }
}

/// The filter of the anchors' first bytes never turns away a position
/// where an anchor starts, whatever bytes the anchors hold.
#[test]
fn the_walk_finds_anchors_of_any_bytes() {
    let literals: Vec<String> = (0u8..40)
        .map(|i| {
            let c = char::from(b'!' + i * 2);
            format!("{c}{c}\u{e9}{i}-x")
        })
        .chain(["\t\n\r-tab".to_string(), "日本語のテキスト".to_string()])
        .collect();
    let text: String = literals.iter().rev().map(|l| format!("{l} ")).collect();
    assert_eq!(occurrences(&literals, &text), expected(&literals, &text));
    assert_eq!(occurrences(&literals, &text).len(), literals.len());
}

#[test]
fn many_anchors_fall_back_to_the_automaton() {
    let varied: Vec<String> = (0..100).map(|i| format!("{i:03}-literal")).collect();
    assert!(!is_anchored(&varied), "100 distinct anchors at every width");
    let text = "007-literal and 099-literal";
    assert_eq!(occurrences(&varied, text), expected(&varied, text));
}

#[test]
fn a_repeated_literal_is_reported_for_each_copy() {
    let literals = strings(&["curl http://a", "curl http://b", "curl http://a"]);
    assert!(!is_anchored(&literals));
    let text = "curl http://a";
    assert_eq!(occurrences(&literals, text), vec![0, 2]);
}

#[test]
fn non_ascii_text_and_literals() {
    let literals = strings(&["héllo wörld", "héllo", "日本語のテキスト", "日本人"]);
    let text = "say héllo wörld in 日本語のテキスト, not 日本人 or héll";
    assert_eq!(occurrences(&literals, text), expected(&literals, text));
}

fn bytes(literals: &[String]) -> Vec<&[u8]> {
    literals.iter().map(|l| l.as_bytes()).collect()
}

/// Literals made from one template are searched for by their stem alone,
/// however long it is, and every occurrence is still found: overlapping,
/// repeated, or the stem without a literal.
#[test]
fn literals_that_share_a_stem_are_searched_for_by_it() {
    let literals: Vec<String> = (0..1000).map(|i| format!("cmd{i} --flag")).collect();
    let planned = plan(&bytes(&literals)).unwrap();
    assert_eq!(planned.anchors, [b"cmd".to_vec()]);
    assert_eq!(planned.width, 3);
    assert_eq!(planned.lengths, [vec![11, 12, 13]]);
    let stored = Stored::new(&literals);
    assert!(stored.search().is_one_anchor());
    for text in [
        "run --jobs 4 cmd501 --flag --locked",
        "cmdcmd1 --flagcmd10 --flag cmd999 --flag",
        "cmd cmd12 --fla cmd7 --flag",
        "",
        "cmd",
    ] {
        assert_eq!(
            stored.occurrences(text),
            expected(&literals, text),
            "{text:?}"
        );
    }
    // One literal is its own stem, all of it.
    let one = strings(&["curl http://evil.example/x"]);
    let planned = plan(&bytes(&one)).unwrap();
    assert_eq!(planned.anchors, [one[0].as_bytes().to_vec()]);
    assert!(Stored::new(&one).search().is_one_anchor());
    let text = "curl http://evil.example/xcurl http://evil.example/x";
    assert_eq!(occurrences(&one, text), vec![0, 0]);
}

/// A stem whose literals have more than four lengths would cost a lookup
/// per length wherever it occurs: longer anchors tell them apart instead
/// (here each literal is its own). Where anchors cannot (they are at most eight bytes), the stem
/// is the anchor, all of it; a stem shorter than three bytes is none.
#[test]
fn a_stem_with_many_lengths_or_few_bytes_is_not_the_plan() {
    let literals = strings(&["abc1", "abc22", "abc333", "abc4444", "abc55555"]);
    let planned = plan(&bytes(&literals)).unwrap();
    let anchors: Vec<&[u8]> = planned.anchors.iter().map(Vec::as_slice).collect();
    assert_eq!(anchors, bytes(&literals), "each literal its own anchor");
    let text = "abc1 abc22 abc333x abc4444 abc5555";
    assert_eq!(occurrences(&literals, text), expected(&literals, text));
    let literals = strings(&[
        "curl http://e1",
        "curl http://e12",
        "curl http://e123",
        "curl http://e1234",
        "curl http://e12345",
    ]);
    let planned = plan(&bytes(&literals)).unwrap();
    assert_eq!(planned.anchors, [b"curl http://e1".to_vec()]);
    assert_eq!(planned.lengths, [vec![14, 15, 16, 17, 18]]);
    let text = "curl http://e1234 curl http://e1";
    assert_eq!(occurrences(&literals, text), expected(&literals, text));
    let literals = strings(&["abc", "abcdefgh", "abcdxyz", "abd"]);
    let planned = plan(&bytes(&literals)).unwrap();
    assert_eq!(planned.anchors.len(), 2);
}

/// Each literal's anchor is as wide as the anchors' count allows (eight
/// bytes at most), a short literal its own anchor: text that shares only
/// the first bytes of the literals (`/srv/app`, `backups`) holds no anchor.
#[test]
fn anchors_are_as_wide_as_their_count_allows() {
    let literals = strings(&[
        "rel-1",
        "/srv/data42",
        "/srv/data7",
        "backup7@",
        "backup12@",
    ]);
    let plan = plan(&bytes(&literals)).unwrap();
    let anchors: Vec<&[u8]> = plan.anchors.iter().map(Vec::as_slice).collect();
    assert_eq!(
        anchors,
        [&b"/srv/dat"[..], b"backup12", b"backup7@", b"rel-1"]
    );
    assert_eq!(plan.width, 8);
    assert_eq!(plan.lengths, [vec![10, 11], vec![9], vec![8], vec![5]]);
    let text = "cd /srv/app && tar -czf /var/backups/app.tar.gz; rsync /var/backups/ m:/";
    assert!(anchors
        .iter()
        .all(|a| !text.as_bytes().windows(a.len()).any(|w| w == *a)));
    let text = "rm -rf /srv/data42; scp x backup12@host: rel-1";
    assert_eq!(occurrences(&literals, text), expected(&literals, text));
    // A hundred `rel-N` literals: `rel-1` is a literal, so its own
    // anchor; `rel-2`..`rel-9` lengthen (ten anchors for one) while the
    // count stays within the packed search's faster form (32), the
    // others are lengthened as before.
    let mut many = literals.clone();
    many.extend((10..110).map(|i| format!("rel-{i}")));
    let wide = crate::table::literals::plan(&bytes(&many)).unwrap();
    let anchors: Vec<&[u8]> = wide.anchors.iter().map(Vec::as_slice).collect();
    assert_eq!(
        anchors[..4],
        [&b"/srv/dat"[..], b"backup12", b"backup7@", b"rel-1"]
    );
    assert_eq!(anchors[4..6], [&b"rel-20"[..], b"rel-21"]);
    assert!(anchors.contains(&&b"rel-9"[..]), "{anchors:?}");
    assert_eq!(anchors.len(), 4 + 10 * 2 + 6);
    let text = "rel-17 rel-1 rel-109 /srv/data7";
    assert_eq!(occurrences(&many, text), expected(&many, text));
}

/// Up to the packed search's fingerprint (four bytes), anchors lengthen
/// while they are at most 64; past it, only while they stay within its
/// faster form's 32, or as they are (a literal alone under its anchor
/// lengthens for nothing).
#[test]
fn anchors_reach_the_fingerprint_first() {
    let literals: Vec<String> = ["rm ", "cp "]
        .iter()
        .flat_map(|p| ('a'..='t').map(move |c| format!("{p}{c}-target-{c}")))
        .collect();
    let plan = plan(&bytes(&literals)).unwrap();
    assert_eq!(plan.anchors.len(), 40);
    assert!(
        plan.anchors.iter().all(|a| a.len() == 8),
        "{:?}",
        plan.anchors
    );
    let more: Vec<String> = ["rm ", "cp "]
        .iter()
        .flat_map(|p| ('a'..='t').flat_map(move |c| ["x", "y"].map(|s| format!("{p}{c}-{s}"))))
        .collect();
    let plan = crate::table::literals::plan(&bytes(&more)).unwrap();
    assert_eq!(plan.anchors.len(), 40, "{:?}", plan.anchors);
    assert!(
        plan.anchors.iter().all(|a| a.len() == 5),
        "{:?}",
        plan.anchors
    );
    let text = "rm a-x; cp t-y rm q-xx";
    assert_eq!(occurrences(&more, text), expected(&more, text));
}

/// An anchor that would begin another is kept alone: its literals and
/// the longer ones share it, so one anchor at most starts at a position.
#[test]
fn an_anchor_that_begins_another_takes_its_literals() {
    let literals = strings(&["abc", "abcdefgh", "abcdxyz", "abd"]);
    let plan = plan(&bytes(&literals)).unwrap();
    assert_eq!(plan.anchors, [b"abc".to_vec(), b"abd".to_vec()]);
    assert_eq!(plan.lengths, [vec![3, 7, 8], vec![3]]);
    let text = "abcdefgh abcdxyz abdabc";
    assert_eq!(occurrences(&literals, text), expected(&literals, text));
}

/// Stored anchors drive the search only when it can find every literal
/// with them: none empty or past the stored width, sorted, and none the
/// beginning of another (two at one position would hide one).
#[test]
fn stored_anchors_that_cannot_drive_the_search_are_refused() {
    assert!(searchable(&[b"abc", b"abd"], 3));
    assert!(searchable(&[b"ab", b"acde"], 4));
    assert!(!searchable(&[], 4));
    assert!(!searchable(&[b"ab", b"abc"], 4), "one begins another");
    assert!(!searchable(&[b"abd", b"abc"], 4), "not sorted");
    assert!(!searchable(&[b"abc", b"abc"], 4), "repeated");
    assert!(!searchable(&[b"abcde"], 4), "past the width");
    assert!(!searchable(&[b"", b"a"], 4), "empty");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// On a three-letter alphabet (anchors begin one another, literals
    /// overlap and repeat in the text), the search reports each place each
    /// literal starts, as a brute-force scan does.
    #[test]
    fn the_search_finds_every_occurrence(
        literals in proptest::collection::btree_set("[abc]{3,11}", 1..40),
        texts in proptest::collection::vec("[abc ]{0,80}", 1..4),
    ) {
        let literals: Vec<String> = literals.into_iter().collect();
        let stored = Stored::new(&literals);
        for text in &texts {
            prop_assert_eq!(stored.occurrences(text), expected(&literals, text));
        }
    }
}
