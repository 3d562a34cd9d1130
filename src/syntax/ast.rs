//! The abstract syntax tree of a `.hooks` file.
//!
//! The tree is what the source says, nothing more: names are not resolved,
//! types are not checked, strings are not yet split into templates. Every node
//! carries the [`Span`] of the text it came from; equality ignores spans so
//! tests compare structure.

pub use crate::ir::{BinaryOp, FailMode, Segment, UnaryOp};
use crate::span::Span;

/// A whole `.hooks` file: its items in source order.
#[derive(Clone, Debug, PartialEq)]
pub struct File {
    /// Top-level items in source order.
    pub items: Vec<Item>,
}

/// One top-level item.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// `schema orcs` or `schema "app.schema.toml"`.
    Schema(SchemaDecl),
    /// `import "common.hooks"`.
    Import(Import),
    /// `list dangerous = ["rm -rf", "mkfs"]`.
    List(ListDecl),
    /// `pattern secret = /AKIA[0-9A-Z]{16}/`.
    Pattern(PatternDecl),
    /// `macro is_exec = payload.tool == "exec"`.
    Macro(MacroDecl),
    /// `hook id on point at fql { … }`.
    Hook(Hook),
    /// `override id priority 5 disabled`.
    Override(OverrideDecl),
    /// `test "name" { event {…} expect … }`.
    Test(TestDecl),
}

/// A name as written, with its span.
#[derive(Clone, Debug)]
pub struct Ident {
    /// The name.
    pub name: String,
    /// Where it is written.
    pub span: Span,
}

impl PartialEq for Ident {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

/// A string literal: its decoded value (escapes resolved) and its span
/// (including the quotes).
#[derive(Clone, Debug)]
pub struct StrLit {
    /// The decoded text.
    pub value: String,
    /// Where the literal is written, quotes included.
    pub span: Span,
}

impl PartialEq for StrLit {
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value
    }
}

/// `schema NAME` (a built-in catalog) or `schema "path"` (a custom one).
#[derive(Clone, Debug)]
pub struct SchemaDecl {
    /// Which schema.
    pub schema: SchemaRef,
    /// The whole declaration.
    pub span: Span,
}

/// The two ways to name a schema.
#[derive(Clone, Debug, PartialEq)]
pub enum SchemaRef {
    /// A built-in catalog such as `orcs`.
    Builtin(Ident),
    /// A schema file, relative to the declaring file.
    Path(StrLit),
}

/// `import "path"`.
#[derive(Clone, Debug)]
pub struct Import {
    /// The imported path, relative to the importing file.
    pub path: StrLit,
    /// The whole declaration.
    pub span: Span,
}

/// `list NAME = [v, …]`.
#[derive(Clone, Debug)]
pub struct ListDecl {
    /// The list's name.
    pub name: Ident,
    /// True for `list NAME += […]`: the elements are added to the list of
    /// that name the file defines or imports.
    pub extends: bool,
    /// Its elements (JSON literals).
    pub items: Vec<Expr>,
    /// The whole declaration.
    pub span: Span,
}

/// `override ID OPTIONS`: new options for a rule of another file.
#[derive(Clone, Debug, PartialEq)]
pub struct OverrideDecl {
    /// The rule's id.
    pub id: Ident,
    /// The options, as in a rule's header.
    pub options: Vec<HookOption>,
    /// The whole declaration.
    pub span: Span,
}

/// `pattern NAME = /re/flags`.
#[derive(Clone, Debug)]
pub struct PatternDecl {
    /// The pattern's name.
    pub name: Ident,
    /// The regex.
    pub regex: RegexLit,
    /// The whole declaration.
    pub span: Span,
}

/// A regex literal `/re/flags`.
#[derive(Clone, Debug)]
pub struct RegexLit {
    /// The pattern text between the slashes, with `\/` turned into `/` and
    /// raw control and bidi characters into `\x{…}` escapes.
    pub pattern: String,
    /// The flags after the closing slash (`i`, `m`, `s`, `x`, `U`).
    pub flags: String,
    /// The whole literal, slashes and flags included.
    pub span: Span,
    /// The pattern text alone, for errors that point inside the regex.
    pub pattern_span: Span,
}

