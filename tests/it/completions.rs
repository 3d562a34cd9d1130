//! `hookc completions` and `hookc man`: the scripts and pages generated
//! from the command line's own definition, checked against the subcommands
//! `hookc --help` lists.

#![expect(clippy::unwrap_used, reason = "test helpers fail the test loudly")]

use crate::common::{self, Run};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn hookc(args: &[&str]) -> Run {
    common::hookc_in(root(), args, None)
}

/// A fresh, empty temp directory for one test.
fn tmp_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("completions")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[track_caller]
fn ok(run: &Run) -> &str {
    assert_eq!(run.code, Some(0), "{run:#?}");
    assert_eq!(run.stderr, "", "{run:#?}");
    &run.stdout
}

/// The subcommands `hookc --help` lists, `help` aside.
fn subcommands() -> Vec<String> {
    let run = hookc(&["--help"]);
    let help = ok(&run);
    let listed: Vec<String> = help
        .lines()
        .skip_while(|l| *l != "Commands:")
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .filter(|name| name != "help")
        .collect();
    for new in ["schema", "completions", "man"] {
        assert!(listed.iter().any(|n| n == new), "{new} in {listed:?}");
    }
    assert!(listed.len() >= 16, "{listed:?}");
    listed
}

#[test]
fn every_shell_gets_a_script_that_names_every_subcommand() {
    let subcommands = subcommands();
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let run = hookc(&["completions", shell]);
        let script = ok(&run);
        assert!(script.len() > 1000, "{shell}: {script}");
        for sub in &subcommands {
            assert!(
                script.contains(sub.as_str()),
                "{shell} script lacks `{sub}`"
            );
        }
        // Options of a subcommand are there too (fish writes them without
        // their dashes).
        assert!(script.contains("deny-warnings"), "{shell}");
    }
}

#[test]
fn an_unknown_shell_is_a_usage_error() {
    let run = hookc(&["completions", "tcsh"]);
    assert_eq!(run.code, Some(2), "{run:#?}");
    assert_eq!(run.stdout, "");
    assert!(run
        .stderr
        .contains("[possible values: bash, elvish, fish, powershell, zsh]"));
}

/// The bash script parses, and its function completes a subcommand and an
/// option the way bash would call it.
#[cfg(unix)]
#[test]
fn the_bash_script_completes_subcommands_and_options() {
    let dir = tmp_dir("bash");
    let script = dir.join("hookc.bash");
    std::fs::write(&script, ok(&hookc(&["completions", "bash"]))).unwrap();
    let complete = |words: &str, current: usize| {
        let program = format!(
            "source {}\nCOMP_WORDS=({words})\nCOMP_CWORD={current}\n\
             _hookc hookc \"${{COMP_WORDS[$COMP_CWORD]}}\" \"${{COMP_WORDS[$COMP_CWORD-1]}}\"\n\
             printf '%s\\n' \"${{COMPREPLY[@]}}\"\n",
            script.display()
        );
        let out = Command::new("bash")
            .args(["--norc", "--noprofile", "-c", &program])
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let syntax = Command::new("bash")
        .arg("-n")
        .arg(&script)
        .status()
        .unwrap();
    assert!(syntax.success());
    assert_eq!(complete("hookc sch", 1), "schema\n");
    assert_eq!(complete("hookc compl", 1), "completions\n");
    assert_eq!(complete("hookc schema --for", 2), "--format\n");
    let formats: BTreeSet<String> = complete("hookc schema --format ''", 3)
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(
        formats,
        ["human", "json", "markdown"].map(String::from).into()
    );
}

#[test]
fn the_man_page_is_the_main_page_and_names_every_subcommand() {
    let run = hookc(&["man"]);
    let page = ok(&run);
    assert!(page.contains("\n.TH hookc 1 "), "{page}");
    assert!(page.contains(&format!("\"hookc {}\"", env!("CARGO_PKG_VERSION"))));
    assert!(page.contains(
        ".SH NAME\nhookc \\- Lint, compile, evaluate and inspect declarative hook rules\n"
    ));
    for section in [
        ".SH SYNOPSIS",
        ".SH DESCRIPTION",
        ".SH OPTIONS",
        ".SH SUBCOMMANDS",
    ] {
        assert!(page.contains(section), "{section}");
    }
    for sub in subcommands() {
        let reference = format!("hookc\\-{}(1)", sub.replace('-', "\\-"));
        assert!(page.contains(&reference), "no `{reference}`");
    }
    assert!(!page.contains("hookc\\-help(1)"), "`help` has no page");
}

/// Where groff is installed, the page renders to text.
#[test]
fn the_man_page_renders() {
    let Ok(mut groff) = Command::new("groff")
        .args(["-man", "-Tutf8"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
    else {
        eprintln!("groff is not installed: the rendering is not checked");
        return;
    };
    let run = hookc(&["man"]);
    {
        use std::io::Write;
        let mut stdin = groff.stdin.take().unwrap();
        stdin.write_all(ok(&run).as_bytes()).unwrap();
    }
    let out = groff.wait_with_output().unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    // Strip the overstrike of bold and underline.
    let text = String::from_utf8(out.stdout).unwrap();
    let plain = regex::Regex::new(".\u{8}").unwrap().replace_all(&text, "");
    assert!(plain.contains("NAME"), "{plain}");
    assert!(plain.contains("hookc-schema(1)"), "{plain}");
}

#[test]
fn man_out_writes_one_page_per_subcommand() {
    let dir = tmp_dir("pages").join("man1");
    let run = hookc(&["man", "--out", dir.to_str().unwrap()]);
    assert_eq!(run.code, Some(0), "{run:#?}");
    assert_eq!(run.stdout, "");
    let subcommands = subcommands();
    assert_eq!(
        run.stderr,
        format!(
            "wrote {} manual pages to `{}`\n",
            subcommands.len() + 1,
            dir.display()
        )
    );
    let written: BTreeSet<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let expected: BTreeSet<String> = std::iter::once("hookc.1".to_string())
        .chain(subcommands.iter().map(|s| format!("hookc-{s}.1")))
        .collect();
    assert_eq!(written, expected);
    for sub in &subcommands {
        let page = std::fs::read_to_string(dir.join(format!("hookc-{sub}.1"))).unwrap();
        assert!(
            page.contains(&format!("\n.TH hookc-{sub} 1 ")),
            "{sub}: {page}"
        );
        assert!(page.contains(".SH SYNOPSIS\n\\fBhookc "), "{sub}");
    }
    let main = std::fs::read_to_string(dir.join("hookc.1")).unwrap();
    assert_eq!(main, ok(&hookc(&["man"])));
}

#[test]
fn man_out_into_a_file_is_an_error() {
    let dir = tmp_dir("not-a-dir");
    let file = dir.join("file");
    std::fs::write(&file, "x").unwrap();
    let run = hookc(&["man", "--out", file.to_str().unwrap()]);
    assert_eq!(run.code, Some(2), "{run:#?}");
    assert!(
        run.stderr
            .starts_with(&format!("error: cannot write `{}`: ", file.display())),
        "{run:#?}"
    );
}
