//! The analysis of one simple command: its leading assignments, the
//! wrappers it runs through (with their own options), its program, flags
//! and operands, and what it runs in turn (the script of `sh -c`, the
//! command of `find -exec`, the text given to `eval`).
//!
//! The words of the command are the top of the word stack of the shared
//! [`Buffers`]; the wrappers found go onto its name stack, and the commands
//! onto its output, their strings and lists taken from its pools.

use super::buffers::{self, Buffers, Span};
use super::lex::{is_assign_name, Parser};
use super::{Command, Redirect};

/// Programs whose `-c` operand is a script, and which otherwise read one.
const SHELLS: [&str; 11] = [
    "sh", "bash", "zsh", "dash", "ksh", "fish", "ash", "mksh", "rbash", "yash", "ksh93",
];

/// Script operands that mean "read the script from standard input".
const STDIN_PATHS: [&str; 4] = ["-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"];

/// How a wrapper's options are read.
struct Spec {
    /// Short options that take an argument (attached or in the next word).
    short_arg: &'static str,
    /// Long options that take an argument when it is not given with `=`.
    long_arg: &'static [&'static str],
    /// Long options that take more than one argument, with their count
    /// (`bwrap --bind SRC DEST`).
    long_multi: &'static [(&'static str, usize)],
    /// Short options whose argument can only be attached (GNU `xargs -i`).
    optional_short: &'static str,
    /// Options after which the wrapper runs no command: it is the program.
    stop_short: &'static str,
    stop_long: &'static [&'static str],
    /// Options that make it start a shell when no command follows.
    shell_short: &'static str,
    /// `-N` (a number) is an option (`nice -5`).
    numeric: bool,
    /// Plain words before the command (`timeout DURATION`, `chroot DIR`).
    operands: usize,
    /// `NAME=value` words before the command are assignments.
    assignments: bool,
    /// With no command it starts a shell reading standard input.
    runs_shell: bool,
    /// `-` alone is an option (`env -`, which is `env -i`).
    dash_option: bool,
    /// Options whose argument is split into words that take the option's
    /// place (`env -S STRING`).
    split_short: &'static str,
    split_long: &'static [&'static str],
    /// Options after its operands too (`ssh HOST -t CMD`).
    options_after_operands: bool,
    /// Options that, right after its operands, make it the program: it
    /// runs their argument as a script itself (`flock FILE -c SCRIPT`, read
    /// as [`Runs::DashC`]).
    own_script: &'static [&'static str],
    /// What the words after its options and operands are.
    then: Then,
    /// Options that make those words a command after all (`watch -x`).
    command_short: &'static str,
    command_long: &'static [&'static str],
    /// Options that make those words a script instead (`pnpm dlx -c`).
    script_short: &'static str,
    script_long: &'static [&'static str],
    /// Options whose argument is a script it runs in place of a command
    /// (`npm exec -c SCRIPT`, `nix-shell --run SCRIPT`).
    script_arg_short: &'static str,
    script_arg_long: &'static [&'static str],
}

/// What the words after a wrapper's options and operands are.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Then {
    /// A command and its arguments.
    Command,
    /// A script, its words joined with spaces (`watch`, `ssh`).
    Script,
    /// Only the words after the first of these markers are a command;
    /// without one the wrapper runs none that is known (`kubectl exec POD
    /// -- CMD`, `gdb --args PROG ARGS`, `nix shell PKG --command CMD`),
    /// unless one of its options gives it a script (`mise exec -c SCRIPT`).
    After(&'static [&'static str]),
    /// No command: it runs only the script of a script option, found among
    /// any of its words (`nix-shell -p PKG --run SCRIPT`).
    Nothing,
}

const PLAIN: Spec = Spec {
    short_arg: "",
    long_arg: &[],
    long_multi: &[],
    optional_short: "",
    stop_short: "",
    stop_long: &[],
    shell_short: "",
    numeric: false,
    operands: 0,
    assignments: false,
    runs_shell: false,
    dash_option: false,
    split_short: "",
    split_long: &[],
    options_after_operands: false,
    own_script: &[],
    then: Then::Command,
    command_short: "",
    command_long: &[],
    script_short: "",
    script_long: &[],
    script_arg_short: "",
    script_arg_long: &[],
};

