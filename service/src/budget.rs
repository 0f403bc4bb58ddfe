//! One memory budget for the whole process.
//!
//! Each request's memory is bounded by a constant, but many cheap requests
//! together are not: a thousand streams, a thousand cached games, four
//! archive bodies at once. Everything that grows with clients or with stored
//! data is charged here in bytes, by kind ([`Charge`]), against one limit:
//! the fold cache (its folds' measured sizes), live streams (each stream and
//! the renderings its game's streams share), archive bodies being imported
//! or scored, and audits in flight; plus the process's own resident memory
//! when it started serving, so that the limit is a limit on the process.
//!
//! Caches take what the rest leaves and evict to stay within it; anything
//! else reserves before it allocates, and a reservation that still does not
//! fit once the caches have given way is refused (`ServiceError::Busy`, 503
//! with `Retry-After`) rather than risking the process.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use prometheus::{IntCounterVec, IntGauge, IntGaugeVec};
use serde_json::Value;
use umpire_domain::RecordedEvent;

/// The budget unless configured otherwise (`umpire serve --memory-budget`).
pub const DEFAULT_MEMORY_BUDGET: usize = 512 * 1024 * 1024;

/// The share of the limit (an eighth) left to what is not charged: the
/// allocator's freed pages not yet returned, the runtime's and the
/// connections' buffers. The soak (256 MiB) ran 45–50 MiB over its charges
/// when they could fill the whole limit.
const UNCHARGED_SHARE: usize = 8;

/// What a charge is for: each is shown on its own in `/metrics`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Charge {
    /// The process's resident memory when it started serving: code, the
    /// runtime, the pool, the registry.
    Process,
    /// The fold cache: every cached game's events and state.
    Folds,
    /// Open live streams, a fixed measured amount each.
    Streams,
    /// Renderings and statuses that the streams of a game share.
    Renders,
    /// Archive bodies being read, validated, imported or scored.
    Bodies,
    /// Audits and exports in flight: the game's log they hold.
    Audits,
    /// Open HTTP connections, a fixed amount each (`api/src/connections.rs`).
    Connections,
}

impl Charge {
    pub const ALL: [Charge; 7] = [
        Charge::Process,
        Charge::Folds,
        Charge::Streams,
        Charge::Renders,
        Charge::Bodies,
        Charge::Audits,
        Charge::Connections,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Charge::Process => "process",
            Charge::Folds => "folds",
            Charge::Streams => "streams",
            Charge::Renders => "renders",
            Charge::Bodies => "bodies",
            Charge::Audits => "audits",
            Charge::Connections => "connections",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// The process's budget, shared by every part that charges it.
#[derive(Clone)]
pub struct MemoryBudget {
    inner: Arc<Inner>,
}

struct Inner {
    limit: usize,
    /// Every charge together: what reservations are checked against.
    total: AtomicUsize,
    /// Each charge, as exported (a gauge is an atomic of its own).
    charged: [IntGauge; 7],
    refused: IntCounterVec,
}

impl std::fmt::Debug for MemoryBudget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryBudget")
            .field("limit", &self.limit())
            .field("total", &self.total())
            .finish()
    }
}

impl MemoryBudget {
    /// A budget of `limit` bytes, shown through `limit_gauge`, `charged`
    /// (one series per [`Charge`]) and `refused` (reservations refused, by
    /// charge).
    pub fn new(
        limit: usize,
        limit_gauge: &IntGauge,
        charged: &IntGaugeVec,
        refused: &IntCounterVec,
    ) -> MemoryBudget {
        limit_gauge.set(limit as i64);
        let charged = Charge::ALL.map(|kind| {
            let gauge = charged.with_label_values(&[kind.label()]);
            gauge.set(0);
            gauge
        });
        MemoryBudget {
            inner: Arc::new(Inner {
                limit,
                total: AtomicUsize::new(0),
                charged,
                refused: refused.clone(),
            }),
        }
    }

    pub fn limit(&self) -> usize {
        self.inner.limit
    }

    /// What every charge together may reach: the limit less the eighth
    /// left to what is not charged (`UNCHARGED_SHARE`).
    pub fn chargeable(&self) -> usize {
        self.inner.limit - self.inner.limit / UNCHARGED_SHARE
    }

