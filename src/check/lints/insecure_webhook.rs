//! `insecure-webhook`: a webhook URL that is not https or reaches an
//! internal host, or a header a webhook may not set.

use super::{declare_lint, Cx, Sink};
use crate::diag::Diagnostic;
use crate::net_guard::{self, HeaderError, UrlError};
use crate::syntax::ast;

declare_lint! {
    /// ## What it does
    /// Finds `webhook` URLs that are not `https://`, carry credentials
    /// (`user:password@`), or name a host that is not public.
    ///
    /// Refused hosts are names of the local machine or a metadata service (`localhost`,
    /// `*.localhost`, `host.docker.internal`, `metadata.google.internal`,
    /// `metadata.aws.internal`, `instance-data`, …, in any case, with or
    /// without a trailing dot), the metadata addresses of the clouds
    /// (`169.254.169.254`, `168.63.129.16`, `100.100.100.200`, …)
    /// and IP addresses in loopback, private, link-local, shared (CGN
    /// `100.64.0.0/10`), benchmarking, documentation, multicast, broadcast,
    /// reserved or unspecified ranges, IPv6 unique-local and link-local
    /// addresses, and IPv6 forms that embed such an IPv4 address
    /// (`::ffff:127.0.0.1`). Numeric hosts are decoded as URL parsers decode
    /// them: `2130706433`, `127.1` and `0x7f.0.0.1` are all `127.0.0.1`.
    ///
    /// The lint sees only what the URL says: a public name that resolves to
    /// an internal address can only be caught when the webhook is sent, by
    /// checking each resolved address with the same rules
    /// (`hookc::net_guard::check_ip`). It is an error by default.
    ///
    /// It also finds `header` clauses a webhook may not send: `Host`,
    /// `Authorization`, `Proxy-Authorization`, `Cookie`, `Forwarded`,
    /// `X-Forwarded-*`, `X-Real-IP`, `Proxy-*`, `Connection`,
    /// `Transfer-Encoding` and the other headers that frame the message,
    /// whatever their case; names that are not HTTP tokens; and values
    /// with a line break.
    ///
    /// Allowing the lint does not make such a webhook work: the runtime
    /// checks the URL, the headers and every resolved address again when
    /// it sends, and refuses with a warning.
    ///
    /// ## Why is this bad?
    /// A webhook posts event data (tool arguments, results, who asked) to
    /// the URL. Over plain `http` anyone on the path can read it. A URL that
    /// reaches the machine itself, its network or a cloud metadata service
    /// lets whoever writes rules probe internal services from inside the
    /// host (server-side request forgery), and credentials in a URL end up in
    /// logs. The refused headers would put credentials in rule files, fake
    /// where the request comes from, or change how the receiver reads the
    /// request.
    ///
    /// ## Example
    /// ```text
    /// hook notify on tool.post_execute {
    ///     webhook "http://169.254.169.254/latest/meta-data/"
    /// }
    /// ```
    ///
    /// Post to a public `https://` endpoint that you control; name the
    /// sender with a custom header such as `header "X-Team" "ops"`.
    pub static INSECURE_WEBHOOK = "insecure-webhook", Deny, check;
}

fn check(cx: &Cx<'_>, sink: &mut Sink<'_>) {
    for (fi, file) in cx.roots() {
        for item in &file.ast.items {
            let ast::Item::Hook(hook) = item else {
                continue;
            };
            for action in &hook.actions {
                let ast::ActionKind::Webhook(webhook) = &action.kind else {
                    continue;
                };
                for (name, value) in &webhook.headers {
                    let Err(e) = net_guard::check_header(&name.value, &value.value) else {
                        continue;
                    };
                    let (span, help) = match &e {
                        HeaderError::Refused { .. } => (
                            name.span,
                            "webhooks may not send credentials, client addresses, `Host` or headers that frame the message; put what the receiver needs in a custom header such as `X-Team`",
                        ),
                        HeaderError::InvalidValue { .. } => (
                            value.span,
                            "a header value is one line of text",
                        ),
                        _ => (
                            name.span,
                            "header names are letters, digits and `-`, such as `X-Team`",
                        ),
                    };
                    let d =
                        Diagnostic::error(INSECURE_WEBHOOK.code, format!("insecure webhook: {e}"))
                            .with_primary(span, "refused")
                            .with_help(help);
                    sink.report(&INSECURE_WEBHOOK, fi, &[(fi, hook.header_span)], d);
                }
                let url = &webhook.url;
                let Err(e) = net_guard::check_url(&url.value) else {
                    continue;
                };
                let help = match &e {
                    UrlError::NotAbsolute | UrlError::NotHttps { .. } => {
                        "webhooks must use `https://`, so the event data is encrypted in transit"
                    }
                    UrlError::UserInfo => {
                        "credentials in a URL end up in logs; configure them on the receiving side"
                    }
                    UrlError::RefusedName { .. } | UrlError::RefusedAddress { .. } => {
                        "webhooks may not reach the local machine, internal networks or metadata services; post to a public host"
                    }
                    _ => "write a URL such as `https://hooks.example.com/notify`",
                };
                let d = Diagnostic::error(INSECURE_WEBHOOK.code, format!("insecure webhook: {e}"))
                    .with_primary(url.span, "refused")
                    .with_help(help);
                sink.report(&INSECURE_WEBHOOK, fi, &[(fi, hook.header_span)], d);
            }
        }
    }
}
