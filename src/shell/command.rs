//! One simple command: its assignments and wrappers set aside, its
//! program, flags, operands and redirections; and what it runs in turn
//! (the script of `sh -c`, the command of `find -exec`, the text `eval`
//! is given).

use super::lex::Word;
use super::{read, Command, Redirect, MAX_DEPTH};

/// A program that runs the command after it: its name, its options that
/// take an argument (`sudo -u root`), and how many plain words come
/// before the command (`timeout 5 …`, `chroot /new …`).
struct Wrapper {
    name: &'static str,
    with_argument: &'static [&'static str],
    leading_words: usize,
}

const fn wrapper(
    name: &'static str,
    with_argument: &'static [&'static str],
    leading_words: usize,
) -> Wrapper {
    Wrapper {
        name,
        with_argument,
        leading_words,
    }
}

const WRAPPERS: &[Wrapper] = &[
    wrapper(
        "sudo",
        &[
            "-u",
            "-g",
            "-h",
            "-p",
            "-C",
            "-D",
            "-r",
            "-t",
            "-U",
            "-T",
            "-c",
            "--user",
            "--group",
            "--host",
            "--prompt",
            "--chdir",
            "--role",
            "--type",
            "--other-user",
            "--close-from",
            "--command-timeout",
            "--login-class",
        ],
        0,
    ),
    wrapper("doas", &["-u", "-C"], 0),
    wrapper("env", &["-u", "-C", "--unset", "--chdir"], 0),
    wrapper("command", &[], 0),
    wrapper("builtin", &[], 0),
    wrapper("exec", &["-a"], 0),
    wrapper("nohup", &[], 0),
    wrapper("nice", &["-n", "--adjustment"], 0),
    wrapper(
        "ionice",
        &["-c", "-n", "-p", "-P", "-u", "--class", "--classdata"],
        0,
    ),
    wrapper("time", &["-f", "-o", "--format", "--output"], 0),
    wrapper("timeout", &["-s", "-k", "--signal", "--kill-after"], 1),
    wrapper(
        "stdbuf",
        &["-i", "-o", "-e", "--input", "--output", "--error"],
        0,
    ),
    wrapper("setsid", &[], 0),
    wrapper("chroot", &["--userspec", "--groups"], 1),
    wrapper(
        "xargs",
        &[
            "-I",
            "-i",
            "-n",
            "-P",
            "-d",
            "-E",
            "-L",
            "-l",
            "-s",
            "-a",
            "--max-args",
            "--max-procs",
            "--delimiter",
            "--arg-file",
            "--max-lines",
            "--max-chars",
            "--replace",
            "--eof",
        ],
        0,
    ),
    wrapper("watch", &["-n", "--interval", "-d", "--differences"], 0),
    wrapper("busybox", &[], 0),
    wrapper(
        "strace",
        &[
            "-e", "-o", "-p", "-s", "-u", "-E", "-a", "-b", "-I", "-O", "-S", "-X", "-P",
        ],
        0,
    ),
    wrapper("ltrace", &["-e", "-o", "-p", "-s", "-u", "-n"], 0),
];

/// Programs that run a script: `-c SCRIPT`, a file, or standard input.
const SHELLS: &[&str] = &["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish"];

/// Shell options that take an argument.
const SHELL_OPTIONS_WITH_ARGUMENT: &[&str] = &["-o", "+o", "-O", "+O", "--rcfile", "--init-file"];

/// `find` actions that run a command, up to `;` or `+`.
const FIND_EXEC: &[&str] = &["-exec", "-execdir", "-ok", "-okdir"];

/// The basename of a program path.
fn basename(name: &str) -> &str {
    name.rsplit('/').next().unwrap_or(name)
}

