//! Which store `hookc claude` keeps `rate(…)` counts in.
//!
//! `hookc claude` runs once per event, so counts kept in its memory would
//! die with each event. The store is, first found: `--rate-store`,
//! `HOOKC_RATE_STORE`, the `[rate] store` of the `hookc.toml` found from the
//! rules' directory upward (as `hookc lint` finds it), else `file`: the
//! project's `.hookc/state/rates` (the project is `CLAUDE_PROJECT_DIR`, else
//! the event's `cwd`). A store that is named but cannot be used (a value
//! that is not a store, `file` with no project) is
//! [`RateStore::Unavailable`]: each `rate(…)` rule then fails by its
//! failure mode, and the other rules run as usual. Nothing here is read
//! unless the table has `rate(…)` conditions.

use crate::store::{RateStore, StoreError, StoreSpec};
use crate::systems::claude_code::protocol::Event;
use std::path::{Path, PathBuf};

/// The environment variable that names the store when no flag does.
pub(crate) const STORE_VAR: &str = "HOOKC_RATE_STORE";

/// The store for an event: see the [module docs](self). `flag` is
/// `--rate-store`; `rules` the table file or the `.hooks` path.
pub(crate) fn for_event(flag: Option<&str>, rules: &Path, event: &Event) -> RateStore {
    let project = std::env::var_os("CLAUDE_PROJECT_DIR")
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
        .or_else(|| event.cwd().filter(|cwd| !cwd.is_empty()).map(PathBuf::from));
    let env = std::env::var(STORE_VAR)
        .ok()
        .filter(|s| !s.trim().is_empty());
    let (text, origin) = if let Some(flag) = flag {
        (flag.to_string(), "`--rate-store`".to_string())
    } else if let Some(env) = env {
        (env, format!("`{STORE_VAR}`"))
    } else if let Some((text, file)) = configured(rules) {
        (text, format!("`{}`", file.display()))
    } else {
        return RateStore::from_spec(&StoreSpec::File, project.as_deref());
    };
    match StoreSpec::parse(&text) {
        Ok(spec) => RateStore::from_spec(&spec, project.as_deref()),
        Err(message) => RateStore::Unavailable(StoreError::new(
            format!("the store {origin} names"),
            message,
        )),
    }
}

/// The `[rate] store` of the `hookc.toml` found from `rules` upward, with
/// the file's path.
fn configured(rules: &Path) -> Option<(String, PathBuf)> {
    let file = crate::config::Config::find(rules)?;
    let (config, _) = crate::config::Config::load(&file);
    Some((config.rate_store?, file))
}

/// A note for stderr (Claude Code's debug log) when counts are kept in
/// memory, where they never pass one event.
pub(crate) fn note(store: &RateStore) -> Option<String> {
    store.is_memory().then(|| {
        "hookc: note: `rate(…)` counts are kept in memory: each `hookc claude` process counts only its own event\n".to_string()
    })
}
