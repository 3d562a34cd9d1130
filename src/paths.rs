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

/// The operators of `${NAME…}` whose word is used only when `NAME` is
/// unset (or empty, with the colon), colon forms first: the word is the
/// value (`:-`, `:=`, `-`, `=`) or the shell stops (`:?`, `?`). `PWD`
/// never is, so `${PWD:-x}` is the working directory; [`if_unset`] reads
/// every other variable as unset.
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

/// `word` as the shell expands it when the variables it names are unset:
/// the reading that makes `rm -rf "$DIR/"*` delete `/*`. `None` when the
/// shell would stop instead of running the command (`${DIR:?}`).
///
/// - `$NAME`, `${NAME}`, the positional parameters (`$1`, `${10}`, `$@`,
///   `$*`) and what an unset variable gives through another operator
///   (`${NAME:+x}`, `${NAME%x}`, `${!NAME}`, `${NAME:1}`) are empty;
///   `${#NAME}` is `0`;
/// - `${NAME:-x}`, `${NAME-x}`, `${NAME:=x}` and `${NAME=x}` are `x`, read
///   the same way (`${A:-${B:-/}}` is `/`);
/// - `${NAME:?x}` and `${NAME?x}` make the shell stop: `None`;
/// - what the shell always sets stays as written: `HOME`, `PWD`,
///   `OLDPWD`, `USER`, `LOGNAME`, and the special parameters `$$`, `$?`,
///   `$#`, `$!`, `$-`, `$0`; so do command substitutions and arithmetic
///   (`$(…)`, `$((…))`), which are not variables, and a `$` that starts
///   none of these.
///
/// Names are case-sensitive, as the shell's are: `$home` is another
/// variable than `$HOME`, and is unset. A word without `$` is returned as
/// it is, borrowed.
///
/// ```
/// use hookc::paths::if_unset;
/// assert_eq!(if_unset("$STEAMROOT/*").as_deref(), Some("/*"));
/// assert_eq!(if_unset("${DIR:-/}").as_deref(), Some("/"));
/// assert_eq!(if_unset("${DIR:?}/*"), None);
/// assert_eq!(if_unset("$HOME/build").as_deref(), Some("$HOME/build"));
/// assert_eq!(if_unset("build").as_deref(), Some("build"));
/// ```
pub fn if_unset(word: &str) -> Option<Cow<'_, str>> {
    if !word.contains('$') {
        return Some(Cow::Borrowed(word));
    }
    let mut out = String::with_capacity(word.len());
    expand_unset(word, &mut out)?;
    Some(Cow::Owned(out))
}

/// The variables a shell always has, kept as written by [`if_unset`].
const ALWAYS_SET: [&str; 5] = ["HOME", "PWD", "OLDPWD", "USER", "LOGNAME"];

/// The special parameters a shell always has (`$$`, `$?`, …).
const ALWAYS_SET_SPECIAL: &[u8] = b"$?#!-0";

/// Appends `word` expanded as [`if_unset`] reads it to `out`; `None` when
/// the shell would stop.
fn expand_unset(word: &str, out: &mut String) -> Option<()> {
    let mut rest = word;
    while let Some((before, after)) = rest.split_once('$') {
        out.push_str(before);
        let bytes = after.as_bytes();
        match bytes.first() {
            // `$(…)` and `$((…))`: not a variable; kept to its closing
            // parenthesis (the rest of the word when there is none).
            Some(b'(') => {
                let end = closing(after, b'(', b')').map_or(after.len(), |i| i + 1);
                let (kept, tail) = after.split_at_checked(end).unwrap_or((after, ""));
                out.push('$');
                out.push_str(kept);
                rest = tail;
            }
            Some(b'{') => {
                let Some(close) = closing(after, b'{', b'}') else {
                    // No closing brace: the shell refuses the word; kept.
                    out.push('$');
                    out.push_str(after);
                    return Some(());
                };
                let inner = after.get(1..close).unwrap_or("");
                if !expand_braced(inner, out)? {
                    out.push('$');
                    out.push_str(after.get(..=close).unwrap_or(""));
                }
                rest = after.get(close + 1..).unwrap_or("");
            }
            Some(&b) if b.is_ascii_digit() || b == b'@' || b == b'*' => {
                // A positional parameter is one character: `$10` is `${1}0`.
                if b == b'0' {
                    out.push_str("$0");
                }
                rest = after.get(1..).unwrap_or("");
            }
            Some(&b) if ALWAYS_SET_SPECIAL.contains(&b) => {
                out.push('$');
                out.push(char::from(b));
                rest = after.get(1..).unwrap_or("");
            }
            _ => {
                let len = name_len(after);
                let (name, tail) = after.split_at_checked(len).unwrap_or((after, ""));
                if name.is_empty() || ALWAYS_SET.contains(&name) {
                    out.push('$');
                    out.push_str(name);
                }
                rest = tail;
            }
        }
    }
    out.push_str(rest);
    Some(())
}

