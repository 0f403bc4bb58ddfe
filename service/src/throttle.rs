//! Token buckets: what a client may do so often and no more. One [`Throttle`]
//! serves every such limit, each with its own [`Rate`] and key:
//!
//! - the refusal budget ([`RefusalThrottle`]): a token that keeps sending
//!   actions the rules refuse is slowed down, so that refusals cannot flood
//!   the audit table or the log;
//! - games created or imported per client address on an open service (no
//!   admin token), so that one address cannot mint games and tokens without
//!   end ([`DEFAULT_CREATIONS_PER_MINUTE`]);
//! - failed invitation redemptions per client address, so that codes cannot
//!   be guessed at the database's speed ([`REDEMPTION_FAILURES`]);
//! - a seat's links to another device, per (game, seat), so that a seat
//!   cannot fill the invitations table ([`DEVICE_LINKS_PER_SEAT`]).
//!
//! Each key has a bucket of `burst` tokens, refilled at `per_second`. What
//! finds its bucket empty is answered 429 with `Retry-After`, and is neither
//! stored nor counted. Buckets live in this service instance only (several
//! instances each give their own budget) and in an LRU of a fixed number of
//! keys, so memory stays bounded whatever the number of clients; an evicted
//! bucket starts full again, which only ever errs on the side of the client.

use std::hash::Hash;
use std::num::NonZeroUsize;
use std::time::Instant;

use lru::LruCache;
use parking_lot::Mutex;
use uuid::Uuid;

/// Refusals a (game, actor) may make at once before being slowed.
pub const REFUSAL_BURST: f64 = 20.0;
/// Refusals per second a (game, actor) regains, up to the burst.
pub const REFUSALS_PER_SECOND: f64 = 2.0;
/// How many (game, actor) buckets are remembered (about 100 bytes each).
pub const TRACKED_ACTORS: usize = 65_536;

/// Games one client address may create or import per minute (in a burst,
/// then one every `60 / N` s) on a service without an admin token, unless
/// configured otherwise (`umpire serve --creations-per-minute`).
pub const DEFAULT_CREATIONS_PER_MINUTE: u32 = 10;

/// Failed invitation redemptions one client address may make: a burst of
/// 10, then one every 5 s. A person mistyping a link fails a few times; a
/// guesser needs about 2^128 tries.
pub const REDEMPTION_FAILURES: Rate = Rate {
    burst: 10.0,
    per_second: 0.2,
};

/// Links to another device one seat of a game may make
/// (`seat_devices.rs`): 5 at once, then one a minute. Each is a row of the
/// insert-only invitations table; a player moving between a few devices
/// needs a handful.
pub const DEVICE_LINKS_PER_SEAT: Rate = Rate {
    burst: 5.0,
    per_second: 1.0 / 60.0,
};

/// How many (game, seat) buckets of device links are remembered.
pub const TRACKED_SEATS: usize = 65_536;

/// The umpire's actions outside the rules (pausing and resuming the clock,
/// extra time, reissuing a seat's token) one game takes: a burst of 30,
/// then one every 2 s. Each lengthens the log without moving the game on;
/// an umpire at a table needs a handful, and the log's length is capped
/// (`MAX_EVENTS_PER_GAME`) whatever the pace.
pub const UMPIRE_EXTRAS_PER_GAME: Rate = Rate {
    burst: 30.0,
    per_second: 0.5,
};

/// How many games' buckets of umpire actions are remembered.
pub const TRACKED_GAMES: usize = 65_536;

/// How many client addresses' buckets each per-address throttle remembers.
pub const TRACKED_ADDRESSES: usize = 65_536;

/// How fast a bucket refills, and how much it holds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rate {
    /// Tokens a full bucket holds: what may be done at once.
    pub burst: f64,
    /// Tokens regained per second, up to the burst.
    pub per_second: f64,
}

