//! `empty-list`: a list with no elements.

use super::{declare_lint, Cx, Sink};
use crate::diag::Diagnostic;
use crate::syntax::ast;

declare_lint! {
    /// ## What it does
    /// Finds lists defined with no elements: `list x = []`.
    ///
    /// ## Why is this bad?
    /// Nothing is `in` an empty list and nothing `contains any` of it, so
    /// every condition that uses it is false. Usually the elements were
    /// forgotten, or moved to another list.
    ///
    /// ## Example
    /// ```text
    /// list blocked_tools = []
    ///
    /// hook block on tool.pre_execute {
    ///     when payload.tool in blocked_tools
    ///     abort "blocked"
    /// }
    /// ```
    ///
    /// The rule never fires. Fill in the list, or remove it and the rule.
    pub static EMPTY_LIST = "empty-list", Warn, check;
}

fn check(cx: &Cx<'_>, sink: &mut Sink<'_>) {
    for (fi, file) in cx.roots() {
        for item in &file.ast.items {
            let ast::Item::List(list) = item else {
                continue;
            };
            if !list.items.is_empty() {
                continue;
            }
            let d = Diagnostic::warning(
                EMPTY_LIST.code,
                format!("list `{}` is empty", list.name.name),
            )
            .with_primary(list.span, "no elements")
            .with_help(
                "conditions on an empty list are always false; add its elements or remove it",
            );
            sink.report(&EMPTY_LIST, fi, &[(fi, list.span)], d);
        }
    }
}
