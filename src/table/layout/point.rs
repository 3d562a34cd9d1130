//! A point's block: its rules, atoms, FQL index and field matchers, laid
//! out in words and read in place.
//!
//! In words, because a dispatch reads them before it knows which rules it
//! will run: the rules' priorities and ids, each rule's head (its target,
//! flags and condition, read at every candidate: module
//! [`head`](super::head)) and the target names the heads refer to, the
//! atom → field map, the trigger lists, the FQL index (a hash table per
//! key kind, and the rule lists of each group), and per field its
//! equality table, its DFA's atoms, its literals and their search
//! (anchors, lengths, a hash table of the literals). As postcard blobs,
//! decoded the first time a dispatch needs them and kept: each rule's
//! body, its actions and origins (decoded when it fires: see
//! [`rule`](crate::table::rule)), each atom (decoded when it is evaluated
//! on its own; most are decided by the field matchers and never are),
//! each field's path (decoded with the point).
//!
//! A load slices what a dispatch reads at every candidate, atom and hit
//! (the priorities, the heads, ids and names, the atom → field map, the
//! triggers, the FQL groups, and each field block's tables and lists)
//! into a [`PointSlot`], so a
//! dispatch indexes slices and checks no range; it decodes none of the
//! blobs. The first dispatch of a point checks its block's checksum (only
//! then are the slices read), reads the rest of its header and decodes
//! its field paths, then what its candidates need: a hook process
//! answering one event decodes the bodies of the rules that fire and the
//! atoms evaluated on their own, whatever the table holds.

use super::head;
use super::strtable::{StrTable, TableView};
use super::{at, Block, BlockWriter, ByteList, Csr, CsrView, LayoutError, Words};
use crate::ir;
use crate::schema::{EditApplication, PointKind};
use crate::table::literals::{self, LiteralSearch, LiteralStart, StoredLiterals};
use crate::table::rule::{RuleBody, RuleHead};
use crate::table::validate;
use crate::table::wire::{self, PointHead};
use std::sync::OnceLock;

/// The slots of a point block.
mod slot {
    /// `[rules R, atoms A, fields F, buckets B]`.
    pub(super) const COUNTS: u32 = 0;
    /// R words: each rule's priority (`i32` bits).
    pub(super) const PRIORITIES: u32 = 1;
    /// R strings: each rule's id.
    pub(super) const IDS: u32 = 2;
    /// R lists: each rule's head (its target, condition and failure
    /// mode), read in place when the rule is a candidate (module
    /// [`head`](super::super::head)).
    pub(super) const HEADS: u32 = 3;
    /// A blobs: each atom.
    pub(super) const ATOMS: u32 = 4;
    /// A words: the field that computes each atom, or `NO_FIELD`.
    pub(super) const ATOM_FIELD: u32 = 5;
    /// A lists: the rules each atom triggers.
    pub(super) const TRIGGERS: u32 = 6;
    /// B records of [`BUCKET`](super::BUCKET) words: each FQL group's
    /// lists (in `BUCKET_ITEMS`) and trigger fields.
    pub(super) const BUCKETS: u32 = 7;
    /// The rule lists the groups' records name.
    pub(super) const BUCKET_ITEMS: u32 = 8;
    /// Keys, table and group of each exact `scope::target`.
    pub(super) const EXACT: u32 = 9;
    /// The same for `scope::*`, by scope.
    pub(super) const SCOPE: u32 = 10;
    /// The same for `*::target`, by target.
    pub(super) const TARGET: u32 = 11;
    /// One word: the group of `*::*`.
    pub(super) const ANY: u32 = 12;
    /// A block of F field blocks.
    pub(super) const FIELDS: u32 = 13;
    /// R blobs: each rule's body (its actions and origins), decoded when
    /// the rule fires.
    pub(super) const BODIES: u32 = 14;
    /// The target names the heads refer to, each once.
    pub(super) const NAMES: u32 = 15;
    pub(super) const LEN: u32 = 16;
}

/// The words of a group's record: the start and end (in `BUCKET_ITEMS`)
/// of its rules, of its untriggered rules, then its trigger fields (a
/// `u64`, low word first). One record, one bounds check per group.
const BUCKET: usize = 6;

/// The slots of a keyed group index (`EXACT`, `SCOPE`, `TARGET`).
mod keyed {
    /// One word: the number of keys K.
    pub(super) const COUNT: u32 = 0;
    /// K strings.
    pub(super) const KEYS: u32 = 1;
    /// A hash table of the keys.
    pub(super) const TABLE: u32 = 2;
    /// K words: each key's group.
    pub(super) const BUCKETS: u32 = 3;
    pub(super) const LEN: u32 = 4;
}

/// The slots of a field block.
mod field {
    /// `[equality keys E, literals L, anchors N]`.
    pub(super) const COUNTS: u32 = 0;
    /// The field's path, a blob.
    pub(super) const PATH: u32 = 1;
    /// The atoms the field's matchers compute, ascending.
    pub(super) const BULK: u32 = 2;
    /// E strings: the constants an equality tests.
    pub(super) const EQ_KEYS: u32 = 3;
    /// A hash table of them.
    pub(super) const EQ_TABLE: u32 = 4;
    /// E lists: the atoms that hold when the field equals each.
    pub(super) const EQ_ATOMS: u32 = 5;
    /// One word: the DFA section, or `NO_DFA`.
    pub(super) const DFA: u32 = 6;
    /// The atom each DFA pattern decides.
    pub(super) const DFA_ATOMS: u32 = 7;
    /// L strings: the literals searched for.
    pub(super) const LITERALS: u32 = 8;
    /// L lists: the atoms that hold when the field contains each.
    pub(super) const LITERAL_ATOMS: u32 = 9;
    /// L lists: the atoms to verify when it does.
    pub(super) const LITERAL_CHECKS: u32 = 10;
    /// One word: the longest anchor's length in bytes; 0 when the
    /// literals take the automaton (see `table::literals`). Tables written
    /// before anchors could differ in length have anchors all this long,
    /// which still read as they did.
    pub(super) const ANCHOR_WIDTH: u32 = 11;
    /// N strings: the anchors, sorted, none the beginning of another.
    pub(super) const ANCHORS: u32 = 12;
    /// N lists: the lengths of each anchor's literals, ascending.
    pub(super) const ANCHOR_LENGTHS: u32 = 13;
    /// A hash table of the literals (with anchors), or an empty table.
    pub(super) const LITERAL_TABLE: u32 = 14;
    /// The bulk atoms that hold when the event lacks the field
    /// ([`Atom::holds_when_absent`](crate::ir::Atom::holds_when_absent)):
    /// a dispatch decides the others false without decoding them.
    pub(super) const ABSENT: u32 = 15;
    pub(super) const LEN: u32 = 16;
}

