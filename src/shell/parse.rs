//! The command-list grammar: lists, and-or lists, pipelines, compound
//! commands, function definitions, simple commands and their redirections.
//!
//! Recursive descent over the lexer's tokens, one token of lookahead. Every
//! construct that nests (subshell, group, compound command, function body)
//! enters a depth level, so recursion stays within [`MAX_DEPTH`]. On an
//! error the first message is kept and parsing goes on where it can, so a
//! command after a stray `)` is still seen.
//!
//! The commands of a word's substitutions are pushed onto the output while
//! the word is read, before the command that holds the word; once that
//! command is known it is moved in front of them (by rotating the tail of
//! the output in place), so each command is moved a bounded number of times
//! per nesting level.
//!
//! [`MAX_DEPTH`]: super::MAX_DEPTH

use super::buffers::{Buffers, PendingRedirect};
use super::lex::{Class, Kind, Op, Origin, Parser};
use super::simple::split_flags;
use super::{Command, Redirect, View};
use std::mem;

/// Reserved words that end a list where a command could start.
const TERMINATORS: [&str; 8] = ["then", "elif", "else", "fi", "do", "done", "esac", "}"];

impl Parser<'_> {
    /// Parses the whole text.
    pub(super) fn parse_all(&mut self) {
        loop {
            self.parse_list();
            if self.peek_class() == Class::Eof {
                return;
            }
            self.recover();
        }
    }

    /// After a list stopped at a token that cannot follow it: records the
    /// error and moves on. A word that is no closing keyword starts a
    /// command (so `{ a; } rm -rf /` still shows `rm`); any other token is
    /// skipped.
    fn recover(&mut self) {
        if self.peek_class() == Class::Word && !self.peek_terminator() {
            let tok = self.peek();
            self.unexpected(tok);
            let words = self.b.words.len();
            let start = self.peek_subs();
            self.parse_simple(words, start);
            self.b.words.truncate(words);
        } else {
            let tok = self.skip();
            self.unexpected(tok);
        }
    }

    /// Parses the body of `$( … )`, `<( … )` or `>( … )` (opened at `open`)
    /// up to and including its `)`.
    /// The functions it defines are its own: the calls between them are
    /// marked when it ends.
    pub(super) fn parse_in_parens(&mut self, open: usize, what: &str) {
        let scope = self.b.functions.len();
        self.parse_in_parens_list(open, what);
        self.b.resolve_functions(scope);
    }

    fn parse_in_parens_list(&mut self, open: usize, what: &str) {
        loop {
            self.parse_list();
            match self.peek_class() {
                Class::Op(Op::RParen) => {
                    self.next();
                    return;
                }
                Class::Eof => {
                    self.fail(format_args!("unterminated {what}"), open);
                    self.peeked = None;
                    return;
                }
                _ => self.recover(),
            }
        }
    }

    fn skip_newlines(&mut self) {
        while self.peek_class() == Class::Newline {
            self.next();
        }
    }

    fn peek_terminator(&mut self) -> bool {
        self.peek_reserved()
            .is_some_and(|word| TERMINATORS.contains(&word))
    }

    /// Takes the reserved word `word` closing the construct `opener` (at
    /// `at`), or records that it is missing.
    fn expect(&mut self, word: &str, opener: &str, at: usize) -> bool {
        if self.peek_reserved() == Some(word) {
            self.next();
            return true;
        }
        self.fail(format_args!("missing `{word}` for `{opener}`"), at);
        false
    }

    /// A list: and-or lists separated by `;`, `&` or newlines, up to a token
    /// that cannot continue it (left for the caller). True when it holds a
    /// command.
    fn parse_list(&mut self) -> bool {
        let mut any = false;
        loop {
            match self.peek_class() {
                Class::Newline => {
                    self.next();
                    continue;
                }
                Class::Eof | Class::Op(Op::RParen | Op::DSemi | Op::SemiAnd | Op::DSemiAnd) => {
                    return any
                }
                Class::Op(Op::Semi | Op::Amp) => {
                    let tok = self.next();
                    self.unexpected(tok);
                    continue;
                }
                _ => {}
            }
            if self.peek_terminator() || !self.parse_and_or() {
                return any;
            }
            any = true;
            match self.peek_class() {
                Class::Op(Op::Semi | Op::Amp) | Class::Newline => {
                    self.next();
                }
                _ => return any,
            }
        }
    }

    /// The list of a compound command, which must hold a command (bash
    /// rejects `{ }` and `if true; then fi`); at the end of the input the
    /// missing closing word is reported instead.
    fn body(&mut self) {
        if self.parse_list() || self.peek_class() == Class::Eof {
            return;
        }
        let tok = self.peek();
        self.unexpected(tok);
    }

    fn parse_and_or(&mut self) -> bool {
        if !self.parse_pipeline() {
            return false;
        }
        loop {
            let Class::Op(op @ (Op::AndAnd | Op::OrOr)) = self.peek_class() else {
                return true;
            };
            let tok = self.next();
            self.skip_newlines();
            if !self.parse_pipeline() {
                self.fail(
                    format_args!("expected a command after `{}`", op.text()),
                    tok.at,
                );
                return true;
            }
        }
    }

    fn parse_pipeline(&mut self) -> bool {
        // `time` and `coproc` (and `time`'s options) are kept as the first
        // words of the command, where they are analysed as wrappers: they go
        // onto the word stack from `words` on.
        let words = self.b.words.len();
        let mut start = self.peek_subs();
        let mut consumed = false;
        loop {
            let prefixed = self.b.words.len() > words;
            match self.peek_reserved() {
                Some("!") if !prefixed => {
                    self.next();
                    consumed = true;
                    start = self.peek_subs();
                }
                Some(keyword @ ("time" | "coproc")) if !prefixed => {
                    if let Kind::Word(word) = self.next().kind {
                        self.b.words.push(word);
                    }
                    while keyword == "time" && self.peek_option() {
                        if let Kind::Word(word) = self.next().kind {
                            self.b.words.push(word);
                        }
                    }
                }
                _ => break,
            }
        }
        let found = self.parse_command(words, start);
        self.b.words.truncate(words);
        if !found {
            // A lone `!` is a valid (empty) pipeline, but not before `&` or
            // an operator that needs a command on its left.
            if consumed
                && matches!(
                    self.peek_class(),
                    Class::Op(Op::Amp | Op::AndAnd | Op::OrOr | Op::Pipe | Op::PipeAmp)
                )
            {
                let tok = self.peek();
                self.unexpected(tok);
            }
            return consumed;
        }
        loop {
            let Class::Op(op @ (Op::Pipe | Op::PipeAmp)) = self.peek_class() else {
                return true;
            };
            let tok = self.next();
            self.skip_newlines();
            let start = self.peek_subs();
            let found = self.parse_command(words, start);
            self.b.words.truncate(words);
            if !found {
                self.fail(
                    format_args!("expected a command after `{}`", op.text()),
                    tok.at,
                );
                return true;
            }
        }
    }

    /// A command whose prefix words (`time`, `coproc`) are on the word stack
    /// from `words` on, and whose tokens' substitutions start at `start` in
    /// the output.
    fn parse_command(&mut self, words: usize, start: usize) -> bool {
        let prefixed = self.b.words.len() > words;
        let body = self.peek_subs();
        if self.parse_compound() {
            // The prefix's substitutions run after the compound command.
            if body > start {
                self.before_peeked(|p| {
                    if let Some(tail) = p.b.out.get_mut(start..) {
                        tail.rotate_left(body - start);
                        p.b.shift_functions(body, body - start);
                    }
                });
            }
            self.compound_redirects(start);
            return true;
        }
        if !prefixed
            && (self.peek_terminator() || !matches!(self.peek_class(), Class::Word | Class::Redir))
        {
            return false;
        }
        self.parse_simple(words, start);
        true
    }

    /// A compound command, if one starts here.
    fn parse_compound(&mut self) -> bool {
        let at = self.peek_at();
        match self.peek_reserved() {
            Some("{") => {
                self.next();
                if self.enter(at) {
                    self.body();
                    self.expect("}", "{", at);
                    self.leave();
                }
            }
            Some("if") => {
                self.next();
                if self.enter(at) {
                    self.parse_if(at);
                    self.leave();
                }
            }
            Some(keyword @ ("while" | "until")) => {
                self.next();
                if self.enter(at) {
                    self.body();
                    if self.expect("do", keyword, at) {
                        self.body();
                        self.expect("done", keyword, at);
                    }
                    self.leave();
                }
            }
            Some(keyword @ ("for" | "select")) => {
                self.next();
                if self.enter(at) {
                    self.parse_for(keyword, at);
                    self.leave();
                }
            }
            Some("case") => {
                self.next();
                if self.enter(at) {
                    self.parse_case(at);
                    self.leave();
                }
            }
            Some("[[") => {
                self.next();
                self.parse_test(at);
            }
            Some("function") => {
                self.next();
                if self.enter(at) {
                    self.parse_function(at);
                    self.leave();
                }
            }
            _ => match self.peek_class() {
                Class::Op(Op::LParen) => {
                    self.next();
                    if self.enter(at) {
                        self.body();
                        if self.peek_class() == Class::Op(Op::RParen) {
                            self.next();
                        } else {
                            self.fail(format_args!("missing `)` for `(`"), at);
                        }
                        self.leave();
                    }
                }
                Class::Arith => {
                    if let Kind::Arith(word) = self.next().kind {
                        let mut command = self.b.named("((");
                        let Buffers {
                            strings,
                            lists,
                            text,
                            ..
                        } = &mut *self.b;
                        let expression = super::buffers::text(text, word.text);
                        command.args = lists.take(1);
                        command.args.push(strings.copy(expression));
                        command.operands = lists.take(1);
                        command.operands.push(strings.copy(expression));
                        self.insert(word.subs.0, command);
                    }
                }
                _ => return false,
            },
        }
        true
    }

    /// Puts `command` at `at` in the output, before the commands from there
    /// on (the substitutions of its words), and before those of the peeked
    /// token.
    fn insert(&mut self, at: usize, command: Command) {
        self.before_peeked(|p| {
            let out = &mut p.b.out;
            out.push(command);
            if let Some(tail) = out.get_mut(at..) {
                tail.rotate_right(1);
            }
        });
    }

    fn parse_if(&mut self, at: usize) {
        self.body();
        if !self.expect("then", "if", at) {
            return;
        }
        self.body();
        loop {
            match self.peek_reserved() {
                Some("elif") => {
                    let elif = self.next().at;
                    self.body();
                    if !self.expect("then", "elif", elif) {
                        return;
                    }
                    self.body();
                }
                Some("else") => {
                    self.next();
                    self.body();
                    self.expect("fi", "if", at);
                    return;
                }
                Some("fi") => {
                    self.next();
                    return;
                }
                _ => {
                    self.fail(format_args!("missing `fi` for `if`"), at);
                    return;
                }
            }
        }
    }

    fn parse_for(&mut self, keyword: &str, at: usize) {
        // The commands of the substitutions in its words stay where they
        // are: they run before the body.
        match self.peek_class() {
            // for (( init; test; step ))
            Class::Arith => {
                self.next();
            }
            Class::Word => {
                self.next();
                self.skip_newlines();
                if self.peek_reserved() == Some("in") {
                    self.next();
                    while self.peek_class() == Class::Word {
                        self.next();
                    }
                }
            }
            _ => {
                self.fail(format_args!("expected a name after `{keyword}`"), at);
                return;
            }
        }
        if self.peek_class() == Class::Op(Op::Semi) {
            self.next();
        }
        self.skip_newlines();
        match self.peek_reserved() {
            Some("do") => {
                self.next();
                self.body();
                self.expect("done", keyword, at);
            }
            Some("{") => {
                self.next();
                self.body();
                self.expect("}", keyword, at);
            }
            _ => self.fail(format_args!("missing `do` for `{keyword}`"), at),
        }
    }

    fn parse_case(&mut self, at: usize) {
        if self.peek_class() != Class::Word {
            self.fail(format_args!("expected a word after `case`"), at);
            return;
        }
        self.next();
        self.skip_newlines();
        if !self.expect("in", "case", at) {
            return;
        }
        loop {
            self.skip_newlines();
            if self.peek_reserved() == Some("esac") {
                self.next();
                return;
            }
            if self.peek_class() == Class::Op(Op::LParen) {
                self.next();
            }
            loop {
                match self.peek_class() {
                    Class::Word | Class::Op(Op::Pipe) => {
                        self.next();
                    }
                    Class::Op(Op::RParen) => {
                        self.next();
                        break;
                    }
                    _ => {
                        self.fail(format_args!("missing `esac` for `case`"), at);
                        return;
                    }
                }
            }
            self.parse_list();
            match self.peek_class() {
                Class::Op(Op::DSemi | Op::SemiAnd | Op::DSemiAnd) => {
                    self.next();
                }
                _ if self.peek_reserved() == Some("esac") => {}
                _ => {
                    self.fail(format_args!("missing `esac` for `case`"), at);
                    return;
                }
            }
        }
    }

    /// `[[ … ]]`, listed as one command with program `[[`.
    fn parse_test(&mut self, at: usize) {
        self.test_mode = true;
        let subs = self.b.out.len();
        let words = self.b.words.len();
        loop {
            if self.peek_class() != Class::Word {
                self.fail(format_args!("missing `]]` for `[[`"), at);
                break;
            }
            if let Kind::Word(word) = self.next().kind {
                if word.is_plain() && self.text(word.text) == "]]" {
                    break;
                }
                self.b.words.push(word);
            }
        }
        self.test_mode = false;
        let mut command = self.b.named("[[");
        command.args = self.b.copy_words(words, self.b.words.len());
        self.b.words.truncate(words);
        split_flags(self.b, &mut command);
        self.insert(subs, command);
    }

    /// `function NAME [()] BODY`, after `function`.
    fn parse_function(&mut self, at: usize) {
        if self.peek_class() != Class::Word {
            self.fail(format_args!("expected a name after `function`"), at);
            return;
        }
        let tok = self.next();
        let name = tok.kind.word().map(|word| self.b.copy_span(word.text));
        self.discard(tok);
        let name = name.unwrap_or_default();
        if self.peek_class() == Class::Op(Op::LParen) {
            self.next();
            if self.peek_class() != Class::Op(Op::RParen) {
                self.fail(format_args!("expected `)` in a function definition"), at);
                self.b.recycle_string(name);
                return;
            }
            self.next();
        }
        self.parse_function_body(at, name);
    }

    /// The body of a function `name`: any compound command, with its
    /// redirections. The commands in it that run `name` are marked
    /// [`recursive`](super::Command::recursive); the function is recorded,
    /// so that when the text ends the calls in it to a function that calls
    /// it back are marked too ([`Buffers::resolve_functions`]).
    fn parse_function_body(&mut self, at: usize, name: String) {
        self.skip_newlines();
        let start = self.peek_subs();
        if self.parse_compound() {
            self.compound_redirects(start);
            let end = self.peek_subs().clamp(start, self.b.out.len().max(start));
            if !name.is_empty() {
                for command in self.b.out.get_mut(start..end).unwrap_or_default() {
                    if command.program == name {
                        command.recursive = true;
                    }
                }
                self.b.define(&name, start, end);
            }
        } else {
            self.fail(format_args!("expected a function body"), at);
        }
        self.b.recycle_string(name);
    }

    /// Redirections after a compound command apply to every command in it
    /// (the output from `start` on); they are copied onto those commands
    /// while the copying stays linear in the input, and otherwise given to
    /// one command without a program.
    fn compound_redirects(&mut self, start: usize) {
        let end = self.peek_subs();
        let pending = self.b.redirs.len();
        while self.peek_class() == Class::Redir {
            self.parse_redirect();
        }
        let count = self.b.redirs.len() - pending;
        if count > 0 {
            let inner = end.saturating_sub(start);
            let cost = inner.saturating_mul(count);
            if inner > 0 && cost <= self.budget {
                let Buffers {
                    out,
                    redirs,
                    redirects,
                    strings,
                    text,
                    ..
                } = &mut *self.b;
                let added = redirs.get(pending..).unwrap_or_default();
                for command in out.get_mut(start..end).unwrap_or_default() {
                    redirects.reserve(&mut command.redirects, added.len());
                    for redirect in added {
                        command.redirects.push(Redirect {
                            op: strings.copy(redirect.op),
                            target: strings.copy(super::buffers::text(text, redirect.target)),
                        });
                    }
                }
                self.budget -= cost;
            } else {
                let command = Command {
                    redirects: self.b.copy_redirects(pending),
                    ..Command::default()
                };
                self.insert(end, command);
            }
        }
        self.b.redirs.truncate(pending);
    }

    /// A redirection, onto the redirection stack.
    fn parse_redirect(&mut self) {
        let tok = self.next();
        let Kind::Redir(op) = tok.kind else {
            return;
        };
        if self.peek_class() != Class::Word {
            self.fail(format_args!("expected a word after `{op}`"), tok.at);
            return;
        }
        let Kind::Word(word) = self.next().kind else {
            return;
        };
        if op == "<<" || op == "<<-" {
            self.push_heredoc(word.text, op == "<<-", !word.quoted);
        }
        self.b.redirs.push(PendingRedirect {
            op,
            target: word.text,
            subs: word.subs,
        });
    }

    /// A simple command (or a function definition `NAME() BODY`), whose
    /// first words may already be on the word stack from `words` on, and
    /// whose tokens' substitutions start at `start` in the output.
    fn parse_simple(&mut self, words: usize, start: usize) {
        let pending = self.b.redirs.len();
        loop {
            match self.peek_class() {
                Class::Word => {
                    if let Kind::Word(word) = self.next().kind {
                        self.push_expanded(word, words);
                    }
                }
                Class::Redir => self.parse_redirect(),
                Class::Op(Op::LParen) if self.b.redirs.len() == pending => {
                    let first = match self.b.words.get(words..) {
                        Some([word]) if word.is_plain() && !word.assign => {
                            Some((word.at, word.text))
                        }
                        _ => None,
                    };
                    let Some((at, name)) = first else {
                        break;
                    };
                    self.next();
                    if self.peek_class() == Class::Op(Op::RParen) {
                        self.next();
                        let name = self.b.copy_span(name);
                        self.parse_function_body(at, name);
                    } else {
                        self.fail(format_args!("expected `)` in a function definition"), at);
                    }
                    self.b.redirs.truncate(pending);
                    return;
                }
                _ => break,
            }
        }
        self.before_peeked(|p| {
            let subs = p.b.out.len();
            let redirects = p.b.copy_redirects(pending);
            p.analyze(words, p.b.names.len(), redirects);
            p.b.order(start, subs, pending);
        });
        self.b.redirs.truncate(pending);
    }
}

