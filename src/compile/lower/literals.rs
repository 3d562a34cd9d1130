//! Regexes, globs and templates: interned, and split into their parts.

use super::*;
use crate::check::typeck::hole_path;
use crate::ir::{FieldPath, Root, Template, TemplatePart};

impl<'a> Lowerer<'a, '_> {
    /// The id of a regex literal or of the regex a `pattern` name holds.
    pub(super) fn regex_ref(&mut self, re: &ast::RegexRef) -> Option<RegexId> {
        let lit = match re {
            ast::RegexRef::Literal(lit) => lit,
            ast::RegexRef::Name(name) => {
                let def = self.scope.get(&name.name).copied()?;
                match self.def_file(def)?.ast.items.get(def.item) {
                    Some(ast::Item::Pattern(p)) if def.kind == DefKind::Pattern => &p.regex,
                    _ => return None,
                }
            }
        };
        Some(self.regexes.intern(RegexSource {
            pattern: lit.pattern.clone(),
            flags: lit.flags.clone(),
        }))
    }

    /// The id of the regex a glob compiles to.
    pub(super) fn glob(&mut self, glob: &ast::StrLit) -> Option<RegexId> {
        let source = self.cx.catalog.globs.get(&glob.value)?;
        Some(self.regexes.intern(source.clone()))
    }

    /// Splits a string literal into a template: `{path}` holes, `{{`/`}}` for
    /// braces; a hole naming a capture or a `let` reads its value.
    pub(super) fn template(&mut self, lit: &ast::StrLit) -> Option<Template> {
        let mut parts = Vec::new();
        let mut text = String::new();
        let mut rest = lit.value.as_str();
        while let Some(i) = rest.find(['{', '}']) {
            let (before, after) = rest.split_at(i);
            text.push_str(before);
            if let Some(tail) = after.strip_prefix("{{") {
                text.push('{');
                rest = tail;
            } else if let Some(tail) = after.strip_prefix("}}") {
                text.push('}');
                rest = tail;
            } else {
                let tail = after.strip_prefix('{')?;
                let close = tail.find('}')?;
                let hole = tail.get(..close).unwrap_or("").trim();
                let part = match self.capture(hole) {
                    Some(value) => TemplatePart::Expr(value),
                    None => TemplatePart::Path(self.template_path(hole)?),
                };
                if !text.is_empty() {
                    parts.push(TemplatePart::Lit(std::mem::take(&mut text)));
                }
                parts.push(part);
                rest = tail.get(close + 1..).unwrap_or("");
            }
        }
        text.push_str(rest);
        if !text.is_empty() || parts.is_empty() {
            parts.push(TemplatePart::Lit(text));
        }
        Some(Template { parts })
    }

    /// The field path of a template hole. A template quotes the event as
    /// it is: a `path` field shows as the agent wrote it, though conditions
    /// compare it normalized.
    fn template_path(&self, hole: &str) -> Option<FieldPath> {
        let (root, segments) = hole_path(hole).ok()?;
        Some(FieldPath {
            root: Root::from_name(root)?,
            segments,
            normalized: false,
        })
    }
}
