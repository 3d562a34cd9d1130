//! The program laid out in words, read in place.
//!
//! A table's program section is a tree of *blocks* of native-endian `u32`
//! words, 4-byte aligned like every section of the table, so a loaded
//! table reads its indexes where they lie: nothing is decoded at load but
//! a small meta block, and a dispatch touches only the words of its point.
//! A rule's head (its target, flags and condition) is words too, read at
//! every candidate (module [`head`](self::head)). What is too rich for
//! words (a rule's actions, an atom, a field path) is a postcard blob of
//! its own, decoded the first time a dispatch needs it (module
//! [`point`](self::point)).
//!
//! # Blocks
//!
//! A block starts with its slot count `K`, then `K` slots of two words,
//! `(start, len)`, each naming a run of the block's own words (`start`
//! counts from the block's first word). A slot holds one of:
//!
//! ```text
//! words      the run itself: a list of u32
//! bytes      [byte length, bytes, zero padding to a word]
//! csr        [n, n + 1 ascending offsets into the items, items]: n lists of u32
//! byte list  [n, n + 1 ascending byte offsets, bytes padded to a word]: n byte strings
//! table      [slot count S (a power of two), S × (tag, key + 1)]: a hash
//!            table of a byte list's keys (module `strtable`)
//! block      a block of its own
//! ```
//!
//! Reading checks every slot against its block and every structure
//! against its slot once ([`Block::slot`] and the `parse` functions); the
//! readers then hold absolute word ranges ([`Csr`], [`ByteList`]), owned,
//! so a loaded table keeps them without borrowing its own bytes. Every
//! access through them is checked again (`get`), so bytes that lie about
//! an offset make an empty list, never a panic.
//!
//! Why words and not a zero-copy crate: rkyv's safe access validates the
//! whole archive on every access (its `bytecheck`), and a reference that
//! was validated once cannot be kept inside the table that owns the bytes
//! without `unsafe`, which this crate forbids. Hand-laid words, as
//! regex-automata lays out its DFAs, cost one bounds check per access and
//! nothing at load.

pub(crate) mod head;
pub(crate) mod point;
pub(crate) mod program;
pub(crate) mod strtable;

use std::ops::Range;

/// Words of a block, absolute in the program section: `start..end`.
pub(crate) type Words = Range<u32>;

/// The words of `range` in `words`, or none when the range is not in it.
#[inline]
pub(crate) fn at<'a>(words: &'a [u32], range: &Words) -> &'a [u32] {
    words
        .get(range.start as usize..range.end as usize)
        .unwrap_or(&[])
}

/// The CRC-32 of words, as their bytes lie in a table.
pub(crate) fn checksum(words: &[u32]) -> u32 {
    crc32fast::hash(bytemuck::cast_slice(words))
}

/// Why a block does not read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LayoutError(pub(crate) String);

impl LayoutError {
    fn new(what: impl Into<String>) -> LayoutError {
        LayoutError(what.into())
    }
}

impl std::fmt::Display for LayoutError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// One block, read in place from the section's words.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Block<'a> {
    /// The whole section, which slots are absolute in.
    section: &'a [u32],
    /// Where the block starts in the section.
    start: u32,
    /// Its slot count.
    slots: u32,
    /// Its length in words.
    len: u32,
    /// What the block is, for messages.
    what: &'static str,
}

