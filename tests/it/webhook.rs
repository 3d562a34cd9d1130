//! The `webhook` effect end to end: rules compiled from text, dispatched
//! with a configured webhook pool, received by local test servers.
//!
//! No test reaches the network: every server listens on `127.0.0.1:0`, and
//! plain `http://` to loopback is only allowed by the Rust-only test
//! allowance (`WebhookConfig::allow_loopback_http_for_tests`). The tests of
//! the guard show that a rule file cannot switch that allowance on: with
//! the default configuration, the same rules are refused when they are
//! sent and the servers receive nothing.

#![cfg(all(feature = "webhook", feature = "compiler"))]
#![expect(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test helpers fail the test loudly"
)]

use hookc::effects::WebhookConfig;
use hookc::{Effects, HookContext, OutcomeKind, Report, Table, Target};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

// -- a local test server ---------------------------------------------------------

/// One request a test server received.
#[derive(Clone, Debug)]
struct Request {
    /// `POST /path HTTP/1.1`.
    line: String,
    /// Header names lowercased, in order.
    headers: Vec<(String, String)>,
    body: String,
}

impl Request {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap()
    }
}

/// What a test server does after reading a request.
#[derive(Clone)]
enum Reply {
    /// `200 OK`.
    Ok,
    /// `302 Found` to `Location`.
    Redirect(String),
    /// Waits, then `200 OK`.
    After(Duration),
}

struct Server {
    addr: SocketAddr,
    received: Arc<Mutex<Vec<Request>>>,
}

impl Server {
    /// A server on `127.0.0.1:0`; each connection is handled on its own
    /// thread (so held connections do not block others).
    fn start(reply: Reply) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let received = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&received);
        thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let log = Arc::clone(&log);
                let reply = reply.clone();
                thread::spawn(move || handle(stream, &log, &reply));
            }
        });
        Server { addr, received }
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    fn port(&self) -> u16 {
        self.addr.port()
    }

    fn received(&self) -> Vec<Request> {
        self.received.lock().unwrap().clone()
    }
}

fn handle(stream: TcpStream, log: &Mutex<Vec<Request>>, reply: &Reply) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        reader.read_line(&mut h).unwrap();
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        let (name, value) = h.split_once(':').unwrap();
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
    }
    let length: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .map_or(0, |(_, v)| v.parse().unwrap());
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    log.lock().unwrap().push(Request {
        line: line.trim_end().to_string(),
        headers,
        body: String::from_utf8(body).unwrap(),
    });
    let response = match reply {
        Reply::Ok => {
            "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".to_string()
        }
        Reply::Redirect(to) => format!(
            "HTTP/1.1 302 Found\r\nLocation: {to}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        ),
        Reply::After(wait) => {
            thread::sleep(*wait);
            "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".to_string()
        }
    };
    let mut stream = stream;
    let _ = stream.write_all(response.as_bytes());
}

// -- rules and dispatch ------------------------------------------------------------

/// Compiles `rules` (lints at their defaults) and round-trips the table
/// through its bytes.
fn table(rules: &str) -> Table {
    let compiled = hookc::compile_str("t.hooks", rules)
        .unwrap_or_else(|d| panic!("rules do not compile:\n{d}"));
    Table::from_bytes(&compiled.table.to_bytes()).expect("table round-trips")
}

/// A rule on `tool.pre_execute` with `body`; the lint is allowed because
/// the test servers are on loopback.
fn rule(body: &str) -> String {
    format!("# hookc: allow(insecure-webhook)\nhook notify on tool.pre_execute at *::* {{\n{body}\n}}\n")
}

/// Test servers need the test allowance.
fn local() -> WebhookConfig {
    WebhookConfig::default().allow_loopback_http_for_tests()
}

fn context(payload: Value) -> HookContext {
    let mut ctx = HookContext::new("tool.pre_execute", "builtin::llm", payload);
    ctx.child_id = Some("agent-1".into());
    ctx.timestamp_ms = 1234;
    ctx.metadata.insert("ticket".into(), json!("OPS-7"));
    ctx
}

