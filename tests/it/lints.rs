//! The lints, driven by data: one fixture per lint in `tests/fixtures/lints/`
//! (named after the lint's code), each linted on its own and its rendered
//! diagnostics snapshotted. A fixture may name more root files, compiled
//! after it, on a `# with: PATH` line (relative to the fixtures directory).
//!
//! Also here: lint levels from `hookc.toml` and inline comments, and the
//! shape of the SARIF output (what GitHub code scanning requires).

#![expect(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "test helpers fail loudly on purpose"
)]

use hookc::check::lints::{self, Level, LintLevels};
use hookc::diag::{Diagnostics, Severity};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn fixtures() -> PathBuf {
    root().join("tests/fixtures/lints")
}

/// A path relative to the crate root, so diagnostics name it the same on
/// every machine.
fn relative(path: &Path) -> PathBuf {
    path.strip_prefix(root()).unwrap_or(path).to_path_buf()
}

/// The fixture and the files its `# with:` lines name, in order.
fn roots(fixture: &Path) -> Vec<PathBuf> {
    let text = std::fs::read_to_string(fixture).unwrap();
    let mut out = vec![relative(fixture)];
    for line in text.lines() {
        if let Some(with) = line.trim().strip_prefix("# with:") {
            out.push(relative(&fixtures().join(with.trim())));
        }
    }
    out
}

fn lint_with(paths: &[PathBuf], levels: LintLevels) -> Diagnostics {
    // Paths are relative to the crate root, where cargo runs the tests.
    let options = hookc::Options {
        lints: levels,
        ..hookc::Options::default()
    };
    hookc::compile::lint_paths(paths, &options)
}

fn lint(paths: &[PathBuf]) -> Diagnostics {
    lint_with(paths, LintLevels::new())
}

#[test]
fn fixtures_snapshot() {
    insta::glob!("../fixtures/lints", "*.hooks", |path| {
        let code = path.file_stem().unwrap().to_str().unwrap();
        let diags = lint(&roots(path));
        assert!(
            diags.iter().any(|d| d.code == code),
            "fixture `{code}` does not trigger its lint:\n{diags}"
        );
        assert!(
            diags.iter().all(|d| d.code != "io" && d.code != "syntax"),
            "{diags}"
        );
        insta::assert_snapshot!(hookc::diag::render::human(&diags, false));
    });
}

#[test]
fn every_lint_has_a_fixture() {
    for lint in lints::LINTS {
        let path = fixtures().join(format!("{}.hooks", lint.code));
        assert!(path.is_file(), "no fixture for `{}`", lint.code);
    }
}

#[test]
fn default_levels() {
    let level = |code: &str| lints::lint(code).unwrap().default;
    assert_eq!(level("insecure-webhook"), Level::Deny);
    assert_eq!(level("priority-tie"), Level::Note);
    assert_eq!(level("point-cost"), Level::Allow);
    for code in [
        "unreachable-rule",
        "duplicate-condition",
        "contradictory-condition",
        "edit-conflict",
        "unused-definition",
        "unused-import",
        "empty-list",
        "regex-matches-empty",
        "glob-never-matches",
        "inexact-integer",
        "bidi-control",
        "regex-cost",
        "unicode-class-cost",
    ] {
        assert_eq!(level(code), Level::Warn, "{code}");
    }
}

#[test]
fn shipped_rules_are_lint_clean() {
    let diags = lint(&[PathBuf::from("rules")]);
    let found: Vec<_> = diags
        .iter()
        .filter(|d| lints::lint(d.code).is_some() || d.code == "unknown-lint")
        .collect();
    assert!(found.is_empty(), "{diags}");
}

