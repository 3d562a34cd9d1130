//! Lints: findings about rules that compile but are probably wrong.
//!
//! The checker proper (names, types, lowering) says whether rules *can*
//! compile. The lints run after it, on the checked rules and the syntax tree,
//! and say whether they *mean* what their author wanted: a rule that can
//! never run, conditions that can never hold, two rules whose edits depend on
//! declaration order, definitions nobody uses, a webhook that could reach an
//! internal address.
//!
//! Every lint is one file in this directory, declared with its stable
//! kebab-case code, its default [`Level`] and its documentation. The doc
//! comment of each lint *is* its user documentation (`## What it does`,
//! `## Why is this bad?`, `## Example`); [`Lint::doc`] returns it, so
//! `hookc lint --explain CODE` and the SARIF output show the same text.
//!
//! | code | default | finds |
//! |---|---|---|
//! | `unreachable-rule` | warn | a rule an earlier rule always ends the chain before |
//! | `duplicate-condition` | warn | a condition tested twice, or implied by another of the rule |
//! | `contradictory-condition` | warn | conditions that can never all hold |
//! | `edit-conflict` | warn | two rules at one priority editing the same field |
//! | `priority-tie` | note | two rules at one priority from different files |
//! | `conflicting-decisions` | warn | two rules at one priority that answer one event differently |
//! | `unused-definition` | warn | a list, pattern or macro nothing uses |
//! | `unused-import` | warn | an import none of whose definitions are used |
//! | `empty-list` | warn | `list x = []` |
//! | `regex-matches-empty` | warn | a `matches` regex that matches every string |
//! | `glob-never-matches` | warn | a `glob` on a field that is not a string |
//! | `inexact-integer` | warn | an integer literal beyond 64 bits, read as the nearest float |
//! | `insecure-webhook` | deny | a webhook that is not https or names an internal host |
//! | `rate-without-store` | warn | a `rate(…)` for a host of one process per event, counted in memory |
//! | `bidi-control` | warn | a raw bidirectional control character in a string or regex ("Trojan Source") |
//! | `regex-cost` | warn | a `matches` regex too large for the field's DFA, with its cost per byte |
//! | `unicode-class-cost` | warn | a `matches` regex whose Unicode `\w`, `\s`, `\d` or `\b` makes its automaton several times larger than ASCII ones would |
//! | `point-cost` | allow | a point where one event can wait longer on commands and handlers than the budget |
//!
//! # Levels
//!
//! Each lint is `allow` (not reported), `warn` (a warning), or `deny` (an
//! error: the rules do not compile and `hookc lint` exits 1); `note` reports
//! without counting as a warning. The level is, from the most specific:
//!
//! 1. an inline comment on the line of the item (`hook`, `list`, `pattern`,
//!    `macro`, `import`) or in the comment block right above it:
//!
//!    ```text
//!    # hookc: allow(edit-conflict, priority-tie)
//!    hook tag on tool.pre_execute { set payload.tag = "a" }
//!    ```
//!
//!    `allow`, `warn`, `deny` and `note` take a comma-separated list of codes;
//!    a lint about two rules (an edit conflict, a tie, an unreachable rule)
//!    honours a comment on either;
//! 2. the `[lints]` table of `hookc.toml` ([`crate::config`]);
//! 3. the lint's default.
//!
//! An unknown code in a comment is a warning (`unknown-lint`) with a
//! did-you-mean; so is a comment that does not parse (`malformed-directive`).

use super::names::Scope;
use super::{Checked, CheckedRule};
use crate::diag::{Diagnostic, Diagnostics, Severity};
use crate::ir::{RegexId, RegexSource};
use crate::load::LoadedSources;
use crate::schema::Schema;
use crate::span::{SourceFile, Span};
use crate::syntax::ast;
use std::cell::OnceCell;
use std::collections::{BTreeMap, HashMap};
use std::fmt;

mod logic;
mod walk;

mod bidi_control;
mod conflicting_decisions;
mod contradictory_condition;
mod duplicate_condition;
mod edit_conflict;
mod empty_list;
mod glob_never_matches;
mod inexact_integer;
mod insecure_webhook;
mod point_cost;
mod priority_tie;
mod quadratic_quantifier;
mod rate_without_store;
mod regex_cost;
mod regex_matches_empty;
mod template_in_condition;
mod unicode_class_cost;
mod unreachable_rule;
mod unused_definition;
mod unused_import;

