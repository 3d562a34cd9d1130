//! Matching: which rules of the point the target and the event reach,
//! atoms evaluated once and memoized in the scratch, conditions read with
//! three values (a regex past its budget is unknown), `rate(…)` counts.

use super::*;

impl<'a> Run<'a> {
    /// Fills `scratch.candidates` (ascending, after `after` if given): the
    /// untriggered rules of the target's groups, and the rules triggered by
    /// atoms found true on the fields those groups need.
    pub(super) fn collect(
        &self,
        group_rules: &GroupRules<'_>,
        after: Option<u32>,
        scratch: &mut Scratch,
        ctx: &HookContext,
    ) {
        scratch.candidates.clear();
        scratch.forgotten_fields = 0;
        let mut fields = group_rules.fields;
        for untriggered in group_rules.untriggered {
            scratch.candidates.extend_from_slice(untriggered);
        }
        let count = self.point.field_count();
        let mut f = 0;
        while fields != 0 && f < count {
            let bit = 1u64 << f.min(63);
            if fields & bit != 0 {
                self.scan(f, scratch, ctx, true);
            }
            if f < 63 {
                fields &= !bit;
            }
            f += 1;
        }
        if let Some(after) = after {
            scratch.candidates.retain(|&c| c > after);
        }
        scratch.candidates.sort_unstable();
        scratch.candidates.dedup();
    }

    /// Field `f`'s atoms are decided without its matchers (its value is
    /// not a string, or is a Windows path): marks how, and with `collect`
    /// triggers the rules of those that may hold.
    fn scan_unmatched(
        &self,
        f: usize,
        read: FieldRead,
        scratch: &mut Scratch,
        ctx: &HookContext,
        collect: bool,
    ) {
        if let Some(r) = scratch.field_read.get_mut(f) {
            *r = read;
        }
        if !collect {
            return;
        }
        let Some(field) = self.point.field(f) else {
            return;
        };
        // Only atoms that trigger rules are worth deciding now (never a
        // comparison); a candidate asks for the others when it needs them.
        for &a in field.bulk() {
            if !self.point.triggers(a).is_empty()
                && self.bulk_value(a, f, scratch, ctx) != Some(false)
            {
                self.trigger(a, scratch);
            }
        }
    }

