//! Every engine gives the workload's answer on every event: the bench
//! compares engines that agree.
//!
//! Cedar and regorus report every rule that denies a call; hookc's chain
//! and the seed design's registry stop at the first rule that aborts, so
//! they report that rule, the first of the workload's answer in chain order.

use hookc_compare::cedar_policies::{self, Cedar};
use hookc_compare::workload::{Event, Workload};
use hookc_compare::{hookc_rules, rego_policy, seed_hooks};

/// Checks every engine against the workload on `events`.
fn engines_agree(workload: &Workload, events: &[Event]) -> Result<(), String> {
    let table = hookc_rules::compile(&hookc_rules::source(workload))?;
    let cedar = Cedar::new(&cedar_policies::source(workload))?;
    let mut rego = rego_policy::engine(&rego_policy::source(workload))?;
    let seed = seed_hooks::registry(workload);
    for event in events {
        let expected = workload.expected(event);
        let first: Vec<usize> = expected.iter().copied().take(1).collect();
        let at = || format!("{} rules, event `{}`", workload.len(), event.name);
        assert_eq!(hookc_rules::fired(&table, event)?, first, "hookc, {}", at());
        assert_eq!(
            seed_hooks::fired(&seed, event)?,
            first,
            "seed registry, {}",
            at()
        );
        assert_eq!(cedar.fired(event)?, expected, "cedar, {}", at());
        assert_eq!(
            rego_policy::fired(&mut rego, event)?,
            expected,
            "regorus, {}",
            at()
        );
    }
    Ok(())
}

#[test]
fn the_engines_agree_on_the_bench_events() -> Result<(), String> {
    for n in [10, 1000, 10_000] {
        let workload = Workload::new(n);
        engines_agree(&workload, &workload.bench_events())?;
    }
    Ok(())
}

#[test]
fn the_engines_agree_on_probes() -> Result<(), String> {
    for (n, per_rule) in [(10, 10), (1000, 40)] {
        let workload = Workload::new(n);
        let probes = workload.probes(per_rule);
        if n >= 1000 {
            assert!(
                probes.iter().any(|p| workload.expected(p).len() >= 2),
                "a probe where several rules deny"
            );
        }
        engines_agree(&workload, &probes)?;
    }
    Ok(())
}
