//! Lexing: command text into words, operators and redirections, with
//! quotes removed and expansions kept as written.
//!
//! One pass over the bytes. A substitution (`$( )`, backticks, `<( )`,
//! `>( )`) is skipped to its end by an iterative scan (no recursion, so
//! `$($($(…` a megabyte deep is linear) and its body is handed back for the
//! parser to read, within the depth bound. A heredoc's body is skipped.

/// A word, after quote removal.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Word {
    /// The text: quotes removed, escapes resolved, expansions as written.
    pub(super) text: String,
    /// It holds an expansion (`$x`, `${x}`, `$( )`, backticks, `<( )`):
    /// its value is known only when the shell runs it.
    pub(super) expands: bool,
    /// The whole word is a process substitution, `<( )` or `>( )`.
    pub(super) process: bool,
    /// How many bytes of `text` came before the first quote or expansion
    /// (an assignment's name must be in them).
    pub(super) plain_prefix: usize,
    /// The bodies of the substitutions in it, in order: commands that run.
    pub(super) substitutions: Vec<String>,
}

/// A token of command text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Token {
    /// A word.
    Word(Word),
    /// A control operator: `;`, `&&`, `||`, `|`, `|&`, `&`, `(`, `)`, `;;`,
    /// `;&`, `;;&`, or a line break (`"\n"`).
    Op(&'static str),
    /// A redirection operator (its file descriptor number dropped).
    Redirect(&'static str),
}

/// Lexing stopped: why, and where (a byte offset of the text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct LexError {
    pub(super) what: &'static str,
    pub(super) at: usize,
}

const CONTROL: [&str; 10] = [";;&", ";;", ";&", "&&", "||", "|&", ";", "&", "|", "\n"];

const REDIRECTS: [&str; 12] = [
    "&>>", "<<<", "<<-", "&>", ">>", ">|", ">&", "<&", "<>", "<<", "<", ">",
];

/// The tokens of `text`, or the tokens up to an error and the error.
pub(super) fn tokens(text: &str) -> (Vec<Token>, Option<LexError>) {
    let mut lexer = Lexer {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        out: Vec::new(),
        heredocs: Vec::new(),
    };
    let error = lexer.run().err();
    (lexer.out, error)
}

struct Lexer<'t> {
    text: &'t str,
    bytes: &'t [u8],
    pos: usize,
    out: Vec<Token>,
    /// Heredoc delimiters whose bodies start after the next line break,
    /// with whether leading tabs are stripped (`<<-`).
    heredocs: Vec<(String, bool)>,
}

