//! The service itself: the store, the games, the fold cache and the
//! per-instance limits, with creating games, resolving tokens and loading a
//! game at a version. Submitting is in `submit.rs`, what a viewer may read
//! in `reads.rs`, archives in `archives.rs`; live streams are `live/`,
//! which reads through a `folds::Reader` and never reaches back here.

use std::sync::Arc;
use umpire_domain::clock::{ClockSettings, RequestedClock};

use serde_json::Value;
use umpire_domain::{actor_label, DynMatch, RecordedEvent, Registry, StatusJson, Viewer};
use umpire_storage::{EventStore, GameRecord, Head, NewEvent, NewGame, StoreError};
use uuid::Uuid;

use crate::access::{mint_tokens, new_seed};
use crate::background::Background;
use crate::budget::{Charge, MemoryBudget, Reservation, DEFAULT_MEMORY_BUDGET};
use crate::client_address::ClientAddress;
use crate::cold_folds::ColdFolds;
use crate::error::ServiceError;
use crate::fold::Fold;
use crate::folds::{Folds, Reader};
use crate::grants::{Credential, Grants};
use crate::live::{Follower, Live, StreamClient, StreamLimits, STREAM_BYTES};
use crate::log_every::LogEvery;
use crate::metrics::Metrics;
use crate::model::{CreateGameRequest, CreatedGame};
use crate::replicas::{ReplicaSettings, Replicas, Skip};
use crate::throttle::{
    Rate, RefusalThrottle, Throttle, DEFAULT_CREATIONS_PER_MINUTE, DEVICE_LINKS_PER_SEAT,
    REDEMPTION_FAILURES, TRACKED_ADDRESSES, TRACKED_GAMES, TRACKED_SEATS, UMPIRE_EXTRAS_PER_GAME,
};
use crate::turns::Turns;

#[derive(Clone)]
pub struct GameService {
    pub(crate) store: EventStore,
    pub(crate) registry: Arc<Registry>,
    pub(crate) folds: Folds,
    pub(crate) grants: Arc<Grants>,
    /// Submissions to one game take turns within this instance.
    pub(crate) turns: Turns,
    /// Refused actions per (game, actor): a flood of them is answered 429.
    pub(crate) refusals: Arc<RefusalThrottle>,
    /// Games created or imported per client address, when the caller asks
    /// ([`GameService::admit_creation`]: on a service without an admin token).
    pub(crate) creations: Arc<Throttle<Option<ClientAddress>>>,
    /// Failed invitation redemptions per client address.
    pub(crate) redemption_failures: Arc<Throttle<Option<ClientAddress>>>,
    /// The umpire's actions outside the rules, per game.
    pub(crate) umpire_extras: Arc<Throttle<Uuid>>,
    /// A seat's links to another device, per (game, seat).
    pub(crate) device_links: Arc<Throttle<(Uuid, String)>>,
    /// Live streams and what wakes them.
    pub(crate) live: Live,
    /// The process's memory budget, which the fold cache, the streams and
    /// every body or audit in flight charge (`budget.rs`).
    pub budget: MemoryBudget,
    pub metrics: Metrics,
    /// Standbys that reads naming a version may be answered from.
    pub(crate) replicas: Replicas,
    /// The timekeeper, the listener and the probes, stopped by
    /// [`GameService::stop`].
    pub(crate) background: Background,
}

/// An instance's limits beyond the store.
#[derive(Debug, Clone, Copy)]
pub struct ServiceLimits {
    /// Bytes the process may hold in what grows with clients or stored data.
    pub memory_budget: usize,
    pub streams: StreamLimits,
    /// Games one client address may create or import a minute where
    /// [`GameService::admit_creation`] is asked.
    pub creations_per_minute: u32,
    /// The umpire's actions outside the rules one game takes.
    pub umpire_extras: Rate,
}

impl Default for ServiceLimits {
    fn default() -> Self {
        ServiceLimits {
            memory_budget: DEFAULT_MEMORY_BUDGET,
            streams: StreamLimits::default(),
            creations_per_minute: DEFAULT_CREATIONS_PER_MINUTE,
            umpire_extras: UMPIRE_EXTRAS_PER_GAME,
        }
    }
}

