//! The wire form of a point's indexes and matchers: the FQL index of its
//! rules and each field's matcher. The DFAs they
//! refer to are sections of their own, outside the program.

use super::expr::FieldPath;
use super::hash::StrMap;
use super::{wire_of, One, Seq};
use crate::ir;
use serde::{Deserialize, Serialize};

/// [`ir::FqlIndex`].
#[derive(Serialize, Deserialize)]
#[serde(remote = "ir::FqlIndex")]
pub(super) struct FqlIndex {
    #[serde(with = "One::<Keyed>")]
    exact: ir::Keyed,
    #[serde(with = "One::<Keyed>")]
    scope: ir::Keyed,
    #[serde(with = "One::<Keyed>")]
    target: ir::Keyed,
    #[serde(with = "One::<Bucket>")]
    any: ir::Bucket,
}

/// [`ir::Keyed`].
#[derive(Serialize, Deserialize)]
#[serde(remote = "ir::Keyed")]
pub(super) struct Keyed {
    #[serde(with = "One::<StrMap>")]
    map: ir::StrMap,
    #[serde(with = "Seq::<Bucket>")]
    buckets: Vec<ir::Bucket>,
}

/// [`ir::Bucket`].
#[derive(Serialize, Deserialize)]
#[serde(remote = "ir::Bucket")]
pub(super) struct Bucket {
    rules: Vec<u32>,
    untriggered: Vec<u32>,
    fields: u64,
}

/// [`ir::FieldMatcher`].
#[derive(Serialize, Deserialize)]
#[serde(remote = "ir::FieldMatcher")]
pub(super) struct FieldMatcher {
    #[serde(with = "One::<FieldPath>")]
    path: ir::FieldPath,
    bulk: Vec<u32>,
    #[serde(with = "One::<StrMap>")]
    eq: ir::StrMap,
    dfa: Option<u32>,
    dfa_atoms: Vec<u32>,
    literals: Vec<String>,
    literal_atoms: Vec<Vec<u32>>,
    literal_checks: Vec<Vec<u32>>,
}

wire_of!(
    FqlIndex => ir::FqlIndex,
    Keyed => ir::Keyed,
    Bucket => ir::Bucket,
    FieldMatcher => ir::FieldMatcher,
);
