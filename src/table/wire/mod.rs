//! The wire form of what a table keeps as postcard blobs: the meta block
//! (the program's small parts, read whole at load), and each rule, atom
//! and field path of a point block (decoded the first time a dispatch
//! needs it). The indexes, the matchers and the rules' heads are laid out
//! in words instead ([`layout`](super::layout)).
//!
//! The IR ([`crate::ir`]) is the compiler's and the runtime's working
//! shape, free to change with them; these types are the format's, one per
//! IR type, each declaring the fields and variants the format holds, in
//! the order it holds them. Each is a serde *remote* definition of its IR
//! type (`#[serde(remote = "ir::Atom")]`): serde writes an IR value through
//! it and reads one back straight into the IR, with no copy in between. A
//! rule's body is written from [`ir::Rule`] and read back into the
//! table's [`RuleBody`] (`rules`); its head is words
//! ([`layout::head`](super::layout::head)), and
//! [`RuleHead::into_rule`](crate::table::rule::RuleHead::into_rule) makes
//! the two a rule again.
//! Bytes that decode but make no IR value (a JSON constant that does not
//! parse) are an error, never a panic.
//!
//! The rule: **the IR may change freely; a change of the wire types is a
//! format version.** The wire types name the IR's fields and variants, so
//! an IR change that the format does not follow does not compile: a field
//! or a variant added to the IR must be given a wire form here, a renamed
//! one renamed here, a changed type read through a conversion. Reordering
//! the IR changes nothing; adding, removing or reordering a wire field or
//! variant changes the bytes: bump [`VERSION`](super::encoding::VERSION)
//! and bless the golden tables (`tests/golden/`).
//!
//! By what they describe: the meta block (this module), rules' bodies
//! (`rules`), atoms and expressions (`expr`), actions
//! (`actions`), the perfect-hash maps of word-set tests (`hash`), the
//! schema's points (`schema`); `depth` bounds the nesting a crafted table
//! can make the decoder recurse through.

mod actions;
mod depth;
mod expr;
mod hash;
mod rules;
mod schema;
#[cfg(test)]
mod tests;

use crate::ir;
use crate::table::rule::RuleBody;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::marker::PhantomData;

/// The program's parts a load reads whole: its schema, the points that
/// have rules, the source files, the rate counters, what commands read.
/// Everything else of a program is laid out in words
/// ([`layout`](super::layout)) and read in place.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Meta {
    pub(crate) schema: String,
    #[serde(with = "Seq::<schema::SchemaPoint>")]
    pub(crate) schema_points: Vec<ir::SchemaPoint>,
    /// The points that have rules, sorted by name, parallel to the
    /// program's point blocks.
    #[serde(with = "Seq::<PointHeadWire>")]
    pub(crate) points: Vec<PointHead>,
    pub(crate) files: Vec<String>,
    #[serde(with = "Seq::<expr::RateSpec>")]
    pub(crate) rates: Vec<ir::RateSpec>,
    #[serde(with = "One::<schema::CommandInput>")]
    pub(crate) command_input: crate::schema::CommandInput,
    pub(crate) source_digest: String,
}

/// A point with rules, as the meta block lists it: what a load knows of
/// it before reading its block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PointHead {
    /// The point's dotted name.
    pub(crate) name: String,
    /// Pre, post or event.
    pub(crate) kind: crate::schema::PointKind,
    /// How its host applies an edit before the next rule.
    pub(crate) edits: crate::schema::EditApplication,
    /// Its rules, atoms and fields: what a scratch is sized for.
    pub(crate) rules: u32,
    pub(crate) atoms: u32,
    pub(crate) fields: u32,
}

/// [`PointHead`].
#[derive(Serialize, Deserialize)]
#[serde(remote = "PointHead")]
struct PointHeadWire {
    name: String,
    #[serde(with = "One::<schema::PointKind>")]
    kind: crate::schema::PointKind,
    #[serde(with = "One::<schema::EditApplication>")]
    edits: crate::schema::EditApplication,
    rules: u32,
    atoms: u32,
    fields: u32,
}

