//! `glob-never-matches`: a `glob` on a field that is never a string.

use super::walk;
use super::{declare_lint, Cx, Sink};
use crate::diag::Diagnostic;
use crate::ir::Segment;
use crate::schema::FieldType;
use crate::syntax::ast;

declare_lint! {
    /// ## What it does
    /// Finds `glob` conditions on a field that the schema says is not a
    /// string at a point the rule runs at (an int, a bool, a list, an
    /// object). A glob tests strings only, so there it never matches.
    ///
    /// The checker already rejects a glob on a field that is not a string at
    /// every point of the rule; this lint catches a rule on several points
    /// where the field is a string at some and not at others, or is unknown
    /// at some, through macros too.
    ///
    /// ## Why is this bad?
    /// At those points the condition is always false, so the rule silently
    /// does nothing there (and an `unless` line always holds).
    ///
    /// ## Example
    /// ```text
    /// hook watch-subscriptions on bus.on_register, bus.on_unregister {
    ///     when payload.subscriptions glob "internal.*"
    ///     log warn "internal subscription change"
    /// }
    /// ```
    ///
    /// At `bus.on_register`, `payload.subscriptions` is a list; test it with
    /// `contains` there, in a rule of its own.
    pub static GLOB_NEVER_MATCHES = "glob-never-matches", Warn, check;
}

fn check(cx: &Cx<'_>, sink: &mut Sink<'_>) {
    for rule in cx.rules {
        let Some(hook) = cx.hook(rule) else { continue };
        let mut globs: Vec<(usize, &ast::Path, &ast::StrLit)> = Vec::new();
        walk::conditions_through_macros(cx.loaded, cx.scopes, rule.file, hook, &mut |file, e| {
            if let ast::ExprKind::Glob(lhs, glob) = &e.kind {
                if let ast::ExprKind::Path(path) = &lhs.kind {
                    globs.push((file, path, glob));
                }
            }
        });
        for (file, path, glob) in globs {
            let fields: Option<Vec<&str>> = path
                .segments
                .iter()
                .map(|s| match s {
                    Segment::Field(f) => Some(f.as_str()),
                    Segment::Index(_) => None,
                })
                .collect();
            let Some(fields) = fields else { continue };
            let bad: Vec<(&str, FieldType)> = rule
                .points
                .iter()
                .filter_map(|(point, _)| {
                    let ty = cx.schema.field_type(point, &path.root.name, &fields)?;
                    (!matches!(ty, FieldType::String | FieldType::Path | FieldType::Any))
                        .then_some((point.as_str(), ty))
                })
                .collect();
            if bad.is_empty() {
                continue;
            }
            let shown = std::iter::once(path.root.name.as_str())
                .chain(fields.iter().copied())
                .collect::<Vec<_>>()
                .join(".");
            let wheres = bad
                .iter()
                .map(|(p, t)| format!("`{p}` ({t})"))
                .collect::<Vec<_>>()
                .join(", ");
            let d = Diagnostic::warning(
                GLOB_NEVER_MATCHES.code,
                format!(
                    "glob `{}` never matches `{shown}` of rule `{}` at {wheres}",
                    glob.value, rule.id
                ),
            )
            .with_primary(path.span, "not a string there")
            .with_secondary(glob.span, "")
            .with_help("a glob tests strings only; test this field another way there, or keep the rule to the points where it is a string");
            let d = match cx.source(file) {
                Some(src) => d.in_file(src),
                None => d,
            };
            sink.report(&GLOB_NEVER_MATCHES, file, &[(rule.file, rule.span)], d);
        }
    }
}
