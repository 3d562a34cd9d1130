//! `hookc lsp`: a language server for `.hooks` files, over stdio.
//!
//! The server speaks JSON-RPC with `Content-Length` framing on any reader
//! and writer ([`serve`]); the `hookc lsp` command gives it stdin and
//! stdout. It is synchronous, one message at a time, and keeps the text of
//! every open document (full sync). On `didOpen`, `didChange` and `didSave`
//! the document is checked (`analysis.rs`) and its diagnostics published
//! (`diagnostics.rs`): the checker and lints of `hookc lint`, with their
//! codes, labels and help, at the `hookc.toml` levels found from the file.
//! Open documents that import a changed one are checked again too. On
//! `didClose` its diagnostics are cleared.
//!
//! Requests: `hover` (`hover.rs`), `completion` (`completion.rs`),
//! `definition` (`definition.rs`), `formatting` (`hookc fmt`) and
//! `codeAction` (quick fixes from the did-you-mean suggestions), both in
//! `actions.rs`. A request about a document that is not open answers
//! `null`; a request the server does not know is a `MethodNotFound` error;
//! a message that is not JSON-RPC is answered with a parse error and
//! skipped. Nothing a client sends makes the server panic.
//!
//! `shutdown` then `exit` ends [`serve`] with [`Exit::Clean`]; `exit`
//! without `shutdown`, or the end of the input, with
//! [`Exit::WithoutShutdown`] (the protocol's exit code 1).

mod actions;
mod analysis;
mod completion;
mod definition;
mod diagnostics;
mod hover;
mod keywords;
mod locate;
mod position;
mod uri;

use analysis::{Analysis, Overlay};
use diagnostics::Target;
use lsp_server::{ErrorCode, Message, Notification, Request, RequestId, Response, ResponseError};
use lsp_types::{
    notification::{self as note, Notification as _},
    request::{self as req, Request as _},
    CodeActionKind, CodeActionOptions, CodeActionProviderCapability, CompletionOptions,
    HoverContents, HoverProviderCapability, InitializeResult, MarkupContent, MarkupKind, OneOf,
    PositionEncodingKind, PublishDiagnosticsParams, SaveOptions, ServerCapabilities, ServerInfo,
    TextDocumentSyncCapability, TextDocumentSyncKind, TextDocumentSyncOptions,
    TextDocumentSyncSaveOptions, Uri,
};
use position::LineIndex;
use serde::de::DeserializeOwned;
use std::collections::HashMap;
use std::io::{self, BufRead, Write};
use std::path::PathBuf;

/// The largest message accepted, in bytes: a larger `Content-Length` is a
/// framing error, not an allocation.
const MAX_MESSAGE: usize = 256 << 20;

/// How a session ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// `exit` after `shutdown`: exit code 0.
    Clean,
    /// `exit` without `shutdown`, or the input ended: exit code 1.
    WithoutShutdown,
}

/// Why a session stopped before its end.
#[derive(Debug, thiserror::Error)]
pub enum LspError {
    /// Reading or writing the stream failed.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// The input is not `Content-Length` framed messages.
    #[error("bad message framing: {0}")]
    Framing(String),
}

/// Serves one client: reads messages from `input` and writes responses and
/// notifications to `output`, until `exit` or the end of the input.
///
/// # Errors
///
/// When the stream cannot be read or written, or its framing is broken
/// (a message that is not JSON is answered and skipped).
pub fn serve(input: &mut impl BufRead, output: &mut impl Write) -> Result<Exit, LspError> {
    let mut server = Server::default();
    loop {
        let body = match read_frame(input)? {
            Some(body) => body,
            None => return Ok(Exit::WithoutShutdown),
        };
        let message = match serde_json::from_slice::<Message>(&body) {
            Ok(message) => message,
            Err(e) => {
                write_raw(
                    output,
                    &serde_json::json!({
                        "jsonrpc": "2.0",
                        "id": null,
                        "error": {"code": ErrorCode::ParseError as i32, "message": format!("not a JSON-RPC message: {e}")},
                    }),
                )?;
                continue;
            }
        };
        let mut out = Vec::new();
        if let Some(exit) = server.handle(message, &mut out) {
            write_all(output, out)?;
            return Ok(exit);
        }
        write_all(output, out)?;
    }
}

