//! `hookc lsp` as an editor sees it: the real binary, spoken to in JSON-RPC
//! with `Content-Length` framing over its stdin and stdout.
//!
//! One conversation goes through what an editor does with a `.hooks` file:
//! initialize, open a file with an error, fix it, hover, complete, go to a
//! definition, format, take a quick fix, shut down and exit. Every read has
//! a deadline, so a server that hangs fails the test instead of hanging it.

#![expect(
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a conversation that goes wrong fails the test loudly"
)]

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How long any one answer may take.
const DEADLINE: Duration = Duration::from_secs(30);

/// A running `hookc lsp` and the messages it sends.
struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    messages: Receiver<Value>,
    next_id: i64,
    /// Notifications received while waiting for a response.
    notifications: Vec<Value>,
}

impl Server {
    fn start(dir: &Path) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_hookc"))
            .arg("lsp")
            .current_dir(dir)
            .env_remove("RUST_LOG")
            .env_remove("HOOKC_LOG")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (send, messages) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Some(message) = read_message(&mut reader) {
                if send.send(message).is_err() {
                    break;
                }
            }
        });
        Server {
            stdin: child.stdin.take(),
            child,
            messages,
            next_id: 0,
            notifications: Vec::new(),
        }
    }

    fn send(&mut self, message: &Value) {
        let text = message.to_string();
        let stdin = self.stdin.as_mut().unwrap();
        write!(stdin, "Content-Length: {}\r\n\r\n{text}", text.len()).unwrap();
        stdin.flush().unwrap();
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request and waits for its response (keeping the
    /// notifications that come first).
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let message = self.receive();
            if message["id"] == json!(id) {
                assert!(
                    message.get("error").is_none(),
                    "{method} failed: {message:#}"
                );
                return message["result"].clone();
            }
            self.notifications.push(message);
        }
    }

    fn receive(&mut self) -> Value {
        match self.messages.recv_timeout(DEADLINE) {
            Ok(message) => message,
            Err(RecvTimeoutError::Timeout) => {
                let _ = self.child.kill();
                panic!("hookc lsp did not answer within {DEADLINE:?}")
            }
            Err(RecvTimeoutError::Disconnected) => panic!("hookc lsp closed its stdout"),
        }
    }

    /// The next diagnostics published for `uri`.
    fn diagnostics(&mut self, uri: &str) -> Vec<Value> {
        let is_ours = |m: &Value| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri
        };
        if let Some(i) = self.notifications.iter().position(is_ours) {
            let m = self.notifications.remove(i);
            return m["params"]["diagnostics"].as_array().unwrap().clone();
        }
        loop {
            let m = self.receive();
            if is_ours(&m) {
                return m["params"]["diagnostics"].as_array().unwrap().clone();
            }
            self.notifications.push(m);
        }
    }

    /// Waits for the process to end; its exit code.
    fn wait(&mut self) -> Option<i32> {
        drop(self.stdin.take());
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code();
            }
            if start.elapsed() > DEADLINE {
                let _ = self.child.kill();
                panic!("hookc lsp did not exit within {DEADLINE:?}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One framed message from the server; `None` at the end of its output.
fn read_message(reader: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(n) = line.strip_prefix("Content-Length: ") {
            length = Some(n.parse::<usize>().unwrap());
        }
    }
    let mut body = vec![0; length?];
    reader.read_exact(&mut body).ok()?;
    Some(serde_json::from_slice(&body).unwrap())
}

fn uri_of(path: &Path) -> String {
    format!("file://{}", path.display()).replace(' ', "%20")
}

/// The LSP position of byte `plus` after the first `needle` in `text`
/// (columns in UTF-16 units).
fn position(text: &str, needle: &str, plus: usize) -> Value {
    let offset = text
        .find(needle)
        .unwrap_or_else(|| panic!("{needle:?} in {text:?}"))
        + plus;
    let before = &text[..offset];
    let line = before.matches('\n').count();
    let column: usize = before[before.rfind('\n').map_or(0, |i| i + 1)..]
        .encode_utf16()
        .count();
    json!({"line": line, "character": column})
}

fn at(uri: &str, text: &str, needle: &str, plus: usize) -> Value {
    json!({"textDocument": {"uri": uri}, "position": position(text, needle, plus)})
}

fn labels(completion: &Value) -> Vec<String> {
    let items = completion
        .as_array()
        .or_else(|| completion["items"].as_array())
        .unwrap();
    items
        .iter()
        .map(|i| i["label"].as_str().unwrap().to_owned())
        .collect()
}

fn markdown(hover: &Value) -> String {
    hover["contents"]["value"].as_str().unwrap().to_owned()
}

#[cfg(unix)]
#[test]
fn an_editor_session() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path().canonicalize().unwrap();
    let mut server = Server::start(&dir);

    let init = server.request(
        "initialize",
        json!({"processId": null, "rootUri": uri_of(&dir), "capabilities": {}}),
    );
    let caps = &init["capabilities"];
    assert_eq!(caps["textDocumentSync"]["change"], 1, "full sync");
    assert_eq!(caps["textDocumentSync"]["openClose"], true);
    assert_eq!(caps["hoverProvider"], true);
    assert_eq!(caps["definitionProvider"], true);
    assert_eq!(caps["documentFormattingProvider"], true);
    assert_eq!(
        caps["codeActionProvider"]["codeActionKinds"],
        json!(["quickfix"])
    );
    assert!(caps["completionProvider"]["triggerCharacters"]
        .as_array()
        .unwrap()
        .contains(&json!(".")));
    assert_eq!(caps["positionEncoding"], "utf-16");
    assert_eq!(init["serverInfo"]["name"], "hookc");
    server.notify("initialized", json!({}));

    // A file with an error, a multi-byte character before it on its line,
    // and a lint level from `hookc.toml`.
    std::fs::write(
        dir.join("hookc.toml"),
        "[lints]\nunused-definition = \"deny\"\n",
    )
    .unwrap();
    let path = dir.join("guard.hooks");
    let uri = uri_of(&path);
    let broken = "schema claude-code\n\nlist dangerous = [\"rm -rf\", \"mkfs\"]\n\n# “no” to PreToolUs\nhook guard on PreToolUs at claude-code::Bash {\n    when payload.tool_input.command != \"“ok” 😀\" and payload.tool_input.command contains any dangerus\n    deny \"refused: {payload.tool_input.command}\"\n}\n";
    std::fs::write(&path, broken).unwrap();
    server.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "hooks", "version": 1, "text": broken}}),
    );
    let found = server.diagnostics(&uri);
    assert_eq!(found.len(), 3, "{found:#?}");
    // The misspelt use leaves the list unused, which `hookc.toml` denies.
    let unused = found
        .iter()
        .find(|d| d["code"] == "unused-definition")
        .unwrap();
    assert_eq!(unused["severity"], 1, "an error, as hookc.toml says");
    assert_eq!(unused["range"]["start"], json!({"line": 2, "character": 5}));
    // Columns count UTF-16 units: `“`, `”` and `😀` (3, 3 and 4 bytes) are
    // 1, 1 and 2 units.
    let name = found.iter().find(|d| d["code"] == "unknown-name").unwrap();
    assert_eq!(
        name["range"],
        json!({"start": {"line": 6, "character": 93}, "end": {"line": 6, "character": 101}})
    );
    assert_eq!(
        name["message"],
        "unknown name `dangerus`\nhelp: did you mean `dangerous`?"
    );
    let d = found.iter().find(|d| d["code"] == "unknown-point").unwrap();
    assert_eq!(d["code"], "unknown-point");
    assert_eq!(d["severity"], 1);
    assert_eq!(d["source"], "hookc");
    assert_eq!(
        d["message"],
        "unknown hook point `PreToolUs`\nhelp: did you mean `PreToolUse`?"
    );
    assert_eq!(
        d["range"],
        json!({"start": {"line": 5, "character": 14}, "end": {"line": 5, "character": 23}})
    );
    assert_eq!(
        d["relatedInformation"][0]["message"],
        "not a point of the `claude-code` schema"
    );

    // The quick fix writes the point the help names.
    let actions = server.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": d["range"], "context": {"diagnostics": [d]}}),
    );
    let fix = &actions[0];
    assert_eq!(fix["kind"], "quickfix");
    assert_eq!(fix["title"], "Replace with `PreToolUse`");
    assert_eq!(fix["diagnostics"][0]["code"], "unknown-point");
    let edits = &fix["edit"]["changes"][&uri];
    assert_eq!(
        edits,
        &json!([{"range": d["range"], "newText": "PreToolUse"}])
    );
    // The quick fix on a column in a comment finds nothing to fix.
    let none = server.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": {"start": {"line": 4, "character": 2}, "end": {"line": 4, "character": 2}}, "context": {"diagnostics": []}}),
    );
    assert_eq!(none, json!([]));

    // The editor applies the fixes: the diagnostics clear.
    let text = broken
        .replace("on PreToolUs at", "on PreToolUse at")
        .replace("any dangerus", "any dangerous");
    server.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": text}]}),
    );
    assert_eq!(server.diagnostics(&uri), Vec::<Value>::new());

    // Hover: a point, a field, a list.
    let hover = server.request("textDocument/hover", at(&uri, &text, "PreToolUse at", 3));
    let point = markdown(&hover);
    assert!(
        point.starts_with("**`PreToolUse`**: a `pre` point of the `claude-code` schema"),
        "{point}"
    );
    assert!(
        point.contains("Before a tool call runs"),
        "the point's doc: {point}"
    );
    assert!(
        point.contains("- `payload.tool_input.command`: `string?`"),
        "{point}"
    );
    assert_eq!(
        hover["range"],
        json!({"start": {"line": 5, "character": 14}, "end": {"line": 5, "character": 24}})
    );
    let hover = server.request(
        "textDocument/hover",
        at(&uri, &text, "tool_input.command contains", 12),
    );
    assert_eq!(
        markdown(&hover),
        "`payload.tool_input.command`\n\n`string?` at `PreToolUse`"
    );
    let hover = server.request(
        "textDocument/hover",
        at(&uri, &text, "tool_input.command contains", 3),
    );
    assert_eq!(
        markdown(&hover),
        "`payload.tool_input`\n\n`object` at `PreToolUse`"
    );
    let hover = server.request("textDocument/hover", at(&uri, &text, "any dangerous", 6));
    assert_eq!(
        markdown(&hover),
        "```hooks\nlist dangerous = [\"rm -rf\", \"mkfs\"]\n```\n*list*"
    );

    // Definition: the list a rule uses.
    let definition = server.request(
        "textDocument/definition",
        at(&uri, &text, "any dangerous", 6),
    );
    assert_eq!(
        definition,
        json!({"uri": uri, "range": {"start": {"line": 2, "character": 5}, "end": {"line": 2, "character": 14}}})
    );

    // Completion: points after `on `, fields after `payload.tool_input.`.
    let typing = text.replace("guard on PreToolUse at", "guard on  at");
    server.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 3}, "contentChanges": [{"text": typing}]}),
    );
    let _ = server.diagnostics(&uri);
    let points =
        labels(&server.request("textDocument/completion", at(&uri, &typing, "guard on ", 9)));
    for point in ["PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop"] {
        assert!(points.contains(&point.to_owned()), "{point} in {points:?}");
    }
    assert!(
        !points.contains(&"tool.pre_execute".to_owned()),
        "an orcs point"
    );
    let typing = text.replace("    deny", "    when payload.tool_input.\n    deny");
    server.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 4}, "contentChanges": [{"text": typing}]}),
    );
    let _ = server.diagnostics(&uri);
    let fields = labels(&server.request(
        "textDocument/completion",
        at(&uri, &typing, "payload.tool_input.", 19),
    ));
    for field in ["command", "file_path", "url"] {
        assert!(fields.contains(&field.to_owned()), "{field} in {fields:?}");
    }
    assert!(
        !fields.contains(&"tool_name".to_owned()),
        "not below tool_input"
    );

    // Formatting a messy file: one edit, `hookc fmt`'s layout.
    let messy = "schema   claude-code\nlist dangerous=[\"rm -rf\",\"mkfs\"]\nhook guard on PreToolUse at claude-code::Bash{ when payload.tool_input.command contains any dangerous\ndeny \"refused\" }\n";
    server.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 5}, "contentChanges": [{"text": messy}]}),
    );
    let _ = server.diagnostics(&uri);
    let edits = server.request(
        "textDocument/formatting",
        json!({"textDocument": {"uri": uri}, "options": {"tabSize": 4, "insertSpaces": true}}),
    );
    assert_eq!(edits.as_array().unwrap().len(), 1, "{edits:#}");
    assert_eq!(
        edits[0]["range"],
        json!({"start": {"line": 0, "character": 0}, "end": {"line": 4, "character": 0}})
    );
    assert_eq!(
        edits[0]["newText"],
        "schema claude-code\n\nlist dangerous = [\"rm -rf\", \"mkfs\"]\n\nhook guard on PreToolUse at claude-code::Bash {\n    when payload.tool_input.command contains any dangerous\n    deny \"refused\"\n}\n"
    );

    // Closing clears; shutdown and exit end the process with 0.
    server.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": uri}}),
    );
    assert_eq!(server.diagnostics(&uri), Vec::<Value>::new());
    assert_eq!(server.request("shutdown", Value::Null), Value::Null);
    server.notify("exit", Value::Null);
    assert_eq!(server.wait(), Some(0));
}

#[test]
fn exit_without_shutdown_is_exit_code_1() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(dir.path());
    server.request("initialize", json!({"capabilities": {}}));
    server.notify("exit", Value::Null);
    assert_eq!(server.wait(), Some(1));
}
