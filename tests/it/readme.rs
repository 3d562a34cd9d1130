//! The README's "From a rule to a running hook" section, run as written.
//!
//! In that section, a code block after `<!-- file: PATH -->` is written to
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

/// The section's text.
fn section() -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let start = readme
        .find(SECTION)
        .unwrap_or_else(|| panic!("README.md has no `{SECTION}` section"));
    let rest = &readme[start + SECTION.len()..];
    let end = rest.find("\n## ").unwrap_or(rest.len());
    rest[..end].to_string()
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

#[test]
fn the_users_path_runs_as_written() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("readme-path");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut commands = 0;
    let mut files = 0;
    for block in blocks(&section()) {
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
            let stdout = run(&dir, &command);
            let expected = expected.join("\n");
            assert_eq!(
                stdout.trim_end(),
                expected.trim_end(),
                "`$ {command}` printed something else"
            );
            commands += 1;
        }
    }
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
