//! The program block: the meta blob, the regexes, the regex DFAs, the
//! regexes' needed literals and a block per point with rules.

use super::point::{self, PointSlot};
use super::{at, checksum, Block, BlockWriter, ByteList, LayoutError, Strings, Words};
use crate::ir;
use crate::table::wire::PointHead;
use crate::table::wire::{self, Meta};

/// The slots of the program block.
mod slot {
    /// The meta blob ([`Meta`](super::Meta)).
    pub(super) const META: u32 = 0;
    /// One word: the number of regexes G.
    pub(super) const REGEXES: u32 = 1;
    /// G strings: each regex's pattern.
    pub(super) const PATTERNS: u32 = 2;
    /// G strings: each regex's flags.
    pub(super) const FLAGS: u32 = 3;
    /// G words (or none): each regex's DFA section, or `NO_DFA`.
    pub(super) const REGEX_DFAS: u32 = 4;
    /// G strings: each regex's needed literals, separated by NUL bytes
    /// (empty: none).
    pub(super) const REGEX_NEEDS: u32 = 5;
    /// P words: the CRC-32 of each point block, checked when the point is
    /// first dispatched.
    pub(super) const POINT_CRCS: u32 = 6;
    /// A block of one point block per point of the meta block; written
    /// last, so that the words before it are the head the table's header
    /// checksums.
    pub(super) const POINTS: u32 = 7;
    pub(super) const LEN: u32 = 8;
}

/// A program block as [`write`] lays it out.
#[derive(Debug)]
pub(crate) struct Written {
    pub(crate) words: Vec<u32>,
    /// How many of the words are the head: everything before the point
    /// blocks.
    pub(crate) head: usize,
}

/// The program's words.
pub(crate) fn write(program: &ir::Program) -> Written {
    let ir::Program {
        schema,
        schema_points,
        points,
        regexes,
        regex_dfas,
        regex_needs,
        files,
        rates,
        command_input,
        source_digest,
    } = program;
    let mut heads = Vec::with_capacity(points.len());
    let mut crcs = Vec::with_capacity(points.len());
    let mut blocks = BlockWriter::new(super::count(points.len()));
    for (i, p) in points.iter().enumerate() {
        let (head, block) = point::write(p);
        let words = block.finish();
        heads.push(head);
        crcs.push(checksum(&words));
        blocks.words(super::count(i), &words);
    }
    let meta = Meta {
        schema: schema.clone(),
        schema_points: schema_points.clone(),
        points: heads,
        files: files.clone(),
        rates: rates.clone(),
        command_input: *command_input,
        source_digest: source_digest.clone(),
    };
    let mut block = BlockWriter::new(slot::LEN);
    block.bytes(slot::META, &wire::write_meta(&meta));
    block.scalar(slot::REGEXES, super::count(regexes.len()));
    block.byte_list(slot::PATTERNS, regexes.iter().map(|r| r.pattern.as_bytes()));
    block.byte_list(slot::FLAGS, regexes.iter().map(|r| r.flags.as_bytes()));
    block.words(slot::REGEX_DFAS, regex_dfas);
    let needs: Vec<Vec<u8>> = (0..regexes.len())
        .map(|i| {
            regex_needs
                .get(i)
                .map_or_else(Vec::new, |n| n.join("\0").into_bytes())
        })
        .collect();
    block.byte_list(slot::REGEX_NEEDS, needs.iter().map(Vec::as_slice));
    block.words(slot::POINT_CRCS, &crcs);
    let head = block.len();
    block.block(slot::POINTS, blocks);
    Written {
        words: block.finish(),
        head,
    }
}

/// How many words of a program block are its head: all of them up to its
/// point blocks (as far as its slots say; a block that does not say
/// gives a head the header's checksum will not match).
pub(crate) fn head_len(section: &[u32]) -> usize {
    let whole = 0..super::count(section.len());
    Block::read(section, whole, slot::LEN, "the program")
        .and_then(|block| block.slot(slot::POINTS))
        .map_or(section.len(), |points| points.start as usize)
}

