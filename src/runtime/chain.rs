//! The chain: what a dispatch runs on ([`Live`]), the observer that
//! `explain` plugs in, and the loop over a point's rules and native hooks in
//! order, with edits applied as the schema's host applies them.

use super::*;

/// What the host brings to a table's chain: its effects and, for a live
/// [`Registry`](crate::Registry), native hooks and rules switched off.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Live<'a> {
    /// Command settings, the webhook pool, named handlers.
    pub(crate) effects: &'a Effects,
    /// The point's native hooks, by priority, then registration.
    pub(crate) natives: &'a [RegisteredHook],
    /// The point's rules switched off at run time: bit `i % 64` of word
    /// `i / 64` for rule `i`. Empty when none is.
    pub(crate) disabled: &'a [u64],
    /// A rule-less point, for when the table has no rules there and
    /// native hooks must still run.
    pub(crate) empty_point: Option<&'a PointSlot<'a>>,
}

impl<'a> Live<'a> {
    /// Only effects: a plain table dispatch.
    pub(crate) fn effects(effects: &'a Effects) -> Live<'a> {
        Live {
            effects,
            natives: &[],
            disabled: &[],
            empty_point: None,
        }
    }

    pub(super) fn is_disabled(&self, rule: u32) -> bool {
        self.disabled
            .get(rule as usize / 64)
            .is_some_and(|w| w & (1 << (rule % 64)) != 0)
    }
}

/// `Scratch::fired` entries with this bit set are native hooks (the rest of
/// the bits index [`Live::natives`]).
pub(crate) const NATIVE_FIRED: u32 = 1 << 31;

/// Why the chain looks at a rule, for an [`Observer`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reach {
    /// The FQL index and the triggers proposed it: dispatch tests it.
    Candidate,
    /// The index did not propose it (its target or trigger atom cannot
    /// match): dispatch skips it without a test.
    NotCandidate,
    /// The chain ended (abort, skip or the depth guard) before it.
    AfterStop,
}

/// Watches a dispatch rule by rule, for `explain`. Every method has an empty
/// default; `()` is the observer of plain dispatch, and with it the calls
/// compile to nothing.
pub(crate) trait Observer {
    /// False for `()`: the chain then does no extra work at all.
    const ACTIVE: bool = true;

    /// The chain reached rule `rule` (every rule of the point is reached
    /// once, in order), with the context as it is at that point of the chain.
    fn reach(&mut self, _rule: u32, _reach: Reach, _probe: &mut Probe<'_, '_>) {}

    /// Rule `rule` matched and its actions run next, on `ctx`.
    fn fire(&mut self, _rule: u32, _ctx: &HookContext) {}

    /// Action `index` of rule `rule` runs next, on `ctx`.
    fn action(&mut self, _rule: u32, _index: usize, _ctx: &HookContext, _run: &Run<'_>) {}

    /// Rule `rule`'s actions ran; `ctx` is the context after them (before
    /// an abort or skip restores it).
    fn fired(&mut self, _rule: u32, _ctx: &HookContext) {}

    /// Rule `rule` matched, but the depth guard stopped the chain there.
    fn depth_limit(&mut self, _rule: u32) {}
}

impl Observer for () {
    const ACTIVE: bool = false;
}

/// Evaluates atoms for an [`Observer`] exactly as the dispatch does (the
/// field matchers and the memo of the current context), and gives it the
/// context.
pub(crate) struct Probe<'r, 'a> {
    pub(super) run: &'r Run<'a>,
    pub(super) scratch: &'r mut Scratch,
    pub(super) ctx: &'r HookContext,
}

impl<'a> Probe<'_, 'a> {
    /// The value of atom `a` on the current context (false when the regex
    /// budget could not pay for it).
    pub(crate) fn atom(&mut self, a: u32) -> bool {
        self.run
            .atom_value(a, self.scratch, self.ctx)
            .unwrap_or(false)
    }

    /// The context as it is at this point of the chain.
    pub(crate) fn ctx(&self) -> &HookContext {
        self.ctx
    }
}

