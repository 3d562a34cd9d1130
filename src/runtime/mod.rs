//! Dispatch: run a point's rules on a context and say what the host should do.
//!
//! [`Table::dispatch`] finds the point's rules that the target can reach
//! (through the point's FQL index), runs them in order (priority, then
//! declaration), and returns an [`Outcome`]. The semantics:
//!
//! - `abort`/`deny` and `skip` end the chain at once at any kind of point;
//!   edits made earlier in the chain are dropped (the context is restored).
//! - `replace` swaps the payload at post points and the chain goes on.
//! - Edits chain: the next rule sees the edited context, as the point's
//!   host applies it (the schema's
//!   [`EditApplication`](crate::schema::EditApplication), recorded per point
//!   by the compiler: IronClaw's host parses a tool call's content back
//!   into its parameters and ignores edits of session events).
//! - Decisions combine most-restrictive-wins: abort > ask > allow.
//! - Before running each rule whose target and conditions match, dispatch
//!   checks `depth >= max_depth`; if so the chain stops with a warning.
//! - Effects (`exec`, `webhook`, `call`) that cannot run are failures:
//!   `fail open` warns and goes on, `fail closed` aborts.
//! - A condition that depends on a regex the dispatch's regex budget could
//!   not pay for is unknown, and its rule fails the same way: `fail open`
//!   skips it with a warning, `fail closed` aborts ([`RegexBudget`]).
//!
//! Matching allocates nothing: atom results are memoized in the caller's
//! [`Scratch`], and an abort with a constant reason borrows it from the table.
//!
//! [`Table::explain`] runs the same chain with an observer that is shown
//! every rule of the point, in order, on the context as it is at that point
//! of the chain, and evaluates its atoms with the dispatch's own matchers;
//! plain dispatch's observer is `()`, which compiles to nothing.

mod edits;
mod eval;
mod explain;
mod native;

use crate::store::memory::RateCounter;
pub use crate::store::memory::MAX_KEYS as RATE_MAX_KEYS;
pub use crate::table::regexes::{RegexBudget, RegexOverrun};

// The event types live in the leaf `event` module; these paths stay for hosts.
pub use crate::event::{json_eq, HookContext, Principal, Target, Val};
pub use eval::EvalError;
pub use explain::{
    diff as json_diff, ActionExplanation, CondExplanation, Explanation, FieldValue, Location,
    RuleExplanation, RuleStatus, TargetExplanation,
};
pub use native::NativeHook;
pub(crate) use native::RegisteredHook;

use crate::effects::{
    exec, trace, webhook, Cutoff, Deadline, EffectError, Effects, HookAction, Reply,
};
use crate::fql::split_component;
use crate::ir::Atom;
use crate::ir::{Action, Bucket, Cond, FailMode, LogLevel, PointProgram, Rule, NO_FIELD};
use crate::ir::{LuaCode, RateTest};
use crate::schema::PointKind;
use crate::store::{Counter, RateStore, StoreError};
use crate::systems::orcs::schema::HookPoint;
use crate::table::regexes::{self, Matching};
use crate::table::Loaded;
use crate::table::Table;
use aho_corasick::AhoCorasick;
use regex_automata::dfa::OverlappingState;
use regex_automata::Input;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::borrow::Cow;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A hook point given to [`Table::dispatch`]: a name, or an ORCS [`HookPoint`]
/// (which skips the name lookup).
pub trait AsPoint {
    /// The point's dotted name.
    fn point_name(&self) -> &str;

    /// The ORCS point, when this is one.
    fn orcs_point(&self) -> Option<HookPoint> {
        None
    }
}

impl AsPoint for HookPoint {
    fn point_name(&self) -> &str {
        self.as_str()
    }

    fn orcs_point(&self) -> Option<HookPoint> {
        Some(*self)
    }
}

impl AsPoint for &str {
    fn point_name(&self) -> &str {
        self
    }
}

impl AsPoint for String {
    fn point_name(&self) -> &str {
        self
    }
}

impl AsPoint for &String {
    fn point_name(&self) -> &str {
        self
    }
}

/// How the chain ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OutcomeKind {
    /// Go on with the (possibly edited) context.
    Continue,
    /// Do not run the operation; use the outcome's value as its result.
    Skip,
    /// Do not run the operation: blocked, with a reason.
    Abort,
    /// Ask a human before going on.
    Ask,
}

/// The combined permission decision of the rules that fired.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    /// An `allow` fired, and nothing stricter.
    Allow,
    /// An `ask` fired, and no abort.
    Ask,
    /// An abort fired.
    Deny,
}

/// One line emitted by a `log` action.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogLine {
    /// The level.
    pub level: LogLevel,
    /// The rule that logged it.
    pub rule: String,
    /// The rendered message.
    pub message: String,
}

/// Reusable per-thread state for [`Table::dispatch`]: atom results, the fired
/// list and the outcome's side lists. Make one per thread with
/// [`Table::scratch`] and reuse it; after the first dispatch, matching does not
/// allocate.
///
/// It also holds the [`RegexBudget`] of each dispatch made with it: the
/// most work regexes the lazy DFA cannot decide may take
/// ([`set_regex_budget`](Self::set_regex_budget)).
#[derive(Clone, Debug, Default)]
pub struct Scratch {
    /// Bumped per dispatch and after every edit: memo entries of older
    /// generations are stale.
    generation: u32,
    /// Atoms evaluated one by one: the generation they were computed in…
    atom_generation: Vec<u32>,
    /// …and their value.
    atom_value: Vec<bool>,
    /// Atoms computed in bulk: the generation they were last found true in.
    hit_generation: Vec<u32>,
    /// Fields: the generation they were last scanned in…
    field_generation: Vec<u32>,
    /// …and whether the value was not a string (atoms then evaluated one by
    /// one).
    field_direct: Vec<bool>,
    /// Candidate rules of the current dispatch, ascending.
    candidates: Vec<u32>,
    fired: Vec<u32>,
    warnings: Vec<String>,
    logs: Vec<LogLine>,
    additional_context: Vec<String>,
    backup: Option<HookContext>,
    /// Bumped per dispatch: a `rate(…)` counter counts an event once.
    dispatch: u32,
    /// Rate counters: the dispatch they last counted in…
    rate_dispatch: Vec<u32>,
    /// …and the count they gave ([`RATE_FAILED`] when the store failed).
    rate_count: Vec<usize>,
    /// A counter whose store failed while the current rule's condition was
    /// evaluated.
    rate_failure: Option<u32>,
    /// Why stores failed in this dispatch, by counter.
    rate_errors: Vec<(u32, StoreError)>,
    /// What a dispatch may spend on regexes, and has spent.
    regex_budget: regexes::Budget,
    /// Atoms whose regex the budget could not pay for: the generation they
    /// failed in…
    failed_generation: Vec<u32>,
    /// …and why.
    failures: Vec<Option<RegexOverrun>>,
}

/// The count of a counter whose store failed in this dispatch.
const RATE_FAILED: usize = usize::MAX;

impl Scratch {
    /// Scratch space sized for a table's largest point.
    pub fn for_table(table: &Table) -> Scratch {
        let points = &table.program().points;
        let atoms = points.iter().map(|p| p.atoms.len()).max().unwrap_or(0);
        let rules = points.iter().map(|p| p.rules.len()).max().unwrap_or(0);
        let fields = points.iter().map(|p| p.fields.len()).max().unwrap_or(0);
        let mut scratch = Scratch {
            fired: Vec::with_capacity(rules),
            candidates: Vec::with_capacity(rules),
            ..Scratch::default()
        };
        scratch.reserve(atoms, fields, table.program().rates.len());
        scratch
    }

