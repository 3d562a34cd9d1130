//! Writing what hookc produces (tables, formatted and imported sources,
//! keys) so that no reader ever sees half a file and no source is lost.
//!
//! [`write()`] writes the new contents to a temporary file with a random
//! name in the target's directory, flushes it to disk and renames it over
//! the target. A reader that opens the target at any moment (a host loading
//! the table on every hook call while `hookc compile` or `hookc watch`
//! rewrites it) gets the old file or the new one, whole; a crash or a full
//! disk leaves the old file in place and no temporary file behind.
//!
//! - **Symbolic links.** A symlink at the destination is never followed: the
//!   rename replaces the link itself with a regular file, and the file it
//!   pointed to is left as it was. (A link is typically a path someone else
//!   owns; writing through it would change a file this command was never
//!   named.) `hookc fmt` refuses to rewrite a source that is a link, since
//!   replacing the link would detach it from the file it shares.
//! - **Permissions.** A regular file that is replaced keeps its permission
//!   bits; a new file gets the usual `0666` less the umask (like
//!   `std::fs::write`). Ownership is that of the writer.
//! - **Refusing to overwrite.** [`create_new`] writes the same way but fails
//!   with [`std::io::ErrorKind::AlreadyExists`] when anything, a dangling
//!   link included, is at the destination (for key files).
//!
//! [`check_output`] is the other half of "never lost": a compiled table must
//! never be written over the rules it was compiled from.

use std::fmt;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Who may read a new file made by [`create_new`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// `0666` less the umask, as for any file the user makes.
    Shared,
    /// `0600`: the owner only (a secret key).
    Private,
}

/// Replaces the file at `path` with `bytes`, atomically: a temporary file in
/// the same directory is written, synced and renamed over `path`. A symlink
/// at `path` is replaced, not followed; a replaced regular file keeps its
/// permissions. The directory must exist.
///
/// # Errors
///
/// Any I/O error; `path` is then untouched and the temporary file removed.
pub fn write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let existing = std::fs::symlink_metadata(path).ok();
    if existing.as_ref().is_some_and(std::fs::Metadata::is_dir) {
        return Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            "it is a directory",
        ));
    }
    let file = temporary(path, bytes, Access::Shared)?;
    if let Some(meta) = existing.filter(std::fs::Metadata::is_file) {
        file.as_file().set_permissions(meta.permissions())?;
    }
    file.as_file().sync_all()?;
    file.persist(path).map_err(|e| e.error)?;
    sync_dir(path);
    Ok(())
}

/// Writes a new file at `path` atomically, like [`write()`], and fails if
/// anything is already there (a dangling symlink included): nothing is ever
/// overwritten, even by a file that appears while this one is written.
///
/// # Errors
///
/// [`io::ErrorKind::AlreadyExists`] when `path` exists; any other I/O error.
pub fn create_new(path: &Path, bytes: &[u8], access: Access) -> io::Result<()> {
    if std::fs::symlink_metadata(path).is_ok() {
        return Err(io::Error::from(io::ErrorKind::AlreadyExists));
    }
    let file = temporary(path, bytes, access)?;
    file.as_file().sync_all()?;
    file.persist_noclobber(path).map_err(|e| e.error)?;
    sync_dir(path);
    Ok(())
}

/// A temporary file holding `bytes` beside `path`, named `.NAME.XXXXXX.tmp`
/// (random, created exclusively).
fn temporary(path: &Path, bytes: &[u8], access: Access) -> io::Result<tempfile::NamedTempFile> {
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "the path names no file"))?;
    let mut prefix = std::ffi::OsString::from(".");
    prefix.push(name);
    prefix.push(".");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = match access {
            Access::Shared => 0o666,
            Access::Private => 0o600,
        };
        builder.permissions(std::fs::Permissions::from_mode(mode));
    }
    #[cfg(not(unix))]
    let _ = access;
    let mut file = builder.tempfile_in(directory(path))?;
    file.write_all(bytes)?;
    Ok(file)
}

/// The directory `path` is in (`.` for a bare name).
fn directory(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// Makes the rename itself durable, where the platform allows; a failure
/// only weakens durability across a power loss, so it is not reported.
fn sync_dir(path: &Path) {
    #[cfg(unix)]
    if let Ok(dir) = std::fs::File::open(directory(path)) {
        let _ = dir.sync_all();
    }
    #[cfg(not(unix))]
    let _ = path;
}

/// Why a path cannot take a compiled table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OutputError {
    /// The output has the `.hooks` extension of rule sources.
    SourceName {
        /// The output path.
        output: PathBuf,
    },
    /// The output is (or links to) a file the compilation read.
    IsSource {
        /// The output path.
        output: PathBuf,
        /// The source it is the same file as.
        source: PathBuf,
    },
}

impl fmt::Display for OutputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OutputError::SourceName { output } => write!(
                f,
                "refusing to write a compiled table to `{}`: `.hooks` files are rule sources",
                output.display()
            ),
            OutputError::IsSource { output, source } if output == source => write!(
                f,
                "refusing to write a compiled table over `{}`: it is one of the rule sources",
                output.display()
            ),
            OutputError::IsSource { output, source } => write!(
                f,
                "refusing to write a compiled table to `{}`: it is the rule source `{}`",
                output.display(),
                source.display()
            ),
        }
    }
}

impl std::error::Error for OutputError {}

