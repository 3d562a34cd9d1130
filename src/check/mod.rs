//! Name resolution, type checks and lowering: parsed files in, checked rules
//! out.
//!
//! [`check`] walks every root file's rules once. It resolves hook points
//! against the schema, FQL targets, macro/list/pattern names (the file's own
//! and its imports'), checks types where the schema knows them, validates
//! regexes and templates, and lowers conditions and actions to the IR's
//! expression form. Every problem is a [`Diagnostic`]; all of them are
//! collected, none stops the walk.

mod lower;
mod names;

use crate::diag::{Diagnostic, Diagnostics};
use crate::fql::FqlPattern;
use crate::ir::{self, FailMode, Origin, RegexSource};
use crate::load::Loaded;
use crate::schema::{PointKind, Schema};
use crate::span::Span;
use crate::syntax::ast;
use std::collections::HashMap;

pub use names::suggest;

/// One rule after checking: resolved, typed and lowered.
#[derive(Clone, Debug)]
pub struct CheckedRule {
    /// The rule's id.
    pub id: String,
    /// Its points with their kinds, in the order written.
    pub points: Vec<(String, PointKind)>,
    /// Its target.
    pub target: FqlPattern,
    /// Lower runs first.
    pub priority: i32,
    /// False for `disabled` rules.
    pub enabled: bool,
    /// What a failing effect does.
    pub fail: FailMode,
    /// The `timeout` option, in milliseconds.
    pub timeout_ms: Option<u64>,
    /// The ANDed `when`/`unless` lines as one boolean expression.
    pub cond: Option<ir::Expr>,
    /// The actions.
    pub actions: Vec<ir::Action>,
    /// Where the rule is written.
    pub origin: Origin,
    /// The index of its file in the [`Loaded`] files.
    pub file: usize,
    /// The rule's header span, for diagnostics about the whole rule.
    pub span: Span,
}

/// The result of checking: rules ready to compile, and every finding.
#[derive(Clone, Debug, Default)]
pub struct Checked {
    /// The schema's name.
    pub schema: String,
    /// Rules of the root files, in declaration order.
    pub rules: Vec<CheckedRule>,
    /// Regexes the rules use, each once.
    pub regexes: Vec<RegexSource>,
    /// File names, indexed by [`Origin::file`].
    pub files: Vec<String>,
    /// Errors, warnings and notes.
    pub diagnostics: Diagnostics,
}

/// Checks every root file of a load.
pub fn check(loaded: &Loaded) -> Checked {
    let mut checked = Checked {
        files: loaded
            .files
            .iter()
            .map(|f| f.source.name.to_string())
            .collect(),
        ..Checked::default()
    };
    let schema = resolve_schema(loaded, &mut checked.diagnostics);
    checked.schema = schema.name.clone();
    let scopes = names::scopes(loaded, &mut checked.diagnostics);
    let mut regexes = lower::Regexes::default();
    let mut ids: HashMap<String, (usize, Span)> = HashMap::new();
    for (fi, file) in loaded.files.iter().enumerate() {
        let hooks = file.ast.items.iter().filter_map(|item| match item {
            ast::Item::Hook(h) => Some(h),
            _ => None,
        });
        if !file.root {
            if let Some(first) = hooks.clone().next() {
                checked.diagnostics.push(
                    Diagnostic::warning(
                        "imported-rules",
                        format!("rules in imported file `{}` are not compiled", file.source.name),
                    )
                    .in_file(&file.source)
                    .with_primary(first.header_span, "this rule is ignored")
                    .with_help("an import brings lists, patterns and macros; name the file on the command line to compile its rules"),
                );
            }
            continue;
        }
        let Some(scope) = scopes.get(fi) else {
            continue;
        };
        for hook in hooks {
            if let Some((first_file, first_span)) = ids.get(&hook.id.name) {
                let mut d = Diagnostic::error(
                    "duplicate-id",
                    format!("duplicate hook id `{}`", hook.id.name),
                )
                .in_file(&file.source)
                .with_primary(hook.id.span, "defined again here");
                if *first_file == fi {
                    d = d.with_secondary(*first_span, "first defined here");
                } else if let Some(other) = loaded.files.get(*first_file) {
                    let (line, col) = other.source.line_col(first_span.start);
                    d = d.with_help(format!(
                        "first defined at {}:{line}:{col}; hook ids must be unique across the compiled set",
                        other.source.name
                    ));
                }
                checked
                    .diagnostics
                    .push(d.with_help_if_none("hook ids must be unique across the compiled set"));
            } else {
                ids.insert(hook.id.name.clone(), (fi, hook.id.span));
            }
            let mut cx = lower::Lowerer {
                loaded,
                file: fi,
                scopes: &scopes,
                scope,
                schema: &schema,
                points: Vec::new(),
                regexes: &mut regexes,
                diagnostics: &mut checked.diagnostics,
                macro_stack: Vec::new(),
            };
            if let Some(rule) = cx.hook(hook) {
                checked.rules.push(rule);
            }
        }
    }
    checked.regexes = regexes.into_sources();
    checked
}