    /// Computes the bulk atoms of field `f` (once per generation). With
    /// `collect`, also adds the rules their true atoms trigger to the
    /// candidates.
    pub(super) fn scan(&self, f: usize, scratch: &mut Scratch, ctx: &HookContext, collect: bool) {
        let generation = scratch.generation;
        let Some(field) = self.point.field(f) else {
            return;
        };
        if scratch.field_generation.get(f) == Some(&generation) {
            if !collect {
                return;
            }
            // Scanned lazily before: collect from the memo (an atom whose
            // regex was over the budget may hold: its rules are candidates).
            for &a in field.bulk() {
                if self.bulk_value(a, f, scratch, ctx) != Some(false) {
                    self.trigger(a, scratch);
                }
            }
            return;
        }
        if let Some(g) = scratch.field_generation.get_mut(f) {
            *g = generation;
        }
        let path = field.path();
        // A string `get` gives (a normalized path, another root than the
        // payload) is kept here while the scan borrows it.
        let owned;
        let text = match ctx.get_text(path) {
            Ok(text) => text,
            Err(Some(Val::Str(text))) => {
                owned = text;
                &*owned
            }
            // The event lacks the field: its atoms are decided without
            // evaluating (or decoding) them, from what the table says of
            // a missing field.
            Err(None) => {
                if let Some(r) = scratch.field_read.get_mut(f) {
                    *r = FieldRead::Matched;
                }
                for &a in field.absent() {
                    if let Some(h) = scratch.hit_generation.get_mut(a as usize) {
                        if *h != generation {
                            *h = generation;
                            if collect {
                                self.trigger(a, scratch);
                            }
                        }
                    }
                }
                return;
            }
            // A number: read once, here, for every comparison of the field.
            Err(Some(value @ (Val::Int(_) | Val::Float(_)))) => {
                let mut read = FieldRead::Direct;
                if let (Some(n), Some(slot)) = (value.as_f64(), scratch.field_number.get_mut(f)) {
                    *slot = n;
                    read = FieldRead::Number;
                }
                return self.scan_unmatched(f, read, scratch, ctx, collect);
            }
            Err(Some(_)) => {
                return self.scan_unmatched(f, FieldRead::Direct, scratch, ctx, collect)
            }
        };
        // A Windows path matches without case, which the automata (built
        // for exact case) do not: its atoms are decided one by one.
        if path.normalized && crate::paths::is_windows_shaped(text) {
            return self.scan_unmatched(f, FieldRead::Direct, scratch, ctx, collect);
        }
        if let Some(r) = scratch.field_read.get_mut(f) {
            *r = FieldRead::Matched;
        }
        let hit = |a: u32, scratch: &mut Scratch| {
            if let Some(h) = scratch.hit_generation.get_mut(a as usize) {
                if *h != generation {
                    *h = generation;
                    if collect {
                        self.trigger(a, scratch);
                    }
                }
            }
        };
        for &a in field.eq(text) {
            hit(a, scratch);
        }
        let dfa_atoms = field.dfa_atoms();
        if let Some(section) = field.dfa().and_then(|d| self.loaded.dfas.get(d as usize)) {
            let mut failed = true;
            // A section that is not a valid DFA (see `LazyDfa`) is not
            // searched: its atoms are decided one by one, like those of a
            // DFA that gives up.
            match section.get(dfa_atoms.len()) {
                Ok(dfa) => {
                    failed = false;
                    let input = Input::new(text);
                    let mut state = OverlappingState::start();
                    loop {
                        if dfa.search_overlapping(&input, &mut state).is_err() {
                            failed = true;
                            break;
                        }
                        let Some(m) = state.get_match() else { break };
                        if let Some(&a) = dfa_atoms.get(m.pattern().as_usize()) {
                            hit(a, scratch);
                        }
                    }
                }
                // The answer stays the same (the atoms are decided one by
                // one below); the host hears why it took longer.
                Err(why) => scratch.warnings.push(why),
            }
            if failed {
                // The DFA gave up (a Unicode word boundary on non-ASCII
                // text), or is not valid: decide its atoms one by one.
                for &a in dfa_atoms {
                    match self.eval_atom(a, scratch, ctx) {
                        Ok(true) => hit(a, scratch),
                        Ok(false) => {}
                        Err(overrun) => self.atom_failed(a, overrun, scratch, collect),
                    }
                }
            }
        }
        if let Some(search) = field.literal_search() {
            let (literal_atoms, literal_checks) = (field.literal_atoms(), field.literal_checks());
            search.for_each(field.stored_literals(), text, |p| {
                for &a in literal_atoms.get(p) {
                    hit(a, scratch);
                }
                for &a in literal_checks.get(p) {
                    // Verify each prefiltered atom once per generation:
                    // the check decides it on the whole text, so it is
                    // memoized as an atom decided on its own is (which
                    // also marks it checked).
                    let i = a as usize;
                    if scratch.atom_generation.get(i) == Some(&generation) {
                        continue;
                    }
                    let found = self.check_found(a, f, text, scratch, ctx);
                    if let (Some(g), Some(v)) = (
                        scratch.atom_generation.get_mut(i),
                        scratch.atom_value.get_mut(i),
                    ) {
                        *g = generation;
                        *v = matches!(found, Ok(true));
                    }
                    match found {
                        Ok(true) => hit(a, scratch),
                        Ok(false) => {}
                        Err(overrun) => self.atom_failed(a, overrun, scratch, collect),
                    }
                }
            });
        }
    }

    /// What the table's regexes need for one match: the regexes, and the
    /// budget of this dispatch.
    pub(super) fn matching<'s>(&'s self, scratch: &'s Scratch) -> Matching<'s> {
        Matching {
            regexes: &self.loaded.regexes,
            dfas: &self.loaded.dfas,
            regex_dfas: self.loaded.regex_dfas(),
            regex_needs: self.loaded.regex_needs(),
            budget: &scratch.regex_budget,
            views: &scratch.shell_views,
            host: self.effects.host_facts(),
        }
    }

    /// Atom `a` evaluated on its own.
    pub(super) fn eval_atom(
        &self,
        a: u32,
        scratch: &Scratch,
        ctx: &HookContext,
    ) -> Result<bool, RegexOverrun> {
        match self.point.atom(a) {
            Ok(atom) => eval::atom(atom, ctx, self.matching(scratch)),
            Err(why) => {
                self.corrupt(why);
                Ok(false)
            }
        }
    }

