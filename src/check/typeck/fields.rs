//! Field paths: roots, the schema's declared payload fields, and
//! suggestions for a misspelled one.

use super::*;

impl<'a> TypeChecker<'a, '_> {
    /// Checks a path (a known root, fields only where the root has them)
    /// and returns its type.
    pub(super) fn path(&mut self, p: &ast::Path) -> Option<Ty> {
        let Some(root) = Root::from_name(&p.root.name) else {
            let roots: Vec<&str> = Root::ALL.iter().map(|r| r.as_str()).collect();
            let mut d = self.error(
                "unknown-field",
                format!("unknown context field `{}`", p.root.name),
                p.root.span,
                "not a field of the hook context",
            );
            d = match suggest(&p.root.name, roots.iter().copied()) {
                Some(s) => d.with_suggestion(p.root.span, s),
                None => d.with_help(format!("paths start with one of: {}", roots.join(", "))),
            };
            self.emit(d);
            return None;
        };
        let segments = p.segments.as_slice();
        let scalar = !matches!(root, Root::Payload | Root::Metadata | Root::Principal);
        let principal_ok = root != Root::Principal
            || matches!(segments, [] | [ir::Segment::Field(_)])
                && segments
                    .iter()
                    .all(|s| matches!(s, ir::Segment::Field(f) if f == "type" || f == "id"));
        if (scalar && !segments.is_empty()) || !principal_ok {
            let d = self
                .error(
                    "unknown-field",
                    format!(
                        "`{}` has no field `{}`",
                        root.as_str(),
                        display_segments(segments)
                    ),
                    p.span,
                    "no such field",
                )
                .with_help(if root == Root::Principal {
                    "`principal` has `type` and `id`".to_string()
                } else {
                    format!("`{}` is a single value", root.as_str())
                });
            self.emit(d);
            return None;
        }
        let fields: Vec<&str> = segments
            .iter()
            .map_while(|s| match s {
                ir::Segment::Field(f) => Some(f.as_str()),
                ir::Segment::Index(_) => None,
            })
            .collect();
        if root == Root::Payload && !fields.is_empty() {
            self.check_payload_field(&fields, p.span);
        }
        let ty = if fields.len() == segments.len() {
            let mut types = self
                .points
                .iter()
                .map(|(point, _)| self.schema.field_type(point, root.as_str(), &fields));
            match types.next() {
                Some(Some(first)) if types.all(|t| t == Some(first)) => Ty::from_field(first),
                _ => Ty::Any,
            }
        } else {
            Ty::Any
        };
        Some(ty)
    }

    /// Warns (`unknown-field`) when the schema declares the payload of a
    /// point of the rule and `payload.<fields>` is not part of it.
    pub(super) fn check_payload_field(&mut self, fields: &[&str], span: Span) {
        let unknown: Vec<&str> = self
            .points
            .iter()
            .filter(|(point, _)| self.schema.payload_field(point, fields) == FieldLookup::Unknown)
            .map(|(point, _)| point.as_str())
            .collect();
        let Some(first) = unknown.first().copied() else {
            return;
        };
        let shown = format!("payload.{}", fields.join("."));
        let at = unknown
            .iter()
            .map(|p| format!("`{p}`"))
            .collect::<Vec<_>>()
            .join(", ");
        let mut d = Diagnostic::warning("unknown-field", format!("unknown field `{shown}`"))
            .in_file(&self.src().source)
            .with_primary(
                span,
                format!("not declared at {at} by the `{}` schema", self.schema.name),
            );
        // The path is replaced whole, so only when it is written plainly
        // (`payload.a.b`, no index or quoted key).
        let plain = self.src().source.slice(span) == shown;
        d = match self.suggest_field(first, fields) {
            Some(s) if plain => d.with_suggestion(span, s),
            Some(s) => d.with_help(format!("did you mean `{s}`?")),
            None => d.with_help(format!(
                "the `{}` schema does not declare it at {at}, so it reads as null there",
                self.schema.name
            )),
        };
        // A macro used by several rules reports its field once: the
        // checker drops repeats when it is done (`dedup_unknown_fields`).
        self.emit(d);
    }

    /// A declared path close to `payload.<fields>` at `point`: the first
    /// field the schema does not know, swapped for its closest sibling.
    pub(super) fn suggest_field(&self, point: &str, fields: &[&str]) -> Option<String> {
        let def = self.schema.point(point)?;
        let known = |n: usize| -> bool {
            let Some(prefix) = fields.get(..n) else {
                return false;
            };
            def.payload
                .iter()
                .any(|f| f.path.split('.').eq(prefix.iter().copied()))
        };
        // The longest declared prefix is the parent of the misspelt field.
        let parent_len = (1..fields.len()).take_while(|&n| known(n)).count();
        let parent = fields.get(..parent_len)?;
        let typo = fields.get(parent_len)?;
        let siblings: Vec<&str> = def
            .payload
            .iter()
            .filter_map(|f| {
                let mut parts = f.path.split('.');
                let head: Vec<&str> = parts.by_ref().take(parent_len).collect();
                let name = parts.next()?;
                (head.as_slice() == parent && parts.next().is_none()).then_some(name)
            })
            .collect();
        let best = suggest(typo, siblings.iter().copied())?;
        let mut out: Vec<&str> = vec!["payload"];
        out.extend_from_slice(parent);
        out.push(best);
        out.extend_from_slice(fields.get(parent_len + 1..).unwrap_or_default());
        Some(out.join("."))
    }

    /// The schema's word on an edited payload field: its type, whether it is
    /// optional, and a point that types it.
    pub(super) fn declared(&self, path: &FieldPath) -> Option<(FieldType, bool, String)> {
        if path.root != Root::Payload {
            return None;
        }
        let fields: Vec<&str> = path
            .segments
            .iter()
            .map(|s| match s {
                ir::Segment::Field(f) => Some(f.as_str()),
                ir::Segment::Index(_) => None,
            })
            .collect::<Option<_>>()?;
        let mut found: Option<(FieldType, bool, String)> = None;
        for (point, _) in &self.points {
            match self.schema.payload_field(point, &fields) {
                FieldLookup::Known(def) => match &mut found {
                    None => found = Some((def.ty, def.optional, point.clone())),
                    Some((ty, optional, _)) => {
                        if *ty != def.ty {
                            return None;
                        }
                        *optional |= def.optional;
                    }
                },
                _ => return None,
            }
        }
        found.filter(|(ty, _, _)| *ty != FieldType::Any)
    }
}
