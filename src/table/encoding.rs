//! The table's binary format: with the program's wire form (`wire`), the
//! one place that writes and reads its bytes.
//!
//! [`encode`] writes a program and its DFA sections; `decode` checks the
//! header, the checksum and every section's bounds and hands back the parts
//! for [`Table`](super::Table) to validate. Nothing outside this module
//! knows an offset, and nothing outside `wire` knows how the program
//! section spells a program.
//!
//! # Format (version 14)
//!
//! ```text
//! offset  size  field
//!      0    12  label  "hookc-table\0"
//!     12     4  endianness check: 0xFEFF as a native-endian u32
//!     16     4  format version (u32 LE)
//!     20     4  program length P in bytes (u32 LE)
//!     24     4  CRC-32 of the program block's head: its words before
//!               its point blocks (u32 LE)
//!     28     4  number of DFA sections D (u32 LE)
//!     32     P  the program block: native-endian u32 words (see
//!               `layout`), P a multiple of 4, its point blocks last
//!      …        D times: section length L (u32 LE), then L bytes: the DFA
//!               kind (u32 LE: 0 dense, 1 sparse), the CRC-32 of the DFA
//!               (u32 LE), and a native-endian regex-automata DFA of that
//!               kind; zero padding to 4
//! ```
//!
//! # Checksums
//!
//! Each part of a table is checked when it is first read, so that a load
//! reads what it needs and a dispatch what it reaches: the header's CRC
//! covers the program block's head (its slots, the meta blob, the
//! regexes, the point blocks' checksums) and is checked by every load;
//! each point block's CRC-32 (in the head) is checked the first time the
//! point is dispatched; each DFA section's, the first time it is
//! searched. A bit flipped anywhere is found before the part it is in is
//! used ([`Table::validate`](super::Table::validate) checks them all at
//! once).
//!
//! Every section starts 4-byte aligned relative to the start, so bytes that
//! start aligned (see [`Aligned`](super::Aligned)) load without copying. DFAs are
//! native-endian: a table is for machines of the endianness it was written on.
//!
//! Version 6 added the `include` fields and `header`s of a webhook action
//! to the program; version 7 added each point's `edits` (how the schema's
//! host applies an edit between rules); version 8 the program's
//! `command_input` (what command hooks read on stdin, from the schema);
//! version 9 the schema's points (`schema_points`: every point, with its
//! kind and edits, in the schema's order, which
//! [`PointId`](crate::PointId)s index); version 10 marks field paths read
//! as normalized file paths (`normalized`); version 11 added quantifiers,
//! their variables, the built-in functions and regex captures to
//! expressions and templates, and the digest of the sources compiled
//! (`source_digest`); version 12 the `output` action (a field of the
//! host's answer) and a DFA section per regex an expression matches
//! (`regex_dfas`); version 13 the word-set tests of a shell view's
//! command (`WordsAny`: one-letter flags as bits, large sets hashed);
//! version 14 lays the program out in words read in place (`layout`):
//! indexes, matchers, the literal search's anchors and hash tables, with
//! rules, atoms and field paths as postcard blobs decoded on first use,
//! and checksums each part where it is read; version 15 the literals
//! each regex needs (`regex_needs`), looked for before it is searched;
//! version 16 the function `if_unset`; version 17 literals shorter than
//! an anchor beside a field's planned literals (searched for on their
//! own, where a table of 16 held no plan for such a field); version 18
//! the `let` the compiler writes around a quantifier for the values its
//! body computes without its element (`Let`). A
//! table of an older version is refused with [`LoadErrorKind::Version`],
//! never misread.
//!
//! A table may end with a signature block after its last section (see
//! [`sign`]), which covers every byte before it.
//! Signatures came without a version of their own: an unsigned table is
//! byte for byte what it would be without them, and a build from before
//! them refuses a signed table (the block is bytes after the last section),
//! never misreads it.
//!
//! The program block's blobs are written with postcard through the wire
//! types (`wire`: one serde remote definition per IR type, which fixes
//! the fields and variants the format holds and their order), its words
//! by `layout`. **The IR may change freely; a change of the wire types or
//! of a block's slots is a format version**: bump [`VERSION`] and bless
//! the golden tables (`tests/it/golden.rs` and the table module's
//! `every_variant` test fail until then).

use super::{layout, sign, LazyDfa, LoadError, LoadErrorKind, PublicKey};
use crate::ir::Program;
use std::ops::Range;

/// The label every table starts with.
pub const LABEL: &[u8; 12] = b"hookc-table\0";

/// The format version this build writes and reads.
pub const VERSION: u32 = 18;

/// The endianness check value, written native-endian.
pub(super) const ENDIAN_CHECK: u32 = 0xFEFF;

