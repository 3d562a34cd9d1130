//! Lua handlers: `call lua "hooks/audit.lua"` and inline
//! `lua """function(ctx) … end"""`, following ORCS's conventions (ADR-002
//! §7.3, §7.4).
//!
//! # The handler
//!
//! A script file returns the handler function, or a table with a `handler`
//! field (the shape of ORCS's `hooks/*.lua`: `return { id = …, handler =
//! function(ctx) … end }`). Inline source is a function expression. The
//! file is loaded once per Lua state and reloaded when it changes on disk;
//! its top-level locals persist between calls (ADR §11.3's rate limiter
//! keeps its counts that way). Each handler has its own Lua state, and calls
//! to one handler are serialized.
//!
//! # The context (§7.3)
//!
//! The handler gets the context as a table: `hook_point`, `component_id`,
//! `child_id`, `instance`, `channel_id`, `principal`, `timestamp_ms`,
//! `payload`, `metadata`, `depth`, `max_depth`. JSON `null` is
//! `orcs.null`.
//!
//! # What it returns (§7.4)
//!
//! | return | the chain |
//! |---|---|
//! | `nil`, or the context table (`return ctx`) | continues; `payload` and `metadata` edits on the table are kept |
//! | `{ action = "continue", ctx = ctx }` | the same |
//! | `{ action = "skip", result = v }` | skips; `v` is the operation's result |
//! | `{ action = "abort", reason = "…" }` | aborts |
//! | `{ action = "replace", result = v }` | replaces the payload (post points) |
//! | `{ action = "ask", reason = "…" }`, `{ action = "allow" }` | hookc's decisions |
//!
//! Anything else is a failure of the rule.
//!
//! # Limits and the sandbox
//!
//! A handler runs under the rule's timeout (or the dispatch's deadline,
//! when it comes first), checked every 1,000 VM instructions (a runaway
//! loop is stopped with a timeout failure), and a
//! 64 MiB memory limit. Its state has the `table`, `string`, `math`, `utf8`
//! and `coroutine` libraries and `os.time`, `os.clock`, `os.date`,
//! `os.getenv`; no `io`, no `require`, no `dofile`/`loadfile`, nothing that
//! runs programs or exits the process. `orcs.log(level, message)`,
//! `orcs.emit_output(message)` (both to the host's log),
//! `orcs.json_encode(value)` and `orcs.json_decode(text)` are there for
//! ORCS scripts.

use super::{Cutoff, Deadline, EffectError, ExecConfig, HookAction};
use crate::event::HookContext;
use mlua::{Function, HookTriggers, Lua, LuaOptions, LuaSerdeExt, StdLib, Table, Value, VmState};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};

/// Marks the error the instruction hook raises at the deadline.
const TIMEOUT_MARK: &str = "hookc: lua handler timed out";

/// A Lua state's memory limit.
const MEMORY_LIMIT: usize = 64 << 20;

/// Where a handler's source is.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Source<'a> {
    /// A script file (relative to the project directory).
    File(&'a str),
    /// Inline source: a function expression.
    Inline(&'a str),
}

/// Loaded Lua handlers, by source.
#[derive(Default)]
pub(crate) struct LuaHandlers {
    loaded: Mutex<HashMap<String, Arc<Mutex<Loaded>>>>,
}

impl std::fmt::Debug for LuaHandlers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LuaHandlers").finish_non_exhaustive()
    }
}

/// One handler's state.
struct Loaded {
    lua: Lua,
    handler: Function,
    /// The file's modification time and length when it was loaded.
    stamp: Option<(SystemTime, u64)>,
}

