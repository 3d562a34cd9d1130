//! `webhook`: post an event summary from a bounded background pool.
//!
//! A rule's `webhook "https://…"` tells someone outside that it fired. It
//! is fire-and-forget: the dispatching thread builds a small JSON summary,
//! checks the destination and hands the delivery to a pool of background
//! threads; it never waits for the network, and a webhook never changes the
//! outcome (one that cannot be queued is a warning, whatever the rule's
//! failure mode).
//!
//! # The summary
//!
//! The body is one JSON object, `Content-Type: application/json`:
//!
//! ```json
//! {
//!   "hook": "notify-exec",
//!   "point": "tool.pre_execute",
//!   "timestamp_ms": 1767225600000,
//!   "event_timestamp_ms": 12345678,
//!   "target": {"component": "builtin::llm", "child": null, "instance": null},
//!   "depth": 0,
//!   "sizes": {"payload_bytes": 68, "payload_keys": 2, "metadata_keys": 0},
//!   "fields": {"payload.tool": "exec"}
//! }
//! ```
//!
//! `hook` is the rule's id, `timestamp_ms` the Unix time in milliseconds
//! when the delivery was queued, `event_timestamp_ms` the context's own
//! `timestamp_ms`. `sizes` counts without showing: the payload's size as
//! compact JSON, its top-level keys (elements for an array, 0 for a
//! scalar) and the metadata's keys. No payload or metadata text is ever in
//! the body unless the rule names it: `fields` has one entry per `include`
//! path, keyed by the path as written, `null` when the field is missing.
//!
//! # The guard
//!
//! Before queueing, the URL goes through [`net_guard::check_url`] (https
//! only, no user-info, no local or metadata host, no internal address in
//! any numeric form) and each header through [`net_guard::check_header`]
//! (no `Host`, `Authorization`, `Cookie`, `Proxy-*`, `Forwarded`,
//! `X-Forwarded-*`, `X-Real-IP`, `Connection`, `Transfer-Encoding`, …):
//! the `insecure-webhook` lint checks the same at compile time, but it can
//! be silenced, so the runtime does not trust it. When it sends, the pool
//! resolves the host itself, checks every resolved address with
//! [`net_guard::check_ip`] and refuses the delivery if any is internal;
//! the connection can only go to the addresses that were checked, so a DNS
//! answer that changes between the check and the connection (rebinding)
//! gets nowhere. Redirects are never followed (a `3xx` is a delivered
//! status like any other), no proxy is used, and every delivery has the
//! [`WebhookConfig::timeout`].
//!
//! # The pool
//!
//! At most [`WebhookConfig::max_in_flight`] deliveries (default 32) are
//! queued or being sent at once; a webhook beyond that is dropped with an
//! error (`dropped: 32 deliveries already in flight`) that dispatch turns
//! into a warning. Sender threads start on demand, up to that number, and
//! stop after a while without work. [`WebhookPool::stats`] counts what
//! happened; [`WebhookPool::flush`] waits for the deliveries in flight
//! (for a host that shuts down, and for tests), and
//! [`WebhookPool::flush_report`] also says what did not arrive: the
//! deliveries still in flight at the bound, and those that failed (the
//! last [`MAX_UNDELIVERED`] of them are kept, with the reason). The
//! `hookc` commands that dispatch flush before they exit, for at most
//! 2 s (`HOOKC_WEBHOOK_FLUSH`, and `hookc claude --webhook-flush`), and
//! report what did not arrive on stderr.
//!
//! Without the `webhook` cargo feature there is no HTTP client: every
//! webhook is an [`EffectError::Unsupported`] warning.
//!
//! # Tests
//!
//! Tests must not reach the network, and a local test server listens on
//! loopback over plain HTTP, which the guard refuses. The only way to allow
//! it is Rust code calling
//! [`WebhookConfig::allow_loopback_http_for_tests`] on the configuration a
//! host passes to [`Effects::with_webhooks`](super::Effects::with_webhooks):
//! no rule syntax, lint level, `hookc.toml` setting or environment variable
//! can switch it on.
//!
//! [`net_guard::check_url`]: crate::net_guard::check_url
//! [`net_guard::check_header`]: crate::net_guard::check_header
//! [`net_guard::check_ip`]: crate::net_guard::check_ip

