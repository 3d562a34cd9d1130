//! Why a table cannot be loaded.

use std::fmt;

/// A table that cannot be loaded: what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError {
    kind: LoadErrorKind,
}

/// The kinds of [`LoadError`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LoadErrorKind {
    /// Fewer bytes than a part of the format needs.
    TooShort {
        /// The part that did not fit (`header`, `body`).
        what: &'static str,
        /// Bytes needed.
        needed: usize,
        /// Bytes given.
        given: usize,
    },
    /// The bytes do not start with the table label: not a hookc table.
    Label,
    /// Written on a machine of the other endianness.
    Endian,
    /// Written by another version of the format.
    Version {
        /// The version this build reads.
        expected: u32,
        /// The version in the file.
        found: u32,
    },
    /// The body is larger than this build reads.
    TooLarge {
        /// The declared length.
        len: usize,
        /// The limit.
        limit: usize,
    },
    /// The body's checksum does not match: the file is corrupted.
    Checksum {
        /// The checksum in the header.
        expected: u32,
        /// The checksum of the body.
        found: u32,
    },
    /// The body does not decode.
    Decode(String),
    /// The body decodes but is inconsistent (an index out of range, …).
    Invalid(String),
    /// Bytes given to `Table::from_static` are not 4-byte aligned.
    Alignment,
    /// A DFA section does not deserialize.
    Dfa {
        /// Which section.
        index: usize,
        /// regex-automata's message.
        error: String,
    },
    /// A signed table was required and this one has no signature.
    Unsigned {
        /// The id of the key it must be signed by.
        key: String,
    },
    /// The table is signed, by another key than the one required.
    SignedByAnotherKey {
        /// The id of the key required.
        expected: String,
        /// The id of the key that signed it.
        found: String,
    },
    /// The signature does not match the table's bytes: they changed after
    /// signing.
    BadSignature {
        /// The id of the key it claims.
        key: String,
    },
}

impl LoadError {
    pub(crate) fn new(kind: LoadErrorKind) -> LoadError {
        LoadError { kind }
    }

    pub(crate) fn too_short(what: &'static str, needed: usize, given: usize) -> LoadError {
        LoadError::new(LoadErrorKind::TooShort {
            what,
            needed,
            given,
        })
    }

    pub(crate) fn invalid(message: impl Into<String>) -> LoadError {
        LoadError::new(LoadErrorKind::Invalid(message.into()))
    }

    /// What is wrong.
    pub fn kind(&self) -> &LoadErrorKind {
        &self.kind
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            LoadErrorKind::TooShort { what, needed, given } => {
                write!(f, "truncated table: the {what} needs {needed} bytes, only {given} given")
            }
            LoadErrorKind::Label => f.write_str("not a hookc table (the label does not match)"),
            LoadErrorKind::Endian => f.write_str("table written on a machine of the other endianness"),
            LoadErrorKind::Version { expected, found } => write!(
                f,
                "table format version {found} is not supported (this build reads version {expected}); recompile the rules"
            ),
            LoadErrorKind::TooLarge { len, limit } => {
                write!(f, "table body of {len} bytes exceeds the limit of {limit} bytes")
            }
            LoadErrorKind::Checksum { expected, found } => write!(
                f,
                "corrupted table: checksum {found:#010x} does not match {expected:#010x}"
            ),
            LoadErrorKind::Decode(e) => write!(f, "corrupted table: {e}"),
            LoadErrorKind::Invalid(e) => write!(f, "invalid table: {e}"),
            LoadErrorKind::Alignment => f.write_str("table bytes are not 4-byte aligned; embed them with `include_table!`"),
            LoadErrorKind::Dfa { index, error } => write!(f, "corrupted table: DFA section {index}: {error}"),
            LoadErrorKind::Unsigned { key } => write!(f, "the table is not signed; it must be signed by key {key} (`hookc compile --sign KEYFILE`)"),
            LoadErrorKind::SignedByAnotherKey { expected, found } => write!(f, "the table is signed by key {found}, not by the trusted key {expected}"),
            LoadErrorKind::BadSignature { key } => write!(f, "the table's signature (key {key}) does not match its contents: it was modified after signing"),
        }
    }
}

impl std::error::Error for LoadError {}
