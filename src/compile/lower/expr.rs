//! Conditions: expressions, `rate(…)`, and the names (lists, macros) used
//! in them, with constants folded and case-insensitive comparisons turned
//! into regexes.

use super::*;
use crate::ir::{CmpOp, Func, RateTest};

impl<'a> Lowerer<'a, '_> {
    /// The IR of `e`.
    pub(super) fn expr(&mut self, e: &ast::Expr, strings: Strings) -> Option<Expr> {
        use ast::ExprKind as K;
        Some(match &e.kind {
            K::Literal(v) => Expr::Const(v.clone()),
            K::Str(s) => match strings {
                Strings::Plain => Expr::Const(Value::String(s.value.clone())),
                Strings::Templates => {
                    let t = self.template(s)?;
                    match t.as_literal() {
                        Some(text) => Expr::Const(Value::String(text.to_string())),
                        None => Expr::Template(t),
                    }
                }
            },
            K::Array(items) => {
                let mut out = Vec::new();
                for item in items {
                    out.push(self.expr(item, strings)?);
                }
                fold_array(out)
            }
            K::Object(fields) => {
                let mut out = Vec::new();
                for (k, v) in fields {
                    out.push((k.value.clone(), self.expr(v, strings)?));
                }
                fold_object(out)
            }
            K::Path(p) => match self.var_path(p) {
                Some(var) => var,
                None => Expr::Path(self.path(p)?),
            },
            K::Name(name) => {
                if let Some(var) = self.bare_var(name) {
                    return Some(var);
                }
                if let Some(capture) = self.capture(&name.name) {
                    return Some(capture);
                }
                return self.name(name, strings);
            }
            K::Quantifier(q) => self.quantifier(q, strings)?,
            K::Call(name, args) => return self.call(name, args, strings),
            K::Unary(op, inner) => fold_unary(*op, self.expr(inner, strings)?),
            K::Binary(op, a, b) => {
                let x = self.expr(a, strings)?;
                let y = self.expr(b, strings)?;
                self.fold_case(Expr::Binary(*op, Box::new(x), Box::new(y)))
            }
            K::ContainsAny(lhs, list) | K::In(lhs, list) => {
                let x = self.expr(lhs, strings)?;
                let y = self.expr(list, strings)?;
                let node = if matches!(e.kind, K::In(..)) {
                    Expr::In(Box::new(x), Box::new(y))
                } else {
                    Expr::ContainsAny(Box::new(x), Box::new(y))
                };
                self.fold_case(node)
            }
            K::Matches(lhs, re) => {
                let x = self.expr(lhs, strings)?;
                Expr::Matches(Box::new(x), self.regex_ref(re)?)
            }
            K::Glob(lhs, glob) => {
                let x = self.expr(lhs, strings)?;
                Expr::Matches(Box::new(x), self.glob(glob)?)
            }
            K::Exists(inner) => match &inner.kind {
                // Below a variable, `exists` is "is not null": an element's
                // missing field reads as null.
                K::Path(p) => match self.var_path(p) {
                    Some(x) => {
                        let null = Box::new(Expr::Const(Value::Null));
                        Expr::Binary(BinaryOp::Ne, Box::new(x), null)
                    }
                    None => Expr::Exists(self.path(p)?),
                },
                _ => return None,
            },
            K::Rate(r) => self.rate(r)?,
        })
    }

    /// A `rate(…)` test.
    fn rate(&mut self, r: &ast::Rate) -> Option<Expr> {
        let op = match r.op {
            ast::BinaryOp::Gt => CmpOp::Gt,
            ast::BinaryOp::Ge => CmpOp::Ge,
            ast::BinaryOp::Lt => CmpOp::Lt,
            ast::BinaryOp::Le => CmpOp::Le,
            _ => return None,
        };
        Some(Expr::Rate(RateTest {
            key: self.template(&r.key)?,
            op,
            limit: r.limit,
            window_ms: r.window_ms,
            // Assigned by the compiler.
            counter: 0,
        }))
    }

    /// A list's elements as a constant, a macro's body lowered in the
    /// macro's own file.
    fn name(&mut self, name: &ast::Ident, strings: Strings) -> Option<Expr> {
        let def = self.scope.get(&name.name).copied()?;
        match def.kind {
            DefKind::List => Some(Expr::Const(Value::Array(self.list_items(def)?))),
            DefKind::Macro => {
                if self.macro_stack.contains(&name.name) {
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
                self.scope = self.cx.scopes.get(def.file).unwrap_or(self.scope);
                self.macro_stack.push(name.name.clone());
                let out = self.without_vars(|this| this.expr(body, strings));
                self.macro_stack.pop();
                (self.file, self.scope) = saved;
                out
            }
            DefKind::Pattern => None,
        }
    }

    /// The elements of list `def`, with those its `+=` extensions add.
    fn list_items(&self, def: Def) -> Option<Vec<Value>> {
        let file = self.def_file(def)?;
        let Some(ast::Item::List(list)) = file.ast.items.get(def.item) else {
            return None;
        };
        let extensions = self.cx.extensions.of(def.file, def.item).iter();
        list.items
            .iter()
            .chain(extensions.map(|(_, item)| *item))
            .map(|item| match &item.kind {
                ast::ExprKind::Literal(v) => Some(v.clone()),
                ast::ExprKind::Str(s) => Some(Value::String(s.value.clone())),
                _ => None,
            })
            .collect()
    }

    /// A comparison of a field's `lower(f)` with lower-case ASCII
    /// constants, as a regex on `f` that matches exactly the texts whose
    /// lower-cased form compares true ([`lower_preimage`]): `lower(f) ==
    /// "rm"`, `lower(f) in ["rm", "rmdir"]`, `contains`, `contains any`,
    /// `starts_with` and `ends_with`. It is then decided by the field's
    /// automaton in the same pass as its other patterns, without building
    /// the lower-cased string.
    ///
    /// A quantifier's variable (`lower(c.program) in readers`) is left as
    /// written: its regex would need a DFA of its own, which a hook process
    /// loads and validates for one short word (the pack's list of readers
    /// took 42 KB, 5 % of a Bash event), where lower-casing the word and
    /// comparing costs a few hundred instructions.
    ///
    /// Not a case-insensitive regex: Unicode case folding and lower-casing
    /// differ (`ſ`, the long s, folds to `s` but is its own lower case, so
    /// `(?i)less` matches `leſs`, which `lower(…) == "less"` refuses). Left
    /// as written: other constants (one in the other case is never equal;
    /// a non-ASCII one may be reached through context-dependent mappings
    /// such as the final sigma) and `upper` (whose mappings expand: `ﬁ`
    /// upper-cases to `FI`, `ß` to `SS`).
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
        let Expr::Call(Func::Lower, args) = subject else {
            return node;
        };
        let [inner] = args.as_slice() else {
            return node;
        };
        if !matches!(inner, Expr::Path(_)) {
            return node;
        }
        if !strings.iter().all(|s| crate::ir::is_lower_ascii(s)) {
            return node;
        }
        let open_end = matches!(shape, Shape::Inside | Shape::Start);
        let alternatives: Vec<String> = strings
            .iter()
            .map(|s| lower_preimage(s, open_end))
            .collect();
        let body = format!("(?:{})", alternatives.join("|"));
        let pattern = match shape {
            Shape::Whole => format!("^{body}$"),
            Shape::Inside => body,
            Shape::Start => format!("^{body}"),
            Shape::End => format!("{body}$"),
        };
        let id = self.regexes.intern(RegexSource {
            pattern,
            flags: String::new(),
        });
        Expr::Matches(Box::new(inner.clone()), id)
    }
}