impl<'a> Block<'a> {
    /// The block at `range` of `section`, with at least `slots` slots.
    pub(crate) fn read(
        section: &'a [u32],
        range: Words,
        slots: u32,
        what: &'static str,
    ) -> Result<Block<'a>, LayoutError> {
        let words = at(section, &range);
        let found = *words
            .first()
            .ok_or_else(|| LayoutError::new(format!("{what}: an empty block")))?;
        let header = u64::from(found) * 2 + 1;
        if found < slots || header > words.len() as u64 {
            return Err(LayoutError::new(format!(
                "{what}: {found} slots where {slots} are expected"
            )));
        }
        Ok(Block {
            section,
            start: range.start,
            slots: found,
            len: range.end - range.start,
            what,
        })
    }

    /// The absolute words of slot `i`.
    pub(crate) fn slot(&self, i: u32) -> Result<Words, LayoutError> {
        let bad = || LayoutError::new(format!("{}: slot {i} is out of its block", self.what));
        if i >= self.slots {
            return Err(bad());
        }
        let at_word = |k: u32| {
            self.section
                .get((self.start + 1 + 2 * i + k) as usize)
                .copied()
        };
        let (start, len) = (at_word(0).ok_or_else(bad)?, at_word(1).ok_or_else(bad)?);
        let end = start.checked_add(len).ok_or_else(bad)?;
        if end > self.len {
            return Err(bad());
        }
        Ok(self.start + start..self.start + end)
    }

    /// Slot `i` as a block of its own, with at least `slots` slots.
    pub(crate) fn block(
        &self,
        i: u32,
        slots: u32,
        what: &'static str,
    ) -> Result<Block<'a>, LayoutError> {
        Block::read(self.section, self.slot(i)?, slots, what)
    }

    /// Slot `i` as words of an exact length.
    pub(crate) fn words(&self, i: u32, len: usize) -> Result<Words, LayoutError> {
        let range = self.slot(i)?;
        if range.len() != len {
            return Err(LayoutError::new(format!(
                "{}: slot {i} has {} words where {len} are expected",
                self.what,
                range.len()
            )));
        }
        Ok(range)
    }

    /// Slot `i` as one word.
    pub(crate) fn scalar(&self, i: u32) -> Result<u32, LayoutError> {
        let range = self.words(i, 1)?;
        Ok(at(self.section, &range).first().copied().unwrap_or(0))
    }

    /// Slot `i` as bytes.
    pub(crate) fn bytes(&self, i: u32) -> Result<&'a [u8], LayoutError> {
        let range = self.slot(i)?;
        let words = at(self.section, &range);
        let (&len, rest) = words
            .split_first()
            .ok_or_else(|| LayoutError::new(format!("{}: slot {i} holds no bytes", self.what)))?;
        bytemuck::cast_slice::<u32, u8>(rest)
            .get(..len as usize)
            .ok_or_else(|| {
                LayoutError::new(format!("{}: slot {i} is shorter than its bytes", self.what))
            })
    }

    /// Slot `i` as `n` lists of words.
    pub(crate) fn csr(&self, i: u32, n: usize) -> Result<Csr, LayoutError> {
        let (offsets, items) = self.lists(i, n)?;
        Ok(Csr { offsets, items })
    }

    /// Slot `i` as lists of words, however many it holds.
    pub(crate) fn csr_any(&self, i: u32) -> Result<Csr, LayoutError> {
        let range = self.slot(i)?;
        let n = at(self.section, &range).first().copied().unwrap_or(0);
        self.csr(i, n as usize)
    }

    /// Slot `i` as `n` byte strings.
    pub(crate) fn byte_list(&self, i: u32, n: usize) -> Result<ByteList, LayoutError> {
        let (offsets, bytes) = self.lists(i, n)?;
        Ok(ByteList { offsets, bytes })
    }

    /// Slot `i` as byte strings, however many it holds.
    pub(crate) fn byte_list_any(&self, i: u32) -> Result<ByteList, LayoutError> {
        let range = self.slot(i)?;
        let n = at(self.section, &range).first().copied().unwrap_or(0);
        self.byte_list(i, n as usize)
    }

    /// The offsets and the items of a list structure in slot `i`.
    fn lists(&self, i: u32, n: usize) -> Result<(Words, Words), LayoutError> {
        let range = self.slot(i)?;
        let words = at(self.section, &range);
        let bad = |why: &str| LayoutError::new(format!("{}: slot {i}: {why}", self.what));
        let count = *words.first().ok_or_else(|| bad("no count"))?;
        if count as usize != n {
            return Err(bad(&format!("{count} lists where {n} are expected")));
        }
        let offsets_end = 1 + n + 1;
        if offsets_end > words.len() {
            return Err(bad("shorter than its offsets"));
        }
        // Offsets are not checked here (that would cost a pass over them
        // at every load): a list whose offsets go back or past its items
        // reads as empty.
        let offsets = range.start + 1..range.start + offsets_end as u32;
        let items = range.start + offsets_end as u32..range.end;
        Ok((offsets, items))
    }
}

