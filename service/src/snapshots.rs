//! A fold's checkpoints kept in the database, so that a read at a past
//! version of a game that is not in memory starts from the nearest one.
//!
//! A fold keeps its game's state every `CHECKPOINT_EVERY` events
//! (`fold.rs`); once the fold cache takes a fold, the checkpoints it holds
//! that are not kept yet are written to `fold_snapshots` (migrations/V11)
//! in the background ([`Snapshots::offer`], [`Snapshots::keep`]). A read at
//! version N of a game not in memory then reads the snapshot at or before N
//! and the events after it, at most `CHECKPOINT_EVERY` of them
//! ([`past_from_snapshot`]), instead of the whole log: a cold
//! read anywhere in a log at the cap costs what a read of a short game does
//! (`scripts/bench-cold-reads.sh`, docs/benchmarks.md). A game read before
//! any of its snapshots is kept is folded whole, as before, and its
//! snapshots kept then.
//!
//! The table is derived, never the log: nothing but these reads uses it,
//! and a snapshot that does not resume to the state it was kept from (of
//! another format, or whose umpire's view differs from the one recorded
//! with it) is passed by, the log folded instead.

use std::num::NonZeroUsize;
use std::sync::Arc;

use lru::LruCache;
use parking_lot::Mutex;
use tokio::sync::mpsc;
use umpire_domain::clock::Clock;
use umpire_domain::erased::SNAPSHOT_FORMAT;
use umpire_domain::seat_tokens::SeatTokens;
use umpire_domain::{DynGame, DynMatch, Viewer};
use umpire_storage::{EventStore, FoldSnapshot, GameRecord};
use uuid::Uuid;

use crate::background::{Background, Stopping};
use crate::error::ServiceError;
use crate::fold::{corrupt, Checkpoint, CHECKPOINT_EVERY};
use crate::log_every::LogEvery;
use crate::metrics::Metrics;
use umpire_domain::aggregate::GameAggregate;

/// Folds whose checkpoints wait to be written, at most: each holds its
/// states until then (a log at the cap holds 39), so when the writer falls
/// behind, a fold's checkpoints are left for a later fold of the game to
/// offer rather than queued.
const WAITING_FOLDS: usize = 16;

/// Games whose newest kept snapshot the writer remembers, so that a game
/// folded again offers only what is new.
const REMEMBERED_GAMES: usize = 4096;

/// A snapshot that could not be written or used is logged at most this often.
static TROUBLE: LogEvery = LogEvery::new(std::time::Duration::from_secs(10));

/// What the snapshots of one game's states are written as: the game, and
/// what its state's JSON holds ([`SNAPSHOT_FORMAT`]).
pub(crate) fn format(game: &str) -> String {
    format!("{game}/{SNAPSHOT_FORMAT}")
}

/// Checkpoints of one game offered for keeping.
struct Offered {
    game_id: Uuid,
    game: String,
    checkpoints: Vec<Arc<Checkpoint>>,
}

/// The queue from the fold cache to the writer. Until the writer runs
/// (`umpire serve`), nothing is queued.
#[derive(Clone)]
pub(crate) struct Snapshots {
    sender: mpsc::Sender<Offered>,
    receiver: Arc<Mutex<Option<mpsc::Receiver<Offered>>>>,
    running: Arc<std::sync::atomic::AtomicBool>,
}

impl Default for Snapshots {
    fn default() -> Self {
        let (sender, receiver) = mpsc::channel(WAITING_FOLDS);
        Snapshots {
            sender,
            receiver: Arc::new(Mutex::new(Some(receiver))),
            running: Arc::default(),
        }
    }
}

impl Snapshots {
    /// Offers `checkpoints` of a game for keeping; dropped when the writer
    /// is not running or is behind.
    pub fn offer(&self, game_id: Uuid, game: &str, checkpoints: Vec<Arc<Checkpoint>>) {
        if checkpoints.is_empty() || !self.running.load(std::sync::atomic::Ordering::Relaxed) {
            return;
        }
        let _ = self.sender.try_send(Offered {
            game_id,
            game: game.to_string(),
            checkpoints,
        });
    }
}

