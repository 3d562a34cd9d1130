//! Recompile rules when their files change, keeping the last good table.
//!
//! A [`Watcher`] remembers a fingerprint of the exact bytes its last
//! compilation read: every rule file under its paths and every file they
//! import, as the compiler read them. [`Watcher::poll`] reads the files
//! again and recompiles when they differ from what was compiled, so a save
//! that lands while a compilation runs (after the compiler read the file)
//! is compiled by the next poll, never taken as already seen.
//! [`Watcher::run`] waits for changes and reloads a [`Registry`] with each
//! table that compiles; a change that does not compile is reported and the
//! registry keeps serving the last good table.
//!
//! **Waking up.** With the `notify` feature (part of the `hookc` command
//! line's build), [`Watcher::wait`] wakes on file-system events, debounced
//! (a burst of writes from one save is one wake-up), for the watched
//! directories and the directories of imported files; and, whatever the
//! events say, it also looks at the files' contents every interval, so a
//! missed event (a network mount, a directory replaced) costs at most one
//! interval. When events cannot be had (no `notify` feature, the system's
//! watch limit, an unsupported file system) or [`Watcher::polling`] asks
//! for it, it polls by content alone. Reading a rule set a few times a
//! second costs little.
//!
//! **Empty saves.** An editor that saves by truncating the file and then
//! writing it shows a moment where the file is empty; compiled then, the
//! rules would disappear until the next poll. So a change that leaves no
//! rules where the last published table had some, or that leaves empty a
//! file whose rules are in the last published table, is [`Change::Emptied`]
//! and is not published (the registry keeps its table) unless
//! [`Watcher::allow_empty`] says an empty rule set is meant.
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
use std::collections::{BTreeMap, BTreeSet};
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How long file-system events must be quiet before they wake the watcher:
/// one save is often several writes (truncate, write, rename).
pub const DEBOUNCE: Duration = Duration::from_millis(50);

/// What a poll found after a change.
#[derive(Debug)]
pub enum Change {
    /// The rules compiled: publish the table.
    Compiled(Compiled),
    /// They did not: every diagnostic.
    Failed(Diagnostics),
    /// They compiled, but the change empties the rules (see the module
    /// documentation): not to be published, the last table stays. Only
    /// without [`Watcher::allow_empty`].
    Emptied {
        /// What compiled.
        compiled: Compiled,
        /// Files whose rules are in the last published table and that are
        /// empty now; none when the whole rule set is empty.
        files: Vec<PathBuf>,
        /// The number of rules of the last published table.
        published: usize,
    },
}

/// How a [`Watcher`] learns that files may have changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Wake {
    /// File-system events, and a look at the contents every interval.
    Events,
    /// A look at the contents every interval, nothing else; with the
    /// reason events are not used.
    Polling(String),
}

/// Watches rule files and recompiles them when they change.
pub struct Watcher {
    paths: Vec<PathBuf>,
    options: Options,
    allow_empty: bool,
    /// Every file the last compilation read (roots and imports).
    read: BTreeSet<PathBuf>,
    /// The fingerprint of what the last compilation read; `None` before
    /// the first.
    last: Option<u64>,
    /// What the last published table came from.
    published: Option<Published>,
    events: Events,
    /// Called after each file a compilation reads: lets tests land a save
    /// in the middle of a compilation.
    #[cfg(test)]
    after_read: Option<AfterRead>,
}

/// See `Watcher::after_read`.
#[cfg(test)]
type AfterRead = Box<dyn FnMut(&Path) + Send>;

impl std::fmt::Debug for Watcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watcher")
            .field("paths", &self.paths)
            .field("allow_empty", &self.allow_empty)
            .field("read", &self.read)
            .field("last", &self.last)
            .field("wake", &self.wake())
            .finish_non_exhaustive()
    }
}

/// The rule count of the last published table, and the files its rules
/// come from.
#[derive(Debug)]
struct Published {
    rules: usize,
    files: BTreeSet<PathBuf>,
}

/// The outcome of reading one file, as much as a fingerprint needs.
#[derive(Hash)]
enum Read {
    Text(u64),
    Failed(std::io::ErrorKind),
}

