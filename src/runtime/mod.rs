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

mod actions;
mod chain;
mod dispatch;
mod edits;
mod eval;
mod explain;
mod matchers;
mod native;
mod outcome;
mod scratch;

pub use crate::store::memory::MAX_KEYS as RATE_MAX_KEYS;
pub use crate::table::regexes::{RegexBudget, RegexOverrun};

// The event types live in the leaf `event` module; these paths stay for hosts.
pub use crate::event::{json_eq, HookContext, Principal, Target, Val};
use chain::Stop;
pub(crate) use chain::{Live, Observer, Probe, Reach, Run, NATIVE_FIRED};
pub use eval::EvalError;
pub use explain::{
    diff as json_diff, ActionExplanation, CondExplanation, Explanation, FieldValue, Location,
    RuleExplanation, RuleStatus, TargetExplanation,
};
pub use native::NativeHook;
pub(crate) use native::RegisteredHook;
pub use outcome::{Decision, LogLine, Outcome, OutcomeKind, Report};
pub use scratch::Scratch;
use scratch::RATE_FAILED;

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
