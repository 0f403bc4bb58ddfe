//! A viewer's position in one game's log and the state there, and the
//! read of the page after it: what a stream reads with, and what an append
//! reads with to push its page, made once for each viewer, to the streams
//! at the head.

use std::sync::{Arc, Weak};

use parking_lot::Mutex;
use umpire_domain::aggregate::GameAggregate;
use umpire_domain::erased::ShownText;
use umpire_domain::StatusJson;
use umpire_domain::{RecordedEvent, Viewer};
use uuid::Uuid;

use super::renders::{Kept, Renders};
use super::{RenderedEvent, StreamBatch, STREAM_PAGE};
use crate::error::ServiceError;
use crate::fold::{corrupt, replay, Fold};
use crate::folds::Reader;
use crate::projection::{shown_event_text, status_json, Audience};

/// The state at a stream's position: the fold it last read when the
/// stream is at the head, its own while it catches up. At the head it is a
/// weak reference: an idle stream must not keep a game's log in memory
/// after the fold cache has let it go (the thousand idle streams of
/// long games held 455–830 KB each that way); when it is gone (as it is
/// after every append, which replaces it in the cache), the state at the
/// position comes from the statuses the game's streams share, or from the
/// state they keep when it is at the position (the fold's state, shared)
/// ([`super::renders::Renders::base_at`]: one a game, not one a stream),
/// or from a replay.
pub(super) enum Base {
    Head(Weak<Fold>),
    Behind(GameAggregate),
}

/// What a page is read with besides the cursor: the game, the reader of
/// its log and the renders its streams share.
pub(super) struct Shared<'a> {
    pub(super) reader: &'a Reader,
    pub(super) game_id: Uuid,
    pub(super) renders: &'a Mutex<Renders>,
}

/// A viewer's position in one game's log and the state there: a stream's,
/// or the one an append pushes its page from to the streams at the head.
pub(super) struct Cursor {
    pub(super) viewer: Viewer<String>,
    pub(super) position: u64,
    pub(super) base: Option<Base>,
}

