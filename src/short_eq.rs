//! Equality of the short byte strings dispatch compares on every event: an
//! event's member names (`tool`, `args`) and the keys of a field's
//! exact-value and literal tables.
//!
//! A plain `==` on slices calls `memcmp`, whose call and size dispatch cost
//! more than the comparison of a few bytes. Up to 16 bytes, two
//! overlapping word loads from each side decide it inline.

/// `a == b`, without a call for lengths up to 16.
#[inline]
pub(crate) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    match n {
        // The first and last eight bytes (overlapping below 16) cover all.
        8..=16 => word::<8>(a, 0) == word::<8>(b, 0) && word::<8>(a, n - 8) == word::<8>(b, n - 8),
        4..=7 => word::<4>(a, 0) == word::<4>(b, 0) && word::<4>(a, n - 4) == word::<4>(b, n - 4),
        _ => a == b,
    }
}

/// The `W` bytes of `s` from `at`, as one comparable array (the caller
/// knows they are there; a short slice compares as zeros and never
/// equal to a full one, since both sides have the same length).
#[inline(always)]
fn word<const W: usize>(s: &[u8], at: usize) -> [u8; W] {
    s.get(at..at + W)
        .and_then(|w| w.try_into().ok())
        .unwrap_or([0; W])
}

#[cfg(test)]
mod tests {
    use super::same_bytes;

    #[test]
    fn same_bytes_is_slice_equality_at_every_length() {
        // Every length from 0 to 20 against itself, a copy with each one
        // byte changed, and one byte longer or shorter.
        for n in 0..=20usize {
            let a: Vec<u8> = (0..n as u8).map(|i| b'a' + i).collect();
            assert!(same_bytes(&a, &a.clone()), "{n} bytes against a copy");
            for i in 0..n {
                let mut b = a.clone();
                b[i] ^= 0x20;
                assert!(!same_bytes(&a, &b), "{n} bytes, byte {i} changed");
            }
            let mut longer = a.clone();
            longer.push(b'z');
            assert!(!same_bytes(&a, &longer), "{n} against {} bytes", n + 1);
            assert!(!same_bytes(&longer, &a), "{} against {n} bytes", n + 1);
        }
    }

    #[test]
    fn same_bytes_agrees_with_eq_on_names() {
        let names = [
            "",
            "a",
            "tool",
            "args",
            "tool_name",
            "tool_input",
            "command",
            "cmd7 --flag",
        ];
        for a in names {
            for b in names {
                assert_eq!(
                    same_bytes(a.as_bytes(), b.as_bytes()),
                    a == b,
                    "{a:?} {b:?}"
                );
            }
        }
    }
}
