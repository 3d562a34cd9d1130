//! `unused-definition`: a list, pattern or macro that nothing uses.

use super::walk;
use super::{declare_lint, Cx, Sink};
use crate::check::names::{Def, DefKind};
use crate::diag::Diagnostic;
use crate::syntax::ast;
use std::collections::HashSet;

declare_lint! {
    /// ## What it does
    /// Finds `list`, `pattern` and `macro` definitions that no rule (and no
    /// test) uses, counting uses by every file compiled together: directly,
    /// through macros (a list used only by an unused macro is unused too),
    /// and through imports.
    ///
    /// Definitions in a file without rules are not reported: such a file is
    /// a library, meant to be imported, and linting it alone would report
    /// everything it defines.
    ///
    /// ## Why is this bad?
    /// An unused definition is dead code that readers still have to
    /// understand. Often it is left over from a rule that was removed, or the
    /// rule that should use it refers to another name by mistake.
    ///
    /// ## Example
    /// ```text
    /// list dangerous = ["rm -rf", "mkfs"]
    /// list risky = ["curl", "wget"]
    ///
    /// hook block on tool.pre_execute {
    ///     when payload.args contains any dangerous
    ///     abort "blocked"
    /// }
    /// ```
    ///
    /// `risky` is never used: remove it, or add the rule that was meant to
    /// use it.
    pub static UNUSED_DEFINITION = "unused-definition", Warn, check;
}

fn check(cx: &Cx<'_>, sink: &mut Sink<'_>) {
    if !cx.complete {
        return;
    }
    let mut used: HashSet<(usize, usize)> = HashSet::new();
    let mut work: Vec<Def> = Vec::new();
    let visit =
        |file: usize, item: &ast::Item, used: &mut HashSet<(usize, usize)>, work: &mut Vec<Def>| {
            for name in walk::item_names(item) {
                if let Some(def) = walk::resolve(cx.scopes, file, &name.name) {
                    if used.insert((def.file, def.item)) {
                        work.push(def);
                    }
                }
            }
        };
    for (fi, file) in cx.roots() {
        for item in &file.ast.items {
            if matches!(item, ast::Item::Hook(_) | ast::Item::Test(_)) {
                visit(fi, item, &mut used, &mut work);
            }
        }
    }
    while let Some(def) = work.pop() {
        if def.kind != DefKind::Macro {
            continue;
        }
        if let Some(item) = cx
            .loaded
            .files
            .get(def.file)
            .and_then(|f| f.ast.items.get(def.item))
        {
            visit(def.file, item, &mut used, &mut work);
        }
    }
    for (fi, file) in cx.roots() {
        if !file
            .ast
            .items
            .iter()
            .any(|i| matches!(i, ast::Item::Hook(_)))
        {
            continue;
        }
        for (ii, item) in file.ast.items.iter().enumerate() {
            let (kind, name, span) = match item {
                ast::Item::List(l) => (DefKind::List, &l.name, l.span),
                ast::Item::Pattern(p) => (DefKind::Pattern, &p.name, p.span),
                ast::Item::Macro(m) => (DefKind::Macro, &m.name, m.span),
                _ => continue,
            };
            let this = Def {
                kind,
                file: fi,
                item: ii,
            };
            // A second definition of a name is an error of its own.
            if walk::resolve(cx.scopes, fi, &name.name) != Some(this) || used.contains(&(fi, ii)) {
                continue;
            }
            let d = Diagnostic::warning(
                UNUSED_DEFINITION.code,
                format!("{} `{}` is never used", kind.as_str(), name.name),
            )
            .with_primary(name.span, "defined here")
            .with_help(format!(
                "remove it, or use it in a rule; a file without rules can hold {}s for other files to import",
                kind.as_str()
            ));
            sink.report(&UNUSED_DEFINITION, fi, &[(fi, span)], d);
        }
    }
}
