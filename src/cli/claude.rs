//! `hookc claude`: hookc as a Claude Code command hook.
//!
//! Claude Code spawns this once per event (on every tool call, twice), so
//! the path is short: read stdin, find and load the table, dispatch, print
//! the answer [`crate::systems::claude_code::protocol`] builds. No logging subscriber is set up
//! unless `HOOKC_LOG` asks for one, and a compiled table is loaded as bytes.
//! A table is checked against the sources beside it (`.hookc/`): changed
//! sources are compiled into a cache keyed by their digest and used
//! instead, so a stale table never runs silently (`--rules` goes through
//! the same cache).

use super::decision_log;
use super::flush::{flush_bound, flush_webhooks, parse_duration, shown};
use super::{io_reason, print_stderr, print_stdout, Failure, Status};
use crate::effects::ExecConfig;
use crate::ir::FailMode;
use crate::systems::claude_code::protocol::{failure, Event, Response};
use crate::table::ReadError;
use crate::{Effects, Table};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The environment variable that names the table when no flag does.
const TABLE_VAR: &str = "HOOKC_TABLE";

/// The environment variable Claude Code sets to the project's root.
const PROJECT_VAR: &str = "CLAUDE_PROJECT_DIR";

/// The directory, in the project, of the rules `hookc claude` finds itself.
const PROJECT_RULES: &str = ".hookc";

/// The table's name in that directory.
const PROJECT_TABLE: &str = "rules.tbl";

/// Arguments of `hookc claude`.
#[derive(Debug, clap::Args)]
pub(crate) struct ClaudeArgs {
    /// A table written by `hookc compile` (the fast way)
    #[arg(long, value_name = "FILE", conflicts_with = "rules")]
    table: Option<PathBuf>,

    /// `.hooks` files or a directory of them, compiled once per change into
    /// their `cache/` directory
    #[arg(long, value_name = "PATH")]
    rules: Option<PathBuf>,

    /// When the rules or the event cannot be used, block (exit 2) instead
    /// of failing open (exit 0, no decision)
    #[arg(long)]
    fail_closed: bool,

    /// Append one JSON line per event to this file (time, session, event,
    /// tool, rules fired, decision, reason, duration, table digest), rotated
    /// past 1 MiB; also `HOOKC_LOG_FILE`
    #[arg(long, value_name = "FILE")]
    log_file: Option<PathBuf>,

    /// Where `rate(…)` counts live: `file` (the project's `.hookc/state/`,
    /// the default), `memory` (this process only) or a `redis://` URL; also
    /// `HOOKC_RATE_STORE` or `[rate] store` in `hookc.toml`
    #[arg(long, value_name = "STORE")]
    rate_store: Option<String>,

    /// Use only a table signed by this public key (`hookc keygen`'s
    /// `.pub`); an unsigned or modified table, or `.hooks` rules, cannot be
    /// used. Without it, `verify-key` under `[claude]` in the `hookc.toml`
    /// found from the table
    #[arg(long, value_name = "FILE")]
    verify_key: Option<PathBuf>,

    /// Stop the event's commands and handlers this long after hookc
    /// started (`500ms`, `5s`, `1m`); each rule's fail mode applies to
    /// those stopped. Default: below Claude Code's timeout for the event
    /// (50s; UserPromptSubmit 25s, MessageDisplay 8s, SessionEnd 1s)
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    deadline: Option<Duration>,

    /// Wait at most this long for webhooks before exiting (within the
    /// deadline); those not delivered are reported on stderr. Default:
    /// `HOOKC_WEBHOOK_FLUSH`, else 2s
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    webhook_flush: Option<Duration>,
}

/// The deadline of an event's effects when `--deadline` does not set one:
/// below Claude Code's own timeout for the event, which cancels the hook
/// and reads no decision (PROTOCOL.md §8.3): 600 s for most events (60 s
/// before v2.1.3, hence 50 s), 30 s at UserPromptSubmit, 10 s at
/// MessageDisplay, a 1.5 s budget shared by all SessionEnd hooks.
fn default_deadline(event: &str) -> Duration {
    match event {
        "SessionEnd" => Duration::from_secs(1),
        "MessageDisplay" => Duration::from_secs(8),
        "UserPromptSubmit" => Duration::from_secs(25),
        _ => Duration::from_secs(50),
    }
}

