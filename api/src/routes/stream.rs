//! `GET /v1/games/{id}/stream`: a game's events as Server-Sent Events,
//! live. The service's [`Follower`] does the reading; this is the framing
//! (`id:`/`data:` messages, heartbeat comments, the closing message) and
//! the limits.

use std::time::{Duration, Instant};

use actix_web::http::header;
use actix_web::web::Bytes;
use actix_web::{get, web, HttpRequest, HttpResponse};
use futures_util::stream::{self, Stream};
use serde::Deserialize;
use utoipa::IntoParams;
use uuid::Uuid;

use umpire_domain::StatusJson;
use umpire_domain::Viewer;
use umpire_service::model::{StreamEnd, StreamEvent};
use umpire_service::{
    Follower, GameService, Presented, RenderedEvent, ServiceError, StreamClient, Woken,
};

use super::error_answers::ReadingAGame;
use crate::auth::{presented, viewer};
use crate::error::{ApiError, ErrorBody};
use crate::AppState;

/// How long streams may stay open and how often they prove they are alive.
#[derive(Debug, Clone, Copy)]
pub struct StreamLimits {
    /// A comment line is sent to every stream this often (one ticker for
    /// all); the log is read then too when the instance is not listening
    /// for announcements, so a stream keeps up even without them.
    pub heartbeat: Duration,
    /// A stream that delivered no event for this long is ended (`idle`).
    pub idle: Duration,
    /// A stream is ended after this long in all (`lifetime`).
    pub lifetime: Duration,
    /// Streams one instance holds open at once; beyond, 503.
    pub max_open: usize,
    /// Streams one client (a token, or a spectator's address) holds open
    /// at once; beyond, 429.
    pub max_per_client: usize,
    /// Streams one client address holds open at once, whatever their
    /// tokens; beyond, 429.
    pub max_per_address: usize,
}

impl StreamLimits {
    /// What the service layer enforces of these.
    pub fn live(&self) -> umpire_service::LiveLimits {
        umpire_service::LiveLimits {
            max_open: self.max_open,
            max_per_client: self.max_per_client,
            max_per_address: self.max_per_address,
            heartbeat: self.heartbeat,
        }
    }
}

impl Default for StreamLimits {
    fn default() -> Self {
        StreamLimits {
            heartbeat: umpire_service::live::DEFAULT_HEARTBEAT,
            idle: Duration::from_secs(30 * 60),
            lifetime: Duration::from_secs(2 * 60 * 60),
            max_open: umpire_service::live::DEFAULT_MAX_STREAMS,
            max_per_client: umpire_service::live::DEFAULT_MAX_STREAMS_PER_CLIENT,
            max_per_address: umpire_service::live::DEFAULT_MAX_STREAMS_PER_ADDRESS,
        }
    }
}

/// What a client waits between reconnecting attempts (the SSE `retry:`).
const RETRY_MILLISECONDS: u64 = 2000;

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct StreamQuery {
    /// Start after this version (default 0: from the first event). The
    /// `Last-Event-ID` header, sent by reconnecting SSE clients, wins over it.
    pub after: Option<u64>,
    /// Follow as someone else (umpire's token only): `as=<seat>`,
    /// `as=spectator` or `as=umpire`, as the state and the events take it.
    #[serde(rename = "as")]
    #[param(rename = "as")]
    pub looking_as: Option<String>,
}