/// Writes `point`'s block, and the head the meta block lists it by.
pub(crate) fn write(point: &ir::PointProgram) -> (PointHead, BlockWriter) {
    // Every field of the point, named: one added to the IR does not
    // compile until the format says where it goes.
    let ir::PointProgram {
        name,
        kind,
        edits,
        rules,
        index,
        atoms,
        atom_field,
        fields,
        triggers,
    } = point;
    let ir::FqlIndex {
        exact,
        scope,
        target,
        any,
    } = index;
    let mut buckets: Vec<&ir::Bucket> = Vec::new();
    let exact = keyed_block(exact, &mut buckets);
    let scope = keyed_block(scope, &mut buckets);
    let target = keyed_block(target, &mut buckets);
    let any_id = super::count(buckets.len());
    buckets.push(any);

    let mut block = BlockWriter::new(slot::LEN);
    block.words(
        slot::COUNTS,
        &[
            super::count(rules.len()),
            super::count(atoms.len()),
            super::count(fields.len()),
            super::count(buckets.len()),
        ],
    );
    let priorities: Vec<u32> = rules.iter().map(|r| r.priority as u32).collect();
    block.words(slot::PRIORITIES, &priorities);
    block.byte_list(slot::IDS, rules.iter().map(|r| r.id.as_bytes()));
    let mut names = head::Names::default();
    let heads: Vec<Vec<u32>> = rules.iter().map(|r| head::write(r, &mut names)).collect();
    block.csr(slot::HEADS, heads.iter().map(Vec::as_slice));
    block.byte_list(slot::NAMES, names.names.iter().map(|n| n.as_bytes()));
    let bodies: Vec<Vec<u8>> = rules.iter().map(wire::write_rule_body).collect();
    block.byte_list(slot::BODIES, bodies.iter().map(Vec::as_slice));
    let atom_blobs: Vec<Vec<u8>> = atoms.iter().map(wire::write_atom).collect();
    block.byte_list(slot::ATOMS, atom_blobs.iter().map(Vec::as_slice));
    block.words(slot::ATOM_FIELD, atom_field);
    block.csr(slot::TRIGGERS, triggers.iter().map(Vec::as_slice));
    let mut records = Vec::with_capacity(BUCKET * buckets.len());
    let mut items = Vec::new();
    for b in &buckets {
        let mut list = |rules: &[u32]| {
            let start = super::count(items.len());
            items.extend_from_slice(rules);
            [start, super::count(items.len())]
        };
        let (rules, untriggered) = (list(&b.rules), list(&b.untriggered));
        records.extend(rules);
        records.extend(untriggered);
        records.extend([b.fields as u32, (b.fields >> 32) as u32]);
    }
    block.words(slot::BUCKETS, &records);
    block.words(slot::BUCKET_ITEMS, &items);
    block.block(slot::EXACT, exact);
    block.block(slot::SCOPE, scope);
    block.block(slot::TARGET, target);
    block.scalar(slot::ANY, any_id);
    let mut field_blocks = BlockWriter::new(super::count(fields.len()));
    for (i, f) in fields.iter().enumerate() {
        field_blocks.block(super::count(i), write_field(f, atoms));
    }
    block.block(slot::FIELDS, field_blocks);
    let head = PointHead {
        name: name.clone(),
        kind: *kind,
        edits: edits.clone(),
        rules: super::count(rules.len()),
        atoms: super::count(atoms.len()),
        fields: super::count(fields.len()),
    };
    (head, block)
}

/// The block of a keyed group index; its groups join `buckets`.
fn keyed_block<'p>(keyed: &'p ir::Keyed, buckets: &mut Vec<&'p ir::Bucket>) -> BlockWriter {
    let mut block = BlockWriter::new(keyed::LEN);
    let keys = &keyed.map.keys;
    block.scalar(keyed::COUNT, super::count(keys.len()));
    block.byte_list(keyed::KEYS, keys.iter().map(|k| k.as_bytes()));
    block.table(keyed::TABLE, keys.iter().map(|k| k.as_bytes()));
    // Key `i`'s group is bucket `i` (the IR's map gives each key its own
    // index, which `Table::validate` checks).
    let ids: Vec<u32> = (0..keys.len())
        .map(|i| {
            let id = super::count(buckets.len());
            buckets.push(keyed.buckets.get(i).unwrap_or(&EMPTY_BUCKET));
            id
        })
        .collect();
    block.words(keyed::BUCKETS, &ids);
    block
}

static EMPTY_BUCKET: ir::Bucket = ir::Bucket {
    rules: Vec::new(),
    untriggered: Vec::new(),
    fields: 0,
};