impl Cursor {
    /// The page after the position judged at `latest` (at most
    /// [`STREAM_PAGE`] events, each as this viewer is shown it, with the
    /// status after it), and the position moved to its end.
    pub(super) fn page(
        &mut self,
        with: &Shared,
        latest: &Arc<Fold>,
    ) -> Result<StreamBatch, ServiceError> {
        let version = latest.head.version();
        if self.position >= version {
            return Ok(StreamBatch {
                events: Arc::from([]),
                reissued: false,
                version,
                status: Arc::new(latest.status()),
                head: version,
            });
        }
        let end = version.min(self.position + STREAM_PAGE);
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
            with.renders.lock().statuses(self.position + 1, folded)
        } else {
            Vec::new()
        };
        let shared_to = self.position + shared.len() as u64;
        let shared_after_page = shared.last().cloned();
        let page = latest
            .events
            .range(self.position as usize..shared_to as usize);
        for (event, status) in page.zip(shared) {
            events.push(self.rendered(with, latest, event, || status.clone())?);
        }
        if folded > shared_to {
            let mut own = self.state_at(with, latest, shared_to)?;
            for event in latest.events.range(shared_to as usize..folded as usize) {
                fold_on(with, &mut own, event)?;
                let status = Arc::new(own.status());
                with.renders.lock().keep_status(event.seq, &status);
                events.push(self.rendered(with, latest, event, || status.clone())?);
            }
            state = Some(own);
        }
        if folded < end {
            let newest = latest
                .events
                .get(folded as usize)
                .expect("the fold holds its head's event");
            // The status after it is the head's, which the batch carries
            // too: made once for both.
            let head_status = || {
                with.renders
                    .lock()
                    .head_status(version, || Arc::new(latest.status()))
            };
            events.push(self.rendered(with, latest, newest, head_status)?);
        }
        let reissued = latest.reissued_between(self.position, end);
        self.position = end;
        let (status, base) = match (state, shared_after_page) {
            (Some(own), _) if end < version => {
                // The game's other streams catching up from here fold on
                // from a copy, not from the game's start.
                share_base(with, end, || Arc::new(own.clone()), latest.state_bytes());
                (Arc::new(own.status()), Some(Base::Behind(own)))
            }
            // Behind, on statuses another stream folded: no state of its
            // own at the position; a later page that finds them no longer
            // shared folds on from the copy that stream kept.
            (None, Some(status)) if end < version => (status, None),
            _ => {
                share_base(with, version, || latest.game.clone(), latest.state_bytes());
                let status = with
                    .renders
                    .lock()
                    .head_status(version, || Arc::new(latest.status()));
                (status, Some(Base::Head(Arc::downgrade(latest))))
            }
        };
        self.base = base;
        Ok(StreamBatch {
            events: events.into(),
            reissued,
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
        with: &Shared,
        latest: &Fold,
        event: &RecordedEvent,
        status_after: impl FnOnce() -> Arc<StatusJson>,
    ) -> Result<RenderedEvent, ServiceError> {
        let judged_at = latest.head.version();
        let seq = event.seq;
        let renders = with.renders;
        // Who it is shown to alike, and what is kept of it for them: asked
        // under one lock.
        let (audience, kept) = {
            let mut renders = renders.lock();
            let audience = Audience::of(event, &self.viewer, || {
                renders.is_public(seq, || latest.game.state.is_public_event(&event.payload))
            });
            let kept = renders.kept(judged_at, seq, &audience);
            (audience, kept)
        };
        let (decoded, kept_status) = match kept {
            Kept::Rendering(json) => return Ok(RenderedEvent { seq, json }),
            Kept::ToRender {
                decoded,
                status_text,
            } => (decoded, status_text),
        };
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
                let kept = renders.lock().kept(judged_at, seq, &Audience::Hidden);
                if let Kept::Rendering(json) = kept {
                    self.keep_for_spectators(with, judged_at, seq, &audience, &json);
                    return Ok(RenderedEvent { seq, json });
                }
                (Audience::Hidden, Some(audience))
            }
            _ => (audience, None),
        };
        let shown = shown_event_text(event, &shown, &self.viewer);
        let rendering = |e| ServiceError::Internal(format!("rendering a stream event: {e}"));
        // The status's JSON, made here (and kept with the rendering) when
        // no viewer's rendering of this event has made it yet.
        let (status, made) = match kept_status {
            Some(status) => (status, false),
            None => (
                status_json(&status_after()).map_err(rendering)?.into(),
                true,
            ),
        };
        let json: Arc<str> = shown
            .stream_json(&latest.record.game, &status)
            .map_err(rendering)?
            .into();
        with.reader.metrics.stream_renders.inc();
        let made = made.then_some(&status);
        renders.lock().keep(judged_at, seq, &audience, &json, made);
        if let Some(viewers) = hidden_from {
            self.keep_for_spectators(with, judged_at, seq, &viewers, &json);
        }
        Ok(RenderedEvent { seq, json })
    }

    /// Keeps the rendering of an event hidden from a spectator under the
    /// spectators' own audience as well.
    fn keep_for_spectators(
        &self,
        with: &Shared,
        judged_at: u64,
        seq: u64,
        viewers: &Audience,
        json: &Arc<str>,
    ) {
        if matches!(self.viewer, Viewer::Spectator) {
            with.renders
                .lock()
                .keep(judged_at, seq, viewers, json, None);
        }
    }

    /// The state after version `at` (the position, or the end of the
    /// statuses shared from it): this cursor's own when it is at the
    /// position, else the copy the game's streams keep when it is at `at`,
    /// else this cursor's own folded on to `at`; folded from the game's
    /// start only when there is none of these.
    fn state_at(
        &mut self,
        with: &Shared,
        latest: &Fold,
        at: u64,
    ) -> Result<GameAggregate, ServiceError> {
        let own = match self.base.take() {
            Some(Base::Head(fold)) => fold
                .upgrade()
                .filter(|fold| fold.head.version() == self.position)
                .map(|fold| GameAggregate::clone(&fold.game)),
            Some(Base::Behind(own)) if own.state.version() == self.position => Some(own),
            _ => None,
        };
        // The fold at the position is usually gone (the append that made
        // the newer one replaced it in the cache): the state the game's
        // streams keep is at it, unless this stream fell behind.
        let own = match own {
            Some(own) if at == self.position => return Ok(own),
            own => match with.renders.lock().base_at(at) {
                Some(kept) => return Ok(kept),
                None => own,
            },
        };
        let Some(mut own) = own else {
            if at > 0 {
                with.reader.metrics.stream_replays.inc();
            }
            return replay(
                &with.reader.registry,
                &latest.record,
                latest.events.range(0..at as usize),
            );
        };
        for event in latest.events.range(self.position as usize..at as usize) {
            fold_on(with, &mut own, event)?;
        }
        Ok(own)
    }
}

