//! Byte offsets to LSP positions and back.
//!
//! hookc's spans are byte offsets into UTF-8 text; an LSP position is a
//! line and a column counted in UTF-16 code units (the protocol's default
//! encoding, the only one every client speaks). A line ends at `\n`,
//! `\r\n` or a lone `\r`, as the protocol says. Offsets and positions that
//! fall outside the text, past a line's end or inside a character are
//! clamped, never an error: a client's stale position must not fail a
//! request.

use crate::span::Span;
use lsp_types::{Position, Range};

/// Where the lines of one text start, to convert offsets and positions.
#[derive(Clone, Debug)]
pub(crate) struct LineIndex {
    /// The byte offset of each line's first character; the first is 0.
    starts: Vec<usize>,
}

impl LineIndex {
    /// The lines of `text`.
    pub(crate) fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        let bytes = text.as_bytes();
        let mut i = 0;
        while let Some(&b) = bytes.get(i) {
            match b {
                b'\n' => starts.push(i + 1),
                b'\r' if bytes.get(i + 1) == Some(&b'\n') => {
                    starts.push(i + 2);
                    i += 1;
                }
                b'\r' => starts.push(i + 1),
                _ => {}
            }
            i += 1;
        }
        LineIndex { starts }
    }

    /// The bytes of line `line` (0-based) without its line ending; `None`
    /// past the last line.
    fn line_range(&self, text: &str, line: usize) -> Option<std::ops::Range<usize>> {
        let start = *self.starts.get(line)?;
        let end = match self.starts.get(line + 1) {
            Some(&next) => {
                let before = text.get(start..next).unwrap_or("");
                next - (before.len() - before.trim_end_matches(['\n', '\r']).len())
            }
            None => text.len(),
        };
        Some(start..end.max(start))
    }

    /// The position of byte `offset` (clamped to the text, and back to the
    /// start of the character it falls in).
    pub(crate) fn position(&self, text: &str, offset: usize) -> Position {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self
            .starts
            .partition_point(|&s| s <= offset)
            .saturating_sub(1);
        let start = self.starts.get(line).copied().unwrap_or(0);
        // An offset inside a `\r\n` is at the end of its line.
        let end = self
            .line_range(text, line)
            .map_or(offset, |r| offset.min(r.end));
        let column: usize = text
            .get(start..end)
            .unwrap_or("")
            .chars()
            .map(char::len_utf16)
            .sum();
        Position::new(to_u32(line), to_u32(column))
    }

    /// The byte offset of `position`: a line past the last is the end of
    /// the text, a column past the line's end is its end, and a column
    /// inside a character (between the halves of a surrogate pair) is the
    /// start of that character.
    pub(crate) fn offset(&self, text: &str, position: Position) -> usize {
        let Some(range) = self.line_range(text, position.line as usize) else {
            return text.len();
        };
        let line = text.get(range.clone()).unwrap_or("");
        let wanted = position.character as usize;
        let mut units = 0;
        for (at, c) in line.char_indices() {
            units += c.len_utf16();
            if units > wanted {
                return range.start + at;
            }
        }
        range.end
    }

    /// The range of a span.
    pub(crate) fn range(&self, text: &str, span: Span) -> Range {
        Range::new(
            self.position(text, span.start as usize),
            self.position(text, span.end as usize),
        )
    }

    /// The span of a range (its ends clamped like [`Self::offset`]).
    pub(crate) fn span(&self, text: &str, range: Range) -> Span {
        Span::new(self.offset(text, range.start), self.offset(text, range.end))
    }

    /// The range of the whole text.
    pub(crate) fn whole(&self, text: &str) -> Range {
        Range::new(Position::new(0, 0), self.position(text, text.len()))
    }
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(text: &str) {
        let index = LineIndex::new(text);
        for (offset, _) in text.char_indices().chain([(text.len(), ' ')]) {
            let position = index.position(text, offset);
            let back = index.offset(text, position);
            // Inside a `\r\n`, the `\n` is at the end of the line like the `\r`.
            let expected = if text.get(offset..).is_some_and(|r| r.starts_with('\n'))
                && offset > 0
                && text.as_bytes().get(offset - 1) == Some(&b'\r')
            {
                offset - 1
            } else {
                offset
            };
            assert_eq!(
                back, expected,
                "offset {offset} of {text:?} at {position:?}"
            );
        }
    }

    #[test]
    fn ascii_lines() {
        let text = "ab\ncd\n\nx";
        let index = LineIndex::new(text);
        assert_eq!(index.position(text, 0), Position::new(0, 0));
        assert_eq!(index.position(text, 2), Position::new(0, 2));
        assert_eq!(index.position(text, 3), Position::new(1, 0));
        assert_eq!(index.position(text, 7), Position::new(3, 0));
        assert_eq!(index.position(text, 8), Position::new(3, 1));
        assert_eq!(index.offset(text, Position::new(1, 1)), 4);
        round_trip(text);
    }

    #[test]
    fn columns_count_utf16_units() {
        // `é` is 2 bytes and 1 unit, `→` 3 bytes and 1 unit, `😀` 4 bytes
        // and 2 units (a surrogate pair).
        let text = "é→😀x\n😀";
        let index = LineIndex::new(text);
        assert_eq!(index.position(text, 2), Position::new(0, 1));
        assert_eq!(index.position(text, 5), Position::new(0, 2));
        assert_eq!(
            index.position(text, 9),
            Position::new(0, 4),
            "after the pair"
        );
        assert_eq!(
            index.position(text, 10),
            Position::new(0, 5),
            "the line's end"
        );
        assert_eq!(index.position(text, 15), Position::new(1, 2));
        assert_eq!(index.offset(text, Position::new(0, 4)), 9);
        assert_eq!(
            index.offset(text, Position::new(0, 3)),
            5,
            "inside the pair: its start"
        );
        assert_eq!(index.offset(text, Position::new(1, 2)), 15);
        round_trip(text);
    }

    #[test]
    fn offsets_inside_a_character_go_back_to_its_start() {
        let text = "a😀b";
        let index = LineIndex::new(text);
        assert_eq!(index.position(text, 2), Position::new(0, 1));
        assert_eq!(index.position(text, 4), Position::new(0, 1));
        assert_eq!(index.position(text, 5), Position::new(0, 3));
    }

    #[test]
    fn every_line_ending_ends_a_line() {
        let text = "a\r\nb\rc\nd";
        let index = LineIndex::new(text);
        assert_eq!(index.position(text, 3), Position::new(1, 0));
        assert_eq!(index.position(text, 5), Position::new(2, 0));
        assert_eq!(index.position(text, 7), Position::new(3, 0));
        assert_eq!(
            index.position(text, 2),
            Position::new(0, 1),
            "inside `\\r\\n`"
        );
        assert_eq!(
            index.offset(text, Position::new(0, 9)),
            1,
            "past the line's end"
        );
        round_trip(text);
    }

    #[test]
    fn positions_outside_the_text_are_clamped() {
        let text = "ab\ncd";
        let index = LineIndex::new(text);
        assert_eq!(index.offset(text, Position::new(7, 0)), 5);
        assert_eq!(index.offset(text, Position::new(1, 99)), 5);
        assert_eq!(index.position(text, 99), Position::new(1, 2));
        let empty = LineIndex::new("");
        assert_eq!(empty.position("", 0), Position::new(0, 0));
        assert_eq!(empty.offset("", Position::new(3, 3)), 0);
        assert_eq!(
            index.whole(text),
            Range::new(Position::new(0, 0), Position::new(1, 2))
        );
    }

    #[test]
    fn spans_and_ranges() {
        let text = "hook é on 😀x";
        let index = LineIndex::new(text);
        let span = Span::new(15, 16); // `x`
        let range = index.range(text, span);
        assert_eq!(
            range,
            Range::new(Position::new(0, 12), Position::new(0, 13))
        );
        assert_eq!(index.span(text, range), span);
    }
}