use super::EffectError;
use crate::event::HookContext;
use crate::ir::FieldPath;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// A DNS lookup: `host:port` to socket addresses.
type Lookup = fn(&str) -> std::io::Result<Vec<std::net::SocketAddr>>;

/// How webhooks are sent.
#[derive(Clone)]
#[non_exhaustive]
pub struct WebhookConfig {
    /// Deliveries queued or in flight at once; beyond it an event is
    /// dropped with a warning (0 drops every webhook).
    pub max_in_flight: usize,
    /// The timeout of one delivery (connect, send, read).
    pub timeout: Duration,
    /// Plain `http://` (and `https://`) to loopback addresses is allowed:
    /// only [`WebhookConfig::allow_loopback_http_for_tests`] sets it.
    loopback_http: bool,
    /// Replaces the system's DNS lookup (tests only); the guard still
    /// checks what it returns.
    lookup: Option<Lookup>,
}

impl fmt::Debug for WebhookConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("WebhookConfig");
        d.field("max_in_flight", &self.max_in_flight)
            .field("timeout", &self.timeout);
        if self.loopback_http {
            d.field("loopback_http", &true);
        }
        if self.lookup.is_some() {
            d.field("lookup", &"<test lookup>");
        }
        d.finish()
    }
}

impl Default for WebhookConfig {
    fn default() -> Self {
        WebhookConfig {
            max_in_flight: 32,
            timeout: Duration::from_secs(5),
            loopback_http: false,
            lookup: None,
        }
    }
}

impl WebhookConfig {
    /// Sets [`max_in_flight`](WebhookConfig::max_in_flight).
    pub fn with_max_in_flight(mut self, max_in_flight: usize) -> WebhookConfig {
        self.max_in_flight = max_in_flight;
        self
    }

    /// Sets [`timeout`](WebhookConfig::timeout).
    pub fn with_timeout(mut self, timeout: Duration) -> WebhookConfig {
        self.timeout = timeout;
        self
    }

    /// **For tests only**: also allows webhooks over plain `http://` (or
    /// `https://`) to a loopback IP address written in the URL
    /// (`http://127.0.0.1:PORT/…`, `http://[::1]:PORT/…`), so that a test
    /// server on loopback can receive them. Everything else is guarded as
    /// usual: other internal addresses, local names such as `localhost`,
    /// refused headers, `http://` to any other host.
    ///
    /// Only Rust code can call this: no rule syntax, lint level,
    /// `hookc.toml` setting or environment variable turns it on, and
    /// [`WebhookConfig::default`] never has it.
    #[doc(hidden)]
    pub fn allow_loopback_http_for_tests(mut self) -> WebhookConfig {
        self.loopback_http = true;
        self
    }

    /// **For tests only**: replaces the DNS lookup (say, to make a public
    /// name resolve to a loopback address without any network). The guard
    /// checks every address it returns, as it checks real DNS answers.
    #[doc(hidden)]
    pub fn lookup_for_tests(mut self, lookup: Lookup) -> WebhookConfig {
        self.lookup = Some(lookup);
        self
    }
}

/// The most failed deliveries a pool keeps for
/// [`WebhookPool::flush_report`]; older ones are only counted in
/// [`WebhookStats::failed`].
pub const MAX_UNDELIVERED: usize = 64;

/// A delivery that did not arrive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Undelivered {
    /// The id of the rule that sent it.
    pub rule: String,
    /// The destination, as messages show it (scheme and host: the path
    /// often carries a secret).
    pub url: String,
    /// Why it failed.
    pub reason: String,
}

/// What a bounded flush left undelivered.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct FlushReport {
    /// Deliveries still queued or in flight when the flush gave up.
    pub pending: usize,
    /// Deliveries that failed since the last report, oldest first.
    pub failed: Vec<Undelivered>,
}

impl FlushReport {
    /// True when everything queued arrived.
    pub fn is_clean(&self) -> bool {
        self.pending == 0 && self.failed.is_empty()
    }
}

/// Counts of the pool's deliveries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WebhookStats {
    /// Delivered (any HTTP status, redirects included).
    pub sent: u64,
    /// Refused by the guard (when queued or after DNS resolution), or
    /// failed on the network (timeout included).
    pub failed: u64,
    /// Dropped because the pool was full.
    pub dropped: u64,
}

#[derive(Debug, Default)]
struct Counters {
    sent: AtomicU64,
    failed: AtomicU64,
    dropped: AtomicU64,
}

