//! The thinnest service our stack can be, for the load script's baseline:
//! actix-web (one worker per core, like `umpire serve`), mimalloc, and the
//! same deadpool-postgres pool (`umpire_storage::connect`), answering each
//! `POST /insert` with pgbench's own single-row INSERT of an event-sized row
//! (`scripts/load/pgbench-insert-event.sql`), one transaction per request.
//!
//! No rules, no hashing, no authorisation, no logging, no metrics: what it
//! reaches against pgbench is the ceiling of "HTTP + JSON + one commit per
//! request" on this machine, which tells how much of the service's gap to
//! pgbench is the service's own work and how much is the stack's.
//!
//! Usage (scripts/load.sh runs it):
//!   cargo run --release -p umpire-api --features bench --example stack_ceiling -- DATABASE_URL 127.0.0.1:PORT

use std::sync::atomic::{AtomicI64, Ordering};

use actix_web::{web, App, HttpResponse, HttpServer};
use serde::Deserialize;
use serde_json::Value;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const INSERT: &str = "INSERT INTO bench_events (game_id, seq, event_type, payload, actor, action, \
     decided_at, rules_version, recorded_at, prev_hash, hash) \
     VALUES (gen_random_uuid(), $1::bigint, $2, $3, $4, $5, $1::bigint - 1, 1, now(), $6, $7)";

/// The row's client-supplied columns, as the service receives an action.
#[derive(Deserialize)]
struct InsertRequest {
    event_type: String,
    payload: Value,
    actor: String,
    action: Value,
    prev_hash: String,
    hash: String,
}

struct Shared {
    pool: umpire_storage::Pool,
    next_seq: AtomicI64,
}

fn unavailable(error: impl std::fmt::Debug) -> actix_web::Error {
    actix_web::error::ErrorServiceUnavailable(format!("{error:?}"))
}

async fn insert(
    shared: web::Data<Shared>,
    request: web::Json<InsertRequest>,
) -> Result<HttpResponse, actix_web::Error> {
    let client = shared.pool.get().await.map_err(unavailable)?;
    let statement = client.prepare_cached(INSERT).await.map_err(unavailable)?;
    let seq = shared.next_seq.fetch_add(1, Ordering::Relaxed);
    client
        .execute(
            &statement,
            &[
                &seq,
                &request.event_type,
                &request.payload,
                &request.actor,
                &request.action,
                &request.prev_hash,
                &request.hash,
            ],
        )
        .await
        .map_err(unavailable)?;
    Ok(HttpResponse::Created().json(serde_json::json!({ "seq": seq })))
}

#[actix_web::main]
async fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let (Some(database_url), Some(bind)) = (args.next(), args.next()) else {
        eprintln!("usage: stack_ceiling DATABASE_URL HOST:PORT");
        std::process::exit(2);
    };
    let pool = umpire_storage::connect(&database_url, 16).map_err(std::io::Error::other)?;
    let shared = web::Data::new(Shared {
        pool,
        next_seq: AtomicI64::new(1),
    });
    HttpServer::new(move || {
        App::new()
            .app_data(shared.clone())
            .route("/insert", web::post().to(insert))
    })
    .tcp_nodelay(true)
    .bind(bind)?
    .run()
    .await
}