pub use bidi_control::BIDI_CONTROL;
pub use conflicting_decisions::CONFLICTING_DECISIONS;
pub use contradictory_condition::CONTRADICTORY_CONDITION;
pub use duplicate_condition::DUPLICATE_CONDITION;
pub use edit_conflict::EDIT_CONFLICT;
pub use empty_list::EMPTY_LIST;
pub use glob_never_matches::GLOB_NEVER_MATCHES;
pub use inexact_integer::INEXACT_INTEGER;
pub use insecure_webhook::INSECURE_WEBHOOK;
pub use point_cost::POINT_COST;
pub use priority_tie::PRIORITY_TIE;
pub use quadratic_quantifier::QUADRATIC_QUANTIFIER;
pub use rate_without_store::RATE_WITHOUT_STORE;
pub use regex_cost::REGEX_COST;
pub use regex_matches_empty::REGEX_MATCHES_EMPTY;
pub use template_in_condition::TEMPLATE_IN_CONDITION;
pub use unicode_class_cost::UNICODE_CLASS_COST;
pub use unreachable_rule::UNREACHABLE_RULE;
pub use unused_definition::UNUSED_DEFINITION;
pub use unused_import::UNUSED_IMPORT;

/// Every lint, in the order they run (and are listed in docs and SARIF).
pub static LINTS: &[&Lint] = &[
    &UNREACHABLE_RULE,
    &DUPLICATE_CONDITION,
    &CONTRADICTORY_CONDITION,
    &EDIT_CONFLICT,
    &PRIORITY_TIE,
    &CONFLICTING_DECISIONS,
    &UNUSED_DEFINITION,
    &UNUSED_IMPORT,
    &EMPTY_LIST,
    &REGEX_MATCHES_EMPTY,
    &GLOB_NEVER_MATCHES,
    &TEMPLATE_IN_CONDITION,
    &INEXACT_INTEGER,
    &QUADRATIC_QUANTIFIER,
    &INSECURE_WEBHOOK,
    &RATE_WITHOUT_STORE,
    &BIDI_CONTROL,
    &REGEX_COST,
    &UNICODE_CLASS_COST,
    &POINT_COST,
];

/// The lint with a code, if there is one.
pub fn lint(code: &str) -> Option<&'static Lint> {
    LINTS.iter().copied().find(|l| l.code == code)
}

/// The lints as SARIF rule descriptions: code, summary, documentation and
/// default level.
pub fn sarif_rules() -> Vec<crate::diag::sarif::RuleInfo> {
    LINTS
        .iter()
        .map(|l| crate::diag::sarif::RuleInfo {
            id: l.code.to_string(),
            short: l.summary(),
            help: l.doc(),
            default: l.default.severity().unwrap_or(Severity::Warning),
        })
        .collect()
}

/// The lint codes, in registry order.
pub fn codes() -> impl Iterator<Item = &'static str> {
    LINTS.iter().map(|l| l.code)
}

/// How a lint's findings are reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// Not reported.
    Allow,
    /// Reported as a note: shown, never a failure.
    Note,
    /// Reported as a warning: the rules still compile (`--deny-warnings`
    /// makes `hookc lint` fail on it).
    Warn,
    /// Reported as an error: the rules do not compile.
    Deny,
}

impl Level {
    /// The level named `name` (`allow`, `note`, `warn`, `deny`).
    pub fn from_name(name: &str) -> Option<Level> {
        Some(match name {
            "allow" => Level::Allow,
            "note" => Level::Note,
            "warn" => Level::Warn,
            "deny" => Level::Deny,
            _ => return None,
        })
    }

