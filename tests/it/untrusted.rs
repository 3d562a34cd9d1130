//! Untrusted text in human output: what a rule file, an event or a file name
//! holds reaches the terminal escaped (`\u{1b}`), never as the raw control
//! or bidi character, and a megabyte-long value prints a bounded line. Each
//! test runs the `hookc` binary and checks the bytes it wrote.

#![expect(clippy::unwrap_used, reason = "tests fail loudly on purpose")]

use crate::common;

use std::path::{Path, PathBuf};

/// Characters a terminal acts on instead of showing.
const RAW: [char; 8] = [
    '\u{1b}', '\u{7}', '\r', '\u{9b}', '\u{202e}', '\u{202a}', '\u{2066}', '\u{2069}',
];

/// Control and bidi characters written as the escapes of a rule file's
/// strings (as `hookc fmt` writes them) …
const EVIL_ESCAPED: &str = r"\u001b]0;pwned\u0007\u001b[2J\u009b\u202eabc\u202a\u2066\u2069";

/// … and raw (a CR cannot be in a rule file's string: it ends the line).
const EVIL_RAW: &str = "\u{1b}]0;pwned\u{7}\u{1b}[2J\u{9b}\u{202e}abc\u{202a}\u{2066}\u{2069}";

/// One megabyte.
const BIG: usize = 1 << 20;

fn tmp_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("untrusted-tests")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn hookc(dir: &Path, args: &[&str]) -> common::Run {
    common::hookc_in(dir, args, None)
}

fn assert_no_raw(what: &str, text: &str) {
    for c in RAW {
        assert!(
            !text.contains(c),
            "{what} writes a raw {c:?}:\n{}",
            text.escape_debug()
        );
    }
}