/// Appends what `${inner}` gives with its variable unset; `Some(false)`
/// when it names a variable the shell always sets (the caller keeps it
/// as written), `None` when the shell would stop.
fn expand_braced(inner: &str, out: &mut String) -> Option<bool> {
    if let Some(name) = inner.strip_prefix('#') {
        if !name.is_empty() && name_len(name) == name.len() {
            // `${#NAME}`: the length of an unset variable.
            out.push('0');
            return Some(true);
        }
    }
    if inner.len() > 1 && inner.starts_with('!') {
        // `${!REF}`: the variable an unset variable names, none.
        return Some(true);
    }
    let len = match inner.as_bytes().first() {
        Some(b) if b.is_ascii_digit() => inner.bytes().take_while(u8::is_ascii_digit).count(),
        Some(b'@' | b'*') => 1,
        Some(b) if ALWAYS_SET_SPECIAL.contains(b) => return Some(false),
        _ => name_len(inner),
    };
    let (name, operator) = inner.split_at_checked(len).unwrap_or((inner, ""));
    if ALWAYS_SET.contains(&name) || name == "0" {
        return Some(false);
    }
    // An unset variable gives the word of `:-`, `:=`, `-` and `=`; with
    // `:?` and `?` the shell stops.
    for op in UNSET_OPERATORS {
        if let Some(word) = operator.strip_prefix(op) {
            if op.ends_with('?') {
                return None;
            }
            expand_unset(word, out)?;
            return Some(true);
        }
    }
    // Empty: no operator, `:+`, `+`, or one that edits the (empty) value.
    Some(true)
}

/// The length of the shell variable name `text` starts with.
fn name_len(text: &str) -> usize {
    let bytes = text.as_bytes();
    match bytes.first() {
        Some(b) if b.is_ascii_alphabetic() || *b == b'_' => bytes
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
            .count(),
        _ => 0,
    }
}

/// The index of the `close` byte that closes the `open` byte `text`
/// starts with, counting nested pairs.
fn closing(text: &str, open: u8, close: u8) -> Option<usize> {
    let mut depth = 0usize;
    for (i, &b) in text.as_bytes().iter().enumerate() {
        if b == open {
            depth += 1;
        } else if b == close {
            depth = depth.checked_sub(1)?;
            if depth == 0 {
                return Some(i);
            }
        }
    }
    None
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
    basename_in(path).into_owned()
}

