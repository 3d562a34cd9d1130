//! The wire form of what conditions and values are made of: atoms,
//! expressions, field paths, templates, `rate(…)` tests, word-set tests
//! and regexes.
//!
//! JSON constants travel as JSON text (`json_text`): the encoding is not
//! self-describing, and serde_json's parser bounds their nesting.

use super::depth::DepthGuard;
use super::hash::StrMap;
use super::{wire_of, Boxed, Named, One, Seq, Wire};
use crate::ir;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// `#[serde(with = "json_text")]`: a JSON constant as its text.
pub(in crate::table::wire) mod json_text {
    use serde::{Deserialize, Deserializer, Serializer};
    use serde_json::Value;
    use std::borrow::Cow;

    pub(super) fn serialize<S: Serializer>(value: &Value, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&value.to_string())
    }

    pub(in crate::table::wire) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Value, D::Error> {
        let text = <Cow<'de, str>>::deserialize(d)?;
        if let Some(value) = plain(&text).or_else(|| plain_list(&text)) {
            return Ok(value);
        }
        serde_json::from_str(&text)
            .map_err(|e| super::super::depth::custom(format!("a JSON constant: {e}")))
    }

    /// A list of plain strings (`["rm","unlink"]`, as `Value`'s
    /// `Display` writes it), read without the JSON parser: a hook process
    /// decodes the lists of every rule its event reaches, a few hundred
    /// names on a Bash event. `None` for any other text (a string with an
    /// escape, a number, spaces), which the parser reads as always.
    pub(in crate::table::wire) fn plain_list(text: &str) -> Option<Value> {
        let mut rest = text.strip_prefix('[')?.strip_suffix(']')?;
        // One allocation: a comma per item but the last (or more, inside
        // the strings), rather than a copy at every doubling.
        let mut items = Vec::with_capacity(memchr::memchr_iter(b',', rest.as_bytes()).count() + 1);
        while !rest.is_empty() {
            let after = rest.strip_prefix('"')?;
            // One pass to the closing quote, refusing an escape or a control
            // character on the way: the names are a few bytes, where a
            // vector search costs more to set up than it saves.
            let end = after
                .bytes()
                .position(|b| b == b'"' || b == b'\\' || b < 0x20)?;
            // Sliced as text, not checked again: `text` is, and `end` is at
            // an ASCII byte, which always starts a character.
            let (item, after) = after.split_at_checked(end)?;
            if !after.starts_with('"') {
                return None;
            }
            items.push(Value::String(item.to_owned()));
            rest = match after.get(1..)? {
                "" => "",
                next => next.strip_prefix(',').filter(|next| !next.is_empty())?,
            };
        }
        Some(Value::Array(items))
    }

    /// The constants most rules hold, read without the JSON parser (a hook
    /// process decodes each atom it evaluates, and the parser's set-up
    /// costs more than these take): a string with nothing to unescape,
    /// `true`, `false`, `null`. `None` for anything else, which the parser
    /// reads (or rejects) as always; a string with a control character or
    /// a quote inside is not plain, so the parser rejects it as before.
    pub(in crate::table::wire) fn plain(text: &str) -> Option<Value> {
        match text {
            "true" => return Some(Value::Bool(true)),
            "false" => return Some(Value::Bool(false)),
            "null" => return Some(Value::Null),
            _ => {}
        }
        let inner = text.strip_prefix('"')?.strip_suffix('"')?;
        let is_plain = |b: &u8| *b >= 0x20 && *b != b'"' && *b != b'\\';
        inner
            .as_bytes()
            .iter()
            .all(is_plain)
            .then(|| Value::String(inner.to_string()))
    }
}

/// `#[serde(with = "json_list")]`: a list of JSON constants as the text of
/// a JSON array.
mod json_list {
    use serde::{Deserializer, Serializer};
    use serde_json::Value;

