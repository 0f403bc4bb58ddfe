//! Standbys as read targets.
//!
//! A game's versions never change once written, so a read that names the
//! version it needs — `?at=N`, an events page, a stream woken by an
//! announcement of version N, a head read with `min_version=N` after the
//! client's own write — is answered correctly by any database that holds
//! version N of that game: the fold cache first, then a PostgreSQL
//! streaming standby, then the primary. A standby that does not hold it
//! yet is skipped (counted as `behind`), never answered from: no read is
//! ever stale. A read of "the newest" without a version goes to the primary.
//!
//! Each standby is probed every [`PROBE_EVERY`]: one that does not answer,
//! refuses connections, or replays more than the bound behind its primary
//! (`--replica-max-lag`) is skipped until a probe finds it well again, so a
//! standby that is down costs a request nothing but the failed attempt that
//! found it down.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use parking_lot::Mutex;
use umpire_storage::{EventStore, StoreError};
use uuid::Uuid;

use crate::background::Background;
use crate::metrics::Metrics;

/// How often each standby is asked whether it is up and how far behind.
pub const PROBE_EVERY: Duration = Duration::from_secs(1);
/// A probe that takes longer finds its standby down.
const PROBE_TIMEOUT: Duration = Duration::from_secs(2);
/// How long a read waits for a standby's connection before going on to the
/// next target: short, since the primary can always answer.
const STANDBY_WAIT: Duration = Duration::from_secs(1);
/// The default bound on a standby's replay lag (`--replica-max-lag`).
pub const DEFAULT_MAX_LAG: Duration = Duration::from_secs(5);

/// The standbys an instance may read from.
#[derive(Debug, Clone)]
pub struct ReplicaSettings {
    /// Their connection strings, as the service role (read-only there).
    pub urls: Vec<String>,
    /// Connections to each.
    pub pool_size: usize,
    /// Past this replay lag a standby is skipped.
    pub max_lag: Duration,
}

/// Which version of a game a read asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadAt {
    /// The newest: only the primary knows it.
    Newest,
    /// The newest the first place asked knows, if it holds at least this
    /// version: what a client that has written version N asks for its own
    /// write to be visible (`min_version=N`).
    AtLeast(u64),
    /// Exactly this version (`at=N`).
    At(u64),
}

impl ReadAt {
    /// From a query's `at` and `min_version`; `at` names one version, so
    /// beside it `min_version` says nothing more.
    pub fn from_query(at: Option<u64>, min_version: Option<u64>) -> ReadAt {
        match (at, min_version) {
            (Some(at), _) => ReadAt::At(at),
            (None, Some(version)) => ReadAt::AtLeast(version),
            (None, None) => ReadAt::Newest,
        }
    }

    /// The version a fold must hold to answer, if one is named.
    pub fn need(self) -> Option<u64> {
        match self {
            ReadAt::Newest => None,
            ReadAt::AtLeast(version) | ReadAt::At(version) => Some(version),
        }
    }
}

/// Where a read was answered from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    /// The fold cache already held the version asked for.
    Memory,
    /// The standby at this index.
    Standby(usize),
    Primary,
}

/// Why a standby was not used for a read.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Skip {
    /// The last probe found it down, or it refused a connection just now.
    Down,
    /// Its replay lag was past the bound.
    Lagging,
    /// It did not hold the version asked for (yet).
    Behind,
    /// It answered with an error.
    Failed,
}

impl Skip {
    fn label(self) -> &'static str {
        match self {
            Skip::Down => "down",
            Skip::Lagging => "lagging",
            Skip::Behind => "behind",
            Skip::Failed => "failed",
        }
    }
}

/// One standby: its store (reads only) and what the last probe found.
pub(crate) struct Standby {
    pub name: String,
    pub store: EventStore,
    health: Mutex<Health>,
}

#[derive(Debug, Clone, Copy)]
struct Health {
    up: bool,
    lag: Duration,
}

/// The instance's standbys; none without `--replica`. Cheap to clone.
#[derive(Clone, Default)]
pub(crate) struct Replicas {
    inner: Arc<Inner>,
}

#[derive(Default)]
struct Inner {
    standbys: Vec<Standby>,
    /// Where the next read starts trying, so reads spread over standbys.
    next: AtomicUsize,
    max_lag: Duration,
    /// The newest append announced to this instance: the game whose
    /// versions a probe compares, for each standby's lag in versions.
    newest: Mutex<Option<(Uuid, u64)>>,
    metrics: Option<Metrics>,
}

