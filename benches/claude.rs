//! Cold start of `hookc claude`, end to end, as Claude Code sees it: spawn
//! the binary, write the event JSON to its stdin, close it, wait for the
//! exit. Claude Code does this on every tool call (twice: PreToolUse and
//! PostToolUse), so the whole process counts: exec, dynamic linking, reading
//! and validating the table, dispatch, the answer.
//!
//! The table has 1,000 generated `claude-code` rules, all on `PreToolUse`
//! (the worst case: every rule is on the dispatched point), written by the
//! deterministic generator below: per rule, a target (half
//! `claude-code::<Tool>` over 10 tools, a quarter `claude-code::*`, a quarter
//! `*::*`), an optional `payload.tool_name == "…"`, and one content
//! condition: its own regex on `payload.tool_input.command`
//! (`rm\s+-rf\s+/srv/data42\b`, `scp …`), `payload.tool_input.command
//! contains any lN` (50 shared 20-literal lists), `payload.tool_input.command
//! starts_with "…"`, or its own glob on `payload.tool_input.file_path`
//! (`**/secret42/**`). Actions: `deny`, `ask`, `context`. One extra rule
//! matches the `bash_rm` event only.
//!
//! Events (PreToolUse, from `tests/fixtures/claude/events/`):
//! - `bash_no_match`: `npm test -- --runInBand`; no rule fires, no output.
//! - `write_no_match`: a Write to `src/`; no rule fires, no output.
//! - `bash_rm`: `rm -rf ./build …`; the extra rule denies.
//!
//! Baseline: `spawn/true` spawns `/bin/true` the same way (stdin written and
//! closed), in the same run: the cost of a process on this machine, which
//! hookc cannot go below. `policy/…` is the 21-rule test policy.
//!
//! Before measuring, each case is run once and its answer checked (exit 0,
//! empty stderr, the expected stdout), so a table that fails to load (and
//! fails open, silently) cannot pass for a fast one.
//!
//! Groups: `claude/spawn/true`, `claude/{policy,rules_1000}/{event}`.
//!
//! The binary timed is the bench profile's `hookc` unless
//! `HOOKC_BENCH_BIN` names another built from the same source (the
//! shipped one: `cargo build --profile dist`, then
//! `HOOKC_BENCH_BIN=target/dist/hookc cargo bench --bench claude`); the
//! tables are compiled in this process, so both read them.
//!
//! **The shipped pack** (`rules/claude-code/`, its rules on the shell view):
//! `claude/pack/{npm_test,heavy_bash}` run the process as above;
//! `claude_pack/{event}/{first,first_for_many,warm}` run in process:
//! `first` loads the table from its bytes for one event and dispatches
//! once (what each hook process does), `first_for_many` the same with a
//! table for a long-running host (which builds its packed literal searches
//! at once), `warm` dispatches on a loaded table. `heavy_bash` is a 1.8 KB command (72 simple commands) of
//! 12 `cd && git status | grep | awk | xargs sed -i && npm run build >
//! log` groups, which every Bash rule of the pack examines; `npm_test`, which
//! no rule is about, is its baseline in the same run.

#![expect(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    reason = "a bench whose setup fails must stop"
)]

use criterion::{criterion_group, criterion_main, Criterion};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

const HOOKC: &str = env!("CARGO_BIN_EXE_hookc");

/// The `hookc` binary timed: `HOOKC_BENCH_BIN`, else the bench profile's.
fn hookc_bin() -> String {
    std::env::var("HOOKC_BENCH_BIN").unwrap_or_else(|_| HOOKC.to_string())
}
const EVENTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/claude/events");
const POLICY: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/claude/policy.hooks"
);

/// Rules in the generated table.
const RULES: usize = 1000;

