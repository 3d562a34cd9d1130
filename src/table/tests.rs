use super::encoding::{pad, ENDIAN_CHECK};
use super::*;
use crate::ir::{Bucket, Cond, FqlIndex, Origin, PointProgram, Program, Rule};
use crate::schema::PointKind;

pub(super) mod every_variant;
mod file;

fn sample() -> Program {
    let rule = |id: &str, cond: Cond| Rule {
        id: id.to_string(),
        target: crate::fql::FqlPattern::any(),
        priority: 100,
        enabled: true,
        fail: crate::ir::FailMode::Open,
        timeout_ms: None,
        cond,
        actions: vec![crate::ir::Action::Abort(crate::ir::Template::literal("no"))],
        origin: Origin::default(),
        cond_origins: Vec::new(),
        trigger: None,
    };
    Program {
        schema: "orcs".into(),
        schema_points: ["tool.pre_execute", "tool.post_execute"]
            .into_iter()
            .zip([PointKind::Pre, PointKind::Post])
            .map(|(name, kind)| crate::ir::SchemaPoint {
                name: name.into(),
                kind,
                edits: crate::schema::EditApplication::AsEdited,
            })
            .collect(),
        points: vec![PointProgram {
            name: "tool.pre_execute".into(),
            kind: PointKind::Pre,
            edits: crate::schema::EditApplication::AsEdited,
            rules: vec![rule("a", Cond::Atom(0)), rule("b", Cond::True)],
            index: FqlIndex {
                any: Bucket {
                    rules: vec![0, 1],
                    untriggered: vec![0, 1],
                    fields: 0,
                },
                ..FqlIndex::default()
            },
            atoms: vec![crate::ir::Atom::Eq(
                crate::ir::FieldPath {
                    root: crate::ir::Root::Payload,
                    segments: vec![crate::ir::Segment::Field("tool".into())],
                    normalized: false,
                },
                serde_json::json!("exec"),
            )],
            atom_field: vec![crate::ir::NO_FIELD],
            fields: vec![],
            triggers: vec![vec![]],
        }],
        regexes: vec![],
        files: vec!["t.hooks".into()],
        rates: Vec::new(),
        command_input: crate::schema::CommandInput::Context,
        source_digest: String::new(),
        regex_dfas: Vec::new(),
        regex_needs: Vec::new(),
    }
}

/// A table with the given body, and a correct header and checksum.
fn with_body(body: &[u8]) -> Vec<u8> {
    let mut rest = body.to_vec();
    pad(&mut rest);
    let mut out = Vec::new();
    out.extend_from_slice(LABEL);
    out.extend_from_slice(&ENDIAN_CHECK.to_ne_bytes());
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend_from_slice(&crc32fast::hash(&rest).to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&rest);
    out
}

#[test]
fn round_trips() {
    let table = Table::from_program(sample()).unwrap();
    assert_eq!(table.program(), &sample());
    let bytes = table.to_bytes();
    assert_eq!(bytes.len() % 4, 0);
    let back = Table::from_bytes(&bytes).unwrap();
    assert_eq!(back.program(), table.program());
    assert_eq!(back.to_bytes(), bytes);
}

/// The counts `hookc compile` prints are read in place, and agree with the
/// whole program: a rule on two points is one rule, on two points.
#[test]
fn rule_and_point_counts_agree_with_the_program() {
    const RULES: &str = r#"
hook both on tool.pre_execute, tool.post_execute at *::* { log info "x" }
hook pre on tool.pre_execute at *::* { abort "no" }
hook child on child.pre_spawn at *::* { continue }
"#;
    let table = crate::compile_str("a.hooks", RULES).unwrap().table;
    // Counted on a fresh copy, before anything decodes the program.
    let copy = Table::from_bytes(&table.to_bytes()).unwrap();
    assert_eq!((copy.rule_count(), copy.point_count()), (3, 3));
    assert_eq!(copy.rule_entries(), 4);
    assert_eq!(copy.point_count(), copy.program().points.len());
}

