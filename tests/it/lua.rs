//! Lua handlers (the `lua` feature): `call lua "file.lua"` and inline
//! `lua """…"""`, ORCS's context table and return values, script state that
//! persists, the instruction-count timeout, the sandbox, and failure modes.
//! Run with `cargo test --features lua --test it lua::`.

#![cfg(feature = "lua")]
#![expect(
    clippy::unwrap_used,
    clippy::panic,
    reason = "tests fail loudly on bad fixtures"
)]

use hookc::effects::ExecConfig;
use hookc::{Effects, HookContext, OutcomeKind, Report, Table, Target};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn tmp_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("lua")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn table(rules: &str) -> Table {
    let compiled = hookc::compile_str("lua.hooks", rules)
        .unwrap_or_else(|d| panic!("rules do not compile:\n{d}"));
    Table::from_bytes(&compiled.table.to_bytes()).unwrap()
}

fn effects(dir: &Path) -> Effects {
    let mut exec = ExecConfig::default();
    exec.project_dir = Some(dir.to_path_buf());
    Effects::new().with_exec(exec)
}

fn dispatch(
    table: &Table,
    effects: &Effects,
    point: &str,
    payload: Value,
) -> (Report, HookContext) {
    let mut ctx = HookContext::new(point, "builtin::llm", payload);
    let mut scratch = table.scratch();
    let outcome = table.dispatch_with(
        &mut scratch,
        point,
        &Target::new("builtin::llm"),
        &mut ctx,
        effects,
    );
    (outcome.report(&ctx), ctx)
}

#[test]
fn inline_handlers_follow_the_orcs_return_conventions() {
    let dir = tmp_dir("inline");
    let t = table(
        r#"
hook policy on tool.pre_execute {
    lua """function(ctx)
  if ctx.payload.tool == "rm" then
    return { action = "abort", reason = "blocked by lua: " .. ctx.component_id }
  elseif ctx.payload.tool == "cached" then
    return { action = "skip", result = { cached = true } }
  elseif ctx.payload.tool == "ask" then
    return { action = "ask", reason = "sure?" }
  elseif ctx.payload.tool == "nil" then
    return nil
  end
  ctx.payload.seen_by = "lua"
  ctx.metadata.audit_id = "a-1"
  return { action = "continue", ctx = ctx }
end"""
}

hook swap on tool.post_execute {
    lua """function(ctx) return { action = "replace", result = { replaced = ctx.payload.n * 2 } } end"""
}
"#,
    );
    let fx = effects(&dir);
    let (r, _) = dispatch(&t, &fx, "tool.pre_execute", json!({"tool": "rm"}));
    assert_eq!(r.outcome, OutcomeKind::Abort, "{r:?}");
    assert_eq!(r.reason.as_deref(), Some("blocked by lua: builtin::llm"));

    let (r, _) = dispatch(&t, &fx, "tool.pre_execute", json!({"tool": "cached"}));
    assert_eq!(r.outcome, OutcomeKind::Skip);
    assert_eq!(r.value, Some(json!({"cached": true})));

    let (r, _) = dispatch(&t, &fx, "tool.pre_execute", json!({"tool": "ask"}));
    assert_eq!(r.outcome, OutcomeKind::Ask);

    let (r, ctx) = dispatch(&t, &fx, "tool.pre_execute", json!({"tool": "nil"}));
    assert_eq!(r.outcome, OutcomeKind::Continue);
    assert_eq!(ctx.payload, json!({"tool": "nil"}));

    let (r, ctx) = dispatch(&t, &fx, "tool.pre_execute", json!({"tool": "ls"}));
    assert_eq!(r.outcome, OutcomeKind::Continue, "{r:?}");
    assert_eq!(ctx.payload["seen_by"], "lua");
    assert_eq!(ctx.metadata["audit_id"], "a-1");

    let (r, ctx) = dispatch(&t, &fx, "tool.post_execute", json!({"n": 21}));
    assert_eq!(r.outcome, OutcomeKind::Continue, "{r:?}");
    assert_eq!(ctx.payload, json!({"replaced": 42}));
}