    /// The regex budget of each dispatch ([`RegexBudget::DEFAULT`] unless
    /// set).
    pub fn regex_budget(&self) -> RegexBudget {
        self.regex_budget.limit()
    }

    /// Sets the regex budget of each dispatch made with this scratch: the
    /// most NFA steps the regexes that leave the lazy DFA may take (see
    /// [`RegexBudget`]). Past it, an atom that needs one more such regex
    /// fails, and its rule's failure mode decides.
    pub fn set_regex_budget(&mut self, budget: RegexBudget) {
        self.regex_budget.set_limit(budget);
    }

    /// [`set_regex_budget`](Self::set_regex_budget), by value.
    pub fn with_regex_budget(mut self, budget: RegexBudget) -> Scratch {
        self.set_regex_budget(budget);
        self
    }

    fn reserve(&mut self, atoms: usize, fields: usize, rates: usize) {
        if self.rate_dispatch.len() < rates {
            self.rate_dispatch.resize(rates, 0);
            self.rate_count.resize(rates, 0);
        }
        if self.atom_generation.len() < atoms {
            self.atom_generation.resize(atoms, 0);
            self.atom_value.resize(atoms, false);
            self.hit_generation.resize(atoms, 0);
            self.failed_generation.resize(atoms, 0);
            self.failures.resize(atoms, None);
        }
        if self.field_generation.len() < fields {
            self.field_generation.resize(fields, 0);
            self.field_direct.resize(fields, false);
        }
    }

    fn reset(&mut self, atoms: usize, fields: usize, rates: usize) {
        self.dispatch = self.dispatch.wrapping_add(1);
        if self.dispatch == 0 {
            self.rate_dispatch.iter_mut().for_each(|d| *d = 0);
            self.dispatch = 1;
        }
        self.fired.clear();
        self.warnings.clear();
        self.logs.clear();
        self.additional_context.clear();
        self.candidates.clear();
        self.backup = None;
        self.rate_failure = None;
        self.rate_errors.clear();
        self.regex_budget.restart();
        self.reserve(atoms, fields, rates);
        self.invalidate();
    }

    /// Forgets every memoized atom and field (the context changed).
    fn invalidate(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            for g in [
                &mut self.atom_generation,
                &mut self.hit_generation,
                &mut self.field_generation,
                &mut self.failed_generation,
            ] {
                g.iter_mut().for_each(|g| *g = 0);
            }
            self.generation = 1;
        }
    }
}

/// What the host should do after a dispatch.
///
/// It borrows the table (constant reasons) and the scratch (fired list,
/// warnings); turn it into an owned [`Report`] with [`Outcome::report`].
#[derive(Debug)]
pub struct Outcome<'a> {
    kind: OutcomeKind,
    reason: Option<Cow<'a, str>>,
    value: Option<Value>,
    decision: Option<Decision>,
    point: Option<&'a PointProgram>,
    natives: &'a [RegisteredHook],
    scratch: &'a Scratch,
}

impl<'a> Outcome<'a> {
    /// How the chain ended.
    pub fn kind(&self) -> OutcomeKind {
        self.kind
    }

    /// True when the operation is blocked.
    pub fn is_abort(&self) -> bool {
        self.kind == OutcomeKind::Abort
    }

    /// True when the operation is skipped.
    pub fn is_skip(&self) -> bool {
        self.kind == OutcomeKind::Skip
    }

    /// True when a human must be asked.
    pub fn is_ask(&self) -> bool {
        self.kind == OutcomeKind::Ask
    }

    /// True when the operation goes on.
    pub fn is_continue(&self) -> bool {
        self.kind == OutcomeKind::Continue
    }

    /// The reason of an abort or ask.
    pub fn reason(&self) -> Option<&str> {
        self.reason.as_deref()
    }

    /// The result value of a skip.
    pub fn value(&self) -> Option<&Value> {
        self.value.as_ref()
    }

    /// The combined decision, if any rule made one.
    pub fn decision(&self) -> Option<Decision> {
        self.decision
    }

    /// Ids of the rules (and a registry's native hooks) that fired, in
    /// execution order.
    pub fn fired(&self) -> impl Iterator<Item = &'a str> + '_ {
        let rules = self.point.map_or(&[][..], |p| p.rules.as_slice());
        let natives = self.natives;
        self.scratch.fired.iter().filter_map(move |&i| {
            if i & NATIVE_FIRED != 0 {
                natives
                    .get((i & !NATIVE_FIRED) as usize)
                    .map(|n| n.hook.id())
            } else {
                rules.get(i as usize).map(|r| r.id.as_str())
            }
        })
    }

    /// Warnings: effects that failed open, the depth guard, ignored actions.
    pub fn warnings(&self) -> &'a [String] {
        &self.scratch.warnings
    }

    /// Lines emitted by `log` actions.
    pub fn logs(&self) -> &'a [LogLine] {
        &self.scratch.logs
    }

    /// Text added by `context` actions.
    pub fn additional_context(&self) -> &'a [String] {
        &self.scratch.additional_context
    }

    /// An owned report: the outcome JSON of `hookc eval`, with the final
    /// context.
    pub fn report(&self, ctx: &HookContext) -> Report {
        Report {
            outcome: self.kind,
            reason: self.reason.as_ref().map(|r| r.to_string()),
            value: self.value.clone(),
            decision: self.decision,
            context: ctx.clone(),
            fired: self.fired().map(str::to_string).collect(),
            warnings: self.scratch.warnings.clone(),
            logs: self.scratch.logs.clone(),
            additional_context: self.scratch.additional_context.clone(),
        }
    }
}

/// The outcome of a dispatch as an owned, serializable value.
///
/// ```json
/// {"outcome": "continue|skip|abort|ask", "reason": "…", "value": null,
///  "decision": "allow|ask|deny|null", "context": { … }, "fired": ["rule-id"],
///  "warnings": [], "logs": [], "additional_context": []}
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// How the chain ended.
    pub outcome: OutcomeKind,
    /// The reason of an abort or ask.
    pub reason: Option<String>,
    /// The result value of a skip.
    pub value: Option<Value>,
    /// The combined decision.
    pub decision: Option<Decision>,
    /// The final context (edits applied, unless the chain aborted or skipped).
    pub context: HookContext,
    /// Rule ids that fired, in execution order.
    pub fired: Vec<String>,
    /// Warnings.
    pub warnings: Vec<String>,
    /// Lines emitted by `log` actions.
    #[serde(default)]
    pub logs: Vec<LogLine>,
    /// Text added by `context` actions.
    #[serde(default)]
    pub additional_context: Vec<String>,
}

impl Table {
    /// Scratch space for dispatching on this table.
    pub fn scratch(&self) -> Scratch {
        Scratch::for_table(self)
    }

    /// Dispatches `ctx` at its own `hook_point`, for its own component,
    /// child and instance, with a fresh scratch, and returns the owned report.
    /// For tools and tests; a host's hot path reuses a [`Scratch`] and calls
    /// [`dispatch`](Self::dispatch).
    pub fn dispatch_context(&self, ctx: &mut HookContext) -> Report {
        self.dispatch_context_with(ctx, Effects::global())
    }

    /// [`dispatch_context`](Self::dispatch_context) with the host's
    /// [`Effects`] (its rate store, command settings, handlers).
    pub fn dispatch_context_with(&self, ctx: &mut HookContext, effects: &Effects) -> Report {
        let point = ctx.hook_point.clone();
        let component = ctx.component_id.clone();
        let child = ctx.child_id.clone();
        let instance = ctx.instance.clone();
        let mut target = Target::new(&component);
        if let Some(child) = &child {
            target = target.with_child(child);
        }
        if let Some(instance) = &instance {
            target = target.with_instance(instance);
        }
        let mut scratch = self.scratch();
        let outcome = self.dispatch_with(&mut scratch, point.as_str(), &target, ctx, effects);
        outcome.report(ctx)
    }