impl Watcher {
    /// A watcher of the `.hooks` files under `paths` (files, or directories
    /// searched recursively), compiled with `options`. It uses file-system
    /// events when it can (see [`Watcher::wake`]).
    pub fn new<P: AsRef<Path>>(paths: &[P], options: Options) -> Watcher {
        let paths: Vec<PathBuf> = paths.iter().map(|p| p.as_ref().to_path_buf()).collect();
        let events = Events::new();
        let mut watcher = Watcher {
            paths,
            options,
            allow_empty: false,
            read: BTreeSet::new(),
            last: None,
            published: None,
            events,
            #[cfg(test)]
            after_read: None,
        };
        watcher.watch_directories();
        watcher
    }

    /// Publish a change that empties the rules instead of reporting it as
    /// [`Change::Emptied`].
    #[must_use]
    pub fn allow_empty(mut self, allow: bool) -> Watcher {
        self.allow_empty = allow;
        self
    }

    /// Poll by content alone, without file-system events.
    #[must_use]
    pub fn polling(mut self) -> Watcher {
        self.events = Events::Off("polling was asked for".to_string());
        self
    }

    /// How this watcher wakes up.
    pub fn wake(&self) -> Wake {
        match &self.events {
            Events::Off(reason) => Wake::Polling(reason.clone()),
            #[cfg(feature = "notify")]
            Events::On(_) => Wake::Events,
        }
    }

    /// Compiles the rules if a file changed since the last compilation (or
    /// this is the first poll); `None` when nothing changed.
    pub fn poll(&mut self) -> Option<Change> {
        if self.last.is_some() && self.last == Some(self.current()) {
            return None;
        }
        let mut reads: BTreeMap<PathBuf, Read> = BTreeMap::new();
        let mut texts: BTreeMap<PathBuf, bool> = BTreeMap::new();
        #[cfg(test)]
        let mut after_read = self.after_read.take();
        let loaded = load::load_paths_with(&self.paths, &mut |path| {
            let result = load::read_source(path);
            if let Ok(text) = &result {
                texts.insert(path.to_path_buf(), text.trim().is_empty());
            }
            reads.insert(path.to_path_buf(), Read::of(&result));
            #[cfg(test)]
            if let Some(hook) = after_read.as_mut() {
                hook(path);
            }
            result
        });
        #[cfg(test)]
        {
            self.after_read = after_read;
        }
        // The fingerprint of exactly what is compiled: a save from now on
        // is a change for the next poll.
        self.last = Some(fingerprint(&reads));
        self.read = reads.into_keys().collect();
        self.watch_directories();
        let compiled = match crate::compile::compile_loaded_with(
            loaded,
            &self.options,
            crate::compile::Leftovers::FreeAside,
        ) {
            Ok(compiled) => compiled,
            Err(diagnostics) => return Some(Change::Failed(diagnostics)),
        };
        if !self.allow_empty {
            if let Some(published) = &self.published {
                let emptied: Vec<PathBuf> = published
                    .files
                    .iter()
                    .filter(|f| texts.get(*f).copied().unwrap_or(false))
                    .cloned()
                    .collect();
                let none_left = compiled.table.rule_count() == 0 && published.rules > 0;
                if none_left || !emptied.is_empty() {
                    return Some(Change::Emptied {
                        compiled,
                        files: emptied,
                        published: published.rules,
                    });
                }
            }
        }
        self.published = Some(Published::of(&compiled));
        Some(Change::Compiled(compiled))
    }

    /// Waits until the files may have changed: a file-system event (when
    /// [`Watcher::wake`] is [`Wake::Events`]) or `interval`, whichever
    /// comes first.
    pub fn wait(&mut self, interval: Duration) {
        self.events.wait(interval);
    }

