//! Applying a point's [`EditApplication`] between rules: what the next rule
//! sees after one edited the event.
//!
//! The compiler records, per point, how the schema's host applies an edit
//! (see [`EditApplication`]); the chain takes a [`Before`] of the edited
//! path before each rule (or native hook) and, when the rule edited the
//! context, calls [`apply`]. Under [`EditApplication::AsEdited`], every
//! point of every schema but `ironclaw`, nothing is taken and nothing runs.

use crate::event::{HookContext, Val};
use crate::schema::EditApplication;
use serde_json::Value;

/// The value of a point's edited path before a rule ran.
#[derive(Debug)]
pub(super) struct Before(Option<Value>);

/// Takes the value `edits` watches, if it watches one.
///
/// Inlined: at most points the host applies edits as written, and the
/// test of that is a fraction of a call.
#[inline]
pub(super) fn before(edits: &EditApplication, ctx: &HookContext) -> Option<Before> {
    let text = edits.text()?;
    Some(Before(get(&ctx.payload, text).cloned()))
}

/// Applies `edits` after `who` (`("rule", id)` or `("hook", id)`) edited
/// `ctx` at `point`: `before` is what [`before`] took before it ran. A
/// dropped edit is a warning. True when `ctx` changed.
pub(super) fn apply(
    edits: &EditApplication,
    before: &Before,
    who: (&str, &str),
    point: &str,
    ctx: &mut HookContext,
    warnings: &mut Vec<String>,
) -> bool {
    let (what, id) = who;
    let payload = &mut ctx.payload;
    match edits {
        EditApplication::AsEdited => false,
        EditApplication::Ignore { text } => {
            if get(payload, text) == before.0.as_ref() {
                return false;
            }
            set(payload, text, before.0.clone());
            warnings.push(format!(
                "{what} `{id}`: the edit of `payload.{text}` is dropped: the host does not apply edits of it at `{point}`"
            ));
            true
        }
        EditApplication::Mirror { text, field } => {
            let now = get(payload, text);
            if now != before.0.as_ref() {
                let copy = now.cloned();
                if get(payload, field) == copy.as_ref() {
                    return false;
                }
                set(payload, field, copy);
                return true;
            }
            // The text is as it was: an edit of the field shows in it.
            let copy = get(payload, field).cloned();
            if now == copy.as_ref() {
                return false;
            }
            set(payload, text, copy);
            true
        }
        EditApplication::Json { text, field } => {
            let now = get(payload, text);
            if now != before.0.as_ref() {
                let parsed = match now {
                    Some(Value::String(s)) => serde_json::from_str::<Value>(s)
                        .map_err(|e| format!("it is not JSON ({e})")),
                    Some(other) => Err(format!(
                        "it is {}, not JSON text",
                        Val::from_json(other).type_name()
                    )),
                    None => Err("it was removed".to_string()),
                };
                match parsed {
                    Ok(value) => {
                        set(payload, text, Some(Value::String(json_text(&value))));
                        set(payload, field, Some(value));
                    }
                    Err(why) => {
                        set(payload, text, before.0.clone());
                        warnings.push(format!(
                            "{what} `{id}`: the edit of `payload.{text}` is dropped: {why}; the host parses it into `payload.{field}`, which stays as it was"
                        ));
                    }
                }
                return true;
            }
            // The text is as it was: an edit of the field shows in it, as
            // compact JSON. Text that already means the field is left as
            // the host wrote it.
            let Some(value) = get(payload, field) else {
                return false;
            };
            let means_field = now
                .and_then(Value::as_str)
                .and_then(|s| serde_json::from_str::<Value>(s).ok())
                .is_some_and(|parsed| parsed == *value);
            if means_field {
                return false;
            }
            let rewritten = Value::String(json_text(value));
            set(payload, text, Some(rewritten));
            true
        }
    }
}

/// `value` as compact JSON with the keys of every object sorted: the text
/// of a value that [`EditApplication::Json`] shows rules (IronClaw's host
/// writes it with `serde_json::to_string` over sorted maps).
fn json_text(value: &Value) -> String {
    sorted(value).to_string()
}

/// A copy of `value` whose objects have their keys in sorted order.
fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(key, value)| (key.clone(), sorted(value)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

/// The value at a dotted `path` below `payload`.
fn get<'v>(payload: &'v Value, path: &str) -> Option<&'v Value> {
    path.split('.')
        .try_fold(payload, |value, key| value.get(key))
}

