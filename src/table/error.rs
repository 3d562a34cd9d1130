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
        }
    }
}

impl std::error::Error for LoadError {}
