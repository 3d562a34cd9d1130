//! hookc's diagnostics as the protocol's.
//!
//! A diagnostic keeps its code (`unknown-point`, a lint's code, …), its
//! severity and its message; the help follows the message on a line of its
//! own (`help: …`, as `hookc lint` prints it), and every label with text is
//! related information at its place. Findings in a file the document
//! imports are shown at the `import` line that brings the file in (errors
//! only: the file's warnings are its own), with their place in that file
//! as related information; so are errors in the schema file a `schema
//! "file.toml"` line names (at that line) and in `hookc.toml` (at the start
//! of the document). Findings with no file are shown at the start of the
//! document.

use super::analysis::Analysis;
use super::position::LineIndex;
use crate::diag::{Diagnostic, Severity};
use crate::span::{SourceFile, Span};
use crate::syntax::ast;
use lsp_types::{
    DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString, Range, Uri,
};
use std::path::{Path, PathBuf};

/// Where the diagnostics of one document point: its text and URI.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Target<'a> {
    /// The document's URI.
    pub(crate) uri: &'a Uri,
    /// Its text.
    pub(crate) text: &'a str,
    /// Its lines.
    pub(crate) lines: &'a LineIndex,
}

/// The diagnostics to publish for the document of an analysis, with the
/// hookc diagnostic each comes from.
pub(crate) fn document_diagnostics<'a>(
    analysis: &'a Analysis,
    target: Target<'_>,
) -> Vec<(&'a Diagnostic, lsp_types::Diagnostic)> {
    let mut out = Vec::new();
    for d in analysis.diagnostics.iter() {
        match &d.file {
            Some(file) if analysis.file_index(file) == Some(0) => out.push((d, convert(d, target))),
            None => {
                let mut lsp = convert(d, target);
                lsp.range = Range::default();
                out.push((d, lsp));
            }
            Some(file) if d.severity == Severity::Error => {
                out.push((d, elsewhere(analysis, file, d, target)));
            }
            Some(_) => {}
        }
    }
    out
}

/// A diagnostic of the document itself.
pub(crate) fn convert(d: &Diagnostic, target: Target<'_>) -> lsp_types::Diagnostic {
    let range = d
        .primary_span()
        .map(|span| target.lines.range(target.text, span))
        .unwrap_or_default();
    let related: Vec<DiagnosticRelatedInformation> = d
        .labels
        .iter()
        .filter(|l| !l.message.is_empty())
        .map(|l| DiagnosticRelatedInformation {
            location: Location::new(target.uri.clone(), target.lines.range(target.text, l.span)),
            message: l.message.clone(),
        })
        .collect();
    lsp_types::Diagnostic {
        range,
        severity: Some(severity(d.severity)),
        code: Some(NumberOrString::String(d.code.to_owned())),
        source: Some("hookc".to_owned()),
        message: message(d),
        related_information: (!related.is_empty()).then_some(related),
        ..lsp_types::Diagnostic::default()
    }
}

