//! The README, checked: every output sample it shows is produced by a
//! test, the rules it quotes from `rules/` are the files' rules, its `text`
//! examples compile and its command-line summary lists every subcommand.
//!
//! # The samples
//!
//! The README is read section by section (`## ` headings). Each section runs
//! in a fresh directory that holds a copy of the repository's `rules/`,
//! `examples/` and `tests/fixtures/`, and its fenced blocks are taken in
//! order. An HTML comment on the line just before a block says what the
//! block is:
//!
//! - `<!-- file: PATH -->`: an input; the block is written to PATH in the
//!   section's directory.
//! - `<!-- same as: PATH -->`: the block equals that file of the repository.
//! - `<!-- input -->`: an input shown for reading only (settings a user
//!   writes by hand, a fragment of one): nothing runs it.
//! - `<!-- output of: COMMAND -->` and `<!-- stderr of: COMMAND -->`: what
//!   COMMAND prints on stdout (on stderr: hookc's human diagnostics go
//!   there). It runs in a directory of its own, seeded like the section's
//!   with the files the section wrote before the block, and must exit 0.
//!   Options go in parentheses before `of`, separated by `;`:
//!   `output (exit 1; at /coverage) of: …`.
//!   - `exit N`: the last command exits with N.
//!   - `excerpt`: the block is a run of consecutive lines of the output.
//!   - `at POINTER`: a JSON output is compared at that JSON pointer.
//!   - `any KEY, KEY`: in a JSON output, members named KEY (wall-clock
//!     times) may have any value of the type the block shows.
//!   - `while PATH breaks, then empties`: for `hookc watch` (below).
//! - `<!-- posted (OPTIONS) by: RULES --event EVENT -->`: the JSON body of
//!   the webhook that the rules file RULES (written by an earlier `file:`
//!   block) posts for the event file EVENT. The test serves the webhook on
//!   loopback: the rule's `https://` URL is replaced by the local server's,
//!   which the test allowance of `WebhookConfig` lets through.
//!
//! A block with no comment is not run; the test
//! `every_output_sample_is_checked` fails on one that looks like output
//! (see there). A `console` block needs no comment: each `$ ` line is run
//! in the section's directory, must exit 0 and print exactly the lines that
//! follow it, up to the next `$ ` line, on stdout.
//!
//! Commands are hookc's binary (`hookc …`), `mkdir -p DIR`, `cp FROM TO`
//! and `tail -1 FILE`, joined by `&&`; `CMD < FILE` and `echo 'TEXT' | CMD`
//! feed stdin, and `NAME=VALUE` words before a command set its environment
//! (`$PWD` is the command's directory). hookc runs with `NO_COLOR=1`,
//! without the `HOOKC_*` and `CLAUDE_*` variables of the test's environment
//! and with `HOME` in the directory, so nothing outside it is read or
//! written. The stdout (or stderr) of all the commands is compared.
//!
//! # Comparing
//!
//! Text is compared line by line, exactly, but for the blanks at the end of
//! a line and blank lines at the end; a line that is only `…` stands for
//! any number of lines. A `json` block is compared as JSON values (one or
//! more, as JSON lines print them), whatever their layout, key order aside;
//! it may abbreviate:
//!
//! - a bare `…` in an array stands for any number of elements, in an object
//!   for any other members, as a value for any value;
//! - `…` in a string stands for any text;
//! - a string of hex digits and `…` (`"1d1e…"`) stands for any string of hex
//!   digits: digests and key ids change with the rules and the keys.
//!
//! Nothing else is normalized.
//!
//! `hookc watch` runs until it is stopped: given `while PATH breaks, then
//! empties`, the test waits for the table (and the `--exec` command), then
//! writes a syntax error into PATH, waits for `failed`, empties PATH, waits
//! for `kept`, and stops it; the block is what it printed by then.

#![expect(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests fail loudly on a README that drifted"
)]

use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How many output samples (blocks with an output marker) the README has: a
/// sample that loses its marker, or a new one, changes the count, so the
/// change is seen.
const OUTPUT_SAMPLES: usize = 15;

/// How many `$ ` commands the README's `console` blocks run.
const CONSOLE_COMMANDS: usize = 12;

/// The repository.
fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The README's text.
fn readme() -> String {
    std::fs::read_to_string(root().join("README.md")).unwrap()
}

/// The text of the README's section `title`.
fn section_named(title: &str) -> String {
    let readme = readme();
    let start = readme
        .find(title)
        .unwrap_or_else(|| panic!("README.md has no `{title}` section"));
    let rest = &readme[start + title.len()..];
    let end = rest.find("\n## ").unwrap_or(rest.len());
    rest[..end].to_string()
}

/// A fenced block: where it opens (a line number, counted from 1 in the
/// text given to [`blocks`]), its section, its info string, its lines (the
/// fence's indentation taken off) and the HTML comment just before it, if
/// any.
struct Block {
    line: usize,
    section: String,
    info: String,
    lines: Vec<String>,
    note: Option<String>,
}

