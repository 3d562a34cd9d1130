//! Recompile rules when their files change, keeping the last good table.
//!
//! A [`Watcher`] fingerprints the rule files under its paths (and every
//! file the last compilation imported) by content; [`Watcher::poll`]
//! recompiles when the fingerprint changed. [`Watcher::run`] polls on an
//! interval and reloads a [`Registry`] with each table that compiles; a
//! change that does not compile is reported and the registry keeps serving
//! the last good table.
//!
//! Polling by content (not file-system events) works the same on every
//! platform and file system, including network mounts and editors that
//! replace files by renaming; rule sets are small, so reading them a few
//! times a second costs little.
//!
//! ```no_run
//! use hookc::watch::{Change, Watcher};
//! use std::sync::atomic::AtomicBool;
//! use std::time::Duration;
//!
//! let mut watcher = Watcher::new(&["rules/"], hookc::Options::default());
//! let Some(Change::Compiled(first)) = watcher.poll() else { panic!("rules do not compile") };
//! let registry = hookc::Registry::new(first.table);
//! let stop = AtomicBool::new(false);
//! // On a thread of its own: reload on every good change until `stop`.
//! watcher.run(&registry, Duration::from_millis(250), &stop, |change| {
//!     if let Change::Failed(d) = change { eprintln!("{d}keeping the last good table"); }
//! });
//! ```

use crate::diag::Diagnostics;
use crate::load;
use crate::{Compiled, Options, Registry};
use std::collections::hash_map::DefaultHasher;
use std::collections::BTreeSet;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// What a poll found after a change.
#[derive(Debug)]
pub enum Change {
    /// The rules compiled.
    Compiled(Compiled),
    /// They did not: every diagnostic.
    Failed(Diagnostics),
}

/// Watches rule files and recompiles them when they change.
#[derive(Debug)]
pub struct Watcher {
    paths: Vec<PathBuf>,
    options: Options,
    /// Files the last compilation read beyond the discovered ones (imports).
    imported: BTreeSet<PathBuf>,
    /// The fingerprint of the last compilation; `None` before the first.
    last: Option<u64>,
}

impl Watcher {
    /// A watcher of the `.hooks` files under `paths` (files, or directories
    /// searched recursively), compiled with `options`.
    pub fn new<P: AsRef<Path>>(paths: &[P], options: Options) -> Watcher {
        Watcher {
            paths: paths.iter().map(|p| p.as_ref().to_path_buf()).collect(),
            options,
            imported: BTreeSet::new(),
            last: None,
        }
    }

    /// Compiles the rules if a file changed since the last compilation (or
    /// this is the first poll); `None` when nothing changed.
    pub fn poll(&mut self) -> Option<Change> {
        let fingerprint = self.fingerprint();
        if self.last == Some(fingerprint) {
            return None;
        }
        self.last = Some(fingerprint);
        let change = match crate::compile_paths(&self.paths, &self.options) {
            Ok(compiled) => {
                self.imported = compiled
                    .sources
                    .iter()
                    .map(|s| PathBuf::from(s.name.as_ref()))
                    .collect();
                Change::Compiled(compiled)
            }
            Err(diagnostics) => Change::Failed(diagnostics),
        };
        // The files the compilation read may differ from the ones
        // fingerprinted before it (a new import): fingerprint again, so the
        // next poll compares against what was compiled.
        self.last = Some(self.fingerprint());
        Some(change)
    }

    /// Polls every `interval` until `stop` is set, reloading `registry`
    /// with each table that compiles; `report` sees every change, good or
    /// bad.
    pub fn run(
        &mut self,
        registry: &Registry,
        interval: Duration,
        stop: &AtomicBool,
        mut report: impl FnMut(&Change),
    ) {
        while !stop.load(Ordering::Relaxed) {
            if let Some(change) = self.poll() {
                report(&change);
                if let Change::Compiled(compiled) = change {
                    registry.reload(compiled.table);
                }
            }
            std::thread::sleep(interval);
        }
    }

    /// A hash of the names and contents of the watched files.
    fn fingerprint(&self) -> u64 {
        let mut diagnostics = Diagnostics::new();
        let mut files: BTreeSet<PathBuf> = load::discover(&self.paths, &mut diagnostics)
            .into_iter()
            .collect();
        files.extend(self.imported.iter().cloned());
        let mut hasher = DefaultHasher::new();
        for file in &files {
            file.hash(&mut hasher);
            match std::fs::read(file) {
                Ok(bytes) => bytes.hash(&mut hasher),
                Err(e) => e.kind().hash(&mut hasher),
            }
        }
        // Missing paths count too: their appearance is a change.
        diagnostics.iter().count().hash(&mut hasher);
        hasher.finish()
    }
}