fn write_field(f: &ir::FieldMatcher, atoms: &[ir::Atom]) -> BlockWriter {
    let ir::FieldMatcher {
        path,
        bulk,
        eq,
        dfa,
        dfa_atoms,
        literals,
        literal_atoms,
        literal_checks,
    } = f;
    let literal_bytes: Vec<&[u8]> = literals.iter().map(|l| l.as_bytes()).collect();
    let plan = literals::plan(&literal_bytes);
    let mut block = BlockWriter::new(field::LEN);
    block.words(
        field::COUNTS,
        &[
            super::count(eq.keys.len()),
            super::count(literals.len()),
            super::count(plan.as_ref().map_or(0, |p| p.anchors.len())),
        ],
    );
    block.bytes(field::PATH, &wire::write_path(path));
    block.words(field::BULK, bulk);
    block.byte_list(field::EQ_KEYS, eq.keys.iter().map(|k| k.as_bytes()));
    block.table(field::EQ_TABLE, eq.keys.iter().map(|k| k.as_bytes()));
    block.csr(field::EQ_ATOMS, eq.values.iter().map(Vec::as_slice));
    block.scalar(field::DFA, dfa.unwrap_or(ir::NO_DFA));
    block.words(field::DFA_ATOMS, dfa_atoms);
    block.byte_list(field::LITERALS, literal_bytes.iter().copied());
    block.csr(
        field::LITERAL_ATOMS,
        literal_atoms.iter().map(Vec::as_slice),
    );
    block.csr(
        field::LITERAL_CHECKS,
        literal_checks.iter().map(Vec::as_slice),
    );
    let absent: Vec<u32> = bulk
        .iter()
        .copied()
        .filter(|&a| {
            atoms
                .get(a as usize)
                .is_some_and(ir::Atom::holds_when_absent)
        })
        .collect();
    block.words(field::ABSENT, &absent);
    match &plan {
        Some(plan) => {
            block.scalar(field::ANCHOR_WIDTH, super::count(plan.width));
            block.byte_list(field::ANCHORS, plan.anchors.iter().map(Vec::as_slice));
            block.csr(
                field::ANCHOR_LENGTHS,
                plan.lengths.iter().map(Vec::as_slice),
            );
            block.table(field::LITERAL_TABLE, literal_bytes.iter().copied());
        }
        None => {
            block.scalar(field::ANCHOR_WIDTH, 0);
            block.byte_list(field::ANCHORS, std::iter::empty());
            block.csr(field::ANCHOR_LENGTHS, std::iter::empty());
            block.table(field::LITERAL_TABLE, std::iter::empty());
        }
    }
    block
}

/// The rest of a point block's structure (what [`Hot`] does not hold),
/// read the first time the point is dispatched and kept: absolute word
/// ranges, read in place by the rare reads (a rule's id and blob, an
/// atom's blob, a target's group).
#[derive(Clone, Debug, Default)]
pub(crate) struct PointLayout {
    bodies: ByteList,
    atoms: ByteList,
    exact: Keyed,
    scope: Keyed,
    target: Keyed,
}

/// The slots of a point block a dispatch reads at every candidate, atom
/// and hit, sliced from the section when the table loads: a dispatch
/// reads them without a range check, and a point view is a few pointers.
/// Sliced before the block's checksum is checked, and read only once it
/// is (see [`PointSlot::view`]).
#[derive(Clone, Debug, Default)]
struct Hot<'a> {
    /// The group of `*::*`.
    any: u32,
    priorities: &'a [u32],
    /// Each rule's head words, and the ids and names they refer to.
    heads: CsrView<'a>,
    head_strings: head::HeadStrings<'a>,
    atom_field: &'a [u32],
    triggers: CsrView<'a>,
    buckets: &'a [u32],
    bucket_items: &'a [u32],
    fields: Box<[FieldSlot<'a>]>,
    /// Bit `f` (below 64) set when field `f` has only exact values to
    /// look up: no DFA and no literals. Derived from `fields` at load, so
    /// that a condition's atom tests it without reaching the field's slot.
    exact_fields: u64,
}

/// A field block's structure, and what a scan reads of it, sliced when
/// the table loads.
#[derive(Clone, Debug)]
struct FieldSlot<'a> {
    layout: FieldLayout,
    bulk: &'a [u32],
    eq: TableView<'a>,
    eq_atoms: CsrView<'a>,
    dfa_atoms: &'a [u32],
    literals: StoredLiterals<'a>,
    literal_atoms: CsrView<'a>,
    literal_checks: CsrView<'a>,
    absent: &'a [u32],
}

