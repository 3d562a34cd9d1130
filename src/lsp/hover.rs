//! Hover: what the thing under the cursor is, in Markdown.
//!
//! A hook point: what it is, its kind, whether rules there can block, how
//! its host applies edits, its payload fields and outputs, all from the
//! schema. A field path: what a context field is, and the type the schema
//! gives the part under the cursor, at each point of the rule (or, outside
//! a rule, wherever the schema declares it).
//! A list, pattern or macro: its definition as written, where it is, and
//! the `list … +=` lines that extend it. A function, a keyword: one line.
//! An import: the file and what it defines. A `schema` line: the schema's
//! points.

use super::analysis::Analysis;
use super::keywords;
use super::locate::{self, Found};
use crate::ir::{Func, Root};
use crate::schema::{EditApplication, FieldLookup, PointDef, PointKind, Schema};
use crate::span::Span;
use crate::syntax::ast::{self, Item};
use std::fmt::Write as _;

/// The most payload fields a point's hover lists.
const MAX_FIELDS: usize = 80;

/// The most point names a line lists before `and N more`.
const MAX_POINTS: usize = 8;

/// The longest definition shown, in bytes.
const MAX_DEFINITION: usize = 2000;

/// The hover at byte `offset` of the document: Markdown, and the span it
/// is about.
pub(crate) fn hover(analysis: &Analysis, offset: usize) -> Option<(String, Span)> {
    let document = analysis.document()?;
    let text: &str = &document.source.text;
    let at = u32::try_from(offset).ok()?;
    if let Some(found) = locate::at(&document.ast, at) {
        if let Some(hover) = found_hover(analysis, text, at, found) {
            return Some(hover);
        }
    }
    let (span, word) = locate::word_at(text, offset)?;
    let line_start = text
        .get(..span.start as usize)?
        .rfind('\n')
        .map_or(0, |i| i + 1);
    if locate::in_string_or_comment(text.get(line_start..span.start as usize)?) {
        return None;
    }
    if let Some(func) = Func::from_name(word) {
        let after = text.get(span.end as usize..).unwrap_or("");
        if after.trim_start().starts_with('(') {
            return Some((function_doc(func), span));
        }
    }
    keywords::doc(word).map(|doc| (format!("**{word}**: {doc}"), span))
}

fn found_hover(
    analysis: &Analysis,
    text: &str,
    at: u32,
    found: Found<'_>,
) -> Option<(String, Span)> {
    match found {
        Found::Point(point) => {
            let def = analysis.schema.point(&point.name)?;
            Some((point_doc(&analysis.schema, def), point.span))
        }
        Found::Path(path, points) => path_hover(analysis, text, at, path, points),
        Found::Name(name) | Found::Definition(name) => {
            Some((definition_doc(analysis, &name.name)?, name.span))
        }
        Found::Function(name) => Func::from_name(&name.name).map(|f| (function_doc(f), name.span)),
        Found::Import(lit, nth) => Some((import_doc(analysis, lit, nth), lit.span)),
        Found::Schema(decl) => Some((schema_doc(&analysis.schema), decl.span)),
        Found::Override(id) => Some((rule_doc(analysis, &id.name)?, id.span)),
    }
}

/// A point, from its schema.
pub(crate) fn point_doc(schema: &Schema, def: &PointDef) -> String {
    let mut out = format!(
        "**`{}`**: a `{}` point of the `{}` schema",
        def.name, def.kind, schema.name
    );
    if !def.doc.is_empty() {
        let _ = write!(out, "\n\n{}", def.doc);
    }
    let _ = write!(out, "\n\n{}", kind_doc(def.kind));
    out.push_str(if def.blocking {
        " Rules here can block it (`abort`/`deny`, `ask`, `skip`)."
    } else {
        " Rules here cannot block it: `abort`, `deny`, `ask` and `skip` are refused."
    });
    if let Some(edits) = edits_doc(&def.edits) {
        let _ = write!(out, "\n\n{edits}");
    }
    if def.payload.is_empty() {
        out.push_str("\n\nThe schema declares no payload fields here: any field is read.");
    } else {
        out.push_str("\n\nPayload:\n");
        for field in def.payload.iter().take(MAX_FIELDS) {
            let _ = writeln!(out, "- `payload.{}`: `{}`", field.path, field.type_text());
        }
        if def.payload.len() > MAX_FIELDS {
            let _ = writeln!(out, "- … and {} more", def.payload.len() - MAX_FIELDS);
        }
    }
    if !def.outputs.is_empty() {
        let outputs: Vec<String> = def
            .outputs
            .iter()
            .map(|o| format!("`{}` (`{}`)", o.path, o.type_text()))
            .collect();
        let _ = write!(
            out,
            "\n\nOutputs (`output NAME = …`): {}",
            outputs.join(", ")
        );
    }
    out.trim_end().to_owned()
}

