//! The per-thread working memory of dispatch: [`Scratch`].

use super::*;
use crate::ir::Root;
use serde_json::Map;

/// Reusable per-thread state for [`Table::dispatch`]: atom results, the fired
/// list and the outcome's side lists. Make one per thread with
/// [`Table::scratch`] and reuse it; after the first dispatch, matching does not
/// allocate.
///
/// It also holds the [`RegexBudget`] of each dispatch made with it: the
/// most work regexes the lazy DFA cannot decide may take
/// ([`set_regex_budget`](Self::set_regex_budget)).
#[derive(Clone, Debug, Default)]
pub struct Scratch {
    /// Bumped per dispatch and after every edit that may have changed
    /// anything: memo entries of older generations are stale.
    pub(super) generation: u32,
    /// Bumped after every edit of the context, whatever it forgot: a rule
    /// or native hook that ran with it unchanged edited nothing.
    pub(super) edits: u32,
    /// Fields forgotten since candidates were last collected: bit `i` for
    /// field `i` (bit 63 for every field from 63 on). Triggers on those
    /// fields may have changed.
    pub(super) forgotten_fields: u64,
    /// Atoms memoized one by one in this generation (each once), so that an
    /// edit forgets those it changes without looking at every atom.
    pub(super) memoized: Vec<u32>,
    /// The roots those atoms may read, one bit per root (a superset): an
    /// edit of a root none reads looks at none of them.
    pub(super) memoized_roots: u32,
    /// Atoms evaluated one by one: the generation they were computed in…
    pub(super) atom_generation: Vec<u32>,
    /// …and their value.
    pub(super) atom_value: Vec<bool>,
    /// Atoms computed in bulk: the generation they were last found true in.
    pub(super) hit_generation: Vec<u32>,
    /// Fields: the generation they were last scanned in…
    pub(super) field_generation: Vec<u32>,
    /// …how that scan decides their atoms…
    pub(super) field_read: Vec<FieldRead>,
    /// …and the number it read, when [`FieldRead::Number`].
    pub(super) field_number: Vec<f64>,
    /// Fields of exact values: the generation one of their atoms was last
    /// decided alone in, without a scan (see [`Scratch::first_ask`]).
    pub(super) field_asked: Vec<u32>,
    /// Candidate rules of the current dispatch, ascending.
    pub(super) candidates: Vec<u32>,
    pub(super) fired: Vec<u32>,
    pub(super) warnings: Vec<String>,
    pub(super) logs: Vec<LogLine>,
    pub(super) additional_context: Vec<String>,
    /// Fields of the host's answer (`output`), in the order set.
    pub(super) outputs: Vec<(String, Value)>,
    /// What an abort or skip puts back.
    pub(super) backup: Backup,
    /// Bumped per dispatch: a `rate(…)` counter counts an event once.
    pub(super) dispatch: u32,
    /// Rate counters: the dispatch they last counted in…
    pub(super) rate_dispatch: Vec<u32>,
    /// …and the count they gave ([`RATE_FAILED`] when the store failed).
    pub(super) rate_count: Vec<usize>,
    /// A counter whose store failed while the current rule's condition was
    /// evaluated.
    pub(super) rate_failure: Option<u32>,
    /// Why stores failed in this dispatch, by counter.
    pub(super) rate_errors: Vec<(u32, StoreError)>,
    /// What a dispatch may spend on regexes, and has spent.
    pub(super) regex_budget: regexes::Budget,
    /// Atoms whose regex the budget could not pay for: the generation they
    /// failed in…
    pub(super) failed_generation: Vec<u32>,
    /// …and why.
    pub(super) failures: Vec<Option<RegexOverrun>>,
    /// The shell views `shell(…)` computed in this dispatch.
    pub(super) shell_views: crate::shell::Views,
    /// The FQL groups the last component dispatched reached at the last
    /// point: a host dispatches one component many times.
    pub(super) target_groups: TargetGroups,
}

