//! Comments: collected from the source (the parser skips them), and put
//! back before, after or beside what they belong to.

use super::*;

/// A `#` comment of the source.
#[derive(Clone, Debug)]
pub(super) struct Comment {
    /// Byte offset of the `#`.
    pub(super) start: usize,
    /// The text, `#` included, trailing blanks removed.
    pub(super) text: String,
}

/// Every comment of `text`: `#` outside strings, regexes, paths and FQL
/// targets (the only tokens that may hold a `#`), whose spans the AST knows.
pub(super) fn collect_comments(text: &str, file: &File) -> Vec<Comment> {
    let opaque = literal_spans(file);
    let bytes = text.as_bytes();
    let mut comments = Vec::new();
    let mut next = opaque.iter().peekable();
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        while next.peek().is_some_and(|s| end(**s) <= i) {
            next.next();
        }
        if let Some(s) = next.peek() {
            if start(**s) <= i {
                i = end(**s).max(i + 1);
                continue;
            }
        }
        if b == b'#' {
            let len = text
                .get(i..)
                .and_then(|rest| rest.find(['\n', '\r']))
                .unwrap_or(text.len() - i);
            let body = text.get(i..i + len).unwrap_or("#").trim_end();
            comments.push(Comment {
                start: i,
                text: body.to_owned(),
            });
            i += len.max(1);
            continue;
        }
        i += 1;
    }
    comments
}

pub(super) fn opaque_item(item: &Item, out: &mut Vec<Span>) {
    match item {
        Item::Schema(d) => {
            if let SchemaRef::Path(s) = &d.schema {
                out.push(s.span);
            }
        }
        Item::Import(d) => out.push(d.path.span),
        Item::List(d) => d.items.iter().for_each(|e| opaque_expr(e, out)),
        Item::Pattern(d) => out.push(d.regex.span),
        Item::Override(_) => {}
        Item::Macro(d) => opaque_expr(&d.body, out),
        Item::Hook(h) => {
            if let Some(t) = &h.target {
                out.push(t.span);
            }
            for c in &h.conditions {
                opaque_expr(&c.expr, out);
            }
            for a in &h.actions {
                opaque_action(a, out);
            }
        }
        Item::Test(t) => {
            out.push(t.name.span);
            match &t.event_file {
                Some(file) => out.push(file.span),
                None => opaque_expr(&t.event, out),
            }
            if let Some(target) = &t.target {
                out.push(target.span);
            }
            for m in &t.mocks {
                out.push(m.subject.span);
                match &m.reply {
                    MockReply::Abort(Some(s)) | MockReply::Ask(Some(s)) => out.push(s.span),
                    MockReply::Skip(Some(v)) => opaque_expr(v, out),
                    MockReply::Webhook(Some(s)) => out.push(s.span),
                    MockReply::Command(parts) => {
                        for part in parts {
                            match part {
                                CommandPart::Stdout(v) => opaque_expr(v, out),
                                CommandPart::Stderr(s) => out.push(s.span),
                                CommandPart::Exit(..) => {}
                            }
                        }
                    }
                    _ => {}
                }
            }
            for e in &t.expects {
                match &e.kind {
                    ExpectKind::Abort(s) | ExpectKind::Ask(s) => {
                        out.extend(s.as_ref().map(|s| s.span));
                    }
                    ExpectKind::Skip(v) => v.iter().for_each(|v| opaque_expr(v, out)),
                    ExpectKind::Fired(v) | ExpectKind::Condition(v) | ExpectKind::Output(v) => {
                        opaque_expr(v, out);
                    }
                    ExpectKind::Continue | ExpectKind::Decision(_) | ExpectKind::Exit(_) => {}
                }
            }
        }
    }
}