/// `n` lists of words: list `i` is `items[offsets[i]..offsets[i + 1]]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Csr {
    offsets: Words,
    items: Words,
}

impl Csr {
    /// How many lists.
    pub(crate) fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// List `i`; empty when out of range.
    #[inline]
    pub(crate) fn get<'a>(&self, section: &'a [u32], i: usize) -> &'a [u32] {
        self.view(section).get(i)
    }

    /// The lists, sliced once for the lookups that follow.
    #[inline]
    pub(crate) fn view<'a>(&self, section: &'a [u32]) -> CsrView<'a> {
        CsrView {
            offsets: at(section, &self.offsets),
            items: at(section, &self.items),
        }
    }
}

/// [`Csr`] lists, or a [`ByteList`]'s strings ([`Strings`]), sliced:
/// reads index into these slices only.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CsrView<'a, T = u32> {
    offsets: &'a [u32],
    items: &'a [T],
}

/// A [`ByteList`]'s strings, sliced.
pub(crate) type Strings<'a> = CsrView<'a, u8>;

impl<T> Default for CsrView<'_, T> {
    fn default() -> Self {
        CsrView {
            offsets: &[],
            items: &[],
        }
    }
}

impl<'a, T> CsrView<'a, T> {
    /// How many lists.
    pub(crate) fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// List `i`; empty when out of range.
    #[inline]
    pub(crate) fn get(&self, i: usize) -> &'a [T] {
        let (Some(&from), Some(&to)) = (self.offsets.get(i), self.offsets.get(i + 1)) else {
            return &[];
        };
        self.items.get(from as usize..to as usize).unwrap_or(&[])
    }
}

/// `n` byte strings: string `i` is `bytes[offsets[i]..offsets[i + 1]]`,
/// offsets counted in bytes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ByteList {
    offsets: Words,
    bytes: Words,
}

impl ByteList {
    /// How many strings.
    pub(crate) fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// String `i`; empty when out of range.
    #[inline]
    pub(crate) fn get<'a>(&self, section: &'a [u32], i: usize) -> &'a [u8] {
        self.view(section).get(i)
    }

    /// The offsets, sliced.
    #[inline]
    pub(crate) fn offsets<'a>(&self, section: &'a [u32]) -> &'a [u32] {
        at(section, &self.offsets)
    }

    /// The bytes of every string, sliced.
    #[inline]
    pub(crate) fn bytes<'a>(&self, section: &'a [u32]) -> &'a [u8] {
        bytemuck::cast_slice::<u32, u8>(at(section, &self.bytes))
    }

    /// The strings, sliced once for the reads that follow.
    #[inline]
    pub(crate) fn view<'a>(&self, section: &'a [u32]) -> Strings<'a> {
        Strings {
            offsets: self.offsets(section),
            items: self.bytes(section),
        }
    }

    /// String `i` as text: `None` when it is not UTF-8 (the format
    /// writes only text where text belongs; a crafted table may not, and
    /// whoever reads the string says what that means).
    #[inline]
    pub(crate) fn text<'a>(&self, section: &'a [u32], i: usize) -> Option<&'a str> {
        std::str::from_utf8(self.get(section, i)).ok()
    }
}