    /// The level's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Allow => "allow",
            Level::Note => "note",
            Level::Warn => "warn",
            Level::Deny => "deny",
        }
    }

    /// The names accepted by [`Level::from_name`].
    pub const NAMES: [&'static str; 4] = ["allow", "note", "warn", "deny"];

    /// The severity a finding at this level is reported with; `None` for
    /// `allow`.
    pub fn severity(self) -> Option<Severity> {
        match self {
            Level::Allow => None,
            Level::Note => Some(Severity::Note),
            Level::Warn => Some(Severity::Warning),
            Level::Deny => Some(Severity::Error),
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Levels set for some lints (by `hookc.toml`), the others at their default.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LintLevels {
    levels: BTreeMap<&'static str, Level>,
}

impl LintLevels {
    /// No lint set: every lint at its default.
    pub fn new() -> LintLevels {
        LintLevels::default()
    }

    /// Sets the level of the lint `code`; false (and nothing set) when no
    /// lint has that code.
    pub fn set(&mut self, code: &str, level: Level) -> bool {
        match lint(code) {
            Some(l) => {
                self.levels.insert(l.code, level);
                true
            }
            None => false,
        }
    }

    /// The level set for `code`, if one was.
    pub fn get(&self, code: &str) -> Option<Level> {
        self.levels.get(code).copied()
    }

    /// The level `lint` runs at: the one set, or its default.
    pub fn level(&self, lint: &Lint) -> Level {
        self.get(lint.code).unwrap_or(lint.default)
    }

    /// True when no level is set.
    pub fn is_empty(&self) -> bool {
        self.levels.is_empty()
    }
}

/// One lint: a stable code, a default level, its documentation and the
/// check that finds it.
pub struct Lint {
    /// The stable kebab-case code, e.g. `unreachable-rule`.
    pub code: &'static str,
    /// The level it runs at unless configured.
    pub default: Level,
    /// The doc comment, one line per `///` line.
    raw_doc: &'static str,
    /// Finds the lint's findings and hands them to the sink.
    check: fn(&Cx<'_>, &mut Sink<'_>),
}

impl fmt::Debug for Lint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Lint")
            .field("code", &self.code)
            .field("default", &self.default)
            .finish_non_exhaustive()
    }
}

impl Lint {
    /// The lint's documentation as Markdown: `## What it does`,
    /// `## Why is this bad?`, `## Example`.
    pub fn doc(&self) -> String {
        let mut out = String::new();
        for line in self.raw_doc.lines() {
            out.push_str(line.strip_prefix(' ').unwrap_or(line));
            out.push('\n');
        }
        out.trim().to_string()
    }

    /// One line: the first sentence under `## What it does`, up to its
    /// first colon.
    pub fn summary(&self) -> String {
        let doc = self.doc();
        let body = doc
            .split("## What it does")
            .nth(1)
            .unwrap_or(&doc)
            .trim_start();
        let para = body
            .split("\n\n")
            .next()
            .unwrap_or("")
            .lines()
            .map(str::trim)
            .collect::<Vec<_>>()
            .join(" ");
        let end = [para.find(": "), para.find(". ")]
            .into_iter()
            .flatten()
            .min()
            .unwrap_or(para.len());
        para.get(..end)
            .unwrap_or(&para)
            .trim_end_matches(['.', ':'])
            .to_string()
    }
}

/// Declares a lint: its doc comment (the user documentation), its static
/// name, code, default level and check function.
macro_rules! declare_lint {
    (
        $(#[doc = $doc:literal])+
        pub static $name:ident = $code:literal, $level:ident, $check:path;
    ) => {
        $(#[doc = $doc])+
        pub static $name: $crate::check::lints::Lint = $crate::check::lints::Lint {
            code: $code,
            default: $crate::check::lints::Level::$level,
            raw_doc: concat!($($doc, "\n"),+),
            check: $check,
        };
    };
}
pub(crate) use declare_lint;

/// Runs every lint not allowed and returns its findings, sorted by file and
/// position.
pub(crate) fn run(
    loaded: &LoadedSources,
    schema: &Schema,
    scopes: &[Scope],
    checked: &Checked,
    levels: &LintLevels,
    rate_store: Option<&crate::store::StoreSpec>,
    budgets: Budgets,
) -> Diagnostics {
    let mut found = Vec::new();
    let directives: Vec<Vec<Directive>> = loaded
        .files
        .iter()
        .enumerate()
        .map(|(fi, f)| {
            if f.root {
                directives(fi, &f.source, &mut found)
            } else {
                Vec::new()
            }
        })
        .collect();
    let always = found.len();
    let active: Vec<&Lint> = LINTS
        .iter()
        .copied()
        .filter(|lint| levels.level(lint) != Level::Allow || may_be_raised(&directives, lint))
        .collect();
    // `unreachable-rule` searches string languages, and is most of the
    // lints' time on a large rule set: it runs on a thread of its own,
    // with a context of its own (the contexts cache what they compute).
    let alone = |lint: &&Lint| std::ptr::eq(*lint, &UNREACHABLE_RULE);
    let (slow, rest): (Vec<&Lint>, Vec<&Lint>) = active.iter().copied().partition(alone);
    let run_some = |lints: &[&Lint]| -> Vec<Vec<(usize, Diagnostic)>> {
        let mut cx = Cx::new(loaded, schema, scopes, checked);
        cx.rate_store = rate_store;
        cx.pattern_dfa_budget = budgets.pattern_dfa;
        cx.point_timeout_budget_ms = budgets.point_timeout_ms;
        let mut sink = Sink {
            levels,
            loaded,
            directives: &directives,
            out: Vec::new(),
            seen: std::collections::HashSet::new(),
        };
        lints
            .iter()
            .map(|lint| {
                (lint.check)(&cx, &mut sink);
                std::mem::take(&mut sink.out)
            })
            .collect()
    };
    let (slow_found, rest_found) = std::thread::scope(|scope| {
        let slow_run = (!slow.is_empty()).then(|| scope.spawn(|| run_some(&slow)));
        let rest_found = run_some(&rest);
        let slow_found = match slow_run {
            // A lint that panics panics the compile, as it would inline.
            Some(run) => run.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
            None => Vec::new(),
        };
        (slow_found, rest_found)
    });
    // In the lints' order, as one run would have found them.
    let (mut slow_found, mut rest_found) = (slow_found.into_iter(), rest_found.into_iter());
    for lint in &active {
        let next = if alone(lint) {
            slow_found.next()
        } else {
            rest_found.next()
        };
        found.extend(next.unwrap_or_default());
    }
    let mut rest = found.split_off(always);
    rest.sort_by_key(|(file, d)| (*file, d.primary_span().map_or(0, |s| s.start)));
    found.extend(rest);
    Diagnostics(found.into_iter().map(|(_, d)| d).collect())
}

/// True when an inline comment somewhere raises `lint` above `allow`, so
/// an allowed lint must still run.
fn may_be_raised(directives: &[Vec<Directive>], lint: &Lint) -> bool {
    directives
        .iter()
        .flatten()
        .any(|d| d.level != Level::Allow && d.codes.iter().any(|c| c == lint.code))
}

/// The budgets the cost lints compare with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budgets {
    /// [`crate::Options::pattern_dfa_budget`], for `regex-cost`.
    pub pattern_dfa: usize,
    /// [`crate::Options::point_timeout_budget_ms`], for `point-cost`.
    pub point_timeout_ms: u64,
}

/// What the lints look at: the files, the schema, each file's scope, and the
/// checked rules.
pub(crate) struct Cx<'a> {
    /// Every file, roots and imports.
    pub(crate) loaded: &'a LoadedSources,
    /// The schema the rules were checked against.
    pub(crate) schema: &'a Schema,
    /// The names each file sees.
    pub(crate) scopes: &'a [Scope],
    /// The checked rules (of the root files).
    pub(crate) rules: &'a [CheckedRule],
    /// Their regexes, by [`RegexId`].
    regexes: &'a [RegexSource],
    /// What the checker learned of the regexes written in the rules.
    pub(crate) regex_facts: &'a crate::check::RegexFactsMap,
    /// False when a file did not parse (or could not be read): then the
    /// trees are partial, and a name a lost rule used would look unused.
    pub(crate) complete: bool,
    /// Where the host keeps `rate(…)` counts (`[rate] store`); `None`: its
    /// default.
    pub(crate) rate_store: Option<&'a crate::store::StoreSpec>,
    /// The compile's [`crate::Options::pattern_dfa_budget`]: a regex whose
    /// DFA alone is larger is matched on its own.
    pub(crate) pattern_dfa_budget: usize,
    /// The compile's [`crate::Options::point_timeout_budget_ms`]: the most
    /// one event at a point may wait on commands and handlers.
    pub(crate) point_timeout_budget_ms: u64,
    compiled: Vec<OnceCell<Option<regex::Regex>>>,
    shapes: std::cell::RefCell<HashMap<RegexSource, Option<RegexShape>>>,
    hooks: HashMap<(usize, u32), &'a ast::Hook>,
    by_point: OnceCell<Vec<PointRules>>,
    /// Each rule's conjuncts ([`logic::conjuncts`]), by index into
    /// [`Cx::rules`]: most lints that compare conditions read them.
    conjuncts: OnceCell<Vec<Vec<logic::Conjunct<'a>>>>,
    /// Every regex a `matches` tests, where it is used: the regex lints
    /// read them all, and one walk of the rules serves them.
    matched: OnceCell<Vec<walk::MatchedRegex<'a>>>,
    /// The answers of [`Cx::text_never`], and the DFAs they were found
    /// with.
    inclusions: std::cell::RefCell<Inclusions>,
}

/// The string-language inclusions decided in one lint run.
struct Inclusions {
    automata: crate::strings::Automata,
    /// By two string tests (each with whether it holds): whether no
    /// string is in both languages.
    answers: HashMap<(TextTest, TextTest), bool>,
    /// How many DFA products were searched.
    searched: usize,
}

/// A string test, and whether it holds (`false`: its complement).
type TextTest = (logic::TextKey, bool);

impl Default for Inclusions {
    fn default() -> Inclusions {
        Inclusions {
            automata: crate::strings::Automata::with_limits(INCLUSION_PATHS, INCLUSION_DFA_BYTES),
            answers: HashMap::new(),
            searched: 0,
        }
    }
}

/// The most DFA products one lint run searches to decide an inclusion:
/// past it, an inclusion not decided yet is taken as not holding (a lint
/// may miss a finding; it never makes one up). With [`INCLUSION_PATHS`],
/// this bounds what the string lints add to a compile.
const INCLUSION_SEARCHES: usize = 32;

/// The most paths one of those searches follows.
const INCLUSION_PATHS: usize = 256;

/// The most bytes one DFA of those searches takes: a regex whose DFA is
/// larger (large Unicode classes, counted repetitions) is left undecided
/// rather than determinized at length.
const INCLUSION_DFA_BYTES: usize = 1 << 17;

pub(crate) use super::RegexShape;

/// The rules of one hook point in execution order.
pub(crate) struct PointRules {
    /// The point's name.
    pub(crate) point: String,
    /// Indices into [`Cx::rules`], in execution order (priority, then
    /// declaration order).
    pub(crate) rules: Vec<usize>,
}

impl<'a> Cx<'a> {
    fn new(
        loaded: &'a LoadedSources,
        schema: &'a Schema,
        scopes: &'a [Scope],
        checked: &'a Checked,
    ) -> Cx<'a> {
        let mut hooks = HashMap::new();
        for (fi, file) in loaded.files.iter().enumerate() {
            for item in &file.ast.items {
                if let ast::Item::Hook(h) = item {
                    hooks.insert((fi, h.header_span.start), h);
                }
            }
        }
        Cx {
            loaded,
            schema,
            scopes,
            rules: &checked.rules,
            regexes: &checked.regexes,
            regex_facts: &checked.regex_facts,
            complete: !loaded.diagnostics.has_errors(),
            rate_store: None,
            pattern_dfa_budget: super::DEFAULT_PATTERN_DFA_BUDGET,
            point_timeout_budget_ms: super::DEFAULT_POINT_TIMEOUT_BUDGET_MS,
            compiled: checked.regexes.iter().map(|_| OnceCell::new()).collect(),
            shapes: std::cell::RefCell::new(HashMap::new()),
            hooks,
            by_point: OnceCell::new(),
            conjuncts: OnceCell::new(),
            matched: OnceCell::new(),
            inclusions: std::cell::RefCell::new(Inclusions::default()),
        }
    }

    /// Each rule's conjuncts ([`logic::conjuncts`]), by index into
    /// [`Cx::rules`], split once for every lint of this run.
    pub(crate) fn conjuncts(&self) -> &[Vec<logic::Conjunct<'a>>] {
        self.conjuncts
            .get_or_init(|| self.rules.iter().map(logic::conjuncts).collect())
    }

    /// Every regex a `matches` tests, where it is used
    /// ([`walk::matched_regexes`]), walked once for every lint of this run.
    fn matched_regexes(&self) -> &[walk::MatchedRegex<'a>] {
        self.matched.get_or_init(|| walk::matched_regexes(self))
    }

    /// True when no string is in both of two languages of string tests
    /// (each test, or its complement when paired with `false`), proven by
    /// a search of the product of their DFAs that finds no string
    /// ([`crate::strings::shortest`]). False when a string is found, and
    /// when the search cannot tell (a DFA too large, a limit,
    /// [`INCLUSION_SEARCHES`] reached). `langs` builds the two languages,
    /// asked only when the answer is not known yet, and only when
    /// `in_both` (a string both hold on, looked for without automata) finds
    /// none: such a string answers false at once. Either way the question
    /// counts as one search, so what the lints find does not depend on how
    /// each question was answered.
    pub(crate) fn text_never(
        &self,
        a: TextTest,
        b: TextTest,
        in_both: impl FnOnce() -> bool,
        langs: impl FnOnce() -> Option<[crate::strings::Lang; 2]>,
    ) -> bool {
        use crate::strings::{shortest, Search};
        let key = (a, b);
        if let Some(&answer) = self.inclusions.borrow().answers.get(&key) {
            return answer;
        }
        {
            let mut inclusions = self.inclusions.borrow_mut();
            if inclusions.searched >= INCLUSION_SEARCHES {
                return false;
            }
            inclusions.searched += 1;
        }
        let answer = !in_both()
            && langs().is_some_and(|langs| {
                let automata = &mut self.inclusions.borrow_mut().automata;
                matches!(shortest(automata, &langs, 1, |_| true), Search::Empty)
            });
        self.inclusions.borrow_mut().answers.insert(key, answer);
        answer
    }

    /// True while [`Cx::text_never`] may still search a product.
    pub(crate) fn text_searches_left(&self) -> bool {
        self.inclusions.borrow().searched < INCLUSION_SEARCHES
    }

    /// A shortest string in every language of `langs` that `keep` holds on,
    /// when the search finds one within its limits.
    pub(crate) fn text_example(
        &self,
        langs: &[crate::strings::Lang],
        keep: &dyn Fn(&str) -> bool,
    ) -> Option<String> {
        use crate::strings::{shortest, Search};
        let mut inclusions = self.inclusions.borrow_mut();
        if inclusions.searched >= INCLUSION_SEARCHES {
            return None;
        }
        inclusions.searched += 1;
        match shortest(&mut inclusions.automata, langs, 1, keep) {
            Search::Found(found) => found.into_iter().next(),
            _ => None,
        }
    }

    /// The syntax tree of a checked rule.
    pub(crate) fn hook(&self, rule: &CheckedRule) -> Option<&'a ast::Hook> {
        self.hooks.get(&(rule.file, rule.span.start)).copied()
    }

    /// A file's source.
    pub(crate) fn source(&self, file: usize) -> Option<&'a SourceFile> {
        self.loaded.files.get(file).map(|f| &f.source)
    }

    /// The root files with their index.
    pub(crate) fn roots(&self) -> impl Iterator<Item = (usize, &'a crate::load::LoadedFile)> {
        self.loaded.files.iter().enumerate().filter(|(_, f)| f.root)
    }

    /// A regex as written: pattern and flags.
    pub(crate) fn regex_source(&self, id: RegexId) -> Option<&'a RegexSource> {
        self.regexes.get(id.0 as usize)
    }

    /// A regex, compiled on first use; `None` when it does not compile.
    pub(crate) fn regex(&self, id: RegexId) -> Option<&regex::Regex> {
        let cell = self.compiled.get(id.0 as usize)?;
        cell.get_or_init(|| {
            let source = self.regexes.get(id.0 as usize)?;
            regex::RegexBuilder::new(&source.to_inline())
                .size_limit(crate::table::REGEX_SIZE_LIMIT)
                .build()
                .ok()
        })
        .as_ref()
    }

    /// What the parser says about a regex (parsed once per run); `None`
    /// when it does not parse.
    pub(crate) fn regex_shape(&self, source: &RegexSource) -> Option<RegexShape> {
        if let Some(facts) = self.regex_facts.get(source) {
            return Some(facts.shape);
        }
        if let Some(shape) = self.shapes.borrow().get(source) {
            return *shape;
        }
        let shape = regex_syntax::parse(&source.to_inline())
            .ok()
            .map(|hir| RegexShape::of(&hir));
        self.shapes.borrow_mut().insert(source.clone(), shape);
        shape
    }

    /// The rules of each point, in execution order.
    pub(crate) fn points(&self) -> &[PointRules] {
        self.by_point.get_or_init(|| {
            let mut map: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
            for (i, rule) in self.rules.iter().enumerate() {
                for (point, _) in &rule.points {
                    map.entry(point.as_str()).or_default().push(i);
                }
            }
            map.into_iter()
                .map(|(point, mut rules)| {
                    // Stable: declaration order among equal priorities.
                    rules.sort_by_key(|&i| self.rules.get(i).map_or(0, |r| r.priority));
                    PointRules {
                        point: point.to_string(),
                        rules,
                    }
                })
                .collect()
        })
    }

    /// The rule at an index of [`Cx::rules`].
    pub(crate) fn rule(&self, i: usize) -> Option<&'a CheckedRule> {
        self.rules.get(i)
    }

    /// `file:line:col` of a span, for help lines that point into another
    /// file.
    pub(crate) fn location(&self, file: usize, span: Span) -> String {
        match self.source(file) {
            Some(src) => {
                let (line, col) = src.line_col(span.start);
                format!("{}:{line}:{col}", src.name)
            }
            None => String::from("?"),
        }
    }
}