/// The state of one dispatch.
pub(crate) struct Run<'a> {
    pub(super) loaded: &'a Loaded<'a>,
    pub(super) effects: &'a Effects,
    /// The deadline of this dispatch's effects, if the host set one.
    pub(super) deadline: Option<Deadline>,
    pub(super) point: Point<'a>,
    pub(super) kind: OutcomeKind,
    pub(super) reason: Option<Cow<'a, str>>,
    pub(super) value: Option<Value>,
    pub(super) decision: Option<Decision>,
    /// Why a part of the point this dispatch read (a rule, an atom) does
    /// not decode: the chain then ends with an abort.
    pub(super) corrupted: std::cell::OnceCell<String>,
}

/// How running native hooks went.
pub(super) enum Natives {
    /// They ran; the chain goes on.
    Ran,
    /// The depth guard ended the chain.
    Halt,
    /// One ended the chain.
    Stop(Stop),
}

/// Why the chain stopped early.
pub(super) enum Stop {
    Abort,
    Skip,
}

impl<'a> Run<'a> {
    /// Always inlined into its one caller per observer: grown past the
    /// compiler's threshold, it stayed a call that cost a plain dispatch
    /// about 1 %.
    #[inline(always)]
    pub(super) fn chain<O: Observer>(
        &mut self,
        scratch: &mut Scratch,
        target: &Target<'_>,
        ctx: &mut HookContext,
        live: Live<'_>,
        obs: &mut O,
    ) {
        // Split on first need: a target whose groups are cached and that
        // has no candidate never reads its parts.
        let parts = std::cell::OnceCell::new();
        let split = || *parts.get_or_init(|| split_component(target.component));
        let groups = match scratch
            .target_groups
            .get(self.point.key(), target.component)
        {
            Some(groups) => groups,
            None => {
                let (scope, name) = split();
                let groups = self.point.group_ids(target.component, scope, name);
                scratch
                    .target_groups
                    .set(self.point.key(), target.component, groups);
                groups
            }
        };
        let group_rules = self.point.group_rules(groups);
        // The fields whose atoms trigger the target's rules: an edit that
        // forgets none of them leaves the candidates as they are.
        let watched = group_rules.fields;
        self.collect(&group_rules, None, scratch, ctx);
        let mut at = 0;
        // The first rule not yet shown to the observer.
        let mut next = 0u32;
        // The first native hook not yet run.
        let mut native = 0usize;
        let count = self.point.rule_count();
        if let Some(why) = self.corrupted.take() {
            // An atom the candidates were collected with does not decode.
            self.stop_corrupted(&why, scratch, ctx);
            return;
        }
        loop {
            let candidate = scratch.candidates.get(at).copied();
            // Native hooks of a lower priority run before the next rule (on
            // a tie the table's rule runs first); the rest after the last.
            if let Some(hook) = live.natives.get(native) {
                if candidate.is_none_or(|i| hook.priority < self.point.priority(i)) {
                    let edits = scratch.edits;
                    let before = edits::before(self.point.edits(), ctx);
                    match self.native(live, native, target, scratch, ctx) {
                        Natives::Ran => {
                            if scratch.edits != edits {
                                self.apply_edits(("hook", hook.hook.id()), before, scratch, ctx);
                            }
                        }
                        Natives::Halt => break,
                        Natives::Stop(stop) => {
                            if O::ACTIVE {
                                self.report(next..count, Reach::AfterStop, obs, scratch, ctx);
                            }
                            self.stop(stop, scratch, ctx);
                            return;
                        }
                    }
                    native += 1;
                    if scratch.forgotten_fields & watched != 0 {
                        // The hook edited a field that triggers rules:
                        // triggers may now hold (or not) for the rules
                        // after it.
                        let after = self.point.rules_up_to(hook.priority).checked_sub(1);
                        self.collect(&group_rules, after, scratch, ctx);
                        at = 0;
                    }
                    continue;
                }
            }
            let Some(i) = candidate else {
                break;
            };
            at += 1;
            if O::ACTIVE {
                self.report(next..i, Reach::NotCandidate, obs, scratch, ctx);
                self.report(i..i + 1, Reach::Candidate, obs, scratch, ctx);
                next = i + 1;
            }
            let rule = &match self.point.rule(i) {
                Ok(head) => head,
                Err(why) => {
                    if O::ACTIVE {
                        self.report(next..count, Reach::AfterStop, obs, scratch, ctx);
                    }
                    self.stop_corrupted(&why, scratch, ctx);
                    return;
                }
            };
            if !rule.enabled() || live.is_disabled(i) {
                continue;
            }
            if !rule.target_matches(target.component, split, target.child, target.instance) {
                continue;
            }
            if O::ACTIVE {
                // An observer's probes may have evaluated other rules'
                // conditions; plain dispatch takes every failure it sees.
                scratch.rate_failure = None;
            }
            let matched = self.cond(i, rule.cond(), scratch, ctx);
            if let Some(why) = self.corrupted.take() {
                if O::ACTIVE {
                    self.report(next..count, Reach::AfterStop, obs, scratch, ctx);
                }
                self.stop_corrupted(&why, scratch, ctx);
                return;
            }
            if let Some(counter) = scratch.rate_failure.take() {
                // A `rate(…)` store failed: the rule's failure mode
                // decides, whatever its condition came to.
                if let Some(stop) = self.rate_failed(i, rule, counter, scratch, ctx, obs) {
                    if O::ACTIVE {
                        self.report(next..count, Reach::AfterStop, obs, scratch, ctx);
                    }
                    self.stop(stop, scratch, ctx);
                    return;
                }
                continue;
            }
            match matched {
                Some(true) => {}
                Some(false) => continue,
                // A regex of the condition was more than the regex budget
                // could pay for, and the condition depends on it: the rule
                // fails, and its failure mode decides (open: it does not
                // apply; closed: the chain aborts).
                None => {
                    let why = self.overrun_message(rule.cond(), scratch);
                    if let Some(stop) = self.fail_as("rule", rule.id(), rule.fail(), &why, scratch)
                    {
                        if O::ACTIVE {
                            self.report(next..count, Reach::AfterStop, obs, scratch, ctx);
                        }
                        self.stop(stop, scratch, ctx);
                        return;
                    }
                    continue;
                }
            }
            if ctx.depth >= ctx.max_depth {
                scratch.warnings.push(format!(
                    "depth {} reached the limit {}: rule `{}` and the rest of the chain did not run",
                    ctx.depth, ctx.max_depth, rule.id()
                ));
                if O::ACTIVE {
                    obs.depth_limit(i);
                    self.report(next..count, Reach::AfterStop, obs, scratch, ctx);
                    next = count;
                }
                break;
            }
            // The rule fires: only now are its actions decoded.
            let body = match self.point.body(i) {
                Ok(body) => body,
                Err(why) => {
                    if O::ACTIVE {
                        self.report(next..count, Reach::AfterStop, obs, scratch, ctx);
                    }
                    self.stop_corrupted(why, scratch, ctx);
                    return;
                }
            };
            scratch.fired.push(i);
            obs.fire(i, ctx);
            let edits = scratch.edits;
            let before = edits::before(self.point.edits(), ctx);
            let stopped = self.actions(i, rule, &body.actions, scratch, ctx, obs);
            // Most points' hosts apply no edit before the next rule
            // (`before` is none): the id is read only for one that does.
            if stopped.is_none() && scratch.edits != edits && before.is_some() {
                self.apply_edits(("rule", rule.id()), before, scratch, ctx);
            }
            obs.fired(i, ctx);
            if let Some(stop) = stopped {
                if O::ACTIVE {
                    self.report(next..count, Reach::AfterStop, obs, scratch, ctx);
                }
                self.stop(stop, scratch, ctx);
                return;
            }
            if scratch.forgotten_fields & watched != 0 {
                // A field that triggers rules changed: triggers may now
                // hold (or not) for the rules after this one.
                self.collect(&group_rules, Some(i), scratch, ctx);
                at = 0;
            }
        }
        if O::ACTIVE {
            self.report(next..count, Reach::NotCandidate, obs, scratch, ctx);
        }
        if self.decision == Some(Decision::Ask) {
            self.kind = OutcomeKind::Ask;
        }
    }