/// A regex inside an expression has a DFA section, read (checked and
/// validated) the first time it is searched; a text without any of the
/// literals every match needs is answered before that. So `ls` never
/// reads the section, and a text that may match does, whatever the case
/// of its letters; non-ASCII text always does (`\u{212A}` is a `k` to
/// `(?i)`).
#[test]
fn a_text_without_what_a_regex_needs_never_reads_its_dfa() {
    const RULES: &str = r#"
hook no-policy on tool.pre_execute at *::* {
    when any c in shell(payload.args): any a in c.args: a matches /(?i)(^|\/)\.hookc(\/|$)/
    abort "the policy"
}
"#;
    for (args, reason, read) in [
        ("ls -la src", None, false),
        ("cat hookc/x a.hook", None, false),
        ("rm -rf .HooKC/rules.tbl", Some("the policy"), true),
        ("cat a/.hookcx", None, true),
        ("rm -rf .hoo\u{212A}c", Some("the policy"), true),
    ] {
        let table = crate::compile_str("a.hooks", RULES).unwrap().table;
        // Read on a copy: reading the whole program validates (and so
        // reads) every DFA.
        let copy = Table::from_bytes(&table.to_bytes()).unwrap();
        assert_eq!(copy.program().regex_needs, [[".hookc"]]);
        let mut scratch = table.scratch();
        let mut ctx = crate::HookContext::new(
            "tool.pre_execute",
            "a::b",
            serde_json::json!({"tool": "exec", "args": args}),
        );
        let target = crate::Target::new("a::b");
        let outcome = table.dispatch(&mut scratch, "tool.pre_execute", &target, &mut ctx);
        assert_eq!(outcome.reason(), reason, "{args}");
        let dfas = &table.loaded().dfas;
        assert_eq!(dfas.len(), 1, "the regex has a DFA section");
        assert_eq!(dfas[0].is_read(), read, "{args}");
    }
}

/// The sample table's bytes, and the words of its first point's block.
fn sample_and_its_point() -> (Vec<u8>, std::ops::Range<u32>) {
    let bytes = Table::from_program(sample()).unwrap().to_bytes();
    let program_len = u32::from_le_bytes(bytes[20..24].try_into().unwrap()) as usize;
    let section = bytemuck::cast_slice::<u8, u32>(&bytes[HEADER_LEN..HEADER_LEN + program_len]);
    let point = ProgramLayout::read(section).unwrap().points[0].block_words();
    (bytes, point)
}

/// `bytes` with slot `slot` of the point block at `point` starting far
/// outside the block (its start is the block's word 1 + 2 × `slot`), and
/// the checksum fixed.
fn with_slot_out_of_its_block(bytes: &[u8], point: &std::ops::Range<u32>, slot: usize) -> Vec<u8> {
    let mut crafted = bytes.to_vec();
    let at = HEADER_LEN + 4 * (point.start as usize + 1 + 2 * slot);
    crafted[at..at + 4].copy_from_slice(&0x00ff_ffffu32.to_ne_bytes());
    super::encoding::reseal(&mut crafted).unwrap();
    crafted
}

/// What dispatching `{"tool": tool}` at `tool.pre_execute` on `a::b`
/// comes to: whether it aborts, its reason and its warnings.
fn dispatch_tool(table: &Table, tool: &str) -> (bool, Option<String>, Vec<String>) {
    let mut scratch = table.scratch();
    let mut ctx = crate::HookContext::new(
        "tool.pre_execute",
        "a::b",
        serde_json::json!({ "tool": tool }),
    );
    let target = crate::Target::new("a::b");
    let outcome = table.dispatch(&mut scratch, "tool.pre_execute", &target, &mut ctx);
    (
        outcome.is_abort(),
        outcome.reason().map(str::to_string),
        outcome.warnings().to_vec(),
    )
}

/// A load reads the meta block and no rule, id or group key of a point: a
/// point block whose ids do not read loads, and its first dispatch is an
/// abort that says the table is corrupted there, with a warning, and so
/// is every one after; `validate` finds it at once.
#[test]
fn a_point_block_is_read_by_its_first_dispatch() {
    let (bytes, point) = sample_and_its_point();
    // The rule ids' slot.
    let crafted = with_slot_out_of_its_block(&bytes, &point, 2);
    let table = Table::from_bytes(&crafted).expect("a load does not read a point's ids");
    let mut scratch = table.scratch();
    let target = crate::Target::new("a::b");
    for _ in 0..2 {
        let mut ctx = crate::HookContext::new(
            "tool.pre_execute",
            "a::b",
            serde_json::json!({"tool": "exec"}),
        );
        let outcome = table.dispatch(&mut scratch, "tool.pre_execute", &target, &mut ctx);
        assert!(outcome.is_abort());
        let reason = outcome.reason().unwrap();
        assert!(
            reason.starts_with("corrupted table: point `tool.pre_execute`"),
            "{reason}"
        );
        assert_eq!(outcome.warnings(), [reason.to_string()]);
        assert_eq!(outcome.decision(), Some(crate::Decision::Deny));
    }
    // A point without rules there is not touched.
    let mut ctx = crate::HookContext::new("tool.post_execute", "a::b", serde_json::json!({}));
    let outcome = table.dispatch(&mut scratch, "tool.post_execute", &target, &mut ctx);
    assert!(outcome.is_continue());
    assert!(matches!(
        table.validate().unwrap_err().kind(),
        LoadErrorKind::Decode(m) if m.contains("point `tool.pre_execute`")
    ));
    assert!(Table::from_program(sample()).unwrap().validate().is_ok());
}

