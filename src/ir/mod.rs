//! The compiled program: what the compiler produces, the table stores and the
//! runtime runs.
//!
//! This is the seam between the stages. `compile` builds a [`Program`] from
//! checked sources; `table` writes it to bytes and reads it back (validating
//! every index); `runtime` dispatches over it. Nothing here knows about pest
//! or about source text beyond an [`Origin`] per rule.
//!
//! These types are not the table format: a table's program is written and
//! read through the wire types of `table::wire`, which name the fields and
//! variants the format holds, so the IR may change without changing the
//! bytes. Nothing here derives `Deserialize` for the table. Two uses of
//! serde remain: an [`Atom`] and what it is made of derive `Serialize`
//! because the compiler dedups atoms by their JSON text, and [`LogLevel`]
//! is part of the JSON of a dispatch's outcome.
//!
//! Per hook point, rules are kept in execution order (priority ascending, then
//! declaration order) and indexed by FQL target. Every leaf condition is an
//! [`Atom`], numbered once per point and shared by all rules that use it; a
//! rule's condition is a small boolean tree ([`Cond`]) over atom numbers.

use crate::fql::FqlPattern;
use crate::schema::{CommandInput, EditApplication, PointKind};
use serde::Serialize;
use serde_json::Value;

mod action;
mod expr;
mod regex_ids;
mod scope;

pub use action::*;
pub use expr::*;

/// No prebuilt DFA for a regex ([`Program::regex_dfas`]).
pub const NO_DFA: u32 = u32::MAX;

/// A whole compiled rule set.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Program {
    /// The schema the rules were checked against (`orcs`, `claude-code`, …).
    pub schema: String,
    /// Every point of the schema, rules or not, in the schema's order: a
    /// point's position here is its [`PointId`](crate::schema::PointId).
    pub schema_points: Vec<SchemaPoint>,
    /// One entry per hook point that has at least one rule, sorted by name.
    pub points: Vec<PointProgram>,
    /// Regexes used by atoms and actions; referenced by [`RegexId`].
    pub regexes: Vec<RegexSource>,
    /// Per regex, the table's DFA section that decides `matches` with it
    /// inside an expression (a quantifier over a shell view, a function's
    /// result), or [`NO_DFA`]: so that a hook process matches it without
    /// compiling it first. Empty: none.
    pub regex_dfas: Vec<u32>,
    /// Per regex, the literals (lower-case ASCII) one of which every
    /// match contains, looked for without regard to ASCII case in ASCII
    /// text before the regex is searched: a text holding none of them does
    /// not match, and its automaton is never read. Empty for a regex
    /// without such literals; empty altogether: none for any.
    pub regex_needs: Vec<Vec<String>>,
    /// Source file names; referenced by [`Origin::file`].
    pub files: Vec<String>,
    /// The counters of `rate(…)` tests; referenced by [`RateTest::counter`].
    pub rates: Vec<RateSpec>,
    /// What command hooks read on stdin, from the schema.
    pub command_input: CommandInput,
    /// The digest of the sources compiled (`load::source_digest`), hex;
    /// empty when they were not read from files.
    pub source_digest: String,
}

/// A point of the program's schema, as dispatch needs it even where no
/// rule is (a registry's native hooks run there).
#[derive(Clone, Debug, PartialEq)]
pub struct SchemaPoint {
    /// The point's name.
    pub name: String,
    /// Pre, post or event.
    pub kind: PointKind,
    /// How the host applies an edit before the next rule runs.
    pub edits: EditApplication,
}

