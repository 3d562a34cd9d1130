//! Where `rate(…)` counts live: the file store shared by processes (a
//! library host's, and `hookc claude`'s by default), store failures under
//! each failure mode, `hookc claude`'s choice of store, the
//! `rate-without-store` lint through `hookc lint`, and, with the `redis`
//! feature, the Redis store against a real `redis-server` on 127.0.0.1
//! that the tests start themselves (skipped with a message when there is
//! none, unless `HOOKC_REQUIRE_REDIS=1`).

#![expect(
    clippy::unwrap_used,
    clippy::panic,
    reason = "tests fail loudly on purpose"
)]

use hookc::store::RateStore;
use hookc::{Effects, HookContext, OutcomeKind, Registry, Report, Table, Target};
use serde_json::json;
use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn tmp_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("rate-store")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A table of its own (its own in-memory counters), as another process
/// would load it.
fn table(rules: &str) -> Table {
    let compiled = hookc::compile_str("r.hooks", rules)
        .unwrap_or_else(|d| panic!("rules do not compile:\n{d}"));
    Table::from_bytes(&compiled.table.to_bytes()).unwrap()
}

fn request(t: &Table, effects: &Effects, component: &str) -> Report {
    let mut ctx = HookContext::new(
        "request.pre_dispatch",
        component,
        json!({"operation": "chat"}),
    );
    let mut scratch = t.scratch();
    let outcome = t.dispatch_with(
        &mut scratch,
        "request.pre_dispatch",
        &Target::new(component),
        &mut ctx,
        effects,
    );
    outcome.report(&ctx)
}

const LIMIT_3: &str = r#"
hook limit on request.pre_dispatch {
    when rate("{component}") > 3 per 60s
    abort "rate limit exceeded: {component}"
}
"#;

fn file_effects(dir: &Path) -> Effects {
    Effects::new().with_rate_store(RateStore::file(dir))
}

#[test]
fn tables_of_different_processes_count_together_in_a_file() {
    use OutcomeKind::{Abort, Continue};
    // Counted in memory, two tables of two processes (two hosts' effects)
    // count apart.
    let (a, b) = (table(LIMIT_3), table(LIMIT_3));
    let (ma, mb) = (Effects::new(), Effects::new());
    let apart: Vec<OutcomeKind> = (0..6)
        .map(|i| {
            if i % 2 == 0 {
                request(&a, &ma, "x::y").outcome
            } else {
                request(&b, &mb, "x::y").outcome
            }
        })
        .collect();
    assert_eq!(apart, [Continue; 6]);
    // In one process's memory (one host's effects) they count together,
    // like any two tables with the same `rate(…)`.
    let one = Effects::new();
    let shared: Vec<OutcomeKind> = (0..6)
        .map(|i| request(if i % 2 == 0 { &a } else { &b }, &one, "x::y").outcome)
        .collect();
    assert_eq!(shared, [Continue, Continue, Continue, Abort, Abort, Abort]);
    // In one file they count together: the fourth event is over the limit,
    // whichever table sees it.
    let dir = tmp_dir("two-tables");
    let (a, b) = (table(LIMIT_3), table(LIMIT_3));
    let (ea, eb) = (file_effects(&dir), file_effects(&dir));
    let together: Vec<OutcomeKind> = (0..6)
        .map(|i| {
            if i % 2 == 0 {
                request(&a, &ea, "x::y").outcome
            } else {
                request(&b, &eb, "x::y").outcome
            }
        })
        .collect();
    assert_eq!(
        together,
        [Continue, Continue, Continue, Abort, Abort, Abort]
    );
    assert_eq!(request(&a, &ea, "other::key").outcome, Continue);
    assert!(dir.join("rates").is_file() && dir.join("rates.lock").is_file());
    // A registry counts in the host's store too, across reloads.
    let registry = Registry::with_effects(table(LIMIT_3), file_effects(&dir));
    let dispatch = |registry: &Registry| {
        let mut scratch = registry.scratch();
        let mut ctx = HookContext::new("request.pre_dispatch", "x::y", json!({}));
        registry
            .dispatch(
                &mut scratch,
                "request.pre_dispatch",
                &Target::new("x::y"),
                &mut ctx,
            )
            .outcome
    };
    assert_eq!(dispatch(&registry), Abort);
    registry.reload(table(LIMIT_3));
    assert_eq!(dispatch(&registry), Abort);
}

