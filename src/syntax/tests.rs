//! Parser tests: the design example, every operator and action, precedence,
//! spans, error recovery, the nesting limit, and never-panics properties.

use super::ast::*;
use super::parse;
use crate::diag::{render, Diagnostics};
use crate::span::{SourceFile, Span};
use serde_json::json;

// -- helpers -----------------------------------------------------------------

fn parse_str(src: &str) -> (File, Diagnostics) {
    parse(&SourceFile::new("t.hooks", src))
}

/// Parses `src` and insists on zero diagnostics.
fn parse_ok(src: &str) -> File {
    let (file, diags) = parse_str(src);
    assert!(
        diags.is_empty(),
        "unexpected diagnostics for {src:?}:\n{}",
        render::human(&diags, false)
    );
    file
}

/// The body of `macro m = <src>`.
fn expr(src: &str) -> Expr {
    let file = parse_ok(&format!("macro m = {src}"));
    match file.items.into_iter().next() {
        Some(Item::Macro(m)) => m.body,
        other => panic!("not a macro: {other:?}"),
    }
}

/// The only hook of `src`.
fn hook(src: &str) -> Hook {
    let file = parse_ok(src);
    match file.items.into_iter().next() {
        Some(Item::Hook(h)) => h,
        other => panic!("not a hook: {other:?}"),
    }
}

/// The actions of `hook h on p { <body> }`.
fn actions(body: &str) -> Vec<ActionKind> {
    hook(&format!("hook h on p {{\n{body}\n}}"))
        .actions
        .into_iter()
        .map(|a| a.kind)
        .collect()
}

fn e(kind: ExprKind) -> Expr {
    Expr {
        kind,
        span: Span::default(),
    }
}

fn id(name: &str) -> Ident {
    Ident {
        name: name.to_owned(),
        span: Span::default(),
    }
}

fn lit(value: &str) -> StrLit {
    StrLit {
        value: value.to_owned(),
        span: Span::default(),
    }
}

fn p(root: &str, fields: &[&str]) -> Path {
    Path {
        root: id(root),
        segments: fields
            .iter()
            .map(|f| Segment::Field((*f).to_owned()))
            .collect(),
        span: Span::default(),
    }
}

fn path(root: &str, fields: &[&str]) -> Expr {
    e(ExprKind::Path(p(root, fields)))
}

fn name(n: &str) -> Expr {
    e(ExprKind::Name(id(n)))
}

fn int(n: i64) -> Expr {
    e(ExprKind::Literal(json!(n)))
}

fn s(v: &str) -> Expr {
    e(ExprKind::Str(lit(v)))
}

fn bin(op: BinaryOp, l: Expr, r: Expr) -> Expr {
    e(ExprKind::Binary(op, Box::new(l), Box::new(r)))
}

fn un(op: UnaryOp, x: Expr) -> Expr {
    e(ExprKind::Unary(op, Box::new(x)))
}

fn re(pattern: &str, flags: &str) -> RegexLit {
    RegexLit {
        pattern: pattern.to_owned(),
        flags: flags.to_owned(),
        span: Span::default(),
        pattern_span: Span::default(),
    }
}

/// `(line, col, message)` of every diagnostic.
fn locations(src: &str) -> Vec<(u32, u32, String)> {
    let (_, diags) = parse_str(src);
    diags
        .iter()
        .map(|d| {
            let (_, line, col) = d.location().expect("syntax errors have a location");
            (line, col, d.message.clone())
        })
        .collect()
}

/// The message and help of the one syntax error of `src`.
fn one_error(src: &str) -> (String, String) {
    let (_, diags) = parse_str(src);
    assert_eq!(diags.0.len(), 1, "{}", render::human(&diags, false));
    let d = diags.0.into_iter().next().unwrap();
    assert_eq!(d.code, "syntax");
    assert!(d.file.is_some());
    (d.message, d.help.unwrap_or_default())
}

fn slice(src: &str, span: Span) -> &str {
    &src[span.range()]
}

// -- the design example --------------------------------------------------------

const DESIGN_EXAMPLE: &str = r#"
# rules/guard.hooks
schema orcs                                  # built-in catalog (default); or `schema claude-code`, or a path
import "common.hooks"                        # lists, patterns and macros from another file

list dangerous = ["rm -rf", "mkfs", "dd if="]          # literal set → aho-corasick
pattern secret = /AKIA[0-9A-Z]{16}|ghp_[A-Za-z0-9]{36}/  # named regex → regex-automata
macro is_exec  = payload.tool == "exec"                 # named condition

hook audit-requests on request.pre_dispatch at builtin::* priority 50 {
    log info "request {payload.operation} from {principal.id}"
}

hook block-dangerous on tool.pre_execute at *::* priority 10 {
    when is_exec and payload.args contains any dangerous
    abort "blocked dangerous command: {payload.args}"
}

hook narrow-child-caps on child.pre_spawn at builtin::llm {
    when payload.capabilities & 8 != 0
    set payload.capabilities = payload.capabilities & ~8
}

hook redact on tool.post_execute, request.post_dispatch at *::* fail closed {
    when payload.result matches secret
    rewrite payload.result secret -> "[REDACTED]"
}

hook external-check on tool.pre_execute at plugin::* timeout 5s fail closed {
    exec "./scripts/check.sh"
}
"#;

