//! Per-key sliding-window event counts, for the `rate(…)` condition.
//!
//! `rate("{component}:{payload.operation}") > 100 per 60s` counts, for each
//! key the template renders to, the events that reached the condition in
//! the last 60 seconds, this one included. The window slides: an event
//! leaves the count exactly `window` after it arrived.
//!
//! Memory is bounded two ways:
//!
//! - per key, only the newest `keep` arrival times are kept, where `keep`
//!   is one more than the largest count the condition compares with. That
//!   is exact: if the newest `keep` arrivals are all in the window the count
//!   is over the threshold whatever came before; if one of them is not,
//!   every older arrival is out of the window too.
//! - at most `max_keys` keys: when a new key arrives at a full map, keys
//!   whose arrivals have all left the window are dropped, and if none has,
//!   the key seen least recently is.
//!
//! This is the in-memory store ([`RateStore::Memory`]), for a long-lived
//! host; [`crate::store`] has the stores shared by processes. The counters
//! live in a [`MemoryStore`] owned by the host's
//! [`Effects`](crate::Effects), not by a table: like a shared store, it
//! finds a counter by its key template and window, so every table
//! dispatched with the same effects counts together. Reloading a
//! [`Registry`](crate::Registry) therefore keeps every count whose
//! `rate(…)` the new table still has, even events counted by dispatches
//! still running on the old table; plain [`Table::dispatch`](crate::Table::dispatch)
//! counts in the process-wide store of [`Effects::global`](crate::Effects::global).
//! Counts are shared by every thread, behind one mutex per counter. Time is
//! the process's monotonic clock.
//!
//! [`RateStore::Memory`]: crate::store::RateStore::Memory

use super::Counter;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::{Duration, Instant};

/// The most keys one `rate(…)` counter tracks.
pub const MAX_KEYS: usize = 10_000;

/// The in-memory counters of every `rate(…)` a host's tables count, found
/// by key template and window. See the [module docs](self).
#[derive(Debug, Default)]
pub struct MemoryStore {
    counters: RwLock<HashMap<[u8; 16], Arc<RateCounter>>>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> MemoryStore {
        MemoryStore::default()
    }

