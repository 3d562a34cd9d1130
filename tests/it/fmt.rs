//! `hookc fmt`: the canonical layout, its idempotence, that it keeps every
//! comment, and that a formatted file compiles to the same table.
//!
//! The property tests generate rule files with messy layouts (random blanks,
//! line breaks, comments between any two tokens, redundant parentheses,
//! options in any order, strings with every escape) and check, for each:
//! the output parses to the same AST, formatting it again changes nothing,
//! the comments are all still there, and both compile to the same program
//! (rule origins aside: formatting moves lines).

#![expect(
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests fail loudly on purpose"
)]

use crate::common;
use common::Run;

use hookc::span::SourceFile;
use hookc::syntax::{self, ast, pretty};
use proptest::prelude::*;
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn fmt_text(name: &str, text: &str) -> String {
    match pretty::format_source(&SourceFile::new(name, text)) {
        Ok(out) => out,
        Err(d) => panic!(
            "`{name}` does not parse:\n{}\n{text}",
            hookc::diag::render::human(&d, false)
        ),
    }
}

/// The comment texts of a file, sorted (formatting may move a comment that
/// sat inside a line to just before it).
fn comments(name: &str, text: &str) -> Vec<String> {
    let source = SourceFile::new(name, text);
    let (file, _) = syntax::parse(&source);
    let mut all = pretty::comments(&source, &file);
    all.sort();
    all
}

/// The compiled program, with rule origins' lines and columns zeroed.
fn program(name: &str, text: &str) -> Result<hookc::ir::Program, usize> {
    // `bidi-control` findings aside: formatting writes a raw bidi control
    // as an escape, which is what the lint asks for.
    let compiled = hookc::compile_str(name, text)
        .map_err(|d| d.iter().filter(|d| d.code != "bidi-control").count())?;
    let mut program = compiled.table.program().clone();
    for rule in program.points.iter_mut().flat_map(|p| &mut p.rules) {
        for origin in std::iter::once(&mut rule.origin).chain(&mut rule.cond_origins) {
            origin.line = 0;
            origin.col = 0;
        }
    }
    Ok(program)
}

/// The AST with each rule's header options in the canonical order (the
/// only reordering the formatter does; options mean the same in any order).
fn normalized(mut file: ast::File) -> ast::File {
    for item in &mut file.items {
        if let ast::Item::Hook(h) = item {
            h.options.sort_by_key(|o| match o.kind {
                ast::HookOptionKind::Priority(_) => 0,
                ast::HookOptionKind::Fail(_) => 1,
                ast::HookOptionKind::Timeout(_) => 2,
                ast::HookOptionKind::Disabled => 3,
            });
        }
    }
    file
}

/// Everything the formatter promises about `text`.
fn check_formatting(name: &str, text: &str) -> String {
    let once = fmt_text(name, text);
    let twice = fmt_text(name, &once);
    assert_eq!(once, twice, "not idempotent; input:\n{text}\nonce:\n{once}");
    let before = normalized(syntax::parse(&SourceFile::new(name, text)).0);
    let after = normalized(syntax::parse(&SourceFile::new(name, once.as_str())).0);
    assert_eq!(
        before, after,
        "the AST changed; input:\n{text}\noutput:\n{once}"
    );
    assert_eq!(
        comments(name, text),
        comments(name, &once),
        "comments changed; input:\n{text}\noutput:\n{once}"
    );
    for line in once.lines() {
        assert_eq!(line, line.trim_end(), "trailing blanks in:\n{once}");
        assert!(
            !line.contains('\t') || line.contains('#') || line.contains('"'),
            "tab in:\n{once}"
        );
    }
    assert!(!once.contains("\n\n\n"), "two blank lines in:\n{once}");
    once
}

// ---------------------------------------------------------------- fixtures

#[test]
fn messy_fixture_is_formatted_canonically() {
    let path = root().join("tests/fixtures/fmt/messy.hooks");
    let text = std::fs::read_to_string(&path).unwrap();
    let out = check_formatting("messy.hooks", &text);
    insta::assert_snapshot!("messy", out);
}

#[test]
fn shipped_rules_are_formatted() {
    let mut n = 0;
    for entry in std::fs::read_dir(root().join("rules")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "hooks") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.display().to_string();
        let out = check_formatting(&name, &text);
        assert_eq!(
            out, text,
            "`{name}` is not formatted: run `hookc fmt rules/`"
        );
        n += 1;
    }
    assert!(n >= 5);
}

#[test]
fn rates_traces_lua_and_repeats_are_formatted() {
    let messy = r#"hook limit   on request.pre_dispatch {
  when rate( "{component}:{payload.operation}" )>100   per 60s
  abort "slow"
}
hook t on tool.post_execute { trace "t.jsonl"   payload.a ,payload.b }
hook l on tool.pre_execute {
call   lua "hooks/a.lua"
  lua """function(ctx)
  return { action = "abort", reason = "no" }
end"""
    lua "function(ctx) return ctx end"
}
test "r" { event {"hook_point": "request.pre_dispatch", "component_id": "a::b"}
 repeat   3
 expect continue }
"#;
    let out = check_formatting("new.hooks", messy);
    assert_eq!(
        out,
        r#"hook limit on request.pre_dispatch {
    when rate("{component}:{payload.operation}") > 100 per 60s
    abort "slow"
}

hook t on tool.post_execute {
    trace "t.jsonl" payload.a, payload.b
}