/// Dispatches `ctx` at `tool.pre_execute` for `builtin::llm/agent-1`.
fn dispatch(table: &Table, effects: &Effects, mut ctx: HookContext) -> Report {
    let mut scratch = table.scratch();
    let target = Target::new("builtin::llm").with_child("agent-1");
    let outcome = table.dispatch_with(&mut scratch, "tool.pre_execute", &target, &mut ctx, effects);
    outcome.report(&ctx)
}

fn flush(effects: &Effects) {
    assert!(
        effects.webhooks().flush(Duration::from_secs(20)),
        "deliveries still in flight"
    );
}

/// Gives a refused delivery time to arrive anyway (it must not).
fn settle() {
    thread::sleep(Duration::from_millis(200));
}

const SECRET: &str = "AKIA-SECRET-1234";

fn secret_payload() -> Value {
    json!({"tool": "run_shell", "args": format!("cat {SECRET}"), "n": [1, 2, 3]})
}

// -- the summary -------------------------------------------------------------------

#[test]
fn the_summary_has_the_documented_fields_and_no_payload_text() {
    let server = Server::start(Reply::Ok);
    let table = table(&rule(&format!("webhook \"{}\"", server.url("/hook?k=v"))));
    let effects = Effects::new().with_webhooks(local());
    let payload = secret_payload();
    let report = dispatch(&table, &effects, context(payload.clone()));
    assert_eq!(report.outcome, OutcomeKind::Continue);
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    flush(&effects);

    let got = server.received();
    assert_eq!(got.len(), 1);
    let request = &got[0];
    assert_eq!(request.line, "POST /hook?k=v HTTP/1.1");
    assert_eq!(request.header("content-type"), Some("application/json"));
    assert!(request.header("user-agent").unwrap().starts_with("hookc/"));
    assert!(!request.body.contains(SECRET), "{}", request.body);
    assert!(!request.body.contains("run_shell"), "{}", request.body);
    assert!(!request.body.contains("OPS-7"), "{}", request.body);

    let body = request.json();
    let keys: Vec<&str> = body
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "hook",
            "point",
            "timestamp_ms",
            "event_timestamp_ms",
            "target",
            "depth",
            "sizes",
            "fields"
        ]
    );
    assert_eq!(body["hook"], "notify");
    assert_eq!(body["point"], "tool.pre_execute");
    assert!(body["timestamp_ms"].as_u64().unwrap() > 1_600_000_000_000);
    assert_eq!(body["event_timestamp_ms"], 1234);
    assert_eq!(
        body["target"],
        json!({"component": "builtin::llm", "child": "agent-1", "instance": null})
    );
    assert_eq!(body["depth"], 0);
    assert_eq!(
        body["sizes"],
        json!({
            "payload_bytes": serde_json::to_string(&payload).unwrap().len(),
            "payload_keys": 3,
            "metadata_keys": 1,
        })
    );
    assert_eq!(body["fields"], json!({}));
    assert_eq!(effects.webhooks().stats().sent, 1);
}

#[test]
fn included_fields_are_in_the_summary() {
    let server = Server::start(Reply::Ok);
    let table = table(&rule(&format!(
        "webhook \"{}\" include payload.args, metadata.ticket, payload.n[1], principal.id, payload.missing",
        server.url("/")
    )));
    let effects = Effects::new().with_webhooks(local());
    dispatch(&table, &effects, context(secret_payload()));
    flush(&effects);
    let got = server.received();
    assert_eq!(got.len(), 1);
    assert!(got[0].body.contains(SECRET));
    assert_eq!(
        got[0].json()["fields"],
        json!({
            "payload.args": format!("cat {SECRET}"),
            "metadata.ticket": "OPS-7",
            "payload.n[1]": 2,
            "principal.id": "",
            "payload.missing": null,
        })
    );
}

#[test]
fn headers_arrive() {
    let server = Server::start(Reply::Ok);
    let table = table(&rule(&format!(
        "webhook \"{}\"\n    header \"X-Team\" \"ops\"\n    header \"X-Api-Key\" \"k-1\"",
        server.url("/")
    )));
    let effects = Effects::new().with_webhooks(local());
    dispatch(&table, &effects, context(json!({})));
    flush(&effects);
    let got = server.received();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].header("x-team"), Some("ops"));
    assert_eq!(got[0].header("x-api-key"), Some("k-1"));
}

// -- refusals, drops, failures: never the outcome ------------------------------------

