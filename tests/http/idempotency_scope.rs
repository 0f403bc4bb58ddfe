//! Idempotency keys belong to the actor who sent them: two seats may use the
//! same key for their own actions, and neither learns which keys the other
//! used.

use reqwest::{Response, StatusCode};
use serde_json::{json, Value};

use crate::support::{assert_error, Created, TestApp};

/// Sends `action` as `seat` with `Idempotency-Key: key`.
async fn submit_with_key(
    app: &TestApp,
    game: &Created,
    seat: &str,
    key: &str,
    action: &Value,
) -> Response {
    app.client
        .post(app.url(&format!("/v1/games/{}/actions", game.id)))
        .bearer_auth(game.token(seat))
        .header("Idempotency-Key", key)
        .json(&json!({"action": action}))
        .send()
        .await
        .unwrap()
}

fn replayed(response: &Response) -> bool {
    response.headers().contains_key("idempotent-replayed")
}

#[tokio::test]
async fn two_seats_using_one_idempotency_key_each_get_their_own_action_applied() {
    let app = TestApp::spawn().await;
    let game = app.create("arboretum", json!({}), 7).await;
    let start = app
        .submit(
            &game.id,
            Some(game.token("red")),
            json!({"type": "choose_start", "seat": "red"}),
        )
        .await;
    assert_eq!(start.status(), StatusCode::CREATED);
    let blue_bid = json!({"type": "bid", "groups": [{"size": 2, "plan": "garden"}]});
    let red_bid = json!({"type": "bid", "groups": [{"size": 1, "plan": "bulletin"}]});

    let blue = submit_with_key(&app, &game, "blue", "bid-round-1", &blue_bid).await;
    assert_eq!(blue.status(), StatusCode::CREATED);
    assert!(!replayed(&blue));
    let blue_answer: Value = blue.json().await.unwrap();

    // Red's legal bid under the key blue used is red's own request.
    let red = submit_with_key(&app, &game, "red", "bid-round-1", &red_bid).await;
    assert_eq!(red.status(), StatusCode::CREATED);
    assert!(
        !replayed(&red),
        "red's bid was applied, not blue's answered"
    );
    let red_answer: Value = red.json().await.unwrap();
    assert!(red_answer["version"].as_u64() > blue_answer["version"].as_u64());
    let game_id = uuid::Uuid::parse_str(&game.id).unwrap();
    let events = app.store.read_events(game_id, 0, None, None).await.unwrap();
    let bids: Vec<&str> = events
        .iter()
        .filter(|e| e.event_type == "bid_submitted")
        .map(|e| e.actor.as_str())
        .collect();
    assert_eq!(bids, ["seat:blue", "seat:red"]);

    // Blue's retry gets blue's stored answer.
    let again = submit_with_key(&app, &game, "blue", "bid-round-1", &blue_bid).await;
    assert_eq!(again.status(), StatusCode::CREATED);
    assert!(replayed(&again));
    let again: Value = again.json().await.unwrap();
    assert_eq!(again["version"], blue_answer["version"]);
    assert_eq!(again["events"], blue_answer["events"]);

    // Red reusing red's own key for another request is still refused, and
    // nothing is appended.
    let version = app.stored_version(&game.id).await;
    let reused = submit_with_key(
        &app,
        &game,
        "red",
        "bid-round-1",
        &json!({"type": "bid", "groups": []}),
    )
    .await;
    assert_error(
        reused,
        StatusCode::UNPROCESSABLE_ENTITY,
        "idempotency_key_reused",
    )
    .await;
    assert_eq!(app.stored_version(&game.id).await, version);
}
