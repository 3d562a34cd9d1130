//! Lexical normalization of file paths, so that a rule scoped to
//! `**/src/**` sees `/proj/src/../.claude/settings.json` as the
//! `/proj/.claude/settings.json` it names.
//!
//! A schema marks the fields that hold file paths (type `path`: Claude
//! Code's `file_path`, `notebook_path`, `cwd`, …); every condition and
//! matcher reads such a field through [`normalize`] (a message template
//! quotes it as the event has it, and the event itself is never changed):
//!
//! - `.` segments go, and `..` takes the segment before it away; a `..` at
//!   the root stays at the root (`/..` is `/`), one at the start of a
//!   relative path stays (there is nothing lexical to take away);
//! - repeated separators become one, and a trailing separator goes
//!   (`/a//b/` is `/a/b`), except the `//` that starts a Windows UNC path;
//! - in a Windows-shaped path (a drive letter `C:`, a UNC `\\server`, or a
//!   `\` and no `/`), `\` is a separator and is written `/`, and the drive
//!   letter is written in lower case (`C:\Proj\a` is `c:/Proj/a`);
//! - in a Windows-shaped path, each segment is the file name Windows opens:
//!   a stream suffix goes (`rules.tbl::$DATA` and `settings.json:x` are
//!   those files; `.hookc::$INDEX_ALLOCATION` is that directory), and so do
//!   trailing dots and spaces (`.hookc.` and `.hookc ` open `.hookc`), so
//!   that a rule on the file sees every spelling of it.
//!
//! It is lexical only: nothing is read from the file system, so a symbolic
//! link is not followed (a link inside the project that points out of it
//! still looks inside).
//!
//! **Case.** Windows compares file names without case, so a condition on a
//! path field whose value is Windows-shaped matches without case too:
//! `==`, `in`, `starts_with`, `ends_with`, `contains`, `glob` and `matches`
//! on `C:\Proj\.CLAUDE\Settings.json` hold as they would on
//! `c:/proj/.claude/settings.json` (the table's automata are built for
//! exact case, so such a value is matched atom by atom: text and constants
//! upper-cased as Windows compares file names, [`windows_case`], so that
//! `ſecret.txt` is `SECRET.TXT`, and regexes without case). A POSIX path
//! keeps exact case, as Linux does. What a function returns
//! (`normalize(…)`, `basename(…)`) and what a message quotes keep the case
//! the agent wrote.
//! A path that is already normal is returned as it is, borrowed: reading
//! an ordinary path allocates nothing.

use std::borrow::Cow;

/// `path`, lexically normalized (see the [module docs](self)).
///
/// ```
/// use hookc::paths::normalize;
/// assert_eq!(normalize("/proj/src/../.claude/settings.json"), "/proj/.claude/settings.json");
/// assert_eq!(normalize("/proj//src/./a.rs"), "/proj/src/a.rs");
/// assert_eq!(normalize("/../../etc/passwd"), "/etc/passwd");
/// assert_eq!(normalize(r"C:\proj\src\..\.claude\settings.json"), "c:/proj/.claude/settings.json");
/// assert_eq!(normalize("../up/./x"), "../up/x");
/// ```
pub fn normalize(path: &str) -> Cow<'_, str> {
    let windows = is_windows_shaped(path);
    if is_normal(path, windows) {
        return Cow::Borrowed(path);
    }
    Cow::Owned(normalized(path, windows))
}

