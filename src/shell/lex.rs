//! Lexing: operators, redirections and words (quotes removed, expansions
//! kept as written), heredoc bodies.
//!
//! The lexer is driven by the parser one token at a time, and calls back
//! into it for `$( … )`, `<( … )` and `>( … )`: their bodies are parsed in
//! place, so the text is read once and the closing `)` is the one the
//! grammar finds (a `case` pattern's `)` does not close it). Backticks,
//! `-c` scripts and other derived text are parsed by a fresh parser over
//! that text, one nesting level deeper.
//!
//! Every parser of one parse shares its [`Buffers`]: a word's text is read
//! onto the top of the word arena (and anything read inside the word, such
//! as the words of a substitution, is dropped from the arena before the
//! word goes on), and the commands of a word's substitutions are pushed onto
//! the shared output while the word is read, so a token is a small `Copy`
//! value that allocates nothing.

use super::buffers::{self, Buffers, Span, Word};
use super::MAX_DEPTH;
use std::fmt::{self, Write as _};
use std::mem;

pub(super) mod braces;
mod words;

/// Reserved words; recognised only unquoted, where the grammar expects them.
const RESERVED: [&str; 20] = [
    "if", "then", "elif", "else", "fi", "while", "until", "do", "done", "for", "select", "case",
    "esac", "in", "function", "{", "}", "!", "[[", "time",
];

/// `coproc` is reserved too, but only as a prefix, like `time`.
const PREFIXES: [&str; 2] = ["time", "coproc"];

/// A control operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Op {
    Semi,
    DSemi,
    SemiAnd,
    DSemiAnd,
    Amp,
    AndAnd,
    Pipe,
    OrOr,
    PipeAmp,
    LParen,
    RParen,
}

impl Op {
    pub(super) fn text(self) -> &'static str {
        match self {
            Op::Semi => ";",
            Op::DSemi => ";;",
            Op::SemiAnd => ";&",
            Op::DSemiAnd => ";;&",
            Op::Amp => "&",
            Op::AndAnd => "&&",
            Op::Pipe => "|",
            Op::OrOr => "||",
            Op::PipeAmp => "|&",
            Op::LParen => "(",
            Op::RParen => ")",
        }
    }
}

/// What a token is.
#[derive(Clone, Copy, Debug)]
pub(super) enum Kind {
    Word(Word),
    Op(Op),
    /// A redirection operator, without its file descriptor number.
    Redir(&'static str),
    /// An arithmetic command `(( … ))`: the word's text is the expression.
    Arith(Word),
    Newline,
    Eof,
}

impl Kind {
    /// The word of a word or arithmetic token.
    pub(super) fn word(self) -> Option<Word> {
        match self {
            Kind::Word(word) | Kind::Arith(word) => Some(word),
            _ => None,
        }
    }
}

/// A token and where it starts.
#[derive(Clone, Copy, Debug)]
pub(super) struct Tok {
    pub(super) at: usize,
    pub(super) kind: Kind,
}

/// The class of a token, cheap to copy while the token stays peeked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Class {
    Word,
    Op(Op),
    Redir,
    Arith,
    Newline,
    Eof,
}

/// Where a parser's text comes from, for the byte offsets of its errors.
#[derive(Clone, Copy, Debug)]
pub(super) enum Origin {
    /// A slice of the input starting at this offset.
    Offset(usize),
    /// Text derived from the input (a `-c` script, a backquoted command):
    /// its errors point at the word it came from, at this offset.
    Derived(usize),
}

/// The lexer and parser state over one text.
#[derive(Debug)]
pub(super) struct Parser<'a> {
    src: &'a str,
    /// The memory every parser of this parse shares.
    pub(super) b: &'a mut Buffers,
    pub(super) pos: usize,
    depth: usize,
    origin: Origin,
    pub(super) peeked: Option<Tok>,
    /// Where this parser's pending heredocs start in `b.heredocs`…
    heredocs: usize,
    /// …and their delimiters in `b.heredoc_text`.
    heredoc_text: usize,
    /// Where the functions its text defines start in `b.functions`.
    functions: usize,
    /// Inside `[[ … ]]`: `<`, `>`, `(`, `)`, `&&`, `||` are words.
    pub(super) test_mode: bool,
    aborted: bool,
    /// Inside [`before_peeked`](Self::before_peeked): the commands of the
    /// peeked token are set aside.
    lifting: bool,
    /// How many redirections may still be copied onto the commands of a
    /// compound command, so that copying stays linear in the input.
    pub(super) budget: usize,
}