impl Block {
    fn text(&self) -> String {
        self.lines.join("\n") + "\n"
    }
}

/// The fenced blocks of `text`, indented ones (in list items) included.
fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut note = None;
    let mut section = String::new();
    let mut lines = text.lines().enumerate();
    while let Some((n, line)) = lines.next() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        if let Some(comment) = trimmed
            .strip_prefix("<!-- ")
            .and_then(|l| l.trim_end().strip_suffix(" -->"))
        {
            note = Some(comment.to_string());
        } else if let Some(info) = trimmed.strip_prefix("```") {
            let body: Vec<String> = lines
                .by_ref()
                .map(|(_, l)| l)
                .take_while(|l| !l.trim_start().starts_with("```"))
                .map(|l| l.get(indent..).unwrap_or(l.trim_start()).to_string())
                .collect();
            out.push(Block {
                line: n + 1,
                section: section.clone(),
                info: info.trim().to_string(),
                lines: body,
                note: note.take(),
            });
        } else {
            if let Some(title) = line.strip_prefix("## ") {
                section = title.to_string();
            }
            if !line.trim().is_empty() {
                note = None;
            }
        }
    }
    out
}

/// What a block's comment says it is.
#[derive(Debug)]
enum Marker {
    /// Written to a file of the section's directory.
    File(String),
    /// Equal to a file of the repository.
    SameAs(String),
    /// An input shown for reading.
    Input,
    /// What a command prints.
    Output {
        stream: Stream,
        options: Options,
        command: String,
    },
    /// The body a rules file's webhook posts for an event.
    Posted {
        options: Options,
        rules: String,
        event: String,
    },
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Stream {
    Stdout,
    Stderr,
}

/// A sample's options (see the module documentation).
#[derive(Debug, Default)]
struct Options {
    exit: i32,
    excerpt: bool,
    at: Option<String>,
    any: Vec<String>,
    watch_breaks: Option<String>,
}

impl Options {
    fn parse(text: &str) -> Options {
        let mut options = Options::default();
        for option in text.split(';').map(str::trim) {
            if let Some(code) = option.strip_prefix("exit ") {
                options.exit = code.parse().unwrap();
            } else if option == "excerpt" {
                options.excerpt = true;
            } else if let Some(pointer) = option.strip_prefix("at ") {
                options.at = Some(pointer.to_string());
            } else if let Some(keys) = option.strip_prefix("any ") {
                options.any = keys.split(',').map(|k| k.trim().to_string()).collect();
            } else if let Some(path) = option
                .strip_prefix("while ")
                .and_then(|o| o.strip_suffix(" breaks, then empties"))
            {
                options.watch_breaks = Some(path.to_string());
            } else {
                panic!("unknown sample option `{option}`");
            }
        }
        options
    }
}

impl Marker {
    /// The marker a block's comment is, if it has one: an unknown comment
    /// right before a block is a mistake.
    fn of(block: &Block) -> Option<Marker> {
        let note = block.note.as_deref()?;
        if let Some(path) = note.strip_prefix("file: ") {
            return Some(Marker::File(path.to_string()));
        }
        if let Some(path) = note.strip_prefix("same as: ") {
            return Some(Marker::SameAs(path.to_string()));
        }
        if note == "input" {
            return Some(Marker::Input);
        }
        let (head, rest) = note
            .split_once(": ")
            .unwrap_or_else(|| panic!("README.md:{}: unknown marker `{note}`", block.line));
        let (kind, options) = match head.split_once(" (") {
            Some((kind, options)) => {
                let (options, of) = options.rsplit_once(')').unwrap();
                (format!("{kind}{of}"), Options::parse(options))
            }
            None => (head.to_string(), Options::default()),
        };
        match kind.as_str() {
            "output of" | "stderr of" => Some(Marker::Output {
                stream: if kind == "output of" {
                    Stream::Stdout
                } else {
                    Stream::Stderr
                },
                options,
                command: rest.to_string(),
            }),
            "posted by" => {
                let (rules, event) = rest.split_once(" --event ").unwrap();
                Some(Marker::Posted {
                    options,
                    rules: rules.to_string(),
                    event: event.to_string(),
                })
            }
            _ => panic!("README.md:{}: unknown marker `{note}`", block.line),
        }
    }
}

// -- running commands -------------------------------------------------------------

/// How a command line ended.
struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
}

/// The environment variables a sample's hookc must not inherit.
fn scrub(command: &mut Command, dir: &Path) {
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy();
        if name.starts_with("HOOKC_")
            || name.starts_with("CLAUDE_")
            || name.starts_with("XDG_")
            || name == "RUST_LOG"
            || name == "CLICOLOR_FORCE"
        {
            command.env_remove(&*name);
        }
    }
    command.env("NO_COLOR", "1").env("HOME", dir.join(".home"));
}

