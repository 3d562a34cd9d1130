//! A deterministic rule-set generator shared by the benches and the
//! allocation test.
//!
//! [`rule_set`] builds `n` rules on one point (`tool.pre_execute`) as
//! structured [`GenRule`]s, so that the same rules can be rendered to `.hooks`
//! text for hookc ([`RuleSet::render`]) and built into the naive seed-style
//! registry in `benches/dispatch.rs`. No `rand`: a xorshift64* generator with
//! a fixed seed, so every run (and every engine) sees the same rules.
//!
//! The mix (per rule, 2–3 conditions, ANDed, in this order):
//!
//! - target: about half exact FQL over 20 component names, the rest
//!   `scope::*`, `*::name` and `*::*`;
//! - `payload.tool == "…"` over 10 tool names;
//! - `payload.command matches /…/`: every rule its own regex, literal-ish
//!   with `\s+`, character classes and a `\b`, over a 100–200 byte command;
//! - `payload.args contains any lN` over shared 20-literal lists;
//! - `payload.size > K`.
//!
//! Every "main" rule has a content condition (its regex, a list, or both) that
//! none of the three [`events`] satisfy, except the one designated rule the
//! `one_match` event is built for. A family of about 1% of the rules (`meta`
//! or `continue`, interleaved through the chain) matches the `one_percent`
//! event; see [`events`].

use hookc::HookContext;
use serde_json::json;
use std::fmt::Write as _;

/// The one point every generated rule is on.
pub const POINT: &str = "tool.pre_execute";

/// The component every event is for.
pub const COMPONENT: &str = "builtin::llm";

/// The 20 component names exact targets are drawn from (`scope`, `name`).
pub const COMPONENTS: [(&str, &str); 20] = [
    ("builtin", "llm"),
    ("builtin", "hil"),
    ("builtin", "tools"),
    ("builtin", "fs"),
    ("builtin", "shell"),
    ("builtin", "net"),
    ("builtin", "db"),
    ("builtin", "cache"),
    ("builtin", "search"),
    ("builtin", "planner"),
    ("plugin", "git"),
    ("plugin", "docker"),
    ("plugin", "k8s"),
    ("plugin", "slack"),
    ("plugin", "jira"),
    ("plugin", "browser"),
    ("lua", "custom"),
    ("lua", "fmt"),
    ("lua", "lint"),
    ("lua", "notify"),
];

/// The 10 tool names `payload.tool` is compared with.
pub const TOOLS: [&str; 10] = [
    "exec",
    "fetch",
    "read_file",
    "write_file",
    "http",
    "sql",
    "git",
    "docker",
    "ssh",
    "python",
];

/// The stems of list literals; list `l` turns stem `k` into `"{stem}{l}"`.
const LIST_STEMS: [&str; 20] = [
    "curl http://evil",
    "wget http://drop",
    "nc -e /bin/sh c2-",
    "bash -i >& /dev/tcp/",
    "base64 -d payload",
    "chmod +s /tmp/x",
    "crontab -r user",
    "iptables -F chain",
    "useradd -o -u0 op",
    "ssh-keygen -f stolen",
    "--upload-file=dump",
    "--exfil-to=bucket",
    "LD_PRELOAD=/tmp/lib",
    "python -c 'import pty' #",
    "perl -e 'exec' #",
    "mkfs.ext4 /dev/vd",
    "shred -u /var/log/",
    "history -c #",
    "xmrig --pool=",
    "socat exec:sh tcp:",
];

/// The list the `one_percent` family checks `payload.args` against.
pub const FAMILY_LIST: &str = "fetch_hosts";

/// Its literals: package and registry hosts.
const FAMILY_HOSTS: [&str; 20] = [
    "registry.example.com",
    "pypi.org",
    "files.pythonhosted.org",
    "registry.npmjs.org",
    "crates.io",
    "static.crates.io",
    "proxy.golang.org",
    "repo.maven.apache.org",
    "rubygems.org",
    "ghcr.io",
    "quay.io",
    "docker.io",
    "deb.debian.org",
    "archive.ubuntu.com",
    "dl-cdn.alpinelinux.org",
    "download.pytorch.org",
    "huggingface.co",
    "api.github.com",
    "objects.githubusercontent.com",
    "gcr.io",
];