impl Replicas {
    /// Standbys from `settings` (their pools connect on first use, so one
    /// that is down at start delays nothing), probed from now on.
    pub fn connect(settings: &ReplicaSettings, metrics: &Metrics) -> Result<Replicas, StoreError> {
        let standbys = settings
            .urls
            .iter()
            .enumerate()
            .map(|(index, url)| {
                let pool =
                    umpire_storage::connect_waiting(url, settings.pool_size.max(1), STANDBY_WAIT)?;
                let name = standby_name(index);
                metrics.standby_up.with_label_values(&[&name]).set(0);
                Ok(Standby {
                    name,
                    store: EventStore::new(pool),
                    health: Mutex::new(Health {
                        up: false,
                        lag: Duration::ZERO,
                    }),
                })
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        let replicas = Replicas {
            inner: Arc::new(Inner {
                standbys,
                next: AtomicUsize::new(0),
                max_lag: settings.max_lag,
                newest: Mutex::new(None),
                metrics: Some(metrics.clone()),
            }),
        };
        Ok(replicas)
    }

    /// Probes each standby from now on, until the service stops.
    pub(crate) fn start_probing(&self, background: &Background) {
        if !self.is_empty() {
            background.spawn_until_stopped(probe_forever(Arc::downgrade(&self.inner)));
        }
    }

    /// Closes the standbys' pools (the service is stopping).
    pub(crate) fn close(&self) {
        for standby in &self.inner.standbys {
            standby.store.pool().close();
        }
    }

    pub fn is_empty(&self) -> bool {
        self.inner.standbys.is_empty()
    }

    /// The standbys to try for a read, in turn, each well by its last probe;
    /// the others are counted as skipped. Successive reads start at
    /// successive standbys.
    pub fn to_try(&self) -> Vec<(usize, &Standby)> {
        let standbys = &self.inner.standbys;
        if standbys.is_empty() {
            return Vec::new();
        }
        let start = self.inner.next.fetch_add(1, Ordering::Relaxed);
        (0..standbys.len())
            .map(|offset| (start + offset) % standbys.len())
            .filter_map(|index| {
                let standby = &standbys[index];
                let health = *standby.health.lock();
                let skip = if !health.up {
                    Some(Skip::Down)
                } else if health.lag > self.inner.max_lag {
                    Some(Skip::Lagging)
                } else {
                    None
                };
                match skip {
                    Some(skip) => {
                        self.skipped(index, skip);
                        None
                    }
                    None => Some((index, standby)),
                }
            })
            .collect()
    }

    /// Counts a standby skipped for a read; one found down stays skipped
    /// until a probe finds it up.
    pub fn skipped(&self, index: usize, skip: Skip) {
        let standby = &self.inner.standbys[index];
        if let Skip::Down = skip {
            standby.health.lock().up = false;
        }
        if let Some(metrics) = &self.inner.metrics {
            metrics
                .standby_skips
                .with_label_values(&[&standby.name, skip.label()])
                .inc();
            if let Skip::Down = skip {
                metrics
                    .standby_up
                    .with_label_values(&[&standby.name])
                    .set(0);
            }
        }
    }

    /// Counts a read answered from `target`.
    pub fn served(&self, metrics: &Metrics, target: Target) {
        let (slot, label) = match target {
            Target::Memory => (0, "memory"),
            Target::Primary => (1, "primary"),
            Target::Standby(index) => {
                let name = standby_name(index);
                metrics.reads.with_label_values(&[&name]).inc();
                return;
            }
        };
        metrics.reads_from[slot]
            .get_or_init(|| metrics.reads.with_label_values(&[label]))
            .inc();
    }

    /// Notes an append announced to this instance (by any instance).
    pub fn note_append(&self, game_id: Uuid, version: u64) {
        if !self.is_empty() {
            *self.inner.newest.lock() = Some((game_id, version));
        }
    }
}

/// What a standby is called in metrics and logs: its place in the order
/// given, never its URL (which may hold a password).
fn standby_name(index: usize) -> String {
    format!("standby-{}", index + 1)
}

/// Probes every standby each [`PROBE_EVERY`] for as long as the replicas
/// are in use.
async fn probe_forever(inner: Weak<Inner>) {
    let mut ticks = tokio::time::interval(PROBE_EVERY);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        let Some(inner) = inner.upgrade() else { return };
        let newest = *inner.newest.lock();
        for standby in &inner.standbys {
            let found = tokio::time::timeout(PROBE_TIMEOUT, probe(standby, newest)).await;
            let found = found.unwrap_or_else(|_| Err(StoreError::Unavailable("timed out".into())));
            let was_up = standby.health.lock().up;
            match found {
                Ok((lag, versions_behind)) => {
                    *standby.health.lock() = Health { up: true, lag };
                    if !was_up {
                        tracing::info!(standby = %standby.name, "reading from the standby");
                    }
                    if let Some(metrics) = &inner.metrics {
                        let name = [standby.name.as_str()];
                        metrics.standby_up.with_label_values(&name).set(1);
                        metrics
                            .standby_lag_seconds
                            .with_label_values(&name)
                            .set(lag.as_secs_f64());
                        if let Some(behind) = versions_behind {
                            metrics
                                .standby_lag_versions
                                .with_label_values(&name)
                                .set(i64::try_from(behind).unwrap_or(i64::MAX));
                        }
                    }
                }
                Err(error) => {
                    standby.health.lock().up = false;
                    if was_up {
                        tracing::warn!(standby = %standby.name, %error, "a standby stopped answering: reads go elsewhere until it answers again");
                    }
                    if let Some(metrics) = &inner.metrics {
                        metrics
                            .standby_up
                            .with_label_values(&[&standby.name])
                            .set(0);
                    }
                }
            }
        }
    }
}

/// A standby's replay lag, and how many versions of the newest announced
/// game it lacks.
async fn probe(
    standby: &Standby,
    newest: Option<(Uuid, u64)>,
) -> Result<(Duration, Option<u64>), StoreError> {
    let replay = standby.store.replay().await?;
    // A standby promoted under its open connections (a failover) answers
    // as a primary: not a standby any more, so reads go to the ones that
    // are. When it is made a standby again its server restarts, these
    // connections close, and the next probe finds it replaying.
    if !replay.in_recovery {
        return Err(StoreError::Unavailable(
            "it is not in recovery: promoted to primary".into(),
        ));
    }
    let behind = match newest {
        Some((game_id, version)) => {
            let held = standby.store.events_held(game_id).await?;
            Some(version.saturating_sub(held))
        }
        None => None,
    };
    Ok((replay.lag, behind))
}
