//! Mocked effects: commands and webhooks that answer as scripted instead of
//! running, for the tests of a policy.
//!
//! A `test` block says `mock sh "npm test*" exit 2 stderr "tests fail"`, and
//! a rule's `sh "npm test --silent"` in that test starts no process: it ends
//! as a command that exited 2 with that stderr would, through the same
//! reading of exit codes and replies as a real command
//! ([`exec`](super::exec)'s protocol), so the rule's failure mode and the
//! reply's decision apply as they would for real. A mocked webhook is sent
//! nowhere, or is refused as a full queue would refuse it. A host's own tests
//! use the same thing through [`Effects::with_command_mock`] and
//! [`Effects::with_webhook_mock`].
//!
//! Each mocked effect leaves an `info` log line (`mocked: sh "…" (exit 2)`),
//! so `hookc explain` and a failing test show what stood in for what. An
//! effect no mock matches runs as usual (or is only recorded, under
//! [`Effects::recording_only`]). The first mock that matches answers.
//!
//! [`Effects::with_command_mock`]: super::Effects::with_command_mock
//! [`Effects::with_webhook_mock`]: super::Effects::with_webhook_mock
//! [`Effects::recording_only`]: super::Effects::recording_only

use super::exec::{interpret, Status};
use super::{EffectError, Reply};
use std::fmt;
use std::sync::Arc;

/// Decides whether a mock stands in for a program, script or URL.
type Matcher = Arc<dyn Fn(&str) -> bool + Send + Sync>;

/// A command that answers as scripted: its exit code, stdout and stderr.
#[derive(Clone)]
pub struct CommandMock {
    shell: bool,
    matches: Matcher,
    exit: i32,
    stdout: String,
    stderr: String,
}

impl fmt::Debug for CommandMock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CommandMock")
            .field("shell", &self.shell)
            .field("exit", &self.exit)
            .field("stdout", &self.stdout)
            .field("stderr", &self.stderr)
            .finish_non_exhaustive()
    }
}

impl CommandMock {
    /// Stands in for `exec` of a program `matches` accepts (the program as
    /// the rule writes it); exits 0 with no output until told otherwise.
    pub fn exec(matches: impl Fn(&str) -> bool + Send + Sync + 'static) -> CommandMock {
        CommandMock::new(false, Arc::new(matches))
    }

    /// Stands in for `sh` of a script `matches` accepts.
    pub fn sh(matches: impl Fn(&str) -> bool + Send + Sync + 'static) -> CommandMock {
        CommandMock::new(true, Arc::new(matches))
    }

    fn new(shell: bool, matches: Matcher) -> CommandMock {
        CommandMock {
            shell,
            matches,
            exit: 0,
            stdout: String::new(),
            stderr: String::new(),
        }
    }

    /// Its exit code.
    #[must_use]
    pub fn exit(mut self, code: i32) -> CommandMock {
        self.exit = code;
        self
    }

    /// What it prints on stdout (a reply, when it exits 0).
    #[must_use]
    pub fn stdout(mut self, text: impl Into<String>) -> CommandMock {
        self.stdout = text.into();
        self
    }

    /// What it prints on stderr (the reason, when it exits 2).
    #[must_use]
    pub fn stderr(mut self, text: impl Into<String>) -> CommandMock {
        self.stderr = text.into();
        self
    }

    /// The exit code it answers with.
    pub fn exit_code(&self) -> i32 {
        self.exit
    }

    /// True when it stands in for this `exec` program or `sh` script.
    pub(crate) fn stands_for(&self, shell: bool, program: &str) -> bool {
        self.shell == shell && (self.matches)(program)
    }

    /// What the rule gets, read as a real command's exit would be.
    pub(crate) fn reply(&self, label: &str) -> Result<Reply, EffectError> {
        let status = Status {
            code: Some(self.exit),
            signal: -1,
        };
        interpret(
            label,
            status,
            self.stdout.as_bytes(),
            self.stderr.as_bytes(),
        )
    }
}

/// A webhook that is not sent: accepted, or refused with a reason.
#[derive(Clone)]
pub struct WebhookMock {
    matches: Matcher,
    fail: Option<String>,
}

impl fmt::Debug for WebhookMock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WebhookMock")
            .field("fail", &self.fail)
            .finish_non_exhaustive()
    }
}