/// A rule's FQL target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GenTarget {
    /// `scope::name`.
    Exact(&'static str, &'static str),
    /// `scope::*`.
    Scope(&'static str),
    /// `*::name`.
    Name(&'static str),
    /// `*::*`.
    Any,
}

impl GenTarget {
    /// True when this target reaches `component` (`scope::name`).
    pub fn reaches(self, component: &str) -> bool {
        let (scope, name) = component.split_once("::").unwrap_or((component, ""));
        match self {
            GenTarget::Exact(s, n) => s == scope && n == name,
            GenTarget::Scope(s) => s == scope,
            GenTarget::Name(n) => n == name,
            GenTarget::Any => true,
        }
    }

    /// The FQL text.
    pub fn fql(self) -> String {
        match self {
            GenTarget::Exact(s, n) => format!("{s}::{n}"),
            GenTarget::Scope(s) => format!("{s}::*"),
            GenTarget::Name(n) => format!("*::{n}"),
            GenTarget::Any => "*::*".to_string(),
        }
    }
}

/// One condition of a rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GenCond {
    /// `payload.tool == "…"`.
    ToolEq(&'static str),
    /// `payload.command matches /…/` (the regex as the regex crate reads it).
    CommandMatches(String),
    /// `payload.args contains any <list>` (an index into [`RuleSet::lists`]).
    ArgsContainsAny(usize),
    /// `payload.size > K`.
    SizeGt(i64),
}

/// What a rule does when it matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GenAction {
    /// `abort "blocked"` (a constant reason).
    Abort,
    /// `log warn "suspicious command"`.
    Log,
    /// `meta <key> = true`.
    Meta(&'static str),
    /// `continue`.
    Continue,
}

/// The constant abort reason.
pub const REASON: &str = "blocked";

/// The constant log message.
pub const LOG_MESSAGE: &str = "suspicious command";

/// One generated rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenRule {
    /// Unique id, `r{i}`.
    pub id: String,
    /// Priority (lower first; pairs of rules tie, so FIFO ties matter).
    pub priority: i64,
    /// The FQL target.
    pub target: GenTarget,
    /// The conditions, ANDed in this order.
    pub conds: Vec<GenCond>,
    /// The action.
    pub action: GenAction,
}

/// A named list of literals.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenList {
    /// The list name.
    pub name: String,
    /// Its literals.
    pub items: Vec<String>,
}

/// A generated rule set: lists, then rules in declaration order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleSet {
    /// The lists the rules use (only lists some rule uses).
    pub lists: Vec<GenList>,
    /// The rules, in declaration order.
    pub rules: Vec<GenRule>,
    /// The index of the rule the `one_match` event is built for.
    pub one_match: Option<usize>,
}

/// xorshift64*: small, fast, deterministic.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator with a fixed, nonzero seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        // The high bits are the good ones; the bias is irrelevant here.
        ((self.next_u64() >> 32) % n as u64) as usize
    }

    /// An element of a non-empty slice.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        let i = self.below(items.len());
        items
            .get(i)
            .copied()
            .unwrap_or_else(|| unreachable!("pick from an empty slice"))
    }
}

/// The regex of rule `i`: literal-ish, with `\s+`, classes and a word
/// boundary or terminator after the rule's own number so that rule 50 never
/// matches the command written for rule 5000.
fn regex_for(i: usize, template: usize) -> String {
    match template % 6 {
        0 => format!(r"rm\s+-rf\s+/srv/data{i}\b"),
        1 => format!(r"curl\s+-s\s+https?://host{i}\.internal/[a-z]+"),
        2 => format!(r"chmod\s+[0-7]{{3}}\s+/etc/app{i}(/|\s|$)"),
        3 => format!(r"scp\s+\S+\s+backup{i}@[a-z0-9.]+:"),
        4 => format!(r"dd\s+if=/dev/sd[a-z]\s+of=/tmp/img{i}(\.img)?(\s|$)"),
        _ => format!(r"git\s+push\s+--force\s+origin\s+rel-{i}\b"),
    }
}

/// Is rule `i` (of `n`) one of the `one_percent` family? About 1%: rules 37,
/// 137, 237, … (rule 7 when `n` is below 100), never the `one_match` rule.
fn is_family(i: usize, n: usize) -> bool {
    n > 0 && i % 100 == 37 % n.min(100) && i != n / 2
}

