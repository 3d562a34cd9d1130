//! Finding, reading and parsing `.hooks` files, and following their imports.
//!
//! The roots are the files named (or found under the directories named) by
//! the user, in a stable order: arguments in the order given, files inside a
//! directory sorted by path. Imported files are loaded too, but only the
//! roots' rules are compiled; an import contributes its lists, patterns and
//! macros.

use crate::diag::{Diagnostic, Diagnostics};
use crate::span::SourceFile;
use crate::syntax::{self, ast};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// One parsed file.
#[derive(Clone, Debug)]
pub struct LoadedFile {
    /// Name and text.
    pub source: SourceFile,
    /// What parsed.
    pub ast: ast::File,
    /// True for files the user named; false for files reached by `import`.
    pub root: bool,
    /// For each `import` item of the file, in order: the loaded file it names,
    /// when it could be loaded.
    pub imports: Vec<Option<usize>>,
    /// Where it is on disk, when it is.
    pub path: Option<PathBuf>,
}

/// Every file of a compilation, roots first in order, then imports.
#[derive(Clone, Debug, Default)]
pub struct LoadedSources {
    /// The files.
    pub files: Vec<LoadedFile>,
    /// Syntax and I/O errors.
    pub diagnostics: Diagnostics,
    /// The digest of the root sources ([`source_digest`]), which the table
    /// records: empty for sources that were not read from paths.
    pub digest: String,
}

/// The digest of the rule sources under `paths` by which a table is judged
/// fresh: SHA-256 over the text of each `.hooks` file [`discover`] finds,
/// in its order, and of the `hookc.toml` in each directory named (a
/// different lint level or DFA budget compiles another table). It reads
/// the files and nothing else, so it is cheap enough to take on every
/// event; files a source imports from elsewhere are not in it.
pub fn source_digest<P: AsRef<Path>>(paths: &[P]) -> String {
    let mut ignored = Diagnostics::new();
    let texts = discover(paths, &mut ignored)
        .into_iter()
        .map(|p| read_source(&p).unwrap_or_default())
        .collect::<Vec<_>>();
    digest_of(paths, &texts)
}

/// [`source_digest`] of root texts already read.
fn digest_of<P: AsRef<Path>>(paths: &[P], texts: &[String]) -> String {
    use sha2::{Digest, Sha256};
    let mut hash = Sha256::new();
    hash.update(b"hookc sources v1\0");
    for text in texts {
        hash.update((text.len() as u64).to_le_bytes());
        hash.update(text.as_bytes());
    }
    for path in paths {
        let config = path.as_ref().join(CONFIG_FILE);
        if let Ok(text) = std::fs::read_to_string(&config) {
            hash.update(b"config");
            hash.update((text.len() as u64).to_le_bytes());
            hash.update(text.as_bytes());
        }
    }
    hash.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// The `.hooks` files named by `paths`: files as given, directories searched
/// recursively (sorted). Missing paths are `io` diagnostics.
///
/// A subdirectory with a `hookc.toml` of its own is a separate rule set (it
/// may use another schema, or other lint levels) and is not searched (a
/// `separate-rule-set` note says so); name it to compile it.
pub fn discover<P: AsRef<Path>>(paths: &[P], diagnostics: &mut Diagnostics) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for path in paths {
        let path = path.as_ref();
        if path.is_dir() {
            let before = out.len();
            walk(path, &mut out, diagnostics);
            if out.len() == before {
                diagnostics.push(
                    Diagnostic::warning("io", format!("no `.hooks` files in `{}`", path.display()))
                        .with_help("rule files end in `.hooks`"),
                );
            }
        } else if path.is_file() {
            out.push(path.to_path_buf());
        } else if path.exists() {
            diagnostics.push(Diagnostic::error(
                "io",
                format!(
                    "cannot read `{}`: not a regular file or directory",
                    path.display()
                ),
            ));
        } else {
            diagnostics.push(Diagnostic::error(
                "io",
                format!(
                    "cannot read `{}`: no such file or directory",
                    path.display()
                ),
            ));
        }
    }
    out
}

/// The configuration file, `hookc.toml`: it also makes a directory a rule
/// set of its own, which a directory search does not enter.
pub const CONFIG_FILE: &str = "hookc.toml";

fn walk(dir: &Path, out: &mut Vec<PathBuf>, diagnostics: &mut Diagnostics) {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            diagnostics.push(Diagnostic::error(
                "io",
                format!("cannot read `{}`: {}", dir.display(), io_reason(&e)),
            ));
            return;
        }
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            if path.join(CONFIG_FILE).is_file() {
                diagnostics.push(
                    Diagnostic::note(
                        "separate-rule-set",
                        format!(
                            "`{}` has a `{CONFIG_FILE}` of its own: a separate rule set, not searched",
                            path.display()
                        ),
                    )
                    .with_help(format!("name it to check it: `hookc lint {}`", path.display())),
                );
            } else {
                walk(&path, out, diagnostics);
            }
        } else if path.extension().is_some_and(|e| e == "hooks") {
            out.push(path);
        }
    }
}

