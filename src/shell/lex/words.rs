//! Words: quotes removed, `$…` expansions, substitutions, backquotes,
//! ANSI-C strings and arithmetic kept as written (their commands parsed
//! where they run).

use super::{is_assign_name, Kind, Parser, Tok};
use crate::shell::buffers::{self, Word};

impl Parser<'_> {
    /// Reads a word onto the top of the word arena.
    pub(super) fn lex_word(&mut self) -> Word {
        let start = self.pos;
        let mark = self.mark();
        let subs = self.b.out.len();
        let mut word = Word {
            at: start,
            ..Word::default()
        };
        // Inside the parentheses of an array assignment `a=( … )`, blanks and
        // operators are part of the word.
        let mut array = 0usize;
        let mut bracket = false;
        let mut brace_open = false;
        let mut brace_list = false;
        while let Some(b) = self.byte(self.pos) {
            if array > 0 {
                let literal = match b {
                    b'(' => {
                        array += 1;
                        true
                    }
                    b')' => {
                        array -= 1;
                        true
                    }
                    b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'<' | b'>' => true,
                    _ => false,
                };
                if literal {
                    self.b.text.push(char::from(b));
                    self.pos += 1;
                    continue;
                }
            }
            match b {
                b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b')' => break,
                b'(' => {
                    if word.assign && self.text(self.span_from(mark)).ends_with('=') {
                        array = 1;
                        self.b.text.push('(');
                        self.pos += 1;
                    } else {
                        break;
                    }
                }
                b'<' | b'>' => {
                    if self.byte(self.pos + 1) != Some(b'(') {
                        break;
                    }
                    let at = self.pos;
                    self.lex_subst(&mut word, at, "process substitution");
                    if at == start {
                        word.procsub = true;
                    }
                }
                b'\\' => match self.byte(self.pos + 1) {
                    Some(b'\n') => self.pos += 2,
                    Some(_) => {
                        self.pos += 1;
                        word.quoted = true;
                        self.take_char();
                    }
                    None => {
                        self.b.text.push('\\');
                        self.pos += 1;
                    }
                },
                b'\'' => self.lex_single(&mut word),
                b'"' => self.lex_double(&mut word),
                b'$' => self.lex_dollar(&mut word, false),
                b'`' => self.lex_backquote(&mut word, false),
                _ => {
                    match b {
                        b'*' | b'?' => word.glob = true,
                        b'[' => bracket = true,
                        b']' if bracket => word.glob = true,
                        b'{' => {
                            brace_open = true;
                            brace_list = false;
                        }
                        b',' if brace_open => brace_list = true,
                        b'.' if brace_open && self.byte(self.pos + 1) == Some(b'.') => {
                            brace_list = true;
                        }
                        b'}' if brace_open && brace_list => word.brace = true,
                        b'=' if !word.assign
                            && !word.quoted
                            && !word.expansion
                            && is_assign_name(self.text(self.span_from(mark))) =>
                        {
                            word.assign = true;
                        }
                        _ => {}
                    }
                    self.take_char();
                }
            }
        }
        word.text = self.span_from(mark);
        word.subs = (subs, self.b.out.len());
        word
    }

    fn lex_single(&mut self, word: &mut Word) {
        let open = self.pos;
        word.quoted = true;
        let rest = self.rest(open + 1);
        match rest.iter().position(|&c| c == b'\'') {
            Some(len) => {
                self.push_text(self.slice(open + 1, open + 1 + len));
                self.pos = open + 2 + len;
            }
            None => {
                self.push_text(self.slice(open + 1, self.src.len()));
                self.pos = self.src.len();
                self.fail(format_args!("unterminated single quote"), open);
            }
        }
    }

    fn lex_double(&mut self, word: &mut Word) {
        let open = self.pos;
        self.pos += 1;
        word.quoted = true;
        loop {
            match self.byte(self.pos) {
                None => {
                    self.fail(format_args!("unterminated double quote"), open);
                    return;
                }
                Some(b'"') => {
                    self.pos += 1;
                    return;
                }
                Some(b'\\') => match self.byte(self.pos + 1) {
                    Some(b'$' | b'`' | b'"' | b'\\') => {
                        self.pos += 1;
                        self.take_char();
                    }
                    Some(b'\n') => self.pos += 2,
                    _ => {
                        self.b.text.push('\\');
                        self.pos += 1;
                    }
                },
                Some(b'$') => self.lex_dollar(word, true),
                Some(b'`') => self.lex_backquote(word, true),
                Some(_) => self.take_char(),
            }
        }
    }

    /// `$…` at the cursor: a quote (`$'…'`, `$"…"`), a substitution, a
    /// parameter, or a literal `$`.
    fn lex_dollar(&mut self, word: &mut Word, in_double: bool) {
        let start = self.pos;
        match self.byte(start + 1) {
            Some(b'\'') if !in_double => self.lex_ansi(word),
            Some(b'"') if !in_double => {
                self.pos += 1;
                self.lex_double(word);
            }
            Some(b'(') => {
                if self.byte(start + 2) == Some(b'(') {
                    if let Some(end) = self.arith_end(start + 3) {
                        word.expansion = true;
                        if !self.enter(start) {
                            return;
                        }
                        let mark = self.mark();
                        let mut scratch = Word::default();
                        self.walk_arith(&mut scratch, start + 3, end);
                        self.drop_text(mark);
                        self.leave();
                        self.push_text(self.slice(start, self.pos));
                        return;
                    }
                }
                self.lex_subst(word, start, "command substitution");
            }
            Some(b'{') => self.lex_param(word, in_double),
            Some(c) if c == b'_' || c.is_ascii_alphabetic() => {
                let len = self
                    .rest(start + 1)
                    .iter()
                    .take_while(|c| **c == b'_' || c.is_ascii_alphanumeric())
                    .count();
                self.pos = start + 1 + len;
                self.push_text(self.slice(start, self.pos));
                word.expansion = true;
            }
            Some(c) if c.is_ascii_digit() || b"@*#?-$!".contains(&c) => {
                self.pos = start + 2;
                self.push_text(self.slice(start, self.pos));
                word.expansion = true;
            }
            _ => {
                self.b.text.push('$');
                self.pos += 1;
            }
        }
    }

    /// A `$( … )`, `<( … )` or `>( … )` starting at `start`: its body is
    /// parsed in place, and its commands follow those of the word so far.
    fn lex_subst(&mut self, word: &mut Word, start: usize, what: &str) {
        self.pos = start + 2;
        word.expansion = true;
        if !self.enter(start) {
            return;
        }
        let mark = self.mark();
        self.parse_in_parens(start, what);
        self.drop_text(mark);
        self.leave();
        self.push_text(self.slice(start, self.pos));
    }

    /// `${ … }`: kept as written; substitutions inside it run.
    fn lex_param(&mut self, word: &mut Word, in_double: bool) {
        let start = self.pos;
        word.expansion = true;
        if !self.enter(start) {
            return;
        }
        self.pos = start + 2;
        let mark = self.mark();
        let mut scratch = Word::default();
        let mut braces = 1usize;
        loop {
            match self.byte(self.pos) {
                None => {
                    self.fail(format_args!("unterminated parameter expansion"), start);
                    break;
                }
                Some(b'}') => {
                    self.pos += 1;
                    braces -= 1;
                    if braces == 0 {
                        break;
                    }
                }
                Some(b'{') => {
                    braces += 1;
                    self.pos += 1;
                }
                Some(b'\\') => {
                    self.pos += 1;
                    self.skip_char();
                }
                Some(b'\'') if !in_double => self.lex_single(&mut scratch),
                Some(b'"') => self.lex_double(&mut scratch),
                Some(b'$') => self.lex_dollar(&mut scratch, in_double),
                Some(b'`') => self.lex_backquote(&mut scratch, in_double),
                Some(_) => self.skip_char(),
            }
        }
        self.drop_text(mark);
        self.leave();
        self.push_text(self.slice(start, self.pos));
    }

    /// `$'…'`: ANSI-C quoting, decoded.
    fn lex_ansi(&mut self, word: &mut Word) {
        let open = self.pos;
        self.pos += 2;
        word.quoted = true;
        // bash ends the string at a NUL; the rest is read and dropped.
        let mut ended = false;
        loop {
            match self.byte(self.pos) {
                None => {
                    self.fail(format_args!("unterminated ANSI-C quote"), open);
                    return;
                }
                Some(b'\'') => {
                    self.pos += 1;
                    return;
                }
                Some(b'\\') => {
                    self.pos += 1;
                    let mark = self.mark();
                    if self.ansi_escape() {
                        ended = true;
                    }
                    if ended {
                        self.drop_text(mark);
                    }
                }
                Some(_) if ended => self.skip_char(),
                Some(_) => self.take_char(),
            }
        }
    }

    /// Decodes the escape after a `\` in `$'…'` onto the word arena; true
    /// for NUL.
    fn ansi_escape(&mut self) -> bool {
        let Some(b) = self.byte(self.pos) else {
            self.b.text.push('\\');
            return false;
        };
        let simple = match b {
            b'a' => Some('\x07'),
            b'b' => Some('\x08'),
            b'e' | b'E' => Some('\x1b'),
            b'f' => Some('\x0c'),
            b'n' => Some('\n'),
            b'r' => Some('\r'),
            b't' => Some('\t'),
            b'v' => Some('\x0b'),
            b'\\' => Some('\\'),
            b'\'' => Some('\''),
            b'"' => Some('"'),
            b'?' => Some('?'),
            _ => None,
        };
        if let Some(c) = simple {
            self.pos += 1;
            self.b.text.push(c);
            return false;
        }
        let value = match b {
            b'0'..=b'7' => Some(self.digits(3, 8)),
            b'x' | b'u' | b'U' => {
                self.pos += 1;
                let max = match b {
                    b'x' => 2,
                    b'u' => 4,
                    _ => 8,
                };
                let start = self.pos;
                let value = self.digits(max, 16);
                if self.pos == start {
                    self.b.text.push('\\');
                    self.b.text.push(char::from(b));
                    return false;
                }
                Some(value)
            }
            b'c' => {
                self.pos += 1;
                match self.byte(self.pos) {
                    Some(c) if c.is_ascii() => {
                        self.pos += 1;
                        Some(u32::from(c & 0x1f))
                    }
                    _ => {
                        self.push_text("\\c");
                        return false;
                    }
                }
            }
            _ => None,
        };
        match value {
            Some(0) => true,
            Some(value) => {
                self.b
                    .text
                    .push(char::from_u32(value).unwrap_or(char::REPLACEMENT_CHARACTER));
                false
            }
            None => {
                self.b.text.push('\\');
                self.take_char();
                false
            }
        }
    }

    /// Reads up to `max` digits in `radix` at the cursor.
    fn digits(&mut self, max: usize, radix: u32) -> u32 {
        let mut value = 0u32;
        for _ in 0..max {
            let Some(digit) = self
                .byte(self.pos)
                .and_then(|c| char::from(c).to_digit(radix))
            else {
                break;
            };
            value = value.saturating_mul(radix).saturating_add(digit);
            self.pos += 1;
        }
        value
    }

    /// A backquoted command: its text, unescaped, is parsed one level
    /// deeper.
    fn lex_backquote(&mut self, word: &mut Word, in_double: bool) {
        let open = self.pos;
        self.pos += 1;
        word.expansion = true;
        let mark = self.mark();
        loop {
            match self.byte(self.pos) {
                None => {
                    self.fail(format_args!("unterminated backquote"), open);
                    break;
                }
                Some(b'`') => {
                    self.pos += 1;
                    break;
                }
                Some(b'\\') => match self.byte(self.pos + 1) {
                    Some(b'$' | b'`' | b'\\') => {
                        self.pos += 1;
                        self.take_char();
                    }
                    Some(b'"') if in_double => {
                        self.pos += 1;
                        self.take_char();
                    }
                    Some(b'\n') => self.pos += 2,
                    _ => {
                        self.b.text.push('\\');
                        self.pos += 1;
                    }
                },
                Some(_) => self.take_char(),
            }
        }
        let script = self.script(self.span_from(mark));
        self.drop_text(mark);
        self.push_text(self.slice(open, self.pos));
        self.sub_parse(script, open);
    }

    /// Where the `))` closing an arithmetic expression that starts at
    /// `from` is, or `None` when the parentheses close otherwise (then
    /// `((` or `$((` opens nested subshells). Only looks, so a failed guess
    /// costs one scan of text that is then parsed one level deeper.
    pub(super) fn arith_end(&self, from: usize) -> Option<usize> {
        let bytes = self.src.as_bytes();
        let mut depth = 0usize;
        let mut at = from;
        loop {
            match bytes.get(at)? {
                b'\\' => at += 2,
                b'\'' => at += 2 + bytes.get(at + 1..)?.iter().position(|&c| c == b'\'')?,
                b'"' | b'`' => {
                    let quote = *bytes.get(at)?;
                    at += 1;
                    loop {
                        match bytes.get(at)? {
                            b'\\' => at += 2,
                            c if *c == quote => break,
                            _ => at += 1,
                        }
                    }
                    at += 1;
                }
                b'(' => {
                    depth += 1;
                    at += 1;
                }
                b')' if depth == 0 => {
                    return (bytes.get(at + 1) == Some(&b')')).then_some(at);
                }
                b')' => {
                    depth -= 1;
                    at += 1;
                }
                _ => at += 1,
            }
        }
    }

    /// Reads the arithmetic expression in `from..end` for the substitutions
    /// in it, and moves past the closing `))`. What it reads onto the word
    /// arena is left for the caller to drop.
    fn walk_arith(&mut self, word: &mut Word, from: usize, end: usize) {
        self.pos = from;
        while self.pos < end {
            match self.byte(self.pos) {
                Some(b'$') => self.lex_dollar(word, true),
                Some(b'`') => self.lex_backquote(word, true),
                Some(b'"') => self.lex_double(word),
                Some(b'\'') => self.lex_single(word),
                Some(b'\\') => self.pos += 2,
                Some(_) => self.pos += 1,
                None => break,
            }
        }
        if !self.aborted && self.pos <= end {
            self.pos = end + 2;
        }
    }

    /// `(( … ))` where a command starts.
    pub(super) fn lex_arith_command(&mut self, at: usize, end: usize) -> Tok {
        let mark = self.mark();
        let subs = self.b.out.len();
        let mut word = Word {
            at,
            ..Word::default()
        };
        if self.enter(at) {
            self.walk_arith(&mut word, at + 2, end);
            self.leave();
        }
        self.drop_text(mark);
        self.push_text(self.slice(at + 2, end).trim());
        word.text = self.span_from(mark);
        word.subs = (subs, self.b.out.len());
        Tok {
            at,
            kind: Kind::Arith(word),
        }
    }

    // ----- heredocs ---------------------------------------------------

    /// Reads the bodies of the heredocs opened on the line just ended.
    pub(super) fn read_heredocs(&mut self) {
        let pending = self.b.heredocs.len();
        for index in self.heredocs..pending {
            let Some(heredoc) = self.b.heredocs.get(index).copied() else {
                break;
            };
            let body_start = self.pos;
            let mut body_end = self.src.len();
            while self.pos < self.src.len() {
                let line_start = self.pos;
                let rest = self.rest(line_start);
                let len = rest.iter().position(|&c| c == b'\n').unwrap_or(rest.len());
                let line = self.slice(line_start, line_start + len);
                self.pos = (line_start + len + 1).min(self.src.len());
                let line = if heredoc.strip_tabs {
                    line.trim_start_matches('\t')
                } else {
                    line
                };
                if line == buffers::text(&self.b.heredoc_text, heredoc.delimiter) {
                    body_end = line_start;
                    break;
                }
            }
            if heredoc.expand {
                self.scan_heredoc(body_start, body_end);
            }
        }
        self.b.heredocs.truncate(self.heredocs);
        self.b.heredoc_text.truncate(self.heredoc_text);
    }

    /// The substitutions in a heredoc body with an unquoted delimiter: the
    /// shell runs them when it expands the body.
    fn scan_heredoc(&mut self, from: usize, to: usize) {
        let body = self.slice(from, to);
        if !body.contains(['$', '`']) {
            return;
        }
        let origin = self.origin_at(from);
        let mark = self.mark();
        let mut inner = Parser::new(body, self.b, self.depth, origin);
        let mut scratch = Word::default();
        while let Some(b) = inner.byte(inner.pos) {
            match b {
                b'\\' => {
                    inner.pos += 1;
                    inner.skip_char();
                }
                b'$' => inner.lex_dollar(&mut scratch, true),
                b'`' => inner.lex_backquote(&mut scratch, true),
                _ => inner.pos += 1,
            }
        }
        inner.finish();
        self.drop_text(mark);
    }
}
