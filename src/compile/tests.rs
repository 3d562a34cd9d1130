//! Compiler limits: each exceeded with an error that points at a rule.

use crate::span::SourceFile;
use crate::Options;

fn limit_error(text: &str, options: Options) -> crate::diag::Diagnostic {
    let err = crate::compile_sources(vec![SourceFile::new("t.hooks", text)], &options).unwrap_err();
    let found: Vec<_> = err.iter().filter(|d| d.code == "limit").collect();
    assert_eq!(found.len(), 1, "{err}");
    found[0].clone()
}

#[test]
fn too_many_rules_on_a_point() {
    let text: String = (0..5)
        .map(|i| format!("hook r{i} on tool.pre_execute {{ continue }}\n"))
        .collect();
    let d = limit_error(
        &text,
        Options {
            max_rules_per_point: 3,
            ..Options::default()
        },
    );
    assert_eq!(
        d.message,
        "point `tool.pre_execute` has 5 rules, more than the limit of 3"
    );
    assert_eq!(
        d.location().unwrap().1,
        4,
        "points at the first rule over the limit"
    );
    assert!(crate::compile_sources(
        vec![SourceFile::new("t.hooks", text)],
        &Options {
            max_rules_per_point: 5,
            ..Options::default()
        }
    )
    .is_ok());
}

#[test]
fn dfa_over_the_size_limit() {
    let text = "hook small on tool.pre_execute { when payload.x matches /a/ abort }\nhook big on tool.pre_execute { when payload.x matches /[a-z]{30}[0-9]{30}/ abort }";
    let d = limit_error(
        text,
        Options {
            dfa_size_limit: 1000,
            ..Options::default()
        },
    );
    assert!(d.message.contains("the regexes on `payload.x` at `tool.pre_execute` need a DFA larger than the limit of 1000 bytes"), "{}", d.message);
    assert_eq!(d.location().unwrap().1, 1);
}

#[test]
fn template_over_the_length_limit() {
    let text = format!("hook ok on tool.pre_execute {{ abort \"short\" }}\nhook long on tool.pre_execute {{ abort \"{}\" }}", "x".repeat(100));
    let d = limit_error(
        &text,
        Options {
            max_template_len: 50,
            ..Options::default()
        },
    );
    assert_eq!(
        d.message,
        "rule `long` has a template of 100 bytes, over the limit of 50"
    );
    assert_eq!(d.location().unwrap().1, 2);
}

#[test]
fn identical_atoms_are_shared_and_triggers_chosen() {
    let compiled = crate::compile_str(
        "t.hooks",
        r#"
        hook a on tool.pre_execute { when payload.tool == "exec" and payload.args matches /rm/ abort }
        hook b on tool.pre_execute { when payload.tool == "exec" and payload.args matches /mkfs/ abort }
        hook c on tool.pre_execute { when payload.tool == "exec" abort }
        hook d on tool.pre_execute { when payload.n > 3 abort }
        hook e on tool.pre_execute { when payload.n < 9 and payload.args contains "x" abort }
        "#,
    )
    .unwrap();
    let point = compiled.table.point("tool.pre_execute").unwrap();
    assert_eq!(
        point.atoms.len(),
        6,
        "`payload.tool == \"exec\"` is one atom"
    );
    // The rarer regex atoms trigger `a` and `b`; `c` only has the shared
    // equality; `d` has only a comparison, never a trigger, and is a
    // candidate for every event; `e` is found by its substring, though its
    // comparison comes first and is as rare.
    let trigger = |i: usize| point.rules[i].trigger.map(|a| &point.atoms[a as usize]);
    assert!(matches!(trigger(0), Some(crate::ir::Atom::Matches(..))));
    assert!(matches!(trigger(1), Some(crate::ir::Atom::Matches(..))));
    assert!(matches!(trigger(2), Some(crate::ir::Atom::Eq(..))));
    assert_eq!(trigger(3), None);
    assert!(matches!(trigger(4), Some(crate::ir::Atom::Contains(..))));
    assert_eq!(point.index.any.untriggered, [3]);
    let fields: Vec<String> = point.fields.iter().map(|f| f.path.to_string()).collect();
    assert_eq!(
        fields,
        ["payload.args", "payload.n", "payload.tool"],
        "the comparisons' field is read once for all of them"
    );
    let n = &point.fields[1];
    assert_eq!(n.bulk.len(), 2);
    assert!(n.bulk.iter().all(|&a| point.atom_field[a as usize] == 1));
    assert_eq!(
        point.fields[0].dfa_atoms.len(),
        2,
        "both regexes in one DFA"
    );
}

