//! Dispatch allocates nothing on the matching path.
//!
//! `allocation-counter` replaces the global allocator in this test binary and
//! counts the allocations made on the current thread inside `measure`, so the
//! harness's other threads never disturb the count. With a warm scratch (one
//! dispatch first), a dispatch of an event that matches no rule, and of one
//! that ends in `abort` with a constant reason, must allocate zero times at 1,
//! 100 and 10,000 rules on the point (the shared generator in
//! `benches/common/mod.rs`). A dispatch whose rule edits the context
//! (`set payload.x = 1`) must allocate: that proves the counter counts.
//!
//! Shell views parse into the buffers of the scratch: once a dispatch has
//! parsed a command holding every test command (a 72-command pipeline,
//! `sudo bash -c …`, heredocs, substitutions, `find -exec`, `env -S`, a
//! parse error), reading the view of each of them through the cache, and a
//! whole dispatch whose rule tests their programs, flags and wrappers,
//! allocate nothing; a larger command still parses as a fresh parse does.

#![expect(clippy::expect_used, reason = "test setup fails the test")]

#[path = "../benches/common/mod.rs"]
#[expect(
    dead_code,
    reason = "the allocation test uses the generator and the events, not every helper"
)]
mod common;

use hookc::{HookContext, HookPoint, Table, Target};

/// Allocations made on this thread while `f` runs.
fn count<R>(f: impl FnOnce() -> R) -> (u64, R) {
    let mut out = None;
    let info = allocation_counter::measure(|| out = Some(f()));
    (info.count_total, out.expect("the closure ran"))
}

/// Allocations made by the second of two dispatches of `ctx` (the first warms
/// the scratch), and the outcome's kind and fired count.
fn warm_dispatch(table: &Table, ctx: &HookContext) -> (u64, hookc::OutcomeKind, usize) {
    let mut scratch = table.scratch();
    let target = Target::new(common::COMPONENT);
    let mut warm = ctx.clone();
    let _ = table.dispatch(&mut scratch, HookPoint::ToolPreExecute, &target, &mut warm);
    let mut ctx = ctx.clone();
    let (allocations, (kind, fired)) = count(|| {
        let outcome = table.dispatch(&mut scratch, HookPoint::ToolPreExecute, &target, &mut ctx);
        (outcome.kind(), outcome.fired().count())
    });
    (allocations, kind, fired)
}

#[test]
fn the_counter_counts() {
    let (allocations, v) = count(|| vec![1u8; 64]);
    assert_eq!(v.len(), 64);
    assert!(allocations >= 1, "a Vec allocation was not counted");
    let (allocations, ()) = count(|| ());
    assert_eq!(allocations, 0);
}

