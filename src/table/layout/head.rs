//! A rule's head laid out in words: what a dispatch reads of every
//! candidate (whether it is enabled, its target, its condition, how a
//! failure is taken), read in place, with nothing decoded.
//!
//! Rule `i`'s head is list `i` of the point block's `HEADS` slot:
//!
//! ```text
//! flags      bits 0-3: enabled, fail closed, a timeout, a trigger; the
//!            bits above: the atom that triggers the rule (0 without one)
//! scope      the target's four segments: 0 none (child and instance
//! target     only), 1 `*`, 2 + n the point's target name n (its `NAMES`
//! child      slot)
//! instance
//! timeout    with the timeout flag only: two words, low then high, in
//!            milliseconds
//! cond       the condition, in prefix order, to the end of the list
//! ```
//!
//! Five words and the condition for most rules: a rule with an atom for
//! its condition takes six words and the offset that lists them.
//!
//! A condition node is one word, its kind in the top three bits and a
//! payload below:
//!
//! ```text
//! true       kind 0, payload 0
//! atom       kind 1, payload the atom
//! not        kind 2, payload the words of its operand, which follow
//! all, any   kind 3 and 4, payload the words of their operands, which follow
//! ```
//!
//! A node's payload says how far it reaches, so `all` and `any` step from
//! operand to operand and stop at a decisive one without reading the rest.
//!
//! A dispatch reads a head as it is ([`RuleHead::read`] checks the fixed
//! words and that the target's names are in the list, a few compares;
//! ids and names are compared as bytes, made text only for a message or
//! a tool) and a condition as it evaluates it: a node that reaches past its words, of an unknown kind,
//! or nested past [`MAX_DEPTH`] reads as [`Node::Bad`], and the chain
//! stops as on any corrupted part. [`CondWords::to_ir`] reads a whole
//! condition, checking every node, for the tools.

use super::Strings;
use crate::fql::{PatternRef, SegmentRef};
use crate::ir;
use std::collections::HashMap;

/// What a dispatch reads of a rule to decide whether it fires: a view of
/// its words in the table, each part read when it is asked for.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RuleHead<'a> {
    /// The head's words, as long as its flags say (checked by
    /// [`read`](Self::read)).
    words: &'a [u32],
    /// The point's ids and target names.
    strings: &'a HeadStrings<'a>,
    /// The rule's index in its point.
    rule: u32,
}

/// The strings a point's heads refer to: the rules' ids (rule `i`'s is
/// string `i`) and the targets' names.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct HeadStrings<'a> {
    pub(crate) ids: Strings<'a>,
    pub(crate) names: Strings<'a>,
}

impl<'a> HeadStrings<'a> {
    /// Rule `rule`'s id; empty when the table holds no text there.
    pub(crate) fn id(&self, rule: u32) -> &'a str {
        std::str::from_utf8(self.ids.get(rule as usize)).unwrap_or("")
    }
}

/// The words before the timeout and the condition.
const FIXED: usize = 5;

mod flag {
    pub(super) const ENABLED: u32 = 1;
    pub(super) const FAIL_CLOSED: u32 = 1 << 1;
    pub(super) const TIMEOUT: u32 = 1 << 2;
    pub(super) const TRIGGER: u32 = 1 << 3;
    /// The trigger is in the bits above the flags.
    pub(super) const TRIGGER_SHIFT: u32 = 4;
}

/// A segment word: no segment, `*`, or a name (`NAME + n`).
mod segment {
    pub(super) const NONE: u32 = 0;
    pub(super) const ANY: u32 = 1;
    pub(super) const NAME: u32 = 2;
}

/// The kinds of condition nodes (the top three bits of a node's word).
mod kind {
    pub(super) const TRUE: u32 = 0;
    pub(super) const ATOM: u32 = 1;
    pub(super) const NOT: u32 = 2;
    pub(super) const ALL: u32 = 3;
    pub(super) const ANY: u32 = 4;
}

const KIND_SHIFT: u32 = 29;
const PAYLOAD: u32 = (1 << KIND_SHIFT) - 1;

/// Deepest nesting of condition nodes a table may hold: as deep as a
/// whole table's check allows (`validate::MAX_NESTING`, which says they
/// agree; the compiler's nesting limit is far below).
pub(crate) const MAX_DEPTH: usize = 256;

