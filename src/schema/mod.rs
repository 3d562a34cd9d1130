//! Hook-point catalogs: which points exist, their kind, whether they can
//! block, and the types of the context fields rules can read.
//!
//! A [`Schema`] is the checker's view of a catalog: point names with their
//! [`PointKind`], whether rules there can block (`abort`, `deny`, `ask`,
//! `skip`), the typed fields of their payload, and how the host applies an
//! edit before the next rule runs ([`EditApplication`], which the compiler
//! records per point for dispatch). There are three built-in
//! catalogs and custom ones:
//!
//! - `orcs` (the default): the 25 points of the ORCS lifecycle, also the
//!   public [`HookPoint`](crate::HookPoint) enum. Every ORCS point can block.
//! - `claude-code`: every Claude Code hook event (`PreToolUse`,
//!   `UserPromptSubmit`, `Stop`, …) with the fields of its input JSON under
//!   `payload` (see [`claude_code`](crate::systems::claude_code::schema)).
//! - `ironclaw`: IronClaw's six hook points, the event's primary content as
//!   `payload.content` (see [`ironclaw`](crate::systems::ironclaw::schema)).
//! - custom schemas in TOML, `schema "app.schema.toml"` (see
//!   `custom` for the format).

#[cfg(feature = "compiler")]
pub mod custom;

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
    /// A string that names a file: rules read it lexically normalized
    /// (`a/../b` is `b`; see [`crate::paths`]).
    Path,
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
            FieldType::Path => "path",
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

    /// The type called `name` (`string`, `int`, …).
    pub fn from_name(name: &str) -> Option<FieldType> {
        Some(match name {
            "string" => FieldType::String,
            "path" => FieldType::Path,
            "int" => FieldType::Int,
            "float" => FieldType::Float,
            "bool" => FieldType::Bool,
            "list" => FieldType::List,
            "object" => FieldType::Object,
            "any" => FieldType::Any,
            _ => return None,
        })
    }

    /// The names [`from_name`](Self::from_name) accepts.
    pub const NAMES: [&'static str; 8] = [
        "string", "path", "int", "float", "bool", "list", "object", "any",
    ];

    /// True for `string` and `path`: a string value.
    pub fn is_string(self) -> bool {
        matches!(self, FieldType::String | FieldType::Path)
    }
}

impl fmt::Display for FieldType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One typed payload field of a point.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldDef {
    /// The dotted path below `payload`, e.g. `tool_input.command`.
    pub path: String,
    /// Its type.
    pub ty: FieldType,
    /// True when events may lack the field (`string?` in a schema file).
    pub optional: bool,
    /// For objects: true when fields the schema does not declare may be
    /// there too. `any` fields and objects with no declared fields are open
    /// in any case.
    pub open: bool,
}

impl FieldDef {
    /// A field from a path and a type as written in schema files: a type
    /// name, `?` for optional (`"int?"`).
    pub fn parse(path: &str, ty: &str) -> Option<FieldDef> {
        let (name, optional) = match ty.trim().strip_suffix('?') {
            Some(name) => (name.trim_end(), true),
            None => (ty.trim(), false),
        };
        Some(FieldDef {
            path: path.to_string(),
            ty: FieldType::from_name(name)?,
            optional,
            open: false,
        })
    }

    /// The type as written in schema files, e.g. `int?`.
    pub fn type_text(&self) -> String {
        format!("{}{}", self.ty, if self.optional { "?" } else { "" })
    }
}

