//! `exec` and `sh`: run a command with the event on stdin.
//!
//! `exec "prog" "arg" …` runs a program directly, with the rule's strings as
//! its argv: no shell is involved. `sh "script"` runs `/bin/sh -c script`.
//! Both strings come from the rule file; event data never reaches a command
//! line or a shell, only stdin.
//!
//! # The protocol
//!
//! It is Claude Code's command-hook protocol, with hookc's own reply form
//! added:
//!
//! - **stdin**: the event context as one JSON object (the [`HookContext`]
//!   the rule sees, edits of earlier rules included), then end of file.
//!   Under the `claude-code` schema it is the context's `payload` alone,
//!   which is the Claude Code event: a command hook written for Claude Code
//!   runs unchanged. A command need not read stdin: the writer stops at a
//!   closed pipe without error.
//! - **working directory**: [`ExecConfig::project_dir`], or the host's
//!   current directory. A relative program path (`./bin/check`,
//!   `hooks/lint.sh`) is in that directory too; a bare name is looked up
//!   in `PATH`.
//! - **environment**: the host's, plus
//!   - `HOOKC_PROJECT_DIR`: the working directory, absolute;
//!   - `HOOKC_HOOK_POINT`: the hook point being dispatched, e.g.
//!     `tool.pre_execute`;
//!   - `HOOKC_RULE_ID`: the id of the rule running the command;
//!   - `CLAUDE_PROJECT_DIR`: the same as `HOOKC_PROJECT_DIR`, only when the
//!     host's environment has none (so scripts written for Claude Code find
//!     the project; under Claude Code its own value is kept).
//! - **exit 0**: stdout is the reply ([`reply::parse`]):
//!   empty is continue; text that does not start with `{` is ignored
//!   (continue); a JSON object is a decision in hookc's outcome form or with
//!   Claude Code's fields (`decision: "block"`, `continue: false`,
//!   `hookSpecificOutput.permissionDecision`, `updatedInput`,
//!   `additionalContext`, …). Text that starts with `{` but is not a valid
//!   reply is a failure ([`EffectError::BadReply`]).
//! - **exit 2**: the operation is blocked; the reason is stderr (trimmed, at
//!   most 10,000 characters), or "`prog` exited with code 2" when stderr is
//!   empty. stdout is ignored.
//! - **any other exit code**: a failure ([`EffectError::Exit`], with the
//!   start of stderr); under the default `fail open` it is a warning and the
//!   chain goes on, as Claude Code's "non-blocking error". Exit 1 does not
//!   block unless the rule says `fail closed`.
//! - **killed by a signal**: a failure ([`EffectError::Signal`]).
//! - **cannot start** (not found, not executable, no such project
//!   directory): a failure ([`EffectError::Spawn`]).
//!
//! Where hookc is stricter than Claude Code: a non-zero exit other than 2
//! with a JSON reply on stdout is still a failure (Claude Code lets the JSON
//! decide), and a garbled JSON reply is a failure rather than ignored text.
//! Both go through the rule's failure mode.
//!
//! # Limits
//!
//! - **Timeout**: the rule's `timeout`, or [`ExecConfig::default_timeout`]
//!   (60 s), cut short by the dispatch's deadline when the host set one
//!   ([`Effects::with_dispatch_deadline`](super::Effects::with_dispatch_deadline)).
//!   The command runs in its own process group; at the timeout the whole
//!   group is killed (`SIGKILL`) and the rule fails with
//!   [`EffectError::Timeout`] (or [`EffectError::Deadline`]); after the
//!   deadline a command does not start.
//! - **Output**: stdout and stderr are read concurrently, each up to
//!   [`ExecConfig::max_output`] bytes (1 MiB). More stdout than that kills
//!   the group and fails with [`EffectError::OutputTooLarge`]; stderr past
//!   the limit is read and dropped.
//! - **Background processes do not outlive the command**: when the command
//!   exits, what is left of its process group is killed, so a backgrounded
//!   child holding stdout open cannot keep the rule waiting. A process that
//!   leaves the group (`setsid`) and keeps stdout or stderr open makes the
//!   rule time out, and the thread reading that pipe lingers until the
//!   process closes it.
//!
//! The command is reaped before `run` returns (no zombie is left), and the
//! three threads that feed stdin and read stdout and stderr are joined. A
//! host must ignore `SIGPIPE` (Rust programs do by default): writing the
//! event to a command that exited without reading it would otherwise kill
//! the host.
//!
//! On platforms other than Unix, `exec` and `sh` fail with
//! [`EffectError::Unsupported`].

