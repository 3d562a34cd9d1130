//! `hookc import`: another hook system's configuration as `.hooks` rules.
//!
//! The conversion is the library's (`crate::import`); this file reads the
//! files, merges them, and writes the rules with the files they need (the
//! `ironclaw` schema, MCP Router's script runners) or prints them. With
//! `--format json` it prints one document saying what was imported: the
//! rules, the files, and what could not be imported.

use super::{
    plural, pretty_json, print_stderr, print_stdout, stderr_color, Failure, Format, Status,
};
use crate::diag::{Diagnostic, Diagnostics};
use crate::span::SourceFile;
use crate::systems::claude_code::import as claude_settings;
use crate::systems::ironclaw::import as ironclaw;
use crate::systems::mcp_router::import as mcp_router;
use crate::systems::orcs::import as orcs;
use std::path::{Path, PathBuf};

/// Arguments of `hookc import`.
#[derive(Debug, clap::Args)]
pub(crate) struct ImportArgs {
    /// The hook system the files come from
    #[arg(value_enum, value_name = "FORMAT")]
    from: Source,

    /// Configuration files, merged in order (ORCS layers: a later entry
    /// replaces an earlier one with the same id; the others add up)
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,

    /// Write the rules to this file, and the files they need beside it,
    /// instead of printing the rules
    #[arg(short, long, value_name = "OUT.hooks")]
    output: Option<PathBuf>,

    /// Output: `human` (the rules on stdout, or a summary with `-o`; the
    /// warnings on stderr) or `json` (one document: the rules imported, the
    /// files written, what could not be imported, the diagnostics)
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
}

/// The hook systems `hookc import` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Source {
    /// ORCS `orcs.toml` `[[hooks]]` entries
    Orcs,
    /// IronClaw hook bundles (`hooks/hooks.json`, `*.hook.json`, `capabilities.json`)
    Ironclaw,
    /// Claude Code `settings.json` `hooks` (or a plugin's `hooks/hooks.json`)
    ClaudeSettings,
    /// MCP Router hooks exported as JSON
    McpRouter,
}

impl Source {
    /// The name on the command line.
    fn name(self) -> &'static str {
        match self {
            Source::Orcs => "orcs",
            Source::Ironclaw => "ironclaw",
            Source::ClaudeSettings => "claude-settings",
            Source::McpRouter => "mcp-router",
        }
    }
}

/// What a conversion produced: the rules, the files they need (paths as
/// they will be written), and the diagnostics.
struct Converted {
    text: String,
    companions: Vec<(PathBuf, String)>,
    diagnostics: Diagnostics,
}

