//! The file store: `rate(…)` counts in one small file, shared by the
//! processes of one machine. The home of [`FileStore`].
//!
//! The store is a directory (by default the project's `.hookc/state/`, with
//! a `.gitignore` of `*` written when the store creates it) holding:
//!
//! - `rates`: every key's recent arrivals;
//! - `rates.lock`: an empty file, locked exclusively (advisory `flock` on
//!   Unix, `LockFileEx` on Windows, through the `fd-lock` crate) around each
//!   count. The data file is never locked itself, because it is replaced.
//!
//! One count is: lock, read `rates`, record the event, drop what left its
//! window, write the result to `rates.tmp`, rename it over `rates`, unlock.
//! So concurrent processes (and threads: `flock` locks belong to an open
//! file, and every count opens its own) count every event exactly once, and
//! a reader never sees half a file: a process that dies while writing
//! leaves `rates` as it was. A lock held past the timeout (2 s by default:
//! a count takes well under a millisecond) is a failure of the store.
//!
//! The file is not synced to disk (that would cost every event several
//! milliseconds), so after a power loss it may be torn. Whatever is wrong
//! with it, a wrong label, a size or count that does not add up, arrivals
//! out of order, a checksum (CRC-32 of everything before it) that does not
//! match, the store starts again from an empty file, with a warning: the
//! counts of at most one window are lost, as when a long-lived host
//! restarts. An unreadable or unwritable file, by contrast, is a failure.
//!
//! # Format
//!
//! Little-endian: the label `HOOKCRT1`, the number of keys (`u32`), then
//! per key its digest (16 bytes of a SHA-256 of the key template, the window and the rendered key), its window in
//! milliseconds (`u64`), the number of arrivals (`u32`) and the arrivals
//! (`u64` milliseconds since the Unix epoch, oldest first); last, the
//! CRC-32 (`u32`).
//!
//! # Bounds
//!
//! At most 10,000 keys and 1 MiB (both can be changed): every count rewrites
//! only what is still in a window, and when the bounds are reached, the
//! keys seen least recently are dropped first. A key needs 28 bytes plus 8
//! per arrival kept, so the largest limit (100,000) fits.

use super::{now_ms, slide, Counter, Hit, StoreError};
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The label the file starts with (the last byte is the format's version).
const LABEL: &[u8; 8] = b"HOOKCRT1";

/// Bytes of a key's header: digest, window, arrival count.
const KEY_HEADER: usize = 16 + 8 + 4;

/// Bytes of the file around the keys: label, key count, checksum.
const FILE_OVERHEAD: usize = LABEL.len() + 4 + 4;

/// `rate(…)` counts in a file, shared by the processes of one machine. See
/// the [module docs](self).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileStore {
    dir: PathBuf,
    data: PathBuf,
    lock: PathBuf,
    temp: PathBuf,
    max_keys: usize,
    max_bytes: usize,
    lock_timeout: Duration,
}

impl FileStore {
    /// The store's directory under a project: `.hookc/state`.
    pub const PROJECT_DIR: &'static str = ".hookc/state";

    /// The most keys by default.
    pub const DEFAULT_MAX_KEYS: usize = 10_000;

    /// The largest file by default, in bytes.
    pub const DEFAULT_MAX_BYTES: usize = 1 << 20;

    /// A store in `dir` (created at the first count).
    pub fn new(dir: impl Into<PathBuf>) -> FileStore {
        let dir = dir.into();
        FileStore {
            data: dir.join("rates"),
            lock: dir.join("rates.lock"),
            temp: dir.join("rates.tmp"),
            dir,
            max_keys: FileStore::DEFAULT_MAX_KEYS,
            max_bytes: FileStore::DEFAULT_MAX_BYTES,
            lock_timeout: Duration::from_secs(2),
        }
    }

    /// The store of a project: `PROJECT/.hookc/state`.
    pub fn in_project(project: &Path) -> FileStore {
        FileStore::new(project.join(FileStore::PROJECT_DIR))
    }

    /// Keeps at most `keys` keys (at least 1).
    pub fn with_max_keys(mut self, keys: usize) -> FileStore {
        self.max_keys = keys.max(1);
        self
    }

    /// Keeps the file at most `bytes` long.
    pub fn with_max_bytes(mut self, bytes: usize) -> FileStore {
        self.max_bytes = bytes.max(FILE_OVERHEAD);
        self
    }

