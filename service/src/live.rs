//! Live streams: a viewer follows a game's log from a version on, event by
//! event, each redacted exactly as `/events` redacts it, with the game's
//! status after it.
//!
//! The log is the source of truth. A stream's position is a version, and
//! every read is "the events after my position", from the fold cache and
//! the store — so a stream that resumes, falls behind or misses a
//! notification still sees every event exactly once, in order. Notifications
//! only wake streams: the store announces every append through PostgreSQL
//! (`umpire_storage::AppendListener`, one connection per instance, shared by
//! all its streams), so an action taken through another instance on the same
//! database wakes this one's streams too. This instance announces its own
//! appends itself, once their fold is cached, and holds the store's
//! announcements of a game back while it appends to it: they would
//! otherwise often arrive first, and every stream would read the store for
//! what the cache is about to hold. A watch channel per followed game
//! holds only the latest version announced, so a slow reader costs nothing
//! while it is slow: when it reads again, it catches up from the log a page
//! at a time. If the listening connection drops, the instance listens again
//! and wakes every stream to read the log; until then streams still read it
//! whenever they send a heartbeat.
//!
//! An idle stream is cheap: at the head it holds its position and a weak
//! reference to the fold it last read (which the fold cache may let go),
//! never a game log or a state of its own, and its heartbeats come from one
//! ticker per instance rather than a timer of its own. Slots are fair: an
//! instance holds a limited number of streams, and one client (a token, or
//! an address for spectators) a limited number of those; each stream is
//! charged to the memory budget, and so are the renderings its game's
//! streams share.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Once, PoisonError, Weak};
use std::time::Duration;

use tokio::sync::{watch, OwnedSemaphorePermit, Semaphore};
use umpire_domain::erased::{DecodedEvent, Shown, StatusJson};
use umpire_domain::{DynMatch, RecordedEvent};
use umpire_storage::{AppendListener, Appended};
use uuid::Uuid;

use crate::budget::{allocation, Charge, MemoryBudget, Reservation};
use crate::error::ServiceError;
use crate::folds::{corrupt, Fold};
use crate::games::GameService;
use crate::log_every::LogEvery;
use crate::metrics::Metrics;
use crate::principal::Principal;
use crate::reads::{acted, shown_event};

/// Events a stream reads at once: what it holds in memory beyond its
/// position, and what it hands its connection at once. Small, so that a
/// reader that stops reading pins little: a connection stops taking
/// messages once it has about 32 KiB unsent.
pub const STREAM_PAGE: u64 = 16;

/// Renderings a followed game keeps for its streams to share (see
/// [`Renders`]): enough for a page for each of a few viewers.
const RENDERS_KEPT: usize = 64;

/// Decoded events a followed game keeps for its streams to share (see
/// [`Renders`]): a page's worth.
const DECODED_KEPT: usize = STREAM_PAGE as usize;

/// Statuses a followed game keeps for its streams to share (see
/// [`Renders`]): more than the events of the longest single action (a
/// Flower Fields deal), so that streams catching up after one share them.
const STATUSES_KEPT: usize = 256;

/// Streams an instance holds open at once unless configured otherwise.
pub const DEFAULT_MAX_STREAMS: usize = 2048;

/// Streams one client holds open at once unless configured otherwise: a
/// browser opens one per game it shows (and at most six per host over
/// HTTP/1.1), so this leaves room for a page per game of a whole table.
pub const DEFAULT_MAX_STREAMS_PER_CLIENT: usize = 16;

/// How often an idle stream sends a heartbeat unless configured otherwise.
pub const DEFAULT_HEARTBEAT: Duration = Duration::from_secs(15);

/// What one open stream is charged to the memory budget: its connection's
/// buffers, its SSE state and its subscription, as measured on 1,000 idle
/// streams (`scripts/idle-streams.sh`, docs/benchmarks.md), rounded up.
pub const STREAM_BYTES: usize = 32 * 1024;

/// Refusals of a stream are logged at most this often; the rest are counted
/// in `/metrics` and in the next line logged.
const REFUSAL_LOG_EVERY: Duration = Duration::from_secs(10);

/// An instance's limits on live streams.
#[derive(Debug, Clone, Copy)]
pub struct LiveLimits {
    /// Streams the instance holds open at once.
    pub max_open: usize,
    /// Streams one client holds open at once ([`StreamClient`]).
    pub max_per_client: usize,
    /// How often every stream is sent a heartbeat (one ticker for all).
    pub heartbeat: Duration,
}

