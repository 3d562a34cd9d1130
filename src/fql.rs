//! FQL, the fully qualified locator: which components a rule targets.
//!
//! ```text
//! FQL := scope "::" target [ "/" child_path ] [ "#" instance ]
//! ```
//!
//! Each segment is an exact name or `*`. There is no partial globbing
//! (`agent-*` is a literal name) and names are case-sensitive. A pattern
//! without a child path matches a call with or without a child; a pattern with
//! one (even `/*`) needs a child, compared as one whole string. `#instance`
//! must equal the call's instance when the call names one and is ignored when
//! it does not. This module is shared by the compiler (parsing) and the
//! runtime (matching).

use serde::{Deserialize, Serialize};
use std::fmt;

/// One segment of a pattern: an exact name or `*`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Segment {
    /// `*`: anything.
    Any,
    /// A name, compared exactly.
    Exact(String),
}

impl Segment {
    fn parse(text: &str) -> Segment {
        if text == "*" {
            Segment::Any
        } else {
            Segment::Exact(text.to_string())
        }
    }

    /// True when `name` is matched by this segment.
    pub fn matches(&self, name: &str) -> bool {
        match self {
            Segment::Any => true,
            Segment::Exact(exact) => exact == name,
        }
    }

    /// The exact name, if this is not a wildcard.
    pub fn exact(&self) -> Option<&str> {
        match self {
            Segment::Any => None,
            Segment::Exact(name) => Some(name),
        }
    }

    /// The segment with its name borrowed.
    pub fn borrowed(&self) -> SegmentRef<'_> {
        match self {
            Segment::Any => SegmentRef::Any,
            Segment::Exact(name) => SegmentRef::Exact(name.as_bytes()),
        }
    }
}

/// A [`Segment`] whose name is borrowed as bytes: from a pattern, or from
/// a table in place (where a name is text only once a tool asks: a
/// dispatch compares bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SegmentRef<'a> {
    /// `*`: anything.
    Any,
    /// A name, compared exactly.
    Exact(&'a [u8]),
}

impl SegmentRef<'_> {
    /// True when `name` is matched by this segment.
    #[inline]
    pub fn matches(self, name: &str) -> bool {
        match self {
            SegmentRef::Any => true,
            SegmentRef::Exact(exact) => exact == name.as_bytes(),
        }
    }

    /// The segment, its name owned; `None` when the name is not text.
    pub fn to_owned(self) -> Option<Segment> {
        match self {
            SegmentRef::Any => Some(Segment::Any),
            SegmentRef::Exact(name) => std::str::from_utf8(name)
                .ok()
                .map(|name| Segment::Exact(name.to_owned())),
        }
    }
}

impl fmt::Display for SegmentRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SegmentRef::Any => f.write_str("*"),
            SegmentRef::Exact(name) => f.write_str(&String::from_utf8_lossy(name)),
        }
    }
}

impl fmt::Display for Segment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Segment::Any => f.write_str("*"),
            Segment::Exact(name) => f.write_str(name),
        }
    }
}

/// A parsed FQL pattern.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct FqlPattern {
    /// The namespace: `builtin`, `plugin`, `lua`, or `*`.
    pub scope: Segment,
    /// The component name, or `*`.
    pub target: Segment,
    /// The child path, when the pattern names one (`/*` is `Some(Any)`).
    pub child: Option<Segment>,
    /// The channel instance, when the pattern names one.
    pub instance: Option<Segment>,
}

/// Why an FQL pattern is invalid.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FqlErrorKind {
    /// `builtin` or `builtin:llm`
    #[error("missing `::` between scope and target")]
    MissingSeparator,
    /// `::llm`
    #[error("empty scope before `::`")]
    EmptyScope,
    /// `builtin::` or `builtin::/child`
    #[error("empty target after `::`")]
    EmptyTarget,
    /// `builtin::llm/`
    #[error("empty child path after `/`")]
    EmptyChildPath,
    /// `builtin::llm#`
    #[error("empty instance after `#`")]
    EmptyInstance,
    /// `builtin::llm::x`, `built in::llm`
    #[error("unexpected {0} in FQL pattern")]
    UnexpectedChar(String),
    /// `builtin/x::llm`, `builtin#x::llm`: a child path or an instance
    /// before the `::` (they come after the target).
    #[error("`{0}` before `::`: {part} comes after the target", part = part_after_target(.0))]
    BeforeSeparator(char),
}

