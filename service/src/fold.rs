//! One game folded: its events, its state and its clock at its latest
//! known event (`Fold`, what the fold cache keeps), a prefix of its log
//! folded from the start (`replay`), and a game read at a version asked for
//! (`LoadedGame`).

use std::sync::Arc;

use umpire_domain::aggregate::GameAggregate;
use umpire_domain::clock::Clock;
use umpire_domain::{DynMatch, GameError, RecordedEvent, Registry, StatusJson};
use umpire_storage::{GameRecord, Head};
use uuid::Uuid;

use crate::budget::{allocation, events_bytes};
use crate::error::ServiceError;
use crate::event_log::{EventLog, EMPTY};

/// How far apart the states a fold keeps are: a read at a past version
/// replays at most this many events from the last state kept before it,
/// never the whole log.
pub const CHECKPOINT_EVERY: u64 = 256;

/// A game kept at a version ([`CHECKPOINT_EVERY`]).
pub(crate) struct Checkpoint {
    pub version: u64,
    pub game: GameAggregate,
}

impl Checkpoint {
    /// `game` kept at `version`: a copy of it.
    fn kept(version: u64, game: &GameAggregate) -> Arc<Checkpoint> {
        Arc::new(Checkpoint {
            version,
            game: game.clone(),
        })
    }

    /// What it holds in memory, its `Arc` included.
    fn bytes(&self) -> usize {
        allocation(16 + std::mem::size_of::<Checkpoint>())
            + self.game.state.bytes()
            + self.game.seat_tokens.bytes()
    }
}

/// A game folded up to its latest known event. Shared, read-only, between
/// the requests that use it: a new event makes a new fold.
pub(crate) struct Fold {
    pub record: Arc<GameRecord>,
    /// Shared with the folds before and after it (`event_log.rs`).
    pub events: EventLog,
    /// The game's match and clock after those events: shared, so that the
    /// streams of a followed game keep the state at the head without a copy
    /// (`live::renders`).
    pub game: Arc<GameAggregate>,
    /// Where the log ended when these events were read or written: what the
    /// next append extends.
    pub head: Head,
    /// The states kept on the way, oldest first, shared with the folds
    /// this one is followed by.
    checkpoints: Vec<Arc<Checkpoint>>,
    /// What `events` hold in memory, measured ([`events_bytes`]).
    events_bytes: usize,
    /// What `state` holds in memory ([`DynMatch::bytes`]).
    state_bytes: usize,
    /// What `checkpoints` hold in memory.
    checkpoints_bytes: usize,
}

impl Fold {
    /// A game not folded yet: its record and its state before any event.
    pub(crate) fn start(record: GameRecord, state: Box<dyn DynMatch>) -> Fold {
        let game_id = record.game_id;
        let state_bytes = state.bytes();
        Fold {
            record: Arc::new(record),
            events: EventLog::default(),
            game: Arc::new(GameAggregate::start(state)),
            head: Head::start(game_id),
            checkpoints: Vec::new(),
            events_bytes: 0,
            state_bytes,
            checkpoints_bytes: 0,
        }
    }

    /// What this fold holds in memory, measured: what the fold cache
    /// charges the memory budget for it.
    pub fn bytes(&self) -> usize {
        allocation(16 + std::mem::size_of::<Fold>())
            + self.events.bytes()
            + self.events_bytes
            + self.state_bytes
            + allocation(self.checkpoints.capacity() * std::mem::size_of::<Arc<Checkpoint>>())
            + self.checkpoints_bytes
    }

    /// The state and clock at `version` (at most the fold's own), folded
    /// from the last state kept at or before it.
    pub(crate) fn at(
        &self,
        registry: &Registry,
        version: u64,
    ) -> Result<GameAggregate, ServiceError> {
        let game_id = self.record.game_id;
        let kept = self
            .checkpoints
            .iter()
            .rev()
            .find(|checkpoint| checkpoint.version <= version);
        let (mut game, from) = match kept {
            Some(checkpoint) => (checkpoint.game.clone(), checkpoint.version),
            None => (replay(registry, &self.record, [])?, 0),
        };
        for event in self.events.range(from as usize..version as usize) {
            game.apply(event).map_err(|e| corrupt(game_id, e))?;
        }
        Ok(game)
    }

