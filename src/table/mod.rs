//! The compiled [`Table`] and its versioned binary format.
//!
//! A table is a program laid out in words (the `layout` module) plus its matcher
//! automata, and a load reads almost none of it: [`Table::from_bytes`]
//! checks the header, every section's bounds, the checksum of the program
//! block's head (or a signature over the whole, with
//! [`Table::from_bytes_verified`]), and reads the meta block (the schema,
//! the points that have rules, the rate counters); that is all. A point's
//! block is checked and read the first time the point is dispatched, and a
//! rule, an atom or a literal search the first time a dispatch needs it;
//! the multi-pattern DFAs, stored in regex-automata's own serialized form,
//! are checked and validated by its `DFA::from_bytes` when a dispatch
//! first searches them (see [`encoding`] for what each checksum covers).
//! So a hook process answering one event reads what that event reaches,
//! whatever the table holds.
//!
//! Nothing a table holds can make a dispatch panic: every read of its
//! words is checked. A corrupted part is found where it is read: a DFA
//! section that does not check or validate is never searched, and its
//! patterns are matched one by one from their regexes (the answer stays
//! the same, the outcome's warnings say why); a point block, rule or atom
//! that does not read ends the dispatch with an abort that says why (a
//! warning too). [`Table::check_point`] reads one point's block ahead of
//! its dispatch; [`Table::validate`] reads everything at once and checks
//! every index against every other, as a tool or a cautious host does
//! before trusting a table.
//!
//! The bytes are [`encoding`]'s: the versioned format (header, checksum,
//! the program block, DFA sections, an optional signature block) is
//! written and read there and nowhere else; this module turns the parts
//! into a ready-to-dispatch table.

pub mod encoding;
mod error;
pub(crate) mod layout;
pub(crate) mod rule;
pub mod sign;
mod validate;
mod wire;

#[doc(hidden)]
pub use encoding::encode;
pub(crate) use encoding::ReadError;
pub use encoding::{HEADER_LEN, LABEL, MAX_LEN, VERSION};
pub use error::{LoadError, LoadErrorKind};
pub use sign::{KeyError, PublicKey, SecretKey};

use crate::ir::{PointProgram, Program, RateTest};
pub(crate) mod literals;
pub(crate) mod regexes;

use crate::schema::PointId;
use crate::store::Counter;
use layout::point::{Point, Refs};
use layout::program::ProgramLayout;
pub(crate) use literals::{LiteralSearch, LiteralStart};
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

