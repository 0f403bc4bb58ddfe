//! Whole games through the API, and projections at past versions.

use reqwest::StatusCode;
use serde_json::{json, Value};
use umpire_arboretum::codes;

use crate::support::TestApp;

async fn a_whole_game_can_be_played(game: &str, options: Value, seed: u64) {
    let app = TestApp::spawn().await;
    let created = app.create(game, options, seed).await;
    let played = app.play_to_the_end(&created, seed, 5_000).await;
    assert!(played > 0);
    let summary = app.summary(&created.id).await;
    assert_eq!(summary["status"]["finished"], true);
    let score: Value = app
        .get(&format!("/v1/games/{}/score", created.id), None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(score["final"], true, "{score}");
    assert_eq!(score["version"], summary["version"]);
    // Once over, nothing more is accepted: the last action a seat played,
    // sent again by that seat (well-formed, and legal a moment ago), is
    // refused because the game is over.
    let before = app.stored_version(&created.id).await;
    let (seat, action) = last_seat_action(&app, &created.id, &created.umpire_token, before).await;
    let response = app
        .submit(&created.id, Some(created.token(&seat)), action)
        .await;
    crate::support::assert_error(
        response,
        StatusCode::UNPROCESSABLE_ENTITY,
        &format!("{game}.game_over"),
    )
    .await;
    assert_eq!(app.stored_version(&created.id).await, before);
}

/// The seat that acted last in a game, and the action it sent.
async fn last_seat_action(app: &TestApp, id: &str, umpire: &str, version: u64) -> (String, Value) {
    let page: Value = app
        .get(
            &format!(
                "/v1/games/{id}/events?after={}",
                version.saturating_sub(200)
            ),
            Some(umpire),
        )
        .await
        .json()
        .await
        .unwrap();
    page["events"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find_map(|event| {
            let seat = event["actor"].as_str()?.strip_prefix("seat:")?;
            Some((seat.to_string(), event.get("action")?.clone()))
        })
        .expect("a seat acted in the game")
}

#[tokio::test]
async fn two_seats_play_a_whole_game_of_arboretum() {
    a_whole_game_can_be_played("arboretum", json!({"dm_advantage": "blue"}), 7).await;
}

#[tokio::test]
async fn two_seats_play_a_whole_game_of_treeblox() {
    a_whole_game_can_be_played("treeblox", json!({}), 11).await;
}

#[tokio::test]
async fn three_seats_play_a_whole_game_of_draft_and_cider() {
    a_whole_game_can_be_played("draft_cider", json!({"players": 3}), 5).await;
}

#[tokio::test]
async fn one_seat_plays_a_whole_solo_game_of_draft_and_cider() {
    a_whole_game_can_be_played("draft_cider", json!({"players": 1, "rounds": "current"}), 6).await;
}

#[tokio::test]
async fn five_seats_play_a_whole_game_of_flower_fields() {
    a_whole_game_can_be_played("flower_fields", json!({}), 3).await;
}

#[tokio::test]
async fn the_state_and_score_can_be_projected_at_any_past_version() {
    let app = TestApp::spawn().await;
    let created = app.create("arboretum", json!({}), 99).await;
    let red = created.token("red").to_string();
    let first: Value = app
        .get(&format!("/v1/games/{}/state?at=1", created.id), None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(first["version"], 1);
    assert_eq!(first["status"]["phase"], "choosing_start");
    let response = app
        .submit(
            &created.id,
            Some(&red),
            json!({"type": "choose_start", "seat": "blue"}),
        )
        .await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let accepted: Value = response.json().await.unwrap();
    let now = accepted["version"].as_u64().unwrap();
    assert!(now > 1);
    // The past does not change when the game moves on.
    let again: Value = app
        .get(&format!("/v1/games/{}/state?at=1", created.id), None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(again, first);
    let latest: Value = app
        .get(&format!("/v1/games/{}/state", created.id), None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(latest["version"], now);
    assert_eq!(latest["status"]["phase"], "bidding");
    assert_eq!(latest["state"]["starting_player"], "blue");
    let score: Value = app
        .get(&format!("/v1/games/{}/score?at={now}", created.id), None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(score["final"], false);
    assert_eq!(score["version"], now);
}

#[tokio::test]
async fn a_dry_run_says_whether_an_action_is_legal_and_stores_nothing() {
    let app = TestApp::spawn().await;
    let created = app.create("arboretum", json!({}), 1).await;
    let red = created.token("red").to_string();
    let path = format!("/v1/games/{}/actions/check", created.id);
    let legal: Value = app
        .post_json(
            &path,
            Some(&red),
            &json!({"action": {"type": "choose_start", "seat": "red"}}),
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(legal["legal"], true, "{legal}");
    // A seat learns that it may; only the umpire sees what it would cause.
    assert_eq!(legal["events"], json!([]), "{legal}");
    let blue = created.token("blue").to_string();
    let illegal: Value = app
        .post_json(
            &path,
            Some(&blue),
            &json!({"action": {"type": "choose_start", "seat": "red"}}),
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(illegal["legal"], false);
    assert_eq!(
        illegal["violation"]["code"],
        codes::NOT_YOUR_TURN_TO_CHOOSE_START.code
    );
    assert_eq!(app.stored_version(&created.id).await, 1);
    // Once bidding has begun, the umpire may time a seat out, and sees
    // what that would cause.
    app.submit(
        &created.id,
        Some(&red),
        json!({"type": "choose_start", "seat": "red"}),
    )
    .await;
    let as_umpire: Value = app
        .post_json(
            &path,
            Some(&created.umpire_token),
            &json!({"action": {"type": "timeout", "seat": "red"}}),
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(as_umpire["legal"], true, "{as_umpire}");
    assert!(
        !as_umpire["events"].as_array().unwrap().is_empty(),
        "{as_umpire}"
    );
    // At a past version too.
    let past: Value = app
        .post_json(
            &format!("{path}?at=1"),
            Some(&red),
            &json!({"action": {"type": "choose_start", "seat": "blue"}}),
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(past["legal"], true);
    assert_eq!(past["at"], 1);
}

#[tokio::test]
async fn the_event_log_pages_with_after_and_limit() {
    let app = TestApp::spawn().await;
    let created = app.create("arboretum", json!({}), 3).await;
    let red = created.token("red").to_string();
    app.submit(
        &created.id,
        Some(&red),
        json!({"type": "choose_start", "seat": "red"}),
    )
    .await;
    let version = app.stored_version(&created.id).await;
    assert!(version >= 3);
    let page: Value = app
        .get(
            &format!("/v1/games/{}/events?after=0&limit=2", created.id),
            None,
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(page["events"].as_array().unwrap().len(), 2);
    assert_eq!(page["next_after"], 2);
    let rest: Value = app
        .get(
            &format!("/v1/games/{}/events?after=2&limit=1000", created.id),
            None,
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(rest["events"][0]["seq"], 3);
    assert!(rest.get("next_after").is_none());
    // Spectators do not see hash links; the umpire does.
    assert!(rest["events"][0].get("hash").is_none());
    let umpire: Value = app
        .get(
            &format!("/v1/games/{}/events", created.id),
            Some(&created.umpire_token),
        )
        .await
        .json()
        .await
        .unwrap();
    let events = umpire["events"].as_array().unwrap();
    for pair in events.windows(2) {
        assert_eq!(pair[1]["prev_hash"], pair[0]["hash"]);
    }
}

#[tokio::test]
async fn health_readiness_and_the_docs_are_served() {
    let app = TestApp::spawn().await;
    assert_eq!(app.get("/healthz", None).await.status(), StatusCode::OK);
    assert_eq!(app.get("/readyz", None).await.status(), StatusCode::OK);
    let docs = app.get("/docs/", None).await;
    assert_eq!(docs.status(), StatusCode::OK);
    assert!(docs.text().await.unwrap().contains("swagger"));
    let spec: Value = app.get("/openapi.json", None).await.json().await.unwrap();
    assert_eq!(spec["openapi"], "3.1.0");
}
