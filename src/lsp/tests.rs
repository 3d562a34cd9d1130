//! Conversations with the server in memory: the protocol's edges (framing,
//! the order of `initialize` and `shutdown`, bad input) and the features
//! over files on disk (imports, the overlay of open documents).

use super::*;
use serde_json::{json, Value};
use std::path::Path;

/// The frames of `messages`.
fn frames(messages: &[Value]) -> Vec<u8> {
    let mut out = Vec::new();
    for m in messages {
        let text = m.to_string();
        out.extend_from_slice(format!("Content-Length: {}\r\n\r\n{text}", text.len()).as_bytes());
    }
    out
}

/// Parses the server's output into messages.
fn messages(mut output: &[u8]) -> Vec<Value> {
    let mut out = Vec::new();
    while let Some(body) = read_frame(&mut output).unwrap() {
        out.push(serde_json::from_slice(&body).unwrap());
    }
    out
}

/// Runs a whole session over `input`.
fn session(input: &[u8]) -> (Result<Exit, LspError>, Vec<Value>) {
    let mut output = Vec::new();
    let exit = serve(&mut &input[..], &mut output);
    (exit, messages(&output))
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"capabilities": {}}})
}

fn shutdown_and_exit() -> [Value; 2] {
    [
        json!({"jsonrpc": "2.0", "id": 999, "method": "shutdown"}),
        json!({"jsonrpc": "2.0", "method": "exit"}),
    ]
}

fn response(messages: &[Value], id: i64) -> &Value {
    messages
        .iter()
        .find(|m| m["id"] == json!(id))
        .unwrap_or_else(|| panic!("no response {id} in {messages:#?}"))
}

fn uri_of(path: &Path) -> String {
    uri::from_path(path).unwrap().as_str().to_owned()
}

fn open(uri: &str, text: &str) -> Value {
    json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": {"uri": uri, "languageId": "hooks", "version": 1, "text": text}}})
}

/// A request at the position of the `nth` byte after `needle` in `text`.
fn at(id: i64, method: &str, uri: &str, text: &str, needle: &str, plus: usize) -> Value {
    let offset = text.find(needle).unwrap() + plus;
    let lines = LineIndex::new(text);
    let position = lines.position(text, offset);
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": {
        "textDocument": {"uri": uri}, "position": position}})
}

/// The diagnostics last published for `uri`.
fn published<'a>(messages: &'a [Value], uri: &str) -> &'a Vec<Value> {
    messages
        .iter()
        .rev()
        .find(|m| m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri)
        .and_then(|m| m["params"]["diagnostics"].as_array())
        .unwrap_or_else(|| panic!("nothing published for {uri}"))
}

#[test]
fn a_clean_session_exits_0_and_one_without_shutdown_exits_1() {
    let mut input = vec![initialize()];
    input.extend(shutdown_and_exit());
    let (exit, out) = session(&frames(&input));
    assert_eq!(exit.unwrap(), Exit::Clean);
    assert_eq!(response(&out, 999)["result"], Value::Null);
    let (exit, _) = session(&frames(&[
        initialize(),
        json!({"jsonrpc": "2.0", "method": "exit"}),
    ]));
    assert_eq!(exit.unwrap(), Exit::WithoutShutdown);
    let (exit, _) = session(&frames(&[initialize()]));
    assert_eq!(exit.unwrap(), Exit::WithoutShutdown, "the input ended");
}