/// [`basename`], borrowed from `path` when it is its last segment as
/// written: a POSIX path whose last segment is a name (not empty, `.` or
/// `..`) keeps that segment when normalized, since normalizing changes
/// only the segments before it. Rules compare the names of every pair of
/// a command's words; most are such a segment, and are not copied.
pub(crate) fn basename_in(path: &str) -> Cow<'_, str> {
    if !is_windows_shaped(path) {
        match path.rsplit('/').next() {
            None | Some("" | "." | "..") => {}
            Some(last) => return Cow::Borrowed(last),
        }
    }
    let normal = normalize(path);
    Cow::Owned(match normal.rsplit_once('/') {
        Some((_, "")) | None => normal.into_owned(),
        Some((_, last)) => last.to_owned(),
    })
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

    /// The borrowed basename is the last segment of the normalized path,
    /// on paths whose earlier segments normalizing rewrites.
    #[test]
    fn a_borrowed_basename_is_the_normalized_one() {
        let paths = [
            "a",
            "a.sh",
            "./x.sh",
            "../x.sh",
            "/a/b/../c",
            "a/./b",
            "a//b",
            "/x",
            "~/bin/ls",
            "$HOME/.bashrc",
            "a/b/..",
            "a/.",
            "a/",
            "/",
            "",
            ".",
            "..",
            "x\\y/z",
            r"C:\p\x.txt",
            r"\\srv\share\f",
            "c:/p/X.TXT",
            "of=x.sh",
            "s/foo/bar/g",
            "/tmp/log3.txt",
            "--prod",
        ];
        for path in paths {
            let slow = {
                let normal = normalize(path);
                match normal.rsplit_once('/') {
                    Some((_, "")) | None => normal.into_owned(),
                    Some((_, last)) => last.to_owned(),
                }
            };
            assert_eq!(basename_in(path), slow, "{path:?}");
        }
        assert!(matches!(basename_in("/tmp/x.sh"), Cow::Borrowed("x.sh")));
        assert!(matches!(basename_in("a/.."), Cow::Owned(_)));
    }

    #[test]
    fn unset_variables_expand_as_the_shell_expands_them() {
        for (word, want) in [
            // Empty.
            ("$STEAMROOT/*", Some("/*")),
            ("${DIR}/", Some("/")),
            ("$A$B", Some("")),
            ("$1/", Some("/")),
            ("${10}/x", Some("/x")),
            ("$10", Some("0")),
            ("$@/", Some("/")),
            ("${*}/", Some("/")),
            ("${DIR:+/tmp}/etc", Some("/etc")),
            ("${DIR%/}/", Some("/")),
            ("${!REF}/", Some("/")),
            ("${DIR:1}/", Some("/")),
            ("/srv/${#DIR}", Some("/srv/0")),
            ("$home/", Some("/")),
            // Defaults, read the same way.
            ("${DIR:-/}", Some("/")),
            ("${DIR-/usr}", Some("/usr")),
            ("${DIR:=~}", Some("~")),
            ("${DIR=$HOME}", Some("$HOME")),
            ("${A:-${B:-/}}/*", Some("//*")),
            ("${A:-$B}/", Some("/")),
            ("${DIR:-build}/out", Some("build/out")),
            // The shell stops.
            ("${DIR:?}/*", None),
            ("${DIR?unset}/", None),
            ("${A:-${B:?}}/", None),
            // Kept as written.
            ("$HOME/x", Some("$HOME/x")),
            ("${HOME}", Some("${HOME}")),
            ("${HOME:-/}", Some("${HOME:-/}")),
            ("$PWD/..", Some("$PWD/..")),
            ("${OLDPWD}/x", Some("${OLDPWD}/x")),
            ("/home/$USER", Some("/home/$USER")),
            ("$$/$?/$#/$!/$-/$0", Some("$$/$?/$#/$!/$-/$0")),
            ("${0}", Some("${0}")),
            ("$(pwd)/x", Some("$(pwd)/x")),
            ("$((1 + $N))/x", Some("$((1 + $N))/x")),
            ("$(echo $(ls))$D/", Some("$(echo $(ls))/")),
            ("a$", Some("a$")),
            ("$/x", Some("$/x")),
            ("${DIR", Some("${DIR")),
            ("$(unclosed", Some("$(unclosed")),
            ("plain/path", Some("plain/path")),
        ] {
            assert_eq!(if_unset(word).as_deref(), want, "{word}");
        }
        assert!(matches!(if_unset("plain"), Some(Cow::Borrowed("plain"))));
    }

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
