//! What the service counts for Prometheus: appends, group-commit batch
//! sizes, version conflicts, rejected actions, pool usage and live streams. The API serves
//! them at `/metrics` beside its per-endpoint request metrics.

use std::sync::{Arc, OnceLock};

use prometheus::core::Collector;
use prometheus::{
    GaugeVec, Histogram, HistogramOpts, IntCounter, IntCounterVec, IntGauge, IntGaugeVec, Opts,
};

use crate::budget::MemoryBudget;

/// Counters the service layer updates.
#[derive(Clone)]
pub struct Metrics {
    pub appends: IntCounter,
    pub appended_events: IntCounter,
    pub conflicts: IntCounter,
    /// Appends per statement written by the group commit.
    pub append_batch_size: Histogram,
    /// How long each such statement took, waiting for a connection included.
    pub append_batch_seconds: Histogram,
    pub rejections: IntCounterVec,
    pub pool_size: IntGauge,
    pub pool_available: IntGauge,
    pub pool_waiting: IntGauge,
    /// Live streams (`live/`).
    pub streams_open: IntGauge,
    pub stream_events: IntCounter,
    /// Events rendered for a viewer; fewer than pushed when streams of one
    /// game share a viewer (spectators) and so share the rendering.
    pub stream_renders: IntCounter,
    pub stream_catch_ups: IntCounter,
    pub stream_replays: IntCounter,
    pub stream_reads: IntCounter,
    pub stream_pages_pushed: IntCounter,
    pub stream_closes: IntCounterVec,
    /// Streams refused, by why: the instance's limit, the client's, or the
    /// memory budget.
    pub streams_refused: IntCounterVec,
    pub listener_reconnects: IntCounter,
    /// The memory budget (`budget.rs`): its limit, what each kind of charge
    /// holds, and reservations refused.
    pub memory_budget_bytes: IntGauge,
    pub memory_charged_bytes: IntGaugeVec,
    pub memory_refusals: IntCounterVec,
    /// The clock (`timekeeper.rs`): timeouts it recorded, how late each was
    /// recorded after its deadline, and timeouts not recorded because
    /// another append came first.
    pub clock_timeouts: IntCounter,
    pub clock_lateness_seconds: Histogram,
    pub clock_overtaken: IntCounter,
    /// Reads by where they were answered (`replicas.rs`): the fold cache,
    /// the primary or a standby; standbys skipped, by why; each standby's
    /// health and lag as its last probe found them.
    pub reads: IntCounterVec,
    /// `reads` from memory and from the primary, looked up once: every
    /// read of a live stream counts one.
    pub(crate) reads_from: Arc<[OnceLock<IntCounter>; 2]>,
    pub standby_skips: IntCounterVec,
    pub standby_up: IntGaugeVec,
    pub standby_lag_seconds: GaugeVec,
    pub standby_lag_versions: IntGaugeVec,
    /// Turns at cold folds (`cold_folds.rs`): requests waiting for one,
    /// and folds holding one.
    pub cold_folds: IntGaugeVec,
    /// Snapshots of folds (`snapshots.rs`): kept, resumed by a read, or
    /// passed by (they did not resume to the state they were kept from).
    pub fold_snapshots: IntCounterVec,
}

