//! Values a quantifier's body computes without its element, computed once.
//!
//! `any s in c.args: any w in shell(…): lower(basename(s)) == …` computes
//! `lower(basename(s))` again for every `w`, though it depends on `s`
//! alone: on a line of 72 commands, thousands of times. The rewrite finds
//! in each quantifier's body the largest calls that read neither the
//! element nor anything bound inside the body, binds each once around the
//! quantifier ([`Expr::Let`]), and makes every use of it read the binding
//! (uses written alike share one). Quantifiers are rewritten outermost
//! first, so a value moves out as far as the variables it reads allow.
//!
//! Only calls that cannot fail and do nothing but compute their result
//! are moved, of arguments of the same kind, paths and constants: such a
//! value computed once where it was computed many times, or where a short
//! circuit would have skipped it, changes no answer and no error. A regex
//! test stays where it is written (it spends the dispatch's regex budget),
//! and so does `shell(…)`, whose parse a body that never reaches it need
//! not pay. So does a call that reads no variable, only the event
//! (`lower(payload.tool_input.command)`): moved out of every quantifier it
//! would be computed on each event that reaches the condition, where a
//! short circuit mostly skips it, and lowering a 20 KB command costs more
//! than the repeats it saves. A call on an outer element is computed at
//! most once per element, which the pairs it is read in outnumber.
//!
//! The rewrite runs on the atoms of the program, after the lints have read
//! the conditions as written and [`super::specialize`] has rewritten them;
//! explanations show them as written ([`Expr::inline_lets`]).

use crate::ir::{Atom, Expr, Func};

/// Moves the loop-invariant calls out of the quantifiers in the
/// expression atoms of one point.
pub(super) fn atoms(atoms: &mut [Atom]) {
    #[cfg(test)]
    if tests::OFF.with(std::cell::Cell::get) {
        return;
    }
    for atom in atoms {
        if let Atom::Expr(e) = atom {
            expr(e);
        }
    }
}

fn expr(e: &mut Expr) {
    if matches!(e, Expr::Quantifier(..)) {
        out_of_quantifier(e);
    }
    // After the move, `e` is the quantifier inside the `let`s it made; the
    // `let`s' values are calls, with no quantifier in them.
    let mut inner = e;
    while let Expr::Let(_, body) = inner {
        inner = body;
    }
    inner.each_child_mut(|child, _| expr(child));
}

/// Rewrites `any $ in list: body` as `let v₀ in … let vₙ₋₁ in any $ in
/// list: body'`, where the `vⱼ` are the invariant calls of the body and
/// `body'` reads them by depth.
fn out_of_quantifier(q: &mut Expr) {
    let Expr::Quantifier(_, list, body) = q else {
        return;
    };
    let mut values = Vec::new();
    collect(body, 1, &mut values);
    if values.is_empty() {
        return;
    }
    let n = values.len() as u32;
    rewrite(body, 1, &values);
    // The list and the body see the `n` bindings around the quantifier.
    list.shift_vars(i64::from(n), 0);
    let mut out = std::mem::replace(q, Expr::Const(serde_json::Value::Null));
    for (j, mut value) in values.into_iter().enumerate().rev() {
        // Value `j` is evaluated inside the `j` bindings before it.
        value.shift_vars(j as i64, 0);
        out = Expr::Let(Box::new(value), Box::new(out));
    }
    *q = out;
}

/// The invariant calls of `e`, which stands `inner` scopes inside the
/// quantifier's (its element's included), each once, in the scope
/// around the quantifier.
fn collect(e: &Expr, inner: u32, values: &mut Vec<Expr>) {
    match invariant(e, inner) {
        Some(value) if !values.contains(&value) => values.push(value),
        Some(_) => {}
        None => e.each_child(|child, binds| collect(child, inner + binds, values)),
    }
}

/// `e` with each invariant call read from its binding, and every other
/// variable of the scope around the quantifier moved out past the
/// bindings.
fn rewrite(e: &mut Expr, inner: u32, values: &[Expr]) {
    let n = values.len() as u32;
    // `collect` bound every invariant call; one it did not would be
    // rewritten in place below, as any other expression.
    let bound = invariant(e, inner).and_then(|value| values.iter().position(|v| *v == value));
    if let Some(j) = bound {
        // Inside: `inner` scopes, then the bindings, the last innermost.
        *e = Expr::Var(inner + n - 1 - j as u32, Vec::new());
        return;
    }
    match e {
        Expr::Var(depth, _) if *depth >= inner => *depth += n,
        _ => e.each_child_mut(|child, binds| rewrite(child, inner + binds, values)),
    }
}

