//! Shared by the integration tests: running the `hookc` binary.

#![expect(
    clippy::expect_used,
    reason = "a test whose binary cannot run must fail"
)]

use std::ffi::OsStr;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// What one run of `hookc` printed, and how it exited.
#[derive(Debug)]
pub struct Run {
    /// The exit code; `None` when a signal ended it.
    pub code: Option<i32>,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

/// Runs `hookc` in `dir` with `args` and, if given, `stdin`; colour and
/// logging off so the output is stable.
pub fn hookc_in<S: AsRef<OsStr>>(dir: &Path, args: &[S], stdin: Option<&str>) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hookc"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env_remove("RUST_LOG")
        .env_remove("CLICOLOR_FORCE")
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the hookc binary runs");
    if let (Some(text), Some(mut pipe)) = (stdin, child.stdin.take()) {
        pipe.write_all(text.as_bytes()).expect("stdin is written");
    }
    let out = child.wait_with_output().expect("hookc finishes");
    Run {
        code: out.status.code(),
        stdout: String::from_utf8(out.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(out.stderr).expect("stderr is UTF-8"),
    }
}
