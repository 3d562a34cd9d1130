//! `unicode-class-cost`: a `matches` regex whose Unicode `\w`, `\s`, `\d`
//! or `\b` makes its automaton several times larger than the same regex
//! with ASCII classes.

use super::regex_cost::thousands;
use super::walk::first_uses;
use super::{declare_lint, Cx, Sink};
use crate::diag::Diagnostic;
use regex_syntax::ast::{
    self as re, Assertion, AssertionKind, ClassSet, ClassSetItem, Flag, Flags, FlagsItem,
    FlagsItemKind, Group, GroupKind,
};

declare_lint! {
    /// ## What it does
    /// Finds `matches` regexes whose Unicode classes make their automaton
    /// at least twice as large, and at least 4 KiB larger, than the same
    /// regex with ASCII classes. `\w`, `\s`, `\d` and `\b` are
    /// Unicode-aware: `\w` is every letter, mark and digit of every script,
    /// `\s` the 25 Unicode spaces, and the DFA that matches them tells
    /// apart the UTF-8 bytes of each. The lint builds the regex both ways
    /// (each `\w`, `\s`, `\d` and `\b`, and each bracketed class of ASCII
    /// characters that holds one, as `(?-u:…)`) and gives both sizes, with
    /// the ASCII form.
    ///
    /// ## Why is this bad?
    /// The automaton is in every table, and a hook process checks the part
    /// of the table an event reaches before it searches it, in time
    /// proportional to its size. `/\w+@\w+\.com/` needs about 340 KB, its
    /// ASCII form 2 KB. Where the text is ASCII by intent (shell syntax,
    /// identifiers, keywords, host names), the Unicode classes cost that
    /// size for nothing.
    ///
    /// Where Unicode is meant, keep the classes and allow the lint on the
    /// rule: a JavaScript program's blanks include the no-break space, so a
    /// rule reading code an interpreter runs should match them.
    ///
    /// ## Example
    /// ```text
    /// hook no-mail on tool.pre_execute {
    ///     when payload.args matches /\w+@\w+\.com/
    ///     abort "an e-mail address"
    /// }
    /// ```
    ///
    /// If ASCII is meant, write `/(?-u:\w)+@(?-u:\w)+\.com/` (or
    /// `[A-Za-z0-9_]`); if not, `# hookc: allow(unicode-class-cost)` above
    /// the rule.
    ///
    /// ## Limits
    /// Building a regex's automaton both ways takes about a millisecond,
    /// so a run builds at most 32 regexes (the first written whose Unicode
    /// classes add enough states to be worth it): a policy of thousands of
    /// rules is linted in bounded time, and may have more findings than a
    /// run reports. Fixing those it reports brings the next ones.
    pub static UNICODE_CLASS_COST = "unicode-class-cost", Warn, check;
}

/// The most regexes one run builds both ways (each about a millisecond).
const MEASURED: usize = 32;

/// The automata are compared up to this size; a regex whose Unicode form
/// is larger is `regex-cost`'s concern.
const BUILD_LIMIT: usize = 1 << 20;

/// The smallest difference reported, in bytes.
const MIN_SAVING: usize = 4 << 10;

/// The fewest NFA states the Unicode classes must add before the automata
/// are built and compared.
const MIN_EXTRA_STATES: u64 = 64;

/// NFA states are counted up to this many.
const STATES_LIMIT: u64 = 1 << 16;

fn check(cx: &Cx<'_>, sink: &mut Sink<'_>) {
    // The first `MEASURED` regexes worth building, in the order written.
    let candidates = first_uses(cx).into_iter().filter_map(|used| {
        let candidate = Candidate::of(&used.source.to_inline())?;
        Some((used, candidate))
    });
    for (used, candidate) in candidates.take(MEASURED) {
        let (source, span, named) = (&used.source, used.span, used.named);
        let Some(cost) = candidate.measure() else {
            continue;
        };
        let shown = format!("/{}/{}", source.pattern, source.flags);
        let name = named.map(|n| format!(" (`{n}`)")).unwrap_or_default();
        let (unicode, ascii) = (thousands(cost.unicode as u64), thousands(cost.ascii as u64));
        let d = Diagnostic::warning(
            UNICODE_CLASS_COST.code,
            format!(
                "regex `{shown}`{name} needs a {unicode}-byte automaton for its Unicode classes, {ascii} bytes with ASCII ones"
            ),
        )
        .with_primary(span, format!("{unicode} bytes; {ascii} in ASCII"))
        .with_help(format!(
            "`\\w`, `\\s`, `\\d` and `\\b` match every Unicode letter, space or digit; if the text is ASCII by intent, write `/{}/`; if Unicode is meant, `# hookc: allow(unicode-class-cost)` above the rule",
            cost.ascii_pattern
        ));
        sink.report(
            &UNICODE_CLASS_COST,
            used.file,
            &[(used.file, used.anchor)],
            d,
        );
    }
}

