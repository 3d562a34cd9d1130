//! The shell view: a POSIX sh / bash command string seen as the list of
//! simple commands it would run.
//!
//! [`parse()`] turns a command string (for instance the `command` of a Bash
//! tool call) into a [`View`]: one [`Command`] per simple command, in source
//! order, each with its program, its arguments split into flags and
//! operands, its redirections, its leading assignments and the wrappers it
//! was run through. Rules can then ask "does any simple command run `rm`
//! with a recursive flag on `/`?" without matching on the raw text.
//!
//! # What it sees through
//!
//! - Spelling: `rm  -rf /`, `rm -r -f /`, tabs, `\rm`, `/bin/rm`, `r''m`,
//!   `"rm"`, `$'rm'` all give program `rm` with flags `-r`, `-f`; so do
//!   the Windows names Git Bash runs, `rm.exe`, `RM.EXE`,
//!   `C:/Windows/System32/rm.exe` (the name without `.exe`, in lower case),
//!   and the GNU tools Homebrew installs under a `g` prefix (`grm`,
//!   `gsed`, `gxargs`, `gtimeout`: the tool without its `g`).
//! - Separators and grouping: `;`, `&&`, `||`, `|`, `|&`, `&`, newlines,
//!   `!`, comments, `( … )`, `{ …; }`, `if`/`while`/`until`/`for`/`select`/
//!   `case`, function bodies (`f() { … }`, `function f { … }`).
//! - Substitutions: `$( … )`, backticks, `<( … )`, `>( … )`, also inside
//!   double quotes, `${x:-…}`, `$(( … ))`, array assignments and the bodies
//!   of heredocs whose delimiter is unquoted. Their commands run, so they are
//!   listed after the command whose word holds them.
//! - Nested scripts: `sh -c`, `bash -lc`, `zsh`/`dash`/`ksh`/`fish -c`,
//!   `busybox sh -c` (and `toybox`), `su -c` (and `runuser`, `sg`,
//!   `script`, `flock FILE -c`), the text given to `eval`, the action of
//!   `trap`, the command of `watch` and of `ssh` (the words after the
//!   destination, which the remote shell runs), the string of `env -S`,
//!   the script of `nix-shell --run`/`--command`, and the literal
//!   here-string given to a shell that reads its script from standard
//!   input (`bash <<< 'rm -rf /'`) or to `at` and `batch`, which read the
//!   commands they run later from it. Their commands are listed
//!   with the shell (or `eval`, `trap`, `watch`, `su`, `nix-shell`, `at`)
//!   pushed onto their wrappers.
//! - Wrappers and their options: `sudo`, `doas`, `pkexec`, `env`,
//!   `command`, `builtin`, `exec`, `nohup`, `nice`, `ionice`, `chrt`,
//!   `taskset`, `numactl`, `prlimit`, `cpulimit`, `trickle`, `time`,
//!   `timeout`, `stdbuf`, `setsid`, `setpriv`, `unshare`, `nsenter`,
//!   `chroot`, `fakeroot`, `firejail`, `systemd-run`, `systemd-inhibit`,
//!   `flock`, `xargs`, `parallel`, `watch`, `busybox`, `toybox`, `strace`,
//!   `ltrace`, `valgrind`, `catchsegv`, `proxychains`, `torsocks`,
//!   `faketime`, `xvfb-run`, `dbus-run-session`, `caffeinate`, `coproc`,
//!   `unbuffer`, `sshpass`, `screen`, `bwrap` (options of one to three
//!   values), `proot`, `coreutils` (uutils' multicall binary, also
//!   `--coreutils-prog=NAME`), `watchexec` (its words are a script, a
//!   command with `-n`), and the command after a marker: `gdb --args`,
//!   `lldb --`, `xterm -e` (and `uxterm`, `urxvt`, `rxvt`, `konsole`,
//!   `alacritty -e`/`--command`), `gnome-terminal --`; stacked in any order.
//! - Launchers that run a command through a subcommand, after their own
//!   options: `docker exec`/`podman exec` and `kubectl exec … --` (a
//!   container's command), `uv run` (and `uv tool run`, `uvx`), `poetry
//!   run`, `pipenv run`, `pdm run`, `hatch run`, `conda run` (and `mamba`,
//!   `micromamba`), `pnpm dlx`/`pnpm exec` (`-c`: its words are a script),
//!   `yarn dlx`/`yarn exec`, `npm exec`/`npm x` (and `npx`, `bunx`,
//!   `pnpx`; `-c SCRIPT`/`--call SCRIPT` runs a script), `bundle exec`,
//!   `mise exec … --` (or `-c SCRIPT`), `direnv exec DIR`, `nix shell`/`nix
//!   develop` … `--command` (or `-c`); the tmux commands that start a
//!   shell command (`new-session`, `new-window`, `split-window`,
//!   `respawn-pane`, `respawn-window`, `run-shell`, `display-popup`,
//!   `pipe-pane` and their aliases: their trailing words are a script, as
//!   `watch`'s are) and `tmux -c SCRIPT`.
//! - `find … -exec CMD ;` (and `-execdir`, `-ok`, `-okdir`, ended by `;` or
//!   `{} +`): `CMD` is listed as a command of its own, wrapped by `find`;
//!   so is the command of `fd … -x CMD` (`--exec`, `-X`, `--exec-batch`,
//!   ended by `;`; also `fdfind`), wrapped by `fd`.
//! - Redirections anywhere in a command, with or without a file descriptor
//!   number; those after a compound command (`{ …; } > f`) are given to
//!   every command inside it.
//!
//! A command whose program cannot be known statically is marked
//! [`Command::dynamic`]; a parse error adds a pseudo-command carrying
//! [`Command::error`]. A non-blank input that holds a command-like word never
//! yields an empty view.
//!
//! # Limits
//!
//! - Lexical only: nothing is expanded but braces. `$x` is not resolved,
//!   globs are not matched, aliases and functions are not followed, `PATH`
//!   is not searched. A program word that holds an expansion or a glob
//!   (`$x`, `${CMD}`, `$(which rm)`, `` `echo rm` ``, `"$@"`, `/bin/r?`) is
//!   kept as written and the command is `dynamic`.
//! - Brace expansion is done as bash does it first, on the words of a simple
//!   command that have no quotes and no `$` (not on leading assignments):
//!   `chmod -R 777 /{etc,usr}` has operands `/etc` and `/usr`, and
//!   `{rm,-rf,/}` is `rm -rf /`. A word whose braces are left as written
//!   (quoted in part, `"/"{etc,usr}`, or making more than 64 words) makes
//!   its command `dynamic`.
//! - Option arguments are not known per program: `head -n 5` gives flags
//!   `["-n"]` and operands `["5"]`. Only the wrappers listed above have their
//!   own options (and option arguments) skipped. The arguments `xargs`
//!   appends to its command are unknown and not listed.
//! - Heredoc bodies are not read as commands, and the files run by `source`,
//!   `.` or `bash script.sh` are not read. Only substitutions in the body of
//!   a heredoc with an unquoted delimiter are parsed, as the shell runs them.
//! - `dynamic` is set when the program word holds an expansion (also after
//!   wrappers: `exec $x`, `sudo "$@"`); for `eval` (always, even though its
//!   text is parsed too); for `source`/`.` of a process substitution or of
//!   standard input; for a shell (`sh`, `bash`, `zsh`, `dash`, `ksh`, `fish`,
//!   …) that has no `-c` and reads its script from standard input (no script
//!   operand, `-s`, `-`, `/dev/stdin`: unless that input is a here-string
//!   with no `$` or backquote, which is read as its script) or from a
//!   process substitution
//!   (`bash <(curl x)`), including behind `xargs`; for `at` and `batch`
//!   reading their commands from standard input (`… | at now`), unless
//!   that is a literal here-string; for `su`/`runuser` without
//!   `-c`, and `sudo -s`/`sudo -i`/`doas -s`/`chroot DIR` with no command,
//!   which start a shell reading standard input; and on the parse-error
//!   pseudo-command.
//! - `[[ … ]]` is listed as one command with program `[[` and the words up
//!   to `]]` as its arguments; `(( … ))` as one command with program `((`
//!   and the expression text as its only operand. Their substitutions are
//!   listed after them.
//! - Remote and foreign interpreters (`ssh host CMD`, `python -c`,
//!   `psql -c`, `perl -e`, `awk '…system()…'`) are plain commands: their
//!   text is an operand, not parsed.
//! - After a parse error, parsing goes on at the next token (a stray word
//!   starts a command), so the commands after an error are a best effort;
//!   only the first error is reported.
//! - A substitution written inside a `-c` script in double quotes
//!   (`bash -c "echo $(id)"`) is listed twice: once for the outer shell and
//!   once inside the script.
//! - Nesting of substitutions, subshells, groups, compound commands, `-c`
//!   scripts and `find -exec` together is bounded by [`MAX_DEPTH`]; deeper
//!   input ends the parse with an error.
//! - `\xHH` and octal escapes in `$'…'` above 0x7f decode to the Unicode
//!   character of that value, not to a raw byte; a NUL ends the string, as in
//!   bash.
//!
//! # Memory
//!
//! [`parse()`] builds a view with buffers of its own. [`Buffers::parse`]
//! fills a view from reusable buffers instead, and [`Buffers::recycle`]
//! takes its memory back: every `String` and `Vec` of the view comes from a
//! pool kept by capacity class (a power of two), taken at the length it
//! will hold, and the working memory of a parse (the text of the words
//! being read, the stacks of words, redirections and wrappers, pending
//! heredocs, the commands found and the room to reorder them, the first
//! error) is shared by the nested parsers of `sh -c`, `eval`, backquotes and
//! substitutions and grows to the largest parse seen. After a parse, parsing
//! a text whose view needs no more buffers of each size class (the same
//! text, or any text whose words and lists are no more numerous and no
//! longer, class by class) allocates nothing. [`Views`], the per-dispatch
//! cache, keeps its `Buffers` from one dispatch to the next, up to 4 MiB of
//! them (above it, after a command far larger than usual, they are freed):
//! the buffers of any of the pathological commands under 4 KiB of its tests
//! (16 nested `find -exec`, a 2,000-command list) stay below that.
//!
//! # Why a hand-written lexer
//!
//! A small, dependency-free, linear-time lexer and recursive-descent parser,
//! with a fuzz target, rather than a parser crate: the available bash parser
//! crates are either unmaintained (conch-parser) or large, with many
//! dependencies, for a whole shell (brush-parser, yash-syntax), and a policy
//! view needs the words, not an execution model. Each byte is lexed once per
//! nesting level (a nested script is parsed again from its own text), so the
//! cost is linear in the input with a factor of at most [`MAX_DEPTH`] + 1,
//! recursion is bounded, and the parser never panics.

