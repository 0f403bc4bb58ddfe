//! The hub of an instance's live streams: which games are followed, the
//! latest version announced for each (held back while this instance
//! appends to the game), the slots a stream takes (the instance's, its
//! client's, its memory), and the one heartbeat ticker.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Once};

use parking_lot::{Mutex, MutexGuard};
use tokio::sync::{watch, Semaphore};
use umpire_domain::erased::DecodedEvent;
use umpire_domain::{StatusJson, Viewer};
use umpire_storage::Appended;
use uuid::Uuid;

use super::client_slots::{AtLimit, ClientSlots};
use super::cursor::{push_pages, Base, Cursor, Shared};
use super::follower::Follower;
use super::renders::Renders;
use super::{StreamClient, StreamLimits, REFUSAL_LOG_EVERY};
use crate::budget::{MemoryBudget, Reservation};
use crate::error::ServiceError;
use crate::fold::Fold;
use crate::folds::Reader;
use crate::log_every::LogEvery;
use crate::metrics::Metrics;

/// Who is following which game, and the latest version announced for it.
#[derive(Clone)]
pub(crate) struct Live {
    pub(super) hub: Arc<Hub>,
}

/// A followed game: the latest version announced for it, and a turn at
/// bringing its fold up to date, so that the many streams one announcement
/// wakes make one read of the store between them, and share its result.
struct Followed {
    announced: watch::Sender<Signal>,
    refresh: Arc<tokio::sync::Mutex<()>>,
    /// This instance's appends to the game under way ([`Live::appending`]).
    own_appends: usize,
    /// The newest version the store announced meanwhile, held back.
    held: u64,
    renders: Arc<Mutex<Renders>>,
    /// Each viewer the game's streams follow as, with how many do: an
    /// append's page is pushed to each.
    viewers: Vec<(Viewer<String>, usize)>,
}

/// What wakes a followed game's streams: one watch a game, so that a
/// waiting stream waits on one channel, not three (the announcements, the
/// listener's reconnections and the heartbeat each had their own, and
/// waiting on three cost a stream far more a wait).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Signal {
    /// The latest version announced.
    pub version: u64,
    /// Bumped whenever the listener (re)connects: announcements may have
    /// been missed meanwhile, so every stream reads the log.
    pub relistens: u64,
    /// Bumped at every heartbeat.
    pub heartbeats: u64,
}

impl Followed {
    fn viewers(&self) -> Vec<Viewer<String>> {
        self.viewers
            .iter()
            .map(|(viewer, _)| viewer.clone())
            .collect()
    }

    fn wake(&self, version: u64) {
        self.announced.send_if_modified(|latest| {
            let newer = version > latest.version;
            if newer {
                latest.version = version;
            }
            newer
        });
    }
}

pub(super) struct Hub {
    /// Only games someone follows; the entry goes with its last follower.
    games: Mutex<HashMap<Uuid, Followed>>,
    /// Whether the listening connection is up: while it is, announcements
    /// reach every stream, and a heartbeat need not read the log.
    pub(super) listening: AtomicBool,
    /// Set when the instance stops: every stream ends (`Woken::Stopping`).
    pub(super) stopping: AtomicBool,
    /// Whether any game is followed: the listener listens only then (or
    /// always, for the standbys' probes; see `listener.rs`).
    pub(super) followed: watch::Sender<bool>,
    /// One timer for every stream's heartbeat, started once.
    ticking: Once,
    slots: Arc<Semaphore>,
    /// Streams open by each client and each address that has one.
    clients: Arc<ClientSlots>,
    limits: StreamLimits,
    budget: MemoryBudget,
    metrics: Metrics,
    refusals_logged: LogEvery,
}

