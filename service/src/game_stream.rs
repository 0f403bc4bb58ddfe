//! One live stream as its client is served: the follower's pages, the
//! heartbeats, and the end — the game finished, idle or lifetime passed,
//! the instance stopping, the seat's token revoked, an error — all decided
//! here. The HTTP route only frames what a [`GameStream`] hands it as
//! Server-Sent Events.

use std::sync::Arc;
use std::time::Instant;

use umpire_domain::{StatusJson, Viewer};
use uuid::Uuid;

use crate::error::ServiceError;
use crate::games::GameService;
use crate::live::{Follower, RenderedEvent, StreamClient, StreamLimits, Woken};
use crate::model::StreamEnd;
use crate::seat_devices::Presented;

/// What a stream sends next.
#[derive(Debug)]
pub enum StreamItem {
    /// Events, in order (never none), then the end when they end the
    /// stream (the last of a finished game, or the reissue that revoked
    /// this seat's token): sent together.
    Events(Arc<[RenderedEvent]>, Option<StreamEnd>),
    /// Nothing new: a heartbeat proves the stream alive.
    Heartbeat,
    /// The closing message; nothing follows.
    End(StreamEnd),
}

/// A stream of one game for one viewer, with its limits and, for a seat,
/// what it presented (asked about again when a token is reissued).
pub struct GameStream {
    follower: Follower,
    limits: StreamLimits,
    /// When the stream's lifetime is over, and when it is idle unless an
    /// event comes first (`None`: beyond what the clock can say): kept as
    /// instants, so that each delivery compares rather than subtracts.
    lifetime_ends: Option<Instant>,
    idle_ends: Option<Instant>,
    /// The last read reached the newest version: nothing to read until an
    /// announcement (or a heartbeat's timeout) says otherwise.
    at_head: bool,
    ended: bool,
    /// A seat's: what it presented, asked about again after a reissue.
    recheck: Option<Recheck>,
    /// The span the stream was opened in (its request's): what it logs
    /// belongs there, though its polls are not entered in it.
    opened_in: tracing::Span,
}

/// What a seat's stream needs to ask whether its token (or its page
/// session) still stands.
struct Recheck {
    service: GameService,
    game_id: Uuid,
    presented: Presented,
}

impl GameService {
    /// Opens a stream of `game_id` after version `after` for `viewer`,
    /// counted against `client`; `seat` is what a seat presented, whose
    /// stream ends (`revoked`) once a reissue revokes it. Refused as
    /// [`GameService::follow`] refuses.
    pub async fn stream(
        &self,
        game_id: Uuid,
        viewer: Viewer<String>,
        client: StreamClient,
        after: u64,
        seat: Option<Presented>,
    ) -> Result<GameStream, ServiceError> {
        let follower = self.follow(game_id, viewer, client, after).await?;
        let now = Instant::now();
        let limits = self.live.limits();
        Ok(GameStream {
            follower,
            lifetime_ends: now.checked_add(limits.lifetime),
            idle_ends: now.checked_add(limits.idle),
            limits,
            at_head: false,
            ended: false,
            recheck: seat.map(|presented| Recheck {
                service: self.clone(),
                game_id,
                presented,
            }),
            opened_in: tracing::Span::current(),
        })
    }
}

impl GameStream {
    /// Whether the stream has ended: nothing follows its end.
    pub fn ended(&self) -> bool {
        self.ended
    }

    /// What to send next: events as soon as there are any, else a
    /// heartbeat at the instance's next tick, or the end.
    pub async fn next(&mut self) -> StreamItem {
        loop {
            // The clock read once for both limits.
            let now = Instant::now();
            if let Some(reason) = self.past_a_limit(now) {
                return StreamItem::End(self.end(reason, None, None));
            }
            if self.at_head {
                // What was announced since the last read wakes the wait at
                // once, so waiting first loses nothing and spares a read
                // after every delivery.
                self.at_head = false;
                match self.heartbeat_after_wait().await {
                    Some(item) => return item,
                    None => continue,
                }
            }
            let batch = match self.follower.read().await {
                Ok(batch) => batch,
                Err(error) => return StreamItem::End(self.end("error", None, Some(error))),
            };
            let position = self.follower.position();
            let finished = batch.ends_the_game(position);
            if !batch.events.is_empty() {
                self.idle_ends = Instant::now().checked_add(self.limits.idle);
                self.at_head = position == batch.head;
                let end = if finished {
                    Some(self.end("finished", Some((*batch.status).clone()), None))
                } else if batch.reissued && Box::pin(self.revoked()).await {
                    // The reissue is delivered, then nothing more.
                    Some(self.end("revoked", None, None))
                } else {
                    None
                };
                return StreamItem::Events(batch.events, end);
            }
            if finished {
                return StreamItem::End(self.end("finished", Some((*batch.status).clone()), None));
            }
            if let Some(item) = self.heartbeat_after_wait().await {
                return item;
            }
        }
    }

    /// The limit `now` is past, if any.
    fn past_a_limit(&self, now: Instant) -> Option<&'static str> {
        let past = |ends: Option<Instant>| ends.is_some_and(|ends| now >= ends);
        if past(self.lifetime_ends) {
            Some("lifetime")
        } else if past(self.idle_ends) {
            Some("idle")
        } else {
            None
        }
    }

    /// Waits for news or the instance's next heartbeat: `None` when the
    /// game may have moved (read it), else the heartbeat to send (or the
    /// end, when a limit has passed; limits are checked at heartbeats, so
    /// they hold to within one). At a heartbeat the log is read too only
    /// when announcements may have been missed.
    async fn heartbeat_after_wait(&mut self) -> Option<StreamItem> {
        match self.follower.wait().await {
            Woken::Moved => None,
            Woken::Stopping => Some(StreamItem::End(self.end("stopping", None, None))),
            Woken::Heartbeat { read } => {
                if let Some(reason) = self.past_a_limit(Instant::now()) {
                    return Some(StreamItem::End(self.end(reason, None, None)));
                }
                self.at_head = !read;
                Some(StreamItem::Heartbeat)
            }
        }
    }

    /// Whether the seat's token (or page session) no longer stands: asked
    /// of the store only after a reissue, and never for other viewers.
    /// Awaited boxed: its future is large and rarely made.
    async fn revoked(&self) -> bool {
        let Some(recheck) = &self.recheck else {
            return false;
        };
        matches!(
            (recheck.service)
                .viewer_of(recheck.game_id, &recheck.presented)
                .await,
            Err(ServiceError::Unauthenticated { .. })
        )
    }

    /// The closing message, counted by why; nothing follows it.
    fn end(
        &mut self,
        reason: &str,
        status: Option<StatusJson>,
        error: Option<ServiceError>,
    ) -> StreamEnd {
        self.ended = true;
        self.follower.closed(reason);
        if let Some(ServiceError::Internal(cause)) = &error {
            tracing::error!(parent: &self.opened_in, %cause, "a live stream failed");
        }
        StreamEnd {
            reason: reason.to_string(),
            after: self.follower.position(),
            status,
            error: error.map(|error| error.body()),
        }
    }
}
