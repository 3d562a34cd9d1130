//! A program that holds every variant of every IR enum, and its bytes
//! committed as a golden (`tests/golden/v<VERSION>/every_variant.bin`):
//! the table format is the same for every shape the IR can take, not only
//! for the shapes the golden rules happen to compile to.
//!
//! The program is not a valid table (its indices point nowhere): it is
//! encoded and decoded without validation. Regenerate the golden after a
//! deliberate format change with
//! `HOOKC_BLESS=1 cargo test --lib every_variant`.

use crate::fql::{FqlPattern, Segment as FqlSegment};
use crate::ir::{
    Action, Atom, BinaryOp, Bucket, CmpOp, Cond, Expr, FailMode, FieldMatcher, FieldPath, FqlIndex,
    Func, Keyed, LogLevel, LuaCode, Origin, PointProgram, Program, Quantifier, RateSpec, RateTest,
    RegexId, RegexSource, Root, Rule, SchemaPoint, Segment, StrMap, StringSet, Template,
    TemplatePart, UnaryOp, WordList, WordsForm, WordsTest,
};
use crate::schema::{CommandInput, EditApplication, PointKind};
use crate::table::encoding::{encode, VERSION};
use serde_json::json;
use std::collections::BTreeSet;

fn path(root: Root, segments: &[&str]) -> FieldPath {
    FieldPath {
        root,
        segments: segments
            .iter()
            .map(|s| match s.parse() {
                Ok(i) => Segment::Index(i),
                Err(_) => Segment::Field((*s).to_string()),
            })
            .collect(),
        normalized: segments.len() == 1,
    }
}

fn boxed(e: Expr) -> Box<Expr> {
    Box::new(e)
}

fn rate() -> RateTest {
    RateTest {
        key: Template {
            parts: vec![
                TemplatePart::Lit("k:".into()),
                TemplatePart::Path(path(Root::Component, &[])),
            ],
        },
        op: CmpOp::Gt,
        limit: 100.0,
        window_ms: 60_000,
        counter: 0,
    }
}

fn str_map(keys: &[&str]) -> StrMap {
    StrMap {
        keys: keys.iter().map(|k| (*k).to_string()).collect(),
        values: keys.iter().zip(0..).map(|(_, i)| vec![i, i + 1]).collect(),
        hash_key: 0x0123_4567_89ab_cdef,
        disps: vec![(0, 1), (2, u32::MAX)],
        map: vec![1, 0],
    }
}

/// A group index: key `i` names bucket `i`, as the compiler makes it.
fn keyed(keys: &[&str], buckets: Vec<Bucket>) -> Keyed {
    let mut map = str_map(keys);
    map.values = (0..).take(keys.len()).map(|i| vec![i]).collect();
    Keyed { map, buckets }
}

fn bucket(rules: &[u32]) -> Bucket {
    Bucket {
        rules: rules.to_vec(),
        untriggered: rules.get(..1).unwrap_or_default().to_vec(),
        fields: 1 << 63 | 5,
    }
}