mod buffers;
mod cache;
#[cfg(test)]
mod evasions;
mod interpreters;
mod lex;
mod parse;
mod simple;
#[cfg(test)]
mod tests;

pub use buffers::Buffers;
pub use cache::Views;

use serde_json::{Map, Value};

/// The bound on nesting: substitutions, subshells, groups, compound
/// commands, `-c` scripts and `find -exec` commands counted together.
pub const MAX_DEPTH: usize = 16;

/// The shell view of a command string: its simple commands, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct View {
    /// The simple commands, in source order; the commands of a substitution
    /// or nested script follow the command that holds them, and a parse
    /// error adds one pseudo-command at the end.
    pub commands: Vec<Command>,
}

/// One simple command.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Command {
    /// The basename of the program word after quote removal (`/bin/rm`,
    /// `\rm`, `"rm"`, `r''m` all give `rm`), without a Windows `.exe` and
    /// then in lower case (`RM.EXE` gives `rm`); a dynamic program word whose
    /// last path component holds an expansion is kept whole. Empty when the
    /// command has no program word (only assignments and redirections).
    pub program: String,
    /// The program word as written, after quote removal (`/bin/rm`).
    pub name: String,
    /// Every word after the program (and after its wrappers), quotes
    /// removed, expansions kept as written.
    pub args: Vec<String>,
    /// The flags among `args`: a long flag (`--force`, without any
    /// `=value`), or each letter of a short cluster (`-rf` gives `-r`,
    /// `-f`); none after a lone `--`.
    pub flags: Vec<String>,
    /// The `args` that are not flags (a lone `--` is in neither list).
    pub operands: Vec<String>,
    /// The `args` the shell expands as patterns: those with a `*`, `?` or
    /// `[` outside quotes (`.h*` is one, `'s/.*//'` is not), as `args`
    /// gives them.
    pub globs: Vec<String>,
    /// The redirections of the command, in order.
    pub redirects: Vec<Redirect>,
    /// The leading `NAME=value` words, and those given to `env` or `sudo`
    /// (quotes removed).
    pub assignments: Vec<String>,
    /// The programs it was wrapped by, outermost first (`["sudo", "env"]`);
    /// for a command of a nested script, the shell that runs it
    /// (`["sudo", "bash"]`); `find` for the command of `find -exec`, `fd`
    /// for that of `fd -x`.
    pub wrappers: Vec<String>,
    /// The one-letter ASCII flags among `flags`, as bits (see
    /// [`short_flag_bit`]): a rule's test for `-r` is one `and`.
    pub short_flags: u64,
    /// What runs cannot be known statically (see the module's Limits).
    pub dynamic: bool,
    /// It runs, inside the body of a function the text defines, that
    /// function itself by name (`f() { f | f & }; f`), or another function
    /// defined in the same text (before or after) that calls the first one
    /// back, directly or through others (`a(){ b|b& }; b(){ a|a& }`): a
    /// function that reaches itself, as a fork bomb does under any name.
    /// Calls are followed between the functions of one text level: those
    /// of a `-c` script or of a `$( … )` are their own, and only the first
    /// 64 functions of a level are followed (later ones are checked for
    /// calls to themselves only).
    pub recursive: bool,
    /// The parse error, only on the pseudo-command that reports it: a short
    /// lower-case message with a byte offset into the input.
    pub error: Option<String>,
}

