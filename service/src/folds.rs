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

/// How many events the cached folds hold between them, at most: a fold
/// keeps its game's whole log, so a count of games alone would let a few
/// thousand long games hold gigabytes. At about 1.8 KB per cached event
/// (its JSON, and its share of the state; `bench-streams.sh` measures the
/// growth) this is about 240 MB. The least recently used folds go first;
/// a single game longer than this is still cached, alone.
const CACHED_EVENTS: usize = 131_072;

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
    cache: Arc<Mutex<Cache<Arc<Fold>>>>,
}

/// The folds, least recently used first out, within [`CACHED_GAMES`] games
/// and [`CACHED_EVENTS`] events.
struct Cache<F> {
    folds: LruCache<Uuid, F>,
    /// How many events a fold holds.
    events_of: fn(&F) -> usize,
    /// The events of every fold in `folds`.
    events: usize,
    max_events: usize,
}

impl<F: Clone> Cache<F> {
    fn new(max_games: usize, max_events: usize, events_of: fn(&F) -> usize) -> Cache<F> {
        Cache {
            folds: LruCache::new(NonZeroUsize::new(max_games.max(1)).expect("non-zero")),
            events_of,
            events: 0,
            max_events,
        }
    }

    fn get(&mut self, game_id: &Uuid) -> Option<F> {
        self.folds.get(game_id).cloned()
    }

    fn peek(&self, game_id: &Uuid) -> Option<&F> {
        self.folds.peek(game_id)
    }

    /// Keeps `fold`, replacing the game's older one, then lets the least
    /// recently used folds go until the events fit (always keeping this one).
    /// Nothing in it can panic: the counts only ever subtract what they added.
    fn put(&mut self, game_id: Uuid, fold: F) {
        self.events += (self.events_of)(&fold);
        // `push` hands back the entry it replaced or the one it evicted.
        if let Some((_, gone)) = self.folds.push(game_id, fold) {
            self.events -= (self.events_of)(&gone);
        }
        while self.events > self.max_events && self.folds.len() > 1 {
            match self.folds.pop_lru() {
                Some((_, gone)) => self.events -= (self.events_of)(&gone),
                None => break,
            }
        }
    }
}

impl Default for Folds {
    fn default() -> Self {
        Folds {
            cache: Arc::new(Mutex::new(Cache::new(
                CACHED_GAMES,
                CACHED_EVENTS,
                |fold: &Arc<Fold>| fold.events.len(),
            ))),
        }
    }
}

impl Folds {
    /// The cache, even after a panic elsewhere while it was held: none of
    /// its operations can panic half way, so a
    /// poisoned lock holds nothing half done, and turning the cache off for
    /// the life of the process would be the worse failure.
    fn lock(&self) -> MutexGuard<'_, Cache<Arc<Fold>>> {
        self.cache.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub fn cached(&self, game_id: Uuid) -> Option<Arc<Fold>> {
        self.lock().get(&game_id)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A cache of folds that are just their event counts.
    fn cache(max_games: usize, max_events: usize) -> Cache<usize> {
        Cache::new(max_games, max_events, |events| *events)
    }

    fn game(n: u128) -> Uuid {
        Uuid::from_u128(n)
    }

    #[test]
    fn folds_fit_in_both_the_games_and_the_events_allowed() {
        let mut folds = cache(3, 100);
        folds.put(game(1), 40);
        folds.put(game(2), 40);
        assert_eq!(folds.events, 80);
        // Game 1 is used, so game 2 is the least recently used.
        assert_eq!(folds.get(&game(1)), Some(40));
        folds.put(game(3), 30);
        assert_eq!(folds.get(&game(2)), None, "over 100 events: game 2 goes");
        assert_eq!(folds.events, 70);
        folds.put(game(4), 1);
        folds.put(game(5), 1);
        assert_eq!(folds.folds.len(), 3, "at most three games");
        assert_eq!(folds.get(&game(1)), None);
        assert_eq!(folds.events, 32);
    }

    #[test]
    fn a_newer_fold_of_a_game_replaces_its_count() {
        let mut folds = cache(3, 100);
        folds.put(game(1), 40);
        folds.put(game(1), 60);
        assert_eq!(folds.events, 60);
        assert_eq!(folds.get(&game(1)), Some(60));
        folds.put(game(2), 50);
        assert_eq!(folds.get(&game(1)), None, "110 events: the older game goes");
        assert_eq!(folds.events, 50);
    }

    #[test]
    fn a_game_longer_than_the_allowance_is_still_cached_alone() {
        let mut folds = cache(3, 100);
        folds.put(game(1), 10);
        folds.put(game(2), 500);
        assert_eq!(folds.get(&game(2)), Some(500));
        assert_eq!(folds.get(&game(1)), None);
        assert_eq!(folds.events, 500);
    }
}
