//! The wire form of a rule's body (actions, origins), decoded when the
//! rule fires. Its head (target, condition) is laid out in words
//! ([`layout::head`](crate::table::layout::head)).

use super::{actions, wire_of, One, Seq};
use crate::ir;
use serde::{Deserialize, Serialize, Serializer};

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

/// [`ir::Origin`].
#[derive(Serialize, Deserialize)]
#[serde(remote = "ir::Origin")]
pub(super) struct Origin {
    file: u32,
    line: u32,
    col: u32,
}

wire_of!(Origin => ir::Origin);