/// Where a finding is anchored for inline `# hookc:` comments: an item (its
/// file and span).
pub(crate) type Anchor = (usize, Span);

/// Collects findings at their configured level.
pub(crate) struct Sink<'a> {
    levels: &'a LintLevels,
    loaded: &'a LoadedSources,
    directives: &'a [Vec<Directive>],
    out: Vec<(usize, Diagnostic)>,
    seen: std::collections::HashSet<(&'static str, usize, u32, u32)>,
}

impl Sink<'_> {
    /// The level of `lint` for a finding anchored at `anchors`: the first
    /// anchor with an inline comment naming the lint decides, then the
    /// configuration, then the default.
    fn level(&self, lint: &Lint, anchors: &[Anchor]) -> Level {
        for &(file, span) in anchors {
            if let Some(level) = self.inline(lint.code, file, span) {
                return level;
            }
        }
        self.levels.level(lint)
    }

    fn inline(&self, code: &str, file: usize, span: Span) -> Option<Level> {
        let list = self.directives.get(file)?;
        if list.is_empty() {
            return None;
        }
        let source = &self.loaded.files.get(file)?.source;
        let (line, _) = source.line_col(span.start);
        // The item's own line, then the comment lines right above it.
        let mut first = line;
        while first > 1 {
            let above = source.line(first - 1).map_or("", str::trim_start);
            if above.starts_with('#') {
                first -= 1;
            } else {
                break;
            }
        }
        list.iter()
            .filter(|d| d.line >= first && d.line <= line)
            .filter(|d| d.codes.iter().any(|c| c == code))
            .map(|d| d.level)
            .next_back()
    }

    /// Reports a finding of `lint` in `file`, at the level its anchors,
    /// the configuration or its default give; dropped when that is `allow`
    /// or when the same lint already reported at the same place.
    pub(crate) fn report(
        &mut self,
        lint: &'static Lint,
        file: usize,
        anchors: &[Anchor],
        mut d: Diagnostic,
    ) {
        let Some(severity) = self.level(lint, anchors).severity() else {
            return;
        };
        let span = d.primary_span().unwrap_or(Span::new(0, 0));
        if !self.seen.insert((lint.code, file, span.start, span.end)) {
            return;
        }
        d.code = lint.code;
        d.severity = severity;
        if d.file.is_none() {
            if let Some(f) = self.loaded.files.get(file) {
                d.file = Some(f.source.clone());
            }
        }
        self.out.push((file, d));
    }
}