/// The slots a dispatch reads at every candidate (priorities, atom fields,
/// triggers, groups, `*::*`) and the field blocks are sliced when the table
/// loads, before the block's checksum is checked: one that does not read
/// still loads, and the point's first dispatch aborts and says so, as for
/// any other slot.
#[test]
fn a_hot_slot_that_does_not_read_is_refused_by_the_first_dispatch() {
    let (bytes, point) = sample_and_its_point();
    // PRIORITIES, ATOM_FIELD, TRIGGERS, BUCKETS, ANY, FIELDS.
    for slot in [1, 5, 6, 7, 12, 13] {
        let crafted = with_slot_out_of_its_block(&bytes, &point, slot);
        let table = Table::from_bytes(&crafted).expect("a load does not refuse a point block");
        let (aborted, reason, _) = dispatch_tool(&table, "exec");
        assert!(aborted, "slot {slot}");
        let reason = reason.unwrap();
        assert!(
            reason.starts_with("corrupted table: point `tool.pre_execute`")
                && reason.contains(&format!("slot {slot} is out of its block")),
            "slot {slot}: {reason}"
        );
    }
}

/// A bit flipped in a point block (its checksum left as it was) is found
/// the first time the point is dispatched, which aborts and says so; a
/// load does not check the block's checksum, and `validate` finds it at
/// once.
#[test]
fn a_point_block_is_checked_by_its_first_dispatch() {
    let (bytes, point) = sample_and_its_point();
    let mut flipped = bytes.clone();
    // The last byte of the point block.
    flipped[HEADER_LEN + 4 * point.end as usize - 1] ^= 0x10;
    let table = Table::from_bytes(&flipped).expect("a load does not check point blocks");
    let reason = dispatch_tool(&table, "exec").1.unwrap();
    assert!(
        reason.contains("point `tool.pre_execute`") && reason.contains("checksum"),
        "{reason}"
    );
    assert!(matches!(
        table.validate().unwrap_err().kind(),
        LoadErrorKind::Decode(m) if m.contains("checksum")
    ));
}

/// A rule's body (its actions) is decoded when the rule first fires: one
/// whose body does not decode is never read while the rule does not
/// match, and ends the first dispatch it fires in with an abort that
/// names it; `validate` finds it at once.
#[test]
fn a_rules_body_is_decoded_when_it_first_fires() {
    let mut program = sample();
    // Rule `a` fires for the tool `exec`; rule `b` for every event.
    program.points[0].rules[0].actions = vec![crate::ir::Action::Abort(
        crate::ir::Template::literal("MARKMARK"),
    )];
    let bytes = Table::from_program(program).unwrap().to_bytes();
    let at = bytes.windows(8).position(|w| w == b"MARKMARK").unwrap();
    // The reason's length, a varint just before it: say it is longer
    // than the blob.
    let mut crafted = bytes.clone();
    crafted[at - 1] = 0x7f;
    super::encoding::reseal(&mut crafted).unwrap();
    let table = Table::from_bytes(&crafted).unwrap();
    // `a` is a candidate and does not match: its body is not read.
    let (_, reason, warnings) = dispatch_tool(&table, "read");
    assert_eq!((reason.as_deref(), warnings.len()), (Some("no"), 0));
    let reason = dispatch_tool(&table, "exec").1.unwrap_or_default();
    assert!(
        reason.starts_with("corrupted table: rule `a` of point `tool.pre_execute`"),
        "{reason}"
    );
    assert!(table.validate().is_err());
}

/// The sample table with rule `a`'s timeout set to a marker, its bytes,
/// and where the words of its head start (five words before the marker's
/// low word: the flags, then the target's four segments).
fn sample_with_head_marked(cond: Cond) -> (Vec<u8>, usize) {
    with_head_marked(sample(), 0, cond)
}

/// [`sample_with_head_marked`] of the first rule of `program`'s point
/// `point`.
fn with_head_marked(mut program: Program, point: usize, cond: Cond) -> (Vec<u8>, usize) {
    const MARKER: u64 = 0x5a5a_1234_7e7e_abcd;
    program.points[point].rules[0].timeout_ms = Some(MARKER);
    program.points[point].rules[0].cond = cond;
    let bytes = Table::from_program(program).unwrap().to_bytes();
    let mut marker = (MARKER as u32).to_ne_bytes().to_vec();
    marker.extend(((MARKER >> 32) as u32).to_ne_bytes());
    let at = bytes.windows(8).position(|w| w == marker).unwrap();
    (bytes, at - 4 * 5)
}

/// `bytes` with the word at `at` set to `word`, resealed.
fn with_word(bytes: &[u8], at: usize, word: u32) -> Vec<u8> {
    let mut crafted = bytes.to_vec();
    crafted[at..at + 4].copy_from_slice(&word.to_ne_bytes());
    super::encoding::reseal(&mut crafted).unwrap();
    crafted
}