#[test]
fn configured_levels_apply() {
    let fixture = relative(&fixtures().join("empty-list.hooks"));
    let default = lint(std::slice::from_ref(&fixture));
    assert_eq!(default.count(Severity::Warning), 1, "{default}");
    let mut deny = LintLevels::new();
    assert!(deny.set("empty-list", Level::Deny));
    let denied = lint_with(std::slice::from_ref(&fixture), deny);
    assert!(denied.has_errors(), "{denied}");
    assert_eq!(denied.iter().next().unwrap().code, "empty-list");
    let mut allow = LintLevels::new();
    allow.set("empty-list", Level::Allow);
    assert!(lint_with(&[fixture], allow).is_empty());
}

/// A scratch directory for one test.
fn tmp(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("lint-tests")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn inline_comments_override_the_configuration() {
    let dir = tmp("inline");
    let file = dir.join("rules.hooks");
    std::fs::write(
        &file,
        r#"
schema orcs

# Raised for this rule only.
# hookc: deny(edit-conflict)
hook a on tool.pre_execute { set payload.tool = "a" }
hook b on tool.pre_execute { set payload.tool = "b" }

hook c on tool.post_execute { set payload.result = "c" }
hook d on tool.post_execute { set payload.result = "d" } # hookc: allow(edit-conflict)

hook e on child.pre_spawn { set payload.capabilities = 1 }
hook f on child.pre_spawn { set payload.capabilities = 2 }

# hookc: allow(edit-conflit, priority-ties)
hook g on child.post_spawn { continue }
"#,
    )
    .unwrap();
    let mut levels = LintLevels::new();
    levels.set("edit-conflict", Level::Warn);
    let diags = lint_with(&[file], levels);
    let found: Vec<(String, Severity, String)> = diags
        .iter()
        .map(|d| (d.code.to_string(), d.severity, d.message.clone()))
        .collect();
    assert_eq!(
        found,
        [
            (
                "unknown-lint".into(),
                Severity::Warning,
                "unknown lint `edit-conflit`".into()
            ),
            (
                "unknown-lint".into(),
                Severity::Warning,
                "unknown lint `priority-ties`".into()
            ),
            (
                "edit-conflict".into(),
                Severity::Error,
                "rules `a` and `b` both edit `payload.tool` at `tool.pre_execute` with the same priority 100".into()
            ),
            (
                "edit-conflict".into(),
                Severity::Warning,
                "rules `e` and `f` both edit `payload.capabilities` at `child.pre_spawn` with the same priority 100".into()
            ),
        ],
        "{diags}"
    );
    assert_eq!(
        diags.iter().next().unwrap().help.as_deref(),
        Some("did you mean `edit-conflict`?")
    );
}

fn hookc(args: &[&str], dir: &Path) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_hookc"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env_remove("RUST_LOG")
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn hookc_toml_is_found_above_the_first_path() {
    let dir = tmp("config");
    std::fs::create_dir_all(dir.join("rules")).unwrap();
    std::fs::write(
        dir.join("rules/r.hooks"),
        "schema orcs\nlist empty = []\nhook r on tool.pre_execute { when payload.args contains any empty continue }\n",
    )
    .unwrap();
    // Defaults: one warning, exit 0.
    let (code, _, stderr) = hookc(&["lint", "rules"], &dir);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("warning[empty-list]"), "{stderr}");
    // Denied by the project's hookc.toml: an error, exit 1.
    std::fs::write(
        dir.join("hookc.toml"),
        "[lints]\nempty-list = \"deny\"\nunused-definitions = \"allow\"\n",
    )
    .unwrap();
    let (code, _, stderr) = hookc(&["lint", "rules/r.hooks"], &dir);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("error[empty-list]"), "{stderr}");
    assert!(
        stderr.contains("warning[unknown-lint]: unknown lint `unused-definitions`"),
        "{stderr}"
    );
    assert!(stderr.contains("hookc.toml:3:1"), "{stderr}");
    assert!(
        stderr.contains("did you mean `unused-definition`?"),
        "{stderr}"
    );
    // An explicit --config wins.
    std::fs::write(dir.join("quiet.toml"), "[lints]\nempty-list = \"allow\"\n").unwrap();
    let (code, _, stderr) = hookc(&["lint", "--config", "quiet.toml", "rules"], &dir);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(stderr, "");
    // A missing --config file is an I/O error.
    let (code, _, stderr) = hookc(&["lint", "--config", "nope.toml", "rules"], &dir);
    assert_eq!(code, Some(2), "{stderr}");
}

