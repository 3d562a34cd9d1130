//! What an edit wrote and what an atom reads: so that an edit forgets only
//! the memoized atoms whose value it can change.
//!
//! An edit names the part of the context it wrote as a [`Written`]: a path
//! below `payload` or `metadata` (a `meta` key, a `set`, a `rewrite`…), or a
//! whole root (`replace`). An atom reads the fields its [`FieldPath`]s name,
//! at any depth of its expression. A field is changed by a write to it, to a
//! parent of it (the parent replaced) or to a child of it (its value holds
//! the child), so two paths touch when one is a prefix of the other.
//!
//! Edits whose target is not known in advance (a command's reply, Lua, a
//! native hook, the host's [`EditApplication`](crate::schema::EditApplication))
//! forget everything instead ([`Scratch::invalidate`]).

use crate::ir::{Atom, Expr, FieldPath, Root, Segment, Template, TemplatePart};

/// The part of the context an edit wrote: `root`, then `key` (a metadata
/// key given as text), then `segments`; nothing after the root is the whole
/// root.
#[derive(Clone, Copy, Debug)]
pub(super) struct Written<'p> {
    root: Root,
    key: Option<&'p str>,
    segments: &'p [Segment],
}

/// One step of a path, whichever form it is written in.
#[derive(Clone, Copy, Debug)]
enum Step<'p> {
    Field(&'p str),
    Index(u32),
}

