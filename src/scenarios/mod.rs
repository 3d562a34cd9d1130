//! Scenarios: running the `test` blocks written next to the rules (an event
//! and what the rules must make of it), as `hookc test` does.
//!
//! ```text
//! test "rm is blocked" {
//!     event {"hook_point": "tool.pre_execute", "component_id": "builtin::llm",
//!            "payload": {"tool": "exec", "args": "rm -rf /"}}
//!     expect abort "blocked dangerous command: rm -rf /"
//!     expect fired ["block-dangerous"]
//!     expect decision deny
//!     expect payload.args == "rm -rf /"
//! }
//! ```
//!
//! [`run_tests`] compiles the rules of every file given (tests are not part
//! of the table), then runs each test: it builds the test's hook context
//! from its `event` (with `target`, when given, as the component, child and
//! instance), dispatches it at the event's `hook_point` through the compiled
//! table, and checks every `expect` line against the outcome:
//!
//! | form | passes when |
//! |---|---|
//! | `expect abort` / `expect abort "r"` | the outcome is an abort (with reason `r`) |
//! | `expect continue` | the outcome is a continue |
//! | `expect skip` / `expect skip <json>` | the outcome is a skip (with that value) |
//! | `expect ask` / `expect ask "r"` | the outcome is an ask (with reason `r`) |
//! | `expect fired ["a", "b"]` | exactly these rules fired, in this order |
//! | `expect decision allow\|ask\|deny\|none` | the combined decision |
//! | `expect <condition>` | the condition holds on the final context |
//! | `expect output {…}` / `expect output null` | a raw Claude Code event: the JSON the hook prints (or nothing) |
//! | `expect exit N` | a raw Claude Code event: the hook's exit code |
//!
//! `event file "path"` reads the event from a JSON file relative to the
//! `.hooks` file (the loader reads it). `mock` lines stand in for effects in
//! their test ([`crate::effects::mock`]): `mock "name" REPLY` is the only
//! handler `call "name"` finds, `mock exec|sh "glob" [exit N] [stdout …]
//! [stderr "…"]` answers for the commands it matches, and `mock webhook
//! "glob" [fail "reason"]` keeps a webhook from being sent.
//!
//! A condition is checked by the same machinery as a rule's `when`: each one
//! is compiled as a rule at the event's point (in the test's file, so its
//! lists, patterns and macros resolve) into a second table, which is
//! dispatched on the final context; the condition holds when its rule fires.
//! There is no second evaluator.
//!
//! [`run_tests_as`] runs them as a [`TestRun`] says: only the tests whose
//! `file::name` contains a filter, with effects recorded instead of run,
//! and with coverage ([`Coverage`]: which rules no test made fire, which
//! parts of their conditions no test made true or false), counted from an
//! explanation of each test's dispatch.
//!
//! The checker validates tests (see `hookc lint`): a test with a malformed
//! event or expectation is a compile error, reported by [`run_tests`] with
//! the rest of the rules' diagnostics.

mod coverage;

pub use coverage::{Count, Coverage, FileCoverage, Missed, UncoveredCondition, UncoveredRule};

use crate::check::lints::{self, Level};
use crate::check::scenarios::test_context;
use crate::check::LintLevels;
use crate::compile::{compile_loaded, Options};
use crate::diag::Diagnostics;
use crate::load::{self, LoadedSources};
use crate::runtime::{json_eq, Decision, OutcomeKind, Report};
use crate::span::{SourceFile, Span};
use crate::syntax::ast::{self, ExpectKind, ExprKind};
use crate::syntax::pretty;
use crate::{HookContext, Table};
use serde::Serialize;
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

/// The results of a test run, in file and declaration order.
#[derive(Clone, Debug, Default)]
pub struct TestReport {
    /// One result per test run.
    pub tests: Vec<TestResult>,
    /// How many tests the filter left out ([`TestRun::filter`]).
    pub filtered_out: usize,
    /// What the tests exercised, when asked for ([`TestRun::coverage`]).
    pub coverage: Option<Coverage>,
    /// The table the tests ran against, kept when coverage was asked for:
    /// `hookc test --coverage` searches it for witness events of the
    /// rules no test made fire.
    pub table: Option<std::sync::Arc<Table>>,
    /// Warnings found while compiling the rules.
    pub warnings: Diagnostics,
}

