//! Embedding rules in a host: compiling them from its build script.
//!
//! A host that embeds its rules compiles them at build time: its `build.rs`
//! compiles every `.hooks` file of a directory into `$OUT_DIR/hooks.tbl`, and
//! the program embeds that file with [`include_table!`](crate::include_table)
//! and loads it once with [`Table::from_static`](crate::Table::from_static).
//! A rule with an error fails the build with rustc-style diagnostics; a
//! warning shows up as a cargo warning; editing a rule file (or a file it
//! imports) reruns the build script.
//!
//! `Cargo.toml`: the compiler is needed only at build time, so the runtime
//! dependency can leave it out.
//!
//! ```toml
//! [dependencies]
//! hookc = { version = "0.1", default-features = false }
//!
//! [build-dependencies]
//! hookc = { version = "0.1", default-features = false, features = ["compiler"] }
//! ```
//!
//! `build.rs`:
//!
//! ```no_run
//! fn main() -> Result<(), hookc::embed::BuildError> {
//!     hookc::embed::compile_dir("rules")?;
//!     Ok(())
//! }
//! ```
//!
//! `src/main.rs` (not run as a doctest: it needs the build script's
//! `OUT_DIR`; `examples/host` is this host, built by the tests):
//!
//! ```ignore
//! use hookc::{HookContext, HookPoint, Table, Target};
//!
//! fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     let table = Table::from_static(hookc::include_table!(concat!(env!("OUT_DIR"), "/hooks.tbl")))?;
//!     let mut scratch = table.scratch();
//!     let mut ctx = HookContext::new(
//!         HookPoint::ToolPreExecute,
//!         "builtin::llm",
//!         serde_json::json!({"tool": "exec", "args": "ls -la"}),
//!     );
//!     let outcome = table.dispatch(&mut scratch, HookPoint::ToolPreExecute, &Target::new("builtin::llm"), &mut ctx);
//!     if let Some(reason) = outcome.reason().filter(|_| outcome.is_abort()) {
//!         return Err(reason.into());
//!     }
//!     Ok(())
//! }
//! ```
//!
//! [`Builder`] takes several rule paths, another file name, compiler
//! [`Options`] or an explicit output directory:
//!
//! ```no_run
//! # fn main() -> Result<(), hookc::embed::BuildError> {
//! let table = hookc::embed::Builder::new()
//!     .rules("rules/common")
//!     .rules("rules/prod.hooks")
//!     .out_file("prod.tbl")
//!     .compile()?;
//! # Ok(()) }
//! ```
//!
//! The `Debug` form of [`BuildError`] is its `Display` form, so returning it
//! from a build script's `main` prints the rendered diagnostics rather than a
//! struct dump.

use crate::compile::{compile_paths, Options};
use crate::diag::{render, Diagnostics};
use crate::load;
use std::collections::BTreeSet;
use std::fmt;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The file name [`compile_dir`] and [`Builder`] write by default.
pub const DEFAULT_OUT_FILE: &str = "hooks.tbl";

/// Why rules could not be compiled into a table file.
#[derive(thiserror::Error)]
pub enum BuildError {
    /// `OUT_DIR` is not set (not running as a build script) and no output
    /// directory was given with [`Builder::out_dir`].
    #[error(
        "the `OUT_DIR` environment variable is not set: call this from a build script, \
         or give an output directory with `Builder::out_dir`"
    )]
    NoOutDir,
    /// The table file (or its directory) could not be written.
    #[error("cannot write `{}`: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What went wrong.
        #[source]
        source: io::Error,
    },
    /// The rules do not compile. Displays as rustc-like diagnostics.
    #[error("{}", render::human(.0, false).trim_end())]
    Compile(Diagnostics),
    /// The table would be written over a rule source (or to a `.hooks`
    /// name); nothing is written.
    #[error(transparent)]
    Output(#[from] crate::output::OutputError),
}

impl BuildError {
    /// The diagnostics of a compile error (errors and warnings).
    pub fn diagnostics(&self) -> Option<&Diagnostics> {
        match self {
            BuildError::Compile(diagnostics) => Some(diagnostics),
            BuildError::NoOutDir | BuildError::Io { .. } | BuildError::Output(_) => None,
        }
    }
}