    /// Polls until `stop` is set, reloading `registry` with each table that
    /// compiles; `report` sees every change, good or bad. Between polls it
    /// [waits](Watcher::wait) at most `interval`.
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
            self.wait(interval);
        }
    }

    /// The fingerprint of the files as they are now: the rule files under
    /// the paths and everything the last compilation read.
    fn current(&self) -> u64 {
        let mut diagnostics = Diagnostics::new();
        let mut files: BTreeSet<PathBuf> = load::discover(&self.paths, &mut diagnostics)
            .into_iter()
            .collect();
        files.extend(self.read.iter().cloned());
        let reads: BTreeMap<PathBuf, Read> = files
            .into_iter()
            .map(|file| {
                let read = Read::of(&load::read_source(&file));
                (file, read)
            })
            .collect();
        fingerprint(&reads)
    }

    /// Watches the paths given (directories recursively, a file's
    /// directory) and the directories of the files read.
    fn watch_directories(&mut self) {
        let mut dirs: BTreeMap<PathBuf, bool> = BTreeMap::new();
        for path in &self.paths {
            if path.is_dir() {
                dirs.insert(path.clone(), true);
            } else {
                dirs.entry(parent(path)).or_insert(false);
            }
        }
        for file in &self.read {
            dirs.entry(parent(file)).or_insert(false);
        }
        self.events.watch(dirs);
    }
}

impl Read {
    fn of(result: &std::io::Result<String>) -> Read {
        match result {
            Ok(text) => {
                let mut hasher = DefaultHasher::new();
                text.hash(&mut hasher);
                Read::Text(hasher.finish())
            }
            Err(e) => Read::Failed(e.kind()),
        }
    }
}

impl Published {
    /// What `compiled` publishes: its rule count, and the files its rules
    /// come from as the compile knew them (the table's program is not
    /// decoded for them: a reload of 10,000 rules would spend about 19 ms
    /// on it, and the published table would keep the decoded copy).
    fn of(compiled: &Compiled) -> Published {
        Published {
            rules: compiled.table.rule_count(),
            files: compiled.rule_files().iter().map(PathBuf::from).collect(),
        }
    }
}

fn fingerprint(reads: &BTreeMap<PathBuf, Read>) -> u64 {
    let mut hasher = DefaultHasher::new();
    reads.hash(&mut hasher);
    hasher.finish()
}

