//! What `hookc test` reports besides pass and fail: coverage (`--coverage`,
//! in the library as `TestRun::coverage`), a filter (`--run`), and the
//! JUnit XML of `--format junit`, checked by a small XML reader.

#![expect(
    clippy::unwrap_used,
    clippy::panic,
    reason = "tests fail loudly on purpose"
)]

use crate::common;
use common::Run;

use hookc::scenarios::{run_test_sources_as, run_tests_as, Coverage, Missed, TestRun};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn hookc(args: &[&str]) -> Run {
    common::hookc_in(root(), args, None)
}

const FIXTURE: &str = "tests/fixtures/rule_tests/coverage.hooks";

/// The coverage of the tests under `path` (relative to the crate).
fn coverage_of(path: &str) -> Coverage {
    // The pack's `trace` rule appends to a file in the project: one of the
    // test's own, not the checkout.
    let run = TestRun {
        coverage: true,
        project_dir: Some(tmp_dir(&format!("coverage-{}", path.replace('/', "-")))),
        ..TestRun::default()
    };
    let report = run_tests_as(&[root().join(path)], &hookc::Options::default(), &run)
        .unwrap_or_else(|d| panic!("{}", hookc::diag::render::human(&d, false)));
    for t in &report.tests {
        assert!(t.passed, "{}: {:?}", t.full_name(), t.failures);
    }
    report.coverage.unwrap()
}

fn tmp_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("test-reports")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

// ---------------------------------------------------------------- coverage

#[test]
fn coverage_names_the_rules_and_conditions_no_test_exercised() {
    let coverage = coverage_of(FIXTURE);
    assert_eq!(coverage.files.len(), 1);
    let file = &coverage.files[0];
    assert!(file.file.ends_with("coverage.hooks"), "{}", file.file);
    assert_eq!((file.rules.covered, file.rules.total), (1, 3));
    // block-deletes: the tool test, the `or`, its two operands; no-writes: its
    // two lines.
    assert_eq!((file.conditions.covered, file.conditions.total), (2, 6));
    let uncovered: Vec<&str> = file.uncovered_rules.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(uncovered, ["no-writes", "audit"], "block-deletes fired");
    assert_eq!(
        (file.uncovered_rules[0].line, file.uncovered_rules[0].col),
        (12, 1)
    );
    let missed: Vec<(&str, &str, u32, u32, Missed)> = file
        .uncovered_conditions
        .iter()
        .map(|c| {
            (
                c.rule.as_str(),
                c.condition.as_str(),
                c.line,
                c.col,
                c.missed,
            )
        })
        .collect();
    assert_eq!(
        missed,
        [
            (
                "block-deletes",
                "payload.tool == \"exec\"",
                7,
                10,
                Missed::NeverFalse
            ),
            (
                "block-deletes",
                "payload.args contains \"dd\"",
                8,
                40,
                Missed::NeverTrue
            ),
            (
                "no-writes",
                "payload.tool == \"write\"",
                13,
                10,
                Missed::NeverTrue
            ),
            // `and` stops at the false tool test: the `unless` line's turn
            // never came.
            (
                "no-writes",
                "not (payload.args starts_with \"/tmp/\")",
                14,
                12,
                Missed::NeverEvaluated
            ),
        ]
    );
    let dd = &file.uncovered_conditions[1];
    assert_eq!((dd.when_true, dd.when_false), (0, 1), "`or` stopped at rm");
    assert_eq!((coverage.rules.covered, coverage.rules.total), (1, 3));
}