/// The options of the wrapper `name`, with its name as a constant.
fn wrapper_spec(name: &str) -> Option<(&'static str, Spec)> {
    Some(match name {
        "sudo" => (
            "sudo",
            Spec {
                short_arg: "ughpCDrtUTc",
                long_arg: &[
                    "user",
                    "group",
                    "host",
                    "prompt",
                    "close-from",
                    "chdir",
                    "role",
                    "type",
                    "other-user",
                    "command-timeout",
                    "login-class",
                ],
                stop_short: "elVvK",
                stop_long: &[
                    "edit",
                    "list",
                    "version",
                    "validate",
                    "remove-timestamp",
                    "help",
                ],
                shell_short: "si",
                assignments: true,
                ..PLAIN
            },
        ),
        "doas" => (
            "doas",
            Spec {
                short_arg: "uC",
                stop_short: "L",
                shell_short: "s",
                ..PLAIN
            },
        ),
        "env" => (
            "env",
            Spec {
                short_arg: "uCS",
                long_arg: &[
                    "unset",
                    "chdir",
                    "split-string",
                    "block-signal",
                    "default-signal",
                    "ignore-signal",
                ],
                assignments: true,
                dash_option: true,
                split_short: "S",
                split_long: &["split-string"],
                ..PLAIN
            },
        ),
        "command" => (
            "command",
            Spec {
                stop_short: "vV",
                ..PLAIN
            },
        ),
        "exec" => (
            "exec",
            Spec {
                short_arg: "a",
                ..PLAIN
            },
        ),
        "nice" => (
            "nice",
            Spec {
                short_arg: "n",
                long_arg: &["adjustment"],
                numeric: true,
                ..PLAIN
            },
        ),
        "ionice" => (
            "ionice",
            Spec {
                short_arg: "cnpPu",
                long_arg: &["class", "classdata", "pid", "pgid", "uid"],
                ..PLAIN
            },
        ),
        "time" => (
            "time",
            Spec {
                short_arg: "fo",
                long_arg: &["format", "output"],
                ..PLAIN
            },
        ),
        "timeout" => (
            "timeout",
            Spec {
                short_arg: "sk",
                long_arg: &["signal", "kill-after"],
                operands: 1,
                ..PLAIN
            },
        ),
        "stdbuf" => (
            "stdbuf",
            Spec {
                short_arg: "ioe",
                long_arg: &["input", "output", "error"],
                ..PLAIN
            },
        ),
        "chroot" => (
            "chroot",
            Spec {
                long_arg: &["userspec", "groups"],
                operands: 1,
                runs_shell: true,
                ..PLAIN
            },
        ),
        "xargs" => (
            "xargs",
            Spec {
                short_arg: "IanPdELs",
                optional_short: "iel",
                long_arg: &[
                    "arg-file",
                    "delimiter",
                    "max-args",
                    "max-procs",
                    "max-chars",
                    "process-slot-var",
                ],
                ..PLAIN
            },
        ),
        // `ssh [OPTIONS] DESTINATION [OPTIONS] [COMMAND…]`: the command
        // words, joined, are a script the remote shell runs.
        "ssh" => (
            "ssh",
            Spec {
                short_arg: "BbcDEeFIiJLlmOopQRSWw",
                operands: 1,
                options_after_operands: true,
                then: Then::Script,
                ..PLAIN
            },
        ),
        // `watch CMD…` runs its words, joined, as a script; `watch -x`
        // runs them as a command.
        "watch" => (
            "watch",
            Spec {
                short_arg: "nq",
                long_arg: &["interval", "equexit"],
                then: Then::Script,
                command_short: "x",
                command_long: &["exec"],
                ..PLAIN
            },
        ),
        "strace" => (
            "strace",
            Spec {
                short_arg: "abeEIoOpPsSuUX",
                long_arg: &[
                    "output",
                    "signal",
                    "trace",
                    "string-limit",
                    "user",
                    "env",
                    "attach",
                ],
                ..PLAIN
            },
        ),
        "ltrace" => (
            "ltrace",
            Spec {
                short_arg: "aAeElnopsuwxXDF",
                long_arg: &["output", "library"],
                ..PLAIN
            },
        ),
        // Scheduling, CPU and memory placement, resource limits: each runs
        // its command after its own options and operands.
        "chrt" => (
            "chrt",
            Spec {
                short_arg: "TPD",
                long_arg: &["sched-runtime", "sched-period", "sched-deadline"],
                // `-p PID` and `-m` act on a process or print: no command.
                stop_short: "pmhV",
                stop_long: &["pid", "max", "help", "version"],
                operands: 1,
                ..PLAIN
            },
        ),
        "taskset" => (
            "taskset",
            Spec {
                stop_short: "phV",
                stop_long: &["pid", "help", "version"],
                operands: 1,
                ..PLAIN
            },
        ),
        "numactl" => (
            "numactl",
            Spec {
                short_arg: "imNCpPw",
                long_arg: &[
                    "interleave",
                    "membind",
                    "cpunodebind",
                    "physcpubind",
                    "preferred",
                    "preferred-many",
                    "weighted-interleave",
                ],
                stop_short: "sH",
                stop_long: &["show", "hardware"],
                ..PLAIN
            },
        ),
        "prlimit" => (
            "prlimit",
            Spec {
                short_arg: "po",
                long_arg: &["pid", "output"],
                // A resource's limits are attached (`-n1024`) or after `=`.
                optional_short: "cdefilmnqrstuvxy",
                ..PLAIN
            },
        ),
        "cpulimit" => (
            "cpulimit",
            Spec {
                short_arg: "lpPec",
                long_arg: &["limit", "pid", "path", "exe", "cpu"],
                ..PLAIN
            },
        ),
        "trickle" => (
            "trickle",
            Spec {
                short_arg: "duwtln",
                ..PLAIN
            },
        ),
        // Namespaces, privileges and sandboxes: with no command most start
        // a shell.
        "unshare" => (
            "unshare",
            Spec {
                short_arg: "SGRw",
                long_arg: &[
                    "setuid",
                    "setgid",
                    "root",
                    "wd",
                    "propagation",
                    "setgroups",
                    "map-user",
                    "map-group",
                    "map-users",
                    "map-groups",
                    "monotonic",
                    "boottime",
                ],
                stop_short: "hV",
                stop_long: &["help", "version"],
                runs_shell: true,
                ..PLAIN
            },
        ),
        "nsenter" => (
            "nsenter",
            Spec {
                short_arg: "tSG",
                long_arg: &["target", "setuid", "setgid"],
                // A namespace's file is attached (`-m/proc/1/ns/mnt`).
                optional_short: "muinpUCTrw",
                stop_short: "hV",
                stop_long: &["help", "version"],
                runs_shell: true,
                ..PLAIN
            },
        ),
        "setpriv" => (
            "setpriv",
            Spec {
                long_arg: &[
                    "reuid",
                    "regid",
                    "ruid",
                    "euid",
                    "rgid",
                    "egid",
                    "groups",
                    "inh-caps",
                    "ambient-caps",
                    "bounding-set",
                    "securebits",
                    "pdeathsig",
                    "selinux-label",
                    "apparmor-profile",
                    "landlock-access",
                    "landlock-rule",
                    "seccomp-filter",
                ],
                stop_short: "dhV",
                stop_long: &["dump", "help", "version"],
                ..PLAIN
            },
        ),
        "pkexec" => (
            "pkexec",
            Spec {
                long_arg: &["user"],
                stop_long: &["help", "version"],
                runs_shell: true,
                ..PLAIN
            },
        ),
        "fakeroot" => (
            "fakeroot",
            Spec {
                short_arg: "lisb",
                long_arg: &["lib", "faked", "fd-base"],
                stop_short: "hv",
                stop_long: &["help", "version"],
                runs_shell: true,
                ..PLAIN
            },
        ),
        "firejail" => (
            "firejail",
            Spec {
                stop_long: &["help", "version", "list", "tree", "top"],
                runs_shell: true,
                ..PLAIN
            },
        ),
        "systemd-run" => (
            "systemd-run",
            Spec {
                short_arg: "upEHMC",
                long_arg: &[
                    "unit",
                    "property",
                    "description",
                    "slice",
                    "uid",
                    "gid",
                    "nice",
                    "working-directory",
                    "setenv",
                    "host",
                    "machine",
                    "capsule",
                    "service-type",
                    "on-active",
                    "on-boot",
                    "on-startup",
                    "on-unit-active",
                    "on-unit-inactive",
                    "on-calendar",
                    "timer-property",
                    "path-property",
                    "socket-property",
                ],
                stop_long: &["help", "version"],
                shell_short: "S",
                ..PLAIN
            },
        ),
        "systemd-inhibit" => (
            "systemd-inhibit",
            Spec {
                long_arg: &["what", "who", "why", "mode"],
                stop_long: &["list", "help", "version"],
                ..PLAIN
            },
        ),
        // Proxies, clocks, displays and debuggers that run a command as given.
        "proxychains" | "proxychains4" => (
            "proxychains",
            Spec {
                short_arg: "f",
                ..PLAIN
            },
        ),
        "torsocks" => (
            "torsocks",
            Spec {
                short_arg: "upaP",
                long_arg: &["user", "pass", "address", "port"],
                stop_long: &["help", "version"],
                ..PLAIN
            },
        ),
        "faketime" => (
            "faketime",
            Spec {
                short_arg: "p",
                long_arg: &["date-prog"],
                operands: 1,
                ..PLAIN
            },
        ),
        "xvfb-run" => (
            "xvfb-run",
            Spec {
                short_arg: "efnpsw",
                long_arg: &[
                    "error-file",
                    "auth-file",
                    "server-num",
                    "xauth-protocol",
                    "server-args",
                    "wait",
                ],
                ..PLAIN
            },
        ),
        "caffeinate" => (
            "caffeinate",
            Spec {
                short_arg: "tw",
                ..PLAIN
            },
        ),
        // GNU parallel: the words before `:::` are the command, run once per
        // argument after it (or per line of standard input).
        "parallel" => (
            "parallel",
            Spec {
                short_arg: "jSadEICnNLsP",
                optional_short: "iel",
                long_arg: &[
                    "jobs",
                    "sshlogin",
                    "sshloginfile",
                    "arg-file",
                    "delimiter",
                    "colsep",
                    "max-args",
                    "max-replace-args",
                    "max-lines",
                    "max-chars",
                    "joblog",
                    "results",
                    "tmpdir",
                    "workdir",
                    "wd",
                    "basefile",
                    "return",
                    "env",
                    "tag-string",
                    "timeout",
                    "retries",
                    "delay",
                    "memfree",
                    "load",
                    "halt",
                    "transferfile",
                ],
                stop_long: &["help", "version", "number-of-cpus", "number-of-cores"],
                runs_shell: true,
                ..PLAIN
            },
        ),
        // `flock FILE COMMAND…`; `flock FILE -c SCRIPT` runs a script;
        // `flock FD` runs nothing.
        "flock" => (
            "flock",
            Spec {
                short_arg: "wE",
                long_arg: &["timeout", "wait", "conflict-exit-code"],
                stop_short: "hV",
                stop_long: &["help", "version"],
                operands: 1,
                own_script: &["-c", "--command"],
                ..PLAIN
            },
        ),
        // Package runners: `npx rimraf dist` runs `rimraf` (installing it
        // first if needed).
        "npx" | "bunx" | "pnpx" => ("npx", NPM_EXEC),
        "uvx" => ("uv", UV_RUN),
        // Terminals and sessions that run a command given after their
        // options (`screen -dmS NAME CMD…`), or after a marker.
        "unbuffer" => ("unbuffer", PLAIN),
        "sshpass" => (
            "sshpass",
            Spec {
                // `-p PASSWORD`, `-f FILE`, `-d FD`, `-P PROMPT`.
                short_arg: "pfdP",
                stop_short: "hV",
                ..PLAIN
            },
        ),
        // `-r`, `-R`, `-x` reattach, `-X` sends a screen command, `-Q`
        // queries: no command of its own.
        "screen" => (
            "screen",
            Spec {
                short_arg: "ScehpTts",
                stop_short: "rRxXQvV",
                ..PLAIN
            },
        ),
        "gdb" => (
            "gdb",
            Spec {
                then: Then::After(&["--args", "-args"]),
                ..PLAIN
            },
        ),
        "lldb" => (
            "lldb",
            Spec {
                then: Then::After(&["--"]),
                ..PLAIN
            },
        ),
        "xterm" | "uxterm" | "urxvt" | "rxvt" | "konsole" | "alacritty" => (
            "xterm",
            Spec {
                then: Then::After(&["-e", "--command"]),
                ..PLAIN
            },
        ),
        "gnome-terminal" => (
            "gnome-terminal",
            Spec {
                then: Then::After(&["--", "-x", "--execute"]),
                ..PLAIN
            },
        ),
        // `watchexec -e rs -- cargo test` or `watchexec 'make && ./run'`:
        // its words go to a shell, unless `-n` runs them as a command.
        "watchexec" => (
            "watchexec",
            Spec {
                short_arg: "wWFosdEefji",
                long_arg: &[
                    "watch",
                    "watch-non-recursive",
                    "watch-file",
                    "on-busy-update",
                    "signal",
                    "stop-signal",
                    "stop-timeout",
                    "map-signal",
                    "debounce",
                    "delay-run",
                    "shell",
                    "emit-events-to",
                    "env",
                    "wrap-process",
                    "exts",
                    "filter",
                    "filter-file",
                    "filter-prog",
                    "ignore",
                    "ignore-file",
                    "fs-events",
                    "project-origin",
                    "workdir",
                    "socket",
                    "timeout",
                    "color",
                ],
                stop_short: "hV",
                stop_long: &["help", "version", "manual", "completions"],
                then: Then::Script,
                command_short: "n",
                ..PLAIN
            },
        ),
        // bubblewrap: its options take one, two or three values.
        "bwrap" => (
            "bwrap",
            Spec {
                long_arg: &[
                    "args",
                    "argv0",
                    "userns",
                    "userns2",
                    "pidns",
                    "uid",
                    "gid",
                    "hostname",
                    "chdir",
                    "unsetenv",
                    "lock-file",
                    "sync-fd",
                    "remount-ro",
                    "exec-label",
                    "file-label",
                    "proc",
                    "dev",
                    "tmpfs",
                    "mqueue",
                    "dir",
                    "seccomp",
                    "add-seccomp-fd",
                    "block-fd",
                    "userns-block-fd",
                    "info-fd",
                    "json-status-fd",
                    "cap-add",
                    "cap-drop",
                    "perms",
                    "size",
                    "overlay-src",
                    "tmp-overlay",
                    "ro-overlay",
                ],
                long_multi: &[
                    ("setenv", 2),
                    ("bind", 2),
                    ("bind-try", 2),
                    ("dev-bind", 2),
                    ("dev-bind-try", 2),
                    ("ro-bind", 2),
                    ("ro-bind-try", 2),
                    ("bind-fd", 2),
                    ("ro-bind-fd", 2),
                    ("file", 2),
                    ("bind-data", 2),
                    ("ro-bind-data", 2),
                    ("symlink", 2),
                    ("chmod", 2),
                    ("overlay", 3),
                ],
                stop_long: &["help", "version"],
                ..PLAIN
            },
        ),
        "proot" => (
            "proot",
            Spec {
                short_arg: "rbmqwkivSRp",
                long_arg: &[
                    "rootfs",
                    "bind",
                    "mount",
                    "qemu",
                    "pwd",
                    "cwd",
                    "kernel-release",
                    "change-id",
                    "verbose",
                    "port",
                ],
                stop_short: "hV",
                stop_long: &["help", "version", "usage"],
                runs_shell: true,
                ..PLAIN
            },
        ),
        // `nix-shell -p PKG… --run SCRIPT` (or `--command SCRIPT`); without
        // one it starts an interactive shell.
        "nix-shell" => (
            "nix-shell",
            Spec {
                short_arg: "IAk",
                long_arg: &["attr", "keep", "include"],
                long_multi: &[("arg", 2), ("argstr", 2), ("option", 2)],
                script_arg_long: &["run", "command"],
                then: Then::Nothing,
                ..PLAIN
            },
        ),
        // uutils' multicall binary: `coreutils rm …`, or the applet named by
        // `--coreutils-prog=rm`.
        "coreutils" => (
            "coreutils",
            Spec {
                stop_long: &["help", "version", "list"],
                split_long: &["coreutils-prog"],
                ..PLAIN
            },
        ),
        "catchsegv" => ("catchsegv", PLAIN),
        "valgrind" => ("valgrind", PLAIN),
        "dbus-run-session" => ("dbus-run-session", PLAIN),
        "builtin" => ("builtin", PLAIN),
        "nohup" => ("nohup", PLAIN),
        "setsid" => ("setsid", PLAIN),
        "busybox" => ("busybox", PLAIN),
        "toybox" => ("toybox", PLAIN),
        "coproc" => ("coproc", PLAIN),
        "nocorrect" => ("nocorrect", PLAIN),
        "noglob" => ("noglob", PLAIN),
        _ => return None,
    })
}

