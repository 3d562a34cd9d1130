//! `hookc doctor`: is hookc wired into Claude Code so that it runs, and
//! does it answer? A miswired hook fails open without a sign; this command
//! is the sign.
//!
//! It reads the project's `.claude/settings.json` and
//! `.claude/settings.local.json` and the user's `~/.claude/settings.json`,
//! finds every hook entry that runs `hookc claude`, checks that its command
//! resolves to an executable, and runs a sample event of its event through
//! the exact command and arguments configured (as Claude Code would, with
//! `CLAUDE_PROJECT_DIR` set and `${CLAUDE_PROJECT_DIR}` substituted). Then
//! it reports the policy the project's hook finds: the table, its schema,
//! its rule count, whether its sources changed since it was compiled, and
//! who signed it. Any problem makes the exit status 1.

use super::{print_stdout, Failure, Status};
use serde::Serialize;
use serde_json::{json, Value};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Arguments of `hookc doctor`.
#[derive(Debug, clap::Args)]
pub(crate) struct DoctorArgs {
    /// The project directory (default: the current directory)
    #[arg(long, value_name = "DIR")]
    project: Option<PathBuf>,

    /// Output format
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
}

/// How the report is printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    /// Lines for a person.
    Human,
    /// One JSON object.
    Json,
}

/// One hook entry that runs hookc.
#[derive(Debug, Serialize)]
struct Entry {
    /// The settings file it is in.
    settings: String,
    /// The event it is registered for.
    event: String,
    /// The command, as configured.
    command: String,
    /// Its arguments, as configured.
    args: Vec<String>,
    /// The executable the command resolves to.
    resolved: Option<String>,
    /// The sample event's exit code.
    exit_code: Option<i32>,
    /// What the sample event's answer said on stdout, if anything.
    answer: Option<Value>,
    /// What is wrong, if anything.
    problem: Option<String>,
}

/// The policy the project's hook finds.
#[derive(Debug, Default, Serialize)]
struct Policy {
    /// The table's path, or the rules directory without one.
    path: Option<String>,
    /// The table's schema.
    schema: Option<String>,
    /// How many rules it has.
    rules: usize,
    /// False when the sources beside it changed since it was compiled.
    fresh: Option<bool>,
    /// The id of the key that signed it.
    signed_by: Option<String>,
    /// True when a rule of the policy names `.hookc` (the pack's guard
    /// against the agent writing the policy); `None` without a table.
    guarded: Option<bool>,
    /// What is wrong, if anything.
    problem: Option<String>,
}