    /// The version of the newest state kept, 0 for none.
    pub(crate) fn last_checkpoint(&self) -> u64 {
        self.checkpoints
            .last()
            .map_or(0, |checkpoint| checkpoint.version)
    }

    /// Who must act, with the clock.
    pub fn status(&self) -> StatusJson {
        self.game.status()
    }

    /// The states kept after `version`, oldest first.
    pub(crate) fn checkpoints_after(&self, version: u64) -> Vec<Arc<Checkpoint>> {
        self.checkpoints
            .iter()
            .filter(|checkpoint| checkpoint.version > version)
            .cloned()
            .collect()
    }

    /// Whether these events reissue `seat`'s token after `version`: what
    /// may have revoked a token the store found valid when the log held
    /// `version` events (`grants.rs`).
    pub fn reissued_after(&self, seat: &str, version: u64) -> bool {
        self.game.seat_tokens.reissued_after(seat, version)
    }

    /// Whether an event after version `after`, up to `to`, reissued a
    /// seat's token (any seat's): what a stream's page says, read from its
    /// events (a page is at most a few of them).
    pub fn reissued_between(&self, after: u64, to: u64) -> bool {
        self.events
            .range(after as usize..to as usize)
            .any(|event| umpire_domain::seat_tokens::is_seat_token_type(&event.event_type))
    }

    /// What the state alone holds, as [`Fold::bytes`] counts it: what a
    /// copy of it costs (the live streams keep one per followed game).
    pub fn state_bytes(&self) -> usize {
        self.state_bytes
    }

    /// This fold with `events` (read after its head) applied.
    pub(crate) fn extended(
        &self,
        events: Vec<RecordedEvent>,
        head: Head,
    ) -> Result<Fold, ServiceError> {
        let mut game = GameAggregate::clone(&self.game);
        let mut checkpoints = Vec::new();
        let mut last_kept = self.last_checkpoint();
        for (index, event) in events.iter().enumerate() {
            game.apply(event)
                .map_err(|e| corrupt(self.record.game_id, e))?;
            let version = self.events.len() as u64 + index as u64 + 1;
            if version - last_kept >= CHECKPOINT_EVERY {
                checkpoints.push(Checkpoint::kept(version, &game));
                last_kept = version;
            }
        }
        let mut fold = self.joined(events, game, head);
        fold.keep(checkpoints);
        Ok(fold)
    }

    /// This fold followed by `events`, `state` being the state after them
    /// (as `DynMatch::decide_and_apply` gives it) and `head` the log's head.
    pub fn followed_by(
        &self,
        events: Vec<RecordedEvent>,
        state: Box<dyn DynMatch>,
        head: Head,
    ) -> Result<Fold, ServiceError> {
        let clock = match &self.game.clock {
            None => None,
            // The clock reads the status after each event, not only after
            // the last: folded again, one event at a time (clocked games
            // only).
            Some(_) => {
                let mut stepped = GameAggregate::clone(&self.game);
                for event in &events {
                    stepped
                        .apply(event)
                        .map_err(|e| corrupt(self.record.game_id, e))?;
                }
                stepped.clock
            }
        };
        let mut seat_tokens = self.game.seat_tokens.clone();
        for event in &events {
            seat_tokens.apply(event);
        }
        let game = GameAggregate {
            state,
            clock,
            seat_tokens,
        };
        let mut fold = self.joined(events, game, head);
        let version = fold.events.len() as u64;
        if version - self.last_checkpoint() >= CHECKPOINT_EVERY {
            let kept = Checkpoint::kept(version, &fold.game);
            fold.keep(vec![kept]);
        }
        Ok(fold)
    }

    /// Keeps `checkpoints`, newer than those kept already.
    fn keep(&mut self, checkpoints: Vec<Arc<Checkpoint>>) {
        self.checkpoints_bytes += checkpoints.iter().map(|kept| kept.bytes()).sum::<usize>();
        self.checkpoints.extend(checkpoints);
    }