/// Runs a command line (see the module documentation) in `dir`.
fn run_line(dir: &Path, line: &str, options: &Options) -> Ran {
    let mut all = Ran {
        code: 0,
        stdout: String::new(),
        stderr: String::new(),
    };
    let commands: Vec<&str> = line.split(" && ").collect();
    for (i, command) in commands.iter().enumerate() {
        let ran = run_one(dir, command, options);
        all.stdout.push_str(&ran.stdout);
        all.stderr.push_str(&ran.stderr);
        all.code = ran.code;
        if i + 1 < commands.len() {
            assert!(
                ran.code == 0,
                "`{command}` failed (exit {}):\n{}{}",
                ran.code,
                ran.stdout,
                ran.stderr
            );
        }
    }
    all
}

/// Runs one command of a command line (no `&&`) in `dir`.
fn run_one(dir: &Path, command: &str, options: &Options) -> Ran {
    let ok = |stdout: String| Ran {
        code: 0,
        stdout,
        stderr: String::new(),
    };
    // `echo 'TEXT' | CMD`, `CMD < FILE`.
    let (stdin, command) = match command
        .strip_prefix("echo '")
        .and_then(|c| c.split_once("' | "))
    {
        Some((text, rest)) => (Some(format!("{text}\n").into_bytes()), rest),
        None => match command.split_once(" < ") {
            Some((c, file)) => (Some(std::fs::read(dir.join(file.trim())).unwrap()), c),
            None => (None, command),
        },
    };
    let mut words: Vec<&str> = command.split_whitespace().collect();
    let mut env = Vec::new();
    while let Some((name, value)) = words.first().and_then(|w| w.split_once('=')) {
        let pwd = dir.display().to_string();
        env.push((name.to_string(), value.replace("$PWD", &pwd)));
        words.remove(0);
    }
    match words.as_slice() {
        ["mkdir", "-p", path] => {
            std::fs::create_dir_all(dir.join(path)).unwrap();
            ok(String::new())
        }
        ["cp", from, to] => {
            std::fs::copy(dir.join(from), dir.join(to)).unwrap();
            ok(String::new())
        }
        ["tail", "-1", file] => {
            let text = std::fs::read_to_string(dir.join(file)).unwrap();
            ok(text.lines().last().unwrap_or_default().to_string() + "\n")
        }
        ["hookc", "watch", args @ ..] => watch(dir, args, options),
        ["hookc", args @ ..] => {
            let mut child = Command::new(env!("CARGO_BIN_EXE_hookc"));
            child.args(args).current_dir(dir);
            scrub(&mut child, dir);
            child.envs(env);
            let mut child = child
                .stdin(if stdin.is_some() {
                    Stdio::piped()
                } else {
                    Stdio::null()
                })
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            if let (Some(bytes), Some(mut pipe)) = (stdin, child.stdin.take()) {
                pipe.write_all(&bytes).unwrap();
            }
            let output = child.wait_with_output().unwrap();
            Ran {
                code: output.status.code().unwrap_or(-1),
                stdout: String::from_utf8(output.stdout).unwrap(),
                stderr: String::from_utf8(output.stderr).unwrap(),
            }
        }
        _ => panic!("the README runs a command the test does not know: `{command}`"),
    }
}

/// Runs one command in `dir`, which must exit 0; its stdout.
fn run(dir: &Path, command: &str) -> String {
    let ran = run_line(dir, command, &Options::default());
    assert!(
        ran.code == 0,
        "`$ {command}` failed (exit {}):\n{}{}",
        ran.code,
        ran.stdout,
        ran.stderr
    );
    ran.stdout
}

