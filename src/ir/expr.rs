//! Expressions: the values conditions and actions compute, their operators,
//! the built-in functions, quantifiers, word-set tests of a shell view,
//! `rate(…)` tests and string templates.

use super::{json_text, CmpOp, FieldPath, RegexId, Segment, StrMap};
use serde::Serialize;
use serde_json::Value;

/// Prefix operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum UnaryOp {
    /// `not`
    Not,
    /// `-`
    Neg,
    /// `~`
    BitNot,
}

/// Infix operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum BinaryOp {
    /// `or`
    Or,
    /// `and`
    And,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `contains`
    Contains,
    /// `starts_with`
    StartsWith,
    /// `ends_with`
    EndsWith,
    /// `|`
    BitOr,
    /// `^`
    BitXor,
    /// `&`
    BitAnd,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Rem,
}

impl BinaryOp {
    /// The operator as written in source.
    pub fn as_str(self) -> &'static str {
        match self {
            BinaryOp::Or => "or",
            BinaryOp::And => "and",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
            BinaryOp::Contains => "contains",
            BinaryOp::StartsWith => "starts_with",
            BinaryOp::EndsWith => "ends_with",
            BinaryOp::BitOr => "|",
            BinaryOp::BitXor => "^",
            BinaryOp::BitAnd => "&",
            BinaryOp::Shl => "<<",
            BinaryOp::Shr => ">>",
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Rem => "%",
        }
    }
}

/// A value expression, evaluated against the context at dispatch.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Expr {
    /// A constant.
    Const(#[serde(serialize_with = "json_text")] Value),
    /// A field of the context (missing fields are `null`).
    Path(FieldPath),
    /// A string template: literal text with `{path}` holes.
    Template(Template),
    /// `[..]` with computed elements.
    Array(Vec<Expr>),
    /// `{..}` with computed values.
    Object(Vec<(String, Expr)>),
    /// A prefix operator.
    Unary(UnaryOp, Box<Expr>),
    /// An infix operator.
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// `lhs in [..]`.
    In(Box<Expr>, Box<Expr>),
    /// `lhs contains any [..]`.
    ContainsAny(Box<Expr>, Box<Expr>),
    /// `lhs matches /re/` (also globs, translated).
    Matches(Box<Expr>, RegexId),
    /// `path exists`.
    Exists(FieldPath),
    /// `rate("key") > 100 per 60s`: counts the event, then compares (only
    /// in conditions).
    Rate(RateTest),
    /// `any c in LIST: e` / `all c in LIST: e`: the condition (second) for
    /// some or every element of the list (first).
    Quantifier(Quantifier, Box<Expr>, Box<Expr>),
    /// A quantifier's variable, then a path below it: `0` is the innermost
    /// quantifier's element, `1` the one around it, and so on.
    Var(u32, Vec<Segment>),
    /// A built-in function applied to its arguments.
    Call(Func, Vec<Expr>),
    /// A named group of a regex an earlier condition of the rule matched:
    /// the subject, the regex and the group's name; `null` when the
    /// subject is not a string or the regex does not match it.
    Capture(Box<Expr>, RegexId, String),
    /// A word list of a shell view's command (the first: the command)
    /// holds one of a set of strings: `c.flags contains "-r"`,
    /// `"-r" in c.flags`, `c.operands contains any [..]`. The compiler
    /// turns those forms into this one when it knows the list is a
    /// command's (the quantifier's list is `shell(…)`), so that flags are
    /// tested as bits and large sets through a perfect hash.
    WordsAny(Box<Expr>, Box<WordsTest>),
    /// `let $0 = value in body`: the value (first) evaluated once and
    /// bound as the body's innermost variable, the body's other variables
    /// one further out. The source has no such form: the compiler writes
    /// it around a quantifier when the quantifier's body computes a value
    /// that does not depend on the element, so that the value is computed
    /// once rather than once per element ([`Expr::inline_lets`] undoes it).
    Let(Box<Expr>, Box<Expr>),
    /// `lhs in ["a", "b", …]` on a list of constant strings: whether the
    /// value is one of the strings, looked up in a set. The compiler turns
    /// the written form into this one, which compares no JSON.
    InSet(Box<Expr>, Box<StringSet>),
}

/// A set of constant strings: compared one by one when there are few,
/// found through a perfect hash over them when there are more than
/// [`StringSet::LINEAR`]. The strings are held one after another in one
/// text, so that a set is two allocations however many strings it has (a
/// hook process decodes the sets its event's conditions read).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StringSet {
    /// The strings, as written, in order, each once, one after another.
    text: String,
    /// Where each string ends in `text`.
    ends: Vec<u32>,
    /// A perfect hash of the strings when there are more than
    /// [`StringSet::LINEAR`] of them, over the strings themselves (it
    /// holds no keys of its own); empty otherwise.
    pub hash: StrMap,
}

