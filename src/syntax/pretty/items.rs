//! Items, rule and test bodies, and actions, one line each.

use super::*;

/// A rule's options in a fixed order, each after a blank.
fn options(options: &[HookOption]) -> String {
    let rank = |k: &HookOptionKind| match k {
        HookOptionKind::Priority(_) => 0,
        HookOptionKind::Fail(_) => 1,
        HookOptionKind::Timeout(_) => 2,
        HookOptionKind::Disabled => 3,
    };
    let mut kinds: Vec<&HookOptionKind> = options.iter().map(|o| &o.kind).collect();
    kinds.sort_by_key(|k| rank(k));
    let mut out = String::new();
    for opt in kinds {
        out.push(' ');
        out.push_str(&match opt {
            HookOptionKind::Priority(n) => format!("priority {n}"),
            HookOptionKind::Fail(crate::ir::FailMode::Open) => "fail open".to_owned(),
            HookOptionKind::Fail(crate::ir::FailMode::Closed) => "fail closed".to_owned(),
            HookOptionKind::Timeout(ms) => format!("timeout {}", duration(*ms)),
            HookOptionKind::Disabled => "disabled".to_owned(),
        });
    }
    out
}

impl Printer<'_> {
    pub(super) fn item(&mut self, out: &mut Buf, item: &Item) {
        let span = item_span(item);
        match item {
            Item::Schema(d) => {
                let text = match &d.schema {
                    SchemaRef::Builtin(name) => format!("schema {}", name.name),
                    SchemaRef::Path(p) => format!("schema {}", quote(&p.value)),
                };
                self.hoist(out, end(span), 0);
                out.push(0, &text);
            }
            Item::Import(d) => {
                self.hoist(out, end(span), 0);
                out.push(0, &format!("import {}", quote(&d.path.value)));
            }
            Item::List(d) => {
                let op = if d.extends { "+=" } else { "=" };
                let head = format!("list {} {op} ", d.name.name);
                let items = Expr {
                    kind: ExprKind::Array(d.items.clone()),
                    span: Span::new(start(d.name.span), end(span)),
                };
                let text = self.tail(&items, 0, head.len(), 0);
                self.hoist(out, end(span), 0);
                out.push(0, &format!("{head}{text}"));
            }
            Item::Pattern(d) => {
                self.hoist(out, end(span), 0);
                out.push(
                    0,
                    &format!("pattern {} = {}", d.name.name, regex_lit(&d.regex)),
                );
            }
            Item::Macro(d) => {
                let text = self.expr(&d.body, 0);
                self.hoist(out, end(span), 0);
                out.push(0, &format!("macro {} = {text}", d.name.name));
            }
            Item::Hook(h) => self.hook(out, h),
            Item::Override(d) => {
                self.hoist(out, end(span), 0);
                out.push(0, &format!("override {}{}", d.id.name, options(&d.options)));
            }
            Item::Test(t) => self.test(out, t),
        }
    }

    pub(super) fn hook(&mut self, out: &mut Buf, h: &Hook) {
        let mut head = format!("hook {} on ", h.id.name);
        let points: Vec<&str> = h.points.iter().map(|p| p.name.as_str()).collect();
        head.push_str(&points.join(", "));
        if let Some(t) = &h.target {
            head.push_str(" at ");
            let bare = !t.value.is_empty()
                && t.value.chars().all(|c| {
                    c.is_ascii_alphanumeric()
                        || matches!(c, '_' | '*' | '.' | ':' | '/' | '#' | '@' | '-')
                });
            if bare {
                head.push_str(&t.value);
            } else {
                head.push_str(&quote(&t.value));
            }
        }
        head.push_str(&options(&h.options));
        let open = self.brace(end(h.header_span));
        let close = end(h.span).saturating_sub(1);
        let lines: Vec<Line<'_>> = h
            .conditions
            .iter()
            .map(Line::Condition)
            .chain(h.actions.iter().map(Line::Action))
            .collect();
        self.block(out, &head, open, close, &lines);
    }

    pub(super) fn test(&mut self, out: &mut Buf, t: &TestDecl) {
        let head = format!("test {}", quote(&t.name.value));
        let open = self.brace(end(t.name.span));
        let close = end(t.span).saturating_sub(1);
        let mut lines = vec![Line::Event(&t.event, t.event_span, t.event_file.as_ref())];
        if let Some(target) = &t.target {
            lines.push(Line::Target(target, t.target_span.unwrap_or(target.span)));
        }
        if let Some((count, span)) = t.repeat {
            lines.push(Line::Repeat(count, span));
        }
        lines.extend(t.mocks.iter().map(Line::Mock));
        lines.extend(t.expects.iter().map(Line::Expect));
        self.block(out, &head, open, close, &lines);
    }

    /// `head {`, the lines, `}`; `{}` when empty.
    pub(super) fn block(
        &mut self,
        out: &mut Buf,
        head: &str,
        open: usize,
        close: usize,
        lines: &[Line<'_>],
    ) {
        self.hoist(out, open, 0);
        let empty = lines.is_empty() && !self.has_comments(Span::new(open, close + 1));
        if empty {
            out.push(0, &format!("{head} {{}}"));
            return;
        }
        out.push(0, &format!("{head} {{"));
        self.trailing(out, open + 1);
        let mut body = Buf::block();
        for line in lines {
            let span = line.span();
            self.line(&mut body, span, 1, |p| p.body_line(line));
        }
        self.closing(&mut body, close, 1);
        out.lines.append(&mut body.lines);
        out.push(0, "}");
    }

    pub(super) fn body_line(&mut self, line: &Line<'_>) -> String {
        let indent = 1;
        let col = INDENT.len();
        match line {
            Line::Condition(c) if c.binding.is_some() => {
                let name = c.binding.as_ref().map_or("", |b| b.name.as_str());
                let head = format!("let {name} = ");
                format!(
                    "{head}{}",
                    self.condition(&c.expr, indent, col + head.len())
                )
            }
            Line::Condition(c) => {
                let kw = if c.negated { "unless " } else { "when " };
                format!("{kw}{}", self.condition(&c.expr, indent, col + kw.len()))
            }
            Line::Action(a) => self.action(a, indent, col),
            Line::Event(_, _, Some(file)) => format!("event file {}", quote(&file.value)),
            Line::Event(e, _, None) => format!("event {}", self.tail(e, indent, col + 6, 0)),
            Line::Target(t, _) => format!("target {}", quote(&t.value)),
            Line::Repeat(n, _) => format!("repeat {n}"),
            Line::Mock(m) => {
                let reply = match &m.reply {
                    MockReply::Continue => "continue".to_owned(),
                    MockReply::Abort(r) => with_reason("abort", r.as_ref()),
                    MockReply::Ask(r) => with_reason("ask", r.as_ref()),
                    MockReply::Skip(None) => "skip".to_owned(),
                    MockReply::Skip(Some(v)) => format!("skip {}", self.tail(v, indent, col, 0)),
                    MockReply::Allow => "allow".to_owned(),
                    MockReply::Command(parts) => parts
                        .iter()
                        .map(|part| match part {
                            CommandPart::Exit(code, _) => format!("exit {code}"),
                            CommandPart::Stdout(v) => {
                                format!("stdout {}", self.tail(v, indent, col, 0))
                            }
                            CommandPart::Stderr(s) => format!("stderr {}", quote(&s.value)),
                        })
                        .collect::<Vec<_>>()
                        .join(" "),
                    MockReply::Webhook(fail) => fail
                        .as_ref()
                        .map(|r| format!("fail {}", quote(&r.value)))
                        .unwrap_or_default(),
                };
                let kind = match m.kind {
                    MockKind::Call => "",
                    MockKind::Exec => "exec ",
                    MockKind::Sh => "sh ",
                    MockKind::Webhook => "webhook ",
                };
                let line = format!("mock {kind}{} {reply}", quote(&m.subject.value));
                line.trim_end().to_owned()
            }
            Line::Expect(e) => {
                let head = "expect ";
                let col = col + head.len();
                let body = match &e.kind {
                    ExpectKind::Abort(r) => with_reason("abort", r.as_ref()),
                    ExpectKind::Ask(r) => with_reason("ask", r.as_ref()),
                    ExpectKind::Continue => "continue".to_owned(),
                    ExpectKind::Skip(None) => "skip".to_owned(),
                    ExpectKind::Skip(Some(v)) => {
                        let text = self.tail(v, indent, col + 5, 0);
                        format!("skip {}", guard_expect(text, &["expect"]))
                    }
                    ExpectKind::Fired(v) => format!("fired {}", self.tail(v, indent, col + 6, 0)),
                    ExpectKind::Decision(d) => format!("decision {}", d.name),
                    ExpectKind::Output(v) => format!("output {}", self.tail(v, indent, col + 7, 0)),
                    ExpectKind::Exit(n) => format!("exit {n}"),
                    ExpectKind::Condition(c) => {
                        let text = self.expr(c, indent);
                        guard_expect(text, &["fired", "decision", "expect"])
                    }
                };
                format!("{head}{body}")
            }
        }
    }

    pub(super) fn action(&mut self, a: &Action, indent: usize, col: usize) -> String {
        match &a.kind {
            ActionKind::Continue => "continue".to_owned(),
            ActionKind::Abort(r) => {
                let written = self.src.get(start(a.span)..).unwrap_or("");
                let kw = if written.starts_with("deny") {
                    "deny"
                } else {
                    "abort"
                };
                with_reason(kw, r.as_ref())
            }
            ActionKind::Skip(None) => "skip".to_owned(),
            ActionKind::Skip(Some(v)) => format!("skip {}", self.tail(v, indent, col + 5, 0)),
            ActionKind::Replace(v) => format!("replace {}", self.tail(v, indent, col + 8, 0)),
            ActionKind::Set(p, v) => {
                let head = format!("set {} = ", path(p));
                let text = self.tail(v, indent, col + head.len(), 0);
                format!("{head}{text}")
            }
            ActionKind::Unset(p) => format!("unset {}", path(p)),
            ActionKind::Rewrite(p, re, s) => format!(
                "rewrite {} {} -> {}",
                path(p),
                regex_ref(re),
                quote(&s.value)
            ),
            ActionKind::Prepend(p, s) => format!("prepend {} {}", path(p), quote(&s.value)),
            ActionKind::Append(p, s) => format!("append {} {}", path(p), quote(&s.value)),
            ActionKind::Meta(k, v) => {
                let key = if is_name(&k.value, true) {
                    k.value.clone()
                } else {
                    quote(&k.value)
                };
                let head = format!("meta {key} = ");
                let text = self.tail(v, indent, col + head.len(), 0);
                format!("{head}{text}")
            }
            ActionKind::Output(name, v) => {
                let head = format!("output {} = ", name.name);
                let text = self.tail(v, indent, col + head.len(), 0);
                format!("{head}{text}")
            }
            ActionKind::Log(level, s) => format!("log {} {}", level.name, quote(&s.value)),
            ActionKind::Ask(r) => with_reason("ask", r.as_ref()),
            ActionKind::Allow => "allow".to_owned(),
            ActionKind::Context(s) => format!("context {}", quote(&s.value)),
            ActionKind::Exec(p, args) => {
                let mut text = format!("exec {}", quote(&p.value));
                for arg in args {
                    text.push(' ');
                    text.push_str(&quote(&arg.value));
                }
                text
            }
            ActionKind::Sh(s) => format!("sh {}", quote(&s.value)),
            ActionKind::Webhook(w) => {
                let mut text = format!("webhook {}", quote(&w.url.value));
                for (i, p) in w.include.iter().enumerate() {
                    text.push_str(if i == 0 { " include " } else { ", " });
                    text.push_str(&path(p));
                }
                for (name, value) in &w.headers {
                    text.push_str(&format!(
                        " header {} {}",
                        quote(&name.value),
                        quote(&value.value)
                    ));
                }
                text
            }
            ActionKind::Call(s) => format!("call {}", quote(&s.value)),
            ActionKind::CallLua(s) => format!("call lua {}", quote(&s.value)),
            ActionKind::Lua(code) => {
                // Code over lines (or with quotes) reads best raw.
                if (code.value.contains('\n') || code.value.contains('"'))
                    && !code.value.contains("\"\"\"")
                {
                    format!("lua \"\"\"{}\"\"\"", code.value)
                } else {
                    format!("lua {}", quote(&code.value))
                }
            }
            ActionKind::Trace(file, fields) => {
                let mut text = format!("trace {}", quote(&file.value));
                for (i, p) in fields.iter().enumerate() {
                    text.push_str(if i == 0 { " " } else { ", " });
                    text.push_str(&path(p));
                }
                text
            }
        }
    }
}

