//! The observer a dispatch shows every rule to: it evaluates each atom
//! with the dispatch's own matchers and records what the actions did.

use super::*;

/// The observer behind [`Table::explain`].
pub(super) struct Recorder<'t> {
    pub(super) program: &'t Program,
    /// The point's rules as the IR has them (the dispatch reads the same
    /// rules from the table's words).
    pub(super) point: Option<&'t crate::ir::PointProgram>,
    pub(super) scope: &'t str,
    pub(super) name: &'t str,
    pub(super) child: Option<&'t str>,
    pub(super) instance: Option<&'t str>,
    pub(super) rules: Vec<Option<RuleExplanation>>,
    /// The context before the firing rule's actions.
    pub(super) before: Option<HookContext>,
    pub(super) notes: Vec<String>,
}

impl Recorder<'_> {
    fn entry(&mut self, rule: u32) -> Option<&mut RuleExplanation> {
        self.rules.get_mut(rule as usize)?.as_mut()
    }

    fn target(&self, pattern: &FqlPattern) -> TargetExplanation {
        let matched = pattern.matches_parts(self.scope, self.name, self.child, self.instance);
        let mismatch = if matched {
            None
        } else if !pattern.scope.matches(self.scope) {
            Some(format!("scope `{}` is not `{}`", self.scope, pattern.scope))
        } else if !pattern.target.matches(self.name) {
            Some(format!("name `{}` is not `{}`", self.name, pattern.target))
        } else {
            match (&pattern.child, self.child) {
                (Some(want), None) => Some(format!(
                    "the pattern needs a child (`{want}`), the call has none"
                )),
                (Some(want), Some(have)) if !want.matches(have) => {
                    Some(format!("child `{have}` is not `{want}`"))
                }
                _ => match (&pattern.instance, self.instance) {
                    (Some(want), Some(have)) => Some(format!("instance `{have}` is not `{want}`")),
                    _ => None,
                },
            }
        };
        TargetExplanation {
            pattern: pattern.to_string(),
            matched,
            mismatch,
        }
    }

    fn cond<'o>(
        &self,
        cond: &Cond,
        probe: &mut Probe<'_, '_>,
        origins: &mut impl Iterator<Item = &'o Origin>,
    ) -> CondExplanation {
        match cond {
            Cond::True => CondExplanation::True,
            Cond::Atom(a) => {
                let at = origins.next().map(|o| location(self.program, *o));
                let value = probe.atom(*a);
                let atom = self.point.and_then(|p| p.atoms.get(*a as usize));
                let mut paths = Vec::new();
                match atom {
                    Some(Atom::Expr(e)) => expr_paths(e, &mut paths),
                    Some(atom) => paths.extend(atom.field()),
                    None => {}
                }
                let mut shells = Vec::new();
                if let Some(Atom::Expr(e)) = atom {
                    shell_paths(e, &mut shells);
                }
                // The shell view a `shell(field)` reads is shown beside the
                // field: what the rule's conditions actually tested.
                let views = shells.into_iter().map(|p| FieldValue {
                    path: format!("shell({p})"),
                    value: probe
                        .ctx()
                        .get(p)
                        .and_then(|v| v.as_str().map(|s| crate::shell::parse(s).to_json())),
                });
                let fields = paths
                    .into_iter()
                    .map(|p| FieldValue {
                        path: p.to_string(),
                        value: probe.ctx().get(p).map(|v| v.to_json()),
                    })
                    .chain(views)
                    .collect();
                CondExplanation::Atom {
                    value,
                    atom: atom.map_or_else(|| "?".to_string(), |a| render_atom(a, self.program)),
                    fields,
                    at,
                }
            }
            Cond::Not(c) => {
                let operand = self.cond(c, probe, origins);
                CondExplanation::Not {
                    value: !operand.value(),
                    operand: Box::new(operand),
                }
            }
            Cond::All(cs) => {
                let operands: Vec<_> = cs.iter().map(|c| self.cond(c, probe, origins)).collect();
                CondExplanation::All {
                    value: operands.iter().all(CondExplanation::value),
                    operands,
                }
            }
            Cond::Any(cs) => {
                let operands: Vec<_> = cs.iter().map(|c| self.cond(c, probe, origins)).collect();
                CondExplanation::Any {
                    value: operands.iter().any(CondExplanation::value),
                    operands,
                }
            }
        }
    }
}

