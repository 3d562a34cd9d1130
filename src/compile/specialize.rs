//! Tests of a shell view's word lists, rewritten into [`Expr::WordsAny`].
//!
//! Inside `any c in shell(…): …` the compiler knows that `c` is a simple
//! command, so `c.flags contains "-r"`, `"-r" in c.flags` and
//! `c.operands contains any ["push", "reset"]` test a list of words for
//! one of a set of constant strings. As written they compare every word
//! with every string; rewritten, one-letter flags are one `and` with the
//! command's flag bits ([`crate::shell::Command::short_flags`]), and sets
//! larger than [`StringSet::LINEAR`] are looked up through a perfect hash.
//! Anywhere, `x in ["a", "b", …]` on constant strings becomes a lookup in
//! such a set ([`Expr::InSet`]), where it compared the value with each
//! string as JSON.
//! The rewrite runs on the atoms of the program, after the lints have read
//! the conditions as written; it keeps the meaning of every value the
//! variable can hold (a command read as JSON takes the written form's path
//! at run time).

use crate::ir::{
    Atom, BinaryOp, Expr, Func, Segment, StrMap, StringSet, WordList, WordsForm, WordsTest,
};
use serde_json::Value;

/// Rewrites the word-list tests in the expression atoms of one point.
pub(super) fn atoms(atoms: &mut [Atom]) {
    for atom in atoms {
        if let Atom::Expr(e) = atom {
            expr(e, &mut Vec::new());
        }
    }
}

/// Rewrites `e` and everything in it; `commands` holds, for each quantifier
/// around `e` (outermost first), whether its variable is a shell command.
fn expr(e: &mut Expr, commands: &mut Vec<bool>) {
    // A variable is a command when its quantifier's list is `shell(…)`;
    // no other value bound (a `let`'s) is.
    let binds_commands = matches!(
        e,
        Expr::Quantifier(_, list, _) if matches!(list.as_ref(), Expr::Call(Func::Shell, _))
    );
    e.each_child_mut(|child, binds| {
        let bound = binds > 0;
        if bound {
            commands.push(binds_commands);
        }
        expr(child, commands);
        if bound {
            commands.pop();
        }
    });
    if let Some(rewritten) = words_test(e, commands).or_else(|| in_set(e)) {
        *e = rewritten;
    }
}

/// `x in ["a", "b", …]`, on a list of strings only, as an [`Expr::InSet`]:
/// a value is in such a list exactly when it is a string and one of them
/// (JSON equality between a string and anything else is false).
fn in_set(e: &mut Expr) -> Option<Expr> {
    let Expr::In(value, list) = e else {
        return None;
    };
    let Expr::Const(Value::Array(items)) = list.as_ref() else {
        return None;
    };
    let strings = distinct_strings(items)?;
    let value = std::mem::replace(&mut **value, Expr::Const(Value::Null));
    Some(Expr::InSet(Box::new(value), Box::new(string_set(strings))))
}

/// Each string once, in the order written (they are the keys of the
/// set's hash); `None` when an item is not a string.
fn distinct_strings(items: &[Value]) -> Option<Vec<String>> {
    let mut strings: Vec<String> = Vec::with_capacity(items.len());
    for item in items {
        let s = item.as_str()?;
        if !strings.iter().any(|t| t == s) {
            strings.push(s.to_owned());
        }
    }
    Some(strings)
}

/// A set of the strings, hashed when it has more than
/// [`StringSet::LINEAR`].
fn string_set(strings: Vec<String>) -> StringSet {
    let hash = if strings.len() > StringSet::LINEAR {
        super::matchers::hash_over(&strings)
    } else {
        StrMap::default()
    };
    StringSet::new(&strings, hash)
}

/// `e` as an [`Expr::WordsAny`], when it is one of the forms it stands for
/// on a command's word list.
fn words_test(e: &Expr, commands: &[bool]) -> Option<Expr> {
    let (list, strings, form) = match e {
        Expr::Binary(BinaryOp::Contains, list, needle) => {
            (list.as_ref(), vec![string(needle)?], WordsForm::Contains)
        }
        Expr::In(needle, list) => (list.as_ref(), vec![string(needle)?], WordsForm::In),
        Expr::ContainsAny(list, needles) => {
            let Expr::Const(Value::Array(items)) = needles.as_ref() else {
                return None;
            };
            (
                list.as_ref(),
                distinct_strings(items)?,
                WordsForm::ContainsAny,
            )
        }
        _ => return None,
    };
    let Expr::Var(depth, segments) = list else {
        return None;
    };
    let [Segment::Field(name)] = segments.as_slice() else {
        return None;
    };
    let is_command = commands
        .len()
        .checked_sub(1 + *depth as usize)
        .and_then(|i| commands.get(i))
        .copied()
        .unwrap_or(false);
    let word_list = WordList::named(name).filter(|_| is_command)?;
    let short_flags = strings
        .iter()
        .filter_map(|s| crate::shell::short_flag_bit(s))
        .fold(0, |bits, bit| bits | bit);
    Some(Expr::WordsAny(
        Box::new(Expr::Var(*depth, Vec::new())),
        Box::new(WordsTest {
            list: word_list,
            form,
            set: string_set(strings),
            short_flags,
        }),
    ))
}

