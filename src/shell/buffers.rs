//! The memory a parse reuses: [`Buffers`].
//!
//! A view owns its words as `String`s and its lists as `Vec`s, so that rules
//! read them in place. Parsing into fresh ones would allocate for every
//! word of every command; instead each `String` and `Vec` of a view comes
//! from a [`Pool`] of buffers kept by capacity class (powers of two), and
//! goes back to it when the view is recycled. A buffer is taken from the
//! smallest class that fits its final length, known before it is filled (a
//! word is copied whole, a list is filled after its words are counted), so
//! it never grows; a list that must grow anyway (a redirection copied onto
//! the commands of a group) moves to a larger pooled list and gives the
//! smaller one back.
//!
//! The working memory of a parse is reused too, and grows to the largest
//! parse seen: the text of the words being read (one arena, used as a
//! stack), the words and redirections of the simple commands being read,
//! the wrappers being collected, pending heredocs, the commands found so far
//! and the room to reorder them, the first error.
//!
//! A pool makes a buffer only when none of its class or a larger one is
//! free (a bit set of the stocked classes finds one in constant time), and
//! at the end of the parse reserves the room to take back every buffer it
//! made, so recycling a view never allocates. After one parse, parsing text
//! that needs no more buffers of each size class (the same text, or any
//! text whose words and lists are as many and no longer) allocates nothing.
//! A pool's classes, and the buffers themselves, are made on first use: a
//! parse with fresh buffers allocates about as often as one without pools.

use super::{Command, Redirect, View};
use std::fmt;
use std::mem;

/// How many capacity classes a pool keeps: class `k` holds buffers with a
/// capacity of at least 2^k; the last class also holds every larger one.
const CLASSES: usize = 32;

/// A buffer a [`Pool`] can keep: empty, with a capacity.
pub(super) trait Reusable: Default {
    /// How many items it can hold without allocating.
    fn capacity(&self) -> usize;
    /// A new, empty buffer for at least `n` items.
    fn with_capacity(n: usize) -> Self;
    /// Forgets the items (a pool keeps empty buffers only).
    fn clear(&mut self);
    /// The bytes one item takes.
    const ITEM: usize;
}

impl Reusable for String {
    fn capacity(&self) -> usize {
        String::capacity(self)
    }
    fn with_capacity(n: usize) -> Self {
        String::with_capacity(n)
    }
    fn clear(&mut self) {
        String::clear(self);
    }
    const ITEM: usize = 1;
}

impl<T> Reusable for Vec<T> {
    fn capacity(&self) -> usize {
        Vec::capacity(self)
    }
    fn with_capacity(n: usize) -> Self {
        Vec::with_capacity(n)
    }
    fn clear(&mut self) {
        Vec::clear(self);
    }
    const ITEM: usize = mem::size_of::<T>();
}

/// Empty buffers of one type, by capacity class.
pub(super) struct Pool<B> {
    /// Each class, up to the largest one made.
    classes: Vec<Class<B>>,
    /// The classes with a free buffer, as bits.
    stocked: u32,
    /// The classes it made a buffer of since the last
    /// [`settle`](Self::settle), as bits.
    unsettled: u32,
    /// The smallest class it makes (tiny buffers are rounded up to it).
    min: usize,
    /// The bytes the free buffers hold.
    held: usize,
}

/// The buffers of one capacity class.
struct Class<B> {
    free: Vec<B>,
    /// How many the pool made: the room `free` keeps (see
    /// [`Pool::settle`]), so that taking every one back never allocates.
    made: usize,
}

impl<B> Default for Class<B> {
    fn default() -> Self {
        Class {
            free: Vec::new(),
            made: 0,
        }
    }
}

impl<B> Pool<B> {
    fn new(min: usize) -> Self {
        Pool {
            classes: Vec::new(),
            stocked: 0,
            unsettled: 0,
            min,
            held: 0,
        }
    }

    /// Class `class`, made room for.
    fn class(&mut self, class: usize) -> Option<&mut Class<B>> {
        if self.classes.len() <= class {
            self.classes.resize_with(class + 1, Class::default);
        }
        self.classes.get_mut(class)
    }
}

/// The class a request for `n` items is served from: the smallest power of
/// two at least `n`, or the last class.
fn class_for(n: usize, min: usize) -> usize {
    let class = n
        .checked_next_power_of_two()
        .map_or(CLASSES, |p| p.trailing_zeros() as usize);
    class.clamp(min, CLASSES - 1)
}

