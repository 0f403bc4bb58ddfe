//! A game's events as its folds hold them: shared, not copied.
//!
//! Each append makes a new fold of the game (`fold.rs`), and a fold held
//! its events as one list of its own, so an append copied a pointer to
//! every event before it: work (and a reference count touched twice, once
//! to copy and once when the older fold went) that grew with the log, up
//! to ten thousand pointers an action at its cap. Here a log is a list of
//! chunks of [`CHUNK`] events, shared by every fold that holds them, and
//! an append copies the list of chunks (one pointer per [`CHUNK`] events)
//! and writes its events into the chunk at the end, in slots written once.
//!
//! A log is a prefix of the game's one stored log, so two folds that hold
//! the same position hold the same event there: a fold extended at the
//! same version twice (an append here, and the same events read back from
//! the store) finds its event already written and shares it. A slot found
//! holding another event (two logs that differ, which the store's order
//! rules out) makes the writer copy the chunk up to it rather than share.

use std::ops::Range;
use std::sync::{Arc, OnceLock};

use umpire_domain::RecordedEvent;

use crate::budget::allocation;

/// Events a chunk holds.
const CHUNK: usize = 32;

/// Slots written once each, in order; a log reads only the slots below
/// its length, all written.
struct Chunk {
    slots: [OnceLock<Arc<RecordedEvent>>; CHUNK],
}

impl Chunk {
    fn empty() -> Arc<Chunk> {
        Arc::new(Chunk {
            slots: std::array::from_fn(|_| OnceLock::new()),
        })
    }

    /// A new chunk holding this one's first `count` events.
    fn prefix(&self, count: usize) -> Arc<Chunk> {
        let copy = Chunk::empty();
        for (slot, kept) in copy.slots.iter().zip(&self.slots[..count]) {
            let event = kept
                .get()
                .expect("a log's slots below its length are written");
            let _ = slot.set(Arc::clone(event));
        }
        copy
    }
}

/// The first `len` events of a game's log.
#[derive(Clone, Default)]
pub(crate) struct EventLog {
    chunks: Vec<Arc<Chunk>>,
    len: usize,
}

/// The log of a game read from a snapshot: no events.
pub(crate) static EMPTY: EventLog = EventLog {
    chunks: Vec::new(),
    len: 0,
};

impl EventLog {
    pub fn len(&self) -> usize {
        self.len
    }

    /// The event at `index` (0 for the first), if the log holds it.
    pub fn get(&self, index: usize) -> Option<&Arc<RecordedEvent>> {
        (index < self.len).then(|| self.written(index))
    }

    /// The event at `index`, below the log's length.
    fn written(&self, index: usize) -> &Arc<RecordedEvent> {
        self.chunks[index / CHUNK].slots[index % CHUNK]
            .get()
            .expect("a log's slots below its length are written")
    }

    pub fn last(&self) -> Option<&Arc<RecordedEvent>> {
        self.len.checked_sub(1).and_then(|index| self.get(index))
    }

    /// The events at `range`, in order, as slicing a list would give them;
    /// panics, as slicing does, when the log does not hold them all.
    pub fn range(&self, range: Range<usize>) -> impl Iterator<Item = &Arc<RecordedEvent>> + '_ {
        assert!(
            range.start <= range.end && range.end <= self.len,
            "events {range:?} of a log of {}",
            self.len
        );
        range.map(|index| self.written(index))
    }

    /// The events at `range`, if the log holds them all.
    pub fn checked_range(
        &self,
        range: Range<usize>,
    ) -> Option<impl Iterator<Item = &Arc<RecordedEvent>> + '_> {
        (range.start <= range.end && range.end <= self.len).then(|| self.range(range))
    }

    /// This log followed by `events`: its chunks shared, the last one
    /// written on where its next slots are free or hold the same events.
    pub fn followed_by(&self, events: impl IntoIterator<Item = Arc<RecordedEvent>>) -> EventLog {
        let mut chunks = self.chunks.clone();
        let mut len = self.len;
        for event in events {
            let (chunk, slot) = (len / CHUNK, len % CHUNK);
            if chunk == chunks.len() {
                chunks.push(Chunk::empty());
            }
            if let Err(event) = chunks[chunk].slots[slot].set(event) {
                let held = chunks[chunk].slots[slot]
                    .get()
                    .expect("a slot that refused a write holds an event");
                if !same_event(held, &event) {
                    let copy = chunks[chunk].prefix(slot);
                    let _ = copy.slots[slot].set(event);
                    chunks[chunk] = copy;
                }
            }
            len += 1;
        }
        EventLog { chunks, len }
    }

    /// What this log's own list of chunks and the chunks hold in memory,
    /// the events apart: each fold is charged its chunks, shared or not.
    pub fn bytes(&self) -> usize {
        allocation(self.chunks.capacity() * std::mem::size_of::<Arc<Chunk>>())
            + self.chunks.len() * allocation(16 + std::mem::size_of::<Chunk>())
    }
}