/// Sets (or, with `None`, removes) the value at a dotted `path` below
/// `payload`; a missing parent object is created.
fn set(payload: &mut Value, path: &str, value: Option<Value>) {
    let (parent, key) = match path.rsplit_once('.') {
        Some((parent, key)) => (Some(parent), key),
        None => (None, path),
    };
    let mut object = payload;
    for step in parent.into_iter().flat_map(|p| p.split('.')) {
        let Value::Object(map) = object else {
            return;
        };
        object = map
            .entry(step)
            .or_insert_with(|| Value::Object(serde_json::Map::new()));
    }
    let Value::Object(map) = object else {
        return;
    };
    match value {
        Some(value) => {
            map.insert(key.to_string(), value);
        }
        None => {
            map.remove(key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ctx(payload: Value) -> HookContext {
        HookContext::new("p", "a::b", payload)
    }

    fn json_mode() -> EditApplication {
        EditApplication::Json {
            text: "content".into(),
            field: "parameters".into(),
        }
    }

    /// Runs `edit` on a context as a rule would, then applies `edits`.
    fn after(
        edits: &EditApplication,
        payload: Value,
        edit: impl FnOnce(&mut Value),
    ) -> (Value, Vec<String>) {
        let mut ctx = ctx(payload);
        let before = before(edits, &ctx).unwrap();
        edit(&mut ctx.payload);
        let mut warnings = Vec::new();
        apply(edits, &before, ("rule", "r"), "pt", &mut ctx, &mut warnings);
        (ctx.payload, warnings)
    }

    #[test]
    fn json_text_is_parsed_into_its_field_and_rewritten_compact() {
        let (payload, warnings) = after(
            &json_mode(),
            json!({"content": "{\"path\":\"/a\"}", "parameters": {"path": "/a"}}),
            |p| p["content"] = json!("{ \"path\" : \"/b\", \"n\": 1 }"),
        );
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(payload["parameters"], json!({"path": "/b", "n": 1}));
        // Keys sorted, at every depth, as IronClaw's host writes them.
        assert_eq!(payload["content"], json!(r#"{"n":1,"path":"/b"}"#));
        let (payload, _) = after(
            &json_mode(),
            json!({"content": "{}", "parameters": {}}),
            |p| {
                p["content"] = json!(r#"{"b": [{"z": 1, "a": 2}], "a": null}"#);
            },
        );
        assert_eq!(
            payload["content"],
            json!(r#"{"a":null,"b":[{"a":2,"z":1}]}"#)
        );
    }

    #[test]
    fn json_text_that_does_not_parse_is_dropped_with_a_warning() {
        let original = json!({"content": "{\"path\":\"/a\"}", "parameters": {"path": "/a"}});
        let (payload, warnings) = after(&json_mode(), original.clone(), |p| {
            p["content"] = json!("{\"path\":\"/a\"}!");
        });
        assert_eq!(payload, original);
        assert_eq!(warnings.len(), 1);
        assert!(
            warnings[0].starts_with("rule `r`: the edit of `payload.content` is dropped: it is not JSON (trailing characters"),
            "{warnings:?}"
        );
        // Not a string, or removed: dropped too.
        let (payload, warnings) =
            after(&json_mode(), original.clone(), |p| p["content"] = json!(7));
        assert_eq!((payload, warnings.len()), (original.clone(), 1));
        let (payload, warnings) = after(&json_mode(), original.clone(), |p| {
            p.as_object_mut().unwrap().remove("content");
        });
        assert_eq!((payload, warnings.len()), (original, 1));
    }

    #[test]
    fn an_edit_of_the_json_field_rewrites_the_text() {
        let (payload, warnings) = after(
            &json_mode(),
            json!({"content": "{\"path\":\"/a\"}", "parameters": {"path": "/a"}}),
            |p| p["parameters"]["path"] = json!("/b"),
        );
        assert!(warnings.is_empty());
        assert_eq!(payload["content"], json!("{\"path\":\"/b\"}"));
        // Text that already means the field (the host's own layout) stays.
        let pretty = json!({"content": "{ \"path\": \"/a\" }", "parameters": {"path": "/a"}});
        let (payload, _) = after(&json_mode(), pretty.clone(), |p| p["other"] = json!(1));
        assert_eq!(payload["content"], pretty["content"]);
    }

    #[test]
    fn a_mirrored_text_and_its_field_stay_one_value() {
        let mode = EditApplication::Mirror {
            text: "content".into(),
            field: "response".into(),
        };
        let (payload, warnings) = after(&mode, json!({"content": "a", "response": "a"}), |p| {
            p["content"] = json!("b");
        });
        assert_eq!(payload, json!({"content": "b", "response": "b"}));
        assert!(warnings.is_empty());
        let (payload, _) = after(&mode, json!({"content": "a", "response": "a"}), |p| {
            p["response"] = json!("c");
        });
        assert_eq!(payload, json!({"content": "c", "response": "c"}));
    }

    #[test]
    fn an_ignored_text_is_restored_with_a_warning() {
        let mode = EditApplication::Ignore {
            text: "content".into(),
        };
        let (payload, warnings) = after(&mode, json!({"content": "s-1", "user_id": "u"}), |p| {
            p["content"] = json!("s-1!");
            p["user_id"] = json!("v");
        });
        assert_eq!(payload, json!({"content": "s-1", "user_id": "v"}));
        assert_eq!(
            warnings,
            ["rule `r`: the edit of `payload.content` is dropped: the host does not apply edits of it at `pt`"]
        );
        // Removed, it comes back.
        let (payload, _) = after(&mode, json!({"content": "s-1"}), |p| {
            p.as_object_mut().unwrap().remove("content");
        });
        assert_eq!(payload, json!({"content": "s-1"}));
    }

    #[test]
    fn dotted_paths() {
        let mut payload = json!({"a": {"b": 1}});
        assert_eq!(get(&payload, "a.b"), Some(&json!(1)));
        assert_eq!(get(&payload, "a.c"), None);
        set(&mut payload, "a.c", Some(json!(2)));
        set(&mut payload, "x.y", Some(json!(3)));
        set(&mut payload, "a.b", None);
        assert_eq!(payload, json!({"a": {"c": 2}, "x": {"y": 3}}));
    }
}
