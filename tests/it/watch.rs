//! Recompiling on change: the library `Watcher` reloads a registry and keeps
//! the last good table on errors; `hookc watch` does the same with a table
//! file.

#![expect(clippy::unwrap_used, reason = "tests fail loudly on bad fixtures")]

use hookc::watch::{Change, Watcher};
use hookc::{HookContext, Registry, Table, Target};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn tmp_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("watch")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn rules(reason: &str) -> String {
    format!("hook stop on tool.pre_execute at builtin::* {{\n    abort \"{reason}\"\n}}\n")
}

/// The abort reason the registry gives now.
fn reason(registry: &Registry) -> Option<String> {
    let mut scratch = registry.scratch();
    let mut ctx = HookContext::new("tool.pre_execute", "builtin::llm", json!({}));
    registry
        .dispatch(
            &mut scratch,
            "tool.pre_execute",
            &Target::new("builtin::llm"),
            &mut ctx,
        )
        .reason
}

/// Waits up to 10 s for `done`.
fn eventually(what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "timed out waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn poll_compiles_on_change_only() {
    let dir = tmp_dir("poll");
    let file = dir.join("a.hooks");
    std::fs::write(&file, rules("one")).unwrap();
    let mut watcher = Watcher::new(&[&dir], hookc::Options::default());
    let Some(Change::Compiled(first)) = watcher.poll() else {
        panic!("the first poll compiles")
    };
    assert_eq!(first.table.rule_count(), 1);
    assert!(watcher.poll().is_none(), "nothing changed");

    std::fs::write(&file, "hook broken on {").unwrap();
    let Some(Change::Failed(diagnostics)) = watcher.poll() else {
        panic!("a syntax error is a failed change")
    };
    assert!(diagnostics.has_errors());
    assert!(
        watcher.poll().is_none(),
        "the broken text is not recompiled"
    );

    // A new file in the directory is a change.
    std::fs::write(&file, rules("one")).unwrap();
    std::fs::write(dir.join("b.hooks"), rules("two").replace("stop", "stop2")).unwrap();
    let Some(Change::Compiled(both)) = watcher.poll() else {
        panic!("fixed and extended")
    };
    assert_eq!(both.table.rule_count(), 2);
}

#[test]
fn imported_files_are_watched_too() {
    let dir = tmp_dir("imports");
    let rules_dir = dir.join("rules");
    std::fs::create_dir_all(&rules_dir).unwrap();
    let shared = dir.join("shared.hooks");
    std::fs::write(
        &shared,
        "macro dangerous = payload.command contains \"rm\"\n",
    )
    .unwrap();
    std::fs::write(
        rules_dir.join("main.hooks"),
        "import \"../shared.hooks\"\nhook d on tool.pre_execute at builtin::* {\n    when dangerous\n    abort \"d\"\n}\n",
    )
    .unwrap();
    let mut watcher = Watcher::new(&[&rules_dir], hookc::Options::default());
    assert!(matches!(watcher.poll(), Some(Change::Compiled(_))));
    assert!(watcher.poll().is_none());
    std::fs::write(&shared, "macro dangerous = payload.command contains \n").unwrap();
    assert!(
        matches!(watcher.poll(), Some(Change::Failed(_))),
        "a change to an imported file outside the watched directory is seen"
    );
}

#[test]
fn run_reloads_the_registry_and_keeps_the_last_good_table() {
    let dir = tmp_dir("run");
    let file = dir.join("a.hooks");
    std::fs::write(&file, rules("first")).unwrap();
    let mut watcher = Watcher::new(&[&dir], hookc::Options::default());
    let Some(Change::Compiled(first)) = watcher.poll() else {
        panic!("compiles")
    };
    let registry = Arc::new(Registry::new(first.table));
    let stop = Arc::new(AtomicBool::new(false));
    let failures = Arc::new(std::sync::Mutex::new(0usize));
    let thread = {
        let (registry, stop, failures) = (registry.clone(), stop.clone(), failures.clone());
        std::thread::spawn(move || {
            watcher.run(&registry, Duration::from_millis(10), &stop, |change| {
                if matches!(change, Change::Failed(_)) {
                    *failures.lock().unwrap() += 1;
                }
            });
        })
    };
    assert_eq!(reason(&registry).as_deref(), Some("first"));

    std::fs::write(&file, rules("second")).unwrap();
    eventually("the second table", || {
        reason(&registry).as_deref() == Some("second")
    });
    assert_eq!(registry.generation(), 1);

    std::fs::write(&file, "hook broken on tool.pre_execute { abort 1 +").unwrap();
    eventually("the failure report", || *failures.lock().unwrap() == 1);
    assert_eq!(
        reason(&registry).as_deref(),
        Some("second"),
        "the last good table stays"
    );
    assert_eq!(registry.generation(), 1);

    std::fs::write(&file, rules("third")).unwrap();
    eventually("the third table", || {
        reason(&registry).as_deref() == Some("third")
    });
    stop.store(true, Ordering::Relaxed);
    thread.join().unwrap();
}

