//! Go to definition: where a list, pattern or macro is defined (in the
//! document or a file it imports), the file an `import` names, and the
//! rule an `override` names.

use super::analysis::Analysis;
use super::locate::{self, Found};
use super::position::LineIndex;
use crate::span::Span;
use crate::syntax::ast::Item;
use lsp_types::{Location, Range, Uri};

/// The definition of what is at byte `offset` of the document at `uri`.
pub(crate) fn definition(analysis: &Analysis, uri: &Uri, offset: usize) -> Option<Location> {
    let document = analysis.document()?;
    let found = locate::at(&document.ast, u32::try_from(offset).ok()?)?;
    let (file, span) = match found {
        Found::Name(name) | Found::Definition(name) => {
            let def = analysis.scopes.first()?.get(&name.name)?;
            let item = analysis
                .loaded
                .files
                .get(def.file)?
                .ast
                .items
                .get(def.item)?;
            let span = match item {
                Item::List(l) => l.name.span,
                Item::Pattern(p) => p.name.span,
                Item::Macro(m) => m.name.span,
                _ => return None,
            };
            (def.file, span)
        }
        Found::Import(_, nth) => {
            let file = (*document.imports.get(nth)?)?;
            (file, Span::default())
        }
        Found::Override(id) => {
            analysis
                .loaded
                .files
                .iter()
                .enumerate()
                .find_map(|(fi, file)| {
                    file.ast.items.iter().find_map(|item| match item {
                        Item::Hook(hook) if hook.id.name == id.name => Some((fi, hook.id.span)),
                        _ => None,
                    })
                })?
        }
        Found::Point(_) | Found::Path(..) | Found::Function(_) | Found::Schema(_) => return None,
    };
    location(analysis, uri, file, span)
}

/// The location of `span` in loaded file `file` (file 0 is the document at
/// `uri`; the others are named by their path).
fn location(analysis: &Analysis, uri: &Uri, file: usize, span: Span) -> Option<Location> {
    let loaded = analysis.loaded.files.get(file)?;
    let target = if file == 0 {
        uri.clone()
    } else {
        let path = loaded.path.as_ref()?;
        let path = path.canonicalize().unwrap_or_else(|_| path.clone());
        super::uri::from_path(&path)?
    };
    let text: &str = &loaded.source.text;
    let range: Range = LineIndex::new(text).range(text, span);
    Some(Location::new(target, range))
}
