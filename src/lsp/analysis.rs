//! Checking one open document: what `hookc lint` would say about it, and
//! what hover, completion and go-to-definition read.
//!
//! The document's text is the editor's (saved or not). Its imports are read
//! relative to its path, from the other open documents when they are open
//! and from disk otherwise, and compiled with it, as `hookc lint` compiles
//! the files it is given (an `override` or `list … +=` of an imported rule
//! set then resolves as in the set). The `hookc.toml` found from the
//! document's directory sets the lint levels. The result keeps the loaded
//! files, their name scopes and the schema, so the requests after a change
//! read the document as it was last checked.

use crate::check::names::{self, Scope};
use crate::diag::Diagnostics;
use crate::load::{self, LoadedSources};
use crate::schema::Schema;
use crate::span::SourceFile;
use std::path::{Path, PathBuf};

/// The texts of the open documents, by their canonical path: imports read
/// them instead of the files on disk.
pub(crate) type Overlay = std::collections::HashMap<PathBuf, String>;

/// One document, checked.
#[derive(Debug)]
pub(crate) struct Analysis {
    /// The document (file 0) and every file it imports, transitively.
    pub(crate) loaded: LoadedSources,
    /// Every finding, in any of the files (and file-less ones).
    pub(crate) diagnostics: Diagnostics,
    /// The schema the files are checked against.
    pub(crate) schema: Schema,
    /// The names each file sees, by file index.
    pub(crate) scopes: Vec<Scope>,
}

impl Analysis {
    /// The document itself.
    pub(crate) fn document(&self) -> Option<&load::LoadedFile> {
        self.loaded.files.first()
    }

    /// The index of the loaded file a diagnostic's file is.
    pub(crate) fn file_index(&self, file: &SourceFile) -> Option<usize> {
        self.loaded
            .files
            .iter()
            .position(|f| f.source.name == file.name)
    }
}

/// Checks `text`, the document at `path` (`None` for a document that is not
/// a file), named `name` in diagnostics.
pub(crate) fn analyze(name: &str, text: &str, path: Option<&Path>, overlay: &Overlay) -> Analysis {
    let mut read = |p: &Path| -> std::io::Result<String> {
        if let Some(text) = p.canonicalize().ok().and_then(|k| overlay.get(&k)) {
            return Ok(text.clone());
        }
        load::read_source(p)
    };
    let document = (SourceFile::new(name, text), path.map(Path::to_path_buf));
    // First the document alone, to find what it imports; then the document
    // and its imports as the set compiled together.
    let alone = load::load_sources_with(vec![document.clone()], &mut read);
    let roots = std::iter::once(document)
        .chain(alone.files.into_iter().skip(1).map(|f| (f.source, f.path)))
        .collect();
    let loaded = load::load_sources_with(roots, &mut read);
    let (options, mut diagnostics) = options(path);
    diagnostics.extend(
        match crate::compile::compile_loaded(loaded.clone(), &options) {
            Ok(compiled) => compiled.warnings,
            Err(found) => found,
        },
    );
    let mut ignored = Diagnostics::new();
    let schema = crate::check::resolve_schema(&loaded, &mut ignored);
    let scopes = names::scopes(&loaded, &mut ignored);
    Analysis {
        loaded,
        diagnostics,
        schema,
        scopes,
    }
}

/// The compiler options of the `hookc.toml` found from `path`, as `hookc
/// lint` reads them, with the problems found in the file.
fn options(path: Option<&Path>) -> (crate::Options, Diagnostics) {
    let Some(path) = path else {
        return (crate::Options::default(), Diagnostics::new());
    };
    let (config, found) = crate::config::Config::discover(&[path], None);
    (config.options(), found)
}