/// The budget of `point-cost` comes from `[cost] timeout-budget-ms`.
#[test]
fn point_cost_budget_is_configured() {
    let dir = tmp("point-cost");
    std::fs::create_dir_all(dir.join("rules")).unwrap();
    std::fs::write(
        dir.join("rules/r.hooks"),
        "schema orcs\nhook a on tool.pre_execute timeout 20000ms {\n    exec \"./a\"\n    call \"b\"\n}\n",
    )
    .unwrap();
    // Off by default, whatever the budget.
    std::fs::write(
        dir.join("hookc.toml"),
        "[cost]\ntimeout-budget-ms = 30000\n",
    )
    .unwrap();
    let (code, _, stderr) = hookc(&["lint", "rules"], &dir);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!stderr.contains("point-cost"), "{stderr}");
    // On: 40 s is within the default budget...
    std::fs::write(dir.join("hookc.toml"), "[lints]\npoint-cost = \"warn\"\n").unwrap();
    let (code, _, stderr) = hookc(&["lint", "rules"], &dir);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!stderr.contains("point-cost"), "{stderr}");
    // ...and over a budget of 30 s.
    std::fs::write(
        dir.join("hookc.toml"),
        "[lints]\npoint-cost = \"warn\"\n\n[cost]\ntimeout-budget-ms = 30000\n",
    )
    .unwrap();
    let (code, _, stderr) = hookc(&["lint", "rules"], &dir);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("warning[point-cost]: one event at `tool.pre_execute` can wait 40000 ms on commands and handlers, over the budget of 30000 ms"),
        "{stderr}"
    );
    assert!(stderr.contains("r.hooks:2:1"), "{stderr}");
    let (code, _, stderr) = hookc(&["lint", "--deny-warnings", "rules"], &dir);
    assert_eq!(code, Some(1), "{stderr}");
}

// ---------------------------------------------------------------- SARIF