/// Size of the fixed header in bytes.
pub const HEADER_LEN: usize = 32;

/// The largest table this build reads (256 MiB).
pub const MAX_LEN: usize = 256 << 20;

/// What [`decode`] found in a table's bytes, before validation.
#[derive(Debug)]
pub(crate) struct Decoded<'a> {
    /// Where the program block is in the bytes (4-byte aligned, a
    /// multiple of 4 long).
    pub(crate) program: Range<usize>,
    /// DFA sections, by index, borrowed from the bytes; each is validated
    /// when first searched.
    pub(crate) dfas: Vec<LazyDfa<'a>>,
    /// The length of each DFA section in bytes.
    pub(crate) dfa_bytes: Vec<usize>,
    /// Where the signature block starts, and the key it names.
    pub(crate) signature: Option<(usize, PublicKey)>,
    /// The length of the whole table.
    pub(crate) len: usize,
}

/// Writes a program and its DFA sections in the binary format.
#[doc(hidden)]
pub fn encode(program: &Program, dfas: &[Vec<u8>]) -> Vec<u8> {
    let written = layout::program::write(program);
    let body: &[u8] = bytemuck::cast_slice(&written.words);
    let head = body.get(..4 * written.head).unwrap_or(body);
    let mut out = Vec::with_capacity(HEADER_LEN + body.len());
    out.extend_from_slice(LABEL);
    out.extend_from_slice(&ENDIAN_CHECK.to_ne_bytes());
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&u32::try_from(body.len()).unwrap_or(u32::MAX).to_le_bytes());
    out.extend_from_slice(&crc32fast::hash(head).to_le_bytes());
    out.extend_from_slice(&u32::try_from(dfas.len()).unwrap_or(u32::MAX).to_le_bytes());
    out.extend_from_slice(body);
    for dfa in dfas {
        // The compiler's section: the kind word, then the DFA.
        let (kind, automaton) = dfa.split_at_checked(4).unwrap_or((dfa, &[]));
        let len = u32::try_from(dfa.len() + 4).unwrap_or(u32::MAX);
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(kind);
        out.extend_from_slice(&crc32fast::hash(automaton).to_le_bytes());
        out.extend_from_slice(automaton);
        pad(&mut out);
    }
    out
}

/// Writes every checksum of `bytes` anew, from what they hold: for tests
/// and fuzzing, which change bytes and want what follows the checksums
/// to read them.
///
/// # Errors
///
/// When the bytes are not laid out as a table.
#[doc(hidden)]
pub fn reseal(bytes: &mut [u8]) -> Result<(), LoadError> {
    let program_len = u32_at(bytes, 20).unwrap_or(0) as usize;
    let program = HEADER_LEN..HEADER_LEN.saturating_add(program_len);
    let crcs = {
        let section = bytes
            .get(program.clone())
            .and_then(|b| bytemuck::try_cast_slice::<u8, u32>(b).ok())
            .ok_or_else(|| LoadError::invalid("no program block"))?;
        layout::program::point_checksums(section).map_err(|e| LoadError::invalid(e.0))?
    };
    // The point blocks' checksums first: the head's covers them.
    for (at, crc) in crcs {
        let i = HEADER_LEN + 4 * at;
        if let Some(word) = bytes.get_mut(i..i + 4) {
            word.copy_from_slice(&crc.to_ne_bytes());
        }
    }
    let head_len = {
        let section = bytes
            .get(program.clone())
            .and_then(|b| bytemuck::try_cast_slice::<u8, u32>(b).ok())
            .unwrap_or(&[]);
        layout::program::head_len(section)
    };
    let crc = crc32fast::hash(
        bytes
            .get(HEADER_LEN..HEADER_LEN + 4 * head_len)
            .unwrap_or(&[]),
    );
    if let Some(word) = bytes.get_mut(24..28) {
        word.copy_from_slice(&crc.to_le_bytes());
    }
    let mut at = program.end.next_multiple_of(4);
    for _ in 0..u32_at(bytes, 28).unwrap_or(0) {
        let len = u32_at(bytes, at).ok_or_else(|| LoadError::invalid("a DFA section"))? as usize;
        let crc = crc32fast::hash(bytes.get(at + 12..at + 4 + len).unwrap_or(&[]));
        if let Some(word) = bytes.get_mut(at + 8..at + 12) {
            word.copy_from_slice(&crc.to_le_bytes());
        }
        at = (at + 4 + len).next_multiple_of(4);
    }
    Ok(())
}

pub(super) fn pad(out: &mut Vec<u8>) {
    while !out.len().is_multiple_of(4) {
        out.push(0);
    }
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    let w: [u8; 4] = bytes.get(at..at.checked_add(4)?)?.try_into().ok()?;
    Some(u32::from_le_bytes(w))
}