use super::{reply, EffectError, HookAction, Reply};
use crate::event::HookContext;
use std::path::PathBuf;
use std::time::Duration;

/// How commands run.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ExecConfig {
    /// The working directory of commands (`HOOKC_PROJECT_DIR`); the current
    /// directory when `None`.
    pub project_dir: Option<PathBuf>,
    /// The timeout of a rule without `timeout`.
    pub default_timeout: Duration,
    /// The most bytes read from a command's stdout (and, separately, stderr).
    pub max_output: usize,
}

impl Default for ExecConfig {
    fn default() -> Self {
        ExecConfig {
            project_dir: None,
            default_timeout: Duration::from_millis(crate::ir::DEFAULT_EFFECT_TIMEOUT_MS),
            max_output: 1 << 20,
        }
    }
}

impl ExecConfig {
    /// The defaults: the current directory, 60 s, 1 MiB.
    pub fn new() -> ExecConfig {
        ExecConfig::default()
    }

    /// Runs commands in `dir` (made absolute against the current directory).
    pub fn with_project_dir(mut self, dir: impl Into<PathBuf>) -> ExecConfig {
        self.project_dir = Some(dir.into());
        self
    }

    /// Sets the timeout of rules without `timeout`.
    pub fn with_default_timeout(mut self, timeout: Duration) -> ExecConfig {
        self.default_timeout = timeout;
        self
    }

    /// Sets the most bytes read from stdout (and from stderr).
    pub fn with_max_output(mut self, bytes: usize) -> ExecConfig {
        self.max_output = bytes;
        self
    }
}

/// One command to run.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Command<'a> {
    /// The program, or the script of `sh`.
    pub program: &'a str,
    /// Its arguments.
    pub args: &'a [String],
    /// True for `sh "…"`.
    pub shell: bool,
    /// The hook point being dispatched.
    pub point: &'a str,
    /// The rule's id.
    pub rule: &'a str,
    /// The rule's timeout, if it has one.
    pub timeout: Option<Duration>,
    /// The dispatch's deadline, if it has one.
    pub deadline: Option<super::Deadline>,
    /// What goes on stdin.
    pub input: Input,
}

/// What a command reads on stdin: the schema decides, the table records it.
pub(crate) use crate::schema::CommandInput as Input;

/// Runs `cmd` with `ctx` as JSON on stdin and reads its reply.
pub(crate) fn run(
    config: &ExecConfig,
    cmd: &Command<'_>,
    ctx: &HookContext,
) -> Result<Reply, EffectError> {
    #[cfg(unix)]
    {
        unix::run(config, cmd, ctx)
    }
    #[cfg(not(unix))]
    {
        let _ = (config, cmd, ctx);
        Err(EffectError::Unsupported(
            "`exec` and `sh` are only supported on Unix",
        ))
    }
}

/// The most characters of stderr kept in a failure message.
const STDERR_EXCERPT: usize = 500;
/// The most characters of stderr kept as the reason of an exit 2 (Claude
/// Code's cap on hook output strings).
const MAX_REASON: usize = 10_000;

/// How a command ended: its exit code, or the signal that killed it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Status {
    /// The exit code; `None` when a signal ended it.
    pub code: Option<i32>,
    /// The signal, when `code` is `None` (-1 when unknown).
    pub signal: i32,
}

