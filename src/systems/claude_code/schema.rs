//! The built-in `claude-code` schema: every Claude Code hook event as a point.
//!
//! Point names are the event names exactly as Claude Code spells them in
//! `hook_event_name` (`PreToolUse`, `UserPromptSubmit`, …). The adapter that
//! maps a Claude Code event to a hook context puts the whole input JSON in
//! `payload`, so rules read `payload.tool_name`, `payload.tool_input.command`,
//! `payload.prompt`, and so on.
//!
//! Every point has the common input fields (`session_id`, `transcript_path`,
//! `cwd`, `hook_event_name`, and the optional `prompt_id`, `permission_mode`,
//! `effort.level`, `agent_id`, `agent_type`) plus its own. `tool_input` is an
//! open object: the fields of the built-in tools (`command`, `file_path`,
//! `url`, …) are typed and optional, and an MCP tool's own arguments are
//! accepted as they are. `tool_response` is `any`, with the Bash and file
//! tool fields typed.
//!
//! *Blocking* says whether Claude Code lets a hook stop what the event is
//! about (a `deny`, a `decision: "block"`, or exit code 2 that is honoured);
//! the checker refuses `abort`, `deny`, `ask` and `skip` at the others.
//!
//! | event | kind | blocks |
//! |---|---|---|
//! | `SessionStart`, `Setup`, `InstructionsLoaded` | event | no |
//! | `UserPromptSubmit`, `UserPromptExpansion` | pre | yes |
//! | `MessageDisplay` | event | no |
//! | `PreToolUse`, `PermissionRequest` | pre | yes |
//! | `PermissionDenied` | event | no |
//! | `PostToolUse`, `PostToolUseFailure`, `PostToolBatch` | post | yes |
//! | `Notification`, `SubagentStart` | event | no |
//! | `SubagentStop`, `Stop`, `TaskCreated`, `TaskCompleted`, `TeammateIdle` | pre | yes |
//! | `StopFailure` | event | no |
//! | `ConfigChange`, `WorktreeCreate`, `PreCompact` | pre | yes |
//! | `CwdChanged`, `DirectoryAdded`, `FileChanged`, `WorktreeRemove`, `PostCompact`, `SessionEnd` | event | no |
//! | `Elicitation` | pre | yes |
//! | `ElicitationResult` | post | yes |
//! | `PreModelSwitch` | pre | yes |
//! | `PostModelSwitch` | event | no |

use crate::schema::{CommandInput, EditApplication, FieldDef, PointDef, PointKind, Schema};

/// The schema's name, as `schema = "claude-code"` names it.
pub const NAME: &str = "claude-code";

/// One event: name, kind, whether it blocks, what it is, and its own input
/// fields as `(path, type)` with the schema-file type syntax (`string?` =
/// optional).
struct Event {
    name: &'static str,
    kind: PointKind,
    blocking: bool,
    doc: &'static str,
    fields: Fields,
}

/// Fields of every event's input.
const COMMON: &[(&str, &str)] = &[
    ("session_id", "string"),
    ("transcript_path", "path"),
    ("cwd", "path"),
    ("hook_event_name", "string"),
    ("prompt_id", "string?"),
    ("permission_mode", "string?"),
    ("effort", "object?"),
    ("effort.level", "string?"),
    ("agent_id", "string?"),
    ("agent_type", "string?"),
];

/// Fields as `(path, type)`, the type in the schema-file syntax.
type Fields = &'static [(&'static str, &'static str)];