/// The rules of one hook point, ready to dispatch.
#[derive(Clone, Debug, PartialEq)]
pub struct PointProgram {
    /// The point's dotted name, e.g. `tool.pre_execute`.
    pub name: String,
    /// Pre, post or event.
    pub kind: PointKind,
    /// How the host applies an edit before the next rule runs (from the
    /// schema); dispatch applies it after every rule that edited.
    pub edits: EditApplication,
    /// Rules in execution order.
    pub rules: Vec<Rule>,
    /// Which rules a target can reach.
    pub index: FqlIndex,
    /// The leaf conditions of this point's rules, each once.
    pub atoms: Vec<Atom>,
    /// For each atom, the field matcher that computes it in bulk
    /// ([`NO_FIELD`] for atoms evaluated one by one).
    pub atom_field: Vec<u32>,
    /// One matcher per field that field atoms test.
    pub fields: Vec<FieldMatcher>,
    /// For each atom, the rules it triggers: rules that can only match when
    /// the atom holds, so dispatch looks at them only when it does.
    pub triggers: Vec<Vec<u32>>,
}

/// The field index of atoms that no field matcher computes.
pub const NO_FIELD: u32 = u32::MAX;

/// Rules grouped by the shape of their FQL target, so a dispatch only looks
/// at rules whose `scope::target` can match.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FqlIndex {
    /// `scope::target` with both exact, keyed by `scope::target`.
    pub exact: Keyed,
    /// `scope::*`, keyed by scope.
    pub scope: Keyed,
    /// `*::target`, keyed by target.
    pub target: Keyed,
    /// `*::*`.
    pub any: Bucket,
}

/// Buckets found by name through a perfect hash built at compile time.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Keyed {
    /// Name → `[bucket index]`; keys sorted and unique.
    pub map: StrMap,
    /// The buckets, parallel to `map.keys`.
    pub buckets: Vec<Bucket>,
}

impl Keyed {
    /// The bucket for `key`.
    pub fn get(&self, key: &str) -> Option<&Bucket> {
        let i = *self.map.get(key).first()?;
        self.buckets.get(i as usize)
    }

    /// `(key, bucket)` pairs in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Bucket)> {
        self.map.keys.iter().map(String::as_str).zip(&self.buckets)
    }
}

/// The rules of one FQL group.
///
/// Every list holds rule indices (into [`PointProgram::rules`]) in ascending
/// order; every rule is in exactly one bucket's `rules`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Bucket {
    /// All rules of the group.
    pub rules: Vec<u32>,
    /// The rules without a trigger atom: candidates for every event.
    pub untriggered: Vec<u32>,
    /// Bit `i` set: a triggered rule of the group has its trigger on field
    /// `i` (bit 63 stands for every field from 63 on).
    pub fields: u64,
}

/// How one field's atoms are computed together, in one pass over its value.
///
/// When the field holds a string: its equality atoms through a perfect hash
/// of the constants, its regex, glob, prefix and suffix atoms through one
/// multi-pattern DFA, and its substring atoms through one literal search
/// (built at load: `table::literals`). Any other value falls back to evaluating each atom.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldMatcher {
    /// The field.
    pub path: FieldPath,
    /// The atoms computed in bulk (all of them false unless a matcher says
    /// otherwise).
    pub bulk: Vec<u32>,
    /// String constant → atoms that hold when the field equals it.
    pub eq: StrMap,
    /// Index of the field's DFA in the table's DFA sections.
    pub dfa: Option<u32>,
    /// DFA pattern id → the atom it decides.
    pub dfa_atoms: Vec<u32>,
    /// Substrings to search for.
    pub literals: Vec<String>,
    /// Literal index → atoms that hold when the field contains it.
    pub literal_atoms: Vec<Vec<u32>>,
    /// Literal index → atoms to verify when the field contains it: regexes
    /// kept out of the DFA (too many, or too costly), each prefiltered by a
    /// literal every match of it contains. They are false unless verified.
    pub literal_checks: Vec<Vec<u32>>,
}

/// A perfect-hash map from strings to atom lists, built at compile time.
///
/// A map read back from a table has no perfect hash (the table finds its
/// keys through hash tables of its own, read in place): it finds keys one
/// by one.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct StrMap {
    /// The keys.
    pub keys: Vec<String>,
    /// For each key, its atoms.
    pub values: Vec<Vec<u32>>,
    /// The hash key.
    pub hash_key: u64,
    /// Displacements.
    pub disps: Vec<(u32, u32)>,
    /// Slot → key index.
    pub map: Vec<u32>,
}