#[test]
fn concurrent_hosts_on_one_key_count_exactly() {
    // Eight hosts, each with its own table and store value, 25 events each
    // on one key, at once: exactly 50 get through.
    let dir = tmp_dir("concurrent");
    let rules = r#"
hook limit on request.pre_dispatch {
    when rate("one-key") > 50 per 10m
    abort "over"
}
"#;
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let dir = dir.clone();
            std::thread::spawn(move || {
                let t = table(rules);
                let effects = file_effects(&dir);
                (0..25)
                    .filter(|_| request(&t, &effects, "a::b").outcome == OutcomeKind::Continue)
                    .count()
            })
        })
        .collect();
    let passed: usize = threads.into_iter().map(|t| t.join().unwrap()).sum();
    assert_eq!(passed, 50);
}

#[test]
fn a_failing_store_follows_each_rules_failure_mode() {
    // The store's directory cannot be made: a file is in the way.
    let dir = tmp_dir("failing");
    std::fs::write(dir.join("state"), "not a directory").unwrap();
    let effects = Effects::new().with_rate_store(RateStore::file(dir.join("state").join("x")));
    let t = table(
        r#"
hook lenient on request.pre_dispatch priority 1 {
    when rate("{component}") > 3 per 60s
    abort "over"
}
hook lenient-unless on request.pre_dispatch priority 2 {
    unless rate("{component}:b") > 3 per 60s
    meta under_limit = true
}
hook tag on request.pre_dispatch priority 3 {
    meta tagged = true
}
hook strict on request.pre_dispatch priority 4 fail closed {
    when payload.operation == "chat"
    when rate("{component}") > 3 per 60s
    abort "over"
}
"#,
    );
    let report = request(&t, &effects, "x::y");
    // `fail closed`: the chain aborts, naming the rule and the store.
    assert_eq!(report.outcome, OutcomeKind::Abort);
    let reason = report.reason.unwrap();
    assert!(
        reason
            .starts_with("rule `strict` failed closed: cannot count `rate(…)` in the rate file `")
            && reason.contains("cannot create"),
        "{reason}"
    );
    assert_eq!(report.fired, ["tag", "strict"]);
    // `fail open`: the rule does not fire, whatever its condition's polarity
    // (an `unless` too), with a warning; the rest of the chain runs.
    assert_eq!(report.warnings.len(), 2, "{:?}", report.warnings);
    assert!(report.warnings[0]
        .starts_with("rule `lenient` failed open: cannot count `rate(…)` in the rate file"));
    assert!(report.warnings[1].starts_with("rule `lenient-unless` failed open: cannot count"));

    // A store that could not be set up at all fails the same way.
    let unavailable =
        Effects::new().with_rate_store(RateStore::from_spec(&hookc::store::StoreSpec::File, None));
    let report = request(&t, &unavailable, "x::y");
    assert!(
        report.reason.as_deref().is_some_and(|r| r
            .contains("cannot count `rate(…)` in the rate file: there is no project directory")),
        "{report:?}"
    );
}

// --- `hookc claude` ------------------------------------------------------

/// What one run printed and how it exited.
#[derive(Debug)]
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Run {
    fn denied(&self) -> bool {
        self.stdout.contains("\"permissionDecision\":\"deny\"")
    }
}

