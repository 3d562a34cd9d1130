//! `hookc lsp`: the language server, on stdin and stdout.

use super::{Failure, Status};

/// Arguments of `hookc lsp` (none: the client starts it and talks on
/// stdio).
#[derive(Debug, clap::Args)]
pub(crate) struct LspArgs {
    /// Accepted for clients that pass it; stdio is the only transport
    #[arg(long)]
    stdio: bool,
}

/// Serves one client on stdio until it exits.
pub(crate) fn run(args: LspArgs) -> Result<Status, Failure> {
    let _ = args.stdio;
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut output = std::io::stdout().lock();
    match crate::lsp::serve(&mut input, &mut output) {
        Ok(crate::lsp::Exit::Clean) => Ok(Status::Ok),
        Ok(crate::lsp::Exit::WithoutShutdown) => Ok(Status::Findings),
        Err(e) => Err(Failure::new(format!("language server: {e}"))),
    }
}
