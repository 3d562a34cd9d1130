//! `hookc schema`: the points of a schema, with their kinds, docs and
//! fields.
//!
//! The schema is a built-in one by name (`orcs`, `claude-code`,
//! `ironclaw`) or a custom TOML schema file; without one, the built-in
//! schemas are listed. `--point P` shows one point. Three formats: `human`
//! for a terminal, `markdown` (tables) for documentation, and `json`.
//!
//! # The JSON document
//!
//! Its shape is stable: fields may be added, none is renamed or removed.
//! One schema (`hookc schema NAME --format json`):
//!
//! ```json
//! {
//!   "schema": "ironclaw",
//!   "file": null,
//!   "doc": "IronClaw's six hook points, …",
//!   "command_input": "context",
//!   "points": [
//!     {
//!       "name": "beforeToolCall",
//!       "kind": "pre",
//!       "blocking": true,
//!       "doc": "Before a tool call runs (…)",
//!       "edits": {"mode": "json", "text": "payload.content", "field": "payload.parameters"},
//!       "fields": [
//!         {"path": "payload.content", "type": "string", "optional": false, "open": false}
//!       ],
//!       "outputs": []
//!     }
//!   ],
//!   "context": [
//!     {"path": "point", "type": "string", "doc": "the hook point's name"}
//!   ]
//! }
//! ```
//!
//! - `file`: the schema file as given, `null` for a built-in schema.
//! - `doc`: what the schema (or point) is; `""` when it says nothing.
//! - `command_input`: what `exec` and `sh` commands read on stdin, the whole
//!   hook `context` or only the `payload`.
//! - `points`: in the schema's order (with `--point`, that point alone).
//!   `kind` is `pre`, `post` or `event`; `blocking` says whether `abort`,
//!   `deny`, `ask` and `skip` are allowed there.
//! - `edits`: how the host applies an edit of a field before the next rule
//!   runs, `null` when the next rule sees the event as edited. `mode` is
//!   `mirror` (`text` and `field` are one value: an edit of either is
//!   copied to the other), `json` (`text` is `field` as JSON text, parsed
//!   back into it) or `ignore` (an edit of `text` is dropped; `field` is
//!   `null`).
//! - `fields`: the payload fields the point declares, parents before
//!   children, each `path` as rules write it (`payload.tool_input.command`).
//!   `type` is `string`, `path`, `int`, `float`, `bool`, `list`, `object` or
//!   `any`; `optional` is true when events may lack the field; `open` is
//!   true when fields it does not declare may be below it. An empty list:
//!   the schema says nothing about the payload, and every field is accepted.
//! - `outputs`: the fields of the host's answer a rule may set with `output
//!   NAME = value`, each with a `name` (dotted below an object), `type` and
//!   `optional`.
//! - `context`: the fields of the hook context at every point.
//!
//! The list of built-in schemas (`hookc schema --format json`) is
//! `{"schemas": [{"name": "orcs", "doc": "…", "points": 25}, …]}`.

use super::{pretty_json, print_stdout, Failure, Status};
use crate::diag::escape;
use crate::diag::suggest::{suggest, suggest_ignoring_case};
use crate::schema::{CommandInput, EditApplication, FieldDef, PointDef, PointKind, Schema};
use crate::span::SourceFile;
use crate::systems::{builtin_schema, builtin_schema_with_point, BUILTIN_SCHEMAS};
use serde::Serialize;
use std::path::Path;

/// Output formats of `hookc schema`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum SchemaFormat {
    /// Text for a terminal
    Human,
    /// JSON for machines (the shape is documented and stable)
    Json,
    /// Markdown tables, for documentation
    Markdown,
}

/// Arguments of `hookc schema`.
#[derive(Debug, clap::Args)]
pub(crate) struct SchemaArgs {
    /// A built-in schema (`orcs`, `claude-code`, `ironclaw`) or a custom
    /// schema file (TOML); without it, the built-in schemas are listed
    #[arg(value_name = "NAME|FILE")]
    schema: Option<String>,

    /// Show this point alone
    #[arg(long, value_name = "P", requires = "schema")]
    point: Option<String>,

    /// Output format: `human`, `json` or `markdown`
    #[arg(long, value_enum, default_value_t = SchemaFormat::Human)]
    format: SchemaFormat,
}

