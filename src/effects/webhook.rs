//! `webhook`: post an event summary from a bounded background pool.

use super::EffectError;
use crate::ir::FieldPath;
use crate::runtime::HookContext;
use std::time::Duration;

/// How webhooks are sent.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct WebhookConfig {
    /// Deliveries in flight at once; beyond it an event is dropped.
    pub max_in_flight: usize,
    /// The timeout of one delivery (connect, send, read).
    pub timeout: Duration,
}

impl Default for WebhookConfig {
    fn default() -> Self {
        WebhookConfig {
            max_in_flight: 32,
            timeout: Duration::from_secs(5),
        }
    }
}

/// Counts of the pool's deliveries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WebhookStats {
    /// Delivered (any HTTP status).
    pub sent: u64,
    /// Refused by the guard or failed on the network.
    pub failed: u64,
    /// Dropped because the pool was full.
    pub dropped: u64,
}

/// A bounded pool of background senders.
#[derive(Debug)]
pub struct WebhookPool {
    config: WebhookConfig,
}

/// One webhook to post.
#[derive(Clone, Copy, Debug)]
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
}

impl WebhookPool {
    /// A pool with `config`; its threads start on the first post.
    pub fn new(config: WebhookConfig) -> WebhookPool {
        WebhookPool { config }
    }

    /// Queues a summary of `ctx` for `post`; an error when it cannot be
    /// queued (full pool, refused URL).
    pub(crate) fn post(&self, post: &Post<'_>, ctx: &HookContext) -> Result<(), EffectError> {
        let _ = (post, ctx, &self.config);
        Err(EffectError::Unsupported("`webhook` is not implemented yet"))
    }

    /// Counts so far.
    pub fn stats(&self) -> WebhookStats {
        WebhookStats::default()
    }
}