hook l on tool.pre_execute {
    call lua "hooks/a.lua"
    lua """function(ctx)
  return { action = "abort", reason = "no" }
end"""
    lua "function(ctx) return ctx end"
}

test "r" {
    event {"hook_point": "request.pre_dispatch", "component_id": "a::b"}
    repeat 3
    expect continue
}
"#
    );
    let a = program("new.hooks", messy).expect("compiles");
    let b = program("new.hooks", &out).expect("the formatted text compiles");
    assert_eq!(a, b);
}

/// `output` actions, `event file` and the `mock` lines of tests.
#[test]
fn outputs_event_files_and_mocks_are_formatted() {
    let messy = r#"schema claude-code
hook t on SessionStart { output   sessionTitle="x {payload.cwd}"
  output watchPaths  =[ payload.cwd ] }
hook p on PermissionRequest { allow output decision.interrupt=true }
test "f" { event   file   "e.json"
 mock  sh   "npm *"  exit 2   stderr "red"
 mock exec "./a" stdout {"decision":"block"}
 mock   webhook "https://x/*"  fail "full"
 mock call "h" continue
 mock webhook "https://y/*"
 expect continue }
"#;
    let out = check_formatting("new.hooks", messy);
    assert_eq!(
        out,
        r#"schema claude-code

hook t on SessionStart {
    output sessionTitle = "x {payload.cwd}"
    output watchPaths = [payload.cwd]
}

hook p on PermissionRequest {
    allow
    output decision.interrupt = true
}

test "f" {
    event file "e.json"
    mock sh "npm *" exit 2 stderr "red"
    mock exec "./a" stdout {"decision": "block"}
    mock webhook "https://x/*" fail "full"
    mock "h" continue
    mock webhook "https://y/*"
    expect continue
}
"#
    );
}

#[test]
fn formatted_fixture_compiles_to_the_same_program() {
    let text = std::fs::read_to_string(root().join("tests/fixtures/fmt/compiles.hooks")).unwrap();
    let out = check_formatting("compiles.hooks", &text);
    assert_ne!(out, text, "the fixture should be messy");
    let a = program("compiles.hooks", &text).expect("the fixture compiles");
    let b = program("compiles.hooks", &out).expect("the formatted fixture compiles");
    assert_eq!(a, b);
}

#[test]
fn layout_decisions() {
    let cases = [
        // Options in a fixed order, timeouts in the largest unit, bare targets.
        (
            "hook a on tool.pre_execute at \"builtin::*\" disabled timeout 120000ms fail open priority 5 {}",
            "hook a on tool.pre_execute at builtin::* priority 5 fail open timeout 2m disabled {}\n",
        ),
        // A target that needs quotes keeps them.
        (
            "hook a on tool.pre_execute at \"a b::c\" {}",
            "hook a on tool.pre_execute at \"a b::c\" {}\n",
        ),
        // Minimal parentheses, canonical spacing.
        (
            "macro m = ((payload.a)) and (payload.b or payload.c) and not(payload.d) and payload.n-(1-2)==payload.n-1-2",
            "macro m = payload.a and (payload.b or payload.c) and not payload.d and payload.n - (1 - 2) == payload.n - 1 - 2\n",
        ),
        (
            "macro m = (payload.a or payload.b) or (payload.c and payload.d)",
            "macro m = payload.a or payload.b or payload.c and payload.d\n",
        ),
        (
            "macro m = not (payload.a in [1,2]) and -(payload.n) < ~ (payload.m | 1) * 2",
            "macro m = payload.a not in [1, 2] and -payload.n < ~(payload.m | 1) * 2\n",
        ),
        (
            "macro m = (payload.a == 1) == true",
            "macro m = (payload.a == 1) == true\n",
        ),
        // Strings re-escaped, bracketed fields written with a dot.
        (
            "macro m = payload[\"a\"][\"b c\"][0] == \"\\u00e9\\/\\t\\u0001\\\"\"",
            "macro m = payload.a[\"b c\"][0] == \"é/\\t\\u0001\\\"\"\n",
        ),
        // Regexes keep their text; only `/` is escaped.
        (
            "pattern p = /a\\/b\\\\\\/c[\\/]/i",
            "pattern p = /a\\/b\\\\\\/c[\\/]/i\n",
        ),
        // Control and bidi characters are never written raw: written as
        // escapes, they stay escapes; raw ones become escapes (strings as
        // `\uXXXX`, regexes as `\x{…}`, which match the same character).
        (
            "macro m = payload.a == \"\\u202e\\u2066\\u0085\\u001b\"",
            "macro m = payload.a == \"\\u202e\\u2066\\u0085\\u001b\"\n",
        ),
        (
            "macro m = payload.a == \"x\u{202e}y\u{7}\u{9b}\"",
            "macro m = payload.a == \"x\\u202ey\\u0007\\u009b\"\n",
        ),
        (
            "pattern p = /a\u{202e}[\u{2069}]\u{1b}\\x{202E}/",
            "pattern p = /a\\x{202e}[\\x{2069}]\\x{1b}\\x{202E}/\n",
        ),
        // Keyword aliases stay as written.
        (
            "hook a on tool.pre_execute { unless payload.x exists deny \"no\" log warning \"w\" }",
            "hook a on tool.pre_execute {\n    unless payload.x exists\n    deny \"no\"\n    log warning \"w\"\n}\n",
        ),
        // schema and import lines form one block; other items are separated.
        (
            "schema orcs\n\n\nimport \"a.hooks\"\nlist l = [1]\nlist k = [2]",
            "schema orcs\nimport \"a.hooks\"\n\nlist l = [1]\n\nlist k = [2]\n",
        ),
        // Metadata keys bare when they can be.
        (
            "hook a on tool.pre_execute { meta \"reviewed-by\" = 1 meta \"a b\" = {\"k\":[1,{\"x\":null}]} }",
            "hook a on tool.pre_execute {\n    meta reviewed-by = 1\n    meta \"a b\" = {\"k\": [1, {\"x\": null}]}\n}\n",
        ),
    ];
    for (input, want) in cases {
        assert_eq!(check_formatting("t.hooks", input), want, "input: {input}");
    }
}