/// How a field's atoms are decided once the field is scanned, by what its
/// value was.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum FieldRead {
    /// Text, through the matchers, or no value: an atom holds when the
    /// scan found it true.
    #[default]
    Matched,
    /// A number (kept in `field_number`): a comparison is decided against
    /// it, without reading the field again; any other atom of the field on
    /// its own.
    Number,
    /// Another value, or a Windows path: each atom on its own.
    Direct,
}

/// The parts of the context a dispatch edited, each as it was before the
/// dispatch's first edit of it: an abort or skip puts them back.
///
/// An edit saves only the part it writes: a `meta` edit copies the
/// metadata bag (usually a few keys), not the payload, whose strings are
/// what an event is made of. A reply or native code, which may change any
/// part, saves the whole context; a part is never saved after the whole
/// is, since the whole already holds it as it was.
#[derive(Clone, Debug, Default)]
pub(super) struct Backup {
    whole: Option<HookContext>,
    payload: Option<Value>,
    metadata: Option<Map<String, Value>>,
}

impl Backup {
    /// Saves the part an edit of `root` writes, unless already saved.
    pub(super) fn save(&mut self, root: Root, ctx: &HookContext) {
        if self.whole.is_some() {
            return;
        }
        match root {
            Root::Payload => {
                if self.payload.is_none() {
                    self.payload = Some(ctx.payload.clone());
                }
            }
            Root::Metadata => {
                if self.metadata.is_none() {
                    self.metadata = Some(ctx.metadata.clone());
                }
            }
            // Rules edit only the payload and metadata; anything else is
            // saved whole rather than assumed.
            _ => self.keep(ctx.clone()),
        }
    }

    /// Saves the whole context, unless already saved.
    pub(super) fn save_all(&mut self, ctx: &HookContext) {
        if self.whole.is_none() {
            self.keep(ctx.clone());
        }
    }

    /// Keeps `before`, a copy of the whole context taken before something
    /// edited it, unless the whole is already saved.
    pub(super) fn keep(&mut self, before: HookContext) {
        if self.whole.is_none() {
            self.whole = Some(before);
        }
    }

    /// Puts every saved part back into `ctx` and forgets them.
    ///
    /// Each part is tested before it is taken: most chains that stop saved
    /// nothing, and taking an empty `Option` of a whole context still
    /// copies it.
    #[inline]
    pub(super) fn restore(&mut self, ctx: &mut HookContext) {
        // The whole first: the parts saved before it hold older values.
        if self.whole.is_some() {
            if let Some(whole) = self.whole.take() {
                *ctx = whole;
            }
        }
        if self.payload.is_some() {
            if let Some(payload) = self.payload.take() {
                ctx.payload = payload;
            }
        }
        if self.metadata.is_some() {
            if let Some(metadata) = self.metadata.take() {
                ctx.metadata = metadata;
            }
        }
    }

    /// Forgets what was saved.
    pub(super) fn clear(&mut self) {
        // Tested first: most dispatches save nothing, and dropping a `None`
        // is still a call per field.
        if self.whole.is_some() {
            self.whole = None;
        }
        if self.payload.is_some() {
            self.payload = None;
        }
        if self.metadata.is_some() {
            self.metadata = None;
        }
    }
}

/// A component's FQL groups at a point ([`Point::group_ids`]),
/// remembered: three hash lookups spared on every dispatch for the same
/// component. Keyed by the point's [`Point::key`], unique to a loaded
/// table's point, so a scratch moved to another table never reads another
/// table's groups.
#[derive(Clone, Debug, Default)]
pub(crate) struct TargetGroups {
    key: u64,
    component: String,
    groups: [u32; 3],
}

impl TargetGroups {
    /// The groups of `component` at the point `key` names, if they are the
    /// ones remembered.
    #[inline]
    pub(super) fn get(&self, key: u64, component: &str) -> Option<[u32; 3]> {
        (key != 0
            && self.key == key
            && crate::short_eq::same_bytes(self.component.as_bytes(), component.as_bytes()))
        .then_some(self.groups)
    }

