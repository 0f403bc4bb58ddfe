//! A clock that waits for the players (`docs/rules/clock.md` §5), on the
//! real server: no seat's time runs until every seat has redeemed its
//! invitation or the umpire starts the clock; each join and the start are
//! in the log, by whom they were made, and the audit agrees with them.

use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::support::{assert_error, TestApp};

/// A clocked Treeblox game as `create_game` answers it, its clock waiting
/// for its seats (the default).
async fn waiting_game(app: &TestApp) -> Value {
    let response = app
        .post_json(
            "/v1/games",
            None,
            &json!({"game": "treeblox", "seed": 3, "clock": {"per_move_ms": 1000}}),
        )
        .await;
    assert_eq!(response.status(), StatusCode::CREATED);
    response.json().await.unwrap()
}

async fn clock_of(app: &TestApp, created: &Value) -> Value {
    let id = created["id"].as_str().unwrap();
    app.summary(id).await["status"]["clock"].clone()
}

async fn redeem(app: &TestApp, created: &Value, seat: &str) {
    let code = created["invitations"][seat]["code"].as_str().unwrap();
    let response = app
        .post_json("/v1/invitations/redeem", None, &json!({"code": code}))
        .await;
    assert_eq!(response.status(), StatusCode::OK);
}

/// The log's events as the umpire exports them: (type, actor).
async fn events_of(app: &TestApp, created: &Value) -> Vec<(String, String)> {
    let id = created["id"].as_str().unwrap();
    let archive: Value = app
        .get(
            &format!("/v1/games/{id}/export"),
            created["umpire_token"].as_str(),
        )
        .await
        .json()
        .await
        .unwrap();
    archive["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|event| {
            (
                event["event_type"].as_str().unwrap().to_string(),
                event["actor"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

async fn audit_is_valid(app: &TestApp, created: &Value) {
    let id = created["id"].as_str().unwrap();
    let audit: Value = app
        .get(
            &format!("/v1/games/{id}/audit"),
            created["umpire_token"].as_str(),
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(audit["valid"], true, "{}", audit["first_failure"]);
}

#[tokio::test]
async fn the_clock_starts_when_the_last_seat_redeems_its_invitation() {
    let app = TestApp::spawn().await;
    let created = waiting_game(&app).await;
    // Given a new game: its clock waits for both seats, no deadline runs.
    let clock = clock_of(&app, &created).await;
    assert_eq!(clock["waiting_for"], json!(["dark", "light"]), "{clock}");
    assert!(clock["seats"]["dark"]["deadline"].is_null(), "{clock}");
    // When dark sits down: the log records dark's join, by dark.
    redeem(&app, &created, "dark").await;
    let clock = clock_of(&app, &created).await;
    assert_eq!(clock["waiting_for"], json!(["light"]), "{clock}");
    assert!(clock["seats"]["dark"]["deadline"].is_null(), "{clock}");
    // When light sits down too: the clock starts, and dark's time runs.
    redeem(&app, &created, "light").await;
    let clock = clock_of(&app, &created).await;
    assert!(clock["waiting_for"].is_null(), "{clock}");
    assert!(clock["seats"]["dark"]["deadline"].is_string(), "{clock}");
    let events = events_of(&app, &created).await;
    let clock_events: Vec<(&str, &str)> = events
        .iter()
        .filter(|(kind, _)| kind.starts_with("clock_") && kind != "clock_set")
        .map(|(kind, actor)| (kind.as_str(), actor.as_str()))
        .collect();
    assert_eq!(
        clock_events,
        [
            ("clock_seat_joined", "seat:dark"),
            ("clock_seat_joined", "seat:light"),
            ("clock_started", "seat:light"),
        ]
    );
    audit_is_valid(&app, &created).await;
}

#[tokio::test]
async fn the_umpire_starts_a_clock_that_waits_and_seats_join_by_action() {
    let app = TestApp::spawn().await;
    let created = waiting_game(&app).await;
    let id = created["id"].as_str().unwrap();
    let umpire = created["umpire_token"].as_str();
    let dark = created["seat_tokens"]["dark"].as_str();
    // A program holding dark's token joins by sending clock_join; twice is
    // refused, and so is a pause before the clock has started.
    let joined = app.submit(id, dark, json!({"type": "clock_join"})).await;
    assert_eq!(joined.status(), StatusCode::CREATED);
    let again = app.submit(id, dark, json!({"type": "clock_join"})).await;
    assert_error(
        again,
        StatusCode::UNPROCESSABLE_ENTITY,
        "clock.already_joined",
    )
    .await;
    let pause = app.submit(id, umpire, json!({"type": "clock_pause"})).await;
    assert_error(pause, StatusCode::UNPROCESSABLE_ENTITY, "clock.not_started").await;
    // The umpire will not wait for light: the clock starts, once.
    let start = app.submit(id, umpire, json!({"type": "clock_start"})).await;
    assert_eq!(start.status(), StatusCode::CREATED);
    let clock = clock_of(&app, &created).await;
    assert!(clock["seats"]["dark"]["deadline"].is_string(), "{clock}");
    let again = app.submit(id, umpire, json!({"type": "clock_start"})).await;
    assert_error(
        again,
        StatusCode::UNPROCESSABLE_ENTITY,
        "clock.already_started",
    )
    .await;
    // Light's redemption now joins nothing: the clock already runs.
    redeem(&app, &created, "light").await;
    let events = events_of(&app, &created).await;
    assert!(
        !events
            .iter()
            .any(|(kind, actor)| kind == "clock_seat_joined" && actor == "seat:light"),
        "{events:?}"
    );
    audit_is_valid(&app, &created).await;
}
