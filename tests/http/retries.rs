//! Clients retrying and crowding one game: an idempotent retry gets its
//! original answer, however many arrive at once and through whichever
//! instance; a crowd of submissions is served in turn, and one that cannot
//! get its turn is a conflict to retry, never an outage.

use futures_util::future::join_all;
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::support::{Created, TestApp};

/// The first seat to act and an action it may take.
async fn a_legal_move(app: &TestApp, created: &Created) -> (String, Value) {
    let summary = app.summary(&created.id).await;
    let seat = summary["status"]["to_act"][0]
        .as_str()
        .expect("someone to act")
        .to_string();
    let token = created.token(&seat).to_string();
    let legal = app.legal_actions(&created.id, &token).await;
    (token, legal["actions"][0].clone())
}

/// Submits `action` with the Idempotency-Key `retry-1` as a client would:
/// sent again while it is answered 409 `contended` (its turn at the game
/// did not come within the deadline and nothing was applied; on a busy
/// machine fifty at once took longer). The decided answer's status, whether
/// it was a replay, and its body.
async fn submit_until_decided(
    instance: &TestApp,
    path: &str,
    token: &str,
    action: &Value,
) -> (StatusCode, bool, Value) {
    for _ in 0..100 {
        let response = instance
            .client
            .post(instance.url(path))
            .bearer_auth(token)
            .header("Idempotency-Key", "retry-1")
            .json(&json!({"action": action}))
            .send()
            .await
            .expect("an answer");
        let status = response.status();
        let replayed = response.headers().contains_key("idempotent-replayed");
        let body: Value = response.json().await.unwrap();
        if status != StatusCode::CONFLICT || body["code"] != "contended" {
            return (status, replayed, body);
        }
    }
    panic!("a submission was answered `contended` 100 times");
}

#[tokio::test]
async fn fifty_retries_with_one_idempotency_key_apply_once_and_all_get_its_answer() {
    let app = TestApp::spawn().await;
    let other = app.another_instance().await;
    for (game, options) in [
        ("arboretum", json!({})),
        ("treeblox", json!({})),
        ("draft_cider", json!({"players": 3})),
        ("flower_fields", json!({})),
    ] {
        let created = app.create(game, options, 11).await;
        let (token, action) = a_legal_move(&app, &created).await;
        let before = app.stored_version(&created.id).await;
        let path = format!("/v1/games/{}/actions", created.id);
        // Half through each instance: a retry may land on either.
        let answers = join_all((0..50).map(|i| {
            let instance = if i % 2 == 0 { &app } else { &other };
            submit_until_decided(instance, &path, &token, &action)
        }))
        .await;
        let mut originals = 0;
        for (status, replayed, body) in &answers {
            assert_eq!(*status, StatusCode::CREATED, "{game}: {body}");
            originals += usize::from(!replayed);
        }
        let answers: Vec<Value> = answers.into_iter().map(|(_, _, body)| body).collect();
        assert_eq!(
            originals, 1,
            "{game}: exactly one request applied the action"
        );
        assert!(
            answers
                .iter()
                .all(|answer| answer["version"] == answers[0]["version"]),
            "{game}: every retry gets the original version"
        );
        let after = app.stored_version(&created.id).await;
        assert_eq!(
            after,
            answers[0]["version"].as_u64().unwrap(),
            "{game}: applied once (from {before})"
        );
    }
}

#[tokio::test]
async fn a_retry_reformatted_by_another_client_library_is_the_same_request() {
    let app = TestApp::spawn().await;
    let created = app.create("arboretum", json!({}), 3).await;
    let path = format!("/v1/games/{}/actions", created.id);
    let send = |body: &'static str| {
        app.client
            .post(app.url(&path))
            .bearer_auth(created.token("red"))
            .header("Idempotency-Key", "retry-1")
            .header("content-type", "application/json")
            .body(body)
            .send()
    };
    let first = send(r#"{"action": {"type": "choose_start", "seat": "red"}}"#)
        .await
        .unwrap();
    assert_eq!(first.status(), StatusCode::CREATED);
    let again = send(r#"{ "action" : { "seat":"red", "type":"choose_start" } }"#)
        .await
        .unwrap();
    assert_eq!(again.status(), StatusCode::CREATED);
    assert_eq!(again.headers().get("idempotent-replayed").unwrap(), "true");
}

#[tokio::test]
async fn a_crowd_of_unversioned_submissions_is_served_in_turn_never_as_an_outage() {
    let app = TestApp::spawn().await;
    let mut instances = vec![app.another_instance().await];
    for _ in 0..3 {
        instances.push(app.another_instance().await);
    }
    let created = app.create("arboretum", json!({}), 4).await;
    let red = created.token("red").to_string();
    let blue = created.token("blue").to_string();
    app.submit(
        &created.id,
        Some(&red),
        json!({"type": "choose_start", "seat": "red"}),
    )
    .await;
    let bid = json!({"type": "bid", "groups": [{"size": 2, "plan": "garden"}]});
    let responses = join_all((0..100).map(|i| {
        let instance = &instances[i % instances.len()];
        let token = if i % 2 == 0 { &red } else { &blue };
        instance.submit(&created.id, Some(token), bid.clone())
    }))
    .await;
    let mut statuses = Vec::new();
    for response in responses {
        let status = response.status();
        if status == StatusCode::CONFLICT {
            // Only a submission that never got its turn: to retry later.
            assert!(response.headers().contains_key("retry-after"));
            let body: Value = response.json().await.unwrap();
            assert_eq!(body["code"], "contended", "{body}");
        }
        statuses.push(status);
    }
    // 429: a seat whose bids keep being refused is slowed (service/src/throttle.rs).
    assert!(
        statuses.iter().all(|s| *s == StatusCode::CREATED
            || *s == StatusCode::UNPROCESSABLE_ENTITY
            || *s == StatusCode::TOO_MANY_REQUESTS
            || *s == StatusCode::CONFLICT),
        "{statuses:?}"
    );
    // Every 201 is one applied bid, and every other answer was decided by
    // the rules on the state the bids before it left (nothing lost a race).
    let accepted = statuses
        .iter()
        .filter(|s| **s == StatusCode::CREATED)
        .count();
    let game_id = uuid::Uuid::parse_str(&created.id).unwrap();
    let events = app.store.read_events(game_id, 0, None, None).await.unwrap();
    let mut bids: Vec<u64> = events
        .iter()
        .filter(|event| event.action["type"] == "bid")
        .map(|event| event.decided_at)
        .collect();
    bids.dedup();
    assert_eq!(accepted, bids.len(), "{statuses:?}");
    assert!(accepted >= 2, "{statuses:?}");
}
