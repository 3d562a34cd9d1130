//! Regex, glob and template literals: parsed and checked, each regex and
//! glob once.

use super::*;
use crate::check::NfaStates;
use std::collections::HashMap;

/// Regexes whose syntax tree bounds their NFA at this many states need no
/// NFA built to know they fit the size limit (thousands of times larger).
const SMALL_NFA: u64 = 10_000;

impl<'a> TypeChecker<'a, '_> {
    pub(super) fn regex_ref(&mut self, re: &ast::RegexRef) -> Option<()> {
        match re {
            ast::RegexRef::Literal(lit) => self.regex(lit, self.file),
            ast::RegexRef::Name(name) => {
                let def = self.scope.get(&name.name).copied();
                match def {
                    Some(def) if def.kind == DefKind::Pattern => {
                        let file = self.def_file(def)?;
                        let Some(ast::Item::Pattern(p)) = file.ast.items.get(def.item) else {
                            return None;
                        };
                        self.regex(&p.regex, def.file)
                    }
                    Some(def) => {
                        let d = self
                            .error(
                                "wrong-kind",
                                format!("`{}` is a {}, not a pattern", name.name, def.kind.as_str()),
                                name.span,
                                "not a regex",
                            )
                            .with_help("`matches` and `rewrite` take a regex literal `/…/` or a `pattern` name");
                        self.emit(d);
                        None
                    }
                    None => {
                        let patterns: Vec<&str> = self
                            .scope
                            .iter()
                            .filter(|(_, d)| d.kind == DefKind::Pattern)
                            .map(|(n, _)| n.as_str())
                            .collect();
                        let mut d = self.error(
                            "unknown-name",
                            format!("unknown pattern `{}`", name.name),
                            name.span,
                            "not defined",
                        );
                        d = match suggest(&name.name, patterns.iter().copied()) {
                            Some(s) => d.with_suggestion(name.span, s),
                            None => d.with_help("define it with `pattern NAME = /regex/`"),
                        };
                        self.emit(d);
                        None
                    }
                }
            }
        }
    }

    /// Validates a regex literal (errors point inside it) and records what
    /// its syntax tree tells. The literal is in file `file` (a pattern may
    /// live in an import).
    pub(super) fn regex(&mut self, lit: &ast::RegexLit, file: usize) -> Option<()> {
        let file_source = self.loaded.files.get(file).map(|f| f.source.clone())?;
        if let Some(bad) = lit.flags.chars().find(|c| !REGEX_FLAGS.contains(*c)) {
            let d = Diagnostic::error("invalid-regex", format!("unknown regex flag `{bad}`"))
                .in_file(&file_source)
                .with_primary(lit.span, "in these flags")
                .with_help("flags are i (case-insensitive), m (multi-line), s (dot matches newline), x (verbose), U (swap greed)");
            self.emit(d);
            return None;
        }
        let source = RegexSource {
            pattern: lit.pattern.clone(),
            flags: lit.flags.clone(),
        };
        // Checked once: a regex the rules repeat is known to be valid.
        if self.regexes.facts.contains_key(&source) {
            return Some(());
        }
        let hir = match parser(&lit.flags).parse(&lit.pattern) {
            Ok(hir) => hir,
            Err(e) => {
                let (span, kind) = match &e {
                    regex_syntax::Error::Parse(p) => (Some(*p.span()), p.kind().to_string()),
                    regex_syntax::Error::Translate(t) => (Some(*t.span()), t.kind().to_string()),
                    _ => (None, e.to_string()),
                };
                // The pattern is the body with `\/` and raw control characters
                // rewritten: map its offsets back to the body's.
                let body = file_source.slice(lit.pattern_span);
                let inner = span.map_or(lit.pattern_span, |s| {
                    let at = |offset: usize| {
                        lit.pattern_span.start as usize
                            + crate::syntax::regex_body_offset(body, offset)
                    };
                    let start = at(s.start.offset);
                    let end =
                        at(s.end.offset.max(s.start.offset + 1)).min(lit.pattern_span.end as usize);
                    Span::new(start, end.max(start))
                });
                let d = Diagnostic::error("invalid-regex", format!("invalid regex: {kind}"))
                    .in_file(&file_source)
                    .with_primary(inner, kind)
                    .with_help("the syntax is that of the Rust regex crate");
                self.emit(d);
                return None;
            }
        };
        // The size the matchers compile it to: its Thompson NFA as the
        // runtime builds it, from the tree just parsed (a whole regex engine
        // is not needed to know it fits), and only when the tree does not
        // bound it far below the limit.
        if let Some(bound) = states_bound(&hir, SMALL_NFA, &mut self.regexes.class_bounds) {
            let facts = facts(&hir, NfaStates::AtMost(bound));
            self.regexes.facts.insert(source, facts);
            return Some(());
        }
        let nfa = regex_automata::nfa::thompson::Compiler::new()
            .configure(
                regex_automata::nfa::thompson::Config::new()
                    .which_captures(regex_automata::nfa::thompson::WhichCaptures::None)
                    .nfa_size_limit(Some(crate::table::REGEX_SIZE_LIMIT)),
            )
            .build_from_hir(&hir);
        let nfa = match nfa {
            Ok(nfa) => nfa,
            Err(e) => {
                let d = self
                    .error(
                        "invalid-regex",
                        "regex is too large",
                        lit.span,
                        e.to_string(),
                    )
                    .with_help("split it into several rules or simplify it");
                self.emit(d);
                return None;
            }
        };
        let states = u64::try_from(nfa.states().len()).unwrap_or(u64::MAX);
        let facts = facts(&hir, NfaStates::Exactly(states));
        self.regexes.facts.insert(source, facts);
        Some(())
    }

    /// Validates a glob and records the regex it compiles to.
    pub(super) fn glob(&mut self, glob: &ast::StrLit) -> Option<()> {
        if self.regexes.globs.contains_key(&glob.value) {
            return Some(());
        }
        match globset::GlobBuilder::new(&glob.value)
            .literal_separator(true)
            .build()
        {
            Ok(g) => {
                let re = g.regex();
                let pattern = re.strip_prefix("(?-u)").unwrap_or(re).to_string();
                let source = RegexSource {
                    pattern,
                    flags: String::new(),
                };
                if regex::Regex::new(&source.to_inline()).is_err() {
                    let d = self.error(
                        "invalid-glob",
                        format!("glob `{}` cannot be compiled", glob.value),
                        glob.span,
                        "here",
                    );
                    self.emit(d);
                    return None;
                }
                self.regexes.globs.insert(glob.value.clone(), source);
                Some(())
            }
            Err(e) => {
                let d = self
                    .error("invalid-glob", format!("invalid glob: {}", e.kind()), glob.span, "in this glob")
                    .with_help("globs use `*` (within a path segment), `**` (across segments), `?` and `[abc]`");
                self.emit(d);
                None
            }
        }
    }

    /// Checks a template: `{path}` holes, `{{`/`}}` for braces. `Some(true)`
    /// when a hole reads a capture or a `let` name.
    pub(super) fn template(&mut self, lit: &ast::StrLit) -> Option<bool> {
        let mut reads_capture = false;
        let mut rest = lit.value.as_str();
        let mut ok = true;
        while let Some(i) = rest.find(['{', '}']) {
            let (_, after) = rest.split_at(i);
            if let Some(tail) = after.strip_prefix("{{") {
                rest = tail;
            } else if let Some(tail) = after.strip_prefix("}}") {
                rest = tail;
            } else if let Some(tail) = after.strip_prefix('{') {
                let Some(close) = tail.find('}') else {
                    let d = self
                        .error(
                            "invalid-template",
                            "unclosed `{` in template",
                            lit.span,
                            "in this string",
                        )
                        .with_help("write `{{` for a literal brace");
                    self.emit(d);
                    return None;
                };
                let hole = tail.get(..close).unwrap_or("").trim();
                if self.capture(hole).is_some() {
                    reads_capture = true;
                } else if self.template_path(hole, lit).is_none() {
                    ok = false;
                }
                rest = tail.get(close + 1..).unwrap_or("");
            } else {
                let d = self
                    .error(
                        "invalid-template",
                        "unmatched `}` in template",
                        lit.span,
                        "in this string",
                    )
                    .with_help("write `}}` for a literal brace");
                self.emit(d);
                return None;
            }
        }
        ok.then_some(reads_capture)
    }

    /// Checks the field path of a template hole.
    pub(super) fn template_path(&mut self, hole: &str, lit: &ast::StrLit) -> Option<()> {
        let raw = self.src().source.slice(lit.span);
        let span = raw.find(&format!("{{{hole}}}")).map_or(lit.span, |i| {
            Span::new(
                lit.span.start as usize + i,
                lit.span.start as usize + i + hole.len() + 2,
            )
        });
        let bad = |this: &mut Self, why: &str| {
            let d = this
                .error(
                    "invalid-template",
                    format!("invalid template hole `{{{hole}}}`"),
                    span,
                    why.to_string(),
                )
                .with_help("holes are field paths such as `{payload.args}` or `{principal.id}`");
            this.emit(d);
            None
        };
        let (root_name, segments) = match hole_path(hole) {
            Ok(parts) => parts,
            Err(why) => return bad(self, why),
        };
        let path = ast::Path {
            root: ast::Ident {
                name: root_name.to_string(),
                span,
            },
            segments,
            span,
        };
        self.path(&path).map(|_| ())
    }
}