    /// Runs the rules of `point` that `target` reaches on `ctx`, in order, and
    /// says what the host should do. Edits are applied to `ctx` in place
    /// (and undone when the chain aborts or skips).
    ///
    /// A point with no rules is a `continue` with nothing fired.
    pub fn dispatch<'a>(
        &'a self,
        scratch: &'a mut Scratch,
        point: impl AsPoint,
        target: &Target<'_>,
        ctx: &mut HookContext,
    ) -> Outcome<'a> {
        self.dispatch_observed(
            scratch,
            point,
            target,
            ctx,
            Live::effects(Effects::global()),
            &mut (),
        )
    }

    /// [`dispatch`](Self::dispatch) with the host's [`Effects`]: its
    /// command settings, webhook pool and named handlers.
    pub fn dispatch_with<'a>(
        &'a self,
        scratch: &'a mut Scratch,
        point: impl AsPoint,
        target: &Target<'_>,
        ctx: &mut HookContext,
        effects: &'a Effects,
    ) -> Outcome<'a> {
        self.dispatch_observed(scratch, point, target, ctx, Live::effects(effects), &mut ())
    }

    /// [`dispatch`](Self::dispatch) with an [`Observer`] watching every rule
    /// of the point (`()` watches nothing and costs nothing).
    pub(crate) fn dispatch_observed<'a, O: Observer>(
        &'a self,
        scratch: &'a mut Scratch,
        point: impl AsPoint,
        target: &Target<'_>,
        ctx: &mut HookContext,
        live: Live<'a>,
        observer: &mut O,
    ) -> Outcome<'a> {
        let loaded = self.loaded();
        let index = match point.orcs_point() {
            Some(p) => self.orcs_point_index(p),
            None => self.point_index(point.point_name()),
        };
        let (program, acs) = match index.and_then(|i| Some((loaded.program.points.get(i)?, i))) {
            Some((program, i)) => (
                Some(program),
                loaded.acs.get(i).map_or(&[][..], Vec::as_slice),
            ),
            // A point the table has no rules for may still have a
            // registry's native hooks.
            None => (live.empty_point, &[][..]),
        };
        scratch.reset(
            program.map_or(0, |p| p.atoms.len()),
            program.map_or(0, |p| p.fields.len()),
            loaded.program.rates.len(),
        );
        let Some(program) = program else {
            return Outcome {
                kind: OutcomeKind::Continue,
                reason: None,
                value: None,
                decision: None,
                point: None,
                natives: live.natives,
                scratch,
            };
        };
        let mut run = Run {
            loaded,
            counters: live.rates.unwrap_or(&loaded.rates),
            effects: live.effects,
            deadline: live.effects.deadline_from_now(),
            point: program,
            acs,
            kind: OutcomeKind::Continue,
            reason: None,
            value: None,
            decision: None,
        };
        run.chain(scratch, target, ctx, live, observer);
        Outcome {
            kind: run.kind,
            reason: run.reason,
            value: run.value,
            decision: run.decision,
            point: Some(program),
            natives: live.natives,
            scratch,
        }
    }
}

/// What the host brings to a table's chain: its effects and, for a live
/// [`Registry`](crate::Registry), native hooks and rules switched off.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Live<'a> {
    /// Command settings, the webhook pool, named handlers.
    pub(crate) effects: &'a Effects,
    /// The point's native hooks, by priority, then registration.
    pub(crate) natives: &'a [RegisteredHook],
    /// The point's rules switched off at run time: bit `i % 64` of word
    /// `i / 64` for rule `i`. Empty when none is.
    pub(crate) disabled: &'a [u64],
    /// A rule-less program for the point, for when the table has none and
    /// native hooks must still run.
    pub(crate) empty_point: Option<&'a PointProgram>,
    /// The in-memory `rate(…)` counters to use, by counter; `None` for the
    /// table's own.
    pub(crate) rates: Option<&'a [Arc<RateCounter>]>,
}

impl<'a> Live<'a> {
    /// Only effects: a plain table dispatch.
    pub(crate) fn effects(effects: &'a Effects) -> Live<'a> {
        Live {
            effects,
            natives: &[],
            disabled: &[],
            empty_point: None,
            rates: None,
        }
    }

    fn is_disabled(&self, rule: u32) -> bool {
        self.disabled
            .get(rule as usize / 64)
            .is_some_and(|w| w & (1 << (rule % 64)) != 0)
    }
}

/// `Scratch::fired` entries with this bit set are native hooks (the rest of
/// the bits index [`Live::natives`]).
pub(crate) const NATIVE_FIRED: u32 = 1 << 31;

/// Why the chain looks at a rule, for an [`Observer`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reach {
    /// The FQL index and the triggers proposed it: dispatch tests it.
    Candidate,
    /// The index did not propose it (its target or trigger atom cannot
    /// match): dispatch skips it without a test.
    NotCandidate,
    /// The chain ended (abort, skip or the depth guard) before it.
    AfterStop,
}

/// Watches a dispatch rule by rule, for `explain`. Every method has an empty
/// default; `()` is the observer of plain dispatch, and with it the calls
/// compile to nothing.
pub(crate) trait Observer {
    /// False for `()`: the chain then does no extra work at all.
    const ACTIVE: bool = true;

    /// The chain reached rule `rule` (every rule of the point is reached
    /// once, in order), with the context as it is at that point of the chain.
    fn reach(&mut self, _rule: u32, _reach: Reach, _probe: &mut Probe<'_, '_>) {}

    /// Rule `rule` matched and its actions run next, on `ctx`.
    fn fire(&mut self, _rule: u32, _ctx: &HookContext) {}

    /// Action `index` of rule `rule` runs next, on `ctx`.
    fn action(&mut self, _rule: u32, _index: usize, _ctx: &HookContext, _run: &Run<'_>) {}

    /// Rule `rule`'s actions ran; `ctx` is the context after them (before
    /// an abort or skip restores it).
    fn fired(&mut self, _rule: u32, _ctx: &HookContext) {}

    /// Rule `rule` matched, but the depth guard stopped the chain there.
    fn depth_limit(&mut self, _rule: u32) {}
}

impl Observer for () {
    const ACTIVE: bool = false;
}

/// Evaluates atoms for an [`Observer`] exactly as the dispatch does (the
/// field matchers and the memo of the current context), and gives it the
/// context.
pub(crate) struct Probe<'r, 'a> {
    run: &'r Run<'a>,
    scratch: &'r mut Scratch,
    ctx: &'r HookContext,
}

impl<'a> Probe<'_, 'a> {
    /// The value of atom `a` on the current context (false when the regex
    /// budget could not pay for it).
    pub(crate) fn atom(&mut self, a: u32) -> bool {
        self.run
            .cond(&Cond::Atom(a), self.scratch, self.ctx)
            .unwrap_or(false)
    }

    /// The context as it is at this point of the chain.
    pub(crate) fn ctx(&self) -> &HookContext {
        self.ctx
    }

    /// The point being dispatched.
    pub(crate) fn point(&self) -> &'a PointProgram {
        self.run.point
    }
}

/// The state of one dispatch.
pub(crate) struct Run<'a> {
    loaded: &'a Loaded<'a>,
    /// The in-memory `rate(…)` counters, by counter.
    counters: &'a [Arc<RateCounter>],
    effects: &'a Effects,
    /// The deadline of this dispatch's effects, if the host set one.
    deadline: Option<Deadline>,
    point: &'a PointProgram,
    /// The point's Aho-Corasick automata, by field.
    acs: &'a [Option<AhoCorasick>],
    kind: OutcomeKind,
    reason: Option<Cow<'a, str>>,
    value: Option<Value>,
    decision: Option<Decision>,
}