/// An invalid FQL pattern: what is wrong and at which byte of the pattern.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid FQL `{pattern}`: {kind}")]
pub struct FqlError {
    kind: FqlErrorKind,
    pattern: String,
    offset: usize,
}

impl FqlError {
    /// What is wrong.
    pub fn kind(&self) -> &FqlErrorKind {
        &self.kind
    }

    /// The byte offset in the pattern the error is about.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The pattern as given.
    pub fn pattern(&self) -> &str {
        &self.pattern
    }

    fn new(kind: FqlErrorKind, pattern: &str, offset: usize) -> FqlError {
        FqlError {
            kind,
            pattern: pattern.to_string(),
            offset,
        }
    }
}

/// What a `/` or `#` starts: the part of a pattern that follows the target.
fn part_after_target(separator: &char) -> &'static str {
    if *separator == '/' {
        "a child path"
    } else {
        "an instance"
    }
}

fn valid_char(c: char) -> bool {
    !(c.is_whitespace() || c.is_control() || matches!(c, ':' | '#' | '"' | '{' | '}' | ','))
}

impl FqlPattern {
    /// `*::*`: every component, with or without a child.
    pub fn any() -> FqlPattern {
        FqlPattern {
            scope: Segment::Any,
            target: Segment::Any,
            child: None,
            instance: None,
        }
    }

    /// Parses `scope::target[/child_path][#instance]`.
    ///
    /// # Errors
    ///
    /// An [`FqlError`] naming the first problem: missing `::`, an empty scope,
    /// target, child path or instance, a `/` or `#` before the `::`, or a
    /// character that cannot appear.
    ///
    /// # Example
    ///
    /// ```
    /// let p = hookc::FqlPattern::parse("builtin::llm/*")?;
    /// assert!(p.matches("builtin::llm", Some("agent-1"), None));
    /// assert!(!p.matches("builtin::llm", None, None));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn parse(text: &str) -> Result<FqlPattern, FqlError> {
        let err = |kind, at| Err(FqlError::new(kind, text, at));
        let Some(sep) = text.find("::") else {
            let at = text.find(':').unwrap_or(text.len());
            return err(FqlErrorKind::MissingSeparator, at);
        };
        let scope = text.get(..sep).unwrap_or("");
        let rest = text.get(sep + 2..).unwrap_or("");
        let rest_at = sep + 2;
        if scope.is_empty() {
            return err(FqlErrorKind::EmptyScope, 0);
        }
        // `/` and `#` are valid in a child path and an instance, but the
        // scope comes before both: `builtin/x::llm` is not a scope named
        // `builtin/x`.
        if let Some((i, c)) = scope.char_indices().find(|&(_, c)| matches!(c, '/' | '#')) {
            return err(FqlErrorKind::BeforeSeparator(c), i);
        }
        if let Some((i, c)) = scope.char_indices().find(|&(_, c)| !valid_char(c)) {
            return err(FqlErrorKind::UnexpectedChar(describe(c)), i);
        }
        // The instance is everything after the first `#`.
        let (body, instance) = match rest.find('#') {
            Some(h) => (
                rest.get(..h).unwrap_or(""),
                Some((h, rest.get(h + 1..).unwrap_or(""))),
            ),
            None => (rest, None),
        };
        let (target, child) = match body.find('/') {
            Some(s) => (
                body.get(..s).unwrap_or(""),
                Some((s, body.get(s + 1..).unwrap_or(""))),
            ),
            None => (body, None),
        };
        if target.is_empty() {
            return err(FqlErrorKind::EmptyTarget, rest_at);
        }
        if let Some((i, c)) = target
            .char_indices()
            .find(|&(_, c)| !valid_char(c) || c == '/')
        {
            return err(FqlErrorKind::UnexpectedChar(describe(c)), rest_at + i);
        }
        let child = match child {
            None => None,
            Some((s, path)) => {
                if path.is_empty() {
                    return err(FqlErrorKind::EmptyChildPath, rest_at + s);
                }
                if let Some((i, c)) = path.char_indices().find(|&(_, c)| !valid_char(c)) {
                    return err(
                        FqlErrorKind::UnexpectedChar(describe(c)),
                        rest_at + s + 1 + i,
                    );
                }
                if let Some(i) = path.split('/').position(str::is_empty) {
                    let at = path.split('/').take(i).map(|p| p.len() + 1).sum::<usize>();
                    return err(FqlErrorKind::EmptyChildPath, rest_at + s + 1 + at);
                }
                Some(Segment::parse(path))
            }
        };
        let instance = match instance {
            None => None,
            Some((h, name)) => {
                if name.is_empty() {
                    return err(FqlErrorKind::EmptyInstance, rest_at + h);
                }
                if let Some((i, c)) = name
                    .char_indices()
                    .find(|&(_, c)| !valid_char(c) || c == '/')
                {
                    return err(
                        FqlErrorKind::UnexpectedChar(describe(c)),
                        rest_at + h + 1 + i,
                    );
                }
                Some(Segment::parse(name))
            }
        };
        Ok(FqlPattern {
            scope: Segment::parse(scope),
            target: Segment::parse(target),
            child,
            instance,
        })
    }

    /// True when the pattern matches a call on `component` (`scope::target`),
    /// with an optional child id and channel instance.
    ///
    /// A component id without `::` is matched as a scope with an empty target,
    /// so only `*::*`-style patterns reach it.
    pub fn matches(&self, component: &str, child: Option<&str>, instance: Option<&str>) -> bool {
        self.borrowed()
            .matches_lazily(component, || split_component(component), child, instance)
    }

    /// [`matches`](Self::matches) with the component already split.
    pub fn matches_parts(
        &self,
        scope: &str,
        target: &str,
        child: Option<&str>,
        instance: Option<&str>,
    ) -> bool {
        let pattern = self.borrowed();
        pattern.scope.matches(scope)
            && pattern.target.matches(target)
            && pattern.rest_matches(child, instance)
    }

    /// The pattern with its names borrowed: the form a table holds in
    /// place, and the one that matches.
    pub fn borrowed(&self) -> PatternRef<'_> {
        PatternRef {
            scope: self.scope.borrowed(),
            target: self.target.borrowed(),
            child: self.child.as_ref().map(Segment::borrowed),
            instance: self.instance.as_ref().map(Segment::borrowed),
        }
    }

    /// True when the pattern's scope and target are both exact names.
    pub fn is_exact(&self) -> bool {
        self.scope.exact().is_some() && self.target.exact().is_some()
    }
}