/// Every expression variant, every unary and binary operator, every
/// function and quantifier.
fn exprs() -> Vec<Expr> {
    let field = || boxed(Expr::Path(path(Root::Payload, &["command"])));
    let binary = [
        BinaryOp::Or,
        BinaryOp::And,
        BinaryOp::Eq,
        BinaryOp::Ne,
        BinaryOp::Lt,
        BinaryOp::Le,
        BinaryOp::Gt,
        BinaryOp::Ge,
        BinaryOp::Contains,
        BinaryOp::StartsWith,
        BinaryOp::EndsWith,
        BinaryOp::BitOr,
        BinaryOp::BitXor,
        BinaryOp::BitAnd,
        BinaryOp::Shl,
        BinaryOp::Shr,
        BinaryOp::Add,
        BinaryOp::Sub,
        BinaryOp::Mul,
        BinaryOp::Div,
        BinaryOp::Rem,
    ]
    .into_iter()
    .map(|op| Expr::Binary(op, field(), boxed(Expr::Const(json!(1)))));
    let unary = [UnaryOp::Not, UnaryOp::Neg, UnaryOp::BitNot]
        .into_iter()
        .map(|op| Expr::Unary(op, field()));
    let calls = Func::ALL
        .into_iter()
        .map(|f| Expr::Call(f, (0..f.arity()).map(|_| *field()).collect()));
    let quantifiers = [Quantifier::Any, Quantifier::All].into_iter().map(|q| {
        Expr::Quantifier(
            q,
            boxed(Expr::Call(Func::Shell, vec![*field()])),
            boxed(Expr::Var(
                1,
                vec![Segment::Field("flags".into()), Segment::Index(0)],
            )),
        )
    });
    let others = [
        Expr::Const(json!({"a": [1, 2.5, null, true], "b": "ü\u{1F600}"})),
        Expr::Path(path(Root::Metadata, &["seen", "3"])),
        Expr::Template(Template {
            parts: vec![
                TemplatePart::Lit("user ".into()),
                TemplatePart::Path(path(Root::Principal, &["id"])),
                TemplatePart::Expr(Expr::Capture(field(), RegexId(1), "name".into())),
            ],
        }),
        Expr::Array(vec![Expr::Const(json!("x")), *field()]),
        Expr::Object(vec![("k".into(), Expr::Const(json!(-7)))]),
        Expr::In(field(), boxed(Expr::Const(json!(["a", "b"])))),
        Expr::ContainsAny(field(), boxed(Expr::Const(json!(["rm"])))),
        Expr::Matches(field(), RegexId(0)),
        Expr::Exists(path(Root::Child, &[])),
        Expr::Rate(rate()),
        Expr::Var(0, Vec::new()),
        Expr::Let(
            boxed(Expr::Call(Func::Lower, vec![*field()])),
            boxed(Expr::Var(0, Vec::new())),
        ),
        Expr::InSet(
            field(),
            Box::new(StringSet::new(&["a", "b"], str_map(&["a", "b"]))),
        ),
    ];
    let lists = [
        WordList::Args,
        WordList::Flags,
        WordList::Operands,
        WordList::Assignments,
        WordList::Wrappers,
    ];
    let forms = [WordsForm::Contains, WordsForm::In, WordsForm::ContainsAny];
    let words = lists
        .into_iter()
        .zip(forms.into_iter().cycle())
        .map(|(list, form)| {
            Expr::WordsAny(
                boxed(Expr::Var(0, Vec::new())),
                Box::new(WordsTest {
                    list,
                    form,
                    set: StringSet::new(&["-r", "--force"], str_map(&["-r", "--force"])),
                    short_flags: 1 << 17,
                }),
            )
        });
    binary
        .chain(unary)
        .chain(words)
        .chain(calls)
        .chain(quantifiers)
        .chain(others)
        .collect()
}

/// Every atom variant, with every comparison and every root.
fn atoms() -> Vec<Atom> {
    let p = || path(Root::Payload, &["tool"]);
    let mut atoms = vec![
        Atom::Eq(p(), json!("exec")),
        Atom::In(p(), vec![json!(1), json!("two"), json!([3])]),
        Atom::Contains(p(), json!("rm -rf")),
        Atom::ContainsAny(p(), vec![json!("mkfs"), json!({"x": 1})]),
        Atom::StartsWith(p(), "sudo ".into()),
        Atom::EndsWith(p(), ".sh".into()),
        Atom::Matches(p(), RegexId(0)),
        Atom::Rate(rate()),
    ];
    atoms.extend(
        [CmpOp::Lt, CmpOp::Le, CmpOp::Gt, CmpOp::Ge]
            .into_iter()
            .map(|op| Atom::Cmp(path(Root::Depth, &[]), op, -1.5)),
    );
    atoms.extend(Root::ALL.into_iter().map(|r| Atom::Exists(path(r, &[]))));
    atoms.extend(exprs().into_iter().map(Atom::Expr));
    atoms
}

