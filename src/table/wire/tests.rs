use super::*;
use crate::table::tests::every_variant;
use serde_json::json;

/// Every rule's body, atom and field path of `program` through its blob,
/// and the meta block, read back (a rule's head is words: module
/// `layout::head`).
fn round_trip(program: &ir::Program) {
    for point in &program.points {
        for rule in &point.rules {
            let body = read_rule_body(&write_rule_body(rule)).unwrap();
            assert_eq!(body.actions, rule.actions);
            assert_eq!(body.origin, rule.origin);
            assert_eq!(body.cond_origins, rule.cond_origins);
        }
        for atom in &point.atoms {
            assert_eq!(&read_atom(&write_atom(atom)).unwrap(), atom);
        }
        for field in &point.fields {
            assert_eq!(read_path(&write_path(&field.path)).unwrap(), field.path);
        }
    }
    let meta = Meta {
        schema: program.schema.clone(),
        schema_points: program.schema_points.clone(),
        points: Vec::new(),
        files: program.files.clone(),
        rates: program.rates.clone(),
        command_input: program.command_input,
        source_digest: program.source_digest.clone(),
    };
    assert_eq!(read_meta(&write_meta(&meta)).unwrap(), meta);
}

fn field(name: &str) -> ir::FieldPath {
    ir::FieldPath {
        root: ir::Root::Payload,
        segments: vec![ir::Segment::Field(name.into())],
        normalized: false,
    }
}

fn encode(atom: &ir::Atom) -> Vec<u8> {
    write_atom(atom)
}

fn decode(bytes: &[u8]) -> Result<ir::Atom, String> {
    read_atom(bytes)
}

/// `bytes` with the one occurrence of `from` replaced by `to`, of the same
/// length.
fn patched(bytes: &[u8], from: &str, to: &str) -> Vec<u8> {
    assert_eq!(from.len(), to.len());
    let at = bytes
        .windows(from.len())
        .position(|w| w == from.as_bytes())
        .unwrap();
    let mut out = bytes.to_vec();
    out[at..at + to.len()].copy_from_slice(to.as_bytes());
    out
}

#[test]
fn every_variant_round_trips_through_the_wire_form() {
    round_trip(&every_variant::program());
}

/// A blob with bytes after its value, or cut short, does not read.
#[test]
fn a_blob_is_one_value_exactly() {
    let atom = ir::Atom::Eq(field("tool"), json!("exec"));
    let mut bytes = encode(&atom);
    assert_eq!(decode(&bytes).unwrap(), atom);
    bytes.push(0);
    assert!(decode(&bytes)
        .unwrap_err()
        .contains("bytes after the value"));
    bytes.truncate(bytes.len() - 2);
    assert!(decode(&bytes).is_err());
}

/// Bytes that decode but make no IR value are an error: a JSON constant
/// that does not parse, a list that is not a JSON array.
#[test]
fn wire_values_without_an_ir_form_are_decode_errors() {
    let is_decode_error = |bytes: &[u8]| {
        let err = decode(bytes).unwrap_err();
        assert!(err.contains("JSON"), "{err}");
    };
    let eq = encode(&ir::Atom::Eq(field("tool"), json!("MARK")));
    assert!(decode(&eq).is_ok());
    is_decode_error(&patched(&eq, "\"MARK\"", "{nope!"));

    let constant = encode(&ir::Atom::Expr(ir::Expr::Const(json!("MARK"))));
    assert!(decode(&constant).is_ok());
    is_decode_error(&patched(&constant, "\"MARK\"", "[MARK\""));

    for list in [ir::Atom::In, ir::Atom::ContainsAny] {
        let bytes = encode(&list(field("tool"), vec![json!("MARK")]));
        assert_eq!(
            decode(&bytes).unwrap(),
            list(field("tool"), vec![json!("MARK")])
        );
        // A JSON string where a JSON array belongs.
        is_decode_error(&patched(&bytes, "[\"MARK\"]", "\"MARKS!\""));
    }
}

/// Expressions nested deeper than the limit, as a crafted table would
/// hold them, are a decode error, not a stack overflow; at the limit they
/// decode.
#[test]
fn deep_expressions_are_an_error_not_a_crash() {
    // `Expr::Var(marker, [])`: variant 13, the varint, an empty list.
    let marker = 123_456_789u32;
    let mut encoded = vec![13];
    encoded.extend(postcard::to_allocvec(&marker).unwrap());
    encoded.push(0);
    let body = encode(&ir::Atom::Expr(ir::Expr::Var(marker, vec![])));
    let at = body
        .windows(encoded.len())
        .position(|w| w == encoded.as_slice())
        .unwrap();
    // `Expr::Unary(UnaryOp::Neg, …)` around `Expr::Var(0, [])`, `depth` deep.
    let nested = |depth: usize| {
        let mut crafted = body[..at].to_vec();
        for _ in 0..depth - 1 {
            crafted.extend_from_slice(&[5, 1]);
        }
        crafted.extend_from_slice(&[13, 0, 0]);
        crafted.extend_from_slice(&body[at + encoded.len()..]);
        crafted
    };
    let err = decode(&nested(100_000)).unwrap_err();
    assert!(err.contains("nest"), "{err}");
    let err = decode(&nested(depth::MAX_DEPTH + 1)).unwrap_err();
    assert!(err.contains("nest"), "{err}");

    let ir::Atom::Expr(mut e) = decode(&nested(depth::MAX_DEPTH)).unwrap() else {
        panic!("not an expression atom")
    };
    let mut depth = 1;
    while let ir::Expr::Unary(ir::UnaryOp::Neg, inner) = e {
        e = *inner;
        depth += 1;
    }
    assert_eq!(e, ir::Expr::Var(0, vec![]));
    assert_eq!(depth, depth::MAX_DEPTH);
}

