//! What the host tells rules about where they run: the environment
//! `env("NAME")` reads and the project directory `relpath(…)` measures
//! from. A library host gives none unless it chooses to (rules then see
//! `null`); `hookc claude` and `hookc eval` give their process environment
//! and the project directory (`CLAUDE_PROJECT_DIR`, else the current one).

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
    /// project already.
    pub fn relpath(&self, path: &str) -> Option<String> {
        let path = crate::paths::normalize(path);
        let dir = self.project_dir()?;
        if !path.starts_with('/') && !path.contains(':') {
            return (!path.starts_with("..")).then(|| path.into_owned());
        }
        if path == dir {
            return Some(".".to_owned());
        }
        let rest = path.strip_prefix(dir)?;
        let rest = if dir.ends_with('/') {
            rest
        } else {
            rest.strip_prefix('/')?
        };
        Some(rest.to_owned())
    }
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
    }
}
