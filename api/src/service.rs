//! What the endpoints do, without HTTP: load a game, fold its events, decide
//! an action, append it, and redact what comes back for the caller.

use std::collections::BTreeMap;
use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use lru::LruCache;

use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use umpire_domain::chain::GENESIS_HASH;
use umpire_domain::erased::event_type;
use umpire_domain::{Actor, DynMatch, GameError, Registry};
use umpire_storage::store::AppendOutcome;
use umpire_storage::{
    EventStore, GameRecord, IdempotentRequest, NewEvent, NewGame, NewToken, Rejection, StoredEvent,
    TokenRole,
};
use uuid::Uuid;

use crate::auth::{new_seed, new_token, Principal};
use crate::error::ApiError;
use crate::metrics::Metrics;
use crate::model::LegalActions;
use crate::model::{
    ActionAccepted, ActionCheck, CreateGameRequest, CreatedGame, EventEnvelope, EventPage,
    GameSummary, ScoreResponse, StateResponse, SubmitActionRequest,
};
use crate::turns::Turns;

/// How long a submission may wait for its turn at a game and retry races
/// lost to other instances before it is answered 409 `contended`.
const SUBMIT_DEADLINE: Duration = Duration::from_secs(2);
/// Page size of the event log.
pub const DEFAULT_EVENT_PAGE: u64 = 100;
pub const MAX_EVENT_PAGE: u64 = 1000;

/// How many games' folded states the service keeps in memory.
const CACHED_GAMES: usize = 2048;
/// How many tokens' roles it keeps (a few per cached game).
const CACHED_TOKENS: usize = 16384;

#[derive(Clone)]
pub struct GameService {
    pub store: EventStore,
    pub registry: Arc<Registry>,
    /// Latest folded state per game. Events are immutable, so a cached fold is
    /// never wrong, only possibly behind: every load still asks the store for
    /// events after the cached version (one indexed query), which keeps several
    /// service instances on one database correct.
    cache: Arc<Mutex<LruCache<Uuid, Arc<Fold>>>>,
    /// Roles granted to tokens, by `(game, token hash)`.
    tokens: Arc<Mutex<LruCache<(Uuid, String), GrantedRole>>>,
    /// Submissions to one game take turns within this instance.
    turns: Turns,
    /// Refused actions per (game, actor): a flood of them is answered 429.
    refusals: Arc<crate::throttle::RefusalThrottle>,
    pub metrics: Metrics,
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
    Done((ActionAccepted, bool)),
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

/// The pause before retrying the `lost`-th lost race: exponential from
/// 5 ms, capped at 200 ms, with full jitter so instances do not retry in step.
fn backoff(lost: u32) -> Duration {
    let ceiling_ms = (5u64 << lost.min(6)).min(200);
    let jitter = getrandom::u64().unwrap_or(ceiling_ms / 2) % ceiling_ms.max(1);
    Duration::from_millis(jitter.max(1))
}

/// What a token grants: the umpire, or a seat (named).
type GrantedRole = (TokenRole, Option<String>);

/// A game folded up to its latest known event. Shared, read-only, between
/// the requests that use it: a new event makes a new fold.
struct Fold {
    record: Arc<GameRecord>,
    events: Vec<Arc<StoredEvent>>,
    state: Box<dyn DynMatch>,
}

impl Fold {
    /// The hash the next event links to.
    fn head_hash(&self) -> &str {
        self.events
            .last()
            .map_or(GENESIS_HASH, |event| event.hash.as_str())
    }

    /// This fold with `stored` events applied.
    fn extended(&self, stored: Vec<StoredEvent>) -> Result<Fold, ApiError> {
        let mut state = self.state.clone();
        for event in &stored {
            state
                .apply_json(&event.payload)
                .map_err(|e| corrupt(self.record.game_id, e))?;
        }
        Ok(self.followed_by(stored, state))
    }

    /// This fold followed by `stored` events, `state` being the state after
    /// them (as `DynMatch::decide_and_apply` gives it).
    fn followed_by(&self, stored: Vec<StoredEvent>, state: Box<dyn DynMatch>) -> Fold {
        let mut events = Vec::with_capacity(self.events.len() + stored.len());
        events.extend(self.events.iter().cloned());
        events.extend(stored.into_iter().map(Arc::new));
        Fold {
            record: self.record.clone(),
            events,
            state,
        }
    }
}

/// A game read from the store, and its state at the version asked for.
pub struct LoadedGame {
    latest: Arc<Fold>,
    /// The state at an earlier version, when one was asked for.
    past: Option<Box<dyn DynMatch>>,
}

impl LoadedGame {
    pub fn record(&self) -> &GameRecord {
        &self.latest.record
    }