/// The root name and the segments of a template hole (`payload.args[0]`),
/// or why it is not a field path.
pub(crate) fn hole_path(hole: &str) -> Result<(&str, Vec<ir::Segment>), &'static str> {
    // An index that is not a whole number (`[x]`, `[-1]`) would leave the
    // hole, and with it the action, without a value: an error, said here.
    const NOT_AN_INDEX: &str = "an index must be a whole number, such as `[0]`";
    let mut segments = Vec::new();
    let mut parts = hole.split('.');
    let (root_name, first_index) = split_index(parts.next().unwrap_or(""));
    if root_name.is_empty() {
        return Err("empty hole");
    }
    for i in first_index {
        segments.push(ir::Segment::Index(i.ok_or(NOT_AN_INDEX)?));
    }
    for part in parts {
        let (name, indices) = split_index(part);
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
        {
            return Err("not a field path");
        }
        segments.push(ir::Segment::Field(name.to_string()));
        for i in indices {
            segments.push(ir::Segment::Index(i.ok_or(NOT_AN_INDEX)?));
        }
    }
    Ok((root_name, segments))
}

/// The parser of a regex literal with `flags`: errors point into the
/// pattern as written, and its tree is the one the pattern with the flags
/// written inline (`(?i)…`, how the matchers and the runtime read it)
/// parses to.
fn parser(flags: &str) -> regex_syntax::Parser {
    regex_syntax::ParserBuilder::new()
        .case_insensitive(flags.contains('i'))
        .multi_line(flags.contains('m'))
        .dot_matches_new_line(flags.contains('s'))
        .ignore_whitespace(flags.contains('x'))
        .swap_greed(flags.contains('U'))
        .nest_limit(100)
        .build()
}