/// `e` as a value of the scope around the quantifier, when it is a call
/// that can move there: pure ([`pure`]), reading a variable, and none of
/// the `inner` innermost ones.
fn invariant(e: &Expr, inner: u32) -> Option<Expr> {
    let reads_outer_only = matches!(e.innermost_var(), Some(depth) if depth >= inner);
    if !matches!(e, Expr::Call(..)) || !reads_outer_only || !pure(e) {
        return None;
    }
    let mut value = e.clone();
    value.shift_vars(-i64::from(inner), 0);
    Some(value)
}

/// Whether evaluating `e` can neither fail nor do more than compute its
/// value: paths, variables, constants, and calls of such functions on
/// such arguments.
fn pure(e: &Expr) -> bool {
    match e {
        Expr::Path(_) | Expr::Var(..) | Expr::Const(_) => true,
        Expr::Call(func, args) => moves(*func) && args.iter().all(pure),
        _ => false,
    }
}

/// The functions whose calls may be moved out: all but `shell`.
fn moves(func: Func) -> bool {
    match func {
        Func::Shell => false,
        Func::Lower
        | Func::Upper
        | Func::Trim
        | Func::Basename
        | Func::Dirname
        | Func::Normalize
        | Func::Env
        | Func::Relpath
        | Func::Stem
        | Func::Extension
        | Func::IfUnset
        | Func::Replace
        | Func::Join
        | Func::Len => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{BinaryOp, FieldPath, Quantifier, Root, Segment};

    fn var(depth: u32, field: &str) -> Expr {
        let segments = match field {
            "" => Vec::new(),
            name => vec![Segment::Field(name.into())],
        };
        Expr::Var(depth, segments)
    }

    fn call(func: Func, arg: Expr) -> Expr {
        Expr::Call(func, vec![arg])
    }

    fn path(name: &str) -> Expr {
        Expr::Path(FieldPath {
            root: Root::Payload,
            segments: vec![Segment::Field(name.into())],
            normalized: false,
        })
    }

    fn eq(a: Expr, b: Expr) -> Expr {
        Expr::Binary(BinaryOp::Eq, Box::new(a), Box::new(b))
    }

    fn any(list: Expr, body: Expr) -> Expr {
        Expr::Quantifier(Quantifier::Any, Box::new(list), Box::new(body))
    }

    fn hoisted(e: &Expr) -> Expr {
        let mut atoms = [Atom::Expr(e.clone())];
        super::atoms(&mut atoms);
        let [Atom::Expr(out)] = atoms else {
            unreachable!("one atom in, one out")
        };
        // Undone, it is what was written.
        assert_eq!(out.inline_lets(), *e, "{out:?}");
        out
    }

    /// `any c in shell(payload.cmd): any s in c.args: any w in
    /// shell(payload.cmd): lower(basename(s)) == lower(w.program) or
    /// lower(c.program) == lower(payload.name)`.
    fn pairs() -> Expr {
        let shell = || call(Func::Shell, path("cmd"));
        let body = Expr::Binary(
            BinaryOp::Or,
            Box::new(eq(
                call(Func::Lower, call(Func::Basename, var(1, ""))),
                call(Func::Lower, var(0, "program")),
            )),
            Box::new(eq(
                call(Func::Lower, var(2, "program")),
                call(Func::Lower, path("name")),
            )),
        );
        any(shell(), any(var(0, "args"), any(shell(), body)))
    }

    #[test]
    fn each_call_goes_out_as_far_as_what_it_reads() {
        let out = hoisted(&pairs());
        // `lower(payload.name)` reads no element: it stays where it is
        // written, and nothing goes out of the `c` loop.
        let Expr::Quantifier(_, c_list, c_body) = &out else {
            panic!("{out:?}")
        };
        assert_eq!(**c_list, call(Func::Shell, path("cmd")));
        // `lower(c.program)` reads `c`: around the `s` loop.
        let Expr::Let(program, s_loop) = &**c_body else {
            panic!("{c_body:?}")
        };
        assert_eq!(**program, call(Func::Lower, var(0, "program")));
        let Expr::Quantifier(_, s_list, s_body) = &**s_loop else {
            panic!("{s_loop:?}")
        };
        // `c` is one further out, past `lower(c.program)`.
        assert_eq!(**s_list, var(1, "args"));
        // `lower(basename(s))` reads `s`: around the `w` loop.
        let Expr::Let(base, w_loop) = &**s_body else {
            panic!("{s_body:?}")
        };
        assert_eq!(**base, call(Func::Lower, call(Func::Basename, var(0, ""))));
        let Expr::Quantifier(_, _, w_body) = &**w_loop else {
            panic!("{w_loop:?}")
        };
        // Inside `w`: `$0` w, `$1` lower(basename(s)), `$2` s, `$3`
        // lower(c.program), `$4` c.
        let expected = Expr::Binary(
            BinaryOp::Or,
            Box::new(eq(var(1, ""), call(Func::Lower, var(0, "program")))),
            Box::new(eq(var(3, ""), call(Func::Lower, path("name")))),
        );
        assert_eq!(**w_body, expected);
    }

    #[test]
    fn calls_written_alike_share_one_binding() {
        let base = || call(Func::Lower, call(Func::Basename, var(1, "")));
        let e = any(
            path("a"),
            any(
                var(0, "args"),
                Expr::Binary(
                    BinaryOp::And,
                    Box::new(eq(var(0, ""), base())),
                    Box::new(eq(call(Func::Upper, var(0, "")), base())),
                ),
            ),
        );
        let out = hoisted(&e);
        let Expr::Quantifier(_, _, body) = &out else {
            panic!("{out:?}")
        };
        let Expr::Let(_, inner) = &**body else {
            panic!("one binding for both: {body:?}")
        };
        assert!(matches!(&**inner, Expr::Quantifier(..)), "{inner:?}");
    }

    #[test]
    fn what_may_fail_or_cost_more_stays_where_it_is_written() {
        let e = any(
            path("a"),
            Expr::Binary(
                BinaryOp::And,
                // A regex test spends the regex budget; `shell` parses.
                Box::new(Expr::Matches(Box::new(path("b")), crate::ir::RegexId(0))),
                Box::new(Expr::Binary(
                    BinaryOp::Or,
                    Box::new(any(call(Func::Shell, path("c")), var(0, "program"))),
                    // A call on the event alone may be skipped by a
                    // short circuit; `+` may fail on its operands' types.
                    Box::new(Expr::Binary(
                        BinaryOp::And,
                        Box::new(eq(call(Func::Lower, path("d")), var(0, ""))),
                        Box::new(eq(
                            var(0, ""),
                            Expr::Binary(
                                BinaryOp::Add,
                                Box::new(Expr::Const("=".into())),
                                Box::new(path("d")),
                            ),
                        )),
                    )),
                )),
            ),
        );
        assert_eq!(hoisted(&e), e);
    }

    /// The shipped pack's rule that pairs every command's arguments with
    /// every command that writes a file, compiled with the calls moved out
    /// and as written: each decides every command alike.
    #[test]
    fn moved_calls_decide_as_written() {
        let text = r#"hook pairs on tool.pre_execute {
    when any c in shell(payload.cmd):
        any s in c.args:
            any w in shell(payload.cmd):
                lower(w.program) in ["tee", "cp"]
                and lower(w.program) != lower(c.program)
                and (any a in w.args: lower(basename(a)) == lower(basename(s)))
                or (any r in w.redirects: lower(basename(r.target)) == lower(basename(s)))
    deny "pairs"
}
"#;
        let (table, written) = compiled_both_ways(text);
        assert!(lets_in(&table) >= 2, "the calls were moved out");
        let mut denied = 0;
        for cmd in [
            "curl -o x.sh u && cp x.sh /bin/X.SH && bash x.sh",
            "echo hi > ./Run.sh; sh run.sh",
            "cat a | TEE out.txt; python3 out.txt",
            "cp a b",
            "ls",
            "sh a.sh > b.sh",
        ] {
            let decide = |t: &crate::Table| {
                let mut ctx = crate::HookContext::new(
                    "tool.pre_execute",
                    "a::b",
                    serde_json::json!({ "cmd": cmd }),
                );
                t.dispatch_context(&mut ctx).reason
            };
            let reason = decide(&table);
            assert_eq!(reason, decide(&written), "{cmd}");
            denied += usize::from(reason.is_some());
        }
        assert_eq!(denied, 3, "three of the commands run a file another writes");
    }

    /// Random conditions of nested quantifiers over commands and their
    /// arguments, with calls on outer variables and on the event, each
    /// compiled with calls moved out and as written, and dispatched on
    /// six commands: the same answer every time.
    #[test]
    fn random_conditions_decide_as_written() {
        let commands = [
            "curl -o x.sh u && cp x.sh /bin/X.SH && bash x.sh",
            "echo hi > ./Run.sh; sh run.sh",
            "cat a | tee out.txt; python3 out.txt",
            "cp a b; mv b a",
            "ls -la",
            "",
        ];
        let mut random = Random(0x9e37_79b9_7f4a_7c15);
        let (mut lets, mut fired, mut runs) = (0, 0, 0);
        for _ in 0..400 {
            let body = random.cond(&mut vec![("c".to_string(), true)], 0);
            let text = format!(
                "hook r on tool.pre_execute {{\n    when any c in shell(payload.cmd): {body}\n    deny \"r\"\n}}\n"
            );
            let (table, written) = compiled_both_ways(&text);
            lets += lets_in(&table);
            for cmd in commands {
                let decide = |t: &crate::Table| {
                    let mut ctx = crate::HookContext::new(
                        "tool.pre_execute",
                        "a::b",
                        serde_json::json!({ "cmd": cmd, "name": "X.sh" }),
                    );
                    t.dispatch_context(&mut ctx).reason
                };
                let reason = decide(&table);
                assert_eq!(reason, decide(&written), "{text}on `{cmd}`");
                fired += usize::from(reason.is_some());
                runs += 1;
            }
        }
        assert!(lets > 100, "calls were moved out ({lets} lets)");
        assert!(
            fired > runs / 10 && fired < runs * 9 / 10,
            "{fired} of {runs} fired"
        );
    }

    /// A small deterministic generator (xorshift) of conditions.
    struct Random(u64);

    /// A variable in scope: its name and whether it is a command.
    type Scope = Vec<(String, bool)>;

    impl Random {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }

        /// A string: a word, a command's program, the event's name, or a
        /// call on one.
        fn text(&mut self, scope: &Scope) -> String {
            let base = match (self.below(4), scope.is_empty()) {
                (0, _) | (_, true) => "payload.name".to_string(),
                _ => {
                    let (name, command) = &scope[self.below(scope.len())];
                    if *command {
                        format!("{name}.program")
                    } else {
                        name.clone()
                    }
                }
            };
            match self.below(4) {
                0 => base,
                1 => format!("lower({base})"),
                2 => format!("basename({base})"),
                _ => format!("lower(basename({base}))"),
            }
        }

        fn cond(&mut self, scope: &mut Scope, level: usize) -> String {
            let commands: Vec<String> = scope
                .iter()
                .filter(|(_, command)| *command)
                .map(|(name, _)| name.clone())
                .collect();
            match self.below(if level < 3 { 7 } else { 3 }) {
                0 => format!("{} == {}", self.text(scope), self.text(scope)),
                1 => format!(
                    "{} in [\"x.sh\", \"cp\", \"bash\", \"out.txt\"]",
                    self.text(scope)
                ),
                2 => format!("{} ends_with \"sh\"", self.text(scope)),
                3 | 4 => {
                    let name = format!("v{}", scope.len());
                    let over_args = !commands.is_empty() && self.below(2) == 0;
                    let list = if over_args {
                        format!("{}.args", commands[self.below(commands.len())])
                    } else {
                        "shell(payload.cmd)".to_string()
                    };
                    let kind = if self.below(3) == 0 { "all" } else { "any" };
                    scope.push((name.clone(), !over_args));
                    let body = self.cond(scope, level + 1);
                    scope.pop();
                    format!("({kind} {name} in {list}: {body})")
                }
                5 => format!(
                    "({}) and ({})",
                    self.cond(scope, level + 1),
                    self.cond(scope, level + 1)
                ),
                _ => format!(
                    "({}) or not ({})",
                    self.cond(scope, level + 1),
                    self.cond(scope, level + 1)
                ),
            }
        }
    }

    thread_local! {
        /// Set by a test to compile without this pass.
        pub(super) static OFF: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }

    /// `text` compiled with calls moved out and as written (the pass
    /// off); the first's conditions, their `let`s inlined, are the
    /// second's.
    fn compiled_both_ways(text: &str) -> (crate::Table, crate::Table) {
        let compile = |off: bool| {
            OFF.with(|cell| cell.set(off));
            let compiled = crate::compile_str("t.hooks", text);
            OFF.with(|cell| cell.set(false));
            compiled.unwrap_or_else(|e| panic!("{text}\n{e}")).table
        };
        let (moved, written) = (compile(false), compile(true));
        let atoms = |t: &crate::Table| -> Vec<Atom> {
            t.program()
                .points
                .iter()
                .flat_map(|p| p.atoms.clone())
                .collect()
        };
        let inlined: Vec<Atom> = atoms(&moved)
            .into_iter()
            .map(|atom| match atom {
                Atom::Expr(e) => Atom::Expr(e.inline_lets()),
                other => other,
            })
            .collect();
        assert_eq!(inlined, atoms(&written), "{text}");
        (moved, written)
    }

    fn lets_in(table: &crate::Table) -> usize {
        let points = &table.program().points;
        let exprs = points
            .iter()
            .flat_map(|p| &p.atoms)
            .filter_map(|atom| match atom {
                Atom::Expr(e) => Some(e),
                _ => None,
            });
        exprs.map(count_lets).sum()
    }

    fn count_lets(e: &Expr) -> usize {
        let mut n = usize::from(matches!(e, Expr::Let(..)));
        e.each_child(|child, _| n += count_lets(child));
        n
    }
}
