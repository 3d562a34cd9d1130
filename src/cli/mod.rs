//! The `hookc` command-line tool: lint, compile, evaluate and inspect rules.
//!
//! This is the top of the crate: it calls the library and never the other way
//! round. One file per subcommand; this module holds the clap definitions,
//! the exit-code policy and the small helpers the commands share (output that
//! never panics on a closed pipe, `error: …` messages, did-you-mean).
//!
//! Exit codes: 0 ok; 1 findings (lint errors, warnings with
//! `--deny-warnings`, rules that do not compile) or an `abort` outcome from
//! `eval`; 2 usage or I/O errors (unreadable files, bad events, corrupt
//! tables); 3 from `eval`, rules that do not compile (so that a script can
//! tell them from an abort). `witness` exits 1 when a rule has no witness;
//! `diff` exits 1 when two rule sets are not shown to answer alike.

mod claude;
mod compile;
mod completions;
mod decision_log;
mod diff;
mod doctor;
mod eval;
mod explain;
mod flush;
mod fmt;
mod import;
mod init;
mod inspect;
mod keygen;
mod lint;
mod lsp;
mod man;
mod rate_store;
mod schema;
mod test;
mod watch;
mod witness;

use crate::diag::{Diagnostics, Severity};
use clap::{Parser, Subcommand, ValueEnum};
use std::io::{self, IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;

const ROOT_AFTER_HELP: &str = "\
Examples:
  hookc lint rules/
  hookc eval rules/ --event examples/events/tool_exec_rm.json
  hookc explain rules/ --event examples/events/tool_exec_rm.json
  hookc compile rules/ -o rules.tbl && hookc inspect rules.tbl
  hookc fmt --check rules/ && hookc test rules/
  hookc schema claude-code --point PreToolUse

Exit codes: 0 ok, 1 findings or an abort outcome, 2 usage or I/O error.";

/// Lint, compile, evaluate and inspect declarative hook rules.
///
/// `.hooks` files say at which lifecycle point, for which target, under which
/// conditions, do what. hookc checks them like a compiler, compiles them into
/// a static dispatch table, and runs events through them.
#[derive(Debug, Parser)]
#[command(name = "hookc", version, after_help = ROOT_AFTER_HELP)]
struct Cli {
    /// Log more on stderr: -v info, -vv debug, -vvv trace (HOOKC_LOG or
    /// RUST_LOG overrides)
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    verbose: u8,

    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Check rule files and report every finding
    ///
    /// Parses and checks `.hooks` files (directories are searched recursively,
    /// in sorted order) against their schema: unknown hook points, invalid FQL
    /// targets, bad regexes, duplicate ids, unknown names, type mismatches,
    /// actions a point does not allow. Then runs the lints: unreachable rules,
    /// duplicate and contradictory conditions, edit conflicts, priority ties,
    /// unused definitions and imports, empty lists, regexes that match every
    /// string, globs that never match, insecure webhooks, raw bidi controls
    /// in literals, regexes that may be slow to match (`--explain CODE`
    /// documents each). Lint levels (allow, warn, deny) come from the
    /// `[lints]` table of the `hookc.toml` found in the first path's
    /// directory or above, and per rule from `# hookc: allow(CODE)` comments.
    /// Prints nothing when the rules are clean (but a note for each
    /// subdirectory with a `hookc.toml` of its own: a separate rule set, not
    /// searched). Human output goes to stderr,
    /// `--format json` and `--format sarif` (SARIF 2.1.0, for code scanning)
    /// to stdout.
    ///
    /// Exit status: 0 clean, 1 errors (or warnings with --deny-warnings),
    /// 2 a path cannot be read.
    #[command(
        after_help = "Examples:\n  hookc lint rules/\n  hookc lint rules/guard.hooks --deny-warnings\n  hookc lint rules/ --format sarif > hookc.sarif\n  hookc lint --explain unreachable-rule"
    )]
    Lint(lint::LintArgs),

    /// Compile rules into a binary dispatch table
    ///
    /// Checks the rules like `lint`, then writes the compiled table (versioned
    /// and checksummed; load it with `Table::from_bytes`, or give it to
    /// `eval --table` and `inspect`). Warnings are printed; when there are
    /// errors nothing is written. A one-line summary goes to stderr.
    ///
    /// The table is written atomically (a temporary file beside the output,
    /// renamed over it): a reader sees the old table or the new one, whole.
    /// A symlink at the output is replaced, not written through; a file
    /// replaced keeps its permissions. An output that is one of the rule
    /// files read (imports included) or ends in `.hooks` is refused.
    /// `--sign KEYFILE` signs the table (`hookc keygen`).
    ///
    /// Exit status: 0 written, 1 the rules have errors, 2 a path cannot be
    /// read, the output is a rule file, or it cannot be written.
    #[command(
        after_help = "Examples:\n  hookc compile rules/ -o rules.tbl\n  hookc compile rules/guard.hooks rules/redact.hooks -o guard.tbl\n  hookc compile .hookc/ -o .hookc/rules.tbl --sign ~/.config/hookc/signing.key"
    )]
    Compile(compile::CompileArgs),

    /// Run one event through the rules and print the outcome
    ///
    /// Reads an ORCS HookContext JSON event (`hook_point`, `component_id`,
    /// `channel_id`, `principal`, `timestamp_ms`, `payload`, `metadata`,
    /// `depth`, `max_depth`; only the first two are required), dispatches it
    /// at its hook point for the target built from `component_id`, `child_id`
    /// and `instance`, and prints the outcome: continue, skip, abort or ask,
    /// with the reason, the decision, the edited context, the rules that
    /// fired, log lines and warnings. Command-line options override the
    /// event's fields.
    ///
    /// Exit status: 0 the outcome is not an abort, 1 abort, 2 unreadable or
    /// invalid event, unknown hook point, or a table that cannot be loaded,
    /// 3 the rules do not compile.
    #[command(
        after_help = "Examples:\n  hookc eval rules/ --event examples/events/tool_exec_rm.json\n  hookc eval --table rules.tbl --event - < event.json\n  hookc eval rules/ --event event.json --target builtin::llm/agent-1 --format human"
    )]
    Eval(eval::EvalArgs),

    /// Show why each rule of a point fired or did not, for one event
    ///
    /// Runs the event like `eval` and, for every rule of its hook point in
    /// execution order, shows where the rule is written, whether its FQL
    /// target matches (and which part does not), the value of each part of
    /// its condition on the context as it was when the chain reached the rule
    /// (with the tested field's value and where the condition is written),
    /// whether it fired, and what its actions did; then the outcome. The
    /// values come from the compiled table's own matchers.
    ///
    /// The event is an ORCS HookContext JSON, or a Claude Code hook event
    /// (with `hook_event_name`): its point is the event name, the whole event
    /// is the payload, and the component is `claude-code::<tool_name>`
    /// (`claude-code::session` without a tool).
    ///
    /// Exit status: 0 explained, 1 the rules do not compile, 2 unreadable or
    /// invalid event, unknown hook point, or a table that cannot be loaded.
    #[command(
        after_help = "Examples:\n  hookc explain rules/ --event examples/events/tool_exec_rm.json\n  hookc explain --table rules.tbl --event - --format json < event.json\n  hookc explain claude.hooks --event pre_tool_use.json --point PreToolUse"
    )]
    Explain(explain::ExplainArgs),

    /// Build, for each rule, an event that makes it fire
    ///
    /// Compiles the rules (or loads `--table`) and, for every rule (or the
    /// one named by `--rule`), builds a hook context of the rule's point
    /// and target whose fields satisfy its condition: the constants of
    /// `==` and `in`, numbers inside the comparisons' bounds, for
    /// `contains`, `starts_with`, `ends_with`, regexes and globs a shortest
    /// string in all their languages (searched through their DFAs) and
    /// outside those of the negated ones; `or` and `not` are followed.
    /// Each event is run through the rules as `hookc eval` runs it (effects
    /// recorded, not run) and printed only when the rule fired; when an
    /// earlier rule ends the chain first, its condition is negated and the
    /// search tried again. Save an event and `hookc eval RULES --event
    /// FILE` fires the rule. A rule without a witness is `unreachable` when
    /// that is proven (the rule is disabled, or its conditions contradict
    /// each other), else `undecided`, with the reason (an expression or a
    /// `rate(…)` test the search does not solve, a search limit).
    /// `--format json` prints an array of {rule, point, target, file, line,
    /// status, event, reason}.
    ///
    /// Exit status: 0 every rule has a witness, 1 a rule has none (or the
    /// rules have errors), 2 a path cannot be read, the table cannot be
    /// loaded, or no rule has the id of `--rule`.
    #[command(
        after_help = "Examples:\n  hookc witness rules/\n  hookc witness rules/ --rule block-secret-args --format json\n  hookc witness --table rules.tbl"
    )]
    Witness(witness::WitnessArgs),

    /// Show the events two versions of a policy answer differently
    ///
    /// Compares OLD with NEW (each a `.hooks` file, a directory, or a
    /// compiled table) point by point. Rules are matched by id, then by
    /// meaning; each rule added, removed, changed, renamed or moved is a
    /// change. For every change the search builds events (from the rules'
    /// conditions, as `hookc witness` does: the new condition and not the
    /// old, and the reverse) and runs each through both rule sets, effects
    /// recorded, not run; an event whose answers differ (outcome, reason,
    /// decision, edits, log lines, context, outputs) is printed with both
    /// answers. A change with no such event is "proven to change no
    /// answer" when it is (a rename, an unreachable rule, a condition
    /// rewritten into an equivalent one, two rules swapped that never fire
    /// together and edit nothing), and otherwise `undecided`. One event at
    /// a time: `rate(…)` counts across events are not compared.
    ///
    /// Exit status: 0 every point answers every event the same way, 1 an
    /// event is answered differently or a change is undecided, 2 a path
    /// cannot be read, a table cannot be loaded, or the schemas differ, 3
    /// rules that do not compile.
    #[command(
        after_help = "Examples:\n  hookc diff old/ rules/\n  hookc diff rules.tbl rules/ --format json"
    )]
    Diff(diff::DiffArgs),

    /// Answer a Claude Code hook event: hookc as a `type: "command"` hook
    ///
    /// Claude Code runs it for an event with the event JSON on stdin. The
    /// event becomes a hook context for the `claude-code` schema (point =
    /// `hook_event_name`, payload = the event, component =
    /// `claude-code::<tool_name>` or `claude-code::session`), the rules run,
    /// and the answer is what Claude Code reads for that event: at
    /// PreToolUse `hookSpecificOutput.permissionDecision` deny / ask / allow
    /// with the reason, `updatedInput` when rules edited
    /// `payload.tool_input` and `additionalContext`; at PermissionRequest
    /// `decision.behavior`; at UserPromptSubmit, PostToolUse, Stop,
    /// SubagentStop, PreCompact, … `decision: "block"` + `reason`; at
    /// SessionStart `additionalContext`; at TeammateIdle, TaskCompleted and
    /// WorktreeCreate exit 2 with the reason on stderr. Nothing on stdout
    /// when no rule decided. Unknown events and fields are fine (no rule
    /// fires). README.md § Claude Code has the whole table.
    ///
    /// The rules, first found: `--table FILE` or `--rules PATH`; the table
    /// named by `HOOKC_TABLE`; in the project (`CLAUDE_PROJECT_DIR`, else
    /// the event's `cwd`) `.hookc/rules.tbl`, else the `.hooks` files of
    /// `.hookc/` (compiled at every run: compile them for speed).
    ///
    /// When the rules cannot be loaded (none found, a corrupt table, rules
    /// that do not compile) or cannot be the policy (a table of another
    /// schema than `claude-code`, or with no rules) or stdin is not an
    /// event, the reason goes to
    /// stderr and hookc fails open: exit 0, no decision, so a broken policy
    /// never stops the agent. With `--fail-closed` it blocks instead: exit 2
    /// (a JSON deny at PermissionRequest, which ignores exit codes).
    /// With `--verify-key FILE` (or `verify-key` under `[claude]` in the
    /// `hookc.toml` found from the table) only a table signed by that key
    /// is used: an unsigned or modified one, or `.hooks` rules, take that
    /// same failure path.
    /// The event's commands and handlers share a deadline (`--deadline`,
    /// by default below Claude Code's timeout for the event): at it they
    /// are stopped and each rule's fail mode applies. Relative paths in
    /// rules resolve against the project (`CLAUDE_PROJECT_DIR`, else the
    /// event's `cwd`). Webhooks are waited for before exiting
    /// (`--webhook-flush`); those not delivered are reported on stderr.
    /// `HOOKC_LOG=debug` logs to stderr.
    ///
    /// Exit status: 0 answered (or failed open), 2 a block that only the
    /// exit code expresses, or a failure with --fail-closed.
    #[command(
        after_help = "Examples:\n  hookc claude --table .hookc/rules.tbl < event.json\n  hookc claude --rules rules/claude-code/ < event.json\n  HOOKC_TABLE=rules.tbl hookc claude --fail-closed < event.json\n\nsettings.json (exec form):\n  {\"type\": \"command\", \"command\": \"hookc\",\n   \"args\": [\"claude\", \"--table\", \"${CLAUDE_PROJECT_DIR}/.hookc/rules.tbl\"]}"
    )]
    Claude(claude::ClaudeArgs),

    /// Summarize a compiled table or a set of rule files
    ///
    /// Shows the schema, the source files, the table size, and per hook
    /// point its kind, rule count and atom count, then its rules in execution
    /// order: priority, id, target, enabled or disabled, fail mode, condition
    /// atoms, actions, and where each rule was written. Given `.hooks` files
    /// or directories, compiles them first. `--format json` prints all of
    /// it as data, with the format version, every point of the schema, the
    /// digest of the sources, the signature, each rule's trigger and the
    /// sizes of the matchers and automata.
    ///
    /// Exit status: 0 ok, 1 the rules have errors, 2 a path cannot be read or
    /// the table cannot be loaded.
    #[command(
        after_help = "Examples:\n  hookc inspect rules.tbl\n  hookc inspect rules/ --format json"
    )]
    Inspect(inspect::InspectArgs),

    /// Rewrite rule files in the canonical layout
    ///
    /// Parses each `.hooks` file (directories are searched recursively) and
    /// prints it back in one layout: 4-space indentation, one condition or
    /// action per line, header options in a fixed order, canonical spacing,
    /// string escapes and parentheses, one blank line between items.
    /// Comments are kept. Files are rewritten in place (only when they
    /// change), atomically and keeping their permissions; a file that is a
    /// symlink is not rewritten (format the file it points to). `-` reads
    /// stdin and writes the result to stdout. With
    /// `--check`, nothing is written: the files that would change are listed,
    /// each with its whole unified diff. `--format json` prints one document
    /// instead: per file whether it changes (or would) and its diff, and the
    /// diagnostics. A file with syntax errors is not formatted; its errors
    /// are printed.
    ///
    /// Exit status: 0 formatted (or, with --check, already formatted), 1 with
    /// --check some file would change, 2 a file does not parse or a path
    /// cannot be read or written.
    #[command(
        after_help = "Examples:\n  hookc fmt rules/\n  hookc fmt --check rules/\n  hookc fmt --check --format json rules/\n  hookc fmt - < guard.hooks"
    )]
    Fmt(fmt::FmtArgs),

    /// Run the tests written next to the rules
    ///
    /// Compiles the rules of every `.hooks` file given (directories are
    /// searched recursively), then runs each `test "name" { … }` block of
    /// those files: dispatches its `event` at the event's hook point and
    /// checks every `expect` line (`abort`, `continue`, `skip`, `ask`,
    /// `fired [...]`, `decision …`, or a condition on the final context).
    /// Prints one line per test like `cargo test`, the failures, and a
    /// summary. Tests run against the rules of all the files together.
    /// `--run FILTER` runs only the tests whose `FILE::NAME` contains
    /// FILTER; the summary counts the others as filtered out. `--coverage`
    /// reports, per file, the rules no test made fire and the parts of
    /// their conditions (each `when`/`unless` line, each `and`/`or`
    /// operand) that no test made true, or false, or reached at all, at
    /// `file:line:col`. `--format json` prints one document (with the
    /// coverage), `--format junit` JUnit XML for CI (the coverage then goes
    /// to stderr).
    ///
    /// Exit status: 0 every test passed, 1 a test failed, 2 the rules or the
    /// tests do not compile, or a path cannot be read. Coverage and the
    /// format do not change it.
    #[command(
        after_help = "Examples:\n  hookc test rules/\n  hookc test rules/guard.hooks rules/common.hooks\n  hookc test rules/ --coverage\n  hookc test rules/ --run \"rm is blocked\"\n  hookc test rules/ --format junit > hookc-tests.xml"
    )]
    Test(test::TestArgs),

    /// Recompile rules whenever they change, keeping the last good table
    ///
    /// Compiles the rules like `compile`, writes the table (atomically:
    /// written beside the output and renamed over it), then recompiles on
    /// every change to the rule files and everything they import: woken by
    /// file-system events (debounced), and looking at the files' contents
    /// every `--interval` milliseconds too (alone with `--poll`, or when
    /// events are unavailable). What is compiled is exactly what was read,
    /// so a save that lands during a compilation is compiled next. A change
    /// that compiles replaces the table and runs the `--exec` command (e.g.
    /// to tell the host to reload); one with errors prints them and leaves
    /// the last good table in place; one that leaves no rules, or empties a
    /// file whose rules are in the table (an editor's truncate-then-write
    /// save), is reported and not published unless `--allow-empty`. Runs
    /// until interrupted. A host linking the library can use
    /// `hookc::watch::Watcher::run` to reload a `Registry` in-process instead.
    /// `--format json` reports each event as one JSON object per line on
    /// stdout (`started`, `compiled`, `failed` with the diagnostics, `kept`,
    /// `reloaded` after `--exec`, `refused`).
    #[command(
        after_help = "Examples:\n  hookc watch rules/ -o rules.tbl\n  hookc watch rules/ -o rules.tbl --exec pkill -HUP my-agent\n  hookc watch rules/ -o rules.tbl --poll --interval 1000\n  hookc watch rules/ -o rules.tbl --format json | jq -c 'select(.event == \"failed\")'"
    )]
    Watch(watch::WatchArgs),

    /// Convert another hook system's configuration to `.hooks` rules
    ///
    /// Reads ORCS `[[hooks]]` TOML, IronClaw hook bundles, Claude Code
    /// `settings.json` hooks or MCP Router hooks (JSON) and writes the rules
    /// they mean, in the canonical layout of `hookc fmt`. Several files are
    /// merged in order (ORCS layers replace entries by id). What a source
    /// field cannot become is a warning; invalid input is an error, and then
    /// nothing is written. Rules go to stdout, or with `-o` to a file, with
    /// the files they need beside it: the Node.js runners of MCP Router
    /// scripts (in `mcp-router/`). The module docs of `hookc::import` have each mapping.
    /// `--format json` prints one document instead: the rules imported, the
    /// files written, what could not be imported, the diagnostics.
    ///
    /// Exit status: 0 imported (warnings allowed), 1 errors in the input,
    /// 2 a file cannot be read or written.
    #[command(
        after_help = "Examples:\n  hookc import claude-settings .claude/settings.json -o rules/claude.hooks\n  hookc import orcs ~/.orcs/orcs.toml .orcs/orcs.toml > rules/orcs.hooks\n  hookc import ironclaw hooks/hooks.json -o rules/ironclaw.hooks\n  hookc import mcp-router mcp-hooks.json -o rules/mcp.hooks\n  hookc import claude-settings .claude/settings.json --format json"
    )]
    Import(import::ImportArgs),

    /// Make a key pair for signing tables
    ///
    /// Writes a new ed25519 secret key to FILE (PKCS#8 PEM, readable by its
    /// owner alone) and its public key to FILE.pub (SPKI PEM), the formats
    /// OpenSSL reads and writes. Never overwrites either file. Sign a table
    /// with `hookc compile --sign FILE`; make `hookc claude` refuse any table
    /// not signed by it with `--verify-key FILE.pub` (or `verify-key` under
    /// `[claude]` in `hookc.toml`); hosts use `Table::from_bytes_verified`.
    /// Keep the secret key where the agent cannot read it.
    ///
    /// Exit status: 0 written, 2 a file exists or cannot be written.
    #[command(after_help = "Examples:\n  hookc keygen -o ~/.config/hookc/signing.key")]
    Keygen(keygen::KeygenArgs),

    /// Set a project (or the user) up for Claude Code in one command
    ///
    /// Writes the starter pack into the policy directory (`.hookc/` in the
    /// project; with `--user`, the platform's configuration directory),
    /// compiles it into `rules.tbl`, and adds a hook entry running this
    /// hookc (exec form, an absolute path, so any working directory works)
    /// for every event the pack's rules are on to `.claude/settings.json`
    /// (with `--user`, `~/.claude/settings.json`). Other hooks, permissions
    /// and key order are kept, the old settings are copied to
    /// `settings.json.bak`, and running it again changes nothing: a pack
    /// file you edited is kept, an event with a hookc entry gets no second
    /// one. `--dry-run` prints the changes, the settings as a unified diff.
    ///
    /// Exit status: 0 set up (or nothing to change), 2 a file cannot be
    /// read or written, the settings are not JSON, or the rules there do
    /// not compile.
    #[command(
        after_help = "Examples:\n  hookc init claude\n  hookc init claude --dry-run\n  hookc init claude --pack all --project ~/src/app\n  hookc init claude --user"
    )]
    Init(init::InitArgs),

    /// Check that Claude Code runs hookc, and that hookc answers
    ///
    /// Finds every hook entry running `hookc claude` in the project's
    /// `.claude/settings.json` and `settings.local.json` and the user's
    /// `~/.claude/settings.json`, checks that its command resolves to an
    /// executable, and runs a sample event of its event through the exact
    /// command and arguments configured (`CLAUDE_PROJECT_DIR` set and
    /// substituted, as Claude Code does). Then reports the project's policy:
    /// the table, its schema and rule count, whether its sources changed
    /// since it was compiled, and who signed it. `--format json` prints one
    /// object.
    ///
    /// Exit status: 0 no problem, 1 a problem (listed), 2 usage errors.
    #[command(
        after_help = "Examples:\n  hookc doctor\n  hookc doctor --project ~/src/app --format json"
    )]
    Doctor(doctor::DoctorArgs),

    /// Show the hook points of a schema, with their kinds, docs and fields
    ///
    /// Names a built-in schema (`orcs`, `claude-code`, `ironclaw`) or a
    /// custom schema file (TOML, as `schema "FILE"` names it in a `.hooks`
    /// file) and shows its points in order: each point's kind (pre, post or
    /// event), whether rules there can block, what it is, how the host
    /// applies edits there, its payload fields with their types (nested
    /// fields with their dotted paths, `?` for optional, `(open)` for an
    /// object that accepts fields it does not declare) and the outputs rules
    /// may set; then the fields of the hook context every point has.
    /// `--point P` shows one point. Without a schema, lists the built-in
    /// ones. `--format markdown` prints tables for documentation, `--format
    /// json` a document whose shape is stable (README.md § The command line
    /// documents it).
    ///
    /// Exit status: 0 shown, 2 an unknown schema or point, or a schema file
    /// that cannot be read or has errors.
    #[command(
        after_help = "Examples:\n  hookc schema\n  hookc schema claude-code --point PreToolUse\n  hookc schema ironclaw --format json\n  hookc schema rules/app.schema.toml --format markdown > docs/points.md"
    )]
    Schema(schema::SchemaArgs),

    /// Print the shell completion script of hookc
    ///
    /// Writes a tab-completion script for the shell to stdout, generated
    /// from hookc's own command-line definition: every subcommand, option
    /// and value. Load it from the shell's startup file, or install it
    /// where the shell looks for completions.
    ///
    /// Exit status: 0 printed, 2 an unknown shell.
    #[command(
        after_help = "Examples:\n  hookc completions bash > ~/.local/share/bash-completion/completions/hookc\n  hookc completions zsh > ~/.zfunc/_hookc\n  hookc completions fish > ~/.config/fish/completions/hookc.fish\n  hookc completions powershell >> $PROFILE"
    )]
    Completions(completions::CompletionsArgs),

    /// Print or write hookc's manual pages
    ///
    /// Renders the manual page of hookc (roff, section 1) from its own
    /// command-line definition and prints it to stdout. With `--out DIR`,
    /// writes `hookc.1` and one page per subcommand (`hookc-lint.1`,
    /// `hookc-compile.1`, …) into DIR instead, ready for a `man1`
    /// directory.
    ///
    /// Exit status: 0 printed or written, 2 a page cannot be written.
    #[command(after_help = "Examples:\n  hookc man | man -l -\n  hookc man --out target/man/man1")]
    Man(man::ManArgs),
    /// Serve editors: a language server for `.hooks` files, on stdio
    ///
    /// Speaks the Language Server Protocol on stdin and stdout, for an
    /// editor to start. Documents are checked as they are typed, with the
    /// checker and lints of `lint` (their codes and help; lint levels from
    /// the `hookc.toml` found from the file; imports read beside the file,
    /// or from the editor when open there). Also: hover (points, fields
    /// with their schema types, the value of a list, pattern or macro,
    /// functions, keywords), completion (points, fields, names, keywords,
    /// import paths), go to definition (lists, patterns, macros, imported
    /// files), formatting (`fmt`) and quick fixes for did-you-mean
    /// suggestions.
    ///
    /// Exit status: 0 after the client's `shutdown` and `exit`, 1 when the
    /// client exits without `shutdown` or closes stdin, 2 when the input is
    /// not framed LSP messages.
    #[command(
        after_help = "Editors start it themselves, e.g. Neovim (0.11+):\n  vim.lsp.config(\"hookc\", {cmd = {\"hookc\", \"lsp\"}, filetypes = {\"hooks\"}})\n  vim.lsp.enable(\"hookc\")\n\nREADME.md § Editors has VS Code and Helix."
    )]
    Lsp(lsp::LspArgs),
}

