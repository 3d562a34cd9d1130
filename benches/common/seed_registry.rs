//! The hook registry of the seed design (ORCS ADR-002 §3.3 `FqlPattern`,
//! §4 `Hook`/`HookAction`, §5.2 `HookRegistry::dispatch`), the baseline
//! hookc's dispatch is measured against: a map from hook point to a list of
//! boxed hooks sorted by priority, each hook's FQL checked by comparing
//! segments, and `execute(ctx.clone())` called on every hook whose FQL
//! matches. Each bench supplies its own `Hook` for its rules.
//!
//! Shared by `benches/dispatch.rs` (the generated workload) and
//! `benches/compare` (the workload run against Cedar and regorus).

use hookc::{HookContext, HookPoint};
use serde_json::Value;
use std::collections::HashMap;

/// `scope::name`, already split (ORCS's `ComponentId`).
#[derive(Clone, Debug)]
pub struct ComponentId {
    pub namespace: String,
    pub name: String,
}

impl ComponentId {
    pub fn parse(fqn: &str) -> ComponentId {
        let (namespace, name) = fqn.split_once("::").unwrap_or((fqn, ""));
        ComponentId {
            namespace: namespace.to_string(),
            name: name.to_string(),
        }
    }
}

/// One FQL segment.
#[derive(Clone, Debug)]
pub enum PatternSegment {
    Exact(String),
    Wildcard,
}

impl PatternSegment {
    fn parse(s: &str) -> PatternSegment {
        if s == "*" {
            PatternSegment::Wildcard
        } else {
            PatternSegment::Exact(s.to_string())
        }
    }

    fn matches(&self, s: &str) -> bool {
        match self {
            PatternSegment::Wildcard => true,
            PatternSegment::Exact(e) => e == s,
        }
    }
}

/// The seed's `FqlPattern`: string comparison per segment, no regex.
#[derive(Clone, Debug)]
pub struct FqlPattern {
    scope: PatternSegment,
    target: PatternSegment,
    child_path: Option<PatternSegment>,
}

impl FqlPattern {
    /// `scope::target[/child]` (the generator never writes `#instance`).
    pub fn parse(fql: &str) -> FqlPattern {
        let (scope, rest) = fql.split_once("::").expect("generated FQL has `::`");
        let (target, child) = match rest.split_once('/') {
            Some((t, c)) => (t, Some(c)),
            None => (rest, None),
        };
        FqlPattern {
            scope: PatternSegment::parse(scope),
            target: PatternSegment::parse(target),
            child_path: child.map(PatternSegment::parse),
        }
    }

    pub fn matches(&self, component_id: &ComponentId, child_id: Option<&str>) -> bool {
        if !self.scope.matches(&component_id.namespace) || !self.target.matches(&component_id.name)
        {
            return false;
        }
        match (&self.child_path, child_id) {
            (None, _) => true,
            (Some(p), Some(c)) => p.matches(c),
            (Some(_), None) => false,
        }
    }
}

/// The seed's `HookAction` (unboxed, as in the seed: moving the context
/// costs a memcpy, not an allocation).
#[derive(Debug)]
#[expect(
    clippy::large_enum_variant,
    reason = "the seed's HookAction moves the context by value"
)]
pub enum HookAction {
    Continue(HookContext),
    Skip(Value),
    Abort { reason: String },
    Replace(Value),
}

/// The seed's `Hook` trait. `execute` also says whether the hook's own
/// conditions matched (the seed's handlers decide that inside `execute`
/// and return `Continue(ctx)` otherwise); dispatch records it in the
/// fired list, as hookc does.
pub trait Hook: Send + Sync {
    fn id(&self) -> &str;
    fn fql_pattern(&self) -> &FqlPattern;
    fn hook_point(&self) -> HookPoint;
    fn priority(&self) -> i32;
    fn execute(&self, ctx: HookContext) -> (HookAction, bool);
}

struct RegisteredHook {
    hook: Box<dyn Hook>,
    enabled: bool,
}

/// The seed's `HookRegistry` (without the `RwLock`, which a benchmark
/// on one thread would only add an uncontended lock to).
pub struct HookRegistry {
    hooks: HashMap<HookPoint, Vec<RegisteredHook>>,
    empty: Vec<RegisteredHook>,
}