#[test]
fn quantifiers_and_calls_are_formatted() {
    let cases = [
        // A quantifier binds loosest: parenthesized wherever it is an
        // operand, never at the top.
        (
            "macro m = any  x in payload.xs :x==1",
            "macro m = any x in payload.xs: x == 1\n",
        ),
        (
            "macro m = (all x in payload.xs: x == 1) and payload.b or not (any y in [1]: y > lower( payload.s ))",
            "macro m = (all x in payload.xs: x == 1) and payload.b or not (any y in [1]: y > lower(payload.s))\n",
        ),
        // A `let` line is a line of the rule's body.
        (
            "hook r on tool.pre_execute { let   x=lower(payload.a) when x == \"a\" abort \"{x}\" }",
            "hook r on tool.pre_execute {\n    let x = lower(payload.a)\n    when x == \"a\"\n    abort \"{x}\"\n}\n",
        ),
        // A verbose regex keeps its lines and comments as written.
        (
            "pattern p = /\n    a+   # one or more\n  | b\n/x",
            "pattern p = /\n    a+   # one or more\n  | b\n/x\n",
        ),
        // A condition too long for its line breaks before `and` / `or`,
        // after the quantifier's colon, inside parentheses.
        (
            "hook a on tool.pre_execute { when any c in shell(payload.command): c.program == \"rm\" and (c.flags contains \"--no-preserve-root\" or c.flags contains any [\"-r\", \"-R\"] and (any o in c.operands: o == \"/\")) deny }",
            "hook a on tool.pre_execute {\n    when any c in shell(payload.command):\n        c.program == \"rm\"\n        and (\n            c.flags contains \"--no-preserve-root\"\n            or c.flags contains any [\"-r\", \"-R\"] and (any o in c.operands: o == \"/\")\n        )\n    deny\n}\n",
        ),
    ];
    for (input, want) in cases {
        assert_eq!(check_formatting("t.hooks", input), want, "input: {input}");
    }
}

#[test]
fn long_arrays_and_objects_break_one_element_per_line() {
    let input = "list l = [\"aaaaaaaaaaaa\", \"bbbbbbbbbbbbbbb\", \"cccccccccccccccc\", \"dddddddddddddddd\", \"eeeeeeeeeeeee\"]";
    let want = "list l = [\n    \"aaaaaaaaaaaa\",\n    \"bbbbbbbbbbbbbbb\",\n    \"cccccccccccccccc\",\n    \"dddddddddddddddd\",\n    \"eeeeeeeeeeeee\",\n]\n";
    assert_eq!(check_formatting("t.hooks", input), want);
    // A short one that holds a comment breaks too, and keeps it.
    let input = "list l = [1, # one\n 2]";
    assert_eq!(
        check_formatting("t.hooks", input),
        "list l = [\n    1, # one\n    2,\n]\n"
    );
}

#[test]
fn comments_are_kept_where_they_belong() {
    let input = "\
# file header

# about the list
list l = [1]   # trailing
hook a on tool.pre_execute { # after the brace
  # before the condition
  when payload.a and # inside the condition
     payload.b


  abort # trailing the action
  # before the brace
} # after the rule
# at the end
";
    let want = "\
# file header

# about the list
list l = [1] # trailing

hook a on tool.pre_execute { # after the brace
    # before the condition
    when payload.a # inside the condition
        and payload.b

    abort # trailing the action
    # before the brace
} # after the rule

# at the end
";
    assert_eq!(check_formatting("t.hooks", input), want);
}

#[test]
fn comments_between_operands_stay_between_them() {
    // A condition holding a comment is broken at its `and` / `or` however
    // short it is: each comment stays before the operand it preceded, or
    // at the end of the operand's line it was written on.
    let input = "\
hook b on tool.pre_execute {
    when any c in payload.list:
        # about rm
        c.program == \"rm\" # rm itself
            and (
                # flags
                c.flags contains \"-r\" # recursive
                or c.flags contains \"-f\"
            )
        or c.program == \"find\"
    when payload.a == 1
        # a comment of its own
        and payload.b == 2 # the last
    when payload.x in [
        \"a\", # first
        \"b\",
    ] and payload.y == 1 # y
    abort
}
";
    assert_eq!(check_formatting("t.hooks", input), input);
    // Written on one line with the comment after the operator, it stays on
    // the first operand's line.
    let input =
        "hook a on tool.pre_execute {\n  when payload.a or # why\n  payload.b\n  abort\n}\n";
    let want = "\
hook a on tool.pre_execute {
    when payload.a # why
        or payload.b
    abort
}
";
    assert_eq!(check_formatting("t.hooks", input), want);
}