/// The SHA-256 (hex) of the umpire's view of `state`: what a snapshot is
/// held to when it is resumed.
fn umpire_view_hash(state: &dyn DynMatch) -> Result<String, ServiceError> {
    let view = state.view(&Viewer::Umpire)?;
    let text = serde_json::to_vec(&view)
        .map_err(|e| ServiceError::Internal(format!("a view did not serialise: {e}")))?;
    Ok(umpire_domain::chain::sha256_hex(&text))
}

/// A checkpoint as a row of `fold_snapshots`.
fn snapshot_of(checkpoint: &Checkpoint) -> Result<FoldSnapshot, ServiceError> {
    snapshot_row(&checkpoint.game)
}

/// A game as a row of `fold_snapshots`, at its version.
fn snapshot_row(game: &GameAggregate) -> Result<FoldSnapshot, ServiceError> {
    let serialised = |what: &str, e: serde_json::Error| {
        ServiceError::Internal(format!("{what} did not serialise: {e}"))
    };
    let clock = game
        .clock
        .as_ref()
        .map(serde_json::to_value)
        .transpose()
        .map_err(|e| serialised("a clock", e))?;
    let seat_tokens =
        serde_json::to_value(&game.seat_tokens).map_err(|e| serialised("seat tokens", e))?;
    let state = game.state.as_ref();
    Ok(FoldSnapshot {
        version: state.version(),
        state: state.snapshot(),
        clock,
        view_sha256: umpire_view_hash(state)?,
        seat_tokens: Some(seat_tokens),
    })
}

/// How much closer than [`CHECKPOINT_EVERY`] an import keeps its states:
/// its replay shows the state before each decision, and a decision's
/// events (a handful; a round's end a few dozen) pass a version between
/// two of them, so a state is kept once this close to the next 256 and a
/// read never folds more than 256 events from one.
const IMPORT_SLACK: u64 = 64;

/// The snapshots an import keeps of the states its validating replay
/// passes (`umpire_archive::validate_for_import_observing`), so that a
/// game imported and never read is read at a past version as cheaply as
/// one played here. Built on the blocking thread that validates.
#[derive(Default)]
pub(crate) struct ImportSnapshots {
    rows: Vec<FoldSnapshot>,
    last: u64,
    failed: bool,
}

impl ImportSnapshots {
    pub fn observe(&mut self, step: &umpire_archive::Step<'_>) {
        let version = step.before.version();
        if self.failed
            || step.divergence.is_some()
            || version < self.last + CHECKPOINT_EVERY - IMPORT_SLACK
        {
            return;
        }
        match snapshot_row(step.before) {
            Ok(row) => {
                self.rows.push(row);
                self.last = version;
            }
            // Derived: a game without snapshots is read whole.
            Err(_) => self.failed = true,
        }
    }

    pub fn rows(self) -> Vec<FoldSnapshot> {
        if self.failed {
            Vec::new()
        } else {
            self.rows
        }
    }
}

/// Keeps an imported game's snapshots, once the game is stored. Derived:
/// one that could not be written is logged, and the game read whole.
pub(crate) async fn keep_imported(
    store: &EventStore,
    game_id: Uuid,
    game: &str,
    rows: &[FoldSnapshot],
) {
    if rows.is_empty() {
        return;
    }
    if let Err(error) = store.keep_snapshots(game_id, &format(game), rows).await {
        if let Some(unlogged) = TROUBLE.due() {
            tracing::warn!(%game_id, %error, unlogged, "an imported game's snapshots could not be kept");
        }
    }
}

impl Snapshots {
    /// Starts writing what is offered to `store`, until the service stops
    /// (`umpire serve`; elsewhere nothing is offered).
    pub fn keep(&self, background: &Background, store: EventStore, metrics: Metrics) {
        let Some(receiver) = self.receiver.lock().take() else {
            return;
        };
        self.running
            .store(true, std::sync::atomic::Ordering::Relaxed);
        background.spawn(|stopping| async move {
            write_offered(store, metrics, receiver, stopping).await;
        });
    }
}