/// A regex an expression matches (inside a quantifier over a shell view)
/// gets a DFA of its own, which decides as the regex engine does, also
/// where the DFA must give up (a Unicode word boundary on non-ASCII text).
#[test]
fn regexes_in_expressions_get_a_dfa_that_decides_as_the_regex() {
    let text = r#"hook py on tool.pre_execute {
    when any c in shell(payload.args): c.program matches /^python[0-9.]*$/ or c.args contains "x"
    deny "py"
}
hook word on tool.pre_execute {
    when any c in shell(payload.args): (any a in c.args: a matches /\bnaïve\b/)
    deny "word"
}
"#;
    let table = crate::compile_str("t.hooks", text).unwrap().table;
    let program = table.program();
    assert_eq!(program.regex_dfas.len(), program.regexes.len());
    assert!(program.regex_dfas.iter().all(|&d| d != crate::ir::NO_DFA));
    // The same program without the DFAs: the regex engine alone.
    let mut lazy = program.clone();
    lazy.regex_dfas.clear();
    let lazy = crate::Table::from_program(lazy).unwrap();
    for args in [
        "python3 -c 1",
        "sudo python3.12 x",
        "pythonista",
        "echo python",
        "cat naïve.txt",
        "cat naïveté",
        "grep 'a naïve b'",
    ] {
        let decide = |t: &crate::Table| {
            let mut ctx = crate::HookContext::new(
                "tool.pre_execute",
                "a::b",
                serde_json::json!({ "args": args }),
            );
            t.dispatch_context(&mut ctx).reason
        };
        assert_eq!(decide(&table), decide(&lazy), "{args}");
    }
}

/// A regex an expression matches whose dense DFA passes the pattern
/// budget (Unicode classes under `(?i)`: 86 KB dense) is stored in sparse
/// form (11 KB), so a hook process validates a few KB instead of compiling
/// the regex; with a budget the sparse form passes too, it gets no DFA and
/// the regex engine decides. Both decide as the regex does.
#[test]
fn an_expression_regex_over_the_budget_when_dense_is_stored_sparse() {
    let text = r#"pattern protected = /
    (^|[\/=]) (\.hookc|hookc~[0-9]+) (\/|$)
  | (^|[\/=]) (\.claude|claude~[0-9]+) \/ (settings[^\/]*\.json|settin~[0-9]+\.jso)$
/xi
hook p on tool.pre_execute {
    when any c in shell(payload.args): (any a in c.args: a matches protected)
    deny "p"
}
"#;
    let compile = |budget: usize| {
        let options = Options {
            pattern_dfa_budget: budget,
            ..Options::default()
        };
        crate::compile_sources(vec![SourceFile::new("t.hooks", text)], &options)
            .unwrap()
            .table
    };
    let default = Options::default().pattern_dfa_budget;
    let sparse = compile(default);
    let section = sparse.program().regex_dfas[0];
    assert_ne!(
        section,
        crate::ir::NO_DFA,
        "the sparse form fits the budget"
    );
    let size = sparse.dfa_sizes()[section as usize];
    assert!(
        size <= default,
        "{size} bytes stored, over the {default} budget"
    );
    let none = compile(4 << 10);
    assert_eq!(none.program().regex_dfas, [crate::ir::NO_DFA]);
    for args in [
        "cat .claude/settings.json",
        "cp x .CLAUDE/Settings.local.json",
        "echo .claude/settings.json.bak",
        "vi .hookc/guards.hooks",
        "ls HOOKC~1/",
        "cat claude/settings.json",
        "cat été/.claude/settings-é.json",
    ] {
        let decide = |t: &crate::Table| {
            let mut ctx = crate::HookContext::new(
                "tool.pre_execute",
                "a::b",
                serde_json::json!({ "args": args }),
            );
            t.dispatch_context(&mut ctx).fired
        };
        assert_eq!(decide(&sparse), decide(&none), "{args}");
    }
    let deny = |t: &crate::Table, args: &str| {
        let mut ctx = crate::HookContext::new(
            "tool.pre_execute",
            "a::b",
            serde_json::json!({ "args": args }),
        );
        t.dispatch_context(&mut ctx).fired == ["p"]
    };
    assert!(deny(&sparse, "cat .claude/settings.json"));
    assert!(!deny(&sparse, "cat claude/settings.json"));
}