/// A rule's head is read in place when the rule is a candidate: one that
/// does not read (flag bits without a meaning) ends that dispatch with an abort that
/// names it, whether or not the rule would match, and `validate` finds
/// it at once.
#[test]
fn a_rules_head_is_read_when_it_is_a_candidate() {
    let (bytes, head) = sample_with_head_marked(Cond::Atom(0));
    let table = Table::from_bytes(&bytes).unwrap();
    assert_eq!(dispatch_tool(&table, "exec").1.as_deref(), Some("no"));
    // Trigger bits without the trigger flag (rule `a` is enabled and has
    // a timeout: bits 0 and 2).
    let table = Table::from_bytes(&with_word(&bytes, head, 1 << 9 | 0b101)).unwrap();
    for tool in ["read", "exec"] {
        let reason = dispatch_tool(&table, tool).1.unwrap_or_default();
        assert_eq!(
            reason,
            "corrupted table: rule `a` of point `tool.pre_execute`: a rule head whose flags do not read",
            "{tool}"
        );
    }
    assert!(table.validate().is_err());
}

/// A condition is checked as it is evaluated: nested past the limit, it
/// ends the dispatch that reaches that deep with an abort, never a stack
/// overflow, and `validate` finds it. A short-circuited operand is not
/// read.
#[test]
fn deep_nesting_in_a_crafted_rule_is_an_error_not_a_crash() {
    let table = Table::from_bytes(&deep_condition(sample(), 0)).unwrap();
    let reason = dispatch_tool(&table, "exec").1.unwrap_or_default();
    assert!(
        reason
            == "corrupted table: rule `a` of point `tool.pre_execute`: a condition nested too deeply",
        "{reason}"
    );
    let err = table.validate().unwrap_err().to_string();
    assert!(err.contains("nested deeper than 256"), "{err}");

    // `any(atom 0, <an unknown node>)`: read only when the atom is false.
    let (bytes, head) = sample_with_head_marked(Cond::Any(vec![Cond::Atom(0), Cond::True]));
    let table = Table::from_bytes(&with_word(&bytes, head + 4 * 9, 7 << 29)).unwrap();
    assert_eq!(dispatch_tool(&table, "exec").1.as_deref(), Some("no"));
    let reason = dispatch_tool(&table, "read").1.unwrap_or_default();
    assert_eq!(
        reason,
        "corrupted table: rule `a` of point `tool.pre_execute`: an unknown kind of condition node"
    );
}

/// `program` with the condition of its point `point`'s first rule made
/// `not not … true`, 300 deep, resealed: the words a hostile table would
/// hold, past [`MAX_DEPTH`](super::layout::head::MAX_DEPTH). Made from
/// `all(true × 300)` in its place.
fn deep_condition(program: Program, point: usize) -> Vec<u8> {
    let n = 300u32;
    let (bytes, head) = with_head_marked(program, point, Cond::All(vec![Cond::True; n as usize]));
    let cond = head + 4 * 7;
    let mut crafted = bytes;
    for k in 0..n {
        let at = cond + 4 * k as usize;
        crafted[at..at + 4].copy_from_slice(&(2 << 29 | (n - k)).to_ne_bytes());
    }
    super::encoding::reseal(&mut crafted).unwrap();
    crafted
}

/// The tables the command-line tests give `hookc eval`, `claude` and
/// `inspect` to show that a table crafted past its checksum ends a
/// dispatch as a corrupted table, never a crash (`tests/it/hardening.rs`):
/// a condition nested 300 deep in an ORCS rule and in a `claude-code` one.
/// Written for each format version next to its golden tables: bless them
/// with `HOOKC_BLESS=1 cargo test --lib crafted_tables`.
#[test]
fn crafted_tables_for_the_command_line_are_blessed() {
    let claude = crate::compile_str(
        "crafted.hooks",
        "schema claude-code\n\nhook guard on PreToolUse at claude-code::Bash {\n    deny \"guarded\"\n}\n",
    )
    .unwrap()
    .table
    .program()
    .clone();
    let point = claude
        .points
        .iter()
        .position(|p| p.name == "PreToolUse")
        .unwrap();
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden");
    for (name, bytes) in [
        ("crafted_deep_condition.tbl", deep_condition(sample(), 0)),
        (
            "crafted_deep_condition_claude.tbl",
            deep_condition(claude, point),
        ),
    ] {
        let path = format!("{dir}/v{VERSION}/{name}");
        if std::env::var_os("HOOKC_BLESS").is_some() {
            std::fs::write(&path, &bytes).unwrap();
        }
        let blessed = std::fs::read(&path).unwrap_or_else(|e| {
            panic!("{path}: {e}; bless it: HOOKC_BLESS=1 cargo test --lib crafted_tables")
        });
        assert!(
            blessed == bytes,
            "{path} is not what this build crafts; bless it: HOOKC_BLESS=1 cargo test --lib crafted_tables"
        );
        let err = Table::from_bytes(&blessed).unwrap().validate().unwrap_err();
        assert!(err.to_string().contains("nested deeper than 256"), "{err}");
    }
}