/// The point's target names, each once, as the heads refer to them.
#[derive(Debug, Default)]
pub(crate) struct Names<'p> {
    pub(crate) names: Vec<&'p str>,
    index: HashMap<&'p str, u32>,
}

impl<'p> Names<'p> {
    fn segment(&mut self, segment: Option<&'p crate::fql::Segment>) -> u32 {
        match segment {
            None => segment::NONE,
            Some(crate::fql::Segment::Any) => segment::ANY,
            Some(crate::fql::Segment::Exact(name)) => {
                let next = super::count(self.names.len());
                let n = *self.index.entry(name).or_insert(next);
                if n == next {
                    self.names.push(name);
                }
                segment::NAME.saturating_add(n)
            }
        }
    }
}

/// The head words of `rule`, its target's names added to `names`.
///
/// An atom index takes 29 bits in a condition node and 28 beside the
/// flags: a point holds far fewer atoms (each is a blob of the block,
/// whose offsets are 32-bit), so neither is cut.
pub(crate) fn write<'p>(rule: &'p ir::Rule, names: &mut Names<'p>) -> Vec<u32> {
    let mut flags = 0;
    if rule.enabled {
        flags |= flag::ENABLED;
    }
    if rule.fail == ir::FailMode::Closed {
        flags |= flag::FAIL_CLOSED;
    }
    if rule.timeout_ms.is_some() {
        flags |= flag::TIMEOUT;
    }
    if rule.trigger.is_some() {
        flags |= flag::TRIGGER;
    }
    let target = &rule.target;
    let mut words = vec![
        flags | rule.trigger.unwrap_or(0) << flag::TRIGGER_SHIFT,
        names.segment(Some(&target.scope)),
        names.segment(Some(&target.target)),
        names.segment(target.child.as_ref()),
        names.segment(target.instance.as_ref()),
    ];
    if let Some(timeout) = rule.timeout_ms {
        words.extend([timeout as u32, (timeout >> 32) as u32]);
    }
    write_cond(&rule.cond, &mut words);
    words
}

/// Appends `cond`'s nodes in prefix order.
fn write_cond(cond: &ir::Cond, words: &mut Vec<u32>) {
    let node = |kind: u32, payload: u32| kind << KIND_SHIFT | payload.min(PAYLOAD);
    match cond {
        ir::Cond::True => words.push(node(kind::TRUE, 0)),
        ir::Cond::Atom(a) => words.push(node(kind::ATOM, *a)),
        ir::Cond::Not(c) => compound(words, kind::NOT, |words| write_cond(c, words)),
        ir::Cond::All(cs) | ir::Cond::Any(cs) => {
            let k = if matches!(cond, ir::Cond::All(_)) {
                kind::ALL
            } else {
                kind::ANY
            };
            compound(words, k, |words| {
                cs.iter().for_each(|c| write_cond(c, words))
            });
        }
    }
    // A compound node's payload, known once its operands are written.
    fn compound(words: &mut Vec<u32>, kind: u32, operands: impl FnOnce(&mut Vec<u32>)) {
        let at = words.len();
        words.push(0);
        operands(words);
        let span = super::count(words.len() - at - 1);
        if let Some(w) = words.get_mut(at) {
            // 2^29 words would be a 2 GiB condition: never cut either.
            *w = kind << KIND_SHIFT | span.min(PAYLOAD);
        }
    }
}

/// A condition in words, read in place.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct CondWords<'a>(&'a [u32]);