impl StrMap {
    /// The atoms for `key`; empty when it is not a key.
    pub fn get(&self, key: &str) -> &[u32] {
        self.index(key)
            .and_then(|k| self.values.get(k))
            .map_or(&[], Vec::as_slice)
    }

    /// A map of `keys` to `values` without a perfect hash.
    pub fn unhashed(keys: Vec<String>, values: Vec<Vec<u32>>) -> StrMap {
        StrMap {
            keys,
            values,
            ..StrMap::default()
        }
    }

    /// The index of `key` in `keys`, when it is one.
    pub fn index(&self, key: &str) -> Option<usize> {
        self.index_in(&self.keys, key)
    }

    /// The index of `key` in `keys`, found through this map's hash: the
    /// map's own keys, or the keys it was built over and does not hold.
    pub fn index_in(&self, keys: &[String], key: &str) -> Option<usize> {
        if !self.is_hashed() {
            return keys.iter().position(|k| k == key);
        }
        let k = self.slot(key)?;
        (keys.get(k)? == key).then_some(k)
    }

    /// Whether the map has a perfect hash (else its keys are searched one
    /// by one).
    pub fn is_hashed(&self) -> bool {
        !self.disps.is_empty() || !self.map.is_empty()
    }

    /// The index of the only key `key` may be, by the perfect hash (the
    /// caller compares the key); `None` without a hash.
    #[inline]
    pub fn slot(&self, key: &str) -> Option<usize> {
        if self.disps.is_empty() || self.map.is_empty() {
            return None;
        }
        let hashes = phf_shared::hash(key, &self.hash_key);
        let slot = phf_shared::get_index(&hashes, &self.disps, self.map.len());
        Some(*self.map.get(slot as usize)? as usize)
    }
}

/// Where a rule was written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Origin {
    /// Index into [`Program::files`].
    pub file: u32,
    /// 1-based line of the `hook` keyword.
    pub line: u32,
    /// 1-based column of the `hook` keyword.
    pub col: u32,
}

/// One compiled rule.
#[derive(Clone, Debug, PartialEq)]
pub struct Rule {
    /// The rule's id.
    pub id: String,
    /// Its FQL target.
    pub target: FqlPattern,
    /// Lower runs first.
    pub priority: i32,
    /// Disabled rules are kept (for `inspect`) but never run.
    pub enabled: bool,
    /// What a failing effect does.
    pub fail: FailMode,
    /// Timeout for effects, in milliseconds; `None` for the effect's default.
    pub timeout_ms: Option<u64>,
    /// The ANDed `when`/`unless` lines.
    pub cond: Cond,
    /// Actions in order.
    pub actions: Vec<Action>,
    /// Where the rule was written.
    pub origin: Origin,
    /// Where each atom of `cond` is written: one entry per [`Cond::Atom`]
    /// leaf, in depth-first, left-to-right order (an atom shared by two rules
    /// has an entry in each). Empty when unknown. Leaves from a macro point
    /// into the macro's body.
    pub cond_origins: Vec<Origin>,
    /// An atom that must hold for the condition to hold; the rule is a
    /// candidate only when it does. `None`: a candidate for every event.
    pub trigger: Option<u32>,
}

/// What a failing effect does to the chain.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FailMode {
    /// The failure is a warning and the chain goes on.
    #[default]
    Open,
    /// The failure becomes an abort.
    Closed,
}

/// A rule's condition: a boolean tree over atoms.
#[derive(Clone, Debug, PartialEq)]
pub enum Cond {
    /// No condition: always true.
    True,
    /// The value of one atom (an index into [`PointProgram::atoms`]).
    Atom(u32),
    /// Negation.
    Not(Box<Cond>),
    /// All must hold (short-circuit, left to right).
    All(Vec<Cond>),
    /// One must hold (short-circuit, left to right).
    Any(Vec<Cond>),
}