#[test]
fn refused_headers_are_a_warning_and_nothing_is_sent() {
    let server = Server::start(Reply::Ok);
    let url = server.url("/");
    let table = table(&rule(&format!(
        "webhook \"{url}\" header \"Authorization\" \"Bearer x\"\n\
         webhook \"{url}\" header \"cookie\" \"a=b\"\n\
         webhook \"{url}\" header \"X-Forwarded-For\" \"1.2.3.4\"\n\
         webhook \"{url}\" header \"Host\" \"internal\"\n\
         webhook \"{url}\" header \"Transfer-Encoding\" \"chunked\"\n\
         webhook \"{url}\" header \"X-Team\" \"a\\r\\nHost: internal\""
    )));
    let effects = Effects::new().with_webhooks(local());
    let report = dispatch(&table, &effects, context(json!({})));
    assert_eq!(report.outcome, OutcomeKind::Continue);
    assert_eq!(report.warnings.len(), 6, "{:#?}", report.warnings);
    for (warning, needle) in report.warnings.iter().zip([
        "header `Authorization` may not be set: it carries credentials",
        "header `cookie` may not be set",
        "header `X-Forwarded-For` may not be set",
        "header `Host` may not be set",
        "header `Transfer-Encoding` may not be set",
        "the value of header `X-Team` has a line break",
    ]) {
        assert!(
            warning.starts_with("rule `notify`: webhook to http://127.0.0.1:"),
            "{warning}"
        );
        assert!(warning.contains(&format!("refused: {needle}")), "{warning}");
    }
    flush(&effects);
    settle();
    assert!(server.received().is_empty());
    assert_eq!(
        effects.webhooks().stats(),
        hookc::effects::WebhookStats {
            sent: 0,
            failed: 6,
            dropped: 0
        }
    );
}

#[test]
fn beyond_max_in_flight_the_event_is_dropped_with_a_warning() {
    let server = Server::start(Reply::After(Duration::from_millis(800)));
    let url = server.url("/");
    let table = table(&rule(&format!(
        "webhook \"{url}\"\nwebhook \"{url}\"\nwebhook \"{url}\""
    )));
    let effects = Effects::new().with_webhooks(local().with_max_in_flight(2));
    let report = dispatch(&table, &effects, context(json!({})));
    assert_eq!(report.outcome, OutcomeKind::Continue);
    assert_eq!(report.warnings.len(), 1, "{:?}", report.warnings);
    assert!(
        report.warnings[0].ends_with("dropped: 2 deliveries already in flight"),
        "{}",
        report.warnings[0]
    );
    assert_eq!(effects.webhooks().stats().dropped, 1);
    flush(&effects);
    assert_eq!(server.received().len(), 2);
    let stats = effects.webhooks().stats();
    assert_eq!((stats.sent, stats.failed, stats.dropped), (2, 0, 1));
    // Once the pool is quiet again there is room.
    dispatch(&table, &effects, context(json!({})));
    flush(&effects);
    assert_eq!(server.received().len(), 4);
    assert_eq!(effects.webhooks().stats().dropped, 2);
}

#[test]
fn deliveries_run_in_parallel_up_to_the_bound() {
    // Four deliveries that each take 1 s finish well before 4 × 1 s.
    let server = Server::start(Reply::After(Duration::from_secs(1)));
    let url = server.url("/");
    let table = table(&rule(&format!("webhook \"{url}\"\n").repeat(4)));
    let effects = Effects::new().with_webhooks(local().with_max_in_flight(4));
    let start = std::time::Instant::now();
    let report = dispatch(&table, &effects, context(json!({})));
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    assert!(
        start.elapsed() < Duration::from_millis(300),
        "dispatch waited for the network"
    );
    flush(&effects);
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(effects.webhooks().stats().sent, 4);
}

#[test]
fn redirects_are_not_followed() {
    let target = Server::start(Reply::Ok);
    let redirect = Server::start(Reply::Redirect(target.url("/stolen")));
    let table = table(&rule(&format!("webhook \"{}\"", redirect.url("/"))));
    let effects = Effects::new().with_webhooks(local());
    let report = dispatch(&table, &effects, context(json!({})));
    assert!(report.warnings.is_empty());
    flush(&effects);
    settle();
    assert_eq!(redirect.received().len(), 1);
    assert!(target.received().is_empty());
    // The 302 is the receiver's answer: delivered.
    assert_eq!(effects.webhooks().stats().sent, 1);
}