/// Follow a game live as Server-Sent Events, from any version on.
///
/// Each message's `id:` is the event's version (`seq`) and its `data:` a
/// `StreamEvent`: the entry `/events` gives the caller (spectator without a
/// token, a seat, the umpire, redacted alike), with the game's status after
/// it. Resume with `Last-Event-ID` (what `EventSource` sends by itself) or
/// `?after=N`: every event after N comes exactly once, in order, then live
/// ones. A comment line (`: heartbeat`) comes every 15 s; `retry:` is
/// 2000 ms. The server ends a stream with one `event: end`
/// message (`StreamEnd`): `finished` once every event of a finished game is
/// sent (and at once when resuming at its end), `idle` after 30 minutes
/// without an event, `lifetime` after 2 hours, `stopping` when the instance
/// stops (resume on another, or here once it is back), `error` on a
/// failure; all but `finished` may resume. An instance holds a limited number of streams
/// open (2048 unless configured): beyond it, 503 `busy` with `Retry-After`;
/// so does one that the memory budget has no room for. One client holds at
/// most 16 (unless configured) of them, counted by token, or by address for
/// spectators, and one address at most 64 (unless configured), whatever
/// their tokens (an IPv6 address counted by its /64): beyond, 429
/// `too_many_streams` with `Retry-After`.
#[utoipa::path(
    operation_id = "stream_game_events",
    tag = "games",
    params(
        ("id" = Uuid, Path, description = "Game id"),
        StreamQuery,
        ("Last-Event-ID" = Option<u64>, Header, description = "The `id:` of the last message received: resume after it"),
    ),
    security((), ("bearer" = [])),
    responses(
        (status = 200, description = "An endless `text/event-stream`; each message's `data:` is one of these", content_type = "text/event-stream", body = StreamEvent),
        (status = 400, description = "Bad `after` or `Last-Event-ID`, or a version the game does not have yet", body = ErrorBody),
        ReadingAGame,
        (status = 429, description = "This client already holds its limit of streams (`too_many_streams`)", body = ErrorBody),
        // Its own 503, with more causes than the database, replaces the
        // family's.
        (status = 503, description = "Too many streams open on this instance, the memory budget spent (`busy`), or the database unavailable", body = ErrorBody),
    )
)]
#[get("/games/{id}/stream")]
pub async fn stream_game_events(
    state: web::Data<AppState>,
    request: HttpRequest,
    id: web::Path<Uuid>,
    query: web::Query<StreamQuery>,
) -> Result<HttpResponse, ApiError> {
    let game_id = id.into_inner();
    let after = match request.headers().get("last-event-id") {
        Some(value) => value
            .to_str()
            .ok()
            .and_then(|text| text.trim().parse::<u64>().ok())
            .ok_or_else(|| {
                ApiError::bad_request(
                    "invalid_last_event_id",
                    "Last-Event-ID must be the id of a message of this stream: a version number.",
                )
            })?,
        None => query.after.unwrap_or(0),
    };
    let viewer = viewer(&state.service, game_id, &request).await?;
    // A seat's token may be revoked while its stream is open (a reissue):
    // the stream asks again when the log records a reissue.
    let recheck = match &viewer {
        Viewer::Seat(_) => Some(Recheck {
            service: state.service.clone(),
            game_id,
            presented: presented(&request)?,
        }),
        _ => None,
    };
    let client = StreamClient::of(game_id, &viewer, state.trusted_proxies.client_of(&request));
    // Counted and rechecked as its caller, redacted for whom it looks as.
    let looked = umpire_service::access::looking_as(viewer, query.looking_as.as_deref())?;
    let follower = state.service.follow(game_id, looked, client, after).await?;
    Ok(HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, "text/event-stream"))
        // The stream carries a seat's secrets, like every /v1 answer.
        .insert_header((header::CACHE_CONTROL, "no-store"))
        // Proxies that buffer responses (nginx) would hold events back.
        .insert_header(("X-Accel-Buffering", "no"))
        .streaming(messages(follower, state.stream_limits, recheck)))
}

/// What a seat's stream needs to ask whether its token (or its page
/// session) still stands.
struct Recheck {
    service: GameService,
    game_id: Uuid,
    presented: Presented,
}

impl Recheck {
    /// Whether the token was revoked, asked only after a batch that
    /// reissued a seat's token (at worst a needless question, never a
    /// wrong answer, which the store gives).
    async fn revoked(&self) -> bool {
        matches!(
            self.service.viewer_of(self.game_id, &self.presented).await,
            Err(ServiceError::Unauthenticated { .. })
        )
    }
}

/// Where a stream is.
struct Sse {
    follower: Follower,
    limits: StreamLimits,
    opened: Instant,
    last_event: Instant,
    started: bool,
    ended: bool,
    /// The last read reached the newest version: nothing to read until an
    /// announcement (or a heartbeat's timeout) says otherwise.
    at_head: bool,
    /// A seat's: its token, asked about again after a reissue.
    recheck: Option<Recheck>,
}

/// The stream's bytes. Pulled by the connection: nothing is read from the
/// log until the client has taken what came before, so a slow reader holds
/// at most a page in this process and simply catches up from the log.
fn messages(
    follower: Follower,
    limits: StreamLimits,
    recheck: Option<Recheck>,
) -> impl Stream<Item = Result<Bytes, actix_web::Error>> {
    let now = Instant::now();
    let stream = Sse {
        follower,
        limits,
        opened: now,
        last_event: now,
        started: false,
        ended: false,
        at_head: false,
        recheck,
    };
    stream::unfold(stream, |mut stream| async move {
        if stream.ended {
            return None;
        }
        let chunk = stream.next_chunk().await;
        Some((Ok::<_, actix_web::Error>(chunk), stream))
    })
}

