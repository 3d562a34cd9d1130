//! Pest errors as diagnostics: what was expected, in words, at the exact
//! position, with a help for the common slips (a misspelt keyword, a
//! missing `payload.`, `&&` for `and`).

use crate::syntax::vocab::*;

use pest::error::{ErrorVariant, InputLocation};

use crate::diag::suggest::suggest_keyword;
use crate::diag::Diagnostic;
use crate::span::{SourceFile, Span};
use crate::syntax::grammar::Rule;
use crate::syntax::RESERVED;

// ---------------------------------------------------------------------------
// Syntax errors
// ---------------------------------------------------------------------------

/// What pest expected, as a human phrase; `None` for rules never worth
/// naming. The second field ranks the phrase (operators go last).
pub(super) fn expected(rule: Rule) -> Option<(u8, String)> {
    let text = match rule {
        Rule::next_item | Rule::next_item_strict | Rule::item | Rule::item_start => ITEM_PHRASE,
        Rule::EOI => "end of file",
        Rule::hook_id => "a rule id",
        Rule::point => "a hook point name",
        Rule::fql => "a target such as `builtin::*`",
        Rule::hook_option => "a hook option (`priority`, `disabled`, `fail` or `timeout`)",
        Rule::condition => "a condition (`when` or `unless`)",
        Rule::let_line => "a `let` line",
        Rule::action => "an action (`abort`, `set`, `log`, …)",
        Rule::expr | Rule::predicate | Rule::arith | Rule::operand | Rule::paren => "an expression",
        Rule::arith_op
        | Rule::cmp_op
        | Rule::bool_op
        | Rule::kw_and
        | Rule::kw_or
        | Rule::kw_contains
        | Rule::kw_starts_with
        | Rule::kw_ends_with
        | Rule::kw_in
        | Rule::kw_matches
        | Rule::kw_glob
        | Rule::kw_exists => return Some((1, "an operator".to_owned())),
        Rule::string => "a string",
        Rule::regex_ref => "a regex (`/…/`) or a pattern name",
        Rule::regex => "a regex (`/…/`)",
        Rule::ident => "a name",
        Rule::path => "a field path",
        Rule::field => "a field name",
        Rule::index => "an index",
        Rule::int => "an integer",
        Rule::duration => "a duration such as `5s`",
        Rule::set_ref => "a list (`[…]`) or a list name",
        Rule::schema_name => "a schema name",
        Rule::log_level => "a log level such as `info`",
        Rule::meta_key => "a metadata key",
        Rule::number => "a number",
        Rule::array => "`[`",
        Rule::object => "`{`",
        Rule::eq => "`=`",
        Rule::comma => "`,`",
        Rule::colon => "`:`",
        Rule::arrow => "`->`",
        Rule::lbrace => "`{`",
        Rule::rbrace => "`}`",
        Rule::lbracket => "`[`",
        Rule::rbracket => "`]`",
        Rule::lparen => "`(`",
        Rule::rparen => "`)`",
        Rule::prefix_op => "an expression",
        // `not` is part of an expression or of `not in`; named by others.
        Rule::kw_not => return None,
        other => {
            let name = format!("{other:?}");
            return name.strip_prefix("kw_").map(|kw| (0, format!("`{kw}`")));
        }
    };
    Some((0, text.to_owned()))
}

/// The keywords a user may have misspelled when pest expected `rule`.
pub(super) fn candidates(rule: Rule) -> Vec<&'static str> {
    match rule {
        Rule::next_item | Rule::next_item_strict | Rule::item | Rule::item_start => {
            ITEM_KEYWORDS.to_vec()
        }
        Rule::action => ACTION_KEYWORDS.to_vec(),
        Rule::condition => vec!["when", "unless"],
        Rule::let_line => vec!["let"],
        Rule::hook_option => OPTION_KEYWORDS.to_vec(),
        Rule::kw_include => vec!["include"],
        Rule::kw_header => vec!["header"],
        Rule::bool_op
        | Rule::kw_and
        | Rule::kw_or
        | Rule::kw_contains
        | Rule::kw_starts_with
        | Rule::kw_ends_with
        | Rule::kw_in
        | Rule::kw_matches
        | Rule::kw_glob
        | Rule::kw_exists => OPERATOR_KEYWORDS.to_vec(),
        other => {
            let name = format!("{other:?}");
            RESERVED
                .iter()
                .copied()
                .filter(|kw| name.strip_prefix("kw_") == Some(kw))
                .collect()
        }
    }
}

