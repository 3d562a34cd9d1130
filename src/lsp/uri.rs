//! `file:` URIs to paths and back.
//!
//! Editors name documents by URI. A `file:` URI names a file on disk, whose
//! directory imports are resolved against and whose `hookc.toml` applies;
//! any other scheme (`untitled:`, …) is a document without a path.

use lsp_types::Uri;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// The path a `file:` URI names; `None` for other schemes, a remote host,
/// or a path that is not UTF-8 once decoded.
pub(crate) fn to_path(uri: &Uri) -> Option<PathBuf> {
    let text = uri.as_str();
    let scheme = text.get(..5)?;
    if !scheme.eq_ignore_ascii_case("file:") {
        return None;
    }
    let rest = text.get(5..)?;
    // `file:///p` (an empty authority) or `file://localhost/p`; `file:/p`.
    let path = match rest.strip_prefix("//") {
        Some(after) => {
            let slash = after.find('/')?;
            let host = after.get(..slash)?;
            if !(host.is_empty() || host.eq_ignore_ascii_case("localhost")) {
                return None;
            }
            after.get(slash..)?
        }
        None => rest,
    };
    let path = path.split(['?', '#']).next().unwrap_or(path);
    let decoded = decode(path)?;
    Some(native(decoded))
}

/// The `file:` URI of an absolute path; `None` for a relative one.
pub(crate) fn from_path(path: &Path) -> Option<Uri> {
    if !path.is_absolute() {
        return None;
    }
    let text = path.to_str()?;
    let text = if cfg!(windows) {
        format!("/{}", text.replace('\\', "/"))
    } else {
        text.to_owned()
    };
    let mut out = String::from("file://");
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    Uri::from_str(&out).ok()
}

/// Percent-decodes `text`; `None` when the bytes are not UTF-8 or an escape
/// is malformed.
fn decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// A decoded URI path as a native path: on Windows `/C:/a` is `C:\a`.
fn native(path: String) -> PathBuf {
    if cfg!(windows) {
        let trimmed = match path.as_bytes() {
            [b'/', drive, b':', ..] if drive.is_ascii_alphabetic() => path.get(1..).unwrap_or(""),
            _ => path.as_str(),
        };
        PathBuf::from(trimmed.replace('/', "\\"))
    } else {
        PathBuf::from(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uri(s: &str) -> Uri {
        Uri::from_str(s).unwrap()
    }

    #[cfg(unix)]
    #[test]
    fn file_uris_are_paths() {
        assert_eq!(
            to_path(&uri("file:///home/u/rules/guard.hooks")),
            Some(PathBuf::from("/home/u/rules/guard.hooks"))
        );
        assert_eq!(
            to_path(&uri("file:///home/u/my%20rules/%C3%A9t%C3%A9.hooks")),
            Some(PathBuf::from("/home/u/my rules/été.hooks"))
        );
        assert_eq!(
            to_path(&uri("file://localhost/a.hooks")),
            Some(PathBuf::from("/a.hooks"))
        );
        assert_eq!(to_path(&uri("untitled:Untitled-1")), None);
        assert_eq!(to_path(&uri("file://server/share/a.hooks")), None);
        assert_eq!(to_path(&uri("file:///a/%FF.hooks")), None, "not UTF-8");
    }

    #[cfg(unix)]
    #[test]
    fn paths_are_file_uris() {
        let path = Path::new("/home/u/my rules/été#1.hooks");
        let uri = from_path(path).unwrap();
        assert_eq!(
            uri.as_str(),
            "file:///home/u/my%20rules/%C3%A9t%C3%A9%231.hooks"
        );
        assert_eq!(to_path(&uri).as_deref(), Some(path));
        assert_eq!(from_path(Path::new("relative.hooks")), None);
    }
}
