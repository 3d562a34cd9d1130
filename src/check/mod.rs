//! Name resolution, type checks and lints: parsed files in, diagnostics
//! out.
//!
//! `check` walks every root file's rules once. It resolves hook points
//! against the schema, FQL targets, macro/list/pattern names (the file's own
//! and its imports'), checks types where the schema knows them (the type
//! pass, `typeck`), validates regexes and templates, and applies the
//! `override`s. Every problem is a [`Diagnostic`]; all of them are
//! collected, none stops the walk. The `test` blocks of the root files are
//! checked too (`scenarios`), though they never reach the compiled rules.
//!
//! The result, an `Analysis`, holds the rules that passed with their
//! syntax trees. The compiler lowers them to the IR (`compile::lower`) and
//! hands them back to `Analysis::lint`, which runs the [`lints`] on the
//! lowered form and returns the [`Checked`] rules. The rule types the lints
//! read ([`CheckedRule`], [`CondSpans`]) are declared here, on the lints'
//! side of the one-way `compile → check` dependency.

pub mod lints;
pub(crate) mod names;
pub(crate) mod overrides;
pub(crate) mod scenarios;
pub(crate) mod typeck;

use crate::diag::{Diagnostic, Diagnostics, Severity};
use crate::fql::FqlPattern;
use crate::ir::{self, FailMode, Origin, RegexSource};
use crate::load::LoadedSources;
use crate::schema::{CommandInput, PointKind, Schema};
use crate::span::{Span, Spanned};
use crate::strings::Fast;
use crate::syntax::ast;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::diag::suggest::suggest;
pub use lints::{Level, LintLevels};
pub use typeck::bindings::{command_fields, redirect_fields};
pub(crate) use typeck::required_literal;

/// The default of [`Options::point_timeout_budget_ms`](crate::Options::point_timeout_budget_ms):
/// two commands or handlers at the default timeout.
pub const DEFAULT_POINT_TIMEOUT_BUDGET_MS: u64 = 2 * crate::ir::DEFAULT_EFFECT_TIMEOUT_MS;

/// The default of [`Options::pattern_dfa_budget`](crate::Options::pattern_dfa_budget):
/// a regex whose DFA alone would be larger is matched on its own. The
/// `regex-cost` lint needs it as the compiler does, so it lives on the
/// checker's side of the one-way `compile → check` dependency.
pub const DEFAULT_PATTERN_DFA_BUDGET: usize = 64 << 10;

/// One rule that passed the checks: its header resolved (points, target,
/// and options with the overrides applied), its conditions and actions
/// typed, and its syntax tree, which the lowering turns into a
/// [`CheckedRule`].
#[derive(Clone, Debug)]
pub(crate) struct TypedRule<'a> {
    /// The rule's id.
    pub id: String,
    /// Its points with their kinds, in the order written.
    pub points: Vec<(String, PointKind)>,
    /// Its target.
    pub target: FqlPattern,
    /// Lower runs first.
    pub priority: i32,
    /// False for `disabled` rules.
    pub enabled: bool,
    /// What a failing effect does.
    pub fail: FailMode,
    /// The `timeout` option, in milliseconds.
    pub timeout_ms: Option<u64>,
    /// Where the rule is written.
    pub origin: Origin,
    /// The index of its file in the [`LoadedSources`] files.
    pub file: usize,
    /// The rule's header span, for diagnostics about the whole rule.
    pub span: Span,
    /// The rule as written.
    pub hook: &'a ast::Hook,
}

/// What the type pass learned of the regexes and globs the rules write,
/// each parsed once: the lowering interns them, the lints read the facts.
#[derive(Clone, Debug, Default)]
pub(crate) struct RegexCatalog {
    /// Every valid regex written in a rule (in place or by a `pattern`),
    /// with what its syntax tree told.
    pub facts: RegexFactsMap,
    /// Every valid glob, with the regex it compiles to.
    pub globs: HashMap<String, RegexSource, Fast>,
    /// The NFA bound of each Unicode class the regexes use.
    pub class_bounds: typeck::ClassBounds,
}