/// Whether two events at one position of a game's log are the same one:
/// its hash covers everything about it, the previous event's hash included.
fn same_event(held: &Arc<RecordedEvent>, event: &Arc<RecordedEvent>) -> bool {
    Arc::ptr_eq(held, event) || (held.seq == event.seq && held.hash == event.hash)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn event(seq: u64, hash: &str) -> Arc<RecordedEvent> {
        Arc::new(RecordedEvent {
            seq,
            event_type: "noted".into(),
            payload: json!({ "seq": seq }),
            actor: "umpire".into(),
            action: Arc::new(json!(null)),
            decided_at: seq - 1,
            rules_version: 1,
            recorded_at: "2026-11-29T00:00:00.000000Z".into(),
            prev_hash: String::new(),
            hash: hash.into(),
            encoded: Default::default(),
        })
    }

    fn hashes<'a>(events: impl Iterator<Item = &'a Arc<RecordedEvent>>) -> Vec<String> {
        events.map(|event| event.hash.clone()).collect()
    }

    fn log_of(count: u64) -> EventLog {
        EventLog::default().followed_by((1..=count).map(|seq| event(seq, &format!("h{seq}"))))
    }

    #[test]
    fn a_log_reads_back_what_was_appended_across_chunks() {
        let log = log_of(3 * CHUNK as u64 + 5);
        assert_eq!(log.len(), 3 * CHUNK + 5);
        let all = hashes(log.range(0..log.len()));
        let expected: Vec<String> = (1..=log.len()).map(|seq| format!("h{seq}")).collect();
        assert_eq!(all, expected);
        assert_eq!(
            hashes(log.range(CHUNK - 1..CHUNK + 2)),
            ["h32", "h33", "h34"]
        );
        assert_eq!(log.get(CHUNK).map(|e| e.seq), Some(CHUNK as u64 + 1));
        assert!(log.get(log.len()).is_none());
        assert_eq!(log.last().map(|e| e.seq), Some(log.len() as u64));
        assert!(log.checked_range(2..log.len() + 1).is_none());
        assert_eq!(
            log.checked_range(2..4).map(|events| events.count()),
            Some(2)
        );
    }

    #[test]
    fn an_append_shares_the_chunks_before_it_and_leaves_the_older_log_as_it_was() {
        let older = log_of(CHUNK as u64 + 3);
        let newer = older.followed_by([event(CHUNK as u64 + 4, "next")]);
        assert_eq!(older.len(), CHUNK + 3);
        assert_eq!(older.get(CHUNK + 3).map(|e| e.hash.clone()), None);
        assert_eq!(newer.last().map(|e| e.hash.clone()), Some("next".into()));
        // The full chunk and the one written on are the same chunks.
        assert!(Arc::ptr_eq(&older.chunks[0], &newer.chunks[0]));
        assert!(Arc::ptr_eq(&older.chunks[1], &newer.chunks[1]));
    }

    #[test]
    fn the_same_event_appended_twice_at_a_position_is_shared_and_another_is_not() {
        let base = log_of(5);
        let here = base.followed_by([event(6, "h6")]);
        // The same event read back from the store: the slot is shared.
        let read_back = base.followed_by([event(6, "h6")]);
        assert!(Arc::ptr_eq(&here.chunks[0], &read_back.chunks[0]));
        // Another event at the same position: its own chunk, and neither
        // log sees the other's.
        let other = base.followed_by([event(6, "other"), event(7, "h7")]);
        assert!(!Arc::ptr_eq(&here.chunks[0], &other.chunks[0]));
        assert_eq!(hashes(other.range(4..7)), ["h5", "other", "h7"]);
        assert_eq!(hashes(here.range(4..6)), ["h5", "h6"]);
        assert_eq!(hashes(base.range(0..5)).len(), 5);
    }

    #[test]
    #[should_panic(expected = "events 3..7 of a log of 5")]
    fn a_range_past_the_log_is_refused_as_a_slice_would_be() {
        let log = log_of(5);
        let _ = log.range(3..7).count();
    }
}