/// Answers the event on stdin; the exit code is the answer's (0 or 2).
/// `verbose` (`-v`, `-vv`) logs to stderr as `HOOKC_LOG` does.
pub(crate) fn run(args: ClaudeArgs, verbose: u8) -> Result<Status, Failure> {
    let started = Instant::now();
    init_logging(verbose);
    let mode = if args.fail_closed {
        FailMode::Closed
    } else {
        FailMode::Open
    };
    let mut entry = decision_log::Entry::now();
    // A bug that panics is a policy that cannot be used: it fails by the
    // mode like one, never with the panic's exit code, which Claude Code
    // reads as "no decision" even under `--fail-closed`.
    let answered = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        respond(&args, mode, started, &mut entry)
    }));
    let mut response = answered.unwrap_or_else(|panic| {
        let message = format!(
            "hookc failed on this event: {}",
            crate::runtime::panic_message(panic.as_ref())
        );
        entry.error = Some(message.clone());
        failure(entry.event.as_deref(), &message, mode)
    });
    if let Some(file) = decision_log::path(args.log_file.as_deref(), entry.configured.as_deref()) {
        entry.exit_code = response.exit_code;
        entry.took(started.elapsed());
        if let Err(e) = decision_log::append(&file, &entry) {
            let note = format!(
                "hookc: cannot write the decision log `{}`: {}\n",
                file.display(),
                io_reason(&e)
            );
            response.stderr = Some(response.stderr.unwrap_or_default() + &note);
        }
    }
    Ok(answer(&response))
}

/// The tests' way to check that a panic fails by the mode (see `run`):
/// debug builds panic when `HOOKC_TEST_PANIC` is set.
#[cfg(debug_assertions)]
#[expect(clippy::panic, reason = "a panic is what the tests ask for")]
fn panic_when_asked() {
    if std::env::var_os("HOOKC_TEST_PANIC").is_some() {
        panic!("HOOKC_TEST_PANIC is set");
    }
}

/// Prints a response; its exit code as a status.
fn answer(response: &Response) -> Status {
    if let Some(text) = &response.stdout {
        print_stdout(text);
    }
    if let Some(text) = &response.stderr {
        print_stderr(text);
    }
    if response.exit_code == 2 {
        Status::Reported
    } else {
        Status::Ok
    }
}

/// `hookc claude` was given arguments it cannot use (a typo in the hook
/// command of `settings.json`): the answer follows the fail mode, as for
/// any other unusable setup, and never clap's usage exit 2, which Claude
/// Code reads as a block of every tool call. `--fail-closed` among the
/// arguments blocks; otherwise no decision, with `error` on stderr.
pub(crate) fn bad_arguments(args: &[std::ffi::OsString], error: &str) -> Status {
    let closed = args.iter().any(|a| a == "--fail-closed");
    let mode = if closed {
        FailMode::Closed
    } else {
        FailMode::Open
    };
    // The event's name decides how a block is written (PermissionRequest
    // denies in JSON); the event itself is not used.
    let mut text = String::new();
    let event = std::io::stdin()
        .read_to_string(&mut text)
        .ok()
        .and_then(|_| Event::parse(&text).ok());
    let message = format!(
        "the hook command's arguments cannot be used: {}",
        error.trim_end().trim_start_matches("error: ")
    );
    answer(&failure(event.as_ref().map(Event::name), &message, mode))
}

/// True when the command line runs `hookc claude` (its first word that is
/// not an option), whatever else is wrong with it.
pub(crate) fn is_claude_command(args: &[std::ffi::OsString]) -> bool {
    args.iter()
        .skip(1)
        .find(|a| !a.to_string_lossy().starts_with('-'))
        .is_some_and(|a| a == "claude")
}

