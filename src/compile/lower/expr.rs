//! Conditions: expressions, `rate(…)`, and the names (lists, macros) used
//! in them, with constants folded and case-insensitive comparisons turned
//! into regexes.

use super::*;
use crate::ir::{CmpOp, Func, RateTest};

impl<'a> Lowerer<'a, '_> {
    /// The IR of `e`.
    pub(super) fn expr(&mut self, e: &ast::Expr, strings: Strings) -> Option<Expr> {
        use ast::ExprKind as K;
        Some(match &e.kind {
            K::Literal(v) => Expr::Const(v.clone()),
            K::Str(s) => match strings {
                Strings::Plain => Expr::Const(Value::String(s.value.clone())),
                Strings::Templates => {
                    let t = self.template(s)?;
                    match t.as_literal() {
                        Some(text) => Expr::Const(Value::String(text.to_string())),
                        None => Expr::Template(t),
                    }
                }
            },
            K::Array(items) => {
                let mut out = Vec::new();
                for item in items {
                    out.push(self.expr(item, strings)?);
                }
                fold_array(out)
            }
            K::Object(fields) => {
                let mut out = Vec::new();
                for (k, v) in fields {
                    out.push((k.value.clone(), self.expr(v, strings)?));
                }
                fold_object(out)
            }
            K::Path(p) => match self.var_path(p) {
                Some(var) => var,
                None => Expr::Path(self.path(p)?),
            },
            K::Name(name) => {
                if let Some(var) = self.bare_var(name) {
                    return Some(var);
                }
                if let Some(capture) = self.capture(&name.name) {
                    return Some(capture);
                }
                return self.name(name, strings);
            }
            K::Quantifier(q) => self.quantifier(q, strings)?,
            K::Call(name, args) => return self.call(name, args, strings),
            K::Unary(op, inner) => fold_unary(*op, self.expr(inner, strings)?),
            K::Binary(op, a, b) => {
                let x = self.expr(a, strings)?;
                let y = self.expr(b, strings)?;
                self.fold_case(Expr::Binary(*op, Box::new(x), Box::new(y)))
            }
            K::ContainsAny(lhs, list) | K::In(lhs, list) => {
                let x = self.expr(lhs, strings)?;
                let y = self.expr(list, strings)?;
                let node = if matches!(e.kind, K::In(..)) {
                    Expr::In(Box::new(x), Box::new(y))
                } else {
                    Expr::ContainsAny(Box::new(x), Box::new(y))
                };
                self.fold_case(node)
            }
            K::Matches(lhs, re) => {
                let x = self.expr(lhs, strings)?;
                Expr::Matches(Box::new(x), self.regex_ref(re)?)
            }
            K::Glob(lhs, glob) => {
                let x = self.expr(lhs, strings)?;
                Expr::Matches(Box::new(x), self.glob(glob)?)
            }
            K::Exists(inner) => match &inner.kind {
                // Below a variable, `exists` is "is not null": an element's
                // missing field reads as null.
                K::Path(p) => match self.var_path(p) {
                    Some(x) => {
                        let null = Box::new(Expr::Const(Value::Null));
                        Expr::Binary(BinaryOp::Ne, Box::new(x), null)
                    }
                    None => Expr::Exists(self.path(p)?),
                },
                _ => return None,
            },
            K::Rate(r) => self.rate(r)?,
        })
    }

    /// A `rate(…)` test.
    fn rate(&mut self, r: &ast::Rate) -> Option<Expr> {
        let op = match r.op {
            ast::BinaryOp::Gt => CmpOp::Gt,
            ast::BinaryOp::Ge => CmpOp::Ge,
            ast::BinaryOp::Lt => CmpOp::Lt,
            ast::BinaryOp::Le => CmpOp::Le,
            _ => return None,
        };
        Some(Expr::Rate(RateTest {
            key: self.template(&r.key)?,
            op,
            limit: r.limit,
            window_ms: r.window_ms,
            // Assigned by the compiler.
            counter: 0,
        }))
    }

    /// A list's elements as a constant, a macro's body lowered in the
    /// macro's own file.
    fn name(&mut self, name: &ast::Ident, strings: Strings) -> Option<Expr> {
        let def = self.scope.get(&name.name).copied()?;
        match def.kind {
            DefKind::List => Some(Expr::Const(Value::Array(self.list_items(def)?))),
            DefKind::Macro => {
                if self.macro_stack.contains(&name.name) {
                    return None;
                }
                let body = self
                    .def_file(def)
                    .and_then(|f| match f.ast.items.get(def.item) {
                        Some(ast::Item::Macro(m)) => Some(&m.body),
                        _ => None,
                    })?;
                // The body resolves in the macro's own file.
                let saved = (self.file, self.scope);
                self.file = def.file;
                self.scope = self.cx.scopes.get(def.file).unwrap_or(self.scope);
                self.macro_stack.push(name.name.clone());
                let out = self.without_vars(|this| this.expr(body, strings));
                self.macro_stack.pop();
                (self.file, self.scope) = saved;
                out
            }
            DefKind::Pattern => None,
        }
    }

    /// The elements of list `def`, with those its `+=` extensions add.
    fn list_items(&self, def: Def) -> Option<Vec<Value>> {
        let file = self.def_file(def)?;
        let Some(ast::Item::List(list)) = file.ast.items.get(def.item) else {
            return None;
        };
        let extensions = self.cx.extensions.of(def.file, def.item).iter();
        list.items
            .iter()
            .chain(extensions.map(|(_, item)| *item))
            .map(|item| match &item.kind {
                ast::ExprKind::Literal(v) => Some(v.clone()),
                ast::ExprKind::Str(s) => Some(Value::String(s.value.clone())),
                _ => None,
            })
            .collect()
    }

    /// A comparison of `lower(x)` (or `upper(x)`) with constants already in
    /// that case, as a case-insensitive regex on `x`: `lower(f) == "rm"`,
    /// `lower(f) in ["rm", "rmdir"]`, `contains`, `contains any`,
    /// `starts_with` and `ends_with`. On a field it is then decided by the
    /// field's automaton in the same pass as its other patterns, and
    /// elsewhere (a quantifier's variable) by the regex's own DFA, without
    /// building the lower-cased string. A constant in the other case (never
    /// equal) is left as written.
    fn fold_case(&mut self, node: Expr) -> Expr {
        let (subject, strings, shape) = match &node {
            Expr::Binary(op, a, b) => {
                let shape = match op {
                    BinaryOp::Eq => Shape::Whole,
                    BinaryOp::Contains => Shape::Inside,
                    BinaryOp::StartsWith => Shape::Start,
                    BinaryOp::EndsWith => Shape::End,
                    _ => return node,
                };
                let Expr::Const(Value::String(s)) = b.as_ref() else {
                    return node;
                };
                (a.as_ref(), vec![s.as_str()], shape)
            }
            Expr::In(a, list) | Expr::ContainsAny(a, list) => {
                let Expr::Const(Value::Array(items)) = list.as_ref() else {
                    return node;
                };
                let strings: Option<Vec<&str>> = items.iter().map(Value::as_str).collect();
                let Some(strings) = strings.filter(|s| !s.is_empty()) else {
                    return node;
                };
                let shape = if matches!(node, Expr::In(..)) {
                    Shape::Whole
                } else {
                    Shape::Inside
                };
                (a.as_ref(), strings, shape)
            }
            _ => return node,
        };
        let Expr::Call(func @ (Func::Lower | Func::Upper), args) = subject else {
            return node;
        };
        let [inner] = args.as_slice() else {
            return node;
        };
        if !matches!(inner, Expr::Path(_) | Expr::Var(..)) {
            return node;
        }
        let in_case = |s: &&str| match func {
            Func::Lower => s.to_lowercase() == **s,
            _ => s.to_uppercase() == **s,
        };
        if !strings.iter().all(in_case) {
            return node;
        }
        let alternatives: Vec<String> = strings.iter().map(|s| regex_syntax::escape(s)).collect();
        let body = format!("(?:{})", alternatives.join("|"));
        let pattern = match shape {
            Shape::Whole => format!("^{body}$"),
            Shape::Inside => body,
            Shape::Start => format!("^{body}"),
            Shape::End => format!("{body}$"),
        };
        let id = self.regexes.intern(RegexSource {
            pattern,
            flags: "i".to_owned(),
        });
        Expr::Matches(Box::new(inner.clone()), id)
    }
}