impl Sse {
    async fn next_chunk(&mut self) -> Bytes {
        if !self.started {
            self.started = true;
            return Bytes::from(format!("retry: {RETRY_MILLISECONDS}\n\n"));
        }
        loop {
            // The clock read once for both limits.
            let now = Instant::now();
            if now.duration_since(self.opened) >= self.limits.lifetime {
                return self.end("lifetime", None, None);
            }
            if now.duration_since(self.last_event) >= self.limits.idle {
                return self.end("idle", None, None);
            }
            if self.at_head {
                // What was announced since the last read wakes the wait at
                // once, so waiting first loses nothing and spares a read
                // after every delivery.
                self.at_head = false;
                if let Some(heartbeat) = self.heartbeat_after_wait().await {
                    return heartbeat;
                }
                continue;
            }
            let batch = match self.follower.read().await {
                Ok(batch) => batch,
                Err(error) => return self.end("error", None, Some(error)),
            };
            let position = self.follower.position();
            let finished = batch.ends_the_game(position);
            if !batch.events.is_empty() {
                self.last_event = Instant::now();
                self.at_head = position == batch.head;
                let mut chunk = String::with_capacity(
                    batch
                        .events
                        .iter()
                        .map(|event| event.json.len() + MESSAGE_FRAMING)
                        .sum(),
                );
                for event in batch.events.iter() {
                    push_event(&mut chunk, event);
                }
                if finished {
                    let end = self.end("finished", Some((*batch.status).clone()), None);
                    chunk.push_str(&String::from_utf8_lossy(&end));
                } else if batch.reissued && self.revoked().await {
                    // The reissue is delivered, then nothing more.
                    let end = self.end("revoked", None, None);
                    chunk.push_str(&String::from_utf8_lossy(&end));
                }
                return Bytes::from(chunk);
            }
            if finished {
                return self.end("finished", Some((*batch.status).clone()), None);
            }
            if let Some(heartbeat) = self.heartbeat_after_wait().await {
                return heartbeat;
            }
        }
    }

    /// Waits for news or the instance's next heartbeat: `None` when the
    /// game may have moved (read it), else the heartbeat to send (or the
    /// end, when a limit has passed; limits are checked at heartbeats, so
    /// they hold to within one). At a heartbeat the log is read too only
    /// when announcements may have been missed.
    async fn heartbeat_after_wait(&mut self) -> Option<Bytes> {
        match self.follower.wait().await {
            Woken::Moved => None,
            Woken::Stopping => Some(self.end("stopping", None, None)),
            Woken::Heartbeat { read } => {
                if self.opened.elapsed() >= self.limits.lifetime {
                    return Some(self.end("lifetime", None, None));
                }
                if self.last_event.elapsed() >= self.limits.idle {
                    return Some(self.end("idle", None, None));
                }
                self.at_head = !read;
                Some(Bytes::from_static(b": heartbeat\n\n"))
            }
        }
    }

    async fn revoked(&self) -> bool {
        match &self.recheck {
            Some(recheck) => recheck.revoked().await,
            None => false,
        }
    }

    /// The closing message; nothing follows it.
    fn end(
        &mut self,
        reason: &str,
        status: Option<StatusJson>,
        error: Option<ServiceError>,
    ) -> Bytes {
        self.ended = true;
        self.follower.closed(reason);
        if let Some(ServiceError::Internal(cause)) = &error {
            tracing::error!(%cause, "a live stream failed");
        }
        let end = StreamEnd {
            reason: reason.to_string(),
            after: self.follower.position(),
            status,
            error: error.map(|error| error.body()),
        };
        let data = serde_json::to_string(&end).unwrap_or_else(|_| "{}".into());
        Bytes::from(format!("event: end\ndata: {data}\n\n"))
    }
}

/// The bytes of an SSE message besides its JSON: `id: `, the longest
/// version, `\ndata: ` and the blank line.
const MESSAGE_FRAMING: usize = 4 + 20 + 7 + 2;

/// One SSE message: `id:` the version, `data:` the event as one line of
/// JSON (serde_json never writes a raw newline inside a string). Pushed
/// piece by piece: through `write!` and `core::fmt` it cost about 900
/// instructions a message, a fourteenth of a delivery.
fn push_event(chunk: &mut String, event: &RenderedEvent) {
    chunk.push_str("id: ");
    chunk.push_str(itoa::Buffer::new().format(event.seq));
    chunk.push_str("\ndata: ");
    chunk.push_str(&event.json);
    chunk.push_str("\n\n");
}