/// `path` resolved against the directory `base`, normalized, as a shell
/// resolves a relative path against its working directory: a path that is
/// absolute or starts from a home or a variable (`/…`, `\\…`, `C:…`, `~…`,
/// `$…`) stays as it is, and so does any path when there is no `base`
/// (`None`: the host did not say where the command runs).
///
/// A path that starts from the working directory by one of its names is
/// resolved against `base` too, since the shell expands each of them to
/// it: `$PWD`, `${PWD}` (also with a default it never uses, `${PWD:-x}`),
/// `$(pwd)`, `` `pwd` `` (also with `-L` or `-P`) and `~+`, alone or
/// before a separator. A rule that reads `.` as the
/// working directory then reads `$PWD`, `~+/..` and `$(pwd)/*` as the
/// shell does, not as a variable it cannot see. The names are
/// case-sensitive, as the shell's are (`$pwd` is another variable).
///
/// ```
/// use hookc::paths::join;
/// assert_eq!(join(Some("/proj/.hookc"), "rules.tbl"), "/proj/.hookc/rules.tbl");
/// assert_eq!(join(Some("/proj/src"), "../.claude/settings.json"), "/proj/.claude/settings.json");
/// assert_eq!(join(Some("/proj"), "/etc/passwd"), "/etc/passwd");
/// assert_eq!(join(Some("/proj"), "~/.ssh"), "~/.ssh");
/// assert_eq!(join(Some(r"C:\proj"), r"src\a.rs"), "c:/proj/src/a.rs");
/// assert_eq!(join(None, "src/../a.rs"), "a.rs");
/// assert_eq!(join(Some("/home/dev/proj"), "$PWD/.."), "/home/dev");
/// assert_eq!(join(Some("/home/dev"), "~+"), "/home/dev");
/// assert_eq!(join(None, "~+/a"), "~+/a");
/// ```
pub fn join(base: Option<&str>, path: &str) -> String {
    let path = match (base, working_directory_rest(path)) {
        (Some(base), Some(rest)) if !base.is_empty() => {
            return normalize(&format!("{base}{rest}")).into_owned();
        }
        _ => path,
    };
    let rooted = path.starts_with(['/', '\\', '~', '$'])
        || matches!(path.as_bytes(), [letter, b':', ..] if letter.is_ascii_alphabetic());
    match base {
        Some(base) if !rooted && !base.is_empty() => {
            // A Windows-shaped base joins with its own separator, so the
            // whole reads as one Windows path.
            let separator = if is_windows_shaped(base) { '\\' } else { '/' };
            normalize(&format!("{base}{separator}{path}")).into_owned()
        }
        _ => normalize(path).into_owned(),
    }
}

/// The names a shell expands to its working directory.
const WORKING_DIRECTORY_NAMES: [&str; 9] = [
    "${PWD}",
    "$PWD",
    "$(pwd -L)",
    "$(pwd -P)",
    "$(pwd)",
    "`pwd -L`",
    "`pwd -P`",
    "`pwd`",
    "~+",
];

/// The operators of `${PWD…}` whose word is used only when `PWD` is unset
/// or empty, which it never is: `${PWD:-x}`, `${PWD=x}`, `${PWD:?x}` are
/// the working directory.
const UNSET_OPERATORS: [&str; 6] = [":-", ":=", ":?", "-", "=", "?"];

/// What follows a name of the working directory that starts `path` (empty,
/// or from a separator on), if one does: `$PWD/..` gives `/..`; `$PWDX`
/// (another variable) and `~+x` (a user's name) give nothing.
fn working_directory_rest(path: &str) -> Option<&str> {
    let after_name = WORKING_DIRECTORY_NAMES
        .iter()
        .find_map(|name| path.strip_prefix(name))
        .or_else(|| {
            // `${PWD:-x}`: up to the brace that closes it.
            let operand = path.strip_prefix("${PWD")?;
            UNSET_OPERATORS
                .iter()
                .find(|op| operand.starts_with(**op))?;
            operand.split_once('}').map(|(_, rest)| rest)
        });
    after_name.filter(|rest| rest.is_empty() || rest.starts_with(['/', '\\']))
}

/// The last segment of `path`, normalized first: `basename("/a/b/")` is
/// `b`, `basename("C:\\x\\y.txt")` is `y.txt`, `basename("/")` is `/`.
///
/// ```
/// use hookc::paths::basename;
/// assert_eq!(basename("/proj/src/../a.rs"), "a.rs");
/// assert_eq!(basename(r"C:\proj\x.txt"), "x.txt");
/// assert_eq!(basename("/"), "/");
/// ```
pub fn basename(path: &str) -> String {
    let normal = normalize(path);
    match normal.rsplit_once('/') {
        Some((_, "")) | None => normal.into_owned(),
        Some((_, last)) => last.to_owned(),
    }
}