/// Prints the schema (or the list of built-in schemas).
pub(crate) fn run(args: SchemaArgs) -> Result<Status, Failure> {
    let Some(name) = &args.schema else {
        print(&list(args.format)?);
        return Ok(Status::Ok);
    };
    let (schema, file) = match resolve(name)? {
        Resolved::Schema(schema, file) => (schema, file),
        Resolved::Invalid(diags) => {
            super::emit_diagnostics(&diags, super::Format::Human)?;
            return Ok(Status::Reported);
        }
    };
    let points: Vec<&PointDef> = match &args.point {
        None => schema.points.iter().collect(),
        Some(point) => vec![find_point(&schema, point, name, file.is_some())?],
    };
    let shown = Shown {
        schema: &schema,
        file: file.as_deref(),
        points,
        one_point: args.point.is_some(),
    };
    let text = match args.format {
        SchemaFormat::Human => human(&shown),
        SchemaFormat::Markdown => markdown(&shown),
        SchemaFormat::Json => pretty_json(&json(&shown))?,
    };
    print(&text);
    Ok(Status::Ok)
}

/// Writes text to stdout, with every unsafe character of a human or
/// Markdown text escaped (custom schemas are files anyone may write);
/// JSON escapes its own.
fn print(text: &str) {
    print_stdout(&escape::guard(text.to_string()));
}

/// A schema found by name or read from a file.
enum Resolved {
    /// The schema, and its file (`None` for a built-in schema).
    Schema(Schema, Option<String>),
    /// A schema file with errors, each pointing into it.
    Invalid(crate::diag::Diagnostics),
}

/// `mcp-router` is a hook system with an importer, not a schema.
const MCP_ROUTER: &str = "mcp-router";

/// The built-in schema called `name`, else the schema file at `name`.
fn resolve(name: &str) -> Result<Resolved, Failure> {
    if let Some(schema) = builtin_schema(name) {
        return Ok(Resolved::Schema(schema, None));
    }
    if name == MCP_ROUTER {
        return Err(Failure::new("`mcp-router` is not a schema").help(
            "`hookc import mcp-router` writes rules of the `orcs` schema (at `request.pre_dispatch` \
             and `request.post_dispatch`): run `hookc schema orcs`",
        ));
    }
    let path = Path::new(name);
    let looks_like_a_file =
        path.extension().is_some() || name.contains(['/', '\\']) || path.exists();
    if !looks_like_a_file {
        let failure = Failure::new(format!("unknown schema `{name}`"));
        let known = BUILTIN_SCHEMAS.iter().copied().chain([MCP_ROUTER]);
        return Err(match suggest(name, known.clone()).or_else(|| suggest_ignoring_case(name, known)) {
            Some(s) => failure.help(format!("did you mean `{s}`?")),
            None => failure.help(format!(
                "built-in schemas are {}; a custom schema is a TOML file (`hookc schema app.schema.toml`)",
                BUILTIN_SCHEMAS.join(", ")
            )),
        });
    }
    let text = std::fs::read_to_string(path).map_err(|e| Failure::cannot_read(path, &e))?;
    let source = SourceFile::new(name.to_string(), text);
    Ok(match crate::schema::custom::parse(&source) {
        Ok(schema) => Resolved::Schema(schema, Some(name.to_string())),
        Err(diags) => Resolved::Invalid(diags),
    })
}

/// The point called `name`, or an error with the best help: the other
/// built-in schema that has it, the point it probably meant, or where to
/// see them all. `given` is the schema as the command line named it.
fn find_point<'s>(
    schema: &'s Schema,
    name: &str,
    given: &str,
    custom: bool,
) -> Result<&'s PointDef, Failure> {
    if let Some(point) = schema.point(name) {
        return Ok(point);
    }
    let failure = Failure::new(format!(
        "unknown point `{name}` in the `{}` schema",
        schema.name
    ));
    let except = if custom { "" } else { schema.name.as_str() };
    if let Some(other) = builtin_schema_with_point(name, except) {
        return Err(failure.help(format!(
            "`{name}` is a point of the `{other}` schema: run `hookc schema {other} --point {name}`"
        )));
    }
    let names = || schema.points.iter().map(|p| p.name.as_str());
    Err(
        match suggest(name, names()).or_else(|| suggest_ignoring_case(name, names())) {
            Some(s) => failure.help(format!("did you mean `{s}`?")),
            None => failure.help(format!("run `hookc schema {given}` for its points")),
        },
    )
}