/// The bytes read for an event before the buffer grows.
const EVENT_CAPACITY: usize = 16 * 1024;

/// The whole exchange, with every failure turned into a response.
fn respond(
    args: &ClaudeArgs,
    mode: FailMode,
    started: Instant,
    entry: &mut decision_log::Entry,
) -> Response {
    // Room for most events at once: from an empty string, the read grows
    // from 32 bytes, a system call per doubling.
    let mut text = String::with_capacity(EVENT_CAPACITY);
    if let Err(err) = std::io::stdin().read_to_string(&mut text) {
        let message = format!("cannot read the event on stdin: {}", io_reason(&err));
        entry.error = Some(message.clone());
        return failure(None, &message, mode);
    }
    let event = match Event::parse(&text) {
        Ok(event) => event,
        Err(err) => {
            entry.error = Some(err.to_string());
            // Past the depth limit the event is one an agent can build (an
            // MCP tool's input nests as deep as it likes) to switch the
            // rules off under the default fail mode: it is blocked in both.
            let too_deep = matches!(
                err,
                crate::systems::claude_code::protocol::EventError::TooDeep { .. }
            );
            let mode = if too_deep { FailMode::Closed } else { mode };
            return failure(None, &err.to_string(), mode);
        }
    };
    let field = |name: &str| {
        let payload = &event.context().payload;
        payload
            .get(name)
            .and_then(serde_json::Value::as_str)
            .map(str::to_owned)
    };
    entry.event = Some(event.name().to_owned());
    #[cfg(debug_assertions)]
    panic_when_asked();
    entry.session = field("session_id");
    entry.tool = field("tool_name");
    let located = locate(args, &event).and_then(|source| {
        let path = source.path().to_path_buf();
        // Found and read once: it names the decision log and the key.
        let config = Configured::find(&path);
        entry.configured = config.as_ref().and_then(|c| c.config.log_file.clone());
        let (table, note) = source.load(args.verify_key.as_deref(), config.as_ref())?;
        // This process answers one event: the literal searches read their
        // stored beginnings in place rather than build a packed search.
        let table = table.for_one_event();
        // The block of the event's point is read now, not by the dispatch:
        // a corrupted one is a table that does not load, and fails by the
        // mode (the rest of the table is read only where the event goes).
        table
            .check_point(event.name())
            .map_err(|e| format!("cannot load table `{}`: {e}", path.display()))?;
        the_policy(table).map(|table| (table, path, note))
    });
    let (table, rules, freshness) = match located {
        Ok(found) => found,
        Err(message) => {
            entry.error = Some(message.clone());
            return failure(Some(event.name()), &message, mode);
        }
    };
    let budget = args
        .deadline
        .unwrap_or_else(|| default_deadline(event.name()));
    let deadline = started.checked_add(budget);
    let left = || deadline.map(|d| d.saturating_duration_since(Instant::now()));
    let mut effects = Effects::new();
    let dir = project_dir(&event);
    // Rules read the hook's environment (`env(…)`) and measure paths from
    // the project (`relpath(…)`). A path is measured as it is written, so
    // an event's `cwd` is the project even where no directory of that
    // name is here to run commands in.
    let project = env_path(PROJECT_VAR)
        .and_then(|d| d.to_str().map(str::to_owned))
        .or_else(|| event.cwd().filter(|cwd| !cwd.is_empty()).map(str::to_owned));
    effects = effects.with_host_facts(crate::event::HostFacts::from_process(project.as_deref()));
    if let Some(dir) = dir {
        effects = effects.with_exec(ExecConfig::new().with_project_dir(dir));
    }
    if let Some(left) = left() {
        effects = effects.with_dispatch_deadline(left);
    }
    let mut notes = freshness.unwrap_or_default();
    if table.has_rate_tests() {
        let store = super::rate_store::for_event(args.rate_store.as_deref(), &rules, &event);
        notes.push_str(&super::rate_store::note(&store).unwrap_or_default());
        effects = effects.with_rate_store(store);
    }
    let report = event.dispatch_with(&table, &effects);
    entry.fired.clone_from(&report.fired);
    entry.decision = report.decision.map(|d| match d {
        crate::runtime::Decision::Allow => "allow",
        crate::runtime::Decision::Ask => "ask",
        crate::runtime::Decision::Deny => "deny",
    });
    entry.reason.clone_from(&report.reason);
    let digest = table.source_digest();
    entry.table = (!digest.is_empty()).then(|| digest.to_string());
    let mut response = event.answer(&report);
    // The senders die with the process: wait for them, within the
    // deadline, and say what did not arrive.
    let (mut bound, note) = match args.webhook_flush {
        Some(bound) => (bound, None),
        None => flush_bound(),
    };
    if let Some(left) = left() {
        bound = bound.min(left);
    }
    notes.push_str(&note.unwrap_or_default());
    let undelivered = flush_webhooks(&effects, bound);
    if !undelivered.is_empty() && bound.is_zero() {
        notes.push_str(&format!(
            "{undelivered}hookc: the deadline ({}) left no time to deliver webhooks\n",
            shown(budget)
        ));
    } else {
        notes.push_str(&undelivered);
    }
    if !notes.is_empty() {
        response.stderr = Some(response.stderr.unwrap_or_default() + &notes);
    }
    // The process ends right after the answer is printed: freeing the
    // table's thousands of allocations, the event's tree and the report
    // one by one would only add to every tool call's latency (2-6 % of a
    // musl hook's instructions: BENCHMARKS.md).
    std::mem::forget((table, event, report, text));
    response
}

