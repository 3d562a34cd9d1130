//! The wire form of what a table records of its schema: every point with
//! its kind and how its host applies edits, and what command hooks read.

use super::{wire_of, One};
use crate::{ir, schema};
use serde::{Deserialize, Serialize};

/// [`ir::SchemaPoint`].
#[derive(Serialize, Deserialize)]
#[serde(remote = "ir::SchemaPoint")]
pub(super) struct SchemaPoint {
    name: String,
    #[serde(with = "One::<PointKind>")]
    kind: schema::PointKind,
    #[serde(with = "One::<EditApplication>")]
    edits: schema::EditApplication,
}

/// [`schema::PointKind`].
#[derive(Serialize, Deserialize)]
#[serde(remote = "schema::PointKind")]
pub(super) enum PointKind {
    Pre,
    Post,
    Event,
}

/// [`schema::CommandInput`].
#[derive(Serialize, Deserialize)]
#[serde(remote = "schema::CommandInput")]
pub(super) enum CommandInput {
    Context,
    Payload,
}

/// [`schema::EditApplication`].
#[derive(Serialize, Deserialize)]
#[serde(remote = "schema::EditApplication")]
pub(super) enum EditApplication {
    AsEdited,
    Mirror { text: String, field: String },
    Json { text: String, field: String },
    Ignore { text: String },
}

wire_of!(
    SchemaPoint => ir::SchemaPoint,
    PointKind => schema::PointKind,
    CommandInput => schema::CommandInput,
    EditApplication => schema::EditApplication,
);