/// The class a buffer of capacity `capacity` (non-zero) is kept in: the
/// largest power of two it holds, or the last class.
fn class_of(capacity: usize) -> usize {
    let class = (usize::BITS - 1).saturating_sub(capacity.leading_zeros()) as usize;
    class.min(CLASSES - 1)
}

/// The bit of class `class` in a set of classes.
fn bit(class: usize) -> u32 {
    1u32.checked_shl(class as u32).unwrap_or(0)
}

impl<B: Reusable> Pool<B> {
    /// An empty buffer for at least `n` items: a free one of the smallest
    /// class that fits, or a new one.
    pub(super) fn take(&mut self, n: usize) -> B {
        if n == 0 {
            return B::default();
        }
        let from = class_for(n, self.min);
        let mut candidates = self.stocked & !(bit(from).wrapping_sub(1));
        while candidates != 0 {
            let class = candidates.trailing_zeros() as usize;
            candidates &= !bit(class);
            let Some(Class { free, .. }) = self.classes.get_mut(class) else {
                break;
            };
            // Only in the last class may a free buffer be too small.
            if free.last().is_some_and(|buffer| buffer.capacity() >= n) {
                if let Some(buffer) = free.pop() {
                    if free.is_empty() {
                        self.stocked &= !bit(class);
                    }
                    self.held = self.held.saturating_sub(buffer.capacity() * B::ITEM);
                    return buffer;
                }
            }
        }
        let size = if from < CLASSES - 1 { 1 << from } else { n };
        let buffer = B::with_capacity(size);
        let class = class_of(buffer.capacity());
        if let Some(made) = self.class(class) {
            made.made += 1;
            self.unsettled |= bit(class);
        }
        buffer
    }

    /// Takes `buffer` back, emptied (buffers without capacity are dropped).
    pub(super) fn give(&mut self, mut buffer: B) {
        let capacity = buffer.capacity();
        if capacity == 0 {
            return;
        }
        buffer.clear();
        let class = class_of(capacity);
        if let Some(Class { free, .. }) = self.class(class) {
            free.push(buffer);
            self.stocked |= bit(class);
            self.held += capacity * B::ITEM;
        }
    }

    /// Makes room in the free lists for every buffer made since the last
    /// call, so that taking them back never allocates.
    fn settle(&mut self) {
        while self.unsettled != 0 {
            let class = self.unsettled.trailing_zeros() as usize;
            self.unsettled &= !bit(class);
            if let Some(Class { free, made }) = self.classes.get_mut(class) {
                free.reserve(made.saturating_sub(free.len()));
            }
        }
    }

    /// The bytes its free buffers hold.
    fn held(&self) -> usize {
        self.held
    }
}

impl<T> Pool<Vec<T>> {
    /// Makes room for `additional` more items in `list`: when it is full,
    /// its items move to a larger pooled list and it goes back to the pool.
    pub(super) fn reserve(&mut self, list: &mut Vec<T>, additional: usize) {
        if list.capacity() - list.len() >= additional {
            return;
        }
        let mut larger = self.take(list.len() + additional);
        larger.append(list);
        self.give(mem::replace(list, larger));
    }
}

impl Pool<String> {
    /// A pooled copy of `text`.
    pub(super) fn copy(&mut self, text: &str) -> String {
        let mut copy = self.take(text.len());
        copy.push_str(text);
        copy
    }
}

/// A range of bytes in the word arena ([`Buffers::text`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Span {
    pub(super) start: usize,
    pub(super) end: usize,
}

impl Span {
    /// The part of the span from byte `from` to byte `to` of its text.
    pub(super) fn sub(self, from: usize, to: usize) -> Span {
        let start = (self.start + from).min(self.end);
        Span {
            start,
            end: (self.start + to).clamp(start, self.end),
        }
    }

    pub(super) fn len(self) -> usize {
        self.end - self.start
    }
}

/// The text of `span` in `arena` (empty if it is no longer there).
pub(super) fn text(arena: &str, span: Span) -> &str {
    arena.get(span.start..span.end).unwrap_or("")
}

/// A word, after quote removal, as the lexer reads it and the word stack
/// keeps it.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Word {
    /// Quotes removed, escapes resolved, expansions as written: a span of
    /// the word arena.
    pub(super) text: Span,
    /// Where it starts, in this parser's text.
    pub(super) at: usize,
    /// Some part of it was quoted or escaped (so it is no reserved word,
    /// and as a heredoc delimiter it keeps the body literal).
    pub(super) quoted: bool,
    /// It holds an expansion or substitution: its value is known only when
    /// the shell runs it.
    pub(super) expansion: bool,
    /// It holds an unquoted glob (`*`, `?`, `[…]`).
    pub(super) glob: bool,
    /// It holds an unquoted brace expansion (`{a,b}`, `{1..3}`).
    pub(super) brace: bool,
    /// It has the form `NAME=value` (also `NAME+=`, `NAME[i]=`).
    pub(super) assign: bool,
    /// It starts with a process substitution.
    pub(super) procsub: bool,
    /// The commands of the substitutions it holds: `subs.0..subs.1` of the
    /// output, pushed while it was read.
    pub(super) subs: (usize, usize),
}