/// Where the constants of a case-folded comparison must sit in the text.
#[derive(Clone, Copy)]
enum Shape {
    /// The whole text (`==`, `in`).
    Whole,
    /// Anywhere (`contains`, `contains any`).
    Inside,
    /// At its start.
    Start,
    /// At its end.
    End,
}

/// Arrays of constants fold into one constant.
fn fold_array(items: Vec<Expr>) -> Expr {
    if items.iter().all(|e| matches!(e, Expr::Const(_))) {
        Expr::Const(Value::Array(
            items
                .into_iter()
                .filter_map(|e| match e {
                    Expr::Const(v) => Some(v),
                    _ => None,
                })
                .collect(),
        ))
    } else {
        Expr::Array(items)
    }
}

fn fold_object(fields: Vec<(String, Expr)>) -> Expr {
    if fields.iter().all(|(_, e)| matches!(e, Expr::Const(_))) {
        let mut map = serde_json::Map::new();
        for (k, e) in fields {
            if let Expr::Const(v) = e {
                map.insert(k, v);
            }
        }
        Expr::Const(Value::Object(map))
    } else {
        Expr::Object(fields)
    }
}

/// `-5` is a constant, not an operation.
fn fold_unary(op: UnaryOp, x: Expr) -> Expr {
    match (op, &x) {
        (UnaryOp::Neg, Expr::Const(Value::Number(n))) => {
            if let Some(i) = n.as_i64().and_then(i64::checked_neg) {
                return Expr::Const(Value::from(i));
            }
            if let Some(f) = n.as_f64() {
                if let Some(n) = serde_json::Number::from_f64(-f) {
                    return Expr::Const(Value::Number(n));
                }
            }
            Expr::Unary(op, Box::new(x))
        }
        _ => Expr::Unary(op, Box::new(x)),
    }
}