/// `npm exec` and `npx`: `npx rimraf dist` runs `rimraf` (installing it
/// first if needed); `-c`/`--call` gives a script instead.
const NPM_EXEC: Spec = Spec {
    short_arg: "pw",
    long_arg: &[
        "package",
        "workspace",
        "node-options",
        "registry",
        "cache",
        "prefix",
        "userconfig",
        "loglevel",
        "allow-scripts",
    ],
    stop_short: "h",
    stop_long: &["help", "version"],
    script_arg_short: "c",
    script_arg_long: &["call"],
    ..PLAIN
};

/// `uv run` and `uv tool run` (`uvx`): the options that take a value
/// (`uv run --with rich -p 3.12 python x.py`).
const UV_RUN: Spec = Spec {
    short_arg: "pifCPw",
    long_arg: &[
        "python",
        "with",
        "with-editable",
        "with-requirements",
        "from",
        "extra",
        "no-extra",
        "group",
        "no-group",
        "only-group",
        "package",
        "env-file",
        "index",
        "default-index",
        "index-url",
        "extra-index-url",
        "find-links",
        "index-strategy",
        "keyring-provider",
        "resolution",
        "prerelease",
        "fork-strategy",
        "exclude-newer",
        "exclude-newer-package",
        "no-build-isolation-package",
        "config-setting",
        "config-settings-package",
        "link-mode",
        "refresh-package",
        "reinstall-package",
        "upgrade-package",
        "no-binary-package",
        "no-build-package",
        "python-platform",
        "torch-backend",
        "cache-dir",
        "directory",
        "project",
        "config-file",
        "color",
        "python-preference",
        "allow-insecure-host",
    ],
    stop_short: "h",
    stop_long: &["help"],
    ..PLAIN
};

/// The programs that run a command through one of their subcommands
/// (`uv run`, `docker exec`), by name: the name their wrapper is known by.
fn launcher(name: &str) -> Option<&'static str> {
    Some(match name {
        "docker" | "podman" => "docker",
        "kubectl" | "oc" => "kubectl",
        "conda" | "mamba" | "micromamba" => "conda",
        "uv" => "uv",
        "poetry" => "poetry",
        "pipenv" => "pipenv",
        "pdm" => "pdm",
        "hatch" => "hatch",
        "pnpm" => "pnpm",
        "yarn" => "yarn",
        "npm" => "npm",
        "bundle" => "bundle",
        "mise" => "mise",
        "direnv" => "direnv",
        "nix" => "nix",
        "tmux" => "tmux",
        _ => return None,
    })
}

/// The options a launcher takes before its subcommand (`docker --context
/// prod exec`, `tmux -L work new`, `poetry -C app run`).
fn launcher_options(launcher: &str) -> Spec {
    match launcher {
        "docker" => Spec {
            short_arg: "cHl",
            long_arg: &[
                "config",
                "context",
                "host",
                "log-level",
                "tlscacert",
                "tlscert",
                "tlskey",
                "connection",
                "url",
                "root",
                "runroot",
            ],
            ..PLAIN
        },
        "kubectl" => Spec {
            short_arg: "ns",
            long_arg: &[
                "namespace",
                "context",
                "kubeconfig",
                "cluster",
                "user",
                "server",
                "as",
                "token",
            ],
            ..PLAIN
        },
        "uv" => UV_RUN,
        "poetry" => Spec {
            short_arg: "CP",
            long_arg: &["directory", "project"],
            ..PLAIN
        },
        "pipenv" => Spec {
            long_arg: &["python", "pypi-mirror"],
            ..PLAIN
        },
        "pdm" => Spec {
            short_arg: "c",
            long_arg: &["config"],
            ..PLAIN
        },
        "hatch" => Spec {
            short_arg: "ep",
            long_arg: &["env", "project", "data-dir", "cache-dir", "config"],
            ..PLAIN
        },
        "conda" => Spec {
            short_arg: "r",
            long_arg: &["rc-file", "root-prefix"],
            ..PLAIN
        },
        "pnpm" => Spec {
            short_arg: "CF",
            long_arg: &["dir", "filter", "reporter"],
            ..PLAIN
        },
        "yarn" => Spec {
            long_arg: &["cwd"],
            ..PLAIN
        },
        "npm" => Spec {
            short_arg: "w",
            long_arg: &[
                "prefix",
                "workspace",
                "registry",
                "cache",
                "userconfig",
                "loglevel",
            ],
            ..PLAIN
        },
        "mise" => Spec {
            short_arg: "CE",
            long_arg: &["cd", "env"],
            ..PLAIN
        },
        "nix" => Spec {
            long_arg: &[
                "extra-experimental-features",
                "experimental-features",
                "store",
                "log-format",
            ],
            long_multi: &[("option", 2)],
            ..PLAIN
        },
        // `tmux -c SCRIPT` runs a script in the default shell.
        "tmux" => Spec {
            short_arg: "fLST",
            stop_short: "V",
            script_arg_short: "c",
            ..PLAIN
        },
        _ => PLAIN,
    }
}