#[test]
fn requests_out_of_order_or_unknown_are_errors_not_crashes() {
    let hover = |id| {
        json!({"jsonrpc": "2.0", "id": id, "method": "textDocument/hover", "params": {
            "textDocument": {"uri": "file:///nowhere.hooks"}, "position": {"line": 0, "character": 0}}})
    };
    let mut input = vec![
        hover(1),
        initialize(),
        hover(2),
        json!({"jsonrpc": "2.0", "id": 3, "method": "textDocument/rename", "params": {}}),
        json!({"jsonrpc": "2.0", "id": 4, "method": "textDocument/hover", "params": {"nonsense": 1}}),
        json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"bad": true}}),
        json!({"jsonrpc": "2.0", "id": 5, "method": "initialize", "params": {"capabilities": {}}}),
    ];
    input.extend(shutdown_and_exit());
    let mut bytes = frames(&input[..3]);
    // Not JSON at all: answered with a parse error, then the session goes on.
    bytes.extend_from_slice(b"Content-Length: 5\r\n\r\n{oops");
    bytes.extend(frames(&input[3..]));
    let (exit, out) = session(&bytes);
    assert_eq!(exit.unwrap(), Exit::Clean);
    assert_eq!(
        response(&out, 1)["error"]["code"],
        -32002,
        "before initialize"
    );
    assert_eq!(
        response(&out, 2)["result"],
        Value::Null,
        "a document not open"
    );
    assert_eq!(response(&out, 3)["error"]["code"], -32601);
    assert_eq!(response(&out, 4)["error"]["code"], -32602);
    assert_eq!(
        response(&out, 5)["error"]["code"],
        -32600,
        "initialize twice"
    );
    assert!(out
        .iter()
        .any(|m| m["id"].is_null() && m["error"]["code"] == -32700));
}

#[test]
fn broken_framing_stops_the_session_with_an_error() {
    for input in [
        &b"Content-Length: 99999999999\r\n\r\n"[..],
        b"Content-Length: x\r\n\r\n{}",
        b"{\"jsonrpc\": \"2.0\"}\r\n\r\n",
        b"Content-Type: a\r\n\r\n{}",
        b"Content-Length: 10\r\n",
    ] {
        let (exit, _) = session(input);
        assert!(
            matches!(exit, Err(LspError::Framing(_)) | Err(LspError::Io(_))),
            "{:?}: {exit:?}",
            String::from_utf8_lossy(input)
        );
    }
    let long = vec![b'x'; 5000];
    assert!(matches!(session(&long).0, Err(LspError::Framing(_))));
}

