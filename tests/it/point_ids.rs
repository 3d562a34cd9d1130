//! Points resolved once to a [`PointId`]: the same fast path for every
//! schema, ORCS's `HookPoint` as a typed id, and ids that name nothing on a
//! table of another schema.

#![expect(clippy::panic, reason = "tests fail loudly on bad fixtures")]

use hookc::schema::PointId;
use hookc::{HookContext, HookPoint, OutcomeKind, Table, Target};
use serde_json::json;

fn compile(rules: &str) -> Table {
    hookc::compile_str("r.hooks", rules)
        .unwrap_or_else(|d| panic!("{d}"))
        .table
}

fn outcome(
    table: &Table,
    point: impl hookc::runtime::AsPoint,
    name: &str,
) -> (OutcomeKind, Vec<String>) {
    let mut scratch = table.scratch();
    let mut ctx = HookContext::new(name, "claude-code::Bash", json!({"tool_name": "Bash"}));
    let outcome = table.dispatch(
        &mut scratch,
        point,
        &Target::new("claude-code::Bash"),
        &mut ctx,
    );
    (
        outcome.kind(),
        outcome.fired().map(str::to_string).collect(),
    )
}

#[test]
fn every_schema_dispatches_by_id_as_by_name() {
    let table = compile(
        "schema claude-code\nhook no-bash on PreToolUse { when payload.tool_name == \"Bash\" deny \"no\" }",
    );
    let pre: PointId = table.point_id("PreToolUse").unwrap();
    assert_eq!(
        outcome(&table, pre, "PreToolUse"),
        outcome(&table, "PreToolUse", "PreToolUse")
    );
    assert_eq!(outcome(&table, pre, "PreToolUse").0, OutcomeKind::Abort);
    // Every point of the schema has an id, rules or not, numbered in the
    // schema's order.
    let stop = table.point_id("Stop").unwrap();
    assert_eq!(
        outcome(&table, stop, "Stop"),
        (OutcomeKind::Continue, vec![])
    );
    let schema = hookc::systems::builtin_schema("claude-code").unwrap();
    for (slot, point) in schema.points.iter().enumerate() {
        let id = table.point_id(&point.name).unwrap();
        assert_eq!(id.slot(), slot);
        assert_eq!(table.point_name(id), Some(point.name.as_str()));
    }
    assert_eq!(table.point_id("tool.pre_execute"), None);
}

#[test]
fn hook_points_are_ids_of_the_orcs_schema() {
    let table = compile("hook a on tool.pre_execute { abort \"no\" }");
    for point in HookPoint::ALL {
        assert_eq!(table.point_id(point.as_str()), Some(point.id()));
    }
    // On a claude-code table an ORCS point is no point: nothing runs.
    let claude = compile("schema claude-code\nhook a on PreToolUse { deny \"no\" }");
    assert_eq!(claude.point_name(HookPoint::ToolPreExecute.id()), None);
    assert_eq!(
        outcome(&claude, HookPoint::ToolPreExecute, "tool.pre_execute").0,
        OutcomeKind::Continue
    );
}

#[test]
fn a_hook_point_finds_a_custom_schema_point_of_its_name() {
    // A custom schema that reuses an ORCS point's name numbers it otherwise:
    // the id does not fit, the name does.
    let dir = std::env::temp_dir().join(format!("hookc-point-ids-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("s.schema.toml"),
        "name = \"mine\"\n[[points]]\nname = \"job.queued\"\nkind = \"event\"\n[[points]]\nname = \"tool.pre_execute\"\nkind = \"pre\"\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("r.hooks"),
        "schema \"s.schema.toml\"\nhook a on tool.pre_execute { abort \"mine\" }\n",
    )
    .unwrap();
    let table = hookc::compile_paths(&[dir.join("r.hooks")], &hookc::Options::default())
        .unwrap_or_else(|d| panic!("{d}"))
        .table;
    std::fs::remove_dir_all(&dir).unwrap();
    let id = table.point_id("tool.pre_execute").unwrap();
    assert_eq!(id.slot(), 1);
    assert_ne!(id, HookPoint::ToolPreExecute.id());
    let (kind, fired) = outcome(&table, HookPoint::ToolPreExecute, "tool.pre_execute");
    assert_eq!((kind, fired), (OutcomeKind::Abort, vec!["a".to_string()]));
}