impl PartialEq for RegexLit {
    fn eq(&self, other: &Self) -> bool {
        self.pattern == other.pattern && self.flags == other.flags
    }
}

/// `macro NAME = condition`.
#[derive(Clone, Debug)]
pub struct MacroDecl {
    /// The macro's name.
    pub name: Ident,
    /// The condition it stands for.
    pub body: Expr,
    /// The whole declaration.
    pub span: Span,
}

/// A rule: `hook ID on POINTS [at FQL] [options] { conditions actions }`.
#[derive(Clone, Debug)]
pub struct Hook {
    /// The rule's id, unique across the compiled set.
    pub id: Ident,
    /// The hook points it runs at (at least one).
    pub points: Vec<Ident>,
    /// The FQL target, as written (bare or quoted); `*::*` when absent.
    pub target: Option<StrLit>,
    /// Header options in source order.
    pub options: Vec<HookOption>,
    /// `when` / `unless` lines, ANDed.
    pub conditions: Vec<Condition>,
    /// Actions, run in order.
    pub actions: Vec<Action>,
    /// The whole rule.
    pub span: Span,
    /// The header, from `hook` to the opening brace.
    pub header_span: Span,
}

/// One header option.
#[derive(Clone, Debug)]
pub struct HookOption {
    /// Which option.
    pub kind: HookOptionKind,
    /// Where it is written.
    pub span: Span,
}

/// The header options of a rule.
#[derive(Clone, Debug, PartialEq)]
pub enum HookOptionKind {
    /// `priority N`: lower runs first; default 100.
    Priority(i64),
    /// `disabled`: compiled but never run.
    Disabled,
    /// `fail open` or `fail closed`.
    Fail(FailMode),
    /// `timeout 5s`, in milliseconds.
    Timeout(u64),
}

/// A `when` or `unless` line.
#[derive(Clone, Debug)]
pub struct Condition {
    /// True for `unless` (the expression is negated).
    pub negated: bool,
    /// For `let NAME = e`: the name the line binds (the line is then a
    /// value, not a condition).
    pub binding: Option<Ident>,
    /// The condition.
    pub expr: Expr,
    /// The whole line.
    pub span: Span,
}

/// An expression: a condition or a value.
#[derive(Clone, Debug)]
pub struct Expr {
    /// What kind of expression.
    pub kind: ExprKind,
    /// Where it is written.
    pub span: Span,
}

impl PartialEq for Expr {
    fn eq(&self, other: &Self) -> bool {
        self.kind == other.kind
    }
}

/// The kinds of expression.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// A JSON scalar: `"s"`, `42`, `-1.5`, `true`, `false`, `null`.
    Literal(serde_json::Value),
    /// A string literal (kept apart from other scalars: in actions it is a
    /// template).
    Str(StrLit),
    /// `[a, b, …]`.
    Array(Vec<Expr>),
    /// `{"k": v, …}`.
    Object(Vec<(StrLit, Expr)>),
    /// A field of the event: `payload.a.b[0]`, `principal.id`, `depth`.
    Path(Path),
    /// A bare name that is not a context root: a macro, list or pattern.
    Name(Ident),
    /// `not e`, `-e`, `~e`.
    Unary(UnaryOp, Box<Expr>),
    /// `a op b` for arithmetic, bit, comparison and boolean operators.
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// `e contains any LIST`.
    ContainsAny(Box<Expr>, Box<Expr>),
    /// `e in LIST` (negated when written `not in`).
    In(Box<Expr>, Box<Expr>),
    /// `e matches /re/` or `e matches NAME`.
    Matches(Box<Expr>, RegexRef),
    /// `e glob "src/**"`.
    Glob(Box<Expr>, StrLit),
    /// `path exists`.
    Exists(Box<Expr>),
    /// `rate("key") > 100 per 60s`.
    Rate(Rate),
    /// `any c in LIST: e` or `all c in LIST: e`.
    Quantifier(Box<Quantifier>),
    /// `name(args…)`: a built-in function.
    Call(Ident, Vec<Expr>),
}