impl LuaHandlers {
    /// Runs the handler of `source` on `ctx`.
    pub(crate) fn call(
        &self,
        config: &ExecConfig,
        source: Source<'_>,
        ctx: &mut HookContext,
        timeout: Duration,
        deadline: Option<Deadline>,
    ) -> Result<HookAction, EffectError> {
        let cutoff = Cutoff::start(timeout, deadline)?;
        let name = match source {
            Source::File(path) => path.to_string(),
            Source::Inline(_) => "inline lua".to_string(),
        };
        let (key, stamp, path) = match source {
            Source::File(file) => {
                let path = match &config.project_dir {
                    Some(dir) => dir.join(file),
                    None => PathBuf::from(file),
                };
                let meta = std::fs::metadata(&path).map_err(|e| lua_error(&name, e))?;
                let stamp = (
                    meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
                    meta.len(),
                );
                (format!("file:{}", path.display()), Some(stamp), Some(path))
            }
            Source::Inline(code) => (format!("inline:{code}"), None, None),
        };
        let slot = {
            let mut loaded = self.loaded.lock().unwrap_or_else(PoisonError::into_inner);
            let current = loaded
                .get(&key)
                .filter(|l| l.lock().is_ok_and(|l| l.stamp == stamp));
            match current {
                Some(slot) => Arc::clone(slot),
                None => {
                    let code = match (&path, source) {
                        (Some(path), _) => {
                            std::fs::read_to_string(path).map_err(|e| lua_error(&name, e))?
                        }
                        (None, Source::Inline(code)) => code.to_string(),
                        (None, Source::File(_)) => String::new(),
                    };
                    let fresh = load(&name, &code, matches!(source, Source::Inline(_)), stamp)
                        .map_err(|e| lua_error(&name, e))?;
                    let slot = Arc::new(Mutex::new(fresh));
                    loaded.insert(key, Arc::clone(&slot));
                    slot
                }
            }
        };
        let handler = slot.lock().unwrap_or_else(PoisonError::into_inner);
        run(&handler, &name, ctx, cutoff)
    }
}

/// A new sandboxed state with the handler of `code` loaded.
fn load(
    name: &str,
    code: &str,
    inline: bool,
    stamp: Option<(SystemTime, u64)>,
) -> mlua::Result<Loaded> {
    let lua = Lua::new_with(
        StdLib::TABLE
            | StdLib::STRING
            | StdLib::MATH
            | StdLib::UTF8
            | StdLib::COROUTINE
            | StdLib::OS,
        LuaOptions::default(),
    )?;
    lua.set_memory_limit(MEMORY_LIMIT)?;
    sandbox(&lua)?;
    let value: Value = if inline {
        // A function expression; a whole chunk (`return function …`) too.
        match lua.load(format!("return {code}")).set_name(name).eval() {
            Ok(v) => v,
            Err(_) => lua.load(code).set_name(name).eval()?,
        }
    } else {
        lua.load(code).set_name(format!("@{name}")).eval()?
    };
    let handler = match value {
        Value::Function(f) => f,
        Value::Table(t) => t
            .get::<Function>("handler")
            .map_err(|_| mlua::Error::runtime("the script's table has no `handler` function"))?,
        other => {
            return Err(mlua::Error::runtime(format!(
                "the script returns a {}, not a handler function",
                other.type_name()
            )))
        }
    };
    Ok(Loaded {
        lua,
        handler,
        stamp,
    })
}

/// Removes what a handler must not reach and adds the `orcs` table.
fn sandbox(lua: &Lua) -> mlua::Result<()> {
    let globals = lua.globals();
    for name in ["dofile", "loadfile", "load", "collectgarbage"] {
        globals.set(name, Value::Nil)?;
    }
    let os: Table = globals.get("os")?;
    for name in [
        "execute",
        "exit",
        "remove",
        "rename",
        "tmpname",
        "setlocale",
    ] {
        os.set(name, Value::Nil)?;
    }
    let orcs = lua.create_table()?;
    orcs.set("null", lua.null())?;
    orcs.set(
        "log",
        lua.create_function(|_, (level, message): (String, String)| {
            match level.as_str() {
                "error" => tracing::error!(target: "hookc::lua", "{message}"),
                "warn" | "warning" => tracing::warn!(target: "hookc::lua", "{message}"),
                "debug" => tracing::debug!(target: "hookc::lua", "{message}"),
                "trace" => tracing::trace!(target: "hookc::lua", "{message}"),
                _ => tracing::info!(target: "hookc::lua", "{message}"),
            }
            Ok(())
        })?,
    )?;
    orcs.set(
        "emit_output",
        lua.create_function(|_, message: String| {
            tracing::info!(target: "hookc::lua", "{message}");
            Ok(())
        })?,
    )?;
    orcs.set(
        "json_encode",
        lua.create_function(|lua, value: Value| {
            let json: serde_json::Value = lua.from_value(value)?;
            Ok(json.to_string())
        })?,
    )?;
    orcs.set(
        "json_decode",
        lua.create_function(|lua, text: String| {
            let json: serde_json::Value =
                serde_json::from_str(&text).map_err(mlua::Error::external)?;
            lua.to_value(&json)
        })?,
    )?;
    globals.set("orcs", orcs)?;
    Ok(())
}