/// A constant read without the JSON parser is the value the parser reads;
/// what the fast path does not take (escapes, numbers, lists, white space,
/// a quote or a control character inside) is left to the parser, which
/// still rejects what is not JSON.
#[test]
fn plain_constants_read_as_the_parser_reads_them() {
    let plain = |text: &str| expr::json_text::plain(text);
    for text in [
        "\"rm\"",
        "\"\"",
        "\"-rf /\"",
        "\"é ſ K\"",
        "\"a\u{7f}b\"",
        "true",
        "false",
        "null",
    ] {
        let parsed: serde_json::Value = serde_json::from_str(text).unwrap();
        assert_eq!(plain(text), Some(parsed), "{text}");
    }
    for text in [
        "\"a\\nb\"",
        "\"a\\\"b\"",
        "\"a\"b\"",
        "\"a\nb\"",
        "\"a\u{1}b\"",
        "\"",
        "\"abc",
        " true",
        "True",
        "42",
        "[\"a\"]",
        "{}",
    ] {
        assert_eq!(plain(text), None, "{text}");
    }
    // Left to the parser: the unescaped string as before, and an error for
    // a raw control character, as JSON says.
    assert_eq!(
        read_constant("\"a\\nb\""),
        Ok(json!("a\nb")),
        "an escape is the parser's"
    );
    assert!(read_constant("\"a\nb\"").is_err());
    assert_eq!(read_constant("\"rm\""), Ok(json!("rm")));
}

/// A list of plain strings read without the JSON parser is the list the
/// parser reads; any other list is left to it.
#[test]
fn plain_lists_read_as_the_parser_reads_them() {
    let plain_list = |text: &str| expr::json_text::plain_list(text);
    for text in [
        "[]",
        "[\"\"]",
        "[\"rm\"]",
        "[\"rm\",\"unlink\",\"é ſ\",\"-rf /\"]",
        "[\"a\",\"\",\"b\"]",
    ] {
        let parsed: serde_json::Value = serde_json::from_str(text).unwrap();
        assert_eq!(plain_list(text), Some(parsed), "{text}");
    }
    for text in [
        "[\"a\\nb\"]",
        "[\"a\\\"b\"]",
        "[\"a\nb\"]",
        "[\"a\",]",
        "[\"a\" ,\"b\"]",
        "[\"a\"\"b\"]",
        "[\"a\",1]",
        "[1]",
        "[\"a]",
        "[,\"a\"]",
        "\"a\"",
        "[[\"a\"]]",
    ] {
        assert_eq!(plain_list(text), None, "{text}");
    }
    assert_eq!(
        read_constant("[\"a\\nb\",\"c\"]"),
        Ok(json!(["a\nb", "c"])),
        "an escape is the parser's"
    );
    assert!(read_constant("[\"a\",]").is_err());
}

/// `text` as a table's constant, through the decoder.
fn read_constant(text: &str) -> Result<serde_json::Value, String> {
    let bytes = postcard::to_allocvec(text).map_err(|e| e.to_string())?;
    let mut decoder = postcard::Deserializer::from_bytes(&bytes);
    expr::json_text::deserialize(&mut decoder).map_err(|e| e.to_string())
}

proptest::proptest! {
    /// Any text: the fast path says nothing, or what the parser says.
    #[test]
    fn plain_constants_agree_with_the_parser(text in "\"[ -~\\x00-\\x1f\\\\\"é]{0,12}\"?|true|null|.{0,6}") {
        if let Some(value) = expr::json_text::plain(&text) {
            let parsed: serde_json::Value = serde_json::from_str(&text).unwrap();
            proptest::prop_assert_eq!(value, parsed);
        }
    }

    /// Any list-like text: the fast path says nothing, or what the parser
    /// says.
    #[test]
    fn plain_lists_agree_with_the_parser(text in "\\[(\"[ -~\x00-\x1f\\\\\"é]{0,5}\"?,?){0,4}\\]?") {
        if let Some(value) = expr::json_text::plain_list(&text) {
            let parsed: serde_json::Value = serde_json::from_str(&text).unwrap();
            proptest::prop_assert_eq!(value, parsed);
        }
    }
}
