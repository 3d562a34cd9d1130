//! ORCS `[[hooks]]` configuration layers loaded into a live registry: a
//! `script` entry runs as a command, a `handler` entry calls a native
//! handler, layers merge by id, and a disabled entry does not run.

#![cfg(unix)]
#![expect(clippy::unwrap_used, reason = "tests fail loudly on bad fixtures")]

use hookc::{HookAction, HookContext, OutcomeKind, Registry, Target};
use serde_json::json;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

fn tmp_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("orcs-config")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn script(dir: &Path, name: &str, body: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path.display().to_string()
}

#[test]
fn orcs_layers_become_a_registry_with_scripts_and_handlers() {
    let dir = tmp_dir("layers");
    let deny = script(
        &dir,
        "deny-rm.sh",
        // The event arrives on stdin; exit 2 blocks with stderr as reason.
        r#"if grep -q '"rm -rf' ; then echo "no rm -rf in $HOOKC_HOOK_POINT ($HOOKC_RULE_ID)" >&2; exit 2; fi"#,
    );
    let base = dir.join("orcs.toml");
    std::fs::write(
        &base,
        format!(
            r#"
[model]
name = "ignored"

[[hooks]]
id = "deny-rm"
fql = "builtin::*"
point = "tool.pre_execute"
script = "{deny}"
priority = 10

[[hooks]]
id = "tag"
fql = "*::*"
point = "tool.pre_execute"
handler = "tagger"
priority = 20

[[hooks]]
id = "off"
fql = "*::*"
point = "tool.pre_execute"
handler = "never"
enabled = false
"#
        ),
    )
    .unwrap();
    let project = dir.join("project.toml");
    // The project layer replaces `tag` (now for plugins only).
    std::fs::write(
        &project,
        r#"
[[hooks]]
id = "tag"
fql = "plugin::*"
point = "tool.pre_execute"
handler = "tagger"
"#,
    )
    .unwrap();

    let compiled =
        hookc::systems::orcs::import::compile(&[&base, &project], &hookc::Options::default())
            .unwrap_or_else(|d| panic!("{d}"));
    let registry = Registry::new(compiled.table);
    registry.register_handler("tagger", |c: &mut HookContext| {
        c.metadata.insert("tagged".into(), json!(true));
        HookAction::Continue
    });
    registry.register_handler("never", |_: &mut HookContext| HookAction::Abort {
        reason: "a disabled entry ran".into(),
    });
    let mut scratch = registry.scratch();

    let mut c = HookContext::new(
        "tool.pre_execute",
        "builtin::shell",
        json!({"command": "rm -rf /"}),
    );
    let v = registry.dispatch(
        &mut scratch,
        "tool.pre_execute",
        &Target::new("builtin::shell"),
        &mut c,
    );
    assert_eq!(v.outcome, OutcomeKind::Abort, "{v:?}");
    assert_eq!(
        v.reason.as_deref(),
        Some("no rm -rf in tool.pre_execute (deny-rm)")
    );

    let mut c = HookContext::new("tool.pre_execute", "plugin::x", json!({"command": "ls"}));
    let v = registry.dispatch(
        &mut scratch,
        "tool.pre_execute",
        &Target::new("plugin::x"),
        &mut c,
    );
    assert_eq!(v.outcome, OutcomeKind::Continue, "{v:?}");
    assert_eq!(v.fired, ["tag"]);
    assert_eq!(c.metadata["tagged"], true);

    // `tag` now targets plugins only: the base layer's `*::*` is gone.
    let mut c = HookContext::new(
        "tool.pre_execute",
        "builtin::shell",
        json!({"command": "ls"}),
    );
    let v = registry.dispatch(
        &mut scratch,
        "tool.pre_execute",
        &Target::new("builtin::shell"),
        &mut c,
    );
    assert_eq!(v.fired, ["deny-rm"]);
    assert!(!c.metadata.contains_key("tagged"));
}

#[test]
fn a_bad_layer_is_an_error_naming_the_file() {
    let dir = tmp_dir("bad");
    let path = dir.join("orcs.toml");
    std::fs::write(&path, "[[hooks]]\nid = \"x\"\npoint = 3\n").unwrap();
    let err =
        hookc::systems::orcs::import::compile(&[&path], &hookc::Options::default()).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("is not a valid ORCS configuration"), "{text}");
    let missing = dir.join("missing.toml");
    let err =
        hookc::systems::orcs::import::compile(&[&missing], &hookc::Options::default()).unwrap_err();
    assert!(err.to_string().contains("cannot read"), "{err}");
}

#[test]
fn an_unknown_point_points_into_the_generated_rules() {
    let dir = tmp_dir("point");
    let path = dir.join("orcs.toml");
    std::fs::write(
        &path,
        "[[hooks]]\nid = \"x\"\nfql = \"*::*\"\npoint = \"tool.pre_exec\"\nhandler = \"h\"\n",
    )
    .unwrap();
    let err =
        hookc::systems::orcs::import::compile(&[&path], &hookc::Options::default()).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("tool.pre_exec"), "{text}");
    assert!(text.contains("orcs.toml (as .hooks)"), "{text}");
}