/// Discovers, reads and parses the files under `paths`, and everything they
/// import.
pub fn load_paths<P: AsRef<Path>>(paths: &[P]) -> LoadedSources {
    load_paths_with(paths, &mut read_source)
}

/// Reads a source file: a regular file's text. Anything else (a directory,
/// a FIFO, `/dev/zero`) is an error, not a read that never ends.
///
/// # Errors
///
/// [`std::io::ErrorKind::NotFound`] when nothing is there; any other I/O
/// error.
pub fn read_source(path: &Path) -> std::io::Result<String> {
    if path.is_file() {
        std::fs::read_to_string(path)
    } else if path.exists() {
        Err(std::io::Error::other("not a regular file"))
    } else {
        Err(std::io::Error::from(std::io::ErrorKind::NotFound))
    }
}

/// [`load_paths`], reading every file (roots and imports) with `read`: the
/// texts it returns are exactly the ones compiled (`hookc watch`
/// fingerprints them).
pub fn load_paths_with<P: AsRef<Path>>(
    paths: &[P],
    read: &mut dyn FnMut(&Path) -> std::io::Result<String>,
) -> LoadedSources {
    let mut diagnostics = Diagnostics::new();
    let found = discover(paths, &mut diagnostics);
    let mut sources = Vec::new();
    let mut texts = Vec::new();
    for path in found {
        match read(&path) {
            Ok(text) => {
                texts.push(text.clone());
                sources.push((
                    SourceFile::new(path.display().to_string(), text),
                    Some(path),
                ));
            }
            Err(e) => diagnostics.push(Diagnostic::error(
                "io",
                format!("cannot read `{}`: {}", path.display(), io_reason(&e)),
            )),
        }
    }
    let mut loaded = load(sources, read);
    diagnostics.extend(std::mem::take(&mut loaded.diagnostics));
    loaded.diagnostics = diagnostics;
    loaded.digest = digest_of(paths, &texts);
    loaded
}

/// Parses in-memory sources (imports are read from disk relative to each
/// source's name).
pub fn load_sources(sources: Vec<SourceFile>) -> LoadedSources {
    load(
        sources
            .into_iter()
            .map(|s| {
                let path = PathBuf::from(s.name.as_ref());
                (s, Some(path))
            })
            .collect(),
        &mut read_source,
    )
}

/// Parses in-memory root sources, each with the path it stands for (imports
/// are resolved relative to it), reading every imported file with `read`:
/// an editor's unsaved texts stand in for the files on disk.
pub fn load_sources_with(
    roots: Vec<(SourceFile, Option<PathBuf>)>,
    read: &mut dyn FnMut(&Path) -> std::io::Result<String>,
) -> LoadedSources {
    load(roots, read)
}

fn load(
    roots: Vec<(SourceFile, Option<PathBuf>)>,
    read: &mut dyn FnMut(&Path) -> std::io::Result<String>,
) -> LoadedSources {
    let mut loaded = LoadedSources::default();
    let mut by_path: HashMap<PathBuf, usize> = HashMap::new();
    for (source, path) in roots {
        if let Some(key) = path.as_ref().and_then(|p| p.canonicalize().ok()) {
            if by_path.contains_key(&key) {
                continue; // named twice: compile it once
            }
            by_path.insert(key, loaded.files.len());
        }
        push(&mut loaded, source, path, true);
    }
    // Breadth-first over imports; `files` grows as imports are found.
    let mut next = 0;
    while next < loaded.files.len() {
        let imports: Vec<(ast::StrLit, Option<PathBuf>)> = {
            let Some(file) = loaded.files.get(next) else {
                break;
            };
            let base = file
                .path
                .as_ref()
                .and_then(|p| p.parent().map(Path::to_path_buf));
            file.ast
                .items
                .iter()
                .filter_map(|item| match item {
                    ast::Item::Import(import) => Some(import.path.clone()),
                    _ => None,
                })
                .map(|lit| {
                    let target = base
                        .as_ref()
                        .map_or_else(|| PathBuf::from(&lit.value), |b| b.join(&lit.value));
                    (lit, Some(target))
                })
                .collect()
        };
        let mut resolved = Vec::new();
        for (lit, target) in imports {
            let Some(target) = target else {
                resolved.push(None);
                continue;
            };
            let key = target.canonicalize().ok();
            if let Some(&i) = key.as_ref().and_then(|k| by_path.get(k)) {
                resolved.push(Some(i));
                continue;
            }
            match read(&target) {
                Ok(text) => {
                    // What was read is what is compiled, even when the file
                    // appeared or went away around the read.
                    let key = key
                        .or_else(|| target.canonicalize().ok())
                        .unwrap_or_else(|| target.clone());
                    let i = loaded.files.len();
                    by_path.insert(key, i);
                    let source = SourceFile::new(target.display().to_string(), text);
                    push(&mut loaded, source, Some(target), false);
                    resolved.push(Some(i));
                }
                Err(e) => {
                    let reason = io_reason(&e);
                    if let Some(file) = loaded.files.get(next) {
                        let d = Diagnostic::error(
                            "import-not-found",
                            format!("cannot import `{}`: {reason}", lit.value),
                        )
                        .in_file(&file.source)
                        .with_primary(lit.span, "imported here")
                        .with_help(format!(
                            "the path is relative to this file: `{}`",
                            target.display()
                        ));
                        loaded.diagnostics.push(d);
                    }
                    resolved.push(None);
                }
            }
        }
        if let Some(file) = loaded.files.get_mut(next) {
            file.imports = resolved;
        }
        next += 1;
    }
    report_cycles(&mut loaded);
    loaded
}