/// Joins phrases as `a`, `a or b`, `a, b, or c`.
pub(super) fn join_or(parts: &[String]) -> String {
    match parts {
        [] => "something else".to_owned(),
        [one] => one.clone(),
        [a, b] => format!("{a} or {b}"),
        [init @ .., last] => format!("{}, or {last}", init.join(", ")),
    }
}

/// What was found at `pos`: a phrase and the span to underline.
pub(super) fn found_at(text: &str, pos: usize) -> (String, Option<String>, Span) {
    let rest = text.get(pos..).unwrap_or("");
    let Some(c) = rest.chars().next() else {
        return ("end of file".to_owned(), None, Span::new(pos, pos));
    };
    if c.is_ascii_alphanumeric() || c == '_' {
        let len = rest
            .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
            .unwrap_or(rest.len());
        let word = rest.get(..len).unwrap_or("").to_owned();
        return (format!("`{word}`"), Some(word), Span::new(pos, pos + len));
    }
    match c {
        '\n' | '\r' => ("end of line".to_owned(), None, Span::new(pos, pos)),
        ' ' => ("a space".to_owned(), None, Span::new(pos, pos + 1)),
        '\t' => ("a tab".to_owned(), None, Span::new(pos, pos + 1)),
        '"' => ("a string".to_owned(), None, Span::new(pos, pos + 1)),
        _ => (format!("`{c}`"), None, Span::new(pos, pos + c.len_utf8())),
    }
}

/// Turns a pest error (positions relative to `base`) into a diagnostic.
pub(super) fn syntax_error(
    file: &SourceFile,
    base: usize,
    err: &pest::error::Error<Rule>,
) -> Diagnostic {
    let pos = base
        + match err.location {
            InputLocation::Pos(p) => p,
            InputLocation::Span((s, _)) => s,
        };
    let text: &str = &file.text;
    let positives = match &err.variant {
        ErrorVariant::ParsingError { positives, .. } => positives.clone(),
        ErrorVariant::CustomError { message } => {
            if message.contains("stack") {
                return nesting_error(file, Span::new(pos, pos + 1));
            }
            let (_, _, span) = found_at(text, pos);
            return Diagnostic::error("syntax", "this item is too large to parse")
                .in_file(file)
                .with_primary(span, "parsing stopped here")
                .with_help("split it into smaller items");
        }
    };
    let mut phrases: Vec<(u8, String)> = positives.iter().filter_map(|r| expected(*r)).collect();
    phrases.sort_by_key(|(rank, _)| *rank);
    let mut parts: Vec<String> = Vec::new();
    for (_, phrase) in phrases {
        if !parts.contains(&phrase) {
            parts.push(phrase);
        }
    }
    let has = |rule: Rule| positives.contains(&rule);
    // `end of file` is implied when a top-level item would also do.
    if parts.iter().any(|p| p == ITEM_PHRASE) {
        parts.retain(|p| p != "end of file");
    }
    if parts.is_empty() && has(Rule::kw_not) {
        parts.push("an expression".to_owned());
    }
    // A lone keyword is named as itself (`a not b`: expected `in`).
    if let [only] = positives.as_slice() {
        if let Some(kw) = format!("{only:?}").strip_prefix("kw_") {
            parts = vec![format!("`{kw}`")];
        }
    }
    let (found, word, span) = found_at(text, pos);
    let message = format!("expected {}, found {found}", join_or(&parts));
    let label = match parts.as_slice() {
        [one] => format!("expected {one}"),
        _ => format!("unexpected {found}"),
    };
    let mut diag = Diagnostic::error("syntax", message)
        .in_file(file)
        .with_primary(span, label);
    if let Some(help) = operator_help(text, pos) {
        diag = diag.with_help(help);
    } else if let Some(help) = syntax_help(&positives, &found, word.as_deref()) {
        diag = match help {
            Help::Text(text) => diag.with_help(text),
            Help::Keyword(keyword) => diag.with_suggestion(span, keyword),
        };
    } else if let Some(help) = expect_help(text, pos) {
        diag = diag.with_help(help);
    }
    diag
}

/// A help line for an operator of another language at `pos` (or just
/// before it: `a && b` fails at the second `&`): `&&`, `||`, `!`.
pub(super) fn operator_help(text: &str, pos: usize) -> Option<String> {
    let at = |from: usize| text.get(from..).unwrap_or("");
    let from = [pos.saturating_sub(1), pos]
        .into_iter()
        .find(|&p| at(p).starts_with("&&") || at(p).starts_with("||"))
        .map(at);
    match from {
        Some(op) if op.starts_with("&&") => {
            Some("write `and`: conditions join with `and`, `or` and `not`".to_owned())
        }
        Some(_) => Some("write `or`: conditions join with `and`, `or` and `not`".to_owned()),
        None if at(pos).starts_with('!') && !at(pos).starts_with("!=") => {
            Some("write `not`: conditions join with `and`, `or` and `not`".to_owned())
        }
        None => None,
    }
}

