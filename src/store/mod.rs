//! Where `rate(…)` counts live: the home of [`RateStore`].
//!
//! A `rate("{component}") > 100 per 60s` condition records each event it
//! sees under the key the template renders to and counts the key's events
//! in the sliding window. Where those events are recorded is the host's
//! choice, made in its [`Effects`](crate::Effects)
//! ([`Effects::with_rate_store`](crate::Effects::with_rate_store)), not the
//! table's:
//!
//! - [`RateStore::Memory`] (the default): in the dispatching process, for a
//!   long-lived host. The counters are the [`MemoryStore`] of the host's
//!   effects, found by key template and window like a shared store's, so
//!   a [`Registry`](crate::Registry) keeps its counts across
//!   [`reload`](crate::Registry::reload)s. Time is
//!   the process's monotonic clock, so clock steps do not matter. Exact,
//!   bounded, and the fastest: no I/O, no allocation beyond a new key.
//! - [`RateStore::File`]: a small file under a directory (by default the
//!   project's `.hookc/state/`), shared by every process of one machine that
//!   uses it; for hosts that run one process per event, such as
//!   `hookc claude`. Each count is one locked read-modify-replace of the
//!   file. See [`FileStore`].
//! - `RateStore::Redis` (the `redis` cargo feature): a Redis server shared by
//!   a fleet of hosts; each count is one atomic script call, one round trip.
//!   See `RedisStore`.
//!
//! All three count the same way: an event leaves the count exactly `window`
//! after it arrived, and per key only the newest `keep` arrivals are kept
//! (one more than the largest limit a test of the counter compares with),
//! which decides every test exactly. Two tests with the same key template
//! and window share one counter, in every store and across tables: a shared
//! store identifies a counter by a digest of its key template, window and
//! rendered key, so every process (and every version of the rules) with the
//! same `rate(…)` counts together.
//!
//! # Time
//!
//! Memory counts with [`Instant`](std::time::Instant). A store shared by
//! processes needs one clock for all of them: the file store uses the
//! machine's wall clock (milliseconds since the Unix epoch), and the Redis
//! store the server's (`TIME`), so the clocks of a fleet's hosts do not
//! matter. A clock that steps *back* leaves arrivals in the future: those
//! are treated as arriving now, so they count for one more window at most.
//! A clock that steps *forward* ages arrivals early: for at most one window,
//! the count is lower than it should be.
//!
//! # Failures
//!
//! A store that cannot count (the file cannot be locked or written, Redis is
//! down, no store could be set up: [`RateStore::Unavailable`]) is a failure
//! of every rule whose condition asked it, handled by the rule's failure
//! mode like a failed effect: under `fail open` the rule does not fire, with
//! a warning; under `fail closed` the chain aborts with a reason that names
//! the rule and the store.

pub mod file;
pub mod memory;
#[cfg(feature = "redis")]
pub mod redis;

#[cfg(feature = "redis")]
pub use self::redis::RedisStore;
pub use file::FileStore;
pub use memory::MemoryStore;

use crate::ir::{Template, TemplatePart};
use sha2::{Digest, Sha256};
use std::fmt;
use std::path::Path;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

/// Where a host keeps the counts of `rate(…)` conditions. See the
/// [module docs](self).
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub enum RateStore {
    /// In the dispatching process's memory (the default).
    #[default]
    Memory,
    /// A file shared by the processes of one machine.
    File(Arc<FileStore>),
    /// A Redis server shared by many hosts.
    #[cfg(feature = "redis")]
    Redis(Arc<RedisStore>),
    /// No store could be set up: every `rate(…)` test fails with this error,
    /// and its rule's failure mode decides.
    Unavailable(StoreError),
}

impl RateStore {
    /// A [`FileStore`] in `dir`, with its default bounds.
    pub fn file(dir: impl Into<std::path::PathBuf>) -> RateStore {
        RateStore::File(Arc::new(FileStore::new(dir)))
    }