wire_of!(PointHeadWire => PointHead);

/// Writes the meta block.
pub(super) fn write_meta(meta: &Meta) -> Vec<u8> {
    to_bytes(meta)
}

/// Reads the meta block.
pub(super) fn read_meta(bytes: &[u8]) -> Result<Meta, String> {
    from_bytes(bytes, |d| Meta::deserialize(d))
}

/// Writes a rule's body: its actions and origins.
pub(super) fn write_rule_body(rule: &ir::Rule) -> Vec<u8> {
    to_bytes(&rules::BodyOf(rule))
}

/// Reads a body written by [`write_rule_body`].
pub(super) fn read_rule_body(bytes: &[u8]) -> Result<RuleBody, String> {
    from_bytes(bytes, |d| rules::Body::deserialize(d))
}

/// Writes an atom.
pub(super) fn write_atom(atom: &ir::Atom) -> Vec<u8> {
    to_bytes(&Written::<expr::Atom, _>(atom, PhantomData))
}

/// Reads an atom.
pub(super) fn read_atom(bytes: &[u8]) -> Result<ir::Atom, String> {
    from_bytes(bytes, |d| expr::Atom::deserialize(d))
}

/// Writes a field path.
pub(super) fn write_path(path: &ir::FieldPath) -> Vec<u8> {
    to_bytes(&Written::<expr::FieldPath, _>(path, PhantomData))
}

/// Reads a field path.
pub(super) fn read_path(bytes: &[u8]) -> Result<ir::FieldPath, String> {
    from_bytes(bytes, |d| expr::FieldPath::deserialize(d))
}

fn to_bytes(value: &impl Serialize) -> Vec<u8> {
    // Serializing plain data into a Vec cannot fail; an empty blob does
    // not read back, so nothing is lost silently either way.
    postcard::to_allocvec(value).unwrap_or_default()
}

/// Reads one value that fills `bytes` exactly, behind the nesting limit.
fn from_bytes<'de, T>(
    bytes: &'de [u8],
    read: impl FnOnce(
        &mut postcard::Deserializer<'de, postcard::de_flavors::Slice<'de>>,
    ) -> postcard::Result<T>,
) -> Result<T, String> {
    let mut de = postcard::Deserializer::from_bytes(bytes);
    let value = depth::with_limit(|| read(&mut de)).map_err(|(e, message)| match message {
        Some(message) => message,
        None => e.to_string(),
    })?;
    match de.finalize() {
        Ok([]) => Ok(value),
        Ok(rest) => Err(format!("{} bytes after the value", rest.len())),
        Err(e) => Err(e.to_string()),
    }
}

/// How the values of one IR type are written: implemented by the wire
/// type that describes it, so the containers below can hold it.
trait Wire<T> {
    fn write<S: Serializer>(value: &T, s: S) -> Result<S::Ok, S::Error>;
    fn read<'de, D: Deserializer<'de>>(d: D) -> Result<T, D::Error>;
}

/// `impl Wire<ir::T> for T` by serde's remote functions.
macro_rules! wire_of {
    ($($wire:ident => $ir:ty),+ $(,)?) => {$(
        impl $crate::table::wire::Wire<$ir> for $wire {
            fn write<S: serde::Serializer>(value: &$ir, s: S) -> Result<S::Ok, S::Error> {
                $wire::serialize(value, s)
            }

            fn read<'de, D: serde::Deserializer<'de>>(d: D) -> Result<$ir, D::Error> {
                $wire::deserialize(d)
            }
        }
    )+};
}
use wire_of;

/// A value written through its wire type `W`.
struct Written<'a, W, T>(&'a T, PhantomData<W>);

impl<W: Wire<T>, T> Serialize for Written<'_, W, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        W::write(self.0, s)
    }
}

/// A value read through its wire type `W`.
struct Read<W, T>(T, PhantomData<W>);