/// A help line for an error on an `expect` line of a test.
pub(super) fn expect_help(text: &str, pos: usize) -> Option<String> {
    let before = text.get(..pos)?;
    let line = before.rsplit('\n').next()?.trim_start();
    let rest = line.strip_prefix("expect")?;
    if !rest.starts_with([' ', '\t']) {
        return None;
    }
    let word: String = rest
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    if let Some(best) = suggest_keyword(&word, &EXPECT_KEYWORDS) {
        return Some(format!("did you mean `expect {best}`?"));
    }
    Some(
        "an `expect` line is `expect abort \"reason\"`, `expect continue`, `expect skip <json>`, \
         `expect ask \"reason\"`, `expect fired [\"rule-id\"]`, `expect decision allow|ask|deny|none`, \
         or a condition such as `expect payload.n == 7`"
            .to_owned(),
    )
}

/// A help for a syntax error: a sentence, or the keyword a misspelt word
/// meant (which a tool can put in its place).
pub(super) enum Help {
    /// What to do, in words.
    Text(String),
    /// "did you mean `keyword`?", about the word found.
    Keyword(&'static str),
}

/// A help for a syntax error, when one is likely to help.
pub(super) fn syntax_help(positives: &[Rule], found: &str, word: Option<&str>) -> Option<Help> {
    if let Some(text) = syntax_help_text(positives, found, word) {
        return Some(Help::Text(text));
    }
    let word = word?;
    let cands: Vec<&'static str> = positives.iter().flat_map(|r| candidates(*r)).collect();
    if let Some(best) = suggest_keyword(word, &cands) {
        return Some(Help::Keyword(best));
    }
    let has = |rule: Rule| positives.contains(&rule);
    (has(Rule::lbrace) && has(Rule::hook_option)).then(|| {
        Help::Text(format!(
            "`{word}` is not a hook option; the options are `priority`, `disabled`, `fail` and `timeout`"
        ))
    })
}

/// The helps of [`syntax_help`] that come before a keyword suggestion.
fn syntax_help_text(positives: &[Rule], found: &str, word: Option<&str>) -> Option<String> {
    let has = |rule: Rule| positives.contains(&rule);
    if has(Rule::kw_event) {
        return Some(
            "a test starts with its event: `event {\"hook_point\": \"…\", \"component_id\": \"…\"}`"
                .to_owned(),
        );
    }
    let Some(word) = word else {
        if found == "end of file" && has(Rule::rbrace) && has(Rule::action) {
            return Some("add `}` to close the rule's body".to_owned());
        }
        if found == "`=`" && (has(Rule::arith_op) || has(Rule::bool_op)) {
            return Some("use `==` to compare values".to_owned());
        }
        return None;
    };
    let is_reserved = RESERVED.contains(&word);
    let body_word = ACTION_KEYWORDS.contains(&word) || word == "when" || word == "unless";
    if has(Rule::action) && (word == "when" || word == "unless") {
        return Some("conditions (`when`, `unless`) must come before the actions".to_owned());
    }
    if has(Rule::lbrace) && body_word {
        return Some("add `{` to open the rule's body".to_owned());
    }
    if is_reserved
        && [
            Rule::ident,
            Rule::hook_id,
            Rule::point,
            Rule::path,
            Rule::schema_name,
        ]
        .iter()
        .any(|r| has(*r))
    {
        return Some(format!(
            "`{word}` is a reserved word and cannot be used as a name"
        ));
    }
    None
}

/// The diagnostic for a string without its closing quote.
pub(super) fn unterminated_string_error(file: &SourceFile, span: Span) -> Diagnostic {
    Diagnostic::error("syntax", "unterminated string")
        .in_file(file)
        .with_primary(span, "missing closing `\"`")
        .with_help("strings end on the line they start on; close it with `\"`")
}

/// The diagnostic for an expression nested past [`NEST_LIMIT`].
pub(super) fn nesting_error(file: &SourceFile, span: Span) -> Diagnostic {
    Diagnostic::error("nesting-limit", "expression is nested too deeply")
        .in_file(file)
        .with_primary(span, format!("more than {NEST_LIMIT} levels of nesting"))
        .with_help("split the expression with `macro` definitions")
}