impl fmt::Display for FqlPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.borrowed().fmt(f)
    }
}

/// An [`FqlPattern`] whose names are borrowed: how a loaded table reads a
/// rule's target in place, and the form every pattern matches by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PatternRef<'a> {
    /// The namespace, or `*`.
    pub scope: SegmentRef<'a>,
    /// The component name, or `*`.
    pub target: SegmentRef<'a>,
    /// The child path, when the pattern names one.
    pub child: Option<SegmentRef<'a>>,
    /// The channel instance, when the pattern names one.
    pub instance: Option<SegmentRef<'a>>,
}

impl PatternRef<'_> {
    /// [`FqlPattern::matches`] asking `split` for the component's parts
    /// only when the pattern needs them: `*::*` reads no part, and an exact
    /// `scope::target` or `scope::*` compares the id in place when the
    /// scope holds no `:` (so the id's first `::` is the one after it).
    /// Dispatch tests each candidate's target this way, with the split
    /// done once per dispatch at most.
    #[inline]
    pub fn matches_lazily<'c>(
        &self,
        component: &'c str,
        split: impl FnOnce() -> (&'c str, &'c str),
        child: Option<&str>,
        instance: Option<&str>,
    ) -> bool {
        let parts = match (self.scope, self.target) {
            (SegmentRef::Any, SegmentRef::Any) => true,
            (SegmentRef::Exact(scope), target) if !scope.contains(&b':') => {
                // The id starts with the scope, then `::` or nothing (an
                // id without `::` is all scope).
                let Some(rest) = component.as_bytes().strip_prefix(scope) else {
                    return false;
                };
                let name = match rest.strip_prefix(b"::") {
                    Some(name) => name,
                    None if rest.is_empty() => rest,
                    None => return false,
                };
                match target {
                    SegmentRef::Any => true,
                    SegmentRef::Exact(target) => name == target,
                }
            }
            _ => {
                let (scope, target) = split();
                self.scope.matches(scope) && self.target.matches(target)
            }
        };
        parts && self.rest_matches(child, instance)
    }

    /// The child and instance parts of [`FqlPattern::matches`].
    #[inline]
    fn rest_matches(&self, child: Option<&str>, instance: Option<&str>) -> bool {
        match (self.child, child) {
            (None, _) => {}
            (Some(_), None) => return false,
            (Some(want), Some(have)) => {
                if !want.matches(have) {
                    return false;
                }
            }
        }
        match (self.instance, instance) {
            (Some(want), Some(have)) => want.matches(have),
            _ => true,
        }
    }

    /// The pattern, its names owned; `None` when a name is not text.
    pub fn to_owned(self) -> Option<FqlPattern> {
        Some(FqlPattern {
            scope: self.scope.to_owned()?,
            target: self.target.to_owned()?,
            child: match self.child {
                Some(child) => Some(child.to_owned()?),
                None => None,
            },
            instance: match self.instance {
                Some(instance) => Some(instance.to_owned()?),
                None => None,
            },
        })
    }
}