/// One rule after checking and lowering: resolved, typed, and its
/// conditions and actions in the IR's form. The lints judge it and the
/// compiler indexes it.
#[derive(Clone, Debug)]
pub struct CheckedRule {
    /// The rule's id.
    pub id: String,
    /// Its points with their kinds, in the order written.
    pub points: Vec<(String, PointKind)>,
    /// Its target.
    pub target: FqlPattern,
    /// Lower runs first.
    pub priority: i32,
    /// False for `disabled` rules.
    pub enabled: bool,
    /// What a failing effect does.
    pub fail: FailMode,
    /// The `timeout` option, in milliseconds.
    pub timeout_ms: Option<u64>,
    /// Each `when`/`unless` line on its own (an `unless` line negated), with
    /// the line's span. The rule's condition is their conjunction; it is
    /// not kept as one more tree, which would copy every condition.
    pub conditions: Vec<Spanned<ir::Expr>>,
    /// Where the parts of each condition are written, one tree per entry
    /// of `conditions`, in the shape of its `and`/`or`/`not` nodes.
    pub condition_spans: Vec<CondSpans>,
    /// The actions, each with the span of its line.
    pub actions: Vec<Spanned<ir::Action>>,
    /// Where the rule is written.
    pub origin: Origin,
    /// The index of its file in the [`LoadedSources`] files.
    pub file: usize,
    /// The rule's header span, for diagnostics about the whole rule.
    pub span: Span,
}

impl CheckedRule {
    /// Calls `f` on each regex the rule uses, in its conditions and its
    /// actions.
    pub(crate) fn each_regex_mut(&mut self, f: &mut dyn FnMut(&mut crate::ir::RegexId)) {
        for condition in &mut self.conditions {
            condition.node.each_regex_mut(f);
        }
        for action in &mut self.actions {
            action.node.each_regex_mut(f);
        }
    }
}

/// Where a part of a rule's condition is written: a tree that mirrors the
/// `and`, `or` and `not` nodes of one of [`CheckedRule::conditions`] (two
/// children for `and`/`or`, one for `not`, none for every other expression).
/// Leaves inside a macro point into the macro's body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CondSpans {
    /// The file, an index into the [`LoadedSources`] files.
    pub file: usize,
    /// The text of this part.
    pub span: Span,
    /// The operands of an `and`, `or` or `not`.
    pub children: Vec<CondSpans>,
}

/// What the checker learned of each regex, by its source (hashed with the
/// compiler's fast hasher: the keys are the policy's own text).
pub(crate) type RegexFactsMap = HashMap<RegexSource, RegexFacts, Fast>;

/// What the checker learned of a regex from its syntax tree, once.
#[derive(Clone, Debug, Default)]
pub struct RegexFacts {
    /// The names of its named groups, in order (what captures bind).
    pub groups: Vec<String>,
    /// Its shortest match and assertions.
    pub shape: RegexShape,
    /// True when it has a Unicode word boundary, which the DFAs cannot
    /// decide on non-ASCII text.
    pub unicode_boundary: bool,
    /// The states of its NFA as the runtime compiles it (no captures): the
    /// Pike VM's worst-case steps per byte.
    pub nfa_states: NfaStates,
    /// The longest literal every match contains, found in its top-level
    /// sequence: what the field matchers prefilter it by when a field has
    /// more regexes than one DFA takes. `None` when there is none (or it
    /// is not UTF-8).
    pub required_literal: Option<String>,
    /// True when it has a counted repetition of six or more (`x{6}`,
    /// `x{2,8}`): only such a regex may have a DFA too large for the
    /// field's, and needs the trial build that tells.
    pub long_repetition: bool,
    /// The literals every match contains one of, lower-case ASCII, as the
    /// program's `regex_needs` holds them (see `needs`); empty when none
    /// is worth a scan.
    pub needs: Vec<String>,
}