/// Checks what GitHub code scanning needs of a SARIF log, and returns its
/// results.
fn check_sarif(log: &Value) -> Vec<Value> {
    assert_eq!(log["version"], "2.1.0");
    assert!(log["$schema"].as_str().unwrap().contains("sarif-2.1.0"));
    let runs = log["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1);
    let driver = &runs[0]["tool"]["driver"];
    assert_eq!(driver["name"], "hookc");
    assert!(driver["informationUri"]
        .as_str()
        .unwrap()
        .starts_with("https://"));
    let rules = driver["rules"].as_array().unwrap();
    let ids: Vec<&str> = rules.iter().map(|r| r["id"].as_str().unwrap()).collect();
    for lint in lints::LINTS {
        assert!(
            ids.contains(&lint.code),
            "{} not in driver.rules",
            lint.code
        );
    }
    for rule in rules {
        assert!(!rule["shortDescription"]["text"]
            .as_str()
            .unwrap()
            .is_empty());
        assert!(!rule["help"]["text"].as_str().unwrap().is_empty());
        assert!(["error", "warning", "note", "none"]
            .contains(&rule["defaultConfiguration"]["level"].as_str().unwrap()));
    }
    let mut seen = std::collections::HashSet::new();
    assert!(ids.iter().all(|id| seen.insert(*id)), "duplicate rule ids");
    let results = runs[0]["results"].as_array().unwrap().clone();
    for r in &results {
        let id = r["ruleId"].as_str().unwrap();
        let index = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(ids[index], id, "ruleIndex points at another rule");
        assert!(["error", "warning", "note"].contains(&r["level"].as_str().unwrap()));
        assert!(!r["message"]["text"].as_str().unwrap().is_empty());
        for loc in r["locations"].as_array().unwrap() {
            let phys = &loc["physicalLocation"];
            let uri = phys["artifactLocation"]["uri"].as_str().unwrap();
            assert!(!uri.starts_with('/') && !uri.contains('\\'), "{uri}");
            let region = &phys["region"];
            for key in ["startLine", "startColumn", "endLine", "endColumn"] {
                assert!(region[key].as_u64().unwrap() >= 1, "{key} in {region}");
            }
            let start = (region["startLine"].as_u64(), region["startColumn"].as_u64());
            let end = (region["endLine"].as_u64(), region["endColumn"].as_u64());
            assert!(start <= end, "{region}");
        }
    }
    results
}

#[test]
fn sarif_has_a_result_per_diagnostic_and_every_rule() {
    let mut all = Diagnostics::new();
    for entry in std::fs::read_dir(fixtures()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "hooks") {
            all.extend(lint(&roots(&path)));
        }
    }
    let log = hookc::diag::sarif::sarif(&all, &lints::sarif_rules(), Some(root()));
    let results = check_sarif(&log);
    assert_eq!(results.len(), all.0.len());
    for (r, d) in results.iter().zip(all.iter()) {
        assert_eq!(r["ruleId"], d.code);
        let (file, line, col) = d.location().unwrap();
        let phys = &r["locations"][0]["physicalLocation"];
        assert_eq!(phys["artifactLocation"]["uri"], file.as_str());
        assert_eq!(phys["region"]["startLine"], line);
        assert_eq!(phys["region"]["startColumn"], col);
    }
    // The lint docs are the help.
    let rules = log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap();
    let unreachable = rules
        .iter()
        .find(|r| r["id"] == "unreachable-rule")
        .unwrap();
    assert!(unreachable["help"]["markdown"]
        .as_str()
        .unwrap()
        .contains("## Why is this bad?"));
}

#[test]
fn cli_writes_sarif() {
    let (code, stdout, stderr) = hookc(
        &[
            "lint",
            "--format",
            "sarif",
            "tests/fixtures/lints/insecure-webhook.hooks",
            "tests/fixtures/cli/errors.hooks",
        ],
        root(),
    );
    assert_eq!(code, Some(1), "{stderr}");
    assert_eq!(stderr, "");
    let log: Value = serde_json::from_str(&stdout).unwrap();
    let results = check_sarif(&log);
    assert!(results
        .iter()
        .any(|r| r["ruleId"] == "insecure-webhook" && r["level"] == "error"));
    // Checker errors are results too, with a rule of their own.
    assert!(results.iter().any(|r| r["ruleId"] == "unknown-point"));
    // Clean rules: a log with no results.
    let (code, stdout, _) = hookc(
        &[
            "lint",
            "--format",
            "sarif",
            "tests/fixtures/cli/clean.hooks",
        ],
        root(),
    );
    assert_eq!(code, Some(0));
    let log: Value = serde_json::from_str(&stdout).unwrap();
    assert!(check_sarif(&log).is_empty(), "{log}");
}

#[test]
fn cli_explains_a_lint() {
    let (code, stdout, _) = hookc(&["lint", "--explain", "edit-conflict"], root());
    assert_eq!(code, Some(0));
    assert!(stdout.starts_with("# edit-conflict"), "{stdout}");
    assert!(stdout.contains("## Why is this bad?"));
    let (code, _, stderr) = hookc(&["lint", "--explain", "edit-conflicts"], root());
    assert_eq!(code, Some(2));
    assert!(stderr.contains("did you mean `edit-conflict`?"), "{stderr}");
}

/// The codes of the lint findings for one in-memory source.
fn lint_codes(text: &str) -> Vec<&'static str> {
    let diags = match hookc::compile_str("t.hooks", text) {
        Ok(c) => c.warnings,
        Err(d) => d,
    };
    diags
        .iter()
        .filter(|d| lints::lint(d.code).is_some())
        .map(|d| d.code)
        .collect()
}

