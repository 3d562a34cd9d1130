//! Hook-point catalogs: which points exist, their kind, and the types of the
//! context fields rules can read.
//!
//! The built-in `orcs` schema has the 25 points of the ORCS lifecycle as the
//! public [`HookPoint`] enum. A [`Schema`] is the checker's view of a catalog:
//! point names with their [`PointKind`] and typed fields.

mod orcs;

pub use orcs::HookPoint;

use serde::{Deserialize, Serialize};
use std::fmt;

/// What a point lets rules do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PointKind {
    /// Before an operation: rules may abort, skip or edit its input.
    Pre,
    /// After an operation: rules may also replace its result.
    Post,
    /// A notification: rules observe (abort and skip still end the chain).
    Event,
}

impl fmt::Display for PointKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PointKind::Pre => "pre",
            PointKind::Post => "post",
            PointKind::Event => "event",
        })
    }
}

/// The type of a context field, as far as the schema knows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FieldType {
    /// A string.
    String,
    /// An integer.
    Int,
    /// A float (integers also fit).
    Float,
    /// `true` or `false`.
    Bool,
    /// A JSON array.
    List,
    /// A JSON object.
    Object,
    /// Anything; not checked.
    Any,
}

impl FieldType {
    /// The name used in messages.
    pub fn as_str(self) -> &'static str {
        match self {
            FieldType::String => "string",
            FieldType::Int => "int",
            FieldType::Float => "float",
            FieldType::Bool => "bool",
            FieldType::List => "list",
            FieldType::Object => "object",
            FieldType::Any => "any",
        }
    }

    /// True for `int` and `float`.
    pub fn is_number(self) -> bool {
        matches!(self, FieldType::Int | FieldType::Float)
    }
}

impl fmt::Display for FieldType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One point of a schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PointDef {
    /// The dotted name, e.g. `tool.pre_execute`.
    pub name: String,
    /// Pre, post or event.
    pub kind: PointKind,
    /// Known payload fields: dotted path below `payload` and its type.
    pub payload: Vec<(String, FieldType)>,
}

/// A catalog of hook points, as the checker sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schema {
    /// The schema's name (`orcs`, …).
    pub name: String,
    /// Its points.
    pub points: Vec<PointDef>,
}

impl Schema {
    /// The built-in schema called `name`, if there is one.
    pub fn builtin(name: &str) -> Option<Schema> {
        match name {
            "orcs" => Some(orcs::schema()),
            _ => None,
        }
    }

    /// Names of the built-in schemas.
    pub const BUILTIN: &'static [&'static str] = &["orcs"];

    /// The point called `name`.
    pub fn point(&self, name: &str) -> Option<&PointDef> {
        self.points.iter().find(|p| p.name == name)
    }

    /// The type of a field of the context at `point`: `root` is the first
    /// name of the path, `rest` the dotted fields below it (empty for the
    /// root itself). `None` when the schema does not know the field.
    pub fn field_type(&self, point: &str, root: &str, rest: &[&str]) -> Option<FieldType> {
        match (root, rest) {
            ("component" | "child" | "instance" | "channel" | "point", []) => {
                Some(FieldType::String)
            }
            ("depth" | "max_depth" | "timestamp_ms", []) => Some(FieldType::Int),
            ("principal", []) => Some(FieldType::Object),
            ("principal", ["type" | "id"]) => Some(FieldType::String),
            ("metadata", []) | ("payload", []) => Some(FieldType::Object),
            ("payload", rest) => {
                let joined = rest.join(".");
                self.point(point)?
                    .payload
                    .iter()
                    .find(|(name, _)| *name == joined)
                    .map(|(_, ty)| *ty)
            }
            _ => None,
        }
    }
}
