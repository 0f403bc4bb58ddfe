//! Submitting an action: decided on the game's fold, appended at its head,
//! retried on a fresh fold when the fold was behind, answered once per
//! `Idempotency-Key`, and recorded for the audit when refused.

use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use serde_json::{json, Value};
use umpire_domain::clock;
use umpire_domain::erased::DecodedEvent;
use umpire_domain::record::RecordedRejection;
use umpire_domain::{actor_label, DynMatch, GameError, RecordedEvent, StatusJson, Viewer};
use umpire_storage::{
    AppendOutcome, Head, IdempotentAnswer, IdempotentRequest, NewEvent, StoreError,
};
use uuid::Uuid;

use crate::access::acting;
use crate::error::ServiceError;
use crate::fold::Fold;
use crate::games::GameService;
use crate::grants::Credential;
use crate::model::{ActionAcceptedJson, SubmitActionRequest};
use crate::projection::accepted_json;

/// How long a submission may wait for its turn at a game and retry races
/// lost to other instances before it is answered 409 `contended`.
pub(crate) const SUBMIT_DEADLINE: Duration = Duration::from_secs(2);

/// One submission: who sends what, and how it is recorded.
struct Submission<'a> {
    game_id: Uuid,
    credential: &'a Credential,
    viewer: &'a Viewer<String>,
    /// The actor's label, as events and refusals record it.
    label: String,
    /// The action as sent, which is decided.
    sent: Arc<Value>,
    expected_version: Option<u64>,
    /// The action as it can be stored (see [`storable_action`]), shared by the
    /// events it makes: the one sent, unless it holds a NUL.
    action: Arc<Value>,
    idempotency: Option<Idempotency<'a>>,
}

/// An `Idempotency-Key` and what identifies the request sent with it.
struct Idempotency<'a> {
    key: &'a str,
    request_hash: String,
}

/// A fold to decide on, and whether it may be behind the store.
enum Stale {
    /// From the cache: another instance may have appended since.
    Maybe(Arc<Fold>),
    /// Just brought up to date.
    No(Arc<Fold>),
}

impl Stale {
    fn fold(&self) -> &Fold {
        match self {
            Stale::Maybe(fold) | Stale::No(fold) => fold,
        }
    }
}

/// How one attempt at a submission ended.
enum Attempt {
    /// Appended, or the idempotent original answer: `(answer, replayed)`.
    Done((ActionAcceptedJson, bool)),
    /// Refused on this fold (reported only once the fold is known fresh).
    Refused(Refusal),
    /// Someone appended at this version first.
    LostRace { expected: u64, actual: u64 },
}

/// Why a submission is refused.
enum Refusal {
    Conflict { expected: u64, actual: u64 },
    Contended,
    Rule(GameError),
}

/// What to do after an attempt.
enum Next {
    Answer((ActionAcceptedJson, bool)),
    TryAgainOn(Stale),
    Refuse(Refusal, Stale),
}

/// The pause before retrying the `lost`-th lost race: exponential from
/// 5 ms, capped at 200 ms, with full jitter so instances do not retry in step.
fn backoff(lost: u32) -> Duration {
    let ceiling_ms = (5u64 << lost.min(6)).min(200);
    let jitter = getrandom::u64().unwrap_or(ceiling_ms / 2) % ceiling_ms.max(1);
    Duration::from_millis(jitter.max(1))
}

/// The action as it can be stored: PostgreSQL's jsonb cannot hold U+0000, so
/// NUL characters in strings and keys (which no game's action needs) become
/// U+FFFD. Without this a hostile action would fail to be recorded (a 500).
/// The action itself when it holds none, as nearly every one does.
fn storable_action(sent: &Arc<Value>) -> Arc<Value> {
    if umpire_archive::import::holds_nul(sent) {
        Arc::new(umpire_archive::import::without_nul(sent))
    } else {
        sent.clone()
    }
}