/// An error in another file than the document: at the `import` line that
/// brings the file in (directly or through other imports), at the `schema`
/// line that names it, or else at the start of the document; with its
/// place in that file as related information.
fn elsewhere(
    analysis: &Analysis,
    file: &SourceFile,
    d: &Diagnostic,
    target: Target<'_>,
) -> lsp_types::Diagnostic {
    let index = analysis.file_index(file);
    let anchor = analysis.document().and_then(|document| {
        let mut imports = document.ast.items.iter().filter_map(|item| match item {
            ast::Item::Import(import) => Some(import),
            _ => None,
        });
        let by_import = index.and_then(|i| {
            imports
                .by_ref()
                .zip(&document.imports)
                .find(|(_, resolved)| resolved.is_some_and(|from| reaches(analysis, from, i)))
                .map(|(import, _)| (import.span, import.path.value.clone()))
        });
        let base = document.path.as_deref().and_then(Path::parent);
        let by_schema = || {
            document.ast.items.iter().find_map(|item| match item {
                ast::Item::Schema(ast::SchemaDecl {
                    schema: ast::SchemaRef::Path(path),
                    span,
                }) if base
                    .map_or_else(|| PathBuf::from(&path.value), |b| b.join(&path.value))
                    .display()
                    .to_string()
                    == *file.name =>
                {
                    Some((*span, path.value.clone()))
                }
                _ => None,
            })
        };
        by_import.or_else(by_schema)
    });
    let mut lsp = convert(d, target);
    let (span, shown) = anchor.unwrap_or_else(|| {
        let name = Path::new(&*file.name).file_name().map_or_else(
            || file.name.to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        (Span::default(), name)
    });
    lsp.range = target.lines.range(target.text, span);
    lsp.message = format!("in `{shown}`: {}", lsp.message);
    lsp.related_information = None;
    let path = index
        .and_then(|i| analysis.loaded.files.get(i))
        .and_then(|f| f.path.clone())
        .unwrap_or_else(|| PathBuf::from(&*file.name));
    let path = path.canonicalize().unwrap_or(path);
    if let Some(uri) = super::uri::from_path(&path) {
        let lines = LineIndex::new(&file.text);
        let range = d
            .primary_span()
            .map(|span| lines.range(&file.text, span))
            .unwrap_or_default();
        lsp.related_information = Some(vec![DiagnosticRelatedInformation {
            location: Location::new(uri, range),
            message: d.message.clone(),
        }]);
    }
    lsp
}

/// True when file `from` is `to` or imports it, transitively.
fn reaches(analysis: &Analysis, from: usize, to: usize) -> bool {
    let mut seen = vec![from];
    let mut stack = vec![from];
    while let Some(f) = stack.pop() {
        if f == to {
            return true;
        }
        let Some(file) = analysis.loaded.files.get(f) else {
            continue;
        };
        for &next in file.imports.iter().flatten() {
            if !seen.contains(&next) {
                seen.push(next);
                stack.push(next);
            }
        }
    }
    false
}

/// The message with its help on a line of its own.
fn message(d: &Diagnostic) -> String {
    match &d.help {
        Some(help) => format!("{}\nhelp: {help}", d.message),
        None => d.message.clone(),
    }
}

fn severity(severity: Severity) -> DiagnosticSeverity {
    match severity {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
        Severity::Note => DiagnosticSeverity::INFORMATION,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lsp_types::Position;
    use std::str::FromStr;

    #[test]
    fn a_diagnostic_keeps_code_severity_range_help_and_labels() {
        let text = "hook a on tool.pre_exec { continue }\n";
        let source = crate::span::SourceFile::new("t.hooks", text);
        let d = Diagnostic::error("unknown-point", "unknown hook point `tool.pre_exec`")
            .in_file(&source)
            .with_primary(
                crate::span::Span::new(10, 23),
                "not a point of the `orcs` schema",
            )
            .with_secondary(crate::span::Span::new(0, 4), "")
            .with_suggestion(crate::span::Span::new(10, 23), "tool.pre_execute");
        let uri = Uri::from_str("file:///t.hooks").unwrap();
        let lines = LineIndex::new(text);
        let lsp = convert(
            &d,
            Target {
                uri: &uri,
                text,
                lines: &lines,
            },
        );
        assert_eq!(
            lsp.range,
            Range::new(Position::new(0, 10), Position::new(0, 23))
        );
        assert_eq!(lsp.severity, Some(DiagnosticSeverity::ERROR));
        assert_eq!(
            lsp.code,
            Some(NumberOrString::String("unknown-point".into()))
        );
        assert_eq!(
            lsp.message,
            "unknown hook point `tool.pre_exec`\nhelp: did you mean `tool.pre_execute`?"
        );
        let related = lsp.related_information.unwrap();
        assert_eq!(related.len(), 1, "labels without text are left out");
        assert_eq!(related[0].message, "not a point of the `orcs` schema");
    }
}
