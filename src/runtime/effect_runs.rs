//! Running a rule's effects: for real, mocked, or only recorded.
//!
//! A live dispatch runs each effect as written. When the host's
//! [`Effects`](crate::Effects) mock some (tests) or record them only
//! (`--no-effects`), one flag test routes the effect through
//! [`Run::intercepted`] first: a mock answers in its place, a recording
//! only logs it, and anything else runs as usual.

use super::*;

impl<'a> Run<'a> {
    /// Runs effect `action` of `rule`; `Some` when the chain must stop.
    pub(super) fn effect(
        &mut self,
        rule: &RuleHead<'a>,
        action: &'a Action,
        scratch: &mut Scratch,
        ctx: &mut HookContext,
    ) -> Option<Stop> {
        // A flag test first: a live dispatch pays nothing more.
        if self.effects.intercepts() {
            return self.intercepted(rule, action, scratch, ctx);
        }
        self.run_effect(rule, action, scratch, ctx)
    }

    /// An effect under mocks or recording: the first mock that matches
    /// answers, else a recording logs it, else it runs.
    fn intercepted(
        &mut self,
        rule: &RuleHead<'a>,
        action: &'a Action,
        scratch: &mut Scratch,
        ctx: &mut HookContext,
    ) -> Option<Stop> {
        let mocks = self.effects.mocks();
        match action {
            Action::Exec { program, shell, .. } => {
                if let Some(mock) = mocks.command(*shell, program) {
                    let message = format!(
                        "mocked: {} (exit {})",
                        effect_text(action),
                        mock.exit_code()
                    );
                    note(rule, self.point.name(), message, scratch);
                    let label = if *shell { "sh" } else { program.as_str() };
                    return match mock.reply(label) {
                        Ok(reply) => self.reply(rule, reply, scratch, ctx),
                        Err(e) => self.fail(rule, &e, scratch),
                    };
                }
            }
            Action::Webhook { url, .. } => {
                if let Some(mock) = mocks.webhook(url) {
                    note(
                        rule,
                        self.point.name(),
                        format!("mocked: {}", effect_text(action)),
                        scratch,
                    );
                    // As a real one: a refused delivery is a warning, never
                    // a change of the outcome.
                    if let Some(e) = mock.refusal(url) {
                        scratch.warnings.push(format!("rule `{}`: {e}", rule.id()));
                    }
                    return None;
                }
            }
            _ => {}
        }
        if self.effects.is_recording_only() {
            let message = format!("not run (effects are off): {}", effect_text(action));
            note(rule, self.point.name(), message, scratch);
            return None;
        }
        self.run_effect(rule, action, scratch, ctx)
    }

    /// Runs an effect as written.
    fn run_effect(
        &mut self,
        rule: &RuleHead<'a>,
        action: &'a Action,
        scratch: &mut Scratch,
        ctx: &mut HookContext,
    ) -> Option<Stop> {
        match action {
            Action::Exec {
                program,
                args,
                shell,
            } => {
                let command = exec::Command {
                    program,
                    args,
                    shell: *shell,
                    point: self.point.name(),
                    rule: rule.id(),
                    timeout: rule.timeout_ms().map(Duration::from_millis),
                    deadline: self.deadline,
                    input: self.loaded.command_input(),
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
                    rule: rule.id(),
                    point: self.point.name(),
                    timeout: rule.timeout_ms().map(Duration::from_millis),
                };
                // A webhook never changes the outcome, whatever the
                // rule's failure mode: a delivery it cannot queue is a
                // warning.
                if let Err(e) = self.effects.webhooks().post(&post, ctx) {
                    tracing::warn!(rule = %rule.id(), "{e}");
                    scratch.warnings.push(format!("rule `{}`: {e}", rule.id()));
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
                    rule: rule.id(),
                    point: self.point.name(),
                };
                if let Err(e) = trace::append(self.effects.exec_config(), &line, ctx) {
                    if let Some(stop) = self.fail(rule, &e, scratch) {
                        return Some(stop);
                    }
                }
            }
            // Not an effect: handled by the action loop.
            _ => {}
        }
        None
    }

    /// Runs the native handler `name`.
    pub(super) fn call(
        &mut self,
        rule: &RuleHead,
        name: &str,
        scratch: &mut Scratch,
        ctx: &mut HookContext,
    ) -> Option<Stop> {
        let Some(handler) = self.effects.handler(name) else {
            return self.fail(rule, &EffectError::NoHandler(name.to_string()), scratch);
        };
        let timeout = rule.timeout_ms().map_or(
            self.effects.exec_config().default_timeout,
            Duration::from_millis,
        );
        let handler = Arc::clone(handler);
        self.invoke(
            ("rule", rule.id(), rule.fail()),
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
        rule: &RuleHead,
        code: &LuaCode,
        scratch: &mut Scratch,
        ctx: &mut HookContext,
    ) -> Option<Stop> {
        let timeout = rule.timeout_ms().map_or(
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
                    scratch.backup.keep(before);
                    scratch.invalidate();
                }
                self.act(rule.id(), action, scratch, ctx)
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
        rule: &RuleHead,
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
                let error = EffectError::Panicked {
                    name: name.to_string(),
                    message: panic_message(panic.as_ref()),
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
            scratch.backup.keep(before);
            scratch.invalidate();
        }
        self.act(id, action, scratch, ctx)
    }
}

/// An `info` line about an effect that did not run as written.
fn note(rule: &RuleHead, point: &str, message: String, scratch: &mut Scratch) {
    actions::emit_log(LogLevel::Info, rule.id(), point, &message);
    scratch.logs.push(LogLine {
        level: LogLevel::Info,
        rule: rule.id().to_owned(),
        message,
    });
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

/// What a caught panic said (its `&str` or `String` payload).
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a non-string panic".to_string())
}
