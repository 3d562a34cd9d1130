//! Actions: what each does, the fields it edits, the types of what it
//! sets, and whether the point lets it block.

use super::*;

impl<'a> TypeChecker<'a, '_> {
    /// Refuses a `set` that gives a typed field a value of another type.
    pub(super) fn check_set_type(
        &mut self,
        path: &FieldPath,
        target: &ast::Path,
        value: &ast::Expr,
        vty: Ty,
    ) -> Option<()> {
        let Some((ty, optional, point)) = self.declared(path) else {
            return Some(());
        };
        let fty = Ty::from_field(ty);
        let fits = match vty {
            Ty::Any => true,
            Ty::Null => optional,
            Ty::Int => fty.is_number(),
            other => other == fty,
        };
        if fits {
            return Some(());
        }
        let mut d = self
            .error(
                "type-mismatch",
                format!(
                    "cannot set `{path}` to {}: it is {}",
                    vty.name(),
                    fty.name()
                ),
                value.span,
                format!("this is {}", vty.name()),
            )
            .with_secondary(target.span, fty.name());
        d = if vty == Ty::Null {
            d.with_help(format!(
                "the `{}` schema requires `{path}` at `{point}`, so it cannot be null",
                self.schema.name
            ))
        } else {
            d.with_help(format!(
                "the `{}` schema types `{path}` as `{ty}` at `{point}`",
                self.schema.name
            ))
        };
        self.emit(d);
        None
    }

    /// Refuses an `output` the rule's points do not read, or a value of
    /// another type than the schema gives it.
    pub(super) fn check_output(
        &mut self,
        name: &ast::Ident,
        value: &ast::Expr,
        vty: Ty,
    ) -> Option<()> {
        let mut ty = None;
        for (point, _) in self.points.clone() {
            let outputs = self
                .schema
                .point(&point)
                .map_or(&[][..], |p| p.outputs.as_slice());
            let Some(def) = outputs.iter().find(|o| o.path == name.name) else {
                let names: Vec<&str> = outputs.iter().map(|o| o.path.as_str()).collect();
                let d = self.error(
                    "unknown-output",
                    format!("`{point}` takes no output `{}`", name.name),
                    name.span,
                    "not an output of this point",
                );
                let d = match crate::diag::suggest::suggest(&name.name, names.iter().copied()) {
                    Some(s) => d.with_suggestion(name.span, s),
                    None if names.is_empty() => d.with_help(format!(
                        "the `{}` schema gives `{point}` no outputs: its answer is the outcome alone",
                        self.schema.name
                    )),
                    None => d.with_help(format!("`{point}` reads {}", quoted_list(&names))),
                };
                self.emit(d);
                return None;
            };
            ty = Some((def.ty, point));
        }
        let (fty, point) = ty?;
        let expected = Ty::from_field(fty);
        let fits = fty == FieldType::Any
            || match vty {
                Ty::Any => true,
                Ty::Int => expected.is_number(),
                other => other == expected,
            };
        if fits {
            return Some(());
        }
        let d = self
            .error(
                "type-mismatch",
                format!(
                    "output `{}` takes {}, not {}",
                    name.name,
                    expected.name(),
                    vty.name()
                ),
                value.span,
                format!("this is {}", vty.name()),
            )
            .with_help(format!(
                "the `{}` schema types output `{}` as `{fty}` at `{point}`",
                self.schema.name, name.name
            ));
        self.emit(d);
        None
    }

    /// Refuses a string edit (`rewrite`, `prepend`, `append`) of a field the
    /// schema types as something else.
    pub(super) fn check_string_edit(
        &mut self,
        path: &FieldPath,
        target: &ast::Path,
        what: &str,
    ) -> Option<()> {
        let Some((ty, _, point)) = self.declared(path) else {
            return Some(());
        };
        if ty.is_string() {
            return Some(());
        }
        let name = Ty::from_field(ty).name();
        let d = self
            .error(
                "type-mismatch",
                format!("`{what}` edits strings, `{path}` is {name}"),
                target.span,
                name,
            )
            .with_help(format!(
                "the `{}` schema types `{path}` as `{ty}` at `{point}`; give it a new value with `set`",
                self.schema.name
            ));
        self.emit(d);
        None
    }

    /// Refuses an action that blocks (`abort`, `deny`, `ask`, `skip`) at
    /// points that cannot block.
    pub(super) fn check_blocking(&mut self, action: &ast::Action) -> Option<()> {
        let passive: Vec<String> = self
            .points
            .iter()
            .filter(|(name, _)| self.schema.point(name).is_some_and(|p| !p.blocking))
            .map(|(name, _)| format!("`{name}`"))
            .collect();
        if passive.is_empty() {
            return Some(());
        }
        let text = self.src().source.slice(action.span);
        let keyword = if text.starts_with("deny") {
            "deny"
        } else {
            action.kind.keyword()
        };
        let list = passive.join(", ");
        let (subject, verb) = if passive.len() == 1 {
            ("point", "cannot block, it only observes")
        } else {
            ("points", "cannot block, they only observe")
        };
        let d = self
            .error(
                "cannot-block",
                format!("`{keyword}` is not allowed at {list}"),
                action.span,
                format!("the {subject} {verb}"),
            )
            .with_help(format!(
                "{list} cannot block in the `{}` schema; add context with `context \"…\"` or record it with `log`",
                self.schema.name
            ));
        self.emit(d);
        None
    }

    /// The path of an edit, checked: a field of an editable root. It is
    /// returned as written (not normalized), to name it in diagnostics.
    pub(super) fn editable(&mut self, p: &ast::Path) -> Option<FieldPath> {
        self.path(p)?;
        let path = FieldPath {
            root: Root::from_name(&p.root.name)?,
            segments: p.segments.clone(),
            normalized: false,
        };
        if path.root.is_editable() {
            Some(path)
        } else {
            let d = self
                .error(
                    "not-editable",
                    format!("`{}` cannot be edited", path.root.as_str()),
                    p.span,
                    "read-only",
                )
                .with_help("rules may edit `payload` and `metadata`");
            self.emit(d);
            None
        }
    }

    /// Checks an action: its templates, values, paths and regexes, and
    /// whether the rule's points allow it.
    pub(super) fn action(&mut self, action: &ast::Action) -> Option<()> {
        use ast::ActionKind as A;
        match &action.kind {
            A::Continue
            | A::Allow
            | A::Exec(..)
            | A::Sh(_)
            | A::Call(_)
            | A::CallLua(_)
            | A::Lua(_) => {}
            A::Abort(reason) | A::Ask(reason) => {
                let reason = match reason {
                    Some(r) => self.template(r).map(|_| ()),
                    None => Some(()),
                };
                self.check_blocking(action)?;
                reason?;
            }
            A::Skip(value) => {
                let value = match value {
                    Some(v) => self.expr(v, Strings::Templates).map(|_| ()),
                    None => Some(()),
                };
                self.check_blocking(action)?;
                value?;
            }
            A::Replace(value) => {
                let not_post: Vec<String> = self
                    .points
                    .iter()
                    .filter(|(_, k)| *k != PointKind::Post)
                    .map(|(n, k)| format!("`{n}` ({k})"))
                    .collect();
                if !not_post.is_empty() {
                    let d = self
                        .error(
                            "replace-not-post",
                            format!("`replace` is only allowed at post points, not at {}", not_post.join(", ")),
                            action.span,
                            "replaces the result",
                        )
                        .with_help("at pre points, edit the input with `set`, or end the chain with `skip <value>`");
                    self.emit(d);
                    return None;
                }
                self.expr(value, Strings::Templates)?;
            }
            A::Set(path, value) => {
                let target = self.editable(path);
                let vty = self.expr(value, Strings::Templates)?;
                let target = target?;
                self.check_set_type(&target, path, value, vty)?;
            }
            A::Unset(path) => {
                self.editable(path)?;
            }
            A::Rewrite(path, re, _) => {
                let target = self.editable(path);
                self.regex_ref(re)?;
                let target = target?;
                self.check_string_edit(&target, path, "rewrite")?;
            }
            A::Prepend(path, text) | A::Append(path, text) => {
                let target = self.editable(path);
                self.template(text)?;
                let target = target?;
                self.check_string_edit(&target, path, action.kind.keyword())?;
            }
            A::Meta(_, value) => {
                self.expr(value, Strings::Templates)?;
            }
            A::Output(name, value) => {
                let vty = self.expr(value, Strings::Templates)?;
                self.check_output(name, value, vty)?;
            }
            A::Log(level, message) => {
                if LogLevel::from_name(&level.name).is_none() {
                    let d = self
                        .error(
                            "unknown-level",
                            format!("unknown log level `{}`", level.name),
                            level.span,
                            "not a level",
                        )
                        .with_help("levels are trace, debug, info, warn, error");
                    self.emit(d);
                    return None;
                }
                self.template(message)?;
            }
            A::Context(text) => {
                self.template(text)?;
            }
            A::Webhook(w) => {
                // Every path is checked (and reported) before giving up.
                for p in &w.include {
                    self.path(p);
                }
            }
            A::Trace(_, fields) => {
                // Every path is checked (and reported) before giving up.
                for p in fields {
                    self.path(p);
                }
            }
        }
        Some(())
    }
}

/// `a`, `b` and `c`, each in backticks.
fn quoted_list(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => quoted.join(""),
    }
}