/// `lower(f) == "c"` and its kin compile to a regex on the field, decided
/// by the field's automaton; they decide as the lower-cased comparison
/// would (`tests/it/bindings.rs` compares the two on generated text).
#[test]
fn lower_case_comparisons_compile_into_the_field_automaton() {
    let cases = [
        (
            r#"lower(payload.x) == "rm""#,
            vec![("RM", true), ("rm", true), ("rmdir", false), ("", false)],
        ),
        (
            r#"lower(payload.x) in ["psql", "mysql"]"#,
            vec![("MySQL", true), ("psql2", false)],
        ),
        (
            r#"lower(payload.x) contains "drop table""#,
            vec![("a DROP TABLE b", true), ("drop  table", false)],
        ),
        (
            r#"lower(payload.x) contains any ["a.b", "c*"]"#,
            vec![("xA.By", true), ("axb", false), ("C*", true)],
        ),
        (
            r#"lower(payload.x) starts_with "git ""#,
            vec![("Git push", true), (" git", false)],
        ),
        (
            r#"lower(payload.x) ends_with ".env""#,
            vec![("a.ENV", true), ("a.env.x", false)],
        ),
        (
            r#"lower(payload.x) in ["less", "kill"]"#,
            vec![("Less", true), ("le\u{17F}s", false), ("\u{212A}ILL", true)],
        ),
    ];
    for (cond, events) in cases {
        let text = format!("hook h on tool.pre_execute {{ when {cond} deny }}");
        let table = crate::compile_str("t.hooks", &text).unwrap().table;
        let point = &table.program().points[0];
        assert!(
            point.fields.iter().any(|f| f.dfa.is_some()),
            "{cond}: not in a field automaton"
        );
        assert!(
            table.program().regexes.iter().all(|r| r.flags.is_empty()),
            "{cond}: not a case-insensitive regex (case folding is not lower-casing)"
        );
        for (value, fires) in events {
            let mut ctx = crate::HookContext::new(
                "tool.pre_execute",
                "a::b",
                serde_json::json!({ "x": value }),
            );
            let report = table.dispatch_context(&mut ctx);
            assert_eq!(report.fired == ["h"], fires, "{cond} on {value:?}");
        }
    }
    // Left as written: a constant in the other case (never equal), a
    // non-ASCII one, and `upper` (`ﬁ` upper-cases to `FI`).
    for cond in [
        r#"lower(payload.x) == "Rm""#,
        r#"lower(payload.x) == "é""#,
        r#"upper(payload.x) starts_with "FI""#,
    ] {
        let text = format!("hook h on tool.pre_execute {{ when {cond} deny }}");
        let table = crate::compile_str("t.hooks", &text).unwrap().table;
        assert!(table.program().regexes.is_empty(), "{cond}");
    }
}

#[test]
fn a_rule_on_two_points_is_one_rule_and_two_entries() {
    let table = crate::compile_str(
        "t.hooks",
        "hook a on tool.pre_execute, tool.post_execute { continue }\nhook b on tool.pre_execute { continue }",
    )
    .unwrap()
    .table;
    assert_eq!(table.rule_count(), 2);
    assert_eq!(table.rule_entries(), 3);
}