/// Reads one `Content-Length` framed body; `None` at the end of the input.
fn read_frame(input: &mut impl BufRead) -> Result<Option<Vec<u8>>, LspError> {
    let mut length: Option<usize> = None;
    let mut line = Vec::new();
    let mut first = true;
    loop {
        line.clear();
        // A header line is short: a longer one is not a header.
        let read = io::Read::take(&mut *input, 1024).read_until(b'\n', &mut line)?;
        if read == 0 {
            return if first {
                Ok(None)
            } else {
                Err(LspError::Framing("the input ended in a header".to_owned()))
            };
        }
        first = false;
        let text = std::str::from_utf8(&line)
            .map_err(|_| LspError::Framing("a header is not UTF-8".to_owned()))?;
        let Some(text) = text.strip_suffix('\n') else {
            return Err(LspError::Framing("a header line is too long".to_owned()));
        };
        let text = text.strip_suffix('\r').unwrap_or(text);
        if text.is_empty() {
            break;
        }
        let Some((name, value)) = text.split_once(':') else {
            return Err(LspError::Framing(format!("not a header: {text:?}")));
        };
        if name.trim().eq_ignore_ascii_case("content-length") {
            let n = value
                .trim()
                .parse::<usize>()
                .map_err(|_| LspError::Framing(format!("bad Content-Length: {value:?}")))?;
            if n > MAX_MESSAGE {
                return Err(LspError::Framing(format!(
                    "a message of {n} bytes is over the limit of {MAX_MESSAGE}"
                )));
            }
            length = Some(n);
        }
    }
    let length = length.ok_or_else(|| LspError::Framing("no Content-Length".to_owned()))?;
    let mut body = vec![0; length];
    input.read_exact(&mut body)?;
    Ok(Some(body))
}

fn write_all(output: &mut impl Write, messages: Vec<Message>) -> Result<(), LspError> {
    for message in messages {
        message.write(output)?;
    }
    output.flush()?;
    Ok(())
}

fn write_raw(output: &mut impl Write, value: &serde_json::Value) -> Result<(), LspError> {
    let text = value.to_string();
    write!(output, "Content-Length: {}\r\n\r\n{text}", text.len())?;
    output.flush()?;
    Ok(())
}

/// One open document.
#[derive(Debug)]
struct Document {
    /// The client's version of it.
    version: i32,
    /// The text, as the editor has it.
    text: String,
    /// Where it is on disk, for a `file:` URI.
    path: Option<PathBuf>,
    /// The name diagnostics use: the path, or the URI.
    name: String,
    /// Its lines.
    lines: LineIndex,
    /// What checking it found.
    analysis: Analysis,
}

impl Document {
    fn target<'a>(&'a self, uri: &'a Uri) -> Target<'a> {
        Target {
            uri,
            text: &self.text,
            lines: &self.lines,
        }
    }
}

/// The state of a session.
#[derive(Debug, Default)]
struct Server {
    /// `initialize` was answered.
    initialized: bool,
    /// `shutdown` was answered.
    shut_down: bool,
    /// The open documents, by URI.
    documents: HashMap<Uri, Document>,
}

impl Server {
    /// Handles one message, pushing what to send to `out`; `Some` when the
    /// session is over.
    fn handle(&mut self, message: Message, out: &mut Vec<Message>) -> Option<Exit> {
        match message {
            Message::Request(request) => {
                let response = self.request(request);
                out.push(Message::Response(response));
                None
            }
            Message::Notification(notification) => self.notification(notification, out),
            // The server sends no requests, so it expects no responses.
            Message::Response(_) => None,
        }
    }

