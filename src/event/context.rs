//! The hook context: the event a dispatch runs on, and the field access rules
//! use to read and edit it.

use crate::ir::{FieldPath, Root, Segment};
use crate::shell::{Command, Redirect};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::borrow::Cow;

/// Who initiated the action.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Principal {
    /// The kind of principal (`User`, `Component`, `System`, …); `type` in JSON.
    #[serde(rename = "type", default)]
    pub kind: String,
    /// Its id.
    #[serde(default)]
    pub id: String,
}

fn default_max_depth() -> u8 {
    4
}

/// The event a dispatch runs on: ORCS's `HookContext`.
///
/// Rules read it through field paths (`payload.args`, `principal.id`, …) and
/// may edit `payload` and `metadata`. In JSON, `hook_point` and `component_id`
/// are required; every other field has a default.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HookContext {
    /// The hook point's dotted name.
    pub hook_point: String,
    /// The component the call is for, `scope::target`.
    pub component_id: String,
    /// The child id, when the call is made for a child.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub child_id: Option<String>,
    /// The channel instance, when the call names one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance: Option<String>,
    /// The channel where this happens.
    #[serde(default)]
    pub channel_id: String,
    /// Who initiated the action.
    #[serde(default)]
    pub principal: Principal,
    /// Milliseconds since engine start.
    #[serde(default)]
    pub timestamp_ms: u64,
    /// The point's data: input at pre points, result at post points.
    #[serde(default)]
    pub payload: Value,
    /// Cross-hook state, carried from pre to post.
    #[serde(default)]
    pub metadata: Map<String, Value>,
    /// Recursion depth: the host raises it when it dispatches from a handler.
    #[serde(default)]
    pub depth: u8,
    /// Recursion limit (default 4).
    #[serde(default = "default_max_depth")]
    pub max_depth: u8,
}

impl HookContext {
    /// A context for `point` on `component` with a payload; everything else
    /// defaulted (depth 0, max depth 4).
    pub fn new(
        point: impl std::fmt::Display,
        component: impl Into<String>,
        payload: Value,
    ) -> HookContext {
        HookContext {
            hook_point: point.to_string(),
            component_id: component.into(),
            child_id: None,
            instance: None,
            channel_id: String::new(),
            principal: Principal::default(),
            timestamp_ms: 0,
            payload,
            metadata: Map::new(),
            depth: 0,
            max_depth: default_max_depth(),
        }
    }

