//! Shell views computed once per dispatch: several rules read the same
//! command, and each `shell(…)` of theirs would parse it again. Rules read
//! the typed [`View`](super::View) in place (its commands, their words and
//! redirections borrowed): no JSON is built for them.
//!
//! The cache outlives its dispatches: [`Views::clear`] gives the views'
//! strings and lists back to its [`Buffers`], and the next dispatch parses
//! into them. After one dispatch has parsed a command, a dispatch whose
//! commands need no more buffers of each size class (the same command, or
//! smaller ones) parses without allocating; the buffers kept are bounded by
//! [`RETAINED`].

use super::{Buffers, View};
use std::cell::{OnceCell, RefCell};

/// How many distinct command strings a dispatch keeps the views of; a
/// further one is parsed each time it is read.
pub const CACHED_VIEWS: usize = 4;

/// The most bytes of buffers the cache keeps from one dispatch to the next:
/// above it (after a command far larger than those a host usually sees),
/// they are freed and the next dispatch starts cold.
pub const RETAINED: usize = 4 << 20;

/// The views of the command strings a dispatch has read, keyed by the text
/// itself (an edit that changes a command changes the key, so an entry is
/// never stale within a dispatch), and the buffers they are parsed into.
#[derive(Debug, Default)]
pub struct Views {
    slots: [OnceCell<(String, View)>; CACHED_VIEWS],
    /// Made at the first parse (a dispatch that reads no shell view, or a
    /// scratch used once, never pays for them).
    buffers: RefCell<Option<Box<Buffers>>>,
}

/// A clone holds the same views, and no buffers.
impl Clone for Views {
    fn clone(&self) -> Self {
        Views {
            slots: self.slots.clone(),
            buffers: RefCell::default(),
        }
    }
}

impl Views {
    /// The view of `text`: borrowed from the cache when it holds it or has
    /// a free slot for it, `Err` with a fresh view when every slot holds
    /// another text.
    pub fn get(&self, text: &str) -> Result<&View, View> {
        for slot in &self.slots {
            if let Some((key, view)) = slot.get() {
                if key == text {
                    return Ok(view);
                }
                continue;
            }
            // Parsing never reads the cache, so the buffers are free.
            let Ok(mut buffers) = self.buffers.try_borrow_mut() else {
                break;
            };
            let buffers = buffers.get_or_insert_with(Box::default);
            let key = buffers.copy(text);
            let view = buffers.parse(text);
            return Ok(&slot.get_or_init(|| (key, view)).1);
        }
        Err(super::parse(text))
    }

    /// True when no view was computed since the last [`clear`](Self::clear).
    pub fn is_empty(&self) -> bool {
        self.slots.iter().all(|slot| slot.get().is_none())
    }

    /// Forgets every view (a new dispatch starts), keeping their memory for
    /// the next ones unless it holds more than `RETAINED` (4 MiB) bytes.
    #[inline]
    pub fn clear(&mut self) {
        // Slots fill in order (`get` takes the first free one): an empty
        // first slot means no view since the last clear, as in most
        // dispatches, which read no shell view.
        if self.slots.first().is_some_and(|slot| slot.get().is_some()) {
            self.recycle();
        }
    }

    /// [`clear`](Self::clear) of a cache that holds views.
    #[cold]
    fn recycle(&mut self) {
        let buffers = self.buffers.get_mut();
        for slot in &mut self.slots {
            if let Some((key, view)) = slot.take() {
                let buffers = buffers.get_or_insert_with(Box::default);
                buffers.recycle_string(key);
                buffers.recycle(view);
            }
        }
        if buffers
            .as_ref()
            .is_some_and(|buffers| buffers.retained() > RETAINED)
        {
            *buffers = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_is_parsed_once_and_a_full_cache_still_answers() {
        let views = Views::default();
        assert!(views.is_empty());
        let first = views.get("rm -rf /").map(|v| v as *const View);
        let again = views.get("rm -rf /").map(|v| v as *const View);
        assert!(!views.is_empty());
        assert_eq!(first, again, "the same text must be served from its slot");
        for i in 0..CACHED_VIEWS {
            assert!(views.get(&format!("echo {i}")).is_ok() || i + 1 >= CACHED_VIEWS);
        }
        let overflow = views.get("ls -la").cloned();
        assert_eq!(overflow, Err(super::super::parse("ls -la")));
        // A clear empties every slot, and the next text takes the first.
        let mut views = views;
        views.clear();
        assert!(views.is_empty());
        assert!(views.get("ls -la").is_ok());
        assert!(!views.is_empty());
        views.clear();
        assert!(views.is_empty());
    }

    #[test]
    fn clear_keeps_the_buffers_of_commands_under_4_kib() {
        let units = [
            "find -exec ",
            "find -exec sudo ",
            "eval ",
            "a;",
            "a|",
            "a ",
            "-abcdefghijklmnopqrstuvwxyz ",
            "{ a;} >f ",
            "((a) ",
            "EOF\n",
            "$(",
            "bash -c ",
            "env -S ",
            "[[ ",
            "<<A ",
            "x=(",
        ];
        for unit in units {
            let text = unit.repeat(4095 / unit.len());
            let mut views = Views::default();
            let parsed = views.get(&text).map(|view| view.commands.len());
            assert!(parsed.is_ok_and(|n| n > 0), "{unit:?}");
            views.clear();
            let retained = views.buffers.borrow().as_ref().map_or(0, |b| b.retained());
            assert!(
                retained > 0 && retained <= RETAINED,
                "{unit:?}: {retained} bytes"
            );
        }
        let mut views = Views::default();
        let huge = "a;".repeat(1 << 16);
        assert!(views.get(&huge).is_ok());
        views.clear();
        assert!(views.buffers.borrow().is_none(), "above the bound");
    }
}