/// Waits for `done`, at most 30 s.
fn eventually(what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "timed out waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A child process, killed when dropped (so a failing test leaves none).
struct Running(std::process::Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `hookc watch ARGS` in `dir`, through the scenario of the module
/// documentation; what it printed on stdout.
fn watch(dir: &Path, args: &[&str], options: &Options) -> Ran {
    let file = options
        .watch_breaks
        .as_deref()
        .expect("a `hookc watch` sample says what changes: `while PATH breaks, then empties`");
    let mut command = Command::new(env!("CARGO_BIN_EXE_hookc"));
    command.arg("watch").args(args).current_dir(dir);
    scrub(&mut command, dir);
    let mut child = Running(
        command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let lines = Arc::new(Mutex::new(Vec::<String>::new()));
    let sink = Arc::clone(&lines);
    let pipe = child.0.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(pipe).lines() {
            let Ok(line) = line else { break };
            sink.lock().unwrap().push(line);
        }
    });
    let seen = |event: &str| {
        let needle = format!("\"event\":\"{event}\"");
        lines.lock().unwrap().iter().any(|l| l.contains(&needle))
    };
    let first = if args.contains(&"--exec") {
        "reloaded"
    } else {
        "compiled"
    };
    // Each change replaces the file whole: a poll never reads it half
    // written (empty, which is another event).
    let replace = |text: &str| {
        let scratch = dir.join(".readme-watch.tmp");
        std::fs::write(&scratch, text).unwrap();
        std::fs::rename(&scratch, dir.join(file)).unwrap();
    };
    eventually(first, || seen(first));
    replace("hook broken on {\n");
    eventually("failed", || seen("failed"));
    replace("");
    eventually("kept", || seen("kept"));
    let mut child = child;
    child.0.kill().unwrap();
    child.0.wait().unwrap();
    let mut stderr = String::new();
    if let Some(mut pipe) = child.0.stderr.take() {
        pipe.read_to_string(&mut stderr).unwrap();
    }
    reader.join().unwrap();
    let stdout = lines.lock().unwrap().join("\n") + "\n";
    Ran {
        code: 0,
        stdout,
        stderr,
    }
}

/// The body the webhook of `rules` (a file of `dir`) posts for the event
/// file `event`, served on loopback.
fn posted(dir: &Path, rules: &str, event: &str) -> String {
    use hookc::effects::WebhookConfig;

    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/hookc", listener.local_addr().unwrap());
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let Ok((stream, _)) = listener.accept() else {
            return;
        };
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut length = 0;
        loop {
            let mut header = String::new();
            reader.read_line(&mut header).unwrap();
            let header = header.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':') {
                if name.eq_ignore_ascii_case("content-length") {
                    length = value.trim().parse().unwrap();
                }
            }
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body).unwrap();
        let mut stream = stream;
        let _ =
            stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        let _ = send.send(String::from_utf8(body).unwrap());
    });

    let text = std::fs::read_to_string(dir.join(rules)).unwrap();
    let start = text
        .find("\"https://")
        .expect("the rule posts to an https:// URL")
        + 1;
    let end = start + text[start..].find('"').unwrap();
    let text = format!(
        "# hookc: allow(insecure-webhook)\n{}{url}{}",
        &text[..start],
        &text[end..]
    );
    let table = hookc::compile_str(rules, &text)
        .unwrap_or_else(|d| panic!("{d}"))
        .table;
    let mut ctx =
        hookc::HookContext::from_json(&std::fs::read_to_string(dir.join(event)).unwrap()).unwrap();
    let effects = hookc::Effects::new()
        .with_webhooks(WebhookConfig::default().allow_loopback_http_for_tests());
    let point = ctx.hook_point.clone();
    let component = ctx.component_id.clone();
    let mut target = hookc::Target::new(&component);
    let child = ctx.child_id.clone();
    if let Some(child) = &child {
        target = target.with_child(child);
    }
    let mut scratch = table.scratch();
    let outcome = table.dispatch_with(&mut scratch, point.as_str(), &target, &mut ctx, &effects);
    let report = outcome.report(&ctx);
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    assert!(effects.webhooks().flush(Duration::from_secs(20)));
    receive.recv_timeout(Duration::from_secs(20)).unwrap() + "\n"
}

// -- comparing ----------------------------------------------------------------------

/// Whether `actual` has the lines of `expected`: equal but for blanks at the
/// end of lines and blank lines at the end, a `…` line standing for any
/// number of lines.
fn lines_match(expected: &str, actual: &str, excerpt: bool) -> bool {
    fn lines(text: &str) -> Vec<&str> {
        let mut lines: Vec<&str> = text.lines().map(str::trim_end).collect();
        while lines.last() == Some(&"") {
            lines.pop();
        }
        lines
    }
    let mut expected: Vec<Option<&str>> = lines(expected)
        .into_iter()
        .map(|l| (l.trim() != "…").then_some(l))
        .collect();
    if excerpt {
        expected.insert(0, None);
        expected.push(None);
    }
    glob(&expected, &lines(actual), |e, a| e == a)
}

/// Whether `actual` matches `pattern`, where `None` stands for any number of
/// elements.
fn glob<P, A>(pattern: &[Option<P>], actual: &[A], same: impl Fn(&P, &A) -> bool + Copy) -> bool {
    match pattern.split_first() {
        None => actual.is_empty(),
        Some((None, rest)) => {
            glob(rest, actual, same)
                || actual
                    .split_first()
                    .is_some_and(|(_, tail)| glob(pattern, tail, same))
        }
        Some((Some(p), rest)) => match actual.split_first() {
            Some((a, tail)) => same(p, a) && glob(rest, tail, same),
            None => false,
        },
    }
}

/// What a bare `…` of a JSON sample becomes: a string no output has.
const ELIDED: &str = "\u{0}…";

/// The JSON values of a sample, its bare `…` turned into [`ELIDED`] (an
/// object's other members are an `ELIDED` key).
fn json_pattern(text: &str) -> Vec<Value> {
    let mut out = String::new();
    let mut stack = Vec::new();
    let mut in_string = false;
    let mut escaped = false;
    let mut last = ' ';
    for c in text.chars() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' | '[' => stack.push(c),
            '}' | ']' => {
                stack.pop();
            }
            _ => {}
        }
        if c == '…' {
            if last != ':' && stack.last() == Some(&'{') {
                out.push_str("\"\\u0000…\": null");
            } else {
                out.push_str("\"\\u0000…\"");
            }
        } else {
            out.push(c);
        }
        if !c.is_whitespace() {
            last = c;
        }
    }
    json_values(&out).unwrap_or_else(|e| panic!("a JSON sample does not parse ({e}):\n{text}"))
}