impl Buffers {
    /// Parses `text` into its view, whose strings and lists come from these
    /// buffers. Never fails: a parse error yields the commands found so far
    /// and a pseudo-command carrying the error.
    pub fn parse(&mut self, text: &str) -> View {
        self.read(text);
        let mut commands = self.commands.take(self.out.len());
        commands.append(&mut self.out);
        self.settle();
        View { commands }
    }

    /// Parses `text` with buffers of its own, which the view keeps.
    pub(super) fn parse_once(text: &str) -> View {
        let mut buffers = Buffers::default();
        buffers.read(text);
        View {
            commands: mem::take(&mut buffers.out),
        }
    }

    /// Parses `text` into the output.
    pub(super) fn read(&mut self, text: &str) {
        self.reset();
        let mut parser = Parser::new(text, self, 0, Origin::Offset(0));
        parser.parse_all();
        parser.finish();
        if self.failed {
            let error = self.strings.copy(&self.error);
            self.out.push(Command {
                dynamic: true,
                error: Some(error),
                ..Command::default()
            });
        }
    }

    /// A command whose program and name are `program`.
    pub(super) fn named(&mut self, program: &str) -> Command {
        Command {
            program: self.strings.copy(program),
            name: self.strings.copy(program),
            ..Command::default()
        }
    }