    /// The store a [`StoreSpec`] names; `project` is the directory under
    /// whose `.hookc/state/` the file store lives. A store that cannot be
    /// set up (no project directory for `file`, a Redis URL this build or
    /// the `redis` crate does not accept) is [`RateStore::Unavailable`].
    pub fn from_spec(spec: &StoreSpec, project: Option<&Path>) -> RateStore {
        match spec {
            StoreSpec::Memory => RateStore::Memory,
            StoreSpec::File => match project {
                Some(project) => RateStore::File(Arc::new(FileStore::in_project(project))),
                None => RateStore::Unavailable(StoreError::new(
                    "the rate file",
                    "there is no project directory to keep it in",
                )),
            },
            #[cfg(feature = "redis")]
            StoreSpec::Redis(url) => match RedisStore::open(url) {
                Ok(store) => RateStore::Redis(Arc::new(store)),
                Err(e) => RateStore::Unavailable(e),
            },
            #[cfg(not(feature = "redis"))]
            StoreSpec::Redis(url) => RateStore::Unavailable(StoreError::new(
                redact_url(url),
                "this build has no Redis client (the `redis` cargo feature)",
            )),
        }
    }

    /// True for [`RateStore::Memory`]: counts do not leave the process.
    pub fn is_memory(&self) -> bool {
        matches!(self, RateStore::Memory)
    }

    /// Records one event of `key` for `counter` and returns how many of
    /// the key's events are in the window, this one included (at most
    /// `counter.keep`). Not for [`RateStore::Memory`], whose counters the
    /// dispatch holds itself (it answers 0).
    pub(crate) fn hit(&self, counter: &Counter<'_>, key: &str) -> Result<Hit, StoreError> {
        match self {
            RateStore::Memory => Ok(Hit {
                count: 0,
                warning: None,
            }),
            RateStore::File(store) => store.hit(counter, key),
            #[cfg(feature = "redis")]
            RateStore::Redis(store) => store.hit(counter, key),
            RateStore::Unavailable(e) => Err(e.clone()),
        }
    }
}

impl fmt::Display for RateStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RateStore::Memory => f.write_str("memory"),
            RateStore::File(store) => write!(f, "the rate file `{}`", store.path().display()),
            #[cfg(feature = "redis")]
            RateStore::Redis(store) => f.write_str(store.name()),
            RateStore::Unavailable(e) => write!(f, "{} (unavailable)", e.store()),
        }
    }
}

/// A store as a setting names it (`--rate-store`, `HOOKC_RATE_STORE`,
/// `[rate] store` in `hookc.toml`): `memory`, `file`, or a `redis://`
/// (`rediss://`, `redis+unix://`) URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoreSpec {
    /// `memory`: counts stay in the process.
    Memory,
    /// `file`: the project's `.hookc/state/rates`.
    File,
    /// A Redis URL.
    Redis(String),
}

impl StoreSpec {
    /// What `memory`, `file` and Redis URLs look like, for messages.
    pub const EXPECTED: &'static str = "`file`, `memory` or a `redis://host:port` URL";

    /// Parses a setting.
    ///
    /// # Errors
    ///
    /// A message saying what is accepted, for anything else.
    ///
    /// # Example
    ///
    /// ```
    /// use hookc::store::StoreSpec;
    /// assert_eq!(StoreSpec::parse("file"), Ok(StoreSpec::File));
    /// assert!(matches!(StoreSpec::parse("redis://127.0.0.1:6379"), Ok(StoreSpec::Redis(_))));
    /// assert!(StoreSpec::parse("disk").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<StoreSpec, String> {
        let text = text.trim();
        match text {
            "memory" => Ok(StoreSpec::Memory),
            "file" => Ok(StoreSpec::File),
            _ if ["redis://", "rediss://", "redis+unix://", "unix://"]
                .iter()
                .any(|scheme| text.starts_with(scheme)) =>
            {
                Ok(StoreSpec::Redis(text.to_string()))
            }
            _ => Err(format!(
                "unknown rate store `{}`: expected {}",
                redact_url(text),
                StoreSpec::EXPECTED
            )),
        }
    }
}

