//! `hookc man`: manual pages (roff), generated from the command line's own
//! definition.

use super::{print_stdout, Failure, Status};
use std::path::{Path, PathBuf};

/// Arguments of `hookc man`.
#[derive(Debug, clap::Args)]
pub(crate) struct ManArgs {
    /// Write `hookc.1` and one page per subcommand (`hookc-lint.1`, …) into
    /// this directory (created if needed) instead of printing `hookc.1`
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

/// Prints `hookc.1`, or writes every page into `--out`.
pub(crate) fn run(args: ManArgs) -> Result<Status, Failure> {
    // `hookc help` is `--help`: it gets no page of its own.
    let mut command = super::command().disable_help_subcommand(true);
    command.build();
    let Some(dir) = args.out else {
        print_stdout(&render(&command)?);
        return Ok(Status::Ok);
    };
    std::fs::create_dir_all(&dir).map_err(|e| Failure::cannot_write(&dir, &e))?;
    let mut written = vec![write_page(&dir, &command)?];
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
        written.push(write_page(&dir, sub)?);
    }
    super::print_stderr(&format!(
        "wrote {} to `{}`\n",
        super::plural(written.len(), "manual page", "manual pages"),
        dir.display()
    ));
    Ok(Status::Ok)
}

/// The page of `command` (the whole tool, or one subcommand): every page's
/// source is `hookc VERSION`.
fn page(command: &clap::Command) -> clap_mangen::Man {
    clap_mangen::Man::new(command.clone()).source(concat!("hookc ", env!("CARGO_PKG_VERSION")))
}

/// The page of `command` as roff text.
fn render(command: &clap::Command) -> Result<String, Failure> {
    let mut page_text = Vec::new();
    page(command)
        .render(&mut page_text)
        .map_err(|e| Failure::new(format!("cannot render the manual page: {e}")))?;
    String::from_utf8(page_text)
        .map_err(|e| Failure::new(format!("the manual page is not UTF-8: {e}")))
}

/// Writes the page of `command` into `dir` as `NAME.1`, its name as `man`
/// finds it (`hookc-lint` for a subcommand); returns its path.
fn write_page(dir: &Path, command: &clap::Command) -> Result<PathBuf, Failure> {
    let path = dir.join(page(command).get_filename());
    let text = render(command)?;
    std::fs::write(&path, text).map_err(|e| Failure::cannot_write(&path, &e))?;
    Ok(path)
}