/// A DFA section once validated: copied out of the table's bytes (a
/// table keeps it without borrowing its own bytes; the copy costs less
/// than the validation it follows, and only the sections a dispatch
/// reaches are made), or, for a table whose bytes live as long as the
/// program ([`Table::from_static`]), read where it lies.
#[derive(Clone, Debug)]
pub(crate) enum Dfa {
    Dense(dense::DFA<Vec<u32>>),
    Sparse(sparse::DFA<Vec<u8>>),
    DenseInPlace(dense::DFA<&'static [u32]>),
    SparseInPlace(sparse::DFA<&'static [u8]>),
}

/// `$body` applied to the DFA of every kind of [`Dfa`].
macro_rules! each_dfa {
    ($dfa:expr, $d:ident => $body:expr) => {
        match $dfa {
            Dfa::Dense($d) => $body,
            Dfa::Sparse($d) => $body,
            Dfa::DenseInPlace($d) => $body,
            Dfa::SparseInPlace($d) => $body,
        }
    };
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
        each_dfa!(self, d => d.try_search_overlapping_fwd(input, state))
    }

    /// Whether the DFA matches anywhere in `text` (it stops at the first
    /// match); `Err` when it cannot decide (a Unicode word boundary on
    /// non-ASCII text).
    #[inline]
    pub(crate) fn is_match(&self, text: &str) -> Result<bool, MatchError> {
        use regex_automata::dfa::Automaton;
        let input = Input::new(text).earliest(true);
        let found = each_dfa!(self, d => d.try_search_fwd(&input)?);
        Ok(found.is_some())
    }

    pub(crate) fn pattern_len(&self) -> usize {
        each_dfa!(self, d => d.pattern_len())
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
    /// The CRC-32 of its bytes as stored.
    crc: u32,
    /// Where its bytes are.
    bytes: DfaBytes<'a>,
    /// The DFA once read, or why it does not read.
    dfa: OnceLock<Result<Dfa, String>>,
    /// Set once a search found the section unusable (it does not read, or
    /// has another number of patterns than expected) and a warning said so.
    warned: OnceLock<()>,
}

impl<'a> LazyDfa<'a> {
    pub(super) fn new(index: usize, kind: u32, crc: u32, bytes: DfaBytes<'a>) -> LazyDfa<'a> {
        LazyDfa {
            index,
            kind,
            crc,
            bytes,
            dfa: OnceLock::new(),
            warned: OnceLock::new(),
        }
    }

    /// The DFA, checked and validated on first use, when it has
    /// `patterns` patterns; `Err` says why it is not used (its checksum,
    /// its validation, another number of patterns), and a warning said so
    /// once.
    pub(crate) fn get(&self, patterns: usize) -> Result<&Dfa, String> {
        let why = match self.loaded() {
            Ok(dfa) if dfa.pattern_len() == patterns => return Ok(dfa),
            Ok(dfa) => format!(
                "corrupted table: DFA section {} has {} patterns where {patterns} are expected; they are matched one by one",
                self.index,
                dfa.pattern_len()
            ),
            Err(error) => format!(
                "corrupted table: DFA section {}: {error}; its patterns are matched one by one",
                self.index
            ),
        };
        self.warned.get_or_init(|| tracing::warn!("{why}"));
        Err(why)
    }

    /// The DFA, read, checked and validated once (by the first search or
    /// by [`Table::validate`], whichever comes first); `Err` says why not.
    fn loaded(&self) -> Result<&Dfa, &String> {
        self.dfa.get_or_init(|| self.load()).as_ref()
    }

    /// Whether a search has read the section.
    #[cfg(test)]
    pub(crate) fn is_read(&self) -> bool {
        self.dfa.get().is_some()
    }

    /// Reads (from the file, for a table read from one), checks,
    /// deserializes and validates the section.
    fn load(&self) -> Result<Dfa, String> {
        match self.bytes {
            DfaBytes::Here { body, in_place } => self.check(body, in_place),
            DfaBytes::File { file, at, len } => {
                let words = encoding::read_words(file, at, len)
                    .map_err(|e| format!("cannot read it from the table's file: {e}"))?;
                // Kept for the life of the process, which answers one
                // event (see `Table::read_file`): the DFA is read where
                // it lies, not copied out once more.
                let words: &'static [u32] = Vec::leak(words);
                let body = bytemuck::cast_slice::<u32, u8>(words)
                    .get(..len)
                    .unwrap_or(&[]);
                self.check(body, Some(body))
            }
        }
    }

    /// Checks `body` against the stored checksum, then deserializes and
    /// validates it: in place when `in_place` holds the same bytes for the
    /// life of the program, copied out otherwise.
    fn check(&self, body: &[u8], in_place: Option<&'static [u8]>) -> Result<Dfa, String> {
        let found = crc32fast::hash(body);
        if found != self.crc {
            return Err(format!(
                "its checksum is {found:#010x}, not {:#010x}",
                self.crc
            ));
        }
        let (dfa, read) = match (self.kind, in_place) {
            (0, Some(body)) => dense::DFA::from_bytes(body).map(|(d, n)| (Dfa::DenseInPlace(d), n)),
            (1, Some(body)) => {
                sparse::DFA::from_bytes(body).map(|(d, n)| (Dfa::SparseInPlace(d), n))
            }
            (0, None) => dense::DFA::from_bytes(body).map(|(d, n)| (Dfa::Dense(d.to_owned()), n)),
            (1, None) => sparse::DFA::from_bytes(body).map(|(d, n)| (Dfa::Sparse(d.to_owned()), n)),
            (kind, _) => return Err(format!("unknown DFA kind {kind}")),
        }
        .map_err(|e| e.to_string())?;
        if read != body.len() {
            return Err(format!("{} trailing bytes", body.len() - read));
        }
        Ok(dfa)
    }
}

/// Where a DFA section's bytes are.
#[derive(Debug)]
pub(crate) enum DfaBytes<'a> {
    /// In the table's bytes; `in_place` is the same bytes when they live
    /// as long as the program, for a DFA read where it lies.
    Here {
        body: &'a [u8],
        in_place: Option<&'static [u8]>,
    },
    /// In the file the table was read from ([`Table::read_file`]), at
    /// offset `at`, `len` bytes long: read when first searched.
    File {
        file: &'a std::fs::File,
        at: u64,
        len: usize,
    },
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
    /// A file read as far as its directory; its DFA sections are read
    /// from it when first searched.
    File(Box<encoding::FileHead>),
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
            Buffer::File(head) => head.first(),
        }
    }