/// Reads a table's header and sections; `in_place` is the same bytes when
/// they live as long as the program, for DFAs read where they lie.
pub(crate) fn decode<'a>(
    bytes: &'a [u8],
    in_place: Option<&'static [u8]>,
) -> Result<Decoded<'a>, LoadError> {
    let header =
        bytes
            .get(..HEADER_LEN)
            .ok_or(LoadError::too_short("header", HEADER_LEN, bytes.len()))?;
    if header.get(..LABEL.len()) != Some(&LABEL[..]) {
        return Err(LoadError::new(LoadErrorKind::Label));
    }
    let endian: [u8; 4] = header
        .get(12..16)
        .and_then(|w| w.try_into().ok())
        .unwrap_or_default();
    if u32::from_ne_bytes(endian) != ENDIAN_CHECK {
        return Err(LoadError::new(LoadErrorKind::Endian));
    }
    let version = u32_at(header, 16).unwrap_or(0);
    if version != VERSION {
        return Err(LoadError::new(LoadErrorKind::Version {
            expected: VERSION,
            found: version,
        }));
    }
    if bytes.len() > MAX_LEN {
        return Err(LoadError::new(LoadErrorKind::TooLarge {
            len: bytes.len(),
            limit: MAX_LEN,
        }));
    }
    let program_len = u32_at(header, 20).unwrap_or(0) as usize;
    let expected = u32_at(header, 24).unwrap_or(0);
    let dfa_count = u32_at(header, 28).unwrap_or(0) as usize;
    let rest = bytes.get(HEADER_LEN..).unwrap_or(&[]);
    if program_len > rest.len() {
        return Err(LoadError::too_short(
            "program",
            HEADER_LEN + program_len,
            bytes.len(),
        ));
    }
    if !program_len.is_multiple_of(4) {
        return Err(LoadError::invalid(format!(
            "a program block of {program_len} bytes, not whole words"
        )));
    }
    let program = HEADER_LEN..HEADER_LEN + program_len;
    // The head of the program block: where its point blocks start is read
    // from its slots before they are checked; a flipped bit there makes
    // the range checked another, whose checksum is another.
    let head_len = bytes
        .get(program.clone())
        .and_then(|b| bytemuck::try_cast_slice::<u8, u32>(b).ok())
        .map_or(0, layout::program::head_len);
    let found = crc32fast::hash(
        bytes
            .get(HEADER_LEN..HEADER_LEN + 4 * head_len)
            .unwrap_or(&[]),
    );
    if expected != found {
        return Err(LoadError::new(LoadErrorKind::Checksum { expected, found }));
    }
    // DFA sections.
    let mut at = HEADER_LEN + program_len.next_multiple_of(4);
    let mut dfas = Vec::with_capacity(dfa_count.min(1 << 16));
    let mut dfa_bytes = Vec::with_capacity(dfa_count.min(1 << 16));
    for i in 0..dfa_count {
        let len =
            u32_at(bytes, at).ok_or(LoadError::too_short("DFA section", at + 4, bytes.len()))?
                as usize;
        let start = at + 4;
        let section = bytes
            .get(start..start.saturating_add(len))
            .ok_or(LoadError::too_short(
                "DFA section",
                start.saturating_add(len),
                bytes.len(),
            ))?;
        let dfa_error = |e: &dyn std::fmt::Display| {
            LoadError::new(LoadErrorKind::Dfa {
                index: i,
                error: e.to_string(),
            })
        };
        let kind = u32_at(section, 0).ok_or_else(|| dfa_error(&"missing kind"))?;
        if kind > 1 {
            return Err(dfa_error(&format!("unknown DFA kind {kind}")));
        }
        let crc = u32_at(section, 4).ok_or_else(|| dfa_error(&"missing checksum"))?;
        // The DFA itself is checked and validated when a dispatch first
        // searches it.
        let body = section.get(8..).unwrap_or(&[]);
        let body_at = start + 8..start + len;
        let in_place = in_place.and_then(|whole| whole.get(body_at));
        dfas.push(LazyDfa::new(i, kind, crc, body, in_place));
        dfa_bytes.push(len);
        at = (start + len).next_multiple_of(4);
    }
    let signature = match bytes.get(at..) {
        Some([]) => None,
        Some(block) if block.starts_with(sign::SIGNATURE_MAGIC) => {
            Some((at, sign::parse_block(block)?))
        }
        _ => {
            return Err(LoadError::invalid(format!(
                "{} unexpected bytes after the last section",
                bytes.len().saturating_sub(at)
            )))
        }
    };
    Ok(Decoded {
        program,
        dfas,
        dfa_bytes,
        signature,
        len: bytes.len(),
    })
}