#[test]
fn blocks_neither_start_nor_end_with_a_blank_line() {
    let input = "hook a on tool.pre_execute {\n\n\n    when payload.a\n\n\n    abort\n\n\n}\nlist l = [\n\n  1, # one\n\n\n  2\n\n]\n";
    let want = "hook a on tool.pre_execute {\n    when payload.a\n\n    abort\n}\n\nlist l = [\n    1, # one\n\n    2,\n]\n";
    assert_eq!(check_formatting("t.hooks", input), want);
    let input = "hook a on tool.pre_execute {\n    abort\n\n    # last\n\n}\n";
    let want = "hook a on tool.pre_execute {\n    abort\n\n    # last\n}\n";
    assert_eq!(check_formatting("t.hooks", input), want);
}

#[test]
fn hash_inside_tokens_is_not_a_comment() {
    let input = "hook a on tool.pre_execute at lua::comp#main { when payload[\"#k\"] matches /#x/ abort \"# no\" }";
    let want = "hook a on tool.pre_execute at lua::comp#main {\n    when payload[\"#k\"] matches /#x/\n    abort \"# no\"\n}\n";
    assert_eq!(check_formatting("t.hooks", input), want);
    assert!(comments("t.hooks", input).is_empty());
}

#[test]
fn tests_are_formatted() {
    let input = "test \"t\" {event {\"hook_point\":\"tool.pre_execute\",\"component_id\":\"a::b\"} target \"a::b/c\"\nexpect abort \"x\" expect skip expect ask expect continue expect fired [\"a\",\"b\"] expect decision none expect (fired) expect skip {\"a\":1}}";
    let want = "test \"t\" {\n    event {\"hook_point\": \"tool.pre_execute\", \"component_id\": \"a::b\"}\n    target \"a::b/c\"\n    expect abort \"x\"\n    expect skip\n    expect ask\n    expect continue\n    expect fired [\"a\", \"b\"]\n    expect decision none\n    expect (fired)\n    expect skip {\"a\": 1}\n}\n";
    assert_eq!(check_formatting("t.hooks", input), want);
}

#[test]
fn files_that_do_not_parse_are_not_formatted() {
    let err = pretty::format_source(&SourceFile::new("t.hooks", "hook a on {")).unwrap_err();
    assert!(err.has_errors());
    // An invalid escape is a syntax error too: formatting would lose it.
    let err = pretty::format_source(&SourceFile::new(
        "t.hooks",
        "macro m = payload.a == \"\\q\"",
    ))
    .unwrap_err();
    assert!(err.has_errors());
}

#[test]
fn empty_and_comment_only_files() {
    assert_eq!(check_formatting("t.hooks", ""), "");
    assert_eq!(check_formatting("t.hooks", "\n\n  \n"), "");
    assert_eq!(
        check_formatting("t.hooks", "\n# a\n\n\n# b   \n"),
        "# a\n\n# b\n"
    );
    assert_eq!(
        check_formatting("t.hooks", "schema orcs\r\n"),
        "schema orcs\n"
    );
}

// ---------------------------------------------------------------- the CLI

fn hookc(args: &[&str], stdin: Option<&str>) -> Run {
    common::hookc_in(root(), args, stdin)
}

fn tmp_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("fmt-tests")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn cli_check_rewrite_and_stdin() {
    let dir = tmp_dir("cli");
    let messy = dir.join("messy.hooks");
    let clean = dir.join("clean.hooks");
    std::fs::write(&messy, "hook  a on tool.pre_execute {abort}\n").unwrap();
    std::fs::write(&clean, "hook a on tool.pre_execute {\n    abort\n}\n").unwrap();
    let dir_s = dir.display().to_string();
    let messy_s = messy.display().to_string();
    let clean_s = clean.display().to_string();

    // Already formatted: 0, nothing printed.
    let run = hookc(&["fmt", "--check", &clean_s], None);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.stdout, "");

    // Would change: 1, the file and a diff; nothing written.
    let run = hookc(&["fmt", "--check", &dir_s], None);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let shown = run.stdout.replace(&dir_s, "[DIR]");
    insta::assert_snapshot!("check_diff", shown);
    assert!(
        run.stderr
            .contains("1 file of 2 files would be reformatted"),
        "{}",
        run.stderr
    );
    assert_eq!(
        std::fs::read_to_string(&messy).unwrap(),
        "hook  a on tool.pre_execute {abort}\n"
    );

    // Rewrite in place, then the check passes.
    let run = hookc(&["fmt", &dir_s], None);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(
        std::fs::read_to_string(&messy).unwrap(),
        std::fs::read_to_string(&clean).unwrap()
    );
    assert_eq!(hookc(&["fmt", "--check", &messy_s], None).code, Some(0));

    // stdin to stdout.
    let run = hookc(&["fmt", "-"], Some("list l=[1,2]"));
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.stdout, "list l = [1, 2]\n");
    let run = hookc(&["fmt", "--check", "-"], Some("list l=[1,2]"));
    assert_eq!(run.code, Some(1));
    assert!(run.stdout.contains("+list l = [1, 2]"), "{}", run.stdout);
}