/// The last segment of `path` without its extension: `stem("/a/b.tar.gz")`
/// is `b.tar`; a name with no dot, or whose only dot starts it (`.env`),
/// is its own stem.
///
/// ```
/// use hookc::paths::{extension, stem};
/// assert_eq!(stem("/proj/src/main.rs"), "main");
/// assert_eq!(stem("C:\\proj\\.env"), ".env");
/// assert_eq!(extension("/a/b.tar.gz"), "gz");
/// assert_eq!(extension("Makefile"), "");
/// ```
pub fn stem(path: &str) -> String {
    let name = basename(path);
    match split_extension(&name) {
        Some((stem, _)) => stem.to_owned(),
        None => name,
    }
}

/// The extension of the last segment of `path`, without its dot (`gz` for
/// `b.tar.gz`); empty when it has none (see [`stem`]).
pub fn extension(path: &str) -> String {
    let name = basename(path);
    split_extension(&name).map_or_else(String::new, |(_, ext)| ext.to_owned())
}

/// `name` split at its last dot, unless that dot starts the name.
fn split_extension(name: &str) -> Option<(&str, &str)> {
    match name.rsplit_once('.') {
        Some(("", _)) | None => None,
        Some(split) => Some(split),
    }
}

/// `path` without its last segment, normalized first: `dirname("/a/b")` is
/// `/a`, `dirname("b")` is `.`, `dirname("/a")` and `dirname("/")` are `/`.
///
/// ```
/// use hookc::paths::dirname;
/// assert_eq!(dirname("/proj/src/./a.rs"), "/proj/src");
/// assert_eq!(dirname("a.rs"), ".");
/// assert_eq!(dirname("/a"), "/");
/// ```
pub fn dirname(path: &str) -> String {
    let normal = normalize(path);
    match normal.rsplit_once('/') {
        None => ".".to_owned(),
        Some(("", _)) => "/".to_owned(),
        Some((_, "")) => normal.into_owned(),
        Some((dir, _)) if dir.ends_with(':') => format!("{dir}/"),
        Some((dir, _)) => dir.to_owned(),
    }
}

/// `name` as Windows compares file names: each character in upper case
/// when its upper case is one character (NTFS's table maps each character
/// to one: `ſ`, the long s, is `S`, so `ſecret.txt` opens `secret.txt`),
/// else as it is (`ß` stays `ß`). Lower-casing would keep the long s apart.
///
/// ```
/// use hookc::paths::windows_case;
/// assert_eq!(windows_case("c:/Proj/\u{17F}ecret.txt"), windows_case("C:/PROJ/SECRET.TXT"));
/// assert_ne!(windows_case("stra\u{DF}e"), windows_case("STRASSE"));
/// ```
pub fn windows_case(name: &str) -> String {
    name.chars()
        .map(|c| {
            let mut upper = c.to_uppercase();
            match (upper.next(), upper.next()) {
                (Some(u), None) => u,
                _ => c,
            }
        })
        .collect()
}

/// True for a path written the Windows way: a drive letter, a UNC start,
/// or a `\` and no `/`. Conditions match such a path without regard to
/// case (see the [module docs](self)).
pub fn is_windows_shaped(path: &str) -> bool {
    let bytes = path.as_bytes();
    let drive = matches!(bytes, [letter, b':', ..] if letter.is_ascii_alphabetic());
    drive || path.starts_with(r"\\") || (path.contains('\\') && !path.contains('/'))
}

/// The prefix a Windows-shaped path keeps as written: `c:` (lowered later),
/// or `//` for UNC; `""` otherwise.
fn split_prefix(path: &str, windows: bool) -> (&str, &str) {
    if !windows {
        return ("", path);
    }
    let bytes = path.as_bytes();
    if matches!(bytes, [letter, b':', ..] if letter.is_ascii_alphabetic()) {
        return path.split_at(2);
    }
    if bytes.len() >= 2 && bytes.iter().take(2).all(|&b| b == b'\\' || b == b'/') {
        return path.split_at(2);
    }
    ("", path)
}

/// True when [`normalized`] would give `path` back unchanged.
fn is_normal(path: &str, windows: bool) -> bool {
    if windows {
        let (prefix, rest) = split_prefix(path, windows);
        // A prefix to rewrite, or a `\` to turn into `/`: not normal.
        if prefix.bytes().any(|b| b.is_ascii_uppercase() || b == b'\\') || rest.contains('\\') {
            return false;
        }
        return segments_normal(rest) && rest.split('/').all(|s| windows_name(s) == s);
    }
    segments_normal(path)
}