#[test]
fn design_example_parses() {
    let file = parse_ok(DESIGN_EXAMPLE);
    assert_eq!(file.items.len(), 10);
    let [Item::Schema(schema), Item::Import(import), Item::List(list), Item::Pattern(pattern), Item::Macro(mac), Item::Hook(audit), Item::Hook(block), Item::Hook(narrow), Item::Hook(redact), Item::Hook(external)] =
        &file.items[..]
    else {
        panic!("unexpected items: {:#?}", file.items);
    };

    assert_eq!(schema.schema, SchemaRef::Builtin(id("orcs")));
    assert_eq!(slice(DESIGN_EXAMPLE, schema.span), "schema orcs");
    assert_eq!(import.path.value, "common.hooks");
    assert_eq!(slice(DESIGN_EXAMPLE, import.path.span), "\"common.hooks\"");
    assert_eq!(list.name.name, "dangerous");
    assert_eq!(list.items, vec![s("rm -rf"), s("mkfs"), s("dd if=")]);
    assert_eq!(
        pattern.regex,
        re("AKIA[0-9A-Z]{16}|ghp_[A-Za-z0-9]{36}", "")
    );
    assert_eq!(
        slice(DESIGN_EXAMPLE, pattern.regex.pattern_span),
        "AKIA[0-9A-Z]{16}|ghp_[A-Za-z0-9]{36}"
    );
    assert_eq!(mac.name.name, "is_exec");
    assert_eq!(
        mac.body,
        bin(BinaryOp::Eq, path("payload", &["tool"]), s("exec"))
    );

    assert_eq!(audit.id.name, "audit-requests");
    assert_eq!(audit.points, vec![id("request.pre_dispatch")]);
    assert_eq!(
        audit.target.as_ref().map(|t| t.value.as_str()),
        Some("builtin::*")
    );
    assert_eq!(
        audit.options.iter().map(|o| &o.kind).collect::<Vec<_>>(),
        vec![&HookOptionKind::Priority(50)]
    );
    assert!(audit.conditions.is_empty());
    assert_eq!(
        audit.actions.iter().map(|a| &a.kind).collect::<Vec<_>>(),
        vec![&ActionKind::Log(
            id("info"),
            lit("request {payload.operation} from {principal.id}")
        )]
    );
    assert_eq!(
        slice(DESIGN_EXAMPLE, audit.header_span),
        "hook audit-requests on request.pre_dispatch at builtin::* priority 50"
    );
    assert!(slice(DESIGN_EXAMPLE, audit.span).starts_with("hook audit-requests"));
    assert!(slice(DESIGN_EXAMPLE, audit.span).ends_with('}'));

    assert_eq!(
        block.target.as_ref().map(|t| t.value.as_str()),
        Some("*::*")
    );
    assert_eq!(block.conditions.len(), 1);
    assert!(!block.conditions[0].negated);
    assert_eq!(
        block.conditions[0].expr,
        bin(
            BinaryOp::And,
            name("is_exec"),
            e(ExprKind::ContainsAny(
                Box::new(path("payload", &["args"])),
                Box::new(name("dangerous"))
            ))
        )
    );
    assert_eq!(
        slice(DESIGN_EXAMPLE, block.conditions[0].span),
        "when is_exec and payload.args contains any dangerous"
    );
    assert_eq!(
        block.actions[0].kind,
        ActionKind::Abort(Some(lit("blocked dangerous command: {payload.args}")))
    );
    assert_eq!(
        slice(DESIGN_EXAMPLE, block.actions[0].span),
        "abort \"blocked dangerous command: {payload.args}\""
    );

    assert_eq!(
        narrow.target.as_ref().map(|t| t.value.as_str()),
        Some("builtin::llm")
    );
    assert_eq!(
        narrow.conditions[0].expr,
        bin(
            BinaryOp::Ne,
            bin(BinaryOp::BitAnd, path("payload", &["capabilities"]), int(8)),
            int(0)
        )
    );
    assert_eq!(
        narrow.actions[0].kind,
        ActionKind::Set(
            p("payload", &["capabilities"]),
            bin(
                BinaryOp::BitAnd,
                path("payload", &["capabilities"]),
                un(UnaryOp::BitNot, int(8))
            )
        )
    );

    assert_eq!(
        redact.points,
        vec![id("tool.post_execute"), id("request.post_dispatch")]
    );
    assert_eq!(
        redact.options.iter().map(|o| &o.kind).collect::<Vec<_>>(),
        vec![&HookOptionKind::Fail(FailMode::Closed)]
    );
    assert_eq!(
        redact.conditions[0].expr,
        e(ExprKind::Matches(
            Box::new(path("payload", &["result"])),
            RegexRef::Name(id("secret"))
        ))
    );
    assert_eq!(
        redact.actions[0].kind,
        ActionKind::Rewrite(
            p("payload", &["result"]),
            RegexRef::Name(id("secret")),
            lit("[REDACTED]")
        )
    );

    assert_eq!(
        external.options.iter().map(|o| &o.kind).collect::<Vec<_>>(),
        vec![
            &HookOptionKind::Timeout(5_000),
            &HookOptionKind::Fail(FailMode::Closed)
        ]
    );
    assert_eq!(
        external.actions[0].kind,
        ActionKind::Exec(lit("./scripts/check.sh"), vec![])
    );
}

#[test]
fn brief_example_with_trailing_comments_parses() {
    let src = r#"schema orcs                                  # built-in catalog; or `schema "path/app.schema.toml"`
import "common.hooks"
list dangerous = ["rm -rf", "mkfs", "dd if="]          # JSON literal elements (strings, numbers, bools, null)
pattern secret = /AKIA[0-9A-Z]{16}|ghp_[A-Za-z0-9]{36}/  # regex literal /…/flags, `\/` escapes a slash; flags from [imsxU]
macro is_exec  = payload.tool == "exec"                 # named condition
"#;
    assert_eq!(parse_ok(src).items.len(), 5);
}

// -- header --------------------------------------------------------------------

#[test]
fn header_forms() {
    let h = hook("hook a_b-c on PreToolUse at lua::comp#primary priority -5 disabled timeout 500ms fail open priority 7 { }");
    assert_eq!(h.id.name, "a_b-c");
    assert_eq!(h.points, vec![id("PreToolUse")]);
    assert_eq!(
        h.target.map(|t| t.value),
        Some("lua::comp#primary".to_owned())
    );
    assert_eq!(
        h.options.into_iter().map(|o| o.kind).collect::<Vec<_>>(),
        vec![
            HookOptionKind::Priority(-5),
            HookOptionKind::Disabled,
            HookOptionKind::Timeout(500),
            HookOptionKind::Fail(FailMode::Open),
            HookOptionKind::Priority(7),
        ]
    );

    let src = r#"hook q on a.b, c at "builtin::llm" timeout 2m {}"#;
    let h = hook(src);
    assert_eq!(h.points, vec![id("a.b"), id("c")]);
    let target = h.target.expect("target");
    assert_eq!(target.value, "builtin::llm");
    assert_eq!(slice(src, target.span), "\"builtin::llm\"");
    assert_eq!(h.options[0].kind, HookOptionKind::Timeout(120_000));
    assert_eq!(
        slice(src, h.header_span),
        r#"hook q on a.b, c at "builtin::llm" timeout 2m"#
    );

    let h = hook("hook t on p timeout 1h {}");
    assert_eq!(h.options[0].kind, HookOptionKind::Timeout(3_600_000));
    let h = hook("hook t on p {}");
    assert!(h.target.is_none() && h.options.is_empty() && h.actions.is_empty());
    // Hook ids may start with a reserved word when a dash follows.
    assert_eq!(hook("hook abort-guard on p {}").id.name, "abort-guard");
}