/// How running native hooks went.
enum Natives {
    /// They ran; the chain goes on.
    Ran,
    /// The depth guard ended the chain.
    Halt,
    /// One ended the chain.
    Stop(Stop),
}

/// Why the chain stopped early.
enum Stop {
    Abort,
    Skip,
}

impl<'a> Run<'a> {
    fn chain<O: Observer>(
        &mut self,
        scratch: &mut Scratch,
        target: &Target<'_>,
        ctx: &mut HookContext,
        live: Live<'_>,
        obs: &mut O,
    ) {
        let (scope, name) = split_component(target.component);
        let index = &self.point.index;
        let buckets: [Option<&Bucket>; 4] = [
            index.exact.get(target.component),
            index.scope.get(scope),
            index.target.get(name),
            Some(&index.any),
        ];
        self.collect(&buckets, None, scratch, ctx);
        let mut at = 0;
        // The first rule not yet shown to the observer.
        let mut next = 0u32;
        // The first native hook not yet run.
        let mut native = 0usize;
        let count = u32::try_from(self.point.rules.len()).unwrap_or(u32::MAX);
        loop {
            let candidate = scratch.candidates.get(at).copied();
            let rule = candidate.and_then(|i| self.point.rules.get(i as usize));
            // Native hooks of a lower priority run before the next rule (on
            // a tie the table's rule runs first); the rest after the last.
            if let Some(hook) = live.natives.get(native) {
                if rule.is_none_or(|r| hook.priority < r.priority) {
                    let generation = scratch.generation;
                    let before = edits::before(&self.point.edits, ctx);
                    match self.native(live, native, target, scratch, ctx) {
                        Natives::Ran => {
                            if scratch.generation != generation {
                                self.apply_edits(("hook", hook.hook.id()), before, scratch, ctx);
                            }
                        }
                        Natives::Halt => break,
                        Natives::Stop(stop) => {
                            if O::ACTIVE {
                                self.report(next..count, Reach::AfterStop, obs, scratch, ctx);
                            }
                            self.stop(stop, scratch, ctx);
                            return;
                        }
                    }
                    native += 1;
                    if scratch.generation != generation {
                        // The hook edited the context: triggers may now
                        // hold (or not) for the rules after it.
                        let after = self
                            .point
                            .rules
                            .partition_point(|r| r.priority <= hook.priority);
                        let after = u32::try_from(after).unwrap_or(u32::MAX).checked_sub(1);
                        self.collect(&buckets, after, scratch, ctx);
                        at = 0;
                    }
                    continue;
                }
            }
            let (Some(i), Some(rule)) = (candidate, rule) else {
                if candidate.is_some() {
                    at += 1;
                    continue;
                }
                break;
            };
            at += 1;
            if O::ACTIVE {
                self.report(next..i, Reach::NotCandidate, obs, scratch, ctx);
                self.report(i..i + 1, Reach::Candidate, obs, scratch, ctx);
                next = i + 1;
            }
            if !rule.enabled
                || live.is_disabled(i)
                || !rule
                    .target
                    .matches_parts(scope, name, target.child, target.instance)
            {
                continue;
            }
            if O::ACTIVE {
                // An observer's probes may have evaluated other rules'
                // conditions; plain dispatch takes every failure it sees.
                scratch.rate_failure = None;
            }
            let matched = self.cond(&rule.cond, scratch, ctx);
            if let Some(counter) = scratch.rate_failure.take() {
                // A `rate(…)` store failed: the rule's failure mode
                // decides, whatever its condition came to.
                if let Some(stop) = self.rate_failed(i, rule, counter, scratch, ctx, obs) {
                    if O::ACTIVE {
                        self.report(next..count, Reach::AfterStop, obs, scratch, ctx);
                    }
                    self.stop(stop, scratch, ctx);
                    return;
                }
                continue;
            }
            match matched {
                Some(true) => {}
                Some(false) => continue,
                // A regex of the condition was more than the regex budget
                // could pay for, and the condition depends on it: the rule
                // fails, and its failure mode decides (open: it does not
                // apply; closed: the chain aborts).
                None => {
                    let why = self.overrun_message(&rule.cond, scratch);
                    if let Some(stop) = self.fail_as("rule", &rule.id, rule.fail, &why, scratch) {
                        if O::ACTIVE {
                            self.report(next..count, Reach::AfterStop, obs, scratch, ctx);
                        }
                        self.stop(stop, scratch, ctx);
                        return;
                    }
                    continue;
                }
            }
            if ctx.depth >= ctx.max_depth {
                scratch.warnings.push(format!(
                    "depth {} reached the limit {}: rule `{}` and the rest of the chain did not run",
                    ctx.depth, ctx.max_depth, rule.id
                ));
                if O::ACTIVE {
                    obs.depth_limit(i);
                    self.report(next..count, Reach::AfterStop, obs, scratch, ctx);
                    next = count;
                }
                break;
            }
            scratch.fired.push(i);
            obs.fire(i, ctx);
            let edits = scratch.generation;
            let before = edits::before(&self.point.edits, ctx);
            let stopped = self.actions(i, rule, scratch, ctx, obs);
            if stopped.is_none() && scratch.generation != edits {
                self.apply_edits(("rule", &rule.id), before, scratch, ctx);
            }
            obs.fired(i, ctx);
            if let Some(stop) = stopped {
                if O::ACTIVE {
                    self.report(next..count, Reach::AfterStop, obs, scratch, ctx);
                }
                self.stop(stop, scratch, ctx);
                return;
            }
            if scratch.generation != edits {
                // The context changed: triggers may now hold (or not) for
                // the rules after this one.
                self.collect(&buckets, Some(i), scratch, ctx);
                at = 0;
            }
        }
        if O::ACTIVE {
            self.report(next..count, Reach::NotCandidate, obs, scratch, ctx);
        }
        if self.decision == Some(Decision::Ask) {
            self.kind = OutcomeKind::Ask;
        }
    }

    /// After `who` edited the context, applies the point's
    /// [`EditApplication`](crate::schema::EditApplication) so the next rule
    /// sees what the host would.
    fn apply_edits(
        &self,
        who: (&str, &str),
        before: Option<edits::Before>,
        scratch: &mut Scratch,
        ctx: &mut HookContext,
    ) {
        let Some(before) = before else {
            return;
        };
        let point = &self.point.name;
        if edits::apply(
            &self.point.edits,
            &before,
            who,
            point,
            ctx,
            &mut scratch.warnings,
        ) {
            scratch.invalidate();
        }
    }

    /// Ends the chain early: the context is restored and the kind set.
    fn stop(&mut self, stop: Stop, scratch: &mut Scratch, ctx: &mut HookContext) {
        if let Some(backup) = scratch.backup.take() {
            *ctx = backup;
        }
        self.kind = match stop {
            Stop::Abort => OutcomeKind::Abort,
            Stop::Skip => OutcomeKind::Skip,
        };
    }