/// How the host applies a rule's edit of the event before the next rule
/// runs at a point: what the next rule sees.
///
/// Most hosts hand the next rule the event as the rule left it
/// ([`AsEdited`](Self::AsEdited)). Some keep the event in their own shape
/// and show rules a view of it: IronClaw's rules see one *primary content*
/// string, and IronClaw's host applies an edit of it to the event between
/// hooks (`HookEvent::apply_modification`), parsing a tool call's content
/// back into its parameters and ignoring edits of session events. Such a
/// schema says so per point, the compiler records it in the point's
/// program, and dispatch applies it after every rule (and native hook)
/// that edited the event, so the next rule, and the host at the end, see
/// what the host would.
///
/// Paths are dotted, below `payload` (`content`, `tool_input.command`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EditApplication {
    /// The next rule sees the event as the rule left it.
    #[default]
    AsEdited,
    /// `payload.<text>` and `payload.<field>` are one value shown twice
    /// (IronClaw's `transformResponse`: `content` is the `response`): an
    /// edit of either is copied to the other (of both, `text` wins).
    Mirror {
        /// The path rules edit, e.g. `content`.
        text: String,
        /// The path it stands for, e.g. `response`.
        field: String,
    },
    /// `payload.<text>` is `payload.<field>` as JSON text (IronClaw's
    /// `beforeToolCall`: `content` is the `parameters`): an edited text is
    /// parsed into the field and written back as compact JSON with sorted
    /// keys (as IronClaw's host writes it); text that is not JSON is
    /// dropped, with a warning, and the field stays as it was. An edit of
    /// the field rewrites the text.
    Json {
        /// The path rules edit, e.g. `content`.
        text: String,
        /// The value it is the JSON text of, e.g. `parameters`.
        field: String,
    },
    /// `payload.<text>` cannot be edited (IronClaw's session events): an
    /// edit of it is dropped, with a warning. Other fields edit as usual.
    Ignore {
        /// The path rules cannot edit, e.g. `content`.
        text: String,
    },
}

impl EditApplication {
    /// True for [`AsEdited`](Self::AsEdited): nothing to do between rules.
    pub fn is_as_edited(&self) -> bool {
        matches!(self, EditApplication::AsEdited)
    }

    /// The path whose edits are applied, if any.
    pub fn text(&self) -> Option<&str> {
        match self {
            EditApplication::AsEdited => None,
            EditApplication::Mirror { text, .. }
            | EditApplication::Json { text, .. }
            | EditApplication::Ignore { text } => Some(text),
        }
    }
}

/// One point of a schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PointDef {
    /// The name rules use, e.g. `tool.pre_execute` or `PreToolUse`.
    pub name: String,
    /// What the point is, in a sentence or two (`hookc schema` shows it);
    /// empty when the schema says nothing.
    pub doc: String,
    /// Pre, post or event.
    pub kind: PointKind,
    /// True when rules here can block the operation (`abort`/`deny`, `ask`,
    /// `skip`); the checker refuses those actions at points that cannot.
    pub blocking: bool,
    /// Known payload fields, parents before children. Empty: the schema
    /// says nothing about the payload, and every field is accepted.
    pub payload: Vec<FieldDef>,
    /// How the host applies an edit before the next rule runs.
    pub edits: EditApplication,
    /// The fields of the host's answer a rule may set here with `output
    /// NAME = value`, beyond what its outcome says (dotted below an object:
    /// `decision.interrupt`). Empty: none.
    pub outputs: Vec<FieldDef>,
}

impl PointDef {
    /// True when fields `field` does not declare may be below it: an `any`
    /// or a `list`, an `object` marked open, or one with no declared field.
    pub fn is_open(&self, field: &FieldDef) -> bool {
        match field.ty {
            FieldType::Any | FieldType::List => true,
            FieldType::Object => field.open || !self.has_children(field),
            _ => false,
        }
    }

    /// True when the point declares a field below `field`.
    pub fn has_children(&self, field: &FieldDef) -> bool {
        self.payload.iter().any(|f| {
            f.path.len() > field.path.len()
                && f.path.starts_with(field.path.as_str())
                && f.path.as_bytes().get(field.path.len()) == Some(&b'.')
        })
    }
}

/// What a schema says about a payload path at one point.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FieldLookup<'a> {
    /// The point declares no payload fields: anything goes.
    Undeclared,
    /// A declared field.
    Known(&'a FieldDef),
    /// Below an open object, a list or an `any` field: accepted, type unknown.
    Open,
    /// Not declared, and not below an open field.
    Unknown,
}

