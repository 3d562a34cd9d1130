//! Writing `.hooks` text: the pieces every importer emits.
//!
//! Importers build rules as text and pass it through [`canonical`], so what
//! they write is what `hookc fmt` prints, and ids through [`rule_id`] and
//! [`UniqueIds`], so every id is one the grammar accepts, once.

use crate::diag::Diagnostics;
use crate::span::SourceFile;
use crate::syntax::pretty::quote;
use std::collections::HashSet;
use std::fmt::Write as _;

/// A rule: its header line, one body line each, the closing brace.
pub(crate) fn rule_block(header: &str, body: &[String]) -> String {
    let mut text = format!("{header} {{\n");
    for line in body {
        let _ = writeln!(text, "    {line}");
    }
    text.push_str("}\n");
    text
}

/// Generated text in the canonical layout (what `hookc fmt` prints). Text
/// that does not parse is a bug of the importer: its errors are reported
/// and the text is returned as it is.
pub(crate) fn canonical(name: &str, text: String, diagnostics: &mut Diagnostics) -> String {
    match crate::syntax::pretty::format_source(&SourceFile::new(name, text.as_str())) {
        Ok(formatted) => formatted,
        Err(found) => {
            diagnostics.extend(found);
            text
        }
    }
}

/// A regex literal `/…/` that means `pattern`: `/` is escaped, and line
/// breaks (which cannot appear in a literal) are written as escapes.
pub(crate) fn regex_literal(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 2);
    out.push('/');
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        match c {
            // An escape and what it escapes are copied together, so `\/`
            // stays one escaped slash and `\\` one backslash.
            '\\' => match chars.next() {
                Some('\n') => out.push_str("\\n"),
                Some('\r') => out.push_str("\\r"),
                Some(next) => {
                    out.push('\\');
                    out.push(next);
                }
                None => out.push('\\'),
            },
            '/' => out.push_str("\\/"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out.push('/');
    out
}

/// A string literal for a template action whose text must stay literal:
/// braces doubled, then quoted.
pub(crate) fn template(text: &str) -> String {
    quote(&text.replace('{', "{{").replace('}', "}}"))
}

/// A rule id made from a name: letters, digits, `_` and `-` kept, runs of
/// anything else become one `-`; it starts with a letter or `_` (else
/// `prefix-` is put before it) and is not a reserved word.
pub(crate) fn rule_id(name: &str, prefix: &str) -> String {
    let mut id = String::with_capacity(name.len());
    for c in name.chars() {
        if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
            id.push(c);
        } else if !id.is_empty() && !id.ends_with('-') {
            id.push('-');
        }
    }
    let id = id.trim_end_matches('-');
    let starts_well = id
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    let id = match (id.is_empty(), starts_well) {
        (true, _) => prefix.to_string(),
        (false, true) => id.to_string(),
        (false, false) => format!("{prefix}-{}", id.trim_start_matches('-')),
    };
    if crate::syntax::RESERVED.contains(&id.as_str()) {
        format!("{id}-{prefix}")
    } else {
        id
    }
}

/// Hands out rule ids, each once: a taken id gets `-2`, `-3`, ….
#[derive(Debug, Default)]
pub(crate) struct UniqueIds {
    taken: HashSet<String>,
}

impl UniqueIds {
    /// `id`, or the first free `id-N`.
    pub(crate) fn claim(&mut self, id: &str) -> String {
        let mut candidate = id.to_string();
        let mut n = 2;
        while self.taken.contains(&candidate) {
            candidate = format!("{id}-{n}");
            n += 1;
        }
        self.taken.insert(candidate.clone());
        candidate
    }
}