/// The JSON values of `text`, one after the other (JSON lines, or one
/// document).
fn json_values(text: &str) -> Result<Vec<Value>, serde_json::Error> {
    serde_json::Deserializer::from_str(text)
        .into_iter::<Value>()
        .collect()
}

/// Whether `actual` matches the sample `pattern` (see the module
/// documentation); members named in `any` take any value of their type.
fn json_match(pattern: &Value, actual: &Value, any: &[String]) -> bool {
    match (pattern, actual) {
        (Value::String(p), _) if p == ELIDED => true,
        (Value::String(p), Value::String(a)) if p.contains('…') => {
            let hex = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_hexdigit());
            match p.strip_suffix('…') {
                Some(digits) if hex(digits) => hex(a),
                _ => text_glob(p, a),
            }
        }
        (Value::Array(p), Value::Array(a)) => {
            let p: Vec<Option<&Value>> = p.iter().map(|v| (v != ELIDED).then_some(v)).collect();
            glob(&p, a, |p, a| json_match(p, a, any))
        }
        (Value::Object(p), Value::Object(a)) => {
            let open = p.contains_key(ELIDED);
            let shown = p.keys().filter(|k| *k != ELIDED).count();
            (open || shown == a.len())
                && p.iter().filter(|(k, _)| *k != ELIDED).all(|(k, v)| {
                    a.get(k).is_some_and(|a| {
                        if any.contains(k) {
                            std::mem::discriminant(v) == std::mem::discriminant(a)
                        } else {
                            json_match(v, a, any)
                        }
                    })
                })
        }
        _ => pattern == actual,
    }
}

/// Whether `text` matches `pattern`, each `…` of which stands for any text.
fn text_glob(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('…').collect();
    let (first, rest) = parts.split_first().unwrap();
    let Some(mut text) = text.strip_prefix(first) else {
        return false;
    };
    let (last, middle) = rest.split_last().unwrap();
    for part in middle {
        match text.find(part) {
            Some(at) => text = &text[at + part.len()..],
            None => return false,
        }
    }
    text.ends_with(last)
}

/// Checks an output sample against what was printed.
fn compare(block: &Block, options: &Options, actual: &str, what: &str) {
    let expected = block.text();
    let ok = if block.info == "json" {
        let mut values = json_values(actual)
            .unwrap_or_else(|e| panic!("{what} did not print JSON ({e}):\n{actual}"));
        if let Some(pointer) = &options.at {
            let [value] = values.as_slice() else {
                panic!("{what}: one JSON value, to read at {pointer}");
            };
            values = vec![value
                .pointer(pointer)
                .unwrap_or_else(|| panic!("{what}: nothing at {pointer}"))
                .clone()];
        }
        let pattern: Vec<Option<Value>> = json_pattern(&expected)
            .into_iter()
            .map(|v| (v != ELIDED).then_some(v))
            .collect();
        glob(&pattern, &values, |p, a| json_match(p, a, &options.any))
    } else {
        lines_match(&expected, actual, options.excerpt)
    };
    assert!(
        ok,
        "README.md:{}: the sample is not what {what} prints\n--- the README shows:\n{expected}--- it prints:\n{actual}",
        block.line
    );
}

// -- running the README -------------------------------------------------------------

/// Copies the directory `from` into `to`, recursively.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let path = entry.path();
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&path, &to.join(entry.file_name()));
        } else {
            std::fs::copy(&path, to.join(entry.file_name())).unwrap();
        }
    }
}

/// A fresh `dir`, with the repository's files samples use and `files`.
fn fresh_dir(dir: &Path, files: &[(String, String)]) {
    let _ = std::fs::remove_dir_all(dir);
    for part in ["rules", "examples", "tests/fixtures"] {
        copy_dir(&root().join(part), &dir.join(part));
    }
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
    }
}

/// What running the README's blocks checked: one line per sample and per
/// `$ ` command.
#[derive(Default)]
struct Checked {
    samples: Vec<String>,
    commands: Vec<String>,
    files: usize,
}