    /// After `who` edited the context, applies the point's
    /// [`EditApplication`](crate::schema::EditApplication) so the next rule
    /// sees what the host would.
    pub(super) fn apply_edits(
        &self,
        who: (&str, &str),
        before: Option<edits::Before>,
        scratch: &mut Scratch,
        ctx: &mut HookContext,
    ) {
        let Some(before) = before else {
            return;
        };
        // The host's application may write the payload even where the
        // rule wrote only metadata.
        scratch.backup.save(crate::ir::Root::Payload, ctx);
        let point = self.point.name();
        if edits::apply(
            self.point.edits(),
            &before,
            who,
            point,
            ctx,
            &mut scratch.warnings,
        ) {
            scratch.invalidate();
        }
    }

    /// `written` was edited: forgets the fields and atoms that read it, and
    /// keeps every other memoized value (a `meta` key no condition reads
    /// forgets nothing).
    pub(super) fn forget(&self, written: Written<'_>, scratch: &mut Scratch) {
        scratch.edits = scratch.edits.wrapping_add(1);
        // The usual `meta` key, on a point whose matchers read only the
        // payload: no field to look at.
        if self.point.field_roots() & written.root_bit() != 0 {
            for f in 0..self.point.field_count() {
                if let Some(field) = self.point.field(f) {
                    if written.touches(field.path()) {
                        scratch.forget_field(f, field.bulk());
                    }
                }
            }
        }
        // No atom memoized one by one reads the root written (the usual
        // `meta` key on a point whose rules read none): none to look at.
        // Those a field's forgetting took are all on the written root, so
        // none is left stale in the list either.
        if scratch.memoized_roots & written.root_bit() == 0 {
            return;
        }
        let point = self.point;
        scratch.forget_atoms(|a| point.atom(a).is_ok_and(|atom| written.changes(atom)));
    }