/// A redirection of a simple command.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Redirect {
    /// The operator as written, without the file descriptor number: `>`,
    /// `>>`, `<`, `<<`, `<<-`, `<<<`, `>&`, `<&`, `>|`, `&>`, `&>>`, `<>`.
    pub op: String,
    /// The target word, quotes removed; for a heredoc, its delimiter.
    pub target: String,
}

/// The bit a one-letter flag of an ASCII letter or digit (`-r`, `-R`, `-9`)
/// has in [`Command::short_flags`]; `None` for any other word (`--force`,
/// `-é`, `-rf`, `r`). The 62 letters and digits fit a `u64`.
pub fn short_flag_bit(flag: &str) -> Option<u64> {
    let &[b'-', letter] = flag.as_bytes() else {
        return None;
    };
    let index = match letter {
        b'a'..=b'z' => letter - b'a',
        b'A'..=b'Z' => 26 + (letter - b'A'),
        b'0'..=b'9' => 52 + (letter - b'0'),
        _ => return None,
    };
    Some(1 << index)
}

/// Parses `text` into its view. Never fails: a parse error yields the
/// commands found so far and a pseudo-command carrying the error.
pub fn parse(text: &str) -> View {
    Buffers::parse_once(text)
}

impl View {
    /// The view as JSON: an array with one object per command, with the keys
    /// `program`, `name`, `args`, `flags`, `operands`, `globs`, `redirects` (an array
    /// of `{"op", "target"}`), `assignments`, `wrappers`, `dynamic` (a bool)
    /// and `error` (a string or null).
    pub fn to_json(&self) -> Value {
        Value::Array(self.commands.iter().map(Command::to_json).collect())
    }
}

