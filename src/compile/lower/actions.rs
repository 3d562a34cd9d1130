//! Actions: what each does, with its templates, values and paths lowered.

use super::*;
use crate::ir::{Action, LogLevel, LuaCode, Template};

impl<'a> Lowerer<'a, '_> {
    /// The IR of an action.
    pub(super) fn action(&mut self, action: &ast::Action) -> Option<Action> {
        use ast::ActionKind as A;
        Some(match &action.kind {
            A::Continue => Action::Continue,
            A::Abort(reason) => Action::Abort(match reason {
                Some(r) => self.template(r)?,
                None => Template::literal("denied by rule"),
            }),
            A::Skip(value) => Action::Skip(match value {
                Some(v) => self.expr(v, Strings::Templates)?,
                None => Expr::Const(Value::Null),
            }),
            A::Replace(value) => Action::Replace(self.expr(value, Strings::Templates)?),
            A::Set(path, value) => {
                let target = self.path(path);
                Action::Set(target?, self.expr(value, Strings::Templates)?)
            }
            A::Unset(path) => Action::Unset(self.path(path)?),
            A::Rewrite(path, re, replacement) => {
                let target = self.path(path);
                let id = self.regex_ref(re)?;
                Action::Rewrite(target?, id, replacement.value.clone())
            }
            A::Prepend(path, text) | A::Append(path, text) => {
                let target = self.path(path);
                let t = self.template(text)?;
                if matches!(action.kind, A::Prepend(..)) {
                    Action::Prepend(target?, t)
                } else {
                    Action::Append(target?, t)
                }
            }
            A::Meta(key, value) => {
                Action::Meta(key.value.clone(), self.expr(value, Strings::Templates)?)
            }
            A::Output(name, value) => {
                Action::Output(name.name.clone(), self.expr(value, Strings::Templates)?)
            }
            A::Log(level, message) => {
                Action::Log(LogLevel::from_name(&level.name)?, self.template(message)?)
            }
            A::Ask(reason) => Action::Ask(match reason {
                Some(r) => self.template(r)?,
                None => Template::literal("confirmation required by rule"),
            }),
            A::Allow => Action::Allow,
            A::Context(text) => Action::Context(self.template(text)?),
            A::Exec(program, args) => Action::Exec {
                program: program.value.clone(),
                args: args.iter().map(|a| a.value.clone()).collect(),
                shell: false,
            },
            A::Sh(script) => Action::Exec {
                program: script.value.clone(),
                args: Vec::new(),
                shell: true,
            },
            A::Webhook(w) => Action::Webhook {
                url: w.url.value.clone(),
                include: w
                    .include
                    .iter()
                    .map(|p| self.path(p))
                    .collect::<Option<Vec<_>>>()?,
                headers: w
                    .headers
                    .iter()
                    .map(|(name, value)| (name.value.clone(), value.value.clone()))
                    .collect(),
            },
            A::Call(name) => Action::Call(name.value.clone()),
            A::CallLua(file) => Action::Lua(LuaCode::File(file.value.clone())),
            A::Lua(code) => Action::Lua(LuaCode::Inline(code.value.clone())),
            A::Trace(file, fields) => Action::Trace {
                file: file.value.clone(),
                fields: fields
                    .iter()
                    .map(|p| self.path(p))
                    .collect::<Option<Vec<_>>>()?,
            },
        })
    }
}
