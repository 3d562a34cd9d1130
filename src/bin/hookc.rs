//! The `hookc` command-line tool; everything lives in [`hookc::cli`].

/// Under Claude Code, `hookc claude` is a process per event, and most of
/// what it allocates lives until it exits: its small allocations are
/// bumped out of a static region ([`hookc_arena`]), 4 MiB of address
/// space that takes memory only as it is used. Every other command (the
/// language server and `watch` run for hours) allocates from the system.
#[global_allocator]
static ALLOC: hookc_arena::Arena<{ 4 << 20 }> = hookc_arena::Arena::new();

fn main() -> std::process::ExitCode {
    let claude = std::env::args_os().nth(1).is_some_and(|a| a == "claude");
    if claude {
        ALLOC.enable();
    }
    let code = hookc::cli::main();
    if claude {
        // The one sign outside the process that the arena served it (a
        // logger is set up only when `HOOKC_LOG` or `-v` asks for one;
        // without it this is a load and a branch).
        tracing::debug!(
            bytes = ALLOC.used(),
            "hook process: small allocations bumped out of the arena"
        );
    }
    code
}
