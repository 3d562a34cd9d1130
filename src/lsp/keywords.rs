//! One line about each keyword of the language, for hover and completion.

/// Keywords that start a top-level item.
pub(crate) const ITEMS: [&str; 8] = [
    "schema", "import", "list", "pattern", "macro", "hook", "override", "test",
];

/// What each keyword does: the reserved words (every one, a test checks)
/// and the words that are keywords only in their place (`test`, `event`,
/// `expect`, `output`, …).
const DOCS: &[(&str, &str)] = &[
    ("schema", "`schema NAME` or `schema \"file.toml\"`: the catalog of hook points the rules are checked against (`orcs` when none is named)"),
    ("import", "`import \"file.hooks\"`: the lists, patterns and macros of another file (relative to this one); its rules are not compiled"),
    ("list", "`list NAME = [\"a\", \"b\"]`: a named set of values; `list NAME += [...]` adds to a list the file defines or imports"),
    ("pattern", "`pattern NAME = /regex/flags`: a named regex, for `matches NAME` and `rewrite`"),
    ("macro", "`macro NAME = CONDITION`: a named condition, used as a bare name"),
    ("hook", "`hook ID on POINT[, POINT…] [at TARGET] [OPTIONS] { CONDITIONS ACTIONS }`: a rule"),
    ("override", "`override ID OPTIONS`: new options for a rule of the compiled set (`priority N`, `disabled`, `fail open|closed`, `timeout 5s`)"),
    ("test", "`test \"name\" { event {…} expect … }`: a test of the rules, run by `hookc test`"),
    ("let", "`let NAME = EXPR`: names a computed value for the rule's later lines and its actions"),
    ("on", "`on POINT[, POINT…]`: the hook points the rule runs at"),
    ("at", "`at scope::target[/child][#instance]`: the FQL target the rule applies to (`*::*` when omitted)"),
    ("priority", "`priority N`: lower runs first (default 100; ties run in declaration order)"),
    ("disabled", "`disabled`: the rule is compiled but never runs"),
    ("fail", "`fail open|closed`: what a failing effect does: `open` warns and goes on (the default), `closed` aborts"),
    ("open", "`fail open`: a failing effect adds a warning and the chain goes on (the default)"),
    ("closed", "`fail closed`: a failing effect aborts, with a reason that names the rule"),
    ("timeout", "`timeout 5s`: how long the rule's commands may run (60 s by default)"),
    ("when", "`when CONDITION`: the rule fires only when it holds (all `when` and `unless` lines must)"),
    ("unless", "`unless CONDITION`: the rule fires only when it does not hold"),
    ("and", "`a and b`: both hold"),
    ("or", "`a or b`: either holds"),
    ("not", "`not a`: `a` does not hold; `x not in LIST`: `x` is not an element"),
    ("in", "`x in LIST` (or `in [..]`): `x` is an element of the list; `any x in LIST: COND` names each element"),
    ("contains", "`s contains \"text\"`: a substring, or an element of a list; `contains any LIST`: any of them"),
    ("any", "`any x in LIST: COND`: the condition holds for some element (false for an empty list); `contains any LIST`"),
    ("all", "`all x in LIST: COND`: the condition holds for every element (true for an empty list)"),
    ("starts_with", "`s starts_with \"prefix\"`"),
    ("ends_with", "`s ends_with \"suffix\"`"),
    ("matches", "`s matches /regex/flags` or `s matches PATTERN`: the regex matches somewhere in the string"),
    ("glob", "`path glob \"src/**\"`: the path matches the glob"),
    ("exists", "`path exists`: the event has the field"),
    ("true", "the boolean `true`"),
    ("false", "the boolean `false`"),
    ("null", "`null`: no value (a missing field reads as `null`)"),
    ("continue", "`continue`: do nothing (documents intent)"),
    ("abort", "`abort \"reason\"`: end the chain; the operation is refused with the reason (a template)"),
    ("deny", "`deny \"reason\"`: `abort`, as a permission decision"),
    ("skip", "`skip <value>`: end the chain; the value stands for the operation's result"),
    ("replace", "`replace <value>`: swap the payload (post points only)"),
    ("set", "`set path = expr`: edit a field of `payload` or `metadata`"),
    ("unset", "`unset path`: remove a field of `payload` or `metadata`"),
    ("rewrite", "`rewrite path /re/ -> \"replacement\"`: replace every match of the regex (`$1`, `$name` are its groups)"),
    ("prepend", "`prepend path \"text\"`: put text before a string field"),
    ("append", "`append path \"text\"`: put text after a string field"),
    ("meta", "`meta key = expr`: set a metadata field for later hooks"),
    ("log", "`log trace|debug|info|warn|error \"template\"`: a log line"),
    ("ask", "`ask \"reason\"`: ask the user before the operation goes on"),
    ("allow", "`allow`: decide to allow (a stricter decision of another rule wins)"),
    ("context", "`context \"text\"`: add context for the agent (Claude Code's `additionalContext`)"),
    ("exec", "`exec \"program\" \"arg\"…`: run a program directly (no shell), the event's JSON on stdin"),
    ("sh", "`sh \"script\"`: run a script through `sh -c`"),
    ("webhook", "`webhook \"https://…\" [include path, …] [header \"Name\" \"value\"]`: post an event summary"),
    ("call", "`call \"handler\"`: run a native handler the host registered; `call lua \"file.lua\"`: a Lua handler"),
    ("output", "`output name = expr`: a field of the host's answer that the outcome does not give"),
    ("trace", "`trace \"file.jsonl\" path, …`: append one line with the SHA-256 of each field"),
    ("lua", "`lua \"\"\"function(ctx) … end\"\"\"`: an inline Lua handler"),
    ("per", "`rate(\"key\") > N per 60s`: the window a rate is counted in"),
    ("event", "`event {…}` or `event file \"event.json\"`: the event a test dispatches"),
    ("expect", "`expect abort|continue|skip|ask|fired [...]|decision …|output …|exit N` or `expect CONDITION`: what a test's outcome must be"),
    ("mock", "`mock [call|exec|sh|webhook] \"name\" REPLY`: an effect that answers as scripted in a test"),
    ("repeat", "`repeat N`: dispatch the test's event N times (the expectations apply to the last)"),
];

/// The line about `word`, if it is a keyword.
pub(crate) fn doc(word: &str) -> Option<&'static str> {
    DOCS.iter().find(|(k, _)| *k == word).map(|(_, d)| *d)
}

/// Every keyword with a line, in a fixed order.
pub(crate) fn all() -> impl Iterator<Item = (&'static str, &'static str)> {
    DOCS.iter().copied()
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_reserved_word_has_a_line() {
        for word in crate::syntax::RESERVED {
            assert!(super::doc(word).is_some(), "`{word}` has no line");
        }
        for word in super::ITEMS {
            assert!(super::doc(word).is_some(), "`{word}` has no line");
        }
    }
}