/// Output formats: `human` for people, `json` for machines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    /// Text for people
    Human,
    /// JSON for machines
    Json,
}

/// How a command that ran to the end went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Status {
    /// Exit 0.
    Ok,
    /// Exit 1: findings, or an abort outcome.
    Findings,
    /// Exit 2: an error that was already reported (e.g. as a diagnostic).
    Reported,
    /// Exit 3: `eval`'s rules do not compile (reported), which an abort
    /// outcome (1) must not be mistaken for.
    RulesInvalid,
}

/// A usage or I/O error: printed as `error: …` on stderr, exit 2.
#[derive(Debug)]
pub(crate) struct Failure {
    message: String,
    help: Vec<String>,
}

impl Failure {
    /// A failure with a message (lowercase, no trailing period).
    pub(crate) fn new(message: impl Into<String>) -> Failure {
        Failure {
            message: message.into(),
            help: Vec::new(),
        }
    }

    /// Adds a `help:` line.
    pub(crate) fn help(mut self, help: impl Into<String>) -> Failure {
        self.help.push(help.into());
        self
    }

    /// `cannot read `path`: reason`.
    pub(crate) fn cannot_read(path: &Path, err: &io::Error) -> Failure {
        Failure::new(format!(
            "cannot read `{}`: {}",
            path.display(),
            io_reason(err)
        ))
    }