impl Word {
    /// Unquoted and without expansions: it may be a reserved word.
    pub(super) fn is_plain(&self) -> bool {
        !self.quoted && !self.expansion
    }

    /// Its value is known only at run time (expansion, glob, brace).
    pub(super) fn dynamic(&self) -> bool {
        self.expansion || self.glob || self.brace
    }
}

/// A pending heredoc: its body starts after the next newline.
#[derive(Clone, Copy, Debug)]
pub(super) struct Heredoc {
    /// The delimiter, in [`Buffers::heredoc_text`].
    pub(super) delimiter: Span,
    pub(super) strip_tabs: bool,
    pub(super) expand: bool,
}

/// The most functions of one text (or substitution) whose calls to each
/// other are followed (see [`Buffers::resolve_functions`]); later ones are
/// checked only for calls to themselves.
pub(super) const MAX_FUNCTIONS: usize = 64;

/// A function the text being read defines.
#[derive(Clone, Copy, Debug)]
pub(super) struct Function {
    /// Its name, in [`Buffers::function_names`].
    pub(super) name: Span,
    /// The commands of its body: `start..end` of [`Buffers::out`].
    pub(super) start: usize,
    pub(super) end: usize,
}

/// A redirection of the simple command being read.
#[derive(Clone, Copy, Debug)]
pub(super) struct PendingRedirect {
    pub(super) op: &'static str,
    /// Its target word, in the arena.
    pub(super) target: Span,
    /// The commands of the target's substitutions: `subs.0..subs.1` of
    /// [`Buffers::out`].
    pub(super) subs: (usize, usize),
}

/// Reusable memory for parsing shell views: the pools the strings and lists
/// of views come from, and the working memory of a parse.
///
/// [`parse`](Self::parse) fills a view from it and
/// [`recycle`](Self::recycle) takes a view's memory back; after a parse,
/// parsing a text whose view needs no more buffers of each size class
/// allocates nothing. [`Views`](super::Views) keeps one for a dispatch.
pub struct Buffers {
    pub(super) strings: Pool<String>,
    pub(super) lists: Pool<Vec<String>>,
    pub(super) redirects: Pool<Vec<Redirect>>,
    pub(super) commands: Pool<Vec<Command>>,
    /// The word arena: the text of the words being read, as a stack (a
    /// construct that reads words inside a word drops them when done).
    pub(super) text: String,
    /// The delimiters of pending heredocs.
    pub(super) heredoc_text: String,
    /// Pending heredocs, as a stack: each parser owns those from where the
    /// stack was when it started.
    pub(super) heredocs: Vec<Heredoc>,
    /// The words of the simple commands being read, as a stack.
    pub(super) words: Vec<Word>,
    /// Their redirections, as a stack.
    pub(super) redirs: Vec<PendingRedirect>,
    /// The wrappers of the commands being analysed, as a stack.
    pub(super) names: Vec<&'static str>,
    /// The commands found so far, in order; those of a word's substitutions
    /// follow each other from where its reading started.
    pub(super) out: Vec<Command>,
    /// Commands set aside while others are placed before them.
    pub(super) held: Vec<Command>,
    /// Room to reorder the commands of one simple command.
    pub(super) moving: Vec<Command>,
    /// The functions defined by the texts being read, as a stack: each
    /// parser (and each `$( … )`) owns those from where it started.
    pub(super) functions: Vec<Function>,
    /// Their names.
    pub(super) function_names: String,
    /// For each command in the bodies of the functions being resolved, the
    /// functions it calls, as bits.
    pub(super) calls: Vec<u64>,
    /// The first error of the parse, when `failed`.
    pub(super) error: String,
    pub(super) failed: bool,
}

impl fmt::Debug for Buffers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Buffers")
            .field("retained", &self.retained())
            .finish_non_exhaustive()
    }
}