fn push(loaded: &mut LoadedSources, source: SourceFile, path: Option<PathBuf>, root: bool) {
    let (mut ast, diagnostics) = syntax::parse(&source);
    loaded.diagnostics.extend(diagnostics);
    if root {
        let base = path.as_deref().and_then(Path::parent);
        read_event_files(&mut ast, base, &source, &mut loaded.diagnostics);
    }
    loaded.files.push(LoadedFile {
        source,
        ast,
        root,
        imports: Vec::new(),
        path,
    });
}

/// Reads the event of every `event file "…"` test of a root file, relative
/// to the file's directory, into the test's event (a literal spanning the
/// path); a file that cannot be read or is not JSON is an error at the path.
fn read_event_files(
    ast: &mut ast::File,
    base: Option<&Path>,
    source: &SourceFile,
    diagnostics: &mut Diagnostics,
) {
    for item in &mut ast.items {
        let ast::Item::Test(test) = item else {
            continue;
        };
        let Some(file) = &test.event_file else {
            continue;
        };
        let path = base.map_or_else(|| PathBuf::from(&file.value), |b| b.join(&file.value));
        let read = std::fs::read_to_string(&path)
            .map_err(|e| io_reason(&e))
            .and_then(|text| crate::event::parse(&text).map_err(|e| format!("not JSON: {e}")))
            .and_then(|value| match value {
                serde_json::Value::Object(_) => Ok(value),
                _ => Err("it holds JSON, but not an object".to_owned()),
            });
        match read {
            Ok(value) => test.event.kind = ast::ExprKind::Literal(value),
            Err(reason) => diagnostics.push(
                Diagnostic::error(
                    "invalid-test",
                    format!("cannot read the event file `{}`: {reason}", file.value),
                )
                .in_file(source)
                .with_primary(file.span, "read here")
                .with_help(format!(
                    "the path is relative to this file: `{}`",
                    path.display()
                )),
            ),
        }
    }
}

/// Reports every import that closes a cycle, at the import.
fn report_cycles(loaded: &mut LoadedSources) {
    // 0 = unvisited, 1 = on the stack, 2 = done.
    let mut state = vec![0u8; loaded.files.len()];
    let mut found = Vec::new();
    for start in 0..loaded.files.len() {
        dfs(loaded, start, &mut state, &mut Vec::new(), &mut found);
    }
    for (file, nth, chain) in found {
        let Some(f) = loaded.files.get(file) else {
            continue;
        };
        let import = f
            .ast
            .items
            .iter()
            .filter_map(|item| match item {
                ast::Item::Import(import) => Some(import),
                _ => None,
            })
            .nth(nth);
        if let Some(import) = import {
            let d = Diagnostic::error("import-cycle", format!("import cycle: {chain}"))
                .in_file(&f.source)
                .with_primary(import.span, "this import closes the cycle")
                .with_help(
                    "move the shared lists, patterns and macros into a file that imports nothing",
                );
            loaded.diagnostics.push(d);
        }
    }
}

fn dfs(
    loaded: &LoadedSources,
    at: usize,
    state: &mut [u8],
    stack: &mut Vec<usize>,
    found: &mut Vec<(usize, usize, String)>,
) {
    if state.get(at).copied() != Some(0) {
        return;
    }
    if let Some(s) = state.get_mut(at) {
        *s = 1;
    }
    stack.push(at);
    let imports = loaded
        .files
        .get(at)
        .map(|f| f.imports.clone())
        .unwrap_or_default();
    for (nth, target) in imports.into_iter().enumerate() {
        let Some(target) = target else { continue };
        match state.get(target).copied() {
            Some(1) => {
                let names: Vec<&str> = stack
                    .iter()
                    .skip_while(|&&f| f != target)
                    .chain(std::iter::once(&target))
                    .filter_map(|&f| loaded.files.get(f).map(|f| f.source.name.as_ref()))
                    .map(|n| n.rsplit('/').next().unwrap_or(n))
                    .collect();
                found.push((at, nth, names.join(" -> ")));
            }
            Some(0) => dfs(loaded, target, state, stack, found),
            _ => {}
        }
    }
    stack.pop();
    if let Some(s) = state.get_mut(at) {
        *s = 2;
    }
}

/// An I/O error as a lowercase phrase, without the OS error number.
fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        std::io::ErrorKind::IsADirectory => "it is a directory".to_string(),
        _ => {
            let text = e.to_string();
            let text = text.split(" (os error").next().unwrap_or(&text);
            let mut chars = text.chars();
            chars
                .next()
                .map_or_else(String::new, |c| c.to_lowercase().chain(chars).collect())
        }
    }
}