    /// Remembers them (the component's text reuses the memory of the one
    /// before: no allocation once a component as long has been seen).
    pub(super) fn set(&mut self, key: u64, component: &str, groups: [u32; 3]) {
        self.key = key;
        self.component.clear();
        self.component.push_str(component);
        self.groups = groups;
    }
}

/// The count of a counter whose store failed in this dispatch.
pub(super) const RATE_FAILED: usize = usize::MAX;

impl Scratch {
    /// Scratch space sized for a table's largest point.
    pub fn for_table(table: &Table) -> Scratch {
        let loaded = table.loaded();
        let points = &loaded.program.points;
        let largest =
            |count: fn(&PointSlot) -> u32| points.iter().map(count).max().unwrap_or(0) as usize;
        let (rules, atoms, fields) = (
            largest(|p| p.head.rules),
            largest(|p| p.head.atoms),
            largest(|p| p.head.fields),
        );
        let mut scratch = Scratch {
            fired: Vec::with_capacity(rules),
            candidates: Vec::with_capacity(rules),
            ..Scratch::default()
        };
        scratch.reserve(atoms, fields, loaded.rates().len());
        scratch
    }

    /// The regex budget of each dispatch ([`RegexBudget::DEFAULT`] unless
    /// set).
    pub fn regex_budget(&self) -> RegexBudget {
        self.regex_budget.limit()
    }

    /// Sets the regex budget of each dispatch made with this scratch: the
    /// most NFA steps the regexes that leave the lazy DFA may take (see
    /// [`RegexBudget`]). Past it, an atom that needs one more such regex
    /// fails, and its rule's failure mode decides.
    pub fn set_regex_budget(&mut self, budget: RegexBudget) {
        self.regex_budget.set_limit(budget);
    }

    /// [`set_regex_budget`](Self::set_regex_budget), by value.
    pub fn with_regex_budget(mut self, budget: RegexBudget) -> Scratch {
        self.set_regex_budget(budget);
        self
    }

    #[inline]
    pub(super) fn reserve(&mut self, atoms: usize, fields: usize, rates: usize) {
        // Sized once, by the first dispatch of each point: the rest only
        // compare.
        if self.rate_dispatch.len() < rates
            || self.atom_generation.len() < atoms
            || self.memoized.capacity() < atoms
            || self.field_generation.len() < fields
        {
            self.grow(atoms, fields, rates);
        }
    }

    /// Makes room for `atoms`, `fields` and `rates` (see [`Scratch::reserve`]).
    #[cold]
    fn grow(&mut self, atoms: usize, fields: usize, rates: usize) {
        if self.rate_dispatch.len() < rates {
            self.rate_dispatch.resize(rates, 0);
            self.rate_count.resize(rates, 0);
        }
        if self.atom_generation.len() < atoms {
            self.atom_generation.resize(atoms, 0);
            self.atom_value.resize(atoms, false);
            self.hit_generation.resize(atoms, 0);
            self.failed_generation.resize(atoms, 0);
            self.failures.resize(atoms, None);
        }
        if self.memoized.capacity() < atoms {
            self.memoized
                .reserve_exact(atoms.saturating_sub(self.memoized.len()));
        }
        if self.field_generation.len() < fields {
            self.field_generation.resize(fields, 0);
            self.field_read.resize(fields, FieldRead::Matched);
            self.field_number.resize(fields, 0.0);
            self.field_asked.resize(fields, 0);
        }
    }

    pub(super) fn reset(&mut self, atoms: usize, fields: usize, rates: usize) {
        self.dispatch = self.dispatch.wrapping_add(1);
        if self.dispatch == 0 {
            self.rate_dispatch.iter_mut().for_each(|d| *d = 0);
            self.dispatch = 1;
        }
        self.fired.clear();
        self.warnings.clear();
        self.logs.clear();
        self.additional_context.clear();
        self.outputs.clear();
        self.candidates.clear();
        self.backup.clear();
        self.rate_failure = None;
        self.rate_errors.clear();
        self.regex_budget.restart();
        self.shell_views.clear();
        self.reserve(atoms, fields, rates);
        self.invalidate();
    }