impl<'a> FieldSlot<'a> {
    fn new(section: &'a [u32], layout: FieldLayout) -> FieldSlot<'a> {
        FieldSlot {
            bulk: at(section, &layout.bulk),
            eq: layout.eq_table.view(section, &layout.eq_keys),
            eq_atoms: layout.eq_atoms.view(section),
            dfa_atoms: at(section, &layout.dfa_atoms),
            literals: layout.stored_literals(section),
            literal_atoms: layout.literal_atoms.view(section),
            literal_checks: layout.literal_checks.view(section),
            absent: at(section, &layout.absent),
            layout,
        }
    }
}

impl<'a> Hot<'a> {
    /// The hot slots and the field blocks of the point block at `range`.
    fn read(section: &'a [u32], range: &Words, head: &PointHead) -> Result<Hot<'a>, LayoutError> {
        let (block, buckets) = PointLayout::counts(section, range.clone(), head)?;
        let slice = |range: Words| at(section, &range);
        let field_blocks = block.block(slot::FIELDS, head.fields, "the field blocks")?;
        let fields = (0..head.fields)
            .map(|i| {
                let layout =
                    FieldLayout::read(&field_blocks.block(i, field::LEN, "a field block")?)?;
                Ok(FieldSlot::new(section, layout))
            })
            .collect::<Result<Box<[_]>, LayoutError>>()?;
        let exact_fields = fields
            .iter()
            .take(64)
            .enumerate()
            .filter(|(_, f)| f.layout.dfa == ir::NO_DFA && f.literals.len() == 0)
            .fold(0, |bits, (f, _)| bits | 1 << f);
        Ok(Hot {
            any: block.scalar(slot::ANY)?,
            priorities: slice(block.words(slot::PRIORITIES, head.rules as usize)?),
            heads: block.csr(slot::HEADS, head.rules as usize)?.view(section),
            head_strings: head::HeadStrings {
                ids: block
                    .byte_list(slot::IDS, head.rules as usize)?
                    .view(section),
                names: block.byte_list_any(slot::NAMES)?.view(section),
            },
            // Read as long as they are: a short table answers `NO_FIELD`
            // and no trigger past its end, and `Table::validate` says so.
            atom_field: slice(block.slot(slot::ATOM_FIELD)?),
            triggers: block.csr_any(slot::TRIGGERS)?.view(section),
            buckets: slice(block.words(slot::BUCKETS, BUCKET * buckets)?),
            bucket_items: slice(block.slot(slot::BUCKET_ITEMS)?),
            fields,
            exact_fields,
        })
    }
}

/// One keyed group index.
#[derive(Clone, Debug, Default)]
struct Keyed {
    keys: ByteList,
    table: StrTable,
    buckets: Words,
}

/// A field block's structure.
#[derive(Clone, Debug, Default)]
pub(crate) struct FieldLayout {
    path: Vec<u8>,
    bulk: Words,
    eq_keys: ByteList,
    eq_table: StrTable,
    eq_atoms: Csr,
    dfa: u32,
    dfa_atoms: Words,
    literals: ByteList,
    literal_atoms: Csr,
    literal_checks: Csr,
    absent: Words,
    anchor_width: u32,
    anchors: ByteList,
    anchor_lengths: Csr,
    literal_table: StrTable,
}

impl PointLayout {
    /// Reads the block of the point `head` describes: every slot within
    /// its block, every list the length the counts say.
    pub(crate) fn read(
        section: &[u32],
        range: Words,
        head: &PointHead,
    ) -> Result<PointLayout, LayoutError> {
        // The hot slots and the fields were read at load (`Hot`).
        let (block, _) = PointLayout::counts(section, range, head)?;
        let (r, a) = (head.rules as usize, head.atoms as usize);
        let keyed = |i: u32, what: &'static str| -> Result<Keyed, LayoutError> {
            let k = block.block(i, keyed::LEN, what)?;
            let n = k.scalar(keyed::COUNT)? as usize;
            Ok(Keyed {
                keys: k.byte_list(keyed::KEYS, n)?,
                table: StrTable::read(&k, keyed::TABLE, n)?,
                buckets: k.words(keyed::BUCKETS, n)?,
            })
        };
        Ok(PointLayout {
            bodies: block.byte_list(slot::BODIES, r)?,
            atoms: block.byte_list(slot::ATOMS, a)?,
            exact: keyed(slot::EXACT, "the exact targets")?,
            scope: keyed(slot::SCOPE, "the scopes")?,
            target: keyed(slot::TARGET, "the targets")?,
        })
    }

    /// The point block at `range`, whose counts must be those `head`
    /// lists, and its number of FQL groups.
    fn counts<'s>(
        section: &'s [u32],
        range: Words,
        head: &PointHead,
    ) -> Result<(Block<'s>, usize), LayoutError> {
        let block = Block::read(section, range, slot::LEN, "a point block")?;
        let counts = at(section, &block.words(slot::COUNTS, 4)?);
        let &[rules, atoms, fields, buckets] = counts else {
            return Err(LayoutError::new("a point block without its counts"));
        };
        if (rules, atoms, fields) != (head.rules, head.atoms, head.fields) {
            return Err(LayoutError::new(format!(
                "point `{}`: its block counts {rules} rules, {atoms} atoms and {fields} fields where the table lists {}, {} and {}",
                head.name, head.rules, head.atoms, head.fields
            )));
        }
        Ok((block, buckets as usize))
    }
}

impl FieldLayout {
    /// Its literals as stored, for the literal search.
    pub(crate) fn stored_literals<'a>(&self, section: &'a [u32]) -> StoredLiterals<'a> {
        StoredLiterals {
            literals: self.literals.view(section),
            width: self.anchor_width,
            anchors: self.anchors.view(section),
            lengths: self.anchor_lengths.view(section),
            table: self.literal_table.view(section, &self.literals),
        }
    }

    /// The words of a field block holding `literals` (no atoms), and its
    /// layout: for the literal search's tests.
    #[cfg(test)]
    pub(crate) fn of_literals(literals: &[String]) -> (Vec<u32>, FieldLayout) {
        let matcher = ir::FieldMatcher {
            path: ir::FieldPath {
                root: ir::Root::Payload,
                segments: Vec::new(),
                normalized: false,
            },
            bulk: Vec::new(),
            eq: ir::StrMap::default(),
            dfa: None,
            dfa_atoms: Vec::new(),
            literals: literals.to_vec(),
            literal_atoms: vec![Vec::new(); literals.len()],
            literal_checks: vec![Vec::new(); literals.len()],
        };
        let words = write_field(&matcher, &[]).finish();
        let range = 0..super::count(words.len());
        let layout = Block::read(&words, range, field::LEN, "a field block")
            .and_then(|block| FieldLayout::read(&block));
        match layout {
            Ok(layout) => (words, layout),
            Err(e) => panic!("a field block does not read back: {e}"),
        }
    }

    fn read(block: &Block<'_>) -> Result<FieldLayout, LayoutError> {
        let counts = at(block.section, &block.words(field::COUNTS, 3)?);
        let &[eq, literals, anchors] = counts else {
            return Err(LayoutError::new("a field block without its counts"));
        };
        let (e, l, n) = (eq as usize, literals as usize, anchors as usize);
        let anchor_width = block.scalar(field::ANCHOR_WIDTH)?;
        let literal_table = if anchor_width == 0 {
            StrTable::read(block, field::LITERAL_TABLE, 0)?
        } else {
            StrTable::read(block, field::LITERAL_TABLE, l)?
        };
        Ok(FieldLayout {
            path: block.bytes(field::PATH)?.to_vec(),
            bulk: block.slot(field::BULK)?,
            eq_keys: block.byte_list(field::EQ_KEYS, e)?,
            eq_table: StrTable::read(block, field::EQ_TABLE, e)?,
            eq_atoms: block.csr(field::EQ_ATOMS, e)?,
            dfa: block.scalar(field::DFA)?,
            dfa_atoms: block.slot(field::DFA_ATOMS)?,
            literals: block.byte_list(field::LITERALS, l)?,
            literal_atoms: block.csr(field::LITERAL_ATOMS, l)?,
            literal_checks: block.csr(field::LITERAL_CHECKS, l)?,
            absent: block.slot(field::ABSENT)?,
            anchor_width,
            anchors: block.byte_list(field::ANCHORS, n)?,
            anchor_lengths: block.csr(field::ANCHOR_LENGTHS, n)?,
            literal_table,
        })
    }
}