/// Runs `blocks` (of one section) in `dir`, with the directories of the
/// samples beside it.
fn run_blocks(blocks: &[&Block], dir: &Path, checked: &mut Checked) {
    fresh_dir(dir, &[]);
    let mut files: Vec<(String, String)> = Vec::new();
    for block in blocks {
        let where_ = format!("README.md:{}", block.line);
        match Marker::of(block) {
            Some(Marker::File(path)) => {
                let file = dir.join(&path);
                std::fs::create_dir_all(file.parent().unwrap()).unwrap();
                std::fs::write(&file, block.text()).unwrap();
                files.push((path, block.text()));
                checked.files += 1;
            }
            Some(Marker::SameAs(path)) => {
                let actual = std::fs::read_to_string(root().join(&path)).unwrap();
                assert_eq!(
                    block.text(),
                    actual,
                    "{where_}: the copy of `{path}` drifted"
                );
            }
            Some(Marker::Input) => {}
            Some(Marker::Output {
                stream,
                options,
                command,
            }) => {
                let own = dir.with_file_name(format!("line-{}", block.line));
                fresh_dir(&own, &files);
                let ran = run_line(&own, &command, &options);
                assert!(
                    ran.code == options.exit,
                    "{where_}: `{command}` exited {}, not {}:\n{}{}",
                    ran.code,
                    options.exit,
                    ran.stdout,
                    ran.stderr
                );
                let (printed, name) = match stream {
                    Stream::Stdout => (&ran.stdout, "stdout"),
                    Stream::Stderr => (&ran.stderr, "stderr"),
                };
                compare(block, &options, printed, &format!("`{command}` ({name})"));
                checked
                    .samples
                    .push(format!("{where_}: {name} of `{command}`"));
            }
            Some(Marker::Posted {
                options,
                rules,
                event,
            }) => {
                let own = dir.with_file_name(format!("line-{}", block.line));
                fresh_dir(&own, &files);
                let body = posted(&own, &rules, &event);
                compare(block, &options, &body, &format!("the webhook of `{rules}`"));
                checked.samples.push(format!(
                    "{where_}: the webhook `{rules}` posts for `{event}`"
                ));
            }
            None if block.info == "console" => {
                // `$ command` lines, each followed by its expected output.
                let mut steps: Vec<(String, Vec<String>)> = Vec::new();
                for line in &block.lines {
                    match line.strip_prefix("$ ") {
                        Some(command) => steps.push((command.to_string(), Vec::new())),
                        None => steps
                            .last_mut()
                            .unwrap_or_else(|| panic!("{where_}: output before any command"))
                            .1
                            .push(line.clone()),
                    }
                }
                for (command, expected) in steps {
                    let stdout = run(dir, &command);
                    assert!(
                        lines_match(&expected.join("\n"), &stdout, false)
                            && !expected.iter().any(|l| l.trim() == "…"),
                        "{where_}: `$ {command}` printed something else\n--- the README shows:\n{}\n--- it prints:\n{stdout}",
                        expected.join("\n")
                    );
                    checked.commands.push(format!("{where_}: `$ {command}`"));
                }
            }
            None => {}
        }
    }
}

/// Every `console` block and every block with an output marker, section by
/// section, as the module documentation says; the counts are exact, so a
/// sample that loses its marker is seen.
#[test]
fn every_output_sample_is_produced() {
    let readme = readme();
    let blocks = blocks(&readme);
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR")).join("readme-samples");
    let _ = std::fs::remove_dir_all(&tmp);
    let mut checked = Checked::default();
    let mut sections: Vec<&str> = blocks.iter().map(|b| b.section.as_str()).collect();
    sections.dedup();
    for (i, section) in sections.iter().enumerate() {
        let mine: Vec<&Block> = blocks.iter().filter(|b| b.section == *section).collect();
        run_blocks(&mine, &tmp.join(format!("section-{i}")), &mut checked);
    }
    for line in checked.samples.iter().chain(&checked.commands) {
        println!("{line}");
    }
    println!(
        "{} output samples, {} console commands, {} files",
        checked.samples.len(),
        checked.commands.len(),
        checked.files
    );
    assert_eq!(
        (checked.samples.len(), checked.commands.len()),
        (OUTPUT_SAMPLES, CONSOLE_COMMANDS),
        "the README's output samples and console commands changed in number; if that is \
         meant, update OUTPUT_SAMPLES and CONSOLE_COMMANDS:\n{}\n{}",
        checked.samples.join("\n"),
        checked.commands.join("\n")
    );
}

/// Whether a block that nothing runs looks like hookc's output: a prompt
/// (`$ `), a diagnostic, a test run's lines, an explanation's marks, or, in
/// a shell block, a comment holding JSON (an answer shown after a command).
fn looks_like_output(block: &Block) -> Option<&str> {
    block.lines.iter().map(String::as_str).find(|line| {
        let line = line.trim_start();
        let diagnostic = ["error", "warning", "note"].iter().any(|level| {
            line.strip_prefix(level)
                .is_some_and(|rest| rest.starts_with('[') || rest.starts_with(": "))
        });
        let json_comment = block.info == "sh"
            && line
                .split_once("# ")
                .is_some_and(|(_, c)| c.starts_with('{') || c.starts_with('['));
        line.starts_with("$ ")
            || diagnostic
            || line.starts_with("test result: ")
            || line.starts_with("running ")
            || line.starts_with("✓ ")
            || line.starts_with("✗ ")
            || line == "coverage:"
            || json_comment
    })
}

