//! The wire form of rules: their targets, conditions and origins.

use super::depth::DepthGuard;
use super::{actions, wire_of, Boxed, One, Opt, Seq, Wire};
use crate::{fql, ir};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// [`ir::Rule`], but for its id and priority: a point block holds those
/// in words, where dispatch reads them without decoding the rule.
#[derive(Serialize, Deserialize)]
#[serde(remote = "ir::Rule")]
pub(super) struct Rule {
    #[serde(skip)]
    id: String,
    #[serde(with = "One::<FqlPattern>")]
    target: fql::FqlPattern,
    #[serde(skip)]
    priority: i32,
    enabled: bool,
    #[serde(with = "One::<FailMode>")]
    fail: ir::FailMode,
    timeout_ms: Option<u64>,
    #[serde(with = "One::<Cond>")]
    cond: ir::Cond,
    #[serde(with = "Seq::<actions::Action>")]
    actions: Vec<ir::Action>,
    #[serde(with = "One::<Origin>")]
    origin: ir::Origin,
    #[serde(with = "Seq::<Origin>")]
    cond_origins: Vec<ir::Origin>,
    trigger: Option<u32>,
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
    Rule => ir::Rule,
    FailMode => ir::FailMode,
    Origin => ir::Origin,
    FqlPattern => fql::FqlPattern,
    FqlSegment => fql::Segment,
);