/// How to run tests: which ones, with which effects, measuring what.
#[derive(Clone, Debug, Default)]
pub struct TestRun {
    /// Record effects instead of running them
    /// ([`Effects::recording_only`](crate::Effects::recording_only)).
    pub record_effects: bool,
    /// Run only the tests whose `file::name` contains this text (like
    /// `cargo test FILTER`); the others are counted in
    /// [`TestReport::filtered_out`].
    pub filter: Option<String>,
    /// Count which rules fired and which parts of their conditions were
    /// true and false ([`TestReport::coverage`]). Each test's dispatch is
    /// then explained as `hookc explain` explains one: every condition of
    /// every rule of the point is evaluated, so a `rate(…)` condition
    /// counts the event even where a plain dispatch would not test it.
    pub coverage: bool,
    /// The directory effects run in and resolve relative paths against
    /// (an `exec` command, a `trace` file, a Lua script), as `hookc
    /// claude` uses the project's; the process's working directory when
    /// none. A test of a `trace` rule appends its line there.
    pub project_dir: Option<std::path::PathBuf>,
}

impl TestReport {
    /// How many tests passed.
    pub fn passed(&self) -> usize {
        self.tests.iter().filter(|t| t.passed).count()
    }

    /// How many tests failed.
    pub fn failed(&self) -> usize {
        self.tests.len() - self.passed()
    }

    /// True when no test failed.
    pub fn ok(&self) -> bool {
        self.tests.iter().all(|t| t.passed)
    }
}

/// The result of one test.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TestResult {
    /// The file the test is written in, as named on the command line.
    pub file: String,
    /// The test's name.
    pub name: String,
    /// 1-based line of the `test` keyword.
    pub line: u32,
    /// 1-based column of the `test` keyword.
    pub col: u32,
    /// True when every expectation held.
    pub passed: bool,
    /// One message per expectation that did not hold, each starting with
    /// the `file:line:col` of its `expect` line.
    pub failures: Vec<String>,
}

impl TestResult {
    /// `file::name`, how the test is reported.
    pub fn full_name(&self) -> String {
        format!("{}::{}", self.file, self.name)
    }
}

/// Compiles the `.hooks` files under `paths` (files, or directories searched
/// recursively) and runs the tests they hold.
///
/// # Errors
///
/// Every diagnostic found when the rules or the tests do not compile.
pub fn run_tests<P: AsRef<Path>>(paths: &[P]) -> Result<TestReport, Diagnostics> {
    run_tests_with(paths, &Options::default())
}

/// Like [`run_tests`], compiling the rules with `options` (limits and lint
/// levels, e.g. from `hookc.toml`).
///
/// # Errors
///
/// Every diagnostic found when the rules or the tests do not compile.
pub fn run_tests_with<P: AsRef<Path>>(
    paths: &[P],
    options: &Options,
) -> Result<TestReport, Diagnostics> {
    run_loaded(load::load_paths(paths), options, &TestRun::default())
}

/// Like [`run_tests_with`], run as `run` says: a filter, recorded effects,
/// coverage.
///
/// # Errors
///
/// Every diagnostic found when the rules or the tests do not compile.
pub fn run_tests_as<P: AsRef<Path>>(
    paths: &[P],
    options: &Options,
    run: &TestRun,
) -> Result<TestReport, Diagnostics> {
    run_loaded(load::load_paths(paths), options, run)
}

/// Like [`run_tests_with`], with effects recorded, not run
/// ([`Effects::recording_only`](crate::Effects::recording_only)): no
/// command, webhook, handler or trace reaches outside the test.
///
/// # Errors
///
/// Every diagnostic found when the rules or the tests do not compile.
pub fn run_tests_without_effects<P: AsRef<Path>>(
    paths: &[P],
    options: &Options,
) -> Result<TestReport, Diagnostics> {
    let run = TestRun {
        record_effects: true,
        ..TestRun::default()
    };
    run_loaded(load::load_paths(paths), options, &run)
}

/// Like [`run_tests`], for in-memory sources (imports are read from disk
/// relative to each source's name).
///
/// # Errors
///
/// Every diagnostic found when the rules or the tests do not compile.
pub fn run_test_sources(sources: Vec<SourceFile>) -> Result<TestReport, Diagnostics> {
    run_loaded(
        load::load_sources(sources),
        &Options::default(),
        &TestRun::default(),
    )
}

/// Like [`run_test_sources`], run as `run` says.
///
/// # Errors
///
/// Every diagnostic found when the rules or the tests do not compile.
pub fn run_test_sources_as(
    sources: Vec<SourceFile>,
    run: &TestRun,
) -> Result<TestReport, Diagnostics> {
    run_loaded(load::load_sources(sources), &Options::default(), run)
}