impl HookRegistry {
    pub fn new() -> HookRegistry {
        HookRegistry {
            hooks: HashMap::new(),
            empty: Vec::new(),
        }
    }

    /// Registers a hook, keeping the point's list sorted by priority
    /// (stable: ties stay in registration order).
    pub fn register(&mut self, hook: Box<dyn Hook>) {
        let list = self.hooks.entry(hook.hook_point()).or_default();
        let at = list.partition_point(|rh| rh.hook.priority() <= hook.priority());
        list.insert(
            at,
            RegisteredHook {
                hook,
                enabled: true,
            },
        );
    }

    /// The seed's §5.2 dispatch loop, recording fired hooks in `fired`
    /// (cleared first; reused across calls like hookc's scratch).
    pub fn dispatch(
        &self,
        point: HookPoint,
        component_id: &ComponentId,
        child_id: Option<&str>,
        ctx: HookContext,
        fired: &mut Vec<u32>,
    ) -> HookAction {
        fired.clear();
        let hooks = self.hooks.get(&point).unwrap_or(&self.empty);
        let mut current_ctx = ctx;

        for (i, rh) in hooks.iter().enumerate().filter(|(_, rh)| rh.enabled) {
            if !rh.hook.fql_pattern().matches(component_id, child_id) {
                continue;
            }
            if current_ctx.depth >= current_ctx.max_depth {
                tracing::warn!(
                    hook_id = rh.hook.id(),
                    "hook chain depth exceeded, skipping"
                );
                break;
            }
            let (action, hit) = rh.hook.execute(current_ctx.clone());
            if hit {
                fired.push(i as u32);
            }
            match action {
                HookAction::Continue(new_ctx) => current_ctx = new_ctx,
                action @ (HookAction::Skip(_) | HookAction::Abort { .. }) => return action,
                HookAction::Replace(value) => {
                    if point.kind() == hookc::PointKind::Post {
                        current_ctx.payload = value;
                    } else {
                        tracing::warn!(
                            hook_id = rh.hook.id(),
                            "Replace returned from pre-hook, ignoring"
                        );
                    }
                }
            }
        }
        HookAction::Continue(current_ctx)
    }

    /// Ids of `fired`, for checks.
    pub fn ids(&self, point: HookPoint, fired: &[u32]) -> Vec<String> {
        let hooks = self.hooks.get(&point).unwrap_or(&self.empty);
        fired
            .iter()
            .filter_map(|&i| hooks.get(i as usize).map(|rh| rh.hook.id().to_string()))
            .collect()
    }
}

/// A hook that answers every call with one action, for [`check_outcomes`].
struct Answers(&'static str, FqlPattern, fn(&HookContext) -> HookAction);

impl Hook for Answers {
    fn id(&self) -> &str {
        self.0
    }

    fn fql_pattern(&self) -> &FqlPattern {
        &self.1
    }

    fn hook_point(&self) -> HookPoint {
        HookPoint::ToolPreExecute
    }

    fn priority(&self) -> i32 {
        0
    }

    fn execute(&self, ctx: HookContext) -> (HookAction, bool) {
        ((self.2)(&ctx), true)
    }
}

/// Checks the registry's handling of the actions the benches' rules never
/// return, as the seed's §5.2 loop says: a `Replace` from a pre hook is
/// ignored and the chain goes on, a `Skip` stops it. Panics otherwise; the
/// benches call it before timing the registry.
pub fn check_outcomes(ctx: &HookContext) {
    let any = || FqlPattern::parse("*::*");
    let mut registry = HookRegistry::new();
    registry.register(Box::new(Answers("replace", any(), |_| {
        HookAction::Replace(Value::Null)
    })));
    registry.register(Box::new(Answers("skip", any(), |_| {
        HookAction::Skip(Value::Bool(true))
    })));
    registry.register(Box::new(Answers("after", any(), |ctx| {
        HookAction::Continue(ctx.clone())
    })));
    let mut fired = Vec::new();
    let action = registry.dispatch(
        HookPoint::ToolPreExecute,
        &ComponentId::parse("builtin::llm"),
        None,
        ctx.clone(),
        &mut fired,
    );
    let ids = registry.ids(HookPoint::ToolPreExecute, &fired);
    match action {
        HookAction::Skip(Value::Bool(true)) if ids == ["replace", "skip"] => {}
        other => panic!("the seed registry answered {other:?} after {ids:?}"),
    }
}