    /// `cannot write `path`: reason`.
    pub(crate) fn cannot_write(path: &Path, err: &io::Error) -> Failure {
        Failure::new(format!(
            "cannot write `{}`: {}",
            path.display(),
            io_reason(err)
        ))
    }

    fn print(&self) {
        let mut text = format!("error: {}\n", self.message);
        for help in &self.help {
            text.push_str(&format!("help: {help}\n"));
        }
        // Paths and event text end up in messages: nothing raw reaches the
        // terminal.
        print_stderr(&crate::diag::escape::guard(text));
    }
}

/// Runs the command line of this process and returns its exit code.
///
/// Parses `std::env::args`, sets up logging to stderr (`-v`, `HOOKC_LOG` or `RUST_LOG`),
/// runs the subcommand and maps the result to an exit code: 0 ok, 1 findings
/// or an abort outcome, 2 usage or I/O error. It never panics on bad input.
pub fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if let Some(claude_args) = claude_only(&args) {
        return exit_code(claude::run(claude_args, 0));
    }
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(err) => {
            use clap::error::ErrorKind;
            let asked = matches!(
                err.kind(),
                ErrorKind::DisplayHelp
                    | ErrorKind::DisplayVersion
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            );
            // Under Claude Code a usage error must not read as a block.
            if !asked && claude::is_claude_command(&args) {
                return match claude::bad_arguments(&args, &err.render().to_string()) {
                    Status::Reported => ExitCode::from(2),
                    _ => ExitCode::SUCCESS,
                };
            }
            // Help and version exit 0, usage errors exit 2.
            let code = err.exit_code();
            let _ = err.print();
            return ExitCode::from(u8::try_from(code).unwrap_or(2));
        }
    };
    // `claude` runs on every tool call: it sets up logging only on request.
    if !matches!(cli.command, Command::Claude(_)) {
        init_tracing(cli.verbose);
    }
    let result = match cli.command {
        Command::Lint(args) => lint::run(args),
        Command::Compile(args) => compile::run(args),
        Command::Eval(args) => eval::run(args),
        Command::Explain(args) => explain::run(args),
        Command::Witness(args) => witness::run(args),
        Command::Diff(args) => diff::run(args),
        Command::Claude(args) => claude::run(args, cli.verbose),
        Command::Inspect(args) => inspect::run(args),
        Command::Fmt(args) => fmt::run(args),
        Command::Test(args) => test::run(args),
        Command::Watch(args) => watch::run(args),
        Command::Import(args) => import::run(args),
        Command::Keygen(args) => keygen::run(args),
        Command::Init(args) => init::run(args),
        Command::Doctor(args) => doctor::run(args),
        Command::Schema(args) => schema::run(args),
        Command::Completions(args) => completions::run(args),
        Command::Man(args) => man::run(args),
        Command::Lsp(args) => lsp::run(args),
    };
    exit_code(result)
}

