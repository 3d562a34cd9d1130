//! Quantifiers (`any c in LIST: e`, `all …`) and the variables they bind,
//! the names a rule's `when` and `let` lines bind, and the built-in
//! functions.

use super::*;
use crate::ir::{Func, Quantifier, Root};

/// A name a rule binds for its later lines and actions: a named regex
/// group (`when payload.x matches /(?P<file>\S+)/` binds `file`) or a
/// `let NAME = e` line; its value is an expression read where it is used.
#[derive(Clone, Debug)]
pub(super) struct Capture {
    name: String,
    value: Expr,
}

impl<'a> Lowerer<'a, '_> {
    /// `any c in LIST: e` / `all c in LIST: e`.
    pub(super) fn quantifier(&mut self, q: &ast::Quantifier, strings: Strings) -> Option<Expr> {
        let over = self.expr(&q.over, strings)?;
        self.vars.push(q.var.name.clone());
        let body = self.expr(&q.body, strings);
        self.vars.pop();
        let kind = match q.kind {
            ast::QuantifierKind::Any => Quantifier::Any,
            ast::QuantifierKind::All => Quantifier::All,
        };
        Some(Expr::Quantifier(kind, Box::new(over), Box::new(body?)))
    }

    /// The depth (0 innermost) of the variable `name` in scope.
    fn var(&self, name: &str) -> Option<u32> {
        let pos = self.vars.iter().rposition(|v| v == name)?;
        u32::try_from(self.vars.len() - 1 - pos).ok()
    }

    /// A bare variable, if `name` is one in scope.
    pub(super) fn bare_var(&self, name: &ast::Ident) -> Option<Expr> {
        Some(Expr::Var(self.var(&name.name)?, Vec::new()))
    }

    /// `c.program`, `c.redirects[0].target`: a path below a variable, or
    /// `None` when the path's root is not a variable.
    pub(super) fn var_path(&self, p: &ast::Path) -> Option<Expr> {
        Some(Expr::Var(self.var(&p.root.name)?, p.segments.clone()))
    }

    /// `name(args…)`: a built-in function.
    pub(super) fn call(
        &mut self,
        name: &ast::Ident,
        args: &[ast::Expr],
        strings: Strings,
    ) -> Option<Expr> {
        let func = Func::from_name(&name.name)?;
        let args = args
            .iter()
            .map(|arg| self.expr(arg, strings))
            .collect::<Option<Vec<_>>>()?;
        Some(Expr::Call(func, args))
    }

    /// Lowers a macro body with no variable or capture in scope: a macro
    /// means the same wherever it is used.
    pub(super) fn without_vars<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        let saved = std::mem::take(&mut self.vars);
        let captures = std::mem::take(&mut self.captures);
        let out = f(self);
        self.vars = saved;
        self.captures = captures;
        out
    }

    /// Binds the named groups of the regexes a `when` line's condition
    /// tests at its top level (`a matches /(?P<x>…)/ and …`): only those
    /// hold whenever the line does. A group whose name is taken is not
    /// bound (the type pass reported it).
    pub(super) fn bind_captures(&mut self, cond: &Expr) {
        match cond {
            Expr::Binary(BinaryOp::And, a, b) => {
                self.bind_captures(a);
                self.bind_captures(b);
            }
            Expr::Matches(subject, re) => {
                let names = self.group_names(*re);
                for name in names {
                    if self.name_taken(&name) {
                        continue;
                    }
                    self.captures.push(Capture {
                        value: Expr::Capture(subject.clone(), *re, name.clone()),
                        name,
                    });
                }
            }
            _ => {}
        }
    }

    /// The names of the named groups of regex `id`, as the type pass found
    /// them.
    fn group_names(&self, id: RegexId) -> Vec<String> {
        self.regexes
            .sources
            .get(id.0 as usize)
            .and_then(|source| self.cx.catalog.facts.get(source))
            .map_or_else(Vec::new, |facts| facts.groups.clone())
    }

    /// True when `name` already names something where the rule is.
    fn name_taken(&self, name: &str) -> bool {
        self.captures.iter().any(|c| c.name == name)
            || self.scope.contains_key(name)
            || Root::from_name(name).is_some()
            || Func::from_name(name).is_some()
    }

    /// `let NAME = e`: binds `NAME` for the rule's later lines and actions.
    pub(super) fn bind_let(&mut self, name: &ast::Ident, e: &ast::Expr) {
        let Some(value) = self.expr(e, Strings::Plain) else {
            return;
        };
        if self.name_taken(&name.name) {
            return;
        }
        self.captures.push(Capture {
            name: name.name.clone(),
            value,
        });
    }

    /// The value of the capture or `let` named `name`.
    pub(super) fn capture(&self, name: &str) -> Option<Expr> {
        let c = self.captures.iter().find(|c| c.name == name)?;
        Some(c.value.clone())
    }
}