/// `any c in LIST: e` / `all c in LIST: e`.
#[derive(Clone, Debug, PartialEq)]
pub struct Quantifier {
    /// `any` or `all`.
    pub kind: QuantifierKind,
    /// The variable that names each element in `body`.
    pub var: Ident,
    /// The list.
    pub over: Expr,
    /// The condition on each element.
    pub body: Expr,
}

/// Which elements a quantifier's condition must hold for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum QuantifierKind {
    /// Some element (false for an empty list).
    Any,
    /// Every element (true for an empty list).
    All,
}

impl QuantifierKind {
    /// The keyword.
    pub fn as_str(self) -> &'static str {
        match self {
            QuantifierKind::Any => "any",
            QuantifierKind::All => "all",
        }
    }
}

/// A `rate(…)` test.
#[derive(Clone, Debug, PartialEq)]
pub struct Rate {
    /// The key template.
    pub key: StrLit,
    /// The comparison operator as written (`>`, `>=`, `<`, `<=`, `==`, `!=`).
    pub op: BinaryOp,
    /// The number compared with.
    pub limit: f64,
    /// Where the number is written.
    pub limit_span: Span,
    /// The window in milliseconds.
    pub window_ms: u64,
    /// The window as written, e.g. `60s`.
    pub window_text: String,
}

/// A regex operand: written in place or named by a `pattern`.
#[derive(Clone, Debug, PartialEq)]
pub enum RegexRef {
    /// `/re/flags`.
    Literal(RegexLit),
    /// A `pattern` name.
    Name(Ident),
}

/// A path into the event: a root and a chain of fields and indices.
#[derive(Clone, Debug)]
pub struct Path {
    /// The root name (`payload`, `metadata`, `component`, …).
    pub root: Ident,
    /// `.field` and `[index]` steps after the root.
    pub segments: Vec<Segment>,
    /// The whole path.
    pub span: Span,
}

impl PartialEq for Path {
    fn eq(&self, other: &Self) -> bool {
        self.root == other.root && self.segments == other.segments
    }
}

/// An action line.
#[derive(Clone, Debug)]
pub struct Action {
    /// What the action does.
    pub kind: ActionKind,
    /// The whole line.
    pub span: Span,
}

impl PartialEq for Action {
    fn eq(&self, other: &Self) -> bool {
        self.kind == other.kind
    }
}

/// The actions of a rule.
#[derive(Clone, Debug, PartialEq)]
pub enum ActionKind {
    /// `continue`: do nothing (documents intent).
    Continue,
    /// `abort "reason"` / `deny "reason"`: end the chain with an abort.
    Abort(Option<StrLit>),
    /// `skip <json>`: end the chain; the value is the operation's result.
    Skip(Option<Expr>),
    /// `replace <json|expr>`: swap the payload (post points only).
    Replace(Expr),
    /// `set path = expr`.
    Set(Path, Expr),
    /// `unset path`.
    Unset(Path),
    /// `rewrite path /re/ -> "replacement"`.
    Rewrite(Path, RegexRef, StrLit),
    /// `prepend path "text"`.
    Prepend(Path, StrLit),
    /// `append path "text"`.
    Append(Path, StrLit),
    /// `meta key = expr`.
    Meta(StrLit, Expr),
    /// `output name = expr`: a field of the host's answer.
    Output(Ident, Expr),
    /// `log level "template"`.
    Log(Ident, StrLit),
    /// `ask "reason"`.
    Ask(Option<StrLit>),
    /// `allow`.
    Allow,
    /// `context "text"`.
    Context(StrLit),
    /// `exec "program" "arg" …`: run a program directly.
    Exec(StrLit, Vec<StrLit>),
    /// `sh "script"`: run a script through `sh -c`, explicitly.
    Sh(StrLit),
    /// `webhook "https://…" include path, … header "Name" "value" …`.
    Webhook(Webhook),
    /// `call "handler"`.
    Call(StrLit),
    /// `call lua "hooks/audit.lua"`: a Lua handler script.
    CallLua(StrLit),
    /// `lua """function(ctx) … end"""`: an inline Lua handler.
    Lua(StrLit),
    /// `trace "file.jsonl" path, …`: append a line of field hashes.
    Trace(StrLit, Vec<Path>),
}