/// What a point's rules and atoms may refer to outside the point: the
/// program's regexes, source files and rate counters. A rule or atom
/// decoded lazily is checked against them, as a whole load checks them.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Refs<'a> {
    pub(crate) regexes: usize,
    pub(crate) files: usize,
    pub(crate) rates: &'a [ir::RateSpec],
}

/// A rule or atom decoded on first use, or why it does not decode.
type Decoded<T> = OnceLock<Result<Box<T>, Box<str>>>;

/// A point as a loaded table keeps it: its head, where its block is, its
/// hot slots, and what its dispatches have read of it so far.
#[derive(Debug)]
pub(crate) struct PointSlot<'a> {
    pub(crate) head: PointHead,
    /// The program block's words, which `block` is in.
    section: &'a [u32],
    block: Words,
    /// The CRC-32 of the block, checked when it is first read.
    crc: u32,
    /// Names this point of this loaded table among all (see
    /// [`Point::key`]); 0 until the load numbers it.
    key: u64,
    /// Its hot slots and fields, sliced at load, or why they do not read
    /// (the point's first dispatch then says it).
    hot: Result<Hot<'a>, Box<str>>,
    state: OnceLock<Result<PointState, Box<str>>>,
}

/// A point block once read: its layout, its field paths, and each rule,
/// atom and literal search as dispatches come to need them.
#[derive(Debug)]
pub(crate) struct PointState {
    layout: PointLayout,
    paths: Vec<ir::FieldPath>,
    /// The roots of those paths, one bit per root ([`ir::Root::bit`]).
    field_roots: u32,
    /// Each rule's body, decoded when the rule first fires.
    bodies: Box<[Decoded<RuleBody>]>,
    atoms: Box<[Decoded<ir::Atom>]>,
    searches: Box<[OnceLock<Option<LiteralSearch>>]>,
}

impl<'a> PointSlot<'a> {
    /// The point `head` names, whose block is at `block` of `section`:
    /// its hot slots and field blocks sliced, no blob read.
    pub(crate) fn new(
        section: &'a [u32],
        head: PointHead,
        block: Words,
        crc: u32,
    ) -> PointSlot<'a> {
        PointSlot {
            hot: Hot::read(section, &block, &head).map_err(|e| e.to_string().into()),
            section,
            head,
            block,
            crc,
            key: 0,
            state: OnceLock::new(),
        }
    }

    /// Numbers the point among all points of all loaded tables.
    pub(crate) fn set_key(&mut self, key: u64) {
        self.key = key;
    }

    /// Where its block is in the program block's words.
    #[cfg(test)]
    pub(crate) fn block_words(&self) -> Words {
        self.block.clone()
    }

    /// A point without rules (a registry's native hooks run there).
    pub(crate) fn empty(name: &str, kind: PointKind, edits: EditApplication) -> PointSlot<'a> {
        let slot = PointSlot {
            head: PointHead {
                name: name.to_string(),
                kind,
                edits,
                rules: 0,
                atoms: 0,
                fields: 0,
            },
            section: &[],
            block: 0..0,
            crc: 0,
            key: 0,
            hot: Ok(Hot::default()),
            state: OnceLock::new(),
        };
        let _ = slot.state.set(Ok(PointState {
            layout: PointLayout::default(),
            paths: Vec::new(),
            field_roots: 0,
            bodies: Box::new([]),
            atoms: Box::new([]),
            searches: Box::new([]),
        }));
        slot
    }

    /// The point, its block read on first use; `Err` when the block does
    /// not read (a crafted table: the loader checked its bounds, not its
    /// structure).
    #[inline]
    pub(crate) fn view(
        &'a self,
        refs: Refs<'a>,
        literal_start: LiteralStart,
    ) -> Result<Point<'a>, &'a str> {
        // Only once the block's checksum and layout are checked are its
        // hot slots (sliced at load) read.
        let state = self
            .state
            .get_or_init(|| PointState::read(self))
            .as_ref()
            .map_err(|e| &**e)?;
        let hot = self.hot.as_ref().map_err(|e| &**e)?;
        Ok(Point {
            slot: self,
            hot,
            state,
            refs,
            literal_start,
        })
    }
}

impl PointState {
    /// The state of `slot`'s block: its checksum checked first, then
    /// what the load sliced (refused if it did not read), then the rest.
    fn read(slot: &PointSlot<'_>) -> Result<PointState, Box<str>> {
        let PointSlot {
            head,
            section,
            block,
            crc,
            hot,
            ..
        } = slot;
        let crc = *crc;
        let fail = |e: &dyn std::fmt::Display| -> Box<str> {
            format!("point `{}`: {e}", head.name).into()
        };
        let found = super::checksum(at(section, block));
        if found != crc {
            return Err(fail(&format!(
                "its block's checksum is {found:#010x}, not {crc:#010x}: the table is corrupted"
            )));
        }
        let hot = hot.as_ref().map_err(|e| fail(e))?;
        let layout = PointLayout::read(section, block.clone(), head).map_err(|e| fail(&e))?;
        let paths = hot
            .fields
            .iter()
            .map(|f| wire::read_path(&f.layout.path))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| fail(&format!("a field path: {e}")))?;
        Ok(PointState {
            field_roots: paths.iter().fold(0, |roots, p| roots | p.root.bit()),
            bodies: cells(head.rules as usize),
            atoms: cells(head.atoms as usize),
            searches: cells(head.fields as usize),
            paths,
            layout,
        })
    }
}

