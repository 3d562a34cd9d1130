//! The names rules bind and the functions they call: quantifiers (`any c
//! in LIST: e`, `all …`) and their variables, captures (`(?P<name>…)` of
//! a `when` line's regex), `let` lines, and the built-in functions (the
//! shell view through `shell(…)`); compiled, round-tripped through bytes
//! and dispatched.

#![expect(
    clippy::panic,
    clippy::expect_used,
    reason = "test helpers fail the test on bad fixtures"
)]

use hookc::{HookContext, Table, Target};
use serde_json::{json, Value};

fn table(rules: &str) -> Table {
    let compiled = hookc::compile_str("q.hooks", rules)
        .unwrap_or_else(|d| panic!("rules do not compile:\n{d}"));
    Table::from_bytes(&compiled.table.to_bytes()).expect("table round-trips")
}

/// The rules that fired on a `tool.pre_execute` event with `payload`.
fn fired(table: &Table, payload: Value) -> Vec<String> {
    let mut ctx = HookContext::new("tool.pre_execute", "builtin::llm", payload);
    let mut scratch = table.scratch();
    let outcome = table.dispatch(
        &mut scratch,
        "tool.pre_execute",
        &Target::new("builtin::llm"),
        &mut ctx,
    );
    outcome.report(&ctx).fired
}

/// `(fired, reason)` of a `tool.pre_execute` dispatch with `payload`.
fn run(table: &Table, payload: Value) -> (Vec<String>, Option<String>) {
    let mut ctx = HookContext::new("tool.pre_execute", "builtin::llm", payload);
    let mut scratch = table.scratch();
    let outcome = table.dispatch(
        &mut scratch,
        "tool.pre_execute",
        &Target::new("builtin::llm"),
        &mut ctx,
    );
    let report = outcome.report(&ctx);
    (report.fired, report.reason)
}

fn fires(rules: &str, payload: Value) -> bool {
    !fired(&table(rules), payload).is_empty()
}

#[test]
fn any_holds_for_some_element_and_never_for_an_empty_list() {
    let rules =
        r#"hook r on tool.pre_execute { when any f in payload.files: f ends_with ".env" deny }"#;
    assert!(fires(rules, json!({"files": ["a.rs", "prod.env"]})));
    assert!(!fires(rules, json!({"files": ["a.rs", "b.rs"]})));
    assert!(!fires(rules, json!({"files": []})));
    // Not a list: no elements.
    assert!(!fires(rules, json!({"files": "prod.env"})));
    assert!(!fires(rules, json!({})));
}

#[test]
fn all_holds_for_every_element_and_for_an_empty_list() {
    let rules = r#"hook r on tool.pre_execute { when all n in payload.nums: n < 10 deny }"#;
    assert!(fires(rules, json!({"nums": [1, 2, 9]})));
    assert!(!fires(rules, json!({"nums": [1, 20]})));
    assert!(fires(rules, json!({"nums": []})));
}

#[test]
fn the_condition_extends_to_the_right_and_parentheses_end_it() {
    // `any x in L: a or b` is `any x in L: (a or b)`.
    let greedy =
        r#"hook r on tool.pre_execute { when any x in payload.xs: x == 1 or payload.flag deny }"#;
    assert!(fires(greedy, json!({"xs": [5], "flag": true})));
    assert!(!fires(greedy, json!({"xs": [], "flag": true})));
    let closed =
        r#"hook r on tool.pre_execute { when (any x in payload.xs: x == 1) or payload.flag deny }"#;
    assert!(fires(closed, json!({"xs": [], "flag": true})));
}

#[test]
fn nested_quantifiers_see_every_variable_around_them() {
    let rules = r#"hook r on tool.pre_execute {
        when any g in payload.groups: any m in g.members: m == g.owner
        deny
    }"#;
    let t = table(rules);
    assert_eq!(
        fired(
            &t,
            json!({"groups": [{"owner": "a", "members": ["b"]}, {"owner": "c", "members": ["d", "c"]}]})
        ),
        ["r"]
    );
    assert!(fired(
        &t,
        json!({"groups": [{"owner": "a", "members": ["b", "c"]}]})
    )
    .is_empty());
}

