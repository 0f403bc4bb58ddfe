//! The fold cache: each recently used game's events folded into its latest
//! state, shared read-only between requests, and brought up to date from
//! the store on every read.
//!
//! Events are immutable, so a cached fold is never wrong, only possibly
//! behind: every load still asks the store for the events after the cached
//! head (one indexed query), which keeps several instances on one database
//! correct.

use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use lru::LruCache;
use umpire_domain::{DynMatch, GameError, RecordedEvent, Registry};
use umpire_storage::{EventStore, GameRecord, Head};
use uuid::Uuid;

use crate::error::ServiceError;

/// How many games' folded states an instance keeps in memory.
const CACHED_GAMES: usize = 2048;

/// A game folded up to its latest known event. Shared, read-only, between
/// the requests that use it: a new event makes a new fold.
pub(crate) struct Fold {
    pub record: Arc<GameRecord>,
    pub events: Vec<Arc<RecordedEvent>>,
    pub state: Box<dyn DynMatch>,
    /// Where the log ended when these events were read or written: what the
    /// next append extends.
    pub head: Head,
}

impl Fold {
    /// This fold with `events` (read after its head) applied.
    fn extended(&self, events: Vec<RecordedEvent>, head: Head) -> Result<Fold, ServiceError> {
        let mut state = self.state.clone();
        for event in &events {
            state
                .apply_json(&event.payload)
                .map_err(|e| corrupt(self.record.game_id, e))?;
        }
        Ok(self.followed_by(events, state, head))
    }

    /// This fold followed by `events`, `state` being the state after them
    /// (as `DynMatch::decide_and_apply` gives it) and `head` the log's head.
    pub fn followed_by(
        &self,
        events: Vec<RecordedEvent>,
        state: Box<dyn DynMatch>,
        head: Head,
    ) -> Fold {
        let mut all = Vec::with_capacity(self.events.len() + events.len());
        all.extend(self.events.iter().cloned());
        all.extend(events.into_iter().map(Arc::new));
        Fold {
            record: self.record.clone(),
            events: all,
            state,
            head,
        }
    }
}

/// The error for a stored log that no longer folds: ours, never the caller's.
pub(crate) fn corrupt(game_id: Uuid, error: GameError) -> ServiceError {
    ServiceError::Internal(format!(
        "stored log of game {game_id} does not fold: {error}"
    ))
}

/// The latest fold of recently used games.
#[derive(Clone)]
pub(crate) struct Folds {
    cache: Arc<Mutex<LruCache<Uuid, Arc<Fold>>>>,
}

impl Default for Folds {
    fn default() -> Self {
        Folds {
            cache: Arc::new(Mutex::new(LruCache::new(
                NonZeroUsize::new(CACHED_GAMES).expect("non-zero"),
            ))),
        }
    }
}

impl Folds {
    /// The cache, even after a panic elsewhere while it was held: each of
    /// its operations is one `LruCache` call that leaves it whole, so a
    /// poisoned lock holds nothing half done, and turning the cache off for
    /// the life of the process would be the worse failure.
    fn lock(&self) -> MutexGuard<'_, LruCache<Uuid, Arc<Fold>>> {
        self.cache.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub fn cached(&self, game_id: Uuid) -> Option<Arc<Fold>> {
        self.lock().get(&game_id).cloned()
    }

    /// Keeps `fold` as the game's latest, unless a fresher one written by a
    /// concurrent request is there already.
    pub fn remember(&self, game_id: Uuid, fold: Arc<Fold>) {
        let mut cache = self.lock();
        let stale = cache
            .peek(&game_id)
            .is_none_or(|existing| existing.head.version() <= fold.head.version());
        if stale {
            cache.put(game_id, fold);
        }
    }

    /// The latest state of a game: the cached fold brought up to date.
    pub async fn latest(
        &self,
        store: &EventStore,
        registry: &Registry,
        game_id: Uuid,
    ) -> Result<Arc<Fold>, ServiceError> {
        let cached = self.cached(game_id);
        let fresh_start;
        let base: &Fold = match &cached {
            Some(fold) => fold,
            None => {
                let record = store.game(game_id).await?;
                let state = registry
                    .get(&record.game)
                    .map_err(|e| corrupt(game_id, e))?
                    .new_match(&record.options)
                    .map_err(|e| corrupt(game_id, e))?;
                fresh_start = Fold {
                    record: Arc::new(record),
                    events: Vec::new(),
                    state,
                    head: Head::start(game_id),
                };
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

/// A game read from the store, and its state at the version asked for.
pub struct LoadedGame {
    pub(crate) latest: Arc<Fold>,
    /// The state at an earlier version, when one was asked for.
    pub(crate) past: Option<Box<dyn DynMatch>>,
}

impl LoadedGame {
    pub fn record(&self) -> &GameRecord {
        &self.latest.record
    }

    /// Every stored event (not only those folded into `state`).
    pub fn events(&self) -> &[Arc<RecordedEvent>] {
        &self.latest.events
    }

    /// The state at the version asked for.
    pub fn state(&self) -> &dyn DynMatch {
        self.past.as_deref().unwrap_or(self.latest.state.as_ref())
    }

    /// The state after every stored event.
    pub fn latest_state(&self) -> &dyn DynMatch {
        self.latest.state.as_ref()
    }
}
