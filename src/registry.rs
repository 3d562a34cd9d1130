//! A live registry: a compiled table plus native hooks registered at run
//! time, dispatched from many threads, reloaded atomically.
//!
//! The registry keeps everything a dispatch reads in one immutable
//! *snapshot* (the table, the native hooks by point, the rules switched off,
//! the effects) behind an [`ArcSwap`]. A dispatch loads the current snapshot
//! (lock-free, no allocation) and runs on it to the end; a change
//! (`register`, `set_enabled`, [`reload`](Registry::reload), …) builds a new
//! snapshot and swaps it in. So a dispatch in flight finishes on the
//! snapshot it started with, the next one sees the new snapshot, and no
//! dispatch ever sees half of a change. Writers are serialized by a mutex
//! that dispatch never takes.
//!
//! Native hooks ([`NativeHook`]) follow ORCS's `Hook` trait: an id, an FQL pattern, a point,
//! a priority (lower runs earlier). In a dispatch they run interleaved with
//! the table's rules by priority; on a tie the table's rule runs first, and
//! hooks of the same priority run in registration order.
//!
//! ```
//! use hookc::{FqlPattern, HookAction, HookContext, HookPoint, Registry, Target};
//! use hookc::NativeHook;
//!
//! struct Tag(FqlPattern);
//! impl NativeHook for Tag {
//!     fn id(&self) -> &str { "tag" }
//!     fn fql_pattern(&self) -> &FqlPattern { &self.0 }
//!     fn hook_point(&self) -> &str { "tool.pre_execute" }
//!     // Before the table's rules (default priority 100).
//!     fn priority(&self) -> i32 { 50 }
//!     fn execute(&self, ctx: &mut HookContext) -> HookAction {
//!         ctx.metadata.insert("tagged".into(), true.into());
//!         HookAction::Continue
//!     }
//! }
//!
//! let table = hookc::compile_str("r.hooks", r#"
//!     hook block on tool.pre_execute at builtin::* {
//!         when metadata.tagged == true
//!         abort "tagged"
//!     }
//! "#)?.table;
//! let registry = Registry::new(table);
//! registry.register(Box::new(Tag(FqlPattern::parse("builtin::*")?)));
//!
//! let mut scratch = registry.scratch();
//! let mut ctx = HookContext::new(HookPoint::ToolPreExecute, "builtin::llm", serde_json::json!({}));
//! let report = registry.dispatch(&mut scratch, HookPoint::ToolPreExecute, &Target::new("builtin::llm"), &mut ctx);
//! assert_eq!(report.reason.as_deref(), Some("tagged"));
//! assert_eq!(report.fired, ["tag", "block"]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::effects::{Effects, Handler};
use crate::runtime::{AsPoint, Live, NativeHook, Outcome, RegisteredHook, Report, Scratch, Target};
use crate::schema::{EditApplication, PointKind};
use crate::table::layout::point::PointSlot;
use crate::{HookContext, Table};
use arc_swap::ArcSwap;
use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// Everything one dispatch reads; never changed once published.
#[derive(Clone)]
struct Snapshot {
    table: Arc<Table>,
    /// Bumped by every reload.
    generation: u64,
    effects: Arc<Effects>,
    /// Native hooks by point name, by priority then registration, with a
    /// rule-less program of the point for when the table has no rules there.
    natives: HashMap<String, (Vec<RegisteredHook>, Arc<PointSlot<'static>>)>,
    /// Ids of table rules switched off with `set_enabled`.
    disabled_ids: Vec<String>,
    /// The same as bitsets, by the table's point index.
    disabled: Vec<Vec<u64>>,
}

impl Snapshot {
    /// Recomputes the bitsets of `disabled_ids` for the current table.
    fn index_disabled(&mut self) {
        self.disabled.clear();
        if self.disabled_ids.is_empty() {
            return;
        }
        for ids in self.table.rule_ids() {
            let mut bits = vec![0u64; ids.len().div_ceil(64)];
            for (i, id) in ids.iter().enumerate() {
                if self.disabled_ids.iter().any(|d| d == id) {
                    if let Some(w) = bits.get_mut(i / 64) {
                        *w |= 1 << (i % 64);
                    }
                }
            }
            self.disabled.push(bits);
        }
    }
}

/// A point with no rules, of the point's kind and with its host's way of
/// applying edits, as `table`'s schema says (a point the schema does not
/// have is an event point).
fn empty_point(table: &Table, point: &str) -> PointSlot<'static> {
    let (kind, edits) = table
        .loaded()
        .program
        .meta
        .schema_points
        .iter()
        .find(|p| p.name == point)
        .map_or((PointKind::Event, EditApplication::AsEdited), |p| {
            (p.kind, p.edits.clone())
        });
    PointSlot::empty(point, kind, edits)
}