impl Default for LiveLimits {
    fn default() -> Self {
        LiveLimits {
            max_open: DEFAULT_MAX_STREAMS,
            max_per_client: DEFAULT_MAX_STREAMS_PER_CLIENT,
            heartbeat: DEFAULT_HEARTBEAT,
        }
    }
}

/// Who a stream's slot is counted against: its token (a seat or the umpire
/// of one game), or for a spectator the address it connects from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum StreamClient {
    Token {
        game_id: Uuid,
        principal: Principal,
    },
    Address(IpAddr),
    /// A spectator whose address is unknown (a unix socket): all such share
    /// one client's slots.
    Unknown,
}

impl StreamClient {
    /// The client of a stream of `game_id` opened by `principal` from
    /// `address`.
    pub fn of(game_id: Uuid, principal: &Principal, address: Option<IpAddr>) -> StreamClient {
        match (principal, address) {
            (Principal::Spectator, Some(address)) => StreamClient::Address(address),
            (Principal::Spectator, None) => StreamClient::Unknown,
            (principal, _) => StreamClient::Token {
                game_id,
                principal: principal.clone(),
            },
        }
    }
}

/// Waiting between attempts to listen again, doubling up to the maximum.
const RELISTEN_FIRST: Duration = Duration::from_millis(100);
const RELISTEN_MAX: Duration = Duration::from_secs(5);

/// Who is following which game, and the latest version announced for it.
#[derive(Clone)]
pub(crate) struct Live {
    hub: Arc<Hub>,
}

/// A followed game: the latest version announced for it, and a turn at
/// bringing its fold up to date, so that the many streams one announcement
/// wakes make one read of the store between them, and share its result.
struct Followed {
    announced: watch::Sender<u64>,
    refresh: Arc<tokio::sync::Mutex<()>>,
    /// This instance's appends to the game under way ([`Live::appending`]).
    own_appends: usize,
    /// The newest version the store announced meanwhile, held back.
    held: u64,
    renders: Arc<Mutex<Renders>>,
}

/// A followed game's latest events as rendered for each viewer. What a
/// viewer is shown of an event depends on the event, the viewer and the
/// version it is judged at (the newest when read: a later event can make an
/// earlier one public), so the streams of one game that share a viewer (or
/// an [`Audience`]), and read at the same version, share one rendering: a
/// game with many spectators renders each event once for them all. Only the newest
/// version's renderings are kept, and at most [`RENDERS_KEPT`].
///
/// Each viewer's redaction of an event that is not public is its own, but
/// they all start from the stored event decoded into its game's type: the
/// latest events are kept decoded ([`DECODED_KEPT`]), so a game with five
/// seats decodes an event once rather than once per seat.
///
/// It also keeps the game's status after each of its latest events, which
/// no viewer changes and no later event changes: a stream that receives
/// several events at once needs the status after each, and only the first
/// of the game's streams to read them folds them for it.
#[derive(Default)]
struct Renders {
    /// What `kept` and `statuses` hold is charged here ([`Charge::Renders`]).
    budget: Option<MemoryBudget>,
    charged: usize,
    judged_at: u64,
    kept: Vec<(u64, Audience, Arc<str>)>,
    /// (seq, the event decoded), oldest first, at most [`DECODED_KEPT`].
    decoded: Vec<(u64, DecodedEvent)>,
    /// (seq, the status after it), oldest first, at most [`STATUSES_KEPT`].
    statuses: Vec<(u64, StatusJson)>,
}

impl Drop for Renders {
    fn drop(&mut self) {
        if let Some(budget) = &self.budget {
            budget.release(Charge::Renders, self.charged);
        }
    }
}

/// What one kept status holds, beyond the `Vec` slot.
fn status_bytes(status: &StatusJson) -> usize {
    allocation(status.phase.capacity())
        + allocation(status.to_act.capacity() * std::mem::size_of::<String>())
        + status
            .to_act
            .iter()
            .map(|seat| allocation(seat.capacity()))
            .sum::<usize>()
}

impl Renders {
    fn charging(budget: MemoryBudget) -> Renders {
        let mut renders = Renders::default();
        renders.budget = Some(budget);
        renders
    }

    /// Charges the budget for what is kept now: the renderings' JSON, the
    /// statuses and the room for the decoded events (whose typed form is
    /// the game's: counted as a fixed slot each).
    fn recharge(&mut self) {
        let Some(budget) = &self.budget else { return };
        let bytes = self
            .kept
            .iter()
            .map(|(_, _, json)| allocation(16 + json.len()) + 64)
            .sum::<usize>()
            + self
                .statuses
                .iter()
                .map(|(_, status)| status_bytes(status) + 64)
                .sum::<usize>()
            + self.decoded.len() * 512;
        budget.recharge(Charge::Renders, self.charged, bytes);
        self.charged = bytes;
    }