    /// Ends the chain where the table is corrupted: an abort that says
    /// why, and a warning (see the `table` module's docs).
    pub(super) fn stop_corrupted(
        &mut self,
        why: &str,
        scratch: &mut Scratch,
        ctx: &mut HookContext,
    ) {
        let reason = format!("corrupted table: {why}");
        tracing::warn!("{reason}");
        scratch.warnings.push(reason.clone());
        self.reason = Some(Cow::Owned(reason));
        self.decide(Decision::Deny);
        self.stop(Stop::Abort, scratch, ctx);
    }

    /// Ends the chain early: the context is restored and the kind set.
    pub(super) fn stop(&mut self, stop: Stop, scratch: &mut Scratch, ctx: &mut HookContext) {
        scratch.backup.restore(ctx);
        self.kind = match stop {
            Stop::Abort => OutcomeKind::Abort,
            Stop::Skip => OutcomeKind::Skip,
        };
    }

    /// Runs native hook `n` if it is on and `target` reaches it.
    pub(super) fn native(
        &mut self,
        live: Live<'_>,
        n: usize,
        target: &Target<'_>,
        scratch: &mut Scratch,
        ctx: &mut HookContext,
    ) -> Natives {
        let Some(native) = live.natives.get(n) else {
            return Natives::Ran;
        };
        if !native.enabled
            || !native
                .hook
                .fql_pattern()
                .matches(target.component, target.child, target.instance)
        {
            return Natives::Ran;
        }
        if ctx.depth >= ctx.max_depth {
            scratch.warnings.push(format!(
                "depth {} reached the limit {}: hook `{}` and the rest of the chain did not run",
                ctx.depth,
                ctx.max_depth,
                native.hook.id()
            ));
            return Natives::Halt;
        }
        scratch
            .fired
            .push(NATIVE_FIRED | u32::try_from(n).unwrap_or(u32::MAX >> 1));
        let hook = &native.hook;
        match self.invoke(
            ("hook", hook.id(), hook.fail_mode()),
            hook.id(),
            hook.timeout(),
            |ctx| hook.execute(ctx),
            scratch,
            ctx,
        ) {
            Some(stop) => Natives::Stop(stop),
            None => Natives::Ran,
        }
    }

    /// Shows rules `rules` to the observer, on the current context.
    pub(super) fn report<O: Observer>(
        &self,
        rules: std::ops::Range<u32>,
        reach: Reach,
        obs: &mut O,
        scratch: &mut Scratch,
        ctx: &HookContext,
    ) {
        for rule in rules {
            let mut probe = Probe {
                run: self,
                scratch: &mut *scratch,
                ctx,
            };
            obs.reach(rule, reach, &mut probe);
        }
    }
}