    /// Waits at most this long for another process's count to finish.
    pub fn with_lock_timeout(mut self, timeout: Duration) -> FileStore {
        self.lock_timeout = timeout;
        self
    }

    /// The data file.
    pub fn path(&self) -> &Path {
        &self.data
    }

    /// Records an event of `key` now.
    pub(crate) fn hit(&self, counter: &Counter<'_>, key: &str) -> Result<Hit, StoreError> {
        self.hit_at(
            counter.digest(key),
            counter.window_ms,
            counter.keep,
            now_ms(),
        )
    }

    /// Records an event of the key with `digest` at `now` (milliseconds
    /// since the Unix epoch).
    fn hit_at(
        &self,
        digest: [u8; 16],
        window_ms: u64,
        keep: u32,
        now: u64,
    ) -> Result<Hit, StoreError> {
        self.prepare()?;
        let lock = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&self.lock)
            .map_err(|e| {
                self.error(format!(
                    "cannot open `{}`: {}",
                    self.lock.display(),
                    reason(&e)
                ))
            })?;
        let mut lock = fd_lock::RwLock::new(lock);
        let deadline = Instant::now() + self.lock_timeout;
        let mut pause = Duration::from_micros(200);
        let _guard = loop {
            match lock.try_write() {
                Ok(guard) => break guard,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    let now = Instant::now();
                    if now >= deadline {
                        return Err(self.error(format!(
                            "another process held its lock for more than {} ms",
                            self.lock_timeout.as_millis()
                        )));
                    }
                    std::thread::sleep(pause.min(deadline - now));
                    pause = (pause * 2).min(Duration::from_millis(10));
                }
                Err(e) => return Err(self.error(format!("cannot lock it: {}", reason(&e)))),
            }
        };
        let (mut keys, warning) = match self.read()? {
            Ok(keys) => (keys, None),
            Err(why) => {
                let warning = format!(
                    "the rate file `{}` was reset ({why}): its counts start again",
                    self.data.display()
                );
                tracing::warn!("{warning}");
                (Vec::new(), Some(warning))
            }
        };
        let at = match keys.iter().position(|k| k.digest == digest) {
            Some(at) => at,
            None => {
                keys.push(Key {
                    digest,
                    window_ms,
                    arrivals: Vec::new(),
                });
                keys.len() - 1
            }
        };
        let count = match keys.get_mut(at) {
            Some(key) => {
                key.window_ms = window_ms;
                slide(&mut key.arrivals, now, window_ms, keep)
            }
            None => 0,
        };
        self.bound(&mut keys, at, now)?;
        self.write(&keys)?;
        Ok(Hit { count, warning })
    }

    /// Creates the directory, with a `.gitignore`, if it is not there.
    fn prepare(&self) -> Result<(), StoreError> {
        if self.dir.is_dir() {
            return Ok(());
        }
        std::fs::create_dir_all(&self.dir).map_err(|e| {
            self.error(format!(
                "cannot create `{}`: {}",
                self.dir.display(),
                reason(&e)
            ))
        })?;
        // Runtime state, not something to commit; the store works without it.
        let _ = std::fs::write(self.dir.join(".gitignore"), "*\n");
        Ok(())
    }

    /// The keys in the file (none when there is no file); the inner error
    /// says why the file is corrupt.
    fn read(&self) -> Result<Result<Vec<Key>, String>, StoreError> {
        let file = match File::open(&self.data) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Ok(Vec::new())),
            Err(e) => return Err(self.error(format!("cannot read it: {}", reason(&e)))),
        };
        let mut bytes = Vec::new();
        let limit = u64::try_from(self.max_bytes).unwrap_or(u64::MAX);
        file.take(limit.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|e| self.error(format!("cannot read it: {}", reason(&e))))?;
        if bytes.len() > self.max_bytes {
            return Ok(Err(format!("longer than {} bytes", self.max_bytes)));
        }
        Ok(decode(&bytes))
    }

    /// Drops arrivals that left their window and keys left with none, then
    /// the keys seen least recently (never `hit`, the key just counted)
    /// until the bounds hold.
    fn bound(&self, keys: &mut Vec<Key>, hit: usize, now: u64) -> Result<(), StoreError> {
        for (i, key) in keys.iter_mut().enumerate() {
            if i != hit {
                let window = key.window_ms;
                key.arrivals.retain(|&t| now.saturating_sub(t) < window);
            }
        }
        let mut size = FILE_OVERHEAD + keys.iter().map(Key::size).sum::<usize>();
        let mut drop: Vec<bool> = keys
            .iter()
            .enumerate()
            .map(|(i, k)| i != hit && k.arrivals.is_empty())
            .collect();
        let mut left = keys.len() - drop.iter().filter(|&&d| d).count();
        if left > self.max_keys || size > self.max_bytes {
            let mut by_age: Vec<usize> = (0..keys.len())
                .filter(|&i| i != hit && !drop.get(i).copied().unwrap_or(true))
                .collect();
            by_age.sort_by_key(|&i| keys.get(i).and_then(|k| k.arrivals.last().copied()));
            for i in by_age {
                if left <= self.max_keys && size <= self.max_bytes {
                    break;
                }
                if let (Some(d), Some(key)) = (drop.get_mut(i), keys.get(i)) {
                    *d = true;
                    left -= 1;
                    size -= key.size();
                }
            }
        }
        if size > self.max_bytes {
            return Err(self.error(format!(
                "one key needs {size} bytes, more than the file's bound of {}",
                self.max_bytes
            )));
        }
        let mut flags = drop.into_iter();
        keys.retain(|_| !flags.next().unwrap_or(false));
        Ok(())
    }

    /// Replaces the file with `keys`: written beside it, then renamed over
    /// it, so it is never seen half written. The temporary file is made
    /// anew (what is in its place, a symbolic link included, is removed
    /// first), so the store never writes through a link someone left there.
    fn write(&self, keys: &[Key]) -> Result<(), StoreError> {
        let bytes = encode(keys);
        let _ = std::fs::remove_file(&self.temp);
        let written = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&self.temp)
            .and_then(|mut file| file.write_all(&bytes));
        written.map_err(|e| {
            self.error(format!(
                "cannot write `{}`: {}",
                self.temp.display(),
                reason(&e)
            ))
        })?;
        std::fs::rename(&self.temp, &self.data)
            .map_err(|e| self.error(format!("cannot replace it: {}", reason(&e))))
    }

    fn error(&self, reason: String) -> StoreError {
        StoreError::new(format!("the rate file `{}`", self.data.display()), reason)
    }
}