/// The options of a launcher's subcommand that runs a command, read from
/// the subcommand's word on; `None` for its other subcommands (`uv pip`,
/// `tmux ls`, `npm install`).
fn subcommand_spec(launcher: &str, subcommand: &str) -> Option<Spec> {
    Some(match (launcher, subcommand) {
        ("docker", "exec") => Spec {
            short_arg: "euw",
            long_arg: &["env", "env-file", "user", "workdir", "detach-keys"],
            operands: 1,
            ..PLAIN
        },
        ("kubectl", "exec") => Spec {
            then: Then::After(&["--"]),
            ..PLAIN
        },
        ("uv", "run") => UV_RUN,
        ("poetry", "run") => launcher_options("poetry"),
        ("pipenv", "run") => launcher_options("pipenv"),
        ("pdm", "run") => Spec {
            short_arg: "pc",
            long_arg: &["project", "venv", "skip", "config"],
            stop_short: "lh",
            stop_long: &["list", "help"],
            ..PLAIN
        },
        ("hatch", "run") => Spec {
            short_arg: "epixf",
            long_arg: &["env", "project", "include", "exclude", "filter"],
            stop_short: "h",
            stop_long: &["help"],
            ..PLAIN
        },
        ("conda", "run") => Spec {
            short_arg: "npaer",
            long_arg: &[
                "name",
                "prefix",
                "cwd",
                "attach",
                "env",
                "label",
                "root-prefix",
                "rc-file",
            ],
            stop_short: "h",
            stop_long: &["help"],
            ..PLAIN
        },
        // `pnpm dlx -c 'CMD | CMD'` runs its words as a shell script.
        ("pnpm", "dlx" | "exec") => Spec {
            short_arg: "CF",
            long_arg: &[
                "package",
                "filter",
                "dir",
                "reporter",
                "workspace-concurrency",
                "resume-from",
                "allow-build",
            ],
            stop_short: "h",
            stop_long: &["help"],
            script_short: "c",
            script_long: &["shell-mode"],
            ..PLAIN
        },
        ("yarn", "dlx" | "exec") => Spec {
            short_arg: "p",
            long_arg: &["package", "cwd"],
            stop_short: "h",
            stop_long: &["help"],
            ..PLAIN
        },
        ("npm", "exec" | "x") => NPM_EXEC,
        ("bundle", "exec") => Spec {
            long_arg: &["gemfile"],
            ..PLAIN
        },
        // `mise exec node@22 -- CMD`: the tools, then the command after
        // `--`; `-c`/`--command` gives a script.
        ("mise", "exec" | "x") => Spec {
            short_arg: "jCE",
            long_arg: &["jobs", "cd", "env"],
            stop_short: "h",
            stop_long: &["help"],
            script_arg_short: "c",
            script_arg_long: &["command"],
            then: Then::After(&["--"]),
            ..PLAIN
        },
        ("direnv", "exec") => Spec {
            operands: 1,
            ..PLAIN
        },
        // `nix shell PKG… --command CMD…`, `nix develop -c CMD…`.
        ("nix", "shell" | "develop") => Spec {
            then: Then::After(&["--command", "-c"]),
            ..PLAIN
        },
        // The trailing words of these are a shell command (joined, as tmux
        // does when it hands them to the shell).
        ("tmux", "new-session" | "new") => Spec {
            short_arg: "cefFnstxy",
            then: Then::Script,
            ..PLAIN
        },
        ("tmux", "new-window" | "neww") => Spec {
            short_arg: "ceFnt",
            then: Then::Script,
            ..PLAIN
        },
        ("tmux", "split-window" | "splitw") => Spec {
            short_arg: "celtFp",
            then: Then::Script,
            ..PLAIN
        },
        ("tmux", "respawn-pane" | "respawnp" | "respawn-window" | "respawnw") => Spec {
            short_arg: "cet",
            then: Then::Script,
            ..PLAIN
        },
        // `run-shell -C` runs a tmux command, not a shell command.
        ("tmux", "run-shell" | "run") => Spec {
            short_arg: "cdt",
            stop_short: "C",
            then: Then::Script,
            ..PLAIN
        },
        ("tmux", "display-popup" | "popup") => Spec {
            short_arg: "bcdehsStTwxy",
            stop_short: "C",
            then: Then::Script,
            ..PLAIN
        },
        ("tmux", "pipe-pane" | "pipep") => Spec {
            short_arg: "t",
            then: Then::Script,
            ..PLAIN
        },
        _ => return None,
    })
}

/// What a run of a wrapper's options has found so far.
struct Options {
    /// The first word not yet read.
    next: usize,
    /// With no command, the wrapper starts a shell.
    shell: bool,
    /// The words after them are a command, not a script (`watch -x`).
    command: bool,
    /// The words after them are a script, not a command (`pnpm dlx -c`).
    script_mode: bool,
    /// The argument of a script option: the script it runs instead of a
    /// command (`npm exec -c SCRIPT`).
    script: Option<Span>,
}

impl Options {
    /// Nothing read yet of the options after the word at `at`; `shell`:
    /// with no command, the wrapper starts a shell.
    fn after(at: usize, shell: bool) -> Options {
        Options {
            next: at + 1,
            shell,
            command: false,
            script_mode: false,
            script: None,
        }
    }
}

/// What follows a wrapper's options.
enum Skip {
    /// The wrapper runs no command: it is the program.
    Program,
    /// The command starts at `next` (none: the wrapper is the program, and
    /// starts a shell if `shell`).
    Command { next: usize, shell: bool },
    /// It runs a script: its words joined from `next` on (`watch`, `ssh`),
    /// or the argument of a script option (`npm exec -c SCRIPT`).
    Script { script: String },
}

