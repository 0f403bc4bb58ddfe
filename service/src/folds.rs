//! The fold cache: each recently used game's events folded into its latest
//! state, shared read-only between requests, and brought up to date from
//! the store on every read.
//!
//! Events are immutable, so a cached fold is never wrong, only possibly
//! behind: every load still asks the store for the events after the cached
//! head (one indexed query), which keeps several instances on one database
//! correct.

use std::sync::Arc;

use parking_lot::Mutex;

use umpire_domain::Registry;
use umpire_storage::EventStore;
use uuid::Uuid;

use crate::attempt::{pass_by, Attempt};
use crate::budget::{Charge, MemoryBudget};
use crate::charged_lru::ChargedLru;
use crate::cold_folds::ColdFolds;
use crate::error::ServiceError;
use crate::fold::{replay, Fold};
use crate::metrics::Metrics;
use crate::replicas::{Replicas, Skip, Target};
use crate::snapshots::Snapshots;

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
    cache: Arc<Mutex<ChargedLru<Arc<Fold>>>>,
    /// Turns at folding a game not in memory.
    cold: ColdFolds,
    /// Where the checkpoints of folds the cache takes are offered, to be
    /// kept in the database (`snapshots.rs`).
    pub(crate) snapshots: Snapshots,
}

impl Folds {
    /// An empty cache charging `budget`, taking turns at cold folds.
    pub fn new(budget: MemoryBudget, cold: ColdFolds) -> Folds {
        Folds {
            cache: Arc::new(Mutex::new(ChargedLru::new(
                CACHED_GAMES,
                budget,
                |fold: &Arc<Fold>| fold.bytes(),
            ))),
            cold,
            snapshots: Snapshots::default(),
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
    /// Its checkpoints that the fold it replaces did not hold are offered
    /// for keeping.
    pub fn remember(&self, game_id: Uuid, fold: Arc<Fold>) {
        let mut cache = self.cache.lock();
        let cached = cache.peek(&game_id);
        let stale = cached.is_none_or(|existing| existing.head.version() <= fold.head.version());
        if stale {
            let offered = cached.map_or(0, |existing| existing.last_checkpoint());
            cache.put(game_id, fold.clone());
            drop(cache);
            let fresh = fold.checkpoints_after(offered);
            self.snapshots.offer(game_id, &fold.record.game, fresh);
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
                Ok(_) => sources.replicas.skipped(index, Skip::Behind),
                Err(error) => pass_by(sources.replicas, index, &standby.name, error),
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
        let (cached, _turn) = match self.cached(game_id) {
            Some(fold) => (Some(fold), None),
            None => {
                let turn = self.cold.turn().await?;
                // Requests for one game that waited together fold it once:
                // the first to have its turn caches the fold, the others
                // find it.
                (self.cached(game_id), Some(turn))
            }
        };
        let fold = match cached {
            Some(cached) => {
                let (newer, head) = store.read_after(&cached.head).await?;
                if newer.is_empty() {
                    return Ok(cached);
                }
                cached.extended(newer, head)?
            }
            None => {
                let record = store.game(game_id).await?;
                let state = replay(registry, &record, [])?.state;
                let start = Fold::start(record, state);
                let (events, head) = store.read_after(&start.head).await?;
                // A whole log folded takes milliseconds: off the async
                // workers, which keep answering everyone else meanwhile.
                tokio::task::spawn_blocking(move || start.extended(events, head))
                    .await
                    .map_err(|e| ServiceError::Internal(format!("a cold fold failed: {e}")))??
            }
        };
        let fold = Arc::new(fold);
        self.remember(game_id, fold.clone());
        Ok(fold)
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
