//! The workload as hooks of the seed design's registry: each rule a boxed
//! hook whose `execute` tests the call's `tool`, then searches its `args`,
//! as a hand-written hook would. The registry itself is the one the root
//! crate's dispatch bench measures (`benches/common/seed_registry.rs`).

use crate::seed_registry::{ComponentId, FqlPattern, Hook, HookAction, HookRegistry};
use crate::workload::{Event, RuleTarget, Workload};
use hookc::{HookContext, HookPoint};
use serde_json::Value;

/// The point every hook is registered on.
pub const HOOK_POINT: HookPoint = HookPoint::ToolPreExecute;

/// One rule of the workload as a seed-style hook.
struct RuleHook {
    id: String,
    fql: FqlPattern,
    tool: String,
    needle: String,
}

impl Hook for RuleHook {
    fn id(&self) -> &str {
        &self.id
    }

    fn fql_pattern(&self) -> &FqlPattern {
        &self.fql
    }

    fn hook_point(&self) -> HookPoint {
        HOOK_POINT
    }

    fn priority(&self) -> i32 {
        0
    }

    fn execute(&self, ctx: HookContext) -> (HookAction, bool) {
        let field = |name: &str| ctx.payload.get(name).and_then(Value::as_str);
        let hit = field("tool") == Some(self.tool.as_str())
            && field("args").is_some_and(|args| args.contains(self.needle.as_str()));
        if hit {
            let reason = "blocked".to_string();
            (HookAction::Abort { reason }, true)
        } else {
            (HookAction::Continue(ctx), false)
        }
    }
}

/// The registry with one hook per rule, registered in chain order (every
/// hook has the same priority, so the order stays).
pub fn registry(workload: &Workload) -> HookRegistry {
    let mut registry = HookRegistry::new();
    for rule in &workload.rules {
        let target = match rule.target {
            RuleTarget::Exact(component) => component,
            RuleTarget::Any => "*::*",
        };
        registry.register(Box::new(RuleHook {
            id: rule.id(),
            fql: FqlPattern::parse(target),
            tool: rule.tool.clone(),
            needle: rule.needle.clone(),
        }));
    }
    registry
}

/// The component of `event`, split as the registry matches it.
pub fn component(event: &Event) -> ComponentId {
    ComponentId::parse(&event.component)
}

/// The rules that fire on `event`, as indexes: the registry stops at the
/// first hook that aborts, so this is at most one rule. An error when the
/// registry's answer and the rules it says fired disagree.
pub fn fired(registry: &HookRegistry, event: &Event) -> Result<Vec<usize>, String> {
    let mut fired = Vec::new();
    let action = registry.dispatch(
        HOOK_POINT,
        &component(event),
        None,
        crate::hookc_rules::context(event),
        &mut fired,
    );
    let rules: Result<Vec<usize>, String> = registry
        .ids(HOOK_POINT, &fired)
        .iter()
        .map(|id| {
            id.strip_prefix('r')
                .and_then(|i| i.parse().ok())
                .ok_or_else(|| format!("the registry fired `{id}`, not a rule of the workload"))
        })
        .collect();
    let rules = rules?;
    match action {
        HookAction::Abort { .. } if rules.len() == 1 => Ok(rules),
        HookAction::Continue(_) if rules.is_empty() => Ok(rules),
        other => Err(format!(
            "the registry answered {other:?} with {rules:?} fired"
        )),
    }
}