/// What the lints, captures and field matchers need to know of a regex,
/// from its tree.
fn facts(hir: &regex_syntax::hir::Hir, nfa_states: NfaStates) -> crate::check::RegexFacts {
    crate::check::RegexFacts {
        groups: group_names(hir),
        shape: crate::check::RegexShape::of(hir),
        unicode_boundary: hir.properties().look_set().contains_word_unicode(),
        nfa_states,
        required_literal: required_literal(hir),
        long_repetition: long_repetition(hir),
        needs: super::needs::of(hir),
    }
}

/// The longest literal that every match of the regex `hir` contains, found
/// in its top-level sequence (through captures, and repetitions of at least
/// once); `None` when there is none, or when it is not UTF-8.
pub(crate) fn required_literal(hir: &regex_syntax::hir::Hir) -> Option<String> {
    use regex_syntax::hir::{Hir, HirKind};
    fn longest(hir: &Hir) -> Option<&[u8]> {
        match hir.kind() {
            HirKind::Literal(lit) => Some(&lit.0),
            HirKind::Capture(c) => longest(&c.sub),
            HirKind::Repetition(r) if r.min >= 1 => longest(&r.sub),
            HirKind::Concat(parts) => parts.iter().filter_map(longest).max_by_key(|l| l.len()),
            _ => None,
        }
    }
    String::from_utf8(longest(hir)?.to_vec()).ok()
}

/// True when the regex `hir` has a counted repetition of six or more: the
/// test [`crate::table::regexes::too_costly`] makes before its trial DFA
/// build, so that a regex without one is known not to be too costly.
pub(crate) fn long_repetition(hir: &regex_syntax::hir::Hir) -> bool {
    use regex_syntax::hir::HirKind;
    match hir.kind() {
        HirKind::Repetition(r) => r.max.unwrap_or(r.min).max(r.min) >= 6 || long_repetition(&r.sub),
        HirKind::Capture(c) => long_repetition(&c.sub),
        HirKind::Concat(hs) | HirKind::Alternation(hs) => hs.iter().any(long_repetition),
        _ => false,
    }
}