    /// Atom `a`, a check field `f`'s literal search proposed, decided on
    /// the field's `text`. A regex on the field (what a check usually is)
    /// runs on the text in hand, without reading the field again or looking
    /// again for the literals the search has just found (see
    /// [`Matching::is_match_found`]); any other atom is evaluated as usual.
    fn check_found(
        &self,
        a: u32,
        f: usize,
        text: &str,
        scratch: &Scratch,
        ctx: &HookContext,
    ) -> Result<bool, RegexOverrun> {
        // The atom's own field is `f` (its decoding checks that its path
        // is that field's), so `text` is the value it reads.
        let on_field = usize::try_from(self.point.atom_field(a)).is_ok_and(|g| g == f);
        match self.point.atom(a) {
            Ok(Atom::Matches(_, re)) if on_field => {
                self.matching(scratch).is_match_found(re.0, text)
            }
            _ => self.eval_atom(a, scratch, ctx),
        }
    }

    /// Atom `a` failed: its regex is more than the budget can pay for. Its
    /// value is unknown, so a rule it triggers is a candidate (whose
    /// condition then decides, or fails).
    pub(super) fn atom_failed(
        &self,
        a: u32,
        overrun: RegexOverrun,
        scratch: &mut Scratch,
        collect: bool,
    ) {
        let i = a as usize;
        if let (Some(g), Some(why)) = (
            scratch.failed_generation.get_mut(i),
            scratch.failures.get_mut(i),
        ) {
            *g = scratch.generation;
            *why = Some(overrun);
        }
        if collect {
            self.trigger(a, scratch);
        }
    }

    /// True when atom `a` failed in this generation.
    pub(super) fn has_failed(&self, a: u32, scratch: &Scratch) -> bool {
        scratch.failed_generation.get(a as usize) == Some(&scratch.generation)
    }

    /// Why a condition is unknown: its first failed atom, as the warning or
    /// the abort reason says it.
    pub(super) fn overrun_message(&self, cond: CondWords<'_>, scratch: &Scratch) -> String {
        // The words were read once by the evaluation that gave `None`, and
        // they were whole up to the failed atom.
        fn first(cond: CondWords<'_>, failed: &dyn Fn(u32) -> bool, depth: usize) -> Option<u32> {
            if depth > head::MAX_DEPTH {
                return None;
            }
            match cond.node() {
                Node::True | Node::Bad(_) => None,
                Node::Atom(a) => failed(a).then_some(a),
                Node::Not(c) => first(c, failed, depth + 1),
                Node::All(cs) | Node::Any(cs) => {
                    cs.into_iter().find_map(|c| first(c, failed, depth + 1))
                }
            }
        }
        let Some(a) = first(cond, &|a| self.has_failed(a, scratch), 0) else {
            return "the regex budget is spent".to_string();
        };
        let Some(Some(overrun)) = scratch.failures.get(a as usize) else {
            return "the regex budget is spent".to_string();
        };
        let regex = self
            .loaded
            .regexes
            .source(overrun.regex as usize)
            .map_or_else(
                || "a regex".to_string(),
                |(pattern, flags)| format!("regex `/{pattern}/{flags}`"),
            );
        let on = match self.point.atom(a).ok().and_then(Atom::field) {
            Some(path) => format!(" on `{path}`"),
            None => String::new(),
        };
        format!(
            "{regex}{on} is over the regex budget: matching it took more than the {} steps left of the dispatch's {}-step regex budget (at most {} NFA states × {} bytes)",
            overrun.left, overrun.budget, overrun.states, overrun.bytes
        )
    }

    /// The rules `atom` triggers are candidates. Most atoms trigger one
    /// rule, pushed without the call a slice's copy makes.
    #[inline]
    pub(super) fn trigger(&self, atom: u32, scratch: &mut Scratch) {
        match self.point.triggers(atom) {
            [rule] => scratch.candidates.push(*rule),
            rules => scratch.candidates.extend_from_slice(rules),
        }
    }

    /// Part of the point does not decode: the chain ends with an abort
    /// once the current rule's condition is evaluated (the first reason
    /// is kept).
    pub(super) fn corrupt(&self, why: &str) {
        let _ = self.corrupted.set(why.to_string());
    }