pub(super) fn opaque_action(a: &Action, out: &mut Vec<Span>) {
    match &a.kind {
        ActionKind::Continue | ActionKind::Allow => {}
        ActionKind::Abort(s) | ActionKind::Ask(s) => out.extend(s.as_ref().map(|s| s.span)),
        ActionKind::Skip(e) => e.iter().for_each(|e| opaque_expr(e, out)),
        ActionKind::Replace(e) => opaque_expr(e, out),
        ActionKind::Set(p, e) => {
            out.push(p.span);
            opaque_expr(e, out);
        }
        ActionKind::Unset(p) => out.push(p.span),
        ActionKind::Rewrite(p, re, s) => {
            out.push(p.span);
            opaque_regex(re, out);
            out.push(s.span);
        }
        ActionKind::Prepend(p, s) | ActionKind::Append(p, s) => {
            out.push(p.span);
            out.push(s.span);
        }
        ActionKind::Meta(k, e) => {
            out.push(k.span);
            opaque_expr(e, out);
        }
        ActionKind::Output(_, e) => opaque_expr(e, out),
        ActionKind::Log(_, s)
        | ActionKind::Context(s)
        | ActionKind::Sh(s)
        | ActionKind::Call(s)
        | ActionKind::CallLua(s)
        | ActionKind::Lua(s) => out.push(s.span),
        ActionKind::Trace(file, fields) => {
            out.push(file.span);
            out.extend(fields.iter().map(|p| p.span));
        }
        ActionKind::Webhook(w) => {
            out.push(w.url.span);
            out.extend(w.include.iter().map(|p| p.span));
            for (name, value) in &w.headers {
                out.push(name.span);
                out.push(value.span);
            }
        }
        ActionKind::Exec(p, args) => {
            out.push(p.span);
            out.extend(args.iter().map(|a| a.span));
        }
    }
}

pub(super) fn opaque_regex(re: &RegexRef, out: &mut Vec<Span>) {
    if let RegexRef::Literal(lit) = re {
        out.push(lit.span);
    }
}

pub(super) fn opaque_expr(e: &Expr, out: &mut Vec<Span>) {
    match &e.kind {
        ExprKind::Literal(_) | ExprKind::Name(_) => {}
        ExprKind::Str(s) => out.push(s.span),
        ExprKind::Array(items) => items.iter().for_each(|i| opaque_expr(i, out)),
        ExprKind::Object(entries) => {
            for (k, v) in entries {
                out.push(k.span);
                opaque_expr(v, out);
            }
        }
        ExprKind::Path(p) => out.push(p.span),
        ExprKind::Unary(_, x) | ExprKind::Exists(x) => opaque_expr(x, out),
        ExprKind::Binary(_, a, b) | ExprKind::ContainsAny(a, b) | ExprKind::In(a, b) => {
            opaque_expr(a, out);
            opaque_expr(b, out);
        }
        ExprKind::Matches(a, re) => {
            opaque_expr(a, out);
            opaque_regex(re, out);
        }
        ExprKind::Glob(a, s) => {
            opaque_expr(a, out);
            out.push(s.span);
        }
        ExprKind::Rate(r) => out.push(r.key.span),
        ExprKind::Quantifier(q) => {
            opaque_expr(&q.over, out);
            opaque_expr(&q.body, out);
        }
        ExprKind::Call(_, args) => args.iter().for_each(|a| opaque_expr(a, out)),
    }
}

pub(super) fn start(span: Span) -> usize {
    span.start as usize
}

pub(super) fn end(span: Span) -> usize {
    span.end as usize
}