#[test]
fn header_problems_are_typed_errors() {
    let bytes = Table::from_program(sample()).unwrap().to_bytes();
    let kind = |b: &[u8]| Table::from_bytes(b).unwrap_err().kind().clone();

    assert!(matches!(
        kind(&bytes[..10]),
        LoadErrorKind::TooShort { what: "header", .. }
    ));
    assert!(matches!(
        kind(&bytes[..HEADER_LEN + 2]),
        LoadErrorKind::TooShort {
            what: "program",
            ..
        }
    ));

    let mut foreign = bytes.clone();
    foreign[0] = b'X';
    assert_eq!(kind(&foreign), LoadErrorKind::Label);

    let mut endian = bytes.clone();
    endian[12..16].copy_from_slice(&ENDIAN_CHECK.swap_bytes().to_ne_bytes());
    assert_eq!(kind(&endian), LoadErrorKind::Endian);

    let mut version = bytes.clone();
    version[16..20].copy_from_slice(&99u32.to_le_bytes());
    assert_eq!(
        kind(&version),
        LoadErrorKind::Version {
            expected: VERSION,
            found: 99
        }
    );

    let mut huge = bytes.clone();
    huge[20..24].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(matches!(kind(&huge), LoadErrorKind::TooShort { .. }));

    // A byte of the program block's head (the meta blob: the schema's
    // name) is checked by every load.
    let mut corrupt = bytes.clone();
    let at = corrupt.windows(4).position(|w| w == b"orcs").unwrap();
    corrupt[at] ^= 0x55;
    assert!(matches!(kind(&corrupt), LoadErrorKind::Checksum { .. }));

    assert!(matches!(
        kind(&with_body(&[0xff; 16])),
        LoadErrorKind::Decode(_)
    ));
    assert!(matches!(
        kind(&with_body(&[0xff; 15])),
        LoadErrorKind::Invalid(m) if m.contains("not whole words")
    ));
}

#[test]
fn every_truncation_is_an_error() {
    let bytes = Table::from_program(sample()).unwrap().to_bytes();
    for len in 0..bytes.len() {
        assert!(
            Table::from_bytes(&bytes[..len]).is_err(),
            "truncated to {len} bytes"
        );
    }
}

#[test]
fn points_resolve_to_ids_of_the_schema() {
    let table = Table::from_program(sample()).unwrap();
    let pre = table.point_id("tool.pre_execute").unwrap();
    let post = table.point_id("tool.post_execute").unwrap();
    assert_eq!((pre.slot(), post.slot()), (0, 1));
    assert_eq!(table.point_index_of(pre), Some(0));
    assert_eq!(table.point_index_of(post), None, "no rules there");
    assert_eq!(table.point_name(post), Some("tool.post_execute"));
    assert_eq!(table.point_id("bus.on_register"), None);
    // An id of another schema names nothing here.
    let mut other = sample();
    other.schema = "other".into();
    let other = Table::from_program(other).unwrap();
    let foreign = other.point_id("tool.pre_execute").unwrap();
    assert_ne!(foreign, pre);
    assert_eq!(table.point_name(foreign), None);
    assert_eq!(table.point_index_of(foreign), None);
}

