//! Hash tables of strings laid out in words: finding a target's rules, a
//! field's constant, a literal at a place the literal search stopped.
//!
//! The keys are a [`ByteList`](super::ByteList) of their own; the table is
//! `[S, S × (tag, key + 1)]`, `S` a power of two at least four times the
//! keys (so at least three slots in four are empty, and a lookup of a
//! string that is not a key, the common case, ends in one or two
//! probes), open addressing with linear
//! probing: a key's home slot is the low bits of its hash, its tag the high
//! 32, and a slot whose second word is 0 is empty. A lookup hashes the
//! string once, compares tags, and compares bytes only on a tag match; it
//! stops at the first empty slot, and after `S` slots whatever the table
//! holds, so a crafted table cannot make it loop.
//!
//! The hash is rapidhash V3 with a fixed seed and without its final
//! avalanche step (one multiply fewer; the table uses the low bits for
//! the home slot and the high 32 for the tag, which one mixing multiply
//! spreads well enough), whose output the `rapidhash` crate keeps the
//! same across its versions and platforms: a table written by one build
//! is read the same by every other of its format version.
//! The keys come from the rules, not the event, and a lookup costs one hash
//! whatever the event holds, so a fixed seed opens no flooding attack.

use super::{at, Block, ByteList, LayoutError, Words};
use rapidhash::v3::{rapidhash_v3_inline, RapidSecrets};

/// The seed of every table.
const SECRETS: RapidSecrets = RapidSecrets::seed(0x68_6f_6f_6b_63_74_62_6c);

/// The format's hash of a string.
#[inline]
pub(crate) fn hash(bytes: &[u8]) -> u64 {
    rapidhash_v3_inline::<false, false, false>(bytes, &SECRETS)
}

/// A table read from its slot: the words of its slots and their count - 1.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct StrTable {
    slots: Words,
    mask: u32,
}

impl StrTable {
    /// Slot `i` of `block` as a table of `keys` keys.
    pub(crate) fn read(block: &Block<'_>, i: u32, keys: usize) -> Result<StrTable, LayoutError> {
        let range = block.slot(i)?;
        let words = at(block.section, &range);
        let bad = |why: &str| LayoutError(format!("{}: slot {i}: {why}", block.what));
        let size = *words.first().ok_or_else(|| bad("no table size"))?;
        if size == 0 {
            return if keys == 0 {
                Ok(StrTable::default())
            } else {
                Err(bad("an empty table of keys"))
            };
        }
        if !size.is_power_of_two() || (size as usize) < keys {
            return Err(bad(
                "a table size that is not a power of two above its keys",
            ));
        }
        if words.len() as u64 != 1 + 2 * u64::from(size) {
            return Err(bad("a table shorter or longer than its size"));
        }
        Ok(StrTable {
            slots: range.start + 1..range.end,
            mask: size - 1,
        })
    }

    /// The table over `keys`, sliced once for the lookups that follow.
    #[inline]
    pub(crate) fn view<'a>(&self, section: &'a [u32], keys: &ByteList) -> TableView<'a> {
        TableView {
            slots: at(section, &self.slots),
            mask: self.mask,
            offsets: keys.offsets(section),
            bytes: keys.bytes(section),
        }
    }

    /// The index of `key` among `keys`, if it is one.
    #[inline]
    pub(crate) fn find(&self, section: &[u32], keys: &ByteList, key: &[u8]) -> Option<usize> {
        self.view(section, keys).find(key)
    }
}

/// A table and its keys, sliced: lookups index into these slices only.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TableView<'a> {
    slots: &'a [u32],
    mask: u32,
    offsets: &'a [u32],
    bytes: &'a [u8],
}

impl TableView<'_> {
    /// The index of `key` among the keys, if it is one.
    #[inline]
    pub(crate) fn find(&self, key: &[u8]) -> Option<usize> {
        if self.slots.is_empty() {
            return None;
        }
        let h = hash(key);
        let tag = (h >> 32) as u32;
        let mut i = (h as u32 & self.mask) as usize;
        for _ in 0..=self.mask {
            let Some(&[t, k]) = self.slots.get(2 * i..2 * i + 2) else {
                return None;
            };
            if k == 0 {
                return None;
            }
            if t == tag {
                let index = (k - 1) as usize;
                let (Some(&from), Some(&to)) =
                    (self.offsets.get(index), self.offsets.get(index + 1))
                else {
                    return None;
                };
                let stored = self.bytes.get(from as usize..to as usize);
                if stored.is_some_and(|stored| crate::short_eq::same_bytes(stored, key)) {
                    return Some(index);
                }
            }
            i = (i + 1) & self.mask as usize;
        }
        None
    }
}

/// The words of a table of `keys` (each key's index is its position; a
/// key given twice is found at its first position).
pub(super) fn build<'s>(keys: impl IntoIterator<Item = &'s [u8]>) -> Vec<u32> {
    let keys: Vec<&[u8]> = keys.into_iter().collect();
    if keys.is_empty() {
        return vec![0];
    }
    let size = (4 * keys.len()).next_power_of_two();
    let mask = size - 1;
    let mut slots = vec![0u32; 2 * size];
    for (index, key) in keys.iter().enumerate() {
        let h = hash(key);
        let tag = (h >> 32) as u32;
        let mut i = (h as usize) & mask;
        loop {
            match slots.get(2 * i + 1).copied() {
                Some(0) => {
                    if let Some(slot) = slots.get_mut(2 * i..2 * i + 2) {
                        slot.copy_from_slice(&[tag, super::count(index + 1)]);
                    }
                    break;
                }
                Some(k) if keys.get((k - 1) as usize) == Some(key) => break,
                Some(_) => i = (i + 1) & mask,
                // Cannot happen: `i` is masked to the slots.
                None => break,
            }
        }
    }
    let mut words = Vec::with_capacity(1 + slots.len());
    words.push(super::count(size));
    words.extend(slots);
    words
}