impl Command {
    /// The command as JSON, with the keys [`View::to_json`] lists.
    pub fn to_json(&self) -> Value {
        let mut object = Map::new();
        object.insert("program".into(), Value::String(self.program.clone()));
        object.insert("name".into(), Value::String(self.name.clone()));
        object.insert("args".into(), strings(&self.args));
        object.insert("flags".into(), strings(&self.flags));
        object.insert("operands".into(), strings(&self.operands));
        object.insert("globs".into(), strings(&self.globs));
        let redirects = self.redirects.iter().map(Redirect::to_json).collect();
        object.insert("redirects".into(), Value::Array(redirects));
        object.insert("assignments".into(), strings(&self.assignments));
        object.insert("wrappers".into(), strings(&self.wrappers));
        object.insert("dynamic".into(), Value::Bool(self.dynamic));
        object.insert("recursive".into(), Value::Bool(self.recursive));
        let error = self.error.clone().map_or(Value::Null, Value::String);
        object.insert("error".into(), error);
        Value::Object(object)
    }
}

impl Redirect {
    /// The redirection as JSON: `{"op", "target"}`.
    pub fn to_json(&self) -> Value {
        let mut pair = Map::new();
        pair.insert("op".into(), Value::String(self.op.clone()));
        pair.insert("target".into(), Value::String(self.target.clone()));
        Value::Object(pair)
    }
}

/// Words as a JSON array of strings.
pub fn strings(items: &[String]) -> Value {
    Value::Array(items.iter().cloned().map(Value::String).collect())
}
