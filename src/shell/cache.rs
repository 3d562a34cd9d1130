//! Shell views computed once per dispatch: several rules read the same
//! command, and each `shell(…)` of theirs would parse it again. Rules read
//! the typed [`View`](super::View) in place (its commands, their words and
//! redirections borrowed): no JSON is built for them.

use super::View;
use std::cell::OnceCell;

/// How many distinct command strings a dispatch keeps the views of; a
/// further one is parsed each time it is read.
pub const CACHED_VIEWS: usize = 4;

/// The views of the command strings a dispatch has read, keyed by the text
/// itself (an edit that changes a command changes the key, so an entry is
/// never stale within a dispatch).
#[derive(Clone, Debug, Default)]
pub struct Views {
    slots: [OnceCell<(String, View)>; CACHED_VIEWS],
}

impl Views {
    /// The view of `text`: borrowed from the cache when it holds it or has
    /// a free slot for it, `Err` with a fresh view when every slot holds
    /// another text.
    pub fn get(&self, text: &str) -> Result<&View, View> {
        for slot in &self.slots {
            let (key, view) = slot.get_or_init(|| (text.to_owned(), super::parse(text)));
            if key == text {
                return Ok(view);
            }
        }
        Err(super::parse(text))
    }

    /// True when no view was computed since the last [`clear`](Self::clear).
    pub fn is_empty(&self) -> bool {
        self.slots.iter().all(|slot| slot.get().is_none())
    }

    /// Forgets every view (a new dispatch starts).
    pub fn clear(&mut self) {
        for slot in &mut self.slots {
            slot.take();
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
    }
}
