//! `template-in-condition`: a `{path}` hole in a string a condition
//! compares, which is compared as written.

use super::walk;
use super::{declare_lint, Cx, Sink};
use crate::diag::Diagnostic;
use crate::ir::Root;
use crate::syntax::ast;

declare_lint! {
    /// ## What it does
    /// Finds string literals in conditions (through macros, and in the
    /// arrays a condition compares with) that hold a `{path}` hole naming
    /// a context field, such as `"{payload.user}"`.
    ///
    /// Strings in actions are templates: `{path}` is filled in with the
    /// field's value when the action runs. Strings in conditions are not:
    /// they are compared as written, braces included.
    ///
    /// ## Why is this bad?
    /// The condition almost certainly means the field's value, and compares
    /// with the text `{payload.user}` instead, which no event holds: the
    /// rule never fires (or, under `unless`, always does).
    ///
    /// ## Example
    /// ```text
    /// hook own-files-only on tool.pre_execute {
    ///     unless payload.path starts_with "/home/{principal.id}/"
    ///     abort "not your file"
    /// }
    /// ```
    ///
    /// Compare the fields themselves (`payload.owner == principal.id`), or,
    /// when the braces are meant, allow the lint on the rule
    /// (`# hookc: allow(template-in-condition)`).
    pub static TEMPLATE_IN_CONDITION = "template-in-condition", Warn, check;
}

fn check(cx: &Cx<'_>, sink: &mut Sink<'_>) {
    for rule in cx.rules {
        let Some(hook) = cx.hook(rule) else { continue };
        let mut found: Vec<(usize, &ast::StrLit, String)> = Vec::new();
        walk::conditions_through_macros(cx.loaded, cx.scopes, rule.file, hook, &mut |file, e| {
            if let ast::ExprKind::Str(lit) = &e.kind {
                if let Some(hole) = field_hole(&lit.value) {
                    found.push((file, lit, hole));
                }
            }
        });
        for (file, lit, hole) in found {
            let d = Diagnostic::warning(
                TEMPLATE_IN_CONDITION.code,
                format!(
                    "`{{{hole}}}` in a condition of rule `{}` is compared as written, not filled in",
                    rule.id
                ),
            )
            .with_primary(lit.span, "conditions do not fill in templates")
            .with_help(format!(
                "compare with the field itself (e.g. `== {hole}`); only strings in actions are templates"
            ));
            let d = match cx.source(file) {
                Some(src) => d.in_file(src),
                None => d,
            };
            sink.report(&TEMPLATE_IN_CONDITION, file, &[(rule.file, rule.span)], d);
        }
    }
}

/// The first `{path}` in `text` whose path starts with a context root
/// (`payload`, `principal`, `component`, …), without the braces.
fn field_hole(text: &str) -> Option<String> {
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        let after = rest.get(open + 1..)?;
        let close = after.find('}')?;
        let inner = after.get(..close)?.trim();
        let root = inner.split(['.', '[']).next().unwrap_or_default();
        let plain = inner
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '[' | ']'));
        if plain && Root::from_name(root).is_some() {
            return Some(inner.to_string());
        }
        rest = after;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::field_hole;

    #[test]
    fn holes_name_a_context_root() {
        assert_eq!(
            field_hole("/home/{principal.id}/"),
            Some("principal.id".into())
        );
        assert_eq!(
            field_hole("{payload.args[0]} x"),
            Some("payload.args[0]".into())
        );
        assert_eq!(field_hole("a {component}"), Some("component".into()));
        // Not a field: JSON, a glob-like alternation, an unknown root.
        assert_eq!(field_hole(r#"{"a": 1}"#), None);
        assert_eq!(field_hole("src/{a,b}"), None);
        assert_eq!(field_hole("{user}"), None);
        assert_eq!(field_hole("no braces"), None);
        assert_eq!(field_hole("{ unclosed"), None);
    }
}
