use super::*;
use crate::table::tests::every_variant;
use serde_json::json;

fn field(name: &str) -> ir::FieldPath {
    ir::FieldPath {
        root: ir::Root::Payload,
        segments: vec![ir::Segment::Field(name.into())],
        normalized: false,
    }
}

/// A program whose first point has the one atom `atom`.
fn with_atom(atom: ir::Atom) -> ir::Program {
    let mut program = every_variant::program();
    program.points.truncate(1);
    program.points[0].atoms = vec![atom];
    program
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
    let program = every_variant::program();
    let bytes = encode(&program);
    assert_eq!(decode(&bytes).unwrap(), program);
    assert_eq!(encode(&decode(&bytes).unwrap()), bytes);
}

/// Bytes that decode but make no IR value are a typed error: a JSON
/// constant that does not parse, a list that is not a JSON array.
#[test]
fn wire_values_without_an_ir_form_are_decode_errors() {
    let is_decode_error = |bytes: &[u8]| {
        let err = decode(bytes).unwrap_err();
        assert!(matches!(err.kind(), LoadErrorKind::Decode(_)), "{err}");
    };
    let eq = encode(&with_atom(ir::Atom::Eq(field("tool"), json!("MARK"))));
    assert!(decode(&eq).is_ok());
    is_decode_error(&patched(&eq, "\"MARK\"", "{nope!"));

    let constant = encode(&with_atom(ir::Atom::Expr(ir::Expr::Const(json!("MARK")))));
    assert!(decode(&constant).is_ok());
    is_decode_error(&patched(&constant, "\"MARK\"", "[MARK\""));

    for list in [ir::Atom::In, ir::Atom::ContainsAny] {
        let bytes = encode(&with_atom(list(field("tool"), vec![json!("MARK")])));
        assert_eq!(
            decode(&bytes).unwrap().points[0].atoms,
            [list(field("tool"), vec![json!("MARK")])]
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
    let body = encode(&with_atom(ir::Atom::Expr(ir::Expr::Var(marker, vec![]))));
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
    assert!(matches!(err.kind(), LoadErrorKind::Decode(_)), "{err}");
    let err = decode(&nested(depth::MAX_DEPTH + 1)).unwrap_err();
    assert!(matches!(err.kind(), LoadErrorKind::Decode(_)), "{err}");

    let program = decode(&nested(depth::MAX_DEPTH)).unwrap();
    let ir::Atom::Expr(mut e) = program.points[0].atoms[0].clone() else {
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
