//! The README's "From a rule to a running hook" section, and the worked
//! example of "The language", run as written.
//!
//! In those sections, a code block after `<!-- file: PATH -->` is written to
//! PATH in a fresh directory; in a `console` block, each `$ ` line is run
//! there (`hookc` is this crate's binary; `mkdir -p` makes a directory;
//! `< FILE` feeds a file on stdin) and must exit 0 and print exactly the
//! lines that follow it, up to the next `$ ` line, on stdout; a block after
//! `<!-- same as: PATH -->` must equal that file of the repository.

#![expect(
    clippy::unwrap_used,
    clippy::panic,
    reason = "tests fail loudly on a README that drifted"
)]

use std::path::Path;
use std::process::{Command, Stdio};

const SECTION: &str = "## From a rule to a running hook";

/// The language section, whose worked example runs the same way.
const LANGUAGE: &str = "## The language";

/// The text of the README's section `title`.
fn section_named(title: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let start = readme
        .find(title)
        .unwrap_or_else(|| panic!("README.md has no `{title}` section"));
    let rest = &readme[start + title.len()..];
    let end = rest.find("\n## ").unwrap_or(rest.len());
    rest[..end].to_string()
}

/// The section's text.
fn section() -> String {
    section_named(SECTION)
}

/// A fenced block: its info string, its lines, and the HTML comment just
/// before it, if any.
struct Block {
    info: String,
    lines: Vec<String>,
    note: Option<String>,
}

fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut note = None;
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if let Some(comment) = line
            .strip_prefix("<!-- ")
            .and_then(|l| l.strip_suffix(" -->"))
        {
            note = Some(comment.to_string());
        } else if let Some(info) = line.strip_prefix("```") {
            let body: Vec<String> = lines
                .by_ref()
                .take_while(|l| !l.starts_with("```"))
                .map(str::to_string)
                .collect();
            out.push(Block {
                info: info.to_string(),
                lines: body,
                note: note.take(),
            });
        } else if !line.trim().is_empty() {
            note = None;
        }
    }
    out
}

/// Runs one `$` command in `dir`; its stdout.
fn run(dir: &Path, command: &str) -> String {
    let (command, stdin) = match command.split_once(" < ") {
        Some((c, file)) => (c, Some(dir.join(file.trim()))),
        None => (command, None),
    };
    let words: Vec<&str> = command.split_whitespace().collect();
    match words.as_slice() {
        ["mkdir", "-p", path] => {
            std::fs::create_dir_all(dir.join(path)).unwrap();
            String::new()
        }
        ["hookc", args @ ..] => {
            let output = Command::new(env!("CARGO_BIN_EXE_hookc"))
                .args(args)
                .current_dir(dir)
                .env("NO_COLOR", "1")
                .env_remove("CLAUDE_PROJECT_DIR")
                .env_remove("HOOKC_TABLE")
                .stdin(match &stdin {
                    Some(file) => Stdio::from(std::fs::File::open(file).unwrap()),
                    None => Stdio::null(),
                })
                .output()
                .unwrap();
            assert!(
                output.status.success(),
                "`$ {command}` failed ({}):\n{}{}",
                output.status,
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
            String::from_utf8(output.stdout).unwrap()
        }
        _ => panic!("the README runs a command the test does not know: `{command}`"),
    }
}

/// Writes the section's files into `dir` and runs its commands there:
/// how many of each.
fn run_section(text: &str, dir: &Path) -> (usize, usize) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut commands = 0;
    let mut files = 0;
    for block in blocks(text) {
        let text = block.lines.join("\n") + "\n";
        match block.note.as_deref() {
            Some(note) if note.starts_with("file: ") => {
                let path = dir.join(&note["file: ".len()..]);
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(&path, &text).unwrap();
                files += 1;
                continue;
            }
            Some(note) if note.starts_with("same as: ") => {
                let file = &note["same as: ".len()..];
                let actual = std::fs::read_to_string(root.join(file)).unwrap();
                assert_eq!(text, actual, "the README's copy of `{file}` drifted");
                continue;
            }
            _ => {}
        }
        if block.info != "console" {
            continue;
        }
        // `$ command` lines, each followed by its expected output.
        let mut steps: Vec<(String, Vec<String>)> = Vec::new();
        for line in block.lines {
            match line.strip_prefix("$ ") {
                Some(command) => steps.push((command.to_string(), Vec::new())),
                None => steps
                    .last_mut()
                    .unwrap_or_else(|| panic!("output before any command: {line}"))
                    .1
                    .push(line),
            }
        }
        for (command, expected) in steps {
            let stdout = run(dir, &command);
            let expected = expected.join("\n");
            assert_eq!(
                stdout.trim_end(),
                expected.trim_end(),
                "`$ {command}` printed something else"
            );
            commands += 1;
        }
    }
    (files, commands)
}

