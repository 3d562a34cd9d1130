//! A command's reply: what its stdout asks the chain to do.

use super::HookAction;
use serde_json::{Map, Value};

/// A command's reply, read from its stdout.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct Reply {
    /// What the chain does; `None` is continue.
    pub action: Option<HookAction>,
    /// Text for the outcome's `additional_context`.
    pub additional_context: Vec<String>,
    /// Claude Code's `updatedInput`: the new `payload.tool_input`.
    pub updated_input: Option<Value>,
    /// A new payload (hookc's reply form).
    pub payload: Option<Value>,
    /// Metadata keys to set (hookc's reply form).
    pub metadata: Map<String, Value>,
}

/// Reads a reply from stdout.
pub fn parse(stdout: &[u8]) -> Result<Reply, String> {
    let _ = stdout;
    Ok(Reply::default())
}