/// True when the `/`-separated `rest` has no `.`, no removable `..`, no
/// empty segment (other than the root's) and no trailing separator.
fn segments_normal(rest: &str) -> bool {
    if rest.is_empty() || rest == "/" {
        return true;
    }
    let absolute = rest.starts_with('/');
    let body = if absolute { &rest[1..] } else { rest };
    let mut leading_dots = true;
    for segment in body.split('/') {
        match segment {
            "" | "." => return false,
            ".." if absolute || !leading_dots => return false,
            ".." => {}
            _ => leading_dots = false,
        }
    }
    true
}

/// The normal form of `path`, built anew.
fn normalized(path: &str, windows: bool) -> String {
    let (prefix, rest) = split_prefix(path, windows);
    let mut out = String::with_capacity(path.len());
    if prefix.len() == 2 && prefix.as_bytes().get(1) == Some(&b':') {
        out.push_str(&prefix.to_ascii_lowercase());
    } else if !prefix.is_empty() {
        out.push_str("//");
    }
    let rest: Cow<'_, str> = if windows {
        Cow::Owned(rest.replace('\\', "/"))
    } else {
        Cow::Borrowed(rest)
    };
    // A UNC path is rooted by its `//`; a drive path is rooted by a `/`
    // after the drive (`c:/a`), else relative to the drive's directory.
    let absolute = rest.starts_with('/') || prefix.starts_with("//") || prefix.starts_with(r"\\");
    let mut kept: Vec<&str> = Vec::new();
    for segment in rest.split('/') {
        let segment = if windows {
            windows_name(segment)
        } else {
            segment
        };
        match segment {
            "" | "." => {}
            ".." => match kept.last() {
                Some(&last) if last != ".." => {
                    kept.pop();
                }
                // At the root nothing is above; a relative path keeps it.
                _ if absolute => {}
                _ => kept.push(".."),
            },
            _ => kept.push(segment),
        }
    }
    if absolute && !out.ends_with("//") {
        out.push('/');
    }
    out.push_str(&kept.join("/"));
    if out.is_empty() && !path.is_empty() {
        out.push('.');
    }
    out
}

