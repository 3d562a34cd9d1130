//! Custom schemas, written in TOML.
//!
//! A `.hooks` file names one with `schema "app.schema.toml"`; the path is
//! relative to that file. The format:
//!
//! ```toml
//! name = "app"                      # the schema's name (default: the file name)
//! description = "…"                 # optional: what the schema is for
//! command-input = "context"         # what `exec`/`sh` read on stdin: the whole
//!                                   # hook context (default), or "payload"
//! component-scope = "app"           # optional: the scope of every component
//!                                   # (`app::worker`), for help on `at worker`
//!
//! [[points]]
//! name = "job.pre_run"              # how rules name the point
//! kind = "pre"                      # pre | post | event
//! blocking = true                   # optional; default true for pre and post,
//!                                   # false for event
//! description = "…"                 # optional: what the point is
//!                                   # (`hookc schema` shows both)
//!
//! [points.fields]                   # payload fields: dotted path = type
//! "job" = "object"
//! "job.id" = "string"
//! "job.retries" = "int?"            # `?`: events may lack it
//! "job.labels" = "list?"
//! "job.env" = "any"                 # anything below `job.env` is accepted
//!
//! [points.outputs]                  # fields of the host's answer rules set
//! "banner" = "string"               # with `output banner = "…"`
//! ```
//!
//! Types are `string`, `path` (a file name, read lexically normalized: see
//! [`crate::paths`]), `int`, `float`, `bool`, `list`, `object` and `any`;
//! a trailing `?` makes the field optional. Paths are below `payload` (write
//! `"job.id"`, not `"payload.job.id"`). A parent that is not declared is an
//! `object`. An `object` with declared fields is closed: rules reading a field
//! it does not declare get an `unknown-field` warning. An `object` without
//! declared fields, a `list` and an `any` field are open. A point without
//! `fields` accepts every payload field.
//!
//! Point names follow the `.hooks` point syntax: dot-separated names of
//! letters, digits and `_`, each starting with a letter or `_`.
//!
//! Every problem is a diagnostic that points into the TOML file (its line
//! and column) with a help line; [`parse`] returns them all.

