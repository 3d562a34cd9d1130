//! The built-in `ironclaw` schema: IronClaw's six hook points.
//!
//! Point names are spelt as in IronClaw's hook bundles. Every IronClaw rule
//! works on the event's *primary content*, a string that differs by event,
//! so each point has it as `payload.content`, next to the event's own
//! fields:
//!
//! | point | kind | `payload.content` | other fields |
//! |---|---|---|---|
//! | `beforeInbound` | pre | the message | `user_id`, `channel`, `thread_id` |
//! | `beforeToolCall` | pre | the parameters as JSON text | `tool_name`, `parameters`, `user_id`, `context` |
//! | `beforeOutbound` | pre | the message | `user_id`, `channel`, `thread_id` |
//! | `onSessionStart` | event | the session id | `user_id`, `session_id` |
//! | `onSessionEnd` | event | the session id | `user_id`, `session_id`, `thread_ids` |
//! | `transformResponse` | post | the response | `user_id`, `thread_id`, `response` |
//!
//! # Edits between rules
//!
//! IronClaw's host keeps the event in its own shape and applies a hook's
//! content edit to it before the next hook runs (`apply_modification`);
//! the next hook sees the content drawn from the event again. Dispatch
//! does the same between rules here (see [`EditApplication`]), so the next
//! rule, and the host at the end, see what IronClaw would:
//!
//! | point | an edit of `payload.content` |
//! |---|---|
//! | `beforeInbound`, `beforeOutbound` | is the message: the next rule sees it as edited |
//! | `beforeToolCall` | is parsed as JSON into `payload.parameters`, and the next rule sees `payload.content` as compact JSON of them, keys sorted (as IronClaw writes them); text that is not JSON is dropped, with a warning (IronClaw ignores it too), and the parameters stay as they were; an edit of `payload.parameters` rewrites `payload.content` |
//! | `transformResponse` | is the response: it is copied to `payload.response` (and an edit of `payload.response` to `payload.content`) |
//! | `onSessionStart`, `onSessionEnd` | is not applied (IronClaw's session events have no content to edit): it is dropped, with a warning |
//!
//! A host reads the outcome's `payload.content` (or `parameters`,
//! `response`) as IronClaw reads the last hook's modification.
//! `hookc import ironclaw` writes rules for this schema.

use crate::schema::{CommandInput, EditApplication, FieldDef, PointDef, PointKind, Schema};

/// The schema's name, as `schema ironclaw` names it.
pub const NAME: &str = "ironclaw";

/// What the schema is, as `hookc schema` says it.
const DOC: &str =
    "IronClaw's six hook points, each with the event's primary content as `payload.content`";

/// Fields as `(path, type)`, the type in the schema-file syntax.
type Fields = &'static [(&'static str, &'static str)];

/// The fields of a message going in or out.
const MESSAGE: Fields = &[
    ("content", "string"),
    ("user_id", "string"),
    ("channel", "string"),
    ("thread_id", "string?"),
];

