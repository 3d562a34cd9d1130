//! The table's binary format: with the program's wire form (`wire`), the
//! one place that writes and reads its bytes.
//!
//! [`encode`] writes a program and its DFA sections; `decode` checks the
//! header, the checksum and every section's bounds and hands back the parts
//! for [`Table`](super::Table) to validate. Nothing outside this module
//! knows an offset, and nothing outside `wire` knows how the program
//! section spells a program.
//!
//! # Format (version 21)
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
//!      …  12·D  the directory: per DFA section, its length L in bytes,
//!               its kind (0 dense, 1 sparse) and the CRC-32 of its bytes
//!               (three u32 LE)
//!      …        the D DFAs in the directory's order: L bytes of a
//!               native-endian regex-automata DFA of that kind, then zero
//!               padding to 4
//! ```
//!
//! Everything before the DFAs (the header, the program block, the
//! directory) says where every part of the table is, so a reader can
//! take that much and read each DFA when it is first searched
//! (`Head`): a hook process then reads the automata its event reaches,
//! not the whole file.
//!
//! # Checksums
//!
//! Each part of a table is checked when it is first read, so that a load
//! reads what it needs and a dispatch what it reaches: the header's CRC
//! covers the program block's head (its slots, the meta blob, the
//! regexes, the point blocks' checksums) and is checked by every load;
//! each point block's CRC-32 (in the head) is checked the first time the
//! point is dispatched; each DFA section's (in the directory), the first
//! time it is searched. A bit flipped anywhere is found before the part it
//! is in is used ([`Table::validate`](super::Table::validate) checks them
//! all at once). A flipped bit in the directory moves a section or changes
//! its checksum, and the section then fails its checksum where it is
//! first searched: its patterns are matched one by one (see `LazyDfa`).
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
//! body computes without its element (`Let`); version 19 moved each DFA
//! section's length, kind and checksum into a directory before the DFAs,
//! so that the parts a load needs come first and together; version 20
//! writes a set of strings as one text and each string's length (read
//! back with one allocation, not one per string); version 21 splits each
//! rule's blob in two: a head (target, condition, failure mode) decoded
//! when the rule is a candidate, and a body (actions, origins) decoded
//! when it fires; version 22 lays each rule's head out in words, read in
//! place at every candidate (`layout::head`), with the point's target
//! names in a list of their own. A
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

use super::{layout, sign, DfaBytes, LazyDfa, LoadError, LoadErrorKind, PublicKey};
use crate::ir::Program;
use std::ops::Range;

/// The label every table starts with.
pub const LABEL: &[u8; 12] = b"hookc-table\0";

/// The format version this build writes and reads.
pub const VERSION: u32 = 22;

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

/// Bytes of one directory entry: a DFA section's length, kind and CRC-32.
const ENTRY_LEN: usize = 12;