impl Counters {
    fn stats(&self) -> WebhookStats {
        WebhookStats {
            sent: self.sent.load(Ordering::Relaxed),
            failed: self.failed.load(Ordering::Relaxed),
            dropped: self.dropped.load(Ordering::Relaxed),
        }
    }
}

/// One webhook to post.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(
    not(feature = "webhook"),
    expect(
        dead_code,
        reason = "a build without `webhook` refuses every post unread"
    )
)]
pub(crate) struct Post<'a> {
    /// The destination.
    pub url: &'a str,
    /// Fields to include.
    pub include: &'a [FieldPath],
    /// Extra headers.
    pub headers: &'a [(String, String)],
    /// The rule's id.
    pub rule: &'a str,
    /// The hook point.
    pub point: &'a str,
    /// The rule's `timeout`, when it has one (else the pool's).
    pub timeout: Option<Duration>,
}

/// A bounded pool of background senders.
pub struct WebhookPool {
    #[cfg(feature = "webhook")]
    shared: std::sync::Arc<imp::Shared>,
    #[cfg(not(feature = "webhook"))]
    config: WebhookConfig,
    #[cfg(not(feature = "webhook"))]
    counters: Counters,
}

impl fmt::Debug for WebhookPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WebhookPool")
            .field("config", self.config())
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

#[cfg(not(feature = "webhook"))]
impl WebhookPool {
    /// A pool with `config`; this build cannot send, so every post fails.
    pub fn new(config: WebhookConfig) -> WebhookPool {
        WebhookPool {
            config,
            counters: Counters::default(),
        }
    }

    /// This build has no HTTP client: always an error.
    pub(crate) fn post(&self, post: &Post<'_>, ctx: &HookContext) -> Result<(), EffectError> {
        let _ = (post, ctx);
        self.counters.failed.fetch_add(1, Ordering::Relaxed);
        Err(EffectError::Unsupported(
            "this build has no `webhook` support",
        ))
    }

    /// Counts so far (every post failed).
    pub fn stats(&self) -> WebhookStats {
        self.counters.stats()
    }

    /// Nothing is ever in flight: true at once.
    pub fn flush(&self, timeout: Duration) -> bool {
        let _ = timeout;
        true
    }

    /// Nothing is ever in flight or failed in flight (every post failed
    /// when it was made, as a warning of its dispatch).
    pub fn flush_report(&self, timeout: Duration) -> FlushReport {
        let _ = timeout;
        FlushReport::default()
    }

    fn config(&self) -> &WebhookConfig {
        &self.config
    }
}

#[cfg(feature = "webhook")]
impl WebhookPool {
    /// A pool with `config`; its threads start on the first post.
    pub fn new(config: WebhookConfig) -> WebhookPool {
        WebhookPool {
            shared: std::sync::Arc::new(imp::Shared::new(config)),
        }
    }

    /// Checks the URL and headers, builds the summary of `ctx` and queues
    /// it; an error when it is refused or cannot be queued (full pool).
    pub(crate) fn post(&self, post: &Post<'_>, ctx: &HookContext) -> Result<(), EffectError> {
        imp::post(&self.shared, post, ctx)
    }

    /// Counts so far.
    pub fn stats(&self) -> WebhookStats {
        self.shared.counters.stats()
    }

    /// Waits until no delivery is queued or in flight, at most `timeout`;
    /// true if the pool went quiet. For a host shutting down, and tests.
    pub fn flush(&self, timeout: Duration) -> bool {
        self.shared.flush(timeout)
    }

    /// Waits like [`flush`](Self::flush), then reports what did not
    /// arrive: the deliveries still pending, and those that failed since
    /// the last report.
    pub fn flush_report(&self, timeout: Duration) -> FlushReport {
        self.shared.flush(timeout);
        FlushReport {
            pending: self.shared.pending(),
            failed: self.shared.take_undelivered(),
        }
    }

    fn config(&self) -> &WebhookConfig {
        &self.shared.config
    }
}

#[cfg(feature = "webhook")]
impl Drop for WebhookPool {
    /// Idle senders stop at once; busy ones finish the queue first.
    fn drop(&mut self) {
        self.shared.close();
    }
}

#[cfg(feature = "webhook")]
mod imp {
    //! The sending side: summary, guard, queue, threads and HTTP.

