//! The edits the server proposes: quick fixes and formatting.
//!
//! A diagnostic whose help is a "did you mean `x`?" carries the replacement
//! ([`crate::diag::Suggestion`]); each one in the requested range is a
//! `quickfix` code action that writes `x` in place of the misspelt text.
//! Formatting is `hookc fmt`'s layout, as one edit of the whole document,
//! and nothing for a document that does not parse.

use super::analysis::Analysis;
use super::diagnostics::{self, Target};
use crate::span::SourceFile;
use lsp_types::{CodeAction, CodeActionKind, Range, TextEdit, WorkspaceEdit};
use std::collections::HashMap;

/// The quick fixes for the diagnostics of the document that overlap
/// `range`.
pub(crate) fn quick_fixes(
    analysis: &Analysis,
    target: Target<'_>,
    range: Range,
) -> Vec<CodeAction> {
    diagnostics::document_diagnostics(analysis, target)
        .into_iter()
        .filter(|(d, lsp)| {
            d.file.as_ref().and_then(|f| analysis.file_index(f)) == Some(0)
                && overlaps(lsp.range, range)
        })
        .filter_map(|(d, lsp)| {
            let suggestion = d.suggestion.as_ref()?;
            let edit = TextEdit::new(
                target.lines.range(target.text, suggestion.span),
                suggestion.replacement.clone(),
            );
            Some(CodeAction {
                title: format!("Replace with `{}`", suggestion.replacement),
                kind: Some(CodeActionKind::QUICKFIX),
                diagnostics: Some(vec![lsp]),
                edit: Some(WorkspaceEdit {
                    changes: Some(HashMap::from([(target.uri.clone(), vec![edit])])),
                    ..WorkspaceEdit::default()
                }),
                is_preferred: Some(true),
                ..CodeAction::default()
            })
        })
        .collect()
}

/// True when two ranges share a position (an empty range touching the
/// other counts: a cursor at the end of a word is on it).
fn overlaps(a: Range, b: Range) -> bool {
    a.start <= b.end && b.start <= a.end
}

/// `hookc fmt`'s layout of the document: one edit replacing the whole
/// text, none when it is already formatted, `None` when it does not parse.
pub(crate) fn format(name: &str, text: &str, target: Target<'_>) -> Option<Vec<TextEdit>> {
    let formatted = crate::syntax::pretty::format_source(&SourceFile::new(name, text)).ok()?;
    if formatted == text {
        return Some(Vec::new());
    }
    Some(vec![TextEdit::new(
        target.lines.whole(target.text),
        formatted,
    )])
}