impl<'de, W: Wire<T>, T> Deserialize<'de> for Read<W, T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        W::read(d).map(|value| Read(value, PhantomData))
    }
}

/// `#[serde(with = "One::<W>")]`: a field of the IR type `W` describes.
struct One<W>(PhantomData<W>);

impl<W> One<W> {
    fn serialize<T, S: Serializer>(value: &T, s: S) -> Result<S::Ok, S::Error>
    where
        W: Wire<T>,
    {
        W::write(value, s)
    }

    fn deserialize<'de, T, D: Deserializer<'de>>(d: D) -> Result<T, D::Error>
    where
        W: Wire<T>,
    {
        W::read(d)
    }
}

/// `#[serde(with = "Seq::<W>")]`: a list.
struct Seq<W>(PhantomData<W>);

impl<W> Seq<W> {
    fn serialize<T, S: Serializer>(items: &[T], s: S) -> Result<S::Ok, S::Error>
    where
        W: Wire<T>,
    {
        s.collect_seq(items.iter().map(|item| Written::<W, T>(item, PhantomData)))
    }

    fn deserialize<'de, T, D: Deserializer<'de>>(d: D) -> Result<Vec<T>, D::Error>
    where
        W: Wire<T>,
    {
        d.deserialize_seq(SeqVisitor::<W, T>(PhantomData))
    }
}

/// Reads a list's items through `W` straight into the list: a `Vec` of
/// [`Read`] wrappers unwrapped afterwards moved every rule and atom twice
/// (8 % of a load's instructions).
struct SeqVisitor<W, T>(PhantomData<(W, T)>);

impl<'de, W: Wire<T>, T> serde::de::Visitor<'de> for SeqVisitor<W, T> {
    type Value = Vec<T>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a list")
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
        // The length comes from the bytes: reserve no more than a megabyte
        // up front, as serde does, so a corrupt length cannot exhaust memory.
        let cap = seq
            .size_hint()
            .unwrap_or(0)
            .min((1 << 20) / std::mem::size_of::<T>().max(1));
        let mut items = Vec::with_capacity(cap);
        while let Some(item) = seq.next_element_seed(ReadSeed::<W, T>(PhantomData))? {
            items.push(item);
        }
        Ok(items)
    }
}

/// One item read through `W`.
struct ReadSeed<W, T>(PhantomData<(W, T)>);

impl<'de, W: Wire<T>, T> serde::de::DeserializeSeed<'de> for ReadSeed<W, T> {
    type Value = T;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<T, D::Error> {
        W::read(d)
    }
}

/// `#[serde(with = "Boxed::<W>")]`: a boxed value.
struct Boxed<W>(PhantomData<W>);

impl<W> Boxed<W> {
    #[expect(clippy::borrowed_box, reason = "serde passes the field as it is")]
    fn serialize<T, S: Serializer>(value: &Box<T>, s: S) -> Result<S::Ok, S::Error>
    where
        W: Wire<T>,
    {
        W::write(value, s)
    }

    fn deserialize<'de, T, D: Deserializer<'de>>(d: D) -> Result<Box<T>, D::Error>
    where
        W: Wire<T>,
    {
        W::read(d).map(Box::new)
    }
}

/// `#[serde(with = "Named::<W>")]`: a list of named values.
struct Named<W>(PhantomData<W>);

impl<W> Named<W> {
    fn serialize<T, S: Serializer>(items: &[(String, T)], s: S) -> Result<S::Ok, S::Error>
    where
        W: Wire<T>,
    {
        s.collect_seq(
            items
                .iter()
                .map(|(name, value)| (name, Written::<W, T>(value, PhantomData))),
        )
    }

    fn deserialize<'de, T, D: Deserializer<'de>>(d: D) -> Result<Vec<(String, T)>, D::Error>
    where
        W: Wire<T>,
    {
        let items = Vec::<(String, Read<W, T>)>::deserialize(d)?;
        Ok(items
            .into_iter()
            .map(|(name, value)| (name, value.0))
            .collect())
    }
}
