//! Effects: what a rule does outside the context. `exec`/`sh` run a
//! program, `webhook` posts an event summary, `call` runs a native handler
//! the host registered by name.
//!
//! A dispatch runs a rule's effects in rule order, on the dispatching thread
//! (webhooks only enqueue: they are sent by a bounded background pool and
//! never change the outcome). An effect that cannot do its job (the program
//! cannot start, times out, exits with a code other than 0 or 2, prints a
//! reply that is not JSON; a handler that is not registered or panics; a
//! webhook the pool has no room for) is a *failure*, and the rule's failure
//! mode decides: `fail open` (the default) records a warning and the chain
//! goes on as if the rule continued; `fail closed` ends the chain with an
//! abort whose reason names the rule and the failure.
//!
//! # The deadline
//!
//! A host can give the effects of each dispatch a shared deadline
//! ([`Effects::with_dispatch_deadline`]): every effect gets its own
//! timeout or what is left before the deadline, whichever ends first. At
//! the deadline a running command's process group is killed and a Lua
//! handler is stopped, and an effect that would start after it does not
//! start; each is a failure ([`EffectError::Deadline`]) that the rule's
//! failure mode handles, so a `fail closed` rule blocks in time. Rules
//! without effects still run: a `deny` after a slow command still denies.
//! Native handlers cannot be preempted: one that returns after the
//! deadline has its result dropped, as one that overruns its timeout.
//! Webhooks only queue; a host bounds their delivery with
//! [`WebhookPool::flush`].
//!
//! [`Effects`] is the host's side of this: the configuration of `exec`, the
//! webhook pool and the named handlers. [`Table::dispatch`] uses a
//! process-wide default ([`Effects::global`]); a host that registers handlers
//! or configures effects passes its own to
//! [`Table::dispatch_with`](crate::Table::dispatch_with), or uses a
//! [`Registry`](crate::Registry).
//!
//! [`Table::dispatch`]: crate::Table::dispatch

pub mod exec;
#[cfg(feature = "lua")]
pub(crate) mod lua;
pub mod mock;
pub mod reply;
pub(crate) mod trace;
pub mod webhook;

pub use exec::ExecConfig;
pub use mock::{CommandMock, WebhookMock};
pub use reply::Reply;
pub use webhook::{FlushReport, Undelivered, WebhookConfig, WebhookPool, WebhookStats};

use crate::event::HookContext;
use serde_json::Value;
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// What a native handler (or a command's reply) asks the chain to do.
///
/// ORCS's `HookAction`, plus the two permission decisions of Claude Code.
/// Edits are made on the context the handler is given.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum HookAction {
    /// Go on with the (possibly edited) context.
    Continue,
    /// End the chain; the value is the operation's result.
    Skip(Value),
    /// End the chain: the operation is blocked.
    Abort {
        /// Why.
        reason: String,
    },
    /// Swap the payload (post points only; ignored with a warning elsewhere).
    Replace(Value),
    /// Ask a human before the operation runs.
    Ask {
        /// What to ask.
        reason: String,
    },
    /// Allow the operation (a permission decision; the chain goes on).
    Allow,
}

/// A native handler a rule runs with `call "name"`: ORCS's `Hook::execute`.
///
/// It may edit the context in place. A panic inside is caught and is a
/// failure of the rule (the context is restored to what it was before the
/// call). Handlers run on the dispatching thread and cannot be preempted: one
/// that takes longer than the rule's timeout has its result dropped and is a
/// failure.
pub trait Handler: Send + Sync {
    /// Runs the handler on the context.
    fn call(&self, ctx: &mut HookContext) -> HookAction;
}

impl<F> Handler for F
where
    F: Fn(&mut HookContext) -> HookAction + Send + Sync,
{
    fn call(&self, ctx: &mut HookContext) -> HookAction {
        self(ctx)
    }
}