#[test]
fn functions_compute_strings_and_lengths() {
    for (cond, payload, expected) in [
        (r#"lower(payload.s) == "abc""#, json!({"s": "AbC"}), true),
        (r#"upper(payload.s) == "ABC""#, json!({"s": "abc"}), true),
        (r#"trim(payload.s) == "a b""#, json!({"s": "  a b\n"}), true),
        (
            r#"basename(payload.s) == "a.rs""#,
            json!({"s": "/p/src/../a.rs"}),
            true,
        ),
        (
            r#"dirname(payload.s) == "/p/src""#,
            json!({"s": "/p/src/a.rs"}),
            true,
        ),
        (
            r#"normalize(payload.s) == "/etc/passwd""#,
            json!({"s": "/p/../../etc//passwd"}),
            true,
        ),
        (r#"len(payload.s) == 3"#, json!({"s": "héé"}), true),
        (r#"len(payload.s) == 2"#, json!({"s": [1, 2]}), true),
        (r#"len(payload.s) == 1"#, json!({"s": {"k": 1}}), true),
        (
            r#"stem(payload.s) == "b.tar""#,
            json!({"s": "/a/b.tar.gz"}),
            true,
        ),
        (
            r#"stem(payload.s) == ".env""#,
            json!({"s": "C:\\p\\.env"}),
            true,
        ),
        (
            r#"extension(payload.s) == "gz""#,
            json!({"s": "/a/b.tar.gz"}),
            true,
        ),
        (
            r#"extension(payload.s) == """#,
            json!({"s": "/a/Makefile"}),
            true,
        ),
        (
            r#"replace(payload.s, "--force", "") == "git push  origin""#,
            json!({"s": "git push --force origin"}),
            true,
        ),
        (
            r#"replace(payload.s, "", "x") == "ab""#,
            json!({"s": "ab"}),
            true,
        ),
        (
            r#"replace(payload.s, "a", "b") == null"#,
            json!({"s": 1}),
            true,
        ),
        (
            r#"join(payload.d, payload.s) == "/p/.hookc/rules.tbl""#,
            json!({"d": "/p/.hookc", "s": "rules.tbl"}),
            true,
        ),
        (
            r#"join(payload.d, payload.s) == "/p/.claude/settings.json""#,
            json!({"d": "/p/src", "s": "../.claude/./settings.json"}),
            true,
        ),
        (
            r#"join(payload.d, payload.s) == "/etc/passwd""#,
            json!({"d": "/p", "s": "/etc/passwd"}),
            true,
        ),
        (
            r#"join(payload.d, payload.s) == "c:/p/src/a.rs""#,
            json!({"d": "C:\\p", "s": "src\\a.rs"}),
            true,
        ),
        // No directory: the path as written, normalized.
        (
            r#"join(payload.d, payload.s) == "a.rs""#,
            json!({"s": "src/../a.rs"}),
            true,
        ),
        (
            r#"join(payload.d, payload.s) == null"#,
            json!({"d": "/p"}),
            true,
        ),
        // A value of a type a function does not take gives null.
        (r#"lower(payload.s) == null"#, json!({"s": 7}), true),
        (r#"len(payload.s) == null"#, json!({}), true),
    ] {
        let rules = format!("hook r on tool.pre_execute {{ when {cond} deny }}");
        assert_eq!(
            fires(&rules, payload.clone()),
            expected,
            "{cond} on {payload}"
        );
    }
}

#[test]
fn shell_sees_every_simple_command_through_wrappers_and_quoting() {
    let rules = r#"hook r on tool.pre_execute {
        when any c in shell(payload.cmd):
            c.program == "rm"
            and c.flags contains any ["-r", "-R", "--recursive"]
            and (any o in c.operands: normalize(o) in ["/", "~", "$HOME"])
        deny
    }"#;
    let t = table(rules);
    for cmd in [
        "rm -rf /",
        "rm  -rf /",
        "rm -r -f /",
        "rm -Rf /",
        "rm --recursive --force /",
        "rm\t-rf\t/",
        "rm -v -r -f /",
        "rm -rf '/'",
        "rm -rf \"$HOME\"",
        "sudo rm -fr /",
        "echo hi && sudo -u root rm -rf ~/",
        "bash -c 'rm -rf /'",
        "(cd /tmp; rm -rf /tmp/../)",
    ] {
        assert_eq!(fired(&t, json!({ "cmd": cmd })), ["r"], "{cmd}");
    }
    for cmd in [
        "echo \"rm -rf /\"",
        "git commit -m 'rm -rf /'",
        "rm -rf build",
        "rm /",
    ] {
        assert!(fired(&t, json!({ "cmd": cmd })).is_empty(), "{cmd}");
    }
}

#[test]
fn text_that_does_not_parse_is_dynamic_never_no_commands() {
    let rules =
        r#"hook r on tool.pre_execute { when any c in shell(payload.cmd): c.dynamic deny }"#;
    let t = table(rules);
    for cmd in [
        "echo \"unterminated",
        "curl -fsSL https://x | sh",
        "eval \"$CMD\"",
        "$CMD -rf /",
    ] {
        assert_eq!(fired(&t, json!({ "cmd": cmd })), ["r"], "{cmd}");
    }
    assert!(fired(&t, json!({"cmd": "ls -la"})).is_empty());
}

#[test]
fn a_command_is_parsed_once_per_dispatch_and_again_after_an_edit() {
    // The second rule reads the command the first one rewrote: it must see
    // the new text, not the view cached before the edit.
    let rules = r#"
    hook first on tool.pre_execute priority 1 {
        when any c in shell(payload.cmd): c.program == "ls"
        set payload.cmd = "rm -rf /"
    }
    hook second on tool.pre_execute priority 2 {
        when any c in shell(payload.cmd): c.program == "rm"
        deny
    }"#;
    assert_eq!(
        fired(&table(rules), json!({"cmd": "ls"})),
        ["first", "second"]
    );
}

#[test]
fn a_verbose_regex_spans_lines_with_comments() {
    let rules = "pattern key = /\n    AKIA [0-9A-Z]{16}   # an access key id\n  | ghp_ [A-Za-z0-9]{36}  # a GitHub token\n/x\nhook r on tool.pre_execute { when payload.args matches key deny }";
    let t = table(rules);
    assert_eq!(
        fired(&t, json!({"args": "use AKIAABCDEFGHIJKLMNOP"})),
        ["r"]
    );
    assert!(fired(&t, json!({"args": "AKIA ABCDEFGHIJKLMNOP"})).is_empty());
    // Without `x`, a regex still ends on its line.
    let d = hookc::compile_str("q.hooks", "pattern p = /a\nb/\n")
        .expect_err("an unterminated regex is an error");
    assert!(d.to_string().contains("unterminated regex"), "{d}");
}

/// `env(…)` and `relpath(…)` read what the host gives: a library host
/// nothing by default, `hookc claude` its environment and project.
#[test]
fn env_and_relpath_read_the_host() {
    let rules = r#"schema claude-code
hook scope on PreToolUse at claude-code::Write {
    unless relpath(payload.tool_input.file_path) glob "src/**"
    deny "{payload.tool_input.file_path} is outside src/ of the project"
}
hook ci-only on PreToolUse at claude-code::Bash {
    when env("HOOKC_TEST_CI") == "1"
    when any c in shell(payload.tool_input.command): c.program == "git"
    deny "no git in CI"
}
"#;
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("host-facts");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("proj/.hookc")).expect("dirs");
    std::fs::write(dir.join("proj/.hookc/rules.hooks"), rules).expect("rules");
    let project = dir.join("proj");
    let claude_with = |event: &str, ci: &str, extra: &[(&str, &std::ffi::OsStr)]| {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_hookc"))
            .arg("claude")
            .env("CLAUDE_PROJECT_DIR", &project)
            .env("HOOKC_TEST_CI", ci)
            .envs(extra.iter().copied())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("hookc runs");
        use std::io::Write as _;
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(event.as_bytes())
            .expect("event written");
        let out = child.wait_with_output().expect("hookc ends");
        String::from_utf8(out.stdout).expect("UTF-8")
    };
    let claude = |event: &str, ci: &str| claude_with(event, ci, &[]);
    let write = |path: &str| {
        json!({"hook_event_name": "PreToolUse", "tool_name": "Write", "tool_input": {"file_path": path}})
            .to_string()
    };
    let p = project.to_str().expect("UTF-8 path");
    assert_eq!(claude(&write(&format!("{p}/src/a.rs")), "0"), "");
    assert!(claude(&write(&format!("{p}/src/../a.rs")), "0")
        .contains("\"permissionDecision\":\"deny\""));
    assert!(claude(&write("/etc/passwd"), "0").contains("outside src/ of the project"));
    let git = json!({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "git status"}}).to_string();
    assert!(claude(&git, "1").contains("no git in CI"));
    assert_eq!(claude(&git, "0"), "");
    // A variable that is not UTF-8 (any process may inherit one) is left
    // out, and the others are still read: it once made `hookc claude`
    // panic, and a panic answers nothing, so the rules were off.
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let not_utf8 = std::ffi::OsStr::from_bytes(b"\xff\xfe");
        let extra = [("HOOKC_TEST_NOT_UTF8", not_utf8)];
        assert!(claude_with(&git, "1", &extra).contains("no git in CI"));
        assert!(claude_with(&write("/etc/passwd"), "0", &extra).contains("outside src/"));
    }
    // A library host that says nothing: `env` and `relpath` are null.
    let t = table("hook r on tool.pre_execute { when env(\"HOME\") == null and relpath(\"/a\") == null deny }");
    assert_eq!(fired(&t, json!({})), ["r"]);
}

#[test]
fn a_capture_is_used_in_later_conditions_and_in_messages() {
    let t = table(
        r#"hook r on tool.pre_execute {
            when payload.args matches /open (?P<file>\S+)/
            when basename(file) ends_with ".env"
            abort "refusing to open {file}"
        }"#,
    );
    let (fired, reason) = run(&t, json!({"args": "open /proj/prod.env now"}));
    assert_eq!(fired, ["r"]);
    assert_eq!(reason.as_deref(), Some("refusing to open /proj/prod.env"));
    assert!(run(&t, json!({"args": "open /proj/a.rs"})).0.is_empty());
    assert!(run(&t, json!({"args": "close x"})).0.is_empty());
}

#[test]
fn only_a_when_line_s_top_level_matches_bind() {
    // Inside `or` the group may not have matched: it binds nothing, and
    // the name is unknown.
    let err = hookc::compile_str(
        "c.hooks",
        r#"hook r on tool.pre_execute {
            when payload.args matches /(?P<word>\w+)/ or payload.x == 1
            abort "{word}"
        }"#,
    )
    .expect_err("word is not bound");
    assert!(
        err.to_string().contains("unknown context field `word`"),
        "{err}"
    );
    // A capture is not a rate key.
    let err = hookc::compile_str(
        "c.hooks",
        r#"hook r on tool.pre_execute {
            when payload.args matches /(?P<word>\w+)/
            when rate("{word}") > 3 per 1s
            abort
        }"#,
    )
    .expect_err("a capture is not a rate key");
    assert!(
        err.to_string()
            .contains("a rate key cannot use a capture or a `let` name"),
        "{err}"
    );
    // A group may not hide a name.
    let err = hookc::compile_str(
        "c.hooks",
        "list word = [\"x\"]\nhook r on tool.pre_execute { when payload.args matches /(?P<word>\\w+)/ when payload.args in word abort }",
    )
    .expect_err("the group hides the list");
    assert!(
        err.to_string()
            .contains("the regex group `word` already names something else"),
        "{err}"
    );
}

/// The groups a `when` line binds are those of the regexes its condition
/// tests at its top level, followed into a macro's body and into the value
/// of a `let` name the line tests; a pattern named in a macro binds too.
#[test]
fn groups_bind_through_macros_and_let_names() {
    let t = table(
        r#"pattern opened = /open (?P<file>\S+)/
        macro opens = payload.args matches opened and payload.n == 1
        hook r on tool.pre_execute {
            when opens
            abort "refusing to open {file}"
        }"#,
    );
    let (fired, reason) = run(&t, json!({"args": "open /p/prod.env", "n": 1}));
    assert_eq!(fired, ["r"]);
    assert_eq!(reason.as_deref(), Some("refusing to open /p/prod.env"));
    let t = table(
        r#"hook r on tool.pre_execute {
            let hit = payload.args matches /open (?P<file>\S+)/
            when hit
            abort "refusing to open {file}"
        }"#,
    );
    let (fired, reason) = run(&t, json!({"args": "open /p/a.rs"}));
    assert_eq!(fired, ["r"]);
    assert_eq!(reason.as_deref(), Some("refusing to open /p/a.rs"));
    // A macro's group hides a name like a group written in place.
    let err = hookc::compile_str(
        "c.hooks",
        "macro m = payload.args matches /(?P<word>\\w+)/\nlist word = [\"x\"]\nhook r on tool.pre_execute { when m abort }",
    )
    .expect_err("the macro's group hides the list");
    assert!(
        err.to_string()
            .contains("the regex group `word` already names something else"),
        "{err}"
    );
}

