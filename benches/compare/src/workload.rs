//! The rule set and the events every engine is asked about.
//!
//! Rule `i` of `n` (all on one point, `tool.pre_execute`):
//!
//! - target: `*::*` for odd `i`; for even `i`, one exact component of
//!   [`COMPONENTS`], in turn, so one even rule in eight reaches the events'
//!   component [`COMPONENT`];
//! - `tool == "exec-{i % 37}"`;
//! - `args contains "cmd{i} --flag"`.
//!
//! A rule that matches denies the call. Every event is a call by
//! [`COMPONENT`] with a 190-byte `args` string and the tool of the
//! designated rule (the first rule from the middle of the chain on that
//! reaches [`COMPONENT`]), so about one rule in 37 passes the tool test and
//! has its `args` needle searched:
//!
//! - `no_match`: no needle in `args`, no rule fires;
//! - `one_match`: the designated rule's needle in `args`, that rule fires.
//!
//! [`Rule::matches`] is the reference semantics the engines are checked
//! against.

/// The one point every rule is on.
pub const POINT: &str = "tool.pre_execute";

/// The component every event is for.
pub const COMPONENT: &str = "builtin::llm";

/// The components exact targets are drawn from, in turn.
pub const COMPONENTS: [&str; 8] = [
    "builtin::llm",
    "builtin::shell",
    "builtin::fs",
    "builtin::net",
    "plugin::git",
    "plugin::docker",
    "plugin::k8s",
    "lua::custom",
];

/// How many distinct tool names the rules compare with.
const TOOLS: usize = 37;

/// The length of every event's `args` string, in bytes.
pub const ARGS_LEN: usize = 190;

/// What `args` is made of around a needle: command-line flags with no
/// `cmd` in them, so no rule's needle can appear by accident.
const ARGS_FILLER: &str = "run --profile release --jobs 4 --target x86_64-unknown-linux-gnu \
    --features full,tracing --message-format short --config /etc/app/settings.toml \
    --log-level info --retries 3 --timeout 30s --output /var/lib/app/out --color never \
    --test-threads 2 --nocapture --workspace --locked --offline";

/// The components a rule applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleTarget {
    /// One component, `scope::name`.
    Exact(&'static str),
    /// Every component, `*::*`.
    Any,
}

impl RuleTarget {
    /// True when a call by `component` is in this target.
    pub fn reaches(self, component: &str) -> bool {
        match self {
            RuleTarget::Exact(exact) => exact == component,
            RuleTarget::Any => true,
        }
    }
}

/// One rule: a target and two conditions; it denies the call when all hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    /// The rule's position in the chain (its id is `r{index}`).
    pub index: usize,
    /// The components it applies to.
    pub target: RuleTarget,
    /// The tool name the call's `tool` must equal.
    pub tool: String,
    /// The text the call's `args` must contain.
    pub needle: String,
}

impl Rule {
    /// Rule `index` of the workload.
    fn generate(index: usize) -> Rule {
        let target = if index % 2 == 1 {
            RuleTarget::Any
        } else {
            RuleTarget::Exact(COMPONENTS[(index / 2) % COMPONENTS.len()])
        };
        Rule {
            index,
            target,
            tool: format!("exec-{}", index % TOOLS),
            needle: format!("cmd{index} --flag"),
        }
    }

    /// The rule's id in every engine's source.
    pub fn id(&self) -> String {
        format!("r{}", self.index)
    }

    /// True when the rule denies `event`: the reference every engine is
    /// checked against.
    pub fn matches(&self, event: &Event) -> bool {
        self.target.reaches(&event.component)
            && event.tool == self.tool
            && event.args.contains(&self.needle)
    }
}

/// One call on [`POINT`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    /// What the bench calls it: `no_match`, `one_match`, or a probe's name.
    pub name: String,
    /// The calling component, `scope::name`.
    pub component: String,
    /// The tool called.
    pub tool: String,
    /// The tool's arguments, one string.
    pub args: String,
}

/// `n` rules and the events the bench dispatches.
#[derive(Clone, Debug)]
pub struct Workload {
    /// The rules, in chain order.
    pub rules: Vec<Rule>,
    /// The rule `one_match` is built for: the first from the middle of the
    /// chain on whose target reaches [`COMPONENT`].
    pub designated: usize,
}

impl Workload {
    /// The workload of `n` rules (`n` ≥ 2, so that a rule reaches
    /// [`COMPONENT`]).
    pub fn new(n: usize) -> Workload {
        let rules: Vec<Rule> = (0..n).map(Rule::generate).collect();
        let designated = rules
            .iter()
            .skip(n / 2)
            .chain(&rules)
            .find(|rule| rule.target.reaches(COMPONENT))
            .map_or(0, |rule| rule.index);
        Workload { rules, designated }
    }