/// What the regex parser says about a regex's matches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RegexShape {
    /// The length of the shortest match; `None` when nothing matches.
    pub minimum_len: Option<usize>,
    /// True when its only assertions are start-of-text ones, or only
    /// end-of-text ones (or it has none).
    pub one_end_only: bool,
}

impl RegexShape {
    /// The shape of the regex `hir` is the tree of.
    pub(crate) fn of(hir: &regex_syntax::hir::Hir) -> RegexShape {
        use regex_syntax::hir::Look;
        let props = hir.properties();
        let looks = props.look_set();
        RegexShape {
            minimum_len: props.minimum_len(),
            one_end_only: looks
                .iter()
                .all(|l| matches!(l, Look::Start | Look::StartLF | Look::StartCRLF))
                || looks
                    .iter()
                    .all(|l| matches!(l, Look::End | Look::EndLF | Look::EndCRLF)),
        }
    }
}

/// How many states a regex's NFA has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NfaStates {
    /// Counted on the NFA, built.
    Exactly(u64),
    /// An upper bound from the syntax tree: a small regex needs no NFA
    /// built to know it fits.
    AtMost(u64),
}

impl Default for NfaStates {
    fn default() -> NfaStates {
        NfaStates::Exactly(0)
    }
}

/// The rules checked and lowered, and every finding: what the lints judge
/// and the compiler indexes.
#[derive(Clone, Debug, Default)]
pub struct Checked {
    /// The schema's name.
    pub schema: String,
    /// Every point of the schema, in its order, with its kind and how the
    /// schema's host applies edits between rules.
    pub points: Vec<ir::SchemaPoint>,
    /// What command hooks read on stdin under the schema.
    pub command_input: CommandInput,
    /// Rules of the root files, in declaration order.
    pub rules: Vec<CheckedRule>,
    /// Regexes the rules use, each once.
    pub regexes: Vec<RegexSource>,
    /// What parsing each regex written in the rules found (not the globs
    /// and case-folded comparisons the lowering builds): the lints read it
    /// instead of parsing every regex again.
    pub regex_facts: RegexFactsMap,
    /// File names, indexed by [`Origin::file`].
    pub files: Vec<String>,
    /// Errors, warnings and notes.
    pub diagnostics: Diagnostics,
}

/// What checking the syntax trees found: the diagnostics of names, types,
/// overrides and tests, and what the lowering and the lints read.
pub(crate) struct Analysis<'a> {
    /// The schema the rules are checked against.
    pub(crate) schema: Schema,
    /// The names each file sees.
    pub(crate) scopes: Vec<names::Scope>,
    /// The `+=` extensions of every list.
    pub(crate) extensions: overrides::ListExtensions<'a>,
    /// The rules of the root files that passed, in declaration order.
    pub(crate) rules: Vec<TypedRule<'a>>,
    /// The regexes and globs the rules write, parsed once.
    pub(crate) catalog: RegexCatalog,
    /// File names, indexed by [`Origin::file`].
    pub(crate) files: Vec<String>,
    /// Errors, warnings and notes.
    pub(crate) diagnostics: Diagnostics,
}

/// Checks every root file of a load: resolves names and the schema,
/// checks types, applies the overrides and checks the tests. Lowering the
/// rules that pass is the compiler's (`compile::lower`); the lints run on
/// what it lowers ([`Analysis::lint`]).
pub(crate) fn check(loaded: &LoadedSources) -> Analysis<'_> {
    check_on(loaded, None)
}