#[test]
fn schema_forms() {
    let file = parse_ok("schema claude-code\nschema \"app/x.schema.toml\"");
    let schemas: Vec<&SchemaRef> = file
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Schema(s) => Some(&s.schema),
            _ => None,
        })
        .collect();
    assert_eq!(
        schemas,
        vec![
            &SchemaRef::Builtin(id("claude-code")),
            &SchemaRef::Path(lit("app/x.schema.toml")),
        ]
    );
}

#[test]
fn conditions_when_and_unless() {
    let h = hook("hook h on p {\n when a\n unless b\n when not c\n allow\n}");
    let conds: Vec<(bool, Expr)> = h
        .conditions
        .into_iter()
        .map(|c| (c.negated, c.expr))
        .collect();
    assert_eq!(
        conds,
        vec![
            (false, name("a")),
            (true, name("b")),
            (false, un(UnaryOp::Not, name("c")))
        ]
    );
}

// -- expressions ---------------------------------------------------------------

#[test]
fn predicate_forms() {
    let x = || path("payload", &["x"]);
    let cases: Vec<(&str, Expr)> = vec![
        ("payload.x == 1", bin(BinaryOp::Eq, x(), int(1))),
        ("payload.x != 1", bin(BinaryOp::Ne, x(), int(1))),
        ("payload.x < 1", bin(BinaryOp::Lt, x(), int(1))),
        ("payload.x <= 1", bin(BinaryOp::Le, x(), int(1))),
        ("payload.x > 1", bin(BinaryOp::Gt, x(), int(1))),
        ("payload.x >= 1", bin(BinaryOp::Ge, x(), int(1))),
        (
            "payload.x contains \"a\"",
            bin(BinaryOp::Contains, x(), s("a")),
        ),
        (
            "payload.x starts_with \"a\"",
            bin(BinaryOp::StartsWith, x(), s("a")),
        ),
        (
            "payload.x ends_with \"a\"",
            bin(BinaryOp::EndsWith, x(), s("a")),
        ),
        (
            "payload.x contains any [\"a\", 1]",
            e(ExprKind::ContainsAny(
                Box::new(x()),
                Box::new(e(ExprKind::Array(vec![s("a"), int(1)]))),
            )),
        ),
        (
            "payload.x contains any lst",
            e(ExprKind::ContainsAny(Box::new(x()), Box::new(name("lst")))),
        ),
        (
            "payload.x in [1, 2]",
            e(ExprKind::In(
                Box::new(x()),
                Box::new(e(ExprKind::Array(vec![int(1), int(2)]))),
            )),
        ),
        (
            "payload.x in lst",
            e(ExprKind::In(Box::new(x()), Box::new(name("lst")))),
        ),
        (
            "payload.x in metadata.allowed",
            e(ExprKind::In(
                Box::new(x()),
                Box::new(path("metadata", &["allowed"])),
            )),
        ),
        (
            "payload.x not in lst",
            un(
                UnaryOp::Not,
                e(ExprKind::In(Box::new(x()), Box::new(name("lst")))),
            ),
        ),
        (
            "payload.x matches /a\\/b\\d/im",
            e(ExprKind::Matches(
                Box::new(x()),
                RegexRef::Literal(re("a/b\\d", "im")),
            )),
        ),
        (
            "payload.x matches secret",
            e(ExprKind::Matches(
                Box::new(x()),
                RegexRef::Name(id("secret")),
            )),
        ),
        (
            "payload.x glob \"src/**\"",
            e(ExprKind::Glob(Box::new(x()), lit("src/**"))),
        ),
        ("payload.x exists", e(ExprKind::Exists(Box::new(x())))),
    ];
    for (src, want) in cases {
        assert_eq!(expr(src), want, "{src}");
    }
}

#[test]
fn arithmetic_forms_and_precedence() {
    let a = || name("a");
    let b = || name("b");
    let c = || name("c");
    let cases: Vec<(&str, Expr)> = vec![
        ("a | b", bin(BinaryOp::BitOr, a(), b())),
        ("a ^ b", bin(BinaryOp::BitXor, a(), b())),
        ("a & b", bin(BinaryOp::BitAnd, a(), b())),
        ("a << b", bin(BinaryOp::Shl, a(), b())),
        ("a >> b", bin(BinaryOp::Shr, a(), b())),
        ("a + b", bin(BinaryOp::Add, a(), b())),
        ("a - b", bin(BinaryOp::Sub, a(), b())),
        ("a * b", bin(BinaryOp::Mul, a(), b())),
        ("a / b", bin(BinaryOp::Div, a(), b())),
        ("a % b", bin(BinaryOp::Rem, a(), b())),
        ("-a", un(UnaryOp::Neg, a())),
        ("~a", un(UnaryOp::BitNot, a())),
        ("- -a", un(UnaryOp::Neg, un(UnaryOp::Neg, a()))),
        // Precedence, low to high: | ^ & << + *.
        (
            "a | b ^ c",
            bin(BinaryOp::BitOr, a(), bin(BinaryOp::BitXor, b(), c())),
        ),
        (
            "a ^ b & c",
            bin(BinaryOp::BitXor, a(), bin(BinaryOp::BitAnd, b(), c())),
        ),
        (
            "a & b << c",
            bin(BinaryOp::BitAnd, a(), bin(BinaryOp::Shl, b(), c())),
        ),
        (
            "a << b + c",
            bin(BinaryOp::Shl, a(), bin(BinaryOp::Add, b(), c())),
        ),
        (
            "a + b * c",
            bin(BinaryOp::Add, a(), bin(BinaryOp::Mul, b(), c())),
        ),
        (
            "a * b + c",
            bin(BinaryOp::Add, bin(BinaryOp::Mul, a(), b()), c()),
        ),
        // Left associativity.
        (
            "a - b - c",
            bin(BinaryOp::Sub, bin(BinaryOp::Sub, a(), b()), c()),
        ),
        (
            "(a - b) * c",
            bin(BinaryOp::Mul, bin(BinaryOp::Sub, a(), b()), c()),
        ),
        ("-a * b", bin(BinaryOp::Mul, un(UnaryOp::Neg, a()), b())),
        // Comparisons bind looser than bit operators.
        (
            "a & 8 != 0",
            bin(BinaryOp::Ne, bin(BinaryOp::BitAnd, a(), int(8)), int(0)),
        ),
    ];
    for (src, want) in cases {
        assert_eq!(expr(src), want, "{src}");
    }
}

