//! Imports refuse games no clock or store could have made — a nil game id,
//! times running backwards or in the future, more rejections than a game
//! keeps — with a stable code each, storing nothing.

use reqwest::StatusCode;
use umpire_archive::Archive;
use umpire_domain::record::RecordedRejection;
use umpire_storage::{REFUSALS_KEPT_PER_GAME, REFUSALS_KEPT_PER_VERSION};

use crate::archive_support::{first_action_seq, rechain, refusal, simulated};
use crate::support::{stated_status, TestApp};

/// Imports `archive`, expects a 422 with `code` (a published one), and
/// checks that no game, event or rejection was stored under its id.
async fn assert_refused(app: &TestApp, archive: &Archive, code: &str) -> serde_json::Value {
    let (status, body) = app.import(archive).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{code}: {body}");
    assert_eq!(body["code"], code, "{body}");
    assert_eq!(
        stated_status(code),
        StatusCode::UNPROCESSABLE_ENTITY.as_u16(),
        "{code}: the status service/src/codes.rs states"
    );
    let response = app
        .get(&format!("/v1/games/{}", archive.game_id), None)
        .await;
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
    let events = app
        .store
        .read_events(archive.game_id, 0, None, None)
        .await
        .unwrap();
    assert!(events.is_empty(), "{code}: the log stays empty");
    let rejections = app.store.rejections(archive.game_id).await.unwrap();
    assert!(rejections.is_empty(), "{code}: no rejection stored");
    body
}

/// The `n`-th refusal red could have made at the archive's last version.
fn rejection(archive: &Archive, n: usize) -> RecordedRejection {
    refusal(archive, "seat:red", archive.version(), n as u64)
}

#[tokio::test]
async fn a_nil_id_or_times_no_clock_wrote_are_refused_and_nothing_is_stored() {
    let app = TestApp::spawn().await;

    let mut nil = simulated("arboretum", 2);
    nil.game_id = uuid::Uuid::nil();
    rechain(&mut nil);
    assert_refused(&app, &nil, "archive_nil_game_id").await;

    let mut backwards = simulated("arboretum", 2);
    let seq = first_action_seq(&backwards);
    backwards.events[seq - 1].recorded_at = "2025-12-31T23:59:59.000000Z".into();
    rechain(&mut backwards);
    let body = assert_refused(&app, &backwards, "archive_time_runs_backwards").await;
    assert_eq!(body["details"]["seq"], seq, "{body}");

    let mut future = simulated("arboretum", 2);
    future.events.last_mut().unwrap().recorded_at = "2999-01-01T00:00:00.000000Z".into();
    rechain(&mut future);
    let body = assert_refused(&app, &future, "archive_time_in_future").await;
    assert_eq!(body["details"]["seq"], future.version(), "{body}");

    let mut future_rejection = simulated("arboretum", 2);
    let mut late = rejection(&future_rejection, 0);
    late.recorded_at = "2999-01-01T00:00:00Z".into();
    future_rejection.rejections = vec![rejection(&future_rejection, 1), late];
    let body = assert_refused(&app, &future_rejection, "archive_rejection_time_in_future").await;
    assert_eq!(body["details"]["rejection"], 1, "{body}");

    // The same game, as simulated, is imported.
    let (status, created) = app.import(&simulated("arboretum", 2)).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
}

#[tokio::test]
async fn more_rejections_than_a_game_keeps_are_refused_at_the_first_beyond() {
    let app = TestApp::spawn().await;
    let mut archive = simulated("arboretum", 1);
    let cap = REFUSALS_KEPT_PER_GAME as usize;
    // Spread over actors and versions within the per-version cap, so that
    // only the game's cap is passed.
    let actors = ["seat:red", "seat:blue", "umpire"];
    let per_version = REFUSALS_KEPT_PER_VERSION as usize;
    let rejections: Vec<RecordedRejection> = (0..=cap)
        .map(|n| {
            let slot = n / per_version;
            let mut rejection = rejection(&archive, n);
            rejection.actor = actors[slot % actors.len()].into();
            rejection.at_version = 1 + (slot / actors.len()) as u64;
            rejection
        })
        .collect();
    assert!(rejections[cap].at_version <= archive.version());
    archive.rejections = rejections;
    let body = assert_refused(&app, &archive, "archive_rejection_over_game_cap").await;
    assert_eq!(body["details"]["rejection"], cap, "{body}");
}