/// How IronClaw's host applies an edit of `content` at a point.
#[derive(Clone, Copy)]
enum Content {
    /// `content` is the event's own text.
    Text,
    /// `content` stands for this text field.
    MirrorOf(&'static str),
    /// `content` is this field as JSON text.
    JsonOf(&'static str),
    /// `content` cannot be edited.
    Fixed,
}

impl Content {
    fn edits(self) -> EditApplication {
        let text = "content".to_string();
        match self {
            Content::Text => EditApplication::AsEdited,
            Content::MirrorOf(field) => EditApplication::Mirror {
                text,
                field: field.to_string(),
            },
            Content::JsonOf(field) => EditApplication::Json {
                text,
                field: field.to_string(),
            },
            Content::Fixed => EditApplication::Ignore { text },
        }
    }
}

/// The points: name, kind, whether rules there can block, how an edit of
/// `content` is applied, fields, and what the point is.
const POINTS: &[(&str, PointKind, bool, Content, Fields, &str)] = &[
    (
        "beforeInbound",
        PointKind::Pre,
        true,
        Content::Text,
        MESSAGE,
        "Before an incoming message reaches the agent (`payload.content` is the message): rules may block or rewrite it.",
    ),
    (
        "beforeToolCall",
        PointKind::Pre,
        true,
        Content::JsonOf("parameters"),
        &[
            ("content", "string"),
            ("tool_name", "string"),
            ("parameters", "any"),
            ("user_id", "string"),
            ("context", "string"),
        ],
        "Before a tool call runs (`payload.content` is its parameters as JSON text): rules may block it or edit the parameters.",
    ),
    (
        "beforeOutbound",
        PointKind::Pre,
        true,
        Content::Text,
        MESSAGE,
        "Before a message goes out (`payload.content` is the message): rules may block or rewrite it.",
    ),
    (
        "onSessionStart",
        PointKind::Event,
        true,
        Content::Fixed,
        &[
            ("content", "string"),
            ("user_id", "string"),
            ("session_id", "string"),
        ],
        "When a session starts (`payload.content` is the session id).",
    ),
    (
        "onSessionEnd",
        PointKind::Event,
        true,
        Content::Fixed,
        &[
            ("content", "string"),
            ("user_id", "string"),
            ("session_id", "string"),
            ("thread_ids", "list?"),
        ],
        "When a session ends (`payload.content` is the session id).",
    ),
    (
        "transformResponse",
        PointKind::Post,
        true,
        Content::MirrorOf("response"),
        &[
            ("content", "string"),
            ("user_id", "string"),
            ("thread_id", "string"),
            ("response", "string"),
        ],
        "After the agent produced a response (`payload.content` is the response): rules may rewrite it.",
    ),
];

/// The names of the points, in the schema's order.
pub fn point_names() -> impl Iterator<Item = &'static str> {
    POINTS.iter().map(|p| p.0)
}

/// The `ironclaw` schema.
pub fn schema() -> Schema {
    let points = POINTS
        .iter()
        .map(|&(name, kind, blocking, content, fields, doc)| PointDef {
            name: name.to_string(),
            doc: doc.to_string(),
            kind,
            blocking,
            payload: fields
                .iter()
                .filter_map(|(path, ty)| FieldDef::parse(path, ty))
                .collect(),
            edits: content.edits(),
            outputs: Vec::new(),
        })
        .collect();
    Schema {
        name: NAME.to_string(),
        doc: DOC.to_string(),
        points,
        command_input: CommandInput::Context,
        component_scope: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_point_and_field_is_there() {
        let schema = schema();
        let names: Vec<&str> = schema.points.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "beforeInbound",
                "beforeToolCall",
                "beforeOutbound",
                "onSessionStart",
                "onSessionEnd",
                "transformResponse"
            ]
        );
        // Every declared type parses: no field is dropped.
        let declared: usize = POINTS.iter().map(|p| p.4.len()).sum();
        let parsed: usize = schema.points.iter().map(|p| p.payload.len()).sum();
        assert_eq!(parsed, declared);
        assert!(schema
            .points
            .iter()
            .all(|p| p.payload.iter().any(|f| f.path == "content")));
    }

    #[test]
    fn edits_are_applied_as_ironclaws_host_applies_them() {
        let schema = schema();
        let edits = |point: &str| schema.point(point).map(|p| p.edits.clone());
        assert_eq!(edits("beforeInbound"), Some(EditApplication::AsEdited));
        assert_eq!(edits("beforeOutbound"), Some(EditApplication::AsEdited));
        assert_eq!(
            edits("beforeToolCall"),
            Some(EditApplication::Json {
                text: "content".into(),
                field: "parameters".into()
            })
        );
        assert_eq!(
            edits("transformResponse"),
            Some(EditApplication::Mirror {
                text: "content".into(),
                field: "response".into()
            })
        );
        for point in ["onSessionStart", "onSessionEnd"] {
            assert_eq!(
                edits(point),
                Some(EditApplication::Ignore {
                    text: "content".into()
                })
            );
        }
        // Every path named is a declared field of its point.
        for point in &schema.points {
            let paths = match &point.edits {
                EditApplication::AsEdited => vec![],
                EditApplication::Mirror { text, field } | EditApplication::Json { text, field } => {
                    vec![text, field]
                }
                EditApplication::Ignore { text } => vec![text],
            };
            for path in paths {
                assert!(
                    point.payload.iter().any(|f| &f.path == path),
                    "{}: {path}",
                    point.name
                );
            }
        }
    }
}
