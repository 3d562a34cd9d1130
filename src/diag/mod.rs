//! Diagnostics: what the checker and parser say about a source, as data.
//!
//! A [`Diagnostic`] owns the [`SourceFile`] it points into, so it renders
//! anywhere. Rendering (rustc-like text, JSON) lives at the edge, in
//! [`render`], and [`sarif`] writes SARIF 2.1.0 for code
//! scanning; the stages only produce data.

use crate::span::{SourceFile, Span};
use std::fmt;

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// A note: information, never a failure.
    Note,
    /// A warning: a finding, the rules still compile.
    Warning,
    /// An error: the rules do not compile.
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// A labelled span inside the diagnostic's file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    /// The bytes the label points at.
    pub span: Span,
    /// What the label says; may be empty.
    pub message: String,
    /// The primary label is the one the message is about (and gives line:col).
    pub primary: bool,
}

/// A fix a tool can apply without asking: put `replacement` in place of
/// the text at `span` (in the diagnostic's file). The "did you mean `x`?"
/// of a misspelt name carries one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Suggestion {
    /// The text to replace.
    pub span: Span,
    /// What to write instead.
    pub replacement: String,
}

/// One finding about a source: a stable code, a message, where, and a help.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// A stable, kebab-case code such as `unknown-point`.
    pub code: &'static str,
    /// Error, warning or note.
    pub severity: Severity,
    /// Lowercase, no trailing period, user text in backticks.
    pub message: String,
    /// The file the labels point into; `None` for file-less problems (I/O).
    pub file: Option<SourceFile>,
    /// Labelled spans; the first primary one is the location.
    pub labels: Vec<Label>,
    /// A second sentence: what to do about it.
    pub help: Option<String>,
    /// The fix the help describes, when it is one replacement.
    pub suggestion: Option<Suggestion>,
}

impl Diagnostic {
    /// An error with a code and a message and nothing else yet.
    pub fn error(code: &'static str, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            code,
            severity: Severity::Error,
            message: message.into(),
            file: None,
            labels: Vec::new(),
            help: None,
            suggestion: None,
        }
    }

    /// A warning with a code and a message.
    pub fn warning(code: &'static str, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, message)
        }
    }

    /// A note with a code and a message.
    pub fn note(code: &'static str, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Note,
            ..Diagnostic::error(code, message)
        }
    }

    /// Sets the file the labels point into.
    pub fn in_file(mut self, file: &SourceFile) -> Diagnostic {
        self.file = Some(file.clone());
        self
    }

    /// Adds the primary label.
    pub fn with_primary(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.labels.push(Label {
            span,
            message: message.into(),
            primary: true,
        });
        self
    }

    /// Adds a secondary label.
    pub fn with_secondary(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.labels.push(Label {
            span,
            message: message.into(),
            primary: false,
        });
        self
    }

    /// Sets the help line.
    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }

    /// Sets the help to "did you mean `replacement`?" and records the fix:
    /// `replacement` in place of the text at `span`.
    pub fn with_suggestion(mut self, span: Span, replacement: impl Into<String>) -> Diagnostic {
        let replacement = replacement.into();
        self.help = Some(format!("did you mean `{replacement}`?"));
        self.suggestion = Some(Suggestion { span, replacement });
        self
    }

    /// The primary span, if any.
    pub fn primary_span(&self) -> Option<Span> {
        self.labels
            .iter()
            .find(|l| l.primary)
            .or_else(|| self.labels.first())
            .map(|l| l.span)
    }

    /// `file:line:col` of the primary span, or the file name alone.
    pub fn location(&self) -> Option<(String, u32, u32)> {
        let file = self.file.as_ref()?;
        let (line, col) = match self.primary_span() {
            Some(span) => file.line_col(span.start),
            None => (1, 1),
        };
        Some((file.name.to_string(), line, col))
    }
}

/// The longest name or message the one-line form shows, in characters.
const SHORT_TEXT: usize = 400;

/// The one-line form, `file:line:col: severity[code]: message`, with the
/// name and message escaped and bounded ([`escape`]).
impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some((name, line, col)) = self.location() {
            write!(f, "{}:{line}:{col}: ", escape::shorten(&name, SHORT_TEXT))?;
        }
        write!(
            f,
            "{}[{}]: {}",
            self.severity,
            self.code,
            escape::shorten_lines(&self.message, SHORT_TEXT)
        )
    }
}

/// All the diagnostics of a run, in the order they were found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    /// No diagnostics.
    pub fn new() -> Diagnostics {
        Diagnostics(Vec::new())
    }

    /// Adds one diagnostic.
    pub fn push(&mut self, diagnostic: Diagnostic) {
        self.0.push(diagnostic);
    }

    /// Adds all of `other`.
    pub fn extend(&mut self, other: Diagnostics) {
        self.0.extend(other.0);
    }

    /// True when at least one diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.0.iter().any(|d| d.severity == Severity::Error)
    }

    /// Number of diagnostics of a severity.
    pub fn count(&self, severity: Severity) -> usize {
        self.0.iter().filter(|d| d.severity == severity).count()
    }

    /// True when there are no diagnostics at all.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Iterates over the diagnostics.
    pub fn iter(&self) -> std::slice::Iter<'_, Diagnostic> {
        self.0.iter()
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for d in &self.0 {
            writeln!(f, "{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

pub mod escape;
#[cfg(feature = "compiler")]
pub mod render;
pub mod sarif;
#[cfg(feature = "compiler")]
pub mod suggest;
