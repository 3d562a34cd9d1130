//! A small host runtime in the style of ORCS (ADR-002 §8): components handle
//! requests, call tools and spawn children, and at each lifecycle point the
//! runtime dispatches into a hookc table compiled from `../../rules` by
//! `build.rs` and embedded in the binary.
//!
//! The host acts on each outcome as ORCS does: `abort` becomes an error,
//! `skip` uses the outcome's value instead of running the operation,
//! `continue` goes on with the (possibly edited) context payload. It prints
//! one line per dispatch: the point, the target, what was dispatched, the
//! outcome and the rules that fired. Everything is deterministic.

use hookc::{HookContext, HookPoint, OutcomeKind, Principal, Scratch, Table, Target};
use serde_json::{json, Value};
use std::collections::BTreeSet;

/// Capability bits (ORCS `Capability`).
const READ: u64 = 0b0001;
const WRITE: u64 = 0b0010;
const SPAWN: u64 = 0b0100;
const EXECUTE: u64 = 0b1000;
const ALL: u64 = READ | WRITE | SPAWN | EXECUTE;

const CHANNEL: &str = "550e8400-e29b-41d4-a716-446655440000";
const SANDBOX: &str = "/home/alice/project";

/// What the host does after a dispatch (ORCS §8).
enum Verdict {
    /// Go on, with the context's payload as the hooks left it.
    Continue,
    /// Do not run the operation; this is its result.
    Skip(Value),
    /// Do not run the operation: an error with this reason.
    Abort(String),
}

/// The loaded table and the one scratch every dispatch reuses.
struct Hooks {
    table: Table,
    scratch: Scratch,
    /// A logical clock: the context's `timestamp_ms`, so the run is
    /// reproducible.
    clock: u64,
}

impl Hooks {
    fn load() -> Result<Hooks, hookc::LoadError> {
        let table = Table::from_static(hookc::include_table!(concat!(
            env!("OUT_DIR"),
            "/hooks.tbl"
        )))?;
        let scratch = table.scratch();
        Ok(Hooks {
            table,
            scratch,
            clock: 0,
        })
    }

    /// A context for `point`, filled in from the caller (ORCS §10.3: the
    /// caller's component, child, channel and principal are injected).
    fn context(&mut self, point: HookPoint, caller: &Caller, payload: Value) -> HookContext {
        self.clock += 10;
        let mut ctx = HookContext::new(point, caller.component, payload);
        ctx.child_id = caller.child.clone();
        ctx.channel_id = CHANNEL.to_string();
        ctx.principal = caller.principal.clone();
        ctx.timestamp_ms = self.clock;
        ctx
    }

    /// Dispatches, prints one line about it, and says what to do.
    fn dispatch(
        &mut self,
        point: HookPoint,
        caller: &Caller,
        ctx: &mut HookContext,
        what: &str,
    ) -> Verdict {
        let target = match &caller.child {
            Some(child) => Target::new(caller.component).with_child(child),
            None => Target::new(caller.component),
        };
        let outcome = self.table.dispatch(&mut self.scratch, point, &target, ctx);
        let reason = outcome.reason().unwrap_or("no reason given").to_string();
        let (verdict, shown) = match outcome.kind() {
            OutcomeKind::Continue => (Verdict::Continue, "continue".to_string()),
            OutcomeKind::Skip => {
                let value = outcome.value().cloned().unwrap_or(Value::Null);
                let shown = format!("skip with {value}");
                (Verdict::Skip(value), shown)
            }
            OutcomeKind::Abort => (Verdict::Abort(reason.clone()), format!("abort: {reason}")),
            // No human at this terminal: a question is a refusal.
            OutcomeKind::Ask => (
                Verdict::Abort(format!("needs approval: {reason}")),
                format!("ask: {reason} (no one to ask: refused)"),
            ),
        };
        let fired: Vec<&str> = outcome.fired().collect();
        let fired = if fired.is_empty() {
            "-".to_string()
        } else {
            fired.join(", ")
        };
        println!(
            "{point:<21} {target:<20} {what:<30} => {shown}  [fired: {fired}]",
            point = point.as_str(),
            target = caller.fqn()
        );
        for log in outcome.logs() {
            println!(
                "    log {} [{}] {}",
                log.level.as_str(),
                log.rule,
                log.message
            );
        }
        for warning in outcome.warnings() {
            println!("    warning: {warning}");
        }
        verdict
    }
}

/// Who is calling: a component, or a child of one, with its capabilities.
#[derive(Clone)]
struct Caller {
    component: &'static str,
    child: Option<String>,
    principal: Principal,
    capabilities: u64,
}

impl Caller {
    fn component(component: &'static str, principal: Principal) -> Caller {
        Caller {
            component,
            child: None,
            principal,
            capabilities: ALL,
        }
    }

    fn fqn(&self) -> String {
        match &self.child {
            Some(child) => format!("{}/{child}", self.component),
            None => self.component.to_string(),
        }
    }
}

fn user(id: &str) -> Principal {
    Principal {
        kind: "User".to_string(),
        id: id.to_string(),
    }
}