/// One test of a root file.
struct Case<'a> {
    file: usize,
    source: &'a SourceFile,
    test: &'a ast::TestDecl,
}

/// The id of the rule that checks condition `n` (never a valid written id,
/// so it cannot clash with the user's rules).
fn expect_id(n: usize) -> String {
    format!("expect#{n}")
}

fn run_loaded(
    loaded: LoadedSources,
    options: &Options,
    how: &TestRun,
) -> Result<TestReport, Diagnostics> {
    let compiled = compile_loaded(loaded.clone(), options)?;
    // The rules that check conditions are not the user's: no lint applies.
    let mut quiet = options.clone();
    quiet.lints = LintLevels::new();
    for code in lints::codes() {
        quiet.lints.set(code, Level::Allow);
    }
    let cases: Vec<Case<'_>> = loaded
        .files
        .iter()
        .enumerate()
        .filter(|(_, f)| f.root)
        .flat_map(|(fi, f)| {
            f.ast.items.iter().filter_map(move |item| match item {
                ast::Item::Test(test) => Some(Case {
                    file: fi,
                    source: &f.source,
                    test,
                }),
                _ => None,
            })
        })
        .collect();
    let all = cases.len();
    let cases: Vec<Case<'_>> = match &how.filter {
        Some(filter) => cases
            .into_iter()
            .filter(|c| format!("{}::{}", c.source.name, c.test.name.value).contains(filter))
            .collect(),
        None => cases,
    };

    // Number the conditions; those of tests whose context is at the depth
    // limit get a table each (a rule at the limit stops the chain).
    let mut conditions: Vec<Cond<'_>> = Vec::new();
    for case in &cases {
        let Ok(ctx) = test_context(case.test) else {
            continue;
        };
        for expect in &case.test.expects {
            if let ExpectKind::Condition(expr) = &expect.kind {
                conditions.push(Cond {
                    file: case.file,
                    point: ctx.hook_point.clone(),
                    expr,
                    span: expect.span,
                    alone: ctx.depth >= ctx.max_depth,
                });
            }
        }
    }
    let shared: Vec<usize> = (0..conditions.len())
        .filter(|&n| conditions.get(n).is_some_and(|c| !c.alone))
        .collect();
    let shared_table = if shared.is_empty() {
        None
    } else {
        Some(condition_table(&loaded, &conditions, &shared, &quiet)?)
    };
    let mut tables: HashMap<usize, Table> = HashMap::new();
    for (n, c) in conditions.iter().enumerate() {
        if c.alone {
            tables.insert(n, condition_table(&loaded, &conditions, &[n], &quiet)?);
        }
    }

    let mut report = TestReport {
        tests: Vec::new(),
        filtered_out: all - cases.len(),
        coverage: None,
        table: None,
        warnings: compiled.warnings,
    };
    let mut tally = how
        .coverage
        .then(|| coverage::Tally::new(compiled.table.program()));
    let mut next_cond = 0;
    for case in &cases {
        let (line, col) = case.source.line_col(case.test.span.start);
        let mut result = TestResult {
            file: case.source.name.to_string(),
            name: case.test.name.value.clone(),
            line,
            col,
            passed: true,
            failures: Vec::new(),
        };
        let at = |span: Span| {
            let (l, c) = case.source.line_col(span.start);
            format!("{}:{l}:{c}", case.source.name)
        };
        let mut ctx = match test_context(case.test) {
            Ok(ctx) => ctx,
            Err(e) => {
                result.passed = false;
                result
                    .failures
                    .push(format!("{}: invalid event: {e}", at(case.test.event.span)));
                report.tests.push(result);
                continue;
            }
        };
        // Rate counts must start empty for each test: effects of its own,
        // whose memory store is new.
        let mut effects = if how.record_effects {
            crate::Effects::new().recording_only()
        } else {
            crate::Effects::new()
        }
        .with_host_facts(test_host(&ctx));
        if let Some(dir) = &how.project_dir {
            effects =
                effects.with_exec(crate::effects::ExecConfig::new().with_project_dir(dir.clone()));
        }
        // A test's mocks are the only handlers `call` finds in it, and
        // stand in for the commands and webhooks they match.
        for mock in &case.test.mocks {
            effects = with_mock(effects, mock);
        }
        let table = &compiled.table;
        let repeat = case.test.repeat.map_or(1, |(n, _)| n);
        let start = ctx.clone();
        // With coverage, the dispatch is explained as it runs: the same
        // single dispatch, its outcome the test's.
        let mut dispatch = |ctx: &mut HookContext| match &mut tally {
            Some(tally) => {
                let explanation = table.dispatch_explained(ctx, &effects);
                tally.record(&explanation);
                explanation.outcome
            }
            None => table.dispatch_context_with(ctx, &effects),
        };
        let mut run = dispatch(&mut ctx);
        for _ in 1..repeat {
            ctx = start.clone();
            run = dispatch(&mut ctx);
        }
        for expect in &case.test.expects {
            let failure = match &expect.kind {
                ExpectKind::Condition(expr) => {
                    let n = next_cond;
                    next_cond += 1;
                    let table = tables.get(&n).or(shared_table.as_ref());
                    let holds = table.is_some_and(|t| condition_holds(t, &run.context, n));
                    (!holds).then(|| {
                        format!(
                            "expected `{}` to hold on the final context\n  final payload: {}\n  final metadata: {}",
                            pretty::expr_to_string(expr),
                            compact(&run.context.payload),
                            compact(&Value::Object(run.context.metadata.clone())),
                        )
                    })
                }
                ExpectKind::Output(want) => {
                    let want = crate::check::scenarios::literal_json(want).unwrap_or(Value::Null);
                    match claude_answer(case.test, &run) {
                        None => Some(
                            "`expect output` needs a raw Claude Code event (`hook_event_name`)"
                                .to_owned(),
                        ),
                        Some((got, _)) if json_eq(&got, &want) => None,
                        Some((got, _)) => Some(format!(
                            "expected output {}, got {}",
                            compact(&want),
                            compact(&got)
                        )),
                    }
                }
                ExpectKind::Exit(want) => match claude_answer(case.test, &run) {
                    None => Some(
                        "`expect exit` needs a raw Claude Code event (`hook_event_name`)"
                            .to_owned(),
                    ),
                    Some((_, got)) if i64::from(got) == i64::from(*want) => None,
                    Some((_, got)) => Some(format!("expected exit {want}, got {got}")),
                },
                kind => check_outcome(kind, &run),
            };
            if let Some(message) = failure {
                result.passed = false;
                result
                    .failures
                    .push(format!("{}: {message}", at(expect.span)));
            }
        }
        if !result.passed && !run.warnings.is_empty() {
            for w in &run.warnings {
                result.failures.push(format!("  dispatch warning: {w}"));
            }
        }
        report.tests.push(result);
    }
    report.coverage = tally.map(coverage::Tally::finish);
    if report.coverage.is_some() {
        report.table = Some(std::sync::Arc::new(compiled.table));
    }
    Ok(report)
}