/// Every `and`/`or` operand is a part, nested ones too; a `not` is one
/// part with its operand; a part's turn comes as the condition is read
/// left to right, stopping where `and` and `or` stop.
#[test]
fn nested_conditions_are_counted_part_by_part_with_short_circuits() {
    let source = r#"schema orcs
hook nested on tool.pre_execute {
    when payload.tool == "exec" and (payload.args contains "x" or not (payload.args contains "y" and payload.n > 1))
    unless payload.args == "skip" or payload.args == "pass"
    abort "n"
}
test "y" {
    event {"hook_point": "tool.pre_execute", "component_id": "builtin::llm", "payload": {"tool": "exec", "args": "y", "n": 2}}
    expect continue
}
"#;
    let run = TestRun {
        coverage: true,
        ..TestRun::default()
    };
    let report =
        run_test_sources_as(vec![hookc::span::SourceFile::new("n.hooks", source)], &run).unwrap();
    assert!(report.ok());
    let file = &report.coverage.unwrap().files[0];
    let parts: Vec<(&str, u32, usize, usize)> = file
        .uncovered_conditions
        .iter()
        .map(|c| (c.condition.as_str(), c.col, c.when_true, c.when_false))
        .collect();
    assert_eq!(
        parts,
        [
            ("payload.tool == \"exec\"", 10, 1, 0),
            (
                "payload.args contains \"x\" or not (payload.args contains \"y\" and payload.n > 1)",
                38,
                0,
                1
            ),
            ("payload.args contains \"x\"", 38, 0, 1),
            (
                "not (payload.args contains \"y\" and payload.n > 1)",
                72,
                0,
                1
            ),
            ("payload.args contains \"y\"", 72, 1, 0),
            ("payload.n > 1", 102, 1, 0),
            // The `or` was false, so the `and` of the lines stopped there.
            (
                "not (payload.args == \"skip\" or payload.args == \"pass\")",
                12,
                0,
                0
            ),
            ("payload.args == \"skip\"", 12, 0, 0),
            ("payload.args == \"pass\"", 38, 0, 0),
        ]
    );
}

#[test]
fn coverage_on_the_command_line_human_and_json() {
    let run = hookc(&["test", "--coverage", FIXTURE]);
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    for line in [
        "coverage:\n",
        "  tests/fixtures/rule_tests/coverage.hooks: rules 1/3 (33.3%), conditions 2/6 (33.3%)\n",
        "    tests/fixtures/rule_tests/coverage.hooks:12:1: rule `no-writes` never fired\n",
        "    tests/fixtures/rule_tests/coverage.hooks:18:1: rule `audit` never fired\n",
        "    tests/fixtures/rule_tests/coverage.hooks:7:10: `payload.tool == \"exec\"` never false (rule `block-deletes`)\n",
        "    tests/fixtures/rule_tests/coverage.hooks:14:12: `not (payload.args starts_with \"/tmp/\")` never evaluated (rule `no-writes`)\n",
        "  total: rules 1/3 (33.3%), conditions 2/6 (33.3%)\n",
    ] {
        assert!(run.stdout.contains(line), "no {line:?} in:\n{}", run.stdout);
    }
    assert!(!run.stdout.contains("rule `block-deletes` never fired"));
    // The summary stays last, as without coverage.
    assert!(
        run.stdout
            .ends_with("\ntest result: ok. 2 passed; 0 failed\n2 passed, 0 failed\n"),
        "{}",
        run.stdout
    );

    let run = hookc(&["test", "--coverage", "--format", "json", FIXTURE]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["passed"], 2);
    assert_eq!(v["filtered_out"], 0);
    let c = &v["coverage"];
    assert_eq!(c["rules"], serde_json::json!({"covered": 1, "total": 3}));
    assert_eq!(c["conditions"]["total"], 6);
    let file = &c["files"][0];
    assert_eq!(file["file"], FIXTURE);
    assert_eq!(file["uncovered_rules"][1]["id"], "audit");
    assert_eq!(file["uncovered_rules"][1]["enabled"], true);
    let cond = &file["uncovered_conditions"][3];
    assert_eq!(cond["rule"], "no-writes");
    assert_eq!(cond["missed"], "never_evaluated");
    assert_eq!(cond["true"], 0);
    assert_eq!(cond["false"], 0);
    assert_eq!(cond["line"], 14);

    // Without --coverage, none is computed.
    let run = hookc(&["test", "--format", "json", FIXTURE]);
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["coverage"], Value::Null);
    let run = hookc(&["test", FIXTURE]);
    assert!(!run.stdout.contains("coverage:"), "{}", run.stdout);
}