use super::{CommandInput, EditApplication, FieldDef, FieldType, PointDef, PointKind, Schema};
use crate::diag::{Diagnostic, Diagnostics};
use crate::span::{SourceFile, Span};
use serde::Deserialize;
use std::collections::BTreeMap;
use toml::Spanned;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileDe {
    name: Option<Spanned<String>>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    points: Vec<Spanned<PointDe>>,
    #[serde(default, rename = "command-input")]
    command_input: CommandInput,
    #[serde(default, rename = "component-scope")]
    component_scope: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PointDe {
    name: Spanned<String>,
    kind: Spanned<String>,
    blocking: Option<bool>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    fields: BTreeMap<Spanned<String>, Spanned<String>>,
    #[serde(default)]
    outputs: BTreeMap<Spanned<String>, Spanned<String>>,
}

const FORMAT_HELP: &str = "a schema file has `name = \"…\"` and `[[points]]` tables with `name`, \
`kind` (pre, post or event) and `[points.fields]` of `\"path\" = \"type\"`";

/// Parses a TOML schema. `source` is the file (its name is used in
/// diagnostics and as the default schema name).
///
/// # Errors
///
/// Every problem found, each pointing into `source`.
pub fn parse(source: &SourceFile) -> Result<Schema, Diagnostics> {
    let mut diagnostics = Diagnostics::new();
    let error = |code: &'static str, message: String, span: std::ops::Range<usize>, label: &str| {
        Diagnostic::error(code, message)
            .in_file(source)
            .with_primary(Span::new(span.start, span.end), label)
    };
    let unknown_type = |ty: &Spanned<String>| {
        let d = error(
            "invalid-schema",
            format!("unknown field type `{}`", ty.get_ref()),
            ty.span(),
            "not a type",
        );
        type_help(d, ty)
    };
    let file: FileDe = match toml::from_str(&source.text) {
        Ok(file) => file,
        Err(e) => {
            let span = e.span().unwrap_or(0..0);
            let message = e.message().trim().trim_end_matches('.');
            let mut d = error(
                "invalid-schema",
                format!("invalid schema file: {}", lowercase_first(message)),
                span,
                "here",
            );
            d = d.with_help(FORMAT_HELP);
            diagnostics.push(d);
            return Err(diagnostics);
        }
    };
    let name = match &file.name {
        Some(name) if name.get_ref().trim().is_empty() => {
            diagnostics.push(
                error(
                    "invalid-schema",
                    "the schema's name is empty".to_string(),
                    name.span(),
                    "empty",
                )
                .with_help("name it, e.g. `name = \"app\"`"),
            );
            String::new()
        }
        Some(name) => name.get_ref().clone(),
        None => default_name(&source.name),
    };
    if file.points.is_empty() {
        diagnostics.push(
            error(
                "invalid-schema",
                format!("schema `{name}` has no points"),
                file.name.as_ref().map_or(0..0, Spanned::span),
                "declared here",
            )
            .with_help(
                "add a point: `[[points]]` with `name = \"job.pre_run\"` and `kind = \"pre\"`",
            ),
        );
    }
    let mut points: Vec<PointDef> = Vec::new();
    let mut spans: Vec<std::ops::Range<usize>> = Vec::new();
    for point in &file.points {
        let point = point.get_ref();
        let point_name = point.name.get_ref();
        if !valid_point_name(point_name) {
            diagnostics.push(
                error(
                    "invalid-schema",
                    format!("invalid point name `{point_name}`"),
                    point.name.span(),
                    "not a point name",
                )
                .with_help(
                    "point names are dot-separated names of letters, digits and `_`, e.g. `job.pre_run`",
                ),
            );
        }
        if let Some(first) = points
            .iter()
            .zip(&spans)
            .find(|(p, _)| p.name == *point_name)
            .map(|(_, s)| s.clone())
        {
            diagnostics.push(
                error(
                    "invalid-schema",
                    format!("point `{point_name}` is declared twice"),
                    point.name.span(),
                    "declared again here",
                )
                .with_secondary(Span::new(first.start, first.end), "first declared here")
                .with_help("each point is declared once; merge the two `[[points]]` tables"),
            );
            continue;
        }
        let kind = match point.kind.get_ref().as_str() {
            "pre" => PointKind::Pre,
            "post" => PointKind::Post,
            "event" => PointKind::Event,
            other => {
                let mut d = error(
                    "invalid-schema",
                    format!("unknown point kind `{other}`"),
                    point.kind.span(),
                    "not a kind",
                );
                d = match crate::diag::suggest::suggest(other, ["pre", "post", "event"]) {
                    Some(s) => d.with_help(format!(
                        "did you mean `{s}`? kinds are `pre`, `post` and `event`"
                    )),
                    None => d.with_help("kinds are `pre`, `post` and `event`"),
                };
                diagnostics.push(d);
                PointKind::Event
            }
        };
        let mut payload: Vec<FieldDef> = Vec::new();
        for (path, ty) in &point.fields {
            let path_text = path.get_ref();
            let segments: Vec<&str> = path_text.split('.').collect();
            if segments.iter().any(|s| s.is_empty()) {
                diagnostics.push(
                    error(
                        "invalid-schema",
                        format!("invalid field path `{path_text}`"),
                        path.span(),
                        "empty field name",
                    )
                    .with_help(
                        "paths are dot-separated field names below `payload`, e.g. `job.id`",
                    ),
                );
                continue;
            }
            if segments.first() == Some(&"payload") {
                diagnostics.push(
                    error(
                        "invalid-schema",
                        format!("field path `{path_text}` starts with `payload`"),
                        path.span(),
                        "paths are below `payload`",
                    )
                    .with_help(format!(
                        "write `\"{}\"`",
                        segments.get(1..).unwrap_or_default().join(".")
                    )),
                );
                continue;
            }
            let Some(def) = FieldDef::parse(path_text, ty.get_ref()) else {
                diagnostics.push(unknown_type(ty));
                continue;
            };
            payload.push(def);
        }
        let mut outputs = Vec::new();
        for (name, ty) in &point.outputs {
            match FieldDef::parse(name.get_ref(), ty.get_ref()) {
                Some(def) => outputs.push(def),
                None => diagnostics.push(unknown_type(ty)),
            }
        }
        // Parents come first (the map is sorted); declare missing ones as
        // objects, and refuse fields below scalars.
        let mut complete: Vec<FieldDef> = Vec::new();
        for def in payload {
            let segments: Vec<&str> = def.path.split('.').collect();
            let mut bad_parent = None;
            for n in 1..segments.len() {
                let parent = segments.get(..n).unwrap_or_default().join(".");
                match complete.iter().find(|f| f.path == parent) {
                    Some(p) if !matches!(p.ty, FieldType::Object | FieldType::Any) => {
                        bad_parent = Some((parent, p.ty));
                        break;
                    }
                    Some(_) => {}
                    None => complete.push(FieldDef {
                        path: parent,
                        ty: FieldType::Object,
                        optional: def.optional,
                        open: false,
                    }),
                }
            }
            if let Some((parent, ty)) = bad_parent {
                let span = point
                    .fields
                    .keys()
                    .find(|k| *k.get_ref() == def.path)
                    .map_or(0..0, Spanned::span);
                diagnostics.push(
                    error(
                        "invalid-schema",
                        format!("field `{}` is below `{parent}`, which is {ty}", def.path),
                        span,
                        "no fields below a scalar",
                    )
                    .with_help(format!(
                        "declare `{parent}` as `object` (or `any`) to give it fields"
                    )),
                );
                continue;
            }
            complete.push(def);
        }
        let blocking = point.blocking.unwrap_or(kind != PointKind::Event);
        points.push(PointDef {
            name: point_name.clone(),
            doc: point.description.clone().unwrap_or_default(),
            kind,
            blocking,
            payload: complete,
            edits: EditApplication::AsEdited,
            outputs,
        });
        spans.push(point.name.span());
    }
    if diagnostics.has_errors() {
        return Err(diagnostics);
    }
    Ok(Schema {
        name,
        doc: file.description.unwrap_or_default(),
        points,
        command_input: file.command_input,
        component_scope: file.component_scope,
    })
}