    /// Every charge together.
    pub fn total(&self) -> usize {
        self.inner.total.load(Ordering::Relaxed)
    }

    pub fn charged(&self, kind: Charge) -> usize {
        self.inner.charged[kind.index()].get().max(0) as usize
    }

    /// What `kind` may hold: what may be charged less every other charge.
    pub fn room_for(&self, kind: Charge) -> usize {
        let others = self.total().saturating_sub(self.charged(kind));
        self.chargeable().saturating_sub(others)
    }

    /// Charges `bytes` whether or not they fit: for what is already
    /// allocated (a cache's new entry, which then evicts to fit).
    pub fn add(&self, kind: Charge, bytes: usize) {
        self.inner.total.fetch_add(bytes, Ordering::Relaxed);
        self.inner.charged[kind.index()].add(bytes as i64);
    }

    /// Gives back what [`MemoryBudget::add`] charged.
    pub fn release(&self, kind: Charge, bytes: usize) {
        self.inner.total.fetch_sub(bytes, Ordering::Relaxed);
        self.inner.charged[kind.index()].sub(bytes as i64);
    }

    /// Moves a charge of `kind` from `before` to `after` bytes.
    pub fn recharge(&self, kind: Charge, before: usize, after: usize) {
        if after > before {
            self.add(kind, after - before);
        } else if before > after {
            self.release(kind, before - after);
        }
    }

    /// Charges `bytes` only if every charge together stays within the limit.
    fn try_add(&self, kind: Charge, bytes: usize) -> bool {
        let limit = self.chargeable();
        let fits = self
            .inner
            .total
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |total| {
                total.checked_add(bytes).filter(|sum| *sum <= limit)
            })
            .is_ok();
        if fits {
            self.inner.charged[kind.index()].add(bytes as i64);
        }
        fits
    }

    /// Reserves `bytes` of `kind` if they fit, until the reservation is
    /// dropped.
    pub fn try_reserve(&self, kind: Charge, bytes: usize) -> Option<Reservation> {
        self.try_add(kind, bytes).then(|| Reservation {
            budget: self.clone(),
            kind,
            bytes,
        })
    }

    /// Counts a reservation that did not fit even after the caches gave way.
    pub fn count_refusal(&self, kind: Charge) {
        self.inner.refused.with_label_values(&[kind.label()]).inc();
    }
}

/// Bytes reserved from the budget, given back when dropped.
#[derive(Debug)]
pub struct Reservation {
    budget: MemoryBudget,
    kind: Charge,
    bytes: usize,
}

impl Reservation {
    /// Reserves `more` bytes besides, if they fit.
    pub fn try_grow(&mut self, more: usize) -> bool {
        let grown = self.budget.try_add(self.kind, more);
        if grown {
            self.bytes += more;
        }
        grown
    }

    pub fn bytes(&self) -> usize {
        self.bytes
    }

    pub fn kind(&self) -> Charge {
        self.kind
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        self.budget.release(self.kind, self.bytes);
    }
}

/// The process's resident memory now, from `/proc/self/statm` (0 where
/// there is none).
pub fn resident_bytes() -> usize {
    let Ok(statm) = std::fs::read_to_string("/proc/self/statm") else {
        return 0;
    };
    let pages: usize = statm
        .split_whitespace()
        .nth(1)
        .and_then(|field| field.parse().ok())
        .unwrap_or(0);
    // Every Linux this runs on has 4 KiB pages but some arm64 and ppc64
    // kernels; those are 16 or 64 KiB, and undercounting there would be
    // worse than this small lie, but statm gives pages without the size.
    pages * 4096
}

// What things in memory measure. The heap is what the allocator hands out:
// each allocation rounded up to mimalloc's size class for it
// ([`allocation`]), and each JSON object as serde_json's `IndexMap` grows
// it ([`object_bytes`]). Counting only the bytes asked for, objects by
// their entries, charged 17 % less than the process grew by for logs of
// small events (Arboretum's, the umpire's reissues; `scripts/fold-bytes.sh`).

