//! Composing packs without editing them: `list NAME += […]` and
//! `override ID OPTIONS`, through the CLI on real files.

#![expect(clippy::unwrap_used, reason = "test setup fails the test")]

use crate::common::hookc_in;
use std::path::{Path, PathBuf};

const PACK: &str = r#"list blocked_tools = ["rm", "mkfs"]

hook block-tools on tool.pre_execute priority 10 {
    when payload.tool in blocked_tools
    abort "blocked {payload.tool}"
}

hook log-all on tool.pre_execute priority 50 {
    log info "tool {payload.tool}"
}
"#;

/// A pack in `pack/` and `local/site.hooks` with `site`.
fn project(name: &str, site: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("packs-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("pack")).unwrap();
    std::fs::create_dir_all(dir.join("local")).unwrap();
    std::fs::write(dir.join("pack/guards.hooks"), PACK).unwrap();
    std::fs::write(dir.join("local/site.hooks"), site).unwrap();
    dir
}

fn event(tool: &str) -> String {
    format!(
        r#"{{"hook_point": "tool.pre_execute", "component_id": "builtin::exec", "payload": {{"tool": "{tool}"}}}}"#
    )
}

/// `fired` of `hookc eval` on the pack and the local file.
fn fired(dir: &Path, tool: &str) -> Vec<String> {
    let run = hookc_in(
        dir,
        &["eval", "pack/", "local/", "--event", "-"],
        Some(&event(tool)),
    );
    assert!(run.code == Some(0) || run.code == Some(1), "{run:?}");
    let out: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    out.get("fired")
        .and_then(serde_json::Value::as_array)
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_local_file_extends_a_pack_list_and_overrides_its_rules() {
    let dir = project(
        "extend",
        "import \"../pack/guards.hooks\"\n\nlist blocked_tools += [\"shred\"]\n\noverride log-all disabled\noverride block-tools priority 60\n",
    );
    let lint = hookc_in(&dir, &["lint", "--deny-warnings", "pack/", "local/"], None);
    assert_eq!(lint.code, Some(0), "{lint:?}");
    assert_eq!(fired(&dir, "shred"), ["block-tools"]);
    assert_eq!(fired(&dir, "rm"), ["block-tools"]);
    assert!(fired(&dir, "ls").is_empty());
    // Without the local file, the pack is as it was written.
    let run = hookc_in(
        &dir,
        &["eval", "pack/", "--event", "-"],
        Some(&event("shred")),
    );
    assert!(
        run.stdout.contains("\"fired\": [\n    \"log-all\"\n  ]"),
        "{}",
        run.stdout
    );
    let fmt = hookc_in(&dir, &["fmt", "--check", "local/"], None);
    assert_eq!(fmt.code, Some(0), "{fmt:?}");
}

#[test]
fn overriding_a_priority_reorders_the_chain() {
    let dir = project("order", "override log-all priority 1\n");
    let run = hookc_in(
        &dir,
        &["eval", "pack/", "local/", "--event", "-"],
        Some(&event("rm")),
    );
    let out: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        out.get("fired"),
        Some(&serde_json::json!(["log-all", "block-tools"]))
    );
}

#[test]
fn overrides_and_extensions_of_what_does_not_exist_are_errors() {
    let dir = project(
        "bad",
        "import \"../pack/guards.hooks\"\nlist blocked_tool += [\"x\"]\nmacro m = payload.x == 1\nlist m += [1]\noverride blok-tools priority 1\noverride log-all disabled\noverride log-all disabled\n",
    );
    let run = hookc_in(&dir, &["lint", "pack/", "local/"], None);
    assert_eq!(run.code, Some(1), "{run:?}");
    for want in [
        "error[unknown-name]: no list `blocked_tool` to extend",
        "help: did you mean `blocked_tools`?",
        "error[wrong-kind]: `m` is a macro, not a list",
        "error[unknown-rule]: no rule `blok-tools` to override",
        "help: did you mean `block-tools`?",
        "error[conflicting-override]: `disabled` of rule `log-all` is overridden twice",
        "site.hooks:7:18",
    ] {
        assert!(
            run.stderr.contains(want),
            "missing {want:?} in:\n{}",
            run.stderr
        );
    }
}

#[test]
fn an_override_in_a_file_that_is_only_imported_is_not_applied_and_says_so() {
    let dir = project("imported", "");
    std::fs::write(dir.join("pack/extra.hooks"), "override log-all disabled\n").unwrap();
    std::fs::write(
        dir.join("local/site.hooks"),
        "import \"../pack/extra.hooks\"\nimport \"../pack/guards.hooks\"\nlist blocked_tools += [\"shred\"]\n",
    )
    .unwrap();
    let run = hookc_in(&dir, &["lint", "pack/guards.hooks", "local/"], None);
    assert!(
        run.stderr.contains(
            "warning[imported-rules]: the override of `log-all` in imported file `local/../pack/extra.hooks` is not applied"
        ),
        "{run:?}"
    );
}
