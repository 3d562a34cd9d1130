//! The wire form of rules: a head (target, condition) a dispatch decodes
//! for every candidate, and a body (actions, origins) decoded when the
//! rule fires.

use super::depth::DepthGuard;
use super::{actions, wire_of, Boxed, One, Opt, Seq, Wire};
use crate::{fql, ir};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The head of an [`ir::Rule`] as written: what a dispatch decodes for
/// every candidate. Its id and priority are in words of the point block;
/// the rest is the body ([`WrittenBody`]).
#[derive(Serialize)]
#[serde(remote = "ir::Rule")]
pub(super) struct WrittenHead {
    #[serde(with = "One::<FqlPattern>")]
    target: fql::FqlPattern,
    enabled: bool,
    #[serde(with = "One::<FailMode>")]
    fail: ir::FailMode,
    timeout_ms: Option<u64>,
    #[serde(with = "One::<Cond>")]
    cond: ir::Cond,
    trigger: Option<u32>,
}

/// [`RuleHead`](crate::table::rule::RuleHead) read back: the fields of
/// [`WrittenHead`], in its order.
#[derive(Deserialize)]
#[serde(remote = "crate::table::rule::RuleHead")]
pub(super) struct Head {
    #[serde(skip)]
    id: String,
    #[serde(with = "One::<FqlPattern>")]
    target: fql::FqlPattern,
    enabled: bool,
    #[serde(with = "One::<FailMode>")]
    fail: ir::FailMode,
    timeout_ms: Option<u64>,
    #[serde(with = "One::<Cond>")]
    cond: ir::Cond,
    trigger: Option<u32>,
}

/// The body of an [`ir::Rule`] as written: its actions and origins,
/// decoded when the rule fires.
#[derive(Serialize)]
#[serde(remote = "ir::Rule")]
pub(super) struct WrittenBody {
    #[serde(with = "Seq::<actions::Action>")]
    actions: Vec<ir::Action>,
    #[serde(with = "One::<Origin>")]
    origin: ir::Origin,
    #[serde(with = "Seq::<Origin>")]
    cond_origins: Vec<ir::Origin>,
}

/// [`RuleBody`](crate::table::rule::RuleBody) read back: the fields of
/// [`WrittenBody`], in its order.
#[derive(Deserialize)]
#[serde(remote = "crate::table::rule::RuleBody")]
pub(super) struct Body {
    #[serde(with = "Seq::<actions::Action>")]
    actions: Vec<ir::Action>,
    #[serde(with = "One::<Origin>")]
    origin: ir::Origin,
    #[serde(with = "Seq::<Origin>")]
    cond_origins: Vec<ir::Origin>,
}

/// A rule's head, written through [`WrittenHead`].
pub(super) struct HeadOf<'a>(pub(super) &'a ir::Rule);

impl Serialize for HeadOf<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        WrittenHead::serialize(self.0, s)
    }
}

/// A rule's body, written through [`WrittenBody`].
pub(super) struct BodyOf<'a>(pub(super) &'a ir::Rule);

impl Serialize for BodyOf<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        WrittenBody::serialize(self.0, s)
    }
}

/// [`ir::FailMode`].
#[derive(Serialize, Deserialize)]
#[serde(remote = "ir::FailMode")]
pub(super) enum FailMode {
    Open,
    Closed,
}

/// [`ir::Origin`].
#[derive(Serialize, Deserialize)]
#[serde(remote = "ir::Origin")]
pub(super) struct Origin {
    file: u32,
    line: u32,
    col: u32,
}

/// [`fql::FqlPattern`].
#[derive(Serialize, Deserialize)]
#[serde(remote = "fql::FqlPattern")]
pub(super) struct FqlPattern {
    #[serde(with = "One::<FqlSegment>")]
    scope: fql::Segment,
    #[serde(with = "One::<FqlSegment>")]
    target: fql::Segment,
    #[serde(with = "Opt::<FqlSegment>")]
    child: Option<fql::Segment>,
    #[serde(with = "Opt::<FqlSegment>")]
    instance: Option<fql::Segment>,
}

/// [`fql::Segment`].
#[derive(Serialize, Deserialize)]
#[serde(remote = "fql::Segment")]
pub(super) enum FqlSegment {
    Any,
    Exact(String),
}

/// [`ir::Cond`], read behind the nesting limit ([`DepthGuard`]).
pub(super) struct Cond;

/// [`ir::Cond`]'s variants; [`Cond`] counts the nesting around them.
#[derive(Serialize, Deserialize)]
#[serde(remote = "ir::Cond", rename = "Cond")]
enum CondVariants {
    True,
    Atom(u32),
    Not(#[serde(with = "Boxed::<Cond>")] Box<ir::Cond>),
    All(#[serde(with = "Seq::<Cond>")] Vec<ir::Cond>),
    Any(#[serde(with = "Seq::<Cond>")] Vec<ir::Cond>),
}

impl Wire<ir::Cond> for Cond {
    fn write<S: Serializer>(value: &ir::Cond, s: S) -> Result<S::Ok, S::Error> {
        CondVariants::serialize(value, s)
    }

    fn read<'de, D: Deserializer<'de>>(d: D) -> Result<ir::Cond, D::Error> {
        let _guard = DepthGuard::enter::<D::Error>()?;
        CondVariants::deserialize(d)
    }
}

wire_of!(
    FailMode => ir::FailMode,
    Origin => ir::Origin,
    FqlPattern => fql::FqlPattern,
    FqlSegment => fql::Segment,
);