/// A `# hookc: level(code, …)` comment.
#[derive(Clone, Debug)]
struct Directive {
    /// Its 1-based line.
    line: u32,
    level: Level,
    codes: Vec<String>,
}

/// The directives of a file; unknown codes and malformed directives are
/// reported into `out`.
fn directives(
    file: usize,
    source: &SourceFile,
    out: &mut Vec<(usize, Diagnostic)>,
) -> Vec<Directive> {
    let mut found = Vec::new();
    let mut offset = 0usize;
    for (n, line) in source.text.split('\n').enumerate() {
        let line_no = u32::try_from(n + 1).unwrap_or(u32::MAX);
        let line_start = offset;
        offset += line.len() + 1;
        let Some(at) = find_directive(line) else {
            continue;
        };
        let rest_start = line_start + at;
        let rest = line.get(at..).unwrap_or("");
        parse_directive(file, source, line_no, rest, rest_start, &mut found, out);
    }
    found
}

/// The byte offset just past `hookc:` in a `# hookc:` comment on this line.
fn find_directive(line: &str) -> Option<usize> {
    let mut search = 0;
    while let Some(i) = line.get(search..)?.find('#') {
        let hash = search + i;
        let after = line.get(hash + 1..)?;
        let trimmed = after.trim_start();
        if let Some(rest) = trimmed.strip_prefix("hookc:") {
            return Some(line.len() - rest.len());
        }
        search = hash + 1;
    }
    None
}

