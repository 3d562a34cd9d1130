//! The example host (`examples/host`): a separate crate whose build script
//! compiles `rules/` with `hookc::embed` and whose runtime embeds the table.
//! Builds and runs it, then checks what it printed. The first run compiles the
//! example crate (in `target/host`), which takes a while.

use std::path::Path;
use std::process::Command;

#[test]
fn example_host_runs_the_shipped_rules() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let output = Command::new(env!("CARGO"))
        .args(["run", "--quiet", "--manifest-path"])
        .arg(root.join("examples/host/Cargo.toml"))
        .env("CARGO_TARGET_DIR", root.join("target/host"))
        .current_dir(root)
        .output()
        .expect("cargo runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "example host failed ({}):\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        output.status
    );
    let line = |needle: &str| {
        stdout
            .lines()
            .find(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no line with {needle:?} in:\n{stdout}"))
    };

    // The request is audited before dispatch.
    let audit = line("request req-1 chat");
    assert!(audit.starts_with("request.pre_dispatch"), "{audit}");
    assert!(audit.contains("[fired: audit-requests]"), "{audit}");
    assert!(stdout.contains(
        "log info [audit-requests] request chat (UserInput) from User alice to builtin::llm"
    ));
    // `audit-requests` targets `builtin::*`: the plugin's request is not audited.
    assert!(line("request req-2 list").contains("[fired: -]"));

    // `ls -la` is allowed and runs.
    let ls = line("exec \"ls -la\"");
    assert!(ls.starts_with("tool.pre_execute"), "{ls}");
    assert!(ls.contains("=> continue"), "{ls}");
    assert!(stdout.contains("-> exec returned \"Cargo.toml"), "{stdout}");

    // `rm -rf /` is blocked before it runs.
    let rm = line("exec \"rm -rf / --no-preserve-root\"");
    assert!(rm.starts_with("tool.pre_execute"), "{rm}");
    assert!(
        rm.contains("=> abort: blocked dangerous command: rm -rf / --no-preserve-root"),
        "{rm}"
    );
    assert!(rm.contains("[fired: block-dangerous]"), "{rm}");
    assert!(
        stdout.contains("-> exec not run: blocked dangerous command"),
        "{stdout}"
    );

    // The child spawned by builtin::llm loses EXECUTE, and the host enforces it.
    assert!(line("spawn agent-1 caps 15").contains("[fired: narrow-child-caps]"));
    assert!(
        stdout.contains("capabilities 15 (READ|WRITE|SPAWN|EXECUTE) -> 7 (READ|WRITE|SPAWN)"),
        "{stdout}"
    );
    assert!(line("spawned agent-1 caps 7").starts_with("child.post_spawn"));
    assert!(line("exec \"cargo test\"").contains("refused: needs 8 (EXECUTE)"));

    // Credentials are redacted from a child's tool result and from a response,
    // and never printed.
    let read = line("read result");
    assert!(read.starts_with("tool.post_execute"), "{read}");
    assert!(read.contains("[fired: redact-secrets]"), "{read}");
    assert!(
        stdout.contains(r#"-> read returned "AWS_ACCESS_KEY_ID=[REDACTED]\nREGION=eu-west-1\n""#),
        "{stdout}"
    );
    assert!(line("response req-2").contains("[fired: redact-secrets]"));
    assert!(stdout.contains("(registry token [REDACTED])"), "{stdout}");
    assert!(!stdout.contains("AKIA"), "{stdout}");
    assert!(!stdout.contains("ghp_"), "{stdout}");

    assert!(
        stdout.contains("-> response \"2 tool calls ran, 2 refused\""),
        "{stdout}"
    );
}
