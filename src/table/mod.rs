//! The compiled [`Table`] and its versioned binary format.
//!
//! A table is a validated [`Program`] plus its matcher automata: the
//! multi-pattern DFAs are stored in regex-automata's own serialized form,
//! validated by its `DFA::from_bytes` when a dispatch first searches them
//! (a hook process answering one event validates only the automata that
//! event reaches); the literal searches (module `literals`) are built from
//! their stored literals. [`Table::from_bytes`] checks the checksum, every section's
//! bounds and the whole program before returning, so a truncated,
//! corrupted or foreign file is a [`LoadError`], never a panic; a DFA
//! section crafted to pass the checksum but not validation is never
//! searched, and its patterns are matched one by one from their regexes
//! (the answer stays the same, a warning says so).
//!
//! The bytes are [`encoding`]'s: the versioned format (header, checksum,
//! the encoded program, DFA sections, an optional signature block) is
//! written and read there and nowhere else; this module turns the decoded
//! parts into a validated, ready-to-dispatch table.

pub mod encoding;
mod error;
pub mod sign;
mod validate;
mod wire;

#[doc(hidden)]
pub use encoding::encode;
pub use encoding::{HEADER_LEN, LABEL, MAX_LEN, VERSION};
pub use error::{LoadError, LoadErrorKind};
pub use sign::{KeyError, PublicKey, SecretKey};

use crate::ir::{PointProgram, Program};
pub(crate) mod literals;
pub(crate) mod regexes;

use crate::ir::Atom;
use crate::schema::PointId;
use crate::store::Counter;
pub(crate) use literals::LiteralSearch;
use regex_automata::dfa::{dense, sparse, Automaton, OverlappingState};
use regex_automata::{Input, MatchError};
pub(crate) use regexes::LazyRegexes;
use std::sync::OnceLock;

/// The largest compiled size of one regex (the `regex` crate's size limit).
pub const REGEX_SIZE_LIMIT: usize = 10 << 20;

/// Bytes with 4-byte alignment, for embedding a table in a binary (not run
/// as a doctest: it needs a build script's `OUT_DIR`; `examples/host` runs
/// it):
///
/// ```ignore
/// static TABLE: &hookc::table::Aligned<[u8]> =
///     &hookc::table::Aligned { _align: [], bytes: *include_bytes!(concat!(env!("OUT_DIR"), "/hooks.tbl")) };
/// let table = hookc::Table::from_static(&TABLE.bytes)?;
/// ```
///
/// The [`include_table!`](crate::include_table) macro writes this for you.
#[repr(C)]
#[derive(Debug)]
pub struct Aligned<B: ?Sized> {
    /// Zero-sized: forces the alignment of `u32`.
    pub _align: [u32; 0],
    /// The bytes.
    pub bytes: B,
}

/// Embeds a compiled table file, 4-byte aligned, as a `&'static [u8]` (not
/// run as a doctest: it needs a build script's `OUT_DIR`; `examples/host`
/// runs it).
///
/// ```ignore
/// let bytes: &'static [u8] = hookc::include_table!(concat!(env!("OUT_DIR"), "/hooks.tbl"));
/// let table = hookc::Table::from_static(bytes)?;
/// ```
#[macro_export]
macro_rules! include_table {
    ($path:expr) => {{
        static ALIGNED: &$crate::table::Aligned<[u8]> = &$crate::table::Aligned {
            _align: [],
            bytes: *include_bytes!($path),
        };
        &ALIGNED.bytes
    }};
}

/// How a DFA section is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum DfaKind {
    /// regex-automata's dense form: a full transition table.
    Dense = 0,
    /// regex-automata's sparse form: only the transitions that lead somewhere.
    Sparse = 1,
}

/// A DFA section once validated, copied out of the table's bytes (a copy
/// costs less than the validation it follows, and only the sections a
/// dispatch reaches are made).
#[derive(Clone, Debug)]
pub(crate) enum Dfa {
    Dense(dense::DFA<Vec<u32>>),
    Sparse(sparse::DFA<Vec<u8>>),
}