    /// Records an event of `key` for `counter` at `now` and returns how
    /// many of the key's events are in the window, this one included (at
    /// most `counter.keep`). `id` is [`Counter::id`], computed once per
    /// table.
    pub(crate) fn hit(
        &self,
        id: [u8; 16],
        counter: &Counter<'_>,
        key: &str,
        now: Instant,
    ) -> usize {
        let found = self
            .counters
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&id)
            .cloned();
        let counter_of_id = match found {
            Some(c) => c,
            None => Arc::clone(
                self.counters
                    .write()
                    .unwrap_or_else(PoisonError::into_inner)
                    .entry(id)
                    .or_insert_with(|| {
                        Arc::new(RateCounter::new(
                            Duration::from_millis(counter.window_ms),
                            MAX_KEYS,
                        ))
                    }),
            ),
        };
        counter_of_id.hit(key, now, counter.keep as usize)
    }

    /// How many counters the store holds.
    pub fn len(&self) -> usize {
        self.counters
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// True when no `rate(…)` has counted here yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The counts of one key template and window.
#[derive(Debug)]
struct RateCounter {
    window: Duration,
    max_keys: usize,
    keys: Mutex<HashMap<String, VecDeque<Instant>>>,
}

impl RateCounter {
    /// Counts over `window`, for at most `max_keys` keys.
    fn new(window: Duration, max_keys: usize) -> RateCounter {
        RateCounter {
            window,
            max_keys: max_keys.max(1),
            keys: Mutex::new(HashMap::new()),
        }
    }

    /// Records an event for `key` at `now` and returns how many events of
    /// the key are in the window ending at `now`, this one included (at
    /// most `keep`: the tests of one table need no more to be exact; a
    /// table whose tests need more sees the older arrivals again only as
    /// new ones come).
    fn hit(&self, key: &str, now: Instant, keep: usize) -> usize {
        let keep = keep.max(1);
        let mut keys = self.keys.lock().unwrap_or_else(PoisonError::into_inner);
        if !keys.contains_key(key) && keys.len() >= self.max_keys {
            self.make_room(&mut keys, now);
        }
        let arrivals = keys.entry(key.to_string()).or_default();
        arrivals.push_back(now);
        while arrivals.len() > keep {
            arrivals.pop_front();
        }
        while arrivals
            .front()
            .is_some_and(|&t| now.saturating_duration_since(t) >= self.window)
        {
            arrivals.pop_front();
        }
        arrivals.len()
    }

    /// How many keys are tracked.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.keys.lock().map_or(0, |k| k.len())
    }

    /// Drops expired keys, or else the least recently seen one.
    fn make_room(&self, keys: &mut HashMap<String, VecDeque<Instant>>, now: Instant) {
        let window = self.window;
        keys.retain(|_, arrivals| {
            arrivals
                .back()
                .is_some_and(|&t| now.saturating_duration_since(t) < window)
        });
        if keys.len() < self.max_keys {
            return;
        }
        let oldest = keys
            .iter()
            .min_by_key(|(_, arrivals)| arrivals.back().copied())
            .map(|(key, _)| key.clone());
        if let Some(key) = oldest {
            keys.remove(&key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Template, TemplatePart};

    fn at(start: Instant, ms: u64) -> Instant {
        start + Duration::from_millis(ms)
    }

    #[test]
    fn counts_slide_with_the_window() {
        let counter = RateCounter::new(Duration::from_millis(1000), 100);
        let t = Instant::now();
        let hit = |key, ms| counter.hit(key, at(t, ms), 10);
        assert_eq!(hit("k", 0), 1);
        assert_eq!(hit("k", 400), 2);
        assert_eq!(hit("k", 900), 3);
        // The first event leaves exactly one window after it came.
        assert_eq!(hit("k", 1000), 3);
        assert_eq!(hit("k", 1399), 4);
        assert_eq!(hit("k", 1400), 4);
        assert_eq!(hit("other", 1400), 1, "keys count apart");
        assert_eq!(hit("k", 5000), 1);
    }

    #[test]
    fn keeping_the_newest_arrivals_is_exact_at_the_threshold() {
        // A condition `> 3` keeps 4 arrivals.
        let counter = RateCounter::new(Duration::from_millis(100), 10);
        let t = Instant::now();
        let counts: Vec<usize> = (0..8).map(|i| counter.hit("k", at(t, i), 4)).collect();
        assert_eq!(counts, [1, 2, 3, 4, 4, 4, 4, 4]);
        // Long after, the count starts again.
        assert_eq!(counter.hit("k", at(t, 500), 4), 1);
    }

    #[test]
    fn the_store_finds_a_counter_by_template_and_window() {
        let template = |text: &str| Template {
            parts: vec![TemplatePart::Lit(text.to_string())],
        };
        let (a, b) = (template("a"), template("b"));
        let counter = |template, window_ms, keep| Counter {
            template,
            window_ms,
            keep,
        };
        let store = MemoryStore::new();
        let t = Instant::now();
        let hit = |c: Counter<'_>, ms| store.hit(c.id(), &c, "k", at(t, ms));
        assert_eq!(hit(counter(&a, 1000, 10), 0), 1);
        // Another table's test with the same template and window, a higher
        // limit: the same counts.
        assert_eq!(hit(counter(&a, 1000, 20), 1), 2);
        // Another template, another window: counters of their own.
        assert_eq!(hit(counter(&b, 1000, 10), 2), 1);
        assert_eq!(hit(counter(&a, 500, 10), 3), 1);
        assert_eq!(store.len(), 3);
        // A lower limit keeps fewer arrivals from then on.
        assert_eq!(hit(counter(&a, 1000, 2), 4), 2);
        assert_eq!(hit(counter(&a, 1000, 10), 5), 3);
    }

    #[test]
    fn the_key_map_is_bounded() {
        let counter = RateCounter::new(Duration::from_millis(100), 3);
        let t = Instant::now();
        let hit = |key, ms| counter.hit(key, at(t, ms), 2);
        for (i, key) in ["a", "b", "c"].into_iter().enumerate() {
            hit(key, i as u64);
        }
        // Full, none expired: the least recently seen (`a`) goes.
        hit("d", 10);
        assert_eq!(counter.len(), 3);
        assert_eq!(hit("b", 11), 2, "`b` was kept");
        assert_eq!(hit("a", 12), 1, "`a` was dropped");
        // Later, every key has expired: all of them make room at once.
        hit("e", 1000);
        assert_eq!(counter.len(), 1);
    }
}