/// An upper bound of the NFA states the Thompson compiler makes for `hir`
/// (as [`crate::table::regexes::nfa_states`] counts them), or `None` once
/// it passes `limit`: literal bytes one each, a repetition a copy of its
/// body per repeat, an alternation or capture a few more, and a class what
/// the compiler's UTF-8 automaton can take: its UTF-8 sequences share the
/// states of their common prefix (`\s` takes at most 10 states, not the
/// 25 bytes of its sequences), so that regexes with `\s` or `\S` are known
/// small without building their NFA.
pub(crate) fn states_bound(
    hir: &regex_syntax::hir::Hir,
    limit: u64,
    classes: &mut ClassBounds,
) -> Option<u64> {
    use regex_syntax::hir::{Class, HirKind};
    let n = match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => 1,
        HirKind::Literal(lit) => u64::try_from(lit.0.len()).ok()?,
        // One state with a transition per range, and the state it leads to.
        HirKind::Class(Class::Bytes(_)) => 2,
        HirKind::Class(Class::Unicode(c)) if c.is_ascii() => 2,
        HirKind::Class(Class::Unicode(c)) => classes.bound(c),
        HirKind::Repetition(r) => {
            let body = states_bound(&r.sub, limit, classes)?;
            // `x{n,}` is n copies of `x`, the last one looping; `x{n,m}` is m.
            let copies = u64::from(r.max.unwrap_or(r.min).max(1));
            body.checked_mul(copies)?.checked_add(copies + 1)?
        }
        HirKind::Capture(c) => states_bound(&c.sub, limit, classes)? + 2,
        HirKind::Concat(hs) | HirKind::Alternation(hs) => {
            let mut n = 1u64;
            for h in hs {
                n = n.checked_add(states_bound(h, limit, classes)?)?;
                if n > limit {
                    return None;
                }
            }
            n
        }
    };
    (n <= limit).then_some(n)
}

/// The bound [`states_bound`] gives each non-ASCII Unicode class, by the
/// class's ranges: regexes repeat the same few classes (`\s`, `\S`, `\w`),
/// and walking a class's UTF-8 sequences costs more than looking it up.
#[derive(Clone, Debug, Default)]
pub(crate) struct ClassBounds {
    /// The classes and their bounds, by a hash of their ranges.
    by_hash: HashMap<u64, Vec<KnownClass>, crate::strings::Fast>,
}

/// A class's ranges (first and last character of each) and its bound.
type KnownClass = (Vec<(char, char)>, u64);

impl ClassBounds {
    /// The bound of `class` (non-ASCII), worked out the first time.
    fn bound(&mut self, class: &regex_syntax::hir::ClassUnicode) -> u64 {
        use std::hash::{Hash, Hasher};
        let ranges = class.ranges();
        let mut h = crate::strings::FastHasher::default();
        for r in ranges {
            (r.start(), r.end()).hash(&mut h);
        }
        let same = |known: &[(char, char)]| {
            known.len() == ranges.len()
                && known
                    .iter()
                    .zip(ranges)
                    .all(|(k, r)| *k == (r.start(), r.end()))
        };
        let bucket = self.by_hash.entry(h.finish()).or_default();
        if let Some((_, n)) = bucket.iter().find(|(known, _)| same(known)) {
            return *n;
        }
        let n = class_states_bound(class);
        bucket.push((ranges.iter().map(|r| (r.start(), r.end())).collect(), n));
        n
    }
}

/// The states of a non-ASCII class's UTF-8 automaton, at most: the
/// compiler adds its sequences in order to a trie of byte ranges, one
/// state per node (and one it leads to), so a sequence costs only the
/// ranges after the prefix it shares with the one before it.
fn class_states_bound(class: &regex_syntax::hir::ClassUnicode) -> u64 {
    use regex_syntax::utf8::{Utf8Range, Utf8Sequences};
    // The state the automaton leads to, and its root.
    let mut n = 2u64;
    let mut previous: Vec<Utf8Range> = Vec::new();
    for r in class.ranges() {
        for seq in Utf8Sequences::new(r.start(), r.end()) {
            let ranges = seq.as_slice();
            let shared = ranges
                .iter()
                .zip(&previous)
                .take_while(|(a, b)| a == b)
                .count();
            // Past the root, a node per range after the shared prefix but
            // the last (whose transition leads out of the trie).
            let added = ranges.len().saturating_sub(shared + 1);
            n = n.saturating_add(u64::try_from(added).unwrap_or(u64::MAX));
            previous.clear();
            previous.extend_from_slice(ranges);
        }
    }
    n
}