/// A regex's automaton with its Unicode classes and with ASCII ones.
#[derive(Debug, PartialEq, Eq)]
struct UnicodeCost {
    /// Bytes of the regex's DFA as written.
    unicode: usize,
    /// Bytes with its classes in ASCII.
    ascii: usize,
    /// The regex with its classes in ASCII.
    ascii_pattern: String,
}

/// A regex whose Unicode classes add enough automaton states to be worth
/// building both ways.
#[derive(Debug)]
struct Candidate {
    /// As written, inline flags and all.
    pattern: String,
    /// With its classes in ASCII.
    ascii_pattern: String,
}

impl Candidate {
    /// `pattern`, when its Unicode classes may be costly: `None` when it
    /// has none, when ASCII ones would not change what it matches as
    /// parsed (a `(?-u)` already in force), or when they add too few
    /// states to matter.
    fn of(pattern: &str) -> Option<Candidate> {
        // The cheap test first: a regex without a backslash has no Perl
        // class (a bracketed class holds one only as `\w`).
        if !pattern.contains('\\') {
            return None;
        }
        let tree = re::parse::Parser::new().parse(pattern).ok()?;
        let mut ascii_tree = tree.clone();
        if !to_ascii(&mut ascii_tree) {
            return None;
        }
        // Both translated as the DFAs parse them (regex-automata's syntax
        // defaults: Unicode, UTF-8), from the one parse: the ASCII form
        // is printed only for a candidate. Under a `(?-u)` written earlier
        // the classes are ASCII already: the two are the same, and the
        // bound below finds no difference.
        let translate = |ast: &re::Ast| {
            regex_syntax::hir::translate::TranslatorBuilder::new()
                .unicode(true)
                .utf8(true)
                .build()
                .translate(pattern, ast)
                .ok()
        };
        let (parsed, ascii_parsed) = (translate(&tree)?, translate(&ascii_tree)?);
        // Building DFAs costs about a millisecond a regex: only a regex
        // whose Unicode classes add many NFA states (a Unicode `\s` adds
        // about 22, a `\w` hundreds) is worth it. Two `\s` around a
        // literal, as in `rm\s+-rf\s+/srv`, stay under the thresholds.
        let bound =
            |hir| crate::table::regexes::states_bound(hir, STATES_LIMIT).unwrap_or(STATES_LIMIT);
        if bound(&parsed).saturating_sub(bound(&ascii_parsed)) < MIN_EXTRA_STATES {
            return None;
        }
        let mut ascii_pattern = String::new();
        re::print::Printer::new()
            .print(&ascii_tree, &mut ascii_pattern)
            .ok()?;
        Some(Candidate {
            pattern: pattern.to_owned(),
            ascii_pattern,
        })
    }

    /// Both automata built: the cost, when the saving is over the
    /// thresholds.
    fn measure(self) -> Option<UnicodeCost> {
        let ascii = crate::table::regexes::dfa_bytes(&self.ascii_pattern, BUILD_LIMIT)?;
        // A regex whose Unicode form does not build within the limit is
        // `regex-cost`'s concern, not reported here.
        let unicode = crate::table::regexes::dfa_bytes(&self.pattern, BUILD_LIMIT)?;
        (unicode >= ascii.saturating_mul(2) && unicode >= ascii.saturating_add(MIN_SAVING))
            .then_some(UnicodeCost {
                unicode,
                ascii,
                ascii_pattern: self.ascii_pattern,
            })
    }
}

impl UnicodeCost {
    /// The cost of `pattern`'s Unicode classes, when it is worth a
    /// finding (see [`Candidate::of`] and [`Candidate::measure`]).
    #[cfg(test)]
    fn of(pattern: &str) -> Option<UnicodeCost> {
        Candidate::of(pattern)?.measure()
    }
}

/// Wraps each Unicode-aware `\w`, `\s`, `\d` and `\b` of `tree`, and each
/// bracketed class of ASCII characters that holds one, in `(?-u:…)`.
/// Negated classes (`\S`, `[^\w]`) and `\B` stay: in ASCII they would match
/// bytes that are not UTF-8. True when it wrapped any.
fn to_ascii(tree: &mut re::Ast) -> bool {
    let wrap = match tree {
        re::Ast::ClassPerl(class) => !class.negated,
        re::Ast::Assertion(assertion) => matches!(
            **assertion,
            Assertion {
                kind: AssertionKind::WordBoundary,
                ..
            }
        ),
        re::Ast::ClassBracketed(class) => {
            !class.negated && ascii_set(&class.kind) && holds_perl(&class.kind)
        }
        re::Ast::Repetition(r) => return to_ascii(&mut r.ast),
        re::Ast::Group(g) => return to_ascii(&mut g.ast),
        re::Ast::Alternation(a) => return a.asts.iter_mut().fold(false, |w, t| to_ascii(t) | w),
        re::Ast::Concat(c) => return c.asts.iter_mut().fold(false, |w, t| to_ascii(t) | w),
        re::Ast::Empty(_)
        | re::Ast::Flags(_)
        | re::Ast::Literal(_)
        | re::Ast::Dot(_)
        | re::Ast::ClassUnicode(_) => false,
    };
    if wrap {
        let span = *tree.span();
        let inner = std::mem::replace(tree, re::Ast::empty(span));
        let item = |kind| FlagsItem { span, kind };
        *tree = re::Ast::group(Group {
            span,
            kind: GroupKind::NonCapturing(Flags {
                span,
                items: vec![
                    item(FlagsItemKind::Negation),
                    item(FlagsItemKind::Flag(Flag::Unicode)),
                ],
            }),
            ast: Box::new(inner),
        });
    }
    wrap
}

