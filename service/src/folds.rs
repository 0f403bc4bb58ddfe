//! The fold cache: each recently used game's events folded into its latest
//! state, shared read-only between requests, and brought up to date from
//! the store on every read.
//!
//! Events are immutable, so a cached fold is never wrong, only possibly
//! behind: every load still asks the store for the events after the cached
//! head (one indexed query), which keeps several instances on one database
//! correct.

use std::num::NonZeroUsize;
use std::sync::Arc;

use parking_lot::Mutex;

use lru::LruCache;
use umpire_domain::Registry;
use umpire_storage::{EventStore, StoreError};
use uuid::Uuid;

use crate::budget::{Charge, MemoryBudget};
use crate::error::ServiceError;
use crate::fold::{replay, Fold};
use crate::metrics::Metrics;
use crate::replicas::{Replicas, Skip, Target};

/// How many games' folded states an instance keeps in memory, at most. In
/// bytes, the cache holds what the memory budget leaves (`budget.rs`): a
/// fold keeps its game's whole log, so a count of games alone would let a
/// few thousand long games hold gigabytes. The least recently used folds go
/// first; a single game larger than the room is still cached, alone.
const CACHED_GAMES: usize = 2048;

/// What reading a game's latest fold takes: the store, the games, the fold
/// cache and the metrics (which watch the store's pool). The service and
/// every live stream read through one, so a stream holds only what it reads
/// rather than the whole service.
#[derive(Clone)]
pub(crate) struct Reader {
    pub store: EventStore,
    pub registry: Arc<Registry>,
    pub folds: Folds,
    pub metrics: Metrics,
    /// The standbys reads may be answered from (`replicas.rs`).
    pub replicas: Replicas,
}

impl Reader {
    /// The latest fold of a game, brought up to date from the primary.
    pub async fn latest(&self, game_id: Uuid) -> Result<Arc<Fold>, ServiceError> {
        self.folds
            .latest(&self.store, &self.registry, &self.metrics, game_id)
            .await
    }

    /// A fold holding at least version `need`, from wherever it is found
    /// first ([`Folds::at_least`]), the read counted by where.
    pub async fn at_least(&self, game_id: Uuid, need: u64) -> Result<Arc<Fold>, ServiceError> {
        self.folds.at_least(self.sources(), game_id, need).await
    }

    /// The cached fold, if it holds at least version `need`: what
    /// [`Reader::at_least`] answers first, without waiting. Counted as a
    /// read from memory when `counted`.
    pub fn cached_at_least(&self, game_id: Uuid, need: u64, counted: bool) -> Option<Arc<Fold>> {
        let fold = self
            .folds
            .cached(game_id)
            .filter(|fold| fold.head.version() >= need)?;
        if counted {
            self.replicas.served(&self.metrics, Target::Memory);
        }
        Some(fold)
    }

    /// The newest fold, from the primary, the read counted.
    pub async fn newest(&self, game_id: Uuid) -> Result<Arc<Fold>, ServiceError> {
        let fold = self.latest(game_id).await?;
        self.replicas.served(&self.metrics, Target::Primary);
        Ok(fold)
    }

    /// The newest fold, for a stream starting or catching up: with
    /// standbys, the primary is only asked how far the log reaches (one
    /// lookup on its key) and the events come from wherever that version
    /// is held first ([`Folds::at_least`]).
    pub async fn caught_up(&self, game_id: Uuid) -> Result<Arc<Fold>, ServiceError> {
        if self.replicas.is_empty() {
            return self.newest(game_id).await;
        }
        let head = self.store.events_held(game_id).await?;
        self.at_least(game_id, head).await
    }

    fn sources(&self) -> Sources<'_> {
        Sources {
            store: &self.store,
            replicas: &self.replicas,
            registry: &self.registry,
            metrics: &self.metrics,
        }
    }
}

/// Where folds are read from: the primary's store and the standbys; and
/// the games and the metrics that count the reads.
#[derive(Clone, Copy)]
pub(crate) struct Sources<'a> {
    pub store: &'a EventStore,
    pub replicas: &'a Replicas,
    pub registry: &'a Registry,
    pub metrics: &'a Metrics,
}

/// The latest fold of recently used games.
#[derive(Clone)]
pub(crate) struct Folds {
    cache: Arc<Mutex<Cache<Arc<Fold>>>>,
    /// Turns at folding a game not in memory: the read and the fold hold
    /// a whole log before the cache charges it, so only so many at once.
    cold: Arc<tokio::sync::Semaphore>,
}