/// `tool_input` and the documented fields of the built-in tools.
const TOOL_INPUT: &[(&str, &str)] = &[
    ("tool_name", "string"),
    ("tool_input", "object"),
    // Bash, PowerShell
    ("tool_input.command", "string?"),
    ("tool_input.description", "string?"),
    ("tool_input.timeout", "int?"),
    ("tool_input.run_in_background", "bool?"),
    // Write, Edit, Read
    ("tool_input.file_path", "path?"),
    // NotebookEdit (a write too)
    ("tool_input.notebook_path", "path?"),
    ("tool_input.content", "string?"),
    ("tool_input.old_string", "string?"),
    ("tool_input.new_string", "string?"),
    ("tool_input.replace_all", "bool?"),
    ("tool_input.offset", "int?"),
    ("tool_input.limit", "int?"),
    // Glob, Grep
    ("tool_input.pattern", "string?"),
    ("tool_input.path", "path?"),
    ("tool_input.glob", "string?"),
    ("tool_input.output_mode", "string?"),
    ("tool_input.multiline", "bool?"),
    // WebFetch, WebSearch
    ("tool_input.url", "string?"),
    ("tool_input.prompt", "string?"),
    ("tool_input.query", "string?"),
    ("tool_input.allowed_domains", "list?"),
    ("tool_input.blocked_domains", "list?"),
    // Agent
    ("tool_input.subagent_type", "string?"),
    ("tool_input.model", "string?"),
    // AskUserQuestion, ExitPlanMode
    ("tool_input.questions", "list?"),
    ("tool_input.answers", "any?"),
    ("tool_input.plan", "string?"),
    // SDK provenance of MCP tools
    ("mcp_server", "object?"),
    ("mcp_server.name", "string?"),
    ("mcp_server.source", "string?"),
];

/// `tool_response` of PostToolUse: any shape, the common fields typed.
const TOOL_RESPONSE: &[(&str, &str)] = &[
    ("tool_response", "any"),
    ("tool_response.stdout", "string?"),
    ("tool_response.stderr", "string?"),
    ("tool_response.interrupted", "bool?"),
    ("tool_response.isImage", "bool?"),
    ("tool_response.type", "string?"),
    ("tool_response.filePath", "string?"),
    ("tool_response.content", "any?"),
];

const STOP: &[(&str, &str)] = &[
    ("stop_hook_active", "bool"),
    ("last_assistant_message", "string?"),
    ("background_tasks", "list?"),
    ("session_crons", "list?"),
];

const TASK: &[(&str, &str)] = &[
    ("task_id", "string"),
    ("task_subject", "string"),
    ("task_description", "string?"),
    ("teammate_name", "string?"),
    ("team_name", "string?"),
];

const MODEL_SWITCH: &[(&str, &str)] = &[
    ("from_model", "string"),
    ("to_model", "string"),
    ("requested_model", "string?"),
    ("source", "string"),
    ("context_tokens", "int?"),
    ("prompt_cache_warm", "bool?"),
    ("cache_ttl", "string?"),
    ("estimated_cache_write_usd", "float?"),
    ("pricing", "any?"),
];