/// Applies a unified diff to `old`: the text it says the new file is.
fn apply(old: &str, diff: &str) -> String {
    let old: Vec<&str> = old.split_inclusive('\n').collect();
    let mut out = String::new();
    let mut at = 0usize;
    let mut lines = diff.split_inclusive('\n').peekable();
    assert!(lines.next().unwrap().starts_with("--- "), "{diff}");
    assert!(lines.next().unwrap().starts_with("+++ "), "{diff}");
    while let Some(header) = lines.next() {
        let start: usize = header
            .strip_prefix("@@ -")
            .and_then(|h| h.split([',', ' ']).next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("not a hunk header: {header:?}"));
        // `-0,0` (an empty old file) is before line 1.
        let first = start.saturating_sub(1).max(at);
        for line in &old[at..first] {
            out.push_str(line);
        }
        at = first;
        while let Some(line) = lines.next_if(|l| !l.starts_with("@@ ")) {
            let (mark, text) = line.split_at(1);
            // `\ No newline at end of file` takes the newline off the line
            // before.
            if mark == "\\" {
                continue;
            }
            let missing_newline = lines.peek().is_some_and(|l| l.starts_with('\\'));
            let text = if missing_newline {
                text.strip_suffix('\n').unwrap_or(text)
            } else {
                text
            };
            match mark {
                " " => {
                    assert_eq!(old[at], text, "context differs at old line {}", at + 1);
                    out.push_str(text);
                    at += 1;
                }
                "-" => {
                    assert_eq!(old[at], text, "removed line differs at {}", at + 1);
                    at += 1;
                }
                "+" => out.push_str(text),
                _ => panic!("not a diff line: {line:?}"),
            }
        }
    }
    for line in &old[at..] {
        out.push_str(line);
    }
    out
}

/// A file whose diff is long: `--check` shows all of it (it was once cut
/// after 40 lines), and the diff turns the file into its formatted text.
#[test]
fn cli_check_shows_the_whole_diff_of_a_long_file() {
    let dir = tmp_dir("long-diff");
    let mut text = String::new();
    for i in 0..150 {
        text.push_str(&format!(
            "hook  rule-{i} on tool.pre_execute {{when payload.args contains \"x{i}\"\n abort \"no {i}\"}}\n\n"
        ));
        if i % 10 == 0 {
            // Unchanged stretches between the changes: several hunks.
            for j in 0..8 {
                text.push_str(&format!("# note {i}.{j}\n"));
            }
            text.push('\n');
        }
    }
    // No newline at the end, in CRLF: every kind of line ending differs.
    let text = text
        .trim_end()
        .replace("# note 140.7\n", "# note 140.7\r\n");
    let file = dir.join("long.hooks");
    std::fs::write(&file, &text).unwrap();
    let formatted = hookc(&["fmt", "-"], Some(&text));
    assert_eq!(formatted.code, Some(0), "{}", formatted.stderr);

    let run = hookc(&["fmt", "--check", file.to_str().unwrap()], None);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let diff = run
        .stdout
        .split_once('\n')
        .map(|(first, rest)| {
            assert!(first.starts_with("would reformat `"), "{first}");
            rest
        })
        .unwrap();
    assert!(diff.lines().count() > 600, "{} lines", diff.lines().count());
    assert!(diff.matches("\n@@ ").count() > 10, "several hunks");
    for i in [0, 75, 149] {
        assert!(diff.contains(&format!("-hook  rule-{i} on ")), "rule {i}");
        assert!(
            diff.contains(&format!("+    abort \"no {i}\"\n")),
            "rule {i}"
        );
    }
    assert!(!diff.contains('…'), "nothing is left out");
    // The human diff escapes the CR; unescaped, it is the exact diff.
    assert!(
        diff.contains("-# note 140.7\\u{d}\n"),
        "the CRLF line is shown"
    );
    assert_eq!(
        apply(&text, &diff.replace("\\u{d}", "\r")),
        formatted.stdout
    );

    // JSON: the same diff, unescaped.
    let run = hookc(
        &["fmt", "--check", "--format", "json", file.to_str().unwrap()],
        None,
    );
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["check"], true);
    assert_eq!(v["changed"], 1);
    let entry = &v["files"][0];
    assert_eq!(entry["file"], file.to_str().unwrap());
    assert_eq!(entry["changed"], true);
    assert_eq!(entry["error"], serde_json::Value::Null);
    let json_diff = entry["diff"].as_str().unwrap();
    assert_eq!(json_diff.replace('\r', "\\u{d}"), diff);
    assert_eq!(apply(&text, json_diff), formatted.stdout);
    // Nothing was written.
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
}

/// `--format json` without `--check` says which files it rewrote, with what
/// diff; for stdin, the formatted text; a file that does not parse has its
/// error and the diagnostics.
#[test]
fn cli_json_reports_every_file() {
    let dir = tmp_dir("json");
    std::fs::write(dir.join("a.hooks"), "list  l = [1]\n").unwrap();
    std::fs::write(dir.join("b.hooks"), "list l = [1]\n").unwrap();
    std::fs::write(dir.join("c.hooks"), "hook {\n").unwrap();
    let run = hookc(&["fmt", "--format", "json", dir.to_str().unwrap()], None);
    assert_eq!(run.code, Some(2), "c.hooks does not parse: {}", run.stderr);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["check"], false);
    assert_eq!(v["changed"], 1);
    let files = v["files"].as_array().unwrap();
    assert_eq!(files.len(), 3);
    assert_eq!(files[0]["changed"], true);
    assert_eq!(
        files[0]["diff"],
        format!(
            "--- {0}\n+++ {0} (formatted)\n@@ -1 +1 @@\n-list  l = [1]\n+list l = [1]\n",
            dir.join("a.hooks").display()
        )
    );
    assert_eq!(files[1]["changed"], false);
    assert_eq!(files[1]["diff"], serde_json::Value::Null);
    assert!(
        files[2]["error"]
            .as_str()
            .unwrap()
            .contains("does not parse"),
        "{}",
        files[2]
    );
    assert_eq!(v["diagnostics"]["errors"], 1);
    assert_eq!(v["diagnostics"]["diagnostics"][0]["code"], "syntax");
    assert_eq!(
        std::fs::read_to_string(dir.join("a.hooks")).unwrap(),
        "list l = [1]\n"
    );

    let run = hookc(&["fmt", "--format", "json", "-"], Some("list  l = [2]"));
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["files"][0]["file"], "<stdin>");
    assert_eq!(v["files"][0]["formatted"], "list l = [2]\n");
    assert_eq!(v["files"][0]["changed"], true);
}

