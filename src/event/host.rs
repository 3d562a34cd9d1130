//! What the host tells rules about where they run: the environment
//! `env("NAME")` reads and the project directory `relpath(…)` measures
//! from. A library host gives none unless it chooses to (rules then see
//! `null`); `hookc claude`, `hookc eval` and `hookc explain` give their
//! process environment and the project directory (`CLAUDE_PROJECT_DIR`,
//! else a Claude Code event's `cwd`; `eval` and `explain` then the current
//! directory).

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

/// The environment and project directory rules may read.
#[derive(Clone, Debug, Default)]
pub struct HostFacts {
    env: Arc<Environment>,
    project_dir: Option<Arc<str>>,
}

/// Where `env(…)` reads.
#[derive(Debug)]
enum Environment {
    /// The variables the host gave.
    Given(HashMap<String, String>),
    /// This process's variables, read when a rule first asks for one: a
    /// hook process whose rules read none (most events) does not copy them.
    Process(OnceLock<HashMap<String, String>>),
}

impl Default for Environment {
    fn default() -> Environment {
        Environment::Given(HashMap::new())
    }
}

impl HostFacts {
    /// Facts with `env` as the environment and `project_dir` (a path,
    /// normalized as rules read paths) as the project directory.
    pub fn new(env: HashMap<String, String>, project_dir: Option<&str>) -> HostFacts {
        HostFacts::with(Environment::Given(env), project_dir)
    }

    /// This process's environment (variables whose name or value is not
    /// UTF-8 left out: `env(…)` is `null` for them) and `project_dir`.
    pub fn from_process(project_dir: Option<&str>) -> HostFacts {
        HostFacts::with(Environment::Process(OnceLock::new()), project_dir)
    }

    fn with(env: Environment, project_dir: Option<&str>) -> HostFacts {
        HostFacts {
            env: Arc::new(env),
            project_dir: project_dir.map(|d| Arc::from(crate::paths::normalize(d).as_ref())),
        }
    }

    /// The variable `name`, if the host gave it.
    pub fn env(&self, name: &str) -> Option<&str> {
        let vars = match &*self.env {
            Environment::Given(vars) => vars,
            Environment::Process(vars) => vars.get_or_init(utf8_vars),
        };
        vars.get(name).map(String::as_str)
    }

    /// The project directory, normalized, if the host gave one.
    pub fn project_dir(&self) -> Option<&str> {
        self.project_dir.as_deref()
    }

    /// `path`, normalized, relative to the project directory: `.` for the
    /// directory itself, `None` for a path outside it (or when there is no
    /// project directory). A relative `path` is taken as relative to the
    /// project already. A Windows project directory contains its paths
    /// whatever their case, as Windows compares names (`C:\Acme\src\a.rs`
    /// is `src/a.rs` in `c:\acme`); the part that follows keeps the case
    /// it was written in.
    pub fn relpath(&self, path: &str) -> Option<String> {
        let path = crate::paths::normalize(path);
        let dir = self.project_dir()?;
        if !path.starts_with('/') && !path.contains(':') {
            return (!path.starts_with("..")).then(|| path.into_owned());
        }
        let rest = if crate::paths::is_windows_shaped(dir) {
            strip_segments_any_case(&path, dir)?
        } else {
            strip_segments(&path, dir)?
        };
        Some(if rest.is_empty() { "." } else { rest }.to_owned())
    }
}

/// What follows the directory `dir` in `path` (both normalized), empty
/// for `dir` itself; `None` when `path` is not in it.
fn strip_segments<'p>(path: &'p str, dir: &str) -> Option<&'p str> {
    if path == dir {
        return Some("");
    }
    let rest = path.strip_prefix(dir)?;
    if dir.ends_with('/') {
        Some(rest)
    } else {
        rest.strip_prefix('/')
    }
}

/// [`strip_segments`] comparing each of `dir`'s segments with `path`'s as
/// Windows compares names ([`crate::paths::windows_case`]).
fn strip_segments_any_case<'p>(path: &'p str, dir: &str) -> Option<&'p str> {
    use crate::paths::windows_case;
    let mut rest = path;
    for segment in dir.split('/').filter(|s| !s.is_empty()) {
        rest = rest.trim_start_matches('/');
        let (head, tail) = rest.split_once('/').unwrap_or((rest, ""));
        if windows_case(head) != windows_case(segment) {
            return None;
        }
        rest = tail;
    }
    Some(rest.trim_start_matches('/'))
}

/// This process's variables whose name and value are UTF-8
/// (`std::env::vars` panics on the others).
fn utf8_vars() -> HashMap<String, String> {
    std::env::vars_os()
        .filter_map(|(name, value)| Some((name.into_string().ok()?, value.into_string().ok()?)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relpath_is_inside_the_project_or_nothing() {
        let facts = HostFacts::new(HashMap::new(), Some("/home/dev/proj/"));
        assert_eq!(
            facts.relpath("/home/dev/proj/src/a.rs").as_deref(),
            Some("src/a.rs")
        );
        assert_eq!(facts.relpath("/home/dev/proj").as_deref(), Some("."));
        assert_eq!(facts.relpath("/home/dev/proj/src/../../x").as_deref(), None);
        assert_eq!(facts.relpath("/home/dev/project-b/a").as_deref(), None);
        assert_eq!(facts.relpath("src/./a.rs").as_deref(), Some("src/a.rs"));
        assert_eq!(facts.relpath("../up").as_deref(), None);
        assert_eq!(HostFacts::default().relpath("/a").as_deref(), None);
        let root = HostFacts::new(HashMap::new(), Some("/"));
        assert_eq!(root.relpath("/etc/passwd").as_deref(), Some("etc/passwd"));
        // POSIX names keep their case.
        assert_eq!(facts.relpath("/home/dev/PROJ/a").as_deref(), None);
    }

    /// Windows compares names without case: a path is in a Windows
    /// project whatever the case of the directory's part, and keeps its
    /// own case after it.
    #[test]
    fn relpath_in_a_windows_project_ignores_case() {
        let facts = HostFacts::new(HashMap::new(), Some(r"C:\Users\Dev\Acme"));
        for (path, want) in [
            (r"C:\Users\Dev\Acme\src\a.rs", Some("src/a.rs")),
            (r"c:\users\dev\acme\Src\a.rs", Some("Src/a.rs")),
            (r"C:\USERS\DEV\ACME", Some(".")),
            (r"c:/users/dev/acme/", Some(".")),
            (r"C:\Users\Dev\Acme2\src\a.rs", None),
            (r"C:\Users\Dev\Acme\..\Other\src\a.rs", None),
            (r"D:\Users\Dev\Acme\src\a.rs", None),
            (r"C:\Users\Dev", None),
        ] {
            assert_eq!(facts.relpath(path).as_deref(), want, "{path}");
        }
    }
}
