//! A rule as a loaded table decodes it: in two parts, each the first
//! time a dispatch needs it.
//!
//! A dispatch decodes the [`RuleHead`] of every candidate: what decides
//! whether the rule fires (its target, whether it is enabled, its
//! condition) and how a failure is taken. The [`RuleBody`] (its actions,
//! and where it and each atom of its condition were written) is decoded
//! only when the rule fires, or when a tool reads the whole program: a
//! hook process answering one event decodes the actions of the rules that
//! fire, not of every rule it tests. Both are blobs of the point block
//! (see [`layout::point`](super::layout::point)).

use crate::{fql, ir};

/// What a dispatch reads of a rule to decide whether it fires.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RuleHead {
    /// The rule's id (held in words beside the blob).
    pub(crate) id: String,
    /// Its FQL target.
    pub(crate) target: fql::FqlPattern,
    /// Disabled rules are kept (for `inspect`) but never run.
    pub(crate) enabled: bool,
    /// What a failing effect (or an overrun regex) does.
    pub(crate) fail: ir::FailMode,
    /// Timeout for effects, in milliseconds.
    pub(crate) timeout_ms: Option<u64>,
    /// The ANDed `when`/`unless` lines.
    pub(crate) cond: ir::Cond,
    /// The atom that triggers the rule, if any: for the tools (a dispatch
    /// reads the triggers from the point block's words).
    pub(crate) trigger: Option<u32>,
}

/// What a rule does, and where it was written: read when it fires.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct RuleBody {
    /// Actions in order.
    pub(crate) actions: Vec<ir::Action>,
    /// Where the rule was written.
    pub(crate) origin: ir::Origin,
    /// Where each atom of the condition is written.
    pub(crate) cond_origins: Vec<ir::Origin>,
}

impl RuleHead {
    /// The rule in the IR, from its two parts and its priority (held in
    /// words beside the blobs). Every field is named on both sides: a field
    /// added to the IR does not compile until the format says which part
    /// holds it.
    pub(crate) fn into_rule(self, priority: i32, body: RuleBody) -> ir::Rule {
        let RuleHead {
            id,
            target,
            enabled,
            fail,
            timeout_ms,
            cond,
            trigger,
        } = self;
        let RuleBody {
            actions,
            origin,
            cond_origins,
        } = body;
        ir::Rule {
            id,
            target,
            priority,
            enabled,
            fail,
            timeout_ms,
            cond,
            actions,
            origin,
            cond_origins,
            trigger,
        }
    }
}