/// What a program runs in turn, by its name.
enum Runs {
    /// A shell (its name): its `-c` script.
    Shell(&'static str),
    Eval,
    Source,
    Find,
    /// `fd … -x CMD` (and `fdfind`).
    Fd,
    Trap,
    /// `at` or `batch` (its name): the commands it reads from standard
    /// input, later, unless it only lists, shows or removes jobs, or reads
    /// them from a file (`-f`).
    At(&'static str),
    /// `su`, `runuser`, `sg`, `script` or `flock` (`name`): its `-c`
    /// script. Without one, su and the others run a shell, or a command
    /// string (`sg GROUP CMD`), that cannot be read (`dynamic_without`);
    /// `flock FILE CMD` is read as a wrapper instead.
    DashC {
        name: &'static str,
        dynamic_without: bool,
    },
    /// Python, Node.js, Perl, Ruby, PHP or Lua: its program, which is
    /// dynamic when it comes from a pipe or an expansion.
    Interpreter(&'static super::interpreters::Interpreter),
    Nothing,
}

impl Runs {
    /// A program that runs a shell, or a string, when given no `-c` script.
    fn su(name: &'static str) -> Runs {
        Runs::DashC {
            name,
            dynamic_without: true,
        }
    }

    fn of(program: &str) -> Runs {
        if let Some(shell) = SHELLS.iter().find(|shell| **shell == program) {
            return Runs::Shell(shell);
        }
        if let Some(interpreter) = super::interpreters::of(program) {
            return Runs::Interpreter(interpreter);
        }
        match program {
            "eval" => Runs::Eval,
            "source" | "." => Runs::Source,
            "find" => Runs::Find,
            "fd" | "fdfind" => Runs::Fd,
            "trap" => Runs::Trap,
            "at" => Runs::At("at"),
            "batch" => Runs::At("batch"),
            "su" => Runs::su("su"),
            "runuser" => Runs::su("runuser"),
            "sg" => Runs::su("sg"),
            "script" => Runs::su("script"),
            "flock" => Runs::DashC {
                name: "flock",
                dynamic_without: false,
            },
            _ => Runs::Nothing,
        }
    }
}

impl Parser<'_> {
    /// The commands one simple command runs, pushed onto the output: the
    /// command itself (its wrappers set aside), then those it runs in turn.
    /// Its words are `b.words[words..]`; `b.names[names..]` are the programs
    /// it is already known to run under.
    pub(super) fn analyze(&mut self, words: usize, names: usize, redirects: Vec<Redirect>) {
        let top = self.b.names.len();
        let mut command = Command {
            redirects,
            ..Command::default()
        };
        let assigned = self
            .b
            .words
            .get(words..)
            .unwrap_or_default()
            .iter()
            .take_while(|word| word.assign)
            .count();
        let mut at = words + assigned;
        command.assignments = self.b.copy_words(words, at);
        let mut entered = 0;
        let mut program = None;
        while let Some(word) = self.b.words.get(at).copied() {
            if word.dynamic() {
                command.dynamic = true;
                program = Some(at);
                break;
            }
            let written = self.text(word.text);
            let windows = without_exe(written).len() < written.len();
            let base = program_span(written, word.text, false);
            let (wrapper, launcher) = {
                let mut buffer = [0; 32];
                let base = known_name(self.text(base), windows, &mut buffer);
                (wrapper_spec(base), launcher(base))
            };
            // A wrapper by its name, or a launcher's subcommand that runs a
            // command (read from the subcommand's word on).
            let found = match (wrapper, launcher) {
                (Some((name, spec)), _) => Some((name, spec, at)),
                (None, Some(launcher)) => self.subcommand(launcher, at, &mut entered),
                (None, None) => None,
            };
            let Some((name, spec, from)) = found else {
                program = Some(at);
                break;
            };
            match self.skip_options(&spec, from, &mut command, &mut entered) {
                Skip::Program => {
                    program = Some(at);
                    break;
                }
                Skip::Command { next, shell } => {
                    if next >= self.b.words.len() {
                        command.dynamic |= shell;
                        program = Some(at);
                        break;
                    }
                    self.b.names.push(name);
                    at = next;
                }
                Skip::Script { script } => {
                    let first = self.b.out.len();
                    self.nested(script, word.at, names, name);
                    if self.b.out.len() > first {
                        let Buffers {
                            out,
                            redirects,
                            lists,
                            ..
                        } = &mut *self.b;
                        if let Some(inner) = out.get_mut(first) {
                            redirects.reserve(&mut inner.redirects, command.redirects.len());
                            inner.redirects.append(&mut command.redirects);
                            lists.reserve(&mut inner.assignments, command.assignments.len());
                            inner.assignments.append(&mut command.assignments);
                        }
                        self.b.recycle_command(command);
                        for _ in 0..entered {
                            self.leave();
                        }
                        self.b.names.truncate(top);
                        return;
                    }
                    program = Some(at);
                    break;
                }
            }
        }
        let word = program.and_then(|index| self.b.words.get(index).copied());
        if let (Some(index), Some(word)) = (program, word) {
            command.name = self.b.copy_span(word.text);
            let written = self.text(word.text);
            let windows = !word.dynamic() && without_exe(written).len() < written.len();
            let program = program_span(written, word.text, word.dynamic());
            command.program = self.b.copy_span(program);
            if windows {
                command.program.make_ascii_lowercase();
            }
            command.args = self.b.copy_words(index + 1, self.b.words.len());
            command.globs = self.b.copy_globs(index + 1, self.b.words.len());
            split_flags(self.b, &mut command);
        }
        command.wrappers = self.b.copy_names(names);
        // A program a wrapper fills in as it runs (`xargs -I{} {}`, `find
        // . -exec {} \;`, `parallel {} :::`, `fd -x {}`): what runs is the
        // wrapper's input, or a file's name. (A `-c` script's commands are
        // marked in `nested`, which knows the wrappers around the script.)
        command.dynamic |= filled_in(self.b.names.get(names..).unwrap_or_default(), &command.name);
        let dynamic = command.dynamic;
        // An argument whose braces were not expanded (quoted in part, or
        // past the limits): its words are known only when bash runs it.
        // Set after `dynamic` is read, so that what the program runs in turn
        // (`sh -c`, `xargs`) is still read.
        command.dynamic |= program.is_some_and(|index| {
            self.b
                .words
                .get(index + 1..)
                .unwrap_or_default()
                .iter()
                .any(|w| w.brace)
        });
        let index = self.b.out.len();
        self.b.out.push(command);
        if let (Some(rest), false) = (program, dynamic) {
            self.runs_in_turn(index, rest + 1, names);
        }
        for _ in 0..entered {
            self.leave();
        }
        self.b.names.truncate(top);
    }

    /// A launcher's subcommand that runs a command (`docker exec`, `uv
    /// run`, also after a group: `docker container exec`, `uv tool run`):
    /// the wrapper's name, its options, and the index of the subcommand's
    /// word, after the launcher's own options. `tmux -c SCRIPT` is read as
    /// the launcher running only that script.
    fn subcommand(
        &mut self,
        launcher: &'static str,
        at: usize,
        entered: &mut usize,
    ) -> Option<(&'static str, Spec, usize)> {
        let own = launcher_options(launcher);
        let mut options = Options::after(at, false);
        if !self.read_options(&own, &mut options, entered) {
            return None;
        }
        if options.script.is_some() {
            let spec = Spec {
                then: Then::Nothing,
                ..own
            };
            return Some((launcher, spec, at));
        }
        let word = |index: usize| self.b.words.get(index).map(|word| self.text(word.text));
        let mut index = options.next;
        if matches!(
            (launcher, word(index)),
            ("docker", Some("container")) | ("uv", Some("tool"))
        ) {
            index += 1;
        }
        let spec = subcommand_spec(launcher, word(index)?)?;
        Some((launcher, spec, index))
    }

    /// Reads the options and operands of the wrapper at `b.words[at]`.
    fn skip_options(
        &mut self,
        spec: &Spec,
        at: usize,
        command: &mut Command,
        entered: &mut usize,
    ) -> Skip {
        let mut options = Options::after(at, spec.runs_shell);
        match spec.then {
            Then::After(markers) => {
                // An option may give it a script (`mise exec -c SCRIPT`);
                // otherwise only a marker starts its command.
                if self.read_options(spec, &mut options, entered) {
                    if let Some(script) = options.script {
                        return Skip::Script {
                            script: self.script(script),
                        };
                    }
                }
                let words = self.b.words.get(at + 1..).unwrap_or_default();
                let marker = words
                    .iter()
                    .position(|word| markers.contains(&self.text(word.text)));
                return match marker {
                    Some(marker) => Skip::Command {
                        next: at + 1 + marker + 1,
                        shell: false,
                    },
                    None => Skip::Program,
                };
            }
            Then::Nothing => {
                // Its options and operands come in any order: each run of
                // options is read, and the word that ends it passed over.
                while self.read_options(spec, &mut options, entered) {
                    if let Some(script) = options.script {
                        return Skip::Script {
                            script: self.script(script),
                        };
                    }
                    if options.next >= self.b.words.len() {
                        break;
                    }
                    options.next += 1;
                }
                return Skip::Program;
            }
            Then::Command | Then::Script => {}
        }
        if !self.read_options(spec, &mut options, entered) {
            return Skip::Program;
        }
        if let Some(script) = options.script {
            return Skip::Script {
                script: self.script(script),
            };
        }
        let mut next = options.next;
        if spec.assignments {
            while let Some(word) = self.b.words.get(next).copied() {
                if !is_assignment_text(self.text(word.text)) {
                    break;
                }
                let Buffers {
                    lists,
                    strings,
                    text,
                    ..
                } = &mut *self.b;
                lists.reserve(&mut command.assignments, 1);
                command
                    .assignments
                    .push(strings.copy(buffers::text(text, word.text)));
                next += 1;
            }
        }
        next += spec.operands;
        let own_script = self
            .b
            .words
            .get(next)
            .is_some_and(|word| spec.own_script.contains(&self.text(word.text)));
        if own_script {
            return Skip::Program;
        }
        options.next = next;
        if spec.options_after_operands && !self.read_options(spec, &mut options, entered) {
            return Skip::Program;
        }
        let Options {
            next,
            shell,
            command,
            script_mode,
            script,
        } = options;
        if let Some(script) = script {
            return Skip::Script {
                script: self.script(script),
            };
        }
        let words = matches!(
            (spec.then, command, script_mode),
            (Then::Script, false, _) | (Then::Command, _, true)
        );
        if words {
            Skip::Script {
                script: self.join(next, self.b.words.len()),
            }
        } else {
            Skip::Command { next, shell }
        }
    }

    /// Reads one run of a wrapper's options from `options.next`, up to the
    /// first word that is no option (or past `--`). False when an option
    /// makes the wrapper the program.
    fn read_options(&mut self, spec: &Spec, options: &mut Options, entered: &mut usize) -> bool {
        while let Some(word) = self.b.words.get(options.next).copied() {
            let next = options.next;
            let text = self.text(word.text);
            if text == "--" {
                options.next += 1;
                break;
            }
            if text == "-" {
                if spec.dash_option {
                    options.next += 1;
                    continue;
                }
                break;
            }
            if let Some(long) = text.strip_prefix("--") {
                let (option, value) = match long.split_once('=') {
                    Some((option, value)) => (option, Some(value)),
                    None => (long, None),
                };
                if spec.stop_long.contains(&option) {
                    return false;
                }
                options.command |= spec.command_long.contains(&option);
                options.script_mode |= spec.script_long.contains(&option);
                if spec.script_arg_long.contains(&option) {
                    options.script = Some(match value {
                        Some(value) => word.text.sub(text.len() - value.len(), text.len()),
                        None => self.word_after(next),
                    });
                    return true;
                }
                if spec.split_long.contains(&option) {
                    let (string, used) = match value {
                        Some(value) => (word.text.sub(text.len() - value.len(), text.len()), 1),
                        None => (self.word_after(next), 2),
                    };
                    if !self.split_env(next, used, string, word.at, entered) {
                        return false;
                    }
                    continue;
                }
                let arguments = match spec.long_multi.iter().find(|(name, _)| *name == option) {
                    Some((_, count)) => *count,
                    None => usize::from(spec.long_arg.contains(&option)),
                };
                // An argument given with `=` is in the option's own word.
                options.next += 1 + arguments - usize::from(value.is_some() && arguments > 0);
                continue;
            }
            let Some(cluster) = text.strip_prefix('-').filter(|cluster| !cluster.is_empty()) else {
                break;
            };
            if spec.numeric && cluster.bytes().all(|b| b.is_ascii_digit()) {
                options.next += 1;
                continue;
            }
            let mut used = 1;
            let mut split = None;
            for (index, option) in cluster.char_indices() {
                if spec.stop_short.contains(option) {
                    return false;
                }
                options.shell |= spec.shell_short.contains(option);
                options.command |= spec.command_short.contains(option);
                options.script_mode |= spec.script_short.contains(option);
                // The option's argument, when attached: from here to the end.
                let attached = 1 + index + option.len_utf8();
                if spec.script_arg_short.contains(option) {
                    options.script = Some(if attached >= text.len() {
                        self.word_after(next)
                    } else {
                        word.text.sub(attached, text.len())
                    });
                    return true;
                }
                if spec.short_arg.contains(option) {
                    if attached >= text.len() {
                        used = 2;
                    }
                    if spec.split_short.contains(option) {
                        split = Some(if attached >= text.len() {
                            self.word_after(next)
                        } else {
                            word.text.sub(attached, text.len())
                        });
                    }
                    break;
                }
                if spec.optional_short.contains(option) {
                    break;
                }
            }
            if let Some(string) = split {
                if !self.split_env(next, used, string, word.at, entered) {
                    return false;
                }
                continue;
            }
            options.next += used;
        }
        true
    }

    /// The text of the word after `b.words[at]` (empty when there is none).
    fn word_after(&self, at: usize) -> Span {
        self.b
            .words
            .get(at + 1)
            .map_or(Span::default(), |word| word.text)
    }

    /// `env -S STRING`: the `used` words at `b.words[at]` are replaced by the
    /// words of STRING, one nesting level deeper.
    fn split_env(
        &mut self,
        at: usize,
        used: usize,
        string: Span,
        word_at: usize,
        entered: &mut usize,
    ) -> bool {
        if !self.enter(word_at) {
            return false;
        }
        *entered += 1;
        let count = self.split_words(string, word_at);
        let top = self.b.words.len() - count;
        let end = (at + used).min(top);
        if at <= end {
            self.b.words.drain(at..end);
            if let Some(tail) = self.b.words.get_mut(at..) {
                tail.rotate_right(count);
            }
        } else {
            self.b.words.truncate(top);
        }
        true
    }

    /// The commands the command at `b.out[index]` runs in turn, by its
    /// program; its arguments are `b.words[rest..]`.
    fn runs_in_turn(&mut self, index: usize, rest: usize, names: usize) {
        let end = self.b.words.len();
        let runs = match self.b.out.get(index) {
            Some(command) => Runs::of(&command.program),
            None => Runs::Nothing,
        };
        match runs {
            Runs::Shell(name) => self.shell_script(index, rest, names, name),
            Runs::Eval => {
                self.set_dynamic(index);
                let at = self.b.words.get(rest).map_or(0, |word| word.at);
                let script = self.join(rest, end);
                self.nested(script, at, names, "eval");
            }
            Runs::Source => {
                let stdin = self
                    .b
                    .words
                    .get(rest..end)
                    .unwrap_or_default()
                    .iter()
                    .find(|word| self.text(word.text) != "--")
                    .is_some_and(|word| word.procsub || reads_stdin(self.text(word.text)));
                if stdin {
                    self.set_dynamic(index);
                }
            }
            Runs::Find | Runs::Fd => self.exec_clauses(rest, end, names, runs),
            Runs::Trap => {
                let words = self.b.words.get(rest..end).unwrap_or_default();
                let mut operands = words
                    .iter()
                    .skip_while(|word| matches!(self.text(word.text), "-p" | "-l" | "-P"))
                    .skip_while(|word| self.text(word.text) == "--");
                let action = operands.next().copied();
                let signal = operands.next().is_some();
                if let (Some(action), true) = (action, signal) {
                    if self.text(action.text) != "-" {
                        let script = self.script(action.text);
                        self.nested(script, action.at, names, "trap");
                    }
                }
            }
            Runs::At(name) => {
                let words = self.b.words.get(rest..end).unwrap_or_default();
                let no_script = words.iter().any(|word| {
                    let text = self.text(word.text);
                    text.strip_prefix('-').is_some_and(|cluster| {
                        !cluster.starts_with('-') && cluster.contains(['f', 'l', 'r', 'd', 'c'])
                    })
                });
                if !no_script {
                    self.stdin_script(index, rest, names, name);
                }
            }
            Runs::DashC {
                name,
                dynamic_without,
            } => match self.su_script(rest, end) {
                Some((script, at)) => {
                    let script = self.script(script);
                    self.nested(script, at, names, name);
                }
                None if dynamic_without => self.set_dynamic(index),
                None => {}
            },
            Runs::Interpreter(interpreter) => self.interpreter_program(index, rest, interpreter),
            Runs::Nothing => {}
        }
    }

    /// An interpreter (the command at `b.out[index]`, its arguments at
    /// `b.words[rest..]`) is dynamic when its program cannot be read from
    /// the text: code that is an expansion (`python3 -c "$(curl …)"`) or
    /// that a wrapper adds (`xargs python3 -c`), a
    /// process substitution (`python3 <(curl …)`), or standard input that
    /// is not written in the command (`curl … | python3`, `python3 -`). A
    /// heredoc, a here-string or a file on standard input is code the
    /// command shows, or a file it names, like a script operand.
    fn interpreter_program(
        &mut self,
        index: usize,
        rest: usize,
        interpreter: &super::interpreters::Interpreter,
    ) {
        use super::interpreters::Program;
        let words = self.b.words.get(rest..).unwrap_or_default();
        let program = interpreter.program(|i| words.get(i).map(|word| self.text(word.text)));
        let word = |i: usize| words.get(i).copied();
        let dynamic = match program {
            // No word after the code option: `xargs python3 -c` fills it in
            // from its input.
            Program::Code(i) => word(i).is_none_or(|w| w.expansion || w.procsub),
            Program::Script(i) => word(i).is_some_and(|w| {
                w.procsub || (reads_stdin(self.text(w.text)) && !self.input_is_written(index))
            }),
            Program::Stdin => !self.input_is_written(index),
            Program::Module | Program::Info => false,
        };
        if dynamic {
            self.set_dynamic(index);
        }
    }

    /// The standard input of the command at `b.out[index]` is a heredoc,
    /// a here-string or a file named as written: not a pipe, the
    /// terminal, a process substitution (`< <(curl …)`) or a name or
    /// string that is an expansion.
    fn input_is_written(&self, index: usize) -> bool {
        input(&self.b.out, index).is_some_and(|r| {
            matches!(r.op.as_str(), "<<" | "<<-")
                || !(r.target.starts_with("<(") || r.target.contains(['$', '`']))
        })
    }

    fn set_dynamic(&mut self, index: usize) {
        if let Some(command) = self.b.out.get_mut(index) {
            command.dynamic = true;
        }
    }

    /// A shell (the command at `b.out[index]`, named `name`, with its
    /// arguments at `b.words[rest..]`): with `-c`, its script is parsed;
    /// otherwise it is dynamic when it reads its script from standard input
    /// or a process substitution.
    fn shell_script(&mut self, index: usize, rest: usize, names: usize, name: &'static str) {
        let end = self.b.words.len();
        let mut dash_c = false;
        let mut stdin = false;
        let mut script: Option<(Span, usize, bool)> = None;
        let mut at = rest;
        while let Some(word) = self.b.words.get(at).copied().filter(|_| at < end) {
            let text = self.text(word.text);
            if text == "--" || text == "-" {
                at += 1;
                break;
            }
            if let Some(long) = text.strip_prefix("--") {
                let (option, value) = match long.split_once('=') {
                    Some((option, value)) => (option, Some(value)),
                    None => (long, None),
                };
                // fish: `--command=SCRIPT` / `--command SCRIPT`.
                if option == "command" {
                    dash_c = true;
                    match value {
                        Some(value) => {
                            let value = word.text.sub(text.len() - value.len(), text.len());
                            script = Some((value, word.at, false));
                        }
                        None => {
                            script = self
                                .b
                                .words
                                .get(at + 1)
                                .filter(|_| at + 1 < end)
                                .map(|word| (word.text, word.at, word.procsub));
                            at += 1;
                        }
                    }
                    at += 1;
                    continue;
                }
                let takes = matches!(option, "rcfile" | "init-file" | "init-command");
                at += if takes && value.is_none() { 2 } else { 1 };
                continue;
            }
            let Some(sign) = text.chars().next().filter(|c| *c == '-' || *c == '+') else {
                break;
            };
            if text.len() == 1 {
                break;
            }
            let mut arguments = 0;
            for option in text.chars().skip(1) {
                match option {
                    'c' if sign == '-' => dash_c = true,
                    's' if sign == '-' => stdin = true,
                    'o' | 'O' => arguments += 1,
                    _ => {}
                }
            }
            at += 1 + arguments;
        }
        let operand = script.or_else(|| {
            self.b
                .words
                .get(at)
                .filter(|_| at < end)
                .map(|word| (word.text, word.at, word.procsub))
        });
        if dash_c {
            if let Some((text, at, _)) = operand {
                let script = self.script(text);
                self.nested(script, at, names, name);
            }
            return;
        }
        let (reads_input, from_stdin) = match operand {
            None => (true, true),
            Some((text, _, procsub)) => {
                let stdin_path = reads_stdin(self.text(text));
                (procsub || stdin_path, !procsub && stdin_path)
            }
        };
        if !(stdin || reads_input) {
            return;
        }
        if stdin || from_stdin {
            self.stdin_script(index, rest, names, name);
        } else {
            self.set_dynamic(index);
        }
    }

    /// The command at `b.out[index]` (named `name`, its arguments at
    /// `b.words[rest..]`) reads a script from standard input: a literal
    /// here-string is read as `-c`'s script is (`bash <<< 'rm -rf /'`),
    /// any other input makes the command dynamic.
    fn stdin_script(&mut self, index: usize, rest: usize, names: usize, name: &'static str) {
        if let Some(script) = self.here_string(index) {
            let at = self.b.words.get(rest.saturating_sub(1)).map_or(0, |w| w.at);
            self.nested(script, at, names, name);
            return;
        }
        self.set_dynamic(index);
    }

    /// The text of the here-string that is the standard input of the
    /// command at `b.out[index]` (the last redirection of its input), when
    /// it is literal: one that holds `$` or a backquote could expand to
    /// anything.
    fn here_string(&mut self, index: usize) -> Option<String> {
        let input = input(&self.b.out, index)?;
        if input.op != "<<<" || input.target.contains(['$', '`']) {
            return None;
        }
        Some(self.b.strings.copy(&input.target))
    }

    /// The commands of `find`'s `-exec`, `-execdir`, `-ok` and `-okdir`, or
    /// of `fd`'s `-x`/`--exec` and `-X`/`--exec-batch` (as `by` says; the
    /// arguments are `b.words[rest..end]`).
    fn exec_clauses(&mut self, rest: usize, end: usize, names: usize, by: Runs) {
        let (wrapper, starts): (&'static str, fn(&str) -> bool) = match by {
            Runs::Fd => ("fd", starts_fd_exec),
            _ => ("find", |word| {
                matches!(word, "-exec" | "-execdir" | "-ok" | "-okdir")
            }),
        };
        let mut index = rest;
        while let Some(word) = self.b.words.get(index).copied().filter(|_| index < end) {
            index += 1;
            if !starts(self.text(word.text)) {
                continue;
            }
            let begin = index;
            let mut stop = end;
            let mut scan = begin;
            while let Some(item) = self.b.words.get(scan).filter(|_| scan < end) {
                let item = self.text(item.text);
                // `+` ends find's command only right after `{}`; fd's ends
                // at `;` alone.
                let plus = wrapper == "find"
                    && item == "+"
                    && scan > begin
                    && self
                        .b
                        .words
                        .get(scan - 1)
                        .is_some_and(|previous| self.text(previous.text) == "{}");
                if item == ";" || plus {
                    stop = scan;
                    break;
                }
                scan += 1;
            }
            index = stop + 1;
            if begin >= stop {
                continue;
            }
            if !self.enter(word.at) {
                break;
            }
            // The clause is analysed as a command of its own, on top of the
            // stacks, under the wrappers so far and `find` (or `fd`).
            let words = self.b.words.len();
            let wrappers = self.b.names.len();
            self.b.words.extend_from_within(begin..stop);
            self.b.names.extend_from_within(names..wrappers);
            self.b.names.push(wrapper);
            self.analyze(words, wrappers, Vec::new());
            self.b.words.truncate(words);
            self.b.names.truncate(wrappers);
            self.leave();
        }
    }

    /// Parses `script` (from the word at `at`) one level deeper; its
    /// commands run under the wrappers `b.names[names..]` and then `name`.
    fn nested(&mut self, script: String, at: usize, names: usize, name: &'static str) {
        let first = self.b.out.len();
        self.sub_parse(script, at);
        let Buffers {
            out,
            names: stack,
            lists,
            strings,
            ..
        } = &mut *self.b;
        let prefix = stack.get(names..).unwrap_or_default();
        let count = prefix.len() + 1;
        for command in out.get_mut(first..).unwrap_or_default() {
            // A script under `xargs -I{}` (`sh -c {}`): see `analyze`.
            command.dynamic |= filled_in(prefix, &command.name);
            lists.reserve(&mut command.wrappers, count);
            for wrapper in prefix {
                command.wrappers.push(strings.copy(wrapper));
            }
            command.wrappers.push(strings.copy(name));
            command.wrappers.rotate_right(count);
        }
    }

    /// The words `b.words[from..to]` joined by spaces, as a pooled string.
    fn join(&mut self, from: usize, to: usize) -> String {
        let Buffers {
            words,
            strings,
            text,
            ..
        } = &mut *self.b;
        let words = words.get(from..to).unwrap_or_default();
        let len = words.iter().map(|word| word.text.len() + 1).sum::<usize>();
        let mut joined = strings.take(len.saturating_sub(1));
        for (index, word) in words.iter().enumerate() {
            if index > 0 {
                joined.push(' ');
            }
            joined.push_str(buffers::text(text, word.text));
        }
        joined
    }

    /// The script of `su -c SCRIPT` among `b.words[from..to]` (also
    /// `--command`, `--session-command`, and clusters such as `-lc`), with
    /// the offset of its word.
    fn su_script(&self, from: usize, to: usize) -> Option<(Span, usize)> {
        let words = self.b.words.get(from..to).unwrap_or_default();
        let mut index = 0;
        while let Some(word) = words.get(index) {
            let text = self.text(word.text);
            index += 1;
            if text == "--" {
                return None;
            }
            if let Some(long) = text.strip_prefix("--") {
                match long.split_once('=') {
                    Some(("command" | "session-command", value)) => {
                        let value = word.text.sub(text.len() - value.len(), text.len());
                        return Some((value, word.at));
                    }
                    None if matches!(long, "command" | "session-command") => {
                        return words.get(index).map(|word| (word.text, word.at));
                    }
                    _ => continue,
                }
            }
            let Some(cluster) = text.strip_prefix('-') else {
                continue;
            };
            for (position, option) in cluster.char_indices() {
                let attached = 1 + position + option.len_utf8();
                match option {
                    'c' if attached >= text.len() => {
                        return words.get(index).map(|word| (word.text, word.at))
                    }
                    'c' => return Some((word.text.sub(attached, text.len()), word.at)),
                    's' | 'g' | 'G' | 'w' | 'u' => {
                        if attached >= text.len() {
                            index += 1;
                        }
                        break;
                    }
                    _ => {}
                }
            }
        }
        None
    }
}

/// `fd`'s options that run a command: `-x`/`--exec`, `-X`/`--exec-batch`,
/// also last in a cluster of its flags (`-Hx`).
fn starts_fd_exec(word: &str) -> bool {
    if matches!(word, "--exec" | "--exec-batch") {
        return true;
    }
    let Some(cluster) = word.strip_prefix('-') else {
        return false;
    };
    // The flags that take no value.
    let flags = |rest: &str| rest.chars().all(|flag| "HIusigFalL0p1q".contains(flag));
    cluster
        .strip_suffix(['x', 'X'])
        .is_some_and(|rest| !rest.starts_with('-') && flags(rest))
}

/// A script path that means standard input.
fn reads_stdin(text: &str) -> bool {
    STDIN_PATHS.contains(&text)
}

/// The redirection command `index` of `out` reads its standard input
/// from: the last of its input redirections.
fn input(out: &[Command], index: usize) -> Option<&Redirect> {
    out.get(index)?
        .redirects
        .iter()
        .rev()
        .find(|redirect| matches!(redirect.op.as_str(), "<" | "<<" | "<<-" | "<<<" | "<>"))
}

/// `NAME=value` as a program such as `env` sees it (quotes already gone).
fn is_assignment_text(text: &str) -> bool {
    text.split_once('=')
        .is_some_and(|(name, _)| is_assign_name(name))
}

/// The wrappers that fill a placeholder in the words they run: `xargs
/// -I{}`, GNU `parallel`, `find -exec`, `fd -x`.
const FILLS_IN: [&str; 4] = ["xargs", "parallel", "find", "fd"];

/// Whether the program word `word`, run under `wrappers`, is filled in by
/// one of them when it runs: a wrapper of [`FILLS_IN`] is among them, and
/// `word` holds a placeholder it replaces: `{}`, or `parallel`'s `{.}`,
/// `{/}`, `{//}`, `{/.}`, `{#}`, `{%}`, `{1}`.
fn filled_in(wrappers: &[&str], word: &str) -> bool {
    wrappers.iter().any(|name| FILLS_IN.contains(name)) && has_placeholder(word)
}

/// Whether `word` holds one of the placeholders [`filled_in`] names.
fn has_placeholder(word: &str) -> bool {
    word.split('{').skip(1).any(|after| {
        after.split_once('}').is_some_and(|(inside, _)| {
            inside
                .bytes()
                .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'/' | b'#' | b'%'))
        })
    })
}