impl<'p> Step<'p> {
    fn of(segment: &'p Segment) -> Step<'p> {
        match segment {
            Segment::Field(name) => Step::Field(name),
            Segment::Index(i) => Step::Index(*i),
        }
    }

    /// False only when the two steps name different children: a name and
    /// an index are taken to meet (the cost of that is one memo entry).
    fn may_meet(self, other: Step<'_>) -> bool {
        match (self, other) {
            (Step::Field(a), Step::Field(b)) => a == b,
            (Step::Index(a), Step::Index(b)) => a == b,
            (Step::Field(_), Step::Index(_)) | (Step::Index(_), Step::Field(_)) => true,
        }
    }
}

impl<'p> Written<'p> {
    /// An edit of the field at `path` (`set`, `rewrite`, `prepend`,
    /// `append`).
    pub(super) fn path(path: &'p FieldPath) -> Written<'p> {
        Written {
            root: path.root,
            key: None,
            segments: &path.segments,
        }
    }

    /// An `unset` of `path`: removing an element from a list moves the
    /// elements after it, so the write is to the list.
    pub(super) fn removal(path: &'p FieldPath) -> Written<'p> {
        let segments = match path.segments.split_last() {
            Some((Segment::Index(_), list)) => list,
            _ => &path.segments,
        };
        Written {
            root: path.root,
            key: None,
            segments,
        }
    }

    /// `meta KEY = …`: the metadata key `key`.
    pub(super) fn meta(key: &'p str) -> Written<'p> {
        Written {
            root: Root::Metadata,
            key: Some(key),
            segments: &[],
        }
    }

    /// The whole of `root` (`replace` swaps the payload).
    pub(super) fn root(root: Root) -> Written<'static> {
        Written {
            root,
            key: None,
            segments: &[],
        }
    }

    fn steps(self) -> impl Iterator<Item = Step<'p>> {
        let key = self.key.map(Step::Field);
        key.into_iter().chain(self.segments.iter().map(Step::of))
    }

    /// The root written, as a bit ([`Root::bit`]).
    pub(super) fn root_bit(self) -> u32 {
        self.root.bit()
    }

    /// True when this write can change the value at `path`: same root, and
    /// one path a prefix of the other.
    pub(super) fn touches(self, path: &FieldPath) -> bool {
        path.root == self.root
            && path
                .segments
                .iter()
                .map(Step::of)
                .zip(self.steps())
                .all(|(read, wrote)| read.may_meet(wrote))
    }

    /// True when this write can change the value of `atom`.
    pub(super) fn changes(self, atom: &Atom) -> bool {
        match atom {
            Atom::Eq(path, _)
            | Atom::In(path, _)
            | Atom::Cmp(path, _, _)
            | Atom::Contains(path, _)
            | Atom::ContainsAny(path, _)
            | Atom::StartsWith(path, _)
            | Atom::EndsWith(path, _)
            | Atom::Matches(path, _)
            | Atom::Exists(path) => self.touches(path),
            // A counter counts an event once per dispatch: its count, and
            // so the test, is the same after any edit.
            Atom::Rate(_) => false,
            Atom::Expr(expr) => self.changes_expr(expr),
        }
    }

    fn changes_expr(self, expr: &Expr) -> bool {
        match expr {
            Expr::Path(path) | Expr::Exists(path) => self.touches(path),
            // A quantifier's variable is an element of its list, which the
            // quantifier's own operand reads; a count is per dispatch.
            Expr::Const(_) | Expr::Var(..) | Expr::Rate(_) => false,
            Expr::Template(template) => self.changes_template(template),
            Expr::Array(items) | Expr::Call(_, items) => {
                items.iter().any(|item| self.changes_expr(item))
            }
            Expr::Object(fields) => fields.iter().any(|(_, value)| self.changes_expr(value)),
            Expr::Unary(_, operand)
            | Expr::Matches(operand, _)
            | Expr::Capture(operand, ..)
            | Expr::WordsAny(operand, _)
            | Expr::InSet(operand, _) => self.changes_expr(operand),
            Expr::Binary(_, a, b)
            | Expr::In(a, b)
            | Expr::ContainsAny(a, b)
            | Expr::Quantifier(_, a, b)
            | Expr::Let(a, b) => self.changes_expr(a) || self.changes_expr(b),
        }
    }

    fn changes_template(self, template: &Template) -> bool {
        template.parts.iter().any(|part| match part {
            TemplatePart::Lit(_) => false,
            TemplatePart::Path(path) => self.touches(path),
            TemplatePart::Expr(expr) => self.changes_expr(expr),
        })
    }
}

/// The roots `atom` may read, one bit per [`Root`] ([`Root::bit`]): every
/// bit for an expression, which may read any. A `rate(…)` atom is handled
/// by its caller (its count does not change with edits).
pub(super) fn roots_read(atom: &Atom) -> u32 {
    atom.field().map_or(u32::MAX, |path| path.root.bit())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{BinaryOp, CmpOp};
    use serde_json::json;

    fn path(root: Root, segments: &[Segment]) -> FieldPath {
        FieldPath {
            root,
            segments: segments.to_vec(),
            normalized: false,
        }
    }

    fn field(name: &str) -> Segment {
        Segment::Field(name.to_string())
    }

    #[test]
    fn a_write_touches_its_path_its_parents_and_its_children() {
        let args = path(Root::Payload, &[field("args")]);
        let first = path(Root::Payload, &[field("args"), Segment::Index(0)]);
        let second = path(Root::Payload, &[field("args"), Segment::Index(1)]);
        let tool = path(Root::Payload, &[field("tool")]);
        let wrote = Written::path(&first);
        assert!(wrote.touches(&first));
        assert!(wrote.touches(&args), "the parent holds the element");
        assert!(!wrote.touches(&second));
        assert!(!wrote.touches(&tool));
        assert!(Written::path(&args).touches(&first), "the child is in it");
        assert!(Written::root(Root::Payload).touches(&tool));
        assert!(!Written::root(Root::Payload).touches(&path(Root::Metadata, &[])));
        // Removing an element moves the ones after it.
        assert!(Written::removal(&first).touches(&second));
        assert!(!Written::removal(&tool).touches(&args));
    }

    #[test]
    fn a_meta_key_touches_metadata_reads_of_that_key_only() {
        let wrote = Written::meta("seen");
        assert!(wrote.touches(&path(Root::Metadata, &[field("seen")])));
        assert!(wrote.touches(&path(Root::Metadata, &[field("seen"), field("at")])));
        assert!(wrote.touches(&path(Root::Metadata, &[])));
        assert!(!wrote.touches(&path(Root::Metadata, &[field("other")])));
        assert!(!wrote.touches(&path(Root::Payload, &[field("seen")])));
    }

    #[test]
    fn an_atom_reads_every_path_of_its_expression() {
        let tool = path(Root::Payload, &[field("tool")]);
        let cmd = path(Root::Payload, &[field("cmd")]);
        let size = path(Root::Payload, &[field("size")]);
        let compare = Atom::Expr(Expr::Binary(
            BinaryOp::Eq,
            Box::new(Expr::Path(tool.clone())),
            Box::new(Expr::Template(Template {
                parts: vec![
                    TemplatePart::Lit("x-".into()),
                    TemplatePart::Path(cmd.clone()),
                ],
            })),
        ));
        assert!(Written::path(&tool).changes(&compare));
        assert!(Written::path(&cmd).changes(&compare));
        assert!(!Written::path(&size).changes(&compare));
        assert!(!Written::meta("tool").changes(&compare));
        let field_atom = Atom::Cmp(size.clone(), CmpOp::Gt, 1.0);
        assert!(Written::path(&size).changes(&field_atom));
        assert!(!Written::path(&tool).changes(&field_atom));
        assert!(!Written::root(Root::Payload).changes(&Atom::Expr(Expr::Const(json!(true)))));
    }
}