    /// The hook context of an event's JSON text, read as every hookc entry
    /// point reads events ([`crate::event`]): lone UTF-16 surrogate escapes
    /// as U+FFFD, nesting up to [`crate::event::MAX_DEPTH`] levels. Prefer
    /// it to `serde_json::from_str`, which refuses both.
    ///
    /// # Errors
    ///
    /// A [`DecodeError`](crate::event::DecodeError): the text is not JSON,
    /// nests too deep, or is not a hook context.
    ///
    /// # Example
    ///
    /// ```
    /// let ctx = hookc::HookContext::from_json(
    ///     r#"{"hook_point": "tool.pre_execute", "component_id": "builtin::llm",
    ///         "payload": {"args": "echo \ud800"}}"#,
    /// )?;
    /// assert_eq!(ctx.payload["args"], "echo \u{fffd}");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_json(text: &str) -> Result<HookContext, crate::event::DecodeError> {
        crate::event::context(crate::event::parse(text)?)
    }

    /// The hook context of a JSON value built in memory, after checking its
    /// depth ([`crate::event::context`]).
    ///
    /// # Errors
    ///
    /// A [`DecodeError`](crate::event::DecodeError): the value nests too
    /// deep, or is not a hook context.
    pub fn from_value(value: Value) -> Result<HookContext, crate::event::DecodeError> {
        crate::event::context(value)
    }

    /// [`get`](Self::get) as a field's scan reads it: a payload string
    /// that is not normalized (the usual hot field) comes back as `Ok`,
    /// borrowed, with no [`Val`] built around it; every other read is
    /// `Err` of what `get` gives.
    ///
    /// Always inlined: a dispatch reads a field or two per event this way.
    #[inline(always)]
    pub(crate) fn get_text(&self, path: &FieldPath) -> Result<&str, Option<Val<'_>>> {
        if path.root == Root::Payload && !path.normalized {
            return match walk(&self.payload, &path.segments) {
                Some(Value::String(text)) => Ok(text),
                other => Err(other.map(Val::from_json)),
            };
        }
        Err(self.get(path))
    }

    /// Reads a field. Missing fields (and `child`/`instance` when absent) are
    /// `None`. A [`normalized`](FieldPath::normalized) path reads its string
    /// lexically normalized ([`crate::paths::normalize`]).
    pub fn get(&self, path: &FieldPath) -> Option<Val<'_>> {
        let scalar = |v: Val<'static>| {
            if path.segments.is_empty() {
                Some(v)
            } else {
                None
            }
        };
        match path.root {
            Root::Payload => {
                let value = walk(&self.payload, &path.segments).map(Val::from_json);
                match value {
                    // Only the payload holds fields a schema calls paths.
                    Some(Val::Str(text)) if path.normalized => Some(Val::Str(normalized(text))),
                    other => other,
                }
            }
            Root::Metadata => match path.segments.split_first() {
                None => Some(Val::Map(&self.metadata)),
                Some((Segment::Field(key), rest)) => {
                    walk(self.metadata.get(key)?, rest).map(Val::from_json)
                }
                Some((Segment::Index(_), _)) => None,
            },
            Root::Component => str_field(&self.component_id, path),
            Root::Child => str_field(self.child_id.as_deref()?, path),
            Root::Instance => str_field(self.instance.as_deref()?, path),
            Root::Channel => str_field(&self.channel_id, path),
            Root::Point => str_field(&self.hook_point, path),
            Root::Principal => match path.segments.as_slice() {
                [] => Some(Val::Principal(&self.principal)),
                [Segment::Field(f)] if f == "type" => {
                    Some(Val::Str(Cow::Borrowed(&self.principal.kind)))
                }
                [Segment::Field(f)] if f == "id" => {
                    Some(Val::Str(Cow::Borrowed(&self.principal.id)))
                }
                _ => None,
            },
            Root::Depth => scalar(Val::Int(i64::from(self.depth))),
            Root::MaxDepth => scalar(Val::Int(i64::from(self.max_depth))),
            Root::TimestampMs => scalar(Val::Int(
                i64::try_from(self.timestamp_ms).unwrap_or(i64::MAX),
            )),
        }
    }

    /// A mutable reference to an editable field (`payload…`, `metadata…`),
    /// creating objects along the way when `create` is set.
    pub(crate) fn get_mut(
        &mut self,
        path: &FieldPath,
        create: bool,
    ) -> Result<&mut Value, EditError> {
        let (mut cur, rest): (&mut Value, &[Segment]) = match path.root {
            Root::Payload => (&mut self.payload, &path.segments),
            Root::Metadata => match path.segments.split_first() {
                Some((Segment::Field(key), rest)) => {
                    if !create && !self.metadata.contains_key(key) {
                        return Err(EditError::Missing);
                    }
                    (
                        self.metadata.entry(key.clone()).or_insert(Value::Null),
                        rest,
                    )
                }
                _ => return Err(EditError::NotEditable),
            },
            _ => return Err(EditError::NotEditable),
        };
        for seg in rest {
            cur = match seg {
                Segment::Field(name) => {
                    if cur.is_null() && create {
                        *cur = Value::Object(Map::new());
                    }
                    match cur {
                        Value::Object(map) => {
                            if !create && !map.contains_key(name) {
                                return Err(EditError::Missing);
                            }
                            map.entry(name.clone()).or_insert(Value::Null)
                        }
                        _ => return Err(EditError::NotAnObject),
                    }
                }
                Segment::Index(i) => match cur {
                    Value::Array(items) => items.get_mut(*i as usize).ok_or(EditError::Missing)?,
                    _ => return Err(EditError::NotAnArray),
                },
            };
        }
        Ok(cur)
    }

    /// Sets an editable field, creating parent objects as needed.
    pub(crate) fn set(&mut self, path: &FieldPath, value: Value) -> Result<(), EditError> {
        if path.root == Root::Metadata && path.segments.is_empty() {
            return match value {
                Value::Object(map) => {
                    self.metadata = map;
                    Ok(())
                }
                _ => Err(EditError::NotAnObject),
            };
        }
        *self.get_mut(path, true)? = value;
        Ok(())
    }

    /// Removes an editable field; removing a missing field is not an error.
    pub(crate) fn unset(&mut self, path: &FieldPath) -> Result<(), EditError> {
        let Some((last, parent)) = path.segments.split_last() else {
            return match path.root {
                Root::Payload => {
                    self.payload = Value::Null;
                    Ok(())
                }
                Root::Metadata => {
                    self.metadata.clear();
                    Ok(())
                }
                _ => Err(EditError::NotEditable),
            };
        };
        if path.root == Root::Metadata && parent.is_empty() {
            if let Segment::Field(key) = last {
                self.metadata.shift_remove(key);
            }
            return Ok(());
        }
        let parent_path = FieldPath {
            root: path.root,
            segments: parent.to_vec(),
            normalized: false,
        };
        match self.get_mut(&parent_path, false) {
            Ok(Value::Object(map)) => {
                if let Segment::Field(key) = last {
                    map.shift_remove(key);
                }
                Ok(())
            }
            Ok(Value::Array(items)) => {
                if let Segment::Index(i) = last {
                    if (*i as usize) < items.len() {
                        items.remove(*i as usize);
                    }
                }
                Ok(())
            }
            Ok(_) | Err(EditError::Missing) => Ok(()),
            Err(e) => Err(e),
        }
    }
}