#[test]
fn boolean_precedence() {
    let (a, b, c) = (|| name("a"), || name("b"), || name("c"));
    assert_eq!(
        expr("a or b and c"),
        bin(BinaryOp::Or, a(), bin(BinaryOp::And, b(), c()))
    );
    assert_eq!(
        expr("a and b or c"),
        bin(BinaryOp::Or, bin(BinaryOp::And, a(), b()), c())
    );
    assert_eq!(
        expr("not a and b"),
        bin(BinaryOp::And, un(UnaryOp::Not, a()), b())
    );
    assert_eq!(
        expr("not (a or b)"),
        un(UnaryOp::Not, bin(BinaryOp::Or, a(), b()))
    );
    assert_eq!(
        expr("not a == 1"),
        un(UnaryOp::Not, bin(BinaryOp::Eq, a(), int(1)))
    );
    assert_eq!(
        expr("a or b or c"),
        bin(BinaryOp::Or, bin(BinaryOp::Or, a(), b()), c())
    );
    assert_eq!(
        expr("a exists and not b in [1]"),
        bin(
            BinaryOp::And,
            e(ExprKind::Exists(Box::new(a()))),
            un(
                UnaryOp::Not,
                e(ExprKind::In(
                    Box::new(b()),
                    Box::new(e(ExprKind::Array(vec![int(1)])))
                ))
            )
        )
    );
}