    /// Runs native hook `n` if it is on and `target` reaches it.
    fn native(
        &mut self,
        live: Live<'_>,
        n: usize,
        target: &Target<'_>,
        scratch: &mut Scratch,
        ctx: &mut HookContext,
    ) -> Natives {
        let Some(native) = live.natives.get(n) else {
            return Natives::Ran;
        };
        if !native.enabled
            || !native
                .hook
                .fql_pattern()
                .matches(target.component, target.child, target.instance)
        {
            return Natives::Ran;
        }
        if ctx.depth >= ctx.max_depth {
            scratch.warnings.push(format!(
                "depth {} reached the limit {}: hook `{}` and the rest of the chain did not run",
                ctx.depth,
                ctx.max_depth,
                native.hook.id()
            ));
            return Natives::Halt;
        }
        scratch
            .fired
            .push(NATIVE_FIRED | u32::try_from(n).unwrap_or(u32::MAX >> 1));
        let hook = &native.hook;
        match self.invoke(
            ("hook", hook.id(), hook.fail_mode()),
            hook.id(),
            hook.timeout(),
            |ctx| hook.execute(ctx),
            scratch,
            ctx,
        ) {
            Some(stop) => Natives::Stop(stop),
            None => Natives::Ran,
        }
    }

    /// Shows rules `rules` to the observer, on the current context.
    fn report<O: Observer>(
        &self,
        rules: std::ops::Range<u32>,
        reach: Reach,
        obs: &mut O,
        scratch: &mut Scratch,
        ctx: &HookContext,
    ) {
        for rule in rules {
            let mut probe = Probe {
                run: self,
                scratch: &mut *scratch,
                ctx,
            };
            obs.reach(rule, reach, &mut probe);
        }
    }

    /// Fills `scratch.candidates` (ascending, after `after` if given): the
    /// untriggered rules of the target's groups, and the rules triggered by
    /// atoms found true on the fields those groups need.
    fn collect(
        &self,
        buckets: &[Option<&Bucket>; 4],
        after: Option<u32>,
        scratch: &mut Scratch,
        ctx: &HookContext,
    ) {
        scratch.candidates.clear();
        let mut fields = 0u64;
        for bucket in buckets.iter().flatten() {
            fields |= bucket.fields;
            scratch.candidates.extend_from_slice(&bucket.untriggered);
        }
        let count = self.point.fields.len();
        let mut f = 0;
        while fields != 0 && f < count {
            let bit = 1u64 << f.min(63);
            if fields & bit != 0 {
                self.scan(f, scratch, ctx, true);
            }
            if f < 63 {
                fields &= !bit;
            }
            f += 1;
        }
        if let Some(after) = after {
            scratch.candidates.retain(|&c| c > after);
        }
        scratch.candidates.sort_unstable();
        scratch.candidates.dedup();
    }

    /// Computes the bulk atoms of field `f` (once per generation). With
    /// `collect`, also adds the rules their true atoms trigger to the
    /// candidates.
    fn scan(&self, f: usize, scratch: &mut Scratch, ctx: &HookContext, collect: bool) {
        let generation = scratch.generation;
        let Some(field) = self.point.fields.get(f) else {
            return;
        };
        if scratch.field_generation.get(f) == Some(&generation) {
            if !collect {
                return;
            }
            // Scanned lazily before: collect from the memo (an atom whose
            // regex was over the budget may hold: its rules are candidates).
            for &a in &field.bulk {
                if self.bulk_value(a, f, scratch, ctx) != Some(false) {
                    self.trigger(a, scratch);
                }
            }
            return;
        }
        if let Some(g) = scratch.field_generation.get_mut(f) {
            *g = generation;
        }
        let value = ctx.get(&field.path);
        let Some(Val::Str(text)) = value else {
            if let Some(d) = scratch.field_direct.get_mut(f) {
                *d = true;
            }
            if collect {
                for &a in &field.bulk {
                    if self.bulk_value(a, f, scratch, ctx) != Some(false) {
                        self.trigger(a, scratch);
                    }
                }
            }
            return;
        };
        if let Some(d) = scratch.field_direct.get_mut(f) {
            *d = false;
        }
        let text: &str = &text;
        let hit = |a: u32, scratch: &mut Scratch| {
            if let Some(h) = scratch.hit_generation.get_mut(a as usize) {
                if *h != generation {
                    *h = generation;
                    if collect {
                        self.trigger(a, scratch);
                    }
                }
            }
        };
        for &a in field.eq.get(text) {
            hit(a, scratch);
        }
        if let Some(dfa) = field.dfa.and_then(|d| self.loaded.dfas.get(d as usize)) {
            let input = Input::new(text);
            let mut state = OverlappingState::start();
            let mut failed = false;
            loop {
                if dfa.search_overlapping(&input, &mut state).is_err() {
                    failed = true;
                    break;
                }
                let Some(m) = state.get_match() else { break };
                if let Some(&a) = field.dfa_atoms.get(m.pattern().as_usize()) {
                    hit(a, scratch);
                }
            }
            if failed {
                // The DFA gave up (a Unicode word boundary on non-ASCII
                // text): decide its atoms one by one instead.
                for &a in &field.dfa_atoms {
                    match self.eval_atom(a, scratch, ctx) {
                        Ok(true) => hit(a, scratch),
                        Ok(false) => {}
                        Err(overrun) => self.atom_failed(a, overrun, scratch, collect),
                    }
                }
            }
        }
        if let Some(ac) = self.acs.get(f).and_then(Option::as_ref) {
            for m in ac.find_overlapping_iter(text) {
                let p = m.pattern().as_usize();
                if let Some(atoms) = field.literal_atoms.get(p) {
                    for &a in atoms {
                        hit(a, scratch);
                    }
                }
                for &a in field.literal_checks.get(p).map_or(&[][..], Vec::as_slice) {
                    // Verify each prefiltered atom once per generation
                    // (`atom_generation` marks it checked).
                    let i = a as usize;
                    if scratch.atom_generation.get(i) == Some(&generation) {
                        continue;
                    }
                    if let Some(g) = scratch.atom_generation.get_mut(i) {
                        *g = generation;
                    }
                    match self.eval_atom(a, scratch, ctx) {
                        Ok(true) => hit(a, scratch),
                        Ok(false) => {}
                        Err(overrun) => self.atom_failed(a, overrun, scratch, collect),
                    }
                }
            }
        }
    }

    /// What the table's regexes need for one match: the regexes, and the
    /// budget of this dispatch.
    fn matching<'s>(&'s self, scratch: &'s Scratch) -> Matching<'s> {
        Matching {
            regexes: &self.loaded.regexes,
            budget: &scratch.regex_budget,
        }
    }

    /// Atom `a` evaluated on its own.
    fn eval_atom(
        &self,
        a: u32,
        scratch: &Scratch,
        ctx: &HookContext,
    ) -> Result<bool, RegexOverrun> {
        match self.point.atoms.get(a as usize) {
            Some(atom) => eval::atom(atom, ctx, self.matching(scratch)),
            None => Ok(false),
        }
    }

    /// Atom `a` failed: its regex is more than the budget can pay for. Its
    /// value is unknown, so a rule it triggers is a candidate (whose
    /// condition then decides, or fails).
    fn atom_failed(&self, a: u32, overrun: RegexOverrun, scratch: &mut Scratch, collect: bool) {
        let i = a as usize;
        if let (Some(g), Some(why)) = (
            scratch.failed_generation.get_mut(i),
            scratch.failures.get_mut(i),
        ) {
            *g = scratch.generation;
            *why = Some(overrun);
        }
        if collect {
            self.trigger(a, scratch);
        }
    }

    /// True when atom `a` failed in this generation.
    fn has_failed(&self, a: u32, scratch: &Scratch) -> bool {
        scratch.failed_generation.get(a as usize) == Some(&scratch.generation)
    }