/// Calls the handler under the deadline and reads what it returned.
fn run(
    loaded: &Loaded,
    name: &str,
    ctx: &mut HookContext,
    cutoff: Cutoff,
) -> Result<HookAction, EffectError> {
    let lua = &loaded.lua;
    lua.set_hook(
        HookTriggers::new().every_nth_instruction(1000),
        move |_, _| {
            if cutoff.passed() {
                Err(mlua::Error::runtime(TIMEOUT_MARK))
            } else {
                Ok(VmState::Continue)
            }
        },
    )
    .map_err(|e| lua_error(name, e))?;
    let result = (|| {
        let arg = lua.to_value(&*ctx)?;
        let returned: Value = loaded.handler.call(arg)?;
        reply(lua, returned, ctx)
    })();
    lua.remove_hook();
    result.map_err(|e| {
        if e.to_string().contains(TIMEOUT_MARK) {
            cutoff.error()
        } else {
            lua_error(name, e)
        }
    })
}

/// What the handler's return value asks for (§7.4).
fn reply(lua: &Lua, returned: Value, ctx: &mut HookContext) -> mlua::Result<HookAction> {
    let table = match returned {
        Value::Nil => return Ok(HookAction::Continue),
        Value::Table(t) => t,
        other => {
            return Err(mlua::Error::runtime(format!(
                "the handler returned a {}, not a table",
                other.type_name()
            )))
        }
    };
    let action: Option<String> = table.get("action")?;
    let Some(action) = action else {
        // `return ctx`: the (possibly edited) context.
        apply(lua, Value::Table(table), ctx)?;
        return Ok(HookAction::Continue);
    };
    let result = |table: &Table| -> mlua::Result<serde_json::Value> {
        let value: Value = table.get("result")?;
        let value = if value.is_nil() {
            table.get("value")?
        } else {
            value
        };
        lua.from_value(value)
    };
    let reason = |table: &Table| -> mlua::Result<String> {
        Ok(table
            .get::<Option<String>>("reason")?
            .unwrap_or_else(|| "blocked by a lua handler".to_string()))
    };
    Ok(match action.as_str() {
        "continue" => {
            let edited: Value = table.get("ctx")?;
            if !edited.is_nil() {
                apply(lua, edited, ctx)?;
            }
            HookAction::Continue
        }
        "skip" => HookAction::Skip(result(&table)?),
        "abort" => HookAction::Abort {
            reason: reason(&table)?,
        },
        "replace" => HookAction::Replace(result(&table)?),
        "ask" => HookAction::Ask {
            reason: reason(&table)?,
        },
        "allow" => HookAction::Allow,
        other => {
            return Err(mlua::Error::runtime(format!(
                "unknown action `{other}`: use continue, skip, abort, replace, ask or allow"
            )))
        }
    })
}

/// Takes `payload` and `metadata` from a returned context table.
fn apply(lua: &Lua, value: Value, ctx: &mut HookContext) -> mlua::Result<()> {
    let Value::Table(table) = value else {
        return Err(mlua::Error::runtime("`ctx` is not a table"));
    };
    let payload: Value = table.get("payload")?;
    if !payload.is_nil() {
        ctx.payload = lua.from_value(payload)?;
    }
    let metadata: Value = table.get("metadata")?;
    if let Value::Table(_) = metadata {
        if let serde_json::Value::Object(map) = lua.from_value(metadata)? {
            ctx.metadata = map;
        }
    }
    Ok(())
}

fn lua_error(name: &str, error: impl std::fmt::Display) -> EffectError {
    EffectError::Lua {
        name: name.to_string(),
        message: error.to_string(),
    }
}
