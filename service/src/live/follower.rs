//! One stream: a viewer's position in one game's log, and its read of the
//! events after it, a page at a time, each rendered as `/events` shows it
//! to that viewer, with the status after it.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};

use tokio::sync::OwnedSemaphorePermit;
use umpire_domain::clock::Clock;
use umpire_domain::erased::ShownText;
use umpire_domain::StatusJson;
use umpire_domain::{DynMatch, RecordedEvent, Viewer};
use uuid::Uuid;

use super::audience::Audience;
use super::client_slots::ClientSlot;
use super::hub::Subscription;
use super::{RenderedEvent, StreamBatch, Woken, STREAM_PAGE};
use crate::budget::Reservation;
use crate::error::ServiceError;
use crate::fold::{corrupt, replay, Fold};
use crate::folds::Reader;
use crate::json_text::status_json;
use crate::shown::shown_event_text;
use umpire_domain::aggregate::GameAggregate;

/// The state at a stream's position: the fold it last read when the
/// stream is at the head, its own while it catches up. At the head it is a
/// weak reference: an idle stream must not keep a game's log in memory
/// after the fold cache has let it go (the thousand idle streams of
/// long games held 455–830 KB each that way); when it is gone (as it is
/// after every append, which replaces it in the cache), the state at the
/// position comes from the statuses the game's streams share, or from the
/// copy of the state they keep when it is at the position
/// ([`super::renders::Renders::base_at`]: one a game, not one a stream),
/// or from a replay.
pub(super) enum Base {
    Head(Weak<Fold>),
    Behind(GameAggregate),
}

