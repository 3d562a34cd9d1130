//! Witness events: for a rule, a concrete event of its point and target
//! that makes it fire.
//!
//! The search reads the rule's condition from the program (a boolean tree
//! over atoms, [`Cond`]), lists the ways it can hold (conjunctions of atoms
//! and negated atoms), and for each gives every field its atoms test a
//! value that satisfies them: the constant of `==` and `in`, a number
//! inside the bounds of the comparisons, for string tests (`contains`,
//! `starts_with`, `ends_with`, `matches`, globs) a shortest string in the
//! intersection of their languages and outside those of the negated ones
//! ([`crate::strings`]), nothing at all where only negations test a field.
//! The target is built from the rule's FQL pattern.
//!
//! Every event found is run through the table's own dispatch (effects
//! recorded, never run, a fresh rate store each time), and is a witness
//! only when the rule is among the rules that fired. When an earlier rule
//! fires first and ends the chain, the search tries again with that rule's
//! condition negated, a few times. The answer for each rule is a
//! [`Witness`]: the event, or [`Verdict::Unreachable`] with a proof (the
//! rule is disabled, or every way its condition can hold needs a field to
//! take a value none can), or [`Verdict::Undecided`] with the reason (an
//! expression or a `rate(…)` test the search does not solve, a search
//! limit, an event that did not make the rule fire).

use super::solve::{Solver, Space};
use crate::ir::{Cond, PointProgram};
use crate::{Effects, HookContext, OutcomeKind, Table};
use serde::Serialize;
use serde_json::Value;

/// The most events run through the dispatch for one rule.
const MAX_RUNS: usize = 48;

/// The most earlier rules whose conditions the search negates.
const MAX_AVOIDED: usize = 4;

/// What the search says about one rule.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Witness {
    /// The rule's id.
    pub rule: String,
    /// Its hook point.
    pub point: String,
    /// Its FQL target.
    pub target: String,
    /// The file it is written in.
    pub file: String,
    /// The line of its `hook` keyword.
    pub line: u32,
    /// Witness, unreachable or undecided.
    #[serde(rename = "status")]
    pub verdict: Verdict,
    /// The event that makes the rule fire, as `hookc eval --event` reads
    /// it (a hook context); only for a witness.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event: Option<Value>,
    /// Why there is no witness: the proof, or what stopped the search.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The answer for a rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// An event that makes the rule fire, checked by dispatch.
    Witness,
    /// No event makes the rule fire, and the reason is a proof.
    Unreachable,
    /// None was found, and none is proven not to exist.
    Undecided,
}

/// One answer per rule of `table` (only the rule with id `only`, when
/// given), by point in name order and rules in execution order. Each event
/// is checked with a fresh `effects()`: they should record effects, not
/// run them.
pub fn witnesses(table: &Table, effects: &dyn Fn() -> Effects, only: Option<&str>) -> Vec<Witness> {
    let program = table.program();
    let mut out = Vec::new();
    for point in &program.points {
        let space = Space::of(program, point);
        for (index, rule) in point.rules.iter().enumerate() {
            if only.is_some_and(|id| id != rule.id) {
                continue;
            }
            let searcher = Searcher {
                table,
                point,
                effects,
                solver: Solver::new(&space),
            };
            let (verdict, event, reason) = searcher.search(index);
            out.push(Witness {
                rule: rule.id.clone(),
                point: point.name.clone(),
                target: rule.target.to_string(),
                file: program
                    .files
                    .get(rule.origin.file as usize)
                    .cloned()
                    .unwrap_or_default(),
                line: rule.origin.line,
                verdict,
                event,
                reason,
            });
        }
    }
    out
}

/// What running an event through the dispatch showed.
enum Run {
    /// The rule fired.
    Fired,
    /// It did not; an earlier rule that fired (and may be why), and what
    /// happened.
    Missed(Option<usize>, String),
}

struct Searcher<'a> {
    table: &'a Table,
    point: &'a PointProgram,
    effects: &'a dyn Fn() -> Effects,
    solver: Solver<'a>,
}