/// A block that shows output is checked: every `json` block has a marker
/// (an output, or `file:`, `same as:` or `input` for what is read), and a
/// block without one does not look like hookc's output.
#[test]
fn every_output_sample_is_checked() {
    let mut unmarked = Vec::new();
    for block in blocks(&readme()) {
        let marker = Marker::of(&block);
        if block.info == "console" || marker.is_some() {
            continue;
        }
        if block.info == "json" {
            unmarked.push(format!(
                "README.md:{}: a `json` block without a marker",
                block.line
            ));
        } else if let Some(line) = looks_like_output(&block) {
            unmarked.push(format!(
                "README.md:{}: looks like output (`{line}`) but has no marker",
                block.line
            ));
        }
    }
    assert!(
        unmarked.is_empty(),
        "output samples must be produced by a test (see tests/it/readme.rs):\n{}",
        unmarked.join("\n")
    );
}

/// The path of "From a rule to a running hook" ends with settings that
/// reach the table it compiled: with no flag, `hookc claude` finds
/// `.hookc/rules.tbl` from the event's `cwd`.
#[test]
fn the_users_path_reaches_its_table() {
    let readme = readme();
    let blocks = blocks(&readme);
    let mine: Vec<&Block> = blocks
        .iter()
        .filter(|b| b.section == "From a rule to a running hook")
        .collect();
    assert!(mine.len() >= 6, "the section has {} blocks", mine.len());
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("readme-path/section");
    let mut checked = Checked::default();
    run_blocks(&mine, &dir, &mut checked);
    assert!(
        checked.files >= 3 && checked.commands.len() >= 6,
        "{} files, {} commands",
        checked.files,
        checked.commands.len()
    );
    let event = format!(
        r#"{{"hook_event_name": "PreToolUse", "cwd": "{}", "tool_name": "Bash", "tool_input": {{"command": "git push --force"}}}}"#,
        dir.display()
    );
    std::fs::write(dir.join("from-cwd.json"), event).unwrap();
    let stdout = run(&dir, "hookc claude < from-cwd.json");
    assert!(
        stdout.contains("\"permissionDecision\":\"deny\""),
        "{stdout}"
    );
}