impl Lexer<'_> {
    fn peek(&self, offset: usize) -> Option<u8> {
        self.bytes.get(self.pos + offset).copied()
    }

    fn rest(&self) -> &str {
        self.text.get(self.pos..).unwrap_or("")
    }

    fn run(&mut self) -> Result<(), LexError> {
        while let Some(b) = self.peek(0) {
            match b {
                b' ' | b'\t' | b'\r' => self.pos += 1,
                b'\\' if self.peek(1) == Some(b'\n') => self.pos += 2,
                b'#' => {
                    while self.peek(0).is_some_and(|c| c != b'\n') {
                        self.pos += 1;
                    }
                }
                b'\n' => {
                    self.pos += 1;
                    self.out.push(Token::Op("\n"));
                    self.skip_heredoc_bodies();
                }
                b'(' | b')' => {
                    self.pos += 1;
                    self.out.push(Token::Op(if b == b'(' { "(" } else { ")" }));
                }
                b'<' | b'>' if self.peek(1) == Some(b'(') => {
                    let word = self.word()?;
                    self.out.push(Token::Word(word));
                }
                _ => {
                    if let Some(op) = self.redirect_op() {
                        self.pos += op.len();
                        if op == "<<" || op == "<<-" {
                            self.heredoc_delimiter(op == "<<-")?;
                        } else {
                            self.out.push(Token::Redirect(op));
                        }
                    } else if let Some(op) = CONTROL.iter().find(|op| self.rest().starts_with(**op))
                    {
                        self.pos += op.len();
                        self.out.push(Token::Op(op));
                    } else {
                        let before = self.pos;
                        let word = self.word()?;
                        if self.pos == before {
                            // Cannot happen (every byte a word stops at is
                            // taken above); never loop on it.
                            self.pos += 1;
                            continue;
                        }
                        self.out.push(Token::Word(word));
                    }
                }
            }
        }
        Ok(())
    }

    /// A redirection operator here, after an optional file descriptor
    /// number (`2>&1`); the number is consumed with it.
    fn redirect_op(&mut self) -> Option<&'static str> {
        let digits = self
            .bytes
            .get(self.pos..)?
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        let after = self.text.get(self.pos + digits..)?;
        let op = REDIRECTS.iter().find(|op| after.starts_with(**op))?;
        // `&>` with a number before it is not a redirection of that number.
        if digits > 0 && op.starts_with('&') {
            return None;
        }
        self.pos += digits;
        Some(op)
    }

    /// After `<<`: the delimiter word; the body follows the line break.
    fn heredoc_delimiter(&mut self, strip_tabs: bool) -> Result<(), LexError> {
        while matches!(self.peek(0), Some(b' ' | b'\t')) {
            self.pos += 1;
        }
        let word = self.word()?;
        self.heredocs.push((word.text.clone(), strip_tabs));
        self.out
            .push(Token::Redirect(if strip_tabs { "<<-" } else { "<<" }));
        self.out.push(Token::Word(word));
        Ok(())
    }

    /// Skips the bodies of the pending heredocs, each up to its delimiter
    /// line (or the end of the text).
    fn skip_heredoc_bodies(&mut self) {
        for (delimiter, strip_tabs) in std::mem::take(&mut self.heredocs) {
            while self.pos < self.bytes.len() {
                let line_end = self
                    .rest()
                    .find('\n')
                    .map_or(self.bytes.len(), |i| self.pos + i);
                let line = self.text.get(self.pos..line_end).unwrap_or("");
                let line = if strip_tabs {
                    line.trim_start_matches('\t')
                } else {
                    line
                };
                self.pos = (line_end + 1).min(self.bytes.len());
                if line == delimiter {
                    break;
                }
            }
        }
    }

    /// A word: up to an unquoted blank or operator character.
    fn word(&mut self) -> Result<Word, LexError> {
        let mut w = Word::default();
        let mut plain = true;
        let mark = |w: &mut Word, plain: &mut bool| {
            if *plain {
                w.plain_prefix = w.text.len();
                *plain = false;
            }
        };
        let start = self.pos;
        while let Some(b) = self.peek(0) {
            match b {
                b' ' | b'\t' | b'\n' | b'\r' | b';' | b'&' | b'|' | b')' => break,
                b'<' | b'>' => {
                    if self.peek(1) == Some(b'(') {
                        mark(&mut w, &mut plain);
                        let end = self.substitution_end(self.pos + 2, b')')?;
                        w.process = self.pos == start;
                        self.take_substitution(&mut w, self.pos + 2, end, end + 1);
                    } else {
                        break;
                    }
                }
                b'(' if plain && w.text.ends_with('=') => {
                    // An array assignment, `FILES=(a b)`: one word.
                    let end = self.substitution_end(self.pos + 1, b')')?;
                    w.text.push_str(self.text.get(self.pos..=end).unwrap_or(""));
                    w.plain_prefix = w.text.len();
                    plain = false;
                    self.pos = end + 1;
                }
                // `name()` of a function definition; elsewhere the parser
                // finds the `(` out of place.
                b'(' => break,
                b'\\' => {
                    mark(&mut w, &mut plain);
                    match self.text.get(self.pos + 1..).and_then(|s| s.chars().next()) {
                        Some('\n') => self.pos += 2,
                        Some(c) => {
                            w.text.push(c);
                            self.pos += 1 + c.len_utf8();
                        }
                        None => self.pos += 1,
                    }
                }
                b'\'' => {
                    mark(&mut w, &mut plain);
                    let body_start = self.pos + 1;
                    let Some(len) = self.text.get(body_start..).and_then(|s| s.find('\'')) else {
                        return Err(LexError {
                            what: "unterminated single quote",
                            at: self.pos,
                        });
                    };
                    w.text
                        .push_str(self.text.get(body_start..body_start + len).unwrap_or(""));
                    self.pos = body_start + len + 1;
                }
                b'"' => {
                    mark(&mut w, &mut plain);
                    self.double_quoted(&mut w)?;
                }
                b'$' if self.peek(1) == Some(b'\'') => {
                    mark(&mut w, &mut plain);
                    self.ansi_c(&mut w)?;
                }
                b'$' if self.peek(1) == Some(b'"') => {
                    mark(&mut w, &mut plain);
                    self.pos += 1;
                    self.double_quoted(&mut w)?;
                }
                b'$' | b'`' => {
                    mark(&mut w, &mut plain);
                    self.expansion(&mut w)?;
                }
                _ => {
                    let c = self.rest().chars().next().unwrap_or('\u{fffd}');
                    w.text.push(c);
                    self.pos += c.len_utf8();
                }
            }
        }
        if plain {
            w.plain_prefix = w.text.len();
        }
        Ok(w)
    }

    /// `"…"`: `\` escapes only `$`, `` ` ``, `"`, `\` and a line break;
    /// expansions inside are kept as written.
    fn double_quoted(&mut self, w: &mut Word) -> Result<(), LexError> {
        let open = self.pos;
        self.pos += 1;
        loop {
            match self.peek(0) {
                None => {
                    return Err(LexError {
                        what: "unterminated double quote",
                        at: open,
                    })
                }
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some(b'\\') => match self.peek(1) {
                    Some(b'$' | b'`' | b'"' | b'\\') => {
                        w.text.push(char::from(self.peek(1).unwrap_or(b'\\')));
                        self.pos += 2;
                    }
                    Some(b'\n') => self.pos += 2,
                    _ => {
                        w.text.push('\\');
                        self.pos += 1;
                    }
                },
                Some(b'$' | b'`') => self.expansion(w)?,
                Some(_) => {
                    let c = self.rest().chars().next().unwrap_or('\u{fffd}');
                    w.text.push(c);
                    self.pos += c.len_utf8();
                }
            }
        }
    }

    /// `$'…'`: ANSI-C quoting, its escapes decoded.
    fn ansi_c(&mut self, w: &mut Word) -> Result<(), LexError> {
        let open = self.pos;
        self.pos += 2;
        loop {
            let Some(c) = self.rest().chars().next() else {
                return Err(LexError {
                    what: "unterminated `$'` quote",
                    at: open,
                });
            };
            self.pos += c.len_utf8();
            match c {
                '\'' => return Ok(()),
                '\\' => {
                    let Some(e) = self.rest().chars().next() else {
                        continue;
                    };
                    self.pos += e.len_utf8();
                    match e {
                        'n' => w.text.push('\n'),
                        't' => w.text.push('\t'),
                        'r' => w.text.push('\r'),
                        'a' => w.text.push('\u{7}'),
                        'e' | 'E' => w.text.push('\u{1b}'),
                        'x' => {
                            let hex: String = self
                                .rest()
                                .chars()
                                .take(2)
                                .take_while(char::is_ascii_hexdigit)
                                .collect();
                            self.pos += hex.len();
                            match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                                Some(ch) => w.text.push(ch),
                                None => w.text.push_str("\\x"),
                            }
                        }
                        other => w.text.push(other),
                    }
                }
                other => w.text.push(other),
            }
        }
    }

    /// `$name`, `${…}`, `$( )`, `$(( ))`, or a backtick substitution, kept
    /// as written; a command substitution's body is recorded.
    fn expansion(&mut self, w: &mut Word) -> Result<(), LexError> {
        w.expands = true;
        let start = self.pos;
        match (self.peek(0), self.peek(1), self.peek(2)) {
            (Some(b'`'), _, _) => {
                let end = self.substitution_end(start + 1, b'`')?;
                self.take_substitution(w, start + 1, end, end + 1);
            }
            (Some(b'$'), Some(b'('), Some(b'(')) => {
                // Arithmetic: no command runs.
                let end = self.substitution_end(start + 2, b')')?;
                w.text.push_str(self.text.get(start..=end).unwrap_or(""));
                self.pos = end + 1;
            }
            (Some(b'$'), Some(b'('), _) => {
                let end = self.substitution_end(start + 2, b')')?;
                self.take_substitution(w, start + 2, end, end + 1);
            }
            (Some(b'$'), Some(b'{'), _) => {
                let end = self.substitution_end(start + 2, b'}')?;
                w.text.push_str(self.text.get(start..=end).unwrap_or(""));
                self.pos = end + 1;
            }
            (Some(b'$'), Some(c), _) if c.is_ascii_alphabetic() || c == b'_' => {
                let len = self
                    .bytes
                    .get(start + 1..)
                    .unwrap_or(&[])
                    .iter()
                    .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                    .count();
                w.text
                    .push_str(self.text.get(start..start + 1 + len).unwrap_or(""));
                self.pos = start + 1 + len;
            }
            (Some(b'$'), Some(c), _) if c.is_ascii_digit() || b"@*#?$!-".contains(&c) => {
                w.text
                    .push_str(self.text.get(start..start + 2).unwrap_or(""));
                self.pos = start + 2;
            }
            _ => {
                // A lone `$` is a dollar sign.
                w.expands = false;
                w.text.push('$');
                self.pos += 1;
            }
        }
        Ok(())
    }

    /// Records a substitution whose body is `body_start..body_end` and
    /// whose text ends before `next`.
    fn take_substitution(&mut self, w: &mut Word, body_start: usize, body_end: usize, next: usize) {
        w.expands = true;
        let open = self.pos;
        w.text.push_str(self.text.get(open..next).unwrap_or(""));
        let body = self.text.get(body_start..body_end).unwrap_or("");
        // Backslashes before a backtick or a backslash are escapes inside
        // backticks.
        let body = if self.bytes.get(open) == Some(&b'`') {
            body.replace("\\`", "`").replace("\\\\", "\\")
        } else {
            body.to_string()
        };
        w.substitutions.push(body);
        self.pos = next;
    }

    /// The offset of the byte `close` that ends a substitution whose body
    /// starts at `from`: nested parentheses, braces, quotes, backticks and
    /// substitutions skipped, in one pass with an explicit stack.
    fn substitution_end(&self, from: usize, close: u8) -> Result<usize, LexError> {
        #[derive(Clone, Copy, PartialEq)]
        enum Mode {
            Group(u8),
            Double,
            Backtick,
        }
        let mut stack = vec![if close == b'`' {
            Mode::Backtick
        } else {
            Mode::Group(close)
        }];
        let mut i = from;
        while let Some(&b) = self.bytes.get(i) {
            let top = stack.last().copied();
            match (top, b) {
                (_, b'\\') => i += 1,
                (Some(Mode::Group(_) | Mode::Backtick), b'\'') => {
                    match self.text.get(i + 1..).and_then(|s| s.find('\'')) {
                        Some(len) => i += len + 1,
                        None => break,
                    }
                }
                (Some(Mode::Group(_) | Mode::Backtick), b'"') => stack.push(Mode::Double),
                (Some(Mode::Double), b'"') => {
                    stack.pop();
                }
                (Some(Mode::Backtick), b'`') => {
                    stack.pop();
                    if stack.is_empty() {
                        return Ok(i);
                    }
                }
                (_, b'`') => stack.push(Mode::Backtick),
                (_, b'$') if matches!(self.bytes.get(i + 1), Some(b'(')) => {
                    stack.push(Mode::Group(b')'));
                    i += 1;
                }
                (_, b'$') if matches!(self.bytes.get(i + 1), Some(b'{')) => {
                    stack.push(Mode::Group(b'}'));
                    i += 1;
                }
                (Some(Mode::Group(b')')), b'(') => stack.push(Mode::Group(b')')),
                (Some(Mode::Group(c)), _) if b == c => {
                    stack.pop();
                    if stack.is_empty() {
                        return Ok(i);
                    }
                }
                _ => {}
            }
            i += 1;
        }
        Err(LexError {
            what: match close {
                b'`' => "unterminated backtick substitution",
                b'}' => "unterminated `${`",
                _ => "unterminated substitution",
            },
            at: from.saturating_sub(1),
        })
    }
}
