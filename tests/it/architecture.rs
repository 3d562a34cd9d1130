//! The module graph of `src/`: dependencies run one way.
//!
//! Reads every source file (test modules left out), collects the modules it
//! names through `crate::…` and `super::…` paths (`use` lines and inline
//! paths alike, names re-exported by `lib.rs` followed to their home), and
//! fails on:
//!
//! - an import circle between files: the path of the circle is printed;
//! - an engine module that names a part above it: nothing below `cli`
//!   imports `cli`, nothing but `cli` imports `lsp` (which imports no
//!   `cli`), and the engine (everything but `cli`, `systems`,
//!   `import` and the watch/build front ends) imports no importer.
//!
//! `ARCHITECTURE.md` describes the layers this keeps; run it alone with
//! `cargo test --test it architecture`.

#![expect(
    clippy::indexing_slicing,
    clippy::expect_used,
    reason = "a test reading its own sources: offsets come from the text just searched"
)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module path below the crate root: `["runtime", "eval"]`.
type Module = Vec<String>;

struct Source {
    module: Module,
    /// The file's text without comments and without its test module.
    text: String,
}

fn sources() -> Vec<Source> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    collect(&root, &mut files);
    files
        .into_iter()
        .filter_map(|path| {
            let relative = path.strip_prefix(&root).ok()?.to_path_buf();
            let mut parts: Vec<String> = relative
                .iter()
                .map(|p| p.to_string_lossy().into_owned())
                .collect();
            // Test files and the binary are not part of the graph.
            if parts.first().is_some_and(|p| p == "bin")
                || parts.iter().any(|p| p == "tests.rs" || p == "tests")
            {
                return None;
            }
            let file = parts.pop()?;
            match file.as_str() {
                "lib.rs" | "mod.rs" => {}
                other => parts.push(other.trim_end_matches(".rs").to_string()),
            }
            let text = std::fs::read_to_string(&path).ok()?;
            Some(Source {
                module: parts,
                text: without_tests_and_comments(&text),
            })
        })
        .collect()
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The text before the file's `#[cfg(test)] mod tests`, with `//` comments
/// (doc comments included) removed.
fn without_tests_and_comments(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if line.trim() == "#[cfg(test)]"
            && lines
                .peek()
                .is_some_and(|next| next.trim_start().starts_with("mod tests"))
        {
            break;
        }
        let code = match line.find("//") {
            Some(i) if !line[..i].contains('"') => &line[..i],
            _ => line,
        };
        out.push_str(code);
        out.push('\n');
    }
    out
}