/// `n` cells, none set.
pub(crate) fn cells<T>(n: usize) -> Box<[OnceLock<T>]> {
    std::iter::repeat_with(OnceLock::new).take(n).collect()
}

/// A point of a loaded table, for one dispatch: reads its block in place
/// and decodes rules and atoms as they are asked for. A few pointers:
/// what a dispatch reads at every candidate, atom and hit was sliced when
/// the table loaded.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Point<'a> {
    slot: &'a PointSlot<'a>,
    hot: &'a Hot<'a>,
    state: &'a PointState,
    refs: Refs<'a>,
    literal_start: LiteralStart,
}

/// No FQL group (a component no exact, scope or name group has).
pub(crate) const NO_GROUP: u32 = u32::MAX;

/// The rules of one FQL group.
#[derive(Clone, Copy, Debug, Default)]
struct Bucket<'a> {
    /// All of them, ascending.
    rules: &'a [u32],
    /// Those without a trigger, ascending.
    untriggered: &'a [u32],
    /// The fields their triggers are on (bit 63: every field from 63 on).
    fields: u64,
}

/// What a target's groups (its exact, scope and name groups, and `*::*`)
/// give a dispatch: the rules it runs whatever the event, and the fields
/// whose atoms trigger the others.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct GroupRules<'a> {
    /// Each group's rules without a trigger, ascending.
    pub(crate) untriggered: [&'a [u32]; 4],
    /// The fields their triggers are on (bit 63: every field from 63 on).
    pub(crate) fields: u64,
}

