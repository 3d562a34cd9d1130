//! The analysis of one simple command: its leading assignments, the
//! wrappers it runs through (with their own options), its program, flags
//! and operands, and what it runs in turn (the script of `sh -c`, the
//! command of `find -exec`, the text given to `eval`).

use super::lex::{is_assign_name, Parser, Word};
use super::{Command, Redirect};

/// Programs whose `-c` operand is a script, and which otherwise read one.
const SHELLS: [&str; 11] = [
    "sh", "bash", "zsh", "dash", "ksh", "fish", "ash", "mksh", "rbash", "yash", "ksh93",
];

/// Script operands that mean "read the script from standard input".
const STDIN_PATHS: [&str; 4] = ["-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"];

/// A word of a simple command, as the analysis needs it.
#[derive(Clone, Debug, Default)]
pub(super) struct WordInfo {
    pub(super) text: String,
    /// Its value is known only at run time (expansion, glob, brace).
    pub(super) dynamic: bool,
    /// It starts with a process substitution.
    pub(super) procsub: bool,
    /// It has the form `NAME=value`.
    pub(super) assign: bool,
    /// Where it starts, in the parser's text.
    pub(super) at: usize,
}

impl WordInfo {
    /// The word's information, and the commands of its substitutions.
    pub(super) fn from_word(word: Word) -> (Self, Vec<Command>) {
        let info = WordInfo {
            dynamic: word.expansion || word.glob || word.brace,
            procsub: word.procsub,
            assign: word.assign,
            at: word.at,
            text: word.text,
        };
        (info, word.subs)
    }
}

/// How a wrapper's options are read.
struct Spec {
    /// Short options that take an argument (attached or in the next word).
    short_arg: &'static str,
    /// Long options that take an argument when it is not given with `=`.
    long_arg: &'static [&'static str],
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
}

const PLAIN: Spec = Spec {
    short_arg: "",
    long_arg: &[],
    optional_short: "",
    stop_short: "",
    stop_long: &[],
    shell_short: "",
    numeric: false,
    operands: 0,
    assignments: false,
    runs_shell: false,
};