/// Checks the wiring and prints the report.
pub(crate) fn run(args: DoctorArgs) -> Result<Status, Failure> {
    let project = match &args.project {
        Some(dir) => dir.clone(),
        None => std::env::current_dir()
            .map_err(|e| Failure::new(format!("cannot find the current directory: {e}")))?,
    };
    let mut files = vec![
        project.join(".claude/settings.json"),
        project.join(".claude/settings.local.json"),
    ];
    if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        files.push(PathBuf::from(home).join(".claude/settings.json"));
    }
    // The user's settings may be the project's (a project at home).
    let mut seen = Vec::new();
    files.retain(|f| {
        let key = f.canonicalize().unwrap_or_else(|_| f.clone());
        let new = !seen.contains(&key);
        seen.push(key);
        new
    });
    let mut entries = Vec::new();
    let mut problems = Vec::new();
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        let settings: Value = match serde_json::from_str(&text) {
            Ok(v) => v,
            Err(e) => {
                problems.push(format!("`{}` is not JSON: {e}", file.display()));
                continue;
            }
        };
        for (event, list) in settings
            .get("hooks")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            for hook in list
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|e| e.get("hooks").and_then(Value::as_array))
                .flatten()
                .filter(|h| super::init::is_hookc(h))
            {
                entries.push(check_entry(file, event, hook, &project));
            }
        }
    }
    if entries.is_empty() {
        problems.push(format!(
            "no hook entry runs `hookc claude` in {}: run `hookc init claude`",
            files
                .iter()
                .map(|f| format!("`{}`", f.display()))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    problems.extend(entries.iter().filter_map(|e| {
        e.problem
            .as_ref()
            .map(|p| format!("{} hook in `{}`: {p}", e.event, e.settings))
    }));
    let policy = policy(&project);
    if let Some(p) = &policy.problem {
        problems.push(p.clone());
    }
    let mut warnings = Vec::new();
    if policy.guarded == Some(false) && policy.signed_by.is_none() {
        warnings.push(
            "no rule of the policy keeps the agent from writing `.hookc/`: add the pack's `deny-policy-tampering-*` rules (`hookc init claude --pack all`), sign the table, or use a policy outside the project (`--user`)"
                .to_string(),
        );
    }
    match args.format {
        Format::Json => {
            let report = json!({
                "project": project.display().to_string(),
                "entries": entries,
                "policy": policy,
                "problems": problems,
                "warnings": warnings,
            });
            print_stdout(&format!("{report:#}\n"));
        }
        Format::Human => print_stdout(&human(&entries, &policy, &problems, &warnings)),
    }
    Ok(if problems.is_empty() {
        Status::Ok
    } else {
        Status::Findings
    })
}

fn human(entries: &[Entry], policy: &Policy, problems: &[String], warnings: &[String]) -> String {
    let mut out = String::new();
    for e in entries {
        let mark = if e.problem.is_none() { "ok " } else { "BAD" };
        out.push_str(&format!(
            "{mark} {} in {}: {} {}\n",
            e.event,
            e.settings,
            e.command,
            e.args.join(" ")
        ));
        if let Some(p) = &e.problem {
            out.push_str(&format!("    {p}\n"));
        }
    }
    out.push_str(&format!(
        "policy: {}\n",
        policy.path.as_deref().unwrap_or("(none found)")
    ));
    if let Some(schema) = &policy.schema {
        let fresh = match policy.fresh {
            Some(true) => "fresh",
            Some(false) => {
                "stale (its sources changed; `hookc claude` compiles them at the next event)"
            }
            None => "no sources beside it",
        };
        let signed = policy
            .signed_by
            .as_deref()
            .map_or("unsigned".to_string(), |k| format!("signed by {k}"));
        out.push_str(&format!(
            "        schema {schema}, {} rules, {fresh}, {signed}\n",
            policy.rules
        ));
    }
    for w in warnings {
        out.push_str(&format!("warning: {w}\n"));
    }
    if problems.is_empty() {
        out.push_str("no problems found\n");
    } else {
        out.push_str(&format!("{} problem(s):\n", problems.len()));
        for p in problems {
            out.push_str(&format!("  - {p}\n"));
        }
    }
    crate::diag::escape::guard(out)
}

/// The executable `command` names: a path, or a name on `PATH`.
fn resolve(command: &str) -> Option<PathBuf> {
    let path = Path::new(command);
    if path.components().count() > 1 {
        return path.is_file().then(|| path.to_path_buf());
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(command))
        .find(|p| p.is_file())
}

/// Checks one entry: it resolves, and it answers a sample event.
fn check_entry(settings: &Path, event: &str, hook: &Value, project: &Path) -> Entry {
    let dir = project.display().to_string();
    let substitute = |s: &str| {
        s.replace("${CLAUDE_PROJECT_DIR}", &dir)
            .replace("$CLAUDE_PROJECT_DIR", &dir)
    };
    let configured = hook.get("command").and_then(Value::as_str).unwrap_or("");
    let mut args: Vec<String> = hook
        .get("args")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).map(substitute).collect())
        .unwrap_or_default();
    // The shell form: the command line holds the arguments.
    let mut words = configured.split_whitespace().map(substitute);
    let program = words.next().unwrap_or_default();
    if hook.get("args").is_none() {
        args = words.collect();
    }
    let mut entry = Entry {
        settings: settings.display().to_string(),
        event: event.to_string(),
        command: configured.to_string(),
        args: args.clone(),
        resolved: None,
        exit_code: None,
        answer: None,
        problem: None,
    };
    let Some(exe) = resolve(&program) else {
        entry.problem = Some(format!("`{program}` is not a file and not on PATH"));
        return entry;
    };
    entry.resolved = Some(exe.display().to_string());
    let sample = json!({
        "hook_event_name": event,
        "session_id": "hookc-doctor",
        "cwd": dir,
        "tool_name": "Bash",
        "tool_input": {"command": "true"},
        "prompt": "hookc doctor",
    })
    .to_string();
    let run = Command::new(&exe)
        .args(&args)
        .current_dir(project)
        .env("CLAUDE_PROJECT_DIR", project)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            if let Some(mut stdin) = child.stdin.take() {
                stdin.write_all(sample.as_bytes())?;
            }
            child.wait_with_output()
        });
    let out = match run {
        Ok(out) => out,
        Err(e) => {
            entry.problem = Some(format!("`{}` cannot run: {e}", exe.display()));
            return entry;
        }
    };
    entry.exit_code = out.status.code();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !stdout.trim().is_empty() {
        match serde_json::from_str::<Value>(&stdout) {
            Ok(v) => entry.answer = Some(v),
            Err(_) => {
                entry.problem = Some(format!(
                    "the answer to a sample event is not JSON: {}",
                    stdout.trim()
                ));
                return entry;
            }
        }
    }
    // Failing open prints its reason on stderr: a hook that cannot read
    // its rules or its arguments answers, but decides nothing.
    let failed = stderr
        .lines()
        .find(|l| l.starts_with("hookc:") && !l.contains("is older than"));
    entry.problem = match (entry.exit_code, failed) {
        (Some(0 | 2), None) => None,
        (Some(0 | 2), Some(line)) => Some(format!(
            "the hook runs but fails: {}",
            line.trim_start_matches("hookc:").trim()
        )),
        (code, _) => Some(format!(
            "a sample event exits with {code:?} (Claude Code reads 0 and 2): {}",
            stderr.trim()
        )),
    };
    entry
}

