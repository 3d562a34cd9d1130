//! A rule as a loaded table reads it: in two parts.
//!
//! A dispatch reads the [`RuleHead`] of every candidate: what decides
//! whether the rule fires (its target, whether it is enabled, its
//! condition) and how a failure is taken. It is laid out in words and
//! read in place ([`layout::head`](super::layout::head)): a view of the
//! table's bytes, nothing decoded. The [`RuleBody`] (its actions, and
//! where it and each atom of its condition were written) is a blob of the
//! point block (see [`layout::point`](super::layout::point)), decoded
//! only when the rule fires, or when a tool reads the whole program: a
//! hook process answering one event decodes the actions of the rules that
//! fire, and nothing of the rules it tests.

use crate::ir;
pub(crate) use crate::table::layout::head::RuleHead;

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

impl RuleHead<'_> {
    /// The rule in the IR, from its two parts and its priority (held in
    /// words beside them), every part checked: its id and names text, its
    /// condition and trigger on the point's `atoms`. Every field of the
    /// body is named: a field added to the IR does not compile until the
    /// format says which part holds it.
    pub(crate) fn into_rule(
        self,
        priority: i32,
        atoms: u32,
        body: RuleBody,
    ) -> Result<ir::Rule, String> {
        let RuleBody {
            actions,
            origin,
            cond_origins,
        } = body;
        let trigger = self.trigger();
        if trigger.is_some_and(|a| a >= atoms) {
            return Err("a trigger out of range".to_string());
        }
        let id = std::str::from_utf8(self.id_bytes()).map_err(|_| "an id that is not text")?;
        let target = self.target().to_owned();
        Ok(ir::Rule {
            id: id.to_string(),
            target: target.ok_or("a target name that is not text")?,
            priority,
            enabled: self.enabled(),
            fail: self.fail(),
            timeout_ms: self.timeout_ms(),
            cond: self.cond().to_ir(atoms)?,
            actions,
            origin,
            cond_origins,
            trigger,
        })
    }
}
