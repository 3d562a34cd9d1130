//! The fields of Claude Code's answer that a rule sets with `output NAME =
//! value`: everything the protocol reads that hookc's outcome (block, ask,
//! allow, context, edits) does not already say (PROTOCOL.md §4, §7).
//!
//! One table serves both halves: the schema declares each event's outputs
//! from it (so the checker refuses a name the event does not read, and
//! suggests the closest), and the answer ([`super::protocol`]) puts each
//! value where the event reads it.
//!
//! | event | outputs |
//! |---|---|
//! | every event but the silent ones (below) | `systemMessage`, `terminalSequence` |
//! | `SessionStart`, `Setup`, `UserPromptSubmit`, `UserPromptExpansion`, `PreToolUse`, `PermissionRequest`, `PermissionDenied`, `PostToolUse`, `PostToolUseFailure`, `PostToolBatch`, `SubagentStart`, `SubagentStop`, `Stop`, `TaskCompleted`, `TeammateIdle`, `PreModelSwitch`, `PostModelSwitch` | `continue`, `stopReason` |
//! | `SessionStart` | `initialUserMessage`, `sessionTitle`, `watchPaths`, `reloadSkills` |
//! | `UserPromptSubmit` | `sessionTitle`, `suppressOriginalPrompt` |
//! | `UserPromptExpansion` | `suppressOriginalPrompt` |
//! | `PreToolUse` | `permissionDecision` (for `"defer"`) |
//! | `PermissionRequest` | `decision.updatedPermissions`, `decision.interrupt` |
//! | `PermissionDenied` | `retry` |
//! | `PostToolUse` | `updatedMCPToolOutput`, `classifierContext` |
//! | `MessageDisplay` | `displayContent` |
//! | `CwdChanged`, `FileChanged` | `watchPaths` |
//! | `Elicitation`, `ElicitationResult` | `action`, `content` |
//! | `WorktreeCreate` | `worktreePath` (printed alone on stdout, as the protocol asks of a command hook) |
//!
//! `continue` and `stopReason` are left out where Claude Code discards them;
//! `systemMessage` and `terminalSequence` where it discards the whole
//! answer (`SessionEnd`, `InstructionsLoaded`, `WorktreeRemove`;
//! `Notification` and `StopFailure` read `terminalSequence` only). The
//! no-op `suppressOutput` is not offered.

use crate::schema::FieldDef;

/// Where a field goes in the answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Place {
    /// At the top level of the JSON object.
    Top,
    /// In `hookSpecificOutput`.
    Specific,
    /// In `hookSpecificOutput.decision` (the name after `decision.`).
    Decision,
    /// Alone on stdout, as text (`WorktreeCreate`'s path).
    Stdout,
}

/// One output: its name as rules write it, its type in the schema-file
/// syntax, and where it goes.
type Output = (&'static str, &'static str, Place);

const STOP: &[Output] = &[
    ("continue", "bool", Place::Top),
    ("stopReason", "string", Place::Top),
];
const MESSAGE: &[Output] = &[
    ("systemMessage", "string", Place::Top),
    ("terminalSequence", "string", Place::Top),
];
const TERMINAL: &[Output] = &[("terminalSequence", "string", Place::Top)];
const WATCH: &[Output] = &[("watchPaths", "list", Place::Specific)];

/// The outputs of `event`, in groups.
fn groups(event: &str) -> &'static [&'static [Output]] {
    match event {
        "SessionStart" => &[
            MESSAGE,
            STOP,
            &[
                ("initialUserMessage", "string", Place::Specific),
                ("sessionTitle", "string", Place::Specific),
                ("watchPaths", "list", Place::Specific),
                ("reloadSkills", "bool", Place::Specific),
            ],
        ],
        "UserPromptSubmit" => &[
            MESSAGE,
            STOP,
            &[
                ("sessionTitle", "string", Place::Specific),
                ("suppressOriginalPrompt", "bool", Place::Specific),
            ],
        ],
        "UserPromptExpansion" => &[
            MESSAGE,
            STOP,
            &[("suppressOriginalPrompt", "bool", Place::Specific)],
        ],
        "PreToolUse" => &[
            MESSAGE,
            STOP,
            &[("permissionDecision", "string", Place::Specific)],
        ],
        "PermissionRequest" => &[
            MESSAGE,
            STOP,
            &[
                ("decision.updatedPermissions", "list", Place::Decision),
                ("decision.interrupt", "bool", Place::Decision),
            ],
        ],
        "PermissionDenied" => &[MESSAGE, STOP, &[("retry", "bool", Place::Specific)]],
        "PostToolUse" => &[
            MESSAGE,
            STOP,
            &[
                ("updatedMCPToolOutput", "any", Place::Specific),
                ("classifierContext", "string", Place::Specific),
            ],
        ],
        "Setup" | "PostToolUseFailure" | "PostToolBatch" | "SubagentStart" | "SubagentStop"
        | "Stop" | "TaskCompleted" | "TeammateIdle" | "PreModelSwitch" | "PostModelSwitch" => {
            &[MESSAGE, STOP]
        }
        "MessageDisplay" => &[MESSAGE, &[("displayContent", "string", Place::Specific)]],
        "CwdChanged" | "FileChanged" => &[MESSAGE, WATCH],
        "Elicitation" | "ElicitationResult" => &[
            MESSAGE,
            &[
                ("action", "string", Place::Specific),
                ("content", "any", Place::Specific),
            ],
        ],
        "WorktreeCreate" => &[&[("worktreePath", "string", Place::Stdout)]],
        "TaskCreated" | "ConfigChange" | "DirectoryAdded" | "PreCompact" | "PostCompact" => {
            &[MESSAGE]
        }
        "Notification" | "StopFailure" => &[TERMINAL],
        _ => &[],
    }
}

/// The outputs the `claude-code` schema declares at `event`.
pub(crate) fn declared(event: &str) -> Vec<FieldDef> {
    groups(event)
        .iter()
        .flat_map(|group| group.iter())
        .filter_map(|&(name, ty, _)| FieldDef::parse(name, ty))
        .collect()
}

/// Where output `name` goes at `event`; `None` when the event does not read
/// it.
pub(crate) fn place(event: &str, name: &str) -> Option<Place> {
    groups(event)
        .iter()
        .flat_map(|group| group.iter())
        .find(|(n, _, _)| *n == name)
        .map(|&(_, _, place)| place)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_output_has_a_type_and_a_place() {
        for event in super::super::schema::event_names() {
            let declared = declared(event);
            let names: Vec<&str> = groups(event)
                .iter()
                .flat_map(|g| g.iter().map(|o| o.0))
                .collect();
            assert_eq!(
                declared.len(),
                names.len(),
                "{event}: a type does not parse"
            );
            let unique: std::collections::BTreeSet<_> = names.iter().collect();
            assert_eq!(unique.len(), names.len(), "{event}: a name twice");
            for name in names {
                assert!(place(event, name).is_some());
            }
        }
        assert_eq!(place("PreToolUse", "sessionTitle"), None);
        assert_eq!(
            place("PermissionRequest", "decision.interrupt"),
            Some(Place::Decision)
        );
        assert!(declared("SessionEnd").is_empty());
    }
}