impl Observer for Recorder<'_> {
    fn reach(&mut self, rule: u32, reach: Reach, probe: &mut Probe<'_, '_>) {
        let Some(r) = self.point.and_then(|p| p.rules.get(rule as usize)) else {
            return;
        };
        let target = self.target(&r.target);
        let mut origins = r.cond_origins.iter();
        let condition = self.cond(&r.cond, probe, &mut origins);
        let matched = r.enabled && target.matched && condition.value();
        if reach == Reach::NotCandidate && matched {
            self.notes.push(format!(
                "rule `{}` matches but the index did not propose it; this is a bug",
                r.id
            ));
        }
        let explanation = RuleExplanation {
            id: r.id.clone(),
            origin: location(self.program, r.origin),
            priority: r.priority,
            enabled: r.enabled,
            target,
            condition,
            matched,
            status: match reach {
                Reach::AfterStop => RuleStatus::NotReached,
                Reach::Candidate | Reach::NotCandidate => RuleStatus::NoMatch,
            },
            actions: Vec::new(),
            changes: Vec::new(),
        };
        if let Some(slot) = self.rules.get_mut(rule as usize) {
            *slot = Some(explanation);
        }
    }

    fn fire(&mut self, rule: u32, ctx: &HookContext) {
        self.before = Some(ctx.clone());
        if let Some(e) = self.entry(rule) {
            e.status = RuleStatus::Fired;
        }
    }

    fn action(&mut self, rule: u32, index: usize, ctx: &HookContext, run: &Run<'_>) {
        let Some(action) = self
            .point
            .and_then(|p| p.rules.get(rule as usize))
            .and_then(|r| r.actions.get(index))
        else {
            return;
        };
        let explained = explain_action(action, ctx, run, self.program);
        if let Some(e) = self.entry(rule) {
            e.actions.push(explained);
        }
    }

    fn fired(&mut self, rule: u32, ctx: &HookContext) {
        let Some(before) = self.before.take() else {
            return;
        };
        let mut changes = Vec::new();
        diff(
            "payload",
            Some(&before.payload),
            Some(&ctx.payload),
            &mut changes,
        );
        let (old, new) = (
            Value::Object(before.metadata),
            Value::Object(ctx.metadata.clone()),
        );
        diff("metadata", Some(&old), Some(&new), &mut changes);
        if let Some(e) = self.entry(rule) {
            e.changes = changes;
        }
    }

    fn depth_limit(&mut self, rule: u32) {
        if let Some(e) = self.entry(rule) {
            e.status = RuleStatus::DepthLimit;
        }
    }
}