/// The file name a Windows path segment opens: the part before a stream
/// suffix (`:` cannot be part of a Windows file name), without trailing
/// dots and spaces, which Windows drops; `.` and `..` stay as they are,
/// and so does a drive (`\\?\C:\…`).
fn windows_name(segment: &str) -> &str {
    if matches!(segment.as_bytes(), [letter, b':'] if letter.is_ascii_alphabetic()) {
        return segment;
    }
    let name = segment.split_once(':').map_or(segment, |(name, _)| name);
    if name.bytes().all(|b| b == b'.') {
        return name;
    }
    name.trim_end_matches(['.', ' '])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_working_directory_by_its_names_joins_as_the_directory() {
        for name in WORKING_DIRECTORY_NAMES {
            for (rest, want) in [
                ("", "/home/dev/proj"),
                ("/", "/home/dev/proj"),
                ("/.", "/home/dev/proj"),
                ("/..", "/home/dev"),
                ("/../..", "/home"),
                ("/*", "/home/dev/proj/*"),
                ("/src/../a.rs", "/home/dev/proj/a.rs"),
            ] {
                let path = format!("{name}{rest}");
                assert_eq!(join(Some("/home/dev/proj"), &path), want, "{path}");
            }
            // A Windows working directory keeps its separator.
            assert_eq!(
                join(Some(r"C:\Users\dev\proj"), &format!(r"{name}\.."),),
                "c:/Users/dev",
                "{name}"
            );
            // With no working directory, nothing resolves it.
            assert_eq!(join(None, name), normalize(name), "{name}");
            assert_eq!(join(Some(""), name), normalize(name), "{name}");
        }
        // A default for an unset `PWD` is never used.
        for path in ["${PWD:-/}", "${PWD=/tmp}", "${PWD:?unset}", "${PWD-}"] {
            assert_eq!(
                join(Some("/home/dev/proj"), path),
                "/home/dev/proj",
                "{path}"
            );
            let parent = format!("{path}/..");
            assert_eq!(
                join(Some("/home/dev/proj"), &parent),
                "/home/dev",
                "{parent}"
            );
        }
        // Other variables and users, and other shell expansions, stay as
        // they are.
        for path in [
            "$PWDX",
            "$pwd",
            "${pwd}",
            "$(PWD)",
            "~+x",
            "~+x/..",
            "~-",
            "$OLDPWD",
            "${PWD%/*}",
            "${PWD:+x}",
            "${PWD:-/}x",
            "${PWD:-",
            "${PWD}x/a",
            "$(pwd)x",
        ] {
            assert_eq!(
                join(Some("/home/dev/proj"), path),
                normalize(path),
                "{path}"
            );
        }
    }

    #[test]
    fn posix_paths_normalize_lexically() {
        for (input, want) in [
            (
                "/proj/src/../.claude/settings.json",
                "/proj/.claude/settings.json",
            ),
            ("/proj/src/../../etc/passwd", "/etc/passwd"),
            ("/../../../etc/passwd", "/etc/passwd"),
            ("/proj//src///a.rs", "/proj/src/a.rs"),
            ("/proj/./src/./a.rs", "/proj/src/a.rs"),
            ("/proj/src/", "/proj/src"),
            ("/proj/src/.", "/proj/src"),
            ("/proj/src/..", "/proj"),
            ("//proj", "/proj"),
            ("/", "/"),
            ("/..", "/"),
            ("src/../../x", "../x"),
            ("./a", "a"),
            ("a/..", "."),
            (".", "."),
            ("../a/../b", "../b"),
            ("", ""),
            // A backslash in a POSIX path is part of a name.
            ("/proj/a\\..\\b", "/proj/a\\..\\b"),
        ] {
            assert_eq!(normalize(input), want, "{input:?}");
            // Normal forms are fixed points.
            assert_eq!(normalize(want), want, "{want:?} again");
        }
    }

    #[test]
    fn windows_paths_use_forward_slashes_and_a_lower_case_drive() {
        for (input, want) in [
            (
                r"C:\proj\src\..\.claude\settings.json",
                "c:/proj/.claude/settings.json",
            ),
            (r"C:\proj\\src\.\a.rs", "c:/proj/src/a.rs"),
            ("C:/proj/src/../x", "c:/proj/x"),
            (r"c:\..\..\windows", "c:/windows"),
            (r"C:proj\a", "c:proj/a"),
            (r"\\server\share\a\..\b", "//server/share/b"),
            (r"src\..\..\x", "../x"),
            // Streams, trailing dots and spaces: the names Windows opens.
            (r"C:\p\.hookc\rules.tbl::$DATA", "c:/p/.hookc/rules.tbl"),
            (
                r"C:\p\.claude\settings.json:x",
                "c:/p/.claude/settings.json",
            ),
            (
                r"C:\p\.hookc::$INDEX_ALLOCATION\rules.tbl",
                "c:/p/.hookc/rules.tbl",
            ),
            (r"C:\p\.hookc.\rules.tbl", "c:/p/.hookc/rules.tbl"),
            (r"C:\p\.hookc .\rules.tbl . ", "c:/p/.hookc/rules.tbl"),
            (r"C:\p\settings.json.", "c:/p/settings.json"),
            (r"C:\p\a\...\b", "c:/p/a/.../b"),
            (r"\\?\C:\p\.hookc.\x", "//?/C:/p/.hookc/x"),
        ] {
            assert_eq!(normalize(input), want, "{input:?}");
            // A UNC path is known by its backslashes: written with `/` it
            // reads as a POSIX path, whose leading `//` is one `/`.
            if !want.starts_with("//") {
                assert_eq!(normalize(want), want, "{want:?} again");
            }
        }
    }

    #[test]
    fn normal_paths_are_borrowed() {
        for path in ["/proj/src/a.rs", "a/b", "../a", "c:/x", "/"] {
            assert!(matches!(normalize(path), Cow::Borrowed(_)), "{path:?}");
        }
        assert!(matches!(normalize("/a/../b"), Cow::Owned(_)));
    }
}