/// The `one_percent` family's size threshold for rule `i` (all below the
/// event's size).
fn family_threshold(i: usize) -> i64 {
    (i % 1000) as i64
}

/// `n` rules on [`POINT`], deterministic.
pub fn rule_set(n: usize) -> RuleSet {
    let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15);
    let list_count = (n / 20).clamp(1, 50);
    let mut used = vec![false; list_count];
    let mut rules = Vec::with_capacity(n);
    let one_match = if n > 0 { Some(n / 2) } else { None };
    let mut family_seen = 0usize;
    for i in 0..n {
        let priority = 10 * (i as i64 / 2);
        let id = format!("r{i}");
        if Some(i) == one_match {
            // The rule the one_match event is built for: exec + its regex + size.
            rules.push(GenRule {
                id,
                priority,
                target: GenTarget::Scope("builtin"),
                conds: vec![
                    GenCond::ToolEq("exec"),
                    GenCond::CommandMatches(regex_for(i, 0)),
                    GenCond::SizeGt(100),
                ],
                action: GenAction::Abort,
            });
            continue;
        }
        if is_family(i, n) {
            // A family rule: every event target it could have reaches builtin::llm.
            let target = match family_seen % 4 {
                0 => GenTarget::Any,
                1 => GenTarget::Scope("builtin"),
                2 => GenTarget::Exact("builtin", "llm"),
                _ => GenTarget::Name("llm"),
            };
            let action = if family_seen.is_multiple_of(2) {
                GenAction::Meta("audited")
            } else {
                GenAction::Continue
            };
            family_seen += 1;
            rules.push(GenRule {
                id,
                priority,
                target,
                conds: vec![
                    GenCond::ToolEq("fetch"),
                    GenCond::ArgsContainsAny(usize::MAX), // the family list, resolved below
                    GenCond::SizeGt(family_threshold(i)),
                ],
                action,
            });
            continue;
        }
        let target = match rng.below(100) {
            0..=49 => {
                let (s, c) = rng.pick(&COMPONENTS);
                GenTarget::Exact(s, c)
            }
            50..=69 => GenTarget::Scope(rng.pick(&["builtin", "plugin", "lua"])),
            70..=84 => GenTarget::Name(rng.pick(&COMPONENTS).1),
            _ => GenTarget::Any,
        };
        let tool = GenCond::ToolEq(rng.pick(&TOOLS));
        let regex = GenCond::CommandMatches(regex_for(i, rng.below(6)));
        let list = rng.below(list_count);
        let size = GenCond::SizeGt(rng.below(8192) as i64);
        let conds = match rng.below(20) {
            // Regex only, with the tool (and sometimes the size).
            0..=6 => vec![tool, regex],
            7..=11 => vec![tool, regex, size],
            // A list, with the tool or the size.
            12..=14 => vec![tool, GenCond::ArgsContainsAny(list)],
            15..=16 => vec![GenCond::ArgsContainsAny(list), size],
            // Both.
            17..=18 => vec![tool, regex, GenCond::ArgsContainsAny(list)],
            _ => vec![regex, GenCond::ArgsContainsAny(list)],
        };
        for c in &conds {
            if let GenCond::ArgsContainsAny(l) = c {
                if let Some(u) = used.get_mut(*l) {
                    *u = true;
                }
            }
        }
        let action = match rng.below(20) {
            0..=16 => GenAction::Abort,
            17..=18 => GenAction::Log,
            _ => GenAction::Meta("flagged"),
        };
        rules.push(GenRule {
            id,
            priority,
            target,
            conds,
            action,
        });
    }

    // Keep the lists some rule uses, renumbered; the family list goes last.
    let mut renumber = vec![usize::MAX; list_count];
    let mut lists = Vec::new();
    for (l, u) in used.iter().enumerate() {
        if *u {
            if let Some(slot) = renumber.get_mut(l) {
                *slot = lists.len();
            }
            lists.push(GenList {
                name: format!("l{l}"),
                items: LIST_STEMS.iter().map(|s| format!("{s}{l}")).collect(),
            });
        }
    }
    let family_list = lists.len();
    if family_seen > 0 {
        lists.push(GenList {
            name: FAMILY_LIST.to_string(),
            items: FAMILY_HOSTS.iter().map(|s| s.to_string()).collect(),
        });
    }
    for rule in &mut rules {
        for c in &mut rule.conds {
            if let GenCond::ArgsContainsAny(l) = c {
                *l = if *l == usize::MAX {
                    family_list
                } else {
                    renumber.get(*l).copied().unwrap_or(usize::MAX)
                };
            }
        }
    }
    RuleSet {
        lists,
        rules,
        one_match,
    }
}