impl StringSet {
    /// Up to this many strings are compared one by one: fewer comparisons
    /// of short words than it takes to hash one.
    pub const LINEAR: usize = 8;

    /// The set of `strings` (as written, each once), found through `hash`
    /// (a perfect hash over them, or an empty map to compare them one by
    /// one).
    pub fn new<S: AsRef<str>>(strings: &[S], hash: StrMap) -> StringSet {
        let mut text = String::new();
        let mut ends = Vec::with_capacity(strings.len());
        for s in strings {
            text.push_str(s.as_ref());
            ends.push(u32::try_from(text.len()).unwrap_or(u32::MAX));
        }
        StringSet { text, ends, hash }
    }

    /// The set as the table holds it: the strings one after another in
    /// `text`, each ending where `ends` says. Bounds that do not fit
    /// `text` make strings that are never found (the table's validator
    /// refuses them).
    pub(crate) fn from_parts(text: String, ends: Vec<u32>, hash: StrMap) -> StringSet {
        StringSet { text, ends, hash }
    }

    /// The strings one after another (for the table's wire form).
    pub(crate) fn text(&self) -> &String {
        &self.text
    }

    /// Where each string ends in [`text`](Self::text).
    pub(crate) fn ends(&self) -> &Vec<u32> {
        &self.ends
    }

    /// How many strings.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// String `i` (empty when the set's bounds do not fit its text).
    pub fn get(&self, i: usize) -> Option<&str> {
        Some(self.text.get(self.bounds(i)?).unwrap_or_default())
    }

    /// Where string `i` is in the text.
    fn bounds(&self, i: usize) -> Option<std::ops::Range<usize>> {
        let end = *self.ends.get(i)? as usize;
        let start = match i {
            0 => 0,
            _ => *self.ends.get(i - 1)? as usize,
        };
        Some(start..end)
    }

    /// The strings, in order.
    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }

    /// Whether `word` is one of the strings. Compared as bytes: equal
    /// bytes are an equal string, and no character boundary needs a check.
    #[inline]
    pub fn has(&self, word: &str) -> bool {
        let (text, bytes) = (self.text.as_bytes(), word.as_bytes());
        match self.hash.slot(word) {
            Some(k) => self.bounds(k).and_then(|at| text.get(at)) == Some(bytes),
            None if self.hash.is_hashed() => false,
            None => {
                let mut start = 0;
                self.ends.iter().any(|&end| {
                    let (from, to) = (start, end as usize);
                    start = to;
                    to.wrapping_sub(from) == bytes.len() && text.get(from..to) == Some(bytes)
                })
            }
        }
    }

    /// The strings as a list written in the source: `["a", "b"]`.
    pub fn show(&self) -> String {
        self.to_value().to_string()
    }

    /// The strings as a JSON list.
    pub fn to_value(&self) -> Value {
        Value::Array(self.iter().map(|s| Value::String(s.to_owned())).collect())
    }
}

/// Written as the list of its strings and its hash, as it reads.
impl Serialize for StringSet {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut set = s.serialize_struct("StringSet", 2)?;
        set.serialize_field("strings", &self.iter().collect::<Vec<_>>())?;
        set.serialize_field("hash", &self.hash)?;
        set.end()
    }
}

/// What [`Expr::WordsAny`] tests.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WordsTest {
    /// Which of the command's word lists.
    pub list: WordList,
    /// The form it was written in (for messages, and for values that are
    /// not a shell view's command).
    pub form: WordsForm,
    /// The strings, as written, in order.
    pub set: StringSet,
    /// The bits of the strings that are one-letter flags
    /// ([`crate::shell::short_flag_bit`]).
    pub short_flags: u64,
}

impl WordsTest {
    /// Whether `word` is one of the strings.
    pub fn has(&self, word: &str) -> bool {
        self.set.has(word)
    }

    /// The test as written, given the command expression as text
    /// (`$0.flags contains any ["-r", "-R"]`).
    pub fn show(&self, command: &str) -> String {
        let quote = |s: &str| Value::String(s.to_owned()).to_string();
        let list = format!("{command}.{}", self.list.name());
        let one = self.set.get(0).filter(|_| self.set.len() == 1);
        match (self.form, one) {
            (WordsForm::Contains, Some(s)) => format!("{list} contains {}", quote(s)),
            (WordsForm::In, Some(s)) => format!("{} in {list}", quote(s)),
            (_, _) => format!("{list} contains any {}", self.set.show()),
        }
    }
}

