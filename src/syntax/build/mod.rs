//! Building the AST from the pairs of one parsed item.
//!
//! [`AstBuilder`] walks pest's pairs and makes [`ast`](super::ast) nodes with
//! absolute spans. Items, hooks, tests and actions are here; expressions
//! (predicates, operands, precedence climbing) in [`expr`], and string and
//! regex literals in [`literals`]. What it refuses (bad escapes, durations,
//! regex flags, nesting) becomes a diagnostic, and the item is dropped.

mod expr;
mod literals;

use crate::syntax::errors::nesting_error;
use crate::syntax::unescape::*;
use crate::syntax::vocab::*;

use pest::iterators::Pair;

use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::Root;
use crate::span::{SourceFile, Span};
use crate::syntax::ast::{
    Action, ActionKind, BinaryOp, CommandPart, Condition, Expect, ExpectKind, Expr, ExprKind,
    FailMode, Hook, HookOption, HookOptionKind, Ident, Import, Item, ListDecl, MacroDecl, Mock,
    MockKind, MockReply, OverrideDecl, Path, PatternDecl, Rate, SchemaDecl, SchemaRef, Segment,
    StrLit, TestDecl, Webhook,
};
use crate::syntax::grammar::Rule;

/// Lowering gave up on an item; the reason is already a diagnostic.
#[derive(Debug)]
pub(super) struct Failed;

/// One pest pair of the grammar.
pub(super) type P<'i> = Pair<'i, Rule>;

/// The children of a pair, punctuation left out, consumed in order.
struct Kids<'i> {
    /// The children still to read, read from pest's token queue as they
    /// are taken (nothing is collected).
    rest: std::iter::Peekable<std::iter::Filter<pest::iterators::Pairs<'i, Rule>, NotPunct<'i>>>,
    /// The parent, whose span diagnostics name: only errors need it, so it
    /// is computed then.
    parent: P<'i>,
}

/// The filter that leaves punctuation out of [`Kids`].
type NotPunct<'i> = fn(&P<'i>) -> bool;

/// True for the children [`Kids`] keeps: everything but punctuation.
fn not_punct(p: &P<'_>) -> bool {
    !is_punct(p.as_rule())
}

impl<'i> Kids<'i> {
    /// The next child, if its rule is `rule`.
    fn take_if(&mut self, rule: Rule) -> Option<P<'i>> {
        self.rest.next_if(|p| p.as_rule() == rule)
    }

    /// The next child, whatever its rule.
    fn next(&mut self) -> Option<P<'i>> {
        self.rest.next()
    }

    /// How many of the remaining children have rule `rule`.
    fn count(&self, rule: Rule) -> usize {
        self.rest.clone().filter(|p| p.as_rule() == rule).count()
    }

    /// The rule of the next child.
    fn peek_rule(&mut self) -> Option<Rule> {
        self.rest.peek().map(Pair::as_rule)
    }
}

/// True for the rules whose own end is where a span ends: a span that
/// reaches one of them is not followed into its children (see
/// [`AstBuilder::span`]).
fn stops_span(rule: Rule) -> bool {
    matches!(rule, Rule::string | Rule::regex | Rule::path)
}

/// True for punctuation rules, which carry no information after parsing.
pub(super) fn is_punct(rule: Rule) -> bool {
    matches!(
        rule,
        Rule::eq
            | Rule::comma
            | Rule::colon
            | Rule::arrow
            | Rule::lbrace
            | Rule::rbrace
            | Rule::lbracket
            | Rule::rbracket
            | Rule::lparen
            | Rule::rparen
    )
}

/// Lowers the pairs of one item; spans are offset by `base`.
pub(super) struct AstBuilder<'a> {
    /// The file, for diagnostics.
    pub(super) file: &'a SourceFile,
    /// Byte offset of the parsed text within the file.
    pub(super) base: usize,
    /// Where diagnostics go.
    pub(super) diags: &'a mut Diagnostics,
}

