//! The action interpreter: decisions, edits, logs and context, and the
//! effects a rule calls (commands, webhooks, traces, Lua and native
//! handlers), each failure handled by the rule's failure mode.

use super::*;

impl<'a> Run<'a> {
    pub(super) fn decide(&mut self, decision: Decision) {
        self.decision = Some(self.decision.map_or(decision, |d| d.max(decision)));
    }

    /// Runs a rule's actions; `Some` when the chain must stop.
    pub(super) fn actions<O: Observer>(
        &mut self,
        index: u32,
        rule: &RuleHead<'a>,
        actions: &'a [Action],
        scratch: &mut Scratch,
        ctx: &mut HookContext,
        obs: &mut O,
    ) -> Option<Stop> {
        let regexes = &self.loaded.regexes;
        for (n, action) in actions.iter().enumerate() {
            obs.action(index, n, ctx, self);
            let edited = action.edited_root();
            if let Some(root) = edited {
                if unchanged_by(action, ctx) {
                    // Nothing to save and nothing to forget: every memo
                    // still holds, and no edit is counted.
                    continue;
                }
                scratch.backup.save(root, ctx);
            }
            match action {
                Action::Continue => {}
                Action::Abort(reason) => {
                    self.reason = Some(eval::render(reason, ctx, || self.matching(scratch)));
                    self.decide(Decision::Deny);
                    return Some(Stop::Abort);
                }
                Action::Skip(value) => {
                    match eval::json(value, ctx, || self.matching(scratch)) {
                        Ok(v) => self.value = Some(v),
                        Err(e) => {
                            scratch
                                .warnings
                                .push(format!("rule `{}`: skip value: {e}", rule.id()));
                            self.value = Some(Value::Null);
                        }
                    }
                    return Some(Stop::Skip);
                }
                Action::Replace(value) => {
                    if self.point.kind() != PointKind::Post {
                        scratch.warnings.push(format!(
                            "rule `{}`: `replace` ignored at {} point `{}`",
                            rule.id(),
                            self.point.kind(),
                            self.point.name()
                        ));
                        continue;
                    }
                    match eval::json(value, ctx, || self.matching(scratch)) {
                        Ok(v) => ctx.payload = v,
                        Err(e) => scratch
                            .warnings
                            .push(format!("rule `{}`: replace: {e}", rule.id())),
                    }
                }
                Action::Set(path, value) => {
                    let result = eval::json(value, ctx, || self.matching(scratch));
                    match result {
                        Ok(v) => {
                            if let Err(e) = ctx.set(path, v) {
                                scratch.warnings.push(format!(
                                    "rule `{}`: cannot set `{path}`: {e}",
                                    rule.id()
                                ));
                            }
                        }
                        Err(e) => scratch
                            .warnings
                            .push(format!("rule `{}`: set `{path}`: {e}", rule.id())),
                    }
                }
                Action::Unset(path) => {
                    if let Err(e) = ctx.unset(path) {
                        scratch
                            .warnings
                            .push(format!("rule `{}`: cannot unset `{path}`: {e}", rule.id()));
                    }
                }
                Action::Rewrite(path, re, replacement) => {
                    let Some(re) = regexes.get(re.0 as usize) else {
                        continue;
                    };
                    let rewritten = match ctx.get(path) {
                        Some(Val::Str(s)) => match re.replace_all(&s, replacement.as_str()) {
                            Cow::Owned(new) => Some(new),
                            Cow::Borrowed(_) => None,
                        },
                        _ => None,
                    };
                    if let Some(new) = rewritten {
                        if let Err(e) = ctx.set(path, Value::String(new)) {
                            scratch.warnings.push(format!(
                                "rule `{}`: cannot rewrite `{path}`: {e}",
                                rule.id()
                            ));
                        }
                    }
                }
                Action::Prepend(path, text) | Action::Append(path, text) => {
                    let text = eval::render(text, ctx, || self.matching(scratch)).into_owned();
                    let edited = match ctx.get(path) {
                        Some(Val::Str(s)) if matches!(action, Action::Prepend(..)) => {
                            Some(text + &s)
                        }
                        Some(Val::Str(s)) => Some(s.into_owned() + &text),
                        None | Some(Val::Null) => Some(text),
                        Some(other) => {
                            scratch.warnings.push(format!(
                                "rule `{}`: cannot {} to `{path}`: it is {}, not a string",
                                rule.id(),
                                if matches!(action, Action::Prepend(..)) {
                                    "prepend"
                                } else {
                                    "append"
                                },
                                other.type_name()
                            ));
                            None
                        }
                    };
                    if let Some(new) = edited {
                        if let Err(e) = ctx.set(path, Value::String(new)) {
                            scratch
                                .warnings
                                .push(format!("rule `{}`: cannot edit `{path}`: {e}", rule.id()));
                        }
                    }
                }
                Action::Meta(key, value) => {
                    match eval::json(value, ctx, || self.matching(scratch)) {
                        // A key already there is set in place: its name
                        // is not copied again.
                        Ok(v) => match crate::event::member_mut(&mut ctx.metadata, key) {
                            Some(slot) => *slot = v,
                            None => {
                                ctx.metadata.insert(key.clone(), v);
                            }
                        },
                        Err(e) => scratch
                            .warnings
                            .push(format!("rule `{}`: meta `{key}`: {e}", rule.id())),
                    }
                }
                Action::Log(level, message) => {
                    let message =
                        eval::render(message, ctx, || self.matching(scratch)).into_owned();
                    emit_log(*level, rule.id(), self.point.name(), &message);
                    scratch.logs.push(LogLine {
                        level: *level,
                        rule: rule.id().to_owned(),
                        message,
                    });
                }
                Action::Ask(reason) => {
                    if self.decision != Some(Decision::Deny) && self.decision != Some(Decision::Ask)
                    {
                        self.reason = Some(eval::render(reason, ctx, || self.matching(scratch)));
                    }
                    self.decide(Decision::Ask);
                }
                Action::Allow => self.decide(Decision::Allow),
                Action::Context(text) => {
                    let text = eval::render(text, ctx, || self.matching(scratch)).into_owned();
                    scratch.additional_context.push(text);
                }
                Action::Output(name, value) => {
                    match eval::json(value, ctx, || self.matching(scratch)) {
                        Ok(v) => scratch.outputs.push((name.clone(), v)),
                        Err(e) => scratch
                            .warnings
                            .push(format!("rule `{}`: output `{name}`: {e}", rule.id())),
                    }
                }
                effect => {
                    if let Some(stop) = self.effect(rule, effect, scratch, ctx) {
                        return Some(stop);
                    }
                }
            }
            if let Some(written) = edited.map(|root| written(action, root)) {
                self.forget(written, scratch);
            }
        }
        None
    }

