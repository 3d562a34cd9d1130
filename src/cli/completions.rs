//! `hookc completions`: the tab-completion script of a shell.

use super::{print_stdout, Failure, Status};

/// Arguments of `hookc completions`.
#[derive(Debug, clap::Args)]
pub(crate) struct CompletionsArgs {
    /// The shell to complete in
    #[arg(value_enum)]
    shell: clap_complete::Shell,
}

/// Prints the completion script of `hookc` for the shell, generated from
/// the command line's own definition (so it knows every subcommand, option
/// and value).
pub(crate) fn run(args: CompletionsArgs) -> Result<Status, Failure> {
    let mut command = super::command();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "hookc", &mut script);
    let script = String::from_utf8(script)
        .map_err(|e| Failure::new(format!("the completion script is not UTF-8: {e}")))?;
    print_stdout(&script);
    Ok(Status::Ok)
}