fn resolve_schema(loaded: &Loaded, diagnostics: &mut Diagnostics) -> Schema {
    let mut chosen: Option<(Schema, usize, Span)> = None;
    for (fi, file) in loaded.files.iter().enumerate().filter(|(_, f)| f.root) {
        for item in &file.ast.items {
            let ast::Item::Schema(decl) = item else {
                continue;
            };
            let schema = match &decl.schema {
                ast::SchemaRef::Builtin(name) => match Schema::builtin(&name.name) {
                    Some(s) => s,
                    None => {
                        let mut d = Diagnostic::error(
                            "unknown-schema",
                            format!("unknown schema `{}`", name.name),
                        )
                        .in_file(&file.source)
                        .with_primary(name.span, "not a built-in schema");
                        d = match suggest(&name.name, Schema::BUILTIN.iter().copied()) {
                            Some(s) => d.with_help(format!("did you mean `{s}`?")),
                            None => d.with_help(format!(
                                "built-in schemas: {}",
                                Schema::BUILTIN.join(", ")
                            )),
                        };
                        diagnostics.push(d);
                        continue;
                    }
                },
                ast::SchemaRef::Path(path) => {
                    diagnostics.push(
                        Diagnostic::error(
                            "unsupported-schema",
                            format!("custom schema `{}` is not supported yet", path.value),
                        )
                        .in_file(&file.source)
                        .with_primary(path.span, "schema files are not read by this version")
                        .with_help(format!(
                            "use a built-in schema: {}",
                            Schema::BUILTIN.join(", ")
                        )),
                    );
                    continue;
                }
            };
            match &chosen {
                Some((first, ffi, fspan)) if first.name != schema.name => {
                    let mut d = Diagnostic::error(
                        "schema-conflict",
                        format!(
                            "schema `{}` conflicts with schema `{}`",
                            schema.name, first.name
                        ),
                    )
                    .in_file(&file.source)
                    .with_primary(decl.span, "declared here");
                    if *ffi == fi {
                        d = d.with_secondary(*fspan, "first declared here");
                    }
                    diagnostics
                        .push(d.with_help("all files compiled together must use one schema"));
                }
                Some(_) => {}
                None => chosen = Some((schema, fi, decl.span)),
            }
        }
    }
    chosen
        .map(|(s, _, _)| s)
        .or_else(|| Schema::builtin("orcs"))
        .unwrap_or_else(|| Schema {
            name: "orcs".to_string(),
            points: Vec::new(),
        })
}

trait HelpIfNone {
    fn with_help_if_none(self, help: &str) -> Self;
}

impl HelpIfNone for Diagnostic {
    fn with_help_if_none(self, help: &str) -> Diagnostic {
        if self.help.is_some() {
            self
        } else {
            self.with_help(help)
        }
    }
}

#[cfg(test)]
mod tests;