#[test]
fn cli_unparsable_input_exits_2_and_is_left_alone() {
    let dir = tmp_dir("bad");
    let bad = dir.join("bad.hooks");
    let good = dir.join("good.hooks");
    std::fs::write(&bad, "hook a on tool.pre_execute {\n    when\n}\n").unwrap();
    std::fs::write(&good, "list  l = [1]\n").unwrap();
    let run = hookc(&["fmt", &dir.display().to_string()], None);
    assert_eq!(run.code, Some(2));
    assert!(run.stderr.contains("error[syntax]"), "{}", run.stderr);
    assert!(run.stderr.contains("was not formatted"), "{}", run.stderr);
    // The other file is formatted all the same.
    assert_eq!(std::fs::read_to_string(&good).unwrap(), "list l = [1]\n");
    assert_eq!(
        std::fs::read_to_string(&bad).unwrap(),
        "hook a on tool.pre_execute {\n    when\n}\n"
    );
    let run = hookc(&["fmt", "--check", "-"], Some("hook {"));
    assert_eq!(run.code, Some(2));
    let run = hookc(&["fmt", "no/such/file.hooks"], None);
    assert_eq!(run.code, Some(2));
    assert!(run.stderr.contains("cannot read"), "{}", run.stderr);
}

#[test]
fn cli_shipped_rules_pass_the_check() {
    let run = hookc(&["fmt", "--check", "rules/"], None);
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
}

// ---------------------------------------------------------------- properties

/// A token stream joined by random separators (blanks, line breaks,
/// comments): every place between two tokens may hold trivia.
#[derive(Clone, Debug)]
struct Toks(Vec<String>);

impl Toks {
    fn join(&self, seps: &[Sep]) -> String {
        let mut out = String::new();
        for (i, t) in self.0.iter().enumerate() {
            if i > 0 {
                out.push_str(&seps[i % seps.len()].text(i));
            }
            out.push_str(t);
        }
        out
    }
}

#[derive(Clone, Copy, Debug)]
enum Sep {
    Space,
    Spaces,
    Tab,
    Newline,
    Blank,
    Comment,
}

impl Sep {
    fn text(self, i: usize) -> String {
        match self {
            Sep::Space => " ".into(),
            Sep::Spaces => "   ".into(),
            Sep::Tab => "\t".into(),
            Sep::Newline => "\n  ".into(),
            Sep::Blank => "\n\n\n".into(),
            Sep::Comment => format!(" #c{i} \"q\" # /x/ {{\n"),
        }
    }
}

fn sep() -> impl Strategy<Value = Sep> {
    prop_oneof![
        6 => Just(Sep::Space),
        1 => Just(Sep::Spaces),
        1 => Just(Sep::Tab),
        2 => Just(Sep::Newline),
        1 => Just(Sep::Blank),
        1 => Just(Sep::Comment),
    ]
}

/// A string literal with random escapes (no braces: action strings are
/// templates).
fn string() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("a".to_string()),
        Just("rm -rf".to_string()),
        Just(" ".to_string()),
        Just("\\\"".to_string()),
        Just("\\\\".to_string()),
        Just("\\n".to_string()),
        Just("\\t".to_string()),
        Just("\\/".to_string()),
        Just("/".to_string()),
        Just("é".to_string()),
        Just("\\u00e9".to_string()),
        Just("\\u0007".to_string()),
        Just("\\u202e".to_string()),
        Just("\u{202e}".to_string()),
        Just("\u{1b}".to_string()),
        Just("#".to_string()),
    ];
    prop::collection::vec(piece, 0..5).prop_map(|p| format!("\"{}\"", p.concat()))
}

fn field() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("payload.n".to_string()),
        Just("payload.m".to_string()),
        Just("payload.s".to_string()),
        Just("payload[\"s\"]".to_string()),
        Just("payload.a.b[0]".to_string()),
        Just("metadata.k".to_string()),
    ]
}

/// An integer expression, as tokens.
fn arith() -> impl Strategy<Value = Vec<String>> {
    let leaf = prop_oneof![
        field().prop_map(|f| vec![f]),
        (0i64..100).prop_map(|n| vec![n.to_string()]),
        (1i64..100).prop_map(|n| vec!["-".to_string(), n.to_string()]),
    ];
    leaf.prop_recursive(3, 12, 2, |inner| {
        prop_oneof![
            (
                inner.clone(),
                prop::sample::select(vec!["+", "-", "*", "&", "|", "^", "<<", "%"]),
                inner.clone()
            )
                .prop_map(|(a, op, b)| [a, vec![op.to_string()], b].concat()),
            inner
                .clone()
                .prop_map(|a| [vec!["(".to_string()], a, vec![")".to_string()]].concat()),
            inner.prop_map(|a| [
                vec!["~".to_string(), "(".to_string()],
                a,
                vec![")".to_string()]
            ]
            .concat()),
        ]
    })
}

