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
//! A host applies an edited `content` as IronClaw does: for a tool call it
//! is parsed back as JSON. `hookc import ironclaw` writes rules for this
//! schema.

use super::{FieldDef, PointDef, PointKind, Schema};

/// The schema's name, as `schema ironclaw` names it.
pub const NAME: &str = "ironclaw";

/// Fields as `(path, type)`, the type in the schema-file syntax.
type Fields = &'static [(&'static str, &'static str)];

/// The fields of a message going in or out.
const MESSAGE: Fields = &[
    ("content", "string"),
    ("user_id", "string"),
    ("channel", "string"),
    ("thread_id", "string?"),
];

/// The points: name, kind, whether rules there can block, fields.
const POINTS: &[(&str, PointKind, bool, Fields)] = &[
    ("beforeInbound", PointKind::Pre, true, MESSAGE),
    (
        "beforeToolCall",
        PointKind::Pre,
        true,
        &[
            ("content", "string"),
            ("tool_name", "string"),
            ("parameters", "any"),
            ("user_id", "string"),
            ("context", "string"),
        ],
    ),
    ("beforeOutbound", PointKind::Pre, true, MESSAGE),
    (
        "onSessionStart",
        PointKind::Event,
        true,
        &[
            ("content", "string"),
            ("user_id", "string"),
            ("session_id", "string"),
        ],
    ),
    (
        "onSessionEnd",
        PointKind::Event,
        true,
        &[
            ("content", "string"),
            ("user_id", "string"),
            ("session_id", "string"),
            ("thread_ids", "list?"),
        ],
    ),
    (
        "transformResponse",
        PointKind::Post,
        true,
        &[
            ("content", "string"),
            ("user_id", "string"),
            ("thread_id", "string"),
            ("response", "string"),
        ],
    ),
];

/// The `ironclaw` schema.
pub fn schema() -> Schema {
    let points = POINTS
        .iter()
        .map(|&(name, kind, blocking, fields)| PointDef {
            name: name.to_string(),
            kind,
            blocking,
            payload: fields
                .iter()
                .filter_map(|(path, ty)| FieldDef::parse(path, ty))
                .collect(),
        })
        .collect();
    Schema {
        name: NAME.to_string(),
        points,
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
        let declared: usize = POINTS.iter().map(|p| p.3.len()).sum();
        let parsed: usize = schema.points.iter().map(|p| p.payload.len()).sum();
        assert_eq!(parsed, declared);
        assert!(schema
            .points
            .iter()
            .all(|p| p.payload.iter().any(|f| f.path == "content")));
    }
}
