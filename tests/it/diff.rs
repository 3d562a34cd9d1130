//! `hookc diff`: every counterexample it prints is answered differently by
//! the two rule sets under `hookc eval`; rewrites that change nothing
//! (renames, reformatting, equivalent conditions, reorderings of rules that
//! never meet) report no difference, on the shipped packs and on generated
//! rule sets; an equivalence it claims holds on sampled events.

#![expect(
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "test helpers outside #[test] functions fail loudly on purpose"
)]

use crate::common::hookc_in;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A fresh directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("diff-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Copies the files of `from` (recursively) into `to`.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Renames every rule of the `.hooks` files in `dir` (and the references
/// of its tests to it): `id` becomes `id-renamed`. The number renamed.
fn rename_rules(dir: &Path) -> usize {
    let files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "hooks"))
        .collect();
    let header = regex::Regex::new(r"(?m)^hook ([A-Za-z0-9_-]+) on ").unwrap();
    let mut ids: Vec<String> = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        ids.extend(header.captures_iter(&text).map(|c| c[1].to_string()));
    }
    for file in &files {
        let mut text = std::fs::read_to_string(file).unwrap();
        for id in &ids {
            text = text
                .replace(&format!("hook {id} on "), &format!("hook {id}-renamed on "))
                .replace(&format!("\"{id}\""), &format!("\"{id}-renamed\""));
        }
        std::fs::write(file, text).unwrap();
    }
    ids.len()
}

/// `hookc diff OLD NEW --format json`, parsed, and its exit code.
fn diff(dir: &Path, old: &Path, new: &Path) -> (Value, Option<i32>) {
    let args = [
        "diff",
        old.to_str().unwrap(),
        new.to_str().unwrap(),
        "--format",
        "json",
    ];
    let run = hookc_in(dir, &args, None);
    let found: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}\n{}", run.stdout, run.stderr));
    (found, run.code)
}

/// What a host sees of `hookc eval RULES --event FILE --no-effects`: the
/// report without the rules that fired, warnings and the rule of each log.
fn answer(dir: &Path, rules: &Path, event: &Path) -> Value {
    let args = [
        "eval",
        rules.to_str().unwrap(),
        "--event",
        event.to_str().unwrap(),
        "--no-effects",
    ];
    let run = hookc_in(dir, &args, None);
    let report: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}\n{}", run.stdout, run.stderr));
    host_view(report)
}

/// A report's JSON without what names rules (the rules that fired, the
/// rule of each log line) and the warnings: what a host acts on.
fn host_view(mut report: Value) -> Value {
    let object = report.as_object_mut().unwrap();
    object.remove("fired");
    object.remove("warnings");
    if let Some(Value::Array(logs)) = object.get_mut("logs") {
        for log in logs {
            if let Some(log) = log.as_object_mut() {
                log.remove("rule");
            }
        }
    }
    report
}

/// Runs every counterexample of `found` through `hookc eval` on both rule
/// sets and checks that the answers differ; the number checked.
fn check_differences(dir: &Path, old: &Path, new: &Path, found: &Value) -> usize {
    let mut checked = 0;
    for point in found["points"].as_array().unwrap() {
        for (i, d) in point["differences"].as_array().unwrap().iter().enumerate() {
            let file = dir.join(format!("event-{checked}-{i}.json"));
            std::fs::write(&file, serde_json::to_string_pretty(&d["event"]).unwrap()).unwrap();
            let (before, after) = (answer(dir, old, &file), answer(dir, new, &file));
            assert_ne!(
                before, after,
                "{}: the two answer alike on {}",
                d["change"], d["event"]
            );
            assert_eq!(before["outcome"], d["old"]["outcome"], "{d}");
            assert_eq!(after["outcome"], d["new"]["outcome"], "{d}");
            checked += 1;
        }
    }
    checked
}