/// The language section's worked example: the shell view, captures, `let`
/// and pack composition, linted and tested as the README shows.
#[test]
fn the_language_example_runs_as_written() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("readme-language");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (files, commands) = run_section(&section_named(LANGUAGE), &dir);
    assert!(
        files >= 2 && commands >= 2,
        "{files} files, {commands} commands"
    );
}

/// The Claude Code section's `output` example: the rules, an event and
/// the answer, as the README shows them.
#[test]
fn the_claude_code_outputs_example_runs_as_written() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("readme-outputs");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (files, commands) = run_section(&section_named("## Claude Code"), &dir);
    assert!(
        files >= 2 && commands >= 1,
        "{files} files, {commands} commands"
    );
}

#[test]
fn the_users_path_runs_as_written() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("readme-path");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (files, commands) = run_section(&section(), &dir);
    assert!(
        files >= 3 && commands >= 6,
        "{files} files, {commands} commands"
    );
    // The settings the section writes reach the table it compiled: with no
    // flag, `hookc claude` finds `.hookc/rules.tbl` from the event's `cwd`.
    let event = format!(
        r#"{{"hook_event_name": "PreToolUse", "cwd": "{}", "tool_name": "Bash", "tool_input": {{"command": "git push --force"}}}}"#,
        dir.display()
    );
    std::fs::write(dir.join("from-cwd.json"), event).unwrap();
    let stdout = run(&dir, "hookc claude < from-cwd.json");
    assert!(
        stdout.contains("\"permissionDecision\":\"deny\""),
        "{stdout}"
    );
}

/// The `hook ID … {` … `}` blocks of `text`, each as `(id, lines)` with
/// the header's indentation taken off every line.
fn hooks_in(text: &str) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let indent = line.len() - line.trim_start().len();
        let mut words = line.split_whitespace();
        if words.next() != Some("hook") || !line.trim_end().ends_with('{') {
            continue;
        }
        let id = words.next().unwrap_or_default().to_string();
        let mut body = vec![line.trim().to_string()];
        for l in lines.by_ref() {
            body.push(
                l.get(indent..)
                    .unwrap_or(l.trim_start())
                    .trim_end()
                    .to_string(),
            );
            if l.trim() == "}" && l.len() - l.trim_start().len() == indent {
                break;
            }
        }
        out.push((id, body));
    }
    out
}

fn shipped_rule_files(dir: &Path, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            shipped_rule_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "hooks") {
            out.push((
                path.display().to_string(),
                std::fs::read_to_string(&path).unwrap(),
            ));
        }
    }
}

