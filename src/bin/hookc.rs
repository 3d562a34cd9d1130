//! The `hookc` command-line tool; everything lives in [`hookc::cli`].

fn main() -> std::process::ExitCode {
    hookc::cli::main()
}