impl<'a> Parser<'a> {
    pub(super) fn new(src: &'a str, b: &'a mut Buffers, depth: usize, origin: Origin) -> Self {
        let heredocs = b.heredocs.len();
        let heredoc_text = b.heredoc_text.len();
        let functions = b.functions.len();
        Parser {
            src,
            b,
            pos: 0,
            depth,
            origin,
            peeked: None,
            heredocs,
            heredoc_text,
            functions,
            test_mode: false,
            aborted: false,
            lifting: false,
            budget: src.len().saturating_mul(4).max(1024),
        }
    }

    /// Drops the heredocs still pending (their bodies never came), and
    /// marks the calls between the functions its text defines.
    pub(super) fn finish(self) {
        self.b.resolve_functions(self.functions);
        self.b.heredocs.truncate(self.heredocs);
        self.b.heredoc_text.truncate(self.heredoc_text);
    }

    fn byte(&self, at: usize) -> Option<u8> {
        self.src.as_bytes().get(at).copied()
    }

    fn rest(&self, at: usize) -> &'a [u8] {
        self.src.as_bytes().get(at..).unwrap_or(&[])
    }

    pub(super) fn slice(&self, from: usize, to: usize) -> &'a str {
        self.src.get(from..to).unwrap_or("")
    }

    fn char_at(&self, at: usize) -> Option<char> {
        self.src.get(at..).and_then(|rest| rest.chars().next())
    }

    /// The text of a span of the word arena.
    pub(super) fn text(&self, span: Span) -> &str {
        buffers::text(&self.b.text, span)
    }

    /// Where the next word read starts in the word arena.
    fn mark(&self) -> usize {
        self.b.text.len()
    }

    /// The span from `mark` to the top of the word arena.
    fn span_from(&self, mark: usize) -> Span {
        Span {
            start: mark,
            end: self.b.text.len(),
        }
    }

    /// Drops the word arena above `mark`.
    fn drop_text(&mut self, mark: usize) {
        self.b.text.truncate(mark);
    }

    /// Appends the character at the cursor to the word arena and moves past
    /// it.
    fn take_char(&mut self) {
        match self.char_at(self.pos) {
            Some(c) => {
                self.b.text.push(c);
                self.pos += c.len_utf8();
            }
            None => self.pos = (self.pos + 1).min(self.src.len()),
        }
    }

    fn push_text(&mut self, text: &str) {
        self.b.text.push_str(text);
    }

    fn skip_char(&mut self) {
        match self.char_at(self.pos) {
            Some(c) => self.pos += c.len_utf8(),
            None => self.pos = (self.pos + 1).min(self.src.len()),
        }
    }

    // ----- errors and depth -------------------------------------------

    /// The offset in the input that an error at `at` in this text reports.
    pub(super) fn origin_at(&self, at: usize) -> Origin {
        match self.origin {
            Origin::Offset(base) => Origin::Offset(base + at),
            Origin::Derived(word) => Origin::Derived(word),
        }
    }

    fn absolute(&self, at: usize) -> usize {
        match self.origin_at(at) {
            Origin::Offset(offset) | Origin::Derived(offset) => offset,
        }
    }

    /// Records an error written by `what` (given the word arena); the first
    /// error of the parse is kept.
    fn fail_with(&mut self, at: usize, what: impl FnOnce(&mut String, &str) -> fmt::Result) {
        let Buffers {
            error,
            failed,
            text,
            ..
        } = &mut *self.b;
        if *failed {
            return;
        }
        *failed = true;
        error.clear();
        let _ = what(error, text);
        let _ = match self.origin {
            Origin::Offset(base) => write!(error, " at byte {}", base + at),
            Origin::Derived(word) => write!(error, " in a nested script at byte {word}"),
        };
    }

    /// Records an error; the first one is kept.
    pub(super) fn fail(&mut self, what: fmt::Arguments<'_>, at: usize) {
        self.fail_with(at, |error, _| error.write_fmt(what));
    }

    /// Records that the token `tok` was not expected.
    pub(super) fn unexpected(&mut self, tok: Tok) {
        self.fail_with(tok.at, |error, text| {
            error.push_str("unexpected ");
            describe(error, tok.kind, text)
        });
    }

    /// Records an error and stops reading this text.
    fn abort(&mut self, what: fmt::Arguments<'_>, at: usize) {
        self.fail(what, at);
        self.aborted = true;
        self.pos = self.src.len();
        self.peeked = None;
    }

    /// Enters one nesting level; past [`MAX_DEPTH`] the parse ends with an
    /// error and `false` is returned (then `leave` must not be called).
    pub(super) fn enter(&mut self, at: usize) -> bool {
        if self.aborted {
            return false;
        }
        if self.depth >= MAX_DEPTH {
            self.abort(format_args!("nesting deeper than {MAX_DEPTH}"), at);
            return false;
        }
        self.depth += 1;
        true
    }

    pub(super) fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// Parses `script`, derived from the word at `at`, one level deeper: its
    /// commands are pushed onto the output, and its error becomes this
    /// parser's. The script's memory goes back to the pool.
    pub(super) fn sub_parse(&mut self, script: String, at: usize) {
        if !self.aborted && !script.trim().is_empty() {
            if self.depth >= MAX_DEPTH {
                self.fail(format_args!("nesting deeper than {MAX_DEPTH}"), at);
            } else {
                let origin = Origin::Derived(self.absolute(at));
                let mark = self.mark();
                let mut inner = Parser::new(&script, self.b, self.depth + 1, origin);
                inner.parse_all();
                inner.finish();
                self.drop_text(mark);
            }
        }
        self.b.strings.give(script);
    }

    /// A pooled copy of a span of the word arena, as the text of a nested
    /// parser.
    pub(super) fn script(&mut self, span: Span) -> String {
        self.b.copy_span(span)
    }

    /// Splits the text of `span` (derived from the word at `at`) into words,
    /// as `env -S` does, pushed onto the word stack; operators become plain
    /// words and substitutions are not run. Returns how many there are.
    pub(super) fn split_words(&mut self, span: Span, at: usize) -> usize {
        let source = self.script(span);
        let origin = Origin::Derived(self.absolute(at));
        let commands = self.b.out.len();
        let before = self.b.words.len();
        let mut inner = Parser::new(&source, self.b, self.depth, origin);
        loop {
            let tok = inner.next();
            let word = match tok.kind {
                Kind::Eof => break,
                Kind::Newline => continue,
                Kind::Word(word) | Kind::Arith(word) => word,
                Kind::Op(op) => inner.literal(op.text()),
                Kind::Redir(op) => inner.literal(op),
            };
            inner.b.words.push(Word {
                at,
                subs: (commands, commands),
                ..word
            });
        }
        inner.finish();
        self.b.truncate_out(commands);
        self.b.strings.give(source);
        self.b.words.len() - before
    }

    /// A plain word of the text `text`, read onto the word arena.
    fn literal(&mut self, text: &str) -> Word {
        let mark = self.mark();
        self.push_text(text);
        Word {
            text: self.span_from(mark),
            ..Word::default()
        }
    }

    // ----- tokens -----------------------------------------------------

    pub(super) fn peek(&mut self) -> Tok {
        if self.aborted {
            // The token read when the parse ended is dropped, with the
            // commands of its substitutions (unless `before_peeked` holds
            // them, and drops them itself).
            if let Some(tok) = self.peeked.take() {
                if !self.lifting {
                    self.discard(tok);
                }
            }
            return Tok {
                at: 0,
                kind: Kind::Eof,
            };
        }
        if let Some(tok) = self.peeked {
            return tok;
        }
        let tok = self.lex_token();
        self.peeked = Some(tok);
        tok
    }

    /// Takes the next token; taking a newline reads the pending heredoc
    /// bodies, which start right after it.
    pub(super) fn next(&mut self) -> Tok {
        let _ = self.peek();
        let tok = self.peeked.take().unwrap_or(Tok {
            at: self.pos,
            kind: Kind::Eof,
        });
        if matches!(tok.kind, Kind::Newline) && self.b.heredocs.len() > self.heredocs {
            self.read_heredocs();
        }
        tok
    }

    /// Takes the next token and drops it, with the commands of its
    /// substitutions.
    pub(super) fn skip(&mut self) -> Tok {
        let tok = self.next();
        self.discard(tok);
        tok
    }

    /// Drops the commands of the substitutions of `tok`, taken and not used
    /// (they are the last commands found).
    pub(super) fn discard(&mut self, tok: Tok) {
        if let Some(word) = tok.kind.word() {
            let (start, end) = word.subs;
            if start < end && end == self.b.out.len() {
                self.b.truncate_out(start);
            }
        }
    }

    pub(super) fn peek_class(&mut self) -> Class {
        match self.peek().kind {
            Kind::Word(_) => Class::Word,
            Kind::Op(op) => Class::Op(op),
            Kind::Redir(_) => Class::Redir,
            Kind::Arith(_) => Class::Arith,
            Kind::Newline => Class::Newline,
            Kind::Eof => Class::Eof,
        }
    }

    pub(super) fn peek_at(&mut self) -> usize {
        self.peek().at
    }

    /// Where the commands of the next token's substitutions start in the
    /// output (the end of the output when it has none).
    pub(super) fn peek_subs(&mut self) -> usize {
        match self.peek().kind.word() {
            Some(word) => word.subs.0,
            None => self.b.out.len(),
        }
    }

    /// The reserved word the next token is, if it is one.
    pub(super) fn peek_reserved(&mut self) -> Option<&'static str> {
        match self.peek().kind {
            Kind::Word(word) if word.is_plain() => {
                let text = self.text(word.text);
                RESERVED
                    .iter()
                    .chain(PREFIXES.iter())
                    .copied()
                    .find(|reserved| *reserved == text)
            }
            _ => None,
        }
    }

    /// The next token is a word that looks like an option (`time -p`).
    pub(super) fn peek_option(&mut self) -> bool {
        match self.peek().kind {
            Kind::Word(word) => {
                let text = self.text(word.text);
                text.len() > 1 && text.starts_with('-')
            }
            _ => false,
        }
    }

    /// Runs `f` with the commands of the peeked token's substitutions set
    /// aside, so that what `f` pushes onto the output comes before them; the
    /// token then points at where they are.
    pub(super) fn before_peeked<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> R {
        let lifted = match self.peeked.and_then(|tok| tok.kind.word()) {
            Some(Word {
                subs: (start, end), ..
            }) if start <= end && end == self.b.out.len() => {
                let Buffers { out, held, .. } = &mut *self.b;
                held.extend(out.drain(start..));
                end - start
            }
            _ => 0,
        };
        let lifting = mem::replace(&mut self.lifting, true);
        let result = f(self);
        self.lifting = lifting;
        let start = self.b.out.len();
        let from = self.b.held.len().saturating_sub(lifted);
        let Buffers { out, held, .. } = &mut *self.b;
        out.extend(held.drain(from..));
        let end = out.len();
        match &mut self.peeked {
            Some(Tok {
                kind: Kind::Word(word) | Kind::Arith(word),
                ..
            }) => word.subs = (start, end),
            // The parse ended inside `f`: the token is gone, with its
            // commands.
            _ => self.b.truncate_out(start),
        }
        result
    }

    pub(super) fn push_heredoc(&mut self, delimiter: Span, strip_tabs: bool, expand: bool) {
        let Buffers {
            heredoc_text,
            heredocs,
            text,
            ..
        } = &mut *self.b;
        let start = heredoc_text.len();
        heredoc_text.push_str(buffers::text(text, delimiter));
        heredocs.push(buffers::Heredoc {
            delimiter: Span {
                start,
                end: heredoc_text.len(),
            },
            strip_tabs,
            expand,
        });
    }

    fn lex_token(&mut self) -> Tok {
        if self.aborted {
            return Tok {
                at: self.pos,
                kind: Kind::Eof,
            };
        }
        self.skip_blanks();
        let at = self.pos;
        let Some(first) = self.byte(at) else {
            return Tok {
                at,
                kind: Kind::Eof,
            };
        };
        let second = self.byte(at + 1);
        if self.test_mode {
            let text = match (first, second) {
                (b'<' | b'>', Some(b'(')) => None,
                (b'&', Some(b'&')) => Some("&&"),
                (b'|', Some(b'|')) => Some("||"),
                (b'<', _) => Some("<"),
                (b'>', _) => Some(">"),
                (b'(', _) => Some("("),
                (b')', _) => Some(")"),
                (b'|', _) => Some("|"),
                _ => None,
            };
            if let Some(text) = text {
                self.pos = at + text.len();
                let subs = self.b.out.len();
                let word = Word {
                    at,
                    subs: (subs, subs),
                    ..self.literal(text)
                };
                return Tok {
                    at,
                    kind: Kind::Word(word),
                };
            }
        }
        let (kind, len) = match (first, second) {
            (b'\n', _) => (Kind::Newline, 1),
            (b';', Some(b';')) if self.byte(at + 2) == Some(b'&') => (Kind::Op(Op::DSemiAnd), 3),
            (b';', Some(b';')) => (Kind::Op(Op::DSemi), 2),
            (b';', Some(b'&')) => (Kind::Op(Op::SemiAnd), 2),
            (b';', _) => (Kind::Op(Op::Semi), 1),
            (b'&', Some(b'&')) => (Kind::Op(Op::AndAnd), 2),
            (b'&', Some(b'>')) if self.byte(at + 2) == Some(b'>') => (Kind::Redir("&>>"), 3),
            (b'&', Some(b'>')) => (Kind::Redir("&>"), 2),
            (b'&', _) => (Kind::Op(Op::Amp), 1),
            (b'|', Some(b'|')) => (Kind::Op(Op::OrOr), 2),
            (b'|', Some(b'&')) => (Kind::Op(Op::PipeAmp), 2),
            (b'|', _) => (Kind::Op(Op::Pipe), 1),
            (b'(', Some(b'(')) => match self.arith_end(at + 2) {
                Some(end) => return self.lex_arith_command(at, end),
                None => (Kind::Op(Op::LParen), 1),
            },
            (b'(', _) => (Kind::Op(Op::LParen), 1),
            (b')', _) => (Kind::Op(Op::RParen), 1),
            (b'<' | b'>', Some(b'(')) => return self.word_token(),
            (b'<' | b'>', _) => {
                let op = self.redir_op(at);
                (Kind::Redir(op), op.len())
            }
            (b'0'..=b'9', _) => {
                let digits = self
                    .rest(at)
                    .iter()
                    .take_while(|c| c.is_ascii_digit())
                    .count();
                let op_at = at + digits;
                if matches!(self.byte(op_at), Some(b'<' | b'>'))
                    && self.byte(op_at + 1) != Some(b'(')
                {
                    let op = self.redir_op(op_at);
                    self.pos = op_at + op.len();
                    return Tok {
                        at,
                        kind: Kind::Redir(op),
                    };
                }
                return self.word_token();
            }
            _ => return self.word_token(),
        };
        self.pos = at + len;
        Tok { at, kind }
    }

    fn word_token(&mut self) -> Tok {
        let at = self.pos;
        let word = self.lex_word();
        Tok {
            at,
            kind: Kind::Word(word),
        }
    }

    /// The redirection operator starting with the `<` or `>` at `at`.
    fn redir_op(&self, at: usize) -> &'static str {
        match (self.byte(at), self.byte(at + 1), self.byte(at + 2)) {
            (Some(b'<'), Some(b'<'), Some(b'<')) => "<<<",
            (Some(b'<'), Some(b'<'), Some(b'-')) => "<<-",
            (Some(b'<'), Some(b'<'), _) => "<<",
            (Some(b'<'), Some(b'>'), _) => "<>",
            (Some(b'<'), Some(b'&'), _) => "<&",
            (Some(b'<'), _, _) => "<",
            (_, Some(b'>'), _) => ">>",
            (_, Some(b'&'), _) => ">&",
            (_, Some(b'|'), _) => ">|",
            _ => ">",
        }
    }

    /// Skips blanks, line continuations and comments (a `#` where a word
    /// would start runs to the end of the line).
    fn skip_blanks(&mut self) {
        loop {
            match self.byte(self.pos) {
                Some(b' ' | b'\t') => self.pos += 1,
                Some(b'\\') if self.byte(self.pos + 1) == Some(b'\n') => self.pos += 2,
                Some(b'\n') if self.test_mode => self.pos += 1,
                Some(b'#') => {
                    let rest = self.rest(self.pos);
                    self.pos += rest.iter().position(|&c| c == b'\n').unwrap_or(rest.len());
                }
                _ => return,
            }
        }
    }
}

/// `NAME`, `NAME+` or `NAME[…]`: what may stand before the `=` of an
/// assignment.
pub(super) fn is_assign_name(text: &str) -> bool {
    let text = text.strip_suffix('+').unwrap_or(text);
    let name = match text.split_once('[') {
        Some((name, subscript)) if subscript.ends_with(']') => name,
        Some(_) => return false,
        None => text,
    };
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// Writes a short description of a token, for error messages (`arena` holds
/// its word's text).
fn describe(out: &mut String, kind: Kind, arena: &str) -> fmt::Result {
    match kind {
        Kind::Word(word) => {
            out.push('`');
            out.extend(buffers::text(arena, word.text).chars().take(24));
            out.push('`');
            Ok(())
        }
        Kind::Op(op) => write!(out, "`{}`", op.text()),
        Kind::Redir(op) => write!(out, "`{op}`"),
        Kind::Arith(_) => write!(out, "`((`"),
        Kind::Newline => write!(out, "newline"),
        Kind::Eof => write!(out, "end of input"),
    }
}