/// Same as `Display`: a build script returning the error from `main` shows the
/// rendered diagnostics.
impl fmt::Debug for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Compiles every `.hooks` file under `dir` into `$OUT_DIR/hooks.tbl` and
/// returns the path written.
///
/// Prints `cargo:rerun-if-changed` for `dir` and for every rule file and
/// imported file, and one `cargo:warning` line per warning.
///
/// # Errors
///
/// [`BuildError::NoOutDir`] outside a build script, [`BuildError::Compile`]
/// when a rule has an error, [`BuildError::Io`] when the table cannot be
/// written.
pub fn compile_dir(dir: impl AsRef<Path>) -> Result<PathBuf, BuildError> {
    Builder::new().rules(dir.as_ref()).compile()
}

/// Compiles rule files into a table file, for a build script.
///
/// ```no_run
/// # fn main() -> Result<(), hookc::embed::BuildError> {
/// let path = hookc::embed::Builder::new()
///     .rules("rules")
///     .out_file("guard.tbl")
///     .compile()?;
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct Builder {
    rules: Vec<PathBuf>,
    out_dir: Option<PathBuf>,
    out_file: PathBuf,
    options: Options,
}

impl Default for Builder {
    fn default() -> Builder {
        Builder::new()
    }
}

impl Builder {
    /// No rules yet; writes `$OUT_DIR/hooks.tbl` with default options.
    pub fn new() -> Builder {
        Builder {
            rules: Vec::new(),
            out_dir: None,
            out_file: PathBuf::from(DEFAULT_OUT_FILE),
            options: Options::default(),
        }
    }

    /// Adds a `.hooks` file, or a directory searched recursively. Paths keep
    /// the order given (it is the declaration order for priority ties).
    /// Relative paths are relative to the package root, the directory a build
    /// script runs in.
    pub fn rules(mut self, path: impl AsRef<Path>) -> Builder {
        self.rules.push(path.as_ref().to_path_buf());
        self
    }

    /// The name of the table file inside the output directory (default
    /// `hooks.tbl`).
    pub fn out_file(mut self, name: impl AsRef<Path>) -> Builder {
        self.out_file = name.as_ref().to_path_buf();
        self
    }