    /// The number of rules.
    pub fn len(&self) -> usize {
        self.rules.len()
    }

    /// True when there are no rules.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// The tool every bench event calls: the designated rule's, so that the
    /// rules sharing it have their needle searched.
    fn tool(&self) -> String {
        format!("exec-{}", self.designated % TOOLS)
    }

    /// The event no rule matches.
    pub fn no_match(&self) -> Event {
        event("no_match", COMPONENT, self.tool(), &[])
    }

    /// The event only the designated rule matches.
    pub fn one_match(&self) -> Event {
        let needle = format!("cmd{} --flag", self.designated);
        event("one_match", COMPONENT, self.tool(), &[&needle])
    }

    /// The events the bench measures.
    pub fn bench_events(&self) -> [Event; 2] {
        [self.no_match(), self.one_match()]
    }

    /// More events for the agreement test: several needles at once (some
    /// of rules whose target does not reach the caller), a needle with the
    /// wrong tool, another caller, and each rule's needle for the first
    /// `per_rule` rules.
    pub fn probes(&self, per_rule: usize) -> Vec<Event> {
        let tool = self.tool();
        let same_tool: Vec<String> = self
            .rules
            .iter()
            .filter(|rule| rule.tool == tool)
            .take(5)
            .map(|rule| rule.needle.clone())
            .collect();
        let same_tool: Vec<&str> = same_tool.iter().map(String::as_str).collect();
        let designated = format!("cmd{} --flag", self.designated);
        let mut probes = vec![
            event("several", COMPONENT, tool.clone(), &same_tool),
            event("other_component", "plugin::git", tool.clone(), &same_tool),
            event("unknown_component", "lua::other", tool, &same_tool),
            event(
                "wrong_tool",
                COMPONENT,
                format!("exec-{}", (self.designated + 1) % TOOLS),
                &[&designated],
            ),
        ];
        for rule in self.rules.iter().take(per_rule) {
            probes.push(event(
                &format!("rule_{}", rule.index),
                COMPONENT,
                rule.tool.clone(),
                &[&rule.needle],
            ));
        }
        probes
    }

    /// The rules that deny `event`, in chain order (the reference answer).
    pub fn expected(&self, event: &Event) -> Vec<usize> {
        self.rules
            .iter()
            .filter(|rule| rule.matches(event))
            .map(|rule| rule.index)
            .collect()
    }
}

/// A call with `args` of exactly [`ARGS_LEN`] bytes: the needles spread
/// through the filler.
///
/// # Panics
///
/// When the needles do not fit in [`ARGS_LEN`] bytes.
fn event(name: &str, component: &str, tool: String, needles: &[&str]) -> Event {
    let needle_bytes: usize = needles.iter().map(|needle| needle.len() + 2).sum();
    assert!(
        needle_bytes <= ARGS_LEN,
        "event `{name}`: {} needles do not fit in {ARGS_LEN} bytes",
        needles.len()
    );
    let filler_bytes = ARGS_LEN - needle_bytes;
    let chunk = filler_bytes / (needles.len() + 1);
    let mut args = String::with_capacity(ARGS_LEN);
    let mut filler = ARGS_FILLER.chars().cycle();
    for needle in needles {
        args.extend(filler.by_ref().take(chunk));
        args.push(' ');
        args.push_str(needle);
        args.push(' ');
    }
    let rest = ARGS_LEN - args.len();
    args.extend(filler.take(rest));
    debug_assert_eq!(args.len(), ARGS_LEN);
    Event {
        name: name.to_string(),
        component: component.to_string(),
        tool,
        args,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bench_events_match_what_they_say() {
        for n in [10, 1000, 10_000] {
            let workload = Workload::new(n);
            assert!(workload.rules[workload.designated]
                .target
                .reaches(COMPONENT));
            assert_eq!(workload.expected(&workload.no_match()), Vec::<usize>::new());
            assert_eq!(
                workload.expected(&workload.one_match()),
                vec![workload.designated]
            );
            for event in workload.bench_events() {
                assert_eq!(event.args.len(), ARGS_LEN);
            }
        }
    }

    #[test]
    fn a_needle_matches_only_its_own_rule() {
        let workload = Workload::new(1000);
        for probe in workload.probes(1000).iter().skip(4) {
            let expected = workload.expected(probe);
            assert!(expected.len() <= 1, "{}: {expected:?}", probe.name);
        }
        let several = &workload.probes(0)[0];
        assert!(workload.expected(several).len() >= 2);
    }
}