/// Every rule the README shows that a shipped file under `rules/` defines
/// (the same hook id) is shown exactly as the file has it, so the README
/// never teaches a policy the packs no longer hold.
#[test]
fn readme_excerpts_of_shipped_rules_match_the_files() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let mut files = Vec::new();
    shipped_rule_files(&root.join("rules"), &mut files);
    // Packs are compiled apart, so two may define the same name: the
    // README's must be one of the files' definitions.
    let mut checked = Vec::new();
    for (id, shown) in hooks_in(&readme) {
        let found: Vec<(&String, Vec<String>)> = files
            .iter()
            .flat_map(|(path, text)| {
                hooks_in(text)
                    .into_iter()
                    .filter(|(other, _)| *other == id)
                    .map(move |(_, lines)| (path, lines))
            })
            .collect();
        if found.is_empty() {
            continue;
        }
        assert!(
            found.iter().any(|(_, lines)| *lines == shown),
            "the README shows rule `{id}` otherwise than {:?} has it:\n{}",
            found.iter().map(|(p, _)| p).collect::<Vec<_>>(),
            shown.join("\n")
        );
        checked.push(id);
    }
    assert!(
        checked.len() >= 3,
        "the README shows rules of the packs; found only {checked:?}"
    );
    // One-line `list`, `pattern` and `macro` definitions likewise.
    let mut defs = 0;
    for (name, shown) in definitions_in(&readme) {
        let found: Vec<(&String, String)> = files
            .iter()
            .flat_map(|(path, text)| {
                definitions_in(text)
                    .into_iter()
                    .filter(|(other, _)| *other == name)
                    .map(move |(_, line)| (path, line))
            })
            .collect();
        if found.is_empty() {
            continue;
        }
        assert!(
            found.iter().any(|(_, line)| *line == shown),
            "the README shows `{name}` otherwise than {found:?}: {shown}"
        );
        defs += 1;
    }
    assert!(defs >= 3, "the README shows definitions of the packs");
}

/// One-line definitions of `text` (`list`, `pattern`, `macro`), keyed by
/// kind and name.
fn definitions_in(text: &str) -> Vec<(String, String)> {
    text.lines()
        .map(str::trim)
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            let kind = words.next()?;
            let name = words.next()?;
            let one_line = line.matches('[').count() == line.matches(']').count();
            (matches!(kind, "list" | "pattern" | "macro") && words.next() == Some("=") && one_line)
                .then(|| (format!("{kind} {name}"), line.to_string()))
        })
        .collect()
}

/// Every `text` example of the README is valid hookc: definitions and
/// rules compile (conditions alone inside a rule), and the composed pack
/// compiles with the pack it adapts, as the README says to run it.
#[test]
fn every_text_example_of_the_readme_compiles() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("readme-text");
    let _ = std::fs::remove_dir_all(&dir);
    let pack = dir.join("rules/claude-code");
    std::fs::create_dir_all(&pack).unwrap();
    for entry in std::fs::read_dir(root.join("rules/claude-code")).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::copy(&path, pack.join(path.file_name().unwrap())).unwrap();
        }
    }
    let mut checked = 0;
    for block in blocks(&readme).into_iter().filter(|b| b.info == "text") {
        let text = block.lines.join("\n") + "\n";
        let claude = ["PreToolUse", "PostToolUse", "claude-code::"]
            .iter()
            .any(|w| text.contains(w));
        let schema = if claude { "schema claude-code\n" } else { "" };
        if text.contains("import \"../rules/claude-code/") {
            std::fs::create_dir_all(dir.join("local")).unwrap();
            std::fs::write(dir.join("local/local.hooks"), &text).unwrap();
            run(&dir, "hookc lint rules/claude-code/ local/");
        } else {
            let source = if text.starts_with("when ") {
                format!("{schema}hook readme-example on tool.pre_execute {{\n{text}    deny\n}}\n")
            } else {
                format!("{schema}{text}")
            };
            if let Err(d) = hookc::compile_str("README.md", &source) {
                panic!(
                    "a README example does not compile:\n{source}\n{}",
                    hookc::diag::render::human(&d, false)
                );
            }
        }
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} text examples found");
}

/// The summary at the top of "The command line" names every subcommand
/// `hookc --help` lists, and each of those lines names a real subcommand.
#[test]
fn the_command_line_summary_lists_every_subcommand() {
    let help = Command::new(env!("CARGO_BIN_EXE_hookc"))
        .arg("--help")
        .output()
        .unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    let commands: Vec<String> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
        .filter(|c| c != "help")
        .collect();
    assert!(commands.len() > 10, "{help}");
    let section = section_named("## The command line");
    let summary = &blocks(&section)[0];
    let listed: Vec<&str> = summary
        .lines
        .iter()
        .filter_map(|l| l.strip_prefix("hookc "))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    for command in &commands {
        assert!(
            listed.contains(&command.as_str()),
            "`hookc {command}` is missing from the README's command-line summary"
        );
    }
    for command in &listed {
        assert!(
            commands.iter().any(|c| c == command),
            "the README's summary lists `hookc {command}`, which `hookc --help` does not"
        );
    }
}
