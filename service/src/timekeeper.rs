//! The timekeeper: every instance looks at the clocked games whose look is
//! due (`clock_checks`, migrations/V7), folds each, and records the clock's
//! timeout of a seat whose deadline has passed, or notes when to look next.
//!
//! Exactly once, whichever instances look: a timeout is decided on the
//! game's latest fold and appended at that fold's head, so of two
//! instances timing out one deadline only the first append lands (the
//! other's is refused by the log's `(game_id, seq)` key and records
//! nothing), and a seat's action that commits first leaves the timeout
//! nothing to append at. The table is only a hint of when to look: what is
//! due is always folded from the log, so a restart, a lost look or an
//! instance that died mid-way costs at most a late look, never a wrong or a
//! second timeout. Memory holds one page of looks, not every clock.

use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use serde_json::{json, Value};
use umpire_domain::clock::{self, Deadline};
use umpire_domain::record::format_recorded_at;
use umpire_domain::{actor_label, GameError};
use umpire_storage::{AppendOutcome, ClockCheck, NewEvent, StoreError};

use crate::background::Stopping;
use crate::error::ServiceError;
use crate::fold::Fold;
use crate::games::GameService;
use crate::log_every::LogEvery;
use crate::submit::SUBMIT_DEADLINE;

/// How often an idle timekeeper asks the store for clocks to look at: what
/// a timeout may be late by, beyond the time to record it.
const LOOK_EVERY: Duration = Duration::from_millis(200);
/// Looks asked for at once; more are asked for at once when a page is full.
const LOOKS_PER_PAGE: u32 = 256;
/// Timeouts one look records at most before it gives way to other games.
const TIMEOUTS_PER_LOOK: usize = 16;
/// A look that failed (the store unreachable, say) is tried again after this.
const LOOK_AGAIN_AFTER: chrono::TimeDelta = chrono::TimeDelta::seconds(1);

/// At most one line in a while for each kind of failure, with a count.
static UNREADABLE: LogEvery = LogEvery::new(Duration::from_secs(10));
static FAILED_LOOK: LogEvery = LogEvery::new(Duration::from_secs(10));

/// What one look at a game's clock did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Look {
    /// The clock timed out this seat.
    TimedOut(String),
    /// Someone appended first (another instance's timeout, the seat's own
    /// action): nothing recorded; the game is looked at again.
    Overtaken,
    /// Nothing due yet; looked at again at the next deadline, if any.
    Waiting,
}

impl GameService {
    /// Starts this instance's timekeeper, until the service stops (it
    /// finishes the look it is at first).
    pub fn keep_time(&self) {
        let service = self.clone();
        self.background
            .spawn(|stopping| async move { service.timekeeper(stopping).await });
    }

    async fn timekeeper(self, mut stopping: Stopping) {
        while !stopping.is_stopping() {
            let full = match self.look_at_due_clocks().await {
                Ok(looked) => looked == LOOKS_PER_PAGE as usize,
                Err(error) => {
                    // A database that is down for a while would otherwise
                    // be reported five times a second.
                    if let Some(unlogged) = UNREADABLE.due() {
                        tracing::warn!(%error, unlogged, "the timekeeper could not read which clocks to look at");
                    }
                    false
                }
            };
            if !full {
                tokio::select! {
                    () = tokio::time::sleep(LOOK_EVERY) => {}
                    () = stopping.stopped() => return,
                }
            }
        }
    }

    /// Looks at one page of the clocks due now; how many it looked at.
    pub async fn look_at_due_clocks(&self) -> Result<usize, ServiceError> {
        let checks = self.store.due_clock_checks(LOOKS_PER_PAGE).await?;
        let mut looks = tokio::task::JoinSet::new();
        for check in checks.iter().copied() {
            let service = self.clone();
            looks.spawn(async move {
                if let Err(error) = service.look_at_clock(check).await {
                    if let Some(unlogged) = FAILED_LOOK.due() {
                        tracing::warn!(game = %check.game_id, %error, unlogged, "a look at a game's clock failed");
                    }
                    let again = Utc::now() + LOOK_AGAIN_AFTER;
                    let _ = service
                        .store
                        .set_clock_check(check.game_id, check.version, Some(again))
                        .await;
                }
            });
        }
        while looks.join_next().await.is_some() {}
        Ok(checks.len())
    }

