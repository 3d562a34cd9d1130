//! Completion: what may be written at the cursor.
//!
//! The context is read from the text before the cursor, so completion works
//! in a line being typed, which does not parse yet:
//!
//! - after `hook ID on` (and after each `,` of the points): the points of
//!   the document's schema;
//! - after `payload.` and deeper: the fields the schema declares below that
//!   path, at the points of the rule being written (at any point outside a
//!   rule); after `principal.`: `type` and `id`; after `c.` where the rule
//!   reads `any c in shell(…)`: the fields of a command (and of a
//!   redirection for `any r in c.redirects`);
//! - after `override`: the ids of the rules compiled with the document;
//! - inside `import "`: the `.hooks` files beside the document (and in the
//!   directory typed so far);
//! - after `schema`: the built-in schemas; after `fail`: `open`, `closed`;
//!   after `log`: the levels (a name with a `-`, such as a rule id after
//!   `override` or `claude-code`, is replaced whole);
//! - a word at the start of an unindented line: the keywords that start an
//!   item;
//! - any other word: the lists, patterns and macros the document sees
//!   (imports included), the context fields, the functions and the keywords.
//!
//! Nothing is offered inside a comment or another string.

use super::analysis::Analysis;
use super::keywords;
use super::locate::variable_fields;
use super::position::LineIndex;
use crate::ir::{Func, Root};
use lsp_types::{
    CompletionItem, CompletionItemKind, CompletionTextEdit, Documentation, MarkupContent,
    MarkupKind, Position, Range, TextEdit,
};
use std::path::Path;

/// The most `.hooks` files offered after `import "`.
const MAX_FILES: usize = 200;