#[test]
fn literals_and_paths() {
    assert_eq!(expr("42"), int(42));
    assert_eq!(expr("-42"), int(-42));
    assert_eq!(expr("-9223372036854775808"), int(i64::MIN));
    assert_eq!(expr("1.5"), e(ExprKind::Literal(json!(1.5))));
    assert_eq!(expr("-2e3"), e(ExprKind::Literal(json!(-2000.0))));
    assert_eq!(
        expr("18446744073709551616"),
        e(ExprKind::Literal(json!(18_446_744_073_709_551_616.0_f64)))
    );
    assert_eq!(expr("true"), e(ExprKind::Literal(json!(true))));
    assert_eq!(expr("false"), e(ExprKind::Literal(json!(false))));
    assert_eq!(expr("null"), e(ExprKind::Literal(json!(null))));
    assert_eq!(
        expr(r#""a\"b\\c\/d\n\t\r\b\f\u00e9\ud83d\ude00""#),
        s("a\"b\\c/d\n\t\r\u{8}\u{c}é😀")
    );
    assert_eq!(
        expr(r#"[1, "x", [true], {}]"#),
        e(ExprKind::Array(vec![
            int(1),
            s("x"),
            e(ExprKind::Array(vec![e(ExprKind::Literal(json!(true)))])),
            e(ExprKind::Object(vec![])),
        ]))
    );
    assert_eq!(
        expr(r#"{"k": 1, "n": payload.a,}"#),
        e(ExprKind::Object(vec![
            (lit("k"), int(1)),
            (lit("n"), path("payload", &["a"])),
        ]))
    );
    // Roots give paths even alone; other names are names.
    assert_eq!(expr("depth"), path("depth", &[]));
    assert_eq!(expr("max_depth"), path("max_depth", &[]));
    assert_eq!(expr("is_exec"), name("is_exec"));
    // A non-root name with segments is still a path (the checker reports it).
    assert_eq!(expr("foo.bar"), path("foo", &["bar"]));
    assert_eq!(
        expr(r#"payload.args[0]["x-y"].z"#),
        e(ExprKind::Path(Path {
            root: id("payload"),
            segments: vec![
                Segment::Field("args".into()),
                Segment::Index(0),
                Segment::Field("x-y".into()),
                Segment::Field("z".into()),
            ],
            span: Span::default(),
        }))
    );
    // Reserved words are fine after a dot.
    assert_eq!(
        expr("payload.context.in"),
        path("payload", &["context", "in"])
    );
}

#[test]
fn keywords_do_not_match_identifier_prefixes() {
    assert_eq!(expr("notify"), name("notify"));
    assert_eq!(expr("index"), name("index"));
    assert_eq!(expr("instance"), path("instance", &[]));
    assert_eq!(
        expr("order or android"),
        bin(BinaryOp::Or, name("order"), name("android"))
    );
    // `in_list` is not `in`: the macro ends at `x` and the rest is an error.
    let (file, diags) = parse_str("macro m = x in_list");
    assert_eq!(diags.0.len(), 1);
    assert!(matches!(&file.items[..], [Item::Macro(m)] if m.body == name("x")));
}

#[test]
fn expression_spans() {
    let src = "macro m = (a or b) and payload.x & 8 != 0";
    let file = parse_ok(src);
    let Some(Item::Macro(m)) = file.items.first() else {
        panic!()
    };
    assert_eq!(slice(src, m.body.span), "(a or b) and payload.x & 8 != 0");
    let ExprKind::Binary(BinaryOp::And, l, r) = &m.body.kind else {
        panic!()
    };
    assert_eq!(slice(src, l.span), "(a or b)");
    assert_eq!(slice(src, r.span), "payload.x & 8 != 0");
    let ExprKind::Binary(BinaryOp::Ne, bits, _) = &r.kind else {
        panic!()
    };
    assert_eq!(slice(src, bits.span), "payload.x & 8");
}

// -- actions -------------------------------------------------------------------

#[test]
fn action_forms() {
    let cases: Vec<(&str, ActionKind)> = vec![
        ("continue", ActionKind::Continue),
        ("abort", ActionKind::Abort(None)),
        ("abort \"r\"", ActionKind::Abort(Some(lit("r")))),
        ("deny", ActionKind::Abort(None)),
        ("deny \"r\"", ActionKind::Abort(Some(lit("r")))),
        ("skip", ActionKind::Skip(None)),
        (
            "skip {\"skipped\": true}",
            ActionKind::Skip(Some(e(ExprKind::Object(vec![(
                lit("skipped"),
                e(ExprKind::Literal(json!(true))),
            )])))),
        ),
        (
            "replace payload.x",
            ActionKind::Replace(path("payload", &["x"])),
        ),
        (
            "replace [1, 2]",
            ActionKind::Replace(e(ExprKind::Array(vec![int(1), int(2)]))),
        ),
        (
            "set payload.a = 1 + 2",
            ActionKind::Set(p("payload", &["a"]), bin(BinaryOp::Add, int(1), int(2))),
        ),
        ("unset metadata.k", ActionKind::Unset(p("metadata", &["k"]))),
        (
            "rewrite payload.r /a+/i -> \"b\"",
            ActionKind::Rewrite(
                p("payload", &["r"]),
                RegexRef::Literal(re("a+", "i")),
                lit("b"),
            ),
        ),
        (
            "rewrite payload.r secret -> \"b\"",
            ActionKind::Rewrite(p("payload", &["r"]), RegexRef::Name(id("secret")), lit("b")),
        ),
        (
            "prepend payload.p \"x\"",
            ActionKind::Prepend(p("payload", &["p"]), lit("x")),
        ),
        (
            "append payload.p \"x\"",
            ActionKind::Append(p("payload", &["p"]), lit("x")),
        ),
        (
            "meta reviewed = true",
            ActionKind::Meta(lit("reviewed"), e(ExprKind::Literal(json!(true)))),
        ),
        ("meta \"a.b\" = 1", ActionKind::Meta(lit("a.b"), int(1))),
        ("log warn \"t\"", ActionKind::Log(id("warn"), lit("t"))),
        ("ask", ActionKind::Ask(None)),
        ("ask \"sure?\"", ActionKind::Ask(Some(lit("sure?")))),
        ("allow", ActionKind::Allow),
        ("context \"c\"", ActionKind::Context(lit("c"))),
        ("exec \"prog\"", ActionKind::Exec(lit("prog"), vec![])),
        (
            "exec \"prog\" \"-a\" \"b\"",
            ActionKind::Exec(lit("prog"), vec![lit("-a"), lit("b")]),
        ),
        ("sh \"echo hi\"", ActionKind::Sh(lit("echo hi"))),
        (
            "webhook \"https://x.example\"",
            ActionKind::Webhook(Webhook {
                url: lit("https://x.example"),
                include: vec![],
                headers: vec![],
            }),
        ),
        (
            "webhook \"https://x.example\" include payload.tool, payload.args.path header \"X-Team\" \"ops\"",
            ActionKind::Webhook(Webhook {
                url: lit("https://x.example"),
                include: vec![p("payload", &["tool"]), p("payload", &["args", "path"])],
                headers: vec![(lit("X-Team"), lit("ops"))],
            }),
        ),
        ("call \"handler\"", ActionKind::Call(lit("handler"))),
    ];
    for (src, want) in cases {
        assert_eq!(actions(src), vec![want], "{src}");
    }
}

#[test]
fn optional_operands_do_not_swallow_the_next_action() {
    assert_eq!(
        actions("skip\nabort\nask\nallow\ndeny\ncontinue"),
        vec![
            ActionKind::Skip(None),
            ActionKind::Abort(None),
            ActionKind::Ask(None),
            ActionKind::Allow,
            ActionKind::Abort(None),
            ActionKind::Continue,
        ]
    );
    // Newlines are not significant.
    assert_eq!(
        actions("set payload.a = 1 log info \"x\" skip"),
        vec![
            ActionKind::Set(p("payload", &["a"]), int(1)),
            ActionKind::Log(id("info"), lit("x")),
            ActionKind::Skip(None),
        ]
    );
}

#[test]
fn webhook_clauses() {
    // Clauses in any order and number, over several lines; `include` and
    // `header` are not reserved: fields with those names stay usable.
    let got = actions(
        "webhook \"https://x.example\"\n    header \"A\" \"1\"\n    include payload.include, metadata.header\n    include principal.id header \"B\" \"2\"\nset payload.header = 1",
    );
    assert_eq!(
        got,
        vec![
            ActionKind::Webhook(Webhook {
                url: lit("https://x.example"),
                include: vec![
                    p("payload", &["include"]),
                    p("metadata", &["header"]),
                    p("principal", &["id"]),
                ],
                headers: vec![(lit("A"), lit("1")), (lit("B"), lit("2"))],
            }),
            ActionKind::Set(p("payload", &["header"]), int(1)),
        ]
    );
    // The action's span ends with its last clause.
    let src = "hook h on p {\n    webhook \"https://x\" include payload.a   # note\n    skip\n}";
    let h = hook(src);
    assert_eq!(
        slice(src, h.actions[0].span),
        "webhook \"https://x\" include payload.a"
    );
    let src = "hook h on p { webhook \"https://x\" header \"A\" \"1\" }";
    assert_eq!(
        slice(src, hook(src).actions[0].span),
        "webhook \"https://x\" header \"A\" \"1\""
    );
    // `include` and `header` also work as macro, list and field names.
    parse_ok("macro include = payload.header == 1\nlist header = [1]");
}

#[test]
fn action_spans_exclude_trailing_trivia() {
    let src = "hook h on p {\n    exec \"a\" \"b\"   # note\n    skip\n}";
    let h = hook(src);
    assert_eq!(slice(src, h.actions[0].span), "exec \"a\" \"b\"");
    assert_eq!(slice(src, h.actions[1].span), "skip");
}

// -- errors and recovery ---------------------------------------------------------

#[test]
fn every_syntax_error_is_reported_with_its_location() {
    let src = "\
schema orcs
hook a on p at *::* prio 10 {
    abort \"x\"
}
hook b on p {
    abrot \"x\"
}
list ok = [1]
hook c on p
    abort \"no\"
}
macro m = (a or
hook d on p { allow }
";
    let got = locations(src);
    let at: Vec<(u32, u32)> = got.iter().map(|(l, c, _)| (*l, *c)).collect();
    assert_eq!(at, vec![(2, 21), (6, 5), (10, 5), (13, 1)], "{got:#?}");
    assert!(got[0].2.contains("found `prio`"), "{}", got[0].2);
    // Items around the errors still parse.
    let (file, diags) = parse_str(src);
    assert!(diags.iter().all(|d| d.code == "syntax"));
    let kinds: Vec<&str> = file
        .items
        .iter()
        .map(|i| match i {
            Item::Schema(_) => "schema",
            Item::List(_) => "list",
            Item::Hook(_) => "hook",
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, vec!["schema", "list", "hook"]);
}

#[test]
fn error_messages_and_help() {
    let one = one_error;
    let (msg, help) = one("hook a on p prio 1 {}");
    assert!(
        msg.starts_with("expected ") && msg.contains("a hook option"),
        "{msg}"
    );
    assert_eq!(help, "did you mean `priority`?");

    let (msg, help) = one("hook a on p {\n  abrot\n}");
    assert!(
        msg.contains("an action (`abort`, `set`, `log`, …)"),
        "{msg}"
    );
    assert_eq!(help, "did you mean `abort`?");

    let (_, help) = one("hook a on p\n  abort\n}");
    assert_eq!(help, "add `{` to open the rule's body");

    let (msg, help) = one("hook a on p {\n  abort");
    assert!(msg.ends_with("found end of file"), "{msg}");
    assert_eq!(help, "add `}` to close the rule's body");

    let (_, help) = one("list in = [1]");
    assert_eq!(help, "`in` is a reserved word and cannot be used as a name");

    let (msg, _) = one("hook {}");
    assert_eq!(msg, "expected a rule id, found `{`");

    let (msg, _) = one("hook a {}");
    assert_eq!(msg, "expected `on`, found `{`");

    let (msg, _) = one("hook a on {}");
    assert_eq!(msg, "expected a hook point name, found `{`");

    let (_, help) = one("hook a on p {\n allow\n when x\n}");
    assert_eq!(
        help,
        "conditions (`when`, `unless`) must come before the actions"
    );

    let (msg, _) = one("frobnicate x");
    assert!(msg.starts_with("expected a top-level item"), "{msg}");

    let (msg, _) = one("hook a on p { when payload.x == }");
    assert_eq!(msg, "expected an expression, found `}`");

    let (msg, _) = one("hook a on p { abort \"x }");
    assert_eq!(msg, "unterminated string");

    let (msg, _) = one("pattern p = /abc");
    assert_eq!(msg, "unterminated regex");

    let (msg, help) = one("hook a on p timeout 5x {}");
    assert_eq!(msg, "invalid duration `5x`");
    assert_eq!(help, "use a number followed by ms, s, m or h");

    let (msg, _) = one("hook a on p timeout 5 {}");
    assert_eq!(msg, "invalid duration `5`");

    let (msg, _) = one("hook a on p timeout 99999999999999999999s {}");
    assert_eq!(msg, "invalid duration `99999999999999999999s`");

    let (msg, _) = one("pattern p = /abc/ig");
    assert_eq!(msg, "unknown regex flag `g`");

    let (msg, _) = one("hook a on p { when x not y }");
    assert_eq!(msg, "expected `in`, found `y`");

    let (msg, help) = one("hook a on p { when payload.x = 1 }");
    assert!(msg.ends_with("found `=`"), "{msg}");
    assert_eq!(help, "use `==` to compare values");

    // An item that ends early because its last part failed: the error is
    // where that part failed, not at the leftover text.
    let (msg, _) = one("macro m = payload.x contains any 5\nmacro n = 1");
    assert_eq!(msg, "expected a list (`[…]`) or a list name, found `5`");

    let (msg, _) = one("hook a on p { allow } junk");
    assert!(
        msg.starts_with("expected a top-level item") && msg.ends_with("found `junk`"),
        "{msg}"
    );

    let (msg, help) = one("hook a on p { webhook \"https://x\" includes payload.a }");
    assert!(msg.ends_with("found `includes`"), "{msg}");
    assert_eq!(help, "did you mean `include`?");

    let (msg, _) = one("hook a on p { webhook \"https://x\" include }");
    assert_eq!(msg, "expected a name, found `}`");

    let (msg, _) = one("hook a on p { webhook \"https://x\" header \"X-A\" }");
    assert_eq!(msg, "expected a string, found `}`");

    let (msg, _) = one("hook a on p fail maybe {}");
    assert_eq!(msg, "expected `open` or `closed`, found `maybe`");

    // Where the options or the actions end at something that is not a
    // word, every option or action is named as one.
    let (msg, _) = one("hook a on p priority 1 ; {}");
    assert_eq!(
        msg,
        "expected a hook option (`priority`, `disabled`, `fail` or `timeout`) or `{`, found `;`"
    );
    let (msg, _) = one("hook a on p { abort \"x\" ; }");
    assert_eq!(
        msg,
        "expected an action (`abort`, `set`, `log`, …) or `}`, found `;`"
    );
}

#[test]
fn invalid_escapes_point_at_the_escape() {
    let src = "import \"a\\qb\"\nimport \"\\u12\"\nimport \"\\ud800x\"";
    let (file, diags) = parse_str(src);
    assert_eq!(file.items.len(), 3, "items with bad escapes are kept");
    let spans: Vec<(&str, &str)> = diags
        .iter()
        .map(|d| (d.message.as_str(), slice(src, d.primary_span().unwrap())))
        .collect();
    assert_eq!(
        spans,
        vec![
            ("invalid escape `\\q` in string", "\\q"),
            ("invalid unicode escape in string", "\\u12"),
            ("invalid unicode escape in string", "\\ud800"),
        ]
    );
    let (line, col) = (
        diags.0[0].location().unwrap().1,
        diags.0[0].location().unwrap().2,
    );
    assert_eq!((line, col), (1, 10));
}

/// String and regex bodies are read a run of plain characters at a time,
/// and comments are trivia like blanks: escaped delimiters, a backslash at
/// the end of a line or of the file, a verbose regex over several lines,
/// and a comment between any two tokens.
#[test]
fn literal_bodies_and_comments_between_tokens() {
    let pattern = |src: &str| match parse_ok(src).items.into_iter().next() {
        Some(Item::Pattern(p)) => p.regex,
        other => panic!("not a pattern: {other:?}"),
    };
    assert_eq!(pattern(r"pattern p = /a\/b\\/i"), re(r"a/b\\", "i"));
    assert_eq!(
        pattern("pattern p = /a # one\n \\/ b/x"),
        re("a # one\n / b", "x")
    );
    assert_eq!(expr(r#""\\\"""#), s("\\\""));
    // A backslash before a line break or the end of the file escapes
    // nothing: the literal is left open.
    let (msg, _) = one_error("import \"ab\\\nimport \"c\"");
    assert_eq!(msg, "unterminated string");
    let (msg, _) = one_error("pattern p = /ab\\");
    assert_eq!(msg, "unterminated regex");

    let h = hook(
        "hook h # 1\non # 2\np # 3\n{ # 4\nwhen # 5\npayload.a # 6\n== # 7\n1 # 8\nabort # 9\n} # 10",
    );
    assert_eq!(
        h.conditions[0].expr,
        bin(BinaryOp::Eq, path("payload", &["a"]), int(1))
    );
    // `rate` followed by a comment is not a rate test but a call.
    let (msg, _) = one_error("macro m = rate#c\n(\"k\") > 1 per 1s");
    assert!(msg.ends_with("found `per`"), "{msg}");
}

/// The deepest input the pre-scan lets through to pest (72 brackets of
/// each kind, counting the rule's braces) is refused by the lowering,
/// after pest has parsed it.
fn parses_the_deepest_inputs() {
    for (open, close) in [("(", ")"), ("[", "]"), ("{\"a\": ", "}"), ("(not -", ")")] {
        let src = format!(
            "hook h on p {{ skip {}1{} }}",
            open.repeat(71),
            close.repeat(71)
        );
        let codes: Vec<_> = parse_str(&src).1.iter().map(|d| d.code).collect();
        assert_eq!(codes, vec!["nesting-limit"], "{open}");
    }
}

#[test]
fn nesting_limit_instead_of_a_crash() {
    let deep = format!("macro m = {}1{}", "(".repeat(10_000), ")".repeat(10_000));
    let src = format!("{deep}\nmacro ok = 1\n");
    let (file, diags) = parse_str(&src);
    assert_eq!(diags.0.len(), 1, "{}", render::human(&diags, false));
    assert_eq!(diags.0[0].code, "nesting-limit");
    assert_eq!(file.items.len(), 1, "parsing resumes after the deep item");

    // Just past the limit, the lowering catches it precisely.
    let at = |n: usize, open: &str, close: &str| {
        let src = format!("macro m = {}1{}", open.repeat(n), close.repeat(n));
        parse_str(&src).1.iter().map(|d| d.code).collect::<Vec<_>>()
    };
    assert!(at(64, "(", ")").is_empty());
    assert_eq!(at(65, "(", ")"), vec!["nesting-limit"]);
    assert!(at(64, "[", "]").is_empty());
    assert_eq!(at(65, "[", "]"), vec!["nesting-limit"]);
    assert_eq!(at(70, "(", ")"), vec!["nesting-limit"]);
    assert_eq!(at(73, "(", ")"), vec!["nesting-limit"]);
    assert!(at(64, "not ", "").is_empty());
    assert_eq!(at(65, "not ", ""), vec!["nesting-limit"]);
    assert_eq!(at(10_000, "not ", ""), vec!["nesting-limit"]);
    assert_eq!(at(10_000, "-", ""), vec!["nesting-limit"]);
    assert_eq!(at(10_000, "~(", ")"), vec!["nesting-limit"]);
    assert_eq!(at(10_000, "{\"a\": ", "}"), vec!["nesting-limit"]);
    // The deepest input the pre-scan lets through to pest (72 brackets,
    // counting the rule's braces) parses without exhausting the stack.
    parses_the_deepest_inputs();
}

#[test]
fn long_flat_inputs_parse_up_to_the_tree_limit() {
    let chain = |n: usize, op: &str| {
        (0..n)
            .map(|i| format!("payload.x == {i}"))
            .collect::<Vec<_>>()
            .join(op)
    };
    let file = parse_ok(&format!("macro m = {}", chain(200, " or ")));
    assert_eq!(file.items.len(), 1);
    // Longer chains would make trees too deep for later (recursive) stages.
    for src in [
        format!("macro m = {}\nmacro ok = 1", chain(2_000, " or ")),
        format!("macro m = {}\nmacro ok = 1", vec!["1"; 50_000].join(" + ")),
    ] {
        let (file, diags) = parse_str(&src);
        let got: Vec<_> = diags.iter().map(|d| (d.code, d.message.as_str())).collect();
        assert_eq!(got, vec![("nesting-limit", "expression is too long")]);
        assert_eq!(file.items.len(), 1);
    }
    let list = (0..5_000)
        .map(|i| format!("\"v{i}\""))
        .collect::<Vec<_>>()
        .join(", ");
    let file = parse_ok(&format!("list l = [{list}]"));
    let Some(Item::List(l)) = file.items.first() else {
        panic!()
    };
    assert_eq!(l.items.len(), 5_000);
}

#[test]
fn many_errors_stay_fast() {
    let src = "hook a on p { abrot }\n".repeat(3_000);
    let start = std::time::Instant::now();
    let (_, diags) = parse_str(&src);
    assert_eq!(diags.0.len(), 3_000);
    assert!(start.elapsed() < std::time::Duration::from_secs(20));
}

#[test]
fn empty_and_comment_only_files() {
    for src in ["", "   \n\t", "# only a comment", "# a\n\n# b\n"] {
        let (file, diags) = parse_str(src);
        assert!(file.items.is_empty() && diags.is_empty(), "{src:?}");
    }
}

// -- properties ------------------------------------------------------------------

mod props {
    use super::parse_str;
    use crate::span::SourceFile;
    use proptest::prelude::*;

    const TOKENS: &[&str] = &[
        "hook",
        "h-1",
        "on",
        "tool.pre_execute",
        ",",
        "at",
        "*::*",
        "lua::c#i",
        "priority",
        "-3",
        "disabled",
        "fail",
        "open",
        "closed",
        "timeout",
        "5s",
        "5x",
        "{",
        "}",
        "when",
        "unless",
        "and",
        "or",
        "not",
        "in",
        "contains",
        "any",
        "starts_with",
        "ends_with",
        "matches",
        "glob",
        "exists",
        "true",
        "false",
        "null",
        "continue",
        "abort",
        "deny",
        "skip",
        "replace",
        "set",
        "unset",
        "rewrite",
        "prepend",
        "append",
        "meta",
        "log",
        "ask",
        "allow",
        "context",
        "exec",
        "sh",
        "webhook",
        "include",
        "header",
        "call",
        "schema",
        "import",
        "list",
        "pattern",
        "macro",
        "payload.a",
        "payload[0]",
        "x",
        "=",
        "==",
        "!=",
        "<",
        "<=",
        ">",
        ">=",
        "&",
        "|",
        "^",
        "~",
        "<<",
        ">>",
        "+",
        "-",
        "*",
        "/",
        "%",
        "(",
        ")",
        "[",
        "]",
        ":",
        "->",
        "\"s\"",
        "\"\\q\"",
        "\"open",
        "/re/i",
        "/open",
        "1",
        "1.5",
        "#c\n",
        "\n",
        "\"\\ud800\"",
        "é",
        "\u{0}",
        "\\",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn never_panics_on_arbitrary_text(src in "\\PC{0,200}") {
            let _ = parse_str(&src);
        }

        /// Cut into parts and parsed on threads, a file parses to the same
        /// items and the same diagnostics, in the same order.
        #[test]
        fn parts_parse_as_the_whole(
            tokens in prop::collection::vec(prop::sample::select(TOKENS), 0..160),
            parts in 2usize..6,
        ) {
            let file = SourceFile::new("t.hooks", tokens.join(" "));
            let whole = super::parse::parse_in_parts(&file, 1);
            prop_assert_eq!(super::parse::parse_in_parts(&file, parts), whole);
        }

        #[test]
        fn never_panics_on_token_soup(tokens in prop::collection::vec(prop::sample::select(TOKENS), 0..60)) {
            let src = tokens.join(" ");
            let (_, diags) = parse_str(&src);
            for d in diags.iter() {
                prop_assert!(d.file.is_some());
                prop_assert!(!d.labels.is_empty());
                let span = d.primary_span().unwrap();
                prop_assert!(span.end as usize <= src.len());
                prop_assert!(src.is_char_boundary(span.start as usize));
                prop_assert!(src.is_char_boundary(span.end as usize));
            }
        }
    }
}

/// The reserved words the parser and the importers use are the grammar's:
/// every word of its `keyword` rule, and no other. The rule groups them by
/// first letter, one group a line: `"a" ~ ("t" | "nd" | …)`.
#[test]
fn reserved_words_are_the_grammars_keywords() {
    let grammar = include_str!("../../grammar/hooks.pest");
    let start = grammar
        .find("\nkeyword = @{")
        .expect("the grammar has a keyword rule");
    let end = start
        + grammar[start..]
            .find("~ !name_char")
            .expect("the rule ends");
    let mut in_grammar: Vec<String> = Vec::new();
    for line in grammar[start..end].lines() {
        let quoted: Vec<&str> = line.split('"').skip(1).step_by(2).collect();
        if let Some((letter, rests)) = quoted.split_first() {
            assert!(!rests.is_empty(), "a group with no word: {line}");
            in_grammar.extend(rests.iter().map(|rest| format!("{letter}{rest}")));
        }
    }
    in_grammar.sort_unstable();
    let mut reserved = super::RESERVED.to_vec();
    reserved.sort_unstable();
    assert_eq!(in_grammar, reserved);
}

/// Every reserved word is refused as a name, and a name that only begins
/// with one, or is one cut short, is not: the grammar's ordered choice
/// must not let a shorter word (`all`) stand in for a longer one it begins
/// (`allow`), and a group of words by first letter must not take its
/// letter, or part of a word, for a word.
#[test]
fn every_reserved_word_is_refused_as_a_name() {
    for word in super::RESERVED {
        let cut = (1..word.len())
            .filter_map(|n| word.get(..n))
            .filter(|prefix| !super::RESERVED.contains(prefix));
        for prefix in cut {
            let (_, diags) = parse_str(&format!("list {prefix} = [\"x\"]\n"));
            assert!(diags.0.is_empty(), "`{prefix}` (of `{word}`): {diags:?}");
        }
        let (_, diags) = parse_str(&format!("list {word} = [\"x\"]\n"));
        let helps: Vec<_> = diags.0.iter().filter_map(|d| d.help.clone()).collect();
        assert_eq!(
            helps,
            [format!(
                "`{word}` is a reserved word and cannot be used as a name"
            )],
            "`{word}`"
        );
        let (_, diags) = parse_str(&format!("list {word}s = [\"x\"]\n"));
        assert!(diags.0.is_empty(), "`{word}s`: {diags:?}");
    }
}

// -- every error of a rule, and the slips of other languages -------------------

#[test]
fn every_line_of_a_rule_after_an_error_is_read_for_its_own_errors() {
    let src = "hook a on p {\n    when payload.a == 1 && payload.b == 2\n    when payload.c || payload.d\n    unless payload.e = 3\n    when payload.ok == 1\n    abort \"x\"\n}\nhook b on p { when payload.f == 1 abort }\n";
    let (file, diags) = parse_str(src);
    let found: Vec<(String, Option<String>, (u32, u32))> = diags
        .0
        .iter()
        .map(|d| {
            let (_, line, col) = d.location().unwrap();
            (d.message.clone(), d.help.clone(), (line, col))
        })
        .collect();
    assert_eq!(
        found,
        vec![
            (
                "expected an expression, found `&`".to_owned(),
                Some("write `and`: conditions join with `and`, `or` and `not`".to_owned()),
                (2, 26),
            ),
            (
                "expected an expression, found `|`".to_owned(),
                Some("write `or`: conditions join with `and`, `or` and `not`".to_owned()),
                (3, 21),
            ),
            (
                "expected the end of the line or an operator, found `=`".to_owned(),
                Some("use `==` to compare values".to_owned()),
                (4, 22),
            ),
        ],
        "{}",
        render::human(&diags, false)
    );
    // The next rule still parses.
    assert_eq!(file.items.len(), 1);
}

#[test]
fn a_bang_names_not() {
    let (_, diags) = parse_str("hook a on p { when !payload.x abort }");
    let d = diags.0.first().expect("an error");
    assert_eq!(
        d.help.as_deref(),
        Some("write `not`: conditions join with `and`, `or` and `not`")
    );
}

/// Every `.hooks` file of the repository, one after the other in one file
/// (so that it holds errors where files end mid-item), parses the same cut
/// into parts on threads as whole.
#[test]
fn the_repositorys_rules_parse_the_same_in_parts() {
    fn hooks_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                hooks_files(&path, out);
            } else if path.extension().is_some_and(|e| e == "hooks") {
                out.push(path);
            }
        }
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["rules", "tests/fixtures", "examples"] {
        hooks_files(&root.join(dir), &mut files);
    }
    files.sort();
    assert!(files.len() > 20, "{files:?}");
    // Between files, slips a parse recovers from.
    let slips = [
        "hook a on p { when payload.a == 1 && payload.b == 2\n    abort \"x\"\n}\n",
        "hook b on p { when payload.a == \"open\n    abort\n}\n",
        "hook c on p { when payload.a == 1 abort } junk here\n",
        "hook d on p { when payload.a == 1 abort } hook e on p { when payload.b abort }\n",
        "list l = [\"a\", \"b\"\n",
        "hook f on p { when ((((((((((((((((((((((((((((((((((((((((x abort }\n",
    ];
    let text: String = files
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let text = std::fs::read_to_string(f).expect("readable");
            format!("{text}\n{}", slips[i % slips.len()])
        })
        .collect::<Vec<_>>()
        .join("\n");
    let file = SourceFile::new("all.hooks", text);
    let whole = parse::parse_in_parts(&file, 1);
    assert!(whole.0.items.len() > 100, "{}", whole.0.items.len());
    assert!(!whole.1.is_empty(), "the corpus holds some errors");
    assert_eq!(parse::cuts(&file.text, 7).len(), 8, "seven parts");
    for parts in [2, 3, 7, 64] {
        assert_eq!(parse::parse_in_parts(&file, parts), whole, "{parts} parts");
    }
}

/// pest is built without its stack probe (see `Cargo.toml`): the prescan
/// alone bounds its recursion. The deepest input it lets through parses
/// on a thread with the stack `std::thread::spawn` gives by default
/// (2 MiB), whatever the test harness's own threads get. Measured: a
/// release build needs under 256 KiB for it, a debug build under 2 MiB.
#[test]
fn the_deepest_input_parses_on_a_default_thread_stack() {
    let parsed = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(parses_the_deepest_inputs)
        .unwrap()
        .join();
    assert!(parsed.is_ok());
}
