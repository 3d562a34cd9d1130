//! Conditions: expressions, their static types, `rate(…)`, and names
//! (lists, patterns, macros) used in them.

use super::*;

impl<'a> TypeChecker<'a, '_> {
    /// The static type of `e`, or `None` after reporting why it has none.
    pub(super) fn expr(&mut self, e: &ast::Expr, strings: Strings) -> Option<Ty> {
        use ast::ExprKind as K;
        Some(match &e.kind {
            K::Literal(v) => Ty::of_json(v),
            K::Str(s) => {
                if strings == Strings::Templates {
                    self.template(s)?;
                }
                Ty::String
            }
            K::Array(items) => {
                for item in items {
                    self.expr(item, strings)?;
                }
                Ty::List
            }
            K::Object(fields) => {
                for (_, v) in fields {
                    self.expr(v, strings)?;
                }
                Ty::Object
            }
            K::Path(p) => {
                if let Some(var) = self.var_path(p) {
                    return var;
                }
                self.path(p)?
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
            K::Quantifier(q) => {
                self.quantifier(q, strings)?;
                Ty::Bool
            }
            K::Call(name, args) => return self.call(name, args, e.span, strings),
            K::Unary(op, inner) => {
                let ty = self.expr(inner, strings)?;
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
                if want_bool {
                    Ty::Bool
                } else if ty == Ty::Float {
                    Ty::Float
                } else {
                    Ty::Int
                }
            }
            K::Binary(op, a, b) => {
                let tx = self.expr(a, strings)?;
                let ty = self.expr(b, strings)?;
                self.binary_type(*op, tx, ty, a, b, e.span)?
            }
            K::ContainsAny(lhs, list) | K::In(lhs, list) => {
                let tx = self.expr(lhs, strings)?;
                let ty = self.expr(list, strings)?;
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
                Ty::Bool
            }
            K::Matches(lhs, re) => {
                let tx = self.expr(lhs, strings)?;
                self.expect_string_subject(tx, lhs, "matches")?;
                self.regex_ref(re)?;
                Ty::Bool
            }
            K::Glob(lhs, glob) => {
                let tx = self.expr(lhs, strings)?;
                self.expect_string_subject(tx, lhs, "glob")?;
                self.glob(glob)?;
                Ty::Bool
            }
            K::Exists(inner) => match &inner.kind {
                // Below a variable, `exists` is "is not null": an element's
                // missing field reads as null.
                K::Path(p) => {
                    if let Some(var) = self.var_path(p) {
                        var?;
                        return Some(Ty::Bool);
                    }
                    self.path(p)?;
                    Ty::Bool
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
            K::Rate(r) => {
                self.rate(r, e.span, strings)?;
                Ty::Bool
            }
        })
    }

    /// A `rate(…)` test: only in conditions, with an ordering comparison, a
    /// limit the counter can keep, and a window.
    pub(super) fn rate(&mut self, r: &ast::Rate, span: Span, strings: Strings) -> Option<()> {
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
        match r.op {
            ast::BinaryOp::Gt | ast::BinaryOp::Ge | ast::BinaryOp::Lt | ast::BinaryOp::Le => {}
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
        }
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
        let reads_capture = self.template(&r.key)?;
        if reads_capture {
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
        Some(())
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

    pub(super) fn name(&mut self, name: &ast::Ident, strings: Strings) -> Option<Ty> {
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
                self.list_items(def)?;
                Some(Ty::List)
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
                        Some(ast::Item::Macro(m)) => Some(&m.body),
                        _ => None,
                    })?;
                // The body resolves in the macro's own file.
                let saved = (self.file, self.scope);
                self.file = def.file;
                self.scope = self.scopes.get(def.file).unwrap_or(self.scope);
                self.macro_stack.push(name.name.clone());
                let out = self.without_vars(|this| this.expr(body, strings));
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

    /// Checks that the elements of list `def` (with its `+=` extensions)
    /// are literals.
    pub(super) fn list_items(&mut self, def: Def) -> Option<()> {
        let file = self.def_file(def)?;
        let Some(ast::Item::List(list)) = file.ast.items.get(def.item) else {
            return None;
        };
        let extensions = self.extensions.of(def.file, def.item).iter().copied();
        let own = list.items.iter().map(|item| (file, item));
        for (written_in, item) in own.chain(extensions) {
            match &item.kind {
                ast::ExprKind::Literal(_) | ast::ExprKind::Str(_) => {}
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
        Some(())
    }
}