impl GameService {
    pub fn new(store: EventStore, registry: Arc<Registry>) -> Self {
        Self::with_limits(store, registry, ServiceLimits::default())
    }

    pub fn with_limits(
        mut store: EventStore,
        registry: Arc<Registry>,
        limits: ServiceLimits,
    ) -> Self {
        let metrics = Metrics::unregistered();
        let budget = metrics.memory_budget(limits.memory_budget);
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
            folds: Folds::new(
                budget.clone(),
                ColdFolds::new(
                    metrics.cold_folds.with_label_values(&["waiting"]),
                    metrics.cold_folds.with_label_values(&["folding"]),
                ),
            ),
            grants: Arc::default(),
            turns: Turns::default(),
            refusals: Arc::default(),
            creations: Arc::new(Throttle::new(
                Rate::per_minute(limits.creations_per_minute),
                TRACKED_ADDRESSES,
            )),
            redemption_failures: Arc::new(Throttle::new(REDEMPTION_FAILURES, TRACKED_ADDRESSES)),
            umpire_extras: Arc::new(Throttle::new(limits.umpire_extras, TRACKED_GAMES)),
            device_links: Arc::new(Throttle::new(DEVICE_LINKS_PER_SEAT, TRACKED_SEATS)),
            live: Live::new(limits.streams, budget.clone(), metrics.clone()),
            budget,
            metrics,
            replicas: Replicas::default(),
            background: Background::default(),
        }
    }

    /// Reads that name a version may from now on be answered by these
    /// standbys (`replicas.rs`); each is probed from now on.
    pub fn read_from_standbys(
        &mut self,
        settings: &ReplicaSettings,
    ) -> Result<(), umpire_storage::StoreError> {
        self.replicas = Replicas::connect(settings, &self.metrics)?;
        self.replicas.start_probing(&self.background);
        Ok(())
    }

    /// Reserves `bytes` of the memory budget for `kind`, letting cached
    /// folds go first if they do not fit; `Busy` when they still do not.
    pub fn reserve_memory(&self, kind: Charge, bytes: usize) -> Result<Reservation, ServiceError> {
        if let Some(reservation) = self.budget.try_reserve(kind, bytes) {
            return Ok(reservation);
        }
        self.folds.make_room(bytes);
        self.budget
            .try_reserve(kind, bytes)
            .ok_or_else(|| self.memory_busy(kind))
    }

    /// Reserves `more` bytes besides on `reservation`, as
    /// [`GameService::reserve_memory`] does.
    pub fn grow_reservation(
        &self,
        reservation: &mut Reservation,
        more: usize,
    ) -> Result<(), ServiceError> {
        if reservation.try_grow(more) {
            return Ok(());
        }
        self.folds.make_room(more);
        if reservation.try_grow(more) {
            return Ok(());
        }
        Err(self.memory_busy(reservation.kind()))
    }

    /// A probe of the game's cached fold (see [`FoldProbe`](crate::FoldProbe)).
    pub fn probe_cached_fold(&self, game_id: Uuid) -> Option<crate::folds::FoldProbe> {
        self.folds.probe(game_id)
    }

    /// Counts and (at most every 10 s) logs a request the budget had no
    /// room for, and says so.
    fn memory_busy(&self, kind: Charge) -> ServiceError {
        static LOGGED: LogEvery = LogEvery::new(std::time::Duration::from_secs(10));
        self.budget.count_refusal(kind);
        if let Some(unlogged) = LOGGED.due() {
            tracing::warn!(
                charge = kind.label(),
                budget = self.budget.limit(),
                charged = self.budget.total(),
                refused_since_last_logged = unlogged,
                "a request was refused busy: the memory budget is spent (logged at most every 10 s)"
            );
        }
        ServiceError::Busy {
            message: "The service is using its whole memory budget for other requests; \
                      send it again shortly."
                .into(),
        }
    }

    /// What a live stream reads through: the store, the games, the fold
    /// cache and the metrics, without the rest of the service.
    fn reader(&self) -> Reader {
        Reader {
            store: self.store.clone(),
            registry: self.registry.clone(),
            folds: self.folds.clone(),
            metrics: self.metrics.clone(),
            replicas: self.replicas.clone(),
        }
    }

    /// Starts following `game_id` after version `after` as `viewer`:
    /// refused when the game does not have that version yet, and with
    /// `Busy` when the instance already holds its limit of streams (see
    /// `Live::follow` in `live/hub.rs`).
    pub async fn follow(
        &self,
        game_id: Uuid,
        viewer: Viewer<String>,
        client: StreamClient,
        after: u64,
    ) -> Result<Follower, ServiceError> {
        let reserve_memory = || self.reserve_memory(Charge::Streams, STREAM_BYTES);
        self.live
            .follow(
                self.reader(),
                game_id,
                viewer,
                client,
                after,
                reserve_memory,
            )
            .await
    }

    /// Starts this instance's one listening connection (see
    /// `live/listener.rs`).
    pub fn listen_for_appends(&self, database_url: String) {
        self.live.listen(
            &self.background,
            database_url,
            self.metrics.clone(),
            self.replicas.clone(),
        );
    }

    pub fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    /// True when the database answers.
    pub async fn ready(&self) -> Result<(), ServiceError> {
        Ok(self.store.ping().await?)
    }

    /// Who presents `token` in a game (a spectator without one), for a
    /// read: a 404 for an unknown game before any token is looked at; a
    /// seat's grant asked of the store every time (`grants.rs`).
    pub async fn viewer(
        &self,
        game_id: Uuid,
        token: Option<&str>,
    ) -> Result<Viewer<String>, ServiceError> {
        self.record(game_id).await?;
        match token {
            None => Ok(Viewer::Spectator),
            Some(token) => {
                (self.grants)
                    .viewer(&self.store, &self.folds, game_id, token)
                    .await
            }
        }
    }

    /// Who presents `token` to submit an action: as [`GameService::viewer`],
    /// a seat's grant possibly remembered, confirmed by the submission on the
    /// fold it is decided on (`grants.rs`).
    pub async fn credential(
        &self,
        game_id: Uuid,
        token: Option<&str>,
    ) -> Result<Credential, ServiceError> {
        self.record(game_id).await?;
        match token {
            None => Ok(Credential::checked(Viewer::Spectator)),
            Some(token) => {
                (self.grants)
                    .credential(&self.store, &self.folds, game_id, token)
                    .await
            }
        }
    }

    /// The game's record: immutable, so served from the cache when
    /// possible, else from a standby that has the game, else the primary.
    pub async fn record(&self, game_id: Uuid) -> Result<Arc<GameRecord>, ServiceError> {
        if let Some(fold) = self.folds.cached(game_id) {
            return Ok(fold.record.clone());
        }
        for (index, standby) in self.replicas.to_try() {
            match standby.store.game(game_id).await {
                Ok(record) => return Ok(Arc::new(record)),
                Err(StoreError::GameNotFound(_)) => self.replicas.skipped(index, Skip::Behind),
                Err(StoreError::Unavailable(_)) => self.replicas.skipped(index, Skip::Down),
                Err(_) => self.replicas.skipped(index, Skip::Failed),
            }
        }
        Ok(Arc::new(self.store.game(game_id).await?))
    }

    /// The latest fold of a game, brought up to date.
    pub(crate) async fn latest(
        &self,
        game_id: Uuid,
    ) -> Result<Arc<crate::fold::Fold>, ServiceError> {
        self.folds
            .latest(&self.store, &self.registry, &self.metrics, game_id)
            .await
    }

    /// Takes one of `client`'s game creations (or imports): for a service
    /// anyone may create games on, where each game mints a token per seat
    /// and takes room in the store. `Throttled` when the address has
    /// created its share for now.
    pub fn admit_creation(&self, client: Option<ClientAddress>) -> Result<(), ServiceError> {
        self.creations
            .take(client, std::time::Instant::now())
            .map_err(|retry_after_seconds| ServiceError::Throttled {
                code: "too_many_games",
                message: format!(
                    "This address has created as many games as it may for now (a service \
                     without an admin token allows {} a minute).",
                    self.creations.rate().burst
                ),
                retry_after_seconds,
            })
    }

    pub async fn create(&self, request: CreateGameRequest) -> Result<CreatedGame, ServiceError> {
        let game = self.registry.get(&request.game)?;
        let options = game.validate_options(&request.options)?;
        let seats = game.seats(&options)?;
        let seed = match request.seed {
            // The spec promises an int64: a larger seed is refused rather
            // than accepted from some clients and unrepresentable in others.
            Some(seed) if !umpire_domain::rng::is_valid_seed(seed) => {
                return Err(ServiceError::invalid(
                    "invalid_seed",
                    format!("The seed {seed} is larger than the largest allowed, 2^63 - 1."),
                ))
            }
            Some(seed) => seed,
            None => umpire_domain::rng::seed_from_random_bits(new_seed()?),
        };
        let clock = request
            .clock
            .map(RequestedClock::validate)
            .transpose()
            .map_err(umpire_domain::GameError::from)?;
        let mut setup = game.setup(&options, seed)?;
        // The clock is the setup's last event: the log holds it, so every
        // deadline is derived from the log alone.
        setup.extend(clock.map(ClockSettings::event));
        let game_id = Uuid::new_v4();
        let (invitations, stored_invitations) =
            crate::invitation_codes::mint_invitations(game_id, &seats)?;
        let tokens = mint_tokens(seats)?;
        let setup_events = NewEvent::all(
            setup,
            actor_label::SYSTEM,
            &Arc::new(Value::Null),
            game.rules_version(),
        );
        let stored = self
            .store
            .create_game_inviting(
                NewGame {
                    game_id,
                    game: game.id().to_string(),
                    options,
                    // Seeds are stored as the bits of a u64 in a bigint.
                    seed: seed as i64,
                    rules_version: game.rules_version(),
                    setup_events,
                    tokens: tokens.stored,
                },
                &stored_invitations,
            )
            .await?;
        Ok(CreatedGame {
            id: game_id,
            game: game.id().to_string(),
            version: stored.len() as u64,
            umpire_token: tokens.umpire,
            seat_tokens: tokens.seats,
            invitations,
        })
    }
}