impl Rate {
    /// `count` a minute, all of them at once if the client has waited.
    pub fn per_minute(count: u32) -> Rate {
        Rate {
            burst: f64::from(count),
            per_second: f64::from(count) / 60.0,
        }
    }
}

struct Bucket {
    tokens: f64,
    refreshed: Instant,
}

/// Token buckets by `K`, shared by the service's workers.
pub struct Throttle<K: Hash + Eq> {
    buckets: Mutex<LruCache<K, Bucket>>,
    rate: Rate,
}

impl<K: Hash + Eq> Throttle<K> {
    /// Buckets refilled at `rate`, at most `tracked` of them remembered.
    pub fn new(rate: Rate, tracked: usize) -> Self {
        Throttle {
            buckets: Mutex::new(LruCache::new(
                NonZeroUsize::new(tracked.max(1)).expect("non-zero"),
            )),
            rate,
        }
    }

    /// How fast its buckets refill.
    pub fn rate(&self) -> Rate {
        self.rate
    }

    /// Takes one token from `key`'s bucket at `now`: `Ok` if there was one,
    /// else `Err(seconds)` until there will be.
    pub fn take(&self, key: K, now: Instant) -> Result<(), u64> {
        self.with_bucket(key, now, |bucket| bucket.tokens -= 1.0)
    }

    /// Whether `key`'s bucket holds a token at `now`, without taking it:
    /// for what is charged only once it turns out to fail.
    pub fn check(&self, key: K, now: Instant) -> Result<(), u64> {
        self.with_bucket(key, now, |_| {})
    }

    fn with_bucket(
        &self,
        key: K,
        now: Instant,
        spend: impl FnOnce(&mut Bucket),
    ) -> Result<(), u64> {
        let rate = self.rate;
        let mut buckets = self.buckets.lock();
        let bucket = buckets.get_or_insert_mut(key, || Bucket {
            tokens: rate.burst,
            refreshed: now,
        });
        let elapsed = now
            .saturating_duration_since(bucket.refreshed)
            .as_secs_f64();
        bucket.tokens = (bucket.tokens + elapsed * rate.per_second).min(rate.burst);
        bucket.refreshed = now;
        if bucket.tokens >= 1.0 {
            spend(bucket);
            Ok(())
        } else {
            let wait = (1.0 - bucket.tokens) / rate.per_second;
            Err(wait.ceil().max(1.0) as u64)
        }
    }
}

/// Per (game, actor) refusal budgets.
pub struct RefusalThrottle(Throttle<(Uuid, String)>);

impl Default for RefusalThrottle {
    fn default() -> Self {
        RefusalThrottle(Throttle::new(
            Rate {
                burst: REFUSAL_BURST,
                per_second: REFUSALS_PER_SECOND,
            },
            TRACKED_ACTORS,
        ))
    }
}

impl RefusalThrottle {
    /// Takes one refusal from `actor`'s budget in `game_id` at `now`: `Ok` if
    /// there was one, else `Err(seconds)` until there will be.
    pub fn take(&self, game_id: Uuid, actor: &str, now: Instant) -> Result<(), u64> {
        self.0.take((game_id, actor.to_string()), now)
    }
}

/// Takes one of `game_id`'s umpire actions outside the rules, or says how
/// long until the game takes another.
pub(crate) fn admit_umpire_extra(
    throttle: &Throttle<Uuid>,
    game_id: Uuid,
) -> Result<(), crate::error::ServiceError> {
    throttle
        .take(game_id, Instant::now())
        .map_err(
            |retry_after_seconds| crate::error::ServiceError::Throttled {
                code: "too_many_umpire_actions",
                message: format!(
                    "This game takes the umpire's actions outside the rules (pause, resume, extra \
                 time, reissue, ruling) at most {} at once, then one every {} s.",
                    throttle.rate().burst,
                    1.0 / throttle.rate().per_second
                ),
                retry_after_seconds,
            },
        )
}