/// What the exit status and output mean (for a real command and a mocked
/// one alike).
pub(crate) fn interpret(
    label: &str,
    status: Status,
    stdout: &[u8],
    stderr: &[u8],
) -> Result<Reply, EffectError> {
    match status.code {
        Some(0) => reply::parse(stdout).map_err(|message| EffectError::BadReply {
            program: label.to_string(),
            message,
        }),
        Some(2) => {
            let mut reason = excerpt(stderr, MAX_REASON);
            if reason.is_empty() {
                reason = format!("`{label}` exited with code 2");
            }
            Ok(Reply {
                action: Some(HookAction::Abort { reason }),
                ..Reply::default()
            })
        }
        Some(code) => Err(EffectError::Exit {
            program: label.to_string(),
            code,
            stderr: excerpt(stderr, STDERR_EXCERPT),
        }),
        None => Err(EffectError::Signal {
            program: label.to_string(),
            signal: status.signal,
            stderr: excerpt(stderr, STDERR_EXCERPT),
        }),
    }
}

/// The trimmed text of `bytes`, at most `max` characters.
fn excerpt(bytes: &[u8], max: usize) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim();
    match text.char_indices().nth(max) {
        Some((end, _)) => format!("{}…", text.get(..end).unwrap_or(text).trim_end()),
        None => text.to_string(),
    }
}

#[cfg(unix)]
mod unix {
    use super::{Command, ExecConfig, Input};
    use crate::effects::{Cutoff, EffectError, Reply};
    use crate::event::HookContext;
    use rustix::process::{kill_process_group, Pid, Signal};
    use std::io::{self, Read, Write};
    use std::os::unix::process::{CommandExt, ExitStatusExt};
    use std::path::{Path, PathBuf};
    use std::process::{Child, ExitStatus, Stdio};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    use std::thread::{self, JoinHandle};
    use std::time::{Duration, Instant};

    /// How long the pipe threads get to finish once the group is dead.
    const GRACE: Duration = Duration::from_secs(1);
    /// The first and the longest sleep between two looks at the command:
    /// most hooks exit within a few milliseconds, a slow one costs at most
    /// 100 looks a second.
    const FIRST_POLL: Duration = Duration::from_millis(1);
    const MAX_POLL: Duration = Duration::from_millis(10);
    /// Stack size of the pipe threads: they only shuttle bytes between the
    /// pipe and a heap buffer.
    const PIPE_THREAD_STACK: usize = 64 * 1024;