/// What one database gave for a read at a past version from a snapshot.
pub(crate) enum FromSnapshot {
    /// The game at the version asked for.
    Resumed(GameAggregate),
    /// This database's log does not reach the version (a standby behind).
    Short,
    /// No snapshot is kept near enough before the version, or none
    /// resumes: the game is read whole.
    Whole,
}

/// The game at `at` from `store`: from the snapshot at or before it (or
/// the game's start) and the events after, at most [`CHECKPOINT_EVERY`].
/// A store's error is its own: a standby's is the caller's to pass by.
pub(crate) async fn past_from_snapshot(
    store: &EventStore,
    game: &dyn DynGame,
    record: &GameRecord,
    at: u64,
    metrics: &Metrics,
) -> Result<FromSnapshot, crate::attempt::Attempt> {
    let game_id = record.game_id;
    let kept = store
        .snapshot_at_or_before(game_id, &format(&record.game), at)
        .await?;
    let from = kept.as_ref().map_or(0, |kept| kept.version);
    if at == 0 || at - from > CHECKPOINT_EVERY {
        return Ok(FromSnapshot::Whole);
    }
    let events = store.read_events(game_id, from, Some(at), None).await?;
    if from + events.len() as u64 != at {
        return Ok(FromSnapshot::Short);
    }
    let Some(mut folded) = resumed(game, record, kept.as_ref())? else {
        metrics
            .fold_snapshots
            .with_label_values(&["passed_by"])
            .inc();
        return Ok(FromSnapshot::Whole);
    };
    for event in &events {
        folded.apply(event).map_err(|e| corrupt(game_id, e))?;
    }
    metrics.fold_snapshots.with_label_values(&["resumed"]).inc();
    Ok(FromSnapshot::Resumed(folded))
}

/// The game `kept` was written from (its state, clock and seats' tokens),
/// or the game's start for none; `None` when it does not resume to the
/// state it was kept from, or was kept without the seats' tokens (before
/// migrations/V13).
fn resumed(
    game: &dyn DynGame,
    record: &GameRecord,
    kept: Option<&FoldSnapshot>,
) -> Result<Option<GameAggregate>, ServiceError> {
    let Some(kept) = kept else {
        let state = game
            .new_match(&record.options)
            .map_err(|e| corrupt(record.game_id, e))?;
        return Ok(Some(GameAggregate::start(state)));
    };
    let Ok(state) = game.resume(&record.options, &kept.state) else {
        return Ok(None);
    };
    let clock = match &kept.clock {
        None => None,
        Some(clock) => match serde_json::from_value::<Clock>(clock.clone()) {
            Ok(clock) => Some(clock),
            Err(_) => return Ok(None),
        },
    };
    let Some(Ok(seat_tokens)) = kept
        .seat_tokens
        .clone()
        .map(serde_json::from_value::<SeatTokens>)
    else {
        return Ok(None);
    };
    if state.version() != kept.version || umpire_view_hash(state.as_ref())? != kept.view_sha256 {
        if let Some(unlogged) = TROUBLE.due() {
            tracing::warn!(
                game_id = %record.game_id,
                version = kept.version,
                unlogged,
                "a kept snapshot resumed to another state than it was kept from; the log is folded instead"
            );
        }
        return Ok(None);
    }
    Ok(Some(GameAggregate {
        state,
        clock,
        seat_tokens,
    }))
}