    /// Folds the game's log and times out every seat whose deadline has
    /// passed, earliest first (seats due at once, in a simultaneous phase,
    /// are timed out in one look), then notes when the next deadline falls.
    pub async fn look_at_clock(&self, check: ClockCheck) -> Result<Look, ServiceError> {
        let mut look = Look::Waiting;
        for _ in 0..TIMEOUTS_PER_LOOK {
            let fold = self.latest(check.game_id).await?;
            let due = fold
                .game
                .clock
                .as_ref()
                .and_then(|clock| clock.deadlines().into_iter().next());
            match due {
                Some(deadline) if deadline.at <= Utc::now() => {
                    look = self.time_out(&fold, deadline).await?;
                    if look == Look::Overtaken {
                        return Ok(look);
                    }
                }
                next => {
                    // Set only if no append came since the fold was read:
                    // otherwise the append's mark stands and is looked at.
                    self.store
                        .set_clock_check(
                            check.game_id,
                            fold.head.version(),
                            next.map(|deadline| deadline.at),
                        )
                        .await?;
                    return Ok(look);
                }
            }
        }
        // The game stays marked by its last timeout: looked at again soon.
        Ok(look)
    }

    /// Records the clock's timeout of `deadline`'s seat at the fold's head.
    async fn time_out(&self, game: &Arc<Fold>, deadline: Deadline) -> Result<Look, ServiceError> {
        let game_id = game.record.game_id;
        // Taking the game's turn keeps this instance's own submissions
        // from racing the timeout; other instances are raced by the log.
        let Ok(_turn) = self
            .turns
            .take(game_id, Instant::now() + SUBMIT_DEADLINE)
            .await
        else {
            return Ok(Look::Overtaken);
        };
        let action: Value = json!({
            "type": "timeout",
            "seat": deadline.seat,
            "deadline": format_recorded_at(&deadline.at),
        });
        let decision = match game.game.decide(actor_label::CLOCK, &action, Utc::now()) {
            Ok(decision) => decision,
            Err(GameError::Violation(violation)) => {
                return Err(ServiceError::Internal(format!(
                    "the clock's own timeout of seat {} in game {game_id} is refused: {violation}",
                    deadline.seat
                )))
            }
            Err(other) => return Err(other.into()),
        };
        let action = Arc::new(action);
        let events = NewEvent::all(
            decision.events,
            actor_label::CLOCK,
            &action,
            game.record.rules_version,
        );
        let _own_append = self.live.appending(game_id);
        let result = crate::listing::result_of(decision.after.as_ref());
        match self
            .store
            .append_at_head_with_result(&game.head, events, None, result.as_ref())
            .await
        {
            Ok(AppendOutcome::Appended { events, head }) => {
                self.metrics.appends.inc();
                self.metrics.appended_events.inc_by(events.len() as u64);
                if let Some(recorded) = events
                    .first()
                    .and_then(|event| clock::recorded_time(event).ok())
                {
                    let late = (recorded - deadline.at).num_microseconds().unwrap_or(0);
                    self.metrics
                        .clock_lateness_seconds
                        .observe(late.max(0) as f64 / 1e6);
                }
                self.metrics.clock_timeouts.inc();
                let status_after = decision.after.status();
                self.keep_appended(game_id, game, events, (decision.after, status_after), head)?;
                Ok(Look::TimedOut(deadline.seat))
            }
            Ok(AppendOutcome::Replayed(_)) => Ok(Look::Overtaken),
            Err(StoreError::Conflict { .. }) => {
                self.metrics.clock_overtaken.inc();
                Ok(Look::Overtaken)
            }
            Err(other) => Err(other.into()),
        }
    }
}
