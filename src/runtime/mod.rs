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
mod effect_runs;
// The Claude Code hook reports a native handler's panic the same way.
#[cfg(feature = "cli")]
pub(crate) use effect_runs::panic_message;
mod eval;
mod explain;
mod matchers;
mod native;
mod outcome;
mod reads;
mod scratch;

pub use crate::store::memory::MAX_KEYS as RATE_MAX_KEYS;
pub use crate::table::regexes::{RegexBudget, RegexOverrun};

// The event types live in the leaf `event` module; these paths stay for hosts.
pub use crate::event::{json_eq, HookContext, Principal, Target, Val};
use chain::Stop;
pub(crate) use chain::{Live, Observer, Probe, Reach, Run, NATIVE_FIRED};
pub use eval::EvalError;
#[cfg(feature = "compiler")]
pub(crate) use explain::atom_text;
pub use explain::{
    diff as json_diff, ActionExplanation, CondExplanation, Explanation, FieldValue, Location,
    RuleExplanation, RuleStatus, TargetExplanation,
};
pub use native::NativeHook;
pub(crate) use native::RegisteredHook;
pub use outcome::{Decision, LogLine, Outcome, OutcomeKind, Report};
use reads::Written;
pub use scratch::Scratch;
use scratch::{FieldRead, RATE_FAILED};

use crate::effects::{
    exec, trace, webhook, Cutoff, Deadline, EffectError, Effects, HookAction, Reply,
};
use crate::fql::split_component;
use crate::ir::Atom;
use crate::ir::{Action, FailMode, LogLevel, NO_FIELD};
use crate::ir::{LuaCode, RateTest};
pub use crate::schema::PointId;
use crate::schema::PointKind;
use crate::store::{Counter, RateStore, StoreError};
use crate::table::layout::head::{self, CondWords, Node, Operands};
use crate::table::layout::point::{GroupRules, Point, PointSlot};
use crate::table::regexes::{self, Matching};
use crate::table::rule::RuleHead;
use crate::table::Loaded;
use crate::table::Table;
use regex_automata::dfa::OverlappingState;
use regex_automata::Input;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::borrow::Cow;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A hook point given to [`Table::dispatch`]: a name, a [`PointId`]
/// resolved once, or a hook system's typed point (ORCS's
/// [`HookPoint`](crate::HookPoint) is both a name and an id).
///
/// An id finds the point's rules with one array index; a name, by a binary
/// search over the points that have rules.
pub trait AsPoint {
    /// The point's dotted name, when it is known without a table.
    fn point_name(&self) -> Option<&str>;

    /// The point's id, when it is given as one.
    fn point_id(&self) -> Option<PointId> {
        None
    }
}

impl AsPoint for PointId {
    fn point_name(&self) -> Option<&str> {
        None
    }

    fn point_id(&self) -> Option<PointId> {
        Some(*self)
    }
}

impl AsPoint for &str {
    fn point_name(&self) -> Option<&str> {
        Some(self)
    }
}

impl AsPoint for String {
    fn point_name(&self) -> Option<&str> {
        Some(self)
    }
}

impl AsPoint for &String {
    fn point_name(&self) -> Option<&str> {
        Some(self)
    }
}

/// A point as a table finds it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Resolved<'a> {
    /// The index of its rules in the program's points, if it has any.
    pub(crate) index: Option<usize>,
    /// Its name; `None` for an id of another schema.
    pub(crate) name: Option<&'a str>,
}

impl Table {
    /// The index of `point`'s rules: [`resolve`](Self::resolve) without
    /// the name, for the plain dispatch path.
    #[inline]
    pub(crate) fn index_of(&self, point: &impl AsPoint) -> Option<usize> {
        if let Some(id) = point.point_id() {
            if id.schema() == self.schema_tag() {
                return self.point_index_of(id);
            }
        }
        self.resolve(point).index
    }

    /// Finds `point` in this table: by id when it is given as one of this
    /// table's schema, else by name.
    pub(crate) fn resolve<'a>(&'a self, point: &'a impl AsPoint) -> Resolved<'a> {
        if let Some(id) = point.point_id() {
            if let Some(name) = self.point_name(id) {
                return Resolved {
                    index: self.point_index_of(id),
                    name: Some(name),
                };
            }
        }
        match point.point_name() {
            Some(name) => Resolved {
                index: self.point_index(name),
                name: Some(name),
            },
            None => {
                tracing::warn!(
                    "a point id of another schema was dispatched on a `{}` table: no rule runs",
                    self.schema()
                );
                Resolved {
                    index: None,
                    name: None,
                }
            }
        }
    }
}