/// An action rendered like source, and what it computes on `ctx`.
pub(super) fn explain_action(
    action: &Action,
    ctx: &HookContext,
    run: &Run<'_>,
    program: &Program,
) -> ActionExplanation {
    // The values are computed again for the explanation, with a budget of
    // their own.
    let budget = crate::table::regexes::Budget::default();
    let views = crate::shell::Views::default();
    let matching = crate::table::regexes::Matching {
        regexes: &run.loaded.regexes,
        dfas: &run.loaded.dfas,
        regex_dfas: run.loaded.regex_dfas(),
        regex_needs: run.loaded.regex_needs(),
        budget: &budget,
        views: &views,
        host: run.effects.host_facts(),
    };
    let value = |e: &Expr| match eval::eval(e, ctx, matching) {
        Ok(v) => v.to_json(),
        Err(err) => Value::String(format!("error: {err}")),
    };
    let text = |t: &Template| Value::String(eval::render(t, ctx, || matching).into_owned());
    let (shown, result) = match action {
        Action::Continue => ("continue".to_string(), None),
        Action::Abort(t) => (format!("abort {}", template(t)), Some(text(t))),
        Action::Skip(e) => (format!("skip {}", expr(e, program)), Some(value(e))),
        Action::Replace(e) => {
            let shown = format!("replace {}", expr(e, program));
            if run.point.kind() == PointKind::Post {
                (shown, Some(value(e)))
            } else {
                (format!("{shown} (ignored: not a post point)"), None)
            }
        }
        Action::Set(p, e) => (format!("set {p} = {}", expr(e, program)), Some(value(e))),
        Action::Unset(p) => (format!("unset {p}"), None),
        Action::Rewrite(p, re, replacement) => (
            format!(
                "rewrite {p} {} -> {}",
                regex(*re, program),
                quote(replacement)
            ),
            None,
        ),
        Action::Prepend(p, t) => (format!("prepend {p} {}", template(t)), Some(text(t))),
        Action::Append(p, t) => (format!("append {p} {}", template(t)), Some(text(t))),
        Action::Meta(key, e) => (
            format!("meta {} = {}", quote(key), expr(e, program)),
            Some(value(e)),
        ),
        Action::Log(level, t) => (
            format!("log {} {}", level.as_str(), template(t)),
            Some(text(t)),
        ),
        Action::Ask(t) => (format!("ask {}", template(t)), Some(text(t))),
        Action::Allow => ("allow".to_string(), None),
        Action::Context(t) => (format!("context {}", template(t)), Some(text(t))),
        Action::Output(name, e) => (
            format!("output {name} = {}", expr(e, program)),
            Some(value(e)),
        ),
        Action::Exec {
            program: prog,
            args,
            shell,
        } => {
            let mut shown = format!("{} {}", if *shell { "sh" } else { "exec" }, quote(prog));
            for arg in args {
                let _ = write!(shown, " {}", quote(arg));
            }
            (shown, None)
        }
        Action::Webhook {
            url,
            include,
            headers,
        } => {
            let mut shown = format!("webhook {}", quote(url));
            for (i, path) in include.iter().enumerate() {
                let _ = write!(shown, "{}{path}", if i == 0 { " include " } else { ", " });
            }
            for (name, value) in headers {
                let _ = write!(shown, " header {} {}", quote(name), quote(value));
            }
            (shown, None)
        }
        Action::Call(handler) => (format!("call {}", quote(handler)), None),
        Action::Lua(LuaCode::File(file)) => (format!("call lua {}", quote(file)), None),
        Action::Lua(LuaCode::Inline(_)) => ("lua \"\"\"…\"\"\"".to_string(), None),
        Action::Trace { file, fields } => {
            let mut shown = format!("trace {}", quote(file));
            for (i, path) in fields.iter().enumerate() {
                let _ = write!(shown, "{}{path}", if i == 0 { " " } else { ", " });
            }
            (shown, None)
        }
    };
    ActionExplanation {
        action: shown,
        result,
    }
}

/// The distinct fields an expression reads through `shell(…)`, in order.
fn shell_paths<'e>(e: &'e Expr, out: &mut Vec<&'e crate::ir::FieldPath>) {
    match e {
        Expr::Call(crate::ir::Func::Shell, args) => {
            for arg in args {
                match arg {
                    Expr::Path(p) if !out.contains(&p) => out.push(p),
                    other => shell_paths(other, out),
                }
            }
        }
        _ => e.each_child(|child, _| shell_paths(child, out)),
    }
}

/// The distinct fields an expression reads, in order.
pub(super) fn expr_paths<'e>(e: &'e Expr, out: &mut Vec<&'e crate::ir::FieldPath>) {
    let mut add = |p: &'e crate::ir::FieldPath| {
        if !out.contains(&p) {
            out.push(p);
        }
    };
    match e {
        Expr::Const(_) => {}
        Expr::Path(p) | Expr::Exists(p) => add(p),
        Expr::Template(t) => {
            for part in &t.parts {
                if let TemplatePart::Path(p) = part {
                    add(p);
                }
            }
        }
        Expr::Array(items) => items.iter().for_each(|i| expr_paths(i, out)),
        Expr::Object(fields) => fields.iter().for_each(|(_, v)| expr_paths(v, out)),
        Expr::Unary(_, x) | Expr::Matches(x, _) | Expr::WordsAny(x, _) | Expr::InSet(x, _) => {
            expr_paths(x, out)
        }
        Expr::Binary(_, a, b) | Expr::In(a, b) | Expr::ContainsAny(a, b) => {
            expr_paths(a, out);
            expr_paths(b, out);
        }
        Expr::Rate(r) => {
            for part in &r.key.parts {
                if let TemplatePart::Path(p) = part {
                    add(p);
                }
            }
        }
        Expr::Quantifier(_, list, body) | Expr::Let(list, body) => {
            expr_paths(list, out);
            expr_paths(body, out);
        }
        Expr::Var(..) => {}
        Expr::Call(_, args) => args.iter().for_each(|a| expr_paths(a, out)),
        Expr::Capture(subject, ..) => expr_paths(subject, out),
    }
}