#[test]
fn a_let_names_a_value_for_later_lines_and_messages() {
    let t = table(
        r#"hook r on tool.pre_execute {
            when payload.args matches /open (?P<file>\S+)/
            let name = lower(basename(file))
            let size = len(payload.args)
            when name ends_with ".env" and size < 100
            abort "refusing {name} ({size} bytes of arguments)"
        }"#,
    );
    let (fired, reason) = run(&t, json!({"args": "open /p/PROD.ENV"}));
    assert_eq!(fired, ["r"]);
    assert_eq!(
        reason.as_deref(),
        Some("refusing prod.env (16 bytes of arguments)")
    );
    assert!(run(&t, json!({"args": "open /p/a.rs"})).0.is_empty());
    // A `let` may not hide a name, and is known only after its line.
    for (rules, want) in [
        (
            "list xs = [1]\nhook r on tool.pre_execute { let xs = 1 when payload.n in xs abort }",
            "`xs` already names something else",
        ),
        (
            "hook r on tool.pre_execute { when n == 1 let n = payload.n abort }",
            "unknown name `n`",
        ),
        (
            "hook r on tool.pre_execute { let shell = 1 abort }",
            "`shell` already names something else",
        ),
    ] {
        let err = hookc::compile_str("q.hooks", rules).expect_err(rules);
        assert!(err.to_string().contains(want), "{rules}: {err}");
    }
}

