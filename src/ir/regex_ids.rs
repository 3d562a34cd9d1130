//! Every [`RegexId`] an expression, a template or an action holds, to
//! number again: the compiler lowers runs of rules on threads, each with
//! its own numbering of regexes, and then gives each regex its one number.
//!
//! The matches below name every variant, so that a new one that holds a
//! regex cannot be passed over.

use super::{Action, Expr, RateTest, RegexId, Template, TemplatePart};

impl Expr {
    /// Calls `f` on each regex this expression uses, its sub-expressions'
    /// and its templates' included.
    pub(crate) fn each_regex_mut(&mut self, f: &mut dyn FnMut(&mut RegexId)) {
        match self {
            Expr::Matches(_, id) | Expr::Capture(_, id, _) => f(id),
            Expr::Template(template) | Expr::Rate(RateTest { key: template, .. }) => {
                template.each_regex_mut(f);
            }
            Expr::Const(_)
            | Expr::Path(_)
            | Expr::Array(_)
            | Expr::Object(_)
            | Expr::Unary(..)
            | Expr::Binary(..)
            | Expr::In(..)
            | Expr::ContainsAny(..)
            | Expr::Exists(_)
            | Expr::Quantifier(..)
            | Expr::Var(..)
            | Expr::Call(..)
            | Expr::WordsAny(..)
            | Expr::Let(..)
            | Expr::InSet(..) => {}
        }
        self.each_child_mut(|child, _| child.each_regex_mut(f));
    }
}

impl Template {
    /// Calls `f` on each regex the template's holes use.
    pub(crate) fn each_regex_mut(&mut self, f: &mut dyn FnMut(&mut RegexId)) {
        for part in &mut self.parts {
            match part {
                TemplatePart::Expr(e) => e.each_regex_mut(f),
                TemplatePart::Lit(_) | TemplatePart::Path(_) => {}
            }
        }
    }
}

impl Action {
    /// Calls `f` on each regex the action uses, in its expression or its
    /// template too.
    pub(crate) fn each_regex_mut(&mut self, f: &mut dyn FnMut(&mut RegexId)) {
        match self {
            Action::Rewrite(_, id, _) => f(id),
            Action::Abort(t)
            | Action::Prepend(_, t)
            | Action::Append(_, t)
            | Action::Log(_, t)
            | Action::Ask(t)
            | Action::Context(t) => t.each_regex_mut(f),
            Action::Skip(e)
            | Action::Replace(e)
            | Action::Set(_, e)
            | Action::Meta(_, e)
            | Action::Output(_, e) => e.each_regex_mut(f),
            Action::Continue
            | Action::Unset(_)
            | Action::Allow
            | Action::Exec { .. }
            | Action::Webhook { .. }
            | Action::Call(_)
            | Action::Lua(_)
            | Action::Trace { .. } => {}
        }
    }
}