/// `event` folded into `own`, decoded once for the fold and every
/// viewer's redaction of it.
fn fold_on(
    with: &Shared,
    own: &mut GameAggregate,
    event: &RecordedEvent,
) -> Result<(), ServiceError> {
    let decoded = with.renders.lock().decoded(event.seq);
    own.apply_decoded(event, &decoded)
        .map_err(|e| corrupt(with.game_id, e))
}

/// Keeps `game`, the game after version `version` that a cursor has read
/// up to, for the game's streams to fold their next events from, unless
/// another has kept it (or a newer one) already: made only then (at the
/// head, the fold's own state, shared; behind, a copy of the cursor's).
/// `state_bytes` is what it holds.
fn share_base(
    with: &Shared,
    version: u64,
    game: impl FnOnce() -> Arc<GameAggregate>,
    state_bytes: usize,
) {
    if !with.renders.lock().wants_base(version) {
        return;
    }
    with.renders.lock().keep_base(version, game, state_bytes);
}

/// Pages one append pushes to each viewer, at most: an action's events
/// (a Flower Fields deal is a few pages) are pushed whole; a longer append
/// is read by its streams page by page.
const PAGES_PUSHED_PER_APPEND: u64 = 4;

/// Pushes the pages after version `after` of a followed game, judged at
/// `latest` (the fold an append of this instance has just cached), to
/// each of `viewers`: rendered once for each, and kept for every stream of
/// that viewer at `after` (and then at each page's end) to take without
/// reading. Nothing is pushed that would fold the game from its start (an
/// append of several events with no state kept at `after`): the streams
/// then read as they would.
pub(super) fn push_pages(
    with: &Shared,
    latest: &Arc<Fold>,
    after: u64,
    viewers: &[Viewer<String>],
) {
    let version = latest.head.version();
    if after >= version || after + PAGES_PUSHED_PER_APPEND * STREAM_PAGE < version {
        // Nothing new, or more than the streams should be handed at once.
        return;
    }
    let needs_a_state = version - after > 1;
    if needs_a_state && !with.renders.lock().has_base_at(after) {
        return;
    }
    for viewer in viewers {
        let mut cursor = Cursor {
            viewer: viewer.clone(),
            position: after,
            base: None,
        };
        while cursor.position < version {
            let from = cursor.position;
            match cursor.page(with, latest) {
                Ok(batch) => {
                    with.reader.metrics.stream_pages_pushed.inc();
                    (with.renders.lock()).push(from, viewer, &batch, Arc::downgrade(latest));
                }
                // The streams read for themselves, and end on the error there.
                Err(error) => {
                    tracing::debug!(%error, "a page could not be pushed to a game's streams");
                    return;
                }
            }
        }
    }
}