/// [`check`], type-checking on `threads` threads (`None`: as many as the
/// hooks are worth).
fn check_on(loaded: &LoadedSources, threads: Option<usize>) -> Analysis<'_> {
    let mut diagnostics = Diagnostics::default();
    let files = loaded
        .files
        .iter()
        .map(|f| f.source.name.to_string())
        .collect();
    let schema = resolve_schema(loaded, &mut diagnostics);
    let scopes = names::scopes(loaded, &mut diagnostics);
    let extensions = overrides::ListExtensions::new(loaded, &scopes);
    // What is said of files and ids, and the hooks to type-check, in the
    // order their findings are reported.
    let mut work: Vec<Work<'_, '_>> = Vec::new();
    let mut ids: HashMap<String, (usize, Span)> = HashMap::new();
    for (fi, file) in loaded.files.iter().enumerate() {
        let hooks = file.ast.items.iter().filter_map(|item| match item {
            ast::Item::Hook(h) => Some(h),
            _ => None,
        });
        if !file.root {
            if let Some(first) = hooks.clone().next() {
                work.push(Work::Said(
                    Diagnostic::warning(
                        "imported-rules",
                        format!("rules in imported file `{}` are not compiled", file.source.name),
                    )
                    .in_file(&file.source)
                    .with_primary(first.header_span, "this rule is ignored")
                    .with_help("an import brings lists, patterns and macros; name the file on the command line to compile its rules"),
                ));
            }
            continue;
        }
        let Some(scope) = scopes.get(fi) else {
            continue;
        };
        for hook in hooks {
            if let Some((first_file, first_span)) = ids.get(&hook.id.name) {
                let mut d = Diagnostic::error(
                    "duplicate-id",
                    format!("duplicate hook id `{}`", hook.id.name),
                )
                .in_file(&file.source)
                .with_primary(hook.id.span, "defined again here");
                if *first_file == fi {
                    d = d.with_secondary(*first_span, "first defined here");
                } else if let Some(other) = loaded.files.get(*first_file) {
                    let (line, col) = other.source.line_col(first_span.start);
                    d = d.with_help(format!(
                        "first defined at {}:{line}:{col}; hook ids must be unique across the compiled set",
                        other.source.name
                    ));
                }
                work.push(Work::Said(d.with_help_if_none(
                    "hook ids must be unique across the compiled set",
                )));
            } else {
                ids.insert(hook.id.name.clone(), (fi, hook.id.span));
            }
            work.push(Work::Hook {
                file: fi,
                scope,
                hook,
            });
        }
    }
    let shared = Shared {
        loaded,
        scopes: &scopes,
        extensions: &extensions,
        schema: &schema,
    };
    let (checked, catalog) = type_check(&shared, &work, threads);
    let mut typed = Vec::new();
    for (item, found) in work.into_iter().zip(checked) {
        match (item, found) {
            (Work::Said(d), _) => diagnostics.push(d),
            (Work::Hook { .. }, Some((rule, found))) => {
                diagnostics.extend(found);
                typed.extend(rule);
            }
            (Work::Hook { .. }, None) => {}
        }
    }
    overrides::check_extensions(loaded, &scopes, &mut diagnostics);
    overrides::apply(loaded, &mut typed, &mut diagnostics);
    scenarios::check(
        loaded,
        &scopes,
        &extensions,
        &schema,
        &ids,
        &mut diagnostics,
    );
    dedup_unknown_fields(&mut diagnostics);
    Analysis {
        schema,
        scopes,
        extensions,
        rules: typed,
        catalog,
        files,
        diagnostics,
    }
}

