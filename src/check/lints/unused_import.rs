//! `unused-import`: an import none of whose definitions the file uses.

use super::walk;
use super::{declare_lint, Cx, Sink};
use crate::diag::Diagnostic;
use crate::syntax::ast;
use std::collections::HashSet;

declare_lint! {
    /// ## What it does
    /// Finds an `import` none of whose lists, patterns and macros the
    /// importing file uses, in its rules or in its own macros. What an
    /// import brings includes what the imported file imports in turn; a name
    /// the file defines itself, or that an earlier import already brings,
    /// does not count as a use of the later import.
    ///
    /// ## Why is this bad?
    /// An import that brings nothing used is noise, and it makes the file
    /// depend on another file for no reason: deleting or renaming that file
    /// breaks this one.
    ///
    /// ## Example
    /// ```text
    /// import "common.hooks"
    ///
    /// hook audit on request.pre_dispatch {
    ///     log info "request {payload.operation}"
    /// }
    /// ```
    ///
    /// The rule uses nothing from `common.hooks`: remove the import.
    pub static UNUSED_IMPORT = "unused-import", Warn, check;
}

fn check(cx: &Cx<'_>, sink: &mut Sink<'_>) {
    if !cx.complete {
        return;
    }
    for (fi, file) in cx.roots() {
        // A file without imports has none to find unused: its names are
        // not walked (they are most of a large policy's text).
        if file.imports.is_empty() {
            continue;
        }
        // The files whose definitions this file's names resolve to.
        let mut from: HashSet<usize> = HashSet::new();
        for item in &file.ast.items {
            for name in walk::item_names(item) {
                if let Some(def) = walk::resolve(cx.scopes, fi, &name.name) {
                    from.insert(def.file);
                }
            }
        }
        let imports = file.ast.items.iter().filter_map(|item| match item {
            ast::Item::Import(import) => Some(import),
            _ => None,
        });
        for (import, target) in imports.zip(&file.imports) {
            let Some(target) = *target else { continue };
            if reach(cx, target).iter().any(|f| from.contains(f)) {
                continue;
            }
            let d = Diagnostic::warning(
                UNUSED_IMPORT.code,
                format!("nothing from `{}` is used", import.path.value),
            )
            .with_primary(import.span, "imported here")
            .with_help("remove the import; this file uses none of its lists, patterns or macros");
            sink.report(&UNUSED_IMPORT, fi, &[(fi, import.span)], d);
        }
    }
}

/// A file and every file it imports, transitively.
fn reach(cx: &Cx<'_>, start: usize) -> Vec<usize> {
    let mut seen = vec![start];
    let mut stack = vec![start];
    while let Some(f) = stack.pop() {
        let Some(file) = cx.loaded.files.get(f) else {
            continue;
        };
        for &next in file.imports.iter().flatten() {
            if !seen.contains(&next) {
                seen.push(next);
                stack.push(next);
            }
        }
    }
    seen
}