fn component_principal(id: &str) -> Principal {
    Principal {
        kind: "Component".to_string(),
        id: id.to_string(),
    }
}

fn caps(bits: u64) -> String {
    let names: Vec<&str> = [
        (READ, "READ"),
        (WRITE, "WRITE"),
        (SPAWN, "SPAWN"),
        (EXECUTE, "EXECUTE"),
    ]
    .into_iter()
    .filter(|(bit, _)| bits & bit != 0)
    .map(|(_, name)| name)
    .collect();
    format!("{bits} ({})", names.join("|"))
}

/// Shortens a JSON value for one line of output.
fn brief(value: &Value) -> String {
    let text = match value {
        Value::String(s) => format!("{s:?}"),
        other => other.to_string(),
    };
    if text.chars().count() > 60 {
        format!("{}…", text.chars().take(59).collect::<String>())
    } else {
        text
    }
}

/// The tools themselves: fakes with fixed answers.
fn run_tool(tool: &str, args: &str) -> Result<Value, String> {
    match (tool, args) {
        ("exec", "ls -la") => Ok(json!("Cargo.toml\nbuild.rs\nsrc\n")),
        ("exec", _) => Ok(json!("ok")),
        ("read", ".env") => Ok(json!(
            "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE\nREGION=eu-west-1\n"
        )),
        ("read", path) => Ok(json!(format!("contents of {path}"))),
        _ => Err(format!("unknown tool `{tool}`")),
    }
}

struct Runtime {
    hooks: Hooks,
}

impl Runtime {
    /// A request to a component: request.pre_dispatch, the component's
    /// handler, request.post_dispatch (ORCS §8.2).
    fn request(
        &mut self,
        from: Principal,
        to: &'static str,
        id: &str,
        operation: &str,
        body: Value,
    ) -> Result<Value, String> {
        let caller = Caller::component(to, from);
        let request = json!({
            "id": id,
            "category": "UserInput",
            "operation": operation,
            "source": "builtin::cli",
            "target": to,
            "payload": body,
            "timeout_ms": 30000,
        });
        let mut ctx = self
            .hooks
            .context(HookPoint::RequestPreDispatch, &caller, request);
        let what = format!("request {id} {operation}");
        let request =
            match self
                .hooks
                .dispatch(HookPoint::RequestPreDispatch, &caller, &mut ctx, &what)
            {
                Verdict::Abort(reason) => return Err(reason),
                Verdict::Skip(value) => return Ok(value),
                Verdict::Continue => ctx.payload,
            };
        let result = self.on_request(&caller, &request)?;

        let mut post = self.hooks.context(
            HookPoint::RequestPostDispatch,
            &caller,
            json!({"request": request, "operation": operation, "result": result, "elapsed_ms": 12}),
        );
        post.metadata = ctx.metadata;
        let what = format!("response {id}");
        match self
            .hooks
            .dispatch(HookPoint::RequestPostDispatch, &caller, &mut post, &what)
        {
            Verdict::Abort(reason) => Err(reason),
            Verdict::Skip(value) => Ok(value),
            Verdict::Continue => Ok(post.payload.get("result").cloned().unwrap_or(Value::Null)),
        }
    }

    /// The components' request handlers.
    fn on_request(&mut self, me: &Caller, request: &Value) -> Result<Value, String> {
        match me.component {
            "builtin::llm" => Ok(self.llm_chat(me)),
            "plugin::tools" => Ok(json!(
                "tools: exec, read (registry token ghp_0123456789abcdefghijABCDEFGHIJ012345)"
            )),
            other => Err(format!(
                "no component `{other}` for request {}",
                request.get("id").unwrap_or(&Value::Null)
            )),
        }
    }

    /// The LLM component: a fixed plan of tool calls, some of them made by
    /// a child agent it spawns. Answers with how many calls ran.
    fn llm_chat(&mut self, me: &Caller) -> Value {
        let mut ran = 0;
        let mut failed = 0;
        let mut count = |ok: bool| if ok { ran += 1 } else { failed += 1 };
        for (tool, args) in [("exec", "ls -la"), ("exec", "rm -rf / --no-preserve-root")] {
            count(self.tool(me, tool, args).is_ok());
        }
        match self.spawn_child(me, "agent-1", "agents/worker.lua") {
            Ok(agent) => {
                for (tool, args) in [("read", ".env"), ("exec", "cargo test")] {
                    count(self.tool(&agent, tool, args).is_ok());
                }
            }
            Err(error) => println!("    -> spawn failed: {error}"),
        }
        json!(format!("{ran} tool calls ran, {failed} refused"))
    }

