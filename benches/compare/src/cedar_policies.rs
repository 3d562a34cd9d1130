//! The workload for cedar-policy: one `forbid` policy per rule, and one
//! `permit` for every call, so that a call no rule denies is allowed.
//!
//! The hook point is the action, the calling component the resource (an
//! exact target constrains it, `*::*` leaves it open), and the call's
//! `tool` and `args` are the request's context. The principal, the agent
//! making the call, is the same for every request and no policy reads it.

use crate::hookc_rules::rule_index;
use crate::workload::{Event, RuleTarget, Workload, POINT};
use cedar_policy::{
    Authorizer, Context, Decision, Entities, EntityUid, PolicyId, PolicySet, Request,
    RestrictedExpression,
};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::str::FromStr;

/// The annotation that carries a policy's rule id (`PolicySet::from_str`
/// numbers policies itself: `policy0`, `policy1`, …).
const ID_ANNOTATION: &str = "id";

/// The rules as Cedar policies, in chain order, then the `permit`:
///
/// ```text
/// @id("r3")
/// forbid (principal, action == Action::"tool.pre_execute", resource)
/// when { context.tool == "exec-3" && context.args like "*cmd3 --flag*" };
/// ```
pub fn source(workload: &Workload) -> String {
    let mut out = String::with_capacity(workload.len() * 190);
    for rule in &workload.rules {
        let resource = match rule.target {
            RuleTarget::Exact(component) => format!("resource == Component::\"{component}\""),
            RuleTarget::Any => "resource".to_string(),
        };
        let _ = write!(
            out,
            "@{ID_ANNOTATION}(\"{id}\")\n\
             forbid (principal, action == Action::\"{POINT}\", {resource})\n\
             when {{ context.tool == \"{tool}\" && context.args like \"*{needle}*\" }};\n",
            id = rule.id(),
            tool = rule.tool,
            needle = rule.needle,
        );
    }
    out.push_str("@id(\"allow\")\npermit (principal, action, resource);\n");
    out
}

/// The parsed policies, the (empty) entity store, and the policy ids that
/// stand for rules.
#[derive(Debug)]
pub struct Cedar {
    /// The policy set, parsed from [`source`].
    pub policies: PolicySet,
    /// No entities: no policy reads an attribute or a hierarchy.
    pub entities: Entities,
    /// The authorizer (it holds no state between requests).
    pub authorizer: Authorizer,
    /// The rule index each `forbid` stands for.
    rules: HashMap<PolicyId, usize>,
}

impl Cedar {
    /// Parses `source`.
    pub fn new(source: &str) -> Result<Cedar, String> {
        let policies = PolicySet::from_str(source).map_err(|e| format!("Cedar policies: {e}"))?;
        let mut rules = HashMap::new();
        for policy in policies.policies() {
            match policy.annotation(ID_ANNOTATION) {
                Some("allow") => {}
                Some(id) => {
                    rules.insert(policy.id().clone(), rule_index(id)?);
                }
                None => return Err(format!("policy {} has no @id", policy.id())),
            }
        }
        Ok(Cedar {
            policies,
            entities: Entities::empty(),
            authorizer: Authorizer::new(),
            rules,
        })
    }

    /// The request a host builds for `event`.
    pub fn request(event: &Event) -> Result<Request, String> {
        let uid =
            |text: String| EntityUid::from_str(&text).map_err(|e| format!("entity `{text}`: {e}"));
        let context = Context::from_pairs([
            (
                "tool".to_string(),
                RestrictedExpression::new_string(event.tool.clone()),
            ),
            (
                "args".to_string(),
                RestrictedExpression::new_string(event.args.clone()),
            ),
        ])
        .map_err(|e| format!("context: {e}"))?;
        Request::new(
            uid("Agent::\"session\"".to_string())?,
            uid(format!("Action::\"{POINT}\""))?,
            uid(format!("Component::\"{}\"", event.component))?,
            context,
            None,
        )
        .map_err(|e| format!("request: {e}"))
    }

    /// The rules that deny `event`, as indexes, in chain order: the
    /// `forbid` policies the answer gives as its reasons.
    pub fn fired(&self, event: &Event) -> Result<Vec<usize>, String> {
        let response =
            self.authorizer
                .is_authorized(&Self::request(event)?, &self.policies, &self.entities);
        if let Some(error) = response.diagnostics().errors().next() {
            return Err(format!("event `{}`: {error}", event.name));
        }
        let mut fired: Vec<usize> = response
            .diagnostics()
            .reason()
            .filter_map(|id| self.rules.get(id).copied())
            .collect();
        fired.sort_unstable();
        if (response.decision() == Decision::Deny) == fired.is_empty() {
            return Err(format!(
                "event `{}`: {:?} with {} forbids",
                event.name,
                response.decision(),
                fired.len()
            ));
        }
        Ok(fired)
    }
}