fn wrapper_spec(name: &str) -> Option<Spec> {
    Some(match name {
        "sudo" => Spec {
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
        "doas" => Spec {
            short_arg: "uC",
            stop_short: "L",
            shell_short: "s",
            ..PLAIN
        },
        "env" => Spec {
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
            ..PLAIN
        },
        "command" => Spec {
            stop_short: "vV",
            ..PLAIN
        },
        "exec" => Spec {
            short_arg: "a",
            ..PLAIN
        },
        "nice" => Spec {
            short_arg: "n",
            long_arg: &["adjustment"],
            numeric: true,
            ..PLAIN
        },
        "ionice" => Spec {
            short_arg: "cnpPu",
            long_arg: &["class", "classdata", "pid", "pgid", "uid"],
            ..PLAIN
        },
        "time" => Spec {
            short_arg: "fo",
            long_arg: &["format", "output"],
            ..PLAIN
        },
        "timeout" => Spec {
            short_arg: "sk",
            long_arg: &["signal", "kill-after"],
            operands: 1,
            ..PLAIN
        },
        "stdbuf" => Spec {
            short_arg: "ioe",
            long_arg: &["input", "output", "error"],
            ..PLAIN
        },
        "chroot" => Spec {
            long_arg: &["userspec", "groups"],
            operands: 1,
            runs_shell: true,
            ..PLAIN
        },
        "xargs" => Spec {
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
        "watch" => Spec {
            short_arg: "nq",
            long_arg: &["interval", "equexit"],
            ..PLAIN
        },
        "strace" => Spec {
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
        "ltrace" => Spec {
            short_arg: "aAeElnopsuwxXDF",
            long_arg: &["output", "library"],
            ..PLAIN
        },
        "builtin" | "nohup" | "setsid" | "busybox" | "coproc" | "nocorrect" | "noglob" => PLAIN,
        _ => return None,
    })
}

/// What follows a wrapper's options.
enum Skip {
    /// The wrapper runs no command: it is the program.
    Program,
    /// The command starts at `next` (none: the wrapper is the program, and
    /// starts a shell if `shell`).
    Command { next: usize, shell: bool },
    /// The words from `next` on are a script (`watch`).
    Script { next: usize },
}

impl Parser<'_> {
    /// The commands one simple command runs: the command itself (its
    /// wrappers set aside), then those it runs in turn. `wrappers` are the
    /// programs it is already known to run under.
    pub(super) fn analyze(
        &mut self,
        mut words: Vec<WordInfo>,
        mut wrappers: Vec<String>,
        redirects: Vec<Redirect>,
    ) -> Vec<Command> {
        let mut command = Command {
            redirects,
            ..Command::default()
        };
        let mut at = words.iter().take_while(|word| word.assign).count();
        command.assignments = words
            .iter()
            .take(at)
            .map(|word| word.text.clone())
            .collect();
        let mut entered = 0;
        let mut program = None;
        while let Some(word) = words.get(at) {
            if word.dynamic {
                command.dynamic = true;
                program = Some(at);
                break;
            }
            let base = program_name(&word.text, false);
            let word_at = word.at;
            let Some(spec) = wrapper_spec(&base) else {
                program = Some(at);
                break;
            };
            match self.skip_options(&base, &spec, &mut words, at, &mut command, &mut entered) {
                Skip::Program => {
                    program = Some(at);
                    break;
                }
                Skip::Command { next, shell } => {
                    if next >= words.len() {
                        command.dynamic |= shell;
                        program = Some(at);
                        break;
                    }
                    wrappers.push(base);
                    at = next;
                }
                Skip::Script { next } => {
                    let script = join(words.get(next..).unwrap_or_default());
                    let mut inner = self.nested(&script, word_at, &wrappers, &base);
                    if let Some(first) = inner.first_mut() {
                        first.redirects.append(&mut command.redirects);
                        first.assignments.append(&mut command.assignments);
                        for _ in 0..entered {
                            self.leave();
                        }
                        return inner;
                    }
                    program = Some(at);
                    break;
                }
            }
        }
        let mut more = Vec::new();
        if let Some(index) = program {
            let rest = words.get(index + 1..).unwrap_or_default();
            if let Some(word) = words.get(index) {
                command.name = word.text.clone();
                command.program = program_name(&word.text, word.dynamic);
            }
            command.args = rest.iter().map(|word| word.text.clone()).collect();
            let (flags, operands) = split_flags(&command.args);
            command.flags = flags;
            command.operands = operands;
            if !command.dynamic {
                more = self.runs_in_turn(&mut command, rest, &wrappers);
            }
        }
        command.wrappers = wrappers;
        for _ in 0..entered {
            self.leave();
        }
        let mut commands = vec![command];
        commands.append(&mut more);
        commands
    }

    /// Reads the options of the wrapper `name` at `words[at]`.
    fn skip_options(
        &mut self,
        name: &str,
        spec: &Spec,
        words: &mut Vec<WordInfo>,
        at: usize,
        command: &mut Command,
        entered: &mut usize,
    ) -> Skip {
        let mut next = at + 1;
        let mut shell = spec.runs_shell;
        let mut exec = false;
        while let Some(word) = words.get(next) {
            let text = word.text.clone();
            let word_at = word.at;
            if text == "--" {
                next += 1;
                break;
            }
            if text == "-" {
                // `env -` is `env -i`; elsewhere `-` is no option.
                if name == "env" {
                    next += 1;
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
                    return Skip::Program;
                }
                if name == "watch" && option == "exec" {
                    exec = true;
                }
                if name == "env" && option == "split-string" {
                    let (string, used) = match value {
                        Some(value) => (value.to_string(), 1),
                        None => (
                            words
                                .get(next + 1)
                                .map(|word| word.text.clone())
                                .unwrap_or_default(),
                            2,
                        ),
                    };
                    if !self.split_env(words, next, used, &string, word_at, entered) {
                        return Skip::Program;
                    }
                    continue;
                }
                next += if value.is_none() && spec.long_arg.contains(&option) {
                    2
                } else {
                    1
                };
                continue;
            }
            let Some(cluster) = text.strip_prefix('-').filter(|cluster| !cluster.is_empty()) else {
                break;
            };
            if spec.numeric && cluster.bytes().all(|b| b.is_ascii_digit()) {
                next += 1;
                continue;
            }
            let mut used = 1;
            let mut split = None;
            for (index, option) in cluster.char_indices() {
                if spec.stop_short.contains(option) {
                    return Skip::Program;
                }
                if spec.shell_short.contains(option) {
                    shell = true;
                }
                if name == "watch" && option == 'x' {
                    exec = true;
                }
                let attached = cluster.get(index + option.len_utf8()..).unwrap_or("");
                if spec.short_arg.contains(option) {
                    if attached.is_empty() {
                        used = 2;
                    }
                    if name == "env" && option == 'S' {
                        split = Some(if attached.is_empty() {
                            words
                                .get(next + 1)
                                .map(|word| word.text.clone())
                                .unwrap_or_default()
                        } else {
                            attached.to_string()
                        });
                    }
                    break;
                }
                if spec.optional_short.contains(option) {
                    break;
                }
            }
            if let Some(string) = split {
                if !self.split_env(words, next, used, &string, word_at, entered) {
                    return Skip::Program;
                }
                continue;
            }
            next += used;
        }
        if spec.assignments {
            while let Some(word) = words.get(next) {
                if !is_assignment_text(&word.text) {
                    break;
                }
                command.assignments.push(word.text.clone());
                next += 1;
            }
        }
        next += spec.operands;
        if name == "watch" && !exec {
            return Skip::Script { next };
        }
        Skip::Command { next, shell }
    }

    /// `env -S STRING`: the `used` words at `words[at]` are replaced by the
    /// words of STRING, one nesting level deeper.
    fn split_env(
        &mut self,
        words: &mut Vec<WordInfo>,
        at: usize,
        used: usize,
        string: &str,
        word_at: usize,
        entered: &mut usize,
    ) -> bool {
        if !self.enter(word_at) {
            return false;
        }
        *entered += 1;
        let split: Vec<WordInfo> = self
            .split_words(string, word_at)
            .into_iter()
            .map(|word| WordInfo::from_word(word).0)
            .collect();
        let end = (at + used).min(words.len());
        if at <= end {
            words.splice(at..end, split);
        }
        true
    }

    /// The commands `command` runs in turn, by its program.
    fn runs_in_turn(
        &mut self,
        command: &mut Command,
        rest: &[WordInfo],
        wrappers: &[String],
    ) -> Vec<Command> {
        let program = command.program.clone();
        match program.as_str() {
            name if SHELLS.contains(&name) => self.shell_script(command, rest, wrappers),
            "eval" => {
                command.dynamic = true;
                let at = rest.first().map_or(0, |word| word.at);
                self.nested(&join(rest), at, wrappers, "eval")
            }
            "source" | "." => {
                if rest
                    .iter()
                    .find(|word| word.text != "--")
                    .is_some_and(reads_stdin)
                {
                    command.dynamic = true;
                }
                Vec::new()
            }
            "find" => self.find_exec(rest, wrappers),
            "trap" => {
                let operands: Vec<&WordInfo> = rest
                    .iter()
                    .skip_while(|word| matches!(word.text.as_str(), "-p" | "-l" | "-P"))
                    .skip_while(|word| word.text == "--")
                    .collect();
                match operands.as_slice() {
                    [action, _, ..] if action.text != "-" => {
                        self.nested(&action.text, action.at, wrappers, "trap")
                    }
                    _ => Vec::new(),
                }
            }
            "su" | "runuser" => match su_script(rest) {
                Some((script, at)) => self.nested(&script, at, wrappers, &program),
                None => {
                    command.dynamic = true;
                    Vec::new()
                }
            },
            _ => Vec::new(),
        }
    }

    /// A shell: with `-c`, its script is parsed; otherwise it is dynamic when
    /// it reads its script from standard input or a process substitution.
    fn shell_script(
        &mut self,
        command: &mut Command,
        rest: &[WordInfo],
        wrappers: &[String],
    ) -> Vec<Command> {
        let mut dash_c = false;
        let mut stdin = false;
        let mut script: Option<(String, usize, bool)> = None;
        let mut index = 0;
        while let Some(word) = rest.get(index) {
            let text = word.text.as_str();
            if text == "--" || text == "-" {
                index += 1;
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
                        Some(value) => script = Some((value.to_string(), word.at, false)),
                        None => {
                            script = rest
                                .get(index + 1)
                                .map(|word| (word.text.clone(), word.at, word.procsub));
                            index += 1;
                        }
                    }
                    index += 1;
                    continue;
                }
                let takes = matches!(option, "rcfile" | "init-file" | "init-command");
                index += if takes && value.is_none() { 2 } else { 1 };
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
            index += 1 + arguments;
        }
        let operand = script.or_else(|| {
            rest.get(index)
                .map(|word| (word.text.clone(), word.at, word.procsub))
        });
        if dash_c {
            return match operand {
                Some((text, at, _)) => {
                    let name = command.program.clone();
                    self.nested(&text, at, wrappers, &name)
                }
                None => Vec::new(),
            };
        }
        let reads_input = match &operand {
            None => true,
            Some((text, _, procsub)) => *procsub || STDIN_PATHS.contains(&text.as_str()),
        };
        if stdin || reads_input {
            command.dynamic = true;
        }
        Vec::new()
    }

    /// The commands of `find`'s `-exec`, `-execdir`, `-ok` and `-okdir`.
    fn find_exec(&mut self, rest: &[WordInfo], wrappers: &[String]) -> Vec<Command> {
        let mut commands = Vec::new();
        let mut index = 0;
        while let Some(word) = rest.get(index) {
            index += 1;
            if !matches!(word.text.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
                continue;
            }
            let begin = index;
            let mut end = rest.len();
            let mut scan = begin;
            while let Some(item) = rest.get(scan) {
                // `+` ends the command only right after `{}`.
                let plus = item.text == "+"
                    && scan > begin
                    && rest
                        .get(scan - 1)
                        .is_some_and(|previous| previous.text == "{}");
                if item.text == ";" || plus {
                    end = scan;
                    break;
                }
                scan += 1;
            }
            index = end + 1;
            let clause = rest.get(begin..end).unwrap_or_default().to_vec();
            if clause.is_empty() {
                continue;
            }
            if !self.enter(word.at) {
                break;
            }
            let mut inner_wrappers = wrappers.to_vec();
            inner_wrappers.push("find".to_string());
            commands.extend(self.analyze(clause, inner_wrappers, Vec::new()));
            self.leave();
        }
        commands
    }

    /// Parses `script` (from the word at `at`) one level deeper; its
    /// commands run under `wrappers` and then `name`.
    fn nested(&mut self, script: &str, at: usize, wrappers: &[String], name: &str) -> Vec<Command> {
        let mut prefix = wrappers.to_vec();
        prefix.push(name.to_string());
        let mut commands = self.sub_parse(script, at);
        for command in &mut commands {
            let mut all = prefix.clone();
            all.append(&mut command.wrappers);
            command.wrappers = all;
        }
        commands
    }
}

/// The script of `su -c SCRIPT` (also `--command`, `--session-command`,
/// and clusters such as `-lc`), with the offset of its word.
fn su_script(rest: &[WordInfo]) -> Option<(String, usize)> {
    let mut index = 0;
    while let Some(word) = rest.get(index) {
        let text = word.text.as_str();
        index += 1;
        if text == "--" {
            return None;
        }
        if let Some(long) = text.strip_prefix("--") {
            match long.split_once('=') {
                Some(("command" | "session-command", value)) => {
                    return Some((value.to_string(), word.at))
                }
                None if matches!(long, "command" | "session-command") => {
                    return rest.get(index).map(|word| (word.text.clone(), word.at));
                }
                _ => continue,
            }
        }
        let Some(cluster) = text.strip_prefix('-') else {
            continue;
        };
        for (position, option) in cluster.char_indices() {
            let attached = cluster.get(position + option.len_utf8()..).unwrap_or("");
            match option {
                'c' if attached.is_empty() => {
                    return rest.get(index).map(|word| (word.text.clone(), word.at))
                }
                'c' => return Some((attached.to_string(), word.at)),
                's' | 'g' | 'G' | 'w' | 'u' => {
                    if attached.is_empty() {
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

fn reads_stdin(word: &WordInfo) -> bool {
    word.procsub || STDIN_PATHS.contains(&word.text.as_str())
}

fn join(words: &[WordInfo]) -> String {
    words
        .iter()
        .map(|word| word.text.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

/// `NAME=value` as a program such as `env` sees it (quotes already gone).
fn is_assignment_text(text: &str) -> bool {
    text.split_once('=')
        .is_some_and(|(name, _)| is_assign_name(name))
}

/// The program of a program word: its basename. A dynamic word whose last
/// component holds an expansion (`$(which rm)`) is kept whole.
fn program_name(text: &str, dynamic: bool) -> String {
    let base = text.rsplit('/').next().unwrap_or(text);
    if base.is_empty() || (dynamic && base.contains(['$', '`', '(', ')', '{', '}'])) {
        text.to_string()
    } else {
        base.to_string()
    }
}

/// Splits arguments into flags and operands: `--long[=value]` gives
/// `--long`; `-abc` gives `-a`, `-b`, `-c`; a lone `-` is an operand; after
/// a lone `--` (itself in neither list) every word is an operand.
pub(super) fn split_flags(args: &[String]) -> (Vec<String>, Vec<String>) {
    let mut flags = Vec::new();
    let mut operands = Vec::new();
    let mut ended = false;
    for arg in args {
        if ended {
            operands.push(arg.clone());
        } else if arg == "--" {
            ended = true;
        } else if arg.starts_with("--") {
            flags.push(arg.split('=').next().unwrap_or(arg).to_string());
        } else if let Some(cluster) = arg.strip_prefix('-').filter(|cluster| !cluster.is_empty()) {
            flags.extend(cluster.chars().map(|c| format!("-{c}")));
        } else {
            operands.push(arg.clone());
        }
    }
    (flags, operands)
}
