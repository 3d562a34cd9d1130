//! The `.hooks` sources of the repository: the shipped rules, the test
//! fixtures and the README's examples, and how to cut them into items.

use std::fs;
use std::path::{Path, PathBuf};

/// Directories searched (recursively) for `.hooks` files, relative to the
/// repository's root: the shipped rules, and the fixtures and golden files
/// of hookc's tests.
pub const ROOTS: &[&str] = &["rules", "tests"];

/// Files that hookc's parser rejects on purpose (syntax-error fixtures),
/// each with the reason. They are not parsed here.
///
/// `hookc lint` reports no `syntax` or `nesting-limit` diagnostic for any
/// `.hooks` file under `rules/` or `tests/` today (the fixtures that fail
/// fail later, in the checker: unknown fields, bad schemas, …), so the list
/// is empty. Add a file here, with its reason, when a fixture is meant not
/// to parse.
pub const BROKEN: &[(&str, &str)] = &[];

/// README code blocks that look like rules (they start with a top-level
/// keyword) but that hookc's parser rejects on purpose, by the text of the
/// block's first line, each with the reason. None today: the README's
/// blocks that start with a top-level keyword all parse.
pub const README_BROKEN: &[(&str, &str)] = &[];

/// The words that start a top-level item (hookc's `ITEM_KEYWORDS`).
pub const ITEM_KEYWORDS: &[&str] = &[
    "schema", "import", "list", "pattern", "macro", "hook", "override", "test",
];

/// A piece of `.hooks` text from the repository.
pub struct Source {
    /// The file it comes from, relative to the repository's root, with `/`.
    pub path: String,
    /// The line of the file its first line is (1-based).
    pub first_line: usize,
    /// The columns taken off the start of each line (a README block inside
    /// a list item is indented).
    pub indent: usize,
    /// The text.
    pub text: String,
}

impl Source {
    /// `path:line:col` of a 0-based row and column of the text.
    pub fn location(&self, row: usize, column: usize) -> String {
        format!(
            "{}:{}:{}",
            self.path,
            self.first_line + row,
            self.indent + column + 1
        )
    }
}

/// The repository's root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the crate sits two levels below the repository's root")
}

/// Every `.hooks` file under [`ROOTS`] but the [`BROKEN`] ones, sorted.
pub fn hooks_files() -> Vec<Source> {
    let root = repo_root();
    let mut paths = Vec::new();
    for dir in ROOTS {
        collect_hooks_files(&root.join(dir), &mut paths);
    }
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let relative = path
                .strip_prefix(&root)
                .expect("found under the root")
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            let text = fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
            Source {
                path: relative,
                first_line: 1,
                indent: 0,
                text,
            }
        })
        .filter(|source| !BROKEN.iter().any(|(path, _)| *path == source.path))
        .collect()
}

fn collect_hooks_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries =
        fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            collect_hooks_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "hooks") {
            out.push(path);
        }
    }
}

/// The README's code blocks that hold rules: fenced with no language,
/// `hooks` or `text`, whose first line that is neither blank nor a comment
/// starts a top-level item; less the [`README_BROKEN`] ones.
pub fn readme_blocks() -> Vec<Source> {
    let text = fs::read_to_string(repo_root().join("README.md")).expect("README.md is readable");
    let lines: Vec<&str> = text.lines().collect();
    let mut blocks = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let trimmed = line.trim_start();
        let Some(lang) = trimmed.strip_prefix("```") else {
            i += 1;
            continue;
        };
        let indent = line.len() - trimmed.len();
        let lang = lang.trim();
        let body_start = i + 1;
        let mut end = body_start;
        while end < lines.len() && lines[end].trim() != "```" {
            end += 1;
        }
        i = end + 1;
        if !matches!(lang, "" | "hooks" | "text") {
            continue;
        }
        let body: Vec<&str> = lines[body_start..end.min(lines.len())]
            .iter()
            .map(|l| dedent(l, indent))
            .collect();
        let first = body
            .iter()
            .map(|l| l.trim())
            .find(|l| !l.is_empty() && !l.starts_with('#'))
            .unwrap_or("");
        if !starts_item(first) {
            continue;
        }
        let head = body.first().map_or("", |l| l.trim());
        if README_BROKEN.iter().any(|(line, _)| *line == head) {
            continue;
        }
        let mut text = body.join("\n");
        text.push('\n');
        blocks.push(Source {
            path: "README.md".to_owned(),
            first_line: body_start + 1,
            indent,
            text,
        });
    }
    blocks
}

/// `line` less up to `indent` leading blanks.
fn dedent(line: &str, indent: usize) -> &str {
    let blanks = line.len() - line.trim_start_matches([' ', '\t']).len();
    &line[blanks.min(indent)..]
}

/// True when `line` starts with a top-level keyword (then a blank, a quote
/// or its end).
pub fn starts_item(line: &str) -> bool {
    ITEM_KEYWORDS.iter().any(|kw| {
        line.strip_prefix(kw)
            .is_some_and(|after| after.is_empty() || after.starts_with([' ', '\t', '"']))
    })
}

/// One top-level item of a source, with the comment lines right above it.
pub struct Item {
    /// What the item is, e.g. `hook block-dangerous on tool.pre_execute`.
    pub title: String,
    /// Its text, without trailing blank lines.
    pub text: String,
}

/// Cuts a source into its items: an item starts at a line that starts (in
/// its first column) with a top-level keyword, and takes the comment lines
/// right above it; the lines before the first item go with it.
pub fn items(source: &Source) -> Vec<Item> {
    let lines: Vec<&str> = source.text.lines().collect();
    let mut starts: Vec<usize> = (0..lines.len())
        .filter(|&i| starts_item(lines[i]))
        .collect();
    for start in starts.iter_mut().skip(1) {
        while *start > 0 && lines[*start - 1].trim_start().starts_with('#') {
            *start -= 1;
        }
    }
    match starts.first_mut() {
        Some(first) => *first = 0,
        None => starts.push(0),
    }
    let mut items = Vec::new();
    for (n, &start) in starts.iter().enumerate() {
        let end = starts.get(n + 1).copied().unwrap_or(lines.len());
        let chunk = &lines[start..end];
        let Some(last) = chunk.iter().rposition(|l| !l.trim().is_empty()) else {
            continue;
        };
        let chunk = &chunk[..=last];
        let head = chunk
            .iter()
            .find(|l| starts_item(l))
            .copied()
            .unwrap_or(chunk[0]);
        items.push(Item {
            title: title(head),
            text: chunk.join("\n"),
        });
    }
    items
}

/// A short title from an item's first line: up to its `{`, blanks
/// collapsed, at most 60 characters.
fn title(line: &str) -> String {
    let head = line.split(" {").next().unwrap_or(line);
    let words: Vec<&str> = head.split_whitespace().collect();
    let mut title = words.join(" ");
    if title.chars().count() > 60 {
        title = title.chars().take(59).collect::<String>() + "…";
    }
    title
}