    /// The value of a bulk atom of field `f`, scanning the field if needed;
    /// `None` when its regex was over the budget.
    ///
    /// Always inlined: a candidate's condition asks for a few memoized
    /// values, and a call that saves and restores registers for each costs
    /// more than the lookup itself.
    #[inline(always)]
    pub(super) fn bulk_value(
        &self,
        a: u32,
        f: usize,
        scratch: &mut Scratch,
        ctx: &HookContext,
    ) -> Option<bool> {
        if scratch.field_generation.get(f) != Some(&scratch.generation) {
            // A field of exact values (a tool's name) not scanned yet: the
            // first atom a condition asks of it, an equality with a string,
            // is decided alone, a member lookup and a compare, where a
            // scan hashes the text and probes a table for all its atoms.
            // An atom already decided so is read from its memo; a second
            // one, or another kind of atom, scans.
            if self.point.is_exact_field(f) {
                if let Some(value) = self.exact_value(a, f, scratch, ctx) {
                    return value;
                }
            }
            self.scan(f, scratch, ctx, false);
        }
        match scratch
            .field_read
            .get(f)
            .copied()
            .unwrap_or(FieldRead::Direct)
        {
            FieldRead::Matched if self.has_failed(a, scratch) => None,
            FieldRead::Matched => {
                Some(scratch.hit_generation.get(a as usize) == Some(&scratch.generation))
            }
            // The comparison against the number the scan read; the atom
            // is decoded once per table, the field not read again.
            FieldRead::Number => match (self.point.atom(a), scratch.field_number.get(f)) {
                (Ok(Atom::Cmp(_, op, bound)), Some(&n)) => Some(op.test(n, *bound)),
                _ => self.direct_value(a, scratch, ctx),
            },
            FieldRead::Direct => self.direct_value(a, scratch, ctx),
        }
    }

    /// The value of an atom of a field of exact values decided alone (see
    /// [`bulk_value`](Self::bulk_value)), memoized: an equality with a
    /// string, on a payload string read bare, is one compare. `None` when
    /// field `f` is to be scanned: another atom of it was decided alone
    /// before, or this one is of another kind or value (evaluated on its
    /// own, it would cost more than the scan).
    fn exact_value(
        &self,
        a: u32,
        f: usize,
        scratch: &mut Scratch,
        ctx: &HookContext,
    ) -> Option<Option<bool>> {
        if let Some(value) = self.memo(a, scratch) {
            return Some(value);
        }
        if !scratch.first_ask(f) {
            return None;
        }
        let Ok(Atom::Eq(path, Value::String(value))) = self.point.atom(a) else {
            return None;
        };
        let text = ctx.get_text(path).ok()?;
        let holds = crate::short_eq::same_bytes(text.as_bytes(), value.as_bytes());
        let i = a as usize;
        if let (Some(g), Some(v)) = (
            scratch.atom_generation.get_mut(i),
            scratch.atom_value.get_mut(i),
        ) {
            *g = scratch.generation;
            *v = holds;
        }
        scratch.memoized(a, path.root.bit());
        Some(Some(holds))
    }

    /// The value of an atom evaluated on its own, memoized; `None` when its
    /// regex was over the budget.
    pub(super) fn direct_value(
        &self,
        a: u32,
        scratch: &mut Scratch,
        ctx: &HookContext,
    ) -> Option<bool> {
        match self.memo(a, scratch) {
            Some(value) => value,
            None => self.evaluate_alone(a, scratch, ctx),
        }
    }

    /// [`direct_value`](Self::direct_value) of an atom whose memo was
    /// just found empty: evaluated, and memoized.
    fn evaluate_alone(&self, a: u32, scratch: &mut Scratch, ctx: &HookContext) -> Option<bool> {
        let i = a as usize;
        let (value, reads) = match self.point.atom(a) {
            Ok(Atom::Rate(test)) => match self.rate(test, scratch, ctx) {
                // A count is per dispatch: no edit changes it.
                Some(value) => (Ok(value), 0),
                // The store failed: not memoized, so that every rule asking
                // sees the failure (the rule's loop takes it from `scratch`).
                None => return Some(false),
            },
            Ok(atom) => (self.eval_atom(a, scratch, ctx), reads::roots_read(atom)),
            Err(why) => {
                self.corrupt(why);
                (Ok(false), 0)
            }
        };
        if let (Some(g), Some(v)) = (
            scratch.atom_generation.get_mut(i),
            scratch.atom_value.get_mut(i),
        ) {
            *g = scratch.generation;
            *v = value.unwrap_or(false);
        }
        scratch.memoized(a, reads);
        match value {
            Ok(v) => Some(v),
            Err(overrun) => {
                self.atom_failed(a, overrun, scratch, false);
                None
            }
        }
    }