impl Metrics {
    /// Metrics not registered anywhere, for callers without `/metrics`.
    pub fn unregistered() -> Self {
        Metrics {
            appends: IntCounter::new(
                "umpire_appends_total",
                "Successful appends (one per accepted action)",
            )
            .expect("valid metric"),
            appended_events: IntCounter::new("umpire_appended_events_total", "Events appended")
                .expect("valid metric"),
            conflicts: IntCounter::new(
                "umpire_version_conflicts_total",
                "Appends that lost a race or met a stale expected_version",
            )
            .expect("valid metric"),
            append_batch_size: Histogram::with_opts(
                HistogramOpts::new(
                    "umpire_append_batch_size",
                    "Appends written together in one statement (group commit)",
                )
                .buckets(vec![1.0, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 32.0, 64.0]),
            )
            .expect("valid metric"),
            append_batch_seconds: Histogram::with_opts(
                HistogramOpts::new(
                    "umpire_append_batch_seconds",
                    "Time to write one group-commit statement, connection wait included",
                )
                .buckets(prometheus::exponential_buckets(0.000_25, 2.0, 14).expect("buckets")),
            )
            .expect("valid metric"),
            rejections: IntCounterVec::new(
                Opts::new(
                    "umpire_rejected_actions_total",
                    "Actions refused, by error code",
                ),
                &["code"],
            )
            .expect("valid metric"),
            pool_size: IntGauge::new("umpire_db_pool_connections", "Connections in the pool")
                .expect("valid metric"),
            pool_available: IntGauge::new(
                "umpire_db_pool_available",
                "Idle connections in the pool",
            )
            .expect("valid metric"),
            pool_waiting: IntGauge::new(
                "umpire_db_pool_waiting",
                "Requests waiting for a connection",
            )
            .expect("valid metric"),
            streams_open: IntGauge::new("umpire_streams_open", "Live event streams open")
                .expect("valid metric"),
            stream_events: IntCounter::new(
                "umpire_stream_events_pushed_total",
                "Events written to live streams",
            )
            .expect("valid metric"),
            stream_renders: IntCounter::new(
                "umpire_stream_events_rendered_total",
                "Events rendered for a stream's viewer; the streams of a game that share a \
                 viewer share each rendering",
            )
            .expect("valid metric"),
            stream_catch_ups: IntCounter::new(
                "umpire_stream_catch_ups_total",
                "Reads of a stream from the log while it was more than a page behind \
                 (a slow or resuming reader)",
            )
            .expect("valid metric"),
            stream_replays: IntCounter::new(
                "umpire_stream_replays_total",
                "Games folded from their start for a stream: no state near its position was \
                 kept (a stream resumed or started where no other stream of its game has read)",
            )
            .expect("valid metric"),
            stream_reads: IntCounter::new(
                "umpire_stream_reads_total",
                "Reads of a game's log by one stream (the fold cache or the store): a stream \
                 at the head takes the page pushed to its audience instead",
            )
            .expect("valid metric"),
            stream_pages_pushed: IntCounter::new(
                "umpire_stream_pages_pushed_total",
                "Pages of a followed game's newest events rendered once for one viewer of \
                 its streams, to be handed to every stream of that viewer at the head",
            )
            .expect("valid metric"),
            stream_closes: IntCounterVec::new(
                Opts::new(
                    "umpire_stream_closes_total",
                    "Live streams ended by the server, by reason (finished, idle, lifetime, \
                     error); a reader that leaves is not counted",
                ),
                &["reason"],
            )
            .expect("valid metric"),
            streams_refused: IntCounterVec::new(
                Opts::new(
                    "umpire_streams_refused_total",
                    "Streams refused, by why: the instance had its limit open (instance, \
                     503), the client had its own limit open (client, 429), so had the \
                     address it comes from (address, 429), or the memory budget was spent \
                     (memory, 503)",
                ),
                &["reason"],
            )
            .expect("valid metric"),
            listener_reconnects: IntCounter::new(
                "umpire_append_listener_connects_total",
                "Times the instance (re)connected its one listening connection",
            )
            .expect("valid metric"),
            memory_budget_bytes: IntGauge::new(
                "umpire_memory_budget_bytes",
                "The process's memory budget (--memory-budget)",
            )
            .expect("valid metric"),
            memory_charged_bytes: IntGaugeVec::new(
                Opts::new(
                    "umpire_memory_charged_bytes",
                    "Bytes charged to the memory budget, by charge: process (resident at \
                     start), folds (the fold cache), streams, renders (shared by streams), \
                     bodies (archive bodies), audits",
                ),
                &["charge"],
            )
            .expect("valid metric"),
            memory_refusals: IntCounterVec::new(
                Opts::new(
                    "umpire_memory_refusals_total",
                    "Requests refused 503 busy because the memory budget was spent, by charge",
                ),
                &["charge"],
            )
            .expect("valid metric"),
            clock_timeouts: IntCounter::new(
                "umpire_clock_timeouts_total",
                "Timeouts the clock recorded when a seat's deadline passed",
            )
            .expect("valid metric"),
            clock_lateness_seconds: Histogram::with_opts(
                HistogramOpts::new(
                    "umpire_clock_timeout_lateness_seconds",
                    "How long after its deadline each clock timeout was recorded",
                )
                .buckets(vec![0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 30.0]),
            )
            .expect("valid metric"),
            clock_overtaken: IntCounter::new(
                "umpire_clock_overtaken_total",
                "Clock timeouts not recorded because an action or another instance's timeout was appended first",
            )
            .expect("valid metric"),
            reads_from: Arc::default(),
            reads: IntCounterVec::new(
                Opts::new(
                    "umpire_reads_total",
                    "Reads of a game's state, score, events or stream, by where they were \
                     answered: memory (the fold cache held the version), primary, or a standby",
                ),
                &["target"],
            )
            .expect("valid metric"),
            standby_skips: IntCounterVec::new(
                Opts::new(
                    "umpire_standby_skips_total",
                    "Reads that passed a standby by, by why: down, lagging (past \
                     --replica-max-lag), behind (it lacked the version) or failed",
                ),
                &["standby", "reason"],
            )
            .expect("valid metric"),
            standby_up: IntGaugeVec::new(
                Opts::new(
                    "umpire_standby_up",
                    "1 when the last probe of the standby found it answering",
                ),
                &["standby"],
            )
            .expect("valid metric"),
            standby_lag_seconds: GaugeVec::new(
                Opts::new(
                    "umpire_standby_lag_seconds",
                    "The standby's replay lag as its last probe found it (0 when it has \
                     replayed all it received)",
                ),
                &["standby"],
            )
            .expect("valid metric"),
            standby_lag_versions: IntGaugeVec::new(
                Opts::new(
                    "umpire_standby_lag_versions",
                    "Versions of the game most recently appended (as announced to this \
                     instance) that the standby lacked at its last probe",
                ),
                &["standby"],
            )
            .expect("valid metric"),
            cold_folds: IntGaugeVec::new(
                Opts::new(
                    "umpire_cold_folds",
                    "Games read and folded from storage because no fold of them was in memory, \
                     which take turns: requests waiting for a turn (waiting) and folds holding \
                     one (folding)",
                ),
                &["state"],
            )
            .expect("valid metric"),
            fold_snapshots: IntCounterVec::new(
                Opts::new(
                    "umpire_fold_snapshots_total",
                    "Snapshots of games' folds (a state every 256 events): kept in the \
                     database (kept), read to answer a past version of a game not in memory \
                     (resumed), or passed by because they did not resume to the state they \
                     were kept from (passed_by)",
                ),
                &["outcome"],
            )
            .expect("valid metric"),
        }
    }