#[test]
fn script_files_keep_their_state_and_reload_when_changed() {
    let dir = tmp_dir("file");
    // ADR-002 §11.3's rate limiter, verbatim in shape: module-level counts.
    std::fs::write(
        dir.join("rate.lua"),
        r#"
local counts = {}
return {
    id = "rate-limiter",
    handler = function(ctx)
        local key = ctx.component_id .. ":" .. ctx.payload.operation
        counts[key] = (counts[key] or 0) + 1
        if counts[key] > 2 then
            return { action = "abort", reason = "rate limit exceeded: " .. key }
        end
        return ctx
    end,
}
"#,
    )
    .unwrap();
    let t = table(r#"hook limit on request.pre_dispatch { call lua "rate.lua" }"#);
    let fx = effects(&dir);
    let outcomes: Vec<OutcomeKind> = (0..3)
        .map(|_| {
            dispatch(
                &t,
                &fx,
                "request.pre_dispatch",
                json!({"operation": "chat"}),
            )
            .0
            .outcome
        })
        .collect();
    assert_eq!(
        outcomes,
        [
            OutcomeKind::Continue,
            OutcomeKind::Continue,
            OutcomeKind::Abort
        ]
    );
    // A new version of the file is loaded (and starts with fresh state).
    std::thread::sleep(Duration::from_millis(20));
    std::fs::write(
        dir.join("rate.lua"),
        "return function(ctx) return { action = \"abort\", reason = \"v2\" } end\n",
    )
    .unwrap();
    let (r, _) = dispatch(&t, &fx, "request.pre_dispatch", json!({"operation": "x"}));
    assert_eq!(r.reason.as_deref(), Some("v2"));
}

#[test]
fn a_runaway_handler_is_stopped_at_its_timeout() {
    let dir = tmp_dir("timeout");
    let t = table(
        r#"
hook spin on tool.pre_execute timeout 200ms {
    lua """function(ctx) while true do end end"""
}
hook strict on tool.post_execute timeout 200ms fail closed {
    lua """function(ctx) while true do end end"""
}
"#,
    );
    let fx = effects(&dir);
    let started = Instant::now();
    let (r, _) = dispatch(&t, &fx, "tool.pre_execute", json!({}));
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "stopped in time"
    );
    assert_eq!(r.outcome, OutcomeKind::Continue);
    assert_eq!(
        r.warnings,
        ["rule `spin` failed open: timed out after 200ms"]
    );
    let (r, _) = dispatch(&t, &fx, "tool.post_execute", json!({}));
    assert_eq!(r.outcome, OutcomeKind::Abort);
    assert_eq!(
        r.reason.as_deref(),
        Some("rule `strict` failed closed: timed out after 200ms")
    );
}

#[test]
fn errors_and_bad_returns_are_failures_that_leave_the_context_alone() {
    let dir = tmp_dir("errors");
    let t = table(
        r#"
hook boom on tool.pre_execute priority 1 {
    lua """function(ctx) ctx.payload.x = 1; error("kaboom") end"""
}
hook number on tool.pre_execute priority 2 {
    lua """function(ctx) return 42 end"""
}
hook action on tool.pre_execute priority 3 {
    lua """function(ctx) return { action = "explode" } end"""
}
hook missing on tool.pre_execute priority 4 {
    call lua "no-such-file.lua"
}
hook syntax on tool.pre_execute priority 5 {
    lua """function(ctx) return end end"""
}
"#,
    );
    let fx = effects(&dir);
    let (r, ctx) = dispatch(&t, &fx, "tool.pre_execute", json!({"x": 0}));
    assert_eq!(r.outcome, OutcomeKind::Continue);
    assert_eq!(
        ctx.payload,
        json!({"x": 0}),
        "a failed handler's edits are dropped"
    );
    assert_eq!(r.warnings.len(), 5, "{:#?}", r.warnings);
    assert!(r.warnings[0].contains("kaboom"), "{}", r.warnings[0]);
    assert!(
        r.warnings[1].contains("returned a integer") || r.warnings[1].contains("not a table"),
        "{}",
        r.warnings[1]
    );
    assert!(
        r.warnings[2].contains("unknown action `explode`"),
        "{}",
        r.warnings[2]
    );
    assert!(
        r.warnings[3].contains("no-such-file.lua"),
        "{}",
        r.warnings[3]
    );
    assert!(
        r.warnings[4].starts_with("rule `syntax` failed open: lua handler"),
        "{}",
        r.warnings[4]
    );
}

