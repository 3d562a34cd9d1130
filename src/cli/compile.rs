//! `hookc compile`: compile rules into a binary dispatch table.

use super::{
    check_sources, emit_diagnostics, has_io_errors, plural, print_stderr, Failure, Format, Status,
};
use std::path::{Path, PathBuf};

/// Arguments of `hookc compile`.
#[derive(Debug, clap::Args)]
pub(crate) struct CompileArgs {
    /// `.hooks` files, or directories searched recursively for `*.hooks`
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,

    /// Where to write the compiled table
    #[arg(short, long, value_name = "FILE")]
    output: PathBuf,

    /// Format of diagnostics: `human` (on stderr) or `json` (on stdout)
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,

    /// Lint levels from this file instead of the `hookc.toml` found in the
    /// first path's directory or above
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,

    /// Sign the table with this secret key (from `hookc keygen`), so that
    /// `hookc claude --verify-key` and `Table::from_bytes_verified` accept it
    #[arg(long, value_name = "KEYFILE")]
    sign: Option<PathBuf>,
}

/// Compiles the paths and writes the table; nothing is written on errors.
pub(crate) fn run(args: CompileArgs) -> Result<Status, Failure> {
    check_sources(&args.paths)?;
    // Before compiling: the output is not a rule file named or found.
    let mut reported_later = crate::diag::Diagnostics::new();
    let roots = crate::load::discover(&args.paths, &mut reported_later);
    check_output(&args.output, &roots)?;
    let key = args
        .sign
        .as_deref()
        .map(super::keygen::read_secret_key)
        .transpose()?;
    let (options, mut found) = super::load_config(&args.paths, args.config.as_deref())?;
    if found.has_errors() {
        emit_diagnostics(&found, args.format)?;
        return Ok(if has_io_errors(&found) {
            Status::Reported
        } else {
            Status::Findings
        });
    }
    let compiled = match crate::compile::compile_paths_with(
        &args.paths,
        &options,
        crate::compile::Leftovers::Leak,
    ) {
        Ok(mut compiled) => {
            found.extend(std::mem::take(&mut compiled.warnings));
            compiled.warnings = found;
            compiled
        }
        Err(diags) => {
            found.extend(diags);
            let diags = found;
            emit_diagnostics(&diags, args.format)?;
            return Ok(if has_io_errors(&diags) {
                Status::Reported
            } else {
                Status::Findings
            });
        }
    };
    emit_diagnostics(&compiled.warnings, args.format)?;
    // After: nor a file an import reached.
    let sources: Vec<PathBuf> = compiled
        .sources
        .iter()
        .map(|s| PathBuf::from(s.name.as_ref()))
        .collect();
    check_output(&args.output, &sources)?;
    let bytes = match &key {
        Some(key) => compiled.table.to_signed_bytes(key),
        None => compiled.table.to_bytes(),
    };
    write_table(&args.output, &bytes)?;
    // Counted in place: decoding the whole program to count it took 20 ms
    // of a 10,000-rule compile.
    print_stderr(&format!(
        "compiled {} on {} into {} ({}){}\n",
        plural(compiled.table.rule_count(), "rule", "rules"),
        plural(compiled.table.point_count(), "point", "points"),
        args.output.display(),
        plural(bytes.len(), "byte", "bytes"),
        key.map(|k| format!(", signed by key {}", k.public_key().id()))
            .unwrap_or_default(),
    ));
    // The process exits next: its memory goes back whole, without freeing
    // the table and every warning one by one (20 ms at 10,000 rules).
    std::mem::forget(compiled);
    Ok(Status::Ok)
}

/// Fails when `output` is a `.hooks` name or one of `sources`: a table
/// never replaces the rules it comes from.
pub(crate) fn check_output(output: &Path, sources: &[PathBuf]) -> Result<(), Failure> {
    crate::output::check_output(output, sources).map_err(|e| {
        Failure::new(e.to_string()).help(format!(
            "write the table to a file of its own, e.g. `-o {}`; `{}` is left as it was",
            output.with_extension("tbl").display(),
            output.display()
        ))
    })
}

/// Writes a table atomically (see [`crate::output`]), creating its
/// directory (`-o build/hooks.tbl` in a fresh checkout).
pub(crate) fn write_table(output: &Path, bytes: &[u8]) -> Result<(), Failure> {
    if let Some(dir) = output.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| Failure::cannot_write(dir, &e))?;
    }
    crate::output::write(output, bytes).map_err(|e| Failure::cannot_write(output, &e))
}