#[test]
fn the_shipped_packs_renamed_are_the_same_policy() {
    for pack in ["rules", "rules/claude-code", "rules/audit-trail"] {
        let dir = scratch(&pack.replace('/', "-"));
        let copy = dir.join("renamed");
        copy_dir(&root().join(pack), &copy);
        let renamed = rename_rules(&copy);
        assert!(renamed > 0, "{pack}");
        let (found, code) = diff(&dir, &root().join(pack), &copy);
        assert_eq!(code, Some(0), "{pack}: {found:#}");
        assert_eq!(found["equivalent"], true, "{pack}");
        assert_eq!(found["sources_differ"], true, "{pack}");
        let mut renames = 0;
        for point in found["points"].as_array().unwrap() {
            assert_eq!(point["status"], "same", "{pack}: {point:#}");
            for change in point["changes"].as_array().unwrap() {
                assert_eq!(change["kind"], "renamed", "{pack}: {change}");
                let (old, new) = (
                    change["other"].as_str().unwrap(),
                    change["rule"].as_str().unwrap(),
                );
                assert_eq!(format!("{old}-renamed"), new);
                renames += 1;
            }
        }
        // A rule on two points is two renames; a disabled one, none.
        assert!(renames > 0, "{pack}: none of {renamed} renamed");
    }
}

#[test]
fn a_pack_against_itself_prints_one_line_and_exits_0() {
    let dir = scratch("itself");
    let pack = root().join("rules/claude-code");
    let run = hookc_in(
        &dir,
        &["diff", pack.to_str().unwrap(), pack.to_str().unwrap()],
        None,
    );
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    assert_eq!(
        run.stdout,
        "3 points: 3 with the same behaviour, 0 different, 0 undecided\n"
    );
}

const OLD: &str = r#"schema orcs

hook no-rm on tool.pre_execute at *::* priority 10 {
    when payload.tool == "exec"
    when payload.args starts_with "rm "
    abort "no rm"
}

hook no-curl-pipe on tool.pre_execute priority 20 {
    when not (payload.args contains "curl" or payload.args contains "wget")
    when payload.args contains "| sh"
    log warn "a pipe to a shell"
}

hook fetch-only-https on tool.pre_execute priority 30 {
    when payload.tool in ["fetch"]
    unless payload.url starts_with "https://"
    abort "plain http"
}

hook tag-reads on tool.post_execute priority 10 {
    when payload.tool == "read"
    log info "read"
}

hook tag-writes on tool.post_execute priority 20 {
    when payload.tool == "write"
    log info "write"
}

hook never on tool.post_execute priority 30 {
    when payload.size > 10
    when payload.size < 5
    abort "impossible"
}
"#;

/// [`OLD`] rewritten without changing what it does: renamed, reformatted,
/// conditions written another way, two rules that never meet swapped, an
/// unreachable rule dropped.
const REWRITTEN: &str = r#"schema orcs
# the same policy, written again
hook deny-rm on tool.pre_execute priority 10 { when payload.tool == "exec" and payload.args matches /^rm / abort "no rm" }

hook no-curl-pipe on tool.pre_execute priority 20 {
    when not (payload.args contains "curl") and not (payload.args contains "wget")
    when payload.args contains "| sh"
    log warn "a pipe to a shell"
}

hook fetch-only-https on tool.pre_execute priority 30 {
    when payload.tool == "fetch"
    when not (payload.url starts_with "https://")
    abort "plain http"
}

hook tag-writes on tool.post_execute priority 10 {
    when payload.tool == "write"
    log info "write"
}

hook tag-reads on tool.post_execute priority 20 {
    when payload.tool == "read"
    log info "read"
}
"#;

