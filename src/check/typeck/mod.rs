//! The type pass: one rule's syntax tree against the schema and the names
//! in scope, with a diagnostic for every problem.
//!
//! One [`TypeChecker`] per rule walks its header, conditions and actions
//! and infers a static [`Ty`] for every expression, in the order the
//! lowering (`compile::lower`) later walks them, so that a rule that passes
//! here lowers without a problem left to find. Its methods are grouped by
//! what they check: conditions and their types (`expr`), field paths
//! against the schema (`fields`), regex, glob and template literals
//! (`literals`; the literals a regex needs, in `needs`), quantifier
//! variables, captures, `let` names and built-in functions (`bindings`),
//! actions and edits (`actions`), and the static types themselves
//! (`types`).

mod actions;
pub(super) mod bindings;
pub(crate) use literals::{hole_path, required_literal, ClassBounds};
mod expr;
mod fields;
mod literals;
pub(crate) mod needs;
mod types;

use types::Ty;

use super::names::{Def, DefKind, Scope};
use super::{RegexCatalog, TypedRule};
use crate::diag::suggest::suggest;
use crate::diag::{Diagnostic, Diagnostics};
use crate::fql::FqlPattern;
use crate::ir::{self, BinaryOp, FieldPath, LogLevel, RegexSource, Root, UnaryOp, MAX_RATE_LIMIT};
use crate::load::{LoadedFile, LoadedSources};
use crate::schema::{FieldLookup, FieldType, PointKind, Schema};
use crate::span::Span;
use crate::syntax::ast;
use serde_json::Value;

/// The longest accepted regex flags string.
const REGEX_FLAGS: &str = "imsxU";

/// Checks the names and types of one rule (or one `expect` condition).
pub(super) struct TypeChecker<'a, 'r> {
    pub(super) loaded: &'a LoadedSources,
    pub(super) file: usize,
    pub(super) scopes: &'r [Scope],
    pub(super) scope: &'r Scope,
    /// The `+=` extensions of every list, indexed once.
    pub(super) extensions: &'r super::overrides::ListExtensions<'a>,
    pub(super) schema: &'r Schema,
    pub(super) points: Vec<(String, PointKind)>,
    pub(super) regexes: &'r mut RegexCatalog,
    pub(super) diagnostics: &'r mut Diagnostics,
    pub(super) macro_stack: Vec<String>,
    /// The variables of the quantifiers around the expression being
    /// checked, innermost last.
    pub(super) vars: Vec<bindings::Var>,
    /// The names the named groups of the rule's earlier `when` lines bind.
    pub(super) captures: Vec<bindings::Capture>,
}

/// Whether string literals are plain values or `{path}` templates.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Strings {
    Plain,
    Templates,
}

