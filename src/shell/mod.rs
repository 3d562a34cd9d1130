//! The shell view of a command string: the simple commands it runs, as a
//! policy needs to see them.
//!
//! [`parse`] reads POSIX sh / bash text and lists its simple commands, in
//! order, across `;`, `&&`, `||`, `|`, `|&`, `&`, line breaks, subshells
//! `( )`, groups `{ }`, the bodies of `if`, `while`, `until`, `for`,
//! `case` and function definitions, command substitutions `$( )` and
//! backticks (also inside double quotes), process substitutions `<( )` and
//! `>( )`, the commands `find -exec` runs, and the script of `sh -c`,
//! `bash -c`, `zsh -c`, `dash -c`, `ksh -c` (recursively). Substitutions
//! and `-c` scripts nest at most [`MAX_DEPTH`] deep.
//!
//! For each simple command ([`Command`]): leading `VAR=x` assignments and
//! wrappers (`sudo` with its options, `doas`, `env`, `command`, `builtin`,
//! `exec`, `nohup`, `nice`, `ionice`, `time`, `timeout`, `stdbuf`,
//! `setsid`, `chroot`, `xargs`, `watch`, `busybox`, `strace`, `ltrace`) are
//! set aside, and the program is the basename of the next word after quote
//! removal: `"rm"`, `r''m`, `\rm` and `/bin/rm` are all `rm`. Its arguments
//! keep expansions as written (`"$HOME"` is `$HOME`, `${HOME}` is
//! `${HOME}`, `~` is `~`), short flags are split (`-rf` is `-r`, `-f`),
//! long flags lose their `=value`, and redirections are listed with their
//! targets.
//!
//! What cannot be known from the text is reported, never dropped: a
//! command is `dynamic` when its program is an expansion (`$x -rf /`,
//! `$(which rm)`), it is `eval`, it is `source`/`.` of a process
//! substitution, or it is a shell that reads its script from standard
//! input (`curl … | sh`, `bash -s`) or a process substitution
//! (`bash <(curl …)`). Text that does not parse (an unterminated quote or
//! substitution, an unbalanced `)`, `}`, `fi` or `done`, an operator with
//! no command after it, nesting past [`MAX_DEPTH`]) gives the commands
//! read up to the error and one more, with no program, `dynamic`, whose
//! `error` says why: a strict rule denies it; a view is never "no
//! commands" for text that holds one.
//!
//! # Limits
//!
//! The view is lexical. Variables are not expanded and globs are not
//! matched (`rm -rf $DIR` has the operand `$DIR`); aliases, functions and
//! `PATH` are not looked up; a script run by `bash file.sh` or `source`,
//! a heredoc's body and what a pipe feeds a program are not read; a
//! program's option arguments are not known (`head -n 5` has the flag
//! `-n` and the operand `5`; `git -C dir push` has the operand `dir`). A
//! `case` pattern inside `$( )` ends the substitution early, and `(( ))`
//! reads as two subshells.
//!
//! It is a small hand-written lexer and parser, linear in the text (a
//! substitution is skipped by one iterative scan, then read once per
//! level it nests, at most [`MAX_DEPTH`]) and fuzzed
//! (`fuzz/fuzz_targets/shell_view.rs`). The shell parser crates were
//! weighed: `conch-parser` is unmaintained, and `brush-parser` and
//! `yash-syntax` parse a whole shell language for execution, with many
//! dependencies; a policy needs the words of each command, which this
//! reads directly.

mod cache;
mod command;
mod lex;
#[cfg(test)]
mod tests;

pub use cache::Views;

use lex::{Token, Word};
use serde_json::{json, Value};

/// How deep substitutions, `-c` scripts and `find -exec` nest before the
/// view stops reading and reports an error.
pub const MAX_DEPTH: usize = 16;

/// The shell view of a command string: its simple commands, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct View {
    /// The simple commands, in the order the text holds them; those of a
    /// substitution or a `-c` script follow the command that holds them.
    pub commands: Vec<Command>,
}

/// One simple command.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Command {
    /// The basename of the program word, quotes and a leading `\` removed;
    /// `""` when the command has only assignments and redirections.
    pub program: String,
    /// The program word as written, quotes removed (`/bin/rm`).
    pub name: String,
    /// Every word after the program, quotes removed, expansions as written.
    pub args: Vec<String>,
    /// Short flags one per letter (`-r`, `-f`), long flags without their
    /// `=value` (`--force`); none after `--`.
    pub flags: Vec<String>,
    /// The arguments that are not flags.
    pub operands: Vec<String>,
    /// The redirections.
    pub redirects: Vec<Redirect>,
    /// The leading `VAR=value` words, quotes removed.
    pub assignments: Vec<String>,
    /// The wrappers it runs under, outermost first (`sudo`, `env`, …; the
    /// shell of a `-c` script; `find` for `find -exec`).
    pub wrappers: Vec<String>,
    /// What runs cannot be known from the text.
    pub dynamic: bool,
    /// Why the text does not parse, on the extra command that says so.
    pub error: Option<String>,
}

