//! One test per check: the code, the location and the help.

use crate::diag::{Diagnostic, Severity};

fn diagnostics(text: &str) -> Vec<Diagnostic> {
    match crate::compile_str("t.hooks", text) {
        Ok(compiled) => compiled.warnings.0,
        Err(d) => d.0,
    }
}

/// The single diagnostic with `code`, and its `line:col`.
fn one(text: &str, code: &str) -> (Diagnostic, (u32, u32)) {
    let all = diagnostics(text);
    let found: Vec<_> = all.iter().filter(|d| d.code == code).collect();
    assert_eq!(found.len(), 1, "expected one `{code}` in {all:#?}");
    let d = found[0].clone();
    let (_, line, col) = d.location().unwrap();
    (d, (line, col))
}

#[test]
fn unknown_point_suggests_the_closest() {
    let (d, at) = one("hook a on tool.pre_exec { continue }", "unknown-point");
    assert_eq!(d.message, "unknown hook point `tool.pre_exec`");
    assert_eq!(d.help.as_deref(), Some("did you mean `tool.pre_execute`?"));
    assert_eq!(at, (1, 11));
    assert_eq!(d.severity, Severity::Error);
}

/// Applies a diagnostic's suggestion to `text`.
fn fixed(text: &str, d: &Diagnostic) -> String {
    let s = d.suggestion.as_ref().expect("a suggestion");
    let mut out = text.to_string();
    out.replace_range(s.span.range(), &s.replacement);
    out
}

#[test]
fn did_you_mean_carries_the_replacement() {
    let text = "hook a on tool.pre_exec { continue }";
    let (d, _) = one(text, "unknown-point");
    assert_eq!(fixed(text, &d), "hook a on tool.pre_execute { continue }");
    let text = "list dangerous = [\"rm\"]\nhook a on tool.pre_execute { when payload.args contains any dangerus abort }";
    let (d, _) = one(text, "unknown-name");
    assert!(fixed(text, &d).ends_with("contains any dangerous abort }"));
    let text = "hook a on tool.pre_execute { when lowr(payload.args) == \"x\" abort }";
    let (d, _) = one(text, "unknown-function");
    assert!(fixed(text, &d).contains("when lower(payload.args)"));
    let text = "schema claude-code\nhook a on PreToolUse { when payload.tool_nme == \"x\" deny }";
    let (d, _) = one(text, "unknown-field");
    assert!(fixed(text, &d).contains("when payload.tool_name =="));
    // A path with an index is not replaced whole: the help alone.
    let text =
        "schema claude-code\nhook a on PreToolUse { when payload.tool_nme[0] == \"x\" deny }";
    let (d, _) = one(text, "unknown-field");
    assert_eq!(d.suggestion, None);
    assert!(d.help.unwrap().starts_with("did you mean"));
    // A misspelt keyword is a syntax error with a replacement too.
    let text = "hook a on tool.pre_execute { whne depth > 1 abort }";
    let (d, _) = one(text, "syntax");
    assert_eq!(
        fixed(text, &d),
        "hook a on tool.pre_execute { when depth > 1 abort }"
    );
}

#[test]
fn a_point_of_another_builtin_schema_says_which_schema_to_declare() {
    let (d, at) = one("hook a on PreToolUse { continue }", "unknown-point");
    assert_eq!(d.message, "unknown hook point `PreToolUse`");
    assert_eq!(
        d.help.as_deref(),
        Some("`PreToolUse` is a point of the `claude-code` schema, not of `orcs`: declare `schema claude-code` in the file")
    );
    assert_eq!(at, (1, 11));
    let (d, _) = one(
        "schema claude-code\nhook a on tool.pre_execute { continue }",
        "unknown-point",
    );
    assert_eq!(
        d.help.as_deref(),
        Some("`tool.pre_execute` is a point of the `orcs` schema, not of `claude-code`: declare `schema orcs` in the file")
    );
    let (d, _) = one(
        "schema ironclaw\nhook a on PreToolUse { continue }",
        "unknown-point",
    );
    assert!(d.help.unwrap().contains("`claude-code` schema"));
}