/// The table, if it can be the policy of Claude Code events: a table of
/// another schema has no point named like a Claude Code event, and a table
/// without rules decides nothing, so either would answer every event with
/// no decision, as if there were no policy.
fn the_policy(table: Table) -> Result<Table, String> {
    if table.schema() != crate::systems::claude_code::schema::NAME {
        return Err(format!(
            "the table's schema is `{}`, not `{}`: its points are not Claude Code events, so none of its rules would run",
            table.schema(),
            crate::systems::claude_code::schema::NAME
        ));
    }
    if table.rule_entries() == 0 {
        return Err("the table has no rules".to_string());
    }
    Ok(table)
}

/// Where the rules are.
#[derive(Debug)]
enum Source {
    /// A compiled table.
    Table(PathBuf),
    /// `.hooks` files to compile.
    Rules(PathBuf),
}

/// The rules, in order: `--table` or `--rules`; `HOOKC_TABLE`; in the
/// project (`CLAUDE_PROJECT_DIR`, else the event's `cwd`),
/// `.hookc/rules.tbl`, else the `.hooks` files in `.hookc/`.
fn locate(args: &ClaudeArgs, event: &Event) -> Result<Source, String> {
    if let Some(path) = &args.table {
        return Ok(Source::Table(path.clone()));
    }
    if let Some(path) = &args.rules {
        return Ok(Source::Rules(path.clone()));
    }
    if let Some(path) = env_path(TABLE_VAR) {
        return Ok(Source::Table(path));
    }
    let project = env_path(PROJECT_VAR)
        .or_else(|| event.cwd().filter(|cwd| !cwd.is_empty()).map(PathBuf::from));
    let Some(project) = project else {
        return Err(format!(
            "no rules: no `--table` or `--rules`, `{TABLE_VAR}` and `{PROJECT_VAR}` are unset, and the event has no `cwd`"
        ));
    };
    let dir = project.join(PROJECT_RULES);
    let table = dir.join(PROJECT_TABLE);
    if table.is_file() {
        Ok(Source::Table(table))
    } else if dir.is_dir() {
        Ok(Source::Rules(dir))
    } else {
        Err(format!(
            "no rules: no `--table` or `--rules`, `{TABLE_VAR}` is unset, and there is no `{}` or `{}` directory",
            table.display(),
            dir.display()
        ))
    }
}