/// One line of a rule or test body.
pub(super) enum Line<'a> {
    Condition(&'a Condition),
    Action(&'a Action),
    /// The event and the line's span.
    Event(&'a Expr, Span, Option<&'a StrLit>),
    /// The target and the line's span.
    Target(&'a StrLit, Span),
    /// `repeat N` and the line's span.
    Repeat(u32, Span),
    Mock(&'a Mock),
    Expect(&'a Expect),
}

impl Line<'_> {
    pub(super) fn span(&self) -> Span {
        match self {
            Line::Condition(c) => c.span,
            Line::Action(a) => a.span,
            Line::Event(_, span, _) | Line::Target(_, span) | Line::Repeat(_, span) => *span,
            Line::Mock(m) => m.span,
            Line::Expect(e) => e.span,
        }
    }
}

pub(super) fn regex_ref(re: &RegexRef) -> String {
    match re {
        RegexRef::Literal(lit) => regex_lit(lit),
        RegexRef::Name(n) => n.name.clone(),
    }
}

pub(super) fn with_reason(kw: &str, reason: Option<&StrLit>) -> String {
    match reason {
        Some(r) => format!("{kw} {}", quote(&r.value)),
        None => kw.to_owned(),
    }
}

/// Parenthesizes an expression that would read as another `expect` form
/// (a macro named `fired`, say).
pub(super) fn guard_expect(text: String, words: &[&str]) -> String {
    let clash = words.iter().any(|w| {
        text.strip_prefix(w)
            .is_some_and(|rest| !rest.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_'))
    });
    if clash {
        format!("({text})")
    } else {
        text
    }
}
