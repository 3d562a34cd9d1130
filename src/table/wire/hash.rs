//! The wire form of the perfect-hash maps from strings that the matchers
//! and the word-set tests of expressions look strings up in.

use super::wire_of;
use crate::ir;
use serde::{Deserialize, Serialize};

/// [`ir::StrMap`].
#[derive(Serialize, Deserialize)]
#[serde(remote = "ir::StrMap")]
pub(super) struct StrMap {
    keys: Vec<String>,
    values: Vec<Vec<u32>>,
    hash_key: u64,
    disps: Vec<(u32, u32)>,
    map: Vec<u32>,
}

wire_of!(StrMap => ir::StrMap);
