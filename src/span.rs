//! Byte-offset spans and the source files they point into.
//!
//! Every AST node carries a [`Span`]; diagnostics carry the [`SourceFile`] they
//! were found in, so they render anywhere without a lookup table.

use std::fmt;
use std::sync::{Arc, OnceLock};

/// A half-open byte range `start..end` into one source file.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    /// First byte of the range.
    pub start: u32,
    /// One past the last byte of the range.
    pub end: u32,
}

impl Span {
    /// A span from byte offsets; offsets past `u32::MAX` saturate.
    pub fn new(start: usize, end: usize) -> Span {
        let clamp = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        Span {
            start: clamp(start),
            end: clamp(end.max(start)),
        }
    }

    /// The smallest span covering both `self` and `other`.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    /// The span as a `usize` range, for slicing.
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }

    /// Length in bytes.
    pub fn len(self) -> usize {
        (self.end - self.start) as usize
    }

    /// True when the span covers no bytes.
    pub fn is_empty(self) -> bool {
        self.start == self.end
    }
}

impl fmt::Debug for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.start, self.end)
    }
}

/// One `.hooks` source: its display name (usually a path) and its text.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// The name shown in diagnostics, e.g. `rules/guard.hooks`.
    pub name: Arc<str>,
    /// The full text of the file.
    pub text: Arc<str>,
    /// Byte offsets of line starts, built on first use: `line_col` is called
    /// once per rule, and scanning from the start each time is quadratic.
    lines: Arc<OnceLock<Vec<u32>>>,
}

impl PartialEq for SourceFile {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name && self.text == other.text
    }
}

impl Eq for SourceFile {}

impl SourceFile {
    /// A source file from a name and its text.
    pub fn new(name: impl Into<Arc<str>>, text: impl Into<Arc<str>>) -> SourceFile {
        SourceFile {
            name: name.into(),
            text: text.into(),
            lines: Arc::default(),
        }
    }

    /// Byte offsets of the line starts (built once).
    fn line_starts(&self) -> &[u32] {
        self.lines.get_or_init(|| {
            std::iter::once(0)
                .chain(self.text.match_indices('\n').map(|(i, _)| i + 1))
                .map(|i| u32::try_from(i).unwrap_or(u32::MAX))
                .collect()
        })
    }

    /// The number of lines (a final line ending starts an empty last line).
    pub fn line_count(&self) -> u32 {
        u32::try_from(self.line_starts().len()).unwrap_or(u32::MAX)
    }

    /// The byte range of 1-based line `line`, without its line ending (`\n`
    /// or `\r\n`); `None` past the last line.
    pub fn line_range(&self, line: u32) -> Option<std::ops::Range<usize>> {
        let starts = self.line_starts();
        let index = usize::try_from(line.checked_sub(1)?).ok()?;
        let start = *starts.get(index)? as usize;
        let end = match starts.get(index + 1) {
            Some(&next) => next as usize - 1,
            None => self.text.len(),
        };
        let text = self.text.get(start..end)?;
        Some(start..start + text.strip_suffix('\r').unwrap_or(text).len())
    }

    /// The text of 1-based line `line`, without its line ending.
    pub fn line(&self, line: u32) -> Option<&str> {
        self.text.get(self.line_range(line)?)
    }

    /// The 1-based line and column (in characters) of byte offset `at`.
    pub fn line_col(&self, at: u32) -> (u32, u32) {
        let at = (at as usize).min(self.text.len());
        let starts = self.line_starts();
        let line = starts.partition_point(|&s| s as usize <= at).max(1);
        let line_start = starts.get(line - 1).map_or(0, |&s| s as usize);
        let col = self
            .text
            .get(line_start..at)
            .map_or(0, |s| s.chars().count())
            + 1;
        (
            u32::try_from(line).unwrap_or(u32::MAX),
            u32::try_from(col).unwrap_or(u32::MAX),
        )
    }

    /// The byte offset of 1-based `line` and `col` (in characters, as
    /// [`line_col`](Self::line_col) counts them); `None` past the line.
    pub fn offset(&self, line: u32, col: u32) -> Option<usize> {
        let range = self.line_range(line)?;
        let text = self.text.get(range.clone())?;
        let skip = usize::try_from(col.checked_sub(1)?).ok()?;
        match text.char_indices().nth(skip) {
            Some((at, _)) => Some(range.start + at),
            None => (text.chars().count() == skip).then_some(range.end),
        }
    }

    /// The text a span covers, or `""` when the span is out of range.
    pub fn slice(&self, span: Span) -> &str {
        self.text.get(span.range()).unwrap_or("")
    }
}

/// A value with the span of source it was made from, so the two travel
/// together instead of in parallel vectors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spanned<T> {
    /// The value.
    pub node: T,
    /// Where it is written.
    pub span: Span,
}

impl<T> Spanned<T> {
    /// `node`, written at `span`.
    pub fn new(node: T, span: Span) -> Spanned<T> {
        Spanned { node, span }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_lines_and_characters() {
        let f = SourceFile::new("t", "ab\nçd\n\nx");
        assert_eq!(f.line_col(0), (1, 1));
        assert_eq!(f.line_col(2), (1, 3));
        assert_eq!(f.line_col(3), (2, 1));
        assert_eq!(f.line_col(5), (2, 2), "columns count characters, not bytes");
        assert_eq!(f.line_col(7), (3, 1));
        assert_eq!(f.line_col(8), (4, 1));
        assert_eq!(f.line_col(99), (4, 2), "past the end clamps");
        for at in [0, 2, 3, 5, 7, 8] {
            let (line, col) = f.line_col(at);
            assert_eq!(f.offset(line, col), Some(at as usize), "{at}");
        }
        assert_eq!(f.offset(1, 4), None, "past the line");
        assert_eq!(f.offset(9, 1), None);
    }

    #[test]
    fn lines_by_number() {
        let f = SourceFile::new("t", "ab\r\nçd\n\nx");
        assert_eq!(f.line_count(), 4);
        assert_eq!(f.line(1), Some("ab"));
        assert_eq!(f.line(2), Some("çd"));
        assert_eq!(f.line(3), Some(""));
        assert_eq!(f.line(4), Some("x"));
        assert_eq!(f.line(0), None);
        assert_eq!(f.line(5), None);
        assert_eq!(f.line_range(2), Some(4..7));
        let ends = SourceFile::new("t", "a\n");
        assert_eq!((ends.line_count(), ends.line(2)), (2, Some("")));
    }
}