/// What is shown of a schema.
struct Shown<'a> {
    schema: &'a Schema,
    /// The schema file, for a custom schema.
    file: Option<&'a str>,
    /// The points shown, in the schema's order.
    points: Vec<&'a PointDef>,
    /// True with `--point`: the schema's own summary is left out.
    one_point: bool,
}

// -- the list of built-in schemas ------------------------------------------------

/// One built-in schema in the list.
#[derive(Serialize)]
struct Listed {
    name: &'static str,
    doc: String,
    points: usize,
}

fn list(format: SchemaFormat) -> Result<String, Failure> {
    let listed: Vec<Listed> = BUILTIN_SCHEMAS
        .iter()
        .filter_map(|&name| {
            builtin_schema(name).map(|s| Listed {
                name,
                doc: s.doc,
                points: s.points.len(),
            })
        })
        .collect();
    Ok(match format {
        SchemaFormat::Json => pretty_json(&serde_json::json!({ "schemas": listed }))?,
        SchemaFormat::Human => {
            let width = listed.iter().map(|l| l.name.len()).max().unwrap_or(0);
            let mut out = String::from("built-in schemas (`schema NAME` in a `.hooks` file):\n");
            for l in &listed {
                out.push_str(&format!(
                    "  {:<width$}  {:>2} points  {}\n",
                    l.name, l.points, l.doc
                ));
            }
            out.push_str(
                "\na custom schema is a TOML file (`schema \"app.schema.toml\"`)\n\
                 run `hookc schema NAME` (or `hookc schema FILE`) for the points and fields of one\n",
            );
            out
        }
        SchemaFormat::Markdown => {
            let mut out = String::from("| schema | points | description |\n|---|---|---|\n");
            for l in &listed {
                out.push_str(&format!(
                    "| `{}` | {} | {} |\n",
                    l.name,
                    l.points,
                    cell(&l.doc)
                ));
            }
            out
        }
    })
}

// -- JSON ------------------------------------------------------------------------

/// The JSON document of one schema (see the module docs).
#[derive(Serialize)]
struct SchemaJson<'a> {
    schema: &'a str,
    file: Option<&'a str>,
    doc: &'a str,
    command_input: CommandInput,
    points: Vec<PointJson<'a>>,
    context: Vec<ContextJson>,
}

#[derive(Serialize)]
struct PointJson<'a> {
    name: &'a str,
    kind: PointKind,
    blocking: bool,
    doc: &'a str,
    edits: Option<EditsJson>,
    fields: Vec<FieldJson>,
    outputs: Vec<OutputJson<'a>>,
}

#[derive(Serialize)]
struct EditsJson {
    mode: &'static str,
    text: String,
    field: Option<String>,
}

#[derive(Serialize)]
struct FieldJson {
    path: String,
    #[serde(rename = "type")]
    ty: &'static str,
    optional: bool,
    open: bool,
}

#[derive(Serialize)]
struct OutputJson<'a> {
    name: &'a str,
    #[serde(rename = "type")]
    ty: &'static str,
    optional: bool,
}

#[derive(Serialize)]
struct ContextJson {
    path: &'static str,
    #[serde(rename = "type")]
    ty: &'static str,
    doc: &'static str,
}

fn json<'a>(shown: &Shown<'a>) -> SchemaJson<'a> {
    SchemaJson {
        schema: &shown.schema.name,
        file: shown.file,
        doc: &shown.schema.doc,
        command_input: shown.schema.command_input,
        points: shown
            .points
            .iter()
            .map(|point| PointJson {
                name: &point.name,
                kind: point.kind,
                blocking: point.blocking,
                doc: &point.doc,
                edits: edits(&point.edits).map(|(mode, text, field)| EditsJson {
                    mode,
                    text,
                    field,
                }),
                fields: point
                    .payload
                    .iter()
                    .map(|f| FieldJson {
                        path: payload_path(f),
                        ty: f.ty.as_str(),
                        optional: f.optional,
                        open: point.is_open(f),
                    })
                    .collect(),
                outputs: point
                    .outputs
                    .iter()
                    .map(|o| OutputJson {
                        name: &o.path,
                        ty: o.ty.as_str(),
                        optional: o.optional,
                    })
                    .collect(),
            })
            .collect(),
        context: crate::schema::CONTEXT_FIELDS
            .iter()
            .map(|&(path, ty, doc)| ContextJson {
                path,
                ty: ty.as_str(),
                doc,
            })
            .collect(),
    }
}