    pub(super) fn run(
        config: &ExecConfig,
        cmd: &Command<'_>,
        ctx: &HookContext,
    ) -> Result<Reply, EffectError> {
        let label = if cmd.shell { "sh" } else { cmd.program };
        let io_error = |source| EffectError::Io {
            program: label.to_string(),
            source,
        };
        // Everything that can fail before the spawn does, so that a failure
        // leaves no process behind.
        let input = match cmd.input {
            Input::Context => serde_json::to_vec(ctx),
            Input::Payload => serde_json::to_vec(&ctx.payload),
        }
        .map_err(|e| io_error(io::Error::other(e)))?;
        let dir = project_dir(config).map_err(|source| EffectError::Spawn {
            program: label.to_string(),
            source,
        })?;
        let mut command = if cmd.shell {
            let mut c = std::process::Command::new("/bin/sh");
            c.arg("-c").arg(cmd.program);
            c
        } else {
            let mut c = std::process::Command::new(program_path(&dir, cmd.program));
            c.args(cmd.args);
            c
        };
        command
            .current_dir(&dir)
            .env("HOOKC_PROJECT_DIR", &dir)
            .env("HOOKC_HOOK_POINT", cmd.point)
            .env("HOOKC_RULE_ID", cmd.rule)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Its own group, so that the command and everything it starts
            // can be killed at once.
            .process_group(0);
        if std::env::var_os("CLAUDE_PROJECT_DIR").is_none() {
            command.env("CLAUDE_PROJECT_DIR", &dir);
        }

        // Nothing starts after the dispatch's deadline.
        let cutoff = Cutoff::start(cmd.timeout.unwrap_or(config.default_timeout), cmd.deadline)?;
        // `None` for a timeout too large to represent: no deadline.
        let deadline = cutoff.at;
        let child = command.spawn().map_err(|source| EffectError::Spawn {
            program: label.to_string(),
            source,
        })?;
        // From here on the group is killed and the leader reaped on every
        // path, early returns and panics included.
        let mut group = Group::new(child);
        let mut pipes = Pipes::start(&mut group, input, config.max_output).map_err(io_error)?;

        // Wait for the leader, the deadline or too much output.
        let mut nap = FIRST_POLL;
        loop {
            if pipes.overflow.load(Ordering::Acquire) {
                group.kill();
                pipes.finish(Instant::now() + GRACE);
                return Err(EffectError::OutputTooLarge {
                    program: label.to_string(),
                    limit: config.max_output,
                });
            }
            match group.exited() {
                Ok(true) => break,
                Ok(false) => {}
                Err(e) => {
                    group.kill();
                    pipes.finish(Instant::now() + GRACE);
                    return Err(io_error(e));
                }
            }
            let now = Instant::now();
            let left = deadline.map(|d| d.saturating_duration_since(now));
            if left == Some(Duration::ZERO) {
                group.kill();
                pipes.finish(now + GRACE);
                return Err(cutoff.error());
            }
            thread::sleep(left.map_or(nap, |left| nap.min(left)));
            nap = (nap * 2).min(MAX_POLL);
        }

        // The leader is done: what it left running in its group goes too,
        // so that no background process keeps a pipe (and us) waiting.
        let status = group.kill_and_reap().map_err(io_error)?;
        let until = deadline.map_or(Instant::now() + GRACE, |d| d.max(Instant::now() + GRACE));
        let Some(output) = pipes.finish(until) else {
            // A process that left the group still holds a pipe.
            return Err(cutoff.error());
        };
        if output.overflow {
            return Err(EffectError::OutputTooLarge {
                program: label.to_string(),
                limit: config.max_output,
            });
        }
        let stdout = output.stdout.map_err(io_error)?;
        let stderr = output.stderr.map_err(io_error)?;
        output.stdin.map_err(io_error)?;
        let status = super::Status {
            code: status.code(),
            // A status with neither a code nor a signal (stopped) cannot
            // come from a reaped process; -1 rather than a panic.
            signal: status.signal().unwrap_or(-1),
        };
        super::interpret(label, status, &stdout, &stderr)
    }

    /// The program to start: a relative path (`./bin/check`,
    /// `hooks/lint.sh`) is in the project directory, never wherever the
    /// host's working directory happens to be; a bare name is looked up in
    /// `PATH`.
    fn program_path(dir: &Path, program: &str) -> PathBuf {
        let path = Path::new(program);
        if path.is_relative() && path.components().count() > 1 {
            dir.join(path)
        } else {
            path.to_path_buf()
        }
    }