fn parse_directive(
    file: usize,
    source: &SourceFile,
    line: u32,
    text: &str,
    start: usize,
    found: &mut Vec<Directive>,
    out: &mut Vec<(usize, Diagnostic)>,
) {
    let malformed = |out: &mut Vec<(usize, Diagnostic)>, why: &str| {
        let end = start + text.trim_end().len();
        out.push((
            file,
            Diagnostic::warning("malformed-directive", "malformed `hookc:` comment")
                .in_file(source)
                .with_primary(Span::new(start, end.max(start)), why.to_string())
                .with_help(
                    "write `# hookc: allow(code, …)`, with `allow`, `warn`, `deny` or `note`",
                ),
        ));
    };
    let mut rest = text;
    let mut pos = start;
    let mut any = false;
    loop {
        let trimmed = rest.trim_start_matches([' ', '\t', ',']);
        pos += rest.len() - trimmed.len();
        rest = trimmed;
        if rest.is_empty() || rest.starts_with('#') {
            break;
        }
        let word_len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
            .unwrap_or(rest.len());
        let word = rest.get(..word_len).unwrap_or("");
        let after = rest.get(word_len..).unwrap_or("").trim_start();
        let Some(args) = after.strip_prefix('(') else {
            malformed(out, "expected `level(code, …)`");
            return;
        };
        let Some(close) = args.find(')') else {
            malformed(out, "missing `)`");
            return;
        };
        let Some(level) = Level::from_name(word) else {
            let mut d = Diagnostic::warning("unknown-lint", format!("unknown lint level `{word}`"))
                .in_file(source)
                .with_primary(Span::new(pos, pos + word_len), "not a level");
            d = match crate::diag::suggest::suggest(word, Level::NAMES) {
                Some(s) => d.with_suggestion(Span::new(pos, pos + word_len), s),
                None => d.with_help("levels are `allow`, `warn`, `deny` and `note`"),
            };
            out.push((file, d));
            return;
        };
        let args_start = pos + (rest.len() - args.len());
        let mut codes = Vec::new();
        let mut at = args_start;
        for part in args.get(..close).unwrap_or("").split(',') {
            let code = part.trim();
            let code_start = at + (part.len() - part.trim_start().len());
            at += part.len() + 1;
            if code.is_empty() {
                continue;
            }
            if lint(code).is_some() {
                codes.push(code.to_string());
            } else {
                out.push((
                    file,
                    unknown_lint(
                        code,
                        Some((source, Span::new(code_start, code_start + code.len()))),
                    ),
                ));
            }
        }
        found.push(Directive { line, level, codes });
        any = true;
        let consumed = rest.len() - args.get(close + 1..).unwrap_or("").len();
        pos += consumed;
        rest = args.get(close + 1..).unwrap_or("");
    }
    if !any {
        malformed(out, "no level given");
    }
}