fn string(e: &Expr) -> Option<String> {
    match e {
        Expr::Const(Value::String(s)) => Some(s.clone()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var(depth: u32, field: &str) -> Box<Expr> {
        Box::new(Expr::Var(depth, vec![Segment::Field(field.into())]))
    }

    fn text(s: &str) -> Box<Expr> {
        Box::new(Expr::Const(Value::String(s.into())))
    }

    fn payload() -> Expr {
        Expr::Path(crate::ir::FieldPath {
            root: crate::ir::Root::Payload,
            segments: Vec::new(),
            normalized: false,
        })
    }

    fn over_shell(body: Expr) -> Expr {
        let list = Expr::Call(Func::Shell, vec![payload()]);
        Expr::Quantifier(crate::ir::Quantifier::Any, Box::new(list), Box::new(body))
    }

    fn rewritten(e: Expr) -> Expr {
        let mut atoms = [Atom::Expr(e)];
        super::atoms(&mut atoms);
        let [Atom::Expr(e)] = atoms else {
            unreachable!("one atom in, one out")
        };
        e
    }

    fn body(e: &Expr) -> &Expr {
        match e {
            Expr::Quantifier(_, _, body) => body,
            other => other,
        }
    }

    #[test]
    fn a_flag_test_on_a_command_becomes_bits() {
        let e = rewritten(over_shell(Expr::Binary(
            BinaryOp::Contains,
            var(0, "flags"),
            text("-r"),
        )));
        let Expr::WordsAny(command, test) = body(&e) else {
            panic!("not rewritten: {e:?}")
        };
        assert_eq!(**command, Expr::Var(0, Vec::new()));
        assert_eq!(test.list, WordList::Flags);
        assert_eq!(test.form, WordsForm::Contains);
        assert_eq!(
            test.short_flags,
            crate::shell::short_flag_bit("-r").unwrap()
        );
        assert!(test.set.hash.keys.is_empty());
    }

    #[test]
    fn a_large_set_is_hashed_and_every_string_is_found() {
        let strings: Vec<Value> = (0..20).map(|i| Value::String(format!("w{i}"))).collect();
        let e = rewritten(over_shell(Expr::ContainsAny(
            var(0, "operands"),
            Box::new(Expr::Const(Value::Array(strings))),
        )));
        let Expr::WordsAny(_, test) = body(&e) else {
            panic!("not rewritten: {e:?}")
        };
        // The hash is over the strings, which it does not copy.
        assert!(test.set.hash.keys.is_empty() && test.set.hash.values.is_empty());
        assert_eq!(test.set.hash.map.len(), 20);
        assert!((0..20).all(|i| test.has(&format!("w{i}"))));
        assert!(!test.has("w20") && !test.has(""));
    }

    /// A string written twice is one key (the hash needs distinct ones);
    /// the others keep the order they were written in.
    #[test]
    fn a_repeated_string_is_tested_once() {
        let mut strings: Vec<Value> = (0..12)
            .rev()
            .map(|i| Value::String(format!("w{i}")))
            .collect();
        strings.push(Value::String("w3".into()));
        let e = rewritten(over_shell(Expr::ContainsAny(
            var(0, "operands"),
            Box::new(Expr::Const(Value::Array(strings))),
        )));
        let Expr::WordsAny(_, test) = body(&e) else {
            panic!("not rewritten: {e:?}")
        };
        let expected: Vec<String> = (0..12).rev().map(|i| format!("w{i}")).collect();
        assert_eq!(test.set.iter().collect::<Vec<_>>(), expected);
        assert!((0..12).all(|i| test.has(&format!("w{i}"))));
        assert!(!test.has("w12"));
    }

    #[test]
    fn lists_that_are_not_a_commands_stay_as_written() {
        // A quantifier over a payload list: `x.flags` may be a string.
        let over_payload = Expr::Quantifier(
            crate::ir::Quantifier::Any,
            Box::new(payload()),
            Box::new(Expr::Binary(
                BinaryOp::Contains,
                var(0, "flags"),
                text("-r"),
            )),
        );
        assert_eq!(rewritten(over_payload.clone()), over_payload);
        // Not a word list, a needle that is not a string, the outer variable
        // when only the inner quantifier is over a shell view.
        for kept in [
            over_shell(Expr::Binary(
                BinaryOp::Contains,
                var(0, "program"),
                text("r"),
            )),
            over_shell(Expr::Binary(
                BinaryOp::Contains,
                var(0, "flags"),
                Box::new(Expr::Const(Value::from(1))),
            )),
            Expr::Quantifier(
                crate::ir::Quantifier::Any,
                Box::new(payload()),
                Box::new(over_shell(Expr::In(text("-r"), var(1, "flags")))),
            ),
        ] {
            assert_eq!(rewritten(kept.clone()), kept);
        }
    }

    #[test]
    fn an_outer_command_is_reached_from_an_inner_quantifier() {
        let inner = Expr::Quantifier(
            crate::ir::Quantifier::All,
            var(0, "redirects"),
            Box::new(Expr::In(text("-f"), var(1, "flags"))),
        );
        let e = rewritten(over_shell(inner));
        let Expr::Quantifier(_, _, inner) = body(&e) else {
            panic!("{e:?}")
        };
        assert!(
            matches!(inner.as_ref(), Expr::WordsAny(c, t) if **c == Expr::Var(1, Vec::new()) && t.form == WordsForm::In),
            "{inner:?}"
        );
    }

    #[test]
    fn a_list_of_strings_becomes_a_set_and_any_other_list_stays() {
        let strings =
            |n: usize| Value::Array((0..n).map(|i| Value::String(format!("w{i}"))).collect());
        let in_list = |list: Value| Expr::In(Box::new(payload()), Box::new(Expr::Const(list)));
        let Expr::InSet(value, set) = rewritten(in_list(strings(3))) else {
            panic!("not rewritten")
        };
        assert_eq!(*value, payload());
        assert_eq!(set.iter().collect::<Vec<_>>(), ["w0", "w1", "w2"]);
        assert!(
            set.hash.map.is_empty(),
            "three strings are compared one by one"
        );
        let Expr::InSet(_, set) = rewritten(in_list(strings(20))) else {
            panic!("not rewritten")
        };
        assert_eq!(set.hash.map.len(), 20);
        assert!((0..20).all(|i| set.has(&format!("w{i}"))) && !set.has("w20"));
        let Expr::InSet(_, set) = rewritten(in_list(strings(0))) else {
            panic!("not rewritten")
        };
        assert!(!set.has("") && !set.has("w0"));
        // A list with anything but strings, or a list that is not a
        // constant, is compared as written.
        for kept in [
            in_list(serde_json::json!(["a", 1])),
            Expr::In(Box::new(payload()), Box::new(payload())),
        ] {
            assert_eq!(rewritten(kept.clone()), kept);
        }
    }

    /// Each element of a list of values of every type is in a list of
    /// strings as written exactly when it is in the set.
    #[test]
    fn a_set_of_strings_holds_what_the_list_holds() {
        let text = r#"hook listed on tool.pre_execute {
    when any v in payload.values: v in ["a", "1", "true", "null", "[\"a\"]", "w7", "w8", "w9", "w10"]
    deny "listed"
}
"#;
        let table = crate::compile_str("t.hooks", text).unwrap().table;
        let mut written = table.program().clone();
        let mut sets = 0;
        for atom in &mut written.points[0].atoms {
            if let Atom::Expr(e) = atom {
                sets += usize::from(as_written(e));
            }
        }
        assert_eq!(sets, 1);
        let written = crate::Table::from_program(written).unwrap();
        let values = serde_json::json!([
            "a", "b", 1, "1", true, "true", null, "null", ["a"], {"a": 1}, 1.5, "w10", "W10"
        ]);
        let mut listed = 0;
        for value in values.as_array().unwrap() {
            let decide = |t: &crate::Table| {
                let mut ctx = crate::HookContext::new(
                    "tool.pre_execute",
                    "a::b",
                    serde_json::json!({ "values": [value] }),
                );
                t.dispatch_context(&mut ctx).reason
            };
            let reason = decide(&table);
            assert_eq!(reason, decide(&written), "{value}");
            listed += usize::from(reason.is_some());
        }
        assert_eq!(listed, 5, "the strings a, 1, true, null and w10");
    }

    /// Turns the sets in `e` back into the lists they were written as.
    fn as_written(e: &mut Expr) -> bool {
        let mut found = false;
        e.each_child_mut(|child, _| found |= as_written(child));
        if let Expr::InSet(value, set) = e {
            let list = set.to_value();
            let value = std::mem::replace(&mut **value, Expr::Const(Value::Null));
            *e = Expr::In(Box::new(value), Box::new(Expr::Const(list)));
            found = true;
        }
        found
    }
}
