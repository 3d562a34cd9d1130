//! Composing packs: a file changes what another file (a pack) defines
//! without editing it. `list NAME += […]` adds elements to a list the file
//! defines or imports, everywhere the list is used; `override ID OPTIONS`
//! gives a compiled rule new options (`priority`, `disabled`, `fail`,
//! `timeout`), applied before the lints run, so they judge the policy as it
//! will run.

use super::names::{DefKind, Scope};
use super::TypedRule;
use crate::diag::suggest::suggest;
use crate::diag::{Diagnostic, Diagnostics};
use crate::load::{LoadedFile, LoadedSources};
use crate::span::Span;
use crate::syntax::ast;
use std::collections::HashMap;

/// Every `list NAME += […]` must name a list its file can see.
pub(super) fn check_extensions(
    loaded: &LoadedSources,
    scopes: &[Scope],
    diagnostics: &mut Diagnostics,
) {
    for (fi, file) in loaded.files.iter().enumerate() {
        let Some(scope) = scopes.get(fi) else {
            continue;
        };
        for item in &file.ast.items {
            let ast::Item::List(list) = item else {
                continue;
            };
            if !list.extends {
                continue;
            }
            let name = &list.name;
            match scope.get(&name.name) {
                Some(def) if def.kind == DefKind::List => {}
                Some(def) => diagnostics.push(
                    Diagnostic::error(
                        "wrong-kind",
                        format!("`{}` is a {}, not a list", name.name, def.kind.as_str()),
                    )
                    .in_file(&file.source)
                    .with_primary(name.span, "only a list can be extended")
                    .with_help("`+=` adds elements to a `list`"),
                ),
                None => {
                    let lists = scope
                        .iter()
                        .filter(|(_, d)| d.kind == DefKind::List)
                        .map(|(n, _)| n.as_str());
                    let mut d = Diagnostic::error(
                        "unknown-name",
                        format!("no list `{}` to extend", name.name),
                    )
                    .in_file(&file.source)
                    .with_primary(name.span, "not defined or imported here");
                    d = match suggest(&name.name, lists) {
                        Some(s) => d.with_suggestion(name.span, s),
                        None => d.with_help(
                            "import the file that defines it, or define it with `list NAME = […]`",
                        ),
                    };
                    diagnostics.push(d);
                }
            }
        }
    }
}

/// The elements the `+=` extensions add to each list, found in one pass
/// over the files: a list is read at every use, and searching every item
/// of every file there would be quadratic in the size of the rule set.
#[derive(Default)]
pub(crate) struct ListExtensions<'a> {
    /// By the defining item (file, item): the elements, in file order, each
    /// with the file it is written in.
    by_list: HashMap<(usize, usize), Vec<(&'a LoadedFile, &'a ast::Expr)>>,
}

impl<'a> ListExtensions<'a> {
    /// Every `+=` extension of `loaded`, keyed by the list it extends.
    pub(super) fn new(loaded: &'a LoadedSources, scopes: &[Scope]) -> ListExtensions<'a> {
        let mut by_list: HashMap<_, Vec<_>> = HashMap::new();
        for (fi, f) in loaded.files.iter().enumerate() {
            for it in &f.ast.items {
                let ast::Item::List(list) = it else {
                    continue;
                };
                if !list.extends {
                    continue;
                }
                if let Some(target) = scopes.get(fi).and_then(|s| s.get(&list.name.name)) {
                    by_list
                        .entry((target.file, target.item))
                        .or_default()
                        .extend(list.items.iter().map(|e| (f, e)));
                }
            }
        }
        ListExtensions { by_list }
    }

    /// The elements the extensions of the list defined at item `item` of
    /// file `file` add.
    pub(crate) fn of(&self, file: usize, item: usize) -> &[(&'a LoadedFile, &'a ast::Expr)] {
        self.by_list.get(&(file, item)).map_or(&[], Vec::as_slice)
    }
}

/// Which option of a rule an override sets, for conflicts.
fn option_name(kind: &ast::HookOptionKind) -> &'static str {
    match kind {
        ast::HookOptionKind::Priority(_) => "priority",
        ast::HookOptionKind::Disabled => "disabled",
        ast::HookOptionKind::Fail(_) => "fail",
        ast::HookOptionKind::Timeout(_) => "timeout",
    }
}

/// Applies the `override` items of the root files to `rules`: an override
/// of a rule that is not compiled, or two overrides of one option of a
/// rule, are errors; an override in a file that is only imported is not
/// applied, and says so.
pub(super) fn apply(
    loaded: &LoadedSources,
    rules: &mut [TypedRule<'_>],
    diagnostics: &mut Diagnostics,
) {
    let mut set: HashMap<(String, &'static str), (usize, Span)> = HashMap::new();
    for (fi, file) in loaded.files.iter().enumerate() {
        for item in &file.ast.items {
            let ast::Item::Override(o) = item else {
                continue;
            };
            if !file.root {
                diagnostics.push(
                    Diagnostic::warning(
                        "imported-rules",
                        format!(
                            "the override of `{}` in imported file `{}` is not applied",
                            o.id.name, file.source.name
                        ),
                    )
                    .in_file(&file.source)
                    .with_primary(o.span, "not applied")
                    .with_help("name the file on the command line to apply its overrides"),
                );
                continue;
            }
            let Some(rule) = rules.iter_mut().find(|r| r.id == o.id.name) else {
                let mut d = Diagnostic::error(
                    "unknown-rule",
                    format!("no rule `{}` to override", o.id.name),
                )
                .in_file(&file.source)
                .with_primary(o.id.span, "not a rule of the compiled files");
                d = match suggest(&o.id.name, rules.iter().map(|r| r.id.as_str())) {
                    Some(s) => d.with_suggestion(o.id.span, s),
                    None => d.with_help("compile the file that defines the rule with this one"),
                };
                diagnostics.push(d);
                continue;
            };
            for option in &o.options {
                let key = (o.id.name.clone(), option_name(&option.kind));
                if let Some((first_file, first_span)) = set.get(&key) {
                    let mut d = Diagnostic::error(
                        "conflicting-override",
                        format!("`{}` of rule `{}` is overridden twice", key.1, o.id.name),
                    )
                    .in_file(&file.source)
                    .with_primary(option.span, "overridden again here");
                    if *first_file == fi {
                        d = d.with_secondary(*first_span, "first overridden here");
                    }
                    diagnostics.push(d.with_help("keep one override of each option"));
                    continue;
                }
                set.insert(key, (fi, option.span));
                let invalid = |message: String, label: &str| {
                    Diagnostic::error("invalid-option", message)
                        .in_file(&file.source)
                        .with_primary(option.span, label)
                };
                match &option.kind {
                    ast::HookOptionKind::Priority(n) => match i32::try_from(*n) {
                        Ok(p) => rule.priority = p,
                        Err(_) => diagnostics.push(
                            invalid(format!("priority {n} is out of range"), "too large")
                                .with_help("priorities are 32-bit integers; lower runs first"),
                        ),
                    },
                    ast::HookOptionKind::Disabled => rule.enabled = false,
                    ast::HookOptionKind::Fail(mode) => rule.fail = *mode,
                    ast::HookOptionKind::Timeout(0) => diagnostics.push(invalid(
                        "timeout must be greater than zero".to_string(),
                        "zero timeout",
                    )),
                    ast::HookOptionKind::Timeout(ms) => rule.timeout_ms = Some(*ms),
                }
            }
        }
    }
}
