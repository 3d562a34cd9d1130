//! Quantifiers (`any c in LIST: e`, `all …`), the variables they bind, and
//! the built-in functions (`shell(…)`, `lower(…)`, …).
//!
//! A variable is known by its shape where the checker can know it: the
//! elements of `shell(…)` are commands with fixed fields, a command's
//! `redirects` are redirections, its word lists hold strings. A field a
//! shape does not have is an error with a suggestion; elements of any other
//! list are of any type.

use super::*;
use crate::ir::{Func, Segment};

/// What the checker knows of a variable's values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Shape {
    /// A simple command of a shell view.
    Command,
    /// A redirection of a command.
    Redirect,
    /// A string.
    Str,
    /// Nothing.
    Any,
}

/// A variable in scope: its name and shape, innermost last.
#[derive(Clone, Debug)]
pub(in crate::check) struct Var {
    name: String,
    shape: Shape,
}

/// A name a rule binds for its later lines and actions: a named regex
/// group (`when payload.x matches /(?P<file>\S+)/` binds `file`) or a
/// `let NAME = e` line.
#[derive(Clone, Debug)]
pub(in crate::check) struct Capture {
    name: String,
    ty: Ty,
    /// The names a `when NAME` line binds in turn: the groups of the
    /// regexes a `let` value tests at its top level (none for a group).
    binds: Vec<String>,
}

/// The fields of a command of a shell view, with their types (see
/// [`crate::shell::Command`]).
const COMMAND_FIELDS: &[(&str, Ty)] = &[
    ("program", Ty::String),
    ("name", Ty::String),
    ("args", Ty::List),
    ("flags", Ty::List),
    ("operands", Ty::List),
    ("globs", Ty::List),
    ("redirects", Ty::List),
    ("assignments", Ty::List),
    ("wrappers", Ty::List),
    ("dynamic", Ty::Bool),
    ("recursive", Ty::Bool),
    ("error", Ty::Any),
];

/// The fields of a command of a shell view (`any c in shell(…):
/// c.program`), with their types in words, for editors.
pub fn command_fields() -> impl Iterator<Item = (&'static str, &'static str)> {
    COMMAND_FIELDS.iter().map(|&(name, ty)| (name, ty.name()))
}

/// The fields of a redirection (`any r in c.redirects: r.target`), with
/// their types in words, for editors.
pub fn redirect_fields() -> impl Iterator<Item = (&'static str, &'static str)> {
    REDIRECT_FIELDS.iter().map(|&(name, ty)| (name, ty.name()))
}

/// The fields of a redirection.
const REDIRECT_FIELDS: &[(&str, Ty)] = &[("op", Ty::String), ("target", Ty::String)];

impl Shape {
    fn fields(self) -> Option<&'static [(&'static str, Ty)]> {
        match self {
            Shape::Command => Some(COMMAND_FIELDS),
            Shape::Redirect => Some(REDIRECT_FIELDS),
            Shape::Str | Shape::Any => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Shape::Command => "a command",
            Shape::Redirect => "a redirection",
            Shape::Str => "a string",
            Shape::Any => "a value",
        }
    }

    /// The type of the whole value.
    fn ty(self) -> Ty {
        match self {
            Shape::Command | Shape::Redirect => Ty::Object,
            Shape::Str => Ty::String,
            Shape::Any => Ty::Any,
        }
    }
}