/// The tools targets and `tool_name` conditions are drawn from.
const TOOLS: [&str; 10] = [
    "Bash",
    "Write",
    "Edit",
    "Read",
    "Glob",
    "Grep",
    "WebFetch",
    "WebSearch",
    "Agent",
    "mcp__github__create_issue",
];

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// `n` claude-code rules on PreToolUse, none of which fires on the
/// no-match events, plus one rule for the `bash_rm` event.
fn rules(n: usize) -> String {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut text = String::from("schema claude-code\n\n");
    for l in 0..50 {
        let items: Vec<String> = (0..20).map(|i| format!("\"tok{l}x{i}\"")).collect();
        writeln!(text, "list l{l} = [{}]", items.join(", ")).unwrap();
    }
    for i in 0..n {
        let tool = TOOLS[rng.below(TOOLS.len())];
        let target = match rng.below(4) {
            0 | 1 => format!("claude-code::{tool}"),
            2 => "claude-code::*".to_string(),
            _ => "*::*".to_string(),
        };
        let priority = 1 + rng.below(200);
        writeln!(
            text,
            "\nhook r{i} on PreToolUse at {target} priority {priority} {{"
        )
        .unwrap();
        if rng.below(2) == 0 {
            writeln!(text, "    when payload.tool_name == \"{tool}\"").unwrap();
        }
        let condition = match rng.below(4) {
            0 => match rng.below(2) {
                0 => {
                    format!("payload.tool_input.command matches /rm\\s+-rf\\s+\\/srv\\/data{i}\\b/")
                }
                _ => format!(
                    "payload.tool_input.command matches /scp\\s+\\S+\\s+backup{i}@[a-z0-9.]+:/"
                ),
            },
            1 => format!("payload.tool_input.command contains any l{}", i % 50),
            2 => format!("payload.tool_input.command starts_with \"deploy-{i} \""),
            _ => format!("payload.tool_input.file_path glob \"**/secret{i}/**\""),
        };
        writeln!(text, "    when {condition}").unwrap();
        let action = match rng.below(3) {
            0 => format!("deny \"blocked by r{i}\""),
            1 => "ask \"confirm\"".to_string(),
            _ => "context \"note\"".to_string(),
        };
        writeln!(text, "    {action}\n}}").unwrap();
    }
    text.push_str(
        "\nhook the-one on PreToolUse at claude-code::Bash priority 100 {\n    when payload.tool_input.command starts_with \"rm -rf ./build\"\n    deny \"the one rule\"\n}\n",
    );
    text
}

fn tmp_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("claude-bench");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Compiles `text` into a table file.
fn write_table(name: &str, text: &str) -> PathBuf {
    let compiled = hookc::compile_str(name, text).expect("the generated rules compile");
    let path = tmp_dir().join(format!("{name}.tbl"));
    std::fs::write(&path, compiled.table.to_bytes()).unwrap();
    path
}

/// Spawns `program args`, writes `stdin`, closes it, waits.
fn spawn(program: &str, args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(program)
        .args(args)
        .env_remove("HOOKC_TABLE")
        .env_remove("HOOKC_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the program runs");
    // `/bin/true` may exit before reading: a broken pipe is fine there.
    let _ = child.stdin.take().expect("piped").write_all(stdin);
    child.wait_with_output().expect("the program finishes")
}

fn event(name: &str) -> Vec<u8> {
    std::fs::read(Path::new(EVENTS).join(name)).unwrap()
}

/// Runs one case once and checks its answer before it is measured.
fn check(table: &Path, event: &[u8], stdout_contains: Option<&str>) {
    let out = spawn(
        &hookc_bin(),
        &["claude", "--table", table.to_str().unwrap()],
        event,
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "stderr: {stderr}");
    assert_eq!(stderr, "", "the table must load and no note is expected");
    match stdout_contains {
        Some(needle) => assert!(stdout.contains(needle), "stdout: {stdout}"),
        None => assert_eq!(stdout, "", "no rule may fire"),
    }
}