/// Where each point block's checksum is (its word in the program block)
/// and what it is for the words the block holds now: for
/// [`reseal`](crate::table::encoding::reseal).
pub(crate) fn point_checksums(section: &[u32]) -> Result<Vec<(usize, u32)>, LayoutError> {
    let whole = 0..super::count(section.len());
    let block = Block::read(section, whole, slot::LEN, "the program")?;
    let crcs = block.slot(slot::POINT_CRCS)?;
    let blocks = block.block(slot::POINTS, super::count(crcs.len()), "the point blocks")?;
    (0..crcs.len())
        .map(|i| {
            let words = blocks.slot(super::count(i))?;
            Ok((crcs.start as usize + i, checksum(at(section, &words))))
        })
        .collect()
}

/// The program block as a load reads it: the meta blob decoded, the rest
/// located.
#[derive(Debug)]
pub(crate) struct ProgramLayout<'a> {
    pub(crate) meta: Meta,
    /// Each regex's pattern and flags.
    pub(crate) patterns: ByteList,
    pub(crate) flags: ByteList,
    /// Each regex's DFA section (or none at all).
    pub(crate) regex_dfas: Words,
    /// Each regex's needed literals.
    pub(crate) regex_needs: ByteList,
    /// Each point with rules, its block not yet read.
    pub(crate) points: Vec<PointSlot<'a>>,
}

impl<'a> ProgramLayout<'a> {
    /// Reads the program block that fills `section`.
    pub(crate) fn read(section: &'a [u32]) -> Result<ProgramLayout<'a>, LayoutError> {
        let whole = 0..super::count(section.len());
        let block = Block::read(section, whole, slot::LEN, "the program")?;
        let meta = wire::read_meta(block.bytes(slot::META)?)
            .map_err(|e| LayoutError::new(format!("the meta block: {e}")))?;
        let regexes = block.scalar(slot::REGEXES)? as usize;
        let regex_dfas = block.slot(slot::REGEX_DFAS)?;
        let count = super::count(meta.points.len());
        let crcs = at(section, &block.words(slot::POINT_CRCS, meta.points.len())?);
        let blocks = block.block(slot::POINTS, count, "the point blocks")?;
        let points = meta
            .points
            .iter()
            .zip(crcs)
            .enumerate()
            .map(|(i, (head, &crc))| {
                let range = blocks.slot(super::count(i))?;
                bounded(head, &range)?;
                Ok(PointSlot::new(section, head.clone(), range, crc))
            })
            .collect::<Result<Vec<_>, LayoutError>>()?;
        Ok(ProgramLayout {
            patterns: block.byte_list(slot::PATTERNS, regexes)?,
            flags: block.byte_list(slot::FLAGS, regexes)?,
            regex_dfas,
            regex_needs: block.byte_list(slot::REGEX_NEEDS, regexes)?,
            points,
            meta,
        })
    }

    /// The number of regexes.
    pub(crate) fn regex_count(&self) -> usize {
        self.patterns.len()
    }

    /// Regex `i`, as written; an error when the table holds no text there.
    pub(crate) fn regex(&self, section: &[u32], i: usize) -> Result<ir::RegexSource, String> {
        match (self.patterns.text(section, i), self.flags.text(section, i)) {
            (Some(pattern), Some(flags)) => Ok(ir::RegexSource {
                pattern: pattern.to_string(),
                flags: flags.to_string(),
            }),
            _ => Err(format!("regex {i} is not text")),
        }
    }

    /// Each regex's DFA section.
    pub(crate) fn regex_dfas<'s>(&self, section: &'s [u32]) -> &'s [u32] {
        at(section, &self.regex_dfas)
    }

    /// Each regex's needed literals, NUL-separated.
    pub(crate) fn regex_needs<'s>(&self, section: &'s [u32]) -> Strings<'s> {
        self.regex_needs.view(section)
    }
}

/// A point's counts are no more than its block can hold (each rule, atom
/// and field takes words of its own), so that what is sized by them at
/// load, a scratch, stays within the table's size.
fn bounded(head: &PointHead, block: &Words) -> Result<(), LayoutError> {
    let words = block.len() as u64;
    let claimed = u64::from(head.rules) + u64::from(head.atoms) + u64::from(head.fields);
    if claimed > words {
        return Err(LayoutError::new(format!(
            "point `{}` counts more rules, atoms and fields than its block can hold",
            head.name
        )));
    }
    Ok(())
}
