//! Quantifiers (`any c in LIST: e`, `all …`), the variables they bind, and
//! the built-in functions (`shell(…)`, `lower(…)`, …).
//!
//! A variable is known by its shape where the checker can know it: the
//! elements of `shell(…)` are commands with fixed fields, a command's
//! `redirects` are redirections, its word lists hold strings. A field a
//! shape does not have is an error with a suggestion; elements of any other
//! list are of any type.

use super::*;
use crate::ir::{Func, Quantifier, Segment};

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
/// `let NAME = e` line; its value is an expression read where it is used.
#[derive(Clone, Debug)]
pub(in crate::check) struct Capture {
    name: String,
    value: Expr,
    ty: Ty,
}

/// The fields of a command of a shell view, with their types (see
/// [`crate::shell::Command`]).
const COMMAND_FIELDS: &[(&str, Ty)] = &[
    ("program", Ty::String),
    ("name", Ty::String),
    ("args", Ty::List),
    ("flags", Ty::List),
    ("operands", Ty::List),
    ("redirects", Ty::List),
    ("assignments", Ty::List),
    ("wrappers", Ty::List),
    ("dynamic", Ty::Bool),
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

impl<'a> Lowerer<'a> {
    /// `any c in LIST: e` / `all c in LIST: e`.
    pub(super) fn quantifier(&mut self, q: &ast::Quantifier, strings: Strings) -> Option<Expr> {
        let (over, ty) = self.expr(&q.over, strings)?;
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
        let (body, body_ty) = body?;
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
        let kind = match q.kind {
            ast::QuantifierKind::Any => Quantifier::Any,
            ast::QuantifierKind::All => Quantifier::All,
        };
        Some(Expr::Quantifier(kind, Box::new(over), Box::new(body)))
    }

    /// The shape of the elements of the list `over`, as far as it shows.
    fn element_shape(&self, over: &ast::Expr) -> Shape {
        match &over.kind {
            ast::ExprKind::Call(name, _) if name.name == Func::Shell.as_str() => Shape::Command,
            ast::ExprKind::Path(p) => match (self.var(&p.root.name), p.segments.as_slice()) {
                (Some((_, Shape::Command)), [Segment::Field(f)]) => match f.as_str() {
                    "redirects" => Shape::Redirect,
                    "args" | "flags" | "operands" | "assignments" | "wrappers" => Shape::Str,
                    _ => Shape::Any,
                },
                _ => Shape::Any,
            },
            _ => Shape::Any,
        }
    }

    /// The variable `name` in scope: its depth (0 innermost) and shape.
    fn var(&self, name: &str) -> Option<(u32, Shape)> {
        let pos = self.vars.iter().rposition(|v| v.name == name)?;
        let depth = u32::try_from(self.vars.len() - 1 - pos).ok()?;
        Some((depth, self.vars.get(pos)?.shape))
    }

    /// A bare variable, if `name` is one in scope.
    pub(super) fn bare_var(&self, name: &ast::Ident) -> Option<(Expr, Ty)> {
        let (depth, shape) = self.var(&name.name)?;
        Some((Expr::Var(depth, Vec::new()), shape.ty()))
    }

    /// `c.program`, `c.redirects[0].target`: a path below a variable, or
    /// `None` (nothing emitted) when the path's root is not a variable.
    pub(super) fn var_path(&mut self, p: &ast::Path) -> Option<Option<(Expr, Ty)>> {
        let (depth, shape) = self.var(&p.root.name)?;
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
        Some(Some((Expr::Var(depth, p.segments.clone()), ty)))
    }

    /// `name(args…)`: a built-in function, its arity and argument types.
    pub(super) fn call(
        &mut self,
        name: &ast::Ident,
        args: &[ast::Expr],
        span: Span,
        strings: Strings,
    ) -> Option<(Expr, Ty)> {
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
        let (x, ty) = self.expr(arg, strings)?;
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
            | Func::Join => (ty == Ty::String, Ty::String),
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
        Some((Expr::Call(func, vec![x]), result))
    }

    /// `replace(s, from, to)` and `join(base, p)`: strings only.
    fn strings_call(
        &mut self,
        func: Func,
        args: &[ast::Expr],
        strings: Strings,
    ) -> Option<(Expr, Ty)> {
        let mut lowered = Vec::new();
        for arg in args {
            let (x, ty) = self.expr(arg, strings)?;
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
            lowered.push(x);
        }
        Some((Expr::Call(func, lowered), Ty::String))
    }

    /// Lowers a macro body with no variable or capture in scope: a macro
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
    pub(super) fn bind_captures(&mut self, cond: &Expr, line: Span) {
        match cond {
            Expr::Binary(BinaryOp::And, a, b) => {
                self.bind_captures(a, line);
                self.bind_captures(b, line);
            }
            Expr::Matches(subject, re) => {
                let names = self.regexes.group_names(*re).to_vec();
                for name in &names {
                    if self.name_taken(name) {
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
                        name: name.to_string(),
                        value: Expr::Capture(subject.clone(), *re, name.to_string()),
                        ty: Ty::String,
                    });
                }
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
        let Some((value, ty)) = self.expr(e, Strings::Plain) else {
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
        self.captures.push(Capture {
            name: name.name.clone(),
            value,
            ty,
        });
    }

    /// The value and type of the capture or `let` named `name`.
    pub(super) fn capture(&self, name: &str) -> Option<(Expr, Ty)> {
        let c = self.captures.iter().find(|c| c.name == name)?;
        Some((c.value.clone(), c.ty))
    }
}