/// The shipped Claude Code pack: its tests and corpus make every rule
/// fire, and every part of every condition both true and false.
#[test]
fn the_claude_code_pack_is_covered_by_its_tests() {
    let coverage = coverage_of("rules/claude-code");
    let files: Vec<&str> = coverage.files.iter().map(|f| f.file.as_str()).collect();
    assert!(
        files.iter().any(|f| f.ends_with("guards.hooks")),
        "{files:?}"
    );
    assert!(coverage.rules.total >= 15, "{:?}", coverage.rules);
    for file in &coverage.files {
        assert!(
            file.uncovered_rules.is_empty(),
            "{}: {:?}",
            file.file,
            file.uncovered_rules
        );
        assert!(
            file.uncovered_conditions.is_empty(),
            "{}: {:#?}",
            file.file,
            file.uncovered_conditions
        );
    }
    assert!(coverage.rules.complete() && coverage.conditions.complete());
}

/// The shipped ORCS rules: every rule fires in a test.
#[test]
fn the_shipped_rules_fire_in_their_tests() {
    let coverage = coverage_of("rules");
    assert!(coverage.files.len() >= 4, "{:?}", coverage.files);
    for file in &coverage.files {
        assert!(file.rules.total > 0, "a file without rules is not listed");
        assert!(
            file.uncovered_rules.is_empty(),
            "{}: {:?}",
            file.file,
            file.uncovered_rules
        );
    }
    let run = hookc(&["test", "--coverage", "rules/"]);
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout
            .contains("  rules/guard.hooks: rules 2/2 (100.0%)"),
        "{}",
        run.stdout
    );
}

// ---------------------------------------------------------------- --run

#[test]
fn run_keeps_the_tests_whose_name_contains_the_filter() {
    let run = hookc(&["test", "--run", "ls go", FIXTURE]);
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("running 1 test\n"), "{}", run.stdout);
    assert!(run.stdout.contains("::ls goes on ... ok"), "{}", run.stdout);
    assert!(!run.stdout.contains("rm is blocked"), "{}", run.stdout);
    assert!(
        run.stdout.ends_with(
            "test result: ok. 1 passed; 0 failed; 1 filtered out\n1 passed, 0 failed, 1 filtered out\n"
        ),
        "{}",
        run.stdout
    );

    // The file's name is part of what the filter sees.
    let run = hookc(&[
        "test",
        "--run",
        "failing.hooks::wrong",
        "--format",
        "json",
        FIXTURE,
        "tests/fixtures/rule_tests/failing.hooks",
    ]);
    assert_eq!(run.code, Some(1), "two failing tests run: {}", run.stderr);
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    let names: Vec<&str> = v["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["wrong outcome and reason", "wrong final context"]);
    assert_eq!(v["filtered_out"], 3);

    // A filter that keeps no failing test: exit 0.
    let run = hookc(&[
        "test",
        "--run",
        "passes",
        "tests/fixtures/rule_tests/failing.hooks",
    ]);
    assert_eq!(run.code, Some(0), "{}", run.stdout);
    // One that keeps nothing runs nothing.
    let run = hookc(&["test", "--run", "no such test", FIXTURE]);
    assert_eq!(run.code, Some(0));
    assert!(run.stdout.contains("running 0 tests\n"), "{}", run.stdout);
    assert!(run.stdout.contains("2 filtered out"), "{}", run.stdout);
}

// ---------------------------------------------------------------- junit

#[test]
fn junit_is_well_formed_and_says_what_failed() {
    let run = hookc(&[
        "test",
        "--format",
        "junit",
        FIXTURE,
        "tests/fixtures/rule_tests/failing.hooks",
    ]);
    assert_eq!(
        run.code,
        Some(1),
        "exit codes do not change: {}",
        run.stderr
    );
    assert!(
        run.stdout
            .starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"),
        "{}",
        run.stdout
    );
    let doc = xml::parse(&run.stdout).unwrap_or_else(|e| panic!("{e}:\n{}", run.stdout));
    assert_eq!(doc.name, "testsuites");
    assert_eq!(doc.attr("tests"), Some("5"));
    assert_eq!(doc.attr("failures"), Some("2"));
    let suites: Vec<&xml::Element> = doc.children.iter().collect();
    assert_eq!(suites.len(), 2, "one suite per file");
    assert_eq!(suites[0].attr("name"), Some(FIXTURE));
    assert_eq!(suites[0].attr("tests"), Some("2"));
    assert_eq!(suites[0].attr("failures"), Some("0"));
    let failing = suites[1];
    assert_eq!(failing.attr("tests"), Some("3"));
    assert_eq!(failing.attr("failures"), Some("2"));
    let cases: Vec<(&str, bool)> = failing
        .children
        .iter()
        .map(|c| {
            assert_eq!(c.name, "testcase");
            (c.attr("name").unwrap(), !c.children.is_empty())
        })
        .collect();
    assert_eq!(
        cases,
        [
            ("passes", false),
            ("wrong outcome and reason", true),
            ("wrong final context", true)
        ]
    );
    let failure = &failing.children[1].children[0];
    assert_eq!(failure.name, "failure");
    assert_eq!(
        failure.attr("message"),
        Some("tests/fixtures/rule_tests/failing.hooks:28:5: expected `abort`, the outcome is `ask \"run `sudo ls` as root?\"`")
    );
    assert!(
        failure
            .text
            .contains("failing.hooks:31:5: expected decision `allow`, got `ask`"),
        "{}",
        failure.text
    );
    assert_eq!(failing.children[1].attr("line"), Some("26"));
}

