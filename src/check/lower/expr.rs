//! Conditions: expressions, their static types, `rate(…)`, and names
//! (lists, patterns, macros) used in them.

use super::*;
use crate::ir::Func;

impl<'a> Lowerer<'a> {
    pub(super) fn expr(&mut self, e: &ast::Expr, strings: Strings) -> Option<(Expr, Ty)> {
        use ast::ExprKind as K;
        Some(match &e.kind {
            K::Literal(v) => (Expr::Const(v.clone()), Ty::of_json(v)),
            K::Str(s) => match strings {
                Strings::Plain => (Expr::Const(Value::String(s.value.clone())), Ty::String),
                Strings::Templates => {
                    let t = self.template(s)?;
                    match t.as_literal() {
                        Some(text) => (Expr::Const(Value::String(text.to_string())), Ty::String),
                        None => (Expr::Template(t), Ty::String),
                    }
                }
            },
            K::Array(items) => {
                let mut out = Vec::new();
                for item in items {
                    out.push(self.expr(item, strings)?.0);
                }
                (fold_array(out), Ty::List)
            }
            K::Object(fields) => {
                let mut out = Vec::new();
                for (k, v) in fields {
                    out.push((k.value.clone(), self.expr(v, strings)?.0));
                }
                (fold_object(out), Ty::Object)
            }
            K::Path(p) => {
                if let Some(var) = self.var_path(p) {
                    return var;
                }
                let (path, ty) = self.path(p)?;
                (Expr::Path(path), ty)
            }
            K::Name(name) => {
                if let Some(var) = self.bare_var(name) {
                    return Some(var);
                }
                if let Some(capture) = self.capture(&name.name) {
                    return Some(capture);
                }
                return self.name(name, strings);
            }
            K::Quantifier(q) => (self.quantifier(q, strings)?, Ty::Bool),
            K::Call(name, args) => return self.call(name, args, e.span, strings),
            K::Unary(op, inner) => {
                let (x, ty) = self.expr(inner, strings)?;
                let want_bool = *op == UnaryOp::Not;
                let ok = if want_bool {
                    matches!(ty, Ty::Bool | Ty::Any)
                } else {
                    ty.is_number() || ty == Ty::Any
                };
                if !ok {
                    let op_text = match op {
                        UnaryOp::Not => "not",
                        UnaryOp::Neg => "-",
                        UnaryOp::BitNot => "~",
                    };
                    let d = self.error(
                        "type-mismatch",
                        format!("`{op_text}` cannot apply to {}", ty.name()),
                        inner.span,
                        format!("this is {}", ty.name()),
                    );
                    self.emit(d);
                    return None;
                }
                let result_ty = if want_bool {
                    Ty::Bool
                } else if ty == Ty::Float {
                    Ty::Float
                } else {
                    Ty::Int
                };
                (fold_unary(*op, x), result_ty)
            }
            K::Binary(op, a, b) => {
                let (x, tx) = self.expr(a, strings)?;
                let (y, ty) = self.expr(b, strings)?;
                let result = self.binary_type(*op, tx, ty, a, b, e.span)?;
                let node = Expr::Binary(*op, Box::new(x), Box::new(y));
                (self.fold_case(node), result)
            }
            K::ContainsAny(lhs, list) | K::In(lhs, list) => {
                let (x, tx) = self.expr(lhs, strings)?;
                let (y, ty) = self.expr(list, strings)?;
                if !matches!(ty, Ty::List | Ty::Any) {
                    let kw = if matches!(e.kind, K::In(..)) {
                        "in"
                    } else {
                        "contains any"
                    };
                    let d = self
                        .error(
                            "type-mismatch",
                            format!("`{kw}` needs a list, this is {}", ty.name()),
                            list.span,
                            "not a list",
                        )
                        .with_help("write a list literal `[\"a\", \"b\"]` or the name of a `list`");
                    self.emit(d);
                    return None;
                }
                if matches!(e.kind, K::ContainsAny(..))
                    && !matches!(tx, Ty::String | Ty::List | Ty::Object | Ty::Any)
                {
                    let d = self.error(
                        "type-mismatch",
                        format!("`contains any` cannot search {}", tx.name()),
                        lhs.span,
                        format!("this is {}", tx.name()),
                    );
                    self.emit(d);
                    return None;
                }
                let node = if matches!(e.kind, K::In(..)) {
                    Expr::In(Box::new(x), Box::new(y))
                } else {
                    Expr::ContainsAny(Box::new(x), Box::new(y))
                };
                (self.fold_case(node), Ty::Bool)
            }
            K::Matches(lhs, re) => {
                let (x, tx) = self.expr(lhs, strings)?;
                self.expect_string_subject(tx, lhs, "matches")?;
                let id = self.regex_ref(re)?;
                (Expr::Matches(Box::new(x), id), Ty::Bool)
            }
            K::Glob(lhs, glob) => {
                let (x, tx) = self.expr(lhs, strings)?;
                self.expect_string_subject(tx, lhs, "glob")?;
                let id = self.glob(glob)?;
                (Expr::Matches(Box::new(x), id), Ty::Bool)
            }
            K::Exists(inner) => match &inner.kind {
                // Below a variable, `exists` is "is not null": an element's
                // missing field reads as null.
                K::Path(p) => {
                    if let Some(var) = self.var_path(p) {
                        let (x, _) = var?;
                        let null = Box::new(Expr::Const(Value::Null));
                        return Some((Expr::Binary(BinaryOp::Ne, Box::new(x), null), Ty::Bool));
                    }
                    let (path, _) = self.path(p)?;
                    (Expr::Exists(path), Ty::Bool)
                }
                _ => {
                    let d = self
                        .error(
                            "type-mismatch",
                            "`exists` needs a field path",
                            inner.span,
                            "not a field",
                        )
                        .with_help("write e.g. `payload.args exists`");
                    self.emit(d);
                    return None;
                }
            },
            K::Rate(r) => (self.rate(r, e.span, strings)?, Ty::Bool),
        })
    }