fn bench_cold_start(c: &mut Criterion) {
    let hookc = hookc_bin();
    let generated = write_table("rules_1000", &rules(RULES));
    let policy = write_table(
        "policy",
        &std::fs::read_to_string(POLICY).expect("the test policy"),
    );
    let webfetch = event("pre_tool_use_webfetch.json");
    let cases = [
        (
            "bash_no_match",
            event("pre_tool_use_bash_npm_test.json"),
            None,
        ),
        ("write_no_match", event("pre_tool_use_write_src.json"), None),
        (
            "bash_rm",
            event("pre_tool_use_bash_rm.json"),
            Some("the one rule"),
        ),
    ];

    let mut group = c.benchmark_group("claude");
    group.sample_size(50);
    group.bench_function("spawn/true", |b| {
        b.iter(|| spawn("/bin/true", &[], &webfetch));
    });
    for (name, event, expected) in &cases {
        check(&generated, event, *expected);
        let table = generated.to_str().unwrap().to_string();
        group.bench_function(format!("rules_1000/{name}"), |b| {
            b.iter(|| spawn(&hookc, &["claude", "--table", &table], event));
        });
    }
    // The small policy: the cost of the process with a table that loads in
    // microseconds.
    check(&policy, &webfetch, None);
    let table = policy.to_str().unwrap().to_string();
    group.bench_function("policy/webfetch_no_match", |b| {
        b.iter(|| spawn(&hookc, &["claude", "--table", &table], &webfetch));
    });
    group.finish();
}

/// The shipped Claude Code pack, compiled.
fn pack_table() -> PathBuf {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/rules/claude-code");
    let compiled = hookc::compile_paths(&[dir], &hookc::Options::default())
        .expect("the shipped pack compiles");
    let path = tmp_dir().join("pack.tbl");
    std::fs::write(&path, compiled.table.to_bytes()).unwrap();
    path
}

/// A Bash PreToolUse event running `command`.
fn bash(command: &str) -> Vec<u8> {
    serde_json::json!({
        "hook_event_name": "PreToolUse", "session_id": "s", "cwd": "/tmp",
        "transcript_path": "/tmp/t.jsonl", "tool_name": "Bash",
        "tool_input": {"command": command},
    })
    .to_string()
    .into_bytes()
}

/// The heavy command: 12 groups of seven simple commands.
fn heavy_command() -> String {
    (0..12)
        .map(|i| {
            format!(
                "cd /work/p{i} && git status --short | grep -v '^??' | awk '{{print $2}}' \
                 | xargs -r sed -i 's/foo/bar/g' && npm run build -- --prod > /tmp/log{i}.txt 2>&1"
            )
        })
        .collect::<Vec<_>>()
        .join(" && ")
}

fn bench_pack(c: &mut Criterion) {
    let hookc = hookc_bin();
    let table = pack_table();
    let bytes = std::fs::read(&table).unwrap();
    let cases = [
        ("npm_test", bash("npm test")),
        ("heavy_bash", bash(&heavy_command())),
    ];
    let mut group = c.benchmark_group("claude");
    group.sample_size(50);
    let path = table.to_str().unwrap().to_string();
    for (name, event) in &cases {
        check(&table, event, None);
        group.bench_function(format!("pack/{name}"), |b| {
            b.iter(|| spawn(&hookc, &["claude", "--table", &path], event));
        });
    }
    group.finish();

    let mut group = c.benchmark_group("claude_pack");
    for (name, event) in &cases {
        let event = hookc::claude::Event::parse(std::str::from_utf8(event).unwrap()).unwrap();
        group.bench_function(format!("{name}/first"), |b| {
            b.iter(|| {
                let table = hookc::Table::from_bytes(&bytes).unwrap().for_one_event();
                event.dispatch(&table)
            });
        });
        // The baseline in the same run: a table for a long-running host,
        // which builds its packed literal searches for the first event.
        group.bench_function(format!("{name}/first_for_many"), |b| {
            b.iter(|| {
                let table = hookc::Table::from_bytes(&bytes).unwrap();
                event.dispatch(&table)
            });
        });
        let loaded = hookc::Table::from_bytes(&bytes).unwrap();
        group.bench_function(format!("{name}/warm"), |b| {
            b.iter(|| event.dispatch(&loaded));
        });
    }
    group.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5))
}

criterion_group! {
    name = benches;
    config = config();
    targets = bench_cold_start, bench_pack
}
criterion_main!(benches);