    /// Why a condition is unknown: its first failed atom, as the warning or
    /// the abort reason says it.
    fn overrun_message(&self, cond: &Cond, scratch: &Scratch) -> String {
        fn first(cond: &Cond, failed: &dyn Fn(u32) -> bool) -> Option<u32> {
            match cond {
                Cond::True => None,
                Cond::Atom(a) => failed(*a).then_some(*a),
                Cond::Not(c) => first(c, failed),
                Cond::All(cs) | Cond::Any(cs) => cs.iter().find_map(|c| first(c, failed)),
            }
        }
        let Some(a) = first(cond, &|a| self.has_failed(a, scratch)) else {
            return "the regex budget is spent".to_string();
        };
        let Some(Some(overrun)) = scratch.failures.get(a as usize) else {
            return "the regex budget is spent".to_string();
        };
        let regex = self
            .loaded
            .program
            .regexes
            .get(overrun.regex as usize)
            .map_or_else(
                || "a regex".to_string(),
                |r| format!("regex `/{}/{}`", r.pattern, r.flags),
            );
        let on = match self.point.atoms.get(a as usize).and_then(Atom::field) {
            Some(path) => format!(" on `{path}`"),
            None => String::new(),
        };
        format!(
            "{regex}{on} is over the regex budget: matching it took more than the {} steps left of the dispatch's {}-step regex budget (at most {} NFA states × {} bytes)",
            overrun.left, overrun.budget, overrun.states, overrun.bytes
        )
    }

    fn trigger(&self, atom: u32, scratch: &mut Scratch) {
        if let Some(rules) = self.point.triggers.get(atom as usize) {
            scratch.candidates.extend_from_slice(rules);
        }
    }

    /// The value of a bulk atom of field `f`, scanning the field if needed;
    /// `None` when its regex was over the budget.
    fn bulk_value(
        &self,
        a: u32,
        f: usize,
        scratch: &mut Scratch,
        ctx: &HookContext,
    ) -> Option<bool> {
        if scratch.field_generation.get(f) != Some(&scratch.generation) {
            self.scan(f, scratch, ctx, false);
        }
        if scratch.field_direct.get(f).copied().unwrap_or(true) {
            self.direct_value(a, scratch, ctx)
        } else if self.has_failed(a, scratch) {
            None
        } else {
            Some(scratch.hit_generation.get(a as usize) == Some(&scratch.generation))
        }
    }

    /// The value of an atom evaluated on its own, memoized; `None` when its
    /// regex was over the budget.
    fn direct_value(&self, a: u32, scratch: &mut Scratch, ctx: &HookContext) -> Option<bool> {
        let i = a as usize;
        if scratch.atom_generation.get(i) == Some(&scratch.generation) {
            if self.has_failed(a, scratch) {
                return None;
            }
            return Some(scratch.atom_value.get(i).copied().unwrap_or(false));
        }
        let value = match self.point.atoms.get(i) {
            Some(Atom::Rate(test)) => match self.rate(test, scratch, ctx) {
                Some(value) => Ok(value),
                // The store failed: not memoized, so that every rule asking
                // sees the failure (the rule's loop takes it from `scratch`).
                None => return Some(false),
            },
            Some(_) => self.eval_atom(a, scratch, ctx),
            None => Ok(false),
        };
        if let (Some(g), Some(v)) = (
            scratch.atom_generation.get_mut(i),
            scratch.atom_value.get_mut(i),
        ) {
            *g = scratch.generation;
            *v = value.unwrap_or(false);
        }
        match value {
            Ok(v) => Some(v),
            Err(overrun) => {
                self.atom_failed(a, overrun, scratch, false);
                None
            }
        }
    }

    /// A `rate(…)` test: its counter counts this event once per dispatch
    /// (however many tests share the counter, and across edits), in the
    /// host's store. `None` when the store failed (recorded in `scratch`
    /// for the rule to handle).
    fn rate(&self, test: &RateTest, scratch: &mut Scratch, ctx: &HookContext) -> Option<bool> {
        let c = test.counter as usize;
        let count = if scratch.rate_dispatch.get(c) == Some(&scratch.dispatch) {
            scratch.rate_count.get(c).copied().unwrap_or(0)
        } else {
            let key = eval::render(&test.key, ctx);
            let count = match self.effects.rate_store() {
                RateStore::Memory => match self.counters.get(c) {
                    Some(counter) => counter.hit(&key, Instant::now()),
                    None => return Some(false),
                },
                store => self.shared_rate(store, test, &key, scratch),
            };
            if let (Some(d), Some(n)) = (
                scratch.rate_dispatch.get_mut(c),
                scratch.rate_count.get_mut(c),
            ) {
                *d = scratch.dispatch;
                *n = count;
            }
            count
        };
        if count == RATE_FAILED {
            scratch.rate_failure = Some(test.counter);
            return None;
        }
        Some(test.op.test(count as f64, test.limit))
    }

    /// Counts an event in a store shared by processes: the count, or
    /// [`RATE_FAILED`] with the error kept in `scratch`.
    fn shared_rate(
        &self,
        store: &RateStore,
        test: &RateTest,
        key: &str,
        scratch: &mut Scratch,
    ) -> usize {
        let keep = self
            .loaded
            .program
            .rates
            .get(test.counter as usize)
            .map_or(test.keep(), |spec| spec.keep);
        let counter = Counter {
            template: &test.key,
            window_ms: test.window_ms,
            keep,
        };
        match store.hit(&counter, key) {
            Ok(hit) => {
                if let Some(warning) = hit.warning {
                    scratch.warnings.push(warning);
                }
                hit.count
            }
            Err(e) => {
                tracing::warn!("{e}");
                scratch.rate_errors.push((test.counter, e));
                RATE_FAILED
            }
        }
    }

    /// Rule `index`'s condition asked a `rate(…)` store that failed: under
    /// `fail open` the rule does not fire (a warning says why); under `fail
    /// closed` it fires and aborts with a reason naming the store.
    fn rate_failed<O: Observer>(
        &mut self,
        index: u32,
        rule: &'a Rule,
        counter: u32,
        scratch: &mut Scratch,
        ctx: &HookContext,
        obs: &mut O,
    ) -> Option<Stop> {
        let error = scratch
            .rate_errors
            .iter()
            .find(|(c, _)| *c == counter)
            .map(|(_, e)| e.clone())
            .unwrap_or_else(|| StoreError::new("the rate store", "it failed"));
        if rule.fail == FailMode::Closed {
            scratch.fired.push(index);
            obs.fire(index, ctx);
        }
        self.fail(rule, &EffectError::RateStore(error), scratch)
    }

    /// A condition's value; `None` when it depends on an atom whose regex
    /// was over the budget (three-valued: `false and unknown` is false,
    /// `true or unknown` is true, `not unknown` is unknown).
    fn cond(&self, cond: &Cond, scratch: &mut Scratch, ctx: &HookContext) -> Option<bool> {
        match cond {
            Cond::True => Some(true),
            Cond::Atom(a) => match self.point.atom_field.get(*a as usize) {
                Some(&f) if f != NO_FIELD => self.bulk_value(*a, f as usize, scratch, ctx),
                _ => self.direct_value(*a, scratch, ctx),
            },
            Cond::Not(c) => self.cond(c, scratch, ctx).map(|v| !v),
            Cond::All(cs) | Cond::Any(cs) => {
                // `all` stops at a false operand, `any` at a true one.
                let decisive = matches!(cond, Cond::Any(_));
                let mut unknown = false;
                for c in cs {
                    match self.cond(c, scratch, ctx) {
                        Some(v) if v == decisive => return Some(decisive),
                        Some(_) => {}
                        None => unknown = true,
                    }
                }
                (!unknown).then_some(!decisive)
            }
        }
    }

    fn decide(&mut self, decision: Decision) {
        self.decision = Some(self.decision.map_or(decision, |d| d.max(decision)));
    }