/// The completions at byte `offset` of the document, whose file is at
/// `path` (if it is a file).
pub(crate) fn complete(
    analysis: &Analysis,
    lines: &LineIndex,
    offset: usize,
    path: Option<&Path>,
) -> Vec<CompletionItem> {
    let Some(document) = analysis.document() else {
        return Vec::new();
    };
    let text: &str = &document.source.text;
    let offset = offset.min(text.len());
    let line_start = text
        .get(..offset)
        .and_then(|t| t.rfind('\n'))
        .map_or(0, |i| i + 1);
    let Some(line) = text.get(line_start..offset) else {
        return Vec::new();
    };
    let cursor = lines.position(text, offset);
    if let Some(typed) = import_prefix(line) {
        return import_files(path, typed, cursor);
    }
    if super::locate::in_string_or_comment(line) {
        return Vec::new();
    }
    // The word being typed, dots included (`payload.tool_input.com`).
    let word_len = line
        .chars()
        .rev()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '.')
        .map(char::len_utf8)
        .sum::<usize>();
    let before = line.get(..line.len() - word_len).unwrap_or("");
    let word = line.get(line.len() - word_len..).unwrap_or("");
    let partial = word.rsplit('.').next().unwrap_or("");
    // The range of the last `typed` characters before the cursor.
    let ending = |typed: &str| {
        Range::new(
            Position::new(
                cursor.line,
                cursor.character.saturating_sub(utf16_len(typed)),
            ),
            cursor,
        )
    };
    let item = |label: &str,
                kind: CompletionItemKind,
                detail: Option<String>,
                doc: Option<String>,
                range: Range| CompletionItem {
        label: label.to_owned(),
        kind: Some(kind),
        detail,
        documentation: doc.map(markdown),
        text_edit: Some(CompletionTextEdit::Edit(TextEdit::new(
            range,
            label.to_owned(),
        ))),
        ..CompletionItem::default()
    };
    // Fields (of the schema, or of a quantifier's variable), each replacing
    // the part typed after the last dot.
    let field_items = |found: Vec<(String, String)>| -> Vec<CompletionItem> {
        found
            .into_iter()
            .map(|(name, ty)| {
                item(
                    &name,
                    CompletionItemKind::FIELD,
                    Some(ty),
                    None,
                    ending(partial),
                )
            })
            .collect()
    };
    if in_point_list(before) {
        return analysis
            .schema
            .points
            .iter()
            .map(|p| {
                item(
                    &p.name,
                    CompletionItemKind::EVENT,
                    Some(format!("{} point", p.kind)),
                    Some(super::hover::point_doc(&analysis.schema, p)),
                    ending(word),
                )
            })
            .collect();
    }
    let rule = rule_start(text, line_start);
    if let Some((root, parents)) = field_prefix(word) {
        let points = rule_points(text, rule);
        return field_items(fields(analysis, root, &parents, &points));
    }
    if let Some((var, rest)) = word.split_once('.') {
        if rest.contains('.') {
            return Vec::new();
        }
        // `c.` of a quantifier's variable.
        let before_cursor = rule.and_then(|s| text.get(s..offset)).unwrap_or("");
        return field_items(variable_fields(before_cursor, var));
    }
    // Names with a `-` (rule ids, schemas): the whole name typed after the
    // keyword is replaced.
    if let Some(typed) = after_keyword(line, "override") {
        return rule_ids(analysis)
            .into_iter()
            .map(|(id, header)| {
                item(
                    &id,
                    CompletionItemKind::REFERENCE,
                    Some(header),
                    None,
                    ending(typed),
                )
            })
            .collect();
    }
    if let Some(typed) = after_keyword(line, "schema") {
        return crate::systems::BUILTIN_SCHEMAS
            .iter()
            .map(|name| item(name, CompletionItemKind::MODULE, None, None, ending(typed)))
            .collect();
    }
    let previous = before.split_whitespace().last().unwrap_or("");
    let fixed: &[&str] = match previous {
        "fail" => &["open", "closed"],
        "log" => &["trace", "debug", "info", "warn", "error"],
        _ => &[],
    };
    if !fixed.is_empty() {
        return fixed
            .iter()
            .map(|w| {
                item(
                    w,
                    CompletionItemKind::ENUM_MEMBER,
                    None,
                    None,
                    ending(partial),
                )
            })
            .collect();
    }
    if before.is_empty() {
        // An unindented line starts an item.
        return keywords::ITEMS
            .iter()
            .map(|k| {
                item(
                    k,
                    CompletionItemKind::KEYWORD,
                    None,
                    keywords::doc(k).map(str::to_owned),
                    ending(partial),
                )
            })
            .collect();
    }
    let mut out = Vec::new();
    if let Some(scope) = analysis.scopes.first() {
        let mut names: Vec<(&String, &crate::check::names::Def)> = scope.iter().collect();
        names.sort_by(|a, b| a.0.cmp(b.0));
        for (name, def) in names {
            let kind = match def.kind {
                crate::check::names::DefKind::List => CompletionItemKind::CONSTANT,
                crate::check::names::DefKind::Pattern => CompletionItemKind::VALUE,
                crate::check::names::DefKind::Macro => CompletionItemKind::FUNCTION,
            };
            out.push(item(
                name,
                kind,
                Some(def.kind.as_str().to_owned()),
                super::hover::definition_doc(analysis, name),
                ending(partial),
            ));
        }
    }
    for root in Root::ALL {
        out.push(item(
            root.as_str(),
            CompletionItemKind::FIELD,
            Some("context field".to_owned()),
            super::hover::context_doc(root, &[]).map(str::to_owned),
            ending(partial),
        ));
    }
    for func in Func::ALL {
        out.push(item(
            func.as_str(),
            CompletionItemKind::FUNCTION,
            Some("function".to_owned()),
            Some(func.doc().to_owned()),
            ending(partial),
        ));
    }
    for (keyword, doc) in keywords::all() {
        if !keywords::ITEMS.contains(&keyword) {
            out.push(item(
                keyword,
                CompletionItemKind::KEYWORD,
                None,
                Some(doc.to_owned()),
                ending(partial),
            ));
        }
    }
    out
}

fn markdown(value: String) -> Documentation {
    Documentation::MarkupContent(MarkupContent {
        kind: MarkupKind::Markdown,
        value,
    })
}

fn utf16_len(text: &str) -> u32 {
    u32::try_from(text.encode_utf16().count()).unwrap_or(u32::MAX)
}

/// What is typed of the path after `import "`, when the line is there.
fn import_prefix(line: &str) -> Option<&str> {
    let rest = line.trim_start().strip_prefix("import")?;
    let typed = rest.trim_start().strip_prefix('"')?;
    (!typed.contains('"')).then_some(typed)
}

/// What is typed of a name after `keyword` at the start of `line`
/// (`override block-da` → `block-da`); `None` when the line is not that.
fn after_keyword<'l>(line: &'l str, keyword: &str) -> Option<&'l str> {
    let rest = line.trim_start().strip_prefix(keyword)?;
    let typed = rest.trim_start();
    (rest.len() > typed.len() && !typed.contains(char::is_whitespace)).then_some(typed)
}