#[test]
fn junit_escapes_names_and_messages() {
    let dir = tmp_dir("junit-escapes");
    let name = "a <b> & \"c\" 'd' \u{1b}[31m";
    std::fs::write(
        dir.join("odd & <name>.hooks"),
        format!(
            "schema orcs\nhook stop on tool.pre_execute {{\n    abort \"no <way> & \\\"never\\\"\"\n}}\ntest \"{}\" {{\n    event {{\"hook_point\": \"tool.pre_execute\", \"component_id\": \"builtin::llm\"}}\n    expect continue\n}}\n",
            name.replace('"', "\\\"").replace('\u{1b}', "\\u001b")
        ),
    )
    .unwrap();
    let run = common::hookc_in(&dir, &["test", "--format", "junit", "."], None);
    assert_eq!(run.code, Some(1), "{}{}", run.stdout, run.stderr);
    assert!(!run.stdout.contains('\u{1b}'), "no raw control character");
    let doc = xml::parse(&run.stdout).unwrap_or_else(|e| panic!("{e}:\n{}", run.stdout));
    let suite = &doc.children[0];
    assert_eq!(suite.attr("name"), Some("./odd & <name>.hooks"));
    let case = &suite.children[0];
    assert_eq!(case.attr("name"), Some("a <b> & \"c\" 'd' \\u{1b}[31m"));
    let failure = &case.children[0];
    assert!(
        failure
            .attr("message")
            .unwrap()
            .ends_with("expected `continue`, the outcome is `abort \"no <way> & \\\"never\\\"\"`"),
        "{:?}",
        failure.attr("message")
    );
}

#[test]
fn the_xml_reader_refuses_what_is_not_well_formed() {
    for bad in [
        "<a>",
        "<a></b>",
        "<a x=\"1\" x=\"2\"/>",
        "<a x=1/>",
        "<a>&nope;</a>",
        "<a>1 < 2</a>",
        "<a x=\"<\"/>",
        "<a/><b/>",
        "<a>\u{1}</a>",
        "text<a/>",
    ] {
        assert!(xml::parse(bad).is_err(), "{bad:?} was accepted");
    }
    let doc =
        xml::parse("<?xml version=\"1.0\"?>\n<a k='v &amp; &#60;'>x &lt; y<b/></a>\n").unwrap();
    assert_eq!(doc.attr("k"), Some("v & <"));
    assert_eq!(doc.text, "x < y");
    assert_eq!(doc.children[0].name, "b");
}

/// A small reader of well-formed XML (elements, attributes, text, the
/// predefined and numeric character references; no DTD, comments or
/// CDATA, which `hookc test --format junit` never writes).
mod xml {
    /// An element, its attributes and text unescaped.
    #[derive(Debug)]
    pub struct Element {
        pub name: String,
        pub attrs: Vec<(String, String)>,
        pub children: Vec<Element>,
        pub text: String,
    }