impl Dfa {
    /// One step of an overlapping search (see regex-automata's
    /// `Automaton::try_search_overlapping_fwd`).
    #[inline]
    pub(crate) fn search_overlapping(
        &self,
        input: &Input<'_>,
        state: &mut OverlappingState,
    ) -> Result<(), MatchError> {
        match self {
            Dfa::Dense(d) => d.try_search_overlapping_fwd(input, state),
            Dfa::Sparse(d) => d.try_search_overlapping_fwd(input, state),
        }
    }

    /// Whether the DFA matches anywhere in `text` (it stops at the first
    /// match); `Err` when it cannot decide (a Unicode word boundary on
    /// non-ASCII text).
    #[inline]
    pub(crate) fn is_match(&self, text: &str) -> Result<bool, MatchError> {
        use regex_automata::dfa::Automaton;
        let input = Input::new(text).earliest(true);
        let found = match self {
            Dfa::Dense(d) => d.try_search_fwd(&input)?,
            Dfa::Sparse(d) => d.try_search_fwd(&input)?,
        };
        Ok(found.is_some())
    }

    pub(crate) fn pattern_len(&self) -> usize {
        match self {
            Dfa::Dense(d) => d.pattern_len(),
            Dfa::Sparse(d) => d.pattern_len(),
        }
    }
}

/// A DFA section, validated when a dispatch first searches it: loading a
/// table checks every section's bounds (and the CRC, or the signature, the
/// whole), and a hook process that answers one event validates only the
/// automata that event reaches. A section that fails validation then is
/// never used: its patterns are matched one by one from the regexes they
/// were compiled from, with a warning, so the answer stays the same.
#[derive(Debug)]
pub(crate) struct LazyDfa<'a> {
    /// Its index, for messages.
    index: usize,
    /// [`DfaKind`] as stored.
    kind: u32,
    /// The serialized DFA.
    body: &'a [u8],
    /// How many patterns the program's matchers expect of it, once one
    /// refers to it.
    patterns: Option<usize>,
    dfa: OnceLock<Option<Dfa>>,
}

impl<'a> LazyDfa<'a> {
    pub(super) fn new(index: usize, kind: u32, body: &'a [u8]) -> LazyDfa<'a> {
        LazyDfa {
            index,
            kind,
            body,
            patterns: None,
            dfa: OnceLock::new(),
        }
    }

    /// The DFA, validated on first use; `None` when it is not valid (a
    /// warning says why, once).
    pub(crate) fn get(&self) -> Option<&Dfa> {
        self.dfa
            .get_or_init(|| match self.load() {
                Ok(dfa) => Some(dfa),
                Err(error) => {
                    tracing::warn!(
                        "corrupted table: DFA section {}: {error}; its patterns are matched one by one",
                        self.index
                    );
                    None
                }
            })
            .as_ref()
    }

    /// Deserializes and validates the section.
    fn load(&self) -> Result<Dfa, String> {
        let (dfa, read) = match self.kind {
            0 => dense::DFA::from_bytes(self.body).map(|(d, n)| (Dfa::Dense(d.to_owned()), n)),
            1 => sparse::DFA::from_bytes(self.body).map(|(d, n)| (Dfa::Sparse(d.to_owned()), n)),
            kind => return Err(format!("unknown DFA kind {kind}")),
        }
        .map_err(|e| e.to_string())?;
        if read != self.body.len() {
            return Err(format!("{} trailing bytes", self.body.len() - read));
        }
        match self.patterns {
            Some(n) if n != dfa.pattern_len() => Err(format!(
                "{} patterns where the program expects {n}",
                dfa.pattern_len()
            )),
            _ => Ok(dfa),
        }
    }

    /// Records that a matcher expects `n` patterns of it; `false` when
    /// another expects a different number.
    fn expect_patterns(&mut self, n: usize) -> bool {
        match self.patterns {
            Some(m) => m == n,
            None => {
                self.patterns = Some(n);
                true
            }
        }
    }
}

/// Where a table's bytes live.
#[derive(Debug)]
enum Buffer {
    /// Embedded in the binary.
    Static(&'static [u8]),
    /// Owned and already 4-byte aligned.
    Bytes(Vec<u8>),
    /// Owned, copied into words for alignment; the length in bytes.
    Words(Vec<u32>, usize),
}

impl Buffer {
    fn owned(bytes: Vec<u8>) -> Buffer {
        if (bytes.as_ptr() as usize).is_multiple_of(4) {
            return Buffer::Bytes(bytes);
        }
        let len = bytes.len();
        let mut words = vec![0u32; len.div_ceil(4)];
        if let Some(dst) = bytemuck::cast_slice_mut::<u32, u8>(&mut words).get_mut(..len) {
            dst.copy_from_slice(&bytes);
        }
        Buffer::Words(words, len)
    }