impl Printer<'_> {
    /// Unused comments that start before `pos`, marked used, in order.
    pub(super) fn take_before(&mut self, pos: usize) -> Vec<Comment> {
        let mut out = Vec::new();
        for (c, used) in self.comments.iter().zip(self.used.iter_mut()) {
            if c.start >= pos {
                break;
            }
            if !*used {
                *used = true;
                out.push(c.clone());
            }
        }
        out
    }

    /// True when an unused comment starts inside `span`.
    pub(super) fn has_comments(&self, span: Span) -> bool {
        self.comments
            .iter()
            .zip(&self.used)
            .any(|(c, used)| !used && c.start > start(span) && c.start < end(span))
    }

    /// True when `pos` starts its line (after blanks) and the line before
    /// it is blank.
    pub(super) fn blank_before(&self, pos: usize) -> bool {
        let before = self.src.get(..pos).unwrap_or("");
        let Some(nl) = before.rfind('\n') else {
            return false;
        };
        let (head, line) = before.split_at(nl);
        if !line.trim().is_empty() {
            return false;
        }
        let prev = head
            .rfind('\n')
            .map_or(head, |i| head.get(i + 1..).unwrap_or(""));
        prev.trim().is_empty()
    }

    /// Own-line comments, keeping single blank lines between them.
    pub(super) fn emit_comments(
        &self,
        out: &mut Buf,
        comments: &[Comment],
        indent: usize,
        blanks: bool,
    ) {
        for (k, c) in comments.iter().enumerate() {
            if blanks && k > 0 && self.blank_before(c.start) {
                out.blank();
            }
            out.push(indent, &c.text);
        }
    }

    /// The comments before `pos`, each on its own line, with the blank line
    /// before the group: forced (`Some(true)`), none (`Some(false)`), or as
    /// in the source (`None`).
    pub(super) fn leading(
        &mut self,
        out: &mut Buf,
        pos: usize,
        indent: usize,
        blank: Option<bool>,
    ) {
        let comments = self.take_before(pos);
        let first = comments.first().map_or(pos, |c| c.start);
        let want = match blank {
            Some(b) => b,
            None => self.blank_before(first),
        };
        if want {
            out.blank();
        }
        self.emit_comments(out, &comments, indent, true);
        if !comments.is_empty() && self.blank_before(pos) {
            out.blank();
        }
    }

    /// The comments before a closing brace or bracket at `pos`: like
    /// [`Printer::leading`], but a block never ends with a blank line.
    pub(super) fn closing(&mut self, out: &mut Buf, pos: usize, indent: usize) {
        let comments = self.take_before(pos);
        if let Some(first) = comments.first() {
            if self.blank_before(first.start) {
                out.blank();
            }
        }
        self.emit_comments(out, &comments, indent, true);
    }

    /// Comments left inside a line's span: moved before it.
    pub(super) fn hoist(&mut self, out: &mut Buf, end: usize, indent: usize) {
        let comments = self.take_before(end);
        self.emit_comments(out, &comments, indent, false);
    }

    /// A comment after `end` on the same line (only blanks and commas in
    /// between) goes at the end of the last line.
    pub(super) fn trailing(&mut self, out: &mut Buf, end: usize) {
        if let Some(comment) = self.take_trailing(end, "") {
            out.append(" ");
            out.append(&comment);
        }
    }

    /// The comment after `end` on the same line (only blanks and commas in
    /// between, and the word `operator` if one is given), marked used.
    pub(super) fn take_trailing(&mut self, end: usize, operator: &str) -> Option<String> {
        let (c, used) = self
            .comments
            .iter()
            .zip(self.used.iter_mut())
            .find(|(c, used)| !**used && c.start >= end)?;
        let gap = self.src.get(end..c.start).unwrap_or("\n");
        let blank = |gap: &str| gap.bytes().all(|b| matches!(b, b' ' | b'\t' | b','));
        let before = gap.trim_start_matches([' ', '\t']);
        let rest = match before.strip_prefix(operator) {
            Some(rest) if !operator.is_empty() => rest,
            _ => gap,
        };
        if !blank(rest) {
            return None;
        }
        *used = true;
        Some(c.text.clone())
    }

    /// True when a comment not yet written starts in `from..to`.
    pub(super) fn has_comment_between(&self, from: usize, to: usize) -> bool {
        self.comments
            .iter()
            .zip(&self.used)
            .any(|(c, used)| !used && (from..to).contains(&c.start))
    }

    /// One line of a block: leading comments, hoisted comments, the text,
    /// a trailing comment.
    pub(super) fn line(
        &mut self,
        out: &mut Buf,
        span: Span,
        indent: usize,
        text: impl FnOnce(&mut Self) -> String,
    ) {
        self.leading(out, start(span), indent, None);
        let text = text(self);
        self.hoist(out, end(span), indent);
        out.push(indent, &text);
        self.trailing(out, end(span));
    }

    /// Where the `{` after `from` is (skipping blanks and comments).
    pub(super) fn brace(&self, from: usize) -> usize {
        let bytes = self.src.as_bytes();
        let mut i = from;
        while let Some(&b) = bytes.get(i) {
            match b {
                b'{' => return i,
                b'#' => {
                    while bytes.get(i).is_some_and(|&c| c != b'\n') {
                        i += 1;
                    }
                }
                _ => i += 1,
            }
        }
        from
    }
}
