//! The games of `scripts/bench-clock.sh`: COUNT Treeblox games created
//! through the service layer (no HTTP, the service measured elsewhere) on
//! `DATABASE_URL` (from the environment: a password in the arguments would
//! be visible to every local account), each with a clock whose first deadline (dark's) falls in
//! the window [WINDOW_START, WINDOW_START + WINDOW_MS), evenly spread, and
//! whose later deadlines fall long after it.
//!
//!     DATABASE_URL=… clock_games COUNT WINDOW_START_UNIX_MS WINDOW_MS
//!
//! Prints how many games it created and how fast, and fails if the last
//! one was created after the window opened (the window would not be even).

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use umpire_domain::clock::ClockSettings;
use umpire_service::games::GameService;
use umpire_service::model::CreateGameRequest;
use umpire_storage::EventStore;

/// Games created at once.
const AT_ONCE: u64 = 16;

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_millis() as u64
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, count, window_start, window_ms] = args.as_slice() else {
        eprintln!("usage: DATABASE_URL=… clock_games COUNT WINDOW_START_UNIX_MS WINDOW_MS");
        std::process::exit(2);
    };
    let url = std::env::var("DATABASE_URL").expect("DATABASE_URL");
    let count: u64 = count.parse().expect("COUNT");
    let window_start: u64 = window_start.parse().expect("WINDOW_START_UNIX_MS");
    let window_ms: u64 = window_ms.parse().expect("WINDOW_MS");
    let pool = umpire_storage::connect(&url, AT_ONCE as usize).expect("a pool");
    let service = GameService::new(EventStore::new(pool), Arc::new(umpire_games::registry()));
    let started = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for worker in 0..AT_ONCE {
        let service = service.clone();
        tasks.spawn(async move {
            let mut index = worker;
            while index < count {
                let deadline = window_start + window_ms * index / count;
                // Dark's deadline: now plus the time per move; light's, a
                // whole time per move after dark's timeout, is long after
                // the window.
                let per_move_ms = deadline.saturating_sub(now_ms()).max(60_000);
                let request = CreateGameRequest {
                    game: "treeblox".into(),
                    options: serde_json::Value::Null,
                    seed: Some(index),
                    clock: Some(
                        ClockSettings {
                            per_move_ms,
                            reserve_ms: 0,
                            // Nobody joins here: the clock runs at once.
                            start: umpire_domain::clock::ClockStart::Now,
                        }
                        .into(),
                    ),
                };
                service.create(request).await.expect("a game is created");
                index += AT_ONCE;
            }
        });
    }
    let mut last_report = Instant::now();
    while let Some(done) = tasks.join_next().await {
        done.expect("a creating task");
        if last_report.elapsed() > Duration::from_secs(10) {
            eprintln!(
                "clock_games: creating ({:.0} s)",
                started.elapsed().as_secs_f64()
            );
            last_report = Instant::now();
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "created {count} clocked games in {seconds:.1} s ({:.0} a second)",
        count as f64 / seconds
    );
    if now_ms() > window_start {
        eprintln!("clock_games: the window opened before every game was created; give more time");
        std::process::exit(1);
    }
}