/// `replace` takes three strings, `join` two; every other function one.
#[test]
fn a_function_takes_its_number_of_arguments() {
    for (cond, message) in [
        (
            r#"replace(payload.s, "a") == "b""#,
            "`replace` takes three arguments, not 2",
        ),
        (
            r#"join(payload.s) == "b""#,
            "`join` takes two arguments, not 1",
        ),
        (
            r#"join(payload.s, 1) == "b""#,
            "`join` cannot apply to an int",
        ),
        (
            r#"stem(payload.s, "a") == "b""#,
            "`stem` takes one argument, not 2",
        ),
        (
            r#"replace(payload.s, 1, "b") == "b""#,
            "`replace` cannot apply to an int",
        ),
    ] {
        let text = format!("hook r on tool.pre_execute {{ when {cond} deny }}");
        let Err(d) = hookc::compile_str("t.hooks", &text) else {
            panic!("{cond} compiled")
        };
        let rendered = hookc::diag::render::human(&d, false);
        assert!(rendered.contains(message), "{cond}:\n{rendered}");
    }
}

/// The word sets of [`word_tests_agree_with_the_element_by_element_form`]:
/// one-letter flags, long flags, both, a flag outside the 62 bits, a set
/// large enough to be hashed, operands.
const WORD_SETS: &[&[&str]] = &[
    &["-r"],
    &["--force"],
    &["-r", "-R", "--recursive"],
    &["-@", "-f"],
    &[
        "push", "reset", "clean", "-f", "--force", "-d", "--delete", "checkout", "rm", "/", "-9",
    ],
    &["/", "~", "$HOME"],
];