/// What identifies a submission for its idempotency key: the same key with
/// a different request is refused rather than answered with the old response.
/// The request is hashed in canonical form, so a retry that a client library
/// serialised with its keys in another order is still the same request.
fn request_hash(label: &str, action: &Value, expected_version: Option<u64>) -> String {
    umpire_domain::chain::sha256_hex(&umpire_domain::chain::canonical(&json!({
        "actor": label,
        "action": action,
        "expected_version": expected_version,
    })))
}

pub(crate) fn contended(game_id: Uuid) -> ServiceError {
    ServiceError::Contended {
        message: format!(
            "Game {game_id} is receiving many actions at once and this one did not get its \
             turn within {} ms; nothing was applied, send it again.",
            SUBMIT_DEADLINE.as_millis()
        ),
    }
}

impl GameService {
    /// Decides an action and appends what it produces; the answer, and
    /// whether it is the replayed answer to an earlier identical request.
    ///
    /// Submissions to one game take turns within this instance (see
    /// `Turns`), so they do not race each other to the same version; only
    /// another instance can append in between. The first attempt decides
    /// against the cached fold without asking the store, and appends at the
    /// head that fold ends with: one round trip. A fold that is behind can
    /// only make an attempt fail — the `(game_id, seq)` key refuses the
    /// append, or the action looks stale or illegal — and every such failure
    /// is tried again on a fold brought up to date before it is reported, so
    /// staleness is never visible to the caller. With an `Idempotency-Key`,
    /// the key is looked up again before any refusal is reported: a retry
    /// that lost to its own first attempt gets that attempt's answer.
    pub async fn submit(
        &self,
        game_id: Uuid,
        credential: &Credential,
        request: SubmitActionRequest,
        idempotency_key: Option<&str>,
    ) -> Result<(ActionAcceptedJson, bool), ServiceError> {
        let SubmitActionRequest {
            action: sent,
            expected_version,
        } = request;
        let sent = Arc::new(sent);
        let viewer = &credential.viewer;
        let actor = acting(viewer)?;
        let label = actor_label::write(&actor);
        let submission = Submission {
            game_id,
            credential,
            viewer,
            idempotency: idempotency_key.map(|key| Idempotency {
                key,
                request_hash: request_hash(&label, &sent, expected_version),
            }),
            label,
            action: storable_action(&sent),
            sent,
            expected_version,
        };
        let deadline = Instant::now() + SUBMIT_DEADLINE;
        let _turn = self
            .turns
            .take(game_id, deadline)
            .await
            .map_err(|_| contended(game_id))?;
        if let Some(replayed) = self.replay_if_recorded(&submission).await? {
            return Ok((replayed, true));
        }
        let mut game = match self.folds.cached(game_id) {
            Some(cached) => Stale::Maybe(cached),
            None => Stale::No(self.latest(game_id).await?),
        };
        let mut lost_races = 0u32;
        let (refusal, game) = loop {
            let outcome = self.attempt(&submission, game.fold()).await?;
            match self
                .next_step(&submission, outcome, game, &mut lost_races, deadline)
                .await?
            {
                Next::Answer(answer) => return Ok(answer),
                Next::TryAgainOn(fold) => game = fold,
                Next::Refuse(refusal, fold) => break (refusal, fold),
            }
        };
        if let Some(replayed) = self.replay_if_recorded(&submission).await? {
            return Ok((replayed, true));
        }
        Err(match refusal {
            Refusal::Conflict { expected, actual } => {
                ServiceError::VersionConflict { expected, actual }
            }
            Refusal::Contended => contended(game_id),
            Refusal::Rule(error) => self.reject(&submission, game.fold(), error).await?,
        })
    }

