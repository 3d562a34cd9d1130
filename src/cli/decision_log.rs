//! The decision log of `hookc claude`: one JSON line per event, appended
//! to the file `--log-file` or `HOOKC_LOG_FILE` names, so that what the
//! hook decided can be read after the fact.
//!
//! A line holds the time (Unix milliseconds), the session, the event, the
//! tool, the rules that fired, the decision and its reason, what went
//! wrong when the rules could not be used, the time the hook took, and the
//! digest of the sources the table was compiled from. The file is capped:
//! past [`CAP`] bytes it becomes `FILE.1` (replacing the one before) and a
//! new file starts. Each line is one append, so concurrent hooks do not
//! interleave within a line. A log that cannot be written costs a note on
//! stderr, never the answer.

use serde::Serialize;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The environment variable that names the log file when no flag does.
pub(super) const LOG_FILE_VAR: &str = "HOOKC_LOG_FILE";

/// The size past which the log is rotated.
pub(super) const CAP: u64 = 1 << 20;

/// What one event's line says.
#[derive(Debug, Default, Serialize)]
pub(super) struct Entry {
    /// Unix time of the event, in milliseconds.
    pub(super) time_ms: u128,
    /// Claude Code's `session_id`.
    pub(super) session: Option<String>,
    /// The event's name.
    pub(super) event: Option<String>,
    /// The tool, for tool events.
    pub(super) tool: Option<String>,
    /// The rules that fired, in order.
    pub(super) fired: Vec<String>,
    /// `allow`, `ask`, `deny`, or `null` for no decision.
    pub(super) decision: Option<&'static str>,
    /// The decision's reason.
    pub(super) reason: Option<String>,
    /// Why the rules could not be used (the fail mode then answered).
    pub(super) error: Option<String>,
    /// The exit code the hook answered with.
    pub(super) exit_code: i32,
    /// How long the hook took, in milliseconds.
    pub(super) duration_ms: f64,
    /// The digest of the sources the table was compiled from.
    pub(super) table: Option<String>,
    /// The log file the `hookc.toml` found from the rules names.
    #[serde(skip)]
    pub(super) configured: Option<PathBuf>,
}

impl Entry {
    /// An entry stamped now.
    pub(super) fn now() -> Entry {
        Entry {
            time_ms: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_millis()),
            ..Entry::default()
        }
    }

    /// Sets the time taken, to the microsecond (a log line reads
    /// `1.397`, not the float's `1.3972029999999999`).
    pub(super) fn took(&mut self, elapsed: Duration) {
        self.duration_ms = elapsed.as_micros() as f64 / 1000.0;
    }
}

/// The log file: `flag`, else `HOOKC_LOG_FILE`, else `configured` (`log-file`
/// under `[claude]` in the `hookc.toml` found from the rules); none when
/// none is set.
pub(super) fn path(flag: Option<&Path>, configured: Option<&Path>) -> Option<PathBuf> {
    flag.map(Path::to_path_buf)
        .or_else(|| {
            std::env::var_os(LOG_FILE_VAR)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        })
        .or_else(|| configured.map(Path::to_path_buf))
}

/// Appends `entry` to `file` as one line, rotating first when the file is
/// past [`CAP`].
///
/// # Errors
///
/// Any I/O error.
pub(super) fn append(file: &Path, entry: &Entry) -> std::io::Result<()> {
    if std::fs::metadata(file).is_ok_and(|m| m.len() >= CAP) {
        let mut rotated = file.as_os_str().to_owned();
        rotated.push(".1");
        std::fs::rename(file, rotated)?;
    }
    let mut line = serde_json::to_string(entry).map_err(std::io::Error::other)?;
    line.push('\n');
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(file)?
        .write_all(line.as_bytes())
}