/// A hook point of a schema, resolved once to a dense id: its position in
/// the schema's list of points, tagged with the schema it belongs to.
///
/// Dispatching by id costs one array index, for every schema alike (the way
/// regex-automata numbers patterns with `PatternID`): a host resolves the
/// points it dispatches once, with [`Table::point_id`](crate::Table::point_id)
/// (or ORCS's [`HookPoint::id`](crate::HookPoint::id)), and keeps the ids.
/// An id stays valid for every table of the same schema, so it outlives a
/// [`Registry`](crate::Registry) reload; on a table of another schema it
/// names no point, and dispatch runs nothing (with a warning logged).
///
/// ```
/// let table = hookc::compile_str(
///     "a.hooks",
///     "schema claude-code\nhook a on PreToolUse { deny \"no\" }",
/// )?
/// .table;
/// let pre = table.point_id("PreToolUse").expect("a point of the schema");
/// assert_eq!(table.point_name(pre), Some("PreToolUse"));
/// // A point of the schema without rules has an id too.
/// assert!(table.point_id("Stop").is_some());
/// assert!(table.point_id("tool.pre_execute").is_none());
/// # Ok::<(), hookc::diag::Diagnostics>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PointId {
    /// The [`fingerprint`] of the schema.
    schema: u32,
    /// The position of the point in the schema.
    slot: u16,
}

impl PointId {
    /// The id of the point at `slot` of the schema whose [`fingerprint`] is
    /// `schema`.
    pub const fn new(schema: u32, slot: u16) -> PointId {
        PointId { schema, slot }
    }

    /// The [`fingerprint`] of the schema the id belongs to.
    pub const fn schema(self) -> u32 {
        self.schema
    }

    /// The point's position in its schema.
    pub const fn slot(self) -> usize {
        self.slot as usize
    }
}

/// A schema's identity for [`PointId`]s: a checksum of its name and its
/// points' names in order. Two schemas with the same fingerprint number
/// their points alike.
pub fn fingerprint<'a>(schema: &str, points: impl IntoIterator<Item = &'a str>) -> u32 {
    let mut hash = crc32fast::Hasher::new();
    hash.update(schema.as_bytes());
    for point in points {
        hash.update(b"\0");
        hash.update(point.as_bytes());
    }
    hash.finalize()
}

/// The fields of the hook context at every point of every schema: path (as
/// rules write it), type and what it is. The payload's own fields are the
/// schema's, per point.
pub const CONTEXT_FIELDS: &[(&str, FieldType, &str)] = &[
    ("point", FieldType::String, "the hook point's name"),
    (
        "component",
        FieldType::String,
        "the component the event is for, `scope::target`",
    ),
    ("child", FieldType::String, "the child id, if any"),
    (
        "instance",
        FieldType::String,
        "the channel instance, if any",
    ),
    ("channel", FieldType::String, "the channel id"),
    ("principal", FieldType::Object, "who initiated the action"),
    (
        "principal.type",
        FieldType::String,
        "the kind of principal (`User`, `Component`, `System`, …)",
    ),
    ("principal.id", FieldType::String, "the principal's id"),
    (
        "timestamp_ms",
        FieldType::Int,
        "when the event happened, in Unix milliseconds",
    ),
    ("depth", FieldType::Int, "the recursion depth of the event"),
    ("max_depth", FieldType::Int, "the recursion limit"),
    (
        "metadata",
        FieldType::Object,
        "a bag of keys shared by the rules of one dispatch",
    ),
    ("payload", FieldType::Object, "the point's own data"),
];

