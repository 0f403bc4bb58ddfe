//! `GET /v1/games/{id}/stream`: a game's events as Server-Sent Events,
//! live. The service's [`GameStream`] decides what comes next and when the
//! stream ends; this is the framing (`id:`/`data:` messages, heartbeat
//! comments, the closing message).

use actix_web::http::header;
use actix_web::web::Bytes;
use actix_web::{get, web, HttpRequest, HttpResponse};
use futures_util::stream::{self, Stream, StreamExt};
use serde::Deserialize;
use utoipa::IntoParams;
use uuid::Uuid;

use umpire_domain::Viewer;
use umpire_service::model::{StreamEnd, StreamEvent};
use umpire_service::{GameStream, RenderedEvent, StreamClient, StreamItem};

use super::error_answers::ReadingAGame;
use crate::auth::{presented, viewer};
use crate::error::{ApiError, ErrorBody};
use crate::AppState;

/// How many streams, for how long: the service's, configured by `serve`.
pub use umpire_service::StreamLimits;

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
    // the stream asks again after a reissue.
    let seat = match &viewer {
        Viewer::Seat(_) => Some(presented(&request)?),
        _ => None,
    };
    let client = StreamClient::of(game_id, &viewer, state.trusted_proxies.client_of(&request));
    // Counted and rechecked as its caller, redacted for whom it looks as.
    let looked = umpire_service::access::looking_as(viewer, query.looking_as.as_deref())?;
    let stream = (state.service)
        .stream(game_id, looked, client, after, seat)
        .await?;
    Ok(HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, "text/event-stream"))
        // The stream carries a seat's secrets, like every /v1 answer.
        .insert_header((header::CACHE_CONTROL, "no-store"))
        // Proxies that buffer responses (nginx) would hold events back.
        .insert_header(("X-Accel-Buffering", "no"))
        .streaming(messages(stream)))
}

/// The stream's bytes: the `retry:` line, then each item framed. Pulled
/// by the connection: nothing is read from the log until the client has
/// taken what came before, so a slow reader holds at most a page in this
/// process and simply catches up from the log.
fn messages(stream: GameStream) -> impl Stream<Item = Result<Bytes, actix_web::Error>> {
    let retry = Bytes::from(format!("retry: {RETRY_MILLISECONDS}\n\n"));
    let first = stream::once(async move { Ok::<_, actix_web::Error>(retry) });
    // Boxed: the state moves into each message's future and out again, and
    // a stream's state is about 1.4 KB (copied twice a delivery).
    let rest = stream::unfold(Box::new(stream), |mut stream| async move {
        if stream.ended() {
            return None;
        }
        let chunk = match stream.next().await {
            StreamItem::Events(events, end) => {
                let mut chunk = String::with_capacity(
                    events
                        .iter()
                        .map(|event| event.json.len() + MESSAGE_FRAMING)
                        .sum(),
                );
                for event in events.iter() {
                    push_event(&mut chunk, event);
                }
                if let Some(end) = end {
                    chunk.push_str(&end_message(&end));
                }
                Bytes::from(chunk)
            }
            StreamItem::Heartbeat => Bytes::from_static(b": heartbeat\n\n"),
            StreamItem::End(end) => Bytes::from(end_message(&end)),
        };
        Some((Ok::<_, actix_web::Error>(chunk), stream))
    });
    first.chain(rest)
}

/// The closing message (`event: end`); nothing follows it.
fn end_message(end: &StreamEnd) -> String {
    let data = serde_json::to_string(end).unwrap_or_else(|_| "{}".into());
    format!("event: end\ndata: {data}\n\n")
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