/// The bytes an allocation of `bytes` takes: mimalloc's size class for it
/// (16-byte steps up to 64 bytes, then four classes per power of two),
/// whole 4 KiB pages past its large objects.
pub(crate) const fn allocation(bytes: usize) -> usize {
    const LARGEST_CLASS: usize = 2 * 1024 * 1024;
    if bytes == 0 {
        0
    } else if bytes <= 64 {
        bytes.div_ceil(16) * 16
    } else if bytes <= LARGEST_CLASS {
        // Four classes between each power of two: the size with its top
        // three bits kept, rounded up.
        let step = 1 << (usize::BITS - 1 - bytes.leading_zeros() - 2);
        bytes.div_ceil(step) * step
    } else {
        bytes.div_ceil(4096) * 4096
    }
}

/// The heap a JSON object of `entries` entries holds beyond its own
/// `size_of`, its keys and values aside: an `IndexMap` grown one insertion
/// at a time (as serde_json builds one), its entries' vector grown to the
/// capacity of its index, a hashbrown table of 4, 8, 16… buckets (a word
/// and a control byte each, and a group of 16 control bytes more).
fn object_bytes(entries: usize) -> usize {
    const ENTRY: usize = std::mem::size_of::<String>() + std::mem::size_of::<Value>() + 8;
    if entries == 0 {
        return 0;
    }
    let buckets = match entries {
        0..=3 => 4,
        4..=7 => 8,
        _ => (entries * 8 / 7).next_power_of_two(),
    };
    let capacity = if buckets < 8 {
        buckets - 1
    } else {
        buckets / 8 * 7
    };
    allocation(capacity.max(entries) * ENTRY) + allocation(buckets * 8 + buckets + 16)
}

/// The heap a JSON value holds beyond its own `size_of`: strings, arrays
/// and objects ([`object_bytes`]).
pub(crate) fn value_heap_bytes(value: &Value) -> usize {
    const VALUE: usize = std::mem::size_of::<Value>();
    match value {
        Value::Null | Value::Bool(_) | Value::Number(_) => 0,
        Value::String(text) => allocation(text.capacity()),
        Value::Array(items) => {
            allocation(items.capacity() * VALUE) + items.iter().map(value_heap_bytes).sum::<usize>()
        }
        Value::Object(fields) => {
            object_bytes(fields.len())
                + fields
                    .iter()
                    .map(|(key, value)| allocation(key.capacity()) + value_heap_bytes(value))
                    .sum::<usize>()
        }
    }
}

/// The bytes a stored event held in memory takes: the `Arc` around it, its
/// strings and its payload; its action too unless `action_shared` (the
/// events of one action share it, and it is counted with the first).
pub(crate) fn event_bytes(event: &RecordedEvent, action_shared: bool) -> usize {
    let strings = [
        &event.event_type,
        &event.actor,
        &event.recorded_at,
        &event.prev_hash,
        &event.hash,
    ]
    .iter()
    .map(|text| allocation(text.capacity()))
    .sum::<usize>();
    // The canonical JSON an appended event carries (its payload's, and its
    // action's, which the events of one action share).
    let encoded = |json: Option<&umpire_domain::chain::CanonicalJson>| {
        json.map_or(0, |json| allocation(16 + json.as_str().len()))
    };
    let action = if action_shared {
        0
    } else {
        allocation(16 + std::mem::size_of::<Value>())
            + value_heap_bytes(&event.action)
            + encoded(event.encoded.action.as_ref())
    };
    allocation(16 + std::mem::size_of::<RecordedEvent>())
        + strings
        + value_heap_bytes(&event.payload)
        + encoded(event.encoded.payload.as_ref())
        + action
}

/// The bytes a log's events take, each action counted once.
pub(crate) fn events_bytes<'a>(
    events: impl IntoIterator<Item = &'a RecordedEvent>,
    mut previous: Option<&'a RecordedEvent>,
) -> usize {
    let mut bytes = 0;
    for event in events {
        let shared = previous.is_some_and(|before| Arc::ptr_eq(&before.action, &event.action));
        bytes += event_bytes(event, shared);
        previous = Some(event);
    }
    bytes
}

/// The bytes an archive's log takes in memory: its events, measured.
pub fn archive_bytes(archive: &umpire_archive::Archive) -> usize {
    events_bytes(&archive.events, None)
        + archive.events.capacity() * std::mem::size_of::<RecordedEvent>()
}