/// One key of the file.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Key {
    digest: [u8; 16],
    window_ms: u64,
    /// Milliseconds since the Unix epoch, oldest first.
    arrivals: Vec<u64>,
}

impl Key {
    /// Its size in the file.
    fn size(&self) -> usize {
        KEY_HEADER + 8 * self.arrivals.len()
    }
}

fn encode(keys: &[Key]) -> Vec<u8> {
    let size = FILE_OVERHEAD + keys.iter().map(Key::size).sum::<usize>();
    let mut out = Vec::with_capacity(size);
    out.extend_from_slice(LABEL);
    out.extend_from_slice(&u32::try_from(keys.len()).unwrap_or(u32::MAX).to_le_bytes());
    for key in keys {
        out.extend_from_slice(&key.digest);
        out.extend_from_slice(&key.window_ms.to_le_bytes());
        out.extend_from_slice(
            &u32::try_from(key.arrivals.len())
                .unwrap_or(u32::MAX)
                .to_le_bytes(),
        );
        for t in &key.arrivals {
            out.extend_from_slice(&t.to_le_bytes());
        }
    }
    let checksum = crc32fast::hash(&out);
    out.extend_from_slice(&checksum.to_le_bytes());
    out
}

/// The keys of a file's bytes, or why they are not a rate file.
fn decode(bytes: &[u8]) -> Result<Vec<Key>, String> {
    let body_len = bytes
        .len()
        .checked_sub(4)
        .filter(|&n| n >= LABEL.len() + 4)
        .ok_or_else(|| format!("only {} bytes long", bytes.len()))?;
    let (body, checksum) = bytes.split_at(body_len);
    let mut r = Reader(body);
    if r.take(LABEL.len()) != Some(&LABEL[..]) {
        return Err("not a hookc rate file".to_string());
    }
    let stored = Reader(checksum).u32();
    if stored != Some(crc32fast::hash(body)) {
        return Err("its checksum does not match".to_string());
    }
    let count = r.u32().ok_or("no key count")?;
    let mut keys = Vec::new();
    for _ in 0..count {
        let digest = r
            .take(16)
            .and_then(|d| <[u8; 16]>::try_from(d).ok())
            .ok_or("a key is cut short")?;
        let window_ms = r.u64().ok_or("a key is cut short")?;
        let n = r.u32().ok_or("a key is cut short")? as usize;
        if n.saturating_mul(8) > r.0.len() {
            return Err("a key is cut short".to_string());
        }
        let mut arrivals = Vec::with_capacity(n);
        for _ in 0..n {
            arrivals.push(r.u64().ok_or("a key is cut short")?);
        }
        if arrivals.windows(2).any(|w| w.first() > w.get(1)) {
            return Err("arrivals are out of order".to_string());
        }
        keys.push(Key {
            digest,
            window_ms,
            arrivals,
        });
    }
    if !r.0.is_empty() {
        return Err(format!("{} bytes after the last key", r.0.len()));
    }
    Ok(keys)
}