fn hookc_command(args: &[&OsStr], env: &[(&str, &OsStr)]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_hookc"));
    command
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .env_remove("HOOKC_TABLE")
        .env_remove("HOOKC_RATE_STORE")
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("HOOKC_LOG")
        .env_remove("RUST_LOG");
    for (key, value) in env {
        command.env(key, value);
    }
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

fn finish(mut child: std::process::Child, stdin: &str) -> Run {
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    Run {
        code: out.status.code(),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

fn hookc(args: &[&OsStr], stdin: &str, env: &[(&str, &OsStr)]) -> Run {
    finish(hookc_command(args, env).spawn().unwrap(), stdin)
}

const BASH_LIMIT: &str = r#"schema claude-code

hook too-many-shells on PreToolUse {
    when payload.tool_name == "Bash"
    when rate("bash") > 5 per 10m
    deny "more than 5 shell commands in 10 minutes"
}
"#;

const BASH_EVENT: &str =
    r#"{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}}"#;

/// A project with `rules` compiled into `.hookc/rules.tbl`.
fn project(name: &str, rules: &str) -> PathBuf {
    let dir = tmp_dir(name);
    std::fs::create_dir_all(dir.join(".hookc")).unwrap();
    std::fs::write(dir.join("limit.hooks"), rules).unwrap();
    let table = dir.join(".hookc/rules.tbl");
    let run = hookc(
        &[
            OsStr::new("compile"),
            dir.join("limit.hooks").as_os_str(),
            OsStr::new("-o"),
            table.as_os_str(),
        ],
        "",
        &[],
    );
    assert_eq!(run.code, Some(0), "{run:#?}");
    dir
}

fn claude_in(project: &Path, extra: &[&str]) -> Run {
    let mut args = vec![OsStr::new("claude")];
    args.extend(extra.iter().map(OsStr::new));
    hookc(
        &args,
        BASH_EVENT,
        &[("CLAUDE_PROJECT_DIR", project.as_os_str())],
    )
}

#[test]
fn hookc_claude_processes_share_counts_in_the_project() {
    let dir = project("claude-shared", BASH_LIMIT);
    // Twelve processes at once, as parallel tool calls: exactly five get
    // through.
    let children: Vec<_> = (0..12)
        .map(|_| {
            hookc_command(
                &[OsStr::new("claude")],
                &[("CLAUDE_PROJECT_DIR", dir.as_os_str())],
            )
            .spawn()
            .unwrap()
        })
        .collect();
    let runs: Vec<Run> = children
        .into_iter()
        .map(|c| finish(c, BASH_EVENT))
        .collect();
    for run in &runs {
        assert_eq!(run.code, Some(0), "{run:#?}");
        assert!(!run.stderr.contains("failed"), "{run:#?}");
    }
    let denied = runs.iter().filter(|r| r.denied()).count();
    assert_eq!(denied, 7, "{runs:#?}");
    assert!(runs.iter().filter(|r| r.denied()).all(|r| r
        .stdout
        .contains("more than 5 shell commands in 10 minutes")));
    let state = dir.join(".hookc/state");
    assert!(state.join("rates").is_file());
    assert_eq!(
        std::fs::read_to_string(state.join(".gitignore")).unwrap(),
        "*\n"
    );
}

#[test]
fn hookc_claude_resets_a_corrupt_file_and_says_so() {
    let dir = project("claude-corrupt", BASH_LIMIT);
    for _ in 0..5 {
        assert!(!claude_in(&dir, &[]).denied());
    }
    assert!(claude_in(&dir, &[]).denied());
    std::fs::write(dir.join(".hookc/state/rates"), b"HOOKCRT1 torn").unwrap();
    let run = claude_in(&dir, &[]);
    assert_eq!(run.code, Some(0), "{run:#?}");
    assert!(!run.denied(), "the counts started again: {run:#?}");
    assert!(
        run.stderr.contains("/.hookc/state/rates` was reset (")
            && run.stderr.contains("its counts start again"),
        "{run:#?}"
    );
}

#[test]
fn hookc_claude_takes_the_store_from_the_flag_the_environment_or_hookc_toml() {
    let dir = project("claude-choice", BASH_LIMIT);
    // `memory`: every process counts only its own event, and says so.
    for _ in 0..7 {
        let run = claude_in(&dir, &["--rate-store", "memory"]);
        assert!(!run.denied(), "{run:#?}");
        assert!(run.stderr.contains("counts are kept in memory"), "{run:#?}");
    }
    assert!(!dir.join(".hookc/state").exists(), "nothing was written");
    // `hookc.toml` beside the table.
    std::fs::write(
        dir.join(".hookc/hookc.toml"),
        "[rate]\nstore = \"memory\"\n",
    )
    .unwrap();
    assert!(claude_in(&dir, &[])
        .stderr
        .contains("counts are kept in memory"));
    // The flag wins over `hookc.toml`, and a store that is not one fails
    // the rate rule by its mode (open: a warning, no decision).
    let run = claude_in(&dir, &["--rate-store", "disk"]);
    assert_eq!((run.code, run.stdout.as_str()), (Some(0), ""), "{run:#?}");
    assert!(
        run.stderr.contains(
            "rule `too-many-shells` failed open: cannot count `rate(…)` in the store `--rate-store` names: unknown rate store `disk`"
        ),
        "{run:#?}"
    );
    // The environment is next.
    let run = hookc(
        &[OsStr::new("claude")],
        BASH_EVENT,
        &[
            ("CLAUDE_PROJECT_DIR", dir.as_os_str()),
            ("HOOKC_RATE_STORE", OsStr::new("disk")),
        ],
    );
    assert!(
        run.stderr.contains("the store `HOOKC_RATE_STORE` names"),
        "{run:#?}"
    );
    // A `hookc.toml` store that is not one is an error of the configuration
    // `hookc claude` reads beside the table: the whole policy takes the
    // fail mode (the file may also be what asks for signed tables).
    std::fs::write(dir.join(".hookc/hookc.toml"), "[rate]\nstore = \"disk\"\n").unwrap();
    let run = claude_in(&dir, &[]);
    assert!(
        run.stderr.contains("hookc.toml` has errors")
            && run.stderr.contains("unknown rate store `disk`")
            && run.stderr.contains("failing open"),
        "{run:#?}"
    );
}

#[test]
fn hookc_claude_with_no_project_fails_the_rule_by_its_mode() {
    let dir = project(
        "claude-no-project",
        &BASH_LIMIT.replace("on PreToolUse {", "on PreToolUse fail closed {"),
    );
    let table = dir.join(".hookc/rules.tbl");
    // No `CLAUDE_PROJECT_DIR` and no `cwd` in the event: no place for the
    // file, and the rule is `fail closed`.
    let run = hookc(
        &[
            OsStr::new("claude"),
            OsStr::new("--table"),
            table.as_os_str(),
        ],
        BASH_EVENT,
        &[],
    );
    assert!(run.denied(), "{run:#?}");
    assert!(
        run.stdout.contains(
            "rule `too-many-shells` failed closed: cannot count `rate(…)` in the rate file: there is no project directory"
        ),
        "{run:#?}"
    );
}

#[test]
fn hookc_lint_warns_until_hookc_toml_names_a_shared_store() {
    let dir = tmp_dir("lint");
    std::fs::write(dir.join("limit.hooks"), BASH_LIMIT).unwrap();
    let lint = || {
        hookc(
            &[
                OsStr::new("lint"),
                OsStr::new("--deny-warnings"),
                dir.as_os_str(),
            ],
            "",
            &[],
        )
    };
    let run = lint();
    assert_eq!(run.code, Some(1), "{run:#?}");
    assert!(
        run.stderr.contains("warning[rate-without-store]: `rate(…)` of rule `too-many-shells` needs a store shared by `hookc claude`'s processes"),
        "{run:#?}"
    );
    std::fs::write(dir.join("hookc.toml"), "[rate]\nstore = \"memory\"\n").unwrap();
    let run = lint();
    assert!(
        run.stderr
            .contains("is counted in memory, but `hookc claude` runs one process per event"),
        "{run:#?}"
    );
    for store in ["file", "redis://127.0.0.1:6379/0"] {
        std::fs::write(
            dir.join("hookc.toml"),
            format!("[rate]\nstore = \"{store}\"\n"),
        )
        .unwrap();
        let run = lint();
        assert_eq!(
            (run.code, run.stderr.as_str()),
            (Some(0), ""),
            "{store}: {run:#?}"
        );
    }
    // Rules for another schema run in a long-lived host: no warning.
    std::fs::remove_file(dir.join("hookc.toml")).unwrap();
    std::fs::write(
        dir.join("limit.hooks"),
        "schema orcs\nhook h on request.pre_dispatch {\n    when rate(\"{component}\") > 5 per 1m\n    abort \"over\"\n}\n",
    )
    .unwrap();
    assert_eq!(lint().code, Some(0));
}

// --- Redis -----------------------------------------------------------------

#[cfg(feature = "redis")]
mod redis {
    use super::*;
    use std::net::{TcpListener, TcpStream};
    use std::process::Child;
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    /// A `redis-server` of this test's own on a free loopback port, stopped
    /// when dropped.
    struct Server {
        child: Child,
        port: u16,
    }

    impl Server {
        /// Starts one; `None` (with a message) when `redis-server` is not on
        /// `PATH`, which fails the test under `HOOKC_REQUIRE_REDIS=1`.
        fn start(name: &str) -> Option<Server> {
            if Command::new("redis-server")
                .arg("--version")
                .output()
                .is_err()
            {
                assert!(
                    std::env::var("HOOKC_REQUIRE_REDIS").as_deref() != Ok("1"),
                    "HOOKC_REQUIRE_REDIS=1, but `redis-server` is not on PATH"
                );
                eprintln!(
                    "skipped: `redis-server` is not on PATH (`apt-get install redis-server` runs these tests)"
                );
                return None;
            }
            let port = TcpListener::bind("127.0.0.1:0")
                .unwrap()
                .local_addr()
                .unwrap()
                .port();
            let dir = tmp_dir(&format!("redis-{name}"));
            let child = Command::new("redis-server")
                .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
                .args(["--save", "", "--appendonly", "no"])
                .arg("--dir")
                .arg(&dir)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            let server = Server { child, port };
            let deadline = Instant::now() + Duration::from_secs(10);
            while TcpStream::connect(("127.0.0.1", port)).is_err() {
                assert!(Instant::now() < deadline, "redis-server did not start");
                std::thread::sleep(Duration::from_millis(20));
            }
            Some(server)
        }

        fn url(&self) -> String {
            format!("redis://127.0.0.1:{}/0", self.port)
        }

        fn effects(&self) -> Effects {
            Effects::new().with_rate_store(RateStore::Redis(Arc::new(
                hookc::store::RedisStore::open(&self.url()).unwrap(),
            )))
        }
    }

    impl Drop for Server {
        fn drop(&mut self) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }

    #[test]
    fn hosts_count_together_in_redis_and_the_window_slides() {
        use OutcomeKind::{Abort, Continue};
        let Some(server) = Server::start("together") else {
            return;
        };
        let (a, b) = (table(LIMIT_3), table(LIMIT_3));
        let (ea, eb) = (server.effects(), server.effects());
        let outcomes: Vec<OutcomeKind> = (0..5)
            .map(|i| {
                if i % 2 == 0 {
                    request(&a, &ea, "x::y").outcome
                } else {
                    request(&b, &eb, "x::y").outcome
                }
            })
            .collect();
        assert_eq!(outcomes, [Continue, Continue, Continue, Abort, Abort]);
        assert_eq!(request(&a, &ea, "other::key").outcome, Continue);

        let slide = table(
            r#"
hook limit on request.pre_dispatch {
    when rate("{component}") >= 2 per 300ms
    abort "slow down"
}
"#,
        );
        assert_eq!(request(&slide, &ea, "s::t").outcome, Continue);
        assert_eq!(request(&slide, &eb, "s::t").outcome, Abort);
        std::thread::sleep(Duration::from_millis(350));
        assert_eq!(request(&slide, &ea, "s::t").outcome, Continue);

        // Every key the store writes expires a window after its last event.
        let client = ::redis::Client::open(server.url()).unwrap();
        let mut con = client.get_connection().unwrap();
        let keys: Vec<String> = ::redis::cmd("KEYS")
            .arg("hookc:rate:*")
            .query(&mut con)
            .unwrap();
        assert_eq!(keys.len(), 3, "{keys:?}");
        for key in keys {
            let ttl: i64 = ::redis::cmd("PTTL").arg(&key).query(&mut con).unwrap();
            assert!(ttl > 0 && ttl <= 60_000, "{key}: {ttl}");
            let members: i64 = ::redis::cmd("ZCARD").arg(&key).query(&mut con).unwrap();
            assert!(members <= 4, "at most `keep` arrivals: {members}");
        }
    }

    #[test]
    fn concurrent_hosts_count_exactly_in_redis() {
        let Some(server) = Server::start("concurrent") else {
            return;
        };
        let rules = r#"
hook limit on request.pre_dispatch {
    when rate("one-key") > 50 per 10m
    abort "over"
}
"#;
        let url = server.url();
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let url = url.clone();
                std::thread::spawn(move || {
                    let t = table(rules);
                    let effects = Effects::new().with_rate_store(RateStore::Redis(Arc::new(
                        hookc::store::RedisStore::open(&url).unwrap(),
                    )));
                    (0..25)
                        .filter(|_| request(&t, &effects, "a::b").outcome == OutcomeKind::Continue)
                        .count()
                })
            })
            .collect();
        let passed: usize = threads.into_iter().map(|t| t.join().unwrap()).sum();
        assert_eq!(passed, 50);
    }

    #[test]
    fn redis_down_follows_the_failure_mode_and_hides_the_password() {
        // A port nothing listens on.
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let store = hookc::store::RedisStore::open(&format!("redis://:s3cret@127.0.0.1:{port}/0"))
            .unwrap()
            .with_timeout(Duration::from_millis(500));
        let effects = Effects::new().with_rate_store(RateStore::Redis(Arc::new(store)));
        let t = table(
            r#"
hook lenient on request.pre_dispatch priority 1 {
    when rate("{component}") > 3 per 60s
    abort "over"
}
hook strict on request.pre_dispatch priority 2 fail closed {
    when rate("{component}") > 3 per 60s
    abort "over"
}
"#,
        );
        let report = request(&t, &effects, "x::y");
        let reason = report.reason.unwrap();
        assert!(
            reason.starts_with(&format!(
                "rule `strict` failed closed: cannot count `rate(…)` in redis://***@127.0.0.1:{port}/0: "
            )),
            "{reason}"
        );
        assert!(
            report.warnings[0]
                .starts_with("rule `lenient` failed open: cannot count `rate(…)` in redis://***@"),
            "{:?}",
            report.warnings
        );
        assert!(!format!("{reason}{:?}", report.warnings).contains("s3cret"));
    }

    #[test]
    fn a_restarted_server_is_reconnected_to() {
        let Some(server) = Server::start("restart") else {
            return;
        };
        let t = table(LIMIT_3);
        let effects = server.effects();
        assert_eq!(request(&t, &effects, "x::y").outcome, OutcomeKind::Continue);
        // The server closes the store's idle connection.
        let client = ::redis::Client::open(server.url()).unwrap();
        let mut con = client.get_connection().unwrap();
        let _: () = ::redis::cmd("CLIENT")
            .arg("KILL")
            .arg("TYPE")
            .arg("normal")
            .arg("SKIPME")
            .arg("yes")
            .query(&mut con)
            .unwrap();
        let report = request(&t, &effects, "x::y");
        assert!(report.warnings.is_empty(), "{:?}", report.warnings);
        assert_eq!(report.outcome, OutcomeKind::Continue);
        for _ in 0..1 {
            assert_eq!(request(&t, &effects, "x::y").outcome, OutcomeKind::Continue);
        }
        assert_eq!(request(&t, &effects, "x::y").outcome, OutcomeKind::Abort);
    }

    #[test]
    fn hookc_claude_counts_in_redis() {
        let Some(server) = Server::start("claude") else {
            return;
        };
        let dir = project("claude-redis", BASH_LIMIT);
        let url = server.url();
        let runs: Vec<Run> = (0..7)
            .map(|_| claude_in(&dir, &["--rate-store", &url]))
            .collect();
        let denied: Vec<bool> = runs.iter().map(Run::denied).collect();
        assert_eq!(
            denied,
            [false, false, false, false, false, true, true],
            "{runs:#?}"
        );
        assert!(
            !dir.join(".hookc/state").exists(),
            "nothing in the file store"
        );
    }
}