    fn request(&mut self, request: Request) -> Response {
        let Request { id, method, params } = request;
        if method == req::Initialize::METHOD {
            if self.initialized {
                return error(
                    id,
                    ErrorCode::InvalidRequest,
                    "initialize was already called",
                );
            }
            self.initialized = true;
            return ok(id, initialize_result());
        }
        if !self.initialized {
            return error(
                id,
                ErrorCode::ServerNotInitialized,
                "the server is not initialized",
            );
        }
        if self.shut_down {
            return error(id, ErrorCode::InvalidRequest, "the server is shutting down");
        }
        match method.as_str() {
            req::Shutdown::METHOD => {
                self.shut_down = true;
                ok(id, ())
            }
            req::HoverRequest::METHOD => self.answer(id, params, |s, p: lsp_types::HoverParams| {
                let position = p.text_document_position_params;
                let doc = s.documents.get(&position.text_document.uri)?;
                let offset = doc.lines.offset(&doc.text, position.position);
                let (value, span) = hover::hover(&doc.analysis, offset)?;
                Some(lsp_types::Hover {
                    contents: HoverContents::Markup(MarkupContent {
                        kind: MarkupKind::Markdown,
                        value,
                    }),
                    range: Some(doc.lines.range(&doc.text, span)),
                })
            }),
            req::Completion::METHOD => {
                self.answer(id, params, |s, p: lsp_types::CompletionParams| {
                    let position = p.text_document_position;
                    let doc = s.documents.get(&position.text_document.uri)?;
                    let offset = doc.lines.offset(&doc.text, position.position);
                    let items = completion::complete(
                        &doc.analysis,
                        &doc.lines,
                        offset,
                        doc.path.as_deref(),
                    );
                    Some(lsp_types::CompletionResponse::Array(items))
                })
            }
            req::GotoDefinition::METHOD => {
                self.answer(id, params, |s, p: lsp_types::GotoDefinitionParams| {
                    let position = p.text_document_position_params;
                    let uri = &position.text_document.uri;
                    let doc = s.documents.get(uri)?;
                    let offset = doc.lines.offset(&doc.text, position.position);
                    let location = definition::definition(&doc.analysis, uri, offset)?;
                    Some(lsp_types::GotoDefinitionResponse::Scalar(location))
                })
            }
            req::Formatting::METHOD => {
                self.answer(id, params, |s, p: lsp_types::DocumentFormattingParams| {
                    let uri = &p.text_document.uri;
                    let doc = s.documents.get(uri)?;
                    actions::format(&doc.name, &doc.text, doc.target(uri))
                })
            }
            req::CodeActionRequest::METHOD => {
                self.answer(id, params, |s, p: lsp_types::CodeActionParams| {
                    let uri = &p.text_document.uri;
                    let doc = s.documents.get(uri)?;
                    let fixes = actions::quick_fixes(&doc.analysis, doc.target(uri), p.range);
                    Some(
                        fixes
                            .into_iter()
                            .map(lsp_types::CodeActionOrCommand::CodeAction)
                            .collect::<Vec<_>>(),
                    )
                })
            }
            _ => error(
                id,
                ErrorCode::MethodNotFound,
                &format!("unknown method `{method}`"),
            ),
        }
    }

    /// Answers a request whose parameters are `P` with what `f` makes of
    /// them (`null` for `None`); bad parameters are `InvalidParams`.
    fn answer<P: DeserializeOwned, R: serde::Serialize>(
        &self,
        id: RequestId,
        params: serde_json::Value,
        f: impl FnOnce(&Server, P) -> Option<R>,
    ) -> Response {
        match serde_json::from_value::<P>(params) {
            Ok(params) => ok(id, f(self, params)),
            Err(e) => error(
                id,
                ErrorCode::InvalidParams,
                &format!("invalid parameters: {e}"),
            ),
        }
    }