/// A compiled table plus native hooks, shared by many threads and reloaded
/// atomically. See the [module docs](self).
pub struct Registry {
    current: ArcSwap<Snapshot>,
    /// Serializes writers (dispatch never takes it).
    write: Mutex<()>,
    seq: AtomicU64,
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let snapshot = self.current.load();
        f.debug_struct("Registry")
            .field("generation", &snapshot.generation)
            .field("natives", &snapshot.natives)
            .field("disabled", &snapshot.disabled_ids)
            .finish_non_exhaustive()
    }
}

impl Registry {
    /// A registry on `table` with the default effects.
    pub fn new(table: impl Into<Arc<Table>>) -> Registry {
        Registry::with_effects(table, Effects::new())
    }

    /// A registry on `table` with the host's effects (command settings,
    /// webhook pool, `call` handlers).
    pub fn with_effects(table: impl Into<Arc<Table>>, effects: Effects) -> Registry {
        let table: Arc<Table> = table.into();
        Registry {
            current: ArcSwap::from_pointee(Snapshot {
                table,
                generation: 0,
                effects: Arc::new(effects),
                natives: HashMap::new(),
                disabled_ids: Vec::new(),
                disabled: Vec::new(),
            }),
            write: Mutex::new(()),
            seq: AtomicU64::new(0),
        }
    }

    /// Scratch space for this registry's dispatches (it grows as reloaded
    /// tables need).
    pub fn scratch(&self) -> Scratch {
        self.current.load().table.scratch()
    }

    /// The current table.
    pub fn table(&self) -> Arc<Table> {
        Arc::clone(&self.current.load().table)
    }

    /// How many times the table was reloaded.
    pub fn generation(&self) -> u64 {
        self.current.load().generation
    }

    /// Applies `change` to a copy of the current snapshot and publishes it.
    fn update<R>(&self, change: impl FnOnce(&mut Snapshot) -> R) -> R {
        let _writer = self.write.lock().unwrap_or_else(PoisonError::into_inner);
        let mut next = Snapshot::clone(&self.current.load());
        let result = change(&mut next);
        self.current.store(Arc::new(next));
        result
    }

    /// Swaps in a new table; native hooks and switched-off rule ids carry
    /// over. So do the in-memory counts of every `rate(…)` the new table
    /// still has with the same key template and window: they live in the
    /// registry's effects ([`Effects::memory_store`]), not in the table,
    /// so even events counted by dispatches still running on the old table
    /// are seen. Dispatches in flight finish on the old table. Returns the
    /// new generation.
    pub fn reload(&self, table: impl Into<Arc<Table>>) -> u64 {
        let table = table.into();
        self.update(|s| {
            s.table = table;
            s.generation += 1;
            s.index_disabled();
            s.generation
        })
    }

    /// Registers a native hook; returns its id.
    pub fn register(&self, hook: Box<dyn NativeHook>) -> String {
        self.insert(hook, None)
    }

    /// Registers a native hook owned by `owner` (a component id), to be
    /// removed with [`unregister_by_owner`](Self::unregister_by_owner).
    pub fn register_owned(&self, hook: Box<dyn NativeHook>, owner: &str) -> String {
        self.insert(hook, Some(owner.to_string()))
    }

    fn insert(&self, hook: Box<dyn NativeHook>, owner: Option<String>) -> String {
        let hook: Arc<dyn NativeHook> = Arc::from(hook);
        let id = hook.id().to_string();
        let seq = self.seq.fetch_add(1, Ordering::Relaxed);
        self.update(|s| {
            let point = hook.hook_point();
            let (natives, _) = s
                .natives
                .entry(point.to_string())
                .or_insert_with(|| (Vec::new(), Arc::new(empty_point(&s.table, point))));
            natives.push(RegisteredHook {
                priority: hook.priority(),
                hook,
                enabled: true,
                owner,
                seq,
            });
            natives.sort_by_key(|n| (n.priority, n.seq));
        });
        id
    }