#[test]
fn imports_hover_complete_and_lead_to_their_definitions() {
    let dir = tempfile::tempdir().unwrap();
    let common = dir.path().join("common.hooks");
    std::fs::write(
        &common,
        "pattern secret = /AKIA[0-9A-Z]{16}/\nmacro is_exec = payload.tool == \"exec\"\nlist tools = [\"exec\"]\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("other.hooks"), "").unwrap();
    std::fs::create_dir(dir.path().join("packs")).unwrap();
    let main = dir.path().join("main.hooks");
    let text = "import \"common.hooks\"\n\nlist tools += [\"shell\"]\n\nhook a on tool.pre_execute {\n    when is_exec and payload.args matches secret\n    when payload.tool_name in tools\n    abort\n}\n\noverride a priority 5\n";
    let uri = uri_of(&main);
    let mut input = vec![initialize(), open(&uri, text)];
    input.push(at(1, "textDocument/hover", &uri, text, "is_exec", 2));
    input.push(at(2, "textDocument/definition", &uri, text, "secret", 1));
    input.push(at(3, "textDocument/hover", &uri, text, "in tools", 4));
    input.push(at(
        4,
        "textDocument/definition",
        &uri,
        text,
        "override a",
        9,
    ));
    input.push(at(5, "textDocument/hover", &uri, text, "tool_name in", 1));
    // Completion in the middle of a condition: names, roots, functions.
    input.push(at(
        6,
        "textDocument/completion",
        &uri,
        text,
        "when payload.tool",
        5,
    ));
    let importing = "import \"\"\n";
    let other = dir.path().join("x.hooks");
    let other_uri = uri_of(&other);
    input.push(open(&other_uri, importing));
    input.push(at(
        7,
        "textDocument/completion",
        &other_uri,
        importing,
        "\"\"",
        1,
    ));
    input.push(at(
        8,
        "textDocument/completion",
        &uri,
        text,
        "override a",
        9,
    ));
    input.extend(shutdown_and_exit());
    let (exit, out) = session(&frames(&input));
    assert_eq!(exit.unwrap(), Exit::Clean);
    assert_eq!(published(&out, &uri), &Vec::<Value>::new(), "{out:#?}");
    let ids = &response(&out, 8)["result"];
    assert_eq!(ids[0]["label"], "a");
    assert_eq!(ids[0]["detail"], "hook a on tool.pre_execute");

    let hover = response(&out, 1)["result"]["contents"]["value"]
        .as_str()
        .unwrap();
    assert!(
        hover.contains("macro is_exec = payload.tool == \"exec\"")
            && hover.contains("common.hooks"),
        "{hover}"
    );
    let def = &response(&out, 2)["result"];
    assert_eq!(def["uri"], uri_of(&common.canonicalize().unwrap()));
    assert_eq!(def["range"]["start"], json!({"line": 0, "character": 8}));
    let hover = response(&out, 3)["result"]["contents"]["value"]
        .as_str()
        .unwrap();
    assert!(
        hover.contains("list tools = [\"exec\"]") && hover.contains("extended here"),
        "{hover}"
    );
    let def = &response(&out, 4)["result"];
    assert_eq!(def["uri"], uri);
    assert_eq!(def["range"]["start"], json!({"line": 4, "character": 5}));
    let hover = response(&out, 5)["result"]["contents"]["value"]
        .as_str()
        .unwrap();
    assert!(
        hover.contains("`payload.tool_name`") && hover.contains("`string` at `tool.pre_execute`"),
        "{hover}"
    );

    let labels: Vec<&str> = response(&out, 6)["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["label"].as_str().unwrap())
        .collect();
    for wanted in ["is_exec", "secret", "tools", "payload", "lower", "contains"] {
        assert!(labels.contains(&wanted), "{wanted} in {labels:?}");
    }
    assert!(!labels.contains(&"hook"), "item keywords only start a line");
    let files: Vec<&str> = response(&out, 7)["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["label"].as_str().unwrap())
        .collect();
    assert_eq!(files, ["common.hooks", "other.hooks", "packs/"]);
}

#[test]
fn errors_of_an_import_show_at_the_import_and_open_documents_stand_in_for_files() {
    let dir = tempfile::tempdir().unwrap();
    let common = dir.path().join("common.hooks");
    std::fs::write(&common, "list tools = [\"exec\"\n").unwrap();
    let main = dir.path().join("main.hooks");
    let text = "import \"common.hooks\"\nhook a on tool.pre_execute {\n    when payload.tool in tools\n    abort\n}\n";
    let (uri, common_uri) = (uri_of(&main), uri_of(&common));
    let mut input = vec![initialize(), open(&uri, text)];
    // The editor fixes the import without saving it: `main` is checked again.
    input.push(open(&common_uri, "list tools = [\"exec\"]\n"));
    input.extend(shutdown_and_exit());
    let (exit, out) = session(&frames(&input));
    assert_eq!(exit.unwrap(), Exit::Clean);
    let first = out
        .iter()
        .find(|m| m["params"]["uri"] == uri)
        .and_then(|m| m["params"]["diagnostics"].as_array())
        .unwrap();
    let syntax = first.iter().find(|d| d["code"] == "syntax").unwrap();
    assert!(
        syntax["message"]
            .as_str()
            .unwrap()
            .starts_with("in `common.hooks`: "),
        "{syntax:#?}"
    );
    assert_eq!(syntax["range"]["start"], json!({"line": 0, "character": 0}));
    assert_eq!(
        syntax["relatedInformation"][0]["location"]["uri"],
        uri_of(&common)
    );
    assert_eq!(published(&out, &uri), &Vec::<Value>::new(), "{out:#?}");
}

#[test]
fn errors_of_a_schema_file_show_at_the_schema_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("app.schema.toml"), "points = [\n").unwrap();
    let main = dir.path().join("main.hooks");
    let text = "# the app's points\nschema \"app.schema.toml\"\n";
    let uri = uri_of(&main);
    let (_, out) = session(&frames(&[initialize(), open(&uri, text)]));
    let found = published(&out, &uri);
    assert!(!found.is_empty(), "{out:#?}");
    for d in found {
        assert!(
            d["message"]
                .as_str()
                .unwrap()
                .starts_with("in `app.schema.toml`: "),
            "{d:#}"
        );
        assert_eq!(d["range"]["start"], json!({"line": 1, "character": 0}));
        assert_eq!(
            d["relatedInformation"][0]["location"]["uri"],
            uri_of(&dir.path().join("app.schema.toml").canonicalize().unwrap())
        );
    }
}

#[test]
fn a_shell_views_commands_have_typed_fields() {
    let text = "hook a on tool.pre_execute {\n    when any c in shell(payload.args): c.program == \"rm\"\n    abort\n}\n";
    let typing =
        "hook a on tool.pre_execute {\n    when any c in shell(payload.args): c.\n    abort\n}\n";
    let (uri, typing_uri) = ("untitled:a", "untitled:b");
    let mut input = vec![initialize(), open(uri, text), open(typing_uri, typing)];
    input.push(at(1, "textDocument/hover", uri, text, "c.program", 4));
    input.push(at(2, "textDocument/hover", uri, text, "c.program", 0));
    input.push(at(
        3,
        "textDocument/completion",
        typing_uri,
        typing,
        "c.\n",
        2,
    ));
    let (_, out) = session(&frames(&input));
    assert_eq!(
        response(&out, 1)["result"]["contents"]["value"],
        "`c.program`: a string, a field of a command of the shell view `shell(…)`"
    );
    let variable = response(&out, 2)["result"]["contents"]["value"]
        .as_str()
        .unwrap();
    assert!(
        variable.starts_with("`c`: a command of the shell view"),
        "{variable}"
    );
    let fields: Vec<&str> = response(&out, 3)["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["label"].as_str().unwrap())
        .collect();
    assert!(
        fields.contains(&"program") && fields.contains(&"flags"),
        "{fields:?}"
    );
}

#[test]
fn a_completion_replaces_the_whole_name_typed() {
    let text = "schema orcs\nhook a on tool.pre\n";
    let uri = "untitled:c";
    let input = vec![
        initialize(),
        open(uri, text),
        at(1, "textDocument/completion", uri, text, "tool.pre\n", 8),
        at(2, "textDocument/completion", uri, text, "orcs", 3),
    ];
    let (_, out) = session(&frames(&input));
    let items = response(&out, 1)["result"].as_array().unwrap();
    let pre = items
        .iter()
        .find(|i| i["label"] == "tool.pre_execute")
        .unwrap();
    assert_eq!(
        pre["textEdit"]["range"],
        json!({"start": {"line": 1, "character": 10}, "end": {"line": 1, "character": 18}})
    );
    let schemas = response(&out, 2)["result"].as_array().unwrap();
    let claude = schemas
        .iter()
        .find(|i| i["label"] == "claude-code")
        .unwrap();
    assert_eq!(
        claude["textEdit"]["range"],
        json!({"start": {"line": 0, "character": 7}, "end": {"line": 0, "character": 10}})
    );
}

#[test]
fn changes_apply_ranges_and_close_clears() {
    let text = "hook a on tool.pre_exec {\n    abort\n}\n";
    let uri = "untitled:Untitled-1";
    let input = vec![
        initialize(),
        open(uri, text),
        json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": uri, "version": 2},
            "contentChanges": [{"range": {"start": {"line": 0, "character": 23}, "end": {"line": 0, "character": 23}}, "text": "ute"}]}}),
        json!({"jsonrpc": "2.0", "method": "textDocument/didClose", "params": {"textDocument": {"uri": uri}}}),
    ];
    let (_, out) = session(&frames(&input));
    let published: Vec<&Value> = out
        .iter()
        .filter(|m| m["method"] == "textDocument/publishDiagnostics")
        .collect();
    assert_eq!(published.len(), 3, "{out:#?}");
    assert_eq!(
        published[0]["params"]["diagnostics"][0]["code"],
        "unknown-point"
    );
    assert_eq!(published[1]["params"]["diagnostics"], json!([]));
    assert_eq!(published[1]["params"]["version"], 2);
    assert_eq!(published[2]["params"]["diagnostics"], json!([]));
}