/// Every action variant, with every log level and both kinds of Lua code.
fn actions() -> Vec<Action> {
    let p = || path(Root::Payload, &["args", "0"]);
    let t = || Template::literal("text");
    let mut actions = vec![
        Action::Continue,
        Action::Abort(t()),
        Action::Skip(Expr::Const(json!({"cached": true}))),
        Action::Replace(Expr::Path(p())),
        Action::Set(p(), Expr::Const(json!(7))),
        Action::Unset(p()),
        Action::Rewrite(p(), RegexId(0), "[$1]".into()),
        Action::Prepend(p(), t()),
        Action::Append(p(), t()),
        Action::Meta("seen".into(), Expr::Const(json!(true))),
        Action::Ask(t()),
        Action::Allow,
        Action::Context(t()),
        Action::Exec {
            program: "audit".into(),
            args: vec!["--json".into(), String::new()],
            shell: false,
        },
        Action::Exec {
            program: "echo hi | wc".into(),
            args: Vec::new(),
            shell: true,
        },
        Action::Webhook {
            url: "https://example.test/hook".into(),
            include: vec![p(), path(Root::Principal, &["id"])],
            headers: vec![("x-team".into(), "sec".into())],
        },
        Action::Call("native".into()),
        Action::Lua(LuaCode::File("hooks/audit.lua".into())),
        Action::Lua(LuaCode::Inline("function(ctx) end".into())),
        Action::Trace {
            file: "trace.log".into(),
            fields: vec![p()],
        },
        Action::Output("hookSpecificOutput.reason".into(), Expr::Template(t())),
    ];
    actions.extend(
        [
            LogLevel::Trace,
            LogLevel::Debug,
            LogLevel::Info,
            LogLevel::Warn,
            LogLevel::Error,
        ]
        .into_iter()
        .map(|level| Action::Log(level, t())),
    );
    actions
}

fn rules() -> Vec<Rule> {
    let target = |scope: FqlSegment, child, instance| FqlPattern {
        scope,
        target: FqlSegment::Exact("llm".into()),
        child,
        instance,
    };
    let rule = |id: &str, target, fail, cond| Rule {
        id: id.into(),
        target,
        priority: -3,
        enabled: true,
        fail,
        timeout_ms: Some(1500),
        cond,
        actions: actions(),
        origin: Origin {
            file: 0,
            line: 4,
            col: 1,
        },
        cond_origins: vec![Origin {
            file: 1,
            line: 9,
            col: 12,
        }],
        trigger: Some(0),
    };
    vec![
        rule(
            "all-conditions",
            target(FqlSegment::Exact("builtin".into()), None, None),
            FailMode::Open,
            Cond::All(vec![
                Cond::True,
                Cond::Atom(0),
                Cond::Not(Box::new(Cond::Any(vec![Cond::Atom(1), Cond::Atom(2)]))),
            ]),
        ),
        Rule {
            enabled: false,
            timeout_ms: None,
            trigger: None,
            cond_origins: Vec::new(),
            ..rule(
                "closed",
                target(
                    FqlSegment::Any,
                    Some(FqlSegment::Any),
                    Some(FqlSegment::Exact("main".into())),
                ),
                FailMode::Closed,
                Cond::True,
            )
        },
    ]
}

fn point(name: &str, kind: PointKind, edits: EditApplication) -> PointProgram {
    PointProgram {
        name: name.into(),
        kind,
        edits,
        rules: rules(),
        index: FqlIndex {
            exact: keyed(&["builtin::llm"], vec![bucket(&[0])]),
            scope: Keyed::default(),
            target: keyed(&["llm", "exec"], vec![bucket(&[1]), bucket(&[])]),
            any: bucket(&[0, 1]),
        },
        atoms: atoms(),
        atom_field: vec![0, crate::ir::NO_FIELD],
        fields: vec![FieldMatcher {
            path: path(Root::Payload, &["tool"]),
            bulk: vec![0, 1],
            eq: str_map(&["exec", "read"]),
            dfa: Some(0),
            dfa_atoms: vec![6],
            literals: vec!["rm -rf".into(), "mkfs".into()],
            literal_atoms: vec![vec![2], Vec::new()],
            literal_checks: vec![Vec::new(), vec![6]],
        }],
        triggers: vec![vec![0], Vec::new()],
    }
}

