//! MCP Router: JavaScript hook scripts around request dispatch.
//!
//! [`import`] turns MCP Router's hook list into rules at
//! `request.pre_dispatch`/`request.post_dispatch`, each script run by a
//! Node.js runner that speaks hookc's command protocol.

pub mod import;