impl fmt::Display for PatternRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}::{}", self.scope, self.target)?;
        if let Some(child) = &self.child {
            write!(f, "/{child}")?;
        }
        if let Some(instance) = &self.instance {
            write!(f, "#{instance}")?;
        }
        Ok(())
    }
}

impl std::str::FromStr for FqlPattern {
    type Err = FqlError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        FqlPattern::parse(s)
    }
}

/// The largest total weight of the patterns one component can match.
///
/// Dispatch looks only at the rules whose `scope::target` matches the
/// event's component, so the most work one event can cause at a point is
/// the heaviest such group: each pattern weighs `weight` (one per rule to
/// count candidates, its effects' timeouts to bound their time). Child and
/// instance segments are not narrowed, so this is an upper bound; the
/// scope and target are exact. Sums saturate.
pub fn heaviest_component<'a>(items: impl IntoIterator<Item = (&'a FqlPattern, u64)>) -> u64 {
    use std::collections::BTreeMap;
    let mut any = 0u64;
    let mut scopes: BTreeMap<&str, u64> = BTreeMap::new();
    let mut targets: BTreeMap<&str, u64> = BTreeMap::new();
    let mut exact: BTreeMap<(&str, &str), u64> = BTreeMap::new();
    for (pattern, weight) in items {
        let slot = match (pattern.scope.exact(), pattern.target.exact()) {
            (Some(scope), Some(target)) => exact.entry((scope, target)).or_default(),
            (Some(scope), None) => scopes.entry(scope).or_default(),
            (None, Some(target)) => targets.entry(target).or_default(),
            (None, None) => &mut any,
        };
        *slot = slot.saturating_add(weight);
    }
    let best_scope = scopes.values().copied().max().unwrap_or(0);
    let best_target = targets.values().copied().max().unwrap_or(0);
    // A component whose pair no exact pattern names: the heaviest scope
    // and the heaviest target together (there is always such a component,
    // e.g. `scope::<a new name>` when the target is a wildcard's).
    let mut best = any.saturating_add(best_scope).saturating_add(best_target);
    for ((scope, target), weight) in &exact {
        let total = any
            .saturating_add(*weight)
            .saturating_add(scopes.get(scope).copied().unwrap_or(0))
            .saturating_add(targets.get(target).copied().unwrap_or(0));
        best = best.max(total);
    }
    best
}

/// Splits `scope::target` at the first `::`; without one, the whole id is the
/// scope and the target is empty.
pub fn split_component(component: &str) -> (&str, &str) {
    // A byte scan: `str::find` with a string pattern sets up a two-way
    // searcher on every call, which costs more than the scan of a short id.
    match component.as_bytes().windows(2).position(|w| w == b"::") {
        Some(i) => (
            component.get(..i).unwrap_or(""),
            component.get(i + 2..).unwrap_or(""),
        ),
        None => (component, ""),
    }
}

