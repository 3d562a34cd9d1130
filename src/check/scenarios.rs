//! Checking scenarios, the `test` blocks written next to the rules that
//! `hookc test` runs ([`crate::scenarios`]).
//!
//! A test is checked like a rule, so that `hookc lint` reports a broken test
//! before anyone runs it: its event must be a JSON object literal that is a
//! valid hook context, with a `hook_point` of the schema and a
//! `component_id` (or a `target`); every `expect` must be well formed, name
//! rules that exist, and its condition must check at the event's point like
//! a rule's `when`. Tests never reach the compiled table.
//!
//! Diagnostic codes: `invalid-test` (a malformed event, target or
//! expectation), `duplicate-test` (two tests of a file with one name),
//! `unknown-point` (the event's hook point is not in the schema) and
//! `unknown-rule` (`expect fired` names a rule that is not compiled), plus
//! whatever the condition of an `expect` line gets from the checker.

use super::names::Scope;
use super::typeck::TypeChecker;
use super::RegexCatalog;
use crate::diag::suggest::suggest;
use crate::diag::{Diagnostic, Diagnostics};
use crate::load::LoadedSources;
use crate::runtime::HookContext;
use crate::schema::Schema;
use crate::span::{SourceFile, Span};
use crate::syntax::ast::{self, ExpectKind, ExprKind};
use serde_json::{Map, Value};
use std::collections::HashMap;

/// What an event is, for help lines.
pub(crate) const EVENT_HELP: &str = "an event is a HookContext JSON object with at least \
`hook_point` and `component_id`, e.g. `event {\"hook_point\": \"tool.pre_execute\", \
\"component_id\": \"builtin::llm\", \"payload\": {\"tool\": \"exec\"}}`, or the JSON \
Claude Code writes on a hook's stdin (with `hook_event_name`)";

/// The decisions `expect decision` accepts.
pub(crate) const DECISIONS: [&str; 4] = ["allow", "ask", "deny", "none"];

/// The matcher of a `mock` line's glob: `*` matches any text, `/`
/// included (a program path, a script, a URL); `?`, `[…]` and `{a,b}` as
/// in globs.
///
/// # Errors
///
/// Why the glob is not valid.
pub(crate) fn mock_glob(glob: &str) -> Result<globset::GlobMatcher, globset::Error> {
    globset::GlobBuilder::new(glob)
        .literal_separator(false)
        .backslash_escape(true)
        .build()
        .map(|g| g.compile_matcher())
}

/// The JSON value of a literal expression (strings, numbers, booleans,
/// `null`, arrays and objects of them), or the span of the first part that
/// is not a literal.
pub(crate) fn literal_json(e: &ast::Expr) -> Result<Value, Span> {
    Ok(match &e.kind {
        ExprKind::Literal(v) => v.clone(),
        ExprKind::Str(s) => Value::String(s.value.clone()),
        ExprKind::Array(items) => Value::Array(
            items
                .iter()
                .map(literal_json)
                .collect::<Result<Vec<_>, _>>()?,
        ),
        ExprKind::Object(entries) => {
            let mut map = Map::new();
            for (k, v) in entries {
                map.insert(k.value.clone(), literal_json(v)?);
            }
            Value::Object(map)
        }
        _ => return Err(e.span),
    })
}

/// The parts of a target `scope::name[/child][#instance]`: the component,
/// the child and the instance; or why it is invalid.
pub(crate) fn split_target(
    fqn: &str,
) -> Result<(&str, Option<&str>, Option<&str>), crate::event::TargetError> {
    let target = crate::event::Target::parse(fqn)?;
    Ok((target.component, target.child, target.instance))
}