    /// The statuses after each of the events `first..=last`, when all are kept.
    fn statuses(&self, first: u64, last: u64) -> Option<Vec<StatusJson>> {
        let start = self.statuses.iter().position(|(seq, _)| *seq == first)?;
        let wanted = (last + 1).checked_sub(first)? as usize;
        let run = self.statuses.get(start..start + wanted)?;
        // Kept in order without gaps, so the run's last is `last`.
        (run.last()?.0 == last).then(|| run.iter().map(|(_, status)| status.clone()).collect())
    }

    /// Keeps the status after event `seq`, events being kept in order.
    fn keep_status(&mut self, seq: u64, status: &StatusJson) {
        if let Some((newest, _)) = self.statuses.last() {
            if seq <= *newest {
                return;
            }
            if seq != newest + 1 {
                // A gap: what is kept must run without one.
                self.statuses.clear();
            }
        }
        if self.statuses.len() >= STATUSES_KEPT {
            self.statuses.remove(0);
        }
        self.statuses.push((seq, status.clone()));
        self.recharge();
    }

    /// Event `seq` decoded, to be filled by the first redaction that
    /// needs it.
    fn decoded(&mut self, seq: u64) -> DecodedEvent {
        if let Some((_, decoded)) = self.decoded.iter().find(|(kept, _)| *kept == seq) {
            return decoded.clone();
        }
        if self.decoded.len() >= DECODED_KEPT {
            self.decoded.remove(0);
        }
        let decoded = DecodedEvent::default();
        self.decoded.push((seq, decoded.clone()));
        self.recharge();
        decoded
    }

    fn get(&self, judged_at: u64, seq: u64, viewer: &Audience) -> Option<Arc<str>> {
        if judged_at != self.judged_at {
            return None;
        }
        self.kept
            .iter()
            .find(|(kept_seq, kept_viewer, _)| *kept_seq == seq && kept_viewer == viewer)
            .map(|(_, _, json)| json.clone())
    }

    fn keep(&mut self, judged_at: u64, seq: u64, viewer: &Audience, json: &Arc<str>) {
        if judged_at > self.judged_at {
            self.kept.clear();
            self.judged_at = judged_at;
        }
        if judged_at == self.judged_at && self.kept.len() < RENDERS_KEPT {
            self.kept.push((seq, viewer.clone(), json.clone()));
        }
        self.recharge();
    }
}

/// Who is shown an event one way. A public event (`Game::PUBLIC_EVENTS`)
/// is shown alike to every viewer but the umpire, who also sees its hash
/// links, and its actor, who also sees the action: all others share one
/// rendering of it, spectators and seats alike.
///
/// An event hidden from a viewer is shown to them as a placeholder that is
/// the same for everyone it is hidden from (`reads::envelope_of`): they
/// share its rendering too.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Audience {
    Public,
    Hidden,
    Viewer(Principal),
}

impl Audience {
    fn of(now: &dyn DynMatch, event: &RecordedEvent, viewer: &Principal) -> Audience {
        if !viewer.is_umpire() && !acted(viewer, event) && now.is_public_event(&event.payload) {
            Audience::Public
        } else {
            Audience::Viewer(viewer.clone())
        }
    }
}

fn locked<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // Each use is one operation that leaves the value whole.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Followed {
    fn wake(&self, version: u64) {
        self.announced.send_if_modified(|latest| {
            let newer = version > *latest;
            if newer {
                *latest = version;
            }
            newer
        });
    }
}

struct Hub {
    /// Only games someone follows; the entry goes with its last follower.
    games: Mutex<HashMap<Uuid, Followed>>,
    /// Bumped whenever the listener (re)connects: announcements may have
    /// been missed meanwhile, so every stream reads the log.
    relisten: watch::Sender<u64>,
    /// Whether the listening connection is up: while it is, announcements
    /// reach every stream, and a heartbeat need not read the log.
    listening: AtomicBool,
    /// Ticks at every heartbeat: one timer for every stream.
    heartbeat: watch::Sender<u64>,
    ticking: Once,
    slots: Arc<Semaphore>,
    /// Streams open by each client that has one.
    clients: Mutex<HashMap<StreamClient, usize>>,
    limits: LiveLimits,
    budget: MemoryBudget,
    metrics: Metrics,
    refusals_logged: LogEvery,
}

