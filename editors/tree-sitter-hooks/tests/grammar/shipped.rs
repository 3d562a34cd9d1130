//! Every shipped `.hooks` file, fixture and README example parses without
//! an error node: what hookc's parser accepts, this grammar accepts.

use crate::sources::{self, Source};
use crate::{error_nodes, parse};

/// Parses each source and lists every error node as `file:line:col`.
fn problems(sources: &[Source]) -> Vec<String> {
    let mut problems = Vec::new();
    for source in sources {
        let tree = parse(&source.text);
        for (row, column, what) in error_nodes(&tree, &source.text) {
            problems.push(format!("{}: {what}", source.location(row, column)));
        }
    }
    problems
}

#[test]
fn every_shipped_hooks_file_parses() {
    let files = sources::hooks_files();
    assert!(
        files.iter().any(|f| f.path.starts_with("rules/"))
            && files.iter().any(|f| f.path.starts_with("tests/fixtures/")),
        "the shipped rules and the fixtures are found"
    );
    let problems = problems(&files);
    assert!(
        problems.is_empty(),
        "{} error node(s) in {} shipped file(s):\n{}",
        problems.len(),
        files.len(),
        problems.join("\n")
    );
}

#[test]
fn every_readme_example_parses() {
    let blocks = sources::readme_blocks();
    assert!(blocks.len() >= 5, "the README's rule examples are found");
    let problems = problems(&blocks);
    assert!(
        problems.is_empty(),
        "{} error node(s) in the README's {} rule example(s):\n{}",
        problems.len(),
        blocks.len(),
        problems.join("\n")
    );
}

#[test]
fn the_broken_lists_name_what_exists() {
    let root = sources::repo_root();
    for (path, reason) in sources::BROKEN {
        assert!(
            root.join(path).is_file(),
            "{path} (listed as broken: {reason}) does not exist"
        );
        assert!(
            !reason.trim().is_empty(),
            "{path} is listed as broken with no reason"
        );
    }
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md is readable");
    for (line, reason) in sources::README_BROKEN {
        assert!(
            readme.lines().any(|l| l.trim() == *line),
            "README.md has no line `{line}` (listed as broken: {reason})"
        );
    }
}

/// Error nodes are found and placed: the tests above would pass vacuously
/// otherwise.
#[test]
fn error_nodes_are_reported_with_their_place() {
    let source = Source {
        path: "x.hooks".to_owned(),
        first_line: 10,
        indent: 2,
        text: "hook a on p {\n    when payload. x\n}\n".to_owned(),
    };
    let found = problems(std::slice::from_ref(&source));
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("x.hooks:11:"), "{found:?}");

    let text = "hook a on p {\n    when a == (b\n}\n";
    let found = error_nodes(&parse(text), text);
    assert!(!found.is_empty());
}
