//! The Redis store: `rate(…)` counts in a Redis server shared by a fleet of
//! hosts. The home of [`RedisStore`].
//!
//! Each key of each counter is a sorted set, `hookc:rate:<digest>` (the
//! digest is 16 bytes of a SHA-256 of the key template, the window and the
//! rendered key, in hex), of the key's arrivals scored by the time they
//! arrived. One count is one `EVAL` of [`SCRIPT`], which Redis runs
//! atomically: it reads the server's clock (`TIME`), moves arrivals later
//! than now to now (the server's clock stepped back), drops those a window
//! old, adds this event, keeps the newest `keep`, sets the set to expire a
//! window after this event, and answers the count. So every host counts on
//! one clock, in one round trip, and a key no event has reached for a
//! window is gone from the server. The script touches only its key, so it
//! also runs on a Redis Cluster.
//!
//! The store keeps one connection (made at the first count, with a
//! timeout of 1 s for connecting, reading and writing), shared by the
//! host's threads; a connection that fails is dropped and the next count
//! connects again. A connection the server closed while it was idle is
//! retried once at once.

use super::{redact_url, Counter, Hit, StoreError};
use std::fmt::Write as _;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

/// The sliding window, run atomically by the server. `KEYS[1]` is the key's
/// sorted set; `ARGV` are the window in milliseconds, the arrivals to keep,
/// and a suffix that makes this event's member unique.
pub const SCRIPT: &str = r"
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[1])
local keep = tonumber(ARGV[2])
local future = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. now, '+inf')
for _, member in ipairs(future) do
  redis.call('ZADD', KEYS[1], now, member)
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
redis.call('ZADD', KEYS[1], now, now .. ':' .. ARGV[3])
local n = redis.call('ZCARD', KEYS[1])
if n > keep then
  redis.call('ZREMRANGEBYRANK', KEYS[1], 0, n - keep - 1)
  n = keep
end
redis.call('PEXPIRE', KEYS[1], window)
return n
";

/// The prefix of every key the store writes.
pub const KEY_PREFIX: &str = "hookc:rate:";

/// `rate(…)` counts in Redis. See the [module docs](self).
pub struct RedisStore {
    client: ::redis::Client,
    /// The URL without its password.
    name: String,
    timeout: Duration,
    connection: Mutex<Option<::redis::Connection>>,
    /// Random per store, so that members of different hosts never collide.
    nonce: u64,
    sequence: AtomicU64,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("url", &self.name)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl RedisStore {
    /// A store on the server at `url` (`redis://[:password@]host[:port][/db]`,
    /// `redis+unix:///path`); it connects at the first count.
    ///
    /// # Errors
    ///
    /// A [`StoreError`] when the `redis` crate does not accept the URL
    /// (`rediss://` needs TLS, which this build does not have).
    pub fn open(url: &str) -> Result<RedisStore, StoreError> {
        let name = redact_url(url);
        let client = ::redis::Client::open(url)
            .map_err(|e| StoreError::new(name.clone(), format!("not a usable URL: {e}")))?;
        let nonce = std::collections::hash_map::RandomState::new()
            .build_hasher()
            .finish();
        Ok(RedisStore {
            client,
            name,
            timeout: Duration::from_secs(1),
            connection: Mutex::new(None),
            nonce,
            sequence: AtomicU64::new(0),
        })
    }

    /// Waits at most `timeout` to connect, and for each reply.
    pub fn with_timeout(mut self, timeout: Duration) -> RedisStore {
        self.timeout = timeout;
        self
    }

    /// The server's URL, without its password.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Records an event of `key` and returns the count.
    pub(crate) fn hit(&self, counter: &Counter<'_>, key: &str) -> Result<Hit, StoreError> {
        let mut redis_key = String::with_capacity(KEY_PREFIX.len() + 32);
        redis_key.push_str(KEY_PREFIX);
        for byte in counter.digest(key) {
            let _ = write!(redis_key, "{byte:02x}");
        }
        let member = format!(
            "{:016x}:{}",
            self.nonce,
            self.sequence.fetch_add(1, Ordering::Relaxed)
        );
        let mut call = ::redis::cmd("EVAL");
        call.arg(SCRIPT)
            .arg(1)
            .arg(&redis_key)
            .arg(counter.window_ms)
            .arg(counter.keep.max(1))
            .arg(&member);
        let mut slot = self
            .connection
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let reused = slot.is_some();
        let mut result = self.run(&mut slot, &call);
        if reused && result.as_ref().is_err_and(|e| e.is_connection_dropped()) {
            result = self.run(&mut slot, &call);
        }
        match result {
            Ok(count) => Ok(Hit {
                count: usize::try_from(count).unwrap_or(0),
                warning: None,
            }),
            Err(e) => {
                *slot = None;
                Err(StoreError::new(self.name.clone(), e.to_string()))
            }
        }
    }

    /// Runs `call` on the connection in `slot`, connecting first if there
    /// is none; a failed connection is dropped.
    fn run(
        &self,
        slot: &mut Option<::redis::Connection>,
        call: &::redis::Cmd,
    ) -> ::redis::RedisResult<i64> {
        let connection = match slot {
            Some(connection) => connection,
            None => {
                let connection = self.client.get_connection_with_timeout(self.timeout)?;
                connection.set_read_timeout(Some(self.timeout))?;
                connection.set_write_timeout(Some(self.timeout))?;
                slot.insert(connection)
            }
        };
        let result = call.query(connection);
        if result.is_err() {
            *slot = None;
        }
        result
    }
}
