//! Tests of a shell view's word lists, rewritten into [`Expr::WordsAny`].
//!
//! Inside `any c in shell(…): …` the compiler knows that `c` is a simple
//! command, so `c.flags contains "-r"`, `"-r" in c.flags` and
//! `c.operands contains any ["push", "reset"]` test a list of words for
//! one of a set of constant strings. As written they compare every word
//! with every string; rewritten, one-letter flags are one `and` with the
//! command's flag bits ([`crate::shell::Command::short_flags`]), and sets
//! larger than [`WordsTest::LINEAR`] are looked up through a perfect hash.
//! The rewrite runs on the atoms of the program, after the lints have read
//! the conditions as written; it keeps the meaning of every value the
//! variable can hold (a command read as JSON takes the written form's path
//! at run time).

use crate::ir::{Atom, BinaryOp, Expr, Func, Segment, StrMap, WordList, WordsForm, WordsTest};
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
    match e {
        Expr::Quantifier(_, list, body) => {
            expr(list, commands);
            commands.push(matches!(list.as_ref(), Expr::Call(Func::Shell, _)));
            expr(body, commands);
            commands.pop();
        }
        // The compiler's own `let`s come after this rewrite; a value bound
        // is not a command.
        Expr::Let(value, body) => {
            expr(value, commands);
            commands.push(false);
            expr(body, commands);
            commands.pop();
        }
        Expr::Array(items) | Expr::Call(_, items) => {
            items.iter_mut().for_each(|i| expr(i, commands));
        }
        Expr::Object(fields) => fields.iter_mut().for_each(|(_, v)| expr(v, commands)),
        Expr::Unary(_, x) | Expr::Matches(x, _) | Expr::Capture(x, ..) => expr(x, commands),
        Expr::Binary(_, a, b) | Expr::In(a, b) | Expr::ContainsAny(a, b) => {
            expr(a, commands);
            expr(b, commands);
        }
        Expr::WordsAny(command, _) => expr(command, commands),
        Expr::Const(_)
        | Expr::Path(_)
        | Expr::Template(_)
        | Expr::Exists(_)
        | Expr::Rate(_)
        | Expr::Var(..) => {}
    }
    if let Some(rewritten) = words_test(e, commands) {
        *e = rewritten;
    }
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
            // Each string once, in the order written: they are the keys
            // of the test's hash.
            let mut strings: Vec<String> = Vec::with_capacity(items.len());
            for item in items {
                let s = item.as_str()?;
                if !strings.iter().any(|t| t == s) {
                    strings.push(s.to_owned());
                }
            }
            (list.as_ref(), strings, WordsForm::ContainsAny)
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
    let hash = if strings.len() > WordsTest::LINEAR {
        super::matchers::hash_over(&strings)
    } else {
        StrMap::default()
    };
    Some(Expr::WordsAny(
        Box::new(Expr::Var(*depth, Vec::new())),
        Box::new(WordsTest {
            list: word_list,
            form,
            strings,
            short_flags,
            hash,
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
        assert!(test.hash.keys.is_empty());
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
        assert!(test.hash.keys.is_empty() && test.hash.values.is_empty());
        assert_eq!(test.hash.map.len(), 20);
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
        assert_eq!(test.strings, expected);
        assert!((0..12).all(|i| test.has(&format!("w{i}"))));
        assert!(!test.has("w12"));
    }

    /// A table written before holds the strings again, sorted, as the
    /// hash's own keys: it still finds them.
    #[test]
    fn a_hash_with_keys_of_its_own_still_finds_the_strings() {
        let strings: Vec<String> = (0..20).rev().map(|i| format!("w{i}")).collect();
        let entries = strings.iter().map(|s| (s.clone(), Vec::new())).collect();
        let test = WordsTest {
            list: WordList::Operands,
            form: WordsForm::ContainsAny,
            strings,
            short_flags: 0,
            hash: crate::compile::matchers::str_map(entries),
        };
        assert_eq!(test.hash.keys.len(), 20);
        assert!((0..20).all(|i| test.has(&format!("w{i}"))));
        assert!(!test.has("w20"));
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
}