/// The `.hooks` files in the directory of `typed` (relative to the
/// document's), as paths to write after `import "`.
fn import_files(document: Option<&Path>, typed: &str, cursor: Position) -> Vec<CompletionItem> {
    let Some(base) = document.and_then(Path::parent) else {
        return Vec::new();
    };
    let (dir_typed, _) = typed.rsplit_once('/').unwrap_or(("", typed));
    let dir = if dir_typed.is_empty() {
        base.to_path_buf()
    } else {
        base.join(dir_typed)
    };
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut names: Vec<(String, bool)> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let path = e.path();
            let name = e.file_name().to_str()?.to_owned();
            if path.is_dir() && !name.starts_with('.') {
                Some((name, true))
            } else if path.extension().is_some_and(|x| x == "hooks")
                && Some(path.as_path()) != document
            {
                Some((name, false))
            } else {
                None
            }
        })
        .collect();
    names.sort();
    let replace = Range::new(
        Position::new(
            cursor.line,
            cursor.character.saturating_sub(utf16_len(typed)),
        ),
        cursor,
    );
    names
        .into_iter()
        .take(MAX_FILES)
        .map(|(name, is_dir)| {
            let written = if dir_typed.is_empty() {
                name.clone()
            } else {
                format!("{dir_typed}/{name}")
            };
            let new_text = if is_dir {
                format!("{written}/")
            } else {
                written
            };
            CompletionItem {
                label: if is_dir { format!("{name}/") } else { name },
                kind: Some(if is_dir {
                    CompletionItemKind::FOLDER
                } else {
                    CompletionItemKind::FILE
                }),
                filter_text: Some(new_text.clone()),
                text_edit: Some(CompletionTextEdit::Edit(TextEdit::new(replace, new_text))),
                ..CompletionItem::default()
            }
        })
        .collect()
}

/// True when `before` (the line before the word typed) is a rule's header
/// up to a point: `hook ID on` or `hook ID on A, B,`.
fn in_point_list(before: &str) -> bool {
    let mut words = before.split_whitespace();
    if words.next() != Some("hook") || words.next().is_none() || words.next() != Some("on") {
        return false;
    }
    let rest: String = words.collect::<Vec<_>>().join(" ");
    let rest = rest.trim();
    // Every point written so far is followed by a comma.
    rest.is_empty()
        || rest.ends_with(',')
            && rest
                .trim_end_matches(',')
                .split(',')
                .all(|p| !p.trim().is_empty() && !p.trim().contains(' '))
}

/// `payload.a.b.x` → (`payload`, [`a`, `b`]): the root and the fields
/// above the one being typed; `None` when the word is not a path below a
/// root.
fn field_prefix(word: &str) -> Option<(Root, Vec<&str>)> {
    let mut parts: Vec<&str> = word.split('.').collect();
    parts.pop()?;
    let root = Root::from_name(parts.first()?)?;
    let parents = parts.get(1..)?.to_vec();
    Some((root, parents))
}

/// Where the rule the line starting at `line_start` is in starts: the
/// nearest `hook` line at or above it, before another item starts.
fn rule_start(text: &str, line_start: usize) -> Option<usize> {
    let mut end = text
        .get(line_start..)?
        .find('\n')
        .map_or(text.len(), |i| line_start + i);
    loop {
        let start = text.get(..end)?.rfind('\n').map_or(0, |i| i + 1);
        let line = text.get(start..end)?;
        let trimmed = line.trim_start();
        let first = trimmed.split_whitespace().next().unwrap_or("");
        if first == "hook" {
            return Some(start);
        }
        // Another item starts before any rule header: not in a rule.
        if start == 0 || line.len() == trimmed.len() && keywords::ITEMS.contains(&first) {
            return None;
        }
        end = start - 1;
    }
}

/// The points of the rule whose header starts at `start`.
fn rule_points(text: &str, start: Option<usize>) -> Vec<String> {
    let Some(header) = start
        .and_then(|s| text.get(s..))
        .and_then(|t| t.lines().next())
    else {
        return Vec::new();
    };
    header_points(header.split_once(" on ").map_or("", |(_, rest)| rest))
}