/// One viewer following one game: its position, a slot among the
/// instance's streams, and a subscription to the game's announcements.
pub struct Follower {
    /// What the stream reads through: not the whole service.
    pub(super) reader: Reader,
    pub(super) game_id: Uuid,
    pub(super) viewer: Viewer<String>,
    pub(super) position: u64,
    pub(super) base: Option<Base>,
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
        self.position
    }

    /// The next events after the position, read now: at most a page, each
    /// as `/events` would show it to this viewer, with the status after it.
    pub async fn read(&mut self) -> Result<StreamBatch, ServiceError> {
        // Whatever is announced from here on is news to the next wait.
        let signal = *self.subscription.changes.borrow_and_update();
        self.subscription.seen = signal;
        let announced = signal.version;
        // What is wanted is usually cached already (the append that
        // announced it, or another stream of this game, put it there): with
        // no store read to share, no turn at one is waited for.
        let need = announced.max(self.position + 1);
        let cached = self
            .reader
            .cached_at_least(self.game_id, need, announced > self.position);
        let latest = if let Some(fold) = cached {
            fold
        } else {
            let _turn = self.subscription.refresh.lock().await;
            if announced > self.position {
                // Version `announced` exists: any place holding it answers
                // (the fold cache, where another stream of this game may
                // have just read it; a standby; the primary).
                self.reader.at_least(self.game_id, announced).await?
            } else {
                match self.reader.folds.cached(self.game_id) {
                    Some(fold) if fold.head.version() > self.position => fold,
                    _ => self.reader.caught_up(self.game_id).await?,
                }
            }
        };
        let version = latest.head.version();
        if self.position >= version {
            return Ok(StreamBatch {
                events: Vec::new(),
                version,
                status: Arc::new(latest.status()),
                head: version,
            });
        }
        let end = version.min(self.position + STREAM_PAGE);
        if end < version {
            self.reader.metrics.stream_catch_ups.inc();
        }
        let mut events = Vec::with_capacity((end - self.position) as usize);
        // The status after the newest event is the fold's; only the events
        // before it, when several arrive at once, need a state of their own.
        let folded = if end == version { end - 1 } else { end };
        let mut state = None;
        // The game's other streams may have folded these events already
        // (statuses never change: shared whether a stream is at the head
        // or catching up, as its streams all do after a long action): the
        // run of them kept from the position on is taken, and only the
        // events after it folded.
        let shared = if folded > self.position {
            self.subscription
                .renders
                .lock()
                .statuses(self.position + 1, folded)
        } else {
            Vec::new()
        };
        let shared_to = self.position + shared.len() as u64;
        let shared_after_page = shared.last().cloned();
        let page = &latest.events[self.position as usize..shared_to as usize];
        for (event, status) in page.iter().zip(shared) {
            events.push(self.rendered(&latest, event, || status.clone())?);
        }
        if folded > shared_to {
            let mut own = self.state_at(&latest, shared_to)?;
            for event in &latest.events[shared_to as usize..folded as usize] {
                self.fold_on(&mut own, event)?;
                let status = Arc::new(own.status());
                self.subscription
                    .renders
                    .lock()
                    .keep_status(event.seq, &status);
                events.push(self.rendered(&latest, event, || status.clone())?);
            }
            state = Some(own);
        }
        if folded < end {
            let newest = &latest.events[folded as usize];
            events.push(self.rendered(&latest, newest, || Arc::new(latest.status()))?);
        }
        self.position = end;
        let (status, base) = match (state, shared_after_page) {
            (Some(own), _) if end < version => {
                // The game's other streams catching up from here fold on
                // from a copy, not from the game's start.
                self.share_base(
                    end,
                    own.state.as_ref(),
                    own.clock.as_ref(),
                    latest.state_bytes(),
                );
                (Arc::new(own.status()), Some(Base::Behind(own)))
            }
            // Behind, on statuses another stream folded: no state of its
            // own at the position; a later page that finds them no longer
            // shared folds on from the copy that stream kept.
            (None, Some(status)) if end < version => (status, None),
            _ => {
                self.share_base(
                    version,
                    latest.game.state.as_ref(),
                    latest.game.clock.as_ref(),
                    latest.state_bytes(),
                );
                let status = self
                    .subscription
                    .renders
                    .lock()
                    .head_status(version, || latest.status());
                (status, Some(Base::Head(Arc::downgrade(&latest))))
            }
        };
        self.base = base;
        self.reader
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
        status_after: impl FnOnce() -> Arc<StatusJson>,
    ) -> Result<RenderedEvent, ServiceError> {
        let judged_at = latest.head.version();
        let seq = event.seq;
        let renders = &self.subscription.renders;
        let audience = Audience::of(event, &self.viewer, || {
            renders
                .lock()
                .is_public(seq, || latest.game.state.is_public_event(&event.payload))
        });
        if let Some(json) = renders.lock().get(judged_at, seq, &audience) {
            return Ok(RenderedEvent { seq, json });
        }
        let decoded = renders.lock().decoded(seq);
        let shown = latest
            .game
            .state
            .show_event_text(&event.payload, &decoded, &self.viewer)?;
        // Hidden from this viewer: shown as it is to everyone it is hidden
        // from, whose rendering may be made already. Spectators, who often
        // have many streams of a game, find it under their own audience
        // too, so that only the first of them asks the game.
        let (audience, hidden_from) = match shown {
            ShownText::Hidden => {
                let kept = renders.lock().get(judged_at, seq, &Audience::Hidden);
                if let Some(json) = kept {
                    self.keep_for_spectators(judged_at, seq, &audience, &json);
                    return Ok(RenderedEvent { seq, json });
                }
                (Audience::Hidden, Some(audience))
            }
            _ => (audience, None),
        };
        let shown = shown_event_text(event, &shown, &self.viewer);
        let rendering = |e| ServiceError::Internal(format!("rendering a stream event: {e}"));
        let kept_status = renders.lock().status_text(seq);
        let status = match kept_status {
            Some(status) => status,
            None => {
                let status: Arc<str> = status_json(&status_after()).map_err(rendering)?.into();
                renders.lock().keep_status_text(seq, &status);
                status
            }
        };
        let json: Arc<str> = shown
            .stream_json(&latest.record.game, &status)
            .map_err(rendering)?
            .into();
        self.reader.metrics.stream_renders.inc();
        renders.lock().keep(judged_at, seq, &audience, &json);
        if let Some(viewers) = hidden_from {
            self.keep_for_spectators(judged_at, seq, &viewers, &json);
        }
        Ok(RenderedEvent { seq, json })
    }

    /// Keeps the rendering of an event hidden from a spectator under the
    /// spectators' own audience as well.
    fn keep_for_spectators(&self, judged_at: u64, seq: u64, viewers: &Audience, json: &Arc<str>) {
        if matches!(self.viewer, Viewer::Spectator) {
            self.subscription
                .renders
                .lock()
                .keep(judged_at, seq, viewers, json);
        }
    }

    /// The state after version `at` (the position, or the end of the
    /// statuses shared from it): this stream's own when it is at the
    /// position, else the copy the game's streams keep when it is at `at`,
    /// else this stream's own folded on to `at`; folded from the game's
    /// start only when there is none of these.
    fn state_at(&mut self, latest: &Fold, at: u64) -> Result<GameAggregate, ServiceError> {
        let own = match self.base.take() {
            Some(Base::Head(fold)) => fold
                .upgrade()
                .filter(|fold| fold.head.version() == self.position)
                .map(|fold| fold.game.clone()),
            Some(Base::Behind(own)) if own.state.version() == self.position => Some(own),
            _ => None,
        };
        // The fold at the position is usually gone (the append that made
        // the newer one replaced it in the cache): the state the game's
        // streams keep is at it, unless this stream fell behind.
        let own = match own {
            Some(own) if at == self.position => return Ok(own),
            own => match self.subscription.renders.lock().base_at(at) {
                Some(kept) => return Ok(kept),
                None => own,
            },
        };
        let Some(mut own) = own else {
            if at > 0 {
                self.reader.metrics.stream_replays.inc();
            }
            return replay(
                &self.reader.registry,
                &latest.record,
                &latest.events[..at as usize],
            );
        };
        for event in &latest.events[self.position as usize..at as usize] {
            self.fold_on(&mut own, event)?;
        }
        Ok(own)
    }

    /// `event` folded into `own`, decoded once for the fold and every
    /// viewer's redaction of it.
    fn fold_on(&self, own: &mut GameAggregate, event: &RecordedEvent) -> Result<(), ServiceError> {
        let decoded = self.subscription.renders.lock().decoded(event.seq);
        own.apply_decoded(event, &decoded)
            .map_err(|e| corrupt(self.game_id, e))
    }

    /// Keeps a copy of `state` and `clock`, the game after version
    /// `version` that this stream has read up to, for the game's streams to fold their next
    /// events from, unless another stream has kept it (or a newer one)
    /// already: copied only then. `state_bytes` is what it holds.
    fn share_base(
        &self,
        version: u64,
        state: &dyn DynMatch,
        clock: Option<&Clock>,
        state_bytes: usize,
    ) {
        let renders = &self.subscription.renders;
        if !renders.lock().wants_base(version) {
            return;
        }
        let copy = GameAggregate {
            state: state.clone_box(),
            clock: clock.cloned(),
        };
        renders.lock().keep_base(version, copy, state_bytes);
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