#[test]
fn inconsistent_programs_are_rejected() {
    let mut not_in_schema = sample();
    not_in_schema.schema_points.remove(0);
    assert!(matches!(
        Table::from_program(not_in_schema).unwrap_err().kind(),
        LoadErrorKind::Invalid(m) if m.contains("not a point of the schema")
    ));
    let mut listed_twice = sample();
    listed_twice.schema_points[1].name = "tool.pre_execute".into();
    assert!(Table::from_program(listed_twice).is_err());
    let mut other_kind = sample();
    other_kind.schema_points[0].kind = PointKind::Event;
    assert!(Table::from_program(other_kind).is_err());

    let mut bad_index = sample();
    bad_index.points[0].index.any.rules = vec![0, 5];
    assert!(matches!(
        Table::from_program(bad_index).unwrap_err().kind(),
        LoadErrorKind::Invalid(_)
    ));

    let mut twice = sample();
    twice.points[0].index.any.rules = vec![0, 0];
    assert!(Table::from_program(twice).is_err());

    let mut missing = sample();
    missing.points[0].index.any.rules = vec![0];
    missing.points[0].index.any.untriggered = vec![0];
    assert!(Table::from_program(missing).is_err());

    let mut wrong_list = sample();
    wrong_list.points[0].index.any = Bucket {
        rules: vec![1],
        untriggered: vec![1],
        fields: 0,
    };
    wrong_list.points[0].index.exact = crate::ir::Keyed {
        map: crate::ir::StrMap {
            keys: vec!["a::b".into()],
            values: vec![vec![0]],
            hash_key: 0,
            disps: vec![(0, 0)],
            map: vec![0],
        },
        buckets: vec![Bucket {
            rules: vec![0],
            untriggered: vec![0],
            fields: 0,
        }],
    };

    let mut bad_trigger = sample();
    bad_trigger.points[0].rules[0].trigger = Some(0);
    assert!(
        Table::from_program(bad_trigger).is_err(),
        "a trigger on an atom no field computes"
    );
    assert!(Table::from_program(wrong_list).is_err());

    let mut bad_atom = sample();
    bad_atom.points[0].rules[0].cond = Cond::Atom(9);
    assert!(Table::from_program(bad_atom).is_err());

    let mut bad_regex = sample();
    bad_regex.regexes.push(crate::ir::RegexSource {
        pattern: "(".into(),
        flags: String::new(),
    });
    // Regexes compile on first use; one that does not compile matches nothing.
    let table = Table::from_program(bad_regex).unwrap();
    assert!(table.loaded().regexes.get(0).is_none());

    // A function called with another number of arguments than it takes,
    // in a condition or in an action's value.
    let call = |args: usize| {
        crate::ir::Expr::Call(
            crate::ir::Func::Replace,
            vec![crate::ir::Expr::Const(serde_json::json!("a")); args],
        )
    };
    let mut bad_call = sample();
    bad_call.points[0].atoms[0] = crate::ir::Atom::Expr(call(1));
    assert!(matches!(
        Table::from_program(bad_call).unwrap_err().kind(),
        LoadErrorKind::Invalid(m) if m.contains("`replace` called with 1 arguments, not 3")
    ));
    let mut bad_output = sample();
    bad_output.points[0].rules[1].actions = vec![crate::ir::Action::Output("x".into(), call(2))];
    assert!(Table::from_program(bad_output).is_err());

    // A word set whose hash points past its strings, or holds keys of its
    // own (a set's hash is over its strings).
    let words_keyed = |keys: Vec<String>, map: Vec<u32>| {
        crate::ir::Atom::Expr(crate::ir::Expr::Quantifier(
            crate::ir::Quantifier::Any,
            Box::new(crate::ir::Expr::Const(serde_json::json!([]))),
            Box::new(crate::ir::Expr::WordsAny(
                Box::new(crate::ir::Expr::Var(0, Vec::new())),
                Box::new(crate::ir::WordsTest {
                    list: crate::ir::WordList::Flags,
                    form: crate::ir::WordsForm::ContainsAny,
                    set: crate::ir::StringSet::new(
                        &["-r"],
                        crate::ir::StrMap {
                            values: vec![Vec::new(); keys.len()],
                            keys,
                            hash_key: 0,
                            disps: vec![(0, 0)],
                            map,
                        },
                    ),
                    short_flags: 0,
                }),
            )),
        ))
    };
    let mut good_words = sample();
    good_words.points[0].atoms[0] = words_keyed(Vec::new(), vec![0]);
    assert!(Table::from_program(good_words).is_ok());
    for (keys, map) in [
        (Vec::new(), vec![3]),
        (Vec::new(), vec![0, 0]),
        (vec!["-r".to_string()], vec![0]),
    ] {
        let mut bad_words = sample();
        bad_words.points[0].atoms[0] = words_keyed(keys, map);
        assert!(matches!(
            Table::from_program(bad_words).unwrap_err().kind(),
            LoadErrorKind::Invalid(m) if m.contains("string set's hash")
        ));
    }
    // The same for the set a list of strings becomes (`x in ["a", …]`).
    let set_atom = |set: crate::ir::StringSet| {
        crate::ir::Atom::Expr(crate::ir::Expr::InSet(
            Box::new(crate::ir::Expr::Const(serde_json::json!("a"))),
            Box::new(set),
        ))
    };
    let in_set = |map: Vec<u32>| {
        set_atom(crate::ir::StringSet::new(
            &["a"],
            crate::ir::StrMap {
                hash_key: 0,
                disps: vec![(0, 0)],
                map,
                ..crate::ir::StrMap::default()
            },
        ))
    };
    let mut good_set = sample();
    good_set.points[0].atoms[0] = in_set(vec![0]);
    assert!(Table::from_program(good_set).is_ok());
    let mut bad_set = sample();
    bad_set.points[0].atoms[0] = in_set(vec![3]);
    assert!(matches!(
        Table::from_program(bad_set).unwrap_err().kind(),
        LoadErrorKind::Invalid(m) if m.contains("string set")
    ));
    // A set's strings where its bounds say: in its text, in order, on
    // characters' boundaries, and nothing after the last.
    for (text, ends, why) in [
        ("ab", vec![1, 3], "bounds"),
        ("\u{e9}", vec![1, 2], "bounds"),
        ("ab", vec![1], "goes on"),
    ] {
        let set = crate::ir::StringSet::from_parts(text.into(), ends, crate::ir::StrMap::default());
        let mut bad = sample();
        bad.points[0].atoms[0] = set_atom(set);
        assert!(
            matches!(
                Table::from_program(bad).unwrap_err().kind(),
                LoadErrorKind::Invalid(m) if m.contains(why)
            ),
            "{text:?}"
        );
    }
    let mut good_call = sample();
    good_call.points[0].rules[1].actions = vec![crate::ir::Action::Output("x".into(), call(3))];
    assert!(Table::from_program(good_call).is_ok());

    // Regex DFAs: one per regex, each naming a section.
    let mut wrong_count = sample();
    wrong_count.regex_dfas = vec![0];
    assert!(matches!(
        Table::from_program(wrong_count).unwrap_err().kind(),
        LoadErrorKind::Invalid(m) if m.contains("1 regex DFAs for 0 regexes")
    ));
    let mut no_section = sample();
    no_section.regexes.push(crate::ir::RegexSource {
        pattern: "a".into(),
        flags: String::new(),
    });
    no_section.regex_dfas = vec![3];
    assert!(Table::from_program(no_section.clone()).is_err());
    no_section.regex_dfas = vec![crate::ir::NO_DFA];
    assert!(Table::from_program(no_section).is_ok());

    let mut unsorted = sample();
    let copy = unsorted.points[0].clone();
    unsorted.points.push(copy);
    assert!(Table::from_program(unsorted).is_err());
}