fn kind_doc(kind: PointKind) -> &'static str {
    match kind {
        PointKind::Pre => "Before an operation: rules may abort, skip or edit its input.",
        PointKind::Post => "After an operation: rules may also replace its result.",
        PointKind::Event => "A notification: rules observe (abort and skip still end the chain).",
    }
}

fn edits_doc(edits: &EditApplication) -> Option<String> {
    match edits {
        EditApplication::AsEdited => None,
        EditApplication::Mirror { text, field } => Some(format!(
            "`payload.{text}` and `payload.{field}` are one value: an edit of either is copied to the other."
        )),
        EditApplication::Json { text, field } => Some(format!(
            "`payload.{text}` is `payload.{field}` as JSON text: an edit of it is parsed back into the field."
        )),
        EditApplication::Ignore { text } => Some(format!(
            "`payload.{text}` cannot be edited here: the host drops such an edit."
        )),
    }
}

/// A field path: the part under the cursor and its type.
fn path_hover(
    analysis: &Analysis,
    text: &str,
    at: u32,
    path: &ast::Path,
    points: &[ast::Ident],
) -> Option<(String, Span)> {
    let parts = locate::path_parts(text, path)?;
    let index = parts
        .iter()
        .position(|span| locate::contains(*span, at))
        .unwrap_or(parts.len().saturating_sub(1));
    let span = Span::new(path.span.start as usize, parts.get(index)?.end as usize);
    let shown = text.get(span.range())?;
    let Some(root) = Root::from_name(&path.root.name) else {
        return variable_hover(analysis, text, path, index, shown).map(|doc| (doc, span));
    };
    let segments = path.segments.get(..index)?;
    let fields: Vec<&str> = segments
        .iter()
        .map_while(|s| match s {
            ast::Segment::Field(f) => Some(f.as_str()),
            ast::Segment::Index(_) => None,
        })
        .collect();
    if fields.len() < segments.len() {
        return None; // inside a list element: the schema does not say
    }
    let mut out = format!("`{shown}`");
    if let Some(doc) = context_doc(root, &fields) {
        let _ = write!(out, ": {doc}");
    }
    let ty = |point: &str| -> String {
        match root {
            Root::Payload if !fields.is_empty() => {
                match analysis.schema.payload_field(point, &fields) {
                    FieldLookup::Known(def) => format!("`{}`", def.type_text()),
                    FieldLookup::Open => "any (inside an open field)".to_owned(),
                    FieldLookup::Undeclared => "any (no payload fields declared)".to_owned(),
                    FieldLookup::Unknown => "not declared (reads as `null`)".to_owned(),
                }
            }
            Root::Metadata if !fields.is_empty() => "any".to_owned(),
            _ => analysis
                .schema
                .field_type(point, root.as_str(), &fields)
                .map_or_else(
                    || "not a field (reads as `null`)".to_owned(),
                    |t| format!("`{t}`"),
                ),
        }
    };
    let in_rule: Vec<&str> = points
        .iter()
        .filter(|p| analysis.schema.point(&p.name).is_some())
        .map(|p| p.name.as_str())
        .collect();
    let groups = if in_rule.is_empty() {
        // Outside a rule: where the schema declares it.
        let all: Vec<&str> = analysis
            .schema
            .points
            .iter()
            .map(|p| p.name.as_str())
            .collect();
        let groups = group(&all, ty);
        let known: Vec<(String, Vec<&str>)> = groups
            .iter()
            .filter(|(t, _)| t.starts_with('`'))
            .cloned()
            .collect();
        if known.is_empty() {
            groups
                .into_iter()
                .filter(|(_, p)| p.len() == all.len())
                .collect()
        } else {
            known
        }
    } else {
        group(&in_rule, ty)
    };
    let every = analysis.schema.points.len();
    match groups.as_slice() {
        [(ty, points)] if points.len() == every && every > 1 => {
            let _ = write!(out, "\n\n{ty} at every point");
        }
        [(ty, points)] => {
            let _ = write!(out, "\n\n{ty} at {}", point_list(points));
        }
        _ => {
            out.push_str("\n\n");
            for (ty, points) in &groups {
                let _ = writeln!(out, "- {ty} at {}", point_list(points));
            }
        }
    }
    Some((out.trim_end().to_owned(), span))
}