/// A word list of a shell view's command.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum WordList {
    /// `args`.
    Args,
    /// `flags`.
    Flags,
    /// `operands`.
    Operands,
    /// `assignments`.
    Assignments,
    /// `wrappers`.
    Wrappers,
}

impl WordList {
    /// The list named `name`, if it is one.
    pub fn named(name: &str) -> Option<WordList> {
        Some(match name {
            "args" => WordList::Args,
            "flags" => WordList::Flags,
            "operands" => WordList::Operands,
            "assignments" => WordList::Assignments,
            "wrappers" => WordList::Wrappers,
            _ => return None,
        })
    }

    /// The field's name.
    pub fn name(self) -> &'static str {
        match self {
            WordList::Args => "args",
            WordList::Flags => "flags",
            WordList::Operands => "operands",
            WordList::Assignments => "assignments",
            WordList::Wrappers => "wrappers",
        }
    }
}

/// How an [`Expr::WordsAny`] test was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum WordsForm {
    /// `list contains "s"` (one string).
    Contains,
    /// `"s" in list` (one string).
    In,
    /// `list contains any [..]`.
    ContainsAny,
}

/// Which elements a quantifier's condition must hold for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Quantifier {
    /// Some element: false for an empty list.
    Any,
    /// Every element: true for an empty list.
    All,
}

/// A quantifier's variable as messages show it: `$0` for the innermost
/// element, then the path below it (`$0.flags`, `$1.redirects[0]`).
pub fn show_var(depth: u32, segments: &[Segment]) -> String {
    let mut out = format!("${depth}");
    for s in segments {
        match s {
            Segment::Field(f) => {
                out.push('.');
                out.push_str(f);
            }
            Segment::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

impl Quantifier {
    /// The keyword.
    pub fn keyword(self) -> &'static str {
        match self {
            Quantifier::Any => "any",
            Quantifier::All => "all",
        }
    }
}

/// True when `s` is ASCII without an upper-case letter: `lower` gives it
/// back unchanged. The runtime returns such a text without copying it, and
/// the lowering compiles comparisons with such constants into exact regexes.
pub fn is_lower_ascii(s: &str) -> bool {
    s.bytes().all(|b| b.is_ascii() && !b.is_ascii_uppercase())
}

/// The built-in functions: pure, total (a value of the wrong type gives
/// `null`), and cheap.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Func {
    /// `shell(s)`: the simple commands of a shell command string (see
    /// [`crate::shell`]), a list of objects.
    Shell,
    /// `lower(s)`: lower case.
    Lower,
    /// `upper(s)`: upper case.
    Upper,
    /// `trim(s)`: without leading and trailing white space.
    Trim,
    /// `basename(s)`: the last segment of a path.
    Basename,
    /// `dirname(s)`: the path without its last segment.
    Dirname,
    /// `normalize(s)`: the path lexically normalized ([`crate::paths`]).
    Normalize,
    /// `len(x)`: characters of a string, elements of a list, keys of an
    /// object.
    Len,
    /// `env(name)`: the host's environment variable, or `null`.
    Env,
    /// `relpath(p)`: the path relative to the host's project directory, or
    /// `null` outside it.
    Relpath,
    /// `stem(p)`: the last segment of a path without its extension.
    Stem,
    /// `extension(p)`: the extension of a path, without its dot; empty
    /// when it has none.
    Extension,
    /// `replace(s, from, to)`: every `from` in `s` replaced by `to`
    /// (literal text; `rewrite` takes regexes).
    Replace,
    /// `join(base, p)`: `p` resolved against the directory `base`, as a
    /// shell resolves a relative path against its working directory
    /// ([`crate::paths::join`]).
    Join,
    /// `if_unset(w)`: the word `w` as the shell expands it when the
    /// variables it names are unset ([`crate::paths::if_unset`]), or `null`
    /// when the shell would stop (`${DIR:?}`).
    IfUnset,
}

impl Func {
    /// Every function, in a fixed order.
    pub const ALL: [Func; 15] = [
        Func::Shell,
        Func::Lower,
        Func::Upper,
        Func::Trim,
        Func::Basename,
        Func::Dirname,
        Func::Normalize,
        Func::Len,
        Func::Env,
        Func::Relpath,
        Func::Stem,
        Func::Extension,
        Func::Replace,
        Func::Join,
        Func::IfUnset,
    ];

    /// The name written in rules.
    pub fn as_str(self) -> &'static str {
        match self {
            Func::Shell => "shell",
            Func::Lower => "lower",
            Func::Upper => "upper",
            Func::Trim => "trim",
            Func::Basename => "basename",
            Func::Dirname => "dirname",
            Func::Normalize => "normalize",
            Func::Len => "len",
            Func::Env => "env",
            Func::Relpath => "relpath",
            Func::Stem => "stem",
            Func::Extension => "extension",
            Func::Replace => "replace",
            Func::Join => "join",
            Func::IfUnset => "if_unset",
        }
    }

    /// How many arguments it takes.
    pub fn arity(self) -> usize {
        match self {
            Func::Replace => 3,
            Func::Join => 2,
            _ => 1,
        }
    }

    /// How it is called and what it gives, in one line (for editors).
    pub fn doc(self) -> &'static str {
        match self {
            Func::Shell => "`shell(s)`: the simple commands of a shell command string, a list of objects (`program`, `args`, `flags`, `operands`, …)",
            Func::Lower => "`lower(s)`: lower case",
            Func::Upper => "`upper(s)`: upper case",
            Func::Trim => "`trim(s)`: without leading and trailing white space",
            Func::Basename => "`basename(s)`: the last segment of a path",
            Func::Dirname => "`dirname(s)`: the path without its last segment",
            Func::Normalize => "`normalize(s)`: the path lexically normalized (`a/../b` is `b`)",
            Func::Len => "`len(x)`: characters of a string, elements of a list, keys of an object",
            Func::Env => "`env(name)`: the host's environment variable, or `null`",
            Func::Relpath => "`relpath(p)`: the path relative to the host's project directory, or `null` outside it",
            Func::Stem => "`stem(p)`: the last segment of a path without its extension",
            Func::Extension => "`extension(p)`: the extension of a path, without its dot; empty when it has none",
            Func::Replace => "`replace(s, from, to)`: every `from` in `s` replaced by `to` (literal text; `rewrite` takes regexes)",
            Func::Join => "`join(base, p)`: `p` resolved against the directory `base`, as a shell resolves a relative path (`$PWD`, `${PWD}`, `$(pwd)` and `~+` name `base`)",
            Func::IfUnset => "`if_unset(w)`: the word as the shell expands it when the variables it names are unset (`$DIR/*` is `/*`, `${DIR:-/}` is `/`), `null` when the shell would stop (`${DIR:?}`); `HOME`, `PWD`, `OLDPWD`, `USER` and `LOGNAME` stay as written",
        }
    }

    /// The function written as `name`, if it is one.
    pub fn from_name(name: &str) -> Option<Func> {
        Func::ALL.into_iter().find(|f| f.as_str() == name)
    }
}