#[test]
fn an_unknown_point_without_a_near_name_names_the_schema_command() {
    let (d, _) = one("hook a on zzz.qqq { continue }", "unknown-point");
    assert_eq!(
        d.help.as_deref(),
        Some("run `hookc schema orcs` for the points of the `orcs` schema")
    );
}

#[test]
fn invalid_fql_points_at_the_problem() {
    let (d, at) = one(
        "hook a on tool.pre_execute at builtin::llm/ { continue }",
        "invalid-fql",
    );
    assert_eq!(d.labels[0].message, "empty child path after `/`");
    assert_eq!(at, (1, 43));
    let (d, at) = one(
        r#"hook a on tool.pre_execute at "::llm" { continue }"#,
        "invalid-fql",
    );
    assert_eq!(d.labels[0].message, "empty scope before `::`");
    assert_eq!(at, (1, 32));
    // Unquoted, the pattern is one token: the `/` is pointed at.
    let (d, at) = one(
        "hook a on tool.pre_execute at builtin/x::llm { continue }",
        "invalid-fql",
    );
    assert_eq!(d.message, "invalid FQL target `builtin/x::llm`");
    assert_eq!(
        d.labels[0].message,
        "`/` before `::`: a child path comes after the target"
    );
    assert_eq!(at, (1, 38));
    for (fql, why) in [
        ("builtin", "missing `::` between scope and target"),
        ("builtin::", "empty target after `::`"),
        ("builtin::llm#", "empty instance after `#`"),
        (
            "builtin/x::llm",
            "`/` before `::`: a child path comes after the target",
        ),
        (
            "builtin#x::llm",
            "`#` before `::`: an instance comes after the target",
        ),
    ] {
        let (d, _) = one(
            &format!("hook a on tool.pre_execute at \"{fql}\" {{ continue }}"),
            "invalid-fql",
        );
        assert_eq!(d.labels[0].message, why);
    }
}

#[test]
fn invalid_regex_points_inside_the_regex() {
    let (d, at) = one(
        "hook a on tool.pre_execute { when payload.x matches /ab(c/ abort }",
        "invalid-regex",
    );
    assert!(d.message.starts_with("invalid regex"), "{}", d.message);
    assert_eq!(at.0, 1);
    assert!(
        at.1 >= 55 && at.1 <= 58,
        "column {} is inside the regex",
        at.1
    );
    // Flags are checked by the parser.
    let (d, _) = one(
        "pattern p = /x/q\nhook a on tool.pre_execute { when payload.x matches p abort }",
        "syntax",
    );
    assert_eq!(d.message, "unknown regex flag `q`");
}

#[test]
fn a_regex_too_large_to_compile_is_an_error_at_its_literal() {
    // Ten thousand copies of Unicode `\w`: past the NFA size limit.
    let (d, at) = one(
        "hook a on tool.pre_execute { when payload.x matches /(?:\\w{100}){100}/ abort }",
        "invalid-regex",
    );
    assert_eq!(d.message, "regex is too large");
    assert_eq!(
        d.help.as_deref(),
        Some("split it into several rules or simplify it")
    );
    assert_eq!(at, (1, 53));
    // A regex that failed is not remembered as valid: each use is
    // reported.
    let text = "hook a on tool.pre_execute { when payload.x matches /(?:\\w{100}){100}/ abort }\n\
                hook b on tool.pre_execute { when payload.y matches /(?:\\w{100}){100}/ abort }";
    let found = diagnostics(text);
    assert_eq!(
        found.iter().filter(|d| d.code == "invalid-regex").count(),
        2
    );
}