/// The program: every variant of every enum the program section holds.
pub(in crate::table) fn program() -> Program {
    let edits = [
        EditApplication::AsEdited,
        EditApplication::Mirror {
            text: "content".into(),
            field: "response".into(),
        },
        EditApplication::Json {
            text: "content".into(),
            field: "parameters".into(),
        },
        EditApplication::Ignore {
            text: "content".into(),
        },
    ];
    let kinds = [
        PointKind::Pre,
        PointKind::Post,
        PointKind::Event,
        PointKind::Pre,
    ];
    let schema_points: Vec<SchemaPoint> = kinds
        .into_iter()
        .zip(edits)
        .zip(["a.pre", "b.post", "c.event", "d.pre"])
        .map(|((kind, edits), name)| SchemaPoint {
            name: name.into(),
            kind,
            edits,
        })
        .collect();
    Program {
        schema: "every-variant".into(),
        points: schema_points
            .iter()
            .map(|p| point(&p.name, p.kind, p.edits.clone()))
            .collect(),
        schema_points,
        regexes: vec![
            RegexSource {
                pattern: r"curl\s+\S+".into(),
                flags: String::new(),
            },
            RegexSource {
                pattern: "(?P<name>[a-z]+)".into(),
                flags: "imsxU".into(),
            },
        ],
        regex_dfas: vec![1, crate::ir::NO_DFA],
        regex_needs: vec![vec!["curl".into(), "wget".into()], Vec::new()],
        files: vec!["a.hooks".into(), "dir/b.hooks".into()],
        rates: vec![RateSpec {
            window_ms: 60_000,
            keep: 101,
        }],
        // One per program: `Context`, the default, is the golden rules'.
        command_input: CommandInput::Payload,
        source_digest: "ab".repeat(32),
    }
}

/// The name of every variant the program holds, `Type::Variant`. The
/// matches are exhaustive: a variant added to the IR fails to compile here
/// until it is named, and [`EVERY_VARIANT`] then fails the test until the
/// program holds it.
fn variants(program: &Program) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    seen.insert(format!("CommandInput::{:?}", program.command_input));
    for point in &program.schema_points {
        seen.insert(format!("PointKind::{}", point.kind));
        seen.insert(edit_name(&point.edits).to_string());
    }
    for point in &program.points {
        for rule in &point.rules {
            seen.insert(format!("FailMode::{:?}", rule.fail));
            for segment in [&rule.target.scope, &rule.target.target]
                .into_iter()
                .chain(&rule.target.child)
                .chain(&rule.target.instance)
            {
                seen.insert(match segment {
                    FqlSegment::Any => "fql::Segment::Any".into(),
                    FqlSegment::Exact(_) => "fql::Segment::Exact".into(),
                });
            }
            cond(&rule.cond, &mut seen);
            for a in &rule.actions {
                action(a, &mut seen);
            }
        }
        for a in &point.atoms {
            atom(a, &mut seen);
        }
    }
    seen
}

fn edit_name(edits: &EditApplication) -> &'static str {
    match edits {
        EditApplication::AsEdited => "EditApplication::AsEdited",
        EditApplication::Mirror { .. } => "EditApplication::Mirror",
        EditApplication::Json { .. } => "EditApplication::Json",
        EditApplication::Ignore { .. } => "EditApplication::Ignore",
    }
}

fn cond(c: &Cond, seen: &mut BTreeSet<String>) {
    let name = match c {
        Cond::True => "True",
        Cond::Atom(_) => "Atom",
        Cond::Not(inner) => {
            cond(inner, seen);
            "Not"
        }
        Cond::All(cs) => {
            cs.iter().for_each(|c| cond(c, seen));
            "All"
        }
        Cond::Any(cs) => {
            cs.iter().for_each(|c| cond(c, seen));
            "Any"
        }
    };
    seen.insert(format!("Cond::{name}"));
}