impl fmt::Display for StoreSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreSpec::Memory => f.write_str("memory"),
            StoreSpec::File => f.write_str("file"),
            StoreSpec::Redis(url) => f.write_str(&redact_url(url)),
        }
    }
}

/// Why a store could not count an event.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cannot count `rate(…)` in {store}: {reason}")]
pub struct StoreError {
    store: String,
    reason: String,
}

impl StoreError {
    pub(crate) fn new(store: impl Into<String>, reason: impl Into<String>) -> StoreError {
        StoreError {
            store: store.into(),
            reason: reason.into(),
        }
    }

    /// The store, as messages name it (a Redis URL without its password).
    pub fn store(&self) -> &str {
        &self.store
    }

    /// What went wrong.
    pub fn reason(&self) -> &str {
        &self.reason
    }
}

/// One counter, as a shared store sees it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Counter<'a> {
    /// The key template.
    pub(crate) template: &'a Template,
    /// The window, in milliseconds.
    pub(crate) window_ms: u64,
    /// Arrivals kept per key.
    pub(crate) keep: u32,
}

impl Counter<'_> {
    /// The identity of `key`'s count in a shared store: a digest of the
    /// key template, the window and the rendered key, the same in every
    /// process and for every table with this `rate(…)`.
    pub(crate) fn digest(&self, key: &str) -> [u8; 16] {
        let mut hash = self.hashed(b"hookc rate v1\0");
        hash.update(b"\0");
        hash.update(key.as_bytes());
        first_16(&hash.finalize())
    }

    /// The identity of the counter itself (every key): a digest of the key
    /// template and the window, which the [`MemoryStore`] finds it by.
    pub(crate) fn id(&self) -> [u8; 16] {
        first_16(&self.hashed(b"hookc rate counter v1\0").finalize())
    }

    /// A hash of `domain`, the window and the key template.
    fn hashed(&self, domain: &[u8]) -> Sha256 {
        let mut hash = Sha256::new();
        hash.update(domain);
        hash.update(self.window_ms.to_le_bytes());
        for part in &self.template.parts {
            match part {
                TemplatePart::Lit(text) => {
                    hash.update(b"L");
                    hash.update((text.len() as u64).to_le_bytes());
                    hash.update(text.as_bytes());
                }
                TemplatePart::Path(path) => {
                    let path = path.to_string();
                    hash.update(b"P");
                    hash.update((path.len() as u64).to_le_bytes());
                    hash.update(path.as_bytes());
                }
                // The checker keeps captures out of rate keys; a hand-made
                // table's is hashed by its shape.
                TemplatePart::Expr(expr) => {
                    let shape = format!("{expr:?}");
                    hash.update(b"C");
                    hash.update((shape.len() as u64).to_le_bytes());
                    hash.update(shape.as_bytes());
                }
            }
        }
        hash
    }
}

fn first_16(full: &[u8]) -> [u8; 16] {
    let mut digest = [0u8; 16];
    for (d, s) in digest.iter_mut().zip(full.iter()) {
        *d = *s;
    }
    digest
}

/// What a shared store answers for one event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Hit {
    /// The key's events in the window, this one included (at most `keep`).
    pub(crate) count: usize,
    /// Something the host should hear about (a corrupt file was reset).
    pub(crate) warning: Option<String>,
}

/// The wall clock in milliseconds since the Unix epoch (0 before it).
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// Updates one key's arrivals (oldest first) with an event at `now` and
/// returns the count: arrivals later than `now` (the clock stepped back)
/// are moved to `now`, those `window_ms` or more before `now` leave, and
/// only the newest `keep` stay.
pub(crate) fn slide(arrivals: &mut Vec<u64>, now: u64, window_ms: u64, keep: u32) -> usize {
    for t in arrivals.iter_mut() {
        if *t > now {
            *t = now;
        }
    }
    arrivals.push(now);
    let keep = usize::try_from(keep.max(1)).unwrap_or(usize::MAX);
    let expired = arrivals
        .iter()
        .take_while(|&&t| now.saturating_sub(t) >= window_ms)
        .count();
    let surplus = arrivals.len().saturating_sub(keep);
    arrivals.drain(..expired.max(surplus));
    arrivals.len()
}

