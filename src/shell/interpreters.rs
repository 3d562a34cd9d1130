//! Where an interpreter's program comes from, read from its arguments.
//!
//! `python3 -c CODE`, `node -e CODE`, `perl -ne CODE` and `ruby -e CODE`
//! run code written on the command line; `python3 x.py` runs a file;
//! `python3 -m pip` a module; and `python3`, `python3 -` or `node
//! /dev/stdin` read their program from standard input, which in `curl … |
//! python3` is whatever the network sends. The shell view marks a command
//! `dynamic` when what it runs cannot be read from the text, as it does
//! for `curl … | sh`; this module says, from an interpreter's words alone,
//! which of these it is. Each interpreter's options are told apart by
//! their letters: the ones that take the code, the ones that take a value
//! (which is then no script), the ones that only print and exit.

/// How one interpreter reads its options.
#[derive(Debug)]
pub(super) struct Interpreter {
    /// One-letter options whose value is the program's code: the rest of
    /// the cluster (`-e'print 1'`), where `inline_code` allows it, else
    /// the next word.
    code: &'static str,
    /// Code may follow its option in the same word (Node.js reads `-pe`
    /// as `-p -e`).
    inline_code: bool,
    /// Long options whose value is the code (`--eval CODE`, `--eval=CODE`).
    long_code: &'static [&'static str],
    /// One-letter options that run a module by name (`python3 -m pip`).
    module: &'static str,
    /// One-letter options whose value is the script file (`php -f x.php`).
    script: &'static str,
    /// One-letter options that take a value: the rest of the cluster, else
    /// the next word (`python3 -W ignore x.py`).
    values: &'static str,
    /// One-letter options whose value, if any, is the rest of the cluster
    /// only (`perl -i.bak`, `perl -l`).
    joined: &'static str,
    /// Long options that take the next word as their value when it is not
    /// given with `=` (`node --require ./x.js`).
    long_values: &'static [&'static str],
    /// Words that print and exit with no program (`--version`).
    info: &'static [&'static str],
}

const PYTHON: Interpreter = Interpreter {
    code: "c",
    inline_code: true,
    long_code: &[],
    module: "m",
    script: "",
    values: "WXQ",
    joined: "",
    long_values: &["--check-hash-based-pycs"],
    info: &["-V", "-VV", "--version", "-h", "-?", "--help"],
};

const NODE: Interpreter = Interpreter {
    code: "ep",
    inline_code: false,
    long_code: &["--eval", "--print"],
    module: "",
    script: "",
    values: "rC",
    joined: "",
    long_values: &[
        "--require",
        "--import",
        "--loader",
        "--experimental-loader",
        "--conditions",
        "--input-type",
        "--env-file",
    ],
    info: &["-v", "--version", "-h", "--help"],
};

const PERL: Interpreter = Interpreter {
    code: "eE",
    inline_code: true,
    long_code: &[],
    module: "",
    script: "",
    values: "I",
    joined: "MmilxC0dD",
    long_values: &[],
    info: &["-v", "-V", "-h", "--version", "--help"],
};

const RUBY: Interpreter = Interpreter {
    code: "e",
    inline_code: true,
    long_code: &[],
    module: "",
    script: "",
    values: "IrCE",
    joined: "iFlx0KTW",
    long_values: &["--encoding", "--external-encoding", "--internal-encoding"],
    info: &["-v", "--version", "-h", "--help"],
};

const PHP: Interpreter = Interpreter {
    code: "rBRE",
    inline_code: true,
    long_code: &[],
    module: "",
    script: "fF",
    values: "dcz",
    joined: "",
    long_values: &[],
    info: &[
        "-v",
        "--version",
        "-h",
        "--help",
        "-i",
        "--info",
        "-m",
        "--modules",
        "--ini",
    ],
};

const LUA: Interpreter = Interpreter {
    code: "e",
    inline_code: true,
    long_code: &[],
    module: "",
    script: "",
    values: "l",
    joined: "",
    long_values: &[],
    info: &["-v"],
};

/// The interpreter a program is, by its name as the view gives it:
/// `python`, `python3`, `python3.12`, `pypy3`, `node`, `nodejs`, `perl`,
/// `ruby`, `php`, `lua`, `luajit`.
pub(super) fn of(program: &str) -> Option<&'static Interpreter> {
    const NAMES: [(&str, &Interpreter); 9] = [
        ("python", &PYTHON),
        ("pypy", &PYTHON),
        ("nodejs", &NODE),
        ("node", &NODE),
        ("perl", &PERL),
        ("ruby", &RUBY),
        ("php", &PHP),
        ("luajit", &LUA),
        ("lua", &LUA),
    ];
    // A version may follow the name (`python3.12`, `perl5.36`).
    NAMES.iter().find_map(|&(stem, interpreter)| {
        program
            .strip_prefix(stem)
            .filter(|version| version.chars().all(|c| c.is_ascii_digit() || c == '.'))
            .map(|_| interpreter)
    })
}