/// How the host applies edits at a point: mode, the edited path and the
/// path it stands for; `None` when the next rule sees the edit as made.
pub(super) fn edits(edits: &EditApplication) -> Option<(&'static str, String, Option<String>)> {
    let path = |p: &str| format!("payload.{p}");
    match edits {
        EditApplication::AsEdited => None,
        EditApplication::Mirror { text, field } => Some(("mirror", path(text), Some(path(field)))),
        EditApplication::Json { text, field } => Some(("json", path(text), Some(path(field)))),
        EditApplication::Ignore { text } => Some(("ignore", path(text), None)),
    }
}

/// The edits of a point in a sentence, `None` when there is nothing to say.
fn edits_sentence(application: &EditApplication) -> Option<String> {
    let (mode, text, field) = edits(application)?;
    let field = field.unwrap_or_default();
    Some(match mode {
        "mirror" => format!("an edit of `{text}` is copied to `{field}`, and one of `{field}` to `{text}`"),
        "json" => format!("an edit of `{text}` is parsed as JSON into `{field}` (text that is not JSON is dropped)"),
        _ => format!("an edit of `{text}` is not applied"),
    })
}

/// A payload field as rules write it.
fn payload_path(field: &FieldDef) -> String {
    format!("payload.{}", field.path)
}

// -- human -----------------------------------------------------------------------

/// `pre, can block`.
fn kind_text(point: &PointDef) -> String {
    let blocks = if point.blocking {
        "can block"
    } else {
        "cannot block"
    };
    format!("{}, {blocks}", point.kind)
}

/// A type as shown: the schema-file syntax (`int?`), and `(open)` for an
/// object that accepts fields it does not declare.
fn type_text(point: &PointDef, field: &FieldDef) -> String {
    let open = field.ty == crate::schema::FieldType::Object && point.is_open(field);
    format!("{}{}", field.type_text(), if open { " (open)" } else { "" })
}

/// Text on one line: runs of white space (line breaks too) become one space.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Rows of two or three columns, the first ones padded to their widest.
fn table(out: &mut String, indent: &str, rows: &[(String, String, String)]) {
    let first = rows.iter().map(|r| r.0.chars().count()).max().unwrap_or(0);
    let second = rows.iter().map(|r| r.1.chars().count()).max().unwrap_or(0);
    for (a, b, c) in rows {
        let line = if c.is_empty() {
            format!("{indent}{a:<first$}  {b}")
        } else {
            format!("{indent}{a:<first$}  {b:<second$}  {c}")
        };
        out.push_str(line.trim_end());
        out.push('\n');
    }
}

fn human(shown: &Shown<'_>) -> String {
    let schema = shown.schema;
    let mut out = String::new();
    let title = match shown.file {
        Some(file) => format!("schema `{}` (from `{file}`)", schema.name),
        None => format!("schema `{}`", schema.name),
    };
    if shown.one_point {
        out.push_str(&format!("{title}\n\n"));
    } else {
        match one_line(&schema.doc).as_str() {
            "" => out.push_str(&format!("{title}\n")),
            doc => out.push_str(&format!("{title}: {doc}\n")),
        }
        let input = match schema.command_input {
            CommandInput::Context => "the whole hook context",
            CommandInput::Payload => "the payload",
        };
        out.push_str(&format!(
            "{}; commands (`exec`, `sh`) read {input} on stdin\n\n",
            super::plural(schema.points.len(), "point", "points")
        ));
    }
    for point in &shown.points {
        out.push_str(&format!("{}  {}\n", point.name, kind_text(point)));
        let doc = one_line(&point.doc);
        if !doc.is_empty() {
            out.push_str(&format!("  {doc}\n"));
        }
        if let Some(sentence) = edits_sentence(&point.edits) {
            out.push_str(&format!("  edits: {sentence}\n"));
        }
        if point.payload.is_empty() {
            out.push_str("  payload: not declared (every field is accepted)\n");
        } else {
            let rows: Vec<_> = point
                .payload
                .iter()
                .map(|f| (payload_path(f), type_text(point, f), String::new()))
                .collect();
            table(&mut out, "  ", &rows);
        }
        if !point.outputs.is_empty() {
            out.push_str("  outputs (`output NAME = value`):\n");
            let rows: Vec<_> = point
                .outputs
                .iter()
                .map(|o| (o.path.clone(), o.type_text(), String::new()))
                .collect();
            table(&mut out, "    ", &rows);
        }
        out.push('\n');
    }
    out.push_str("every point also has the fields of the hook context:\n");
    let rows: Vec<_> = crate::schema::CONTEXT_FIELDS
        .iter()
        .map(|&(path, ty, doc)| (path.to_string(), ty.to_string(), doc.to_string()))
        .collect();
    table(&mut out, "  ", &rows);
    out
}