#[test]
fn the_cli_rewrites_the_table_and_runs_the_exec_command() {
    let dir = tmp_dir("cli");
    let rules_dir = dir.join("rules");
    std::fs::create_dir_all(&rules_dir).unwrap();
    let file = rules_dir.join("a.hooks");
    std::fs::write(&file, rules("first")).unwrap();
    let table = dir.join("rules.tbl");
    let marker = dir.join("reloaded");
    let mut child = Command::new(env!("CARGO_BIN_EXE_hookc"))
        .arg("watch")
        .arg(&rules_dir)
        .arg("-o")
        .arg(&table)
        .args(["--interval", "20", "--exec", "/bin/sh", "-c"])
        .arg(format!("echo x >> '{}'", marker.display()))
        .env("NO_COLOR", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let load = || -> Option<String> {
        let bytes = std::fs::read(&table).ok()?;
        let table = Table::from_bytes(&bytes).ok()?;
        let registry = Registry::new(table);
        reason(&registry)
    };
    let reloads = || {
        std::fs::read_to_string(&marker)
            .map(|s| s.lines().count())
            .unwrap_or(0)
    };
    eventually("the first table", || load().as_deref() == Some("first"));
    eventually("the first --exec", || reloads() == 1);

    std::fs::write(&file, "hook broken on {").unwrap();
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        load().as_deref(),
        Some("first"),
        "the last good table stays"
    );
    assert_eq!(reloads(), 1, "no --exec after a failed change");

    std::fs::write(&file, rules("second")).unwrap();
    eventually("the second table", || load().as_deref() == Some("second"));
    eventually("the second --exec", || reloads() == 2);

    child.kill().unwrap();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("watch: compiled 1 rule into"), "{stderr}");
    assert!(
        stderr.contains("keeps the last good table"),
        "the failure is reported: {stderr}"
    );
    assert!(stderr.contains("error"), "{stderr}");
}

/// A running `hookc watch`, killed when dropped (a failing test must not
/// leave it writing tables into the next run's directory), and what it has
/// printed on stderr so far (read as it comes: the table file can be in
/// place a moment before the line that reports it).
struct WatchProcess {
    child: Option<std::process::Child>,
    stderr: std::sync::Arc<std::sync::Mutex<String>>,
    reader: Option<std::thread::JoinHandle<()>>,
}

impl WatchProcess {
    /// Waits until stderr has `needle`.
    fn wait_for(&self, needle: &str) {
        eventually(&format!("`{needle}` on stderr"), || {
            self.stderr.lock().unwrap().contains(needle)
        });
    }
}

impl Drop for WatchProcess {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
    }
}

/// `hookc watch RULES -o TABLE ARGS…`, its stderr piped.
fn spawn_watch(rules: &Path, table: &Path, args: &[&str]) -> WatchProcess {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hookc"))
        .arg("watch")
        .arg(rules)
        .arg("-o")
        .arg(table)
        .args(["--interval", "20"])
        .args(args)
        .env("NO_COLOR", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pipe = child.stderr.take().unwrap();
    let stderr = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let sink = stderr.clone();
    let reader = std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(pipe).lines() {
            let Ok(line) = line else { break };
            let mut text = sink.lock().unwrap();
            text.push_str(&line);
            text.push('\n');
        }
    });
    WatchProcess {
        child: Some(child),
        stderr,
        reader: Some(reader),
    }
}

/// Kills a `hookc watch` and returns what it printed on stderr.
fn stop_watch(mut process: WatchProcess) -> String {
    let mut child = process.child.take().unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    if let Some(reader) = process.reader.take() {
        reader.join().unwrap();
    }
    let text = process.stderr.lock().unwrap().clone();
    text
}

/// The rule count and abort reason of the table file, if it loads.
fn table_state(table: &Path) -> Option<(usize, Option<String>)> {
    let bytes = std::fs::read(table).ok()?;
    let table = Table::from_bytes(&bytes).ok()?;
    let count = table.rule_count();
    Some((count, reason(&Registry::new(table))))
}

#[test]
fn the_cli_never_publishes_a_truncated_save() {
    for mode in [&[][..], &["--poll"][..]] {
        let dir = tmp_dir(if mode.is_empty() {
            "truncate"
        } else {
            "truncate-poll"
        });
        let rules_dir = dir.join("rules");
        std::fs::create_dir_all(&rules_dir).unwrap();
        let file = rules_dir.join("a.hooks");
        std::fs::write(&file, rules("first")).unwrap();
        let table = dir.join("rules.tbl");
        let child = spawn_watch(&rules_dir, &table, mode);
        eventually("the first table", || {
            table_state(&table) == Some((1, Some("first".into())))
        });

        // The first half of a truncate-then-write save.
        std::fs::write(&file, "").unwrap();
        std::thread::sleep(Duration::from_millis(400));
        assert_eq!(
            table_state(&table),
            Some((1, Some("first".into()))),
            "{mode:?}: the empty rule set is not published"
        );
        // The second half.
        std::fs::write(&file, rules("second")).unwrap();
        eventually("the second table", || {
            table_state(&table) == Some((1, Some("second".into())))
        });

        let stderr = stop_watch(child);
        assert!(
            stderr.contains("is empty now;")
                && stderr.contains("keeps the last good table (1 rule); pass --allow-empty"),
            "{mode:?}: {stderr}"
        );
        if mode.is_empty() {
            assert!(
                stderr.contains("watch: waiting for file-system events"),
                "{stderr}"
            );
        } else {
            assert!(stderr.contains("(polling was asked for)"), "{stderr}");
        }
    }
}