impl Hub {
    fn games(&self) -> MutexGuard<'_, HashMap<Uuid, Followed>> {
        locked(&self.games)
    }

    /// Starts the instance's one heartbeat ticker, once (from a task, so
    /// that a runtime is there to run it); it ends with the hub.
    fn start_ticking(self: &Arc<Self>) {
        self.ticking.call_once(|| {
            let hub = Arc::downgrade(self);
            let period = self.limits.heartbeat;
            tokio::spawn(async move {
                let mut ticks =
                    tokio::time::interval_at(tokio::time::Instant::now() + period, period);
                ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
                loop {
                    ticks.tick().await;
                    let Some(hub) = hub.upgrade() else { return };
                    hub.heartbeat.send_modify(|count| *count += 1);
                }
            });
        });
    }

    /// A slot for one more stream of `client`, if it has fewer than its
    /// limit open.
    fn client_slot(self: &Arc<Self>, client: StreamClient) -> Option<ClientSlot> {
        let mut clients = locked(&self.clients);
        let open = clients.entry(client.clone()).or_insert(0);
        if *open >= self.limits.max_per_client {
            return None;
        }
        *open += 1;
        Some(ClientSlot {
            hub: self.clone(),
            client,
        })
    }

    /// Logs a refused stream at WARN, at most once every
    /// [`REFUSAL_LOG_EVERY`]: a client hammering at its limit must not
    /// flood the log (every refusal is counted in `/metrics`).
    fn refused(&self, reason: &'static str) {
        self.metrics
            .streams_refused
            .with_label_values(&[reason])
            .inc();
        if let Some(unlogged) = self.refusals_logged.due() {
            tracing::warn!(
                reason,
                refused_since_last_logged = unlogged,
                "a live stream was refused (logged at most every {} s)",
                REFUSAL_LOG_EVERY.as_secs()
            );
        }
    }
}

/// One client's hold on one of its stream slots, given back when dropped.
struct ClientSlot {
    hub: Arc<Hub>,
    client: StreamClient,
}

impl Drop for ClientSlot {
    fn drop(&mut self) {
        let mut clients = locked(&self.hub.clients);
        if let Some(open) = clients.get_mut(&self.client) {
            *open = open.saturating_sub(1);
            if *open == 0 {
                clients.remove(&self.client);
            }
        }
    }
}

impl Hub {
    fn announce(&self, appended: Appended, source: Source) {
        if let Some(followed) = self.games().get_mut(&appended.game_id) {
            if source == Source::Store && followed.own_appends > 0 {
                // Most likely the announcement of the append under way,
                // which reached the listener before the append's answer
                // reached this instance: woken now, the streams would find
                // the fold cache a version behind and each read the store.
                // Held until the append is done, which announces it from
                // the fold it has just cached.
                followed.held = followed.held.max(appended.version);
                return;
            }
            followed.wake(appended.version);
        }
    }
}

/// Where an announcement comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    /// This instance appended, and cached the fold after the append.
    Instance,
    /// The store's notification: any instance's append, this one's too.
    Store,
}

/// An append of this instance under way to a followed game (see
/// [`Live::appending`]); when the last ends, whatever the store announced
/// meanwhile is passed on.
pub(crate) struct OwnAppend {
    hub: Arc<Hub>,
    game_id: Uuid,
    counted: bool,
}

impl Drop for OwnAppend {
    fn drop(&mut self) {
        if !self.counted {
            return;
        }
        if let Some(followed) = self.hub.games().get_mut(&self.game_id) {
            // Saturating: the entry may have gone with its last follower
            // and come back since, without this append counted.
            followed.own_appends = followed.own_appends.saturating_sub(1);
            if followed.own_appends == 0 && followed.held > 0 {
                let held = std::mem::take(&mut followed.held);
                followed.wake(held);
            }
        }
    }
}

impl Live {
    pub fn new(limits: LiveLimits, budget: MemoryBudget, metrics: Metrics) -> Live {
        Live {
            hub: Arc::new(Hub {
                games: Mutex::default(),
                relisten: watch::Sender::new(0),
                listening: AtomicBool::new(false),
                heartbeat: watch::Sender::new(0),
                ticking: Once::new(),
                slots: Arc::new(Semaphore::new(limits.max_open)),
                clients: Mutex::default(),
                limits,
                budget,
                metrics,
                refusals_logged: LogEvery::new(REFUSAL_LOG_EVERY),
            }),
        }
    }

    /// Wakes the streams of a game this instance has grown to
    /// `appended.version` and whose fold it has cached.
    pub fn announce(&self, appended: Appended) {
        self.hub.announce(appended, Source::Instance);
    }