    fn bytes(&self) -> &[u8] {
        match self {
            Buffer::Static(b) => b,
            Buffer::Bytes(b) => b,
            Buffer::Words(w, len) => bytemuck::cast_slice::<u32, u8>(w)
                .get(..*len)
                .unwrap_or(&[]),
        }
    }
}

/// Everything derived from the bytes at load; borrows the DFAs from them.
#[derive(Debug)]
pub(crate) struct Loaded<'a> {
    pub(crate) program: Program,
    pub(crate) regexes: LazyRegexes,
    /// DFA sections, by index, each validated on first use.
    pub(crate) dfas: Vec<LazyDfa<'a>>,
    /// Per point, per field: the search for its literals.
    pub(crate) literals: Vec<Vec<Option<LiteralSearch>>>,
    /// Per `rate(…)` counter, its identity in a
    /// [`MemoryStore`](crate::store::MemoryStore) ([`Counter::id`]).
    pub(crate) rate_ids: Vec<[u8; 16]>,
    /// The [`fingerprint`](crate::schema::fingerprint) of the schema: the
    /// tag of this table's [`PointId`]s.
    schema_tag: u32,
    /// By schema slot ([`PointId::slot`]), the index of the point's rules
    /// in `program.points`, if it has any.
    by_slot: Vec<Option<u16>>,
    dfa_bytes: Vec<usize>,
    len: usize,
    /// Where the signature block starts, and the key it names.
    signature: Option<(usize, PublicKey)>,
}

self_cell::self_cell!(
    struct Inner {
        owner: Buffer,
        #[covariant]
        dependent: Loaded,
    }
    impl {Debug}
);

/// A compiled, validated rule table, ready to dispatch.
///
/// `Table` is `Send + Sync`: share one across threads and give each thread its
/// own [`Scratch`](crate::Scratch).
#[derive(Debug)]
pub struct Table {
    inner: Inner,
}

/// The sizes of one field's matchers, for `hookc inspect`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldStats {
    /// The field, e.g. `payload.command`.
    pub field: String,
    /// Atoms computed in one pass over the field.
    pub atoms: usize,
    /// String constants in the perfect hash.
    pub eq_keys: usize,
    /// Patterns in the DFA.
    pub dfa_patterns: usize,
    /// Size of the serialized DFA in bytes.
    pub dfa_bytes: usize,
    /// Literals searched for (`contains`, and regex prefilters).
    pub literals: usize,
    /// Whether they are found by a packed search for their first bytes
    /// and confirmed in place, rather than by an Aho-Corasick automaton
    /// (see the `literals` module).
    pub literal_anchors: bool,
    /// Heap used by the literal search built at load.
    pub ac_bytes: usize,
}