impl<'a> TypeChecker<'a, '_> {
    /// `any c in LIST: e` / `all c in LIST: e`.
    pub(super) fn quantifier(&mut self, q: &ast::Quantifier, strings: Strings) -> Option<()> {
        let ty = self.expr(&q.over, strings)?;
        if !matches!(ty, Ty::List | Ty::Any) {
            let d = self
                .error(
                    "type-mismatch",
                    format!("`{}` needs a list, this is {}", q.kind.as_str(), ty.name()),
                    q.over.span,
                    "not a list",
                )
                .with_help(
                    "e.g. `any c in shell(payload.tool_input.command): c.program == \"rm\"`",
                );
            self.emit(d);
            return None;
        }
        if Root::from_name(&q.var.name).is_some() || self.scope.contains_key(&q.var.name) {
            let d = self
                .error(
                    "shadowed-name",
                    format!("`{}` already names something else", q.var.name),
                    q.var.span,
                    "the variable would hide it",
                )
                .with_help("choose another name for the variable");
            self.emit(d);
            return None;
        }
        let shape = self.element_shape(&q.over);
        self.vars.push(Var {
            name: q.var.name.clone(),
            shape,
        });
        let body = self.expr(&q.body, strings);
        self.vars.pop();
        let body_ty = body?;
        if !matches!(body_ty, Ty::Bool | Ty::Any) {
            let d = self
                .error(
                    "type-mismatch",
                    format!(
                        "the condition of `{}` must be a boolean, this is {}",
                        q.kind.as_str(),
                        body_ty.name()
                    ),
                    q.body.span,
                    "not a condition",
                )
                .with_help(format!("e.g. `{}.program == \"rm\"`", q.var.name));
            self.emit(d);
            return None;
        }
        Some(())
    }

    /// The shape of the elements of the list `over`, as far as it shows.
    fn element_shape(&self, over: &ast::Expr) -> Shape {
        match &over.kind {
            ast::ExprKind::Call(name, _) if name.name == Func::Shell.as_str() => Shape::Command,
            ast::ExprKind::Path(p) => match (self.var(&p.root.name), p.segments.as_slice()) {
                (Some(Shape::Command), [Segment::Field(f)]) => match f.as_str() {
                    "redirects" => Shape::Redirect,
                    "args" | "flags" | "operands" | "globs" | "assignments" | "wrappers" => {
                        Shape::Str
                    }
                    _ => Shape::Any,
                },
                _ => Shape::Any,
            },
            _ => Shape::Any,
        }
    }

    /// The shape of the variable `name` in scope (the innermost of that
    /// name).
    fn var(&self, name: &str) -> Option<Shape> {
        Some(self.vars.iter().rev().find(|v| v.name == name)?.shape)
    }

    /// The type of a bare variable, if `name` is one in scope.
    pub(super) fn bare_var(&self, name: &ast::Ident) -> Option<Ty> {
        Some(self.var(&name.name)?.ty())
    }

    /// `c.program`, `c.redirects[0].target`: a path below a variable, or
    /// `None` (nothing emitted) when the path's root is not a variable.
    pub(super) fn var_path(&mut self, p: &ast::Path) -> Option<Option<Ty>> {
        let shape = self.var(&p.root.name)?;
        let ty = match (shape.fields(), p.segments.first()) {
            (_, None) => shape.ty(),
            (None, Some(_)) if shape == Shape::Any => Ty::Any,
            (None, Some(_)) => {
                let d = self
                    .error(
                        "unknown-field",
                        format!("`{}` is {}: it has no fields", p.root.name, shape.name()),
                        p.span,
                        "no such field",
                    )
                    .with_help(format!(
                        "compare it as it is, e.g. `{} == \"-r\"`",
                        p.root.name
                    ));
                self.emit(d);
                return Some(None);
            }
            (Some(fields), Some(first)) => {
                let found = match first {
                    Segment::Field(f) => fields.iter().find(|(name, _)| name == f),
                    Segment::Index(_) => None,
                };
                match found {
                    Some((_, ty)) if p.segments.len() == 1 => *ty,
                    Some(_) => Ty::Any,
                    None => {
                        let written = match first {
                            Segment::Field(f) => f.clone(),
                            Segment::Index(i) => format!("[{i}]"),
                        };
                        let names = fields.iter().map(|(name, _)| *name);
                        let mut d = self.error(
                            "unknown-field",
                            format!("{} has no field `{written}`", shape.name()),
                            p.span,
                            "no such field",
                        );
                        let all: Vec<&str> = names.clone().collect();
                        d = match suggest(&written, names) {
                            Some(s) => d.with_help(format!("did you mean `{s}`?")),
                            None => d.with_help(format!("its fields: {}", all.join(", "))),
                        };
                        self.emit(d);
                        return Some(None);
                    }
                }
            }
        };
        Some(Some(ty))
    }

    /// `name(args…)`: a built-in function, its arity and argument types.
    pub(super) fn call(
        &mut self,
        name: &ast::Ident,
        args: &[ast::Expr],
        span: Span,
        strings: Strings,
    ) -> Option<Ty> {
        let Some(func) = Func::from_name(&name.name) else {
            let names = Func::ALL.iter().map(|f| f.as_str());
            let mut d = self.error(
                "unknown-function",
                format!("unknown function `{}`", name.name),
                name.span,
                "not a built-in function",
            );
            let all: Vec<&str> = names.clone().collect();
            d = match suggest(&name.name, names) {
                Some(s) => d.with_suggestion(name.span, s),
                None => d.with_help(format!("the functions: {}", all.join(", "))),
            };
            self.emit(d);
            return None;
        };
        if args.len() != func.arity() {
            let (count, example) = match func {
                Func::Replace => ("three arguments", "replace(payload.x, \"from\", \"to\")"),
                Func::Join => ("two arguments", "join(payload.cwd, o)"),
                _ => ("one argument", ""),
            };
            let example = if example.is_empty() {
                format!("{}(payload.x)", func.as_str())
            } else {
                example.to_owned()
            };
            let d = self
                .error(
                    "type-mismatch",
                    format!("`{}` takes {count}, not {}", func.as_str(), args.len()),
                    span,
                    "wrong number of arguments",
                )
                .with_help(format!("e.g. `{example}`"));
            self.emit(d);
            return None;
        }
        if matches!(func, Func::Replace | Func::Join) {
            return self.strings_call(func, args, strings);
        }
        let [arg] = args else {
            return None;
        };
        let ty = self.expr(arg, strings)?;
        let (accepts, result) = match func {
            Func::Shell => (ty == Ty::String, Ty::List),
            Func::Lower
            | Func::Upper
            | Func::Trim
            | Func::Basename
            | Func::Dirname
            | Func::Normalize
            | Func::Env
            | Func::Relpath
            | Func::Stem
            | Func::Extension
            | Func::Replace
            | Func::Join
            | Func::IfUnset => (ty == Ty::String, Ty::String),
            Func::Len => (matches!(ty, Ty::String | Ty::List | Ty::Object), Ty::Int),
        };
        if !accepts && ty != Ty::Any {
            let d = self
                .error(
                    "type-mismatch",
                    format!("`{}` cannot apply to {}", func.as_str(), ty.name()),
                    arg.span,
                    format!("this is {}", ty.name()),
                )
                .with_help(match func {
                    Func::Len => "`len` measures strings, lists and objects",
                    _ => "it takes a string",
                });
            self.emit(d);
            return None;
        }
        Some(result)
    }

    /// `replace(s, from, to)` and `join(base, p)`: strings only.
    fn strings_call(&mut self, func: Func, args: &[ast::Expr], strings: Strings) -> Option<Ty> {
        for arg in args {
            let ty = self.expr(arg, strings)?;
            if ty != Ty::String && ty != Ty::Any {
                let d = self
                    .error(
                        "type-mismatch",
                        format!("`{}` cannot apply to {}", func.as_str(), ty.name()),
                        arg.span,
                        format!("this is {}", ty.name()),
                    )
                    .with_help(match func {
                        Func::Join => "it takes two strings: a directory and a path",
                        _ => "it takes three strings: the text, what to find, what to put instead",
                    });
                self.emit(d);
                return None;
            }
        }
        Some(Ty::String)
    }

    /// Checks a macro body with no variable or capture in scope: a macro
    /// means the same wherever it is used.
    pub(super) fn without_vars<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        let saved = std::mem::take(&mut self.vars);
        let captures = std::mem::take(&mut self.captures);
        let out = f(self);
        self.vars = saved;
        self.captures = captures;
        out
    }

    /// Binds the named groups of the regexes a `when` line's condition
    /// tests at its top level (`a matches /(?P<x>…)/ and …`): only those
    /// hold whenever the line does.
    pub(super) fn bind_captures(&mut self, cond: &ast::Expr, line: Span) {
        let mut names = Vec::new();
        self.top_level_groups(cond, self.scope, true, 0, &mut names);
        for name in names {
            if self.name_taken(&name) {
                let d = self
                    .error(
                        "shadowed-name",
                        format!("the regex group `{name}` already names something else"),
                        line,
                        "its regex is tested here",
                    )
                    .with_help("rename the group, e.g. `(?P<other>…)`");
                self.emit(d);
                continue;
            }
            self.captures.push(Capture {
                name,
                ty: Ty::String,
                binds: Vec::new(),
            });
        }
    }

    /// Appends to `out` the names of the named groups of the regexes `e`
    /// tests at its top level (through `and`, macros, and, where
    /// `with_captures`, `let` names), in the order the lowered condition
    /// has them. `e` sees the names of `scope` (its file's); a macro body
    /// sees no capture, as it is checked without them.
    fn top_level_groups(
        &self,
        e: &ast::Expr,
        scope: &Scope,
        with_captures: bool,
        depth: usize,
        out: &mut Vec<String>,
    ) {
        use ast::ExprKind as K;
        // A macro cycle is an error of its own; stop following it here.
        if depth > 64 {
            return;
        }
        match &e.kind {
            K::Binary(BinaryOp::And, a, b) => {
                self.top_level_groups(a, scope, with_captures, depth + 1, out);
                self.top_level_groups(b, scope, with_captures, depth + 1, out);
            }
            K::Matches(_, re) => {
                let source = match re {
                    ast::RegexRef::Literal(lit) => Some(RegexSource {
                        pattern: lit.pattern.clone(),
                        flags: lit.flags.clone(),
                    }),
                    ast::RegexRef::Name(name) => scope
                        .get(&name.name)
                        .filter(|def| def.kind == DefKind::Pattern)
                        .and_then(|def| match self.def_file(*def)?.ast.items.get(def.item) {
                            Some(ast::Item::Pattern(p)) => Some(RegexSource {
                                pattern: p.regex.pattern.clone(),
                                flags: p.regex.flags.clone(),
                            }),
                            _ => None,
                        }),
                };
                if let Some(facts) = source.and_then(|s| self.regexes.facts.get(&s)) {
                    out.extend(facts.groups.iter().cloned());
                }
            }
            K::Name(name) => {
                if with_captures {
                    if let Some(c) = self.captures.iter().find(|c| c.name == name.name) {
                        out.extend(c.binds.iter().cloned());
                        return;
                    }
                }
                let Some(def) = scope.get(&name.name).filter(|d| d.kind == DefKind::Macro) else {
                    return;
                };
                let Some(ast::Item::Macro(m)) =
                    self.def_file(*def).and_then(|f| f.ast.items.get(def.item))
                else {
                    return;
                };
                let Some(macro_scope) = self.scopes.get(def.file) else {
                    return;
                };
                self.top_level_groups(&m.body, macro_scope, false, depth + 1, out);
            }
            _ => {}
        }
    }

    /// True when `name` already names something where the rule is.
    fn name_taken(&self, name: &str) -> bool {
        self.captures.iter().any(|c| c.name == name)
            || self.scope.contains_key(name)
            || Root::from_name(name).is_some()
            || ir::Func::from_name(name).is_some()
    }

    /// `let NAME = e`: binds `NAME` for the rule's later lines and actions.
    pub(super) fn bind_let(&mut self, name: &ast::Ident, e: &ast::Expr) {
        let Some(ty) = self.expr(e, Strings::Plain) else {
            return;
        };
        if self.name_taken(&name.name) {
            let d = self
                .error(
                    "shadowed-name",
                    format!("`{}` already names something else", name.name),
                    name.span,
                    "the `let` would hide it",
                )
                .with_help("choose another name");
            self.emit(d);
            return;
        }
        let mut binds = Vec::new();
        self.top_level_groups(e, self.scope, true, 0, &mut binds);
        self.captures.push(Capture {
            name: name.name.clone(),
            ty,
            binds,
        });
    }

    /// The type of the capture or `let` named `name`.
    pub(super) fn capture(&self, name: &str) -> Option<Ty> {
        Some(self.captures.iter().find(|c| c.name == name)?.ty)
    }
}