/// Why an effect failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EffectError {
    /// The program could not be started.
    #[error("cannot run `{program}`: {source}")]
    Spawn {
        /// The program.
        program: String,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// Reading from or writing to the program failed.
    #[error("i/o with `{program}` failed: {source}")]
    Io {
        /// The program.
        program: String,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The effect ran past its timeout (a command's process group is killed).
    #[error("timed out after {}", humanize(*.0))]
    Timeout(Duration),
    /// The dispatch's deadline came before the effect ended (a command's
    /// process group is killed), or before it could start.
    #[error("stopped at the event's deadline ({} after the dispatch started)", humanize(*.0))]
    Deadline(Duration),
    /// The program exited with a code other than 0 and 2.
    #[error("`{program}` exited with code {code}{}", stderr_suffix(.stderr))]
    Exit {
        /// The program.
        program: String,
        /// Its exit code.
        code: i32,
        /// The start of its stderr.
        stderr: String,
    },
    /// The program was killed by a signal.
    #[error("`{program}` was killed by signal {signal}{}", stderr_suffix(.stderr))]
    Signal {
        /// The program.
        program: String,
        /// The signal number.
        signal: i32,
        /// The start of its stderr.
        stderr: String,
    },
    /// The program printed more than the output limit.
    #[error("`{program}` printed more than {limit} bytes")]
    OutputTooLarge {
        /// The program.
        program: String,
        /// The limit, in bytes.
        limit: usize,
    },
    /// The program's stdout started with `{` but is not a reply.
    #[error("`{program}` printed a reply that is not valid: {message}")]
    BadReply {
        /// The program.
        program: String,
        /// What is wrong.
        message: String,
    },
    /// No handler is registered under the name.
    #[error("no handler named `{0}` is registered")]
    NoHandler(String),
    /// The handler panicked.
    #[error("handler `{name}` panicked: {message}")]
    Panicked {
        /// The handler's name.
        name: String,
        /// The panic message.
        message: String,
    },
    /// The webhook was not accepted for delivery.
    #[error("webhook to {url} {reason}")]
    Webhook {
        /// The destination.
        url: String,
        /// Why (`dropped: 32 deliveries already in flight`, …).
        reason: String,
    },
    /// A Lua handler could not be loaded, raised an error or returned
    /// something that is not a reply.
    #[error("lua handler `{name}`: {message}")]
    Lua {
        /// The script, or `inline lua`.
        name: String,
        /// What went wrong.
        message: String,
    },
    /// A `trace` line could not be written.
    #[error("cannot append to trace `{file}`: {source}")]
    Trace {
        /// The file, as the rule wrote it.
        file: String,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// This build or platform cannot run the effect.
    #[error("{0}")]
    Unsupported(&'static str),
    /// The store of a `rate(…)` condition could not count the event.
    #[error(transparent)]
    RateStore(#[from] crate::store::StoreError),
}

fn stderr_suffix(stderr: &str) -> String {
    if stderr.is_empty() {
        String::new()
    } else {
        format!(": {stderr}")
    }
}

fn humanize(d: Duration) -> String {
    if d.as_millis().is_multiple_of(1000) {
        format!("{}s", d.as_secs())
    } else {
        format!("{}ms", d.as_millis())
    }
}

/// When an effect must end: its own timeout, or the dispatch's deadline
/// if that comes first.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cutoff {
    /// The instant; `None` for a timeout too large to represent.
    pub(crate) at: Option<Instant>,
    /// The effect's own timeout.
    timeout: Duration,
    /// The dispatch's deadline, when it is what ends the effect: when it
    /// is, and how long after the dispatch started.
    deadline: Option<Deadline>,
}

/// A dispatch's deadline.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Deadline {
    /// The instant.
    pub(crate) at: Instant,
    /// Its distance from the dispatch's start, for messages.
    pub(crate) budget: Duration,
}

impl Cutoff {
    /// The cutoff of an effect that starts now with `timeout`.
    ///
    /// # Errors
    ///
    /// [`EffectError::Deadline`] when the deadline has passed: the effect
    /// must not start.
    pub(crate) fn start(
        timeout: Duration,
        deadline: Option<Deadline>,
    ) -> Result<Cutoff, EffectError> {
        let now = Instant::now();
        let own = now.checked_add(timeout);
        match deadline {
            Some(d) if d.at <= now => Err(EffectError::Deadline(d.budget)),
            Some(d) if own.is_none_or(|own| d.at < own) => Ok(Cutoff {
                at: Some(d.at),
                timeout,
                deadline: Some(d),
            }),
            _ => Ok(Cutoff {
                at: own,
                timeout,
                deadline: None,
            }),
        }
    }

    /// True once the cutoff has passed.
    pub(crate) fn passed(&self) -> bool {
        self.at.is_some_and(|at| Instant::now() >= at)
    }

    /// What an effect stopped at the cutoff failed with.
    pub(crate) fn error(&self) -> EffectError {
        match self.deadline {
            Some(d) => EffectError::Deadline(d.budget),
            None => EffectError::Timeout(self.timeout),
        }
    }
}

/// The host's side of effects: how commands run, where webhooks go out, and
/// the named handlers `call` finds.
///
/// Cloning is cheap and the clones share one webhook pool.
#[derive(Clone)]
pub struct Effects {
    exec: ExecConfig,
    webhook: WebhookConfig,
    pool: Arc<OnceLock<WebhookPool>>,
    handlers: HashMap<String, Arc<dyn Handler>>,
    dispatch_deadline: Option<Duration>,
    #[cfg(feature = "lua")]
    lua: Arc<lua::LuaHandlers>,
    rate_store: crate::store::RateStore,
    /// Where `rate(…)` counts live when the store is memory; shared by
    /// clones, so a registry's counts outlive its reloads.
    memory: Arc<crate::store::MemoryStore>,
    /// True when effects are recorded, not run (`--no-effects`).
    recording: bool,
    /// Commands and webhooks that answer as scripted (tests).
    mocks: mock::Mocks,
    /// What rules may read of the host: environment, project directory.
    host: crate::event::HostFacts,
}

impl fmt::Debug for Effects {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut handlers: Vec<&str> = self.handlers.keys().map(String::as_str).collect();
        handlers.sort_unstable();
        f.debug_struct("Effects")
            .field("exec", &self.exec)
            .field("webhook", &self.webhook)
            .field("handlers", &handlers)
            .field("rate_store", &self.rate_store)
            .field("dispatch_deadline", &self.dispatch_deadline)
            .field("recording", &self.recording)
            .field("mocks", &self.mocks)
            .finish_non_exhaustive()
    }
}

impl Default for Effects {
    fn default() -> Self {
        Effects::new()
    }
}

impl Effects {
    /// Default effects: commands run in the current directory with a 60 s
    /// timeout, webhooks through a pool of 32, no handlers, `rate(…)`
    /// counts in memory.
    pub fn new() -> Effects {
        Effects {
            exec: ExecConfig::default(),
            webhook: WebhookConfig::default(),
            pool: Arc::default(),
            handlers: HashMap::new(),
            dispatch_deadline: None,
            #[cfg(feature = "lua")]
            lua: Arc::default(),
            rate_store: crate::store::RateStore::Memory,
            memory: Arc::default(),
            recording: false,
            mocks: mock::Mocks::default(),
            host: crate::event::HostFacts::default(),
        }
    }

    /// Tells rules about the host: the environment `env("NAME")` reads and
    /// the project directory `relpath(…)` measures from (none by default:
    /// both read as `null`).
    pub fn with_host_facts(mut self, facts: crate::event::HostFacts) -> Effects {
        self.host = facts;
        self
    }

    /// What rules may read of the host.
    pub fn host_facts(&self) -> &crate::event::HostFacts {
        &self.host
    }

    /// The process-wide default effects that [`Table::dispatch`] uses.
    ///
    /// [`Table::dispatch`]: crate::Table::dispatch
    pub fn global() -> &'static Effects {
        static GLOBAL: OnceLock<Effects> = OnceLock::new();
        GLOBAL.get_or_init(Effects::new)
    }

    /// Sets how commands run.
    pub fn with_exec(mut self, exec: ExecConfig) -> Effects {
        self.exec = exec;
        self
    }

    /// Sets how webhooks are sent (the pool starts at the first webhook).
    pub fn with_webhooks(mut self, webhook: WebhookConfig) -> Effects {
        self.webhook = webhook;
        self.pool = Arc::default();
        self
    }

    /// Gives the effects of each dispatch `budget` in all, from the
    /// dispatch's start: see [the deadline](self#the-deadline). Without it
    /// each effect has only its own timeout.
    pub fn with_dispatch_deadline(mut self, budget: Duration) -> Effects {
        self.dispatch_deadline = Some(budget);
        self
    }

    /// The budget of each dispatch's effects, if there is one.
    pub fn dispatch_deadline(&self) -> Option<Duration> {
        self.dispatch_deadline
    }

    /// The deadline of a dispatch starting now (inlined: most hosts set
    /// none, and the test of that is a fraction of a call).
    #[inline]
    pub(crate) fn deadline_from_now(&self) -> Option<Deadline> {
        let budget = self.dispatch_deadline?;
        Some(Deadline {
            // A budget too large to represent is no deadline.
            at: Instant::now().checked_add(budget)?,
            budget,
        })
    }

    /// Registers a native handler under `name`, for `call "name"`; replaces
    /// one of the same name.
    pub fn with_handler(
        mut self,
        name: impl Into<String>,
        handler: impl Handler + 'static,
    ) -> Effects {
        self.handlers.insert(name.into(), Arc::new(handler));
        self
    }

    /// Registers a shared native handler under `name`.
    pub fn insert_handler(&mut self, name: impl Into<String>, handler: Arc<dyn Handler>) {
        self.handlers.insert(name.into(), handler);
    }

    /// Removes the handler `name`; true if there was one.
    pub fn remove_handler(&mut self, name: &str) -> bool {
        self.handlers.remove(name).is_some()
    }

    /// The handler registered under `name`.
    pub fn handler(&self, name: &str) -> Option<&Arc<dyn Handler>> {
        self.handlers.get(name)
    }

    /// How commands run.
    pub fn exec_config(&self) -> &ExecConfig {
        &self.exec
    }

    /// The loaded Lua handlers.
    #[cfg(feature = "lua")]
    pub(crate) fn lua(&self) -> &lua::LuaHandlers {
        &self.lua
    }

    /// Keeps the counts of `rate(…)` conditions in `store` instead of the
    /// dispatching process's memory (see [`crate::store`]).
    pub fn with_rate_store(mut self, store: crate::store::RateStore) -> Effects {
        self.rate_store = store;
        self
    }

    /// Where the counts of `rate(…)` conditions are kept.
    pub fn rate_store(&self) -> &crate::store::RateStore {
        &self.rate_store
    }

    /// Effects that are recorded, not run: each `exec`, `sh`, `webhook`,
    /// `call`, `lua` and `trace` a rule reaches leaves an `info` log line
    /// saying what it would have done, and the rule goes on as if it had
    /// succeeded with no reply. For looking at a policy (`hookc eval`,
    /// `explain` and `test` with `--no-effects`) without touching the
    /// machine.
    ///
    /// ```
    /// let table = hookc::compile_str(
    ///     "a.hooks",
    ///     "hook a on tool.pre_execute { sh \"touch /tmp/hookc-never\" }",
    /// )?
    /// .table;
    /// let mut ctx = hookc::HookContext::new("tool.pre_execute", "a::b", serde_json::json!({}));
    /// let effects = hookc::Effects::new().recording_only();
    /// let report = table.dispatch_context_with(&mut ctx, &effects);
    /// assert!(report.logs[0].message.starts_with("not run (effects are off): sh"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn recording_only(mut self) -> Effects {
        self.recording = true;
        self
    }

    /// Lets `mock` answer for the `exec` or `sh` commands it matches: they
    /// do not run (see [`mock`]). The first mock added that matches answers.
    ///
    /// ```
    /// use hookc::effects::CommandMock;
    /// let table = hookc::compile_str(
    ///     "a.hooks",
    ///     "hook gate on tool.pre_execute { sh \"npm test --silent\" }",
    /// )?
    /// .table;
    /// let mut ctx = hookc::HookContext::new("tool.pre_execute", "a::b", serde_json::json!({}));
    /// let red = CommandMock::sh(|script| script.starts_with("npm test")).exit(2).stderr("red");
    /// let effects = hookc::Effects::new().with_command_mock(red);
    /// let report = table.dispatch_context_with(&mut ctx, &effects);
    /// assert_eq!(report.reason.as_deref(), Some("red"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn with_command_mock(mut self, mock: CommandMock) -> Effects {
        self.mocks.commands.push(mock);
        self
    }

    /// Lets `mock` stand in for the webhooks it matches: they are not sent.
    #[must_use]
    pub fn with_webhook_mock(mut self, mock: WebhookMock) -> Effects {
        self.mocks.webhooks.push(mock);
        self
    }

    /// The mocked commands and webhooks.
    pub(crate) fn mocks(&self) -> &mock::Mocks {
        &self.mocks
    }

    /// True when an effect may not run as written: it is recorded only, or
    /// something is mocked. One test on the dispatch's path.
    pub(crate) fn intercepts(&self) -> bool {
        self.recording || !self.mocks.is_empty()
    }

    /// True for [`recording_only`](Self::recording_only) effects.
    pub fn is_recording_only(&self) -> bool {
        self.recording
    }

    /// The in-memory counters of `rate(…)` when the store is
    /// [`RateStore::Memory`](crate::store::RateStore::Memory): every table
    /// dispatched with these effects (or their clones) counts here.
    pub fn memory_store(&self) -> &crate::store::MemoryStore {
        &self.memory
    }

    /// Waits at most `timeout` for the webhooks these effects queued, and
    /// says what did not arrive ([`WebhookPool::flush_report`]); at once
    /// when no webhook was ever posted. For a process about to exit: its
    /// senders die with it.
    pub fn flush_webhooks(&self, timeout: Duration) -> FlushReport {
        match self.pool.get() {
            Some(pool) => pool.flush_report(timeout),
            None => FlushReport::default(),
        }
    }

    /// The webhook pool (started on first use).
    pub fn webhooks(&self) -> &WebhookPool {
        self.pool
            .get_or_init(|| WebhookPool::new(self.webhook.clone()))
    }
}
