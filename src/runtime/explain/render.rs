//! Rendering: atoms, expressions and templates written like source, JSON
//! differences, and the human form of an [`Explanation`].

use super::*;

/// An atom rendered like source.
pub(super) fn render_atom(atom: &Atom, program: &Program) -> String {
    let list = |values: &[Value]| {
        let items: Vec<String> = values.iter().map(Value::to_string).collect();
        format!("[{}]", items.join(", "))
    };
    match atom {
        Atom::Eq(p, v) => format!("{p} == {v}"),
        Atom::In(p, vs) => format!("{p} in {}", list(vs)),
        Atom::Cmp(p, op, n) => {
            let op = match op {
                crate::ir::CmpOp::Lt => "<",
                crate::ir::CmpOp::Le => "<=",
                crate::ir::CmpOp::Gt => ">",
                crate::ir::CmpOp::Ge => ">=",
            };
            format!("{p} {op} {n}")
        }
        Atom::Contains(p, v) => format!("{p} contains {v}"),
        Atom::ContainsAny(p, vs) => format!("{p} contains any {}", list(vs)),
        Atom::StartsWith(p, s) => format!("{p} starts_with {}", quote(s)),
        Atom::EndsWith(p, s) => format!("{p} ends_with {}", quote(s)),
        Atom::Matches(p, re) => format!("{p} matches {}", regex(*re, program)),
        Atom::Exists(p) => format!("{p} exists"),
        Atom::Rate(r) => rate(r),
        Atom::Expr(e) => expr(e, program),
    }
}