impl Table {
    /// Loads table bytes, copying them once into aligned storage if they are
    /// not 4-byte aligned.
    ///
    /// This routine never panics for any input.
    ///
    /// # Errors
    ///
    /// A [`LoadError`] when the bytes are too short, the label, endianness or
    /// version do not match, the checksum fails, a section does not decode, or
    /// the decoded program does not validate.
    pub fn from_bytes(bytes: &[u8]) -> Result<Table, LoadError> {
        Table::from_owned_bytes(bytes.to_vec())
    }

    /// Loads table bytes, taking ownership; no copy when they are aligned.
    ///
    /// # Errors
    ///
    /// As [`from_bytes`](Self::from_bytes).
    pub fn from_owned_bytes(bytes: Vec<u8>) -> Result<Table, LoadError> {
        Table::load(Buffer::owned(bytes))
    }

    /// Loads table bytes only if they are signed by `key`, with nothing
    /// changed since: the signature is checked before anything else of the
    /// table is read.
    ///
    /// ```
    /// use hookc::table::{LoadErrorKind, SecretKey};
    /// let key = SecretKey::from_seed(&[7; 32]);
    /// let table = hookc::compile_str("a.hooks", "hook a on tool.pre_execute { abort \"no\" }")?.table;
    /// let signed = table.to_signed_bytes(&key);
    /// hookc::Table::from_bytes_verified(&signed, &key.public_key())?;
    ///
    /// let unsigned = hookc::Table::from_bytes_verified(&table.to_bytes(), &key.public_key());
    /// assert!(matches!(unsigned.unwrap_err().kind(), LoadErrorKind::Unsigned { .. }));
    /// let mut changed = signed.clone();
    /// changed[100] ^= 1;
    /// let changed = hookc::Table::from_bytes_verified(&changed, &key.public_key());
    /// assert!(matches!(changed.unwrap_err().kind(), LoadErrorKind::BadSignature { .. }));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`LoadErrorKind::Unsigned`] for a table without a signature (or the
    /// reason it does not load at all), [`LoadErrorKind::SignedByAnotherKey`],
    /// [`LoadErrorKind::BadSignature`] when any byte changed after signing;
    /// then what [`from_bytes`](Self::from_bytes) checks.
    pub fn from_bytes_verified(bytes: &[u8], key: &PublicKey) -> Result<Table, LoadError> {
        Table::from_owned_bytes_verified(bytes.to_vec(), key)
    }

    /// [`from_bytes_verified`](Self::from_bytes_verified), taking ownership;
    /// no copy when the bytes are aligned.
    ///
    /// # Errors
    ///
    /// As [`from_bytes_verified`](Self::from_bytes_verified).
    pub fn from_owned_bytes_verified(bytes: Vec<u8>, key: &PublicKey) -> Result<Table, LoadError> {
        let signed = sign::verify(&bytes, key)?;
        let len = bytes.len();
        let table = Table::from_owned_bytes(bytes)?;
        // The block just verified must be the one the loader found where
        // the sections end; bytes that do not load say why first.
        match table.loaded().signature {
            Some((at, _)) if signed && at + sign::SIGNATURE_BLOCK_LEN == len => Ok(table),
            _ => Err(LoadError::new(LoadErrorKind::Unsigned { key: key.id() })),
        }
    }

    /// Loads a table embedded in the binary without copying it; the DFAs are
    /// used in place. The bytes must be 4-byte aligned
    /// ([`include_table!`](crate::include_table) makes sure of it).
    ///
    /// # Errors
    ///
    /// As [`from_bytes`](Self::from_bytes), and an alignment error.
    pub fn from_static(bytes: &'static [u8]) -> Result<Table, LoadError> {
        if !(bytes.as_ptr() as usize).is_multiple_of(4) {
            return Err(LoadError::new(LoadErrorKind::Alignment));
        }
        Table::load(Buffer::Static(bytes))
    }

    /// Encodes a program with no DFA sections and loads it: for tests and
    /// tools that build programs by hand.
    ///
    /// # Errors
    ///
    /// As [`from_bytes`](Self::from_bytes).
    #[doc(hidden)]
    pub fn from_program(program: Program) -> Result<Table, LoadError> {
        Table::from_owned_bytes(encode(&program, &[]))
    }