/// Checks that a compiled table may be written to `output`: not a name
/// ending in `.hooks`, and not the same file (after following links and
/// `.`/`..`, or a hard link) as any of `sources`, the files the compilation
/// read, imports included.
///
/// # Errors
///
/// The [`OutputError`] saying which rule was broken.
pub fn check_output<P: AsRef<Path>>(output: &Path, sources: &[P]) -> Result<(), OutputError> {
    for source in sources {
        let source = source.as_ref();
        if same_file(output, source) {
            return Err(OutputError::IsSource {
                output: output.to_path_buf(),
                source: source.to_path_buf(),
            });
        }
    }
    if output
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("hooks"))
    {
        return Err(OutputError::SourceName {
            output: output.to_path_buf(),
        });
    }
    Ok(())
}

/// True when both paths exist and are the same file (through links, `..`,
/// or another hard link).
pub fn same_file(a: &Path, b: &Path) -> bool {
    let (Ok(ma), Ok(mb)) = (std::fs::metadata(a), std::fs::metadata(b)) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        ma.dev() == mb.dev() && ma.ino() == mb.ino()
    }
    #[cfg(not(unix))]
    {
        let _ = (ma, mb);
        matches!((a.canonicalize(), b.canonicalize()), (Ok(x), Ok(y)) if x == y)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("hookc-output-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// Names in `dir` other than `keep`: leftover temporary files.
    fn others(dir: &Path, keep: &[&str]) -> Vec<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| !keep.contains(&n.as_str()))
            .collect()
    }

    #[test]
    fn write_replaces_and_leaves_nothing_behind() {
        let dir = temp_dir("replace");
        let path = dir.join("t.tbl");
        write(&path, b"one").unwrap();
        write(&path, b"two").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
        assert!(others(&dir, &["t.tbl"]).is_empty());
    }

    #[test]
    fn a_bare_name_is_written_in_the_current_directory() {
        assert_eq!(directory(Path::new("t.tbl")), Path::new("."));
        assert_eq!(directory(Path::new("a/t.tbl")), Path::new("a"));
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_is_replaced_not_followed() {
        let dir = temp_dir("symlink");
        let target = dir.join("elsewhere.txt");
        std::fs::write(&target, "precious").unwrap();
        let link = dir.join("t.tbl");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        write(&link, b"table").unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "precious");
        assert!(std::fs::symlink_metadata(&link).unwrap().is_file());
        assert_eq!(std::fs::read(&link).unwrap(), b"table");

        // A dangling link too: nothing is created where it pointed.
        let dangling = dir.join("d.tbl");
        std::os::unix::fs::symlink(dir.join("nowhere"), &dangling).unwrap();
        write(&dangling, b"x").unwrap();
        assert!(!dir.join("nowhere").exists());
        assert!(std::fs::symlink_metadata(&dangling).unwrap().is_file());
    }

    #[cfg(unix)]
    #[test]
    fn permissions_are_kept() {
        use std::os::unix::fs::PermissionsExt;
        let dir = temp_dir("mode");
        let path = dir.join("t.tbl");
        std::fs::write(&path, "old").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        write(&path, b"new").unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o640);

        // A new file is readable by others as usual (not tempfile's 0600),
        // unless the umask says otherwise: it is never more than 0666.
        let fresh = dir.join("fresh.tbl");
        write(&fresh, b"x").unwrap();
        let mode = std::fs::metadata(&fresh).unwrap().permissions().mode() & 0o777;
        let reference = dir.join("reference");
        std::fs::write(&reference, "x").unwrap();
        let expected = std::fs::metadata(&reference).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, expected);
    }

    #[test]
    fn a_directory_is_not_replaced() {
        let dir = temp_dir("dir");
        let sub = dir.join("sub");
        std::fs::create_dir(&sub).unwrap();
        assert!(write(&sub, b"x").is_err());
        assert!(sub.is_dir());
        assert!(others(&dir, &["sub"]).is_empty());
    }

    #[test]
    fn create_new_never_overwrites() {
        let dir = temp_dir("create");
        let path = dir.join("k");
        create_new(&path, b"one", Access::Private).unwrap();
        let err = create_new(&path, b"two", Access::Private).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read(&path).unwrap(), b"one");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
            let dangling = dir.join("d");
            std::os::unix::fs::symlink(dir.join("nowhere"), &dangling).unwrap();
            assert!(create_new(&dangling, b"x", Access::Private).is_err());
            assert!(!dir.join("nowhere").exists());
        }
        assert!(others(&dir, &["k", "d"]).is_empty());
    }

    #[test]
    fn outputs_must_not_be_sources() {
        let dir = temp_dir("check");
        let source = dir.join("a.hooks");
        std::fs::write(&source, "").unwrap();
        let sources = [source.clone()];
        assert!(check_output(&dir.join("a.tbl"), &sources).is_ok());
        assert!(matches!(
            check_output(&dir.join("new.hooks"), &sources),
            Err(OutputError::SourceName { .. })
        ));
        assert!(matches!(
            check_output(&dir.join("NEW.HOOKS"), &sources),
            Err(OutputError::SourceName { .. })
        ));
        let dotted = dir.join(".").join("a.hooks");
        assert!(matches!(
            check_output(&dotted, &sources),
            Err(OutputError::IsSource { .. })
        ));
        // The same file under another name: a hard link, a symlink.
        let hard = dir.join("hard.tbl");
        std::fs::hard_link(&source, &hard).unwrap();
        let err = check_output(&hard, &sources).unwrap_err();
        assert!(err.to_string().contains("it is the rule source"), "{err}");
        #[cfg(unix)]
        {
            let soft = dir.join("soft.tbl");
            std::os::unix::fs::symlink(&source, &soft).unwrap();
            assert!(matches!(
                check_output(&soft, &sources),
                Err(OutputError::IsSource { .. })
            ));
        }
    }
}