    /// A `rate(…)` test: only in conditions, with an ordering comparison, a
    /// limit the counter can keep, and a window.
    pub(super) fn rate(&mut self, r: &ast::Rate, span: Span, strings: Strings) -> Option<Expr> {
        if strings == Strings::Templates {
            let d = self
                .error(
                    "rate-outside-condition",
                    "`rate(…)` can only be used in `when` and `unless`",
                    span,
                    "counts events, so it is a condition",
                )
                .with_help("test it in a `when` line of the rule");
            self.emit(d);
            return None;
        }
        let op = match r.op {
            ast::BinaryOp::Gt => CmpOp::Gt,
            ast::BinaryOp::Ge => CmpOp::Ge,
            ast::BinaryOp::Lt => CmpOp::Lt,
            ast::BinaryOp::Le => CmpOp::Le,
            _ => {
                let d = self
                    .error(
                        "type-mismatch",
                        "a rate is compared with `>`, `>=`, `<` or `<=`",
                        span,
                        "not an ordering",
                    )
                    .with_help("e.g. `rate(\"{component}\") > 100 per 60s`");
                self.emit(d);
                return None;
            }
        };
        if !(r.limit.is_finite() && (0.0..=MAX_RATE_LIMIT).contains(&r.limit)) {
            let d = self
                .error(
                    "limit",
                    format!("a rate limit must be between 0 and {MAX_RATE_LIMIT}"),
                    r.limit_span,
                    "out of range",
                )
                .with_help(
                    "counters keep one arrival per counted event up to the limit, so it is bounded",
                );
            self.emit(d);
            return None;
        }
        if r.window_ms == 0 {
            let d = self
                .error(
                    "limit",
                    "a rate window must be longer than 0",
                    span,
                    "empty window",
                )
                .with_help("e.g. `per 60s`");
            self.emit(d);
            return None;
        }
        let key = self.template(&r.key)?;
        if key.parts.iter().any(|p| matches!(p, TemplatePart::Expr(_))) {
            let d = self
                .error(
                    "invalid-template",
                    "a rate key cannot use a capture or a `let` name",
                    r.key.span,
                    "counted per capture",
                )
                .with_help("count by fields of the event, e.g. `rate(\"{component}\")`");
            self.emit(d);
            return None;
        }
        Some(Expr::Rate(RateTest {
            key,
            op,
            limit: r.limit,
            window_ms: r.window_ms,
            // Assigned by the compiler.
            counter: 0,
        }))
    }