/// Reads, converts and writes or prints; nothing is written when the input
/// has errors.
pub(crate) fn run(args: ImportArgs) -> Result<Status, Failure> {
    let mut inputs = Vec::with_capacity(args.files.len());
    for path in &args.files {
        let text = std::fs::read_to_string(path).map_err(|e| Failure::cannot_read(path, &e))?;
        inputs.push((path.display().to_string(), text));
    }
    let out_dir = args
        .output
        .as_deref()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let json = args.format == Format::Json;
    let converted = match convert(args.from, &inputs, &out_dir) {
        Ok(converted) => converted,
        Err(diagnostics) => {
            return failed(&args, &diagnostics);
        }
    };
    let Converted {
        text,
        companions,
        mut diagnostics,
    } = converted;
    if diagnostics.has_errors() {
        return failed(&args, &diagnostics);
    }
    let rules = imported_rules(&text);
    match &args.output {
        Some(output) => {
            if !json {
                report(&diagnostics);
            }
            for path in std::iter::once(output).chain(companions.iter().map(|(p, _)| p)) {
                if let Some(input) = args
                    .files
                    .iter()
                    .find(|input| crate::output::same_file(path, input))
                {
                    return Err(Failure::new(format!(
                        "refusing to write `{}`: it is the input `{}`",
                        path.display(),
                        input.display()
                    ))
                    .help("write the rules to a file of their own; the input is left as it was"));
                }
            }
            write_if_changed(output, &text)?;
            for (path, contents) in &companions {
                write_if_changed(path, contents)?;
            }
            if !json {
                let mut summary = format!(
                    "imported {} into {}",
                    plural(rules.len(), "rule", "rules"),
                    output.display()
                );
                if !companions.is_empty() {
                    let names: Vec<String> = companions
                        .iter()
                        .map(|(p, _)| format!("`{}`", p.display()))
                        .collect();
                    summary.push_str(&format!(", with {}", names.join(", ")));
                }
                print_stderr(&(summary + "\n"));
            }
        }
        None => {
            if !companions.is_empty() {
                let names: Vec<String> = companions
                    .iter()
                    .map(|(p, _)| format!("`{}`", p.display()))
                    .collect();
                diagnostics.push(
                    Diagnostic::note(
                        "import",
                        format!(
                            "the rules need {} beside them, not written",
                            names.join(", ")
                        ),
                    )
                    .with_help("`-o FILE` writes the rules and the files they need"),
                );
            }
            if !json {
                report(&diagnostics);
                print_stdout(&text);
            }
        }
    }
    if json {
        let written = args.output.is_some();
        let files: Vec<serde_json::Value> = args
            .output
            .iter()
            .map(|p| (p, "rules"))
            .chain(companions.iter().map(|(p, _)| (p, "companion")))
            .map(|(path, kind)| {
                serde_json::json!({
                    "path": path.display().to_string(),
                    "kind": kind,
                    "written": written,
                })
            })
            .collect();
        print_stdout(&pretty_json(&document(
            &args,
            Some(&text),
            &rules,
            &files,
            &diagnostics,
        ))?);
    }
    Ok(Status::Ok)
}

/// The input did not convert: the diagnostics (on stderr, or in the JSON
/// document), nothing written, exit 1.
fn failed(args: &ImportArgs, diagnostics: &Diagnostics) -> Result<Status, Failure> {
    if args.format == Format::Json {
        print_stdout(&pretty_json(&document(args, None, &[], &[], diagnostics))?);
    } else {
        report(diagnostics);
    }
    Ok(Status::Findings)
}

/// A rule of the imported text.
#[derive(Debug, serde::Serialize)]
struct ImportedRule {
    /// Its id.
    id: String,
    /// The points it is on.
    points: Vec<String>,
    /// 1-based line of its `hook` keyword in the text.
    line: u32,
}

/// The rules of the text an importer wrote, in order.
fn imported_rules(text: &str) -> Vec<ImportedRule> {
    let source = SourceFile::new("imported.hooks", text);
    let (file, _) = crate::syntax::parse(&source);
    file.items
        .iter()
        .filter_map(|item| match item {
            crate::syntax::ast::Item::Hook(hook) => Some(ImportedRule {
                id: hook.id.name.clone(),
                points: hook.points.iter().map(|p| p.name.clone()).collect(),
                line: source.line_col(hook.span.start).0,
            }),
            _ => None,
        })
        .collect()
}

/// `hookc import --format json`: what was imported. `text` is `None` when
/// the input did not convert.
fn document(
    args: &ImportArgs,
    text: Option<&str>,
    rules: &[ImportedRule],
    files: &[serde_json::Value],
    diagnostics: &Diagnostics,
) -> serde_json::Value {
    use crate::diag::Severity;
    // Every warning of an importer is something of the input it left out
    // or changed.
    let not_imported: Vec<serde_json::Value> = diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Warning)
        .map(|d| serde_json::json!({"message": d.message, "help": d.help}))
        .collect();
    serde_json::json!({
        "from": args.from.name(),
        "inputs": args.files.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
        "output": args.output.as_ref().map(|p| p.display().to_string()),
        "ok": text.is_some(),
        "rules": rules,
        "files": files,
        "not_imported": not_imported,
        "text": text,
        "diagnostics": crate::diag::render::json(diagnostics),
    })
}