/// True when every member of a bracketed class is ASCII, so that the class
/// reads the same in ASCII but for its Perl classes.
fn ascii_set(set: &ClassSet) -> bool {
    match set {
        ClassSet::Item(item) => ascii_item(item),
        ClassSet::BinaryOp(_) => false,
    }
}

fn ascii_item(item: &ClassSetItem) -> bool {
    match item {
        ClassSetItem::Empty(_) => true,
        ClassSetItem::Literal(lit) => lit.c.is_ascii(),
        ClassSetItem::Range(range) => range.start.c.is_ascii() && range.end.c.is_ascii(),
        ClassSetItem::Ascii(class) => !class.negated,
        ClassSetItem::Perl(class) => !class.negated,
        ClassSetItem::Bracketed(inner) => !inner.negated && ascii_set(&inner.kind),
        ClassSetItem::Union(union) => union.items.iter().all(ascii_item),
        ClassSetItem::Unicode(_) => false,
    }
}

/// True when a bracketed class holds a Perl class (`[\w.-]`).
fn holds_perl(set: &ClassSet) -> bool {
    fn item(i: &ClassSetItem) -> bool {
        match i {
            ClassSetItem::Perl(_) => true,
            ClassSetItem::Bracketed(inner) => holds_perl(&inner.kind),
            ClassSetItem::Union(union) => union.items.iter().any(item),
            _ => false,
        }
    }
    match set {
        ClassSet::Item(i) => item(i),
        ClassSet::BinaryOp(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::UnicodeCost;

    fn ascii(pattern: &str) -> Option<String> {
        let mut tree = regex_syntax::ast::parse::Parser::new()
            .parse(pattern)
            .unwrap();
        if !super::to_ascii(&mut tree) {
            return None;
        }
        let mut out = String::new();
        regex_syntax::ast::print::Printer::new()
            .print(&tree, &mut out)
            .unwrap();
        Some(out)
    }

    #[test]
    fn each_unicode_class_is_written_in_ascii() {
        assert_eq!(ascii(r"\w+@\w+").as_deref(), Some(r"(?-u:\w)+@(?-u:\w)+"));
        assert_eq!(
            ascii(r"\bword\s\d").as_deref(),
            Some(r"(?-u:\b)word(?-u:\s)(?-u:\d)")
        );
        assert_eq!(ascii(r"[\w.-]+").as_deref(), Some(r"(?-u:[\w.-])+"));
        assert_eq!(ascii(r"(a|\s)").as_deref(), Some(r"(a|(?-u:\s))"));
        // Negated classes and `\B` would match bytes that are not UTF-8.
        assert_eq!(ascii(r"\S+\W\D\B"), None);
        assert_eq!(ascii(r"[^\s]"), None);
        // A bracketed class with a non-ASCII member keeps its `\w`.
        assert_eq!(ascii(r"[\wé]"), None);
        assert_eq!(ascii(r"[a-z]\p{Greek}."), None);
    }

    #[test]
    fn reports_a_saving_and_only_a_large_one() {
        let cost = UnicodeCost::of(r"\w+@\w+\.com").expect("a large saving");
        assert_eq!(cost.ascii_pattern, r"(?-u:\w)+@(?-u:\w)+\.com");
        assert!(cost.unicode > 20 * cost.ascii, "{cost:?}");
        // The fork bomb's blanks: the shipped pack's lesson.
        assert!(UnicodeCost::of(r":\s*\(\s*\)\s*\{[^}]*:\s*\|\s*:").is_some());
        // Small either way.
        assert_eq!(UnicodeCost::of(r"^rm\s"), None);
        assert_eq!(UnicodeCost::of(r"token"), None);
        // Already ASCII: the flag written before, or the group.
        assert_eq!(UnicodeCost::of(r"(?-u)\w+@\w+\.com"), None);
        assert_eq!(UnicodeCost::of(r"(?-u:\w)+@(?-u:\w)+\.com"), None);
    }
}
