//! The queries compile against the grammar (a node or token the grammar
//! lost would make them fail to load in an editor).

use tree_sitter::Query;

fn compile(name: &str, source: &str) {
    if let Err(error) = Query::new(&tree_sitter_hooks::LANGUAGE.into(), source) {
        panic!("queries/{name}.scm does not compile: {error}");
    }
}

#[test]
fn highlights_compile() {
    compile("highlights", tree_sitter_hooks::HIGHLIGHTS_QUERY);
}

#[test]
fn locals_compile() {
    compile("locals", tree_sitter_hooks::LOCALS_QUERY);
}

#[test]
fn folds_compile() {
    compile("folds", tree_sitter_hooks::FOLDS_QUERY);
}