const WORD_LISTS: &[&str] = &["args", "flags", "operands", "assignments", "wrappers"];

/// Rules `s{i}` (a form the compiler turns into a word-set test: `contains`,
/// `in`, `contains any`) and `g{i}` (the same test written element by
/// element, which it leaves alone), for every list and set.
fn word_test_rules() -> String {
    let mut rules = String::new();
    let mut i = 0;
    for list in WORD_LISTS {
        for set in WORD_SETS {
            let quoted: Vec<String> = set.iter().map(|s| format!("{s:?}")).collect();
            let mut forms = vec![format!("c.{list} contains any [{}]", quoted.join(", "))];
            if let [one] = set {
                forms.push(format!("c.{list} contains {one:?}"));
                forms.push(format!("{one:?} in c.{list}"));
            }
            for form in forms {
                rules.push_str(&format!(
                    "hook s{i} on tool.pre_execute {{ when any c in shell(payload.cmd): {form}\n log info \"s\" }}\n\
                     hook g{i} on tool.pre_execute {{ when any c in shell(payload.cmd): any w in c.{list}: w in [{}]\n log info \"g\" }}\n",
                    quoted.join(", ")
                ));
                i += 1;
            }
        }
    }
    rules
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 192, ..proptest::prelude::ProptestConfig::default() })]

    /// Flags as bits and sets through a hash decide exactly as comparing
    /// every word with every string does.
    #[test]
    fn word_tests_agree_with_the_element_by_element_form(
        words in proptest::collection::vec(
            proptest::sample::select(vec![
                "rm", "git", "sudo", "env", "X=1", "-rf", "-r", "-R", "-fR9", "--force",
                "--force=yes", "--recursive", "-@", "-é", "push", "reset", "/", "~", "$HOME",
                "--", "-", ";", "|", "&&", "-d", "checkout", "xargs",
            ]),
            0..10,
        ),
    ) {
        thread_local! {
            static TABLE: Table = table(&word_test_rules());
        }
        let command = words.join(" ");
        let fired = TABLE.with(|t| fired(t, json!({ "cmd": command })));
        for name in fired.iter().filter(|n| n.starts_with('s')) {
            let twin = format!("g{}", &name[1..]);
            proptest::prop_assert!(fired.contains(&twin), "{name} fired without {twin} on {command:?}");
        }
        for name in fired.iter().filter(|n| n.starts_with('g')) {
            let twin = format!("s{}", &name[1..]);
            proptest::prop_assert!(fired.contains(&twin), "{name} fired without {twin} on {command:?}");
        }
    }
}