    /// Orders the output of a simple command: `out[start..subs]` are the
    /// commands of the substitutions in its words and redirections, in the
    /// order they were read, and `out[subs..]` those it runs (itself first).
    /// They become: those it runs, then the substitutions of its words, then
    /// those of its redirections (`redirs[pending..]`).
    fn order(&mut self, start: usize, subs: usize, pending: usize) {
        if start >= subs {
            return;
        }
        let Buffers {
            out,
            moving,
            redirs,
            ..
        } = self;
        moving.clear();
        moving.extend(out.drain(start..));
        let read = subs - start;
        for command in moving.get_mut(read..).unwrap_or_default() {
            out.push(mem::take(command));
        }
        let redirected = redirs.get(pending..).unwrap_or_default();
        let mut next = redirected.iter().peekable();
        for (index, command) in moving.iter_mut().take(read).enumerate() {
            let at = start + index;
            while next.next_if(|redirect| redirect.subs.1 <= at).is_some() {}
            if next.peek().is_none_or(|redirect| redirect.subs.0 > at) {
                out.push(mem::take(command));
            }
        }
        for redirect in redirected {
            let from = redirect.subs.0.saturating_sub(start);
            let to = redirect.subs.1.saturating_sub(start);
            for command in moving.get_mut(from..to).unwrap_or_default() {
                out.push(mem::take(command));
            }
        }
        moving.clear();
    }
}