    /// Marks an append of this instance to `game_id` as under way until the
    /// guard is dropped: the store's announcements of the game wait for it.
    /// They are announcements of this very append (or of another instance's
    /// that makes it fail), and this instance announces its own appends as
    /// soon as their fold is cached.
    pub fn appending(&self, game_id: Uuid) -> OwnAppend {
        let counted = match self.hub.games().get_mut(&game_id) {
            Some(followed) => {
                followed.own_appends += 1;
                true
            }
            None => false,
        };
        OwnAppend {
            hub: self.hub.clone(),
            game_id,
            counted,
        }
    }

    fn subscribe(&self, game_id: Uuid) -> Subscription {
        let mut games = self.hub.games();
        let followed = games.entry(game_id).or_insert_with(|| Followed {
            announced: watch::Sender::new(0),
            refresh: Arc::default(),
            own_appends: 0,
            held: 0,
            renders: Arc::new(Mutex::new(Renders::charging(self.hub.budget.clone()))),
        });
        Subscription {
            hub: self.hub.clone(),
            game_id,
            changes: followed.announced.subscribe(),
            refresh: followed.refresh.clone(),
            renders: followed.renders.clone(),
            relisten: self.hub.relisten.subscribe(),
            heartbeat: self.hub.heartbeat.subscribe(),
        }
    }

    /// Listens for appends on one connection to `database_url` for as long
    /// as this instance lives, listening again after every loss.
    pub fn listen(&self, database_url: String, metrics: Metrics) {
        let hub = Arc::downgrade(&self.hub);
        tokio::spawn(listen(hub, database_url, metrics));
    }
}

async fn listen(hub: Weak<Hub>, database_url: String, metrics: Metrics) {
    let mut pause = RELISTEN_FIRST;
    loop {
        match AppendListener::connect(&database_url).await {
            Ok(mut listener) => {
                let Some(live) = hub.upgrade() else { return };
                metrics.listener_reconnects.inc();
                live.listening.store(true, Ordering::Relaxed);
                live.relisten.send_modify(|count| *count += 1);
                drop(live);
                pause = RELISTEN_FIRST;
                loop {
                    let next = listener.next().await;
                    let Some(live) = hub.upgrade() else { return };
                    match next {
                        Ok(appended) => live.announce(appended, Source::Store),
                        Err(error) => {
                            live.listening.store(false, Ordering::Relaxed);
                            tracing::warn!(%error, "lost the connection listening for appends; listening again");
                            break;
                        }
                    }
                }
            }
            Err(error) => {
                if hub.strong_count() == 0 {
                    return;
                }
                tracing::warn!(%error, retry_in = ?pause, "cannot listen for appends");
            }
        }
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(RELISTEN_MAX);
    }
}

/// A stream's interest in one game.
struct Subscription {
    hub: Arc<Hub>,
    game_id: Uuid,
    changes: watch::Receiver<u64>,
    refresh: Arc<tokio::sync::Mutex<()>>,
    renders: Arc<Mutex<Renders>>,
    relisten: watch::Receiver<u64>,
    heartbeat: watch::Receiver<u64>,
}

impl Drop for Subscription {
    fn drop(&mut self) {
        let mut games = self.hub.games();
        // This subscription's receiver still counts here: it is the last.
        if games
            .get(&self.game_id)
            .is_some_and(|followed| followed.announced.receiver_count() <= 1)
        {
            games.remove(&self.game_id);
        }
    }
}

/// The state at a stream's position: the fold it last read when the
/// stream is at the head, its own while it catches up. At the head it is a
/// weak reference: an idle stream must not keep a game's log in memory
/// after the fold cache has let it go (the thousand idle streams of
/// long games held 455–830 KB each that way); when it is gone, the state
/// at the position comes from the statuses the game's streams share, or
/// from a replay.
enum Base {
    Head(Weak<Fold>),
    Behind(Box<dyn DynMatch>),
}

/// One event of a stream as its viewer sees it: the JSON of a
/// [`StreamEvent`], shared with the game's other streams of that viewer.
#[derive(Debug, Clone)]
pub struct RenderedEvent {
    pub seq: u64,
    pub json: Arc<str>,
}

/// What one read of a stream gives.
#[derive(Debug)]
pub struct StreamBatch {
    /// The events after the position, at most [`STREAM_PAGE`].
    pub events: Vec<RenderedEvent>,
    /// The game's version and status after the last of them (or now, when
    /// there were none).
    pub version: u64,
    pub status: StatusJson,
    /// The game's newest version when read: `version` short of it means
    /// more events are waiting.
    pub head: u64,
}

