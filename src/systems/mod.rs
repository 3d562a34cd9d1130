//! One home per hook system: everything hookc knows about a system that is
//! not the engine itself.
//!
//! The engine (syntax, check, compile, table, runtime, effects) knows hook
//! points, fields and actions; it does not know which system a rule set is
//! for. What is particular to a system lives here, one module each:
//!
//! | system | schema (its points and fields) | importer (its configuration → `.hooks`) | protocol |
//! |---|---|---|---|
//! | [`orcs`] | `orcs`: the 25 lifecycle points, [`HookPoint`](crate::HookPoint) | `[[hooks]]` of `orcs.toml` | events are ORCS `HookContext` JSON, the engine's own |
//! | [`claude_code`] | `claude-code`: every hook event | the `hooks` of settings files | [`claude_code::protocol`]: an event in, the answer Claude Code reads out |
//! | [`ironclaw`] | `ironclaw`: the six points, content edits applied as IronClaw's host does | hook bundles | — |
//! | [`mcp_router`] | — (custom points `request.pre_dispatch`/`post_dispatch` of `orcs`) | MCP Router hook scripts, run by a Node.js runner | — |
//!
//! Dependencies run one way: a system module may use the engine; the engine
//! never names a system. What differs per system at run time (how a host
//! applies an edit between rules, what a command hook reads on stdin) is a
//! property of the schema, compiled into the table.

pub mod claude_code;
pub mod ironclaw;
#[cfg(feature = "compiler")]
pub mod mcp_router;
pub mod orcs;

use crate::schema::Schema;

/// The names of the built-in schemas, as `schema NAME` names them.
pub const BUILTIN_SCHEMAS: &[&str] = &[
    orcs::schema::NAME,
    claude_code::schema::NAME,
    ironclaw::schema::NAME,
];

/// The built-in schema called `name`, if there is one.
pub fn builtin_schema(name: &str) -> Option<Schema> {
    match name {
        orcs::schema::NAME => Some(orcs::schema::schema()),
        claude_code::schema::NAME => Some(claude_code::schema::schema()),
        ironclaw::schema::NAME => Some(ironclaw::schema::schema()),
        _ => None,
    }
}

/// The built-in schema, other than `except`, that has a point called
/// `point`: for a rule written for another hook system than its file's
/// schema (`on PreToolUse` in an `orcs` file).
pub fn builtin_schema_with_point(point: &str, except: &str) -> Option<&'static str> {
    let has = |schema: &str| match schema {
        orcs::schema::NAME => point.parse::<crate::HookPoint>().is_ok(),
        claude_code::schema::NAME => claude_code::schema::event_names().any(|n| n == point),
        ironclaw::schema::NAME => ironclaw::schema::point_names().any(|n| n == point),
        _ => false,
    };
    BUILTIN_SCHEMAS
        .iter()
        .copied()
        .find(|&schema| schema != except && has(schema))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_schema_is_named_and_finds_its_points() {
        for &name in BUILTIN_SCHEMAS {
            let Some(schema) = builtin_schema(name) else {
                panic!("`{name}` is listed but not built in");
            };
            assert_eq!(schema.name, name);
            assert!(!schema.doc.is_empty(), "{name}");
            for point in &schema.points {
                assert!(!point.doc.is_empty(), "{name}: {}", point.name);
                // Found in its own schema, unless excluded.
                let other = builtin_schema_with_point(&point.name, "");
                assert_eq!(other, Some(name), "{}", point.name);
                assert_ne!(builtin_schema_with_point(&point.name, name), Some(name));
            }
        }
        assert_eq!(
            builtin_schema_with_point("PreToolUse", "orcs"),
            Some("claude-code")
        );
        assert_eq!(
            builtin_schema_with_point("beforeToolCall", "orcs"),
            Some("ironclaw")
        );
        assert_eq!(
            builtin_schema_with_point("tool.pre_execute", "claude-code"),
            Some("orcs")
        );
        assert_eq!(builtin_schema_with_point("PreToolUse", "claude-code"), None);
        assert_eq!(builtin_schema_with_point("pretooluse", "orcs"), None);
    }
}