/// A regex matching exactly the texts whose lower-cased form
/// (`str::to_lowercase`, what `lower` computes) is `constant`, an ASCII
/// string in lower case. A character of the text lower-cases to an ASCII
/// one only if it is that character, its upper case, or one of two
/// others: the Kelvin sign `K` (U+212A) becomes `k`, and `İ` (U+0130)
/// becomes `i` followed by a combining dot (U+0307), which no ASCII
/// constant holds; so `İ` stands for an `i` only at the constant's end,
/// and only when the text may go on after it (`open_end`: `contains`,
/// `starts_with`). The test `lower_preimage_is_every_character_that_lower_cases_to_ascii`
/// checks this list against every Unicode character.
fn lower_preimage(constant: &str, open_end: bool) -> String {
    let last = constant.len().saturating_sub(1);
    let mut pattern = String::new();
    for (i, c) in constant.char_indices() {
        let kelvin = c == 'k';
        let dotted = c == 'i' && open_end && i == last;
        if c.is_ascii_lowercase() {
            pattern.push('[');
            pattern.push(c);
            pattern.push(c.to_ascii_uppercase());
            if kelvin {
                pattern.push('\u{212A}');
            }
            if dotted {
                pattern.push('\u{130}');
            }
            pattern.push(']');
        } else {
            pattern.push_str(&regex_syntax::escape(c.encode_utf8(&mut [0; 4])));
        }
    }
    pattern
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

/// Arrays of constants fold into one constant.
fn fold_array(items: Vec<Expr>) -> Expr {
    if items.iter().all(|e| matches!(e, Expr::Const(_))) {
        Expr::Const(Value::Array(
            items
                .into_iter()
                .filter_map(|e| match e {
                    Expr::Const(v) => Some(v),
                    _ => None,
                })
                .collect(),
        ))
    } else {
        Expr::Array(items)
    }
}

fn fold_object(fields: Vec<(String, Expr)>) -> Expr {
    if fields.iter().all(|(_, e)| matches!(e, Expr::Const(_))) {
        let mut map = serde_json::Map::new();
        for (k, e) in fields {
            if let Expr::Const(v) = e {
                map.insert(k, v);
            }
        }
        Expr::Const(Value::Object(map))
    } else {
        Expr::Object(fields)
    }
}

/// `-5` is a constant, not an operation.
fn fold_unary(op: UnaryOp, x: Expr) -> Expr {
    match (op, &x) {
        (UnaryOp::Neg, Expr::Const(Value::Number(n))) => {
            if let Some(i) = n.as_i64().and_then(i64::checked_neg) {
                return Expr::Const(Value::from(i));
            }
            if let Some(f) = n.as_f64() {
                if let Some(n) = serde_json::Number::from_f64(-f) {
                    return Expr::Const(Value::Number(n));
                }
            }
            Expr::Unary(op, Box::new(x))
        }
        _ => Expr::Unary(op, Box::new(x)),
    }
}

#[cfg(test)]
mod tests {
    use super::lower_preimage;
    use regex::Regex;

    /// [`lower_preimage`] against every Unicode character: a character
    /// matches a one-character constant's pattern exactly when it
    /// lower-cases to that constant (or, with an open end, to a string
    /// that starts with it), and no character that lower-cases to anything
    /// else matches any of them.
    #[test]
    fn lower_preimage_is_every_character_that_lower_cases_to_ascii() {
        let constants: Vec<char> = (0u8..0x80)
            .map(char::from)
            .filter(|c| !c.is_ascii_uppercase())
            .collect();
        let pattern = |c: char, open_end: bool| {
            let p = lower_preimage(c.encode_utf8(&mut [0; 4]), open_end);
            Regex::new(&format!("^(?:{p})$")).unwrap()
        };
        let whole: Vec<Regex> = constants.iter().map(|&c| pattern(c, false)).collect();
        let open: Vec<Regex> = constants.iter().map(|&c| pattern(c, true)).collect();
        let any_open = Regex::new(&format!(
            "^(?:{})$",
            constants
                .iter()
                .map(|&c| lower_preimage(c.encode_utf8(&mut [0; 4]), true))
                .collect::<Vec<_>>()
                .join("|")
        ))
        .unwrap();
        for x in (0..=0x10FFFF).filter_map(char::from_u32) {
            let lowered: String = x.to_lowercase().collect();
            let text = x.to_string();
            let reaches_ascii = lowered.starts_with(|c: char| c.is_ascii());
            if !reaches_ascii {
                assert!(
                    !any_open.is_match(&text),
                    "{x:?} lower-cases to {lowered:?}"
                );
                continue;
            }
            for (i, &c) in constants.iter().enumerate() {
                let c = c.to_string();
                assert_eq!(
                    whole[i].is_match(&text),
                    lowered == c,
                    "{x:?} against {c:?}"
                );
                assert_eq!(
                    open[i].is_match(&text),
                    lowered.starts_with(&c),
                    "{x:?} against {c:?}, open-ended"
                );
            }
        }
    }

    #[test]
    fn an_i_ending_an_open_constant_also_stands_for_a_dotted_capital_i() {
        assert_eq!(lower_preimage("rm -i", false), "[rR][mM] \\-[iI]");
        assert_eq!(lower_preimage("rm -i", true), "[rR][mM] \\-[iI\u{130}]");
        assert_eq!(lower_preimage("ik", true), "[iI][kK\u{212A}]");
    }
}