#[test]
fn which_regexes_match_every_string() {
    let flagged = |re: &str| {
        let text = format!(
            "hook r on tool.pre_execute {{\n    when payload.tool matches /{re}/\n    continue\n}}\n"
        );
        lint_codes(&text).contains(&"regex-matches-empty")
    };
    for re in ["a*", "(foo)?", "^", "$", "x|", "^a*", "(?m)^", ".*", "a*$"] {
        assert!(flagged(re), "{re} should be flagged");
    }
    for re in ["a", "^$", "^a*$", r"\b", "a+", "(?m)^$", r"\bx?"] {
        assert!(!flagged(re), "{re} should not be flagged");
    }
}

#[test]
fn contradictions_and_implications() {
    let rule = |cond: &str| {
        lint_codes(&format!(
            "hook r on tool.pre_execute {{\n    when {cond}\n    continue\n}}\n"
        ))
    };
    for cond in [
        r#"payload.tool == "a" and payload.tool == "b""#,
        r#"payload.tool == "a" and not (payload.tool == "a")"#,
        r#"payload.tool in ["a", "b"] and payload.tool in ["c"]"#,
        r#"payload.tool in []"#,
        "payload.capabilities >= 2 and payload.capabilities < 2",
        "payload.capabilities > 5 and payload.capabilities <= 5",
        "payload.capabilities == 3 and payload.capabilities > 3",
        r#"payload.tool == "a" and payload.capabilities > 1 and payload.tool != "a""#,
        r#"payload.tool exists and not payload.tool exists"#,
        r#"payload.tool == "x" and not payload.tool exists"#,
        r#"payload.tool starts_with "ab" and payload.tool starts_with "ac""#,
        r#"not (payload.tool == "a" or payload.capabilities > 1) and payload.tool == "a""#,
        "false",
    ] {
        assert_eq!(rule(cond), ["contradictory-condition"], "{cond}");
    }
    for cond in [
        r#"payload.tool == "a" or payload.tool == "b""#,
        r#"payload.tool in ["a", "b"] and payload.tool in ["b", "c"]"#,
        "payload.capabilities >= 2 and payload.capabilities <= 2",
        r#"payload.tool starts_with "ab" and payload.tool starts_with "abc""#,
        r#"payload.tool == null and payload.tool exists"#,
        r#"payload.tool matches /a/ and payload.tool matches /b/"#,
    ] {
        let found = rule(cond);
        assert!(
            !found.contains(&"contradictory-condition"),
            "{cond}: {found:?}"
        );
    }
    for cond in [
        r#"payload.tool == "a" and payload.tool != "b""#,
        r#"payload.tool == "a" and payload.tool exists"#,
        r#"payload.tool == "abc" and payload.tool starts_with "ab""#,
        r#"payload.tool == "abc" and payload.tool matches /b/"#,
        r#"payload.tool in ["a"] and payload.tool in ["a", "b"]"#,
        "payload.capabilities > 5 and payload.capabilities >= 5",
        "payload.capabilities < 3 and payload.capabilities != 7",
        r#"payload.tool starts_with "abc" and payload.tool starts_with "ab""#,
    ] {
        assert_eq!(rule(cond), ["duplicate-condition"], "{cond}");
    }
}

#[test]
fn unreachable_needs_every_condition_implied() {
    let text = |later: &str| {
        format!(
            "hook first on tool.pre_execute priority 1 {{\n    when payload.tool == \"a\"\n    when payload.capabilities > 3\n    abort \"no\"\n}}\nhook later on tool.pre_execute {{\n    when {later}\n    abort \"no\"\n}}\n"
        )
    };
    for later in [
        r#"payload.tool == "a" and payload.capabilities > 5"#,
        r#"payload.tool in ["a"] and payload.capabilities == 4"#,
        r#"payload.capabilities >= 4 and payload.tool == "a" and payload.args exists"#,
    ] {
        assert_eq!(lint_codes(&text(later)), ["unreachable-rule"], "{later}");
    }
    for later in [
        r#"payload.tool == "a""#,
        r#"payload.tool in ["a", "b"] and payload.capabilities > 5"#,
        r#"payload.tool == "a" and payload.capabilities >= 3"#,
    ] {
        assert!(lint_codes(&text(later)).is_empty(), "{later}");
    }
}