impl Hub {
    fn games(&self) -> MutexGuard<'_, HashMap<Uuid, Followed>> {
        self.games.lock()
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
                    hub.signal_all(|signal| signal.heartbeats += 1);
                }
            });
        });
    }

    /// Signals every followed game's streams (a heartbeat, or the
    /// listener connected again).
    pub(super) fn signal_all(&self, bump: impl Fn(&mut Signal)) {
        for followed in self.games().values() {
            followed.announced.send_modify(&bump);
        }
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

impl Hub {
    pub(super) fn announce(&self, appended: Appended, source: Source) {
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
pub(super) enum Source {
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
    pub fn new(limits: StreamLimits, budget: MemoryBudget, metrics: Metrics) -> Live {
        Live {
            hub: Arc::new(Hub {
                games: Mutex::default(),
                listening: AtomicBool::new(false),
                stopping: AtomicBool::new(false),
                followed: watch::Sender::new(false),
                ticking: Once::new(),
                slots: Arc::new(Semaphore::new(limits.max_open)),
                clients: Arc::new(ClientSlots::new(&limits)),
                limits,
                budget,
                metrics,
                refusals_logged: LogEvery::new(REFUSAL_LOG_EVERY),
            }),
        }
    }

    /// The limits the instance's streams are held to.
    pub(crate) fn limits(&self) -> StreamLimits {
        self.hub.limits
    }

    /// Ends every stream, now and from now on: each is woken and told the
    /// instance is stopping, so that a server stopping gracefully is not
    /// kept waiting by streams that would never end by themselves.
    pub fn end_streams(&self) {
        self.hub.stopping.store(true, Ordering::SeqCst);
        self.hub.signal_all(|signal| signal.relistens += 1);
    }

    /// The events `first_seq..` this instance has decided and is appending
    /// to `game_id`, in their game's type (`Decision::decoded`): the game's
    /// streams, if it is followed, redact them without decoding their JSON.
    pub fn decided(&self, game_id: Uuid, first_seq: u64, decided: &[DecodedEvent]) {
        let renders = match self.hub.games().get(&game_id) {
            Some(followed) if !decided.is_empty() => followed.renders.clone(),
            _ => return,
        };
        renders.lock().keep_decided(first_seq, decided);
    }

    /// Pushes the page after version `after` of `game_id` (the events this
    /// instance has just appended, judged at `latest`, the fold it has
    /// cached) to the game's streams, rendered once for each viewer they
    /// follow as, then wakes them: a stream at `after` takes its viewer's
    /// page and reads nothing. `status` is the status after `latest`, which
    /// the append has made; `reader` is asked for only when the game is
    /// followed.
    pub(crate) fn push(
        &self,
        game_id: Uuid,
        after: u64,
        latest: &Arc<Fold>,
        status: &Arc<StatusJson>,
        reader: impl FnOnce() -> Reader,
    ) {
        let followed = self
            .hub
            .games()
            .get(&game_id)
            .map(|followed| (followed.renders.clone(), followed.viewers()));
        if let Some((renders, viewers)) = followed {
            // The append made it for its answer: not made again.
            renders
                .lock()
                .head_status(latest.head.version(), || status.clone());
            let reader = reader();
            let with = Shared {
                reader: &reader,
                game_id,
                renders: &renders,
            };
            push_pages(&with, latest, after, &viewers);
        }
        let version = latest.head.version();
        self.hub
            .announce(Appended { game_id, version }, Source::Instance);
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

    fn subscribe(&self, game_id: Uuid, viewer: &Viewer<String>) -> Subscription {
        let mut games = self.hub.games();
        let followed = games.entry(game_id).or_insert_with(|| Followed {
            announced: watch::Sender::new(Signal::default()),
            refresh: Arc::default(),
            own_appends: 0,
            held: 0,
            renders: Arc::new(Mutex::new(Renders::charging(self.hub.budget.clone()))),
            viewers: Vec::new(),
        });
        match followed.viewers.iter_mut().find(|(kept, _)| kept == viewer) {
            Some((_, streams)) => *streams += 1,
            None => followed.viewers.push((viewer.clone(), 1)),
        }
        let changes = followed.announced.subscribe();
        let seen = *changes.borrow();
        self.hub
            .followed
            .send_if_modified(|any| !std::mem::replace(any, true));
        Subscription {
            hub: self.hub.clone(),
            game_id,
            viewer: viewer.clone(),
            changes,
            seen,
            refresh: followed.refresh.clone(),
            renders: followed.renders.clone(),
        }
    }
}

impl Live {
    /// Opens a stream of `game_id` after version `after` for `viewer`,
    /// reading through `reader`: refused when `client` holds its limit of
    /// streams, with `Busy` when the instance holds its limit or
    /// `reserve_memory` finds no room for one more (in that order), and
    /// when the game does not have that version yet.
    pub async fn follow(
        &self,
        reader: Reader,
        game_id: Uuid,
        viewer: Viewer<String>,
        client: StreamClient,
        after: u64,
        reserve_memory: impl FnOnce() -> Result<Reservation, ServiceError>,
    ) -> Result<Follower, ServiceError> {
        let hub = &self.hub;
        let client_slot = match hub.clients.take(client) {
            Ok(slot) => slot,
            Err(AtLimit::Client) => {
                hub.refused("client");
                return Err(ServiceError::TooManyStreams {
                    limit: hub.limits.max_per_client,
                });
            }
            Err(AtLimit::Address) => {
                hub.refused("address");
                return Err(ServiceError::TooManyStreams {
                    limit: hub.limits.max_per_address,
                });
            }
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
        let memory = reserve_memory().inspect_err(|_| hub.refused("memory"))?;
        hub.start_ticking();
        // Subscribed before the first read, so that no append after it can
        // go unnoticed.
        let subscription = self.subscribe(game_id, &viewer);
        let latest = reader.caught_up(game_id).await?;
        let version = latest.head.version();
        if after > version {
            return Err(ServiceError::invalid(
                "version_out_of_range",
                format!("Version {after} does not exist yet; the game is at version {version}."),
            ));
        }
        reader.metrics.streams_open.inc();
        Ok(Follower {
            reader,
            game_id,
            cursor: Cursor {
                viewer,
                position: after,
                base: (after == version).then(|| Base::Head(Arc::downgrade(&latest))),
            },
            subscription,
            _slot: slot,
            _client_slot: client_slot,
            _memory: memory,
        })
    }
}

/// A stream's interest in one game.
pub(super) struct Subscription {
    pub(super) hub: Arc<Hub>,
    game_id: Uuid,
    /// Who the stream follows the game as: counted among its viewers.
    viewer: Viewer<String>,
    pub(super) changes: watch::Receiver<Signal>,
    /// The signal as the stream last saw it.
    pub(super) seen: Signal,
    pub(super) refresh: Arc<tokio::sync::Mutex<()>>,
    pub(super) renders: Arc<Mutex<Renders>>,
}

impl Drop for Subscription {
    fn drop(&mut self) {
        let mut games = self.hub.games();
        if let Some(followed) = games.get_mut(&self.game_id) {
            if let Some(at) = (followed.viewers.iter()).position(|(kept, _)| *kept == self.viewer) {
                followed.viewers[at].1 -= 1;
                if followed.viewers[at].1 == 0 {
                    followed.viewers.swap_remove(at);
                }
            }
        }
        // This subscription's receiver still counts here: it is the last.
        if games
            .get(&self.game_id)
            .is_some_and(|followed| followed.announced.receiver_count() <= 1)
        {
            games.remove(&self.game_id);
            if games.is_empty() {
                self.hub
                    .followed
                    .send_if_modified(|any| std::mem::replace(any, false));
            }
        }
    }
}

#[cfg(test)]
mod tests;