/// The policy `hookc claude` finds in the project.
fn policy(project: &Path) -> Policy {
    let dir = project.join(".hookc");
    let table = dir.join("rules.tbl");
    let mut policy = Policy::default();
    if !table.is_file() {
        if dir.is_dir() {
            policy.path = Some(dir.display().to_string());
            policy.fresh = Some(true);
        } else {
            policy.problem = Some(format!(
                "no policy: neither `{}` nor `{}` exists",
                table.display(),
                dir.display()
            ));
        }
        return policy;
    }
    policy.path = Some(table.display().to_string());
    let loaded = std::fs::read(&table)
        .map_err(|e| e.to_string())
        .and_then(|bytes| {
            crate::Table::from_owned_bytes(bytes)
                .and_then(|table| table.validate().map(|()| table))
                .map_err(|e| e.to_string())
        });
    let table_value = match loaded {
        Ok(t) => t,
        Err(e) => {
            policy.problem = Some(format!("`{}` cannot be loaded: {e}", table.display()));
            return policy;
        }
    };
    let program = table_value.program();
    policy.schema = Some(program.schema.clone());
    policy.rules = program.points.iter().map(|p| p.rules.len()).sum();
    let has_sources = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .any(|e| e.path().extension().is_some_and(|x| x == "hooks"));
    policy.fresh =
        has_sources.then(|| crate::load::source_digest(&[&dir]) == program.source_digest);
    policy.signed_by = table_value.signer().map(|k| k.id());
    // The pack's self-protection names the policy directory in its regexes;
    // a policy without any such rule leaves it to the agent's good will.
    policy.guarded = Some(program.regexes.iter().any(|r| r.pattern.contains("hookc")));
    if program.schema != crate::systems::claude_code::schema::NAME {
        policy.problem = Some(format!(
            "`{}` is a table of schema `{}`, not `claude-code`",
            table.display(),
            program.schema
        ));
    }
    policy
}
