//! Names this build of hookc for the tables it caches: `HOOKC_BUILD_ID`, a
//! hash of what the build is made from (the package's version, every file
//! under `src/`, the grammar, and the lock file when there is one).
//!
//! `hookc claude --rules` keeps the tables it compiles in a cache keyed by
//! the sources' digest. A table compiled by another build of hookc may read
//! differently (a wire form changed under the same format version) or say
//! something else (a compiler that has since been fixed), so the cache
//! keys by the build as well: a new build compiles the sources once again.
//! Two builds from the same files share the name, and so the cache.
//!
//! The hash is the standard library's default hasher: stable within one
//! toolchain, which is all a cache key needs (a new toolchain only costs
//! one compile per rules directory).

use std::hash::{DefaultHasher, Hasher};
use std::path::{Path, PathBuf};

fn main() {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let mut files = Vec::new();
    files_under(&root.join("src"), &mut files);
    files.push(root.join("grammar/hooks.pest"));
    files.push(root.join("Cargo.lock"));
    files.sort();
    let mut hash = DefaultHasher::new();
    hash.write(
        std::env::var("CARGO_PKG_VERSION")
            .unwrap_or_default()
            .as_bytes(),
    );
    for file in &files {
        // A file that cannot be read (no lock file in a package) is
        // hashed as its name alone.
        let relative = file.strip_prefix(&root).unwrap_or(file);
        hash.write(relative.to_string_lossy().as_bytes());
        let text = std::fs::read(file).unwrap_or_default();
        hash.write_usize(text.len());
        hash.write(&text);
    }
    println!("cargo::rustc-env=HOOKC_BUILD_ID={:016x}", hash.finish());
    for watched in ["src", "grammar/hooks.pest", "Cargo.lock", "build.rs"] {
        println!("cargo::rerun-if-changed={watched}");
    }
}

/// Every file under `dir`, its subdirectories' included.
fn files_under(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files_under(&path, files);
        } else {
            files.push(path);
        }
    }
}