/// Every event, in the order of the protocol's §4.
const EVENTS: &[(Event, &[Fields])] = &[
    (
        ev(
            "SessionStart",
            PointKind::Event,
            false, "When a session starts, resumes, is cleared or compacted (`source` says which): rules may add context.",
            &[
                ("source", "string"),
                ("model", "string?"),
                ("session_title", "string?"),
                ("seconds_since_last_response", "int?"),
                ("context_tokens", "int?"),
                ("prompt_cache_likely_expired", "bool?"),
                ("estimated_cache_write_usd", "float?"),
            ],
        ),
        &[],
    ),
    (
        ev("Setup", PointKind::Event, false, "When Claude Code runs for repository setup or maintenance (`claude --init-only`, `--init`, `--maintenance`; `trigger` says which): rules may add context.", &[("trigger", "string")]),
        &[],
    ),
    (
        ev(
            "InstructionsLoaded",
            PointKind::Event,
            false, "When an instructions file (a `CLAUDE.md`, a `.claude/rules/*.md`) is loaded into the context; the answer is ignored.",
            &[
                ("file_path", "path"),
                ("memory_type", "string"),
                ("load_reason", "string"),
                ("globs", "list?"),
                ("trigger_file_path", "path?"),
                ("parent_file_path", "path?"),
            ],
        ),
        &[],
    ),
    (
        ev(
            "UserPromptSubmit",
            PointKind::Pre,
            true, "When the user submits a prompt, before the model sees it: rules may block it or add context.",
            &[
                ("prompt", "string"),
                ("source", "string?"),
                ("session_title", "string?"),
            ],
        ),
        &[],
    ),
    (
        ev(
            "UserPromptExpansion",
            PointKind::Pre,
            true, "When a slash command, skill or MCP prompt the user typed expands into a prompt: rules may block it or add context.",
            &[
                ("expansion_type", "string"),
                ("command_name", "string"),
                ("command_args", "string"),
                ("command_source", "string"),
                ("prompt", "string"),
            ],
        ),
        &[],
    ),
    (
        ev(
            "MessageDisplay",
            PointKind::Event,
            false, "While the assistant's text is shown (`delta`): an edit of `payload.delta` changes what is displayed, not what the model wrote.",
            &[
                ("turn_id", "string"),
                ("message_id", "string"),
                ("index", "int"),
                ("final", "bool"),
                ("delta", "string"),
            ],
        ),
        &[],
    ),
    (
        ev(
            "PreToolUse",
            PointKind::Pre,
            true, "Before a tool call runs, in every permission mode: rules may deny it, ask the user, allow it, or rewrite `tool_input`.",
            &[("tool_use_id", "string?")],
        ),
        &[TOOL_INPUT],
    ),
    (
        ev(
            "PermissionRequest",
            PointKind::Pre,
            true, "When Claude Code is about to ask the user to permit a tool call: rules may allow or deny it in the user's place.",
            &[("permission_suggestions", "list?")],
        ),
        &[TOOL_INPUT],
    ),
    (
        ev(
            "PermissionDenied",
            PointKind::Event,
            false, "After auto mode denied a tool call (`reason`).",
            &[("tool_use_id", "string"), ("reason", "string")],
        ),
        &[TOOL_INPUT],
    ),
    (
        ev(
            "PostToolUse",
            PointKind::Post,
            true, "After a tool call succeeded (`tool_response`): rules may block (the reason goes to the model), add context, or replace the output the model sees.",
            &[("tool_use_id", "string"), ("duration_ms", "int?")],
        ),
        &[TOOL_INPUT, TOOL_RESPONSE],
    ),
    (
        ev(
            "PostToolUseFailure",
            PointKind::Post,
            true, "After a tool call failed (`error`): rules may block or add context.",
            &[
                ("tool_use_id", "string"),
                ("error", "string"),
                ("is_interrupt", "bool?"),
                ("duration_ms", "int?"),
            ],
        ),
        &[TOOL_INPUT],
    ),
    (
        ev(
            "PostToolBatch",
            PointKind::Post,
            true, "Once all tool calls of a batch resolved, before the next model request (`tool_calls`): rules may block, which stops the loop.",
            &[("tool_calls", "list")],
        ),
        &[],
    ),
    (
        ev(
            "Notification",
            PointKind::Event,
            false, "When Claude Code sends a notification (`notification_type`, `message`); the answer is ignored.",
            &[
                ("message", "string"),
                ("title", "string?"),
                ("notification_type", "string"),
            ],
        ),
        &[],
    ),
    (
        ev(
            "SubagentStart",
            PointKind::Event,
            false, "When a subagent starts (`agent_type`): rules may add context for it.",
            &[("agent_id", "string"), ("agent_type", "string")],
        ),
        &[],
    ),
    (
        ev(
            "SubagentStop",
            PointKind::Pre,
            true, "When a subagent is about to finish: a block keeps it running, with the reason as its next instruction.",
            &[
                ("agent_id", "string"),
                ("agent_type", "string"),
                ("agent_transcript_path", "path"),
            ],
        ),
        &[STOP],
    ),
    (ev("TaskCreated", PointKind::Pre, true, "When a task is being created: a block deletes it, with the reason as the tool's error.", &[]), &[TASK]),
    (ev("TaskCompleted", PointKind::Pre, true, "When a task is being marked completed: a block keeps it open, with the reason as feedback.", &[]), &[TASK]),
    (ev("Stop", PointKind::Pre, true, "When the main agent finishes its response: a block keeps it going, with the reason as its instruction (`stop_hook_active` is true when a stop hook already did).", &[]), &[STOP]),
    (
        ev(
            "StopFailure",
            PointKind::Event,
            false, "When a turn ends on an API error instead (`error`); the answer is ignored.",
            &[
                ("error", "string"),
                ("error_details", "string?"),
                ("last_assistant_message", "string?"),
            ],
        ),
        &[],
    ),
    (
        ev(
            "TeammateIdle",
            PointKind::Pre,
            true, "When a teammate of an agent team is about to go idle: a block keeps it working, with the reason as feedback.",
            &[("teammate_name", "string"), ("team_name", "string?")],
        ),
        &[],
    ),
    (
        ev(
            "ConfigChange",
            PointKind::Pre,
            true, "When a settings file changes during the session (`source`, `file_path`): a block keeps the change out of the running session.",
            &[("source", "string"), ("file_path", "path?")],
        ),
        &[],
    ),
    (
        ev(
            "CwdChanged",
            PointKind::Event,
            false, "When the working directory changes (`old_cwd`, `new_cwd`).",
            &[("old_cwd", "path"), ("new_cwd", "path")],
        ),
        &[],
    ),
    (
        ev(
            "DirectoryAdded",
            PointKind::Event,
            false, "When a directory is added to the session (`directory`).",
            &[("directory", "path"), ("source", "string")],
        ),
        &[],
    ),
    (
        ev(
            "FileChanged",
            PointKind::Event,
            false, "When a watched file changed (`file_path`, `event`); cannot block.",
            &[("file_path", "path"), ("event", "string")],
        ),
        &[],
    ),
    (
        ev(
            "WorktreeCreate",
            PointKind::Pre,
            true, "When a worktree is to be created (`name`): a block makes the creation fail.",
            &[("name", "string")],
        ),
        &[],
    ),
    (
        ev(
            "WorktreeRemove",
            PointKind::Event,
            false, "When a worktree is removed (`worktree_path`).",
            &[("worktree_path", "string")],
        ),
        &[],
    ),
    (
        ev(
            "PreCompact",
            PointKind::Pre,
            true, "Before the context is compacted (`trigger`: `manual` or `auto`): rules may block the compaction.",
            &[("trigger", "string"), ("custom_instructions", "string")],
        ),
        &[],
    ),
    (
        ev(
            "PostCompact",
            PointKind::Event,
            false, "After the context was compacted (`compact_summary`).",
            &[("trigger", "string"), ("compact_summary", "string")],
        ),
        &[],
    ),
    (
        ev(
            "SessionEnd",
            PointKind::Event,
            false, "When the session ends (`reason`); its hooks share a budget of about 1.5 s.",
            &[("reason", "string")],
        ),
        &[],
    ),
    (
        ev(
            "Elicitation",
            PointKind::Pre,
            true, "When an MCP server asks the user for input (`mcp_server_name`, `message`): a block declines it.",
            &[
                ("mcp_server_name", "string"),
                ("message", "string"),
                ("mode", "string?"),
                ("url", "string?"),
                ("elicitation_id", "string?"),
                ("requested_schema", "any?"),
            ],
        ),
        &[],
    ),
    (
        ev(
            "ElicitationResult",
            PointKind::Post,
            true, "When the user answered an MCP server's request for input (`action`, `content`): a block turns the answer into a decline.",
            &[
                ("mcp_server_name", "string"),
                ("action", "string"),
                ("content", "any?"),
                ("mode", "string?"),
                ("elicitation_id", "string?"),
            ],
        ),
        &[],
    ),
    (
        ev("PreModelSwitch", PointKind::Pre, true, "Before the session switches models (`from_model`, `to_model`): rules may deny, ask or allow the switch.", &[]),
        &[MODEL_SWITCH],
    ),
    (
        ev("PostModelSwitch", PointKind::Event, false, "After the session switched models (`from_model`, `to_model`): rules may add context.", &[]),
        &[MODEL_SWITCH],
    ),
];