    /// A tool call with hooks around it (ORCS §8.4 `tool_with_hooks`).
    fn tool(&mut self, caller: &Caller, tool: &str, args: &str) -> Result<Value, String> {
        let what = format!("{tool} {args:?}");
        // The host's own permission check comes first: hooks act within
        // the caller's capabilities, never beyond them.
        let needed = if tool == "exec" { EXECUTE } else { READ };
        if caller.capabilities & needed == 0 {
            let error = format!(
                "permission denied: {} lacks {} for {what}",
                caller.fqn(),
                caps(needed)
            );
            println!(
                "{:<21} {:<20} {what:<30} => refused: needs {}, has {}",
                "(host permission)",
                caller.fqn(),
                caps(needed),
                caps(caller.capabilities)
            );
            return Err(error);
        }

        let mut ctx = self.hooks.context(
            HookPoint::ToolPreExecute,
            caller,
            json!({"tool": tool, "args": args, "capabilities": caller.capabilities, "sandbox_root": SANDBOX}),
        );
        match self
            .hooks
            .dispatch(HookPoint::ToolPreExecute, caller, &mut ctx, &what)
        {
            Verdict::Abort(reason) => {
                println!("    -> {tool} not run: {reason}");
                return Err(reason);
            }
            Verdict::Skip(value) => {
                println!("    -> {tool} not run, hook result {}", brief(&value));
                return Ok(value);
            }
            Verdict::Continue => {}
        }
        // Run with the arguments as the hooks left them.
        let args = ctx
            .payload
            .get("args")
            .and_then(Value::as_str)
            .unwrap_or(args)
            .to_string();
        let result = run_tool(tool, &args)?;

        let mut post = self.hooks.context(
            HookPoint::ToolPostExecute,
            caller,
            json!({"tool": tool, "args": args, "result": result, "elapsed_ms": 3}),
        );
        post.metadata = ctx.metadata;
        let result = match self.hooks.dispatch(
            HookPoint::ToolPostExecute,
            caller,
            &mut post,
            &format!("{tool} result"),
        ) {
            Verdict::Abort(reason) => {
                println!("    -> {tool} result blocked: {reason}");
                return Err(reason);
            }
            Verdict::Skip(value) => value,
            Verdict::Continue => post.payload.get("result").cloned().unwrap_or(Value::Null),
        };
        println!("    -> {tool} returned {}", brief(&result));
        Ok(result)
    }

    /// Spawns a child with hooks around it (ORCS §8.3): child.pre_spawn may
    /// narrow the capabilities the child gets.
    fn spawn_child(&mut self, parent: &Caller, id: &str, script: &str) -> Result<Caller, String> {
        let mut ctx = self.hooks.context(
            HookPoint::ChildPreSpawn,
            parent,
            json!({
                "child_config": {"id": id, "script": script},
                "parent_id": parent.component,
                "capabilities": parent.capabilities,
                "effective_capabilities": parent.capabilities,
            }),
        );
        let what = format!("spawn {id} caps {}", parent.capabilities);
        match self
            .hooks
            .dispatch(HookPoint::ChildPreSpawn, parent, &mut ctx, &what)
        {
            Verdict::Abort(reason) => return Err(format!("spawn refused: {reason}")),
            // A skipped spawn: no child.
            Verdict::Skip(value) => return Err(format!("spawn skipped: {value}")),
            Verdict::Continue => {}
        }
        // Rebuild the child's config from the edited context; a hook may
        // only take capabilities away.
        let granted = ctx
            .payload
            .get("capabilities")
            .and_then(Value::as_u64)
            .unwrap_or(parent.capabilities)
            & parent.capabilities;
        println!(
            "    -> {id} spawned: capabilities {} -> {}",
            caps(parent.capabilities),
            caps(granted)
        );
        let child = Caller {
            component: parent.component,
            child: Some(id.to_string()),
            principal: component_principal(parent.component),
            capabilities: granted,
        };

        let mut post = self.hooks.context(
            HookPoint::ChildPostSpawn,
            &child,
            json!({"child_id": id, "parent_id": parent.component, "capabilities": granted}),
        );
        post.metadata = ctx.metadata;
        let what = format!("spawned {id} caps {granted}");
        if let Verdict::Abort(reason) =
            self.hooks
                .dispatch(HookPoint::ChildPostSpawn, &child, &mut post, &what)
        {
            return Err(format!("child {id} stopped: {reason}"));
        }
        Ok(child)
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let hooks = Hooks::load()?;
    let program = hooks.table.program();
    let rules: BTreeSet<&str> = program
        .points
        .iter()
        .flat_map(|p| p.rules.iter().map(|r| r.id.as_str()))
        .collect();
    println!(
        "hookc host: {} rules on {} points ({} bytes), compiled from ../../rules by build.rs",
        rules.len(),
        program.points.len(),
        hooks.table.byte_len()
    );
    let mut runtime = Runtime { hooks };

    println!();
    println!("# alice asks builtin::llm to tidy up the project");
    match runtime.request(
        user("alice"),
        "builtin::llm",
        "req-1",
        "chat",
        json!({"message": "tidy up the project"}),
    ) {
        Ok(response) => println!("    -> response {}", brief(&response)),
        Err(error) => println!("    -> request failed: {error}"),
    }

    println!();
    println!("# alice asks plugin::tools for its tool list");
    match runtime.request(user("alice"), "plugin::tools", "req-2", "list", json!({})) {
        Ok(response) => println!("    -> response {}", brief(&response)),
        Err(error) => println!("    -> request failed: {error}"),
    }
    Ok(())
}