    impl Element {
        pub fn attr(&self, name: &str) -> Option<&str> {
            self.attrs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.as_str())
        }
    }

    struct Reader<'a> {
        rest: &'a str,
    }

    /// The root element of a document, or why it is not well-formed.
    pub fn parse(doc: &str) -> Result<Element, String> {
        if let Some(bad) = doc.chars().find(|&c| {
            !(c == '\t'
                || c == '\n'
                || c == '\r'
                || (c >= ' ' && c != '\u{fffe}' && c != '\u{ffff}'))
        }) {
            return Err(format!("character {bad:?} is not allowed in XML"));
        }
        let mut r = Reader { rest: doc };
        if r.rest.starts_with("<?xml") {
            let end = r.rest.find("?>").ok_or("unterminated declaration")?;
            r.rest = &r.rest[end + 2..];
        }
        r.skip_space();
        let root = r.element()?;
        r.skip_space();
        if !r.rest.is_empty() {
            return Err(format!("text after the root element: {:?}", r.rest));
        }
        Ok(root)
    }

    impl Reader<'_> {
        fn skip_space(&mut self) {
            self.rest = self.rest.trim_start_matches([' ', '\t', '\n', '\r']);
        }

        fn eat(&mut self, s: &str) -> bool {
            match self.rest.strip_prefix(s) {
                Some(rest) => {
                    self.rest = rest;
                    true
                }
                None => false,
            }
        }

        fn name(&mut self) -> Result<String, String> {
            let end = self
                .rest
                .find(|c: char| !(c.is_alphanumeric() || "_:.-".contains(c)))
                .unwrap_or(self.rest.len());
            let name = &self.rest[..end];
            if name.is_empty()
                || name.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '.')
            {
                return Err(format!("bad name at {:?}", self.rest));
            }
            self.rest = &self.rest[end..];
            Ok(name.to_string())
        }

        fn element(&mut self) -> Result<Element, String> {
            if !self.eat("<") {
                return Err(format!("expected an element at {:?}", self.rest));
            }
            let name = self.name()?;
            let mut attrs: Vec<(String, String)> = Vec::new();
            loop {
                let had_space = self.rest.starts_with([' ', '\t', '\n', '\r']);
                self.skip_space();
                if self.eat("/>") {
                    return Ok(Element {
                        name,
                        attrs,
                        children: Vec::new(),
                        text: String::new(),
                    });
                }
                if self.eat(">") {
                    break;
                }
                if !had_space {
                    return Err(format!("expected a space before {:?}", self.rest));
                }
                let key = self.name()?;
                self.skip_space();
                if !self.eat("=") {
                    return Err(format!("expected `=` after attribute `{key}`"));
                }
                self.skip_space();
                let quote = self
                    .rest
                    .chars()
                    .next()
                    .filter(|c| *c == '"' || *c == '\'')
                    .ok_or_else(|| format!("unquoted value of `{key}`"))?;
                self.rest = &self.rest[1..];
                let end = self.rest.find(quote).ok_or("unterminated attribute")?;
                let raw = &self.rest[..end];
                if raw.contains('<') {
                    return Err(format!("`<` in the value of `{key}`"));
                }
                let value = unescape(raw)?;
                self.rest = &self.rest[end + 1..];
                if attrs.iter().any(|(k, _)| *k == key) {
                    return Err(format!("attribute `{key}` twice"));
                }
                attrs.push((key, value));
            }
            let mut children = Vec::new();
            let mut text = String::new();
            loop {
                if self.eat("</") {
                    let close = self.name()?;
                    self.skip_space();
                    if close != name || !self.eat(">") {
                        return Err(format!("`<{name}>` closed by `</{close}`"));
                    }
                    return Ok(Element {
                        name,
                        attrs,
                        children,
                        text: text.trim().to_string(),
                    });
                }
                if self.rest.starts_with('<') {
                    children.push(self.element()?);
                    continue;
                }
                let end = self
                    .rest
                    .find('<')
                    .ok_or_else(|| format!("`<{name}>` is never closed"))?;
                text.push_str(&unescape(&self.rest[..end])?);
                self.rest = &self.rest[end..];
            }
        }
    }

    /// Character data with its references replaced.
    fn unescape(raw: &str) -> Result<String, String> {
        let mut out = String::new();
        let mut rest = raw;
        while let Some(at) = rest.find('&') {
            out.push_str(&rest[..at]);
            let end = rest[at..].find(';').ok_or("`&` without `;`")? + at;
            let entity = &rest[at + 1..end];
            let c = match entity {
                "amp" => '&',
                "lt" => '<',
                "gt" => '>',
                "quot" => '"',
                "apos" => '\'',
                _ => {
                    let code = if let Some(hex) = entity.strip_prefix("#x") {
                        u32::from_str_radix(hex, 16)
                    } else if let Some(dec) = entity.strip_prefix('#') {
                        dec.parse()
                    } else {
                        return Err(format!("unknown entity `&{entity};`"));
                    };
                    code.ok()
                        .and_then(char::from_u32)
                        .ok_or_else(|| format!("bad reference `&{entity};`"))?
                }
            };
            out.push(c);
            rest = &rest[end + 1..];
        }
        out.push_str(rest);
        Ok(out)
    }
}

