//! Expressions: precedence and the fewest parentheses, literals,
//! paths, and arrays and objects broken over lines when too long.

use super::*;

use crate::syntax::vocab::precedence;

/// Binding levels for parenthesization (higher binds tighter): the
/// parser's [`precedence`] for infix operators, and above them prefixes
/// and atoms.
/// Predicates: tests (`==`, `in`, `matches`, …) and `not`.
pub(super) const LEVEL_TEST: u8 = precedence(BinaryOp::Eq);
/// Arithmetic starts here.
pub(super) const LEVEL_ARITH: u8 = precedence(BinaryOp::BitOr);
pub(super) const LEVEL_PREFIX: u8 = 10;
/// A quantifier's condition extends as far right as it can: it binds
/// loosest, so it is parenthesized wherever it is an operand.
pub(super) const LEVEL_QUANTIFIER: u8 = 0;
pub(super) const LEVEL_ATOM: u8 = 11;

pub(super) fn level(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::Binary(op, ..) => precedence(*op),
        ExprKind::Quantifier(_) => LEVEL_QUANTIFIER,
        ExprKind::Unary(UnaryOp::Not, _)
        | ExprKind::In(..)
        | ExprKind::ContainsAny(..)
        | ExprKind::Matches(..)
        | ExprKind::Glob(..)
        | ExprKind::Exists(_)
        | ExprKind::Rate(_) => LEVEL_TEST,
        ExprKind::Unary(..) => LEVEL_PREFIX,
        ExprKind::Literal(Value::Number(n)) if n.as_f64().is_some_and(|f| f < 0.0) => LEVEL_PREFIX,
        _ => LEVEL_ATOM,
    }
}

/// The operands of a left-leaning chain of `op`: `a and b and c` is
/// `[a, b, c]`.
/// Where the first operand of `e`'s outermost chain starts (after any
/// parenthesis the chain is written in).
fn leftmost(e: &Expr) -> usize {
    match &e.kind {
        ExprKind::Binary(BinaryOp::And | BinaryOp::Or, a, _) => leftmost(a),
        _ => start(e.span),
    }
}

fn chain<'e>(e: &'e Expr, op: BinaryOp, out: &mut Vec<&'e Expr>) {
    match &e.kind {
        ExprKind::Binary(o, a, b) if *o == op => {
            chain(a, op, out);
            out.push(b);
        }
        _ => out.push(e),
    }
}

/// True for names the grammar accepts bare: `[A-Za-z_][A-Za-z0-9_]*`, or
/// with `-` after the first character when `dashes` is set.
pub(super) fn is_name(s: &str, dashes: bool) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || (dashes && c == '-'))
}

/// A timeout in the largest unit that divides it.
pub(super) fn duration(ms: u64) -> String {
    if ms == 0 {
        return "0s".to_owned();
    }
    for (unit, scale) in [("h", 3_600_000), ("m", 60_000), ("s", 1_000)] {
        if ms.is_multiple_of(scale) {
            return format!("{}{unit}", ms / scale);
        }
    }
    format!("{ms}ms")
}

/// A regex literal with `/` escaped.
pub(super) fn regex_lit(lit: &RegexLit) -> String {
    let mut out = String::from("/");
    let mut chars = lit.pattern.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                out.push('\\');
                if let Some(next) = chars.next() {
                    if next == '/' {
                        out.push('\\');
                    }
                    out.push(next);
                }
            }
            '/' => out.push_str("\\/"),
            c => out.push(c),
        }
    }
    out.push('/');
    out.push_str(&lit.flags);
    out
}