/// A redirection of a simple command.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Redirect {
    /// The operator without its file descriptor number: `>`, `>>`, `<`,
    /// `<<` (a heredoc), `<<-`, `<<<`, `>&`, `<&`, `>|`, `&>`, `&>>`, `<>`.
    pub op: String,
    /// The target, quotes removed (a heredoc's delimiter).
    pub target: String,
}

/// Parses `text` (see the [module docs](self)).
pub fn parse(text: &str) -> View {
    let mut view = View::default();
    read(text, &[], 0, &mut view.commands);
    view
}

impl View {
    /// The view as JSON: an array with one object per command, with the
    /// keys `program`, `name`, `args`, `flags`, `operands`, `redirects`
    /// (objects with `op` and `target`), `assignments`, `wrappers`,
    /// `dynamic` and `error` (a string or `null`).
    pub fn to_json(&self) -> Value {
        Value::Array(self.commands.iter().map(Command::to_json).collect())
    }
}

impl Command {
    fn to_json(&self) -> Value {
        let redirects: Vec<Value> = self
            .redirects
            .iter()
            .map(|r| json!({"op": r.op, "target": r.target}))
            .collect();
        json!({
            "program": self.program,
            "name": self.name,
            "args": self.args,
            "flags": self.flags,
            "operands": self.operands,
            "redirects": redirects,
            "assignments": self.assignments,
            "wrappers": self.wrappers,
            "dynamic": self.dynamic,
            "error": self.error,
        })
    }

    /// The command that reports text that does not parse.
    fn error(what: impl Into<String>, wrappers: &[String]) -> Command {
        Command {
            wrappers: wrappers.to_vec(),
            dynamic: true,
            error: Some(what.into()),
            ..Command::default()
        }
    }
}

/// Reads `text` at nesting `depth` under `wrappers`, appending its
/// commands to `out`.
fn read(text: &str, wrappers: &[String], depth: usize, out: &mut Vec<Command>) {
    if depth > MAX_DEPTH {
        out.push(Command::error(
            format!("nested more than {MAX_DEPTH} deep"),
            wrappers,
        ));
        return;
    }
    let (tokens, lex_error) = lex::tokens(text);
    let mut parser = Parser {
        wrappers,
        depth,
        out,
        words: Vec::new(),
        redirects: Vec::new(),
        closers: Vec::new(),
        state: State::Command,
        dangling: None,
        error: None,
    };
    let mut tokens = tokens.into_iter().peekable();
    while let Some(token) = tokens.next() {
        if parser.error.is_some() {
            break;
        }
        parser.token(token, &mut tokens);
    }
    parser.finish();
    if parser.error.is_none() {
        if let Some(closer) = parser.closers.last() {
            parser.error = Some(format!("missing `{closer}`"));
        } else if let Some(op) = parser.dangling {
            parser.error = Some(format!("`{}` with no command after it", op.escape_debug()));
        }
    }
    let error = match (lex_error, parser.error) {
        (Some(e), _) => Some(format!("{} at byte {}", e.what, e.at)),
        (None, e) => e,
    };
    if let Some(what) = error {
        parser.out.push(Command::error(what, wrappers));
    }
}

/// Where the parser is in the shell grammar, beyond simple commands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Reading simple commands.
    Command,
    /// After `for NAME` / `select NAME`: words up to `;`, a line break or
    /// `do` are not a command.
    ForHead,
    /// After `case`: words up to `in`.
    CaseHead,
    /// A `case` pattern, up to its `)`.
    CasePattern,
    /// After `function`: the name…
    FunctionName,
    /// …then an optional `()`.
    FunctionParens,
    /// Inside `[[ … ]]`: words up to `]]`.
    Test,
}

struct Parser<'a> {
    wrappers: &'a [String],
    depth: usize,
    out: &'a mut Vec<Command>,
    /// The words of the simple command being read.
    words: Vec<Word>,
    /// Its redirections, with their targets.
    redirects: Vec<(&'static str, Word)>,
    /// What must close the open compound commands, innermost last.
    closers: Vec<&'static str>,
    state: State,
    /// A `&&`, `||` or `|` still waiting for its command.
    dangling: Option<&'static str>,
    error: Option<String>,
}