/// `rate("{component}:{payload.operation}") > 100 per 60s`: records the event
/// under its key and compares the number of the key's events in the window
/// (this one included) with the limit.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RateTest {
    /// The key, rendered per event.
    pub key: Template,
    /// The comparison.
    pub op: CmpOp,
    /// The number compared with.
    pub limit: f64,
    /// The window, in milliseconds.
    pub window_ms: u64,
    /// The counter: an index into [`Program::rates`](super::Program::rates). Tests with the same
    /// key template and window share one.
    pub counter: u32,
}

impl RateTest {
    /// How many arrivals per key the counter must keep to decide this test
    /// exactly: one more than the largest count the limit separates.
    pub fn keep(&self) -> u32 {
        // Limits are checked to be at most MAX_RATE_LIMIT.
        (self.limit.max(0.0).floor() as u32).saturating_add(1)
    }
}

/// The largest `rate(…)` limit: counters keep this many arrivals per key.
pub const MAX_RATE_LIMIT: f64 = 100_000.0;

/// One rate counter of a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateSpec {
    /// The window, in milliseconds.
    pub window_ms: u64,
    /// Arrivals kept per key.
    pub keep: u32,
}

/// A string with `{path}` holes, filled from the context when an action runs.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Template {
    /// Literal text and holes, in order.
    pub parts: Vec<TemplatePart>,
}

impl Template {
    /// A template with no holes.
    pub fn literal(text: impl Into<String>) -> Template {
        Template {
            parts: vec![TemplatePart::Lit(text.into())],
        }
    }

    /// The text, when the template has no holes.
    #[inline]
    pub fn as_literal(&self) -> Option<&str> {
        match self.parts.as_slice() {
            [] => Some(""),
            [TemplatePart::Lit(s)] => Some(s),
            _ => None,
        }
    }
}

/// One piece of a [`Template`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum TemplatePart {
    /// Literal text.
    Lit(String),
    /// A hole: the field's value (strings as is, other values as JSON).
    Path(FieldPath),
    /// A hole computed by an expression: a named group an earlier
    /// condition's regex captured ([`Expr::Capture`]) or a `let` name's
    /// value, shown as a path's is.
    Expr(Expr),
}