/// The hook context a test dispatches: its event, with the `target` (when
/// given) written into `component_id`, `child_id` and `instance`.
///
/// # Errors
///
/// Why the event is not a hook context, as the checker would say it; tests
/// that pass the checker never fail here.
pub(crate) fn test_context(test: &ast::TestDecl) -> Result<HookContext, String> {
    let mut event =
        literal_json(&test.event).map_err(|_| "the event is not a literal".to_owned())?;
    // A raw Claude Code event becomes the context `hookc claude` builds.
    if let Some(raw) = event.as_object().filter(|f| is_claude_code_event(f)) {
        let ctx = crate::systems::claude_code::protocol::hook_context(raw.clone());
        event = serde_json::to_value(ctx).map_err(|e| e.to_string())?;
    }
    let Some(fields) = event.as_object_mut() else {
        return Err("the event is not an object".to_owned());
    };
    if let Some(target) = &test.target {
        let (component, child, instance) =
            split_target(&target.value).map_err(|e| e.to_string())?;
        fields.insert("component_id".into(), Value::from(component));
        if let Some(child) = child {
            fields.insert("child_id".into(), Value::from(child));
        }
        if let Some(instance) = instance {
            fields.insert("instance".into(), Value::from(instance));
        }
    }
    crate::event::context(event).map_err(|e| e.to_string())
}

/// True for the JSON Claude Code writes on a hook's stdin: a
/// `hook_event_name` and no `hook_point`.
fn is_claude_code_event(fields: &Map<String, Value>) -> bool {
    !fields.contains_key("hook_point") && fields.contains_key("hook_event_name")
}

/// The span of an event's entry value for `key`, or the whole event.
fn entry_span(event: &ast::Expr, key: &str) -> Option<Span> {
    match &event.kind {
        ExprKind::Object(entries) => entries
            .iter()
            .find(|(k, _)| k.value == key)
            .map(|(_, v)| v.span),
        _ => None,
    }
}

/// Checks the tests of every root file; findings go to `diagnostics`.
/// `ids` are the rule ids of the compiled set.
pub(super) fn check<'a>(
    loaded: &'a LoadedSources,
    scopes: &[Scope],
    extensions: &super::overrides::ListExtensions<'a>,
    schema: &Schema,
    ids: &HashMap<String, (usize, Span)>,
    diagnostics: &mut Diagnostics,
) {
    for (fi, file) in loaded.files.iter().enumerate() {
        if !file.root {
            continue;
        }
        let Some(scope) = scopes.get(fi) else {
            continue;
        };
        let mut names: HashMap<&str, Span> = HashMap::new();
        for item in &file.ast.items {
            let ast::Item::Test(test) = item else {
                continue;
            };
            if let Some(first) = names.get(test.name.value.as_str()) {
                diagnostics.push(
                    Diagnostic::error(
                        "duplicate-test",
                        format!("duplicate test name `{}`", test.name.value),
                    )
                    .in_file(&file.source)
                    .with_primary(test.name.span, "defined again here")
                    .with_secondary(*first, "first defined here")
                    .with_help("tests are reported by name: give each test of a file its own"),
                );
            } else {
                names.insert(&test.name.value, test.name.span);
            }
            let mut regexes = RegexCatalog::default();
            let mut cx = TestChecker {
                source: &file.source,
                schema,
                ids,
                diagnostics: &mut *diagnostics,
            };
            let point = cx.event(test);
            for mock in &test.mocks {
                cx.mock(mock);
            }
            for expect in &test.expects {
                match &expect.kind {
                    ExpectKind::Condition(cond) => {
                        // Without a known point, the condition would only
                        // repeat the event's error.
                        let Some(point) = &point else { continue };
                        let mut types = TypeChecker {
                            loaded,
                            file: fi,
                            scopes,
                            scope,
                            extensions,
                            schema,
                            points: vec![point.clone()],
                            regexes: &mut regexes,
                            diagnostics: &mut *diagnostics,
                            macro_stack: Vec::new(),
                            vars: Vec::new(),
                            captures: Vec::new(),
                        };
                        types.condition(cond);
                    }
                    kind => TestChecker {
                        source: &file.source,
                        schema,
                        ids,
                        diagnostics: &mut *diagnostics,
                    }
                    .expect(kind),
                }
            }
        }
    }
}

/// Checks the parts of a test that are not conditions.
struct TestChecker<'a> {
    source: &'a SourceFile,
    schema: &'a Schema,
    ids: &'a HashMap<String, (usize, Span)>,
    diagnostics: &'a mut Diagnostics,
}