/// Writes a program and its DFA sections in the binary format.
#[doc(hidden)]
pub fn encode(program: &Program, dfas: &[Vec<u8>]) -> Vec<u8> {
    let written = layout::program::write(program);
    let body: &[u8] = bytemuck::cast_slice(&written.words);
    let head = body.get(..4 * written.head).unwrap_or(body);
    // The compiler's sections: the kind word, then the DFA.
    let sections: Vec<(u32, &[u8])> = dfas
        .iter()
        .map(|dfa| {
            let (kind, automaton) = dfa.split_at_checked(4).unwrap_or((&[], dfa));
            let kind = kind.try_into().map_or(u32::MAX, u32::from_le_bytes);
            (kind, automaton)
        })
        .collect();
    let mut out = Vec::with_capacity(HEADER_LEN + body.len() + ENTRY_LEN * dfas.len());
    out.extend_from_slice(LABEL);
    out.extend_from_slice(&ENDIAN_CHECK.to_ne_bytes());
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&u32::try_from(body.len()).unwrap_or(u32::MAX).to_le_bytes());
    out.extend_from_slice(&crc32fast::hash(head).to_le_bytes());
    out.extend_from_slice(&u32::try_from(dfas.len()).unwrap_or(u32::MAX).to_le_bytes());
    out.extend_from_slice(body);
    for (kind, automaton) in &sections {
        let len = u32::try_from(automaton.len()).unwrap_or(u32::MAX);
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&kind.to_le_bytes());
        out.extend_from_slice(&crc32fast::hash(automaton).to_le_bytes());
    }
    for (_, automaton) in &sections {
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
    let head = Head::read(bytes, bytes.len())?;
    for (i, section) in head.sections.iter().enumerate() {
        let crc = crc32fast::hash(bytes.get(section.bytes.clone()).unwrap_or(&[]));
        let at = head.directory + ENTRY_LEN * i + 8;
        if let Some(word) = bytes.get_mut(at..at + 4) {
            word.copy_from_slice(&crc.to_le_bytes());
        }
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

/// Where everything of a table is, as its first bytes say (the header,
/// the program block and the directory): read before any DFA, checked
/// against the table's length.
#[derive(Debug)]
pub(crate) struct Head {
    /// Where the program block is (4-byte aligned, a multiple of 4 long).
    pub(crate) program: Range<usize>,
    /// Where the directory starts.
    directory: usize,
    /// The DFA sections, in order.
    pub(crate) sections: Vec<Section>,
    /// Where the last section ends: a signature block, if any, starts here.
    pub(crate) end: usize,
    /// The length of the whole table.
    pub(crate) len: usize,
}

/// One DFA section, as the directory describes it.
#[derive(Clone, Debug)]
pub(crate) struct Section {
    /// Where its bytes are in the table (4-byte aligned).
    pub(crate) bytes: Range<usize>,
    /// [`DfaKind`](super::DfaKind) as stored.
    pub(crate) kind: u32,
    /// The CRC-32 of its bytes as stored.
    pub(crate) crc: u32,
}

impl Head {
    /// How many of a table's first bytes [`Head::read`] needs, from its
    /// header alone: the header, the program block and the directory.
    pub(crate) fn len_from_header(header: &[u8]) -> Option<usize> {
        let program_len = u32_at(header, 20)? as usize;
        let dfa_count = u32_at(header, 28)? as usize;
        HEADER_LEN
            .checked_add(program_len)?
            .checked_add(dfa_count.checked_mul(ENTRY_LEN)?)
    }

    /// Reads the header, checks the program block's head, and lays the
    /// sections out from the directory; `first` holds the table's first
    /// bytes (at least [`Head::len_from_header`] of them, or the whole
    /// table), `len` is the whole table's length.
    pub(crate) fn read(first: &[u8], len: usize) -> Result<Head, LoadError> {
        let header = first
            .get(..HEADER_LEN)
            .ok_or(LoadError::too_short("header", HEADER_LEN, len))?;
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
        if len > MAX_LEN {
            return Err(LoadError::new(LoadErrorKind::TooLarge {
                len,
                limit: MAX_LEN,
            }));
        }
        let program_len = u32_at(header, 20).unwrap_or(0) as usize;
        let expected = u32_at(header, 24).unwrap_or(0);
        let dfa_count = u32_at(header, 28).unwrap_or(0) as usize;
        if program_len > len.saturating_sub(HEADER_LEN) {
            return Err(LoadError::too_short(
                "program",
                HEADER_LEN + program_len,
                len,
            ));
        }
        if !program_len.is_multiple_of(4) {
            return Err(LoadError::invalid(format!(
                "a program block of {program_len} bytes, not whole words"
            )));
        }
        let program = HEADER_LEN..HEADER_LEN + program_len;
        // The head of the program block: where its point blocks start is
        // read from its slots before they are checked; a flipped bit there
        // makes the range checked another, whose checksum is another.
        let head_len = first
            .get(program.clone())
            .and_then(|b| bytemuck::try_cast_slice::<u8, u32>(b).ok())
            .map_or(0, layout::program::head_len);
        let found = crc32fast::hash(
            first
                .get(HEADER_LEN..HEADER_LEN + 4 * head_len)
                .unwrap_or(&[]),
        );
        if expected != found {
            return Err(LoadError::new(LoadErrorKind::Checksum { expected, found }));
        }
        let directory = program.end;
        let entries = dfa_count
            .checked_mul(ENTRY_LEN)
            .filter(|&n| n <= len.saturating_sub(directory))
            .ok_or(LoadError::too_short(
                "DFA directory",
                directory.saturating_add(dfa_count.saturating_mul(ENTRY_LEN)),
                len,
            ))?;
        let mut at = directory + entries;
        let mut sections = Vec::with_capacity(dfa_count.min(1 << 16));
        for i in 0..dfa_count {
            let entry = directory + ENTRY_LEN * i;
            let word = |k: usize| {
                u32_at(first, entry + 4 * k).ok_or(LoadError::too_short(
                    "DFA directory",
                    directory + entries,
                    first.len(),
                ))
            };
            let (section_len, kind, crc) = (word(0)? as usize, word(1)?, word(2)?);
            if kind > 1 {
                return Err(LoadError::new(LoadErrorKind::Dfa {
                    index: i,
                    error: format!("unknown DFA kind {kind}"),
                }));
            }
            let end = at
                .checked_add(section_len)
                .filter(|&end| end <= len)
                .ok_or(LoadError::too_short(
                    "DFA section",
                    at.saturating_add(section_len),
                    len,
                ))?;
            sections.push(Section {
                bytes: at..end,
                kind,
                crc,
            });
            at = end.next_multiple_of(4);
        }
        Ok(Head {
            program,
            directory,
            sections,
            end: at,
            len,
        })
    }
}

/// Reads a table's header and sections; `in_place` is the same bytes when
/// they live as long as the program, for DFAs read where they lie.
pub(crate) fn decode<'a>(
    bytes: &'a [u8],
    in_place: Option<&'static [u8]>,
) -> Result<Decoded<'a>, LoadError> {
    let head = Head::read(bytes, bytes.len())?;
    let dfas = head
        .sections
        .iter()
        .enumerate()
        .map(|(i, section)| {
            // The DFA itself is checked and validated when a dispatch
            // first searches it.
            let body = bytes.get(section.bytes.clone()).unwrap_or(&[]);
            let in_place = in_place.and_then(|whole| whole.get(section.bytes.clone()));
            LazyDfa::new(
                i,
                section.kind,
                section.crc,
                DfaBytes::Here { body, in_place },
            )
        })
        .collect();
    let rest = bytes
        .get(head.end..)
        .ok_or_else(|| LoadError::invalid("the last DFA section is not padded to a whole word"))?;
    let signature = signature(rest, head.end, rest.len())?;
    Ok(Decoded {
        program: head.program.clone(),
        dfa_bytes: head.sections.iter().map(|s| s.bytes.len()).collect(),
        dfas,
        signature,
        len: bytes.len(),
    })
}