/// Why an edit could not be made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum EditError {
    #[error("only `payload` and `metadata` can be edited")]
    NotEditable,
    #[error("a parent of the field is not an object")]
    NotAnObject,
    #[error("a parent of the field is not an array")]
    NotAnArray,
    #[error("the field does not exist")]
    Missing,
}

/// A path field's text, lexically normalized (borrowed when it already is).
fn normalized(text: Cow<'_, str>) -> Cow<'_, str> {
    match text {
        Cow::Borrowed(text) => crate::paths::normalize(text),
        Cow::Owned(text) => Cow::Owned(crate::paths::normalize(&text).into_owned()),
    }
}

fn str_field<'a>(s: &'a str, path: &FieldPath) -> Option<Val<'a>> {
    if path.segments.is_empty() {
        Some(Val::Str(Cow::Borrowed(s)))
    } else {
        None
    }
}

// Always inlined into `HookContext::get` and `get_text`: out of line, the
// call and its register saves cost a dispatch a few instructions per
// field it reads (its member lookup is some fifty).
#[inline(always)]
pub(crate) fn walk<'a>(mut cur: &'a Value, segments: &[Segment]) -> Option<&'a Value> {
    for seg in segments {
        cur = match (seg, cur) {
            (Segment::Field(name), Value::Object(map)) => member(map, name)?,
            (Segment::Index(i), Value::Array(items)) => items.get(*i as usize)?,
            _ => return None,
        };
    }
    Some(cur)
}

/// Up to this many members, an object's member is found by comparing names
/// in order: cheaper than hashing the name (SipHash, in serde_json's
/// ordered map), and events' objects are mostly this small.
const LINEAR_MEMBERS: usize = 8;

/// The member `name` of an object.
#[inline]
pub(crate) fn member<'a>(map: &'a serde_json::Map<String, Value>, name: &str) -> Option<&'a Value> {
    if map.len() <= LINEAR_MEMBERS {
        map.iter().find(|(k, _)| same_name(k, name)).map(|(_, v)| v)
    } else {
        map.get(name)
    }
}