#[test]
fn a_timeout_is_a_failure() {
    let server = Server::start(Reply::After(Duration::from_secs(5)));
    let table = table(&rule(&format!("webhook \"{}\"", server.url("/"))));
    let effects = Effects::new().with_webhooks(local().with_timeout(Duration::from_millis(300)));
    let report = dispatch(&table, &effects, context(json!({})));
    // The failure happens in the background: the outcome never hears of it.
    assert_eq!(report.outcome, OutcomeKind::Continue);
    assert!(report.warnings.is_empty());
    let start = std::time::Instant::now();
    flush(&effects);
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "{:?}",
        start.elapsed()
    );
    let stats = effects.webhooks().stats();
    assert_eq!((stats.sent, stats.failed), (0, 1));
    assert_eq!(server.received().len(), 1);
}

#[test]
fn a_rules_timeout_overrides_the_pools() {
    let server = Server::start(Reply::After(Duration::from_secs(5)));
    let text = format!(
        "# hookc: allow(insecure-webhook)\nhook w on tool.pre_execute timeout 300ms {{\n    webhook \"{}\"\n}}\n",
        server.url("/")
    );
    let table = table(&text);
    // The pool would wait 30 s; the rule says 300 ms.
    let effects = Effects::new().with_webhooks(local().with_timeout(Duration::from_secs(30)));
    let report = dispatch(&table, &effects, context(json!({})));
    assert_eq!(report.outcome, OutcomeKind::Continue);
    let start = std::time::Instant::now();
    flush(&effects);
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(effects.webhooks().stats().failed, 1);
}

#[test]
fn a_webhook_never_changes_the_outcome() {
    // Slow enough that a delivery is still in flight when the next
    // webhook of the same rule is posted.
    let server = Server::start(Reply::After(Duration::from_millis(300)));
    let url = server.url("/");
    let effects = Effects::new().with_webhooks(local().with_max_in_flight(1));

    // Sent, then the rule aborts: the abort stands.
    let t = table(&rule(&format!("webhook \"{url}\"\nabort \"x\"")));
    let report = dispatch(&t, &effects, context(json!({})));
    assert_eq!(report.outcome, OutcomeKind::Abort);
    assert_eq!(report.reason.as_deref(), Some("x"));
    flush(&effects);

    // A webhook alone: continue, no decision, the payload untouched.
    let t = table(&rule(&format!("webhook \"{url}\" include payload.a")));
    let report = dispatch(&t, &effects, context(json!({"a": 1})));
    assert_eq!(report.outcome, OutcomeKind::Continue);
    assert_eq!(report.decision, None);
    assert_eq!(report.fired, ["notify"]);
    assert_eq!(report.context.payload, json!({"a": 1}));
    flush(&effects);

    // Refused and dropped webhooks in a `fail closed` rule are warnings,
    // not aborts.
    let t = table(&format!(
        "# hookc: allow(insecure-webhook)\n\
         hook notify on tool.pre_execute fail closed {{\n\
         webhook \"{url}\" header \"Cookie\" \"a\"\n\
         webhook \"https://localhost/\"\n\
         webhook \"{url}\"\n\
         webhook \"{url}\"\n\
         }}\n"
    ));
    let report = dispatch(&t, &effects, context(json!({})));
    assert_eq!(report.outcome, OutcomeKind::Continue, "{:?}", report.reason);
    assert_eq!(report.warnings.len(), 3, "{:#?}", report.warnings);
    assert!(report.warnings[2].ends_with("dropped: 1 deliveries already in flight"));
    flush(&effects);
    assert_eq!(server.received().len(), 3);
}

// -- the guard at send time ----------------------------------------------------------

