//! What the commands that dispatch share about effects: durations on the
//! command line, and the bounded webhook flush before the process exits
//! (a process that exits takes its webhook senders with it).

use crate::Effects;
use std::time::Duration;

/// The environment variable that bounds the webhook flush at exit.
pub(crate) const FLUSH_VAR: &str = "HOOKC_WEBHOOK_FLUSH";

/// How long a command waits for its webhooks by default.
pub(crate) const DEFAULT_FLUSH: Duration = Duration::from_secs(2);

/// Parses `500ms`, `2s`, `1m` (a number and a unit; `0` alone is zero).
pub(crate) fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    if text == "0" {
        return Ok(Duration::ZERO);
    }
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (digits, unit) = text.split_at(split);
    let n: u64 = digits.parse().map_err(|_| {
        format!("`{text}` is not a duration: write a number and a unit, e.g. `5s` or `500ms`")
    })?;
    match unit {
        "ms" => Ok(Duration::from_millis(n)),
        "s" => Ok(Duration::from_secs(n)),
        "m" => Ok(Duration::from_secs(n.saturating_mul(60))),
        _ => Err(format!(
            "`{text}` is not a duration: the unit is `ms`, `s` or `m`, e.g. `5s`"
        )),
    }
}

/// The bound of the webhook flush: `HOOKC_WEBHOOK_FLUSH`, else 2 s. A value
/// that is not a duration is reported in the returned note and ignored.
pub(crate) fn flush_bound() -> (Duration, Option<String>) {
    match std::env::var(FLUSH_VAR) {
        Ok(text) if !text.trim().is_empty() => match parse_duration(&text) {
            Ok(bound) => (bound, None),
            Err(e) => (
                DEFAULT_FLUSH,
                Some(format!("hookc: {FLUSH_VAR} ignored: {e}\n")),
            ),
        },
        _ => (DEFAULT_FLUSH, None),
    }
}

/// Waits at most `bound` for the webhooks `effects` queued; what did not
/// arrive, as stderr lines (empty when everything did).
pub(crate) fn flush_webhooks(effects: &Effects, bound: Duration) -> String {
    let report = effects.flush_webhooks(bound);
    let mut notes = String::new();
    for failed in &report.failed {
        notes.push_str(&format!(
            "hookc: webhook of rule `{}` to {} not delivered: {}\n",
            failed.rule, failed.url, failed.reason
        ));
    }
    if report.pending > 0 {
        notes.push_str(&format!(
            "hookc: {} not delivered: still in flight after {} ({FLUSH_VAR} waits longer)\n",
            super::plural(report.pending, "webhook", "webhooks"),
            shown(bound)
        ));
    }
    notes
}

/// `2s`, `1500ms`.
pub(crate) fn shown(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{}ms", d.as_millis())
    }
}

/// Flushes the process-wide effects' webhooks (what `eval`, `explain` and
/// `test` dispatch with) and prints what did not arrive on stderr.
pub(crate) fn flush_global() {
    let (bound, note) = flush_bound();
    let mut text = note.unwrap_or_default();
    text.push_str(&flush_webhooks(Effects::global(), bound));
    if !text.is_empty() {
        super::print_stderr(&text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("5s"), Ok(Duration::from_secs(5)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("0"), Ok(Duration::ZERO));
        for bad in ["", "s", "5", "5 s", "-1s", "1.5s", "5h"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
        assert_eq!(shown(Duration::from_millis(1500)), "1500ms");
        assert_eq!(shown(Duration::from_secs(2)), "2s");
    }
}