/// The member `name` of an object, to write (as [`member`] finds it).
#[inline]
pub(crate) fn member_mut<'a>(
    map: &'a mut serde_json::Map<String, Value>,
    name: &str,
) -> Option<&'a mut Value> {
    if map.len() <= LINEAR_MEMBERS {
        map.iter_mut()
            .find(|(k, _)| same_name(k, name))
            .map(|(_, v)| v)
    } else {
        map.get_mut(name)
    }
}

/// `a == b` for member names, compared inline ([`crate::short_eq`]): the
/// call to `memcmp` a plain `==` makes costs more than the whole test.
#[inline]
fn same_name(a: &str, b: &str) -> bool {
    crate::short_eq::same_bytes(a.as_bytes(), b.as_bytes())
}

/// A value read from the context or computed by an expression, borrowed when
/// it can be so that matching does not allocate.
///
/// A shell view (`shell(…)`, [`crate::shell`]) is read typed, in place: its
/// commands, their word lists and redirections are variants of their own,
/// which rules see as the lists and objects [`View::to_json`] describes.
///
/// [`View::to_json`]: crate::shell::View::to_json
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum Val<'a> {
    /// `null`.
    Null,
    /// A boolean.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// A string.
    Str(Cow<'a, str>),
    /// A JSON array or object in the context.
    Json(&'a Value),
    /// The metadata map.
    Map(&'a Map<String, Value>),
    /// The principal.
    Principal(&'a Principal),
    /// A computed array or object, boxed: it is the largest variant, and
    /// every expression the interpreter evaluates returns a `Val`.
    Owned(Box<Value>),
    /// The simple commands of a shell view: a list.
    Commands(&'a [Command]),
    /// One simple command: an object.
    Command(&'a Command),
    /// A command's words (`args`, `flags`, …): a list of strings.
    Words(&'a [String]),
    /// A command's redirections: a list.
    Redirects(&'a [Redirect]),
    /// One redirection: an object with `op` and `target`.
    Redirect(&'a Redirect),
}

impl<'a> Val<'a> {
    /// Views a JSON value: scalars become scalar variants.
    pub fn from_json(v: &'a Value) -> Val<'a> {
        match v {
            Value::Null => Val::Null,
            Value::Bool(b) => Val::Bool(*b),
            Value::Number(n) => match n.as_i64() {
                Some(i) => Val::Int(i),
                None => Val::Float(n.as_f64().unwrap_or(f64::NAN)),
            },
            Value::String(s) => Val::Str(Cow::Borrowed(s)),
            Value::Array(_) | Value::Object(_) => Val::Json(v),
        }
    }

    /// Takes ownership of a JSON value.
    pub fn from_owned(v: Value) -> Val<'a> {
        match v {
            Value::Null => Val::Null,
            Value::Bool(b) => Val::Bool(b),
            Value::Number(n) => match n.as_i64() {
                Some(i) => Val::Int(i),
                None => Val::Float(n.as_f64().unwrap_or(f64::NAN)),
            },
            Value::String(s) => Val::Str(Cow::Owned(s)),
            other => Val::Owned(Box::new(other)),
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Val::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The number, if this is one.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Val::Int(i) => Some(*i as f64),
            Val::Float(f) => Some(*f),
            _ => None,
        }
    }

    /// The integer, if this is one (floats with no fraction count).
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Val::Int(i) => Some(*i),
            Val::Float(f) if f.fract() == 0.0 && f.is_finite() && f.abs() < 9.0e15 => {
                Some(*f as i64)
            }
            _ => None,
        }
    }

    /// The boolean, if this is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Val::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// Field `name` of an object, or `None` when there is no such field.
    pub fn field(&self, name: &str) -> Option<Val<'a>> {
        match *self {
            Val::Command(c) => Some(match name {
                "program" => Val::Str(Cow::Borrowed(&c.program)),
                "name" => Val::Str(Cow::Borrowed(&c.name)),
                "args" => Val::Words(&c.args),
                "flags" => Val::Words(&c.flags),
                "operands" => Val::Words(&c.operands),
                "globs" => Val::Words(&c.globs),
                "assignments" => Val::Words(&c.assignments),
                "wrappers" => Val::Words(&c.wrappers),
                "redirects" => Val::Redirects(&c.redirects),
                "dynamic" => Val::Bool(c.dynamic),
                "recursive" => Val::Bool(c.recursive),
                "error" => match &c.error {
                    Some(e) => Val::Str(Cow::Borrowed(e)),
                    None => Val::Null,
                },
                _ => return None,
            }),
            Val::Redirect(r) => match name {
                "op" => Some(Val::Str(Cow::Borrowed(&r.op))),
                "target" => Some(Val::Str(Cow::Borrowed(&r.target))),
                _ => None,
            },
            Val::Json(Value::Object(map)) => map.get(name).map(Val::from_json),
            Val::Map(map) => map.get(name).map(Val::from_json),
            _ => None,
        }
    }

    /// Element `i` of a list, or `None` past its end.
    pub fn index(&self, i: usize) -> Option<Val<'a>> {
        match *self {
            Val::Commands(cs) => cs.get(i).map(Val::Command),
            Val::Words(ws) => ws.get(i).map(|w| Val::Str(Cow::Borrowed(w))),
            Val::Redirects(rs) => rs.get(i).map(Val::Redirect),
            Val::Json(Value::Array(items)) => items.get(i).map(Val::from_json),
            _ => None,
        }
    }

    /// How many elements a list has; `None` for anything else.
    pub fn list_len(&self) -> Option<usize> {
        match self {
            Val::Commands(cs) => Some(cs.len()),
            Val::Words(ws) => Some(ws.len()),
            Val::Redirects(rs) => Some(rs.len()),
            other => other.as_array().map(<[Value]>::len),
        }
    }

    /// True when some element of a list satisfies `f` (false for anything
    /// that is not a list); stops at the first.
    pub fn any_element(&self, mut f: impl FnMut(&Val<'_>) -> bool) -> bool {
        match self {
            Val::Commands(cs) => cs.iter().any(|c| f(&Val::Command(c))),
            Val::Words(ws) => ws.iter().any(|w| f(&Val::Str(Cow::Borrowed(w)))),
            Val::Redirects(rs) => rs.iter().any(|r| f(&Val::Redirect(r))),
            other => other
                .as_array()
                .is_some_and(|items| items.iter().any(|item| f(&Val::from_json(item)))),
        }
    }

    /// The elements, if this is an array.
    pub fn as_array(&self) -> Option<&[Value]> {
        match self {
            Val::Json(Value::Array(items)) => Some(items),
            Val::Owned(v) => v.as_array().map(Vec::as_slice),
            _ => None,
        }
    }

    /// Converts to an owned JSON value.
    pub fn to_json(&self) -> Value {
        match self {
            Val::Null => Value::Null,
            Val::Bool(b) => Value::Bool(*b),
            Val::Int(i) => Value::from(*i),
            Val::Float(f) => serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number),
            Val::Str(s) => Value::String(s.to_string()),
            Val::Json(v) => (*v).clone(),
            Val::Map(m) => Value::Object((*m).clone()),
            Val::Principal(p) => serde_json::to_value(p).unwrap_or(Value::Null),
            Val::Owned(v) => (**v).clone(),
            Val::Commands(cs) => Value::Array(cs.iter().map(Command::to_json).collect()),
            Val::Command(c) => c.to_json(),
            Val::Words(ws) => crate::shell::strings(ws),
            Val::Redirects(rs) => Value::Array(rs.iter().map(Redirect::to_json).collect()),
            Val::Redirect(r) => r.to_json(),
        }
    }

    /// Equality as rules see it: JSON equality, numbers by value.
    pub fn eq_val(&self, other: &Val<'_>) -> bool {
        match (self, other) {
            (Val::Null, Val::Null) => true,
            (Val::Bool(a), Val::Bool(b)) => a == b,
            (Val::Int(a), Val::Int(b)) => a == b,
            (a, b) if a.as_f64().is_some() && b.as_f64().is_some() => a.as_f64() == b.as_f64(),
            (Val::Str(a), Val::Str(b)) => a == b,
            (a, b) => match (a.structured(), b.structured()) {
                (Some(x), Some(y)) => json_eq(&x, &y),
                _ => false,
            },
        }
    }

    /// Equality with a JSON constant, without building a value.
    pub fn eq_json(&self, other: &Value) -> bool {
        match (self, other) {
            (Val::Null, Value::Null) => true,
            (Val::Bool(a), Value::Bool(b)) => a == b,
            (Val::Int(a), Value::Number(n)) => match n.as_i64() {
                Some(b) => *a == b,
                None => n.as_f64() == Some(*a as f64),
            },
            (Val::Float(a), Value::Number(n)) => n.as_f64() == Some(*a),
            (Val::Str(a), Value::String(b)) => a == b,
            (Val::Json(a), b) => json_eq(a, b),
            (Val::Owned(a), b) => json_eq(a, b),
            (Val::Words(ws), Value::Array(items)) => {
                ws.len() == items.len() && ws.iter().zip(items).all(|(w, v)| v.as_str() == Some(w))
            }
            (Val::Commands(_) | Val::Command(_) | Val::Redirects(_) | Val::Redirect(_), b) => {
                json_eq(&self.to_json(), b)
            }
            _ => false,
        }
    }

    fn structured(&self) -> Option<Cow<'_, Value>> {
        match self {
            Val::Json(v) => Some(Cow::Borrowed(*v)),
            Val::Owned(v) => Some(Cow::Borrowed(v)),
            Val::Map(_)
            | Val::Principal(_)
            | Val::Commands(_)
            | Val::Command(_)
            | Val::Words(_)
            | Val::Redirects(_)
            | Val::Redirect(_) => Some(Cow::Owned(self.to_json())),
            _ => None,
        }
    }

    /// The name of the value's type, for messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Val::Null => "null",
            Val::Bool(_) => "bool",
            Val::Int(_) => "int",
            Val::Float(_) => "float",
            Val::Str(_) => "string",
            Val::Owned(v) if v.is_array() => "list",
            Val::Json(Value::Array(_)) | Val::Commands(_) | Val::Words(_) | Val::Redirects(_) => {
                "list"
            }
            Val::Json(_)
            | Val::Owned(_)
            | Val::Map(_)
            | Val::Principal(_)
            | Val::Command(_)
            | Val::Redirect(_) => "object",
        }
    }
}

/// JSON equality where numbers compare by value (`1 == 1.0`).
pub fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(x), Some(y)) => x == y,
            _ => x.as_f64() == y.as_f64(),
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_eq(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{FieldPath, Root, Segment};

    #[test]
    fn same_name_is_string_equality() {
        let names = [
            "", "a", "b", "size", "tool", "args", "sizf", "tize", "é", "e",
        ];
        for a in names {
            for b in names {
                assert_eq!(same_name(a, b), a == b, "{a:?} {b:?}");
            }
        }
        // A member is found whatever its place among same-length names.
        let map = json_object(&[("tool", 1), ("args", 2), ("size", 3), ("sizf", 4)]);
        assert_eq!(member(&map, "size"), Some(&Value::from(3)));
        assert_eq!(member(&map, "sizf"), Some(&Value::from(4)));
        assert_eq!(member(&map, "sizg"), None);
    }

    fn json_object(members: &[(&str, i64)]) -> serde_json::Map<String, Value> {
        members
            .iter()
            .map(|(k, v)| ((*k).to_string(), Value::from(*v)))
            .collect()
    }

    fn payload_path(name: &str) -> FieldPath {
        FieldPath {
            root: Root::Payload,
            segments: vec![Segment::Field(name.to_string())],
            normalized: false,
        }
    }

    /// `get_text` is `get` for every read: a plain payload string comes
    /// back borrowed, everything else (a number, an object, a missing
    /// member, a normalized path, another root) as `get` has it.
    #[test]
    fn get_text_reads_what_get_reads() {
        let payload = serde_json::json!({
            "tool": "exec", "size": 3, "nested": {"a": "b"}, "file": "/a/./b/../c"
        });
        let ctx = HookContext::new("tool.pre_execute", "a::b", payload);
        let mut paths: Vec<FieldPath> = ["tool", "size", "nested", "missing", "file"]
            .into_iter()
            .map(payload_path)
            .collect();
        paths.push(FieldPath {
            normalized: true,
            ..payload_path("file")
        });
        paths.push(FieldPath {
            root: Root::Component,
            segments: vec![],
            normalized: false,
        });
        for path in &paths {
            let described = |v: Option<Val<'_>>| format!("{v:?}");
            let got = match ctx.get_text(path) {
                Ok(text) => {
                    assert!(path.root == Root::Payload && !path.normalized, "{path}");
                    described(Some(Val::Str(Cow::Borrowed(text))))
                }
                Err(other) => {
                    assert!(
                        !matches!(other, Some(Val::Str(Cow::Borrowed(_))))
                            || path.root != Root::Payload
                            || path.normalized,
                        "{path}: {other:?}"
                    );
                    described(other)
                }
            };
            assert_eq!(got, described(ctx.get(path)), "{path}");
        }
        assert_eq!(
            described_normalized(&ctx),
            "Some(Str(\"/a/c\"))",
            "a normalized path reads normalized"
        );
    }

    fn described_normalized(ctx: &HookContext) -> String {
        let path = FieldPath {
            normalized: true,
            ..payload_path("file")
        };
        format!("{:?}", ctx.get_text(&path).err().flatten())
    }

    /// A member is found whether the object is small enough to be searched
    /// name by name or is looked up by hash, and a missing one is missing.
    #[test]
    fn members_of_small_and_large_objects() {
        for members in [1, LINEAR_MEMBERS, LINEAR_MEMBERS + 1, 40] {
            let payload: serde_json::Map<String, Value> = (0..members)
                .map(|i| (format!("k{i}"), Value::from(i)))
                .collect();
            let ctx = HookContext::new("tool.pre_execute", "a::b", Value::Object(payload));
            for i in 0..members {
                let got = ctx.get(&payload_path(&format!("k{i}")));
                assert!(
                    matches!(got, Some(Val::Int(n)) if n == i as i64),
                    "{members} members, k{i}: {got:?}"
                );
            }
            assert!(ctx.get(&payload_path("missing")).is_none());
            assert!(ctx.get(&payload_path("k")).is_none());
        }
    }

    /// A member found to be written is the one of that name, in small
    /// objects (compared name by name) and large ones (hashed) alike.
    #[test]
    fn members_to_write_of_small_and_large_objects() {
        for members in [1, LINEAR_MEMBERS, LINEAR_MEMBERS + 1, 40] {
            let mut map: serde_json::Map<String, Value> = (0..members)
                .map(|i| (format!("k{i}"), Value::from(i)))
                .collect();
            for i in 0..members {
                let slot = member_mut(&mut map, &format!("k{i}"));
                assert_eq!(slot.as_deref(), Some(&Value::from(i)), "{members}, k{i}");
                if let Some(slot) = slot {
                    *slot = Value::from(-(i as i64));
                }
            }
            for i in 0..members {
                assert_eq!(map.get(&format!("k{i}")), Some(&Value::from(-(i as i64))));
            }
            assert!(member_mut(&mut map, "missing").is_none());
            assert!(member_mut(&mut map, "k").is_none());
        }
    }
}