#[test]
fn no_match_and_constant_abort_allocate_nothing() {
    let mut failures = Vec::new();
    for n in [1, 100, 10_000] {
        let set = common::rule_set(n);
        let table = common::try_compile(&set.render()).unwrap_or_else(|e| panic!("{e}"));
        let events = common::events(&set);
        for event in [&events.no_match, &events.one_match] {
            let (allocations, kind, fired) = warm_dispatch(&table, &event.ctx);
            assert_eq!(
                fired,
                event.expected.len(),
                "{n} rules, {}: fired",
                event.name
            );
            assert_eq!(
                kind == hookc::OutcomeKind::Abort,
                event.aborts,
                "{n} rules, {}: outcome {kind:?}",
                event.name
            );
            eprintln!(
                "{n} rules, {}: {kind:?}, {allocations} allocations",
                event.name
            );
            if allocations != 0 {
                failures.push(format!(
                    "{n} rules, {}: {allocations} allocations",
                    event.name
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "dispatch allocated:\n{}",
        failures.join("\n")
    );
}

#[test]
fn an_edit_allocates() {
    let table = hookc::compile_str(
    "edit.hooks",
    "hook edit on tool.pre_execute at *::* {\n    when payload.tool == \"exec\"\n    set payload.x = 1\n}\n",
)
.expect("compiles")
.table;
    let ctx = HookContext::new(
        common::POINT,
        common::COMPONENT,
        serde_json::json!({"tool": "exec", "command": "ls -la", "size": 1}),
    );
    let (allocations, kind, fired) = warm_dispatch(&table, &ctx);
    assert_eq!(kind, hookc::OutcomeKind::Continue);
    assert_eq!(fired, 1);
    eprintln!("edit (`set payload.x = 1`): {allocations} allocations");
    assert!(
        allocations > 0,
        "an edit must allocate (the counter must count)"
    );
}

/// A field whose literals begin in several ways is searched in two
/// stages, the first a packed search built when a dispatch first reads
/// the field. A table for a long-running host builds it then, so that
/// after one warm dispatch a thousand more allocate nothing; a table for
/// one event ([`Table::for_one_event`]) reads the beginnings in place and
/// builds it, allocating once, only after the text read would have paid
/// for it.
#[test]
fn literals_that_begin_in_several_ways_allocate_only_when_warming() {
    let words = [
        "curl http://",
        "--exfil-to=",
        "/etc/passwd",
        "nc -e ",
        "base64 -d",
    ];
    let rules: String = words
        .iter()
        .enumerate()
        .map(|(i, w)| {
            format!(
                "hook r{i} on tool.pre_execute at *::* {{\n    when payload.command contains \"{w}\"\n    abort \"no\"\n}}\n"
            )
        })
        .collect();
    let table = || {
        hookc::compile_str("several.hooks", &rules)
            .expect("compiles")
            .table
    };
    let ctx = HookContext::new(
        common::POINT,
        common::COMPONENT,
        serde_json::json!({"command": "npm test -- --watch=false --reporter=dot && npm run lint --silent"}),
    );
    let thousand = |table: &Table| {
        let mut scratch = table.scratch();
        let target = Target::new(common::COMPONENT);
        let mut warm = ctx.clone();
        let _ = table.dispatch(&mut scratch, HookPoint::ToolPreExecute, &target, &mut warm);
        count(|| {
            for _ in 0..1_000 {
                let mut ctx = ctx.clone();
                let outcome =
                    table.dispatch(&mut scratch, HookPoint::ToolPreExecute, &target, &mut ctx);
                assert_eq!(outcome.kind(), hookc::OutcomeKind::Continue);
            }
        })
        .0
    };
    let clones = count(|| {
        for _ in 0..1_000 {
            drop(ctx.clone());
        }
    })
    .0;
    assert_eq!(
        thousand(&table()),
        clones,
        "only the events' clones allocate"
    );
    // The packed search needs SSSE3 on x86-64; elsewhere the walk serves.
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("ssse3") {
        assert!(
            thousand(&table().for_one_event()) > clones,
            "a table for one event builds its packed search after a while"
        );
    }
}

/// A live registry adds only a lock-free snapshot load to a dispatch: with
/// no native hooks, `Registry::dispatch_with` allocates nothing either.
#[test]
fn registry_dispatch_allocates_nothing() {
    let set = common::rule_set(100);
    let table = common::try_compile(&set.render()).unwrap_or_else(|e| panic!("{e}"));
    let events = common::events(&set);
    let registry = hookc::Registry::new(table);
    let target = Target::new(common::COMPONENT);
    let mut scratch = registry.scratch();
    for event in [&events.no_match, &events.one_match] {
        let mut warm = event.ctx.clone();
        registry.dispatch_with(
            &mut scratch,
            HookPoint::ToolPreExecute,
            &target,
            &mut warm,
            |_, _| (),
        );
        let mut ctx = event.ctx.clone();
        let (allocations, fired) = count(|| {
            registry.dispatch_with(
                &mut scratch,
                HookPoint::ToolPreExecute,
                &target,
                &mut ctx,
                |outcome, _| outcome.fired().count(),
            )
        });
        assert_eq!(fired, event.expected.len(), "{}", event.name);
        assert_eq!(
            allocations, 0,
            "{}: registry dispatch allocated",
            event.name
        );
    }
}

/// The shell views of these tests: realistic Bash commands, each under
/// 4 KiB. The first is the 1.8 KB pipeline of 72 simple commands of
/// `benches/claude.rs`; the others exercise wrappers and `-c` scripts,
/// substitutions, heredocs, `find -exec`, `env -S`, compound commands,
/// function definitions (whose names are held while their bodies are read)
/// and a parse error.
fn shell_commands() -> Vec<String> {
    let heavy = (0..12)
        .map(|i| {
            format!(
                "cd /work/p{i} && git status --short | grep -v '^??' | awk '{{print $2}}' \
                 | xargs -r sed -i 's/foo/bar/g' && npm run build -- --prod > /tmp/log{i}.txt 2>&1"
            )
        })
        .collect::<Vec<_>>()
        .join(" && ");
    let mut commands = vec![heavy];
    commands.extend(
        [
            "sudo bash -c 'rm -rf \"$HOME\"' && git push --force",
            "cat <<EOF > /tmp/notes.txt\nbuilt by $(whoami) on `hostname`\nEOF",
            "echo \"$(git rev-parse --short HEAD)\" > version.txt; rm -rf \"$(mktemp -d)\"",
            "find . -name '*.tmp' -exec rm -f {} + ; env -S 'FOO=1 rm -rf /tmp/x' true",
            "for f in $(ls *.log); do gzip -9 \"$f\"; done 2>/dev/null",
            "{ echo a; echo b; } > out.txt && if [[ -f .env ]]; then source .env; fi",
            "timeout 10 nice -n 5 xargs -0 rm -f < <(find /tmp -print0) | tee log",
            "bomb(){ bomb|bomb& };bomb; function walk { walk \"$1\"/x; }",
            "echo \"unterminated",
        ]
        .map(String::from),
    );
    commands
}

/// One command string that holds every command of [`shell_commands`], one
/// per line (the one with a parse error last): its view needs at least the
/// buffers of each of theirs.
fn warm_up_command(commands: &[String]) -> String {
    commands.join("\n")
}

/// Parsing into warm buffers allocates nothing: after the view of the
/// warm-up command (every test command, one per line), the view of each
/// test command, read through the dispatch's cache of views, allocates zero
/// times, and is the view a fresh parse gives.
#[test]
fn shell_views_parse_into_warm_buffers_without_allocating() {
    let commands = shell_commands();
    let warm = warm_up_command(&commands);
    assert!(commands.iter().all(|command| command.len() < 4096));
    let mut views = hookc::shell::Views::default();
    let mut failures = Vec::new();
    for round in 0..2 {
        views.clear();
        assert!(views.get(&warm).is_ok());
        for command in &commands {
            let (allocations, ()) = count(|| views.clear());
            assert_eq!(allocations, 0, "clearing the views allocated");
            let (allocations, view) = count(|| views.get(command).map(|view| view.commands.len()));
            let expected = hookc::shell::parse(command);
            assert_eq!(view, Ok(expected.commands.len()), "{command:?}");
            assert_eq!(views.get(command).ok(), Some(&expected), "{command:?}");
            eprintln!(
                "round {round}, {} commands, {} bytes: {allocations} allocations",
                expected.commands.len(),
                command.len()
            );
            if allocations != 0 {
                failures.push(format!("{command:?}: {allocations} allocations"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "parsing into warm buffers allocated:\n{}",
        failures.join("\n")
    );
}

/// A command larger than any the buffers have held parses the same as a
/// fresh parse, allocating for what it needs, and is then warm too.
#[test]
fn a_larger_command_than_the_warm_up_still_parses() {
    let commands = shell_commands();
    let mut views = hookc::shell::Views::default();
    assert!(views.get("ls -la").is_ok());
    let larger = commands.join(" ; ").repeat(3);
    views.clear();
    let (allocations, view) = count(|| views.get(&larger).cloned());
    assert_eq!(view, Ok(hookc::shell::parse(&larger)));
    assert!(
        allocations > 0,
        "buffers warmed for `ls -la` held a larger view"
    );
    views.clear();
    let (allocations, view) = count(|| views.get(&larger).map(|view| view.commands.len()));
    assert_eq!(view.ok(), Some(hookc::shell::parse(&larger).commands.len()));
    assert_eq!(allocations, 0, "the larger command, parsed again");
}

/// A whole dispatch whose rule reads the shell view of the command (its
/// program, flags and wrappers, with no function that builds a string)
/// allocates nothing once a dispatch has warmed the scratch with the
/// warm-up command: neither for events the rule blocks nor for those it
/// lets through.
#[test]
fn a_dispatch_reading_shell_views_allocates_nothing() {
    let table = hookc::compile_str(
        "shell.hooks",
        "hook rm on tool.pre_execute at *::* {
    when payload.tool == \"exec\"
    when any c in shell(payload.command):
        c.program in [\"rm\", \"dd\", \"mkfs\"] and (c.flags contains \"-r\" or c.flags contains \"-f\")
        or c.wrappers contains \"sudo\" and c.program == \"bash\"
    abort \"blocked\"
}
",
    )
    .expect("compiles")
    .table;
    let event = |command: &str| {
        HookContext::new(
            common::POINT,
            common::COMPONENT,
            serde_json::json!({"tool": "exec", "command": command}),
        )
    };
    let commands = shell_commands();
    let target = Target::new(common::COMPONENT);
    let mut scratch = table.scratch();
    let mut warm = event(&warm_up_command(&commands));
    let _ = table.dispatch(&mut scratch, HookPoint::ToolPreExecute, &target, &mut warm);
    let mut failures = Vec::new();
    let mut blocked = 0;
    for command in &commands {
        let mut ctx = event(command);
        let (allocations, kind) = count(|| {
            table
                .dispatch(&mut scratch, HookPoint::ToolPreExecute, &target, &mut ctx)
                .kind()
        });
        let start: String = command.chars().take(40).collect();
        eprintln!("{kind:?}, {allocations} allocations: {start:?}");
        if kind == hookc::OutcomeKind::Abort {
            blocked += 1;
        }
        if allocations != 0 {
            failures.push(format!("{command:?}: {allocations} allocations"));
        }
    }
    assert!(
        blocked > 0 && blocked < commands.len(),
        "the rule must block some commands and let others through ({blocked})"
    );
    assert!(
        failures.is_empty(),
        "dispatch allocated:\n{}",
        failures.join("\n")
    );
}