/// The paths written after `crate::` or `super::` (chains of `super::`
/// resolved against `module`), with `{…}` groups expanded one level.
fn named_paths(module: &Module, is_mod_file: bool, text: &str) -> Vec<Module> {
    let mut found = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if !text.is_char_boundary(i) {
            i += 1;
            continue;
        }
        let rest = &text[i..];
        let start_of_word = i == 0 || !is_ident(bytes[i - 1]);
        let (base, skip) = if start_of_word && rest.starts_with("crate::") {
            (Vec::new(), "crate::".len())
        } else if start_of_word && rest.starts_with("super::") {
            // A `mod.rs` is its directory's module; a plain file's parent
            // is one level up.
            let mut base = module.clone();
            if !is_mod_file || !base.is_empty() {
                base.pop();
            }
            let mut skip = "super::".len();
            while text[i + skip..].starts_with("super::") {
                base.pop();
                skip += "super::".len();
            }
            (base, skip)
        } else {
            i += 1;
            continue;
        };
        i += skip;
        let (prefix, after) = path_at(&text[i..]);
        let mut path = base.clone();
        path.extend(prefix.iter().cloned());
        let group = if text[i + after..].starts_with("::{") {
            Some(i + after + 3)
        } else if prefix.is_empty() && text[i..].starts_with('{') {
            Some(i + 1)
        } else {
            None
        };
        if let Some(group_start) = group {
            let group_end = text[group_start..]
                .find('}')
                .map_or(text.len(), |e| group_start + e);
            for item in text[group_start..group_end].split(',') {
                let (item_path, _) = path_at(item.trim());
                let mut full = path.clone();
                full.extend(item_path);
                found.push(full);
            }
        } else {
            found.push(path);
        }
        i += after.max(1);
    }
    found
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The `a::b::c` path at the start of `text`, and its length in bytes.
fn path_at(text: &str) -> (Vec<String>, usize) {
    let mut parts = Vec::new();
    let mut pos = 0;
    loop {
        let word: String = text[pos..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if word.is_empty() {
            break;
        }
        pos += word.len();
        parts.push(word);
        if text[pos..].starts_with("::")
            && text[pos + 2..].starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        {
            pos += 2;
        } else {
            break;
        }
    }
    (parts, pos)
}

/// Names `lib.rs` re-exports, by name: the module each comes from.
fn facade(lib: &Source) -> BTreeMap<String, Module> {
    let mut names = BTreeMap::new();
    for statement in lib.text.split(';') {
        let statement = statement.trim();
        let Some(rest) = statement.strip_prefix("pub use ") else {
            continue;
        };
        let rest: String = rest.split_whitespace().collect::<Vec<_>>().join(" ");
        let (path, items) = match rest.split_once("::{") {
            Some((path, items)) => (path.to_string(), items.trim_end_matches('}').to_string()),
            None => match rest.rsplit_once("::") {
                Some((path, item)) => (path.to_string(), item.to_string()),
                None => continue,
            },
        };
        let module: Module = path.split("::").map(str::to_string).collect();
        for item in items.split(',') {
            let item = item.trim();
            let name = item.rsplit(" as ").next().unwrap_or(item).trim();
            if !name.is_empty() {
                names.insert(name.to_string(), module.clone());
            }
        }
    }
    names
}

/// The module file a path names: its longest prefix that is a module.
fn resolve(
    path: &Module,
    modules: &BTreeSet<Module>,
    facade: &BTreeMap<String, Module>,
) -> Option<Module> {
    let path = match path.first() {
        Some(first) if !modules.contains(&vec![first.clone()]) => {
            let mut through = facade.get(first)?.clone();
            through.extend(path.iter().skip(1).cloned());
            through
        }
        _ => path.clone(),
    };
    (1..=path.len())
        .rev()
        .map(|n| path[..n].to_vec())
        .find(|prefix| modules.contains(prefix))
}

fn graph() -> BTreeMap<Module, BTreeSet<Module>> {
    let sources = sources();
    let modules: BTreeSet<Module> = sources.iter().map(|s| s.module.clone()).collect();
    let lib = sources
        .iter()
        .find(|s| s.module.is_empty())
        .expect("src/lib.rs is read");
    let facade = facade(lib);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut edges: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for source in &sources {
        if source.module.is_empty() {
            continue; // lib.rs is the facade: it names everything.
        }
        let mut mod_file = root.clone();
        mod_file.extend(&source.module);
        let is_mod_file = mod_file.join("mod.rs").is_file();
        let targets = edges.entry(source.module.clone()).or_default();
        for path in named_paths(&source.module, is_mod_file, &source.text) {
            if let Some(target) = resolve(&path, &modules, &facade) {
                if target != source.module && !target.is_empty() {
                    targets.insert(target);
                }
            }
        }
    }
    edges
}

fn show(module: &Module) -> String {
    module.join("::")
}

/// Every import circle of `edges`, each as `a -> b -> a`.
fn circles(edges: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<String> {
    // Depth-first search; an edge back to a module still on the stack
    // closes a circle.
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Open,
        Done,
    }
    fn visit(
        node: &Module,
        edges: &BTreeMap<Module, BTreeSet<Module>>,
        marks: &mut BTreeMap<Module, Mark>,
        stack: &mut Vec<Module>,
        circles: &mut Vec<String>,
    ) {
        marks.insert(node.clone(), Mark::Open);
        stack.push(node.clone());
        for next in edges.get(node).into_iter().flatten() {
            match marks.get(next) {
                Some(Mark::Open) => {
                    let from = stack.iter().position(|m| m == next).unwrap_or(0);
                    let mut circle: Vec<String> = stack[from..].iter().map(show).collect();
                    circle.push(show(next));
                    circles.push(circle.join(" -> "));
                }
                Some(Mark::Done) => {}
                None => visit(next, edges, marks, stack, circles),
            }
        }
        stack.pop();
        marks.insert(node.clone(), Mark::Done);
    }
    let mut marks = BTreeMap::new();
    let mut found = Vec::new();
    for node in edges.keys() {
        if !marks.contains_key(node) {
            visit(node, edges, &mut marks, &mut Vec::new(), &mut found);
        }
    }
    found
}

#[test]
fn the_module_graph_has_no_circle() {
    let edges = graph();
    assert!(
        edges.len() > 50,
        "the graph reads the sources ({} modules)",
        edges.len()
    );
    let found = circles(&edges);
    assert!(found.is_empty(), "import circles:\n{}", found.join("\n"));
}

#[test]
fn a_circle_is_found_and_shown() {
    let m = |s: &str| -> Module { s.split("::").map(str::to_string).collect() };
    let mut edges: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    edges.entry(m("table")).or_default().insert(m("ir"));
    edges.entry(m("runtime")).or_default().insert(m("table"));
    assert!(circles(&edges).is_empty());
    edges
        .entry(m("table"))
        .or_default()
        .insert(m("runtime::rate"));
    edges
        .entry(m("runtime::rate"))
        .or_default()
        .insert(m("runtime"));
    assert_eq!(
        circles(&edges),
        ["runtime -> table -> runtime::rate -> runtime"]
    );
}

#[test]
fn the_engine_does_not_import_the_front_ends() {
    let edges = graph();
    let front_end = |m: &Module| {
        matches!(
            m.first().map(String::as_str),
            Some("cli" | "systems" | "import" | "watch" | "build")
        )
    };
    let mut wrong = Vec::new();
    for (from, targets) in &edges {
        for to in targets {
            let first = |m: &Module| m.first().map(String::as_str).unwrap_or_default().to_owned();
            let into_cli = first(to) == "cli" && first(from) != "cli";
            let into_lsp = first(to) == "lsp" && !matches!(first(from).as_str(), "lsp" | "cli");
            let into_importer = (to.first().is_some_and(|m| m == "import")
                || to.last().is_some_and(|m| m == "import")
                    && to.first().is_some_and(|m| m == "systems"))
                && !front_end(from);
            if into_cli || into_lsp || into_importer {
                wrong.push(format!("{} -> {}", show(from), show(to)));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the layers:\n{}",
        wrong.join("\n")
    );
}

/// The runtime core knows no hook system: what differs per system is
/// compiled into the table, and points are found by [`PointId`] alike for
/// every schema (ORCS's `HookPoint` implements the runtime's `AsPoint`, not
/// the other way round).
#[test]
fn the_runtime_core_imports_no_hook_system() {
    let edges = graph();
    let core = [
        "event", "ir", "schema", "store", "table", "effects", "runtime", "registry",
    ];
    let wrong: Vec<String> = edges
        .iter()
        .filter(|(from, _)| from.first().is_some_and(|m| core.contains(&m.as_str())))
        .flat_map(|(from, targets)| {
            targets
                .iter()
                .filter(|to| to.first().is_some_and(|m| m == "systems"))
                .map(move |to| format!("{} -> {}", show(from), show(to)))
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "the core imports a hook system:\n{}",
        wrong.join("\n")
    );
}

/// The reader sees what it must: a known arrow is found, a test module's
/// imports are not.
#[test]
fn the_graph_reader_finds_the_arrows_it_must() {
    let edges = graph();
    let has = |from: &str, to: &str| {
        let from: Module = from.split("::").map(str::to_string).collect();
        let to: Module = to.split("::").map(str::to_string).collect();
        edges.get(&from).is_some_and(|t| t.contains(&to))
    };
    assert!(has("runtime", "table"), "the runtime reads the table");
    assert!(has("effects::exec", "event"), "effects read the event");
    assert!(has("compile", "check"), "the compiler runs the checker");
    assert!(
        has("systems::orcs::schema", "runtime"),
        "ORCS's points implement the runtime's `AsPoint`"
    );
    assert!(
        !has("table", "runtime"),
        "the table does not know the runtime"
    );
    let module = vec!["runtime".to_string(), "eval".to_string()];
    assert_eq!(
        named_paths(
            &module,
            false,
            "use super::{Matching, x::Y}; crate::a::b::{C, d::E}"
        ),
        [
            vec!["runtime".to_string(), "Matching".to_string()],
            vec!["runtime".to_string(), "x".to_string(), "Y".to_string()],
            vec!["a".to_string(), "b".to_string(), "C".to_string()],
            vec![
                "a".to_string(),
                "b".to_string(),
                "d".to_string(),
                "E".to_string()
            ],
        ]
    );
}