impl<'a> TypeChecker<'a, '_> {
    fn src(&self) -> &'a LoadedFile {
        // INVARIANT: `file` indexes `loaded.files`; the fallback is never used.
        self.loaded
            .files
            .get(self.file)
            .or_else(|| self.loaded.files.first())
            .unwrap_or_else(|| unreachable_file())
    }

    fn error(
        &mut self,
        code: &'static str,
        message: impl Into<String>,
        span: Span,
        label: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic::error(code, message)
            .in_file(&self.src().source)
            .with_primary(span, label)
    }

    fn emit(&mut self, d: Diagnostic) {
        self.diagnostics.push(d);
    }

    /// The help for a target that does not parse: a bare name (`at Bash`)
    /// is told the scope it needs.
    fn fql_help(&self, target: &str) -> String {
        let bare = !target.is_empty()
            && !target.contains("::")
            && target
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '*'));
        match (&self.schema.component_scope, bare) {
            (Some(scope), true) => format!(
                "a target names a scope and a component: write `at {scope}::{target}` (the `{}` schema's components are `{scope}::…`)",
                self.schema.name
            ),
            (None, true) => format!(
                "a target names a scope and a component: write `at *::{target}` for `{target}` in any scope, or name the scope (`builtin::{target}`)"
            ),
            _ => "write `scope::target[/child_path][#instance]`, each part a name or `*`".to_owned(),
        }
    }

    /// Checks a rule: its points, target and options resolved, its
    /// conditions and actions typed. `None` when the rule has an error (or
    /// no point), so it is not compiled.
    pub(super) fn hook(&mut self, hook: &'a ast::Hook) -> Option<TypedRule<'a>> {
        // Only this rule's diagnostics are counted: counting all of them at
        // every rule would be quadratic in the number of findings.
        let first_new = self.diagnostics.0.len();
        // Points.
        for point in &hook.points {
            match self.schema.point(&point.name) {
                Some(def) => {
                    if self.points.iter().any(|(n, _)| *n == point.name) {
                        let d = Diagnostic::warning(
                            "duplicate-point",
                            format!("point `{}` is listed twice", point.name),
                        )
                        .in_file(&self.src().source)
                        .with_primary(point.span, "listed again here");
                        self.emit(d);
                    } else {
                        self.points.push((def.name.clone(), def.kind));
                    }
                }
                // The schema did not load (already reported): every point
                // would be unknown.
                None if self.schema.points.is_empty() => {}
                None => {
                    let mut d = self.error(
                        "unknown-point",
                        format!("unknown hook point `{}`", point.name),
                        point.span,
                        format!("not a point of the `{}` schema", self.schema.name),
                    );
                    d = super::unknown_point_help(d, &point.name, Some(point.span), self.schema);
                    self.emit(d);
                }
            }
        }
        // Target.
        let target = match &hook.target {
            None => FqlPattern::any(),
            Some(lit) => {
                let raw = self.src().source.slice(lit.span);
                let quoted = raw.starts_with('"');
                match FqlPattern::parse(&lit.value) {
                    Ok(p) => p,
                    Err(e) => {
                        let at = lit.span.start as usize + usize::from(quoted) + e.offset();
                        let span = Span::new(at, (at + 1).min(lit.span.end as usize).max(at));
                        let d = self
                            .error(
                                "invalid-fql",
                                format!("invalid FQL target `{}`", lit.value),
                                span,
                                e.kind().to_string(),
                            )
                            .with_secondary(lit.span, "")
                            .with_help(self.fql_help(&lit.value));
                        self.emit(d);
                        FqlPattern::any()
                    }
                }
            }
        };
        // Options.
        let mut priority = 100i32;
        let mut enabled = true;
        let mut fail = ir::FailMode::Open;
        let mut timeout_ms = None;
        let mut seen: Vec<(std::mem::Discriminant<ast::HookOptionKind>, Span)> = Vec::new();
        for opt in &hook.options {
            let disc = std::mem::discriminant(&opt.kind);
            if let Some((_, first)) = seen.iter().find(|(d, _)| *d == disc) {
                let first = *first;
                let d = self
                    .error(
                        "duplicate-option",
                        "option given twice",
                        opt.span,
                        "given again here",
                    )
                    .with_secondary(first, "first given here");
                self.emit(d);
                continue;
            }
            seen.push((disc, opt.span));
            match &opt.kind {
                ast::HookOptionKind::Priority(p) => match i32::try_from(*p) {
                    Ok(p) => priority = p,
                    Err(_) => {
                        let d = self.error(
                            "invalid-option",
                            format!("priority {p} is out of range"),
                            opt.span,
                            "too large",
                        );
                        self.emit(d.with_help("priorities are 32-bit integers; lower runs first"));
                    }
                },
                ast::HookOptionKind::Disabled => enabled = false,
                ast::HookOptionKind::Fail(mode) => fail = *mode,
                ast::HookOptionKind::Timeout(0) => {
                    let d = self.error(
                        "invalid-option",
                        "timeout must be greater than zero",
                        opt.span,
                        "zero timeout",
                    );
                    self.emit(d);
                }
                ast::HookOptionKind::Timeout(ms) => timeout_ms = Some(*ms),
            }
        }
        // Conditions, ANDed; `unless` negates. A `when` line's named regex
        // groups bind names for the lines and actions after it.
        self.captures.clear();
        for c in &hook.conditions {
            if let Some(name) = &c.binding {
                self.bind_let(name, &c.expr);
                continue;
            }
            if self.condition(&c.expr).is_some() && !c.negated {
                self.bind_captures(&c.expr, c.span);
            }
        }
        // Actions.
        for action in &hook.actions {
            self.action(action);
        }
        let new_errors = self.diagnostics.0.get(first_new..).is_some_and(|new| {
            new.iter()
                .any(|d| d.severity == crate::diag::Severity::Error)
        });
        if new_errors || self.points.is_empty() {
            return None;
        }
        let (line, col) = self.src().source.line_col(hook.span.start);
        Some(TypedRule {
            id: hook.id.name.clone(),
            points: std::mem::take(&mut self.points),
            target,
            priority,
            enabled,
            fail,
            timeout_ms,
            origin: ir::Origin {
                file: u32::try_from(self.file).unwrap_or(u32::MAX),
                line,
                col,
            },
            file: self.file,
            span: hook.header_span,
            hook,
        })
    }

    /// A condition: an expression that must be boolean.
    pub(super) fn condition(&mut self, e: &ast::Expr) -> Option<()> {
        match self.expr(e, Strings::Plain)? {
            Ty::Bool | Ty::Any => Some(()),
            other => {
                let d = self
                    .error(
                        "type-mismatch",
                        format!("a condition must be a boolean, this is {}", other.name()),
                        e.span,
                        "not a boolean",
                    )
                    .with_help("compare it, e.g. `== \"value\"`, or test it with `exists`");
                self.emit(d);
                None
            }
        }
    }
}

fn unreachable_file() -> &'static LoadedFile {
    static EMPTY: std::sync::OnceLock<LoadedFile> = std::sync::OnceLock::new();
    EMPTY.get_or_init(|| LoadedFile {
        source: crate::span::SourceFile::new("", ""),
        ast: ast::File { items: Vec::new() },
        root: false,
        imports: Vec::new(),
        path: None,
    })
}

/// `name[1][2]` → (`name`, [1, 2]).
fn split_index(part: &str) -> (&str, Vec<Option<u32>>) {
    match part.find('[') {
        None => (part, Vec::new()),
        Some(i) => {
            let name = part.get(..i).unwrap_or("");
            let rest = part.get(i..).unwrap_or("");
            let indices = rest
                .split('[')
                .skip(1)
                .map(|s| s.strip_suffix(']').and_then(|n| n.parse().ok()))
                .collect();
            (name, indices)
        }
    }
}

fn display_segments(segments: &[ir::Segment]) -> String {
    let path = FieldPath {
        root: Root::Payload,
        segments: segments.to_vec(),
        normalized: false,
    };
    path.to_string()
        .trim_start_matches("payload")
        .trim_start_matches('.')
        .to_string()
}