    /// This fold followed by `events`, `game` being the game after them.
    fn joined(&self, events: Vec<RecordedEvent>, game: GameAggregate, head: Head) -> Fold {
        let added = events_bytes(&events, self.events.last().map(|event| event.as_ref()));
        let state_bytes = game.state.bytes() + game.seat_tokens.bytes();
        Fold {
            record: self.record.clone(),
            events: self.events.followed_by(events.into_iter().map(Arc::new)),
            game: Arc::new(game),
            head,
            checkpoints: self.checkpoints.clone(),
            events_bytes: self.events_bytes + added,
            // Measured anew: a game's state grows as it is played.
            state_bytes,
            checkpoints_bytes: self.checkpoints_bytes,
        }
    }
}

/// The error for a stored log that no longer folds: ours, never the caller's.
pub(crate) fn corrupt(game_id: Uuid, error: GameError) -> ServiceError {
    ServiceError::Internal(format!(
        "stored log of game {game_id} does not fold: {error}"
    ))
}

/// The state and clock after `events`, the first of a game's log, folded
/// from the game's start: the one way a state is made from nothing (a game
/// not cached yet, a past version, a stream's position with no fold at it).
pub(crate) fn replay<'a>(
    registry: &Registry,
    record: &GameRecord,
    events: impl IntoIterator<Item = &'a Arc<RecordedEvent>>,
) -> Result<GameAggregate, ServiceError> {
    let game_id = record.game_id;
    let state = registry
        .get(&record.game)
        .map_err(|e| corrupt(game_id, e))?
        .new_match(&record.options)
        .map_err(|e| corrupt(game_id, e))?;
    let mut game = GameAggregate::start(state);
    for event in events {
        game.apply(event).map_err(|e| corrupt(game_id, e))?;
    }
    Ok(game)
}

/// A game read at the version asked for: from its whole fold, or resumed
/// from a snapshot of it (`snapshots.rs`).
pub struct LoadedGame {
    record: Arc<GameRecord>,
    read: Read,
}

enum Read {
    /// Every stored event folded, and the state at an earlier version when
    /// one was asked for.
    Whole {
        latest: Arc<Fold>,
        past: Option<GameAggregate>,
    },
    /// The state at the version asked for, from a snapshot.
    Resumed(GameAggregate),
}

impl LoadedGame {
    /// The game from its whole fold, at `past` when an earlier version was
    /// asked for.
    pub(crate) fn whole(latest: Arc<Fold>, past: Option<GameAggregate>) -> LoadedGame {
        LoadedGame {
            record: latest.record.clone(),
            read: Read::Whole { latest, past },
        }
    }

    /// The game at a version resumed from a snapshot.
    pub(crate) fn resumed(record: Arc<GameRecord>, at: GameAggregate) -> LoadedGame {
        LoadedGame {
            record,
            read: Read::Resumed(at),
        }
    }

    pub fn record(&self) -> &GameRecord {
        &self.record
    }

    /// Every stored event of a game read whole (not only those folded into
    /// `state`); none for one resumed from a snapshot.
    pub(crate) fn events(&self) -> &EventLog {
        match &self.read {
            Read::Whole { latest, .. } => &latest.events,
            Read::Resumed(_) => &EMPTY,
        }
    }

    /// The game at the version asked for: its match and its clock.
    pub fn game(&self) -> &GameAggregate {
        match &self.read {
            Read::Whole {
                past: Some(past), ..
            }
            | Read::Resumed(past) => past,
            Read::Whole { latest, past: None } => &latest.game,
        }
    }

    /// The state at the version asked for.
    pub fn state(&self) -> &dyn DynMatch {
        self.game().state.as_ref()
    }

    /// The game's clock at the version asked for, if it has one.
    pub fn clock(&self) -> Option<&Clock> {
        self.game().clock.as_ref()
    }

    /// Who must act at the version asked for, with the clock.
    pub fn status(&self) -> StatusJson {
        self.game().status()
    }

    /// The state after every stored event of a game read whole; the state
    /// at the version asked for of one resumed from a snapshot.
    pub fn latest_state(&self) -> &dyn DynMatch {
        match &self.read {
            Read::Whole { latest, .. } => latest.game.state.as_ref(),
            Read::Resumed(at) => at.state.as_ref(),
        }
    }
}