impl Analysis<'_> {
    /// Runs the [`lints`] at `levels` (overridden per rule by `# hookc:
    /// allow(…)` comments) on `rules`, lowered from [`Analysis::rules`] with
    /// `regexes`, for a host that keeps `rate(…)` counts in `rate_store`
    /// (`None`: its default) and a compile whose regexes leave the field
    /// DFAs above `budgets.pattern_dfa` ([`crate::Options::pattern_dfa_budget`]),
    /// as the `regex-cost` lint reports them, and the wait on effects the
    /// `point-cost` lint allows a point. Their findings follow the check's.
    ///
    /// `alongside` runs on the checked rules, on this thread, while the
    /// lints run on another: the compiler builds the table meanwhile (the
    /// lints only read the rules, and are a quarter of a large compile).
    #[expect(
        clippy::too_many_arguments,
        reason = "lint's arguments and the work to run beside it"
    )]
    pub(crate) fn lint<R>(
        self,
        loaded: &LoadedSources,
        rules: Vec<CheckedRule>,
        regexes: Vec<RegexSource>,
        levels: &LintLevels,
        rate_store: Option<&crate::store::StoreSpec>,
        budgets: lints::Budgets,
        alongside: impl FnOnce(&Checked) -> R,
    ) -> (Checked, R) {
        let mut checked = Checked {
            schema: self.schema.name.clone(),
            points: self
                .schema
                .points
                .iter()
                .map(|p| ir::SchemaPoint {
                    name: p.name.clone(),
                    kind: p.kind,
                    edits: p.edits.clone(),
                })
                .collect(),
            command_input: self.schema.command_input,
            rules,
            regexes,
            regex_facts: self.catalog.facts,
            files: self.files,
            diagnostics: self.diagnostics,
        };
        let (schema, scopes) = (&self.schema, &self.scopes);
        let (found, result) = std::thread::scope(|scope| {
            let shared = &checked;
            let lints = scope.spawn(move || {
                lints::run(loaded, schema, scopes, shared, levels, rate_store, budgets)
            });
            let result = alongside(shared);
            // A lint that panics panics the compile, as it would inline.
            let found = lints
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (found, result)
        });
        checked.diagnostics.extend(found);
        (checked, result)
    }
}

/// One step of [`check`]'s pass over the root files, in report order.
enum Work<'a, 'r> {
    /// A finding about a file or an id.
    Said(Diagnostic),
    /// A hook to type-check, in its file's scope.
    Hook {
        file: usize,
        scope: &'r names::Scope,
        hook: &'a ast::Hook,
    },
}

/// What every hook's type check reads.
struct Shared<'a, 'r> {
    loaded: &'a LoadedSources,
    scopes: &'r [names::Scope],
    extensions: &'r overrides::ListExtensions<'a>,
    schema: &'r Schema,
}

/// Per item of the work, for a hook: the rule it gives if it checks, and
/// its findings.
type HookChecked<'a> = Option<(Option<TypedRule<'a>>, Diagnostics)>;

/// From this many hooks on, hooks are type-checked on more than one
/// thread: below it, starting one costs more than it saves.
const PARALLEL_HOOKS: usize = 512;

/// The most threads the type check uses.
const MAX_CHECK_THREADS: usize = 8;

/// Type-checks the hooks of `work` (on `threads` threads; `None`: as many
/// as they are worth): per item, for a hook, the rule it
/// gives (if it checks) and its findings; and the regexes they use.
///
/// Each hook is checked on its own (a checker per hook), so many hooks are
/// split into runs checked on threads, each with its own catalog of
/// regexes (a cache: the same regex gives the same facts on every thread);
/// the findings are put back in the hooks' order.
fn type_check<'a>(
    shared: &Shared<'a, '_>,
    work: &[Work<'a, '_>],
    threads: Option<usize>,
) -> (Vec<HookChecked<'a>>, RegexCatalog) {
    let hooks = work
        .iter()
        .filter(|w| matches!(w, Work::Hook { .. }))
        .count();
    let threads = threads
        .unwrap_or_else(|| crate::parallel::threads(hooks, PARALLEL_HOOKS, MAX_CHECK_THREADS));
    let runs: Vec<&[Work<'a, '_>]> = work.chunks(work.len().div_ceil(threads).max(1)).collect();
    let mut parts = crate::parallel::map_in_order(&runs, |run| check_run(shared, run)).into_iter();
    let (mut checked, mut catalog) = parts.next().unwrap_or_default();
    for (more, their) in parts {
        checked.extend(more);
        catalog.facts.extend(their.facts);
        catalog.globs.extend(their.globs);
    }
    (checked, catalog)
}