impl StreamBatch {
    /// Whether the stream has delivered the whole of a finished game.
    pub fn ends_the_game(&self, position: u64) -> bool {
        self.status.finished && position == self.version
    }
}

/// Why a wait ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Woken {
    /// The game may have moved: read.
    Moved,
    /// The instance's heartbeat ticked: send one. `read` says whether the
    /// log should be read too (announcements may have been missed: no
    /// listening connection is up).
    Heartbeat { read: bool },
}

/// One viewer following one game: its position, a slot among the
/// instance's streams, and a subscription to the game's announcements.
pub struct Follower {
    service: GameService,
    game_id: Uuid,
    principal: Principal,
    position: u64,
    base: Option<Base>,
    subscription: Subscription,
    _slot: OwnedSemaphorePermit,
    _client_slot: ClientSlot,
    _memory: Reservation,
}

impl Drop for Follower {
    fn drop(&mut self) {
        self.service.metrics.streams_open.dec();
    }
}

impl GameService {
    /// Starts following `game_id` after version `after` as `principal`:
    /// refused when the game does not have that version yet, and with
    /// `Busy` when the instance already holds its limit of streams.
    pub async fn follow(
        &self,
        game_id: Uuid,
        principal: Principal,
        client: StreamClient,
        after: u64,
    ) -> Result<Follower, ServiceError> {
        let hub = &self.live.hub;
        let Some(client_slot) = hub.client_slot(client) else {
            hub.refused("client");
            return Err(ServiceError::TooManyStreams {
                limit: hub.limits.max_per_client,
            });
        };
        let Ok(slot) = hub.slots.clone().try_acquire_owned() else {
            hub.refused("instance");
            return Err(ServiceError::Busy {
                message: format!(
                    "This instance already serves its limit of {} live streams; retry shortly, \
                     or read /events meanwhile.",
                    hub.limits.max_open
                ),
            });
        };
        let memory = self
            .reserve_memory(Charge::Streams, STREAM_BYTES)
            .inspect_err(|_| hub.refused("memory"))?;
        hub.start_ticking();
        // Subscribed before the first read, so that no append after it can
        // go unnoticed.
        let subscription = self.live.subscribe(game_id);
        let latest = self.latest(game_id).await?;
        let version = latest.head.version();
        if after > version {
            return Err(ServiceError::invalid(
                "version_out_of_range",
                format!("Version {after} does not exist yet; the game is at version {version}."),
            ));
        }
        self.metrics.streams_open.inc();
        Ok(Follower {
            service: self.clone(),
            game_id,
            principal,
            position: after,
            base: (after == version).then(|| Base::Head(Arc::downgrade(&latest))),
            subscription,
            _slot: slot,
            _client_slot: client_slot,
            _memory: memory,
        })
    }

    /// Starts this instance's one listening connection (see [`Live`]).
    pub fn listen_for_appends(&self, database_url: String) {
        self.live.listen(database_url, self.metrics.clone());
    }
}

impl Follower {
    /// The version of the last event delivered: where a resumed stream
    /// starts again.
    pub fn position(&self) -> u64 {
        self.position
    }