#[test]
fn the_word_test_rules_are_rewritten_and_fire() {
    // The differential test above means something only if the forms are
    // rewritten and both sides fire on some commands.
    let table = table(&word_test_rules());
    let explained = format!("{:?}", table.program());
    assert!(
        explained.contains("WordsAny"),
        "no word-set test in the table"
    );
    let fired = fired(
        &table,
        json!({ "cmd": "sudo rm -rf --force / && git push -9 ~" }),
    );
    assert!(fired.iter().any(|n| n.starts_with('s')), "{fired:?}");
    assert!(fired.iter().any(|n| n.starts_with('g')), "{fired:?}");
}

/// The constants of [`case_rules`]: ASCII ones (compiled into a regex on
/// the field) and others, left as written.
const CASE_CONSTANTS: [&str; 10] = ["less", "kill", "si", "is", "i", "k", "s", "rm -i", "ß", "σ"];

/// One rule per comparison of `lower(payload.x)` with each of
/// [`CASE_CONSTANTS`], on the field and on a quantifier's variable, named
/// by its index in [`case_expected`]; `upper` comparisons last.
fn case_rules() -> String {
    let mut rules = String::new();
    for (i, form) in case_forms().iter().enumerate() {
        rules.push_str(&format!(
            "hook c{i} on tool.pre_execute {{ when {form}\n log info \"c\" }}\n"
        ));
    }
    rules
}