/// A path below a variable: a quantifier's element (the fields of a
/// command of a shell view, or of a redirection), a capture or a `let`.
fn variable_hover(
    analysis: &Analysis,
    text: &str,
    path: &ast::Path,
    index: usize,
    shown: &str,
) -> Option<String> {
    let document = analysis.document()?;
    let item_start = document
        .ast
        .items
        .iter()
        .map(crate::syntax::pretty::item_span)
        .find(|s| s.start <= path.span.start && path.span.start <= s.end)
        .map_or(0, |s| s.start as usize);
    let before = text.get(item_start..path.span.start as usize)?;
    let fields = locate::variable_fields(before, &path.root.name);
    let what = if fields.iter().any(|(name, _)| name == "program") {
        "a command of the shell view `shell(…)`"
    } else {
        "a redirection of a command (`op`, `target`)"
    };
    match (index, path.segments.first()) {
        (0, _) if fields.is_empty() => Some(format!(
            "`{shown}`: a variable of this rule (a quantifier's element, a capture or a `let` name)"
        )),
        (0, _) => {
            let names: Vec<String> = fields.iter().map(|(n, _)| format!("`{n}`")).collect();
            Some(format!("`{shown}`: {what}\n\nfields: {}", names.join(", ")))
        }
        (1, Some(ast::Segment::Field(field))) => {
            let (_, ty) = fields.iter().find(|(name, _)| name == field)?;
            Some(format!("`{shown}`: {ty}, a field of {what}"))
        }
        _ => None,
    }
}

/// What a field of the hook context is (`component`, `principal.id`, …),
/// as the schemas say; `None` below `payload` and `metadata`.
pub(crate) fn context_doc(root: Root, fields: &[&str]) -> Option<&'static str> {
    let mut path = root.as_str().to_owned();
    for field in fields {
        path.push('.');
        path.push_str(field);
    }
    crate::schema::CONTEXT_FIELDS
        .iter()
        .find(|(p, _, _)| *p == path)
        .map(|&(_, _, doc)| doc)
}

/// Points grouped by what `describe` says of them, in the order first seen.
fn group<'p>(points: &[&'p str], describe: impl Fn(&str) -> String) -> Vec<(String, Vec<&'p str>)> {
    let mut groups: Vec<(String, Vec<&str>)> = Vec::new();
    for &point in points {
        let said = describe(point);
        match groups.iter_mut().find(|(s, _)| *s == said) {
            Some((_, list)) => list.push(point),
            None => groups.push((said, vec![point])),
        }
    }
    groups
}

fn point_list(points: &[&str]) -> String {
    let shown: Vec<String> = points
        .iter()
        .take(MAX_POINTS)
        .map(|p| format!("`{p}`"))
        .collect();
    let mut out = shown.join(", ");
    if points.len() > MAX_POINTS {
        let _ = write!(out, " and {} more", points.len() - MAX_POINTS);
    }
    out
}