    /// The next events after the position, read now: at most a page, each
    /// as `/events` would show it to this viewer, with the status after it.
    pub async fn read(&mut self) -> Result<StreamBatch, ServiceError> {
        // Whatever is announced from here on is news to the next wait.
        let announced = *self.subscription.changes.borrow_and_update();
        self.subscription.relisten.borrow_and_update();
        let latest = {
            let _turn = self.subscription.refresh.lock().await;
            match self.service.folds.cached(self.game_id) {
                // Another stream of this game has just read what was
                // announced: share it rather than read it again.
                Some(fold)
                    if fold.head.version() > self.position && fold.head.version() >= announced =>
                {
                    fold
                }
                _ => self.service.latest(self.game_id).await?,
            }
        };
        let version = latest.head.version();
        if self.position >= version {
            return Ok(StreamBatch {
                events: Vec::new(),
                version,
                status: latest.state.status(),
                head: version,
            });
        }
        let end = version.min(self.position + STREAM_PAGE);
        if end < version {
            self.service.metrics.stream_catch_ups.inc();
        }
        let mut events = Vec::with_capacity((end - self.position) as usize);
        // The status after the newest event is the fold's; only the events
        // before it, when several arrive at once, need a state of their own.
        let folded = if end == version { end - 1 } else { end };
        let mut state = None;
        // The game's other streams may have folded these events already
        // (statuses never change: shared whether a stream is at the head
        // or catching up, as its streams all do after a long action).
        let shared = (folded > self.position)
            .then(|| locked(&self.subscription.renders).statuses(self.position + 1, folded))
            .flatten();
        let mut shared_after_page = None;
        if let Some(statuses) = shared {
            shared_after_page = statuses.last().cloned();
            let page = &latest.events[self.position as usize..folded as usize];
            for (event, status) in page.iter().zip(statuses) {
                events.push(self.rendered(&latest, event, || status)?);
            }
        } else if folded > self.position {
            let mut own = match self.base.take() {
                Some(Base::Head(fold)) => match fold.upgrade() {
                    Some(fold) if fold.head.version() == self.position => fold.state.clone(),
                    _ => self.replay_to_position(&latest)?,
                },
                Some(Base::Behind(state)) if state.version() == self.position => state,
                _ => self.replay_to_position(&latest)?,
            };
            for event in &latest.events[self.position as usize..folded as usize] {
                own.apply_json(&event.payload)
                    .map_err(|e| corrupt(self.game_id, e))?;
                let status = own.status();
                locked(&self.subscription.renders).keep_status(event.seq, &status);
                events.push(self.rendered(&latest, event, || status)?);
            }
            state = Some(own);
        }
        if folded < end {
            let newest = &latest.events[folded as usize];
            events.push(self.rendered(&latest, newest, || latest.state.status())?);
        }
        self.position = end;
        let (status, base) = match (state, shared_after_page) {
            (Some(own), _) if end < version => (own.status(), Some(Base::Behind(own))),
            // Behind, on statuses another stream folded: no state of its
            // own at the position; a later page that finds none shared
            // folds from the start.
            (None, Some(status)) if end < version => (status, None),
            _ => (
                latest.state.status(),
                Some(Base::Head(Arc::downgrade(&latest))),
            ),
        };
        self.base = base;
        self.service
            .metrics
            .stream_events
            .inc_by(events.len() as u64);
        Ok(StreamBatch {
            events,
            version: end,
            status,
            head: version,
        })
    }

    /// `event` as this viewer sees it judged at `latest`, with the status
    /// after it: rendered by the first of the game's streams of this
    /// viewer's [`Audience`] to read it, and shared by the rest.
    fn rendered(
        &self,
        latest: &Fold,
        event: &RecordedEvent,
        status_after: impl FnOnce() -> StatusJson,
    ) -> Result<RenderedEvent, ServiceError> {
        let judged_at = latest.head.version();
        let seq = event.seq;
        let renders = &self.subscription.renders;
        let audience = Audience::of(latest.state.as_ref(), event, &self.principal);
        if let Some(json) = locked(renders).get(judged_at, seq, &audience) {
            return Ok(RenderedEvent { seq, json });
        }
        let decoded = locked(renders).decoded(seq);
        let shown = latest
            .state
            .show_event(&event.payload, &decoded, &self.principal.viewer())?;
        let audience = match shown {
            Shown::Hidden => Audience::Hidden,
            _ => audience,
        };
        if let Some(json) = locked(renders).get(judged_at, seq, &audience) {
            return Ok(RenderedEvent { seq, json });
        }
        let shown = shown_event(event, shown, &self.principal);
        let json: Arc<str> =
            serde_json::to_string(&shown.streamed(&latest.record.game, &status_after()))
                .map_err(|e| ServiceError::Internal(format!("rendering a stream event: {e}")))?
                .into();
        self.service.metrics.stream_renders.inc();
        locked(renders).keep(judged_at, seq, &audience, &json);
        Ok(RenderedEvent { seq, json })
    }

    /// The state after the events up to the position, folded from the start.
    fn replay_to_position(&self, latest: &Fold) -> Result<Box<dyn DynMatch>, ServiceError> {
        let mut state = self
            .service
            .registry
            .get(&latest.record.game)
            .map_err(|e| corrupt(self.game_id, e))?
            .new_match(&latest.record.options)
            .map_err(|e| corrupt(self.game_id, e))?;
        for event in &latest.events[..self.position as usize] {
            state
                .apply_json(&event.payload)
                .map_err(|e| corrupt(self.game_id, e))?;
        }
        Ok(state)
    }