/// A source line holding a 1 MB literal, and raw control and bidi
/// characters in a string, a regex and the file name.
#[test]
fn lint_shows_a_window_of_long_lines_and_escapes_controls() {
    let dir = tmp_dir("lint");
    let big = "x".repeat(BIG);
    let text = format!(
        "hook big on tool.pre_execute {{\n    when depth == \"{big}\"\n    when depth == \"{EVIL_RAW}\"\n    when payload.args matches /a{rlo}b{esc}c/\n    abort \"no\"\n}}\n",
        rlo = '\u{202e}',
        esc = '\u{1b}',
    );
    let name = "evil\u{1b}[31m\u{202e}.hooks";
    std::fs::write(dir.join(name), text).unwrap();
    let run = hookc(&dir, &["lint", name]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert_no_raw("lint", &run.stderr);
    assert_no_raw("lint", &run.stdout);
    // Two type errors and a Trojan Source warning per literal, each a few
    // lines: nowhere near the megabyte.
    assert!(run.stderr.len() < 8_000, "{} bytes", run.stderr.len());
    assert!(
        run.stderr.contains("evil\\u{1b}[31m\\u{202e}.hooks:2:10"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("warning[bidi-control]"),
        "{}",
        run.stderr
    );
    // The long line is cut around the literal's ends, with its quotes.
    let long = run.stderr.lines().find(|l| l.starts_with(" 2 |")).unwrap();
    assert!(
        long.contains("when depth == \"xxx") && long.contains("...") && long.ends_with("xxx\""),
        "{long}"
    );
    // The carets stay under the escaped characters: the Trojan Source
    // warning on line 3 marks each bidi control, `\u{202e}` first.
    let block = run
        .stderr
        .split("\n\n")
        .find(|b| b.starts_with("warning[bidi-control]") && b.contains(".hooks:3:"))
        .unwrap();
    let lines: Vec<&str> = block.lines().collect();
    let at = lines.iter().position(|l| l.starts_with(" 3 |")).unwrap();
    let (source, carets) = (lines[at], lines[at + 1]);
    for escaped in ["\\u{202e}", "\\u{202a}", "\\u{2066}", "\\u{2069}"] {
        let col = source.find(escaped).unwrap();
        assert_eq!(
            carets.get(col..col + escaped.len()),
            Some("^".repeat(escaped.len()).as_str()),
            "{source}\n{carets}"
        );
    }
    let first = source.find("\\u{202e}").unwrap();
    assert_eq!(carets.find('^'), Some(first), "{source}\n{carets}");
}

/// The diff is whole (a diff cut short cannot be reviewed or applied), and
/// every character a terminal would act on is escaped.
#[test]
fn fmt_check_diff_is_escaped_and_whole() {
    let dir = tmp_dir("fmt");
    let big = "y".repeat(BIG);
    // Raw characters in a string: the diff shows both lines escaped (the
    // formatted one with `\uXXXX` escapes).
    let text = format!("list  l = [\"{big}\", \"{EVIL_RAW}\"]\n");
    std::fs::write(dir.join("f.hooks"), text).unwrap();
    let run = hookc(&dir, &["fmt", "--check", "f.hooks"]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert_no_raw("fmt --check", &run.stdout);
    assert_no_raw("fmt --check", &run.stderr);
    assert!(
        run.stdout
            .contains(&format!("-list  l = [\"{big}\", \"\\u{{1b}}]0;pwned")),
        "the old line is whole"
    );
    assert!(
        run.stdout.contains(&format!("+    \"{big}\",\n")),
        "the new line is whole"
    );
    assert!(
        run.stdout.contains("\\u202e"),
        "{}",
        &run.stdout[run.stdout.len() - 300..]
    );
    // JSON carries the text as it is (its consumers are programs).
    let run = hookc(&dir, &["fmt", "--check", "--format", "json", "f.hooks"]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let diff = v["files"][0]["diff"].as_str().unwrap();
    assert!(diff.contains(&format!("-list  l = [\"{big}\", \"{EVIL_RAW}\"]\n")));
    // And the file itself is written with escapes.
    let run = hookc(&dir, &["fmt", "f.hooks"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let written = std::fs::read_to_string(dir.join("f.hooks")).unwrap();
    assert_no_raw("fmt", &written);
    assert!(
        written.contains(EVIL_ESCAPED),
        "{}",
        &written[written.len() - 200..]
    );
}

#[test]
fn test_failures_are_escaped_and_bounded() {
    let dir = tmp_dir("test");
    let big = "z".repeat(BIG);
    let text = format!(
        "hook tag on tool.pre_execute {{\n    set payload.tag = \"x\"\n}}\n\ntest \"name {EVIL_ESCAPED}\" {{\n    event {{\"hook_point\": \"tool.pre_execute\", \"component_id\": \"builtin::llm\", \"payload\": {{\"big\": \"{big}\", \"evil\": \"{EVIL_ESCAPED}\"}}}}\n    expect payload.tag == \"y\"\n    expect abort \"{EVIL_ESCAPED}\"\n}}\n"
    );
    std::fs::write(dir.join("t.hooks"), text).unwrap();
    let run = hookc(&dir, &["test", "t.hooks"]);
    assert_eq!(run.code, Some(1), "{}\n{}", run.stdout, run.stderr);
    assert_no_raw("test", &run.stdout);
    assert_no_raw("test", &run.stderr);
    assert!(run.stdout.len() < 6_000, "{} bytes", run.stdout.len());
    assert!(
        run.stdout.contains("t.hooks::name \\u{1b}]0;pwned"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("final payload: {\"big\":\"zzz"),
        "{}",
        run.stdout
    );
}

fn event(dir: &Path) -> &'static str {
    let big = "w".repeat(BIG);
    let event = serde_json::json!({
        "hook_point": "tool.pre_execute",
        "component_id": format!("builtin::llm{EVIL_RAW}\r"),
        "payload": {"tool": "exec", "args": format!("rm {EVIL_RAW}\r{big}")},
    });
    std::fs::write(dir.join("event.json"), event.to_string()).unwrap();
    std::fs::write(
        dir.join("r.hooks"),
        "hook block on tool.pre_execute {\n    when payload.args contains \"rm\"\n    log warn \"saw {payload.args}\"\n    context \"{payload.args}\"\n    abort \"blocked {payload.args}\"\n}\n",
    )
    .unwrap();
    "event.json"
}

#[test]
fn eval_human_is_escaped_and_bounded() {
    let dir = tmp_dir("eval");
    let event = event(&dir);
    let run = hookc(
        &dir,
        &["eval", "r.hooks", "--event", event, "--format", "human"],
    );
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert_no_raw("eval --format human", &run.stdout);
    assert!(run.stdout.len() < 4_000, "{} bytes", run.stdout.len());
    assert!(
        run.stdout
            .contains("log       warn [block] saw rm \\u{1b}]0;pwned"),
        "{}",
        run.stdout
    );
}

#[test]
fn explain_is_escaped_and_bounded() {
    let dir = tmp_dir("explain");
    let event = event(&dir);
    let run = hookc(&dir, &["explain", "r.hooks", "--event", event]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_no_raw("explain", &run.stdout);
    assert!(run.stdout.len() < 6_000, "{} bytes", run.stdout.len());
    assert!(
        run.stdout.contains("for `builtin::llm\\u{1b}]0;pwned"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("reason    blocked rm \\u{1b}]0;pwned"),
        "{}",
        run.stdout
    );
}