    /// Applies a command's reply.
    pub(super) fn reply(
        &mut self,
        rule: &RuleHead,
        reply: Reply,
        scratch: &mut Scratch,
        ctx: &mut HookContext,
    ) -> Option<Stop> {
        let edits =
            reply.payload.is_some() || reply.updated_input.is_some() || !reply.metadata.is_empty();
        if edits {
            scratch.backup.save_all(ctx);
            if let Some(payload) = reply.payload {
                ctx.payload = payload;
            }
            if let Some(input) = reply.updated_input {
                match &mut ctx.payload {
                    Value::Object(payload) => {
                        payload.insert("tool_input".to_string(), input);
                    }
                    other => scratch.warnings.push(format!(
                        "rule `{}`: `updatedInput` ignored: the payload is {}, not an object",
                        rule.id(),
                        Val::from_json(other).type_name()
                    )),
                }
            }
            for (key, value) in reply.metadata {
                ctx.metadata.insert(key, value);
            }
            scratch.invalidate();
        }
        scratch.additional_context.extend(reply.additional_context);
        scratch.outputs.extend(reply.outputs);
        match reply.action {
            Some(action) => self.act(rule.id(), action, scratch, ctx),
            None => None,
        }
    }

    /// Applies what a handler or a reply asks for.
    pub(super) fn act(
        &mut self,
        id: &str,
        action: HookAction,
        scratch: &mut Scratch,
        ctx: &mut HookContext,
    ) -> Option<Stop> {
        match action {
            HookAction::Continue => None,
            HookAction::Skip(value) => {
                self.value = Some(value);
                Some(Stop::Skip)
            }
            HookAction::Abort { reason } => {
                self.reason = Some(Cow::Owned(reason));
                self.decide(Decision::Deny);
                Some(Stop::Abort)
            }
            HookAction::Replace(value) => {
                if self.point.kind() == PointKind::Post {
                    scratch.backup.save(crate::ir::Root::Payload, ctx);
                    ctx.payload = value;
                    self.forget(Written::root(crate::ir::Root::Payload), scratch);
                } else {
                    scratch.warnings.push(format!(
                        "`{id}`: `replace` ignored at {} point `{}`",
                        self.point.kind(),
                        self.point.name()
                    ));
                }
                None
            }
            HookAction::Ask { reason } => {
                if self.decision != Some(Decision::Deny) && self.decision != Some(Decision::Ask) {
                    self.reason = Some(Cow::Owned(reason));
                }
                self.decide(Decision::Ask);
                None
            }
            HookAction::Allow => {
                self.decide(Decision::Allow);
                None
            }
        }
    }