impl<'a> Point<'a> {
    /// The point's dotted name.
    pub(crate) fn name(&self) -> &'a str {
        &self.slot.head.name
    }

    /// Pre, post or event.
    pub(crate) fn kind(&self) -> PointKind {
        self.slot.head.kind
    }

    /// How its host applies an edit before the next rule.
    pub(crate) fn edits(&self) -> &'a EditApplication {
        &self.slot.head.edits
    }

    /// How many rules.
    pub(crate) fn rule_count(&self) -> u32 {
        self.slot.head.rules
    }

    /// Rule `i`'s priority.
    #[inline]
    pub(crate) fn priority(&self, i: u32) -> i32 {
        self.hot.priorities.get(i as usize).map_or(0, |&p| p as i32)
    }

    /// How many rules come first to a native hook of `priority` (those of
    /// a priority no higher: rules are in priority order).
    pub(crate) fn rules_up_to(&self, priority: i32) -> u32 {
        let priorities = self.hot.priorities;
        super::count(priorities.partition_point(|&p| p as i32 <= priority))
    }

    /// Rule `i`'s id (empty when the table holds no text there: such a
    /// rule does not read, see [`rule`](Self::rule)).
    pub(crate) fn rule_id(&self, i: u32) -> &'a str {
        self.hot.head_strings.id(i)
    }

    /// Rule `i`'s head, read in place; `Err` says why it does not read.
    /// Its condition is checked as it is evaluated (module
    /// [`head`](super::head)).
    #[inline]
    pub(crate) fn rule(&self, i: u32) -> Result<RuleHead<'a>, String> {
        RuleHead::read(self.hot.heads.get(i as usize), &self.hot.head_strings, i)
            .map_err(|e| self.rule_error(i, e.to_string()))
    }

    /// Rule `i`'s body (its actions and origins), decoded the first time
    /// the rule fires; `Err` says why it does not decode. Inlined: a rule
    /// that fires is asked for its body at every dispatch, and after the
    /// first it is a load and a test.
    #[inline]
    pub(crate) fn body(&self, i: u32) -> Result<&'a RuleBody, &'a str> {
        self.state
            .bodies
            .get(i as usize)
            .ok_or("a rule index out of range")?
            .get_or_init(|| self.decode_body(i).map(Box::new).map_err(Into::into))
            .as_ref()
            .map(|b| &**b)
            .map_err(|e| &**e)
    }

    /// Rule `i`'s body decoded and checked against what it may refer to.
    fn decode_body(&self, i: u32) -> Result<RuleBody, String> {
        let body = self.read_body(i)?;
        validate::rule_body(&body, self.refs.regexes, self.refs.files)
            .map_err(|e| self.rule_error(i, e.to_string()))?;
        Ok(body)
    }

    /// Rule `i`'s body decoded, unchecked.
    fn read_body(&self, i: u32) -> Result<RuleBody, String> {
        let bytes = self.state.layout.bodies.get(self.slot.section, i as usize);
        wire::read_rule_body(bytes).map_err(|e| self.rule_error(i, e))
    }

    /// Rule `i` whole, its condition checked, its body unchecked (for the
    /// tools).
    fn read_rule(&self, i: u32) -> Result<ir::Rule, String> {
        let (head, body) = (self.rule(i)?, self.read_body(i)?);
        head.into_rule(self.priority(i), self.slot.head.atoms, body)
            .map_err(|e| self.rule_error(i, e))
    }

    fn rule_error(&self, i: u32, e: String) -> String {
        format!(
            "rule `{}` of point `{}`: {e}",
            self.rule_id(i),
            self.slot.head.name
        )
    }

    /// How many atoms.
    pub(crate) fn atom_count(&self) -> u32 {
        self.slot.head.atoms
    }

    /// Atom `a`, decoded on first use; `Err` says why it does not decode.
    pub(crate) fn atom(&self, a: u32) -> Result<&'a ir::Atom, &'a str> {
        let cell = self
            .state
            .atoms
            .get(a as usize)
            .ok_or("an atom index out of range")?;
        cell.get_or_init(|| self.decode_atom(a).map(Box::new).map_err(Into::into))
            .as_ref()
            .map(|r| &**r)
            .map_err(|e| &**e)
    }

    /// Atom `a` decoded and checked against what it may refer to.
    fn decode_atom(&self, a: u32) -> Result<ir::Atom, String> {
        let fail = |e: String| format!("atom {a} of point `{}`: {e}", self.slot.head.name);
        let atom = self.read_atom(a)?;
        validate::atom(&atom, self.refs.regexes, self.refs.rates)
            .map_err(|e| fail(e.to_string()))?;
        // The field matchers compute a field atom from the field's path:
        // an atom on another field than its matcher's would be decided
        // on the wrong value.
        let field = self.atom_field(a);
        if field != ir::NO_FIELD && atom.field() != self.state.paths.get(field as usize) {
            return Err(fail("it is on another field than its matcher".to_string()));
        }
        Ok(atom)
    }

    /// Atom `a` decoded, unchecked.
    fn read_atom(&self, a: u32) -> Result<ir::Atom, String> {
        let bytes = self.state.layout.atoms.get(self.slot.section, a as usize);
        wire::read_atom(bytes)
            .map_err(|e| format!("atom {a} of point `{}`: {e}", self.slot.head.name))
    }

    /// The field matcher that computes atom `a`, or `NO_FIELD`.
    #[inline]
    pub(crate) fn atom_field(&self, a: u32) -> u32 {
        self.hot
            .atom_field
            .get(a as usize)
            .copied()
            .unwrap_or(ir::NO_FIELD)
    }

    /// The rules atom `a` triggers, ascending.
    #[inline]
    pub(crate) fn triggers(&self, a: u32) -> &'a [u32] {
        self.hot.triggers.get(a as usize)
    }

    /// The roots the field matchers' paths are on, one bit per root
    /// ([`ir::Root::bit`]): an edit of another root forgets no field.
    #[inline]
    pub(crate) fn field_roots(&self) -> u32 {
        self.state.field_roots
    }

    /// True when field matcher `f` only looks its text up among exact
    /// values (no DFA, no literals).
    #[inline]
    pub(crate) fn is_exact_field(&self, f: usize) -> bool {
        f < 64 && self.hot.exact_fields & 1 << f != 0
    }

    /// How many field matchers.
    pub(crate) fn field_count(&self) -> usize {
        self.hot.fields.len()
    }

    /// Field matcher `f`.
    #[inline]
    pub(crate) fn field(&self, f: usize) -> Option<Field<'a>> {
        Some(Field {
            slot: self.hot.fields.get(f)?,
            path: self.state.paths.get(f)?,
            search: self.state.searches.get(f)?,
            literal_start: self.literal_start,
        })
    }

    /// A number no other point of any table loaded in this process has
    /// (0 for a point without rules, which has none to remember): what a
    /// scratch remembers a target's groups by.
    pub(crate) fn key(&self) -> u64 {
        self.slot.key
    }

    /// The groups of rules a component `scope::name` can reach besides
    /// `*::*`: its exact group, its scope's and its name's ([`NO_GROUP`]
    /// for none).
    #[inline]
    pub(crate) fn group_ids(&self, component: &str, scope: &str, name: &str) -> [u32; 3] {
        let layout = &self.state.layout;
        let keyed = |k: &Keyed, key: &str| {
            k.table
                .find(self.slot.section, &k.keys, key.as_bytes())
                .and_then(|i| at(self.slot.section, &k.buckets).get(i).copied())
                .unwrap_or(NO_GROUP)
        };
        [
            keyed(&layout.exact, component),
            keyed(&layout.scope, scope),
            keyed(&layout.target, name),
        ]
    }

    /// What the groups `ids` name (as [`group_ids`](Self::group_ids)
    /// gives them) and `*::*` give a dispatch.
    #[inline]
    pub(crate) fn group_rules(&self, ids: [u32; 3]) -> GroupRules<'a> {
        let [exact, scope, name] = ids;
        let mut rules = GroupRules::default();
        for (untriggered, b) in rules
            .untriggered
            .iter_mut()
            .zip([exact, scope, name, self.hot.any])
        {
            // Only the untriggered rules and the fields: a dispatch finds
            // the others through their triggers.
            if let Some(group) = self.bucket(b) {
                *untriggered = group.untriggered;
                rules.fields |= group.fields;
            }
        }
        rules
    }

    /// Group `b`.
    #[inline]
    fn bucket(&self, b: u32) -> Option<Bucket<'a>> {
        let at = BUCKET * b as usize;
        let &[rules, rules_end, untriggered, untriggered_end, lo, hi] =
            self.hot.buckets.get(at..at + BUCKET)?
        else {
            return None;
        };
        Some(Bucket {
            rules: self.items(rules, rules_end),
            untriggered: self.items(untriggered, untriggered_end),
            fields: u64::from(lo) | u64::from(hi) << 32,
        })
    }

    /// The rules a group's record puts at `from..to`.
    #[inline]
    fn items(&self, from: u32, to: u32) -> &'a [u32] {
        self.hot
            .bucket_items
            .get(from as usize..to as usize)
            .unwrap_or(&[])
    }

    /// The point in the IR, every rule and atom decoded (and none
    /// checked: [`Table::validate`](crate::Table::validate) checks the
    /// whole program): for the tools.
    pub(crate) fn to_ir(self) -> Result<ir::PointProgram, String> {
        let layout = &self.state.layout;
        let s = self.slot.section;
        let rules = (0..self.slot.head.rules)
            .map(|i| self.read_rule(i))
            .collect::<Result<Vec<_>, _>>()?;
        let atoms = (0..self.slot.head.atoms)
            .map(|a| self.read_atom(a))
            .collect::<Result<Vec<_>, _>>()?;
        let bucket = |b: u32| -> ir::Bucket {
            let view = self.bucket(b).unwrap_or_default();
            ir::Bucket {
                rules: view.rules.to_vec(),
                untriggered: view.untriggered.to_vec(),
                fields: view.fields,
            }
        };
        let keyed = |k: &Keyed| -> Result<ir::Keyed, String> {
            Ok(ir::Keyed {
                map: ir::StrMap::unhashed(
                    texts(s, &k.keys)?,
                    (0..k.keys.len()).map(|i| vec![super::count(i)]).collect(),
                ),
                buckets: at(s, &k.buckets).iter().map(|&b| bucket(b)).collect(),
            })
        };
        let fields = self
            .hot
            .fields
            .iter()
            .zip(&self.state.paths)
            .map(|(f, path)| f.layout.to_ir(s, path))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("point `{}`: {e}", self.slot.head.name))?;
        Ok(ir::PointProgram {
            name: self.slot.head.name.clone(),
            kind: self.slot.head.kind,
            edits: self.slot.head.edits.clone(),
            rules,
            index: ir::FqlIndex {
                exact: keyed(&layout.exact)?,
                scope: keyed(&layout.scope)?,
                target: keyed(&layout.target)?,
                any: bucket(self.hot.any),
            },
            atoms,
            atom_field: self.hot.atom_field.to_vec(),
            fields,
            triggers: (0..self.hot.triggers.len())
                .map(|a| self.hot.triggers.get(a).to_vec())
                .collect(),
        })
    }
}