/// [`type_check`] of one run of `work`, on this thread.
fn check_run<'a>(
    shared: &Shared<'a, '_>,
    work: &[Work<'a, '_>],
) -> (Vec<HookChecked<'a>>, RegexCatalog) {
    let mut catalog = RegexCatalog::default();
    let checked = work
        .iter()
        .map(|item| {
            let Work::Hook { file, scope, hook } = *item else {
                return None;
            };
            let mut diagnostics = Diagnostics::default();
            let mut cx = typeck::TypeChecker {
                loaded: shared.loaded,
                file,
                scopes: shared.scopes,
                scope,
                extensions: shared.extensions,
                schema: shared.schema,
                points: Vec::new(),
                regexes: &mut catalog,
                diagnostics: &mut diagnostics,
                macro_stack: Vec::new(),
                vars: Vec::new(),
                captures: Vec::new(),
            };
            let rule = cx.hook(hook);
            Some((rule, diagnostics))
        })
        .collect();
    (checked, catalog)
}

/// Drops repeats of an `unknown-field` warning (same message at the same
/// place): a macro that reads an undeclared field is lowered once per rule
/// that uses it, and says so once. One pass with a set, so that thousands of
/// warnings cost no more than thousands of rules.
fn dedup_unknown_fields(diagnostics: &mut Diagnostics) {
    let mut seen: HashSet<(Option<Arc<str>>, Option<Span>, String)> = HashSet::new();
    diagnostics.0.retain(|d| {
        d.code != "unknown-field"
            || d.severity != Severity::Warning
            || seen.insert((
                d.file.as_ref().map(|f| Arc::clone(&f.name)),
                d.primary_span(),
                d.message.clone(),
            ))
    });
}

/// Adds the help of an `unknown-point` error to `d`: the point of another
/// built-in schema it names (with the `schema` line that makes it one),
/// else the point of `schema` it probably meant (a suggestion replacing
/// `span`, the point as written, when there is one), else where to read
/// its points.
pub(crate) fn unknown_point_help(
    d: Diagnostic,
    point: &str,
    span: Option<Span>,
    schema: &Schema,
) -> Diagnostic {
    if let Some(other) = crate::systems::builtin_schema_with_point(point, &schema.name) {
        return d.with_help(format!(
            "`{point}` is a point of the `{other}` schema, not of `{}`: declare `schema {other}` in the file",
            schema.name
        ));
    }
    if let Some(s) = suggest(point, schema.points.iter().map(|p| p.name.as_str())) {
        return match span {
            Some(span) => d.with_suggestion(span, s),
            None => d.with_help(format!("did you mean `{s}`?")),
        };
    }
    d.with_help(
        if crate::systems::BUILTIN_SCHEMAS.contains(&schema.name.as_str()) {
            format!(
                "run `hookc schema {}` for the points of the `{}` schema",
                schema.name, schema.name
            )
        } else {
            format!(
                "run `hookc schema FILE` on the schema file for the points of the `{}` schema",
                schema.name
            )
        },
    )
}

