//! Unescaping and reading tokens whose text needs decoding: `\u{…}`
//! escapes, regex bodies (with `\/`), negative numbers, durations.

/// `-n` for a number literal written as `text` (exact for `i64::MIN`).
pub(super) fn negate(n: &serde_json::Number, text: &str) -> serde_json::Number {
    if let Some(neg) = n.as_i64().and_then(i64::checked_neg) {
        return neg.into();
    }
    if text.bytes().all(|b| b.is_ascii_digit()) {
        if let Ok(neg) = format!("-{text}").parse::<i64>() {
            return neg.into();
        }
    }
    let f = n.as_f64().unwrap_or(0.0);
    serde_json::Number::from_f64(-f).unwrap_or_else(|| n.clone())
}

/// Decodes `\uXXXX` (and a surrogate pair) at byte `i` of `body`: the char
/// and the bytes used, or the bytes to underline and why it is invalid.
pub(super) fn decode_unicode(body: &str, i: usize) -> Result<(char, usize), (usize, &'static str)> {
    let hex = |at: usize| -> Option<u32> {
        let digits = body.get(at..at + 4)?;
        if digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            u32::from_str_radix(digits, 16).ok()
        } else {
            None
        }
    };
    let Some(hi) = hex(i + 2) else {
        let len = 2 + body
            .get(i + 2..)
            .unwrap_or("")
            .bytes()
            .take(4)
            .take_while(u8::is_ascii_hexdigit)
            .count();
        return Err((len, "expected four hex digits"));
    };
    if (0xDC00..0xE000).contains(&hi) {
        return Err((6, "unpaired low surrogate"));
    }
    if (0xD800..0xDC00).contains(&hi) {
        let lo = if body.get(i + 6..i + 8) == Some("\\u") {
            hex(i + 8)
        } else {
            None
        };
        return match lo {
            Some(lo) if (0xDC00..0xE000).contains(&lo) => {
                let code = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                char::from_u32(code)
                    .map(|c| (c, 12))
                    .ok_or((12, "not a unicode scalar value"))
            }
            _ => Err((6, "unpaired high surrogate")),
        };
    }
    char::from_u32(hi)
        .map(|c| (c, 6))
        .ok_or((6, "not a unicode scalar value"))
}

/// The pattern of a regex body (the text between the slashes): `\/`
/// becomes `/`, and a raw control or bidirectional control character (one
/// not after a backslash, and not whitespace, which the `x` flag ignores)
/// becomes the escape `\x{…}`, which matches the same character. Every other
/// escape stays as written. So no raw control character reaches the
/// compiled table, `hookc explain` or `hookc fmt` (which prints the pattern:
/// a raw U+202E in a regex comes out as `\x{202e}`).
pub(crate) fn regex_pattern(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    walk_regex_body(body, |_, piece| {
        out.push_str(piece);
        true
    });
    out
}

/// The byte offset in `body` of byte `at` of its [`regex_pattern`]: for
/// errors the regex parser finds in the pattern, pointed at in the source.
pub(crate) fn regex_body_offset(body: &str, at: usize) -> usize {
    let mut len = 0usize;
    let mut found = body.len();
    walk_regex_body(body, |src, piece| {
        if len + piece.len() > at {
            found = src;
            return false;
        }
        len += piece.len();
        true
    });
    found
}

/// Calls `emit(offset in body, pattern text)` for each piece of the
/// pattern of `body`, in order, until it returns false.
pub(super) fn walk_regex_body(body: &str, mut emit: impl FnMut(usize, &str) -> bool) {
    let mut chars = body.char_indices().peekable();
    let mut buf = [0u8; 4];
    while let Some((i, c)) = chars.next() {
        let go_on = if c == '\\' {
            match chars.next() {
                Some((_, '/')) => emit(i, "/"),
                Some((j, other)) => {
                    let end = j + other.len_utf8();
                    emit(i, body.get(i..end).unwrap_or("\\"))
                }
                None => emit(i, "\\"),
            }
        } else if crate::diag::escape::is_unsafe(c) && !c.is_whitespace() {
            emit(i, &format!("\\x{{{:x}}}", u32::from(c)))
        } else {
            emit(i, c.encode_utf8(&mut buf))
        };
        if !go_on {
            return;
        }
    }
}

/// The most times a test may repeat its event.
pub(super) const MAX_REPEAT: u32 = 100_000;

/// Milliseconds in a duration such as `5s`, `500ms`, `2m`, `1h`.
pub(super) fn parse_duration(text: &str) -> Result<u64, &'static str> {
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (digits, unit) = text.split_at(split);
    let scale: u64 = match unit {
        "ms" => 1,
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        "" => return Err("missing unit"),
        _ => return Err("unknown unit"),
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
        .ok_or("too large")
}