#[test]
fn cloud_metadata_names_are_insecure_webhooks_in_any_spelling() {
    for host in [
        "metadata.aws.internal",
        "METADATA.AWS.INTERNAL",
        "metadata.aws.internal.",
        "Metadata.Aws.Internal.:443",
        "instance-data",
        "instance-data.",
        "instance-data.ec2.internal",
        "metadata.google.internal",
        "Metadata.Google.Internal.",
        "metadata.goog",
        "metadata",
        "metadata.tencentyun.com",
        "api.metadata.cloud.ibm.com",
        "100.100.100.200",
        "192.0.0.192",
        "[fd20:ce::254]",
    ] {
        let text = format!(
            "hook r on tool.post_execute {{\n    webhook \"https://{host}/latest/meta-data/\"\n}}\n"
        );
        assert_eq!(lint_codes(&text), ["insecure-webhook"], "{host}");
    }
    let public =
        "hook r on tool.post_execute {\n    webhook \"https://metadata.aws.example.com/\"\n}\n";
    assert!(lint_codes(public).is_empty());
}

/// Ten thousand rules that each read an undeclared field lint correctly:
/// each field warned once (the one a shared macro reads, once in all), a
/// misspelling with its suggestion, and the one rule of a second file at
/// the same priority noted as tied with the first rule. `benches/compile.rs`
/// (`lint/unknown_fields`) times it: the checker used to look through every
/// earlier finding for each new one, and `priority-tie` compared each rule
/// with every earlier rule of its priority.
#[test]
fn ten_thousand_rules_reading_unknown_fields() {
    let dir = tmp("ten-thousand");
    let mut text = String::from("macro shared = payload.everywhere == \"x\"\n\n");
    for i in 0..10_000 {
        text.push_str(&format!(
            "hook r{i} on tool.pre_execute {{\n    when shared and payload.unknown_{i} == \"x\"\n    abort \"no\"\n}}\n\n"
        ));
    }
    text.push_str(
        "hook typo on tool.pre_execute {\n    when payload.tol == \"exec\"\n    abort \"no\"\n}\n",
    );
    std::fs::write(dir.join("a.hooks"), text).unwrap();
    std::fs::write(
        dir.join("b.hooks"),
        "hook audit on tool.pre_execute {\n    log info \"seen\"\n}\n",
    )
    .unwrap();
    let diags = lint(&[dir.join("a.hooks"), dir.join("b.hooks")]);
    let unknown: Vec<_> = diags.iter().filter(|d| d.code == "unknown-field").collect();
    assert_eq!(unknown.len(), 10_002, "one per field");
    let everywhere = unknown
        .iter()
        .filter(|d| d.message == "unknown field `payload.everywhere`")
        .count();
    assert_eq!(everywhere, 1, "the macro's field is reported once");
    assert!(unknown
        .iter()
        .any(|d| d.message == "unknown field `payload.unknown_9999`"));
    let typo = unknown
        .iter()
        .find(|d| d.message == "unknown field `payload.tol`")
        .unwrap();
    assert_eq!(typo.help.as_deref(), Some("did you mean `payload.tool`?"));
    let ties: Vec<_> = diags.iter().filter(|d| d.code == "priority-tie").collect();
    assert_eq!(ties.len(), 1, "{ties:?}");
    assert!(
        ties[0].message.starts_with("rule `audit` ties with `r0`"),
        "{}",
        ties[0].message
    );
    // Rendered, every warning is there.
    let human = hookc::diag::render::human(&diags, false);
    assert!(
        human.ends_with(&format!(
            "warning: {} warnings emitted\n",
            diags.count(Severity::Warning)
        )),
        "{}",
        &human[human.len() - 200..]
    );
}