    /// All of the table's bytes: for a table read from a file, the file
    /// read again as it is now (a failure to read it is logged, and the
    /// bytes read at load are all there is).
    fn whole(&self) -> std::borrow::Cow<'_, [u8]> {
        match self {
            Buffer::File(head) => match head.read_all() {
                Ok(bytes) => bytes.into(),
                Err(e) => {
                    tracing::error!("cannot read the table's file again: {e}");
                    self.bytes().into()
                }
            },
            _ => self.bytes().into(),
        }
    }
}

/// Everything a load derives from the bytes; borrows the program's words
/// and the DFAs from them, and keeps what dispatches read of them later.
#[derive(Debug)]
pub(crate) struct Loaded<'a> {
    /// The program block's words.
    pub(crate) section: &'a [u32],
    /// The meta block, the regexes, and the points (their blocks read on
    /// first dispatch).
    pub(crate) program: ProgramLayout<'a>,
    pub(crate) regexes: LazyRegexes<'a>,
    /// DFA sections, by index, each validated on first use.
    pub(crate) dfas: Vec<LazyDfa<'a>>,
    /// Per `rate(…)` counter, its identity in a
    /// [`MemoryStore`](crate::store::MemoryStore) ([`Counter::id`]),
    /// computed when a test first counts in it.
    rate_ids: Box<[OnceLock<[u8; 16]>]>,
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
    /// How the literal searches of several anchors begin
    /// ([`Table::for_one_event`]).
    pub(crate) literal_start: LiteralStart,
    /// The whole program in the IR, decoded and validated the first time
    /// a tool asks ([`Table::program`], [`Table::validate`]).
    ir: OnceLock<Result<Program, LoadError>>,
}