const fn ev(
    name: &'static str,
    kind: PointKind,
    blocking: bool,
    doc: &'static str,
    fields: Fields,
) -> Event {
    Event {
        name,
        kind,
        blocking,
        doc,
        fields,
    }
}

/// The names of every Claude Code hook event, in the protocol's order.
pub fn event_names() -> impl Iterator<Item = &'static str> {
    EVENTS.iter().map(|(e, _)| e.name)
}

/// The `claude-code` schema.
pub fn schema() -> Schema {
    let points = EVENTS
        .iter()
        .map(|(event, groups)| {
            let mut payload: Vec<FieldDef> = Vec::new();
            let all = std::iter::once(COMMON)
                .chain(groups.iter().copied())
                .chain(std::iter::once(event.fields));
            for (path, ty) in all.flatten() {
                let Some(mut def) = FieldDef::parse(path, ty) else {
                    continue;
                };
                // Tool inputs are tool-specific: undeclared fields are fine.
                def.open = *path == "tool_input";
                // A later group refines an earlier one (e.g. `agent_id` is
                // required at `SubagentStart`).
                match payload.iter_mut().find(|f| f.path == def.path) {
                    Some(existing) => *existing = def,
                    None => payload.push(def),
                }
            }
            PointDef {
                name: event.name.to_string(),
                doc: event.doc.to_string(),
                kind: event.kind,
                blocking: event.blocking,
                payload,
                edits: EditApplication::AsEdited,
                outputs: super::outputs::declared(event.name),
            }
        })
        .collect();
    Schema {
        name: NAME.to_string(),
        doc: "every Claude Code hook event as a point, its JSON input as the payload".to_string(),
        points,
        command_input: CommandInput::Payload,
        component_scope: Some(NAME.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{FieldLookup, FieldType};

    #[test]
    fn every_type_parses_and_names_are_unique() {
        for (event, groups) in EVENTS {
            for (path, ty) in std::iter::once(COMMON)
                .chain(groups.iter().copied())
                .chain(std::iter::once(event.fields))
                .flatten()
            {
                assert!(FieldDef::parse(path, ty).is_some(), "{path}: {ty}");
            }
        }
        let names: std::collections::BTreeSet<_> = event_names().collect();
        assert_eq!(names.len(), EVENTS.len());
        assert_eq!(names.len(), 33);
    }

    #[test]
    fn tool_input_is_open_and_typed() {
        let s = schema();
        assert_eq!(
            s.field_type("PreToolUse", "payload", &["tool_input", "command"]),
            Some(FieldType::String)
        );
        assert_eq!(
            s.payload_field("PreToolUse", &["tool_input", "owner"]),
            FieldLookup::Open
        );
        assert_eq!(
            s.payload_field("PreToolUse", &["tool_nam"]),
            FieldLookup::Unknown
        );
        assert_eq!(
            s.payload_field("PostToolUse", &["tool_response", "anything"]),
            FieldLookup::Open
        );
        assert_eq!(
            s.payload_field("PreToolUse", &["effort", "levels"]),
            FieldLookup::Unknown
        );
        let start = s.point("SubagentStart").unwrap();
        let agent = start.payload.iter().find(|f| f.path == "agent_id").unwrap();
        assert!(!agent.optional);
        assert!(!start.blocking);
        assert!(s.point("PreToolUse").unwrap().blocking);
    }
}