/// A boolean expression, as tokens.
fn cond() -> impl Strategy<Value = Vec<String>> {
    let leaf = prop_oneof![
        (
            arith(),
            prop::sample::select(vec!["==", "!=", "<", "<=", ">", ">="]),
            arith()
        )
            .prop_map(|(a, op, b)| [a, vec![op.to_string()], b].concat()),
        (field(), string()).prop_map(|(f, s)| vec![f, "contains".into(), s]),
        (field(), string()).prop_map(|(f, s)| vec![f, "starts_with".into(), s]),
        (field(), string(), string()).prop_map(|(f, a, b)| vec![
            f,
            "in".into(),
            "[".into(),
            a,
            ",".into(),
            b,
            "]".into()
        ]),
        (field(), string()).prop_map(|(f, a)| vec![
            f,
            "not".into(),
            "in".into(),
            "[".into(),
            a,
            ",".into(),
            "]".into()
        ]),
        field().prop_map(|f| vec![f, "contains".into(), "any".into(), "bad".into()]),
        field().prop_map(|f| vec![f, "matches".into(), "/a\\/b+|[0-9]{2}/i".into()]),
        field().prop_map(|f| vec![f, "matches".into(), "secret".into()]),
        field().prop_map(|f| vec![f, "glob".into(), "\"src/**\"".into()]),
        field().prop_map(|f| vec![f, "exists".into()]),
        Just(vec!["is_big".to_string()]),
    ];
    leaf.prop_recursive(3, 16, 2, |inner| {
        prop_oneof![
            (
                inner.clone(),
                prop::sample::select(vec!["and", "or"]),
                inner.clone()
            )
                .prop_map(|(a, op, b)| [a, vec![op.to_string()], b].concat()),
            inner.clone().prop_map(|a| [
                vec!["not".to_string(), "(".to_string()],
                a,
                vec![")".to_string()]
            ]
            .concat()),
            inner.prop_map(|a| [vec!["(".to_string()], a, vec![")".to_string()]].concat()),
        ]
    })
}

fn action() -> impl Strategy<Value = Vec<String>> {
    prop_oneof![
        string().prop_map(|s| vec!["abort".into(), s]),
        string().prop_map(|s| vec!["deny".into(), s]),
        Just(vec!["continue".to_string()]),
        Just(vec!["allow".to_string()]),
        string().prop_map(|s| vec!["ask".into(), s]),
        arith().prop_map(|a| [vec!["set".to_string(), "payload.n".into(), "=".into()], a].concat()),
        Just(vec!["unset".to_string(), "payload.m".into()]),
        string().prop_map(|s| vec![
            "rewrite".into(),
            "payload.s".into(),
            "/a+/".into(),
            "->".into(),
            s
        ]),
        string().prop_map(|s| vec!["append".into(), "payload.s".into(), s]),
        string().prop_map(|s| vec!["log".into(), "info".into(), s]),
        arith().prop_map(|a| [
            vec!["meta".to_string(), "\"reviewed-by\"".into(), "=".into()],
            a
        ]
        .concat()),
        Just(vec![
            "skip".to_string(),
            "{".into(),
            "\"skipped\"".into(),
            ":".into(),
            "true".into(),
            ",".into(),
            "\"v\"".into(),
            ":".into(),
            "[".into(),
            "1".into(),
            ",".into(),
            "2.5".into(),
            "]".into(),
            "}".into()
        ]),
        string().prop_map(|s| vec!["context".into(), s]),
    ]
}

fn option() -> impl Strategy<Value = Vec<String>> {
    prop_oneof![
        (-5i64..200).prop_map(|n| vec!["priority".into(), n.to_string()]),
        Just(vec!["fail".to_string(), "closed".into()]),
        Just(vec!["fail".to_string(), "open".into()]),
        Just(vec!["timeout".to_string(), "5000ms".into()]),
        Just(vec!["timeout".to_string(), "1500ms".into()]),
        Just(vec!["disabled".to_string()]),
    ]
}

fn hook(id: usize) -> impl Strategy<Value = Vec<String>> {
    (
        prop::sample::select(vec![
            vec!["tool.pre_execute"],
            vec!["request.pre_dispatch"],
            vec!["tool.pre_execute", "request.pre_dispatch"],
        ]),
        prop::sample::select(vec![
            None,
            Some("*::*"),
            Some("builtin::*"),
            Some("\"builtin::llm\""),
            Some("lua::c#main"),
        ]),
        prop::collection::vec(option(), 0..3),
        prop::collection::vec((any::<bool>(), cond()), 0..3),
        prop::collection::vec(action(), 0..3),
    )
        .prop_map(move |(points, target, options, conds, actions)| {
            let mut t = vec!["hook".to_string(), format!("rule-{id}"), "on".into()];
            for (i, p) in points.iter().enumerate() {
                if i > 0 {
                    t.push(",".into());
                }
                t.push((*p).into());
            }
            if let Some(target) = target {
                t.push("at".into());
                t.push(target.into());
            }
            // One option of each kind (a repeat is an error).
            let mut seen = Vec::new();
            for o in options {
                if !seen.contains(&o[0]) {
                    seen.push(o[0].clone());
                    t.extend(o);
                }
            }
            t.push("{".into());
            for (unless, c) in conds {
                t.push(if unless { "unless" } else { "when" }.into());
                t.extend(c);
            }
            for a in actions {
                t.extend(a);
            }
            t.push("}".into());
            t
        })
}

