//! The refusal budget: a token that keeps sending actions the rules refuse is
//! slowed down, so that refusals cannot flood the audit table or the log.
//!
//! Each (game, actor) has a token bucket of [`REFUSAL_BURST`] refusals,
//! refilled at [`REFUSALS_PER_SECOND`]. Every refused action takes one; a
//! refusal that finds the bucket empty is answered 429 `too_many_refusals`
//! with `Retry-After`, and is neither stored nor counted. Accepted actions
//! never touch the bucket, so a player who stops making mistakes is never
//! held back. Buckets live in this service instance only (several instances
//! each give their own budget) and in an LRU of [`TRACKED_ACTORS`], so memory
//! stays bounded whatever the number of games; an evicted bucket starts full
//! again, which only ever errs on the side of the player.

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

struct Bucket {
    tokens: f64,
    refreshed: Instant,
}

/// Per (game, actor) refusal budgets, shared by the service's workers.
pub struct RefusalThrottle {
    buckets: Mutex<LruCache<(Uuid, String), Bucket>>,
}

impl Default for RefusalThrottle {
    fn default() -> Self {
        RefusalThrottle {
            buckets: Mutex::new(LruCache::new(
                NonZeroUsize::new(TRACKED_ACTORS).expect("non-zero"),
            )),
        }
    }
}

impl RefusalThrottle {
    /// Takes one refusal from `actor`'s budget in `game_id` at `now`: `Ok` if
    /// there was one, else `Err(seconds)` until there will be.
    pub fn take(&self, game_id: Uuid, actor: &str, now: Instant) -> Result<(), u64> {
        let mut buckets = self.buckets.lock();
        let bucket = buckets.get_or_insert_mut((game_id, actor.to_string()), || Bucket {
            tokens: REFUSAL_BURST,
            refreshed: now,
        });
        let elapsed = now
            .saturating_duration_since(bucket.refreshed)
            .as_secs_f64();
        bucket.tokens = (bucket.tokens + elapsed * REFUSALS_PER_SECOND).min(REFUSAL_BURST);
        bucket.refreshed = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            Ok(())
        } else {
            let wait = (1.0 - bucket.tokens) / REFUSALS_PER_SECOND;
            Err(wait.ceil().max(1.0) as u64)
        }
    }
}