/// A list, pattern or macro the document sees: its definition as written,
/// where it is, and the lines that extend it.
pub(crate) fn definition_doc(analysis: &Analysis, name: &str) -> Option<String> {
    let def = analysis.scopes.first()?.get(name)?;
    let file = analysis.loaded.files.get(def.file)?;
    let item = file.ast.items.get(def.item)?;
    let mut out = format!(
        "```hooks\n{}\n```\n*{}*",
        shorten(file.source.slice(crate::syntax::pretty::item_span(item))),
        def.kind.as_str()
    );
    if def.file != 0 {
        let _ = write!(out, " from `{}`", file_name(&file.source.name));
    }
    for (fi, other) in analysis.loaded.files.iter().enumerate() {
        for item in &other.ast.items {
            if let Item::List(list) = item {
                if list.extends && list.name.name == name {
                    let place = if fi == 0 {
                        "here".to_owned()
                    } else {
                        format!("in `{}`", file_name(&other.source.name))
                    };
                    let _ = write!(
                        out,
                        "\n\nextended {place}:\n```hooks\n{}\n```",
                        shorten(other.source.slice(list.span))
                    );
                }
            }
        }
    }
    Some(out)
}

fn function_doc(func: Func) -> String {
    format!("**function** {}", func.doc())
}

fn import_doc(analysis: &Analysis, lit: &ast::StrLit, nth: usize) -> String {
    let target = analysis
        .document()
        .and_then(|d| d.imports.get(nth).copied().flatten())
        .and_then(|i| analysis.loaded.files.get(i));
    let Some(file) = target else {
        return format!("`{}`: cannot be read", lit.value);
    };
    let mut out = format!("`{}`", file.source.name);
    let mut kinds: [(&str, Vec<String>); 3] = [
        ("lists", Vec::new()),
        ("patterns", Vec::new()),
        ("macros", Vec::new()),
    ];
    for item in &file.ast.items {
        let (slot, name) = match item {
            Item::List(l) if !l.extends => (0, &l.name.name),
            Item::Pattern(p) => (1, &p.name.name),
            Item::Macro(m) => (2, &m.name.name),
            _ => continue,
        };
        if let Some((_, names)) = kinds.get_mut(slot) {
            names.push(format!("`{name}`"));
        }
    }
    let defined: Vec<String> = kinds
        .iter()
        .filter(|(_, names)| !names.is_empty())
        .map(|(kind, names)| format!("{kind} {}", names.join(", ")))
        .collect();
    if defined.is_empty() {
        out.push_str("\n\ndefines no list, pattern or macro");
    } else {
        let _ = write!(out, "\n\ndefines {}", defined.join("; "));
    }
    out
}

fn schema_doc(schema: &Schema) -> String {
    let mut out = format!(
        "**schema `{}`**: {} points\n\n",
        schema.name,
        schema.points.len()
    );
    if !schema.doc.is_empty() {
        let _ = write!(out, "{}\n\n", schema.doc);
    }
    for point in &schema.points {
        let _ = writeln!(out, "- `{}` ({})", point.name, point.kind);
    }
    out.trim_end().to_owned()
}

/// The rule an `override` names: its header and where it is.
fn rule_doc(analysis: &Analysis, id: &str) -> Option<String> {
    analysis.loaded.files.iter().find_map(|file| {
        file.ast.items.iter().find_map(|item| match item {
            Item::Hook(hook) if hook.id.name == id => Some(format!(
                "```hooks\n{}\n```\nin `{}`",
                file.source
                    .slice(hook.header_span)
                    .trim_end_matches('{')
                    .trim_end(),
                file_name(&file.source.name)
            )),
            _ => None,
        })
    })
}

/// A file's name without its directory.
fn file_name(name: &str) -> &str {
    name.rsplit(['/', '\\']).next().unwrap_or(name)
}

/// `text`, cut at [`MAX_DEFINITION`] bytes (on a character boundary).
fn shorten(text: &str) -> String {
    if text.len() <= MAX_DEFINITION {
        return text.to_owned();
    }
    let mut end = MAX_DEFINITION;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{} …", text.get(..end).unwrap_or(""))
}