impl AstBuilder<'_> {
    /// The absolute span of a pair, without the blanks and comments pest
    /// includes at the end of a rule that ends in an optional or repeated
    /// part: a non-atomic rule ends where its last child ends.
    fn span(&self, p: &P<'_>) -> Span {
        let span = p.as_span();
        let mut end = span.end();
        if !stops_span(p.as_rule()) {
            // The pair's tokens end with its own `End`; before it comes the
            // `End` of its last child (its `Start` when it has none), and so
            // on down the chain of last children: the span ends where the
            // deepest of them does. Read from the back of the token queue,
            // this costs a step per level, not a `Pairs` per level.
            let mut tokens = p.clone().tokens().rev().skip(1);
            while let Some(pest::Token::End { rule, pos }) = tokens.next() {
                end = pos.pos();
                if stops_span(rule) {
                    break;
                }
            }
        }
        Span::new(self.base + span.start(), self.base + end)
    }

    /// The children of a pair.
    fn kids<'i>(&self, p: P<'i>) -> Kids<'i> {
        let not_punct: NotPunct<'i> = not_punct;
        Kids {
            rest: p.clone().into_inner().filter(not_punct).peekable(),
            parent: p,
        }
    }

    /// Records a grammar/lowering mismatch (a bug, never user error).
    fn bug(&mut self, span: Span, what: &str) -> Failed {
        self.diags.push(
            Diagnostic::error("syntax", format!("internal parser error: {what}"))
                .in_file(self.file)
                .with_primary(span, "while reading this"),
        );
        Failed
    }

    /// The next child, which must have rule `rule`.
    fn take<'i>(&mut self, kids: &mut Kids<'i>, rule: Rule) -> Result<P<'i>, Failed> {
        match kids.take_if(rule) {
            Some(p) => Ok(p),
            None => {
                let span = self.span(&kids.parent);
                Err(self.bug(span, &format!("missing {rule:?}")))
            }
        }
    }

    /// The next child, whatever it is.
    fn take_any<'i>(&mut self, kids: &mut Kids<'i>) -> Result<P<'i>, Failed> {
        match kids.next() {
            Some(p) => Ok(p),
            None => {
                let span = self.span(&kids.parent);
                Err(self.bug(span, "missing child"))
            }
        }
    }

    /// One more level of nesting (a bracket or a prefix operator).
    fn enter(&mut self, depth: Depth, span: Span) -> Result<Depth, Failed> {
        let depth = Depth {
            nest: depth.nest + 1,
            tree: depth.tree + 1,
        };
        if depth.nest > NEST_LIMIT {
            self.diags.push(nesting_error(self.file, span));
            return Err(Failed);
        }
        self.descend(depth, 0, |_| span)
    }

    /// `levels` more levels of tree below an operator chain; `span` gives
    /// the span to report when that is too deep.
    fn descend(
        &mut self,
        depth: Depth,
        levels: usize,
        span: impl FnOnce(&Self) -> Span,
    ) -> Result<Depth, Failed> {
        let depth = Depth {
            nest: depth.nest,
            tree: depth.tree.saturating_add(levels),
        };
        if depth.tree > TREE_LIMIT {
            let span = span(self);
            self.diags.push(
                Diagnostic::error("nesting-limit", "expression is too long")
                    .in_file(self.file)
                    .with_primary(span, format!("more than {TREE_LIMIT} levels of operators"))
                    .with_help(
                        "split it with `macro` definitions, or test membership with `in [...]`",
                    ),
            );
            return Err(Failed);
        }
        Ok(depth)
    }

    /// Lowers an `item`.
    pub(super) fn item(&mut self, p: P<'_>) -> Result<Item, Failed> {
        let span = self.span(&p);
        let mut kids = self.kids(p);
        let decl = self.take_any(&mut kids)?;
        let span_decl = self.span(&decl);
        match decl.as_rule() {
            Rule::schema_decl => {
                let mut k = self.kids(decl);
                self.take(&mut k, Rule::kw_schema)?;
                let which = self.take_any(&mut k)?;
                let schema = match which.as_rule() {
                    Rule::string => SchemaRef::Path(self.string(which)),
                    _ => SchemaRef::Builtin(self.ident(&which)),
                };
                Ok(Item::Schema(SchemaDecl {
                    schema,
                    span: span_decl,
                }))
            }
            Rule::import_decl => {
                let mut k = self.kids(decl);
                self.take(&mut k, Rule::kw_import)?;
                let path = self.take(&mut k, Rule::string)?;
                Ok(Item::Import(Import {
                    path: self.string(path),
                    span: span_decl,
                }))
            }
            Rule::list_decl => {
                let mut k = self.kids(decl);
                self.take(&mut k, Rule::kw_list)?;
                let name = self.take(&mut k, Rule::ident)?;
                let name = self.ident(&name);
                let extends = k.take_if(Rule::plus_eq).is_some();
                let array = self.take(&mut k, Rule::array)?;
                let items = self.array_items(array, Depth::default())?;
                Ok(Item::List(ListDecl {
                    name,
                    extends,
                    items,
                    span: span_decl,
                }))
            }
            Rule::override_decl => {
                let mut k = self.kids(decl);
                self.take(&mut k, Rule::kw_override)?;
                let id = self.take(&mut k, Rule::hook_id)?;
                let id = self.ident(&id);
                let mut options = Vec::new();
                while let Some(opt) = k.take_if(Rule::hook_option) {
                    if let Some(option) = self.hook_option(opt)? {
                        options.push(option);
                    }
                }
                Ok(Item::Override(OverrideDecl {
                    id,
                    options,
                    span: span_decl,
                }))
            }
            Rule::pattern_decl => {
                let mut k = self.kids(decl);
                self.take(&mut k, Rule::kw_pattern)?;
                let name = self.take(&mut k, Rule::ident)?;
                let name = self.ident(&name);
                let regex = self.take(&mut k, Rule::regex)?;
                Ok(Item::Pattern(PatternDecl {
                    name,
                    regex: self.regex(regex),
                    span: span_decl,
                }))
            }
            Rule::macro_decl => {
                let mut k = self.kids(decl);
                self.take(&mut k, Rule::kw_macro)?;
                let name = self.take(&mut k, Rule::ident)?;
                let name = self.ident(&name);
                let body = self.take(&mut k, Rule::expr)?;
                Ok(Item::Macro(MacroDecl {
                    name,
                    body: self.expr(body, Depth::default())?,
                    span: span_decl,
                }))
            }
            Rule::hook => self.hook(decl).map(Item::Hook),
            Rule::test_decl => self.test(decl).map(Item::Test),
            other => Err(self.bug(span, &format!("unexpected {other:?}"))),
        }
    }

    /// An identifier-like token as an [`Ident`].
    fn ident(&self, p: &P<'_>) -> Ident {
        Ident {
            name: p.as_str().to_owned(),
            span: self.span(p),
        }
    }

    /// Lowers a `hook`.
    fn hook(&mut self, p: P<'_>) -> Result<Hook, Failed> {
        let span = self.span(&p);
        let mut kids = self.kids(p);
        let header = self.take(&mut kids, Rule::hook_header)?;
        let header_span = self.span(&header);
        let mut h = self.kids(header);
        self.take(&mut h, Rule::kw_hook)?;
        let id = self.take(&mut h, Rule::hook_id)?;
        let id = self.ident(&id);
        self.take(&mut h, Rule::kw_on)?;
        let mut points = Vec::new();
        while let Some(point) = h.take_if(Rule::point) {
            points.push(self.ident(&point));
        }
        let mut target = None;
        if let Some(t) = h.take_if(Rule::target) {
            let mut tk = self.kids(t);
            self.take(&mut tk, Rule::kw_at)?;
            let fql = self.take_any(&mut tk)?;
            target = Some(match fql.as_rule() {
                Rule::string => self.string(fql),
                _ => StrLit {
                    value: fql.as_str().to_owned(),
                    span: self.span(&fql),
                },
            });
        }
        let mut options = Vec::new();
        while let Some(opt) = h.take_if(Rule::hook_option) {
            if let Some(option) = self.hook_option(opt)? {
                options.push(option);
            }
        }
        let mut conditions = Vec::new();
        while let Some(cond) = kids
            .take_if(Rule::condition)
            .or_else(|| kids.take_if(Rule::let_line))
        {
            let span = self.span(&cond);
            let is_let = cond.as_rule() == Rule::let_line;
            let mut ck = self.kids(cond);
            let kw = self.take_any(&mut ck)?;
            let binding = if is_let {
                let name = self.take(&mut ck, Rule::ident)?;
                Some(self.ident(&name))
            } else {
                None
            };
            let expr = self.take(&mut ck, Rule::expr)?;
            conditions.push(Condition {
                negated: kw.as_rule() == Rule::kw_unless,
                binding,
                expr: self.expr(expr, Depth::default())?,
                span,
            });
        }
        let mut actions = Vec::new();
        while let Some(action) = kids.take_if(Rule::action) {
            actions.push(self.action(action)?);
        }
        Ok(Hook {
            id,
            points,
            target,
            options,
            conditions,
            actions,
            span,
            header_span,
        })
    }

    /// Lowers a `test_decl`.
    fn test(&mut self, p: P<'_>) -> Result<TestDecl, Failed> {
        let span = self.span(&p);
        let mut kids = self.kids(p);
        self.take(&mut kids, Rule::kw_test)?;
        let name = self.take(&mut kids, Rule::string)?;
        let name = self.string(name);
        let event = self.take(&mut kids, Rule::test_event)?;
        let event_span = self.span(&event);
        let mut ek = self.kids(event);
        self.take(&mut ek, Rule::kw_event)?;
        let mut event_file = None;
        let event = match ek.take_if(Rule::event_file) {
            Some(file) => {
                let mut fk = self.kids(file);
                self.take(&mut fk, Rule::kw_file)?;
                let path = self.take(&mut fk, Rule::string)?;
                let path = self.string(path);
                // The loader reads the file into the event.
                let event = Expr {
                    kind: ExprKind::Literal(serde_json::Value::Null),
                    span: path.span,
                };
                event_file = Some(path);
                event
            }
            None => {
                let object = self.take(&mut ek, Rule::object)?;
                self.operand_inner(object, Depth::default())?
            }
        };
        let mut target = None;
        let mut target_span = None;
        if let Some(t) = kids.take_if(Rule::test_target) {
            target_span = Some(self.span(&t));
            let mut tk = self.kids(t);
            self.take(&mut tk, Rule::kw_target)?;
            let s = self.take(&mut tk, Rule::string)?;
            target = Some(self.string(s));
        }
        let mut repeat = None;
        if let Some(r) = kids.take_if(Rule::test_repeat) {
            let line = self.span(&r);
            let mut rk = self.kids(r);
            self.take(&mut rk, Rule::kw_repeat)?;
            let n = self.take(&mut rk, Rule::index)?;
            match n.as_str().parse::<u32>() {
                Ok(count) if (1..=MAX_REPEAT).contains(&count) => repeat = Some((count, line)),
                _ => self.diags.push(
                    Diagnostic::error("syntax", format!("`repeat {}` is out of range", n.as_str()))
                        .in_file(self.file)
                        .with_primary(self.span(&n), "not between 1 and 100000")
                        .with_help("repeat an event between 1 and 100000 times"),
                ),
            }
        }
        let mut mocks = Vec::new();
        while let Some(m) = kids.take_if(Rule::test_mock) {
            let line = self.span(&m);
            let mut mk = self.kids(m);
            self.take(&mut mk, Rule::kw_mock)?;
            let form = self.take_any(&mut mk)?;
            let form_rule = form.as_rule();
            let mut fk = self.kids(form);
            let kind = match form_rule {
                Rule::mock_command if fk.take_if(Rule::kw_exec).is_some() => MockKind::Exec,
                Rule::mock_command => {
                    self.take(&mut fk, Rule::kw_sh)?;
                    MockKind::Sh
                }
                Rule::mock_webhook => {
                    self.take(&mut fk, Rule::kw_webhook)?;
                    MockKind::Webhook
                }
                _ => {
                    fk.take_if(Rule::kw_call);
                    MockKind::Call
                }
            };
            let subject = self.take(&mut fk, Rule::string)?;
            let subject = self.string(subject);
            let reply = match kind {
                MockKind::Exec | MockKind::Sh => {
                    let mut parts = Vec::new();
                    while let Some(part) = fk.next() {
                        let part_rule = part.as_rule();
                        let at = self.span(&part);
                        let mut pk = self.kids(part);
                        self.take_any(&mut pk)?;
                        let value = self.take_any(&mut pk)?;
                        parts.push(match part_rule {
                            Rule::mock_exit => match value.as_str().parse::<u32>() {
                                Ok(code) if code <= 255 => CommandPart::Exit(code, at),
                                _ => {
                                    self.diags.push(
                                        Diagnostic::error(
                                            "syntax",
                                            format!("`exit {}` is out of range", value.as_str()),
                                        )
                                        .in_file(self.file)
                                        .with_primary(self.span(&value), "not between 0 and 255")
                                        .with_help("an exit code is between 0 and 255"),
                                    );
                                    CommandPart::Exit(1, at)
                                }
                            },
                            Rule::mock_stdout if value.as_rule() == Rule::object => {
                                CommandPart::Stdout(self.operand_inner(value, Depth::default())?)
                            }
                            Rule::mock_stdout => {
                                let text = self.string(value);
                                CommandPart::Stdout(Expr {
                                    span: text.span,
                                    kind: ExprKind::Str(text),
                                })
                            }
                            _ => CommandPart::Stderr(self.string(value)),
                        });
                    }
                    MockReply::Command(parts)
                }
                MockKind::Webhook => {
                    let fail = fk.take_if(Rule::mock_fail).and_then(|f| {
                        let mut k = self.kids(f);
                        k.take_if(Rule::kw_fail);
                        k.take_if(Rule::string).map(|s| self.string(s))
                    });
                    MockReply::Webhook(fail)
                }
                MockKind::Call => {
                    let reply = self.take_any(&mut fk)?;
                    let rule = reply.as_rule();
                    let mut rk = self.kids(reply);
                    match rule {
                        Rule::exp_continue => MockReply::Continue,
                        Rule::exp_abort => {
                            self.take(&mut rk, Rule::kw_abort)?;
                            MockReply::Abort(rk.take_if(Rule::string).map(|s| self.string(s)))
                        }
                        Rule::exp_ask => {
                            self.take(&mut rk, Rule::kw_ask)?;
                            MockReply::Ask(rk.take_if(Rule::string).map(|s| self.string(s)))
                        }
                        Rule::mock_skip => {
                            self.take(&mut rk, Rule::kw_skip)?;
                            match rk.take_if(Rule::expr) {
                                Some(e) => MockReply::Skip(Some(self.expr(e, Depth::default())?)),
                                None => MockReply::Skip(None),
                            }
                        }
                        _ => MockReply::Allow,
                    }
                }
            };
            mocks.push(Mock {
                kind,
                subject,
                reply,
                span: line,
            });
        }
        let mut expects = Vec::new();
        while let Some(e) = kids.take_if(Rule::test_expect) {
            expects.push(self.expect(e)?);
        }
        Ok(TestDecl {
            name,
            event,
            event_file,
            event_span,
            mocks,
            target,
            target_span,
            repeat,
            expects,
            span,
        })
    }

    /// Lowers a `test_expect`.
    fn expect(&mut self, p: P<'_>) -> Result<Expect, Failed> {
        let span = self.span(&p);
        let mut kids = self.kids(p);
        self.take(&mut kids, Rule::kw_expect)?;
        let form = self.take_any(&mut kids)?;
        let rule = form.as_rule();
        let mut k = self.kids(form);
        let kind = match rule {
            Rule::exp_abort | Rule::exp_ask => {
                self.take_any(&mut k)?;
                let reason = k.take_if(Rule::string).map(|s| self.string(s));
                if rule == Rule::exp_abort {
                    ExpectKind::Abort(reason)
                } else {
                    ExpectKind::Ask(reason)
                }
            }
            Rule::exp_continue => ExpectKind::Continue,
            Rule::exp_skip => {
                self.take(&mut k, Rule::kw_skip)?;
                match k.take_if(Rule::expr) {
                    Some(e) => ExpectKind::Skip(Some(self.expr(e, Depth::default())?)),
                    None => ExpectKind::Skip(None),
                }
            }
            Rule::exp_fired => {
                self.take(&mut k, Rule::kw_fired)?;
                let array = self.take(&mut k, Rule::array)?;
                ExpectKind::Fired(self.array(array, Depth::default())?)
            }
            Rule::exp_decision => {
                self.take(&mut k, Rule::kw_decision)?;
                let name = self.take(&mut k, Rule::decision_name)?;
                ExpectKind::Decision(self.ident(&name))
            }
            Rule::exp_output => {
                self.take(&mut k, Rule::kw_output)?;
                let value = self.take_any(&mut k)?;
                let vspan = self.span(&value);
                ExpectKind::Output(match value.as_rule() {
                    Rule::object => self.operand_inner(value, Depth::default())?,
                    _ => Expr {
                        kind: ExprKind::Literal(serde_json::Value::Null),
                        span: vspan,
                    },
                })
            }
            Rule::exp_exit => {
                self.take(&mut k, Rule::kw_exit)?;
                let n = self.take(&mut k, Rule::index)?;
                match n.as_str().parse::<u32>() {
                    Ok(n) => ExpectKind::Exit(n),
                    Err(_) => {
                        self.diags.push(
                            Diagnostic::error("syntax", "exit code out of range")
                                .in_file(self.file)
                                .with_primary(self.span(&n), "too large")
                                .with_help("Claude Code reads 0 and 2"),
                        );
                        return Err(Failed);
                    }
                }
            }
            Rule::exp_cond => {
                let e = self.take(&mut k, Rule::expr)?;
                ExpectKind::Condition(self.expr(e, Depth::default())?)
            }
            other => return Err(self.bug(span, &format!("unexpected {other:?}"))),
        };
        Ok(Expect { kind, span })
    }

    /// Lowers a `hook_option`; `None` when its value is invalid (reported).
    fn hook_option(&mut self, p: P<'_>) -> Result<Option<HookOption>, Failed> {
        let mut kids = self.kids(p);
        let opt = self.take_any(&mut kids)?;
        let span = self.span(&opt);
        let rule = opt.as_rule();
        let mut k = self.kids(opt);
        let kind = match rule {
            Rule::opt_priority => {
                self.take(&mut k, Rule::kw_priority)?;
                let n = self.take(&mut k, Rule::int)?;
                match n.as_str().parse::<i64>() {
                    Ok(n) => HookOptionKind::Priority(n),
                    Err(_) => {
                        self.diags.push(
                            Diagnostic::error(
                                "syntax",
                                format!("priority `{}` is out of range", n.as_str()),
                            )
                            .in_file(self.file)
                            .with_primary(self.span(&n), "too large")
                            .with_help("use a priority between -9223372036854775808 and 9223372036854775807"),
                        );
                        return Ok(None);
                    }
                }
            }
            Rule::opt_disabled => HookOptionKind::Disabled,
            Rule::opt_fail => {
                self.take(&mut k, Rule::kw_fail)?;
                let mode = self.take_any(&mut k)?;
                HookOptionKind::Fail(if mode.as_rule() == Rule::kw_closed {
                    FailMode::Closed
                } else {
                    FailMode::Open
                })
            }
            Rule::opt_timeout => {
                self.take(&mut k, Rule::kw_timeout)?;
                let d = self.take(&mut k, Rule::duration)?;
                match parse_duration(d.as_str()) {
                    Ok(ms) => HookOptionKind::Timeout(ms),
                    Err(why) => {
                        self.diags.push(
                            Diagnostic::error(
                                "syntax",
                                format!("invalid duration `{}`", d.as_str()),
                            )
                            .in_file(self.file)
                            .with_primary(self.span(&d), why)
                            .with_help("use a number followed by ms, s, m or h"),
                        );
                        return Ok(None);
                    }
                }
            }
            other => return Err(self.bug(span, &format!("unexpected {other:?}"))),
        };
        Ok(Some(HookOption { kind, span }))
    }

    /// Lowers an `action`.
    fn action(&mut self, p: P<'_>) -> Result<Action, Failed> {
        let mut kids = self.kids(p);
        let act = self.take_any(&mut kids)?;
        let span = self.span(&act);
        let rule = act.as_rule();
        let mut k = self.kids(act);
        // Every action starts with its keyword.
        self.take_any(&mut k)?;
        let kind = match rule {
            Rule::act_continue => ActionKind::Continue,
            Rule::act_abort | Rule::act_deny => {
                ActionKind::Abort(k.take_if(Rule::string).map(|s| self.string(s)))
            }
            Rule::act_skip => match k.take_if(Rule::expr) {
                Some(e) => ActionKind::Skip(Some(self.expr(e, Depth::default())?)),
                None => ActionKind::Skip(None),
            },
            Rule::act_replace => {
                let e = self.take(&mut k, Rule::expr)?;
                ActionKind::Replace(self.expr(e, Depth::default())?)
            }
            Rule::act_set => {
                let path = self.take(&mut k, Rule::path)?;
                let path = self.path(path);
                let e = self.take(&mut k, Rule::expr)?;
                ActionKind::Set(path, self.expr(e, Depth::default())?)
            }
            Rule::act_unset => {
                let path = self.take(&mut k, Rule::path)?;
                ActionKind::Unset(self.path(path))
            }
            Rule::act_rewrite => {
                let path = self.take(&mut k, Rule::path)?;
                let path = self.path(path);
                let re = self.take(&mut k, Rule::regex_ref)?;
                let re = self.regex_ref(re)?;
                let s = self.take(&mut k, Rule::string)?;
                ActionKind::Rewrite(path, re, self.string(s))
            }
            Rule::act_prepend | Rule::act_append => {
                let path = self.take(&mut k, Rule::path)?;
                let path = self.path(path);
                let s = self.take(&mut k, Rule::string)?;
                let s = self.string(s);
                if rule == Rule::act_prepend {
                    ActionKind::Prepend(path, s)
                } else {
                    ActionKind::Append(path, s)
                }
            }
            Rule::act_meta => {
                let key = self.take_any(&mut k)?;
                let key = match key.as_rule() {
                    Rule::string => self.string(key),
                    _ => StrLit {
                        value: key.as_str().to_owned(),
                        span: self.span(&key),
                    },
                };
                let e = self.take(&mut k, Rule::expr)?;
                ActionKind::Meta(key, self.expr(e, Depth::default())?)
            }
            Rule::act_output => {
                let name = self.take(&mut k, Rule::output_name)?;
                let name = self.ident(&name);
                let e = self.take(&mut k, Rule::expr)?;
                ActionKind::Output(name, self.expr(e, Depth::default())?)
            }
            Rule::act_log => {
                let level = self.take(&mut k, Rule::log_level)?;
                let level = self.ident(&level);
                let s = self.take(&mut k, Rule::string)?;
                ActionKind::Log(level, self.string(s))
            }
            Rule::act_ask => ActionKind::Ask(k.take_if(Rule::string).map(|s| self.string(s))),
            Rule::act_allow => ActionKind::Allow,
            Rule::act_call if k.take_if(Rule::kw_lua).is_some() => {
                let s = self.take(&mut k, Rule::string)?;
                ActionKind::CallLua(self.string(s))
            }
            Rule::act_lua => {
                let code = self.take_any(&mut k)?;
                ActionKind::Lua(if code.as_rule() == Rule::long_string {
                    self.long_string(code)
                } else {
                    self.string(code)
                })
            }
            Rule::act_trace => {
                let file = self.take(&mut k, Rule::string)?;
                let file = self.string(file);
                let mut fields = Vec::new();
                while let Some(path) = k.take_if(Rule::path) {
                    fields.push(self.path(path));
                }
                ActionKind::Trace(file, fields)
            }
            Rule::act_context | Rule::act_sh | Rule::act_call => {
                let s = self.take(&mut k, Rule::string)?;
                let s = self.string(s);
                match rule {
                    Rule::act_context => ActionKind::Context(s),
                    Rule::act_sh => ActionKind::Sh(s),
                    _ => ActionKind::Call(s),
                }
            }
            Rule::act_webhook => {
                let url = self.take(&mut k, Rule::string)?;
                let mut webhook = Webhook {
                    url: self.string(url),
                    include: Vec::new(),
                    headers: Vec::new(),
                };
                while let Some(clause) = k.next() {
                    let clause_rule = clause.as_rule();
                    let mut c = self.kids(clause);
                    // Every clause starts with its keyword.
                    self.take_any(&mut c)?;
                    match clause_rule {
                        Rule::webhook_include => {
                            while let Some(path) = c.take_if(Rule::path) {
                                webhook.include.push(self.path(path));
                            }
                        }
                        Rule::webhook_header => {
                            let name = self.take(&mut c, Rule::string)?;
                            let name = self.string(name);
                            let value = self.take(&mut c, Rule::string)?;
                            webhook.headers.push((name, self.string(value)));
                        }
                        other => return Err(self.bug(span, &format!("unexpected {other:?}"))),
                    }
                }
                ActionKind::Webhook(webhook)
            }
            Rule::act_exec => {
                let program = self.take(&mut k, Rule::string)?;
                let program = self.string(program);
                let mut args = Vec::new();
                while let Some(arg) = k.take_if(Rule::string) {
                    args.push(self.string(arg));
                }
                ActionKind::Exec(program, args)
            }
            other => return Err(self.bug(span, &format!("unexpected {other:?}"))),
        };
        Ok(Action { kind, span })
    }

    // -- expressions --------------------------------------------------------

    /// A JSON number from a `number` token: an `i64` when it is an integer
    /// that fits, an `f64` otherwise.
    fn number(&mut self, p: &P<'_>) -> serde_json::Value {
        let text = p.as_str();
        let is_int = text.bytes().all(|b| b.is_ascii_digit());
        if is_int {
            if let Ok(n) = text.parse::<i64>() {
                return serde_json::Value::from(n);
            }
        }
        match text
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
        {
            Some(n) => serde_json::Value::Number(n),
            None => {
                self.diags.push(
                    Diagnostic::error("syntax", format!("number `{text}` is out of range"))
                        .in_file(self.file)
                        .with_primary(self.span(p), "too large"),
                );
                serde_json::Value::Null
            }
        }
    }

    /// A path expression: [`ExprKind::Name`] for a lone non-root name,
    /// [`ExprKind::Path`] otherwise.
    fn path_expr(&mut self, p: P<'_>) -> Expr {
        let path = self.path(p);
        let span = path.span;
        if path.segments.is_empty() && Root::from_name(&path.root.name).is_none() {
            return Expr {
                kind: ExprKind::Name(path.root),
                span,
            };
        }
        Expr {
            kind: ExprKind::Path(path),
            span,
        }
    }

    /// Lowers a `path`.
    fn path(&mut self, p: P<'_>) -> Path {
        let span = self.span(&p);
        let mut root = None;
        let mut segments = Vec::new();
        for seg in p.into_inner().filter(|c| !is_punct(c.as_rule())) {
            match seg.as_rule() {
                Rule::ident => root = Some(self.ident(&seg)),
                Rule::field => segments.push(Segment::Field(seg.as_str().to_owned())),
                Rule::index => match seg.as_str().parse::<u32>() {
                    Ok(n) => segments.push(Segment::Index(n)),
                    Err(_) => {
                        self.diags.push(
                            Diagnostic::error(
                                "syntax",
                                format!("index `{}` is out of range", seg.as_str()),
                            )
                            .in_file(self.file)
                            .with_primary(self.span(&seg), "too large")
                            .with_help(format!("indices go up to {}", u32::MAX)),
                        );
                        segments.push(Segment::Index(u32::MAX));
                    }
                },
                _ => {
                    let key = self.string(seg);
                    segments.push(Segment::Field(key.value));
                }
            }
        }
        let root = root.unwrap_or_else(|| Ident {
            name: String::new(),
            span,
        });
        Path {
            root,
            segments,
            span,
        }
    }

    /// Lowers `rate("key") > 100 per 60s`.
    fn rate(&mut self, p: P<'_>) -> Result<Expr, Failed> {
        let span = self.span(&p);
        let mut k = self.kids(p);
        self.take(&mut k, Rule::kw_rate)?;
        let key = self.take(&mut k, Rule::string)?;
        let key = self.string(key);
        let op = self.take(&mut k, Rule::cmp_op)?;
        let op = match op.as_str() {
            "==" => BinaryOp::Eq,
            "!=" => BinaryOp::Ne,
            "<" => BinaryOp::Lt,
            "<=" => BinaryOp::Le,
            ">" => BinaryOp::Gt,
            _ => BinaryOp::Ge,
        };
        let limit = self.take(&mut k, Rule::number)?;
        let limit_span = self.span(&limit);
        let limit_value = limit.as_str().parse::<f64>().unwrap_or(f64::NAN);
        self.take(&mut k, Rule::kw_per)?;
        let window = self.take(&mut k, Rule::duration)?;
        let window_text = window.as_str().to_string();
        let window_ms = match parse_duration(&window_text) {
            Ok(ms) => ms,
            Err(why) => {
                self.diags.push(
                    Diagnostic::error("syntax", format!("invalid duration `{window_text}`"))
                        .in_file(self.file)
                        .with_primary(self.span(&window), why)
                        .with_help("use a number followed by ms, s, m or h"),
                );
                0
            }
        };
        Ok(Expr {
            kind: ExprKind::Rate(Rate {
                key,
                op,
                limit: limit_value,
                limit_span,
                window_ms,
                window_text,
            }),
            span,
        })
    }

    // -- tokens --------------------------------------------------------------
}