/// A `webhook` action: where to post, which fields to include in the
/// summary, and extra request headers.
#[derive(Clone, Debug, PartialEq)]
pub struct Webhook {
    /// The destination URL.
    pub url: StrLit,
    /// `include` paths, in the order written (every `include` clause).
    pub include: Vec<Path>,
    /// `header "Name" "value"` clauses, in the order written.
    pub headers: Vec<(StrLit, StrLit)>,
}

impl ActionKind {
    /// The keyword that introduces the action.
    pub fn keyword(&self) -> &'static str {
        match self {
            ActionKind::Continue => "continue",
            ActionKind::Abort(_) => "abort",
            ActionKind::Skip(_) => "skip",
            ActionKind::Replace(_) => "replace",
            ActionKind::Set(..) => "set",
            ActionKind::Unset(_) => "unset",
            ActionKind::Rewrite(..) => "rewrite",
            ActionKind::Prepend(..) => "prepend",
            ActionKind::Append(..) => "append",
            ActionKind::Meta(..) => "meta",
            ActionKind::Output(..) => "output",
            ActionKind::Log(..) => "log",
            ActionKind::Ask(_) => "ask",
            ActionKind::Allow => "allow",
            ActionKind::Context(_) => "context",
            ActionKind::Exec(..) => "exec",
            ActionKind::Sh(_) => "sh",
            ActionKind::Webhook(_) => "webhook",
            ActionKind::Call(_) | ActionKind::CallLua(_) => "call",
            ActionKind::Lua(_) => "lua",
            ActionKind::Trace(..) => "trace",
        }
    }
}

impl PartialEq for SchemaDecl {
    fn eq(&self, other: &Self) -> bool {
        self.schema == other.schema
    }
}

impl PartialEq for Import {
    fn eq(&self, other: &Self) -> bool {
        self.path == other.path
    }
}

impl PartialEq for ListDecl {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name && self.items == other.items
    }
}

impl PartialEq for PatternDecl {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name && self.regex == other.regex
    }
}

impl PartialEq for MacroDecl {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name && self.body == other.body
    }
}

impl PartialEq for Hook {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
            && self.points == other.points
            && self.target == other.target
            && self.options == other.options
            && self.conditions == other.conditions
            && self.actions == other.actions
    }
}

impl PartialEq for HookOption {
    fn eq(&self, other: &Self) -> bool {
        self.kind == other.kind
    }
}

impl PartialEq for Condition {
    fn eq(&self, other: &Self) -> bool {
        self.negated == other.negated && self.expr == other.expr
    }
}

/// A test of the rules: `test "name" { event {…} [target "…"] expect … }`.
///
/// `hookc test` dispatches the event through the compiled rules and checks
/// every expectation; `compile` and `eval` ignore tests.
#[derive(Clone, Debug)]
pub struct TestDecl {
    /// The test's name.
    pub name: StrLit,
    /// The event: an object literal (a HookContext in JSON). For `event
    /// file "…"` the loader puts the file's JSON here (a literal spanning
    /// the path); until then, and when the file cannot be read, `null`.
    pub event: Expr,
    /// `event file "path"`: where the event was read from, relative to the
    /// `.hooks` file.
    pub event_file: Option<StrLit>,
    /// The `event …` line, keyword included.
    pub event_span: Span,
    /// `target "scope::name/child#instance"`: the component to dispatch
    /// for, instead of the event's `component_id`, `child_id` and `instance`.
    pub target: Option<StrLit>,
    /// The `target "…"` line, keyword included.
    pub target_span: Option<Span>,
    /// `repeat N`: how many times the event is dispatched, and the line.
    pub repeat: Option<(u32, Span)>,
    /// `mock …` lines: effects that answer as scripted in this test.
    pub mocks: Vec<Mock>,
    /// What the outcome must be, in order.
    pub expects: Vec<Expect>,
    /// The whole test.
    pub span: Span,
}