/// The directory relative paths in effects (`exec` programs, `trace`
/// files, Lua scripts) resolve against, and commands run in:
/// `CLAUDE_PROJECT_DIR`, which stays where the session started, else the
/// event's `cwd` when it is a directory. Never the process's own working
/// directory when either is known: the agent moves that with `cd`.
fn project_dir(event: &Event) -> Option<PathBuf> {
    env_path(PROJECT_VAR).or_else(|| {
        event
            .cwd()
            .filter(|cwd| !cwd.is_empty())
            .map(PathBuf::from)
            .filter(|cwd| cwd.is_dir())
    })
}

/// A non-empty environment variable as a path.
fn env_path(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|value| !value.is_empty())
        .map(PathBuf::from)
}

impl Source {
    /// The table file or the rules' path.
    fn path(&self) -> &Path {
        match self {
            Source::Table(path) | Source::Rules(path) => path,
        }
    }

    /// The table, or what went wrong in one message, with a note for
    /// stderr. With a verify key (`flag`, else the `hookc.toml` found from
    /// the source), only a table signed by it. `.hooks` rules, and a
    /// `.hookc/` table whose sources changed since it was compiled, go
    /// through the compiled cache (see [`cached`]).
    fn load(
        self,
        flag: Option<&Path>,
        config: Option<&Configured>,
    ) -> Result<(Table, Option<String>), String> {
        let key = verify_key(flag, config)?;
        match (self, key) {
            (Source::Table(path), Some(key)) => {
                let table = load_table(&path, Some(&key))?;
                // A signed table is the policy as signed; changed sources
                // beside it cannot be, but are worth a word.
                let note = beside(&path)
                    .filter(|dir| crate::load::source_digest(&[dir]) != table.source_digest())
                    .map(|dir| {
                        format!(
                            "hookc: the sources in `{}` changed since the signed table `{}` was compiled; the signed table is used\n",
                            dir.display(),
                            path.display()
                        )
                    });
                Ok((table, note))
            }
            (Source::Table(path), None) => {
                let table = load_table(&path, None)?;
                let Some(dir) = beside(&path) else {
                    return Ok((table, None));
                };
                let digest = crate::load::source_digest(&[&dir]);
                if digest == table.source_digest() {
                    return Ok((table, None));
                }
                let fresh = cached(&dir, &digest).map_err(|e| {
                    format!("`{}` is older than the rules beside it, and {e}", path.display())
                })?;
                let note = format!(
                    "hookc: `{}` is older than the rules in `{}`; they were used instead (recompile it: `hookc compile {} -o {}`)\n",
                    path.display(),
                    dir.display(),
                    dir.display(),
                    path.display()
                );
                Ok((fresh, Some(note)))
            }
            (Source::Rules(path), Some(key)) => Err(format!(
                "`{}` holds `.hooks` rules, which are not signed, and tables must be signed by key {}: compile and sign them (`hookc compile {} -o TABLE --sign KEYFILE`)",
                path.display(),
                key.id(),
                path.display()
            )),
            (Source::Rules(path), None) => {
                let digest = crate::load::source_digest(&[&path]);
                let cache_dir = if path.is_dir() {
                    path.clone()
                } else {
                    path.parent().map(Path::to_path_buf).unwrap_or_default()
                };
                cached_compile(&path, &cache_dir, &digest).map(|t| (t, None))
            }
        }
    }
}

/// The rules directory a table was compiled from, when the table sits in
/// it as the project layout puts it (`.hookc/rules.tbl` beside
/// `.hookc/*.hooks`): only then are the `.hooks` files beside a table its
/// sources.
fn beside(table: &Path) -> Option<PathBuf> {
    let dir = table.parent()?;
    // The name first: a table anywhere else needs no directory listing.
    if dir.file_name().is_none_or(|n| n != PROJECT_RULES) {
        return None;
    }
    let has_rules = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .any(|e| e.path().extension().is_some_and(|x| x == "hooks"));
    has_rules.then(|| dir.to_path_buf())
}

/// The rules of `dir` compiled, from the cache when they were before.
fn cached(dir: &Path, digest: &str) -> Result<Table, String> {
    cached_compile(dir, dir, digest)
}