/// An expression rendered like source, operands of operators in
/// parentheses when they are operations themselves.
pub(super) fn expr(e: &Expr, program: &Program) -> String {
    let operand = |e: &Expr| match e {
        Expr::Binary(..)
        | Expr::In(..)
        | Expr::ContainsAny(..)
        | Expr::Matches(..)
        | Expr::WordsAny(..)
        | Expr::InSet(..) => {
            format!("({})", expr(e, program))
        }
        _ => expr(e, program),
    };
    match e {
        Expr::Const(v) => v.to_string(),
        Expr::Path(p) => p.to_string(),
        Expr::Template(t) => template(t),
        Expr::Array(items) => format!(
            "[{}]",
            items
                .iter()
                .map(|i| expr(i, program))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Expr::Object(fields) => format!(
            "{{{}}}",
            fields
                .iter()
                .map(|(k, v)| format!("{}: {}", quote(k), expr(v, program)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Expr::Unary(op, inner) => match op {
            UnaryOp::Not => format!("not {}", operand(inner)),
            UnaryOp::Neg => format!("-{}", operand(inner)),
            UnaryOp::BitNot => format!("~{}", operand(inner)),
        },
        Expr::Binary(op, a, b) => format!("{} {} {}", operand(a), op.as_str(), operand(b)),
        Expr::In(a, b) => format!("{} in {}", operand(a), operand(b)),
        Expr::ContainsAny(a, b) => format!("{} contains any {}", operand(a), operand(b)),
        Expr::Matches(a, re) => format!("{} matches {}", operand(a), regex(*re, program)),
        Expr::Exists(p) => format!("{p} exists"),
        Expr::Rate(r) => rate(r),
        // Variables are shown by depth: `$0` is the innermost quantifier's
        // element (the names are not in the table).
        Expr::Quantifier(q, list, body) => {
            format!(
                "{} $ in {}: {}",
                q.keyword(),
                operand(list),
                expr(body, program)
            )
        }
        Expr::Var(depth, segments) => crate::ir::show_var(*depth, segments),
        Expr::Capture(_, _, group) => group.clone(),
        Expr::WordsAny(command, test) => test.show(&expr(command, program)),
        Expr::InSet(value, set) => format!("{} in {}", operand(value), set.show()),
        // A value the compiler moved out of a quantifier: shown where it
        // was written.
        Expr::Let(..) => expr(&e.inline_lets(), program),
        Expr::Call(f, args) => format!(
            "{}({})",
            f.as_str(),
            args.iter()
                .map(|a| expr(a, program))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// `rate("key") > 100 per 60000ms`.
pub(super) fn rate(r: &crate::ir::RateTest) -> String {
    let op = match r.op {
        crate::ir::CmpOp::Lt => "<",
        crate::ir::CmpOp::Le => "<=",
        crate::ir::CmpOp::Gt => ">",
        crate::ir::CmpOp::Ge => ">=",
    };
    format!(
        "rate({}) {op} {} per {}ms",
        template(&r.key),
        r.limit,
        r.window_ms
    )
}

pub(super) fn regex(re: RegexId, program: &Program) -> String {
    match program.regexes.get(re.0 as usize) {
        Some(source) => format!("/{}/{}", source.pattern.replace('/', "\\/"), source.flags),
        None => "/?/".to_string(),
    }
}

/// A template as a string literal with `{path}` holes.
pub(super) fn template(t: &Template) -> String {
    let mut out = String::from("\"");
    for part in &t.parts {
        match part {
            TemplatePart::Lit(s) => {
                let escaped = Value::String(s.clone()).to_string();
                let inner = escaped
                    .get(1..escaped.len().saturating_sub(1))
                    .unwrap_or_default();
                out.push_str(&inner.replace('{', "{{").replace('}', "}}"));
            }
            TemplatePart::Path(p) => {
                let _ = write!(out, "{{{p}}}");
            }
            TemplatePart::Expr(Expr::Capture(_, _, group)) => {
                let _ = write!(out, "{{{group}}}");
            }
            TemplatePart::Expr(_) => out.push_str("{?}"),
        }
    }
    out.push('"');
    out
}

pub(super) fn quote(s: &str) -> String {
    Value::String(s.to_string()).to_string()
}

/// Field-level differences between two JSON values, as `path: old -> new`
/// (numbers compare by value). Used by `explain` and by `hookc eval`'s human
/// output.
pub fn diff(path: &str, before: Option<&Value>, after: Option<&Value>, out: &mut Vec<String>) {
    match (before, after) {
        (Some(Value::Object(a)), Some(Value::Object(b))) => {
            for (key, old) in a {
                diff(&format!("{path}.{key}"), Some(old), b.get(key), out);
            }
            for (key, new) in b {
                if !a.contains_key(key) {
                    diff(&format!("{path}.{key}"), None, Some(new), out);
                }
            }
        }
        (Some(a), Some(b)) if json_eq(a, b) => {}
        (None, None) => {}
        (Some(a), Some(b)) => out.push(format!("{path}: {a} -> {b}")),
        (Some(a), None) => out.push(format!("{path}: {a} -> (removed)")),
        (None, Some(b)) => out.push(format!("{path}: (unset) -> {b}")),
    }
}

/// The longest value shown whole on a human line.
pub(super) const SHOWN: usize = 60;

/// The longest text (a reason, a log line, a warning, a condition) shown
/// on a human line, in characters; longer ones are cut in the middle.
pub(super) const LINE: usize = 200;

/// Text for a human line: control and bidi characters escaped, cut to
/// [`LINE`] characters ([`escape::shorten`]).
pub(super) fn line(text: &str) -> Cow<'_, str> {
    escape::shorten(text, LINE)
}

/// A JSON value for a human line: its first [`SHOWN`] characters, escaped.
pub(super) fn short(v: &Value) -> String {
    let text = v.to_string();
    let mut chars = text.chars();
    let head: String = chars.by_ref().take(SHOWN).collect();
    let head = escape::escape(&head).into_owned();
    if chars.next().is_some() {
        format!("{head}…")
    } else {
        head
    }
}

impl Explanation {
    fn stopped_at(&self) -> Option<&RuleExplanation> {
        self.rules.iter().rev().find(|r| {
            r.status == RuleStatus::DepthLimit
                || (r.status == RuleStatus::Fired
                    && matches!(
                        self.outcome.outcome,
                        crate::runtime::OutcomeKind::Abort | crate::runtime::OutcomeKind::Skip
                    ))
        })
    }
}

/// The human form of `hookc explain`: one block per rule with ✓ (fired) or
/// ✗, its target, its condition tree with each part's value and where it is
/// written, what it did; then the outcome.
impl fmt::Display for Explanation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = self.kind.map(|k| format!(" ({k})")).unwrap_or_default();
        let fired = self
            .rules
            .iter()
            .filter(|r| r.status == RuleStatus::Fired)
            .count();
        let rules = match self.rules.len() {
            0 => "no rules".to_string(),
            1 => "1 rule".to_string(),
            n => format!("{n} rules"),
        };
        writeln!(
            f,
            "point `{}`{kind} for `{}`: {rules}, {fired} fired",
            line(&self.point),
            line(&self.target)
        )?;
        let stop = self.stopped_at().map(|r| r.id.as_str());
        for rule in &self.rules {
            writeln!(f)?;
            let mark = if rule.status == RuleStatus::Fired {
                "✓"
            } else {
                "✗"
            };
            writeln!(
                f,
                "{mark} {}  priority {}  {}",
                line(&rule.id),
                rule.priority,
                line(&rule.origin.to_string())
            )?;
            let pattern = line(&rule.target.pattern);
            match &rule.target.mismatch {
                None if rule.target.matched => writeln!(f, "    target  {pattern}  matches")?,
                None => writeln!(f, "    target  {pattern}  does not match")?,
                Some(why) => writeln!(f, "    target  {pattern}  does not match: {}", line(why))?,
            }
            match &rule.condition {
                CondExplanation::True => writeln!(f, "    when    (always)")?,
                c => {
                    write!(f, "    when    ")?;
                    cond_lines(f, c, 4)?;
                }
            }
            let status = match rule.status {
                RuleStatus::Fired => "fired".to_string(),
                RuleStatus::DepthLimit => {
                    "matched, but the depth limit stopped the chain here".to_string()
                }
                RuleStatus::NotReached => {
                    let after = stop
                        .map(|s| format!(" at `{}`", line(s)))
                        .unwrap_or_default();
                    let would = if rule.matched {
                        "; it would have matched"
                    } else {
                        ""
                    };
                    format!("not reached: the chain ended{after}{would}")
                }
                RuleStatus::NoMatch if !rule.enabled => "did not fire: disabled".to_string(),
                RuleStatus::NoMatch if !rule.target.matched => {
                    "did not fire: the target does not match".to_string()
                }
                RuleStatus::NoMatch => "did not fire: the condition is false".to_string(),
            };
            writeln!(f, "    {status}")?;
            for action in &rule.actions {
                let shown = line(&action.action);
                match &action.result {
                    Some(result) => writeln!(f, "      {shown}  → {}", short(result))?,
                    None => writeln!(f, "      {shown}")?,
                }
            }
            for change in &rule.changes {
                writeln!(f, "      changed {}", line(change))?;
            }
        }
        writeln!(f)?;
        let o = &self.outcome;
        let kind = serde_json::to_value(o.outcome).unwrap_or(Value::Null);
        writeln!(f, "outcome   {}", kind.as_str().unwrap_or("?"))?;
        if let Some(reason) = &o.reason {
            writeln!(f, "reason    {}", line(reason))?;
        }
        if let Some(value) = &o.value {
            writeln!(f, "value     {}", line(&value.to_string()))?;
        }
        if let Some(decision) = o.decision {
            let d = serde_json::to_value(decision).unwrap_or(Value::Null);
            writeln!(f, "decision  {}", d.as_str().unwrap_or("?"))?;
        }
        let fired: Vec<&str> = o.fired.iter().map(String::as_str).collect();
        writeln!(
            f,
            "fired     {}",
            if fired.is_empty() {
                "(none)".to_string()
            } else {
                // Every id, however many: only escaped.
                escape::escape(&fired.join(", ")).into_owned()
            }
        )?;
        for log in &o.logs {
            writeln!(
                f,
                "log       {} [{}] {}",
                log.level.as_str(),
                line(&log.rule),
                line(&log.message)
            )?;
        }
        for text in &o.additional_context {
            writeln!(f, "context   {}", line(text))?;
        }
        for (name, value) in &o.outputs {
            writeln!(f, "output    {} = {}", line(name), line(&value.to_string()))?;
        }
        for warning in &o.warnings {
            writeln!(f, "warning   {}", line(warning))?;
        }
        for note in &self.notes {
            writeln!(f, "note      {}", line(note))?;
        }
        Ok(())
    }
}

/// The most commands of a shell view shown; the rest are counted.
const VIEW_COMMANDS: usize = 20;

/// Writes a shell view a condition read, one simple command per line: its
/// program, flags, operands and redirections, and what wrapped it, whether
/// it is dynamic and why it did not parse.
fn shell_view_lines(f: &mut fmt::Formatter<'_>, view: &FieldValue, indent: usize) -> fmt::Result {
    let pad = " ".repeat(indent);
    let Some(Value::Array(commands)) = &view.value else {
        return Ok(());
    };
    let words = |c: &Value, key: &str| -> Vec<String> {
        c.get(key)
            .and_then(Value::as_array)
            .map(|items| {
                items
                    .iter()
                    .filter_map(Value::as_str)
                    .map(shown_word)
                    .collect()
            })
            .unwrap_or_default()
    };
    writeln!(
        f,
        "{pad}{}: {} command{}",
        line(&view.path),
        commands.len(),
        if commands.len() == 1 { "" } else { "s" }
    )?;
    for (i, c) in commands.iter().take(VIEW_COMMANDS).enumerate() {
        let program = c.get("program").and_then(Value::as_str).unwrap_or("");
        let mut shown = format!(
            "{}. {}",
            i + 1,
            if program.is_empty() {
                "(no program)".into()
            } else {
                line(program)
            }
        );
        for (key, label) in [
            ("flags", "flags"),
            ("operands", "operands"),
            ("globs", "globs"),
            ("assignments", "assignments"),
            ("wrappers", "wrapped by"),
        ] {
            let items = words(c, key);
            if !items.is_empty() {
                shown.push_str(&format!("  {label} {}", items.join(" ")));
            }
        }
        let redirects: Vec<String> = c
            .get("redirects")
            .and_then(Value::as_array)
            .map(|rs| {
                rs.iter()
                    .map(|r| {
                        let op = r.get("op").and_then(Value::as_str).unwrap_or("");
                        let target = r.get("target").and_then(Value::as_str).unwrap_or("");
                        format!("{}{}", line(op), line(target))
                    })
                    .collect()
            })
            .unwrap_or_default();
        if !redirects.is_empty() {
            shown.push_str(&format!("  redirects {}", redirects.join(" ")));
        }
        if c.get("dynamic").and_then(Value::as_bool) == Some(true) {
            shown.push_str("  dynamic");
        }
        if let Some(error) = c.get("error").and_then(Value::as_str) {
            shown.push_str(&format!("  error: {}", line(error)));
        }
        writeln!(f, "{pad}  {shown}")?;
    }
    if commands.len() > VIEW_COMMANDS {
        writeln!(f, "{pad}  … {} more", commands.len() - VIEW_COMMANDS)?;
    }
    Ok(())
}

/// A word of a shell view as shown: quoted (JSON) when it is empty or
/// holds blanks, so that `ls -la` as one operand reads as one; escaped.
fn shown_word(word: &str) -> String {
    if word.is_empty() || word.chars().any(char::is_whitespace) {
        line(&Value::String(word.to_owned()).to_string()).into_owned()
    } else {
        line(word).into_owned()
    }
}

/// Writes a condition tree: the node on the current line, its operands
/// indented below.
pub(super) fn cond_lines(
    f: &mut fmt::Formatter<'_>,
    c: &CondExplanation,
    indent: usize,
) -> fmt::Result {
    let mark = |v: bool| if v { "✓" } else { "✗" };
    let pad = " ".repeat(indent + 2);
    match c {
        CondExplanation::True => writeln!(f, "{} true", mark(true)),
        CondExplanation::Atom {
            value,
            atom,
            fields,
            at,
        } => {
            write!(f, "{} {} → {value}", mark(*value), line(atom))?;
            if let Some(at) = at {
                write!(f, "  at {}", line(&at.to_string()))?;
            }
            // Shell views get lines of their own below: a command per line.
            let (views, plain): (Vec<&FieldValue>, Vec<&FieldValue>) = fields
                .iter()
                .partition(|field| field.path.starts_with("shell(") && field.value.is_some());
            let shown: Vec<String> = plain
                .iter()
                .map(|field| match &field.value {
                    Some(v) => format!("{} = {}", line(&field.path), short(v)),
                    None => format!("{} is missing", line(&field.path)),
                })
                .collect();
            if !shown.is_empty() {
                write!(f, "  ({})", shown.join(", "))?;
            }
            writeln!(f)?;
            for view in views {
                shell_view_lines(f, view, indent + 4)?;
            }
            Ok(())
        }
        CondExplanation::Not { value, operand } => {
            writeln!(f, "{} not → {value}", mark(*value))?;
            write!(f, "{pad}")?;
            cond_lines(f, operand, indent + 2)
        }
        CondExplanation::All { value, operands } | CondExplanation::Any { value, operands } => {
            let op = if matches!(c, CondExplanation::All { .. }) {
                "all of"
            } else {
                "any of"
            };
            writeln!(f, "{} {op} → {value}", mark(*value))?;
            for operand in operands {
                write!(f, "{pad}")?;
                cond_lines(f, operand, indent + 2)?;
            }
            Ok(())
        }
    }
}