/// The signature block in the bytes after the last section (`rest`, from
/// offset `at`, of `rest_len` bytes in all), if any.
fn signature(
    rest: &[u8],
    at: usize,
    rest_len: usize,
) -> Result<Option<(usize, PublicKey)>, LoadError> {
    match rest {
        [] => Ok(None),
        block if block.starts_with(sign::SIGNATURE_MAGIC) => {
            Ok(Some((at, sign::parse_block(block)?)))
        }
        _ => Err(LoadError::invalid(format!(
            "{rest_len} unexpected bytes after the last section"
        ))),
    }
}

/// Why a table could not be read from its file.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ReadError {
    /// The file does not read.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// Its bytes are not a table this build loads.
    #[error("{0}")]
    Load(#[from] LoadError),
}

/// A table's file, read as far as its directory: the header, the program
/// block and where each DFA section is (the sections themselves are read
/// when first searched, see [`decode_file`]).
#[derive(Debug)]
pub(crate) struct FileHead {
    /// The open file the sections are read from.
    file: std::fs::File,
    /// The first bytes, in words.
    words: Vec<u32>,
    /// How many of the words' bytes are the file's.
    first_len: usize,
    head: Head,
    signature: Option<(usize, PublicKey)>,
}

impl FileHead {
    /// Reads `file` as far as its directory, and the signature block
    /// after its last section if there is one; checks what
    /// [`Head::read`] checks.
    pub(crate) fn read(file: std::fs::File) -> Result<FileHead, ReadError> {
        let len = usize::try_from(file.metadata()?.len()).unwrap_or(usize::MAX);
        if len > MAX_LEN {
            return Err(LoadError::new(LoadErrorKind::TooLarge {
                len,
                limit: MAX_LEN,
            })
            .into());
        }
        if len < HEADER_LEN {
            return Err(LoadError::too_short("header", HEADER_LEN, len).into());
        }
        let mut header = [0; HEADER_LEN];
        read_exact_at(&file, &mut header, 0)?;
        let first_len = Head::len_from_header(&header).map_or(len, |n| n.min(len));
        let words = read_words(&file, 0, first_len)?;
        let first = bytemuck::cast_slice::<u32, u8>(&words)
            .get(..first_len)
            .unwrap_or(&[]);
        let head = Head::read(first, len)?;
        let rest_len = len.checked_sub(head.end).ok_or_else(|| {
            LoadError::invalid("the last DFA section is not padded to a whole word")
        })?;
        // A signature block is short: a longer tail is refused unread.
        let mut rest = vec![0; rest_len.min(sign::SIGNATURE_BLOCK_LEN + 1)];
        read_exact_at(&file, &mut rest, head.end as u64)?;
        let signature = signature(&rest, head.end, rest_len)?;
        Ok(FileHead {
            file,
            words,
            first_len,
            head,
            signature,
        })
    }