/// An index into [`Program::regexes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct RegexId(pub u32);

/// A regex as written: pattern and flags. The runtime compiles it at load.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RegexSource {
    /// The pattern (regex crate syntax).
    pub pattern: String,
    /// Flags: any of `i`, `m`, `s`, `x`, `U`.
    pub flags: String,
}

impl RegexSource {
    /// The pattern with its flags folded in as an inline group, e.g. `(?i)abc`.
    pub fn to_inline(&self) -> String {
        if self.flags.is_empty() {
            self.pattern.clone()
        } else {
            format!("(?{}){}", self.flags, self.pattern)
        }
    }
}

/// The root of a field path: which part of the hook context it reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Root {
    /// `payload`: the point's data.
    Payload,
    /// `metadata`: the cross-hook bag.
    Metadata,
    /// `component`: the component id, `scope::target`.
    Component,
    /// `child`: the child id, if any.
    Child,
    /// `instance`: the channel instance, if any.
    Instance,
    /// `channel`: the channel id.
    Channel,
    /// `principal`: who initiated the action (`principal.type`, `principal.id`).
    Principal,
    /// `point`: the hook point's name.
    Point,
    /// `depth`: the recursion depth.
    Depth,
    /// `max_depth`: the recursion limit.
    MaxDepth,
    /// `timestamp_ms`.
    TimestampMs,
}

impl Root {
    /// This root's bit in a set of roots (a `u32`, one bit per root).
    #[inline]
    pub fn bit(self) -> u32 {
        1 << (self as u32 % 32)
    }

    /// Every root, in a fixed order.
    pub const ALL: [Root; 11] = [
        Root::Payload,
        Root::Metadata,
        Root::Component,
        Root::Child,
        Root::Instance,
        Root::Channel,
        Root::Principal,
        Root::Point,
        Root::Depth,
        Root::MaxDepth,
        Root::TimestampMs,
    ];

    /// The name written in rules.
    pub fn as_str(self) -> &'static str {
        match self {
            Root::Payload => "payload",
            Root::Metadata => "metadata",
            Root::Component => "component",
            Root::Child => "child",
            Root::Instance => "instance",
            Root::Channel => "channel",
            Root::Principal => "principal",
            Root::Point => "point",
            Root::Depth => "depth",
            Root::MaxDepth => "max_depth",
            Root::TimestampMs => "timestamp_ms",
        }
    }

    /// The root written as `name`, if it is one.
    pub fn from_name(name: &str) -> Option<Root> {
        Root::ALL.into_iter().find(|r| r.as_str() == name)
    }

    /// True for roots that rules may edit (`payload`, `metadata`).
    pub fn is_editable(self) -> bool {
        matches!(self, Root::Payload | Root::Metadata)
    }
}

/// One step of a field path.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Segment {
    /// `.name`.
    Field(String),
    /// `[n]`.
    Index(u32),
}

/// A path into the hook context: `payload.args[0]`, `principal.id`, `depth`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct FieldPath {
    /// Which part of the context.
    pub root: Root,
    /// Steps below the root.
    pub segments: Vec<Segment>,
    /// True when the schema says the field names a file (type `path`):
    /// every read sees it lexically normalized ([`crate::paths`]).
    pub normalized: bool,
}

impl std::fmt::Display for FieldPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.root.as_str())?;
        for s in &self.segments {
            match s {
                Segment::Field(name) => write!(f, ".{name}")?,
                Segment::Index(i) => write!(f, "[{i}]")?,
            }
        }
        Ok(())
    }
}