    /// Forgets every memoized atom and field (the context changed, and how
    /// is not known).
    pub(super) fn invalidate(&mut self) {
        self.edits = self.edits.wrapping_add(1);
        self.forgotten_fields = u64::MAX;
        self.memoized.clear();
        self.memoized_roots = 0;
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            for g in [
                &mut self.atom_generation,
                &mut self.hit_generation,
                &mut self.field_generation,
                &mut self.failed_generation,
                &mut self.field_asked,
            ] {
                g.iter_mut().for_each(|g| *g = 0);
            }
            self.generation = 1;
        }
    }

    /// True the first time in this generation an atom of field `f` is
    /// asked for before the field is scanned (and marks it asked): a
    /// field of exact values decides that one atom alone, and scans for
    /// the next, whose answer the scan's one lookup then memoizes for all.
    #[inline]
    pub(super) fn first_ask(&mut self, f: usize) -> bool {
        let generation = self.generation;
        match self.field_asked.get_mut(f) {
            Some(asked) if *asked != generation => {
                *asked = generation;
                true
            }
            _ => false,
        }
    }

    /// Records that atom `a`, which reads the roots `reads`, was evaluated
    /// on its own and memoized in this generation (an edit may forget it:
    /// see [`forget_atoms`]).
    ///
    /// [`forget_atoms`]: Self::forget_atoms
    pub(super) fn memoized(&mut self, a: u32, reads: u32) {
        // At most one entry per atom: capacity for every atom is reserved.
        self.memoized.push(a);
        self.memoized_roots |= reads;
    }

    /// Forgets field `f` (scanned, or decided one by one) and every atom
    /// computed from it, `bulk`.
    pub(super) fn forget_field(&mut self, f: usize, bulk: &[u32]) {
        if let Some(g) = self.field_generation.get_mut(f) {
            *g = 0;
        }
        self.forgotten_fields |= 1 << f.min(63);
        for &a in bulk {
            self.forget_atom(a as usize);
        }
    }

    /// Forgets the atoms memoized one by one for which `changed` holds
    /// (and drops from the list those a field's forgetting already took).
    pub(super) fn forget_atoms(&mut self, mut changed: impl FnMut(u32) -> bool) {
        let mut memoized = std::mem::take(&mut self.memoized);
        memoized.retain(|&a| {
            let i = a as usize;
            if self.atom_generation.get(i) != Some(&self.generation) {
                return false;
            }
            if changed(a) {
                self.forget_atom(i);
                return false;
            }
            true
        });
        self.memoized = memoized;
    }

    fn forget_atom(&mut self, i: usize) {
        for g in [
            &mut self.atom_generation,
            &mut self.hit_generation,
            &mut self.failed_generation,
        ] {
            if let Some(g) = g.get_mut(i) {
                *g = 0;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::FieldRead;

    /// `source` compiled, and the index of its one point's atom
    /// `metadata.seen exists`.
    fn table_with_seen(source: &str) -> (crate::Table, u32) {
        let table = crate::compile_str("t.hooks", source).unwrap().table;
        let seen = table.program().points[0]
            .atoms
            .iter()
            .position(|a| matches!(a, crate::ir::Atom::Exists(path) if path.to_string() == "metadata.seen"))
            .unwrap();
        (table, u32::try_from(seen).unwrap())
    }

    /// A `meta` edit keeps what does not read metadata (the field scans and
    /// the atoms evaluated one by one); a `set` forgets what reads its field
    /// only, and a later rule sees the new value.
    #[test]
    fn an_edit_forgets_only_the_atoms_that_read_what_it_wrote() {
        let (table, seen) = table_with_seen(
            r#"hook mark on tool.pre_execute priority 1 {
    when payload.tool == "exec" and payload.n > 1
    meta seen = true
}
hook seen on tool.pre_execute priority 2 {
    when payload.tool == "exec" and metadata.seen exists
    set payload.n = 0
}
hook big on tool.pre_execute priority 3 {
    when payload.n > 1
    abort "still big"
}
"#,
        );
        let point = &table.program().points[0];
        let field = |text: &str| {
            point
                .fields
                .iter()
                .position(|f| f.path.to_string() == text)
                .unwrap()
        };
        let (n, tool) = (field("payload.n"), field("payload.tool"));
        let mut scratch = table.scratch();
        let target = crate::Target::new("a::b");
        let mut ctx = crate::HookContext::new(
            "tool.pre_execute",
            "a::b",
            serde_json::json!({"tool": "exec", "n": 5}),
        );
        let (start, edits) = (scratch.generation, scratch.edits);
        let outcome = table.dispatch(&mut scratch, "tool.pre_execute", &target, &mut ctx);
        assert_eq!(outcome.kind(), crate::OutcomeKind::Continue);
        assert_eq!(outcome.fired().collect::<Vec<_>>(), ["mark", "seen"]);
        assert_eq!(scratch.generation, start + 1, "no edit forgot everything");
        assert_eq!(scratch.edits, edits + 3, "the dispatch and two edits");
        assert_eq!(
            scratch.forgotten_fields,
            1 << n,
            "the `set` forgot `payload.n`, the `meta` nothing"
        );
        // `payload.tool`'s scan outlived both edits; `payload.n` was read
        // again after the `set`, and `big` compared with what it read.
        assert_eq!(scratch.field_generation[tool], scratch.generation);
        assert_eq!(scratch.field_generation[n], scratch.generation);
        assert_eq!(scratch.field_read[n], FieldRead::Number);
        assert_eq!(scratch.field_number[n], 0.0);
        // `metadata.seen exists` was evaluated after the `meta`, on its
        // own; the comparisons never were.
        let i = seen as usize;
        assert_eq!(scratch.atom_generation[i], scratch.generation);
        assert!(scratch.atom_value[i]);
        assert_eq!(
            scratch.memoized,
            [seen],
            "each memoized atom is listed once"
        );
    }

    /// The first atom a condition asks of a field of exact values (here
    /// `payload.tool`, which triggers nothing: each rule's literal, used
    /// by that rule alone, is more selective) is decided alone, without
    /// a scan; a second atom of the field scans it. An edit of the field
    /// forgets the atom decided alone: a later rule asking it again reads
    /// the new value.
    #[test]
    fn a_field_of_exact_values_decides_its_first_atom_alone() {
        let source = r#"hook rename on tool.pre_execute priority 1 {
    when payload.args contains "--now" and payload.tool == "exec"
    set payload.tool = "run"
}
hook stale on tool.pre_execute priority 2 {
    when payload.args contains "--fast" and payload.tool == "exec"
    abort "read a value the edit replaced"
}
hook renamed on tool.pre_execute priority 3 {
    when payload.args contains "--dry" and (payload.tool == "other" or payload.tool == "run")
    abort "renamed"
}
"#;
        let (table, tool, exec) = tool_field_and_atom(
            source,
            |a| matches!(a, crate::ir::Atom::Eq(_, v) if v == "exec"),
        );
        let mut scratch = table.scratch();
        let target = crate::Target::new("a::b");
        let dispatch = |payload: serde_json::Value, scratch: &mut super::Scratch| {
            let mut ctx = crate::HookContext::new("tool.pre_execute", "a::b", payload);
            let outcome = table.dispatch(scratch, "tool.pre_execute", &target, &mut ctx);
            let fired: Vec<String> = outcome.fired().map(str::to_string).collect();
            (outcome.kind(), outcome.reason().map(str::to_string), fired)
        };

        // Another tool: `rename` asks `tool == "exec"` alone and stops;
        // `stale` reads the memo; `renamed` asks two more atoms of the
        // field, the first of which scans it.
        let (kind, _, fired) = dispatch(
            serde_json::json!({"tool": "ls", "args": "deploy --now --fast --dry"}),
            &mut scratch,
        );
        assert_eq!(kind, crate::OutcomeKind::Continue);
        assert!(fired.is_empty(), "{fired:?}");
        assert_eq!(scratch.atom_generation[exec], scratch.generation);
        assert!(!scratch.atom_value[exec]);
        assert_eq!(
            scratch.field_generation[tool], scratch.generation,
            "a second atom of the field scanned it"
        );

        // The tool `rename` renames: its atom was decided alone, the edit
        // forgot it, and `stale` asks it again of the new value.
        let (kind, reason, fired) = dispatch(
            serde_json::json!({"tool": "exec", "args": "deploy --now --fast --dry"}),
            &mut scratch,
        );
        assert_eq!(kind, crate::OutcomeKind::Abort);
        assert_eq!(reason.as_deref(), Some("renamed"));
        assert_eq!(fired, ["rename", "renamed"]);

        // No rule reached past the literal: the field is never read.
        let (kind, _, _) = dispatch(
            serde_json::json!({"tool": "exec", "args": "stop"}),
            &mut scratch,
        );
        assert_eq!(kind, crate::OutcomeKind::Continue);
        assert_ne!(scratch.atom_generation[exec], scratch.generation);
        assert_ne!(scratch.field_generation[tool], scratch.generation);
    }

    /// `source` compiled, with the index of its one point's
    /// `payload.tool` field and of the first atom `wanted` picks.
    fn tool_field_and_atom(
        source: &str,
        wanted: impl Fn(&crate::ir::Atom) -> bool,
    ) -> (crate::Table, usize, usize) {
        let table = crate::compile_str("t.hooks", source).unwrap().table;
        let point = &table.program().points[0];
        let tool = point
            .fields
            .iter()
            .position(|f| f.path.to_string() == "payload.tool")
            .unwrap();
        let atom = point.atoms.iter().position(wanted).unwrap();
        (table, tool, atom)
    }

    /// On a field of exact values, only an equality with a string is
    /// decided alone: any other atom asked first (`in` a list here) scans
    /// the field, which decides it with the rest, and is never evaluated on
    /// its own (that cost more than the scan).
    #[test]
    fn a_field_of_exact_values_scans_for_an_atom_other_than_an_equality() {
        let source = r#"hook listed on tool.pre_execute {
    when payload.args contains "--now" and payload.tool in ["exec", "run"]
    abort "listed"
}
"#;
        let (table, tool, listed) =
            tool_field_and_atom(source, |a| matches!(a, crate::ir::Atom::In(..)));
        let mut scratch = table.scratch();
        let target = crate::Target::new("a::b");
        for (name, fires) in [("exec", true), ("run", true), ("ls", false)] {
            let mut ctx = crate::HookContext::new(
                "tool.pre_execute",
                "a::b",
                serde_json::json!({"tool": name, "args": "deploy --now"}),
            );
            let outcome = table.dispatch(&mut scratch, "tool.pre_execute", &target, &mut ctx);
            assert_eq!(outcome.is_abort(), fires, "{name}");
            assert_eq!(
                scratch.field_generation[tool], scratch.generation,
                "{name}: the field was scanned"
            );
            assert_ne!(
                scratch.atom_generation[listed], scratch.generation,
                "{name}: the `in` atom was not evaluated alone"
            );
        }
    }

    /// An event that reaches no rule reading a shell view parses nothing;
    /// one that does parses its command once, into the scratch's cache.
    #[test]
    fn a_command_is_parsed_only_when_a_candidate_rule_reads_it() {
        let table = crate::compile_str(
            "t.hooks",
            r#"hook rm on tool.pre_execute {
    when payload.tool == "exec"
    when any c in shell(payload.args): c.program == "rm"
    abort "rm"
}
"#,
        )
        .unwrap()
        .table;
        let mut scratch = table.scratch();
        let target = crate::Target::new("a::b");
        let mut run = |payload: serde_json::Value| {
            let mut ctx = crate::HookContext::new("tool.pre_execute", "a::b", payload);
            let kind = table
                .dispatch(&mut scratch, "tool.pre_execute", &target, &mut ctx)
                .kind();
            (kind, scratch.shell_views.is_empty())
        };
        let (_, untouched) = run(serde_json::json!({"tool": "read", "args": "rm -rf /"}));
        assert!(untouched, "a rule that cannot fire parsed the command");
        let (kind, untouched) = run(serde_json::json!({"tool": "exec", "args": "rm -rf /"}));
        assert_eq!(kind, crate::OutcomeKind::Abort);
        assert!(!untouched, "the view is cached for the dispatch");
    }

    /// A scratch remembers the last component's FQL groups at the last
    /// point; reused across components, points and tables it answers as a
    /// fresh one does.
    #[test]
    fn remembered_groups_answer_as_fresh_lookups() {
        let rules = r#"
hook exact on tool.pre_execute at builtin::llm { abort "exact" }
hook scope on tool.pre_execute at plugin::* { abort "scope" }
hook name on tool.pre_execute at *::hil { abort "name" }
hook post on tool.post_execute at builtin::hil { abort "post" }
"#;
        let a = crate::compile_str("a.hooks", rules).unwrap().table;
        let b = crate::compile_str("b.hooks", &rules.replace("builtin::llm", "builtin::x"))
            .unwrap()
            .table;
        let mut kept = a.scratch();
        let cases = [
            (&a, "tool.pre_execute", "builtin::llm"),
            (&a, "tool.pre_execute", "builtin::llm"),
            (&a, "tool.pre_execute", "plugin::llm"),
            (&a, "tool.pre_execute", "builtin::hil"),
            (&a, "tool.post_execute", "builtin::hil"),
            (&a, "tool.pre_execute", "builtin::hil"),
            (&b, "tool.pre_execute", "builtin::hil"),
            (&b, "tool.pre_execute", "builtin::llm"),
            (&a, "tool.pre_execute", "builtin::llm"),
            (&a, "tool.pre_execute", "other::thing"),
        ];
        for (table, point, component) in cases {
            let reason = |scratch: &mut crate::Scratch| {
                let mut ctx = crate::HookContext::new(point, component, serde_json::json!({}));
                let target = crate::Target::new(component);
                table
                    .dispatch(scratch, point, &target, &mut ctx)
                    .reason()
                    .map(str::to_string)
            };
            let fresh = reason(&mut table.scratch());
            assert_eq!(reason(&mut kept), fresh, "{point} {component}");
        }
    }

    /// A `meta` key set to the value it holds already changes nothing: it
    /// is not counted as an edit, forgets no memo and saves nothing, and
    /// an abort after it still gives back the context the event had. A
    /// different value is an edit, and forgets what reads metadata.
    #[test]
    fn a_meta_key_set_to_the_value_it_holds_is_not_an_edit() {
        let (table, seen) = table_with_seen(
            r#"hook mark on tool.pre_execute priority 1 {
    meta seen = true
}
hook seen on tool.pre_execute priority 2 {
    when metadata.seen exists
    continue
}
hook again on tool.pre_execute priority 3 {
    meta seen = true
}
hook stop on tool.pre_execute priority 4 {
    when payload.stop == true
    abort "stopped"
}
"#,
        );
        let target = crate::Target::new("a::b");
        let mut scratch = table.scratch();

        // A fresh event: `mark` writes, `again` writes what is there.
        let mut ctx = crate::HookContext::new(
            "tool.pre_execute",
            "a::b",
            serde_json::json!({"stop": false}),
        );
        let edits = scratch.edits;
        let outcome = table.dispatch(&mut scratch, "tool.pre_execute", &target, &mut ctx);
        assert_eq!(outcome.kind(), crate::OutcomeKind::Continue);
        assert_eq!(
            outcome.fired().collect::<Vec<_>>(),
            ["mark", "seen", "again"]
        );
        assert_eq!(scratch.edits, edits + 2, "the dispatch and `mark`'s edit");
        assert_eq!(
            scratch.atom_generation[seen as usize], scratch.generation,
            "`again` kept the memo of `metadata.seen exists`"
        );
        assert_eq!(ctx.metadata.get("seen"), Some(&serde_json::json!(true)));

        // The key is there before the chain: neither write saves it, and
        // the abort gives back the event's own metadata.
        let mut ctx = crate::HookContext::new(
            "tool.pre_execute",
            "a::b",
            serde_json::json!({"stop": true}),
        );
        ctx.metadata.insert("seen".into(), serde_json::json!(true));
        ctx.metadata.insert("other".into(), serde_json::json!(1));
        let before = ctx.metadata.clone();
        let edits = scratch.edits;
        let outcome = table.dispatch(&mut scratch, "tool.pre_execute", &target, &mut ctx);
        assert_eq!(outcome.kind(), crate::OutcomeKind::Abort);
        assert_eq!(scratch.edits, edits + 1, "the dispatch alone");
        assert_eq!(ctx.metadata, before);

        // Another value is an edit: the memo is forgotten, and the abort
        // restores what the event had.
        let table = crate::compile_str(
            "t.hooks",
            r#"hook mark on tool.pre_execute priority 1 {
    when metadata.seen exists
    meta seen = "changed"
}
hook stop on tool.pre_execute priority 2 {
    abort "stopped"
}
"#,
        )
        .unwrap()
        .table;
        let mut scratch = table.scratch();
        let mut ctx = crate::HookContext::new("tool.pre_execute", "a::b", serde_json::json!({}));
        ctx.metadata.insert("seen".into(), serde_json::json!(true));
        let before = ctx.metadata.clone();
        let edits = scratch.edits;
        let outcome = table.dispatch(&mut scratch, "tool.pre_execute", &target, &mut ctx);
        assert_eq!(outcome.fired().collect::<Vec<_>>(), ["mark", "stop"]);
        assert_eq!(scratch.edits, edits + 2, "the dispatch and the edit");
        assert!(scratch.memoized.is_empty(), "the edit forgot the memo");
        assert_eq!(ctx.metadata, before);
    }

    /// An atom a field's scan verifies after its literal proposed it (a
    /// field with more regexes than one DFA takes) is memoized with the
    /// value the check found, in every dispatch a scratch serves: the
    /// rules that ask it read that value, not one of an earlier event.
    #[test]
    fn an_atom_checked_after_its_literal_reads_what_the_check_found() {
        let mut source = String::new();
        for i in 0..80 {
            source.push_str(&format!(
                "hook r{i} on tool.pre_execute priority {i} {{\n    when payload.command matches /rm\\s+-rf\\s+\\/data{i}\\b/\n    abort \"r{i}\"\n}}\n"
            ));
        }
        let table = crate::compile_str("t.hooks", &source).unwrap().table;
        let program = table.program();
        assert!(
            program.points[0]
                .fields
                .iter()
                .any(|f| f.literal_checks.iter().any(|c| !c.is_empty())),
            "the regexes are checked after their literals"
        );
        let target = crate::Target::new("a::b");
        let mut scratch = table.scratch();
        let mut run = |command: &str| {
            let mut ctx = crate::HookContext::new(
                "tool.pre_execute",
                "a::b",
                serde_json::json!({ "command": command }),
            );
            let outcome = table.dispatch(&mut scratch, "tool.pre_execute", &target, &mut ctx);
            (
                outcome.kind(),
                outcome.fired().map(str::to_string).collect::<Vec<_>>(),
            )
        };
        for _ in 0..2 {
            assert_eq!(
                run("rm -rf /data5"),
                (crate::OutcomeKind::Abort, vec!["r5".to_string()])
            );
            // `data5` is there, the regex does not hold.
            assert_eq!(
                run("rm -rf /data5x"),
                (crate::OutcomeKind::Continue, vec![])
            );
            assert_eq!(
                run("rm  -rf  /data5x; rm -rf /data5"),
                (crate::OutcomeKind::Abort, vec!["r5".to_string()])
            );
        }
    }
}
