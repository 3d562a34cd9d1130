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
//! host; [`crate::store`] has the stores shared by processes. Counts are
//! shared by every thread dispatching with the same counters, behind one
//! mutex per counter. Plain [`Table::dispatch`](crate::Table::dispatch)
//! counts in the table's own counters, which start empty when it is loaded;
//! a [`Registry`](crate::Registry) holds the counters it dispatches with and
//! on [`reload`](crate::Registry::reload) keeps each one whose key template
//! and window the new table still has ([`carry_over`]), so that editing a
//! policy does not reset its limits. Time is the process's monotonic clock.
//!
//! [`RateStore::Memory`]: crate::store::RateStore::Memory

use crate::ir::{Atom, Program, Template};
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// The most keys one `rate(…)` counter tracks.
pub const MAX_KEYS: usize = 10_000;

/// The counts of one `rate(…) … per …` condition.
#[derive(Debug)]
pub(crate) struct RateCounter {
    window: Duration,
    keep: usize,
    max_keys: usize,
    keys: Mutex<HashMap<String, VecDeque<Instant>>>,
}

impl RateCounter {
    /// Counts over `window`, exact up to `keep - 1` events per key.
    pub(crate) fn new(window: Duration, keep: usize, max_keys: usize) -> RateCounter {
        RateCounter {
            window,
            keep: keep.max(1),
            max_keys: max_keys.max(1),
            keys: Mutex::new(HashMap::new()),
        }
    }