fn exit_code(result: Result<Status, Failure>) -> ExitCode {
    match result {
        Ok(Status::Ok) => ExitCode::SUCCESS,
        Ok(Status::Findings) => ExitCode::from(1),
        Ok(Status::Reported) => ExitCode::from(2),
        Ok(Status::RulesInvalid) => ExitCode::from(3),
        Err(failure) => {
            failure.print();
            ExitCode::from(2)
        }
    }
}

/// `hookc claude …` parsed by `claude`'s own arguments alone. Claude Code
/// starts a process per tool call, and clap builds every subcommand's
/// arguments before it parses (8 % of a hook process's instructions).
/// `None` for anything else, and for whatever this parser does not take
/// (help, a global flag such as `-v`, a usage error): the whole command
/// line's parser then answers as always.
fn claude_only(args: &[std::ffi::OsString]) -> Option<claude::ClaudeArgs> {
    use clap::{Args, FromArgMatches};
    if args.get(1).is_none_or(|a| a != "claude") {
        return None;
    }
    let mut command = claude::ClaudeArgs::augment_args(
        clap::Command::new("claude")
            .disable_help_flag(true)
            .disable_version_flag(true),
    );
    let matches = command.try_get_matches_from_mut(args.get(1..)?).ok()?;
    let parsed = claude::ClaudeArgs::from_arg_matches(&matches).ok();
    // The hook process ends soon after: freeing the parser's structures
    // would only add to every tool call's latency (as the table's, in
    // `claude::respond`).
    std::mem::forget((command, matches));
    parsed
}