impl TestChecker<'_> {
    /// Checks a `mock` line: a JSON `skip` value, a valid glob, each part of
    /// a command's answer at most once.
    fn mock(&mut self, mock: &ast::Mock) {
        if mock.kind != ast::MockKind::Call {
            if let Err(e) = mock_glob(&mock.subject.value) {
                let d = self
                    .error(
                        format!("`{}` is not a valid glob: {}", mock.subject.value, e.kind()),
                        mock.subject.span,
                        "not a glob",
                    )
                    .with_help("`*` matches any text, e.g. `mock sh \"npm test*\" exit 2`");
                self.diagnostics.push(d);
            }
        }
        match &mock.reply {
            ast::MockReply::Skip(Some(value)) => {
                if let Err(at) = literal_json(value) {
                    let d = self
                        .error("a mocked `skip` takes a JSON value", at, "not a JSON value")
                        .with_help("write the value, e.g. `mock \"h\" skip {\"cached\": true}`");
                    self.diagnostics.push(d);
                }
            }
            ast::MockReply::Command(parts) => {
                let mut seen: Vec<(&str, Span)> = Vec::new();
                for part in parts {
                    let (name, span) = match part {
                        ast::CommandPart::Exit(_, span) => ("exit", *span),
                        ast::CommandPart::Stdout(value) => {
                            if let Err(at) = literal_json(value) {
                                let d = self
                                    .error("`stdout` takes text or a JSON object", at, "not JSON")
                                    .with_help("e.g. `stdout {\"decision\": \"block\", \"reason\": \"no\"}`");
                                self.diagnostics.push(d);
                            }
                            ("stdout", value.span)
                        }
                        ast::CommandPart::Stderr(text) => ("stderr", text.span),
                    };
                    if let Some((_, first)) = seen.iter().find(|(n, _)| *n == name) {
                        let d = self
                            .error(format!("`{name}` is given twice"), span, "given again here")
                            .with_secondary(*first, "first given here")
                            .with_help(format!("a mocked command has one `{name}`: keep one"));
                        self.diagnostics.push(d);
                    } else {
                        seen.push((name, span));
                    }
                }
            }
            _ => {}
        }
    }

    fn error(&mut self, message: impl Into<String>, span: Span, label: &str) -> Diagnostic {
        Diagnostic::error("invalid-test", message)
            .in_file(self.source)
            .with_primary(span, label)
    }

    /// Checks the event and the target; the event's point when it is one of
    /// the schema's.
    fn event(&mut self, test: &ast::TestDecl) -> Option<(String, crate::schema::PointKind)> {
        if let Some(target) = &test.target {
            if let Err(why) = split_target(&target.value) {
                let d = self
                    .error(
                        format!("invalid target `{}`", target.value),
                        target.span,
                        &why.to_string(),
                    )
                    .with_help("write a component as `scope::name`, optionally with `/child` and `#instance`, e.g. `builtin::llm/agent-1#primary`");
                self.diagnostics.push(d);
            }
        }
        let value = match literal_json(&test.event) {
            Ok(v) => v,
            Err(span) => {
                let d = self
                    .error("an event holds JSON values only", span, "not a JSON value")
                    .with_help("write the value itself; an event cannot read fields or compute");
                self.diagnostics.push(d);
                return None;
            }
        };
        let Value::Object(fields) = &value else {
            return None;
        };
        let mut point = None;
        let mut complete = true;
        // A raw Claude Code event names its point `hook_event_name`; its
        // component comes from `tool_name`.
        let claude = is_claude_code_event(fields);
        let point_key = if claude {
            "hook_event_name"
        } else {
            "hook_point"
        };
        let mut required = vec![point_key];
        if test.target.is_none() && !claude {
            required.push("component_id");
        }
        for key in required {
            match fields.get(key) {
                None => {
                    complete = false;
                    let d = self
                        .error(
                            format!("the event has no `{key}`"),
                            test.event.span,
                            &format!("`{key}` is missing"),
                        )
                        .with_help(EVENT_HELP);
                    self.diagnostics.push(d);
                }
                Some(Value::String(name)) if key == point_key => point = Some(name.clone()),
                Some(Value::String(_)) => {}
                Some(_) => {
                    complete = false;
                    let span = entry_span(&test.event, key).unwrap_or(test.event.span);
                    let d = self.error(format!("`{key}` must be a string"), span, "not a string");
                    self.diagnostics.push(d);
                }
            }
        }
        let point = point?;
        let def = match self.schema.point(&point) {
            Some(def) => (def.name.clone(), def.kind),
            None => {
                let span = entry_span(&test.event, point_key).unwrap_or(test.event.span);
                let mut d =
                    Diagnostic::error("unknown-point", format!("unknown hook point `{point}`"))
                        .in_file(self.source)
                        .with_primary(
                            span,
                            format!("not a point of the `{}` schema", self.schema.name),
                        );
                d = super::unknown_point_help(d, &point, None, self.schema);
                self.diagnostics.push(d);
                return None;
            }
        };
        let target_ok = test
            .target
            .as_ref()
            .is_none_or(|t| split_target(&t.value).is_ok());
        if complete && target_ok {
            if let Err(e) = test_context(test) {
                let d = self
                    .error(
                        format!("the event is not a valid hook context: {e}"),
                        test.event.span,
                        "in this event",
                    )
                    .with_help(EVENT_HELP);
                self.diagnostics.push(d);
            }
        }
        Some(def)
    }

    /// Checks an `expect` line other than a condition.
    fn expect(&mut self, kind: &ExpectKind) {
        match kind {
            ExpectKind::Abort(_)
            | ExpectKind::Ask(_)
            | ExpectKind::Continue
            | ExpectKind::Skip(None)
            | ExpectKind::Exit(_)
            | ExpectKind::Condition(_) => {}
            ExpectKind::Output(value) => {
                if let Err(at) = literal_json(value) {
                    let d = self
                        .error("`expect output` takes a JSON object or `null`", at, "not a JSON value")
                        .with_help("write the JSON Claude Code reads, e.g. `expect output {\"decision\": \"block\", \"reason\": \"…\"}`");
                    self.diagnostics.push(d);
                }
            }
            ExpectKind::Skip(Some(value)) => {
                if let Err(at) = literal_json(value) {
                    let d = self
                        .error("`expect skip` takes a JSON value", at, "not a JSON value")
                        .with_help("write the value the skip must carry, e.g. `expect skip {\"skipped\": true}`");
                    self.diagnostics.push(d);
                }
            }
            ExpectKind::Fired(list) => {
                let ExprKind::Array(items) = &list.kind else {
                    return;
                };
                for item in items {
                    let ExprKind::Str(id) = &item.kind else {
                        let d = self
                            .error("`expect fired` lists rule ids", item.span, "not a string")
                            .with_help("write the ids as strings, e.g. `expect fired [\"block-dangerous\"]`");
                        self.diagnostics.push(d);
                        continue;
                    };
                    if !self.ids.contains_key(&id.value) {
                        let mut d =
                            Diagnostic::error("unknown-rule", format!("no rule `{}`", id.value))
                                .in_file(self.source)
                                .with_primary(id.span, "not a rule of the compiled files");
                        d = match suggest(&id.value, self.ids.keys().map(String::as_str)) {
                            Some(s) => d.with_help(format!("did you mean `{s}`?")),
                            None => d.with_help(
                                "tests run against the rules of every file given to `hookc test`",
                            ),
                        };
                        self.diagnostics.push(d);
                    }
                }
            }
            ExpectKind::Decision(name) => {
                if !DECISIONS.contains(&name.name.as_str()) {
                    let d = self
                        .error(
                            format!("unknown decision `{}`", name.name),
                            name.span,
                            "not a decision",
                        )
                        .with_help("the decisions are `allow`, `ask`, `deny` and `none`");
                    self.diagnostics.push(d);
                }
            }
        }
    }
}