    /// The output directory, instead of `$OUT_DIR`; created if missing.
    pub fn out_dir(mut self, dir: impl AsRef<Path>) -> Builder {
        self.out_dir = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Compiler options (resource limits).
    pub fn options(mut self, options: Options) -> Builder {
        self.options = options;
        self
    }

    /// Compiles the rules and writes the table file; returns its path.
    ///
    /// Prints the cargo directives on stdout: `rerun-if-changed` for every
    /// path given, every rule file found and every imported file, and one
    /// `warning` line per warning or note.
    ///
    /// # Errors
    ///
    /// As [`compile_dir`].
    pub fn compile(&self) -> Result<PathBuf, BuildError> {
        let stdout = io::stdout();
        let mut lock = stdout.lock();
        self.compile_to(&mut lock)
    }

    /// [`compile`](Self::compile), writing the cargo directives to `out`.
    fn compile_to(&self, out: &mut dyn Write) -> Result<PathBuf, BuildError> {
        let out_dir = match &self.out_dir {
            Some(dir) => dir.clone(),
            None => std::env::var_os("OUT_DIR")
                .map(PathBuf::from)
                .ok_or(BuildError::NoOutDir)?,
        };

        // Watch the paths before compiling, so that fixing a failing rule
        // reruns the build script.
        let mut watched = BTreeSet::new();
        let mut found = Diagnostics::new();
        let files = load::discover(&self.rules, &mut found);
        for path in self.rules.iter().chain(&files) {
            watch(out, &mut watched, &path.display().to_string());
        }

        let compiled = compile_paths(&self.rules, &self.options).map_err(BuildError::Compile)?;
        for source in &compiled.sources {
            watch(out, &mut watched, &source.name);
        }
        for diagnostic in compiled.warnings.iter() {
            let mut line = render::short(diagnostic);
            if let Some(help) = &diagnostic.help {
                line.push_str(" (help: ");
                line.push_str(help);
                line.push(')');
            }
            directive(out, "warning", &line);
        }

        std::fs::create_dir_all(&out_dir).map_err(|source| BuildError::Io {
            path: out_dir.clone(),
            source,
        })?;
        let path = out_dir.join(&self.out_file);
        let sources: Vec<PathBuf> = compiled
            .sources
            .iter()
            .map(|s| PathBuf::from(s.name.as_ref()))
            .collect();
        crate::output::check_output(&path, &sources)?;
        let bytes = compiled.table.to_bytes();
        // Leave an identical file alone: its mtime is what makes cargo
        // recompile the crate that embeds it. Otherwise replace it
        // atomically: a concurrent build never embeds half a table.
        if std::fs::read(&path).ok().as_deref() != Some(bytes.as_slice()) {
            crate::output::write(&path, &bytes).map_err(|source| BuildError::Io {
                path: path.clone(),
                source,
            })?;
        }
        Ok(path)
    }
}

/// Prints `cargo:rerun-if-changed=<path>` once per path.
fn watch(out: &mut dyn Write, watched: &mut BTreeSet<String>, path: &str) {
    if watched.insert(path.to_string()) {
        directive(out, "rerun-if-changed", path);
    }
}

/// One `cargo:<key>=<value>` line; newlines in the value would end the
/// directive early, so they become spaces.
fn directive(out: &mut dyn Write, key: &str, value: &str) {
    let value = value.replace(['\r', '\n'], " ");
    // Cargo reads the directives from stdout; if it is gone there is no one
    // left to tell.
    let _ = writeln!(out, "cargo:{key}={value}");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{HookContext, HookPoint, Table, Target};

    /// A fresh, empty directory for one test.
    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("hookc-build-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn run(builder: &Builder) -> (Result<PathBuf, BuildError>, String) {
        let mut out = Vec::new();
        let result = builder.compile_to(&mut out);
        (result, String::from_utf8(out).unwrap())
    }

    const COMMON: &str = r#"
list dangerous = ["rm -rf", "mkfs"]
"#;

    const GUARD: &str = r#"
import "../common.hooks"

hook block-dangerous on tool.pre_execute at *::* {
    when payload.args contains any dangerous
    abort "blocked: {payload.args}"
}
"#;

    #[test]
    fn compiles_a_directory_into_a_loadable_table() {
        let dir = temp_dir("ok");
        std::fs::create_dir_all(dir.join("rules")).unwrap();
        std::fs::write(dir.join("common.hooks"), COMMON).unwrap();
        std::fs::write(dir.join("rules/guard.hooks"), GUARD).unwrap();
        let out_dir = dir.join("out");

        let (result, printed) = run(&Builder::new().rules(dir.join("rules")).out_dir(&out_dir));
        let path = result.unwrap();
        assert_eq!(path, out_dir.join("hooks.tbl"));

        let rules = dir.join("rules");
        let expected = [
            format!("cargo:rerun-if-changed={}", rules.display()),
            format!(
                "cargo:rerun-if-changed={}",
                rules.join("guard.hooks").display()
            ),
            format!(
                "cargo:rerun-if-changed={}",
                rules.join("../common.hooks").display()
            ),
        ];
        let lines: Vec<&str> = printed.lines().collect();
        assert_eq!(lines, expected, "{printed}");

        let table = Table::from_owned_bytes(std::fs::read(&path).unwrap()).unwrap();
        let mut scratch = table.scratch();
        let mut ctx = HookContext::new(
            HookPoint::ToolPreExecute,
            "builtin::llm",
            serde_json::json!({"tool": "exec", "args": "rm -rf /"}),
        );
        let outcome = table.dispatch(
            &mut scratch,
            HookPoint::ToolPreExecute,
            &Target::new("builtin::llm"),
            &mut ctx,
        );
        assert!(outcome.is_abort());
        assert_eq!(outcome.reason(), Some("blocked: rm -rf /"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn out_file_and_several_rule_paths() {
        let dir = temp_dir("files");
        std::fs::write(
            dir.join("a.hooks"),
            "hook a on tool.pre_execute { continue }\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("b.hooks"),
            "hook b on tool.pre_execute { continue }\n",
        )
        .unwrap();
        let builder = Builder::new()
            .rules(dir.join("a.hooks"))
            .rules(dir.join("b.hooks"))
            .out_file("custom.tbl")
            .out_dir(dir.join("out"))
            .options(Options::default());
        let (result, printed) = run(&builder);
        let path = result.unwrap();
        assert_eq!(path, dir.join("out/custom.tbl"));
        assert_eq!(
            printed.matches("cargo:rerun-if-changed=").count(),
            2,
            "{printed}"
        );
        let table = Table::from_owned_bytes(std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(table.rule_count(), 2);

        // A second run with the same rules leaves the file as it was.
        let before = std::fs::metadata(&path).unwrap().modified().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        run(&builder).0.unwrap();
        assert_eq!(
            std::fs::metadata(&path).unwrap().modified().unwrap(),
            before
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn warnings_become_one_line_cargo_warnings() {
        let dir = temp_dir("warn");
        // An empty directory is a warning, not an error.
        std::fs::create_dir_all(dir.join("empty")).unwrap();
        std::fs::write(
            dir.join("a.hooks"),
            "hook a on tool.pre_execute { continue }\n",
        )
        .unwrap();
        let (result, printed) = run(&Builder::new()
            .rules(dir.join("empty"))
            .rules(dir.join("a.hooks"))
            .out_dir(dir.join("out")));
        result.unwrap();
        let warnings: Vec<&str> = printed
            .lines()
            .filter(|l| l.starts_with("cargo:warning="))
            .collect();
        assert!(!warnings.is_empty(), "{printed}");
        assert!(
            warnings.iter().any(|w| w.contains("no `.hooks` files")),
            "{printed}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn compile_errors_display_as_rendered_diagnostics() {
        let dir = temp_dir("err");
        std::fs::write(
            dir.join("bad.hooks"),
            "hook bad on tool.nope {\n    abort \"no\"\n}\n",
        )
        .unwrap();
        let (result, printed) = run(&Builder::new().rules(&dir).out_dir(dir.join("out")));
        let err = result.unwrap_err();
        assert!(err.diagnostics().is_some_and(Diagnostics::has_errors));
        let shown = err.to_string();
        assert!(shown.contains("error"), "{shown}");
        assert!(shown.contains("bad.hooks:1:"), "{shown}");
        assert!(shown.contains("could not compile"), "{shown}");
        assert_eq!(format!("{err:?}"), shown);
        // The files are watched even though the build fails.
        assert!(printed.contains("bad.hooks"), "{printed}");
        assert!(!dir.join("out/hooks.tbl").exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn missing_rules_path_is_a_compile_error() {
        let dir = temp_dir("missing");
        let (result, _) = run(&Builder::new()
            .rules(dir.join("nope"))
            .out_dir(dir.join("out")));
        assert!(matches!(result, Err(BuildError::Compile(_))));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn unwritable_output_is_an_io_error() {
        let dir = temp_dir("io");
        std::fs::write(
            dir.join("a.hooks"),
            "hook a on tool.pre_execute { continue }\n",
        )
        .unwrap();
        // The output "directory" is a file.
        std::fs::write(dir.join("out"), "").unwrap();
        let (result, _) = run(&Builder::new()
            .rules(dir.join("a.hooks"))
            .out_dir(dir.join("out")));
        let err = result.unwrap_err();
        assert!(matches!(err, BuildError::Io { .. }), "{err}");
        assert!(err.to_string().starts_with("cannot write"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_table_is_never_written_over_a_rule_source() {
        let dir = temp_dir("over-source");
        let rules = "hook a on tool.pre_execute { continue }\n";
        std::fs::write(dir.join("a.hooks"), rules).unwrap();
        let (result, _) = run(&Builder::new()
            .rules(dir.join("a.hooks"))
            .out_dir(&dir)
            .out_file("a.hooks"));
        let err = result.unwrap_err();
        assert!(matches!(err, BuildError::Output(_)), "{err}");
        assert!(err.to_string().contains("rule sources"), "{err}");
        assert_eq!(std::fs::read_to_string(dir.join("a.hooks")).unwrap(), rules);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn no_out_dir_message() {
        assert!(BuildError::NoOutDir.to_string().contains("OUT_DIR"));
    }
}