/// The clap definition of the whole command line, for the generated
/// completion scripts and manual pages.
pub(crate) fn command() -> clap::Command {
    use clap::CommandFactory;
    Cli::command()
}

/// Logging for every command but `claude` (which sets it up only on
/// request): `HOOKC_LOG` (the one variable every command reads), else
/// `RUST_LOG`, else `-v`.
fn init_tracing(verbose: u8) {
    use tracing_subscriber::EnvFilter;
    let from_env = ["HOOKC_LOG", "RUST_LOG"]
        .into_iter()
        .filter_map(|var| std::env::var(var).ok())
        .find(|s| !s.trim().is_empty())
        .and_then(|s| EnvFilter::try_new(s).ok());
    let filter = from_env.unwrap_or_else(|| {
        EnvFilter::new(match verbose {
            0 => "off",
            1 => "info",
            2 => "debug",
            _ => "trace",
        })
    });
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(io::stderr)
        .with_ansi(stderr_color())
        .without_time()
        .try_init();
}

/// True when stderr is a terminal and `NO_COLOR` is unset or empty.
pub(crate) fn stderr_color() -> bool {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    !no_color && io::stderr().is_terminal()
}

/// Writes to stdout; a closed pipe is not an error worth a panic.
pub(crate) fn print_stdout(text: &str) {
    let mut out = io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

/// Writes to stderr, ignoring write errors.
pub(crate) fn print_stderr(text: &str) {
    let mut err = io::stderr().lock();
    let _ = err.write_all(text.as_bytes());
    let _ = err.flush();
}

/// Pretty JSON with a trailing newline.
pub(crate) fn pretty_json(value: &impl serde::Serialize) -> Result<String, Failure> {
    serde_json::to_string_pretty(value)
        .map(|mut s| {
            s.push('\n');
            s
        })
        .map_err(|e| Failure::new(format!("cannot serialize output: {e}")))
}

/// Reports diagnostics: rustc-like text on stderr (nothing when there are
/// none), or the JSON form on stdout (always, so machines get a document).
pub(crate) fn emit_diagnostics(diags: &Diagnostics, format: Format) -> Result<(), Failure> {
    match format {
        Format::Human => {
            if !diags.is_empty() {
                let mut text = crate::diag::render::human(diags, stderr_color());
                if !text.ends_with('\n') {
                    text.push('\n');
                }
                print_stderr(&text);
            }
        }
        Format::Json => print_stdout(&pretty_json(&crate::diag::render::json(diags))?),
    }
    Ok(())
}

/// Compiler options with the lint levels of the configuration: `explicit`
/// (`--config FILE`, which must exist) or the `hookc.toml` found from the
/// first path; with the problems found in that file.
pub(crate) fn load_config(
    paths: &[std::path::PathBuf],
    explicit: Option<&Path>,
) -> Result<(crate::Options, Diagnostics), Failure> {
    if let Some(path) = explicit {
        if let Err(err) = std::fs::metadata(path) {
            return Err(Failure::cannot_read(path, &err));
        }
    }
    let (config, diags) = crate::config::Config::discover(paths, explicit);
    Ok((config.options(), diags))
}

/// True when a diagnostic is an I/O problem (a path that cannot be read).
pub(crate) fn has_io_errors(diags: &Diagnostics) -> bool {
    diags
        .iter()
        .any(|d| d.code == "io" && d.severity == Severity::Error)
}

/// Fails with `cannot read` for the first path that does not exist.
pub(crate) fn check_paths(paths: &[std::path::PathBuf]) -> Result<(), Failure> {
    for path in paths {
        if let Err(err) = std::fs::metadata(path) {
            return Err(Failure::cannot_read(path, &err));
        }
    }
    Ok(())
}

/// The table a command runs: the compiled one at `table`, or the rules at
/// `paths` compiled (their warnings printed). Rules that do not compile
/// print their diagnostics and give the status to exit with: `Reported`
/// for unreadable paths, `invalid` otherwise.
pub(crate) fn table_or_rules(
    table: Option<&Path>,
    paths: &[std::path::PathBuf],
    invalid: Status,
) -> Result<Result<crate::Table, Status>, Failure> {
    if let Some(path) = table {
        return Ok(Ok(inspect::load_table(path)?.0));
    }
    check_sources(paths)?;
    match crate::compile_paths(paths, &crate::Options::default()) {
        Ok(compiled) => {
            emit_diagnostics(&compiled.warnings, Format::Human)?;
            Ok(Ok(compiled.table))
        }
        Err(diags) => {
            emit_diagnostics(&diags, Format::Human)?;
            Ok(Err(if has_io_errors(&diags) {
                Status::Reported
            } else {
                invalid
            }))
        }
    }
}

/// Like [`check_paths`], and fails when a path is a compiled table rather
/// than rule source (its first bytes are the table label).
pub(crate) fn check_sources(paths: &[std::path::PathBuf]) -> Result<(), Failure> {
    use std::io::Read;
    check_paths(paths)?;
    for path in paths.iter().filter(|p| p.is_file()) {
        let mut head = [0u8; crate::table::LABEL.len()];
        let is_table = std::fs::File::open(path)
            .and_then(|mut f| f.read_exact(&mut head))
            .is_ok_and(|()| &head == crate::table::LABEL);
        if is_table {
            return Err(Failure::new(format!(
                "`{}` is a compiled table, not a `.hooks` source",
                path.display()
            ))
            .help(
                "run it with `hookc eval --table FILE`, or summarize it with `hookc inspect FILE`",
            ));
        }
    }
    Ok(())
}

/// An I/O error's message without the `(os error N)` suffix, lowercase first.
pub(crate) fn io_reason(err: &io::Error) -> String {
    let text = err.to_string();
    let text = match text.rfind(" (os error ") {
        Some(at) if text.ends_with(')') => text.get(..at).unwrap_or(&text).to_string(),
        _ => text,
    };
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => text,
    }
}

/// `n thing` / `n things`.
pub(crate) fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("{n} {one}")
    } else {
        format!("{n} {many}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn clap_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn io_reasons_are_short() {
        let err = io::Error::from_raw_os_error(2);
        assert_eq!(io_reason(&err), "no such file or directory");
    }
}
