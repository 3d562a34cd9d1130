//! `hookc init claude`: a project (or the user) set up for Claude Code in
//! one command: the policy directory with a starter pack, its compiled
//! table, and the hook entries in Claude Code's settings.
//!
//! Everything it writes is idempotent: a pack file that exists is kept
//! (the user's edits win; a differing one is reported), the table is
//! rewritten only when its bytes change, and a hook entry is added to an
//! event only when no hookc entry is there. The settings keep their other
//! hooks, permissions, key order, indentation and every other byte: the
//! entries are added through the file's concrete syntax tree; before they
//! change, the old file is copied to `settings.json.bak`. `--dry-run` prints what would change,
//! the settings as a unified diff, and writes nothing.

use super::{print_stderr, print_stdout, Failure, Status};
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};

/// Arguments of `hookc init`.
#[derive(Debug, clap::Args)]
pub(crate) struct InitArgs {
    /// What to set up (only `claude`: Claude Code)
    #[arg(value_enum)]
    target: InitTarget,

    /// Set up for the user rather than the project: the policy in the
    /// platform's configuration directory (`~/.config/hookc` on Linux),
    /// the hooks in `~/.claude/settings.json`
    #[arg(long)]
    user: bool,

    /// The starter pack: `guards` (Bash, file and MCP guards, prompt
    /// secrets), `trace` (the agent trace of writes), or `all`
    #[arg(long, value_enum, default_value = "guards")]
    pack: Pack,

    /// The project directory (default: the current directory)
    #[arg(long, value_name = "DIR", conflicts_with = "user")]
    project: Option<PathBuf>,

    /// Print what would change (the settings as a unified diff) and write
    /// nothing
    #[arg(long)]
    dry_run: bool,
}

/// What `hookc init` sets up.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum InitTarget {
    /// Claude Code command hooks.
    Claude,
}

/// The starter packs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Pack {
    /// `guards.hooks`.
    Guards,
    /// `trace.hooks`.
    Trace,
    /// Both.
    All,
}

/// The shipped Claude Code pack, as `hookc init` writes it.
const GUARDS: (&str, &str) = (
    "guards.hooks",
    include_str!("../../rules/claude-code/guards.hooks"),
);
const TRACE: (&str, &str) = (
    "trace.hooks",
    include_str!("../../rules/claude-code/trace.hooks"),
);
const CONFIG: (&str, &str) = (
    "hookc.toml",
    include_str!("../../rules/claude-code/hookc.toml"),
);

/// Where one setup goes.
struct Layout {
    /// The policy directory (`.hookc/`, or the user's configuration).
    policy: PathBuf,
    /// Claude Code's settings file.
    settings: PathBuf,
    /// The arguments of the hook command.
    args: Vec<String>,
}

/// Sets up Claude Code; prints what it did (or would do).
pub(crate) fn run(args: InitArgs) -> Result<Status, Failure> {
    let InitTarget::Claude = args.target;
    let layout = layout(&args)?;
    let mut report = Vec::new();
    let files: Vec<(&str, &str)> = match args.pack {
        Pack::Guards => vec![CONFIG, GUARDS],
        Pack::Trace => vec![CONFIG, TRACE],
        Pack::All => vec![CONFIG, GUARDS, TRACE],
    };
    for (name, text) in &files {
        let path = layout.policy.join(name);
        match std::fs::read_to_string(&path) {
            Ok(existing) if existing == *text => {}
            Ok(_) => report.push(format!(
                "kept `{}` (it differs from the pack's: your edits are kept)",
                path.display()
            )),
            Err(_) => {
                report.push(format!("create `{}`", path.display()));
                if !args.dry_run {
                    std::fs::create_dir_all(&layout.policy)
                        .map_err(|e| Failure::cannot_write(&layout.policy, &e))?;
                    crate::output::write(&path, text.as_bytes())
                        .map_err(|e| Failure::cannot_write(&path, &e))?;
                }
            }
        }
    }
    // The events the pack's rules are on, from the pack as written (the
    // files may not exist yet in a dry run).
    let events = if args.dry_run && !layout.policy.is_dir() {
        events_of(&compile_texts(&files)?)
    } else if args.dry_run {
        events_of(&compile_dir(&layout.policy)?)
    } else {
        let table = compile_dir(&layout.policy)?;
        let path = layout.policy.join("rules.tbl");
        let bytes = table.to_bytes();
        if std::fs::read(&path).ok().as_deref() != Some(bytes.as_slice()) {
            crate::output::write(&path, &bytes).map_err(|e| Failure::cannot_write(&path, &e))?;
            report.push(format!("compile `{}`", path.display()));
        }
        events_of(&table)
    };
    let before = match std::fs::read_to_string(&layout.settings) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(Failure::cannot_read(&layout.settings, &e)),
    };
    let after = merged_settings(before.as_deref(), &events, &layout)?;
    if before.as_deref() != Some(after.as_str()) {
        if args.dry_run {
            let diff = similar::TextDiff::from_lines(before.as_deref().unwrap_or(""), &after);
            let shown = diff
                .unified_diff()
                .header(
                    &layout.settings.display().to_string(),
                    &format!("{} (with hookc)", layout.settings.display()),
                )
                .to_string();
            print_stdout(&shown);
        } else {
            if let Some(old) = &before {
                let backup = layout.settings.with_extension("json.bak");
                crate::output::write(&backup, old.as_bytes())
                    .map_err(|e| Failure::cannot_write(&backup, &e))?;
                report.push(format!("back up `{}`", backup.display()));
            }
            if let Some(dir) = layout.settings.parent() {
                std::fs::create_dir_all(dir).map_err(|e| Failure::cannot_write(dir, &e))?;
            }
            crate::output::write(&layout.settings, after.as_bytes())
                .map_err(|e| Failure::cannot_write(&layout.settings, &e))?;
        }
        report.push(format!(
            "hook {} into `{}`",
            events.join(", "),
            layout.settings.display()
        ));
    }
    let mut text = String::new();
    if report.is_empty() {
        text.push_str("hookc is set up for Claude Code; nothing to change\n");
    }
    for line in report {
        let prefix = if args.dry_run { "would " } else { "" };
        text.push_str(&format!("{prefix}{line}\n"));
    }
    print_stderr(&crate::diag::escape::guard(text));
    Ok(Status::Ok)
}