    pub(super) fn serialize<S: Serializer>(values: &[Value], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&Value::Array(values.to_vec()).to_string())
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Value>, D::Error> {
        match super::json_text::deserialize(d)? {
            Value::Array(items) => Ok(items),
            _ => Err(super::super::depth::custom(
                "a list of JSON constants is not a JSON array".to_string(),
            )),
        }
    }
}

/// [`ir::Root`].
#[derive(Serialize, Deserialize)]
#[serde(remote = "ir::Root")]
pub(super) enum Root {
    Payload,
    Metadata,
    Component,
    Child,
    Instance,
    Channel,
    Principal,
    Point,
    Depth,
    MaxDepth,
    TimestampMs,
}

/// [`ir::CmpOp`].
#[derive(Serialize, Deserialize)]
#[serde(remote = "ir::CmpOp")]
pub(super) enum CmpOp {
    Lt,
    Le,
    Gt,
    Ge,
}

/// [`ir::UnaryOp`].
#[derive(Serialize, Deserialize)]
#[serde(remote = "ir::UnaryOp")]
pub(super) enum UnaryOp {
    Not,
    Neg,
    BitNot,
}

/// [`ir::BinaryOp`].
#[derive(Serialize, Deserialize)]
#[serde(remote = "ir::BinaryOp")]
pub(super) enum BinaryOp {
    Or,
    And,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Contains,
    StartsWith,
    EndsWith,
    BitOr,
    BitXor,
    BitAnd,
    Shl,
    Shr,
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

/// [`ir::Quantifier`].
#[derive(Serialize, Deserialize)]
#[serde(remote = "ir::Quantifier")]
pub(super) enum Quantifier {
    Any,
    All,
}

/// [`ir::Func`].
#[derive(Serialize, Deserialize)]
#[serde(remote = "ir::Func")]
pub(super) enum Func {
    Shell,
    Lower,
    Upper,
    Trim,
    Basename,
    Dirname,
    Normalize,
    Len,
    Env,
    Relpath,
    Stem,
    Extension,
    Replace,
    Join,
    IfUnset,
}

/// [`ir::RegexId`].
#[derive(Serialize, Deserialize)]
#[serde(remote = "ir::RegexId")]
pub(super) struct RegexId(u32);

/// [`ir::Segment`].
#[derive(Serialize, Deserialize)]
#[serde(remote = "ir::Segment")]
pub(super) enum Segment {
    Field(String),
    Index(u32),
}

/// [`ir::FieldPath`].
#[derive(Serialize, Deserialize)]
#[serde(remote = "ir::FieldPath")]
pub(super) struct FieldPath {
    #[serde(with = "One::<Root>")]
    root: ir::Root,
    #[serde(with = "Seq::<Segment>")]
    segments: Vec<ir::Segment>,
    normalized: bool,
}

/// [`ir::RateSpec`].
#[derive(Serialize, Deserialize)]
#[serde(remote = "ir::RateSpec")]
pub(super) struct RateSpec {
    window_ms: u64,
    keep: u32,
}

/// [`ir::RateTest`].
#[derive(Serialize, Deserialize)]
#[serde(remote = "ir::RateTest")]
pub(super) struct RateTest {
    #[serde(with = "One::<Template>")]
    key: ir::Template,
    #[serde(with = "One::<CmpOp>")]
    op: ir::CmpOp,
    limit: f64,
    window_ms: u64,
    counter: u32,
}

/// [`ir::Template`].
#[derive(Serialize, Deserialize)]
#[serde(remote = "ir::Template")]
pub(super) struct Template {
    #[serde(with = "Seq::<TemplatePart>")]
    parts: Vec<ir::TemplatePart>,
}

/// [`ir::TemplatePart`].
#[derive(Serialize, Deserialize)]
#[serde(remote = "ir::TemplatePart")]
pub(super) enum TemplatePart {
    Lit(String),
    Path(#[serde(with = "One::<FieldPath>")] ir::FieldPath),
    Expr(#[serde(with = "One::<Expr>")] ir::Expr),
}

/// [`ir::Atom`]; JSON constants as their text.
#[derive(Serialize, Deserialize)]
#[serde(remote = "ir::Atom")]
pub(super) enum Atom {
    Eq(
        #[serde(with = "One::<FieldPath>")] ir::FieldPath,
        #[serde(with = "json_text")] Value,
    ),
    In(
        #[serde(with = "One::<FieldPath>")] ir::FieldPath,
        #[serde(with = "json_list")] Vec<Value>,
    ),
    Cmp(
        #[serde(with = "One::<FieldPath>")] ir::FieldPath,
        #[serde(with = "One::<CmpOp>")] ir::CmpOp,
        f64,
    ),
    Contains(
        #[serde(with = "One::<FieldPath>")] ir::FieldPath,
        #[serde(with = "json_text")] Value,
    ),
    ContainsAny(
        #[serde(with = "One::<FieldPath>")] ir::FieldPath,
        #[serde(with = "json_list")] Vec<Value>,
    ),
    StartsWith(#[serde(with = "One::<FieldPath>")] ir::FieldPath, String),
    EndsWith(#[serde(with = "One::<FieldPath>")] ir::FieldPath, String),
    Matches(
        #[serde(with = "One::<FieldPath>")] ir::FieldPath,
        #[serde(with = "One::<RegexId>")] ir::RegexId,
    ),
    Exists(#[serde(with = "One::<FieldPath>")] ir::FieldPath),
    Rate(#[serde(with = "One::<RateTest>")] ir::RateTest),
    Expr(#[serde(with = "One::<Expr>")] ir::Expr),
}

/// [`ir::Expr`], read behind the nesting limit ([`DepthGuard`]).
pub(super) struct Expr;

/// [`ir::Expr`]'s variants, constants as JSON text; [`Expr`] counts the
/// nesting around them.
#[derive(Serialize, Deserialize)]
#[serde(remote = "ir::Expr", rename = "Expr")]
enum ExprVariants {
    Const(#[serde(with = "json_text")] Value),
    Path(#[serde(with = "One::<FieldPath>")] ir::FieldPath),
    Template(#[serde(with = "One::<Template>")] ir::Template),
    Array(#[serde(with = "Seq::<Expr>")] Vec<ir::Expr>),
    Object(#[serde(with = "Named::<Expr>")] Vec<(String, ir::Expr)>),
    Unary(
        #[serde(with = "One::<UnaryOp>")] ir::UnaryOp,
        #[serde(with = "Boxed::<Expr>")] Box<ir::Expr>,
    ),
    Binary(
        #[serde(with = "One::<BinaryOp>")] ir::BinaryOp,
        #[serde(with = "Boxed::<Expr>")] Box<ir::Expr>,
        #[serde(with = "Boxed::<Expr>")] Box<ir::Expr>,
    ),
    In(
        #[serde(with = "Boxed::<Expr>")] Box<ir::Expr>,
        #[serde(with = "Boxed::<Expr>")] Box<ir::Expr>,
    ),
    ContainsAny(
        #[serde(with = "Boxed::<Expr>")] Box<ir::Expr>,
        #[serde(with = "Boxed::<Expr>")] Box<ir::Expr>,
    ),
    Matches(
        #[serde(with = "Boxed::<Expr>")] Box<ir::Expr>,
        #[serde(with = "One::<RegexId>")] ir::RegexId,
    ),
    Exists(#[serde(with = "One::<FieldPath>")] ir::FieldPath),
    Rate(#[serde(with = "One::<RateTest>")] ir::RateTest),
    Quantifier(
        #[serde(with = "One::<Quantifier>")] ir::Quantifier,
        #[serde(with = "Boxed::<Expr>")] Box<ir::Expr>,
        #[serde(with = "Boxed::<Expr>")] Box<ir::Expr>,
    ),
    Var(u32, #[serde(with = "Seq::<Segment>")] Vec<ir::Segment>),
    Call(
        #[serde(with = "One::<Func>")] ir::Func,
        #[serde(with = "Seq::<Expr>")] Vec<ir::Expr>,
    ),
    Capture(
        #[serde(with = "Boxed::<Expr>")] Box<ir::Expr>,
        #[serde(with = "One::<RegexId>")] ir::RegexId,
        String,
    ),
    WordsAny(
        #[serde(with = "Boxed::<Expr>")] Box<ir::Expr>,
        #[serde(with = "Boxed::<WordsTest>")] Box<ir::WordsTest>,
    ),
    Let(
        #[serde(with = "Boxed::<Expr>")] Box<ir::Expr>,
        #[serde(with = "Boxed::<Expr>")] Box<ir::Expr>,
    ),
    InSet(
        #[serde(with = "Boxed::<Expr>")] Box<ir::Expr>,
        #[serde(with = "Boxed::<StringSet>")] Box<ir::StringSet>,
    ),
}

/// [`ir::WordsTest`].
#[derive(Serialize, Deserialize)]
#[serde(remote = "ir::WordsTest")]
pub(super) struct WordsTest {
    #[serde(with = "One::<WordList>")]
    list: ir::WordList,
    #[serde(with = "One::<WordsForm>")]
    form: ir::WordsForm,
    #[serde(with = "One::<StringSet>")]
    set: ir::StringSet,
    short_flags: u64,
}

/// [`ir::StringSet`]: its strings one after another in one text, the
/// length of each, and its hash (read back with one allocation for the
/// text, however many strings it holds).
#[derive(Serialize, Deserialize)]
#[serde(remote = "ir::StringSet")]
pub(super) struct StringSet {
    #[serde(getter = "ir::StringSet::text")]
    text: String,
    #[serde(getter = "lens")]
    lens: Vec<u32>,
    #[serde(with = "One::<StrMap>")]
    hash: ir::StrMap,
}

/// Each string's length: what the set's ends are written as (a length
/// takes one byte where an end would take two or three).
fn lens(set: &ir::StringSet) -> Vec<u32> {
    let mut start = 0;
    set.ends()
        .iter()
        .map(|&end| {
            let len = end.saturating_sub(start);
            start = end;
            len
        })
        .collect()
}

impl From<StringSet> for ir::StringSet {
    fn from(set: StringSet) -> ir::StringSet {
        let mut end = 0u32;
        let ends = set
            .lens
            .iter()
            .map(|&len| {
                // An end past the text is refused by the validator.
                end = end.saturating_add(len);
                end
            })
            .collect();
        ir::StringSet::from_parts(set.text, ends, set.hash)
    }
}

/// [`ir::WordList`].
#[derive(Serialize, Deserialize)]
#[serde(remote = "ir::WordList")]
pub(super) enum WordList {
    Args,
    Flags,
    Operands,
    Assignments,
    Wrappers,
}

/// [`ir::WordsForm`].
#[derive(Serialize, Deserialize)]
#[serde(remote = "ir::WordsForm")]
pub(super) enum WordsForm {
    Contains,
    In,
    ContainsAny,
}

impl Wire<ir::Expr> for Expr {
    fn write<S: Serializer>(value: &ir::Expr, s: S) -> Result<S::Ok, S::Error> {
        ExprVariants::serialize(value, s)
    }

    fn read<'de, D: Deserializer<'de>>(d: D) -> Result<ir::Expr, D::Error> {
        let _guard = DepthGuard::enter::<D::Error>()?;
        ExprVariants::deserialize(d)
    }
}

wire_of!(
    Root => ir::Root,
    CmpOp => ir::CmpOp,
    UnaryOp => ir::UnaryOp,
    BinaryOp => ir::BinaryOp,
    Quantifier => ir::Quantifier,
    Func => ir::Func,
    RegexId => ir::RegexId,
    Segment => ir::Segment,
    FieldPath => ir::FieldPath,
    RateSpec => ir::RateSpec,
    RateTest => ir::RateTest,
    Template => ir::Template,
    TemplatePart => ir::TemplatePart,
    Atom => ir::Atom,
    WordsTest => ir::WordsTest,
    StringSet => ir::StringSet,
    WordList => ir::WordList,
    WordsForm => ir::WordsForm,
);
