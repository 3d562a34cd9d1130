//! Field paths: a root and its segments, read normalized where the schema
//! types the field as a `path` at every point of the rule.

use super::*;
use crate::ir::{FieldPath, Root, Segment};
use crate::schema::FieldType;

impl<'a> Lowerer<'a, '_> {
    /// The IR of a field path.
    pub(super) fn path(&self, p: &ast::Path) -> Option<FieldPath> {
        let root = Root::from_name(&p.root.name)?;
        let segments = p.segments.clone();
        // A field every point of the rule declares a `path` reads normalized.
        let normalized = root == Root::Payload && !self.points.is_empty() && {
            let fields: Option<Vec<&str>> = segments
                .iter()
                .map(|s| match s {
                    Segment::Field(f) => Some(f.as_str()),
                    Segment::Index(_) => None,
                })
                .collect();
            fields.is_some_and(|fields| {
                self.points.iter().all(|(point, _)| {
                    self.cx.schema.field_type(point, root.as_str(), &fields)
                        == Some(FieldType::Path)
                })
            })
        };
        Some(FieldPath {
            root,
            segments,
            normalized,
        })
    }
}