/// The policy directory, the settings file and the hook's arguments.
fn layout(args: &InitArgs) -> Result<Layout, Failure> {
    if args.user {
        use etcetera::BaseStrategy as _;
        let base = etcetera::choose_base_strategy()
            .map_err(|e| Failure::new(format!("cannot find the user's directories: {e}")))?;
        let policy = base.config_dir().join("hookc");
        let table = policy.join("rules.tbl");
        return Ok(Layout {
            settings: base.home_dir().join(".claude").join("settings.json"),
            args: vec![
                "claude".to_string(),
                "--table".to_string(),
                table.display().to_string(),
            ],
            policy,
        });
    }
    let root = match &args.project {
        Some(dir) => dir.clone(),
        None => std::env::current_dir()
            .map_err(|e| Failure::new(format!("cannot find the current directory: {e}")))?,
    };
    if !root.is_dir() {
        return Err(Failure::new(format!(
            "`{}` is not a directory",
            root.display()
        )));
    }
    Ok(Layout {
        policy: root.join(".hookc"),
        settings: root.join(".claude").join("settings.json"),
        // `hookc claude` finds `.hookc/` through `CLAUDE_PROJECT_DIR`,
        // from any working directory.
        args: vec!["claude".to_string()],
    })
}

fn compile_dir(dir: &Path) -> Result<crate::Table, Failure> {
    let paths = [dir.to_path_buf()];
    let (options, _) = super::load_config(&paths, None)?;
    crate::compile_paths(&paths, &options)
        .map(|c| c.table)
        .map_err(|d| {
            Failure::new(format!(
                "the rules in `{}` do not compile:\n{}",
                dir.display(),
                crate::diag::render::human(&d, false).trim_end()
            ))
        })
}

fn compile_texts(files: &[(&str, &str)]) -> Result<crate::Table, Failure> {
    let sources = files
        .iter()
        .filter(|(name, _)| name.ends_with(".hooks"))
        .map(|(name, text)| crate::span::SourceFile::new(*name, *text))
        .collect();
    crate::compile_sources(sources, &crate::Options::default())
        .map(|c| c.table)
        .map_err(|d| Failure::new(format!("the pack does not compile: {d}")))
}

/// The events (points) a table has rules on, in the table's order.
fn events_of(table: &crate::Table) -> Vec<String> {
    table
        .program()
        .points
        .iter()
        .filter(|p| !p.rules.is_empty())
        .map(|p| p.name.clone())
        .collect()
}

/// True for a hook command that runs hookc's Claude Code hook.
pub(super) fn is_hookc(hook: &Value) -> bool {
    let command = hook.get("command").and_then(Value::as_str).unwrap_or("");
    let program = command.split_whitespace().next().unwrap_or("");
    let named = Path::new(program).file_stem().is_some_and(|s| s == "hookc");
    let args = hook.get("args").and_then(Value::as_array);
    let claude = args.and_then(|a| a.first()).and_then(Value::as_str) == Some("claude")
        || command.split_whitespace().nth(1) == Some("claude");
    named && claude
}