    /// Runs a rule's actions; `Some` when the chain must stop.
    fn actions<O: Observer>(
        &mut self,
        index: u32,
        rule: &'a Rule,
        scratch: &mut Scratch,
        ctx: &mut HookContext,
        obs: &mut O,
    ) -> Option<Stop> {
        let regexes = &self.loaded.regexes;
        for (n, action) in rule.actions.iter().enumerate() {
            obs.action(index, n, ctx, self);
            if action.is_edit() && scratch.backup.is_none() {
                scratch.backup = Some(ctx.clone());
            }
            match action {
                Action::Continue => {}
                Action::Abort(reason) => {
                    self.reason = Some(eval::render(reason, ctx));
                    self.decide(Decision::Deny);
                    return Some(Stop::Abort);
                }
                Action::Skip(value) => {
                    match eval::eval(value, ctx, self.matching(scratch)) {
                        Ok(v) => self.value = Some(v.to_json()),
                        Err(e) => {
                            scratch
                                .warnings
                                .push(format!("rule `{}`: skip value: {e}", rule.id));
                            self.value = Some(Value::Null);
                        }
                    }
                    return Some(Stop::Skip);
                }
                Action::Replace(value) => {
                    if self.point.kind != PointKind::Post {
                        scratch.warnings.push(format!(
                            "rule `{}`: `replace` ignored at {} point `{}`",
                            rule.id, self.point.kind, self.point.name
                        ));
                        continue;
                    }
                    match eval::eval(value, ctx, self.matching(scratch)).map(|v| v.to_json()) {
                        Ok(v) => ctx.payload = v,
                        Err(e) => scratch
                            .warnings
                            .push(format!("rule `{}`: replace: {e}", rule.id)),
                    }
                }
                Action::Set(path, value) => {
                    let result =
                        eval::eval(value, ctx, self.matching(scratch)).map(|v| v.to_json());
                    match result {
                        Ok(v) => {
                            if let Err(e) = ctx.set(path, v) {
                                scratch
                                    .warnings
                                    .push(format!("rule `{}`: cannot set `{path}`: {e}", rule.id));
                            }
                        }
                        Err(e) => scratch
                            .warnings
                            .push(format!("rule `{}`: set `{path}`: {e}", rule.id)),
                    }
                }
                Action::Unset(path) => {
                    if let Err(e) = ctx.unset(path) {
                        scratch
                            .warnings
                            .push(format!("rule `{}`: cannot unset `{path}`: {e}", rule.id));
                    }
                }
                Action::Rewrite(path, re, replacement) => {
                    let Some(re) = regexes.get(re.0 as usize) else {
                        continue;
                    };
                    let rewritten = match ctx.get(path) {
                        Some(Val::Str(s)) => match re.replace_all(&s, replacement.as_str()) {
                            Cow::Owned(new) => Some(new),
                            Cow::Borrowed(_) => None,
                        },
                        _ => None,
                    };
                    if let Some(new) = rewritten {
                        if let Err(e) = ctx.set(path, Value::String(new)) {
                            scratch
                                .warnings
                                .push(format!("rule `{}`: cannot rewrite `{path}`: {e}", rule.id));
                        }
                    }
                }
                Action::Prepend(path, text) | Action::Append(path, text) => {
                    let text = eval::render(text, ctx).into_owned();
                    let edited = match ctx.get(path) {
                        Some(Val::Str(s)) if matches!(action, Action::Prepend(..)) => {
                            Some(text + &s)
                        }
                        Some(Val::Str(s)) => Some(s.into_owned() + &text),
                        None | Some(Val::Null) => Some(text),
                        Some(other) => {
                            scratch.warnings.push(format!(
                                "rule `{}`: cannot {} to `{path}`: it is {}, not a string",
                                rule.id,
                                if matches!(action, Action::Prepend(..)) {
                                    "prepend"
                                } else {
                                    "append"
                                },
                                other.type_name()
                            ));
                            None
                        }
                    };
                    if let Some(new) = edited {
                        if let Err(e) = ctx.set(path, Value::String(new)) {
                            scratch
                                .warnings
                                .push(format!("rule `{}`: cannot edit `{path}`: {e}", rule.id));
                        }
                    }
                }
                Action::Meta(key, value) => {
                    match eval::eval(value, ctx, self.matching(scratch)).map(|v| v.to_json()) {
                        Ok(v) => {
                            ctx.metadata.insert(key.clone(), v);
                        }
                        Err(e) => scratch
                            .warnings
                            .push(format!("rule `{}`: meta `{key}`: {e}", rule.id)),
                    }
                }
                Action::Log(level, message) => {
                    let message = eval::render(message, ctx).into_owned();
                    emit_log(*level, &rule.id, &self.point.name, &message);
                    scratch.logs.push(LogLine {
                        level: *level,
                        rule: rule.id.clone(),
                        message,
                    });
                }
                Action::Ask(reason) => {
                    if self.decision != Some(Decision::Deny) && self.decision != Some(Decision::Ask)
                    {
                        self.reason = Some(eval::render(reason, ctx));
                    }
                    self.decide(Decision::Ask);
                }
                Action::Allow => self.decide(Decision::Allow),
                Action::Context(text) => {
                    let text = eval::render(text, ctx).into_owned();
                    scratch.additional_context.push(text);
                }
                Action::Exec {
                    program,
                    args,
                    shell,
                } => {
                    let command = exec::Command {
                        program,
                        args,
                        shell: *shell,
                        point: &self.point.name,
                        rule: &rule.id,
                        timeout: rule.timeout_ms.map(Duration::from_millis),
                        deadline: self.deadline,
                        input: self.loaded.program.command_input,
                    };
                    match exec::run(self.effects.exec_config(), &command, ctx) {
                        Ok(reply) => {
                            if let Some(stop) = self.reply(rule, reply, scratch, ctx) {
                                return Some(stop);
                            }
                        }
                        Err(e) => {
                            if let Some(stop) = self.fail(rule, &e, scratch) {
                                return Some(stop);
                            }
                        }
                    }
                }
                Action::Webhook {
                    url,
                    include,
                    headers,
                } => {
                    let post = webhook::Post {
                        url,
                        include,
                        headers,
                        rule: &rule.id,
                        point: &self.point.name,
                        timeout: rule.timeout_ms.map(Duration::from_millis),
                    };
                    // A webhook never changes the outcome, whatever the
                    // rule's failure mode: a delivery it cannot queue is a
                    // warning.
                    if let Err(e) = self.effects.webhooks().post(&post, ctx) {
                        tracing::warn!(rule = %rule.id, "{e}");
                        scratch.warnings.push(format!("rule `{}`: {e}", rule.id));
                    }
                }
                Action::Call(name) => {
                    if let Some(stop) = self.call(rule, name, scratch, ctx) {
                        return Some(stop);
                    }
                }
                Action::Lua(code) => {
                    if let Some(stop) = self.lua(rule, code, scratch, ctx) {
                        return Some(stop);
                    }
                }
                Action::Trace { file, fields } => {
                    let line = trace::Trace {
                        file,
                        fields,
                        rule: &rule.id,
                        point: &self.point.name,
                    };
                    if let Err(e) = trace::append(self.effects.exec_config(), &line, ctx) {
                        if let Some(stop) = self.fail(rule, &e, scratch) {
                            return Some(stop);
                        }
                    }
                }
            }
            if action.is_edit() {
                scratch.invalidate();
            }
        }
        None
    }