fn field_path(p: &FieldPath, seen: &mut BTreeSet<String>) {
    seen.insert(format!("Root::{}", p.root.as_str()));
    for s in &p.segments {
        seen.insert(match s {
            Segment::Field(_) => "Segment::Field".into(),
            Segment::Index(_) => "Segment::Index".into(),
        });
    }
}

fn template(t: &Template, seen: &mut BTreeSet<String>) {
    for part in &t.parts {
        let name = match part {
            TemplatePart::Lit(_) => "Lit",
            TemplatePart::Path(p) => {
                field_path(p, seen);
                "Path"
            }
            TemplatePart::Expr(e) => {
                expr(e, seen);
                "Expr"
            }
        };
        seen.insert(format!("TemplatePart::{name}"));
    }
}

fn cmp_name(op: CmpOp) -> String {
    let name = match op {
        CmpOp::Lt => "Lt",
        CmpOp::Le => "Le",
        CmpOp::Gt => "Gt",
        CmpOp::Ge => "Ge",
    };
    format!("CmpOp::{name}")
}

fn atom(a: &Atom, seen: &mut BTreeSet<String>) {
    if let Some(p) = a.field() {
        field_path(p, seen);
    }
    let name = match a {
        Atom::Eq(..) => "Eq",
        Atom::In(..) => "In",
        Atom::Cmp(_, op, _) => {
            seen.insert(cmp_name(*op));
            "Cmp"
        }
        Atom::Contains(..) => "Contains",
        Atom::ContainsAny(..) => "ContainsAny",
        Atom::StartsWith(..) => "StartsWith",
        Atom::EndsWith(..) => "EndsWith",
        Atom::Matches(..) => "Matches",
        Atom::Exists(_) => "Exists",
        Atom::Rate(r) => {
            rate_test(r, seen);
            "Rate"
        }
        Atom::Expr(e) => {
            expr(e, seen);
            "Expr"
        }
    };
    seen.insert(format!("Atom::{name}"));
}

fn rate_test(r: &RateTest, seen: &mut BTreeSet<String>) {
    seen.insert(cmp_name(r.op));
    template(&r.key, seen);
}

fn expr(e: &Expr, seen: &mut BTreeSet<String>) {
    let mut sub = |e: &Expr| expr(e, seen);
    let name = match e {
        Expr::Const(_) => "Const",
        Expr::Path(_) => "Path",
        Expr::Template(_) => "Template",
        Expr::Array(items) => {
            items.iter().for_each(&mut sub);
            "Array"
        }
        Expr::Object(fields) => {
            fields.iter().for_each(|(_, e)| sub(e));
            "Object"
        }
        Expr::Unary(_, e) => {
            sub(e);
            "Unary"
        }
        Expr::Binary(_, a, b) => {
            sub(a);
            sub(b);
            "Binary"
        }
        Expr::In(a, b) => {
            sub(a);
            sub(b);
            "In"
        }
        Expr::ContainsAny(a, b) => {
            sub(a);
            sub(b);
            "ContainsAny"
        }
        Expr::Matches(a, _) => {
            sub(a);
            "Matches"
        }
        Expr::Exists(_) => "Exists",
        Expr::Rate(_) => "Rate",
        Expr::Quantifier(_, over, body) => {
            sub(over);
            sub(body);
            "Quantifier"
        }
        Expr::Var(..) => "Var",
        Expr::Call(_, args) => {
            args.iter().for_each(&mut sub);
            "Call"
        }
        Expr::Capture(subject, ..) => {
            sub(subject);
            "Capture"
        }
        Expr::WordsAny(command, _) => {
            sub(command);
            "WordsAny"
        }
        Expr::Let(value, body) => {
            sub(value);
            sub(body);
            "Let"
        }
        Expr::InSet(value, _) => {
            sub(value);
            "InSet"
        }
    };
    seen.insert(format!("Expr::{name}"));
    match e {
        Expr::Path(p) | Expr::Exists(p) => field_path(p, seen),
        Expr::Template(t) => template(t, seen),
        Expr::Rate(r) => rate_test(r, seen),
        Expr::Unary(op, _) => {
            let op = match op {
                UnaryOp::Not => "Not",
                UnaryOp::Neg => "Neg",
                UnaryOp::BitNot => "BitNot",
            };
            seen.insert(format!("UnaryOp::{op}"));
        }
        Expr::Binary(op, ..) => {
            seen.insert(format!("BinaryOp::{}", op.as_str()));
        }
        Expr::Quantifier(q, ..) => {
            seen.insert(format!("Quantifier::{}", q.keyword()));
        }
        Expr::Var(_, segments) => segments.iter().for_each(|s| {
            seen.insert(match s {
                Segment::Field(_) => "Segment::Field".into(),
                Segment::Index(_) => "Segment::Index".into(),
            });
        }),
        Expr::Call(f, _) => {
            seen.insert(format!("Func::{}", f.as_str()));
        }
        Expr::WordsAny(_, test) => {
            seen.insert(format!("WordList::{}", test.list.name()));
            let form = match test.form {
                WordsForm::Contains => "Contains",
                WordsForm::In => "In",
                WordsForm::ContainsAny => "ContainsAny",
            };
            seen.insert(format!("WordsForm::{form}"));
        }
        _ => {}
    }
}