/// Reads little-endian numbers off the front of a slice.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = self.0.split_at_checked(n)?;
        self.0 = rest;
        Some(head)
    }

    fn u32(&mut self) -> Option<u32> {
        self.take(4)
            .and_then(|b| <[u8; 4]>::try_from(b).ok())
            .map(u32::from_le_bytes)
    }

    fn u64(&mut self) -> Option<u64> {
        self.take(8)
            .and_then(|b| <[u8; 8]>::try_from(b).ok())
            .map(u64::from_le_bytes)
    }
}

/// An I/O error without the `(os error N)` suffix.
fn reason(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::NotFound => "no such file or directory".to_string(),
        io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => {
            let text = e.to_string();
            text.split(" (os error")
                .next()
                .unwrap_or(&text)
                .to_lowercase()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir()
            .join(format!("hookc-file-store-{}", std::process::id()))
            .join(name);
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    fn digest(n: u8) -> [u8; 16] {
        [n; 16]
    }

    #[test]
    fn counts_slide_and_outlive_the_store_value() {
        let d = dir("slide");
        let hit = |t: u64| FileStore::new(&d).hit_at(digest(1), 1000, 10, t).unwrap();
        let counts: Vec<usize> = [0, 400, 900, 1000, 1399, 1400]
            .into_iter()
            .map(|t| hit(10_000 + t).count)
            .collect();
        assert_eq!(counts, [1, 2, 3, 3, 4, 4]);
        let other = FileStore::new(&d)
            .hit_at(digest(2), 1000, 10, 11_400)
            .unwrap();
        assert_eq!(other.count, 1, "keys count apart");
        assert_eq!(hit(20_000).count, 1);
        assert_eq!(
            std::fs::read_to_string(d.join(".gitignore")).unwrap(),
            "*\n"
        );
    }

    #[test]
    fn threads_counting_one_key_count_every_event_once() {
        let d = dir("threads");
        let store = Arc::new(FileStore::new(&d));
        let now = now_ms();
        let handles: Vec<_> = (0..8)
            .map(|_| {
                let store = Arc::clone(&store);
                std::thread::spawn(move || {
                    (0..25)
                        .map(|_| store.hit_at(digest(7), 600_000, 1000, now).unwrap().count)
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let mut counts: Vec<usize> = handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect();
        counts.sort_unstable();
        // Each of the 200 events saw a count of its own: none was lost or
        // counted twice.
        assert_eq!(counts, (1..=200).collect::<Vec<_>>());
    }

    #[test]
    fn a_corrupt_or_torn_file_is_reset_with_a_warning() {
        let d = dir("corrupt");
        let store = FileStore::new(&d);
        for t in 0..3 {
            store.hit_at(digest(1), 60_000, 10, 1000 + t).unwrap();
        }
        let good = std::fs::read(store.path()).unwrap();
        let mut cases: Vec<(Vec<u8>, &str)> = vec![
            (b"garbage".to_vec(), "only 7 bytes long"),
            (good[..good.len() - 9].to_vec(), "checksum does not match"),
            (Vec::new(), "only 0 bytes long"),
        ];
        let mut flipped = good.clone();
        flipped[30] ^= 0xff;
        cases.push((flipped, "checksum does not match"));
        let mut relabelled = good.clone();
        relabelled[0] = b'X';
        cases.push((relabelled, "not a hookc rate file"));
        for (bytes, why) in cases {
            std::fs::write(store.path(), &bytes).unwrap();
            let hit = store.hit_at(digest(1), 60_000, 10, 2000).unwrap();
            assert_eq!(hit.count, 1, "the counts started again ({why})");
            let warning = hit.warning.unwrap();
            assert!(
                warning.contains(why) && warning.contains("was reset"),
                "{warning}"
            );
            // The file is whole again.
            assert_eq!(
                store.hit_at(digest(1), 60_000, 10, 2001).unwrap(),
                Hit {
                    count: 2,
                    warning: None
                }
            );
        }
    }

    #[test]
    fn keys_and_bytes_are_bounded_least_recent_first() {
        let d = dir("bounds");
        let store = FileStore::new(&d).with_max_keys(3);
        for (i, t) in [(1, 10), (2, 20), (3, 30)] {
            store.hit_at(digest(i), 60_000, 5, t).unwrap();
        }
        store.hit_at(digest(4), 60_000, 5, 40).unwrap();
        let keys = decode(&std::fs::read(store.path()).unwrap()).unwrap();
        let kept: Vec<u8> = keys.iter().map(|k| k.digest[0]).collect();
        assert_eq!(kept, [2, 3, 4], "the key seen least recently went");
        // Expired keys leave at every count.
        store.hit_at(digest(5), 10, 5, 100_000).unwrap();
        let keys = decode(&std::fs::read(store.path()).unwrap()).unwrap();
        assert_eq!(keys.len(), 1);
        // Bytes: room for the header and two keys of one arrival.
        let small =
            FileStore::new(dir("bytes")).with_max_bytes(FILE_OVERHEAD + 2 * (KEY_HEADER + 8));
        for i in 1..=3 {
            small.hit_at(digest(i), 60_000, 5, u64::from(i)).unwrap();
        }
        let bytes = std::fs::read(small.path()).unwrap();
        assert_eq!(bytes.len(), FILE_OVERHEAD + 2 * (KEY_HEADER + 8));
        let kept: Vec<u8> = decode(&bytes)
            .unwrap()
            .iter()
            .map(|k| k.digest[0])
            .collect();
        assert_eq!(kept, [2, 3]);
        // One key larger than the bound is a failure, not a silent undercount.
        let tiny = FileStore::new(dir("tiny")).with_max_bytes(FILE_OVERHEAD + KEY_HEADER + 8);
        tiny.hit_at(digest(1), 60_000, 5, 1).unwrap();
        let err = tiny.hit_at(digest(1), 60_000, 5, 2).unwrap_err();
        assert!(err.reason().contains("more than the file's bound"), "{err}");
    }

    #[test]
    fn a_lock_held_too_long_is_a_failure() {
        let d = dir("held");
        let store = FileStore::new(&d).with_lock_timeout(Duration::from_millis(50));
        store.hit_at(digest(1), 1000, 5, 1).unwrap();
        let file = OpenOptions::new()
            .write(true)
            .open(d.join("rates.lock"))
            .unwrap();
        let mut lock = fd_lock::RwLock::new(file);
        let guard = lock.write().unwrap();
        let err = store.hit_at(digest(1), 1000, 5, 2).unwrap_err();
        assert!(err.reason().contains("held its lock"), "{err}");
        assert!(err
            .to_string()
            .starts_with("cannot count `rate(…)` in the rate file `"));
        drop(guard);
        assert_eq!(store.hit_at(digest(1), 1000, 5, 3).unwrap().count, 2);
    }

    #[cfg(unix)]
    #[test]
    fn a_link_in_place_of_the_temporary_file_is_not_written_through() {
        let d = dir("link");
        let store = FileStore::new(&d);
        store.hit_at(digest(1), 1000, 5, 1).unwrap();
        let victim = d.parent().unwrap().join("victim.txt");
        std::fs::write(&victim, "precious").unwrap();
        std::os::unix::fs::symlink(&victim, d.join("rates.tmp")).unwrap();
        assert_eq!(store.hit_at(digest(1), 1000, 5, 2).unwrap().count, 2);
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    }

    #[test]
    fn a_directory_that_cannot_be_made_is_a_failure() {
        let d = dir("blocked");
        std::fs::create_dir_all(d.parent().unwrap()).unwrap();
        std::fs::write(&d, "a file where the directory should be").unwrap();
        let err = FileStore::new(d.join("state"))
            .hit_at(digest(1), 1000, 5, 1)
            .unwrap_err();
        assert!(err.reason().starts_with("cannot create"), "{err}");
    }
}
