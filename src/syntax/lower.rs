//! From pest pairs to the AST, and from pest errors to diagnostics.
//!
//! [`parse_file`] reads a file one top-level item at a time. Each item is
//! parsed by pest (rule `next_item`) from where the previous one ended; when
//! pest fails, the error becomes a `syntax` diagnostic and parsing resumes at
//! the next line that starts with a top-level keyword. Items that parse are
//! lowered into [`ast`](super::ast) nodes with absolute byte spans; problems
//! found while lowering (bad escapes, durations, regex flags, nesting) become
//! diagnostics too.
//!
//! Expressions come out of the grammar as flat operand/operator sequences;
//! they are folded here by precedence without recursion, so the only
//! recursion is bracket nesting, which is limited to [`NEST_LIMIT`] levels.

use std::num::NonZeroUsize;

use pest::error::{ErrorVariant, InputLocation};
use pest::iterators::Pair;
use pest::Parser as _;

use super::ast::{
    Action, ActionKind, BinaryOp, Condition, Expect, ExpectKind, Expr, ExprKind, FailMode, File,
    Hook, HookOption, HookOptionKind, Ident, Import, Item, ListDecl, MacroDecl, Path, PatternDecl,
    Rate, RegexLit, RegexRef, SchemaDecl, SchemaRef, Segment, StrLit, TestDecl, UnaryOp, Webhook,
};
use super::grammar::{HooksParser, Rule};
use super::RESERVED;
use crate::diag::suggest::suggest_keyword;
use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::Root;
use crate::span::{SourceFile, Span};

/// The deepest expression nesting (brackets and prefix operators) accepted.
pub(crate) const NEST_LIMIT: usize = 64;

/// Bracket depth past which an item is refused before pest sees it: the
/// slack covers the rule body's braces and index brackets, so the precise
/// limit is enforced by the lowering.
const PRESCAN_LIMIT: usize = NEST_LIMIT + 8;

/// The deepest expression tree accepted, operator chains included: a
/// left-associative chain of `n` operands is `n - 1` levels deep, and later
/// stages walk trees recursively.
pub(crate) const TREE_LIMIT: usize = 256;

/// How deep the expression being lowered sits.
#[derive(Clone, Copy, Debug, Default)]
struct Depth {
    /// Brackets and prefix operators around it (limit [`NEST_LIMIT`]).
    nest: usize,
    /// Tree levels above it (limit [`TREE_LIMIT`]).
    tree: usize,
}

/// Cumulative pest calls allowed for one item (a bound on parsing work).
const CALL_LIMIT: usize = 20_000_000;

/// Keywords that start a top-level item; recovery resumes at them.
const ITEM_KEYWORDS: [&str; 7] = [
    "schema", "import", "list", "pattern", "macro", "hook", "test",
];

/// How errors name a top-level item.
const ITEM_PHRASE: &str =
    "a top-level item (`schema`, `import`, `list`, `pattern`, `macro`, `hook` or `test`)";

/// The forms of `expect` in a test.
const EXPECT_KEYWORDS: [&str; 6] = ["abort", "continue", "skip", "ask", "fired", "decision"];

/// Keywords that start an action.
const ACTION_KEYWORDS: [&str; 19] = [
    "continue", "abort", "deny", "skip", "replace", "set", "unset", "rewrite", "prepend", "append",
    "meta", "log", "ask", "allow", "context", "exec", "sh", "webhook", "call",
];

/// Keywords that start a header option.
const OPTION_KEYWORDS: [&str; 4] = ["priority", "disabled", "fail", "timeout"];

/// Keywords that continue an expression.
const OPERATOR_KEYWORDS: [&str; 10] = [
    "and",
    "or",
    "not",
    "in",
    "contains",
    "starts_with",
    "ends_with",
    "matches",
    "glob",
    "exists",
];