    /// The working directory of commands, absolute.
    fn project_dir(config: &ExecConfig) -> io::Result<PathBuf> {
        let dir = match &config.project_dir {
            Some(dir) => std::path::absolute(dir)?,
            None => std::env::current_dir()?,
        };
        // Checked here because a spawn into a missing directory reports a
        // bare "No such file or directory", which reads as if the program
        // were missing.
        if !dir.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!("the project directory {} is not a directory", dir.display()),
            ));
        }
        Ok(dir)
    }

    /// A running command: its process group, led by `child`.
    struct Group {
        child: Child,
        pid: Pid,
        status: Option<ExitStatus>,
    }

    impl Group {
        fn new(child: Child) -> Group {
            let pid = Pid::from_child(&child);
            Group {
                child,
                pid,
                status: None,
            }
        }

        /// True when the leader has exited. On Linux the leader is left a
        /// zombie (`WNOWAIT`): while it is one its pid, which is the group
        /// id, cannot be reused, so the group kill that follows cannot hit
        /// an unrelated group.
        #[cfg(any(target_os = "linux", target_os = "android"))]
        fn exited(&mut self) -> io::Result<bool> {
            use rustix::process::{waitid, WaitId, WaitIdOptions};
            let options = WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT;
            match waitid(WaitId::Pid(self.pid), options) {
                Ok(status) => Ok(status.is_some()),
                Err(rustix::io::Errno::INTR) => Ok(false),
                Err(e) => Err(e.into()),
            }
        }

        /// True when the leader has exited (and is reaped: the group kill
        /// that follows relies on the group id not being reused within
        /// microseconds).
        #[cfg(not(any(target_os = "linux", target_os = "android")))]
        fn exited(&mut self) -> io::Result<bool> {
            Ok(self.child.try_wait()?.is_some())
        }

        /// Kills the group and reaps the leader, on a path that fails
        /// anyway: its status does not matter.
        fn kill(&mut self) {
            let _ = self.kill_and_reap();
        }

        /// Kills what is left of the group and reaps the leader; its status.
        fn kill_and_reap(&mut self) -> io::Result<ExitStatus> {
            if let Some(status) = self.status {
                return Ok(status);
            }
            // ESRCH (the group is gone) is the common case after a normal
            // exit; EPERM (a member changed its user id) cannot be helped.
            let _ = kill_process_group(self.pid, Signal::KILL);
            let status = self.child.wait()?;
            self.status = Some(status);
            Ok(status)
        }
    }

    impl Drop for Group {
        fn drop(&mut self) {
            self.kill();
        }
    }

    /// What the pipe threads brought back.
    struct Output {
        stdin: io::Result<()>,
        stdout: io::Result<Vec<u8>>,
        stderr: io::Result<Vec<u8>>,
        overflow: bool,
    }

    /// The threads that write stdin and read stdout and stderr: a command
    /// that fills one pipe while we wait on another must not deadlock.
    struct Pipes {
        stdin: Option<JoinHandle<io::Result<()>>>,
        stdout: Option<JoinHandle<io::Result<Vec<u8>>>>,
        stderr: Option<JoinHandle<io::Result<Vec<u8>>>>,
        /// Set by the stdout reader when the command printed too much.
        overflow: Arc<AtomicBool>,
    }

    impl Pipes {
        /// Starts the threads; if one cannot be started, kills the group
        /// (which ends those already running) and joins them.
        fn start(group: &mut Group, input: Vec<u8>, limit: usize) -> io::Result<Pipes> {
            let overflow = Arc::new(AtomicBool::new(false));
            let mut pipes = Pipes {
                stdin: None,
                stdout: None,
                stderr: None,
                overflow: Arc::clone(&overflow),
            };
            let child = &mut group.child;
            let (Some(stdin), Some(stdout), Some(stderr)) =
                (child.stdin.take(), child.stdout.take(), child.stderr.take())
            else {
                group.kill_and_reap()?;
                return Err(io::Error::other("a pipe to the command is missing"));
            };
            let started = spawn("hookc-exec-in", move || write_input(stdin, &input))
                .map(|h| pipes.stdin = Some(h))
                .and_then(|()| {
                    spawn("hookc-exec-out", move || {
                        read_capped(stdout, limit, &overflow)
                    })
                })
                .map(|h| pipes.stdout = Some(h))
                .and_then(|()| spawn("hookc-exec-err", move || read_truncated(stderr, limit)))
                .map(|h| pipes.stderr = Some(h));
            match started {
                Ok(()) => Ok(pipes),
                Err(e) => {
                    group.kill();
                    pipes.finish(Instant::now() + GRACE);
                    Err(e)
                }
            }
        }

        /// Waits until every thread is done, or `until`; their results, or
        /// `None` when one is still blocked on a pipe (it is left to end on
        /// its own when the process holding the pipe closes it).
        fn finish(&mut self, until: Instant) -> Option<Output> {
            let mut nap = FIRST_POLL;
            loop {
                let done = [
                    self.stdin.as_ref().is_none_or(JoinHandle::is_finished),
                    self.stdout.as_ref().is_none_or(JoinHandle::is_finished),
                    self.stderr.as_ref().is_none_or(JoinHandle::is_finished),
                ];
                if done.iter().all(|d| *d) {
                    break;
                }
                let now = Instant::now();
                if now >= until {
                    return None;
                }
                thread::sleep(nap.min(until - now));
                nap = (nap * 2).min(MAX_POLL);
            }
            Some(Output {
                stdin: self.stdin.take().map_or_else(not_started, join),
                stdout: self.stdout.take().map_or_else(not_started, join),
                stderr: self.stderr.take().map_or_else(not_started, join),
                overflow: self.overflow.load(Ordering::Acquire),
            })
        }
    }

    fn spawn<T: Send + 'static>(
        name: &str,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> io::Result<JoinHandle<T>> {
        thread::Builder::new()
            .name(name.to_string())
            .stack_size(PIPE_THREAD_STACK)
            .spawn(f)
    }

    /// The result of a pipe thread that never ran (only on paths that fail
    /// anyway).
    fn not_started<T>() -> io::Result<T> {
        Err(io::Error::other("a pipe thread was not started"))
    }

    /// Joins a finished pipe thread.
    fn join<T>(handle: JoinHandle<io::Result<T>>) -> io::Result<T> {
        handle
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("a pipe thread panicked")))
    }

    /// Writes the event and closes stdin. A command that exits (or closes
    /// stdin) without reading everything is not an error.
    fn write_input(mut stdin: impl Write, input: &[u8]) -> io::Result<()> {
        match stdin.write_all(input).and_then(|()| stdin.flush()) {
            Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(e),
            _ => Ok(()),
        }
        // `stdin` is dropped here: end of file for the command.
    }

    /// Reads stdout up to `limit` bytes; one byte more sets `overflow` and
    /// stops reading (the waiting thread then kills the group).
    fn read_capped(
        mut pipe: impl Read,
        limit: usize,
        overflow: &AtomicBool,
    ) -> io::Result<Vec<u8>> {
        let mut buf = Vec::new();
        let cap = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
        pipe.by_ref().take(cap).read_to_end(&mut buf)?;
        if buf.len() > limit {
            overflow.store(true, Ordering::Release);
            buf.truncate(limit);
        }
        Ok(buf)
    }

    /// Reads stderr, keeping the first `limit` bytes. The rest is drained
    /// rather than refused, so that a chatty command is neither blocked on a
    /// full pipe nor killed by `SIGPIPE`.
    fn read_truncated(mut pipe: impl Read, limit: usize) -> io::Result<Vec<u8>> {
        let mut buf = Vec::new();
        let cap = u64::try_from(limit).unwrap_or(u64::MAX);
        pipe.by_ref().take(cap).read_to_end(&mut buf)?;
        io::copy(&mut pipe, &mut io::sink())?;
        Ok(buf)
    }

    #[cfg(test)]
    mod tests {
        use super::super::excerpt;
        use super::*;

        #[test]
        fn excerpts_trim_and_cut_on_characters() {
            assert_eq!(excerpt(b"  boom \n", 500), "boom");
            assert_eq!(excerpt("ééé".as_bytes(), 2), "éé…");
            assert_eq!(excerpt(b"abc", 3), "abc");
            assert_eq!(excerpt(b"\xffx", 10), "\u{fffd}x");
        }

        #[test]
        fn capped_reads() {
            let flag = AtomicBool::new(false);
            let out = read_capped(&b"hello"[..], 5, &flag).unwrap_or_default();
            assert_eq!(out, b"hello");
            assert!(!flag.load(Ordering::Acquire));
            let out = read_capped(&b"hello!"[..], 5, &flag).unwrap_or_default();
            assert_eq!(out, b"hello");
            assert!(flag.load(Ordering::Acquire));
            let out = read_truncated(&b"hello, world"[..], 5).unwrap_or_default();
            assert_eq!(out, b"hello");
        }
    }
}