/// The points at the start of `text` (what follows `on` in a header).
fn header_points(text: &str) -> Vec<String> {
    let mut points = Vec::new();
    let mut rest = text.trim_start();
    loop {
        let len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
            .unwrap_or(rest.len());
        let Some(point) = rest.get(..len) else { break };
        if point.is_empty() {
            break;
        }
        points.push(point.to_owned());
        match rest.get(len..).map(str::trim_start) {
            Some(after) if after.starts_with(',') => {
                rest = after.get(1..).unwrap_or("").trim_start();
            }
            _ => break,
        }
    }
    points
}

/// The ids of the rules of the compiled set, with their headers.
fn rule_ids(analysis: &Analysis) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for file in &analysis.loaded.files {
        for item in &file.ast.items {
            if let crate::syntax::ast::Item::Hook(hook) = item {
                let header = file.source.slice(hook.header_span);
                out.push((
                    hook.id.name.clone(),
                    header.trim_end_matches('{').trim_end().to_owned(),
                ));
            }
        }
    }
    out
}

/// The fields below `root.parents…` with their types: at `points` (all
/// the schema's points when empty), those the schema declares.
fn fields(
    analysis: &Analysis,
    root: Root,
    parents: &[&str],
    points: &[String],
) -> Vec<(String, String)> {
    match root {
        Root::Principal if parents.is_empty() => {
            return vec![
                ("type".to_owned(), "string".to_owned()),
                ("id".to_owned(), "string".to_owned()),
            ];
        }
        Root::Payload => {}
        _ => return Vec::new(),
    }
    let schema = &analysis.schema;
    let known: Vec<&str> = points
        .iter()
        .filter(|p| schema.point(p).is_some())
        .map(String::as_str)
        .collect();
    let defs = schema
        .points
        .iter()
        .filter(|p| known.is_empty() || known.contains(&p.name.as_str()));
    let mut out: Vec<(String, String)> = Vec::new();
    for def in defs {
        for field in &def.payload {
            let mut steps = field.path.split('.');
            let head: Vec<&str> = steps.by_ref().take(parents.len()).collect();
            let (Some(name), None) = (steps.next(), steps.next()) else {
                continue;
            };
            if head != parents {
                continue;
            }
            let ty = field.type_text();
            match out.iter_mut().find(|(n, _)| n == name) {
                Some((_, t)) if *t != ty && !t.contains(ty.as_str()) => {
                    t.push_str(" | ");
                    t.push_str(&ty);
                }
                Some(_) => {}
                None => out.push((name.to_owned(), ty)),
            }
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn point_lists_after_on_and_commas() {
        assert!(in_point_list("hook a on "));
        assert!(in_point_list("hook a-b on PreToolUse, "));
        assert!(in_point_list("hook a on A,B,"));
        assert!(!in_point_list("hook a on PreToolUse "));
        assert!(!in_point_list("hook a on PreToolUse at "));
        assert!(!in_point_list("    when "));
    }

    #[test]
    fn header_points_and_field_prefixes() {
        assert_eq!(header_points("A, B.c at x {"), ["A", "B.c"]);
        assert_eq!(header_points("{"), Vec::<String>::new());
        let (root, parents) = field_prefix("payload.tool_input.com").unwrap();
        assert_eq!((root, parents), (Root::Payload, vec!["tool_input"]));
        assert_eq!(field_prefix("payload").map(|(r, _)| r), None);
        assert_eq!(field_prefix("c.program"), None);
    }

    #[test]
    fn rule_points_come_from_the_nearest_header() {
        let text = "hook a on A, B {\n    when payload.\n}\nmacro m = payload.\n";
        let second = text.find("    when").unwrap();
        assert_eq!(rule_start(text, second), Some(0));
        assert_eq!(rule_points(text, rule_start(text, second)), ["A", "B"]);
        let macro_line = text.find("macro").unwrap();
        assert_eq!(rule_start(text, macro_line), None);
        assert_eq!(rule_start("when x\n", 0), None);
    }

    #[test]
    fn names_after_a_keyword() {
        assert_eq!(
            after_keyword("override block-da", "override"),
            Some("block-da")
        );
        assert_eq!(after_keyword("schema ", "schema"), Some(""));
        assert_eq!(after_keyword("schema claude-code ", "schema"), None);
        assert_eq!(after_keyword("schemas", "schema"), None);
    }

    #[test]
    fn import_paths_start_after_the_quote() {
        assert_eq!(import_prefix("import \"com"), Some("com"));
        assert_eq!(import_prefix("import \"a.hooks\" "), None);
        assert_eq!(import_prefix("list x = [\"a"), None);
    }
}