    /// A memory budget of `limit` bytes shown by these metrics.
    pub fn memory_budget(&self, limit: usize) -> MemoryBudget {
        MemoryBudget::new(
            limit,
            &self.memory_budget_bytes,
            &self.memory_charged_bytes,
            &self.memory_refusals,
        )
    }

    /// Every metric here, to register wherever they are served.
    pub fn collectors(&self) -> Vec<Box<dyn Collector>> {
        vec![
            Box::new(self.appends.clone()),
            Box::new(self.appended_events.clone()),
            Box::new(self.conflicts.clone()),
            Box::new(self.append_batch_size.clone()),
            Box::new(self.append_batch_seconds.clone()),
            Box::new(self.rejections.clone()),
            Box::new(self.pool_size.clone()),
            Box::new(self.pool_available.clone()),
            Box::new(self.pool_waiting.clone()),
            Box::new(self.streams_open.clone()),
            Box::new(self.stream_events.clone()),
            Box::new(self.stream_renders.clone()),
            Box::new(self.stream_catch_ups.clone()),
            Box::new(self.stream_replays.clone()),
            Box::new(self.stream_reads.clone()),
            Box::new(self.stream_pages_pushed.clone()),
            Box::new(self.stream_closes.clone()),
            Box::new(self.streams_refused.clone()),
            Box::new(self.listener_reconnects.clone()),
            Box::new(self.memory_budget_bytes.clone()),
            Box::new(self.memory_charged_bytes.clone()),
            Box::new(self.memory_refusals.clone()),
            Box::new(self.clock_timeouts.clone()),
            Box::new(self.clock_lateness_seconds.clone()),
            Box::new(self.clock_overtaken.clone()),
            Box::new(self.reads.clone()),
            Box::new(self.standby_skips.clone()),
            Box::new(self.standby_up.clone()),
            Box::new(self.standby_lag_seconds.clone()),
            Box::new(self.standby_lag_versions.clone()),
            Box::new(self.cold_folds.clone()),
            Box::new(self.fold_snapshots.clone()),
        ]
    }

    pub fn observe_pool(&self, pool: &umpire_storage::Pool) {
        let status = pool.status();
        self.pool_size.set(status.size as i64);
        self.pool_available.set(status.available as i64);
        self.pool_waiting.set(status.waiting as i64);
    }
}