#[cfg(test)]
mod tests {
    use super::*;
    use prometheus::Opts;

    fn budget(limit: usize) -> MemoryBudget {
        MemoryBudget::new(
            limit,
            &IntGauge::new("limit", "limit").unwrap(),
            &IntGaugeVec::new(Opts::new("charged", "charged"), &["charge"]).unwrap(),
            &IntCounterVec::new(Opts::new("refused", "refused"), &["charge"]).unwrap(),
        )
    }

    /// Given a budget of 128 bytes (112 chargeable: an eighth is left to
    /// what is not charged), reservations fit until the next would pass
    /// it, and what is dropped can be reserved again.
    #[test]
    fn reservations_fit_within_the_limit_and_come_back_when_dropped() {
        let budget = budget(128);
        assert_eq!(budget.chargeable(), 112);
        let bodies = budget.try_reserve(Charge::Bodies, 60).expect("fits");
        assert!(budget.try_reserve(Charge::Streams, 53).is_none());
        let mut streams = budget.try_reserve(Charge::Streams, 52).expect("fits");
        assert_eq!(budget.total(), 112);
        assert!(!streams.try_grow(1));
        drop(bodies);
        assert!(streams.try_grow(50));
        assert_eq!(budget.charged(Charge::Streams), 102);
        assert_eq!(budget.charged(Charge::Bodies), 0);
        drop(streams);
        assert_eq!(budget.total(), 0);
    }

    /// A cache's room is what may be charged (seven eighths of the limit)
    /// less every other charge, whatever it holds itself (it may hold more
    /// for a moment: it then evicts).
    #[test]
    fn a_cache_has_the_room_others_leave() {
        let budget = budget(1000);
        budget.add(Charge::Process, 300);
        let _stream = budget.try_reserve(Charge::Streams, 100).expect("fits");
        budget.add(Charge::Folds, 900);
        assert_eq!(budget.room_for(Charge::Folds), 875 - 400);
        assert!(budget.try_reserve(Charge::Bodies, 1).is_none());
        budget.recharge(Charge::Folds, 900, 300);
        assert_eq!(budget.room_for(Charge::Bodies), 175);
        assert!(budget.try_reserve(Charge::Bodies, 176).is_none());
        assert!(budget.try_reserve(Charge::Bodies, 175).is_some());
    }

    /// Allocations take mimalloc's size classes: 16-byte steps to 64
    /// bytes, then four classes per power of two.
    #[test]
    fn an_allocation_takes_its_size_class() {
        let classes: Vec<usize> = [1, 16, 17, 64, 65, 80, 81, 128, 129, 160, 161, 256, 257, 336]
            .into_iter()
            .map(allocation)
            .collect();
        assert_eq!(
            classes,
            [16, 16, 32, 64, 80, 80, 96, 128, 160, 160, 192, 256, 320, 384]
        );
        assert_eq!(allocation(0), 0);
        assert_eq!(allocation(3 * 1024 * 1024 + 1), 3 * 1024 * 1024 + 4096);
    }

    /// An object of two entries holds an index of four buckets and room
    /// for three entries, as serde_json's map grows one.
    #[test]
    fn a_small_object_holds_the_room_its_map_grows_to() {
        let entry = std::mem::size_of::<String>() + std::mem::size_of::<Value>() + 8;
        assert_eq!(object_bytes(0), 0);
        assert_eq!(
            object_bytes(2),
            allocation(3 * entry) + allocation(4 * 8 + 4 + 16)
        );
        assert!(object_bytes(8) > object_bytes(7));
    }

    /// A JSON value measures at least what its strings and containers
    /// allocate, and more for more content.
    #[test]
    fn a_values_heap_grows_with_its_content() {
        let small = serde_json::json!({"type": "planted", "cell": [1, 2]});
        let text = "x".repeat(1000);
        let large = serde_json::json!({"type": "planted", "cell": [1, 2], "note": text});
        assert!(value_heap_bytes(&small) >= "type".len() + "planted".len() + "cell".len());
        assert!(value_heap_bytes(&large) >= value_heap_bytes(&small) + 1000);
        assert_eq!(value_heap_bytes(&Value::Null), 0);
    }
}
