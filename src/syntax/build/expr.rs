//! Expressions: predicates, operands, and the fold of flat operand and
//! operator sequences by precedence (the grammar leaves them flat, so the
//! only recursion is bracket nesting, bounded by the nesting limit).

use super::*;
use crate::syntax::unescape::*;
use crate::syntax::vocab::*;

use crate::syntax::ast::{BinaryOp, Expr, ExprKind, Quantifier, QuantifierKind, RegexRef, UnaryOp};
use crate::syntax::grammar::Rule;

impl AstBuilder<'_> {
    /// Lowers an `expr`: `not`-prefixed predicates joined by `and` / `or`.
    pub(super) fn expr(&mut self, p: P<'_>, depth: Depth) -> Result<Expr, Failed> {
        let mut kids = self.kids(p);
        let depth = self.descend(depth, kids.count(Rule::bool_op), |b| b.span(&kids.parent))?;
        let first = self.negated_predicate(&mut kids, depth)?;
        let mut rest = Vec::new();
        while let Some(op) = kids.take_if(Rule::bool_op) {
            let op = if op.as_str() == "and" {
                BinaryOp::And
            } else {
                BinaryOp::Or
            };
            rest.push((op, self.negated_predicate(&mut kids, depth)?));
        }
        self.climb(first, rest, &kids.parent)
    }

    /// `not* predicate`.
    pub(super) fn negated_predicate(
        &mut self,
        kids: &mut Kids<'_>,
        depth: Depth,
    ) -> Result<Expr, Failed> {
        let mut nots = Vec::new();
        let mut depth = depth;
        while let Some(not) = kids.take_if(Rule::kw_not) {
            let span = self.span(&not);
            depth = self.enter(depth, span)?;
            nots.push(span);
        }
        let pred = self.take(kids, Rule::predicate)?;
        let mut e = self.predicate(pred, depth)?;
        while let Some(span) = nots.pop() {
            e = Expr {
                span: span.to(e.span),
                kind: ExprKind::Unary(UnaryOp::Not, Box::new(e)),
            };
        }
        Ok(e)
    }

    /// Lowers a `predicate`: an arithmetic operand with an optional test.
    pub(super) fn predicate(&mut self, p: P<'_>, depth: Depth) -> Result<Expr, Failed> {
        let span = self.span(&p);
        let mut kids = self.kids(p);
        if let Some(rate) = kids.take_if(Rule::rate_test) {
            return self.rate(rate);
        }
        if let Some(q) = kids.take_if(Rule::quantifier) {
            return self.quantifier(q, depth);
        }
        // A test is one node above its operands.
        let depth = self.descend(depth, 1, |_| span)?;
        let lhs = self.take(&mut kids, Rule::arith)?;
        let lhs = self.arith(lhs, depth)?;
        let Some(tail) = kids.next() else {
            return Ok(lhs);
        };
        let rule = tail.as_rule();
        let mut k = self.kids(tail);
        let lhs = Box::new(lhs);
        let kind = match rule {
            Rule::t_cmp => {
                let op = self.take(&mut k, Rule::cmp_op)?;
                let op = match op.as_str() {
                    "==" => BinaryOp::Eq,
                    "!=" => BinaryOp::Ne,
                    "<" => BinaryOp::Lt,
                    "<=" => BinaryOp::Le,
                    ">" => BinaryOp::Gt,
                    _ => BinaryOp::Ge,
                };
                let rhs = self.take(&mut k, Rule::arith)?;
                ExprKind::Binary(op, lhs, Box::new(self.arith(rhs, depth)?))
            }
            Rule::t_contains | Rule::t_starts_with | Rule::t_ends_with => {
                self.take_any(&mut k)?;
                let rhs = self.take(&mut k, Rule::arith)?;
                let op = match rule {
                    Rule::t_contains => BinaryOp::Contains,
                    Rule::t_starts_with => BinaryOp::StartsWith,
                    _ => BinaryOp::EndsWith,
                };
                ExprKind::Binary(op, lhs, Box::new(self.arith(rhs, depth)?))
            }
            Rule::t_contains_any => {
                self.take(&mut k, Rule::kw_contains)?;
                self.take(&mut k, Rule::kw_any)?;
                let set = self.take(&mut k, Rule::set_ref)?;
                ExprKind::ContainsAny(lhs, Box::new(self.set_ref(set, depth)?))
            }
            Rule::t_in => {
                self.take(&mut k, Rule::kw_in)?;
                let set = self.take(&mut k, Rule::set_ref)?;
                ExprKind::In(lhs, Box::new(self.set_ref(set, depth)?))
            }
            Rule::t_not_in => {
                self.take(&mut k, Rule::kw_not)?;
                self.take(&mut k, Rule::kw_in)?;
                let set = self.take(&mut k, Rule::set_ref)?;
                let inner = Expr {
                    kind: ExprKind::In(lhs, Box::new(self.set_ref(set, depth)?)),
                    span,
                };
                ExprKind::Unary(UnaryOp::Not, Box::new(inner))
            }
            Rule::t_matches => {
                self.take(&mut k, Rule::kw_matches)?;
                let re = self.take(&mut k, Rule::regex_ref)?;
                ExprKind::Matches(lhs, self.regex_ref(re)?)
            }
            Rule::t_glob => {
                self.take(&mut k, Rule::kw_glob)?;
                let s = self.take(&mut k, Rule::string)?;
                ExprKind::Glob(lhs, self.string(s))
            }
            Rule::t_exists => ExprKind::Exists(lhs),
            other => return Err(self.bug(span, &format!("unexpected {other:?}"))),
        };
        Ok(Expr { kind, span })
    }

    /// Lowers a `quantifier`: `any|all NAME in LIST: e`.
    fn quantifier(&mut self, p: P<'_>, depth: Depth) -> Result<Expr, Failed> {
        let span = self.span(&p);
        let depth = self.enter(depth, span)?;
        let mut kids = self.kids(p);
        let kind = if kids.take_if(Rule::kw_all).is_some() {
            QuantifierKind::All
        } else {
            self.take(&mut kids, Rule::kw_any)?;
            QuantifierKind::Any
        };
        let var = self.take(&mut kids, Rule::ident)?;
        let var = self.ident(&var);
        self.take(&mut kids, Rule::kw_in)?;
        let over = self.take(&mut kids, Rule::arith)?;
        let over = self.arith(over, depth)?;
        let body = self.take(&mut kids, Rule::expr)?;
        let body = self.expr(body, depth)?;
        Ok(Expr {
            kind: ExprKind::Quantifier(Box::new(Quantifier {
                kind,
                var,
                over,
                body,
            })),
            span,
        })
    }

    /// Lowers a `set_ref`: an array literal or a name/path.
    pub(super) fn set_ref(&mut self, p: P<'_>, depth: Depth) -> Result<Expr, Failed> {
        let mut kids = self.kids(p);
        let inner = self.take_any(&mut kids)?;
        match inner.as_rule() {
            Rule::array => self.array(inner, depth),
            _ => Ok(self.path_expr(inner)),
        }
    }

    /// Lowers a `regex_ref`.
    pub(super) fn regex_ref(&mut self, p: P<'_>) -> Result<RegexRef, Failed> {
        let mut kids = self.kids(p);
        let inner = self.take_any(&mut kids)?;
        Ok(match inner.as_rule() {
            Rule::regex => RegexRef::Literal(self.regex(inner)),
            _ => RegexRef::Name(self.ident(&inner)),
        })
    }

    /// Lowers an `arith`: prefixed operands joined by infix operators.
    pub(super) fn arith(&mut self, p: P<'_>, depth: Depth) -> Result<Expr, Failed> {
        let mut kids = self.kids(p);
        let depth = self.descend(depth, kids.count(Rule::arith_op), |b| b.span(&kids.parent))?;
        let first = self.prefixed_operand(&mut kids, depth)?;
        let mut rest = Vec::new();
        while let Some(op) = kids.take_if(Rule::arith_op) {
            let op = match op.as_str() {
                "|" => BinaryOp::BitOr,
                "^" => BinaryOp::BitXor,
                "&" => BinaryOp::BitAnd,
                "<<" => BinaryOp::Shl,
                ">>" => BinaryOp::Shr,
                "+" => BinaryOp::Add,
                "-" => BinaryOp::Sub,
                "*" => BinaryOp::Mul,
                "/" => BinaryOp::Div,
                _ => BinaryOp::Rem,
            };
            rest.push((op, self.prefixed_operand(&mut kids, depth)?));
        }
        self.climb(first, rest, &kids.parent)
    }

    /// `(- | ~)* operand`; a `-` right before a number folds into it.
    pub(super) fn prefixed_operand(
        &mut self,
        kids: &mut Kids<'_>,
        depth: Depth,
    ) -> Result<Expr, Failed> {
        let mut prefixes = Vec::new();
        let mut depth = depth;
        while let Some(op) = kids.take_if(Rule::prefix_op) {
            let span = self.span(&op);
            depth = self.enter(depth, span)?;
            let op = if op.as_str() == "-" {
                UnaryOp::Neg
            } else {
                UnaryOp::BitNot
            };
            prefixes.push((op, span));
        }
        let operand = self.take(kids, Rule::operand)?;
        let mut e = self.operand(operand, depth)?;
        while let Some((op, span)) = prefixes.pop() {
            let span = span.to(e.span);
            e = match (op, &e.kind) {
                (UnaryOp::Neg, ExprKind::Literal(serde_json::Value::Number(n))) => {
                    let digits = self.file.slice(e.span);
                    Expr {
                        kind: ExprKind::Literal(serde_json::Value::Number(negate(n, digits))),
                        span,
                    }
                }
                _ => Expr {
                    kind: ExprKind::Unary(op, Box::new(e)),
                    span,
                },
            };
        }
        Ok(e)
    }

    /// Folds `first (op operand)*` by precedence, left-associative, without
    /// recursion.
    pub(super) fn climb(
        &mut self,
        first: Expr,
        rest: Vec<(BinaryOp, Expr)>,
        parent: &P<'_>,
    ) -> Result<Expr, Failed> {
        fn reduce(out: &mut Vec<Expr>, ops: &mut Vec<BinaryOp>) -> Option<()> {
            let op = ops.pop()?;
            let rhs = out.pop()?;
            let lhs = out.pop()?;
            out.push(Expr {
                span: lhs.span.to(rhs.span),
                kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
            });
            Some(())
        }
        let mut out = vec![first];
        let mut ops: Vec<BinaryOp> = Vec::new();
        for (op, rhs) in rest {
            while ops
                .last()
                .is_some_and(|top| precedence(*top) >= precedence(op))
            {
                if reduce(&mut out, &mut ops).is_none() {
                    let span = self.span(parent);
                    return Err(self.bug(span, "operator stack"));
                }
            }
            ops.push(op);
            out.push(rhs);
        }
        while !ops.is_empty() {
            if reduce(&mut out, &mut ops).is_none() {
                let span = self.span(parent);
                return Err(self.bug(span, "operator stack"));
            }
        }
        match (out.pop(), out.is_empty()) {
            (Some(e), true) => Ok(e),
            _ => {
                let span = self.span(parent);
                Err(self.bug(span, "operand stack"))
            }
        }
    }

    /// Lowers an `operand`.
    pub(super) fn operand(&mut self, p: P<'_>, depth: Depth) -> Result<Expr, Failed> {
        let mut kids = self.kids(p);
        let inner = self.take_any(&mut kids)?;
        self.operand_inner(inner, depth)
    }

    /// Lowers what an `operand` holds: a literal, array, object, paren or
    /// path.
    pub(super) fn operand_inner(&mut self, inner: P<'_>, depth: Depth) -> Result<Expr, Failed> {
        let span = self.span(&inner);
        let literal = |v: serde_json::Value| Expr {
            kind: ExprKind::Literal(v),
            span,
        };
        match inner.as_rule() {
            Rule::number => Ok(literal(self.number(&inner))),
            Rule::string => Ok(Expr {
                kind: ExprKind::Str(self.string(inner)),
                span,
            }),
            Rule::kw_true => Ok(literal(serde_json::Value::Bool(true))),
            Rule::kw_false => Ok(literal(serde_json::Value::Bool(false))),
            Rule::kw_null => Ok(literal(serde_json::Value::Null)),
            Rule::array => self.array(inner, depth),
            Rule::object => {
                let depth = self.enter(depth, span)?;
                let mut entries = Vec::new();
                let mut k = self.kids(inner);
                while let Some(entry) = k.take_if(Rule::entry) {
                    let mut ek = self.kids(entry);
                    let key = self.take(&mut ek, Rule::string)?;
                    let key = self.string(key);
                    let value = self.take(&mut ek, Rule::expr)?;
                    entries.push((key, self.expr(value, depth)?));
                }
                Ok(Expr {
                    kind: ExprKind::Object(entries),
                    span,
                })
            }
            Rule::paren => {
                let depth = self.enter(depth, span)?;
                let mut k = self.kids(inner);
                let e = self.take(&mut k, Rule::expr)?;
                let e = self.expr(e, depth)?;
                Ok(Expr { kind: e.kind, span })
            }
            Rule::path => Ok(self.path_expr(inner)),
            Rule::call => {
                let depth = self.enter(depth, span)?;
                let mut k = self.kids(inner);
                let name = self.take(&mut k, Rule::call_name)?;
                let name = self.ident(&name);
                let mut args = Vec::new();
                while let Some(arg) = k.take_if(Rule::expr) {
                    args.push(self.expr(arg, depth)?);
                }
                Ok(Expr {
                    kind: ExprKind::Call(name, args),
                    span,
                })
            }
            other => Err(self.bug(span, &format!("unexpected {other:?}"))),
        }
    }

    /// Lowers an `array` into an expression.
    pub(super) fn array(&mut self, p: P<'_>, depth: Depth) -> Result<Expr, Failed> {
        let span = self.span(&p);
        let items = self.array_items(p, depth)?;
        Ok(Expr {
            kind: ExprKind::Array(items),
            span,
        })
    }

    /// The elements of an `array`, one level deeper than `depth`.
    pub(super) fn array_items(&mut self, p: P<'_>, depth: Depth) -> Result<Vec<Expr>, Failed> {
        let span = self.span(&p);
        let depth = self.enter(depth, span)?;
        let mut kids = self.kids(p);
        let mut items = Vec::new();
        while kids.peek_rule() == Some(Rule::expr) {
            let e = self.take(&mut kids, Rule::expr)?;
            items.push(self.expr(e, depth)?);
        }
        Ok(items)
    }
}