/// A catalog of hook points, as the checker sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schema {
    /// The schema's name (`orcs`, …).
    pub name: String,
    /// What the schema is for, in a sentence; empty when it says nothing.
    pub doc: String,
    /// Its points.
    pub points: Vec<PointDef>,
    /// What a command hook reads on stdin under this schema.
    pub command_input: CommandInput,
    /// The scope of every component the host names, when there is one
    /// (`claude-code` for `claude-code::Bash`): a bare `at Bash` is then
    /// told to write `at claude-code::Bash`. `None` when components come
    /// from several scopes (ORCS's `builtin`, `plugin`, …).
    pub component_scope: Option<String>,
}

/// What a command hook (`exec`, `sh`) reads on stdin: the event in the shape
/// the schema's host gives its own command hooks, so hooks written for that
/// host run unchanged. The compiler records it in the table, so dispatch
/// never asks which schema it runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CommandInput {
    /// The whole hook context as JSON: hookc's own event (ORCS's
    /// `HookContext`).
    #[default]
    Context,
    /// Only its `payload`, for a schema whose payload is the host's event as
    /// it arrived (Claude Code: a command reads `.tool_input.command`, …,
    /// with the edits of earlier rules).
    Payload,
}

impl Schema {
    /// The point called `name`.
    pub fn point(&self, name: &str) -> Option<&PointDef> {
        self.points.iter().find(|p| p.name == name)
    }

    /// The type of a field of the context at `point`: `root` is the first
    /// name of the path, `rest` the dotted fields below it (empty for the
    /// root itself). `None` when the schema does not know the field.
    pub fn field_type(&self, point: &str, root: &str, rest: &[&str]) -> Option<FieldType> {
        if root == "payload" && !rest.is_empty() {
            return match self.payload_field(point, rest) {
                FieldLookup::Known(def) => Some(def.ty),
                _ => None,
            };
        }
        let path = std::iter::once(root).chain(rest.iter().copied());
        CONTEXT_FIELDS
            .iter()
            .find(|(name, _, _)| name.split('.').eq(path.clone()))
            .map(|&(_, ty, _)| ty)
    }

    /// What the schema says about `payload.<rest>` at `point` (`rest` holds
    /// the field names below `payload`; stop at the first index). An unknown
    /// point is [`FieldLookup::Undeclared`].
    pub fn payload_field(&self, point: &str, rest: &[&str]) -> FieldLookup<'_> {
        let Some(def) = self.point(point) else {
            return FieldLookup::Undeclared;
        };
        if def.payload.is_empty() {
            return FieldLookup::Undeclared;
        }
        let find = |n: usize| -> Option<&FieldDef> {
            let prefix = rest.get(..n)?;
            def.payload
                .iter()
                .find(|f| f.path.split('.').eq(prefix.iter().copied()))
        };
        if let Some(found) = find(rest.len()) {
            return FieldLookup::Known(found);
        }
        // The deepest declared ancestor decides.
        for n in (1..rest.len()).rev() {
            let Some(parent) = find(n) else {
                continue;
            };
            return if def.is_open(parent) {
                FieldLookup::Open
            } else {
                FieldLookup::Unknown
            };
        }
        FieldLookup::Unknown
    }

    /// The declared payload paths of `point`, for suggestions.
    pub fn payload_paths(&self, point: &str) -> impl Iterator<Item = &str> {
        self.point(point)
            .into_iter()
            .flat_map(|p| p.payload.iter().map(|f| f.path.as_str()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_fields_have_their_types_at_every_point() {
        let schema = Schema {
            name: "s".into(),
            doc: String::new(),
            points: Vec::new(),
            command_input: CommandInput::Context,
            component_scope: None,
        };
        for (path, ty, _) in CONTEXT_FIELDS {
            let mut names = path.split('.');
            let root = names.next().unwrap_or_default();
            let rest: Vec<&str> = names.collect();
            assert_eq!(schema.field_type("p", root, &rest), Some(*ty), "{path}");
        }
        assert_eq!(schema.field_type("p", "principal", &["name"]), None);
        assert_eq!(schema.field_type("p", "metadata", &["key"]), None);
        assert_eq!(schema.field_type("p", "component", &["x"]), None);
        assert_eq!(schema.field_type("p", "nope", &[]), None);
    }
}
