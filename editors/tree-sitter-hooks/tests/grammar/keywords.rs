//! The keywords agree with hookc's: every reserved word of hookc
//! (`syntax::RESERVED`) is reserved here, and every keyword of the pest
//! grammar (`kw_*`) is a token here. A keyword added to hookc and not to
//! this grammar fails these tests.

use std::fs;

use crate::sources::repo_root;
use crate::{error_nodes, parse};

/// The double-quoted strings of `text` between `start` and the next `end`.
fn quoted_between(text: &str, start: &str, end: &str, quote: char) -> Vec<String> {
    let from = text
        .find(start)
        .unwrap_or_else(|| panic!("`{start}` is found"))
        + start.len();
    let to = from
        + text[from..]
            .find(end)
            .unwrap_or_else(|| panic!("`{end}` follows `{start}`"));
    text[from..to]
        .split(quote)
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

/// hookc's reserved words (`src/syntax/vocab.rs`).
fn hookc_reserved() -> Vec<String> {
    let vocab = fs::read_to_string(repo_root().join("src/syntax/vocab.rs"))
        .expect("hookc's src/syntax/vocab.rs is readable");
    quoted_between(&vocab, "const RESERVED: &[&str] = &[", "];", '"')
}

/// The reserved words of `grammar.js`.
fn grammar_reserved() -> Vec<String> {
    let grammar = fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/grammar.js"))
        .expect("grammar.js is readable");
    quoted_between(&grammar, "const RESERVED = [", "];", '\'')
}

/// Every keyword of the pest grammar: its `kw_*` rules.
fn pest_keywords() -> Vec<String> {
    let pest = fs::read_to_string(repo_root().join("grammar/hooks.pest"))
        .expect("hookc's grammar/hooks.pest is readable");
    pest.lines()
        .filter_map(|line| {
            let rest = line.strip_prefix("kw_")?;
            let (_, body) = rest.split_once("= @{")?;
            body.split('"').nth(1).map(str::to_owned)
        })
        .collect()
}

#[test]
fn the_reserved_words_are_hookcs() {
    let mut hookc = hookc_reserved();
    let mut here = grammar_reserved();
    assert!(
        hookc.len() > 40,
        "hookc's reserved words are found: {hookc:?}"
    );
    hookc.sort();
    here.sort();
    let missing: Vec<_> = hookc.iter().filter(|w| !here.contains(w)).collect();
    let extra: Vec<_> = here.iter().filter(|w| !hookc.contains(w)).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "grammar.js's RESERVED differs from hookc's syntax::RESERVED: \
         add {missing:?} to it, remove {extra:?} from it"
    );
}

/// The strings the rules of the grammar match (`src/grammar.json`,
/// generated from `grammar.js`), less its list of reserved words.
fn grammar_strings() -> Vec<String> {
    let json = fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/grammar.json"))
        .expect("src/grammar.json is readable");
    let start = json.find("\"rules\": {").expect("grammar.json has rules");
    let end = json[start..]
        .find("\n  \"extras\"")
        .map_or(json.len(), |n| start + n);
    json[start..end]
        .split("\"type\": \"STRING\",")
        .skip(1)
        .filter_map(|rest| {
            let value = rest.trim_start().strip_prefix("\"value\": \"")?;
            value.split('"').next().map(str::to_owned)
        })
        .collect()
}

#[test]
fn every_pest_keyword_is_a_keyword_here() {
    let keywords = pest_keywords();
    assert!(
        keywords.len() > 60,
        "the pest grammar's keywords are found: {keywords:?}"
    );
    let strings = grammar_strings();
    let absent: Vec<_> = keywords.iter().filter(|w| !strings.contains(w)).collect();
    assert!(
        absent.is_empty(),
        "keywords of hooks.pest that no rule of grammar.js uses: {absent:?}"
    );
}

#[test]
fn a_reserved_word_is_never_a_name() {
    for word in hookc_reserved() {
        let text = format!("macro {word} = 1\n");
        assert!(
            !error_nodes(&parse(&text), &text).is_empty(),
            "`{word}` is reserved, yet `macro {word} = 1` parses"
        );
    }
}

#[test]
fn a_reserved_word_is_a_field_name() {
    for word in hookc_reserved() {
        let text = format!("macro m = payload.{word} == metadata.{word}\n");
        let errors = error_nodes(&parse(&text), &text);
        assert!(errors.is_empty(), "`payload.{word}`: {errors:?}");
    }
}

#[test]
fn a_word_that_is_not_reserved_is_a_name() {
    let reserved = hookc_reserved();
    for word in pest_keywords().iter().filter(|w| !reserved.contains(w)) {
        let text = format!(
            "macro {word} = payload.{word}\n\
             hook h on p {{\n    let {word} = 1\n    when {word} == 1\n}}\n"
        );
        let errors = error_nodes(&parse(&text), &text);
        assert!(errors.is_empty(), "`{word}` as a name: {errors:?}");
    }
}
