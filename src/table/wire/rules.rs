//! The wire form of rules: a head (target, condition) a dispatch decodes
//! for every candidate, and a body (actions, origins) decoded when the
//! rule fires.

use super::depth::DepthGuard;
use super::{actions, wire_of, Boxed, One, Opt, Seq, Wire};
use crate::{fql, ir};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// One part of a rule in the format, from one list of its fields:
/// `$written` writes the part of an [`ir::Rule`] (serde's remote derive;
/// `$of` wraps a rule to write), `$read` reads it back into the table's
/// `$part`. One list, so that the two sides cannot name other fields or
/// put them in another order. The `skipped` fields of `$part` are not in
/// the blob (a rule's id is in words of the point block).
macro_rules! rule_part {
    (
        $(#[$doc:meta])*
        $of:ident, $written:ident, $read:ident => $part:literal,
        skipped { $($skip:ident: $skip_ty:ty),* $(,)? },
        fields { $($(#[$attr:meta])* $field:ident: $ty:ty),+ $(,)? }
    ) => {
        $(#[$doc])*
        pub(super) struct $of<'a>(pub(super) &'a ir::Rule);

        impl Serialize for $of<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                $written::serialize(self.0, s)
            }
        }

        #[derive(Serialize)]
        #[serde(remote = "ir::Rule")]
        struct $written {
            $($(#[$attr])* $field: $ty,)+
        }

        #[derive(Deserialize)]
        #[serde(remote = $part)]
        pub(super) struct $read {
            $(#[serde(skip)] $skip: $skip_ty,)*
            $($(#[$attr])* $field: $ty,)+
        }
    };
}

rule_part! {
    /// A rule's head, to write: what a dispatch decodes for every
    /// candidate. Read back by `Head` into
    /// [`RuleHead`](crate::table::rule::RuleHead).
    HeadOf, WrittenHead, Head => "crate::table::rule::RuleHead",
    skipped { id: String },
    fields {
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
}

rule_part! {
    /// A rule's body, to write: its actions and origins, decoded when the
    /// rule fires. Read back by `Body` into
    /// [`RuleBody`](crate::table::rule::RuleBody).
    BodyOf, WrittenBody, Body => "crate::table::rule::RuleBody",
    skipped {},
    fields {
        #[serde(with = "Seq::<actions::Action>")]
        actions: Vec<ir::Action>,
        #[serde(with = "One::<Origin>")]
        origin: ir::Origin,
        #[serde(with = "Seq::<Origin>")]
        cond_origins: Vec<ir::Origin>,
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