/// The directory, under a rules directory, of tables compiled from its
/// sources, each named by the sources' digest, the table format and the
/// build of hookc that compiled it: only the first event after an edit
/// pays for compiling.
const CACHE_DIR: &str = "cache";

/// This build of hookc, as the cache's file names carry it (see
/// `build.rs`): a table another build compiled is compiled again, since it
/// may be read differently (a wire form changed under the same format
/// version) or decide differently (a compiler fixed since).
const BUILD_ID: &str = env!("HOOKC_BUILD_ID");

/// The name of the cached table of the sources with `digest`.
fn cache_name(digest: &str) -> String {
    format!("{digest}-v{}-{BUILD_ID}.tbl", crate::table::VERSION)
}

/// `rules` compiled, or the table of the same sources compiled before
/// by this build (`cache_dir/cache/DIGEST-vVERSION-BUILD.tbl`). A table is
/// written to the cache atomically, and the tables of other sources or
/// builds are then removed; a cache that cannot be written costs a compile
/// per event, not the answer.
fn cached_compile(rules: &Path, cache_dir: &Path, digest: &str) -> Result<Table, String> {
    let dir = cache_dir.join(CACHE_DIR);
    let name = cache_name(digest);
    let file = dir.join(&name);
    if let Ok(bytes) = std::fs::read(&file) {
        if let Ok(table) = in_place(bytes, Table::from_static, Table::from_owned_bytes) {
            if table.source_digest() == digest {
                return Ok(table);
            }
        }
    }
    let table = compile_rules(rules)?;
    let written =
        std::fs::create_dir_all(&dir).and_then(|()| crate::output::write(&file, &table.to_bytes()));
    match written {
        Ok(()) => remove_stale(&dir, &name),
        Err(e) => tracing::debug!(
            "cannot cache the compiled rules in `{}`: {e}",
            file.display()
        ),
    }
    Ok(table)
}

/// Removes the cached tables in `dir` other than `kept`: those of sources
/// since edited, and those another build or format version compiled,
/// which no event reads again. Only files named as the cache names them
/// are removed; a table that cannot be removed stays.
fn remove_stale(dir: &Path, kept: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    // DIGEST-v…: the digest is as long as the kept table's.
    let digest_len = kept.find('-').unwrap_or(0);
    let cached = |name: &str| {
        name.ends_with(".tbl")
            && name
                .get(digest_len..)
                .is_some_and(|rest| rest.starts_with("-v"))
            && name.bytes().take(digest_len).all(|b| b.is_ascii_hexdigit())
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let stale = name.to_str().is_some_and(|n| n != kept && cached(n));
        if stale {
            if let Err(e) = std::fs::remove_file(entry.path()) {
                tracing::debug!("cannot remove `{}`: {e}", entry.path().display());
            }
        }
    }
}

/// The `hookc.toml` found from a table or rules directory, read.
struct Configured {
    file: PathBuf,
    config: crate::config::Config,
    diags: crate::diag::Diagnostics,
}

impl Configured {
    fn find(source: &Path) -> Option<Configured> {
        let file = crate::config::Config::find(source)?;
        let (config, diags) = crate::config::Config::load(&file);
        Some(Configured {
            file,
            config,
            diags,
        })
    }
}

/// The public key tables must be signed by: `--verify-key`, else the
/// `[claude]` `verify-key` of the `hookc.toml` found from the source. A
/// configuration that cannot be read fails: it may be what asks for
/// signatures.
fn verify_key(
    flag: Option<&Path>,
    config: Option<&Configured>,
) -> Result<Option<crate::table::PublicKey>, String> {
    if let Some(path) = flag {
        return super::keygen::read_public_key(path).map(Some);
    }
    let Some(found) = config else {
        return Ok(None);
    };
    if found.diags.has_errors() {
        return Err(format!(
            "the configuration `{}` has errors:\n{}",
            found.file.display(),
            crate::diag::render::human(&found.diags, false).trim_end()
        ));
    }
    found
        .config
        .verify_key
        .as_deref()
        .map(super::keygen::read_public_key)
        .transpose()
}