fn describe(c: char) -> String {
    if c.is_whitespace() {
        "whitespace".to_string()
    } else {
        format!("`{c}`")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> FqlPattern {
        FqlPattern::parse(s).unwrap()
    }

    #[test]
    fn the_heaviest_component_counts_every_group_it_matches() {
        let rules = [
            (p("builtin::exec"), 1),
            (p("builtin::exec"), 10),
            (p("builtin::*"), 100),
            (p("*::exec"), 1000),
            (p("*::read"), 5000),
            (p("*::*"), 7),
            (p("plugin::x"), 3),
        ];
        let weights = rules.iter().map(|(pattern, w)| (pattern, *w));
        // `builtin::read`: scope 100, target 5000, any 7.
        assert_eq!(heaviest_component(weights), 5107);
        let no_read = rules
            .iter()
            .filter(|(pattern, _)| pattern.to_string() != "*::read");
        // `builtin::exec`: 11 + 100 + 1000 + 7.
        assert_eq!(
            heaviest_component(no_read.map(|(pattern, w)| (pattern, *w))),
            1118
        );
        assert_eq!(heaviest_component(std::iter::empty()), 0);
    }

    #[test]
    fn components_split_at_the_first_double_colon() {
        assert_eq!(split_component("builtin::llm"), ("builtin", "llm"));
        assert_eq!(split_component("a::b::c"), ("a", "b::c"));
        assert_eq!(split_component("a:b::c"), ("a:b", "c"));
        assert_eq!(split_component(":::x"), ("", ":x"));
        assert_eq!(split_component("plugin::"), ("plugin", ""));
        assert_eq!(split_component("été::ñ"), ("été", "ñ"));
        assert_eq!(split_component("nocolons"), ("nocolons", ""));
        assert_eq!(split_component(""), ("", ""));
    }

    fn kind(s: &str) -> FqlErrorKind {
        FqlPattern::parse(s).unwrap_err().kind().clone()
    }

    #[test]
    fn parses_the_seed_examples() {
        assert_eq!(p("builtin::llm").to_string(), "builtin::llm");
        assert_eq!(p("builtin::*").target, Segment::Any);
        assert_eq!(p("*::*"), FqlPattern::any());
        assert_eq!(
            p("plugin::my-tool").target,
            Segment::Exact("my-tool".into())
        );
        assert_eq!(
            p("builtin::llm/agent-1").child,
            Some(Segment::Exact("agent-1".into()))
        );
        assert_eq!(p("builtin::llm/*").child, Some(Segment::Any));
        assert_eq!(
            p("lua::custom-comp#primary").instance,
            Some(Segment::Exact("primary".into()))
        );
        assert_eq!(
            p("builtin::llm/agent-1/sub-worker").child,
            Some(Segment::Exact("agent-1/sub-worker".into()))
        );
    }

    #[test]
    fn precise_errors() {
        assert_eq!(kind("builtin"), FqlErrorKind::MissingSeparator);
        assert_eq!(kind("builtin:llm"), FqlErrorKind::MissingSeparator);
        assert_eq!(kind("::llm"), FqlErrorKind::EmptyScope);
        assert_eq!(kind("builtin::"), FqlErrorKind::EmptyTarget);
        assert_eq!(kind("builtin::/x"), FqlErrorKind::EmptyTarget);
        assert_eq!(kind("builtin::llm/"), FqlErrorKind::EmptyChildPath);
        assert_eq!(kind("builtin::llm/a//b"), FqlErrorKind::EmptyChildPath);
        assert_eq!(kind("builtin::llm#"), FqlErrorKind::EmptyInstance);
        assert_eq!(
            kind("builtin::llm::x"),
            FqlErrorKind::UnexpectedChar("`:`".into())
        );
        assert_eq!(
            kind("built in::llm"),
            FqlErrorKind::UnexpectedChar("whitespace".into())
        );
        // A child path or an instance before the `::`.
        assert_eq!(kind("builtin/x::llm"), FqlErrorKind::BeforeSeparator('/'));
        assert_eq!(kind("builtin#x::llm"), FqlErrorKind::BeforeSeparator('#'));
        assert_eq!(kind("*/x::*"), FqlErrorKind::BeforeSeparator('/'));
        assert_eq!(kind("a#b/c::d"), FqlErrorKind::BeforeSeparator('#'));
        let e = FqlPattern::parse("builtin/x::llm").unwrap_err();
        assert_eq!(e.offset(), 7);
        assert_eq!(
            e.to_string(),
            "invalid FQL `builtin/x::llm`: `/` before `::`: a child path comes after the target"
        );
        let e = FqlPattern::parse("builtin#x::llm").unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid FQL `builtin#x::llm`: `#` before `::`: an instance comes after the target"
        );
        let e = FqlPattern::parse("builtin::llm/").unwrap_err();
        assert_eq!(e.offset(), 12);
        assert_eq!(
            e.to_string(),
            "invalid FQL `builtin::llm/`: empty child path after `/`"
        );
    }

    /// A segment of a generated pattern: `*` or a name over a few bytes,
    /// `:` included (a pattern parsed from FQL never holds one; one read
    /// from a crafted table may).
    fn segment() -> impl proptest::strategy::Strategy<Value = Segment> {
        use proptest::prelude::*;
        prop_oneof![Just(Segment::Any), "[ab:]{0,4}".prop_map(Segment::Exact)]
    }

    proptest::proptest! {
        /// Matching in place, without splitting the id, says what matching
        /// the split parts says.
        #[test]
        fn matching_in_place_agrees_with_the_split(
            component in "[ab:]{0,8}",
            scope in segment(),
            target in segment(),
        ) {
            let pattern = FqlPattern { scope, target, child: None, instance: None };
            let (s, t) = split_component(&component);
            proptest::prop_assert_eq!(
                pattern.borrowed().matches_lazily(&component, || split_component(&component), None, None),
                pattern.matches_parts(s, t, None, None),
                "{} on {:?}", pattern, component
            );
        }
    }

    #[test]
    fn ids_without_a_double_colon_are_all_scope_in_place_too() {
        // Compared in place, as when split: the whole id is the scope.
        assert!(FqlPattern {
            scope: Segment::Exact("nocolons".into()),
            target: Segment::Any,
            child: None,
            instance: None,
        }
        .matches("nocolons", None, None));
        assert!(!p("nocolons::x").matches("nocolons", None, None));
        assert!(!p("builtin::llm").matches("builtin::llm::x", None, None));
        assert!(!p("builtin::*").matches("builtinx::llm", None, None));
        assert!(!p("builtin::*").matches("builtin:llm", None, None));
    }

    #[test]
    fn exact_and_wildcard_segments() {
        assert!(p("builtin::llm").matches("builtin::llm", None, None));
        assert!(!p("builtin::llm").matches("builtin::hil", None, None));
        assert!(!p("builtin::llm").matches("plugin::llm", None, None));
        assert!(p("builtin::*").matches("builtin::hil", None, None));
        assert!(p("*::llm").matches("plugin::llm", None, None));
        assert!(p("*::*").matches("lua::x", Some("c"), Some("i")));
    }

    #[test]
    fn no_partial_globbing_and_case_sensitive() {
        assert!(!p("builtin::agent-*").matches("builtin::agent-1", None, None));
        assert!(p("builtin::agent-*").matches("builtin::agent-*", None, None));
        assert!(!p("builtin::LLM").matches("builtin::llm", None, None));
    }

    #[test]
    fn child_paths() {
        // Without a child path: matches with or without a child.
        assert!(p("builtin::llm").matches("builtin::llm", Some("agent-1"), None));
        // With one (even `/*`): needs a child.
        assert!(!p("builtin::llm/*").matches("builtin::llm", None, None));
        assert!(p("builtin::llm/*").matches("builtin::llm", Some("a/b"), None));
        assert!(p("builtin::llm/agent-1").matches("builtin::llm", Some("agent-1"), None));
        // Compared as one whole string.
        assert!(!p("builtin::llm/agent-1").matches("builtin::llm", Some("agent-1/sub"), None));
        assert!(p("builtin::llm/agent-1/sub").matches("builtin::llm", Some("agent-1/sub"), None));
    }

    #[test]
    fn instances() {
        let pat = p("lua::comp#primary");
        assert!(pat.matches("lua::comp", None, Some("primary")));
        assert!(!pat.matches("lua::comp", None, Some("secondary")));
        // Ignored when the call names no instance.
        assert!(pat.matches("lua::comp", None, None));
        assert!(p("lua::comp#*").matches("lua::comp", None, Some("x")));
        // A pattern without an instance matches any instance.
        assert!(p("lua::comp").matches("lua::comp", None, Some("x")));
    }

    #[test]
    fn display_round_trips() {
        for s in ["builtin::llm", "*::*", "a::b/c/d#e", "x::*/*#*"] {
            assert_eq!(p(s).to_string(), s);
        }
    }
}
