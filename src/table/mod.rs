//! The compiled [`Table`] and its versioned binary format.
//!
//! A table is a validated [`Program`] plus what the runtime derives from it at
//! load (compiled regexes, the ORCS point lookup). [`Table::to_bytes`] writes
//! it; [`Table::from_bytes`] reads it back and checks everything before
//! returning, so a truncated, corrupted or foreign file is a [`LoadError`],
//! never a panic.
//!
//! # Format (version 1)
//!
//! ```text
//! offset  size  field
//!      0    12  label  "hookc-table\0"
//!     12     4  endianness check: 0xFEFF as a native-endian u32
//!     16     4  format version (u32 LE)
//!     20     4  body length in bytes (u32 LE)
//!     24     4  CRC-32 of the body (u32 LE)
//!     28     4  reserved, zero
//!     32     …  body: the program, postcard-encoded
//!      …   0-3  zero padding to a multiple of 4
//! ```
//!
//! Every section starts 4-byte aligned, so a host can embed the bytes with an
//! aligned `include_bytes!`.

mod error;
mod validate;

pub use error::{LoadError, LoadErrorKind};

use crate::ir::{PointProgram, Program};
use crate::schema::HookPoint;
use regex::Regex;

/// The label every table starts with.
pub const LABEL: &[u8; 12] = b"hookc-table\0";

/// The format version this build writes and reads.
pub const VERSION: u32 = 1;

/// The endianness check value, written native-endian.
const ENDIAN_CHECK: u32 = 0xFEFF;

/// Size of the fixed header in bytes.
pub const HEADER_LEN: usize = 32;

/// The largest table body this build reads (256 MiB).
pub const MAX_BODY_LEN: usize = 256 << 20;

/// The largest compiled size of one regex (the `regex` crate's size limit).
pub const REGEX_SIZE_LIMIT: usize = 10 << 20;

/// A compiled, validated rule table, ready to dispatch.
///
/// `Table` is `Send + Sync`: share one across threads and give each thread its
/// own [`Scratch`](crate::Scratch).
#[derive(Clone, Debug)]
pub struct Table {
    program: Program,
    pub(crate) regexes: Vec<Regex>,
    /// For each ORCS point (by enum order), its index in `program.points`.
    by_orcs: [Option<u16>; 25],
}

impl Table {
    /// Validates a program and prepares it for dispatch.
    ///
    /// # Errors
    ///
    /// A [`LoadError`] when an index in the program points nowhere, a regex
    /// does not compile, or the points are not sorted and unique.
    pub fn from_program(program: Program) -> Result<Table, LoadError> {
        validate::program(&program)?;
        let regexes = program
            .regexes
            .iter()
            .map(|r| {
                regex::RegexBuilder::new(&r.to_inline())
                    .size_limit(REGEX_SIZE_LIMIT)
                    .build()
                    .map_err(|e| LoadError::regex(&r.pattern, &e.to_string()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut by_orcs = [None; 25];
        for (slot, point) in by_orcs.iter_mut().zip(HookPoint::ALL) {
            *slot = program
                .points
                .binary_search_by(|p| p.name.as_str().cmp(point.as_str()))
                .ok()
                .and_then(|i| u16::try_from(i).ok());
        }
        Ok(Table {
            program,
            regexes,
            by_orcs,
        })
    }

    /// The program this table runs.
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// The rules of the point called `name`, if it has any.
    pub fn point(&self, name: &str) -> Option<&PointProgram> {
        let points = &self.program.points;
        points
            .binary_search_by(|p| p.name.as_str().cmp(name))
            .ok()
            .and_then(|i| points.get(i))
    }

    /// The rules of an ORCS point, without a name lookup.
    pub fn orcs_point(&self, point: HookPoint) -> Option<&PointProgram> {
        let slot = HookPoint::ALL.iter().position(|p| *p == point)?;
        let index = (*self.by_orcs.get(slot)?)?;
        self.program.points.get(usize::from(index))
    }

    /// Total number of rules over all points.
    pub fn rule_count(&self) -> usize {
        self.program.points.iter().map(|p| p.rules.len()).sum()
    }

    /// Writes the table in the binary format. Never fails.
    pub fn to_bytes(&self) -> Vec<u8> {
        // Serializing plain data into a Vec cannot fail; an empty body would
        // be rejected at load, so nothing is lost silently either way.
        let body = postcard::to_allocvec(&self.program).unwrap_or_default();
        let mut out = Vec::with_capacity(HEADER_LEN + body.len() + 3);
        out.extend_from_slice(LABEL);
        out.extend_from_slice(&ENDIAN_CHECK.to_ne_bytes());
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&u32::try_from(body.len()).unwrap_or(u32::MAX).to_le_bytes());
        out.extend_from_slice(&crc32fast::hash(&body).to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&body);
        while out.len() % 4 != 0 {
            out.push(0);
        }
        out
    }

    /// Reads and validates a table written by [`to_bytes`](Self::to_bytes).
    ///
    /// This routine never panics for any input.
    ///
    /// # Errors
    ///
    /// A [`LoadError`] when the bytes are too short, the label, endianness or
    /// version do not match, the checksum fails, the body does not decode, or
    /// the decoded program does not validate.
    pub fn from_bytes(bytes: &[u8]) -> Result<Table, LoadError> {
        let header = bytes
            .get(..HEADER_LEN)
            .ok_or(LoadError::too_short("header", HEADER_LEN, bytes.len()))?;
        let word = |at: usize| -> [u8; 4] {
            let mut w = [0u8; 4];
            if let Some(src) = header.get(at..at + 4) {
                w.copy_from_slice(src);
            }
            w
        };
        if header.get(..LABEL.len()) != Some(&LABEL[..]) {
            return Err(LoadError::new(LoadErrorKind::Label));
        }
        if u32::from_ne_bytes(word(12)) != ENDIAN_CHECK {
            return Err(LoadError::new(LoadErrorKind::Endian));
        }
        let version = u32::from_le_bytes(word(16));
        if version != VERSION {
            return Err(LoadError::new(LoadErrorKind::Version {
                expected: VERSION,
                found: version,
            }));
        }
        let len = u32::from_le_bytes(word(20)) as usize;
        if len > MAX_BODY_LEN {
            return Err(LoadError::new(LoadErrorKind::TooLarge {
                len,
                limit: MAX_BODY_LEN,
            }));
        }
        let body = bytes
            .get(HEADER_LEN..HEADER_LEN + len)
            .ok_or(LoadError::too_short("body", HEADER_LEN + len, bytes.len()))?;
        let expected = u32::from_le_bytes(word(24));
        let found = crc32fast::hash(body);
        if expected != found {
            return Err(LoadError::new(LoadErrorKind::Checksum { expected, found }));
        }
        let program: Program = crate::ir::with_depth_limit(|| postcard::from_bytes(body))
            .map_err(|e| LoadError::new(LoadErrorKind::Decode(e.to_string())))?;
        Table::from_program(program)
    }
}

#[cfg(test)]
mod tests;
