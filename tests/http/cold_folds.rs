//! Cold folds take turns: games read whole from storage and folded from
//! nothing run at most `COLD_FOLDS_AT_ONCE` at a time per instance, the
//! rest wait for a turn (`umpire_cold_folds{state}` on `/metrics` counts
//! both), and each is answered once its turn comes.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::json;

use crate::support::{metric, TestApp};

/// How long the turns may take to fill on a busy machine: a ceiling
/// against a hang, never a pace the test expects.
const FILLING: Duration = Duration::from_secs(60);

async fn cold_folds(app: &TestApp) -> (f64, f64) {
    let text = app
        .get("/metrics", None)
        .await
        .text()
        .await
        .expect("the metrics");
    (
        metric(&text, "umpire_cold_folds{state=\"folding\"}"),
        metric(&text, "umpire_cold_folds{state=\"waiting\"}"),
    )
}

/// Given six games no request has read (none is in the fold cache) and
/// every read of the log held by a lock on `events`, when each is read at
/// once, four fold (each holding its turn while its read waits) and two
/// wait for a turn; once the lock goes, all six are answered.
#[tokio::test]
async fn cold_folds_take_turns_and_each_is_answered_when_its_turn_comes() {
    let database = umpire_storage::testing::fresh_database().await;
    let app = TestApp::spawn_on(&database.service_url, Default::default()).await;
    let mut games = Vec::new();
    for seed in 0..6 {
        games.push(app.create("arboretum", json!({}), seed).await);
    }
    assert_eq!(cold_folds(&app).await, (0.0, 0.0), "nothing folds yet");

    // The owner may lock the log; the service's role may only read it.
    let (owner, connection) = tokio_postgres::connect(&database.owner_url, tokio_postgres::NoTls)
        .await
        .expect("the owner's connection");
    tokio::spawn(connection);
    owner
        .batch_execute("BEGIN; LOCK TABLE events IN ACCESS EXCLUSIVE MODE")
        .await
        .expect("the log locked");

    let reads: Vec<_> = games
        .iter()
        .map(|game| {
            let (client, url) = (
                app.client.clone(),
                app.url(&format!("/v1/games/{}/state", game.id)),
            );
            tokio::spawn(async move { client.get(url).send().await.expect("an answer").status() })
        })
        .collect();
    let deadline = tokio::time::Instant::now() + FILLING;
    loop {
        let (folding, waiting) = cold_folds(&app).await;
        assert!(
            folding <= 4.0,
            "at most four cold folds at once, not {folding}"
        );
        if (folding, waiting) == (4.0, 2.0) {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the turns never filled: {folding} folding, {waiting} waiting"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    owner
        .batch_execute("ROLLBACK")
        .await
        .expect("the log unlocked");
    for read in reads {
        assert_eq!(read.await.expect("the read ran"), StatusCode::OK);
    }
    assert_eq!(cold_folds(&app).await, (0.0, 0.0), "every turn given back");
}