/// Everything a host and a tool do with a table: dispatch at each point of
/// its schema, twice (the second reads what the first decoded), then read
/// it all.
fn exercise(table: &Table) {
    let mut scratch = table.scratch();
    for (name, component) in [
        ("tool.pre_execute", "a::b"),
        ("tool.pre_execute", "builtin::llm"),
        ("tool.post_execute", "a::b"),
    ] {
        let target = crate::Target::new(component);
        for _ in 0..2 {
            let mut ctx = crate::HookContext::new(
                name,
                component,
                serde_json::json!({
                    "tool": "exec",
                    "args": "rm -rf / && curl http://evil12",
                    "result": "AKIAABCDEFGHIJKLMNOP",
                }),
            );
            let outcome = table.dispatch(&mut scratch, name, &target, &mut ctx);
            let _ = (outcome.kind(), outcome.fired().count());
        }
    }
    let _ = (table.rule_count(), table.validate(), table.program());
}

/// A compiled table with every kind of matcher: an FQL index of every
/// kind, equalities, a DFA, anchored literals, an expression, a rule's
/// actions.
fn compiled() -> &'static [u8] {
    static BYTES: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    BYTES.get_or_init(|| {
        let mut text = String::from("list evil = [");
        for i in 0..20 {
            text.push_str(&format!("\"curl http://evil{i}\", "));
        }
        text.push_str("]\n");
        text.push_str(
            r#"
hook a on tool.pre_execute at builtin::llm { when payload.tool == "exec" and payload.args contains any evil
    abort "evil {payload.args}" }
hook b on tool.pre_execute at builtin::* { when payload.args matches /rm\s+-rf/ set payload.args = "ls" }
hook c on tool.pre_execute at *::llm { when len(payload.args) > 3 and payload.args starts_with "rm" log info "long" }
hook d on tool.pre_execute { when payload.tool in ["exec", "sh"] meta seen = true }
hook e on tool.post_execute { when payload.result contains "AKIA" rewrite payload.result /AKIA[A-Z0-9]{16}/ -> "[KEY]" }
"#,
        );
        crate::compile_str("t.hooks", &text).unwrap().table.to_bytes()
    })
}

#[test]
fn the_compiled_fixture_decides_as_its_rules_say() {
    let table = Table::from_bytes(compiled()).unwrap();
    table.validate().unwrap();
    let mut scratch = table.scratch();
    let target = crate::Target::new("builtin::llm");
    let mut ctx = crate::HookContext::new(
        "tool.pre_execute",
        "builtin::llm",
        serde_json::json!({"tool": "exec", "args": "x; curl http://evil12"}),
    );
    let outcome = table.dispatch(&mut scratch, "tool.pre_execute", &target, &mut ctx);
    assert_eq!(outcome.reason(), Some("evil x; curl http://evil12"));
    assert_eq!(outcome.fired().collect::<Vec<_>>(), ["a"]);
}

/// `bytes` with the byte at `at` (inside the program block) changed, and
/// the checksum made right again: what a crafted table looks like to
/// everything after the checksum.
fn crafted(mut bytes: Vec<u8>, at: usize, mask: u8) -> Vec<u8> {
    let program_len = u32::from_le_bytes(bytes[20..24].try_into().unwrap()) as usize;
    let i = HEADER_LEN + at % program_len;
    bytes[i] ^= mask;
    // Bytes that no longer lay out a table keep their checksums (and
    // fail to load).
    let _ = super::encoding::reseal(&mut bytes);
    bytes
}