/// The program of a program word (`text`, at `span`): its basename,
/// without a Windows `.exe` (`C:/Windows/System32/rm.exe` is `rm`) or the
/// `g` of a GNU tool installed beside the system's (`grm` is `rm`). A
/// dynamic word whose last component holds an expansion (`$(which rm)`) is
/// kept whole.
fn program_span(text: &str, span: Span, dynamic: bool) -> Span {
    let start = text.rfind('/').map_or(0, |slash| slash + 1);
    let base = text.get(start..).unwrap_or("");
    if base.is_empty() || (dynamic && base.contains(['$', '`', '(', ')', '{', '}'])) {
        span
    } else {
        let name = without_exe(base);
        let g = usize::from(is_gnu_prefixed(name));
        span.sub(start + g, start + name.len())
    }
}

/// Whether `name` is a GNU tool under the `g` prefix that Homebrew (and
/// the BSDs' ports) install it by, beside the system's own: `grm`,
/// `gsed`, `gxargs`, `gtimeout` run what `rm`, `sed`, `xargs` and
/// `timeout` do, and rules read them as those.
fn is_gnu_prefixed(name: &str) -> bool {
    const GNU: &[&str] = &[
        "awk", "base64", "cat", "chgrp", "chmod", "chown", "chroot", "cp", "date", "dd", "df",
        "du", "env", "find", "grep", "head", "install", "ln", "ls", "mkdir", "mktemp", "mv",
        "nice", "nohup", "readlink", "realpath", "rm", "rmdir", "sed", "shred", "sort", "split",
        "stat", "stdbuf", "tail", "tar", "tee", "timeout", "touch", "truncate", "unlink", "xargs",
    ];
    name.strip_prefix('g')
        .is_some_and(|tool| GNU.contains(&tool))
}