    /// Applies a command's reply.
    fn reply(
        &mut self,
        rule: &Rule,
        reply: Reply,
        scratch: &mut Scratch,
        ctx: &mut HookContext,
    ) -> Option<Stop> {
        let edits =
            reply.payload.is_some() || reply.updated_input.is_some() || !reply.metadata.is_empty();
        if edits {
            if scratch.backup.is_none() {
                scratch.backup = Some(ctx.clone());
            }
            if let Some(payload) = reply.payload {
                ctx.payload = payload;
            }
            if let Some(input) = reply.updated_input {
                match &mut ctx.payload {
                    Value::Object(payload) => {
                        payload.insert("tool_input".to_string(), input);
                    }
                    other => scratch.warnings.push(format!(
                        "rule `{}`: `updatedInput` ignored: the payload is {}, not an object",
                        rule.id,
                        Val::from_json(other).type_name()
                    )),
                }
            }
            for (key, value) in reply.metadata {
                ctx.metadata.insert(key, value);
            }
            scratch.invalidate();
        }
        scratch.additional_context.extend(reply.additional_context);
        match reply.action {
            Some(action) => self.act(&rule.id, action, scratch, ctx),
            None => None,
        }
    }

    /// Applies what a handler or a reply asks for.
    fn act(
        &mut self,
        id: &str,
        action: HookAction,
        scratch: &mut Scratch,
        ctx: &mut HookContext,
    ) -> Option<Stop> {
        match action {
            HookAction::Continue => None,
            HookAction::Skip(value) => {
                self.value = Some(value);
                Some(Stop::Skip)
            }
            HookAction::Abort { reason } => {
                self.reason = Some(Cow::Owned(reason));
                self.decide(Decision::Deny);
                Some(Stop::Abort)
            }
            HookAction::Replace(value) => {
                if self.point.kind == PointKind::Post {
                    if scratch.backup.is_none() {
                        scratch.backup = Some(ctx.clone());
                    }
                    ctx.payload = value;
                    scratch.invalidate();
                } else {
                    scratch.warnings.push(format!(
                        "`{id}`: `replace` ignored at {} point `{}`",
                        self.point.kind, self.point.name
                    ));
                }
                None
            }
            HookAction::Ask { reason } => {
                if self.decision != Some(Decision::Deny) && self.decision != Some(Decision::Ask) {
                    self.reason = Some(Cow::Owned(reason));
                }
                self.decide(Decision::Ask);
                None
            }
            HookAction::Allow => {
                self.decide(Decision::Allow);
                None
            }
        }
    }

    /// Runs the native handler `name`.
    fn call(
        &mut self,
        rule: &Rule,
        name: &str,
        scratch: &mut Scratch,
        ctx: &mut HookContext,
    ) -> Option<Stop> {
        let Some(handler) = self.effects.handler(name) else {
            return self.fail(rule, &EffectError::NoHandler(name.to_string()), scratch);
        };
        let timeout = rule.timeout_ms.map_or(
            self.effects.exec_config().default_timeout,
            Duration::from_millis,
        );
        let handler = Arc::clone(handler);
        self.invoke(
            ("rule", &rule.id, rule.fail),
            name,
            timeout,
            |ctx| handler.call(ctx),
            scratch,
            ctx,
        )
    }

    /// Runs a Lua handler.
    #[cfg(feature = "lua")]
    fn lua(
        &mut self,
        rule: &Rule,
        code: &LuaCode,
        scratch: &mut Scratch,
        ctx: &mut HookContext,
    ) -> Option<Stop> {
        let timeout = rule.timeout_ms.map_or(
            self.effects.exec_config().default_timeout,
            Duration::from_millis,
        );
        let source = match code {
            LuaCode::File(file) => crate::effects::lua::Source::File(file),
            LuaCode::Inline(code) => crate::effects::lua::Source::Inline(code),
        };
        let before = ctx.clone();
        match self.effects.lua().call(
            self.effects.exec_config(),
            source,
            ctx,
            timeout,
            self.deadline,
        ) {
            Ok(action) => {
                if *ctx != before {
                    if scratch.backup.is_none() {
                        scratch.backup = Some(before);
                    }
                    scratch.invalidate();
                }
                self.act(&rule.id, action, scratch, ctx)
            }
            Err(e) => {
                *ctx = before;
                self.fail(rule, &e, scratch)
            }
        }
    }

    /// Without Lua support, a Lua handler is a failed effect.
    #[cfg(not(feature = "lua"))]
    fn lua(
        &mut self,
        rule: &Rule,
        _code: &LuaCode,
        scratch: &mut Scratch,
        _ctx: &mut HookContext,
    ) -> Option<Stop> {
        let error = EffectError::Unsupported("this build has no Lua handlers (the `lua` feature)");
        self.fail(rule, &error, scratch)
    }

    /// Runs native code (a `call` handler or a registry's hook) on the
    /// context: a panic or an overrun is a failure of `who` (what, id, mode)
    /// and leaves the context as it was.
    fn invoke(
        &mut self,
        who: (&str, &str, FailMode),
        name: &str,
        timeout: Duration,
        run: impl FnOnce(&mut HookContext) -> HookAction,
        scratch: &mut Scratch,
        ctx: &mut HookContext,
    ) -> Option<Stop> {
        let (what, id, mode) = who;
        // Nothing starts after the deadline.
        let cutoff = match Cutoff::start(timeout, self.deadline) {
            Ok(cutoff) => cutoff,
            Err(error) => return self.fail_as(what, id, mode, &error, scratch),
        };
        let before = ctx.clone();
        let result = panic::catch_unwind(AssertUnwindSafe(|| run(ctx)));
        let action = match result {
            Err(panic) => {
                *ctx = before;
                let message = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "a non-string panic".to_string());
                let error = EffectError::Panicked {
                    name: name.to_string(),
                    message,
                };
                return self.fail_as(what, id, mode, &error, scratch);
            }
            // Native code cannot be preempted; one that overran its timeout
            // (or the deadline) has its result (and its edits) dropped.
            Ok(_) if cutoff.passed() => {
                *ctx = before;
                return self.fail_as(what, id, mode, &cutoff.error(), scratch);
            }
            Ok(action) => action,
        };
        // Matches are memoized: forget them only when the code edited.
        if *ctx != before {
            if scratch.backup.is_none() {
                scratch.backup = Some(before);
            }
            scratch.invalidate();
        }
        self.act(id, action, scratch, ctx)
    }

    /// A failed effect: a warning under `fail open`, an abort naming the
    /// rule under `fail closed`.
    fn fail(&mut self, rule: &Rule, error: &EffectError, scratch: &mut Scratch) -> Option<Stop> {
        self.fail_as("rule", &rule.id, rule.fail, error, scratch)
    }

    /// [`fail`](Self::fail) for a rule or a native hook (`what`) named `id`.
    fn fail_as(
        &mut self,
        what: &str,
        id: &str,
        mode: FailMode,
        error: &dyn std::fmt::Display,
        scratch: &mut Scratch,
    ) -> Option<Stop> {
        match mode {
            FailMode::Open => {
                tracing::warn!(id, "{what} failed open: {error}");
                scratch
                    .warnings
                    .push(format!("{what} `{id}` failed open: {error}"));
                None
            }
            FailMode::Closed => {
                tracing::warn!(id, "{what} failed closed: {error}");
                self.reason = Some(Cow::Owned(format!("{what} `{id}` failed closed: {error}")));
                self.decide(Decision::Deny);
                Some(Stop::Abort)
            }
        }
    }
}

fn emit_log(level: LogLevel, rule: &str, point: &str, message: &str) {
    match level {
        LogLevel::Trace => tracing::trace!(target: "hookc::rules", rule, point, "{message}"),
        LogLevel::Debug => tracing::debug!(target: "hookc::rules", rule, point, "{message}"),
        LogLevel::Info => tracing::info!(target: "hookc::rules", rule, point, "{message}"),
        LogLevel::Warn => tracing::warn!(target: "hookc::rules", rule, point, "{message}"),
        LogLevel::Error => tracing::error!(target: "hookc::rules", rule, point, "{message}"),
    }
}