    use super::{Counters, Post, Undelivered, WebhookConfig, MAX_UNDELIVERED};
    use crate::effects::EffectError;
    use crate::event::HookContext;
    use crate::net_guard::{self, Range, UrlError};
    use serde_json::{json, Map, Value};
    use std::collections::VecDeque;
    use std::io;
    use std::net::{IpAddr, SocketAddr, ToSocketAddrs};
    use std::sync::atomic::Ordering;
    use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, PoisonError};
    use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

    /// How long a sender thread waits for work before it stops.
    const IDLE: Duration = Duration::from_secs(30);

    /// One delivery: everything is built on the dispatching thread.
    struct Job {
        url: String,
        rule: String,
        timeout: Option<Duration>,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
    }

    /// The queue and the threads, under one lock.
    #[derive(Default)]
    struct State {
        /// Deliveries waiting for a sender.
        jobs: VecDeque<Job>,
        /// Deliveries queued or being sent.
        in_flight: usize,
        /// Sender threads alive.
        workers: usize,
        /// Sender threads waiting for work.
        idle: usize,
        /// The pool was dropped: senders stop when the queue is empty.
        closed: bool,
    }

    pub(super) struct Shared {
        pub(super) config: WebhookConfig,
        pub(super) counters: Counters,
        state: Mutex<State>,
        /// Signalled when a job is queued (or the pool closes).
        work: Condvar,
        /// Signalled when nothing is in flight any more.
        quiet: Condvar,
        /// The HTTP client, built by the first sender.
        agent: OnceLock<ureq::Agent>,
        /// The last failed deliveries, for [`super::WebhookPool::flush_report`].
        undelivered: Mutex<VecDeque<Undelivered>>,
    }

    impl Shared {
        pub(super) fn new(config: WebhookConfig) -> Shared {
            Shared {
                config,
                counters: Counters::default(),
                state: Mutex::new(State::default()),
                work: Condvar::new(),
                quiet: Condvar::new(),
                agent: OnceLock::new(),
                undelivered: Mutex::new(VecDeque::new()),
            }
        }

        /// Deliveries queued or in flight.
        pub(super) fn pending(&self) -> usize {
            self.lock().in_flight
        }

        /// The failed deliveries kept since the last call.
        pub(super) fn take_undelivered(&self) -> Vec<Undelivered> {
            let mut kept = self
                .undelivered
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            kept.drain(..).collect()
        }

        /// Keeps a failed delivery (the oldest goes when there are too many).
        fn failed(&self, job: &Job, reason: String) {
            let mut kept = self
                .undelivered
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if kept.len() >= MAX_UNDELIVERED {
                kept.pop_front();
            }
            kept.push_back(Undelivered {
                rule: job.rule.clone(),
                url: shown_url(&job.url),
                reason,
            });
        }

        // Nothing panics while the lock is held, so a poisoned lock still
        // guards a consistent state.
        fn lock(&self) -> MutexGuard<'_, State> {
            self.state.lock().unwrap_or_else(PoisonError::into_inner)
        }

        pub(super) fn flush(&self, timeout: Duration) -> bool {
            let deadline = Instant::now() + timeout;
            let mut state = self.lock();
            while state.in_flight > 0 {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return false;
                }
                state = self
                    .quiet
                    .wait_timeout(state, left)
                    .unwrap_or_else(PoisonError::into_inner)
                    .0;
            }
            true
        }

        pub(super) fn close(&self) {
            self.lock().closed = true;
            self.work.notify_all();
        }

        fn agent(&self) -> &ureq::Agent {
            self.agent.get_or_init(|| {
                let loopback = self.config.loopback_http;
                let timeout = Some(self.config.timeout);
                let config = ureq::Agent::config_builder()
                    .max_redirects(0)
                    .https_only(!loopback)
                    // A status, 4xx and 5xx included, is the receiver's
                    // answer: delivered.
                    .http_status_as_error(false)
                    // No proxy, not even one named by the environment.
                    .proxy(None)
                    .timeout_global(timeout)
                    .timeout_connect(timeout)
                    .user_agent(concat!("hookc/", env!("CARGO_PKG_VERSION")))
                    .build();
                let resolver = GuardedResolver {
                    loopback_http: loopback,
                    lookup: self.config.lookup,
                };
                ureq::Agent::with_parts(
                    config,
                    ureq::unversioned::transport::DefaultConnector::new(),
                    resolver,
                )
            })
        }

        /// Sends one job; true when the receiver answered (any status).
        /// A failure is logged and kept for the flush report.
        fn deliver(&self, job: &Job) -> bool {
            let mut request = self.agent().post(&job.url);
            if let Some(timeout) = job.timeout {
                request = request.config().timeout_global(Some(timeout)).build();
            }
            for (name, value) in &job.headers {
                request = request.header(name, value);
            }
            request = request.header("Content-Type", "application/json");
            match request.send(job.body.as_slice()) {
                Ok(_) => true,
                Err(e) => {
                    let why = failure_reason(&e);
                    tracing::warn!(
                        rule = %job.rule,
                        url = %shown_url(&job.url),
                        "webhook delivery failed: {why}"
                    );
                    self.failed(job, why);
                    false
                }
            }
        }
    }

    /// Why a delivery failed, in one line: the client's error, and what
    /// caused it when it wraps another (the guard's refusal, an I/O error).
    fn failure_reason(e: &ureq::Error) -> String {
        match std::error::Error::source(e) {
            Some(source) if !e.to_string().contains(&source.to_string()) => {
                format!("{e}: {source}")
            }
            _ => e.to_string(),
        }
    }

    /// A URL as messages show it: scheme and host, without user-info, path
    /// or query (webhook URLs often carry a secret in the path).
    fn shown_url(url: &str) -> String {
        let Some((scheme, rest)) = url.split_once("://") else {
            return "(invalid URL)".to_string();
        };
        let end = rest.find(['/', '?', '#', '\\']).unwrap_or(rest.len());
        let authority = rest.get(..end).unwrap_or("");
        let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
        let more = if end < rest.len() { "/…" } else { "" };
        format!("{scheme}://{host}{more}")
    }

    /// A sender thread: takes jobs until the pool closes or it has been
    /// idle for [`IDLE`].
    fn worker(shared: &Shared) {
        let mut state = shared.lock();
        loop {
            if let Some(job) = state.jobs.pop_front() {
                drop(state);
                let counter = if shared.deliver(&job) {
                    &shared.counters.sent
                } else {
                    &shared.counters.failed
                };
                counter.fetch_add(1, Ordering::Relaxed);
                state = shared.lock();
                state.in_flight = state.in_flight.saturating_sub(1);
                if state.in_flight == 0 {
                    shared.quiet.notify_all();
                }
                continue;
            }
            if state.closed {
                break;
            }
            state.idle += 1;
            let (guard, wait) = shared
                .work
                .wait_timeout(state, IDLE)
                .unwrap_or_else(PoisonError::into_inner);
            state = guard;
            state.idle = state.idle.saturating_sub(1);
            if wait.timed_out() && state.jobs.is_empty() {
                break;
            }
        }
        state.workers = state.workers.saturating_sub(1);
    }

    pub(super) fn post(
        shared: &Arc<Shared>,
        post: &Post<'_>,
        ctx: &HookContext,
    ) -> Result<(), EffectError> {
        let error = |reason: String| EffectError::Webhook {
            url: shown_url(post.url),
            reason,
        };
        let refused = |reason: String| {
            shared.counters.failed.fetch_add(1, Ordering::Relaxed);
            Err(error(format!("refused: {reason}")))
        };
        if let Err(e) = check_destination(post.url, shared.config.loopback_http) {
            return refused(e.to_string());
        }
        for (name, value) in post.headers {
            if let Err(e) = net_guard::check_header(name, value) {
                return refused(e.to_string());
            }
        }
        // Take a place first: a full pool drops the event before any work.
        {
            let mut state = shared.lock();
            if state.in_flight >= shared.config.max_in_flight {
                let n = state.in_flight;
                drop(state);
                shared.counters.dropped.fetch_add(1, Ordering::Relaxed);
                return Err(error(format!("dropped: {n} deliveries already in flight")));
            }
            state.in_flight += 1;
        }
        let job = Job {
            url: post.url.to_string(),
            rule: post.rule.to_string(),
            timeout: post.timeout,
            headers: post.headers.to_vec(),
            body: summary(post, ctx, unix_ms()).to_string().into_bytes(),
        };
        let mut state = shared.lock();
        state.jobs.push_back(job);
        let spawn = state.jobs.len() > state.idle && state.workers < shared.config.max_in_flight;
        if spawn {
            state.workers += 1;
        }
        drop(state);
        shared.work.notify_one();
        if !spawn {
            return Ok(());
        }
        let for_worker = Arc::clone(shared);
        let started = std::thread::Builder::new()
            .name("hookc-webhook".to_string())
            .spawn(move || worker(&for_worker));
        if let Err(e) = started {
            let mut state = shared.lock();
            state.workers = state.workers.saturating_sub(1);
            if state.workers == 0 && state.jobs.pop_back().is_some() {
                // Nobody would ever send it.
                state.in_flight = state.in_flight.saturating_sub(1);
                if state.in_flight == 0 {
                    shared.quiet.notify_all();
                }
                drop(state);
                shared.counters.failed.fetch_add(1, Ordering::Relaxed);
                return Err(error(format!("failed: cannot start a sender: {e}")));
            }
        }
        Ok(())
    }

    fn unix_ms() -> u64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
    }

    /// Counts the bytes written to it.
    struct ByteCount(usize);

    impl io::Write for ByteCount {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// The summary of `ctx` for `post`: see the module docs.
    pub(super) fn summary(post: &Post<'_>, ctx: &HookContext, now_ms: u64) -> Value {
        let mut bytes = ByteCount(0);
        let payload_bytes = match serde_json::to_writer(&mut bytes, &ctx.payload) {
            Ok(()) => bytes.0,
            Err(_) => 0,
        };
        let payload_keys = match &ctx.payload {
            Value::Object(map) => map.len(),
            Value::Array(items) => items.len(),
            _ => 0,
        };
        let mut fields = Map::new();
        for path in post.include {
            let value = ctx.get(path).map_or(Value::Null, |v| v.to_json());
            fields.insert(path.to_string(), value);
        }
        json!({
            "hook": post.rule,
            "point": post.point,
            "timestamp_ms": now_ms,
            "event_timestamp_ms": ctx.timestamp_ms,
            "target": {
                "component": ctx.component_id,
                "child": ctx.child_id,
                "instance": ctx.instance,
            },
            "depth": ctx.depth,
            "sizes": {
                "payload_bytes": payload_bytes,
                "payload_keys": payload_keys,
                "metadata_keys": ctx.metadata.len(),
            },
            "fields": fields,
        })
    }

    /// True for a loopback address written as such (not embedded in an
    /// IPv6 form): what the test allowance lets through.
    fn plain_loopback(refused: &net_guard::Refused) -> bool {
        refused.range == Range::Loopback && refused.embedded.is_none()
    }

    /// The guard on the URL as written: [`net_guard::check_url`], and with
    /// the test allowance, `http://` or `https://` to a loopback IP literal.
    pub(super) fn check_destination(url: &str, loopback_http: bool) -> Result<(), UrlError> {
        let checked = net_guard::check_url(url);
        let Err(e) = checked else {
            return Ok(());
        };
        if !loopback_http {
            return Err(e);
        }
        let rest = url
            .split_once("://")
            .filter(|(scheme, _)| {
                scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https")
            })
            .map(|(_, rest)| rest);
        let Some(rest) = rest else {
            return Err(e);
        };
        match net_guard::check_url(&format!("https://{rest}")) {
            Err(UrlError::RefusedAddress { refused, .. }) if plain_loopback(&refused) => Ok(()),
            _ => Err(e),
        }
    }

    /// The resolver the HTTP client uses: [`guarded_resolve`] on the
    /// request's `host:port`.
    #[derive(Debug)]
    struct GuardedResolver {
        /// The test allowance: plain loopback literals pass.
        loopback_http: bool,
        /// A stand-in for DNS (tests only).
        lookup: Option<super::Lookup>,
    }

    impl ureq::unversioned::resolver::Resolver for GuardedResolver {
        fn resolve(
            &self,
            uri: &ureq::http::Uri,
            _config: &ureq::config::Config,
            _timeout: ureq::unversioned::transport::NextTimeout,
        ) -> Result<ureq::unversioned::resolver::ResolvedSocketAddrs, ureq::Error> {
            let (Some(scheme), Some(authority)) = (uri.scheme(), uri.authority()) else {
                return Err(ureq::Error::BadUri(format!("no scheme or host in `{uri}`")));
            };
            let netloc =
                ureq::unversioned::resolver::DefaultResolver::host_and_port(scheme, authority)
                    .ok_or_else(|| ureq::Error::BadUri(format!("no port for `{uri}`")))?;
            let addrs = guarded_resolve(&netloc, self.loopback_http, self.lookup)?;
            // Every address was checked; the client keeps the first 16.
            let mut resolved = self.empty();
            for addr in addrs {
                if resolved.try_push(addr).is_err() {
                    break;
                }
            }
            Ok(resolved)
        }
    }

    /// Looks `host:port` up, then checks the name and every address; only
    /// checked addresses are returned, so the connection goes nowhere else.
    fn guarded_resolve(
        netloc: &str,
        loopback_http: bool,
        lookup: Option<super::Lookup>,
    ) -> io::Result<Vec<SocketAddr>> {
        let host = netloc.rsplit_once(':').map_or(netloc, |(host, _)| host);
        // The test allowance covers a loopback address written in the URL,
        // never a name that resolves to one.
        let mut loopback_literal = false;
        if let Err(e) = net_guard::check_host(host) {
            loopback_literal = loopback_http
                && matches!(&e, UrlError::RefusedAddress { refused, .. } if plain_loopback(refused));
            if !loopback_literal {
                return Err(io::Error::new(
                    io::ErrorKind::PermissionDenied,
                    format!("refused: {e}"),
                ));
            }
        }
        let addrs: Vec<SocketAddr> = match lookup {
            Some(lookup) => lookup(netloc)?,
            None => netloc.to_socket_addrs()?.collect(),
        };
        check_resolved(host, &addrs, loopback_literal)?;
        Ok(addrs)
    }

    /// Checks every address `host` resolved to: an error if there is none,
    /// or if any is refused (a name with one internal address is refused
    /// as a whole).
    pub(super) fn check_resolved(
        host: &str,
        addrs: &[SocketAddr],
        loopback_http: bool,
    ) -> io::Result<()> {
        if addrs.is_empty() {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!("`{host}` resolves to no address"),
            ));
        }
        for addr in addrs {
            let ip: IpAddr = addr.ip();
            if let Err(refused) = net_guard::check_ip(ip) {
                if loopback_http && plain_loopback(&refused) {
                    continue;
                }
                return Err(io::Error::new(
                    io::ErrorKind::PermissionDenied,
                    format!("refused: `{host}` resolves to {ip}, {refused}"),
                ));
            }
        }
        Ok(())
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use crate::ir::{FieldPath, Root, Segment};

        fn addrs(list: &[&str]) -> Vec<SocketAddr> {
            list.iter().map(|a| a.parse().unwrap()).collect()
        }

        #[test]
        fn resolved_addresses_are_checked() {
            let ok = addrs(&["93.184.215.14:443", "[2606:4700:4700::1111]:443"]);
            assert!(check_resolved("hooks.example.com", &ok, false).is_ok());
            for bad in [
                "127.0.0.1:443",
                "10.1.2.3:443",
                "169.254.169.254:80",
                "100.64.0.1:443",
                "198.18.0.1:443",
                "[::1]:443",
                "[::ffff:127.0.0.1]:443",
                "[fd00::1]:443",
                "[fe80::1]:443",
                "0.0.0.0:443",
            ] {
                let e = check_resolved("hooks.example.com", &addrs(&[bad]), false).unwrap_err();
                assert_eq!(e.kind(), io::ErrorKind::PermissionDenied, "{bad}");
                assert!(e
                    .to_string()
                    .starts_with("refused: `hooks.example.com` resolves to"));
            }
            // One internal address among public ones refuses the name.
            let mixed = addrs(&["93.184.215.14:443", "127.0.0.1:443"]);
            assert!(check_resolved("hooks.example.com", &mixed, false).is_err());
            assert!(check_resolved("hooks.example.com", &[], false).is_err());
            assert_eq!(
                check_resolved("x.example", &addrs(&["10.0.0.1:443"]), false)
                    .unwrap_err()
                    .to_string(),
                "refused: `x.example` resolves to 10.0.0.1, a private address"
            );
        }

        #[test]
        fn the_test_allowance_only_lets_plain_loopback_through() {
            let local = addrs(&["127.0.0.1:8080", "[::1]:8080"]);
            assert!(check_resolved("127.0.0.1", &local, true).is_ok());
            for bad in ["10.0.0.1:80", "[::ffff:127.0.0.1]:80", "169.254.169.254:80"] {
                assert!(check_resolved("x", &addrs(&[bad]), true).is_err(), "{bad}");
            }
            assert!(check_destination("http://127.0.0.1:8080/x", true).is_ok());
            assert!(check_destination("http://[::1]:8080/x", true).is_ok());
            assert!(check_destination("http://127.0.0.1:8080/x", false).is_err());
            for url in [
                "http://hooks.example.com/",
                "http://localhost:8080/",
                "http://10.0.0.1/",
                "http://[::ffff:127.0.0.1]/",
                "http://user@127.0.0.1/",
                "ftp://127.0.0.1/",
                "https://169.254.169.254/",
            ] {
                assert!(check_destination(url, true).is_err(), "{url}");
            }
        }

        #[test]
        fn the_resolver_checks_literals_without_any_lookup() {
            for netloc in ["127.0.0.1:443", "[::1]:443", "localhost:443", "10.0.0.1:80"] {
                let e = guarded_resolve(netloc, false, None).unwrap_err();
                assert_eq!(e.kind(), io::ErrorKind::PermissionDenied, "{netloc}");
            }
            assert_eq!(
                guarded_resolve("127.0.0.1:8080", true, None).unwrap(),
                addrs(&["127.0.0.1:8080"])
            );
            // A lookup that answers with an internal address is refused.
            let rebind: super::super::Lookup = |_| Ok(vec!["127.0.0.1:443".parse().unwrap()]);
            assert!(guarded_resolve("hooks.example.com:443", false, Some(rebind)).is_err());
            let public: super::super::Lookup = |_| Ok(vec!["93.184.215.14:443".parse().unwrap()]);
            assert!(guarded_resolve("hooks.example.com:443", false, Some(public)).is_ok());
            // Even with the test allowance: only a loopback literal passes.
            assert!(guarded_resolve("hooks.example.com:443", true, Some(rebind)).is_err());
            assert!(guarded_resolve("localhost:443", true, Some(rebind)).is_err());
            assert!(guarded_resolve("127.0.0.1:443", true, Some(rebind)).is_ok());
        }

        #[test]
        fn a_failure_reads_as_one_line_with_its_cause() {
            let refused = ureq::Error::Io(io::Error::new(
                io::ErrorKind::PermissionDenied,
                "refused: `x.example` resolves to 10.0.0.1, a private address",
            ));
            assert_eq!(
                failure_reason(&refused),
                "io: refused: `x.example` resolves to 10.0.0.1, a private address"
            );
            assert_eq!(failure_reason(&ureq::Error::HostNotFound), "host not found");
        }

        #[test]
        fn shown_urls_hide_paths_and_credentials() {
            assert_eq!(
                shown_url("https://hooks.example.com/T000/B000/secret?x=1"),
                "https://hooks.example.com/…"
            );
            assert_eq!(
                shown_url("https://u:p@h.example:8443"),
                "https://h.example:8443"
            );
            assert_eq!(shown_url("nonsense"), "(invalid URL)");
        }

        #[test]
        fn summary_counts_without_showing() {
            let mut ctx = HookContext::new(
                "tool.pre_execute",
                "builtin::llm",
                json!({"tool": "exec", "args": "cat secret.txt"}),
            );
            ctx.child_id = Some("agent-1".into());
            ctx.metadata.insert("k".into(), json!("v"));
            let include = [FieldPath {
                root: Root::Payload,
                segments: vec![Segment::Field("tool".into())],
                normalized: false,
            }];
            let post = Post {
                url: "https://x.example",
                include: &include,
                headers: &[],
                rule: "r",
                point: "tool.pre_execute",
                timeout: None,
            };
            let s = summary(&post, &ctx, 7);
            assert_eq!(
                s,
                json!({
                    "hook": "r",
                    "point": "tool.pre_execute",
                    "timestamp_ms": 7,
                    "event_timestamp_ms": 0,
                    "target": {"component": "builtin::llm", "child": "agent-1", "instance": null},
                    "depth": 0,
                    "sizes": {
                        "payload_bytes": ctx.payload.to_string().len(),
                        "payload_keys": 2,
                        "metadata_keys": 1,
                    },
                    "fields": {"payload.tool": "exec"},
                })
            );
            assert!(!s.to_string().contains("secret"));
        }
    }
}