/// Every string of `list` as text; an error for one that is not.
fn texts(s: &[u32], list: &ByteList) -> Result<Vec<String>, String> {
    (0..list.len())
        .map(|i| {
            list.text(s, i)
                .map(str::to_string)
                .ok_or_else(|| "a key or literal that is not text".to_string())
        })
        .collect()
}

impl FieldLayout {
    fn to_ir(&self, s: &[u32], path: &ir::FieldPath) -> Result<ir::FieldMatcher, String> {
        let lists = |csr: &Csr| -> Vec<Vec<u32>> {
            (0..csr.len()).map(|i| csr.get(s, i).to_vec()).collect()
        };
        Ok(ir::FieldMatcher {
            path: path.clone(),
            bulk: at(s, &self.bulk).to_vec(),
            eq: ir::StrMap::unhashed(texts(s, &self.eq_keys)?, lists(&self.eq_atoms)),
            dfa: (self.dfa != ir::NO_DFA).then_some(self.dfa),
            dfa_atoms: at(s, &self.dfa_atoms).to_vec(),
            literals: texts(s, &self.literals)?,
            literal_atoms: lists(&self.literal_atoms),
            literal_checks: lists(&self.literal_checks),
        })
    }
}

/// A field matcher of a point, for one dispatch.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Field<'a> {
    slot: &'a FieldSlot<'a>,
    path: &'a ir::FieldPath,
    search: &'a OnceLock<Option<LiteralSearch>>,
    literal_start: LiteralStart,
}

impl<'a> Field<'a> {
    /// The field.
    pub(crate) fn path(&self) -> &'a ir::FieldPath {
        self.path
    }

    /// The atoms its matchers compute, ascending.
    #[inline]
    pub(crate) fn bulk(&self) -> &'a [u32] {
        self.slot.bulk
    }

    /// The atoms that hold when the field's text is `text`.
    #[inline]
    pub(crate) fn eq(&self, text: &str) -> &'a [u32] {
        match self.slot.eq.find(text.as_bytes()) {
            Some(i) => self.slot.eq_atoms.get(i),
            None => &[],
        }
    }

    /// The atoms that hold when the event lacks the field; the other bulk
    /// atoms are false then.
    #[inline]
    pub(crate) fn absent(&self) -> &'a [u32] {
        self.slot.absent
    }

    /// How many string constants its equality table holds.
    pub(crate) fn eq_len(&self) -> usize {
        self.slot.layout.eq_keys.len()
    }

    /// The DFA section its regexes, globs, prefixes and suffixes are in.
    #[inline]
    pub(crate) fn dfa(&self) -> Option<u32> {
        let dfa = self.slot.layout.dfa;
        (dfa != ir::NO_DFA).then_some(dfa)
    }

    /// The atom each pattern of its DFA decides.
    #[inline]
    pub(crate) fn dfa_atoms(&self) -> &'a [u32] {
        self.slot.dfa_atoms
    }

    /// How many literals it searches for.
    pub(crate) fn literal_count(&self) -> usize {
        self.slot.literals.len()
    }

    /// Its literals as stored, for the literal search.
    #[inline]
    pub(crate) fn stored_literals(&self) -> &'a StoredLiterals<'a> {
        &self.slot.literals
    }

    /// The search for its literals, built on first use from what is
    /// stored (the anchors' packed searcher, or the automaton); `None`
    /// when it has none, or when they do not build (a warning says why).
    #[inline]
    pub(crate) fn literal_search(&self) -> Option<&'a LiteralSearch> {
        if self.slot.literals.len() == 0 {
            return None;
        }
        self.search
            .get_or_init(
                || match LiteralSearch::new(self.stored_literals(), self.literal_start) {
                    Ok(search) => Some(search),
                    Err(e) => {
                        tracing::warn!(
                            "corrupted table: the literals of `{}`: {e}; they match nothing",
                            self.path
                        );
                        None
                    }
                },
            )
            .as_ref()
    }

    /// Per literal, the atoms that hold when the field contains it.
    #[inline]
    pub(crate) fn literal_atoms(&self) -> CsrView<'a> {
        self.slot.literal_atoms
    }

    /// Per literal, the atoms to verify when the field contains it.
    #[inline]
    pub(crate) fn literal_checks(&self) -> CsrView<'a> {
        self.slot.literal_checks
    }
}