#[test]
fn the_default_guard_refuses_local_destinations_when_sending() {
    let server = Server::start(Reply::Ok);
    let port = server.port();
    let urls = [
        format!("http://127.0.0.1:{port}/"),
        format!("https://127.0.0.1:{port}/"),
        format!("https://localhost:{port}/"),
        format!("https://LOCALHOST.:{port}/"),
        format!("https://api.localhost:{port}/"),
        format!("https://127.1:{port}/"),
        format!("https://2130706433:{port}/"),
        format!("https://0x7f.0.0.1:{port}/"),
        format!("https://[::1]:{port}/"),
        format!("https://[::ffff:127.0.0.1]:{port}/"),
        "https://169.254.169.254/latest/meta-data/".to_string(),
        "https://metadata.google.internal/".to_string(),
        "https://metadata.aws.internal/latest/meta-data/".to_string(),
        "https://METADATA.AWS.INTERNAL./".to_string(),
        "https://Instance-Data./latest/meta-data/".to_string(),
        "https://metadata.goog/".to_string(),
        "https://100.100.100.200/latest/meta-data/".to_string(),
        "https://[fd20:ce::254]/".to_string(),
        "https://user:pw@hooks.example.com/".to_string(),
    ];
    let body: String = urls.iter().map(|u| format!("webhook \"{u}\"\n")).collect();
    let table = table(&rule(&body));
    let effects = Effects::new();
    let report = dispatch(&table, &effects, context(json!({})));
    assert_eq!(report.outcome, OutcomeKind::Continue);
    assert_eq!(report.warnings.len(), urls.len(), "{:#?}", report.warnings);
    for w in &report.warnings {
        assert!(w.contains(" refused: "), "{w}");
        // Messages show the host, never a path or credentials.
        assert!(!w.contains("meta-data") && !w.contains("pw@"), "{w}");
    }
    flush(&effects);
    settle();
    assert!(server.received().is_empty());
    assert_eq!(effects.webhooks().stats().failed, urls.len() as u64);
}

#[test]
fn a_public_name_that_resolves_to_loopback_is_refused_after_resolution() {
    let server = Server::start(Reply::Ok);
    let url = format!("https://hooks.example.com:{}/x", server.port());
    assert!(hookc::net_guard::check_url(&url).is_ok());
    let table = table(&rule(&format!("webhook \"{url}\"")));
    // Stands in for DNS (no network): every name resolves to the server.
    fn rebind(netloc: &str) -> std::io::Result<Vec<SocketAddr>> {
        let port = netloc.rsplit_once(':').unwrap().1.parse().unwrap();
        Ok(vec![SocketAddr::from(([127, 0, 0, 1], port))])
    }
    for config in [WebhookConfig::default(), local()] {
        let effects = Effects::new().with_webhooks(config.lookup_for_tests(rebind));
        let report = dispatch(&table, &effects, context(json!({})));
        // Queued: the URL itself is fine.
        assert!(report.warnings.is_empty(), "{:?}", report.warnings);
        flush(&effects);
        let stats = effects.webhooks().stats();
        assert_eq!((stats.sent, stats.failed), (0, 1));
    }
    settle();
    assert!(server.received().is_empty());
}

#[test]
fn rule_files_cannot_switch_the_test_allowance_on() {
    let server = Server::start(Reply::Ok);
    let rules = format!(
        "hook notify on tool.pre_execute {{\n    webhook \"{}\"\n}}\n",
        server.url("/x")
    );
    // The lint refuses the URL...
    let Err(diags) = hookc::compile_str("t.hooks", &rules) else {
        panic!("the lint lets `http://127.0.0.1` through");
    };
    assert!(
        diags.iter().any(|d| d.code == "insecure-webhook"),
        "{diags}"
    );
    // ...and silencing it, inline or with a configured level, does not get
    // it sent: the default configuration refuses it at send time.
    let inline = table(&format!("# hookc: allow(insecure-webhook)\n{rules}"));
    let mut levels = hookc::check::lints::LintLevels::new();
    levels.set("insecure-webhook", hookc::check::lints::Level::Allow);
    let options = hookc::Options {
        lints: levels,
        ..hookc::Options::default()
    };
    let configured = hookc::compile_sources(
        vec![hookc::span::SourceFile::new("t.hooks", rules.as_str())],
        &options,
    )
    .unwrap();
    let configured = Table::from_bytes(&configured.table.to_bytes()).unwrap();
    for table in [&inline, &configured] {
        let effects = Effects::new();
        let report = dispatch(table, &effects, context(json!({})));
        assert_eq!(report.outcome, OutcomeKind::Continue);
        assert_eq!(report.warnings.len(), 1, "{:?}", report.warnings);
        assert!(
            report.warnings[0].contains("refused: scheme `http` is not `https`"),
            "{}",
            report.warnings[0]
        );
        // The process-wide default effects refuse it too.
        let mut ctx = context(json!({}));
        let report = table.dispatch_context(&mut ctx);
        assert_eq!(report.warnings.len(), 1, "{:?}", report.warnings);
    }
    settle();
    assert!(server.received().is_empty());
    // The default configuration does not have the allowance.
    assert!(!format!("{:?}", WebhookConfig::default()).contains("loopback"));
    assert!(format!("{:?}", local()).contains("loopback_http"));
}