/// Parses a whole file, item by item, recovering after syntax errors.
pub(crate) fn parse_file(file: &SourceFile) -> (File, Diagnostics) {
    pest::set_call_limit(NonZeroUsize::new(CALL_LIMIT));
    let text: &str = &file.text;
    let mut items = Vec::new();
    let mut diags = Diagnostics::new();
    let mut pos = 0;
    loop {
        let start = skip_trivia(text, pos);
        if start >= text.len() {
            break;
        }
        let resume = next_item_line(text, start);
        if let Some(at) = prescan_nesting(text, start, resume) {
            diags.push(nesting_error(file, Span::new(at, at + 1)));
            pos = resume;
            continue;
        }
        // The item cannot reach past the next line that starts an item;
        // bounding the input also keeps pest's error construction (which
        // scans its input) linear overall.
        let rest = text.get(start..resume).unwrap_or("");
        match HooksParser::parse(Rule::next_item, rest) {
            Ok(pairs) => {
                let item = pairs
                    .flat_map(|p| p.into_inner())
                    .find(|p| p.as_rule() == Rule::item);
                let Some(item) = item else { break };
                let end = start + item.as_span().end();
                let mut lower = Lowerer {
                    file,
                    base: start,
                    diags: &mut diags,
                };
                if let Ok(item) = lower.item(item) {
                    items.push(item);
                }
                pos = end.max(start + 1);
                if !at_item_or_end(text, pos) {
                    // Junk after a complete item: the item may have ended
                    // early because a part of it failed (`a contains any 5`).
                    // Parsing it again, requiring an item or the end after
                    // it, finds the furthest error.
                    let err = match HooksParser::parse(Rule::next_item_strict, rest) {
                        Err(err) => syntax_error(file, start, &err),
                        Ok(_) => junk_error(file, skip_trivia(text, pos)),
                    };
                    diags.push(err);
                    pos = next_item_line(text, pos);
                }
            }
            Err(err) => {
                let diag = syntax_error(file, start, &err);
                // A string left open swallows the rest of its line, so the
                // error pest reports later is only a consequence of it.
                let at = diag.primary_span().map_or(start, |s| s.start as usize);
                match unterminated_string(text, start, at) {
                    Some(span) => diags.push(unterminated_string_error(file, span)),
                    None => diags.push(diag),
                }
                pos = resume;
            }
        }
    }
    (File { items }, diags)
}

/// True when, after blanks and comments, `pos` is at the end of the text or
/// at a top-level keyword.
fn at_item_or_end(text: &str, pos: usize) -> bool {
    let rest = text.get(skip_trivia(text, pos)..).unwrap_or("");
    rest.is_empty()
        || ITEM_KEYWORDS.iter().any(|kw| {
            rest.strip_prefix(kw).is_some_and(|after| {
                !after.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
                    && (*kw != "test" || test_name_follows(after))
            })
        })
}

/// True when a string follows (after blanks and comments): `test` starts
/// an item only when its name follows (`test` is not reserved; it may name a
/// macro).
fn test_name_follows(after: &str) -> bool {
    after
        .get(skip_trivia(after, 0)..)
        .is_some_and(|rest| rest.starts_with('"'))
}

/// The diagnostic for text after an item that starts no item.
fn junk_error(file: &SourceFile, pos: usize) -> Diagnostic {
    let (found, _, span) = found_at(&file.text, pos);
    Diagnostic::error("syntax", format!("expected {}, found {found}", ITEM_PHRASE))
        .in_file(file)
        .with_primary(span, format!("unexpected {found}"))
}

/// Skips blanks and comments from `pos`.
fn skip_trivia(text: &str, mut pos: usize) -> usize {
    let bytes = text.as_bytes();
    while let Some(&b) = bytes.get(pos) {
        match b {
            b' ' | b'\t' | b'\n' | b'\r' => pos += 1,
            b'#' => {
                while let Some(&c) = bytes.get(pos) {
                    if c == b'\n' || c == b'\r' {
                        break;
                    }
                    pos += 1;
                }
            }
            _ => break,
        }
    }
    pos
}

