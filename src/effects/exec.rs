//! `exec` and `sh`: run a command with the event on stdin.

use super::{EffectError, Reply};
use crate::runtime::HookContext;
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
            default_timeout: Duration::from_secs(60),
            max_output: 1 << 20,
        }
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
}

/// Runs `cmd` with `ctx` as JSON on stdin and reads its reply.
pub(crate) fn run(
    config: &ExecConfig,
    cmd: &Command<'_>,
    ctx: &HookContext,
) -> Result<Reply, EffectError> {
    let _ = (config, cmd, ctx);
    Err(EffectError::Unsupported("`exec` is not implemented yet"))
}