#[test]
fn the_cli_publishes_an_empty_rule_set_with_allow_empty() {
    let dir = tmp_dir("allow-empty");
    let rules_dir = dir.join("rules");
    std::fs::create_dir_all(&rules_dir).unwrap();
    let file = rules_dir.join("a.hooks");
    std::fs::write(&file, rules("first")).unwrap();
    let table = dir.join("rules.tbl");
    let child = spawn_watch(&rules_dir, &table, &["--allow-empty", "--poll"]);
    eventually("the first table", || {
        table_state(&table) == Some((1, Some("first".into())))
    });
    std::fs::write(&file, "").unwrap();
    eventually("the empty table", || table_state(&table) == Some((0, None)));
    child.wait_for("watch: compiled 0 rules into");
    let stderr = stop_watch(child);
    assert!(stderr.contains("watch: compiled 0 rules into"), "{stderr}");
    assert!(!stderr.contains("--allow-empty"), "{stderr}");
}

#[test]
fn the_cli_refuses_to_write_the_table_over_a_rule_file() {
    let dir = tmp_dir("over-source");
    let file = dir.join("a.hooks");
    std::fs::write(&file, rules("first")).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_hookc"))
        .arg("watch")
        .arg(&dir)
        .arg("-o")
        .arg(&file)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("refusing to write a compiled table"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), rules("first"));
}

/// `--format json`: one JSON object per line on stdout for every event, in
/// order, and nothing on stderr.
#[test]
fn the_cli_reports_json_events_one_per_line() {
    let dir = tmp_dir("json");
    let rules_dir = dir.join("rules");
    std::fs::create_dir_all(&rules_dir).unwrap();
    let file = rules_dir.join("a.hooks");
    std::fs::write(&file, rules("first")).unwrap();
    let table = dir.join("rules.tbl");
    let mut child = Command::new(env!("CARGO_BIN_EXE_hookc"))
        .arg("watch")
        .arg(&rules_dir)
        .arg("-o")
        .arg(&table)
        .args(["--interval", "20", "--poll", "--format", "json"])
        .args(["--exec", "/bin/sh", "-c", "exit 3"])
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pipe = child.stdout.take().unwrap();
    let lines = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let sink = lines.clone();
    let reader = std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(pipe).lines() {
            let Ok(line) = line else { break };
            sink.lock().unwrap().push(line);
        }
    });
    let events = || -> Vec<serde_json::Value> {
        lines
            .lock()
            .unwrap()
            .iter()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
            .collect()
    };
    let count = |name: &str| events().iter().filter(|e| e["event"] == name).count();

    eventually("compiled, then reloaded", || count("reloaded") == 1);
    std::fs::write(&file, "hook broken on {").unwrap();
    eventually("failed", || count("failed") == 1);
    std::fs::write(&file, "").unwrap();
    eventually("kept", || count("kept") == 1);
    std::fs::write(&file, rules("second")).unwrap();
    eventually("compiled again", || count("reloaded") == 2);

    child.kill().unwrap();
    let output = child.wait_with_output().unwrap();
    reader.join().unwrap();
    assert_eq!(String::from_utf8_lossy(&output.stderr), "");
    let events = events();
    let names: Vec<&str> = events
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["started", "compiled", "reloaded", "failed", "kept", "compiled", "reloaded"]
    );
    let out = table.display().to_string();
    let started = &events[0];
    assert_eq!(started["wake"], "polling");
    assert_eq!(started["reason"], "polling was asked for");
    assert_eq!(started["interval_ms"], 20);
    assert_eq!(started["output"], out.as_str());
    let compiled = &events[1];
    assert_eq!(compiled["rules"], 1);
    assert_eq!(compiled["points"], 1);
    assert_eq!(compiled["signed"], false);
    // The table on disk is the last one compiled (its size depends on the
    // sources, which the rules' absolute path is part of).
    assert_eq!(
        events[5]["bytes"].as_u64().unwrap(),
        std::fs::metadata(&table).unwrap().len()
    );
    assert_eq!(compiled["warnings"]["errors"], 0);
    let reloaded = &events[2];
    assert_eq!(reloaded["command"], json!(["/bin/sh", "-c", "exit 3"]));
    assert_eq!(reloaded["ok"], false);
    assert_eq!(reloaded["status"], 3);
    let failed = &events[3];
    assert!(
        failed["diagnostics"]["errors"].as_u64().unwrap() >= 1,
        "{failed}"
    );
    assert_eq!(failed["diagnostics"]["diagnostics"][0]["severity"], "error");
    let kept = &events[4];
    assert_eq!(kept["published"], 1);
    assert!(
        kept["files"][0].as_str().unwrap().ends_with("a.hooks"),
        "{kept}"
    );
    assert_eq!(table_state(&table), Some((1, Some("second".into()))));
}
