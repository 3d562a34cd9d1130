//! The corpus (`test/corpus/*.txt`, tree-sitter's test format): each
//! example parses to its tree, and the generated part (`shipped-*.txt`,
//! one file per shipped `.hooks` file or README) is current.
//!
//! `script/gen-corpus` rewrites the generated part: it runs
//! `shipped_corpus_is_current` with `UPDATE_CORPUS=1`.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::sources::{self, Source};
use crate::{error_nodes, parse};

/// The prefix of the generated corpus files.
const GENERATED: &str = "shipped-";

/// A header or divider line: 80 `=` or `-`, as the tree-sitter CLI writes.
const WIDTH: usize = 80;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("test/corpus")
}

/// One example of a corpus file.
struct Example {
    name: String,
    /// `:error`: the source must not parse (the tree is not given).
    error: bool,
    source: String,
    tree: String,
}

/// True for a line of at least three `c` and nothing else.
fn is_rule(line: &str, c: char) -> bool {
    line.len() >= 3 && line.chars().all(|x| x == c)
}

/// Reads a corpus file: examples under `===` headers, the source and the
/// tree split by a `---` line.
fn read_examples(text: &str) -> Vec<Example> {
    let lines: Vec<&str> = text.lines().collect();
    let mut examples = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if !is_rule(lines[i], '=') {
            i += 1;
            continue;
        }
        let mut name = Vec::new();
        let mut error = false;
        i += 1;
        while i < lines.len() && !is_rule(lines[i], '=') {
            match lines[i].trim() {
                ":error" => error = true,
                attribute if attribute.starts_with(':') => {}
                line => name.push(line),
            }
            i += 1;
        }
        i += 1;
        let source_start = i;
        while i < lines.len() && !is_rule(lines[i], '-') {
            i += 1;
        }
        let source = lines[source_start..i.min(lines.len())].join("\n");
        i += 1;
        let tree_start = i;
        while i < lines.len() && !is_rule(lines[i], '=') {
            i += 1;
        }
        let tree = lines[tree_start.min(lines.len())..i].join("\n");
        examples.push(Example {
            name: name.join(" ").trim().to_owned(),
            error,
            source: source.trim_matches('\n').to_owned(),
            tree: tree.trim().to_owned(),
        });
    }
    examples
}

/// An S-expression with its blanks normalized, to compare trees.
fn normalize(sexp: &str) -> String {
    let spaced = sexp.split_whitespace().collect::<Vec<_>>().join(" ");
    spaced.replace(" )", ")")
}

/// True for a field name of an S-expression (`name:`).
fn is_field(token: &str) -> bool {
    token.ends_with(':') && !token.starts_with('(')
}

/// True when an S-expression names fields (`name: (identifier)`).
fn has_fields(sexp: &str) -> bool {
    sexp.split_whitespace().any(is_field)
}

/// An S-expression without its field names: a tree given without them is
/// compared without them, as the tree-sitter CLI does.
fn strip_fields(sexp: &str) -> String {
    sexp.split_whitespace()
        .filter(|token| !is_field(token))
        .collect::<Vec<_>>()
        .join(" ")
}

/// An S-expression laid out as the tree-sitter CLI does: one node a line,
/// indented two blanks a level, a field's name before its node.
fn pretty(sexp: &str) -> String {
    let mut out = String::new();
    let mut depth = 0usize;
    let mut field: Option<&str> = None;
    let mut after_open = false;
    let spaced = sexp.replace('(', " ( ").replace(')', " ) ");
    for token in spaced.split_whitespace() {
        match token {
            "(" => {
                if !out.is_empty() {
                    out.push('\n');
                    out.push_str(&"  ".repeat(depth));
                }
                if let Some(name) = field.take() {
                    out.push_str(name);
                    out.push(' ');
                }
                out.push('(');
                depth += 1;
                after_open = true;
            }
            ")" => {
                out.push(')');
                depth = depth.saturating_sub(1);
                after_open = false;
            }
            _ if token.ends_with(':') && !after_open => field = Some(token),
            _ => {
                if !after_open {
                    out.push(' ');
                }
                out.push_str(token);
                after_open = false;
            }
        }
    }
    out
}

/// Writes one example in the tree-sitter CLI's layout.
fn write_example(out: &mut String, name: &str, source: &str, tree: &str) {
    let equals = "=".repeat(WIDTH);
    let dashes = "-".repeat(WIDTH);
    out.push_str(&format!(
        "{equals}\n{name}\n{equals}\n\n{source}\n\n{dashes}\n\n{tree}\n\n"
    ));
}