/// `--coverage` suggests a test for each rule no test made fire, from its
/// witness event; pasted into the file, the test passes and the rule is
/// covered.
#[test]
fn coverage_suggests_a_test_for_each_rule_no_test_fired() {
    const SUGGEST: &str = "tests/fixtures/rule_tests/suggest.hooks";
    let run = hookc(&["test", "--coverage", "--format", "json", SUGGEST]);
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    let c = &v["coverage"];
    assert_eq!(c["rules"], serde_json::json!({"covered": 1, "total": 2}));
    let suggested = c["suggested"].as_array().unwrap();
    assert_eq!(suggested.len(), 1, "{suggested:?}");
    let s = &suggested[0];
    assert_eq!(s["rule"], "no-writes");
    assert_eq!(s["point"], "tool.pre_execute");
    assert_eq!(s["event"]["payload"]["tool"], "write");
    assert_eq!(s["fired"], serde_json::json!(["no-writes"]));
    assert_eq!(c["no_witness"], serde_json::json!([]));
    let test = s["test"].as_str().unwrap();
    assert!(
        test.starts_with("test \"no-writes fires\" {\n    event {\n"),
        "{test}"
    );
    assert!(
        test.ends_with("    expect fired [\"no-writes\"]\n}\n"),
        "{test}"
    );

    // The human output shows the same block, and none for `block-rm`.
    let human = hookc(&["test", "--coverage", SUGGEST]);
    assert_eq!(human.code, Some(0), "{}", human.stderr);
    assert!(
        human.stdout.contains(&format!("\n{test}")),
        "{}",
        human.stdout
    );
    assert!(!human.stdout.contains("block-rm fires"), "{}", human.stdout);

    // Pasted into the file, the test passes and the rule is covered.
    let dir = tmp_dir("suggest");
    let file = dir.join("suggest.hooks");
    let text = std::fs::read_to_string(root().join(SUGGEST)).unwrap();
    std::fs::write(&file, format!("{text}\n{test}")).unwrap();
    let run = common::hookc_in(
        &dir,
        &["test", "--coverage", "--format", "json", "suggest.hooks"],
        None,
    );
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["passed"], 2, "{}", run.stdout);
    assert_eq!(v["failed"], 0, "{}", run.stdout);
    let c = &v["coverage"];
    assert_eq!(c["rules"], serde_json::json!({"covered": 2, "total": 2}));
    assert_eq!(c["files"][0]["uncovered_rules"], serde_json::json!([]));
    assert_eq!(c["suggested"], serde_json::json!([]));
}

/// A rule no event can make fire gets no test: it is listed with its
/// witness verdict and the reason.
#[test]
fn coverage_lists_an_unreachable_rule_without_a_test() {
    let dir = tmp_dir("unreachable");
    std::fs::write(
        dir.join("never.hooks"),
        "schema orcs\n\nhook never on tool.pre_execute {\n    when payload.tool == \"a\" and payload.tool == \"b\"\n    abort \"never\"\n}\n",
    )
    .unwrap();
    let run = common::hookc_in(
        &dir,
        &["test", "--coverage", "--format", "json", "never.hooks"],
        None,
    );
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    let c = &v["coverage"];
    assert_eq!(c["suggested"], serde_json::json!([]));
    assert_eq!(c["no_witness"][0]["rule"], "never");
    assert_eq!(c["no_witness"][0]["status"], "unreachable");
    assert!(c["no_witness"][0]["reason"].is_string(), "{c}");
    let run = common::hookc_in(&dir, &["test", "--coverage", "never.hooks"], None);
    assert!(
        run.stdout.contains("no test suggested for:\n  never.hooks:3: rule `never` at tool.pre_execute: unreachable: "),
        "{}",
        run.stdout
    );
}