/// Games read and folded from nothing at once ([`Folds::cold`]): with a log's
/// length capped, this bounds what cold reads hold uncharged.
const COLD_FOLDS_AT_ONCE: usize = 4;

/// How long a request waits for a cold fold's turn before it is `busy`.
const COLD_FOLD_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// The folds, least recently used first out, within [`CACHED_GAMES`] games
/// and the room the memory budget leaves them.
struct Cache<F> {
    folds: LruCache<Uuid, F>,
    /// What a fold holds in memory.
    bytes_of: fn(&F) -> usize,
    /// The bytes of every fold in `folds`, charged to the budget.
    bytes: usize,
    budget: MemoryBudget,
}

impl<F> Drop for Cache<F> {
    fn drop(&mut self) {
        self.budget.release(Charge::Folds, self.bytes);
    }
}

impl<F: Clone> Cache<F> {
    fn new(max_games: usize, budget: MemoryBudget, bytes_of: fn(&F) -> usize) -> Cache<F> {
        Cache {
            folds: LruCache::new(NonZeroUsize::new(max_games.max(1)).expect("non-zero")),
            bytes_of,
            bytes: 0,
            budget,
        }
    }

    fn forget(&mut self, fold: &F) {
        let bytes = (self.bytes_of)(fold);
        self.bytes -= bytes;
        self.budget.release(Charge::Folds, bytes);
    }

    /// Lets the least recently used folds go until the cache holds at most
    /// `bytes` (keeping the newest `keep` folds).
    fn shrink_to(&mut self, bytes: usize, keep: usize) {
        while self.bytes > bytes && self.folds.len() > keep {
            match self.folds.pop_lru() {
                Some((_, gone)) => self.forget(&gone),
                None => break,
            }
        }
    }

    fn get(&mut self, game_id: &Uuid) -> Option<F> {
        self.folds.get(game_id).cloned()
    }

    fn peek(&self, game_id: &Uuid) -> Option<&F> {
        self.folds.peek(game_id)
    }

    /// Keeps `fold`, replacing the game's older one, then lets the least
    /// recently used folds go until the budget's room fits (always keeping
    /// this one). Nothing in it can panic: the counts only ever subtract
    /// what they added.
    fn put(&mut self, game_id: Uuid, fold: F) {
        let bytes = (self.bytes_of)(&fold);
        self.bytes += bytes;
        self.budget.add(Charge::Folds, bytes);
        // `push` hands back the entry it replaced or the one it evicted.
        if let Some((_, gone)) = self.folds.push(game_id, fold) {
            self.forget(&gone);
        }
        let room = self.budget.room_for(Charge::Folds);
        self.shrink_to(room, 1);
    }
}

impl Folds {
    /// An empty cache charging `budget`.
    pub fn new(budget: MemoryBudget) -> Folds {
        Folds {
            cache: Arc::new(Mutex::new(Cache::new(
                CACHED_GAMES,
                budget,
                |fold: &Arc<Fold>| fold.bytes(),
            ))),
            cold: Arc::new(tokio::sync::Semaphore::new(COLD_FOLDS_AT_ONCE)),
        }
    }

    /// Lets the least recently used folds go until `bytes` more fit in the
    /// budget, or none is left: a reservation that did not fit asks this
    /// first. Folds still in use by a request stay in memory until it ends.
    pub fn make_room(&self, bytes: usize) {
        let mut cache = self.cache.lock();
        let room = cache.budget.room_for(Charge::Folds);
        let target = room.saturating_sub(bytes);
        cache.shrink_to(target, 0);
    }

    pub fn cached(&self, game_id: Uuid) -> Option<Arc<Fold>> {
        self.cache.lock().get(&game_id)
    }

    /// Keeps `fold` as the game's latest, unless a fresher one written by a
    /// concurrent request is there already.
    pub fn remember(&self, game_id: Uuid, fold: Arc<Fold>) {
        let mut cache = self.cache.lock();
        let stale = cache
            .peek(&game_id)
            .is_none_or(|existing| existing.head.version() <= fold.head.version());
        if stale {
            cache.put(game_id, fold);
        }
    }