/// A Redis URL as messages show it: without a password.
pub(crate) fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let (authority, path) = rest.split_at(authority_end);
    match authority.rsplit_once('@') {
        Some((_, host)) => format!("{scheme}://***@{host}{path}"),
        None => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_say_what_they_expect() {
        assert_eq!(StoreSpec::parse(" memory "), Ok(StoreSpec::Memory));
        assert_eq!(StoreSpec::parse("file"), Ok(StoreSpec::File));
        assert_eq!(
            StoreSpec::parse("redis://127.0.0.1:6379/2"),
            Ok(StoreSpec::Redis("redis://127.0.0.1:6379/2".into()))
        );
        let err = StoreSpec::parse("https://user:secret@example.com").unwrap_err();
        assert!(!err.contains("secret"), "{err}");
        assert!(err.contains("expected `file`, `memory`"), "{err}");
    }

    #[test]
    fn passwords_never_reach_messages() {
        assert_eq!(
            redact_url("redis://:hunter2@10.0.0.1:6379/0"),
            "redis://***@10.0.0.1:6379/0"
        );
        assert_eq!(redact_url("redis://h:1"), "redis://h:1");
        assert_eq!(
            StoreSpec::Redis("redis://u:p@h/1".into()).to_string(),
            "redis://***@h/1"
        );
    }

    #[test]
    fn the_window_slides_like_the_memory_counter() {
        let mut a = Vec::new();
        let counts: Vec<usize> = [0, 400, 900, 1000, 1399, 1400]
            .into_iter()
            .map(|t| slide(&mut a, t, 1000, 10))
            .collect();
        // The first event leaves exactly one window after it came.
        assert_eq!(counts, [1, 2, 3, 3, 4, 4]);
        assert_eq!(slide(&mut a, 5000, 1000, 10), 1);
        // Only the newest `keep` stay.
        let mut a = Vec::new();
        let counts: Vec<usize> = (0..6).map(|t| slide(&mut a, t, 100, 4)).collect();
        assert_eq!(counts, [1, 2, 3, 4, 4, 4]);
        assert_eq!(a, [2, 3, 4, 5]);
    }

    #[test]
    fn a_clock_stepped_back_counts_future_arrivals_as_now() {
        let mut a = vec![10_000, 10_500];
        // The clock went back to 2,000: both earlier arrivals count as now
        // and leave one window from now, not from the future.
        assert_eq!(slide(&mut a, 2000, 1000, 10), 3);
        assert_eq!(a, [2000, 2000, 2000]);
        assert_eq!(slide(&mut a, 3000, 1000, 10), 1);
    }

    #[test]
    fn digests_tell_templates_windows_and_keys_apart() {
        let component = Template {
            parts: vec![TemplatePart::Path(crate::ir::FieldPath {
                root: crate::ir::Root::Component,
                segments: Vec::new(),
                normalized: false,
            })],
        };
        let literal = Template::literal("component");
        let c = |template, window_ms| Counter {
            template,
            window_ms,
            keep: 3,
        };
        let a = c(&component, 1000).digest("x");
        assert_eq!(a, c(&component, 1000).digest("x"), "stable");
        assert_ne!(a, c(&component, 1000).digest("y"));
        assert_ne!(a, c(&component, 2000).digest("x"));
        assert_ne!(a, c(&literal, 1000).digest("x"));
        // `keep` is not part of the identity: a raised limit keeps counting.
        let mut more = c(&component, 1000);
        more.keep = 30;
        assert_eq!(a, more.digest("x"));
    }
}