/// One node of a condition.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Node<'a> {
    True,
    Atom(u32),
    Not(CondWords<'a>),
    All(Operands<'a>),
    Any(Operands<'a>),
    /// Words that are not a node: why.
    Bad(&'static str),
}

impl<'a> CondWords<'a> {
    /// The node these words start with.
    #[inline]
    pub(crate) fn node(self) -> Node<'a> {
        let Some(&word) = self.0.first() else {
            return Node::Bad("a condition without its words");
        };
        let payload = word & PAYLOAD;
        let compound = word >> KIND_SHIFT;
        match compound {
            kind::TRUE if payload == 0 => return Node::True,
            kind::ATOM => return Node::Atom(payload),
            kind::NOT | kind::ALL | kind::ANY => {}
            _ => return Node::Bad("an unknown kind of condition node"),
        }
        let Some(words) = self.0.get(1..1 + payload as usize) else {
            return Node::Bad("a condition node that reaches past its rule");
        };
        match compound {
            kind::NOT => Node::Not(CondWords(words)),
            kind::ALL => Node::All(Operands(words)),
            _ => Node::Any(Operands(words)),
        }
    }

    /// The whole condition in the IR, every node checked: exactly one node
    /// fills the words, each compound's operands fill its span, nothing is
    /// nested past [`MAX_DEPTH`], and every atom is below `atoms`.
    pub(crate) fn to_ir(self, atoms: u32) -> Result<ir::Cond, String> {
        let (cond, len) = self.read(atoms, 0)?;
        if len != self.0.len() {
            return Err(format!(
                "{} words after the condition",
                self.0.len().saturating_sub(len)
            ));
        }
        Ok(cond)
    }

    /// The node at the start, and how many words it takes.
    fn read(self, atoms: u32, depth: usize) -> Result<(ir::Cond, usize), String> {
        if depth > MAX_DEPTH {
            return Err(format!("a condition nested deeper than {MAX_DEPTH}"));
        }
        // An operand, which must fill the words its node's payload gives it.
        let operand = |c: CondWords<'a>| -> Result<ir::Cond, String> {
            match c.read(atoms, depth + 1)? {
                (cond, len) if len == c.0.len() => Ok(cond),
                _ => Err("a condition node whose operand does not fill it".to_string()),
            }
        };
        let list = |ops: Operands<'a>| ops.map(operand).collect::<Result<Vec<_>, _>>();
        Ok(match self.node() {
            Node::True => (ir::Cond::True, 1),
            Node::Atom(a) if a < atoms => (ir::Cond::Atom(a), 1),
            Node::Atom(a) => return Err(format!("atom {a} out of range ({atoms} atoms)")),
            Node::Not(c) => (ir::Cond::Not(Box::new(operand(c)?)), 1 + c.0.len()),
            Node::All(ops) => (ir::Cond::All(list(ops)?), 1 + ops.0.len()),
            Node::Any(ops) => (ir::Cond::Any(list(ops)?), 1 + ops.0.len()),
            Node::Bad(why) => return Err(why.to_string()),
        })
    }
}

/// The operands of an `all` or `any`, in order.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Operands<'a>(&'a [u32]);

/// How many words a node's operands take after its own: a compound's
/// payload, none for a leaf.
#[inline]
fn reach(word: u32) -> usize {
    match word >> KIND_SHIFT {
        kind::NOT | kind::ALL | kind::ANY => (word & PAYLOAD) as usize,
        _ => 0,
    }
}

impl<'a> Operands<'a> {
    /// The next operand: an atom's index (the usual operand, told from
    /// its one word), or else the operand's words (see
    /// [`next`](Iterator::next)).
    #[inline]
    pub(crate) fn next_operand(&mut self) -> Option<Result<u32, CondWords<'a>>> {
        match self.0.split_first()? {
            (&word, after) if word >> KIND_SHIFT == kind::ATOM => {
                self.0 = after;
                Some(Ok(word & PAYLOAD))
            }
            _ => self.next().map(Err),
        }
    }
}

impl<'a> Iterator for Operands<'a> {
    type Item = CondWords<'a>;

    /// The next operand's words: its node's word and the words its payload
    /// reaches, cut at the end (where [`CondWords::node`] says so).
    #[inline]
    fn next(&mut self) -> Option<CondWords<'a>> {
        let &word = self.0.first()?;
        let (operand, rest) = self.0.split_at((1 + reach(word)).min(self.0.len()));
        self.0 = rest;
        Some(CondWords(operand))
    }
}

impl<'a> RuleHead<'a> {
    /// Reads rule `rule`'s head, `words`: they are as long as its flags
    /// say, its flags have no bit without a meaning, and its target has a
    /// scope and a name and refers to names of `strings`. Nothing else is
    /// read until it is asked for: the condition is read as it is
    /// evaluated (see the module docs), the names' bytes as the target is
    /// compared, the id as a message names the rule.
    #[inline]
    pub(crate) fn read(
        words: &'a [u32],
        strings: &'a HeadStrings<'a>,
        rule: u32,
    ) -> Result<RuleHead<'a>, &'static str> {
        let Some(&[flags, scope, target, child, instance]) = words.first_chunk::<FIXED>() else {
            return Err("a rule head shorter than its fixed words");
        };
        if flags & flag::TIMEOUT != 0 && words.len() < FIXED + 2 {
            return Err("a rule head shorter than its timeout");
        }
        // Every flag bit has a meaning: bits above them without the
        // trigger flag are not a trigger.
        if flags & flag::TRIGGER == 0 && flags >> flag::TRIGGER_SHIFT != 0 {
            return Err("a rule head whose flags do not read");
        }
        if scope == segment::NONE || target == segment::NONE {
            return Err("a target without its scope or name");
        }
        let last = scope.max(target).max(child).max(instance);
        if last as usize >= segment::NAME as usize + strings.names.len() {
            return Err("a target name out of range");
        }
        Ok(RuleHead {
            words,
            strings,
            rule,
        })
    }