    fn notification(&mut self, notification: Notification, out: &mut Vec<Message>) -> Option<Exit> {
        let Notification { method, params } = notification;
        if method == note::Exit::METHOD {
            return Some(if self.shut_down {
                Exit::Clean
            } else {
                Exit::WithoutShutdown
            });
        }
        if !self.initialized || self.shut_down {
            return None;
        }
        match method.as_str() {
            note::DidOpenTextDocument::METHOD => {
                if let Some(p) = parse::<lsp_types::DidOpenTextDocumentParams>(params) {
                    let doc = p.text_document;
                    self.open(doc.uri.clone(), doc.version, doc.text);
                    self.recheck(&doc.uri, out);
                }
            }
            note::DidChangeTextDocument::METHOD => {
                if let Some(p) = parse::<lsp_types::DidChangeTextDocumentParams>(params) {
                    let uri = p.text_document.uri;
                    let doc = self.documents.get(&uri)?;
                    let mut text = doc.text.clone();
                    for change in p.content_changes {
                        match change.range {
                            // Full sync is what the server asks for; a
                            // range is applied all the same.
                            Some(range) => {
                                let lines = LineIndex::new(&text);
                                let span = lines.span(&text, range);
                                text.replace_range(span.range(), &change.text);
                            }
                            None => text = change.text,
                        }
                    }
                    self.open(uri.clone(), p.text_document.version, text);
                    self.recheck(&uri, out);
                }
            }
            note::DidSaveTextDocument::METHOD => {
                if let Some(p) = parse::<lsp_types::DidSaveTextDocumentParams>(params) {
                    let uri = p.text_document.uri;
                    if let Some(doc) = self.documents.get(&uri) {
                        let text = p.text.unwrap_or_else(|| doc.text.clone());
                        self.open(uri.clone(), doc.version, text);
                        self.recheck(&uri, out);
                    }
                }
            }
            note::DidCloseTextDocument::METHOD => {
                if let Some(p) = parse::<lsp_types::DidCloseTextDocumentParams>(params) {
                    let uri = p.text_document.uri;
                    if self.documents.remove(&uri).is_some() {
                        out.push(publish(&uri, Vec::new(), None));
                        // Documents importing it read it from disk now.
                        self.recheck_importers(&uri, out);
                    }
                }
            }
            _ => {}
        }
        None
    }

    /// Stores a document's text and checks it.
    fn open(&mut self, uri: Uri, version: i32, text: String) {
        let path = uri::to_path(&uri);
        let name = path
            .as_ref()
            .map_or_else(|| uri.as_str().to_owned(), |p| p.display().to_string());
        let overlay = self.overlay(&uri);
        let analysis = analysis::analyze(&name, &text, path.as_deref(), &overlay);
        let lines = LineIndex::new(&text);
        self.documents.insert(
            uri,
            Document {
                version,
                text,
                path,
                name,
                lines,
                analysis,
            },
        );
    }

    /// The texts of the open documents other than `except`, by path.
    fn overlay(&self, except: &Uri) -> Overlay {
        self.documents
            .iter()
            .filter(|(uri, _)| *uri != except)
            .filter_map(|(_, doc)| {
                let key = doc.path.as_ref()?.canonicalize().ok()?;
                Some((key, doc.text.clone()))
            })
            .collect()
    }

    /// Publishes the diagnostics of `uri` and checks again the open
    /// documents that import it.
    fn recheck(&mut self, uri: &Uri, out: &mut Vec<Message>) {
        if let Some(doc) = self.documents.get(uri) {
            out.push(publish_document(uri, doc));
        }
        self.recheck_importers(uri, out);
    }