/// The generated corpus files for the sources, by file name.
fn generate(sources: &[Source]) -> BTreeMap<String, String> {
    let mut files: BTreeMap<String, String> = BTreeMap::new();
    for source in sources {
        let file = format!(
            "{GENERATED}{}.txt",
            source
                .path
                .trim_end_matches(".hooks")
                .trim_end_matches(".md")
                .replace('/', "-")
        );
        let out = files.entry(file).or_default();
        let mut seen: BTreeMap<String, usize> = BTreeMap::new();
        let items = sources::items(source);
        for item in items {
            assert!(
                !item
                    .text
                    .lines()
                    .any(|l| is_rule(l, '=') || is_rule(l, '-')),
                "{}: an item has a line of only `=` or `-`, which the corpus format \
                 cannot hold",
                source.path
            );
            let count = seen.entry(item.title.clone()).or_default();
            *count += 1;
            let mut name = format!("{}: {}", source.path, item.title);
            if *count > 1 {
                name.push_str(&format!(" ({count})"));
            }
            let tree = parse(&item.text);
            let errors = error_nodes(&tree, &item.text);
            assert!(
                errors.is_empty(),
                "{name} does not parse ({errors:?}): fix the grammar first \
                 (`cargo test` lists every error with its place)"
            );
            write_example(out, &name, &item.text, &pretty(&tree.root_node().to_sexp()));
        }
    }
    for text in files.values_mut() {
        // One newline at the end of the file.
        while text.ends_with("\n\n") {
            text.pop();
        }
    }
    files
}

/// Every source the generated corpus covers: the shipped `.hooks` files and
/// the README's rule examples (in one file, `shipped-README.txt`).
fn shipped_sources() -> Vec<Source> {
    let mut sources = sources::hooks_files();
    sources.extend(sources::readme_blocks());
    sources
}

#[test]
fn shipped_corpus_is_current() {
    let dir = corpus_dir();
    let expected = generate(&shipped_sources());
    let on_disk: BTreeMap<String, String> = fs::read_dir(&dir)
        .expect("test/corpus exists")
        .map(|entry| entry.expect("a directory entry").path())
        .filter_map(|path| {
            let name = path.file_name()?.to_str()?.to_owned();
            name.starts_with(GENERATED).then(|| {
                let text = fs::read_to_string(&path).expect("a corpus file is readable");
                (name, text)
            })
        })
        .collect();

    if std::env::var_os("UPDATE_CORPUS").is_some() {
        for name in on_disk.keys().filter(|n| !expected.contains_key(*n)) {
            fs::remove_file(dir.join(name)).expect("a stale corpus file is removed");
        }
        for (name, text) in &expected {
            if on_disk.get(name) != Some(text) {
                fs::write(dir.join(name), text).expect("a corpus file is written");
            }
        }
        return;
    }

    let mut stale: Vec<String> = Vec::new();
    for (name, text) in &expected {
        match on_disk.get(name) {
            None => stale.push(format!("{name} is missing")),
            Some(old) if old != text => stale.push(format!("{name} is out of date")),
            Some(_) => {}
        }
    }
    for name in on_disk.keys().filter(|n| !expected.contains_key(*n)) {
        stale.push(format!("{name} has no source any more"));
    }
    assert!(
        stale.is_empty(),
        "the generated corpus does not match the shipped .hooks files and README:\n  {}\n\
         regenerate it with editors/tree-sitter-hooks/script/gen-corpus",
        stale.join("\n  ")
    );
}

#[test]
fn every_corpus_example_parses_to_its_tree() {
    let mut paths: Vec<PathBuf> = fs::read_dir(corpus_dir())
        .expect("test/corpus exists")
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "txt"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "test/corpus has examples");
    let mut failures = Vec::new();
    let mut count = 0;
    for path in &paths {
        let text = fs::read_to_string(path).expect("a corpus file is readable");
        let file = path.file_name().and_then(|n| n.to_str()).unwrap_or("?");
        for example in read_examples(&text) {
            count += 1;
            let tree = parse(&example.source);
            let has_error = tree.root_node().has_error();
            if example.error {
                if !has_error {
                    failures.push(format!("{file}: {}: parses, but must not", example.name));
                }
                continue;
            }
            let mut actual = tree.root_node().to_sexp();
            if !has_fields(&example.tree) {
                actual = strip_fields(&actual);
            }
            if normalize(&actual) != normalize(&example.tree) {
                failures.push(format!(
                    "{file}: {}:\n--- expected\n{}\n+++ actual\n{}",
                    example.name,
                    example.tree,
                    pretty(&actual)
                ));
            }
        }
    }
    assert!(count > 100, "the corpus is read: {count} examples");
    assert!(
        failures.is_empty(),
        "{} of {count} corpus examples fail:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn pretty_printing_keeps_the_tree() {
    let tree = parse("hook a on p at x::* priority 1 {\n    when a.b[0] == \"x\"\n    deny\n}\n");
    let sexp = tree.root_node().to_sexp();
    assert_eq!(normalize(&pretty(&sexp)), normalize(&sexp));
    assert!(
        pretty(&sexp).contains("\n    name: (hook_id)"),
        "{}",
        pretty(&sexp)
    );
    assert!(has_fields(&sexp));
    let bare = strip_fields(&sexp);
    assert!(!has_fields(&bare));
    assert!(
        bare.starts_with("(source_file (hook_declaration (hook_id)"),
        "{bare}"
    );
}
