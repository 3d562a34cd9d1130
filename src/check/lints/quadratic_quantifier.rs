//! `quadratic-quantifier`: a quantifier inside another that goes over an
//! event list the outer element does not choose, so its work is the
//! product of two lists an event sizes.

use super::walk;
use super::{declare_lint, Cx, Sink};
use crate::diag::Diagnostic;
use crate::ir::Root;
use crate::syntax::ast;

declare_lint! {
    /// ## What it does
    /// Finds `any`/`all` quantifiers nested in another whose list is read
    /// from the event and does not depend on the outer quantifier's
    /// variable, such as `any a in payload.xs: any b in payload.ys: a == b`.
    ///
    /// ## Why is this bad?
    /// The inner list is gone through once per element of the outer one:
    /// the work is the product of their lengths, and the event chooses
    /// both. An agent that sends two lists of 100,000 elements makes one
    /// dispatch compare ten billion pairs. An inner list taken from the
    /// outer element (`any c in shell(cmd): any o in c.operands: …`) is
    /// fine: together they visit each element once.
    ///
    /// ## Example
    /// ```text
    /// hook shared-names on tool.pre_execute {
    ///     when any a in payload.allowed: any b in payload.requested: a == b
    ///     continue
    /// }
    /// ```
    ///
    /// Test membership instead (`any b in payload.requested: b in allowed`
    /// with a `list`), or bound the lists' lengths with `len(…)` first.
    pub static QUADRATIC_QUANTIFIER = "quadratic-quantifier", Warn, check;
}

fn check(cx: &Cx<'_>, sink: &mut Sink<'_>) {
    for rule in cx.rules {
        let Some(hook) = cx.hook(rule) else { continue };
        let mut found: Vec<(usize, &ast::Expr, &ast::Ident)> = Vec::new();
        walk::conditions_through_macros(cx.loaded, cx.scopes, rule.file, hook, &mut |file, e| {
            let ast::ExprKind::Quantifier(outer) = &e.kind else {
                return;
            };
            walk::exprs(&outer.body, &mut |inner| {
                if let ast::ExprKind::Quantifier(q) = &inner.kind {
                    if reads_event(&q.over) && !mentions(&q.over, &outer.var.name) {
                        found.push((file, &q.over, &outer.var));
                    }
                }
            });
        });
        for (file, over, var) in found {
            let d = Diagnostic::warning(
                QUADRATIC_QUANTIFIER.code,
                format!(
                    "rule `{}` goes through this event list once per element of `{}`'s list",
                    rule.id, var.name
                ),
            )
            .with_primary(over.span, "does not depend on the outer element")
            .with_secondary(var.span, "for each element of this quantifier")
            .with_help(
                "the work is the product of two lists the event sizes; test membership (`x in LIST`) or bound the lengths with `len(…)`",
            );
            let d = match cx.source(file) {
                Some(src) => d.in_file(src),
                None => d,
            };
            sink.report(&QUADRATIC_QUANTIFIER, file, &[(rule.file, rule.span)], d);
        }
    }
}

/// True when `e` reads a field of the event.
fn reads_event(e: &ast::Expr) -> bool {
    let mut found = false;
    walk::exprs(e, &mut |x| {
        if let ast::ExprKind::Path(p) = &x.kind {
            found |= Root::from_name(&p.root.name).is_some();
        }
    });
    found
}

/// True when `e` names the variable `var`.
fn mentions(e: &ast::Expr, var: &str) -> bool {
    let mut found = false;
    walk::exprs(e, &mut |x| match &x.kind {
        ast::ExprKind::Path(p) => found |= p.root.name == var,
        ast::ExprKind::Name(n) => found |= n.name == var,
        _ => {}
    });
    found
}