/// `NAME=value` before any quote or expansion.
fn is_assignment(word: &Word) -> bool {
    let Some(eq) = word.text.find('=') else {
        return false;
    };
    let name = word.text.get(..eq).unwrap_or("");
    let name = name.strip_suffix('+').unwrap_or(name);
    let name = name.split('[').next().unwrap_or(name);
    eq < word.plain_prefix
        && name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Splits arguments into flags and operands (see [`Command::flags`]).
fn split_flags(args: &[String]) -> (Vec<String>, Vec<String>) {
    let mut flags = Vec::new();
    let mut operands = Vec::new();
    let mut rest = args.iter();
    for arg in rest.by_ref() {
        if arg == "--" {
            break;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let name = long.split('=').next().unwrap_or(long);
            flags.push(format!("--{name}"));
        } else if let Some(short) = arg.strip_prefix('-').filter(|s| !s.is_empty()) {
            flags.extend(short.chars().map(|c| format!("-{c}")));
        } else {
            operands.push(arg.clone());
        }
    }
    operands.extend(rest.cloned());
    (flags, operands)
}

/// Skips a wrapper's options in `words` from `i`; returns where its
/// command starts, adding `env`'s assignments to `assignments` and
/// splicing in the words of its `-S` string.
fn skip_options(
    w: &Wrapper,
    words: &mut Vec<Word>,
    mut i: usize,
    assignments: &mut Vec<String>,
) -> usize {
    while let Some(word) = words.get(i) {
        let text = word.text.as_str();
        if text == "--" {
            i += 1;
            break;
        }
        // `env` and `sudo` take `NAME=value` words before the command.
        if matches!(w.name, "env" | "sudo") && is_assignment(word) {
            assignments.push(word.text.clone());
            i += 1;
            continue;
        }
        if w.name == "env" {
            let split = match text {
                "-S" | "--split-string" => words.get(i + 1).map(|w| (w.text.clone(), 2)),
                _ => text
                    .strip_prefix("--split-string=")
                    .or_else(|| text.strip_prefix("-S"))
                    .filter(|s| !s.is_empty())
                    .map(|s| (s.to_string(), 1)),
            };
            if let Some((string, taken)) = split {
                let (tokens, _) = super::lex::tokens(&string);
                let spliced: Vec<Word> = tokens
                    .into_iter()
                    .filter_map(|t| match t {
                        super::lex::Token::Word(w) => Some(w),
                        _ => None,
                    })
                    .collect();
                let end = (i + taken).min(words.len());
                words.splice(i..end, spliced);
                continue;
            }
        }
        if !(text.len() > 1 && text.starts_with('-')) {
            break;
        }
        i += 1;
        let takes_argument = if text.starts_with("--") {
            !text.contains('=') && w.with_argument.contains(&text)
        } else {
            // In a cluster (`-Eu root`), only the last letter can take
            // the next word.
            text.chars()
                .last()
                .is_some_and(|c| w.with_argument.contains(&format!("-{c}").as_str()))
        };
        if takes_argument {
            i += 1;
        }
    }
    i + w.leading_words
}

/// Reads one simple command (its words and redirections) under
/// `wrappers` at `depth`, appending it and what it runs to `out`.
pub(super) fn simple(
    mut words: Vec<Word>,
    redirects: Vec<(&'static str, Word)>,
    wrappers: &[String],
    depth: usize,
    out: &mut Vec<Command>,
) {
    let mut cmd = Command {
        wrappers: wrappers.to_vec(),
        redirects: redirects
            .into_iter()
            .map(|(op, target)| Redirect {
                op: op.to_string(),
                target: target.text,
            })
            .collect(),
        ..Command::default()
    };
    let mut i = 0;
    while let Some(word) = words.get(i).filter(|w| is_assignment(w)) {
        cmd.assignments.push(word.text.clone());
        i += 1;
    }
    // Wrappers, outermost first.
    while let Some(word) = words.get(i) {
        let program = basename(&word.text);
        let Some(w) = WRAPPERS.iter().find(|w| w.name == program && !word.expands) else {
            break;
        };
        if w.name == "command"
            && words
                .get(i + 1)
                .is_some_and(|n| n.text.starts_with("-v") || n.text.starts_with("-V"))
        {
            // `command -v rm` looks `rm` up; it runs nothing.
            break;
        }
        let next = skip_options(w, &mut words, i + 1, &mut cmd.assignments);
        if next >= words.len() {
            // Nothing to run: the wrapper is the program (`env`, `sudo -l`).
            break;
        }
        cmd.wrappers.push(w.name.to_string());
        i = next;
    }
    let Some(program) = words.get(i) else {
        out.push(cmd);
        return;
    };
    cmd.name = program.text.clone();
    cmd.program = basename(&program.text).to_string();
    cmd.dynamic = program.expands;
    let rest = words.get(i + 1..).unwrap_or(&[]);
    cmd.args = rest.iter().map(|w| w.text.clone()).collect();
    (cmd.flags, cmd.operands) = split_flags(&cmd.args);
    let mut nested: Vec<(String, Vec<String>)> = Vec::new();
    let mut nested_words: Vec<Vec<Word>> = Vec::new();
    match cmd.program.as_str() {
        "eval" => {
            cmd.dynamic = true;
            let text = cmd.args.join(" ");
            nested.push((text, vec!["eval".to_string()]));
        }
        "source" | "." if rest.iter().any(|w| w.process) => cmd.dynamic = true,
        "find" => {
            let mut j = 0;
            while let Some(word) = rest.get(j) {
                j += 1;
                if FIND_EXEC.contains(&word.text.as_str()) {
                    let run: Vec<Word> = rest
                        .get(j..)
                        .unwrap_or(&[])
                        .iter()
                        .take_while(|w| w.text != ";" && w.text != "+")
                        .cloned()
                        .collect();
                    j += run.len() + 1;
                    nested_words.push(run);
                }
            }
        }
        shell if SHELLS.contains(&shell) => {
            let mut script_flag = false;
            let mut stdin_flag = false;
            let mut j = 0;
            while let Some(word) = rest.get(j) {
                let text = word.text.as_str();
                if text == "--" || text == "-" {
                    j += 1;
                    break;
                }
                let is_option = text.len() > 1 && (text.starts_with('-') || text.starts_with('+'));
                if !is_option {
                    break;
                }
                j += 1;
                if SHELL_OPTIONS_WITH_ARGUMENT.contains(&text) {
                    j += 1;
                } else if !text.starts_with("--") {
                    script_flag |= text.contains('c');
                    stdin_flag |= text.contains('s');
                }
            }
            match rest.get(j) {
                Some(script) if script_flag => {
                    nested.push((script.text.clone(), vec![shell.to_string()]));
                }
                Some(file) if !stdin_flag => cmd.dynamic |= file.process,
                _ => cmd.dynamic = true,
            }
        }
        _ => {}
    }
    let inner_wrappers = |extra: &[String]| {
        let mut all = cmd.wrappers.clone();
        all.extend_from_slice(extra);
        all
    };
    let nested: Vec<(String, Vec<String>)> = nested
        .into_iter()
        .map(|(text, extra)| (text, inner_wrappers(&extra)))
        .collect();
    let find_wrappers = inner_wrappers(&["find".to_string()]);
    out.push(cmd);
    for (text, wrappers) in nested {
        read(&text, &wrappers, depth + 1, out);
    }
    for run in nested_words {
        if run.is_empty() {
            continue;
        }
        if depth + 1 > MAX_DEPTH {
            out.push(Command::error(
                format!("nested more than {MAX_DEPTH} deep"),
                &find_wrappers,
            ));
            continue;
        }
        simple(run, Vec::new(), &find_wrappers, depth + 1, out);
    }
}