    /// Records an event for `key` at `now` and returns how many events of
    /// the key are in the window ending at `now`, this one included (at
    /// most `keep`).
    pub(crate) fn hit(&self, key: &str, now: Instant) -> usize {
        let mut keys = self.keys.lock().unwrap_or_else(PoisonError::into_inner);
        if !keys.contains_key(key) && keys.len() >= self.max_keys {
            self.make_room(&mut keys, now);
        }
        let arrivals = keys.entry(key.to_string()).or_default();
        arrivals.push_back(now);
        while arrivals.len() > self.keep {
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

    /// Takes over the counts of `old`, a counter of the same key template
    /// and window in the table this one replaces: each key keeps its newest
    /// `keep` arrivals, and at most `max_keys` keys (the most recently seen)
    /// are taken. Events `old` records after this call are not seen here.
    pub(crate) fn carry_from(&self, old: &RateCounter) {
        if old.window != self.window {
            return;
        }
        let mut taken: Vec<(String, VecDeque<Instant>)> = {
            let old = old.keys.lock().unwrap_or_else(PoisonError::into_inner);
            old.iter()
                .map(|(key, arrivals)| {
                    let skip = arrivals.len().saturating_sub(self.keep);
                    (key.clone(), arrivals.iter().skip(skip).copied().collect())
                })
                .collect()
        };
        if taken.len() > self.max_keys {
            // Newest last arrival first.
            taken.sort_by(|a, b| b.1.back().cmp(&a.1.back()));
            taken.truncate(self.max_keys);
        }
        let mut keys = self.keys.lock().unwrap_or_else(PoisonError::into_inner);
        keys.extend(taken);
    }

    /// True when `other` counts the same way: the same window, arrivals
    /// kept and key bound.
    fn same_shape(&self, other: &RateCounter) -> bool {
        self.window == other.window && self.keep == other.keep && self.max_keys == other.max_keys
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

/// The counters a registry dispatches `new` (whose own are `own`) with after `old`, whose
/// dispatches used `counters`: per counter of `new`, the one of `counters`
/// with the same key template and window when it also keeps as many
/// arrivals (so no event is lost, even one counted on the old table while
/// the new one is swapped in); otherwise the new table's own counter, given
/// the old counter's arrivals when there is one.
pub(crate) fn carry_over(
    new: &Program,
    own: &[Arc<RateCounter>],
    old: &Program,
    counters: &[Arc<RateCounter>],
) -> Vec<Arc<RateCounter>> {
    let old_keys = rate_keys(old);
    let new_keys = rate_keys(new);
    own.iter()
        .enumerate()
        .map(|(i, counter)| {
            let previous = new_keys
                .get(i)
                .copied()
                .flatten()
                .and_then(|key| old_keys.iter().position(|k| *k == Some(key)))
                .and_then(|j| counters.get(j));
            match previous {
                Some(previous) if previous.same_shape(counter) => Arc::clone(previous),
                Some(previous) => {
                    if !Arc::ptr_eq(previous, counter) {
                        counter.carry_from(previous);
                    }
                    Arc::clone(counter)
                }
                None => Arc::clone(counter),
            }
        })
        .collect()
}

/// Per counter of `program`, its key template and window (`None` for a
/// counter no test uses, which a compiled program does not have).
fn rate_keys(program: &Program) -> Vec<Option<(&Template, u64)>> {
    let mut keys = vec![None; program.rates.len()];
    for atom in program.points.iter().flat_map(|p| &p.atoms) {
        if let Atom::Rate(test) = atom {
            if let Some(slot) = keys.get_mut(test.counter as usize) {
                *slot = Some((&test.key, test.window_ms));
            }
        }
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(start: Instant, ms: u64) -> Instant {
        start + Duration::from_millis(ms)
    }

    #[test]
    fn counts_slide_with_the_window() {
        let counter = RateCounter::new(Duration::from_millis(1000), 10, 100);
        let t = Instant::now();
        assert_eq!(counter.hit("k", at(t, 0)), 1);
        assert_eq!(counter.hit("k", at(t, 400)), 2);
        assert_eq!(counter.hit("k", at(t, 900)), 3);
        // The first event leaves exactly one window after it came.
        assert_eq!(counter.hit("k", at(t, 1000)), 3);
        assert_eq!(counter.hit("k", at(t, 1399)), 4);
        assert_eq!(counter.hit("k", at(t, 1400)), 4);
        assert_eq!(counter.hit("other", at(t, 1400)), 1, "keys count apart");
        assert_eq!(counter.hit("k", at(t, 5000)), 1);
    }

    #[test]
    fn keeping_the_newest_arrivals_is_exact_at_the_threshold() {
        // A condition `> 3` keeps 4 arrivals.
        let counter = RateCounter::new(Duration::from_millis(100), 4, 10);
        let t = Instant::now();
        let counts: Vec<usize> = (0..8).map(|i| counter.hit("k", at(t, i))).collect();
        assert_eq!(counts, [1, 2, 3, 4, 4, 4, 4, 4]);
        // Long after, the count starts again.
        assert_eq!(counter.hit("k", at(t, 500)), 1);
    }

    #[test]
    fn counts_carry_over_to_a_counter_of_the_same_window() {
        let t = Instant::now();
        let old = RateCounter::new(Duration::from_millis(1000), 10, 100);
        for i in 0..5 {
            old.hit("k", at(t, i));
        }
        old.hit("gone", at(t, 0));
        // Keeps fewer arrivals and fewer keys: the newest survive.
        let new = RateCounter::new(Duration::from_millis(1000), 3, 1);
        new.carry_from(&old);
        assert_eq!(new.len(), 1);
        assert_eq!(new.hit("k", at(t, 10)), 3);
        assert_eq!(new.hit("gone", at(t, 10)), 1);
        // Another window: nothing is carried.
        let other = RateCounter::new(Duration::from_millis(500), 10, 100);
        other.carry_from(&old);
        assert_eq!(other.len(), 0);
    }

    #[cfg(feature = "compiler")]
    #[test]
    fn a_registry_keeps_the_very_counter_when_the_new_table_counts_alike() {
        let table = |limit: u32, extra: &str| {
            crate::compile_str(
                "r.hooks",
                &format!(
                    "hook a on tool.pre_execute {{ when rate(\"{{component}}\") > {limit} per 1m abort }}\n{extra}"
                ),
            )
            .map(|c| c.table)
            .map_err(|d| d.to_string())
        };
        let old = table(3, "").unwrap();
        let t = Instant::now();
        let counters = old.loaded().rates.clone();
        for i in 0..3 {
            counters[0].hit("k", at(t, i));
        }
        // Another rule, same counter shape: the very counter goes on.
        let same = table(
            3,
            "hook b on tool.post_execute { when rate(\"x\") > 1 per 1s abort }",
        )
        .unwrap();
        let kept = carry_over(
            same.program(),
            &same.loaded().rates,
            old.program(),
            &counters,
        );
        assert_eq!(kept.len(), 2);
        let (very, new): (Vec<_>, Vec<_>) = kept.iter().partition(|c| Arc::ptr_eq(c, &counters[0]));
        assert_eq!((very.len(), new.len()), (1, 1));
        assert_eq!(new[0].len(), 0, "a new counter starts empty");
        // A higher limit keeps more arrivals: the new table's counter, with
        // the old arrivals.
        let higher = table(10, "").unwrap();
        let moved = carry_over(
            higher.program(),
            &higher.loaded().rates,
            old.program(),
            &counters,
        );
        assert!(Arc::ptr_eq(&moved[0], &higher.loaded().rates[0]));
        assert_eq!(moved[0].hit("k", at(t, 10)), 4);
    }

    #[test]
    fn the_key_map_is_bounded() {
        let counter = RateCounter::new(Duration::from_millis(100), 2, 3);
        let t = Instant::now();
        for (i, key) in ["a", "b", "c"].into_iter().enumerate() {
            counter.hit(key, at(t, i as u64));
        }
        // Full, none expired: the least recently seen (`a`) goes.
        counter.hit("d", at(t, 10));
        assert_eq!(counter.len(), 3);
        assert_eq!(counter.hit("b", at(t, 11)), 2, "`b` was kept");
        assert_eq!(counter.hit("a", at(t, 12)), 1, "`a` was dropped");
        // Later, every key has expired: all of them make room at once.
        counter.hit("e", at(t, 1000));
        assert_eq!(counter.len(), 1);
    }
}