/// The writer: each game's offered checkpoints newer than what is kept,
/// made into rows off the async workers and written in one statement.
async fn write_offered(
    store: EventStore,
    metrics: Metrics,
    mut receiver: mpsc::Receiver<Offered>,
    mut stopping: Stopping,
) {
    let mut newest_kept: LruCache<Uuid, u64> =
        LruCache::new(NonZeroUsize::new(REMEMBERED_GAMES).expect("non-zero"));
    loop {
        let offered = tokio::select! {
            offered = receiver.recv() => offered,
            () = stopping.stopped() => None,
        };
        let Some(offered) = offered else {
            return;
        };
        let format = format(&offered.game);
        let kept = match newest_kept.get(&offered.game_id) {
            Some(version) => *version,
            None => match store.newest_snapshot(offered.game_id, &format).await {
                Ok(version) => version,
                Err(error) => {
                    trouble(&offered, &error.to_string());
                    continue;
                }
            },
        };
        let fresh: Vec<Arc<Checkpoint>> = offered
            .checkpoints
            .iter()
            .filter(|checkpoint| checkpoint.version > kept)
            .cloned()
            .collect();
        let Some(newest) = fresh.last().map(|checkpoint| checkpoint.version) else {
            newest_kept.put(offered.game_id, kept);
            continue;
        };
        let rows = tokio::task::spawn_blocking(move || {
            fresh
                .iter()
                .map(|checkpoint| snapshot_of(checkpoint))
                .collect::<Result<Vec<_>, _>>()
        })
        .await;
        let rows = match rows {
            Ok(Ok(rows)) => rows,
            Ok(Err(error)) => {
                trouble(&offered, &error.to_string());
                continue;
            }
            Err(error) => {
                trouble(&offered, &error.to_string());
                continue;
            }
        };
        match store.keep_snapshots(offered.game_id, &format, &rows).await {
            Ok(()) => {
                newest_kept.put(offered.game_id, newest);
                metrics
                    .fold_snapshots
                    .with_label_values(&["kept"])
                    .inc_by(rows.len() as u64);
            }
            Err(error) => trouble(&offered, &error.to_string()),
        }
    }
}

/// Snapshots are derived: one that could not be written is left for a
/// later fold of the game, and said at most every 10 s.
fn trouble(offered: &Offered, error: &str) {
    if let Some(unlogged) = TROUBLE.due() {
        tracing::warn!(game_id = %offered.game_id, %error, unlogged, "a game's snapshots could not be kept");
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::{json, Value};
    use umpire_domain::RecordedEvent;

    use super::*;

    /// Given a Treeblox game whose token of seat `dark` was reissued at
    /// version 3, kept as a row of `fold_snapshots` at version 4, the game
    /// resumed from the row is the whole aggregate, the reissue included;
    /// the same row as written before the seats' tokens were kept is passed
    /// by.
    #[test]
    fn a_snapshot_keeps_the_seats_tokens_and_one_without_them_is_passed_by() {
        let registry = umpire_games::registry();
        let rules = registry.get("treeblox").unwrap();
        let record = GameRecord {
            game_id: Uuid::nil(),
            game: "treeblox".into(),
            options: rules.validate_options(&Value::Null).unwrap(),
            seed: 5,
            rules_version: 1,
            created_at: chrono::Utc::now(),
        };
        let mut game = GameAggregate::start(rules.new_match(&record.options).unwrap());
        let setup = rules.setup(&record.options, 5).unwrap();
        let reissue = json!({"type": "seat_token_reissued", "seat": "dark"});
        let at_reissue = setup.len() as u64 + 1;
        for (seq, payload) in (1..).zip(setup.into_iter().chain([reissue])) {
            let event = RecordedEvent {
                seq,
                event_type: umpire_domain::erased::event_type(&payload).to_string(),
                payload,
                actor: "system".into(),
                action: Arc::new(Value::Null),
                decided_at: 0,
                rules_version: 1,
                recorded_at: "2026-11-29T10:00:00.000000Z".into(),
                prev_hash: String::new(),
                hash: String::new(),
                encoded: Default::default(),
            };
            game.apply(&event).unwrap();
        }
        assert!(game.seat_tokens.reissued_after("dark", at_reissue - 1));

        let row = snapshot_row(&game).unwrap();
        let back = resumed(rules.as_ref(), &record, Some(&row))
            .unwrap()
            .expect("resumed");
        assert_eq!(back.seat_tokens, game.seat_tokens);
        assert_eq!(back.version(), game.version());

        let before_v13 = FoldSnapshot {
            seat_tokens: None,
            ..row
        };
        let passed_by = resumed(rules.as_ref(), &record, Some(&before_v13)).unwrap();
        assert!(passed_by.is_none());
    }
}