/// `n` rules as `.hooks` text.
pub fn rules(n: usize) -> String {
    rule_set(n).render()
}

/// A string literal in `.hooks` syntax (JSON escapes).
fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| unreachable!("strings serialize"))
}

impl RuleSet {
    /// The `.hooks` text.
    pub fn render(&self) -> String {
        let mut out = String::with_capacity(self.rules.len() * 200 + self.lists.len() * 500);
        out.push_str("# generated by benches/common/mod.rs\n");
        for list in &self.lists {
            let items: Vec<String> = list.items.iter().map(|s| quote(s)).collect();
            let _ = writeln!(out, "list {} = [{}]", list.name, items.join(", "));
        }
        for rule in &self.rules {
            let _ = writeln!(
                out,
                "hook {} on {POINT} at {} priority {} {{",
                rule.id,
                rule.target.fql(),
                rule.priority
            );
            let conds: Vec<String> = rule
                .conds
                .iter()
                .map(|c| match c {
                    GenCond::ToolEq(t) => format!("payload.tool == {}", quote(t)),
                    GenCond::CommandMatches(re) => {
                        format!("payload.command matches /{}/", re.replace('/', r"\/"))
                    }
                    GenCond::ArgsContainsAny(l) => {
                        let name = self.lists.get(*l).map_or("?", |l| l.name.as_str());
                        format!("payload.args contains any {name}")
                    }
                    GenCond::SizeGt(k) => format!("payload.size > {k}"),
                })
                .collect();
            let _ = writeln!(out, "    when {}", conds.join(" and "));
            let action = match rule.action {
                GenAction::Abort => format!("abort {}", quote(REASON)),
                GenAction::Log => format!("log warn {}", quote(LOG_MESSAGE)),
                GenAction::Meta(key) => format!("meta {key} = true"),
                GenAction::Continue => "continue".to_string(),
            };
            let _ = writeln!(out, "    {action}\n}}");
        }
        out
    }

    /// How many rules' targets reach `component` (`scope::name`).
    pub fn reaching(&self, component: &str) -> usize {
        self.rules
            .iter()
            .filter(|r| r.target.reaches(component))
            .count()
    }

    /// How many rules reach `component` and compare `payload.tool` with `tool`.
    pub fn reaching_with_tool(&self, component: &str, tool: &str) -> usize {
        self.rules
            .iter()
            .filter(|r| {
                r.target.reaches(component)
                    && r.conds
                        .iter()
                        .any(|c| matches!(c, GenCond::ToolEq(t) if *t == tool))
            })
            .count()
    }

    /// Ids of the `one_percent` family, in execution order.
    pub fn family(&self) -> Vec<String> {
        let n = self.rules.len();
        self.rules
            .iter()
            .enumerate()
            .filter(|(i, _)| is_family(*i, n))
            .map(|(_, r)| r.id.clone())
            .collect()
    }
}

/// One benchmark event: a context for [`COMPONENT`] and the rule ids that
/// must fire, in order.
#[derive(Clone, Debug)]
pub struct Event {
    /// `no_match`, `one_match` or `one_percent`.
    pub name: &'static str,
    /// The context (its payload: `tool`, `command`, `args`, `size`).
    pub ctx: HookContext,
    /// Rule ids that must fire, in execution order.
    pub expected: Vec<String>,
    /// True when the chain must end in an abort.
    pub aborts: bool,
}

/// The three events.
#[derive(Clone, Debug)]
pub struct Events {
    /// No rule matches: tool `exec`, a 100–200 byte command no regex
    /// matches, args with no list literal.
    pub no_match: Event,
    /// Exactly one rule matches and aborts (the rule in the middle of the
    /// chain; nothing when there are no rules).
    pub one_match: Event,
    /// About 1% of the rules match (the `meta`/`continue` family) and the
    /// chain runs through.
    pub one_percent: Event,
}