/// The schema the root files declare (`schema NAME` or `schema "file"`),
/// `orcs` when none does; conflicts and unreadable schema files are
/// reported.
pub(crate) fn resolve_schema(loaded: &LoadedSources, diagnostics: &mut Diagnostics) -> Schema {
    let mut chosen: Option<(Schema, usize, Span)> = None;
    // A schema file that does not load: check against no points rather
    // than against `orcs`, so its rules get no misleading errors.
    let mut failed = false;
    // Schema files already read, so their errors are reported once.
    let mut read: Vec<(std::path::PathBuf, Option<Schema>)> = Vec::new();
    for (fi, file) in loaded.files.iter().enumerate().filter(|(_, f)| f.root) {
        for item in &file.ast.items {
            let ast::Item::Schema(decl) = item else {
                continue;
            };
            let schema = match &decl.schema {
                ast::SchemaRef::Builtin(name) => match crate::systems::builtin_schema(&name.name) {
                    Some(s) => s,
                    None => {
                        let mut d = Diagnostic::error(
                            "unknown-schema",
                            format!("unknown schema `{}`", name.name),
                        )
                        .in_file(&file.source)
                        .with_primary(name.span, "not a built-in schema");
                        d = match suggest(
                            &name.name,
                            crate::systems::BUILTIN_SCHEMAS.iter().copied(),
                        ) {
                            Some(s) => d.with_suggestion(name.span, s),
                            None => d.with_help(format!(
                                "built-in schemas: {}",
                                crate::systems::BUILTIN_SCHEMAS.join(", ")
                            )),
                        };
                        diagnostics.push(d);
                        continue;
                    }
                },
                ast::SchemaRef::Path(path) => {
                    match custom_schema(file, path, &mut read, diagnostics) {
                        Some(s) => s,
                        None => {
                            failed = true;
                            continue;
                        }
                    }
                }
            };
            match &chosen {
                Some((first, ffi, fspan)) if first.name != schema.name => {
                    let mut d = Diagnostic::error(
                        "schema-conflict",
                        format!(
                            "schema `{}` conflicts with schema `{}`",
                            schema.name, first.name
                        ),
                    )
                    .in_file(&file.source)
                    .with_primary(decl.span, "declared here");
                    if *ffi == fi {
                        d = d.with_secondary(*fspan, "first declared here");
                    }
                    diagnostics
                        .push(d.with_help("all files compiled together must use one schema"));
                }
                Some(_) => {}
                None => chosen = Some((schema, fi, decl.span)),
            }
        }
    }
    if failed && chosen.is_none() {
        return Schema {
            name: "custom".to_string(),
            doc: String::new(),
            points: Vec::new(),
            command_input: CommandInput::Context,
            component_scope: None,
        };
    }
    chosen
        .map(|(s, _, _)| s)
        .or_else(|| crate::systems::builtin_schema("orcs"))
        .unwrap_or_else(|| Schema {
            name: "orcs".to_string(),
            doc: String::new(),
            points: Vec::new(),
            command_input: CommandInput::Context,
            component_scope: None,
        })
}

/// Reads and parses the schema file a `schema "path"` declaration names
/// (relative to the declaring file). Problems become diagnostics: I/O at the
/// declaration, TOML and format errors inside the schema file.
fn custom_schema(
    file: &crate::load::LoadedFile,
    path: &ast::StrLit,
    read: &mut Vec<(std::path::PathBuf, Option<Schema>)>,
    diagnostics: &mut Diagnostics,
) -> Option<Schema> {
    let base = file
        .path
        .as_ref()
        .and_then(|p| p.parent().map(std::path::Path::to_path_buf))
        .unwrap_or_default();
    let target = base.join(&path.value);
    let key = target.canonicalize().ok();
    if let Some((_, schema)) = key
        .as_ref()
        .and_then(|k| read.iter().find(|(seen, _)| seen == k))
    {
        return schema.clone();
    }
    let text = match std::fs::read_to_string(&target) {
        Ok(text) => text,
        Err(e) => {
            let reason = match e.kind() {
                std::io::ErrorKind::NotFound => "no such file".to_string(),
                std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
                std::io::ErrorKind::IsADirectory => "it is a directory".to_string(),
                _ => e.to_string(),
            };
            diagnostics.push(
                Diagnostic::error(
                    "schema-not-found",
                    format!("cannot read schema `{}`: {reason}", path.value),
                )
                .in_file(&file.source)
                .with_primary(path.span, "schema named here")
                .with_help(format!(
                    "the path is relative to this file: `{}`; built-in schemas are {}",
                    target.display(),
                    crate::systems::BUILTIN_SCHEMAS.join(", ")
                )),
            );
            return None;
        }
    };
    let source = crate::span::SourceFile::new(target.display().to_string(), text);
    let schema = match crate::schema::custom::parse(&source) {
        Ok(schema) => Some(schema),
        Err(found) => {
            diagnostics.extend(found);
            None
        }
    };
    if let Some(key) = key {
        read.push((key, schema.clone()));
    }
    schema
}

trait HelpIfNone {
    fn with_help_if_none(self, help: &str) -> Self;
}

impl HelpIfNone for Diagnostic {
    fn with_help_if_none(self, help: &str) -> Diagnostic {
        if self.help.is_some() {
            self
        } else {
            self.with_help(help)
        }
    }
}

#[cfg(test)]
mod tests;