/// The directory a file is in (`.` for a bare name).
fn parent(path: &Path) -> PathBuf {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// File-system events, when they can be had.
enum Events {
    /// Polling only, and why.
    Off(String),
    #[cfg(feature = "notify")]
    On(Box<notify_events::Notifier>),
}

impl Events {
    #[cfg(feature = "notify")]
    fn new() -> Events {
        match notify_events::Notifier::new() {
            Ok(notifier) => Events::On(Box::new(notifier)),
            Err(reason) => Events::Off(reason),
        }
    }

    #[cfg(not(feature = "notify"))]
    fn new() -> Events {
        Events::Off("built without the `notify` feature".to_string())
    }

    fn watch(&mut self, dirs: BTreeMap<PathBuf, bool>) {
        match self {
            Events::Off(_) => drop(dirs),
            #[cfg(feature = "notify")]
            Events::On(notifier) => notifier.watch(dirs),
        }
    }

    fn wait(&mut self, interval: Duration) {
        match self {
            Events::Off(_) => std::thread::sleep(interval),
            #[cfg(feature = "notify")]
            Events::On(notifier) => notifier.wait(interval),
        }
    }
}

#[cfg(feature = "notify")]
mod notify_events {
    //! The `notify` crate's watcher behind its debouncer.

    use notify_debouncer_mini::notify::{RecommendedWatcher, RecursiveMode};
    use notify_debouncer_mini::{new_debouncer, DebounceEventResult, Debouncer};
    use std::collections::BTreeMap;
    use std::path::PathBuf;
    use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
    use std::time::Duration;

    pub(super) struct Notifier {
        debouncer: Debouncer<RecommendedWatcher>,
        events: Receiver<DebounceEventResult>,
        /// Watched directories: recursively or not.
        watched: BTreeMap<PathBuf, bool>,
    }

    impl Notifier {
        pub(super) fn new() -> Result<Notifier, String> {
            let (sender, events) = channel();
            let debouncer = new_debouncer(super::DEBOUNCE, sender)
                .map_err(|e| format!("file-system events are unavailable: {e}"))?;
            Ok(Notifier {
                debouncer,
                events,
                watched: BTreeMap::new(),
            })
        }

        /// Watches exactly `dirs`. A directory that cannot be watched (it
        /// does not exist yet) is left to the content check.
        pub(super) fn watch(&mut self, dirs: BTreeMap<PathBuf, bool>) {
            if dirs == self.watched {
                return;
            }
            let watcher = self.debouncer.watcher();
            for dir in self.watched.keys() {
                let _ = watcher.unwatch(dir);
            }
            for (dir, recursive) in &dirs {
                let mode = if *recursive {
                    RecursiveMode::Recursive
                } else {
                    RecursiveMode::NonRecursive
                };
                if let Err(e) = watcher.watch(dir, mode) {
                    tracing::debug!("cannot watch `{}`: {e}", dir.display());
                }
            }
            self.watched = dirs;
        }

        /// Until an event (then every event that came with it) or
        /// `interval`.
        pub(super) fn wait(&mut self, interval: Duration) {
            match self.events.recv_timeout(interval) {
                Ok(_) => while self.events.try_recv().is_ok() {},
                Err(RecvTimeoutError::Timeout) => {}
                // The debouncer's thread is gone: keep the pace of polling.
                Err(RecvTimeoutError::Disconnected) => std::thread::sleep(interval),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("hookc-watch-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn rules(reason: &str) -> String {
        format!("hook stop on tool.pre_execute at builtin::* {{\n    abort \"{reason}\"\n}}\n")
    }

    /// The text that was compiled, all files together.
    fn compiled_text(compiled: &Compiled) -> String {
        compiled.sources.iter().map(|s| s.text.as_ref()).collect()
    }

    #[test]
    fn a_save_during_a_compilation_is_compiled_next() {
        let dir = temp_dir("mid-compile");
        let file = dir.join("a.hooks");
        std::fs::write(&file, rules("first")).unwrap();
        let mut watcher = Watcher::new(&[&dir], Options::default()).polling();
        // The save lands right after the compiler read the file.
        let saved = Arc::new(Mutex::new(false));
        {
            let (file, saved) = (file.clone(), saved.clone());
            watcher.after_read = Some(Box::new(move |_| {
                let mut saved = saved.lock().unwrap();
                if !*saved {
                    *saved = true;
                    std::fs::write(&file, rules("second")).unwrap();
                }
            }));
        }
        let Some(Change::Compiled(first)) = watcher.poll() else {
            panic!("the first poll compiles")
        };
        assert!(*saved.lock().unwrap());
        assert!(compiled_text(&first).contains("first"));
        let Some(Change::Compiled(second)) = watcher.poll() else {
            panic!("the save made during the compilation is a change")
        };
        assert!(compiled_text(&second).contains("second"));
        assert!(watcher.poll().is_none());
    }

    #[test]
    fn an_import_saved_during_a_compilation_is_compiled_next() {
        let dir = temp_dir("mid-compile-import");
        let shared = dir.join("shared.inc");
        std::fs::write(&shared, "list bad = [\"rm\"]\n").unwrap();
        std::fs::write(
            dir.join("a.hooks"),
            "import \"shared.inc\"\nhook a on tool.pre_execute {\n    when payload.args in bad\n    abort \"a\"\n}\n",
        )
        .unwrap();
        let mut watcher = Watcher::new(&[&dir], Options::default()).polling();
        {
            let shared = shared.clone();
            watcher.after_read = Some(Box::new(move |path| {
                if path.ends_with("shared.inc") {
                    std::fs::write(&shared, "list bad = [\"mkfs\"]\n").unwrap();
                }
            }));
        }
        assert!(matches!(watcher.poll(), Some(Change::Compiled(_))));
        watcher.after_read = None;
        let Some(Change::Compiled(second)) = watcher.poll() else {
            panic!("the import saved during the compilation is a change")
        };
        assert!(compiled_text(&second).contains("mkfs"));
        assert!(watcher.poll().is_none());
    }

    #[test]
    fn an_emptied_file_is_not_published_unless_allowed() {
        let dir = temp_dir("emptied");
        let a = dir.join("a.hooks");
        let b = dir.join("b.hooks");
        std::fs::write(&a, rules("a")).unwrap();
        std::fs::write(&b, rules("b").replace("stop", "other")).unwrap();
        let mut watcher = Watcher::new(&[&dir], Options::default()).polling();
        assert!(matches!(watcher.poll(), Some(Change::Compiled(_))));

        // One file of two truncated: the other's rules remain, but the
        // truncated file's rules would be lost.
        std::fs::write(&b, "").unwrap();
        let Some(Change::Emptied {
            files, published, ..
        }) = watcher.poll()
        else {
            panic!("an emptied file is withheld")
        };
        assert_eq!(files, vec![b.clone()]);
        assert_eq!(published, 2);
        assert!(watcher.poll().is_none(), "reported once");

        // Both: no rules at all.
        std::fs::write(&a, "\n").unwrap();
        assert!(matches!(watcher.poll(), Some(Change::Emptied { .. })));

        // The write that follows the truncation is published.
        std::fs::write(&a, rules("a")).unwrap();
        std::fs::write(&b, rules("b").replace("stop", "other")).unwrap();
        let Some(Change::Compiled(both)) = watcher.poll() else {
            panic!("the full save compiles")
        };
        assert_eq!(both.table.rule_count(), 2);

        // Deleting a file is not emptying it.
        std::fs::remove_file(&b).unwrap();
        assert!(matches!(watcher.poll(), Some(Change::Compiled(_))));

        let mut allowing = Watcher::new(&[&dir], Options::default())
            .polling()
            .allow_empty(true);
        assert!(matches!(allowing.poll(), Some(Change::Compiled(_))));
        std::fs::write(&a, "").unwrap();
        let Some(Change::Compiled(empty)) = allowing.poll() else {
            panic!("--allow-empty publishes an empty rule set")
        };
        assert_eq!(empty.table.rule_count(), 0);
    }

    /// What a reload publishes comes from the compile: the table's program
    /// is not decoded for it (nor its automata all loaded), and it names
    /// the files with rules, not a file of lists.
    #[test]
    fn publishing_a_table_does_not_decode_its_program() {
        let dir = temp_dir("published");
        std::fs::write(dir.join("lists.inc"), "list bad = [\"rm\"]\n").unwrap();
        std::fs::write(
            dir.join("a.hooks"),
            "import \"lists.inc\"\nhook a on tool.pre_execute, tool.post_execute {\n    when payload.args in bad\n    abort \"a\"\n}\n",
        )
        .unwrap();
        let mut watcher = Watcher::new(&[&dir], Options::default()).polling();
        let Some(Change::Compiled(compiled)) = watcher.poll() else {
            panic!("the first poll compiles")
        };
        assert!(!compiled.table.is_program_decoded());
        let published = watcher.published.as_ref().map(|p| (p.rules, &p.files));
        let files: BTreeSet<PathBuf> = [dir.join("a.hooks")].into_iter().collect();
        assert_eq!(published, Some((1, &files)));
    }

    #[test]
    fn a_first_empty_rule_set_is_published() {
        let dir = temp_dir("first-empty");
        std::fs::write(dir.join("a.hooks"), "").unwrap();
        let mut watcher = Watcher::new(&[&dir], Options::default()).polling();
        assert!(matches!(watcher.poll(), Some(Change::Compiled(_))));
    }

    #[cfg(feature = "notify")]
    #[test]
    fn an_event_wakes_the_watcher_before_the_interval() {
        let dir = temp_dir("events");
        let file = dir.join("a.hooks");
        std::fs::write(&file, rules("one")).unwrap();
        let mut watcher = Watcher::new(&[&dir], Options::default());
        if let Wake::Polling(reason) = watcher.wake() {
            // A system without inotify watches to spare: nothing to test.
            eprintln!("skipped: {reason}");
            return;
        }
        assert!(matches!(watcher.poll(), Some(Change::Compiled(_))));
        let writer = {
            let file = file.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(200));
                std::fs::write(&file, rules("two")).unwrap();
            })
        };
        let start = std::time::Instant::now();
        watcher.wait(Duration::from_secs(60));
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "woken by the event, not the interval"
        );
        writer.join().unwrap();
        assert!(matches!(watcher.poll(), Some(Change::Compiled(_))));
    }
}