    /// The latest state of a game: the cached fold brought up to date from
    /// the primary.
    pub async fn latest(
        &self,
        store: &EventStore,
        registry: &Registry,
        metrics: &Metrics,
        game_id: Uuid,
    ) -> Result<Arc<Fold>, ServiceError> {
        metrics.observe_pool(store.pool());
        Ok(self.brought_up_to_date(store, registry, game_id).await?)
    }

    /// A fold of the game holding at least version `need`, from the first
    /// place that has it: this cache, a standby, the primary
    /// (`replicas.rs`). Any of them answers the same, since versions never
    /// change; a standby without the version is passed by, never answered
    /// from. A fold read from a standby is cached like any other (it is a
    /// true prefix of the log), and the primary's next read extends it.
    pub async fn at_least(
        &self,
        sources: Sources<'_>,
        game_id: Uuid,
        need: u64,
    ) -> Result<Arc<Fold>, ServiceError> {
        let (fold, target) = self.found_at_least(&sources, game_id, need).await?;
        sources.replicas.served(sources.metrics, target);
        Ok(fold)
    }

    async fn found_at_least(
        &self,
        sources: &Sources<'_>,
        game_id: Uuid,
        need: u64,
    ) -> Result<(Arc<Fold>, Target), ServiceError> {
        if let Some(fold) = self.cached(game_id) {
            if fold.head.version() >= need {
                return Ok((fold, Target::Memory));
            }
        }
        for (index, standby) in sources.replicas.to_try() {
            match self
                .brought_up_to_date(&standby.store, sources.registry, game_id)
                .await
            {
                Ok(fold) if fold.head.version() >= need => {
                    return Ok((fold, Target::Standby(index)));
                }
                Ok(_) | Err(Attempt::Store(StoreError::GameNotFound(_))) => {
                    sources.replicas.skipped(index, Skip::Behind)
                }
                Err(Attempt::Store(StoreError::Unavailable(error))) => {
                    tracing::debug!(standby = %standby.name, %error, "a standby refused a read");
                    sources.replicas.skipped(index, Skip::Down)
                }
                Err(error) => {
                    tracing::warn!(standby = %standby.name, error = %ServiceError::from(error), "a standby's answer could not be used; reading from the primary");
                    sources.replicas.skipped(index, Skip::Failed)
                }
            }
        }
        let fold = self
            .latest(sources.store, sources.registry, sources.metrics, game_id)
            .await?;
        Ok((fold, Target::Primary))
    }

    /// The cached fold (or the game's start) extended by what `store` holds
    /// after it, and cached.
    async fn brought_up_to_date(
        &self,
        store: &EventStore,
        registry: &Registry,
        game_id: Uuid,
    ) -> Result<Arc<Fold>, Attempt> {
        let cached = self.cached(game_id);
        let fresh_start;
        let _turn;
        let base: &Fold = match &cached {
            Some(fold) => fold,
            None => {
                _turn = tokio::time::timeout(COLD_FOLD_WAIT, self.cold.acquire())
                    .await
                    .map_err(|_| cold_folds_busy())?
                    .expect("the semaphore is never closed");
                let record = store.game(game_id).await?;
                let state = replay(registry, &record, &[])?.state;
                fresh_start = Fold::start(record, state);
                &fresh_start
            }
        };
        let (newer, head) = store.read_after(&base.head).await?;
        if newer.is_empty() {
            if let Some(fold) = cached {
                return Ok(fold);
            }
        }
        let fold = Arc::new(base.extended(newer, head)?);
        self.remember(game_id, fold.clone());
        Ok(fold)
    }
}

fn cold_folds_busy() -> ServiceError {
    ServiceError::Busy {
        message: "The service is reading as many games from storage as it may at once; \
                  send it again shortly."
            .into(),
    }
}

/// How reading a fold from one database failed: the store's own error (so
/// that a standby's outage can be told from a bug), or the fold's.
#[derive(Debug)]
enum Attempt {
    Store(StoreError),
    Fold(ServiceError),
}

impl From<StoreError> for Attempt {
    fn from(error: StoreError) -> Self {
        Attempt::Store(error)
    }
}

impl From<ServiceError> for Attempt {
    fn from(error: ServiceError) -> Self {
        Attempt::Fold(error)
    }
}

impl From<Attempt> for ServiceError {
    fn from(attempt: Attempt) -> Self {
        match attempt {
            Attempt::Store(error) => error.into(),
            Attempt::Fold(error) => error,
        }
    }
}

