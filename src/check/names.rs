//! Which lists, patterns and macros each file can see: its own, and those of
//! the files it imports (transitively).

use crate::diag::{Diagnostic, Diagnostics};
use crate::load::LoadedSources;
use crate::span::Span;
use crate::syntax::ast;
use std::collections::HashMap;

/// What a name stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DefKind {
    List,
    Pattern,
    Macro,
}

impl DefKind {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            DefKind::List => "list",
            DefKind::Pattern => "pattern",
            DefKind::Macro => "macro",
        }
    }
}

/// A definition: its kind, the file it is in and its item index there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Def {
    pub(crate) kind: DefKind,
    pub(crate) file: usize,
    pub(crate) item: usize,
}

/// The names one file can see.
pub(crate) type Scope = HashMap<String, Def>;

/// One scope per loaded file, by file index.
pub(crate) fn scopes(loaded: &LoadedSources, diagnostics: &mut Diagnostics) -> Vec<Scope> {
    let own: Vec<Scope> = loaded
        .files
        .iter()
        .enumerate()
        .map(|(fi, file)| {
            let mut scope = Scope::new();
            let mut spans: HashMap<String, Span> = HashMap::new();
            for (ii, item) in file.ast.items.iter().enumerate() {
                let (kind, name) = match item {
                    // `list NAME += […]` extends a list; it defines none.
                    ast::Item::List(l) if l.extends => continue,
                    ast::Item::List(l) => (DefKind::List, &l.name),
                    ast::Item::Pattern(p) => (DefKind::Pattern, &p.name),
                    ast::Item::Macro(m) => (DefKind::Macro, &m.name),
                    _ => continue,
                };
                if let Some(first) = spans.get(&name.name) {
                    diagnostics.push(
                        Diagnostic::error(
                            "duplicate-name",
                            format!("`{}` is defined twice", name.name),
                        )
                        .in_file(&file.source)
                        .with_primary(name.span, "defined again here")
                        .with_secondary(*first, "first defined here")
                        .with_help("lists, patterns and macros share one namespace per file"),
                    );
                    continue;
                }
                spans.insert(name.name.clone(), name.span);
                scope.insert(
                    name.name.clone(),
                    Def {
                        kind,
                        file: fi,
                        item: ii,
                    },
                );
            }
            scope
        })
        .collect();
    (0..loaded.files.len())
        .map(|fi| {
            let mut scope = own.get(fi).cloned().unwrap_or_default();
            let mut seen = vec![false; loaded.files.len()];
            let mut stack = vec![fi];
            while let Some(f) = stack.pop() {
                if std::mem::replace(seen.get_mut(f).unwrap_or(&mut true), true) {
                    continue;
                }
                let Some(file) = loaded.files.get(f) else {
                    continue;
                };
                for &import in file.imports.iter().flatten() {
                    if let Some(theirs) = own.get(import) {
                        for (name, def) in theirs {
                            scope.entry(name.clone()).or_insert(*def);
                        }
                    }
                    stack.push(import);
                }
            }
            scope
        })
        .collect()
}