#[test]
fn equivalent_rewrites_report_no_difference() {
    let dir = scratch("equivalent");
    let (old, new) = (dir.join("old.hooks"), dir.join("new.hooks"));
    std::fs::write(&old, OLD).unwrap();
    std::fs::write(&new, REWRITTEN).unwrap();
    let (found, code) = diff(&dir, &old, &new);
    assert_eq!(code, Some(0), "{found:#}");
    assert_eq!(found["equivalent"], true);
    let mut kinds: Vec<String> = Vec::new();
    for point in found["points"].as_array().unwrap() {
        assert!(
            point["differences"].as_array().unwrap().is_empty(),
            "{point:#}"
        );
        assert!(
            point["undecided"].as_array().unwrap().is_empty(),
            "{point:#}"
        );
        for change in point["changes"].as_array().unwrap() {
            assert_eq!(change["harmless"], true, "{change}");
            kinds.push(format!(
                "{} {}",
                change["kind"].as_str().unwrap(),
                change["rule"].as_str().unwrap()
            ));
        }
    }
    kinds.sort();
    assert_eq!(
        kinds,
        [
            "changed deny-rm",
            "changed fetch-only-https",
            "changed no-curl-pipe",
            "removed never",
            "swapped tag-writes",
        ]
    );
    // The human output says so, point by point.
    let run = hookc_in(&dir, &["diff", "old.hooks", "new.hooks"], None);
    assert_eq!(run.code, Some(0));
    assert!(
        run.stdout
            .contains("point tool.post_execute: same behaviour\n"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("the sources differ; what they do does not\n"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("  removed  never  (proven to change no answer)\n"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("  changed  deny-rm (was no-rm) (condition)  (proven to change no answer)\n"),
        "{}",
        run.stdout
    );
}

/// [`OLD`] changed in every way that changes answers.
const CHANGED: &str = r#"schema orcs

hook no-rm on tool.pre_execute at builtin::* priority 10 {
    when payload.tool == "exec"
    when payload.args starts_with "rm " and not (payload.args contains "--dry-run")
    abort "no rm"
}

hook no-curl-pipe on tool.pre_execute priority 20 {
    when not (payload.args contains "curl" or payload.args contains "wget")
    when payload.args contains "| sh"
    abort "a pipe to a shell"
}

hook fetch-only-https on tool.pre_execute priority 30 {
    when payload.tool in ["fetch"]
    unless payload.url matches /^https:\/\/[a-z]/
    abort "plain http"
}

hook tag-writes on tool.post_execute priority 5 {
    when payload.tool in ["write", "read"]
    set payload.tag = "write"
}

hook tag-reads on tool.post_execute priority 20 {
    when payload.tool == "read"
    log info "read"
}

hook big on tool.post_execute priority 30 {
    when payload.size >= 6
    abort "too big"
}
"#;

#[test]
fn every_counterexample_is_answered_differently_by_eval() {
    let dir = scratch("changed");
    let (old, new) = (dir.join("old.hooks"), dir.join("new.hooks"));
    std::fs::write(&old, OLD).unwrap();
    std::fs::write(&new, CHANGED).unwrap();
    let (found, code) = diff(&dir, &old, &new);
    assert_eq!(code, Some(1), "{found:#}");
    assert_eq!(found["equivalent"], false);
    let checked = check_differences(&dir, &old, &new, &found);
    let shown: Vec<&str> = found["points"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["differences"].as_array().unwrap())
        .filter_map(|d| d["change"].as_str())
        .collect();
    for change in [
        "`no-rm` changed (target, condition)",
        "`no-curl-pipe` changed (actions)",
        "`fetch-only-https` changed (condition)",
        "`tag-writes` changed (condition, actions)",
        "`big` added",
    ] {
        assert!(shown.contains(&change), "{change} not shown: {shown:#?}");
    }
    assert_eq!(checked, shown.len());
    // The human output prints each event and both answers.
    let run = hookc_in(&dir, &["diff", "old.hooks", "new.hooks"], None);
    assert_eq!(run.code, Some(1));
    assert!(
        run.stdout
            .contains("  `big` added: this event is answered differently\n"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("    new: abort, decision deny, reason \"too big\" (fired: big)\n"),
        "{}",
        run.stdout
    );
}

/// `hookc diff` of one rule whose condition changes from `old` to `new`,
/// checked to show one difference that `hookc eval` confirms.
fn one_rule_changed(name: &str, old: &str, new: &str) -> Value {
    let dir = scratch(name);
    let rules = |when: &str| {
        format!(
            "schema orcs\nhook r on tool.pre_execute {{\n    when {when}\n    abort \"r\"\n}}\n"
        )
    };
    let (old_file, new_file) = (dir.join("old.hooks"), dir.join("new.hooks"));
    std::fs::write(&old_file, rules(old)).unwrap();
    std::fs::write(&new_file, rules(new)).unwrap();
    let (found, code) = diff(&dir, &old_file, &new_file);
    assert_eq!(code, Some(1), "{found:#}");
    assert_eq!(check_differences(&dir, &old_file, &new_file, &found), 1);
    found
}

#[test]
fn a_numeric_bound_moved_by_less_than_one_is_a_difference() {
    let found = one_rule_changed("bounds", "payload.size > 5", "payload.size >= 6");
    let size = &found["points"][0]["differences"][0]["event"]["payload"]["size"];
    let size = size.as_f64().unwrap();
    assert!(size > 5.0 && size < 6.0, "{size}");
}

/// `contains` holds on an array that holds the needle; `matches` needs a
/// string: the two are not the same test.
#[test]
fn contains_and_matches_differ_on_an_array() {
    let found = one_rule_changed(
        "array",
        "payload.args contains \"| sh\"",
        "payload.args matches /\\| sh/",
    );
    assert_eq!(
        found["points"][0]["differences"][0]["event"]["payload"]["args"],
        serde_json::json!(["| sh"])
    );
}

#[test]
fn bad_input_is_an_error() {
    let dir = scratch("errors");
    std::fs::write(dir.join("orcs.hooks"), "schema orcs\n").unwrap();
    std::fs::write(dir.join("claude.hooks"), "schema claude-code\n").unwrap();
    std::fs::write(
        dir.join("broken.hooks"),
        "schema orcs\nhook x on nowhere { abort \"x\" }\n",
    )
    .unwrap();
    let run = hookc_in(&dir, &["diff", "orcs.hooks", "claude.hooks"], None);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("different schemas (`orcs` and `claude-code`)"),
        "{}",
        run.stderr
    );
    let run = hookc_in(&dir, &["diff", "orcs.hooks", "broken.hooks"], None);
    assert_eq!(run.code, Some(3), "{}", run.stderr);
    assert!(run.stderr.contains("broken.hooks:2:"), "{}", run.stderr);
    let run = hookc_in(&dir, &["diff", "orcs.hooks", "missing.hooks"], None);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
}

#[test]
fn a_compiled_table_compares_with_its_sources() {
    let dir = scratch("table");
    std::fs::write(dir.join("old.hooks"), OLD).unwrap();
    let run = hookc_in(&dir, &["compile", "old.hooks", "-o", "old.tbl"], None);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let (found, code) = diff(&dir, &dir.join("old.tbl"), &dir.join("old.hooks"));
    assert_eq!(code, Some(0), "{found:#}");
    assert_eq!(found["equivalent"], true);
}

/// A small deterministic generator (a linear congruential one): the same
/// rule sets on every run.
struct Gen(u64);

impl Gen {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.next(items.len())]
    }
}

const TOOLS: [&str; 4] = ["exec", "read", "write", "fetch"];
const WORDS: [&str; 6] = ["rm", "-rf", "curl", "http", "secret", "tmp"];
const TARGETS: [&str; 3] = ["*::*", "builtin::*", "builtin::llm"];

/// One generated condition line.
fn condition(g: &mut Gen) -> String {
    match g.next(7) {
        0 => format!("payload.tool == \"{}\"", g.pick(&TOOLS)),
        1 => format!(
            "payload.tool in [\"{}\", \"{}\"]",
            g.pick(&TOOLS),
            g.pick(&TOOLS)
        ),
        2 => format!("payload.args contains \"{}\"", g.pick(&WORDS)),
        3 => format!("payload.args starts_with \"{}\"", g.pick(&WORDS)),
        4 => format!(
            "payload.args matches /{}\\s+{}/",
            g.pick(&WORDS),
            g.pick(&WORDS)
        ),
        5 => format!("payload.n > {}", g.next(8)),
        _ => format!("not (payload.args contains \"{}\")", g.pick(&WORDS)),
    }
}

/// One generated rule: `(id, priority, target, conditions, action)`.
type GenRule = (String, usize, String, Vec<String>, String);

fn rule(g: &mut Gen, i: usize) -> GenRule {
    let conditions = (0..1 + g.next(2)).map(|_| condition(g)).collect();
    let action = match g.next(3) {
        0 => format!("abort \"r{i} says no\""),
        1 => format!("log info \"r{i} saw it\""),
        _ => format!("set payload.tag = \"r{i}\""),
    };
    (
        format!("r{i}"),
        10 * (i + 1),
        g.pick(&TARGETS).to_string(),
        conditions,
        action,
    )
}

fn source(rules: &[GenRule]) -> String {
    let mut out = String::from("schema orcs\n");
    for (id, priority, target, conditions, action) in rules {
        out.push_str(&format!(
            "\nhook {id} on tool.pre_execute at {target} priority {priority} {{\n"
        ));
        for c in conditions {
            out.push_str(&format!("    when {c}\n"));
        }
        out.push_str(&format!("    {action}\n}}\n"));
    }
    out
}

/// Events built from the generator's constants, to sample the answers of
/// two rule sets on.
fn sample_events() -> Vec<hookc::HookContext> {
    let mut out = Vec::new();
    let args = [
        "",
        "rm -rf tmp",
        "curl http secret",
        "tmp",
        "rm  curl",
        "secret -rf",
        "http",
    ];
    for component in ["builtin::llm", "builtin::other", "plugin::x"] {
        for tool in ["exec", "read", "write", "fetch", "other"] {
            for a in args {
                for n in [0.0, 3.0, 3.5, 7.0] {
                    let event = serde_json::json!({
                        "hook_point": "tool.pre_execute",
                        "component_id": component,
                        "payload": {"tool": tool, "args": a, "n": n},
                    });
                    out.push(serde_json::from_value(event).unwrap());
                }
            }
        }
    }
    out
}

fn dispatch(table: &hookc::Table, event: &Value) -> Value {
    let mut ctx: hookc::HookContext = serde_json::from_value(event.clone()).unwrap();
    let effects = hookc::Effects::new().recording_only();
    host_view(serde_json::to_value(table.dispatch_context_with(&mut ctx, &effects)).unwrap())
}

#[test]
fn generated_rule_sets_diff_soundly() {
    let events = sample_events();
    let mut verdicts = [0usize; 3];
    for seed in 0..30u64 {
        let mut g = Gen(seed * 7919 + 1);
        let base: Vec<GenRule> = (0..6).map(|i| rule(&mut g, i)).collect();
        // Renamed and declared in reverse: the same policy.
        let mut same: Vec<GenRule> = base
            .iter()
            .map(|(id, p, t, c, a)| (format!("{id}-v2"), *p, t.clone(), c.clone(), a.clone()))
            .collect();
        same.reverse();
        // One change.
        let mut changed = base.clone();
        let at = g.next(changed.len());
        match g.next(5) {
            0 => changed[at].3[0] = condition(&mut g),
            1 => changed[at].4 = "abort \"changed\"".to_string(),
            2 => changed[at].1 = 10 * g.next(8) + 5,
            3 => {
                changed.remove(at);
            }
            _ => changed[at].2 = g.pick(&TARGETS).to_string(),
        }
        let old = hookc::compile_str("old.hooks", &source(&base))
            .unwrap()
            .table;
        let twin = hookc::compile_str("same.hooks", &source(&same))
            .unwrap()
            .table;
        let new = hookc::compile_str("new.hooks", &source(&changed))
            .unwrap()
            .table;
        let effects = || hookc::Effects::new().recording_only();

        let found = hookc::analysis::diff::diff(&old, &twin, &effects);
        assert!(
            found.equivalent,
            "seed {seed}: {found:#?}\n{}",
            source(&same)
        );

        let found = hookc::analysis::diff::diff(&old, &new, &effects);
        let differences: Vec<_> = found.points.iter().flat_map(|p| &p.differences).collect();
        for d in &differences {
            assert_ne!(
                dispatch(&old, &d.event),
                dispatch(&new, &d.event),
                "seed {seed}: {} on {}",
                d.change,
                d.event
            );
        }
        if found.equivalent {
            verdicts[0] += 1;
            for event in &events {
                let event = serde_json::to_value(event).unwrap();
                assert_eq!(
                    dispatch(&old, &event),
                    dispatch(&new, &event),
                    "seed {seed}: claimed equivalent, but {event} differs\n{}\n{}",
                    source(&base),
                    source(&changed)
                );
            }
        } else if differences.is_empty() {
            verdicts[2] += 1;
        } else {
            verdicts[1] += 1;
        }
    }
    // Most changes change answers, and the search finds most of them.
    let [_, different, undecided] = verdicts;
    assert!(different >= 15 && undecided <= 5, "{verdicts:?}");
}