impl<'a> Loaded<'a> {
    /// What the points' rules and atoms may refer to.
    #[inline]
    pub(crate) fn refs(&self) -> Refs<'_> {
        Refs {
            regexes: self.program.regex_count(),
            files: self.program.meta.files.len(),
            rates: &self.program.meta.rates,
        }
    }

    /// The point at index `i` of the points with rules; `Err` when its
    /// block does not read.
    #[inline]
    pub(crate) fn point(&self, i: usize) -> Option<Result<Point<'_>, &str>> {
        let slot = self.program.points.get(i)?;
        Some(slot.view(self.refs(), self.literal_start))
    }

    /// Each regex's DFA section.
    pub(crate) fn regex_dfas(&self) -> &[u32] {
        self.program.regex_dfas(self.section)
    }

    /// Each regex's needed literals.
    pub(crate) fn regex_needs(&self) -> layout::Strings<'_> {
        self.program.regex_needs(self.section)
    }

    /// The rate counters.
    pub(crate) fn rates(&self) -> &[crate::ir::RateSpec] {
        &self.program.meta.rates
    }

    /// What command hooks read on stdin.
    pub(crate) fn command_input(&self) -> crate::schema::CommandInput {
        self.program.meta.command_input
    }

    /// The identity of `test`'s counter in a memory store.
    pub(crate) fn rate_id(&self, test: &RateTest) -> Option<[u8; 16]> {
        let cell = self.rate_ids.get(test.counter as usize)?;
        let keep = self
            .rates()
            .get(test.counter as usize)
            .map_or(test.keep(), |spec| spec.keep);
        Some(*cell.get_or_init(|| {
            Counter {
                template: &test.key,
                window_ms: test.window_ms,
                keep,
            }
            .id()
        }))
    }

    /// The whole program in the IR, read and checked.
    fn ir(&self) -> &Result<Program, LoadError> {
        self.ir.get_or_init(|| {
            let program = self
                .decode_all()
                .map_err(|e| LoadError::new(LoadErrorKind::Decode(e)))?;
            validate::program(&program, &self.dfas)?;
            for dfa in &self.dfas {
                dfa.loaded().map_err(|error| {
                    LoadError::new(LoadErrorKind::Dfa {
                        index: dfa.index,
                        error: error.clone(),
                    })
                })?;
            }
            Ok(program)
        })
    }

    /// Each regex's needed literals as the IR holds them (none at all when
    /// no regex has any); `Err` when a string is not text.
    fn decode_needs(&self) -> Result<Vec<Vec<String>>, String> {
        let needs = self.regex_needs();
        let all = (0..self.program.regex_count())
            .map(|i| match std::str::from_utf8(needs.get(i)) {
                Ok("") => Ok(Vec::new()),
                Ok(text) => Ok(text.split('\0').map(str::to_string).collect()),
                Err(_) => Err(format!("the needed literals of regex {i} are not text")),
            })
            .collect::<Result<Vec<Vec<String>>, String>>()?;
        Ok(if all.iter().all(Vec::is_empty) {
            Vec::new()
        } else {
            all
        })
    }

    /// Every point, rule and atom decoded, none checked.
    fn decode_all(&self) -> Result<Program, String> {
        let meta = &self.program.meta;
        let points = (0..self.program.points.len())
            .map(|i| match self.point(i) {
                Some(Ok(point)) => point.to_ir(),
                Some(Err(e)) => Err(e.to_string()),
                None => Err("a point out of range".to_string()),
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Program {
            schema: meta.schema.clone(),
            schema_points: meta.schema_points.clone(),
            points,
            regexes: (0..self.program.regex_count())
                .map(|i| self.program.regex(self.section, i))
                .collect::<Result<_, _>>()?,
            regex_dfas: self.regex_dfas().to_vec(),
            regex_needs: self.decode_needs()?,
            files: meta.files.clone(),
            rates: meta.rates.clone(),
            command_input: meta.command_input,
            source_digest: meta.source_digest.clone(),
        })
    }
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
    /// How they are found (`None` without literals).
    pub literal_search: Option<LiteralSearchKind>,
    /// Of those, the ones too short for an anchor, searched for on their
    /// own beside the substring or the anchors (0 with the automaton,
    /// which holds them all).
    pub literal_short: usize,
    /// Heap used by the literal search as it is made at load (a packed
    /// search is counted once a dispatch has built it).
    pub ac_bytes: usize,
    /// Comparisons with a number (`<`, `<=`, `>`, `>=`), decided against
    /// the field's value read once.
    pub comparisons: usize,
}