    fn load(buffer: Buffer) -> Result<Table, LoadError> {
        let inner = Inner::try_new(buffer, |buffer| {
            encoding::decode(buffer.bytes()).and_then(loaded)
        })?;
        Ok(Table { inner })
    }

    pub(crate) fn loaded(&self) -> &Loaded<'_> {
        self.inner.borrow_dependent()
    }

    /// The program this table runs (the IR: for the tools and tests, no
    /// compatibility promise).
    #[doc(hidden)]
    pub fn program(&self) -> &Program {
        &self.loaded().program
    }

    /// The rules of the point called `name`, if it has any.
    #[doc(hidden)]
    pub fn point(&self, name: &str) -> Option<&PointProgram> {
        let points = &self.program().points;
        points
            .binary_search_by(|p| p.name.as_str().cmp(name))
            .ok()
            .and_then(|i| points.get(i))
    }

    pub(crate) fn point_index(&self, name: &str) -> Option<usize> {
        self.program()
            .points
            .binary_search_by(|p| p.name.as_str().cmp(name))
            .ok()
    }

    /// The id of the schema's point called `name`, with rules or not:
    /// resolve the points a host dispatches once, then dispatch by id. See
    /// [`PointId`].
    pub fn point_id(&self, name: &str) -> Option<PointId> {
        let loaded = self.loaded();
        let slot = loaded
            .program
            .schema_points
            .iter()
            .position(|p| p.name == name)?;
        Some(PointId::new(loaded.schema_tag, u16::try_from(slot).ok()?))
    }

    /// The name of the point `id` names in this table's schema; `None` for
    /// an id of another schema.
    pub fn point_name(&self, id: PointId) -> Option<&str> {
        let loaded = self.loaded();
        if id.schema() != loaded.schema_tag {
            return None;
        }
        loaded
            .program
            .schema_points
            .get(id.slot())
            .map(|p| p.name.as_str())
    }

    /// The index in `program.points` of the rules of the point `id` names;
    /// `None` when it has none or is of another schema.
    pub(crate) fn point_index_of(&self, id: PointId) -> Option<usize> {
        let loaded = self.loaded();
        if id.schema() != loaded.schema_tag {
            return None;
        }
        loaded
            .by_slot
            .get(id.slot())
            .copied()
            .flatten()
            .map(usize::from)
    }

    /// The fingerprint of the table's schema, which its [`PointId`]s carry.
    pub fn schema_tag(&self) -> u32 {
        self.loaded().schema_tag
    }

    /// The number of rules, each once however many points it is on (what
    /// `hookc compile` reports).
    pub fn rule_count(&self) -> usize {
        let ids: std::collections::HashSet<&str> = self
            .program()
            .points
            .iter()
            .flat_map(|p| p.rules.iter().map(|r| r.id.as_str()))
            .collect();
        ids.len()
    }

    /// The number of rule entries over all points: a rule on two points
    /// counts twice.
    pub fn rule_entries(&self) -> usize {
        self.program().points.iter().map(|p| p.rules.len()).sum()
    }

    /// Size of the table in bytes.
    pub fn byte_len(&self) -> usize {
        self.loaded().len
    }

    /// The size in bytes of each DFA section of the table (the field
    /// matchers' and the expression regexes' DFAs, each shared section
    /// once), for `hookc inspect`.
    #[cfg(feature = "cli")]
    pub(crate) fn dfa_sizes(&self) -> &[usize] {
        &self.loaded().dfa_bytes
    }

    /// The matchers of each field of a point, with their sizes.
    pub fn field_stats(&self, point: &str) -> Vec<FieldStats> {
        let loaded = self.loaded();
        let Some(pi) = self.point_index(point) else {
            return Vec::new();
        };
        let Some(p) = loaded.program.points.get(pi) else {
            return Vec::new();
        };
        p.fields
            .iter()
            .enumerate()
            .map(|(fi, f)| FieldStats {
                field: f.path.to_string(),
                atoms: f.bulk.len(),
                eq_keys: f.eq.keys.len(),
                dfa_patterns: f.dfa_atoms.len(),
                dfa_bytes: f
                    .dfa
                    .and_then(|d| loaded.dfa_bytes.get(d as usize).copied())
                    .unwrap_or(0),
                literals: f.literals.len(),
                literal_anchors: loaded
                    .literals
                    .get(pi)
                    .and_then(|a| a.get(fi))
                    .and_then(Option::as_ref)
                    .is_some_and(LiteralSearch::is_anchored),
                ac_bytes: loaded
                    .literals
                    .get(pi)
                    .and_then(|a| a.get(fi))
                    .and_then(Option::as_ref)
                    .map_or(0, LiteralSearch::memory_usage),
            })
            .collect()
    }

    /// Writes the table in the binary format. Never fails.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.inner.borrow_owner().bytes().to_vec()
    }

    /// Writes the table signed by `key` (a signature it had is replaced).
    pub fn to_signed_bytes(&self, key: &SecretKey) -> Vec<u8> {
        let bytes = self.inner.borrow_owner().bytes();
        let unsigned = match self.loaded().signature {
            Some((at, _)) => bytes.get(..at).unwrap_or(bytes),
            None => bytes,
        };
        sign::sign(unsigned, key)
    }

    /// The key named by the table's signature block, if it has one. The
    /// signature is checked only by
    /// [`from_bytes_verified`](Self::from_bytes_verified): this key says who
    /// signed it, if the table is what it claims.
    pub fn signer(&self) -> Option<PublicKey> {
        self.loaded().signature.map(|(_, key)| key)
    }
}