    /// What an attempt's outcome on `game` leads to: the answer, another
    /// attempt on a fresher fold, or a refusal to report.
    async fn next_step(
        &self,
        submission: &Submission<'_>,
        outcome: Attempt,
        game: Stale,
        lost_races: &mut u32,
        deadline: Instant,
    ) -> Result<Next, ServiceError> {
        Ok(match (outcome, game) {
            (Attempt::Done(answer), _) => Next::Answer(answer),
            // A refusal decided on a fold that may be behind proves nothing
            // yet: decide again on the latest one.
            (Attempt::Refused(_), Stale::Maybe(_)) => {
                Next::TryAgainOn(Stale::No(self.latest(submission.game_id).await?))
            }
            (Attempt::Refused(refusal), fresh @ Stale::No(_)) => Next::Refuse(refusal, fresh),
            (Attempt::LostRace { expected, actual }, game) => {
                self.metrics.conflicts.inc();
                if submission.expected_version.is_some() {
                    return Ok(Next::Refuse(Refusal::Conflict { expected, actual }, game));
                }
                // Another instance appended first: decide again on the new
                // state, after a pause that spreads the retries of instances
                // racing for one game.
                *lost_races += 1;
                let pause = backoff(*lost_races);
                if Instant::now() + pause >= deadline {
                    return Ok(Next::Refuse(Refusal::Contended, game));
                }
                tokio::time::sleep(pause).await;
                Next::TryAgainOn(Stale::No(self.latest(submission.game_id).await?))
            }
        })
    }

    /// One try at deciding the submission on `game` and appending the
    /// outcome at its head.
    async fn attempt(
        &self,
        submission: &Submission<'_>,
        game: &Fold,
    ) -> Result<Attempt, ServiceError> {
        (self.grants)
            .confirm(&self.store, submission.credential, game)
            .await?;
        let version = game.head.version();
        if let Some(expected) = submission.expected_version {
            if expected != version {
                return Ok(Attempt::Refused(Refusal::Conflict {
                    expected,
                    actual: version,
                }));
            }
        }
        let decision = match game
            .game
            .decide(&submission.label, &submission.sent, Utc::now())
        {
            Ok(decision) => decision,
            Err(error) => return Ok(Attempt::Refused(Refusal::Rule(error))),
        };
        // The umpire's actions outside the rules (the clock's, a ruling)
        // are throttled per game: nothing else bounds how fast they grow a log.
        let outside_the_rules = |event: &serde_json::Value| {
            clock::is_clock_event(event) || umpire_domain::rulings::is_ruling_event(event)
        };
        if decision.events.iter().all(outside_the_rules) && !decision.events.is_empty() {
            crate::throttle::admit_umpire_extra(&self.umpire_extras, submission.game_id)?;
        }
        crate::log_length::check_room(version, decision.events.len())?;
        let new_events = NewEvent::all(
            decision.events,
            &submission.label,
            &submission.action,
            game.record.rules_version,
        );
        let idempotent = submission
            .idempotency
            .as_ref()
            .map(|idempotency| IdempotentRequest {
                actor: submission.label.clone(),
                key: idempotency.key.to_string(),
                request_hash: idempotency.request_hash.clone(),
                answer: IdempotentAnswer {
                    first_seq: version + 1,
                    version: version + new_events.len() as u64,
                },
            });
        // Made once, for the store's result and the answer.
        let status_after = decision.after.status();
        // Held until the fold after the append is cached and announced.
        let _own_append = self.live.appending(submission.game_id);
        match self
            .store
            .append_at_head_with_result(
                &game.head,
                new_events,
                idempotent.as_ref(),
                crate::listing::result_when(decision.after.as_ref(), status_after.finished)
                    .as_ref(),
            )
            .await
        {
            Ok(AppendOutcome::Appended { events, head }) => {
                self.metrics.appends.inc();
                self.metrics.appended_events.inc_by(events.len() as u64);
                let accepted = self.accepted(
                    submission,
                    game,
                    events,
                    (decision.after, &decision.decoded, status_after),
                    head,
                )?;
                Ok(Attempt::Done((accepted, false)))
            }
            Ok(AppendOutcome::Replayed(answer)) => Ok(Attempt::Done((
                self.replayed(submission, answer).await?,
                true,
            ))),
            Err(StoreError::Conflict { expected, actual }) => {
                Ok(Attempt::LostRace { expected, actual })
            }
            Err(other) => Err(other.into()),
        }
    }