/// The start of the first line after the one holding `pos` that begins
/// (after blanks) with a top-level keyword, or the end of the text.
fn next_item_line(text: &str, pos: usize) -> usize {
    let mut at = pos;
    while let Some(nl) = text.get(at..).and_then(|s| s.find('\n')) {
        at += nl + 1;
        let line = text.get(at..).unwrap_or("");
        let trimmed = line.trim_start_matches([' ', '\t']);
        let starts_item = ITEM_KEYWORDS.iter().any(|kw| {
            trimmed.strip_prefix(kw).is_some_and(|after| {
                (after.is_empty() || after.starts_with([' ', '\t', '\n', '\r', '"']))
                    && (*kw != "test" || test_name_follows(after))
            })
        });
        if starts_item {
            return at;
        }
    }
    text.len()
}

/// A cheap lexical scan of `start..end` for bracket nesting deep enough to
/// exhaust the parser; returns where the nesting limit was first passed.
///
/// Strings and comments are skipped; a backslash escapes the next byte.
/// Only input nested past [`PRESCAN_LIMIT`] is refused, which the lowering
/// would refuse anyway (barring regexes full of unbalanced brackets).
fn prescan_nesting(text: &str, start: usize, end: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut first_over = None;
    let mut i = start;
    let mut prev = b'\n';
    while i < end {
        let Some(&b) = bytes.get(i) else { break };
        match b {
            b'"' => {
                i += 1;
                while let Some(&c) = bytes.get(i) {
                    if c == b'"' || c == b'\n' {
                        break;
                    }
                    i += if c == b'\\' { 2 } else { 1 };
                }
            }
            b'#' if prev.is_ascii_whitespace() => {
                while bytes.get(i).is_some_and(|&c| c != b'\n') {
                    i += 1;
                }
            }
            b'\\' => i += 1,
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > NEST_LIMIT && first_over.is_none() {
                    first_over = Some(i);
                }
                if depth > PRESCAN_LIMIT {
                    return first_over;
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        prev = bytes.get(i).copied().unwrap_or(b'\n');
        i += 1;
    }
    None
}

/// The first string in `start..=end` left open at the end of its line,
/// found by a lexical scan (comments skipped).
fn unterminated_string(text: &str, start: usize, end: usize) -> Option<Span> {
    let bytes = text.as_bytes();
    let mut i = start;
    let mut prev = b'\n';
    while i <= end {
        let Some(&b) = bytes.get(i) else { break };
        match b {
            b'"' => {
                let open = i;
                i += 1;
                loop {
                    match bytes.get(i) {
                        Some(b'"') => break,
                        None | Some(b'\n' | b'\r') => return Some(Span::new(open, i)),
                        Some(b'\\') if !matches!(bytes.get(i + 1), None | Some(b'\n' | b'\r')) => {
                            i += 2;
                        }
                        Some(_) => i += 1,
                    }
                }
            }
            b'#' if prev.is_ascii_whitespace() => {
                while bytes.get(i).is_some_and(|&c| c != b'\n') {
                    i += 1;
                }
            }
            _ => {}
        }
        prev = bytes.get(i).copied().unwrap_or(b'\n');
        i += 1;
    }
    None
}

/// The diagnostic for a string without its closing quote.
fn unterminated_string_error(file: &SourceFile, span: Span) -> Diagnostic {
    Diagnostic::error("syntax", "unterminated string")
        .in_file(file)
        .with_primary(span, "missing closing `\"`")
        .with_help("strings end on the line they start on; close it with `\"`")
}

/// The diagnostic for an expression nested past [`NEST_LIMIT`].
fn nesting_error(file: &SourceFile, span: Span) -> Diagnostic {
    Diagnostic::error("nesting-limit", "expression is nested too deeply")
        .in_file(file)
        .with_primary(span, format!("more than {NEST_LIMIT} levels of nesting"))
        .with_help("split the expression with `macro` definitions")
}

// ---------------------------------------------------------------------------
// Syntax errors
// ---------------------------------------------------------------------------

/// What pest expected, as a human phrase; `None` for rules never worth
/// naming. The second field ranks the phrase (operators go last).
fn expected(rule: Rule) -> Option<(u8, String)> {
    let text = match rule {
        Rule::next_item | Rule::next_item_strict | Rule::item | Rule::item_start => ITEM_PHRASE,
        Rule::EOI => "end of file",
        Rule::hook_id => "a rule id",
        Rule::point => "a hook point name",
        Rule::fql => "a target such as `builtin::*`",
        Rule::hook_option => "a hook option (`priority`, `disabled`, `fail` or `timeout`)",
        Rule::condition => "a condition (`when` or `unless`)",
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
fn candidates(rule: Rule) -> Vec<&'static str> {
    match rule {
        Rule::next_item | Rule::next_item_strict | Rule::item | Rule::item_start => {
            ITEM_KEYWORDS.to_vec()
        }
        Rule::action => ACTION_KEYWORDS.to_vec(),
        Rule::condition => vec!["when", "unless"],
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
fn join_or(parts: &[String]) -> String {
    match parts {
        [] => "something else".to_owned(),
        [one] => one.clone(),
        [a, b] => format!("{a} or {b}"),
        [init @ .., last] => format!("{}, or {last}", init.join(", ")),
    }
}

/// What was found at `pos`: a phrase and the span to underline.
fn found_at(text: &str, pos: usize) -> (String, Option<String>, Span) {
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
fn syntax_error(file: &SourceFile, base: usize, err: &pest::error::Error<Rule>) -> Diagnostic {
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
    if let Some(help) = syntax_help(&positives, &found, word.as_deref()) {
        diag = diag.with_help(help);
    } else if let Some(help) = expect_help(text, pos) {
        diag = diag.with_help(help);
    }
    diag
}

/// A help line for an error on an `expect` line of a test.
fn expect_help(text: &str, pos: usize) -> Option<String> {
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

/// A help line for a syntax error, when one is likely to help.
fn syntax_help(positives: &[Rule], found: &str, word: Option<&str>) -> Option<String> {
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
    let cands: Vec<&str> = positives.iter().flat_map(|r| candidates(*r)).collect();
    if let Some(best) = suggest_keyword(word, &cands) {
        return Some(format!("did you mean `{best}`?"));
    }
    if has(Rule::lbrace) && has(Rule::hook_option) {
        return Some(format!(
            "`{word}` is not a hook option; the options are `priority`, `disabled`, `fail` and `timeout`"
        ));
    }
    None
}

// ---------------------------------------------------------------------------
// Lowering
// ---------------------------------------------------------------------------

/// Lowering gave up on an item; the reason is already a diagnostic.
#[derive(Debug)]
struct Failed;

/// One pest pair of the grammar.
type P<'i> = Pair<'i, Rule>;

/// The children of a pair, punctuation left out, consumed in order.
struct Kids<'i> {
    /// The children still to read.
    rest: std::iter::Peekable<std::vec::IntoIter<P<'i>>>,
    /// The parent's span, for internal errors.
    span: Span,
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

/// True for punctuation rules, which carry no information after parsing.
fn is_punct(rule: Rule) -> bool {
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
struct Lowerer<'a> {
    /// The file, for diagnostics.
    file: &'a SourceFile,
    /// Byte offset of the parsed text within the file.
    base: usize,
    /// Where diagnostics go.
    diags: &'a mut Diagnostics,
}

impl Lowerer<'_> {
    /// The absolute span of a pair, without the blanks and comments pest
    /// includes at the end of a rule that ends in an optional or repeated
    /// part: a non-atomic rule ends where its last child ends.
    fn span(&self, p: &P<'_>) -> Span {
        let start = p.as_span().start();
        let mut last = p.clone();
        while !matches!(last.as_rule(), Rule::string | Rule::regex | Rule::path) {
            match last.clone().into_inner().next_back() {
                Some(child) => last = child,
                None => break,
            }
        }
        Span::new(self.base + start, self.base + last.as_span().end())
    }

    /// The children of a pair.
    fn kids<'i>(&self, p: P<'i>) -> Kids<'i> {
        let span = self.span(&p);
        let rest: Vec<P<'i>> = p.into_inner().filter(|c| !is_punct(c.as_rule())).collect();
        Kids {
            rest: rest.into_iter().peekable(),
            span,
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
            None => Err(self.bug(kids.span, &format!("missing {rule:?}"))),
        }
    }

    /// The next child, whatever it is.
    fn take_any<'i>(&mut self, kids: &mut Kids<'i>) -> Result<P<'i>, Failed> {
        match kids.next() {
            Some(p) => Ok(p),
            None => Err(self.bug(kids.span, "missing child")),
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
        self.descend(depth, 0, span)
    }

    /// `levels` more levels of tree below an operator chain.
    fn descend(&mut self, depth: Depth, levels: usize, span: Span) -> Result<Depth, Failed> {
        let depth = Depth {
            nest: depth.nest,
            tree: depth.tree.saturating_add(levels),
        };
        if depth.tree > TREE_LIMIT {
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
    fn item(&mut self, p: P<'_>) -> Result<Item, Failed> {
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
                let array = self.take(&mut k, Rule::array)?;
                let items = self.array_items(array, Depth::default())?;
                Ok(Item::List(ListDecl {
                    name,
                    items,
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
        while let Some(cond) = kids.take_if(Rule::condition) {
            let span = self.span(&cond);
            let mut ck = self.kids(cond);
            let kw = self.take_any(&mut ck)?;
            let expr = self.take(&mut ck, Rule::expr)?;
            conditions.push(Condition {
                negated: kw.as_rule() == Rule::kw_unless,
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
        let object = self.take(&mut ek, Rule::object)?;
        let event = self.operand_inner(object, Depth::default())?;
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
        let mut expects = Vec::new();
        while let Some(e) = kids.take_if(Rule::test_expect) {
            expects.push(self.expect(e)?);
        }
        Ok(TestDecl {
            name,
            event,
            event_span,
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

    /// Lowers an `expr`: `not`-prefixed predicates joined by `and` / `or`.
    fn expr(&mut self, p: P<'_>, depth: Depth) -> Result<Expr, Failed> {
        let mut kids = self.kids(p);
        let depth = self.descend(depth, kids.count(Rule::bool_op), kids.span)?;
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
        self.climb(first, rest, kids.span)
    }

    /// `not* predicate`.
    fn negated_predicate(&mut self, kids: &mut Kids<'_>, depth: Depth) -> Result<Expr, Failed> {
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
    fn predicate(&mut self, p: P<'_>, depth: Depth) -> Result<Expr, Failed> {
        let span = self.span(&p);
        let mut kids = self.kids(p);
        if let Some(rate) = kids.take_if(Rule::rate_test) {
            return self.rate(rate);
        }
        // A test is one node above its operands.
        let depth = self.descend(depth, 1, span)?;
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

    /// Lowers a `set_ref`: an array literal or a name/path.
    fn set_ref(&mut self, p: P<'_>, depth: Depth) -> Result<Expr, Failed> {
        let mut kids = self.kids(p);
        let inner = self.take_any(&mut kids)?;
        match inner.as_rule() {
            Rule::array => self.array(inner, depth),
            _ => Ok(self.path_expr(inner)),
        }
    }

    /// Lowers a `regex_ref`.
    fn regex_ref(&mut self, p: P<'_>) -> Result<RegexRef, Failed> {
        let mut kids = self.kids(p);
        let inner = self.take_any(&mut kids)?;
        Ok(match inner.as_rule() {
            Rule::regex => RegexRef::Literal(self.regex(inner)),
            _ => RegexRef::Name(self.ident(&inner)),
        })
    }

    /// Lowers an `arith`: prefixed operands joined by infix operators.
    fn arith(&mut self, p: P<'_>, depth: Depth) -> Result<Expr, Failed> {
        let mut kids = self.kids(p);
        let depth = self.descend(depth, kids.count(Rule::arith_op), kids.span)?;
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
        self.climb(first, rest, kids.span)
    }

    /// `(- | ~)* operand`; a `-` right before a number folds into it.
    fn prefixed_operand(&mut self, kids: &mut Kids<'_>, depth: Depth) -> Result<Expr, Failed> {
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
    fn climb(
        &mut self,
        first: Expr,
        rest: Vec<(BinaryOp, Expr)>,
        span: Span,
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
                    return Err(self.bug(span, "operator stack"));
                }
            }
            ops.push(op);
            out.push(rhs);
        }
        while !ops.is_empty() {
            if reduce(&mut out, &mut ops).is_none() {
                return Err(self.bug(span, "operator stack"));
            }
        }
        match (out.pop(), out.is_empty()) {
            (Some(e), true) => Ok(e),
            _ => Err(self.bug(span, "operand stack")),
        }
    }

    /// Lowers an `operand`.
    fn operand(&mut self, p: P<'_>, depth: Depth) -> Result<Expr, Failed> {
        let mut kids = self.kids(p);
        let inner = self.take_any(&mut kids)?;
        self.operand_inner(inner, depth)
    }

    /// Lowers what an `operand` holds: a literal, array, object, paren or
    /// path.
    fn operand_inner(&mut self, inner: P<'_>, depth: Depth) -> Result<Expr, Failed> {
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
            other => Err(self.bug(span, &format!("unexpected {other:?}"))),
        }
    }

    /// Lowers an `array` into an expression.
    fn array(&mut self, p: P<'_>, depth: Depth) -> Result<Expr, Failed> {
        let span = self.span(&p);
        let items = self.array_items(p, depth)?;
        Ok(Expr {
            kind: ExprKind::Array(items),
            span,
        })
    }

    /// The elements of an `array`, one level deeper than `depth`.
    fn array_items(&mut self, p: P<'_>, depth: Depth) -> Result<Vec<Expr>, Failed> {
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

    /// Lowers a `long_string`: the text as written; reports a missing
    /// closing `"""`.
    fn long_string(&mut self, p: P<'_>) -> StrLit {
        let span = self.span(&p);
        let mut value = String::new();
        for part in p.into_inner() {
            match part.as_rule() {
                Rule::long_string_body => value = part.as_str().to_string(),
                Rule::long_unterminated => self.diags.push(
                    Diagnostic::error("syntax", "unterminated `\"\"\"` string")
                        .in_file(self.file)
                        .with_primary(span, "it starts here")
                        .with_help("end it with `\"\"\"`"),
                ),
                _ => {}
            }
        }
        StrLit { value, span }
    }

    /// Lowers a `string`, decoding its escapes; reports bad escapes and a
    /// missing closing quote.
    fn string(&mut self, p: P<'_>) -> StrLit {
        let span = self.span(&p);
        let mut value = String::new();
        let mut terminated = true;
        for part in p.into_inner() {
            match part.as_rule() {
                Rule::string_body => {
                    let at = self.span(&part).start as usize;
                    value = self.unescape(part.as_str(), at);
                }
                Rule::unterminated => terminated = false,
                _ => {}
            }
        }
        if !terminated {
            self.diags.push(unterminated_string_error(self.file, span));
        }
        StrLit { value, span }
    }

    /// Decodes JSON escapes in `body`, which starts at byte `at` of the file.
    fn unescape(&mut self, body: &str, at: usize) -> String {
        let mut out = String::with_capacity(body.len());
        let mut i = 0;
        while let Some(c) = body.get(i..).and_then(|s| s.chars().next()) {
            if c != '\\' {
                out.push(c);
                i += c.len_utf8();
                continue;
            }
            let Some(e) = body.get(i + 1..).and_then(|s| s.chars().next()) else {
                // A lone backslash at the end of an unterminated string.
                break;
            };
            let simple = match e {
                '"' => Some('"'),
                '\\' => Some('\\'),
                '/' => Some('/'),
                'n' => Some('\n'),
                't' => Some('\t'),
                'r' => Some('\r'),
                'b' => Some('\u{8}'),
                'f' => Some('\u{c}'),
                _ => None,
            };
            if let Some(ch) = simple {
                out.push(ch);
                i += 2;
                continue;
            }
            if e == 'u' {
                match decode_unicode(body, i) {
                    Ok((ch, len)) => {
                        out.push(ch);
                        i += len;
                    }
                    Err((len, why)) => {
                        self.diags.push(
                            Diagnostic::error("syntax", "invalid unicode escape in string")
                                .in_file(self.file)
                                .with_primary(Span::new(at + i, at + i + len), why)
                                .with_help(
                                    "write `\\u` followed by four hex digits, e.g. `\\u00e9`",
                                ),
                        );
                        out.push('\u{fffd}');
                        i += len;
                    }
                }
                continue;
            }
            let len = 1 + e.len_utf8();
            self.diags.push(
                Diagnostic::error("syntax", format!("invalid escape `\\{e}` in string"))
                    .in_file(self.file)
                    .with_primary(Span::new(at + i, at + i + len), "unknown escape")
                    .with_help(
                        "the escapes are `\\\"`, `\\\\`, `\\/`, `\\n`, `\\t`, `\\r`, `\\b`, `\\f` and `\\uXXXX`",
                    ),
            );
            out.push(e);
            i += len;
        }
        out
    }

    /// Lowers a `regex` literal; reports unknown flags and a missing slash.
    fn regex(&mut self, p: P<'_>) -> RegexLit {
        let span = self.span(&p);
        let mut pattern = String::new();
        let mut pattern_span = span;
        let mut flags = String::new();
        let mut terminated = true;
        for part in p.into_inner() {
            match part.as_rule() {
                Rule::regex_body => {
                    pattern_span = self.span(&part);
                    pattern = regex_pattern(part.as_str());
                }
                Rule::regex_flags => {
                    let at = self.span(&part).start as usize;
                    for (i, f) in part.as_str().char_indices() {
                        if "imsxU".contains(f) {
                            flags.push(f);
                        } else {
                            self.diags.push(
                                Diagnostic::error("syntax", format!("unknown regex flag `{f}`"))
                                    .in_file(self.file)
                                    .with_primary(
                                        Span::new(at + i, at + i + f.len_utf8()),
                                        "unknown flag",
                                    )
                                    .with_help("the flags are `i`, `m`, `s`, `x` and `U`"),
                            );
                        }
                    }
                }
                Rule::unterminated => terminated = false,
                _ => {}
            }
        }
        if !terminated {
            self.diags.push(
                Diagnostic::error("syntax", "unterminated regex")
                    .in_file(self.file)
                    .with_primary(span, "missing closing `/`")
                    .with_help(
                        "a regex ends on the line it starts on; write `\\/` for a literal slash",
                    ),
            );
        }
        RegexLit {
            pattern,
            flags,
            span,
            pattern_span,
        }
    }
}

/// Binding strength of an infix operator (higher binds tighter).
fn precedence(op: BinaryOp) -> u8 {
    match op {
        BinaryOp::Or => 1,
        BinaryOp::And => 2,
        BinaryOp::Eq
        | BinaryOp::Ne
        | BinaryOp::Lt
        | BinaryOp::Le
        | BinaryOp::Gt
        | BinaryOp::Ge
        | BinaryOp::Contains
        | BinaryOp::StartsWith
        | BinaryOp::EndsWith => 3,
        BinaryOp::BitOr => 4,
        BinaryOp::BitXor => 5,
        BinaryOp::BitAnd => 6,
        BinaryOp::Shl | BinaryOp::Shr => 7,
        BinaryOp::Add | BinaryOp::Sub => 8,
        BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem => 9,
    }
}

/// `-n` for a number literal written as `text` (exact for `i64::MIN`).
fn negate(n: &serde_json::Number, text: &str) -> serde_json::Number {
    if let Some(neg) = n.as_i64().and_then(i64::checked_neg) {
        return neg.into();
    }
    if text.bytes().all(|b| b.is_ascii_digit()) {
        if let Ok(neg) = format!("-{text}").parse::<i64>() {
            return neg.into();
        }
    }
    let f = n.as_f64().unwrap_or(0.0);
    serde_json::Number::from_f64(-f).unwrap_or_else(|| n.clone())
}

/// Decodes `\uXXXX` (and a surrogate pair) at byte `i` of `body`: the char
/// and the bytes used, or the bytes to underline and why it is invalid.
fn decode_unicode(body: &str, i: usize) -> Result<(char, usize), (usize, &'static str)> {
    let hex = |at: usize| -> Option<u32> {
        let digits = body.get(at..at + 4)?;
        if digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            u32::from_str_radix(digits, 16).ok()
        } else {
            None
        }
    };
    let Some(hi) = hex(i + 2) else {
        let len = 2 + body
            .get(i + 2..)
            .unwrap_or("")
            .bytes()
            .take(4)
            .take_while(u8::is_ascii_hexdigit)
            .count();
        return Err((len, "expected four hex digits"));
    };
    if (0xDC00..0xE000).contains(&hi) {
        return Err((6, "unpaired low surrogate"));
    }
    if (0xD800..0xDC00).contains(&hi) {
        let lo = if body.get(i + 6..i + 8) == Some("\\u") {
            hex(i + 8)
        } else {
            None
        };
        return match lo {
            Some(lo) if (0xDC00..0xE000).contains(&lo) => {
                let code = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                char::from_u32(code)
                    .map(|c| (c, 12))
                    .ok_or((12, "not a unicode scalar value"))
            }
            _ => Err((6, "unpaired high surrogate")),
        };
    }
    char::from_u32(hi)
        .map(|c| (c, 6))
        .ok_or((6, "not a unicode scalar value"))
}

/// The pattern of a regex body (the text between the slashes): `\/`
/// becomes `/`, and a raw control or bidirectional control character (one
/// not after a backslash, and not whitespace, which the `x` flag ignores)
/// becomes the escape `\x{…}`, which matches the same character. Every other
/// escape stays as written. So no raw control character reaches the
/// compiled table, `hookc explain` or `hookc fmt` (which prints the pattern:
/// a raw U+202E in a regex comes out as `\x{202e}`).
pub(crate) fn regex_pattern(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    walk_regex_body(body, |_, piece| {
        out.push_str(piece);
        true
    });
    out
}

/// The byte offset in `body` of byte `at` of its [`regex_pattern`]: for
/// errors the regex parser finds in the pattern, pointed at in the source.
pub(crate) fn regex_body_offset(body: &str, at: usize) -> usize {
    let mut len = 0usize;
    let mut found = body.len();
    walk_regex_body(body, |src, piece| {
        if len + piece.len() > at {
            found = src;
            return false;
        }
        len += piece.len();
        true
    });
    found
}

/// Calls `emit(offset in body, pattern text)` for each piece of the
/// pattern of `body`, in order, until it returns false.
fn walk_regex_body(body: &str, mut emit: impl FnMut(usize, &str) -> bool) {
    let mut chars = body.char_indices().peekable();
    let mut buf = [0u8; 4];
    while let Some((i, c)) = chars.next() {
        let go_on = if c == '\\' {
            match chars.next() {
                Some((_, '/')) => emit(i, "/"),
                Some((j, other)) => {
                    let end = j + other.len_utf8();
                    emit(i, body.get(i..end).unwrap_or("\\"))
                }
                None => emit(i, "\\"),
            }
        } else if crate::diag::escape::is_unsafe(c) && !c.is_whitespace() {
            emit(i, &format!("\\x{{{:x}}}", u32::from(c)))
        } else {
            emit(i, c.encode_utf8(&mut buf))
        };
        if !go_on {
            return;
        }
    }
}

/// The most times a test may repeat its event.
const MAX_REPEAT: u32 = 100_000;

/// Milliseconds in a duration such as `5s`, `500ms`, `2m`, `1h`.
fn parse_duration(text: &str) -> Result<u64, &'static str> {
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (digits, unit) = text.split_at(split);
    let scale: u64 = match unit {
        "ms" => 1,
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        "" => return Err("missing unit"),
        _ => return Err("unknown unit"),
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
        .ok_or("too large")
}
