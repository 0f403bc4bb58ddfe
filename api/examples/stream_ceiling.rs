//! The thinnest live stream our stack can serve, for the streams' baseline
//! (issue 35), as `stack_ceiling.rs` is the action path's: actix-web (one
//! worker per core, like `umpire serve`) and mimalloc, serving
//! `GET /v1/games/{id}/stream` as Server-Sent Events framed as the service
//! frames them (`retry:`, then `id:`/`data:` messages, a page of at most 16
//! events a chunk, pulled by the connection).
//!
//! `POST /v1/games/{id}/actions` with `{"events": [DATA, ...]}` appends
//! those events (each one event's stream message, as the service would
//! write it) to the game's log in memory and wakes its streams. No rules,
//! no store, no redaction, no authorisation (a token is ignored), no
//! logging, no metrics: what a delivered event costs it is what the stack's
//! SSE path costs, so the service's streams are held to it
//! (`scripts/instructions.sh` with `STREAMS=1`).
//!
//! Each event is kept decoded (its payload and action as the JSON text the
//! append was handed, as the service keeps an appended event's canonical
//! encoding) and written once, with serde's derived serializers, when a
//! stream first reads it; a game no stream reads writes nothing. So the
//! ceiling renders as the service does for one audience (issue 48's "like
//! with like"); `RENDERED=0` in the environment hands it the messages
//! already written instead, the thinner ceiling measured before.
//!
//! Usage: stream_ceiling 127.0.0.1:PORT

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use actix_web::web::{self, Bytes};
use actix_web::{http::header, App, HttpResponse, HttpServer};
use futures_util::stream;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use tokio::sync::watch;
use umpire_domain::status::StatusJson;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Events per chunk, as the service's streams page them.
const STREAM_PAGE: usize = 16;

/// One event's stream message, decoded: the fields of the service's
/// `StreamEvent`, in its order.
#[derive(Deserialize, Serialize)]
struct Message {
    game: String,
    seq: u64,
    #[serde(rename = "type")]
    event_type: String,
    actor: String,
    recorded_at: String,
    rules_version: u32,
    payload: Box<RawValue>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    action: Option<Box<RawValue>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    prev_hash: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    hash: Option<String>,
    status: StatusJson,
}

/// One event of a game's log: decoded when appended, written once when a
/// stream first reads it.
struct Event {
    message: Option<Message>,
    written: OnceLock<Arc<str>>,
}

impl Event {
    fn appended(data: String) -> Event {
        if rendered_by_the_ceiling() {
            Event {
                message: Some(serde_json::from_str(&data).expect("a stream message")),
                written: OnceLock::new(),
            }
        } else {
            Event {
                message: None,
                written: OnceLock::from(Arc::from(data)),
            }
        }
    }

    fn written(&self) -> Arc<str> {
        self.written
            .get_or_init(|| render(self.message.as_ref().expect("decoded when appended")))
            .clone()
    }
}

/// One event's message written. Never inlined: `scripts/instructions.sh`
/// finds the ceiling's rendering by this name.
#[inline(never)]
fn render(message: &Message) -> Arc<str> {
    Arc::from(serde_json::to_string(message).expect("a message writes"))
}

/// Whether the ceiling writes its events itself (the default) or is
/// handed them written (`RENDERED=0`).
fn rendered_by_the_ceiling() -> bool {
    static RENDERED: OnceLock<bool> = OnceLock::new();
    *RENDERED.get_or_init(|| std::env::var("RENDERED").map_or(true, |value| value != "0"))
}

/// One game's log of events, and who is told when it grows.
struct Game {
    events: Vec<Event>,
    changed: watch::Sender<usize>,
}

#[derive(Default)]
struct Games(Mutex<HashMap<String, Game>>);

impl Games {
    /// The game's announcements, the game made empty if new.
    fn subscribe(&self, game_id: &str) -> watch::Receiver<usize> {
        let mut games = self.0.lock().expect("games lock");
        games
            .entry(game_id.to_string())
            .or_insert_with(|| Game {
                events: Vec::new(),
                changed: watch::channel(0).0,
            })
            .changed
            .subscribe()
    }

    /// Up to a page of the game's events after `position`.
    fn page_after(&self, game_id: &str, position: usize) -> Vec<Arc<str>> {
        let games = self.0.lock().expect("games lock");
        games.get(game_id).map_or_else(Vec::new, |game| {
            game.events
                .iter()
                .skip(position)
                .take(STREAM_PAGE)
                .map(Event::written)
                .collect()
        })
    }
}

#[derive(Deserialize)]
struct Append {
    events: Vec<String>,
}

async fn append(
    games: web::Data<Games>,
    game_id: web::Path<String>,
    body: web::Json<Append>,
) -> HttpResponse {
    let version = {
        let mut all = games.0.lock().expect("games lock");
        let game = all.entry(game_id.into_inner()).or_insert_with(|| Game {
            events: Vec::new(),
            changed: watch::channel(0).0,
        });
        game.events
            .extend(body.into_inner().events.into_iter().map(Event::appended));
        let version = game.events.len();
        game.changed.send_replace(version);
        version
    };
    HttpResponse::Created().json(serde_json::json!({ "version": version }))
}

/// Where one stream is.
struct Follow {
    games: web::Data<Games>,
    game_id: String,
    position: usize,
    changes: watch::Receiver<usize>,
    started: bool,
}

impl Follow {
    async fn next_chunk(&mut self) -> Option<Bytes> {
        if !self.started {
            self.started = true;
            return Some(Bytes::from_static(b"retry: 2000\n\n"));
        }
        loop {
            // Whatever is announced from here on wakes the next wait.
            self.changes.borrow_and_update();
            let page = self.games.page_after(&self.game_id, self.position);
            if !page.is_empty() {
                let mut chunk =
                    String::with_capacity(page.iter().map(|event| event.len() + 33).sum());
                for event in &page {
                    self.position += 1;
                    chunk.push_str("id: ");
                    chunk.push_str(itoa::Buffer::new().format(self.position));
                    chunk.push_str("\ndata: ");
                    chunk.push_str(event);
                    chunk.push_str("\n\n");
                }
                return Some(Bytes::from(chunk));
            }
            self.changes.changed().await.ok()?;
        }
    }
}

async fn follow(games: web::Data<Games>, game_id: web::Path<String>) -> HttpResponse {
    let game_id = game_id.into_inner();
    let changes = games.subscribe(&game_id);
    let follow = Follow {
        games,
        game_id,
        position: 0,
        changes,
        started: false,
    };
    let messages = stream::unfold(follow, |mut follow| async move {
        let chunk = follow.next_chunk().await?;
        Some((Ok::<_, actix_web::Error>(chunk), follow))
    });
    HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, "text/event-stream"))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header(("X-Accel-Buffering", "no"))
        .streaming(messages)
}

#[actix_web::main]
async fn main() -> std::io::Result<()> {
    let Some(bind) = std::env::args().nth(1) else {
        eprintln!("usage: stream_ceiling HOST:PORT");
        std::process::exit(2);
    };
    let games = web::Data::new(Games::default());
    HttpServer::new(move || {
        App::new()
            .app_data(games.clone())
            // A batch is a whole action's events (a Flower Fields deal's
            // are many).
            .app_data(web::JsonConfig::default().limit(4 << 20))
            .route("/v1/games/{id}/actions", web::post().to(append))
            .route("/v1/games/{id}/stream", web::get().to(follow))
    })
    .tcp_nodelay(true)
    .bind(bind)?
    .run()
    .await
}