impl Parser<'_> {
    fn token(&mut self, token: Token, tokens: &mut std::iter::Peekable<std::vec::IntoIter<Token>>) {
        match token {
            Token::Word(word) => self.word(word),
            Token::Redirect(op) => match tokens.next() {
                Some(Token::Word(target)) => {
                    self.dangling = None;
                    self.redirects.push((op, target));
                }
                _ => self.error = Some(format!("`{op}` with no target")),
            },
            Token::Op("(") => {
                if self.state == State::CasePattern {
                    return;
                }
                if self.words.len() == 1 && tokens.peek() == Some(&Token::Op(")")) {
                    // `name() { … }`: a function definition; its body
                    // follows.
                    tokens.next();
                    self.words.clear();
                    return;
                }
                if self.state == State::FunctionParens && tokens.peek() == Some(&Token::Op(")")) {
                    tokens.next();
                    self.state = State::Command;
                    return;
                }
                if !self.words.is_empty() || !self.redirects.is_empty() {
                    self.error = Some("unexpected `(`".to_string());
                    return;
                }
                self.dangling = None;
                self.closers.push(")");
            }
            Token::Op(")") => {
                if self.state == State::CasePattern {
                    self.state = State::Command;
                    return;
                }
                self.finish();
                self.close(")");
            }
            Token::Op(op) => {
                if self.state == State::FunctionParens {
                    self.state = State::Command;
                }
                if self.state == State::Test {
                    // `&&`, `||`, `<` inside `[[ ]]` are the test's.
                    return;
                }
                let had_command = !self.words.is_empty() || !self.redirects.is_empty();
                self.finish();
                match op {
                    "&&" | "||" | "|" | "|&" => {
                        if !had_command && self.dangling.is_some() {
                            self.error = Some(format!("`{op}` with no command before it"));
                        }
                        self.dangling = Some(op);
                    }
                    ";;" | ";&" | ";;&" => self.state = State::CasePattern,
                    "\n" => {
                        if self.state == State::ForHead {
                            self.state = State::Command;
                        }
                    }
                    _ => {
                        if self.state == State::ForHead {
                            self.state = State::Command;
                        }
                        if self.dangling.is_some() {
                            self.error = Some(format!("`{op}` right after an operator"));
                        }
                    }
                }
            }
        }
    }

    fn word(&mut self, word: Word) {
        let reserved = |w: &Word| !w.expands && w.plain_prefix == w.text.len();
        match self.state {
            State::ForHead => {
                if reserved(&word) && word.text == "do" {
                    self.state = State::Command;
                }
                return;
            }
            State::CaseHead => {
                if reserved(&word) && word.text == "in" {
                    self.state = State::CasePattern;
                }
                return;
            }
            State::CasePattern => {
                if reserved(&word) && word.text == "esac" {
                    self.state = State::Command;
                    self.close("esac");
                }
                return;
            }
            State::FunctionName => {
                self.state = State::FunctionParens;
                return;
            }
            State::FunctionParens => self.state = State::Command,
            State::Test => {
                if reserved(&word) && word.text == "]]" {
                    self.state = State::Command;
                }
                self.words.push(word);
                return;
            }
            State::Command => {}
        }
        if self.words.is_empty() && self.redirects.is_empty() && reserved(&word) {
            self.dangling = None;
            match word.text.as_str() {
                "if" => return self.closers.push("fi"),
                "while" | "until" => return self.closers.push("done"),
                "{" => return self.closers.push("}"),
                "then" | "else" | "elif" | "do" | "!" => return,
                "fi" => return self.close("fi"),
                "done" => return self.close("done"),
                "}" => return self.close("}"),
                "esac" => return self.close("esac"),
                "for" | "select" => {
                    self.closers.push("done");
                    self.state = State::ForHead;
                    return;
                }
                "case" => {
                    self.closers.push("esac");
                    self.state = State::CaseHead;
                    return;
                }
                "function" => {
                    self.state = State::FunctionName;
                    return;
                }
                "[[" => self.state = State::Test,
                _ => {}
            }
        }
        self.dangling = None;
        self.words.push(word);
    }

    /// Pops the compound command `closer` closes, or records the error.
    fn close(&mut self, closer: &'static str) {
        match self.closers.last() {
            Some(open) if *open == closer => {
                self.closers.pop();
            }
            _ => self.error = Some(format!("unexpected `{closer}`")),
        }
    }

    /// Ends the simple command being read: its commands, then those of
    /// its substitutions.
    fn finish(&mut self) {
        let words = std::mem::take(&mut self.words);
        let redirects = std::mem::take(&mut self.redirects);
        if words.is_empty() && redirects.is_empty() {
            return;
        }
        let substitutions: Vec<String> = words
            .iter()
            .chain(redirects.iter().map(|(_, w)| w))
            .flat_map(|w| w.substitutions.iter().cloned())
            .collect();
        command::simple(words, redirects, self.wrappers, self.depth, self.out);
        for body in substitutions {
            read(&body, self.wrappers, self.depth + 1, self.out);
        }
    }
}
