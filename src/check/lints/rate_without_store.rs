//! `rate-without-store`: a `rate(…)` for a host that runs one process per
//! event, with no store shared by those processes configured.

use super::walk;
use super::{declare_lint, Cx, Sink};
use crate::diag::Diagnostic;
use crate::store::StoreSpec;
use crate::syntax::ast;

declare_lint! {
    /// ## What it does
    /// Finds `rate(…)` conditions in rules for a host that runs one process
    /// per event (the `claude-code` schema: `hookc claude`) when the
    /// `[rate] store` of `hookc.toml` does not name a store shared by those
    /// processes: it names none, or `memory`.
    ///
    /// ## Why is this bad?
    /// A count kept in memory dies with the process, so under a host of one
    /// process per event it never passes 1 and the limit is never reached.
    /// Without a setting, `hookc claude` counts in the project's
    /// `.hookc/state/rates` file, which the processes of one machine share;
    /// but the file is as safe as the project directory (an agent that may
    /// write there may reset it), and a fleet of machines needs Redis. Say
    /// which store the rules are meant for, so that `hookc lint`, `hookc
    /// claude` and the people who read `hookc.toml` agree.
    ///
    /// ## Example
    /// ```text
    /// schema claude-code
    ///
    /// hook too-many-shells on PreToolUse {
    ///     when payload.tool_name == "Bash"
    ///     when rate("bash") > 30 per 60s
    ///     deny "more than 30 shell commands a minute"
    /// }
    /// ```
    ///
    /// With this in `hookc.toml` the count is shared, and the lint is quiet:
    ///
    /// ```toml
    /// [rate]
    /// store = "file"   # or "redis://host:6379/0" for many machines
    /// ```
    ///
    /// Rules for a long-lived host that uses the `claude-code` schema can
    /// say so with `# hookc: allow(rate-without-store)`.
    pub static RATE_WITHOUT_STORE = "rate-without-store", Warn, check;
}

fn check(cx: &Cx<'_>, sink: &mut Sink<'_>) {
    if cx.schema.name != crate::systems::claude_code::schema::NAME {
        return;
    }
    let (message, label, help) = match cx.rate_store {
        Some(StoreSpec::File | StoreSpec::Redis(_)) => return,
        Some(StoreSpec::Memory) => (
            "is counted in memory, but `hookc claude` runs one process per event: the count never passes 1",
            "counted in one process only",
            "set `[rate] store` in `hookc.toml` to `\"file\"` (the processes of one machine) or a `redis://` URL (many machines)",
        ),
        None => (
            "needs a store shared by `hookc claude`'s processes, and `hookc.toml` names none",
            "needs a store shared by processes",
            "`hookc claude` runs one process per event and counts in the project's `.hookc/state/rates` unless told otherwise: set `[rate] store` in `hookc.toml` to `\"file\"` (the processes of one machine) or a `redis://` URL (many machines)",
        ),
    };
    for rule in cx.rules {
        let Some(hook) = cx.hook(rule) else { continue };
        let mut rates: Vec<(usize, &ast::Expr)> = Vec::new();
        walk::conditions_through_macros(cx.loaded, cx.scopes, rule.file, hook, &mut |file, e| {
            if let ast::ExprKind::Rate(_) = &e.kind {
                rates.push((file, e));
            }
        });
        for (file, e) in rates {
            let d = Diagnostic::warning(
                RATE_WITHOUT_STORE.code,
                format!("`rate(…)` of rule `{}` {message}", rule.id),
            )
            .with_primary(e.span, label)
            .with_help(help);
            let d = match cx.source(file) {
                Some(src) => d.in_file(src),
                None => d,
            };
            sink.report(&RATE_WITHOUT_STORE, file, &[(rule.file, rule.span)], d);
        }
    }
}