pub(super) fn path(p: &Path) -> String {
    let mut out = p.root.name.clone();
    for seg in &p.segments {
        match seg {
            Segment::Field(f) if is_name(f, false) => {
                out.push('.');
                out.push_str(f);
            }
            Segment::Field(f) => {
                out.push('[');
                out.push_str(&quote(f));
                out.push(']');
            }
            Segment::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// A JSON value that is not an AST node (only scalars occur in practice).
pub(super) fn json(v: &Value) -> String {
    match v {
        Value::String(s) => quote(s),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(json).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(map) => {
            let entries: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}: {}", quote(k), json(v)))
                .collect();
            format!("{{{}}}", entries.join(", "))
        }
        other => other.to_string(),
    }
}

impl Printer<'_> {
    /// An expression that ends a line starting at column `col`: an array or
    /// object is broken when the line would be too long. `extra` counts
    /// what follows it on the line (a comma).
    pub(super) fn tail(&mut self, e: &Expr, indent: usize, col: usize, extra: usize) -> String {
        if matches!(e.kind, ExprKind::Array(_) | ExprKind::Object(_)) && !self.has_comments(e.span)
        {
            let flat = self.expr(e, indent);
            if col + flat.chars().count() + extra <= WIDTH {
                return flat;
            }
            return self.broken(e, indent);
        }
        self.expr(e, indent)
    }

    /// A condition that starts at column `col` of a line at level `indent`:
    /// on that line when it fits, else broken before each `and` / `or` of
    /// its outermost chain and after a quantifier's colon, the lines one
    /// level deeper (a chain of the other operator inside one level deeper
    /// still, a parenthesized one between `(` and `)` lines).
    ///
    /// A condition with a comment between its operands is broken whatever
    /// its length, so that the comment stays where it was written.
    pub(super) fn condition(&mut self, e: &Expr, indent: usize, col: usize) -> String {
        if !self.breaks_for_comments(e) {
            let flat = self.expr(e, indent);
            if col + flat.chars().count() <= WIDTH || flat.contains('\n') {
                return flat;
            }
        }
        self.broken_condition(e, indent + 1, false)
    }

    /// True when `e` is a chain or a quantifier (which break into lines)
    /// with a comment between two of its operands, or between a
    /// quantifier's colon and its condition, here or in a chain or
    /// quantifier inside: the comments a broken condition puts in place.
    fn breaks_for_comments(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Quantifier(q) => {
                self.has_comment_between(end(q.over.span), start(q.body.span))
                    || self.breaks_for_comments(&q.body)
            }
            ExprKind::Binary(op @ (BinaryOp::And | BinaryOp::Or), ..) => {
                let mut operands = Vec::new();
                chain(e, *op, &mut operands);
                operands
                    .iter()
                    .zip(operands.iter().skip(1))
                    .any(|(a, b)| self.has_comment_between(end(a.span), start(b.span)))
                    || operands.iter().any(|x| self.breaks_for_comments(x))
            }
            _ => false,
        }
    }

    /// The comments before `pos` (not yet written), each on a line of its
    /// own at level `level`: `\n`, the indentation, the comment.
    fn comment_lines(&mut self, pos: usize, level: usize) -> String {
        let pad = INDENT.repeat(level);
        self.take_before(pos)
            .iter()
            .map(|c| format!("\n{pad}{}", c.text))
            .collect()
    }

    /// `e` broken as [`condition`](Self::condition) says: its first line
    /// goes on where it is written, the rest start at level `level`.
    /// `starts_line`: `e` starts a line of level `level` (a quantifier's
    /// condition then goes one level deeper).
    fn broken_condition(&mut self, e: &Expr, level: usize, starts_line: bool) -> String {
        let pad = INDENT.repeat(level);
        match &e.kind {
            ExprKind::Quantifier(q) => {
                let over = self.operand(&q.over, level, LEVEL_ARITH);
                let level = level + usize::from(starts_line);
                let pad = INDENT.repeat(level);
                let col = level * INDENT.len();
                let comments = self.comment_lines(start(q.body.span), level);
                let body = if self.breaks_for_comments(&q.body) {
                    self.broken_condition(&q.body, level, true)
                } else {
                    let body = self.expr(&q.body, level);
                    if col + body.chars().count() <= WIDTH {
                        body
                    } else {
                        self.broken_condition(&q.body, level, true)
                    }
                };
                let (kind, var) = (q.kind.as_str(), &q.var.name);
                format!("{kind} {var} in {over}:{comments}\n{pad}{body}")
            }
            ExprKind::Binary(op @ (BinaryOp::And | BinaryOp::Or), ..) => {
                let mut operands = Vec::new();
                chain(e, *op, &mut operands);
                let last = operands.len() - 1;
                let mut out = String::new();
                for (i, x) in operands.into_iter().enumerate() {
                    let (prefix, min) = if i == 0 {
                        ("", precedence(*op))
                    } else {
                        // Comments between two operands go on lines of
                        // their own before the second.
                        out.push_str(&self.comment_lines(start(x.span), level));
                        out.push('\n');
                        out.push_str(&pad);
                        (op.as_str(), precedence(*op) + 1)
                    };
                    if !prefix.is_empty() {
                        out.push_str(prefix);
                        out.push(' ');
                    }
                    let col = level * INDENT.len() + prefix.len() + 1;
                    let first = i == 0 && starts_line;
                    out.push_str(&self.chain_operand(x, level, col, min, first));
                    if i < last {
                        // A comment written after the operand (or after the
                        // operator that follows it) stays at the end of its
                        // line; the last operand's comment ends the whole
                        // condition's line.
                        if let Some(comment) = self.take_trailing(end(x.span), op.as_str()) {
                            out.push(' ');
                            out.push_str(&comment);
                        }
                    }
                }
                out
            }
            _ => self.expr(e, level),
        }
    }

    /// One operand of a broken `and` / `or` chain.
    fn chain_operand(
        &mut self,
        x: &Expr,
        depth: usize,
        col: usize,
        min: u8,
        starts_line: bool,
    ) -> String {
        if !self.breaks_for_comments(x) {
            let flat = self.operand(x, depth, min);
            if col + flat.chars().count() <= WIDTH || flat.contains('\n') {
                return flat;
            }
        }
        if level(x) < min {
            let comments = self.comment_lines(leftmost(x), depth + 1);
            let inner = self.broken_condition(x, depth + 1, true);
            let pad = INDENT.repeat(depth);
            let inner_pad = INDENT.repeat(depth + 1);
            return format!("({comments}\n{inner_pad}{inner}\n{pad})");
        }
        self.broken_condition(x, depth + 1, starts_line)
    }

    /// An expression, in parentheses when it binds looser than `min`.
    pub(super) fn operand(&mut self, e: &Expr, indent: usize, min: u8) -> String {
        let text = self.expr(e, indent);
        if level(e) < min {
            format!("({text})")
        } else {
            text
        }
    }

    pub(super) fn expr(&mut self, e: &Expr, indent: usize) -> String {
        match &e.kind {
            ExprKind::Literal(v) => json(v),
            ExprKind::Str(s) => quote(&s.value),
            ExprKind::Array(_) | ExprKind::Object(_) => {
                if self.has_comments(e.span) {
                    self.broken(e, indent)
                } else {
                    self.flat(e, indent)
                }
            }
            ExprKind::Path(p) => path(p),
            ExprKind::Name(n) => n.name.clone(),
            ExprKind::Unary(UnaryOp::Not, inner) => match &inner.kind {
                ExprKind::In(a, set) => {
                    let a = self.operand(a, indent, LEVEL_ARITH);
                    let set = self.expr(set, indent);
                    format!("{a} not in {set}")
                }
                _ => format!("not {}", self.operand(inner, indent, LEVEL_TEST)),
            },
            ExprKind::Unary(op, inner) => {
                let sign = if *op == UnaryOp::Neg { "-" } else { "~" };
                format!("{sign}{}", self.operand(inner, indent, LEVEL_PREFIX))
            }
            ExprKind::Binary(op, a, b) => {
                let lvl = precedence(*op);
                let (min_a, min_b) = if lvl == LEVEL_TEST {
                    (LEVEL_ARITH, LEVEL_ARITH)
                } else {
                    (lvl, lvl + 1)
                };
                let a = self.operand(a, indent, min_a);
                let b = self.operand(b, indent, min_b);
                format!("{a} {} {b}", op.as_str())
            }
            ExprKind::In(a, set) => {
                let a = self.operand(a, indent, LEVEL_ARITH);
                let set = self.expr(set, indent);
                format!("{a} in {set}")
            }
            ExprKind::ContainsAny(a, set) => {
                let a = self.operand(a, indent, LEVEL_ARITH);
                let set = self.expr(set, indent);
                format!("{a} contains any {set}")
            }
            ExprKind::Matches(a, re) => {
                let a = self.operand(a, indent, LEVEL_ARITH);
                format!("{a} matches {}", regex_ref(re))
            }
            ExprKind::Glob(a, s) => {
                let a = self.operand(a, indent, LEVEL_ARITH);
                format!("{a} glob {}", quote(&s.value))
            }
            ExprKind::Exists(a) => {
                let a = self.operand(a, indent, LEVEL_ARITH);
                format!("{a} exists")
            }
            ExprKind::Quantifier(q) => {
                let over = self.operand(&q.over, indent, LEVEL_ARITH);
                let body = self.expr(&q.body, indent);
                format!("{} {} in {over}: {body}", q.kind.as_str(), q.var.name)
            }
            ExprKind::Call(name, args) => {
                let args: Vec<String> = args.iter().map(|a| self.expr(a, indent)).collect();
                format!("{}({})", name.name, args.join(", "))
            }
            ExprKind::Rate(r) => {
                let limit = if r.limit.fract() == 0.0 && r.limit.abs() < 1e15 {
                    format!("{}", r.limit as i64)
                } else {
                    r.limit.to_string()
                };
                format!(
                    "rate({}) {} {limit} per {}",
                    quote(&r.key.value),
                    r.op.as_str(),
                    r.window_text
                )
            }
        }
    }

    /// `[a, b]` / `{"k": v}` on one line.
    pub(super) fn flat(&mut self, e: &Expr, indent: usize) -> String {
        match &e.kind {
            ExprKind::Array(items) => {
                let items: Vec<String> = items.iter().map(|i| self.expr(i, indent)).collect();
                format!("[{}]", items.join(", "))
            }
            ExprKind::Object(entries) => {
                let entries: Vec<String> = entries
                    .iter()
                    .map(|(k, v)| format!("{}: {}", quote(&k.value), self.expr(v, indent)))
                    .collect();
                format!("{{{}}}", entries.join(", "))
            }
            _ => self.expr(e, indent),
        }
    }

    /// An array or object with one element per line.
    pub(super) fn broken(&mut self, e: &Expr, indent: usize) -> String {
        let (open, close) = match e.kind {
            ExprKind::Object(_) => ("{", "}"),
            _ => ("[", "]"),
        };
        let inner = indent + 1;
        let col = inner * INDENT.len();
        let mut body = Buf::block();
        match &e.kind {
            ExprKind::Array(items) => {
                for item in items {
                    self.line(&mut body, item.span, inner, |p| {
                        let text = p.tail(item, inner, col, 1);
                        format!("{text},")
                    });
                }
            }
            ExprKind::Object(entries) => {
                for (k, v) in entries {
                    let span = Span::new(start(k.span), end(v.span));
                    self.line(&mut body, span, inner, |p| {
                        let key = quote(&k.value);
                        let text = p.tail(v, inner, col + key.len() + 2, 1);
                        format!("{key}: {text},")
                    });
                }
            }
            _ => return self.expr(e, indent),
        }
        self.closing(&mut body, end(e.span).saturating_sub(1), inner);
        let mut text = String::from(open);
        for line in &body.lines {
            text.push('\n');
            text.push_str(line);
        }
        text.push('\n');
        text.push_str(&INDENT.repeat(indent));
        text.push_str(close);
        text
    }
}