/// The names of a regex's named groups, in order.
fn group_names(hir: &regex_syntax::hir::Hir) -> Vec<String> {
    use regex_syntax::hir::HirKind;
    let mut names = Vec::new();
    let mut stack = vec![hir];
    while let Some(h) = stack.pop() {
        match h.kind() {
            HirKind::Capture(cap) => {
                names.extend(cap.name.as_deref().map(str::to_owned));
                stack.push(&cap.sub);
            }
            HirKind::Repetition(rep) => stack.push(&rep.sub),
            // Pushed in reverse, so the leftmost is popped first.
            HirKind::Concat(subs) | HirKind::Alternation(subs) => stack.extend(subs.iter().rev()),
            HirKind::Empty | HirKind::Literal(_) | HirKind::Class(_) | HirKind::Look(_) => {}
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regexes of the shapes rules write: Unicode classes and their
    /// complements, case folding, counted repetitions, word boundaries,
    /// named groups, and each flag.
    const PATTERNS: &[(&str, &str)] = &[
        (r"rm\s+-rf\s+/srv/data42\b", ""),
        (r"curl\s+-s\s+https?://host42\.internal/[a-z]+", ""),
        (r"chmod\s+[0-7]{3}\s+/etc/app42(/|\s|$)", ""),
        (r"scp\s+\S+\s+backup42@[a-z0-9.]+:", ""),
        (r"git\s+push\s+--force\s+origin\s+rel-42\b", ""),
        (r"AKIA[0-9A-Z]{16}|ghp_[A-Za-z0-9]{36}", ""),
        (r"secret\s*=\s*\S{20,}", "i"),
        (r"\bpassword\b", "i"),
        (r"\w{3,5}", ""),
        (r"\W\D+x\p{Greek}+", ""),
        (r"[^a]{3}(x|y)*", ""),
        (r"(?-u:\w){10}", ""),
        (r"(?P<user>[a-z]+)@(?P<host>\S+)", ""),
        ("a # a comment\n  b{2,8}", "x"),
        (r"^start.*end$", "ms"),
        (r"a+?b*", "U"),
        ("", ""),
    ];

    fn source(pattern: &str, flags: &str) -> RegexSource {
        RegexSource {
            pattern: pattern.to_string(),
            flags: flags.to_string(),
        }
    }

    /// The matchers and the runtime read a regex with its flags written
    /// inline; the checker parses the pattern as written with the flags
    /// set, and what it records must hold of the inline form.
    #[test]
    fn the_checkers_tree_is_the_tree_of_the_inline_pattern() {
        for &(pattern, flags) in PATTERNS {
            let inline = source(pattern, flags).to_inline();
            let checked = parser(flags).parse(pattern).unwrap();
            assert!(checked == regex_syntax::parse(&inline).unwrap(), "{inline}");
            // `too_costly` with no budget is its long-repetition test.
            assert_eq!(
                long_repetition(&checked),
                crate::table::regexes::too_costly(&inline, 0),
                "{inline}"
            );
        }
        let literal = |p: &str| required_literal(&regex_syntax::parse(p).unwrap());
        assert_eq!(
            literal(r"curl\s+-s\s+https?://host42\.internal/"),
            Some("://host42.internal/".into())
        );
        assert_eq!(literal(r"(?:rm)+\s+-rf"), Some("-rf".into()));
        assert_eq!(literal(r"a|bcd"), None);
    }

    /// The bound holds of the NFA the runtime builds (the unanchored start
    /// adds up to 8 states, as the `regex-cost` lint allows), and counts a
    /// class's shared UTF-8 prefixes once.
    #[test]
    fn the_states_bound_is_an_upper_bound_of_the_nfa() {
        for &(pattern, flags) in PATTERNS {
            let inline = source(pattern, flags).to_inline();
            let states = crate::table::regexes::nfa_states(&inline).unwrap();
            let hir = parser(flags).parse(pattern).unwrap();
            let bound = states_bound(&hir, u64::MAX, &mut ClassBounds::default()).unwrap();
            assert!(
                states <= bound + 8,
                "{inline}: {states} states, bound {bound}"
            );
        }
        let mut classes = ClassBounds::default();
        let mut bound =
            |p: &str, limit| states_bound(&regex_syntax::parse(p).unwrap(), limit, &mut classes);
        // The bytes of `\s`'s UTF-8 sequences add up to 25.
        assert_eq!(bound(r"\s", u64::MAX), Some(10));
        assert_eq!(bound(r"\w{3,5}", 1000), None);
        // A class met before is looked up, with the bound it had.
        let fresh = |p: &str| {
            states_bound(
                &regex_syntax::parse(p).unwrap(),
                u64::MAX,
                &mut ClassBounds::default(),
            )
        };
        for p in [r"\s+\S+\w", r"\S\s", r"[^a]\w{2}"] {
            assert_eq!(bound(p, u64::MAX), fresh(p), "{p}");
        }
    }
}