#[test]
fn include_paths_are_checked_like_other_paths() {
    let rules = "hook n on tool.pre_execute {\n    webhook \"https://hooks.example.com/x\" include payload.tol, foo.bar\n}\n";
    let Err(diags) = hookc::compile_str("t.hooks", rules) else {
        panic!("an unknown context field compiles");
    };
    let found: Vec<(&str, &str)> = diags.iter().map(|d| (d.code, d.message.as_str())).collect();
    assert_eq!(
        found,
        [
            ("unknown-field", "unknown field `payload.tol`"),
            ("unknown-field", "unknown context field `foo`"),
        ]
    );
    // A header the guard refuses is a lint error too.
    let rules = "hook n on tool.pre_execute {\n    webhook \"https://hooks.example.com/x\" header \"Cookie\" \"a=b\"\n}\n";
    let Err(diags) = hookc::compile_str("t.hooks", rules) else {
        panic!("a refused header compiles");
    };
    assert!(
        diags.iter().any(|d| d.code == "insecure-webhook"
            && d.message
                == "insecure webhook: header `Cookie` may not be set: it carries credentials"),
        "{diags}"
    );
}

// -- the bounded flush before exit ---------------------------------------------------

#[test]
fn a_bounded_flush_delivers_what_it_can_and_reports_the_rest() {
    let fast = Server::start(Reply::Ok);
    let slow = Server::start(Reply::After(Duration::from_secs(10)));
    // A port nothing listens on: the connection is refused.
    let closed = TcpListener::bind("127.0.0.1:0").unwrap();
    let refused = format!("http://{}/hook/secret-token", closed.local_addr().unwrap());
    drop(closed);
    let text = format!(
        "{}{}{}",
        rule(&format!("    webhook \"{}\"", fast.url("/fast"))),
        rule(&format!("    webhook \"{}\"", slow.url("/slow"))).replace("notify", "notify-slow"),
        rule(&format!("    webhook \"{refused}\"")).replace("notify", "notify-refused"),
    );
    let table = table(&text);
    let effects = Effects::new().with_webhooks(local());
    let report = dispatch(&table, &effects, context(json!({})));
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);

    let start = std::time::Instant::now();
    let flushed = effects.flush_webhooks(Duration::from_millis(1500));
    let waited = start.elapsed();
    assert!(waited >= Duration::from_millis(1400), "{waited:?}");
    assert!(waited < Duration::from_secs(8), "{waited:?}");
    // The fast one arrived; the slow one is still in flight at the bound;
    // the refused one failed, with its rule and reason, and the URL as
    // messages show it (no path: it may hold a secret).
    assert_eq!(fast.received().len(), 1);
    assert_eq!(flushed.pending, 1, "{flushed:?}");
    assert_eq!(flushed.failed.len(), 1, "{flushed:?}");
    let failed = &flushed.failed[0];
    assert_eq!(failed.rule, "notify-refused");
    assert!(
        failed.url.ends_with("/…") && !failed.url.contains("secret"),
        "{failed:?}"
    );
    assert!(!failed.reason.is_empty());
    assert!(!flushed.is_clean());
    // A failure is reported once.
    assert!(effects.flush_webhooks(Duration::ZERO).failed.is_empty());
}

#[test]
fn a_flush_without_webhooks_is_clean_at_once() {
    let effects = Effects::new().with_webhooks(local());
    let flushed = effects.flush_webhooks(Duration::from_secs(30));
    assert!(flushed.is_clean());
}