    /// A failed effect: a warning under `fail open`, an abort naming the
    /// rule under `fail closed`.
    pub(super) fn fail(
        &mut self,
        rule: &RuleHead,
        error: &EffectError,
        scratch: &mut Scratch,
    ) -> Option<Stop> {
        self.fail_as("rule", rule.id(), rule.fail(), error, scratch)
    }

    /// [`fail`](Self::fail) for a rule or a native hook (`what`) named `id`.
    pub(super) fn fail_as(
        &mut self,
        what: &str,
        id: &str,
        mode: FailMode,
        error: &dyn std::fmt::Display,
        scratch: &mut Scratch,
    ) -> Option<Stop> {
        match mode {
            FailMode::Open => {
                tracing::warn!(id, "{what} failed open: {error}");
                scratch
                    .warnings
                    .push(format!("{what} `{id}` failed open: {error}"));
                None
            }
            FailMode::Closed => {
                tracing::warn!(id, "{what} failed closed: {error}");
                self.reason = Some(Cow::Owned(format!("{what} `{id}` failed closed: {error}")));
                self.decide(Decision::Deny);
                Some(Stop::Abort)
            }
        }
    }
}

/// Whether `action`, an edit, would leave `ctx` as it is: a `meta` key set
/// to a constant it holds already (rules that mark the same key, one
/// after another). Other edits are taken as changes.
#[inline]
fn unchanged_by(action: &Action, ctx: &HookContext) -> bool {
    let Action::Meta(key, crate::ir::Expr::Const(value)) = action else {
        return false;
    };
    match (crate::event::member(&ctx.metadata, key), value) {
        (None, _) => false,
        // The usual marks, compared inline: JSON equality is a call.
        (Some(Value::Bool(held)), Value::Bool(new)) => held == new,
        (Some(Value::String(held)), Value::String(new)) => held == new,
        (Some(held), new) => held == new,
    }
}

/// What an edit action, writing in `root`, writes.
fn written(action: &Action, root: crate::ir::Root) -> Written<'_> {
    match action {
        Action::Set(path, _)
        | Action::Rewrite(path, ..)
        | Action::Prepend(path, _)
        | Action::Append(path, _) => Written::path(path),
        Action::Unset(path) => Written::removal(path),
        Action::Meta(key, _) => Written::meta(key),
        // `replace`: the whole payload.
        _ => Written::root(root),
    }
}

pub(super) fn emit_log(level: LogLevel, rule: &str, point: &str, message: &str) {
    match level {
        LogLevel::Trace => tracing::trace!(target: "hookc::rules", rule, point, "{message}"),
        LogLevel::Debug => tracing::debug!(target: "hookc::rules", rule, point, "{message}"),
        LogLevel::Info => tracing::info!(target: "hookc::rules", rule, point, "{message}"),
        LogLevel::Warn => tracing::warn!(target: "hookc::rules", rule, point, "{message}"),
        LogLevel::Error => tracing::error!(target: "hookc::rules", rule, point, "{message}"),
    }
}