/// The literals each regex needs are read from the tree the checker
/// parsed, with the regex's flags set on the parser; they are the ones a
/// parse of the regex with its flags written inline finds, for every regex
/// of the shipped pack and for flags of every kind.
#[test]
fn a_regex_needs_what_its_inline_form_needs() {
    let pack = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("rules/claude-code");
    let compiled = crate::compile_paths(&[pack], &Options::default()).unwrap();
    let flags = crate::compile_str(
        "flags.hooks",
        r#"
hook flagged on tool.pre_execute {
    when payload.args matches /(?-i)Curl | wget/ix or payload.args matches /a.ssh_key/s
        or payload.args matches /^token=\w+$/m or payload.args matches /x+?password/U
    abort "flagged"
}
"#,
    )
    .unwrap();
    let mut needing = 0;
    for table in [&compiled.table, &flags.table] {
        let program = table.program();
        assert_eq!(program.regex_needs.len(), program.regexes.len());
        for (regex, needs) in program.regexes.iter().zip(&program.regex_needs) {
            let inline = crate::check::typeck::needs::needs(&regex.to_inline());
            assert_eq!(needs, &inline, "{}", regex.to_inline());
            needing += usize::from(!needs.is_empty());
        }
    }
    assert!(needing > 10, "only {needing} regexes need a literal");
}

/// Each atom of a rule's condition records where it is written: across
/// `when` lines, inside an `and`, in an `unless` line, and in a macro's
/// body, in the order the compiled condition reads them.
#[test]
fn each_atom_of_a_condition_points_at_its_own_text() {
    let text = "\
macro risky = payload.cmd contains \"rm\" or payload.cmd contains \"mv\"
hook r on tool.pre_execute {
    when payload.tool == \"exec\" and risky
    unless payload.cmd contains \"--dry-run\"
    when payload.size > 3
    abort \"no\"
}
";
    let compiled = crate::compile_str("t.hooks", text).expect("compiles");
    let rule = &compiled.table.program().points[0].rules[0];
    let at: Vec<(u32, u32)> = rule.cond_origins.iter().map(|o| (o.line, o.col)).collect();
    assert_eq!(
        at,
        [(3, 10), (1, 15), (1, 44), (4, 12), (5, 10)],
        "{:?}",
        rule.cond
    );
}

/// The files a compile says its rules come from are those the table's
/// rules name as their origins, each once, for the shipped rule sets
/// (several files, imports, rules on several points).
#[test]
fn a_compile_names_the_files_its_rules_come_from() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for set in [
        vec![root.join("rules")],
        vec![root.join("rules/claude-code")],
        vec![root.join("rules"), root.join("rules/audit-trail")],
    ] {
        let compiled = crate::compile_paths(&set, &Options::default()).unwrap();
        let program = compiled.table.program();
        let mut from_table: Vec<&str> = program
            .points
            .iter()
            .flat_map(|p| &p.rules)
            .filter_map(|r| program.files.get(r.origin.file as usize))
            .map(String::as_str)
            .collect();
        from_table.sort_unstable();
        from_table.dedup();
        let mut named: Vec<&str> = compiled.rule_files().iter().map(String::as_str).collect();
        let declared = named.len();
        named.sort_unstable();
        named.dedup();
        assert_eq!(named.len(), declared, "each once: {set:?}");
        assert_eq!(named, from_table, "{set:?}");
        assert!(!named.is_empty());
    }
}

/// What a compile is done with is freed at once, freed on another thread,
/// or left for the process's end, as its caller asked.
#[test]
fn leftovers_are_released_as_asked() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    struct Counted(Arc<AtomicUsize>);
    impl Drop for Counted {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
    let dropped = Arc::new(AtomicUsize::new(0));
    let large = super::DROP_ASIDE_RULES;
    super::Leftovers::Free.release(Counted(dropped.clone()), large);
    assert_eq!(dropped.load(Ordering::SeqCst), 1, "freed before returning");
    super::Leftovers::Leak.release(Counted(dropped.clone()), large - 1);
    assert_eq!(
        dropped.load(Ordering::SeqCst),
        2,
        "a small compile's, freed"
    );
    super::Leftovers::Leak.release(Counted(dropped.clone()), large);
    super::Leftovers::FreeAside.release(Counted(dropped.clone()), large);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while dropped.load(Ordering::SeqCst) < 3 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    assert_eq!(
        dropped.load(Ordering::SeqCst),
        3,
        "freed aside, the leak never"
    );
    assert_eq!(
        Arc::strong_count(&dropped),
        2,
        "the leaked one still holds its count"
    );
}
