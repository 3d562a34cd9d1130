//! Tests of the tree-sitter grammar against hookc itself: every shipped
//! `.hooks` file and README example parses without an error node, every
//! keyword of hookc's pest grammar is one here, the corpus (generated from
//! the shipped files) is current and holds, and the queries compile.

mod corpus;
mod keywords;
mod queries;
mod shipped;
mod sources;

use tree_sitter::{Node, Parser, Tree};

/// A parser for `.hooks` text.
pub fn parser() -> Parser {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_hooks::LANGUAGE.into())
        .expect("the grammar's ABI is one this tree-sitter reads");
    parser
}

/// Parses `text`.
pub fn parse(text: &str) -> Tree {
    parser()
        .parse(text, None)
        .expect("parsing is not cancelled")
}

/// The `ERROR` and `MISSING` nodes of a tree, outermost first, as
/// `(row, column, description)` (0-based).
pub fn error_nodes(tree: &Tree, text: &str) -> Vec<(usize, usize, String)> {
    let mut found = Vec::new();
    collect_errors(tree.root_node(), text, &mut found);
    found
}

fn collect_errors(node: Node, text: &str, found: &mut Vec<(usize, usize, String)>) {
    if !node.has_error() {
        return;
    }
    let at = node.start_position();
    if node.is_missing() {
        found.push((at.row, at.column, format!("MISSING {}", node.kind())));
        return;
    }
    if node.is_error() {
        let snippet: String = text[node.byte_range()]
            .chars()
            .take(40)
            .map(|c| if c == '\n' { ' ' } else { c })
            .collect();
        found.push((at.row, at.column, format!("ERROR at `{snippet}`")));
        // Errors nested in an error say nothing more.
        return;
    }
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        collect_errors(child, text, found);
    }
}
