//! The process's memory budget through the real server: what it charges is
//! shown in `/metrics`, and a request it has no room for is answered 503
//! `busy` with Retry-After, storing nothing. Peak memory itself is measured
//! by `scripts/abuse.sh` (the soak) and `scripts/idle-streams.sh`.

use reqwest::StatusCode;
use umpire_api::ServiceOptions;

use crate::archive_support::simulated;
use crate::support::{assert_error, metric, TestApp};

const MIB: usize = 1024 * 1024;

/// Given a budget of 1 MiB, an import whose body and handling need more is
/// refused `busy` with Retry-After, the game is not stored, and the body's
/// charge is given back; a small import still fits.
#[tokio::test]
async fn an_import_the_budget_has_no_room_for_is_refused_busy_and_stores_nothing() {
    let app = TestApp::spawn_with(ServiceOptions {
        memory_budget: MIB,
        ..ServiceOptions::default()
    })
    .await;
    let lines: Vec<_> = (0..6)
        .map(|seed| simulated("flower_fields", seed))
        .collect();
    let body = lines
        .iter()
        .map(|archive| serde_json::to_string(archive).unwrap() + "\n")
        .collect::<String>();
    assert!(
        body.len() > MIB / 4,
        "{} bytes: too small to matter",
        body.len()
    );
    let response = app.post_json_lines("/v1/games/import", None, body).await;
    assert_eq!(response.headers()["retry-after"], "1");
    assert_error(response, StatusCode::SERVICE_UNAVAILABLE, "busy").await;
    for archive in &lines {
        let read = app
            .get(&format!("/v1/games/{}", archive.game_id), None)
            .await;
        assert_eq!(read.status(), StatusCode::NOT_FOUND, "nothing stored");
    }

    let metrics = app.get("/metrics", None).await.text().await.unwrap();
    assert_eq!(metric(&metrics, "umpire_memory_budget_bytes"), MIB as f64);
    assert_eq!(
        metric(&metrics, "umpire_memory_charged_bytes{charge=\"bodies\"}"),
        0.0,
        "the refused body's charge is given back"
    );
    assert!(metric(&metrics, "umpire_memory_refusals_total{charge=\"bodies\"}") >= 1.0);

    let small = simulated("arboretum", 1);
    let (status, _) = app.import(&small).await;
    assert_eq!(status, StatusCode::CREATED, "a small import still fits");
}

/// The fold cache is charged what its games measure, and keeps within
/// seven eighths of the budget: with every game read, the folds stay there.
#[tokio::test]
async fn the_fold_cache_stays_within_the_budget() {
    let budget = 4 * MIB;
    let app = TestApp::spawn_with(ServiceOptions {
        memory_budget: budget,
        ..ServiceOptions::default()
    })
    .await;
    let mut imported = Vec::new();
    for seed in 0..12 {
        let archive = simulated("flower_fields", seed);
        let (status, _) = app.import(&archive).await;
        assert_eq!(status, StatusCode::CREATED);
        imported.push(archive.game_id);
    }
    let mut largest = 0.0f64;
    for game_id in &imported {
        let read = app.get(&format!("/v1/games/{game_id}/state"), None).await;
        assert_eq!(read.status(), StatusCode::OK);
        let metrics = app.get("/metrics", None).await.text().await.unwrap();
        let folds = metric(&metrics, "umpire_memory_charged_bytes{charge=\"folds\"}");
        // Seven eighths: the cache leaves the rest to what is not charged.
        assert!(
            folds <= (budget - budget / 8) as f64,
            "{folds} bytes of folds"
        );
        largest = largest.max(folds);
    }
    assert!(
        largest > (budget / 2) as f64,
        "the cache used the room it had: {largest}"
    );
}
