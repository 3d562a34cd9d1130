//! Hooks written in Rust: the [`NativeHook`] trait a host implements, and
//! [`RegisteredHook`], a registered one as the chain runs it.
//!
//! The runtime declares the trait because the chain calls it; a
//! [`Registry`](crate::Registry) only stores registered hooks and hands
//! them to each dispatch.

use crate::effects::HookAction;
use crate::event::HookContext;
use crate::fql::FqlPattern;
use crate::ir::FailMode;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

/// A hook written in Rust and registered with a [`Registry`](crate::Registry):
/// ORCS's `Hook` trait.
///
/// `execute` may edit the context in place and returns what the chain does
/// next. A panic is caught: it is a failure of the hook, handled by its
/// [`fail_mode`](NativeHook::fail_mode), and the context is left as it was.
pub trait NativeHook: Send + Sync {
    /// Unique identifier.
    fn id(&self) -> &str;

    /// Which targets the hook runs for.
    fn fql_pattern(&self) -> &FqlPattern;

    /// The hook point's name (`tool.pre_execute`, `PreToolUse`, …).
    fn hook_point(&self) -> &str;

    /// Lower runs earlier. Default: 100.
    fn priority(&self) -> i32 {
        100
    }

    /// What a panic or an overrun does. Default: fail open (a warning).
    fn fail_mode(&self) -> FailMode {
        FailMode::Open
    }

    /// Longer than this and the result is dropped as a failure (native code
    /// is not preempted). Default: 60 s.
    fn timeout(&self) -> Duration {
        Duration::from_secs(60)
    }

    /// Runs the hook.
    fn execute(&self, ctx: &mut HookContext) -> HookAction;
}

/// A registered native hook, as the chain sees it.
#[derive(Clone)]
pub(crate) struct RegisteredHook {
    pub(crate) hook: Arc<dyn NativeHook>,
    pub(crate) priority: i32,
    pub(crate) enabled: bool,
    pub(crate) owner: Option<String>,
    /// Registration order, to keep ties stable.
    pub(crate) seq: u64,
}

impl fmt::Debug for RegisteredHook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RegisteredHook")
            .field("id", &self.hook.id())
            .field("priority", &self.priority)
            .field("enabled", &self.enabled)
            .field("owner", &self.owner)
            .finish()
    }
}