/// Each rule's condition, with `X` for the subject.
fn case_forms() -> Vec<String> {
    let mut forms = Vec::new();
    for subject in ["lower(payload.x)", "any w in [payload.x]: lower(w)"] {
        for c in CASE_CONSTANTS {
            for op in ["==", "starts_with", "ends_with", "contains"] {
                forms.push(format!("{subject} {op} {c:?}"));
            }
            forms.push(format!("{subject} in [{c:?}, \"zz\"]"));
            forms.push(format!("{subject} contains any [{c:?}, \"zz\"]"));
        }
    }
    for c in ["SS", "FI", "K"] {
        forms.push(format!("upper(payload.x) == {c:?}"));
        forms.push(format!("upper(payload.x) starts_with {c:?}"));
    }
    forms
}

/// Whether each of [`case_forms`] holds on `x`, computed with Rust's own
/// `to_lowercase` and `to_uppercase` (what `lower` and `upper` are).
fn case_expected(x: &str) -> Vec<bool> {
    let lower = x.to_lowercase();
    let upper = x.to_uppercase();
    let mut holds = Vec::new();
    for _subject in 0..2 {
        for c in CASE_CONSTANTS {
            holds.extend([
                lower == c,
                lower.starts_with(c),
                lower.ends_with(c),
                lower.contains(c),
                lower == c || lower == "zz",
                lower.contains(c) || lower.contains("zz"),
            ]);
        }
    }
    for c in ["SS", "FI", "K"] {
        holds.extend([upper == c, upper.starts_with(c)]);
    }
    holds
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 256, ..proptest::prelude::ProptestConfig::default() })]

    /// `lower(x) == "less"` and its kin, compiled into a regex on `x`,
    /// decide exactly as lower-casing `x` does, on text that mixes the
    /// characters where lower-casing and case folding part: the long s
    /// (`ſ`, its own lower case, folded to `s`), the Kelvin sign (lower-
    /// cased to `k`), the dotted capital I (lower-cased to `i` and a
    /// combining dot), `ß`, the final sigma.
    #[test]
    fn lower_case_comparisons_decide_as_lower_casing_does(
        chars in proptest::collection::vec(
            proptest::sample::select(vec![
                's', 'S', 'ſ', 'k', 'K', '\u{212A}', 'i', 'I', 'İ', 'ı', '\u{307}', 'l', 'L', 'e',
                'E', 'r', 'M', ' ', '-', 'ß', 'ẞ', 'ﬁ', 'f', 'Σ', 'σ', 'ς', 'z',
            ]),
            0..7,
        ),
    ) {
        thread_local! {
            static TABLE: Table = table(&case_rules());
        }
        let x: String = chars.into_iter().collect();
        let fired = TABLE.with(|t| fired(t, json!({ "x": x })));
        for (i, (form, holds)) in case_forms().iter().zip(case_expected(&x)).enumerate() {
            let name = format!("c{i}");
            proptest::prop_assert_eq!(
                fired.contains(&name),
                holds,
                "{} on {:?} (lower-cased {:?})",
                form,
                x,
                x.to_lowercase()
            );
        }
    }
}

#[test]
fn a_long_s_is_not_an_s_to_lower_case() {
    let rules = r#"hook r on tool.pre_execute {
    when any c in shell(payload.cmd): lower(c.program) in ["less", "kill"]
    log info "a reader"
}"#;
    assert!(fires(rules, json!({ "cmd": "LESS x" })));
    // The Kelvin sign lower-cases to `k`.
    assert!(fires(rules, json!({ "cmd": "\u{212A}ILL 1" })));
    // The long s is its own lower case: `leſs` is not `less`.
    assert!(!fires(
        rules,
        json!({ "cmd": "le\u{17F}s .hookc/rules.tbl" })
    ));
    assert!(!fires(rules, json!({ "cmd": "LE\u{17F}\u{17F} x" })));
}