fn action(a: &Action, seen: &mut BTreeSet<String>) {
    let name = match a {
        Action::Continue => "Continue",
        Action::Abort(_) => "Abort",
        Action::Skip(_) => "Skip",
        Action::Replace(_) => "Replace",
        Action::Set(..) => "Set",
        Action::Unset(_) => "Unset",
        Action::Rewrite(..) => "Rewrite",
        Action::Prepend(..) => "Prepend",
        Action::Append(..) => "Append",
        Action::Meta(..) => "Meta",
        Action::Log(level, _) => {
            seen.insert(format!("LogLevel::{}", level.as_str()));
            "Log"
        }
        Action::Ask(_) => "Ask",
        Action::Allow => "Allow",
        Action::Context(_) => "Context",
        Action::Exec { .. } => "Exec",
        Action::Webhook { .. } => "Webhook",
        Action::Call(_) => "Call",
        Action::Lua(code) => {
            seen.insert(
                match code {
                    LuaCode::File(_) => "LuaCode::File",
                    LuaCode::Inline(_) => "LuaCode::Inline",
                }
                .into(),
            );
            "Lua"
        }
        Action::Trace { .. } => "Trace",
        Action::Output(..) => "Output",
    };
    seen.insert(format!("Action::{name}"));
}

/// What [`variants`] must find: every variant of every enum but
/// `CommandInput::Context` (one per program; the golden rules hold it).
const EVERY_VARIANT: &[&str] = &[
    "CommandInput::Payload",
    "PointKind::pre",
    "PointKind::post",
    "PointKind::event",
    "EditApplication::AsEdited",
    "EditApplication::Mirror",
    "EditApplication::Json",
    "EditApplication::Ignore",
    "FailMode::Open",
    "FailMode::Closed",
    "fql::Segment::Any",
    "fql::Segment::Exact",
    "Cond::True",
    "Cond::Atom",
    "Cond::Not",
    "Cond::All",
    "Cond::Any",
    "Segment::Field",
    "Segment::Index",
    "TemplatePart::Lit",
    "TemplatePart::Path",
    "TemplatePart::Expr",
    "CmpOp::Lt",
    "CmpOp::Le",
    "CmpOp::Gt",
    "CmpOp::Ge",
    "UnaryOp::Not",
    "UnaryOp::Neg",
    "UnaryOp::BitNot",
    "Quantifier::any",
    "Quantifier::all",
    "LuaCode::File",
    "LuaCode::Inline",
    "Atom::Eq",
    "Atom::In",
    "Atom::Cmp",
    "Atom::Contains",
    "Atom::ContainsAny",
    "Atom::StartsWith",
    "Atom::EndsWith",
    "Atom::Matches",
    "Atom::Exists",
    "Atom::Rate",
    "Atom::Expr",
    "Expr::Const",
    "Expr::Path",
    "Expr::Template",
    "Expr::Array",
    "Expr::Object",
    "Expr::Unary",
    "Expr::Binary",
    "Expr::In",
    "Expr::ContainsAny",
    "Expr::Matches",
    "Expr::Exists",
    "Expr::Rate",
    "Expr::Quantifier",
    "Expr::Var",
    "Expr::Call",
    "Expr::Capture",
    "Expr::WordsAny",
    "Expr::Let",
    "Expr::InSet",
    "WordList::args",
    "WordList::flags",
    "WordList::operands",
    "WordList::assignments",
    "WordList::wrappers",
    "WordsForm::Contains",
    "WordsForm::In",
    "WordsForm::ContainsAny",
    "Action::Continue",
    "Action::Abort",
    "Action::Skip",
    "Action::Replace",
    "Action::Set",
    "Action::Unset",
    "Action::Rewrite",
    "Action::Prepend",
    "Action::Append",
    "Action::Meta",
    "Action::Log",
    "Action::Ask",
    "Action::Allow",
    "Action::Context",
    "Action::Exec",
    "Action::Webhook",
    "Action::Call",
    "Action::Lua",
    "Action::Trace",
    "Action::Output",
];

