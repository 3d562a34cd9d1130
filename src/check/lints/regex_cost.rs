//! `regex-cost`: a `matches` regex too large for the field's DFA, matched on
//! its own at a cost per byte of the field.

use super::walk::first_uses;
use super::{declare_lint, Cx, Sink};
use crate::check::NfaStates;
use crate::diag::Diagnostic;
use crate::runtime::RegexBudget;

declare_lint! {
    /// ## What it does
    /// Finds `matches` regexes that the Pike VM, the runtime's slow engine,
    /// may have to decide, and gives their worst-case cost per byte of the
    /// field. The DFAs decide most regexes in one linear pass; the Pike VM
    /// takes over when:
    ///
    /// - the regex is too large for the field's DFA (its DFA alone is over
    ///   64 KiB unless a host sets `Options::pattern_dfa_budget`: long
    ///   counted repetitions of large classes, such as `\w{100}`), so it is
    ///   matched on its own by a lazy DFA, and its whole DFA is over 1 MiB,
    ///   so text crafted to visit many of its states makes the lazy DFA give
    ///   up; or
    /// - it has a Unicode word boundary (`\b`), which the DFAs cannot decide
    ///   on non-ASCII text.
    ///
    /// The cost per byte is the number of states of the regex's NFA (as the
    /// runtime compiles it): at each byte, the Pike VM visits each active
    /// state, at worst all of them. Regexes of at most 128 steps per byte
    /// (for which the default regex budget covers 256 KiB of field) are not
    /// reported: `/AKIA[0-9A-Z]{16}|ghp_[A-Za-z0-9]{36}/` is 64.
    ///
    /// ## Why is this bad?
    /// A field is event data: a crafted value of a megabyte can make such a
    /// regex take seconds. Each dispatch may spend a regex budget of Pike VM
    /// steps (2^25 by default; `Scratch::set_regex_budget`); a match that
    /// goes past it stops, and its atom fails through the rule's failure
    /// mode: under `fail open` (the default) the rule does not apply, with a
    /// warning; under `fail closed` the chain aborts. Either way the rule no
    /// longer decides on its condition for such an event.
    ///
    /// ## Example
    /// ```text
    /// hook long-token on tool.pre_execute {
    ///     when payload.args matches /\w{100}/
    ///     abort "a 100-character token"
    /// }
    /// ```
    ///
    /// `\w` is Unicode-aware, so 100 copies of it are a 31,649-state NFA. If
    /// ASCII is meant, `[A-Za-z0-9_]{100}` fits in the field's DFA;
    /// otherwise test a shorter run. Give a rule that must hold `fail
    /// closed`.
    pub static REGEX_COST = "regex-cost", Warn, check;
}

fn check(cx: &Cx<'_>, sink: &mut Sink<'_>) {
    for used in first_uses(cx) {
        let (source, span, named) = (&used.source, used.span, used.named);
        let inline = source.to_inline();
        // What the checker found parsing it (every regex written in
        // a rule); then the cheap test (most regexes have no Unicode
        // `\b` and no long counted repetition); only then, for what
        // is left, (milliseconds) building NFAs and DFAs.
        let (boundary, states, long_repetition) = match cx.regex_facts.get(source) {
            Some(facts) => (
                facts.unicode_boundary,
                facts.nfa_states,
                Some(facts.long_repetition),
            ),
            // A regex no rule lowered (its rule has other errors).
            None => match crate::table::regexes::parse_facts(&inline, MAX_QUIET_STATES) {
                Some((boundary, _)) => (boundary, NfaStates::AtMost(u64::MAX), None),
                None => continue,
            },
        };
        // The unanchored start adds a few states.
        if matches!(states, NfaStates::AtMost(n) if n.saturating_add(8) <= MAX_QUIET_STATES) {
            continue;
        }
        if !boundary && !too_costly(&inline, long_repetition, cx.pattern_dfa_budget) {
            continue;
        }
        let states = match states {
            NfaStates::Exactly(n) => n,
            NfaStates::AtMost(_) => match crate::table::regexes::nfa_states(&inline) {
                Some(n) => n,
                None => continue,
            },
        };
        if states <= MAX_QUIET_STATES {
            continue;
        }
        let why = if boundary {
            "on non-ASCII text the DFAs cannot decide its Unicode `\\b`"
        } else if !crate::table::regexes::fits_lazy_dfa(&inline) {
            "it is too large for the field's DFA, and its lazy DFA can give up on text that visits many of its states"
        } else {
            continue;
        };
        let shown = format!("/{}/{}", source.pattern, source.flags);
        let name = named.map(|n| format!(" (`{n}`)")).unwrap_or_default();
        let shown_states = thousands(states);
        let d = Diagnostic::warning(
            REGEX_COST.code,
            format!(
                "regex `{shown}`{name} may be matched by the Pike VM, at up to {shown_states} steps per byte"
            ),
        )
        .with_primary(span, format!("{shown_states} NFA states"))
        .with_help(format!(
            "{why}; the default regex budget ({} steps per dispatch) covers {} bytes at that rate, and past it the rule fails through its failure mode: use a smaller class or a shorter repetition, and `fail closed` for a rule that must hold",
            thousands(RegexBudget::DEFAULT.0),
            thousands(RegexBudget::DEFAULT.0 / states.max(1)),
        ));
        sink.report(&REGEX_COST, used.file, &[(used.file, used.anchor)], d);
    }
}

/// [`crate::table::regexes::too_costly`], without parsing the regex when
/// it cannot hold: only a long counted repetition makes a regex too costly,
/// which the checker found (`long_repetition`) when it parsed the regex,
/// and which is written with a `{` (`{n}`, `{n,m}`, `{n,}`) otherwise.
fn too_costly(pattern: &str, long_repetition: Option<bool>, budget: usize) -> bool {
    long_repetition.unwrap_or_else(|| pattern.contains('{'))
        && crate::table::regexes::too_costly(pattern, budget)
}

/// Regexes of at most this many steps per byte are not reported: the
/// default budget covers 256 KiB of field at that rate.
const MAX_QUIET_STATES: u64 = RegexBudget::DEFAULT.0 / (256 << 10);

/// `31649` as `31,649`.
pub(super) fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn thousands() {
        assert_eq!(super::thousands(0), "0");
        assert_eq!(super::thousands(999), "999");
        assert_eq!(super::thousands(1000), "1,000");
        assert_eq!(super::thousands(33_554_432), "33,554,432");
    }
}
