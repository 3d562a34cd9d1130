use super::encoding::{pad, ENDIAN_CHECK};
use super::*;
use crate::ir::{Bucket, Cond, FqlIndex, Origin, PointProgram, Program, Rule};
use crate::schema::PointKind;

pub(super) mod every_variant;

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
    let bytes = table.to_bytes();
    assert_eq!(bytes.len() % 4, 0);
    let back = Table::from_bytes(&bytes).unwrap();
    assert_eq!(back.program(), table.program());
    assert_eq!(back.to_bytes(), bytes);
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

    let mut corrupt = bytes.clone();
    let last = corrupt.len() - 5;
    corrupt[last] ^= 0x55;
    assert!(matches!(kind(&corrupt), LoadErrorKind::Checksum { .. }));

    assert!(matches!(
        kind(&with_body(&[0xff; 16])),
        LoadErrorKind::Decode(_)
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

    // A word set whose hash points past its keys.
    let words = |map: Vec<u32>| {
        crate::ir::Atom::Expr(crate::ir::Expr::Quantifier(
            crate::ir::Quantifier::Any,
            Box::new(crate::ir::Expr::Const(serde_json::json!([]))),
            Box::new(crate::ir::Expr::WordsAny(
                Box::new(crate::ir::Expr::Var(0, Vec::new())),
                Box::new(crate::ir::WordsTest {
                    list: crate::ir::WordList::Flags,
                    form: crate::ir::WordsForm::ContainsAny,
                    strings: vec!["-r".into()],
                    short_flags: 0,
                    hash: crate::ir::StrMap {
                        keys: vec!["-r".into()],
                        values: vec![Vec::new()],
                        hash_key: 0,
                        disps: vec![(0, 0)],
                        map,
                    },
                }),
            )),
        ))
    };
    let mut good_words = sample();
    good_words.points[0].atoms[0] = words(vec![0]);
    assert!(Table::from_program(good_words).is_ok());
    let mut bad_words = sample();
    bad_words.points[0].atoms[0] = words(vec![3]);
    assert!(matches!(
        Table::from_program(bad_words).unwrap_err().kind(),
        LoadErrorKind::Invalid(m) if m.contains("word set")
    ));
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

#[test]
fn deep_nesting_in_a_crafted_table_is_an_error_not_a_crash() {
    // Encode a marker condition, then splice a 100,000-deep `not not … true`
    // into its place: the bytes a hostile table would hold.
    let marker = 123_456_789;
    let mut program = sample();
    program.points[0].rules[1].cond = Cond::Atom(marker);
    let body = super::wire::encode(&program);
    // In the wire form, `Cond::Atom(n)` is variant 1 then `n` as a varint;
    // `Cond::Not` is variant 2 before its operand, `Cond::True` variant 0.
    let mut encoded = vec![1];
    encoded.extend(postcard::to_allocvec(&marker).unwrap());
    let at = body
        .windows(encoded.len())
        .position(|w| w == encoded.as_slice())
        .unwrap();
    let mut crafted = body[..at].to_vec();
    crafted.extend(std::iter::repeat_n(2, 100_000));
    crafted.push(0);
    crafted.extend_from_slice(&body[at + encoded.len()..]);
    let err = Table::from_bytes(&with_body(&crafted)).unwrap_err();
    assert!(matches!(err.kind(), LoadErrorKind::Decode(_)), "{err}");
}

proptest::proptest! {
    #[test]
    fn flipped_bytes_never_panic(at in 0usize..4096, mask in 1u8..=255) {
        let bytes = Table::from_program(sample()).unwrap().to_bytes();
        let mut bytes = bytes;
        let i = at % bytes.len();
        bytes[i] ^= mask;
        let _ = Table::from_bytes(&bytes);
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
            std::thread::spawn(move || {
                let mut scratch = table.scratch();
                let mut ctx = crate::HookContext::new(
                    "tool.pre_execute",
                    "a::b",
                    serde_json::json!({"tool": "exec"}),
                );
                let target = crate::Target::new("a::b");
                table
                    .dispatch(&mut scratch, "tool.pre_execute", &target, &mut ctx)
                    .is_abort()
            })
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