/// The settings text with a hookc entry for every event that has none.
/// An existing file is edited in place through its concrete syntax tree:
/// every byte outside the entries added (other hooks, permissions, key
/// order, indentation, arrays on one line) stays as it was. A new file is
/// pretty-printed.
fn merged_settings(
    before: Option<&str>,
    events: &[String],
    layout: &Layout,
) -> Result<String, Failure> {
    let name = layout.settings.display();
    let text = before.filter(|t| !t.trim().is_empty());
    // Claude Code reads strict JSON: the file must be that before we touch it.
    let settings: Value = match text {
        Some(text) => serde_json::from_str(text).map_err(|e| {
            Failure::new(format!(
                "`{name}` is not JSON ({e}); fix it, then run `hookc init claude` again"
            ))
        })?,
        None => Value::Object(Map::new()),
    };
    let Some(root) = settings.as_object() else {
        return Err(Failure::new(format!("`{name}` is not a JSON object")));
    };
    let hooks = match root.get("hooks") {
        None => None,
        Some(Value::Object(hooks)) => Some(hooks),
        Some(_) => return Err(Failure::new("`hooks` in the settings is not an object")),
    };
    let mut missing = Vec::new();
    for event in events {
        let entries = match hooks.and_then(|h| h.get(event)) {
            None => &[][..],
            Some(Value::Array(entries)) => entries.as_slice(),
            Some(_) => {
                return Err(Failure::new(format!(
                    "`hooks.{event}` in the settings is not a list"
                )))
            }
        };
        let present = entries.iter().any(|entry| {
            entry
                .get("hooks")
                .and_then(Value::as_array)
                .is_some_and(|hs| hs.iter().any(is_hookc))
        });
        if !present {
            missing.push(event.as_str());
        }
    }
    let exe = std::env::current_exe()
        .and_then(|p| p.canonicalize())
        .map_err(|e| Failure::new(format!("cannot find hookc's own path: {e}")))?;
    let entry = json!({
        "hooks": [{
            "type": "command",
            "command": exe.display().to_string(),
            "args": layout.args,
        }]
    });
    match text {
        _ if missing.is_empty() && before.is_some() => Ok(before.unwrap_or_default().to_string()),
        Some(text) => edit_in_place(text, &missing, &entry),
        None => {
            let mut settings = Map::new();
            let hooks: Map<String, Value> = missing
                .iter()
                .map(|event| (event.to_string(), json!([entry.clone()])))
                .collect();
            settings.insert("hooks".into(), Value::Object(hooks));
            let mut text = serde_json::to_string_pretty(&settings)
                .map_err(|e| Failure::new(format!("cannot write the settings: {e}")))?;
            text.push('\n');
            Ok(text)
        }
    }
}

/// `text` with `entry` appended to `hooks.EVENT` for each event in
/// `missing`, through the file's concrete syntax tree.
fn edit_in_place(text: &str, missing: &[&str], entry: &Value) -> Result<String, Failure> {
    use jsonc_parser::cst::CstRootNode;
    let tree = CstRootNode::parse(text, &jsonc_parser::ParseOptions::default())
        .map_err(|e| Failure::new(format!("cannot edit the settings: {e}")))?;
    let not_an_object = || Failure::new("the settings are not a JSON object");
    let root = tree.object_value().ok_or_else(not_an_object)?;
    let hooks = root
        .object_value_or_create("hooks")
        .ok_or_else(|| Failure::new("`hooks` in the settings is not an object"))?;
    for event in missing {
        let entries = hooks.array_value_or_create(event).ok_or_else(|| {
            Failure::new(format!("`hooks.{event}` in the settings is not a list"))
        })?;
        entries.append(cst_value(entry));
    }
    Ok(tree.to_string())
}

/// A JSON value as the syntax tree takes it.
fn cst_value(value: &Value) -> jsonc_parser::cst::CstInputValue {
    use jsonc_parser::cst::CstInputValue;
    match value {
        Value::Null => CstInputValue::Null,
        Value::Bool(b) => CstInputValue::Bool(*b),
        Value::Number(n) => CstInputValue::Number(n.to_string()),
        Value::String(s) => CstInputValue::String(s.clone()),
        Value::Array(items) => CstInputValue::Array(items.iter().map(cst_value).collect()),
        Value::Object(map) => {
            CstInputValue::Object(map.iter().map(|(k, v)| (k.clone(), cst_value(v))).collect())
        }
    }
}