/// `app` for `dir/app.schema.toml`.
fn default_name(file: &str) -> String {
    let base = file.rsplit(['/', '\\']).next().unwrap_or(file);
    let base = base.strip_suffix(".toml").unwrap_or(base);
    base.strip_suffix(".schema").unwrap_or(base).to_string()
}

fn valid_point_name(name: &str) -> bool {
    !name.is_empty()
        && name.split('.').all(|part| {
            let mut chars = part.chars();
            chars
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
}

fn lowercase_first(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The help of an unknown field type: the closest name, or the list.
fn type_help(d: Diagnostic, ty: &Spanned<String>) -> Diagnostic {
    let written = ty.get_ref().trim().trim_end_matches('?').trim_end();
    match crate::diag::suggest::suggest(written, FieldType::NAMES) {
        Some(s) => d.with_help(format!("did you mean `{s}`?")),
        None => d.with_help(format!(
            "types are {}; add `?` for an optional field",
            FieldType::NAMES.join(", ")
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::FieldLookup;

    fn parse_str(text: &str) -> Result<Schema, Diagnostics> {
        parse(&SourceFile::new("app.schema.toml", text))
    }

    #[test]
    fn a_component_scope_is_optional() {
        let points = "[[points]]\nname = \"job.pre_run\"\nkind = \"pre\"\n";
        assert_eq!(parse_str(points).unwrap().component_scope, None);
        let scoped = format!("component-scope = \"app\"\n{points}");
        assert_eq!(
            parse_str(&scoped).unwrap().component_scope.as_deref(),
            Some("app")
        );
    }

    #[test]
    fn command_input_is_the_context_unless_the_schema_says_payload() {
        let points = "[[points]]\nname = \"job.pre_run\"\nkind = \"pre\"\n";
        assert_eq!(
            parse_str(points).unwrap().command_input,
            CommandInput::Context
        );
        let payload = format!("command-input = \"payload\"\n{points}");
        assert_eq!(
            parse_str(&payload).unwrap().command_input,
            CommandInput::Payload
        );
        let bad = format!("command-input = \"stdin\"\n{points}");
        let err = parse_str(&bad).unwrap_err().to_string();
        assert!(err.contains("invalid-schema"), "{err}");
    }

    #[test]
    fn a_schema_with_nested_fields() {
        let s = parse_str(
            r#"
            [[points]]
            name = "job.pre_run"
            kind = "pre"
            [points.fields]
            "job.id" = "string"
            "job.retries" = "int?"
            "env" = "any"

            [[points]]
            name = "job.done"
            kind = "event"
            "#,
        )
        .unwrap();
        assert_eq!(s.name, "app");
        let pre = s.point("job.pre_run").unwrap();
        assert!(pre.blocking);
        assert_eq!(pre.kind, PointKind::Pre);
        assert_eq!(
            s.field_type("job.pre_run", "payload", &["job", "retries"]),
            Some(FieldType::Int)
        );
        assert_eq!(
            s.field_type("job.pre_run", "payload", &["job"]),
            Some(FieldType::Object)
        );
        assert_eq!(
            s.payload_field("job.pre_run", &["job", "name"]),
            FieldLookup::Unknown
        );
        assert_eq!(
            s.payload_field("job.pre_run", &["env", "HOME"]),
            FieldLookup::Open
        );
        assert!(!s.point("job.done").unwrap().blocking);
        assert_eq!(s.payload_field("job.done", &["x"]), FieldLookup::Undeclared);
    }

    #[test]
    fn errors_point_into_the_file() {
        let text = "name = \"app\"\n[[points]]\nname = \"a\"\nkind = \"prex\"\n";
        let d = parse_str(text).unwrap_err();
        let d = d.iter().next().unwrap();
        assert_eq!(d.message, "unknown point kind `prex`");
        assert_eq!(d.location(), Some(("app.schema.toml".into(), 4, 8)));
        assert!(d
            .help
            .as_deref()
            .unwrap()
            .starts_with("did you mean `pre`?"));

        let text = "[[points]]\nname = \"a\"\nkind = \"pre\"\n[points.fields]\n\"x\" = \"strng\"\n";
        let d = parse_str(text).unwrap_err();
        let d = d.iter().next().unwrap();
        assert_eq!(d.message, "unknown field type `strng`");
        assert_eq!(d.location(), Some(("app.schema.toml".into(), 5, 7)));

        let text = "[[points]]\nname = \"a\"\nkinds = \"pre\"\n";
        let d = parse_str(text).unwrap_err();
        let d = d.iter().next().unwrap();
        assert!(
            d.message
                .starts_with("invalid schema file: unknown field `kinds`"),
            "{d}"
        );
        assert_eq!(d.location().map(|l| l.1), Some(3));
    }

    #[test]
    fn fields_below_scalars_and_bad_names_are_refused() {
        let text = "[[points]]\nname = \"a b\"\nkind = \"pre\"\n[points.fields]\n\"x\" = \"string\"\n\"x.y\" = \"int\"\n";
        let d = parse_str(text).unwrap_err();
        let messages: Vec<_> = d.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "invalid point name `a b`",
                "field `x.y` is below `x`, which is string"
            ]
        );
    }

    #[test]
    fn default_names() {
        assert_eq!(default_name("dir/app.schema.toml"), "app");
        assert_eq!(default_name("x.toml"), "x");
    }
}