    /// Checks again, and publishes, every open document that imports the
    /// file at `uri`.
    fn recheck_importers(&mut self, uri: &Uri, out: &mut Vec<Message>) {
        let Some(changed) = uri::to_path(uri).and_then(|p| p.canonicalize().ok()) else {
            return;
        };
        let importers: Vec<Uri> = self
            .documents
            .iter()
            .filter(|(other, _)| *other != uri)
            .filter(|(_, doc)| {
                doc.analysis.loaded.files.iter().skip(1).any(|f| {
                    f.path
                        .as_ref()
                        .and_then(|p| p.canonicalize().ok())
                        .is_some_and(|p| p == changed)
                })
            })
            .map(|(other, _)| other.clone())
            .collect();
        for other in importers {
            let Some(doc) = self.documents.get(&other) else {
                continue;
            };
            let (version, text) = (doc.version, doc.text.clone());
            self.open(other.clone(), version, text);
            if let Some(doc) = self.documents.get(&other) {
                out.push(publish_document(&other, doc));
            }
        }
    }
}

/// The capabilities: full sync, hover, completion, definition, formatting
/// and quick fixes, positions in UTF-16.
fn initialize_result() -> InitializeResult {
    InitializeResult {
        capabilities: ServerCapabilities {
            position_encoding: Some(PositionEncodingKind::UTF16),
            text_document_sync: Some(TextDocumentSyncCapability::Options(
                TextDocumentSyncOptions {
                    open_close: Some(true),
                    change: Some(TextDocumentSyncKind::FULL),
                    save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions {
                        include_text: Some(false),
                    })),
                    ..TextDocumentSyncOptions::default()
                },
            )),
            hover_provider: Some(HoverProviderCapability::Simple(true)),
            completion_provider: Some(CompletionOptions {
                trigger_characters: Some(vec![".".to_owned(), "\"".to_owned(), "/".to_owned()]),
                ..CompletionOptions::default()
            }),
            definition_provider: Some(OneOf::Left(true)),
            document_formatting_provider: Some(OneOf::Left(true)),
            code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
                code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
                ..CodeActionOptions::default()
            })),
            ..ServerCapabilities::default()
        },
        server_info: Some(ServerInfo {
            name: "hookc".to_owned(),
            version: Some(env!("CARGO_PKG_VERSION").to_owned()),
        }),
    }
}

fn publish_document(uri: &Uri, doc: &Document) -> Message {
    let found = diagnostics::document_diagnostics(&doc.analysis, doc.target(uri))
        .into_iter()
        .map(|(_, lsp)| lsp)
        .collect();
    publish(uri, found, Some(doc.version))
}

fn publish(uri: &Uri, diagnostics: Vec<lsp_types::Diagnostic>, version: Option<i32>) -> Message {
    notification_message(
        note::PublishDiagnostics::METHOD,
        PublishDiagnosticsParams {
            uri: uri.clone(),
            diagnostics,
            version,
        },
    )
}

fn notification_message(method: &str, params: impl serde::Serialize) -> Message {
    Message::Notification(Notification {
        method: method.to_owned(),
        params: serde_json::to_value(params).unwrap_or(serde_json::Value::Null),
    })
}

fn parse<P: DeserializeOwned>(params: serde_json::Value) -> Option<P> {
    match serde_json::from_value(params) {
        Ok(p) => Some(p),
        Err(e) => {
            tracing::warn!("ignoring a notification with invalid parameters: {e}");
            None
        }
    }
}

fn ok(id: RequestId, result: impl serde::Serialize) -> Response {
    match serde_json::to_value(result) {
        Ok(value) => Response {
            id,
            response_result: Ok(value),
        },
        Err(e) => error(id, ErrorCode::InternalError, &e.to_string()),
    }
}

fn error(id: RequestId, code: ErrorCode, message: &str) -> Response {
    Response {
        id,
        response_result: Err(ResponseError {
            code: code as i32,
            message: message.to_owned(),
            data: None,
        }),
    }
}

#[cfg(test)]
mod tests;