/// Whether a game's fold is still in memory, without keeping it there:
/// for tests and diagnostics of what holds memory.
pub struct FoldProbe(std::sync::Weak<Fold>);

impl FoldProbe {
    pub fn is_in_memory(&self) -> bool {
        self.0.strong_count() > 0
    }
}

impl Folds {
    /// A probe of the game's cached fold, if one is cached.
    pub fn probe(&self, game_id: Uuid) -> Option<FoldProbe> {
        self.cache
            .lock()
            .peek(&game_id)
            .map(|fold| FoldProbe(Arc::downgrade(fold)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cache of folds that are just their sizes, in a budget of
    /// `max_bytes` that nothing else charges.
    fn cache(max_games: usize, max_bytes: usize) -> Cache<usize> {
        Cache::new(
            max_games,
            Metrics::unregistered().memory_budget(max_bytes),
            |bytes| *bytes,
        )
    }

    fn game(n: u128) -> Uuid {
        Uuid::from_u128(n)
    }

    #[test]
    fn folds_fit_in_both_the_games_and_the_events_allowed() {
        let mut folds = cache(3, 100);
        folds.put(game(1), 40);
        folds.put(game(2), 40);
        assert_eq!(folds.bytes, 80);
        // Game 1 is used, so game 2 is the least recently used.
        assert_eq!(folds.get(&game(1)), Some(40));
        folds.put(game(3), 30);
        assert_eq!(folds.get(&game(2)), None, "over 100 events: game 2 goes");
        assert_eq!(folds.bytes, 70);
        folds.put(game(4), 1);
        folds.put(game(5), 1);
        assert_eq!(folds.folds.len(), 3, "at most three games");
        assert_eq!(folds.get(&game(1)), None);
        assert_eq!(folds.bytes, 32);
    }

    #[test]
    fn a_newer_fold_of_a_game_replaces_its_count() {
        let mut folds = cache(3, 100);
        folds.put(game(1), 40);
        folds.put(game(1), 60);
        assert_eq!(folds.bytes, 60);
        assert_eq!(folds.get(&game(1)), Some(60));
        folds.put(game(2), 50);
        assert_eq!(folds.get(&game(1)), None, "110 events: the older game goes");
        assert_eq!(folds.bytes, 50);
    }

    /// The cache keeps to seven eighths of its room: the rest is for what
    /// the budget does not charge.
    #[test]
    fn folds_leave_an_eighth_of_the_budget_uncharged() {
        let mut folds = cache(10, 160);
        folds.put(game(1), 50);
        folds.put(game(2), 50);
        folds.put(game(3), 50);
        assert_eq!(folds.get(&game(1)), None, "150 bytes is past 140");
        assert_eq!(folds.bytes, 100);
    }

    #[test]
    fn a_game_larger_than_the_room_is_still_cached_alone() {
        let mut folds = cache(3, 100);
        folds.put(game(1), 10);
        folds.put(game(2), 500);
        assert_eq!(folds.get(&game(2)), Some(500));
        assert_eq!(folds.get(&game(1)), None);
        assert_eq!(folds.bytes, 500);
    }

    /// Given folds filling the budget, a reservation elsewhere makes them
    /// give way, the least recently used first, and the budget shows what
    /// they hold.
    #[test]
    fn folds_give_way_to_reservations_and_are_charged_to_the_budget() {
        // 128 bytes: the cache keeps to 112, leaving an eighth uncharged.
        let mut folds = cache(10, 128);
        let budget = folds.budget.clone();
        folds.put(game(1), 30);
        folds.put(game(2), 30);
        folds.put(game(3), 30);
        assert_eq!(budget.charged(Charge::Folds), 90);
        assert!(budget.try_reserve(Charge::Bodies, 50).is_none());
        let room = budget.room_for(Charge::Folds);
        folds.shrink_to(room.saturating_sub(50), 0);
        assert_eq!(folds.get(&game(1)), None);
        assert_eq!(folds.get(&game(2)), Some(30));
        assert_eq!(folds.get(&game(3)), Some(30));
        let body = budget.try_reserve(Charge::Bodies, 50).expect("room made");
        folds.put(game(4), 30);
        assert_eq!(
            folds.get(&game(2)),
            None,
            "the body and the uncharged eighth leave room for two folds"
        );
        assert_eq!(budget.total(), 110);
        drop(body);
        drop(folds);
        assert_eq!(budget.total(), 0, "a cache dropped gives its charge back");
    }
}