/// The warning for an unknown lint code, with a did-you-mean; in a file at
/// a span, or file-less.
pub(crate) fn unknown_lint(code: &str, at: Option<(&SourceFile, Span)>) -> Diagnostic {
    let mut d = Diagnostic::warning("unknown-lint", format!("unknown lint `{code}`"));
    if let Some((source, span)) = at {
        d = d
            .in_file(source)
            .with_primary(span, "no lint has this code");
    }
    match crate::diag::suggest::suggest(code, codes()) {
        Some(s) => match at {
            Some((_, span)) => d.with_suggestion(span, s),
            None => d.with_help(format!("did you mean `{s}`?")),
        },
        None => d.with_help(format!(
            "the lints are: {}",
            codes().collect::<Vec<_>>().join(", ")
        )),
    }
}

/// `rule `id`` in messages, with a location when it is in another file than
/// `here`.
pub(crate) fn rule_ref(cx: &Cx<'_>, rule: &CheckedRule, here: usize) -> String {
    if rule.file == here {
        format!("`{}`", rule.id)
    } else {
        format!("`{}` ({})", rule.id, cx.location(rule.file, rule.span))
    }
}

/// Point names in messages: `` `a`, `b` ``.
pub(crate) fn point_list(points: &[&str]) -> String {
    points
        .iter()
        .map(|p| format!("`{p}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_lint_has_its_doc_sections_and_a_unique_code() {
        let mut seen = std::collections::HashSet::new();
        for lint in LINTS {
            assert!(seen.insert(lint.code), "duplicate code {}", lint.code);
            let doc = lint.doc();
            for section in ["## What it does", "## Why is this bad?", "## Example"] {
                assert!(doc.contains(section), "{} lacks {section}", lint.code);
            }
            assert!(!lint.summary().is_empty(), "{}", lint.code);
            assert!(lint
                .code
                .chars()
                .all(|c| c.is_ascii_lowercase() || c == '-'));
        }
    }

    #[test]
    fn directives_parse() {
        let src = SourceFile::new(
            "t.hooks",
            "# hookc: allow(edit-conflict, priority-tie) deny(empty-list)\n# hookc: alow(x)\n#hookc: allow(edit-confict)\n# hookc: nonsense\n",
        );
        let mut out = Vec::new();
        let found = directives(0, &src, &mut out);
        assert_eq!(found.len(), 3, "{found:?}");
        assert_eq!(found[0].codes, ["edit-conflict", "priority-tie"]);
        assert_eq!(found[0].level, Level::Allow);
        assert_eq!(found[1].level, Level::Deny);
        assert_eq!(found[1].codes, ["empty-list"]);
        let messages: Vec<_> = out.iter().map(|(_, d)| d.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "unknown lint level `alow`",
                "unknown lint `edit-confict`",
                "malformed `hookc:` comment"
            ]
        );
        let (_, d) = &out[1];
        assert_eq!(d.help.as_deref(), Some("did you mean `edit-conflict`?"));
        assert_eq!(src.slice(d.primary_span().unwrap()), "edit-confict");
    }

    #[test]
    fn levels_reject_unknown_codes() {
        let mut levels = LintLevels::new();
        assert!(levels.set("empty-list", Level::Deny));
        assert!(!levels.set("empty-lists", Level::Deny));
        assert_eq!(levels.level(&EMPTY_LIST), Level::Deny);
        assert_eq!(levels.level(&PRIORITY_TIE), Level::Note);
    }
}