    /// Every stored event (not only those folded into `state`).
    pub fn events(&self) -> &[Arc<StoredEvent>] {
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

/// The action as it can be stored: PostgreSQL's jsonb cannot hold U+0000, so
/// NUL characters in strings and keys (which no game's action needs) become
/// U+FFFD. Without this a hostile action would fail to be recorded (a 500).
fn storable(value: &Value) -> Value {
    fn clean(text: &str) -> String {
        text.replace('\0', "\u{FFFD}")
    }
    match value {
        Value::String(text) if text.contains('\0') => Value::String(clean(text)),
        Value::Array(items) => Value::Array(items.iter().map(storable).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, item)| (clean(key), storable(item)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// What identifies a submission for its idempotency key: the same key with
/// a different request is refused rather than answered with the old response.
/// The request is hashed in canonical form, so a retry that a client library
/// serialised with its keys in another order is still the same request.
fn request_hash(principal: &Principal, request: &SubmitActionRequest) -> String {
    hex::encode(Sha256::digest(umpire_domain::chain::canonical(&json!({
        "actor": principal.label(),
        "action": request.action,
        "expected_version": request.expected_version,
    }))))
}

fn contended(game_id: Uuid) -> ApiError {
    ApiError::Contended {
        message: format!(
            "Game {game_id} is receiving many actions at once and this one did not get its \
             turn within {} ms; nothing was applied, send it again.",
            SUBMIT_DEADLINE.as_millis()
        ),
    }
}

fn corrupt(game_id: Uuid, error: GameError) -> ApiError {
    ApiError::Internal(format!(
        "stored log of game {game_id} does not fold: {error}"
    ))
}

impl GameService {
    pub fn new(mut store: EventStore, registry: Arc<Registry>) -> Self {
        let metrics = Metrics::unregistered();
        let (sizes, seconds) = (
            metrics.append_batch_size.clone(),
            metrics.append_batch_seconds.clone(),
        );
        store.observe_batches(Arc::new(move |size, took| {
            sizes.observe(size as f64);
            seconds.observe(took.as_secs_f64());
        }));
        GameService {
            store,
            registry,
            cache: Arc::new(Mutex::new(LruCache::new(
                NonZeroUsize::new(CACHED_GAMES).expect("non-zero"),
            ))),
            tokens: Arc::new(Mutex::new(LruCache::new(
                NonZeroUsize::new(CACHED_TOKENS).expect("non-zero"),
            ))),
            turns: Turns::default(),
            refusals: Arc::default(),
            metrics,
        }
    }

    fn cached(&self, game_id: Uuid) -> Option<Arc<Fold>> {
        self.cache.lock().ok()?.get(&game_id).cloned()
    }

    /// The role a token grants in a game. Tokens never change once issued,
    /// so a granted role is remembered (by the token's hash); refusals are
    /// not, so guessing cannot fill the cache.
    pub async fn token_role(
        &self,
        game_id: Uuid,
        token: &str,
    ) -> Result<Option<GrantedRole>, ApiError> {
        let key = (game_id, umpire_storage::hash_token(token));
        if let Some(role) = self
            .tokens
            .lock()
            .ok()
            .and_then(|mut tokens| tokens.get(&key).cloned())
        {
            return Ok(Some(role));
        }
        let role = self.store.token_role(game_id, token).await?;
        if let (Some(role), Ok(mut tokens)) = (&role, self.tokens.lock()) {
            tokens.put(key, role.clone());
        }
        Ok(role)
    }

    fn remember(&self, game_id: Uuid, fold: Arc<Fold>) {
        if let Ok(mut cache) = self.cache.lock() {
            // Never replace a fresher fold written by a concurrent request.
            let stale = cache
                .peek(&game_id)
                .is_none_or(|existing| existing.state.version() <= fold.state.version());
            if stale {
                cache.put(game_id, fold);
            }
        }
    }

    /// The game's record (immutable, so served from the cache when possible):
    /// a 404 for an unknown game before any token is looked at.
    pub async fn record(&self, game_id: Uuid) -> Result<Arc<GameRecord>, ApiError> {
        match self.cached(game_id) {
            Some(fold) => Ok(fold.record.clone()),
            None => Ok(Arc::new(self.store.game(game_id).await?)),
        }
    }

    /// The latest state of a game: the cached fold brought up to date.
    async fn latest(&self, game_id: Uuid) -> Result<Arc<Fold>, ApiError> {
        self.metrics.observe_pool(self.store.pool());
        let cached = self.cached(game_id);
        let fresh_start;
        let base: &Fold = match &cached {
            Some(fold) => fold,
            None => {
                let record = self.store.game(game_id).await?;
                let state = self
                    .registry
                    .get(&record.game)
                    .map_err(|e| corrupt(game_id, e))?
                    .new_match(&record.options)
                    .map_err(|e| corrupt(game_id, e))?;
                fresh_start = Fold {
                    record: Arc::new(record),
                    events: Vec::new(),
                    state,
                };
                &fresh_start
            }
        };
        let newer = self
            .store
            .read_events(game_id, base.state.version(), None, None)
            .await?;
        if newer.is_empty() {
            if let Some(fold) = cached {
                return Ok(fold);
            }
        }
        let fold = Arc::new(base.extended(newer)?);
        self.remember(game_id, fold.clone());
        Ok(fold)
    }

    pub async fn create(&self, request: CreateGameRequest) -> Result<CreatedGame, ApiError> {
        let game = self.registry.get(&request.game)?;
        let options = game.validate_options(&request.options)?;
        let seats = game.seats(&options)?;
        let seed = match request.seed {
            // The spec promises an int64: a larger seed is refused rather
            // than accepted from some clients and unrepresentable in others.
            Some(seed) if seed > i64::MAX as u64 => {
                return Err(ApiError::bad_request(
                    "invalid_seed",
                    format!("The seed {seed} is larger than the largest allowed, 2^63 - 1."),
                ))
            }
            Some(seed) => seed,
            None => new_seed()? & i64::MAX as u64,
        };
        let setup = game.setup(&options, seed)?;
        let game_id = Uuid::new_v4();
        let umpire_token = new_token()?;
        let mut tokens = vec![NewToken {
            token_hash: umpire_storage::hash_token(&umpire_token),
            role: TokenRole::Umpire,
            seat: None,
        }];
        let mut seat_tokens = BTreeMap::new();
        for seat in seats {
            let token = new_token()?;
            tokens.push(NewToken {
                token_hash: umpire_storage::hash_token(&token),
                role: TokenRole::Seat,
                seat: Some(seat.clone()),
            });
            seat_tokens.insert(seat, token);
        }
        let setup_events: Vec<NewEvent> = setup
            .into_iter()
            .map(|payload| NewEvent {
                event_type: event_type(&payload).to_string(),
                payload,
                actor: "system".into(),
                action: Value::Null,
                rules_version: game.rules_version(),
            })
            .collect();
        let stored = self
            .store
            .create_game(NewGame {
                game_id,
                game: game.id().to_string(),
                options,
                // Seeds are stored as the bits of a u64 in a bigint.
                seed: seed as i64,
                rules_version: game.rules_version(),
                setup_events,
                tokens,
            })
            .await?;
        Ok(CreatedGame {
            id: game_id,
            game: game.id().to_string(),
            version: stored.len() as u64,
            umpire_token,
            seat_tokens,
        })
    }

    /// Reads a game and folds its events up to `up_to` (default: all).
    pub async fn load(&self, game_id: Uuid, up_to: Option<u64>) -> Result<LoadedGame, ApiError> {
        let latest = self.latest(game_id).await?;
        let version = latest.state.version();
        let past = match up_to {
            None => None,
            Some(at) if at == version => None,
            Some(at) if at > version => {
                return Err(ApiError::bad_request(
                    "version_out_of_range",
                    format!("Version {at} does not exist yet; the game is at version {version}."),
                ))
            }
            Some(at) => {
                let mut state = self
                    .registry
                    .get(&latest.record.game)
                    .map_err(|e| corrupt(game_id, e))?
                    .new_match(&latest.record.options)
                    .map_err(|e| corrupt(game_id, e))?;
                for event in &latest.events[..at as usize] {
                    state
                        .apply_json(&event.payload)
                        .map_err(|e| corrupt(game_id, e))?;
                }
                Some(state)
            }
        };
        Ok(LoadedGame { latest, past })
    }

    pub async fn summary(&self, game_id: Uuid) -> Result<GameSummary, ApiError> {
        let loaded = self.load(game_id, None).await?;
        let game = self
            .registry
            .get(&loaded.record().game)
            .map_err(|e| corrupt(game_id, e))?;
        Ok(GameSummary {
            id: game_id,
            game: loaded.record().game.clone(),
            version: loaded.state().version(),
            rules_version: loaded.record().rules_version,
            seats: game
                .seats(&loaded.record().options)
                .map_err(|e| corrupt(game_id, e))?,
            status: loaded.state().status(),
            created_at: loaded.record().created_at.to_rfc3339(),
        })
    }

    /// An event as `principal` may see it, judged against the latest state.
    /// An event it may not see is a placeholder in its place (`{"type":
    /// "hidden"}`), so that every viewer's sequence is gap-free: its number
    /// and time, and that the system (setup) recorded it, are public; who
    /// acted is not, since a secret move can be a seat's own.
    fn envelope(
        &self,
        now: &dyn DynMatch,
        event: &StoredEvent,
        principal: &Principal,
    ) -> Result<EventEnvelope, ApiError> {
        let umpire = principal.is_umpire();
        let Some(payload) = now.redact_event(&event.payload, &principal.viewer())? else {
            let payload = umpire_domain::erased::hidden_event();
            return Ok(EventEnvelope {
                seq: event.seq,
                event_type: event_type(&payload).to_string(),
                actor: if event.actor == "system" {
                    event.actor.clone()
                } else {
                    umpire_domain::erased::HIDDEN_EVENT_TYPE.to_string()
                },
                recorded_at: event.recorded_at.clone(),
                rules_version: event.rules_version,
                payload,
                action: None,
                prev_hash: None,
                hash: None,
            });
        };
        let own_action = umpire || event.actor == principal.label();
        Ok(EventEnvelope {
            seq: event.seq,
            event_type: event_type(&payload).to_string(),
            actor: event.actor.clone(),
            recorded_at: event.recorded_at.clone(),
            rules_version: event.rules_version,
            payload,
            action: (own_action && !event.action.is_null()).then(|| event.action.clone()),
            prev_hash: umpire.then(|| event.prev_hash.clone()),
            hash: umpire.then(|| event.hash.clone()),
        })
    }

    fn envelopes<'a>(
        &self,
        now: &dyn DynMatch,
        events: impl IntoIterator<Item = &'a StoredEvent>,
        principal: &Principal,
    ) -> Result<Vec<EventEnvelope>, ApiError> {
        events
            .into_iter()
            .map(|event| self.envelope(now, event, principal))
            .collect()
    }

    /// Decides an action and appends what it produces.
    ///
    /// Submissions to one game take turns within this instance (see
    /// [`Turns`]), so they do not race each other to the same version; only
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
        principal: &Principal,
        request: &SubmitActionRequest,
        idempotency_key: Option<&str>,
    ) -> Result<(ActionAccepted, bool), ApiError> {
        let actor = principal.actor()?;
        let idempotency = idempotency_key.map(|key| Idempotency {
            key,
            request_hash: request_hash(principal, request),
        });
        let deadline = Instant::now() + SUBMIT_DEADLINE;
        let _turn = self
            .turns
            .take(game_id, deadline)
            .await
            .map_err(|_| contended(game_id))?;
        if let Some(replayed) = self
            .replay_if_recorded(game_id, principal, idempotency.as_ref())
            .await?
        {
            return Ok((replayed, true));
        }
        let action = storable(&request.action);
        let mut game = match self.cached(game_id) {
            Some(cached) => Stale::Maybe(cached),
            None => Stale::No(self.latest(game_id).await?),
        };
        let mut lost_races = 0u32;
        loop {
            let outcome = self
                .attempt(
                    game_id,
                    principal,
                    &actor,
                    request,
                    &action,
                    idempotency.as_ref(),
                    game.fold(),
                )
                .await?;
            let refusal = match (outcome, &game) {
                (Attempt::Done(result), _) => return Ok(result),
                // A refusal decided on a fold that may be behind proves
                // nothing yet: decide again on the latest one.
                (Attempt::Refused(_), Stale::Maybe(_)) => {
                    game = Stale::No(self.latest(game_id).await?);
                    continue;
                }
                (Attempt::Refused(refusal), Stale::No(_)) => refusal,
                (Attempt::LostRace { expected, actual }, _) => {
                    self.metrics.conflicts.inc();
                    if request.expected_version.is_some() {
                        Refusal::Conflict { expected, actual }
                    } else {
                        // Another instance appended first: decide again on
                        // the new state, after a pause that spreads the
                        // retries of instances racing for one game.
                        lost_races += 1;
                        let pause = backoff(lost_races);
                        if Instant::now() + pause >= deadline {
                            Refusal::Contended
                        } else {
                            tokio::time::sleep(pause).await;
                            game = Stale::No(self.latest(game_id).await?);
                            continue;
                        }
                    }
                }
            };
            if let Some(replayed) = self
                .replay_if_recorded(game_id, principal, idempotency.as_ref())
                .await?
            {
                return Ok((replayed, true));
            }
            return Err(match refusal {
                Refusal::Conflict { expected, actual } => {
                    ApiError::VersionConflict { expected, actual }
                }
                Refusal::Contended => contended(game_id),
                Refusal::Rule(error) => {
                    self.reject(game_id, principal, game.fold(), action, error)
                        .await?
                }
            });
        }
    }

    /// One try at deciding `request` on `game` and appending the outcome at
    /// its head.
    #[allow(clippy::too_many_arguments)]
    async fn attempt(
        &self,
        game_id: Uuid,
        principal: &Principal,
        actor: &Actor<String>,
        request: &SubmitActionRequest,
        action: &Value,
        idempotency: Option<&Idempotency<'_>>,
        game: &Fold,
    ) -> Result<Attempt, ApiError> {
        let version = game.state.version();
        if let Some(expected) = request.expected_version {
            if expected != version {
                return Ok(Attempt::Refused(Refusal::Conflict {
                    expected,
                    actual: version,
                }));
            }
        }
        let decision = match game.state.decide_and_apply(actor, &request.action) {
            Ok(decision) => decision,
            Err(error) => return Ok(Attempt::Refused(Refusal::Rule(error))),
        };
        let new_events: Vec<NewEvent> = decision
            .events
            .into_iter()
            .map(|payload| NewEvent {
                event_type: event_type(&payload).to_string(),
                payload,
                actor: principal.label(),
                action: action.clone(),
                rules_version: game.record.rules_version,
            })
            .collect();
        let idempotent = idempotency.map(|idempotency| IdempotentRequest {
            key: idempotency.key.to_string(),
            request_hash: idempotency.request_hash.clone(),
            response: json!({"first_seq": version + 1, "version": version + new_events.len() as u64}),
        });
        match self
            .store
            .append_at_head(
                game_id,
                version,
                game.head_hash(),
                new_events,
                idempotent.as_ref(),
            )
            .await
        {
            Ok(AppendOutcome::Appended(stored)) => {
                self.metrics.appends.inc();
                self.metrics.appended_events.inc_by(stored.len() as u64);
                let accepted = self.accepted(game_id, principal, game, stored, decision.after)?;
                Ok(Attempt::Done((accepted, false)))
            }
            Ok(AppendOutcome::Replayed(response)) => Ok(Attempt::Done((
                self.replayed(game_id, principal, &response).await?,
                true,
            ))),
            Err(umpire_storage::StoreError::Conflict { expected, actual }) => {
                Ok(Attempt::LostRace { expected, actual })
            }
            Err(other) => Err(other.into()),
        }
    }

    /// The original answer to an idempotent request already applied, if it
    /// was; a refusal when the key was used for another request.
    async fn replay_if_recorded(
        &self,
        game_id: Uuid,
        principal: &Principal,
        idempotency: Option<&Idempotency<'_>>,
    ) -> Result<Option<ActionAccepted>, ApiError> {
        let Some(idempotency) = idempotency else {
            return Ok(None);
        };
        let Some((stored_hash, response)) = self
            .store
            .idempotent_response(game_id, idempotency.key)
            .await?
        else {
            return Ok(None);
        };
        if stored_hash != idempotency.request_hash {
            return Err(umpire_storage::StoreError::IdempotencyKeyReused.into());
        }
        Ok(Some(self.replayed(game_id, principal, &response).await?))
    }

    /// Records a refused action for the audit and returns its error, or,
    /// when this actor's refusals in this game exceed their budget, returns
    /// `too_many_refusals` and records nothing (see `throttle.rs`).
    async fn reject(
        &self,
        game_id: Uuid,
        principal: &Principal,
        game: &Fold,
        action: Value,
        error: GameError,
    ) -> Result<ApiError, ApiError> {
        let actor = principal.label();
        if let Err(retry_after_seconds) =
            self.refusals
                .take(game_id, &actor, std::time::Instant::now())
        {
            self.metrics
                .rejections
                .with_label_values(&["too_many_refusals"])
                .inc();
            return Ok(ApiError::TooManyRefusals {
                retry_after_seconds,
            });
        }
        let error = ApiError::from(error);
        let body = error.body();
        self.metrics
            .rejections
            .with_label_values(&[&body.code])
            .inc();
        self.store
            .record_rejection(
                game_id,
                &Rejection {
                    at_version: game.state.version(),
                    actor,
                    action,
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
    /// latest fold, and answers with what `principal` may see of them.
    fn accepted(
        &self,
        game_id: Uuid,
        principal: &Principal,
        game: &Fold,
        stored: Vec<StoredEvent>,
        after: Box<dyn DynMatch>,
    ) -> Result<ActionAccepted, ApiError> {
        let appended = stored.len();
        let fold = game.followed_by(stored, after);
        let accepted = ActionAccepted {
            version: fold.state.version(),
            events: self.envelopes(
                fold.state.as_ref(),
                fold.events[fold.events.len() - appended..]
                    .iter()
                    .map(|e| e.as_ref()),
                principal,
            )?,
            status: fold.state.status(),
        };
        self.remember(game_id, Arc::new(fold));
        Ok(accepted)
    }

    /// The response of an idempotent replay, rebuilt from the stored events.
    async fn replayed(
        &self,
        game_id: Uuid,
        principal: &Principal,
        stored: &Value,
    ) -> Result<ActionAccepted, ApiError> {
        let first_seq = stored["first_seq"].as_u64().unwrap_or(1);
        let version = stored["version"].as_u64().unwrap_or(0);
        let loaded = self.load(game_id, Some(version)).await?;
        let events = &loaded.events()
            [(first_seq.saturating_sub(1) as usize).min(loaded.events().len())..version as usize];
        Ok(ActionAccepted {
            version,
            events: self.envelopes(
                loaded.latest_state(),
                events.iter().map(|e| e.as_ref()),
                principal,
            )?,
            status: loaded.state().status(),
        })
    }

    pub async fn check(
        &self,
        game_id: Uuid,
        principal: &Principal,
        action: &Value,
        at: Option<u64>,
    ) -> Result<ActionCheck, ApiError> {
        let actor = principal.actor()?;
        let loaded = self.load(game_id, at).await?;
        let at = loaded.state().version();
        let decision = match loaded.state().decide(&actor, action) {
            Ok(events) => Ok(events),
            Err(GameError::Violation(violation)) => Err(violation),
            Err(other) => return Err(other.into()),
        };
        let answer = umpire_domain::dry_run(decision, &actor);
        Ok(ActionCheck {
            legal: answer.legal,
            at,
            events: answer.events,
            violation: answer
                .violation
                .map(|violation| ApiError::Violation(violation).body()),
        })
    }

    pub async fn legal_actions(
        &self,
        game_id: Uuid,
        principal: &Principal,
    ) -> Result<LegalActions, ApiError> {
        let actor = principal.actor()?;
        let loaded = self.load(game_id, None).await?;
        Ok(LegalActions {
            version: loaded.state().version(),
            actions: loaded.state().legal_actions(&actor)?,
        })
    }

    pub async fn state(
        &self,
        game_id: Uuid,
        principal: &Principal,
        at: Option<u64>,
    ) -> Result<StateResponse, ApiError> {
        let loaded = self.load(game_id, at).await?;
        Ok(StateResponse {
            id: game_id,
            game: loaded.record().game.clone(),
            version: loaded.state().version(),
            status: loaded.state().status(),
            state: loaded.state().view(&principal.viewer())?,
        })
    }

    pub async fn score(
        &self,
        game_id: Uuid,
        principal: &Principal,
        at: Option<u64>,
    ) -> Result<ScoreResponse, ApiError> {
        let loaded = self.load(game_id, at).await?;
        Ok(ScoreResponse {
            id: game_id,
            game: loaded.record().game.clone(),
            version: loaded.state().version(),
            is_final: loaded.state().status().finished,
            score: loaded.state().score(&principal.viewer())?,
        })
    }

    pub async fn events(
        &self,
        game_id: Uuid,
        principal: &Principal,
        after: u64,
        limit: u64,
    ) -> Result<EventPage, ApiError> {
        let loaded = self.load(game_id, None).await?;
        let version = loaded.state().version();
        let start = (after.min(version)) as usize;
        let end = (after.saturating_add(limit)).min(version) as usize;
        let page = &loaded.events()[start..end];
        Ok(EventPage {
            id: game_id,
            version,
            events: self.envelopes(loaded.state(), page.iter().map(|e| e.as_ref()), principal)?,
            next_after: ((end as u64) < version).then_some(end as u64),
        })
    }
}
