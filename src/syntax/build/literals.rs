//! String and regex literals: their text, escapes decoded, with a
//! diagnostic for each bad escape.

use super::*;
use crate::syntax::errors::unterminated_string_error;
use crate::syntax::unescape::*;

use crate::diag::Diagnostic;
use crate::span::Span;
use crate::syntax::ast::{RegexLit, StrLit};
use crate::syntax::grammar::Rule;

impl AstBuilder<'_> {
    /// Lowers a `long_string`: the text as written; reports a missing
    /// closing `"""`.
    pub(super) fn long_string(&mut self, p: P<'_>) -> StrLit {
        let span = self.span(&p);
        let mut value = String::new();
        for part in p.into_inner() {
            match part.as_rule() {
                Rule::long_string_body => value = part.as_str().to_string(),
                Rule::long_unterminated => self.diags.push(
                    Diagnostic::error("syntax", "unterminated `\"\"\"` string")
                        .in_file(self.file)
                        .with_primary(span, "it starts here")
                        .with_help("end it with `\"\"\"`"),
                ),
                _ => {}
            }
        }
        StrLit { value, span }
    }

    /// Lowers a `string`, decoding its escapes; reports bad escapes and a
    /// missing closing quote.
    pub(super) fn string(&mut self, p: P<'_>) -> StrLit {
        let span = self.span(&p);
        let mut value = String::new();
        let mut terminated = true;
        for part in p.into_inner() {
            match part.as_rule() {
                Rule::string_body => {
                    let at = self.span(&part).start as usize;
                    value = self.unescape(part.as_str(), at);
                }
                Rule::unterminated => terminated = false,
                _ => {}
            }
        }
        if !terminated {
            self.diags.push(unterminated_string_error(self.file, span));
        }
        StrLit { value, span }
    }

    /// Decodes JSON escapes in `body`, which starts at byte `at` of the file.
    pub(super) fn unescape(&mut self, body: &str, at: usize) -> String {
        let mut out = String::with_capacity(body.len());
        let mut i = 0;
        while let Some(c) = body.get(i..).and_then(|s| s.chars().next()) {
            if c != '\\' {
                out.push(c);
                i += c.len_utf8();
                continue;
            }
            let Some(e) = body.get(i + 1..).and_then(|s| s.chars().next()) else {
                // A lone backslash at the end of an unterminated string.
                break;
            };
            let simple = match e {
                '"' => Some('"'),
                '\\' => Some('\\'),
                '/' => Some('/'),
                'n' => Some('\n'),
                't' => Some('\t'),
                'r' => Some('\r'),
                'b' => Some('\u{8}'),
                'f' => Some('\u{c}'),
                _ => None,
            };
            if let Some(ch) = simple {
                out.push(ch);
                i += 2;
                continue;
            }
            if e == 'u' {
                match decode_unicode(body, i) {
                    Ok((ch, len)) => {
                        out.push(ch);
                        i += len;
                    }
                    Err((len, why)) => {
                        self.diags.push(
                            Diagnostic::error("syntax", "invalid unicode escape in string")
                                .in_file(self.file)
                                .with_primary(Span::new(at + i, at + i + len), why)
                                .with_help(
                                    "write `\\u` followed by four hex digits, e.g. `\\u00e9`",
                                ),
                        );
                        out.push('\u{fffd}');
                        i += len;
                    }
                }
                continue;
            }
            let len = 1 + e.len_utf8();
            self.diags.push(
                Diagnostic::error("syntax", format!("invalid escape `\\{e}` in string"))
                    .in_file(self.file)
                    .with_primary(Span::new(at + i, at + i + len), "unknown escape")
                    .with_help(
                        "the escapes are `\\\"`, `\\\\`, `\\/`, `\\n`, `\\t`, `\\r`, `\\b`, `\\f` and `\\uXXXX`",
                    ),
            );
            out.push(e);
            i += len;
        }
        out
    }

    /// Lowers a `regex` literal; reports unknown flags and a missing slash.
    pub(super) fn regex(&mut self, p: P<'_>) -> RegexLit {
        let span = self.span(&p);
        let mut pattern = String::new();
        let mut pattern_span = span;
        let mut flags = String::new();
        let mut terminated = true;
        for part in p.into_inner() {
            match part.as_rule() {
                Rule::regex_body | Rule::regex_body_verbose => {
                    pattern_span = self.span(&part);
                    pattern = regex_pattern(part.as_str());
                }
                Rule::regex_flags => {
                    let at = self.span(&part).start as usize;
                    for (i, f) in part.as_str().char_indices() {
                        if "imsxU".contains(f) {
                            flags.push(f);
                        } else {
                            self.diags.push(
                                Diagnostic::error("syntax", format!("unknown regex flag `{f}`"))
                                    .in_file(self.file)
                                    .with_primary(
                                        Span::new(at + i, at + i + f.len_utf8()),
                                        "unknown flag",
                                    )
                                    .with_help("the flags are `i`, `m`, `s`, `x` and `U`"),
                            );
                        }
                    }
                }
                Rule::unterminated => terminated = false,
                _ => {}
            }
        }
        if !terminated {
            self.diags.push(
                Diagnostic::error("syntax", "unterminated regex")
                    .in_file(self.file)
                    .with_primary(span, "missing closing `/`")
                    .with_help(
                        "a regex ends on the line it starts on (unless it has the `x` flag); write `\\/` for a literal slash",
                    ),
            );
        }
        RegexLit {
            pattern,
            flags,
            span,
            pattern_span,
        }
    }
}