/// The lints that compare string tests through their languages never call
/// a rule dead that an event fires: on generated rule sets, every rule
/// `unreachable-rule` or `contradictory-condition` reports has no witness
/// (`hookc witness`'s search, each event checked by dispatch), and most
/// rules they leave alone have one.
#[test]
fn string_lints_are_sound_on_generated_rule_sets() {
    const TESTS: [&str; 12] = [
        "payload.args starts_with \"rm \"",
        "payload.args starts_with \"rm -rf\"",
        "payload.args matches /^rm\\s/",
        "payload.args matches /(^|\\s)rm\\s+-[a-z]*f/",
        "payload.args contains \"rm\"",
        "payload.args glob \"rm *\"",
        "payload.args ends_with \".sh\"",
        "payload.args matches /\\.sh$/",
        "not (payload.args matches /^[a-z ]*$/)",
        "not (payload.args contains \"-\")",
        "payload.args matches /^[0-9]+$/",
        "payload.args glob \"*.sh\"",
    ];
    let mut seed: u64 = 17;
    let mut next = |n: usize| {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((seed >> 33) % n as u64) as usize
    };
    let mut dead = 0;
    for case in 0..12 {
        let mut text = String::from("schema orcs\n");
        for i in 0..6 {
            text.push_str(&format!(
                "\nhook r{i} on tool.pre_execute priority {} {{\n",
                10 * (i + 1)
            ));
            for _ in 0..1 + next(2) {
                text.push_str(&format!("    when {}\n", TESTS[next(TESTS.len())]));
            }
            text.push_str(&format!("    abort \"r{i}\"\n}}\n"));
        }
        let compiled = hookc::compile_str("generated.hooks", &text)
            .unwrap_or_else(|d| panic!("{d:?}\n{text}"));
        let reported: Vec<String> = compiled
            .warnings
            .0
            .iter()
            .filter(|d| matches!(d.code, "unreachable-rule" | "contradictory-condition"))
            .filter_map(|d| {
                let rule = d.message.split("rule `").nth(1)?;
                Some(rule.split('`').next()?.to_string())
            })
            .collect();
        let effects = || hookc::Effects::new().recording_only();
        for w in hookc::analysis::witness::witnesses(&compiled.table, &effects, None) {
            if reported.contains(&w.rule) {
                dead += 1;
                assert_ne!(
                    w.verdict,
                    hookc::analysis::witness::Verdict::Witness,
                    "case {case}: `{}` reported dead, but {:?} fires it\n{text}",
                    w.rule,
                    w.event
                );
            }
        }
    }
    assert!(
        dead >= 5,
        "the generated sets should have dead rules: {dead}"
    );
}