impl Default for Buffers {
    fn default() -> Self {
        Buffers {
            strings: Pool::new(3),
            lists: Pool::new(2),
            redirects: Pool::new(1),
            commands: Pool::new(2),
            text: String::new(),
            heredoc_text: String::new(),
            heredocs: Vec::new(),
            words: Vec::new(),
            redirs: Vec::new(),
            names: Vec::new(),
            out: Vec::new(),
            held: Vec::new(),
            moving: Vec::new(),
            functions: Vec::new(),
            function_names: String::new(),
            calls: Vec::new(),
            error: String::new(),
            failed: false,
        }
    }
}

impl Buffers {
    /// Makes room in the pools to take back every buffer made since the
    /// last call (see [`Pool::settle`]).
    pub(super) fn settle(&mut self) {
        self.strings.settle();
        self.lists.settle();
        self.redirects.settle();
        self.commands.settle();
    }

    /// Takes the strings and lists of `view` back, for later parses.
    pub fn recycle(&mut self, view: View) {
        let mut commands = view.commands;
        for command in commands.drain(..) {
            self.recycle_command(command);
        }
        self.commands.give(commands);
    }

    /// Takes a key string back (see [`Views`](super::Views)).
    pub(super) fn recycle_string(&mut self, text: String) {
        self.strings.give(text);
    }

    /// A pooled copy of `text`.
    pub(super) fn copy(&mut self, text: &str) -> String {
        self.strings.copy(text)
    }

    /// A pooled copy of the text of a span of the word arena.
    pub(super) fn copy_span(&mut self, span: Span) -> String {
        self.strings.copy(text(&self.text, span))
    }

    /// The bytes these buffers keep for later parses.
    pub fn retained(&self) -> usize {
        fn bytes<T>(list: &Vec<T>) -> usize {
            list.capacity() * mem::size_of::<T>()
        }
        self.strings.held()
            + self.lists.held()
            + self.redirects.held()
            + self.commands.held()
            + self.text.capacity()
            + self.heredoc_text.capacity()
            + self.error.capacity()
            + self.function_names.capacity()
            + bytes(&self.heredocs)
            + bytes(&self.words)
            + bytes(&self.redirs)
            + bytes(&self.names)
            + bytes(&self.out)
            + bytes(&self.held)
            + bytes(&self.moving)
            + bytes(&self.functions)
            + bytes(&self.calls)
    }

    /// Empties the working memory, keeping its capacity.
    pub(super) fn reset(&mut self) {
        self.truncate_out(0);
        while let Some(command) = self.held.pop() {
            self.recycle_command(command);
        }
        self.text.clear();
        self.heredoc_text.clear();
        self.heredocs.clear();
        self.words.clear();
        self.redirs.clear();
        self.names.clear();
        self.moving.clear();
        self.functions.clear();
        self.function_names.clear();
        self.calls.clear();
        self.error.clear();
        self.failed = false;
    }

    /// Records a function `name` whose body's commands are `start..end` of
    /// the output, unless [`MAX_FUNCTIONS`] are already recorded.
    pub(super) fn define(&mut self, name: &str, start: usize, end: usize) {
        if name.is_empty() || self.functions.len() >= MAX_FUNCTIONS {
            return;
        }
        let from = self.function_names.len();
        self.function_names.push_str(name);
        self.functions.push(Function {
            name: Span {
                start: from,
                end: self.function_names.len(),
            },
            start,
            end,
        });
    }

    /// After the commands from `at` on moved `by` places towards the
    /// front, moves the bodies of the functions recorded there with them.
    pub(super) fn shift_functions(&mut self, at: usize, by: usize) {
        for function in &mut self.functions {
            if function.start >= at {
                function.start = function.start.saturating_sub(by);
                function.end = function.end.saturating_sub(by);
            }
        }
    }