    fn flags(&self) -> u32 {
        self.words.first().copied().unwrap_or(0)
    }

    fn word(&self, i: usize) -> u32 {
        self.words.get(i).copied().unwrap_or(0)
    }

    /// The rule's id; empty when the table holds no text there (a tool's
    /// read of the rule says so: [`RuleHead::into_rule`]).
    pub(crate) fn id(&self) -> &'a str {
        self.strings.id(self.rule)
    }

    /// The id as the table holds it.
    pub(crate) fn id_bytes(&self) -> &'a [u8] {
        self.strings.ids.get(self.rule as usize)
    }

    /// Disabled rules are kept (for `inspect`) but never run.
    #[inline]
    pub(crate) fn enabled(&self) -> bool {
        self.flags() & flag::ENABLED != 0
    }

    /// What a failing effect (or an overrun regex) does.
    pub(crate) fn fail(&self) -> ir::FailMode {
        if self.flags() & flag::FAIL_CLOSED != 0 {
            ir::FailMode::Closed
        } else {
            ir::FailMode::Open
        }
    }

    /// Timeout for effects, in milliseconds.
    pub(crate) fn timeout_ms(&self) -> Option<u64> {
        (self.flags() & flag::TIMEOUT != 0)
            .then(|| u64::from(self.word(FIXED + 1)) << 32 | u64::from(self.word(FIXED)))
    }

    /// The atom that triggers the rule, if any: for the tools (a dispatch
    /// reads the triggers from the point block's words).
    pub(crate) fn trigger(&self) -> Option<u32> {
        let flags = self.flags();
        (flags & flag::TRIGGER != 0).then_some(flags >> flag::TRIGGER_SHIFT)
    }

    /// Its FQL target, its names' bytes in the table.
    #[inline]
    pub(crate) fn target(&self) -> PatternRef<'a> {
        let segment = |word: u32| match word {
            segment::NONE => None,
            segment::ANY => Some(SegmentRef::Any),
            n => Some(SegmentRef::Exact(
                self.strings.names.get((n - segment::NAME) as usize),
            )),
        };
        PatternRef {
            scope: segment(self.word(1)).unwrap_or(SegmentRef::Any),
            target: segment(self.word(2)).unwrap_or(SegmentRef::Any),
            child: segment(self.word(3)),
            instance: segment(self.word(4)),
        }
    }

    /// Whether its target matches a call (as
    /// [`PatternRef::matches_lazily`]): `*::*` answers from its words.
    #[inline]
    pub(crate) fn target_matches<'c>(
        &self,
        component: &'c str,
        split: impl FnOnce() -> (&'c str, &'c str),
        child: Option<&str>,
        instance: Option<&str>,
    ) -> bool {
        const ANY_ANY: [u32; 4] = [segment::ANY, segment::ANY, segment::NONE, segment::NONE];
        self.words.get(1..FIXED) == Some(&ANY_ANY[..])
            || self
                .target()
                .matches_lazily(component, split, child, instance)
    }

    /// The ANDed `when`/`unless` lines.
    #[inline]
    pub(crate) fn cond(&self) -> CondWords<'a> {
        let at = if self.flags() & flag::TIMEOUT != 0 {
            FIXED + 2
        } else {
            FIXED
        };
        CondWords(self.words.get(at..).unwrap_or(&[]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fql::FqlPattern;
    use crate::ir::Cond;

    fn rule(target: &str, cond: Cond) -> ir::Rule {
        ir::Rule {
            id: "r".to_string(),
            target: FqlPattern::parse(target).unwrap(),
            priority: 0,
            enabled: true,
            fail: ir::FailMode::Open,
            timeout_ms: None,
            cond,
            actions: Vec::new(),
            origin: ir::Origin::default(),
            cond_origins: Vec::new(),
            trigger: None,
        }
    }

    /// The names' byte list as a point block lays it out, and its view.
    fn strings(names: &[&[u8]]) -> (Vec<u32>, super::super::ByteList) {
        let mut block = super::super::BlockWriter::new(1);
        block.byte_list(0, names.iter().copied());
        let words = block.finish();
        let range = 0..super::super::count(words.len());
        let list = super::super::Block::read(&words, range, 1, "names")
            .and_then(|b| b.byte_list(0, names.len()))
            .unwrap();
        (words, list)
    }

    fn nested(depth: usize) -> Cond {
        (0..depth).fold(Cond::Atom(0), |c, _| Cond::Not(Box::new(c)))
    }

    #[test]
    fn a_head_reads_back_as_written() {
        let conds = [
            Cond::True,
            Cond::Atom(3),
            Cond::Not(Box::new(Cond::Atom(1))),
            Cond::All(vec![
                Cond::Atom(0),
                Cond::Any(vec![Cond::Atom(1), Cond::Not(Box::new(Cond::Atom(2)))]),
                Cond::All(Vec::new()),
                Cond::True,
            ]),
            Cond::Any(Vec::new()),
            nested(MAX_DEPTH),
        ];
        let targets = [
            "*::*",
            "builtin::llm",
            "plugin::*",
            "*::fmt",
            "a::b/c#d",
            "a::b/*#*",
        ];
        for (cond, target) in conds.iter().zip(targets) {
            for (enabled, fail, timeout, trigger) in [
                (true, ir::FailMode::Open, None, None),
                (false, ir::FailMode::Closed, Some(u64::MAX - 1), Some(7)),
                (true, ir::FailMode::Closed, Some(30_000), Some(0)),
            ] {
                let mut r = rule(target, cond.clone());
                (r.enabled, r.fail, r.timeout_ms, r.trigger) = (enabled, fail, timeout, trigger);
                let mut names = Names::default();
                let words = write(&r, &mut names);
                let bytes: Vec<&[u8]> = names.names.iter().map(|n| n.as_bytes()).collect();
                let (section, list) = strings(&bytes);
                let (id_section, ids) = strings(&[b"x", b"r"]);
                let tables = HeadStrings {
                    ids: ids.view(&id_section),
                    names: list.view(&section),
                };
                let head = RuleHead::read(&words, &tables, 1).unwrap();
                assert_eq!(head.target().to_owned(), Some(r.target.clone()), "{target}");
                assert_eq!(head.target().to_string(), target);
                assert_eq!(
                    (
                        head.enabled(),
                        head.fail(),
                        head.timeout_ms(),
                        head.trigger()
                    ),
                    (enabled, fail, timeout, trigger)
                );
                assert_eq!(head.cond().to_ir(8).unwrap(), *cond);
                assert_eq!(head.id(), "r");
                // `*::*` answers from its words, as the pattern would.
                for (component, child, instance) in [
                    ("builtin::llm", None, None),
                    ("a::b", Some("c"), Some("d")),
                    ("plugin::x", Some("y"), None),
                    ("solo", None, Some("i")),
                ] {
                    let split = || crate::fql::split_component(component);
                    assert_eq!(
                        head.target_matches(component, split, child, instance),
                        r.target.matches(component, child, instance),
                        "{target} on {component} {child:?} {instance:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn names_are_written_once_per_point() {
        let mut names = Names::default();
        let a = rule("builtin::llm", Cond::True);
        let b = rule("builtin::fmt/llm", Cond::True);
        let (wa, wb) = (write(&a, &mut names), write(&b, &mut names));
        assert_eq!(names.names, ["builtin", "llm", "fmt"]);
        assert_eq!(wa.get(1..5), Some(&[2, 3, 0, 0][..]));
        assert_eq!(wb.get(1..5), Some(&[2, 4, 3, 0][..]));
    }

    /// A condition's words with one word replaced.
    fn crafted(cond: &Cond, at: usize, word: u32) -> Vec<u32> {
        let mut words = Vec::new();
        write_cond(cond, &mut words);
        words[at] = word;
        words
    }

    #[test]
    fn crafted_conditions_are_errors_not_crashes() {
        let all = Cond::All(vec![Cond::Atom(0), Cond::Atom(1)]);
        for (words, error) in [
            (Vec::new(), "without its words"),
            (
                crafted(&all, 0, kind::ALL << KIND_SHIFT | 9),
                "reaches past",
            ),
            (
                crafted(&all, 0, kind::NOT << KIND_SHIFT | 9),
                "reaches past",
            ),
            (crafted(&all, 1, 7 << KIND_SHIFT), "unknown kind"),
            (
                crafted(&all, 2, kind::ATOM << KIND_SHIFT | 5),
                "out of range",
            ),
            (
                crafted(&all, 0, kind::NOT << KIND_SHIFT | 2),
                "does not fill",
            ),
            (crafted(&all, 0, kind::ATOM << KIND_SHIFT), "words after"),
            (crafted(&Cond::True, 0, 1), "unknown kind"),
        ] {
            let err = CondWords(&words).to_ir(2).unwrap_err();
            assert!(err.contains(error), "{words:?}: {err}");
        }
        // A million-deep `not not … true`, as a hostile table would hold it.
        let mut deep: Vec<u32> = (0..1_000_000u32)
            .map(|i| kind::NOT << KIND_SHIFT | (1_000_000 - i))
            .collect();
        deep.push(kind::TRUE << KIND_SHIFT);
        let err = CondWords(&deep).to_ir(2).unwrap_err();
        assert!(err.contains("nested deeper"), "{err}");
        let mut words = Vec::new();
        write_cond(&nested(MAX_DEPTH + 1), &mut words);
        assert!(CondWords(&words).to_ir(1).is_err());
    }

    #[test]
    fn operands_step_over_each_other_and_stop_at_the_end() {
        let cond = Cond::Any(vec![
            Cond::All(vec![Cond::Atom(0), Cond::Not(Box::new(Cond::Atom(1)))]),
            Cond::Atom(2),
            Cond::True,
        ]);
        let mut words = Vec::new();
        write_cond(&cond, &mut words);
        let Node::Any(ops) = CondWords(&words).node() else {
            panic!("an `any`");
        };
        let mut atoms = Vec::new();
        let mut rest = ops;
        while let Some(operand) = rest.next_operand() {
            atoms.push(operand.ok());
        }
        assert_eq!(atoms, [None, Some(2), None]);
        assert_eq!(ops.count(), 3);
        // An operand that reaches past the end is cut there, and reads bad.
        let cut = [kind::ALL << KIND_SHIFT | 2, kind::NOT << KIND_SHIFT | 5, 0];
        let Node::All(mut ops) = CondWords(&cut).node() else {
            panic!("an `all`");
        };
        assert!(matches!(
            ops.next().map(CondWords::node),
            Some(Node::Bad(_))
        ));
        assert!(ops.next().is_none());
    }

    #[test]
    fn crafted_heads_are_errors() {
        let r = rule("builtin::llm", Cond::True);
        let mut names = Names::default();
        let words = write(&r, &mut names);
        let bytes: Vec<&[u8]> = names.names.iter().map(|n| n.as_bytes()).collect();
        let (section, list) = strings(&bytes);
        let (id_section, ids) = strings(&[b"r", b"\xff"]);
        let tables = HeadStrings {
            ids: ids.view(&id_section),
            names: list.view(&section),
        };
        let with = |at: usize, word: u32| {
            let mut w = words.clone();
            w[at] = word;
            w
        };
        for (words, error) in [
            (words.get(..FIXED - 1).unwrap().to_vec(), "shorter"),
            (with(0, 1 << 9 | flag::ENABLED), "flags do not read"),
            (
                with(0, flag::ENABLED | flag::TIMEOUT),
                "shorter than its timeout",
            ),
            (with(1, 9), "out of range"),
            (with(4, 4), "out of range"),
            (with(2, segment::NONE), "without its scope"),
        ] {
            let err = RuleHead::read(&words, &tables, 0).unwrap_err();
            assert!(err.contains(error), "{err}");
        }
        // An id or a name that is not text reads (a dispatch compares
        // bytes), and a tool's read of the rule says what is wrong.
        let head = RuleHead::read(&words, &tables, 1).unwrap();
        assert_eq!((head.id(), head.id_bytes()), ("", &b"\xff"[..]));
        let (section, list) = strings(&[b"\xff", b"llm"]);
        let tables = HeadStrings {
            names: list.view(&section),
            ..tables
        };
        let head = RuleHead::read(&words, &tables, 0).unwrap();
        assert_eq!(head.target().to_string(), "\u{fffd}::llm");
        assert_eq!(head.target().to_owned(), None);
    }
}