/// `hookc lint` itself reports the string lints on a file: the dead rule
/// and the contradiction found through regex languages, and the two
/// rules of one priority that answer one event differently, with the
/// values both match.
#[test]
fn cli_reports_the_string_lints() {
    let dir = tmp("string-lints");
    std::fs::write(
        dir.join("policy.hooks"),
        r#"schema orcs

hook block-recursive-rm on tool.pre_execute priority 10 {
    when payload.args matches /(^|\s)rm\s+-[a-z]*r/
    abort "no recursive rm"
}

hook block-rm-rf-root on tool.pre_execute priority 20 {
    when payload.args starts_with "rm -rf /"
    abort "no rm -rf /"
}

hook digits-and-letter on request.pre_dispatch priority 10 {
    when payload.id matches /^[0-9]+$/
    when payload.id matches /^[a-z]/
    abort "never"
}

hook deny-rm on tool.pre_execute priority 30 {
    when payload.args starts_with "rm "
    abort "no rm"
}

hook deny-force on tool.pre_execute priority 30 {
    when payload.args matches /\s-[a-z]*f/
    abort "no forced operations"
}
"#,
    )
    .unwrap();
    let (code, stdout, stderr) = hookc(&["lint", "policy.hooks", "--format", "json"], &dir);
    assert_eq!(code, Some(0), "{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    let found: Vec<(String, String)> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                d["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let has = |code: &str, text: &str| found.iter().any(|(c, m)| c == code && m.contains(text));
    assert!(has("unreachable-rule", "`block-rm-rf-root`"), "{found:?}");
    assert!(
        has("contradictory-condition", "`digits-and-letter`"),
        "{found:?}"
    );
    assert!(
        has("conflicting-decisions", "`deny-rm` and `deny-force`"),
        "{found:?}"
    );
    let conflict = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "conflicting-decisions")
        .unwrap();
    assert!(
        conflict["help"]
            .as_str()
            .unwrap()
            .contains("payload.args = \"rm -f\""),
        "{conflict}"
    );
}

/// `unicode-class-cost` builds at most 32 regexes a run (each about a
/// millisecond both ways), the first written: `hookc lint` on a policy of
/// 40 costly regexes reports the first 32, in order, and nothing of the
/// rest; `--explain` says so.
#[test]
fn unicode_class_cost_measures_a_bounded_number_of_regexes() {
    let dir = tmp("unicode-class-cost-bound");
    let text: String = (0..40)
        .map(|i| {
            format!(
                "hook r{i} on tool.pre_execute {{\n    when payload.args matches /k{i:02}:\\s*\\(\\s*\\)\\s*\\{{[^}}]*:\\s*\\|\\s*:/\n    abort \"no\"\n}}\n"
            )
        })
        .collect();
    let file = dir.join("many.hooks");
    std::fs::write(&file, text).unwrap();
    let (code, _, stderr) = hookc(&["lint", file.to_str().unwrap()], root());
    assert_eq!(code, Some(0), "{stderr}");
    let reported: Vec<&str> = stderr
        .lines()
        .filter_map(|l| l.strip_prefix("warning[unicode-class-cost]: regex `/"))
        .map(|l| l.get(..3).unwrap_or(l))
        .collect();
    let first: Vec<String> = (0..32).map(|i| format!("k{i:02}")).collect();
    assert_eq!(reported, first, "{stderr}");
    let (_, stdout, _) = hookc(&["lint", "--explain", "unicode-class-cost"], root());
    assert!(stdout.contains("at most 32 regexes"), "{stdout}");
}

/// `unicode-class-cost` as a user meets it: `hookc lint` on the lint's
/// fixture reports the two regexes with both sizes, exits 0, and 1 under
/// `--deny-warnings`; `--explain` documents it.
#[test]
fn unicode_class_cost_through_the_cli() {
    let fixture = "tests/fixtures/lints/unicode-class-cost.hooks";
    let (code, _, stderr) = hookc(&["lint", fixture], root());
    assert_eq!(code, Some(0), "{stderr}");
    let findings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("warning[unicode-class-cost]"))
        .collect();
    assert_eq!(findings.len(), 2, "{stderr}");
    assert!(
        findings[0].contains("/\\w+@\\w+\\.com/")
            && findings[0].contains("345,548-byte")
            && findings[0].contains("1,892 bytes with ASCII"),
        "{stderr}"
    );
    assert!(findings[1].contains("(`fork_bomb`)"), "{stderr}");
    let (code, _, stderr) = hookc(&["lint", "--deny-warnings", fixture], root());
    assert_eq!(code, Some(1), "{stderr}");
    let (code, stdout, _) = hookc(&["lint", "--explain", "unicode-class-cost"], root());
    assert_eq!(code, Some(0));
    assert!(stdout.starts_with("# unicode-class-cost"), "{stdout}");
}