/// Parses every input as `from` and converts the merged configuration.
/// `out_dir` is the directory of the output file (empty for stdout).
///
/// # Errors
///
/// The diagnostics, when an input cannot be parsed at all.
fn convert(
    from: Source,
    inputs: &[(String, String)],
    out_dir: &Path,
) -> Result<Converted, Diagnostics> {
    let mut failed = Diagnostics::new();
    let converted = match from {
        Source::Orcs => {
            let mut merged = orcs::HooksConfig::default();
            for (name, text) in inputs {
                match orcs::HooksConfig::from_toml(name, text) {
                    Ok(layer) => merged.merge(layer),
                    Err(d) => failed.push(*d),
                }
            }
            let (text, mut diagnostics) = merged.to_source();
            // The ORCS importer writes valid but not canonical text.
            let text = match crate::syntax::pretty::format_source(&SourceFile::new(
                "orcs.hooks",
                text.as_str(),
            )) {
                Ok(formatted) => formatted,
                Err(found) => {
                    diagnostics.extend(found);
                    text
                }
            };
            Converted {
                text,
                companions: Vec::new(),
                diagnostics,
            }
        }
        Source::Ironclaw => {
            let mut merged = ironclaw::Bundles::default();
            for (name, text) in inputs {
                match ironclaw::Bundles::from_json(name, text) {
                    Ok(bundle) => merged.merge(bundle),
                    Err(d) => failed.extend(d),
                }
            }
            let (text, diagnostics) = merged.to_source();
            Converted {
                text,
                companions: Vec::new(),
                diagnostics,
            }
        }
        Source::ClaudeSettings => {
            let mut merged = claude_settings::Settings::default();
            for (name, text) in inputs {
                match claude_settings::Settings::from_json(name, text) {
                    Ok(settings) => merged.merge(settings),
                    Err(d) => failed.extend(d),
                }
            }
            let (text, diagnostics) = merged.to_source();
            Converted {
                text,
                companions: Vec::new(),
                diagnostics,
            }
        }
        Source::McpRouter => {
            let mut merged = mcp_router::Hooks::default();
            for (name, text) in inputs {
                match mcp_router::Hooks::from_json(name, text) {
                    Ok(hooks) => merged.merge(hooks),
                    Err(d) => failed.extend(d),
                }
            }
            // Commands run in the project directory, taken to be the one
            // `hookc import` runs in: the scripts' paths are relative to it.
            let dir = out_dir.join("mcp-router");
            let conversion = merged.to_source(&dir.to_string_lossy());
            Converted {
                text: conversion.text,
                companions: conversion
                    .scripts
                    .into_iter()
                    .map(|s| (PathBuf::from(s.path), s.text))
                    .collect(),
                diagnostics: conversion.diagnostics,
            }
        }
    };
    if failed.is_empty() {
        Ok(converted)
    } else {
        Err(failed)
    }
}

/// Writes a generated file atomically (see [`crate::output`]), creating its
/// directory; an identical file is left alone (so watchers see no change).
fn write_if_changed(path: &Path, contents: &str) -> Result<(), Failure> {
    if std::fs::read_to_string(path).is_ok_and(|old| old == contents) {
        return Ok(());
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| Failure::cannot_write(dir, &e))?;
    }
    crate::output::write(path, contents.as_bytes()).map_err(|e| Failure::cannot_write(path, &e))
}

/// Prints diagnostics on stderr like the other commands, the closing line
/// saying what failed.
fn report(diagnostics: &Diagnostics) {
    if diagnostics.is_empty() {
        return;
    }
    let mut text = crate::diag::render::human(diagnostics, stderr_color()).replacen(
        "could not compile:",
        "could not import:",
        1,
    );
    if !text.ends_with('\n') {
        text.push('\n');
    }
    print_stderr(&text);
}
