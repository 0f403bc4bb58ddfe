//! One stream: a viewer's position in one game's log, and its read of the
//! events after it, a page at a time, each rendered as `/events` shows it
//! to that viewer, with the status after it.
//!
//! A stream at the head does not read: the append that moved the game
//! has pushed the page after it, rendered once for each viewer of the
//! game's streams (`cursor.rs`), and the stream takes its viewer's.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use tokio::sync::OwnedSemaphorePermit;
use uuid::Uuid;

use super::client_slots::ClientSlot;
use super::cursor::{Base, Cursor, Shared};
use super::hub::Subscription;
use super::{StreamBatch, Woken};
use crate::budget::Reservation;
use crate::error::ServiceError;
use crate::folds::Reader;

/// One viewer following one game: its position, a slot among the
/// instance's streams, and a subscription to the game's announcements.
pub struct Follower {
    /// What the stream reads through: not the whole service.
    pub(super) reader: Reader,
    pub(super) game_id: Uuid,
    pub(super) cursor: Cursor,
    pub(super) subscription: Subscription,
    pub(super) _slot: OwnedSemaphorePermit,
    pub(super) _client_slot: ClientSlot,
    pub(super) _memory: Reservation,
}

impl Drop for Follower {
    fn drop(&mut self) {
        self.reader.metrics.streams_open.dec();
    }
}

impl Follower {
    /// The version of the last event delivered: where a resumed stream
    /// starts again.
    pub fn position(&self) -> u64 {
        self.cursor.position
    }

    /// The next events after the position, read now: at most a page, each
    /// as `/events` would show it to this viewer, with the status after it.
    /// At the head, the page the append pushed to this viewer's streams.
    pub async fn read(&mut self) -> Result<StreamBatch, ServiceError> {
        // Whatever is announced from here on is news to the next wait.
        let signal = *self.subscription.changes.borrow_and_update();
        self.subscription.seen = signal;
        let announced = signal.version;
        let metrics = &self.reader.metrics;
        // Pushed before it was announced: a stream at the head finds its
        // page made, and reads nothing; one an append or two behind takes
        // the pages after it in turn.
        let pushed = (self.subscription.renders.lock()).pushed(
            self.cursor.position,
            &self.cursor.viewer,
            announced,
        );
        if let Some((batch, fold)) = pushed {
            self.cursor.position = batch.version;
            self.cursor.base = Some(Base::Head(fold));
            metrics.stream_events.inc_by(batch.events.len() as u64);
            return Ok(batch);
        }
        metrics.stream_reads.inc();
        let position = self.cursor.position;
        // What is wanted is usually cached already (the append that
        // announced it, or another stream of this game, put it there): with
        // no store read to share, no turn at one is waited for.
        let need = announced.max(position + 1);
        let cached = self
            .reader
            .cached_at_least(self.game_id, need, announced > position);
        // The store's reads are boxed: rare at the head, and their futures
        // are kilobytes, which every delivery's future would otherwise
        // carry (and copy) however it reads.
        let latest = if let Some(fold) = cached {
            fold
        } else {
            let _turn = self.subscription.refresh.lock().await;
            if announced > position {
                // Version `announced` exists: any place holding it answers
                // (the fold cache, where another stream of this game may
                // have just read it; a standby; the primary).
                Box::pin(self.reader.at_least(self.game_id, announced)).await?
            } else {
                match self.reader.folds.cached(self.game_id) {
                    Some(fold) if fold.head.version() > position => fold,
                    _ => Box::pin(self.reader.caught_up(self.game_id)).await?,
                }
            }
        };
        let shared = Shared {
            reader: &self.reader,
            game_id: self.game_id,
            renders: &self.subscription.renders,
        };
        let batch = self.cursor.page(&shared, &latest)?;
        if batch.version < batch.head {
            metrics.stream_catch_ups.inc();
        } else if !batch.events.is_empty() {
            // The game's other streams of this viewer at the same position
            // (woken by another instance's append, which pushed nothing
            // here) take this page rather than read.
            (self.subscription.renders.lock()).push(
                position,
                &self.cursor.viewer,
                &batch,
                Arc::downgrade(&latest),
            );
        }
        metrics.stream_events.inc_by(batch.events.len() as u64);
        Ok(batch)
    }

    /// Waits until the game may have moved past what was last read (an
    /// announcement, or the listener connecting again), or the instance's
    /// heartbeat ticks: one ticker for every stream, so an idle stream
    /// costs no timer of its own.
    ///
    /// A woken stream reads at once, without yielding to the thread's other
    /// ready tasks first: every poll of a streaming connection costs actix's
    /// dispatcher dearly, and an extra poll per wake gains nothing.
    ///
    /// All three come through the game's one watch (`hub::Signal`):
    /// an announcement or the listener connecting again is news to read; a
    /// heartbeat alone is a heartbeat (one that comes with news is not
    /// sent: the news is).
    pub async fn wait(&mut self) -> Woken {
        let subscription = &mut self.subscription;
        if subscription.hub.stopping.load(Ordering::SeqCst) {
            return Woken::Stopping;
        }
        if subscription.changes.changed().await.is_err() {
            // The game's entry, and its sender, stay while this
            // subscription does: not reached.
            std::future::pending::<()>().await;
        }
        if subscription.hub.stopping.load(Ordering::SeqCst) {
            return Woken::Stopping;
        }
        let now = *subscription.changes.borrow_and_update();
        let before = std::mem::replace(&mut subscription.seen, now);
        if now.heartbeats != before.heartbeats
            && now.version <= before.version
            && now.relistens == before.relistens
        {
            Woken::Heartbeat {
                read: !subscription.hub.listening.load(Ordering::Relaxed),
            }
        } else {
            Woken::Moved
        }
    }

    /// Counts a stream the server ended, by why.
    pub fn closed(&self, reason: &str) {
        self.reader
            .metrics
            .stream_closes
            .with_label_values(&[reason])
            .inc();
    }
}