/// How a field's literals are found in its text, for `hookc inspect`. The
/// first two confirm each place found against the literals of that
/// beginning, by length, in a hash table.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LiteralSearchKind {
    /// Every literal begins with this text (their common stem, or the one
    /// anchor their first bytes came to), found by a single-substring
    /// search.
    Substring(String),
    /// Their first bytes take this many values (anchors), found together
    /// by a packed SIMD search (or, in a table for one event and on a CPU
    /// without the packed search, by reading the stored anchors in place).
    Anchors(usize),
    /// One Aho-Corasick automaton of the whole literals: their first
    /// bytes take too many values, or all are too short for anchors.
    Automaton,
}

impl LiteralSearchKind {
    /// Its name in `inspect`'s JSON: `substring`, `anchors`, `automaton`.
    pub fn name(&self) -> &'static str {
        match self {
            LiteralSearchKind::Substring(_) => "substring",
            LiteralSearchKind::Anchors(_) => "anchors",
            LiteralSearchKind::Automaton => "automaton",
        }
    }
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
        Table::from_owned_bytes(bytes)?.signed_by(signed, len, key)
    }

    /// The table, when the signature block just verified (`signed`, of
    /// bytes `len` long) is the one the loader found where the sections
    /// end; bytes that do not load say why first.
    fn signed_by(self, signed: bool, len: usize, key: &PublicKey) -> Result<Table, LoadError> {
        match self.loaded().signature {
            Some((at, _)) if signed && at + sign::SIGNATURE_BLOCK_LEN == len => Ok(self),
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

    /// [`from_static`](Self::from_static), only if the bytes are signed by
    /// `key`, with nothing changed since (see
    /// [`from_bytes_verified`](Self::from_bytes_verified)).
    ///
    /// # Errors
    ///
    /// As [`from_bytes_verified`](Self::from_bytes_verified), and an
    /// alignment error.
    pub fn from_static_verified(bytes: &'static [u8], key: &PublicKey) -> Result<Table, LoadError> {
        let signed = sign::verify(bytes, key)?;
        Table::from_static(bytes)?.signed_by(signed, bytes.len(), key)
    }

    /// Reads the table in `file` as far as its directory (the header, the
    /// program block, where each DFA section is) and each DFA section only
    /// when a dispatch first searches it, from the same open file: a
    /// process that answers one event reads the automata its event
    /// reaches, not the whole table. Loads as
    /// [`from_bytes`](Self::from_bytes) does. A section that no longer
    /// reads as the directory says (the file changed in place since it was
    /// opened) fails its checksum, and its patterns are matched one by one
    /// from the regexes the program block holds, so the answers are those
    /// of the table first read. [`to_bytes`](Self::to_bytes) reads the file
    /// again. An unsigned table only: a signature covers every byte, which
    /// [`from_bytes_verified`](Self::from_bytes_verified) reads at once.
    ///
    /// For a process that answers an event and exits (`hookc claude`): the
    /// sections it reads are kept for the life of the process, as the
    /// bytes of [`from_static`](Self::from_static) are, and the file stays
    /// open as long as the table.
    pub(crate) fn read_file(file: std::fs::File) -> Result<Table, encoding::ReadError> {
        let head = encoding::FileHead::read(file)?;
        Ok(Table::load(Buffer::File(Box::new(head)))?)
    }

    /// Encodes a program with no DFA sections and loads it: for tests and
    /// tools that build programs by hand.
    ///
    /// # Errors
    ///
    /// As [`from_bytes`](Self::from_bytes).
    #[doc(hidden)]
    pub fn from_program(program: Program) -> Result<Table, LoadError> {
        let table = Table::from_owned_bytes(encode(&program, &[]))?;
        table.validate()?;
        Ok(table)
    }

    /// Reads the whole table and checks every index against every other:
    /// every point block, rule and atom decodes, every rule is indexed
    /// once and under its target, every trigger, matcher and DFA reference
    /// agrees. A load checks only the header, the checksum, the bounds of
    /// the sections and the meta block, and leaves the rest to the
    /// dispatches that reach it (see the module docs); a tool, or a host
    /// that wants a table it got from elsewhere checked before it serves,
    /// calls this once after loading.
    ///
    /// # Errors
    ///
    /// A [`LoadError`] saying what does not read or does not agree.
    pub fn validate(&self) -> Result<(), LoadError> {
        self.loaded()
            .ir()
            .as_ref()
            .map(|_| ())
            .map_err(Clone::clone)
    }

    fn load(buffer: Buffer) -> Result<Table, LoadError> {
        let inner = Inner::try_new(buffer, |buffer| {
            let bytes = buffer.bytes();
            let decoded = match buffer {
                Buffer::Static(bytes) => encoding::decode(bytes, Some(*bytes)),
                Buffer::Bytes(_) | Buffer::Words(..) => encoding::decode(bytes, None),
                Buffer::File(head) => Ok(encoding::decode_file(head)),
            };
            decoded.and_then(|decoded| loaded(bytes, decoded))
        })?;
        Ok(Table { inner })
    }

    pub(crate) fn loaded(&self) -> &Loaded<'_> {
        self.inner.borrow_dependent()
    }

    /// The table, tuned for a process that dispatches one event, or a
    /// few, and exits (a command hook, such as `hookc claude`).
    ///
    /// A field's literals are found in two stages: where their first
    /// bytes occur, then which literal is there. By default the first
    /// stage's packed SIMD search is built by the first dispatch that
    /// reads the field, so that no later dispatch allocates. Building it
    /// costs about 1,800 instructions for each distinct beginning, more
    /// than one short command's search saves; this table instead reads
    /// the stored beginnings in place, and builds the packed search only
    /// once the text it has read would have paid for it. Call it before
    /// the first dispatch.
    #[must_use]
    pub fn for_one_event(mut self) -> Table {
        self.inner
            .with_dependent_mut(|_, loaded| loaded.literal_start = LiteralStart::Walk);
        self
    }

    /// Whether the whole program has been decoded ([`program`](Self::program)
    /// or [`validate`](Self::validate) asked for it).
    #[cfg(test)]
    pub(crate) fn is_program_decoded(&self) -> bool {
        self.loaded().ir.get().is_some()
    }

    /// The program this table runs (the IR: for the tools and tests, no
    /// compatibility promise), every rule and atom decoded on the first
    /// call. Empty when the table does not [`validate`](Self::validate)
    /// (a warning says why).
    #[doc(hidden)]
    pub fn program(&self) -> &Program {
        static EMPTY: OnceLock<Program> = OnceLock::new();
        match self.loaded().ir() {
            Ok(program) => program,
            Err(e) => {
                tracing::warn!("corrupted table: {e}");
                EMPTY.get_or_init(Program::default)
            }
        }
    }

    /// The rules of the point called `name`, if it has any (the IR, as
    /// [`program`](Self::program)).
    #[doc(hidden)]
    pub fn point(&self, name: &str) -> Option<&PointProgram> {
        let points = &self.program().points;
        points
            .binary_search_by(|p| p.name.as_str().cmp(name))
            .ok()
            .and_then(|i| points.get(i))
    }

    /// The index of the rules of the point called `name`, if it has any.
    pub(crate) fn point_index(&self, name: &str) -> Option<usize> {
        self.loaded()
            .program
            .points
            .binary_search_by(|p| p.head.name.as_str().cmp(name))
            .ok()
    }

    /// The name of the table's schema.
    pub fn schema(&self) -> &str {
        &self.loaded().program.meta.schema
    }

    /// The digest of the sources the table was compiled from, hex; empty
    /// when they were not read from files.
    pub fn source_digest(&self) -> &str {
        &self.loaded().program.meta.source_digest
    }

    /// The source files the table was compiled from.
    pub fn files(&self) -> &[String] {
        &self.loaded().program.meta.files
    }

    /// Whether a rule tests `rate(…)`: a host then gives dispatch a store
    /// to count in ([`Effects::with_rate_store`](crate::Effects::with_rate_store)).
    pub fn has_rate_tests(&self) -> bool {
        !self.loaded().program.meta.rates.is_empty()
    }

    /// The id of the schema's point called `name`, with rules or not:
    /// resolve the points a host dispatches once, then dispatch by id. See
    /// [`PointId`].
    pub fn point_id(&self, name: &str) -> Option<PointId> {
        let loaded = self.loaded();
        let slot = loaded
            .program
            .meta
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
            .meta
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
    /// `hookc compile` reports). Reads every point's ids, in place.
    pub fn rule_count(&self) -> usize {
        let loaded = self.loaded();
        let mut ids: std::collections::HashSet<&str> = std::collections::HashSet::new();
        for i in 0..loaded.program.points.len() {
            if let Some(Ok(point)) = loaded.point(i) {
                ids.extend((0..point.rule_count()).map(|r| point.rule_id(r)));
            }
        }
        ids.len()
    }

    /// Each point's rule ids, in the order of its rules (a point whose
    /// block does not read has none).
    pub(crate) fn rule_ids(&self) -> Vec<Vec<&str>> {
        let loaded = self.loaded();
        (0..loaded.program.points.len())
            .map(|i| match loaded.point(i) {
                Some(Ok(point)) => (0..point.rule_count()).map(|r| point.rule_id(r)).collect(),
                _ => Vec::new(),
            })
            .collect()
    }

    /// The number of points in the table (as many as
    /// [`program`](Self::program) has), read in place.
    pub fn point_count(&self) -> usize {
        self.loaded().program.points.len()
    }

    /// The number of rule entries over all points: a rule on two points
    /// counts twice.
    pub fn rule_entries(&self) -> usize {
        self.loaded()
            .program
            .points
            .iter()
            .map(|p| p.head.rules as usize)
            .sum()
    }

    /// Size of the table in bytes.
    pub fn byte_len(&self) -> usize {
        self.loaded().len
    }

    /// The size in bytes of each DFA section of the table (the field
    /// matchers' and the expression regexes' DFAs, each shared section
    /// once), for `hookc inspect` and the cost report.
    #[cfg(feature = "compiler")]
    pub(crate) fn dfa_sizes(&self) -> &[usize] {
        &self.loaded().dfa_bytes
    }

    /// The matchers of each field of a point, with their sizes.
    pub fn field_stats(&self, point: &str) -> Vec<FieldStats> {
        let loaded = self.loaded();
        let Some(Some(Ok(p))) = self.point_index(point).map(|i| loaded.point(i)) else {
            return Vec::new();
        };
        (0..p.field_count())
            .filter_map(|f| p.field(f))
            .map(|f| {
                let search = f.literal_search();
                FieldStats {
                    field: f.path().to_string(),
                    atoms: f.bulk().len(),
                    eq_keys: f.eq_len(),
                    dfa_patterns: f.dfa_atoms().len(),
                    dfa_bytes: f
                        .dfa()
                        .and_then(|d| loaded.dfa_bytes.get(d as usize).copied())
                        .unwrap_or(0),
                    literals: f.literal_count(),
                    literal_search: search.map(|s| s.kind(f.stored_literals())),
                    literal_short: search.map_or(0, LiteralSearch::short_count),
                    ac_bytes: search.map_or(0, LiteralSearch::memory_usage),
                    comparisons: f
                        .bulk()
                        .iter()
                        .filter(|&&a| matches!(p.atom(a), Ok(crate::ir::Atom::Cmp(..))))
                        .count(),
                }
            })
            .collect()
    }

    /// Writes the table in the binary format. Never fails.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.inner.borrow_owner().whole().into_owned()
    }

    /// Writes the table signed by `key` (a signature it had is replaced).
    pub fn to_signed_bytes(&self, key: &SecretKey) -> Vec<u8> {
        let bytes = self.inner.borrow_owner().whole();
        let bytes = &*bytes;
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

/// A program's bytes (as [`encode`] writes them) decoded back into the IR
/// with no check at all: for the format's own tests, which encode programs
/// whose indices point nowhere.
#[cfg(test)]
pub(crate) fn decode_unchecked(bytes: &[u8]) -> Result<Program, String> {
    let decoded = encoding::decode(bytes, None).map_err(|e| e.to_string())?;
    let section = bytes
        .get(decoded.program.clone())
        .and_then(|b| bytemuck::try_cast_slice::<u8, u32>(b).ok())
        .ok_or("unaligned")?;
    let program = ProgramLayout::read(section).map_err(|e| e.to_string())?;
    let loaded = Loaded {
        section,
        regexes: LazyRegexes::new(section, &program),
        dfas: decoded.dfas,
        rate_ids: Box::new([]),
        schema_tag: 0,
        by_slot: Vec::new(),
        dfa_bytes: decoded.dfa_bytes,
        len: decoded.len,
        signature: None,
        literal_start: LiteralStart::default(),
        ir: OnceLock::new(),
        program,
    };
    loaded.decode_all()
}

/// Reads the meta block and checks what a load checks: the points are
/// sorted, of the schema and of its kinds; the rate counters keep a sane
/// number of arrivals; every regex DFA names a section.
fn loaded<'a>(bytes: &'a [u8], decoded: encoding::Decoded<'a>) -> Result<Loaded<'a>, LoadError> {
    let encoding::Decoded {
        program,
        dfas,
        dfa_bytes,
        signature,
        len,
    } = decoded;
    let section = bytes
        .get(program)
        .and_then(|b| bytemuck::try_cast_slice::<u8, u32>(b).ok())
        .ok_or_else(|| LoadError::invalid("the program block is not whole, aligned words"))?;
    let mut program = ProgramLayout::read(section)
        .map_err(|e| LoadError::new(LoadErrorKind::Decode(e.to_string())))?;
    let meta = &program.meta;
    validate::points(meta)?;
    validate::rates(&meta.rates)?;
    let regex_dfas = program.regex_dfas(section);
    if !regex_dfas.is_empty() && regex_dfas.len() != program.regex_count() {
        return Err(LoadError::invalid(format!(
            "{} regex DFAs for {} regexes",
            regex_dfas.len(),
            program.regex_count()
        )));
    }
    if let Some(&d) = regex_dfas
        .iter()
        .find(|&&d| d != crate::ir::NO_DFA && d as usize >= dfas.len())
    {
        return Err(LoadError::invalid(format!(
            "regex DFA {d} is not a section of the table"
        )));
    }
    let regexes = LazyRegexes::new(section, &program);
    let schema_tag = crate::schema::fingerprint(
        &meta.schema,
        meta.schema_points.iter().map(|p| p.name.as_str()),
    );
    let by_slot = meta
        .schema_points
        .iter()
        .map(|point| {
            meta.points
                .binary_search_by(|p| p.name.as_str().cmp(&point.name))
                .ok()
                .and_then(|i| u16::try_from(i).ok())
        })
        .collect();
    let rate_ids = std::iter::repeat_with(OnceLock::new)
        .take(meta.rates.len())
        .collect();
    // From 1: a scratch's empty memory (key 0) names no table's point.
    static LOADS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    // This load's number, unique in the process: what a scratch
    // remembers a target's groups under ([`Point::key`]).
    let id = LOADS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    for (i, point) in program.points.iter_mut().enumerate() {
        // Points are fewer than 2^16 (they are the schema's, which
        // `PointId` numbers in 16 bits).
        point.set_key(id << 16 | (i as u64 & 0xffff));
    }
    Ok(Loaded {
        section,
        regexes,
        dfas,
        rate_ids,
        schema_tag,
        by_slot,
        dfa_bytes,
        len,
        signature,
        literal_start: LiteralStart::default(),
        ir: OnceLock::new(),
        program,
    })
}

#[cfg(test)]
mod tests;