/// One `expect <condition>` line.
struct Cond<'a> {
    /// The file of the test.
    file: usize,
    /// The event's hook point.
    point: String,
    expr: &'a ast::Expr,
    span: Span,
    /// True when it needs a table of its own.
    alone: bool,
}

/// A table with one rule per condition in `which`: at the test's point, in
/// the test's file (so names resolve as in the file), with no other rules.
fn condition_table(
    loaded: &LoadedSources,
    conds: &[Cond<'_>],
    which: &[usize],
    options: &Options,
) -> Result<Table, Diagnostics> {
    let mut loaded = loaded.clone();
    for file in loaded.files.iter_mut().filter(|f| f.root) {
        file.ast
            .items
            .retain(|i| !matches!(i, ast::Item::Hook(_) | ast::Item::Test(_)));
    }
    for &n in which {
        let Some(c) = conds.get(n) else { continue };
        let Some(file) = loaded.files.get_mut(c.file) else {
            continue;
        };
        let ident = |name: String| ast::Ident { name, span: c.span };
        file.ast.items.push(ast::Item::Hook(ast::Hook {
            id: ident(expect_id(n)),
            points: vec![ident(c.point.clone())],
            target: None,
            options: Vec::new(),
            conditions: vec![ast::Condition {
                negated: false,
                binding: None,
                expr: c.expr.clone(),
                span: c.span,
            }],
            actions: vec![ast::Action {
                kind: ast::ActionKind::Continue,
                span: c.span,
            }],
            span: c.span,
            header_span: c.span,
        }));
    }
    compile_loaded(loaded, options).map(|c| c.table)
}

/// What a test's event tells `env(…)` and `relpath(…)`: no environment
/// (a test answers the same on every machine), and the event's `cwd` as
/// the project directory, as `hookc claude` takes it when Claude Code
/// names none.
fn test_host(ctx: &HookContext) -> crate::event::HostFacts {
    let cwd = ctx.payload.get("cwd").and_then(serde_json::Value::as_str);
    crate::event::HostFacts::new(std::collections::HashMap::new(), cwd)
}

/// True when the rule of condition `n` matches `ctx` (it fires, or it is
/// stopped by the depth limit after matching).
fn condition_holds(table: &Table, ctx: &HookContext, n: usize) -> bool {
    let id = expect_id(n);
    // Effects of its own, recorded only: a `rate(…)` in the condition
    // counts apart, and the rules' effects, which ran for the test, do not
    // run again for each condition checked.
    let effects = crate::Effects::new()
        .recording_only()
        .with_host_facts(test_host(ctx));
    let report = table.dispatch_context_with(&mut ctx.clone(), &effects);
    let stopped = format!("rule `{id}`");
    report.fired.contains(&id) || report.warnings.iter().any(|w| w.contains(&stopped))
}

/// One-line JSON.
fn compact(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_else(|_| "?".to_owned())
}

/// `continue`, `abort "reason"`, `skip {…}`, `ask "reason"`.
fn describe(run: &Report) -> String {
    let reason = run
        .reason
        .as_deref()
        .map(|r| format!(" {}", pretty::quote(r)))
        .unwrap_or_default();
    match run.outcome {
        OutcomeKind::Continue => "continue".to_owned(),
        OutcomeKind::Abort => format!("abort{reason}"),
        OutcomeKind::Ask => format!("ask{reason}"),
        OutcomeKind::Skip => match &run.value {
            Some(v) => format!("skip {}", compact(v)),
            None => "skip".to_owned(),
        },
    }
}

fn decision_name(d: Option<Decision>) -> &'static str {
    match d {
        None => "none",
        Some(Decision::Allow) => "allow",
        Some(Decision::Ask) => "ask",
        Some(Decision::Deny) => "deny",
    }
}