impl Events {
    /// The events in bench order.
    pub fn all(&self) -> [&Event; 3] {
        [&self.no_match, &self.one_match, &self.one_percent]
    }
}

fn event(
    name: &'static str,
    payload: serde_json::Value,
    expected: Vec<String>,
    aborts: bool,
) -> Event {
    let command_len = payload
        .get("command")
        .and_then(|c| c.as_str())
        .map_or(0, str::len);
    assert!(
        (100..=200).contains(&command_len),
        "event `{name}`: the command is {command_len} bytes, not 100-200"
    );
    Event {
        name,
        ctx: HookContext::new(POINT, COMPONENT, payload),
        expected,
        aborts,
    }
}

/// The three events for a rule set (see [`Events`]).
pub fn events(set: &RuleSet) -> Events {
    let no_match = event(
        "no_match",
        json!({
            "tool": "exec",
            "command": "cd /srv/app && tar -czf /var/backups/app-2024-06-01.tar.gz --exclude=node_modules ./src ./config && rsync -av /var/backups/ mirror:/backups/",
            "args": "-czf /var/backups/app-2024-06-01.tar.gz --exclude=node_modules ./src ./config",
            "size": 4096,
        }),
        Vec::new(),
        false,
    );
    let t = set.one_match.unwrap_or(0);
    let one_match = event(
        "one_match",
        json!({
            "tool": "exec",
            "command": format!("cd /srv && du -sh /srv/data{t} && rm -rf /srv/data{t} && echo \"removed data{t}\" >> /var/log/cleanup.log # nightly cleanup job"),
            "args": format!("-rf /srv/data{t}"),
            "size": 4096,
        }),
        set.one_match
            .and_then(|i| set.rules.get(i))
            .map(|r| vec![r.id.clone()])
            .unwrap_or_default(),
        set.one_match.is_some(),
    );
    let one_percent = event(
        "one_percent",
        json!({
            "tool": "fetch",
            "command": "curl -sSL https://registry.example.com/v2/library/alpine/manifests/latest -H 'Accept: application/json' -o /tmp/manifest.json --retry 3",
            "args": "https://registry.example.com/v2/library/alpine/manifests/latest",
            "size": 2048,
        }),
        set.family(),
        false,
    );
    Events {
        no_match,
        one_match,
        one_percent,
    }
}

/// Compiles generated rules; the error is a summary of the diagnostics
/// (codes, messages, help), not the megabytes of source their `Debug` prints.
pub fn try_compile(text: &str) -> Result<hookc::Table, String> {
    hookc::compile_str("bench.hooks", text)
        .map(|compiled| compiled.table)
        .map_err(|diagnostics| {
            let lines: Vec<String> = diagnostics
                .iter()
                .take(10)
                .map(|d| {
                    let at = d
                        .location()
                        .map(|(_, line, col)| format!(" at {line}:{col}"))
                        .unwrap_or_default();
                    let help = d
                        .help
                        .as_deref()
                        .map(|h| format!(" (help: {h})"))
                        .unwrap_or_default();
                    format!("  {}{at}: {}{help}", d.code, d.message)
                })
                .collect();
            format!(
                "generated rules do not compile ({} diagnostics):\n{}",
                diagnostics.iter().count(),
                lines.join("\n")
            )
        })
}

/// Dispatches `event` once on `table` and panics unless exactly the expected
/// rules fire, in order, with the expected outcome. Returns the number fired.
pub fn check_hookc(table: &hookc::Table, event: &Event) -> usize {
    let mut scratch = table.scratch();
    let mut ctx = event.ctx.clone();
    let outcome = table.dispatch(
        &mut scratch,
        hookc::HookPoint::ToolPreExecute,
        &hookc::Target::new(COMPONENT),
        &mut ctx,
    );
    let fired: Vec<&str> = outcome.fired().collect();
    assert_eq!(
        fired, event.expected,
        "generator bug: event `{}` fired the wrong rules",
        event.name
    );
    assert_eq!(
        outcome.is_abort(),
        event.aborts,
        "event `{}`: outcome {:?}",
        event.name,
        outcome.kind()
    );
    if event.aborts {
        assert_eq!(outcome.reason(), Some(REASON));
    }
    outcome.fired().count()
}