/// Writes a block: [`slots`](BlockWriter::new) header slots, then the runs
/// each slot names, in the order they are set.
#[derive(Debug)]
pub(crate) struct BlockWriter {
    words: Vec<u32>,
}

impl BlockWriter {
    /// A block of `slots` slots, all empty until set.
    pub(crate) fn new(slots: u32) -> BlockWriter {
        let mut words = vec![0; 1 + 2 * slots as usize];
        if let Some(first) = words.first_mut() {
            *first = slots;
        }
        BlockWriter { words }
    }

    /// Appends `run` and points slot `i` at it.
    fn set(&mut self, i: u32, run: impl IntoIterator<Item = u32>) {
        let start = count(self.words.len());
        self.words.extend(run);
        let len = count(self.words.len()) - start;
        let at = 1 + 2 * i as usize;
        if let Some(slot) = self.words.get_mut(at..at + 2) {
            slot.copy_from_slice(&[start, len]);
        }
    }

    /// Slot `i`: a list of words.
    pub(crate) fn words(&mut self, i: u32, words: &[u32]) {
        self.set(i, words.iter().copied());
    }

    /// Slot `i`: one word.
    pub(crate) fn scalar(&mut self, i: u32, value: u32) {
        self.set(i, [value]);
    }

    /// Slot `i`: bytes.
    pub(crate) fn bytes(&mut self, i: u32, bytes: &[u8]) {
        let mut run = vec![count(bytes.len())];
        run.extend(pack(bytes));
        self.set(i, run);
    }

    /// Slot `i`: lists of words.
    pub(crate) fn csr<'l>(&mut self, i: u32, lists: impl IntoIterator<Item = &'l [u32]>) {
        let lists: Vec<&[u32]> = lists.into_iter().collect();
        let mut run = vec![count(lists.len())];
        let mut offset = 0u32;
        run.push(0);
        for list in &lists {
            offset += count(list.len());
            run.push(offset);
        }
        for list in lists {
            run.extend_from_slice(list);
        }
        self.set(i, run);
    }

    /// Slot `i`: byte strings.
    pub(crate) fn byte_list<'s>(&mut self, i: u32, strings: impl IntoIterator<Item = &'s [u8]>) {
        let strings: Vec<&[u8]> = strings.into_iter().collect();
        let mut run = vec![count(strings.len())];
        let mut offset = 0u32;
        run.push(0);
        let mut bytes = Vec::new();
        for s in &strings {
            offset += count(s.len());
            run.push(offset);
            bytes.extend_from_slice(s);
        }
        run.extend(pack(&bytes));
        self.set(i, run);
    }

    /// Slot `i`: a hash table of `keys` (see [`strtable`]).
    pub(crate) fn table<'s>(&mut self, i: u32, keys: impl IntoIterator<Item = &'s [u8]>) {
        self.set(i, strtable::build(keys));
    }

    /// Slot `i`: a block of its own.
    pub(crate) fn block(&mut self, i: u32, block: BlockWriter) {
        self.set(i, block.finish());
    }

    /// How many words the block has so far.
    pub(crate) fn len(&self) -> usize {
        self.words.len()
    }

    /// The block's words.
    pub(crate) fn finish(self) -> Vec<u32> {
        self.words
    }
}

/// A count as a word. Tables hold at most [`MAX_LEN`](super::MAX_LEN)
/// bytes, so every count of a table that loads fits; a program too large
/// for one is refused at load rather than written wrong here.
fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Bytes as native-endian words, the last one padded with zeros.
fn pack(bytes: &[u8]) -> impl Iterator<Item = u32> + '_ {
    bytes.chunks(4).map(|chunk| {
        let mut word = [0u8; 4];
        if let Some(dst) = word.get_mut(..chunk.len()) {
            dst.copy_from_slice(chunk);
        }
        u32::from_ne_bytes(word)
    })
}

#[cfg(test)]
mod tests;