fn test_block(id: usize) -> impl Strategy<Value = Vec<String>> {
    (cond(), any::<bool>()).prop_map(move |(c, with_target)| {
        let mut t: Vec<String> = [
            "test",
            &format!("\"t{id}\""),
            "{",
            "event",
            "{",
            "\"hook_point\"",
            ":",
            "\"tool.pre_execute\"",
            ",",
            "\"component_id\"",
            ":",
            "\"builtin::llm\"",
            ",",
            "\"payload\"",
            ":",
            "{",
            "\"n\"",
            ":",
            "8",
            ",",
            "\"s\"",
            ":",
            "\"a\\/b\"",
            "}",
            "}",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        if with_target {
            t.extend(["target".to_string(), "\"builtin::llm/c#i\"".into()]);
        }
        t.extend([
            "expect".to_string(),
            "fired".into(),
            "[".into(),
            "\"rule-0\"".into(),
            "]".into(),
        ]);
        t.extend(["expect".to_string(), "decision".into(), "deny".into()]);
        t.extend(["expect".to_string(), "skip".into()]);
        t.push("expect".into());
        t.extend(c);
        t.push("}".into());
        t
    })
}

/// A whole file as items of tokens.
fn file() -> impl Strategy<Value = Vec<Vec<String>>> {
    (
        prop::collection::vec(string(), 0..4),
        cond(),
        prop::collection::vec(0usize..1, 1..4),
        any::<bool>(),
    )
        .prop_flat_map(|(bad, big, hooks, with_test)| {
            let n = hooks.len();
            let hooks: Vec<_> = (0..n).map(hook).collect();
            let tests = if with_test {
                vec![test_block(0)]
            } else {
                Vec::new()
            };
            (Just(bad), Just(big), hooks, tests)
        })
        .prop_map(|(bad, big, hooks, tests)| {
            let mut items = vec![vec!["schema".to_string(), "orcs".into()]];
            let mut list = vec!["list".to_string(), "bad".into(), "=".into(), "[".into()];
            for s in bad {
                list.push(s);
                list.push(",".into());
            }
            list.push("]".into());
            items.push(list);
            items.push(vec![
                "pattern".into(),
                "secret".into(),
                "=".into(),
                "/AKIA[0-9A-Z]{4}|x\\/y/".into(),
            ]);
            items.push([vec!["macro".to_string(), "is_big".into(), "=".into()], big].concat());
            items.extend(hooks);
            items.extend(tests);
            items
        })
}

/// Items joined with random trivia; items start on their own line.
fn layout() -> impl Strategy<Value = String> {
    (file(), prop::collection::vec(sep(), 1..40), any::<bool>()).prop_map(|(items, seps, crlf)| {
        let mut out = String::new();
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                out.push_str(if i % 2 == 0 { "\n" } else { "\n\n # between\n" });
            }
            out.push_str(&Toks(item.clone()).join(&seps));
        }
        if crlf {
            out = out.replace('\n', "\r\n");
        }
        out
    })
}

/// Separators without comments or blank lines: layouts that must all format
/// the same.
fn plain_sep() -> impl Strategy<Value = Sep> {
    prop_oneof![
        4 => Just(Sep::Space),
        1 => Just(Sep::Spaces),
        1 => Just(Sep::Tab),
        2 => Just(Sep::Newline),
    ]
}

/// One file laid out twice.
fn two_layouts() -> impl Strategy<Value = (String, String)> {
    (
        file(),
        prop::collection::vec(plain_sep(), 1..40),
        prop::collection::vec(plain_sep(), 1..40),
    )
        .prop_map(|(items, a, b)| {
            let join = |seps: &[Sep]| {
                items
                    .iter()
                    .map(|item| Toks(item.clone()).join(seps))
                    .collect::<Vec<_>>()
                    .join("\n")
            };
            (join(&a), join(&b))
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn fmt_is_idempotent_keeps_comments_and_compiles_the_same(text in layout()) {
        let (_, diags) = syntax::parse(&SourceFile::new("gen.hooks", text.as_str()));
        prop_assert!(!diags.has_errors(), "the generator wrote invalid syntax:\n{}\n{text}", hookc::diag::render::human(&diags, false));
        let out = check_formatting("gen.hooks", &text);
        let a = program("gen.hooks", &text);
        let b = program("gen.hooks", &out);
        prop_assert_eq!(a.is_ok(), b.is_ok(), "compiles differently:\n{}\n---\n{}", text, out);
        if let (Ok(a), Ok(b)) = (&a, &b) {
            prop_assert_eq!(a, b, "programs differ:\n{}\n---\n{}", text, out);
        }
        if let (Err(a), Err(b)) = (&a, &b) {
            prop_assert_eq!(a, b, "diagnostic counts differ");
        }
    }

    #[test]
    fn the_layout_does_not_depend_on_the_input_layout((a, b) in two_layouts()) {
        prop_assert_eq!(fmt_text("a.hooks", &a), fmt_text("b.hooks", &b));
    }
}
