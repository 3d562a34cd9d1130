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
        rule: &'a Rule,
        scratch: &mut Scratch,
        ctx: &mut HookContext,
        obs: &mut O,
    ) -> Option<Stop> {
        let regexes = &self.loaded.regexes;
        for (n, action) in rule.actions.iter().enumerate() {
            obs.action(index, n, ctx, self);
            if action.is_edit() && scratch.backup.is_none() {
                scratch.backup = Some(ctx.clone());
            }
            match action {
                Action::Continue => {}
                Action::Abort(reason) => {
                    self.reason = Some(eval::render(reason, ctx, self.matching(scratch)));
                    self.decide(Decision::Deny);
                    return Some(Stop::Abort);
                }
                Action::Skip(value) => {
                    match eval::eval(value, ctx, self.matching(scratch)) {
                        Ok(v) => self.value = Some(v.to_json()),
                        Err(e) => {
                            scratch
                                .warnings
                                .push(format!("rule `{}`: skip value: {e}", rule.id));
                            self.value = Some(Value::Null);
                        }
                    }
                    return Some(Stop::Skip);
                }
                Action::Replace(value) => {
                    if self.point.kind != PointKind::Post {
                        scratch.warnings.push(format!(
                            "rule `{}`: `replace` ignored at {} point `{}`",
                            rule.id, self.point.kind, self.point.name
                        ));
                        continue;
                    }
                    match eval::eval(value, ctx, self.matching(scratch)).map(|v| v.to_json()) {
                        Ok(v) => ctx.payload = v,
                        Err(e) => scratch
                            .warnings
                            .push(format!("rule `{}`: replace: {e}", rule.id)),
                    }
                }
                Action::Set(path, value) => {
                    let result =
                        eval::eval(value, ctx, self.matching(scratch)).map(|v| v.to_json());
                    match result {
                        Ok(v) => {
                            if let Err(e) = ctx.set(path, v) {
                                scratch
                                    .warnings
                                    .push(format!("rule `{}`: cannot set `{path}`: {e}", rule.id));
                            }
                        }
                        Err(e) => scratch
                            .warnings
                            .push(format!("rule `{}`: set `{path}`: {e}", rule.id)),
                    }
                }
                Action::Unset(path) => {
                    if let Err(e) = ctx.unset(path) {
                        scratch
                            .warnings
                            .push(format!("rule `{}`: cannot unset `{path}`: {e}", rule.id));
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
                            scratch
                                .warnings
                                .push(format!("rule `{}`: cannot rewrite `{path}`: {e}", rule.id));
                        }
                    }
                }
                Action::Prepend(path, text) | Action::Append(path, text) => {
                    let text = eval::render(text, ctx, self.matching(scratch)).into_owned();
                    let edited = match ctx.get(path) {
                        Some(Val::Str(s)) if matches!(action, Action::Prepend(..)) => {
                            Some(text + &s)
                        }
                        Some(Val::Str(s)) => Some(s.into_owned() + &text),
                        None | Some(Val::Null) => Some(text),
                        Some(other) => {
                            scratch.warnings.push(format!(
                                "rule `{}`: cannot {} to `{path}`: it is {}, not a string",
                                rule.id,
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
                                .push(format!("rule `{}`: cannot edit `{path}`: {e}", rule.id));
                        }
                    }
                }
                Action::Meta(key, value) => {
                    match eval::eval(value, ctx, self.matching(scratch)).map(|v| v.to_json()) {
                        Ok(v) => {
                            ctx.metadata.insert(key.clone(), v);
                        }
                        Err(e) => scratch
                            .warnings
                            .push(format!("rule `{}`: meta `{key}`: {e}", rule.id)),
                    }
                }
                Action::Log(level, message) => {
                    let message = eval::render(message, ctx, self.matching(scratch)).into_owned();
                    emit_log(*level, &rule.id, &self.point.name, &message);
                    scratch.logs.push(LogLine {
                        level: *level,
                        rule: rule.id.clone(),
                        message,
                    });
                }
                Action::Ask(reason) => {
                    if self.decision != Some(Decision::Deny) && self.decision != Some(Decision::Ask)
                    {
                        self.reason = Some(eval::render(reason, ctx, self.matching(scratch)));
                    }
                    self.decide(Decision::Ask);
                }
                Action::Allow => self.decide(Decision::Allow),
                Action::Context(text) => {
                    let text = eval::render(text, ctx, self.matching(scratch)).into_owned();
                    scratch.additional_context.push(text);
                }
                // A flag test first: a live dispatch pays nothing more.
                action if self.effects.is_recording_only() && action.is_effect() => {
                    let message = format!("not run (effects are off): {}", effect_text(action));
                    emit_log(LogLevel::Info, &rule.id, &self.point.name, &message);
                    scratch.logs.push(LogLine {
                        level: LogLevel::Info,
                        rule: rule.id.clone(),
                        message,
                    });
                }
                Action::Exec {
                    program,
                    args,
                    shell,
                } => {
                    let command = exec::Command {
                        program,
                        args,
                        shell: *shell,
                        point: &self.point.name,
                        rule: &rule.id,
                        timeout: rule.timeout_ms.map(Duration::from_millis),
                        deadline: self.deadline,
                        input: self.loaded.program.command_input,
                    };
                    match exec::run(self.effects.exec_config(), &command, ctx) {
                        Ok(reply) => {
                            if let Some(stop) = self.reply(rule, reply, scratch, ctx) {
                                return Some(stop);
                            }
                        }
                        Err(e) => {
                            if let Some(stop) = self.fail(rule, &e, scratch) {
                                return Some(stop);
                            }
                        }
                    }
                }
                Action::Webhook {
                    url,
                    include,
                    headers,
                } => {
                    let post = webhook::Post {
                        url,
                        include,
                        headers,
                        rule: &rule.id,
                        point: &self.point.name,
                        timeout: rule.timeout_ms.map(Duration::from_millis),
                    };
                    // A webhook never changes the outcome, whatever the
                    // rule's failure mode: a delivery it cannot queue is a
                    // warning.
                    if let Err(e) = self.effects.webhooks().post(&post, ctx) {
                        tracing::warn!(rule = %rule.id, "{e}");
                        scratch.warnings.push(format!("rule `{}`: {e}", rule.id));
                    }
                }
                Action::Call(name) => {
                    if let Some(stop) = self.call(rule, name, scratch, ctx) {
                        return Some(stop);
                    }
                }
                Action::Lua(code) => {
                    if let Some(stop) = self.lua(rule, code, scratch, ctx) {
                        return Some(stop);
                    }
                }
                Action::Trace { file, fields } => {
                    let line = trace::Trace {
                        file,
                        fields,
                        rule: &rule.id,
                        point: &self.point.name,
                    };
                    if let Err(e) = trace::append(self.effects.exec_config(), &line, ctx) {
                        if let Some(stop) = self.fail(rule, &e, scratch) {
                            return Some(stop);
                        }
                    }
                }
            }
            if action.is_edit() {
                scratch.invalidate();
            }
        }
        None
    }

    /// Applies a command's reply.
    pub(super) fn reply(
        &mut self,
        rule: &Rule,
        reply: Reply,
        scratch: &mut Scratch,
        ctx: &mut HookContext,
    ) -> Option<Stop> {
        let edits =
            reply.payload.is_some() || reply.updated_input.is_some() || !reply.metadata.is_empty();
        if edits {
            if scratch.backup.is_none() {
                scratch.backup = Some(ctx.clone());
            }
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
                        rule.id,
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
        match reply.action {
            Some(action) => self.act(&rule.id, action, scratch, ctx),
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
                if self.point.kind == PointKind::Post {
                    if scratch.backup.is_none() {
                        scratch.backup = Some(ctx.clone());
                    }
                    ctx.payload = value;
                    scratch.invalidate();
                } else {
                    scratch.warnings.push(format!(
                        "`{id}`: `replace` ignored at {} point `{}`",
                        self.point.kind, self.point.name
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

    /// Runs the native handler `name`.
    pub(super) fn call(
        &mut self,
        rule: &Rule,
        name: &str,
        scratch: &mut Scratch,
        ctx: &mut HookContext,
    ) -> Option<Stop> {
        let Some(handler) = self.effects.handler(name) else {
            return self.fail(rule, &EffectError::NoHandler(name.to_string()), scratch);
        };
        let timeout = rule.timeout_ms.map_or(
            self.effects.exec_config().default_timeout,
            Duration::from_millis,
        );
        let handler = Arc::clone(handler);
        self.invoke(
            ("rule", &rule.id, rule.fail),
            name,
            timeout,
            |ctx| handler.call(ctx),
            scratch,
            ctx,
        )
    }

    /// Runs a Lua handler.
    #[cfg(feature = "lua")]
    pub(super) fn lua(
        &mut self,
        rule: &Rule,
        code: &LuaCode,
        scratch: &mut Scratch,
        ctx: &mut HookContext,
    ) -> Option<Stop> {
        let timeout = rule.timeout_ms.map_or(
            self.effects.exec_config().default_timeout,
            Duration::from_millis,
        );
        let source = match code {
            LuaCode::File(file) => crate::effects::lua::Source::File(file),
            LuaCode::Inline(code) => crate::effects::lua::Source::Inline(code),
        };
        let before = ctx.clone();
        match self.effects.lua().call(
            self.effects.exec_config(),
            source,
            ctx,
            timeout,
            self.deadline,
        ) {
            Ok(action) => {
                if *ctx != before {
                    if scratch.backup.is_none() {
                        scratch.backup = Some(before);
                    }
                    scratch.invalidate();
                }
                self.act(&rule.id, action, scratch, ctx)
            }
            Err(e) => {
                *ctx = before;
                self.fail(rule, &e, scratch)
            }
        }
    }

    /// Without Lua support, a Lua handler is a failed effect.
    #[cfg(not(feature = "lua"))]
    pub(super) fn lua(
        &mut self,
        rule: &Rule,
        _code: &LuaCode,
        scratch: &mut Scratch,
        _ctx: &mut HookContext,
    ) -> Option<Stop> {
        let error = EffectError::Unsupported("this build has no Lua handlers (the `lua` feature)");
        self.fail(rule, &error, scratch)
    }

    /// Runs native code (a `call` handler or a registry's hook) on the
    /// context: a panic or an overrun is a failure of `who` (what, id, mode)
    /// and leaves the context as it was.
    pub(super) fn invoke(
        &mut self,
        who: (&str, &str, FailMode),
        name: &str,
        timeout: Duration,
        run: impl FnOnce(&mut HookContext) -> HookAction,
        scratch: &mut Scratch,
        ctx: &mut HookContext,
    ) -> Option<Stop> {
        let (what, id, mode) = who;
        // Nothing starts after the deadline.
        let cutoff = match Cutoff::start(timeout, self.deadline) {
            Ok(cutoff) => cutoff,
            Err(error) => return self.fail_as(what, id, mode, &error, scratch),
        };
        let before = ctx.clone();
        let result = panic::catch_unwind(AssertUnwindSafe(|| run(ctx)));
        let action = match result {
            Err(panic) => {
                *ctx = before;
                let message = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "a non-string panic".to_string());
                let error = EffectError::Panicked {
                    name: name.to_string(),
                    message,
                };
                return self.fail_as(what, id, mode, &error, scratch);
            }
            // Native code cannot be preempted; one that overran its timeout
            // (or the deadline) has its result (and its edits) dropped.
            Ok(_) if cutoff.passed() => {
                *ctx = before;
                return self.fail_as(what, id, mode, &cutoff.error(), scratch);
            }
            Ok(action) => action,
        };
        // Matches are memoized: forget them only when the code edited.
        if *ctx != before {
            if scratch.backup.is_none() {
                scratch.backup = Some(before);
            }
            scratch.invalidate();
        }
        self.act(id, action, scratch, ctx)
    }

    /// A failed effect: a warning under `fail open`, an abort naming the
    /// rule under `fail closed`.
    pub(super) fn fail(
        &mut self,
        rule: &Rule,
        error: &EffectError,
        scratch: &mut Scratch,
    ) -> Option<Stop> {
        self.fail_as("rule", &rule.id, rule.fail, error, scratch)
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

pub(super) fn emit_log(level: LogLevel, rule: &str, point: &str, message: &str) {
    match level {
        LogLevel::Trace => tracing::trace!(target: "hookc::rules", rule, point, "{message}"),
        LogLevel::Debug => tracing::debug!(target: "hookc::rules", rule, point, "{message}"),
        LogLevel::Info => tracing::info!(target: "hookc::rules", rule, point, "{message}"),
        LogLevel::Warn => tracing::warn!(target: "hookc::rules", rule, point, "{message}"),
        LogLevel::Error => tracing::error!(target: "hookc::rules", rule, point, "{message}"),
    }
}

/// An effect as a log line names it: what would have run.
fn effect_text(action: &Action) -> String {
    let quoted = |s: &str| format!("{s:?}");
    match action {
        Action::Exec {
            program,
            shell: true,
            ..
        } => format!("sh {}", quoted(program)),
        Action::Exec { program, args, .. } => std::iter::once(program.as_str())
            .chain(args.iter().map(String::as_str))
            .map(quoted)
            .fold("exec".to_string(), |out, arg| out + " " + &arg),
        Action::Webhook { url, .. } => format!("webhook {}", quoted(url)),
        Action::Call(name) => format!("call {}", quoted(name)),
        Action::Lua(LuaCode::File(file)) => format!("call lua {}", quoted(file)),
        Action::Lua(LuaCode::Inline(_)) => "lua \"\"\"…\"\"\"".to_string(),
        Action::Trace { file, .. } => format!("trace {}", quoted(file)),
        _ => String::new(),
    }
}