/// Where the program an interpreter runs comes from; the numbers index
/// its argument words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Program {
    /// Code in word `i`, on its own or after its option in the same word.
    Code(usize),
    /// A module, by name.
    Module,
    /// The file named by word `i` (which may be standard input, or a
    /// process substitution).
    Script(usize),
    /// Nothing: a version or a help is printed.
    Info,
    /// Standard input: no code, module or script is named (or `-` is).
    Stdin,
}

impl Interpreter {
    /// Where the program comes from, given the interpreter's argument
    /// words by index (`word(i)` is `None` past the last).
    pub(super) fn program<'w>(&self, word: impl Fn(usize) -> Option<&'w str>) -> Program {
        let mut info = false;
        let mut i = 0;
        while let Some(text) = word(i) {
            match text {
                "--" => return word(i + 1).map_or(Program::Stdin, |_| Program::Script(i + 1)),
                "-" => return Program::Stdin,
                _ => {}
            }
            if self.info.contains(&text) {
                info = true;
            }
            if let Some(long) = text.strip_prefix("--") {
                let (option, value) = match long.split_once('=') {
                    Some((option, value)) => (option, Some(value)),
                    None => (long, None),
                };
                let named = |names: &[&str]| names.iter().any(|n| n.get(2..) == Some(option));
                if named(self.long_code) {
                    return Program::Code(if value.is_some() { i } else { i + 1 });
                }
                i += if named(self.long_values) && value.is_none() {
                    2
                } else {
                    1
                };
                continue;
            }
            let Some(cluster) = text.strip_prefix('-').filter(|c| !c.is_empty()) else {
                return Program::Script(i);
            };
            let mut next = i + 1;
            for (at, letter) in cluster.char_indices() {
                let rest = cluster.get(at + letter.len_utf8()..).unwrap_or_default();
                if self.code.contains(letter) {
                    let inline = self.inline_code && !rest.is_empty();
                    return Program::Code(if inline { i } else { i + 1 });
                }
                if self.module.contains(letter) {
                    return Program::Module;
                }
                if self.script.contains(letter) {
                    return Program::Script(if rest.is_empty() { i + 1 } else { i });
                }
                if self.values.contains(letter) {
                    if rest.is_empty() {
                        next = i + 2;
                    }
                    break;
                }
                if self.joined.contains(letter) {
                    break;
                }
            }
            i = next;
        }
        if info {
            Program::Info
        } else {
            Program::Stdin
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program(command: &str) -> Program {
        let mut words = command.split(' ');
        let name = words.next().unwrap();
        let args: Vec<&str> = words.collect();
        of(name)
            .unwrap_or_else(|| panic!("`{name}` is an interpreter"))
            .program(|i| args.get(i).copied())
    }

    #[test]
    fn the_program_is_read_from_the_options() {
        for (command, want) in [
            ("python3 -c CODE", Program::Code(1)),
            ("python3 -u -c CODE", Program::Code(2)),
            ("python3 -Ic CODE", Program::Code(1)),
            ("python3 -cCODE", Program::Code(0)),
            ("python3 -W ignore x.py", Program::Script(2)),
            ("python3 -Wignore x.py", Program::Script(1)),
            ("python3 -m pip install x", Program::Module),
            ("python3 x.py -c y", Program::Script(0)),
            ("python3 -", Program::Stdin),
            ("python3", Program::Stdin),
            ("python3 -u", Program::Stdin),
            ("python3 -- x.py", Program::Script(1)),
            ("python3 --version", Program::Info),
            ("python3.12 -V", Program::Info),
            ("pypy3 /dev/stdin", Program::Script(0)),
            ("node -e CODE", Program::Code(1)),
            ("node -pe CODE", Program::Code(1)),
            ("node --eval CODE", Program::Code(1)),
            ("node --eval=CODE", Program::Code(0)),
            ("node --require ./x.js app.js", Program::Script(2)),
            ("node -r ./x.js", Program::Stdin),
            ("node -v", Program::Info),
            ("perl -ne CODE file", Program::Code(1)),
            ("perl -pi.bak -e CODE file", Program::Code(2)),
            ("perl -e'print' file", Program::Code(0)),
            ("perl -I lib x.pl", Program::Script(2)),
            ("perl -MData::Dumper x.pl", Program::Script(1)),
            ("perl -l", Program::Stdin),
            ("ruby -e CODE", Program::Code(1)),
            ("ruby -r json x.rb", Program::Script(2)),
            ("php -r CODE", Program::Code(1)),
            ("php -f x.php", Program::Script(1)),
            ("php -d memory_limit=1G x.php", Program::Script(2)),
            ("php -m", Program::Info),
            ("php", Program::Stdin),
            ("lua -e CODE", Program::Code(1)),
            ("lua -l mod x.lua", Program::Script(2)),
        ] {
            assert_eq!(program(command), want, "{command}");
        }
    }

    #[test]
    fn only_interpreters_are_read() {
        for name in [
            "python3",
            "python",
            "python3.12",
            "pypy3",
            "node",
            "perl5.36",
            "luajit",
        ] {
            assert!(of(name).is_some(), "{name}");
        }
        for name in [
            "python3-config",
            "pythonx",
            "nodemon",
            "perldoc",
            "rubocop",
            "sh",
        ] {
            assert!(of(name).is_none(), "{name}");
        }
    }
}