    /// The file's first bytes, as far as its directory.
    pub(crate) fn first(&self) -> &[u8] {
        bytemuck::cast_slice::<u32, u8>(&self.words)
            .get(..self.first_len)
            .unwrap_or(&[])
    }

    /// The whole file as it is now (it may have changed since it was
    /// first read).
    pub(crate) fn read_all(&self) -> std::io::Result<Vec<u8>> {
        let mut bytes = vec![0; self.head.len];
        read_exact_at(&self.file, &mut bytes, 0)?;
        Ok(bytes)
    }
}

/// What a table's file read as far as its directory holds: its DFAs are
/// read from the file when first searched.
pub(crate) fn decode_file(head: &FileHead) -> Decoded<'_> {
    let dfas = head
        .head
        .sections
        .iter()
        .enumerate()
        .map(|(i, section)| {
            let bytes = DfaBytes::File {
                file: &head.file,
                at: section.bytes.start as u64,
                len: section.bytes.len(),
            };
            LazyDfa::new(i, section.kind, section.crc, bytes)
        })
        .collect();
    Decoded {
        program: head.head.program.clone(),
        dfa_bytes: head.head.sections.iter().map(|s| s.bytes.len()).collect(),
        dfas,
        signature: head.signature,
        len: head.head.len,
    }
}

/// `len` bytes of `file` from offset `at`, in words (so that a DFA reads
/// them aligned), the last word padded with zeros.
pub(super) fn read_words(file: &std::fs::File, at: u64, len: usize) -> std::io::Result<Vec<u32>> {
    let mut words = vec![0u32; len.div_ceil(4)];
    let bytes = bytemuck::cast_slice_mut::<u32, u8>(&mut words);
    read_exact_at(file, bytes.get_mut(..len).unwrap_or_default(), at)?;
    Ok(words)
}

/// Fills `buf` from `file` at offset `at`, without moving the file's
/// cursor (so the reads of a table's sections do not depend on order).
#[cfg(unix)]
fn read_exact_at(file: &std::fs::File, buf: &mut [u8], at: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, at)
}

/// Fills `buf` from `file` at offset `at`, through its cursor: two
/// threads reading sections at once may read each other's bytes, which
/// then fail their checksum (the patterns are matched one by one).
#[cfg(not(unix))]
fn read_exact_at(file: &std::fs::File, buf: &mut [u8], at: u64) -> std::io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = file;
    file.seek(SeekFrom::Start(at))?;
    file.read_exact(buf)
}