proptest::proptest! {
    #[test]
    fn flipped_bytes_never_panic(at in 0usize..4096, mask in 1u8..=255) {
        let bytes = Table::from_program(sample()).unwrap().to_bytes();
        let mut bytes = bytes;
        let i = at % bytes.len();
        bytes[i] ^= mask;
        if let Ok(table) = Table::from_bytes(&bytes) {
            exercise(&table);
        }
    }

    /// A table crafted to pass the checksum loads or fails with a typed
    /// error, and one that loads dispatches without a panic: the lazily
    /// read point blocks, rules and atoms fail as the module docs say.
    #[test]
    fn crafted_program_blocks_never_panic(at in 0usize..1 << 16, mask in 1u8..=255) {
        let bytes = Table::from_program(sample()).unwrap().to_bytes();
        if let Ok(table) = Table::from_bytes(&crafted(bytes, at, mask)) {
            exercise(&table);
        }
        if let Ok(table) = Table::from_bytes(&crafted(compiled().to_vec(), at, mask)) {
            exercise(&table);
        }
    }

    #[test]
    fn arbitrary_bodies_never_panic(body in proptest::collection::vec(proptest::num::u8::ANY, 0..512)) {
        let _ = Table::from_bytes(&with_body(&body));
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..256)) {
        let _ = Table::from_bytes(&bytes);
    }
}

#[test]
fn tables_are_shared_across_threads() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Table>();
    let table = std::sync::Arc::new(Table::from_program(sample()).unwrap());
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let table = std::sync::Arc::clone(&table);
            std::thread::spawn(move || dispatch_tool(&table, "exec").0)
        })
        .collect();
    for h in handles {
        assert!(h.join().unwrap());
    }
}

/// Signing and verifying are part of the runtime: no compiler needed.
#[test]
fn signed_tables_verify_without_the_compiler() {
    let key = SecretKey::from_seed(&[5; 32]);
    let table = Table::from_program(sample()).unwrap();
    let signed = table.to_signed_bytes(&key);
    let verified = Table::from_bytes_verified(&signed, &key.public_key()).unwrap();
    assert_eq!(verified.program(), table.program());
    assert_eq!(verified.signer(), Some(key.public_key()));
    let other = SecretKey::from_seed(&[6; 32]).public_key();
    assert!(matches!(
        Table::from_bytes_verified(&signed, &other)
            .unwrap_err()
            .kind(),
        LoadErrorKind::SignedByAnotherKey { .. }
    ));
    for at in 0..signed.len() {
        let mut changed = signed.clone();
        changed[at] ^= 0x04;
        assert!(
            Table::from_bytes_verified(&changed, &key.public_key()).is_err(),
            "byte {at}"
        );
    }
    // A block that is not well-formed is refused even unverified.
    let mut bad = signed.clone();
    let algorithm = signed.len() - sign::SIGNATURE_BLOCK_LEN + 8;
    bad[algorithm] = 2;
    assert!(matches!(
        Table::from_bytes(&bad).unwrap_err().kind(),
        LoadErrorKind::Invalid(m) if m.contains("unknown algorithm 2")
    ));
}

/// A set of strings reads back as written, whatever its strings (empty,
/// not ASCII, long) and however many: compared one by one up to
/// [`StringSet::LINEAR`](crate::ir::StringSet::LINEAR), hashed past it.
#[test]
fn string_sets_read_back_as_written() {
    for n in [0usize, 1, 3, 8, 9, 40] {
        let strings: Vec<String> = (0..n)
            .map(|i| match i % 4 {
                0 if i == 0 => String::new(),
                1 => format!("\u{e9}t\u{e9}{i}"),
                2 => "x".repeat(200 + i),
                _ => format!("w{i}"),
            })
            .collect();
        let hash = if n > crate::ir::StringSet::LINEAR {
            crate::compile::matchers::hash_over(&strings)
        } else {
            crate::ir::StrMap::default()
        };
        let set = crate::ir::StringSet::new(&strings, hash);
        let mut program = sample();
        program.points[0].atoms[0] = crate::ir::Atom::Expr(crate::ir::Expr::InSet(
            Box::new(crate::ir::Expr::Const(serde_json::json!("a"))),
            Box::new(set.clone()),
        ));
        let table = Table::from_program(program).unwrap();
        let crate::ir::Atom::Expr(crate::ir::Expr::InSet(_, read)) =
            &table.program().points[0].atoms[0]
        else {
            panic!("not a set")
        };
        assert_eq!(**read, set, "{n} strings");
        assert_eq!(read.iter().collect::<Vec<_>>(), strings, "{n} strings");
        assert!(strings.iter().all(|s| read.has(s)), "{n} strings");
        for absent in ["w", "x", "\u{e9}t\u{e9}", "w1", "a"] {
            assert_eq!(
                read.has(absent),
                strings.iter().any(|s| s == absent),
                "{absent}"
            );
        }
    }
}