impl GameService {
    /// Starts keeping the checkpoints of the folds this instance makes in
    /// the database, until the service stops (`snapshots.rs`).
    pub fn keep_snapshots(&self) {
        self.folds
            .snapshots
            .keep(&self.background, self.store.clone(), self.metrics.clone());
    }

    /// Keeps `game` followed by the events this instance has just appended
    /// as the game's latest fold, and wakes the game's streams.
    /// `status_after` is the match's status after them (`DynMatch::status`
    /// of `after`): it comes back with the clock's, the fold's status, made
    /// once for the caller's answer and the streams.
    pub(crate) fn keep_appended(
        &self,
        game_id: Uuid,
        game: &Fold,
        appended: Vec<RecordedEvent>,
        (after, status_after): (Box<dyn DynMatch>, StatusJson),
        head: Head,
    ) -> Result<(Arc<Fold>, Arc<StatusJson>), ServiceError> {
        let fold = Arc::new(game.followed_by(appended, after, head)?);
        let version = fold.head.version();
        let status = Arc::new(status_after.with_clock(fold.game.clock.as_ref()));
        self.folds.remember(game_id, fold.clone());
        // This instance's streams need not wait for the store's
        // announcement: those at the head are handed the page after it,
        // made once for each viewer, and the rest find the new fold in the
        // cache. No store read.
        self.live
            .push(game_id, game.head.version(), &fold, &status, || {
                self.reader()
            });
        self.replicas.note_append(game_id, version);
        Ok((fold, status))
    }
}