/// The table at `path`. Unsigned and in a regular file, it is read as far
/// as its directory, and each automaton when the event first needs it
/// (see `Table::read_file`): an event reads a small part of a large
/// table. Verified against `key`, it is read whole, since the signature
/// covers every byte; so is a table that is not in a regular file (a
/// pipe, `--table <(…)`), which cannot be read at an offset.
fn load_table(path: &Path, key: Option<&crate::table::PublicKey>) -> Result<Table, String> {
    let cannot_read =
        |e: &std::io::Error| format!("cannot read table `{}`: {}", path.display(), io_reason(e));
    let cannot_load =
        |e: &dyn std::fmt::Display| format!("cannot load table `{}`: {e}", path.display());
    let mut file = std::fs::File::open(path).map_err(|e| cannot_read(&e))?;
    let regular = file.metadata().map_err(|e| cannot_read(&e))?.is_file();
    if regular && key.is_none() {
        return Table::read_file(file).map_err(|e| match e {
            ReadError::Io(e) => cannot_read(&e),
            ReadError::Load(e) => cannot_load(&e),
        });
    }
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).map_err(|e| cannot_read(&e))?;
    match key {
        Some(key) => in_place(
            bytes,
            |b| Table::from_static_verified(b, key),
            |b| Table::from_owned_bytes_verified(b, key),
        ),
        None => in_place(bytes, Table::from_static, Table::from_owned_bytes),
    }
    .map_err(|e| cannot_load(&e))
}

/// A table loaded from bytes that live as long as the process: this
/// process answers one event and exits, so the bytes are kept (leaked)
/// rather than copied, and the DFAs the event reaches are read where they
/// lie instead of being copied out of them. Bytes that are not 4-byte
/// aligned (an allocator that does not align them) are loaded as owned
/// bytes.
fn in_place(
    bytes: Vec<u8>,
    load_static: impl FnOnce(&'static [u8]) -> Result<Table, crate::table::LoadError>,
    load_owned: impl FnOnce(Vec<u8>) -> Result<Table, crate::table::LoadError>,
) -> Result<Table, crate::table::LoadError> {
    if (bytes.as_ptr() as usize).is_multiple_of(4) {
        load_static(bytes.leak())
    } else {
        load_owned(bytes)
    }
}

fn compile_rules(path: &Path) -> Result<Table, String> {
    let paths = [path.to_path_buf()];
    if let Err(err) = std::fs::metadata(path) {
        return Err(format!(
            "cannot read rules `{}`: {}",
            path.display(),
            io_reason(&err)
        ));
    }
    let (options, config_diags) = super::load_config(&paths, None).map_err(|f| f.message)?;
    if config_diags.has_errors() {
        return Err(format!(
            "the configuration of `{}` has errors:\n{}",
            path.display(),
            crate::diag::render::human(&config_diags, false)
        ));
    }
    crate::compile_paths(&paths, &options)
        .map(|compiled| compiled.table)
        .map_err(|diags| {
            format!(
                "the rules in `{}` do not compile:\n{}",
                path.display(),
                crate::diag::render::human(&diags, false).trim_end()
            )
        })
}

/// A stderr logger filtered by `HOOKC_LOG` (`info`, `hookc=debug`, …), or
/// by `-v` (`info`) / `-vv` (`debug`), only when one is given: setting one
/// up costs time on every tool call.
fn init_logging(verbose: u8) {
    use tracing_subscriber::EnvFilter;
    let from_env = std::env::var("HOOKC_LOG")
        .ok()
        .filter(|s| !s.trim().is_empty())
        .and_then(|s| EnvFilter::try_new(s).ok());
    let from_flag = match verbose {
        0 => None,
        1 => Some(EnvFilter::new("info")),
        2 => Some(EnvFilter::new("debug")),
        _ => Some(EnvFilter::new("trace")),
    };
    let Some(filter) = from_env.or(from_flag) else {
        return;
    };
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .without_time()
        .try_init();
}