impl WebhookMock {
    /// Stands in for a webhook to a URL `matches` accepts (the URL as the
    /// rule writes it).
    pub fn new(matches: impl Fn(&str) -> bool + Send + Sync + 'static) -> WebhookMock {
        WebhookMock {
            matches: Arc::new(matches),
            fail: None,
        }
    }

    /// Refuses the delivery with `reason`, as a full queue would: the rule
    /// gets a warning.
    #[must_use]
    pub fn fail(mut self, reason: impl Into<String>) -> WebhookMock {
        self.fail = Some(reason.into());
        self
    }

    /// True when it stands in for a webhook to `url`.
    pub(crate) fn stands_for(&self, url: &str) -> bool {
        (self.matches)(url)
    }

    /// The refusal, when it refuses.
    pub(crate) fn refusal(&self, url: &str) -> Option<EffectError> {
        self.fail.as_ref().map(|reason| EffectError::Webhook {
            url: url.to_string(),
            reason: reason.clone(),
        })
    }
}

/// The mocks of one set of effects.
#[derive(Clone, Debug, Default)]
pub(crate) struct Mocks {
    pub(crate) commands: Vec<CommandMock>,
    pub(crate) webhooks: Vec<WebhookMock>,
}

impl Mocks {
    /// True when nothing is mocked.
    pub(crate) fn is_empty(&self) -> bool {
        self.commands.is_empty() && self.webhooks.is_empty()
    }

    /// The first command mock that stands in for this command.
    pub(crate) fn command(&self, shell: bool, program: &str) -> Option<&CommandMock> {
        self.commands.iter().find(|m| m.stands_for(shell, program))
    }

    /// The first webhook mock that stands in for a webhook to `url`.
    pub(crate) fn webhook(&self, url: &str) -> Option<&WebhookMock> {
        self.webhooks.iter().find(|m| m.stands_for(url))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::effects::HookAction;

    #[test]
    fn a_mocked_exit_is_read_as_a_real_one() {
        let block = CommandMock::sh(|s| s.starts_with("npm test"))
            .exit(2)
            .stderr("  tests fail \n");
        assert!(block.stands_for(true, "npm test --silent"));
        assert!(
            !block.stands_for(false, "npm test --silent"),
            "sh mocks only sh"
        );
        let reply = block.reply("sh").expect("exit 2 is a block");
        assert_eq!(
            reply.action,
            Some(HookAction::Abort {
                reason: "tests fail".to_owned()
            })
        );

        let reply = CommandMock::exec(|_| true)
            .stdout(r#"{"decision": "block", "reason": "no"}"#)
            .reply("./check")
            .expect("a JSON reply");
        assert_eq!(
            reply.action,
            Some(HookAction::Abort {
                reason: "no".to_owned()
            })
        );

        let failed = CommandMock::exec(|_| true)
            .exit(1)
            .stderr("boom")
            .reply("./check");
        assert!(
            matches!(failed, Err(EffectError::Exit { code: 1, ref stderr, .. }) if stderr == "boom"),
            "{failed:?}"
        );
        let garbled = CommandMock::exec(|_| true).stdout("{nope").reply("./check");
        assert!(
            matches!(garbled, Err(EffectError::BadReply { .. })),
            "{garbled:?}"
        );
    }

    #[test]
    fn the_first_matching_mock_answers() {
        let mocks = Mocks {
            commands: vec![
                CommandMock::exec(|p| p == "a").exit(2),
                CommandMock::exec(|_| true).exit(1),
            ],
            webhooks: vec![WebhookMock::new(|u| u.contains("slack")).fail("full")],
        };
        assert_eq!(
            mocks.command(false, "a").map(CommandMock::exit_code),
            Some(2)
        );
        assert_eq!(
            mocks.command(false, "b").map(CommandMock::exit_code),
            Some(1)
        );
        assert!(mocks.command(true, "a").is_none());
        let refusal = mocks
            .webhook("https://slack/x")
            .and_then(|m| m.refusal("u"));
        assert!(matches!(refusal, Some(EffectError::Webhook { .. })));
        assert!(mocks.webhook("https://other").is_none());
        assert!(!mocks.is_empty() && Mocks::default().is_empty());
    }
}
