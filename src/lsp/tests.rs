//! Conversations with the server, in memory.