/// The failure message of an expectation about the outcome, if it fails.
fn check_outcome(kind: &ExpectKind, run: &Report) -> Option<String> {
    let got = || format!("the outcome is `{}`", describe(run));
    let with_reason = |want: OutcomeKind, name: &str, reason: &Option<ast::StrLit>| {
        if run.outcome != want {
            let wanted = match reason {
                Some(r) => format!("{name} {}", pretty::quote(&r.value)),
                None => name.to_owned(),
            };
            return Some(format!("expected `{wanted}`, {}", got()));
        }
        match reason {
            Some(r) if run.reason.as_deref() != Some(r.value.as_str()) => Some(format!(
                "expected {name} reason {}, got {}",
                pretty::quote(&r.value),
                run.reason
                    .as_deref()
                    .map_or_else(|| "none".to_owned(), pretty::quote)
            )),
            _ => None,
        }
    };
    match kind {
        ExpectKind::Abort(reason) => with_reason(OutcomeKind::Abort, "abort", reason),
        ExpectKind::Ask(reason) => with_reason(OutcomeKind::Ask, "ask", reason),
        ExpectKind::Continue => (run.outcome != OutcomeKind::Continue)
            .then(|| format!("expected `continue`, {}", got())),
        ExpectKind::Skip(value) => {
            let want = value
                .as_ref()
                .and_then(|v| crate::check::scenarios::literal_json(v).ok());
            if run.outcome != OutcomeKind::Skip {
                let wanted = want
                    .as_ref()
                    .map_or_else(|| "skip".to_owned(), |v| format!("skip {}", compact(v)));
                return Some(format!("expected `{wanted}`, {}", got()));
            }
            match (&want, &run.value) {
                (Some(w), Some(v)) if json_eq(w, v) => None,
                (Some(w), v) => Some(format!(
                    "expected skip value {}, got {}",
                    compact(w),
                    v.as_ref().map_or_else(|| "none".to_owned(), compact)
                )),
                (None, _) => None,
            }
        }
        ExpectKind::Fired(list) => {
            let want: Vec<String> = match &list.kind {
                ExprKind::Array(items) => items
                    .iter()
                    .filter_map(|i| match &i.kind {
                        ExprKind::Str(s) => Some(s.value.clone()),
                        _ => None,
                    })
                    .collect(),
                _ => Vec::new(),
            };
            (want != run.fired).then(|| {
                format!(
                    "expected fired {}, got {}",
                    compact(&Value::from(want)),
                    compact(&Value::from(run.fired.clone()))
                )
            })
        }
        ExpectKind::Decision(name) => {
            let got = decision_name(run.decision);
            (got != name.name).then(|| format!("expected decision `{}`, got `{got}`", name.name))
        }
        // Checked against the hook's answer by the caller.
        ExpectKind::Condition(_) | ExpectKind::Output(_) | ExpectKind::Exit(_) => None,
    }
}

