//! The entry points of dispatch on a [`Table`]: by point and target, from a
//! whole context, with the host's effects or an observer.

use super::*;

impl Table {
    /// Scratch space for dispatching on this table.
    pub fn scratch(&self) -> Scratch {
        Scratch::for_table(self)
    }

    /// Reads and checks the block of `point`'s rules now (its checksum and
    /// its layout), as the first dispatch there would: a host that wants a
    /// corrupted table refused before it answers calls this first (`hookc
    /// claude` does, and fails by its mode as for a table that does not
    /// load). A point without rules has nothing to check.
    ///
    /// # Errors
    ///
    /// A [`crate::table::LoadErrorKind::Decode`] saying what does not read.
    pub fn check_point(&self, point: impl AsPoint) -> Result<(), crate::table::LoadError> {
        let loaded = self.loaded();
        match self.index_of(&point).and_then(|i| loaded.point(i)) {
            Some(Err(why)) => Err(crate::table::LoadError::new(
                crate::table::LoadErrorKind::Decode(why.to_string()),
            )),
            _ => Ok(()),
        }
    }

    /// Dispatches `ctx` at its own `hook_point`, for its own component,
    /// child and instance, with a fresh scratch, and returns the owned report.
    /// For tools and tests; a host's hot path reuses a [`Scratch`] and calls
    /// [`dispatch`](Self::dispatch).
    pub fn dispatch_context(&self, ctx: &mut HookContext) -> Report {
        self.dispatch_context_with(ctx, Effects::global())
    }

    /// [`dispatch_context`](Self::dispatch_context) with the host's
    /// [`Effects`] (its rate store, command settings, handlers).
    pub fn dispatch_context_with(&self, ctx: &mut HookContext, effects: &Effects) -> Report {
        let named = crate::event::ContextTarget::of(ctx);
        let mut scratch = self.scratch();
        let outcome =
            self.dispatch_with(&mut scratch, named.point(), &named.target(), ctx, effects);
        outcome.report(ctx)
    }

    /// [`dispatch_context_with`](Self::dispatch_context_with) of a context
    /// the caller hands over, named by `point` and `target` as it was
    /// received: the report takes the edited context as it is, with no copy
    /// (a hook process answers one event and reads only the report).
    pub(crate) fn dispatch_owned(
        &self,
        mut ctx: HookContext,
        point: &str,
        target: &Target<'_>,
        effects: &Effects,
    ) -> Report {
        let mut scratch = self.scratch();
        let outcome = self.dispatch_with(&mut scratch, point, target, &mut ctx, effects);
        outcome.report_of(ctx)
    }

    /// Runs the rules of `point` that `target` reaches on `ctx`, in order, and
    /// says what the host should do. Edits are applied to `ctx` in place
    /// (and undone when the chain aborts or skips).
    ///
    /// A point with no rules is a `continue` with nothing fired.
    pub fn dispatch<'a>(
        &'a self,
        scratch: &'a mut Scratch,
        point: impl AsPoint,
        target: &Target<'_>,
        ctx: &mut HookContext,
    ) -> Outcome<'a> {
        self.dispatch_with(scratch, point, target, ctx, Effects::global())
    }

    /// [`dispatch`](Self::dispatch) with the host's [`Effects`]: its
    /// command settings, webhook pool and named handlers.
    pub fn dispatch_with<'a>(
        &'a self,
        scratch: &'a mut Scratch,
        point: impl AsPoint,
        target: &Target<'_>,
        ctx: &mut HookContext,
        effects: &'a Effects,
    ) -> Outcome<'a> {
        let index = self.index_of(&point);
        self.dispatch_observed(scratch, index, target, ctx, Live::effects(effects), &mut ())
    }

    /// [`dispatch`](Self::dispatch) of the point whose rules are at `index`
    /// ([`resolve`](Self::resolve)d), with an [`Observer`] watching every
    /// rule of the point (`()` watches nothing and costs nothing).
    pub(crate) fn dispatch_observed<'a, O: Observer>(
        &'a self,
        scratch: &'a mut Scratch,
        index: Option<usize>,
        target: &Target<'_>,
        ctx: &mut HookContext,
        live: Live<'a>,
        observer: &mut O,
    ) -> Outcome<'a> {
        let loaded = self.loaded();
        let point = match index.and_then(|i| loaded.point(i)) {
            Some(Ok(point)) => Some(point),
            Some(Err(why)) => {
                scratch.reset(0, 0, loaded.rates().len());
                return corrupted(why, scratch, live);
            }
            // A point the table has no rules for may still have a
            // registry's native hooks.
            None => live
                .empty_point
                .and_then(|slot| slot.view(loaded.refs(), loaded.literal_start).ok()),
        };
        scratch.reset(
            point.map_or(0, |p| p.atom_count() as usize),
            point.map_or(0, |p| p.field_count()),
            loaded.rates().len(),
        );
        let Some(point) = point else {
            return Outcome {
                kind: OutcomeKind::Continue,
                reason: None,
                value: None,
                decision: None,
                point: None,
                natives: live.natives,
                scratch,
            };
        };
        let mut run = Run {
            loaded,
            effects: live.effects,
            deadline: live.effects.deadline_from_now(),
            point,
            kind: OutcomeKind::Continue,
            reason: None,
            value: None,
            decision: None,
            corrupted: std::cell::OnceCell::new(),
        };
        run.chain(scratch, target, ctx, live, observer);
        Outcome {
            kind: run.kind,
            reason: run.reason,
            value: run.value,
            decision: run.decision,
            point: Some(point),
            natives: live.natives,
            scratch,
        }
    }
}

/// The outcome of a dispatch whose point's block does not read: the table
/// is corrupted where this event reaches it, so the chain does not run,
/// and the host is told to stop (as a rule failing closed would), with the
/// reason and a warning.
fn corrupted<'a>(why: &str, scratch: &'a mut Scratch, live: Live<'a>) -> Outcome<'a> {
    let reason = format!("corrupted table: {why}");
    tracing::warn!("{reason}");
    scratch.warnings.push(reason.clone());
    Outcome {
        kind: OutcomeKind::Abort,
        reason: Some(Cow::Owned(reason)),
        value: None,
        decision: Some(Decision::Deny),
        point: None,
        natives: live.natives,
        scratch,
    }
}