impl PartialEq for TestDecl {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
            && self.event_file == other.event_file
            && (self.event_file.is_some() || self.event == other.event)
            && self.target == other.target
            && self.repeat.map(|r| r.0) == other.repeat.map(|r| r.0)
            && self.mocks == other.mocks
            && self.expects == other.expects
    }
}

/// One `mock` line of a test: an effect that does not run in the test but
/// answers as scripted.
#[derive(Clone, Debug)]
pub struct Mock {
    /// What it stands in for.
    pub kind: MockKind,
    /// The handler's name (`call`), or the glob a command's program
    /// (`exec`), a script (`sh`) or a URL (`webhook`) must match.
    pub subject: StrLit,
    /// What it answers.
    pub reply: MockReply,
    /// The whole line, `mock` included.
    pub span: Span,
}

/// Mocks are equal when they say the same, wherever they are written.
impl PartialEq for Mock {
    fn eq(&self, other: &Self) -> bool {
        self.kind == other.kind && self.subject == other.subject && self.reply == other.reply
    }
}

/// The effect a `mock` line stands in for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MockKind {
    /// `mock "name" …` / `mock call "name" …`: a native handler.
    Call,
    /// `mock exec "glob" …`: a program run by `exec`.
    Exec,
    /// `mock sh "glob" …`: a script run by `sh`.
    Sh,
    /// `mock webhook "glob" …`: a webhook.
    Webhook,
}

/// What a mocked effect answers.
#[derive(Clone, Debug, PartialEq)]
pub enum MockReply {
    /// `continue`.
    Continue,
    /// `abort` / `abort "reason"`.
    Abort(Option<StrLit>),
    /// `ask` / `ask "reason"`.
    Ask(Option<StrLit>),
    /// `skip` / `skip <json>`.
    Skip(Option<Expr>),
    /// `allow`.
    Allow,
    /// A command's exit: `[exit N] [stdout …] [stderr "…"]`, in the order
    /// written (the checker rejects a part given twice).
    Command(Vec<CommandPart>),
    /// A webhook: sent nowhere, or refused with `fail "reason"`.
    Webhook(Option<StrLit>),
}

/// One part of a mocked command's answer.
#[derive(Clone, Debug)]
pub enum CommandPart {
    /// `exit N`.
    Exit(u32, Span),
    /// `stdout "text"` or `stdout {…}` (printed as JSON).
    Stdout(Expr),
    /// `stderr "text"`.
    Stderr(StrLit),
}

/// Parts are equal when they say the same, wherever they are written.
impl PartialEq for CommandPart {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (CommandPart::Exit(a, _), CommandPart::Exit(b, _)) => a == b,
            (CommandPart::Stdout(a), CommandPart::Stdout(b)) => a == b,
            (CommandPart::Stderr(a), CommandPart::Stderr(b)) => a == b,
            _ => false,
        }
    }
}

/// One `expect` line of a test.
#[derive(Clone, Debug)]
pub struct Expect {
    /// What is expected.
    pub kind: ExpectKind,
    /// The whole line, `expect` included.
    pub span: Span,
}

impl PartialEq for Expect {
    fn eq(&self, other: &Self) -> bool {
        self.kind == other.kind
    }
}

/// The forms of `expect`.
#[derive(Clone, Debug, PartialEq)]
pub enum ExpectKind {
    /// `expect abort` / `expect abort "reason"`.
    Abort(Option<StrLit>),
    /// `expect continue`.
    Continue,
    /// `expect skip` / `expect skip <json>`.
    Skip(Option<Expr>),
    /// `expect ask` / `expect ask "reason"`.
    Ask(Option<StrLit>),
    /// `expect fired ["id", …]`: an array expression.
    Fired(Expr),
    /// `expect decision allow|ask|deny|none`.
    Decision(Ident),
    /// `expect output {…}` / `expect output null`: what a Claude Code hook
    /// prints (raw Claude Code events only).
    Output(Expr),
    /// `expect exit N`: the exit code a Claude Code hook answers with.
    Exit(u32),
    /// `expect <condition>` over the final context.
    Condition(Expr),
}