/// `effects` with `mock` standing in for what it names.
fn with_mock(effects: crate::Effects, mock: &ast::Mock) -> crate::Effects {
    use crate::effects::{CommandMock, WebhookMock};
    let matches = glob_matcher(&mock.subject.value);
    match (mock.kind, &mock.reply) {
        (ast::MockKind::Exec | ast::MockKind::Sh, ast::MockReply::Command(parts)) => {
            let mut command = if mock.kind == ast::MockKind::Sh {
                CommandMock::sh(matches)
            } else {
                CommandMock::exec(matches)
            };
            for part in parts {
                command = match part {
                    ast::CommandPart::Exit(code, _) => {
                        command.exit(i32::try_from(*code).unwrap_or(1))
                    }
                    ast::CommandPart::Stdout(text) => command.stdout(match &text.kind {
                        ExprKind::Str(s) => s.value.clone(),
                        _ => crate::check::scenarios::literal_json(text)
                            .map(|v| v.to_string())
                            .unwrap_or_default(),
                    }),
                    ast::CommandPart::Stderr(text) => command.stderr(text.value.clone()),
                };
            }
            effects.with_command_mock(command)
        }
        (ast::MockKind::Webhook, ast::MockReply::Webhook(fail)) => {
            let webhook = WebhookMock::new(matches);
            effects.with_webhook_mock(match fail {
                Some(reason) => webhook.fail(reason.value.clone()),
                None => webhook,
            })
        }
        (_, reply) => {
            let action = mock_action(reply);
            effects.with_handler(mock.subject.value.clone(), move |_: &mut HookContext| {
                action.clone()
            })
        }
    }
}

/// Whether a program, script or URL matches a mock's glob: `*` matches any
/// text, `/` included. A glob the checker rejected matches only itself.
fn glob_matcher(glob: &str) -> impl Fn(&str) -> bool + Send + Sync + 'static {
    let matcher = crate::check::scenarios::mock_glob(glob).ok();
    let exact = glob.to_owned();
    move |text: &str| match &matcher {
        Some(m) => m.is_match(text),
        None => text == exact,
    }
}

/// What a mocked handler answers.
fn mock_action(reply: &ast::MockReply) -> crate::HookAction {
    use crate::HookAction;
    let reason = |r: &Option<ast::StrLit>| r.as_ref().map_or_else(String::new, |s| s.value.clone());
    match reply {
        ast::MockReply::Continue => HookAction::Continue,
        ast::MockReply::Abort(r) => HookAction::Abort { reason: reason(r) },
        ast::MockReply::Ask(r) => HookAction::Ask { reason: reason(r) },
        ast::MockReply::Skip(v) => HookAction::Skip(
            v.as_ref()
                .and_then(|v| crate::check::scenarios::literal_json(v).ok())
                .unwrap_or(Value::Null),
        ),
        // Command and webhook answers belong to other kinds of mock (the
        // checker keeps them there).
        ast::MockReply::Allow | ast::MockReply::Command(_) | ast::MockReply::Webhook(_) => {
            HookAction::Allow
        }
    }
}

/// What a Claude Code hook answers a raw Claude Code event with: its
/// stdout as JSON (`null` for nothing) and its exit code; `None` for any
/// other event.
fn claude_answer(test: &ast::TestDecl, run: &crate::Report) -> Option<(Value, i32)> {
    let event = crate::check::scenarios::literal_json(&test.event).ok()?;
    let raw = event.as_object()?;
    if raw.contains_key("hook_point") || !raw.contains_key("hook_event_name") {
        return None;
    }
    let event = crate::systems::claude_code::protocol::Event::parse(&event.to_string()).ok()?;
    let response = event.answer(run);
    let stdout = response
        .stdout
        .as_deref()
        .map_or(Ok(Value::Null), serde_json::from_str)
        .unwrap_or_else(|_| Value::String(response.stdout.clone().unwrap_or_default()));
    Some((stdout, response.exit_code))
}