#[test]
fn regex_errors_after_rewritten_characters_point_at_the_source() {
    // `\/` and a raw U+202E (which the pattern holds as `\x{202e}`) come
    // before the error: the caret is still under the `{` in the source.
    let text = "pattern p = /a\\/\u{202e}x{2,1}/\nhook a on tool.pre_execute { when payload.x matches p abort }";
    let (d, at) = one(text, "invalid-regex");
    let span = d.primary_span().unwrap();
    let source = crate::span::SourceFile::new("t.hooks", text);
    assert_eq!(source.slice(span), "{2,1}", "{d:?}");
    assert_eq!(at, (1, 19));
}

#[test]
fn duplicate_ids_name_the_first() {
    let (d, at) = one(
        "hook a on tool.pre_execute { continue }\nhook a on tool.post_execute { continue }",
        "duplicate-id",
    );
    assert_eq!(at, (2, 6));
    assert_eq!(d.labels.len(), 2);
}

#[test]
fn unknown_names_suggest() {
    let (d, _) = one(
        "list dangerous = [\"rm\"]\nhook a on tool.pre_execute { when payload.args contains any dangerus abort }",
        "unknown-name",
    );
    assert_eq!(d.help.as_deref(), Some("did you mean `dangerous`?"));
    let (d, _) = one(
        "hook a on tool.pre_execute { when payload.x matches secret abort }",
        "unknown-name",
    );
    assert_eq!(d.message, "unknown pattern `secret`");
    let (d, _) = one(
        "hook a on tool.pre_execute { when is_exec abort }",
        "unknown-name",
    );
    assert_eq!(d.message, "unknown name `is_exec`");
}

#[test]
fn replace_outside_post_points() {
    let (d, at) = one(
        "hook a on tool.post_execute, tool.pre_execute {\n  replace {}\n}",
        "replace-not-post",
    );
    assert!(
        d.message.contains("`tool.pre_execute` (pre)"),
        "{}",
        d.message
    );
    assert_eq!(at, (2, 3));
}