/// Validates decoded parts and builds the matchers dispatch needs.
fn loaded(decoded: encoding::Decoded<'_>) -> Result<Loaded<'_>, LoadError> {
    let encoding::Decoded {
        program,
        mut dfas,
        dfa_bytes,
        signature,
        len,
    } = decoded;
    validate::program(&program, &mut dfas)?;
    let regexes = LazyRegexes::new(&program);
    let literals = program
        .points
        .iter()
        .map(|p| {
            p.fields
                .iter()
                .map(|f| {
                    if f.literals.is_empty() {
                        return Ok(None);
                    }
                    LiteralSearch::new(&f.literals)
                        .map(Some)
                        .map_err(|e| LoadError::invalid(format!("literals of `{}`: {e}", f.path)))
                })
                .collect::<Result<Vec<_>, _>>()
        })
        .collect::<Result<Vec<_>, _>>()?;
    let schema_tag = crate::schema::fingerprint(
        &program.schema,
        program.schema_points.iter().map(|p| p.name.as_str()),
    );
    let by_slot = program
        .schema_points
        .iter()
        .map(|point| {
            program
                .points
                .binary_search_by(|p| p.name.as_str().cmp(&point.name))
                .ok()
                .and_then(|i| u16::try_from(i).ok())
        })
        .collect();
    let rate_ids = rate_ids(&program);
    Ok(Loaded {
        program,
        regexes,
        dfas,
        literals,
        rate_ids,
        schema_tag,
        by_slot,
        dfa_bytes,
        len,
        signature,
    })
}

/// Per counter of `program`, its [`Counter::id`] (the id of a counter no
/// test uses, which a compiled program does not have, is all zeros).
fn rate_ids(program: &Program) -> Vec<[u8; 16]> {
    let mut ids = vec![[0; 16]; program.rates.len()];
    for atom in program.points.iter().flat_map(|p| &p.atoms) {
        if let Atom::Rate(test) = atom {
            if let Some(slot) = ids.get_mut(test.counter as usize) {
                let counter = Counter {
                    template: &test.key,
                    window_ms: test.window_ms,
                    keep: test.keep(),
                };
                *slot = counter.id();
            }
        }
    }
    ids
}

#[cfg(test)]
mod tests;