/// The comparisons of the samples, on small cases.
#[test]
fn samples_compare_as_documented() {
    let json = |pattern: &str, actual: &str| {
        let pattern = json_pattern(pattern);
        let actual = json_values(actual).unwrap();
        let pattern: Vec<Option<Value>> = pattern
            .into_iter()
            .map(|v| (v != ELIDED).then_some(v))
            .collect();
        glob(&pattern, &actual, |p, a| json_match(p, a, &[]))
    };
    assert!(json(r#"{"a": [1, …], …}"#, r#"{"b": 0, "a": [1, 2, 3]}"#));
    assert!(json(r#"[…, {"x": 2}]"#, r#"[{"x": 1}, {"x": 2}]"#));
    assert!(!json(r#"[{"x": 2}]"#, r#"[{"x": 1}, {"x": 2}]"#));
    assert!(!json(r#"{"a": 1}"#, r#"{"a": 1, "b": 2}"#));
    assert!(json(r#"{"a": …}"#, r#"{"a": {"deep": true}}"#));
    assert!(json(
        r#"{"d": "1d1e…", "m": "….json: x…"}"#,
        r#"{"d": "b795c3", "m": "a/b.json: xyz"}"#
    ));
    assert!(!json(r#"{"d": "1d1e…"}"#, r#"{"d": "not hex"}"#));
    assert!(json("{\"e\": 1}\n…\n", "{\"e\": 1}\n{\"e\": 2}\n"));
    assert!(lines_match("a\n…\nd", "a\nb\nc\nd  \n\n", false));
    assert!(!lines_match("a\nc", "a\nb\nc", false));
    assert!(lines_match("b\nc", "a\nb\nc\nd", true));
    assert!(!lines_match("b\nd", "a\nb\nc\nd", true));
}

/// The `hook ID … {` … `}` blocks of `text`, each as `(id, lines)` with
/// the header's indentation taken off every line.
fn hooks_in(text: &str) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let indent = line.len() - line.trim_start().len();
        let mut words = line.split_whitespace();
        if words.next() != Some("hook") || !line.trim_end().ends_with('{') {
            continue;
        }
        let id = words.next().unwrap_or_default().to_string();
        let mut body = vec![line.trim().to_string()];
        for l in lines.by_ref() {
            body.push(
                l.get(indent..)
                    .unwrap_or(l.trim_start())
                    .trim_end()
                    .to_string(),
            );
            if l.trim() == "}" && l.len() - l.trim_start().len() == indent {
                break;
            }
        }
        out.push((id, body));
    }
    out
}

fn shipped_rule_files(dir: &Path, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            shipped_rule_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "hooks") {
            out.push((
                path.display().to_string(),
                std::fs::read_to_string(&path).unwrap(),
            ));
        }
    }
}

/// Every rule the README shows that a shipped file under `rules/` defines
/// (the same hook id) is shown exactly as the file has it, so the README
/// never teaches a policy the packs no longer hold.
#[test]
fn readme_excerpts_of_shipped_rules_match_the_files() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let mut files = Vec::new();
    shipped_rule_files(&root.join("rules"), &mut files);
    // Packs are compiled apart, so two may define the same name: the
    // README's must be one of the files' definitions.
    let mut checked = Vec::new();
    for (id, shown) in hooks_in(&readme) {
        let found: Vec<(&String, Vec<String>)> = files
            .iter()
            .flat_map(|(path, text)| {
                hooks_in(text)
                    .into_iter()
                    .filter(|(other, _)| *other == id)
                    .map(move |(_, lines)| (path, lines))
            })
            .collect();
        if found.is_empty() {
            continue;
        }
        assert!(
            found.iter().any(|(_, lines)| *lines == shown),
            "the README shows rule `{id}` otherwise than {:?} has it:\n{}",
            found.iter().map(|(p, _)| p).collect::<Vec<_>>(),
            shown.join("\n")
        );
        checked.push(id);
    }
    assert!(
        checked.len() >= 3,
        "the README shows rules of the packs; found only {checked:?}"
    );
    // One-line `list`, `pattern` and `macro` definitions likewise.
    let mut defs = 0;
    for (name, shown) in definitions_in(&readme) {
        let found: Vec<(&String, String)> = files
            .iter()
            .flat_map(|(path, text)| {
                definitions_in(text)
                    .into_iter()
                    .filter(|(other, _)| *other == name)
                    .map(move |(_, line)| (path, line))
            })
            .collect();
        if found.is_empty() {
            continue;
        }
        assert!(
            found.iter().any(|(_, line)| *line == shown),
            "the README shows `{name}` otherwise than {found:?}: {shown}"
        );
        defs += 1;
    }
    assert!(defs >= 3, "the README shows definitions of the packs");
}

/// One-line definitions of `text` (`list`, `pattern`, `macro`), keyed by
/// kind and name.
fn definitions_in(text: &str) -> Vec<(String, String)> {
    text.lines()
        .map(str::trim)
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            let kind = words.next()?;
            let name = words.next()?;
            let one_line = line.matches('[').count() == line.matches(']').count();
            (matches!(kind, "list" | "pattern" | "macro") && words.next() == Some("=") && one_line)
                .then(|| (format!("{kind} {name}"), line.to_string()))
        })
        .collect()
}

/// Every `text` example of the README is valid hookc: definitions and
/// rules compile (conditions alone inside a rule), and the composed pack
/// compiles with the pack it adapts, as the README says to run it.
#[test]
fn every_text_example_of_the_readme_compiles() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("readme-text");
    let _ = std::fs::remove_dir_all(&dir);
    let pack = dir.join("rules/claude-code");
    std::fs::create_dir_all(&pack).unwrap();
    for entry in std::fs::read_dir(root.join("rules/claude-code")).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::copy(&path, pack.join(path.file_name().unwrap())).unwrap();
        }
    }
    let mut checked = 0;
    for block in blocks(&readme).into_iter().filter(|b| b.info == "text") {
        let text = block.lines.join("\n") + "\n";
        let claude = ["PreToolUse", "PostToolUse", "claude-code::"]
            .iter()
            .any(|w| text.contains(w));
        let schema = if claude { "schema claude-code\n" } else { "" };
        if text.contains("import \"../rules/claude-code/") {
            std::fs::create_dir_all(dir.join("local")).unwrap();
            std::fs::write(dir.join("local/local.hooks"), &text).unwrap();
            run(&dir, "hookc lint rules/claude-code/ local/");
        } else {
            let source = if text.starts_with("when ") {
                format!("{schema}hook readme-example on tool.pre_execute {{\n{text}    deny\n}}\n")
            } else {
                format!("{schema}{text}")
            };
            if let Err(d) = hookc::compile_str("README.md", &source) {
                panic!(
                    "a README example does not compile:\n{source}\n{}",
                    hookc::diag::render::human(&d, false)
                );
            }
        }
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} text examples found");
}

/// The summary at the top of "The command line" names every subcommand
/// `hookc --help` lists, and each of those lines names a real subcommand.
#[test]
fn the_command_line_summary_lists_every_subcommand() {
    let help = Command::new(env!("CARGO_BIN_EXE_hookc"))
        .arg("--help")
        .output()
        .unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    let commands: Vec<String> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
        .filter(|c| c != "help")
        .collect();
    assert!(commands.len() > 10, "{help}");
    let section = section_named("## The command line");
    let summary = &blocks(&section)[0];
    let listed: Vec<&str> = summary
        .lines
        .iter()
        .filter_map(|l| l.strip_prefix("hookc "))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    for command in &commands {
        assert!(
            listed.contains(&command.as_str()),
            "`hookc {command}` is missing from the README's command-line summary"
        );
    }
    for command in &listed {
        assert!(
            commands.iter().any(|c| c == command),
            "the README's summary lists `hookc {command}`, which `hookc --help` does not"
        );
    }
}