#[test]
fn type_mismatches_where_the_schema_knows() {
    let (d, _) = one(
        r#"hook a on tool.pre_execute { when depth == "x" abort }"#,
        "type-mismatch",
    );
    assert_eq!(d.message, "an int and a string can never be equal");
    one(
        r#"hook a on child.pre_spawn { when payload.capabilities contains "x" abort }"#,
        "type-mismatch",
    );
    one(
        r#"hook a on tool.pre_execute { when component > 3 abort }"#,
        "type-mismatch",
    );
    one(
        r#"hook a on tool.pre_execute { when depth matches /x/ abort }"#,
        "type-mismatch",
    );
    one(
        r#"hook a on tool.pre_execute { when payload.tool & 1 == 0 abort }"#,
        "type-mismatch",
    );
    one(
        r#"hook a on tool.pre_execute { when payload.tool in timestamp_ms abort }"#,
        "type-mismatch",
    );
    one(
        r#"hook a on tool.pre_execute { when depth abort }"#,
        "type-mismatch",
    );
    // A payload field the schema does not declare is `any`: a warning, no
    // type error.
    let found = diagnostics(r#"hook a on tool.pre_execute { when payload.whatever == 1 abort }"#);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].code, "unknown-field");
    assert_eq!(found[0].severity, Severity::Warning);
}

#[test]
fn imports_not_found_and_cycles() {
    let (d, at) = one(
        "import \"nowhere/missing.hooks\"\nhook a on tool.pre_execute { continue }",
        "import-not-found",
    );
    assert!(d
        .message
        .starts_with("cannot import `nowhere/missing.hooks`"));
    assert_eq!(at, (1, 8));

    let dir = std::env::temp_dir().join(format!("hookc-cycle-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("a.hooks"),
        "import \"b.hooks\"\nhook a on tool.pre_execute { continue }",
    )
    .unwrap();
    std::fs::write(dir.join("b.hooks"), "import \"a.hooks\"\nlist l = [1]").unwrap();
    let err = crate::compile_paths(&[dir.join("a.hooks")], &crate::Options::default()).unwrap_err();
    let cycle: Vec<_> = err.iter().filter(|d| d.code == "import-cycle").collect();
    assert_eq!(cycle.len(), 1, "{err}");
    assert!(
        cycle[0].message.contains("a.hooks -> b.hooks -> a.hooks"),
        "{}",
        cycle[0].message
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn imports_of_non_regular_files_are_errors() {
    let (d, _) = one(
        "import \"/dev/zero\"\nhook a on tool.pre_execute { continue }",
        "import-not-found",
    );
    assert_eq!(d.message, "cannot import `/dev/zero`: not a regular file");
}

#[test]
fn imports_bring_definitions() {
    let dir = std::env::temp_dir().join(format!("hookc-import-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("common.hooks"),
        "list bad = [\"rm\"]\npattern key = /K[0-9]+/\nmacro is_exec = payload.tool == \"exec\"",
    )
    .unwrap();
    std::fs::write(
        dir.join("main.hooks"),
        "import \"common.hooks\"\nhook a on tool.pre_execute { when is_exec and payload.args contains any bad and payload.args matches key abort }",
    )
    .unwrap();
    let compiled =
        crate::compile_paths(&[dir.join("main.hooks")], &crate::Options::default()).unwrap();
    assert_eq!(compiled.table.rule_count(), 1);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_subdirectory_with_its_own_config_is_a_separate_rule_set() {
    let dir = std::env::temp_dir().join(format!("hookc-nested-{}", std::process::id()));
    let nested = dir.join("claude");
    std::fs::create_dir_all(&nested).unwrap();
    std::fs::write(
        dir.join("a.hooks"),
        "hook a on tool.pre_execute { continue }",
    )
    .unwrap();
    // Another schema: compiled with the parent, it would be a conflict.
    std::fs::write(
        nested.join("b.hooks"),
        "schema claude-code\nhook b on PreToolUse { continue }",
    )
    .unwrap();
    std::fs::write(nested.join("hookc.toml"), "[lints]\n").unwrap();
    let mut found = crate::diag::Diagnostics::new();
    assert_eq!(
        crate::load::discover(&[&dir], &mut found),
        [dir.join("a.hooks")]
    );
    // Not searched, and a note says so.
    let codes: Vec<_> = found.iter().map(|d| (d.code, d.severity)).collect();
    assert_eq!(codes, [("separate-rule-set", Severity::Note)]);
    assert!(
        found.0[0].message.contains("claude"),
        "{}",
        found.0[0].message
    );
    let compiled = crate::compile_paths(&[&dir], &crate::Options::default()).unwrap();
    assert_eq!(compiled.table.rule_count(), 1);
    // Named, it compiles on its own.
    let compiled = crate::compile_paths(&[&nested], &crate::Options::default()).unwrap();
    assert_eq!(compiled.table.rule_count(), 1);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn all_errors_of_a_file_are_reported() {
    let all = diagnostics(
        "hook a on tool.pre_exec { continue }\nhook b on tool.pre_execute at ::x { continue }\nhook a on tool.pre_execute { when depth == \"s\" abort }",
    );
    let codes: Vec<_> = all.iter().map(|d| d.code).collect();
    assert_eq!(
        codes,
        [
            "unknown-point",
            "invalid-fql",
            "duplicate-id",
            "type-mismatch"
        ]
    );
}

#[test]
fn other_checks() {
    one(
        "macro a = b\nmacro b = a\nhook h on tool.pre_execute { when a abort }",
        "macro-cycle",
    );
    one(
        "hook h on tool.pre_execute { set component = \"x\" }",
        "not-editable",
    );
    one(
        "hook h on tool.pre_execute { log loud \"x\" }",
        "unknown-level",
    );
    one(
        "hook h on tool.pre_execute { abort \"{nothing.here}\" }",
        "unknown-field",
    );
    one(
        "hook h on tool.pre_execute { abort \"{payload.x\" }",
        "invalid-template",
    );
    // An index that is not a number: refused, never an action that
    // silently does nothing.
    for hole in ["payload.a[x]", "payload[x]", "payload.a[-1]"] {
        one(
            &format!("hook h on tool.pre_execute {{ deny \"bad {{{hole}}}\" }}"),
            "invalid-template",
        );
    }
    one(
        "hook h on tool.pre_execute priority 1 priority 2 { continue }",
        "duplicate-option",
    );
    one(
        "schema orks\nhook h on tool.pre_execute { continue }",
        "unknown-schema",
    );
    one(
        "list a = [1]\nlist a = [2]\nhook h on tool.pre_execute { continue }",
        "duplicate-name",
    );
    one(
        "pattern p = /x/\nhook h on tool.pre_execute { when p abort }",
        "wrong-kind",
    );
    one(
        "hook h on tool.pre_execute { when principal.name == \"x\" abort }",
        "unknown-field",
    );
    one(
        "hook h on tool.pre_execute { when payload.p glob \"[\" abort }",
        "invalid-glob",
    );
}

#[test]
fn a_command_field_that_does_not_exist_suggests_the_closest() {
    let (d, at) = one(
        "hook a on tool.pre_execute { when any c in shell(payload.args): c.porgram == \"rm\" abort }",
        "unknown-field",
    );
    assert_eq!(d.message, "a command has no field `porgram`");
    assert_eq!(d.help.as_deref(), Some("did you mean `program`?"));
    assert_eq!(at, (1, 65));
    let (d, _) = one(
        "hook a on tool.pre_execute { when any c in shell(payload.args): any r in c.redirects: r.file == \"x\" abort }",
        "unknown-field",
    );
    assert_eq!(d.message, "a redirection has no field `file`");
    let (d, _) = one(
        "hook a on tool.pre_execute { when any c in shell(payload.args): any f in c.flags: f.name == \"x\" abort }",
        "unknown-field",
    );
    assert_eq!(d.message, "`f` is a string: it has no fields");
}

#[test]
fn a_variable_lives_only_inside_its_quantifier() {
    let (d, at) = one(
        "hook a on tool.pre_execute { when (any c in payload.args: c == 1) or c.x == 2 abort }",
        "unknown-field",
    );
    assert_eq!(d.message, "unknown context field `c`");
    assert_eq!(at, (1, 70));
    // A macro means the same wherever it is used: it does not see the
    // variables around its use.
    let (d, _) = one(
        "macro m = x == 1\nhook a on tool.pre_execute { when any x in payload.args: m abort }",
        "unknown-name",
    );
    assert_eq!(d.message, "unknown name `x`");
}

#[test]
fn a_variable_may_not_hide_a_name_or_a_context_field() {
    let (d, at) = one(
        "list xs = [1]\nhook a on tool.pre_execute { when any xs in payload.args: xs == 1 abort }",
        "shadowed-name",
    );
    assert_eq!(d.message, "`xs` already names something else");
    assert_eq!(at, (2, 39));
    let (d, _) = one(
        "hook a on tool.pre_execute { when any payload in payload.args: true abort }",
        "shadowed-name",
    );
    assert_eq!(
        d.help.as_deref(),
        Some("choose another name for the variable")
    );
}

#[test]
fn quantifiers_need_a_list_and_a_condition() {
    let (d, _) = one(
        "hook a on tool.pre_execute { when all x in 3: true abort }",
        "type-mismatch",
    );
    assert_eq!(d.message, "`all` needs a list, this is an int");
    let (d, _) = one(
        "hook a on tool.pre_execute { when any x in payload.args: x + 1 abort }",
        "type-mismatch",
    );
    assert!(
        d.message
            .starts_with("the condition of `any` must be a boolean"),
        "{}",
        d.message
    );
}

#[test]
fn functions_are_checked_by_name_arity_and_argument_type() {
    let (d, at) = one(
        "hook a on tool.pre_execute { when lowr(payload.x) == \"a\" abort }",
        "unknown-function",
    );
    assert_eq!(d.help.as_deref(), Some("did you mean `lower`?"));
    assert_eq!(at, (1, 35));
    let (d, _) = one(
        "hook a on tool.pre_execute { when lower(payload.x, payload.y) == \"a\" abort }",
        "type-mismatch",
    );
    assert_eq!(d.message, "`lower` takes one argument, not 2");
    let (d, _) = one(
        "hook a on tool.pre_execute { when shell(3) == [] abort }",
        "type-mismatch",
    );
    assert_eq!(d.message, "`shell` cannot apply to an int");
    let (d, _) = one(
        "hook a on tool.pre_execute { when len(true) == 1 abort }",
        "type-mismatch",
    );
    assert_eq!(
        d.help.as_deref(),
        Some("`len` measures strings, lists and objects")
    );
}

#[test]
fn outputs_are_the_ones_the_point_reads_with_their_types() {
    let (d, at) = one(
        "schema claude-code\nhook h on SessionStart { output sesionTitle = \"x\" }",
        "unknown-output",
    );
    assert_eq!(at, (2, 33));
    assert!(d
        .message
        .contains("`SessionStart` takes no output `sesionTitle`"));
    assert_eq!(d.help.as_deref(), Some("did you mean `sessionTitle`?"));

    let (d, _) = one(
        "schema claude-code\nhook h on SessionEnd { output systemMessage = \"x\" }",
        "unknown-output",
    );
    assert!(
        d.help
            .as_deref()
            .is_some_and(|h| h.contains("gives `SessionEnd` no outputs")),
        "{:?}",
        d.help
    );
    // Every point of a rule must read it.
    let (d, _) = one(
        "schema claude-code\nhook h on SessionStart, Stop { output sessionTitle = \"x\" }",
        "unknown-output",
    );
    assert!(
        d.message.contains("`Stop` takes no output"),
        "{}",
        d.message
    );
    let (d, _) = one(
        "schema claude-code\nhook h on PermissionDenied { output retry = \"yes\" }",
        "type-mismatch",
    );
    assert!(
        d.message
            .contains("output `retry` takes a bool, not a string"),
        "{}",
        d.message
    );
    one(
        "hook h on tool.pre_execute { output systemMessage = \"x\" }",
        "unknown-output",
    );
    assert!(diagnostics(
        "schema claude-code\nhook h on PermissionRequest { allow\n output decision.interrupt = true\n output systemMessage = \"{payload.tool_name}\" }"
    )
    .is_empty());
}

#[test]
fn a_bare_payload_field_is_told_its_path() {
    let (d, at) = one(
        "schema claude-code\nhook a on PreToolUse { when tool_name == \"Bash\" deny \"x\" }",
        "unknown-name",
    );
    assert_eq!(
        d.help.as_deref(),
        Some("`tool_name` is a field of the event's payload: write `payload.tool_name`")
    );
    assert_eq!(at, (2, 29));
    let fix = d.suggestion.expect("a quick fix");
    assert_eq!(fix.replacement, "payload.tool_name");
    // By its last name.
    let (d, _) = one(
        "schema claude-code\nhook a on PreToolUse { when command contains \"rm\" deny \"x\" }",
        "unknown-name",
    );
    assert_eq!(
        d.help.as_deref(),
        Some("`command` is a field of the event's payload: write `payload.tool_input.command`")
    );
}

#[test]
fn a_bare_target_is_told_its_scope() {
    let (d, _) = one(
        "schema claude-code\nhook a on PreToolUse at Bash { deny \"x\" }",
        "invalid-fql",
    );
    assert_eq!(
        d.help.as_deref(),
        Some("a target names a scope and a component: write `at claude-code::Bash` (the `claude-code` schema's components are `claude-code::…`)")
    );
    // A schema whose components come from several scopes.
    let (d, _) = one("hook a on tool.pre_execute at llm { abort }", "invalid-fql");
    assert_eq!(
        d.help.as_deref(),
        Some("a target names a scope and a component: write `at *::llm` for `llm` in any scope, or name the scope (`builtin::llm`)")
    );
}

/// Type-checked on threads, a large policy gives the same rules, the same
/// findings in the same order, and the same regexes as on one thread:
/// the pack, then hundreds of rules that reuse its patterns, lists and
/// macros, with named groups, globs, bad regexes, unknown names and fields,
/// and repeated ids.
#[test]
fn the_type_check_on_threads_is_the_type_check_on_one() {
    use crate::span::SourceFile;
    let pack = include_str!("../../rules/claude-code/guards.hooks");
    let mut text = pack.to_string();
    for i in 0..700 {
        let rule = match i % 10 {
            0 => format!(
                "hook r{i} on PreToolUse at claude-code::Bash {{\n    when any c in shell(payload.tool_input.command): lower(normalize(c.operands[0])) matches root_like\n    deny \"no {i}\"\n}}\n"
            ),
            1 => format!(
                "hook r{i} on PreToolUse {{\n    when payload.tool_input.command matches /(?P<verb>rm|mv{i})\\s+(?P<what>\\S+)/\n    deny \"{{verb}} of {{what}}\"\n}}\n"
            ),
            2 => format!(
                "hook r{i} on PreToolUse {{\n    when payload.tool_input.file_path glob \"**/secret{i}/**\"\n    deny \"no\"\n}}\n"
            ),
            3 => format!(
                "hook r{i} on PreToolUse {{\n    when payload.tool_input.command matches /(unclosed{i}/\n    deny \"no\"\n}}\n"
            ),
            4 => format!(
                "hook r{i} on PreToolUse {{\n    when payload.nothing_{i} == \"x\" and is_write\n    deny \"no\"\n}}\n"
            ),
            5 => format!(
                "hook r{i} on PreToolUse {{\n    when payload.tool_input.command contains any no_such_list{}\n    deny \"no\"\n}}\n",
                i % 3
            ),
            6 => "hook deny-fork-bomb on PreToolUse { when payload.tool_name == \"Bash\" deny \"again\" }\n".to_string(),
            7 => format!(
                "hook r{i} on PreToolUse {{\n    when payload.tool_input.command matches protected\n    ask \"sure {i}?\"\n}}\n"
            ),
            8 => format!(
                "hook r{i} on PreToolUse {{\n    when payload.tool_name in [\"Bash\", {i}]\n    deny \"no\"\n}}\n"
            ),
            _ => format!(
                "hook r{i} on PreToolUse {{\n    when payload.tool_input.command matches /\\w+{i}\\s+\\d{{2,4}}/\n    deny \"no\"\n}}\n"
            ),
        };
        text.push('\n');
        text.push_str(&rule);
    }
    let loaded = crate::load::load_sources(vec![SourceFile::new("big.hooks", text)]);
    let one = super::check_on(&loaded, Some(1));
    assert!(one.rules.len() > 400, "{}", one.rules.len());
    let codes: std::collections::BTreeSet<&str> = one.diagnostics.iter().map(|d| d.code).collect();
    for code in [
        "invalid-regex",
        "unknown-name",
        "unknown-field",
        "duplicate-id",
    ] {
        assert!(codes.contains(code), "{code} in {codes:?}");
    }
    let facts = |a: &super::Analysis<'_>| {
        let mut facts: Vec<String> = a.catalog.facts.iter().map(|f| format!("{f:?}")).collect();
        let mut globs: Vec<String> = a.catalog.globs.iter().map(|g| format!("{g:?}")).collect();
        facts.sort();
        globs.sort();
        (facts, globs)
    };
    for threads in [2, 3, 8] {
        let many = super::check_on(&loaded, Some(threads));
        assert_eq!(
            format!("{:?}", many.rules),
            format!("{:?}", one.rules),
            "{threads} threads"
        );
        assert_eq!(many.diagnostics, one.diagnostics, "{threads} threads");
        assert_eq!(facts(&many), facts(&one), "{threads} threads");
    }
}