/// `program` as a table gives it back: its point index's and equality
/// maps' keys found by the table's own hash tables, not a perfect hash.
pub(in crate::table) fn unhashed(mut program: Program) -> Program {
    let strip = |map: &mut StrMap| *map = StrMap::unhashed(map.keys.clone(), map.values.clone());
    for point in &mut program.points {
        for keyed in [
            &mut point.index.exact,
            &mut point.index.scope,
            &mut point.index.target,
        ] {
            strip(&mut keyed.map);
        }
        for field in &mut point.fields {
            strip(&mut field.eq);
        }
    }
    program
}

#[test]
fn the_program_holds_every_variant() {
    let mut expected: BTreeSet<String> = EVERY_VARIANT.iter().map(|v| v.to_string()).collect();
    let names = |prefix: &str, all: &mut dyn Iterator<Item = &'static str>| {
        all.map(|n| format!("{prefix}::{n}")).collect::<Vec<_>>()
    };
    expected.extend(names("Root", &mut Root::ALL.into_iter().map(Root::as_str)));
    expected.extend(names("Func", &mut Func::ALL.into_iter().map(Func::as_str)));
    expected.extend(names(
        "LogLevel",
        &mut ["trace", "debug", "info", "warn", "error"].into_iter(),
    ));
    expected.extend(names(
        "BinaryOp",
        &mut [
            "or",
            "and",
            "==",
            "!=",
            "<",
            "<=",
            ">",
            ">=",
            "contains",
            "starts_with",
            "ends_with",
            "|",
            "^",
            "&",
            "<<",
            ">>",
            "+",
            "-",
            "*",
            "/",
            "%",
        ]
        .into_iter(),
    ));
    let seen = variants(&program());
    let missing: Vec<_> = expected.difference(&seen).collect();
    assert!(missing.is_empty(), "the program lacks {missing:?}");
    let unlisted: Vec<_> = seen.difference(&expected).collect();
    assert!(unlisted.is_empty(), "list {unlisted:?} in EVERY_VARIANT");
}

const GOLDEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden");

/// The program's bytes are the committed golden's of this version, and
/// decode to the program again.
#[test]
fn every_variant_encodes_to_the_golden_bytes_and_back() {
    let path = format!("{GOLDEN}/v{VERSION}/every_variant.bin");
    let bytes = encode(&program(), &[]);
    if std::env::var_os("HOOKC_BLESS").is_some() {
        std::fs::write(&path, &bytes).unwrap();
    }
    let golden = std::fs::read(&path).unwrap_or_else(|e| {
        panic!("{path}: {e}; bless it: HOOKC_BLESS=1 cargo test --lib every_variant")
    });
    assert!(bytes == golden, "the encoding of {path} changed");
    assert_eq!(
        crate::table::decode_unchecked(&golden).unwrap(),
        unhashed(program())
    );
}
