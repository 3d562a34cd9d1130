//! Event decoding: lone surrogates, escaped backslashes, the depth limit.

use super::*;
use proptest::prelude::*;
use serde_json::json;

/// Runs `f` on a thread with the stack of a Linux or macOS main thread
/// (8 MiB): test threads get less.
fn on_main_sized_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(f)
        .expect("a thread starts")
        .join()
        .expect("the thread does not panic")
}

fn nested(depth: usize, leaf: &str) -> String {
    // `depth` levels in all: objects and arrays alternate.
    let mut open = String::new();
    let mut close = String::new();
    for level in 0..depth {
        if level % 2 == 0 {
            open.push_str("{\"k\":");
            close.insert(0, '}');
        } else {
            open.push('[');
            close.insert(0, ']');
        }
    }
    format!("{open}{leaf}{close}")
}

#[test]
fn lone_surrogates_read_as_the_replacement_character() {
    let cases = [
        (r#""\ud800""#, "\u{fffd}"),
        (r#""\uDFFF""#, "\u{fffd}"),
        (r#""a\ud800b""#, "a\u{fffd}b"),
        (r#""\ud800\ud800""#, "\u{fffd}\u{fffd}"),
        (r#""\udc00\ud800""#, "\u{fffd}\u{fffd}"),
        // A high surrogate, then a pair.
        (r#""\ud800\ud83d\ude00""#, "\u{fffd}\u{1f600}"),
        (r#""\ud800\n""#, "\u{fffd}\n"),
        (r#""\ud800\u0041""#, "\u{fffd}A"),
        (r#""\ud800""#, "\u{fffd}"),
    ];
    for (text, want) in cases {
        assert_eq!(parse(text).unwrap(), json!(want), "{text}");
    }
    // In keys too.
    let value = parse(r#"{"\ud800": 1}"#).unwrap();
    assert_eq!(value, json!({"\u{fffd}": 1}));
}

#[test]
fn escaped_backslashes_are_not_escapes() {
    // `\\ud800` is a backslash and the text `ud800`.
    assert_eq!(parse(r#""\\ud800""#).unwrap(), json!("\\ud800"));
    assert!(matches!(prepare(r#""\\ud800""#), Ok(Cow::Borrowed(_))));
    // `\\\ud800` is a backslash and a lone surrogate.
    assert_eq!(parse(r#""\\\ud800""#).unwrap(), json!("\\\u{fffd}"));
    // An escaped quote does not end the string.
    assert_eq!(parse(r#""\"\ud800""#).unwrap(), json!("\"\u{fffd}"));
}

#[test]
fn valid_text_is_not_copied() {
    for text in [
        r#"{"a": "\ud83d\ude00", "b": [1, {"c": "\u00e9\\u"}]}"#,
        r#""\uD83D\uDE00""#,
        "[]",
        "",
    ] {
        assert!(matches!(prepare(text), Ok(Cow::Borrowed(_))), "{text}");
    }
}

#[test]
fn bad_json_is_still_an_error() {
    for text in [
        "",
        "{",
        r#""\u12""#,
        r#""\x""#,
        r#"{"a": 1} 2"#,
        r#""\ud800"#,
    ] {
        assert!(matches!(parse(text), Err(DecodeError::Json(_))), "{text}");
    }
}

#[test]
fn nesting_up_to_the_limit_parses_and_past_it_is_refused() {
    on_main_sized_stack(|| {
        let at = parse(&nested(MAX_DEPTH, "1")).unwrap();
        assert!(check_depth(&at).is_ok());
        assert_eq!(at.to_string(), nested(MAX_DEPTH, "1"));
        assert!(matches!(
            parse(&nested(MAX_DEPTH + 1, "1")),
            Err(DecodeError::TooDeep { limit: MAX_DEPTH })
        ));
        // Refused before parsing: even text far too deep for any stack.
        let huge = "[".repeat(10_000_000);
        assert!(matches!(parse(&huge), Err(DecodeError::TooDeep { .. })));
    });
}

#[test]
fn brackets_in_strings_do_not_count() {
    let text = format!(
        r#"{{"a": "{}", "b": "\"{}"}}"#,
        "[".repeat(5000),
        "{".repeat(5000)
    );
    assert!(parse(&text).is_ok());
}

#[test]
fn built_values_are_measured_without_recursion() {
    on_main_sized_stack(|| {
        let mut value = json!(1);
        for _ in 0..MAX_DEPTH {
            value = json!([value]);
        }
        assert!(check_depth(&value).is_ok());
        value = json!({ "k": value });
        assert!(matches!(
            check_depth(&value),
            Err(DecodeError::TooDeep { limit: MAX_DEPTH })
        ));
        assert!(matches!(
            context(json!({"hook_point": "p", "component_id": "a::b", "payload": value})),
            Err(DecodeError::TooDeep { .. })
        ));
    });
}

#[test]
fn contexts_need_their_fields() {
    let ctx = context(json!({"hook_point": "p", "component_id": "a::b"})).unwrap();
    assert_eq!(ctx.hook_point, "p");
    assert!(matches!(
        context(json!({"component_id": "a::b"})),
        Err(DecodeError::Context(_))
    ));
}

/// One piece of a JSON string literal and the text it stands for.
#[derive(Clone, Debug)]
enum Piece {
    /// A character written as itself (escaped when JSON requires it).
    Raw(char),
    /// A UTF-16 code unit written as `\uXXXX`, in either case.
    Unit(u16, bool),
    /// An escaped backslash followed by `u` and four hex digits: text.
    Backslash(u16),
}

fn piece() -> impl Strategy<Value = Piece> {
    prop_oneof![
        any::<char>().prop_map(Piece::Raw),
        (any::<u16>(), any::<bool>()).prop_map(|(u, upper)| Piece::Unit(u, upper)),
        // Surrogates often, so that pairs and lone ones both come up.
        (0xD800u16..0xE000, any::<bool>()).prop_map(|(u, upper)| Piece::Unit(u, upper)),
        (0xD800u16..0xE000).prop_map(Piece::Backslash),
    ]
}

/// The JSON text of `pieces` and the UTF-16 code units it decodes to.
fn literal(pieces: &[Piece]) -> (String, Vec<u16>) {
    let mut text = String::from("\"");
    let mut units = Vec::new();
    for piece in pieces {
        match piece {
            Piece::Raw(c) => {
                let mut buf = [0u16; 2];
                units.extend_from_slice(c.encode_utf16(&mut buf));
                match c {
                    '"' => text.push_str("\\\""),
                    '\\' => text.push_str("\\\\"),
                    c if u32::from(*c) < 0x20 => {
                        text.push_str(&format!("\\u{:04x}", u32::from(*c)))
                    }
                    c => text.push(*c),
                }
            }
            Piece::Unit(u, upper) => {
                units.push(*u);
                if *upper {
                    text.push_str(&format!("\\u{u:04X}"));
                } else {
                    text.push_str(&format!("\\u{u:04x}"));
                }
            }
            Piece::Backslash(u) => {
                let shown = format!("\\u{u:04x}");
                units.extend(shown.encode_utf16());
                text.push_str(&format!("\\\\u{u:04x}"));
            }
        }
    }
    text.push('"');
    (text, units)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    /// Any sequence of code units, lone surrogates included, decodes as
    /// `String::from_utf16_lossy` decodes it.
    #[test]
    fn strings_decode_like_utf16_lossy(pieces in proptest::collection::vec(piece(), 0..24)) {
        let (text, units) = literal(&pieces);
        let value = parse(&text);
        prop_assert!(value.is_ok(), "{text}: {value:?}");
        prop_assert_eq!(value.ok(), Some(Value::String(String::from_utf16_lossy(&units))));
    }

    /// Text serde_json accepts is read unchanged, without a copy.
    #[test]
    fn valid_text_is_never_changed(pieces in proptest::collection::vec(piece(), 0..24)) {
        let (text, _) = literal(&pieces);
        let event = format!(r#"{{"k": {text}, "l": [{text}]}}"#);
        if let Ok(want) = serde_json::from_str::<Value>(&event) {
            prop_assert!(matches!(prepare(&event), Ok(Cow::Borrowed(_))));
            prop_assert_eq!(parse(&event).ok(), Some(want));
        }
    }

    /// Serialized values come back as they were.
    #[test]
    fn round_trips(s in any::<String>(), n in any::<i64>(), depth in 1usize..60) {
        let value = json!({"s": s, "n": n, "deep": parse(&nested(depth, "null")).ok()});
        prop_assert_eq!(parse(&value.to_string()).ok(), Some(value.clone()));
        prop_assert_eq!(parse(&serde_json::to_string_pretty(&value).unwrap_or_default()).ok(), Some(value));
    }
}