    pub(super) fn expect_string_subject(
        &mut self,
        ty: Ty,
        subject: &ast::Expr,
        op: &str,
    ) -> Option<()> {
        if matches!(ty, Ty::String | Ty::Any) {
            return Some(());
        }
        let d = self
            .error(
                "type-mismatch",
                format!("`{op}` needs a string, this is {}", ty.name()),
                subject.span,
                format!("this is {}", ty.name()),
            )
            .with_help(format!("`{op}` tests strings only"));
        self.emit(d);
        None
    }

    pub(super) fn binary_type(
        &mut self,
        op: BinaryOp,
        a: Ty,
        b: Ty,
        ea: &ast::Expr,
        eb: &ast::Expr,
        span: Span,
    ) -> Option<Ty> {
        let mismatch = |this: &mut Self, why: String| {
            let d = this
                .error("type-mismatch", why, span, "")
                .with_secondary(ea.span, format!("this is {}", a.name()))
                .with_secondary(eb.span, format!("this is {}", b.name()));
            this.emit(d);
            None
        };
        match op {
            BinaryOp::And | BinaryOp::Or => {
                if matches!(a, Ty::Bool | Ty::Any) && matches!(b, Ty::Bool | Ty::Any) {
                    Some(Ty::Bool)
                } else {
                    mismatch(
                        self,
                        format!(
                            "`{}` needs booleans, found {} and {}",
                            op.as_str(),
                            a.name(),
                            b.name()
                        ),
                    )
                }
            }
            BinaryOp::Eq | BinaryOp::Ne => {
                if a.comparable(b) {
                    Some(Ty::Bool)
                } else {
                    mismatch(
                        self,
                        format!("{} and {} can never be equal", a.name(), b.name()),
                    )
                }
            }
            BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge => {
                let ok = a == Ty::Any
                    || b == Ty::Any
                    || (a.is_number() && b.is_number())
                    || (a == Ty::String && b == Ty::String);
                if ok {
                    Some(Ty::Bool)
                } else {
                    mismatch(
                        self,
                        format!(
                            "`{}` cannot order {} and {}",
                            op.as_str(),
                            a.name(),
                            b.name()
                        ),
                    )
                }
            }
            BinaryOp::Contains => {
                let ok = match a {
                    Ty::String => matches!(b, Ty::String | Ty::Any),
                    Ty::List | Ty::Object | Ty::Any => true,
                    _ => false,
                };
                if ok {
                    Some(Ty::Bool)
                } else {
                    mismatch(self, format!("{} cannot contain {}", a.name(), b.name()))
                }
            }
            BinaryOp::StartsWith | BinaryOp::EndsWith => {
                if matches!(a, Ty::String | Ty::Any) && matches!(b, Ty::String | Ty::Any) {
                    Some(Ty::Bool)
                } else {
                    mismatch(
                        self,
                        format!(
                            "`{}` needs strings, found {} and {}",
                            op.as_str(),
                            a.name(),
                            b.name()
                        ),
                    )
                }
            }
            BinaryOp::Add if a == Ty::String && b == Ty::String => Some(Ty::String),
            BinaryOp::BitOr
            | BinaryOp::BitXor
            | BinaryOp::BitAnd
            | BinaryOp::Shl
            | BinaryOp::Shr => {
                if matches!(a, Ty::Int | Ty::Any) && matches!(b, Ty::Int | Ty::Any) {
                    Some(Ty::Int)
                } else {
                    mismatch(
                        self,
                        format!(
                            "`{}` needs integers, found {} and {}",
                            op.as_str(),
                            a.name(),
                            b.name()
                        ),
                    )
                }
            }
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem => {
                if (a.is_number() || a == Ty::Any) && (b.is_number() || b == Ty::Any) {
                    Some(if a == Ty::Float || b == Ty::Float {
                        Ty::Float
                    } else {
                        Ty::Int
                    })
                } else {
                    mismatch(
                        self,
                        format!(
                            "`{}` needs numbers, found {} and {}",
                            op.as_str(),
                            a.name(),
                            b.name()
                        ),
                    )
                }
            }
        }
    }