impl Searcher<'_> {
    /// The verdict for the rule at `index`, with the event or the reason.
    fn search(mut self, index: usize) -> (Verdict, Option<Value>, Option<String>) {
        let Some(rule) = self.point.rules.get(index) else {
            return (Verdict::Undecided, None, Some("no such rule".into()));
        };
        if !rule.enabled {
            let why = "the rule is disabled, and a disabled rule never runs";
            return (Verdict::Unreachable, None, Some(why.into()));
        }
        let mut avoided: Vec<usize> = Vec::new();
        let mut reasons: Vec<String> = Vec::new();
        let mut runs = 0;
        loop {
            let mut parts = vec![rule.cond.clone()];
            for &j in &avoided {
                if let Some(earlier) = self.point.rules.get(j) {
                    parts.push(Cond::Not(Box::new(earlier.cond.clone())));
                }
            }
            let found = self
                .solver
                .candidates(&rule.target, &Cond::All(parts), MAX_RUNS - runs);
            if avoided.is_empty() {
                if let Some(proof) = found.proof {
                    return (Verdict::Unreachable, None, Some(proof));
                }
            }
            reasons.extend(found.reasons);
            let mut blocker = None;
            for (event, notes) in found.events {
                runs += 1;
                match self.run(index, &event) {
                    Ok(Run::Fired) => return (Verdict::Witness, Some(event), None),
                    Ok(Run::Missed(earlier, why)) => {
                        if blocker.is_none() {
                            blocker = earlier;
                        }
                        reasons.extend(notes);
                        reasons.push(why);
                    }
                    Err(why) => reasons.push(why),
                }
            }
            match blocker {
                Some(j)
                    if !avoided.contains(&j) && avoided.len() < MAX_AVOIDED && runs < MAX_RUNS =>
                {
                    avoided.push(j)
                }
                _ => break,
            }
        }
        if runs >= MAX_RUNS {
            reasons.push(format!("{MAX_RUNS} events tried"));
        }
        let mut unique: Vec<String> = Vec::new();
        for why in reasons {
            if !unique.contains(&why) {
                unique.push(why);
            }
        }
        unique.truncate(3);
        let reason = if unique.is_empty() {
            "no way its condition can hold was found".to_string()
        } else {
            unique.join("; ")
        };
        (Verdict::Undecided, None, Some(reason))
    }

    /// Runs `event` through the table's dispatch.
    fn run(&self, index: usize, event: &Value) -> Result<Run, String> {
        let mut ctx: HookContext = serde_json::from_value(event.clone())
            .map_err(|e| format!("the event built is not a hook context: {e}"))?;
        let effects = (self.effects)();
        let report = self.table.dispatch_context_with(&mut ctx, &effects);
        let Some(rule) = self.point.rules.get(index) else {
            return Err("no such rule".into());
        };
        if report.fired.contains(&rule.id) {
            return Ok(Run::Fired);
        }
        let earlier = report
            .fired
            .iter()
            .filter_map(|id| self.point.rules.iter().position(|r| r.id == *id))
            .rfind(|&j| j < index);
        let why = match earlier.and_then(|j| self.point.rules.get(j)) {
            Some(first) if report.outcome != OutcomeKind::Continue => format!(
                "`{}` fires first and ends the chain ({})",
                first.id,
                outcome_name(report.outcome)
            ),
            Some(first) => format!(
                "the event built did not make it fire (`{}` fired before it)",
                first.id
            ),
            None => "the event built did not make it fire".to_string(),
        };
        Ok(Run::Missed(earlier, why))
    }
}

fn outcome_name(kind: OutcomeKind) -> &'static str {
    match kind {
        OutcomeKind::Continue => "continue",
        OutcomeKind::Skip => "skip",
        OutcomeKind::Abort => "abort",
        OutcomeKind::Ask => "ask",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(src: &str) -> Table {
        match crate::compile_str("test.hooks", src) {
            Ok(compiled) => compiled.table,
            Err(diags) => panic!("{diags:?}"),
        }
    }

    fn verdicts(src: &str) -> Vec<(String, Verdict, Option<String>)> {
        let table = table(src);
        witnesses(&table, &|| Effects::new().recording_only(), None)
            .into_iter()
            .map(|w| (w.rule, w.verdict, w.reason))
            .collect()
    }

    #[test]
    fn a_contradiction_is_unreachable_and_a_plain_rule_has_a_witness() {
        let found = verdicts(
            r#"
schema orcs

hook plain on tool.pre_execute at builtin::* {
    when payload.tool == "exec"
    log info "x"
}

hook never on tool.pre_execute at builtin::* {
    when payload.tool == "exec"
    when payload.tool == "read"
    log info "x"
}
"#,
        );
        assert_eq!(found[0].1, Verdict::Witness, "{found:?}");
        assert_eq!(found[1].1, Verdict::Unreachable, "{found:?}");
    }
}