    /// A `rate(…)` test: its counter counts this event once per dispatch
    /// (however many tests share the counter, and across edits), in the
    /// host's store. `None` when the store failed (recorded in `scratch`
    /// for the rule to handle).
    pub(super) fn rate(
        &self,
        test: &RateTest,
        scratch: &mut Scratch,
        ctx: &HookContext,
    ) -> Option<bool> {
        let c = test.counter as usize;
        let count = if scratch.rate_dispatch.get(c) == Some(&scratch.dispatch) {
            scratch.rate_count.get(c).copied().unwrap_or(0)
        } else {
            let key = eval::render(&test.key, ctx, || self.matching(scratch));
            let count = match self.effects.rate_store() {
                RateStore::Memory => match self.loaded.rate_id(test) {
                    Some(id) => self.effects.memory_store().hit(
                        id,
                        &self.counter(test),
                        &key,
                        Instant::now(),
                    ),
                    None => return Some(false),
                },
                store => self.shared_rate(store, test, &key, scratch),
            };
            if let (Some(d), Some(n)) = (
                scratch.rate_dispatch.get_mut(c),
                scratch.rate_count.get_mut(c),
            ) {
                *d = scratch.dispatch;
                *n = count;
            }
            count
        };
        if count == RATE_FAILED {
            scratch.rate_failure = Some(test.counter);
            return None;
        }
        Some(test.op.test(count as f64, test.limit))
    }