    pub(super) fn name(&mut self, name: &ast::Ident, strings: Strings) -> Option<(Expr, Ty)> {
        let Some(def) = self.scope.get(&name.name).copied() else {
            let mut d = self.error(
                "unknown-name",
                format!("unknown name `{}`", name.name),
                name.span,
                "not defined",
            );
            let known: Vec<&str> = self.scope.keys().map(String::as_str).collect();
            let roots = Root::ALL.iter().map(|r| r.as_str());
            // A field of the event's payload written without `payload.`
            // (`tool_name`), or by its last name (`command` for
            // `payload.tool_input.command`).
            let field = self.points.iter().find_map(|(point, _)| {
                let def = self.schema.point(point)?;
                let suffix = format!(".{}", name.name);
                def.payload
                    .iter()
                    .map(|f| f.path.as_str())
                    .find(|p| *p == name.name)
                    .or_else(|| {
                        def.payload
                            .iter()
                            .map(|f| f.path.as_str())
                            .find(|p| p.ends_with(&suffix))
                    })
            });
            d = if let Some(path) = field {
                let mut d = d.with_suggestion(name.span, format!("payload.{path}"));
                d.help = Some(format!(
                    "`{}` is a field of the event's payload: write `payload.{path}`",
                    name.name
                ));
                d
            } else {
                match suggest(&name.name, known.iter().copied().chain(roots)) {
                    Some(s) => d.with_suggestion(name.span, s),
                    None => d.with_help(
                        "define it with `list`, `pattern` or `macro`, or import the file that does",
                    ),
                }
            };
            self.emit(d);
            return None;
        };
        match def.kind {
            DefKind::List => {
                let items = self.list_items(def)?;
                Some((Expr::Const(Value::Array(items)), Ty::List))
            }
            DefKind::Macro => {
                if self.macro_stack.contains(&name.name) {
                    let chain = self.macro_stack.join(" -> ");
                    let d = self
                        .error(
                            "macro-cycle",
                            format!("macro `{}` refers to itself", name.name),
                            name.span,
                            "used here",
                        )
                        .with_help(format!("the macros form a cycle: {chain} -> {}", name.name));
                    self.emit(d);
                    return None;
                }
                let body = self
                    .def_file(def)
                    .and_then(|f| match f.ast.items.get(def.item) {
                        Some(ast::Item::Macro(m)) => Some(m.body.clone()),
                        _ => None,
                    })?;
                // The body resolves in the macro's own file.
                let saved = (self.file, self.scope);
                self.file = def.file;
                self.scope = self.scopes.get(def.file).unwrap_or(self.scope);
                self.macro_stack.push(name.name.clone());
                let out = self.without_vars(|this| this.expr(&body, strings));
                self.macro_stack.pop();
                (self.file, self.scope) = saved;
                out
            }
            DefKind::Pattern => {
                let d = self
                    .error(
                        "wrong-kind",
                        format!("`{}` is a pattern, not a value", name.name),
                        name.span,
                        "a regex",
                    )
                    .with_help(format!(
                        "test a field against it: `payload.x matches {}`",
                        name.name
                    ));
                self.emit(d);
                None
            }
        }
    }

    pub(super) fn def_file(&self, def: Def) -> Option<&'a LoadedFile> {
        self.loaded.files.get(def.file)
    }

    pub(super) fn list_items(&mut self, def: Def) -> Option<Vec<Value>> {
        let file = self.def_file(def)?;
        let Some(ast::Item::List(list)) = file.ast.items.get(def.item) else {
            return None;
        };
        let mut out = Vec::new();
        let extensions = self.extensions.of(def.file, def.item).iter().copied();
        let own = list.items.iter().map(|item| (file, item));
        for (written_in, item) in own.chain(extensions) {
            match &item.kind {
                ast::ExprKind::Literal(v) => out.push(v.clone()),
                ast::ExprKind::Str(s) => out.push(Value::String(s.value.clone())),
                _ => {
                    let d = Diagnostic::error("invalid-list", "list elements must be literals")
                        .in_file(&written_in.source)
                        .with_primary(item.span, "not a literal")
                        .with_help("lists hold strings, numbers, booleans or null");
                    self.emit(d);
                    return None;
                }
            }
        }
        Some(out)
    }
}

impl Lowerer<'_> {
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
        let id = self.regexes.intern(
            RegexSource {
                pattern,
                flags: "i".to_owned(),
            },
            None,
        );
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