    /// Waits until the game may have moved past what was last read (an
    /// announcement, or the listener connecting again), or the instance's
    /// heartbeat ticks: one ticker for every stream, so an idle stream
    /// costs no timer of its own.
    ///
    /// A woken stream reads at once. It used to yield to the thread's other
    /// ready tasks first, but every poll of a streaming connection costs
    /// actix's dispatcher about 3 k instructions, and that extra poll per
    /// wake was 6 % of what the streams cost, with no gain measured.
    pub async fn wait(&mut self) -> Woken {
        let subscription = &mut self.subscription;
        tokio::select! {
            _ = subscription.changes.changed() => Woken::Moved,
            _ = subscription.relisten.changed() => Woken::Moved,
            _ = subscription.heartbeat.changed() => Woken::Heartbeat {
                read: !subscription.hub.listening.load(Ordering::Relaxed),
            },
        }
    }

    /// Counts a stream the server ended, by why.
    pub fn closed(&self, reason: &str) {
        self.service
            .metrics
            .stream_closes
            .with_label_values(&[reason])
            .inc();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn test_live() -> Live {
        let metrics = Metrics::unregistered();
        let limits = LiveLimits {
            max_open: 4,
            ..LiveLimits::default()
        };
        Live::new(limits, metrics.memory_budget(1 << 20), metrics)
    }

    fn appended(game_id: Uuid, version: u64) -> Appended {
        Appended { game_id, version }
    }

    /// Given a followed game with an append of this instance under way,
    /// when the store announces a version, then the streams are not woken
    /// until the append is done; without one, they are woken at once.
    #[test]
    fn the_stores_announcements_wait_for_this_instances_append_under_way() {
        let live = test_live();
        let game = Uuid::from_u128(7);
        let mut subscription = live.subscribe(game);

        let own = live.appending(game);
        live.hub.announce(appended(game, 3), Source::Store);
        assert!(!subscription.changes.has_changed().unwrap());
        drop(own);
        assert!(subscription.changes.has_changed().unwrap());
        assert_eq!(*subscription.changes.borrow_and_update(), 3);

        live.hub.announce(appended(game, 4), Source::Store);
        assert_eq!(*subscription.changes.borrow_and_update(), 4);
    }

    /// The append's own announcement wakes the streams while it is under
    /// way, and what the store held back is not announced again when it is
    /// not newer.
    #[test]
    fn this_instances_announcement_wakes_at_once_and_the_held_one_adds_nothing() {
        let live = test_live();
        let game = Uuid::from_u128(8);
        let mut subscription = live.subscribe(game);

        let own = live.appending(game);
        live.hub.announce(appended(game, 5), Source::Store);
        live.announce(appended(game, 5));
        assert_eq!(*subscription.changes.borrow_and_update(), 5);
        drop(own);
        assert!(!subscription.changes.has_changed().unwrap());
    }

    fn status(phase: &str) -> StatusJson {
        StatusJson {
            phase: phase.to_string(),
            finished: false,
            to_act: vec!["red".to_string()],
        }
    }

    /// Given statuses kept after events 3..=5, a run inside them is shared;
    /// a run reaching past them, or a gap, is not; and a gap starts over.
    #[test]
    fn the_statuses_after_the_latest_events_are_shared_only_as_a_whole_run() {
        let mut renders = Renders::default();
        for seq in 3..=5 {
            renders.keep_status(seq, &status(&format!("after {seq}")));
        }
        renders.keep_status(4, &status("kept already"));
        assert_eq!(
            renders.statuses(4, 5),
            Some(vec![status("after 4"), status("after 5")])
        );
        assert_eq!(renders.statuses(3, 3), Some(vec![status("after 3")]));
        assert_eq!(renders.statuses(2, 4), None);
        assert_eq!(renders.statuses(4, 6), None);

        renders.keep_status(9, &status("after 9"));
        assert_eq!(renders.statuses(3, 3), None);
        assert_eq!(renders.statuses(9, 9), Some(vec![status("after 9")]));

        for seq in 10..10 + STATUSES_KEPT as u64 {
            renders.keep_status(seq, &status("later"));
        }
        assert_eq!(renders.statuses.len(), STATUSES_KEPT);
        assert_eq!(renders.statuses(9, 9), None);
    }

    /// An append to a game nobody follows is not counted, and a guard
    /// whose game came to be followed meanwhile leaves the count alone.
    #[test]
    fn appends_to_unfollowed_games_hold_nothing_back() {
        let live = test_live();
        let game = Uuid::from_u128(9);
        let own = live.appending(game);
        let mut subscription = live.subscribe(game);
        live.hub.announce(appended(game, 2), Source::Store);
        assert_eq!(*subscription.changes.borrow_and_update(), 2);
        drop(own);
        assert_eq!(live.hub.games().get(&game).map(|f| f.own_appends), Some(0));
    }
}