    /// The original answer to an idempotent request already applied, if it
    /// was; a refusal when the key was used for another request. Keys are the
    /// sender's own: another actor's use of the same key is not seen here.
    async fn replay_if_recorded(
        &self,
        submission: &Submission<'_>,
    ) -> Result<Option<ActionAcceptedJson>, ServiceError> {
        let Some(idempotency) = &submission.idempotency else {
            return Ok(None);
        };
        let Some((stored_hash, answer)) = self
            .store
            .idempotent_response(submission.game_id, &submission.label, idempotency.key)
            .await?
        else {
            return Ok(None);
        };
        if stored_hash != idempotency.request_hash {
            return Err(StoreError::IdempotencyKeyReused.into());
        }
        // A replay shows events too: a remembered grant is confirmed on the
        // latest fold first.
        if submission.credential.is_remembered() {
            let latest = self.latest(submission.game_id).await?;
            (self.grants)
                .confirm(&self.store, submission.credential, &latest)
                .await?;
        }
        Ok(Some(self.replayed(submission, answer).await?))
    }

    /// Records a refused action for the audit and returns its error, or,
    /// when this actor's refusals in this game exceed their budget, returns
    /// `too_many_refusals` and records nothing (see `throttle.rs`).
    async fn reject(
        &self,
        submission: &Submission<'_>,
        game: &Fold,
        error: GameError,
    ) -> Result<ServiceError, ServiceError> {
        if let Err(retry_after_seconds) =
            self.refusals
                .take(submission.game_id, &submission.label, Instant::now())
        {
            self.metrics
                .rejections
                .with_label_values(&["too_many_refusals"])
                .inc();
            return Ok(ServiceError::TooManyRefusals {
                retry_after_seconds,
            });
        }
        let error = ServiceError::from(error);
        let body = error.body();
        self.metrics
            .rejections
            .with_label_values(&[&body.code])
            .inc();
        self.store
            .record_rejection(
                submission.game_id,
                &RecordedRejection {
                    at_version: game.head.version(),
                    actor: submission.label.clone(),
                    action: Value::clone(&submission.action),
                    code: body.code,
                    message: body.message,
                    rule: body.rule,
                    rules_version: game.record.rules_version,
                    recorded_at: String::new(),
                    repeats: 1,
                },
            )
            .await?;
        Ok(error)
    }

    /// Folds freshly appended events into the game, keeps the result as the
    /// latest fold, and answers with what the submitter may see of them
    /// (redacted from the decision's `decoded` events, not read again).
    fn accepted(
        &self,
        submission: &Submission<'_>,
        game: &Fold,
        appended: Vec<RecordedEvent>,
        (after, decoded, status_after): (Box<dyn DynMatch>, &[DecodedEvent], StatusJson),
        head: Head,
    ) -> Result<ActionAcceptedJson, ServiceError> {
        let count = appended.len();
        // Before the streams are woken (by `keep_appended`).
        (self.live).decided(submission.game_id, game.head.version() + 1, decoded);
        let (fold, status) = self.keep_appended(
            submission.game_id,
            game,
            appended,
            (after, status_after),
            head,
        )?;
        accepted_json(
            &fold.record.game,
            fold.head.version(),
            fold.game.state.as_ref(),
            fold.events
                .range(fold.events.len() - count..fold.events.len())
                .map(|e| e.as_ref()),
            decoded,
            submission.viewer,
            // The fold's status (`Fold::status`), from the match's made above.
            &status,
        )
    }

    /// The answer of an idempotent replay, rebuilt from the stored events.
    async fn replayed(
        &self,
        submission: &Submission<'_>,
        answer: IdempotentAnswer,
    ) -> Result<ActionAcceptedJson, ServiceError> {
        let IdempotentAnswer { first_seq, version } = answer;
        let loaded = self
            .load_folded(submission.game_id, crate::ReadAt::At(version))
            .await?;
        let events = loaded
            .events()
            .checked_range(first_seq.saturating_sub(1) as usize..version as usize)
            .ok_or_else(|| {
                ServiceError::Internal(format!(
                    "the answer stored for an idempotency key of game {} names events \
                     {first_seq} to {version}, which are not all stored",
                    submission.game_id
                ))
            })?;
        accepted_json(
            &loaded.record().game,
            version,
            loaded.latest_state(),
            events.map(|e| e.as_ref()),
            &[],
            submission.viewer,
            &loaded.status(),
        )
    }
}
