//! The command-list grammar: lists, and-or lists, pipelines, compound
//! commands, function definitions, simple commands and their redirections.
//!
//! Recursive descent over the lexer's tokens, one token of lookahead. Every
//! construct that nests (subshell, group, compound command, function body)
//! enters a depth level, so recursion stays within [`MAX_DEPTH`]. On an
//! error the first message is kept and parsing goes on where it can, so a
//! command after a stray `)` is still seen.
//!
//! [`MAX_DEPTH`]: super::MAX_DEPTH

use super::lex::{describe, Class, Kind, Op, Parser, Tok, Word};
use super::simple::{split_flags, WordInfo};
use super::{Command, Redirect};

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
            let message = format!("unexpected {}", describe(self.peek()));
            let at = self.peek_at();
            self.fail(&message, at);
            self.parse_simple(Vec::new());
        } else {
            let tok = self.next();
            self.unexpected(&tok);
        }
    }

    /// Parses the body of `$( … )`, `<( … )` or `>( … )` (opened at `open`)
    /// up to and including its `)`.
    pub(super) fn parse_in_parens(&mut self, open: usize, what: &str) {
        loop {
            self.parse_list();
            match self.peek_class() {
                Class::Op(Op::RParen) => {
                    self.next();
                    return;
                }
                Class::Eof => {
                    self.fail(&format!("unterminated {what}"), open);
                    self.peeked = None;
                    return;
                }
                _ => self.recover(),
            }
        }
    }

    fn unexpected(&mut self, tok: &Tok) {
        self.fail(&format!("unexpected {}", describe(tok)), tok.at);
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
        self.fail(&format!("missing `{word}` for `{opener}`"), at);
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
                    self.unexpected(&tok);
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
        let message = format!("unexpected {}", describe(self.peek()));
        let at = self.peek_at();
        self.fail(&message, at);
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
                self.fail(&format!("expected a command after `{}`", op.text()), tok.at);
                return true;
            }
        }
    }

    fn parse_pipeline(&mut self) -> bool {
        // `time` and `coproc` (and `time`'s options) are kept as the first
        // words of the command, where they are analysed as wrappers.
        let mut prefix: Vec<Word> = Vec::new();
        let mut consumed = false;
        loop {
            match self.peek_reserved() {
                Some("!") if prefix.is_empty() => {
                    self.next();
                    consumed = true;
                }
                Some(keyword @ ("time" | "coproc")) if prefix.is_empty() => {
                    if let Kind::Word(word) = self.next().kind {
                        prefix.push(word);
                    }
                    while keyword == "time" && self.peek_option() {
                        if let Kind::Word(word) = self.next().kind {
                            prefix.push(word);
                        }
                    }
                }
                _ => break,
            }
        }
        if !self.parse_command(prefix) {
            // A lone `!` is a valid (empty) pipeline, but not before `&` or
            // an operator that needs a command on its left.
            if consumed
                && matches!(
                    self.peek_class(),
                    Class::Op(Op::Amp | Op::AndAnd | Op::OrOr | Op::Pipe | Op::PipeAmp)
                )
            {
                let message = format!("unexpected {}", describe(self.peek()));
                let at = self.peek_at();
                self.fail(&message, at);
            }
            return consumed;
        }
        loop {
            let Class::Op(op @ (Op::Pipe | Op::PipeAmp)) = self.peek_class() else {
                return true;
            };
            let tok = self.next();
            self.skip_newlines();
            if !self.parse_command(Vec::new()) {
                self.fail(&format!("expected a command after `{}`", op.text()), tok.at);
                return true;
            }
        }
    }

    fn parse_command(&mut self, prefix: Vec<Word>) -> bool {
        let start = self.out.len();
        if self.parse_compound() {
            for word in prefix {
                self.out.extend(word.subs);
            }
            self.compound_redirects(start);
            return true;
        }
        if prefix.is_empty()
            && (self.peek_terminator() || !matches!(self.peek_class(), Class::Word | Class::Redir))
        {
            return false;
        }
        self.parse_simple(prefix);
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
                            self.fail("missing `)` for `(`", at);
                        }
                        self.leave();
                    }
                }
                Class::Arith => {
                    if let Kind::Arith(word) = self.next().kind {
                        let expression = word.text;
                        self.out.push(Command {
                            program: "((".to_string(),
                            name: "((".to_string(),
                            args: vec![expression.clone()],
                            operands: vec![expression],
                            ..Command::default()
                        });
                        self.out.extend(word.subs);
                    }
                }
                _ => return false,
            },
        }
        true
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
                    self.fail("missing `fi` for `if`", at);
                    return;
                }
            }
        }
    }

    fn parse_for(&mut self, keyword: &str, at: usize) {
        match self.peek_class() {
            // for (( init; test; step ))
            Class::Arith => {
                if let Kind::Arith(word) = self.next().kind {
                    self.out.extend(word.subs);
                }
            }
            Class::Word => {
                if let Kind::Word(word) = self.next().kind {
                    self.out.extend(word.subs);
                }
                self.skip_newlines();
                if self.peek_reserved() == Some("in") {
                    self.next();
                    while self.peek_class() == Class::Word {
                        if let Kind::Word(word) = self.next().kind {
                            self.out.extend(word.subs);
                        }
                    }
                }
            }
            _ => {
                self.fail(&format!("expected a name after `{keyword}`"), at);
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
            _ => self.fail(&format!("missing `do` for `{keyword}`"), at),
        }
    }

    fn parse_case(&mut self, at: usize) {
        if self.peek_class() != Class::Word {
            self.fail("expected a word after `case`", at);
            return;
        }
        if let Kind::Word(word) = self.next().kind {
            self.out.extend(word.subs);
        }
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
                    Class::Word => {
                        if let Kind::Word(word) = self.next().kind {
                            self.out.extend(word.subs);
                        }
                    }
                    Class::Op(Op::Pipe) => {
                        self.next();
                    }
                    Class::Op(Op::RParen) => {
                        self.next();
                        break;
                    }
                    _ => {
                        self.fail("missing `esac` for `case`", at);
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
                    self.fail("missing `esac` for `case`", at);
                    return;
                }
            }
        }
    }

    /// `[[ … ]]`, listed as one command with program `[[`.
    fn parse_test(&mut self, at: usize) {
        self.test_mode = true;
        let mut args = Vec::new();
        let mut subs = Vec::new();
        loop {
            if self.peek_class() != Class::Word {
                self.fail("missing `]]` for `[[`", at);
                break;
            }
            if let Kind::Word(word) = self.next().kind {
                if word.is_plain() && word.text == "]]" {
                    break;
                }
                subs.extend(word.subs);
                args.push(word.text);
            }
        }
        self.test_mode = false;
        let (flags, operands) = split_flags(&args);
        self.out.push(Command {
            program: "[[".to_string(),
            name: "[[".to_string(),
            args,
            flags,
            operands,
            ..Command::default()
        });
        self.out.extend(subs);
    }

    /// `function NAME [()] BODY`, after `function`.
    fn parse_function(&mut self, at: usize) {
        if self.peek_class() != Class::Word {
            self.fail("expected a name after `function`", at);
            return;
        }
        self.next();
        if self.peek_class() == Class::Op(Op::LParen) {
            self.next();
            if self.peek_class() != Class::Op(Op::RParen) {
                self.fail("expected `)` in a function definition", at);
                return;
            }
            self.next();
        }
        self.parse_function_body(at);
    }

    /// The body of a function: any compound command, with its redirections.
    fn parse_function_body(&mut self, at: usize) {
        self.skip_newlines();
        let start = self.out.len();
        if self.parse_compound() {
            self.compound_redirects(start);
        } else {
            self.fail("expected a function body", at);
        }
    }

    /// Redirections after a compound command apply to every command in it;
    /// they are copied onto those commands while the copying stays linear in
    /// the input, and otherwise given to one command without a program.
    fn compound_redirects(&mut self, start: usize) {
        let mut redirects = Vec::new();
        let mut subs = Vec::new();
        while self.peek_class() == Class::Redir {
            self.parse_redirect(&mut redirects, &mut subs);
        }
        if !redirects.is_empty() {
            let inner = self.out.get_mut(start..).unwrap_or_default();
            let cost = inner.len().saturating_mul(redirects.len());
            if !inner.is_empty() && cost <= self.budget {
                for command in inner.iter_mut() {
                    command.redirects.extend(redirects.iter().cloned());
                }
                self.budget -= cost;
            } else {
                self.out.push(Command {
                    redirects,
                    ..Command::default()
                });
            }
        }
        self.out.extend(subs);
    }

    fn parse_redirect(&mut self, redirects: &mut Vec<Redirect>, subs: &mut Vec<Command>) {
        let tok = self.next();
        let Kind::Redir(op) = tok.kind else {
            return;
        };
        if self.peek_class() != Class::Word {
            self.fail(&format!("expected a word after `{op}`"), tok.at);
            return;
        }
        let Kind::Word(word) = self.next().kind else {
            return;
        };
        if op == "<<" || op == "<<-" {
            self.push_heredoc(word.text.clone(), op == "<<-", !word.quoted);
        }
        subs.extend(word.subs);
        redirects.push(Redirect {
            op: op.to_string(),
            target: word.text,
        });
    }

    /// A simple command (or a function definition `NAME() BODY`), with
    /// `prefix` as its first words.
    fn parse_simple(&mut self, prefix: Vec<Word>) {
        let mut words = prefix;
        let mut redirects = Vec::new();
        let mut subs = Vec::new();
        loop {
            match self.peek_class() {
                Class::Word => {
                    if let Kind::Word(word) = self.next().kind {
                        words.push(word);
                    }
                }
                Class::Redir => self.parse_redirect(&mut redirects, &mut subs),
                Class::Op(Op::LParen)
                    if redirects.is_empty()
                        && words.len() == 1
                        && words
                            .first()
                            .is_some_and(|word| word.is_plain() && !word.assign) =>
                {
                    let at = words.first().map_or(0, |word| word.at);
                    self.next();
                    if self.peek_class() == Class::Op(Op::RParen) {
                        self.next();
                        self.parse_function_body(at);
                    } else {
                        self.fail("expected `)` in a function definition", at);
                    }
                    return;
                }
                _ => break,
            }
        }
        let mut infos = Vec::with_capacity(words.len());
        let mut word_subs = Vec::new();
        for word in words {
            let (info, mut inner) = WordInfo::from_word(word);
            word_subs.append(&mut inner);
            infos.push(info);
        }
        let commands = self.analyze(infos, Vec::new(), redirects);
        self.out.extend(commands);
        self.out.extend(word_subs);
        self.out.extend(subs);
    }
}