    /// The counter a test counts in, as a store sees it: the arrivals kept
    /// are the program's for the counter (enough for every test of it).
    fn counter<'t>(&self, test: &'t RateTest) -> Counter<'t> {
        let keep = self
            .loaded
            .rates()
            .get(test.counter as usize)
            .map_or(test.keep(), |spec| spec.keep);
        Counter {
            template: &test.key,
            window_ms: test.window_ms,
            keep,
        }
    }

    /// Counts an event in a store shared by processes: the count, or
    /// [`RATE_FAILED`] with the error kept in `scratch`.
    pub(super) fn shared_rate(
        &self,
        store: &RateStore,
        test: &RateTest,
        key: &str,
        scratch: &mut Scratch,
    ) -> usize {
        match store.hit(&self.counter(test), key) {
            Ok(hit) => {
                if let Some(warning) = hit.warning {
                    scratch.warnings.push(warning);
                }
                hit.count
            }
            Err(e) => {
                tracing::warn!("{e}");
                scratch.rate_errors.push((test.counter, e));
                RATE_FAILED
            }
        }
    }

    /// Rule `index`'s condition asked a `rate(…)` store that failed: under
    /// `fail open` the rule does not fire (a warning says why); under `fail
    /// closed` it fires and aborts with a reason naming the store.
    pub(super) fn rate_failed<O: Observer>(
        &mut self,
        index: u32,
        rule: &RuleHead<'a>,
        counter: u32,
        scratch: &mut Scratch,
        ctx: &HookContext,
        obs: &mut O,
    ) -> Option<Stop> {
        let error = scratch
            .rate_errors
            .iter()
            .find(|(c, _)| *c == counter)
            .map(|(_, e)| e.clone())
            .unwrap_or_else(|| StoreError::new("the rate store", "it failed"));
        if rule.fail() == FailMode::Closed {
            scratch.fired.push(index);
            obs.fire(index, ctx);
        }
        self.fail(rule, &EffectError::RateStore(error), scratch)
    }

    /// Atom `a`'s memo in this context: `Some(value)` once it is decided
    /// (on its own, alone of its field, or checked by its field's scan),
    /// with `value` `None` when its regex was over the budget; `None`
    /// while it is not.
    #[inline(always)]
    fn memo(&self, a: u32, scratch: &Scratch) -> Option<Option<bool>> {
        let i = a as usize;
        if scratch.atom_generation.get(i) != Some(&scratch.generation) {
            return None;
        }
        if self.has_failed(a, scratch) {
            return Some(None);
        }
        Some(Some(scratch.atom_value.get(i).copied().unwrap_or(false)))
    }

    /// Atom `a`'s value, from its field's matchers or on its own.
    #[inline(always)]
    pub(super) fn atom_value(
        &self,
        a: u32,
        scratch: &mut Scratch,
        ctx: &HookContext,
    ) -> Option<bool> {
        // An atom already decided in this context is read from its memo
        // here, whatever its field: the rules after the first that asks
        // it (`tool == "fetch"` shared by a family of rules) pay a load
        // and a compare, not two calls.
        if let Some(value) = self.memo(a, scratch) {
            return value;
        }
        match self.point.atom_field(a) {
            NO_FIELD => self.evaluate_alone(a, scratch, ctx),
            f => self.bulk_value(a, f as usize, scratch, ctx),
        }
    }

    /// Rule `rule`'s condition's value, read from its words as it is
    /// evaluated; `None` when it depends on an atom whose regex was over
    /// the budget (three-valued: `false and unknown` is false, `true or
    /// unknown` is true, `not unknown` is unknown). Words that are not a
    /// condition ([`Node::Bad`], or nested past [`head::MAX_DEPTH`]) mark
    /// the point corrupted, and read as false.
    pub(super) fn cond(
        &self,
        rule: u32,
        cond: CondWords<'_>,
        scratch: &mut Scratch,
        ctx: &HookContext,
    ) -> Option<bool> {
        // The top node is within any depth.
        self.node_value(rule, cond.node(), 0, scratch, ctx)
    }

    /// The value of the condition `cond`, a node nested `depth` deep.
    fn cond_at(
        &self,
        rule: u32,
        cond: CondWords<'_>,
        depth: usize,
        scratch: &mut Scratch,
        ctx: &HookContext,
    ) -> Option<bool> {
        let node = if depth > head::MAX_DEPTH {
            Node::Bad("a condition nested too deeply")
        } else {
            cond.node()
        };
        self.node_value(rule, node, depth, scratch, ctx)
    }

    /// The value of `node`, read `depth` deep in rule `rule`'s condition.
    /// Always inlined (into [`cond`](Self::cond) and `cond_at`): a call
    /// for each rule's top node cost 25 instructions a candidate.
    #[inline(always)]
    fn node_value(
        &self,
        rule: u32,
        node: Node<'_>,
        depth: usize,
        scratch: &mut Scratch,
        ctx: &HookContext,
    ) -> Option<bool> {
        match node {
            Node::True => Some(true),
            Node::Atom(a) => self.atom_value(a, scratch, ctx),
            Node::Not(c) => self.cond_at(rule, c, depth + 1, scratch, ctx).map(|v| !v),
            Node::All(operands) => self.operands(rule, operands, false, depth, scratch, ctx),
            Node::Any(operands) => self.operands(rule, operands, true, depth, scratch, ctx),
            Node::Bad(why) => {
                self.corrupt(&format!(
                    "rule `{}` of point `{}`: {why}",
                    self.point.rule_id(rule),
                    self.point.name()
                ));
                Some(false)
            }
        }
    }

    /// The value of an `all` (`decisive` false: it stops at a false
    /// operand) or an `any` (`decisive` true: it stops at a true one).
    fn operands(
        &self,
        rule: u32,
        operands: Operands<'_>,
        decisive: bool,
        depth: usize,
        scratch: &mut Scratch,
        ctx: &HookContext,
    ) -> Option<bool> {
        let mut unknown = false;
        let mut rest = operands;
        while let Some(operand) = rest.next_operand() {
            // An atom operand (the usual one) is read here rather than
            // through another call of `cond_at`.
            let value = match operand {
                Ok(a) => self.atom_value(a, scratch, ctx),
                Err(c) => self.cond_at(rule, c, depth + 1, scratch, ctx),
            };
            match value {
                Some(v) if v == decisive => return Some(decisive),
                Some(_) => {}
                None => unknown = true,
            }
        }
        (!unknown).then_some(!decisive)
    }
}