// -- Markdown --------------------------------------------------------------------

/// Text fit for a table cell: on one line, `|` escaped.
fn cell(text: &str) -> String {
    one_line(text).replace('|', "\\|")
}

/// Code in a table cell: backticks around the text, `|` escaped.
fn code(text: &str) -> String {
    format!("`{}`", cell(text))
}

fn markdown(shown: &Shown<'_>) -> String {
    let schema = shown.schema;
    let mut out = String::new();
    if !shown.one_point {
        out.push_str(&format!("# Schema `{}`\n\n", schema.name));
        if let Some(file) = shown.file {
            out.push_str(&format!("From `{}`.\n\n", one_line(file)));
        }
        let doc = one_line(&schema.doc);
        if !doc.is_empty() {
            out.push_str(&format!("{doc}\n\n"));
        }
        out.push_str("| point | kind | blocks | description |\n|---|---|---|---|\n");
        for point in &shown.points {
            out.push_str(&format!(
                "| {} | {} | {} | {} |\n",
                code(&point.name),
                point.kind,
                if point.blocking { "yes" } else { "no" },
                cell(&point.doc)
            ));
        }
        out.push('\n');
    }
    for point in &shown.points {
        out.push_str(&format!("## `{}`\n\n", one_line(&point.name)));
        let doc = one_line(&point.doc);
        if !doc.is_empty() {
            out.push_str(&format!("{doc}\n\n"));
        }
        out.push_str(&format!(
            "Kind: {}; {}.\n\n",
            point.kind,
            if point.blocking {
                "can block"
            } else {
                "cannot block"
            }
        ));
        if let Some(sentence) = edits_sentence(&point.edits) {
            out.push_str(&format!("Edits: {sentence}.\n\n"));
        }
        if point.payload.is_empty() {
            out.push_str("The payload is not declared: every field is accepted.\n\n");
        } else {
            out.push_str("| field | type |\n|---|---|\n");
            for f in &point.payload {
                out.push_str(&format!(
                    "| {} | {} |\n",
                    code(&payload_path(f)),
                    code(&type_text(point, f))
                ));
            }
            out.push('\n');
        }
        if !point.outputs.is_empty() {
            out.push_str("| output | type |\n|---|---|\n");
            for o in &point.outputs {
                out.push_str(&format!(
                    "| {} | {} |\n",
                    code(&o.path),
                    code(&o.type_text())
                ));
            }
            out.push('\n');
        }
    }
    out.push_str("## Context fields\n\nEvery point has these fields of the hook context.\n\n");
    out.push_str("| field | type | description |\n|---|---|---|\n");
    for &(path, ty, doc) in crate::schema::CONTEXT_FIELDS {
        out.push_str(&format!("| `{path}` | `{ty}` | {} |\n", cell(doc)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_stay_in_their_column() {
        assert_eq!(cell("a | b\n  c"), "a \\| b c");
        assert_eq!(code("x|y"), "`x\\|y`");
    }

    #[test]
    fn columns_are_padded_to_the_widest() {
        let mut out = String::new();
        let row = |a: &str, b: &str, c: &str| (a.to_string(), b.to_string(), c.to_string());
        table(
            &mut out,
            "  ",
            &[row("a", "string", "x"), row("long.path", "int", "")],
        );
        assert_eq!(out, "  a          string  x\n  long.path  int\n");
    }

    #[test]
    fn edits_read_as_the_host_applies_them() {
        let json = EditApplication::Json {
            text: "content".into(),
            field: "parameters".into(),
        };
        assert_eq!(
            edits(&json),
            Some((
                "json",
                "payload.content".to_string(),
                Some("payload.parameters".to_string())
            ))
        );
        assert_eq!(edits(&EditApplication::AsEdited), None);
        assert_eq!(
            edits_sentence(&EditApplication::Ignore {
                text: "content".into()
            })
            .as_deref(),
            Some("an edit of `payload.content` is not applied")
        );
    }
}