#[test]
fn the_sandbox_has_no_way_out() {
    let dir = tmp_dir("sandbox");
    let t = table(
        r#"
hook probe on tool.pre_execute {
    lua """function(ctx)
  local found = {}
  for _, name in ipairs({"io", "require", "dofile", "loadfile", "load", "package", "debug"}) do
    if _G[name] ~= nil then table.insert(found, name) end
  end
  for _, name in ipairs({"execute", "exit", "remove", "rename"}) do
    if os[name] ~= nil then table.insert(found, "os." .. name) end
  end
  ctx.payload.found = table.concat(found, ",")
  ctx.payload.time = type(os.time())
  ctx.payload.json = orcs.json_encode({ a = 1 })
  return ctx
end"""
}
"#,
    );
    let (r, ctx) = dispatch(&t, &effects(&dir), "tool.pre_execute", json!({}));
    assert_eq!(r.outcome, OutcomeKind::Continue, "{r:?}");
    assert_eq!(
        ctx.payload["found"], "",
        "nothing that escapes is reachable"
    );
    assert_eq!(ctx.payload["time"], "number");
    assert_eq!(ctx.payload["json"], "{\"a\":1}");
}

#[test]
fn orcs_config_entries_with_lua_run_unchanged() {
    let dir = tmp_dir("orcs");
    std::fs::create_dir_all(dir.join("hooks")).unwrap();
    std::fs::write(
        dir.join("hooks/narrow-caps.lua"),
        r#"
return {
    id = "narrow-child-capabilities",
    fql = "builtin::llm",
    point = "child.pre_spawn",
    priority = 100,
    handler = function(ctx)
        local caps = ctx.payload.capabilities
        if caps then
            ctx.payload.capabilities = caps & ~8
        end
        return { action = "continue", ctx = ctx }
    end,
}
"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("orcs.toml"),
        r#"
[[hooks]]
id = "narrow-child-caps"
fql = "builtin::llm"
point = "child.pre_spawn"
script = "hooks/narrow-caps.lua"
priority = 100

[[hooks]]
id = "tool-metrics"
fql = "*::*"
point = "tool.post_execute"
handler_inline = """
function(ctx)
    orcs.emit_output("[metric] " .. ctx.payload.tool_name .. ": " .. ctx.payload.elapsed_ms .. "ms")
    return { action = "continue", ctx = ctx }
end
"""
priority = 200
"#,
    )
    .unwrap();
    let compiled =
        hookc::systems::orcs::import::compile(&[dir.join("orcs.toml")], &hookc::Options::default())
            .unwrap_or_else(|d| panic!("{d}"));
    let fx = effects(&dir);
    let (r, ctx) = dispatch(
        &compiled.table,
        &fx,
        "child.pre_spawn",
        json!({"capabilities": 15}),
    );
    assert_eq!(r.outcome, OutcomeKind::Continue, "{r:?}");
    assert_eq!(ctx.payload["capabilities"], 7);
    let (r, _) = dispatch(
        &compiled.table,
        &fx,
        "tool.post_execute",
        json!({"tool_name": "grep", "elapsed_ms": 12}),
    );
    assert_eq!(r.outcome, OutcomeKind::Continue, "{r:?}");
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
}