    /// Marks [`recursive`](Command::recursive) each command, in the body
    /// of a function recorded from `scope` on, that calls a function (of
    /// those) from which the enclosing one is reached again through calls:
    /// `a(){ b|b& }; b(){ a|a& }` marks both bodies' calls. Then forgets
    /// those functions. The work is linear in the commands of their bodies
    /// times [`MAX_FUNCTIONS`].
    pub(super) fn resolve_functions(&mut self, scope: usize) {
        let Buffers {
            functions,
            function_names,
            out,
            calls,
            ..
        } = self;
        let defined = functions.get(scope..).unwrap_or_default();
        // One function reaches only itself, which its body already marks.
        if defined.len() >= 2 {
            let bit = |i: usize| 1u64.checked_shl(i as u32).unwrap_or(0);
            let lo = defined.iter().map(|f| f.start).min().unwrap_or(0);
            let hi = defined.iter().map(|f| f.end).max().unwrap_or(0);
            let hi = hi.min(out.len());
            // The functions each command calls.
            calls.clear();
            for command in out.get(lo..hi).unwrap_or_default() {
                let mut mask = 0;
                if !command.program.is_empty() {
                    for (i, function) in defined.iter().enumerate() {
                        if text(function_names, function.name) == command.program {
                            mask |= bit(i);
                        }
                    }
                }
                calls.push(mask);
            }
            let body = |f: &Function| f.start.saturating_sub(lo)..f.end.min(hi).saturating_sub(lo);
            // The functions each one reaches: its calls, then closed.
            let mut reach = [0u64; MAX_FUNCTIONS];
            for (function, reached) in defined.iter().zip(reach.iter_mut()) {
                *reached = calls
                    .get(body(function))
                    .unwrap_or_default()
                    .iter()
                    .fold(0, |all, mask| all | mask);
            }
            for k in 0..defined.len() {
                let through = reach.get(k).copied().unwrap_or(0);
                for reached in &mut reach {
                    if *reached & bit(k) != 0 {
                        *reached |= through;
                    }
                }
            }
            for (i, function) in defined.iter().enumerate() {
                // The functions from which this one is reached.
                let back = reach
                    .iter()
                    .enumerate()
                    .filter(|(_, reached)| *reached & bit(i) != 0)
                    .fold(0, |all, (g, _)| all | bit(g));
                let range = body(function);
                let commands = out
                    .get_mut(range.start + lo..range.end + lo)
                    .unwrap_or_default();
                let masks = calls.get(range).unwrap_or_default();
                for (command, mask) in commands.iter_mut().zip(masks) {
                    if mask & back != 0 {
                        command.recursive = true;
                    }
                }
            }
        }
        if let Some(first) = functions.get(scope) {
            function_names.truncate(first.name.start);
        }
        functions.truncate(scope);
    }

    /// Drops the commands found after the first `len` (their memory goes
    /// back to the pools).
    pub(super) fn truncate_out(&mut self, len: usize) {
        while self.out.len() > len {
            if let Some(command) = self.out.pop() {
                self.recycle_command(command);
            }
        }
    }

    pub(super) fn recycle_command(&mut self, command: Command) {
        let Command {
            program,
            name,
            args,
            flags,
            operands,
            globs,
            redirects,
            assignments,
            wrappers,
            short_flags: _,
            dynamic: _,
            recursive: _,
            error,
        } = command;
        self.strings.give(program);
        self.strings.give(name);
        for list in [args, flags, operands, globs, assignments, wrappers] {
            self.recycle_list(list);
        }
        let mut redirects = redirects;
        for redirect in redirects.drain(..) {
            self.strings.give(redirect.op);
            self.strings.give(redirect.target);
        }
        self.redirects.give(redirects);
        if let Some(error) = error {
            self.strings.give(error);
        }
    }

    fn recycle_list(&mut self, mut list: Vec<String>) {
        for word in list.drain(..) {
            self.strings.give(word);
        }
        self.lists.give(list);
    }

    /// A pooled list of pooled copies of the texts of `words[from..to]`.
    pub(super) fn copy_words(&mut self, from: usize, to: usize) -> Vec<String> {
        let words = self.words.get(from..to).unwrap_or_default();
        let mut list = self.lists.take(words.len());
        for word in words {
            list.push(self.strings.copy(text(&self.text, word.text)));
        }
        list
    }

    /// A pooled list of pooled copies of the texts of `words[from..to]` that
    /// hold an unquoted glob.
    pub(super) fn copy_globs(&mut self, from: usize, to: usize) -> Vec<String> {
        let words = self.words.get(from..to).unwrap_or_default();
        let mut list = self
            .lists
            .take(words.iter().filter(|word| word.glob).count());
        for word in words.iter().filter(|word| word.glob) {
            list.push(self.strings.copy(text(&self.text, word.text)));
        }
        list
    }

    /// A pooled list of pooled copies of `names`.
    pub(super) fn copy_names(&mut self, from: usize) -> Vec<String> {
        let names = self.names.get(from..).unwrap_or_default();
        let mut list = self.lists.take(names.len());
        for name in names {
            list.push(self.strings.copy(name));
        }
        list
    }

    /// The redirections `redirs[from..]` as a pooled list.
    pub(super) fn copy_redirects(&mut self, from: usize) -> Vec<Redirect> {
        let pending = self.redirs.get(from..).unwrap_or_default();
        let mut list = self.redirects.take(pending.len());
        for redirect in pending {
            list.push(Redirect {
                op: self.strings.copy(redirect.op),
                target: self.strings.copy(text(&self.text, redirect.target)),
            });
        }
        list
    }
}