/// A name without its Windows `.exe`, in any case: Git Bash on Windows runs
/// `rm.exe` (or `RM.EXE`) for `rm`.
fn without_exe(name: &str) -> &str {
    let cut = name.len().saturating_sub(4);
    match (name.get(..cut), name.get(cut..)) {
        (Some(stem), Some(suffix)) if !stem.is_empty() && suffix.eq_ignore_ascii_case(".exe") => {
            stem
        }
        _ => name,
    }
}

/// The name a program is known by: for a Windows executable (`windows`),
/// whose names are not case-sensitive, in lower case (`RM.EXE` is `rm`),
/// written into `buffer` when it must change (a name longer than the
/// buffer is left as it is).
fn known_name<'a>(name: &'a str, windows: bool, buffer: &'a mut [u8; 32]) -> &'a str {
    if !windows || !name.bytes().any(|byte| byte.is_ascii_uppercase()) {
        return name;
    }
    let Some(lowered) = buffer.get_mut(..name.len()) else {
        return name;
    };
    lowered.copy_from_slice(name.as_bytes());
    lowered.make_ascii_lowercase();
    std::str::from_utf8(lowered).unwrap_or(name)
}

/// Splits the arguments of `command` into its flags and operands:
/// `--long[=value]` gives `--long`; `-abc` gives `-a`, `-b`, `-c`; a lone
/// `-` is an operand; after a lone `--` (itself in neither list) every word
/// is an operand.
pub(super) fn split_flags(b: &mut Buffers, command: &mut Command) {
    let (mut flags, mut operands) = (0, 0);
    let mut ended = false;
    for arg in &command.args {
        if ended {
            operands += 1;
        } else if arg == "--" {
            ended = true;
        } else if arg.starts_with("--") {
            flags += 1;
        } else if let Some(cluster) = arg.strip_prefix('-').filter(|cluster| !cluster.is_empty()) {
            flags += cluster.chars().count();
        } else {
            operands += 1;
        }
    }
    command.flags = b.lists.take(flags);
    command.operands = b.lists.take(operands);
    command.short_flags = 0;
    let mut ended = false;
    for arg in &command.args {
        if ended {
            command.operands.push(b.strings.copy(arg));
        } else if arg == "--" {
            ended = true;
        } else if arg.starts_with("--") {
            let flag = arg.split('=').next().unwrap_or(arg);
            command.flags.push(b.strings.copy(flag));
        } else if let Some(cluster) = arg.strip_prefix('-').filter(|cluster| !cluster.is_empty()) {
            for option in cluster.chars() {
                let mut flag = b.strings.take(1 + option.len_utf8());
                flag.push('-');
                flag.push(option);
                command.short_flags |= super::short_flag_bit(&flag).unwrap_or(0);
                command.flags.push(flag);
            }
        } else {
            command.operands.push(b.strings.copy(arg));
        }
    }
}