/// A leaf condition, numbered once per point.
///
/// Field atoms (every kind but [`Atom::Expr`]) test one field against
/// constants; they are what the matcher automata are built from. `Expr` is
/// everything else (arithmetic on fields, comparisons between two fields),
/// evaluated directly.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Atom {
    /// `path == value` (JSON equality; numbers compare by value).
    Eq(FieldPath, #[serde(serialize_with = "json_text")] Value),
    /// `path in [values]`.
    In(
        FieldPath,
        #[serde(serialize_with = "json_text_list")] Vec<Value>,
    ),
    /// `path < number` and friends.
    Cmp(FieldPath, CmpOp, f64),
    /// `path contains "s"`: substring of a string, or element of an array.
    Contains(FieldPath, #[serde(serialize_with = "json_text")] Value),
    /// `path contains any [..]`: any needle as a substring or element.
    ContainsAny(
        FieldPath,
        #[serde(serialize_with = "json_text_list")] Vec<Value>,
    ),
    /// `path starts_with "s"`.
    StartsWith(FieldPath, String),
    /// `path ends_with "s"`.
    EndsWith(FieldPath, String),
    /// `path matches /re/` (also `glob`, translated to a regex).
    Matches(FieldPath, RegexId),
    /// `path exists`.
    Exists(FieldPath),
    /// `rate("key") > n per window`.
    Rate(RateTest),
    /// Any other boolean expression.
    Expr(Expr),
}

impl Atom {
    /// Whether a field atom holds when the event lacks its field: only
    /// `path == null` does (a missing field reads as `null`; it contains,
    /// starts, ends, matches, compares and exists as nothing). Field
    /// matchers decide a missing field's atoms from this without
    /// evaluating them; the runtime's tests check it against evaluation
    /// for every kind of atom.
    pub fn holds_when_absent(&self) -> bool {
        match self {
            Atom::Eq(_, value) => value.is_null(),
            Atom::In(..)
            | Atom::Cmp(..)
            | Atom::Contains(..)
            | Atom::ContainsAny(..)
            | Atom::StartsWith(..)
            | Atom::EndsWith(..)
            | Atom::Matches(..)
            | Atom::Exists(_)
            | Atom::Rate(_)
            | Atom::Expr(_) => false,
        }
    }

    /// The field a field atom tests; `None` for [`Atom::Expr`].
    pub fn field(&self) -> Option<&FieldPath> {
        match self {
            Atom::Eq(p, _)
            | Atom::In(p, _)
            | Atom::Cmp(p, _, _)
            | Atom::Contains(p, _)
            | Atom::ContainsAny(p, _)
            | Atom::StartsWith(p, _)
            | Atom::EndsWith(p, _)
            | Atom::Matches(p, _)
            | Atom::Exists(p) => Some(p),
            Atom::Rate(_) | Atom::Expr(_) => None,
        }
    }
}

/// Numeric comparison operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum CmpOp {
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl CmpOp {
    /// Applies the comparison.
    pub fn test(self, lhs: f64, rhs: f64) -> bool {
        match self {
            CmpOp::Lt => lhs < rhs,
            CmpOp::Le => lhs <= rhs,
            CmpOp::Gt => lhs > rhs,
            CmpOp::Ge => lhs >= rhs,
        }
    }
}

// JSON constants serialize as their text, so that an atom's JSON (the key
// `compile` dedups atoms by) tells `1` from `1.0` as the text does.

pub(crate) fn json_text<S: serde::Serializer>(v: &Value, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&v.to_string())
}

pub(crate) fn json_text_list<S: serde::Serializer>(v: &[Value], s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&Value::Array(v.to_vec()).to_string())
}

#[cfg(test)]
mod size_tests {
    /// Every rule's conditions are trees of these, decoded at each load and
    /// walked at each dispatch: a variant that holds a large value inline
    /// makes every node that large (boxed, `WordsAny`'s test costs one
    /// pointer; inline, it made a 10,000-rule load 14 % slower).
    #[test]
    fn expressions_and_atoms_stay_small() {
        assert!(
            std::mem::size_of::<super::Expr>() <= 72,
            "Expr is {} bytes",
            std::mem::size_of::<super::Expr>()
        );
        assert!(
            std::mem::size_of::<super::Atom>() <= 112,
            "Atom is {} bytes",
            std::mem::size_of::<super::Atom>()
        );
    }
}