    /// Removes the native hook `id`; true if there was one.
    pub fn unregister(&self, id: &str) -> bool {
        self.update(|s| {
            let mut removed = false;
            for (natives, _) in s.natives.values_mut() {
                let before = natives.len();
                natives.retain(|n| n.hook.id() != id);
                removed |= natives.len() != before;
            }
            removed
        })
    }

    /// Removes every native hook `owner` registered; returns how many.
    pub fn unregister_by_owner(&self, owner: &str) -> usize {
        self.update(|s| {
            let mut removed = 0;
            for (natives, _) in s.natives.values_mut() {
                let before = natives.len();
                natives.retain(|n| n.owner.as_deref() != Some(owner));
                removed += before - natives.len();
            }
            removed
        })
    }

    /// Switches a native hook or a table rule (by id) on or off without
    /// removing it; a rule stays switched off across reloads. True if a
    /// hook or rule has that id.
    pub fn set_enabled(&self, id: &str, enabled: bool) -> bool {
        self.update(|s| {
            let mut found = false;
            for native in s.natives.values_mut().flat_map(|(n, _)| n) {
                if native.hook.id() == id {
                    native.enabled = enabled;
                    found = true;
                }
            }
            let in_table = s.table.rule_ids().iter().any(|ids| ids.contains(&id));
            if in_table {
                found = true;
                s.disabled_ids.retain(|d| d != id);
                if !enabled {
                    s.disabled_ids.push(id.to_string());
                }
                s.index_disabled();
            }
            found
        })
    }

    /// Registers a handler for `call "name"` (replacing one of that name).
    pub fn register_handler(&self, name: &str, handler: impl Handler + 'static) {
        let handler: Arc<dyn Handler> = Arc::new(handler);
        self.update(|s| {
            let mut effects = Effects::clone(&s.effects);
            effects.insert_handler(name, handler);
            s.effects = Arc::new(effects);
        });
    }

    /// Removes the `call` handler `name`; true if there was one.
    pub fn unregister_handler(&self, name: &str) -> bool {
        self.update(|s| {
            let mut effects = Effects::clone(&s.effects);
            let removed = effects.remove_handler(name);
            s.effects = Arc::new(effects);
            removed
        })
    }

    /// Runs `point`'s rules and native hooks on `ctx` and hands the
    /// borrowed [`Outcome`] to `inspect`: no allocation beyond what the
    /// rules' actions do. The snapshot it runs on is held until `inspect`
    /// returns.
    pub fn dispatch_with<R>(
        &self,
        scratch: &mut Scratch,
        point: impl AsPoint,
        target: &Target<'_>,
        ctx: &mut HookContext,
        inspect: impl FnOnce(&Outcome<'_>, u64) -> R,
    ) -> R {
        self.run(scratch, point, target, ctx, |outcome, generation, _| {
            inspect(outcome, generation)
        })
    }

    /// [`dispatch_with`](Self::dispatch_with), handing `inspect` the
    /// context as the chain left it too.
    fn run<R>(
        &self,
        scratch: &mut Scratch,
        point: impl AsPoint,
        target: &Target<'_>,
        ctx: &mut HookContext,
        inspect: impl FnOnce(&Outcome<'_>, u64, &HookContext) -> R,
    ) -> R {
        let snapshot = self.current.load();
        let resolved = snapshot.table.resolve(&point);
        let natives = resolved.name.and_then(|name| snapshot.natives.get(name));
        let live = Live {
            effects: &snapshot.effects,
            natives: natives.map_or(&[][..], |(n, _)| n.as_slice()),
            empty_point: natives.map(|(_, p)| &**p),
            disabled: match resolved.index {
                Some(i) => snapshot.disabled.get(i).map_or(&[][..], Vec::as_slice),
                None => &[],
            },
        };
        let outcome =
            snapshot
                .table
                .dispatch_observed(scratch, resolved.index, target, ctx, live, &mut ());
        inspect(&outcome, snapshot.generation, ctx)
    }

    /// Runs `point`'s rules and native hooks on `ctx` (edited in place) and
    /// returns the owned [`Report`], with the generation of the table it
    /// ran on.
    pub fn dispatch(
        &self,
        scratch: &mut Scratch,
        point: impl AsPoint,
        target: &Target<'_>,
        ctx: &mut HookContext,
    ) -> Report {
        self.run(scratch, point, target, ctx, |outcome, generation, ctx| {
            Report {
                generation: Some(generation),
                ..outcome.report(ctx)
            }
        })
    }
}
